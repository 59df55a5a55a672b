//! The last turn's controls and stopping a turn: tell it again, tell more,
//! play it again, flip between its versions, edit a turn's words or
//! narration (docs/stories.md). Live events go to `on_event` in order, all
//! of them before the command returns.

use narratoria_app::corrections::MechanicsChange;
use narratoria_app::{AppError, SessionView, TurnView};
use narratoria_core::skills::corrections::Correction;
use narratoria_core::store::Alternative;
use narratoria_core::turn::TurnEvent;
use tauri::ipc::Channel;
use tauri::State;

use super::events::forward;
use crate::startup::AppState;

/// Stops the running turn of story `id`; `false` when none runs.
#[tauri::command]
pub fn turn_stop(app: State<'_, AppState>, id: String) -> bool {
    app.stop_turn(&id)
}

/// Tells the last turn again (same mechanics) as a new version of it.
#[tauri::command]
pub async fn narration_regenerate(
    app: State<'_, AppState>,
    id: String,
    on_event: Channel<TurnEvent>,
) -> Result<SessionView, AppError> {
    let (tx, forwarding) = forward(on_event);
    let outcome = app.inner().clone().regenerate_narration(id, Some(tx)).await;
    let _ = forwarding.await;
    outcome
}

/// Writes more narration for the last turn, as a new version of it.
#[tauri::command]
pub async fn narration_continue(
    app: State<'_, AppState>,
    id: String,
    on_event: Channel<TurnEvent>,
) -> Result<SessionView, AppError> {
    let (tx, forwarding) = forward(on_event);
    let outcome = app.inner().clone().continue_narration(id, Some(tx)).await;
    let _ = forwarding.await;
    outcome
}

/// Plays the last turn again from scratch (new plan, new rolls).
#[tauri::command]
pub async fn turn_regenerate(
    app: State<'_, AppState>,
    id: String,
    on_event: Channel<TurnEvent>,
) -> Result<TurnView, AppError> {
    let (tx, forwarding) = forward(on_event);
    let outcome = app.inner().clone().regenerate_turn(id, Some(tx)).await;
    let _ = forwarding.await;
    outcome
}

/// Plays the last turn again with its mechanics corrected by `change`, and
/// keeps the correction as an example for the story's routing.
#[tauri::command]
pub async fn turn_correct(
    app: State<'_, AppState>,
    id: String,
    change: MechanicsChange,
    on_event: Channel<TurnEvent>,
) -> Result<TurnView, AppError> {
    let (tx, forwarding) = forward(on_event);
    let outcome = app.inner().clone().correct_turn(id, change, Some(tx)).await;
    let _ = forwarding.await;
    outcome
}

/// The story's corrections of its turns' mechanics, oldest first.
#[tauri::command]
pub fn corrections_list(app: State<'_, AppState>, id: String) -> Result<Vec<Correction>, AppError> {
    app.corrections(&id)
}

/// Removes the story's correction `correction`; the corrections left.
#[tauri::command]
pub fn correction_remove(
    app: State<'_, AppState>,
    id: String,
    correction: i64,
) -> Result<Vec<Correction>, AppError> {
    app.remove_correction(&id, correction)
}

/// Plays turn `turn` again with `input`, on a new branch from the turn before.
#[tauri::command]
pub async fn turn_edit(
    app: State<'_, AppState>,
    id: String,
    turn: u32,
    input: String,
    on_event: Channel<TurnEvent>,
) -> Result<TurnView, AppError> {
    let (tx, forwarding) = forward(on_event);
    let outcome = app
        .inner()
        .clone()
        .edit_turn(id, turn, input, Some(tx))
        .await;
    let _ = forwarding.await;
    outcome
}

/// Replaces the narration of turn `turn` with `text` (the old one stays a version).
#[tauri::command]
pub async fn narration_edit(
    app: State<'_, AppState>,
    id: String,
    turn: u32,
    text: String,
) -> Result<SessionView, AppError> {
    app.inner().clone().edit_narration(id, turn, text).await
}

/// The versions of the last turn, oldest first.
#[tauri::command]
pub fn alternatives_list(
    app: State<'_, AppState>,
    id: String,
) -> Result<Vec<Alternative>, AppError> {
    app.alternatives(&id)
}

/// Makes version `number` of the last turn the one the story reads
/// (without a number, the next one).
#[tauri::command]
pub async fn alternative_choose(
    app: State<'_, AppState>,
    id: String,
    number: Option<u32>,
) -> Result<SessionView, AppError> {
    app.inner().clone().swipe(id, number).await
}
