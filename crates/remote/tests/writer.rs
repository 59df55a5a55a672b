//! The remote writer against a stand-in server on 127.0.0.1: streaming in
//! order, deadlines, cancel, failures.

mod support;

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use narratoria_core::host::{Generator, Written};
use narratoria_core::protocol::{FinishReason, GenerateRequest, GenerationError, Message, Role};
use narratoria_remote::{RemoteWriter, Server, ServerKind, WriterOptions};
use serde_json::json;
use support::{chunk, respond, start_events, stream_answer, TestServer};

/// How late past its deadline (or its cancel) a request may return on a busy machine.
const MARGIN: Duration = Duration::from_millis(600);

fn request() -> GenerateRequest {
    GenerateRequest {
        id: "g1".into(),
        messages: vec![
            Message {
                role: Role::System,
                content: "You tell stories.".into(),
            },
            Message {
                role: Role::User,
                content: "Begin.".into(),
            },
        ],
        max_tokens: 5000,
        temperature: Some(0.7),
        stop: vec!["\n\n".into()],
        json_schema: None,
        avoid: Vec::new(),
        stream: true,
    }
}

fn write(
    writer: &RemoteWriter,
    request: &GenerateRequest,
    cancel: &Arc<AtomicBool>,
    within: Duration,
) -> (Result<Written, GenerationError>, Vec<String>) {
    let mut pieces = Vec::new();
    let result = writer.generate(
        request,
        &mut |p| pieces.push(p.to_string()),
        cancel,
        Instant::now() + within,
    );
    (result, pieces)
}

/// A server that sends a piece every 100 ms until the client leaves.
fn endless() -> TestServer {
    TestServer::start(|_, s| {
        if !start_events(s) {
            return;
        }
        for i in 0..600 {
            if s.write_all(chunk(&format!("w{i} ")).as_bytes()).is_err() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    })
}

#[test]
fn pieces_stream_in_order() {
    let server = TestServer::start(|_, s| stream_answer(s, &["Once", " upon", " a", " time"]));
    let writer = RemoteWriter::new(
        Server::new(&server.url, "writer-model").with_kind(ServerKind::LlamaServer),
    );
    let (result, pieces) = write(
        &writer,
        &request(),
        &Arc::default(),
        Duration::from_secs(10),
    );
    let written = result.unwrap();
    assert_eq!(pieces, ["Once", " upon", " a", " time"]);
    assert_eq!(written.text, "Once upon a time");
    assert_eq!(written.finish_reason, FinishReason::Stop);
    assert_eq!(
        (written.usage.prompt_tokens, written.usage.completion_tokens),
        (42, 7)
    );
    let body = server.received()[0].json();
    assert_eq!(body["stream"], true);
    assert_eq!(body["model"], "writer-model");
    assert_eq!(body["max_tokens"], 1024, "bounded by the offer");
    assert_eq!(body["stop"], json!(["\n\n"]));
    assert_eq!(body["messages"][0]["role"], "system");
    assert_eq!(body["messages"][1]["content"], "Begin.");
    assert!(body.get("response_format").is_none());
}

#[test]
fn a_json_schema_is_sent_as_response_format() {
    let server = TestServer::start(|_, s| stream_answer(s, &["{\"a\":1}"]));
    let writer = RemoteWriter::new(Server::new(&server.url, "m").with_kind(ServerKind::Ollama));
    let schema = json!({"type": "object", "properties": {"a": {"type": "integer"}}});
    let request = GenerateRequest {
        json_schema: Some(schema.clone()),
        avoid: Vec::new(),
        ..request()
    };
    let (result, _) = write(&writer, &request, &Arc::default(), Duration::from_secs(10));
    assert_eq!(result.unwrap().text, "{\"a\":1}");
    let body = server.received()[0].json();
    assert_eq!(body["response_format"]["json_schema"]["schema"], schema);
    assert_eq!(body["format"], schema);
}

#[test]
fn the_deadline_ends_a_stream_with_the_text_so_far() {
    let server = endless();
    let writer = RemoteWriter::new(Server::new(&server.url, "m"));
    let given = Duration::from_millis(900);
    let started = Instant::now();
    let (result, pieces) = write(&writer, &request(), &Arc::default(), given);
    let took = started.elapsed();
    let written = result.unwrap();
    assert_eq!(written.finish_reason, FinishReason::Deadline);
    assert!(took < given + MARGIN, "returned after {took:?}");
    assert!(!pieces.is_empty());
    assert_eq!(written.text, pieces.concat());
    assert!(written.text.starts_with("w0 w1 "), "{}", written.text);
}

#[test]
fn a_cancel_ends_a_stream_soon() {
    let server = endless();
    let writer = RemoteWriter::new(Server::new(&server.url, "m"));
    let cancel = Arc::new(AtomicBool::new(false));
    let flag = cancel.clone();
    let cancelled_at = Arc::new(std::sync::Mutex::new(None));
    let at = cancelled_at.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(500));
        *at.lock().unwrap() = Some(Instant::now());
        flag.store(true, Ordering::Relaxed);
    });
    let (result, _) = write(&writer, &request(), &cancel, Duration::from_secs(20));
    let returned = Instant::now();
    let written = result.unwrap();
    assert_eq!(written.finish_reason, FinishReason::Cancelled);
    let cancelled = cancelled_at.lock().unwrap().expect("the cancel was set");
    assert!(
        returned - cancelled < MARGIN,
        "returned {:?} after the cancel",
        returned - cancelled
    );
}

#[test]
fn a_cancel_ends_a_wait_for_the_first_byte() {
    let server = TestServer::start(|_, s| {
        std::thread::sleep(Duration::from_secs(8));
        stream_answer(s, &["late"]);
    });
    let writer = RemoteWriter::new(Server::new(&server.url, "m"));
    let cancel = Arc::new(AtomicBool::new(false));
    let flag = cancel.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        flag.store(true, Ordering::Relaxed);
    });
    let started = Instant::now();
    let (result, pieces) = write(&writer, &request(), &cancel, Duration::from_secs(20));
    assert_eq!(result.unwrap().finish_reason, FinishReason::Cancelled);
    assert!(pieces.is_empty());
    assert!(started.elapsed() < Duration::from_millis(300) + MARGIN);
}

#[test]
fn max_tokens_reached_is_length() {
    let server = TestServer::start(|_, s| {
        if start_events(s) {
            let end = json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "length"}]});
            let _ = write!(s, "{}data: {end}\n\ndata: [DONE]\n\n", chunk("Once"));
        }
    });
    let writer = RemoteWriter::new(Server::new(&server.url, "m"));
    let (result, _) = write(
        &writer,
        &request(),
        &Arc::default(),
        Duration::from_secs(10),
    );
    assert_eq!(result.unwrap().finish_reason, FinishReason::Length);
}

#[test]
fn the_offer_describes_the_remote_model() {
    let writer = RemoteWriter::new(Server::new("http://127.0.0.1:11434/v1", "llama3"))
        .with_options(WriterOptions {
            context_tokens: 32768,
            max_tokens: 600,
            parameters: Some(8_000_000_000),
            temperature: 0.8,
        });
    let offer = writer.offer();
    assert_eq!(offer.model, "llama3");
    assert_eq!(offer.context_tokens, 32768);
    assert_eq!(offer.max_tokens, 600);
    assert_eq!(offer.parameters, Some(8_000_000_000));
    assert_eq!(
        writer.runs_on().as_deref(),
        Some("on Ollama at 127.0.0.1:11434")
    );
}

#[test]
fn failures_carry_protocol_codes() {
    let server = TestServer::start(|r, s| match r.path.as_str() {
        "/a/v1/chat/completions" => respond(
            s,
            404,
            "application/json",
            r#"{"error":"model \"m\" not found, try pulling it first"}"#,
        ),
        "/b/v1/chat/completions" => respond(s, 503, "text/plain", "loading"),
        "/d/v1/chat/completions" => support::redirect(s, 302, "file:///etc/passwd"),
        _ => respond(s, 401, "application/json", "{}"),
    });
    let code = |prefix: &str| {
        let writer = RemoteWriter::new(Server::new(
            server.url.replace("/v1", &format!("/{prefix}/v1")),
            "m",
        ));
        let (result, _) = write(
            &writer,
            &request(),
            &Arc::default(),
            Duration::from_secs(10),
        );
        result.unwrap_err().code
    };
    assert_eq!(code("a"), "NOT_FOUND");
    assert_eq!(code("b"), "EXTERNAL_SERVICE_ERROR");
    assert_eq!(code("c"), "UNAUTHORIZED");
    assert_eq!(
        code("d"),
        "VALIDATION_ERROR",
        "a redirect is never followed"
    );
    let writer = RemoteWriter::new(Server::new(support::nothing_listens(), "m"));
    let (result, _) = write(&writer, &request(), &Arc::default(), Duration::from_secs(5));
    assert_eq!(result.unwrap_err().code, "EXTERNAL_SERVICE_ERROR");
    let empty = GenerateRequest {
        messages: Vec::new(),
        ..request()
    };
    let (result, _) = write(&writer, &empty, &Arc::default(), Duration::from_secs(5));
    assert_eq!(result.unwrap_err().code, "VALIDATION_ERROR");
}

#[test]
fn a_key_echoed_into_the_text_is_masked_even_split() {
    const KEY: &str = "sk-writer-secret-77";
    let server = TestServer::start(|_, s| {
        stream_answer(s, &["The key: sk-wri", "ter-sec", "ret-77. Done."])
    });
    let writer = RemoteWriter::new(Server::new(&server.url, "m").with_api_key(Some(KEY.into())));
    let (result, pieces) = write(
        &writer,
        &request(),
        &Arc::default(),
        Duration::from_secs(10),
    );
    let written = result.unwrap();
    assert_eq!(written.text, "The key: ••••••••. Done.");
    assert_eq!(pieces.concat(), written.text);
}
