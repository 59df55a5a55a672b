//! The events a script writes on stdout, one JSON object per line. They
//! serialise to the wire form, so a script can write them; the engine reads
//! them with [`crate::parse_line`].

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::failure::FailureCode;
use crate::generate::GenerateRequest;

/// One event a script wrote to stdout.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
#[schemars(title = "Script event (a script's stdout line)")]
pub enum Event {
    /// Shown in the trace and the inspector.
    Log { level: LogLevel, message: String },
    /// Deep-merged into session state, only if the attempt succeeds.
    StatePatch { patch: Map<String, Value> },
    /// Shown or played by the UI.
    Asset(Asset),
    /// Forwarded live to the UI.
    UiEvent {
        event: String,
        #[serde(default)]
        payload: Map<String, Value>,
    },
    /// A failure, with its code.
    Error(ScriptError),
    /// The last event of an attempt, exactly once.
    Done {
        ok: bool,
        /// Any JSON.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        output: Option<Value>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        summary: Option<String>,
    },
    /// A request for text from the host's model (`narratoria/1.1`; only a
    /// skill that declares the `generate` capability may send it).
    Generate(GenerateRequest),
    /// Stops the `generate` request `id` if it is still being written: its
    /// reply ends with what was written so far (`finishReason:
    /// "cancelled"`). An addition to `narratoria/1.1` (docs/protocol.md,
    /// "Host generation"): a script that has the answer it needs, or has
    /// turned one down, need not wait for the rest.
    Cancel { id: String },
}

/// Severity of a `log` event.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    Debug,
    Info,
    Warn,
    Error,
}

/// Kind of an `asset` event.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AssetKind {
    Image,
    Audio,
    Text,
    File,
}

/// An `asset` event's fields. `path` or `url` is required; a `path` must
/// stay inside the skill folder or its data folder.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(extend("anyOf" = [{"required": ["path"]}, {"required": ["url"]}]))]
pub struct Asset {
    pub asset_id: String,
    pub kind: AssetKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
}

/// An `error` event's fields.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScriptError {
    /// A failure code (`VALIDATION_ERROR`, `NOT_FOUND`, `UNAUTHORIZED`,
    /// `RATE_EXCEEDED`, `TIMEOUT`, `PERSISTENCE_ERROR`,
    /// `EXTERNAL_SERVICE_ERROR`, `INTERNAL_ERROR`); codes the protocol does
    /// not define are kept as text.
    pub code: String,
    pub message: String,
    /// `false` means the executor must not retry the attempt.
    #[serde(default = "recoverable_by_default")]
    pub recoverable: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

/// An `error` event that leaves out `recoverable` asks to be retried: a
/// script that forgets the field gets the safe reading.
fn recoverable_by_default() -> bool {
    true
}

impl ScriptError {
    /// The code, when the protocol defines it.
    pub fn failure_code(&self) -> Option<FailureCode> {
        FailureCode::parse(&self.code)
    }
}

impl From<GenerateRequest> for Event {
    fn from(request: GenerateRequest) -> Event {
        Event::Generate(request)
    }
}

impl Event {
    /// The event as one wire line, without the newline.
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).expect("an event always serialises")
    }
}
