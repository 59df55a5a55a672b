//! The player's own changes to the story's state between turns (closing or
//! renaming a thread, pinning a fact: docs/game-master.md, "The player at
//! the table"): kept with the current branch's head turn, so they rewind
//! and branch with it.

use rusqlite::params;
use serde_json::{Map, Value};

use super::{head, state_at, to_json, Store, StoreError};

impl Store {
    /// Changes the current state of `session` by `change` — the state after
    /// the current branch's head turn, or the story's initial state before
    /// its first turn — in one transaction, and returns the state changed.
    /// A `change` that fails leaves the state as it was.
    pub fn amend_state<E>(
        &mut self,
        session: &str,
        change: impl FnOnce(&mut Map<String, Value>) -> Result<(), E>,
    ) -> Result<Result<Map<String, Value>, E>, StoreError> {
        let tx = self.conn.transaction()?;
        let at = head(&tx, session)?;
        let mut state = state_at(&tx, session, at.turn)?;
        if let Err(e) = change(&mut state) {
            return Ok(Err(e));
        }
        let text = to_json(&state);
        match at.turn {
            Some(id) => tx.execute(
                "UPDATE turns SET state_after = ?1 WHERE id = ?2",
                params![text, id],
            )?,
            None => tx.execute(
                "UPDATE sessions SET initial_state = ?1 WHERE id = ?2",
                params![text, session],
            )?,
        };
        tx.commit()?;
        Ok(Ok(state))
    }
}
