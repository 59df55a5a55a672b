//! Skill health and the user's per-skill choices
//! (enabled or not), kept in one small file so they survive restarts.
//!
//! Transitions, counted over tool results (a tool result already includes its
//! retries):
//! - any failure counts one more consecutive failure; a success resets the count;
//! - healthy → temporaryFailure on a transient failure (timeout, signal,
//!   `TIMEOUT`, `EXTERNAL_SERVICE_ERROR`, `RATE_EXCEEDED`);
//! - healthy → degraded after 3 consecutive failures;
//! - degraded → permanentFailure after 3 more;
//! - temporaryFailure → permanentFailure once its retries are exhausted:
//!   3 consecutive failures in all;
//! - degraded or temporaryFailure → healthy on a success;
//! - permanentFailure stays until a new session starts.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::Catalog;
use crate::protocol::FailureCode;
use crate::result::{ExecutionResult, ExecutionState, ToolErrorType, ToolResult};

/// A skill's current health.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase")]
pub enum ErrorState {
    #[default]
    Healthy,
    Degraded,
    TemporaryFailure,
    PermanentFailure,
}

/// How many consecutive failures move a skill one step down.
pub const FAILURES_PER_STEP: u32 = 3;

/// One skill's health and its failure streak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Health {
    pub error_state: ErrorState,
    pub consecutive_failures: u32,
}

/// What one tool result says about its skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Success,
    Transient,
    Failure,
}

impl Outcome {
    /// The outcome of a tool result; `None` when the tool never ran (skipped,
    /// not found, disabled), which says nothing about the skill's health.
    pub fn of(tool: &ToolResult) -> Option<Outcome> {
        match tool.state {
            ExecutionState::Completed => Some(Outcome::Success),
            ExecutionState::Timeout => Some(Outcome::Transient),
            ExecutionState::Failed => {
                let e = tool.error.as_ref()?;
                match e.error_type {
                    ToolErrorType::ToolNotFound
                    | ToolErrorType::SkillDisabled
                    | ToolErrorType::DependencyFailed => None,
                    ToolErrorType::Timeout | ToolErrorType::Signal => Some(Outcome::Transient),
                    _ if matches!(
                        e.code.as_deref().and_then(FailureCode::parse),
                        Some(
                            FailureCode::Timeout
                                | FailureCode::ExternalServiceError
                                | FailureCode::RateExceeded
                        )
                    ) =>
                    {
                        Some(Outcome::Transient)
                    }
                    _ => Some(Outcome::Failure),
                }
            }
            _ => None,
        }
    }
}

impl Health {
    /// Applies one outcome (see the module's transition table).
    pub fn record(&mut self, outcome: Outcome) {
        use ErrorState::*;
        if self.error_state == PermanentFailure {
            return;
        }
        if outcome == Outcome::Success {
            *self = Health::default();
            return;
        }
        self.consecutive_failures += 1;
        let streak = self.consecutive_failures;
        self.error_state = match (self.error_state, outcome) {
            (Healthy, _) if streak >= FAILURES_PER_STEP => {
                self.consecutive_failures = 0;
                Degraded
            }
            (Healthy, Outcome::Transient) => TemporaryFailure,
            (Healthy, _) => Healthy,
            (TemporaryFailure, _) if streak >= FAILURES_PER_STEP => PermanentFailure,
            (Degraded, _) if streak >= FAILURES_PER_STEP => PermanentFailure,
            (state, _) => state,
        };
    }
}

/// The user's skill choices and the current session's health, as stored.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillsState {
    /// Skills the user turned off.
    #[serde(default)]
    pub disabled: BTreeSet<String>,
    /// The session the health below belongs to.
    #[serde(default)]
    pub session: Option<String>,
    #[serde(default)]
    pub health: BTreeMap<String, Health>,
}

/// A health change worth telling the UI about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct HealthChange {
    pub skill: String,
    pub from: ErrorState,
    pub to: ErrorState,
}

impl SkillsState {
    /// The default file: `<user data>/skills-state.json`.
    pub fn default_path() -> PathBuf {
        crate::paths::user_data_dir().join("skills-state.json")
    }

    /// Loads the state; a missing file is the default state, and an unreadable
    /// one is moved aside (`.corrupt`) rather than overwritten, with the reason.
    pub fn load(path: &Path) -> (SkillsState, Option<String>) {
        match SkillsState::read(path) {
            Ok(read) => read,
            Err(e) => (
                SkillsState::default(),
                Some(format!("cannot read {}: {e}", path.display())),
            ),
        }
    }

    /// Like [`SkillsState::load`], but a file that exists and cannot be read
    /// is an error rather than the default state.
    fn read(path: &Path) -> std::io::Result<(SkillsState, Option<String>)> {
        let text = match std::fs::read_to_string(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok((SkillsState::default(), None))
            }
            Err(e) => return Err(e),
            Ok(text) => text,
        };
        Ok(match serde_json::from_str(&text) {
            Ok(s) => (s, None),
            Err(e) => {
                let aside = path.with_extension("json.corrupt");
                let _ = std::fs::rename(path, &aside);
                (
                    SkillsState::default(),
                    Some(format!(
                        "{} was not valid ({e}); kept as {}",
                        path.display(),
                        aside.display()
                    )),
                )
            }
        })
    }

    /// Re-reads the state at `path`, applies `change` and writes it back,
    /// holding the file's lock throughout, so that a change another thread or
    /// program made meanwhile (a `skills disable` during a turn) is kept.
    /// Returns the state as written and, when the file was not valid, why.
    /// A file that exists but cannot be read is left alone.
    pub fn update(
        path: &Path,
        change: impl FnOnce(&mut SkillsState),
    ) -> std::io::Result<(SkillsState, Option<String>)> {
        let _held = crate::file_lock::lock_exclusive(path)?;
        let (mut state, warning) = SkillsState::read(path)?;
        change(&mut state);
        state.save(path)?;
        Ok((state, warning))
    }

    /// Saves the state atomically.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut text = serde_json::to_string_pretty(self).expect("state serialises");
        text.push('\n');
        crate::fs::write_atomically(path, text.as_bytes(), false)
    }

    /// Marks the catalog's skills enabled or not and sets their health.
    pub fn apply(&self, catalog: &mut Catalog) {
        let names: Vec<String> = catalog.skills().iter().map(|s| s.name.clone()).collect();
        for name in names {
            if let Some(skill) = catalog.get_mut(&name) {
                skill.enabled = !self.disabled.contains(&name);
                skill.error_state = self
                    .health
                    .get(&name)
                    .map(|h| h.error_state)
                    .unwrap_or_default();
            }
        }
    }

    /// Turns a skill on or off.
    pub fn set_enabled(&mut self, name: &str, enabled: bool) {
        if enabled {
            self.disabled.remove(name);
        } else {
            self.disabled.insert(name.to_string());
        }
    }

    /// Starts (or continues) a session: health is reset when the session changes.
    pub fn enter_session(&mut self, session: &str) {
        if self.session.as_deref() != Some(session) {
            self.session = Some(session.to_string());
            self.health.clear();
        }
    }

    /// Feeds one plan's results into the skills' health; returns what changed.
    pub fn record(&mut self, result: &ExecutionResult) -> Vec<HealthChange> {
        let mut changes = Vec::new();
        for tool in &result.execution_trace {
            let (Some(skill), Some(outcome)) = (&tool.skill, Outcome::of(tool)) else {
                continue;
            };
            let h = self.health.entry(skill.clone()).or_default();
            let from = h.error_state;
            h.record(outcome);
            if h.error_state != from {
                changes.push(HealthChange {
                    skill: skill.clone(),
                    from,
                    to: h.error_state,
                });
            }
        }
        self.health.retain(|_, h| *h != Health::default());
        changes
    }

    /// Skills that must go into a plan's `disabledSkills`.
    pub fn permanently_failed(&self) -> Vec<String> {
        self.health
            .iter()
            .filter(|(_, h)| h.error_state == ErrorState::PermanentFailure)
            .map(|(n, _)| n.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ErrorState::*;

    fn run(outcomes: &[Outcome]) -> ErrorState {
        let mut h = Health::default();
        for &o in outcomes {
            h.record(o);
        }
        h.error_state
    }

    #[test]
    fn transient_failure_is_temporary_and_success_heals() {
        assert_eq!(run(&[Outcome::Transient]), TemporaryFailure);
        assert_eq!(run(&[Outcome::Transient, Outcome::Success]), Healthy);
    }

    #[test]
    fn temporary_failure_becomes_permanent_when_retries_run_out() {
        assert_eq!(
            run(&[Outcome::Transient, Outcome::Transient]),
            TemporaryFailure
        );
        assert_eq!(
            run(&[Outcome::Transient, Outcome::Transient, Outcome::Transient]),
            PermanentFailure
        );
    }

    #[test]
    fn three_failures_degrade_three_more_are_permanent() {
        let f = Outcome::Failure;
        assert_eq!(run(&[f, f]), Healthy);
        assert_eq!(run(&[f, f, f]), Degraded);
        assert_eq!(run(&[f, f, f, Outcome::Success]), Healthy);
        assert_eq!(run(&[f, f, f, f, f]), Degraded);
        assert_eq!(run(&[f, f, f, f, f, f]), PermanentFailure);
    }

    #[test]
    fn permanent_failure_lasts_until_a_new_session() {
        let mut state = SkillsState::default();
        state.enter_session("s1");
        state.health.insert(
            "dice".into(),
            Health {
                error_state: PermanentFailure,
                consecutive_failures: 0,
            },
        );
        let mut h = state.health["dice"];
        h.record(Outcome::Success);
        assert_eq!(h.error_state, PermanentFailure);
        assert_eq!(state.permanently_failed(), vec!["dice".to_string()]);
        state.enter_session("s1");
        assert_eq!(state.permanently_failed().len(), 1);
        state.enter_session("s2");
        assert!(state.permanently_failed().is_empty());
    }

    #[test]
    fn script_failures_with_a_transient_code_are_transient() {
        let failed = |code: Option<&str>| ToolResult {
            tool_id: "t".into(),
            tool_path: None,
            skill: Some("dice".into()),
            ok: false,
            state: ExecutionState::Failed,
            output: None,
            events: Vec::new(),
            execution_time_ms: 0,
            span_id: None,
            started_at_ms: Some(0),
            retry_count: 0,
            error: Some(crate::result::ToolError {
                error_type: ToolErrorType::ScriptError,
                message: "m".into(),
                exit_code: Some(1),
                code: code.map(String::from),
                recoverable: true,
            }),
            stderr: String::new(),
        };
        for code in ["TIMEOUT", "EXTERNAL_SERVICE_ERROR", "RATE_EXCEEDED"] {
            assert_eq!(Outcome::of(&failed(Some(code))), Some(Outcome::Transient));
        }
        for code in [
            Some("VALIDATION_ERROR"),
            Some("timeout"),
            Some("MADE_UP"),
            None,
        ] {
            assert_eq!(
                Outcome::of(&failed(code)),
                Some(Outcome::Failure),
                "{code:?}"
            );
        }
    }

    #[test]
    fn state_file_round_trips_and_corrupt_files_are_kept_aside() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("skills-state.json");
        let mut s = SkillsState::default();
        s.set_enabled("memory", false);
        s.save(&path).unwrap();
        let (loaded, warning) = SkillsState::load(&path);
        assert!(warning.is_none());
        assert!(loaded.disabled.contains("memory"));
        std::fs::write(&path, "{not json").unwrap();
        let (loaded, warning) = SkillsState::load(&path);
        assert_eq!(loaded, SkillsState::default());
        assert!(warning.unwrap().contains("corrupt"));
        assert!(path.with_extension("json.corrupt").exists());
    }

    /// Writers that each change one entry at the same time keep every change.
    #[test]
    fn concurrent_updates_keep_every_change() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("skills-state.json");
        std::thread::scope(|s| {
            for t in 0..4 {
                let path = &path;
                s.spawn(move || {
                    for i in 0..25 {
                        SkillsState::update(path, |state| {
                            state.set_enabled(&format!("skill-{t}-{i}"), false)
                        })
                        .unwrap();
                    }
                });
            }
        });
        let (state, warning) = SkillsState::load(&path);
        assert!(warning.is_none());
        assert_eq!(state.disabled.len(), 100);
    }

    /// A turn that saves its skills' health does not undo a choice made
    /// while it ran.
    #[test]
    fn an_update_keeps_what_another_writer_saved_meanwhile() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("skills-state.json");
        let at_turn_start = SkillsState::load(&path).0;
        SkillsState::update(&path, |s| s.set_enabled("dice-roller", false)).unwrap();
        let mut health = at_turn_start.health.clone();
        health.insert("storyteller".into(), Health::default());
        let (written, _) = SkillsState::update(&path, |s| s.health = health).unwrap();
        assert!(written.disabled.contains("dice-roller"));
        assert!(SkillsState::load(&path).0.disabled.contains("dice-roller"));
    }

    #[cfg(unix)]
    #[test]
    fn an_unreadable_file_is_not_overwritten() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("skills-state.json");
        // A folder in the file's place cannot be read as a file.
        std::fs::create_dir(&path).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(SkillsState::update(&path, |s| s.set_enabled("x", false)).is_err());
        assert!(path.is_dir());
    }
}
