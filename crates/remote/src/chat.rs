//! One streamed chat completion (`POST {endpoint}/chat/completions` with
//! `"stream": true`): the request runs on its own thread and sends what it
//! reads back over a channel, while the caller's loop keeps the promises a
//! blocking read cannot — it returns by the deadline, soon after a cancel,
//! sends the wait notice, and bounds the text.
//!
//! A server that ignores `stream` and answers one JSON body is read too.
//! A request given up on (deadline, cancel, text bound) is left to its
//! thread, which stops at its next read (the receiver is gone) or at the
//! request's own time limit, the deadline: it never outlives it by much.

use std::io::BufReader;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::error::RemoteError;
use crate::http::{self, LineError, Lines, MAX_COMPLETION_BYTES, MAX_LINE_BYTES, MAX_STREAM_BYTES};
use crate::secret::StreamScrubber;
use crate::server::Server;
use crate::wait::{OnWait, WaitNotice, WAIT_NOTICE_AFTER};

/// How often the waiting loop looks at the cancel flag.
const TICK: Duration = Duration::from_millis(25);

/// What a completion cost, as the server reported it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct WireUsage {
    pub prompt_tokens: u32,
    pub cached_tokens: u32,
    pub completion_tokens: u32,
}

/// Why the text ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    /// The server ended it; `length` when it stopped at `max_tokens`.
    Finished { length: bool },
    /// The deadline came first.
    Deadline,
    /// The cancel flag was set.
    Cancelled,
    /// The text reached the caller's bound.
    TextLimit,
}

/// A completion as far as it went.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Reply {
    /// The text so far, the key masked.
    pub text: String,
    pub ending: Ending,
    pub usage: Option<WireUsage>,
    /// When the answer's first chunk came, from the request's start.
    pub first_byte: Option<Duration>,
    pub total: Duration,
}

/// One completion to ask for.
pub(crate) struct Ask<'a> {
    pub server: &'a Server,
    /// The request body (`stream: true` is the caller's to set).
    pub body: Value,
    pub deadline: Instant,
    pub cancel: Option<&'a AtomicBool>,
    /// The most text kept, in bytes (at most [`MAX_COMPLETION_BYTES`]).
    pub max_text: usize,
    pub on_wait: Option<&'a OnWait>,
    /// Whether the server is thought to be loading the model (for the notice).
    pub cold: bool,
}

enum Event {
    /// A chunk of the answer arrived (text or not).
    Alive,
    Delta(String),
    Usage(WireUsage),
    Finish(String),
    End,
    Failed(RemoteError),
}

/// Asks for the completion and passes each piece of its text to `on_delta`
/// in order. Returns by `deadline` (with [`Ending::Deadline`] and the text
/// so far), soon after `cancel` is set ([`Ending::Cancelled`]), or when the
/// text reaches `max_text` ([`Ending::TextLimit`]); a failure of the server
/// or of its answer is an error.
pub(crate) fn ask(a: Ask<'_>, on_delta: &mut dyn FnMut(&str)) -> Result<Reply, RemoteError> {
    let started = Instant::now();
    let max_text = a.max_text.min(MAX_COMPLETION_BYTES);
    let mut reply = Reply {
        text: String::new(),
        ending: Ending::Deadline,
        usage: None,
        first_byte: None,
        total: Duration::ZERO,
    };
    // Text the scrubber still holds when the answer is cut short is dropped:
    // it may be the start of the key, and the caller never saw it.
    let finish = |mut reply: Reply, ending: Ending| {
        reply.ending = ending;
        reply.total = started.elapsed();
        reply
    };
    let mut scrubber = StreamScrubber::new(a.server.key());
    if a.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
        return Ok(finish(reply, Ending::Cancelled));
    }
    let Some(timeout) = a
        .deadline
        .checked_duration_since(started)
        .filter(|t| !t.is_zero())
    else {
        return Ok(finish(reply, Ending::Deadline));
    };
    let (tx, rx) = mpsc::channel();
    let server = a.server.clone();
    let body = a.body;
    std::thread::Builder::new()
        .name("narratoria-remote".into())
        .spawn(move || exchange(&server, &body, timeout, &tx))
        .map_err(|e| RemoteError::Unreachable {
            server: a.server.label(),
            reason: format!("cannot start the request's thread: {e}"),
        })?;

    let mut noticed = false;
    let mut finish_reason: Option<String> = None;
    loop {
        let now = Instant::now();
        if a.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            return Ok(finish(reply, Ending::Cancelled));
        }
        if now >= a.deadline {
            return Ok(finish(reply, Ending::Deadline));
        }
        let waited = now - started;
        if !noticed && reply.first_byte.is_none() && waited >= WAIT_NOTICE_AFTER {
            noticed = true;
            if let Some(f) = a.on_wait {
                f(WaitNotice::new(a.server, waited, a.cold, false));
            }
        }
        let mut wake = a.deadline.min(now + TICK);
        if !noticed && reply.first_byte.is_none() {
            wake = wake.min(started + WAIT_NOTICE_AFTER);
        }
        let event = match rx.recv_timeout(wake.saturating_duration_since(now)) {
            Ok(e) => e,
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => {
                return Err(RemoteError::BadAnswer {
                    server: a.server.label(),
                    reason: "the request stopped without an end".into(),
                })
            }
        };
        match event {
            Event::Alive => {
                if reply.first_byte.is_none() {
                    reply.first_byte = Some(started.elapsed());
                    if noticed {
                        if let Some(f) = a.on_wait {
                            f(WaitNotice::new(a.server, started.elapsed(), a.cold, true));
                        }
                    }
                }
            }
            Event::Delta(piece) => {
                let room = max_text.saturating_sub(reply.text.len());
                let over = piece.len() > room;
                let piece = if over { cut(&piece, room) } else { &piece };
                let certain = scrubber.push(piece);
                if !certain.is_empty() {
                    on_delta(&certain);
                    reply.text.push_str(&certain);
                }
                if over {
                    return Ok(finish(reply, Ending::TextLimit));
                }
            }
            Event::Usage(u) => reply.usage = Some(u),
            Event::Finish(r) => finish_reason = Some(r),
            Event::End => {
                let held = scrubber.finish();
                if !held.is_empty() {
                    on_delta(&held);
                    reply.text.push_str(&held);
                }
                let length = finish_reason.as_deref() == Some("length");
                return Ok(finish(reply, Ending::Finished { length }));
            }
            Event::Failed(RemoteError::Timeout { .. }) => {
                return Ok(finish(reply, Ending::Deadline));
            }
            Event::Failed(e) => return Err(e),
        }
    }
}

/// `text` cut to at most `bytes` bytes, on a character boundary.
fn cut(text: &str, bytes: usize) -> &str {
    let mut end = bytes.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The request's thread: sends the POST and everything it reads to `tx`,
/// ending with [`Event::End`] or [`Event::Failed`]. Stops as soon as no one
/// listens.
fn exchange(server: &Server, body: &Value, timeout: Duration, tx: &Sender<Event>) {
    let started = Instant::now();
    let result = (|| -> Result<(), Option<RemoteError>> {
        let resp = http::post(server, "chat/completions", body, timeout)?;
        let send = |e: Event| tx.send(e).map_err(|_| None);
        if resp.content_type().contains("json") {
            let bytes = http::read_bounded(
                server,
                resp.into_reader(),
                MAX_COMPLETION_BYTES,
                "an answer",
                started,
            )?;
            let answer = http::parse_json(server, &bytes)?;
            send(Event::Alive)?;
            reported_error(server, &answer)?;
            let text = answer
                .pointer("/choices/0/message/content")
                .and_then(Value::as_str)
                .ok_or_else(|| bad(server, "no choices[0].message.content in the answer"))?;
            if !text.is_empty() {
                send(Event::Delta(text.to_string()))?;
            }
            if let Some(r) = answer
                .pointer("/choices/0/finish_reason")
                .and_then(Value::as_str)
            {
                send(Event::Finish(r.to_string()))?;
            }
            if let Some(u) = usage_of(&answer) {
                send(Event::Usage(u))?;
            }
            return send(Event::End);
        }
        let mut lines = Lines::new(BufReader::new(resp.into_reader()));
        loop {
            let line = match lines.next_line() {
                Ok(Some(line)) => line,
                Ok(None) => return send(Event::End),
                Err(e) => return Err(Some(line_error(server, e, started))),
            };
            let Some(data) = line.strip_prefix("data:") else {
                continue;
            };
            let data = data.trim();
            if data.is_empty() {
                continue;
            }
            if data == "[DONE]" {
                return send(Event::End);
            }
            let chunk: Value = serde_json::from_str(data).map_err(|e| {
                bad(
                    server,
                    &format!(
                        "a streamed chunk is not JSON ({e}): {}",
                        narratoria_lexicon::clip_to(data, 120)
                    ),
                )
            })?;
            send(Event::Alive)?;
            reported_error(server, &chunk)?;
            for choice in chunk
                .get("choices")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(t) = choice.pointer("/delta/content").and_then(Value::as_str) {
                    if !t.is_empty() {
                        send(Event::Delta(t.to_string()))?;
                    }
                }
                if let Some(r) = choice.get("finish_reason").and_then(Value::as_str) {
                    send(Event::Finish(r.to_string()))?;
                }
            }
            if let Some(u) = usage_of(&chunk) {
                send(Event::Usage(u))?;
            }
        }
    })();
    if let Err(Some(e)) = result {
        let _ = tx.send(Event::Failed(e));
    }
}

fn bad(server: &Server, reason: &str) -> Option<RemoteError> {
    Some(RemoteError::BadAnswer {
        server: server.label(),
        reason: server.scrub(reason),
    })
}

/// An `error` the server put in a successful answer or chunk.
fn reported_error(server: &Server, answer: &Value) -> Result<(), Option<RemoteError>> {
    match answer.get("error") {
        None | Some(Value::Null) => Ok(()),
        Some(e) => Err(Some(RemoteError::Http {
            server: server.label(),
            status: 200,
            message: server.scrub(&http::error_message(
                &serde_json::json!({ "error": e }).to_string(),
            )),
        })),
    }
}

fn line_error(server: &Server, e: LineError, started: Instant) -> RemoteError {
    match e {
        LineError::LineTooLong => RemoteError::TooLarge {
            server: server.label(),
            what: "a line of its answer",
            limit: MAX_LINE_BYTES,
        },
        LineError::StreamTooLong => RemoteError::TooLarge {
            server: server.label(),
            what: "a streamed answer",
            limit: MAX_STREAM_BYTES,
        },
        LineError::NotText => RemoteError::BadAnswer {
            server: server.label(),
            reason: "the streamed answer is not UTF-8 text".into(),
        },
        LineError::Io(e) => http::read_failure(server, &e, started),
    }
}

/// The usage an answer (or a stream's last chunk) reports: OpenAI's
/// `usage` with `prompt_tokens_details.cached_tokens`, or llama-server's
/// `timings.cache_n` for the cached part.
fn usage_of(answer: &Value) -> Option<WireUsage> {
    let usage = answer.get("usage").filter(|u| u.is_object())?;
    let n = |v: Option<&Value>| {
        v.and_then(Value::as_u64)
            .map(|n| n.min(u64::from(u32::MAX)) as u32)
            .unwrap_or(0)
    };
    Some(WireUsage {
        prompt_tokens: n(usage.get("prompt_tokens")),
        cached_tokens: n(usage
            .pointer("/prompt_tokens_details/cached_tokens")
            .or_else(|| answer.pointer("/timings/cache_n"))),
        completion_tokens: n(usage.get("completion_tokens")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn usage_is_read_from_either_shape() {
        let u = usage_of(&json!({
            "usage": {"prompt_tokens": 10, "completion_tokens": 3, "prompt_tokens_details": {"cached_tokens": 4}}
        }))
        .unwrap();
        assert_eq!(
            (u.prompt_tokens, u.cached_tokens, u.completion_tokens),
            (10, 4, 3)
        );
        let u =
            usage_of(&json!({"usage": {"prompt_tokens": 7}, "timings": {"cache_n": 5}})).unwrap();
        assert_eq!(
            (u.prompt_tokens, u.cached_tokens, u.completion_tokens),
            (7, 5, 0)
        );
        assert_eq!(usage_of(&json!({"usage": null})), None);
    }

    #[test]
    fn cuts_fall_on_character_boundaries() {
        assert_eq!(cut("héllo", 2), "h");
        assert_eq!(cut("héllo", 3), "hé");
        assert_eq!(cut("hi", 10), "hi");
    }
}
