//! Model commands: what is loaded, load another GGUF file, where things are.

use std::path::PathBuf;

use narratoria_app::chosen_paths::ChosenPaths;
use narratoria_app::desktop::DesktopPaths;
use narratoria_app::load_queue::Ran;
use narratoria_app::roles::{self, Given};
use narratoria_app::AppError;
use narratoria_core::sync::lock;
use serde::Serialize;
use tauri::{AppHandle, Emitter, Manager, State};

use super::models::{
    Loading, ModelProgress, ModelStatus, ModelView, FAILED_EVENT, LOADED_EVENT, PROGRESS_EVENT,
};
use crate::startup::AppState;

/// The model in use and any load in progress.
#[tauri::command]
pub fn model_status(app: State<'_, AppState>, status: State<'_, ModelStatus>) -> ModelView {
    ModelView {
        model: app.model_info(),
        loading: lock(&status.loading).clone(),
    }
}

/// Starts loading `path` (it plans and writes; absent, the player's roles:
/// the chosen planner or the default model plans, the chosen writer
/// writes) in the background and returns at once; `model-progress`, then `model-loaded` or
/// `model-failed` follow. The current planner answers until the load ends.
/// `path` must be a file the player chose in the shell's dialog
/// (`choose_model_file`) or one under the app's own folders.
#[tauri::command]
pub fn model_load(
    handle: AppHandle,
    chosen: State<'_, ChosenPaths>,
    paths: State<'_, DesktopPaths>,
    path: Option<String>,
) -> Result<(), AppError> {
    let path = match path {
        Some(p) => Some(chosen.allow(&PathBuf::from(p), &paths.own_folders())?),
        None => None,
    };
    load_in_background(handle, path);
    Ok(())
}

/// Loads a model on its own thread, reporting progress as app events:
/// `path` plans and writes; `None`, the player's roles over the bundle's
/// default model (docs/models.md, "Roles"). Loads run one at a time in the
/// order asked; one overtaken before it starts is skipped, and only the
/// last one asked ends the status's load and sends `model-loaded` or
/// `model-failed`, so the roles in use are those the settings name after
/// the last ask.
pub fn load_in_background(handle: AppHandle, path: Option<PathBuf>) {
    let shown = path.as_ref().map(|p| p.display().to_string());
    let ticket = {
        let status = handle.state::<ModelStatus>();
        *lock(&status.loading) = Loading {
            path: shown.clone(),
            progress: 0.0,
            active: true,
            error: None,
        };
        status.queue.ask()
    };
    std::thread::spawn(move || {
        let app = handle.state::<AppState>().inner().clone();
        let status = handle.state::<ModelStatus>();
        let ran = status.queue.run(ticket, || {
            let progress_handle = handle.clone();
            let progress_path = shown.clone();
            let progress = Box::new(move |p: f32| {
                if let Some(s) = progress_handle.try_state::<ModelStatus>() {
                    if s.queue.is_latest(ticket) {
                        lock(&s.loading).progress = p;
                    }
                }
                let _ = progress_handle.emit(
                    PROGRESS_EVENT,
                    ModelProgress {
                        path: progress_path.clone(),
                        progress: p,
                    },
                );
            });
            let resources = handle.path().resource_dir().ok();
            let given = Given {
                model: path,
                ..Given::default()
            };
            let roles = roles::for_run(&given, resources.as_deref());
            app.load_roles(&roles, Some(progress))
        });
        let outcome = match ran {
            Ran::Ran {
                outcome,
                latest: true,
            } => outcome,
            Ran::Ran { latest: false, .. } => {
                tracing::info!("a later load of the roles follows this one");
                return;
            }
            Ran::Overtaken => return,
        };
        let mut loading = lock(&status.loading);
        loading.active = false;
        match outcome {
            Ok(info) => {
                tracing::info!(planner = %info.planner, path = ?info.path, writer = %info.writer, "model loaded");
                loading.progress = 1.0;
                loading.error = None;
                drop(loading);
                let _ = handle.emit(LOADED_EVENT, info);
            }
            Err(e) => {
                tracing::warn!(code = %e.code, "the model did not load: {}", e.message);
                loading.error = Some(e.clone());
                drop(loading);
                let _ = handle.emit(FAILED_EVENT, e);
            }
        }
    });
}

/// The folders in use, for the page to show.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Folders {
    pub skill_roots: Vec<PathBuf>,
    pub session_db: PathBuf,
    pub skills_state: PathBuf,
}

/// Where the skills, sessions and choices live.
#[tauri::command]
pub fn app_folders(paths: State<'_, DesktopPaths>) -> Result<Folders, AppError> {
    Ok(Folders {
        skill_roots: paths.skill_roots.clone(),
        session_db: paths.session_db.clone(),
        skills_state: paths.skills_state.clone(),
    })
}
