//! Playing a turn, with its events streamed over a channel.

use narratoria_app::{AppError, TurnView};
use narratoria_core::turn::TurnEvent;
use tauri::ipc::Channel;
use tauri::State;

use crate::startup::AppState;

/// Plays one turn in the current session. Every live event (planning,
/// narrative pieces, plan, tool events, replans) is sent on `on_event` in
/// order, all of them before this returns the saved turn.
#[tauri::command]
pub async fn play(
    app: State<'_, AppState>,
    input: String,
    on_event: Channel<TurnEvent>,
) -> Result<TurnView, AppError> {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<TurnEvent>();
    let forward = tauri::async_runtime::spawn(async move {
        while let Some(ev) = rx.recv().await {
            if on_event.send(ev).is_err() {
                break;
            }
        }
    });
    let outcome = app.inner().clone().play(input, Some(tx)).await;
    let _ = forward.await;
    outcome
}
