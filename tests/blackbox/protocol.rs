//! The skill script protocol "narratoria/1" (shared/spec/protocol.md), seen
//! from the outside: what a script receives, what it may emit, and how the
//! executor classifies each attempt.

use crate::support::*;
use serde_json::{json, Value};
use std::fs;
use std::path::Path;
use std::time::Duration;

/// A script that echoes its whole stdin envelope as `done.output`.
fn echo_script() -> String {
    py(r#"
        env = json.loads(sys.stdin.read())
        emit({"type": "done", "ok": True, "output": env})
    "#)
}

// ---------------------------------------------------------------------------
// Launch: stdin envelope, environment, working directory
// ---------------------------------------------------------------------------

/// stdin carries one envelope with protocol, requestId (= plan requestId),
/// toolId, input, deps ({} without dependencies), config ({} without
/// config.json) and the session state given with `--state`.
#[test]
fn stdin_envelope_carries_request_tool_input_config_and_state() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    skill(&root, "echoer", &[("echo.py", &echo_script())]);
    let input = json!({"n": 1, "nested": {"s": "x", "list": [1, 2]}});
    let plan = plan(json!([{"toolId": "first", "toolPath": "echoer/echo", "input": input}]));
    let state = json!({"hp": 10, "inventory": ["rope"]});

    let (code, result, _) = run_plan(plan.clone(), &[&root], Some(state.clone()));

    assert_eq!(code, 0, "{}", pretty(&result));
    let tool = trace(&result, "first");
    assert_eq!(tool["state"], "completed", "{}", pretty(&result));
    let env = &tool["output"];
    assert_eq!(env["protocol"], "narratoria/1");
    assert_eq!(env["requestId"], plan["requestId"]);
    assert_eq!(env["toolId"], "first");
    assert_eq!(env["input"], input);
    assert_eq!(env["deps"], json!({}));
    assert_eq!(env["config"], json!({}));
    assert_eq!(env["state"], state);
}

/// `deps.<id>` is the dependency's done.output; `config` is the contents of
/// the tool's own skill's config.json and never another skill's.
#[test]
fn envelope_deps_and_config_come_from_dependency_output_and_own_skill() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    skill(
        &root,
        "producer",
        &[(
            "make.py",
            &py(r#"
            sys.stdin.read()
            emit({"type": "done", "ok": True, "output": {"gold": 42, "items": ["a", "b"]}})
        "#),
        )],
    );
    let consumer = skill(&root, "consumer", &[("echo.py", &echo_script())]);
    write(
        &consumer.join("config.json"),
        r#"{"apiKey": "consumer-secret", "level": 3}"#,
    );
    let producer_config = root.join("producer").join("config.json");
    write(&producer_config, r#"{"apiKey": "producer-secret"}"#);

    let plan = plan(json!([
        {"toolId": "make", "toolPath": "producer/make", "input": {}},
        {"toolId": "use", "toolPath": "consumer/echo", "input": {}, "dependencies": ["make"]}
    ]));
    let (code, result, _) = run_plan(plan, &[&root], None);

    assert_eq!(code, 0, "{}", pretty(&result));
    let env = &trace(&result, "use")["output"];
    assert_eq!(
        env["deps"],
        json!({"make": {"gold": 42, "items": ["a", "b"]}})
    );
    assert_eq!(
        env["config"],
        json!({"apiKey": "consumer-secret", "level": 3})
    );
    assert!(
        !env.to_string().contains("producer-secret"),
        "another skill's config leaked: {env}"
    );
}

/// The script runs in the skill folder with a minimal environment: the
/// NARRATORIA_* variables are set (DATA_DIR exists and is writable), PATH,
/// LANG and TMPDIR are kept, and host variables such as SECRET_TOKEN are not
/// visible.
#[test]
fn script_gets_minimal_environment_and_skill_folder_as_cwd() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    let env_file = dir.path().join("env.txt");
    let cwd_file = dir.path().join("cwd.txt");
    let host_tmp = dir.path().join("host-tmp");
    fs::create_dir_all(&host_tmp).unwrap();
    let script = sh(&format!(
        r#"
        cat > /dev/null
        env > '{env}'
        pwd -P > '{cwd}'
        if [ -d "$NARRATORIA_DATA_DIR" ] && touch "$NARRATORIA_DATA_DIR/probe"; then w=true; else w=false; fi
        printf '{{"type":"done","ok":true,"output":{{"dataDirWritable":%s}}}}\n' "$w"
        "#,
        env = env_file.display(),
        cwd = cwd_file.display()
    ));
    let skill_dir = skill(&root, "envy", &[("probe.sh", &script)]);
    let plan = plan(json!([{"toolId": "probe", "toolPath": "envy/probe", "input": {}}]));

    let run = run_plan_with(
        &plan,
        &[&root],
        None,
        &[],
        &[
            ("SECRET_TOKEN", "hunter2"),
            ("NARRATORIA_TEST_HOST_ONLY", "leak"),
            ("LANG", "C.UTF-8"),
            ("TMPDIR", host_tmp.to_str().unwrap()),
        ],
    );
    let result = run.json();

    assert_eq!(run.code, 0, "{}", pretty(&result));
    assert_eq!(trace(&result, "probe")["output"]["dataDirWritable"], true);
    let env = parse_env(&fs::read_to_string(&env_file).expect("the script did not run"));
    assert_eq!(
        env.get("NARRATORIA_PROTOCOL").map(String::as_str),
        Some("1")
    );
    assert_eq!(
        env.get("NARRATORIA_REQUEST_ID"),
        plan["requestId"].as_str().map(String::from).as_ref()
    );
    assert_eq!(
        env.get("NARRATORIA_TOOL_ID").map(String::as_str),
        Some("probe")
    );
    let skill_env = env
        .get("NARRATORIA_SKILL_DIR")
        .expect("NARRATORIA_SKILL_DIR missing");
    assert!(
        same_path(skill_env, &skill_dir),
        "NARRATORIA_SKILL_DIR = {skill_env}"
    );
    assert!(
        env.contains_key("NARRATORIA_DATA_DIR"),
        "NARRATORIA_DATA_DIR missing"
    );
    assert!(env.contains_key("PATH"), "PATH was not kept");
    assert_eq!(
        env.get("LANG").map(String::as_str),
        Some("C.UTF-8"),
        "LANG was not kept"
    );
    assert_eq!(
        env.get("TMPDIR").map(String::as_str),
        host_tmp.to_str(),
        "TMPDIR was not kept"
    );
    assert!(
        !env.contains_key("SECRET_TOKEN"),
        "host SECRET_TOKEN visible to the script"
    );
    assert!(
        !env.values().any(|v| v.contains("hunter2")),
        "host secret value visible to the script"
    );

    // Only the documented variables, plus what sh itself sets.
    const KEPT: &[&str] = &[
        "PATH", "HOME", "LANG", "TMPDIR", "PWD", "OLDPWD", "SHLVL", "_",
    ];
    let unexpected: Vec<_> = env
        .keys()
        .filter(|k| !KEPT.contains(&k.as_str()))
        .filter(|k| {
            !matches!(
                k.as_str(),
                "NARRATORIA_PROTOCOL"
                    | "NARRATORIA_SKILL_DIR"
                    | "NARRATORIA_DATA_DIR"
                    | "NARRATORIA_REQUEST_ID"
                    | "NARRATORIA_TOOL_ID"
            )
        })
        .collect();
    assert!(
        unexpected.is_empty(),
        "host variables leaked into the script: {unexpected:?}"
    );

    let cwd = fs::read_to_string(&cwd_file).unwrap();
    assert!(
        same_path(cwd.trim(), &skill_dir),
        "cwd was {cwd:?}, not the skill folder"
    );
}

// ---------------------------------------------------------------------------
// Protocol violations
// ---------------------------------------------------------------------------

/// Runs a Python script (`body` after the prelude; stdin is already read and
/// the attempt counted) as required tool "t" with maxRetries 3, and checks
/// the protocol-violation rules: failed with error.type protocol_violation,
/// not retried (retryCount 0 and a single attempt), failureReason
/// protocol_violation, exit status 1.
fn assert_protocol_violation(body: &str) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    let attempts = dir.path().join("attempts.log");
    let script = py(&format!(
        "sys.stdin.read()\nwith open({}, \"a\") as f:\n    f.write(\"attempt\\n\")\n{}",
        lit(&attempts),
        dedent(body)
    ));
    skill(&root, "bad", &[("speak.py", &script)]);
    let plan = plan(json!([{
        "toolId": "t", "toolPath": "bad/speak", "input": {},
        "retryPolicy": {"maxRetries": 3, "backoffMs": 10}
    }]));

    let (code, result, _) = run_plan(plan, &[&root], None);

    let tool = trace(&result, "t");
    assert_eq!(
        error_type(tool),
        "protocol_violation",
        "{}",
        pretty(&result)
    );
    assert_eq!(tool["state"], "failed", "{}", pretty(tool));
    assert_eq!(
        tool["retryCount"], 0,
        "a protocol violation must not be retried"
    );
    assert_eq!(line_count(&attempts), 1, "the script ran more than once");
    assert_eq!(result["success"], false);
    assert_eq!(result["failureReason"], "protocol_violation");
    assert!(failed_tools(&result).contains(&"t".to_string()));
    assert_eq!(code, 1);
}

/// A stdout line that is not JSON is a protocol violation.
#[test]
fn violation_malformed_line() {
    assert_protocol_violation(
        r#"
        print("this is not json", flush=True)
        emit({"type": "done", "ok": True})
    "#,
    );
}

/// A line that is JSON but not an object is a protocol violation.
#[test]
fn violation_json_line_that_is_not_an_object() {
    assert_protocol_violation(
        r#"
        print("[1, 2, 3]", flush=True)
        emit({"type": "done", "ok": True})
    "#,
    );
}

/// An event without `type` is a protocol violation.
#[test]
fn violation_missing_type() {
    assert_protocol_violation(
        r#"
        emit({"level": "info", "message": "where is my type"})
        emit({"type": "done", "ok": True})
    "#,
    );
}

/// An event with an unknown `type` is a protocol violation.
#[test]
fn violation_unknown_type() {
    assert_protocol_violation(
        r#"
        emit({"type": "teleport", "to": "mars"})
        emit({"type": "done", "ok": True})
    "#,
    );
}

/// `done.ok` that is not a boolean is a protocol violation.
#[test]
fn violation_done_ok_not_boolean() {
    assert_protocol_violation(
        r#"
        emit({"type": "done", "ok": "yes"})
    "#,
    );
}

/// Exiting with status 0 without a `done` event is a protocol violation.
#[test]
fn violation_exit_zero_without_done() {
    assert_protocol_violation(
        r#"
        emit({"type": "log", "level": "info", "message": "bye"})
        sys.exit(0)
    "#,
    );
}

/// Any event after `done` is a protocol violation.
#[test]
fn violation_event_after_done() {
    assert_protocol_violation(
        r#"
        emit({"type": "done", "ok": True})
        emit({"type": "log", "level": "info", "message": "one more thing"})
    "#,
    );
}

/// A stdout line over 1 MiB is a protocol violation.
#[test]
fn violation_line_over_one_mib() {
    assert_protocol_violation(
        r#"
        emit({"type": "log", "level": "info", "message": "x" * (1024 * 1024 + 64)})
        emit({"type": "done", "ok": True})
    "#,
    );
}

/// An asset with an absolute path outside the skill and data folders
/// (`/etc/passwd`) is a protocol violation.
#[test]
fn violation_asset_absolute_path_outside_skill() {
    assert_protocol_violation(
        r#"
        emit({"type": "asset", "assetId": "a1", "kind": "file", "path": "/etc/passwd"})
        emit({"type": "done", "ok": True})
    "#,
    );
}

/// An asset with a relative path escaping the skill folder (`../../x`) is a
/// protocol violation.
#[test]
fn violation_asset_relative_path_escaping_skill() {
    assert_protocol_violation(
        r#"
        emit({"type": "asset", "assetId": "a1", "kind": "file", "path": "../../x"})
        emit({"type": "done", "ok": True})
    "#,
    );
}

/// More than 10,000 events in one attempt is a protocol violation.
#[test]
fn violation_more_than_ten_thousand_events() {
    assert_protocol_violation(
        r#"
        for i in range(10001):
            sys.stdout.write(json.dumps({"type": "log", "level": "debug", "message": str(i)}) + "\n")
        emit({"type": "done", "ok": True})
    "#,
    );
}

// ---------------------------------------------------------------------------
// Accepted output
// ---------------------------------------------------------------------------

/// Empty lines are accepted, and so is a final line without `\n`.
#[test]
fn empty_lines_and_unterminated_final_line_are_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    let script = sh(r#"
        cat > /dev/null
        printf '\n{"type":"log","level":"info","message":"a"}\n\n\n'
        printf '{"type":"done","ok":true,"output":{"v":1}}'
    "#);
    skill(&root, "terse", &[("say.sh", &script)]);
    let plan = plan(json!([{"toolId": "t", "toolPath": "terse/say", "input": {}}]));

    let (code, result, _) = run_plan(plan, &[&root], None);

    let tool = trace(&result, "t");
    assert_eq!(tool["state"], "completed", "{}", pretty(&result));
    assert_eq!(tool["ok"], true);
    assert_eq!(tool["output"], json!({"v": 1}));
    assert_eq!(code, 0);
}

/// Unknown extra fields on known events are ignored (forward compatibility),
/// and events are recorded with attempt number 1 and their emitted fields.
#[test]
fn unknown_extra_fields_are_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    let script = py(r#"
        sys.stdin.read()
        emit({"type": "log", "level": "info", "message": "hello", "futureField": {"x": 1}})
        emit({"type": "ui_event", "event": "dice_roll", "payload": {"value": 4}, "priority": 9})
        emit({"type": "done", "ok": True, "output": {"v": 2}, "summary": "fine", "extra": [1]})
    "#);
    skill(&root, "future", &[("say.py", &script)]);
    let plan = plan(json!([{"toolId": "t", "toolPath": "future/say", "input": {}}]));

    let (code, result, _) = run_plan(plan, &[&root], None);

    assert_eq!(code, 0, "{}", pretty(&result));
    let tool = trace(&result, "t");
    assert_eq!(tool["state"], "completed");
    assert_eq!(tool["output"], json!({"v": 2}));
    let events = tool["events"].as_array().expect("events array");
    let log = events
        .iter()
        .find(|e| e["type"] == "log")
        .unwrap_or_else(|| panic!("log event not recorded:\n{}", pretty(tool)));
    assert_eq!(log["message"], "hello");
    assert_eq!(log["attempt"], 1);
    let ui = events
        .iter()
        .find(|e| e["type"] == "ui_event")
        .expect("ui_event not recorded");
    assert_eq!(ui["event"], "dice_roll");
    assert_eq!(ui["payload"], json!({"value": 4}));
}

/// An asset whose path is inside the skill's data folder or the skill folder
/// is accepted (the control for the asset-path violations).
#[test]
fn asset_inside_skill_or_data_folder_is_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    let script = py(r#"
        sys.stdin.read()
        pic = os.path.join(os.environ["NARRATORIA_DATA_DIR"], "pic.txt")
        with open(pic, "w") as f:
            f.write("a picture")
        emit({"type": "asset", "assetId": "pic", "kind": "text", "path": pic, "mimeType": "text/plain"})
        emit({"type": "asset", "assetId": "manifest", "kind": "file", "path": "skill.json"})
        emit({"type": "done", "ok": True})
    "#);
    skill(&root, "painter", &[("paint.py", &script)]);
    let plan = plan(json!([{"toolId": "t", "toolPath": "painter/paint", "input": {}}]));

    let (code, result, _) = run_plan(plan, &[&root], None);

    assert_eq!(
        trace(&result, "t")["state"],
        "completed",
        "{}",
        pretty(&result)
    );
    assert_eq!(code, 0);
}

/// A non-zero exit status is a failure even after `done` with ok:true; the
/// exit code is reported.
#[test]
fn nonzero_exit_after_done_ok_true_is_failure() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    let script = py(r#"
        sys.stdin.read()
        emit({"type": "done", "ok": True, "output": {"v": 1}})
        sys.exit(3)
    "#);
    skill(&root, "liar", &[("run.py", &script)]);
    let plan = plan(json!([{
        "toolId": "t", "toolPath": "liar/run", "input": {},
        "retryPolicy": {"maxRetries": 0, "backoffMs": 10}
    }]));

    let (code, result, _) = run_plan(plan, &[&root], None);

    let tool = trace(&result, "t");
    assert_eq!(tool["state"], "failed", "{}", pretty(&result));
    assert_eq!(error_type(tool), "nonzero_exit");
    assert_eq!(tool["error"]["exitCode"], 3);
    assert_eq!(result["success"], false);
    assert_eq!(result["failureReason"], "tool_failure");
    assert_eq!(code, 1);
}

/// A script killed by a signal fails with error.type `signal`.
#[test]
fn death_by_signal_is_failure() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    let script = sh(r#"
        cat > /dev/null
        kill -9 $$
    "#);
    skill(&root, "doomed", &[("die.sh", &script)]);
    let plan = plan(json!([{
        "toolId": "t", "toolPath": "doomed/die", "input": {},
        "retryPolicy": {"maxRetries": 0, "backoffMs": 10}
    }]));

    let (code, result, _) = run_plan(plan, &[&root], None);

    let tool = trace(&result, "t");
    assert_eq!(tool["state"], "failed", "{}", pretty(&result));
    assert_eq!(error_type(tool), "signal");
    assert_eq!(code, 1);
}

// ---------------------------------------------------------------------------
// Robustness: large streams, hangs
// ---------------------------------------------------------------------------

/// A script that never reads a 2 MB stdin envelope and writes more stdout
/// than a pipe buffer holds finishes without deadlock.
#[test]
fn ignored_large_stdin_does_not_deadlock() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    // ~200 KB of events, more than a pipe buffer, without ever reading stdin.
    let script = sh(r#"
        i=0
        while [ $i -lt 2000 ]; do
          echo '{"type":"log","level":"debug","message":"padding padding padding padding padding padding padding"}'
          i=$((i + 1))
        done
        echo '{"type":"done","ok":true,"output":{"ignored":"stdin"}}'
    "#);
    skill(&root, "deaf", &[("ignore.sh", &script)]);
    let big = "x".repeat(2 * 1024 * 1024);
    let plan = plan(json!([{"toolId": "t", "toolPath": "deaf/ignore", "input": {"blob": big}}]));

    let (code, result, _) = run_plan(plan, &[&root], None);

    let tool = trace(&result, "t");
    assert_eq!(tool["state"], "completed", "{}", pretty(tool));
    assert_eq!(tool["output"], json!({"ignored": "stdin"}));
    assert_eq!(code, 0);
}

/// 5 MB written to stderr neither blocks the script nor breaks the
/// protocol; the tail of stderr is captured, capped, in `stderr`.
#[test]
fn large_stderr_is_drained_and_its_tail_captured() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    let script = py(r#"
        sys.stdin.read()
        line = "e" * 1023 + "\n"
        for _ in range(5 * 1024):
            sys.stderr.write(line)
        sys.stderr.write("TAIL-MARKER\n")
        sys.stderr.flush()
        emit({"type": "done", "ok": True})
    "#);
    skill(&root, "noisy", &[("shout.py", &script)]);
    let plan = plan(json!([{"toolId": "t", "toolPath": "noisy/shout", "input": {}}]));

    let (code, result, _) = run_plan(plan, &[&root], None);

    let tool = trace(&result, "t");
    assert_eq!(
        tool["state"],
        "completed",
        "{}",
        tail(&result.to_string(), 2000)
    );
    let stderr = tool["stderr"].as_str().expect("stderr string");
    assert!(
        stderr.contains("TAIL-MARKER"),
        "stderr tail not captured: ...{}",
        tail(stderr, 200)
    );
    assert!(
        stderr.len() <= 2 * 1024 * 1024,
        "stderr not capped: {} bytes",
        stderr.len()
    );
    assert_eq!(code, 0);
}

/// A tool that hangs past its manifest `timeoutSeconds` ends in state
/// `timeout` (failureReason `timeout`), and its whole process group is
/// killed: a sleeping grandchild does not outlive the tool.
#[test]
fn timeout_kills_the_whole_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    let child_pid = dir.path().join("child.pid");
    let grandchild_pid = dir.path().join("grandchild.pid");
    let script = sh(&format!(
        r#"
        cat > /dev/null
        sleep 300 &
        echo $! > '{grandchild}'
        echo $$ > '{child}'
        exec sleep 300
        "#,
        grandchild = grandchild_pid.display(),
        child = child_pid.display()
    ));
    skill_with(
        &root,
        "hang",
        json!({"timeoutSeconds": 1}),
        &[("forever.sh", &script)],
    );
    let plan = plan(json!([{
        "toolId": "t", "toolPath": "hang/forever", "input": {},
        "retryPolicy": {"maxRetries": 0, "backoffMs": 10}
    }]));

    // Catch a failed run (e.g. the wall-clock guard) so the leftover
    // processes are cleaned up before the test fails.
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        run_plan_with(&plan, &[&root], None, &[], &[])
    }));

    // Check (and clean up) the processes before asserting anything else.
    let mut survivors = Vec::new();
    for pid in [read_pid(&grandchild_pid), read_pid(&child_pid)]
        .into_iter()
        .flatten()
    {
        if !wait_gone(pid, Duration::from_secs(2)) {
            survivors.push(pid);
            kill_pid(pid);
        }
    }
    let run = run.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    let result = run.json();
    assert!(
        read_pid(&grandchild_pid).is_some(),
        "the script never started:\n{}",
        pretty(&result)
    );
    assert!(
        survivors.is_empty(),
        "processes outlived the timed-out tool: {survivors:?}"
    );
    let tool = trace(&result, "t");
    assert_eq!(tool["state"], "timeout", "{}", pretty(&result));
    assert_eq!(error_type(tool), "timeout");
    assert_eq!(result["success"], false);
    assert_eq!(result["failureReason"], "timeout");
    assert_eq!(run.code, 1);
    assert!(
        run.elapsed < Duration::from_secs(30),
        "took {:?} for a 1 s timeout",
        run.elapsed
    );
}

// ---------------------------------------------------------------------------
// Scripts that cannot start
// ---------------------------------------------------------------------------

/// A script without execute permission fails with `spawn_failed` and is not
/// retried.
#[test]
fn non_executable_script_is_spawn_failed_and_not_retried() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    let marker = dir.path().join("ran");
    let skill_dir = skill(
        &root,
        "locked",
        &[("run.sh", &sh(&format!("touch '{}'\n", marker.display())))],
    );
    chmod(&skill_dir.join("scripts").join("run.sh"), 0o644);
    let plan = plan(json!([{
        "toolId": "t", "toolPath": "locked/run", "input": {},
        "retryPolicy": {"maxRetries": 3, "backoffMs": 10}
    }]));

    let (code, result, _) = run_plan(plan, &[&root], None);

    let tool = trace(&result, "t");
    assert_eq!(error_type(tool), "spawn_failed", "{}", pretty(&result));
    assert_eq!(tool["retryCount"], 0);
    assert!(!marker.exists(), "a non-executable script ran");
    assert_eq!(result["success"], false);
    assert_eq!(code, 1);
}

/// A script whose interpreter line names a missing interpreter fails with
/// `spawn_failed` and is not retried.
#[test]
fn bad_interpreter_is_spawn_failed_and_not_retried() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    skill(
        &root,
        "broken",
        &[("run.sh", "#!/nonexistent/interpreter\necho hi\n")],
    );
    let plan = plan(json!([{
        "toolId": "t", "toolPath": "broken/run", "input": {},
        "retryPolicy": {"maxRetries": 3, "backoffMs": 10}
    }]));

    let (code, result, _) = run_plan(plan, &[&root], None);

    let tool = trace(&result, "t");
    assert_eq!(error_type(tool), "spawn_failed", "{}", pretty(&result));
    assert_eq!(tool["retryCount"], 0);
    assert_eq!(code, 1);
}

// ---------------------------------------------------------------------------
// toolPath resolution (the plan is untrusted)
// ---------------------------------------------------------------------------

/// Layout for the toolPath tests: skills root at `<tmp>/l1/l2/skills` with a
/// harmless skill `dice`, and marker-touching executables placed where a
/// naive resolution of an escaping path would find them.
struct Escape {
    _dir: tempfile::TempDir,
    root: std::path::PathBuf,
    marker: std::path::PathBuf,
    outside: std::path::PathBuf,
}

fn escape_layout() -> Escape {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("l1").join("l2").join("skills");
    let marker = dir.path().join("escaped");
    let evil = sh(&format!(
        "cat > /dev/null\ntouch '{}'\necho '{{\"type\":\"done\",\"ok\":true}}'\n",
        marker.display()
    ));
    skill(
        &root,
        "dice",
        &[(
            "roll.sh",
            &sh("cat > /dev/null\necho '{\"type\":\"done\",\"ok\":true}'\n"),
        )],
    );
    let outside = dir.path().join("outside").join("evil.sh");
    for path in [
        outside.clone(),
        dir.path().join("l1").join("x"),
        dir.path().join("l1").join("l2").join("x"),
        dir.path().join("x"),
    ] {
        write(&path, &evil);
        chmod(&path, 0o755);
    }
    Escape {
        _dir: dir,
        root,
        marker,
        outside,
    }
}

/// Runs one required tool with `tool_path` and checks `tool_not_found`:
/// nothing ran, not retried, the plan failed.
fn assert_tool_not_found(layout: &Escape, tool_path: &str) {
    let plan = plan(json!([{
        "toolId": "t", "toolPath": tool_path, "input": {},
        "retryPolicy": {"maxRetries": 3, "backoffMs": 10}
    }]));
    let (code, result, _) = run_plan(plan, &[&layout.root], None);

    let tool = trace(&result, "t");
    assert_eq!(
        error_type(tool),
        "tool_not_found",
        "toolPath {tool_path:?}:\n{}",
        pretty(&result)
    );
    assert_eq!(tool["state"], "failed", "{}", pretty(tool));
    assert_eq!(tool["retryCount"], 0);
    assert!(
        !layout.marker.exists(),
        "toolPath {tool_path:?} ran a script outside the skills"
    );
    assert_eq!(result["success"], false);
    assert_eq!(code, 1);
}

/// toolPath `/bin/sh` is not a skill script: tool_not_found.
#[test]
fn tool_path_bin_sh_is_not_found() {
    assert_tool_not_found(&escape_layout(), "/bin/sh");
}

/// Relative toolPaths escaping the skills root are tool_not_found and run
/// nothing.
#[test]
fn tool_path_relative_escape_is_not_found() {
    let layout = escape_layout();
    for path in [
        "../../x",
        "../x",
        "dice/../../x",
        "../../../outside/evil.sh",
        "dice/../../../../outside/evil.sh",
    ] {
        assert_tool_not_found(&layout, path);
    }
}

/// An absolute toolPath to an executable outside every skill is
/// tool_not_found and does not run.
#[test]
fn tool_path_absolute_outside_skills_is_not_found() {
    let layout = escape_layout();
    let outside = layout.outside.to_str().unwrap().to_string();
    assert_tool_not_found(&layout, &outside);
}

/// A symlink in a skill's scripts/ pointing outside the skill is
/// tool_not_found and its target does not run.
#[test]
fn tool_path_symlink_out_of_skill_is_not_found() {
    let layout = escape_layout();
    let link = layout.root.join("dice").join("scripts").join("sneaky.sh");
    std::os::unix::fs::symlink(&layout.outside, &link).unwrap();
    assert_tool_not_found(&layout, "dice/sneaky");
}

/// An unknown skill or script name is tool_not_found.
#[test]
fn tool_path_unknown_skill_or_script_is_not_found() {
    let layout = escape_layout();
    assert_tool_not_found(&layout, "nosuchskill/roll");
    assert_tool_not_found(&layout, "dice/nosuchscript");
}

/// An absolute toolPath that canonicalises to a script of a discovered skill
/// is accepted (the control for the escape tests).
#[test]
fn tool_path_absolute_to_skill_script_runs() {
    let layout = escape_layout();
    let script = layout.root.join("dice").join("scripts").join("roll.sh");
    let plan = plan(json!([{"toolId": "t", "toolPath": script.to_str().unwrap(), "input": {}}]));

    let (code, result, _) = run_plan(plan, &[&layout.root], None);

    assert_eq!(
        trace(&result, "t")["state"],
        "completed",
        "{}",
        pretty(&result)
    );
    assert_eq!(code, 0);
}

// ---------------------------------------------------------------------------
// Retries
// ---------------------------------------------------------------------------

/// A script that fails its first `fail_times` attempts (counted in
/// $NARRATORIA_DATA_DIR) and then succeeds. Every attempt appends
/// "<n> <time>" to `stamps`, logs "attempt <n>" and patches `attempt_<n>`.
fn flaky_script(stamps: &Path, fail_times: u32) -> String {
    py(&format!(
        r#"
        sys.stdin.read()
        now = time.time()
        counter = os.path.join(os.environ["NARRATORIA_DATA_DIR"], "count")
        n = int(open(counter).read()) + 1 if os.path.exists(counter) else 1
        with open(counter, "w") as f:
            f.write(str(n))
        with open({stamps}, "a") as f:
            f.write("%d %.6f\n" % (n, now))
        emit({{"type": "log", "level": "info", "message": "attempt %d" % n}})
        emit({{"type": "state_patch", "patch": {{"attempt_%d" % n: True, "last": n}}}})
        if n <= {fail_times}:
            emit({{"type": "done", "ok": False, "summary": "flaky"}})
            sys.exit(0)
        emit({{"type": "done", "ok": True, "output": {{"attempts": n}}}})
        "#,
        stamps = lit(stamps),
        fail_times = fail_times
    ))
}

/// Retries with exponential backoff: two failures then success with
/// maxRetries 3, backoffMs 200 → completed, retryCount 2, gaps between
/// attempt starts ≥ 200 ms then ≥ 400 ms; events of every attempt are kept,
/// numbered 1..3.
#[test]
fn retries_with_exponential_backoff_until_success() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    let stamps = dir.path().join("stamps.txt");
    skill(&root, "flaky", &[("try.py", &flaky_script(&stamps, 2))]);
    let plan = plan(json!([{
        "toolId": "t", "toolPath": "flaky/try", "input": {},
        "retryPolicy": {"maxRetries": 3, "backoffMs": 200}
    }]));

    let (code, result, _) = run_plan(plan, &[&root], None);

    let tool = trace(&result, "t");
    assert_eq!(tool["state"], "completed", "{}", pretty(&result));
    assert_eq!(tool["retryCount"], 2);
    assert_eq!(tool["output"], json!({"attempts": 3}));
    assert_eq!(code, 0);

    let times: Vec<f64> = fs::read_to_string(&stamps)
        .unwrap()
        .lines()
        .map(|l| l.split_whitespace().nth(1).unwrap().parse().unwrap())
        .collect();
    assert_eq!(times.len(), 3, "expected 3 attempts, got {times:?}");
    let (gap1, gap2) = (times[1] - times[0], times[2] - times[1]);
    assert!(
        gap1 >= 0.195,
        "first retry came {gap1:.3}s after attempt 1 (backoff 200 ms)"
    );
    assert!(
        gap2 >= 0.395,
        "second retry came {gap2:.3}s after attempt 2 (backoff 400 ms)"
    );

    let logs: Vec<&Value> = tool["events"]
        .as_array()
        .expect("events array")
        .iter()
        .filter(|e| e["type"] == "log")
        .collect();
    assert_eq!(
        logs.len(),
        3,
        "one log per attempt expected:\n{}",
        pretty(tool)
    );
    for (i, event) in logs.iter().enumerate() {
        let n = i + 1;
        assert_eq!(event["attempt"], n, "{}", pretty(event));
        assert_eq!(event["message"], format!("attempt {n}"));
    }
}

/// State patches of failed attempts are discarded (transactional); only the
/// succeeding attempt's patch reaches finalState.
#[test]
fn failed_attempt_state_patches_are_discarded() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    let stamps = dir.path().join("stamps.txt");
    skill(&root, "flaky", &[("try.py", &flaky_script(&stamps, 2))]);
    let plan = plan(json!([{
        "toolId": "t", "toolPath": "flaky/try", "input": {},
        "retryPolicy": {"maxRetries": 3, "backoffMs": 10}
    }]));

    let (code, result, _) = run_plan(plan, &[&root], Some(json!({"keep": true})));

    assert_eq!(code, 0, "{}", pretty(&result));
    assert_eq!(
        result["finalState"],
        json!({"keep": true, "attempt_3": true, "last": 3})
    );
}

/// A tool that exhausts its retries fails with the patches of all its
/// attempts discarded and retryCount = maxRetries.
#[test]
fn exhausted_retries_fail_and_leave_no_state() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    let stamps = dir.path().join("stamps.txt");
    skill(&root, "flaky", &[("try.py", &flaky_script(&stamps, 99))]);
    let plan = plan(json!([{
        "toolId": "t", "toolPath": "flaky/try", "input": {},
        "retryPolicy": {"maxRetries": 2, "backoffMs": 10}
    }]));

    let (code, result, _) = run_plan(plan, &[&root], Some(json!({"keep": 1})));

    let tool = trace(&result, "t");
    assert_eq!(tool["state"], "failed", "{}", pretty(&result));
    assert_eq!(tool["retryCount"], 2);
    assert_eq!(error_type(tool), "script_error");
    assert_eq!(line_count(&stamps), 3);
    assert_eq!(result["finalState"], json!({"keep": 1}));
    assert_eq!(result["failureReason"], "tool_failure");
    assert_eq!(code, 1);
}

/// Without a retryPolicy the defaults apply: 3 retries (4 attempts) with
/// backoff 100, 200, 400 ms.
#[test]
fn default_retry_policy_is_three_retries_with_backoff_100() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    let stamps = dir.path().join("stamps.txt");
    skill(&root, "flaky", &[("try.py", &flaky_script(&stamps, 99))]);
    let plan = plan(json!([{"toolId": "t", "toolPath": "flaky/try", "input": {}}]));

    let (code, result, _) = run_plan(plan, &[&root], None);

    let tool = trace(&result, "t");
    assert_eq!(tool["state"], "failed", "{}", pretty(&result));
    assert_eq!(tool["retryCount"], 3);
    let times: Vec<f64> = fs::read_to_string(&stamps)
        .unwrap()
        .lines()
        .map(|l| l.split_whitespace().nth(1).unwrap().parse().unwrap())
        .collect();
    assert_eq!(times.len(), 4, "expected 4 attempts, got {times:?}");
    for (k, min_gap) in [0.095, 0.195, 0.395].into_iter().enumerate() {
        let gap = times[k + 1] - times[k];
        assert!(
            gap >= min_gap,
            "retry {} came {gap:.3}s after the previous attempt",
            k + 1
        );
    }
    assert_eq!(code, 1);
}

/// An `error` event with `recoverable:false` stops retries; the failure code
/// is reported in error.code.
#[test]
fn unrecoverable_error_is_not_retried() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    let attempts = dir.path().join("attempts.log");
    let script = py(&format!(
        r#"
        sys.stdin.read()
        with open({attempts}, "a") as f:
            f.write("attempt\n")
        emit({{"type": "error", "code": "VALIDATION_ERROR", "message": "dice must be d20", "recoverable": False}})
        emit({{"type": "done", "ok": False}})
        "#,
        attempts = lit(&attempts)
    ));
    skill(&root, "strict", &[("check.py", &script)]);
    let plan = plan(json!([{
        "toolId": "t", "toolPath": "strict/check", "input": {},
        "retryPolicy": {"maxRetries": 3, "backoffMs": 10}
    }]));

    let (code, result, _) = run_plan(plan, &[&root], None);

    let tool = trace(&result, "t");
    assert_eq!(tool["state"], "failed", "{}", pretty(&result));
    assert_eq!(tool["retryCount"], 0);
    assert_eq!(
        line_count(&attempts),
        1,
        "an unrecoverable error was retried"
    );
    assert_eq!(error_type(tool), "script_error");
    assert_eq!(tool["error"]["code"], "VALIDATION_ERROR");
    assert_eq!(tool["error"]["recoverable"], false);
    assert_eq!(code, 1);
}
