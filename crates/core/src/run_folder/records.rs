//! The records a run folder holds, as JSON Schemas pin them
//! (`contracts/run-manifest.schema.json`, `run-event.schema.json`,
//! `run-transcript.schema.json`). Every field is always written; one with
//! nothing to say is `null`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Makes every property of an object's schema required: the folder's
/// records always write every field, `null` when it has nothing to say.
fn every_field_required(schema: &mut schemars::Schema) {
    let keys: Vec<Value> = schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().map(Value::String).collect())
        .unwrap_or_default();
    schema.insert("required".into(), Value::Array(keys));
}

/// The layout's version, in `run.json`; raised when a file's records change
/// in a way a reader of the old layout would misread.
pub const RUN_FOLDER_VERSION: u32 = 1;

/// Whether a record is whole or had something taken out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RedactionMode {
    /// Nothing in it was a secret.
    Full,
    /// It holds the redaction mark where a secret setting's value was.
    Redacted,
}

/// `run.json`: what the folder is, for whom and for which turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "Run folder manifest (run.json)")]
#[schemars(transform = every_field_required)]
pub struct RunManifest {
    /// The folder layout's version (1).
    pub run_folder_version: u32,
    /// The run's id: the turn's stable key (a fresh UUID for a turn without one).
    pub run_id: String,
    pub session_id: String,
    /// The turn's number on the branch it was exported from (1 = the first).
    pub turn_number: u32,
    /// The turn's trace id, when the turn kept a trace.
    pub trace_id: Option<String>,
    /// When the turn began (RFC 3339, UTC).
    #[schemars(extend("format" = "date-time"))]
    pub started_at: String,
    /// How long the turn took, in ms.
    pub duration_ms: u64,
    /// `narratoria <version>` that wrote the folder.
    pub written_by: String,
    /// `redacted` when any file holds the redaction mark, else `full`.
    pub redaction_mode: RedactionMode,
    /// How many records each JSON Lines file holds, and how many spans the trace has.
    pub counts: RunCounts,
    /// The files of the folder, this one first.
    pub files: Vec<String>,
}

/// How many records the folder holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunCounts {
    pub spans: usize,
    pub events: usize,
    pub transcripts: usize,
}

/// One line of `events.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "Run event (a line of events.jsonl)")]
#[schemars(transform = every_field_required)]
pub struct RunEvent {
    pub run_id: String,
    /// 32 lowercase hex digits; null for a turn saved without a trace.
    #[schemars(regex(pattern = "^[0-9a-f]{32}$"))]
    pub trace_id: Option<String>,
    /// The span the event belongs to (16 lowercase hex digits); null when
    /// the event's span is not in the trace.
    #[schemars(regex(pattern = "^[0-9a-f]{16}$"))]
    pub span_id: Option<String>,
    /// When it happened (RFC 3339, UTC, ms): the trace's start plus `atMs`.
    #[schemars(extend("format" = "date-time"))]
    pub timestamp: String,
    /// When it happened, in ms on the trace's clock.
    pub at_ms: u64,
    /// `span_started`, `span_finished`, or a kept protocol event's `type`
    /// (`log`, `ui_event`, `state_patch`, `error`, `done`, `generation`, …).
    #[schemars(length(min = 1))]
    pub event_type: String,
    /// A span's kind, name, parent (and, when it finished, status, times
    /// and attributes), or the protocol event as the tool entry kept it.
    pub payload: Map<String, Value>,
    pub redaction_mode: RedactionMode,
}

/// Who asked a model to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CallSite {
    /// The planner writing a plan.
    Planner,
    /// A skill's `generate` request to the host's writer model.
    Writer,
}

/// How a model call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CallStatus {
    Ok,
    Error,
}

/// The tokens a call was given room for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(transform = every_field_required)]
pub struct CallBudget {
    /// The model's context, when known.
    pub max_context_tokens: Option<u32>,
    /// The most tokens the answer could take (`maxTokens` of a request).
    pub response_headroom_tokens: Option<u32>,
}

/// What a call cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(transform = every_field_required)]
pub struct CallUsage {
    pub input_tokens: u32,
    /// Prompt tokens served from the model's cache.
    pub cached_tokens: u32,
    pub output_tokens: u32,
    pub latency_ms: u64,
    /// Planner calls only.
    pub time_to_first_token_ms: Option<u64>,
}

/// Why a call failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(transform = every_field_required)]
pub struct CallError {
    pub code: Option<String>,
    pub message: String,
}

/// One line of `transcripts.jsonl`: one model call of the turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(title = "Run transcript (a line of transcripts.jsonl)")]
#[schemars(transform = every_field_required)]
pub struct RunTranscript {
    pub run_id: String,
    #[schemars(regex(pattern = "^[0-9a-f]{32}$"))]
    pub trace_id: Option<String>,
    /// The call's span: the attempt's planning, or the request's generate span.
    #[schemars(regex(pattern = "^[0-9a-f]{16}$"))]
    pub span_id: Option<String>,
    /// When the call began (RFC 3339, UTC).
    #[schemars(extend("format" = "date-time"))]
    pub timestamp: String,
    pub at_ms: u64,
    /// The turn's number.
    pub turn_index: u32,
    /// The plan attempt (1, 2, …).
    pub attempt: u32,
    pub call_site: CallSite,
    /// `rules`, `llama.cpp`, `openai` (an external server) or `host` (the
    /// writer lent to skills).
    pub provider: String,
    /// The model's file or name; null where the record does not say.
    pub model: Option<String>,
    pub status: CallStatus,
    /// Writer calls: the tool, its skill, the script run and the request's id.
    pub tool_id: Option<String>,
    pub skill: Option<String>,
    pub script_attempt: Option<u32>,
    pub request_id: Option<String>,
    /// The planner's whole prompt; null for writer calls (never kept).
    pub prompt_text: Option<String>,
    /// A hash of the prompt (SHA-256, hex; a writer request's: its first 8 bytes).
    pub prompt_hash: Option<String>,
    /// A writer request's number of messages.
    pub prompt_messages: Option<u32>,
    /// What the planner wrote; null for writer calls (not kept).
    pub response_text: Option<String>,
    /// How many characters a writer call wrote.
    pub response_characters: Option<u64>,
    pub budget: Option<CallBudget>,
    pub usage: Option<CallUsage>,
    pub finish_reason: Option<String>,
    pub error: Option<CallError>,
    pub redaction_mode: RedactionMode,
}
