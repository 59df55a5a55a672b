//! Adding a turn to the story: where it goes is fixed when it starts (the
//! branch, the head found there and the turn it follows), and the commit
//! refuses it when that branch's head moved in the meantime.

use rusqlite::{params, OptionalExtension, Transaction, TransactionBehavior};
use serde::Serialize;
use serde_json::{Map, Value};

use super::{
    bounds, head, invocations, now, path_keys, recent_at, state_at, to_json, AttemptRecord, Store,
    StoreError,
};
use crate::planner::TurnSummary;

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
    /// The turn's whole trace: every span of every attempt and of its
    /// memory, on one clock (docs/observability.md); `None` for a turn not
    /// played by the engine (e.g. imported).
    pub trace: Option<crate::trace::TraceRecord>,
}

/// Where a turn about to be played goes, fixed when it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnPlace {
    pub session: String,
    /// The branch's row id and name.
    pub branch: i64,
    pub branch_name: String,
    /// The branch's head when the turn started (row id; `None`: at the start).
    pub head: Option<i64>,
    /// The turn it follows (row id; `None`: it is a first turn).
    pub parent: Option<i64>,
    /// Its number on the branch (1 for a first turn).
    pub number: u32,
    /// The key it will be saved under.
    pub key: String,
    /// The keys of the turns it follows, first to parent.
    pub path: Vec<String>,
}

impl Store {
    /// Where the next turn of the session goes: after the current branch's head.
    pub fn place_next(&self, session: &str) -> Result<TurnPlace, StoreError> {
        let head = head(&self.conn, session)?;
        self.place(session, head.branch, head.branch_name, head.turn, head.turn)
    }

    /// Where a turn replacing the current head goes: beside it, after the
    /// same parent (the head stays as an alternative). At the story's start
    /// there is no turn to replace.
    pub fn place_beside_head(&self, session: &str) -> Result<TurnPlace, StoreError> {
        let head = head(&self.conn, session)?;
        let Some(turn) = head.turn else {
            return Err(StoreError::NoTurn {
                session: session.to_string(),
                turn: 1,
            });
        };
        let parent: Option<i64> = self.conn.query_row(
            "SELECT parent_id FROM turns WHERE id = ?1",
            params![turn],
            |r| r.get(0),
        )?;
        self.place(session, head.branch, head.branch_name, head.turn, parent)
    }

    fn place(
        &self,
        session: &str,
        branch: i64,
        branch_name: String,
        head: Option<i64>,
        parent: Option<i64>,
    ) -> Result<TurnPlace, StoreError> {
        let path = path_keys(&self.conn, parent)?;
        Ok(TurnPlace {
            session: session.to_string(),
            branch,
            branch_name,
            head,
            parent,
            number: path.len() as u32 + 1,
            key: uuid::Uuid::new_v4().to_string(),
            path,
        })
    }

    /// The state a turn at `place` starts from.
    pub fn state_for(&self, place: &TurnPlace) -> Result<Map<String, Value>, StoreError> {
        state_at(&self.conn, &place.session, place.parent)
    }

    /// The last `n` turns a turn at `place` follows, oldest first.
    pub fn recent_for(&self, place: &TurnPlace, n: usize) -> Result<Vec<TurnSummary>, StoreError> {
        recent_at(&self.conn, place.parent, n)
    }

    /// Commits one whole turn atomically after the current branch's head;
    /// returns its number.
    pub fn commit_turn(&mut self, session: &str, turn: &NewTurn) -> Result<u32, StoreError> {
        let place = self.place_next(session)?;
        self.commit_at(&place, turn)
    }

    /// Commits one whole turn atomically at `place` and moves the branch's
    /// head to it; returns its number. Fails with
    /// [`StoreError::SessionChanged`], saving nothing, when the branch's
    /// head is no longer where it was when the turn started. A line of
    /// turns undone on the branch that the new turn leaves behind is kept
    /// as a branch of its own. Its attempts, trace and invocation records
    /// are kept within [`bounds`].
    pub fn commit_at(&mut self, place: &TurnPlace, turn: &NewTurn) -> Result<u32, StoreError> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let branch: Option<(Option<i64>, Option<i64>, String)> = tx
            .query_row(
                "SELECT head_id, redo_id, name FROM branches WHERE id = ?1 AND session_id = ?2",
                params![place.branch, place.session],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?;
        let Some((head, redo, name)) = branch else {
            return Err(if super::session_exists(&tx, &place.session)? {
                StoreError::SessionChanged {
                    branch: place.branch_name.clone(),
                }
            } else {
                StoreError::NoSession(place.session.clone())
            });
        };
        if head != place.head {
            return Err(StoreError::SessionChanged { branch: name });
        }
        if let Some(redo) = redo {
            keep_undone_line(&tx, &place.session, &name, redo)?;
        }
        let t = now();
        let trace = turn.trace.as_ref().map(bounds::kept_trace);
        let turn_id = insert_turn(&tx, place, turn, trace.as_ref(), &t)?;
        insert_attempts(&tx, turn_id, &turn.attempts)?;
        if let Some(trace) = &trace {
            invocations::insert(&tx, &place.session, turn_id, trace)?;
        }
        tx.execute(
            "UPDATE branches SET head_id = ?2, redo_id = NULL WHERE id = ?1",
            params![place.branch, turn_id],
        )?;
        tx.execute(
            "UPDATE sessions SET updated_at = ?2 WHERE id = ?1",
            params![place.session, t],
        )?;
        tx.commit()?;
        Ok(place.number)
    }
}

/// Keeps the turns undone on branch `name` (up to `redo`) reachable as a
/// branch of their own, unless another branch already ends there.
fn keep_undone_line(
    tx: &Transaction,
    session: &str,
    name: &str,
    redo: i64,
) -> Result<(), StoreError> {
    let kept: bool = tx
        .query_row(
            "SELECT 1 FROM branches WHERE session_id = ?1 AND head_id = ?2",
            params![session, redo],
            |_| Ok(()),
        )
        .optional()?
        .is_some();
    if kept {
        return Ok(());
    }
    let mut candidate = format!("{name} (earlier)");
    let mut n = 2;
    while tx
        .query_row(
            "SELECT 1 FROM branches WHERE session_id = ?1 AND name = ?2",
            params![session, candidate],
            |_| Ok(()),
        )
        .optional()?
        .is_some()
    {
        candidate = format!("{name} (earlier {n})");
        n += 1;
    }
    tx.execute(
        "INSERT INTO branches (session_id, name, head_id, created_at) VALUES (?1, ?2, ?3, ?4)",
        params![session, candidate, redo, now()],
    )?;
    Ok(())
}

/// Inserts the turn's row at `place` (with `trace`, the turn's trace as
/// it is kept) and its narration as its one active alternative; returns the
/// turn's row id.
fn insert_turn(
    tx: &Transaction,
    place: &TurnPlace,
    turn: &NewTurn,
    trace: Option<&crate::trace::TraceRecord>,
    t: &str,
) -> Result<i64, StoreError> {
    tx.execute(
        "INSERT INTO turns (session_id, parent_id, key, number, input, narrative, fallback, state_after,
                            created_at, duration_ms, trace)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        params![
            place.session,
            place.parent,
            place.key,
            place.number,
            turn.input,
            turn.narrative,
            turn.fallback,
            to_json(&turn.state_after),
            t,
            turn.duration_ms as i64,
            trace.map(to_json)
        ],
    )?;
    let turn_id = tx.last_insert_rowid();
    tx.execute(
        "INSERT INTO swipes (turn_id, narrative, created_at) VALUES (?1, ?2, ?3)",
        params![turn_id, turn.narrative, t],
    )?;
    tx.execute(
        "UPDATE turns SET active_swipe = ?2 WHERE id = ?1",
        params![turn_id, tx.last_insert_rowid()],
    )?;
    Ok(turn_id)
}

/// Inserts the turn's plan attempts, each within [`bounds`], and their
/// planner transcripts.
fn insert_attempts(
    tx: &Transaction,
    turn_id: i64,
    attempts: &[AttemptRecord],
) -> Result<(), StoreError> {
    for a in attempts.iter().map(bounds::kept_attempt) {
        tx.execute(
            "INSERT INTO plan_attempts (turn_id, attempt, plan, result, error, lore, routing, noted)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                turn_id,
                a.attempt,
                a.plan.as_ref().map(to_json),
                a.result.as_ref().map(to_json),
                a.error,
                (!a.lore.is_empty()).then(|| to_json(&a.lore)),
                a.routing.as_ref().map(to_json),
                a.noted
            ],
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
    Ok(())
}
