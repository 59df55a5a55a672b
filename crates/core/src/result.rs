//! ExecutionResult (`contracts/execution-result.schema.json`): what the
//! executor reports about one plan.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use ts_rs::TS;
use uuid::Uuid;

use crate::plan::PlanMetadata;
use crate::trace::TraceRecord;

/// The outcome of executing one plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "ExecutionResult")]
pub struct ExecutionResult {
    /// Matches the plan's `requestId`.
    pub plan_id: Uuid,
    /// Whether every required tool succeeded.
    pub success: bool,
    /// Final narrative text: the last narrative a succeeded tool returned, else the plan's.
    pub narrative: Option<String>,
    /// toolIds that failed, optional ones included.
    pub failed_tools: Vec<String>,
    /// Whether another plan could do better (false only on success).
    pub can_replan: bool,
    /// Why the plan failed.
    pub failure_reason: Option<FailureReason>,
    /// A sentence for people saying why the plan failed (names the tools of a cycle).
    #[serde(default)]
    pub failure_message: Option<String>,
    /// Per-tool results, in plan order.
    pub execution_trace: Vec<ToolResult>,
    /// The session state given in, deep-merged with succeeded tools' patches in completion order.
    pub final_state: Map<String, Value>,
    /// Wall time of the whole plan.
    pub total_execution_time_ms: u64,
    /// Passed through from the plan.
    pub generation_metadata: Option<PlanMetadata>,
    /// The plan's trace: its trace id (the turn's, in a turn) and the spans
    /// of this run — the execution, each tool, each script run, each host
    /// request — timed on the trace's clock (docs/observability.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<TraceRecord>,
}

/// One tool's outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    pub tool_id: String,
    pub tool_path: Option<String>,
    /// The skill the tool resolved to, if it resolved.
    #[serde(default)]
    pub skill: Option<String>,
    /// The last attempt's `done.ok`.
    pub ok: bool,
    pub state: ExecutionState,
    /// The succeeded attempt's `done.output`.
    pub output: Option<Value>,
    /// Every attempt's events, each marked with its `attempt` number (capped per attempt).
    pub events: Vec<Map<String, Value>>,
    /// Time from first start to final outcome, retries and backoff included.
    pub execution_time_ms: u64,
    /// The tool's span in the plan's trace (docs/observability.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span_id: Option<String>,
    /// When the tool first started, in ms on the trace's clock: since the
    /// turn began in a turn, since the plan started otherwise (null if it never ran).
    #[serde(default)]
    pub started_at_ms: Option<u64>,
    /// Retries actually made.
    pub retry_count: u32,
    pub error: Option<ToolError>,
    /// A capped tail of the last attempt's stderr.
    #[serde(default)]
    pub stderr: String,
}

/// Lifecycle state of a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "lowercase")]
pub enum ExecutionState {
    Pending,
    Running,
    Completed,
    Failed,
    Skipped,
    Timeout,
}

/// Why a plan failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum FailureReason {
    CircularDependency,
    ToolFailure,
    Timeout,
    ProtocolViolation,
    /// An addition to the seed: unknown dependency or duplicate toolId.
    InvalidPlan,
}

/// A tool's failure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct ToolError {
    /// Classification, see [`ToolErrorType`].
    #[serde(rename = "type")]
    pub error_type: ToolErrorType,
    pub message: String,
    pub exit_code: Option<i32>,
    /// The script's failure code (e.g. `VALIDATION_ERROR`) when it sent an `error` event.
    #[serde(default)]
    pub code: Option<String>,
    /// Whether a retry could succeed.
    #[serde(default)]
    pub recoverable: bool,
}

/// How a tool failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum ToolErrorType {
    /// The toolPath did not resolve to a script of a discovered, enabled skill.
    ToolNotFound,
    /// The tool's skill is in the plan's `disabledSkills`.
    SkillDisabled,
    /// The script could not be started.
    SpawnFailed,
    /// The skill's settings could not be resolved (invalid, or a `${VAR}` unset).
    ConfigInvalid,
    ProtocolViolation,
    Timeout,
    /// `done.ok:false` or an `error` event.
    ScriptError,
    NonzeroExit,
    Signal,
    /// A required dependency failed, so this tool never ran.
    DependencyFailed,
    /// The per-plan time limit ran out.
    PlanTimeout,
}

impl ToolErrorType {
    /// Whether the executor may retry an attempt that failed this way.
    pub fn retryable(self) -> bool {
        matches!(
            self,
            ToolErrorType::Timeout
                | ToolErrorType::ScriptError
                | ToolErrorType::NonzeroExit
                | ToolErrorType::Signal
        )
    }
}

impl ToolResult {
    /// A result for a tool that has not run.
    pub fn pending(tool_id: &str, tool_path: &str) -> ToolResult {
        ToolResult {
            tool_id: tool_id.to_string(),
            tool_path: Some(tool_path.to_string()),
            skill: None,
            ok: false,
            state: ExecutionState::Pending,
            output: None,
            events: Vec::new(),
            execution_time_ms: 0,
            span_id: None,
            started_at_ms: None,
            retry_count: 0,
            error: None,
            stderr: String::new(),
        }
    }
}
