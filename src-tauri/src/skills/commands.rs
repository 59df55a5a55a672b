//! Skill commands: list, enable or disable, save settings, how their runs
//! fared; skill-folder changes forwarded as `skill-changed` events.

use narratoria_app::{AppError, SkillsView};
use narratoria_core::store::{SkillStats, StatsQuery};
use serde_json::Value;
use tauri::{AppHandle, Emitter, State};

use crate::startup::AppState;

/// Event name for a change in the skill folders.
pub const CHANGED_EVENT: &str = "skill-changed";

/// Every skill with health, settings (secrets redacted) and schema.
#[tauri::command]
pub fn skills_list(app: State<'_, AppState>) -> SkillsView {
    app.skills()
}

/// Turns a skill on or off (remembered); returns the skills after.
#[tauri::command]
pub fn skill_set_enabled(
    app: State<'_, AppState>,
    name: String,
    enabled: bool,
) -> Result<SkillsView, AppError> {
    app.set_skill_enabled(&name, enabled)
}

/// Validates and saves a skill's settings; invalid input writes nothing and
/// comes back with per-field errors. Returns the saved settings, redacted.
#[tauri::command]
pub fn skill_save_config(
    app: State<'_, AppState>,
    name: String,
    config: Value,
) -> Result<Value, AppError> {
    app.save_skill_config(&name, &config)
}

/// How the skills' script runs fared in every saved story: runs, failures
/// by code, p50/p95 and mean duration per skill and script, narrowed to
/// the runs `query` selects (every run when it is left out).
#[tauri::command]
pub fn skills_stats(
    app: State<'_, AppState>,
    query: Option<StatsQuery>,
) -> Result<SkillStats, AppError> {
    app.skill_stats(&query.unwrap_or_default())
}

/// Emits every registry change to the page until the app ends.
pub fn forward_changes(handle: AppHandle, app: &AppState) {
    let mut changes = app.skill_changes();
    tauri::async_runtime::spawn(async move {
        use tokio::sync::broadcast::error::RecvError;
        loop {
            match changes.recv().await {
                Ok(change) => {
                    let _ = handle.emit(CHANGED_EVENT, change);
                }
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => break,
            }
        }
    });
}
