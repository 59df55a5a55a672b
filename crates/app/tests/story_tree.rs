//! The story as a tree through the app, with the rule planner (no model):
//! the world a skill keeps follows the branch (the envelope's `story`),
//! turns of one story wait for each other, a turn whose branch moved is
//! refused, and the turn controls keep the mechanics they should.
//!
//! The storyteller here is a Python script that keeps a ledger the way
//! docs/protocol.md ("Where a script acts") asks: each turn's change is
//! recorded under `story.turnId`, and only changes on `story.path` (or of
//! this turn) count. Its narration tells the standing and the turns it
//! remembers.

use std::path::Path;

use narratoria_app::{App, AppConfig, SessionDb, SkillChoices};
use narratoria_core::error::ErrorCode;
use narratoria_core::store::Store;

const LEDGER: &str = r#"#!/usr/bin/env python3
import json, os, sys, time
req = json.loads(sys.stdin.readline())
story = req.get("story")
words = req["input"].get("playerInput", "")
if "slow" in words:
    time.sleep(1.5)
path = os.path.join(os.environ["NARRATORIA_DATA_DIR"], "ledger.jsonl")
rows = []
if os.path.exists(path):
    rows = [json.loads(l) for l in open(path)]
if story is not None and not any(r["turn"] == story["turnId"] for r in rows):
    gain = int(words.split()[-1]) if words.split()[-1].isdigit() else 0
    row = {"story": story["id"], "turn": story["turnId"], "gain": gain, "said": words.split()[0]}
    with open(path, "a") as f:
        f.write(json.dumps(row) + "\n")
    rows.append(row)
seen = [r for r in rows if story and r["story"] == story["id"]
        and (r["turn"] == story["turnId"] or r["turn"] in story["path"])]
text = "standing %d; remembered %s" % (sum(r["gain"] for r in seen), ",".join(r["said"] for r in seen))
print(json.dumps({"type": "done", "ok": True, "output": {"narrative": text}}), flush=True)
"#;

/// A dice roller that counts its rolls in its data folder.
const DICE: &str = r#"#!/bin/sh
read -r line
echo roll >> "$NARRATORIA_DATA_DIR/rolls"
echo '{"type":"done","ok":true,"output":{"formula":"1d20","rolls":[17],"total":17}}'
"#;

/// A memory skill that writes down every memory it is asked to keep.
const MEMORY: &str = r#"#!/usr/bin/env python3
import json, os, sys
req = json.loads(sys.stdin.readline())
row = {"turn": (req.get("story") or {}).get("turnId"),
       "account": req["input"].get("turnAccount", False),
       "summary": req["input"]["summary"]}
with open(os.path.join(os.environ["NARRATORIA_DATA_DIR"], "kept.jsonl"), "a") as f:
    f.write(json.dumps(row) + "\n")
print(json.dumps({"type": "done", "ok": True, "output": {"memoryId": 1}}), flush=True)
"#;

/// The memories the [`MEMORY`] skill was asked to keep, oldest first.
fn kept(dir: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("data/memory/kept.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn rolls(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("data/dice-roller/rolls"))
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

/// An app with everything it keeps in `dir`, a dice roller that counts its
/// rolls and the storyteller that keeps a ledger.
fn app(dir: &Path) -> App {
    write_skill(dir, "dice-roller", "roll-dice.sh", DICE);
    write_skill(dir, "storyteller", "narrate.py", LEDGER);
    App::open(AppConfig {
        skill_roots: vec![dir.join("skills")],
        session_db: SessionDb::File(dir.join("s.db")),
        skills_state: SkillChoices::File(dir.join("state.json")),
        skill_data: Some(dir.join("data")),
        skill_settings: Some(dir.join("skill-settings")),
        ..AppConfig::default()
    })
    .unwrap()
}

/// Puts `body` in place as script `file` of `skill` under `dir/skills`.
fn write_skill(dir: &Path, skill: &str, file: &str, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    let root = dir.join("skills").join(skill);
    std::fs::create_dir_all(root.join("scripts")).unwrap();
    std::fs::write(
        root.join("skill.json"),
        format!(r#"{{"name":"{skill}","version":"1.0.0","description":"{skill}"}}"#),
    )
    .unwrap();
    let script = root.join("scripts").join(file);
    std::fs::write(&script, body).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
}

async fn play(app: &App, input: &str) -> String {
    app.play(input, None).await.unwrap().turn.narrative
}

#[tokio::test]
async fn each_branch_sees_only_its_own_world() {
    let dir = tempfile::tempdir().unwrap();
    let app = app(dir.path());
    let session = app.new_session("Ledger").unwrap().session.id;
    for i in 1..=10 {
        play(&app, &format!("t{i} gain {i}")).await;
    }
    assert_eq!(
        app.current_session().unwrap().turns[9].narrative,
        "standing 55; remembered t1,t2,t3,t4,t5,t6,t7,t8,t9,t10"
    );
    app.branch(&session, 4, Some("other way")).unwrap();
    for i in 5..=7 {
        play(&app, &format!("x{i} gain 100")).await;
    }
    assert_eq!(
        app.current_session()
            .unwrap()
            .turns
            .last()
            .unwrap()
            .narrative,
        "standing 310; remembered t1,t2,t3,t4,x5,x6,x7"
    );
    app.switch_branch(&session, "main").unwrap();
    assert_eq!(
        play(&app, "t11 gain 11").await,
        "standing 66; remembered t1,t2,t3,t4,t5,t6,t7,t8,t9,t10,t11"
    );
    app.switch_branch(&session, "other way").unwrap();
    assert_eq!(
        play(&app, "x8 gain 1").await,
        "standing 311; remembered t1,t2,t3,t4,x5,x6,x7,x8"
    );
    // Taken back, a turn no longer counts; played again it counts afresh.
    app.undo(&session).unwrap().unwrap();
    assert_eq!(
        play(&app, "y8 gain 2").await,
        "standing 312; remembered t1,t2,t3,t4,x5,x6,x7,y8"
    );
    // A new story starts from nothing.
    app.new_session("Another").unwrap();
    assert_eq!(play(&app, "z1 gain 0").await, "standing 0; remembered z1");
}

#[tokio::test]
async fn turn_controls_keep_or_replay_the_mechanics() {
    let dir = tempfile::tempdir().unwrap();
    let app = app(dir.path());
    let session = app.new_session("Controls").unwrap().session.id;
    play(&app, "a gain 1").await;
    play(&app, "b attack gain 2").await;
    assert_eq!(rolls(dir.path()), 1);
    // Told again: the same turn (no new roll), a second version of it.
    let view = app.regenerate_narration(&session, None).await.unwrap();
    assert_eq!(rolls(dir.path()), 1);
    assert_eq!(view.turns.len(), 2);
    let alts = app.alternatives(&session).unwrap();
    assert_eq!(alts.len(), 2);
    assert!(alts[1].active);
    // Played again: a turn beside it, so three versions.
    let again = app.regenerate_turn(&session, None).await.unwrap();
    assert_eq!(again.turn.number, 2);
    assert_eq!(rolls(dir.path()), 2);
    assert_eq!(app.alternatives(&session).unwrap().len(), 3);
    let first = app.swipe(&session, Some(1)).await.unwrap();
    assert_eq!(first.turns[1].narrative, "standing 3; remembered a,b");
    // Edited: a new branch from turn 1.
    let edited = app.edit_turn(&session, 2, "c gain 5", None).await.unwrap();
    assert_eq!(edited.turn.narrative, "standing 6; remembered a,c");
    assert_eq!(app.branches(&session).unwrap().len(), 2);
    app.edit_narration(&session, 1, "Rewritten.").await.unwrap();
    assert_eq!(
        app.current_session().unwrap().turns[0].narrative,
        "Rewritten."
    );
    let more = app.continue_narration(&session, None).await.unwrap();
    assert!(
        more.turns[1].narrative.starts_with("standing 6"),
        "{:?}",
        more.turns[1]
    );
    assert!(app.redo(&session).unwrap().is_none());
    assert_eq!(app.tree(&session).unwrap().turns.len(), 4);
}

#[tokio::test]
async fn two_turns_of_one_story_take_turns() {
    let dir = tempfile::tempdir().unwrap();
    let app = std::sync::Arc::new(app(dir.path()));
    app.new_session("Busy").unwrap();
    let (a, b) = (app.clone(), app.clone());
    let first = tokio::spawn(async move { a.play("slow one gain 1", None).await });
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let second = tokio::spawn(async move { b.play("two gain 2", None).await });
    let first = first.await.unwrap().unwrap();
    let second = second.await.unwrap().unwrap();
    assert_eq!((first.turn.number, second.turn.number), (1, 2));
    assert_eq!(second.turn.parent.as_deref(), Some(first.turn.id.as_str()));
}

/// An edit asked for while a turn of the story runs waits for that turn:
/// the turn it edits is looked for on the branch as the running turn left
/// it, and the edit's branch starts from there. On one runtime thread, so
/// an edit that blocked the thread while it waited would never end.
#[tokio::test]
async fn an_edit_asked_during_a_turn_waits_for_it_then_branches() {
    let dir = tempfile::tempdir().unwrap();
    let app = std::sync::Arc::new(app(dir.path()));
    let session = app.new_session("Edited").unwrap().session.id;
    play(&app, "one gain 1").await;
    let running = {
        let app = app.clone();
        tokio::spawn(async move { app.play("slow two gain 2", None).await })
    };
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    // Turn 2 is the one still being played.
    let edited = tokio::time::timeout(
        std::time::Duration::from_secs(60),
        app.edit_turn(&session, 2, "three gain 3", None),
    )
    .await
    .expect("the edit waited for ever")
    .unwrap();
    let running = running.await.unwrap().unwrap();
    assert_eq!(running.turn.number, 2);
    assert_eq!(edited.turn.number, 2);
    assert_eq!(edited.turn.narrative, "standing 4; remembered one,three");
    let branches = app.branches(&session).unwrap();
    let names: Vec<&str> = branches.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["main", "edit of turn 2"]);
    assert!(branches[1].current);
    // An edit of a turn the branch does not have is refused, and no branch made.
    let err = app.edit_turn(&session, 9, "four", None).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::SessionNotFound, "{err}");
    assert_eq!(app.branches(&session).unwrap().len(), 2);
}

#[tokio::test]
async fn a_turn_whose_story_was_rewound_elsewhere_is_not_saved() {
    let dir = tempfile::tempdir().unwrap();
    let app = app(dir.path());
    let session = app.new_session("Raced").unwrap().session.id;
    play(&app, "one gain 1").await;
    let db = dir.path().join("s.db");
    let elsewhere = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(500));
        Store::open(&db).unwrap().rewind(&session, 0).unwrap();
    });
    let err = app.play("slow two gain 2", None).await.unwrap_err();
    elsewhere.join().unwrap();
    assert_eq!(err.code, ErrorCode::SessionChanged, "{err}");
    assert!(app.current_session().unwrap().turns.is_empty());
}

#[tokio::test]
async fn a_stopped_turn_keeps_what_was_decided_and_nothing_half_told() {
    let dir = tempfile::tempdir().unwrap();
    let app = std::sync::Arc::new(app(dir.path()));
    let session = app.new_session("Stopped").unwrap().session.id;
    let playing = app.clone();
    let turn = tokio::spawn(async move { playing.play("slow attack gain 3", None).await });
    tokio::time::sleep(std::time::Duration::from_millis(700)).await;
    let started = std::time::Instant::now();
    assert!(app.stop_turn(&session));
    let view = turn.await.unwrap().unwrap();
    assert!(started.elapsed() < std::time::Duration::from_secs(1));
    assert!(view.turn.fallback);
    assert!(
        view.turn.narrative.starts_with("You slow attack"),
        "{}",
        view.turn.narrative
    );
    assert_eq!(rolls(dir.path()), 1, "the roll stays made");
    assert!(!app.stop_turn(&session));
    // The ledger never recorded the stopped narration's change.
    assert_eq!(
        play(&app, "next gain 0").await,
        "standing 0; remembered next"
    );
}

/// The stop pressed while a turn still waits for the story's turn lock
/// reaches it: its stop button is registered before it waits, so once its
/// turn comes it ends at once, told by the fallback template, with
/// nothing run.
#[tokio::test]
async fn a_stop_pressed_while_a_turn_waits_for_the_story_stops_it() {
    let dir = tempfile::tempdir().unwrap();
    let app = std::sync::Arc::new(app(dir.path()));
    let session = app.new_session("Queued").unwrap().session.id;
    let (a, b) = (app.clone(), app.clone());
    let running = tokio::spawn(async move { a.play("slow attack gain 1", None).await });
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let waiting = tokio::spawn(async move { b.play("attack gain 2", None).await });
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert!(
        !waiting.is_finished(),
        "the second turn waits for the first"
    );
    assert!(app.stop_turn(&session));
    let running = running.await.unwrap().unwrap();
    let waited = waiting.await.unwrap().unwrap();
    assert!(running.turn.fallback, "the running turn stopped");
    assert!(waited.turn.fallback, "the waiting turn heard the stop");
    let english = narratoria_core::narration::Language::english();
    assert_eq!(
        waited.turn.narrative,
        narratoria_core::turn::fallback_narration(&english, "attack gain 2"),
        "told by the template alone"
    );
    assert_eq!(rolls(dir.path()), 1, "only the running turn rolled");
    assert!(!app.stop_turn(&session), "no turn left to stop");
}

/// The same for a narration told again while a turn runs: the stop
/// pressed while it waits ends it before its storyteller (slow to tell
/// this turn) runs at all.
#[tokio::test]
async fn a_stop_pressed_while_a_retelling_waits_for_the_story_stops_it() {
    let dir = tempfile::tempdir().unwrap();
    let app = std::sync::Arc::new(app(dir.path()));
    let session = app.new_session("Queued again").unwrap().session.id;
    play(&app, "slow one gain 1").await;
    let (a, b, id) = (app.clone(), app.clone(), session.clone());
    let running = tokio::spawn(async move { a.play("slow two gain 2", None).await });
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let waiting = tokio::spawn(async move { b.regenerate_narration(&id, None).await });
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert!(!waiting.is_finished(), "the retelling waits for the turn");
    let stopped = std::time::Instant::now();
    assert!(app.stop_turn(&session));
    running.await.unwrap().unwrap();
    waiting.await.unwrap().unwrap();
    assert!(
        stopped.elapsed() < std::time::Duration::from_millis(1400),
        "the retelling's storyteller never ran: {:?}",
        stopped.elapsed()
    );
}

#[tokio::test]
async fn a_turns_memory_follows_how_it_is_told() {
    let dir = tempfile::tempdir().unwrap();
    write_skill(dir.path(), "memory", "store-memory.py", MEMORY);
    let app = app(dir.path());
    let session = app.new_session("Accounts").unwrap().session.id;
    play(&app, "a gain 1").await;
    play(&app, "b gain 2").await;
    let ids: Vec<String> = app
        .current_session()
        .unwrap()
        .turns
        .iter()
        .map(|t| t.id.clone())
        .collect();
    let last = || kept(dir.path()).pop().expect("a memory was kept");
    let account = |turn: &str, told: &str| {
        let row = last();
        assert_eq!(row["turn"], turn, "{row}");
        assert_eq!(row["account"], true, "{row}");
        let summary = row["summary"].as_str().unwrap();
        assert!(summary.contains(told), "{summary:?} should tell {told:?}");
    };
    account(&ids[1], "standing 3");
    assert_eq!(kept(dir.path()).len(), 2);

    // Written by hand: the new account replaces the turn's.
    app.edit_narration(&session, 2, "The ledger burns.")
        .await
        .unwrap();
    account(&ids[1], "The ledger burns.");
    // Told again by the storyteller.
    app.regenerate_narration(&session, None).await.unwrap();
    account(&ids[1], "standing 3");
    // Another version chosen: the account is the chosen one's.
    let alts = app.alternatives(&session).unwrap();
    let burned = alts
        .iter()
        .position(|a| a.narrative.contains("burns"))
        .unwrap();
    app.swipe(&session, Some(burned as u32 + 1)).await.unwrap();
    account(&ids[1], "The ledger burns.");
    // An earlier turn edited: that turn's account, at its own place.
    app.edit_narration(&session, 1, "A quiet start.")
        .await
        .unwrap();
    account(&ids[0], "A quiet start.");
    assert_eq!(kept(dir.path()).len(), 6);
}
