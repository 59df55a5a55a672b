//! A turn control's live events, forwarded to the page's channel.

use narratoria_core::turn::TurnEvent;
use tauri::async_runtime::JoinHandle;
use tauri::ipc::Channel;
use tokio::sync::mpsc::UnboundedSender;

/// A sender for the app's events and the task passing them on to `channel`
/// in order; the task ends once every sender is dropped.
pub fn forward(channel: Channel<TurnEvent>) -> (UnboundedSender<TurnEvent>, JoinHandle<()>) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<TurnEvent>();
    let task = tauri::async_runtime::spawn(async move {
        while let Some(ev) = rx.recv().await {
            if channel.send(ev).is_err() {
                break;
            }
        }
    });
    (tx, task)
}
