//! `narratoria bench turn`: what a player waits for, turn by turn, with the
//! built-in skills in the Ashford scenario, per model and per role: the
//! planner's plan, the mechanics (the tools before the narration), the time
//! from the end of the mechanics to the first token the writer model wrote
//! (the rules' own opening words do not count), the writer's tokens per
//! second, and the whole turn; each story's first turn apart from the later
//! ones; p50 and p95 (docs/benchmarks.md, "Turns"). Not a test: it judges
//! nothing, it reports.

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use narratoria_app::roles::{self, Given};
use narratoria_app::{locate, App, AppConfig, ModelInfo, SessionDb, SkillChoices};
use narratoria_core::executor::ExecEvent;
use narratoria_core::host::{Generator, Written};
use narratoria_core::plan::Plan;
use narratoria_core::protocol::{GenerateRequest, GenerationError, HostModel};
use narratoria_core::skills::Catalog;
use narratoria_core::turn::narration_step::narration_step;
use narratoria_core::turn::TurnEvent;
use narratoria_core::ErrorCode;
use serde::Serialize;
use serde_json::json;

use crate::cli::BenchArgs;
use crate::commands::common::{runtime, CliError};

/// The players' inputs, one turn each: fights, talk, searches, memory and
/// standing, as a story would mix them.
const INPUTS: [&str; 40] = [
    "I look around the common room.",
    "I ask the innkeeper about the burned bridge.",
    "I order a bowl of stew and sit by the fire.",
    "I listen to the ferrymen's argument.",
    "I attack the drunk who grabs my arm.",
    "I try to calm the drunk down with a joke.",
    "Do I remember anyone here from before?",
    "I check that the sealed letter is still dry.",
    "I ask Mara Vell for a room for the night.",
    "I offer the ferrymen a coin for a crossing at dawn.",
    "I sneak up the stairs to listen at the door.",
    "I pick the lock of the storeroom.",
    "I search the storeroom for anything useful.",
    "I remember what the innkeeper said about the bandits.",
    "I bow to the priest and offer a coin to the temple.",
    "I insult the watch captain in front of his men.",
    "I climb out of the window onto the roof.",
    "I jump across to the stable roof.",
    "I hide in the hay when the guards pass.",
    "I steal a horse from the stable.",
    "I ride north along the river in the rain.",
    "I look for tracks on the muddy road.",
    "I follow the tracks into the reeds.",
    "I shoot an arrow at the figure in the reeds.",
    "I shout that I mean no harm.",
    "I ask the stranger who sent them.",
    "I tell the stranger about the letter.",
    "I draw my sword and demand the truth.",
    "I bandage my wounded arm.",
    "I make camp under the old willow.",
    "I keep watch through the night.",
    "What do the Reeds think of me now?",
    "I help the fisherman pull his boat ashore.",
    "I trade my dagger for a map of the marsh.",
    "I read the map by the firelight.",
    "I cross the marsh at first light.",
    "I swim across the cold channel.",
    "I climb the ruined watchtower.",
    "I open the letter at last and read it.",
    "I burn the letter in the brazier.",
];

/// One request the writer served, as the bench saw it.
#[derive(Debug, Clone, Copy)]
struct Served {
    first_token: Option<Instant>,
    ended: Instant,
    tokens: u32,
}

/// The writer lent to skills, timing what it writes: when its first
/// token's text reached the host, when it ended, how many tokens.
struct Timed {
    inner: Arc<dyn Generator>,
    served: Arc<Mutex<Vec<Served>>>,
}

impl Generator for Timed {
    fn offer(&self) -> HostModel {
        self.inner.offer()
    }

    fn generate(
        &self,
        request: &GenerateRequest,
        on_delta: &mut dyn FnMut(&str),
        cancel: &Arc<AtomicBool>,
        deadline: Instant,
    ) -> Result<Written, GenerationError> {
        let mut first_token = None;
        let written = self.inner.generate(
            request,
            &mut |text| {
                if first_token.is_none() && !text.is_empty() {
                    first_token = Some(Instant::now());
                }
                on_delta(text)
            },
            cancel,
            deadline,
        );
        let tokens = written.as_ref().map_or(0, |w| w.usage.completion_tokens);
        narratoria_core::sync::lock(&self.served).push(Served {
            first_token,
            ended: Instant::now(),
            tokens,
        });
        written
    }
}

/// What one turn took.
#[derive(Debug, Clone, Copy, Default)]
struct TurnTimes {
    plan: Option<Duration>,
    mechanics: Option<Duration>,
    first_model_token: Option<Duration>,
    writer_tokens_per_s: Option<f64>,
    whole: Duration,
}

/// The measures, each with the role whose model it measures.
const MEASURES: [(&str, &str, &str); 5] = [
    ("plan", "planner", "plan (input → plan ready)"),
    (
        "mechanics",
        "-",
        "mechanics (plan ready → narration starts)",
    ),
    (
        "firstModelToken",
        "writer",
        "first model token (mechanics end → first token written)",
    ),
    (
        "writerTokensPerSecond",
        "writer",
        "writer tokens per second",
    ),
    ("wholeTurn", "-", "whole turn"),
];

impl TurnTimes {
    /// The value of measure `name` (milliseconds, or tokens per second).
    fn get(&self, name: &str) -> Option<f64> {
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        match name {
            "plan" => self.plan.map(ms),
            "mechanics" => self.mechanics.map(ms),
            "firstModelToken" => self.first_model_token.map(ms),
            "writerTokensPerSecond" => self.writer_tokens_per_s,
            "wholeTurn" => Some(ms(self.whole)),
            _ => None,
        }
    }
}

/// p50 and p95 of some values.
#[derive(Debug, Clone, Copy, Serialize)]
struct Spread {
    p50: f64,
    p95: f64,
    n: usize,
}

fn spread(values: &[f64]) -> Option<Spread> {
    if values.is_empty() {
        return None;
    }
    let mut v = values.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    let at = |q: f64| v[((v.len() as f64 * q).ceil() as usize).clamp(1, v.len()) - 1];
    let tenth = |x: f64| (x * 10.0).round() / 10.0;
    Some(Spread {
        p50: tenth(at(0.5)),
        p95: tenth(at(0.95)),
        n: v.len(),
    })
}

/// One measure over the first turns and the later ones.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct Measure {
    name: &'static str,
    role: &'static str,
    unit: &'static str,
    first_turn: Option<Spread>,
    later_turns: Option<Spread>,
    all: Option<Spread>,
}

/// A model in one role, as the report names it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct RoleModel {
    model: String,
    path: Option<std::path::PathBuf>,
    parameters: Option<u64>,
    context_tokens: Option<u32>,
    profile: Option<String>,
}

/// Everything the benchmark reports.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
struct Report {
    build: &'static str,
    stories: u32,
    turns_per_story: u32,
    planner: RoleModel,
    writer: RoleModel,
    /// One model plans and writes.
    shared: bool,
    measures: Vec<Measure>,
    /// Turns whose narration no model-written text reached.
    untold: usize,
    /// Plans the rule-based planner wrote because the model's missed its deadline.
    plans_by_rules: usize,
    /// How many turns each storyteller provider told.
    told_by: BTreeMap<String, usize>,
}

/// The tool id of the narration step of `plan` (a plan as a
/// [`TurnEvent::PlanReady`] carries it), when it has one.
fn narration_id_of(plan: &serde_json::Value, catalog: &Catalog) -> Option<String> {
    let plan: Plan = serde_json::from_value(plan.clone()).ok()?;
    narration_step(&plan, catalog).map(|t| t.tool_id.clone())
}

/// Runs the turn benchmark and prints its figures.
pub fn run(args: &BenchArgs) -> Result<ExitCode, CliError> {
    let io = |e: std::io::Error| CliError::usage(ErrorCode::Io, e.to_string());
    let tmp = tempfile::tempdir().map_err(io)?;
    let app = App::open(AppConfig {
        skill_roots: locate::skill_roots(&[]),
        session_db: SessionDb::File(tmp.path().join("story.db")),
        skills_state: SkillChoices::File(tmp.path().join("skills-state.json")),
        skill_data: Some(tmp.path().join("data")),
        ..AppConfig::default()
    })?;
    let roles = roles::for_run(
        &Given {
            model: args.model.clone(),
            writer: args.writer.clone(),
            writer_context: args.writer_context,
        },
        None,
    );
    let model = app.load_roles(&roles, None)?;
    let catalog = app.registry().snapshot();
    if model.path.is_none() && model.writer_path.is_none() {
        return Err(CliError::usage(
            ErrorCode::ModelUnusable,
            format!(
                "no model at {} (scripts/fetch-model.sh)",
                model.default_path.display()
            ),
        ));
    }
    let served = Arc::new(Mutex::new(Vec::new()));
    if let Some(writer) = app.writer_generator() {
        app.lend_writer(Arc::new(Timed {
            inner: writer,
            served: Arc::clone(&served),
        }));
    }
    let turns = args.turns.unwrap_or(INPUTS.len() as u32);
    if !args.json {
        say!(
            "narratoria turn benchmark: {} × {turns} turns, {} build",
            if args.stories == 1 {
                "1 story".to_string()
            } else {
                format!("{} stories", args.stories)
            },
            build()
        );
        say!("  planner: {}", describe_planner(&model));
        say!("  writer:  {}", describe_writer(&model));
    }
    let rt = runtime();
    let mut first: Vec<TurnTimes> = Vec::new();
    let mut later: Vec<TurnTimes> = Vec::new();
    let (mut untold, mut plans_by_rules) = (0, 0);
    let mut told_by: BTreeMap<String, usize> = BTreeMap::new();
    for _ in 0..args.stories {
        app.new_story(Some("ashford"))?;
        for (n, input) in INPUTS.iter().cycle().take(turns as usize).enumerate() {
            narratoria_core::sync::lock(&served).clear();
            let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
            let start = Instant::now();
            let (mut planned, mut narrating) = (None, None);
            // The narration step of the plan that runs (the host's one rule).
            let mut narration_id: Option<String> = None;
            let played = rt.block_on(async {
                let play = app.play(input, Some(tx));
                tokio::pin!(play);
                loop {
                    tokio::select! {
                        done = &mut play => break done,
                        Some(event) = rx.recv() => match event {
                            TurnEvent::PlanReady { plan, .. } => {
                                planned.get_or_insert_with(Instant::now);
                                narration_id = narration_id_of(&plan, &catalog);
                            }
                            TurnEvent::Execution { event: ExecEvent::ToolStarted { tool_id, .. }, .. }
                                if Some(&tool_id) == narration_id.as_ref() && narrating.is_none() => narrating = Some(Instant::now()),
                            _ => {}
                        },
                    }
                }
            });
            let whole = start.elapsed();
            let view = played?;
            let provider = view
                .result
                .execution_trace
                .iter()
                .find(|t| Some(&t.tool_id) == narration_id.as_ref())
                .and_then(|t| {
                    t.output
                        .as_ref()?
                        .get("provider")?
                        .as_str()
                        .map(String::from)
                })
                .unwrap_or_else(|| "none".into());
            *told_by.entry(provider).or_default() += 1;
            plans_by_rules += view
                .turn
                .attempts
                .iter()
                .filter(|a| a.transcript.as_ref().is_some_and(|t| t.planner == "rules"))
                .filter(|_| model.planner != "rules")
                .count();
            let served = narratoria_core::sync::lock(&served).clone();
            let mut times = TurnTimes {
                plan: planned.map(|p| p - start),
                mechanics: planned
                    .zip(narrating)
                    .map(|(p, n)| n.saturating_duration_since(p)),
                whole,
                ..TurnTimes::default()
            };
            if let Some(n) = narrating {
                let first_token = served
                    .iter()
                    .filter_map(|s| s.first_token)
                    .filter(|t| *t >= n)
                    .min();
                times.first_model_token = first_token.map(|t| t - n);
                if first_token.is_none() {
                    untold += 1;
                }
            }
            let (tokens, writing) = served
                .iter()
                .filter_map(|s| Some((s.tokens, s.ended.saturating_duration_since(s.first_token?))))
                .fold((0u32, Duration::ZERO), |(t, d), (n, w)| (t + n, d + w));
            if tokens > 1 && !writing.is_zero() {
                times.writer_tokens_per_s = Some(f64::from(tokens) / writing.as_secs_f64());
            }
            if n == 0 {
                first.push(times)
            } else {
                later.push(times)
            }
        }
    }
    let measures = MEASURES
        .iter()
        .map(|(name, role, _)| {
            let of =
                |turns: &[TurnTimes]| turns.iter().filter_map(|t| t.get(name)).collect::<Vec<_>>();
            let all: Vec<f64> = of(&first).into_iter().chain(of(&later)).collect();
            Measure {
                name,
                role,
                unit: if *name == "writerTokensPerSecond" {
                    "tokens/s"
                } else {
                    "ms"
                },
                first_turn: spread(&of(&first)),
                later_turns: spread(&of(&later)),
                all: spread(&all),
            }
        })
        .collect();
    let report = Report {
        build: build(),
        stories: args.stories,
        turns_per_story: turns,
        planner: RoleModel {
            model: model.planner.clone(),
            path: model.path.clone(),
            parameters: model.planner_parameters,
            context_tokens: None,
            profile: None,
        },
        writer: RoleModel {
            model: model.writer.clone(),
            path: model.writer_path.clone(),
            parameters: model.writer_parameters,
            context_tokens: model.writer_context,
            profile: model.writer_profile.clone(),
        },
        shared: model.shared,
        measures,
        untold,
        plans_by_rules,
        told_by,
    };
    if args.json {
        crate::commands::common::print_json(&json!(report));
    } else {
        print_table(&report);
    }
    Ok(ExitCode::SUCCESS)
}

fn build() -> &'static str {
    if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    }
}

/// "SmolLM2-135M-Instruct.Q4_1.gguf (135M parameters)".
fn describe_planner(m: &ModelInfo) -> String {
    match m.planner_parameters {
        Some(p) => format!("{} ({} parameters)", m.planner, count(p)),
        None => m.planner.clone(),
    }
}

fn describe_writer(m: &ModelInfo) -> String {
    let mut out = m.writer.clone();
    if m.shared && m.writer != "none" {
        out.push_str(" (the planner's model)");
    }
    let mut facts = Vec::new();
    if let Some(p) = m.writer_parameters {
        facts.push(format!("{} parameters", count(p)));
    }
    if let Some(c) = m.writer_context {
        facts.push(format!("{c} tokens of context"));
    }
    if let Some(profile) = &m.writer_profile {
        facts.push(profile.clone());
    }
    if !facts.is_empty() {
        out.push_str(&format!(" — {}", facts.join("; ")));
    }
    out
}

fn count(n: u64) -> String {
    if n >= 1_000_000_000 {
        format!("{:.1}B", n as f64 / 1e9)
    } else {
        format!("{}M", (n as f64 / 1e6).round())
    }
}

fn print_table(r: &Report) {
    let cell = |s: Option<Spread>| match s {
        Some(s) => format!("{:>8.0} {:>8.0} {:>4}", s.p50, s.p95, s.n),
        None => format!("{:>8} {:>8} {:>4}", "-", "-", 0),
    };
    say!(
        "\n{:<62} {:<8} {:>22}   {:>22}   {:>22}",
        "",
        "",
        "turn 1",
        "later turns",
        "all turns"
    );
    say!(
        "{:<62} {:<8} {:>8} {:>8} {:>4}   {:>8} {:>8} {:>4}   {:>8} {:>8} {:>4}",
        "measure",
        "role",
        "p50",
        "p95",
        "n",
        "p50",
        "p95",
        "n",
        "p50",
        "p95",
        "n"
    );
    for (m, (_, _, label)) in r.measures.iter().zip(MEASURES.iter()) {
        let label = if m.unit == "ms" {
            format!("{label}, ms")
        } else {
            label.to_string()
        };
        say!(
            "{:<62} {:<8} {}   {}   {}",
            label,
            m.role,
            cell(m.first_turn),
            cell(m.later_turns),
            cell(m.all)
        );
    }
    let turns = r.stories * r.turns_per_story;
    say!(
        "\n  turns no model-written prose reached: {} of {turns}",
        r.untold
    );
    say!(
        "  plans the rule-based planner wrote after a missed deadline: {}",
        r.plans_by_rules
    );
    let told_by: Vec<String> = r
        .told_by
        .iter()
        .map(|(provider, n)| format!("{provider} {n}"))
        .collect();
    say!("  narration told by: {}", told_by.join(", "));
}
