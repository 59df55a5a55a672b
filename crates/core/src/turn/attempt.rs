//! One plan attempt of a turn: the planner writes the mechanics, the host
//! gives the plan the turn's shape, the executor runs it, and what came out
//! goes back to the replan loop (docs/architecture.md, "One turn, as it
//! flows").

use std::sync::Arc;

use tokio::sync::mpsc::UnboundedSender;

use super::narration_step::{narration_step, plan_limit, recorded, shape, Telling};
use super::replan::{NextPlan, NoPlan};
use super::{deadline, memory, Progress, Ready, Stopped, Turn, TurnEvent};
use crate::executor::{execute, ExecEvent, ExecutorOptions};
use crate::plan::Plan;
use crate::planner::PlanOutcome;
use crate::result::ExecutionResult;
use crate::scenario::lore::LoreUse;
use crate::skills::health::SkillsState;
use crate::skills::Catalog;
use crate::store::AttemptRecord;
use crate::trace::{OpenSpan, SpanKind, SpanParent, SpanStatus};

/// Runs `plan` from `state`, each of its live events sent to `sink` as
/// [`TurnEvent::Execution`] of `attempt`; returns once every event is sent.
pub async fn execute_live(
    plan: &Plan,
    catalog: &Catalog,
    state: serde_json::Map<String, serde_json::Value>,
    exec: &ExecutorOptions,
    attempt: u32,
    sink: Option<&UnboundedSender<TurnEvent>>,
) -> ExecutionResult {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<ExecEvent>();
    let forward = sink.cloned().map(|s| {
        tokio::spawn(async move {
            while let Some(event) = rx.recv().await {
                let _ = s.send(TurnEvent::Execution { attempt, event });
            }
        })
    });
    let result = execute(plan, catalog, state, exec, sink.map(|_| tx)).await;
    if let Some(f) = forward {
        let _ = f.await;
    }
    result
}

/// An error span or an ok one.
pub(super) fn status_of(success: bool) -> SpanStatus {
    if success {
        SpanStatus::Ok
    } else {
        SpanStatus::Error
    }
}

impl Turn<'_> {
    /// Asks the planner for plan `attempt` and shapes it for the turn, or
    /// records why no plan came. `Stopped` when the player stopped it.
    pub(super) async fn plan_attempt(&self, attempt: u32, p: &mut Progress) -> Result<(), Stopped> {
        let next = p.replan.next_plan();
        self.send(TurnEvent::Planning {
            attempt,
            disabled_skills: next.disabled_skills.clone(),
        });
        let mut span = self.trace.open(
            SpanKind::Attempt,
            format!("attempt {attempt}"),
            Some(self.root.id()),
        );
        span.set("attempt", attempt);
        let mut planning = self
            .trace
            .open(SpanKind::Planning, "planning", Some(span.id()));
        planning.set("planner", self.planner.name());
        planning.set("disabledSkills", next.disabled_skills.clone());
        p.attempt_span = Some(span);
        p.planning_span = Some(planning);
        let generated = tokio::select! {
            biased;
            () = self.opts.exec.stop.stopped() => None,
            generated = self.generate(next) => Some(generated),
        };
        let generated = generated.ok_or(Stopped)?;
        let mut planning = p.planning_span.take().expect("the planning span is open");
        match generated {
            Ok(outcome) => {
                planning.set("tools", outcome.plan.tools.len());
                planning.close(SpanStatus::Ok);
                let (plan, noted) = self.shaped(p.replan.planned(outcome.plan));
                p.ready = Some(Ready {
                    plan,
                    noted,
                    transcript: outcome.transcript,
                    routing: outcome.routing,
                });
            }
            Err(no_plan) => self.no_plan(attempt, &no_plan, planning, p),
        }
        Ok(())
    }

    /// Records that plan `attempt` never came.
    fn no_plan(&self, attempt: u32, why: &NoPlan, mut planning: OpenSpan, p: &mut Progress) {
        let failure = p.replan.plan_failed(why);
        planning.set("error", failure.reason.clone());
        planning.close(SpanStatus::Error);
        if let Some(span) = p.attempt_span.take() {
            span.close(SpanStatus::Error);
        }
        p.log.attempts.push(AttemptRecord {
            attempt,
            plan: None,
            result: None,
            error: Some(failure.reason.clone()),
            transcript: None,
            lore: Vec::new(),
            routing: None,
            noted: false,
        });
        self.send(failure.into());
    }

    /// Runs the plan ready for `attempt` and feeds its result to the replan
    /// loop and the skills' health. `Stopped` when the player stopped it
    /// (its result kept, no skill's health changed).
    pub(super) async fn run_attempt(
        &self,
        attempt: u32,
        p: &mut Progress,
        skills: &mut SkillsState,
    ) -> Result<(), Stopped> {
        let ready = p.ready.take().expect("a plan is ready to execute");
        p.last_disabled = ready.plan.disabled_skills.clone();
        let plan_json = recorded(&ready.plan, &self.catalog);
        let lore = self.lore_told(&ready.plan);
        self.send(TurnEvent::PlanReady {
            attempt,
            plan: plan_json.clone(),
            lore: lore.clone(),
            routing: ready.routing.clone(),
        });
        let span = p.attempt_span.take();
        let parent = span.as_ref().map_or(self.root.id(), |s| s.id());
        let result = self.execute(&ready.plan, attempt, parent).await;
        if let Some(span) = span {
            span.close(status_of(result.success));
        }
        p.log.attempts.push(AttemptRecord {
            attempt,
            plan: Some(plan_json),
            result: Some(result.clone()),
            error: None,
            transcript: Some(ready.transcript),
            lore,
            routing: ready.routing,
            noted: ready.noted,
        });
        if self.opts.exec.stop.is_stopped() {
            // Ended by the player, not failed: no skill's health changes.
            p.last_result = Some(result);
            return Err(Stopped);
        }
        for change in skills.record(&result) {
            self.send(TurnEvent::HealthChanged(change.clone()));
            p.log.health_changes.push(change);
        }
        if let Some(failure) = p.replan.executed(&result, &skills.permanently_failed()) {
            self.send(failure.into());
        }
        p.last_result = Some(result);
        Ok(())
    }

    /// `plan` in the turn's shape: the planner's own narrative and narration
    /// steps give way to one narration step the host adds after every
    /// mechanics tool, so nothing is told before the rules decide; its memory
    /// writes give way to the turn's account the host keeps once it is told
    /// (the flag: whether its memory writes were folded and only narration
    /// is left, so the turn only noted something).
    fn shaped(&self, mut plan: Plan) -> (Plan, bool) {
        plan.narrative = None;
        let noted = memory::fold_writes(&mut plan, &self.catalog);
        let telling = Telling::of(
            self.input,
            &self.told,
            self.story.as_ref(),
            self.told.opening(&self.state),
            self.answer.as_ref().map(|a| a.text.as_str()),
        );
        shape(&mut plan, &self.catalog, &telling);
        (plan, noted)
    }

    /// The lore entries `plan`'s narration step is told (none without one).
    fn lore_told(&self, plan: &Plan) -> Vec<LoreUse> {
        match &self.story {
            Some(story) if narration_step(plan, &self.catalog).is_some() => story.lore_used.clone(),
            _ => Vec::new(),
        }
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
            skills_needed: self.opts.skills_needed.clone(),
            language: self.told.language.clone(),
        };
        deadline::plan(Arc::clone(&self.planner), ask, time).await
    }

    /// Runs plan `attempt` under span `parent`, forwarding its live events.
    async fn execute(&self, plan: &Plan, attempt: u32, parent: &str) -> ExecutionResult {
        let mut exec = self.opts.exec.clone();
        exec.plan_timeout = plan_limit(plan, &self.catalog, exec.plan_timeout);
        exec.trace = Some(SpanParent {
            trace: self.trace.clone(),
            span_id: parent.to_string(),
        });
        let state = self.state.clone();
        execute_live(
            plan,
            &self.catalog,
            state,
            &exec,
            attempt,
            self.sink.as_ref(),
        )
        .await
    }
}
