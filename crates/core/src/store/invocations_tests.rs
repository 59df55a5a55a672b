//! Invocation records' promises: every script run of a committed turn is a
//! record (its input from its tool, why it failed, when and how long), the
//! turn keeps its trace, and the stats count runs, failures by code and
//! nearest-rank durations per skill and script, since a time and for one
//! skill — in a real SQLite file, over several stories and days.

use serde_json::json;

use super::invocations::{from_trace, nearest_rank};
use super::schema;
use super::*;
use crate::trace::{new_span_id, Span, SpanKind, SpanStatus, TraceRecord};

/// A day in ms.
const DAY: u64 = 86_400_000;

/// Monday 2 March 2026, 00:00 UTC: the week the tests ask about.
const WEEK: u64 = 1_772_409_600_000;

/// One script run to put in a hand-built trace.
struct Run {
    skill: &'static str,
    script: &'static str,
    /// 1 for a tool's first run; a retry follows its tool's earlier run.
    attempt: u32,
    ms: u64,
    /// How it failed: (error type, the script's own code); `None`: completed.
    failure: Option<(&'static str, Option<&'static str>)>,
}

fn ok(skill: &'static str, script: &'static str, ms: u64) -> Run {
    Run {
        skill,
        script,
        attempt: 1,
        ms,
        failure: None,
    }
}

fn failed(
    skill: &'static str,
    script: &'static str,
    ms: u64,
    error_type: &'static str,
    code: Option<&'static str>,
) -> Run {
    Run {
        failure: Some((error_type, code)),
        ..ok(skill, script, ms)
    }
}

fn span(kind: SpanKind, name: &str, parent: Option<&str>, start_ms: u64, end_ms: u64) -> Span {
    Span {
        span_id: new_span_id(),
        parent_span_id: parent.map(str::to_string),
        kind,
        name: name.into(),
        start_ms,
        end_ms,
        status: SpanStatus::Ok,
        attributes: Map::new(),
    }
}

/// The attributes the executor gives a script span of `run`.
fn script_attributes(run: &Run, tool_id: &str) -> Map<String, Value> {
    let mut a = json!({"toolId": tool_id, "skill": run.skill, "script": run.script,
                       "attempt": run.attempt, "status": "completed"});
    if let Some((error_type, code)) = run.failure {
        let state = if error_type == "timeout" {
            "timeout"
        } else {
            "failed"
        };
        a["status"] = json!(state);
        a["errorType"] = json!(error_type);
        a["message"] = json!(format!("{} went wrong", run.script));
        if let Some(code) = code {
            a["failureCode"] = json!(code);
        }
    }
    a.as_object().unwrap().clone()
}

/// A turn's trace begun at `at` (ms since the epoch): one tool per first
/// run (its input names the tool), each run a script span under it.
fn trace_of(at: u64, runs: &[Run]) -> TraceRecord {
    let root = span(SpanKind::Turn, "turn", None, 0, 10_000);
    let exec = span(
        SpanKind::Execution,
        "execution",
        Some(&root.span_id),
        1,
        9_000,
    );
    let mut spans = vec![root.clone(), exec.clone()];
    let mut clock = 2;
    let mut tool = None;
    for (i, run) in runs.iter().enumerate() {
        if run.attempt == 1 {
            let tool_id = format!("t{i}");
            let mut t = span(SpanKind::Tool, &tool_id, Some(&exec.span_id), clock, clock);
            t.attributes = json!({"toolId": tool_id, "skill": run.skill, "script": run.script,
                                  "input": {"tool": tool_id, "apiKey": "••••••••"}})
            .as_object()
            .unwrap()
            .clone();
            spans.push(t.clone());
            tool = Some(t);
        }
        let tool = tool.as_ref().unwrap();
        let mut s = span(
            SpanKind::Script,
            run.script,
            Some(&tool.span_id),
            clock,
            clock + run.ms,
        );
        s.attributes = script_attributes(run, &tool.name);
        if run.failure.is_some() {
            s.status = SpanStatus::Error;
        }
        spans.push(s);
        clock += run.ms + 1;
    }
    TraceRecord {
        trace_id: uuid::Uuid::new_v4().simple().to_string(),
        started_at_unix_ms: at,
        spans,
    }
}

fn played(input: &str, trace: Option<TraceRecord>) -> NewTurn {
    NewTurn {
        input: input.into(),
        narrative: format!("You {input}."),
        fallback: false,
        state_after: Map::new(),
        duration_ms: 5,
        attempts: Vec::new(),
        trace,
    }
}

/// Two stories in one database file: a turn ten days before the week, one
/// on its first day (a timeout retried, a validation error) and one on its
/// second (a script that exits badly without a code of its own).
fn seeded(path: &Path) -> (Store, String, String) {
    let mut store = Store::open(path).unwrap();
    let a = store.create_session("A", &Map::new()).unwrap();
    let b = store.create_session("B", &Map::new()).unwrap();
    let old = trace_of(
        WEEK - 10 * DAY,
        &[
            ok("reputation", "adjust", 400),
            failed("dice-roller", "roll", 5000, "timeout", None),
        ],
    );
    store.commit_turn(&a, &played("wait", Some(old))).unwrap();
    let retried = failed("dice-roller", "roll", 5000, "timeout", None);
    let mut second = ok("dice-roller", "roll", 30);
    second.attempt = 2;
    let monday = trace_of(
        WEEK + 3_600_000,
        &[
            retried,
            second,
            ok("reputation", "adjust", 100),
            failed(
                "reputation",
                "query",
                20,
                "script_error",
                Some("VALIDATION_ERROR"),
            ),
        ],
    );
    store
        .commit_turn(&a, &played("fight", Some(monday)))
        .unwrap();
    let tuesday = trace_of(
        WEEK + DAY,
        &[
            ok("reputation", "adjust", 200),
            ok("reputation", "adjust", 300),
            ok("storyteller", "narrate", 1000),
            failed("dice-roller", "roll", 10, "nonzero_exit", None),
        ],
    );
    store
        .commit_turn(&b, &played("flee", Some(tuesday)))
        .unwrap();
    (store, a, b)
}

fn codes(pairs: &[(&str, u64)]) -> std::collections::BTreeMap<String, u64> {
    pairs.iter().map(|(c, n)| (c.to_string(), *n)).collect()
}

fn skill<'a>(stats: &'a SkillStats, name: &str) -> &'a SkillRunStats {
    stats.skills.iter().find(|s| s.skill == name).unwrap()
}

fn script<'a>(stats: &'a SkillStats, skill_name: &str, name: &str) -> &'a RunStats {
    &skill(stats, skill_name)
        .scripts
        .iter()
        .find(|s| s.script == name)
        .unwrap()
        .stats
}

#[test]
fn every_run_counts_per_skill_and_script_with_nearest_rank_durations() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _, _) = seeded(&dir.path().join("s.db"));
    let stats = store.skill_stats(&StatsQuery::default()).unwrap();
    let names: Vec<&str> = stats.skills.iter().map(|s| s.skill.as_str()).collect();
    assert_eq!(names, ["dice-roller", "reputation", "storyteller"]);
    let roll = script(&stats, "dice-roller", "roll");
    assert_eq!((roll.runs, roll.failures), (4, 3));
    assert_eq!(
        roll.failures_by_code,
        codes(&[("NONZERO_EXIT", 1), ("TIMEOUT", 2)])
    );
    // 10, 30, 5000, 5000: ranks 2 and 4.
    assert_eq!((roll.p50_ms, roll.p95_ms, roll.mean_ms), (30, 5000, 2510.0));
    let adjust = script(&stats, "reputation", "adjust");
    assert_eq!((adjust.runs, adjust.failures), (4, 0));
    assert!(adjust.failures_by_code.is_empty());
    assert_eq!(
        (adjust.p50_ms, adjust.p95_ms, adjust.mean_ms),
        (200, 400, 250.0)
    );
    let query = script(&stats, "reputation", "query");
    assert_eq!(query.failures_by_code, codes(&[("VALIDATION_ERROR", 1)]));
    let reputation = &skill(&stats, "reputation").stats;
    // 20, 100, 200, 300, 400: ranks 3 and 5.
    assert_eq!((reputation.runs, reputation.failures), (5, 1));
    assert_eq!(
        (reputation.p50_ms, reputation.p95_ms, reputation.mean_ms),
        (200, 400, 204.0)
    );
    let scripts: Vec<&str> = skill(&stats, "reputation")
        .scripts
        .iter()
        .map(|s| s.script.as_str())
        .collect();
    assert_eq!(scripts, ["adjust", "query"]);
    assert_eq!((stats.totals.runs, stats.totals.failures), (10, 4));
    assert_eq!(
        stats.totals.failures_by_code,
        codes(&[("NONZERO_EXIT", 1), ("TIMEOUT", 2), ("VALIDATION_ERROR", 1)])
    );
}

/// "Which scripts failed with TIMEOUT this week, and how long did
/// reputation take on average?"
#[test]
fn since_keeps_the_runs_from_then_on_and_answers_this_weeks_question() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _, _) = seeded(&dir.path().join("s.db"));
    let week = store
        .skill_stats(&StatsQuery {
            skill: None,
            since_unix_ms: Some(WEEK),
        })
        .unwrap();
    let timed_out: Vec<String> = week
        .skills
        .iter()
        .flat_map(|k| k.scripts.iter().map(move |s| (k, s)))
        .filter(|(_, s)| s.stats.failures_by_code.contains_key("TIMEOUT"))
        .map(|(k, s)| format!("{}/{}", k.skill, s.script))
        .collect();
    assert_eq!(timed_out, ["dice-roller/roll"]);
    let roll = script(&week, "dice-roller", "roll");
    assert_eq!((roll.runs, roll.failures), (3, 2));
    assert_eq!(
        roll.failures_by_code,
        codes(&[("NONZERO_EXIT", 1), ("TIMEOUT", 1)])
    );
    assert_eq!((roll.p50_ms, roll.p95_ms), (30, 5000));
    // 100, 20, 200, 300.
    assert_eq!(skill(&week, "reputation").stats.mean_ms, 155.0);
    assert_eq!(week.totals.runs, 8);
    let tuesday = store
        .skill_stats(&StatsQuery {
            skill: None,
            since_unix_ms: Some(WEEK + DAY),
        })
        .unwrap();
    assert_eq!(tuesday.totals.runs, 4);
    let later = store
        .skill_stats(&StatsQuery {
            skill: None,
            since_unix_ms: Some(WEEK + 30 * DAY),
        })
        .unwrap();
    assert_eq!(later, SkillStats::default());
}

#[test]
fn a_skill_filter_keeps_that_skill_alone() {
    let dir = tempfile::tempdir().unwrap();
    let (store, _, _) = seeded(&dir.path().join("s.db"));
    let only = store
        .skill_stats(&StatsQuery {
            skill: Some("reputation".into()),
            since_unix_ms: Some(WEEK),
        })
        .unwrap();
    assert_eq!(only.skills.len(), 1);
    assert_eq!(only.skills[0].skill, "reputation");
    assert_eq!(only.totals, only.skills[0].stats);
    assert_eq!((only.totals.runs, only.totals.failures), (4, 1));
    let none = store
        .skill_stats(&StatsQuery {
            skill: Some("nobody".into()),
            since_unix_ms: None,
        })
        .unwrap();
    assert!(none.skills.is_empty());
    assert_eq!(none.totals.runs, 0);
}

#[test]
fn a_record_keeps_its_tools_input_why_it_failed_and_when() {
    let dir = tempfile::tempdir().unwrap();
    let (store, a, _) = seeded(&dir.path().join("s.db"));
    let turn = store.head_turn(&a).unwrap().unwrap();
    let trace = turn.trace.expect("the turn keeps its trace");
    type Row = (
        String,
        String,
        u32,
        String,
        String,
        Option<String>,
        Option<String>,
        i64,
        i64,
    );
    let rows: Vec<Row> = store
        .conn
        .prepare(
            "SELECT trace_id, tool_id, attempt, input, status, failure_code, message, duration_ms,
                        started_at FROM invocations WHERE trace_id = ?1 ORDER BY started_at",
        )
        .unwrap()
        .query_map(params![trace.trace_id], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
                r.get(6)?,
                r.get(7)?,
                r.get(8)?,
            ))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(rows.len(), 4);
    let (_, tool, attempt, input, status, code, message, ms, at) = &rows[0];
    assert_eq!(
        (tool.as_str(), *attempt, status.as_str()),
        ("t0", 1, "timeout")
    );
    assert_eq!(code.as_deref(), Some("TIMEOUT"));
    assert_eq!(message.as_deref(), Some("roll went wrong"));
    assert_eq!((*ms, *at), (5000, (WEEK + 3_600_000 + 2) as i64));
    let input: Value = serde_json::from_str(input).unwrap();
    assert_eq!(input, json!({"tool": "t0", "apiKey": "••••••••"}));
    let retry = &rows[1];
    assert_eq!(
        (retry.1.as_str(), retry.2, retry.4.as_str()),
        ("t0", 2, "completed")
    );
    assert_eq!((retry.5.as_deref(), retry.6.as_deref()), (None, None));
    assert_eq!(rows[3].5.as_deref(), Some("VALIDATION_ERROR"));
}

#[test]
fn a_deleted_story_takes_its_records_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let (store, a, _) = seeded(&dir.path().join("s.db"));
    store.delete_session(&a).unwrap();
    let left = store.skill_stats(&StatsQuery::default()).unwrap();
    assert_eq!(left.totals.runs, 4, "only story B's turn is left");
}

#[test]
fn failure_codes_prefer_the_scripts_own_then_the_hosts_error_type() {
    let mut trace = trace_of(
        WEEK,
        &[
            failed("s", "a", 1, "script_error", Some("VALIDATION_ERROR")),
            failed("s", "b", 1, "nonzero_exit", None),
            failed("s", "c", 1, "signal", None),
            ok("s", "d", 1),
        ],
    );
    let c = trace.spans.iter_mut().find(|s| s.name == "c").unwrap();
    c.attributes.remove("errorType");
    let mut stray = span(SpanKind::Script, "stray", None, 0, 1);
    stray.attributes.insert("script".into(), json!("stray"));
    trace.spans.push(stray);
    let runs = from_trace(&trace);
    let found: Vec<(&str, Option<&str>)> = runs
        .iter()
        .map(|r| (r.script.as_str(), r.failure_code.as_deref()))
        .collect();
    assert_eq!(
        found,
        [
            ("a", Some("VALIDATION_ERROR")),
            ("b", Some("NONZERO_EXIT")),
            ("c", Some("FAILED")),
            ("d", None),
        ],
        "a script span without a skill is passed over"
    );
}

#[test]
fn nearest_rank_is_the_smallest_value_covering_the_share() {
    let twenty: Vec<u64> = (1..=20).collect();
    assert_eq!(nearest_rank(&twenty, 50), 10);
    assert_eq!(nearest_rank(&twenty, 95), 19);
    assert_eq!(nearest_rank(&[7], 50), 7);
    assert_eq!(nearest_rank(&[7], 95), 7);
    assert_eq!(nearest_rank(&[], 95), 0);
}

#[test]
fn stats_by_skill_and_time_are_found_through_an_index() {
    let store = Store::open(Path::new(":memory:")).unwrap();
    for (filter, index) in [
        ("skill = 'x' AND started_at >= 1", "invocations_by_skill"),
        ("started_at >= 1", "invocations_by_time"),
        ("trace_id = 'x'", "invocations_by_trace"),
    ] {
        let plan: Vec<String> = store
            .conn
            .prepare(&format!(
                "EXPLAIN QUERY PLAN SELECT skill, script, status, failure_code, duration_ms
                 FROM invocations WHERE 1 AND {filter}"
            ))
            .unwrap()
            .query_map([], |r| r.get::<_, String>(3))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert!(plan.iter().any(|s| s.contains(index)), "{filter}: {plan:?}");
    }
}

/// A database saved before invocation records (schema step 7) gains the
/// table and the trace column; its turns have no trace, and turns played
/// from then on are counted.
#[test]
fn a_database_at_step_seven_gains_invocation_records() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    {
        let mut conn = rusqlite::Connection::open(&path).unwrap();
        schema::first_steps(7).to_latest(&mut conn).unwrap();
        conn.execute_batch(
            "INSERT INTO sessions (id, title, created_at, updated_at, initial_state)
               VALUES ('s1', 'Old tale', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', '{}');
             INSERT INTO turns (session_id, key, number, input, narrative, state_after, created_at)
               VALUES ('s1', 'k1', 1, 'look', 'You look.', '{}', '2026-01-01T00:00:01.000Z');",
        )
        .unwrap();
        conn.execute(
            "INSERT INTO branches (session_id, name, head_id, created_at)
             VALUES ('s1', 'main', 1, '2026-01-01T00:00:00.000Z')",
            [],
        )
        .unwrap();
        conn.execute("UPDATE sessions SET current_branch = 1 WHERE id = 's1'", [])
            .unwrap();
    }
    let mut store = Store::open(&path).unwrap();
    let version: i64 = store
        .conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(version, schema::VERSION);
    let old = store.turns("s1").unwrap();
    assert_eq!(old.len(), 1);
    assert_eq!(old[0].trace, None);
    assert_eq!(
        store
            .skill_stats(&StatsQuery::default())
            .unwrap()
            .totals
            .runs,
        0
    );
    let trace = trace_of(WEEK, &[ok("reputation", "adjust", 40)]);
    store
        .commit_turn("s1", &played("hide", Some(trace.clone())))
        .unwrap();
    assert_eq!(store.turns("s1").unwrap()[1].trace, Some(trace));
    let stats = store.skill_stats(&StatsQuery::default()).unwrap();
    assert_eq!((stats.totals.runs, stats.totals.p50_ms), (1, 40));
}

/// A turn not played by the engine (an import) has no trace and no records.
#[test]
fn a_turn_without_a_trace_has_no_records() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.db")).unwrap();
    let id = store.create_session("Imported", &Map::new()).unwrap();
    store.commit_turn(&id, &played("arrive", None)).unwrap();
    assert_eq!(store.head_turn(&id).unwrap().unwrap().trace, None);
    assert_eq!(
        store.skill_stats(&StatsQuery::default()).unwrap(),
        SkillStats::default()
    );
}

/// A script that fails with a 400 KB code, a 500 KB message and six 1 MiB
/// log lines (it grew the database by 11.8 MB a turn) leaves records of a
/// few KB: every text within its bound, the log lines within theirs, the
/// dropped ones counted — in the attempt's result and trace, the turn's
/// trace and the invocation record — and the stats read them.
#[test]
fn a_flooding_failure_is_stored_within_the_bounds() {
    use super::bounds::{tests::flooding_tool, CODE_CHARS, LOG_LINES, MESSAGE_CHARS};
    let mut trace = trace_of(
        WEEK,
        &[failed("dice-roller", "roll", 10, "script_error", Some("E"))],
    );
    let script = trace.spans.last_mut().unwrap();
    script
        .attributes
        .insert("failureCode".into(), json!("E".repeat(400_000)));
    script
        .attributes
        .insert("message".into(), json!("m".repeat(500_000)));
    let result = crate::result::ExecutionResult {
        plan_id: uuid::Uuid::new_v4(),
        success: false,
        narrative: None,
        failed_tools: vec!["roll".into()],
        can_replan: true,
        failure_reason: Some(crate::result::FailureReason::ToolFailure),
        failure_message: Some(format!(
            "required tool \"roll\" failed: {}",
            "m".repeat(500_000)
        )),
        execution_trace: vec![flooding_tool(LOG_LINES + 6)],
        final_state: Map::new(),
        total_execution_time_ms: 10,
        generation_metadata: None,
        trace: Some(trace.clone()),
    };
    let mut turn = played("roll", Some(trace));
    turn.attempts = vec![AttemptRecord {
        attempt: 1,
        plan: None,
        result: Some(result),
        error: Some("e".repeat(500_000)),
        transcript: None,
        lore: Vec::new(),
        routing: None,
        noted: false,
    }];
    let mut store = Store::open(Path::new(":memory:")).unwrap();
    let id = store.create_session("Flood", &Map::new()).unwrap();
    store.commit_turn(&id, &turn).unwrap();

    let size = |sql: &str| -> i64 { store.conn.query_row(sql, [], |r| r.get(0)).unwrap() };
    let attempts = size("SELECT SUM(length(result) + length(error)) FROM plan_attempts");
    assert!(
        attempts < 100_000,
        "plan_attempts holds {attempts} characters"
    );
    assert!(size("SELECT length(trace) FROM turns") < 20_000);
    assert_eq!(
        size("SELECT length(failure_code) FROM invocations"),
        CODE_CHARS as i64
    );
    assert_eq!(
        size("SELECT length(message) FROM invocations"),
        MESSAGE_CHARS as i64
    );

    let kept = store.head_turn(&id).unwrap().unwrap();
    let tool = &kept.attempts[0].result.as_ref().unwrap().execution_trace[0];
    let logs = tool.events.iter().filter(|e| e["type"] == "log").count();
    assert_eq!(
        logs,
        LOG_LINES + 1,
        "the lines kept, then how many were dropped"
    );
    assert!(tool
        .events
        .iter()
        .any(|e| e.get("dropped") == Some(&json!(6))));
    let stats = store.skill_stats(&StatsQuery::default()).unwrap();
    let code = stats.totals.failures_by_code.keys().next().unwrap();
    assert_eq!(code.chars().count(), CODE_CHARS);
    assert!(code.ends_with('…'), "{code}");
}
