//! `narratoria sessions export ID --turn N --run DIR`: a played turn's run
//! folder (docs/observability.md), with the storyteller's secret setting —
//! which its script logs — nowhere in it; and the errors for a turn that is
//! not there and a folder that is taken.

use crate::support::*;
use serde_json::Value;
use std::path::Path;

const SECRET: &str = "sk-blackbox-55Zq";

/// A story whose storyteller has a secret `apiKey` and logs it as it tells.
fn story_with_a_secret() -> StoryDir {
    let story = StoryDir::told_by(
        r#"
        req = json.loads(sys.stdin.readline())
        key = (req.get("config") or {}).get("apiKey", "")
        emit({"type": "log", "level": "info", "message": "calling with " + key})
        emit({"type": "done", "ok": True, "output": {"narrative": "The door opens."}})
        "#,
    );
    let teller = story.root.join("storyteller");
    write(
        &teller.join("config-schema.json"),
        r#"{"type":"object","properties":{"apiKey":{"type":"string","format":"password"}}}"#,
    );
    write(
        &teller.join("config.json"),
        format!(r#"{{"apiKey":"{SECRET}"}}"#),
    );
    story
}

fn export(story: &StoryDir, id: &str, turn: &str, dir: &Path) -> Run {
    narratoria(
        [
            "sessions",
            "export",
            id,
            "--turn",
            turn,
            "--run",
            r(dir),
            "--session",
            r(&story.db),
            "--skills",
            r(&story.root),
        ],
        &env(story.home()),
    )
}

fn jsonl(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_played_turn_is_written_out_as_a_run_folder_without_its_secret() {
    let story = story_with_a_secret();
    let played = turn(&story.root, &story.db, story.home(), "I open the door");
    assert_eq!(played.code, 0, "{}", played.stderr);
    let list = narratoria(
        ["sessions", "list", "--json", "--session", r(&story.db)],
        &env(story.home()),
    )
    .json();
    let id = list[0]["id"].as_str().unwrap().to_string();

    let dir = story.home().join("bug report");
    let out = export(&story, &id, "1", &dir);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains(r(&dir)), "{}", out.stdout);

    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
    assert_eq!(manifest["runFolderVersion"], 1);
    assert_eq!(manifest["sessionId"], id.as_str());
    assert_eq!(manifest["turnNumber"], 1);
    let events = jsonl(&dir.join("events.jsonl"));
    let types: Vec<&str> = events
        .iter()
        .filter_map(|e| e["eventType"].as_str())
        .collect();
    assert!(types.contains(&"span_started") && types.contains(&"span_finished"));
    let log = events
        .iter()
        .find(|e| e["eventType"] == "log")
        .expect("the script's log event is kept");
    assert_eq!(log["redactionMode"], "redacted");
    assert_eq!(log["traceId"], manifest["traceId"]);
    let calls = jsonl(&dir.join("transcripts.jsonl"));
    assert_eq!(calls[0]["callSite"], "planner");
    assert!(std::fs::read_to_string(dir.join("summary.md"))
        .unwrap()
        .contains("I open the door"));
    for file in [
        "run.json",
        "events.jsonl",
        "transcripts.jsonl",
        "result.json",
        "summary.md",
    ] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        assert!(!text.contains(SECRET), "{file} holds the secret");
    }

    // The same folder again: refused, and what is there stays.
    let again = export(&story, &id, "1", &dir);
    assert_eq!(again.code, 2, "{}", again.stderr);
    assert!(
        again.stderr.contains("error[export_refused]"),
        "{}",
        again.stderr
    );
    assert!(dir.join("run.json").is_file());

    // A turn the branch does not have.
    let missing = export(&story, &id, "2", &story.home().join("other"));
    assert_eq!(missing.code, 2, "{}", missing.stderr);
    assert!(
        missing.stderr.contains("error[session_not_found]") && missing.stderr.contains("no turn 2"),
        "{}",
        missing.stderr
    );
    assert!(!story.home().join("other").exists());
}

#[test]
fn a_turn_needs_a_folder_and_a_folder_needs_a_turn() {
    let story = story_with_a_secret();
    let home = story.home();
    for args in [
        vec!["sessions", "export", "x", "--turn", "1"],
        vec!["sessions", "export", "x", "--run", r(home)],
        vec!["sessions", "export", "x", "--turn", "0", "--run", r(home)],
    ] {
        let out = narratoria(&args, &env(home));
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
    }
}
