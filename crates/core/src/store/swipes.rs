//! A turn's alternatives: the narrations it was given for the same
//! mechanics, and the turns played beside it (same parent, same input) with
//! theirs. The player picks the active one; the branch follows.

use rusqlite::params;
use serde::{Deserialize, Serialize};

use super::{head, now, path_ids, Store, StoreError};

/// One way the current turn can read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct Alternative {
    /// 1-based, in the order they were made.
    pub number: u32,
    /// The key of the turn it belongs to.
    pub turn: String,
    pub narrative: String,
    /// Whether it is the one the story reads now.
    pub active: bool,
}

/// Row ids of one alternative: the turn and its narration.
struct Choice {
    turn: i64,
    swipe: i64,
}

impl Store {
    /// The current branch's head turn's alternatives, oldest first; empty
    /// at the story's start.
    pub fn alternatives(&self, session: &str) -> Result<Vec<Alternative>, StoreError> {
        Ok(self
            .choices(session)?
            .into_iter()
            .map(|(alt, _)| alt)
            .collect())
    }

    fn choices(&self, session: &str) -> Result<Vec<(Alternative, Choice)>, StoreError> {
        let head = head(&self.conn, session)?;
        let Some(turn) = head.turn else {
            return Ok(Vec::new());
        };
        let mut stmt = self.conn.prepare(
            "SELECT t.id, t.key, s.id, s.narrative, t.active_swipe
             FROM turns h
             JOIN turns t ON t.session_id = h.session_id AND t.parent_id IS h.parent_id AND t.input = h.input
             JOIN swipes s ON s.turn_id = t.id
             WHERE h.id = ?1 ORDER BY t.id, s.id",
        )?;
        let rows: Vec<(i64, String, i64, String, Option<i64>)> = stmt
            .query_map(params![turn], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })?
            .collect::<Result<_, _>>()?;
        Ok(rows
            .into_iter()
            .enumerate()
            .map(|(i, (t, key, s, narrative, active))| {
                (
                    Alternative {
                        number: i as u32 + 1,
                        turn: key,
                        narrative,
                        active: t == turn && active == Some(s),
                    },
                    Choice { turn: t, swipe: s },
                )
            })
            .collect())
    }

    /// Makes alternative `number` the one the story reads: its turn becomes
    /// the branch's head, its narration the turn's.
    pub fn choose_alternative(&mut self, session: &str, number: u32) -> Result<(), StoreError> {
        let choices = self.choices(session)?;
        let Some((_, choice)) = number
            .checked_sub(1)
            .and_then(|i| choices.into_iter().nth(i as usize))
        else {
            return Err(StoreError::NoAlternative(number));
        };
        let tx = self.write()?;
        let head = head(&tx, session)?;
        if head.turn != Some(choice.turn) {
            tx.execute(
                "UPDATE branches SET head_id = ?2, redo_id = NULL WHERE id = ?1",
                params![head.branch, choice.turn],
            )?;
        }
        tx.execute(
            "UPDATE turns SET active_swipe = ?2, narrative = (SELECT narrative FROM swipes WHERE id = ?2)
             WHERE id = ?1",
            params![choice.turn, choice.swipe],
        )?;
        tx.execute(
            "UPDATE sessions SET updated_at = ?2 WHERE id = ?1",
            params![session, now()],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Gives turn `turn` of the current branch another narration and makes
    /// it the active one; returns the turn's key.
    pub fn add_narration(
        &mut self,
        session: &str,
        turn: u32,
        narrative: &str,
    ) -> Result<String, StoreError> {
        let tx = self.write()?;
        let head = head(&tx, session)?;
        let path = path_ids(&tx, head.turn)?;
        let Some(&id) = turn.checked_sub(1).and_then(|i| path.get(i as usize)) else {
            return Err(StoreError::NoTurn {
                session: session.to_string(),
                turn,
            });
        };
        let t = now();
        tx.execute(
            "INSERT INTO swipes (turn_id, narrative, created_at) VALUES (?1, ?2, ?3)",
            params![id, narrative, t],
        )?;
        let swipe = tx.last_insert_rowid();
        tx.execute(
            "UPDATE turns SET active_swipe = ?2, narrative = ?3 WHERE id = ?1",
            params![id, swipe, narrative],
        )?;
        tx.execute(
            "UPDATE sessions SET updated_at = ?2 WHERE id = ?1",
            params![session, t],
        )?;
        let key: String =
            tx.query_row("SELECT key FROM turns WHERE id = ?1", params![id], |r| {
                r.get(0)
            })?;
        tx.commit()?;
        Ok(key)
    }
}
