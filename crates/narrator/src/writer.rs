//! The loaded model lent out for prose: chat messages in, streamed text out,
//! queued on the worker thread behind any plan being written.

use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use llama_cpp_2::model::LlamaChatMessage;

use crate::echo::EchoGuard;
use crate::echo_words::WordEcho;
use crate::error::NarratorError;
use crate::planner::LlamaPlanner;
use crate::prose::{Prose, ProseEvent, ProseJob, ProseSampling};
use crate::worker::Work;

/// No run of this many tokens of a request's `unechoed` texts (names and
/// numbers aside) is written: four words of the player's may be said again,
/// not five.
pub const UNECHOED_NGRAM: usize = 5;

/// Who says a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    System,
    User,
    Assistant,
}

impl Role {
    fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// A request for prose.
#[derive(Debug, Clone)]
pub struct ProseRequest {
    /// The conversation; a last `Assistant` message is the start of the answer,
    /// which the model continues (it is not repeated in the result).
    pub messages: Vec<(Role, String)>,
    pub max_tokens: usize,
    pub sampling: ProseSampling,
    /// Generation ends before the first of these; none of it is returned.
    pub stops: Vec<String>,
    /// No run of this many tokens from `avoid` may be written (0 or 1: no guard).
    pub echo_ngram: usize,
    pub avoid: Vec<String>,
    /// Texts the answer does not repeat [`UNECHOED_NGRAM`] tokens of in a
    /// row, though the words of names and numbers (words that begin with a
    /// capital or a digit) are never forbidden: the player's words, which the answer tells the
    /// consequences of instead of saying them back (docs/narrator.md,
    /// "Echoes").
    pub unechoed: Vec<String>,
    /// A JSON schema the answer must follow, enforced by grammar.
    pub json_schema: Option<String>,
    pub deadline: Instant,
    pub cancel: Arc<AtomicBool>,
}

impl Default for ProseRequest {
    fn default() -> Self {
        ProseRequest {
            messages: Vec::new(),
            max_tokens: 200,
            sampling: ProseSampling::default(),
            stops: Vec::new(),
            echo_ngram: 0,
            avoid: Vec::new(),
            unechoed: Vec::new(),
            json_schema: None,
            deadline: Instant::now() + Duration::from_secs(60),
            cancel: Arc::new(AtomicBool::new(false)),
        }
    }
}

impl LlamaPlanner {
    /// Writes prose with the loaded model through its own chat template,
    /// passing each piece to `on_delta` as it becomes certain. Promises what
    /// the worker's prose generation promises (budget, stops, echo guard,
    /// deadline and cancellation keep the text so far), and a typed error for
    /// a prompt that does not fit or a schema that is not usable.
    pub fn write(
        &self,
        request: &ProseRequest,
        on_delta: &mut dyn FnMut(&str),
    ) -> Result<Prose, NarratorError> {
        let (prompt, prefill) = self.render_chat(&request.messages)?;
        let vocab = self.model.vocab();
        let mut tokens = vocab.tokenize(prompt.as_bytes(), true, true);
        let mut answer_start = Vec::new();
        if !prefill.is_empty() {
            answer_start = vocab.tokenize(prefill.as_bytes(), false, false);
            tokens.extend(answer_start.iter().copied());
        }
        let (tx, rx) = mpsc::channel();
        self.submit_work(Work::Prose(ProseJob {
            tokens,
            max_tokens: request.max_tokens,
            sampling: request.sampling,
            stops: request.stops.clone(),
            echo: EchoGuard::new(request.echo_ngram, &self.avoided_tokens(request)).and(
                EchoGuard::sparing(UNECHOED_NGRAM, &self.unechoed_tokens(request)),
            ),
            answer_start: answer_start.iter().map(|t| t.0).collect(),
            // The answer's given start is not to be said twice either.
            echo_words: WordEcho::new(
                request.echo_ngram,
                &request
                    .avoid
                    .iter()
                    .chain([&prefill])
                    .cloned()
                    .collect::<Vec<_>>(),
            ),
            grammar: schema_grammar(request)?,
            deadline: request.deadline,
            cancel: request.cancel.clone(),
            events: tx,
        }))?;
        relay(&rx, request.deadline, on_delta)
    }

    /// The texts the answer must not copy, as tokens.
    fn avoided_tokens(&self, request: &ProseRequest) -> Vec<Vec<i32>> {
        let vocab = self.model.vocab();
        request
            .avoid
            .iter()
            .filter(|t| !t.trim().is_empty())
            .map(|t| {
                vocab
                    .tokenize(t.as_bytes(), false, false)
                    .into_iter()
                    .map(|t| t.0)
                    .collect()
            })
            .collect()
    }

    /// The texts the answer does not say back, as tokens, each with whether
    /// it belongs to a name or a number. Tokenized word by word, as the
    /// words come in running text (after a space, but the first).
    fn unechoed_tokens(&self, request: &ProseRequest) -> Vec<(Vec<i32>, Vec<bool>)> {
        let vocab = self.model.vocab();
        request
            .unechoed
            .iter()
            .map(|text| {
                let (mut tokens, mut spared) = (Vec::new(), Vec::new());
                for (i, word) in text.split_whitespace().enumerate() {
                    let named = word
                        .chars()
                        .find(|c| c.is_alphanumeric())
                        .is_some_and(|c| c.is_uppercase() || c.is_numeric());
                    let spelled = if i == 0 {
                        word.to_string()
                    } else {
                        format!(" {word}")
                    };
                    for t in vocab.tokenize(spelled.as_bytes(), false, false) {
                        tokens.push(t.0);
                        spared.push(named);
                    }
                }
                (tokens, spared)
            })
            .collect()
    }

    /// The messages through the model's chat template, ending where the
    /// assistant's answer starts, and the answer's given start (if any).
    fn render_chat(&self, messages: &[(Role, String)]) -> Result<(String, String), NarratorError> {
        let (body, prefill) = match messages.split_last() {
            Some(((Role::Assistant, start), rest)) => (rest, start.clone()),
            _ => (messages, String::new()),
        };
        if body.is_empty() {
            return Err(NarratorError::InvalidOutput(
                "a prose request needs at least one system or user message".into(),
            ));
        }
        let chat = body
            .iter()
            .map(|(role, content)| {
                LlamaChatMessage::new(role.as_str().into(), content.replace('\0', "")).map_err(
                    |e| NarratorError::InvalidOutput(format!("the prompt cannot be encoded: {e}")),
                )
            })
            .collect::<Result<Vec<_>, _>>()?;
        let prompt = self
            .model
            .apply_chat_template(&self.template, &chat, true)
            .map_err(|e| {
                NarratorError::InvalidOutput(format!("cannot apply the chat template: {e}"))
            })?;
        Ok((prompt, prefill))
    }
}

/// The grammar of the request's JSON schema, if it has one.
fn schema_grammar(request: &ProseRequest) -> Result<Option<String>, NarratorError> {
    match &request.json_schema {
        Some(schema) => Ok(Some(llama_cpp_2::json_schema_to_grammar(schema).map_err(
            |e| {
                NarratorError::Grammar(format!(
                    "the JSON schema cannot be turned into a grammar: {e}"
                ))
            },
        )?)),
        None => Ok(None),
    }
}

/// Passes the worker's pieces to `on_delta` until the prose is done. The
/// worker may be busy with a plan first; it keeps to the deadline itself
/// once it starts, so it is allowed a generous grace.
fn relay(
    rx: &mpsc::Receiver<ProseEvent>,
    deadline: Instant,
    on_delta: &mut dyn FnMut(&str),
) -> Result<Prose, NarratorError> {
    let grace = deadline + Duration::from_secs(30);
    loop {
        let left = grace.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(ProseEvent::Delta(piece)) => on_delta(&piece),
            Ok(ProseEvent::Done(result)) => return result,
            Err(RecvTimeoutError::Timeout) => return Err(NarratorError::Deadline),
            Err(RecvTimeoutError::Disconnected) => return Err(NarratorError::WorkerGone),
        }
    }
}
