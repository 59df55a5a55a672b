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

use crate::decode_loop::{write_tokens, Ending, Writing, Written};
use crate::engine::{Engine, MAX_CHUNK};
use crate::error::NarratorError;
use crate::sampler_chain::{sampler_chain, SamplerSettings};
use crate::stream::{NarrativeScanner, ValueEnd};

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

impl Sampling {
    /// The chain's settings: no repetition penalty, and no grammar, which
    /// each segment checks on its own.
    fn settings(&self) -> SamplerSettings<'static> {
        SamplerSettings {
            temperature: self.temperature,
            top_k: self.top_k,
            top_p: self.top_p,
            repeat_penalty: 1.0,
            seed: self.seed,
            grammar: None,
        }
    }
}

/// One stretch of the answer: text the host writes, then text the model
/// writes under a grammar until the grammar is complete.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Segment {
    /// Written by the host and read like prompt text (no sampling).
    pub forced: String,
    /// GBNF with a `root` rule; the segment ends when it is complete (or the
    /// JSON answer is). Empty: the job reads its prompt and stops.
    pub grammar: String,
    /// The end of `forced` that the grammar itself starts with (pre-accepted).
    pub grammar_start: String,
}

/// What comes after a finished segment, decided from the answer so far.
pub enum Next {
    Segment(Segment),
    /// The answer is complete once this text is appended (it is not decoded).
    Finish(String),
}

/// Chooses the next segment from the answer written so far.
pub type Continuation = Box<dyn FnMut(&str) -> Result<Next, NarratorError> + Send>;

/// One generation request.
pub struct Job {
    /// The prompt, without the first segment's forced text.
    pub tokens: Vec<LlamaToken>,
    pub first: Segment,
    pub next: Continuation,
    pub sampling: Sampling,
    /// 0 reads the prompt into the cache and stops.
    pub max_new_tokens: usize,
    pub deadline: Instant,
    /// Drop the whole cache first (an empty `tokens` then does nothing else).
    pub forget: bool,
    pub events: Sender<Event>,
}

impl Job {
    /// A job that only reads `tokens` into the cache (or, with `forget`, empties it first).
    pub fn read_only(
        tokens: Vec<LlamaToken>,
        sampling: Sampling,
        deadline: Instant,
        forget: bool,
        events: Sender<Event>,
    ) -> Job {
        Job {
            tokens,
            first: Segment::default(),
            next: Box::new(|_| Ok(Next::Finish(String::new()))),
            sampling,
            max_new_tokens: 0,
            deadline,
            forget,
            events,
        }
    }
}

/// What the worker reports while serving a job.
pub enum Event {
    Narrative(String),
    Done(Result<Generated, NarratorError>),
}

/// The record of one finished generation.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Generated {
    /// The whole answer: the host's forced text and what the model wrote.
    pub text: String,
    pub prompt_tokens: usize,
    pub cached_tokens: usize,
    /// Tokens the model sampled.
    pub completion_tokens: usize,
    /// Tokens the host wrote after the prompt (between segments).
    pub forced_tokens: usize,
    /// From the job's start to reading the whole prompt.
    pub prompt_time: Duration,
    /// From the job's start to the first sampled token.
    pub first_token: Option<Duration>,
    pub total: Duration,
}

/// Work for the worker thread.
pub enum Work {
    /// A plan (or a prompt read) in the planner's context.
    Plan(Job),
    /// Prose in the prose context, made on first use.
    Prose(crate::prose::ProseJob),
}

/// Context settings.
#[derive(Debug, Clone, Copy)]
pub struct ContextSettings {
    pub n_ctx: u32,
    /// Context size for prose (its own context, beside the planner's).
    pub prose_n_ctx: u32,
    /// Threads for prompt reading.
    pub threads: i32,
    /// Threads for one-token decoding.
    pub decode_threads: i32,
}

/// Starts the worker: creates the context on the new thread, reports
/// readiness (or the error) on `ready`, then serves `jobs` until the sender is dropped.
pub fn spawn(
    model: Arc<LlamaModel>,
    settings: ContextSettings,
    jobs: Receiver<Work>,
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
            let ctx = match new_context(&model, backend, settings, settings.n_ctx) {
                Ok(c) => c,
                Err(e) => {
                    let _ = ready.send(Err(e));
                    return;
                }
            };
            let _ = ready.send(Ok(()));
            let mut engine = Engine::new(&model, ctx);
            let mut prose: Option<Engine> = None;
            while let Ok(work) = jobs.recv() {
                match work {
                    Work::Plan(job) => {
                        let events = job.events.clone();
                        let result = engine.run(job);
                        let _ = events.send(Event::Done(result));
                    }
                    Work::Prose(job) => {
                        let events = job.events.clone();
                        let result = match &mut prose {
                            Some(p) => p.write_prose(job),
                            None => {
                                match new_context(&model, backend, settings, settings.prose_n_ctx) {
                                    Ok(ctx) => {
                                        prose.insert(Engine::new(&model, ctx)).write_prose(job)
                                    }
                                    Err(e) => Err(e),
                                }
                            }
                        };
                        let _ = events.send(crate::prose::ProseEvent::Done(result));
                    }
                }
            }
        })
}

fn new_context<'m>(
    model: &'m LlamaModel,
    backend: &llama_cpp_2::llama_backend::LlamaBackend,
    settings: ContextSettings,
    n_ctx: u32,
) -> Result<LlamaContext<'m>, NarratorError> {
    let params = LlamaContextParams::default()
        .with_n_ctx(std::num::NonZeroU32::new(n_ctx))
        .with_n_batch(512)
        .with_n_ubatch(512)
        .with_n_threads(settings.decode_threads)
        .with_n_threads_batch(settings.threads);
    model
        .new_context(backend, params)
        .map_err(|e| NarratorError::Context(e.to_string()))
}

impl Engine<'_> {
    /// Serves one plan job: reads its prompt (keeping what the cache holds)
    /// and writes its answer segment by segment.
    fn run(&mut self, mut job: Job) -> Result<Generated, NarratorError> {
        let start = Instant::now();
        if job.forget {
            self.forget();
            if job.tokens.is_empty() {
                return Ok(Generated::default());
            }
        }
        if start >= job.deadline {
            return Err(NarratorError::Deadline);
        }
        let tokens = self.plan_prompt(&mut job)?;
        // A read with nothing to write (a warm-up) that the cache already
        // starts with leaves the cache as it is: what follows (the last
        // plan's recent turns) is what the next plan moves back.
        if job.max_new_tokens == 0 && self.cached.starts_with(&tokens) {
            return Ok(Generated {
                prompt_tokens: tokens.len(),
                cached_tokens: tokens.len(),
                ..Generated::default()
            });
        }
        // The cached prefix is kept and the recent turns the prompt holds
        // again are moved back over those that gave way (crate::cache_reuse),
        // as for prose; the last token is always read for fresh logits.
        let mut batch = LlamaBatch::new(MAX_CHUNK, 1);
        let (cached_tokens, logits_at) = self.read_prompt(&mut batch, &tokens, job.deadline)?;
        let prompt_time = start.elapsed();
        let done = Generated {
            text: job.first.forced.clone(),
            prompt_tokens: tokens.len(),
            cached_tokens,
            prompt_time,
            total: prompt_time,
            ..Generated::default()
        };
        if job.max_new_tokens == 0 || job.first.grammar.is_empty() {
            return Ok(done);
        }
        self.write_plan(job, &mut batch, logits_at, done, start)
    }

    /// The job's prompt with the first segment's forced text, checked to
    /// leave room for `max_new_tokens`.
    fn plan_prompt(&self, job: &mut Job) -> Result<Vec<LlamaToken>, NarratorError> {
        let n_ctx = self.ctx.n_ctx() as usize;
        let mut tokens = std::mem::take(&mut job.tokens);
        tokens.extend(self.tokenize(&job.first.forced));
        if tokens.is_empty() {
            return Err(NarratorError::InvalidOutput("empty prompt".into()));
        }
        if tokens.len() + job.max_new_tokens > n_ctx {
            return Err(NarratorError::PromptTooLong {
                needed: tokens.len() + job.max_new_tokens,
                available: n_ctx,
            });
        }
        Ok(tokens)
    }

    /// Writes the plan's segments after its prompt (whose last logits are at
    /// `logits_at`): the host's text read, the model's under each grammar,
    /// until the job's continuation finishes the answer.
    fn write_plan(
        &mut self,
        mut job: Job,
        batch: &mut LlamaBatch,
        mut logits_at: i32,
        done: Generated,
        start: Instant,
    ) -> Result<Generated, NarratorError> {
        let mut plan = PlanAnswer {
            chain: sampler_chain(self.model, &job.sampling.settings())?,
            scanner: NarrativeScanner::new(),
            done,
            sampling: job.sampling,
            max_new_tokens: job.max_new_tokens,
            deadline: job.deadline,
            events: job.events.clone(),
            sample_time: Duration::ZERO,
            decode_time: Duration::ZERO,
        };
        plan.emit(&job.first.forced)?;
        let mut segment = job.first.clone();
        // The token that completed the previous segment, sampled but not yet read.
        let mut unread: Option<LlamaToken> = None;
        let mut first_segment = true;
        loop {
            if !first_segment {
                logits_at =
                    self.read_forced(batch, unread.take(), &segment, &mut plan, logits_at)?;
            }
            first_segment = false;
            let mut writing = plan.segment(self, &segment)?;
            let written = write_tokens(self, batch, logits_at, &mut writing)?;
            unread = plan.ended(written, start)?;
            match (job.next)(&plan.done.text)? {
                Next::Segment(next) => segment = next,
                Next::Finish(suffix) => {
                    plan.done.text.push_str(&suffix);
                    plan.emit(&suffix)?;
                    break;
                }
            }
        }
        plan.done.total = start.elapsed();
        tracing::debug!(
            sample_time = ?plan.sample_time,
            decode_time = ?plan.decode_time,
            tokens = plan.done.completion_tokens,
            forced = plan.done.forced_tokens,
            "generation timings"
        );
        Ok(plan.done)
    }

    /// Reads the token that ended the last segment and the host's text
    /// that starts `segment`; returns where the next logits are.
    fn read_forced(
        &mut self,
        batch: &mut LlamaBatch,
        unread: Option<LlamaToken>,
        segment: &Segment,
        plan: &mut PlanAnswer,
        logits_at: i32,
    ) -> Result<i32, NarratorError> {
        let forced = self.tokenize(&segment.forced);
        let tokens: Vec<LlamaToken> = unread.into_iter().chain(forced.iter().copied()).collect();
        let logits_at = if tokens.is_empty() {
            logits_at
        } else {
            self.read(batch, &tokens, plan.deadline)?
        };
        plan.done.forced_tokens += forced.len();
        plan.done.text.push_str(&segment.forced);
        plan.emit(&segment.forced)?;
        Ok(logits_at)
    }

    /// One token from the logits at batch index `at`, allowed by `grammar`.
    fn sample(
        &mut self,
        at: i32,
        grammar: &mut LlamaSampler,
        chain: &mut LlamaSampler,
        sample_then_check: bool,
        top_k: i32,
    ) -> Result<LlamaToken, NarratorError> {
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
        if sample_then_check {
            // The model's first choice is not allowed: try its top candidates
            // before checking the grammar against the whole vocabulary.
            let mut cur = self.ctx.token_data_array_ith(at);
            cur.apply_sampler(&mut LlamaSampler::top_k(top_k.max(1)));
            cur.apply_sampler(grammar);
            let allowed: Vec<LlamaTokenData> = cur
                .data
                .iter()
                .filter(|d| d.logit().is_finite())
                .copied()
                .collect();
            if !allowed.is_empty() {
                let mut few = LlamaTokenDataArray::new(allowed, false);
                few.apply_sampler(chain);
                if let Some(token) = few.selected_token() {
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

/// A plan as it is written, across its segments.
struct PlanAnswer {
    /// The chain without the grammar (sample-then-check).
    chain: LlamaSampler,
    scanner: NarrativeScanner,
    done: Generated,
    sampling: Sampling,
    max_new_tokens: usize,
    deadline: Instant,
    events: Sender<Event>,
    sample_time: Duration,
    decode_time: Duration,
}

/// One segment of a plan as the model writes it: the plan's own rules for
/// the decode loop (the segment's grammar checked after sampling, the
/// narrative streamed, the deadline and the token budget errors, the
/// segment ended when its value closes).
struct SegmentAnswer<'p> {
    plan: &'p mut PlanAnswer,
    grammar: LlamaSampler,
    /// Where the segment's value closes.
    end: ValueEnd,
}

impl PlanAnswer {
    /// Feeds answer text to the scanner and sends the narrative part on.
    fn emit(&mut self, text: &str) -> Result<(), NarratorError> {
        let narrative = self.scanner.push(text);
        if !narrative.is_empty() && self.events.send(Event::Narrative(narrative)).is_err() {
            // Nobody is waiting any more.
            return Err(NarratorError::Deadline);
        }
        Ok(())
    }

    /// Starts `segment`'s grammar, with the host's text it starts with accepted.
    fn segment(
        &mut self,
        engine: &Engine<'_>,
        segment: &Segment,
    ) -> Result<SegmentAnswer<'_>, NarratorError> {
        let mut end = ValueEnd::new();
        end.push(&segment.grammar_start);
        let mut grammar = LlamaSampler::grammar(engine.model, &segment.grammar, "root")
            .map_err(|e| NarratorError::Grammar(e.to_string()))?;
        for t in engine.tokenize(&segment.grammar_start) {
            grammar.try_accept(t).map_err(|e| {
                NarratorError::Grammar(format!(
                    "the grammar rejects the host's text {:?}: {e}",
                    segment.grammar_start
                ))
            })?;
        }
        Ok(SegmentAnswer {
            plan: self,
            grammar,
            end,
        })
    }

    /// Closes a segment the decode loop ended: keeps its measures and an
    /// unfinished character's bytes; returns the token it drew but did not read.
    fn ended(
        &mut self,
        written: Written,
        start: Instant,
    ) -> Result<Option<LlamaToken>, NarratorError> {
        self.sample_time += written.sample_time;
        self.decode_time += written.decode_time;
        if self.done.first_token.is_none() {
            self.done.first_token = written.first_token.map(|t| t.duration_since(start));
        }
        if !written.pending.is_empty() {
            let rest = String::from_utf8_lossy(&written.pending).into_owned();
            self.done.text.push_str(&rest);
            self.emit(&rest)?;
        }
        Ok(match written.ending {
            Ending::Taken(token) => Some(token),
            Ending::EndOfGeneration | Ending::Halted => None,
        })
    }
}

impl Writing for SegmentAnswer<'_> {
    fn halt(&mut self) -> Result<bool, NarratorError> {
        let plan = &self.plan;
        if Instant::now() >= plan.deadline {
            return Err(NarratorError::Deadline);
        }
        if plan.done.completion_tokens >= plan.max_new_tokens {
            return Err(NarratorError::InvalidOutput(format!(
                "no complete plan within {} tokens: {}",
                plan.max_new_tokens, plan.done.text
            )));
        }
        Ok(false)
    }

    fn pick(&mut self, engine: &mut Engine<'_>, at: i32) -> Result<LlamaToken, NarratorError> {
        let s = self.plan.sampling;
        engine.sample(
            at,
            &mut self.grammar,
            &mut self.plan.chain,
            s.sample_then_check,
            s.top_k,
        )
    }

    fn accept(&mut self, token: LlamaToken) -> Result<(), NarratorError> {
        self.grammar.try_accept(token).map_err(|e| {
            NarratorError::InvalidOutput(format!("grammar rejected a sampled token: {e}"))
        })?;
        self.plan.chain.accept(token);
        self.plan.done.completion_tokens += 1;
        Ok(())
    }

    fn take(&mut self, piece: &str) -> Result<bool, NarratorError> {
        if !piece.is_empty() {
            self.plan.done.text.push_str(piece);
            self.plan.emit(piece)?;
            self.end.push(piece);
        }
        // Once the value closes the grammar allows nothing more: the last
        // token is read with the next host text.
        Ok(!(self.end.is_complete() || self.plan.scanner.is_complete()))
    }
}
