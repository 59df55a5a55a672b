//! Serving one attempt's `generate` requests: at most one in flight, bounded
//! by the host's `maxTokens` and the tool's time limit, replies written to the
//! script's stdin through a bounded buffer that never blocks the host, and a
//! transcript of each request kept for the trace (without the prompt itself).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use tokio::sync::mpsc::Sender;

use super::{Generator, Written};
use crate::protocol::{
    Completion, GenerateRequest, Generated, GenerationError, HostCapabilities, HostMessage, Reply,
    Violation,
};

/// Replies buffered for a script before a request is cancelled because the
/// script does not read its stdin.
pub const REPLY_BUFFER: usize = 1024;

/// What a skill that declared the `generate` capability is offered.
#[derive(Clone, Default)]
pub struct HostLink {
    /// The loaded model; `None` when the host has none (requests then fail).
    pub generator: Option<Arc<dyn Generator>>,
}

impl std::fmt::Debug for HostLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostLink")
            .field("generator", &self.generator.as_ref().map(|g| g.offer()))
            .finish()
    }
}

impl HostLink {
    /// The envelope's `host` field.
    pub fn capabilities(&self) -> HostCapabilities {
        HostCapabilities {
            generate: self.generator.as_ref().map(|g| g.offer()),
        }
    }
}

/// The generation side of one running attempt.
pub struct Serving {
    link: HostLink,
    replies: Sender<Vec<u8>>,
    deadline: Instant,
    in_flight: Arc<AtomicBool>,
    /// The attempt has ended: no request is written any more.
    finished: Arc<AtomicBool>,
    /// The last request's id and what stops it.
    current: Mutex<Option<(String, Arc<AtomicBool>)>>,
    records: Arc<Mutex<Vec<Map<String, Value>>>>,
    /// When the attempt began: a transcript's `atMs` counts from here.
    began: Instant,
}

impl Serving {
    /// Serves requests until `deadline`, writing replies into `replies`.
    pub fn new(link: HostLink, replies: Sender<Vec<u8>>, deadline: Instant) -> Serving {
        Serving {
            link,
            replies,
            deadline,
            in_flight: Arc::new(AtomicBool::new(false)),
            finished: Arc::new(AtomicBool::new(false)),
            current: Mutex::new(None),
            records: Arc::new(Mutex::new(Vec::new())),
            began: Instant::now(),
        }
    }

    /// Starts serving `request`. A second request while one is in flight, or
    /// one asking for more than the host's `maxTokens`, breaks the protocol.
    pub fn request(&self, request: GenerateRequest) -> Result<(), Violation> {
        let bad = |field: &str, problem: String| Violation::BadField {
            event: "generate".into(),
            field: field.into(),
            problem,
        };
        if request.messages.is_empty() {
            return Err(bad("messages", "must hold at least one message".into()));
        }
        let Some(generator) = self.link.generator.clone() else {
            let error = GenerationError {
                code: "NOT_FOUND".into(),
                message: "the host has no model loaded".into(),
            };
            self.record(&request, Err(&error), 0);
            send(&self.replies, &request.id, Reply::Failed { error });
            return Ok(());
        };
        let most = generator.offer().max_tokens;
        if request.max_tokens == 0 || request.max_tokens > most {
            return Err(bad(
                "maxTokens",
                format!("must be 1 to {most} (the host's maxTokens)"),
            ));
        }
        if self.in_flight.swap(true, Ordering::SeqCst) {
            return Err(bad(
                "id",
                format!(
                    "request {:?} came while another was in flight (one at a time)",
                    request.id
                ),
            ));
        }
        let replies = self.replies.clone();
        let cancel = Arc::new(AtomicBool::new(self.finished.load(Ordering::SeqCst)));
        *self.current.lock().unwrap_or_else(|p| p.into_inner()) =
            Some((request.id.clone(), Arc::clone(&cancel)));
        let (in_flight, records) = (self.in_flight.clone(), self.records.clone());
        let deadline = self.deadline;
        let began = self.began;
        tokio::task::spawn_blocking(move || {
            let started = Instant::now();
            let at_ms = started.saturating_duration_since(began).as_millis() as u64;
            let stream = request.stream;
            let result = generator.generate(
                &request,
                &mut |piece| {
                    if stream
                        && !send(
                            &replies,
                            &request.id,
                            Reply::Delta {
                                delta: piece.into(),
                            },
                        )
                    {
                        // The script is not reading: give up rather than block.
                        cancel.store(true, Ordering::SeqCst);
                    }
                },
                &cancel,
                deadline,
            );
            let ms = started.elapsed().as_millis() as u64;
            let entry = transcript(&request, result.as_ref(), at_ms, ms);
            records
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(entry);
            let reply = match result {
                Ok(Written {
                    text,
                    finish_reason,
                    usage,
                }) => Reply::Done(Completion {
                    done: Default::default(),
                    text,
                    finish_reason,
                    usage,
                }),
                Err(error) => Reply::Failed { error },
            };
            in_flight.store(false, Ordering::SeqCst);
            send(&replies, &request.id, reply);
        });
        Ok(())
    }

    /// Stops request `id` if it is still being written: it ends with what
    /// it wrote so far (`finishReason: "cancelled"`), its reply sent as
    /// usual. A request already finished, or never made, is left as it is
    /// (the script may not yet have read its end).
    pub fn cancel(&self, id: &str) {
        let current = self.current.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((asked, stop)) = current.as_ref() {
            if asked == id && self.in_flight.load(Ordering::SeqCst) {
                stop.store(true, Ordering::SeqCst);
            }
        }
    }

    /// Stops any request still being written and returns the transcripts of
    /// every request of the attempt, in the order they finished.
    pub fn finish(&self) -> Vec<Map<String, Value>> {
        self.finished.store(true, Ordering::SeqCst);
        if let Some((_, stop)) = self
            .current
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
        {
            stop.store(true, Ordering::SeqCst);
        }
        std::mem::take(&mut *self.records.lock().unwrap_or_else(|p| p.into_inner()))
    }

    fn record(
        &self,
        request: &GenerateRequest,
        result: Result<&Written, &GenerationError>,
        ms: u64,
    ) {
        let at_ms = self.began.elapsed().as_millis() as u64;
        let entry = transcript(request, result, at_ms, ms);
        self.records
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(entry);
    }
}

/// Queues one reply line; false when the buffer is full or the script is gone.
fn send(replies: &Sender<Vec<u8>>, id: &str, reply: Reply) -> bool {
    let message = HostMessage::Generated(Generated {
        id: id.to_string(),
        reply,
    });
    let mut line = serde_json::to_vec(&message).unwrap_or_default();
    line.push(b'\n');
    replies.try_send(line).is_ok()
}

/// The trace's record of one request: who asked what (as a hash, never the
/// prompt, which may quote the skill's settings), when it began (`atMs`, ms
/// into the attempt), what it cost, how it ended.
fn transcript(
    request: &GenerateRequest,
    result: Result<&Written, &GenerationError>,
    at_ms: u64,
    ms: u64,
) -> Map<String, Value> {
    let prompt = serde_json::to_vec(&request.messages).unwrap_or_default();
    let hash: String = Sha256::digest(&prompt)
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect();
    let mut entry = json!({
        "type": "generation",
        "id": request.id,
        "promptHash": hash,
        "messages": request.messages.len(),
        "maxTokens": request.max_tokens,
        "atMs": at_ms,
        "ms": ms,
    });
    match result {
        Ok(w) => {
            entry["finishReason"] = serde_json::to_value(w.finish_reason).unwrap_or(Value::Null);
            entry["usage"] = serde_json::to_value(w.usage).unwrap_or(Value::Null);
            entry["characters"] = json!(w.text.chars().count());
        }
        Err(e) => entry["error"] = json!({"code": e.code, "message": e.message}),
    }
    match entry {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}
