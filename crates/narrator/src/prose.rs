//! Free text from the loaded model, for anyone the host lends it to (the
//! storyteller's narration, any skill asking the host to write — see
//! docs/protocol.md, "Host generation"). Runs on the worker thread in a
//! context of its own, so the planner's prompt cache stays warm, and keeps the
//! longest common prefix of the previous request's prompt.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::Arc;
use std::time::{Duration, Instant};

use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;

use crate::decode_loop::{draw, write_tokens, Ending, Writing};
use crate::echo::EchoGuard;
use crate::echo_words::WordEcho;
use crate::engine::Engine;
use crate::error::NarratorError;
use crate::sampler_chain::{sampler_chain, SamplerSettings};
use crate::stops::StopScanner;

/// How to pick each token of prose.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProseSampling {
    /// 0 picks the most likely token each time.
    pub temperature: f32,
    pub top_k: i32,
    pub top_p: f32,
    /// Penalty on the last 64 tokens (1.0 = none); small models loop without one.
    pub repeat_penalty: f32,
    pub seed: u32,
}

impl Default for ProseSampling {
    fn default() -> Self {
        ProseSampling {
            temperature: 0.8,
            top_k: 40,
            top_p: 0.95,
            repeat_penalty: 1.15,
            seed: 0x5eed,
        }
    }
}

impl ProseSampling {
    /// These settings, with the answer's `grammar` if it has one.
    pub(crate) fn settings<'g>(&self, grammar: Option<&'g str>) -> SamplerSettings<'g> {
        SamplerSettings {
            temperature: self.temperature,
            top_k: self.top_k,
            top_p: self.top_p,
            repeat_penalty: self.repeat_penalty,
            seed: self.seed,
            grammar,
        }
    }
}

/// Why prose generation ended (the protocol's `finishReason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finish {
    /// The model ended its answer, or a stop sequence came.
    Stop,
    /// The token budget was spent.
    Length,
    /// The deadline passed; the text so far is kept.
    Deadline,
    /// The asker cancelled; the text so far is kept.
    Cancelled,
}

impl Finish {
    /// The protocol's word for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Finish::Stop => "stop",
            Finish::Length => "length",
            Finish::Deadline => "deadline",
            Finish::Cancelled => "cancelled",
        }
    }
}

/// One finished piece of prose.
#[derive(Debug, Clone, PartialEq)]
pub struct Prose {
    /// Everything written before any stop sequence.
    pub text: String,
    pub finish: Finish,
    pub prompt_tokens: usize,
    /// Prompt tokens served from the cache of the previous request.
    pub cached_tokens: usize,
    pub completion_tokens: usize,
    /// From the job's start to the first sampled token.
    pub first_token: Option<Duration>,
    pub total: Duration,
}

/// What the worker reports while writing prose.
pub enum ProseEvent {
    /// Text certain to be part of the answer.
    Delta(String),
    Done(Result<Prose, NarratorError>),
}

/// One prose request, tokenized.
pub struct ProseJob {
    /// The whole prompt, rendered with the model's chat template.
    pub tokens: Vec<LlamaToken>,
    pub max_tokens: usize,
    pub sampling: ProseSampling,
    pub stops: Vec<String>,
    pub echo: EchoGuard,
    /// The answer's given start (already in `tokens`): a copy that begins in
    /// it is a copy all the same, so the echo guard reads on from it.
    pub answer_start: Vec<i32>,
    /// Ends the answer before a copied run of words the token guard misses.
    pub echo_words: WordEcho,
    /// GBNF with a `root` rule, when the answer must follow a JSON schema.
    pub grammar: Option<String>,
    pub deadline: Instant,
    pub cancel: Arc<AtomicBool>,
    pub events: Sender<ProseEvent>,
}

impl Engine<'_> {
    /// Writes prose for `job`. Promises: at most `max_tokens` tokens; nothing
    /// from a stop sequence on is ever sent or returned; no run of tokens the
    /// echo guard forbids is written, and the answer ends before a run of
    /// words copied in another spelling; a passed deadline or a cancellation
    /// ends it with the text so far (not an error).
    pub(crate) fn write_prose(&mut self, job: ProseJob) -> Result<Prose, NarratorError> {
        let start = Instant::now();
        let max_tokens = self.check_fits(&job)?;
        let reuse = self.arrange(&job.tokens);
        let mut batch = LlamaBatch::new(crate::engine::MAX_CHUNK, 1);
        let mut prose = Prose {
            text: String::new(),
            finish: Finish::Length,
            prompt_tokens: job.tokens.len(),
            cached_tokens: reuse.served(),
            completion_tokens: 0,
            first_token: None,
            total: Duration::ZERO,
        };
        let logits_at = match self.read_spans(&mut batch, &job.tokens, &reuse.read, job.deadline) {
            Ok(at) => at,
            Err(NarratorError::Deadline) => {
                prose.finish = Finish::Deadline;
                prose.total = start.elapsed();
                return Ok(prose);
            }
            Err(e) => return Err(e),
        };
        let mut answer = ProseAnswer {
            chain: sampler_chain(self.model, &job.sampling.settings(job.grammar.as_deref()))?,
            stops: StopScanner::new(&job.stops),
            written: job.answer_start.clone(),
            max_tokens,
            prose,
            job,
        };
        let written = write_tokens(self, &mut batch, logits_at, &mut answer)?;
        if written.ending == Ending::EndOfGeneration {
            answer.prose.finish = Finish::Stop;
        }
        answer.prose.first_token = written.first_token.map(|t| t.duration_since(start));
        answer.finish(&written.pending);
        answer.prose.total = start.elapsed();
        Ok(answer.prose)
    }

    /// The answer's token budget, once the prompt and it fit the context.
    fn check_fits(&self, job: &ProseJob) -> Result<usize, NarratorError> {
        if job.tokens.is_empty() {
            return Err(NarratorError::InvalidOutput("empty prompt".into()));
        }
        let n_ctx = self.ctx.n_ctx() as usize;
        let max_tokens = job.max_tokens.max(1);
        if job.tokens.len() + max_tokens > n_ctx {
            return Err(NarratorError::PromptTooLong {
                needed: job.tokens.len() + max_tokens,
                available: n_ctx,
            });
        }
        Ok(max_tokens)
    }
}

/// Prose as it is written: its own rules for the decode loop (the echo
/// guards, stop sequences, the budget, the deadline and cancellation).
struct ProseAnswer {
    job: ProseJob,
    chain: LlamaSampler,
    stops: StopScanner,
    /// The answer's tokens so far, its given start included.
    written: Vec<i32>,
    max_tokens: usize,
    prose: Prose,
}

impl ProseAnswer {
    /// Sends `text` on and adds it to the answer.
    fn send(&mut self, text: String) {
        if !text.is_empty() {
            self.prose.text.push_str(&text);
            let _ = self.job.events.send(ProseEvent::Delta(text));
        }
    }

    /// Sends what the stop scanner and the word guard still hold, with an
    /// unfinished character's bytes, unless the answer was stopped.
    fn finish(&mut self, pending: &[u8]) {
        if !self.stops.stopped() && !self.job.echo_words.stopped() {
            let rest = String::from_utf8_lossy(pending).into_owned();
            let mut tail = self.stops.push(&rest);
            tail.push_str(&self.stops.finish());
            let mut clear = self.job.echo_words.push(&tail);
            clear.push_str(&self.job.echo_words.finish());
            self.send(clear);
        } else if self.stops.stopped() {
            // What the word guard still holds came before the stop sequence.
            let held = self.job.echo_words.finish();
            self.send(held);
        }
    }
}

impl Writing for ProseAnswer {
    fn halt(&mut self) -> Result<bool, NarratorError> {
        if self.job.cancel.load(Ordering::Relaxed) {
            self.prose.finish = Finish::Cancelled;
            return Ok(true);
        }
        if Instant::now() >= self.job.deadline {
            self.prose.finish = Finish::Deadline;
            return Ok(true);
        }
        Ok(false)
    }

    fn pick(&mut self, engine: &mut Engine<'_>, at: i32) -> Result<LlamaToken, NarratorError> {
        let (echo, written) = (&self.job.echo, &self.written);
        draw(engine, at, &mut self.chain, |candidates| {
            for banned in echo.banned(written) {
                // The candidates come in token order, so the id is the index.
                let slot = match candidates.data.get(banned as usize) {
                    Some(d) if d.id().0 == banned => Some(banned as usize),
                    _ => candidates.data.iter().position(|d| d.id().0 == banned),
                };
                if let Some(i) = slot {
                    candidates.data[i].set_logit(f32::NEG_INFINITY);
                }
            }
        })
    }

    fn accept(&mut self, token: LlamaToken) -> Result<(), NarratorError> {
        self.chain.accept(token);
        self.written.push(token.0);
        self.prose.completion_tokens += 1;
        Ok(())
    }

    fn take(&mut self, piece: &str) -> Result<bool, NarratorError> {
        let clear = self.stops.push(piece);
        let text = self.job.echo_words.push(&clear);
        self.send(text);
        if self.stops.stopped() || self.job.echo_words.stopped() {
            self.prose.finish = Finish::Stop;
            return Ok(false);
        }
        Ok(self.prose.completion_tokens < self.max_tokens)
    }
}
