//! Narratoria's application functions: one [`App`] holding the live skill
//! registry, the session store, the narrator and the user's skill choices,
//! with plain methods that the desktop shell's commands and the terminal game
//! both call. Errors carry a code the UI classifies without string matching.
//!
//! The methods are grouped by what they are about, as the desktop shell's
//! commands are: the narrator (`model.rs`), skills (`skills.rs`), saved
//! stories (`sessions.rs`), a story's author's note and language
//! (`steer.rs`) and playing a turn (`play.rs`).

#![forbid(unsafe_code)]

pub mod assets;
pub mod chosen_paths;
mod controls;
pub mod corrections;
pub mod desktop;
mod error;
pub mod load_queue;
pub mod locate;
pub mod logging;
mod model;
pub mod models;
pub mod panic_hook;
pub mod planner;
mod play;
mod process;
mod regen;
pub mod roles;
pub mod run_export;
mod running;
pub mod servers;
mod sessions;
mod skills;
mod speed_keeper;
mod steer;
pub mod stories;
pub mod table;
mod turn_locks;
mod views;

pub use error::AppError;
pub use play::RECENT_TURNS;
pub use process::calm_openmp;
pub use steer::{StoryLanguage, UnwrittenLanguage};
pub use views::{ModelInfo, SessionView, SkillView, SkillsView, TurnView};

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use narratoria_core::error::ErrorCode;
use narratoria_core::planner::Planner;
use narratoria_core::skills::registry::Watch;
use narratoria_core::skills::{Registry, SkillsState};
use narratoria_core::store::Store;

/// Where the app finds its things.
#[derive(Debug, Clone, Default)]
pub struct AppConfig {
    /// Skill folders, later ones overriding earlier ones (built-in first).
    pub skill_roots: Vec<PathBuf>,
    /// Where sessions are saved.
    pub session_db: SessionDb,
    /// Where the skill choices (on/off, health) are read and saved.
    pub skills_state: SkillChoices,
    /// Where skills keep their data (`DIR/<skill>`); `None`: each skill's own
    /// `data/` folder, or the user's skill-data folder when that is read-only.
    pub skill_data: Option<PathBuf>,
    /// Where the player's own skill settings are (`DIR/<skill>.json`);
    /// `None`: the user's `skill-settings` folder.
    pub skill_settings: Option<PathBuf>,
    /// How long file changes must settle before skills reload.
    pub watch_debounce: Option<Duration>,
}

/// Where the app saves sessions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum SessionDb {
    /// The user's `sessions.db`.
    #[default]
    User,
    /// This database file.
    File(PathBuf),
    /// Memory only: nothing is written, and the sessions end with the app.
    Memory,
}

/// Where the player's skill choices (on/off, health) come from and go to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum SkillChoices {
    /// Read from and saved to the user's `skills-state.json`.
    #[default]
    User,
    /// Read from and saved to this file.
    File(PathBuf),
    /// Read from this file and never saved: the choices apply, nothing is remembered.
    ReadOnly(PathBuf),
}

/// The running application.
pub struct App {
    registry: Arc<Registry>,
    store: Mutex<Store>,
    planner: RwLock<Arc<dyn Planner>>,
    model_path: RwLock<Option<PathBuf>>,
    /// Another model that writes the prose; `None`: the planner's writes.
    writer: RwLock<Option<model::LoadedWriter>>,
    session: Mutex<Option<String>>,
    /// Where skill choices are saved; `None`: they are not remembered.
    state_path: Option<PathBuf>,
    skill_data: Option<PathBuf>,
    skill_settings: Option<PathBuf>,
    /// Turns and story moves of one session wait for each other.
    turn_locks: turn_locks::TurnLocks,
    /// The turns running now, with their stop buttons.
    running: running::RunningTurns,
    /// Where an external server's waits are told (see [`App::server_waits`]).
    server_waits: servers::WaitSender,
    _watch: Option<Watch>,
}

impl App {
    /// Opens the skills (watching them), the sessions database and the
    /// user's skill choices. The narrator starts as the rule-based planner;
    /// [`App::load_model`] brings in a model.
    pub fn open(cfg: AppConfig) -> Result<App, AppError> {
        let (read_from, state_path) = match cfg.skills_state {
            SkillChoices::User => {
                let file = locate::skills_state_file();
                (file.clone(), Some(file))
            }
            SkillChoices::File(file) => (file.clone(), Some(file)),
            SkillChoices::ReadOnly(file) => (file, None),
        };
        let (state, warning) = SkillsState::load(&read_from);
        if let Some(w) = warning {
            eprintln!("narratoria: note: {w}");
        }
        let registry = Registry::open(&cfg.skill_roots, state)
            .map_err(|e| AppError::new(ErrorCode::SkillsDirUnusable, e.to_string()))?;
        let watch = registry
            .watch(cfg.watch_debounce.unwrap_or(Duration::from_millis(100)))
            .ok();
        let store = match &cfg.session_db {
            SessionDb::User => Store::open(&locate::sessions_db()),
            SessionDb::File(db) => Store::open(db),
            // SQLite's name for a database that lives in memory only.
            SessionDb::Memory => Store::open(Path::new(":memory:")),
        }?;
        Ok(App {
            registry,
            store: Mutex::new(store),
            planner: RwLock::new(Arc::new(narratoria_core::rules::RulePlanner)),
            model_path: RwLock::new(None),
            writer: RwLock::new(None),
            session: Mutex::new(None),
            state_path,
            skill_data: cfg.skill_data,
            skill_settings: cfg.skill_settings,
            turn_locks: Default::default(),
            running: Default::default(),
            server_waits: tokio::sync::broadcast::channel(16).0,
            _watch: watch,
        })
    }
}

impl App {
    /// The waits of the external servers that play a role, as they happen
    /// (a model loading), for the window to show.
    pub fn server_waits(&self) -> tokio::sync::broadcast::Receiver<servers::ServerWait> {
        self.server_waits.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use narratoria_core::skills::config::REDACTED;
    use serde_json::{json, Value};

    /// The desktop shell shares one App between threads.
    #[test]
    fn app_is_shareable() {
        fn shareable<T: Send + Sync>() {}
        shareable::<App>();
    }

    /// Makes skill `name`'s folder under `dir/skills`, with its
    /// `scripts` folder and the `skill.json` that names it; returns the
    /// folder.
    pub(crate) fn skill_folder(dir: &Path, name: &str) -> PathBuf {
        let root = dir.join("skills").join(name);
        std::fs::create_dir_all(root.join("scripts")).unwrap();
        std::fs::write(
            root.join("skill.json"),
            format!(r#"{{"name":"{name}","version":"1.0.0","description":"tells"}}"#),
        )
        .unwrap();
        root
    }

    /// Puts `body` in place as the runnable script `file` of skill `name`
    /// under `dir/skills`.
    pub(crate) fn write_skill(dir: &Path, name: &str, file: &str, body: &str) {
        use std::os::unix::fs::PermissionsExt;
        let script = skill_folder(dir, name).join("scripts").join(file);
        std::fs::write(&script, body).unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// An app with everything it keeps in `dir`: the skills under
    /// `skills`, the sessions in `s.db`, the skill choices in `state.json`,
    /// the skills' data under `data` and their settings under
    /// `skill-settings`.
    pub(crate) fn app_in(dir: &Path) -> App {
        App::open(AppConfig {
            skill_roots: vec![dir.join("skills")],
            session_db: SessionDb::File(dir.join("s.db")),
            skills_state: SkillChoices::File(dir.join("state.json")),
            skill_data: Some(dir.join("data")),
            skill_settings: Some(dir.join("skill-settings")),
            ..AppConfig::default()
        })
        .unwrap()
    }

    /// An app whose one skill, `teller`, has settings (a secret and a
    /// bounded number) and no scripts.
    fn app(dir: &Path) -> App {
        std::fs::write(
            skill_folder(dir, "teller").join("config-schema.json"),
            r#"{"type":"object","properties":{"apiKey":{"type":"string","format":"password"},"n":{"type":"integer","maximum":5}}}"#,
        )
        .unwrap();
        app_in(dir)
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

    /// An export replaces its file whole (written beside it, then renamed):
    /// the earlier file's contents are never rewritten in place, so a failed
    /// export cannot leave it truncated. A hard link to the earlier file
    /// still reads the earlier export afterwards.
    #[test]
    fn export_replaces_the_file_and_never_rewrites_the_earlier_one() {
        let dir = tempfile::tempdir().unwrap();
        let app = app(dir.path());
        let session = app.current_session().unwrap().session.id;
        let dest = dir.path().join("my story.md");
        std::fs::write(&dest, "the earlier export").unwrap();
        let earlier = dir.path().join("earlier.md");
        std::fs::hard_link(&dest, &earlier).unwrap();
        let bytes = app.export_to_file(&session, "md", &dest).unwrap();
        let now = std::fs::read_to_string(&dest).unwrap();
        assert_eq!(now.len(), bytes);
        assert_ne!(now, "the earlier export");
        assert_eq!(
            std::fs::read_to_string(&earlier).unwrap(),
            "the earlier export"
        );
        // A failed export (no such folder) leaves nothing behind.
        let missing = dir.path().join("no-such-folder").join("x.md");
        let failed = app.export_to_file(&session, "md", &missing).unwrap_err();
        assert_eq!(failed.code, ErrorCode::Io);
        assert!(failed.message.contains("x.md"), "{}", failed.message);
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
            &std::fs::read_to_string(dir.path().join("skill-settings/teller.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(
            stored,
            json!({"settings": {"apiKey": "sk-999999", "n": 3}}),
            "the player's settings are saved in their own folder"
        );
        assert!(!dir.path().join("skills/teller/config.json").exists());
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
