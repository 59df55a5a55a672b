//! Narrator benchmark: prints figures, asserts nothing about time.
//!
//! `cargo bench -p narratoria-narrator` (set NARRATOR_BENCH_QUICK=1 to skip the lever study;
//! NARRATOR_BENCH_MODEL=FILE.gguf measures another model than the default,
//! as docs/narrator.md's model comparison does).

#[path = "../tests/support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::sampling::LlamaSampler;
use narratoria_core::planner::{PlanRequest, Planner};
use narratoria_core::skills::Catalog;
use narratoria_narrator::{
    default_decode_threads, default_threads, Levers, LlamaPlanner, LoadOptions, PlannerOptions,
    Prefilter,
};
use serde_json::Map;

fn main() {
    let path = std::env::var_os("NARRATOR_BENCH_MODEL")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(support::model_path);
    let (_dir, catalog) = support::builtin_catalog();
    let threads = default_threads();
    println!(
        "model: {}  threads: {threads}  OMP_WAIT_POLICY passive: {}  load average: {}",
        path.display(),
        narratoria_narrator::openmp_wait_is_passive(),
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );

    let mut loads = Vec::new();
    for _ in 0..3 {
        let p = LlamaPlanner::load(&path, LoadOptions::default()).expect("model loads");
        loads.push(p.load_report().load_time);
    }
    println!("model load (3 loads, incl. context): {}", list(&loads));

    let planner = LlamaPlanner::load(&path, LoadOptions::default()).unwrap();
    let (planner_prompt, planner_decode) = first_tokens(&planner, &catalog);
    compare_with_bare(
        &planner,
        &catalog,
        &path,
        threads,
        planner_prompt,
        planner_decode,
    );

    let default = PlannerOptions::default();
    let labeled = support::inputs();
    run_default_sets(&planner, &catalog, default, &labeled);
    if std::env::var_os("NARRATOR_BENCH_QUICK").is_some() {
        return;
    }
    for (label, options) in lever_configs(default) {
        run_set(&planner, &catalog, label, options, &labeled);
    }
}

/// Times to first token, cold (nothing cached) and warm (the prefix
/// cached), printed; returns the planner's prompt-reading and decoding
/// speeds (medians, tokens/s).
fn first_tokens(planner: &LlamaPlanner, catalog: &Catalog) -> (f64, f64) {
    let mut cold = Vec::new();
    let mut warm = Vec::new();
    let mut speeds = Vec::new();
    let mut prompt_speed = Vec::new();
    for (i, warm_input) in WARM_INPUTS.iter().enumerate() {
        planner.clear_cache();
        let out =
            plan(planner, catalog, "I look around the market square.", &[]).expect("cold plan");
        let t = &out.transcript;
        cold.push(ms(t.time_to_first_token_ms));
        prompt_speed.push(
            (t.prompt_tokens - t.cached_tokens) as f64 / (t.time_to_first_token_ms as f64 / 1000.0),
        );
        let out = plan(planner, catalog, warm_input, &[]).expect("warm plan");
        let t = &out.transcript;
        warm.push(ms(t.time_to_first_token_ms));
        if t.completion_tokens > 1 {
            speeds.push(
                (t.completion_tokens - 1) as f64
                    / ((t.total_ms - t.time_to_first_token_ms) as f64 / 1000.0),
            );
        }
        if i == 0 {
            println!(
                "prompt: {} tokens, {} cached on the warm call; completion {} tokens",
                t.prompt_tokens, t.cached_tokens, t.completion_tokens
            );
        }
    }
    println!(
        "TTFT cold (whole prompt read): median {:?}  all {}",
        median(&cold),
        list(&cold)
    );
    println!(
        "TTFT warm (prefix cached):     median {:?}  all {}",
        median(&warm),
        list(&warm)
    );
    (median_f(&prompt_speed), median_f(&speeds))
}

/// The inputs planned with the prefix cached, one per cold plan.
const WARM_INPUTS: [&str; 5] = [
    "I search the stalls for a map.",
    "I climb onto a cart.",
    "I greet the baker.",
    "I count my coins.",
    "I listen to the crowd.",
];

/// Prints the planner's speeds beside a bare llama.cpp loop's on the same
/// model, prompt and thread count.
fn compare_with_bare(
    planner: &LlamaPlanner,
    catalog: &Catalog,
    path: &std::path::Path,
    threads: i32,
    planner_prompt: f64,
    planner_decode: f64,
) {
    let sample_prompt = plan(planner, catalog, "I look around the market square.", &[])
        .unwrap()
        .transcript
        .prompt;
    let decode_threads = default_decode_threads();
    let (bare_prompt, bare_decode) = bare_loop(path, threads, decode_threads, &sample_prompt);
    if decode_threads != threads {
        let (_, both) = bare_loop(path, threads, threads, &sample_prompt);
        println!(
            "decode threads: {decode_threads} (bare llama.cpp decodes {bare_decode:.1} tok/s with {decode_threads}, {both:.1} tok/s with {threads})"
        );
    }
    println!(
        "prompt tokens/s: planner {planner_prompt:.0}, bare llama.cpp {bare_prompt:.0}, ratio {:.2}",
        planner_prompt / bare_prompt
    );
    println!(
        "decode tokens/s: planner {planner_decode:.1} (grammar, sampling), bare llama.cpp {bare_decode:.1} (greedy), ratio {:.2}",
        planner_decode / bare_decode
    );
}

/// The default options over both labeled sets, with the synthetic guides
/// and with the built-in skills' own skill.json and prompt.md, as shipped.
fn run_default_sets(
    planner: &LlamaPlanner,
    catalog: &Catalog,
    default: PlannerOptions,
    labeled: &[support::Labeled],
) {
    let heldout = support::heldout();
    run_set(
        planner,
        catalog,
        "default (all levers), labeled set",
        default,
        labeled,
    );
    run_set(
        planner,
        catalog,
        "default (all levers), held-out set",
        default,
        &heldout,
    );
    let (_shipped_dir, shipped) = support::real_skills_catalog();
    run_set(
        planner,
        &shipped,
        "default, shipped skill guides, labeled set",
        default,
        labeled,
    );
    run_set(
        planner,
        &shipped,
        "default, shipped skill guides, held-out set",
        default,
        &heldout,
    );
}

/// The lever study: each configuration changes one thing from `default`.
fn lever_configs(default: PlannerOptions) -> Vec<(&'static str, PlannerOptions)> {
    let lever = |f: &dyn Fn(&mut Levers)| {
        let mut o = default;
        f(&mut o.levers);
        o
    };
    vec![
        (
            "prefix budget 900 tokens (skill guides in full)",
            PlannerOptions {
                prefix_budget_tokens: 900,
                ..default
            },
        ),
        (
            "prefilter route (one grammar; the model picks among the candidates, at least one)",
            lever(&|l| l.prefilter = Prefilter::Route),
        ),
        (
            "prefilter off (model picks among all tools)",
            lever(&|l| l.prefilter = Prefilter::Off),
        ),
        (
            "prefilter narrow (candidates, else all tools)",
            lever(&|l| l.prefilter = Prefilter::Narrow),
        ),
        (
            "prefilter strict (candidates, else none; tools optional)",
            lever(&|l| l.prefilter = Prefilter::Strict),
        ),
        ("no few-shot examples", lever(&|l| l.few_shot = false)),
        (
            "no skill guides (prompt.md)",
            lever(&|l| l.skill_guides = false),
        ),
        (
            "no 'Likely tools' line in the tail",
            lever(&|l| l.keyword_hints = false),
        ),
        (
            "untyped inputs (any object)",
            lever(&|l| l.typed_inputs = false),
        ),
        (
            "grammar in the chain (no sample-then-check)",
            lever(&|l| l.sample_then_check = false),
        ),
        (
            "bare: prefilter off, no few-shot, guides or hints",
            lever(&|l| {
                l.prefilter = Prefilter::Off;
                l.few_shot = false;
                l.skill_guides = false;
                l.keyword_hints = false
            }),
        ),
    ]
}

fn plan(
    p: &LlamaPlanner,
    catalog: &Catalog,
    input: &str,
    disabled: &[String],
) -> Result<narratoria_core::planner::PlanOutcome, narratoria_core::planner::PlannerError> {
    plan_by(p, catalog, input, disabled, Duration::from_secs(60))
}

fn plan_by(
    p: &LlamaPlanner,
    catalog: &Catalog,
    input: &str,
    disabled: &[String],
    limit: Duration,
) -> Result<narratoria_core::planner::PlanOutcome, narratoria_core::planner::PlannerError> {
    let state = Map::new();
    p.plan(
        &PlanRequest {
            disabled_skills: disabled,
            ..PlanRequest::first(input, catalog, &state, Instant::now() + limit)
        },
        &mut |_| {},
    )
}

/// What one labeled set's plans came to.
#[derive(Default)]
struct SetScore {
    latencies: Vec<Duration>,
    valid: usize,
    deadline: usize,
    exact: usize,
    needed: usize,
    found: usize,
    extra: usize,
    tokens: u64,
    decode_s: f64,
    misses: Vec<String>,
}

impl SetScore {
    /// Counts one plan for `item`.
    fn add(
        &mut self,
        item: &support::Labeled,
        r: Result<narratoria_core::planner::PlanOutcome, narratoria_core::planner::PlannerError>,
    ) {
        match r {
            Ok(out) => {
                self.valid += 1;
                let used = support::skills_used(&out.plan);
                let mut want = item.skills.clone();
                want.sort();
                if used == want {
                    self.exact += 1;
                } else {
                    self.misses
                        .push(format!("{:?} want {:?} got {:?}", item.input, want, used));
                }
                self.needed += want.len();
                self.found += want.iter().filter(|w| used.contains(w)).count();
                self.extra += used.iter().filter(|u| !want.contains(u)).count();
                let t = &out.transcript;
                if std::env::var_os("NARRATOR_BENCH_VERBOSE").is_some() {
                    println!(
                        "  {:>5} ms (first token {:>4} ms, {:>2} tokens) {:?}",
                        t.total_ms, t.time_to_first_token_ms, t.completion_tokens, item.input
                    );
                }
                self.tokens += u64::from(t.completion_tokens.saturating_sub(1));
                self.decode_s += (t.total_ms - t.time_to_first_token_ms) as f64 / 1000.0;
            }
            Err(narratoria_core::planner::PlannerError::Deadline) => {
                self.deadline += 1;
                self.misses
                    .push(format!("{:?} missed the deadline", item.input));
            }
            Err(e) => self.misses.push(format!("{:?} invalid: {e}", item.input)),
        }
    }

    /// Prints latency, validity and accuracy under `label`.
    fn print(mut self, label: &str) {
        self.latencies.sort();
        let n = self.latencies.len();
        let (latencies, valid, deadline, exact) =
            (&self.latencies, self.valid, self.deadline, self.exact);
        let (needed, found, extra) = (self.needed, self.found, self.extra);
        println!(
            "\n== {label}  (load average {})",
            std::fs::read_to_string("/proc/loadavg")
                .unwrap_or_default()
                .split(' ')
                .next()
                .unwrap_or("?")
        );
        println!(
            "valid {valid}/{n}, deadline misses {deadline}; latency p50 {:?} p95 {:?} max {:?}; decode {:.1} tok/s",
            latencies[n / 2],
            latencies[(n * 95).div_ceil(100).min(n) - 1],
            latencies[n - 1],
            self.tokens as f64 / self.decode_s.max(1e-9)
        );
        println!(
            "skill selection: exact {exact}/{n} ({:.0}%), needed skills found {found}/{needed}, extra skills {extra}",
            100.0 * exact as f64 / n as f64
        );
        if std::env::var_os("NARRATOR_BENCH_VERBOSE").is_some() {
            for m in self.misses {
                println!("  miss: {m}");
            }
        }
    }
}

/// Runs `items` with the real 5 s deadline and prints latency, validity and accuracy.
fn run_set(
    p: &LlamaPlanner,
    catalog: &Catalog,
    label: &str,
    options: PlannerOptions,
    items: &[support::Labeled],
) {
    p.set_options(options);
    p.clear_cache();
    let _ = p.warm_up(catalog, Instant::now() + Duration::from_secs(60));
    let mut score = SetScore::default();
    for item in items {
        let started = Instant::now();
        let r = plan_by(p, catalog, &item.input, &[], Duration::from_secs(5));
        score.latencies.push(started.elapsed());
        score.add(item, r);
    }
    score.print(label);
}

/// Prompt and decode speed of a plain llama.cpp loop: batch-read `prompt`, then greedy-decode 64 tokens.
fn bare_loop(
    path: &std::path::Path,
    threads: i32,
    decode_threads: i32,
    prompt: &str,
) -> (f64, f64) {
    let backend = narratoria_narrator::backend().unwrap();
    let model = LlamaModel::load_from_file(backend, path, &LlamaModelParams::default()).unwrap();
    let params = LlamaContextParams::default()
        .with_n_ctx(std::num::NonZeroU32::new(4096))
        .with_n_batch(512)
        .with_n_ubatch(512)
        .with_n_threads(decode_threads)
        .with_n_threads_batch(threads);
    let mut ctx = model.new_context(backend, params).unwrap();
    let mut prompt_rates = Vec::new();
    let mut decode_rates = Vec::new();
    for _ in 0..3 {
        ctx.clear_kv_cache();
        // Timed like the planner's time to first token: tokenizing, reading, the first token.
        let started = Instant::now();
        let tokens = model.vocab().tokenize(prompt.as_bytes(), true, true);
        let mut batch = LlamaBatch::new(512, 1);
        for (chunk_at, chunk) in tokens.chunks(512).enumerate() {
            batch.clear();
            for (i, &t) in chunk.iter().enumerate() {
                let p = chunk_at * 512 + i;
                batch.add(t, p as i32, &[0], p == tokens.len() - 1).unwrap();
            }
            ctx.decode(&mut batch).unwrap();
        }
        let mut sampler = LlamaSampler::greedy();
        let first = sampler.sample(&ctx, batch.n_tokens() - 1);
        prompt_rates.push(tokens.len() as f64 / started.elapsed().as_secs_f64());
        sampler.accept(first);
        let started = Instant::now();
        let mut pos = tokens.len();
        batch.clear();
        batch.add(first, pos as i32, &[0], true).unwrap();
        ctx.decode(&mut batch).unwrap();
        pos += 1;
        let mut at = 0;
        for _ in 1..64 {
            let t = sampler.sample(&ctx, at);
            sampler.accept(t);
            batch.clear();
            batch.add(t, pos as i32, &[0], true).unwrap();
            ctx.decode(&mut batch).unwrap();
            pos += 1;
            at = 0;
        }
        decode_rates.push(64.0 / started.elapsed().as_secs_f64());
    }
    (median_f(&prompt_rates), median_f(&decode_rates))
}

fn ms(v: u64) -> Duration {
    Duration::from_millis(v)
}

fn median(v: &[Duration]) -> Duration {
    let mut s = v.to_vec();
    s.sort();
    s[s.len() / 2]
}

fn median_f(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.partial_cmp(b).unwrap());
    s.get(s.len() / 2).copied().unwrap_or(0.0)
}

fn list(v: &[Duration]) -> String {
    v.iter()
        .map(|d| format!("{}ms", d.as_millis()))
        .collect::<Vec<_>>()
        .join(" ")
}
