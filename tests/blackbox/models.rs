//! `narratoria models …` and `narratoria logs path`: the model manager and
//! the log folder, each in its own NARRATORIA_HOME.

use std::path::Path;

use narratoria_models::fixture::{sha256_hex, tiny_gguf};
use serde_json::Value;

use crate::support::narratoria;

/// Runs narratoria with `home` as NARRATORIA_HOME and no model forced.
fn run(home: &Path, args: &[&str]) -> crate::support::Run {
    narratoria(
        args,
        &[
            ("NARRATORIA_HOME", home.to_str().unwrap()),
            ("NARRATORIA_MODEL", ""),
            ("NARRATORIA_LOG", ""),
        ],
    )
}

fn installed<'a>(list: &'a Value, name: &str) -> Option<&'a Value> {
    list["installed"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == name)
}

#[test]
fn add_list_use_and_remove_a_model() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let file = dir.path().join("tiny.gguf");
    std::fs::write(&file, tiny_gguf(true)).unwrap();

    let added = run(&home, &["models", "add", file.to_str().unwrap()]);
    assert_eq!(added.code, 0, "{}", added.stderr);
    assert!(home.join("models/tiny.gguf").is_file());

    let used = run(&home, &["models", "use", "tiny"]);
    assert_eq!(used.code, 0, "{}", used.stderr);
    let settings = std::fs::read_to_string(home.join("settings.json")).unwrap();
    assert!(settings.contains("\"tiny\""), "{settings}");

    let list = run(&home, &["models", "list", "--json"]);
    assert_eq!(list.code, 0, "{}", list.stderr);
    let list = list.json();
    let tiny = installed(&list, "tiny").expect("tiny is listed");
    assert_eq!(tiny["quantization"], "Q4_1");
    assert_eq!(tiny["contextLength"], 2048);
    assert_eq!(tiny["chatTemplate"], true);
    assert_eq!(tiny["inUse"], true);
    assert_eq!(tiny["readOnly"], false);
    let catalog: Vec<&str> = list["available"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert!(
        catalog.contains(&"all-minilm-l6-v2") || installed(&list, "all-minilm-l6-v2").is_some()
    );

    assert_eq!(tiny["roles"], serde_json::json!(["writer"]));

    let text = run(&home, &["models", "list"]);
    let line = text
        .stdout
        .lines()
        .find(|l| l.contains("tiny"))
        .unwrap_or_else(|| panic!("{}", text.stdout));
    assert!(
        line.starts_with('*') && line.contains("writes"),
        "{}",
        text.stdout
    );

    let removed = run(&home, &["models", "remove", "tiny"]);
    assert_eq!(removed.code, 0, "{}", removed.stderr);
    assert!(!home.join("models/tiny.gguf").exists());
    let settings = std::fs::read_to_string(home.join("settings.json")).unwrap();
    assert!(
        !settings.contains("tiny"),
        "the choice goes with the model: {settings}"
    );
}

/// Each model shows its parameters and writer's profile; `--role` gives
/// it the planner's part, the writer's or both, and `default` takes one back.
#[test]
fn models_show_their_profile_and_take_a_role() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    for name in ["tiny.gguf", "small.gguf"] {
        let file = dir.path().join(name);
        std::fs::write(&file, tiny_gguf(true)).unwrap();
        assert_eq!(
            run(&home, &["models", "add", file.to_str().unwrap()]).code,
            0
        );
    }
    let listed = |name: &str| {
        let list = run(&home, &["models", "list", "--json"]);
        assert_eq!(list.code, 0, "{}", list.stderr);
        installed(&list.json(), name).cloned().expect("listed")
    };
    let roles = |name: &str| listed(name)["roles"].clone();

    let tiny = listed("tiny");
    assert_eq!(tiny["parameters"], 8, "its one tensor of 8 values");
    assert_eq!(tiny["roles"], serde_json::json!([]));
    assert_eq!(tiny["inUse"], false);
    // No KV layout in its header: its trained context within the 8,192 bound.
    assert_eq!(tiny["writerContext"], 2048);
    let profile = tiny["profile"].as_str().unwrap();
    assert!(
        profile.starts_with("small writer: up to 2 sentences"),
        "{profile}"
    );

    // The planner alone chosen: it writes too.
    let used = run(&home, &["models", "use", "tiny", "--role", "planner"]);
    assert_eq!(used.code, 0, "{}", used.stderr);
    assert!(
        used.stdout.contains("plan the mechanics"),
        "{}",
        used.stdout
    );
    assert_eq!(roles("tiny"), serde_json::json!(["planner", "writer"]));

    // A writer chosen (the default role): each does its part.
    let used = run(&home, &["models", "use", "small"]);
    assert_eq!(used.code, 0, "{}", used.stderr);
    assert!(used.stdout.contains("write the prose"), "{}", used.stdout);
    assert_eq!(roles("tiny"), serde_json::json!(["planner"]));
    assert_eq!(roles("small"), serde_json::json!(["writer"]));
    let text = run(&home, &["models", "list"]);
    let line = |name: &str| {
        text.stdout
            .lines()
            .find(|l| l.contains(&format!(" {name} ")))
            .unwrap_or_else(|| panic!("{}", text.stdout))
            .to_string()
    };
    assert!(line("tiny").contains("plans") && !line("tiny").contains("writes"));
    assert!(line("small").contains("writes"));

    // Both, with the writer's context bound.
    let used = run(
        &home,
        &[
            "models",
            "use",
            "tiny",
            "--role",
            "both",
            "--writer-context",
            "1024",
        ],
    );
    assert_eq!(used.code, 0, "{}", used.stderr);
    let tiny = listed("tiny");
    assert_eq!(tiny["roles"], serde_json::json!(["planner", "writer"]));
    assert_eq!(tiny["writerContext"], 1024, "the player's bound");
    assert_eq!(roles("small"), serde_json::json!([]));
    let settings: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(home.join("settings.json")).unwrap())
            .unwrap();
    assert_eq!(
        settings,
        serde_json::json!({"model": "tiny", "planner": "tiny", "writerContext": 1024})
    );

    let text = run(&home, &["models", "list"]);
    assert!(
        text.stdout.contains("PARAMS") && text.stdout.contains("ROLE"),
        "{}",
        text.stdout
    );
    let line = text.stdout.lines().find(|l| l.contains("tiny")).unwrap();
    assert!(line.contains("plans+writes"), "{line}");
    assert!(
        text.stdout.contains("small writer: up to 2 sentences"),
        "{}",
        text.stdout
    );

    let back = run(&home, &["models", "use", "default", "--role", "planner"]);
    assert_eq!(back.code, 0, "{}", back.stderr);
    assert_eq!(roles("tiny"), serde_json::json!(["writer"]));
    let both = run(&home, &["models", "use", "default", "--role", "both"]);
    assert_eq!(both.code, 0, "{}", both.stderr);
    assert_eq!(roles("tiny"), serde_json::json!([]));

    let bad = run(&home, &["models", "use", "tiny", "--role", "narrator"]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
}

/// `--writer` reaches the model load of `play` and `turn`: a writer that
/// is not there is refused by name, before any turn is played.
#[test]
fn a_writer_given_for_the_run_is_loaded_or_refused() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let missing = dir.path().join("no-such-writer.gguf");
    let env = [
        crate::support::NO_MODEL,
        ("NARRATORIA_HOME", home.to_str().unwrap()),
        ("NARRATORIA_LOG", ""),
    ];
    for args in [
        vec!["play", "--jsonl", "--writer", missing.to_str().unwrap()],
        vec![
            "turn",
            "I look around",
            "--writer",
            missing.to_str().unwrap(),
        ],
    ] {
        let run = narratoria(&args, &env);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(
            run.stderr.contains("writer model file") && run.stderr.contains("no-such-writer.gguf"),
            "{args:?}: {}",
            run.stderr
        );
        assert!(run.stdout.trim().is_empty(), "{}", run.stdout);
    }
    // Without it the same run plays with the rule-based planner and no writer.
    let run = narratoria(["turn", "I look around", "--json"], &env);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

#[test]
fn files_the_narrator_cannot_use_are_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let base = dir.path().join("base.gguf");
    std::fs::write(&base, tiny_gguf(false)).unwrap();
    let run_add = run(&home, &["models", "add", base.to_str().unwrap()]);
    assert_eq!(run_add.code, 2, "{}", run_add.stderr);
    assert!(
        run_add.stderr.contains("chat template"),
        "{}",
        run_add.stderr
    );

    let junk = dir.path().join("junk.gguf");
    std::fs::write(&junk, "<html>this is a web page, not a model</html>").unwrap();
    let run_add = run(&home, &["models", "add", junk.to_str().unwrap()]);
    assert_eq!(run_add.code, 2, "{}", run_add.stderr);
    assert!(
        run_add.stderr.contains("not a GGUF model"),
        "{}",
        run_add.stderr
    );
    assert!(!home.join("models/junk.gguf").exists());

    let unknown = run(&home, &["models", "use", "no-such-model"]);
    assert_eq!(unknown.code, 2, "{}", unknown.stderr);
    assert!(
        unknown.stderr.contains("no model called"),
        "{}",
        unknown.stderr
    );
    let unknown = run(&home, &["models", "download", "no-such-model"]);
    assert_eq!(unknown.code, 2, "{}", unknown.stderr);
}

#[test]
fn logs_go_to_the_log_folder_and_the_level_is_checked() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let path = run(&home, &["logs", "path"]);
    assert_eq!(path.code, 0, "{}", path.stderr);
    assert_eq!(Path::new(path.stdout.trim()), home.join("logs"));

    let listed = run(&home, &["--log-level", "debug", "models", "list"]);
    assert_eq!(listed.code, 0, "{}", listed.stderr);
    let files: Vec<String> = std::fs::read_dir(home.join("logs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        files
            .iter()
            .any(|f| f.starts_with("narratoria.") && f.ends_with(".log")),
        "{files:?}"
    );

    let bad = run(&home, &["--log-level", "loud", "logs", "path"]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(bad.stderr.contains("loud"), "{}", bad.stderr);
}

/// A catalog file naming `url` as the download of a model called "remote".
fn catalog_naming(dir: &Path, url: &str, bytes: &[u8]) -> std::path::PathBuf {
    let sha = sha256_hex(bytes);
    let file = dir.join("catalog.json");
    let entry = serde_json::json!([{
        "name": "remote", "description": "a model from the local test server",
        "kind": "narrator", "license": "MIT", "url": url, "sha256": sha,
        "size": bytes.len(), "ram": 300_000_000u64, "notes": "ChatML",
        "unpack": {"type": "asIs", "file": "Remote.gguf"}
    }]);
    std::fs::write(&file, entry.to_string()).unwrap();
    file
}

#[test]
fn a_catalog_file_adds_a_model_that_downloads_resumes_and_is_chosen() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let model = tiny_gguf(true);
    let server = narratoria_models::test_server::serve(model.clone(), true, true);
    let catalog = catalog_naming(dir.path(), &server.url, &model);
    let with_catalog = |args: &[&str]| {
        narratoria(
            args,
            &[
                ("NARRATORIA_HOME", home.to_str().unwrap()),
                ("NARRATORIA_MODEL", ""),
                ("NARRATORIA_LOG", ""),
                ("NARRATORIA_MODEL_CATALOG", catalog.to_str().unwrap()),
            ],
        )
    };

    let list = with_catalog(&["models", "list", "--json"]).json();
    let remote = list["available"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "remote")
        .expect("the catalog file's model is listed");
    assert_eq!(remote["ram"], 300_000_000u64);
    assert_eq!(remote["notes"], "ChatML");

    // The server breaks its first answer half-way: the first attempt fails
    // and keeps what arrived, the second goes on from there.
    let first = with_catalog(&["models", "download", "remote"]);
    assert_eq!(first.code, 1, "{}", first.stderr);
    assert!(first.stderr.contains("download_failed"), "{}", first.stderr);
    let second = with_catalog(&["models", "download", "remote"]);
    assert_eq!(second.code, 0, "{}", second.stderr);
    assert_eq!(
        std::fs::read(home.join("models/Remote.gguf")).unwrap(),
        model
    );
    let seen = server.seen.lock().unwrap().clone();
    assert_eq!(seen, vec![None, Some(model.len() as u64 / 2)]);

    let used = with_catalog(&["models", "use", "remote"]);
    assert_eq!(used.code, 0, "{}", used.stderr);
    let list = with_catalog(&["models", "list", "--json"]).json();
    assert_eq!(installed(&list, "remote").unwrap()["inUse"], true);
}

#[test]
fn a_broken_catalog_file_is_named_and_the_built_in_catalog_still_listed() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let catalog = dir.path().join("catalog.json");
    std::fs::write(&catalog, r#"[{"name": "x", "url": "file:///etc/passwd"}]"#).unwrap();
    let list = narratoria(
        ["models", "list"],
        &[
            ("NARRATORIA_HOME", home.to_str().unwrap()),
            ("NARRATORIA_MODEL", ""),
            ("NARRATORIA_LOG", ""),
            ("NARRATORIA_MODEL_CATALOG", catalog.to_str().unwrap()),
        ],
    );
    assert_eq!(list.code, 0, "{}", list.stderr);
    assert!(list.stderr.contains("catalog.json"), "{}", list.stderr);
    assert!(list.stdout.contains("smollm2"), "{}", list.stdout);
}

/// `models add` with a Hugging Face link, against a local stand-in for the
/// Hub (HF_ENDPOINT): a repository with two models is listed and one picked,
/// checked against the Hub's checksum; a foreign link is refused.
#[test]
fn a_hugging_face_link_adds_the_model_picked_from_its_repository() {
    use narratoria_models::test_hub::{serve_hub, HubTestFile, Quirks};
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let mut bigger = tiny_gguf(true);
    bigger.extend_from_slice(&[0; 64]);
    let hub = serve_hub(
        "tester/Tiny-GGUF",
        vec![
            HubTestFile {
                path: "tiny-q4.gguf".into(),
                body: tiny_gguf(true),
            },
            HubTestFile {
                path: "tiny-q8.gguf".into(),
                body: bigger,
            },
        ],
        Quirks {
            cut_first_transfer: true,
            ..Quirks::default()
        },
    );
    let with_hub = |args: &[&str]| with_hub(&home, &hub.endpoint, args);
    let link = "https://huggingface.co/tester/Tiny-GGUF";
    let unpicked = with_hub(&["models", "add", link]);
    assert_eq!(unpicked.code, 2, "{}", unpicked.stderr);
    assert!(
        unpicked.stdout.contains("tiny-q8.gguf"),
        "{}",
        unpicked.stdout
    );
    assert!(
        unpicked.stderr.contains("model_file_choice"),
        "{}",
        unpicked.stderr
    );

    // The first transfer is cut: the second attempt goes on from there.
    let cut = with_hub(&["models", "add", link, "--pick", "tiny-q4.gguf"]);
    assert_eq!(cut.code, 1, "{}", cut.stderr);
    let added = with_hub(&["models", "add", link, "--pick", "tiny-q4.gguf"]);
    assert_eq!(added.code, 0, "{}", added.stderr);
    assert_eq!(
        std::fs::read(home.join("models/tiny-q4.gguf")).unwrap(),
        tiny_gguf(true)
    );

    let list = with_hub(&["models", "list", "--json"]).json();
    assert!(installed(&list, "tiny-q4").is_some(), "{list}");
    assert!(list["machine"]["cores"].as_u64().unwrap() >= 1, "{list}");
    let foreign = with_hub(&[
        "models",
        "add",
        "https://example.com/o/r/resolve/main/x.gguf",
    ]);
    assert_eq!(foreign.code, 2, "{}", foreign.stderr);
    assert!(
        foreign.stderr.contains("model_link_invalid"),
        "{}",
        foreign.stderr
    );
}

/// A Hub stand-in holding `tester/Tiny-GGUF` with one small model file,
/// `tiny-q4.gguf`, behaving as `quirks` say.
fn tiny_hub(quirks: narratoria_models::test_hub::Quirks) -> narratoria_models::test_hub::HubServer {
    use narratoria_models::test_hub::{serve_hub, HubTestFile};
    serve_hub(
        "tester/Tiny-GGUF",
        vec![HubTestFile {
            path: "tiny-q4.gguf".into(),
            body: tiny_gguf(true),
        }],
        quirks,
    )
}

/// Runs narratoria in `home` against the Hub stand-in at `endpoint`.
fn with_hub(home: &Path, endpoint: &str, args: &[&str]) -> crate::support::Run {
    narratoria(
        args,
        &[
            ("NARRATORIA_HOME", home.to_str().unwrap()),
            ("NARRATORIA_MODEL", ""),
            ("NARRATORIA_LOG", ""),
            ("HF_ENDPOINT", endpoint),
        ],
    )
}

/// A Hub stand-in that redirects a file's download to `file:///etc/passwd`
/// crashed `models add` (exit 101, a panic in the HTTP client); the
/// redirect is now refused with a download error that names it.
#[test]
fn a_hub_redirect_to_a_file_address_is_refused_without_a_crash() {
    use narratoria_models::test_hub::Quirks;
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let hub = tiny_hub(Quirks {
        resolve_location: Some("file:///etc/passwd".into()),
        ..Quirks::default()
    });
    let link = "https://huggingface.co/tester/Tiny-GGUF/resolve/main/tiny-q4.gguf";
    let added = with_hub(&home, &hub.endpoint, &["models", "add", link]);
    assert_ne!(added.code, 101, "a panic: {}", added.stderr);
    assert_eq!(added.code, 1, "{}", added.stderr);
    assert!(
        added.stderr.contains("a redirect was refused"),
        "{}",
        added.stderr
    );
    assert!(
        added.stderr.contains("file:///etc/passwd"),
        "{}",
        added.stderr
    );
    assert!(added.stderr.contains("download_failed"), "{}", added.stderr);
    assert!(!home.join("models/tiny-q4.gguf").exists());
}

/// `models add REPO --pick FILE` listed the repository three times (to
/// offer, to pick, to find the checksum); now once.
#[test]
fn adding_from_a_repository_link_lists_it_once() {
    use narratoria_models::test_hub::Quirks;
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let hub = tiny_hub(Quirks::default());
    let link = "https://huggingface.co/tester/Tiny-GGUF";
    let added = with_hub(
        &home,
        &hub.endpoint,
        &["models", "add", link, "--pick", "tiny-q4.gguf"],
    );
    assert_eq!(added.code, 0, "{}", added.stderr);
    let seen = hub.seen.lock().unwrap().clone();
    let listings = seen
        .iter()
        .filter(|(_, path, _)| path.starts_with("/api/models/"))
        .count();
    assert_eq!(listings, 1, "{seen:?}");
}

/// `models list` says what this machine is and judges each catalog model
/// against it, with one recommended.
#[test]
fn the_list_judges_the_catalog_against_this_machine() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let list = run(&home, &["models", "list", "--json"]).json();
    let offers = list["available"].as_array().unwrap();
    let qwen = offers
        .iter()
        .find(|e| e["name"] == "qwen2.5-1.5b")
        .expect("a real model");
    assert_eq!(qwen["hub"]["repo"], "Qwen/Qwen2.5-1.5B-Instruct-GGUF");
    let verdict = qwen["fit"]["verdict"].as_str().unwrap();
    assert!(
        ["runsWell", "runsSlowly", "doesNotFit"].contains(&verdict),
        "{qwen}"
    );
    assert!(
        qwen["fit"]["tokensPerSecond"].as_f64().unwrap() > 0.0,
        "{qwen}"
    );
    let text = run(&home, &["models", "list"]).stdout;
    assert!(text.contains("This machine: "), "{text}");
    assert!(text.contains("qwen2.5-1.5b"), "{text}");
    if let Some(pick) = list["recommended"].as_str() {
        assert!(
            text.contains(&format!("Recommended for this machine: {pick}")),
            "{text}"
        );
    }
}
