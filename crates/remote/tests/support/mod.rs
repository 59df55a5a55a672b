//! A stand-in for a remote server: an HTTP/1.1 listener on 127.0.0.1 that
//! records every request and answers it with a handler, a thread per
//! connection. Nothing here reaches the network. Also a small catalog.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use narratoria_core::skills::{Catalog, ManifestFormat, Skill, SkillScript};
use serde_json::{json, Value};

/// One request as the server got it.
#[derive(Debug, Clone)]
pub struct Received {
    pub method: String,
    pub path: String,
    /// Header names in lower case.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Received {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).expect("the request body is JSON")
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

type Handler = dyn Fn(&Received, &mut TcpStream) + Send + Sync;

/// A running stand-in server.
pub struct TestServer {
    /// Its API base: `http://127.0.0.1:PORT/v1`.
    pub url: String,
    received: Arc<Mutex<Vec<Received>>>,
}

impl TestServer {
    /// Starts a server answering every request with `handler`.
    pub fn start(
        handler: impl Fn(&Received, &mut TcpStream) + Send + Sync + 'static,
    ) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let received = Arc::new(Mutex::new(Vec::new()));
        let handler: Arc<Handler> = Arc::new(handler);
        let log = received.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let handler = handler.clone();
                let log = log.clone();
                std::thread::spawn(move || {
                    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
                    let _ = stream.set_write_timeout(Some(Duration::from_secs(30)));
                    let Some(request) = read_request(&mut stream) else {
                        return;
                    };
                    log.lock().unwrap().push(request.clone());
                    handler(&request, &mut stream);
                });
            }
        });
        TestServer { url, received }
    }

    /// Every request so far, in the order they came.
    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }
}

/// A URL where nothing listens (a port just given back).
pub fn nothing_listens() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    drop(listener);
    url
}

fn read_request(stream: &mut TcpStream) -> Option<Received> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if stream.read(&mut byte).ok()? != 1 {
            return None;
        }
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).to_string();
    let mut lines = head.lines();
    let mut first = lines.next()?.split_whitespace();
    let method = first.next()?.to_string();
    let path = first.next()?.to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let len = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = vec![0u8; len];
    stream.read_exact(&mut body).ok()?;
    Some(Received {
        method,
        path,
        headers,
        body: String::from_utf8_lossy(&body).to_string(),
    })
}

/// Writes a whole answer and closes.
pub fn respond(stream: &mut TcpStream, status: u16, content_type: &str, body: &str) {
    let _ = write!(
        stream,
        "HTTP/1.1 {status} X\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.flush();
}

/// Answers with a redirect: `status` and `location`, no body.
pub fn redirect(stream: &mut TcpStream, status: u16, location: &str) {
    let _ = write!(
        stream,
        "HTTP/1.1 {status} Moved\r\nlocation: {location}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
    );
    let _ = stream.flush();
}

/// Writes the head of a stream of events (the body follows until close).
pub fn start_events(stream: &mut TcpStream) -> bool {
    stream
        .write_all(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n",
        )
        .is_ok()
}

/// One `data:` event with a chat chunk carrying `content`.
pub fn chunk(content: &str) -> String {
    format!(
        "data: {}\n\n",
        json!({"choices": [{"index": 0, "delta": {"content": content}, "finish_reason": null}]})
    )
}

/// A whole streamed answer: `pieces` in chunks, a finish, usage, `[DONE]`.
pub fn stream_answer(stream: &mut TcpStream, pieces: &[&str]) {
    if !start_events(stream) {
        return;
    }
    let mut out = String::new();
    for p in pieces {
        out.push_str(&chunk(p));
    }
    out.push_str(&format!(
        "data: {}\n\n",
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    ));
    out.push_str(&format!(
        "data: {}\n\n",
        json!({"choices": [], "usage": {"prompt_tokens": 42, "completion_tokens": 7, "prompt_tokens_details": {"cached_tokens": 30}}})
    ));
    out.push_str("data: [DONE]\n\n");
    let _ = stream.write_all(out.as_bytes());
}

/// A model list answer with `ids`.
pub fn models_answer(stream: &mut TcpStream, ids: &[&str], owned_by: &str) {
    let data: Vec<Value> = ids
        .iter()
        .map(|id| json!({"id": id, "object": "model", "owned_by": owned_by}))
        .collect();
    respond(
        stream,
        200,
        "application/json",
        &json!({"object": "list", "data": data}).to_string(),
    );
}

fn script(skill: &str, name: &str, description: &str, schema: Value) -> SkillScript {
    SkillScript {
        name: name.into(),
        path: PathBuf::from(format!("/skills/{skill}/scripts/{name}")),
        is_executable: true,
        description: Some(description.into()),
        input_schema: Some(schema),
        timeout_seconds: None,
        examples: Vec::new(),
        counter_examples: Vec::new(),
        examples_by_language: Default::default(),
        counter_examples_by_language: Default::default(),
    }
}

fn skill(name: &str, description: &str, scripts: Vec<SkillScript>) -> Skill {
    Skill {
        name: name.into(),
        display_name: None,
        version: "1.0.0".into(),
        description: description.into(),
        author: None,
        license: None,
        format: ManifestFormat::SkillJson,
        dir: PathBuf::from(format!("/skills/{name}")),
        manifest_path: PathBuf::from(format!("/skills/{name}/skill.json")),
        scripts,
        prompt: Some(format!("# {name}\n\nUse {name} when it fits.")),
        config_schema: None,
        user_config: None,
        timeout_seconds: None,
        protocol: None,
        capabilities: Vec::new(),
        enabled: true,
        error_state: Default::default(),
    }
}

/// A catalog of two skills: `dice-roller/roll-dice` (input `formula`,
/// required) and `memory/recall-memory` (input `query`).
pub fn catalog() -> Catalog {
    let text =
        |p: &str| json!({"type": "object", "properties": {p: {"type": "string"}}, "required": [p]});
    Catalog::new(
        vec![PathBuf::from("/skills")],
        vec![
            skill(
                "dice-roller",
                "Rolls dice.",
                vec![script(
                    "dice-roller",
                    "roll-dice",
                    "Roll a dice formula like 1d20.",
                    text("formula"),
                )],
            ),
            skill(
                "memory",
                "Remembers the story.",
                vec![script(
                    "memory",
                    "recall-memory",
                    "Recall what happened.",
                    text("query"),
                )],
            ),
        ],
        Vec::new(),
        Vec::new(),
    )
}

/// A plan as a model would write it, rolling 1d20.
pub fn plan_text() -> String {
    json!({
        "narrative": "You swing at the goblin.",
        "tools": [{"toolId": "roll", "toolPath": "dice-roller/roll-dice", "input": {"formula": "1d20"}}]
    })
    .to_string()
}
