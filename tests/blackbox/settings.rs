//! Skill settings, user choices and live reload through the binary:
//! `skills config`, `skills enable|disable`, `skills watch`, and what a script
//! receives as its config.

use crate::support::*;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const SCHEMA: &str = r#"{
  "$schema": "http://json-schema.org/draft-07/schema#",
  "type": "object",
  "properties": {
    "style": {"type": "string", "enum": ["terse", "vivid"], "default": "terse", "title": "Style"},
    "maxTokens": {"type": "integer", "minimum": 1, "maximum": 4096, "default": 256},
    "apiKey": {"type": "string", "format": "password"},
    "endpoint": {"type": "string"}
  },
  "additionalProperties": false
}"#;

/// A script that prints its config as output and leaks the key on stderr and in a log;
/// it keeps the key it got in `seen-key` in its data folder.
const ECHO_CONFIG: &str = r#"#!/usr/bin/env python3
import json, os, sys
req = json.loads(sys.stdin.readline())
key = req["config"].get("apiKey", "")
with open(os.path.join(os.environ["NARRATORIA_DATA_DIR"], "seen-key"), "w") as f:
    f.write(key)
sys.stderr.write("debug: key is %s\n" % key)
print(json.dumps({"type": "log", "level": "info", "message": "using key " + key}))
print(json.dumps({"type": "done", "ok": True, "output": {"config": req["config"]}}))
"#;

fn home() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn with_home<'a>(home: &'a Path, extra: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut envs = vec![("NARRATORIA_HOME", home.to_str().unwrap())];
    envs.extend_from_slice(extra);
    envs
}

fn configured_skill(root: &Path) -> std::path::PathBuf {
    let dir = skill(root, "teller", &[("tell.py", ECHO_CONFIG)]);
    write(&dir.join("config-schema.json"), SCHEMA);
    dir
}

/// The player's own settings of a skill, as `skills config --set` and
/// `--allow-env` write them.
fn player_settings(home: &Path, skill: &str, settings: Value, allow_env: &[&str]) {
    write(
        &home.join("skill-settings").join(format!("{skill}.json")),
        serde_json::to_vec(&json!({"settings": settings, "allowEnv": allow_env})).unwrap(),
    );
}

/// The script receives schema defaults and the `${VAR}` of the player's own
/// settings resolved from the environment (the player allowed the variable);
/// the secret never shows in events or the stderr tail.
#[test]
fn script_gets_resolved_config_and_secrets_are_scrubbed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    let teller = configured_skill(&root);
    let h = home();
    player_settings(
        h.path(),
        "teller",
        json!({"apiKey": "${TELLER_KEY}", "endpoint": "http://127.0.0.1:9"}),
        &["TELLER_KEY"],
    );
    let plan_path = dir.path().join("plan.json");
    write(
        &plan_path,
        serde_json::to_vec(&plan(json!([{"toolId": "t", "toolPath": "teller/tell"}]))).unwrap(),
    );
    let run = narratoria(
        [
            "run-plan",
            plan_path.to_str().unwrap(),
            "--skills",
            root.to_str().unwrap(),
        ],
        &with_home(h.path(), &[("TELLER_KEY", "sk-live-123456")]),
    );
    let out = run.json();
    assert_eq!(run.code, 0, "{}\n{}", pretty(&out), run.stderr);
    let t = trace(&out, "t");
    assert_eq!(
        std::fs::read_to_string(teller.join("data/seen-key")).unwrap(),
        "sk-live-123456",
        "the script itself gets the secret"
    );
    assert!(
        !t["output"].to_string().contains("sk-live-123456"),
        "but its output does not show it: {}",
        t["output"]
    );
    assert_eq!(
        t["output"]["config"]["style"], "terse",
        "schema default applied"
    );
    assert_eq!(t["output"]["config"]["maxTokens"], 256);
    let log = t["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["type"] == "log")
        .unwrap();
    assert!(
        !log["message"].as_str().unwrap().contains("sk-live-123456"),
        "{log}"
    );
    assert!(
        !t["stderr"].as_str().unwrap().contains("sk-live-123456"),
        "{}",
        t["stderr"]
    );
    // The settings file still holds the placeholder, and the skill folder nothing.
    let stored: Value = serde_json::from_str(
        &std::fs::read_to_string(h.path().join("skill-settings/teller.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(stored["settings"]["apiKey"], "${TELLER_KEY}");
    assert!(!teller.join("config.json").exists());
}

/// An unset `${VAR}` fails the tool with a message naming the variable, without running it.
#[test]
fn unset_variable_fails_the_tool_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    configured_skill(&root);
    let h = home();
    player_settings(
        h.path(),
        "teller",
        json!({"apiKey": "${NARRATORIA_TEST_UNSET_VAR}"}),
        &["NARRATORIA_TEST_UNSET_VAR"],
    );
    let plan_path = dir.path().join("plan.json");
    write(
        &plan_path,
        serde_json::to_vec(&plan(json!([{"toolId": "t", "toolPath": "teller/tell"}]))).unwrap(),
    );
    let run = narratoria(
        [
            "run-plan",
            plan_path.to_str().unwrap(),
            "--skills",
            root.to_str().unwrap(),
        ],
        &with_home(h.path(), &[]),
    );
    let out = run.json();
    assert_eq!(run.code, 1);
    let t = trace(&out, "t");
    assert_eq!(error_type(t), "config_invalid");
    assert!(
        t["error"]["message"]
            .as_str()
            .unwrap()
            .contains("NARRATORIA_TEST_UNSET_VAR"),
        "{}",
        pretty(t)
    );
    assert_eq!(t["events"].as_array().unwrap().len(), 0);
}

/// `skills config NAME --json` shows effective settings with the secret redacted.
#[test]
fn config_show_redacts_secrets() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    let teller = configured_skill(&root);
    write(
        &teller.join("config.json"),
        r#"{"apiKey": "sk-abcdef", "style": "vivid"}"#,
    );
    let h = home();
    let run = narratoria(
        [
            "skills",
            "config",
            "teller",
            "--skills",
            root.to_str().unwrap(),
            "--json",
        ],
        &with_home(h.path(), &[]),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!run.stdout.contains("sk-abcdef"), "{}", run.stdout);
    let out = run.json();
    assert_eq!(out["config"]["style"], "vivid");
    assert_eq!(out["config"]["maxTokens"], 256);
    assert!(out["config"]["apiKey"]
        .as_str()
        .unwrap()
        .chars()
        .all(|c| c == '•'));
    let human = narratoria(
        [
            "skills",
            "config",
            "teller",
            "--skills",
            root.to_str().unwrap(),
        ],
        &with_home(h.path(), &[]),
    );
    assert!(
        !human.stdout.contains("sk-abcdef") && human.stdout.contains("style"),
        "{}",
        human.stdout
    );
}

/// `--set` with an invalid value is refused with the field named, and the file is unchanged;
/// a valid value is saved atomically, typed by the schema, with mode 0600, in
/// the player's own settings file (the skill folder is never written).
#[test]
fn config_set_validates_before_writing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    let teller = configured_skill(&root);
    let h = home();
    let settings_file = h.path().join("skill-settings/teller.json");
    let before = r#"{"settings": {"style": "terse"}}"#;
    write(&settings_file, before);
    let r = root.to_str().unwrap();

    let bad = narratoria(
        [
            "skills",
            "config",
            "teller",
            "--skills",
            r,
            "--set",
            "maxTokens=99999",
            "--set",
            "style=purple",
        ],
        &with_home(h.path(), &[]),
    );
    assert_eq!(bad.code, 1, "{}", bad.stderr);
    assert!(
        bad.stderr.contains("/maxTokens") && bad.stderr.contains("at most 4096"),
        "{}",
        bad.stderr
    );
    assert!(bad.stderr.contains("/style"), "{}", bad.stderr);
    assert_eq!(std::fs::read_to_string(&settings_file).unwrap(), before);

    let unknown = narratoria(
        [
            "skills",
            "config",
            "teller",
            "--skills",
            r,
            "--set",
            "colour=red",
        ],
        &with_home(h.path(), &[]),
    );
    assert_eq!(unknown.code, 1);
    assert!(
        unknown.stderr.contains("unknown setting"),
        "{}",
        unknown.stderr
    );

    let good = narratoria(
        [
            "skills",
            "config",
            "teller",
            "--skills",
            r,
            "--set",
            "maxTokens=512",
            "--set",
            "style=vivid",
        ],
        &with_home(h.path(), &[]),
    );
    assert_eq!(good.code, 0, "{}", good.stderr);
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(&settings_file).unwrap()).unwrap();
    assert_eq!(
        saved,
        json!({"settings": {"style": "vivid", "maxTokens": 512}})
    );
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&settings_file)
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o600);
    assert!(!teller.join("config.json").exists());

    let missing = narratoria(
        ["skills", "config", "nobody", "--skills", r],
        &with_home(h.path(), &[]),
    );
    assert_eq!(missing.code, 2);
}

/// Disabling a skill persists across runs: it is listed disabled and run-plan refuses it.
#[test]
fn disable_persists_and_blocks_the_skill() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    let ran_log = dir.path().join("ran.log");
    worker_skill(&root, "work", &ran_log);
    let h = home();
    let r = root.to_str().unwrap();
    let off = narratoria(
        ["skills", "disable", "work", "--skills", r],
        &with_home(h.path(), &[]),
    );
    assert_eq!(off.code, 0, "{}", off.stderr);

    let list = narratoria(
        ["skills", "list", "--skills", r, "--json"],
        &with_home(h.path(), &[]),
    );
    let s = list.json()["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "work")
        .cloned()
        .unwrap();
    assert_eq!(s["enabled"], false);

    let plan_path = dir.path().join("plan.json");
    write(
        &plan_path,
        serde_json::to_vec(&plan(
            json!([{"toolId": "w", "toolPath": "work/work", "input": {"id": "w"}}]),
        ))
        .unwrap(),
    );
    let run = narratoria(
        ["run-plan", plan_path.to_str().unwrap(), "--skills", r],
        &with_home(h.path(), &[]),
    );
    let out = run.json();
    assert_eq!(
        error_type(trace(&out, "w")),
        "skill_disabled",
        "{}",
        pretty(&out)
    );
    assert!(ran(&ran_log).is_empty());

    let on = narratoria(
        ["skills", "enable", "work", "--skills", r],
        &with_home(h.path(), &[]),
    );
    assert_eq!(on.code, 0);
    let run = narratoria(
        ["run-plan", plan_path.to_str().unwrap(), "--skills", r],
        &with_home(h.path(), &[]),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
}

/// `skills watch` prints one JSON line per change: an edit, a new skill, a broken edit.
#[test]
fn watch_prints_a_json_line_per_change() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    skill(&root, "alpha", &[]);
    let h = home();
    let mut child = Command::new(bin())
        .args(["skills", "watch", "--skills", root.to_str().unwrap()])
        .env("NARRATORIA_HOME", h.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    // Wait until it says it is watching.
    let mut err_lines = BufReader::new(stderr).lines();
    let ready = err_lines.next().and_then(Result::ok).unwrap_or_default();
    assert!(ready.contains("watching"), "{ready}");

    let next = |what: &dyn Fn(&Value) -> bool| -> Value {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let line = rx
                .recv_timeout(left)
                .expect("no change printed within 10 s");
            let v: Value = serde_json::from_str(&line).expect("each line is JSON");
            if what(&v) {
                return v;
            }
        }
    };
    write(&root.join("alpha/prompt.md"), "Use alpha.");
    next(&|v| v["kind"] == "updated" && v["name"] == "alpha");
    skill(&root, "beta", &[]);
    next(&|v| v["kind"] == "added" && v["name"] == "beta");
    write(&root.join("alpha/skill.json"), "{ not json");
    let broken = next(&|v| v["kind"] == "broken");
    assert_eq!(broken["name"], "alpha");
    assert_eq!(broken["keptLastGood"], true);
    let _ = child.kill();
    let _ = child.wait();
}
