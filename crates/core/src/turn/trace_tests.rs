//! A turn's trace (docs/observability.md): one trace for the whole turn,
//! spans nesting as the turn's steps do, on one clock — checked on a turn
//! with a replan, a retried script, a host generation and the turn's memory,
//! all real script processes.

use super::*;
use crate::host::serve::HostLink;
use crate::rules::RulePlanner;
use crate::test_support::{script_skill as skill, Scribe};
use crate::trace::{Span, SpanKind, SpanStatus, TraceRecord};

/// Fails for good: the next plan leaves the dice out.
const DICE_FAIL: &str = r#"printf '%s\n' '{"type":"error","code":"INTERNAL_ERROR","message":"broken","recoverable":false}' '{"type":"done","ok":false}'; exit 1"#;

/// Fails its first run (worth a retry), then asks the host to write.
const TELL_AFTER_A_RETRY: &str = r#"f="$NARRATORIA_DATA_DIR/runs"
n=$(cat "$f" 2>/dev/null || echo 0); n=$((n+1)); echo "$n" > "$f"
if [ "$n" = 1 ]; then
  printf '%s\n' '{"type":"error","code":"BUSY","message":"not yet","recoverable":true}' '{"type":"done","ok":false}'
  exit 1
fi
printf '%s\n' '{"type":"generate","id":"g1","messages":[{"role":"user","content":"Tell it."}],"maxTokens":16,"stream":false}'
read -r reply
printf '%s\n' '{"type":"done","ok":true,"output":{"narrative":"The goblin falls."}}'"#;

const STORE: &str = r#"printf '%s\n' '{"type":"done","ok":true,"output":{"stored":true}}'"#;

async fn traced_turn() -> (TurnOutcome, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    skill(dir.path(), "dice-roller", "roll-dice", "", DICE_FAIL);
    skill(
        dir.path(),
        "storyteller",
        "narrate",
        r#","protocol":"narratoria/1.1","capabilities":["generate"]"#,
        TELL_AFTER_A_RETRY,
    );
    skill(dir.path(), "memory", "store-memory", "", STORE);
    let catalog = Arc::new(crate::skills::discover(&[dir.path().to_path_buf()]).unwrap());
    let mut opts = TurnOptions::default();
    opts.exec.host = HostLink {
        generator: Some(Arc::new(Scribe)),
    };
    let out = play_turn(
        TurnInputs {
            input: "I attack the goblin",
            planner: Arc::new(RulePlanner),
            catalog,
            state: Map::new(),
            recent: vec![],
            told: StoryTold::default(),
            options: &opts,
            events: None,
        },
        &mut SkillsState::default(),
    )
    .await;
    (out, dir)
}

fn of_kind(trace: &TraceRecord, kind: SpanKind) -> Vec<&Span> {
    trace.spans.iter().filter(|s| s.kind == kind).collect()
}

fn parent<'a>(trace: &'a TraceRecord, span: &Span) -> &'a Span {
    let id = span.parent_span_id.as_deref().expect("a parent");
    trace
        .span(id)
        .unwrap_or_else(|| panic!("{}'s parent {id} is in the trace", span.name))
}

/// The turn's spans, checked on a turn with a replan, a retried narration,
/// a host generation and the turn's memory.
async fn traced() -> (TurnOutcome, TraceRecord, tempfile::TempDir) {
    let (out, dir) = traced_turn().await;
    assert!(out.result.success, "{:?}", out.result.failure_message);
    assert_eq!(out.turn.attempts.len(), 2, "the dice were replanned away");
    let trace = out.turn.trace.clone().expect("the turn keeps its trace");
    (out, trace, dir)
}

/// The storyteller's script runs, in order.
fn narrations(trace: &TraceRecord) -> Vec<&Span> {
    of_kind(trace, SpanKind::Script)
        .into_iter()
        .filter(|s| s.attributes["skill"] == "storyteller")
        .collect()
}

#[tokio::test]
async fn a_turn_is_one_trace_whose_spans_nest_on_one_clock() {
    let (_out, trace, _dir) = traced().await;
    assert_eq!(trace.trace_id.len(), 32);
    assert!(trace.started_at_unix_ms > 1_600_000_000_000);

    // One root: the turn, holding everything else within its time.
    let roots: Vec<_> = trace.roots().collect();
    assert_eq!(roots.len(), 1, "{roots:#?}");
    let turn = roots[0];
    assert_eq!(turn.kind, SpanKind::Turn);
    for s in &trace.spans {
        assert!(s.start_ms <= s.end_ms, "{} ends before it starts", s.name);
        if s.span_id == turn.span_id {
            continue;
        }
        let p = parent(&trace, s);
        assert!(
            p.start_ms <= s.start_ms && s.end_ms <= p.end_ms,
            "{} ({}..{}) lies within its parent {} ({}..{})",
            s.name,
            s.start_ms,
            s.end_ms,
            p.name,
            p.start_ms,
            p.end_ms
        );
        assert_eq!(p.kind, parent_kind(s, p), "{}'s parent", s.name);
    }
    let ids: std::collections::HashSet<_> = trace.spans.iter().map(|s| &s.span_id).collect();
    assert_eq!(ids.len(), trace.spans.len(), "span ids are unique");
}

/// The kind of span `s`'s parent `p` must be.
fn parent_kind(s: &Span, p: &Span) -> SpanKind {
    match s.kind {
        SpanKind::Attempt | SpanKind::Memory => SpanKind::Turn,
        SpanKind::Planning => SpanKind::Attempt,
        SpanKind::Execution => p.kind, // an attempt's, or the memory's
        SpanKind::Tool => SpanKind::Execution,
        SpanKind::Script => SpanKind::Tool,
        SpanKind::Generate => SpanKind::Script,
        SpanKind::Turn => unreachable!("one root"),
    }
}

#[tokio::test]
async fn each_attempt_is_planned_then_run_and_a_retried_script_is_two_runs() {
    let (_out, trace, _dir) = traced().await;
    // Two attempts, each planned then run; the first failed.
    let attempts = of_kind(&trace, SpanKind::Attempt);
    assert_eq!(attempts.len(), 2);
    assert_eq!(attempts[0].status, SpanStatus::Error);
    assert_eq!(attempts[1].status, SpanStatus::Ok);
    assert!(
        attempts[0].end_ms <= attempts[1].start_ms,
        "attempts follow each other"
    );
    for a in &attempts {
        let kinds: Vec<_> = trace.children(&a.span_id).map(|c| c.kind).collect();
        assert_eq!(
            kinds,
            [SpanKind::Planning, SpanKind::Execution],
            "{}",
            a.name
        );
    }

    // The narration: one tool, two script runs (the first failed), the
    // second asked the host to write.
    let narrate = narrations(&trace);
    assert_eq!(narrate.len(), 2, "a retried script is two runs");
    assert_eq!(
        narrate[0].parent_span_id, narrate[1].parent_span_id,
        "of one tool"
    );
    assert_eq!(narrate[0].attributes["attempt"], 1);
    assert_eq!(narrate[0].status, SpanStatus::Error);
    assert_eq!(narrate[0].attributes["failureCode"], "BUSY");
    assert_eq!(narrate[1].attributes["attempt"], 2);
    assert_eq!(narrate[1].status, SpanStatus::Ok);
    assert!(narrate[0].end_ms <= narrate[1].start_ms);
    let generated: Vec<_> = trace.children(&narrate[1].span_id).collect();
    assert_eq!(generated.len(), 1);
    assert_eq!(generated[0].kind, SpanKind::Generate);
    assert_eq!(generated[0].attributes["id"], "g1");
    let tool = parent(&trace, narrate[0]);
    assert_eq!(tool.attributes["retryCount"], 1);
}

/// The turn's memory is kept in the turn's trace, after its narration, on
/// the same clock (docs/observability.md, "A turn's trace").
#[tokio::test]
async fn the_turns_memory_is_kept_after_its_narration_on_the_turns_clock() {
    let (out, trace, _dir) = traced().await;
    let narrate = narrations(&trace);
    let memory = of_kind(&trace, SpanKind::Memory);
    assert_eq!(memory.len(), 1);
    assert!(
        narrate[1].end_ms <= memory[0].start_ms,
        "memory after narration"
    );
    let stored = out
        .result
        .execution_trace
        .iter()
        .find(|t| t.tool_id == "remember-turn")
        .expect("the memory tool joins the turn's result");
    let told = out
        .result
        .execution_trace
        .iter()
        .find(|t| t.skill.as_deref() == Some("storyteller"))
        .unwrap();
    assert!(
        stored.started_at_ms.unwrap() >= told.started_at_ms.unwrap() + told.execution_time_ms,
        "the memory's startedAtMs is on the turn's clock, after the narration: {:?} vs {:?}+{}",
        stored.started_at_ms,
        told.started_at_ms,
        told.execution_time_ms
    );
}

#[tokio::test]
async fn every_tool_entry_and_kept_event_names_its_trace_and_span() {
    let (out, trace, _dir) = traced().await;
    assert_eq!(out.result.trace.as_ref().unwrap().trace_id, trace.trace_id);
    for attempt in &out.turn.attempts {
        let result = attempt.result.as_ref().unwrap();
        let own = result
            .trace
            .as_ref()
            .expect("each attempt's result has its trace");
        assert_eq!(own.trace_id, trace.trace_id);
        for t in &result.execution_trace {
            let span = t.span_id.as_deref().expect("each tool has a span");
            assert!(trace.span(span).is_some(), "{span} is in the turn's trace");
            for e in &t.events {
                assert_eq!(e["traceId"], trace.trace_id.as_str());
                let span = e["spanId"].as_str().expect("an event's span");
                assert!(trace.span(span).is_some(), "event span {span}");
            }
        }
    }
}
