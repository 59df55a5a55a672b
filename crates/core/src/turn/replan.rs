//! The replan loop of a turn as a state machine, free of planners and
//! processes: the driver asks it what to do, does it, and feeds the result
//! back.
//!
//! ```text
//! Generating{1} ──planned──▶ Executing{1} ──executed(ok)──▶ Succeeded{1}
//!      │                         │
//!  plan_failed            executed(failed)
//!      ▼                         ▼
//! Replanning{1} ◀────────────────┘
//!      │ replan
//!      ▼
//! Generating{2} … Replanning{max} ──replan──▶ FellBack
//! ```
//!
//! Each failed plan leaves its failed skills (and any skill now permanently
//! failed) out of every later plan of the turn.

use uuid::Uuid;

use crate::plan::Plan;
use crate::planner::PlannerError;
use crate::result::ExecutionResult;

/// Where a turn's replan loop stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// The planner is to write plan number `attempt`.
    Generating { attempt: u32 },
    /// Plan `attempt` (whose requestId is `plan_id`) is to be executed.
    Executing { attempt: u32, plan_id: Uuid },
    /// Plan `attempt` failed or never came; the loop decides what follows.
    Replanning { attempt: u32 },
    /// Plan `attempt` succeeded: the turn is told by it.
    Succeeded { attempt: u32 },
    /// Every plan failed: the template narration stands in.
    FellBack,
}

/// What the planner is to be asked for next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NextPlan {
    pub attempt: u32,
    /// Skills the plan must leave out.
    pub disabled_skills: Vec<String>,
    /// The previous plan that ran, when replanning after it.
    pub parent_plan_id: Option<Uuid>,
    /// Why the previous attempt failed, in a sentence.
    pub previous_failure: Option<String>,
}

/// Why no plan came out of a generation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NoPlan {
    /// The planner said why; the next generation is told.
    #[error(transparent)]
    Planner(#[from] PlannerError),
    /// The planner's task ended abnormally; the next generation is not told.
    #[error("the planner stopped unexpectedly: {0}")]
    Crashed(String),
}

/// A failed attempt, as the player and the session see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttemptFailure {
    pub attempt: u32,
    pub reason: String,
    /// Skills newly left out of the following plans.
    pub disabling: Vec<String>,
}

/// The replan loop of one turn.
#[derive(Debug, Clone)]
pub struct ReplanLoop {
    max_attempts: u32,
    phase: Phase,
    disabled: Vec<String>,
    parent: Option<Uuid>,
    previous_failure: Option<String>,
}

impl ReplanLoop {
    /// A loop that allows `max_attempts` plans (at least one), starting with
    /// `disabled` left out (the skills permanently failed before the turn).
    pub fn new(max_attempts: u32, disabled: Vec<String>) -> ReplanLoop {
        ReplanLoop {
            max_attempts: max_attempts.max(1),
            phase: Phase::Generating { attempt: 1 },
            disabled,
            parent: None,
            previous_failure: None,
        }
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Skills left out of the next plan.
    pub fn disabled(&self) -> &[String] {
        &self.disabled
    }

    /// The last plan that ran, if one did.
    pub fn parent_plan_id(&self) -> Option<Uuid> {
        self.parent
    }

    /// What to ask the planner for. Panics unless generating.
    pub fn next_plan(&self) -> NextPlan {
        NextPlan {
            attempt: self.generating("next_plan"),
            disabled_skills: self.disabled.clone(),
            parent_plan_id: self.parent,
            previous_failure: self.previous_failure.clone(),
        }
    }

    /// Generating → Executing: takes the planner's plan and returns it marked
    /// as this attempt's, with every disabled skill in its `disabledSkills`.
    /// Panics unless generating.
    pub fn planned(&mut self, mut plan: Plan) -> Plan {
        let attempt = self.generating("planned");
        for d in &self.disabled {
            if !plan.disabled_skills.contains(d) {
                plan.disabled_skills.push(d.clone());
            }
        }
        plan.metadata.generation_attempt = attempt;
        plan.metadata.parent_plan_id = self.parent;
        self.phase = Phase::Executing {
            attempt,
            plan_id: plan.request_id,
        };
        plan
    }

    /// Generating → Replanning: no plan came out. Panics unless generating.
    pub fn plan_failed(&mut self, why: &NoPlan) -> AttemptFailure {
        let attempt = self.generating("plan_failed");
        let reason = why.to_string();
        if let NoPlan::Planner(_) = why {
            self.previous_failure = Some(reason.clone());
        }
        self.phase = Phase::Replanning { attempt };
        AttemptFailure {
            attempt,
            reason,
            disabling: Vec::new(),
        }
    }

    /// Executing → Succeeded, or → Replanning with the failure: the skills of
    /// failed tools and those in `permanently_failed` (after health took this
    /// plan into account) are left out from now on. Panics unless executing.
    pub fn executed(
        &mut self,
        result: &ExecutionResult,
        permanently_failed: &[String],
    ) -> Option<AttemptFailure> {
        let Phase::Executing { attempt, plan_id } = self.phase else {
            panic!("executed() while {:?}", self.phase);
        };
        if result.success {
            self.phase = Phase::Succeeded { attempt };
            return None;
        }
        let mut disabling: Vec<String> = Vec::new();
        let failed_skills = result
            .execution_trace
            .iter()
            .filter(|t| result.failed_tools.contains(&t.tool_id))
            .filter_map(|t| t.skill.as_ref());
        for skill in failed_skills.chain(permanently_failed) {
            if !self.disabled.contains(skill) && !disabling.contains(skill) {
                disabling.push(skill.clone());
            }
        }
        let reason = result
            .failure_message
            .clone()
            .unwrap_or_else(|| "the plan did not succeed".into());
        self.disabled.extend(disabling.iter().cloned());
        self.parent = Some(plan_id);
        self.previous_failure = Some(reason.clone());
        self.phase = Phase::Replanning { attempt };
        Some(AttemptFailure {
            attempt,
            reason,
            disabling,
        })
    }

    /// Replanning → Generating the next attempt, or → FellBack when the last
    /// allowed plan failed. Panics unless replanning.
    pub fn replan(&mut self) {
        let Phase::Replanning { attempt } = self.phase else {
            panic!("replan() while {:?}", self.phase);
        };
        self.phase = if attempt < self.max_attempts {
            Phase::Generating {
                attempt: attempt + 1,
            }
        } else {
            Phase::FellBack
        };
    }

    fn generating(&self, step: &str) -> u32 {
        match self.phase {
            Phase::Generating { attempt } => attempt,
            other => panic!("{step}() while {other:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::ToolInvocation;
    use crate::result::{ExecutionState, ToolResult};
    use serde_json::Map;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn plan() -> Plan {
        Plan::new(vec![
            ToolInvocation::new("roll", "dice-roller/roll-dice"),
            ToolInvocation::new("tell", "storyteller/narrate"),
        ])
    }

    /// A result of `plan` where the tools named in `failed` (toolId, skill)
    /// failed, beside one tool of skill `fine` that completed. It succeeded
    /// when nothing failed and there is no failure `message`.
    fn result(plan: &Plan, failed: &[(&str, &str)], message: Option<&str>) -> ExecutionResult {
        let ended = |tool_id: &str, skill: &str, state| ToolResult {
            state,
            skill: Some(skill.to_string()),
            ..ToolResult::pending(tool_id, &format!("{skill}/x"))
        };
        let mut trace = vec![ended("fine", "fine", ExecutionState::Completed)];
        for (tool_id, skill) in failed {
            trace.push(ended(tool_id, skill, ExecutionState::Failed));
        }
        ExecutionResult {
            plan_id: plan.request_id,
            success: failed.is_empty() && message.is_none(),
            narrative: None,
            failed_tools: failed.iter().map(|(id, _)| id.to_string()).collect(),
            can_replan: !failed.is_empty() || message.is_some(),
            failure_reason: None,
            failure_message: message.map(str::to_string),
            execution_trace: trace,
            final_state: Map::new(),
            total_execution_time_ms: 0,
            generation_metadata: None,
            trace: None,
        }
    }

    /// Runs one failing plan through the loop; returns its failure.
    fn fail_a_plan(l: &mut ReplanLoop, failed: &[(&str, &str)]) -> AttemptFailure {
        let p = l.planned(plan());
        let failure = l.executed(&result(&p, failed, Some("broken")), &[]);
        l.replan();
        failure.expect("the plan failed")
    }

    #[test]
    fn a_turn_starts_generating_its_first_plan_without_the_permanently_failed() {
        let l = ReplanLoop::new(5, names(&["gone"]));
        assert_eq!(l.phase(), Phase::Generating { attempt: 1 });
        assert_eq!(
            l.next_plan(),
            NextPlan {
                attempt: 1,
                disabled_skills: names(&["gone"]),
                parent_plan_id: None,
                previous_failure: None,
            }
        );
    }

    #[test]
    fn planned_moves_to_executing_and_marks_the_plan() {
        let mut l = ReplanLoop::new(5, names(&["gone", "dice-roller"]));
        let mut p = plan();
        p.disabled_skills = names(&["dice-roller"]);
        let p = l.planned(p);
        assert_eq!(
            l.phase(),
            Phase::Executing {
                attempt: 1,
                plan_id: p.request_id
            }
        );
        assert_eq!(p.disabled_skills, names(&["dice-roller", "gone"]));
        assert_eq!(p.metadata.generation_attempt, 1);
        assert_eq!(p.metadata.parent_plan_id, None);
    }

    #[test]
    fn a_plan_that_succeeded_ends_the_loop() {
        let mut l = ReplanLoop::new(5, vec![]);
        let p = l.planned(plan());
        assert_eq!(l.executed(&result(&p, &[], None), &[]), None);
        assert_eq!(l.phase(), Phase::Succeeded { attempt: 1 });
        assert!(l.disabled().is_empty());
    }

    #[test]
    fn a_plan_that_failed_leaves_its_failed_skills_out() {
        let mut l = ReplanLoop::new(5, vec![]);
        let p = l.planned(plan());
        let failure = l.executed(
            &result(&p, &[("roll", "dice-roller")], Some("required tool failed")),
            &names(&["weather"]),
        );
        assert_eq!(
            failure,
            Some(AttemptFailure {
                attempt: 1,
                reason: "required tool failed".into(),
                disabling: names(&["dice-roller", "weather"]),
            })
        );
        assert_eq!(l.phase(), Phase::Replanning { attempt: 1 });
        assert_eq!(l.disabled(), names(&["dice-roller", "weather"]));
        assert_eq!(l.parent_plan_id(), Some(p.request_id));
    }

    #[test]
    fn a_failure_without_a_message_still_says_why() {
        let mut l = ReplanLoop::new(5, vec![]);
        let p = l.planned(plan());
        let failure = l.executed(&result(&p, &[("roll", "dice-roller")], None), &[]);
        assert_eq!(failure.unwrap().reason, "the plan did not succeed");
    }

    #[test]
    fn replanning_asks_for_the_next_plan_after_the_failed_one() {
        let mut l = ReplanLoop::new(5, vec![]);
        let first = l.planned(plan());
        l.executed(
            &result(&first, &[("roll", "dice-roller")], Some("broken")),
            &[],
        );
        l.replan();
        assert_eq!(l.phase(), Phase::Generating { attempt: 2 });
        assert_eq!(
            l.next_plan(),
            NextPlan {
                attempt: 2,
                disabled_skills: names(&["dice-roller"]),
                parent_plan_id: Some(first.request_id),
                previous_failure: Some("broken".into()),
            }
        );
        let second = l.planned(plan());
        assert_eq!(second.metadata.generation_attempt, 2);
        assert_eq!(second.metadata.parent_plan_id, Some(first.request_id));
        assert_eq!(second.disabled_skills, names(&["dice-roller"]));
    }

    #[test]
    fn a_planner_error_is_told_to_the_next_generation() {
        let mut l = ReplanLoop::new(5, vec![]);
        let failure = l.plan_failed(&NoPlan::Planner(PlannerError::Deadline));
        assert_eq!(
            failure,
            AttemptFailure {
                attempt: 1,
                reason: "plan generation exceeded its deadline".into(),
                disabling: vec![],
            }
        );
        assert_eq!(l.phase(), Phase::Replanning { attempt: 1 });
        l.replan();
        let next = l.next_plan();
        assert_eq!(next.attempt, 2);
        assert_eq!(
            next.previous_failure.as_deref(),
            Some("plan generation exceeded its deadline")
        );
        assert_eq!(next.parent_plan_id, None);
    }

    #[test]
    fn a_crashed_planner_is_recorded_but_not_told() {
        let mut l = ReplanLoop::new(5, vec![]);
        fail_a_plan(&mut l, &[("roll", "dice-roller")]);
        let failure = l.plan_failed(&NoPlan::Crashed("task panicked".into()));
        assert_eq!(
            failure.reason,
            "the planner stopped unexpectedly: task panicked"
        );
        l.replan();
        assert_eq!(l.next_plan().previous_failure.as_deref(), Some("broken"));
    }

    #[test]
    fn the_fifth_failed_plan_falls_back() {
        let mut l = ReplanLoop::new(5, vec![]);
        for attempt in 1..=4 {
            assert_eq!(l.phase(), Phase::Generating { attempt });
            fail_a_plan(&mut l, &[]);
        }
        assert_eq!(l.phase(), Phase::Generating { attempt: 5 });
        l.plan_failed(&NoPlan::Planner(PlannerError::Deadline));
        assert_eq!(l.phase(), Phase::Replanning { attempt: 5 });
        l.replan();
        assert_eq!(l.phase(), Phase::FellBack);
    }

    #[test]
    fn at_least_one_plan_is_tried() {
        let mut l = ReplanLoop::new(0, vec![]);
        assert_eq!(l.phase(), Phase::Generating { attempt: 1 });
        l.plan_failed(&NoPlan::Planner(PlannerError::Deadline));
        l.replan();
        assert_eq!(l.phase(), Phase::FellBack);
    }

    #[test]
    fn disabled_skills_accumulate_once_each() {
        let mut l = ReplanLoop::new(5, names(&["gone"]));
        let first = fail_a_plan(&mut l, &[("roll", "dice-roller"), ("again", "dice-roller")]);
        assert_eq!(first.disabling, names(&["dice-roller"]));
        let second = fail_a_plan(&mut l, &[("roll", "dice-roller"), ("tell", "storyteller")]);
        assert_eq!(second.disabling, names(&["storyteller"]));
        let third = fail_a_plan(&mut l, &[("old", "gone")]);
        assert!(third.disabling.is_empty());
        assert_eq!(l.disabled(), names(&["gone", "dice-roller", "storyteller"]));
        assert_eq!(l.next_plan().disabled_skills, l.disabled());
        assert_eq!(
            l.planned(plan()).disabled_skills,
            names(&["gone", "dice-roller", "storyteller"])
        );
    }

    #[test]
    #[should_panic(expected = "executed() while Generating")]
    fn a_result_without_a_plan_is_a_driver_bug() {
        let mut l = ReplanLoop::new(5, vec![]);
        let p = plan();
        l.executed(&result(&p, &[], None), &[]);
    }
}
