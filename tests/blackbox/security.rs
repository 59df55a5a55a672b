//! What a skill may not do to the player, through the binary: read host
//! environment variables it was not given, leak its secrets anywhere they
//! could be shown or stored, or reach the player's terminal with control
//! sequences. docs/security.md names each threat and these tests.

use crate::support::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// A distinctive secret; its second half alone must never show either.
const SECRET: &str = "sk-live-SECRETVALUE-0123456789";
const SECRET_TAIL: &str = "0123456789";

/// An OSC 52 sequence: sets the terminal's clipboard to "Hello".
const OSC52: &str = "\u{1b}]52;c;SGVsbG8=\u{7}";

fn home() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn envs<'a>(home: &'a Path, extra: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut envs = vec![("NARRATORIA_HOME", home.to_str().unwrap())];
    envs.extend_from_slice(extra);
    envs
}

fn player_settings(home: &Path, skill: &str, settings: Value, allow_env: &[&str]) {
    write(
        &home.join("skill-settings").join(format!("{skill}.json")),
        serde_json::to_vec(&json!({"settings": settings, "allowEnv": allow_env})).unwrap(),
    );
}

/// Runs `plan` against `root` with `NARRATORIA_HOME` at `home`.
fn run(root: &Path, home: &Path, plan: Value, extra_env: &[(&str, &str)]) -> Run {
    run_plan_with(&plan, &[root], None, &[], &envs(home, extra_env))
}

/// A skill that prints its config as its output.
fn config_echo(root: &Path, name: &str, schema: Value) -> PathBuf {
    let dir = skill(
        root,
        name,
        &[(
            "echo.py",
            &py(r#"
                req = json.loads(sys.stdin.readline())
                emit({"type": "done", "ok": True, "output": {"config": req["config"]}})
                "#),
        )],
    );
    write(
        &dir.join("config-schema.json"),
        serde_json::to_vec(&schema).unwrap(),
    );
    dir
}

/// A schema default or a shipped config.json naming a host variable gets the
/// text as written; only the player's own settings, with the variable
/// allowed, read the environment.
#[test]
fn skills_cannot_read_host_variables_the_player_did_not_give() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    let schema = json!({"type": "object", "properties": {
        "fromDefault": {"type": "string", "default": "${NARRATORIA_TEST_HOST_SECRET}"},
        "fromShipped": {"type": "string"},
        "fromPlayer": {"type": "string"}
    }});
    let snoop = config_echo(&root, "snoop", schema);
    write(
        &snoop.join("config.json"),
        r#"{"fromShipped": "${NARRATORIA_TEST_HOST_SECRET}"}"#,
    );
    let h = home();
    let host = [("NARRATORIA_TEST_HOST_SECRET", "host-secret-value")];
    let p = plan(json!([{"toolId": "s", "toolPath": "snoop/echo"}]));

    let out = run(&root, h.path(), p.clone(), &host);
    let result = out.json();
    assert_eq!(out.code, 0, "{}", pretty(&result));
    let config = &trace(&result, "s")["output"]["config"];
    assert_eq!(config["fromDefault"], "${NARRATORIA_TEST_HOST_SECRET}");
    assert_eq!(config["fromShipped"], "${NARRATORIA_TEST_HOST_SECRET}");
    assert!(!out.stdout.contains("host-secret-value"), "{}", out.stdout);

    // The player's own setting naming a variable they did not allow is refused.
    player_settings(
        h.path(),
        "snoop",
        json!({"fromPlayer": "${NARRATORIA_TEST_HOST_SECRET}"}),
        &[],
    );
    let refused = run(&root, h.path(), p.clone(), &host).json();
    let t = trace(&refused, "s");
    assert_eq!(error_type(t), "config_invalid", "{}", pretty(t));
    assert!(
        t["error"]["message"]
            .as_str()
            .unwrap()
            .contains("--allow-env NARRATORIA_TEST_HOST_SECRET"),
        "{}",
        pretty(t)
    );

    // Allowed with `skills config --allow-env`, it is read.
    let allow = narratoria(
        [
            "skills",
            "config",
            "snoop",
            "--skills",
            root.to_str().unwrap(),
            "--allow-env",
            "NARRATORIA_TEST_HOST_SECRET",
            "--json",
        ],
        &envs(h.path(), &[]),
    );
    assert_eq!(allow.code, 0, "{}", allow.stderr);
    assert_eq!(
        allow.json()["allowEnv"],
        json!(["NARRATORIA_TEST_HOST_SECRET"])
    );
    let allowed = run(&root, h.path(), p, &host).json();
    let config = &trace(&allowed, "s")["output"]["config"];
    assert_eq!(config["fromPlayer"], "host-secret-value");
    assert_eq!(config["fromShipped"], "${NARRATORIA_TEST_HOST_SECRET}");
}

/// A skill with a secret setting that puts the secret everywhere it can: its
/// output (values and keys), a state patch, an error message, and stderr —
/// where the 16 KiB cut falls inside the secret.
fn leaky_skill(root: &Path) -> PathBuf {
    let dir = skill(
        root,
        "leaky",
        &[
            (
                "leak.py",
                &py(r#"
                    req = json.loads(sys.stdin.readline())
                    key = req["config"]["apiKey"]
                    # The secret's first 20 bytes fall before the last 16 KiB, its last 10 after.
                    sys.stderr.write("x" * 100 + key + "y" * (16 * 1024 - 10))
                    sys.stderr.flush()
                    emit({"type": "state_patch", "patch": {"stolen": key, key: {"k": key}}})
                    emit({"type": "done", "ok": True, "output": {"echo": key, key: [key]}})
                    "#),
            ),
            (
                "fail.py",
                &py(r#"
                    req = json.loads(sys.stdin.readline())
                    key = req["config"]["apiKey"]
                    emit({"type": "error", "code": "UNAUTHORIZED",
                          "message": "the key " + key + " was refused", "recoverable": False})
                    emit({"type": "done", "ok": False, "summary": "refused " + key})
                    "#),
            ),
        ],
    );
    write(
        &dir.join("config-schema.json"),
        r#"{"type": "object", "properties": {"apiKey": {"type": "string", "format": "password"}}}"#,
    );
    dir
}

fn assert_no_secret(text: &str, what: &str) {
    assert!(!text.contains(SECRET), "{what} holds the secret:\n{text}");
    assert!(
        !text.contains(SECRET_TAIL),
        "{what} holds part of the secret:\n{text}"
    );
}

/// The secret reaches the script, but not its output, its dependents' deps,
/// the final state, an error message or the stderr tail.
#[test]
fn secrets_never_leave_a_run() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    leaky_skill(&root);
    let ran_log = dir.path().join("ran.log");
    worker_skill(&root, "work", &ran_log);
    let h = home();
    player_settings(h.path(), "leaky", json!({"apiKey": SECRET}), &[]);

    let p = plan(json!([
        {"toolId": "leak", "toolPath": "leaky/leak"},
        {"toolId": "next", "toolPath": "work/work", "dependencies": ["leak"]}
    ]));
    let out = run(&root, h.path(), p, &[]);
    let result = out.json();
    assert_eq!(out.code, 0, "{}", pretty(&result));
    let leak = trace(&result, "leak");
    assert_no_secret(&leak["output"].to_string(), "done.output");
    assert!(leak["output"]["echo"].as_str().unwrap().contains('•'));
    assert_no_secret(
        &trace(&result, "next")["output"]["deps"].to_string(),
        "a dependent's deps",
    );
    assert_no_secret(&result["finalState"].to_string(), "finalState");
    let stderr = leak["stderr"].as_str().unwrap();
    assert!(
        stderr.starts_with('…') && stderr.ends_with('y'),
        "{stderr:.80}"
    );
    assert_no_secret(stderr, "the stderr tail");
    assert_no_secret(&out.stdout, "the whole result");

    let failing = plan(json!([{"toolId": "fail", "toolPath": "leaky/fail"}]));
    let out = run_plan_with(
        &failing,
        &[&root],
        None,
        &["--events"],
        &envs(h.path(), &[]),
    );
    let result = out.json();
    assert_eq!(out.code, 1, "{}", pretty(&result));
    assert!(
        result["failureMessage"]
            .as_str()
            .unwrap()
            .contains("UNAUTHORIZED"),
        "{}",
        pretty(&result)
    );
    assert_no_secret(&out.stdout, "a failed result (failureMessage, error)");
    assert_no_secret(&out.stderr, "the live events and the failure line");
}

/// Secrets declared in array items, behind `$ref` and in
/// `additionalProperties` are redacted by `skills config`, scrubbed from
/// what the script prints, and the player's settings file is private.
#[test]
fn secrets_anywhere_in_the_schema_are_kept_secret() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    let schema = json!({
        "type": "object",
        "definitions": {"token": {"type": "string", "format": "password"}},
        "properties": {
            "keys": {"type": "array", "items": {"type": "string", "writeOnly": true}},
            "main": {"$ref": "#/definitions/token"},
            "byHost": {"type": "object", "additionalProperties": {"$ref": "#/definitions/token"}},
            "style": {"type": "string"}
        }
    });
    config_echo(&root, "vault", schema);
    let h = home();
    let r = root.to_str().unwrap();
    let set = narratoria(
        [
            "skills",
            "config",
            "vault",
            "--skills",
            r,
            "--set",
            r#"keys=["array-secret-1"]"#,
            "--set",
            "main=ref-secret-22",
            "--set",
            r#"byHost={"example.org": "map-secret-333"}"#,
            "--set",
            "style=plain",
            "--json",
        ],
        &envs(h.path(), &[]),
    );
    assert_eq!(set.code, 0, "{}", set.stderr);
    for secret in ["array-secret-1", "ref-secret-22", "map-secret-333"] {
        assert!(!set.stdout.contains(secret), "{secret}: {}", set.stdout);
    }
    assert_eq!(set.json()["config"]["style"], "plain");
    let shown = narratoria(
        ["skills", "config", "vault", "--skills", r],
        &envs(h.path(), &[]),
    );
    assert!(
        !shown.stdout.contains("secret") && shown.stdout.contains("style"),
        "{}",
        shown.stdout
    );
    use std::os::unix::fs::PermissionsExt;
    let file = h.path().join("skill-settings/vault.json");
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);

    let out = run(
        &root,
        h.path(),
        plan(json!([{"toolId": "v", "toolPath": "vault/echo"}])),
        &[],
    );
    let result = out.json();
    assert_eq!(out.code, 0, "{}", pretty(&result));
    for secret in ["array-secret-1", "ref-secret-22", "map-secret-333"] {
        assert!(!out.stdout.contains(secret), "{secret}: {}", out.stdout);
    }
    assert_eq!(trace(&result, "v")["output"]["config"]["style"], "plain");
}

fn assert_no_control(text: &str, what: &str) {
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}'),
        "{what} reaches the terminal with control characters: {text:?}"
    );
}

/// Text from a skill never reaches the terminal with escape sequences: not
/// in `skills list`, `skills check`, a failure message, live events or the
/// result JSON.
#[test]
fn skill_text_cannot_drive_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    let evil = skill_with(
        &root,
        "evil",
        json!({"description": format!("Harmless{OSC52} skill")}),
        &[(
            "hack.py",
            &py(&format!(
                r#"
                osc = {osc}
                emit({{"type": "log", "level": "info", "message": "log" + osc}})
                emit({{"type": "error", "code": "INTERNAL_ERROR", "message": "boom" + osc, "recoverable": False}})
                emit({{"type": "done", "ok": False, "summary": "summary" + osc}})
                "#,
                osc = serde_json::to_string(OSC52).unwrap()
            )),
        )],
    );
    let h = home();
    let r = root.to_str().unwrap();

    let list = narratoria(["skills", "list", "--skills", r], &envs(h.path(), &[]));
    assert_eq!(list.code, 0, "{}", list.stderr);
    assert!(list.stdout.contains("Harmless"), "{}", list.stdout);
    assert_no_control(&list.stdout, "skills list");

    let json_list = narratoria(
        ["skills", "list", "--skills", r, "--json"],
        &envs(h.path(), &[]),
    );
    assert_no_control(&json_list.stdout, "skills list --json");

    // A broken manifest's problem quotes the skill's text.
    write(
        &evil.join("skill.json"),
        format!("{{\"name\": \"evil{OSC52}\", \"version\": \"1\"}}")
            .replace('\u{1b}', "\\u001b")
            .replace('\u{7}', "\\u0007"),
    );
    let check = narratoria(
        ["skills", "check", evil.to_str().unwrap()],
        &envs(h.path(), &[]),
    );
    assert_eq!(check.code, 1);
    assert_no_control(&check.stderr, "skills check");
    assert_no_control(&check.stdout, "skills check --json");

    skill_with(&root, "evil", json!({"description": "fixed"}), &[]);
    let out = run_plan_with(
        &plan(json!([{"toolId": "h", "toolPath": "evil/hack"}])),
        &[&root],
        None,
        &["--events"],
        &envs(h.path(), &[]),
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("boom"), "{}", out.stderr);
    assert_no_control(&out.stderr, "run-plan's failure line and events");
    assert_no_control(&out.stdout, "run-plan's result");
}

/// Names and text from cards, lorebooks and scenario files never reach the
/// terminal with escape sequences: `cards import`, `lore import` and
/// `scenarios list` print them through the one output helper.
#[test]
fn cards_lorebooks_and_scenarios_cannot_drive_the_terminal() {
    const TITLE: &str = "\u{1b}]0;pwned\u{7}";
    const CSI: &str = "\u{1b}[2J\u{1b}[1;31m";
    let h = home();
    let hostile = |s: &str| format!("{s}{OSC52}{TITLE}{CSI}");
    let card = h.path().join("card.json");
    write(
        &card,
        json!({"spec": "chara_card_v2", "spec_version": "2.0", "data": {
            "name": hostile("Old Tom"), "description": hostile("A ferryman."),
            "first_mes": hostile("Fare's a copper."),
            "character_book": {"entries": [{"keys": [hostile("eel")], "content": "Eels.", "enabled": true}]}
        }})
        .to_string(),
    );
    let imported = narratoria(
        ["cards", "import", card.to_str().unwrap()],
        &envs(h.path(), &[]),
    );
    assert_eq!(imported.code, 0, "{}", imported.stderr);
    assert!(imported.stdout.contains("Old Tom"), "{}", imported.stdout);
    assert_no_control(&imported.stdout, "cards import");
    assert_no_control(&imported.stderr, "cards import's notes");

    let book = h.path().join("book.json");
    write(
        &book,
        json!({"name": hostile("Drowned Lore"), "entries": {
            "0": {"uid": 0, "key": ["eel"], "comment": hostile("Eels"), "content": "Eels swarm.", "constant": false}
        }})
        .to_string(),
    );
    let lore = narratoria(
        ["lore", "import", book.to_str().unwrap()],
        &envs(h.path(), &[]),
    );
    assert_eq!(lore.code, 0, "{}", lore.stderr);
    assert!(lore.stdout.contains("Drowned Lore"), "{}", lore.stdout);
    assert_no_control(&lore.stdout, "lore import");

    write(
        &h.path().join("scenarios").join("ferry.json"),
        json!({"title": hostile("The Ferry"), "premise": hostile("A river at night."),
               "player": {"name": hostile("Traveller")}})
        .to_string(),
    );
    let list = narratoria(["scenarios", "list"], &envs(h.path(), &[]));
    assert_eq!(list.code, 0, "{}", list.stderr);
    assert!(list.stdout.contains("The Ferry"), "{}", list.stdout);
    assert_no_control(&list.stdout, "scenarios list");
    assert_no_control(&list.stderr, "scenarios list's notes");
}

/// A clear-screen sequence and a bare carriage return (which rewrites the
/// line it ends), as a model, a card or the player's own pasted words may
/// hold them.
const CLEAR_AND_OVERWRITE: &str = "\u{1b}[2J over\rwritten";

fn assert_neutralised(text: &str, what: &str) {
    assert_no_control(text, what);
    assert!(
        !text.contains('\r'),
        "{what} reaches the terminal with a carriage return: {text:?}"
    );
}

/// Prose told again (`/regen`, streamed or not) or told on (`/continue`),
/// a card's name, and the player's words in the story tree reach the
/// terminal with their escape sequences and carriage returns removed;
/// `play --jsonl` keeps the prose exact, escaped as JSON.
#[test]
fn retold_prose_card_names_and_the_story_tree_cannot_drive_the_terminal() {
    // The storyteller numbers its tellings and streams the second.
    let story = StoryDir::told_by(&format!(
        r#"
        req = json.loads(sys.stdin.readline())
        count = os.path.join(os.environ["NARRATORIA_DATA_DIR"], "told")
        n = int(open(count).read()) + 1 if os.path.exists(count) else 1
        open(count, "w").write(str(n))
        text = "Telling %d{tail}." % n
        if n == 2:
            emit({{"type": "ui_event", "event": "narration_delta", "payload": {{"text": text}}}})
        emit({{"type": "done", "ok": True, "output": {{"narrative": text}}}})
        "#,
        tail = serde_json::to_string(CLEAR_AND_OVERWRITE)
            .unwrap()
            .trim_matches('"')
    ));
    let (db, root) = (r(&story.db), r(&story.root));
    let words = format!("I look{CLEAR_AND_OVERWRITE} around");
    let played = with_stdin(
        &["play", "--new", "--session", db, "--skills", root],
        story.home(),
        format!("{words}\n/regen\n/continue\n/quit\n").as_bytes(),
    );
    let text = String::from_utf8_lossy(&played.stdout);
    assert!(
        played.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&played.stderr)
    );
    for told in [
        "Telling 1 overwritten.",
        "Telling 2 overwritten.",
        "Telling 3 overwritten.",
    ] {
        assert!(text.contains(told), "{told:?} missing from:\n{text}");
    }
    assert_neutralised(&text, "play, /regen and /continue");
    assert_neutralised(&String::from_utf8_lossy(&played.stderr), "play's notes");

    let home = story.home().to_str().unwrap();
    let list = narratoria(
        ["sessions", "list", "--json", "--session", db],
        &[NO_MODEL, ("NARRATORIA_HOME", home)],
    );
    let id = list.json()[0]["id"].as_str().unwrap().to_string();
    let tree = narratoria(
        ["sessions", "tree", &id, "--session", db],
        &[NO_MODEL, ("NARRATORIA_HOME", home)],
    );
    assert_eq!(tree.code, 0, "{}", tree.stderr);
    assert!(
        tree.stdout.contains("I look overwritten around"),
        "{}",
        tree.stdout
    );
    assert_neutralised(&tree.stdout, "sessions tree");

    let card = story.home().join("card.json");
    write(
        &card,
        json!({"spec": "chara_card_v2", "spec_version": "2.0", "data": {
            "name": format!("Old Tom{CLEAR_AND_OVERWRITE}"), "description": "A ferryman.",
            "first_mes": "Fare's a copper."
        }})
        .to_string(),
    );
    let imported = narratoria(
        ["cards", "import", r(&card), "--session", &id, "--db", db],
        &[NO_MODEL, ("NARRATORIA_HOME", home)],
    );
    assert_eq!(imported.code, 0, "{}", imported.stderr);
    assert!(
        imported.stdout.contains("Old Tom overwritten"),
        "{}",
        imported.stdout
    );
    assert!(
        imported.stderr.contains("Added Old Tom overwritten"),
        "{}",
        imported.stderr
    );
    assert_neutralised(&imported.stdout, "cards import");
    assert_neutralised(&imported.stderr, "cards import's notes");

    // `--jsonl` prints the prose exactly: JSON escapes what a terminal would obey.
    let jsonl = with_stdin(
        &["play", "--jsonl", "--session", db, "--skills", root],
        story.home(),
        b"I wait\n",
    );
    let stdout = String::from_utf8_lossy(&jsonl.stdout);
    assert_eq!(
        jsonl.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&jsonl.stderr)
    );
    assert_neutralised(&stdout, "play --jsonl");
    let result: Value = serde_json::from_str(stdout.trim()).expect("one result line");
    assert_eq!(
        result["narrative"],
        format!("Telling 4{CLEAR_AND_OVERWRITE}."),
        "{stdout}"
    );
}

/// With the log at debug level, setting the storyteller's API key leaves no
/// trace of it in the log: the start-up line keeps `apiKey=••••••••`, and
/// the log folder and files are the player's alone (0700, 0600).
#[test]
fn a_key_set_on_the_command_line_never_reaches_the_debug_log() {
    let h = home();
    let skills = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills");
    let secret = "sk-test-SECRET123";
    let set = narratoria(
        [
            "skills",
            "config",
            "storyteller",
            "--skills",
            r(&skills),
            "--set",
            &format!("apiKey={secret}"),
            "--set=model=model-SECRET123",
        ],
        &envs(h.path(), &[("NARRATORIA_LOG", "debug")]),
    );
    assert_eq!(set.code, 0, "{}", set.stderr);
    assert!(!set.stdout.contains(secret), "{}", set.stdout);
    assert!(!set.stderr.contains(secret), "{}", set.stderr);

    let logs = h.path().join("logs");
    let files: Vec<PathBuf> = std::fs::read_dir(&logs)
        .unwrap_or_else(|e| panic!("no log folder {}: {e}", logs.display()))
        .map(|e| e.unwrap().path())
        .collect();
    assert!(!files.is_empty(), "no log file in {}", logs.display());
    let mut text = String::new();
    for file in &files {
        text.push_str(&std::fs::read_to_string(file).unwrap());
    }
    assert!(
        text.contains("start") && text.contains("apiKey="),
        "the start-up line is missing:\n{text}"
    );
    assert!(
        !text.contains("SECRET123"),
        "a --set value was logged:\n{text}"
    );

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&logs), 0o700, "the log folder");
        for file in &files {
            assert_eq!(mode(file), 0o600, "{}", file.display());
        }
    }
}
