//! A story's steer for its writer (docs/stories.md, "Author's note" and
//! "Language"): the player's author's note and the language the story is
//! told in, kept with the story (not with a turn: every branch shares them).

use rusqlite::{params, OptionalExtension};

use super::{Store, StoreError};
use crate::narration::{Language, AUTHOR_NOTE_CHARS};

/// What a story tells its writer besides its turns.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Steer {
    /// The player's author's note; empty when there is none.
    pub author_note: String,
    /// The story's language; `None` until its scenario, the player's words
    /// or the player tell one.
    pub language: Option<Language>,
}

impl Store {
    /// The story's author's note and language.
    pub fn steer(&self, session: &str) -> Result<Steer, StoreError> {
        let row: Option<(String, Option<String>)> = self
            .conn
            .query_row(
                "SELECT author_note, language FROM sessions WHERE id = ?1",
                params![session],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        let (author_note, language) = row.ok_or_else(|| StoreError::NoSession(session.into()))?;
        let language = language
            .map(|code| {
                Language::parse(&code)
                    .map_err(|e| StoreError::Damaged(format!("the story's language: {e}")))
            })
            .transpose()?;
        Ok(Steer {
            author_note,
            language,
        })
    }

    /// Keeps `note` as the story's author's note (empty: none). Refuses,
    /// saving nothing, a note of more than [`AUTHOR_NOTE_CHARS`] characters
    /// ([`StoreError::NoteTooLong`]).
    pub fn set_author_note(&self, session: &str, note: &str) -> Result<(), StoreError> {
        let chars = note.chars().count();
        if chars > AUTHOR_NOTE_CHARS {
            return Err(StoreError::NoteTooLong {
                chars,
                limit: AUTHOR_NOTE_CHARS,
            });
        }
        self.update(
            session,
            "UPDATE sessions SET author_note = ?2 WHERE id = ?1",
            note,
        )
    }

    /// Tells the story in `language` from its next turn on.
    pub fn set_language(&self, session: &str, language: &Language) -> Result<(), StoreError> {
        self.update(
            session,
            "UPDATE sessions SET language = ?2 WHERE id = ?1",
            language.code(),
        )
    }

    /// Runs `sql` (an update of one story, `?1` its id, `?2` the value).
    fn update(&self, session: &str, sql: &str, value: &str) -> Result<(), StoreError> {
        let n = self.conn.execute(sql, params![session, value])?;
        if n == 0 {
            return Err(StoreError::NoSession(session.to_string()));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::schema;
    use super::*;
    use serde_json::Map;
    use std::path::Path;

    fn fr() -> Language {
        Language::parse("fr").unwrap()
    }

    #[test]
    fn a_storys_note_and_language_outlive_the_app() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("stories.db");
        let mut store = Store::open(&path).unwrap();
        let plain = store.create_session("Plain", &Map::new()).unwrap();
        let french = store
            .create_story("Le Moulin", &Map::new(), Some(&fr()))
            .unwrap();
        assert_eq!(store.steer(&plain).unwrap(), Steer::default());
        assert_eq!(store.steer(&french).unwrap().language, Some(fr()));
        let note = "Keep it grim. Mara never lies — don't make her.";
        store.set_author_note(&plain, note).unwrap();
        store
            .set_language(&plain, &Language::parse("German").unwrap())
            .unwrap();
        drop(store);

        let store = Store::open(&path).unwrap();
        let steer = store.steer(&plain).unwrap();
        assert_eq!(steer.author_note, note);
        assert_eq!(steer.language.as_ref().map(Language::code), Some("de"));
        assert_eq!(store.steer(&french).unwrap().author_note, "");
        store.set_author_note(&plain, "").unwrap();
        assert_eq!(store.steer(&plain).unwrap().author_note, "");
        for missing in [
            store.steer("nobody").unwrap_err(),
            store.set_author_note("nobody", "x").unwrap_err(),
            store.set_language("nobody", &fr()).unwrap_err(),
        ] {
            assert!(matches!(missing, StoreError::NoSession(_)), "{missing:?}");
        }
    }

    #[test]
    fn a_note_over_the_limit_is_refused_whole() {
        let mut store = Store::open(Path::new(":memory:")).unwrap();
        let id = store.create_session("Long", &Map::new()).unwrap();
        store.set_author_note(&id, "Short and kept.").unwrap();
        // Counted in characters, not bytes.
        let longest = "é".repeat(AUTHOR_NOTE_CHARS);
        store.set_author_note(&id, &longest).unwrap();
        let err = store
            .set_author_note(&id, &"é".repeat(AUTHOR_NOTE_CHARS + 1))
            .unwrap_err();
        assert!(
            matches!(
                err,
                StoreError::NoteTooLong {
                    chars: 2001,
                    limit: 2000
                }
            ),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            "the author's note holds 2001 characters; at most 2000 are allowed"
        );
        assert_eq!(err.code(), crate::error::ErrorCode::NoteTooLong);
        assert_eq!(
            store.steer(&id).unwrap().author_note,
            longest,
            "nothing cut"
        );
    }

    /// A story saved before stories kept a note and a language has none
    /// of either once the database is opened, and takes them from then on.
    #[test]
    fn stories_saved_before_have_no_note_and_no_language_yet() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.db");
        {
            let mut conn = rusqlite::Connection::open(&path).unwrap();
            schema::first_steps(6).to_latest(&mut conn).unwrap();
            conn.execute_batch(
                "INSERT INTO sessions (id, title, created_at, updated_at, initial_state)
                   VALUES ('s1', 'Old tale', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', '{}');",
            )
            .unwrap();
            let version: i64 = conn
                .pragma_query_value(None, "user_version", |r| r.get(0))
                .unwrap();
            assert_eq!(version, 6);
        }
        let store = Store::open(&path).unwrap();
        assert_eq!(store.steer("s1").unwrap(), Steer::default());
        store.set_author_note("s1", "Slow and quiet.").unwrap();
        store.set_language("s1", &fr()).unwrap();
        assert_eq!(
            store.steer("s1").unwrap(),
            Steer {
                author_note: "Slow and quiet.".into(),
                language: Some(fr()),
            }
        );
    }
}
