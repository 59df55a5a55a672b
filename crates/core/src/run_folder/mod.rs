//! A turn's run folder (docs/observability.md, "A turn's run folder"): one
//! played turn written out for a bug report, as seed 004 lays it out —
//! `run.json` (what it is, `runFolderVersion`), `events.jsonl` (every span's
//! start and finish and every kept protocol event, in time order),
//! `transcripts.jsonl` (every model call), `result.json` (the turn as saved)
//! and `summary.md` (the turn for people).
//!
//! [`build`] does no I/O; [`RunFolder::write`] is the one function that
//! does. Every record passes through the scrub of the skills' secret values
//! given to [`build`], and the write refuses a file one of whose texts still
//! holds one.

mod events;
mod records;
mod summary;
#[cfg(test)]
mod tests;
mod transcripts;
mod write;

use serde::Serialize;
use serde_json::Value;

use crate::skills::config::{scrub, scrub_text, MIN_SCRUBBED_LEN, REDACTED};
use crate::store::TurnRecord;
use crate::trace::TraceRecord;

pub use records::{
    CallBudget, CallError, CallSite, CallStatus, CallUsage, RedactionMode, RunCounts, RunEvent,
    RunManifest, RunTranscript, RUN_FOLDER_VERSION,
};
pub use write::RunFolderError;

/// A turn's run folder, built and scrubbed, ready to be written.
#[derive(Debug, Clone)]
pub struct RunFolder {
    /// The run's id (see [`RunManifest::run_id`]).
    pub run_id: String,
    /// `run.json`: a [`RunManifest`].
    pub manifest: Value,
    /// `events.jsonl`: one [`RunEvent`] each.
    pub events: Vec<Value>,
    /// `transcripts.jsonl`: one [`RunTranscript`] each.
    pub transcripts: Vec<Value>,
    /// `result.json`: the turn as saved, with the run's and session's ids.
    pub result: Value,
    /// `summary.md`.
    pub summary: String,
    /// What no file may hold.
    secrets: Vec<String>,
}

/// The trace a turn's records are timed by, and where its clock began.
pub(crate) struct Clock {
    trace: TraceRecord,
    /// The trace's start, ms since the Unix epoch.
    origin_ms: u64,
}

impl Clock {
    /// The turn's whole trace; for a turn saved without it, the spans its
    /// attempts' results kept; for one with neither, no spans, on a clock
    /// that starts when the turn did (its save time less its duration).
    fn of(turn: &TurnRecord) -> Clock {
        if let Some(trace) = &turn.trace {
            return Clock {
                origin_ms: trace.started_at_unix_ms,
                trace: trace.clone(),
            };
        }
        let mut trace = TraceRecord::default();
        for t in turn
            .attempts
            .iter()
            .filter_map(|a| a.result.as_ref()?.trace.as_ref())
        {
            if trace.trace_id.is_empty() {
                trace.trace_id = t.trace_id.clone();
                trace.started_at_unix_ms = t.started_at_unix_ms;
            }
            for s in &t.spans {
                if trace.span(&s.span_id).is_none() {
                    trace.spans.push(s.clone());
                }
            }
        }
        trace.spans.sort_by_key(|s| s.start_ms);
        let origin_ms = if trace.trace_id.is_empty() {
            crate::time::parse_rfc3339(&turn.created_at)
                .map_or(0, |saved| saved.saturating_sub(turn.duration_ms))
        } else {
            trace.started_at_unix_ms
        };
        Clock { trace, origin_ms }
    }

    /// The trace's id, when there is one.
    fn trace_id(&self) -> Option<String> {
        Some(self.trace.trace_id.clone()).filter(|id| !id.is_empty())
    }
}

/// Builds the run folder of `turn` of session `session`. `secrets` are the
/// values of the skills' secret settings: every one of
/// [`MIN_SCRUBBED_LEN`] bytes or more (the scrub's rule for a script's
/// output) is replaced by the redaction mark in every text of every record,
/// and [`RunFolder::write`] refuses a file one of whose texts still holds
/// one. The run's id is the turn's key (a fresh UUID for a turn without one).
pub fn build(session: &str, turn: &TurnRecord, secrets: &[String]) -> RunFolder {
    let secrets: Vec<String> = secrets
        .iter()
        .filter(|s| s.len() >= MIN_SCRUBBED_LEN)
        .cloned()
        .collect();
    let run_id = if turn.id.is_empty() {
        uuid::Uuid::new_v4().to_string()
    } else {
        turn.id.clone()
    };
    let clock = Clock::of(turn);
    let events: Vec<Value> = events::events(&run_id, turn, &clock)
        .iter()
        .map(|e| sealed(e, &secrets))
        .collect();
    let transcripts: Vec<Value> = transcripts::transcripts(&run_id, turn, &clock)
        .iter()
        .map(|t| sealed(t, &secrets))
        .collect();
    let mut result = serde_json::json!({ "runId": run_id, "sessionId": session, "turn": turn });
    scrub(&mut result, &secrets);
    let mut summary = summary::summary(&run_id, session, turn, &clock);
    scrub_text(&mut summary, &secrets);
    let redacted = [&result]
        .into_iter()
        .chain(&events)
        .chain(&transcripts)
        .any(marked)
        || summary.contains(REDACTED);
    let counts = RunCounts {
        spans: clock.trace.spans.len(),
        events: events.len(),
        transcripts: transcripts.len(),
    };
    let mut manifest = manifest(&run_id, session, turn, &clock, redacted, counts);
    scrub(&mut manifest, &secrets);
    RunFolder {
        run_id,
        manifest,
        events,
        transcripts,
        result,
        summary,
        secrets,
    }
}

/// `run.json` of the run `run_id` of `turn`.
fn manifest(
    run_id: &str,
    session: &str,
    turn: &TurnRecord,
    clock: &Clock,
    redacted: bool,
    counts: RunCounts,
) -> Value {
    let manifest = RunManifest {
        run_folder_version: RUN_FOLDER_VERSION,
        run_id: run_id.to_string(),
        session_id: session.to_string(),
        turn_number: turn.number,
        trace_id: clock.trace_id(),
        started_at: crate::time::rfc3339(clock.origin_ms),
        duration_ms: turn.duration_ms,
        written_by: format!("narratoria {}", env!("CARGO_PKG_VERSION")),
        redaction_mode: if redacted {
            RedactionMode::Redacted
        } else {
            RedactionMode::Full
        },
        counts,
        files: FILES.map(String::from).to_vec(),
    };
    serde_json::to_value(manifest).unwrap_or(Value::Null)
}

/// The folder's files, in the order `run.json` lists them.
pub const FILES: [&str; 5] = [
    "run.json",
    "events.jsonl",
    "transcripts.jsonl",
    "result.json",
    "summary.md",
];

/// `record` as JSON with every secret scrubbed, its `redactionMode` saying
/// whether it holds the redaction mark.
fn sealed(record: &impl Serialize, secrets: &[String]) -> Value {
    let mut v = serde_json::to_value(record).unwrap_or(Value::Null);
    scrub(&mut v, secrets);
    if marked(&v) {
        if let Some(obj) = v.as_object_mut() {
            obj.insert("redactionMode".into(), "redacted".into());
        }
    }
    v
}

/// Whether the redaction mark is anywhere in `v`.
fn marked(v: &Value) -> bool {
    match v {
        Value::String(s) => s.contains(REDACTED),
        Value::Array(a) => a.iter().any(marked),
        Value::Object(m) => m.iter().any(|(k, v)| k.contains(REDACTED) || marked(v)),
        _ => false,
    }
}

/// The JSON Schemas of the folder's records, generated from their types:
/// `run.json`'s, a line of `events.jsonl`'s, a line of `transcripts.jsonl`'s.
pub fn schemas() -> [(&'static str, Value); 3] {
    let of = |s: schemars::Schema| serde_json::to_value(s).unwrap_or(Value::Null);
    [
        (
            "run-manifest.schema.json",
            of(schemars::schema_for!(RunManifest)),
        ),
        ("run-event.schema.json", of(schemars::schema_for!(RunEvent))),
        (
            "run-transcript.schema.json",
            of(schemars::schema_for!(RunTranscript)),
        ),
    ]
}
