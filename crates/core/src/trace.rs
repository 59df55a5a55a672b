//! A turn's trace (docs/observability.md): one trace id per turn and a span
//! for each of its steps — each plan attempt, its generation, the executor's
//! run of it, each tool, each script process, each host `generate` request
//! and the turn's memory — with parent links, all timed on one clock (ms
//! since the trace began). A plan run outside a turn is a trace of its own.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use ts_rs::TS;
use uuid::Uuid;

/// What a span stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum SpanKind {
    /// The whole turn: the trace's root.
    Turn,
    /// One plan attempt: its generation and its execution.
    Attempt,
    /// The planner writing one plan.
    Planning,
    /// The executor running one plan.
    Execution,
    /// One tool of a plan, all its attempts and backoff included.
    Tool,
    /// One run of a tool's script (one attempt): one process.
    Script,
    /// One `generate` request a script made of the host's model.
    Generate,
    /// The turn's memory: the memory skill keeping the told turn.
    Memory,
}

/// How a span ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum SpanStatus {
    Ok,
    Error,
    /// Never ran (a dependency failed, time ran out, the player stopped it).
    Skipped,
}

/// One timed step of a trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct Span {
    /// 16 lowercase hex digits, unique in its trace.
    pub span_id: String,
    /// The span this one is part of; `None` for the trace's root.
    #[serde(default)]
    pub parent_span_id: Option<String>,
    pub kind: SpanKind,
    /// What ran: `turn`, `attempt 2`, a toolId, a script's name…
    pub name: String,
    /// When it began, in ms since the trace began.
    pub start_ms: u64,
    /// When it ended, in ms since the trace began (≥ `startMs`).
    pub end_ms: u64,
    pub status: SpanStatus,
    /// What the span's kind records (docs/observability.md lists them).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    #[ts(type = "Record<string, unknown>")]
    pub attributes: Map<String, Value>,
}

/// A finished trace: its id and every span, ordered by start.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub struct TraceRecord {
    /// 32 lowercase hex digits.
    pub trace_id: String,
    /// When the trace began, in ms since the Unix epoch (wall clock): a
    /// span's own time is this plus its `startMs`.
    #[serde(default)]
    pub started_at_unix_ms: u64,
    pub spans: Vec<Span>,
}

impl TraceRecord {
    /// The span with id `id`.
    pub fn span(&self, id: &str) -> Option<&Span> {
        self.spans.iter().find(|s| s.span_id == id)
    }

    /// The spans whose parent is `id`, in start order.
    pub fn children<'a>(&'a self, id: &'a str) -> impl Iterator<Item = &'a Span> + 'a {
        self.spans
            .iter()
            .filter(move |s| s.parent_span_id.as_deref() == Some(id))
    }

    /// The root spans (normally one: the turn, or the execution of a plan
    /// run on its own).
    pub fn roots(&self) -> impl Iterator<Item = &Span> {
        self.spans.iter().filter(|s| s.parent_span_id.is_none())
    }
}

/// A trace being recorded; clones share it.
#[derive(Clone)]
pub struct Trace {
    book: Arc<Book>,
}

struct Book {
    id: String,
    origin: Instant,
    /// `origin` on the wall clock, ms since the Unix epoch.
    wall_origin_ms: u64,
    spans: Mutex<Vec<Span>>,
}

impl std::fmt::Debug for Trace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Trace").field("id", &self.book.id).finish()
    }
}

/// A new span id: 16 lowercase hex digits.
pub fn new_span_id() -> String {
    let bytes = Uuid::new_v4();
    bytes.as_bytes()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl Trace {
    /// A new trace whose clock starts now.
    pub fn start() -> Trace {
        Trace::starting_at(Instant::now())
    }

    /// A new trace whose clock started at `origin`.
    pub fn starting_at(origin: Instant) -> Trace {
        let since_epoch = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .saturating_sub(origin.elapsed());
        Trace {
            book: Arc::new(Book {
                id: Uuid::new_v4().simple().to_string(),
                origin,
                wall_origin_ms: u64::try_from(since_epoch.as_millis()).unwrap_or(0),
                spans: Mutex::new(Vec::new()),
            }),
        }
    }

    /// The trace's id.
    pub fn id(&self) -> &str {
        &self.book.id
    }

    /// `at` on the trace's clock (0 for anything before it began).
    pub fn ms_at(&self, at: Instant) -> u64 {
        u64::try_from(at.saturating_duration_since(self.book.origin).as_millis())
            .unwrap_or(u64::MAX)
    }

    /// Now on the trace's clock.
    pub fn now_ms(&self) -> u64 {
        self.ms_at(Instant::now())
    }

    /// Begins a span of `kind` under `parent`, now.
    pub fn open(&self, kind: SpanKind, name: impl Into<String>, parent: Option<&str>) -> OpenSpan {
        OpenSpan {
            trace: self.clone(),
            span: Span {
                span_id: new_span_id(),
                parent_span_id: parent.map(str::to_string),
                kind,
                name: name.into(),
                start_ms: self.now_ms(),
                end_ms: 0,
                status: SpanStatus::Ok,
                attributes: Map::new(),
            },
        }
    }

    /// Keeps a finished span (its end is raised to its start if earlier).
    pub fn record(&self, mut span: Span) {
        span.end_ms = span.end_ms.max(span.start_ms);
        crate::sync::lock(&self.book.spans).push(span);
    }

    /// Every span kept so far, ordered by start; of spans starting in the
    /// same millisecond, a span before those it holds.
    pub fn record_so_far(&self) -> TraceRecord {
        let mut spans = crate::sync::lock(&self.book.spans).clone();
        let parents: std::collections::HashMap<String, Option<String>> = spans
            .iter()
            .map(|s| (s.span_id.clone(), s.parent_span_id.clone()))
            .collect();
        let depth = |s: &Span| {
            let mut d = 0usize;
            let mut at = s.parent_span_id.as_ref();
            while let Some(p) = at {
                d += 1;
                if d > parents.len() {
                    break; // a loop in the links: not from this type
                }
                at = parents.get(p).and_then(Option::as_ref);
            }
            d
        };
        spans.sort_by_cached_key(|s| (s.start_ms, depth(s)));
        TraceRecord {
            trace_id: self.book.id.clone(),
            started_at_unix_ms: self.book.wall_origin_ms,
            spans,
        }
    }

    /// The spans kept so far under `root` (itself included), ordered by start.
    pub fn subtree(&self, root: &str) -> Vec<Span> {
        let all = self.record_so_far();
        let mut keep: Vec<&str> = vec![root];
        let mut out = Vec::new();
        // Spans are kept when they end, children before their parents, so
        // walk from the root down until nothing new joins.
        loop {
            let before = keep.len();
            for s in &all.spans {
                let id = s.span_id.as_str();
                if !keep.contains(&id)
                    && s.parent_span_id
                        .as_deref()
                        .is_some_and(|p| keep.contains(&p))
                {
                    keep.push(id);
                }
            }
            if keep.len() == before {
                break;
            }
        }
        for s in &all.spans {
            if keep.contains(&s.span_id.as_str()) {
                out.push(s.clone());
            }
        }
        out
    }
}

/// A span that has begun; kept in its trace when closed. One dropped
/// without closing is kept as an error.
pub struct OpenSpan {
    trace: Trace,
    span: Span,
}

impl OpenSpan {
    /// The span's id, for its children.
    pub fn id(&self) -> &str {
        &self.span.span_id
    }

    /// When it began, on the trace's clock.
    pub fn start_ms(&self) -> u64 {
        self.span.start_ms
    }

    /// The trace it belongs to.
    pub fn trace(&self) -> &Trace {
        &self.trace
    }

    /// Sets attribute `key`.
    pub fn set(&mut self, key: &str, value: impl Into<Value>) {
        self.span.attributes.insert(key.to_string(), value.into());
    }

    /// Ends the span now with `status`.
    pub fn close(mut self, status: SpanStatus) {
        self.span.status = status;
        self.keep();
    }

    fn keep(&mut self) {
        if self.span.end_ms == u64::MAX {
            return;
        }
        let mut span = self.span.clone();
        span.end_ms = self.trace.now_ms();
        self.trace.record(span);
        // Kept once.
        self.span.end_ms = u64::MAX;
    }
}

impl Drop for OpenSpan {
    fn drop(&mut self) {
        if self.span.end_ms != u64::MAX {
            self.span.status = SpanStatus::Error;
            self.keep();
        }
    }
}

/// Where a plan's spans go: a trace and the span they are part of.
#[derive(Debug, Clone)]
pub struct SpanParent {
    pub trace: Trace,
    pub span_id: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_have_their_lengths_and_differ() {
        let t = Trace::start();
        assert_eq!(t.id().len(), 32);
        assert!(t.id().chars().all(|c| c.is_ascii_hexdigit()));
        let (a, b) = (new_span_id(), new_span_id());
        assert_eq!(a.len(), 16);
        assert_ne!(a, b);
    }

    #[test]
    fn spans_nest_and_close_once() {
        let t = Trace::start();
        let root = t.open(SpanKind::Turn, "turn", None);
        let root_id = root.id().to_string();
        let mut child = t.open(SpanKind::Attempt, "attempt 1", Some(&root_id));
        child.set("attempt", 1);
        let child_id = child.id().to_string();
        child.close(SpanStatus::Ok);
        let unrelated = t.open(SpanKind::Execution, "other", None);
        drop(unrelated);
        root.close(SpanStatus::Ok);
        let rec = t.record_so_far();
        assert_eq!(rec.spans.len(), 3);
        let at = |id: &str| rec.spans.iter().position(|s| s.span_id == id).unwrap();
        assert!(
            at(&root_id) < at(&child_id),
            "a span comes before those it holds"
        );
        assert_eq!(rec.roots().count(), 2);
        let kids: Vec<_> = rec.children(&root_id).collect();
        assert_eq!(kids.len(), 1);
        assert_eq!(kids[0].attributes["attempt"], 1);
        assert_eq!(rec.span(&child_id).unwrap().status, SpanStatus::Ok);
        let dropped = rec.spans.iter().find(|s| s.name == "other").unwrap();
        assert_eq!(
            dropped.status,
            SpanStatus::Error,
            "dropped unclosed is an error"
        );
        let sub = t.subtree(&root_id);
        assert_eq!(sub.len(), 2);
        assert!(sub.iter().all(|s| s.name != "other"));
    }

    #[test]
    fn a_recorded_span_never_ends_before_it_starts() {
        let t = Trace::start();
        t.record(Span {
            span_id: new_span_id(),
            parent_span_id: None,
            kind: SpanKind::Script,
            name: "x".into(),
            start_ms: 50,
            end_ms: 10,
            status: SpanStatus::Error,
            attributes: Map::new(),
        });
        let s = &t.record_so_far().spans[0];
        assert_eq!((s.start_ms, s.end_ms), (50, 50));
    }
}
