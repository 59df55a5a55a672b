//! The generation thread. A llama.cpp context is not `Send`, so one thread
//! owns it for the planner's whole life and serves jobs from a channel; it
//! keeps the KV cache of the previous prompt and reuses its longest common
//! token prefix.

use std::sync::mpsc::{Receiver, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::data::LlamaTokenData;
use llama_cpp_2::token::data_array::LlamaTokenDataArray;
use llama_cpp_2::token::LlamaToken;

use crate::error::NarratorError;
use crate::stream::NarrativeScanner;

/// Tokens decoded per batch while reading the prompt; the deadline is checked between batches.
const PROMPT_CHUNK: usize = 128;

/// How to pick each token.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sampling {
    pub temperature: f32,
    pub top_k: i32,
    pub top_p: f32,
    pub seed: u32,
    /// Sample without the grammar, check the chosen token, resample with it only on rejection.
    pub sample_then_check: bool,
}

/// One generation request.
pub struct Job {
    /// The whole prompt, ending with the forced start of the answer.
    pub tokens: Vec<LlamaToken>,
    /// The forced start of the answer (already in `tokens`), for the grammar and the scanner.
    pub forced: Vec<LlamaToken>,
    pub forced_text: String,
    /// GBNF with a `root` rule; empty for no constraint.
    pub grammar: String,
    pub sampling: Sampling,
    /// 0 reads the prompt into the cache and stops.
    pub max_new_tokens: usize,
    pub deadline: Instant,
    /// Drop the whole cache first (an empty `tokens` then does nothing else).
    pub forget: bool,
    pub events: Sender<Event>,
}

/// What the worker reports while serving a job.
pub enum Event {
    Narrative(String),
    Done(Result<Generated, NarratorError>),
}

/// The record of one finished generation.
#[derive(Debug, Clone, PartialEq)]
pub struct Generated {
    /// The forced start followed by everything the model wrote.
    pub text: String,
    pub prompt_tokens: usize,
    pub cached_tokens: usize,
    pub completion_tokens: usize,
    /// From the job's start to reading the whole prompt.
    pub prompt_time: Duration,
    /// From the job's start to the first sampled token.
    pub first_token: Option<Duration>,
    pub total: Duration,
}

/// Context settings.
#[derive(Debug, Clone, Copy)]
pub struct ContextSettings {
    pub n_ctx: u32,
    pub threads: i32,
}

/// Starts the worker: creates the context on the new thread, reports
/// readiness (or the error) on `ready`, then serves `jobs` until the sender is dropped.
pub fn spawn(
    model: Arc<LlamaModel>,
    settings: ContextSettings,
    jobs: Receiver<Job>,
    ready: Sender<Result<(), NarratorError>>,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    std::thread::Builder::new()
        .name("narrator-llama".into())
        .spawn(move || {
            let backend = match crate::backend::backend() {
                Ok(b) => b,
                Err(e) => {
                    let _ = ready.send(Err(e));
                    return;
                }
            };
            let params = LlamaContextParams::default()
                .with_n_ctx(std::num::NonZeroU32::new(settings.n_ctx))
                .with_n_batch(512)
                .with_n_ubatch(512)
                .with_n_threads(settings.threads)
                .with_n_threads_batch(settings.threads);
            let ctx = match model.new_context(backend, params) {
                Ok(c) => c,
                Err(e) => {
                    let _ = ready.send(Err(NarratorError::Context(e.to_string())));
                    return;
                }
            };
            let _ = ready.send(Ok(()));
            let mut engine = Engine {
                model: &model,
                ctx,
                cached: Vec::new(),
            };
            while let Ok(job) = jobs.recv() {
                let events = job.events.clone();
                let result = engine.run(job);
                let _ = events.send(Event::Done(result));
            }
        })
}

struct Engine<'m> {
    model: &'m LlamaModel,
    ctx: LlamaContext<'m>,
    /// The tokens whose keys and values sit in the cache (sequence 0), in order.
    cached: Vec<LlamaToken>,
}

fn common_prefix(a: &[LlamaToken], b: &[LlamaToken]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

impl Engine<'_> {
    fn forget(&mut self) {
        self.ctx.clear_kv_cache();
        self.cached.clear();
    }

    fn decode(&mut self, batch: &mut LlamaBatch) -> Result<(), NarratorError> {
        self.ctx.decode(batch).map_err(|e| {
            self.forget();
            NarratorError::Decode(e.to_string())
        })
    }

    fn run(&mut self, job: Job) -> Result<Generated, NarratorError> {
        let start = Instant::now();
        if job.forget {
            self.forget();
            if job.tokens.is_empty() {
                return Ok(Generated {
                    text: String::new(),
                    prompt_tokens: 0,
                    cached_tokens: 0,
                    completion_tokens: 0,
                    prompt_time: Duration::ZERO,
                    first_token: None,
                    total: Duration::ZERO,
                });
            }
        }
        if start >= job.deadline {
            return Err(NarratorError::Deadline);
        }
        let n_ctx = self.ctx.n_ctx() as usize;
        if job.tokens.is_empty() {
            return Err(NarratorError::InvalidOutput("empty prompt".into()));
        }
        if job.tokens.len() + job.max_new_tokens > n_ctx {
            return Err(NarratorError::PromptTooLong {
                needed: job.tokens.len() + job.max_new_tokens,
                available: n_ctx,
            });
        }

        // Reuse the cached prefix; at least one token must be decoded for fresh logits.
        let mut keep = common_prefix(&self.cached, &job.tokens);
        if keep == job.tokens.len() {
            keep -= 1;
        }
        if self
            .ctx
            .clear_kv_cache_seq(Some(0), Some(keep as u32), None)
            .map_err(|e| NarratorError::Decode(e.to_string()))
            .is_err()
        {
            self.forget();
            keep = 0;
        }
        self.cached.truncate(keep);
        let cached_tokens = keep;

        let mut batch = LlamaBatch::new(PROMPT_CHUNK.max(1), 1);
        let mut pos = keep;
        let last = job.tokens.len() - 1;
        while pos < job.tokens.len() {
            if Instant::now() >= job.deadline {
                return Err(NarratorError::Deadline);
            }
            let end = (pos + PROMPT_CHUNK).min(job.tokens.len());
            batch.clear();
            for (i, &t) in job.tokens[pos..end].iter().enumerate() {
                let p = pos + i;
                batch
                    .add(t, p as i32, &[0], p == last)
                    .map_err(|e| NarratorError::Decode(e.to_string()))?;
            }
            self.decode(&mut batch)?;
            self.cached.extend_from_slice(&job.tokens[pos..end]);
            pos = end;
        }
        let prompt_time = start.elapsed();
        let mut done = Generated {
            text: job.forced_text.clone(),
            prompt_tokens: job.tokens.len(),
            cached_tokens,
            completion_tokens: 0,
            prompt_time,
            first_token: None,
            total: prompt_time,
        };
        if job.max_new_tokens == 0 {
            return Ok(done);
        }

        let mut grammar = if job.grammar.is_empty() {
            None
        } else {
            let mut g = LlamaSampler::grammar(self.model, &job.grammar, "root")
                .map_err(|e| NarratorError::Grammar(e.to_string()))?;
            for &t in &job.forced {
                g.try_accept(t).map_err(|e| {
                    NarratorError::Grammar(format!("the answer's forced start is rejected: {e}"))
                })?;
            }
            Some(g)
        };
        let s = job.sampling;
        let mut chain = LlamaSampler::chain_simple([
            LlamaSampler::top_k(s.top_k),
            LlamaSampler::top_p(s.top_p, 1),
            LlamaSampler::temp(s.temperature),
            LlamaSampler::dist(s.seed),
        ]);

        let model = self.model;
        let vocab = model.vocab();
        let mut scanner = NarrativeScanner::new();
        scanner.push(&job.forced_text);
        let mut pending: Vec<u8> = Vec::new();
        let mut logits_at = batch.n_tokens() - 1;
        let mut sample_time = Duration::ZERO;
        let mut decode_time = Duration::ZERO;
        loop {
            if Instant::now() >= job.deadline {
                return Err(NarratorError::Deadline);
            }
            if done.completion_tokens >= job.max_new_tokens {
                return Err(NarratorError::InvalidOutput(format!(
                    "no complete plan within {} tokens: {}",
                    job.max_new_tokens, done.text
                )));
            }
            let t0 = Instant::now();
            let token =
                self.sample(logits_at, grammar.as_mut(), &mut chain, s.sample_then_check)?;
            sample_time += t0.elapsed();
            done.first_token.get_or_insert_with(|| start.elapsed());
            if vocab.is_eog(token) {
                break;
            }
            if let Some(g) = grammar.as_mut() {
                g.try_accept(token).map_err(|e| {
                    NarratorError::InvalidOutput(format!("grammar rejected a sampled token: {e}"))
                })?;
            }
            chain.accept(token);
            done.completion_tokens += 1;

            pending.extend(vocab.token_to_piece(token, false, None));
            let valid = match std::str::from_utf8(&pending) {
                Ok(s) => s.len(),
                Err(e) if e.error_len().is_some() => {
                    // Invalid bytes: replace and move on.
                    let text = String::from_utf8_lossy(&pending).into_owned();
                    pending.clear();
                    pending.extend(text.into_bytes());
                    pending.len()
                }
                Err(e) => e.valid_up_to(),
            };
            let piece: String = String::from_utf8_lossy(&pending[..valid]).into_owned();
            pending.drain(..valid);
            if !piece.is_empty() {
                done.text.push_str(&piece);
                let narrative = scanner.push(&piece);
                if !narrative.is_empty() && job.events.send(Event::Narrative(narrative)).is_err() {
                    // Nobody is waiting any more.
                    return Err(NarratorError::Deadline);
                }
            }
            if scanner.is_complete() {
                break;
            }

            batch.clear();
            batch
                .add(token, pos as i32, &[0], true)
                .map_err(|e| NarratorError::Decode(e.to_string()))?;
            let t0 = Instant::now();
            self.decode(&mut batch)?;
            decode_time += t0.elapsed();
            self.cached.push(token);
            pos += 1;
            logits_at = 0;
        }
        done.total = start.elapsed();
        tracing::debug!(
            ?sample_time,
            ?decode_time,
            tokens = done.completion_tokens,
            "generation timings"
        );
        Ok(done)
    }

    /// One token from the logits at batch index `at`, allowed by `grammar`.
    fn sample(
        &mut self,
        at: i32,
        grammar: Option<&mut LlamaSampler>,
        chain: &mut LlamaSampler,
        sample_then_check: bool,
    ) -> Result<LlamaToken, NarratorError> {
        let Some(grammar) = grammar else {
            let mut cur = self.ctx.token_data_array_ith(at);
            cur.apply_sampler(chain);
            return cur
                .selected_token()
                .ok_or_else(|| NarratorError::Decode("the sampler selected no token".into()));
        };
        if sample_then_check {
            let mut cur = self.ctx.token_data_array_ith(at);
            cur.apply_sampler(chain);
            if let Some(token) = cur.selected_token() {
                let mut one =
                    LlamaTokenDataArray::new(vec![LlamaTokenData::new(token, 1.0, 0.0)], false);
                one.apply_sampler(grammar);
                if one.data.first().is_some_and(|d| d.logit().is_finite()) {
                    return Ok(token);
                }
            }
        }
        let mut cur = self.ctx.token_data_array_ith(at);
        cur.apply_sampler(grammar);
        if !cur.data.iter().any(|d| d.logit().is_finite()) {
            return Err(NarratorError::InvalidOutput(
                "the grammar allows no further token".into(),
            ));
        }
        cur.apply_sampler(chain);
        cur.selected_token()
            .ok_or_else(|| NarratorError::Decode("the sampler selected no token".into()))
    }
}
