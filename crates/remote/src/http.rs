//! The wire under everything else: a blocking GET or POST to the server
//! with a time limit, answers read within size bounds, and every failure
//! turned into a [`RemoteError`] that names the server and never the key.
//!
//! What an answer may make this process hold is bounded by construction:
//! reading stops one byte past a bound and the answer is refused.

use std::io::{BufRead, Read};
use std::time::{Duration, Instant};

pub(crate) use narratoria_http::error_message;
use narratoria_http::{
    agent_builder, call, is_timeout, is_timeout_kind, CallError, Redirects, Request,
};
use narratoria_lexicon::clip_to as clip;
use serde_json::Value;

use crate::error::RemoteError;
use crate::server::Server;

/// The most a model list (`GET /models`) may send: 1 MiB.
pub const MAX_LIST_BYTES: usize = 1 << 20;
/// The most a completion may hold: its text when streamed, its whole JSON
/// body when not: 256 KiB.
pub const MAX_COMPLETION_BYTES: usize = 256 << 10;
/// The most a streamed answer may send in all, its framing included: 16 MiB
/// (a token an event, each event a few hundred bytes of JSON).
pub const MAX_STREAM_BYTES: usize = 16 << 20;
/// The longest line of a streamed answer: 256 KiB.
pub const MAX_LINE_BYTES: usize = 256 << 10;
/// The most of an error answer's body that is read: 64 KiB.
pub const MAX_ERROR_BYTES: usize = 64 << 10;

/// Sends a GET to `{endpoint}/{path}`; the whole exchange must end within
/// `timeout`. A status that is not 2xx is an error. Redirects are followed
/// on the endpoint's own host and port only, the key sent on each of them
/// ([`Redirects::SAME_HOST`], docs/security.md "Redirects"); any other is
/// [`RemoteError::Redirect`], never a panic.
pub(crate) fn get(
    server: &Server,
    path: &str,
    timeout: Duration,
) -> Result<ureq::Response, RemoteError> {
    let url = checked_url(server, path)?;
    let request = Request {
        method: "GET",
        url: &url,
        body: None,
        rule: Redirects::SAME_HOST,
    };
    send(server, request, timeout, "application/json")
}

/// Sends `body` as a JSON POST to `{endpoint}/{path}`; the whole exchange,
/// the answer's body included, must end within `timeout`. A status that is
/// not 2xx is an error; a redirect is [`RemoteError::Redirect`] (a request
/// with a body is never sent again elsewhere).
pub(crate) fn post(
    server: &Server,
    path: &str,
    body: &Value,
    timeout: Duration,
) -> Result<ureq::Response, RemoteError> {
    let url = checked_url(server, path)?;
    let bytes = body.to_string().into_bytes();
    let request = Request {
        method: "POST",
        url: &url,
        body: Some(&bytes),
        rule: Redirects::NONE,
    };
    send(
        server,
        request,
        timeout,
        "text/event-stream, application/json",
    )
}

/// Sends `request` by the product's redirect rule ([`narratoria_http::call`]):
/// every hop within what is left of `timeout`, the key only on the
/// endpoint's host.
fn send(
    server: &Server,
    request: Request<'_>,
    timeout: Duration,
    accept: &str,
) -> Result<ureq::Response, RemoteError> {
    let started = Instant::now();
    let deadline = started + timeout;
    let agent = agent(timeout);
    let has_body = request.body.is_some();
    let prepare = |req: ureq::Request, on_first_host: bool| {
        let left = deadline.saturating_duration_since(Instant::now());
        let mut req = req
            .timeout(left.max(Duration::from_millis(1)))
            .set("accept", accept);
        if has_body {
            req = req.set("content-type", "application/json");
        }
        if on_first_host {
            with_key(server, req)
        } else {
            req
        }
    };
    match call(&agent, request, &prepare) {
        Ok(answer) => Ok(answer.response),
        Err(CallError::Http(e)) => Err(failure(server, *e, started)),
        Err(CallError::Redirect { reason }) => Err(RemoteError::Redirect {
            server: server.label(),
            reason: server.scrub(&reason),
        }),
        // An endpoint the client cannot ask is the endpoint's fault, not a redirect's.
        Err(CallError::Address { reason }) => Err(RemoteError::Unreachable {
            server: server.label(),
            reason: server.scrub(&format!("the endpoint is not a usable address ({reason})")),
        }),
    }
}

/// An agent that follows no redirect on its own ([`agent_builder`]).
fn agent(timeout: Duration) -> ureq::Agent {
    agent_builder()
        .timeout_connect(timeout)
        .timeout(timeout)
        .user_agent(concat!("narratoria-remote/", env!("CARGO_PKG_VERSION")))
        .build()
}

fn with_key(server: &Server, req: ureq::Request) -> ureq::Request {
    match server.key() {
        Some(k) => req.set("authorization", &format!("Bearer {}", k.expose())),
        None => req,
    }
}

fn checked_url(server: &Server, path: &str) -> Result<String, RemoteError> {
    let url = server.url(path);
    if url.starts_with("http://") || url.starts_with("https://") {
        Ok(url)
    } else {
        Err(RemoteError::Unreachable {
            server: server.label(),
            reason: "the endpoint must be an http:// or https:// URL".into(),
        })
    }
}

/// Reads all of `reader`, at most `limit` bytes: one byte more is
/// [`RemoteError::TooLarge`] naming `what`, and nothing more is read.
pub(crate) fn read_bounded(
    server: &Server,
    reader: impl Read,
    limit: usize,
    what: &'static str,
    started: Instant,
) -> Result<Vec<u8>, RemoteError> {
    let mut bytes = Vec::new();
    reader
        .take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| read_failure(server, &e, started))?;
    if bytes.len() > limit {
        return Err(RemoteError::TooLarge {
            server: server.label(),
            what,
            limit,
        });
    }
    Ok(bytes)
}

/// Parses `bytes` as JSON; what is not JSON is a bad answer quoting its start.
pub(crate) fn parse_json(server: &Server, bytes: &[u8]) -> Result<Value, RemoteError> {
    serde_json::from_slice(bytes).map_err(|e| RemoteError::BadAnswer {
        server: server.label(),
        reason: server.scrub(&format!(
            "not JSON ({e}): {}",
            clip(&String::from_utf8_lossy(bytes), 120)
        )),
    })
}

/// Why a request failed, as a [`RemoteError`].
fn failure(server: &Server, e: ureq::Error, started: Instant) -> RemoteError {
    match e {
        ureq::Error::Status(status, resp) => status_error(server, status, resp),
        ureq::Error::Transport(t) => {
            if is_timeout(&t) {
                RemoteError::Timeout {
                    server: server.label(),
                    waited_ms: started.elapsed().as_millis() as u64,
                }
            } else {
                let reason = match t.kind() {
                    ureq::ErrorKind::ConnectionFailed => {
                        "nothing answers there (is the server running?)".to_string()
                    }
                    ureq::ErrorKind::Dns => "the host name does not resolve".to_string(),
                    _ => transport_reason(&t),
                };
                RemoteError::Unreachable {
                    server: server.label(),
                    reason: server.scrub(&reason),
                }
            }
        }
    }
}

/// The transport error in words, without the URL ureq puts in its message
/// (a URL may hold a password).
fn transport_reason(t: &ureq::Transport) -> String {
    let mut reason = t.kind().to_string();
    if let Some(m) = t.message() {
        reason.push_str(": ");
        reason.push_str(m);
    }
    if let Some(source) = std::error::Error::source(t) {
        reason.push_str(&format!(" ({source})"));
    }
    clip(&reason, 300)
}

fn status_error(server: &Server, status: u16, resp: ureq::Response) -> RemoteError {
    if matches!(status, 401 | 403) {
        return RemoteError::Http {
            server: server.label(),
            status,
            message: "the server refused the request; check the API key".into(),
        };
    }
    let mut body = Vec::new();
    let _ = resp
        .into_reader()
        .take(MAX_ERROR_BYTES as u64)
        .read_to_end(&mut body);
    let message = server.scrub(&error_message(&String::from_utf8_lossy(&body)));
    let lower = message.to_lowercase();
    if status == 404
        && lower.contains("model")
        && (lower.contains("not found") || lower.contains("no such"))
    {
        return RemoteError::ModelMissing {
            server: server.label(),
            model: server.model.clone(),
            available: Vec::new(),
        };
    }
    RemoteError::Http {
        server: server.label(),
        status,
        message,
    }
}

/// A failure while reading an answer's body.
pub(crate) fn read_failure(server: &Server, e: &std::io::Error, started: Instant) -> RemoteError {
    if is_timeout_kind(e.kind()) {
        RemoteError::Timeout {
            server: server.label(),
            waited_ms: started.elapsed().as_millis() as u64,
        }
    } else {
        RemoteError::Unreachable {
            server: server.label(),
            reason: server.scrub(&clip(&format!("the connection broke: {e}"), 300)),
        }
    }
}

/// Why a streamed answer could not be read on.
#[derive(Debug)]
pub(crate) enum LineError {
    /// A line longer than [`MAX_LINE_BYTES`].
    LineTooLong,
    /// More than [`MAX_STREAM_BYTES`] in all.
    StreamTooLong,
    /// The bytes are not UTF-8.
    NotText,
    Io(std::io::Error),
}

/// Reads a streamed answer line by line, within [`MAX_LINE_BYTES`] a line
/// and [`MAX_STREAM_BYTES`] in all; reading stops at a bound.
pub(crate) struct Lines<R> {
    inner: R,
    line: Vec<u8>,
    read: usize,
}

impl<R: BufRead> Lines<R> {
    pub(crate) fn new(inner: R) -> Lines<R> {
        Lines {
            inner,
            line: Vec::new(),
            read: 0,
        }
    }

    /// The next line without its line end; `Ok(None)` at the end of the stream.
    pub(crate) fn next_line(&mut self) -> Result<Option<&str>, LineError> {
        self.line.clear();
        let most = (MAX_LINE_BYTES + 2).min(MAX_STREAM_BYTES + 1 - self.read.min(MAX_STREAM_BYTES));
        let n = (&mut self.inner)
            .take(most as u64)
            .read_until(b'\n', &mut self.line)
            .map_err(LineError::Io)?;
        self.read += n;
        if self.read > MAX_STREAM_BYTES {
            return Err(LineError::StreamTooLong);
        }
        if n == 0 {
            return Ok(None);
        }
        let text = std::str::from_utf8(&self.line)
            .map_err(|_| LineError::NotText)?
            .trim_end_matches(['\n', '\r']);
        if text.len() > MAX_LINE_BYTES {
            return Err(LineError::LineTooLong);
        }
        Ok(Some(text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_read_within_their_bounds() {
        let text = "data: a\r\n\ndata: b";
        let mut lines = Lines::new(text.as_bytes());
        assert_eq!(lines.next_line().unwrap(), Some("data: a"));
        assert_eq!(lines.next_line().unwrap(), Some(""));
        assert_eq!(lines.next_line().unwrap(), Some("data: b"));
        assert_eq!(lines.next_line().unwrap(), None);

        let long = "x".repeat(MAX_LINE_BYTES + 10);
        let mut lines = Lines::new(long.as_bytes());
        assert!(matches!(lines.next_line(), Err(LineError::LineTooLong)));

        let at_limit = "y".repeat(MAX_LINE_BYTES) + "\n";
        let mut lines = Lines::new(at_limit.as_bytes());
        assert_eq!(
            lines.next_line().unwrap().map(str::len),
            Some(MAX_LINE_BYTES)
        );
    }

    #[test]
    fn a_stream_past_its_bound_stops() {
        let line = "z".repeat(1000) + "\n";
        let data = line.repeat(MAX_STREAM_BYTES / 1000 + 2);
        let mut lines = Lines::new(data.as_bytes());
        let mut count = 0;
        let err = loop {
            match lines.next_line() {
                Ok(Some(_)) => count += 1,
                Ok(None) => panic!("read {count} lines past the bound"),
                Err(e) => break e,
            }
        };
        assert!(matches!(err, LineError::StreamTooLong), "{err:?}");
    }
}
