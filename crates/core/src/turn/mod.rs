//! One turn of play (seed 001 §5): plan → execute → replan without the
//! skills that failed (at most 5 plans) → template narration when every plan
//! failed. Every attempt is recorded for the session.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Map, Value};
use tokio::sync::mpsc::UnboundedSender;
use uuid::Uuid;

use crate::executor::{execute, ExecEvent, ExecutorOptions};
use crate::planner::{PlanRequest, Planner, TurnSummary};
use crate::result::ExecutionResult;
use crate::skills::health::{HealthChange, SkillsState};
use crate::skills::Catalog;
use crate::store::{AttemptRecord, NewTurn};

/// How a turn is played.
#[derive(Debug, Clone)]
pub struct TurnOptions {
    /// Plans per turn before the fallback narration (seed: 5).
    pub max_attempts: u32,
    /// Time for one plan generation (seed: 5 s).
    pub generation_deadline: Duration,
    pub exec: ExecutorOptions,
}

impl Default for TurnOptions {
    fn default() -> Self {
        TurnOptions {
            max_attempts: 5,
            generation_deadline: Duration::from_secs(5),
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
    /// Plan `attempt` is ready and about to run.
    #[serde(rename_all = "camelCase")]
    PlanReady {
        attempt: u32,
        #[ts(as = "crate::plan::Plan")]
        plan: Value,
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

const FALLBACK_TEMPLATES: [&str; 3] = [
    "The narrator pauses, considering your words: '{input}'",
    "Your action '{input}' echoes in the stillness...",
    "The story continues, though the path is unclear...",
];

/// The template narration used when every plan failed.
pub fn fallback_narration(input: &str) -> String {
    let pick = input
        .bytes()
        .fold(0usize, |h, b| h.wrapping_mul(31).wrapping_add(b as usize))
        % FALLBACK_TEMPLATES.len();
    FALLBACK_TEMPLATES[pick].replace("{input}", input.trim())
}

fn send(sink: &Option<UnboundedSender<TurnEvent>>, ev: TurnEvent) {
    if let Some(s) = sink {
        let _ = s.send(ev);
    }
}

/// Plays one turn from `state`. Health is updated in `skills` as plans run;
/// skills that failed are left out of the following plans.
#[allow(clippy::too_many_arguments)]
pub async fn play_turn(
    input: &str,
    planner: Arc<dyn Planner>,
    catalog: Arc<Catalog>,
    state: Map<String, Value>,
    recent: Vec<TurnSummary>,
    skills: &mut SkillsState,
    opts: &TurnOptions,
    sink: Option<UnboundedSender<TurnEvent>>,
) -> TurnOutcome {
    let started = Instant::now();
    let mut disabled: Vec<String> = skills.permanently_failed();
    let mut parent: Option<Uuid> = None;
    let mut previous_failure: Option<String> = None;
    let mut attempts = Vec::new();
    let mut health_changes = Vec::new();
    let mut last_result: Option<ExecutionResult> = None;

    // The prompt prefix is prepared outside the generation deadline.
    {
        let (planner, catalog) = (Arc::clone(&planner), Arc::clone(&catalog));
        let _ = tokio::task::spawn_blocking(move || {
            planner.warm_up(&catalog, Instant::now() + WARM_UP_LIMIT)
        })
        .await;
    }
    for attempt in 1..=opts.max_attempts.max(1) {
        send(
            &sink,
            TurnEvent::Planning {
                attempt,
                disabled_skills: disabled.clone(),
            },
        );
        let generated = {
            let planner = Arc::clone(&planner);
            let catalog = Arc::clone(&catalog);
            let (input, state, recent, disabled_now, failure) = (
                input.to_string(),
                state.clone(),
                recent.clone(),
                disabled.clone(),
                previous_failure.clone(),
            );
            let sink = sink.clone();
            let deadline = Instant::now() + opts.generation_deadline;
            tokio::task::spawn_blocking(move || {
                let req = PlanRequest {
                    input: &input,
                    catalog: &catalog,
                    disabled_skills: &disabled_now,
                    attempt,
                    parent_plan_id: parent,
                    recent_turns: &recent,
                    state: &state,
                    previous_failure: failure.as_deref(),
                    deadline,
                };
                planner.plan(&req, &mut |piece| {
                    send(
                        &sink,
                        TurnEvent::NarrativeDelta {
                            attempt,
                            text: piece.to_string(),
                        },
                    )
                })
            })
            .await
        };
        let outcome = match generated {
            Ok(Ok(o)) => o,
            Ok(Err(e)) => {
                attempts.push(AttemptRecord {
                    attempt,
                    plan: None,
                    result: None,
                    error: Some(e.to_string()),
                    transcript: None,
                });
                send(
                    &sink,
                    TurnEvent::AttemptFailed {
                        attempt,
                        reason: e.to_string(),
                        disabling: vec![],
                    },
                );
                previous_failure = Some(e.to_string());
                continue;
            }
            Err(join) => {
                let msg = format!("the planner stopped unexpectedly: {join}");
                attempts.push(AttemptRecord {
                    attempt,
                    plan: None,
                    result: None,
                    error: Some(msg.clone()),
                    transcript: None,
                });
                send(
                    &sink,
                    TurnEvent::AttemptFailed {
                        attempt,
                        reason: msg,
                        disabling: vec![],
                    },
                );
                continue;
            }
        };
        let mut plan = outcome.plan;
        for d in &disabled {
            if !plan.disabled_skills.contains(d) {
                plan.disabled_skills.push(d.clone());
            }
        }
        plan.metadata.generation_attempt = attempt;
        plan.metadata.parent_plan_id = parent;
        let plan_json = serde_json::to_value(&plan).expect("plan serialises");
        send(
            &sink,
            TurnEvent::PlanReady {
                attempt,
                plan: plan_json.clone(),
            },
        );

        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<ExecEvent>();
        let forward = sink.clone().map(|s| {
            tokio::spawn(async move {
                while let Some(event) = rx.recv().await {
                    let _ = s.send(TurnEvent::Execution { attempt, event });
                }
            })
        });
        let result = execute(
            &plan,
            &catalog,
            state.clone(),
            &opts.exec,
            sink.as_ref().map(|_| tx),
        )
        .await;
        if let Some(f) = forward {
            let _ = f.await;
        }

        for change in skills.record(&result) {
            send(&sink, TurnEvent::HealthChanged(change.clone()));
            health_changes.push(change);
        }
        attempts.push(AttemptRecord {
            attempt,
            plan: Some(plan_json),
            result: Some(result.clone()),
            error: None,
            transcript: Some(outcome.transcript),
        });
        if result.success {
            let narrative = result
                .narrative
                .clone()
                .filter(|n| !n.trim().is_empty())
                .unwrap_or_else(|| fallback_narration(input));
            let mut result = result;
            result.narrative = Some(narrative.clone());
            return TurnOutcome {
                turn: NewTurn {
                    input: input.to_string(),
                    narrative,
                    fallback: false,
                    state_after: result.final_state.clone(),
                    duration_ms: started.elapsed().as_millis() as u64,
                    attempts,
                },
                result,
                health_changes,
            };
        }

        // Leave out every skill that failed, and any now permanently failed.
        let mut disabling = Vec::new();
        for tool in result
            .execution_trace
            .iter()
            .filter(|t| result.failed_tools.contains(&t.tool_id))
        {
            if let Some(skill) = &tool.skill {
                if !disabled.contains(skill) && !disabling.contains(skill) {
                    disabling.push(skill.clone());
                }
            }
        }
        for s in skills.permanently_failed() {
            if !disabled.contains(&s) && !disabling.contains(&s) {
                disabling.push(s);
            }
        }
        let reason = result
            .failure_message
            .clone()
            .unwrap_or_else(|| "the plan did not succeed".into());
        send(
            &sink,
            TurnEvent::AttemptFailed {
                attempt,
                reason: reason.clone(),
                disabling: disabling.clone(),
            },
        );
        disabled.extend(disabling);
        parent = Some(plan.request_id);
        previous_failure = Some(reason);
        last_result = Some(result);
    }

    let narrative = fallback_narration(input);
    send(
        &sink,
        TurnEvent::Fallback {
            narrative: narrative.clone(),
        },
    );
    let mut result = last_result.unwrap_or_else(|| ExecutionResult {
        plan_id: parent.unwrap_or_else(Uuid::new_v4),
        success: false,
        narrative: None,
        failed_tools: vec![],
        can_replan: false,
        failure_reason: None,
        failure_message: Some("no plan could be generated".into()),
        execution_trace: vec![],
        final_state: state.clone(),
        total_execution_time_ms: 0,
        generation_metadata: None,
    });
    result.narrative = Some(narrative.clone());
    result.final_state = state.clone();
    TurnOutcome {
        turn: NewTurn {
            input: input.to_string(),
            narrative,
            fallback: true,
            state_after: state,
            duration_ms: started.elapsed().as_millis() as u64,
            attempts,
        },
        result,
        health_changes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::planner::{PlanOutcome, PlannerError};
    use crate::rules::RulePlanner;
    use std::path::Path;

    fn script_skill(root: &Path, skill: &str, script: &str, body: &str) {
        let dir = root.join(skill);
        std::fs::create_dir_all(dir.join("scripts")).unwrap();
        std::fs::write(
            dir.join("skill.json"),
            format!(r#"{{"name":"{skill}","version":"1.0.0","description":"d"}}"#),
        )
        .unwrap();
        let path = dir.join("scripts").join(format!("{script}.sh"));
        std::fs::write(&path, format!("#!/bin/sh\nread -r line\n{body}\n")).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    const OK_NARRATE: &str = r#"printf '%s\n' '{"type":"state_patch","patch":{"told":true}}' '{"type":"done","ok":true,"output":{"narrative":"The goblin falls."}}'"#;
    const FAIL: &str = r#"printf '%s\n' '{"type":"error","code":"INTERNAL_ERROR","message":"broken","recoverable":false}' '{"type":"done","ok":false}'; exit 1"#;

    async fn turn(
        root: &Path,
        input: &str,
        skills: &mut SkillsState,
    ) -> (TurnOutcome, Vec<TurnEvent>) {
        let catalog = Arc::new(crate::skills::discover(&[root.to_path_buf()]).unwrap());
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let out = play_turn(
            input,
            Arc::new(RulePlanner),
            catalog,
            Map::new(),
            vec![],
            skills,
            &TurnOptions::default(),
            Some(tx),
        )
        .await;
        let mut events = Vec::new();
        while let Ok(e) = rx.try_recv() {
            events.push(e);
        }
        (out, events)
    }

    #[tokio::test]
    async fn a_failing_skill_is_replanned_away() {
        let dir = tempfile::tempdir().unwrap();
        script_skill(dir.path(), "dice-roller", "roll-dice", FAIL);
        script_skill(dir.path(), "storyteller", "narrate", OK_NARRATE);
        let mut skills = SkillsState::default();
        let (out, events) = turn(dir.path(), "I attack the goblin", &mut skills).await;
        assert!(out.result.success, "{:?}", out.result.failure_message);
        assert!(!out.turn.fallback);
        assert_eq!(out.turn.narrative, "The goblin falls.");
        assert_eq!(out.turn.attempts.len(), 2);
        let second = out.turn.attempts[1].plan.as_ref().unwrap();
        assert_eq!(second["disabledSkills"], serde_json::json!(["dice-roller"]));
        assert_eq!(second["metadata"]["generationAttempt"], 2);
        assert_eq!(
            second["metadata"]["parentPlanId"],
            out.turn.attempts[0].plan.as_ref().unwrap()["requestId"]
        );
        assert_eq!(out.turn.state_after["told"], true);
        assert!(events.iter().any(|e| matches!(e, TurnEvent::AttemptFailed { disabling, .. } if disabling == &vec!["dice-roller".to_string()])));
        assert!(events
            .iter()
            .any(|e| matches!(e, TurnEvent::Execution { .. })));
    }

    #[tokio::test]
    async fn without_the_storyteller_the_plan_narrative_stands() {
        let dir = tempfile::tempdir().unwrap();
        script_skill(dir.path(), "storyteller", "narrate", FAIL);
        let mut skills = SkillsState::default();
        let (out, _) = turn(dir.path(), "I sing", &mut skills).await;
        assert!(out.result.success && !out.turn.fallback);
        assert_eq!(out.turn.narrative, "You sing.");
        assert_eq!(out.turn.attempts.len(), 2);
    }

    /// Always plans a tool that does not exist.
    struct Stubborn;
    impl Planner for Stubborn {
        fn name(&self) -> String {
            "stubborn".into()
        }
        fn plan(
            &self,
            _: &PlanRequest<'_>,
            _: &mut dyn FnMut(&str),
        ) -> Result<PlanOutcome, PlannerError> {
            let plan =
                crate::plan::Plan::new(vec![crate::plan::ToolInvocation::new("boo", "ghost/boo")]);
            Ok(PlanOutcome {
                plan,
                transcript: Default::default(),
            })
        }
    }

    #[tokio::test]
    async fn every_plan_failing_ends_in_the_fallback_template() {
        let dir = tempfile::tempdir().unwrap();
        let catalog = Arc::new(crate::skills::discover(&[dir.path().to_path_buf()]).unwrap());
        let mut skills = SkillsState::default();
        let mut state = Map::new();
        state.insert("hp".into(), Value::from(3));
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let out = play_turn(
            "I sing",
            Arc::new(Stubborn),
            catalog,
            state.clone(),
            vec![],
            &mut skills,
            &TurnOptions::default(),
            Some(tx),
        )
        .await;
        assert!(out.turn.fallback);
        assert!(FALLBACK_TEMPLATES
            .iter()
            .any(|t| out.turn.narrative == t.replace("{input}", "I sing")));
        assert_eq!(
            out.turn.state_after, state,
            "a failed turn changes no state"
        );
        assert_eq!(out.turn.attempts.len(), 5);
        let mut saw_fallback = false;
        while let Ok(e) = rx.try_recv() {
            saw_fallback |= matches!(e, TurnEvent::Fallback { .. });
        }
        assert!(saw_fallback);
    }

    struct Broken;
    impl Planner for Broken {
        fn name(&self) -> String {
            "broken".into()
        }
        fn plan(
            &self,
            _: &PlanRequest<'_>,
            _: &mut dyn FnMut(&str),
        ) -> Result<PlanOutcome, PlannerError> {
            Err(PlannerError::Deadline)
        }
    }

    #[tokio::test]
    async fn a_planner_that_never_answers_is_recorded_five_times_then_falls_back() {
        let dir = tempfile::tempdir().unwrap();
        let catalog = Arc::new(crate::skills::discover(&[dir.path().to_path_buf()]).unwrap());
        let mut skills = SkillsState::default();
        let out = play_turn(
            "hello",
            Arc::new(Broken),
            catalog,
            Map::new(),
            vec![],
            &mut skills,
            &TurnOptions::default(),
            None,
        )
        .await;
        assert!(out.turn.fallback);
        assert_eq!(out.turn.attempts.len(), 5);
        assert!(out
            .turn
            .attempts
            .iter()
            .all(|a| a.error.as_deref() == Some("plan generation exceeded its deadline")));
    }
}
