//! What the app's functions hand to a UI: plain, serialisable views.

use std::path::PathBuf;

use narratoria_core::result::ExecutionResult;
use narratoria_core::store::{SessionInfo, TurnRecord};
use serde::Serialize;
use serde_json::{Map, Value};

/// The model in use.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelInfo {
    /// The planner's name: a model file name, or `rules`.
    pub planner: String,
    /// The GGUF file, when a model is loaded.
    pub path: Option<PathBuf>,
    /// Where the default model is expected.
    pub default_path: PathBuf,
}

/// A skill as the UI shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillView {
    #[serde(flatten)]
    pub summary: Value,
    pub config_schema: Option<Value>,
    /// The effective settings, secrets redacted.
    pub config: Value,
}

/// Every skill, with what was passed over.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillsView {
    pub skills: Vec<SkillView>,
    pub problems: Value,
    pub overrides: Value,
}

/// A played turn, for the UI.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnView {
    pub session: String,
    pub turn: TurnRecord,
    pub result: ExecutionResult,
}

/// A session with its turns.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionView {
    pub session: SessionInfo,
    pub turns: Vec<TurnRecord>,
    pub state: Map<String, Value>,
}
