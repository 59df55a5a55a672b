//! The memory database (`data/memories.db`): the `memories` table, an
//! FTS5 index of summaries and a sqlite-vec index of embeddings, migrated
//! with `rusqlite_migration`.
//!
//! Vector search: the `memories_vec` vec0 table holds each embedding
//! binary-quantised (`bit[384]`, 48 bytes), so a k-nearest scan by Hamming
//! distance over 100,000 memories reads under 5 MB; the best candidates are
//! then re-scored by exact cosine against the full `f32` embedding kept in
//! `memories.embedding` (the original column). A full-precision `float[384]`
//! scan reads 150 MB per recall — too slow for a fresh process per query.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{LazyLock, Once};
use std::time::{Duration, Instant};

use narratoria_lexicon::{asks_with, is_stop_word, Language};
use narratoria_protocol::StoryPlace;
use rusqlite::{params, Connection, OptionalExtension};
use rusqlite_migration::{Migrations, M};
use serde_json::Value;

use super::embedder::{cosine, from_blob, to_blob};
use super::rank::{rank, Candidate, Recalled};
use crate::error::SkillError;

/// Candidates taken from the vector index before exact re-scoring. sqlite-vec
/// picks the k nearest of each 1024-row chunk in O(chunk × k), so k drives
/// the cost of a recall: 200 takes ~45 ms over 100,000 memories, 48 ~10 ms.
pub const VECTOR_CANDIDATES: usize = 48;
/// Candidates taken from the keyword index.
pub const KEYWORD_CANDIDATES: usize = 48;

static MIGRATIONS: LazyLock<Migrations<'static>> = LazyLock::new(|| {
    Migrations::new(vec![
        // 1: the original `memories` table.
        M::up(
            "CREATE TABLE memories (
               id INTEGER PRIMARY KEY,
               timestamp TEXT NOT NULL,
               summary TEXT NOT NULL,
               embedding BLOB NOT NULL,
               metadata TEXT
             );",
        ),
        // 2: full-text index of summaries, kept in step by triggers.
        M::up(
            "CREATE VIRTUAL TABLE memories_fts USING fts5(
               summary, content='memories', content_rowid='id', tokenize='porter unicode61'
             );
             CREATE TRIGGER memories_fts_ai AFTER INSERT ON memories BEGIN
               INSERT INTO memories_fts(rowid, summary) VALUES (new.id, new.summary);
             END;
             CREATE TRIGGER memories_fts_ad AFTER DELETE ON memories BEGIN
               INSERT INTO memories_fts(memories_fts, rowid, summary) VALUES ('delete', old.id, old.summary);
             END;
             CREATE TRIGGER memories_fts_au AFTER UPDATE OF summary ON memories BEGIN
               INSERT INTO memories_fts(memories_fts, rowid, summary) VALUES ('delete', old.id, old.summary);
               INSERT INTO memories_fts(rowid, summary) VALUES (new.id, new.summary);
             END;
             INSERT INTO memories_fts(memories_fts) VALUES ('rebuild');",
        ),
        // 3: binary-quantised vector index (sqlite-vec) of 384-float embeddings.
        M::up(
            "CREATE VIRTUAL TABLE memories_vec USING vec0(embedding bit[384]);
             INSERT INTO memories_vec(rowid, embedding)
               SELECT id, vec_quantize_binary(embedding) FROM memories WHERE length(embedding) = 1536;",
        ),
        // 4: the story and turn a memory was made in (none outside a story).
        M::up(
            "ALTER TABLE memories ADD COLUMN story_id TEXT;
             ALTER TABLE memories ADD COLUMN turn_id TEXT;
             CREATE INDEX memories_by_story ON memories(story_id, turn_id);",
        ),
        // 5: which memory is a turn's own account (one per turn, replaced
        // when the turn is told again).
        M::up("ALTER TABLE memories ADD COLUMN turn_account INTEGER NOT NULL DEFAULT 0;"),
    ])
});

/// Registers sqlite-vec with every connection this process opens.
#[allow(unsafe_code)]
fn register_sqlite_vec() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: `sqlite3_vec_init` is the extension's entry point with the
        // signature SQLite expects of an auto-extension (the crate declares
        // it without arguments, hence the cast); it is registered once,
        // before any connection is opened.
        unsafe {
            rusqlite::ffi::sqlite3_auto_extension(Some(std::mem::transmute::<
                *const (),
                unsafe extern "C" fn(
                    *mut rusqlite::ffi::sqlite3,
                    *mut *mut std::os::raw::c_char,
                    *const rusqlite::ffi::sqlite3_api_routines,
                ) -> std::os::raw::c_int,
            >(
                sqlite_vec::sqlite3_vec_init as *const (),
            )));
        }
    });
}

/// A memory to store.
#[derive(Debug, Clone)]
pub struct NewMemory<'a> {
    pub summary: &'a str,
    pub timestamp: &'a str,
    pub metadata: Option<&'a Value>,
    /// Unit-length embedding, or `None` when no model is available.
    pub embedding: Option<&'a [f32]>,
    /// The account of the turn it is stored in: it replaces the one stored
    /// before for that turn (outside a story it is an ordinary memory).
    pub turn_account: bool,
}

/// Where a recall spent its time.
#[derive(Debug, Clone, Copy, Default)]
pub struct RecallTimings {
    pub vector: Duration,
    pub keyword: Duration,
    pub rescore: Duration,
}

/// The memory database.
pub struct MemoryStore {
    conn: Connection,
    /// The database file; `None` in memory.
    path: Option<PathBuf>,
    /// Where in a story memories are kept and recalled; `None`: outside any story.
    story: Option<StoryPlace>,
}

impl MemoryStore {
    /// Opens (creating and migrating as needed) `memories.db` in `data_dir`.
    pub fn open(data_dir: &Path) -> Result<MemoryStore, SkillError> {
        register_sqlite_vec();
        let path = data_dir.join("memories.db");
        let mut store = MemoryStore::from_connection(Connection::open(&path)?)?;
        store.path = Some(path);
        Ok(store)
    }

    /// An in-memory store, for tests and benchmarks.
    pub fn in_memory() -> Result<MemoryStore, SkillError> {
        register_sqlite_vec();
        MemoryStore::from_connection(Connection::open_in_memory()?)
    }

    fn from_connection(mut conn: Connection) -> Result<MemoryStore, SkillError> {
        crate::sqlite::prepare(&mut conn, &MIGRATIONS)?;
        Ok(MemoryStore {
            conn,
            path: None,
            story: None,
        })
    }

    /// The store as seen from `story` (as it always was, for `None`).
    pub fn within(mut self, story: Option<StoryPlace>) -> MemoryStore {
        self.story = story;
        self
    }

    /// Stores one memory; returns its id. A turn's account replaces the
    /// account stored before for the same turn of the same story.
    pub fn insert(&mut self, m: &NewMemory) -> Result<i64, SkillError> {
        let tx = self.conn.transaction()?;
        if let (Some(story), true) = (&self.story, m.turn_account) {
            let earlier = "SELECT id FROM memories
                 WHERE story_id = ?1 AND turn_id = ?2 AND turn_account = 1";
            tx.execute(
                &format!("DELETE FROM memories_vec WHERE rowid IN ({earlier})"),
                params![story.id, story.turn_id],
            )?;
            tx.execute(
                &format!("DELETE FROM memories WHERE id IN ({earlier})"),
                params![story.id, story.turn_id],
            )?;
        }
        let id = insert_in(&tx, m)?;
        if let Some(story) = &self.story {
            tx.execute(
                "UPDATE memories SET story_id = ?2, turn_id = ?3, turn_account = ?4 WHERE id = ?1",
                params![id, story.id, story.turn_id, m.turn_account],
            )?;
        }
        tx.commit()?;
        Ok(id)
    }

    /// Stores many memories in one transaction.
    pub fn insert_many(&mut self, ms: &[NewMemory]) -> Result<(), SkillError> {
        let tx = self.conn.transaction()?;
        for m in ms {
            insert_in(&tx, m)?;
        }
        tx.commit()?;
        Ok(())
    }

    /// Number of stored memories.
    pub fn len(&self) -> Result<i64, SkillError> {
        Ok(self
            .conn
            .query_row("SELECT count(*) FROM memories", [], |r| r.get(0))?)
    }

    /// Whether nothing is stored.
    pub fn is_empty(&self) -> Result<bool, SkillError> {
        Ok(self.len()? == 0)
    }

    /// The memories most relevant to `query`, best first: vector candidates
    /// (when `query_vec` is given) and keyword candidates, ranked by
    /// [`rank`]. Memories stored without an embedding are found by words only.
    pub fn recall(
        &self,
        query: &str,
        query_vec: Option<&[f32]>,
        threshold: f32,
        limit: usize,
    ) -> Result<(Vec<Recalled>, RecallTimings), SkillError> {
        let mut timings = RecallTimings::default();
        if let Some(story) = &self.story {
            let found = super::scope::search(&self.conn, story, query, query_vec)?;
            return self.rescore(
                found.vector_ids,
                found.keyword_matches,
                query_vec,
                threshold,
                limit,
                timings,
            );
        }

        // The two searches are independent: on a file database the keyword
        // search runs on its own connection in parallel with the vector one.
        let (vector, keyword) = match &self.path {
            Some(path) => std::thread::scope(|scope| {
                let kw = scope.spawn(|| {
                    let conn = Connection::open(path)?;
                    conn.busy_timeout(Duration::from_secs(5))?;
                    keyword_search(&conn, query)
                });
                let v = vector_search(&self.conn, query_vec);
                let k = kw
                    .join()
                    .unwrap_or_else(|_| Err(SkillError::internal("keyword search panicked")));
                (v, k)
            }),
            None => (
                vector_search(&self.conn, query_vec),
                keyword_search(&self.conn, query),
            ),
        };
        let (ids, vector_time) = vector?;
        let (matches, keyword_time) = keyword?;
        timings.vector = vector_time;
        timings.keyword = keyword_time;
        self.rescore(ids, matches, query_vec, threshold, limit, timings)
    }

    /// The candidates (`ids` from vectors, `matches` with their bm25 from
    /// keywords) scored exactly and ranked.
    fn rescore(
        &self,
        ids: Vec<i64>,
        matches: Vec<(i64, f64)>,
        query_vec: Option<&[f32]>,
        threshold: f32,
        limit: usize,
        mut timings: RecallTimings,
    ) -> Result<(Vec<Recalled>, RecallTimings), SkillError> {
        let mut found: BTreeMap<i64, (Option<f32>, Option<f64>)> = BTreeMap::new();
        for id in ids {
            found.entry(id).or_default();
        }
        for (id, bm25) in matches {
            found.entry(id).or_default().1 = Some(bm25);
        }

        let t = Instant::now();
        let mut st = self.conn.prepare_cached(
            "SELECT summary, timestamp, metadata, embedding FROM memories WHERE id = ?1",
        )?;
        let mut candidates = Vec::with_capacity(found.len());
        for (id, (_, bm25)) in found {
            let row = st
                .query_row([id], |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, Option<String>>(2)?,
                        r.get::<_, Vec<u8>>(3)?,
                    ))
                })
                .optional()?;
            let Some((summary, timestamp, metadata, blob)) = row else {
                continue;
            };
            let similarity = match (query_vec, from_blob(&blob)) {
                (Some(q), Some(v)) => Some(cosine(q, &v)),
                _ => None,
            };
            candidates.push(Candidate {
                id,
                summary,
                timestamp,
                metadata: metadata
                    .and_then(|m| serde_json::from_str(&m).ok())
                    .unwrap_or(Value::Null),
                similarity,
                bm25,
            });
        }
        let ranked = rank(candidates, query_vec.is_some(), threshold, limit);
        timings.rescore = t.elapsed();
        Ok((ranked, timings))
    }
}

/// The ids of the vector candidates nearest to `query_vec`, and the time taken.
fn vector_search(
    conn: &Connection,
    query_vec: Option<&[f32]>,
) -> Result<(Vec<i64>, Duration), SkillError> {
    let t = Instant::now();
    let Some(q) = query_vec else {
        return Ok((Vec::new(), t.elapsed()));
    };
    let mut st = conn.prepare_cached(
        "SELECT rowid FROM memories_vec
         WHERE embedding MATCH vec_quantize_binary(?1) AND k = ?2",
    )?;
    let ids = st
        .query_map(params![to_blob(q), VECTOR_CANDIDATES as i64], |r| {
            r.get::<_, i64>(0)
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok((ids, t.elapsed()))
}

/// The best keyword matches of `query` with their bm25, and the time taken.
fn keyword_search(
    conn: &Connection,
    query: &str,
) -> Result<(Vec<(i64, f64)>, Duration), SkillError> {
    let t = Instant::now();
    let Some(expr) = fts_query(query) else {
        return Ok((Vec::new(), t.elapsed()));
    };
    let mut st = conn.prepare_cached(
        "SELECT rowid, bm25(memories_fts) FROM memories_fts
         WHERE memories_fts MATCH ?1 ORDER BY bm25(memories_fts) LIMIT ?2",
    )?;
    let rows = st
        .query_map(params![expr, KEYWORD_CANDIDATES as i64], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, f64>(1)?))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok((rows, t.elapsed()))
}

fn insert_in(conn: &Connection, m: &NewMemory) -> Result<i64, SkillError> {
    let blob = m.embedding.map(to_blob).unwrap_or_default();
    let metadata = m.metadata.map(|v| v.to_string());
    conn.prepare_cached(
        "INSERT INTO memories (timestamp, summary, embedding, metadata) VALUES (?1, ?2, ?3, ?4)",
    )?
    .execute(params![m.timestamp, m.summary, blob, metadata])?;
    let id = conn.last_insert_rowid();
    if m.embedding.is_some() {
        conn.prepare_cached(
            "INSERT INTO memories_vec(rowid, embedding) VALUES (?1, vec_quantize_binary(?2))",
        )?
        .execute(params![id, blob])?;
    }
    Ok(id)
}

/// An FTS5 query matching any telling word of free text (the English stop
/// words and the words a question asks with left out,
/// [`narratoria_lexicon::stop_words`]; each word quoted so no text is read
/// as FTS5 syntax); `None` when no word is left.
pub fn fts_query(text: &str) -> Option<String> {
    let english = Language::english();
    let mut words: Vec<String> = Vec::new();
    for w in text.split(|c: char| !c.is_alphanumeric()) {
        let w = w.to_lowercase();
        if w.is_empty()
            || is_stop_word(&w, &english)
            || asks_with(&w)
            || words.iter().any(|q| q[1..q.len() - 1] == w)
        {
            continue;
        }
        words.push(format!("\"{w}\""));
    }
    (!words.is_empty()).then(|| words.join(" OR "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::DIMENSIONS;

    fn unit(seed: usize) -> Vec<f32> {
        let v: Vec<f32> = (0..DIMENSIONS)
            .map(|i| (((i * 31 + seed * 17) % 97) as f32 - 48.0) / 48.0)
            .collect();
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.into_iter().map(|x| x / n).collect()
    }

    #[test]
    fn migrations_are_valid() {
        register_sqlite_vec();
        MIGRATIONS.validate().unwrap();
    }

    #[test]
    fn fts_query_quotes_words() {
        assert_eq!(
            fts_query("The dragon's lair?").unwrap(),
            r#""dragon" OR "s" OR "lair""#
        );
        assert_eq!(fts_query("Dragon, dragon!").unwrap(), r#""dragon""#);
        assert_eq!(fts_query("who was it?"), None);
        assert_eq!(fts_query(" -- "), None);
        assert_eq!(fts_query("NEAR(\"a\" b)*").unwrap(), r#""near" OR "b""#);
    }

    #[test]
    fn vector_recall_finds_the_nearest_and_rescores_exactly() {
        let mut s = MemoryStore::in_memory().unwrap();
        let vecs: Vec<Vec<f32>> = (0..50).map(unit).collect();
        let ms: Vec<NewMemory> = vecs
            .iter()
            .enumerate()
            .map(|(i, v)| NewMemory {
                summary: if i == 7 { "the seventh" } else { "another" },
                timestamp: "2026-01-01T00:00:00Z",
                metadata: None,
                embedding: Some(v),
                turn_account: false,
            })
            .collect();
        s.insert_many(&ms).unwrap();
        let (got, _) = s.recall("nothing shared", Some(&vecs[7]), 0.0, 3).unwrap();
        assert_eq!(got[0].summary, "the seventh");
        assert!((got[0].similarity.unwrap() - 1.0).abs() < 1e-5);
    }

    #[test]
    fn keyword_recall_without_embeddings() {
        let mut s = MemoryStore::in_memory().unwrap();
        for summary in [
            "Met the blacksmith Hilda in Ashford",
            "Fought wolves on the north road",
            "Hilda forged a sword",
        ] {
            s.insert(&NewMemory {
                summary,
                timestamp: "2026-01-01T00:00:00Z",
                metadata: Some(&serde_json::json!({"characters": ["Hilda"]})),
                embedding: None,
                turn_account: false,
            })
            .unwrap();
        }
        let (got, _) = s.recall("What did Hilda forge?", None, 0.5, 5).unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].summary, "Hilda forged a sword"); // porter: forge ~ forged
        assert_eq!(got[0].metadata["characters"][0], "Hilda");
        assert!(s.recall("zebra", None, 0.5, 5).unwrap().0.is_empty());
    }
}
