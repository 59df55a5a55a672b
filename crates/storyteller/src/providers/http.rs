//! What the hosted providers share: a blocking HTTP POST with timeouts whose
//! failures map to failure codes, and a reader of Server-Sent Events.

use std::io::{BufRead, BufReader, Read};
use std::time::Duration;

use serde_json::Value;

use crate::config::ApiKey;
use crate::error::{BadAnswer, ProviderError};
use crate::prompt::clip;

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
    Events(SseReader<BufReader<Box<dyn Read + Send + Sync>>>),
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
    /// that is not http(s) → `Config`.
    pub fn send(&self) -> Result<Answer, ProviderError> {
        if !(self.url.starts_with("http://") || self.url.starts_with("https://")) {
            return Err(ProviderError::Config(format!(
                "the {} endpoint must be an http:// or https:// URL, not {:?}",
                self.provider,
                self.scrub(&self.url)
            )));
        }
        let agent = ureq::AgentBuilder::new()
            .timeout_connect(self.timeout)
            .timeout(self.timeout)
            .user_agent(concat!(
                "narratoria-storyteller/",
                env!("CARGO_PKG_VERSION")
            ))
            .build();
        let mut req = agent
            .post(&self.url)
            .set("content-type", "application/json")
            .set("accept", "text/event-stream, application/json");
        for (name, value) in &self.headers {
            req = req.set(name, value);
        }
        match req.send_string(&self.body.to_string()) {
            Ok(resp) => {
                let is_json = resp.content_type().contains("json");
                if is_json {
                    let text = resp.into_string().map_err(|e| self.read_error(e))?;
                    let v = serde_json::from_str(&text).map_err(|e| self.malformed(e))?;
                    Ok(Answer::Json(v))
                } else {
                    Ok(Answer::Events(SseReader::new(BufReader::new(
                        resp.into_reader(),
                    ))))
                }
            }
            Err(ureq::Error::Status(status, resp)) => Err(self.status_error(status, resp)),
            Err(ureq::Error::Transport(t)) => Err(self.transport_error(&t)),
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
                    .map(|s| clip(s.trim(), 20))
                    .filter(|s| !s.is_empty()),
            },
            _ => {
                let body = resp.into_string().unwrap_or_default();
                let message = self.scrub(&error_message(&body));
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

    /// A failure while reading the answer's body.
    pub fn read_error(&self, e: std::io::Error) -> ProviderError {
        if matches!(
            e.kind(),
            std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
        ) {
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
            reason: BadAnswer::Malformed(self.scrub(&clip(&e.to_string(), 300))),
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

fn is_timeout(t: &ureq::Transport) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(t);
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            if matches!(
                io.kind(),
                std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
            ) {
                return true;
            }
        }
        source = s.source();
    }
    t.to_string().contains("timed out")
}

/// The human part of an error body: `error.message` (OpenAI, Anthropic),
/// `error` as a string (Ollama), `message`, else the start of the body.
pub fn error_message(body: &str) -> String {
    let text = match serde_json::from_str::<Value>(body) {
        Ok(v) => v
            .pointer("/error/message")
            .or_else(|| v.get("error").filter(|e| e.is_string()))
            .or_else(|| v.get("message"))
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| body.to_string()),
        Err(_) => body.to_string(),
    };
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.is_empty() {
        "no details".into()
    } else {
        clip(&text, 300)
    }
}

/// One Server-Sent Event: its `event:` name (if any) and its `data:` lines joined by `\n`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    pub event: Option<String>,
    pub data: String,
}

/// Reads Server-Sent Events (`event:`/`data:` lines, a blank line ends an
/// event, `:` lines are comments) from a byte stream.
///
/// Kept by hand on purpose: the maintained SSE crates (eventsource-stream,
/// reqwest-eventsource) read async byte streams, while the providers read a
/// blocking `ureq` body line by line; this is the one loop that needs.
pub struct SseReader<R> {
    inner: R,
    line: String,
}

impl<R: BufRead> SseReader<R> {
    pub fn new(inner: R) -> SseReader<R> {
        SseReader {
            inner,
            line: String::new(),
        }
    }

    /// The next event; `Ok(None)` at the end of the stream.
    pub fn next_event(&mut self) -> std::io::Result<Option<SseEvent>> {
        let mut event: Option<String> = None;
        let mut data: Option<String> = None;
        loop {
            self.line.clear();
            let n = self.inner.read_line(&mut self.line)?;
            if n == 0 {
                return Ok(data.map(|data| SseEvent { event, data }));
            }
            let line = self.line.trim_end_matches(['\n', '\r']);
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

    #[test]
    fn error_bodies_become_short_messages() {
        assert_eq!(
            error_message(r#"{"error":{"message":"model  not\nfound","type":"x"}}"#),
            "model not found"
        );
        assert_eq!(
            error_message(r#"{"error":"no such model"}"#),
            "no such model"
        );
        assert_eq!(error_message(""), "no details");
        assert!(error_message(&"y".repeat(1000)).chars().count() <= 301);
    }
}
