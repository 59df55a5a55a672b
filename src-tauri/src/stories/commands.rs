//! Story commands: the scenarios a story starts from, a new story from one,
//! importing character cards and lorebooks (docs/scenarios.md), and a
//! story's author's note and language (docs/stories.md).

use std::path::PathBuf;

use narratoria_app::chosen_paths::ChosenPaths;
use narratoria_app::desktop::DesktopPaths;
use narratoria_app::stories::{CardImport, LoreImport, LoreTarget, ScenarioList};
use narratoria_app::table::{StoryTable, TableChange};
use narratoria_app::{AppError, SessionView, StoryLanguage};
use narratoria_core::scenario::CardRole;
use serde::Serialize;
use tauri::State;

use crate::startup::AppState;

/// The built-in and saved scenarios.
#[tauri::command]
pub fn scenarios_list(app: State<'_, AppState>) -> ScenarioList {
    app.scenarios()
}

/// Starts a story from a scenario (the first built-in one when none is
/// named) and makes it current.
#[tauri::command]
pub fn story_new(
    app: State<'_, AppState>,
    scenario: Option<String>,
) -> Result<SessionView, AppError> {
    app.new_story(scenario.as_deref())
}

/// A card imported, with the story it is now part of.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CardImported {
    pub import: CardImport,
    pub session: SessionView,
}

/// Imports a character card as the player or someone in the story: into
/// the given story, or into a new story built around it. `path` must be a
/// file the player chose in the shell's dialog or one under the app's own
/// folders.
#[tauri::command]
pub fn card_import(
    app: State<'_, AppState>,
    chosen: State<'_, ChosenPaths>,
    paths: State<'_, DesktopPaths>,
    path: PathBuf,
    role: CardRole,
    session: Option<String>,
) -> Result<CardImported, AppError> {
    let path = chosen.allow(&path, &paths.own_folders())?;
    let (import, session) = app.import_card(&path, role, session.as_deref())?;
    Ok(CardImported { import, session })
}

/// Imports a lorebook into a story (by id) or a scenario (by name). `path`
/// must be a file the player chose in the shell's dialog or one under the
/// app's own folders.
#[tauri::command]
pub fn lore_import(
    app: State<'_, AppState>,
    chosen: State<'_, ChosenPaths>,
    paths: State<'_, DesktopPaths>,
    path: PathBuf,
    session: Option<String>,
    scenario: Option<String>,
) -> Result<LoreImport, AppError> {
    let path = chosen.allow(&path, &paths.own_folders())?;
    let target = match (session, scenario) {
        (Some(id), _) => LoreTarget::Session(id),
        (None, Some(name)) => LoreTarget::Scenario(name),
        (None, None) => LoreTarget::Nowhere,
    };
    app.import_lore(&path, &target)
}

/// A story's author's note (empty: none).
#[tauri::command]
pub fn story_note(app: State<'_, AppState>, id: String) -> Result<String, AppError> {
    app.author_note(&id)
}

/// Keeps a story's author's note (empty clears it); returns it as kept.
/// A note over the limit is refused (`note_too_long`).
#[tauri::command]
pub fn story_note_set(
    app: State<'_, AppState>,
    id: String,
    note: String,
) -> Result<String, AppError> {
    app.set_author_note(&id, &note)
}

/// The language a story is told in.
#[tauri::command]
pub fn story_language(app: State<'_, AppState>, id: String) -> Result<StoryLanguage, AppError> {
    app.story_language(&id)
}

/// Tells a story in the language `language` names (an ISO 639 code or an
/// English name); anything else is refused (`language_unknown`).
#[tauri::command]
pub fn story_language_set(
    app: State<'_, AppState>,
    id: String,
    language: String,
) -> Result<StoryLanguage, AppError> {
    app.set_story_language(&id, &language)
}

/// The game master's table of a story's current branch: the scene, the
/// threads, the people met and the facts kept (docs/game-master.md).
#[tauri::command]
pub fn story_table(app: State<'_, AppState>, id: String) -> Result<StoryTable, AppError> {
    app.story_table(&id)
}

/// Closes, reopens, renames or adds a thread, or pins or unpins a fact, at
/// a story's table; returns the table after it (`thread_not_found`,
/// `table_text_invalid` refused, the story unchanged).
#[tauri::command]
pub fn story_table_change(
    app: State<'_, AppState>,
    id: String,
    change: TableChange,
) -> Result<StoryTable, AppError> {
    app.change_table(&id, &change)
}
