//! What the app's functions hand to a UI: plain, serialisable views.

use std::path::PathBuf;

use narratoria_core::result::ExecutionResult;
use narratoria_core::store::{SessionInfo, TurnRecord};
use serde::Serialize;
use serde_json::{Map, Value};

/// The models in use: the one that plans and the one that writes
/// (docs/models.md, "Roles").
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelInfo {
    /// The planner's name: a model file name, or `rules`.
    pub planner: String,
    /// The planner's GGUF file, when a model plans.
    pub path: Option<PathBuf>,
    /// The planner model's parameters.
    pub planner_parameters: Option<u64>,
    /// Where the default model is expected.
    pub default_path: PathBuf,
    /// The writer's name: a model file name (the planner's own when it
    /// writes too), or `none` when no model writes (the storyteller tells
    /// the turn its own way).
    pub writer: String,
    /// The writer's GGUF file, when a model writes.
    pub writer_path: Option<PathBuf>,
    /// Whether one model plans and writes.
    pub shared: bool,
    /// The writer's parameters.
    pub writer_parameters: Option<u64>,
    /// The tokens the writer's context holds.
    pub writer_context: Option<u32>,
    /// The writer's profile in words (`WriterProfile::describe`).
    pub writer_profile: Option<String>,
    /// Where the planner's model runs ("on the processor", "on CARD (N of
    /// M layers)"), when a model plans.
    pub planner_runs_on: Option<String>,
    /// Where the writer's model runs, when a model writes.
    pub writer_runs_on: Option<String>,
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
