//! Session commands: list, new, open, continue, rewind, rename, delete,
//! export, and a turn's run folder for a bug report.

use std::path::PathBuf;

use narratoria_app::chosen_paths::ChosenPaths;
use narratoria_app::desktop::DesktopPaths;
use narratoria_app::run_export::{runs_dir, RunExported};
use narratoria_app::{AppError, SessionView};
use narratoria_core::store::SessionInfo;
use serde::Serialize;
use tauri::State;

use crate::startup::AppState;

/// Every saved session, most recent first.
#[tauri::command]
pub fn sessions_list(app: State<'_, AppState>) -> Result<Vec<SessionInfo>, AppError> {
    app.sessions()
}

/// The current session (the latest one, or a new one, when none is open).
#[tauri::command]
pub fn session_current(app: State<'_, AppState>) -> Result<SessionView, AppError> {
    app.current_session()
}

/// Starts a session and makes it current.
#[tauri::command]
pub fn session_new(app: State<'_, AppState>, title: String) -> Result<SessionView, AppError> {
    app.new_session(&title)
}

/// Makes a session current.
#[tauri::command]
pub fn session_open(app: State<'_, AppState>, id: String) -> Result<SessionView, AppError> {
    app.open_session(&id)
}

/// Rewinds a session to just after `turn` (0 = its start).
#[tauri::command]
pub fn session_rewind(
    app: State<'_, AppState>,
    id: String,
    turn: u32,
) -> Result<SessionView, AppError> {
    app.rewind(&id, turn)
}

/// Renames a story.
#[tauri::command]
pub fn session_rename(app: State<'_, AppState>, id: String, title: String) -> Result<(), AppError> {
    app.rename_session(&id, &title)
}

/// Deletes a story with all its turns and branches.
#[tauri::command]
pub fn session_delete(app: State<'_, AppState>, id: String) -> Result<(), AppError> {
    app.delete_session(&id)
}

/// An export: written to `path` when one was chosen, else returned as text.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Exported {
    pub path: Option<PathBuf>,
    pub text: Option<String>,
    pub bytes: usize,
}

/// Exports a session as `md` or `json`, to the file the player chose in the
/// shell's save dialog (`choose_export_file`) or one under the app's own
/// folders, or back to the page.
#[tauri::command]
pub fn session_export(
    app: State<'_, AppState>,
    chosen: State<'_, ChosenPaths>,
    paths: State<'_, DesktopPaths>,
    id: String,
    format: String,
    path: Option<PathBuf>,
) -> Result<Exported, AppError> {
    match path {
        Some(dest) => {
            let dest = chosen.allow(&dest, &paths.own_folders())?;
            let bytes = app.export_to_file(&id, &format, &dest)?;
            Ok(Exported {
                path: Some(dest),
                text: None,
                bytes,
            })
        }
        None => {
            let text = app.export(&id, &format)?;
            Ok(Exported {
                path: None,
                bytes: text.len(),
                text: Some(text),
            })
        }
    }
}

/// Writes turn `turn` of a story (its number on the current branch) as a
/// run folder for a bug report, into a new folder under the user's data
/// folder (`runs/`); the page names no path. Returns where it went.
#[tauri::command]
pub fn sessions_export_run(
    app: State<'_, AppState>,
    id: String,
    turn: u32,
) -> Result<RunExported, AppError> {
    app.export_run_into(&runs_dir(), &id, turn)
}
