//! Sessions in SQLite (WAL, schema migrations). A story is a tree of turns:
//! each turn follows a parent turn (none for the first) and keeps its input,
//! every plan and ExecutionResult, its narrations and the state after it;
//! branches are named pointers to a head turn, and a session plays on its
//! current branch (docs/stories.md). A turn is committed in one transaction,
//! so a crash leaves it either whole or absent; every transaction that reads
//! before it writes takes the write lock first, so it waits for another
//! writer instead of failing.
//!
//! What lives where: `schema` the tables, `commit` adding turns, `tree`
//! branches and moving heads, `swipes` a turn's alternatives, `steer` a
//! story's author's note and language, `export` the documents written out,
//! `invocations` each script run's record and the skills' stats, `bounds`
//! what a record keeps of what scripts said.

mod amend;
pub mod bounds;
mod commit;
mod corrections;
mod export;
mod invocations;
#[cfg(test)]
mod invocations_tests;
mod opening;
mod schema;
mod steer;
mod swipes;
#[cfg(test)]
mod tests;
mod tree;

use std::path::{Path, PathBuf};

use rusqlite::{params, Connection, OpenFlags, OptionalExtension};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::ErrorCode;
use crate::planner::{Routing, Transcript, TurnSummary};
use crate::result::ExecutionResult;
use crate::scenario::lore::LoreUse;

pub use commit::{NewTurn, TurnPlace};
pub use invocations::{RunStats, ScriptStats, SkillRunStats, SkillStats, StatsQuery};
pub use steer::Steer;
pub use swipes::Alternative;
pub use tree::{BranchInfo, StoryTree, TreeTurn};

/// Why the session store failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("session database {path}: {message}")]
    Open { path: PathBuf, message: String },
    /// The database cannot be written: the file, its folder (SQLite writes
    /// its journal beside it) or the disk is read-only. Not damage.
    #[error("the sessions database {path} cannot be written: the file or its folder is read-only ({reason}); make it writable or choose another sessions database (--session)")]
    ReadOnly { path: PathBuf, reason: String },
    /// The database was written by a newer Narratoria, whose schema this
    /// one does not know. It is left untouched.
    #[error("the sessions database {path} was written by a newer Narratoria (schema version {found}, this one knows {known}); update Narratoria or choose another sessions database (--session)")]
    TooNew {
        path: PathBuf,
        found: i64,
        known: i64,
    },
    #[error("session database: {0}")]
    Sql(#[from] rusqlite::Error),
    #[error("no session {0:?}")]
    NoSession(String),
    #[error("session {session:?} has no turn {turn}")]
    NoTurn { session: String, turn: u32 },
    #[error("the story has no branch {0:?}")]
    NoBranch(String),
    #[error("the story already has a branch {0:?}")]
    BranchExists(String),
    #[error("a branch needs a name")]
    BranchNameEmpty,
    #[error("the story's last branch cannot be deleted")]
    LastBranch,
    #[error("the turn has no alternative {0}")]
    NoAlternative(u32),
    #[error("the story moved on while the turn was played (branch {branch:?} no longer ends where the turn started); the turn was not saved")]
    SessionChanged { branch: String },
    #[error("stored data is damaged: {0}")]
    Damaged(String),
    /// An author's note over its limit; refused whole, never cut short.
    #[error("the author's note holds {chars} characters; at most {limit} are allowed")]
    NoteTooLong { chars: usize, limit: usize },
}

impl StoreError {
    /// The stable code the UI and CLI show.
    pub fn code(&self) -> ErrorCode {
        match self {
            StoreError::NoSession(_)
            | StoreError::NoTurn { .. }
            | StoreError::NoBranch(_)
            | StoreError::NoAlternative(_) => ErrorCode::SessionNotFound,
            StoreError::SessionChanged { .. } => ErrorCode::SessionChanged,
            StoreError::NoteTooLong { .. } => ErrorCode::NoteTooLong,
            _ => ErrorCode::SessionStore,
        }
    }
}

/// A session's summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionInfo {
    pub id: String,
    pub title: String,
    pub created_at: String,
    pub updated_at: String,
    /// Turns on the current branch.
    pub turns: u32,
    /// The current branch's name.
    #[serde(default)]
    pub branch: String,
}

/// One plan attempt of a turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AttemptRecord {
    pub attempt: u32,
    pub plan: Option<Value>,
    pub result: Option<ExecutionResult>,
    /// Why no plan came out, when none did.
    pub error: Option<String>,
    pub transcript: Option<Transcript>,
    /// The lore entries its narration was told, and why.
    #[serde(default)]
    pub lore: Vec<LoreUse>,
    /// Why its plan uses the skills it uses, when a router chose them.
    #[serde(default)]
    pub routing: Option<Routing>,
    /// Its turn only noted something: the turn's account is the player's
    /// note (see `turn::memory::summary`).
    #[serde(default)]
    pub noted: bool,
}

/// A turn as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnRecord {
    /// The turn's stable key (what scripts see in `story.path`).
    #[serde(default)]
    pub id: String,
    /// The key of the turn it follows; `None` for a first turn.
    #[serde(default)]
    pub parent: Option<String>,
    /// Its place on the branch: 1 for a first turn.
    pub number: u32,
    pub input: String,
    /// The active narration.
    pub narrative: String,
    /// Whether the narrative is the fallback template (every plan failed).
    pub fallback: bool,
    pub state_after: Map<String, Value>,
    pub created_at: String,
    pub duration_ms: u64,
    pub attempts: Vec<AttemptRecord>,
    /// The turn's whole trace (docs/observability.md); `None` for turns
    /// saved before traces were kept.
    #[serde(default)]
    pub trace: Option<crate::trace::TraceRecord>,
}

/// An open session database.
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

/// The default database: `<user data>/sessions.db`.
pub fn default_path() -> PathBuf {
    crate::paths::user_data_dir().join("sessions.db")
}

fn now() -> String {
    crate::time::now_rfc3339()
}

fn to_json<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("serialises")
}

fn from_json<T: for<'de> Deserialize<'de>>(text: &str, what: &str) -> Result<T, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::Damaged(format!("{what}: {e}")))
}

/// Where a session's current branch ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Head {
    pub branch: i64,
    pub branch_name: String,
    /// The head turn's row id; `None` when the branch is at the story's start.
    pub turn: Option<i64>,
}

impl Store {
    /// Opens (creating if needed) the database at `path` and brings its
    /// schema up to date. Promises, beside [`StoreError::Open`] for a file
    /// that is not a usable database: [`StoreError::ReadOnly`] when the
    /// file, its folder or the disk cannot be written, and
    /// [`StoreError::TooNew`] (the file left untouched) for a database
    /// written by a newer release.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        Store::open_with(path, OpenFlags::default())
    }

    /// [`Store::open`] with the connection opened under `flags` (tests open
    /// read-only ones to meet a database that cannot be written).
    fn open_with(path: &Path, flags: OpenFlags) -> Result<Store, StoreError> {
        let fail = |what: &str, e: rusqlite::Error| opening::sql_error(path, what, e);
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| opening::io_error(path, e))?;
        }
        let mut conn =
            Connection::open_with_flags(path, flags).map_err(|e| fail("cannot open it", e))?;
        // Before anything is written: a newer release's database stays as it is.
        opening::refuse_newer(path, &conn)?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(|e| fail("not a usable SQLite database", e))?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(|e| fail("cannot set it up", e))?;
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(|e| fail("cannot set it up", e))?;
        // Off while migrating (SQLite may start with them on): a step may
        // rebuild a table others refer to.
        conn.pragma_update(None, "foreign_keys", "OFF")
            .map_err(|e| fail("cannot set it up", e))?;
        if let Err(e) = schema::migrations().to_latest(&mut conn) {
            return Err(opening::migration_error(path, &conn, e));
        }
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(|e| fail("cannot set it up", e))?;
        Ok(Store {
            conn,
            path: path.to_path_buf(),
        })
    }

    /// Where the database lives.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Starts a new session from `initial_state`, with one branch, "main",
    /// at its start; returns its id. Its language is told later (the
    /// player's words, or the player).
    pub fn create_session(
        &mut self,
        title: &str,
        initial_state: &Map<String, Value>,
    ) -> Result<String, StoreError> {
        self.create_story(title, initial_state, None)
    }

    /// [`Store::create_session`] for a story told in `language` when it is
    /// given (its scenario says which).
    pub fn create_story(
        &mut self,
        title: &str,
        initial_state: &Map<String, Value>,
        language: Option<&crate::narration::Language>,
    ) -> Result<String, StoreError> {
        let id = uuid::Uuid::new_v4().to_string();
        let t = now();
        let tx = self.conn.transaction()?;
        tx.execute(
            "INSERT INTO sessions (id, title, created_at, updated_at, initial_state, language)
             VALUES (?1, ?2, ?3, ?3, ?4, ?5)",
            params![
                id,
                title,
                t,
                to_json(initial_state),
                language.map(|l| l.code())
            ],
        )?;
        tx.execute(
            "INSERT INTO branches (session_id, name, created_at) VALUES (?1, 'main', ?2)",
            params![id, t],
        )?;
        let branch = tx.last_insert_rowid();
        tx.execute(
            "UPDATE sessions SET current_branch = ?2 WHERE id = ?1",
            params![id, branch],
        )?;
        tx.commit()?;
        Ok(id)
    }

    /// Every session, most recently played first.
    pub fn sessions(&self) -> Result<Vec<SessionInfo>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT s.id, s.title, s.created_at, s.updated_at, COALESCE(t.number, 0), COALESCE(b.name, '')
             FROM sessions s
             LEFT JOIN branches b ON b.id = s.current_branch
             LEFT JOIN turns t ON t.id = b.head_id
             ORDER BY s.updated_at DESC, s.rowid DESC",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(SessionInfo {
                id: r.get(0)?,
                title: r.get(1)?,
                created_at: r.get(2)?,
                updated_at: r.get(3)?,
                turns: r.get(4)?,
                branch: r.get(5)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// One session's summary.
    pub fn session(&self, id: &str) -> Result<SessionInfo, StoreError> {
        self.sessions()?
            .into_iter()
            .find(|s| s.id == id)
            .ok_or_else(|| StoreError::NoSession(id.to_string()))
    }

    /// The most recently played session, if any.
    pub fn latest_session(&self) -> Result<Option<SessionInfo>, StoreError> {
        Ok(self.sessions()?.into_iter().next())
    }

    /// The session's state now: after the current branch's head turn, or
    /// its initial state at the start.
    pub fn current_state(&self, session: &str) -> Result<Map<String, Value>, StoreError> {
        let head = head(&self.conn, session)?;
        state_at(&self.conn, session, head.turn)
    }

    /// Every turn of the current branch, first to head, with attempts and
    /// transcripts.
    pub fn turns(&self, session: &str) -> Result<Vec<TurnRecord>, StoreError> {
        let head = head(&self.conn, session)?;
        path_ids(&self.conn, head.turn)?
            .into_iter()
            .map(|id| turn_record(&self.conn, id))
            .collect()
    }

    /// The current branch's head turn, with its attempts and transcripts
    /// (`None` at the story's start).
    pub fn head_turn(&self, session: &str) -> Result<Option<TurnRecord>, StoreError> {
        let head = head(&self.conn, session)?;
        head.turn.map(|id| turn_record(&self.conn, id)).transpose()
    }

    /// The turn saved under `key` in `session`, with its attempts and
    /// transcripts, whichever branch it is on.
    pub fn turn_by_key(&self, session: &str, key: &str) -> Result<TurnRecord, StoreError> {
        let id: Option<i64> = self
            .conn
            .query_row(
                "SELECT id FROM turns WHERE key = ?1 AND session_id = ?2",
                params![key, session],
                |r| r.get(0),
            )
            .optional()?;
        match id {
            Some(id) => turn_record(&self.conn, id),
            None => Err(StoreError::NoSession(session.to_string())),
        }
    }

    /// The last `n` turns of the current branch as the planner sees them,
    /// oldest first.
    pub fn recent_turns(&self, session: &str, n: usize) -> Result<Vec<TurnSummary>, StoreError> {
        let head = head(&self.conn, session)?;
        recent_at(&self.conn, head.turn, n)
    }

    /// Renames a session.
    pub fn rename(&self, session: &str, title: &str) -> Result<(), StoreError> {
        let n = self.conn.execute(
            "UPDATE sessions SET title = ?2 WHERE id = ?1",
            params![session, title],
        )?;
        if n == 0 {
            return Err(StoreError::NoSession(session.to_string()));
        }
        Ok(())
    }

    /// Deletes a session with every turn and branch it has.
    pub fn delete_session(&self, session: &str) -> Result<(), StoreError> {
        let n = self
            .conn
            .execute("DELETE FROM sessions WHERE id = ?1", params![session])?;
        if n == 0 {
            return Err(StoreError::NoSession(session.to_string()));
        }
        Ok(())
    }

    fn initial_state(&self, session: &str) -> Result<Map<String, Value>, StoreError> {
        state_at(&self.conn, session, None)
    }
}

/// Whether the store holds story `session`.
pub(crate) fn session_exists(conn: &Connection, session: &str) -> Result<bool, StoreError> {
    Ok(conn
        .query_row(
            "SELECT 1 FROM sessions WHERE id = ?1",
            params![session],
            |_| Ok(()),
        )
        .optional()?
        .is_some())
}

/// [`StoreError::NoSession`] unless the store holds story `session`.
pub(crate) fn require_session(conn: &Connection, session: &str) -> Result<(), StoreError> {
    if session_exists(conn, session)? {
        Ok(())
    } else {
        Err(StoreError::NoSession(session.to_string()))
    }
}

/// The session's current branch and where it ends.
pub(crate) fn head(conn: &Connection, session: &str) -> Result<Head, StoreError> {
    conn.query_row(
        "SELECT b.id, b.name, b.head_id FROM sessions s JOIN branches b ON b.id = s.current_branch
         WHERE s.id = ?1",
        params![session],
        |r| {
            Ok(Head {
                branch: r.get(0)?,
                branch_name: r.get(1)?,
                turn: r.get(2)?,
            })
        },
    )
    .optional()?
    .ok_or_else(|| StoreError::NoSession(session.to_string()))
}

/// The row ids of the turns from the first to `last`, in order.
pub(crate) fn path_ids(conn: &Connection, last: Option<i64>) -> Result<Vec<i64>, StoreError> {
    let Some(last) = last else {
        return Ok(Vec::new());
    };
    let mut stmt = conn.prepare_cached(
        "WITH RECURSIVE up(id, parent_id, number) AS (
           SELECT id, parent_id, number FROM turns WHERE id = ?1
           UNION ALL SELECT t.id, t.parent_id, t.number FROM turns t JOIN up ON t.id = up.parent_id)
         SELECT id FROM up ORDER BY number",
    )?;
    let ids = stmt
        .query_map(params![last], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    Ok(ids)
}

/// The state after turn `turn`, or the session's initial state for `None`.
pub(crate) fn state_at(
    conn: &Connection,
    session: &str,
    turn: Option<i64>,
) -> Result<Map<String, Value>, StoreError> {
    let text: Option<String> = match turn {
        Some(id) => conn
            .query_row(
                "SELECT state_after FROM turns WHERE id = ?1",
                params![id],
                |r| r.get(0),
            )
            .optional()?,
        None => conn
            .query_row(
                "SELECT initial_state FROM sessions WHERE id = ?1",
                params![session],
                |r| r.get(0),
            )
            .optional()?,
    };
    let text = text.ok_or_else(|| StoreError::NoSession(session.to_string()))?;
    from_json(&text, "state")
}

/// The last `n` turns up to `last`, oldest first.
pub(crate) fn recent_at(
    conn: &Connection,
    last: Option<i64>,
    n: usize,
) -> Result<Vec<TurnSummary>, StoreError> {
    let Some(last) = last else {
        return Ok(Vec::new());
    };
    // Climbs only as far as it needs: `n` turns, however long the story.
    let mut stmt = conn.prepare_cached(
        "WITH RECURSIVE up(id, parent_id, depth) AS (
           SELECT id, parent_id, 1 FROM turns WHERE id = ?1
           UNION ALL SELECT t.id, t.parent_id, up.depth + 1 FROM turns t JOIN up ON t.id = up.parent_id
             WHERE up.depth < ?2)
         SELECT t.input, t.narrative FROM up JOIN turns t ON t.id = up.id ORDER BY up.depth DESC",
    )?;
    let recent = stmt
        .query_map(params![last, n as i64], |r| {
            Ok(TurnSummary {
                input: r.get(0)?,
                narrative: r.get(1)?,
            })
        })?
        .collect::<Result<_, _>>()?;
    Ok(recent)
}

/// The keys of the turns from the first to `last`, in order.
pub(crate) fn path_keys(conn: &Connection, last: Option<i64>) -> Result<Vec<String>, StoreError> {
    let Some(last) = last else {
        return Ok(Vec::new());
    };
    let mut stmt = conn.prepare_cached(
        "WITH RECURSIVE up(id, parent_id, number, key) AS (
           SELECT id, parent_id, number, key FROM turns WHERE id = ?1
           UNION ALL SELECT t.id, t.parent_id, t.number, t.key FROM turns t JOIN up ON t.id = up.parent_id)
         SELECT key FROM up ORDER BY number",
    )?;
    let keys = stmt
        .query_map(params![last], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    Ok(keys)
}

/// One turn with its attempts and transcripts.
pub(crate) fn turn_record(conn: &Connection, id: i64) -> Result<TurnRecord, StoreError> {
    let row = conn.query_row(
        "SELECT t.key, p.key, t.number, t.input, t.narrative, t.fallback, t.state_after, t.created_at,
                t.duration_ms, t.trace
         FROM turns t LEFT JOIN turns p ON p.id = t.parent_id WHERE t.id = ?1",
        params![id],
        |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, Option<String>>(1)?,
                r.get::<_, u32>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, bool>(5)?,
                r.get::<_, String>(6)?,
                r.get::<_, String>(7)?,
                r.get::<_, i64>(8)?,
                r.get::<_, Option<String>>(9)?,
            ))
        },
    )?;
    let (key, parent, number, input, narrative, fallback, state, created_at, ms, trace) = row;
    Ok(TurnRecord {
        id: key,
        parent,
        number,
        input,
        narrative,
        fallback,
        state_after: from_json(&state, "state")?,
        created_at,
        duration_ms: ms.max(0) as u64,
        attempts: attempts(conn, id)?,
        trace: trace.map(|t| from_json(&t, "trace")).transpose()?,
    })
}

fn attempts(conn: &Connection, turn_id: i64) -> Result<Vec<AttemptRecord>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT attempt, plan, result, error, lore, routing, noted FROM plan_attempts WHERE turn_id = ?1 ORDER BY id",
    )?;
    type Row = (
        u32,
        Option<String>,
        Option<String>,
        Option<String>,
        Option<String>,
        Option<String>,
        bool,
    );
    let rows: Vec<Row> = stmt
        .query_map(params![turn_id], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
                r.get(6)?,
            ))
        })?
        .collect::<Result<_, _>>()?;
    let mut tstmt = conn.prepare_cached(
        "SELECT attempt, planner, prompt_hash, prompt, response, prompt_tokens, cached_tokens, completion_tokens,
         ttft_ms, total_ms FROM transcripts WHERE turn_id = ?1 ORDER BY id",
    )?;
    let transcripts: Vec<(u32, Transcript)> = tstmt
        .query_map(params![turn_id], |r| {
            Ok((
                r.get(0)?,
                Transcript {
                    planner: r.get(1)?,
                    prompt_hash: r.get(2)?,
                    prompt: r.get(3)?,
                    response: r.get(4)?,
                    prompt_tokens: r.get(5)?,
                    cached_tokens: r.get(6)?,
                    completion_tokens: r.get(7)?,
                    time_to_first_token_ms: r.get::<_, i64>(8)?.max(0) as u64,
                    total_ms: r.get::<_, i64>(9)?.max(0) as u64,
                },
            ))
        })?
        .collect::<Result<_, _>>()?;
    rows.into_iter()
        .map(|(attempt, plan, result, error, lore, routing, noted)| {
            Ok(AttemptRecord {
                attempt,
                plan: plan.map(|p| from_json(&p, "plan")).transpose()?,
                result: result.map(|r| from_json(&r, "result")).transpose()?,
                lore: lore
                    .map(|l| from_json(&l, "lore"))
                    .transpose()?
                    .unwrap_or_default(),
                routing: routing.map(|r| from_json(&r, "routing")).transpose()?,
                noted,
                error,
                transcript: transcripts
                    .iter()
                    .find(|(a, _)| *a == attempt)
                    .map(|(_, t)| t.clone()),
            })
        })
        .collect()
}
