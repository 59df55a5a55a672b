//! Playing a turn: the one path every front end takes (the window, the
//! terminal story, `narratoria turn` and `play --jsonl`).

use narratoria_core::error::ErrorCode;
use narratoria_core::sync;
use narratoria_core::turn::{play_turn, TurnEvent, TurnOptions};
use tokio::sync::mpsc::UnboundedSender;

use crate::{App, AppError, TurnView};

/// How many earlier turns the narrator sees.
pub const RECENT_TURNS: usize = 6;

impl App {
    /// Plays one turn in the current session and saves it; `events` receives
    /// everything live (planning, narrative pieces, tool events, replans).
    /// A blank input is refused.
    pub async fn play(
        &self,
        input: &str,
        events: Option<UnboundedSender<TurnEvent>>,
    ) -> Result<TurnView, AppError> {
        let input = input.trim();
        if input.is_empty() {
            return Err(AppError::new(
                ErrorCode::InputEmpty,
                "say what your character does",
            ));
        }
        let session = self.current_session()?.session.id;
        let (state, recent) = {
            let store = sync::lock(&self.store);
            (
                store.current_state(&session)?,
                store.recent_turns(&session, RECENT_TURNS)?,
            )
        };
        let mut skills = self.registry.state();
        let mut opts = TurnOptions::default();
        opts.exec.data_root = self.skill_data.clone();
        let outcome = play_turn(
            input,
            self.planner(),
            self.registry.snapshot(),
            state,
            recent,
            &mut skills,
            &opts,
            events,
        )
        .await;
        let number = sync::lock(&self.store).commit_turn(&session, &outcome.turn)?;
        self.registry
            .update_state(|s| s.health = skills.health.clone());
        self.save_skill_state()?;
        let turn = sync::lock(&self.store)
            .turns(&session)?
            .into_iter()
            .find(|t| t.number == number)
            .ok_or_else(|| {
                AppError::new(
                    ErrorCode::SessionStore,
                    "the saved turn could not be read back",
                )
            })?;
        Ok(TurnView {
            session,
            turn,
            result: outcome.result,
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
}
