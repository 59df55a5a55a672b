//! File dialogs the shell opens itself: the files `session_export`,
//! `model_load`, `card_import` and `lore_import` accept from the page are the
//! ones the player chose here (or files under the app's own folders), never
//! any path the page makes up.

use std::path::PathBuf;

use narratoria_app::chosen_paths::ChosenPaths;
use serde::Deserialize;
use tauri::{AppHandle, State};
use tauri_plugin_dialog::{DialogExt, FilePath};

/// Asks where to save an export (`md` or `json`); `None` when cancelled.
#[tauri::command]
pub async fn choose_export_file(
    handle: AppHandle,
    chosen: State<'_, ChosenPaths>,
    format: String,
    name: String,
) -> Result<Option<PathBuf>, String> {
    let label = if format == "md" { "Markdown" } else { "JSON" };
    let picked = handle
        .dialog()
        .file()
        .set_file_name(&name)
        .add_filter(label, &[format.as_str()])
        .blocking_save_file();
    Ok(remember(&chosen, picked))
}

/// Asks for a GGUF model file; `None` when cancelled.
#[tauri::command]
pub async fn choose_model_file(
    handle: AppHandle,
    chosen: State<'_, ChosenPaths>,
) -> Result<Option<PathBuf>, String> {
    let picked = handle
        .dialog()
        .file()
        .add_filter("GGUF model", &["gguf"])
        .blocking_pick_file();
    Ok(remember(&chosen, picked))
}

/// What a file is imported as.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ImportKind {
    /// A character card: PNG or JSON.
    Card,
    /// A lorebook (world info): JSON.
    Lore,
}

/// Asks for a file to import as `kind`; `None` when cancelled.
#[tauri::command]
pub async fn choose_import_file(
    handle: AppHandle,
    chosen: State<'_, ChosenPaths>,
    kind: ImportKind,
) -> Result<Option<PathBuf>, String> {
    let (label, extensions): (&str, &[&str]) = match kind {
        ImportKind::Card => ("Character card", &["png", "json"]),
        ImportKind::Lore => ("Lorebook (world info)", &["json"]),
    };
    let picked = handle
        .dialog()
        .file()
        .add_filter(label, extensions)
        .blocking_pick_file();
    Ok(remember(&chosen, picked))
}

fn remember(chosen: &ChosenPaths, picked: Option<FilePath>) -> Option<PathBuf> {
    let path = picked?.into_path().ok()?;
    chosen.remember(&path);
    Some(path)
}
