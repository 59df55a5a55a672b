//! Recall inside a story: the candidates are the memories of the story made
//! in the turns the current turn sees (its path and itself). A story holds
//! a memory or so per turn, so every visible memory with an embedding is a
//! vector candidate (scored exactly afterwards), and the keyword search is
//! limited to the visible ones.

use narratoria_protocol::StoryPlace;
use rusqlite::{params, Connection};

use super::store::{fts_query, KEYWORD_CANDIDATES};
use crate::error::SkillError;

/// The memories a story's turn sees.
const VISIBLE: &str = "SELECT id FROM memories
    WHERE story_id = ?1 AND turn_id IN (SELECT value FROM json_each(?2))";

/// The memories of a story's turn worth scoring exactly for one query.
pub(super) struct Candidates {
    /// Every visible memory with an embedding, when a query embedding is given.
    pub vector_ids: Vec<i64>,
    /// The visible keyword matches, with their bm25.
    pub keyword_matches: Vec<(i64, f64)>,
}

/// The candidates among the memories `story` sees.
pub(super) fn search(
    conn: &Connection,
    story: &StoryPlace,
    query: &str,
    query_vec: Option<&[f32]>,
) -> Result<Candidates, SkillError> {
    let turns = serde_json::to_string(&story.visible_turns()).expect("serialises");
    let ids = match query_vec {
        Some(_) => {
            let mut st =
                conn.prepare_cached(&format!("{VISIBLE} AND length(embedding) > 0 ORDER BY id"))?;
            let rows = st.query_map(params![story.id, turns], |r| r.get::<_, i64>(0))?;
            rows.collect::<Result<Vec<_>, _>>()?
        }
        None => Vec::new(),
    };
    let matches = match fts_query(query) {
        Some(expr) => {
            let mut st = conn.prepare_cached(&format!(
                "SELECT rowid, bm25(memories_fts) FROM memories_fts
                 WHERE memories_fts MATCH ?3 AND rowid IN ({VISIBLE})
                 ORDER BY bm25(memories_fts) LIMIT ?4"
            ))?;
            let rows = st.query_map(
                params![story.id, turns, expr, KEYWORD_CANDIDATES as i64],
                |r| Ok((r.get::<_, i64>(0)?, r.get::<_, f64>(1)?)),
            )?;
            rows.collect::<Result<Vec<_>, _>>()?
        }
        None => Vec::new(),
    };
    Ok(Candidates {
        vector_ids: ids,
        keyword_matches: matches,
    })
}

#[cfg(test)]
mod tests {
    use super::super::store::{MemoryStore, NewMemory};
    use narratoria_protocol::StoryPlace;

    fn place(story: &str, turn: &str, path: &[&str]) -> Option<StoryPlace> {
        Some(StoryPlace {
            id: story.into(),
            branch: "main".into(),
            turn: path.len() as u32 + 1,
            turn_id: turn.into(),
            path: path.iter().map(|t| t.to_string()).collect(),
        })
    }

    fn keep(dir: &std::path::Path, story: Option<StoryPlace>, summary: &str) {
        keep_as(dir, story, summary, false);
    }

    fn keep_as(dir: &std::path::Path, story: Option<StoryPlace>, summary: &str, account: bool) {
        MemoryStore::open(dir)
            .unwrap()
            .within(story)
            .insert(&NewMemory {
                summary,
                timestamp: "2026-01-01T00:00:00Z",
                metadata: None,
                embedding: Some(&[0.5; 384]),
                turn_account: account,
            })
            .unwrap();
    }

    fn recall(dir: &std::path::Path, story: Option<StoryPlace>, query: &str) -> Vec<String> {
        let store = MemoryStore::open(dir).unwrap().within(story);
        let (found, _) = store.recall(query, None, 0.0, 10).unwrap();
        found.into_iter().map(|m| m.summary).collect()
    }

    #[test]
    fn a_turn_recalls_only_the_memories_of_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        keep(d, place("s", "t1", &[]), "Met Hilda the smith");
        keep(d, place("s", "t2", &["t1"]), "Hilda forged a sword");
        keep(
            d,
            place("s", "b2", &["t1"]),
            "Hilda refused to forge anything",
        );
        keep(d, place("other", "x1", &[]), "Hilda of another tale");
        let on_main = recall(d, place("s", "t3", &["t1", "t2"]), "Hilda forge");
        assert_eq!(on_main.len(), 2, "{on_main:?}");
        assert!(on_main.iter().all(|m| !m.contains("refused")));
        let on_branch = recall(d, place("s", "b3", &["t1", "b2"]), "Hilda forge");
        assert_eq!(on_branch.len(), 2, "{on_branch:?}");
        assert!(on_branch.iter().any(|m| m.contains("refused")));
        assert!(recall(d, place("s", "t1", &[]), "sword").is_empty());
        // Outside a story, everything is found, as before.
        assert_eq!(recall(d, None, "Hilda").len(), 4);
    }

    #[test]
    fn a_turn_told_again_replaces_its_account_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        keep(d, place("s", "t1", &[]), "Remember: Hilda owes me a sword");
        keep_as(
            d,
            place("s", "t1", &[]),
            "You greet Hilda. She scowls.",
            true,
        );
        keep_as(
            d,
            place("s", "b1", &[]),
            "You greet Hilda. She waves.",
            true,
        );
        keep_as(
            d,
            place("s", "t1", &[]),
            "You greet Hilda. She laughs.",
            true,
        );
        let seen = recall(d, place("s", "t2", &["t1"]), "Hilda");
        assert_eq!(seen.len(), 2, "{seen:?}");
        assert!(seen.iter().any(|m| m.contains("owes me")));
        assert!(seen.iter().any(|m| m.contains("laughs")));
        // The other branch keeps its own account.
        assert_eq!(
            recall(d, place("s", "b2", &["b1"]), "Hilda"),
            ["You greet Hilda. She waves."]
        );
        // Nothing is left of the replaced account in the vector index either.
        let store = MemoryStore::open(d).unwrap();
        let (near, _) = store.recall("zzz", Some(&[0.5; 384]), 0.0, 10).unwrap();
        assert_eq!(
            near.len(),
            3,
            "{:?}",
            near.iter().map(|m| &m.summary).collect::<Vec<_>>()
        );
    }
}
