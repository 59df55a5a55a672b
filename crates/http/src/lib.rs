//! What every HTTP client of the product shares, whichever server it asks
//! (a model server, a hosted provider): whether a transport failure was a
//! timeout, the human part of an error answer's body, and the one rule by
//! which redirects are followed ([`call`]).

mod redirect;

pub use redirect::{agent_builder, call, same_origin, Answer, CallError, Redirects, Request};

use std::error::Error;
use std::io::ErrorKind;

use narratoria_lexicon::clip_to;
use serde_json::Value;

/// The most characters of an error answer's message kept.
pub const MAX_MESSAGE_CHARS: usize = 300;

/// Whether `transport` failed because time ran out (a connect or read
/// timeout anywhere in its chain of causes).
pub fn is_timeout(transport: &ureq::Transport) -> bool {
    let mut source: Option<&(dyn Error + 'static)> = Error::source(transport);
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            if is_timeout_kind(io.kind()) {
                return true;
            }
        }
        source = s.source();
    }
    transport.to_string().contains("timed out")
}

/// Whether an I/O failure of this kind means time ran out.
pub fn is_timeout_kind(kind: ErrorKind) -> bool {
    matches!(kind, ErrorKind::TimedOut | ErrorKind::WouldBlock)
}

/// The human part of an error body: `error.message` (OpenAI, Anthropic,
/// llama-server, LM Studio), `error` as a string (Ollama), `detail` or
/// `message`, else the body itself; on one line of at most
/// [`MAX_MESSAGE_CHARS`], "no details" when empty.
pub fn error_message(body: &str) -> String {
    let text = match serde_json::from_str::<Value>(body) {
        Ok(v) => v
            .pointer("/error/message")
            .or_else(|| v.get("error").filter(|e| e.is_string()))
            .or_else(|| v.get("detail").filter(|e| e.is_string()))
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
        clip_to(&text, MAX_MESSAGE_CHARS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_is_read_from_each_servers_shape() {
        assert_eq!(
            error_message(r#"{"error": {"message": "model  not\nfound"}}"#),
            "model not found"
        );
        assert_eq!(
            error_message(r#"{"error": "pull the model first"}"#),
            "pull the model first"
        );
        assert_eq!(error_message(r#"{"detail": "Not Found"}"#), "Not Found");
        assert_eq!(error_message(r#"{"message": "overloaded"}"#), "overloaded");
        assert_eq!(
            error_message("<html>502 Bad Gateway</html>"),
            "<html>502 Bad Gateway</html>"
        );
        assert_eq!(error_message("  \n "), "no details");
    }

    #[test]
    fn a_long_message_is_clipped_to_one_line() {
        let long = format!(r#"{{"error": {{"message": "{}"}}}}"#, "x ".repeat(400));
        let message = error_message(&long);
        assert_eq!(message.chars().count(), MAX_MESSAGE_CHARS);
        assert!(message.ends_with('…'));
    }

    #[test]
    fn a_timeout_is_told_by_its_kind() {
        assert!(is_timeout_kind(ErrorKind::TimedOut));
        assert!(is_timeout_kind(ErrorKind::WouldBlock));
        assert!(!is_timeout_kind(ErrorKind::ConnectionRefused));
    }
}
