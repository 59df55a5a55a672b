//! Sessions in SQLite (WAL, schema migrations): sessions; turns with the
//! input, every plan and ExecutionResult, the final narrative and the state
//! after the turn; the narrator's transcripts. A turn is committed in one
//! transaction, so a crash leaves it either whole or absent.

use std::path::{Path, PathBuf};

use rusqlite::{params, Connection, OptionalExtension};
use rusqlite_migration::{Migrations, M};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::ErrorCode;
use crate::planner::{Transcript, TurnSummary};
use crate::result::ExecutionResult;

/// Why the session store failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("session database {path}: {message}")]
    Open { path: PathBuf, message: String },
    #[error("session database: {0}")]
    Sql(#[from] rusqlite::Error),
    #[error("no session {0:?}")]
    NoSession(String),
    #[error("session {session:?} has no turn {turn}")]
    NoTurn { session: String, turn: u32 },
    #[error("stored data is damaged: {0}")]
    Damaged(String),
}

impl StoreError {
    /// The stable code the UI and CLI show.
    pub fn code(&self) -> ErrorCode {
        match self {
            StoreError::NoSession(_) | StoreError::NoTurn { .. } => ErrorCode::SessionNotFound,
            _ => ErrorCode::SessionStore,
        }
    }
}

fn migrations() -> Migrations<'static> {
    Migrations::new(vec![M::up(
        "CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            title TEXT NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            initial_state TEXT NOT NULL DEFAULT '{}'
        );
        CREATE TABLE turns (
            id INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            number INTEGER NOT NULL,
            input TEXT NOT NULL,
            narrative TEXT NOT NULL,
            fallback INTEGER NOT NULL DEFAULT 0,
            state_after TEXT NOT NULL,
            created_at TEXT NOT NULL,
            duration_ms INTEGER NOT NULL DEFAULT 0,
            UNIQUE (session_id, number)
        );
        CREATE TABLE plan_attempts (
            id INTEGER PRIMARY KEY,
            turn_id INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
            attempt INTEGER NOT NULL,
            plan TEXT,
            result TEXT,
            error TEXT
        );
        CREATE TABLE transcripts (
            id INTEGER PRIMARY KEY,
            turn_id INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
            attempt INTEGER NOT NULL,
            planner TEXT NOT NULL,
            prompt_hash TEXT NOT NULL,
            prompt TEXT NOT NULL,
            response TEXT NOT NULL,
            prompt_tokens INTEGER NOT NULL,
            cached_tokens INTEGER NOT NULL,
            completion_tokens INTEGER NOT NULL,
            ttft_ms INTEGER NOT NULL,
            total_ms INTEGER NOT NULL
        );
        CREATE INDEX turns_by_session ON turns(session_id, number);",
    )])
}

/// A session's summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionInfo {
    pub id: String,
    pub title: String,
    pub created_at: String,
    pub updated_at: String,
    pub turns: u32,
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
}

/// A turn as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnRecord {
    pub number: u32,
    pub input: String,
    pub narrative: String,
    /// Whether the narrative is the fallback template (every plan failed).
    pub fallback: bool,
    pub state_after: Map<String, Value>,
    pub created_at: String,
    pub duration_ms: u64,
    pub attempts: Vec<AttemptRecord>,
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
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    // RFC 3339 in UTC without a date library: days since the epoch → civil date.
    let secs = d.as_secs() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60,
        d.subsec_millis()
    )
}

fn to_json<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("serialises")
}

fn from_json<T: for<'de> Deserialize<'de>>(text: &str, what: &str) -> Result<T, StoreError> {
    serde_json::from_str(text).map_err(|e| StoreError::Damaged(format!("{what}: {e}")))
}

impl Store {
    /// Opens (creating if needed) the database at `path` and brings its
    /// schema up to date.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let err = |m: String| StoreError::Open {
            path: path.to_path_buf(),
            message: m,
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| err(e.to_string()))?;
        }
        let mut conn = Connection::open(path).map_err(|e| err(e.to_string()))?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(|e| err(format!("not a usable SQLite database ({e})")))?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(|e| err(e.to_string()))?;
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(|e| err(e.to_string()))?;
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(|e| err(e.to_string()))?;
        migrations()
            .to_latest(&mut conn)
            .map_err(|e| err(format!("schema migration failed: {e}")))?;
        Ok(Store {
            conn,
            path: path.to_path_buf(),
        })
    }

    /// Where the database lives.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Starts a new session from `initial_state`; returns its id.
    pub fn create_session(
        &self,
        title: &str,
        initial_state: &Map<String, Value>,
    ) -> Result<String, StoreError> {
        let id = uuid::Uuid::new_v4().to_string();
        let t = now();
        self.conn.execute(
            "INSERT INTO sessions (id, title, created_at, updated_at, initial_state) VALUES (?1, ?2, ?3, ?3, ?4)",
            params![id, title, t, to_json(initial_state)],
        )?;
        Ok(id)
    }

    /// Every session, most recently played first.
    pub fn sessions(&self) -> Result<Vec<SessionInfo>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT s.id, s.title, s.created_at, s.updated_at, (SELECT COUNT(*) FROM turns t WHERE t.session_id = s.id)
             FROM sessions s ORDER BY s.updated_at DESC, s.rowid DESC",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok(SessionInfo {
                id: r.get(0)?,
                title: r.get(1)?,
                created_at: r.get(2)?,
                updated_at: r.get(3)?,
                turns: r.get(4)?,
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

    /// The session's state now: after its last turn, or its initial state.
    pub fn current_state(&self, session: &str) -> Result<Map<String, Value>, StoreError> {
        let last = self.state_column(
            "SELECT state_after FROM turns WHERE session_id = ?1 ORDER BY number DESC LIMIT 1",
            session,
        )?;
        match last {
            Some(state) => Ok(state),
            None => self.initial_state(session),
        }
    }

    fn initial_state(&self, session: &str) -> Result<Map<String, Value>, StoreError> {
        self.state_column("SELECT initial_state FROM sessions WHERE id = ?1", session)?
            .ok_or_else(|| StoreError::NoSession(session.to_string()))
    }

    /// The JSON state in the one column `sql` selects for `session`, if a row matches.
    fn state_column(
        &self,
        sql: &str,
        session: &str,
    ) -> Result<Option<Map<String, Value>>, StoreError> {
        let text: Option<String> = self
            .conn
            .query_row(sql, params![session], |r| r.get(0))
            .optional()?;
        text.map(|t| from_json(&t, "state")).transpose()
    }

    /// Commits one whole turn atomically; returns its number.
    pub fn commit_turn(&mut self, session: &str, turn: &NewTurn) -> Result<u32, StoreError> {
        let tx = self.conn.transaction()?;
        let exists: bool = tx.query_row(
            "SELECT COUNT(*) FROM sessions WHERE id = ?1",
            params![session],
            |r| r.get::<_, i64>(0),
        )? > 0;
        if !exists {
            return Err(StoreError::NoSession(session.to_string()));
        }
        let number: u32 = tx.query_row(
            "SELECT COALESCE(MAX(number), 0) + 1 FROM turns WHERE session_id = ?1",
            params![session],
            |r| r.get(0),
        )?;
        let t = now();
        tx.execute(
            "INSERT INTO turns (session_id, number, input, narrative, fallback, state_after, created_at, duration_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                session,
                number,
                turn.input,
                turn.narrative,
                turn.fallback,
                to_json(&turn.state_after),
                t,
                turn.duration_ms as i64
            ],
        )?;
        let turn_id = tx.last_insert_rowid();
        for a in &turn.attempts {
            tx.execute(
                "INSERT INTO plan_attempts (turn_id, attempt, plan, result, error) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![turn_id, a.attempt, a.plan.as_ref().map(to_json), a.result.as_ref().map(to_json), a.error],
            )?;
            if let Some(tr) = &a.transcript {
                tx.execute(
                    "INSERT INTO transcripts (turn_id, attempt, planner, prompt_hash, prompt, response, prompt_tokens,
                     cached_tokens, completion_tokens, ttft_ms, total_ms) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)",
                    params![
                        turn_id,
                        a.attempt,
                        tr.planner,
                        tr.prompt_hash,
                        tr.prompt,
                        tr.response,
                        tr.prompt_tokens,
                        tr.cached_tokens,
                        tr.completion_tokens,
                        tr.time_to_first_token_ms as i64,
                        tr.total_ms as i64
                    ],
                )?;
            }
        }
        tx.execute(
            "UPDATE sessions SET updated_at = ?2 WHERE id = ?1",
            params![session, t],
        )?;
        tx.commit()?;
        Ok(number)
    }

    /// Every turn of a session, in order, with attempts and transcripts.
    pub fn turns(&self, session: &str) -> Result<Vec<TurnRecord>, StoreError> {
        self.session(session)?;
        let mut stmt = self.conn.prepare(
            "SELECT id, number, input, narrative, fallback, state_after, created_at, duration_ms
             FROM turns WHERE session_id = ?1 ORDER BY number",
        )?;
        let rows: Vec<(i64, u32, String, String, bool, String, String, i64)> = stmt
            .query_map(params![session], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    r.get(6)?,
                    r.get(7)?,
                ))
            })?
            .collect::<Result<_, _>>()?;
        let mut out = Vec::with_capacity(rows.len());
        for (id, number, input, narrative, fallback, state, created_at, ms) in rows {
            out.push(TurnRecord {
                number,
                input,
                narrative,
                fallback,
                state_after: from_json(&state, "state")?,
                created_at,
                duration_ms: ms.max(0) as u64,
                attempts: self.attempts(id)?,
            });
        }
        Ok(out)
    }

    fn attempts(&self, turn_id: i64) -> Result<Vec<AttemptRecord>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT attempt, plan, result, error FROM plan_attempts WHERE turn_id = ?1 ORDER BY id",
        )?;
        let rows: Vec<(u32, Option<String>, Option<String>, Option<String>)> = stmt
            .query_map(params![turn_id], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })?
            .collect::<Result<_, _>>()?;
        let mut tstmt = self.conn.prepare(
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
            .map(|(attempt, plan, result, error)| {
                Ok(AttemptRecord {
                    attempt,
                    plan: plan.map(|p| from_json(&p, "plan")).transpose()?,
                    result: result.map(|r| from_json(&r, "result")).transpose()?,
                    error,
                    transcript: transcripts
                        .iter()
                        .find(|(a, _)| *a == attempt)
                        .map(|(_, t)| t.clone()),
                })
            })
            .collect()
    }

    /// The last `n` turns as the planner sees them, oldest first.
    pub fn recent_turns(&self, session: &str, n: usize) -> Result<Vec<TurnSummary>, StoreError> {
        let mut stmt = self.conn.prepare(
            "SELECT input, narrative FROM (SELECT number, input, narrative FROM turns WHERE session_id = ?1
             ORDER BY number DESC LIMIT ?2) ORDER BY number",
        )?;
        let rows = stmt.query_map(params![session, n as i64], |r| {
            Ok(TurnSummary {
                input: r.get(0)?,
                narrative: r.get(1)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Rewinds the session to just after turn `turn` (0 = its start): later
    /// turns are removed and the state is exactly what it was then.
    pub fn rewind(&mut self, session: &str, turn: u32) -> Result<Map<String, Value>, StoreError> {
        let tx = self.conn.transaction()?;
        let exists: bool = tx.query_row(
            "SELECT COUNT(*) FROM sessions WHERE id = ?1",
            params![session],
            |r| r.get::<_, i64>(0),
        )? > 0;
        if !exists {
            return Err(StoreError::NoSession(session.to_string()));
        }
        if turn > 0 {
            let found: i64 = tx.query_row(
                "SELECT COUNT(*) FROM turns WHERE session_id = ?1 AND number = ?2",
                params![session, turn],
                |r| r.get(0),
            )?;
            if found == 0 {
                return Err(StoreError::NoTurn {
                    session: session.to_string(),
                    turn,
                });
            }
        }
        tx.execute(
            "DELETE FROM turns WHERE session_id = ?1 AND number > ?2",
            params![session, turn],
        )?;
        tx.execute(
            "UPDATE sessions SET updated_at = ?2 WHERE id = ?1",
            params![session, now()],
        )?;
        tx.commit()?;
        self.current_state(session)
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

    /// The whole session as one JSON document.
    pub fn export_json(&self, session: &str) -> Result<Value, StoreError> {
        let info = self.session(session)?;
        Ok(serde_json::json!({
            "session": info,
            "initialState": self.initial_state(session)?,
            "turns": self.turns(session)?,
        }))
    }

    /// The story so far as Markdown, for reading and sharing.
    pub fn export_markdown(&self, session: &str) -> Result<String, StoreError> {
        let info = self.session(session)?;
        let mut md = format!(
            "# {}\n\n_Started {}; {} turn(s)._\n",
            info.title, info.created_at, info.turns
        );
        for t in self.turns(session)? {
            md.push_str(&format!(
                "\n## Turn {}\n\n> {}\n\n{}\n",
                t.number,
                t.input.replace('\n', "\n> "),
                t.narrative
            ));
        }
        Ok(md)
    }
}

/// A finished turn, ready to be committed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NewTurn {
    pub input: String,
    pub narrative: String,
    pub fallback: bool,
    pub state_after: Map<String, Value>,
    pub duration_ms: u64,
    pub attempts: Vec<AttemptRecord>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn turn(input: &str, state: Value) -> NewTurn {
        NewTurn {
            input: input.into(),
            narrative: format!("You {input}."),
            fallback: false,
            state_after: state.as_object().unwrap().clone(),
            duration_ms: 5,
            attempts: vec![AttemptRecord {
                attempt: 1,
                plan: Some(json!({"tools": []})),
                result: None,
                error: None,
                transcript: Some(Transcript {
                    planner: "rules".into(),
                    response: "{}".into(),
                    ..Default::default()
                }),
            }],
        }
    }

    #[test]
    fn turns_commit_resume_rewind_and_export() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.db");
        let mut store = Store::open(&path).unwrap();
        let id = store
            .create_session("The Lost Key", json!({"hp": 10}).as_object().unwrap())
            .unwrap();
        assert_eq!(
            store.current_state(&id).unwrap(),
            *json!({"hp": 10}).as_object().unwrap()
        );
        assert_eq!(
            store
                .commit_turn(&id, &turn("look around", json!({"hp": 10, "room": "hall"})))
                .unwrap(),
            1
        );
        assert_eq!(
            store
                .commit_turn(
                    &id,
                    &turn("fight the rat", json!({"hp": 7, "room": "hall"}))
                )
                .unwrap(),
            2
        );
        drop(store);

        let mut store = Store::open(&path).unwrap();
        assert_eq!(store.latest_session().unwrap().unwrap().turns, 2);
        assert_eq!(store.current_state(&id).unwrap()["hp"], 7);
        let turns = store.turns(&id).unwrap();
        assert_eq!(
            turns[1].attempts[0].transcript.as_ref().unwrap().planner,
            "rules"
        );
        assert_eq!(
            store.recent_turns(&id, 1).unwrap()[0].input,
            "fight the rat"
        );

        let md = store.export_markdown(&id).unwrap();
        assert!(md.contains("# The Lost Key") && md.contains("> fight the rat"));
        assert_eq!(
            store.export_json(&id).unwrap()["turns"]
                .as_array()
                .unwrap()
                .len(),
            2
        );

        let state = store.rewind(&id, 1).unwrap();
        assert_eq!(Value::Object(state), json!({"hp": 10, "room": "hall"}));
        assert_eq!(store.turns(&id).unwrap().len(), 1);
        let state = store.rewind(&id, 0).unwrap();
        assert_eq!(Value::Object(state), json!({"hp": 10}));
        assert!(matches!(
            store.rewind(&id, 5),
            Err(StoreError::NoTurn { .. })
        ));
        assert!(matches!(
            store.commit_turn("nope", &turn("x", json!({}))),
            Err(StoreError::NoSession(_))
        ));
    }

    #[test]
    fn a_file_that_is_not_a_database_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("junk.db");
        std::fs::write(&path, vec![b'x'; 4096]).unwrap();
        let err = Store::open(&path).err().expect("must fail");
        assert!(err.to_string().contains("junk.db"), "{err}");
    }

    #[test]
    fn timestamps_are_rfc3339() {
        let t = now();
        assert_eq!(t.len(), 24, "{t}");
        assert!(
            t.starts_with("20") && t.ends_with('Z') && &t[10..11] == "T",
            "{t}"
        );
    }
}
