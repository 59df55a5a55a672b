//! The game commands with the rule-based planner (no model): `narrate`,
//! `turn` (replan, fallback, persistence, crash safety), `play`, `sessions`.
//! The narrator with the real model is tested in the narrator crate.

use crate::support::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// A storyteller that patches state and narrates; a dice roller that rolls or fails.
fn game_skills(root: &Path, dice_fails: bool, story_sleep: f64) {
    let dice = if dice_fails {
        sh(r#"
            read -r line
            echo '{"type":"error","code":"INTERNAL_ERROR","message":"dice are lost","recoverable":false}'
            echo '{"type":"done","ok":false}'
            exit 1
        "#)
    } else {
        sh(r#"
            read -r line
            echo '{"type":"ui_event","event":"dice_roll","payload":{"formula":"1d20","rolls":[17],"total":17}}'
            echo '{"type":"done","ok":true,"output":{"formula":"1d20","rolls":[17],"total":17}}'
        "#)
    };
    skill(root, "dice-roller", &[("roll-dice.sh", &dice)]);
    let story = py(&format!(
        r#"
        req = json.loads(sys.stdin.readline())
        time.sleep({story_sleep})
        n = req["state"].get("turns", 0) + 1
        total = (req["deps"].get("roll") or {{}}).get("total")
        text = "The tale goes on (turn %d)." % n + (" You rolled %d." % total if total else "")
        emit({{"type": "ui_event", "event": "narration_delta", "payload": {{"text": text}}}})
        emit({{"type": "state_patch", "patch": {{"turns": n}}}})
        emit({{"type": "done", "ok": True, "output": {{"narrative": text}}}})
        "#
    ));
    skill(root, "storyteller", &[("narrate.py", &story)]);
}

/// Without a model the narrator says so and still prints a valid plan;
/// `--explain` adds `routing`, null (no router chose its skills).
#[test]
fn narrate_without_a_model_uses_the_rule_planner() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    game_skills(&root, false, 0.0);
    let run = narratoria(
        [
            "narrate",
            "I attack the goblin",
            "--skills",
            r(&root),
            "--json",
            "--explain",
        ],
        &env(dir.path()),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("rule-based planner"), "{}", run.stderr);
    let plan = run.json();
    assert!(plan["tools"].is_array(), "{plan}");
    assert!(plan["routing"].is_null(), "{plan}");
    assert!(plan["requestId"].as_str().is_some_and(|s| s.len() == 36));
    let paths: Vec<&str> = plan["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["toolPath"].as_str().unwrap())
        .collect();
    assert_eq!(paths, vec!["dice-roller/roll-dice", "storyteller/narrate"]);
}

/// `--batch -` prints one plan per input line, in order.
#[test]
fn narrate_batch_prints_one_plan_per_line() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    game_skills(&root, false, 0.0);
    let out = with_stdin(
        &["narrate", "--batch", "-", "--skills", r(&root)],
        dir.path(),
        b"I look around\n\nI attack the orc\nI sing a song\n",
    );
    assert!(out.status.success());
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON plan per line"))
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[1]["tools"][0]["toolPath"], "dice-roller/roll-dice");
    assert_eq!(lines[0]["tools"].as_array().unwrap().len(), 1);
}

/// Bad arguments exit 2.
#[test]
fn narrate_bad_arguments_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    game_skills(&root, false, 0.0);
    assert_eq!(
        narratoria(["narrate", "--skills", r(&root)], &env(dir.path())).code,
        2
    );
    let missing = narratoria(
        [
            "narrate",
            "hi",
            "--skills",
            r(&root),
            "--model",
            "/nope/x.gguf",
        ],
        &env(dir.path()),
    );
    assert_eq!(missing.code, 2);
    assert!(
        missing.stderr.contains("/nope/x.gguf"),
        "{}",
        missing.stderr
    );
    assert_eq!(
        narratoria(
            [
                "narrate",
                "--batch",
                "/nope/inputs.txt",
                "--skills",
                r(&root)
            ],
            &env(dir.path())
        )
        .code,
        2
    );
}

/// A model file that is not GGUF is a clear error, not a crash.
#[cfg(feature = "llama")]
#[test]
fn narrate_with_a_garbage_model_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    game_skills(&root, false, 0.0);
    let junk = dir.path().join("junk.gguf");
    write(&junk, vec![b'z'; 4096]);
    let run = narratoria(
        ["narrate", "hi", "--skills", r(&root), "--model", r(&junk)],
        &env(dir.path()),
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("junk.gguf") && run.stderr.contains("GGUF"),
        "{}",
        run.stderr
    );
}

fn sessions(db: &Path, home: &Path) -> Value {
    let run = narratoria(
        ["sessions", "list", "--session", r(db), "--json"],
        &env(home),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.json()
}

/// A failing skill is replanned away; the turn is saved with every attempt.
#[test]
fn turn_replans_without_the_failing_skill_and_persists() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    game_skills(&root, true, 0.0);
    let db = dir.path().join("game.db");
    let run = turn(&root, &db, dir.path(), "I attack the goblin");
    assert_eq!(run.code, 0, "{}", run.stderr);
    let result = run.json();
    assert_eq!(result["success"], true, "{}", pretty(&result));
    assert_eq!(result["narrative"], "The tale goes on (turn 1).");
    assert_eq!(result["generationMetadata"]["generationAttempt"], 2);
    assert_eq!(result["finalState"]["turns"], 1);

    let list = sessions(&db, dir.path());
    assert_eq!(list[0]["turns"], 1);
    let id = list[0]["id"].as_str().unwrap().to_string();
    let export = narratoria(
        [
            "sessions",
            "export",
            &id,
            "--session",
            r(&db),
            "--format",
            "json",
        ],
        &env(dir.path()),
    );
    let doc = export.json();
    let attempts = doc["turns"][0]["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 2);
    assert_eq!(attempts[0]["result"]["failedTools"], json!(["roll"]));
    assert_eq!(
        attempts[1]["plan"]["disabledSkills"],
        json!(["dice-roller"])
    );
    assert_eq!(attempts[0]["transcript"]["planner"], "rules");
}

/// Turns continue the session's state; rewinding restores a turn's state exactly.
#[test]
fn rewind_restores_the_state_of_an_earlier_turn() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    game_skills(&root, false, 0.0);
    let db = dir.path().join("game.db");
    let mut states = Vec::new();
    for input in ["I attack the goblin", "I look around", "I open the chest"] {
        let run = turn(&root, &db, dir.path(), input);
        assert_eq!(run.code, 0, "{}", run.stderr);
        states.push(run.json()["finalState"].clone());
    }
    let id = sessions(&db, dir.path())[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let back = narratoria(
        ["sessions", "rewind", &id, "1", "--session", r(&db)],
        &env(dir.path()),
    );
    assert_eq!(back.code, 0, "{}", back.stderr);
    assert_eq!(back.json()["state"], states[0]);
    assert_eq!(back.json()["state"]["turns"], 1);
    let next = turn(&root, &db, dir.path(), "I wait");
    assert_eq!(
        next.json()["finalState"]["turns"],
        2,
        "the story continues from turn 1's state"
    );
    let md = narratoria(
        ["sessions", "export", &id, "--session", r(&db)],
        &env(dir.path()),
    );
    assert!(
        md.stdout.contains("> I attack the goblin")
            && md.stdout.contains("> I wait")
            && !md.stdout.contains("I open the chest")
    );
    assert_eq!(
        narratoria(
            ["sessions", "rewind", &id, "9", "--session", r(&db)],
            &env(dir.path())
        )
        .code,
        2
    );
}

/// A turn killed with SIGKILL mid-way leaves no trace; the database stays usable.
#[test]
fn a_turn_killed_mid_way_is_absent() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    game_skills(&root, false, 3.0);
    let db = dir.path().join("game.db");
    let first = narratoria(
        ["sessions", "list", "--session", r(&db), "--json"],
        &env(dir.path()),
    );
    assert_eq!(first.code, 0);
    let mut child = Command::new(bin())
        .args([
            "turn",
            "I attack the goblin",
            "--skills",
            r(&root),
            "--session",
            r(&db),
            "--json",
        ])
        .env(NO_MODEL.0, NO_MODEL.1)
        .env("NARRATORIA_HOME", dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1200));
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let list = sessions(&db, dir.path());
    let turns: u64 = list
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["turns"].as_u64().unwrap())
        .sum();
    assert_eq!(turns, 0, "{}", pretty(&list));
    // And the next turn commits whole.
    let ok = turn(&root, &db, dir.path(), "I look around");
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    let list = sessions(&db, dir.path());
    assert_eq!(list[0]["turns"], 1);
}

/// The terminal game: streamed narration, dice, commands, saved story.
#[test]
fn play_runs_a_story_from_piped_input() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    game_skills(&root, false, 0.0);
    let db: PathBuf = dir.path().join("play.db");
    let out = with_stdin(
        &["play", "--session", r(&db), "--skills", r(&root)],
        dir.path(),
        b"I attack the goblin\nI look around\n/turns\n/rewind 1\n/skills\n/bogus\n/quit\n",
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("🎲 1d20 → [17] = 17"), "{text}");
    assert!(
        text.contains("The tale goes on (turn 1). You rolled 17."),
        "{text}"
    );
    assert!(text.contains("The tale goes on (turn 2)."), "{text}");
    assert!(text.contains("Rewound to just after turn 1."), "{text}");
    assert!(
        text.contains("dice-roller") && text.contains("unknown command /bogus"),
        "{text}"
    );
    assert!(text.contains("Your story is saved."), "{text}");
    assert_eq!(sessions(&db, dir.path())[0]["turns"], 1);
}

/// `play --jsonl`: one ExecutionResult line per input, nothing else on
/// stdout, every turn saved; `--new` starts another session.
#[test]
fn play_jsonl_prints_one_result_per_input_and_saves_the_turns() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    game_skills(&root, false, 0.0);
    let db = dir.path().join("play.db");
    let args = ["play", "--jsonl", "--session", r(&db), "--skills", r(&root)];
    let out = with_stdin(
        &args,
        dir.path(),
        b"I attack the goblin\n\n/turns\nI look around\n   \nI open the chest\n",
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    for (n, line) in lines.iter().enumerate() {
        let result: narratoria_core::ExecutionResult =
            serde_json::from_str(line).expect("an ExecutionResult per line");
        assert!(
            result
                .narrative
                .as_deref()
                .is_some_and(|t| !t.trim().is_empty()),
            "{line}"
        );
        let value: Value = serde_json::from_str(line).unwrap();
        assert_eq!(value["finalState"]["turns"], n as u64 + 1, "{line}");
    }
    assert!(stderr.contains("/turns"), "{stderr}");
    assert_eq!(stderr.matches("rule-based planner").count(), 1, "{stderr}");
    let list = sessions(&db, dir.path());
    assert_eq!(list.as_array().unwrap().len(), 1, "{}", pretty(&list));
    assert_eq!(list[0]["turns"], 3);

    let mut fresh = args.to_vec();
    fresh.push("--new");
    let again = with_stdin(&fresh, dir.path(), b"I wait\n");
    assert_eq!(
        again.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&again.stdout).lines().count(), 1);
    let list = sessions(&db, dir.path());
    let mut turns: Vec<u64> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["turns"].as_u64().unwrap())
        .collect();
    turns.sort();
    assert_eq!(turns, vec![1, 3], "{}", pretty(&list));

    // `--scenario` starts the story from that scenario, as at the prompt.
    let mut scenario = args.to_vec();
    scenario.extend(["--new", "--scenario", "tithonus"]);
    let told = with_stdin(&scenario, dir.path(), b"I look around\n");
    let stdout = String::from_utf8_lossy(&told.stdout);
    assert_eq!(
        told.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&told.stderr)
    );
    let value: Value = serde_json::from_str(stdout.trim()).expect("one result line");
    assert_eq!(
        value["finalState"]["scenario"]["name"], "tithonus",
        "{stdout}"
    );
    assert_eq!(sessions(&db, dir.path()).as_array().unwrap().len(), 3);

    let bad = with_stdin(&["play", "--jsonl", "--bogus"], dir.path(), b"");
    assert_eq!(bad.status.code(), Some(2));
}

/// Without `--session`, a turn writes no sessions database and no skill
/// choices to the user's folder.
#[test]
fn turn_without_a_session_saves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    game_skills(&root, true, 0.0);
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let run = narratoria(
        [
            "turn",
            "I attack the goblin",
            "--skills",
            r(&root),
            "--json",
        ],
        &env(&home),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.json()["narrative"], "The tale goes on (turn 1).");
    // Nothing of the story is kept; the log (each tool run is a line of
    // it, docs/observability.md) is not the story.
    let left: Vec<_> = std::fs::read_dir(&home)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|name| name != "logs")
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// With the real default model: a turn whose dice skill fails is replanned
/// without it (or falls back), never runs past five plans, and narrates.
#[cfg(feature = "llama")]
#[test]
fn turn_with_the_real_model_replans_around_a_failing_skill() {
    let model =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models/SmolLM2-135M-Instruct.Q4_1.gguf");
    assert!(
        model.is_file(),
        "the default model is missing: run scripts/fetch-model.sh"
    );
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    game_skills(&root, true, 0.0);
    let db = dir.path().join("game.db");
    let home = dir.path().to_str().unwrap().to_string();
    let run = narratoria(
        [
            "turn",
            "I attack the goblin with my sword",
            "--skills",
            r(&root),
            "--session",
            r(&db),
            "--model",
            r(&model),
            "--json",
        ],
        &[("NARRATORIA_HOME", home.as_str())],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let result = run.json();
    assert!(
        result["narrative"]
            .as_str()
            .is_some_and(|n| !n.trim().is_empty()),
        "{}",
        pretty(&result)
    );
    let id = sessions(&db, dir.path())[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let doc = narratoria(
        [
            "sessions",
            "export",
            &id,
            "--session",
            r(&db),
            "--format",
            "json",
        ],
        &env(dir.path()),
    )
    .json();
    let attempts = doc["turns"][0]["attempts"].as_array().unwrap().clone();
    assert!((1..=5).contains(&attempts.len()), "{}", pretty(&doc));
    let mut disabled_so_far: Vec<String> = Vec::new();
    for a in &attempts {
        let Some(plan) = a["plan"].as_object() else {
            continue;
        };
        let listed: Vec<String> = plan["disabledSkills"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_string())
            .collect();
        for d in &disabled_so_far {
            assert!(
                listed.contains(d),
                "a failed skill came back: {}",
                pretty(&doc)
            );
            let used = plan["tools"].as_array().unwrap().iter().any(|t| {
                t["toolPath"]
                    .as_str()
                    .unwrap()
                    .starts_with(&format!("{d}/"))
            });
            assert!(!used, "plan uses disabled skill {d}: {}", pretty(&doc));
        }
        if let Some(failed) = a["result"]["executionTrace"].as_array() {
            for t in failed.iter().filter(|t| t["state"] == "failed") {
                if let Some(s) = t["skill"].as_str() {
                    disabled_so_far.push(s.to_string());
                }
            }
        }
        assert!(
            a["transcript"]["planner"]
                .as_str()
                .is_some_and(|p| p.contains("SmolLM2") || p == "rules"),
            "{}",
            pretty(a)
        );
    }
}

/// With the real default model and the built-in skills, `narrate --explain`
/// prints the plan and, per skill, its routing scores and the thresholds;
/// the skills marked chosen are the plan's.
#[cfg(feature = "llama")]
#[test]
fn narrate_explain_shows_each_skills_scores_with_the_real_model() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let model = repo.join("models/SmolLM2-135M-Instruct.Q4_1.gguf");
    assert!(
        model.is_file(),
        "the default model is missing: run scripts/fetch-model.sh"
    );
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().to_str().unwrap().to_string();
    let run = narratoria(
        [
            "narrate",
            "I swing my sword at the bandit",
            "--skills",
            r(&repo.join("skills")),
            "--model",
            r(&model),
            "--json",
            "--explain",
        ],
        &[("NARRATORIA_HOME", home.as_str())],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let out = run.json();
    let routing = &out["routing"];
    assert!(routing["threshold"].is_number(), "{out}");
    assert!(routing["furtherThreshold"].is_number(), "{out}");
    let skills = routing["skills"].as_array().expect("skills");
    let names: Vec<&str> = skills.iter().filter_map(|s| s["skill"].as_str()).collect();
    for want in ["dice-roller", "memory", "reputation"] {
        assert!(names.contains(&want), "{want} missing: {routing}");
    }
    assert!(
        !names.contains(&"storyteller"),
        "narration is never routed: {routing}"
    );
    for s in skills {
        for part in ["meaning", "keywords", "model", "score"] {
            assert!(s[part].is_number(), "{part} of {s}");
        }
    }
    let chosen: Vec<&str> = skills
        .iter()
        .filter(|s| s["chosen"] == true)
        .filter_map(|s| s["skill"].as_str())
        .collect();
    assert_eq!(chosen, ["dice-roller"], "{routing}");
    let used: Vec<&str> = out["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["toolPath"].as_str())
        .filter(|p| !p.starts_with("storyteller/"))
        .collect();
    assert_eq!(used, ["dice-roller/roll-dice"], "{out}");
}
