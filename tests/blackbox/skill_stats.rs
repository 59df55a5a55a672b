//! `narratoria skills stats`: every script run of a played turn is counted
//! from the sessions database — runs, failures by the script's own code,
//! durations — for one skill or all, since a day or a time; a bad `--since`
//! is a usage error that says what it expects.

use crate::support::*;
use serde_json::Value;
use std::path::Path;

/// A dice roller whose input the script refuses with its own code, and a
/// storyteller that narrates.
fn stats_skills(root: &Path) {
    let dice = sh(r#"
        read -r line
        echo '{"type":"error","code":"VALIDATION_ERROR","message":"no such dice","recoverable":false}'
        echo '{"type":"done","ok":false}'
        exit 1
    "#);
    skill(root, "dice-roller", &[("roll-dice.sh", &dice)]);
    let story = py(r#"
        req = json.loads(sys.stdin.readline())
        emit({"type": "done", "ok": True, "output": {"narrative": "The goblin flees."}})
        "#);
    skill(root, "storyteller", &[("narrate.py", &story)]);
}

/// `narratoria skills stats --session DB ARGS…`.
fn stats(db: &Path, home: &Path, args: &[&str]) -> Run {
    let mut all = vec!["skills", "stats", "--session", r(db)];
    all.extend_from_slice(args);
    narratoria(all, &env(home))
}

/// The stats JSON of `args`, requiring exit 0.
fn stats_json(db: &Path, home: &Path, args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    let run = stats(db, home, &all);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.json()
}

/// The one skill called `name` in `stats`.
fn skill_in<'a>(stats: &'a Value, name: &str) -> &'a Value {
    let found: Vec<&Value> = stats["skills"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["skill"] == name)
        .collect();
    assert_eq!(found.len(), 1, "{}", pretty(stats));
    found[0]
}

/// A turn whose dice fail (and are replanned away) leaves one failed run
/// of the dice and one completed run of the storyteller, counted per
/// skill and script; --skill keeps one skill, --since keeps later runs.
#[test]
fn skills_stats_counts_the_runs_of_played_turns() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    stats_skills(&root);
    let db = dir.path().join("game.db");
    let played = turn(&root, &db, dir.path(), "I attack the goblin");
    assert_eq!(played.code, 0, "{}", played.stderr);

    let all = stats_json(&db, dir.path(), &[]);
    let dice = skill_in(&all, "dice-roller");
    assert_eq!(
        (dice["runs"].as_u64(), dice["failures"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(
        dice["failuresByCode"]["VALIDATION_ERROR"],
        1,
        "{}",
        pretty(&all)
    );
    assert_eq!(dice["scripts"].as_array().unwrap().len(), 1);
    let roll = &dice["scripts"][0];
    assert_eq!(roll["runs"], 1);
    assert!(roll["p95Ms"].as_u64().unwrap() >= roll["p50Ms"].as_u64().unwrap());
    let story = skill_in(&all, "storyteller");
    assert_eq!(
        (story["runs"].as_u64(), story["failures"].as_u64()),
        (Some(1), Some(0))
    );
    assert_eq!(all["totals"]["runs"], 2);

    let only = stats_json(&db, dir.path(), &["--skill", "storyteller"]);
    assert_eq!(only["skills"].as_array().unwrap().len(), 1);
    assert_eq!(only["totals"]["failures"], 0);
    let today = stats_json(&db, dir.path(), &["--since", "2000-01-01"]);
    assert_eq!(today["totals"]["runs"], 2);
    let later = stats_json(&db, dir.path(), &["--since", "2999-01-01T00:00:00Z"]);
    assert_eq!(later["totals"]["runs"], 0);
    assert_eq!(later["skills"].as_array().unwrap().len(), 0);

    let table = stats(&db, dir.path(), &[]);
    assert_eq!(table.code, 0, "{}", table.stderr);
    for words in [
        "skill/script",
        "dice-roller/roll-dice",
        "VALIDATION_ERROR 1",
        "p95",
    ] {
        assert!(
            table.stdout.contains(words),
            "{words:?} in:\n{}",
            table.stdout
        );
    }
}

/// With nothing played the command says so.
#[test]
fn skills_stats_without_runs_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("empty.db");
    let run = stats(&db, dir.path(), &["--skill", "reputation"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("No script runs recorded"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("\"reputation\""), "{}", run.stdout);
}

/// A `--since` that is neither a day nor an RFC 3339 time is a usage
/// error (exit 2) naming the value and what is expected.
#[test]
fn skills_stats_refuses_a_bad_since() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("game.db");
    for bad in ["last week", "2026-02-30", "2026-03-02T09:00"] {
        let run = stats(&db, dir.path(), &["--since", bad, "--json"]);
        assert_eq!(run.code, 2, "{bad}: {}", run.stderr);
        assert!(run.stdout.is_empty(), "{}", run.stdout);
        for words in ["--since", bad, "YYYY-MM-DD", "RFC 3339"] {
            assert!(run.stderr.contains(words), "{words:?} in: {}", run.stderr);
        }
    }
}

/// A dice roller that fails as a hostile script may: six log lines of a
/// million characters, an error whose code holds 400,000 characters and
/// whose message 500,000.
fn flooding_skills(root: &Path) {
    let dice = py(r#"
        sys.stdin.readline()
        for _ in range(6):
            emit({"type": "log", "level": "info", "message": "l" * 1000000})
        emit({"type": "error", "code": "E" * 400000, "message": "m" * 500000, "recoverable": False})
        emit({"type": "done", "ok": False})
        "#);
    skill(root, "dice-roller", &[("roll-dice.py", &dice)]);
    let story = py(r#"
        sys.stdin.readline()
        emit({"type": "done", "ok": True, "output": {"narrative": "The goblin flees."}})
        "#);
    skill(root, "storyteller", &[("narrate.py", &story)]);
}

/// The bytes the database at `db` holds, its write-ahead log with it.
fn stored_bytes(db: &Path) -> u64 {
    let wal = db.with_extension("db-wal");
    [db.to_path_buf(), wal]
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum()
}

/// After such a failure the turn's records stay small (the database grew
/// by 11.8 MB a turn) and `skills stats` prints its table, the code
/// clipped — it panicked on every later call once a code held 65,534
/// characters — while `--json` still counts it.
#[test]
fn skills_stats_prints_a_failure_with_a_huge_code_and_its_records_stay_small() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    flooding_skills(&root);
    let db = dir.path().join("game.db");
    let played = turn(&root, &db, dir.path(), "I attack the goblin");
    assert_eq!(played.code, 0, "{}", played.stderr);
    let bytes = stored_bytes(&db);
    assert!(
        bytes < 2_000_000,
        "the database holds {bytes} bytes after one turn"
    );

    let table = stats(&db, dir.path(), &[]);
    assert_eq!(table.code, 0, "{}", table.stderr);
    let clipped = format!("{}… 1", "E".repeat(63));
    for words in ["dice-roller/roll-dice", clipped.as_str()] {
        assert!(
            table.stdout.contains(words),
            "{words:?} in:\n{}",
            table.stdout
        );
    }
    assert!(
        table.stdout.lines().all(|l| l.chars().count() < 2_000),
        "{}",
        table.stdout
    );
    let all = stats_json(&db, dir.path(), &[]);
    assert_eq!(
        skill_in(&all, "dice-roller")["failures"],
        1,
        "{}",
        pretty(&all)
    );
}
