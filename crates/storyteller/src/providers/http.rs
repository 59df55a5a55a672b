//! What the hosted providers share: a blocking HTTP POST with timeouts whose
//! failures map to failure codes, and a reader of Server-Sent Events.
//!
//! What an answer may make this process hold is bounded by construction, not
//! by the timeout: one line of a stream at most [`MAX_LINE_BYTES`], a whole
//! answer (streamed or not) at most [`MAX_ANSWER_BYTES`], an error body at
//! most [`MAX_ERROR_BYTES`]. Reading stops at a bound; past it the answer is
//! refused ([`TooLong`]) and the turn falls back as for any provider failure.

use std::io::{BufRead, BufReader, Read};
use std::time::Duration;

pub use narratoria_http::error_message;
use narratoria_http::{
    agent_builder, call, is_timeout, is_timeout_kind, CallError, Redirects, Request,
};
use serde_json::Value;

use crate::config::ApiKey;
use crate::error::{BadAnswer, ProviderError};
use narratoria_lexicon::clip_after;

/// The longest line a streamed answer may send: 1 MiB. A streamed piece is a
/// few words wrapped in a little JSON (well under 1 KiB).
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// The most one answer may send in all, streamed or one JSON body: 8 MiB.
/// The longest narrative asked for (`maxTokens` at most 1000) is a few KiB of
/// text, and about 300 KiB streamed a token an event with each event's JSON.
pub const MAX_ANSWER_BYTES: usize = 8 << 20;

/// The most of an error answer's body that is read: 64 KiB (its message is
/// shown clipped to 300 characters).
pub const MAX_ERROR_BYTES: usize = 64 << 10;

/// An answer that went past a bound. It travels inside an
/// [`std::io::Error`] of kind `InvalidData` from the readers here, and
/// [`Call::read_error`] turns it into a [`ProviderError::BadAnswer`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TooLong {
    #[error("a line of the answer is longer than {} MiB (the limit)", MAX_LINE_BYTES >> 20)]
    Line,
    #[error("the answer is longer than {} MiB (the limit)", MAX_ANSWER_BYTES >> 20)]
    Answer,
}

impl TooLong {
    fn into_io(self) -> std::io::Error {
        std::io::Error::new(std::io::ErrorKind::InvalidData, self)
    }

    /// The bound `e` reports, if it is one of these.
    pub fn of(e: &std::io::Error) -> Option<TooLong> {
        e.get_ref()?.downcast_ref::<TooLong>().copied()
    }
}

/// A reader that gives at most `left` more bytes: a byte past them is an
/// error ([`TooLong::Answer`]), never a silent end, and is not kept.
pub struct Bounded<R> {
    inner: R,
    left: usize,
}

impl<R: Read> Bounded<R> {
    /// `inner` limited to [`MAX_ANSWER_BYTES`].
    pub fn answer(inner: R) -> Bounded<R> {
        Bounded {
            inner,
            left: MAX_ANSWER_BYTES,
        }
    }
}

impl<R: Read> Read for Bounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        if self.left == 0 {
            let mut probe = [0u8; 1];
            return match self.inner.read(&mut probe)? {
                0 => Ok(0),
                _ => Err(TooLong::Answer.into_io()),
            };
        }
        let most = buf.len().min(self.left);
        let n = self.inner.read(&mut buf[..most])?;
        self.left -= n;
        Ok(n)
    }
}

/// An answer's body as the providers read it: bounded to [`MAX_ANSWER_BYTES`].
pub type Body = BufReader<Bounded<Box<dyn Read + Send + Sync>>>;

/// One hosted request: where, how long to wait, and the key to keep out of messages.
pub struct Call<'a> {
    pub provider: &'static str,
    pub url: String,
    /// Headers to send (the key among them); values are never put in messages.
    pub headers: Vec<(&'static str, String)>,
    pub body: Value,
    /// For the whole exchange: connecting, sending and reading the answer.
    pub timeout: Duration,
    pub key: Option<&'a ApiKey>,
}

/// An answer being read: either a stream of events or one JSON body (a
/// server that ignored `stream: true`).
pub enum Answer {
    Events(SseReader<Body>),
    Json(Value),
}

impl Call<'_> {
    fn scrub(&self, text: &str) -> String {
        match self.key {
            Some(k) => k.scrub(text),
            None => text.to_string(),
        }
    }

    /// Sends the POST. Promises: 401/403 → `Unauthorized` (the body is not
    /// quoted), 429 → `RateLimited`, 5xx → `Service`, other 4xx → `Rejected`,
    /// no connection → `Unreachable`, no answer in time → `Timeout`, a URL
    /// that is not http(s) → `Config`, any redirect → `Redirect` (never
    /// followed, never a panic), a JSON answer longer than
    /// [`MAX_ANSWER_BYTES`] → `BadAnswer` (read no further). A streamed
    /// answer is bounded the same way as it is read.
    pub fn send(&self) -> Result<Answer, ProviderError> {
        if !(self.url.starts_with("http://") || self.url.starts_with("https://")) {
            return Err(ProviderError::Config(format!(
                "the {} endpoint must be an http:// or https:// URL, not {:?}",
                self.provider,
                self.scrub(&self.url)
            )));
        }
        // The client follows no redirect on its own; a POST follows none at
        // all (docs/security.md, "Redirects").
        let agent = agent_builder()
            .timeout_connect(self.timeout)
            .timeout(self.timeout)
            .user_agent(concat!(
                "narratoria-storyteller/",
                env!("CARGO_PKG_VERSION")
            ))
            .build();
        let body = self.body.to_string().into_bytes();
        let request = Request {
            method: "POST",
            url: &self.url,
            body: Some(&body),
            rule: Redirects::NONE,
        };
        let prepare = |req: ureq::Request, on_first_host: bool| {
            let req = req
                .set("content-type", "application/json")
                .set("accept", "text/event-stream, application/json");
            if !on_first_host {
                return req;
            }
            self.headers
                .iter()
                .fold(req, |req, (name, value)| req.set(name, value))
        };
        match call(&agent, request, &prepare) {
            Ok(answer) => self.answer(answer.response),
            Err(CallError::Http(e)) => match *e {
                ureq::Error::Status(status, resp) => Err(self.status_error(status, resp)),
                ureq::Error::Transport(t) => Err(self.transport_error(&t)),
            },
            Err(CallError::Redirect { reason }) => Err(ProviderError::Redirect {
                provider: self.provider,
                reason: self.scrub(&reason),
            }),
            // An endpoint the client cannot ask is the setting's fault, not a redirect's.
            Err(CallError::Address { reason }) => Err(ProviderError::Config(format!(
                "the {} endpoint is not a usable URL: {}",
                self.provider,
                self.scrub(&reason)
            ))),
        }
    }

    /// A 2xx answer: one JSON body read whole within [`MAX_ANSWER_BYTES`],
    /// or a stream of events bounded the same way as it is read.
    fn answer(&self, resp: ureq::Response) -> Result<Answer, ProviderError> {
        let is_json = resp.content_type().contains("json");
        let body = Bounded::answer(resp.into_reader());
        if is_json {
            let mut bytes = Vec::new();
            BufReader::new(body)
                .read_to_end(&mut bytes)
                .map_err(|e| self.read_error(e))?;
            let v = serde_json::from_slice(&bytes).map_err(|e| self.malformed(e))?;
            Ok(Answer::Json(v))
        } else {
            Ok(Answer::Events(SseReader::new(BufReader::new(body))))
        }
    }

    fn status_error(&self, status: u16, resp: ureq::Response) -> ProviderError {
        let provider = self.provider;
        match status {
            401 | 403 => ProviderError::Unauthorized {
                provider,
                reason: format!("HTTP {status}; check the API key"),
            },
            429 => ProviderError::RateLimited {
                provider,
                retry_after: resp
                    .header("retry-after")
                    .map(|s| clip_after(s.trim(), 20))
                    .filter(|s| !s.is_empty()),
            },
            _ => {
                let mut body = Vec::new();
                let _ = resp
                    .into_reader()
                    .take(MAX_ERROR_BYTES as u64)
                    .read_to_end(&mut body);
                let message = self.scrub(&error_message(&String::from_utf8_lossy(&body)));
                if (400..500).contains(&status) {
                    ProviderError::Rejected {
                        provider,
                        status,
                        message,
                    }
                } else {
                    ProviderError::Service {
                        provider,
                        status,
                        message,
                    }
                }
            }
        }
    }

    fn transport_error(&self, t: &ureq::Transport) -> ProviderError {
        use ureq::ErrorKind::*;
        let reason = self.scrub(&t.to_string());
        match t.kind() {
            InvalidUrl | UnknownScheme => ProviderError::Config(format!(
                "the {} endpoint is not a usable URL: {reason}",
                self.provider
            )),
            _ if is_timeout(t) => ProviderError::Timeout {
                provider: self.provider,
                seconds: self.timeout.as_secs(),
            },
            _ => ProviderError::Unreachable {
                provider: self.provider,
                endpoint: self.scrub(&self.url),
                reason,
            },
        }
    }

    /// A failure while reading the answer's body: an answer past a bound
    /// ([`TooLong`]) is a `BadAnswer` naming the bound.
    pub fn read_error(&self, e: std::io::Error) -> ProviderError {
        if let Some(too_long) = TooLong::of(&e) {
            return self.malformed(too_long);
        }
        if is_timeout_kind(e.kind()) {
            ProviderError::Timeout {
                provider: self.provider,
                seconds: self.timeout.as_secs(),
            }
        } else {
            ProviderError::Unreachable {
                provider: self.provider,
                endpoint: self.scrub(&self.url),
                reason: self.scrub(&format!("the connection broke: {e}")),
            }
        }
    }

    /// An answer that is not the provider's wire format.
    pub fn malformed(&self, e: impl std::fmt::Display) -> ProviderError {
        ProviderError::BadAnswer {
            provider: self.provider,
            reason: BadAnswer::Malformed(self.scrub(&clip_after(&e.to_string(), 300))),
        }
    }

    /// An error the provider reported inside a successful (HTTP 200) answer.
    pub fn reported(&self, error: &Value) -> ProviderError {
        ProviderError::Service {
            provider: self.provider,
            status: 200,
            message: self.scrub(&error_message(&error.to_string())),
        }
    }
}

/// One Server-Sent Event: its `event:` name (if any) and its `data:` lines joined by `\n`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    pub event: Option<String>,
    pub data: String,
}

/// Reads Server-Sent Events (`event:`/`data:` lines, a blank line ends an
/// event, `:` lines are comments) from a byte stream, one line of at most
/// [`MAX_LINE_BYTES`] at a time (an event's many `data:` lines are bounded by
/// the stream's own bound, [`Bounded`]).
///
/// Kept by hand on purpose: the maintained SSE crates (eventsource-stream,
/// reqwest-eventsource) read async byte streams, while the providers read a
/// blocking `ureq` body line by line; this is the one loop that needs.
pub struct SseReader<R> {
    inner: R,
    line: Vec<u8>,
}

impl<R: BufRead> SseReader<R> {
    pub fn new(inner: R) -> SseReader<R> {
        SseReader {
            inner,
            line: Vec::new(),
        }
    }

    /// The next line into `self.line`, its line feed included; 0 at the end
    /// of the stream. Reads at most [`MAX_LINE_BYTES`] + 1 bytes: a line whose
    /// text (its line feed aside) is longer is an error ([`TooLong::Line`]),
    /// and no more of it is read.
    fn read_line(&mut self) -> std::io::Result<usize> {
        self.line.clear();
        let most = MAX_LINE_BYTES as u64 + 1;
        let n = (&mut self.inner)
            .take(most)
            .read_until(b'\n', &mut self.line)?;
        if n as u64 == most && self.line.last() != Some(&b'\n') {
            return Err(TooLong::Line.into_io());
        }
        Ok(n)
    }

    /// The next event; `Ok(None)` at the end of the stream. A line longer
    /// than [`MAX_LINE_BYTES`] is an error ([`TooLong::Line`]); text that is
    /// not UTF-8 is an `InvalidData` error.
    pub fn next_event(&mut self) -> std::io::Result<Option<SseEvent>> {
        let mut event: Option<String> = None;
        let mut data: Option<String> = None;
        loop {
            let n = self.read_line()?;
            if n == 0 {
                return Ok(data.map(|data| SseEvent { event, data }));
            }
            let line = std::str::from_utf8(&self.line)
                .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?
                .trim_end_matches(['\n', '\r']);
            if line.is_empty() {
                if let Some(data) = data.take() {
                    return Ok(Some(SseEvent { event, data }));
                }
                event = None;
                continue;
            }
            if line.starts_with(':') {
                continue;
            }
            let (field, value) = match line.split_once(':') {
                Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
                None => (line, ""),
            };
            match field {
                "event" => event = Some(value.to_string()),
                "data" => match data.as_mut() {
                    Some(d) => {
                        d.push('\n');
                        d.push_str(value);
                    }
                    None => data = Some(value.to_string()),
                },
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use narratoria_protocol::FailureCode;
    use std::io::Write;
    use std::net::{TcpListener, TcpStream};

    /// `prefix`, then `len` bytes of `x` with no line feed, counting what is taken.
    struct Counting {
        source: std::io::Chain<&'static [u8], std::io::Take<std::io::Repeat>>,
        taken: usize,
    }

    impl Counting {
        fn new(prefix: &'static [u8], len: usize) -> Counting {
            Counting {
                source: prefix.chain(std::io::repeat(b'x').take(len as u64)),
                taken: 0,
            }
        }
    }

    impl Read for Counting {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.source.read(buf)?;
            self.taken += n;
            Ok(n)
        }
    }

    /// What a `BufReader` may hold past what was asked of it.
    const BUFFERED: usize = 8 * 1024;

    #[test]
    fn a_line_past_the_limit_is_refused_without_reading_on() {
        let mut source = Counting::new(b"data: ", 8 * MAX_LINE_BYTES);
        let err = match SseReader::new(BufReader::new(&mut source)).next_event() {
            Err(e) => e,
            Ok(event) => panic!(
                "a line longer than the limit was read whole ({} bytes of data)",
                event.map_or(0, |e| e.data.len())
            ),
        };
        assert_eq!(TooLong::of(&err), Some(TooLong::Line), "{err}");
        assert!(
            source.taken <= MAX_LINE_BYTES + 1 + BUFFERED,
            "read {} bytes of one line",
            source.taken
        );
    }

    #[test]
    fn a_line_at_the_limit_is_read() {
        let mut line = b"data: ".to_vec();
        line.resize(MAX_LINE_BYTES, b'y');
        line.extend_from_slice(b"\n\n");
        let mut r = SseReader::new(line.as_slice());
        let event = r.next_event().unwrap().unwrap();
        assert_eq!(event.data.len(), MAX_LINE_BYTES - "data: ".len());
        assert_eq!(r.next_event().unwrap(), None);
    }

    #[test]
    fn an_answer_past_its_bound_is_an_error_not_a_silent_end() {
        let read = |len: usize| {
            let mut out = Vec::new();
            Bounded {
                inner: std::io::repeat(b'z').take(len as u64),
                left: 10,
            }
            .read_to_end(&mut out)
            .map(|_| out.len())
        };
        assert_eq!(read(10).unwrap(), 10);
        let err = read(11).unwrap_err();
        assert_eq!(TooLong::of(&err), Some(TooLong::Answer), "{err}");
    }

    /// Reads one HTTP request (head and `content-length` body).
    fn read_request(stream: &mut TcpStream) {
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
            head.push(byte[0]);
        }
        let head = String::from_utf8_lossy(&head).to_ascii_lowercase();
        let len = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .and_then(|v| v.trim().parse::<u64>().ok())
            .unwrap_or(0);
        let _ = std::io::copy(&mut stream.take(len), &mut std::io::sink());
    }

    /// A server on 127.0.0.1 that answers one request with `content_type`
    /// and a body of `prefix` then `len` bytes of `x` with no line feed.
    /// Returns its base URL and a handle giving how many body bytes it got
    /// out before the client hung up.
    fn serve_huge(
        content_type: &'static str,
        prefix: &'static [u8],
        len: usize,
    ) -> (String, std::thread::JoinHandle<usize>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let handle = std::thread::spawn(move || {
            let Ok((mut stream, _)) = listener.accept() else {
                return 0;
            };
            let limit = Some(Duration::from_secs(30));
            let _ = stream.set_read_timeout(limit);
            let _ = stream.set_write_timeout(limit);
            read_request(&mut stream);
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\nconnection: close\r\n\r\n"
            );
            if stream.write_all(head.as_bytes()).is_err() || stream.write_all(prefix).is_err() {
                return 0;
            }
            let chunk = vec![b'x'; 64 * 1024];
            let mut sent = prefix.len();
            while sent < prefix.len() + len {
                let n = chunk.len().min(prefix.len() + len - sent);
                match stream.write(&chunk[..n]) {
                    Ok(0) | Err(_) => break,
                    Ok(k) => sent += k,
                }
            }
            sent
        });
        (url, handle)
    }

    fn ask_openai(endpoint: &str) -> Result<String, ProviderError> {
        let prompt = crate::prompt::Prompt::default();
        let req = super::super::HostedRequest {
            endpoint,
            model: "m",
            key: None,
            prompt: &prompt,
            temperature: 0.5,
            max_tokens: 64,
            timeout: Duration::from_secs(30),
        };
        let mut text = String::new();
        super::super::openai::stream(&req, &mut |piece| text.push_str(piece)).map(|()| text)
    }

    /// A server streaming one endless line gets a bad answer naming the
    /// limit, and the reading stops near the limit (what the server got out
    /// is the limit plus the sockets' buffers, far from all it tried).
    #[test]
    fn a_huge_streamed_line_is_a_bad_answer_naming_the_limit() {
        let tried = 64 << 20;
        let (url, server) = serve_huge("text/event-stream", b"data: ", tried);
        let err = ask_openai(&url).expect_err("a huge line must fail");
        let sent = server.join().unwrap();
        assert!(matches!(err, ProviderError::BadAnswer { .. }), "{err:?}");
        assert!(
            err.to_string().contains("longer than 1 MiB (the limit)"),
            "{err}"
        );
        assert!(sent < 32 << 20, "the client took {sent} of {tried} bytes");
    }

    /// A JSON answer past [`MAX_ANSWER_BYTES`] is refused the same way.
    #[test]
    fn a_huge_json_answer_is_a_bad_answer_naming_the_limit() {
        let (url, server) = serve_huge(
            "application/json",
            b"{\"a\": \"",
            MAX_ANSWER_BYTES + (1 << 20),
        );
        let err = ask_openai(&url).expect_err("a huge answer must fail");
        let _ = server.join();
        assert!(matches!(err, ProviderError::BadAnswer { .. }), "{err:?}");
        assert!(
            err.to_string().contains("longer than 8 MiB (the limit)"),
            "{err}"
        );
    }

    /// A server on 127.0.0.1 answering every request with `status` and a
    /// `Location` of `location`. Returns its base URL.
    fn serve_redirect(status: u16, location: String) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                read_request(&mut stream);
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status} Moved\r\nlocation: {location}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                );
            }
        });
        url
    }

    /// A redirect of the provider's POST — to a file, a `data:` address,
    /// another host or even its own — is a clear `Redirect` error with a
    /// validation code: never followed, the body never sent again, no panic
    /// (docs/security.md, "Redirects").
    #[test]
    fn a_redirected_request_is_a_clear_error_never_followed() {
        let other = TcpListener::bind("127.0.0.1:0").unwrap();
        other.set_nonblocking(true).unwrap();
        let elsewhere = format!("http://{}/v1/chat/completions", other.local_addr().unwrap());
        for (status, location) in [
            (302, "file:///etc/passwd".to_string()),
            (302, "data:text/plain,hello".to_string()),
            (307, elsewhere),
            (308, "/v2/chat/completions".to_string()),
        ] {
            let url = serve_redirect(status, location.clone());
            let err = ask_openai(&url).expect_err("a redirect must fail");
            assert!(
                matches!(err, ProviderError::Redirect { .. }),
                "{location}: {err:?}"
            );
            assert!(err.to_string().contains("not followed"), "{err}");
            assert_eq!(err.code(), FailureCode::ValidationError);
        }
        assert!(other.accept().is_err(), "the other host was never asked");
    }

    #[test]
    fn reads_events_comments_and_multiline_data() {
        let text = ": keep-alive\n\nevent: content_block_delta\ndata: {\"a\":1}\n\ndata: one\r\ndata: two\r\n\r\ndata: [DONE]";
        let mut r = SseReader::new(text.as_bytes());
        assert_eq!(
            r.next_event().unwrap(),
            Some(SseEvent {
                event: Some("content_block_delta".into()),
                data: "{\"a\":1}".into()
            })
        );
        assert_eq!(r.next_event().unwrap().unwrap().data, "one\ntwo");
        assert_eq!(r.next_event().unwrap().unwrap().data, "[DONE]");
        assert_eq!(r.next_event().unwrap(), None);
    }
}
