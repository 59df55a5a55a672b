//! The story's controls that move about its tree without playing: undo,
//! redo, branches (create, switch, rename, delete), alternatives of the last
//! turn (swipe), editing a narration, and stopping a running turn. Each one
//! waits for a running turn of the same session to end first
//! (docs/stories.md).

use narratoria_core::store::{Alternative, BranchInfo, StoryTree};
use narratoria_core::sync;

use crate::{App, AppError, SessionView};

impl App {
    /// Takes the current branch's last turn back (it stays in the story:
    /// [`App::redo`] brings it back); `None` at the story's start.
    pub fn undo(&self, session: &str) -> Result<Option<SessionView>, AppError> {
        let _held = self.turn_locks.hold_blocking(session);
        let moved = sync::lock(&self.store).undo(session)?;
        moved.then(|| self.session_view(session)).transpose()
    }

    /// Brings back the turn undone last; `None` when there is none.
    pub fn redo(&self, session: &str) -> Result<Option<SessionView>, AppError> {
        let _held = self.turn_locks.hold_blocking(session);
        let moved = sync::lock(&self.store).redo(session)?;
        moved.then(|| self.session_view(session)).transpose()
    }

    /// Creates a branch at turn `turn` of the current branch (0 = the
    /// story's start), named `name` or the next free "branch N", and plays
    /// on it from now on.
    pub fn branch(
        &self,
        session: &str,
        turn: u32,
        name: Option<&str>,
    ) -> Result<BranchInfo, AppError> {
        let _held = self.turn_locks.hold_blocking(session);
        let mut store = sync::lock(&self.store);
        let made = store.branch(session, turn, name)?;
        store.switch_branch(session, &made.name)?;
        Ok(BranchInfo {
            current: true,
            ..made
        })
    }

    /// The session's branches, oldest first.
    pub fn branches(&self, session: &str) -> Result<Vec<BranchInfo>, AppError> {
        Ok(sync::lock(&self.store).branches(session)?)
    }

    /// Plays on branch `name` from now on.
    pub fn switch_branch(&self, session: &str, name: &str) -> Result<SessionView, AppError> {
        let _held = self.turn_locks.hold_blocking(session);
        sync::lock(&self.store).switch_branch(session, name)?;
        self.session_view(session)
    }

    /// Renames branch `from` to `to`.
    pub fn rename_branch(&self, session: &str, from: &str, to: &str) -> Result<(), AppError> {
        let _held = self.turn_locks.hold_blocking(session);
        Ok(sync::lock(&self.store).rename_branch(session, from, to)?)
    }

    /// Deletes branch `name` (not the last one); its turns stay in the story.
    pub fn delete_branch(&self, session: &str, name: &str) -> Result<SessionView, AppError> {
        let _held = self.turn_locks.hold_blocking(session);
        sync::lock(&self.store).delete_branch(session, name)?;
        self.session_view(session)
    }

    /// Renames a story.
    pub fn rename_session(&self, session: &str, title: &str) -> Result<(), AppError> {
        let _held = self.turn_locks.hold_blocking(session);
        Ok(sync::lock(&self.store).rename(session, title.trim())?)
    }

    /// Deletes a story with all its turns and branches; when it was the
    /// current one, no story is current any more.
    pub fn delete_session(&self, session: &str) -> Result<(), AppError> {
        let _held = self.turn_locks.hold_blocking(session);
        sync::lock(&self.store).delete_session(session)?;
        let mut current = sync::lock(&self.session);
        if current.as_deref() == Some(session) {
            *current = None;
        }
        Ok(())
    }

    /// The whole story: branches and every turn.
    pub fn tree(&self, session: &str) -> Result<StoryTree, AppError> {
        Ok(sync::lock(&self.store).tree(session)?)
    }

    /// The ways the current branch's last turn can read: its narrations and
    /// those of the turns played beside it.
    pub fn alternatives(&self, session: &str) -> Result<Vec<Alternative>, AppError> {
        Ok(sync::lock(&self.store).alternatives(session)?)
    }

    /// Makes alternative `number` the one the story reads; without a number,
    /// the one after the active one (wrapping round).
    pub async fn swipe(&self, session: &str, number: Option<u32>) -> Result<SessionView, AppError> {
        let _held = self.turn_locks.hold(session).await;
        let last = {
            let mut store = sync::lock(&self.store);
            let number = match number {
                Some(n) => n,
                None => {
                    let all = store.alternatives(session)?;
                    let active = all.iter().position(|a| a.active).unwrap_or(0);
                    ((active + 1) % all.len().max(1)) as u32 + 1
                }
            };
            store.choose_alternative(session, number)?;
            store.head_turn(session)?.map_or(0, |t| t.number)
        };
        self.remember_told(session, last).await
    }

    /// Replaces the narration of turn `turn` of the current branch with
    /// `text` (the earlier one stays as an alternative).
    pub async fn edit_narration(
        &self,
        session: &str,
        turn: u32,
        text: &str,
    ) -> Result<SessionView, AppError> {
        let _held = self.turn_locks.hold(session).await;
        sync::lock(&self.store).add_narration(session, turn, text.trim())?;
        self.remember_told(session, turn).await
    }

    /// Stops the running turn of `session`: tools already finished stay
    /// recorded, the rest end now, and the turn is told from what was
    /// decided. `false` when no turn is running.
    pub fn stop_turn(&self, session: &str) -> bool {
        self.running.stop(session)
    }
}
