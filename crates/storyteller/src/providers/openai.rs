//! OpenAI-compatible Chat Completions with `stream: true` — OpenAI itself,
//! Ollama (`http://localhost:11434/v1`) and llama-server (`http://localhost:8080/v1`).
//! The answer is Server-Sent Events whose `data:` is a chunk with
//! `choices[0].delta.content`, ended by `data: [DONE]`.

use serde_json::{json, Value};

use super::http::{Answer, Call};
use super::{join_url, HostedRequest};
use crate::error::ProviderError;

pub const NAME: &str = "openai";

/// The request body: the system message, the story so far and the turn
/// ([`crate::prompt::Prompt::conversation`]), model, temperature,
/// max_tokens, streaming.
pub fn body(req: &HostedRequest) -> Value {
    let mut messages = vec![json!({"role": "system", "content": req.prompt.system})];
    messages.extend(
        req.prompt
            .conversation()
            .into_iter()
            .map(|(role, content)| json!({"role": role, "content": content})),
    );
    json!({
        "model": req.model,
        "messages": messages,
        "temperature": req.temperature,
        "max_tokens": req.max_tokens,
        "stream": true,
    })
}

/// Streams the answer, passing each text piece to `on_piece` in order.
/// Returns once the stream ends (`[DONE]` or end of body); a key, when
/// given, goes only into the `Authorization: Bearer` header.
pub fn stream(req: &HostedRequest, on_piece: &mut dyn FnMut(&str)) -> Result<(), ProviderError> {
    let mut headers = Vec::new();
    if let Some(k) = req.key {
        headers.push(("authorization", format!("Bearer {}", k.expose())));
    }
    let call = Call {
        provider: NAME,
        url: join_url(req.endpoint, "chat/completions"),
        headers,
        body: body(req),
        timeout: req.timeout,
        key: req.key,
    };
    match call.send()? {
        Answer::Json(v) => {
            if let Some(e) = v.get("error") {
                return Err(call.reported(e));
            }
            let text = v
                .pointer("/choices/0/message/content")
                .and_then(Value::as_str)
                .ok_or_else(|| call.malformed("no choices[0].message.content in the answer"))?;
            on_piece(text);
            Ok(())
        }
        Answer::Events(mut events) => {
            while let Some(ev) = events.next_event().map_err(|e| call.read_error(e))? {
                let data = ev.data.trim();
                if data == "[DONE]" {
                    break;
                }
                if data.is_empty() {
                    continue;
                }
                let chunk: Value = serde_json::from_str(data).map_err(|e| call.malformed(e))?;
                if let Some(e) = chunk.get("error") {
                    return Err(call.reported(e));
                }
                if let Some(choices) = chunk.get("choices").and_then(Value::as_array) {
                    for c in choices {
                        if let Some(t) = c.pointer("/delta/content").and_then(Value::as_str) {
                            if !t.is_empty() {
                                on_piece(t);
                            }
                        }
                    }
                }
            }
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prompt::Prompt;
    use std::time::Duration;

    #[test]
    fn body_carries_model_sampling_and_both_messages() {
        let prompt = Prompt {
            system: "sys".into(),
            user: "usr".into(),
            opening: "You".into(),
            ..Prompt::default()
        };
        let req = HostedRequest {
            endpoint: "http://x/v1",
            model: "m",
            key: None,
            prompt: &prompt,
            temperature: 0.5,
            max_tokens: 64,
            timeout: Duration::from_secs(1),
        };
        let b = body(&req);
        assert_eq!(b["model"], "m");
        assert_eq!(b["stream"], true);
        assert_eq!(b["max_tokens"], 64);
        assert_eq!(b["messages"][0]["content"], "sys");
        assert_eq!(b["messages"][1]["role"], "user");
    }
}
