//! `LlamaPlanner`: the narrator's planner over a GGUF model, implementing the
//! engine's `Planner` seam.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::{LlamaChatMessage, LlamaChatTemplate, LlamaModel};
use llama_cpp_2::token::LlamaToken;
use sha2::{Digest, Sha256};

use narratoria_core::likeness::Likeness;
use narratoria_core::planner::{
    PlanOutcome, PlanRequest, Planner, PlannerError, Routing, Transcript,
};
use narratoria_core::skills::Catalog;

use crate::catalog::{cards, tool_paths, SkillCard};
use crate::compact::{compact_schema, expand, grammar, CompactLimits, Expansion};
use crate::error::NarratorError;
use crate::gguf::{self, GgufSummary};
use crate::input_choices::{fill_player_words, without_player_words};
use crate::meaning_choices::choose_by_meaning;
use crate::prompt::{self, Levers, Prefilter, Prefix, TailInputs};
use crate::segments;
use crate::state_choices::with_state_choices;
pub use narratoria_models::context::WRITER_CONTEXT_DEFAULT;
use narratoria_models::context::{available_memory, writer_context};

use crate::worker::{
    self, ContextSettings, Continuation, Event, Generated, Job, Next, Sampling, Segment, Work,
};

/// The answer always starts like this; the host writes it, the model continues.
const FORCED_START: &str = segments::ANSWER_START;

/// A load-progress callback: receives 0.0 ..= 1.0.
pub use narratoria_core::planner::Progress;

/// The fewest tokens a prose context holds.
const PROSE_CONTEXT_MIN: u32 = narratoria_models::context::WRITER_CONTEXT_MIN;

/// How to load a model.
pub struct LoadOptions {
    /// Threads for prompt reading (default: the core count).
    pub threads: i32,
    /// Threads for generation, one token at a time (see [`crate::default_decode_threads`]).
    pub decode_threads: i32,
    /// The planner's context size in tokens.
    pub n_ctx: u32,
    /// The prose context's size: `None`, the planner's (`n_ctx`, within the
    /// model's trained context); `Some(cap)`, as large as the model's trained
    /// context, `cap` and the machine's memory allow
    /// ([`narratoria_models::context::writer_context`]) —
    /// what a writer loads with.
    pub prose_ctx_cap: Option<u32>,
    /// Whether to load the routing model beside it (a model that only
    /// writes never routes).
    pub routing: bool,
    /// Called as llama.cpp loads the weights.
    pub on_progress: Option<Progress>,
    /// Layers to put on the graphics card: `None`, as many as its free
    /// memory holds; `Some(0)`, none ([`crate::gpu::place`]).
    pub gpu_layers: Option<u32>,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            threads: crate::backend::default_threads(),
            decode_threads: crate::backend::default_decode_threads(),
            n_ctx: 4096,
            prose_ctx_cap: None,
            routing: true,
            on_progress: None,
            gpu_layers: None,
        }
    }
}

impl LoadOptions {
    /// The options of a model that only writes (it is lent to skills and
    /// never plans): a small planner context it will not use, no routing
    /// model, and a prose context of up to `cap` tokens
    /// ([`WRITER_CONTEXT_DEFAULT`] when `None`) as memory allows.
    pub fn writer(cap: Option<u32>) -> LoadOptions {
        LoadOptions {
            n_ctx: PROSE_CONTEXT_MIN,
            prose_ctx_cap: Some(cap.unwrap_or(WRITER_CONTEXT_DEFAULT)),
            routing: false,
            ..LoadOptions::default()
        }
    }
}

/// The bytes one token of context takes in `model`'s KV cache.
fn kv_bytes_per_token(model: &LlamaModel) -> u64 {
    narratoria_models::context::kv_bytes_per_token(
        u64::from(model.n_layer()),
        model.n_embd().max(1) as u64,
        u64::from(model.n_head()),
        u64::from(model.n_head_kv()),
    )
}

/// A progress callback that forwards to a channel, for a UI or a progress bar.
pub fn progress_channel() -> (Progress, mpsc::Receiver<f32>) {
    let (tx, rx) = mpsc::channel();
    (
        Box::new(move |p| {
            let _ = tx.send(p);
        }),
        rx,
    )
}

/// How plans are generated; may be changed between calls.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlannerOptions {
    pub limits: CompactLimits,
    pub levers: Levers,
    /// The prefix (rules, examples, catalog, guides) stays under this many tokens where it can.
    pub prefix_budget_tokens: usize,
    pub max_new_tokens: usize,
    pub temperature: f32,
    pub top_k: i32,
    pub top_p: f32,
    /// Base seed; the attempt number varies it so replans differ.
    pub seed: u32,
}

impl Default for PlannerOptions {
    fn default() -> Self {
        PlannerOptions {
            limits: CompactLimits::default(),
            levers: Levers::default(),
            prefix_budget_tokens: 600,
            max_new_tokens: 320,
            temperature: 0.4,
            top_k: 40,
            top_p: 0.9,
            seed: 0x6e61_7272,
        }
    }
}

/// What loading measured.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadReport {
    pub path: PathBuf,
    pub header: GgufSummary,
    pub load_time: Duration,
    pub threads: i32,
    pub decode_threads: i32,
    pub n_ctx: u32,
    /// The prose context's size in tokens (what a writer holds).
    pub prose_n_ctx: u32,
    /// The model's parameters (llama.cpp's count).
    pub parameters: u64,
    /// Where its layers run.
    pub placement: crate::gpu::Placement,
}

/// The shortest time one plan is given, whatever the measured speed says
/// (docs/narrator.md, "How long a plan is given").
pub const PLAN_TIME_FLOOR: Duration = narratoria_core::planner::PLAN_TIME_DEFAULT;

/// The longest time one plan is given, however slow the measures say it is.
pub const PLAN_TIME_CEILING: Duration = Duration::from_secs(60);

/// How much longer than the measured speed says a plan is given.
const PLAN_TIME_MARGIN: f64 = 2.0;

/// What the planner measured of its own speed, plan by plan.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PlanRates {
    /// Prompt tokens read per second (smoothed), once measured.
    pub read_per_s: Option<f64>,
    /// Tokens written per second while a plan is written (the host's text
    /// read between the model's parts included), once measured.
    pub write_per_s: Option<f64>,
    /// Prompt tokens a plan reads past the cached prefix (smoothed).
    pub read_tokens: f64,
    /// Tokens the model writes in a plan (smoothed).
    pub written_tokens: f64,
    /// Plans measured so far.
    pub plans: u32,
    /// The time the last plan was given, when it ran out; cleared by the
    /// next plan that comes in time.
    pub missed: Option<Duration>,
}

/// Smoothing of the measured rates: the newest measure's weight.
const RATE_WEIGHT: f64 = 0.5;

fn smooth(old: Option<f64>, new: f64) -> f64 {
    match old {
        Some(o) => (1.0 - RATE_WEIGHT) * o + RATE_WEIGHT * new,
        None => new,
    }
}

impl PlanRates {
    /// Takes in a prompt read of `tokens` (past the cache) in `time`.
    pub fn read(&mut self, tokens: usize, time: Duration) {
        // A few tokens read say little about the rate of a batch.
        if tokens >= 32 && !time.is_zero() {
            self.read_per_s = Some(smooth(self.read_per_s, tokens as f64 / time.as_secs_f64()));
        }
    }

    /// Takes in a plan that came in time.
    pub(crate) fn planned(&mut self, g: &Generated) {
        let uncached = g.prompt_tokens.saturating_sub(g.cached_tokens);
        self.read(uncached, g.prompt_time);
        let writing = g.total.saturating_sub(g.prompt_time);
        if g.completion_tokens > 0 && !writing.is_zero() {
            self.write_per_s = Some(smooth(
                self.write_per_s,
                g.completion_tokens as f64 / writing.as_secs_f64(),
            ));
        }
        let first = self.plans == 0;
        let mean = |old: f64, new: usize| {
            if first {
                new as f64
            } else {
                smooth(Some(old), new as f64)
            }
        };
        self.read_tokens = mean(self.read_tokens, uncached);
        self.written_tokens = mean(self.written_tokens, g.completion_tokens);
        self.plans += 1;
        self.missed = None;
    }

    /// How long one plan needs: the measured reading and writing times with
    /// a margin, at least [`PLAN_TIME_FLOOR`] (all of it before anything
    /// is measured) and one and a half times a deadline just missed, at most
    /// [`PLAN_TIME_CEILING`].
    pub fn plan_time(&self) -> Duration {
        // The worker's own cautious start, and a slow machine's writing speed.
        let read = self.read_per_s.unwrap_or(100.0).max(1.0);
        let write = self.write_per_s.unwrap_or(10.0).max(0.5);
        let measured = if self.read_per_s.is_none() && self.write_per_s.is_none() {
            Duration::ZERO
        } else {
            let secs = self.read_tokens / read + self.written_tokens / write;
            Duration::from_secs_f64((secs * PLAN_TIME_MARGIN).min(PLAN_TIME_CEILING.as_secs_f64()))
        };
        let after_miss = self.missed.map(|d| d.mul_f64(1.5)).unwrap_or_default();
        measured
            .max(after_miss)
            .max(PLAN_TIME_FLOOR)
            .min(PLAN_TIME_CEILING)
    }
}

struct CachedPrefix {
    cards: Vec<SkillCard>,
    levers: Levers,
    budget: usize,
    prefix: Prefix,
}

/// The llama.cpp planner. Cheap to share across threads: generation runs on
/// one worker thread that owns the llama.cpp context; calls queue up.
pub struct LlamaPlanner {
    pub(crate) model: Arc<LlamaModel>,
    pub(crate) template: LlamaChatTemplate,
    jobs: Mutex<Option<Sender<Work>>>,
    worker: Mutex<Option<std::thread::JoinHandle<()>>>,
    options: Mutex<PlannerOptions>,
    prefix: Mutex<Option<CachedPrefix>>,
    /// Routes input to skills by meaning; `None`: by keywords alone.
    router: Mutex<Option<Arc<narratoria_routing::Router>>>,
    /// Routes a story in another language, loaded when one is first
    /// routed; `None` inside: it could not be loaded.
    multilingual: std::sync::OnceLock<Option<Arc<narratoria_routing::Router>>>,
    /// The model file, beside which the encoders are looked for.
    path: std::path::PathBuf,
    name: String,
    report: LoadReport,
    rates: Mutex<PlanRates>,
}

impl std::fmt::Debug for LlamaPlanner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlamaPlanner")
            .field("name", &self.name)
            .field("report", &self.report)
            .finish()
    }
}

impl LlamaPlanner {
    /// Loads the GGUF model at `path` after checking its header, and starts
    /// the worker thread. Any problem with the file is a typed error naming it.
    pub fn load(path: &Path, options: LoadOptions) -> Result<LlamaPlanner, NarratorError> {
        let header = gguf::check(path)?;
        // The shared backend is made before the load is timed.
        crate::backend::backend()?;
        let start = Instant::now();
        let context = options.n_ctx + options.prose_ctx_cap.unwrap_or(options.n_ctx);
        let placement = crate::gpu::place(&header, options.gpu_layers, context);
        let model = load_model(path, &placement, options.on_progress)?;
        let template = chat_template(&model, path)?;
        let model = Arc::new(model);
        let settings = ContextSettings {
            n_ctx: options.n_ctx,
            prose_n_ctx: prose_context(&model, options.n_ctx, options.prose_ctx_cap),
            threads: options.threads.max(1),
            decode_threads: options.decode_threads.max(1),
        };
        let (job_tx, handle) = start_worker(model.clone(), settings)?;
        let load_time = start.elapsed();
        Ok(LlamaPlanner {
            template,
            jobs: Mutex::new(Some(job_tx)),
            worker: Mutex::new(Some(handle)),
            options: Mutex::new(PlannerOptions::default()),
            prefix: Mutex::new(None),
            router: Mutex::new(if options.routing {
                crate::routing::load_router(path).map(Arc::new)
            } else {
                None
            }),
            multilingual: std::sync::OnceLock::new(),
            path: path.to_path_buf(),
            name: file_name(path),
            report: LoadReport {
                path: path.to_path_buf(),
                header,
                load_time,
                threads: settings.threads,
                decode_threads: settings.decode_threads,
                n_ctx: options.n_ctx,
                prose_n_ctx: settings.prose_n_ctx,
                parameters: model.n_params(),
                placement,
            },
            model,
            rates: Mutex::new(PlanRates::default()),
        })
    }

    /// What loading measured.
    pub fn load_report(&self) -> &LoadReport {
        &self.report
    }

    /// What the planner measured of its speed so far.
    pub fn rates(&self) -> PlanRates {
        *lock(&self.rates)
    }

    /// How long one plan needs at the speed measured so far
    /// ([`PlanRates::plan_time`]).
    pub fn plan_time(&self) -> Duration {
        self.rates().plan_time()
    }

    /// The loaded model, for callers that need its tokenizer.
    pub fn model(&self) -> &LlamaModel {
        &self.model
    }

    /// The router that chooses a plan's skills by meaning, when its model loaded.
    pub fn router(&self) -> Option<Arc<narratoria_routing::Router>> {
        lock(&self.router).clone()
    }

    /// The router for a story told in `language`: the multilingual one for
    /// another language than English, once it loads; else [`Self::router`].
    /// Routing by keywords alone stays so in every language.
    pub fn router_for(
        &self,
        language: Option<&narratoria_lexicon::Language>,
    ) -> Option<Arc<narratoria_routing::Router>> {
        let english = self.router()?;
        if language.is_none_or(|l| l.is_english()) {
            return Some(english);
        }
        let multilingual = self
            .multilingual
            .get_or_init(|| crate::routing::load_multilingual_router(&self.path).map(Arc::new));
        Some(multilingual.clone().unwrap_or(english))
    }

    /// Replaces the router (`None`: route by keywords alone).
    pub fn set_router(&self, router: Option<Arc<narratoria_routing::Router>>) {
        *lock(&self.router) = router;
    }

    /// The current generation options.
    pub fn options(&self) -> PlannerOptions {
        *lock(&self.options)
    }

    /// Replaces the generation options for later calls.
    pub fn set_options(&self, options: PlannerOptions) {
        *lock(&self.options) = options;
    }

    fn count_tokens(&self, text: &str) -> usize {
        self.model
            .vocab()
            .tokenize(text.as_bytes(), false, false)
            .len()
    }

    fn prefix_for(&self, catalog: &Catalog, opts: &PlannerOptions) -> Prefix {
        let all = cards(catalog, &[]);
        let mut cache = lock(&self.prefix);
        if let Some(c) = cache.as_ref() {
            if c.cards == all && c.levers == opts.levers && c.budget == opts.prefix_budget_tokens {
                return c.prefix.clone();
            }
        }
        let count = |s: &str| self.count_tokens(s);
        let p = prompt::prefix(&all, opts.levers, opts.prefix_budget_tokens, &count);
        *cache = Some(CachedPrefix {
            cards: all,
            levers: opts.levers,
            budget: opts.prefix_budget_tokens,
            prefix: p.clone(),
        });
        p
    }

    fn render(&self, prefix: &Prefix, tail: Option<&str>) -> Result<String, NarratorError> {
        let mut chat = vec![msg("system", &prefix.system)?];
        for (user, assistant) in &prefix.examples {
            chat.push(msg("user", user)?);
            chat.push(msg("assistant", assistant)?);
        }
        if let Some(t) = tail {
            chat.push(msg("user", t)?);
        }
        self.model
            .apply_chat_template(&self.template, &chat, tail.is_some())
            .map_err(|e| {
                NarratorError::InvalidOutput(format!("cannot apply the chat template: {e}"))
            })
    }

    fn tokenize(&self, text: &str) -> Vec<LlamaToken> {
        self.model.vocab().tokenize(text.as_bytes(), true, true)
    }

    fn submit(&self, job: Job) -> Result<(), NarratorError> {
        self.submit_work(Work::Plan(job))
    }

    /// Queues work for the worker thread, behind whatever it is doing.
    pub(crate) fn submit_work(&self, work: Work) -> Result<(), NarratorError> {
        let jobs = lock(&self.jobs);
        jobs.as_ref()
            .ok_or(NarratorError::WorkerGone)?
            .send(work)
            .map_err(|_| NarratorError::WorkerGone)
    }

    /// Reads the prompt prefix for `catalog` into the cache and embeds its
    /// skills' examples for routing, so the first plan starts quickly.
    /// Returns the prefix length in tokens.
    pub fn warm_up(&self, catalog: &Catalog, deadline: Instant) -> Result<usize, NarratorError> {
        if let Some(router) = self.router() {
            if let Err(e) = router.prepare(catalog) {
                tracing::warn!("the skills' examples could not be embedded: {e}");
            }
        }
        let opts = self.options();
        let prefix = self.prefix_for(catalog, &opts);
        let text = self.render(&prefix, None)?;
        let tokens = self.tokenize(&text);
        let (tx, rx) = mpsc::channel();
        self.submit(Job::read_only(
            tokens,
            sampling(&opts, 1),
            deadline,
            false,
            tx,
        ))?;
        let g = wait(&rx, deadline, &mut |_| {})?;
        lock(&self.rates).read(
            g.prompt_tokens.saturating_sub(g.cached_tokens),
            g.prompt_time,
        );
        Ok(g.prompt_tokens)
    }

    /// Empties the KV cache, so the next call reads its whole prompt (for
    /// measurements, or to free the cache's work after a catalog change).
    pub fn clear_cache(&self) {
        let (tx, rx) = mpsc::channel();
        let deadline = Instant::now() + Duration::from_secs(60);
        let job = Job::read_only(Vec::new(), sampling(&self.options(), 1), deadline, true, tx);
        if self.submit(job).is_ok() {
            let _ = wait(&rx, deadline, &mut |_| {});
        }
    }

    /// Writes one plan; the typed-error version of [`Planner::plan`].
    pub fn generate(
        &self,
        request: &PlanRequest<'_>,
        on_narrative: &mut dyn FnMut(&str),
    ) -> Result<PlanOutcome, NarratorError> {
        // A deadline already past gets no work at all (not even routing).
        if Instant::now() >= request.deadline {
            return Err(NarratorError::Deadline);
        }
        let opts = self.options();
        let prefix = self.prefix_for(request.catalog, &opts);
        // Inputs the story decides (a known faction) are limited to what the
        // state holds, and to what the player named when they named any;
        // inputs that are the player's words are those words, filled by the host.
        let (usable, player_words) = without_player_words(
            with_state_choices(
                cards(request.catalog, request.disabled_skills),
                request.state,
                request.input,
            ),
            request.input,
        );
        // The older routings offer the candidates in one grammar (and hint them).
        let candidates = if opts.levers.prefilter == Prefilter::Require {
            Vec::new()
        } else {
            prompt::keyword_hints(&usable, request.input, 3)
        };
        let shape = match self.answer_shape(request, &opts, &usable, &candidates)? {
            Shaped::Answer(shape) => shape,
            Shaped::Done(outcome) => return Ok(*outcome),
        };
        // With `Require` the grammar already names the tools: no hint needed.
        let hints = if opts.levers.keyword_hints {
            candidates
        } else {
            Vec::new()
        };
        let prompt_text = self.render(&prefix, Some(&plan_tail(request, &hints)))?;
        let generated = self.run_plan(
            request,
            &opts,
            &prompt_text,
            shape.first,
            shape.next,
            on_narrative,
        )?;
        let mut plan = expand(&generated.text, &expansion(request, &shape.allowed))?;
        fill_player_words(&mut plan, &player_words, request.input);
        Ok(PlanOutcome {
            plan,
            transcript: transcript(&self.name, prompt_text, &generated),
            routing: shape.routing,
        })
    }

    /// What the answer may hold and how it is written, by the prefilter
    /// lever (docs/narrator.md, "One plan", step 4); or the whole outcome
    /// when nothing is to be generated.
    fn answer_shape(
        &self,
        request: &PlanRequest<'_>,
        opts: &PlannerOptions,
        usable: &[SkillCard],
        candidates: &[String],
    ) -> Result<Shaped, NarratorError> {
        // Values the player's words decide by meaning (a standing's rise or
        // fall) in the tools the plan may use, on the first plan only: a
        // retry may choose another value.
        let router = self.router();
        let likeness = router
            .as_deref()
            .filter(|_| request.previous_failure.is_none())
            .map(|r| r as &dyn Likeness);
        if opts.levers.prefilter != Prefilter::Require {
            return Ok(Shaped::Answer(one_grammar(
                request, opts, usable, candidates, likeness,
            )?));
        }
        // Each routed skill gets one tool, written segment by segment.
        let by_language = self.router_for(request.language);
        let (mut groups, routing) = crate::routing::route_skills(
            by_language.as_deref(),
            request.catalog,
            usable,
            request.input,
            request.disabled_skills,
            request.skills_needed,
            opts.limits.max_tools,
        );
        if groups.is_empty() && !request.narrative {
            // Routed to no tool, and no narrative wanted: nothing to generate.
            return Ok(Shaped::Done(Box::new(PlanOutcome {
                plan: expand(r#"{"narrative":"","tools":[]}"#, &expansion(request, &[]))?,
                transcript: transcript(&self.name, String::new(), &Generated::default()),
                routing,
            })));
        }
        choose_by_meaning(groups.iter_mut().flatten(), request.input, likeness);
        let allowed: Vec<String> = groups.iter().flatten().map(|t| t.path.clone()).collect();
        let (first, next) = segments::one_tool_per_group(
            groups,
            opts.limits,
            opts.levers.typed_inputs,
            request.narrative,
        );
        Ok(Shaped::Answer(AnswerShape {
            allowed,
            first,
            next,
            routing,
        }))
    }

    /// Sends the plan's job to the worker and waits for it (relaying the
    /// narrative), keeping the measured rates.
    fn run_plan(
        &self,
        request: &PlanRequest<'_>,
        opts: &PlannerOptions,
        prompt_text: &str,
        first: Segment,
        next: Continuation,
        on_narrative: &mut dyn FnMut(&str),
    ) -> Result<Generated, NarratorError> {
        let tokens = self.tokenize(prompt_text);
        let (tx, rx) = mpsc::channel();
        let given = request.deadline.saturating_duration_since(Instant::now());
        self.submit(Job {
            tokens,
            first,
            next,
            sampling: sampling(opts, request.attempt),
            max_new_tokens: opts.max_new_tokens,
            deadline: request.deadline,
            forget: false,
            events: tx,
        })?;
        match wait(&rx, request.deadline, on_narrative) {
            Ok(g) => {
                lock(&self.rates).planned(&g);
                Ok(g)
            }
            Err(NarratorError::Deadline) => {
                lock(&self.rates).missed = Some(given);
                Err(NarratorError::Deadline)
            }
            Err(e) => Err(e),
        }
    }
}

/// What a plan's answer may hold and how it is written.
struct AnswerShape {
    /// The toolPaths the answer may use.
    allowed: Vec<String>,
    first: Segment,
    next: Continuation,
    routing: Option<Routing>,
}

/// A plan still to be written, or one decided without the model.
enum Shaped {
    Answer(AnswerShape),
    Done(Box<PlanOutcome>),
}

/// The older routings' answer: one grammar offering the tools the
/// prefilter lets through (at least one with `Route`).
fn one_grammar(
    request: &PlanRequest<'_>,
    opts: &PlannerOptions,
    usable: &[SkillCard],
    candidates: &[String],
    likeness: Option<&dyn Likeness>,
) -> Result<AnswerShape, NarratorError> {
    let offered = |p: &String| match opts.levers.prefilter {
        Prefilter::Off => true,
        Prefilter::Narrow => candidates.is_empty() || candidates.contains(p),
        Prefilter::Strict | Prefilter::Route | Prefilter::Require => candidates.contains(p),
    };
    let allowed: Vec<String> = tool_paths(usable)
        .into_iter()
        .filter(|p| offered(p))
        .collect();
    let mut tools: Vec<_> = usable
        .iter()
        .flat_map(|c| {
            c.tools
                .iter()
                .filter(|t| allowed.contains(&t.path))
                .cloned()
        })
        .collect();
    choose_by_meaning(tools.iter_mut(), request.input, likeness);
    let min_tools = usize::from(opts.levers.prefilter == Prefilter::Route && !tools.is_empty());
    let schema = compact_schema(&tools, opts.limits, opts.levers.typed_inputs, min_tools);
    let first = Segment {
        forced: FORCED_START.to_string(),
        grammar: grammar(&schema)?,
        grammar_start: FORCED_START.to_string(),
    };
    Ok(AnswerShape {
        allowed,
        first,
        next: Box::new(|_| Ok(Next::Finish(String::new()))),
        routing: None,
    })
}

/// The per-turn tail of `request`'s prompt, with the keyword `hints`.
fn plan_tail(request: &PlanRequest<'_>, hints: &[String]) -> String {
    prompt::tail(
        &TailInputs {
            input: request.input,
            recent_turns: request.recent_turns,
            state: request.state,
            disabled_skills: request.disabled_skills,
            attempt: request.attempt,
            previous_failure: request.previous_failure,
        },
        hints,
    )
}

/// How `request`'s answer is expanded into a plan using `allowed` toolPaths.
fn expansion<'a>(request: &'a PlanRequest<'_>, allowed: &'a [String]) -> Expansion<'a> {
    Expansion {
        allowed_paths: allowed,
        disabled_skills: request.disabled_skills,
        attempt: request.attempt,
        parent_plan_id: request.parent_plan_id,
    }
}

/// The model's weights, its layers placed as `placement` says, with
/// llama.cpp's progress passed to `on_progress`.
fn load_model(
    path: &Path,
    placement: &crate::gpu::Placement,
    on_progress: Option<Progress>,
) -> Result<LlamaModel, NarratorError> {
    let backend = crate::backend::backend()?;
    // Always said: llama.cpp's own default puts every layer on a card.
    let mut params = LlamaModelParams::default().with_n_gpu_layers(placement.gpu_layers);
    tracing::info!(model = %path.display(), placement = %placement.describe(), "loading model");
    if let Some(mut cb) = on_progress {
        params = params.with_progress_callback(move |p| {
            cb(p);
            true
        });
    }
    LlamaModel::load_from_file(backend, path, &params).map_err(|e| NarratorError::ModelLoad {
        path: path.to_path_buf(),
        reason: format!("{e} (the file may be corrupt or of an unsupported architecture)"),
    })
}

/// The model's own chat template, else ChatML.
fn chat_template(model: &LlamaModel, path: &Path) -> Result<LlamaChatTemplate, NarratorError> {
    model
        .chat_template(None)
        .map_err(|e| e.to_string())
        .or_else(|_| LlamaChatTemplate::new("chatml").map_err(|e| e.to_string()))
        .map_err(|e| NarratorError::ModelLoad {
            path: path.to_path_buf(),
            reason: format!("no usable chat template: {e}"),
        })
}

/// The prose context's size: the planner's within the trained context, or
/// as a writer needs it up to `cap` ([`LoadOptions::prose_ctx_cap`]).
fn prose_context(model: &LlamaModel, n_ctx: u32, cap: Option<u32>) -> u32 {
    match cap {
        None => n_ctx.min(model.n_ctx_train().max(512)),
        Some(cap) => writer_context(
            model.n_ctx_train(),
            cap,
            kv_bytes_per_token(model),
            available_memory(),
        ),
    }
}

/// Starts the worker thread and waits until its context is made.
fn start_worker(
    model: Arc<LlamaModel>,
    settings: ContextSettings,
) -> Result<(Sender<Work>, std::thread::JoinHandle<()>), NarratorError> {
    let (job_tx, job_rx) = mpsc::channel();
    let (ready_tx, ready_rx) = mpsc::channel();
    let handle = worker::spawn(model, settings, job_rx, ready_tx)
        .map_err(|e| NarratorError::Context(format!("cannot start the worker thread: {e}")))?;
    ready_rx.recv().map_err(|_| NarratorError::WorkerGone)??;
    Ok((job_tx, handle))
}

/// The model's name: its file name.
fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

fn transcript(name: &str, prompt: String, g: &Generated) -> Transcript {
    let hash = Sha256::digest(prompt.as_bytes());
    Transcript {
        planner: name.to_string(),
        prompt_hash: hash.iter().map(|b| format!("{b:02x}")).collect(),
        prompt,
        response: g.text.clone(),
        prompt_tokens: g.prompt_tokens as u32,
        cached_tokens: g.cached_tokens as u32,
        completion_tokens: g.completion_tokens as u32,
        time_to_first_token_ms: g.first_token.unwrap_or(g.total).as_millis() as u64,
        total_ms: g.total.as_millis() as u64,
    }
}

fn sampling(opts: &PlannerOptions, attempt: u32) -> Sampling {
    Sampling {
        temperature: opts.temperature,
        top_k: opts.top_k,
        top_p: opts.top_p,
        seed: opts
            .seed
            .wrapping_add(attempt.saturating_sub(1).wrapping_mul(7919)),
        sample_then_check: opts.levers.sample_then_check,
    }
}

/// Relays narrative pieces until the job is done. The worker stops at the
/// deadline itself; the grace period only covers a worker busy in one llama.cpp call.
fn wait(
    rx: &mpsc::Receiver<Event>,
    deadline: Instant,
    on_narrative: &mut dyn FnMut(&str),
) -> Result<Generated, NarratorError> {
    let grace = deadline + Duration::from_millis(500);
    loop {
        let left = grace.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(Event::Narrative(piece)) => on_narrative(&piece),
            Ok(Event::Done(result)) => return result,
            Err(RecvTimeoutError::Timeout) => return Err(NarratorError::Deadline),
            Err(RecvTimeoutError::Disconnected) => return Err(NarratorError::WorkerGone),
        }
    }
}

fn msg(role: &str, content: &str) -> Result<LlamaChatMessage, NarratorError> {
    LlamaChatMessage::new(role.into(), content.into())
        .map_err(|e| NarratorError::InvalidOutput(format!("the prompt cannot be encoded: {e}")))
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Planner for LlamaPlanner {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn warm_up(&self, catalog: &Catalog, deadline: Instant) {
        if let Err(e) = LlamaPlanner::warm_up(self, catalog, deadline) {
            tracing::warn!("narrator warm-up failed: {e}");
        }
    }

    fn warm_up_language(&self, catalog: &Catalog, language: &narratoria_lexicon::Language) {
        if let Some(router) = self.router_for(Some(language)) {
            if let Err(e) = router.prepare(catalog) {
                tracing::warn!("the skills' examples could not be embedded: {e}");
            }
        }
    }

    fn plan(
        &self,
        request: &PlanRequest<'_>,
        on_narrative: &mut dyn FnMut(&str),
    ) -> Result<PlanOutcome, PlannerError> {
        self.generate(request, on_narrative)
            .map_err(PlannerError::from)
    }

    fn generator(self: Arc<Self>) -> Option<Arc<dyn narratoria_core::host::Generator>> {
        Some(self)
    }

    fn plan_time(&self) -> Duration {
        LlamaPlanner::plan_time(self)
    }

    fn likeness(&self) -> Option<Arc<dyn narratoria_core::likeness::Likeness>> {
        self.router()
            .map(|r| r as Arc<dyn narratoria_core::likeness::Likeness>)
    }
}

impl Drop for LlamaPlanner {
    fn drop(&mut self) {
        lock(&self.jobs).take();
        if let Some(h) = lock(&self.worker).take() {
            let _ = h.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generated(
        prompt: usize,
        cached: usize,
        written: usize,
        read_ms: u64,
        total_ms: u64,
    ) -> Generated {
        Generated {
            text: String::new(),
            prompt_tokens: prompt,
            cached_tokens: cached,
            completion_tokens: written,
            forced_tokens: 0,
            prompt_time: Duration::from_millis(read_ms),
            first_token: Some(Duration::from_millis(read_ms)),
            total: Duration::from_millis(total_ms),
        }
    }

    #[test]
    fn a_plan_is_given_five_seconds_until_the_speed_says_more() {
        let mut rates = PlanRates::default();
        assert_eq!(rates.plan_time(), PLAN_TIME_FLOOR);
        // A fast model: 200 tokens read at 1,000/s, 40 written at 50/s → 1 s, doubled: the floor holds.
        rates.planned(&generated(900, 700, 40, 200, 1000));
        assert_eq!(rates.plan_time(), PLAN_TIME_FLOOR);
        // A slow one: 400 tokens at 100/s and 60 at 10/s → 10 s, doubled.
        let mut slow = PlanRates::default();
        slow.planned(&generated(1100, 700, 60, 4000, 10_000));
        let t = slow.plan_time();
        assert!(
            t >= Duration::from_secs(19) && t <= Duration::from_secs(21),
            "{t:?}"
        );
        // Never past the ceiling.
        let mut crawling = PlanRates::default();
        crawling.planned(&generated(4000, 0, 300, 400_000, 900_000));
        assert_eq!(crawling.plan_time(), PLAN_TIME_CEILING);
    }

    #[test]
    fn a_missed_deadline_gives_the_next_plan_longer_until_one_comes_in_time() {
        let mut rates = PlanRates {
            missed: Some(Duration::from_secs(8)),
            ..PlanRates::default()
        };
        assert_eq!(rates.plan_time(), Duration::from_secs(12));
        rates.planned(&generated(900, 700, 40, 200, 1000));
        assert_eq!(rates.missed, None);
        assert_eq!(rates.plan_time(), PLAN_TIME_FLOOR);
    }
}
