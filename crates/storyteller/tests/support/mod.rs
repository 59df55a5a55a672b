//! Test support: a sandboxed skills folder run by `narratoria run-plan`, and a
//! tiny HTTP server on 127.0.0.1 that speaks the hosted providers' streaming
//! wire formats.

#![allow(dead_code)]

use std::collections::HashMap;
use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

pub const MODEL_FILE: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The `narratoria` binary, next to this package's binary in the target folder.
pub fn narratoria() -> PathBuf {
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_narrate")).parent().unwrap();
    let exe = bin_dir.join("narratoria");
    assert!(
        exe.is_file(),
        "{} is missing: build it first with `cargo build -p narratoria-cli` (same CARGO_TARGET_DIR)",
        exe.display()
    );
    exe
}

/// The default model fetched by scripts/fetch-model.sh.
pub fn default_model() -> PathBuf {
    let p = repo().join("models").join(MODEL_FILE);
    assert!(
        p.is_file(),
        "the default model is missing at {}: run scripts/fetch-model.sh",
        p.display()
    );
    p.canonicalize().unwrap()
}

/// A temporary folder holding `skills/storyteller` (a copy of the skill and
/// the compiled script) and `skills/fake-dice` (a shell script answering with
/// a fixed dice roll); `HOME` for the runs points inside it, so no user data
/// folder of the machine is seen.
pub struct Sandbox {
    pub dir: tempfile::TempDir,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        let src = repo().join("skills/storyteller");
        let dst = dir.path().join("skills/storyteller");
        fs::create_dir_all(dst.join("scripts")).unwrap();
        for f in ["skill.json", "prompt.md", "config-schema.json"] {
            fs::copy(src.join(f), dst.join(f))
                .unwrap_or_else(|e| panic!("{}/{f}: {e}", src.display()));
        }
        fs::copy(env!("CARGO_BIN_EXE_narrate"), dst.join("scripts/narrate")).unwrap();

        let dice = dir.path().join("skills/fake-dice");
        fs::create_dir_all(dice.join("scripts")).unwrap();
        fs::write(
            dice.join("skill.json"),
            json!({"name": "fake-dice", "version": "1.0.0",
                   "description": "A fixed dice roll for tests.",
                   "scripts": {"roll": {"description": "Always 17 against 15: a narrow success."}}})
            .to_string(),
        )
        .unwrap();
        let script = dice.join("scripts/roll");
        fs::write(
            &script,
            "#!/bin/sh\ncat >/dev/null\nprintf '%s\\n' '{\"type\":\"done\",\"ok\":true,\"output\":{\"formula\":\"1d20+3\",\"rolls\":[14],\"total\":17,\"dc\":15,\"outcome\":\"success\",\"margin\":2,\"reason\":\"Sneak past the gate guard\"}}'\n",
        )
        .unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
        }
        fs::create_dir_all(dir.path().join("home")).unwrap();
        Sandbox { dir }
    }

    pub fn skills(&self) -> PathBuf {
        self.dir.path().join("skills")
    }

    pub fn skill_dir(&self) -> PathBuf {
        self.skills().join("storyteller")
    }

    /// Puts the default model where the skill looks by default:
    /// `<skill folder>/../../models/` (a symlink to the repository's copy).
    pub fn with_default_model(&self) -> &Sandbox {
        let models = self.dir.path().join("models");
        fs::create_dir_all(&models).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(default_model(), models.join(MODEL_FILE)).unwrap();
        self
    }

    /// Writes the storyteller's `config.json`.
    pub fn config(&self, config: Value) -> &Sandbox {
        fs::write(self.skill_dir().join("config.json"), config.to_string()).unwrap();
        self
    }

    fn plan_file(&self, tools: &Value) -> PathBuf {
        let n = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let p = self.dir.path().join(format!("plan-{n}.json"));
        let plan = json!({"requestId": "6f1c2a4e-0000-4000-8000-000000000002", "tools": tools});
        fs::write(&p, plan.to_string()).unwrap();
        p
    }

    fn command(&self, tools: &Value, state: Option<&Value>) -> Command {
        let plan = self.plan_file(tools);
        let mut cmd = Command::new(narratoria());
        cmd.arg("run-plan")
            .arg(&plan)
            .arg("--skills")
            .arg(self.skills())
            .arg("--plan-timeout-ms")
            .arg("170000")
            .env("HOME", self.dir.path().join("home"))
            .env_remove("NARRATORIA_HOME")
            .env_remove("XDG_DATA_HOME")
            .env_remove("NARRATORIA_MODEL");
        if let Some(state) = state {
            let p = self.dir.path().join("state.json");
            fs::write(&p, state.to_string()).unwrap();
            cmd.arg("--state").arg(p);
        }
        cmd
    }

    /// Runs `tools` as one plan; returns the ExecutionResult and the raw stdout and stderr.
    pub fn run(&self, tools: Value, state: Option<Value>) -> Run {
        let out = self.command(&tools, state.as_ref()).output().unwrap();
        Run::parse(
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// Runs `tools` with live events on stderr; `on_event` sees each event
    /// line as it is printed (from another thread).
    pub fn run_live(
        &self,
        tools: Value,
        state: Option<Value>,
        mut on_event: impl FnMut(&str) + Send + 'static,
    ) -> Run {
        let mut cmd = self.command(&tools, state.as_ref());
        cmd.arg("--events")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        let stderr = child.stderr.take().unwrap();
        let reader = std::thread::spawn(move || {
            let mut all = String::new();
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                on_event(&line);
                all.push_str(&line);
                all.push('\n');
            }
            all
        });
        let mut stdout = String::new();
        child
            .stdout
            .take()
            .unwrap()
            .read_to_string(&mut stdout)
            .unwrap();
        child.wait().unwrap();
        let stderr = reader.join().unwrap();
        Run::parse(stdout, stderr)
    }

    /// Runs the compiled script directly (no executor, so nothing scrubs its
    /// output) with `envelope` on stdin; returns (stdout, stderr).
    pub fn run_script(&self, envelope: Value) -> (String, String) {
        let mut child = Command::new(self.skill_dir().join("scripts/narrate"))
            .current_dir(self.skill_dir())
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.dir.path().join("home"))
            .env("NARRATORIA_SKILL_DIR", self.skill_dir())
            .env("NARRATORIA_DATA_DIR", self.skill_dir().join("data"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(format!("{envelope}\n").as_bytes()).unwrap();
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

/// One `run-plan` run.
pub struct Run {
    pub result: Value,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    fn parse(stdout: String, stderr: String) -> Run {
        let result = serde_json::from_str(&stdout).unwrap_or_else(|e| {
            panic!("run-plan printed no result ({e})\nstdout: {stdout}\nstderr: {stderr}")
        });
        Run {
            result,
            stdout,
            stderr,
        }
    }

    /// A tool's record in the trace.
    pub fn tool(&self, id: &str) -> &Value {
        self.result["executionTrace"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["toolId"] == id)
            .unwrap_or_else(|| panic!("no tool {id} in {:#}", self.result))
    }

    /// The output of a tool that must have succeeded.
    pub fn output(&self, id: &str) -> &Value {
        let t = self.tool(id);
        assert_eq!(t["ok"], true, "tool {id} failed: {t:#}");
        &t["output"]
    }

    /// A tool's events of one type, in order.
    pub fn events(&self, id: &str, kind: &str) -> Vec<&Value> {
        self.tool(id)["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["type"] == kind)
            .collect()
    }

    /// The text of each `narration_delta`, in order.
    pub fn deltas(&self, id: &str) -> Vec<String> {
        self.events(id, "ui_event")
            .into_iter()
            .filter(|e| e["event"] == "narration_delta")
            .map(|e| e["payload"]["text"].as_str().unwrap().to_string())
            .collect()
    }

    /// The codes of a tool's `error` events, in order.
    pub fn error_codes(&self, id: &str) -> Vec<String> {
        self.events(id, "error")
            .into_iter()
            .map(|e| e["code"].as_str().unwrap().to_string())
            .collect()
    }

    /// A tool's warnings, in order.
    pub fn warnings(&self, id: &str) -> Vec<String> {
        self.events(id, "log")
            .into_iter()
            .filter(|e| e["level"] == "warn")
            .map(|e| e["message"].as_str().unwrap().to_string())
            .collect()
    }
}

/// A plan tool.
pub fn tool(id: &str, path: &str, input: Value, deps: &[&str]) -> Value {
    json!({"toolId": id, "toolPath": path, "input": input, "dependencies": deps,
           "required": true, "retryPolicy": {"maxRetries": 0, "backoffMs": 10}})
}

// ---------------------------------------------------------------------------
// The mock provider
// ---------------------------------------------------------------------------

/// One canned answer.
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    /// Written in order, each flushed, with a pause between them.
    pub frames: Vec<String>,
    /// After frame `.1`, wait for a signal on `.0` (at most 20 s) before the rest.
    pub gate: Option<(Receiver<()>, usize)>,
}

impl Reply {
    /// An error answer with a JSON body.
    pub fn error(status: u16, body: Value) -> Reply {
        Reply {
            status,
            headers: vec![("Content-Type".into(), "application/json".into())],
            frames: vec![body.to_string()],
            gate: None,
        }
    }

    /// A Server-Sent Events answer.
    pub fn sse(frames: Vec<String>) -> Reply {
        Reply {
            status: 200,
            headers: vec![
                ("Content-Type".into(), "text/event-stream".into()),
                ("Cache-Control".into(), "no-cache".into()),
            ],
            frames,
            gate: None,
        }
    }

    pub fn gated(mut self, gate: Receiver<()>, after_frame: usize) -> Reply {
        self.gate = Some((gate, after_frame));
        self
    }

    pub fn header(mut self, name: &str, value: &str) -> Reply {
        self.headers.push((name.into(), value.into()));
        self
    }
}

/// OpenAI Chat Completions chunks for `pieces`, then `[DONE]`.
pub fn openai_frames(pieces: &[&str]) -> Vec<String> {
    let chunk = |delta: Value, finish: Value| {
        format!(
            "data: {}\n\n",
            json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1,
                   "model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        )
    };
    let mut out = vec![chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    )];
    out.extend(
        pieces
            .iter()
            .map(|p| chunk(json!({"content": p}), Value::Null)),
    );
    out.push(chunk(json!({}), json!("stop")));
    out.push("data: [DONE]\n\n".into());
    out
}

/// Anthropic Messages events for `pieces`.
pub fn anthropic_frames(pieces: &[&str]) -> Vec<String> {
    let ev = |name: &str, data: Value| format!("event: {name}\ndata: {data}\n\n");
    let mut out = vec![
        ev(
            "message_start",
            json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": [], "model": "m"}}),
        ),
        ev(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        ev("ping", json!({"type": "ping"})),
    ];
    out.extend(pieces.iter().map(|p| {
        ev(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}}),
        )
    }));
    out.push(ev(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": 0}),
    ));
    out.push(ev("message_delta", json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 9}})));
    out.push(ev("message_stop", json!({"type": "message_stop"})));
    out
}

/// A request the server received.
#[derive(Debug, Clone)]
pub struct Received {
    pub method: String,
    pub path: String,
    /// Lower-case names.
    pub headers: HashMap<String, String>,
    pub body: Value,
}

/// A server on 127.0.0.1 that answers one request per [`Reply`], in order,
/// then stops; it also stops after 60 s without a connection.
pub struct MockServer {
    pub addr: SocketAddr,
    received: Arc<Mutex<Vec<Received>>>,
    handle: Option<JoinHandle<Vec<bool>>>,
}

impl MockServer {
    pub fn start(replies: Vec<Reply>) -> MockServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let received = Arc::new(Mutex::new(Vec::new()));
        let rec = Arc::clone(&received);
        let handle = std::thread::spawn(move || {
            let mut gates_opened = Vec::new();
            for reply in replies {
                let deadline = Instant::now() + Duration::from_secs(60);
                let stream = loop {
                    match listener.accept() {
                        Ok((s, _)) => break Some(s),
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                            if Instant::now() >= deadline {
                                break None;
                            }
                            std::thread::sleep(Duration::from_millis(10));
                        }
                        Err(_) => break None,
                    }
                };
                let Some(stream) = stream else { break };
                if let Some((req, opened)) = serve_one(stream, reply) {
                    rec.lock().unwrap().push(req);
                    gates_opened.push(opened);
                }
            }
            gates_opened
        });
        MockServer {
            addr,
            received,
            handle: Some(handle),
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// The requests received so far.
    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    /// Waits for the server to finish; returns, for each reply served,
    /// whether its gate was opened by a signal (true) rather than by the 20 s
    /// wait, and every request received.
    pub fn finish(mut self) -> (Vec<bool>, Vec<Received>) {
        let gates = self.handle.take().unwrap().join().unwrap();
        (gates, self.received())
    }
}

fn serve_one(mut stream: TcpStream, reply: Reply) -> Option<(Received, bool)> {
    stream.set_nonblocking(false).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = stream.read(&mut chunk).ok()?;
        if n == 0 || buf.len() > 1 << 20 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let method = first.next()?.to_string();
    let path = first.next()?.to_string();
    let headers: HashMap<String, String> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_lowercase(), v.trim().to_string()))
        .collect();
    let len: usize = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + len {
        let n = stream.read(&mut chunk).ok()?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let body = serde_json::from_slice(&buf[head_end..]).unwrap_or(Value::Null);
    let req = Received {
        method,
        path,
        headers,
        body,
    };

    let reason = match reply.status {
        200 => "OK",
        401 => "Unauthorized",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        _ => "Status",
    };
    let mut head = format!(
        "HTTP/1.1 {} {reason}\r\nConnection: close\r\n",
        reply.status
    );
    for (k, v) in &reply.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    if reply.status != 200 {
        let body_len: usize = reply.frames.iter().map(String::len).sum();
        head.push_str(&format!("Content-Length: {body_len}\r\n"));
    }
    head.push_str("\r\n");
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.flush();
    let mut opened = false;
    for (i, frame) in reply.frames.iter().enumerate() {
        if stream.write_all(frame.as_bytes()).is_err() {
            break;
        }
        let _ = stream.flush();
        if let Some((gate, after)) = &reply.gate {
            if i == *after {
                opened = match gate.recv_timeout(Duration::from_secs(20)) {
                    Ok(()) => true,
                    Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => false,
                };
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = stream.shutdown(std::net::Shutdown::Both);
    Some((req, opened))
}

/// A port on 127.0.0.1 where nothing listens.
pub fn dead_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    drop(l);
    port
}
