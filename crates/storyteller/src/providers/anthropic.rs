//! Anthropic's Messages API with `stream: true`: Server-Sent Events where
//! `content_block_delta` events carry `delta.text`, `message_stop` ends the
//! answer and an `error` event reports a failure mid-stream.

use serde_json::{json, Value};

use super::http::{error_message, Answer, Call};
use super::{join_url, HostedRequest};
use crate::error::ProviderError;

pub const NAME: &str = "anthropic";

/// The API version sent in `anthropic-version`.
pub const API_VERSION: &str = "2023-06-01";

/// The request body: model, system prompt, the story so far and the turn
/// as alternating messages ([`crate::prompt::Prompt::conversation`]),
/// max_tokens, temperature (Anthropic accepts 0–1, so higher values are
/// capped at 1) and streaming.
pub fn body(req: &HostedRequest) -> Value {
    let messages: Vec<Value> = req
        .prompt
        .conversation()
        .into_iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect();
    json!({
        "model": req.model,
        "system": req.prompt.system,
        "messages": messages,
        "max_tokens": req.max_tokens,
        "temperature": req.temperature.clamp(0.0, 1.0),
        "stream": true,
    })
}

/// `<endpoint>/v1/messages`, or `<endpoint>/messages` when the endpoint already ends in `/v1`.
pub fn url(endpoint: &str) -> String {
    let base = endpoint.trim().trim_end_matches('/');
    if base.ends_with("/v1") {
        join_url(base, "messages")
    } else {
        join_url(base, "v1/messages")
    }
}

/// Streams the answer, passing each text piece to `on_piece` in order. The
/// key goes only into the `x-api-key` header.
pub fn stream(req: &HostedRequest, on_piece: &mut dyn FnMut(&str)) -> Result<(), ProviderError> {
    let key = req.key.ok_or(ProviderError::Unauthorized {
        provider: NAME,
        reason: "no API key is set (apiKey, e.g. ${ANTHROPIC_API_KEY})".into(),
    })?;
    let call = Call {
        provider: NAME,
        url: url(req.endpoint),
        headers: vec![
            ("x-api-key", key.expose().to_string()),
            ("anthropic-version", API_VERSION.to_string()),
        ],
        body: body(req),
        timeout: req.timeout,
        key: Some(key),
    };
    match call.send()? {
        Answer::Json(v) => {
            if v.get("type").and_then(Value::as_str) == Some("error") {
                return Err(stream_error(&call, &v));
            }
            let text: String = v
                .get("content")
                .and_then(Value::as_array)
                .ok_or_else(|| call.malformed("no content in the answer"))?
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect();
            on_piece(&text);
            Ok(())
        }
        Answer::Events(mut events) => {
            while let Some(ev) = events.next_event().map_err(|e| call.read_error(e))? {
                if ev.data.trim().is_empty() {
                    continue;
                }
                let data: Value = serde_json::from_str(&ev.data).map_err(|e| call.malformed(e))?;
                let kind = data
                    .get("type")
                    .and_then(Value::as_str)
                    .or(ev.event.as_deref())
                    .unwrap_or("");
                match kind {
                    "content_block_delta" => {
                        if let Some(t) = data.pointer("/delta/text").and_then(Value::as_str) {
                            if !t.is_empty() {
                                on_piece(t);
                            }
                        }
                    }
                    "message_stop" => break,
                    "error" => return Err(stream_error(&call, &data)),
                    _ => {} // message_start, content_block_start/stop, message_delta, ping
                }
            }
            Ok(())
        }
    }
}

/// An `error` event by its `error.type`.
fn stream_error(call: &Call, data: &Value) -> ProviderError {
    let kind = data
        .pointer("/error/type")
        .and_then(Value::as_str)
        .unwrap_or("");
    match kind {
        "rate_limit_error" => ProviderError::RateLimited {
            provider: NAME,
            retry_after: None,
        },
        "authentication_error" | "permission_error" => ProviderError::Unauthorized {
            provider: NAME,
            reason: kind.replace('_', " "),
        },
        _ => ProviderError::Service {
            provider: NAME,
            status: if kind == "overloaded_error" { 529 } else { 200 },
            message: call
                .key
                .map(|k| k.scrub(&error_message(&data.to_string())))
                .unwrap_or_default(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_has_one_v1() {
        assert_eq!(
            url("https://api.anthropic.com"),
            "https://api.anthropic.com/v1/messages"
        );
        assert_eq!(
            url("http://127.0.0.1:9/v1/"),
            "http://127.0.0.1:9/v1/messages"
        );
    }
}
