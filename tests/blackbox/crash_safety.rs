//! Crash safety: `narratoria turn` and `play --jsonl` killed with SIGKILL at
//! random moments, again and again, on one sessions database. Afterwards
//! every turn the binary reported is saved, SQLite finds the database intact,
//! and no skill script outlives the host it was killed with.
//!
//! The default run kills the host 12 times; `NARRATORIA_LONG_TESTS=1` makes
//! it 120 (docs/security.md, "Crash safety").

use crate::support::*;
use serde_json::Value;
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// A dice roller and a storyteller that each append their pid to `pids`
/// first; the storyteller then takes 0–150 ms before it narrates, so kills
/// land before, during and after the scripts run.
fn crash_skills(root: &Path, pids: &Path) {
    let roll = sh(&format!(
        r#"
        echo $$ >> {pids}
        read -r line
        echo '{{"type":"done","ok":true,"output":{{"formula":"1d20","rolls":[17],"total":17}}}}'
        "#,
        pids = lit(pids)
    ));
    skill(root, "dice-roller", &[("roll-dice.sh", &roll)]);
    let story = py(&format!(
        r#"
        with open({pids}, "a") as f:
            f.write("%d\n" % os.getpid())
        req = json.loads(sys.stdin.readline())
        time.sleep((os.getpid() % 16) / 100.0)
        n = req["state"].get("turns", 0) + 1
        emit({{"type": "state_patch", "patch": {{"turns": n}}}})
        emit({{"type": "done", "ok": True, "output": {{"narrative": "Turn %d." % n}}}})
        "#,
        pids = lit(pids)
    ));
    skill(root, "storyteller", &[("narrate.py", &story)]);
}

/// A small random number generator seeded from the clock; the seed is
/// printed so a failing run can be told apart.
struct Dice(u64);

impl Dice {
    fn new() -> Dice {
        let seed = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64;
        eprintln!("crash safety seed: {seed}");
        Dice(seed)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % n
    }
}

/// Runs one host (`play --jsonl` with several inputs, or one `turn`),
/// SIGKILLs it after `kill_after`, and returns the inputs of the turns it
/// reported as played (a result line on stdout is printed after the commit).
fn run_and_kill(
    root: &Path,
    db: &Path,
    home: &Path,
    jsonl: bool,
    inputs: &[String],
    kill_after: Duration,
) -> Vec<String> {
    let mut cmd = Command::new(bin());
    if jsonl {
        cmd.args(["play", "--jsonl", "--session", r(db), "--skills", r(root)]);
    } else {
        cmd.args([
            "turn",
            &inputs[0],
            "--skills",
            r(root),
            "--session",
            r(db),
            "--json",
        ]);
    }
    let mut child = cmd
        .env(NO_MODEL.0, NO_MODEL.1)
        .env("NARRATORIA_HOME", home)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("cannot start the narratoria binary");
    let mut stdin = child.stdin.take().unwrap();
    if jsonl {
        for input in inputs {
            let _ = writeln!(stdin, "{input}");
        }
    }
    // stdin stays open until the kill, so `play` never ends on its own.
    let lines = Arc::new(Mutex::new(Vec::<String>::new()));
    let (eof_tx, eof_rx) = mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    let sink = Arc::clone(&lines);
    thread::spawn(move || {
        let mut text = String::new();
        let mut reader = BufReader::new(stdout);
        while reader.read_line(&mut text).map(|n| n > 0).unwrap_or(false) {
            sink.lock().unwrap().push(std::mem::take(&mut text));
        }
        let _ = eof_tx.send(());
    });
    thread::sleep(kill_after);
    let _ = child.kill(); // SIGKILL
    child.wait().unwrap();
    drop(stdin);
    let _ = eof_rx.recv_timeout(Duration::from_secs(5));
    let lines = lines.lock().unwrap().clone();
    if jsonl {
        // One complete line per played input, in input order.
        lines
            .iter()
            .filter(|l| l.ends_with('\n'))
            .zip(inputs)
            .map(|(_, input)| input.clone())
            .collect()
    } else {
        // `turn --json` prints one pretty result once the turn is saved.
        let text = lines.concat();
        match serde_json::from_str::<Value>(&text) {
            Ok(_) => vec![inputs[0].clone()],
            Err(_) => Vec::new(),
        }
    }
}

/// Every input of every saved turn, over all sessions in `db`.
fn saved_inputs(db: &Path, home: &Path) -> BTreeSet<String> {
    let env = [NO_MODEL, ("NARRATORIA_HOME", r(home))];
    let list = narratoria(["sessions", "list", "--session", r(db), "--json"], &env);
    assert_eq!(list.code, 0, "{}", list.stderr);
    let mut inputs = BTreeSet::new();
    for session in list.json().as_array().unwrap() {
        let id = session["id"].as_str().unwrap();
        let export = narratoria(
            [
                "sessions",
                "export",
                id,
                "--session",
                r(db),
                "--format",
                "json",
            ],
            &env,
        );
        assert_eq!(export.code, 0, "{}", export.stderr);
        for turn in export.json()["turns"].as_array().unwrap() {
            inputs.insert(turn["input"].as_str().unwrap().to_string());
        }
    }
    inputs
}

/// SQLite's own verdict on the database file.
fn integrity(db: &Path) -> String {
    let out = Command::new("python3")
        .arg("-c")
        .arg(
            "import sqlite3, sys; \
             print(sqlite3.connect(sys.argv[1]).execute('PRAGMA integrity_check').fetchone()[0])",
        )
        .arg(db)
        .output()
        .expect("python3 runs");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn hosts_killed_at_random_moments_lose_no_reported_turn() {
    let kills = if std::env::var_os("NARRATORIA_LONG_TESTS").is_some_and(|v| v == "1") {
        120
    } else {
        12
    };
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    let pids = dir.path().join("pids.log");
    crash_skills(&root, &pids);
    let db = dir.path().join("story.db");
    let mut dice = Dice::new();
    let mut reported = BTreeSet::new();
    let started = Instant::now();
    for round in 0..kills {
        let jsonl = round % 3 != 2;
        let inputs: Vec<String> = (0..6)
            .map(|k| format!("I attack the goblin (round {round}, input {k})"))
            .collect();
        let kill_after = Duration::from_millis(50 + dice.below(900));
        let played = run_and_kill(&root, &db, dir.path(), jsonl, &inputs, kill_after);
        reported.extend(played);
        // Every script started so far is gone within 2 s of its host's death.
        let scripts: BTreeSet<u32> = std::fs::read_to_string(&pids)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect();
        for pid in scripts {
            if !wait_gone(pid, Duration::from_secs(2)) {
                kill_pid(pid);
                panic!("skill script {pid} outlived its killed host (round {round})");
            }
        }
    }
    eprintln!(
        "{kills} kills in {:?}; {} turns reported played",
        started.elapsed(),
        reported.len()
    );
    assert_eq!(integrity(&db), "ok");
    let saved = saved_inputs(&db, dir.path());
    let lost: Vec<&String> = reported.difference(&saved).collect();
    assert!(lost.is_empty(), "reported but not saved: {lost:?}");
    // And the database still takes a whole turn.
    let next = turn(&root, &db, dir.path(), "I look around");
    assert_eq!(next.code, 0, "{}", next.stderr);
    assert!(saved_inputs(&db, dir.path()).contains("I look around"));
}
