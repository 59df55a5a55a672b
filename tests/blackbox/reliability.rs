//! Reliability: what a script sends can always be stored and read back, a
//! player's choice made during a turn survives the turn, and no skill script
//! outlives the host (docs/security.md, "Processes and data").

use crate::support::*;
use serde_json::{json, Value};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// A storyteller that sleeps `sleep` seconds, then patches the turn count
/// and narrates; `extra` is Python run just before its `done`.
fn storyteller(root: &Path, sleep: f64, extra: &str) {
    let story = py(&format!(
        r#"
        req = json.loads(sys.stdin.readline())
        time.sleep({sleep})
        n = req["state"].get("turns", 0) + 1
        {extra}
        text = "The tale goes on (turn %d)." % n
        emit({{"type": "state_patch", "patch": {{"turns": n}}}})
        emit({{"type": "done", "ok": True, "output": {{"narrative": text}}}})
        "#
    ));
    skill(root, "storyteller", &[("narrate.py", &story)]);
}

/// A dice roller that always rolls 17.
fn dice(root: &Path) {
    let roll = sh(r#"
        read -r line
        echo '{"type":"done","ok":true,"output":{"formula":"1d20","rolls":[17],"total":17}}'
    "#);
    skill(root, "dice-roller", &[("roll-dice.sh", &roll)]);
}

/// The JSON export of the only session in `db`.
fn export_only_session(db: &Path, home: &Path) -> Run {
    let list = narratoria(
        ["sessions", "list", "--session", r(db), "--json"],
        &env(home),
    );
    assert_eq!(list.code, 0, "{}", list.stderr);
    let id = list.json()[0]["id"].as_str().unwrap().to_string();
    narratoria(
        [
            "sessions",
            "export",
            &id,
            "--session",
            r(db),
            "--format",
            "json",
        ],
        &env(home),
    )
}

// ---------------------------------------------------------------------------
// Deeply nested JSON from a script
// ---------------------------------------------------------------------------

/// Python for a log event whose extra field nests `levels` levels in all.
fn nested_log(levels: usize) -> String {
    format!(
        r#"emit({{"type": "log", "level": "info", "message": "deep", "extra": json.loads("[" * {inner} + "1" + "]" * {inner})}})"#,
        inner = levels - 1
    )
}

/// A line nested deeper than the protocol allows is a protocol violation
/// that says why; one at the limit is accepted.
#[test]
fn a_line_nested_too_deep_is_a_protocol_violation() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    for (name, levels) in [("deep", 126), ("fine", 32)] {
        let script = py(&format!(
            "sys.stdin.read()\n{}\nemit({{\"type\": \"done\", \"ok\": True}})\n",
            nested_log(levels)
        ));
        skill(&root, name, &[("speak.py", &script)]);
    }
    let plan = plan(json!([
        {"toolId": "deep", "toolPath": "deep/speak", "input": {}},
        {"toolId": "fine", "toolPath": "fine/speak", "input": {}}
    ]));
    let (code, result, _) = run_plan(plan, &[&root], None);
    assert_eq!(code, 1, "{}", pretty(&result));
    let deep = trace(&result, "deep");
    assert_eq!(error_type(deep), "protocol_violation", "{}", pretty(deep));
    let message = deep["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("126 levels deep") && message.contains("32"),
        "{message}"
    );
    assert_eq!(trace(&result, "fine")["state"], "completed");
}

/// A storyteller sending a log event nested 126 levels deep cannot make the
/// saved story unreadable: the turn is saved and the session reads back.
#[test]
fn a_deeply_nested_event_does_not_make_the_session_unreadable() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    storyteller(&root, 0.0, &nested_log(126));
    let db = dir.path().join("game.db");
    let played = turn(&root, &db, dir.path(), "I look around");
    assert_eq!(played.code, 0, "{}", played.stderr);
    let export = export_only_session(&db, dir.path());
    assert_eq!(
        export.code, 0,
        "the session cannot be read back: {}",
        export.stderr
    );
    let doc = export.json();
    assert_eq!(
        doc["turns"].as_array().map(Vec::len),
        Some(1),
        "{}",
        pretty(&doc)
    );
    let sessions = narratoria(
        ["sessions", "list", "--session", r(&db), "--json"],
        &env(dir.path()),
    );
    assert_eq!(sessions.json()[0]["turns"], 1);
}

// ---------------------------------------------------------------------------
// Skill choices made during a turn
// ---------------------------------------------------------------------------

/// Starts `narratoria ARGS` in the background, without a model.
fn start(args: &[&str], home: &Path) -> Child {
    Command::new(bin())
        .args(args)
        .env(NO_MODEL.0, NO_MODEL.1)
        .env("NARRATORIA_HOME", home)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot start the narratoria binary")
}

fn skill_enabled(list: &Value, name: &str) -> bool {
    list.as_array()
        .or_else(|| list["skills"].as_array())
        .unwrap_or_else(|| panic!("no skill list in {}", pretty(list)))
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no skill {name} in {}", pretty(list)))["enabled"]
        .as_bool()
        .unwrap()
}

/// `skills disable` while a turn is being played stays disabled after the
/// turn saves the skills' health.
#[test]
fn a_skill_disabled_during_a_turn_stays_disabled() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    storyteller(&root, 2.0, "");
    dice(&root);
    let db = dir.path().join("game.db");
    let playing = start(
        &[
            "turn",
            "I attack the goblin",
            "--skills",
            r(&root),
            "--session",
            r(&db),
            "--json",
        ],
        dir.path(),
    );
    // The turn has opened its session (and saved the choices) by now.
    thread::sleep(Duration::from_millis(800));
    let disable = narratoria(
        ["skills", "disable", "dice-roller", "--skills", r(&root)],
        &env(dir.path()),
    );
    assert_eq!(disable.code, 0, "{}", disable.stderr);
    let out = playing.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let list = narratoria(
        ["skills", "list", "--skills", r(&root), "--json"],
        &env(dir.path()),
    );
    assert!(
        !skill_enabled(&list.json(), "dice-roller"),
        "the turn's save turned dice-roller back on:\n{}",
        list.stdout
    );
    // And the next turn honours it.
    let next = turn(&root, &db, dir.path(), "I attack the goblin again");
    let result = next.json();
    let paths: Vec<&str> = result["executionTrace"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["toolPath"].as_str())
        .collect();
    assert!(
        !paths.contains(&"dice-roller/roll-dice"),
        "{}",
        pretty(&result)
    );
}

// ---------------------------------------------------------------------------
// Scripts do not outlive the host
// ---------------------------------------------------------------------------

/// Polls until `path` holds a pid, for at most 10 s.
fn wait_for_pid(path: &Path) -> u32 {
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(pid) = read_pid(path) {
            return pid;
        }
        assert!(
            Instant::now() < until,
            "the script never wrote {}",
            path.display()
        );
        thread::sleep(Duration::from_millis(20));
    }
}

/// Starts `narratoria run-plan` on a script that records its own pid and
/// its background child's pid, then sleeps 60 s; returns the host and the
/// two pids once both are written.
fn start_sleeper(dir: &Path) -> (Child, u32, u32) {
    let root = dir.join("skills");
    let (script_pid, child_pid) = (dir.join("script.pid"), dir.join("child.pid"));
    let script = py(&format!(
        r#"
        import subprocess
        sys.stdin.readline()
        child = subprocess.Popen(["sleep", "60"])
        with open({child}, "w") as f:
            f.write("%d\n" % child.pid)
        with open({me}, "w") as f:
            f.write("%d\n" % os.getpid())
        time.sleep(60)
        emit({{"type": "done", "ok": True}})
        "#,
        child = lit(&child_pid),
        me = lit(&script_pid)
    ));
    skill_with(
        &root,
        "slow",
        json!({"timeoutSeconds": 120}),
        &[("sleep.py", &script)],
    );
    let plan_path = dir.join("plan.json");
    write(
        &plan_path,
        serde_json::to_vec(&plan(
            json!([{"toolId": "t", "toolPath": "slow/sleep", "input": {}}]),
        ))
        .unwrap(),
    );
    let host = Command::new(bin())
        .args(["run-plan", r(&plan_path), "--skills", r(&root)])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("cannot start the narratoria binary");
    let script = wait_for_pid(&script_pid);
    let child = wait_for_pid(&child_pid);
    (host, script, child)
}

/// Kills whatever survived (so a failing test leaves nothing behind) and
/// returns the survivors among `pids`.
fn survivors(pids: &[u32]) -> Vec<u32> {
    let mut alive = Vec::new();
    for &pid in pids {
        if !wait_gone(pid, Duration::from_secs(2)) {
            alive.push(pid);
            kill_pid(pid);
        }
    }
    alive
}

/// SIGKILL to the host: the kernel kills the script (the parent-death
/// signal) within 2 s.
#[cfg(target_os = "linux")]
#[test]
fn a_script_dies_with_a_host_killed_by_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let (mut host, script, child) = start_sleeper(dir.path());
    host.kill().unwrap(); // SIGKILL
    host.wait().unwrap();
    let left = survivors(&[script]);
    kill_pid(child); // its own child is a known limit (docs/security.md)
    assert!(left.is_empty(), "script {script} outlived its killed host");
}

/// SIGTERM and SIGINT to the host: the script's whole process group is
/// killed before the host ends, and the host ends by that signal.
#[test]
fn a_scripts_process_group_dies_with_a_host_told_to_stop() {
    for signal in ["TERM", "INT"] {
        let dir = tempfile::tempdir().unwrap();
        let (mut host, script, child) = start_sleeper(dir.path());
        let sent = Command::new("kill")
            .args([format!("-{signal}"), host.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let until = Instant::now() + Duration::from_secs(5);
        let status = loop {
            if let Some(status) = host.try_wait().unwrap() {
                break Some(status);
            }
            if Instant::now() > until {
                let _ = host.kill();
                break None;
            }
            thread::sleep(Duration::from_millis(20));
        };
        let left = survivors(&[script, child]);
        assert!(left.is_empty(), "SIGTERM: {left:?} outlived the host");
        let status = status.unwrap_or_else(|| panic!("the host ignored SIG{signal}"));
        use std::os::unix::process::ExitStatusExt;
        let expected = if signal == "TERM" { 15 } else { 2 };
        assert_eq!(status.signal(), Some(expected), "SIG{signal}: {status:?}");
    }
}

// ---------------------------------------------------------------------------
// A grandchild that keeps stdout open
// ---------------------------------------------------------------------------

/// A script that says `done ok:true` and exits 0, leaving a grandchild in a
/// session of its own that holds stdout, completes at once rather than
/// timing out.
#[test]
fn a_setsid_grandchild_holding_stdout_does_not_turn_success_into_a_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    let orphan = dir.path().join("orphan.pid");
    let script = sh(&format!(
        r#"
        read -r line
        setsid sleep 30 &
        echo $! > {orphan}
        echo '{{"type":"done","ok":true,"output":{{"fine":true}}}}'
        exit 0
        "#,
        orphan = lit(&orphan)
    ));
    skill_with(
        &root,
        "leaky",
        json!({"timeoutSeconds": 10}),
        &[("leave.sh", &script)],
    );
    let plan = plan(json!([{"toolId": "t", "toolPath": "leaky/leave", "input": {}}]));
    let run = run_plan_with(&plan, &[&root], None, &[], &[]);
    if let Some(pid) = read_pid(&orphan) {
        kill_pid(pid);
    }
    let result = run.json();
    let tool = trace(&result, "t");
    assert_eq!(tool["state"], "completed", "{}", pretty(tool));
    assert_eq!(tool["output"], json!({"fine": true}));
    assert_eq!(run.code, 0);
    assert!(
        run.elapsed < Duration::from_secs(4),
        "the tool waited {:?} for a pipe a grandchild held",
        run.elapsed
    );
}

// ---------------------------------------------------------------------------
// Output caps over retries and over a plan
// ---------------------------------------------------------------------------

/// Python that logs about `mib` MiB in 64,000-character messages.
fn chatter(mib: f64) -> String {
    format!(
        "msg = 'x' * 64000\nfor i in range(int({mib} * 1048576 / 64100)):\n    emit({{'type': 'log', 'level': 'info', 'message': msg}})\n"
    )
}

/// A script that writes nearly 8 MiB and exits 1, with 3 retries: the
/// stdout cap covers the attempts together, so the result stays near 8 MiB.
#[test]
fn the_stdout_cap_covers_all_attempts_of_a_tool() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    let script = py(&format!("sys.stdin.read()\n{}sys.exit(1)\n", chatter(7.8)));
    skill(&root, "loud", &[("shout.py", &script)]);
    let plan = plan(json!([{
        "toolId": "t", "toolPath": "loud/shout", "input": {},
        "retryPolicy": {"maxRetries": 3, "backoffMs": 10}
    }]));
    let run = run_plan_with(&plan, &[&root], None, &[], &[]);
    let size = run.stdout.len();
    let result = run.json();
    let tool = trace(&result, "t");
    assert_eq!(tool["retryCount"], 1, "{}", tool["error"]);
    assert_eq!(error_type(tool), "protocol_violation", "{}", tool["error"]);
    assert!(
        size < 10 * 1024 * 1024,
        "the result is {size} bytes after retries"
    );
}

/// Five tools each writing 7.5 MiB: the plan's 32 MiB cap stops the last
/// ones, and the result stays bounded.
#[test]
fn the_stdout_cap_covers_a_whole_plan() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    let script = py(&format!(
        "sys.stdin.read()\n{}emit({{'type': 'done', 'ok': True}})\n",
        chatter(7.5)
    ));
    skill(&root, "loud", &[("shout.py", &script)]);
    let tools: Vec<Value> = (0..5)
        .map(|i| json!({"toolId": format!("t{i}"), "toolPath": "loud/shout", "input": {}}))
        .collect();
    let plan = plan(Value::Array(tools));
    let run = run_plan_with(&plan, &[&root], None, &["--max-concurrency", "1"], &[]);
    let size = run.stdout.len();
    let result = run.json();
    let messages: Vec<String> = result["executionTrace"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["error"]["message"].as_str().map(String::from))
        .collect();
    assert!(
        messages.iter().any(|m| m.contains("together")),
        "no tool hit the plan's cap: {messages:?}"
    );
    assert!(size < 34 * 1024 * 1024, "the result is {size} bytes");
}
