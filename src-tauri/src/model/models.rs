//! What the page sees of the narrator's model.

use std::sync::Mutex;

use narratoria_app::load_queue::LoadQueue;
use narratoria_app::{AppError, ModelInfo};
use serde::Serialize;

/// A model being loaded, or the last load's failure.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Loading {
    /// The file being loaded (`None` when the default one).
    pub path: Option<String>,
    /// 0.0 ..= 1.0.
    pub progress: f32,
    pub active: bool,
    /// Why the last load failed.
    pub error: Option<AppError>,
}

/// Shared load progress, updated by the loading thread, and the queue
/// the loads wait in.
#[derive(Default)]
pub struct ModelStatus {
    pub loading: Mutex<Loading>,
    pub queue: LoadQueue,
}

/// The model in use plus any load in progress.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelView {
    pub model: ModelInfo,
    pub loading: Loading,
}

/// Payload of the `model-progress` event.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelProgress {
    pub path: Option<String>,
    pub progress: f32,
}

/// Event names.
pub const PROGRESS_EVENT: &str = "model-progress";
pub const LOADED_EVENT: &str = "model-loaded";
pub const FAILED_EVENT: &str = "model-failed";
