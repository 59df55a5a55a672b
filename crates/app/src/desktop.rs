//! What the desktop shell needs beyond [`App`]'s methods: where its folders
//! are, an [`App`] that can be shared between threads, file exports, and the
//! folders the window may load assets from.

use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use narratoria_core::turn::TurnEvent;
use tokio::sync::mpsc::UnboundedSender;

use crate::{locate, App, AppConfig, AppError, SessionDb, SessionView, SkillChoices, TurnView};

/// Where the desktop app finds its things, resolved once at start-up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DesktopPaths {
    /// Skill folders, built-in first, then the user's own.
    pub skill_roots: Vec<PathBuf>,
    /// The sessions database.
    pub session_db: PathBuf,
    /// The skill-choices file.
    pub skills_state: PathBuf,
    /// The model to load at start-up: `None` when the player asked for none.
    pub model: Option<ModelChoice>,
}

/// Which model the app loads at start-up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelChoice {
    /// The player's roles ([`crate::roles::for_run`]): the chosen planner
    /// or the default model wherever it is found plans (the rule-based
    /// planner if none is anywhere), the chosen writer writes.
    Default,
    /// This GGUF file plans and writes.
    File(PathBuf),
}

impl ModelChoice {
    /// The file to pass to [`App::load_model`] (`None` = the default one).
    pub fn path(&self) -> Option<&Path> {
        match self {
            ModelChoice::Default => None,
            ModelChoice::File(p) => Some(p),
        }
    }
}

impl DesktopPaths {
    /// Resolves the folders from the environment (see [`crate::locate`]):
    /// - the built-in skills folder: `NARRATORIA_SKILLS_DIR`, else `skills/`
    ///   in `resources` when it holds skills, else
    ///   [`locate::builtin_skills_dir`]'s search;
    /// - `NARRATORIA_HOME`: the user's folder (sessions, choices, own skills
    ///   under `skills/`);
    /// - `NARRATORIA_SESSION_DB`: the sessions database;
    /// - `NARRATORIA_MODEL`: the model to load (it plans and writes); set
    ///   but empty, none (the rule-based planner answers); unset, the
    ///   player's roles: the planner chosen with `narratoria models use NAME
    ///   --role planner`, else the bundled model, plans; the model chosen
    ///   with `narratoria models use NAME` writes (docs/models.md, "Roles").
    ///
    /// `resources` is the installed bundle's resource folder (with `skills/`
    /// and `models/`), when there is one.
    pub fn from_env(resources: Option<&Path>) -> DesktopPaths {
        let builtin = locate::builtin_skills_dir(resources);
        let own = locate::user_skills_dir();
        let mut skill_roots = vec![builtin];
        if own.is_dir() && !skill_roots.contains(&own) {
            skill_roots.push(own);
        }
        DesktopPaths {
            skill_roots,
            session_db: std::env::var_os("NARRATORIA_SESSION_DB")
                .filter(|v| !v.is_empty())
                .map_or_else(locate::sessions_db, PathBuf::from),
            skills_state: locate::skills_state_file(),
            model: match std::env::var_os("NARRATORIA_MODEL") {
                Some(v) if v.is_empty() => None,
                Some(v) => Some(ModelChoice::File(PathBuf::from(v))),
                None => Some(ModelChoice::Default),
            },
        }
    }

    /// Where the window may load images and sounds from: each skill's own
    /// folder (its `data/` included) and its folder in the user's skill-data
    /// folder, judged file by file when read (see [`crate::assets`]).
    pub fn asset_folders(&self) -> crate::assets::AssetFolders {
        crate::assets::AssetFolders {
            skill_roots: self.skill_roots.clone(),
            data_root: Some(locate::skills_data_dir()),
        }
    }

    /// The app's own folders, where the page may name files to write or
    /// load without a dialog: the user's data folder (models, exports) and
    /// the folder of the model chosen at start-up.
    pub fn own_folders(&self) -> Vec<PathBuf> {
        let mut out = vec![locate::user_data_dir()];
        if let Some(dir) = self
            .model
            .as_ref()
            .and_then(ModelChoice::path)
            .and_then(Path::parent)
        {
            out.push(dir.to_path_buf());
        }
        out
    }

    /// The application configuration for [`App::open`]: skill data goes to
    /// the user's skill-data folder, never into an installed skills folder.
    pub fn app_config(&self) -> AppConfig {
        AppConfig {
            skill_roots: self.skill_roots.clone(),
            session_db: SessionDb::File(self.session_db.clone()),
            skills_state: SkillChoices::File(self.skills_state.clone()),
            skill_data: Some(locate::skills_data_dir()),
            skill_settings: None,
            watch_debounce: Some(Duration::from_millis(150)),
        }
    }
}

/// An [`App`] that the shell can hand to every thread.
pub struct SharedApp(App);

// The shell shares one App between Tauri's threads.
const _: fn() = || {
    fn shareable<T: Send + Sync>() {}
    shareable::<App>();
};

impl SharedApp {
    /// Opens the app with the resolved folders.
    pub fn open(paths: &DesktopPaths) -> Result<SharedApp, AppError> {
        App::open(paths.app_config()).map(SharedApp)
    }

    /// [`App::play`] as a `Send + 'static` future for the shell's async commands.
    pub async fn play(
        self: Arc<Self>,
        input: String,
        events: Option<UnboundedSender<TurnEvent>>,
    ) -> Result<TurnView, AppError> {
        self.0.play(&input, events).await
    }

    /// [`App::regenerate_narration`] as a `Send + 'static` future.
    pub async fn regenerate_narration(
        self: Arc<Self>,
        session: String,
        events: Option<UnboundedSender<TurnEvent>>,
    ) -> Result<SessionView, AppError> {
        self.0.regenerate_narration(&session, events).await
    }

    /// [`App::continue_narration`] as a `Send + 'static` future.
    pub async fn continue_narration(
        self: Arc<Self>,
        session: String,
        events: Option<UnboundedSender<TurnEvent>>,
    ) -> Result<SessionView, AppError> {
        self.0.continue_narration(&session, events).await
    }

    /// [`App::regenerate_turn`] as a `Send + 'static` future.
    pub async fn regenerate_turn(
        self: Arc<Self>,
        session: String,
        events: Option<UnboundedSender<TurnEvent>>,
    ) -> Result<TurnView, AppError> {
        self.0.regenerate_turn(&session, events).await
    }

    /// [`App::correct_turn`] as a `Send + 'static` future.
    pub async fn correct_turn(
        self: Arc<Self>,
        session: String,
        change: crate::corrections::MechanicsChange,
        events: Option<UnboundedSender<TurnEvent>>,
    ) -> Result<TurnView, AppError> {
        self.0.correct_turn(&session, &change, events).await
    }

    /// [`App::edit_turn`] as a `Send + 'static` future.
    pub async fn edit_turn(
        self: Arc<Self>,
        session: String,
        turn: u32,
        input: String,
        events: Option<UnboundedSender<TurnEvent>>,
    ) -> Result<TurnView, AppError> {
        self.0.edit_turn(&session, turn, &input, events).await
    }

    /// [`App::swipe`] as a `Send + 'static` future.
    pub async fn swipe(
        self: Arc<Self>,
        session: String,
        number: Option<u32>,
    ) -> Result<SessionView, AppError> {
        self.0.swipe(&session, number).await
    }

    /// [`App::edit_narration`] as a `Send + 'static` future.
    pub async fn edit_narration(
        self: Arc<Self>,
        session: String,
        turn: u32,
        text: String,
    ) -> Result<SessionView, AppError> {
        self.0.edit_narration(&session, turn, &text).await
    }
}

impl Deref for SharedApp {
    type Target = App;
    fn deref(&self) -> &App {
        &self.0
    }
}

/// Whether `path` lies inside one of `folders` (after resolving `..` and
/// links), so that the window never reads files outside them.
pub fn is_inside(path: &Path, folders: &[PathBuf]) -> bool {
    let Ok(real) = path.canonicalize() else {
        return false;
    };
    folders.iter().any(|f| {
        f.canonicalize()
            .map(|root| real.starts_with(root))
            .unwrap_or(false)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shell's async commands need futures it can send between threads.
    #[test]
    fn turn_controls_are_send_and_static() {
        fn shell_can_await<F: std::future::Future + Send + 'static>(_: F) {}
        let dir = tempfile::tempdir().unwrap();
        let app = Arc::new(SharedApp(
            App::open(AppConfig {
                session_db: SessionDb::Memory,
                skills_state: SkillChoices::ReadOnly(dir.path().join("state.json")),
                ..AppConfig::default()
            })
            .unwrap(),
        ));
        let id = || "story".to_string();
        shell_can_await(Arc::clone(&app).play("go".into(), None));
        shell_can_await(Arc::clone(&app).regenerate_narration(id(), None));
        shell_can_await(Arc::clone(&app).continue_narration(id(), None));
        shell_can_await(Arc::clone(&app).regenerate_turn(id(), None));
        shell_can_await(Arc::clone(&app).edit_turn(id(), 1, "go".into(), None));
        let roll = crate::corrections::MechanicsChange::Needed("dice-roller".into());
        shell_can_await(Arc::clone(&app).correct_turn(id(), roll, None));
        shell_can_await(Arc::clone(&app).swipe(id(), None));
        shell_can_await(Arc::clone(&app).edit_narration(id(), 1, "text".into()));
    }

    #[test]
    fn inside_refuses_escapes() {
        let dir = tempfile::tempdir().unwrap();
        let skills = dir.path().join("skills");
        std::fs::create_dir_all(skills.join("a")).unwrap();
        std::fs::write(skills.join("a/x.png"), b"x").unwrap();
        std::fs::write(dir.path().join("secret"), b"x").unwrap();
        let folders = vec![skills.clone()];
        assert!(is_inside(&skills.join("a/x.png"), &folders));
        assert!(!is_inside(&skills.join("../secret"), &folders));
        assert!(!is_inside(&skills.join("a/missing.png"), &folders));
    }
}
