//! `events.jsonl`: a start and a finish record for every span of the turn's
//! trace and every protocol event its tool entries kept, in time order.
//!
//! A protocol event carries no time of its own: the host has a script run's
//! events when the run ends, so each is placed at the end of its span (a
//! script run's, or for a `generation` record its generate span's), after
//! the span's children and before its finish, in the order it was kept.
//! Records at the same ms keep the order of a walk of the span tree, so a
//! span's start always comes before its events and its finish.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::records::{RedactionMode, RunEvent};
use super::Clock;
use crate::store::TurnRecord;
use crate::time::rfc3339;
use crate::trace::{Span, TraceRecord};

/// One protocol event as a tool entry kept it.
struct Kept<'a> {
    span: Option<String>,
    /// When it is placed if its span is not in the trace.
    fallback_ms: u64,
    event: &'a Map<String, Value>,
}

/// The events of one run, as they are put down.
struct Timeline<'a> {
    run_id: &'a str,
    clock: &'a Clock,
    out: Vec<RunEvent>,
}

impl Timeline<'_> {
    /// Puts down an event of `span` at `at_ms`.
    fn push(&mut self, at_ms: u64, span: Option<&str>, kind: String, payload: Map<String, Value>) {
        self.out.push(RunEvent {
            run_id: self.run_id.to_string(),
            trace_id: self.clock.trace_id(),
            span_id: span.map(str::to_string),
            timestamp: rfc3339(self.clock.origin_ms.saturating_add(at_ms)),
            at_ms,
            event_type: kind,
            payload,
            redaction_mode: RedactionMode::Full,
        });
    }

    /// Puts down a kept protocol event of `span` at `at_ms`.
    fn kept(&mut self, at_ms: u64, span: Option<&str>, k: &Kept) {
        self.push(at_ms, span, type_of(k.event), payload(k.event));
    }
}

/// Every event of `turn` on `clock`, in time order.
pub(super) fn events(run_id: &str, turn: &TurnRecord, clock: &Clock) -> Vec<RunEvent> {
    let kept = kept_events(turn);
    let mut by_span: HashMap<&str, Vec<&Kept>> = HashMap::new();
    let mut unplaced = Vec::new();
    for k in &kept {
        match k.span.as_deref().filter(|s| clock.trace.span(s).is_some()) {
            Some(span) => by_span.entry(span).or_default().push(k),
            None => unplaced.push(k),
        }
    }
    let mut line = Timeline {
        run_id,
        clock,
        out: Vec::new(),
    };
    for step in walk(&clock.trace) {
        match step {
            Step::Start(s) => line.push(
                s.start_ms,
                Some(&s.span_id),
                "span_started".into(),
                started(s),
            ),
            Step::Finish(s) => {
                for k in by_span.get(s.span_id.as_str()).into_iter().flatten() {
                    line.kept(s.end_ms, Some(&s.span_id), k);
                }
                line.push(
                    s.end_ms,
                    Some(&s.span_id),
                    "span_finished".into(),
                    finished(s),
                );
            }
        }
    }
    for k in unplaced {
        line.kept(k.fallback_ms, k.span.as_deref(), k);
    }
    // Stable: records at the same ms keep the walk's order.
    let mut out = line.out;
    out.sort_by_key(|e| e.at_ms);
    out
}

/// The protocol events every attempt's tool entries kept, with their spans.
fn kept_events(turn: &TurnRecord) -> Vec<Kept<'_>> {
    let mut out = Vec::new();
    for attempt in &turn.attempts {
        for tool in attempt.result.iter().flat_map(|r| &r.execution_trace) {
            let fallback_ms = tool.started_at_ms.unwrap_or(0) + tool.execution_time_ms;
            for event in &tool.events {
                let span = event
                    .get("spanId")
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .or_else(|| tool.span_id.clone());
                out.push(Kept {
                    span,
                    fallback_ms,
                    event,
                });
            }
        }
    }
    out
}

/// A step of the walk over the span tree.
pub(super) enum Step<'a> {
    Start(&'a Span),
    Finish(&'a Span),
}

/// The spans as a depth-first walk: a span's start, its children's walks
/// (by start), its finish. Spans whose parent is missing (or who are caught
/// in a cycle of parents) are walked as roots.
pub(super) fn walk(trace: &TraceRecord) -> Vec<Step<'_>> {
    let ids: HashSet<&str> = trace.spans.iter().map(|s| s.span_id.as_str()).collect();
    let mut children: HashMap<&str, Vec<&Span>> = HashMap::new();
    let mut roots = Vec::new();
    for s in &trace.spans {
        match s.parent_span_id.as_deref().filter(|p| ids.contains(p)) {
            Some(p) => children.entry(p).or_default().push(s),
            None => roots.push(s),
        }
    }
    let mut seen: HashSet<&str> = HashSet::new();
    let mut out = Vec::with_capacity(trace.spans.len() * 2);
    let mut pending: Vec<&Span> = roots;
    pending.extend(trace.spans.iter()); // whatever no root reaches
    for root in pending {
        let mut stack = vec![(root, false)];
        while let Some((span, done)) = stack.pop() {
            if done {
                out.push(Step::Finish(span));
                continue;
            }
            if !seen.insert(span.span_id.as_str()) {
                continue;
            }
            out.push(Step::Start(span));
            stack.push((span, true));
            let kids = children.get(span.span_id.as_str());
            for kid in kids.into_iter().flatten().rev() {
                stack.push((kid, false));
            }
        }
    }
    out
}

fn kind_name(span: &Span) -> Value {
    serde_json::to_value(span.kind).unwrap_or(Value::Null)
}

/// A span's start: its kind, name and parent.
fn started(span: &Span) -> Map<String, Value> {
    let mut p = Map::new();
    p.insert("kind".into(), kind_name(span));
    p.insert("name".into(), span.name.clone().into());
    p.insert("parentSpanId".into(), span.parent_span_id.clone().into());
    p
}

/// A span's finish: its start's fields, how it ended, its times and attributes.
fn finished(span: &Span) -> Map<String, Value> {
    let mut p = started(span);
    p.insert(
        "status".into(),
        serde_json::to_value(span.status).unwrap_or(Value::Null),
    );
    p.insert("startMs".into(), span.start_ms.into());
    p.insert("endMs".into(), span.end_ms.into());
    p.insert(
        "durationMs".into(),
        span.end_ms.saturating_sub(span.start_ms).into(),
    );
    p.insert("attributes".into(), Value::Object(span.attributes.clone()));
    p
}

/// A protocol event's `type` (`unknown` when it has none).
fn type_of(event: &Map<String, Value>) -> String {
    event
        .get("type")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .unwrap_or("unknown")
        .to_string()
}

/// A kept event without the ids its record already carries.
fn payload(event: &Map<String, Value>) -> Map<String, Value> {
    let mut p = event.clone();
    p.remove("traceId");
    p.remove("spanId");
    p
}
