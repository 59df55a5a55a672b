//! The game master's table through the command line, with the built-in
//! game master (its compiled script, from `scripts/install-skills.sh`) and
//! the rule planner (no model): what the player changes at the table and
//! what the game master decides are kept per branch, and survive a restart
//! and an export (docs/game-master.md, "The table").

use crate::support::*;
use serde_json::Value;
use std::path::Path;

/// A storyteller that tells the scene the game master directed.
const TELLER: &str = r#"
req = json.loads(sys.stdin.readline())
d = req["deps"].get("direct") or {}
text = "Scene %s, tension %s." % (d.get("scene"), d.get("tension"))
emit({"type": "done", "ok": True, "output": {"narrative": text}})
"#;

/// The repository's game-master skill folder, its compiled script included.
fn copy_game_master(root: &Path) {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills/game-master");
    assert!(
        from.join("scripts/direct-turn").is_file(),
        "the game master's script is missing: run scripts/install-skills.sh"
    );
    let to = root.join("game-master");
    for dir in ["scripts", "tables"] {
        std::fs::create_dir_all(to.join(dir)).unwrap();
        for f in std::fs::read_dir(from.join(dir)).unwrap() {
            let f = f.unwrap().path();
            std::fs::copy(&f, to.join(dir).join(f.file_name().unwrap())).unwrap();
        }
    }
    for f in ["skill.json", "config-schema.json", "prompt.md"] {
        std::fs::copy(from.join(f), to.join(f)).unwrap();
    }
}

fn play(home: &Path, db: &Path, root: &Path, first: Option<&str>, input: &str) -> String {
    let mut args = vec!["play", "--session", r(db), "--skills", r(root)];
    if let Some(scenario) = first {
        args.extend(["--new", "--scenario", scenario]);
    }
    stdout_of(&args, home, input)
}

fn sessions(args: &[&str], db: &Path, home: &Path) -> Run {
    let mut all = vec!["sessions"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--session", r(db)]);
    narratoria(all, &env(home))
}

/// The game master's output in `turn`'s last attempt.
fn direction(turn: &Value) -> Value {
    let attempts = turn["attempts"].as_array().unwrap();
    let trace = attempts.last().unwrap()["result"]["executionTrace"]
        .as_array()
        .unwrap();
    trace
        .iter()
        .find(|t| t["toolId"] == "direct")
        .unwrap_or_else(|| panic!("no game master in {}", pretty(turn)))["output"]
        .clone()
}

#[test]
fn the_table_follows_the_branch_and_survives_a_restart_and_an_export() {
    let dir = tempfile::tempdir().unwrap();
    let (home, root, db) = (
        dir.path(),
        dir.path().join("skills"),
        dir.path().join("s.db"),
    );
    copy_game_master(&root);
    skill(&root, "storyteller", &[("narrate.py", &py(TELLER))]);

    let first = play(
        home,
        &db,
        &root,
        Some("tithonus"),
        "I look along the docking ring\nI ask Dee about the countdown\n\
         /threads add The stolen map\n/scene\n/quit\n",
    );
    assert!(first.contains("Scene 1, tension"), "{first}");
    assert!(first.contains(" 4. The stolen map"), "{first}");
    assert!(first.contains("After: The countdown."), "{first}");

    // A restart: a new process continues the story with its table.
    let again = play(home, &db, &root, None, "/threads\n/people\n/quit\n");
    assert!(again.contains(" 4. The stolen map"), "{again}");
    assert!(again.contains("Dee Marchetti"), "{again}");

    // The export holds each turn's table and the game master's decisions.
    let id = sessions(&["list", "--json"], &db, home).json()[0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let export = sessions(&["export", &id, "--format", "json"], &db, home);
    assert_eq!(export.code, 0, "{}", export.stderr);
    let export = export.json();
    let turns = export["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 2);
    let threads = |t: &Value| -> Vec<String> {
        t["stateAfter"]["gm"]["threads"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["title"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(threads(&turns[1]).contains(&"The stolen map".to_string()));
    assert!(!threads(&turns[0]).contains(&"The stolen map".to_string()));
    for t in turns {
        let d = direction(t);
        assert!(d["seed"].is_u64() && d["event"]["roll"].is_u64(), "{d}");
        assert_eq!(d["tension"], t["stateAfter"]["gm"]["tension"]);
    }
    assert_eq!(
        direction(&turns[1])["present"][0]["name"],
        "Dee Marchetti",
        "the deed named her"
    );

    // A branch from turn 1 has the table as it was then; the main branch
    // keeps its own.
    let made = sessions(&["branch", &id, "1", "--name", "before"], &db, home);
    assert_eq!(made.code, 0, "{}", made.stderr);
    let before = play(home, &db, &root, None, "/threads\n/quit\n");
    assert!(!before.contains("The stolen map"), "{before}");
    assert!(before.contains(" 1. The countdown"), "{before}");
    assert_eq!(sessions(&["switch", &id, "main"], &db, home).code, 0);
    let main = play(home, &db, &root, None, "/threads\n/quit\n");
    assert!(main.contains(" 4. The stolen map"), "{main}");
}
