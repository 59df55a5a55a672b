//! Asking the host's loaded model to write (protocol `narratoria/1.1`,
//! docs/protocol.md "Host generation"): a `generate` event out, the host's
//! `generated` replies in on stdin.

use std::io::{BufRead, Write};
use std::ops::ControlFlow;

use narratoria_protocol::{
    Completion, Event, GenerateRequest, GenerationError, HostMessage, HostModel, Reply,
};

use crate::protocol::Events;

/// Why a request to the host gave no text.
#[derive(Debug, thiserror::Error)]
pub enum AskError {
    /// The host answered with a failure.
    #[error("the host's model failed ({}): {}", .0.code, .0.message)]
    Failed(GenerationError),
    /// The host closed stdin before the request was finished.
    #[error("the host stopped answering before the text was finished")]
    Closed,
    #[error("cannot read the host's reply: {0}")]
    Read(#[from] std::io::Error),
    #[error("the host's reply is not understood: {0}")]
    Malformed(String),
}

/// The host's model as the envelope offers it; `None` when the host has no
/// model or speaks only `narratoria/1`.
pub fn offered(envelope: &crate::Envelope) -> Option<&HostModel> {
    envelope.host.as_ref()?.generate.as_ref()
}

/// Sends `request` and reads the replies to it from `replies` (stdin in a
/// script), passing each streamed piece to `on_delta`. Promises the finished
/// completion, or the reason there is none; replies to other ids are skipped.
pub fn ask<W: Write>(
    events: &mut Events<W>,
    replies: &mut dyn BufRead,
    request: &GenerateRequest,
    on_delta: &mut dyn FnMut(&str),
) -> Result<Completion, AskError> {
    ask_while(events, replies, request, &mut |delta| {
        on_delta(delta);
        ControlFlow::Continue(())
    })
}

/// [`ask`], passing pieces on only while `on_delta` asks for more: when it
/// breaks off (the answer it needed had come, or it turned the answer
/// down), the request is cancelled (a `cancel` event, docs/protocol.md
/// "Host generation") and its end awaited, so the next request may follow
/// at once. Promises the completion (`finishReason: "cancelled"` when it
/// was cut short), or the reason there is none.
pub fn ask_while<W: Write>(
    events: &mut Events<W>,
    replies: &mut dyn BufRead,
    request: &GenerateRequest,
    on_delta: &mut dyn FnMut(&str) -> ControlFlow<()>,
) -> Result<Completion, AskError> {
    events.event(&Event::Generate(request.clone()));
    let mut reading = true;
    let mut line = String::new();
    loop {
        line.clear();
        if replies.read_line(&mut line)? == 0 {
            return Err(AskError::Closed);
        }
        if line.trim().is_empty() {
            continue;
        }
        let HostMessage::Generated(generated) =
            serde_json::from_str(&line).map_err(|e| AskError::Malformed(e.to_string()))?;
        if generated.id != request.id {
            continue;
        }
        match generated.reply {
            Reply::Delta { delta } if reading => {
                if on_delta(&delta).is_break() {
                    reading = false;
                    events.event(&Event::Cancel {
                        id: request.id.clone(),
                    });
                }
            }
            Reply::Delta { .. } => {}
            Reply::Done(completion) => return Ok(completion),
            Reply::Failed { error } => return Err(AskError::Failed(error)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use narratoria_protocol::{Message, Role};

    fn request() -> GenerateRequest {
        GenerateRequest {
            id: "g1".into(),
            messages: vec![Message {
                role: Role::User,
                content: "Tell it.".into(),
            }],
            max_tokens: 32,
            temperature: None,
            stop: vec![],
            json_schema: None,
            avoid: Vec::new(),
            stream: true,
        }
    }

    #[test]
    fn streams_deltas_then_returns_the_completion() {
        let mut out = Vec::new();
        let mut events = Events::new(&mut out);
        let replies = concat!(
            r#"{"type":"generated","id":"other","delta":"x"}"#,
            "\n",
            r#"{"type":"generated","id":"g1","delta":"You "}"#,
            "\n",
            r#"{"type":"generated","id":"g1","delta":"win."}"#,
            "\n",
            r#"{"type":"generated","id":"g1","done":true,"text":"You win.","finishReason":"stop","usage":{"promptTokens":5,"cachedTokens":0,"completionTokens":3,"ms":9}}"#,
            "\n",
        );
        let mut pieces = Vec::new();
        let done = ask(&mut events, &mut replies.as_bytes(), &request(), &mut |p| {
            pieces.push(p.to_string())
        })
        .unwrap();
        assert_eq!(pieces, ["You ", "win."]);
        assert_eq!(done.text, "You win.");
        let sent = String::from_utf8(out).unwrap();
        assert!(
            sent.starts_with(r#"{"type":"generate","id":"g1""#),
            "{sent}"
        );
    }

    #[test]
    fn a_failure_and_a_closed_stdin_are_errors() {
        let mut sink = Vec::new();
        let failed =
            r#"{"type":"generated","id":"g1","error":{"code":"TIMEOUT","message":"slow"}}"#;
        let err = ask(
            &mut Events::new(&mut sink),
            &mut failed.as_bytes(),
            &request(),
            &mut |_| {},
        );
        assert!(matches!(err, Err(AskError::Failed(e)) if e.code == "TIMEOUT"));
        let err = ask(
            &mut Events::new(&mut sink),
            &mut "".as_bytes(),
            &request(),
            &mut |_| {},
        );
        assert!(matches!(err, Err(AskError::Closed)));
        let err = ask(
            &mut Events::new(&mut sink),
            &mut "{nope\n".as_bytes(),
            &request(),
            &mut |_| {},
        );
        assert!(matches!(err, Err(AskError::Malformed(_))));
    }

    #[test]
    fn a_request_broken_off_is_cancelled_and_its_end_awaited() {
        let mut out = Vec::new();
        let replies = concat!(
            r#"{"type":"generated","id":"g1","delta":"You win. "}"#,
            "\n",
            r#"{"type":"generated","id":"g1","delta":"And more."}"#,
            "\n",
            r#"{"type":"generated","id":"g1","done":true,"text":"You win. And more.","finishReason":"cancelled","usage":{"promptTokens":5,"cachedTokens":0,"completionTokens":4,"ms":9}}"#,
            "\n",
        );
        let mut read = Vec::new();
        let done = ask_while(
            &mut Events::new(&mut out),
            &mut replies.as_bytes(),
            &request(),
            &mut |p| {
                read.push(p.to_string());
                ControlFlow::Break(())
            },
        )
        .unwrap();
        assert_eq!(read, ["You win. "], "nothing is passed on after the break");
        assert_eq!(
            done.finish_reason,
            narratoria_protocol::FinishReason::Cancelled
        );
        let sent = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = sent.lines().collect();
        assert_eq!(lines.len(), 2, "{sent}");
        assert_eq!(lines[1], r#"{"type":"cancel","id":"g1"}"#);
    }
}
