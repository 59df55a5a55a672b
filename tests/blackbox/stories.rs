//! `narratoria sessions tree|branch|switch|undo|redo|rename|delete` and
//! `play --jsonl` on the current branch, with the rule-based planner (no
//! model) and a storyteller that counts the turns on its branch.

use crate::support::*;
use serde_json::Value;
use std::path::Path;

/// A story whose storyteller tells how many turns the branch has, from
/// `story.path`.
fn teller() -> StoryDir {
    StoryDir::told_by(
        r#"
        req = json.loads(sys.stdin.readline())
        story = req.get("story") or {}
        text = "Turn %d on %s, after %d." % (story.get("turn", 0), story.get("branch"), len(story.get("path", [])))
        emit({"type": "done", "ok": True, "output": {"narrative": text}})
        "#,
    )
}

fn play_lines(home: &Path, db: &Path, root: &Path, input: &[u8]) -> Vec<Value> {
    let out = with_stdin(
        &["play", "--jsonl", "--session", r(db), "--skills", r(root)],
        home,
        input,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn sessions(args: &[&str], db: &Path, home: &Path) -> Run {
    let mut all = vec!["sessions"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--session", r(db)]);
    narratoria(all, &[NO_MODEL, ("NARRATORIA_HOME", r(home))])
}

#[test]
fn a_story_branches_switches_and_undoes_from_the_command_line() {
    let StoryDir { dir, root, db } = teller();
    let home = dir.path();
    let played = play_lines(home, &db, &root, b"I wake\nI rise\nI walk\nI run\n");
    assert_eq!(played.len(), 4);
    assert_eq!(played[3]["narrative"], "Turn 4 on main, after 3.");
    let list = sessions(&["list", "--json"], &db, home).json();
    let id = list[0]["id"].as_str().unwrap().to_string();

    let made = sessions(&["branch", &id, "2", "--name", "dream"], &db, home);
    assert_eq!(made.code, 0, "{}", made.stderr);
    assert_eq!(made.json()["branch"], "dream");
    let played = play_lines(home, &db, &root, b"I fly\n");
    assert_eq!(played[0]["narrative"], "Turn 3 on dream, after 2.");

    let tree = sessions(&["tree", &id, "--json"], &db, home).json();
    assert_eq!(
        tree["turns"].as_array().unwrap().len(),
        5,
        "{}",
        pretty(&tree)
    );
    let names: Vec<&str> = tree["branches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["main", "dream"]);

    let back = sessions(&["switch", &id, "main"], &db, home).json();
    assert_eq!(
        (back["branch"].as_str(), back["turns"].as_u64()),
        (Some("main"), Some(4))
    );
    let undone = sessions(&["undo", &id], &db, home).json();
    assert_eq!(
        (undone["moved"].as_bool(), undone["turns"].as_u64()),
        (Some(true), Some(3))
    );
    let redone = sessions(&["redo", &id], &db, home).json();
    assert_eq!(redone["turns"], 4);
    assert_eq!(sessions(&["redo", &id], &db, home).json()["moved"], false);

    let missing = sessions(&["switch", &id, "nowhere"], &db, home);
    assert_ne!(missing.code, 0);
    let text = sessions(&["tree", &id], &db, home);
    assert!(
        text.stdout.contains("*main") && text.stdout.contains("dream"),
        "{}",
        text.stdout
    );
    let whole = sessions(&["export", &id, "--format", "tree"], &db, home).json();
    assert_eq!(whole["branches"].as_array().unwrap().len(), 2);

    assert_eq!(sessions(&["rename", &id, "Dreams"], &db, home).code, 0);
    assert_eq!(
        sessions(&["list", "--json"], &db, home).json()[0]["title"],
        "Dreams"
    );
    assert_eq!(sessions(&["delete", &id], &db, home).code, 0);
    assert!(sessions(&["list", "--json"], &db, home)
        .json()
        .as_array()
        .unwrap()
        .is_empty());
}
