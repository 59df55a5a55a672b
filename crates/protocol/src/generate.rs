//! Host generation (`narratoria/1.1`): a script asks the host's loaded
//! language model to write text. What the host offers (in the envelope), the
//! `generate` request a script writes on stdout, and the `generated` replies
//! the host writes on the script's stdin.
//!
//! Which scripts may send a request (their skill must declare the `generate`
//! capability), how many may be in flight and how `maxTokens` is bounded are
//! the engine's rules, not this crate's.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::failure::FailureCode;

/// What the host offers a `narratoria/1.1` script: the envelope's `host`
/// field. `{}` (no `generate`) when the host has no model loaded.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HostCapabilities {
    /// The loaded model, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generate: Option<HostModel>,
}

/// The model a script's `generate` requests go to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HostModel {
    /// The model's file name.
    pub model: String,
    /// The model's context window, in tokens.
    pub context_tokens: u32,
    /// The most tokens one request may ask for.
    pub max_tokens: u32,
    /// The model's parameter count, when the host knows it: a script sizes
    /// its prompts and answers by it (docs/protocol.md, "Host generation").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<u64>,
}

/// A `generate` request (a stdout event of a `narratoria/1.1` script).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GenerateRequest {
    /// Chosen by the script; every reply carries it back.
    pub id: String,
    pub messages: Vec<Message>,
    /// At most the host's `maxTokens`.
    pub max_tokens: u32,
    /// Sampling temperature; the host's default when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Texts that end the generation when produced.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop: Vec<String>,
    /// A JSON Schema the output must match (enforced by grammar).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json_schema: Option<Value>,
    /// Texts the output is not to say back (the player's words, for a
    /// narration): the host keeps it from copying runs of them, runs of
    /// names and numbers aside (docs/protocol.md, "Host generation").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub avoid: Vec<String>,
    /// Whether the host sends `delta` replies while it writes.
    #[serde(default)]
    pub stream: bool,
}

/// One message of a generation's conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Message {
    pub role: Role,
    pub content: String,
}

/// Who speaks a [`Message`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
}

/// One line the host writes on a `narratoria/1.1` script's stdin after the
/// envelope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
#[schemars(title = "Host message (narratoria/1.1, on a script's stdin)")]
pub enum HostMessage {
    Generated(Generated),
}

/// A reply to the `generate` request named by `id`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Generated {
    pub id: String,
    #[serde(flatten)]
    pub reply: Reply,
}

/// What a [`Generated`] reply says: zero or more deltas (when streaming),
/// then exactly one completion or failure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Reply {
    /// The next piece of text.
    Delta { delta: String },
    /// The whole text; no more replies follow for this request.
    Done(Completion),
    /// The request failed; no more replies follow for this request.
    Failed { error: GenerationError },
}

/// A finished generation (written with `"done": true`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// Always `true`: marks the final reply.
    #[serde(with = "always_true")]
    #[schemars(with = "bool", extend("const" = true))]
    pub done: AlwaysTrue,
    /// All of the text, deltas included.
    pub text: String,
    pub finish_reason: FinishReason,
    pub usage: Usage,
}

/// The `done: true` marker of a [`Completion`]; it cannot be `false`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AlwaysTrue;

mod always_true {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(_: &super::AlwaysTrue, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bool(true)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<super::AlwaysTrue, D::Error> {
        match bool::deserialize(d)? {
            true => Ok(super::AlwaysTrue),
            false => Err(serde::de::Error::custom("\"done\" can only be true")),
        }
    }
}

/// Why a generation ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FinishReason {
    /// The model ended it, or a stop text was produced.
    Stop,
    /// `maxTokens` was reached.
    Length,
    /// The tool's time limit ran out.
    Deadline,
    /// The host gave up on it (e.g. the script stopped reading its stdin).
    Cancelled,
}

/// What a generation cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    pub prompt_tokens: u32,
    /// Prompt tokens served from the model's cache.
    pub cached_tokens: u32,
    pub completion_tokens: u32,
    /// Wall time, in milliseconds.
    pub ms: u64,
}

/// Why a generation failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct GenerationError {
    /// A failure code; codes the protocol does not define are kept as text.
    pub code: String,
    pub message: String,
}

impl GenerationError {
    /// The code, when the protocol defines it.
    pub fn failure_code(&self) -> Option<FailureCode> {
        FailureCode::parse(&self.code)
    }
}

/// Why a stdin line is not a host message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a host message: {0}")]
pub struct HostMessageError(pub String);

impl HostMessage {
    /// Parses one stdin line (surrounding whitespace ignored). Unknown extra
    /// fields are ignored.
    pub fn parse(line: &str) -> Result<HostMessage, HostMessageError> {
        serde_json::from_str(line.trim()).map_err(|e| {
            let reason = e.to_string();
            HostMessageError(if reason.contains("untagged enum Reply") {
                "a \"generated\" reply needs \"delta\", \"done\":true with \"text\", \"finishReason\" and \"usage\", or \"error\"".into()
            } else {
                reason
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<HostMessage, HostMessageError> {
        HostMessage::parse(line)
    }

    fn reply(line: &str) -> Reply {
        let HostMessage::Generated(g) = parse(line).unwrap();
        g.reply
    }

    #[test]
    fn parses_each_reply() {
        assert_eq!(
            reply(r#"{"type":"generated","id":"g","delta":"Once"}"#),
            Reply::Delta {
                delta: "Once".into()
            }
        );
        let done = reply(
            r#"{"type":"generated","id":"g","done":true,"text":"Once upon","finishReason":"length","usage":{"promptTokens":10,"cachedTokens":4,"completionTokens":2,"ms":31}}"#,
        );
        let Reply::Done(c) = done else {
            panic!("{done:?}")
        };
        assert_eq!(c.finish_reason, FinishReason::Length);
        assert_eq!(c.usage.cached_tokens, 4);
        let Reply::Failed { error } = reply(
            r#"{"type":"generated","id":"g","error":{"code":"TIMEOUT","message":"too slow"}}"#,
        ) else {
            panic!()
        };
        assert_eq!(error.failure_code(), Some(FailureCode::Timeout));
    }

    #[test]
    fn rejects_malformed_replies() {
        assert!(parse("nope").is_err());
        assert!(parse(r#"{"type":"other","id":"g","delta":"x"}"#).is_err());
        assert!(parse(r#"{"type":"generated","delta":"x"}"#).is_err());
        let e = parse(r#"{"type":"generated","id":"g"}"#).unwrap_err();
        assert!(e.to_string().contains("\"delta\""), "{e}");
        assert!(parse(
            r#"{"type":"generated","id":"g","done":false,"text":"","finishReason":"stop","usage":{"promptTokens":1,"cachedTokens":0,"completionTokens":0,"ms":1}}"#
        )
        .is_err());
        assert!(parse(
            r#"{"type":"generated","id":"g","done":true,"text":"","finishReason":"bored","usage":{"promptTokens":1,"cachedTokens":0,"completionTokens":0,"ms":1}}"#
        )
        .is_err());
    }

    #[test]
    fn host_capabilities_may_be_empty() {
        let none: HostCapabilities = serde_json::from_str("{}").unwrap();
        assert_eq!(none.generate, None);
        assert_eq!(serde_json::to_string(&none).unwrap(), "{}");
    }
}
