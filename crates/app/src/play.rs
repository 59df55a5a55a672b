//! Playing a turn: the one path every front end takes (the window, the
//! terminal story, `narratoria turn` and `play --jsonl`).

use std::collections::BTreeMap;

use narratoria_core::error::ErrorCode;
use narratoria_core::executor::ExecutorOptions;
use narratoria_core::host::serve::HostLink;
use narratoria_core::narration::{check_action, StoryTold};
use narratoria_core::planner::TurnSummary;
use narratoria_core::protocol::StoryPlace;
use narratoria_core::skills::health::Health;
use narratoria_core::store::TurnPlace;
use narratoria_core::sync;
use narratoria_core::turn::{play_turn, TurnEvent, TurnInputs, TurnOptions};
use serde_json::{Map, Value};
use tokio::sync::mpsc::UnboundedSender;

use crate::{App, AppError, TurnView};

pub use narratoria_core::turn::RECENT_TURNS;

/// Where a turn goes on the current branch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Placing {
    /// After the head.
    Next,
    /// Beside the head (same parent): the head stays as an alternative.
    BesideHead,
    /// In place of turn N of the current branch, its words edited: on a new
    /// branch from the turn before it, made current (the old turns stay on
    /// their branch).
    InsteadOf(u32),
}

/// A turn placed in its story: where it goes, the state it starts from,
/// the planner's recent turns and the story as the narration is told it.
struct Placed {
    place: TurnPlace,
    state: Map<String, Value>,
    recent: Vec<TurnSummary>,
    told: StoryTold,
}

/// Where a turn at `place` acts, as its scripts are told.
pub(crate) fn story_place(place: &TurnPlace) -> StoryPlace {
    StoryPlace {
        id: place.session.clone(),
        branch: place.branch_name.clone(),
        turn: place.number,
        turn_id: place.key.clone(),
        path: place.path.clone(),
    }
}

/// The player's words, trimmed; blank words are refused with `ask`
/// (`input_empty`), words longer than an action may be with how long it
/// may be (`action_too_long`, [`narratoria_core::narration::ACTION_CHARS`]),
/// before anything is played.
pub(crate) fn player_input<'a>(input: &'a str, ask: &str) -> Result<&'a str, AppError> {
    let input = input.trim();
    if input.is_empty() {
        return Err(AppError::new(ErrorCode::InputEmpty, ask.to_string()));
    }
    check_action(input)?;
    Ok(input)
}

impl App {
    /// How this app runs a plan at `place`: the skills' data and settings
    /// folders, the story place scripts are told, and the model that
    /// writes, lent to skills that may ask it to write.
    pub(crate) fn exec_options(&self, place: &TurnPlace) -> ExecutorOptions {
        self.exec_options_at(story_place(place))
    }

    /// [`App::exec_options`] for a script acting in `story`.
    pub(crate) fn exec_options_at(&self, story: StoryPlace) -> ExecutorOptions {
        ExecutorOptions {
            data_root: self.skill_data.clone(),
            settings_dir: self.skill_settings.clone(),
            story: Some(story),
            host: HostLink {
                // The writer, when another model than the planner's writes.
                generator: self.writer_generator(),
            },
            ..ExecutorOptions::default()
        }
    }

    /// Plays one turn in the current session and saves it; `events` receives
    /// everything live (planning, narrative pieces, tool events, replans).
    /// A blank input is refused.
    pub async fn play(
        &self,
        input: &str,
        events: Option<UnboundedSender<TurnEvent>>,
    ) -> Result<TurnView, AppError> {
        let input = player_input(input, "say what your character does")?;
        let session = self.current_session_id()?;
        self.play_placed(&session, input, Placing::Next, None, events)
            .await
    }

    /// Plays `input` as a turn of `session` at `placing` and saves it there,
    /// moving the branch's head to it. Waits for anything else changing the
    /// session in this process; refuses to save (`session_changed`) when the
    /// branch moved meanwhile all the same (another process). The turn can be
    /// stopped with [`App::stop_turn`]: what the tools finished is kept, the
    /// narration is cut short and told from the outcomes instead. With
    /// `skills_needed` (the player's correction) its plans use those skills
    /// instead of the ones routing would choose.
    pub(crate) async fn play_placed(
        &self,
        session: &str,
        input: &str,
        placing: Placing,
        skills_needed: Option<Vec<String>>,
        events: Option<UnboundedSender<TurnEvent>>,
    ) -> Result<TurnView, AppError> {
        // Stoppable from now on, while it waits for the story too.
        let stopping = self.running.begin(session);
        let _held = self.turn_locks.hold(session).await;
        let Placed {
            place,
            state,
            recent,
            told,
        } = self.place_turn(session, input, placing)?;
        let mut skills = self.registry.state();
        let health_before = skills.health.clone();
        let mut options = TurnOptions {
            exec: self.exec_options(&place),
            skills_needed,
            ..TurnOptions::default()
        };
        options.exec.stop = stopping.stop().clone();
        let inputs = TurnInputs {
            input,
            planner: self.planner(),
            catalog: self.catalog_for(session)?,
            state,
            recent,
            told,
            options: &options,
            events,
        };
        let outcome = play_turn(inputs, &mut skills).await;
        drop(stopping);
        let number = sync::lock(&self.store).commit_at(&place, &outcome.turn)?;
        self.keep_health_changed(&health_before, &skills.health)?;
        let turn = sync::lock(&self.store).turn_by_key(session, &place.key)?;
        debug_assert_eq!(turn.number, number);
        Ok(TurnView {
            session: session.to_string(),
            turn,
            result: outcome.result,
        })
    }

    /// The turn of `session` at `placing` placed (a branch made for an
    /// edit). The caller holds the turn lock.
    fn place_turn(&self, session: &str, input: &str, placing: Placing) -> Result<Placed, AppError> {
        let mut store = sync::lock(&self.store);
        let place = match placing {
            Placing::Next => store.place_next(session)?,
            Placing::BesideHead => store.place_beside_head(session)?,
            Placing::InsteadOf(turn) => {
                crate::regen::branch_to_edit(&mut store, session, turn)?;
                store.place_next(session)?
            }
        };
        let state = store.state_for(&place)?;
        let (recent, told) = crate::steer::told_at(&store, &place, input)?;
        Ok(Placed {
            place,
            state,
            recent,
            told,
        })
    }

    /// Writes the health a turn changed from `before` to `after`, and only
    /// that: the file may hold choices made while the turn ran.
    fn keep_health_changed(
        &self,
        before: &BTreeMap<String, Health>,
        after: &BTreeMap<String, Health>,
    ) -> Result<(), AppError> {
        let changed: BTreeMap<String, Option<Health>> = before
            .keys()
            .chain(after.keys())
            .filter(|name| before.get(*name) != after.get(*name))
            .map(|name| (name.clone(), after.get(name).copied()))
            .collect();
        self.change_skill_state(|s| {
            for (name, health) in &changed {
                match health {
                    Some(h) => s.health.insert(name.clone(), *h),
                    None => s.health.remove(name),
                };
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::{App, AppConfig, SessionDb, SkillChoices};

    /// A one-off app (a turn without a session file) plays turns in memory
    /// and writes neither a database nor the skill choices.
    #[tokio::test]
    async fn a_one_off_app_remembers_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let skill = dir.path().join("skills/teller");
        std::fs::create_dir_all(&skill).unwrap();
        std::fs::write(
            skill.join("skill.json"),
            r#"{"name":"teller","version":"1.0.0","description":"tells"}"#,
        )
        .unwrap();
        let state = dir.path().join("state.json");
        let app = App::open(AppConfig {
            skill_roots: vec![dir.path().join("skills")],
            session_db: SessionDb::Memory,
            skills_state: SkillChoices::ReadOnly(state.clone()),
            ..AppConfig::default()
        })
        .unwrap();
        let first = app.play("I open the door", None).await.unwrap();
        let second = app.play("I step inside", None).await.unwrap();
        assert_eq!((first.turn.number, second.turn.number), (1, 2));
        assert_eq!(first.session, second.session);
        assert!(!state.exists());
        let mut files: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        files.retain(|f| f != "skills");
        assert!(files.is_empty(), "{files:?}");
    }

    /// An action longer than an action may be is refused before the turn
    /// starts — nothing played, nothing saved — with how long one may be;
    /// an action at the bound, counted in characters, is played.
    #[tokio::test]
    async fn an_action_over_its_bound_is_refused_before_the_turn() {
        use narratoria_core::error::ErrorCode;
        use narratoria_core::narration::ACTION_CHARS;
        let dir = tempfile::tempdir().unwrap();
        crate::tests::skill_folder(dir.path(), "teller");
        let app = crate::tests::app_in(dir.path());
        let session = app.current_session_id().unwrap();
        let long = format!("I say {}", "é".repeat(ACTION_CHARS));
        let refused = app.play(&long, None).await.unwrap_err();
        assert_eq!(refused.code, ErrorCode::ActionTooLong);
        assert!(
            refused
                .message
                .contains("an action holds at most 2000 characters"),
            "{}",
            refused.message
        );
        let head = narratoria_core::sync::lock(&app.store).head_turn(&session);
        assert!(head.unwrap().is_none(), "nothing saved");
        let longest = "é".repeat(ACTION_CHARS);
        let played = app.play(&format!("  {longest}  "), None).await.unwrap();
        assert_eq!(played.turn.input, longest);
    }
}
