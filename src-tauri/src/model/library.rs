//! The model view's library: the player's models and the catalog's,
//! downloading one with its progress, adding a GGUF file, choosing the one
//! that narrates, removing one. Thin over `narratoria_app::models`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use narratoria_app::chosen_paths::ChosenPaths;
use narratoria_app::desktop::DesktopPaths;
use narratoria_app::models::{Models, ModelsView, Removed};
use narratoria_app::roles::RoleChoice;
use narratoria_app::AppError;
use narratoria_core::error::ErrorCode;
use narratoria_core::sync::lock;
use narratoria_models::InstalledModel;
use serde::Serialize;
use tauri::ipc::Channel;
use tauri::{AppHandle, State};

use super::commands::load_in_background;
use crate::startup::AppState;

/// The catalog names being downloaded now (one download of each at a time).
#[derive(Default)]
pub struct Downloads(std::sync::Mutex<Vec<String>>);

/// How far a download is, sent a few times a second.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DownloadProgress {
    pub done: u64,
    pub total: Option<u64>,
}

/// The models on disk, each with its parameters, writer's profile and the
/// roles it has now (plans, writes), and the catalog's others.
#[tauri::command]
pub fn models_list(app: State<'_, AppState>, models: State<'_, Models>) -> ModelsView {
    models.list(&models.loaded(&app.model_info()))
}

/// Downloads the catalog model `name` into the player's models folder,
/// resumed where an earlier attempt stopped and checked against its
/// checksum; progress goes to `on_progress`. Returns where it is installed.
#[tauri::command]
pub async fn models_download(
    models: State<'_, Models>,
    downloads: State<'_, Downloads>,
    name: String,
    on_progress: Channel<DownloadProgress>,
) -> Result<PathBuf, AppError> {
    {
        let mut active = lock(&downloads.0);
        if active.contains(&name) {
            return Err(AppError::new(
                ErrorCode::DownloadFailed,
                format!("{name} is being downloaded already"),
            ));
        }
        active.push(name.clone());
    }
    let models = models.inner().clone();
    let fetched = name.clone();
    let outcome = tauri::async_runtime::spawn_blocking(move || {
        let mut last_sent: Option<Instant> = None;
        models.download(&fetched, &mut |p| {
            let finished = p.total.is_some_and(|t| p.done >= t);
            if finished || last_sent.is_none_or(|t| t.elapsed() >= Duration::from_millis(100)) {
                last_sent = Some(Instant::now());
                let _ = on_progress.send(DownloadProgress {
                    done: p.done,
                    total: p.total,
                });
            }
        })
    })
    .await;
    lock(&downloads.0).retain(|n| n != &name);
    match outcome {
        Ok(done) => done.map_err(AppError::from),
        Err(e) => Err(AppError::new(
            ErrorCode::DownloadFailed,
            format!("the download of {name} stopped: {e}"),
        )),
    }
}

/// Copies a GGUF file the player chose in the shell's dialog
/// (`choose_model_file`) into the models folder, after checking it is a
/// whole model with a chat template.
#[tauri::command]
pub async fn models_add(
    models: State<'_, Models>,
    chosen: State<'_, ChosenPaths>,
    paths: State<'_, DesktopPaths>,
    path: String,
) -> Result<InstalledModel, AppError> {
    let file = chosen.allow(Path::new(&path), &paths.own_folders())?;
    let models = models.inner().clone();
    tauri::async_runtime::spawn_blocking(move || models.add(&file, false))
        .await
        .map_err(|e| AppError::new(ErrorCode::Io, format!("adding {path} stopped: {e}")))?
        .map_err(AppError::from)
}

/// Remembers `name` in `role` (`writer`, the default; `planner`; `both`)
/// and loads the player's roles again (`default`: forgets that role's
/// choice: the default model plans, the planner's model writes); the
/// `model-*` events follow as for `model_load`.
#[tauri::command]
pub fn models_use(
    handle: AppHandle,
    models: State<'_, Models>,
    name: String,
    role: Option<String>,
) -> Result<(), AppError> {
    let role: RoleChoice = role.as_deref().unwrap_or("writer").parse()?;
    models.choose_as(&name, role)?;
    load_in_background(handle, None);
    Ok(())
}

/// Deletes `name` from the player's models folder. When it was narrating,
/// the default model is loaded instead.
#[tauri::command]
pub fn models_remove(
    handle: AppHandle,
    app: State<'_, AppState>,
    models: State<'_, Models>,
    name: String,
) -> Result<Removed, AppError> {
    let removed = models.remove(&name)?;
    let info = app.model_info();
    if [info.path, info.writer_path].contains(&Some(removed.path.clone())) {
        load_in_background(handle, None);
    }
    Ok(removed)
}
