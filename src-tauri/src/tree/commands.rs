//! Moving about a story's tree: undo, redo, branches (new, switch, rename,
//! delete) and the whole tree (docs/stories.md).

use narratoria_app::{AppError, SessionView};
use narratoria_core::store::{BranchInfo, StoryTree};
use tauri::State;

use crate::startup::AppState;

/// Takes the last turn back; `None` at the story's start.
#[tauri::command]
pub fn story_undo(app: State<'_, AppState>, id: String) -> Result<Option<SessionView>, AppError> {
    app.undo(&id)
}

/// Brings back the turn taken back last; `None` when there is none.
#[tauri::command]
pub fn story_redo(app: State<'_, AppState>, id: String) -> Result<Option<SessionView>, AppError> {
    app.redo(&id)
}

/// The whole story: every branch and every turn.
#[tauri::command]
pub fn story_tree(app: State<'_, AppState>, id: String) -> Result<StoryTree, AppError> {
    app.tree(&id)
}

/// The story's branches, oldest first.
#[tauri::command]
pub fn branches_list(app: State<'_, AppState>, id: String) -> Result<Vec<BranchInfo>, AppError> {
    app.branches(&id)
}

/// Starts a branch at turn `turn` (0 = the start) and plays on it from now on.
#[tauri::command]
pub fn branch_new(
    app: State<'_, AppState>,
    id: String,
    turn: u32,
    name: Option<String>,
) -> Result<BranchInfo, AppError> {
    app.branch(&id, turn, name.as_deref())
}

/// Plays on branch `name` from now on.
#[tauri::command]
pub fn branch_switch(
    app: State<'_, AppState>,
    id: String,
    name: String,
) -> Result<SessionView, AppError> {
    app.switch_branch(&id, &name)
}

/// Renames branch `from` to `to`.
#[tauri::command]
pub fn branch_rename(
    app: State<'_, AppState>,
    id: String,
    from: String,
    to: String,
) -> Result<(), AppError> {
    app.rename_branch(&id, &from, &to)
}

/// Deletes branch `name` (not the last one); its turns stay in the story.
#[tauri::command]
pub fn branch_delete(
    app: State<'_, AppState>,
    id: String,
    name: String,
) -> Result<SessionView, AppError> {
    app.delete_branch(&id, &name)
}
