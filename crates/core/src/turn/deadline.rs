//! How long a turn gives each plan, and who plans when the model runs out
//! of that time (docs/narrator.md, "How long a plan is given").
//!
//! A plan is given the planner's own [`Planner::plan_time`] (5 s unless the
//! planner measured that it needs more; a turn may fix the time instead).
//! A model plan that misses its deadline is not a failed attempt: the
//! rule-based planner plans that attempt at once, so a slow model never
//! ends a turn in the fallback template.

use std::sync::Arc;
use std::time::{Duration, Instant};

use narratoria_lexicon::Language;
use serde_json::{Map, Value};

use super::replan::{NextPlan, NoPlan};
use crate::planner::{
    PlanOutcome, PlanRequest, Planner, PlannerError, TurnSummary, PLAN_TIME_DEFAULT,
};
use crate::rules::RulePlanner;
use crate::skills::Catalog;

/// How long past a plan's deadline the turn waits for the planner to
/// return before it counts the plan as late (a planner stops at its
/// deadline itself; this covers one stuck in a long call).
const GRACE: Duration = Duration::from_secs(1);

/// The time one plan of the turn is given: `fixed` when the turn sets one,
/// else the planner's own [`Planner::plan_time`].
pub(super) fn plan_time(planner: &dyn Planner, fixed: Option<Duration>) -> Duration {
    fixed.unwrap_or_else(|| planner.plan_time())
}

/// Everything one plan is asked from, owned so that it can go to a blocking
/// task and, when the plan is late, to the rule-based planner.
pub(super) struct Ask {
    pub input: String,
    pub catalog: Arc<Catalog>,
    pub state: Map<String, Value>,
    pub recent: Vec<TurnSummary>,
    pub next: NextPlan,
    /// The skills the player said the turn needs, if they said.
    pub skills_needed: Option<Vec<String>>,
    /// The story's language.
    pub language: Language,
}

impl Ask {
    fn request(&self, deadline: Instant) -> PlanRequest<'_> {
        PlanRequest {
            input: &self.input,
            catalog: &self.catalog,
            disabled_skills: &self.next.disabled_skills,
            attempt: self.next.attempt,
            parent_plan_id: self.next.parent_plan_id,
            recent_turns: &self.recent,
            state: &self.state,
            previous_failure: self.next.previous_failure.as_deref(),
            deadline,
            // The turn's narration is told after the mechanics.
            narrative: false,
            skills_needed: self.skills_needed.as_deref(),
            language: Some(&self.language),
        }
    }
}

/// Asks `planner` for one plan, given `time` from now. When the plan misses
/// its deadline (the planner says so, or has not returned a moment after
/// it), the rule-based planner plans instead; any other failure is the
/// planner's.
pub(super) async fn plan(
    planner: Arc<dyn Planner>,
    ask: Ask,
    time: Duration,
) -> Result<PlanOutcome, NoPlan> {
    let started = Instant::now();
    let deadline = started + time;
    let ask = Arc::new(ask);
    let asked = Arc::clone(&ask);
    let model = Arc::clone(&planner);
    let task =
        tokio::task::spawn_blocking(move || model.plan(&asked.request(deadline), &mut |_| {}));
    let waited =
        tokio::time::timeout_at(tokio::time::Instant::from_std(deadline + GRACE), task).await;
    let outcome = match waited {
        Err(_late) => Err(NoPlan::Planner(PlannerError::Deadline)),
        Ok(joined) => joined
            .map_err(|join| NoPlan::Crashed(join.to_string()))
            .and_then(|planned| planned.map_err(NoPlan::from)),
    };
    match outcome {
        Err(NoPlan::Planner(PlannerError::Deadline)) => {
            tracing::info!(
                planner = %planner.name(),
                given_ms = time.as_millis() as u64,
                waited_ms = started.elapsed().as_millis() as u64,
                attempt = ask.next.attempt,
                "the plan missed its deadline; the rule-based planner plans this attempt"
            );
            RulePlanner
                .plan(
                    &ask.request(Instant::now() + PLAN_TIME_DEFAULT),
                    &mut |_| {},
                )
                .map_err(NoPlan::from)
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::planner::Transcript;
    use crate::skills::health::SkillsState;
    use crate::turn::{play_turn, TurnInputs, TurnOptions};

    /// A model planner that takes `takes` for a plan and says it needs
    /// `says`; it keeps to its deadline as a planner must, and notes the
    /// time each plan was given.
    struct Sleeper {
        takes: Duration,
        says: Duration,
        given: std::sync::Mutex<Vec<Duration>>,
    }

    impl Sleeper {
        fn new(takes_ms: u64, says_ms: u64) -> Arc<Sleeper> {
            Arc::new(Sleeper {
                takes: Duration::from_millis(takes_ms),
                says: Duration::from_millis(says_ms),
                given: Default::default(),
            })
        }
    }

    impl Planner for Sleeper {
        fn name(&self) -> String {
            "sleeper".into()
        }

        fn plan_time(&self) -> Duration {
            self.says
        }

        fn plan(
            &self,
            request: &PlanRequest<'_>,
            _: &mut dyn FnMut(&str),
        ) -> Result<PlanOutcome, PlannerError> {
            let given = request.deadline.saturating_duration_since(Instant::now());
            self.given.lock().unwrap().push(given);
            if self.takes > given {
                std::thread::sleep(given);
                return Err(PlannerError::Deadline);
            }
            std::thread::sleep(self.takes);
            Ok(PlanOutcome {
                plan: crate::plan::Plan::new(vec![]),
                transcript: Transcript {
                    planner: "sleeper".into(),
                    ..Transcript::default()
                },
                routing: None,
            })
        }
    }

    /// Never returns within its deadline, and never says so either.
    struct Stuck;
    impl Planner for Stuck {
        fn name(&self) -> String {
            "stuck".into()
        }
        fn plan_time(&self) -> Duration {
            Duration::from_millis(100)
        }
        fn plan(
            &self,
            _: &PlanRequest<'_>,
            _: &mut dyn FnMut(&str),
        ) -> Result<PlanOutcome, PlannerError> {
            std::thread::sleep(Duration::from_secs(3));
            Err(PlannerError::Model("too late to matter".into()))
        }
    }

    fn empty_catalog() -> Arc<Catalog> {
        let dir = tempfile::tempdir().unwrap();
        Arc::new(crate::skills::discover(&[dir.path().to_path_buf()]).unwrap())
    }

    fn first_plan() -> NextPlan {
        NextPlan {
            attempt: 1,
            disabled_skills: vec![],
            parent_plan_id: None,
            previous_failure: None,
        }
    }

    fn ask(catalog: &Arc<Catalog>) -> Ask {
        Ask {
            input: "I attack the goblin".into(),
            catalog: Arc::clone(catalog),
            state: Map::new(),
            recent: vec![],
            next: first_plan(),
            skills_needed: None,
            language: Language::english(),
        }
    }

    #[test]
    fn a_planner_needs_five_seconds_unless_it_says_otherwise() {
        struct Plain;
        impl Planner for Plain {
            fn name(&self) -> String {
                "plain".into()
            }
            fn plan(
                &self,
                _: &PlanRequest<'_>,
                _: &mut dyn FnMut(&str),
            ) -> Result<PlanOutcome, PlannerError> {
                Err(PlannerError::Model("unused".into()))
            }
        }
        assert_eq!(Plain.plan_time(), Duration::from_secs(5));
        assert_eq!(plan_time(&Plain, None), Duration::from_secs(5));
        assert_eq!(RulePlanner.plan_time(), Duration::from_secs(5));
        let slow = Sleeper::new(0, 9_000);
        assert_eq!(plan_time(slow.as_ref(), None), Duration::from_secs(9));
        assert_eq!(
            plan_time(slow.as_ref(), Some(Duration::from_millis(300))),
            Duration::from_millis(300),
            "a turn may fix the time"
        );
    }

    /// A planner that says it needs longer than the design's 5 s gets it: a
    /// 5.5 s plan comes in when the planner asks for 7 s.
    #[tokio::test]
    async fn the_turn_gives_a_plan_the_time_its_planner_asks_for() {
        let catalog = empty_catalog();
        let slow = Sleeper::new(5_500, 7_000);
        let outcome = plan(slow.clone(), ask(&catalog), plan_time(slow.as_ref(), None))
            .await
            .unwrap();
        assert_eq!(outcome.transcript.planner, "sleeper");
        let given = slow.given.lock().unwrap()[0];
        assert!(
            given > Duration::from_millis(6_500) && given <= Duration::from_secs(7),
            "{given:?}"
        );
    }

    #[tokio::test]
    async fn a_model_plan_that_misses_its_deadline_is_planned_by_the_rules() {
        let catalog = empty_catalog();
        let slow = Sleeper::new(2_000, 200);
        let started = Instant::now();
        let outcome = plan(slow.clone(), ask(&catalog), Duration::from_millis(200))
            .await
            .unwrap();
        assert_eq!(outcome.transcript.planner, "rules");
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "{:?}",
            started.elapsed()
        );
    }

    #[tokio::test]
    async fn a_planner_stuck_past_its_deadline_is_not_waited_for() {
        let catalog = empty_catalog();
        let started = Instant::now();
        let outcome = plan(Arc::new(Stuck), ask(&catalog), Duration::from_millis(100))
            .await
            .unwrap();
        assert_eq!(outcome.transcript.planner, "rules");
        let waited = started.elapsed();
        assert!(waited < Duration::from_millis(2_000), "{waited:?}");
    }

    /// A whole turn whose model misses every deadline is told, by the
    /// rule-based planner's plan, never by the fallback template.
    #[tokio::test]
    async fn a_turn_whose_model_is_too_slow_never_falls_back() {
        let catalog = empty_catalog();
        let slow = Sleeper::new(3_000, 150);
        let mut skills = SkillsState::default();
        let out = play_turn(
            TurnInputs {
                input: "I sing",
                planner: slow.clone(),
                catalog,
                state: Map::new(),
                recent: vec![],
                told: Default::default(),
                options: &TurnOptions::default(),
                events: None,
            },
            &mut skills,
        )
        .await;
        assert!(!out.turn.fallback, "{:?}", out.turn.narrative);
        assert!(
            !crate::narration::Lines::english()
                .no_plan
                .iter()
                .any(|t| out.turn.narrative == t.replace("{input}", "I sing")),
            "{}",
            out.turn.narrative
        );
        let first = &out.turn.attempts[0];
        assert_eq!(first.transcript.as_ref().unwrap().planner, "rules");
        assert_eq!(
            slow.given.lock().unwrap().len(),
            1,
            "the model was asked once"
        );
    }
}
