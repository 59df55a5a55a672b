//! A real turn written out as a run folder: a replan, a retried script, a
//! host generation, the turn's memory, and a skill secret that a script
//! logs and the player typed — checked against the checked-in schemas, span
//! by span, and for the secret.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::*;
use crate::host::serve::HostLink;
use crate::narration::StoryTold;
use crate::rules::RulePlanner;
use crate::skills::SkillsState;
use crate::store::Store;
use crate::test_support::{script_skill as skill, Scribe};
use crate::turn::{play_turn, TurnInputs, TurnOptions, TurnOutcome};

/// The storyteller's secret setting (`format: "password"`).
const SECRET: &str = "sk-live-7QpZ93xw";

const DICE_FAIL: &str = r#"printf '%s\n' '{"type":"log","level":"info","message":"rolling"}' '{"type":"error","code":"INTERNAL_ERROR","message":"broken","recoverable":false}' '{"type":"done","ok":false}'; exit 1"#;

/// Fails its first run, then logs its key, asks the host to write and tells.
const TELL: &str = r#"f="$NARRATORIA_DATA_DIR/runs"
n=$(cat "$f" 2>/dev/null || echo 0); n=$((n+1)); echo "$n" > "$f"
if [ "$n" = 1 ]; then
  printf '%s\n' '{"type":"error","code":"BUSY","message":"not yet","recoverable":true}' '{"type":"done","ok":false}'
  exit 1
fi
printf '%s\n' '{"type":"log","level":"info","message":"calling with key sk-live-7QpZ93xw"}'
printf '%s\n' '{"type":"ui_event","event":"narration_delta","payload":{"text":"The"}}'
printf '%s\n' '{"type":"generate","id":"g1","messages":[{"role":"user","content":"Tell it."}],"maxTokens":16,"stream":false}'
read -r reply
printf '%s\n' '{"type":"state_patch","patch":{"told":true}}' '{"type":"done","ok":true,"output":{"narrative":"The goblin falls."}}'"#;

const STORE: &str = r#"printf '%s\n' '{"type":"done","ok":true,"output":{"stored":true}}'"#;

/// Plays "I attack the goblin" (with the secret typed in) over real scripts.
async fn played() -> (TurnOutcome, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    skill(&root, "dice-roller", "roll-dice", "", DICE_FAIL);
    let teller = skill(
        &root,
        "storyteller",
        "narrate",
        r#","protocol":"narratoria/1.1","capabilities":["generate"]"#,
        TELL,
    );
    std::fs::write(
        teller.join("config-schema.json"),
        r#"{"type":"object","properties":{"apiKey":{"type":"string","format":"password"}}}"#,
    )
    .unwrap();
    std::fs::write(
        teller.join("config.json"),
        format!(r#"{{"apiKey":"{SECRET}"}}"#),
    )
    .unwrap();
    skill(&root, "memory", "store-memory", "", STORE);
    let catalog = Arc::new(crate::skills::discover(&[root]).unwrap());
    let mut opts = TurnOptions::default();
    opts.exec.host = HostLink {
        generator: Some(Arc::new(Scribe)),
    };
    opts.exec.settings_dir = Some(dir.path().join("settings"));
    let out = play_turn(
        TurnInputs {
            input: &format!("I attack the goblin, shouting {SECRET}"),
            planner: Arc::new(RulePlanner),
            catalog,
            state: Map::new(),
            recent: vec![],
            told: StoryTold::default(),
            options: &opts,
            events: None,
        },
        &mut SkillsState::default(),
    )
    .await;
    (out, dir)
}

fn contract(name: &str) -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../contracts")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    crate::schema::compile(&serde_json::from_str(&text).unwrap()).unwrap()
}

/// Each line of `file` in `dir`, checked against contract `schema`.
fn valid_lines(dir: &Path, file: &str, schema: &str) -> Vec<Value> {
    let validator = contract(schema);
    let text = std::fs::read_to_string(dir.join(file)).unwrap();
    text.lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).unwrap();
            let errors = crate::schema::validation_errors(&validator, &v);
            assert!(errors.is_empty(), "{file}: {line}\n{errors:?}");
            v
        })
        .collect()
}

/// Checks the folder at `dir` written from a turn whose trace is `trace`.
fn check_folder(dir: &Path, trace: &TraceRecord) {
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
    let errors = crate::schema::validation_errors(&contract("run-manifest.schema.json"), &manifest);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(manifest["runFolderVersion"], 1);
    assert_eq!(manifest["traceId"], trace.trace_id.as_str());
    assert_eq!(manifest["redactionMode"], "redacted");

    let events = valid_lines(dir, "events.jsonl", "run-event.schema.json");
    assert_eq!(manifest["counts"]["events"], events.len());
    let ats: Vec<u64> = events.iter().map(|e| e["atMs"].as_u64().unwrap()).collect();
    assert!(
        ats.windows(2).all(|w| w[0] <= w[1]),
        "in time order: {ats:?}"
    );
    let mut per_span: HashMap<&str, Vec<(&str, u64, &str)>> = HashMap::new();
    for e in &events {
        assert_eq!(e["traceId"], trace.trace_id.as_str());
        let span = e["spanId"].as_str().expect("every event has its span");
        per_span.entry(span).or_default().push((
            e["eventType"].as_str().unwrap(),
            e["atMs"].as_u64().unwrap(),
            e["timestamp"].as_str().unwrap(),
        ));
    }
    for s in &trace.spans {
        let seen = per_span
            .get(s.span_id.as_str())
            .unwrap_or_else(|| panic!("{} has records", s.name));
        assert_eq!(seen.first().unwrap().0, "span_started", "{}", s.name);
        assert_eq!(seen.last().unwrap().0, "span_finished", "{}", s.name);
        let starts = seen.iter().filter(|r| r.0 == "span_started").count();
        let ends = seen.iter().filter(|r| r.0 == "span_finished").count();
        assert_eq!((starts, ends), (1, 1), "{}", s.name);
        assert!(
            seen.windows(2)
                .all(|w| w[0].1 <= w[1].1 && w[0].2 <= w[1].2),
            "{}'s records are monotonic: {seen:?}",
            s.name
        );
        assert_eq!(seen[0].1, s.start_ms);
    }
    let types: Vec<&str> = events
        .iter()
        .map(|e| e["eventType"].as_str().unwrap())
        .collect();
    for t in [
        "log",
        "ui_event",
        "generation",
        "state_patch",
        "done",
        "error",
    ] {
        assert!(types.contains(&t), "a {t} event is kept: {types:?}");
    }
    check_transcripts(dir, trace);
}

fn check_transcripts(dir: &Path, trace: &TraceRecord) {
    let calls = valid_lines(dir, "transcripts.jsonl", "run-transcript.schema.json");
    let planner: Vec<_> = calls
        .iter()
        .filter(|c| c["callSite"] == "planner")
        .collect();
    assert_eq!(planner.len(), 2, "one planner call per attempt");
    assert_eq!(planner[0]["provider"], "rules");
    assert!(planner[0]["promptText"]
        .as_str()
        .unwrap()
        .contains("goblin"));
    let writer: Vec<_> = calls.iter().filter(|c| c["callSite"] == "writer").collect();
    assert_eq!(writer.len(), 1, "{calls:#?}");
    let w = writer[0];
    assert_eq!(w["provider"], "host");
    assert_eq!(w["requestId"], "g1");
    assert_eq!(
        w["promptText"],
        Value::Null,
        "a writer's prompt is never kept"
    );
    assert!(w["promptHash"].as_str().is_some_and(|h| h.len() == 16));
    assert_eq!(w["finishReason"], "stop");
    assert_eq!(w["usage"]["outputTokens"], 4);
    assert_eq!(w["budget"]["responseHeadroomTokens"], 16);
    assert_eq!(w["scriptAttempt"], 2);
    let span = trace
        .span(w["spanId"].as_str().unwrap())
        .expect("its generate span");
    assert_eq!(w["atMs"], span.start_ms);
}

/// No file in `dir` holds `secret`.
fn assert_secret_nowhere(dir: &Path, secret: &str) {
    let mut files = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            !text.contains(secret),
            "{} holds the secret",
            path.display()
        );
        files += 1;
    }
    assert_eq!(files, 5);
}

/// The turn as the store would hand it back, built in memory.
fn record_of(out: &TurnOutcome) -> TurnRecord {
    TurnRecord {
        id: "0c4b5f2e-turn".into(),
        parent: None,
        number: 1,
        input: out.turn.input.clone(),
        narrative: out.turn.narrative.clone(),
        fallback: out.turn.fallback,
        state_after: out.turn.state_after.clone(),
        created_at: "2025-01-01T00:00:00.000Z".into(),
        duration_ms: out.turn.duration_ms,
        attempts: out.turn.attempts.clone(),
        trace: out.turn.trace.clone(),
    }
}

#[tokio::test]
async fn a_played_turn_is_written_out_whole_and_without_its_secret() {
    let (out, dir) = played().await;
    assert!(out.result.success, "{:?}", out.result.failure_message);
    let trace = out.turn.trace.clone().expect("the turn keeps its trace");
    let turn = record_of(&out);
    let folder = build("session-1", &turn, &[SECRET.to_string()]);
    let at = dir.path().join("run");
    assert_eq!(folder.write(&at).unwrap(), at);
    check_folder(&at, &trace);
    assert_secret_nowhere(&at, SECRET);
    let summary = std::fs::read_to_string(at.join("summary.md")).unwrap();
    assert!(
        summary.contains("# Turn 1 of session session-1"),
        "{summary}"
    );
    assert!(summary.contains("### Attempt 1 — failed"), "{summary}");
    assert!(
        summary.contains("  attempt 2 [attempt]"),
        "spans indent by depth: {summary}"
    );
    assert!(summary.contains(REDACTED));
}

#[tokio::test]
async fn a_stored_turn_is_written_out_with_its_whole_trace() {
    let (out, dir) = played().await;
    let mut store = Store::open(&dir.path().join("sessions.db")).unwrap();
    let session = store.create_session("t", &Map::new()).unwrap();
    store.commit_turn(&session, &out.turn).unwrap();
    let turn = store.turns(&session).unwrap().remove(0);
    let trace = turn
        .trace
        .clone()
        .expect("the store keeps the turn's trace");
    assert_eq!(Some(&trace), out.turn.trace.as_ref());
    let at = dir.path().join("run");
    build(&session, &turn, &[SECRET.to_string()])
        .write(&at)
        .unwrap();
    check_folder(&at, &trace);
    assert_secret_nowhere(&at, SECRET);
}

#[test]
fn a_folder_is_refused_where_something_is_already() {
    let dir = tempfile::tempdir().unwrap();
    let turn = TurnRecord {
        id: String::new(),
        parent: None,
        number: 3,
        input: "look".into(),
        narrative: "You look.".into(),
        fallback: false,
        state_after: Map::new(),
        created_at: "2025-01-01T00:00:01.000Z".into(),
        duration_ms: 1000,
        attempts: vec![],
        trace: None,
    };
    let folder = build("s", &turn, &[]);
    assert_eq!(
        folder.run_id.len(),
        36,
        "a turn without a key gets a fresh UUID"
    );
    assert_eq!(folder.manifest["startedAt"], "2025-01-01T00:00:00.000Z");
    let full = dir.path().join("full");
    std::fs::create_dir(&full).unwrap();
    std::fs::write(full.join("x"), "x").unwrap();
    let err = folder.write(&full).unwrap_err();
    assert!(matches!(err, RunFolderError::NotEmpty(_)), "{err}");
    assert_eq!(err.code(), crate::error::ErrorCode::ExportRefused);
    let file = dir.path().join("file");
    std::fs::write(&file, "x").unwrap();
    assert!(matches!(
        folder.write(&file),
        Err(RunFolderError::NotEmpty(_))
    ));
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    folder.write(&empty).unwrap();
    assert!(empty.join("summary.md").is_file());
    let nested = dir.path().join("a/b/c");
    folder.write(&nested).unwrap();
    assert!(nested.join("events.jsonl").is_file());
}

/// A turn told without the storyteller from `input`, first of its story.
fn fallback_turn(input: &str) -> TurnRecord {
    TurnRecord {
        id: "k".into(),
        parent: None,
        number: 1,
        input: input.into(),
        narrative: "n".into(),
        fallback: true,
        state_after: Map::new(),
        created_at: String::new(),
        duration_ms: 0,
        attempts: vec![],
        trace: None,
    }
}

#[test]
fn a_file_that_would_hold_a_secret_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let secret = "hunter2\"quoted";
    let turn = fallback_turn(&format!("say {secret}"));
    let mut folder = build("s", &turn, &[secret.to_string()]);
    assert!(
        !folder.result.to_string().contains("hunter2"),
        "scrubbed as built"
    );
    folder.result["turn"]["input"] = Value::String(secret.into());
    let at = dir.path().join("run");
    let err = folder.write(&at).unwrap_err();
    assert!(
        matches!(&err, RunFolderError::SecretLeak { file } if file == "result.json"),
        "{err}"
    );
    assert!(!at.exists());
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "no staging left"
    );
}

/// A secret setting spelt like JSON's own words or a number (`true`,
/// `null`, `1234`) once refused every folder: the bytes of `"fallback":
/// true` held it. The JSON around the texts holds no secret; the texts are
/// scrubbed of it, and a real secret is still in no file.
#[tokio::test]
async fn a_secret_spelt_like_json_does_not_refuse_the_folder() {
    let (out, dir) = played().await;
    let turn = record_of(&out);
    let secrets = ["true", "false", "null", "1234", "ab", SECRET].map(String::from);
    let at = dir.path().join("run");
    build("session-1", &turn, &secrets).write(&at).unwrap();
    assert_secret_nowhere(&at, SECRET);
    let result: Value =
        serde_json::from_str(&std::fs::read_to_string(at.join("result.json")).unwrap()).unwrap();
    assert_eq!(result["turn"]["fallback"], false, "the JSON is left whole");
}

/// The same, without a played turn: a fallback turn's `true`, and a text
/// that says it, with the secret `true`.
#[test]
fn a_json_literal_is_no_secret_but_a_text_holding_it_is_scrubbed() {
    let dir = tempfile::tempdir().unwrap();
    let turn = fallback_turn("is it true");
    let at = dir.path().join("run");
    let folder = build("s", &turn, &["true".to_string(), "null".to_string()]);
    folder.write(&at).unwrap();
    let result: Value =
        serde_json::from_str(&std::fs::read_to_string(at.join("result.json")).unwrap()).unwrap();
    assert_eq!(result["turn"]["fallback"], true);
    assert_eq!(result["turn"]["input"], format!("is it {REDACTED}"));
}
