//! One turn of play: plan the mechanics → give the plan the turn's shape
//! (narration last, depending on every mechanics tool) → execute → replan
//! without the skills that failed (at most 5 plans) → template narration when
//! every plan failed → remember the turn. Every attempt is recorded for the
//! session (docs/architecture.md, "A turn").
//!
//! [`replan`] decides what happens next; [`play_turn`] does it: it asks the
//! planner, runs the plan, and feeds what came out back to the loop.

mod attempt;
mod deadline;
mod ending;
mod fallback;
pub mod memory;
pub mod narration_step;
pub mod replan;
pub mod story_context;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod trace_tests;

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Map, Value};
use tokio::sync::mpsc::UnboundedSender;
use tracing::Instrument;

use crate::executor::{ExecEvent, ExecutorOptions};
use crate::narration::StoryTold;
use crate::plan::Plan;
use crate::planner::{Planner, Routing, Transcript, TurnSummary};
use crate::result::ExecutionResult;
use crate::scenario::known::{self, Answer};
use crate::scenario::lore::LoreUse;
use crate::scenario::StoryContext;
use crate::skills::health::{HealthChange, SkillsState};
use crate::skills::Catalog;
use crate::store::{AttemptRecord, NewTurn};
use crate::trace::{OpenSpan, SpanKind, Trace};

pub use attempt::execute_live;
pub use fallback::fallback_narration;
pub use narration_step::{Telling, RECENT_TURNS};
use replan::{AttemptFailure, Phase, ReplanLoop};
pub use story_context::{story_context, story_context_judged_by};

/// How a turn is played.
#[derive(Debug, Clone)]
pub struct TurnOptions {
    /// Plans per turn before the fallback narration (5 by design).
    pub max_attempts: u32,
    /// Time for one plan generation: `None`, the planner's own
    /// [`Planner::plan_time`] (5 s unless it measured that it needs more);
    /// `Some`, this time whatever the planner says.
    pub generation_deadline: Option<Duration>,
    pub exec: ExecutorOptions,
    /// The skills the player said the turn needs (a correction): every plan
    /// of the turn uses them instead of routing's choice
    /// ([`crate::planner::PlanRequest::skills_needed`]).
    pub skills_needed: Option<Vec<String>>,
}

impl Default for TurnOptions {
    fn default() -> Self {
        TurnOptions {
            max_attempts: 5,
            generation_deadline: None,
            exec: ExecutorOptions::default(),
            skills_needed: None,
        }
    }
}

/// A live update while a turn is played.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum TurnEvent {
    /// The planner starts writing plan `attempt`.
    #[serde(rename_all = "camelCase")]
    Planning {
        attempt: u32,
        disabled_skills: Vec<String>,
    },
    /// A piece of the plan's narrative, as the planner writes it.
    #[serde(rename_all = "camelCase")]
    NarrativeDelta { attempt: u32, text: String },
    /// Plan `attempt` is ready and about to run; its narration is told
    /// the lore entries in `lore`; `routing` says why it uses its skills.
    #[serde(rename_all = "camelCase")]
    PlanReady {
        attempt: u32,
        #[ts(as = "crate::plan::Plan")]
        plan: Value,
        lore: Vec<LoreUse>,
        /// Why the plan uses the skills it uses, when a router chose them.
        routing: Option<Routing>,
    },
    /// Something happened while the plan ran.
    Execution { attempt: u32, event: ExecEvent },
    /// Plan `attempt` failed; the next one leaves out `disabling`.
    #[serde(rename_all = "camelCase")]
    AttemptFailed {
        attempt: u32,
        reason: String,
        disabling: Vec<String>,
    },
    /// A skill's health changed.
    HealthChanged(HealthChange),
    /// Every plan failed; the template narration stands in.
    Fallback { narrative: String },
}

impl From<AttemptFailure> for TurnEvent {
    fn from(f: AttemptFailure) -> Self {
        TurnEvent::AttemptFailed {
            attempt: f.attempt,
            reason: f.reason,
            disabling: f.disabling,
        }
    }
}

/// What a turn produced.
#[derive(Debug, Clone)]
pub struct TurnOutcome {
    /// The last plan's result, with the turn's narrative.
    pub result: ExecutionResult,
    /// The turn as it is to be stored.
    pub turn: NewTurn,
    pub health_changes: Vec<HealthChange>,
}

/// The longest a planner may spend preparing before a turn.
const WARM_UP_LIMIT: Duration = Duration::from_secs(60);

/// What one turn is played from, and where its live events go.
pub struct TurnInputs<'a> {
    /// The player's action, in their words.
    pub input: &'a str,
    pub planner: Arc<dyn Planner>,
    pub catalog: Arc<Catalog>,
    /// The session's state before the turn.
    pub state: Map<String, Value>,
    /// The planner's window of recent turns.
    pub recent: Vec<TurnSummary>,
    /// The story as the narration step is told it (its turns, the author's
    /// note, the language).
    pub told: StoryTold,
    pub options: &'a TurnOptions,
    /// Receives everything live (planning, tool events, replans).
    pub events: Option<UnboundedSender<TurnEvent>>,
}

/// Plays one turn from `inputs`. Health is updated in `skills` as plans
/// run; skills that failed are left out of the following plans.
pub async fn play_turn(inputs: TurnInputs<'_>, skills: &mut SkillsState) -> TurnOutcome {
    let started = Instant::now();
    let trace = Trace::starting_at(started);
    let log_span = tracing::info_span!("turn", trace_id = %trace.id());
    async move {
        let turn = Turn::begin(inputs, trace).await;
        turn.warm_up().await;
        turn.play(skills, started).await
    }
    .instrument(log_span)
    .await
}

/// The story's own answer to `input` when it asks something the state or
/// the turns `told` hold (docs/storyteller.md, "Facts the story answers").
pub fn answered(input: &str, state: &Map<String, Value>, told: &StoryTold) -> Option<Answer> {
    // A deed asks nothing: the story's sources are not gathered for it. A
    // yes-or-no question is the game master's oracle's to answer, and keep
    // (docs/game-master.md, "The oracle"): a sentence of the story near its
    // words answers neither yes nor no.
    if !narratoria_lexicon::is_question(input) || narratoria_lexicon::asks_yes_or_no(input) {
        return None;
    }
    let found = known::answer(input, &known::sources(state, &told.turns), &told.language);
    if let Some(a) = &found {
        tracing::debug!(about = %a.about, source = ?a.source, "the story answers the question");
    }
    found
}

/// What one turn's steps share.
struct Turn<'a> {
    input: &'a str,
    planner: Arc<dyn Planner>,
    catalog: Arc<Catalog>,
    state: Map<String, Value>,
    /// The planner's window of recent turns.
    recent: Vec<TurnSummary>,
    /// What the narration step is told of the story as a whole.
    told: StoryTold,
    /// What the narration step is told of the story (scenario and lore).
    story: Option<StoryContext>,
    /// What the story already holds that answers the player's question.
    answer: Option<Answer>,
    opts: &'a TurnOptions,
    sink: Option<UnboundedSender<TurnEvent>>,
    /// The turn's trace and its root span (docs/observability.md).
    trace: Trace,
    root: OpenSpan,
}

/// A plan shaped for the turn, about to run.
struct Ready {
    plan: Plan,
    /// Whether the turn only noted something ([`memory::fold_writes`]).
    noted: bool,
    transcript: Transcript,
    routing: Option<Routing>,
}

/// How far a turn has come: the replan loop and what its attempts left.
struct Progress {
    replan: ReplanLoop,
    log: TurnLog,
    ready: Option<Ready>,
    last_result: Option<ExecutionResult>,
    /// The skills the last plan that ran left out.
    last_disabled: Vec<String>,
    /// The spans of the attempt being planned or run; a turn stopped while
    /// planning leaves them open, out of its trace.
    attempt_span: Option<OpenSpan>,
    planning_span: Option<OpenSpan>,
}

/// The player stopped the turn.
struct Stopped;

/// The record a turn keeps as it goes.
struct TurnLog {
    started: Instant,
    attempts: Vec<AttemptRecord>,
    health_changes: Vec<HealthChange>,
}

impl<'a> Turn<'a> {
    /// The turn of `inputs` on `trace`, its root span open and its story
    /// context chosen.
    async fn begin(inputs: TurnInputs<'a>, trace: Trace) -> Turn<'a> {
        let root = trace.open(SpanKind::Turn, "turn", None);
        let story =
            story_context_judged_by(&inputs.planner, &inputs.state, inputs.input, &inputs.recent)
                .await;
        let answer = answered(inputs.input, &inputs.state, &inputs.told);
        Turn {
            input: inputs.input,
            planner: inputs.planner,
            catalog: inputs.catalog,
            state: inputs.state,
            recent: inputs.recent,
            told: inputs.told,
            story,
            answer,
            opts: inputs.options,
            sink: inputs.events,
            trace,
            root,
        }
    }

    /// Runs the replan loop to the turn's end: told, stopped or fallen back.
    async fn play(self, skills: &mut SkillsState, started: Instant) -> TurnOutcome {
        let mut p = Progress {
            replan: ReplanLoop::new(self.opts.max_attempts, skills.permanently_failed()),
            log: TurnLog {
                started,
                attempts: Vec::new(),
                health_changes: Vec::new(),
            },
            ready: None,
            last_result: None,
            last_disabled: Vec::new(),
            attempt_span: None,
            planning_span: None,
        };
        loop {
            let done = matches!(p.replan.phase(), Phase::Succeeded { .. });
            if self.opts.exec.stop.is_stopped() && !done {
                return self.stopped(p.last_result, p.log);
            }
            let step = match p.replan.phase() {
                Phase::Generating { attempt } => self.plan_attempt(attempt, &mut p).await,
                Phase::Executing { attempt, .. } => self.run_attempt(attempt, &mut p, skills).await,
                Phase::Replanning { .. } => {
                    p.replan.replan();
                    Ok(())
                }
                Phase::Succeeded { .. } => return self.succeeded(p).await,
                Phase::FellBack => {
                    let parent = p.replan.parent_plan_id();
                    return self.fell_back(p.last_result, parent, p.log);
                }
            };
            if let Err(Stopped) = step {
                return self.stopped(p.last_result, p.log);
            }
        }
    }

    fn send(&self, ev: TurnEvent) {
        if let Some(s) = &self.sink {
            let _ = s.send(ev);
        }
    }

    /// Lets the planner prepare (e.g. its prompt prefix) outside the
    /// generation deadline.
    async fn warm_up(&self) {
        let (planner, catalog) = (Arc::clone(&self.planner), Arc::clone(&self.catalog));
        let language = self.told.language.clone();
        let _ = tokio::task::spawn_blocking(move || {
            planner.warm_up(&catalog, Instant::now() + WARM_UP_LIMIT);
            if !language.is_english() {
                planner.warm_up_language(&catalog, &language);
            }
        })
        .await;
    }
}
