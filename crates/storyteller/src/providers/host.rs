//! The host provider: the player's model, already loaded and warm in the
//! host, asked through protocol `narratoria/1.1` (docs/protocol.md "Host
//! generation") instead of loading a model in this process.

use std::io::Write;

use narratoria_protocol::{FailureCode, GenerateRequest, HostModel, Message, Role};
use narratoria_skills_builtin::host::{ask, AskError};
use narratoria_skills_builtin::Events;

use crate::error::ProviderError;
use crate::prompt::Prompt;

pub const NAME: &str = "host";

/// The answer starts with this word: second person from the first word (a
/// small model otherwise drifts to "I").
pub const ANSWER_START: &str = "You";

/// A way to reach the host's model.
pub trait Host {
    /// What the envelope offered.
    fn model(&self) -> &HostModel;
    /// Sends one request and waits for its end, passing streamed pieces on.
    fn ask(
        &mut self,
        request: &GenerateRequest,
        on_delta: &mut dyn FnMut(&str),
    ) -> Result<String, AskError>;
}

/// The host over this script's own stdout and stdin.
pub struct Stdio {
    pub model: HostModel,
}

impl Host for Stdio {
    fn model(&self) -> &HostModel {
        &self.model
    }

    fn ask(
        &mut self,
        request: &GenerateRequest,
        on_delta: &mut dyn FnMut(&str),
    ) -> Result<String, AskError> {
        // Whole lines, flushed: they never interleave with the run's own events.
        let mut events: Events<Box<dyn Write>> = Events::new(Box::new(std::io::stdout()));
        let stdin = std::io::stdin();
        let mut replies = stdin.lock();
        ask(&mut events, &mut replies, request, on_delta).map(|done| done.text)
    }
}

/// Writes the answer with the host's model, passing each piece to `on_piece`.
/// Promises a text that starts with [`ANSWER_START`] and ends at the model's
/// own end, a line break, or `max_tokens` (capped by what the host allows).
pub fn generate(
    host: &mut dyn Host,
    prompt: &Prompt,
    temperature: f32,
    max_tokens: u32,
    on_piece: &mut dyn FnMut(&str),
) -> Result<(), ProviderError> {
    let request = GenerateRequest {
        id: "narrate".into(),
        messages: vec![
            Message {
                role: Role::System,
                content: prompt.system.clone(),
            },
            Message {
                role: Role::User,
                content: prompt.user.clone(),
            },
            Message {
                role: Role::Assistant,
                content: ANSWER_START.into(),
            },
        ],
        max_tokens: max_tokens.clamp(1, host.model().max_tokens.max(1)),
        temperature: Some(f64::from(temperature)),
        // One paragraph: past a line break a small model starts a new speaker.
        stop: vec!["\n".into()],
        json_schema: None,
        stream: true,
    };
    on_piece(ANSWER_START);
    host.ask(&request, on_piece)
        .map(|_| ())
        .map_err(|e| ProviderError::Host {
            code: match &e {
                AskError::Failed(g) => FailureCode::parse(&g.code).unwrap_or(FailureCode::InternalError),
                _ => FailureCode::InternalError,
            },
            message: e.to_string(),
        })
}
