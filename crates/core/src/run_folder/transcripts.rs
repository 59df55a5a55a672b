//! `transcripts.jsonl`: every model call of the turn — each attempt's
//! planner call (its prompt, what it wrote, tokens and timings) and each
//! `generate` request a skill made of the host's writer (its prompt's hash,
//! never its text; usage, finish reason or error).

use serde_json::{Map, Value};

use super::records::{
    CallBudget, CallError, CallSite, CallStatus, CallUsage, RedactionMode, RunTranscript,
};
use super::Clock;
use crate::store::{AttemptRecord, TurnRecord};
use crate::time::rfc3339;
use crate::trace::{Span, SpanKind};

/// Every model call of `turn`, by attempt: the planner's first, then the
/// writer's requests in the order the tools kept them.
pub(super) fn transcripts(run_id: &str, turn: &TurnRecord, clock: &Clock) -> Vec<RunTranscript> {
    let mut out = Vec::new();
    for attempt in &turn.attempts {
        out.push(planner_call(run_id, turn.number, attempt, clock));
        for tool in attempt.result.iter().flat_map(|r| &r.execution_trace) {
            let tool_start = tool.started_at_ms.unwrap_or(0);
            for event in &tool.events {
                if event.get("type").and_then(Value::as_str) != Some("generation") {
                    continue;
                }
                let mut call = writer_call(run_id, turn.number, attempt.attempt, event, clock);
                call.tool_id = Some(tool.tool_id.clone());
                call.skill = tool.skill.clone();
                if call.span_id.is_none() {
                    // No span to time it by: the request's own time into the tool.
                    call.at_ms = tool_start + number(event, "atMs");
                    call.timestamp = rfc3339(clock.origin_ms.saturating_add(call.at_ms));
                }
                out.push(call);
            }
        }
    }
    out
}

/// A blank record of a call at `span` (or at 0 without one).
fn call(
    run_id: &str,
    turn: u32,
    attempt: u32,
    site: CallSite,
    span: Option<&Span>,
    clock: &Clock,
) -> RunTranscript {
    let at_ms = span.map_or(0, |s| s.start_ms);
    RunTranscript {
        run_id: run_id.to_string(),
        trace_id: clock.trace_id(),
        span_id: span.map(|s| s.span_id.clone()),
        timestamp: rfc3339(clock.origin_ms.saturating_add(at_ms)),
        at_ms,
        turn_index: turn,
        attempt,
        call_site: site,
        provider: String::new(),
        model: None,
        status: CallStatus::Ok,
        tool_id: None,
        skill: None,
        script_attempt: None,
        request_id: None,
        prompt_text: None,
        prompt_hash: None,
        prompt_messages: None,
        response_text: None,
        response_characters: None,
        budget: None,
        usage: None,
        finish_reason: None,
        error: None,
        redaction_mode: RedactionMode::Full,
    }
}

/// The planner's call of one attempt, timed by the attempt's planning span.
fn planner_call(run_id: &str, turn: u32, a: &AttemptRecord, clock: &Clock) -> RunTranscript {
    let span = planning_span(clock, a.attempt);
    let mut rec = call(run_id, turn, a.attempt, CallSite::Planner, span, clock);
    let name = a
        .transcript
        .as_ref()
        .map(|t| t.planner.clone())
        .or_else(|| {
            span.and_then(|s| s.attributes.get("planner"))
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .unwrap_or_default();
    (rec.provider, rec.model) = provider_of(&name);
    if let Some(t) = &a.transcript {
        rec.prompt_text = Some(t.prompt.clone());
        rec.prompt_hash = Some(t.prompt_hash.clone()).filter(|h| !h.is_empty());
        rec.response_text = Some(t.response.clone());
        rec.usage = Some(CallUsage {
            input_tokens: t.prompt_tokens,
            cached_tokens: t.cached_tokens,
            output_tokens: t.completion_tokens,
            latency_ms: t.total_ms,
            time_to_first_token_ms: Some(t.time_to_first_token_ms),
        });
    }
    if let Some(message) = &a.error {
        rec.status = CallStatus::Error;
        rec.error = Some(CallError {
            code: None,
            message: message.clone(),
        });
    }
    rec
}

/// The planning span of attempt `attempt`.
fn planning_span(clock: &Clock, attempt: u32) -> Option<&Span> {
    let trace = &clock.trace;
    let of_attempt = trace.spans.iter().find(|s| {
        s.kind == SpanKind::Attempt
            && s.attributes.get("attempt").and_then(Value::as_u64) == Some(u64::from(attempt))
    })?;
    trace
        .children(&of_attempt.span_id)
        .find(|s| s.kind == SpanKind::Planning)
}

/// Who planned, from the planner's name: `rules`, `openai:MODEL@HOST` (an
/// external server) or a model file run by llama.cpp.
fn provider_of(planner: &str) -> (String, Option<String>) {
    if planner == "rules" {
        return ("rules".into(), None);
    }
    if let Some(model) = planner.strip_prefix("openai:") {
        return ("openai".into(), Some(model.to_string()));
    }
    if planner.is_empty() {
        return ("unknown".into(), None);
    }
    ("llama.cpp".into(), Some(planner.to_string()))
}

/// A writer call from the `generation` record a tool entry kept.
fn writer_call(
    run_id: &str,
    turn: u32,
    attempt: u32,
    event: &Map<String, Value>,
    clock: &Clock,
) -> RunTranscript {
    let span = event
        .get("spanId")
        .and_then(Value::as_str)
        .and_then(|id| clock.trace.span(id));
    let mut rec = call(run_id, turn, attempt, CallSite::Writer, span, clock);
    let text = |k: &str| event.get(k).and_then(Value::as_str).map(str::to_string);
    rec.provider = "host".into();
    rec.script_attempt = event.get("attempt").and_then(Value::as_u64).map(clamp);
    rec.request_id = text("id");
    rec.prompt_hash = text("promptHash");
    rec.prompt_messages = event.get("messages").and_then(Value::as_u64).map(clamp);
    rec.response_characters = event.get("characters").and_then(Value::as_u64);
    rec.finish_reason = text("finishReason");
    rec.budget = event
        .get("maxTokens")
        .and_then(Value::as_u64)
        .map(|m| CallBudget {
            max_context_tokens: None,
            response_headroom_tokens: Some(clamp(m)),
        });
    rec.usage = event
        .get("usage")
        .and_then(Value::as_object)
        .map(|u| CallUsage {
            input_tokens: clamp(number(u, "promptTokens")),
            cached_tokens: clamp(number(u, "cachedTokens")),
            output_tokens: clamp(number(u, "completionTokens")),
            latency_ms: number(u, "ms"),
            time_to_first_token_ms: None,
        });
    if let Some(error) = event.get("error") {
        rec.status = CallStatus::Error;
        rec.error = Some(CallError {
            code: error
                .get("code")
                .and_then(Value::as_str)
                .map(str::to_string),
            message: error
                .get("message")
                .and_then(Value::as_str)
                .map_or_else(|| error.to_string(), str::to_string),
        });
    }
    rec
}

fn number(map: &Map<String, Value>, key: &str) -> u64 {
    map.get(key).and_then(Value::as_u64).unwrap_or(0)
}

fn clamp(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
