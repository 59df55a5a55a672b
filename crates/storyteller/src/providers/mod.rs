//! The providers that write prose: hosted ones over HTTP with streaming
//! (OpenAI-compatible Chat Completions, Anthropic Messages) and the local GGUF
//! model through llama.cpp. Each passes text pieces to a callback as they
//! arrive and reports failures as [`ProviderError`](crate::ProviderError)s.

pub mod anthropic;
pub mod host;
pub mod http;
pub mod local;
pub mod openai;

use std::time::Duration;

use crate::config::ApiKey;
use crate::prompt::Prompt;

/// What a hosted provider is asked.
#[derive(Debug, Clone)]
pub struct HostedRequest<'a> {
    /// The base URL (e.g. `https://api.openai.com/v1`).
    pub endpoint: &'a str,
    pub model: &'a str,
    pub key: Option<&'a ApiKey>,
    pub prompt: &'a Prompt,
    pub temperature: f32,
    pub max_tokens: u32,
    /// For the whole exchange.
    pub timeout: Duration,
}

/// `base` and `path` joined with exactly one slash.
pub fn join_url(base: &str, path: &str) -> String {
    format!(
        "{}/{}",
        base.trim().trim_end_matches('/'),
        path.trim_start_matches('/')
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn urls_join_with_one_slash() {
        assert_eq!(
            super::join_url("http://h/v1/", "/chat/completions"),
            "http://h/v1/chat/completions"
        );
        assert_eq!(
            super::join_url("http://h", "v1/messages"),
            "http://h/v1/messages"
        );
    }
}
