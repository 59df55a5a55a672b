//! One turn of play: plan the mechanics → give the plan the turn's shape
//! (narration last, depending on every mechanics tool) → execute → replan
//! without the skills that failed (at most 5 plans) → template narration when
//! every plan failed → remember the turn. Every attempt is recorded for the
//! session (docs/architecture.md, "A turn").
//!
//! [`replan`] decides what happens next; [`play_turn`] does it: it asks the
//! planner, runs the plan, and feeds what came out back to the loop.

mod deadline;
mod fallback;
pub mod replan;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod trace_tests;

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Map, Value};
use tokio::sync::mpsc::UnboundedSender;

use crate::executor::{execute, ExecEvent, ExecutorOptions};
use crate::narration::{self, StoryTold, Telling};
use crate::plan::Plan;
use crate::planner::{PlanOutcome, Planner, Routing, Transcript, TurnSummary};
use crate::result::ExecutionResult;
use crate::scenario::lore::LoreUse;
use crate::scenario::StoryContext;
use crate::skills::health::{HealthChange, SkillsState};
use crate::skills::Catalog;
use crate::store::{AttemptRecord, NewTurn};
use crate::trace::{OpenSpan, SpanKind, SpanParent, SpanStatus, Trace};
use tracing::Instrument;

pub use fallback::fallback_narration;
use fallback::fallback_result;
use replan::{AttemptFailure, NextPlan, NoPlan, Phase, ReplanLoop};

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
}

impl Default for TurnOptions {
    fn default() -> Self {
        TurnOptions {
            max_attempts: 5,
            generation_deadline: None,
            exec: ExecutorOptions::default(),
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

/// Plays one turn from `state`. The planner is told the `recent` turns; the
/// narration step the story as `told` holds it (its turns, the author's
/// note, the language). Health is updated in `skills` as plans run; skills
/// that failed are left out of the following plans.
#[allow(clippy::too_many_arguments)]
pub async fn play_turn(
    input: &str,
    planner: Arc<dyn Planner>,
    catalog: Arc<Catalog>,
    state: Map<String, Value>,
    recent: Vec<TurnSummary>,
    told: StoryTold,
    skills: &mut SkillsState,
    opts: &TurnOptions,
    sink: Option<UnboundedSender<TurnEvent>>,
) -> TurnOutcome {
    let started = Instant::now();
    let trace = Trace::starting_at(started);
    let log_span = tracing::info_span!("turn", trace_id = %trace.id());
    async {
        let root = trace.open(SpanKind::Turn, "turn", None);
        let story = story_context(&planner, &state, input, &recent).await;
        let turn = Turn {
            input,
            planner,
            catalog,
            state,
            recent,
            told,
            story,
            opts,
            sink,
            trace: trace.clone(),
            root,
        };
        turn.warm_up().await;
        let mut replan = ReplanLoop::new(opts.max_attempts, skills.permanently_failed());
        let mut log = TurnLog {
            started,
            attempts: Vec::new(),
            health_changes: Vec::new(),
        };
        let mut ready: Option<(Plan, bool, Transcript, Option<Routing>)> = None;
        let mut last_result: Option<ExecutionResult> = None;
        let mut last_disabled: Vec<String> = Vec::new();
        // The span of the attempt being planned or run.
        let mut attempt_span: Option<OpenSpan> = None;
        loop {
            let done = matches!(replan.phase(), Phase::Succeeded { .. });
            if opts.exec.stop.is_stopped() && !done {
                return turn.stopped(last_result, log);
            }
            match replan.phase() {
                Phase::Generating { attempt } => {
                    let next = replan.next_plan();
                    turn.send(TurnEvent::Planning {
                        attempt,
                        disabled_skills: next.disabled_skills.clone(),
                    });
                    let mut span = turn.trace.open(
                        SpanKind::Attempt,
                        format!("attempt {attempt}"),
                        Some(turn.root.id()),
                    );
                    span.set("attempt", attempt);
                    let mut planning =
                        turn.trace
                            .open(SpanKind::Planning, "planning", Some(span.id()));
                    planning.set("planner", turn.planner.name());
                    planning.set("disabledSkills", next.disabled_skills.clone());
                    attempt_span = Some(span);
                    let generated = tokio::select! {
                        biased;
                        () = opts.exec.stop.stopped() => None,
                        generated = turn.generate(next) => Some(generated),
                    };
                    let Some(generated) = generated else {
                        return turn.stopped(last_result, log);
                    };
                    match generated {
                        Ok(outcome) => {
                            planning.set("tools", outcome.plan.tools.len());
                            planning.close(SpanStatus::Ok);
                            let (plan, noted) = turn.shaped(replan.planned(outcome.plan));
                            ready = Some((plan, noted, outcome.transcript, outcome.routing));
                        }
                        Err(no_plan) => {
                            let failure = replan.plan_failed(&no_plan);
                            planning.set("error", failure.reason.clone());
                            planning.close(SpanStatus::Error);
                            if let Some(span) = attempt_span.take() {
                                span.close(SpanStatus::Error);
                            }
                            log.attempts.push(AttemptRecord {
                                attempt,
                                plan: None,
                                result: None,
                                error: Some(failure.reason.clone()),
                                transcript: None,
                                lore: Vec::new(),
                                routing: None,
                                noted: false,
                            });
                            turn.send(failure.into());
                        }
                    }
                }
                Phase::Executing { attempt, .. } => {
                    let (plan, noted, transcript, routing) =
                        ready.take().expect("a plan is ready to execute");
                    last_disabled = plan.disabled_skills.clone();
                    let plan_json = narration::step::recorded(&plan, &turn.catalog);
                    let lore = turn.lore_told(&plan);
                    turn.send(TurnEvent::PlanReady {
                        attempt,
                        plan: plan_json.clone(),
                        lore: lore.clone(),
                        routing: routing.clone(),
                    });
                    let span = attempt_span.take();
                    let parent = span.as_ref().map_or(turn.root.id(), |s| s.id());
                    let result = turn.execute(&plan, attempt, parent).await;
                    if let Some(span) = span {
                        span.close(if result.success {
                            SpanStatus::Ok
                        } else {
                            SpanStatus::Error
                        });
                    }
                    log.attempts.push(AttemptRecord {
                        attempt,
                        plan: Some(plan_json),
                        result: Some(result.clone()),
                        error: None,
                        transcript: Some(transcript),
                        lore,
                        routing,
                        noted,
                    });
                    if opts.exec.stop.is_stopped() {
                        // Ended by the player, not failed: no skill's health changes.
                        return turn.stopped(Some(result), log);
                    }
                    for change in skills.record(&result) {
                        turn.send(TurnEvent::HealthChanged(change.clone()));
                        log.health_changes.push(change);
                    }
                    if let Some(failure) = replan.executed(&result, &skills.permanently_failed()) {
                        turn.send(failure.into());
                    }
                    last_result = Some(result);
                }
                Phase::Replanning { .. } => replan.replan(),
                Phase::Succeeded { .. } => {
                    let result = last_result.expect("the plan that succeeded has a result");
                    let noted = narration::remember::noted(&log.attempts);
                    let result = turn.remembered(result, &last_disabled, noted).await;
                    return turn.told(result, log);
                }
                Phase::FellBack => {
                    return turn.fell_back(last_result, replan.parent_plan_id(), log);
                }
            }
        }
    }
    .instrument(log_span)
    .await
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
    opts: &'a TurnOptions,
    sink: Option<UnboundedSender<TurnEvent>>,
    /// The turn's trace and its root span (docs/observability.md).
    trace: Trace,
    root: OpenSpan,
}

/// What the narration of a turn of `state` after `recent` is told of the
/// story, lore chosen by meaning too when the planner holds an embedding
/// model (which runs off the async threads).
pub async fn story_context(
    planner: &Arc<dyn Planner>,
    state: &Map<String, Value>,
    input: &str,
    recent: &[TurnSummary],
) -> Option<StoryContext> {
    let keys_only = || narration::story_context(state, input, recent, None);
    let Some(likeness) = planner.likeness() else {
        return keys_only();
    };
    let (owned_state, owned_input, owned_recent) =
        (state.clone(), input.to_string(), recent.to_vec());
    let judged = tokio::task::spawn_blocking(move || {
        narration::story_context(
            &owned_state,
            &owned_input,
            &owned_recent,
            Some(likeness.as_ref()),
        )
    })
    .await;
    judged.unwrap_or_else(|_| keys_only())
}

/// The record a turn keeps as it goes.
struct TurnLog {
    started: Instant,
    attempts: Vec<AttemptRecord>,
    health_changes: Vec<HealthChange>,
}

impl Turn<'_> {
    fn send(&self, ev: TurnEvent) {
        send(&self.sink, ev)
    }

    /// Lets the planner prepare (e.g. its prompt prefix) outside the
    /// generation deadline.
    async fn warm_up(&self) {
        let (planner, catalog) = (Arc::clone(&self.planner), Arc::clone(&self.catalog));
        let _ = tokio::task::spawn_blocking(move || {
            planner.warm_up(&catalog, Instant::now() + WARM_UP_LIMIT)
        })
        .await;
    }

    /// `plan` in the turn's shape: the planner's own narrative and narration
    /// steps give way to one narration step the host adds after every
    /// mechanics tool, so nothing is told before the rules decide; its memory
    /// writes give way to the turn's account the host keeps once it is told
    /// (the flag: whether its memory writes were folded and only narration
    /// is left, so the turn only noted something).
    fn shaped(&self, mut plan: Plan) -> (Plan, bool) {
        plan.narrative = None;
        let noted = narration::remember::fold_writes(&mut plan, &self.catalog);
        narration::shape(
            &mut plan,
            &self.catalog,
            &Telling {
                input: self.input,
                recent: &self.told.turns,
                scenario: self.story.as_ref().map(|s| s.standing.as_str()),
                scene: self.story.as_ref().map(|s| s.scene.as_str()),
                opening: self.told.opening(&self.state),
                author_note: Some(&self.told.author_note),
                language: Some(&self.told.language),
            },
        );
        (plan, noted)
    }

    /// The lore entries `plan`'s narration step is told (none without one).
    fn lore_told(&self, plan: &Plan) -> Vec<LoreUse> {
        let narrates = plan
            .tools
            .iter()
            .any(|t| narration::step::is_narration_tool(&self.catalog, t));
        match &self.story {
            Some(story) if narrates => story.lore_used.clone(),
            _ => Vec::new(),
        }
    }

    /// `result` after the memory skill kept the turn (when it can): its tool
    /// joins the trace and its state changes the turn's. A failure to
    /// remember never fails the turn.
    async fn remembered(
        &self,
        mut result: ExecutionResult,
        disabled: &[String],
        noted: bool,
    ) -> ExecutionResult {
        let narrative = result.narrative.clone().unwrap_or_default();
        let memory = self
            .trace
            .open(SpanKind::Memory, "memory", Some(self.root.id()));
        let mut exec = self.opts.exec.clone();
        exec.trace = Some(SpanParent {
            trace: self.trace.clone(),
            span_id: memory.id().to_string(),
        });
        let Some(kept) = narration::remember::keep(
            &self.catalog,
            disabled,
            narration::remember::Account {
                input: self.input,
                narrative: &narrative,
                noted,
            },
            result.final_state.clone(),
            &exec,
        )
        .await
        else {
            memory.close(SpanStatus::Skipped);
            return result;
        };
        memory.close(if kept.success {
            SpanStatus::Ok
        } else {
            SpanStatus::Error
        });
        if kept.success {
            result.final_state = kept.final_state;
        }
        result.execution_trace.extend(kept.execution_trace);
        result
    }

    /// Asks the planner for `next` (its own narrative is not shown: the
    /// narration step tells the turn once the rules have decided), giving it
    /// the time it needs; a plan that misses its deadline is planned by the
    /// rule-based planner instead (`deadline.rs`).
    async fn generate(&self, next: NextPlan) -> Result<PlanOutcome, NoPlan> {
        let time = deadline::plan_time(self.planner.as_ref(), self.opts.generation_deadline);
        let ask = deadline::Ask {
            input: self.input.to_string(),
            catalog: Arc::clone(&self.catalog),
            state: self.state.clone(),
            recent: self.recent.clone(),
            next,
        };
        deadline::plan(Arc::clone(&self.planner), ask, time).await
    }

    /// Runs plan `attempt` under span `parent`, forwarding its live events.
    async fn execute(&self, plan: &Plan, attempt: u32, parent: &str) -> ExecutionResult {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<ExecEvent>();
        let forward = self.sink.clone().map(|s| {
            tokio::spawn(async move {
                while let Some(event) = rx.recv().await {
                    let _ = s.send(TurnEvent::Execution { attempt, event });
                }
            })
        });
        let mut exec = self.opts.exec.clone();
        exec.trace = Some(SpanParent {
            trace: self.trace.clone(),
            span_id: parent.to_string(),
        });
        let result = execute(
            plan,
            &self.catalog,
            self.state.clone(),
            &exec,
            self.sink.as_ref().map(|_| tx),
        )
        .await;
        if let Some(f) = forward {
            let _ = f.await;
        }
        result
    }

    /// The turn told by its narration step, or — when there was none (the
    /// storyteller disabled or failed) — by the outcome template, which tells
    /// what the rules decided in words.
    fn told(self, mut result: ExecutionResult, log: TurnLog) -> TurnOutcome {
        let narrative = match result.narrative.clone().filter(|n| !n.trim().is_empty()) {
            Some(n) => n,
            None => {
                let told = narration::told_in(
                    &self.told.language,
                    self.input,
                    result
                        .execution_trace
                        .iter()
                        .filter_map(|t| t.output.as_ref()),
                );
                self.send(TurnEvent::Fallback {
                    narrative: told.clone(),
                });
                told
            }
        };
        result.narrative = Some(narrative.clone());
        let state_after = result.final_state.clone();
        self.outcome(result, narrative, false, state_after, log)
    }

    /// The turn the player stopped: what its tools finished stays (their
    /// state changes too) and it is told by the outcome template from what
    /// they decided — nothing half-written. Without any tool run, the
    /// template alone, with no state change.
    fn stopped(self, last: Option<ExecutionResult>, log: TurnLog) -> TurnOutcome {
        let Some(mut result) = last else {
            return self.fell_back(None, None, log);
        };
        let narrative = narration::told_in(
            &self.told.language,
            self.input,
            result
                .execution_trace
                .iter()
                .filter(|t| t.state == crate::result::ExecutionState::Completed)
                .filter_map(|t| t.output.as_ref()),
        );
        self.send(TurnEvent::Fallback {
            narrative: narrative.clone(),
        });
        result.narrative = Some(narrative.clone());
        let state_after = result.final_state.clone();
        self.outcome(result, narrative, true, state_after, log)
    }

    /// The turn told by the template after every plan failed; no state changes.
    fn fell_back(
        self,
        last: Option<ExecutionResult>,
        parent: Option<uuid::Uuid>,
        log: TurnLog,
    ) -> TurnOutcome {
        let narrative = fallback_narration(&self.told.language, self.input);
        self.send(TurnEvent::Fallback {
            narrative: narrative.clone(),
        });
        let result = fallback_result(last, parent, &self.state, narrative.clone());
        let state_after = self.state.clone();
        self.outcome(result, narrative, true, state_after, log)
    }

    fn outcome(
        self,
        mut result: ExecutionResult,
        narrative: String,
        fallback: bool,
        state_after: Map<String, Value>,
        log: TurnLog,
    ) -> TurnOutcome {
        let Turn {
            mut root, trace, ..
        } = self;
        root.set("fallback", fallback);
        root.set("attempts", log.attempts.len());
        root.close(if fallback {
            SpanStatus::Error
        } else {
            SpanStatus::Ok
        });
        let record = trace.record_so_far();
        result.trace = Some(record.clone());
        TurnOutcome {
            turn: NewTurn {
                input: self.input.to_string(),
                narrative,
                fallback,
                state_after,
                duration_ms: log.started.elapsed().as_millis() as u64,
                attempts: log.attempts,
                trace: Some(record),
            },
            result,
            health_changes: log.health_changes,
        }
    }
}

fn send(sink: &Option<UnboundedSender<TurnEvent>>, ev: TurnEvent) {
    if let Some(s) = sink {
        let _ = s.send(ev);
    }
}
