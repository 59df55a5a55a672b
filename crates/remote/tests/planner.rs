//! The remote planner against a stand-in server on 127.0.0.1: plans,
//! what is sent, deadlines, broken and hostile answers, wait notices.

mod support;

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use narratoria_core::planner::{
    PlanOutcome, PlanRequest, Planner, PlannerError, MAX_MODEL_PLAN_TOOLS,
};
use narratoria_remote::{PlannerOptions, RemotePlanner, Server, ServerKind, WaitNotice};
use serde_json::{json, Map, Value};
use support::{catalog, chunk, plan_text, respond, start_events, stream_answer, TestServer};

/// How late past its deadline a plan may return on a busy machine.
const MARGIN: Duration = Duration::from_millis(600);

fn plan_with(
    planner: &RemotePlanner,
    deadline: Duration,
) -> (Result<PlanOutcome, PlannerError>, Vec<String>) {
    let catalog = catalog();
    let state = Map::new();
    let request = PlanRequest::first(
        "I attack the goblin",
        &catalog,
        &state,
        Instant::now() + deadline,
    );
    let mut narrated = Vec::new();
    let result = planner.plan(&request, &mut |n| narrated.push(n.to_string()));
    (result, narrated)
}

fn planner(url: &str, kind: ServerKind) -> RemotePlanner {
    RemotePlanner::new(Server::new(url, "test-model").with_kind(kind))
}

#[test]
fn a_valid_streamed_plan_is_a_plan_with_its_transcript() {
    let server = TestServer::start(|_, s| {
        let text = plan_text();
        let (a, b) = text.split_at(text.len() / 2);
        stream_answer(s, &[a, b]);
    });
    let p = planner(&server.url, ServerKind::LlamaServer);
    assert_eq!(
        p.plan_time(),
        Duration::from_secs(150),
        "cold: the load allowance too"
    );
    let (result, narrated) = plan_with(&p, Duration::from_secs(10));
    let outcome = result.unwrap();
    assert_eq!(outcome.plan.tools.len(), 1);
    assert_eq!(outcome.plan.tools[0].tool_path, "dice-roller/roll-dice");
    assert_eq!(outcome.plan.tools[0].input["formula"], "1d20");
    assert_eq!(outcome.plan.metadata.generation_attempt, 1);
    assert_eq!(narrated, ["You swing at the goblin."]);
    let t = &outcome.transcript;
    assert!(
        t.planner.starts_with("openai:test-model@127.0.0.1:"),
        "{}",
        t.planner
    );
    assert_eq!(t.response, plan_text());
    assert_eq!(
        (t.prompt_tokens, t.completion_tokens, t.cached_tokens),
        (42, 7, 30)
    );
    assert!(t.prompt.contains("dice-roller/roll-dice") && t.prompt.contains("I attack the goblin"));
    assert_eq!(t.prompt_hash.len(), 64);
    assert_eq!(
        p.plan_time(),
        Duration::from_secs(30),
        "warm: the plan time alone"
    );
}

#[test]
fn a_fenced_json_answer_is_read_too() {
    let server = TestServer::start(|_, s| {
        let content = format!("```json\n{}\n```", plan_text());
        let body = json!({
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 6}
        });
        respond(s, 200, "application/json", &body.to_string());
    });
    let (result, _) = plan_with(
        &planner(&server.url, ServerKind::LmStudio),
        Duration::from_secs(10),
    );
    let outcome = result.unwrap();
    assert_eq!(outcome.plan.tools[0].tool_id, "roll");
    assert_eq!(outcome.transcript.completion_tokens, 6);
}

fn sent_schema(kind: ServerKind) -> Value {
    let server = TestServer::start(|_, s| stream_answer(s, &[&plan_text()]));
    let (result, _) = plan_with(&planner(&server.url, kind), Duration::from_secs(10));
    result.unwrap();
    let got = server.received();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].method, "POST");
    assert_eq!(got[0].path, "/v1/chat/completions");
    got[0].json()
}

#[test]
fn a_llama_server_is_sent_the_plan_schema_as_response_format() {
    let body = sent_schema(ServerKind::LlamaServer);
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["stream"], true);
    assert!(body["temperature"].as_f64().unwrap() <= 0.3);
    assert!(body["max_tokens"].as_u64().unwrap() <= 4096);
    let format = &body["response_format"];
    assert_eq!(format["type"], "json_schema");
    assert_eq!(format["json_schema"]["name"], "plan");
    assert_eq!(format["json_schema"]["strict"], false);
    let schema = &format["json_schema"]["schema"];
    assert_eq!(schema["title"], "Plan JSON");
    assert_eq!(schema["required"], json!(["tools"]));
    assert_eq!(
        schema["properties"]["tools"]["items"]["properties"]["toolPath"]["enum"],
        json!(["dice-roller/roll-dice", "memory/recall-memory"])
    );
    assert!(body.get("format").is_none(), "only Ollama gets `format`");
    let system = body["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains("dice-roller/roll-dice") && system.contains("\"formula\""),
        "{system}"
    );
    assert!(system.contains("one JSON object"), "{system}");
    let user = body["messages"][1]["content"].as_str().unwrap();
    assert!(user.ends_with("Player: I attack the goblin"), "{user}");
}

#[test]
fn ollama_is_sent_the_plan_schema_as_format_too() {
    let body = sent_schema(ServerKind::Ollama);
    let schema = &body["response_format"]["json_schema"]["schema"];
    assert_eq!(schema["title"], "Plan JSON");
    assert_eq!(&body["format"], schema);
}

#[test]
fn a_slow_server_past_the_deadline_is_a_deadline_on_time() {
    let server = TestServer::start(|_, s| {
        std::thread::sleep(Duration::from_secs(8));
        stream_answer(s, &[&plan_text()]);
    });
    let p = planner(&server.url, ServerKind::Other);
    let given = Duration::from_millis(800);
    let started = Instant::now();
    let (result, _) = plan_with(&p, given);
    let took = started.elapsed();
    assert_eq!(result.unwrap_err(), PlannerError::Deadline);
    assert!(took < given + MARGIN, "returned after {took:?}");
    assert!(
        took >= given - Duration::from_millis(50),
        "returned after {took:?}"
    );
}

#[test]
fn a_server_that_stalls_mid_answer_is_a_deadline_on_time() {
    let server = TestServer::start(|_, s| {
        if start_events(s) {
            let _ = s.write_all(chunk("{\"narrative\":\"You").as_bytes());
            std::thread::sleep(Duration::from_secs(8));
        }
    });
    let given = Duration::from_millis(800);
    let started = Instant::now();
    let (result, _) = plan_with(&planner(&server.url, ServerKind::Other), given);
    assert_eq!(result.unwrap_err(), PlannerError::Deadline);
    assert!(
        started.elapsed() < given + MARGIN,
        "returned after {:?}",
        started.elapsed()
    );
}

/// What the planner makes of an answer: `respond` writes it.
fn outcome_of(answer: impl Fn(&mut std::net::TcpStream) + Send + Sync + 'static) -> PlannerError {
    let server = TestServer::start(move |_, s| answer(s));
    let (result, _) = plan_with(
        &planner(&server.url, ServerKind::Other),
        Duration::from_secs(20),
    );
    result.expect_err("a broken answer must not be a plan")
}

fn invalid(e: &PlannerError) -> &str {
    match e {
        PlannerError::InvalidOutput(reason) => reason,
        other => panic!("expected InvalidOutput, got {other:?}"),
    }
}

fn model(e: &PlannerError) -> &str {
    match e {
        PlannerError::Model(reason) => reason,
        other => panic!("expected Model, got {other:?}"),
    }
}

#[test]
fn a_plan_cut_mid_json_is_invalid_output() {
    let e = outcome_of(|s| stream_answer(s, &[&plan_text()[..40]]));
    assert!(invalid(&e).contains("not valid JSON"), "{e}");
    // The server stopped at max_tokens: the reason says so.
    let e = outcome_of(|s| {
        if start_events(s) {
            let _ = s.write_all(chunk(&plan_text()[..40]).as_bytes());
            let end = json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "length"}]});
            let _ = write!(s, "data: {end}\n\ndata: [DONE]\n\n");
        }
    });
    assert!(invalid(&e).contains("stopped at its 1024 tokens"), "{e}");
}

#[test]
fn an_http_error_names_the_status_and_the_servers_words() {
    let e = outcome_of(|s| {
        respond(
            s,
            500,
            "application/json",
            r#"{"error":{"message":"CUDA out of memory"}}"#,
        )
    });
    let m = model(&e);
    assert!(m.contains("HTTP 500: CUDA out of memory"), "{m}");
    assert!(m.contains("127.0.0.1:"), "names the server: {m}");
    let e = outcome_of(|s| {
        respond(
            s,
            404,
            "application/json",
            r#"{"error":{"message":"model \"test-model\" not found, try pulling it first"}}"#,
        )
    });
    assert!(
        model(&e).contains("does not serve the model \"test-model\""),
        "{e}"
    );
}

#[test]
fn an_answer_that_is_not_json_is_a_bad_answer() {
    let e = outcome_of(|s| respond(s, 200, "application/json", "<html>Bad gateway</html>"));
    assert!(model(&e).contains("not understood"), "{e}");
    let e = outcome_of(|s| {
        if start_events(s) {
            let _ = s.write_all(b"data: {not json\n\n");
        }
    });
    assert!(model(&e).contains("not JSON"), "{e}");
    let e = outcome_of(|s| stream_answer(s, &["I think you should roll a die."]));
    assert!(invalid(&e).contains("not valid JSON"), "{e}");
}

#[test]
fn a_ten_mib_answer_is_refused_at_its_bound() {
    let huge = || "x".repeat(10 << 20);
    let e = outcome_of(move |s| {
        respond(
            s,
            200,
            "application/json",
            &format!("{{\"a\":\"{}\"}}", huge()),
        )
    });
    assert!(model(&e).contains("256 KiB"), "{e}");
    let e = outcome_of(move |s| {
        if start_events(s) {
            let _ = s.write_all(format!("data: {}", huge()).as_bytes());
        }
    });
    assert!(model(&e).contains("longer than 256 KiB"), "{e}");
    let e = outcome_of(|s| {
        if start_events(s) {
            let piece = chunk(&"y".repeat(4096));
            for _ in 0..(10 << 20) / 4096 {
                if s.write_all(piece.as_bytes()).is_err() {
                    return;
                }
            }
        }
    });
    assert!(model(&e).contains("a plan longer than 256 KiB"), "{e}");
}

#[test]
fn a_plan_with_an_unknown_tool_or_a_cycle_is_invalid_output() {
    let unknown =
        json!({"tools": [{"toolId": "a", "toolPath": "fireball/cast", "input": {}}]}).to_string();
    let e = outcome_of(move |s| stream_answer(s, &[&unknown]));
    assert!(
        invalid(&e).contains("\"fireball/cast\", which is not an available tool"),
        "{e}"
    );

    let cycle = json!({"tools": [
        {"toolId": "a", "toolPath": "dice-roller/roll-dice", "input": {"formula": "1d6"}, "dependencies": ["b"]},
        {"toolId": "b", "toolPath": "memory/recall-memory", "input": {"query": "x"}, "dependencies": ["a"]}
    ]})
    .to_string();
    let e = outcome_of(move |s| stream_answer(s, &[&cycle]));
    assert!(invalid(&e).contains("circular dependency"), "{e}");

    let bad_input = json!({"tools": [{"toolId": "a", "toolPath": "dice-roller/roll-dice", "input": {"dice": 3}}]}).to_string();
    let e = outcome_of(move |s| stream_answer(s, &[&bad_input]));
    assert!(invalid(&e).contains("formula"), "{e}");

    let not_a_plan = json!({"tools": "roll"}).to_string();
    let e = outcome_of(move |s| stream_answer(s, &[&not_a_plan]));
    assert!(invalid(&e).contains("/tools"), "{e}");
}

#[test]
fn a_disabled_skill_is_neither_offered_nor_accepted() {
    let server = TestServer::start(|_, s| stream_answer(s, &[&plan_text()]));
    let p = planner(&server.url, ServerKind::LlamaServer);
    let catalog = catalog();
    let state = Map::new();
    let disabled = vec!["dice-roller".to_string()];
    let request = PlanRequest {
        disabled_skills: &disabled,
        attempt: 2,
        previous_failure: Some("the dice skill crashed"),
        ..PlanRequest::first(
            "I attack",
            &catalog,
            &state,
            Instant::now() + Duration::from_secs(10),
        )
    };
    let e = p.plan(&request, &mut |_| {}).unwrap_err();
    assert!(invalid(&e).contains("not an available tool"), "{e}");
    let body = server.received()[0].json();
    assert_eq!(
        body["response_format"]["json_schema"]["schema"]["properties"]["tools"]["items"]
            ["properties"]["toolPath"]["enum"],
        json!(["memory/recall-memory"])
    );
    let user = body["messages"][1]["content"].as_str().unwrap();
    assert!(
        user.contains("Do not use these skills now: dice-roller."),
        "{user}"
    );
    assert!(user.contains("the dice skill crashed"), "{user}");
}

#[test]
fn without_a_narrative_wanted_the_plan_has_none() {
    let server = TestServer::start(|_, s| stream_answer(s, &[&plan_text()]));
    let p = planner(&server.url, ServerKind::Other);
    let catalog = catalog();
    let state = Map::new();
    let request = PlanRequest {
        narrative: false,
        ..PlanRequest::first(
            "I attack",
            &catalog,
            &state,
            Instant::now() + Duration::from_secs(10),
        )
    };
    let mut narrated = Vec::new();
    let outcome = p
        .plan(&request, &mut |n| narrated.push(n.to_string()))
        .unwrap();
    assert_eq!(outcome.plan.narrative, None);
    assert!(narrated.is_empty());
}

#[test]
fn a_hostile_answer_echoing_the_key_never_shows_it() {
    const KEY: &str = "sk-hostile-test-4242";
    let server = TestServer::start(|r, s| {
        let auth = r.header("authorization").unwrap_or_default().to_string();
        match r.path.as_str() {
            "/a/v1/chat/completions" => respond(
                s,
                500,
                "application/json",
                &json!({"error": {"message": format!("invalid {auth}")}}).to_string(),
            ),
            "/b/v1/chat/completions" => stream_answer(s, &[&format!("{{\"tools\": \"{auth}\"}}")]),
            "/c/v1/chat/completions" => stream_answer(s, &[&format!("Your key is {auth}")]),
            _ => {
                if start_events(s) {
                    let e = json!({"error": {"message": format!("echo {auth}")}});
                    let _ = write!(s, "data: {e}\n\n");
                }
            }
        }
    });
    for prefix in ["a", "b", "c", "d"] {
        let url = server.url.replace("/v1", &format!("/{prefix}/v1"));
        let p = RemotePlanner::new(Server::new(url, "m").with_api_key(Some(KEY.into())));
        let (result, _) = plan_with(&p, Duration::from_secs(10));
        let e = result.unwrap_err();
        assert!(!e.to_string().contains(KEY), "{prefix}: {e}");
        assert!(!format!("{e:?}").contains(KEY), "{prefix}: {e:?}");
        assert!(e.to_string().contains("••••••••"), "{prefix}: {e}");
    }
    assert_eq!(
        server.received()[0].header("authorization"),
        Some(&*format!("Bearer {KEY}"))
    );
}

#[test]
fn a_wait_notice_is_sent_for_a_server_slow_to_start() {
    let server = TestServer::start(|_, s| {
        std::thread::sleep(Duration::from_millis(2600));
        stream_answer(s, &[&plan_text()]);
    });
    let notices: Arc<Mutex<Vec<WaitNotice>>> = Arc::default();
    let seen = notices.clone();
    let p = RemotePlanner::new(Server::new(&server.url, "big-model").with_kind(ServerKind::Ollama))
        .with_on_wait(Some(Arc::new(move |n| seen.lock().unwrap().push(n))));
    let (result, _) = plan_with(&p, Duration::from_secs(20));
    result.unwrap();
    let notices = notices.lock().unwrap();
    assert_eq!(notices.len(), 2, "{notices:?}");
    let first = &notices[0];
    assert!(!first.answered && first.cold, "{first:?}");
    assert!(first.waited >= Duration::from_secs(2), "{first:?}");
    assert_eq!(
        (first.kind, first.model.as_str()),
        (ServerKind::Ollama, "big-model")
    );
    assert_eq!(first.message(), "Waiting for Ollama to load big-model…");
    assert!(notices[1].answered, "{:?}", notices[1]);
}

#[test]
fn a_quick_server_sends_no_wait_notice_and_warm_up_asks_once() {
    let server = TestServer::start(|_, s| stream_answer(s, &["OK"]));
    let notices: Arc<Mutex<Vec<WaitNotice>>> = Arc::default();
    let seen = notices.clone();
    let p = planner(&server.url, ServerKind::Other)
        .with_on_wait(Some(Arc::new(move |n| seen.lock().unwrap().push(n))));
    let c = catalog();
    p.warm_up(&c, Instant::now() + Duration::from_secs(10));
    assert!(p.is_warm());
    p.warm_up(&c, Instant::now() + Duration::from_secs(10));
    assert_eq!(server.received().len(), 1);
    assert_eq!(server.received()[0].json()["max_tokens"], 1);
    assert!(notices.lock().unwrap().is_empty());
}

#[test]
fn a_deadline_already_past_sends_nothing() {
    let server = TestServer::start(|_, s| stream_answer(s, &[&plan_text()]));
    let (result, _) = plan_with(&planner(&server.url, ServerKind::Other), Duration::ZERO);
    assert_eq!(result.unwrap_err(), PlannerError::Deadline);
    assert!(server.received().is_empty());
}

#[test]
fn a_server_that_is_down_is_a_model_error_naming_it() {
    let p = planner(&support::nothing_listens(), ServerKind::KoboldCpp);
    let (result, _) = plan_with(&p, Duration::from_secs(5));
    let m = result.unwrap_err();
    assert!(model(&m).starts_with("KoboldCpp at 127.0.0.1:"), "{m}");
    assert!(model(&m).contains("cannot be reached"), "{m}");
}

/// A plan request the server redirects — to a file, or even on its own
/// host — is a model error naming the refused redirect: a request with a
/// body is never sent again (the planner's thread used to panic on a
/// `Location` without a host).
#[test]
fn a_redirected_plan_request_is_a_model_error_not_a_panic() {
    for location in ["file:///etc/passwd", "data:text/plain,x", "/v1/other"] {
        let server = TestServer::start(move |_, s| support::redirect(s, 307, location));
        let (result, _) = plan_with(
            &planner(&server.url, ServerKind::Other),
            Duration::from_secs(5),
        );
        let e = result.unwrap_err();
        assert!(model(&e).contains("redirect that is not followed"), "{e}");
        assert_eq!(server.received().len(), 1, "sent once: {location}");
    }
}

/// A remote plan is held to the in-process planner's tool count
/// ([`MAX_MODEL_PLAN_TOOLS`]): a server writing 3,000 dice rolls (each once
/// run as a script) is refused with the reason, as is one tool too many;
/// the schema it is sent says so too.
#[test]
fn a_plan_with_more_tools_than_a_plan_may_use_is_invalid_output() {
    let rolls = |n: usize| {
        let tools: Vec<Value> = (0..n)
            .map(|i| json!({"toolId": format!("r{i}"), "toolPath": "dice-roller/roll-dice", "input": {"formula": "1d6"}}))
            .collect();
        json!({"tools": tools}).to_string()
    };
    let many = rolls(3000);
    assert!(many.len() < narratoria_remote::MAX_COMPLETION_BYTES);
    let e = outcome_of(move |s| {
        let pieces: Vec<&str> = many
            .as_bytes()
            .chunks(4096)
            .map(|c| std::str::from_utf8(c).unwrap())
            .collect();
        stream_answer(s, &pieces)
    });
    assert!(invalid(&e).contains("uses 3000 tools"), "{e}");
    assert!(
        invalid(&e).contains(&format!("at most {MAX_MODEL_PLAN_TOOLS}")),
        "{e}"
    );
    let one_too_many = rolls(MAX_MODEL_PLAN_TOOLS + 1);
    let e = outcome_of(move |s| stream_answer(s, &[&one_too_many]));
    assert!(invalid(&e).contains("at most"), "{e}");

    let enough = rolls(MAX_MODEL_PLAN_TOOLS);
    let server = TestServer::start(move |_, s| stream_answer(s, &[&enough]));
    let (result, _) = plan_with(
        &planner(&server.url, ServerKind::LlamaServer),
        Duration::from_secs(20),
    );
    assert_eq!(result.unwrap().plan.tools.len(), MAX_MODEL_PLAN_TOOLS);
    let sent = server.received()[0].json();
    assert_eq!(
        sent["response_format"]["json_schema"]["schema"]["properties"]["tools"]["maxItems"],
        MAX_MODEL_PLAN_TOOLS
    );
}

/// Plays a turn's planning as the app and the turn ask it: a warm-up when
/// the planner is chosen, one when the turn begins (each allowed `warm_up`
/// by the caller), then five attempts, each given the planner's own plan
/// time. Returns how long it all took and what each plan came to.
fn turn_of_planning(
    p: &RemotePlanner,
    warm_ups: usize,
    warm_up: Duration,
) -> (Duration, Vec<PlannerError>) {
    let catalog = catalog();
    let state = Map::new();
    let started = Instant::now();
    for _ in 0..warm_ups {
        p.warm_up(&catalog, Instant::now() + warm_up);
    }
    let mut errors = Vec::new();
    for attempt in 1..=5 {
        let request = PlanRequest {
            attempt,
            ..PlanRequest::first(
                "I attack the goblin",
                &catalog,
                &state,
                Instant::now() + p.plan_time(),
            )
        };
        errors.push(
            p.plan(&request, &mut |_| {})
                .expect_err("the server never answers"),
        );
    }
    (started.elapsed(), errors)
}

/// A server that lists its models (so it can be chosen) but never answers a
/// completion once held one turn 480 s: each warm-up, plan and replan had
/// its own time and the cold-load allowance came back after every miss.
/// Now the turn's planning has one budget — the plan time, and the
/// allowance once (docs/models.md) — and the next turn the plan time alone.
#[test]
fn a_silent_server_holds_a_turns_whole_planning_to_one_budget() {
    let server = TestServer::start(|r, s| {
        if r.path.ends_with("/models") {
            support::models_answer(s, &["test-model"], "library");
        } else {
            std::thread::sleep(Duration::from_secs(15));
        }
    });
    let options = PlannerOptions {
        plan_time: Duration::from_millis(300),
        cold_load: Duration::from_millis(700),
        ..PlannerOptions::default()
    };
    let remote = Server::new(&server.url, "test-model").with_kind(ServerKind::Ollama);
    assert!(remote.check().unwrap().model_listed);
    let p = RemotePlanner::new(remote).with_options(options);
    let bound = options.plan_time + options.cold_load;
    assert_eq!(p.plan_time(), bound);

    let (took, errors) = turn_of_planning(&p, 2, Duration::from_secs(2));
    assert!(took <= bound + MARGIN, "the turn's planning took {took:?}");
    assert!(
        errors.iter().all(|e| *e == PlannerError::Deadline),
        "{errors:?}"
    );

    let (took, errors) = turn_of_planning(&p, 1, Duration::from_secs(2));
    assert!(
        took <= options.plan_time + MARGIN,
        "the next turn's planning took {took:?}: the allowance is given once"
    );
    assert!(
        errors.iter().all(|e| *e == PlannerError::Deadline),
        "{errors:?}"
    );
    assert_eq!(p.plan_time(), options.plan_time);
}
