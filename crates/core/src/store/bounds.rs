//! What a turn's records keep of what its scripts said: every text a
//! script chose (a failure code, an error message, a log line) within a
//! bound, and at most [`LOG_LINES`] log lines a tool, before anything is
//! stored — the plan attempts (their results and traces), the turn's trace
//! and the invocation records taken from it (docs/observability.md, "What
//! a record keeps"). A script that fails with a 400 KB code and six 1 MiB
//! log lines leaves records of a few KB, and `skills stats` prints them.

use serde_json::{Map, Value};

use super::AttemptRecord;
use crate::result::{ExecutionResult, ToolResult};
use crate::trace::TraceRecord;

/// The most characters of a failure code a record keeps (a script's own
/// code, such as `VALIDATION_ERROR`, or the host's).
pub const CODE_CHARS: usize = 64;

/// The most characters of any other text a record keeps: an error's
/// message, a plan's failure, a log line, a span's attribute.
pub const MESSAGE_CHARS: usize = 4096;

/// The most log lines a record keeps of one tool, all its attempts
/// together: the first ones; the rest are dropped, and one line in place
/// of the first dropped says how many (its `dropped` field counts them).
pub const LOG_LINES: usize = 50;

/// The most characters of one log line a record keeps.
pub const LOG_LINE_CHARS: usize = 1000;

/// Clips the string at `key` of `map`, if it is one, to `max` characters.
fn clip_field(map: &mut Map<String, Value>, key: &str, max: usize) {
    if let Some(Value::String(text)) = map.get_mut(key) {
        narratoria_lexicon::clip_in_place(text, max);
    }
}

/// `attempt` as it is stored: its result within the bounds
/// ([`bound_result`]) and its error within [`MESSAGE_CHARS`].
pub(crate) fn kept_attempt(attempt: &AttemptRecord) -> AttemptRecord {
    let mut kept = attempt.clone();
    if let Some(result) = &mut kept.result {
        bound_result(result);
    }
    if let Some(error) = &mut kept.error {
        narratoria_lexicon::clip_in_place(error, MESSAGE_CHARS);
    }
    kept
}

/// `trace` as it is stored: every text attribute of its spans within
/// [`MESSAGE_CHARS`], a `failureCode` within [`CODE_CHARS`].
pub(crate) fn kept_trace(trace: &TraceRecord) -> TraceRecord {
    let mut kept = trace.clone();
    bound_trace(&mut kept);
    kept
}

fn bound_trace(trace: &mut TraceRecord) {
    for span in &mut trace.spans {
        for (key, value) in span.attributes.iter_mut() {
            if let Value::String(text) = value {
                let max = if key == "failureCode" {
                    CODE_CHARS
                } else {
                    MESSAGE_CHARS
                };
                narratoria_lexicon::clip_in_place(text, max);
            }
        }
    }
}

/// Bounds what `result`'s scripts said: its failure, each tool's error and
/// events ([`bound_tool`]), its trace.
fn bound_result(result: &mut ExecutionResult) {
    if let Some(message) = &mut result.failure_message {
        narratoria_lexicon::clip_in_place(message, MESSAGE_CHARS);
    }
    for tool in &mut result.execution_trace {
        bound_tool(tool);
    }
    if let Some(trace) = &mut result.trace {
        bound_trace(trace);
    }
}

/// Bounds one tool's error (its code, its message) and events: an `error`
/// event's code and message, at most [`LOG_LINES`] log lines of at most
/// [`LOG_LINE_CHARS`] each, any other event's `message`.
fn bound_tool(tool: &mut ToolResult) {
    if let Some(error) = &mut tool.error {
        if let Some(code) = &mut error.code {
            narratoria_lexicon::clip_in_place(code, CODE_CHARS);
        }
        narratoria_lexicon::clip_in_place(&mut error.message, MESSAGE_CHARS);
    }
    let mut lines = 0;
    let mut dropped = 0;
    let mut first_dropped = None;
    let mut kept = Vec::with_capacity(tool.events.len());
    for mut event in std::mem::take(&mut tool.events) {
        match event.get("type").and_then(Value::as_str) {
            Some("log") if lines == LOG_LINES => {
                dropped += 1;
                first_dropped.get_or_insert((kept.len(), event));
                continue;
            }
            Some("log") => {
                lines += 1;
                clip_field(&mut event, "message", LOG_LINE_CHARS);
            }
            Some("error") => clip_field(&mut event, "code", CODE_CHARS),
            _ => {}
        }
        clip_field(&mut event, "message", MESSAGE_CHARS);
        kept.push(event);
    }
    if let Some((at, like)) = first_dropped {
        kept.insert(at, dropped_note(&like, dropped));
    }
    tool.events = kept;
}

/// The log line that stands in for `dropped` lines, the first of them
/// `like` (its attempt, trace and span kept, so it is placed where they
/// were).
fn dropped_note(like: &Map<String, Value>, dropped: usize) -> Map<String, Value> {
    let mut note = Map::new();
    for key in ["attempt", "traceId", "spanId"] {
        if let Some(v) = like.get(key) {
            note.insert(key.into(), v.clone());
        }
    }
    note.insert("type".into(), "log".into());
    note.insert("level".into(), "warn".into());
    note.insert(
        "message".into(),
        format!("{dropped} more log lines dropped: a record keeps {LOG_LINES} a tool").into(),
    );
    note.insert("dropped".into(), dropped.into());
    note
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::result::{ExecutionState, ToolError, ToolErrorType};
    use serde_json::json;

    /// A tool that failed as a hostile script does: a 400 KB code, a
    /// 500 KB message, and `lines` log lines of 1 MiB.
    pub(crate) fn flooding_tool(lines: usize) -> ToolResult {
        let code = "E".repeat(400_000);
        let message = "m".repeat(500_000);
        let line = "l".repeat(1024 * 1024);
        let mut events: Vec<Map<String, Value>> = (0..lines)
            .map(|_| {
                json!({"attempt": 1, "spanId": "s1", "type": "log", "level": "info", "message": line})
                    .as_object()
                    .unwrap()
                    .clone()
            })
            .collect();
        events.push(
            json!({"attempt": 1, "type": "error", "code": code, "message": message})
                .as_object()
                .unwrap()
                .clone(),
        );
        ToolResult {
            tool_id: "roll".into(),
            tool_path: Some("dice-roller/roll-dice".into()),
            skill: Some("dice-roller".into()),
            ok: false,
            state: ExecutionState::Failed,
            output: None,
            events,
            execution_time_ms: 5,
            span_id: None,
            started_at_ms: Some(0),
            retry_count: 0,
            error: Some(ToolError {
                error_type: ToolErrorType::ScriptError,
                message,
                exit_code: Some(1),
                code: Some(code),
                recoverable: false,
            }),
            stderr: String::new(),
        }
    }

    #[test]
    fn a_tools_code_message_and_log_lines_are_kept_within_their_bounds() {
        let mut tool = flooding_tool(LOG_LINES + 12);
        tool.events[0].insert("message".into(), json!("short and kept"));
        bound_tool(&mut tool);
        let error = tool.error.as_ref().unwrap();
        assert_eq!(error.code.as_ref().unwrap().chars().count(), CODE_CHARS);
        assert_eq!(error.message.chars().count(), MESSAGE_CHARS);
        let logs: Vec<&Map<String, Value>> =
            tool.events.iter().filter(|e| e["type"] == "log").collect();
        assert_eq!(logs.len(), LOG_LINES + 1, "the lines kept, then the note");
        assert_eq!(logs[0]["message"], "short and kept");
        assert_eq!(
            logs[1]["message"].as_str().unwrap().chars().count(),
            LOG_LINE_CHARS
        );
        let note = logs[LOG_LINES];
        assert_eq!(
            note["message"],
            "12 more log lines dropped: a record keeps 50 a tool"
        );
        assert_eq!(
            (note["dropped"].clone(), note["spanId"].clone()),
            (json!(12), json!("s1"))
        );
        let error_event = tool.events.last().unwrap();
        assert_eq!(error_event["type"], "error", "order kept");
        assert!(error_event["code"].as_str().unwrap().chars().count() <= CODE_CHARS);
        assert!(serde_json::to_string(&tool).unwrap().len() < 80_000);
    }

    #[test]
    fn a_few_short_lines_are_kept_as_they_were() {
        let mut tool = flooding_tool(3);
        for event in &mut tool.events {
            event.insert("message".into(), json!("fine"));
            event.insert("code".into(), json!("VALIDATION_ERROR"));
        }
        tool.error = None;
        let before = tool.clone();
        bound_tool(&mut tool);
        assert_eq!(tool, before);
    }
}
