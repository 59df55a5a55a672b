//! Ctrl-C at `narratoria play`: SIGINT while a turn runs stops that turn
//! (what its tools finished stays recorded, the turn is saved whole, told
//! from what was decided) and the game goes on at the prompt.

use crate::support::*;
use serde_json::Value;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// A dice roller that rolls 17, and a storyteller that sleeps a minute the
/// first time it is asked (leaving `started` behind) and narrates at once
/// afterwards.
fn slow_first_story(root: &Path, started: &Path) {
    let dice = sh(r#"
        read -r line
        echo '{"type":"ui_event","event":"dice_roll","payload":{"formula":"1d20","rolls":[17],"total":17}}'
        echo '{"type":"done","ok":true,"output":{"formula":"1d20","rolls":[17],"total":17}}'
    "#);
    skill(root, "dice-roller", &[("roll-dice.sh", &dice)]);
    let story = py(&format!(
        r#"
        req = json.loads(sys.stdin.readline())
        STARTED = {started}
        if not os.path.exists(STARTED):
            open(STARTED, "w").close()
            time.sleep(60)
        text = "The tale goes on quickly."
        emit({{"type": "done", "ok": True, "output": {{"narrative": text}}}})
        "#,
        started = lit(started),
    ));
    skill(root, "storyteller", &[("narrate.py", &story)]);
}

/// Everything a child wrote to stdout so far, read on a thread.
fn read_all(mut pipe: impl Read + Send + 'static) -> Arc<Mutex<String>> {
    let out = Arc::new(Mutex::new(String::new()));
    let sink = Arc::clone(&out);
    thread::spawn(move || {
        let mut chunk = [0u8; 4096];
        while let Ok(n) = pipe.read(&mut chunk) {
            if n == 0 {
                break;
            }
            sink.lock()
                .unwrap()
                .push_str(&String::from_utf8_lossy(&chunk[..n]));
        }
    });
    out
}

fn wait_for(what: &str, until: Duration, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + until;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        thread::sleep(Duration::from_millis(20));
    }
}

fn interrupt(child: &Child) {
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success());
}

#[test]
fn ctrl_c_stops_the_running_turn_and_the_game_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    let started = dir.path().join("storyteller-started");
    slow_first_story(&root, &started);
    let db = dir.path().join("play.db");
    let mut child = Command::new(bin())
        .args(["play", "--session", r(&db), "--skills", r(&root)])
        .env(NO_MODEL.0, NO_MODEL.1)
        .env("NARRATORIA_HOME", dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = read_all(child.stdout.take().unwrap());
    let stderr = read_all(child.stderr.take().unwrap());
    let mut stdin = child.stdin.take().unwrap();
    let shown = || {
        format!(
            "--- stdout ---\n{}\n--- stderr ---\n{}",
            stdout.lock().unwrap(),
            stderr.lock().unwrap()
        )
    };

    stdin.write_all(b"I attack the goblin\n").unwrap();
    // Mid-turn: the dice have rolled and the storyteller is asleep.
    wait_for("the storyteller to start", Duration::from_secs(30), || {
        started.exists()
    });
    let interrupted = Instant::now();
    interrupt(&child);
    wait_for("the turn to stop", Duration::from_secs(20), || {
        stdout.lock().unwrap().contains("The turn stopped")
    });
    assert!(
        interrupted.elapsed() < Duration::from_secs(20),
        "the turn ran on after Ctrl-C"
    );
    thread::sleep(Duration::from_millis(300));
    assert!(
        child.try_wait().unwrap().is_none(),
        "Ctrl-C during a turn ended the game\n{}",
        shown()
    );

    // The next input plays, and the game ends as usual.
    stdin.write_all(b"I look around\n/quit\n").unwrap();
    drop(stdin);
    wait_for("the game to end", WALL_CLOCK_LIMIT, || {
        child.try_wait().unwrap().is_some()
    });
    let status = child.wait().unwrap();
    let text = shown();
    assert!(status.success(), "{text}");
    assert!(text.contains("The tale goes on quickly."), "{text}");
    assert!(text.contains("Your story is saved."), "{text}");
    assert!(!text.contains("panicked"), "{text}");

    // Both turns are saved; the stopped one kept the roll its dice made.
    let list = narratoria(
        ["sessions", "list", "--session", r(&db), "--json"],
        &[NO_MODEL, ("NARRATORIA_HOME", r(dir.path()))],
    );
    let id = list.json()[0]["id"].as_str().unwrap().to_string();
    let export = narratoria(
        [
            "sessions",
            "export",
            &id,
            "--format",
            "json",
            "--session",
            r(&db),
        ],
        &[NO_MODEL, ("NARRATORIA_HOME", r(dir.path()))],
    )
    .json();
    let turns = export["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 2, "{}", pretty(&export));
    assert_eq!(turns[0]["input"], "I attack the goblin");
    assert_eq!(turns[1]["narrative"], "The tale goes on quickly.");
    let trace: Vec<&Value> = turns[0]["attempts"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a["result"]["executionTrace"].as_array())
        .flatten()
        .collect();
    assert!(
        trace
            .iter()
            .any(|t| t["state"] == "completed" && t["output"]["total"] == 17),
        "the finished roll is not recorded: {}",
        pretty(&export)
    );
    assert!(
        !turns[0]["narrative"].as_str().unwrap().contains("quickly"),
        "the stopped turn kept narration it never finished"
    );
}
