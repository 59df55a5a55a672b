//! Playing the last turn again: its narration alone (the same mechanics,
//! told anew: a new alternative of the turn), more of its narration, the
//! whole turn (a new plan and new rolls: a turn beside it), or an earlier
//! turn with other words (a new branch from there) (docs/stories.md).

use narratoria_core::error::ErrorCode;
use narratoria_core::narration::{self, Language, StoryTold};
use narratoria_core::plan::Plan;
use narratoria_core::planner::TurnSummary;
use narratoria_core::protocol::StoryPlace;
use narratoria_core::result::{ExecutionResult, ExecutionState};
use narratoria_core::skills::Catalog;
use narratoria_core::store::{Store, TurnPlace, TurnRecord};
use narratoria_core::sync;
use narratoria_core::turn::memory;
use narratoria_core::turn::narration_step::{is_narration_tool, shape, Telling};
use narratoria_core::turn::{execute_live, story_context_judged_by, TurnEvent};
use serde_json::{json, Map, Value};
use tokio::sync::mpsc::UnboundedSender;

use crate::play::{player_input, Placing};
use crate::{App, AppError, SessionView, TurnView};

/// The action a continued narration tells: the turn's own action is already
/// in the story so far.
const CONTINUING: &str = "I wait and watch what happens next";

/// Makes a branch from the turn before turn `turn` of `session`'s current
/// branch, named for the edit ("edit of turn 3", then "edit of turn 3 (2)"…),
/// and plays on it from now on. `session_not_found` when the branch has no
/// turn `turn`. The caller holds the session's turn lock.
pub(crate) fn branch_to_edit(store: &mut Store, session: &str, turn: u32) -> Result<(), AppError> {
    let turns = store.head_turn(session)?.map_or(0, |last| last.number);
    if turn == 0 || turn > turns {
        return Err(AppError::new(
            ErrorCode::SessionNotFound,
            format!("the story has no turn {turn} on this branch"),
        ));
    }
    let branches = store.branches(session)?;
    let mut name = format!("edit of turn {turn}");
    let mut n = 2;
    while branches.iter().any(|b| b.name == name) {
        name = format!("edit of turn {turn} ({n})");
        n += 1;
    }
    let made = store.branch(session, turn - 1, Some(&name))?;
    store.switch_branch(session, &made.name)?;
    Ok(())
}

/// What the narration step is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Retelling {
    /// The turn told again from the start.
    Anew,
    /// More of the same turn, following what is told so far.
    More,
}

impl App {
    /// Tells the current branch's last turn again: the same mechanics (their
    /// recorded outputs), a new narration, kept as an alternative of the
    /// turn and made the active one.
    pub async fn regenerate_narration(
        &self,
        session: &str,
        events: Option<UnboundedSender<TurnEvent>>,
    ) -> Result<SessionView, AppError> {
        self.retell(session, Retelling::Anew, events).await
    }

    /// Writes more narration for the current branch's last turn (the same
    /// mechanics), appended to what is told so far as a new alternative.
    pub async fn continue_narration(
        &self,
        session: &str,
        events: Option<UnboundedSender<TurnEvent>>,
    ) -> Result<SessionView, AppError> {
        self.retell(session, Retelling::More, events).await
    }

    /// Plays the current branch's last turn again from scratch (a new plan,
    /// new rolls) as a turn beside it; the old one stays an alternative.
    pub async fn regenerate_turn(
        &self,
        session: &str,
        events: Option<UnboundedSender<TurnEvent>>,
    ) -> Result<TurnView, AppError> {
        let last = self.last_turn(session)?;
        self.play_placed(session, &last.input, Placing::BesideHead, None, events)
            .await
    }

    /// Plays turn `turn` of the current branch again with `input` instead,
    /// on a new branch from the turn before it (the old turns stay on their
    /// branch); the new branch becomes current. Like any turn it waits for a
    /// turn of the story still running, and `turn` is looked for on the
    /// branch as that turn left it.
    pub async fn edit_turn(
        &self,
        session: &str,
        turn: u32,
        input: &str,
        events: Option<UnboundedSender<TurnEvent>>,
    ) -> Result<TurnView, AppError> {
        let input = player_input(input, "say what your character does instead")?;
        // Checked and branched once any turn running in the story has ended.
        self.play_placed(session, input, Placing::InsteadOf(turn), None, events)
            .await
    }

    fn last_turn(&self, session: &str) -> Result<TurnRecord, AppError> {
        last_turn_in(&sync::lock(&self.store), session)
    }

    async fn retell(
        &self,
        session: &str,
        how: Retelling,
        events: Option<UnboundedSender<TurnEvent>>,
    ) -> Result<SessionView, AppError> {
        // Stoppable from now on, while it waits for the story too.
        let stopping = self.running.begin(session);
        let _held = self.turn_locks.hold(session).await;
        let mut retold = self.retold(session)?;
        let catalog = self.registry.snapshot();
        let (mut plan, settled) = told_plan(&retold.last, &catalog).ok_or_else(|| {
            AppError::new(
                ErrorCode::PlanInvalid,
                "the turn has no plan to tell again (it fell back on the template)",
            )
        })?;
        let input = self
            .shape_again(&mut plan, &catalog, &mut retold, how)
            .await;
        let mut opts = self.exec_options(&retold.place);
        // The narration belongs to the turn it tells.
        if let Some(story) = opts.story.as_mut() {
            story.turn_id = retold.last.id.clone();
        }
        opts.settled = settled
            .into_iter()
            .filter(|(id, _)| plan.tools.iter().any(|t| &t.tool_id == id))
            .collect();
        opts.stop = stopping.stop().clone();
        let state = retold.last.state_after.clone();
        let result = execute_live(&plan, &catalog, state, &opts, 1, events.as_ref()).await;
        drop(stopping);
        let narrative = retold.narrative(how, &input, &result);
        sync::lock(&self.store).add_narration(session, retold.last.number, &narrative)?;
        self.remember_told(session, retold.last.number).await
    }

    /// The current branch's last turn of `session` and the story as it was
    /// told it. The caller holds the session's turn lock.
    fn retold(&self, session: &str) -> Result<Retold, AppError> {
        let store = sync::lock(&self.store);
        let last = last_turn_in(&store, session)?;
        let place = store.place_beside_head(session)?;
        let (recent, whole) = crate::steer::told_at(&store, &place, &last.input)?;
        let state = store.state_for(&place)?;
        Ok(Retold {
            last,
            place,
            recent,
            whole,
            state,
        })
    }

    /// Gives the last turn's `plan` the turn's shape again, as the turn's
    /// own narration step is shaped, for telling it `how`; returns the
    /// action the narration tells.
    async fn shape_again(
        &self,
        plan: &mut Plan,
        catalog: &Catalog,
        retold: &mut Retold,
        how: Retelling,
    ) -> String {
        // Judged on the turns before the one told, as when it was played.
        let opening = retold.whole.opening(&retold.state);
        let input = match how {
            Retelling::Anew => retold.last.input.clone(),
            Retelling::More => {
                let so_far = TurnSummary {
                    input: retold.last.input.clone(),
                    narrative: retold.last.narrative.clone(),
                };
                retold.recent.push(so_far.clone());
                retold.whole = std::mem::take(&mut retold.whole).followed_by(so_far);
                // The narration opens with the action in the second person
                // ("You wait …, and"): a neutral one reads as the story going
                // on, where the turn's own action would be told twice.
                CONTINUING.to_string()
            }
        };
        // Lore is chosen for the turn being told, not for the neutral action.
        let planner = self.planner();
        let story =
            story_context_judged_by(&planner, &retold.state, &retold.last.input, &retold.recent)
                .await;
        // A question retold is answered as when it was played.
        let answer = (input == retold.last.input)
            .then(|| narratoria_core::turn::answered(&input, &retold.state, &retold.whole))
            .flatten();
        let telling = Telling::of(
            &input,
            &retold.whole,
            story.as_ref(),
            opening,
            answer.as_ref().map(|a| a.text.as_str()),
        );
        shape(plan, catalog, &telling);
        plan.request_id = uuid::Uuid::new_v4();
        plan.narrative = None;
        input
    }

    /// The session after the memory skill kept the account of turn `number`
    /// of the current branch as it is told now, replacing the account kept
    /// before (docs/stories.md, "The world follows the branch"). Failing to
    /// remember never undoes the change the player made.
    pub(crate) async fn remember_told(
        &self,
        session: &str,
        number: u32,
    ) -> Result<SessionView, AppError> {
        let view = self.session_view(session)?;
        let Some(at) = number.checked_sub(1).map(|i| i as usize) else {
            return Ok(view);
        };
        let Some(turn) = view.turns.get(at) else {
            return Ok(view);
        };
        let story = StoryPlace {
            id: session.to_string(),
            branch: view.session.branch.clone(),
            turn: number,
            turn_id: turn.id.clone(),
            path: view.turns[..at].iter().map(|t| t.id.clone()).collect(),
        };
        let language = sync::lock(&self.store)
            .steer(session)?
            .language
            .unwrap_or_else(Language::english);
        let kept = memory::keep(
            &self.registry.snapshot(),
            &self.registry.state().permanently_failed(),
            memory::Account {
                input: &turn.input,
                narrative: &turn.narrative,
                noted: memory::noted(&turn.attempts),
                language: &language,
            },
            turn.state_after.clone(),
            &self.exec_options_at(story),
        )
        .await;
        if let Some(failed) = kept.filter(|r| !r.success) {
            tracing::warn!(
                "the memory skill did not keep turn {number}'s new account: {}",
                failed.failure_message.unwrap_or_default()
            );
        }
        Ok(view)
    }
}

/// The last turn being told again, and the story as it was told it.
struct Retold {
    last: TurnRecord,
    /// Where a turn beside it would go: the story place its scripts see.
    place: TurnPlace,
    /// The planner's window of turns before it.
    recent: Vec<TurnSummary>,
    /// The story as its narration was told it.
    whole: StoryTold,
    /// The state the turn started from.
    state: Map<String, Value>,
}

impl Retold {
    /// The turn's narration once told `how` by `result` (the outcome
    /// template when the run wrote none).
    fn narrative(&self, how: Retelling, input: &str, result: &ExecutionResult) -> String {
        let fresh = narrative_of(result).unwrap_or_else(|| {
            narration::told_in(&self.whole.language, input, outputs(result).iter())
        });
        match how {
            Retelling::Anew => fresh,
            Retelling::More => format!("{}\n\n{}", self.last.narrative.trim_end(), fresh.trim()),
        }
    }
}

/// The current branch's last turn.
fn last_turn_in(store: &Store, session: &str) -> Result<TurnRecord, AppError> {
    store
        .head_turn(session)?
        .ok_or_else(|| AppError::new(ErrorCode::SessionNotFound, "the story has no turn yet"))
}

/// The plan that told `turn` (its last attempt with a plan and a result)
/// and the outputs of its tools other than the narration, by tool id (`null`
/// for one that gave nothing).
pub(crate) fn told_plan(
    turn: &TurnRecord,
    catalog: &Catalog,
) -> Option<(Plan, Map<String, Value>)> {
    let attempt = turn
        .attempts
        .iter()
        .rev()
        .find(|a| a.plan.is_some() && a.result.is_some())?;
    let plan: Plan = serde_json::from_value(attempt.plan.clone()?).ok()?;
    let result = attempt.result.as_ref()?;
    let outputs = plan
        .tools
        .iter()
        .filter(|t| !is_narration_tool(catalog, t))
        .map(|t| {
            let output = result
                .execution_trace
                .iter()
                .find(|r| r.tool_id == t.tool_id && r.state == ExecutionState::Completed)
                .and_then(|r| r.output.clone())
                .unwrap_or(Value::Null);
            (t.tool_id.clone(), output)
        })
        .collect();
    Some((plan, outputs))
}

/// The narration a run wrote, if any.
fn narrative_of(result: &ExecutionResult) -> Option<String> {
    result
        .narrative
        .clone()
        .filter(|n| !n.trim().is_empty())
        .or_else(|| {
            result.execution_trace.iter().rev().find_map(|t| {
                t.output
                    .as_ref()?
                    .get("narrative")?
                    .as_str()
                    .filter(|n| !n.trim().is_empty())
                    .map(str::to_string)
            })
        })
}

/// The outputs of a run's tools in plan order (`null` for one that gave nothing).
fn outputs(result: &ExecutionResult) -> Vec<Value> {
    result
        .execution_trace
        .iter()
        .map(|t| t.output.clone().unwrap_or(json!(null)))
        .collect()
}
