//! The host provider: the player's model, already loaded and warm in the
//! host, asked through protocol `narratoria/1.1` (docs/protocol.md "Host
//! generation") instead of loading a model in this process.

use std::io::Write;
use std::ops::ControlFlow;

use narratoria_lexicon::{sentence_case, Verdict};
use narratoria_protocol::{FailureCode, GenerateRequest, HostModel, Message, Role};
use narratoria_skills_builtin::host::{ask_while, AskError};
use narratoria_skills_builtin::Events;

use crate::error::ProviderError;
use crate::guards::talk_of_the_story;
use crate::prompt::Prompt;

pub const NAME: &str = "host";

/// Worked turns shown before the real one, as (user message, answer): a
/// small model follows an example's shape far better than a list of rules —
/// one paragraph, second person, the outcome told, the player's words not
/// repeated.
pub const WORKED_TURNS: [(&str, &str); 2] = [
    (
        "Action: I search the grain sacks for the stolen ledger\n\
         What happened:\n- Search the sacks: it fails.\n\
         Narrate what happens next.",
        "You try to search the grain sacks for the stolen ledger, but you find \
         nothing, and dust drifts from the torn sacks. Somewhere above, a \
         floorboard creaks.",
    ),
    (
        "Action: I ask the guard to let me through\n\
         What happened:\n- The watch think better of you (now friendly).\n\
         Narrate what happens next.",
        "You speak calmly, and the guard steps aside with a nod. \"Go on, then. \
         Mind the mud.\"",
    ),
];

/// A way to reach the host's model.
pub trait Host {
    /// What the envelope offered.
    fn model(&self) -> &HostModel;
    /// Sends one request and waits for its end, passing streamed pieces on
    /// while `on_delta` asks for more (then the request is cancelled, and
    /// its end awaited all the same).
    fn ask(
        &mut self,
        request: &GenerateRequest,
        on_delta: &mut dyn FnMut(&str) -> ControlFlow<()>,
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
        on_delta: &mut dyn FnMut(&str) -> ControlFlow<()>,
    ) -> Result<String, AskError> {
        // Whole lines, flushed: they never interleave with the run's own events.
        let mut events: Events<Box<dyn Write>> = Events::new(Box::new(std::io::stdout()));
        let stdin = std::io::stdin();
        let mut replies = stdin.lock();
        ask_while(&mut events, &mut replies, request, on_delta).map(|done| done.text)
    }
}

/// Writes the answer with the host's model, passing each piece to `on_piece`
/// while it asks for more. Promises a text that starts with the prompt's
/// opening and ends at the model's own end, where a small writer's answer
/// ends ([`stops`]), at `max_tokens` (capped by what the host allows), or
/// where `on_piece` broke off.
pub fn generate(
    host: &mut dyn Host,
    prompt: &Prompt,
    temperature: f32,
    max_tokens: u32,
    small: bool,
    on_piece: &mut dyn FnMut(&str) -> ControlFlow<()>,
) -> Result<(), ProviderError> {
    let request = GenerateRequest {
        id: "narrate".into(),
        messages: messages(prompt),
        max_tokens: max_tokens.clamp(1, host.model().max_tokens.max(1)),
        temperature: Some(f64::from(temperature)),
        stop: if small {
            stops()
        } else {
            LABELS.iter().skip(1).map(|l| l.to_string()).collect()
        },
        json_schema: None,
        avoid: [&prompt.action]
            .into_iter()
            .filter(|a| !a.trim().is_empty())
            .cloned()
            .collect(),
        stream: true,
    };
    if on_piece(&prompt.opening).is_break() {
        return Ok(());
    }
    host.ask(&request, on_piece)
        .map(|_| ())
        .map_err(|e| ProviderError::Host {
            code: match &e {
                AskError::Failed(g) => {
                    FailureCode::parse(&g.code).unwrap_or(FailureCode::InternalError)
                }
                _ => FailureCode::InternalError,
            },
            message: e.to_string(),
        })
}

/// Where an answer ends as written: a line break first, then the prompt's
/// labels.
const LABELS: [&str; 3] = ["\n", "Action:", "Narrator:"];

/// The small model's filler after a check, where an answer ends too.
const FILLER: [&str; 2] = ["you are left", "you're left"];

/// The texts where an answer ends, line break first: the prompt's labels,
/// then the filler after a check and each talk of the story
/// ([`talk_of_the_story`]), as written and at a sentence's start.
pub fn stop_texts() -> Vec<String> {
    LABELS
        .iter()
        .map(|e| e.to_string())
        .chain(
            FILLER
                .iter()
                .chain(talk_of_the_story())
                .flat_map(|t| [t.to_string(), sentence_case(t)]),
        )
        .collect()
}

/// Where the answer ends: at a line break (past one a small model starts a
/// new speaker), at the prompt's labels, talk of "the player" or of the
/// story itself ("and the story goes", "the story is about …", "you are
/// back in the narrative state": it has left the story), at "you are
/// left" (the small model's filler after a check, "…, and you are left with
/// the only option to reach the other side", about one check in four), and
/// before the rules' words for a critical result, which only
/// the rules may say (the model copied "it goes better than you could have
/// hoped" from one turn into a failed one).
fn stops() -> Vec<String> {
    let outcome_words = [Verdict::CriticalSuccess, Verdict::CriticalFailure]
        .into_iter()
        .filter_map(Verdict::twist)
        .map(|twist| {
            twist
                .split_whitespace()
                .skip(1)
                .take(4)
                .collect::<Vec<_>>()
                .join(" ")
        });
    stop_texts().into_iter().chain(outcome_words).collect()
}

/// The conversation: the rules, the worked turns (for a small writer), the
/// story so far, the real turn, and the answer's opening when the rules
/// wrote one.
fn messages(prompt: &Prompt) -> Vec<Message> {
    let say = |role, content: &str| Message {
        role,
        content: content.to_string(),
    };
    let mut messages = vec![say(Role::System, &prompt.system)];
    if prompt.worked {
        for (asked, answered) in WORKED_TURNS {
            messages.push(say(Role::User, asked));
            messages.push(say(Role::Assistant, answered));
        }
    }
    for (role, content) in prompt.conversation() {
        messages.push(say(role, &content));
    }
    if !prompt.opening.is_empty() {
        messages.push(say(Role::Assistant, &prompt.opening));
    }
    messages
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_talk_of_the_story_is_a_stop() {
        let stops = stop_texts();
        for talk in talk_of_the_story() {
            let upper = sentence_case(talk);
            assert!(
                stops.iter().any(|s| s == talk) && stops.contains(&upper),
                "{talk}"
            );
        }
    }

    #[test]
    fn the_answer_stops_before_the_rules_own_words() {
        let stops = stops();
        for words in [
            "\n",
            "The player",
            "goes better than you",
            "goes badly wrong",
        ] {
            assert!(stops.iter().any(|s| s == words), "{words:?} in {stops:?}");
        }
    }
}
