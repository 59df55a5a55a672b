//! Moving about the story's tree: branches (create, switch, rename,
//! delete), and the current branch's head moved back and forth (rewind,
//! undo, redo). No turn is ever removed by moving a head.

use rusqlite::{params, Connection, OptionalExtension, Transaction, TransactionBehavior};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{head, now, path_ids, state_at, SessionInfo, Store, StoreError};

/// A branch of a story.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct BranchInfo {
    pub name: String,
    /// The key of its head turn; `None` when it is at the story's start.
    pub head: Option<String>,
    /// Turns from the start to its head.
    pub turns: u32,
    /// Whether the session plays on it now.
    pub current: bool,
    pub created_at: String,
}

/// One turn in the story's tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct TreeTurn {
    pub id: String,
    pub parent: Option<String>,
    pub number: u32,
    pub input: String,
    /// The active narration.
    pub narrative: String,
    /// Every narration the turn was given, oldest first.
    pub narrations: Vec<String>,
    pub fallback: bool,
    pub created_at: String,
}

/// The whole story: its branches and every turn, oldest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct StoryTree {
    pub session: SessionInfo,
    pub branches: Vec<BranchInfo>,
    pub turns: Vec<TreeTurn>,
}

impl Store {
    /// Rewinds the current branch to just after turn `turn` (0 = its
    /// start): the later turns leave the branch (they stay in the story, and
    /// redo brings them back) and the state is exactly what it was then.
    pub fn rewind(&mut self, session: &str, turn: u32) -> Result<Map<String, Value>, StoreError> {
        let tx = self.write()?;
        let head = head(&tx, session)?;
        let target = turn_on_path(&tx, session, head.turn, turn)?;
        if target != head.turn {
            tx.execute(
                "UPDATE branches SET redo_id = COALESCE(redo_id, head_id), head_id = ?2 WHERE id = ?1",
                params![head.branch, target],
            )?;
            touch(&tx, session)?;
        }
        let state = state_at(&tx, session, target)?;
        tx.commit()?;
        Ok(state)
    }

    /// Takes the current branch's last turn back; `false` when the branch
    /// is at the story's start.
    pub fn undo(&mut self, session: &str) -> Result<bool, StoreError> {
        let tx = self.write()?;
        let head = head(&tx, session)?;
        let Some(turn) = head.turn else {
            return Ok(false);
        };
        let parent: Option<i64> = tx.query_row(
            "SELECT parent_id FROM turns WHERE id = ?1",
            params![turn],
            |r| r.get(0),
        )?;
        tx.execute(
            "UPDATE branches SET redo_id = COALESCE(redo_id, head_id), head_id = ?2 WHERE id = ?1",
            params![head.branch, parent],
        )?;
        touch(&tx, session)?;
        tx.commit()?;
        Ok(true)
    }

    /// Brings back the turn undone last on the current branch; `false` when
    /// nothing was undone (or a new turn was played since).
    pub fn redo(&mut self, session: &str) -> Result<bool, StoreError> {
        let tx = self.write()?;
        let head = head(&tx, session)?;
        let redo: Option<i64> = tx.query_row(
            "SELECT redo_id FROM branches WHERE id = ?1",
            params![head.branch],
            |r| r.get(0),
        )?;
        let Some(redo) = redo else {
            return Ok(false);
        };
        let line = path_ids(&tx, Some(redo))?;
        let next = match head.turn {
            None => line.first().copied(),
            Some(h) => line
                .iter()
                .position(|&id| id == h)
                .and_then(|i| line.get(i + 1).copied()),
        };
        let Some(next) = next else {
            tx.execute(
                "UPDATE branches SET redo_id = NULL WHERE id = ?1",
                params![head.branch],
            )?;
            tx.commit()?;
            return Ok(false);
        };
        tx.execute(
            "UPDATE branches SET head_id = ?2, redo_id = CASE WHEN ?2 = redo_id THEN NULL ELSE redo_id END
             WHERE id = ?1",
            params![head.branch, next],
        )?;
        touch(&tx, session)?;
        tx.commit()?;
        Ok(true)
    }

    /// Creates a branch named `name` (or the next free "branch N") whose
    /// head is turn `turn` of the current branch (0 = the story's start).
    /// The current branch stays current.
    pub fn branch(
        &mut self,
        session: &str,
        turn: u32,
        name: Option<&str>,
    ) -> Result<BranchInfo, StoreError> {
        let tx = self.write()?;
        let head = head(&tx, session)?;
        let target = turn_on_path(&tx, session, head.turn, turn)?;
        let name = match name.map(str::trim) {
            Some("") => return Err(StoreError::BranchNameEmpty),
            Some(n) => {
                if branch_id(&tx, session, n)?.is_some() {
                    return Err(StoreError::BranchExists(n.to_string()));
                }
                n.to_string()
            }
            None => free_name(&tx, session)?,
        };
        tx.execute(
            "INSERT INTO branches (session_id, name, head_id, created_at) VALUES (?1, ?2, ?3, ?4)",
            params![session, name, target, now()],
        )?;
        tx.commit()?;
        self.branches(session)?
            .into_iter()
            .find(|b| b.name == name)
            .ok_or_else(|| StoreError::NoBranch(name))
    }

    /// Makes branch `name` the one the session plays on.
    pub fn switch_branch(&mut self, session: &str, name: &str) -> Result<(), StoreError> {
        let tx = self.write()?;
        head(&tx, session)?;
        let id =
            branch_id(&tx, session, name)?.ok_or_else(|| StoreError::NoBranch(name.to_string()))?;
        tx.execute(
            "UPDATE sessions SET current_branch = ?2, updated_at = ?3 WHERE id = ?1",
            params![session, id, now()],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Renames branch `from` to `to`.
    pub fn rename_branch(&mut self, session: &str, from: &str, to: &str) -> Result<(), StoreError> {
        let to = to.trim();
        if to.is_empty() {
            return Err(StoreError::BranchNameEmpty);
        }
        let tx = self.write()?;
        head(&tx, session)?;
        let id =
            branch_id(&tx, session, from)?.ok_or_else(|| StoreError::NoBranch(from.to_string()))?;
        if branch_id(&tx, session, to)?.is_some_and(|other| other != id) {
            return Err(StoreError::BranchExists(to.to_string()));
        }
        tx.execute(
            "UPDATE branches SET name = ?2 WHERE id = ?1",
            params![id, to],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Deletes branch `name` (its turns stay in the story). The last branch
    /// cannot be deleted; when the current one is, the most recently
    /// created other branch becomes current.
    pub fn delete_branch(&mut self, session: &str, name: &str) -> Result<(), StoreError> {
        let tx = self.write()?;
        let head = head(&tx, session)?;
        let id =
            branch_id(&tx, session, name)?.ok_or_else(|| StoreError::NoBranch(name.to_string()))?;
        let other: Option<i64> = tx
            .query_row(
                "SELECT id FROM branches WHERE session_id = ?1 AND id != ?2 ORDER BY id DESC LIMIT 1",
                params![session, id],
                |r| r.get(0),
            )
            .optional()?;
        let Some(other) = other else {
            return Err(StoreError::LastBranch);
        };
        if head.branch == id {
            tx.execute(
                "UPDATE sessions SET current_branch = ?2 WHERE id = ?1",
                params![session, other],
            )?;
        }
        tx.execute("DELETE FROM branches WHERE id = ?1", params![id])?;
        tx.commit()?;
        Ok(())
    }

    /// The session's branches, oldest first.
    pub fn branches(&self, session: &str) -> Result<Vec<BranchInfo>, StoreError> {
        let head = head(&self.conn, session)?;
        let mut stmt = self.conn.prepare(
            "SELECT b.id, b.name, t.key, COALESCE(t.number, 0), b.created_at
             FROM branches b LEFT JOIN turns t ON t.id = b.head_id
             WHERE b.session_id = ?1 ORDER BY b.id",
        )?;
        let rows = stmt.query_map(params![session], |r| {
            Ok(BranchInfo {
                current: r.get::<_, i64>(0)? == head.branch,
                name: r.get(1)?,
                head: r.get(2)?,
                turns: r.get(3)?,
                created_at: r.get(4)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The keys of the current branch's turns, first to head.
    pub fn branch_path(&self, session: &str) -> Result<Vec<String>, StoreError> {
        let head = head(&self.conn, session)?;
        let mut stmt = self
            .conn
            .prepare_cached("SELECT key FROM turns WHERE id = ?1")?;
        path_ids(&self.conn, head.turn)?
            .iter()
            .map(|id| Ok(stmt.query_row(params![id], |r| r.get(0))?))
            .collect()
    }

    /// The whole story: branches and every turn with its narrations.
    pub fn tree(&self, session: &str) -> Result<StoryTree, StoreError> {
        let info = self.session(session)?;
        let mut stmt = self.conn.prepare(
            "SELECT t.id, t.key, p.key, t.number, t.input, t.narrative, t.fallback, t.created_at
             FROM turns t LEFT JOIN turns p ON p.id = t.parent_id
             WHERE t.session_id = ?1 ORDER BY t.id",
        )?;
        let rows: Vec<(i64, TreeTurn)> = stmt
            .query_map(params![session], |r| {
                Ok((
                    r.get(0)?,
                    TreeTurn {
                        id: r.get(1)?,
                        parent: r.get(2)?,
                        number: r.get(3)?,
                        input: r.get(4)?,
                        narrative: r.get(5)?,
                        narrations: Vec::new(),
                        fallback: r.get(6)?,
                        created_at: r.get(7)?,
                    },
                ))
            })?
            .collect::<Result<_, _>>()?;
        let mut turns = Vec::with_capacity(rows.len());
        for (id, mut turn) in rows {
            turn.narrations = narrations(&self.conn, id)?;
            turns.push(turn);
        }
        Ok(StoryTree {
            branches: self.branches(session)?,
            session: info,
            turns,
        })
    }

    /// A transaction that holds the write lock from its start, so a read
    /// followed by a write never fails on another writer (it waits, up to
    /// the busy timeout).
    pub(super) fn write(&mut self) -> Result<Transaction<'_>, StoreError> {
        Ok(self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?)
    }
}

/// Every narration of a turn, oldest first.
pub(super) fn narrations(conn: &Connection, turn: i64) -> Result<Vec<String>, StoreError> {
    let mut stmt =
        conn.prepare_cached("SELECT narrative FROM swipes WHERE turn_id = ?1 ORDER BY id")?;
    let rows = stmt.query_map(params![turn], |r| r.get(0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The id of turn `turn` (from 1; 0 = the story's start, `None`) on the
/// path from the story's start to `head`; `NoTurn` when the path is shorter.
fn turn_on_path(
    conn: &Connection,
    session: &str,
    head: Option<i64>,
    turn: u32,
) -> Result<Option<i64>, StoreError> {
    let path = path_ids(conn, head)?;
    if turn as usize > path.len() {
        return Err(StoreError::NoTurn {
            session: session.to_string(),
            turn,
        });
    }
    Ok(turn.checked_sub(1).map(|i| path[i as usize]))
}

fn branch_id(conn: &Connection, session: &str, name: &str) -> Result<Option<i64>, StoreError> {
    Ok(conn
        .query_row(
            "SELECT id FROM branches WHERE session_id = ?1 AND name = ?2",
            params![session, name],
            |r| r.get(0),
        )
        .optional()?)
}

/// The first "branch N" (N ≥ 2) the session has no branch named.
fn free_name(conn: &Connection, session: &str) -> Result<String, StoreError> {
    let mut n = 2;
    loop {
        let name = format!("branch {n}");
        if branch_id(conn, session, &name)?.is_none() {
            return Ok(name);
        }
        n += 1;
    }
}

fn touch(conn: &Connection, session: &str) -> Result<(), StoreError> {
    conn.execute(
        "UPDATE sessions SET updated_at = ?2 WHERE id = ?1",
        params![session, now()],
    )?;
    Ok(())
}
