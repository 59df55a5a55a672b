//! `narratoria models server …`: the planner and the writer each on an
//! external OpenAI-compatible server, against a local stand-in speaking its
//! wire format (GET /v1/models, POST /v1/chat/completions; nothing reaches
//! the network). A real turn is played with the built-in skills.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use crate::support::narratoria;

/// What the stand-in writes when asked for prose.
const PROSE: &str =
    "Lantern light trembles over the old map, and somewhere below the tide is turning.";

/// A stand-in OpenAI-compatible server serving `stub-model`: a plan (one
/// dice roll) when the request carries the plan's schema, else `PROSE`.
/// Returns its base address and the bodies it received.
fn serve() -> (String, Arc<Mutex<Vec<Value>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let log = Arc::clone(&log);
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut first = String::new();
                if reader.read_line(&mut first).is_err() {
                    return;
                }
                let mut length = 0usize;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap_or(0);
                    }
                }
                let mut body = vec![0; length];
                let _ = reader.read_exact(&mut body);
                let answer = if first.starts_with("GET /v1/models") {
                    json!({"object": "list", "data": [{"id": "stub-model", "object": "model", "owned_by": "stub"}]})
                } else {
                    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                    let wants_plan = request["response_format"]["json_schema"]["name"] == "plan";
                    log.lock().unwrap().push(request);
                    let content = if wants_plan {
                        json!({"narrative": "", "tools": [{"toolId": "roll", "toolPath": "dice-roller/roll-dice", "input": {"formula": "1d20"}}]})
                            .to_string()
                    } else {
                        PROSE.to_string()
                    };
                    json!({
                        "id": "x", "object": "chat.completion", "model": "stub-model",
                        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": 20, "completion_tokens": 18, "total_tokens": 38}
                    })
                };
                let text = answer.to_string();
                let _ = write!(
                    stream,
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
                    text.len()
                );
            });
        }
    });
    (base, seen)
}

fn run(home: &Path, args: &[&str]) -> crate::support::Run {
    narratoria(
        args,
        &[
            ("NARRATORIA_HOME", home.to_str().unwrap()),
            ("NARRATORIA_MODEL", "/nonexistent/model.gguf"),
            ("NARRATORIA_LOG", ""),
        ],
    )
}

#[test]
fn the_planner_and_the_writer_each_run_on_a_server_when_chosen() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let (base, seen) = serve();

    let listed = run(&home, &["models", "server", "models", &base]);
    assert_eq!(listed.code, 0, "{}", listed.stderr);
    assert_eq!(listed.stdout.trim(), "stub-model");

    let missing = run(
        &home,
        &[
            "models",
            "server",
            "set",
            "--role",
            "both",
            "--endpoint",
            &base,
            "--model",
            "nothing",
        ],
    );
    assert_ne!(
        missing.code, 0,
        "a model the server does not serve is refused"
    );
    assert!(
        missing.stderr.contains("server_failed"),
        "{}",
        missing.stderr
    );

    let set = run(
        &home,
        &[
            "models",
            "server",
            "set",
            "--role",
            "both",
            "--endpoint",
            &base,
            "--model",
            "stub-model",
        ],
    );
    assert_eq!(set.code, 0, "{}", set.stderr);
    let settings = std::fs::read_to_string(home.join("settings.json")).unwrap();
    assert!(
        settings.contains("plannerServer") && settings.contains("writerServer"),
        "{settings}"
    );

    let turn = run(
        &home,
        &["turn", "I unroll the old map by the lantern", "--json"],
    );
    assert_eq!(turn.code, 0, "{}", turn.stderr);
    let result: Value = serde_json::from_str(&turn.stdout).unwrap();
    let tools: Vec<&str> = result["executionTrace"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["toolId"].as_str())
        .collect();
    assert!(tools.contains(&"roll"), "the server's plan ran: {tools:?}");
    let narrative = result["narrative"].as_str().unwrap();
    assert!(
        narrative.contains("Lantern light trembles"),
        "the server wrote: {narrative}"
    );
    let bodies = seen.lock().unwrap().clone();
    assert!(
        bodies
            .iter()
            .any(|b| b["response_format"]["json_schema"]["name"] == "plan"),
        "the plan's schema was sent"
    );
    assert!(bodies.iter().all(|b| b["model"] == "stub-model"));

    let cleared = run(&home, &["models", "server", "clear"]);
    assert_eq!(cleared.code, 0, "{}", cleared.stderr);
    let shown = run(&home, &["models", "server", "show", "--json"]).json();
    assert_eq!(shown, json!({"planner": null, "writer": null}));
}

#[test]
fn a_server_that_is_down_is_named_not_silently_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let down = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/v1", l.local_addr().unwrap())
    };
    let set = run(
        &home,
        &[
            "models",
            "server",
            "set",
            "--endpoint",
            &down,
            "--model",
            "m",
        ],
    );
    assert_ne!(set.code, 0, "{}", set.stderr);
    assert!(set.stderr.contains("remote_unreachable"), "{}", set.stderr);
    assert!(
        !home.join("settings.json").exists(),
        "nothing is remembered"
    );
}

/// A stand-in whose every answer is a redirect to `location`. Returns its
/// base address.
fn serve_redirect(location: &'static str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
            }
            let _ = write!(
                stream,
                "HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            );
        }
    });
    base
}

/// `models server models` against a server redirecting its model list to
/// a file or a `data:` address once crashed (exit 101, a panic in the HTTP
/// client); it is a clear `remote_redirect` failure now.
#[test]
fn a_model_list_redirected_off_the_server_is_refused_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    for location in ["file:///etc/passwd", "data:application/json,{}"] {
        let base = serve_redirect(location);
        let listed = run(&home, &["models", "server", "models", &base]);
        assert_ne!(listed.code, 0, "{}", listed.stdout);
        assert_ne!(listed.code, 101, "a panic: {}", listed.stderr);
        assert!(!listed.stderr.contains("panicked"), "{}", listed.stderr);
        assert!(
            listed.stderr.contains("remote_redirect"),
            "{}",
            listed.stderr
        );
        assert!(!listed.stdout.contains("root:"), "{}", listed.stdout);
    }
}

/// A password in a server's endpoint is treated as an API key: masked in
/// what `set`, `show`, `show --json` and `check` print and in the debug
/// log's command line, and the settings file keeping it is the player's
/// alone.
#[test]
fn an_endpoints_password_is_shown_masked_and_kept_private() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let (base, _) = serve();
    let endpoint = base.replace("http://", "http://user:PASSWORD123@");
    let debug = |args: &[&str]| {
        narratoria(
            args,
            &[
                ("NARRATORIA_HOME", home.to_str().unwrap()),
                ("NARRATORIA_MODEL", "/nonexistent/model.gguf"),
                ("NARRATORIA_LOG", "debug"),
            ],
        )
    };
    let set = debug(&[
        "models",
        "server",
        "set",
        "--role",
        "planner",
        "--endpoint",
        &endpoint,
        "--model",
        "stub-model",
    ]);
    assert_eq!(set.code, 0, "{}", set.stderr);
    let masked = base.replace("http://", "http://user:••••••••@");
    assert!(set.stdout.contains(&masked), "{}", set.stdout);
    for args in [
        &["models", "server", "show"][..],
        &["models", "server", "show", "--json"],
        &["models", "server", "check"],
    ] {
        let shown = debug(args);
        assert_eq!(shown.code, 0, "{args:?}: {}", shown.stderr);
        assert!(
            shown.stdout.contains("user:••••••••@"),
            "{args:?}: {}",
            shown.stdout
        );
        for out in [&shown.stdout, &shown.stderr] {
            assert!(!out.contains("PASSWORD123"), "{args:?}: {out}");
        }
    }
    for out in [&set.stdout, &set.stderr] {
        assert!(!out.contains("PASSWORD123"), "{out}");
    }
    let logs = home.join("logs");
    let mut log = String::new();
    for file in std::fs::read_dir(&logs).unwrap() {
        log.push_str(&std::fs::read_to_string(file.unwrap().path()).unwrap());
    }
    assert!(log.contains("user:••••••••@"), "the start-up line:\n{log}");
    assert!(
        !log.contains("PASSWORD123"),
        "the password was logged:\n{log}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let settings = home.join("settings.json");
        let mode = std::fs::metadata(&settings).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{}", settings.display());
    }
}
