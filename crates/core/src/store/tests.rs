//! The session store's promises: turns commit, resume, rewind and export;
//! the story is a tree whose branches move without losing turns; writers
//! wait for each other; a stale turn is refused.

use super::schema;
use super::*;
use serde_json::json;

fn turn(input: &str, state: Value) -> NewTurn {
    NewTurn {
        input: input.into(),
        narrative: format!("You {input}."),
        fallback: false,
        state_after: state.as_object().unwrap().clone(),
        duration_ms: 5,
        attempts: vec![AttemptRecord {
            attempt: 1,
            plan: Some(json!({"tools": []})),
            result: None,
            error: None,
            transcript: Some(Transcript {
                planner: "rules".into(),
                response: "{}".into(),
                ..Default::default()
            }),
            lore: vec![LoreUse {
                name: "Rats".into(),
                by: crate::scenario::lore::LoreReason::Meaning,
                similarity: Some(0.5),
            }],
            routing: Some(crate::planner::Routing {
                threshold: -0.4,
                further_threshold: 1.6,
                narration: Some(-3.0),
                narration_margin: Some(-1.0),
                by_player: false,
                skills: vec![crate::planner::SkillRouting {
                    skill: "dice-roller".into(),
                    script: "roll-dice".into(),
                    meaning: 0.2,
                    keywords: 0.05,
                    model: 3.5,
                    score: 8.5,
                    chosen: true,
                }],
            }),
            noted: true,
        }],
        trace: None,
    }
}

#[test]
fn turns_commit_resume_rewind_and_export() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.db");
    let mut store = Store::open(&path).unwrap();
    let id = store
        .create_session("The Lost Key", json!({"hp": 10}).as_object().unwrap())
        .unwrap();
    assert_eq!(
        store.current_state(&id).unwrap(),
        *json!({"hp": 10}).as_object().unwrap()
    );
    assert_eq!(
        store
            .commit_turn(&id, &turn("look around", json!({"hp": 10, "room": "hall"})))
            .unwrap(),
        1
    );
    assert_eq!(
        store
            .commit_turn(
                &id,
                &turn("fight the rat", json!({"hp": 7, "room": "hall"}))
            )
            .unwrap(),
        2
    );
    drop(store);

    let mut store = Store::open(&path).unwrap();
    assert_eq!(store.latest_session().unwrap().unwrap().turns, 2);
    assert_eq!(store.current_state(&id).unwrap()["hp"], 7);
    let turns = store.turns(&id).unwrap();
    assert_eq!(
        turns[1].attempts[0].transcript.as_ref().unwrap().planner,
        "rules"
    );
    // The lore its narration was told comes back with the attempt.
    assert_eq!(turns[1].attempts[0].lore[0].name, "Rats");
    assert_eq!(turns[1].attempts[0].lore[0].similarity, Some(0.5));
    // So does why its plan used its skills.
    assert!(
        turns[1].attempts[0].noted,
        "whether the turn only noted is kept"
    );
    let routing = turns[1].attempts[0].routing.as_ref().expect("routing kept");
    assert_eq!(
        (routing.skills[0].skill.as_str(), routing.skills[0].model),
        ("dice-roller", 3.5)
    );
    assert_eq!(
        store.recent_turns(&id, 1).unwrap()[0].input,
        "fight the rat"
    );

    let md = store.export_markdown(&id).unwrap();
    assert!(md.contains("# The Lost Key") && md.contains("> fight the rat"));
    assert_eq!(
        store.export_json(&id).unwrap()["turns"]
            .as_array()
            .unwrap()
            .len(),
        2
    );

    let state = store.rewind(&id, 1).unwrap();
    assert_eq!(Value::Object(state), json!({"hp": 10, "room": "hall"}));
    assert_eq!(store.turns(&id).unwrap().len(), 1);
    let state = store.rewind(&id, 0).unwrap();
    assert_eq!(Value::Object(state), json!({"hp": 10}));
    assert!(matches!(
        store.rewind(&id, 5),
        Err(StoreError::NoTurn { .. })
    ));
    assert!(matches!(
        store.commit_turn("nope", &turn("x", json!({}))),
        Err(StoreError::NoSession(_))
    ));
}

#[test]
fn a_file_that_is_not_a_database_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("junk.db");
    std::fs::write(&path, vec![b'x'; 4096]).unwrap();
    let err = Store::open(&path).err().expect("must fail");
    assert!(err.to_string().contains("junk.db"), "{err}");
}

#[test]
fn timestamps_are_rfc3339() {
    let t = now();
    assert_eq!(t.len(), 24, "{t}");
    assert!(
        t.starts_with("20") && t.ends_with('Z') && &t[10..11] == "T",
        "{t}"
    );
}

fn state(v: Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

/// A story with turns "t1".."tn" played on its main branch.
fn story(store: &mut Store, n: u32) -> String {
    let id = store
        .create_session("Tree", &state(json!({"n": 0})))
        .unwrap();
    for i in 1..=n {
        store
            .commit_turn(&id, &turn(&format!("t{i}"), json!({"n": i})))
            .unwrap();
    }
    id
}

fn inputs(store: &Store, id: &str) -> Vec<String> {
    store
        .turns(id)
        .unwrap()
        .into_iter()
        .map(|t| t.input)
        .collect()
}

#[test]
fn a_linear_story_becomes_one_branch_named_main() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.db");
    {
        let mut conn = Connection::open(&path).unwrap();
        schema::linear_only().to_latest(&mut conn).unwrap();
        conn.execute_batch(
            "INSERT INTO sessions (id, title, created_at, updated_at, initial_state)
               VALUES ('s1', 'Old tale', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', '{\"hp\":3}');
             INSERT INTO turns (session_id, number, input, narrative, state_after, created_at)
               VALUES ('s1', 1, 'look', 'You look.', '{\"hp\":3}', '2026-01-01T00:00:01.000Z'),
                      ('s1', 2, 'run', 'You run.', '{\"hp\":2}', '2026-01-01T00:00:02.000Z');
             INSERT INTO plan_attempts (turn_id, attempt, plan) VALUES (2, 1, '{\"tools\":[]}');",
        )
        .unwrap();
    }
    let mut store = Store::open(&path).unwrap();
    let info = store.session("s1").unwrap();
    assert_eq!((info.turns, info.branch.as_str()), (2, "main"));
    let turns = store.turns("s1").unwrap();
    assert_eq!(inputs(&store, "s1"), vec!["look", "run"]);
    assert_eq!(turns[1].parent.as_deref(), Some(turns[0].id.as_str()));
    assert_eq!(turns[1].attempts.len(), 1);
    assert_eq!(store.current_state("s1").unwrap()["hp"], 2);
    assert_eq!(store.alternatives("s1").unwrap().len(), 1);
    store
        .commit_turn("s1", &turn("hide", json!({"hp": 2})))
        .unwrap();
    assert_eq!(store.session("s1").unwrap().turns, 3);
}

#[test]
fn rewind_keeps_the_turns_and_redo_brings_them_back() {
    let mut store = Store::open(Path::new(":memory:")).unwrap();
    let id = story(&mut store, 3);
    store.rewind(&id, 1).unwrap();
    assert_eq!(inputs(&store, &id), vec!["t1"]);
    assert!(store.redo(&id).unwrap());
    assert!(store.redo(&id).unwrap());
    assert!(!store.redo(&id).unwrap());
    assert_eq!(inputs(&store, &id), vec!["t1", "t2", "t3"]);
    assert!(store.undo(&id).unwrap());
    assert_eq!(store.current_state(&id).unwrap()["n"], 2);
    // A new turn after an undo keeps the undone line as a branch.
    store
        .commit_turn(&id, &turn("other", json!({"n": 9})))
        .unwrap();
    assert!(!store.redo(&id).unwrap());
    let branches = store.branches(&id).unwrap();
    let names: Vec<&str> = branches.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, vec!["main", "main (earlier)"]);
    assert_eq!(branches[1].turns, 3);
    assert_eq!(store.tree(&id).unwrap().turns.len(), 4);
    store.rewind(&id, 0).unwrap();
    assert!(store.turns(&id).unwrap().is_empty());
    assert!(!store.undo(&id).unwrap());
}

#[test]
fn branches_are_named_heads_the_session_switches_between() {
    let mut store = Store::open(Path::new(":memory:")).unwrap();
    let id = story(&mut store, 5);
    let b = store.branch(&id, 2, Some("what if")).unwrap();
    assert_eq!((b.turns, b.current), (2, false));
    assert!(matches!(
        store.branch(&id, 2, Some("what if")),
        Err(StoreError::BranchExists(_))
    ));
    assert!(matches!(
        store.branch(&id, 9, None),
        Err(StoreError::NoTurn { .. })
    ));
    store.switch_branch(&id, "what if").unwrap();
    assert_eq!(store.session(&id).unwrap().branch, "what if");
    store
        .commit_turn(&id, &turn("x3", json!({"n": 30})))
        .unwrap();
    assert_eq!(inputs(&store, &id), vec!["t1", "t2", "x3"]);
    assert_eq!(store.current_state(&id).unwrap()["n"], 30);
    store.switch_branch(&id, "main").unwrap();
    assert_eq!(inputs(&store, &id).len(), 5);
    assert_eq!(store.recent_turns(&id, 1).unwrap()[0].input, "t5");
    assert_eq!(store.branch(&id, 0, None).unwrap().name, "branch 2");
    store.rename_branch(&id, "what if", "dream").unwrap();
    store.delete_branch(&id, "main").unwrap();
    assert_eq!(store.session(&id).unwrap().branch, "branch 2");
    store.delete_branch(&id, "branch 2").unwrap();
    assert!(matches!(
        store.delete_branch(&id, "dream"),
        Err(StoreError::LastBranch)
    ));
    assert_eq!(inputs(&store, &id), vec!["t1", "t2", "x3"]);
    let tree = store.export_tree_json(&id).unwrap();
    assert_eq!(tree["turns"].as_array().unwrap().len(), 6);
    assert_eq!(tree["branches"][0]["name"], "dream");
    store.rename(&id, "Renamed").unwrap();
    store.delete_session(&id).unwrap();
    assert!(store.sessions().unwrap().is_empty());
}

#[test]
fn alternatives_are_narrations_and_turns_beside_the_head() {
    let mut store = Store::open(Path::new(":memory:")).unwrap();
    let id = story(&mut store, 2);
    store.add_narration(&id, 2, "Told again.").unwrap();
    let place = store.place_beside_head(&id).unwrap();
    assert_eq!(place.number, 2);
    store
        .commit_at(&place, &turn("t2", json!({"n": 20})))
        .unwrap();
    let alts = store.alternatives(&id).unwrap();
    let told: Vec<(&str, bool)> = alts
        .iter()
        .map(|a| (a.narrative.as_str(), a.active))
        .collect();
    assert_eq!(
        told,
        vec![
            ("You t2.", false),
            ("Told again.", false),
            ("You t2.", true)
        ]
    );
    store.choose_alternative(&id, 2).unwrap();
    assert_eq!(store.turns(&id).unwrap()[1].narrative, "Told again.");
    assert_eq!(store.current_state(&id).unwrap()["n"], 2);
    assert!(matches!(
        store.choose_alternative(&id, 7),
        Err(StoreError::NoAlternative(7))
    ));
    assert_eq!(store.tree(&id).unwrap().turns.len(), 3);
    let md = store.export_markdown(&id).unwrap();
    assert!(md.contains("Told again."), "{md}");
}

#[test]
fn a_turn_whose_branch_moved_meanwhile_is_refused() {
    let mut store = Store::open(Path::new(":memory:")).unwrap();
    let id = story(&mut store, 2);
    let place = store.place_next(&id).unwrap();
    assert_eq!((place.number, place.path.len()), (3, 2));
    store.undo(&id).unwrap();
    let err = store
        .commit_at(&place, &turn("late", json!({})))
        .unwrap_err();
    assert!(matches!(err, StoreError::SessionChanged { .. }), "{err}");
    assert_eq!(err.code(), ErrorCode::SessionChanged);
    assert_eq!(store.tree(&id).unwrap().turns.len(), 2);
}

/// Another connection holds the write lock for 1.5 s: the commit waits for
/// it instead of failing with "database is locked".
#[test]
fn a_commit_waits_for_another_writer() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.db");
    let mut store = Store::open(&path).unwrap();
    let id = story(&mut store, 1);
    let (locked_tx, locked_rx) = std::sync::mpsc::channel();
    let holder = {
        let path = path.clone();
        std::thread::spawn(move || {
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch("BEGIN IMMEDIATE").unwrap();
            conn.execute("UPDATE sessions SET title = 'held'", [])
                .unwrap();
            locked_tx.send(()).unwrap();
            std::thread::sleep(std::time::Duration::from_millis(1500));
            conn.execute_batch("COMMIT").unwrap();
        })
    };
    locked_rx.recv().unwrap();
    let started = std::time::Instant::now();
    let number = store.commit_turn(&id, &turn("t2", json!({}))).unwrap();
    assert_eq!(number, 2);
    assert!(started.elapsed() >= std::time::Duration::from_millis(1000));
    holder.join().unwrap();
    assert_eq!(store.session(&id).unwrap().title, "held");
}

#[test]
fn recent_turns_and_a_turn_by_key_read_only_what_they_need() {
    let mut store = Store::open(Path::new(":memory:")).unwrap();
    let id = story(&mut store, 8);
    let recent: Vec<String> = store
        .recent_turns(&id, 3)
        .unwrap()
        .into_iter()
        .map(|t| t.input)
        .collect();
    assert_eq!(recent, ["t6", "t7", "t8"], "the last three, oldest first");
    assert_eq!(store.recent_turns(&id, 20).unwrap().len(), 8);
    let fifth = &store.turns(&id).unwrap()[4];
    let again = store.turn_by_key(&id, &fifth.id).unwrap();
    assert_eq!(&again, fifth);
    assert!(store.turn_by_key(&id, "no-such-turn").is_err());
    assert!(store.turn_by_key("no-such-session", &fifth.id).is_err());
}

#[test]
fn the_head_turn_is_the_current_branchs_last() {
    let mut store = Store::open(Path::new(":memory:")).unwrap();
    let empty = story(&mut store, 0);
    assert_eq!(
        store.head_turn(&empty).unwrap(),
        None,
        "no turn at the start"
    );
    let id = story(&mut store, 5);
    let head = store.head_turn(&id).unwrap().expect("a head turn");
    assert_eq!(Some(&head), store.turns(&id).unwrap().last());
    assert_eq!((head.number, head.input.as_str()), (5, "t5"));
    store.rewind(&id, 2).unwrap();
    assert_eq!(
        store.head_turn(&id).unwrap().map(|t| t.input),
        Some("t2".into())
    );
}

#[test]
fn a_turns_attempts_are_found_through_an_index() {
    // A scan here made every turn slower than the last in a long story.
    let store = Store::open(Path::new(":memory:")).unwrap();
    for (table, index) in [
        ("plan_attempts", "plan_attempts_by_turn"),
        ("transcripts", "transcripts_by_turn"),
    ] {
        let plan: Vec<String> = store
            .conn
            .prepare(&format!(
                "EXPLAIN QUERY PLAN SELECT * FROM {table} WHERE turn_id = 1 ORDER BY id"
            ))
            .unwrap()
            .query_map([], |r| r.get::<_, String>(3))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert!(
            plan.iter().any(|step| step.contains(index)),
            "{table}: {plan:?}"
        );
    }
}

/// A database whose schema version is past this release's is refused with
/// both versions named and the way out, and is left as it was.
#[test]
fn a_database_from_a_newer_release_says_so_and_is_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("newer.db");
    drop(Store::open(&path).unwrap());
    let newer = schema::VERSION + 3;
    Connection::open(&path)
        .unwrap()
        .pragma_update(None, "user_version", newer)
        .unwrap();

    let err = Store::open(&path).err().expect("must be refused");
    let text = err.to_string();
    for words in [
        path.display().to_string(),
        "written by a newer Narratoria".to_string(),
        format!("schema version {newer}"),
        format!("this one knows {}", schema::VERSION),
        "update Narratoria".to_string(),
    ] {
        assert!(text.contains(&words), "{words:?} missing from: {text}");
    }
    assert!(!text.contains("rusqlite"), "{text}");
    assert!(
        matches!(err, StoreError::TooNew { found, .. } if found == newer),
        "{err:?}"
    );
    assert_eq!(err.code(), crate::error::ErrorCode::SessionStore);
    let kept: i64 = Connection::open(&path)
        .unwrap()
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(kept, newer);
}

/// A healthy database that cannot be written is said to be read-only, not
/// damaged. SQLite opens a file on a read-only disk read-only, and the store
/// then fails to switch it to WAL with SQLITE_READONLY; tests run as root,
/// whom file modes do not stop, so the connection is opened read-only here.
#[test]
fn a_database_that_cannot_be_written_is_called_read_only_not_damaged() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("plain.db");
    Connection::open(&path)
        .unwrap()
        .execute_batch("CREATE TABLE t (x INTEGER);")
        .unwrap();
    let err = Store::open_with(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .err()
        .expect("must fail");
    let text = err.to_string();
    assert!(matches!(err, StoreError::ReadOnly { .. }), "{err:?}");
    for words in [
        path.display().to_string(),
        "cannot be written".to_string(),
        "read-only".to_string(),
    ] {
        assert!(text.contains(&words), "{words:?} missing from: {text}");
    }
    assert!(!text.contains("not a usable"), "{text}");
    assert_eq!(err.code(), crate::error::ErrorCode::SessionStore);
}

/// A folder that cannot be made for lack of permission, or on a read-only
/// disk, is read-only too; other failures stay what they are.
#[test]
fn a_folder_refused_by_the_file_system_is_read_only() {
    let path = Path::new("/somewhere/sessions.db");
    for kind in [
        std::io::ErrorKind::PermissionDenied,
        std::io::ErrorKind::ReadOnlyFilesystem,
    ] {
        let err = opening::io_error(path, std::io::Error::from(kind));
        assert!(matches!(err, StoreError::ReadOnly { .. }), "{err:?}");
    }
    let err = opening::io_error(path, std::io::Error::from(std::io::ErrorKind::NotFound));
    assert!(matches!(err, StoreError::Open { .. }), "{err:?}");
}
