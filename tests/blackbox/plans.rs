//! `narratoria run-plan`: plan validation, dependency graph semantics,
//! failure propagation, scheduling (parallel/sequential/concurrency),
//! timeouts and session state (docs/protocol.md, "Scheduling").

use crate::support::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A skills root with one worker skill `w` (tool path `w/work`) whose runs
/// are recorded in `ran.log`.
struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    ran_log: PathBuf,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    let ran_log = dir.path().join("ran.log");
    worker_skill(&root, "w", &ran_log);
    Fixture {
        _dir: dir,
        root,
        ran_log,
    }
}

/// A worker tool invocation with the given id and input, no retries.
fn tool(id: &str, input: Value) -> Value {
    json!({
        "toolId": id, "toolPath": "w/work", "input": input,
        "retryPolicy": {"maxRetries": 0, "backoffMs": 10}
    })
}

/// `tool(...)` plus extra fields (dependencies, required, async, ...).
fn tool_with(id: &str, input: Value, extra: Value) -> Value {
    let mut t = tool(id, input);
    for (k, v) in extra.as_object().unwrap() {
        t[k] = v.clone();
    }
    t
}

fn roots(f: &Fixture) -> [&Path; 1] {
    [f.root.as_path()]
}

// ---------------------------------------------------------------------------
// Result shape
// ---------------------------------------------------------------------------

/// An empty tools list succeeds with exit 0 and an empty trace.
#[test]
fn empty_plan_succeeds() {
    let f = fixture();
    let plan = plan(json!([]));

    let (code, result, _) = run_plan(plan.clone(), &roots(&f), None);

    assert_eq!(code, 0, "{}", pretty(&result));
    assert_eq!(result["success"], true);
    assert_eq!(result["planId"], plan["requestId"]);
    assert_eq!(result["executionTrace"], json!([]));
    assert_eq!(result["failedTools"], json!([]));
    assert_eq!(result["failureReason"], Value::Null);
}

/// The ExecutionResult echoes the plan's identity, narrative and metadata,
/// and every ToolResult carries the documented fields.
#[test]
fn result_has_documented_shape() {
    let f = fixture();
    let parent = new_uuid();
    let mut plan = plan(json!([tool("a", json!({}))]));
    plan["narrative"] = json!("The dice tumble.");
    plan["metadata"] = json!({"generationAttempt": 2, "parentPlanId": parent.clone()});

    let (code, result, _) = run_plan(plan.clone(), &roots(&f), Some(json!({})));

    assert_eq!(code, 0, "{}", pretty(&result));
    assert_eq!(result["planId"], plan["requestId"]);
    assert_eq!(result["success"], true);
    assert_eq!(result["narrative"], "The dice tumble.");
    assert_eq!(result["generationMetadata"]["generationAttempt"], 2);
    assert_eq!(result["generationMetadata"]["parentPlanId"], json!(parent));
    assert_eq!(result["failureReason"], Value::Null);
    assert_eq!(result["failureMessage"], Value::Null);
    assert!(result["canReplan"].is_boolean());
    assert!(result["finalState"].is_object());
    assert!(result["totalExecutionTimeMs"].is_u64());

    let a = trace(&result, "a");
    assert_eq!(a["toolPath"], "w/work");
    assert_eq!(a["skill"], "w");
    assert_eq!(a["ok"], true);
    assert_eq!(a["state"], "completed");
    assert_eq!(a["output"]["toolId"], "a");
    assert!(a["events"].is_array());
    assert!(a["executionTimeMs"].is_u64());
    assert!(a["startedAtMs"].is_u64());
    assert_eq!(a["retryCount"], 0);
    assert_eq!(a["error"], Value::Null);
    assert!(a["stderr"].is_string());
}

// ---------------------------------------------------------------------------
// Invalid graphs: nothing runs
// ---------------------------------------------------------------------------

/// A dependency cycle runs nothing (not even unrelated tools), fails with
/// circular_dependency and names the tools of the cycle; exit 1.
#[test]
fn cycle_runs_nothing_and_names_its_tools() {
    let f = fixture();
    let plan = plan(json!([
        tool_with("alpha", json!({}), json!({"dependencies": ["charlie"]})),
        tool_with("bravo", json!({}), json!({"dependencies": ["alpha"]})),
        tool_with("charlie", json!({}), json!({"dependencies": ["bravo"]})),
        tool("independent", json!({}))
    ]));

    let (code, result, _) = run_plan(plan, &roots(&f), None);

    assert_eq!(code, 1, "{}", pretty(&result));
    assert_eq!(result["success"], false);
    assert_eq!(result["failureReason"], "circular_dependency");
    let message = result["failureMessage"].as_str().expect("failureMessage");
    for id in ["alpha", "bravo", "charlie"] {
        assert!(
            message.contains(id),
            "failureMessage {message:?} does not name {id}"
        );
    }
    assert_eq!(
        ran(&f.ran_log),
        Vec::<String>::new(),
        "tools ran despite the cycle"
    );
}

/// A tool depending on itself is a cycle.
#[test]
fn self_dependency_is_a_cycle() {
    let f = fixture();
    let plan = plan(json!([tool_with(
        "narcissus",
        json!({}),
        json!({"dependencies": ["narcissus"]})
    )]));

    let (code, result, _) = run_plan(plan, &roots(&f), None);

    assert_eq!(code, 1, "{}", pretty(&result));
    assert_eq!(result["success"], false);
    assert_eq!(result["failureReason"], "circular_dependency");
    assert!(result["failureMessage"]
        .as_str()
        .unwrap_or("")
        .contains("narcissus"));
    assert!(ran(&f.ran_log).is_empty(), "a tool ran despite the cycle");
}

/// A dependency on an unknown toolId is invalid_plan and nothing runs.
#[test]
fn unknown_dependency_is_invalid_plan() {
    let f = fixture();
    let plan = plan(json!([
        tool("a", json!({})),
        tool_with("b", json!({}), json!({"dependencies": ["ghost"]}))
    ]));

    let (code, result, _) = run_plan(plan, &roots(&f), None);

    assert_eq!(code, 1, "{}", pretty(&result));
    assert_eq!(result["success"], false);
    assert_eq!(result["failureReason"], "invalid_plan");
    assert!(ran(&f.ran_log).is_empty(), "tools ran in an invalid plan");
}

/// A duplicate toolId is invalid_plan and nothing runs.
#[test]
fn duplicate_tool_id_is_invalid_plan() {
    let f = fixture();
    let plan = plan(json!([
        tool("twin", json!({})),
        tool("twin", json!({})),
        tool("other", json!({}))
    ]));

    let (code, result, _) = run_plan(plan, &roots(&f), None);

    assert_eq!(code, 1, "{}", pretty(&result));
    assert_eq!(result["success"], false);
    assert_eq!(result["failureReason"], "invalid_plan");
    assert!(ran(&f.ran_log).is_empty(), "tools ran in an invalid plan");
}

// ---------------------------------------------------------------------------
// Failure propagation
// ---------------------------------------------------------------------------

/// An optional tool that fails does not stop its dependents: they run with
/// `deps.<id>` = null, the plan succeeds, and failedTools lists it.
#[test]
fn optional_failure_lets_dependents_run_with_null_dep() {
    let f = fixture();
    let plan = plan(json!([
        tool_with("maybe", json!({"fail": true}), json!({"required": false})),
        tool_with("after", json!({}), json!({"dependencies": ["maybe"]}))
    ]));

    let (code, result, _) = run_plan(plan, &roots(&f), None);

    assert_eq!(
        trace(&result, "maybe")["state"],
        "failed",
        "{}",
        pretty(&result)
    );
    let after = trace(&result, "after");
    assert_eq!(after["state"], "completed");
    let deps = after["output"]["deps"].as_object().expect("deps object");
    assert_eq!(deps.get("maybe"), Some(&Value::Null), "deps = {deps:?}");
    assert_eq!(result["success"], true);
    assert_eq!(failed_tools(&result), vec!["maybe"]);
    assert_eq!(code, 0);
}

/// A required failure skips its transitive dependents (dependency_failed,
/// never run) while an unrelated branch still completes; failedTools lists
/// the failed tool, failureReason tool_failure, exit 1.
#[test]
fn required_failure_skips_transitive_dependents_only() {
    let f = fixture();
    let plan = plan(json!([
        tool("root", json!({"fail": true})),
        tool_with("child", json!({}), json!({"dependencies": ["root"]})),
        tool_with("grandchild", json!({}), json!({"dependencies": ["child"]})),
        tool("unrelated", json!({})),
        tool_with(
            "unrelated2",
            json!({}),
            json!({"dependencies": ["unrelated"]})
        )
    ]));

    let (code, result, _) = run_plan(plan, &roots(&f), None);

    assert_eq!(
        trace(&result, "root")["state"],
        "failed",
        "{}",
        pretty(&result)
    );
    for id in ["child", "grandchild"] {
        let t = trace(&result, id);
        assert_eq!(t["state"], "skipped", "{}", pretty(t));
        assert_eq!(error_type(t), "dependency_failed");
    }
    for id in ["unrelated", "unrelated2"] {
        assert_eq!(
            trace(&result, id)["state"],
            "completed",
            "{}",
            pretty(&result)
        );
    }
    let mut ran_ids = ran(&f.ran_log);
    ran_ids.sort();
    assert_eq!(ran_ids, vec!["root", "unrelated", "unrelated2"]);
    assert_eq!(failed_tools(&result), vec!["root"]);
    assert_eq!(result["success"], false);
    assert_eq!(result["failureReason"], "tool_failure");
    assert_eq!(code, 1);
}

/// A tool of a skill listed in plan.disabledSkills never runs and fails
/// with skill_disabled; other skills still run.
#[test]
fn disabled_skill_never_runs() {
    let f = fixture();
    let evil_log = f.root.parent().unwrap().join("evil.log");
    worker_skill(&f.root, "evil", &evil_log);
    let mut plan = plan(json!([
        {"toolId": "bad", "toolPath": "evil/work", "input": {}, "required": false},
        tool("good", json!({}))
    ]));
    plan["disabledSkills"] = json!(["evil"]);

    let (_, result, _) = run_plan(plan, &roots(&f), None);

    assert_eq!(
        error_type(trace(&result, "bad")),
        "skill_disabled",
        "{}",
        pretty(&result)
    );
    assert!(ran(&evil_log).is_empty(), "a disabled skill ran");
    assert_eq!(trace(&result, "good")["state"], "completed");
}

/// A required tool whose script ends with done ok:false fails with
/// error.type script_error and ok false; the plan fails with exit 1.
#[test]
fn single_required_failure_exits_one() {
    let f = fixture();
    let plan = plan(json!([tool("a", json!({"fail": true}))]));

    let (code, result, _) = run_plan(plan, &roots(&f), None);

    let a = trace(&result, "a");
    assert_eq!(a["state"], "failed", "{}", pretty(&result));
    assert_eq!(a["ok"], false);
    assert_eq!(error_type(a), "script_error");
    assert_eq!(result["success"], false);
    assert_eq!(failed_tools(&result), vec!["a"]);
    assert_eq!(code, 1);
}

// ---------------------------------------------------------------------------
// Session state
// ---------------------------------------------------------------------------

/// finalState = `--state` deep-merged with the patches of succeeded tools:
/// null deletes, objects merge, arrays and scalars replace.
#[test]
fn state_patches_deep_merge_into_initial_state() {
    let f = fixture();
    let initial = json!({
        "keep": 1, "gone": 2, "nested": {"x": 1, "y": 1}, "list": [1, 2, 3], "order": "initial"
    });
    let plan = plan(json!([
        tool(
            "a",
            json!({"patches": [{"nested": {"y": 2, "z": 3}, "list": [9], "order": "a"}]})
        ),
        tool_with(
            "b",
            json!({"patches": [{"gone": null, "order": "b", "nested": {"x": null, "deep": {"k": true}}}]}),
            json!({"dependencies": ["a"]})
        )
    ]));

    let (code, result, _) = run_plan(plan, &roots(&f), Some(initial));

    assert_eq!(code, 0, "{}", pretty(&result));
    assert_eq!(
        result["finalState"],
        json!({"keep": 1, "nested": {"y": 2, "z": 3, "deep": {"k": true}}, "list": [9], "order": "b"})
    );
}

/// Patches are applied in completion order, not plan order: of two
/// concurrent tools, the one finishing last wins a conflicting key.
#[test]
fn state_patches_apply_in_completion_order() {
    let f = fixture();
    let mut plan = plan(json!([
        tool_with(
            "slow",
            json!({"sleep": 1.5, "patches": [{"winner": "slow"}]}),
            json!({"async": true})
        ),
        tool_with(
            "fast",
            json!({"patches": [{"winner": "fast"}]}),
            json!({"async": true})
        )
    ]));
    plan["parallel"] = json!(true);

    let run = run_plan_with(&plan, &roots(&f), None, &["--max-concurrency", "4"], &[]);
    let result = run.json();

    assert_eq!(run.code, 0, "{}", pretty(&result));
    let (slow, fast) = (
        interval(trace(&result, "slow")),
        interval(trace(&result, "fast")),
    );
    assert!(
        fast.1 < slow.1,
        "\"fast\" did not finish first (the async tools did not run concurrently): slow {slow:?}, fast {fast:?}"
    );
    assert_eq!(result["finalState"]["winner"], "slow");
}

/// The patches of a tool that failed (here an optional one) are not applied.
#[test]
fn failed_tool_patches_are_not_applied() {
    let f = fixture();
    let plan = plan(json!([
        tool_with(
            "bad",
            json!({"fail": true, "patches": [{"poison": true}]}),
            json!({"required": false})
        ),
        tool("good", json!({"patches": [{"fine": true}]}))
    ]));

    let (code, result, _) = run_plan(plan, &roots(&f), Some(json!({"start": 0})));

    assert_eq!(code, 0, "{}", pretty(&result));
    assert_eq!(result["finalState"], json!({"start": 0, "fine": true}));
}

// ---------------------------------------------------------------------------
// Scheduling
// ---------------------------------------------------------------------------

/// With parallel:true, async:true tools run concurrently (their recorded
/// time intervals overlap).
#[test]
fn parallel_async_tools_overlap() {
    let f = fixture();
    let mut plan = plan(json!([
        tool_with("p1", json!({"sleep": 2}), json!({"async": true})),
        tool_with("p2", json!({"sleep": 2}), json!({"async": true}))
    ]));
    plan["parallel"] = json!(true);

    let run = run_plan_with(&plan, &roots(&f), None, &["--max-concurrency", "4"], &[]);
    let result = run.json();

    assert_eq!(run.code, 0, "{}", pretty(&result));
    let (a, b) = (
        interval(trace(&result, "p1")),
        interval(trace(&result, "p2")),
    );
    assert!(overlaps(a, b), "async tools did not overlap: {a:?} {b:?}");
}

/// With parallel:false tools run one at a time in dependency order, even if
/// listed in reverse and marked async.
#[test]
fn sequential_plan_runs_one_at_a_time_in_dependency_order() {
    let f = fixture();
    let plan = plan(json!([
        tool_with(
            "c",
            json!({"sleep": 0.3}),
            json!({"async": true, "dependencies": ["b"]})
        ),
        tool_with(
            "b",
            json!({"sleep": 0.3}),
            json!({"async": true, "dependencies": ["a"]})
        ),
        tool_with("a", json!({"sleep": 0.3}), json!({"async": true})),
        tool_with("d", json!({"sleep": 0.3}), json!({"async": true}))
    ]));

    let (code, result, _) = run_plan(plan, &roots(&f), None);

    assert_eq!(code, 0, "{}", pretty(&result));
    let ids = ["a", "b", "c", "d"];
    let spans: Vec<_> = ids.iter().map(|id| interval(trace(&result, id))).collect();
    for i in 0..ids.len() {
        for j in i + 1..ids.len() {
            assert!(
                !overlaps(spans[i], spans[j]),
                "{} {:?} overlapped {} {:?} in a sequential plan",
                ids[i],
                spans[i],
                ids[j],
                spans[j]
            );
        }
    }
    assert!(
        spans[0].1 <= spans[1].0 && spans[1].1 <= spans[2].0,
        "a, b, c out of order: {spans:?}"
    );
}

/// In a parallel plan an async:false tool runs alone: nothing overlaps it.
#[test]
fn sync_tool_in_parallel_plan_runs_alone() {
    let f = fixture();
    let mut plan = plan(json!([
        tool_with("p1", json!({"sleep": 1}), json!({"async": true})),
        tool_with("solo", json!({"sleep": 1}), json!({"async": false})),
        tool_with("p2", json!({"sleep": 1}), json!({"async": true})),
        tool_with("p3", json!({"sleep": 1}), json!({"async": true}))
    ]));
    plan["parallel"] = json!(true);

    let run = run_plan_with(&plan, &roots(&f), None, &["--max-concurrency", "4"], &[]);
    let result = run.json();

    assert_eq!(run.code, 0, "{}", pretty(&result));
    let solo = interval(trace(&result, "solo"));
    for id in ["p1", "p2", "p3"] {
        let other = interval(trace(&result, id));
        assert!(
            !overlaps(solo, other),
            "{id} {other:?} overlapped the async:false tool {solo:?}"
        );
    }
}

/// `--max-concurrency 1` prevents any overlap in a parallel plan.
#[test]
fn max_concurrency_one_prevents_overlap() {
    let f = fixture();
    let mut plan = plan(json!([
        tool_with("p1", json!({"sleep": 0.5}), json!({"async": true})),
        tool_with("p2", json!({"sleep": 0.5}), json!({"async": true})),
        tool_with("p3", json!({"sleep": 0.5}), json!({"async": true}))
    ]));
    plan["parallel"] = json!(true);

    let run = run_plan_with(&plan, &roots(&f), None, &["--max-concurrency", "1"], &[]);
    let result = run.json();

    assert_eq!(run.code, 0, "{}", pretty(&result));
    let ids = ["p1", "p2", "p3"];
    let spans: Vec<_> = ids.iter().map(|id| interval(trace(&result, id))).collect();
    for i in 0..ids.len() {
        for j in i + 1..ids.len() {
            assert!(
                !overlaps(spans[i], spans[j]),
                "{} and {} overlapped: {spans:?}",
                ids[i],
                ids[j]
            );
        }
    }
}

// ---------------------------------------------------------------------------
// Timeouts
// ---------------------------------------------------------------------------

/// A tool exceeding its manifest timeoutSeconds ends in state "timeout",
/// the plan fails with failureReason "timeout", and its dependents are
/// skipped.
#[test]
fn tool_timeout_sets_timeout_state_and_reason() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    let ran_log = dir.path().join("ran.log");
    worker_skill(&root, "w", &ran_log);
    let sleeper = py(r#"
        sys.stdin.read()
        time.sleep(30)
        emit({"type": "done", "ok": True})
    "#);
    skill_with(
        &root,
        "slowpoke",
        json!({"timeoutSeconds": 1}),
        &[("nap.py", &sleeper)],
    );
    let plan = plan(json!([
        {"toolId": "nap", "toolPath": "slowpoke/nap", "input": {}, "retryPolicy": {"maxRetries": 0, "backoffMs": 10}},
        tool_with("after", json!({}), json!({"dependencies": ["nap"]}))
    ]));

    let run = run_plan_with(&plan, &[&root], None, &[], &[]);
    let result = run.json();

    let nap = trace(&result, "nap");
    assert_eq!(nap["state"], "timeout", "{}", pretty(&result));
    assert_eq!(error_type(nap), "timeout");
    assert_eq!(trace(&result, "after")["state"], "skipped");
    assert!(
        ran(&ran_log).is_empty(),
        "a dependent of a timed-out tool ran"
    );
    assert_eq!(result["success"], false);
    assert_eq!(result["failureReason"], "timeout");
    assert_eq!(run.code, 1);
    assert!(
        run.elapsed < Duration::from_secs(25),
        "a 1 s timeout took {:?}",
        run.elapsed
    );
}

/// `--plan-timeout-ms` bounds the whole plan: a tool sleeping 10 s is
/// stopped and narratoria ends within a few seconds; later tools never run.
#[test]
fn plan_timeout_stops_a_long_plan() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    let ran_log = dir.path().join("ran.log");
    worker_skill(&root, "w", &ran_log);
    skill(
        &root,
        "long",
        &[("wait.sh", &sh("cat > /dev/null\nexec sleep 10\n"))],
    );
    let plan = plan(json!([
        {"toolId": "wait", "toolPath": "long/wait", "input": {}, "retryPolicy": {"maxRetries": 0, "backoffMs": 10}},
        tool_with("after", json!({}), json!({"dependencies": ["wait"]}))
    ]));

    let run = run_plan_with(&plan, &[&root], None, &["--plan-timeout-ms", "1500"], &[]);
    let result = run.json();

    assert!(
        run.elapsed < Duration::from_secs(8),
        "plan timeout of 1.5 s took {:?}",
        run.elapsed
    );
    assert_eq!(result["success"], false, "{}", pretty(&result));
    assert_eq!(result["failureReason"], "timeout");
    assert_eq!(error_type(trace(&result, "wait")), "plan_timeout");
    assert!(
        ran(&ran_log).is_empty(),
        "a tool started after the plan timed out"
    );
    assert_eq!(run.code, 1);
}

// ---------------------------------------------------------------------------
// Skill roots
// ---------------------------------------------------------------------------

/// With several `--skills` roots, a skill name found in a later root
/// overrides the earlier one when running tools.
#[test]
fn later_skills_root_wins_in_run_plan() {
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("builtin");
    let second = dir.path().join("campaign");
    let who = |name: &str| {
        sh(&format!(
            "cat > /dev/null\necho '{{\"type\":\"done\",\"ok\":true,\"output\":\"{name}\"}}'\n"
        ))
    };
    skill(&first, "dice", &[("who.sh", &who("builtin"))]);
    skill(&second, "dice", &[("who.sh", &who("campaign"))]);
    let plan = plan(json!([{"toolId": "t", "toolPath": "dice/who", "input": {}}]));

    let (code, result, _) = run_plan(plan, &[&first, &second], None);

    assert_eq!(code, 0, "{}", pretty(&result));
    assert_eq!(trace(&result, "t")["output"], "campaign");
}

/// A broken folder in the skills root (no manifest) is skipped, not fatal:
/// tools of the valid skills still run.
#[test]
fn broken_skill_folder_does_not_block_other_skills() {
    let f = fixture();
    std::fs::create_dir_all(f.root.join("not-a-skill")).unwrap();
    write(
        &f.root.join("garbled").join("skill.json"),
        "{ this is not json",
    );
    let plan = plan(json!([tool("a", json!({}))]));

    let (code, result, _) = run_plan(plan, &roots(&f), None);

    assert_eq!(code, 0, "{}", pretty(&result));
    assert_eq!(trace(&result, "a")["state"], "completed");
}

// ---------------------------------------------------------------------------
// Unusable input: exit 2, empty stdout, the problem on stderr
// ---------------------------------------------------------------------------

/// Checks the exit-2 contract: status 2, nothing on stdout, the problem
/// explained on stderr (which must contain every `needles` string).
fn assert_usage_error(run: &Run, needles: &[&str]) {
    assert_eq!(
        run.code, 2,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    assert!(
        run.stdout.trim().is_empty(),
        "stdout not empty on exit 2: {}",
        run.stdout
    );
    assert!(
        !run.stderr.trim().is_empty(),
        "stderr does not explain the problem"
    );
    for needle in needles {
        assert!(
            run.stderr.contains(needle),
            "stderr does not mention {needle:?}:\n{}",
            run.stderr
        );
    }
}

/// A plan file that does not exist: exit 2, stderr names the file.
#[test]
fn missing_plan_file_exits_2() {
    let f = fixture();
    let missing = f.root.parent().unwrap().join("no-such-plan.json");
    let run = narratoria(
        [
            "run-plan",
            missing.to_str().unwrap(),
            "--skills",
            f.root.to_str().unwrap(),
        ],
        &[],
    );
    assert_usage_error(&run, &["no-such-plan.json"]);
    assert!(ran(&f.ran_log).is_empty());
}

/// A plan file that is not JSON: exit 2.
#[test]
fn non_json_plan_exits_2() {
    let f = fixture();
    let run = run_plan_text("this is { not json", &roots(&f));
    assert_usage_error(&run, &[]);
}

/// `tools` that is not an array violates the Plan JSON schema: exit 2, and
/// stderr holds the JSON pointer of the offending field.
#[test]
fn plan_with_tools_not_an_array_exits_2() {
    let f = fixture();
    let plan = json!({"requestId": new_uuid(), "tools": "roll the dice"});
    let run = run_plan_text(&plan.to_string(), &roots(&f));
    assert_usage_error(&run, &["/tools"]);
}

/// A tool without `toolId` violates the schema: exit 2, stderr points at
/// `/tools/0` and names `toolId`, and nothing runs.
#[test]
fn plan_with_tool_missing_tool_id_exits_2() {
    let f = fixture();
    let plan = json!({"requestId": new_uuid(), "tools": [{"toolPath": "w/work", "input": {}}]});
    let run = run_plan_text(&plan.to_string(), &roots(&f));
    assert_usage_error(&run, &["/tools/0", "toolId"]);
    assert!(
        ran(&f.ran_log).is_empty(),
        "a tool ran from a schema-invalid plan"
    );
}

/// A field of the wrong type (`required` as a string) violates the schema.
#[test]
fn plan_with_wrongly_typed_field_exits_2() {
    let f = fixture();
    let plan = json!({"requestId": new_uuid(), "tools": [
        {"toolId": "a", "toolPath": "w/work", "input": {}, "required": "yes"}
    ]});
    let run = run_plan_text(&plan.to_string(), &roots(&f));
    assert_usage_error(&run, &["/tools/0/required"]);
    assert!(ran(&f.ran_log).is_empty());
}

/// A skills folder that does not exist is unusable: exit 2.
#[test]
fn nonexistent_skills_dir_exits_2() {
    let f = fixture();
    let missing = f.root.parent().unwrap().join("no-such-skills");
    let plan = plan(json!([]));
    let run = run_plan_with(&plan, &[&missing], None, &[], &[]);
    assert_usage_error(&run, &["no-such-skills"]);
}

/// A `--state` file that does not exist is an unreadable file: exit 2.
#[test]
fn missing_state_file_exits_2() {
    let f = fixture();
    let plan_path = f.root.parent().unwrap().join("plan.json");
    write(&plan_path, plan(json!([tool("a", json!({}))])).to_string());
    let run = narratoria(
        [
            "run-plan",
            plan_path.to_str().unwrap(),
            "--skills",
            f.root.to_str().unwrap(),
            "--state",
            "/nonexistent/state.json",
        ],
        &[],
    );
    assert_usage_error(&run, &[]);
    assert!(ran(&f.ran_log).is_empty());
}
