//! The Model tab's external servers: the OpenAI-compatible servers (Ollama,
//! LM Studio, llama-server, KoboldCpp) a player gives the planner's or the
//! writer's role (docs/models.md, "External servers"). Thin over
//! `narratoria_app::servers`; after a role changes the roles are loaded
//! again, as `models_use` does, and the `model-*` events follow.

use narratoria_app::roles::RoleChoice;
use narratoria_app::servers::{self, ServerChoice, Servers};
use narratoria_app::AppError;
use narratoria_core::error::ErrorCode;
use serde::Serialize;
use tauri::AppHandle;

use super::commands::load_in_background;

/// What a check of a role's server found.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckView {
    /// The kind of server the answer shows (`ollama`, `llama-server`, …), when it shows one.
    pub kind: serde_json::Value,
    /// The models the server lists.
    pub models: Vec<String>,
    /// Whether the model chosen is among them.
    pub model_listed: bool,
    /// The time the model list took, there and back.
    pub round_trip_ms: u64,
}

/// One role's server checked again: what it found, or why it failed.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RoleCheck {
    pub server: ServerChoice,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check: Option<CheckView>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<AppError>,
}

/// The checks of the chosen servers, by role (`None`: no server plays it).
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServersCheck {
    pub planner: Option<RoleCheck>,
    pub writer: Option<RoleCheck>,
}

/// Runs network work off the command thread; a task that stops is `server_failed`.
async fn blocking<T: Send + 'static>(
    what: &'static str,
    work: impl FnOnce() -> Result<T, AppError> + Send + 'static,
) -> Result<T, AppError> {
    tauri::async_runtime::spawn_blocking(work)
        .await
        .map_err(|e| AppError::new(ErrorCode::ServerFailed, format!("{what} stopped: {e}")))?
}

/// A `servers::check` answer as the page reads it (a macro: the check's
/// type lives in a crate the shell does not name).
macro_rules! view {
    ($check:expr) => {{
        let check = $check;
        CheckView {
            kind: serde_json::to_value(check.kind).unwrap_or(serde_json::Value::Null),
            models: check.models,
            model_listed: check.model_listed,
            round_trip_ms: check.round_trip_ms,
        }
    }};
}

/// Which role is on which server (`None`: a model in the process plays it).
#[tauri::command]
pub fn servers_show() -> Servers {
    servers::chosen()
}

/// The models the server at `endpoint` lists, to pick one from.
#[tauri::command]
pub async fn servers_models(
    endpoint: String,
    api_key_env: Option<String>,
) -> Result<Vec<String>, AppError> {
    blocking("asking the server for its models", move || {
        servers::list_models(&endpoint, api_key_env.as_deref().filter(|v| !v.is_empty()))
    })
    .await
}

/// Asks the chosen servers again, with their round-trip times.
#[tauri::command]
pub async fn servers_check() -> Result<ServersCheck, AppError> {
    blocking("checking the servers", || {
        let chosen = servers::chosen();
        let check = |choice: Option<ServerChoice>| {
            choice.map(|server| match servers::check(&server) {
                Ok(c) => RoleCheck {
                    server,
                    check: Some(view!(c)),
                    error: None,
                },
                Err(e) => RoleCheck {
                    server,
                    check: None,
                    error: Some(e),
                },
            })
        };
        Ok(ServersCheck {
            planner: check(chosen.planner),
            writer: check(chosen.writer),
        })
    })
    .await
}

/// Checks that the server answers and serves `model`, remembers it as the
/// server of `role` (writer, planner or both), then loads the roles again.
#[tauri::command]
pub async fn servers_set(
    handle: AppHandle,
    role: String,
    endpoint: String,
    model: String,
    api_key_env: Option<String>,
) -> Result<CheckView, AppError> {
    let role: RoleChoice = role.parse()?;
    let choice = ServerChoice {
        endpoint: endpoint.trim().to_string(),
        model: model.trim().to_string(),
        api_key_env: api_key_env
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty()),
    };
    let checked = blocking("checking the server", move || {
        let check = servers::check(&choice)?;
        servers::set(role, Some(&choice))?;
        Ok(view!(check))
    })
    .await?;
    load_in_background(handle, None);
    Ok(checked)
}

/// Gives `role` back to the models in the process, then loads the roles again.
#[tauri::command]
pub fn servers_clear(handle: AppHandle, role: String) -> Result<(), AppError> {
    let role: RoleChoice = role.parse()?;
    servers::set(role, None)?;
    load_in_background(handle, None);
    Ok(())
}

/// The event the page hears an external server's wait on.
pub const WAIT_EVENT: &str = "server-wait";

/// Emits every wait of an external server (a model loading) to the page
/// until the app ends, so a turn that waits says why.
pub fn forward_waits(handle: AppHandle, app: &crate::startup::AppState) {
    use tauri::Emitter;
    let mut waits = app.server_waits();
    tauri::async_runtime::spawn(async move {
        use tokio::sync::broadcast::error::RecvError;
        loop {
            match waits.recv().await {
                Ok(wait) => {
                    let _ = handle.emit(WAIT_EVENT, wait);
                }
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => break,
            }
        }
    });
}
