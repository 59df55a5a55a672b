//! Black-box tests of `narratoria scenarios|cards|lore` and of starting a
//! story from a scenario: the real binary, with valid and broken files
//! (a real PNG character card built here with the png crate).

use std::path::{Path, PathBuf};
use std::process::Command;

use base64::Engine;
use serde_json::{json, Value};

/// What one run of the binary produced.
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e})\n{}\n--- stderr ---\n{}",
                self.stdout, self.stderr
            )
        })
    }
}

/// A home folder for the user's data, and the session database in it.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Home {
        Home {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn db(&self) -> PathBuf {
        self.dir.path().join("sessions.db")
    }

    /// A new empty story in this home's database; its id.
    fn new_story(&self) -> String {
        self.ok(&["sessions", "new", "--session", &path(&self.db())])
            .stdout
            .trim()
            .to_string()
    }

    fn file(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    fn run(&self, args: &[&str]) -> Run {
        let out = Command::new(env!("CARGO_BIN_EXE_narratoria"))
            .args(args)
            .env("NARRATORIA_HOME", self.dir.path())
            .env_remove("XDG_DATA_HOME")
            .output()
            .expect("narratoria runs");
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// Runs and expects success.
    fn ok(&self, args: &[&str]) -> Run {
        let run = self.run(args);
        assert_eq!(
            run.code, 0,
            "{args:?} failed:\n{}\n{}",
            run.stdout, run.stderr
        );
        run
    }

    /// Runs and expects exit 2 with `code` and `words` on stderr.
    fn refused(&self, args: &[&str], code: &str, words: &str) {
        let run = self.run(args);
        assert_eq!(
            run.code, 2,
            "{args:?} should fail:\n{}\n{}",
            run.stdout, run.stderr
        );
        assert!(
            run.stderr.contains(&format!("error[{code}]")) && run.stderr.contains(words),
            "{args:?}: expected [{code}] and {words:?} on stderr, got:\n{}",
            run.stderr
        );
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    }
}

fn card_v2() -> Value {
    json!({
        "spec": "chara_card_v2",
        "spec_version": "2.0",
        "data": {
            "name": "Old Tom",
            "description": "{{char}} is a ferryman who never seems to sleep.",
            "personality": "patient, sly",
            "scenario": "{{user}} needs to cross the river tonight.",
            "first_mes": "*{{char}} leans on his pole.* Fare's a copper, {{user}}.",
            "mes_example": "", "creator_notes": "", "system_prompt": "",
            "post_history_instructions": "", "alternate_greetings": [],
            "tags": [], "creator": "test", "character_version": "1", "extensions": {},
            "character_book": {"extensions": {}, "entries": [
                {"keys": ["eel", "eels"], "content": "Eels swarm under the ferry in spring.",
                 "extensions": {}, "enabled": true, "insertion_order": 1}
            ]}
        }
    })
}

/// A real 2×2 PNG with these tEXt chunks.
fn png_with(chunks: &[(&str, String)]) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, 2, 2);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        for (k, t) in chunks {
            enc.add_text_chunk(k.to_string(), t.clone()).unwrap();
        }
        let mut w = enc.write_header().unwrap();
        w.write_image_data(&[30, 60, 90, 30, 60, 90, 200, 10, 10, 200, 10, 10])
            .unwrap();
        w.finish().unwrap();
    }
    out
}

fn b64(v: &Value) -> String {
    base64::engine::general_purpose::STANDARD.encode(v.to_string())
}

fn state_of(home: &Home, id: &str) -> Value {
    let export = home.ok(&[
        "sessions",
        "export",
        id,
        "--format",
        "json",
        "--session",
        &path(&home.db()),
    ]);
    export.json()
}

fn path(p: &Path) -> String {
    p.display().to_string()
}

#[test]
fn scenarios_list_names_the_built_in_ones() {
    let home = Home::new();
    let list = home.ok(&["scenarios", "list", "--json"]).json();
    let names: Vec<&str> = list["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["ashford", "tithonus"]);
    assert!(home
        .ok(&["scenarios", "list"])
        .stdout
        .contains("The Lantern at Ashford"));
}

#[test]
fn a_story_starts_from_a_scenario_with_its_factions_and_opening() {
    let home = Home::new();
    let db = path(&home.db());
    let made = home
        .ok(&[
            "sessions",
            "new",
            "--scenario",
            "tithonus",
            "--session",
            &db,
            "--json",
        ])
        .json();
    let state = &made["state"];
    assert_eq!(state["scenario"]["title"], "The Quiet on Tithonus Station");
    assert!(state["scenario"]["opening"]
        .as_str()
        .unwrap()
        .contains("airlock"));
    assert_eq!(state["reputation"]["salvage-guild"]["score"], 20);
    assert!(state["factions"].as_array().unwrap().len() >= 3);
    home.refused(
        &[
            "sessions",
            "new",
            "--scenario",
            "atlantis",
            "--session",
            &db,
        ],
        "scenario_not_found",
        "no scenario named \"atlantis\"",
    );
}

#[test]
fn a_png_card_joins_a_story_and_json_prints_the_card() {
    let home = Home::new();
    let db = path(&home.db());
    let id = home.new_story();
    let png = home.file("tom.png", &png_with(&[("chara", b64(&card_v2()))]));
    let card = home
        .ok(&[
            "cards",
            "import",
            &path(&png),
            "--as",
            "npc",
            "--session",
            &id,
            "--db",
            &db,
            "--json",
        ])
        .json();
    assert_eq!(card["name"], "Old Tom");
    assert_eq!(card["spec"], "chara_card_v2");
    assert_eq!(card["lore"][0]["keys"], json!(["eel", "eels"]));
    let story = state_of(&home, &id);
    let turns = story["turns"].as_array().unwrap();
    let last = turns.last().unwrap();
    assert_eq!(last["input"], "/card Old Tom (npc)");
    assert!(last["narrative"]
        .as_str()
        .unwrap()
        .contains("Fare's a copper, Wren Ashdown."));
    let lore = last["stateAfter"]["lore"].as_array().unwrap();
    assert!(lore.iter().any(|e| e["name"] == "Old Tom"));
    assert!(lore.iter().any(|e| e["name"] == "eel"));

    // A V1 JSON card as the player's character.
    let v1 = home.file(
        "me.json",
        br#"{"name": "Sal", "description": "A tinker.", "first_mes": "Hello."}"#,
    );
    home.ok(&[
        "cards",
        "import",
        &path(&v1),
        "--as",
        "player",
        "--session",
        &id,
        "--db",
        &db,
    ]);
    let story = state_of(&home, &id);
    let last = story["turns"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["stateAfter"]["player"]["name"], "Sal");

    // Checking alone saves nothing.
    let checked = home.ok(&["cards", "import", &path(&png)]);
    assert!(checked
        .stdout
        .contains("Old Tom (chara_card_v2): 1 lore entry"));
}

#[test]
fn broken_cards_are_refused_with_the_problem_named() {
    let home = Home::new();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "a.gif",
            b"GIF89a\x01\x00".to_vec(),
            "neither a PNG image nor JSON",
        ),
        (
            "b.png",
            png_with(&[("Comment", "just a picture".into())]),
            "no `chara` text chunk",
        ),
        (
            "c.png",
            png_with(&[("chara", "%%% not base64 %%%".into())]),
            "not valid base64",
        ),
        (
            "d.png",
            png_with(&[(
                "chara",
                b64(&json!({"spec": "chara_card_v2", "data": {"description": "x"}})),
            )]),
            "no character name (`data.name`)",
        ),
        (
            "e.json",
            br#"{"description": "nameless"}"#.to_vec(),
            "no character name (`name`)",
        ),
        ("f.json", b"{ broken".to_vec(), "not valid JSON"),
        (
            "g.png",
            b"\x89PNG\r\n\x1a\nrest-is-garbage".to_vec(),
            "PNG image cannot be read",
        ),
    ];
    for (name, bytes, words) in cases {
        let file = home.file(name, &bytes);
        home.refused(&["cards", "import", &path(&file)], "card_invalid", words);
    }
    let big = home.file("big.json", &vec![b' '; 5 * 1024 * 1024 + 1]);
    home.refused(&["cards", "import", &path(&big)], "card_invalid", "5 MiB");
    home.refused(
        &["cards", "import", "/no/such/card.png"],
        "io",
        "/no/such/card.png",
    );
    let good = home.file("ok.json", br#"{"name": "X", "description": "Someone."}"#);
    home.refused(
        &[
            "cards",
            "import",
            &path(&good),
            "--session",
            "no-such-story",
            "--db",
            &path(&home.db()),
        ],
        "session_not_found",
        "no-such-story",
    );
}

#[test]
fn lorebooks_join_a_story_or_a_scenario_and_broken_ones_are_refused() {
    let home = Home::new();
    let db = path(&home.db());
    let id = home.new_story();
    let book = home.file(
        "world.json",
        json!({"entries": {
            "0": {"uid": 0, "key": ["eel"], "keysecondary": [], "comment": "Eels", "content": "Eels swarm in spring.",
                  "constant": false, "selective": true, "order": 100, "disable": false},
            "1": {"uid": 1, "key": [], "content": "", "constant": false}
        }})
        .to_string()
        .as_bytes(),
    );
    let added = home
        .ok(&[
            "lore",
            "import",
            &path(&book),
            "--session",
            &id,
            "--db",
            &db,
            "--json",
        ])
        .json();
    assert_eq!(added["entries"].as_array().unwrap().len(), 1);
    assert_eq!(added["skipped"].as_array().unwrap().len(), 1);
    let story = state_of(&home, &id);
    let last = story["turns"].as_array().unwrap().last().unwrap().clone();
    assert!(last["stateAfter"]["lore"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["name"] == "Eels"));

    let saved = home
        .ok(&[
            "lore",
            "import",
            &path(&book),
            "--scenario",
            "ashford",
            "--json",
        ])
        .json();
    let file = PathBuf::from(saved["scenarioFile"].as_str().unwrap());
    assert!(file.starts_with(home.dir.path().join("scenarios")));
    let scenario: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert!(scenario["lore"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["name"] == "Eels"));

    let cases: [(&str, &[u8], &str); 4] = [
        ("x.json", b"not json", "not JSON"),
        ("y.json", b"{\"name\": \"no entries\"}", "no `entries`"),
        (
            "z.json",
            br#"{"entries": {"0": {"key": "x", "content": 5}}}"#,
            "entries[0].content must be text",
        ),
        ("w.json", br#"{"entries": {}}"#, "has no entries"),
    ];
    for (name, bytes, words) in cases {
        let f = home.file(name, bytes);
        home.refused(&["lore", "import", &path(&f)], "lore_invalid", words);
    }
    home.refused(
        &["lore", "import", &path(&book), "--scenario", "atlantis"],
        "scenario_not_found",
        "atlantis",
    );
}

#[test]
fn new_scenarios_from_a_starter_or_a_card_can_start_stories() {
    let home = Home::new();
    let made = home.ok(&["scenarios", "new", "my-tale", "--json"]).json();
    assert!(Path::new(made["path"].as_str().unwrap()).is_file());
    home.refused(
        &["scenarios", "new", "my-tale"],
        "scenario_invalid",
        "already exists",
    );
    home.refused(
        &["scenarios", "new", "Bad Name"],
        "scenario_invalid",
        "must be lower-case",
    );
    let png = home.file("tom.png", &png_with(&[("chara", b64(&card_v2()))]));
    home.ok(&["scenarios", "new", "ferry", "--from", &path(&png)]);
    let list = home.ok(&["scenarios", "list", "--json"]).json();
    let ferry = list["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "ferry")
        .cloned()
        .unwrap();
    assert_eq!(ferry["title"], "Old Tom");
    assert_eq!(ferry["builtin"], false);
    let db = path(&home.db());
    let story = home
        .ok(&[
            "sessions",
            "new",
            "--scenario",
            "ferry",
            "--session",
            &db,
            "--json",
        ])
        .json();
    assert!(story["state"]["scenario"]["opening"]
        .as_str()
        .unwrap()
        .contains("Fare's a copper, Traveller."));
    let broken = home.file(
        "broken.json",
        br#"{"title": "x", "premise": "y", "player": {}}"#,
    );
    home.refused(
        &["scenarios", "new", "oops", "--from", &path(&broken)],
        "scenario_invalid",
        "player",
    );
}

/// A 1×1 PNG with one zTXt chunk (compressed by the encoder).
fn png_with_ztxt(keyword: &str, text: String) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, 1, 1);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        enc.add_ztxt_chunk(keyword.into(), text).unwrap();
        let mut w = enc.write_header().unwrap();
        w.write_image_data(&[30, 60, 90]).unwrap();
        w.finish().unwrap();
    }
    out
}

#[test]
fn cards_past_their_limits_are_refused_naming_the_field_and_the_limit() {
    let home = Home::new();
    let mut long_greeting = card_v2();
    long_greeting["data"]["first_mes"] = json!("a".repeat(8_001));
    let mut long_player = card_v2();
    long_player["data"]["description"] = json!("d".repeat(8_001));
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "greeting.json",
            long_greeting.to_string().into_bytes(),
            "`data.first_mes` holds 8001 characters; at most 8000 are allowed",
        ),
        (
            "player.json",
            long_player.to_string().into_bytes(),
            "`data.description` holds 8001 characters; at most 8000 are allowed",
        ),
        // 16 MiB of `A` compressed into a small chunk.
        (
            "bomb.png",
            png_with_ztxt("chara", "A".repeat(16 << 20)),
            "`chara` chunk inflates to more than 8388608 bytes",
        ),
    ];
    for (name, bytes, words) in cases {
        let file = home.file(name, &bytes);
        home.refused(&["cards", "import", &path(&file)], "card_invalid", words);
        home.refused(
            &["cards", "import", &path(&file), "--as", "player"],
            "card_invalid",
            words,
        );
    }
    let keys: Vec<String> = (0..10).map(|j| format!("{j}{}", "k".repeat(150))).collect();
    let entries: Vec<Value> = (0..990)
        .map(|i| json!({"key": keys, "content": format!("Entry {i}.")}))
        .collect();
    let book = home.file(
        "keys.json",
        json!({ "entries": entries }).to_string().as_bytes(),
    );
    home.refused(
        &["lore", "import", &path(&book)],
        "lore_invalid",
        "at most 131072 are allowed",
    );
}

#[test]
fn a_card_in_a_ztxt_chunk_or_after_a_byte_order_mark_imports() {
    let home = Home::new();
    let png = home.file("tom.png", &png_with_ztxt("chara", b64(&card_v2())));
    assert!(home
        .ok(&["cards", "import", &path(&png)])
        .stdout
        .contains("Old Tom (chara_card_v2)"));
    let mut bom = "\u{feff}".as_bytes().to_vec();
    bom.extend_from_slice(card_v2().to_string().as_bytes());
    let json = home.file("tom.json", &bom);
    assert!(home
        .ok(&["cards", "import", &path(&json)])
        .stdout
        .contains("Old Tom (chara_card_v2)"));
}

#[test]
fn a_scenario_missing_a_required_field_is_told_which() {
    let home = Home::new();
    let no_premise = home.file(
        "no-premise.json",
        br#"{"title": "The Mill", "player": {"name": "Ada"}}"#,
    );
    home.refused(
        &["scenarios", "new", "mill", "--from", &path(&no_premise)],
        "scenario_invalid",
        "missing field `premise`",
    );
    let no_player = home.file(
        "no-player.json",
        br#"{"title": "The Mill", "premise": "Something grinds at night."}"#,
    );
    home.refused(
        &["scenarios", "new", "mill", "--from", &path(&no_player)],
        "scenario_invalid",
        "missing field `player`",
    );
}

#[cfg(unix)]
#[test]
fn scenarios_list_passes_over_a_fifo_with_a_reason() {
    let home = Home::new();
    let dir = home.dir.path().join("scenarios");
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("waiting.json");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success(), "mkfifo makes a FIFO");
    let mut child = Command::new(env!("CARGO_BIN_EXE_narratoria"))
        .args(["scenarios", "list", "--json"])
        .env("NARRATORIA_HOME", home.dir.path())
        .env_remove("XDG_DATA_HOME")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("`scenarios list` waited on a FIFO");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    let unreadable = list["unreadable"].as_array().unwrap();
    assert_eq!(unreadable.len(), 1, "{list}");
    assert!(unreadable[0]["problem"]
        .as_str()
        .unwrap()
        .contains("not a regular file (a FIFO)"));
}
