//! The player's corrections of turns' mechanics, kept with the story
//! (docs/narrator.md, "The player corrects"): every branch of the story
//! routes with them, and deleting the story deletes them.

use rusqlite::params;

use super::{now, require_session, Store, StoreError};
use crate::skills::corrections::Correction;

/// The most corrections one story keeps: the oldest goes when a new one
/// would pass it, so a story's routing examples stay few beside the
/// authors' own.
pub const CORRECTIONS_KEPT: usize = 200;

impl Store {
    /// Keeps the player's correction of a turn with `input`: it needed the
    /// scripts `needed` (none: narration only) and not the skills
    /// `unneeded`. An earlier correction of the same input is replaced: the
    /// player's last word stands. Returns the correction kept.
    pub fn add_correction(
        &mut self,
        session: &str,
        input: &str,
        needed: &[String],
        unneeded: &[String],
    ) -> Result<Correction, StoreError> {
        require_session(&self.conn, session)?;
        let created_at = now();
        let json = |list: &[String]| serde_json::to_string(list).unwrap_or_else(|_| "[]".into());
        let tx = self.conn.transaction()?;
        tx.execute(
            "DELETE FROM routing_corrections WHERE session_id = ?1 AND input = ?2",
            params![session, input],
        )?;
        tx.execute(
            "INSERT INTO routing_corrections (session_id, input, needed, unneeded, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![session, input, json(needed), json(unneeded), created_at],
        )?;
        let id = tx.last_insert_rowid();
        tx.execute(
            "DELETE FROM routing_corrections WHERE session_id = ?1 AND id NOT IN
             (SELECT id FROM routing_corrections WHERE session_id = ?1 ORDER BY id DESC LIMIT ?2)",
            params![session, CORRECTIONS_KEPT as i64],
        )?;
        tx.commit()?;
        Ok(Correction {
            id,
            input: input.to_string(),
            needed: needed.to_vec(),
            unneeded: unneeded.to_vec(),
            created_at,
        })
    }

    /// The story's corrections, oldest first.
    pub fn corrections(&self, session: &str) -> Result<Vec<Correction>, StoreError> {
        require_session(&self.conn, session)?;
        Ok(self
            .corrections_of(Some(session))?
            .into_iter()
            .map(|(_, c)| c)
            .collect())
    }

    /// Every story's corrections that name `skill` (needed or not), each
    /// with its story's title, oldest first.
    pub fn corrections_naming(&self, skill: &str) -> Result<Vec<(String, Correction)>, StoreError> {
        let all = self.corrections_of(None)?;
        Ok(all.into_iter().filter(|(_, c)| c.names(skill)).collect())
    }

    /// The corrections of `session` (`None`: of every story), each with its
    /// story's title, oldest first.
    fn corrections_of(
        &self,
        session: Option<&str>,
    ) -> Result<Vec<(String, Correction)>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT c.id, c.input, c.needed, c.unneeded, c.created_at, s.title
             FROM routing_corrections c JOIN sessions s ON s.id = c.session_id
             WHERE ?1 IS NULL OR c.session_id = ?1 ORDER BY c.id",
        )?;
        let rows = stmt.query_map(params![session], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, String>(5)?,
            ))
        })?;
        let mut kept = Vec::new();
        for row in rows {
            let (id, input, needed, unneeded, created_at, title) = row?;
            let list = |what: &str, text: &str| {
                serde_json::from_str::<Vec<String>>(text).map_err(|e| {
                    StoreError::Damaged(format!("correction {id}'s {what} skills: {e}"))
                })
            };
            let correction = Correction {
                id,
                needed: list("needed", &needed)?,
                unneeded: list("unneeded", &unneeded)?,
                input,
                created_at,
            };
            kept.push((title, correction));
        }
        Ok(kept)
    }

    /// Removes the story's correction `id`; `false` when it has none by that id.
    pub fn remove_correction(&self, session: &str, id: i64) -> Result<bool, StoreError> {
        require_session(&self.conn, session)?;
        let removed = self.conn.execute(
            "DELETE FROM routing_corrections WHERE session_id = ?1 AND id = ?2",
            params![session, id],
        )?;
        Ok(removed > 0)
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::Map;

    use super::*;

    fn strings(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn corrections_are_kept_per_story_replaced_by_input_and_removed_by_id() {
        let mut store = Store::open(Path::new(":memory:")).unwrap();
        let a = store.create_session("a", &Map::new()).unwrap();
        let b = store.create_session("b", &Map::new()).unwrap();
        let first = store
            .add_correction(&a, "I haggle", &strings(&["dice-roller/roll"]), &[])
            .unwrap();
        store
            .add_correction(&a, "I walk on", &[], &strings(&["dice-roller"]))
            .unwrap();
        // The player's last word on an input stands.
        let again = store
            .add_correction(&a, "I haggle", &strings(&["reputation/update"]), &[])
            .unwrap();
        let kept = store.corrections(&a).unwrap();
        assert_eq!(
            kept.iter().map(|c| c.input.as_str()).collect::<Vec<_>>(),
            ["I walk on", "I haggle"]
        );
        assert_eq!(kept[1], again);
        assert_eq!(kept[0].unneeded, ["dice-roller"]);
        assert!(store.corrections(&b).unwrap().is_empty());
        let naming: Vec<(String, String)> = store
            .corrections_naming("dice-roller")
            .unwrap()
            .into_iter()
            .map(|(title, c)| (title, c.input))
            .collect();
        assert_eq!(naming, [("a".to_string(), "I walk on".to_string())]);
        // Another story's id removes nothing.
        assert!(!store.remove_correction(&b, again.id).unwrap());
        assert!(!store.remove_correction(&a, first.id).unwrap());
        assert!(store.remove_correction(&a, again.id).unwrap());
        assert_eq!(store.corrections(&a).unwrap().len(), 1);
        assert!(matches!(
            store.corrections("nobody"),
            Err(StoreError::NoSession(_))
        ));
    }

    #[test]
    fn a_story_keeps_its_newest_corrections() {
        let mut store = Store::open(Path::new(":memory:")).unwrap();
        let a = store.create_session("a", &Map::new()).unwrap();
        for n in 0..CORRECTIONS_KEPT + 3 {
            store
                .add_correction(&a, &format!("deed {n}"), &[], &[])
                .unwrap();
        }
        let kept = store.corrections(&a).unwrap();
        assert_eq!(kept.len(), CORRECTIONS_KEPT);
        assert_eq!(kept[0].input, "deed 3");
    }

    #[test]
    fn a_damaged_row_is_named() {
        let mut store = Store::open(Path::new(":memory:")).unwrap();
        let a = store.create_session("a", &Map::new()).unwrap();
        store.add_correction(&a, "I haggle", &[], &[]).unwrap();
        store
            .conn
            .execute("UPDATE routing_corrections SET needed = 'oops'", [])
            .unwrap();
        let err = store.corrections(&a).unwrap_err().to_string();
        assert!(err.contains("needed skills"), "{err}");
    }

    #[test]
    fn a_database_at_step_eight_gains_corrections_and_keeps_its_stories() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sessions.db");
        {
            let mut conn = rusqlite::Connection::open(&path).unwrap();
            super::super::schema::first_steps(8)
                .to_latest(&mut conn)
                .unwrap();
            conn.execute(
                "INSERT INTO sessions (id, title, created_at, updated_at) VALUES ('s1', 'old', 'x', 'x')",
                [],
            )
            .unwrap();
        }
        let mut store = Store::open(&path).unwrap();
        assert!(store.corrections("s1").unwrap().is_empty());
        store.add_correction("s1", "I haggle", &[], &[]).unwrap();
        assert_eq!(store.corrections("s1").unwrap().len(), 1);
    }
}
