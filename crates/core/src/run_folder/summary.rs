//! `summary.md`: the turn for people — what the player said, what was
//! told, each attempt's plan and how it went, the span tree with times, and
//! which file to open for what.

use std::fmt::Write;

use super::Clock;
use crate::result::{ExecutionResult, ToolResult};
use crate::store::{AttemptRecord, TurnRecord};
use crate::trace::{Span, SpanStatus};

/// The summary of `turn` of `session`, exported as run `run_id`.
pub(super) fn summary(run_id: &str, session: &str, turn: &TurnRecord, clock: &Clock) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# Turn {} of session {session}\n", turn.number);
    let _ = writeln!(md, "- Run: `{run_id}`");
    match clock.trace_id() {
        Some(id) => {
            let _ = writeln!(md, "- Trace: `{id}`");
        }
        None => md.push_str("- Trace: none was kept for this turn\n"),
    }
    let _ = writeln!(
        md,
        "- Started: {} · took {} ms{}\n",
        crate::time::rfc3339(clock.origin_ms),
        turn.duration_ms,
        if turn.fallback {
            " · told by the fallback template"
        } else {
            ""
        }
    );
    let _ = writeln!(md, "## Input\n\n{}\n", quoted(&turn.input));
    let _ = writeln!(md, "## Narrative\n\n{}\n", quoted(&turn.narrative));
    md.push_str("## Attempts\n\n");
    if turn.attempts.is_empty() {
        md.push_str("No plan attempt was recorded.\n\n");
    }
    for a in &turn.attempts {
        attempt(&mut md, a);
    }
    md.push_str("## Spans\n\n");
    span_tree(&mut md, clock);
    md.push_str(WHERE_TO_LOOK);
    md
}

/// `text` as a Markdown quote (`> …` on every line).
fn quoted(text: &str) -> String {
    if text.trim().is_empty() {
        return "> (empty)".into();
    }
    text.lines()
        .map(|l| format!("> {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// One attempt: how it ended, its tools and their outcomes.
fn attempt(md: &mut String, a: &AttemptRecord) {
    let outcome = match (&a.error, &a.result) {
        (Some(_), _) => "no plan",
        (None, Some(r)) if r.success => "succeeded",
        (None, Some(_)) => "failed",
        (None, None) => "not run",
    };
    let _ = writeln!(md, "### Attempt {} — {outcome}\n", a.attempt);
    if let Some(error) = &a.error {
        let _ = writeln!(md, "The planner gave no plan: {error}\n");
    }
    if let Some(t) = &a.transcript {
        let _ = writeln!(
            md,
            "Planner `{}`: {} prompt tokens ({} cached), {} written, {} ms.\n",
            t.planner, t.prompt_tokens, t.cached_tokens, t.completion_tokens, t.total_ms
        );
    }
    if let Some(r) = &a.result {
        result(md, r);
    }
}

fn result(md: &mut String, r: &ExecutionResult) {
    if let Some(reason) = r.failure_reason {
        let reason = serde_json::to_value(reason).unwrap_or_default();
        let _ = writeln!(
            md,
            "Failure: `{}`{}\n",
            reason.as_str().unwrap_or("?"),
            r.failure_message
                .as_deref()
                .map(|m| format!(" — {m}"))
                .unwrap_or_default()
        );
    }
    if r.execution_trace.is_empty() {
        md.push_str("The plan calls no tools.\n\n");
        return;
    }
    md.push_str("| tool | script | state | ms | retries | error |\n");
    md.push_str("| --- | --- | --- | --- | --- | --- |\n");
    for t in &r.execution_trace {
        tool_row(md, t);
    }
    md.push('\n');
}

fn tool_row(md: &mut String, t: &ToolResult) {
    let state = serde_json::to_value(t.state).unwrap_or_default();
    let error = t
        .error
        .as_ref()
        .map(|e| match e.code.as_deref() {
            Some(code) if !e.message.contains(code) => format!("{code}: {}", e.message),
            _ => e.message.clone(),
        })
        .unwrap_or_default();
    let _ = writeln!(
        md,
        "| {} | {} | {} | {} | {} | {} |",
        cell(&t.tool_id),
        cell(t.tool_path.as_deref().unwrap_or("")),
        state.as_str().unwrap_or("?"),
        t.execution_time_ms,
        t.retry_count,
        cell(&error)
    );
}

/// Text that stays inside one table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// The span tree, indented by depth, with each span's time and outcome.
fn span_tree(md: &mut String, clock: &Clock) {
    if clock.trace.spans.is_empty() {
        md.push_str("This turn kept no spans.\n\n");
        return;
    }
    md.push_str("```\n");
    let mut depth = 0usize;
    for step in super::events::walk(&clock.trace) {
        match step {
            super::events::Step::Start(s) => {
                let _ = writeln!(md, "{}{}", "  ".repeat(depth), line(s));
                depth += 1;
            }
            super::events::Step::Finish(_) => depth = depth.saturating_sub(1),
        }
    }
    md.push_str("```\n\n");
}

fn line(s: &Span) -> String {
    let status = match s.status {
        SpanStatus::Ok => "ok",
        SpanStatus::Error => "ERROR",
        SpanStatus::Skipped => "skipped",
    };
    let kind = serde_json::to_value(s.kind).unwrap_or_default();
    format!(
        "{} [{}] {} ms, at {} ms — {status}",
        s.name.replace('\n', " "),
        kind.as_str().unwrap_or("?"),
        s.end_ms.saturating_sub(s.start_ms),
        s.start_ms
    )
}

const WHERE_TO_LOOK: &str = "## Where to look

- `run.json` — what this folder is: the run, session, turn and trace ids, the layout's version.
- `events.jsonl` — every span's start and finish and every event the scripts sent, in time order.
- `transcripts.jsonl` — every model call: the planner's prompt and answer, each writer request's usage.
- `result.json` — the turn as saved: each attempt's plan, result, routing and lore, the state after it.

Secret settings of the skills are replaced by `••••••••` everywhere in this folder.
";
