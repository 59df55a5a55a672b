//! A turn written out as a run folder for a bug report
//! (docs/observability.md, "A turn's run folder"): the turn is found by its
//! number on the session's current branch, as the other story commands
//! address turns, and every secret setting of every skill is scrubbed out.
//! Plain functions over a store and a skill catalog, which the terminal
//! command calls directly and [`App`] calls with its own.

use std::path::{Path, PathBuf};

use narratoria_core::run_folder::{self, RunFolderError};
use narratoria_core::skills::config::{self, secret_values, PlayerSettings};
use narratoria_core::skills::Catalog;
use narratoria_core::store::{Store, StoreError};
use narratoria_core::sync;
use serde::Serialize;

use crate::{App, AppError};

impl From<RunFolderError> for AppError {
    fn from(e: RunFolderError) -> Self {
        AppError::new(e.code(), e.to_string())
    }
}

/// What writing a run folder did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunExported {
    /// The folder written.
    pub path: PathBuf,
    pub run_id: String,
    /// The turn's trace id, when it kept a trace.
    pub trace_id: Option<String>,
    /// The files in it.
    pub files: Vec<String>,
}

/// Where the desktop writes run folders: `<user data>/runs`.
pub fn runs_dir() -> PathBuf {
    narratoria_core::paths::user_data_dir().join("runs")
}

/// The values of every secret setting (`format: "password"` or `writeOnly`)
/// of every skill in `catalog`: as its scripts receive them (the shipped
/// settings, the player's from `settings_dir` — the user's folder when
/// `None` — with their allowed `${VAR}`s filled in, defaults applied) and as
/// they are stored, so that a value is known even when the settings do not
/// resolve. Longest first, each once.
pub fn skill_secrets(catalog: &Catalog, settings_dir: Option<&Path>) -> Vec<String> {
    let env = |k: &str| std::env::var(k).ok();
    let mut out = Vec::new();
    for skill in catalog.skills() {
        let Some(schema) = &skill.config_schema else {
            continue;
        };
        let player = PlayerSettings::for_skill(settings_dir, &skill.name)
            .ok()
            .flatten();
        let stored = config::merged(
            skill.user_config.as_ref(),
            player.as_ref().map(|p| &p.settings),
        );
        out.extend(secret_values(
            schema,
            &config::with_defaults(schema, &stored),
        ));
        if let Ok(resolved) = config::resolve(
            Some(schema),
            skill.user_config.as_ref(),
            player.as_ref(),
            &env,
        ) {
            out.extend(secret_values(schema, &resolved));
        }
    }
    out.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    out.dedup();
    out
}

/// Writes turn `turn` (its number on the current branch of `session`) as a
/// run folder at `dir`, which must not exist or be empty, with every value
/// in `secrets` scrubbed out. A turn that is not there is
/// `session_not_found`; a folder with something in it, or a file that would
/// hold a secret, `export_refused` (nothing is written).
pub fn export_run(
    store: &Store,
    session: &str,
    turn: u32,
    dir: &Path,
    secrets: &[String],
) -> Result<RunExported, AppError> {
    let record = store
        .turns(session)?
        .into_iter()
        .find(|t| t.number == turn)
        .ok_or_else(|| StoreError::NoTurn {
            session: session.to_string(),
            turn,
        })?;
    let folder = run_folder::build(session, &record, secrets);
    let path = folder.write(dir)?;
    Ok(RunExported {
        path,
        run_id: folder.run_id.clone(),
        trace_id: record.trace.map(|t| t.trace_id),
        files: folder.files().into_iter().map(|(n, _)| n.into()).collect(),
    })
}

/// A folder under `runs` not yet taken for turn `turn` of `session`:
/// `<session>-turn-<N>`, then `-2`, `-3`… after it.
fn fresh_folder(runs: &Path, session: &str, turn: u32) -> PathBuf {
    let short: String = session
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .take(8)
        .collect();
    let base = format!("{short}-turn-{turn}");
    let mut dir = runs.join(&base);
    let mut n = 2;
    while dir.exists() {
        dir = runs.join(format!("{base}-{n}"));
        n += 1;
    }
    dir
}

impl App {
    /// The values of every secret setting of this app's skills (see [`skill_secrets`]).
    pub fn skill_secrets(&self) -> Vec<String> {
        skill_secrets(&self.registry.snapshot(), self.skill_settings.as_deref())
    }

    /// [`export_run`] with this app's store and skills' secrets.
    pub fn export_run(
        &self,
        session: &str,
        turn: u32,
        dir: &Path,
    ) -> Result<RunExported, AppError> {
        let secrets = self.skill_secrets();
        export_run(&sync::lock(&self.store), session, turn, dir, &secrets)
    }

    /// [`App::export_run`] into a new folder under `runs` (the desktop
    /// passes [`runs_dir`]), for a bug report.
    pub fn export_run_into(
        &self,
        runs: &Path,
        session: &str,
        turn: u32,
    ) -> Result<RunExported, AppError> {
        self.export_run(session, turn, &fresh_folder(runs, session, turn))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use narratoria_core::error::ErrorCode;

    /// An app over `dir` whose skill `keeper` has a secret `token`: shipped
    /// in its folder, and the player's own in their settings.
    fn app_with_a_secret(dir: &Path) -> App {
        let root = crate::tests::skill_folder(dir, "keeper");
        std::fs::write(
            root.join("config-schema.json"),
            r#"{"type":"object","properties":{"token":{"type":"string","format":"password"},"name":{"type":"string"}}}"#,
        )
        .unwrap();
        std::fs::write(
            root.join("config.json"),
            r#"{"token":"shipped-token-1","name":"plain words"}"#,
        )
        .unwrap();
        let settings = dir.join("skill-settings");
        std::fs::create_dir_all(&settings).unwrap();
        std::fs::write(
            settings.join("keeper.json"),
            r#"{"settings":{"token":"players-own-token"}}"#,
        )
        .unwrap();
        crate::tests::app_in(dir)
    }

    #[test]
    fn every_skills_secret_values_are_listed() {
        let dir = tempfile::tempdir().unwrap();
        let app = app_with_a_secret(dir.path());
        assert_eq!(app.skill_secrets(), vec!["players-own-token".to_string()]);
    }

    #[tokio::test]
    async fn a_played_turn_is_written_out_without_the_secret_the_player_typed() {
        let dir = tempfile::tempdir().unwrap();
        let app = app_with_a_secret(dir.path());
        let played = app.play("I whisper players-own-token", None).await.unwrap();
        let runs = dir.path().join("runs");
        let out = app.export_run_into(&runs, &played.session, 1).unwrap();
        assert!(out.path.starts_with(&runs));
        assert_eq!(out.run_id, played.turn.id);
        assert_eq!(out.files.len(), 5);
        for file in &out.files {
            let text = std::fs::read_to_string(out.path.join(file)).unwrap();
            assert!(!text.contains("players-own-token"), "{file}: {text}");
        }
        let again = app.export_run_into(&runs, &played.session, 1).unwrap();
        assert_ne!(again.path, out.path, "a second export gets its own folder");
    }

    #[test]
    fn a_missing_turn_and_a_full_folder_are_clear_errors() {
        let dir = tempfile::tempdir().unwrap();
        let app = app_with_a_secret(dir.path());
        let id = app.new_session("t").unwrap().session.id;
        let err = app.export_run(&id, 1, &dir.path().join("run")).unwrap_err();
        assert_eq!(err.code, ErrorCode::SessionNotFound, "{err}");
        assert!(err.message.contains("no turn 1"), "{err}");
        assert!(!dir.path().join("run").exists());
    }

    #[tokio::test]
    async fn a_folder_with_something_in_it_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let app = app_with_a_secret(dir.path());
        let played = app.play("I look around", None).await.unwrap();
        let full = dir.path().join("full");
        std::fs::create_dir(&full).unwrap();
        std::fs::write(full.join("notes.txt"), "mine").unwrap();
        let err = app.export_run(&played.session, 1, &full).unwrap_err();
        assert_eq!(err.code, ErrorCode::ExportRefused, "{err}");
        assert_eq!(std::fs::read_dir(&full).unwrap().count(), 1);
    }

    #[test]
    fn fresh_folders_do_not_collide() {
        let dir = tempfile::tempdir().unwrap();
        let first = fresh_folder(dir.path(), "ab-cd-ef", 2);
        assert_eq!(first, dir.path().join("abcdef-turn-2"));
        std::fs::create_dir(&first).unwrap();
        assert_eq!(
            fresh_folder(dir.path(), "ab-cd-ef", 2),
            dir.path().join("abcdef-turn-2-2")
        );
    }
}
