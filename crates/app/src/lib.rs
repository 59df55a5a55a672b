//! Narratoria's application functions: one [`App`] holding the live skill
//! registry, the session store, the narrator and the user's skill choices,
//! with plain methods that the desktop shell's commands and the terminal game
//! both call. Errors carry a code the UI classifies without string matching.

pub mod desktop;
mod error;
pub mod planner;
mod process;

pub use error::AppError;
pub use process::calm_openmp;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use narratoria_core::error::ErrorCode;
use narratoria_core::planner::Planner;
use narratoria_core::result::ExecutionResult;
use narratoria_core::skills::config::{self, REDACTED};
use narratoria_core::skills::registry::Watch;
use narratoria_core::skills::{Registry, SkillChange, SkillsState};
use narratoria_core::store::{SessionInfo, Store, TurnRecord};
use narratoria_core::turn::{play_turn, TurnEvent, TurnOptions};
use serde::Serialize;
use serde_json::{json, Map, Value};
use tokio::sync::mpsc::UnboundedSender;

/// Where the app finds its things.
#[derive(Debug, Clone, Default)]
pub struct AppConfig {
    /// Skill folders, later ones overriding earlier ones (built-in first).
    pub skill_roots: Vec<PathBuf>,
    /// The sessions database (default: the user's `sessions.db`).
    pub session_db: Option<PathBuf>,
    /// The skill-choices file (default: the user's `skills-state.json`).
    pub skills_state: Option<PathBuf>,
    /// How long file changes must settle before skills reload.
    pub watch_debounce: Option<Duration>,
}

/// The model in use.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelInfo {
    /// The planner's name: a model file name, or `rules`.
    pub planner: String,
    /// The GGUF file, when a model is loaded.
    pub path: Option<PathBuf>,
    /// Where the default model is expected.
    pub default_path: PathBuf,
}

/// A skill as the UI shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillView {
    #[serde(flatten)]
    pub summary: Value,
    pub config_schema: Option<Value>,
    /// The effective settings, secrets redacted.
    pub config: Value,
}

/// Every skill, with what was passed over.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillsView {
    pub skills: Vec<SkillView>,
    pub problems: Value,
    pub overrides: Value,
}

/// A played turn, for the UI.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnView {
    pub session: String,
    pub turn: TurnRecord,
    pub result: ExecutionResult,
}

/// A session with its turns.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionView {
    pub session: SessionInfo,
    pub turns: Vec<TurnRecord>,
    pub state: Map<String, Value>,
}

/// The running application.
pub struct App {
    registry: Arc<Registry>,
    store: Mutex<Store>,
    planner: RwLock<Arc<dyn Planner>>,
    model_path: RwLock<Option<PathBuf>>,
    session: Mutex<Option<String>>,
    state_path: PathBuf,
    _watch: Option<Watch>,
}

/// How many earlier turns the narrator sees.
const RECENT_TURNS: usize = 6;

impl App {
    /// Opens the skills (watching them), the sessions database and the
    /// user's skill choices. The narrator starts as the rule-based planner;
    /// [`App::load_model`] brings in a model.
    pub fn open(cfg: AppConfig) -> Result<App, AppError> {
        let state_path = cfg
            .skills_state
            .clone()
            .unwrap_or_else(SkillsState::default_path);
        let (state, warning) = SkillsState::load(&state_path);
        if let Some(w) = warning {
            eprintln!("narratoria: note: {w}");
        }
        let registry = Registry::open(&cfg.skill_roots, state)
            .map_err(|e| AppError::new(ErrorCode::SkillsDirUnusable, e.to_string()))?;
        let watch = registry
            .watch(cfg.watch_debounce.unwrap_or(Duration::from_millis(100)))
            .ok();
        let db = cfg
            .session_db
            .clone()
            .unwrap_or_else(narratoria_core::store::default_path);
        let store = Store::open(&db)?;
        Ok(App {
            registry,
            store: Mutex::new(store),
            planner: RwLock::new(Arc::new(narratoria_core::rules::RulePlanner)),
            model_path: RwLock::new(None),
            session: Mutex::new(None),
            state_path,
            _watch: watch,
        })
    }

    /// The live skill registry.
    pub fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// Changes to the skill folders, as they happen.
    pub fn skill_changes(&self) -> tokio::sync::broadcast::Receiver<SkillChange> {
        self.registry.subscribe()
    }

    // ---- the narrator ----

    /// Loads a GGUF model (the default one when `path` is `None`) and uses it
    /// from the next turn on. With no model file at the default place, the
    /// rule-based planner stays, and that is not an error.
    pub fn load_model(
        &self,
        path: Option<&Path>,
        progress: Option<planner::Progress>,
    ) -> Result<ModelInfo, AppError> {
        let chosen = path
            .map(Path::to_path_buf)
            .or_else(|| Some(planner::default_model_path()).filter(|p| p.exists()));
        let p = planner::open(chosen.as_deref(), progress)?;
        p.warm_up(
            &self.registry.snapshot(),
            std::time::Instant::now() + Duration::from_secs(60),
        );
        *self.planner.write().expect("planner lock") = p;
        *self.model_path.write().expect("model lock") = chosen;
        Ok(self.model_info())
    }

    /// The narrator in use.
    pub fn model_info(&self) -> ModelInfo {
        ModelInfo {
            planner: self.planner.read().expect("planner lock").name(),
            path: self.model_path.read().expect("model lock").clone(),
            default_path: planner::default_model_path(),
        }
    }

    /// The current planner.
    pub fn planner(&self) -> Arc<dyn Planner> {
        Arc::clone(&self.planner.read().expect("planner lock"))
    }

    // ---- skills ----

    /// Every skill with its health, settings (redacted) and schema.
    pub fn skills(&self) -> SkillsView {
        let catalog = self.registry.snapshot();
        let skills = catalog
            .skills()
            .iter()
            .map(|s| {
                let stored = s.user_config.clone().unwrap_or_else(|| json!({}));
                let config = match &s.config_schema {
                    Some(schema) => config::redact(schema, &config::with_defaults(schema, &stored)),
                    None => stored,
                };
                SkillView {
                    summary: serde_json::to_value(s.summary()).expect("summary serialises"),
                    config_schema: s.config_schema.clone(),
                    config,
                }
            })
            .collect();
        SkillsView {
            skills,
            problems: serde_json::to_value(&catalog.problems).expect("serialises"),
            overrides: serde_json::to_value(&catalog.overrides).expect("serialises"),
        }
    }

    /// Turns a skill on or off; remembered across restarts.
    pub fn set_skill_enabled(&self, name: &str, enabled: bool) -> Result<SkillsView, AppError> {
        if self.registry.snapshot().get(name).is_none() {
            return Err(AppError::new(
                ErrorCode::SkillNotFound,
                format!("no skill named {name:?}"),
            ));
        }
        self.registry.update_state(|s| s.set_enabled(name, enabled));
        self.save_skill_state()?;
        Ok(self.skills())
    }

    /// Validates and saves a skill's settings. A secret sent back as the
    /// redaction mark keeps its stored value. Nothing is written when invalid.
    pub fn save_skill_config(&self, name: &str, submitted: &Value) -> Result<Value, AppError> {
        let catalog = self.registry.snapshot();
        let skill = catalog.get(name).ok_or_else(|| {
            AppError::new(ErrorCode::SkillNotFound, format!("no skill named {name:?}"))
        })?;
        let mut next = submitted.clone();
        if let (Some(schema), Some(stored)) = (&skill.config_schema, &skill.user_config) {
            for p in config::secret_pointers(schema, &next) {
                if next.pointer(&p).and_then(Value::as_str) == Some(REDACTED) {
                    if let (Some(slot), Some(old)) = (next.pointer_mut(&p), stored.pointer(&p)) {
                        *slot = old.clone();
                    }
                }
            }
        }
        let path = skill.dir.join("config.json");
        config::save(&path, skill.config_schema.as_ref(), &next)?;
        self.registry.reload(&[path]);
        let shown = match &skill.config_schema {
            Some(schema) => config::redact(schema, &config::with_defaults(schema, &next)),
            None => next,
        };
        Ok(shown)
    }

    fn save_skill_state(&self) -> Result<(), AppError> {
        self.registry.state().save(&self.state_path).map_err(|e| {
            AppError::new(
                ErrorCode::Io,
                format!("cannot save {}: {e}", self.state_path.display()),
            )
        })
    }

    // ---- sessions ----

    /// Every saved session, most recent first.
    pub fn sessions(&self) -> Result<Vec<SessionInfo>, AppError> {
        Ok(self.store.lock().expect("store lock").sessions()?)
    }

    /// Starts a new session and makes it current.
    pub fn new_session(&self, title: &str) -> Result<SessionView, AppError> {
        let title = if title.trim().is_empty() {
            "A new story"
        } else {
            title.trim()
        };
        let id = self
            .store
            .lock()
            .expect("store lock")
            .create_session(title, &Map::new())?;
        self.open_session(&id)
    }

    /// Makes a session current and returns it with its turns.
    pub fn open_session(&self, id: &str) -> Result<SessionView, AppError> {
        let view = self.session_view(id)?;
        *self.session.lock().expect("session lock") = Some(id.to_string());
        self.registry.update_state(|s| s.enter_session(id));
        self.save_skill_state()?;
        Ok(view)
    }

    /// The current session, continuing the latest one (or starting one) when none is open.
    pub fn current_session(&self) -> Result<SessionView, AppError> {
        let current = self.session.lock().expect("session lock").clone();
        match current {
            Some(id) => self.session_view(&id),
            None => {
                let latest = self.store.lock().expect("store lock").latest_session()?;
                match latest {
                    Some(info) => self.open_session(&info.id),
                    None => self.new_session(""),
                }
            }
        }
    }

    fn session_view(&self, id: &str) -> Result<SessionView, AppError> {
        let store = self.store.lock().expect("store lock");
        Ok(SessionView {
            session: store.session(id)?,
            turns: store.turns(id)?,
            state: store.current_state(id)?,
        })
    }

    /// Rewinds a session to just after turn `turn` (0 = its start).
    pub fn rewind(&self, id: &str, turn: u32) -> Result<SessionView, AppError> {
        self.store.lock().expect("store lock").rewind(id, turn)?;
        self.session_view(id)
    }

    /// A session as Markdown (`md`) or JSON (`json`).
    pub fn export(&self, id: &str, format: &str) -> Result<String, AppError> {
        let store = self.store.lock().expect("store lock");
        match format {
            "json" => {
                Ok(serde_json::to_string_pretty(&store.export_json(id)?).expect("serialises"))
            }
            "md" | "markdown" => Ok(store.export_markdown(id)?),
            other => Err(AppError::new(
                ErrorCode::ExportFormatUnknown,
                format!("unknown export format {other:?} (md or json)"),
            )),
        }
    }

    /// Plays one turn in the current session and saves it; `events` receives
    /// everything live (planning, narrative pieces, tool events, replans).
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
            let store = self.store.lock().expect("store lock");
            (
                store.current_state(&session)?,
                store.recent_turns(&session, RECENT_TURNS)?,
            )
        };
        let mut skills = self.registry.state();
        // A player's skill data lives in their own folder, never in an
        // installed skills folder.
        let mut opts = TurnOptions::default();
        opts.exec.data_root = Some(narratoria_core::paths::skills_data_dir());
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
        let number = self
            .store
            .lock()
            .expect("store lock")
            .commit_turn(&session, &outcome.turn)?;
        self.registry
            .update_state(|s| s.health = skills.health.clone());
        self.save_skill_state()?;
        let turn = self
            .store
            .lock()
            .expect("store lock")
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
    use super::*;

    /// The desktop shell shares one App between threads.
    #[test]
    fn app_is_shareable() {
        fn shareable<T: Send + Sync>() {}
        shareable::<App>();
    }

    fn app(dir: &Path) -> App {
        let root = dir.join("skills/teller");
        std::fs::create_dir_all(root.join("scripts")).unwrap();
        std::fs::write(
            root.join("skill.json"),
            r#"{"name":"teller","version":"1.0.0","description":"tells"}"#,
        )
        .unwrap();
        std::fs::write(
            root.join("config-schema.json"),
            r#"{"type":"object","properties":{"apiKey":{"type":"string","format":"password"},"n":{"type":"integer","maximum":5}}}"#,
        )
        .unwrap();
        App::open(AppConfig {
            skill_roots: vec![dir.join("skills")],
            session_db: Some(dir.join("s.db")),
            skills_state: Some(dir.join("state.json")),
            watch_debounce: None,
        })
        .unwrap()
    }

    #[tokio::test]
    async fn empty_input_and_unknown_export_format_have_their_own_codes() {
        let dir = tempfile::tempdir().unwrap();
        let app = app(dir.path());
        let empty = app.play("   ", None).await.unwrap_err();
        assert_eq!(empty.code, ErrorCode::InputEmpty);
        let session = app.current_session().unwrap().session.id;
        let export = app.export(&session, "pdf").unwrap_err();
        assert_eq!(export.code, ErrorCode::ExportFormatUnknown);
    }

    #[tokio::test]
    async fn play_saves_turns_and_rewind_restores() {
        let dir = tempfile::tempdir().unwrap();
        let app = app(dir.path());
        let first = app.play("I open the door", None).await.unwrap();
        assert_eq!(first.turn.number, 1);
        app.play("I step inside", None).await.unwrap();
        let view = app.rewind(&first.session, 1).unwrap();
        assert_eq!(view.turns.len(), 1);
        assert!(app
            .export(&first.session, "md")
            .unwrap()
            .contains("> I open the door"));
        assert!(app.play("   ", None).await.is_err());
    }

    #[test]
    fn settings_keep_secrets_and_refuse_invalid_values() {
        let dir = tempfile::tempdir().unwrap();
        let app = app(dir.path());
        let shown = app
            .save_skill_config("teller", &json!({"apiKey": "sk-999999", "n": 2}))
            .unwrap();
        assert_eq!(shown["apiKey"], REDACTED);
        // The form sends the mark back for an unchanged secret.
        app.save_skill_config("teller", &json!({"apiKey": REDACTED, "n": 3}))
            .unwrap();
        let stored: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.path().join("skills/teller/config.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(stored, json!({"apiKey": "sk-999999", "n": 3}));
        let err = app
            .save_skill_config("teller", &json!({"n": 9}))
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::ConfigInvalid);
        assert_eq!(err.errors[0].pointer, "/n");
        let view = app.skills();
        assert_eq!(view.skills[0].config["apiKey"], REDACTED);
        app.set_skill_enabled("teller", false).unwrap();
        assert_eq!(app.skills().skills[0].summary["enabled"], false);
        assert!(app.set_skill_enabled("nobody", false).is_err());
    }
}
