//! `storyteller/narrate` run for real: the skill folder and the compiled
//! script are copied into a temporary skills folder and plans are executed by
//! the `narratoria` binary (`narratoria run-plan`), as the app does. Hosted
//! providers are played by a small HTTP server on 127.0.0.1 speaking their
//! streaming wire formats; the local provider runs the default model.

mod support;

use std::sync::mpsc;

use serde_json::{json, Value};
use support::*;

const KEY: &str = "sk-test-7f3a9c1e5b2d4680";

fn narrate_tool(input: Value, deps: &[&str]) -> Value {
    tool("narrate", "storyteller/narrate", input, deps)
}

fn sneak_plan() -> Value {
    json!([
        tool("sneak", "fake-dice/roll", json!({}), &[]),
        narrate_tool(
            json!({"playerInput": "I sneak past the gate guard"}),
            &["sneak"]
        ),
    ])
}

/// Checks the narrative is the concatenation of the streamed deltas.
fn assert_streamed(run: &Run) -> String {
    let out = run.output("narrate");
    let narrative = out["narrative"].as_str().unwrap().to_string();
    assert!(!narrative.trim().is_empty(), "{out:#}");
    assert_eq!(run.deltas("narrate").concat(), narrative);
    assert_eq!(run.result["narrative"], narrative, "the turn's narrative");
    narrative
}

fn assert_no_key(run: &Run) {
    assert!(!run.stdout.contains(KEY), "the key leaked to stdout");
    assert!(!run.stderr.contains(KEY), "the key leaked to stderr");
}

#[test]
fn openai_streams_deltas_in_order_with_key_model_sampling_and_style() {
    // Prose is shown a whole sentence at a time: the first reaches the
    // player while the server still holds the rest back.
    let pieces = ["The guard yawns. ", "And you", " slip past\nthe gate."];
    let sentences = ["The guard yawns.", " And you slip past\nthe gate."];
    let (open, gate) = mpsc::channel();
    let server = MockServer::start(vec![Reply::sse(openai_frames(&pieces)).gated(gate, 1)]);
    let sb = Sandbox::new();
    sb.config(json!({
        "provider": "openai", "endpoint": server.url("/v1"), "apiKey": KEY,
        "model": "story-model-1", "temperature": 0.3, "maxTokens": 77, "style": "vivid"
    }));
    let run = sb.run_live(
        sneak_plan(),
        Some(json!({"location": "Ashford gate"})),
        move |line| {
            if line.contains("narration_delta") {
                let _ = open.send(());
            }
        },
    );
    assert_eq!(run.result["success"], true, "{:#}", run.result);
    assert_eq!(run.output("narrate")["provider"], "openai");
    assert_eq!(run.deltas("narrate"), sentences);
    assert_streamed(&run);
    assert!(run.error_codes("narrate").is_empty());
    assert!(
        run.warnings("narrate").is_empty(),
        "{:?}",
        run.warnings("narrate")
    );

    let (gates, received) = server.finish();
    assert_eq!(
        gates,
        vec![true],
        "the first piece must reach the UI while the provider is still streaming"
    );
    assert_eq!(received.len(), 1);
    let req = &received[0];
    assert_eq!(req.method, "POST");
    assert_eq!(req.path, "/v1/chat/completions");
    assert_eq!(req.headers["authorization"], format!("Bearer {KEY}"));
    let b = &req.body;
    assert_eq!(b["model"], "story-model-1");
    assert_eq!(b["stream"], true);
    assert_eq!(b["max_tokens"], 77);
    assert!(
        (b["temperature"].as_f64().unwrap() - 0.3).abs() < 1e-6,
        "{b}"
    );
    assert_eq!(b["messages"][0]["role"], "system");
    let system = b["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("Style: vivid"), "{system}");
    let user = b["messages"][1]["content"].as_str().unwrap();
    assert!(user.contains("I sneak past the gate guard"), "{user}");
    assert!(
        user.contains("Sneak past the gate guard: it succeeds, but only just."),
        "the rules' verdict grounds the prose, in words: {user}"
    );
    assert!(
        !user.contains("17"),
        "no raw numbers for the model to misread: {user}"
    );
    assert!(
        user.contains("Ashford gate"),
        "the session state grounds the prose: {user}"
    );
    assert_no_key(&run);
}

#[test]
fn anthropic_streams_content_block_deltas_with_its_headers() {
    let pieces = [
        "Moonlight pools on the cobbles. ",
        "The guard",
        " dreams on.",
    ];
    let sentences = ["Moonlight pools on the cobbles.", " The guard dreams on."];
    let (open, gate) = mpsc::channel();
    let server = MockServer::start(vec![Reply::sse(anthropic_frames(&pieces)).gated(gate, 3)]);
    let sb = Sandbox::new();
    sb.config(json!({
        "provider": "anthropic", "endpoint": server.url(""), "apiKey": KEY,
        "model": "claude-test", "temperature": 0.9, "maxTokens": 300, "style": "terse"
    }));
    let run = sb.run_live(
        json!([narrate_tool(
            json!({"playerInput": "I wait for the guard to fall asleep", "style": "poetic"}),
            &[]
        )]),
        None,
        move |line| {
            if line.contains("narration_delta") {
                let _ = open.send(());
            }
        },
    );
    assert_eq!(run.result["success"], true, "{:#}", run.result);
    assert_eq!(run.output("narrate")["provider"], "anthropic");
    assert_eq!(run.deltas("narrate"), sentences);
    assert_streamed(&run);

    let (gates, received) = server.finish();
    assert_eq!(gates, vec![true]);
    let req = &received[0];
    assert_eq!(req.path, "/v1/messages");
    assert_eq!(req.headers["x-api-key"], KEY);
    assert_eq!(req.headers["anthropic-version"], "2023-06-01");
    assert!(!req.headers.contains_key("authorization"));
    let b = &req.body;
    assert_eq!(b["model"], "claude-test");
    assert_eq!(b["stream"], true);
    assert_eq!(b["max_tokens"], 300);
    assert!(
        (b["temperature"].as_f64().unwrap() - 0.9).abs() < 1e-6,
        "{b}"
    );
    let system = b["system"].as_str().unwrap();
    assert!(
        system.contains("Style: poetic"),
        "the input's style wins: {system}"
    );
    assert_eq!(b["messages"][0]["role"], "user");
    assert_no_key(&run);
}

#[test]
#[cfg(feature = "own-model")]
fn unauthorized_falls_back_to_the_local_model() {
    let server = MockServer::start(vec![Reply::error(
        401,
        json!({"error": {"message": format!("Incorrect API key provided: {KEY}"), "type": "invalid_request_error"}}),
    )]);
    let sb = Sandbox::new();
    sb.with_default_model().config(json!({
        "provider": "openai", "endpoint": server.url("/v1"), "apiKey": KEY, "maxTokens": 48
    }));
    let run = sb.run(sneak_plan(), None);
    assert_eq!(run.result["success"], true, "{:#}", run.result);
    let out = run.output("narrate");
    assert_eq!(
        out["provider"],
        "local",
        "{:#}",
        run.tool("narrate")["events"]
    );
    assert_eq!(run.error_codes("narrate"), vec!["UNAUTHORIZED"]);
    let warnings = run.warnings("narrate");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("openai") && warnings[0].contains("falling back to the local model"),
        "{warnings:?}"
    );
    assert_streamed(&run);
    assert_eq!(server.finish().1.len(), 1);
    assert_no_key(&run);
}

#[test]
fn rate_limit_without_a_model_ends_at_the_deterministic_template() {
    let server = MockServer::start(vec![
        Reply::error(
            429,
            json!({"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}),
        )
        .header("retry-after", "12"),
        Reply::error(
            429,
            json!({"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}),
        ),
    ]);
    let sb = Sandbox::new();
    sb.config(json!({
        "provider": "anthropic", "endpoint": server.url(""), "apiKey": KEY, "style": "terse",
        "modelPath": "no-such-model.gguf"
    }));
    let first = sb.run(sneak_plan(), None);
    assert_eq!(first.result["success"], true, "{:#}", first.result);
    let out = first.output("narrate");
    assert_eq!(out["provider"], "template", "{out:#}");
    let narrative = assert_streamed(&first);
    assert!(
        narrative.starts_with("You sneak past the gate guard, and you go unseen. "),
        "{narrative}"
    );
    assert!(
        !narrative.contains(" but ") && !narrative.contains("not"),
        "the rules' verdict is told: the deed done, no failure: {narrative}"
    );
    assert!(
        !narrative.chars().any(|c| c.is_ascii_digit()),
        "no numbers reach the player: {narrative}"
    );
    assert_eq!(
        first.error_codes("narrate"),
        vec!["RATE_EXCEEDED", "NOT_FOUND"]
    );
    let errors = first.events("narrate", "error");
    assert!(errors[0]["message"]
        .as_str()
        .unwrap()
        .contains("retry after 12 s"));
    assert_eq!(errors[0]["recoverable"], true);
    let warnings = first.warnings("narrate");
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings[0].contains("falling back to the local model"));
    assert!(warnings[1].contains("falling back to the plain template"));

    let second = sb.run(sneak_plan(), None);
    assert_eq!(
        second.output("narrate")["narrative"],
        narrative,
        "the template is deterministic"
    );
    assert_eq!(server.finish().1.len(), 2);
    assert_no_key(&first);
}

#[test]
#[cfg(feature = "own-model")]
fn unreachable_endpoint_falls_back_to_the_local_model() {
    let sb = Sandbox::new();
    sb.with_default_model().config(json!({
        "provider": "openai", "endpoint": format!("http://127.0.0.1:{}/v1", dead_port()),
        "apiKey": KEY, "maxTokens": 40, "timeoutSeconds": 5
    }));
    // A deed with no one to meet: after "I knock on the door" the small
    // model often brings in someone the story has not met, which is refused
    // (tested on its own), and the turn falls on to the template.
    let run = sb.run(
        json!([narrate_tool(
            json!({"playerInput": "I sit by the window and watch the rain"}),
            &[]
        )]),
        None,
    );
    assert_eq!(run.result["success"], true, "{:#}", run.result);
    assert_eq!(run.output("narrate")["provider"], "local");
    assert_eq!(run.error_codes("narrate"), vec!["EXTERNAL_SERVICE_ERROR"]);
    assert!(run.warnings("narrate")[0].contains("cannot reach openai"));
    assert_streamed(&run);
    assert_no_key(&run);
}

#[test]
#[cfg(feature = "own-model")]
fn local_default_model_writes_prose_within_max_tokens() {
    let sb = Sandbox::new();
    sb.with_default_model()
        .config(json!({"provider": "local", "maxTokens": 32, "style": "vivid"}));
    let run = sb.run(sneak_plan(), Some(json!({"location": "Ashford gate"})));
    assert_eq!(run.result["success"], true, "{:#}", run.result);
    let out = run.output("narrate");
    assert_eq!(out["provider"], "local", "{out:#}");
    let narrative = assert_streamed(&run);
    // The rules' opening is the host's, not the model's: `maxTokens` bounds
    // only what the model writes on from it (docs/storyteller.md).
    let deps = json!({"sneak": run.output("sneak")});
    let opening = narratoria_storyteller::prompt::opening(
        deps.as_object().unwrap(),
        "I sneak past the gate guard",
    );
    let written = narrative
        .trim_start()
        .strip_prefix(opening.trim())
        .unwrap_or_else(|| {
            panic!("the narrative starts with the rules' opening {opening:?}: {narrative}")
        });
    let words = written.split_whitespace().count();
    assert!(
        (1..=32).contains(&words),
        "{words} words is more than 32 tokens can write: {written}"
    );
    assert!(!narrative.contains('\n'), "one paragraph: {narrative:?}");
    assert!(
        run.deltas("narrate")
            .iter()
            .all(|d| d.trim_end().ends_with(['.', '!', '?', '…', '"', '”'])),
        "the local model's prose streams a whole sentence at a time: {:?}",
        run.deltas("narrate")
    );
    assert!(run.error_codes("narrate").is_empty());
}

#[test]
fn no_model_and_no_provider_gives_the_template() {
    let sb = Sandbox::new();
    sb.config(json!({"provider": "local", "style": "poetic"}));
    let run = sb.run(
        json!([narrate_tool(
            json!({"playerInput": "I light a candle"}),
            &[]
        )]),
        None,
    );
    let out = run.output("narrate");
    assert_eq!(out["provider"], "template");
    let narrative = assert_streamed(&run);
    assert!(narrative.starts_with("You light a candle. "), "{narrative}");
    assert_eq!(run.error_codes("narrate"), vec!["NOT_FOUND"]);
    let why = if cfg!(feature = "own-model") {
        "fetch-model.sh"
    } else {
        "no model of its own"
    };
    assert!(
        run.warnings("narrate")[0].contains(why),
        "{:?}",
        run.warnings("narrate")
    );
}

/// Built without its own model (the default), the script loads none even
/// with a model file where it would look: with no model lent by the host it
/// tells the template, and says why.
#[test]
#[cfg(not(feature = "own-model"))]
fn without_its_own_model_and_none_lent_the_template_tells_and_says_why() {
    let sb = Sandbox::new();
    // A file where the script would look for the default model: loading it
    // would fail otherwise (INTERNAL_ERROR), not be skipped.
    let models = sb.skill_dir().join("../../models");
    std::fs::create_dir_all(&models).unwrap();
    std::fs::write(models.join(MODEL_FILE), b"not a model").unwrap();
    sb.config(json!({"provider": "local", "style": "vivid"}));
    let run = sb.run(sneak_plan(), None);
    assert_eq!(run.result["success"], true, "{:#}", run.result);
    let out = run.output("narrate");
    assert_eq!(out["provider"], "template", "{out:#}");
    assert_streamed(&run);
    assert_eq!(run.error_codes("narrate"), vec!["NOT_FOUND"]);
    let warnings = run.warnings("narrate");
    assert!(
        warnings[0].contains("no model of its own and the host lends none")
            && warnings[0].contains("falling back to the plain template"),
        "{warnings:?}"
    );
}

#[test]
fn the_key_never_leaves_the_script() {
    // A server that echoes the key back in its error bodies.
    let echo = json!({"error": {"message": format!("bad key {KEY}")}});
    let server = MockServer::start(vec![
        Reply::error(500, echo.clone()),
        Reply::error(401, echo.clone()),
        Reply::error(400, echo),
    ]);
    let sb = Sandbox::new();
    let envelope = |endpoint: String| {
        json!({"protocol": "narratoria/1", "requestId": "r", "toolId": "narrate",
               "input": {"playerInput": "I show my papers"}, "deps": {}, "state": {},
               "config": {"provider": "openai", "endpoint": endpoint, "apiKey": KEY,
                          "modelPath": "missing.gguf"}})
    };
    let mut codes = Vec::new();
    for _ in 0..3 {
        let (stdout, stderr) = sb.run_script(envelope(server.url("/v1")));
        assert!(!stdout.contains(KEY), "the key leaked to stdout: {stdout}");
        assert!(!stderr.contains(KEY), "the key leaked to stderr: {stderr}");
        let events: Vec<Value> = stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let done = events.last().unwrap();
        assert_eq!(done["type"], "done");
        assert_eq!(done["ok"], true);
        assert_eq!(done["output"]["provider"], "template");
        codes.push(events.iter().find(|e| e["type"] == "error").unwrap()["code"].clone());
    }
    assert_eq!(
        codes,
        vec![
            json!("EXTERNAL_SERVICE_ERROR"),
            json!("UNAUTHORIZED"),
            json!("VALIDATION_ERROR")
        ]
    );
    assert_eq!(server.finish().1.len(), 3);
}

#[test]
fn a_missing_player_input_is_a_validation_error() {
    let sb = Sandbox::new();
    let run = sb.run(json!([narrate_tool(json!({"context": "x"}), &[])]), None);
    let t = run.tool("narrate");
    assert_eq!(t["ok"], false, "{t:#}");
    assert_eq!(t["error"]["code"], "VALIDATION_ERROR", "{t:#}");
    assert!(
        t["error"]["message"]
            .as_str()
            .unwrap()
            .contains("playerInput"),
        "{t:#}"
    );
}
