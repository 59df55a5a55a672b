//! The live updates a running plan streams to the UI and the CLI.

use serde::Serialize;
use serde_json::{Map, Value};
use tokio::sync::mpsc::UnboundedSender;

use crate::result::{ExecutionState, ToolError, ToolResult};

/// A live update while a plan runs, for the UI and the CLI.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum ExecEvent {
    #[serde(rename_all = "camelCase")]
    PlanStarted {
        plan_id: String,
        tool_ids: Vec<String>,
    },
    #[serde(rename_all = "camelCase")]
    ToolStarted { tool_id: String, attempt: u32 },
    /// A protocol event a script emitted, as it arrived.
    #[serde(rename_all = "camelCase")]
    ToolEvent {
        tool_id: String,
        attempt: u32,
        event: Map<String, Value>,
    },
    #[serde(rename_all = "camelCase")]
    ToolRetrying {
        tool_id: String,
        next_attempt: u32,
        delay_ms: u64,
        error: ToolError,
    },
    #[serde(rename_all = "camelCase")]
    ToolFinished {
        tool_id: String,
        state: ExecutionState,
        retry_count: u32,
        execution_time_ms: u64,
        error: Option<ToolError>,
    },
    #[serde(rename_all = "camelCase")]
    PlanFinished { plan_id: String, success: bool },
}

/// Where live events go.
pub type EventSink = UnboundedSender<ExecEvent>;

/// Sends `ev` if anyone listens; a listener that went away is not an error.
pub(super) fn emit(sink: &Option<EventSink>, ev: ExecEvent) {
    if let Some(s) = sink {
        let _ = s.send(ev);
    }
}

/// Announces a tool's final state.
pub(super) fn emit_finished(sink: &Option<EventSink>, t: &ToolResult) {
    emit(
        sink,
        ExecEvent::ToolFinished {
            tool_id: t.tool_id.clone(),
            state: t.state,
            retry_count: t.retry_count,
            execution_time_ms: t.execution_time_ms,
            error: t.error.clone(),
        },
    );
}
