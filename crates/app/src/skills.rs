//! The skills: which there are, their health and settings, on or off.

use narratoria_core::error::ErrorCode;
use narratoria_core::skills::config::{self, PlayerSettings, REDACTED};
use narratoria_core::skills::{Registry, SkillChange, SkillsState};
use narratoria_core::store::{SkillStats, StatsQuery};
use narratoria_core::sync;
use serde_json::Value;
use std::sync::Arc;

use crate::{App, AppError, SkillView, SkillsView};

impl App {
    /// The live skill registry.
    pub fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// Changes to the skill folders, as they happen.
    pub fn skill_changes(&self) -> tokio::sync::broadcast::Receiver<SkillChange> {
        self.registry.subscribe()
    }

    /// How the skills' script runs fared in every story of the sessions
    /// database (runs, failures by code, p50/p95 and mean duration, per
    /// skill and per script), narrowed to the runs `query` selects.
    pub fn skill_stats(&self, query: &StatsQuery) -> Result<SkillStats, AppError> {
        Ok(sync::lock(&self.store).skill_stats(query)?)
    }

    /// Every skill with its health, settings (redacted) and schema.
    pub fn skills(&self) -> SkillsView {
        let catalog = self.registry.snapshot();
        let skills = catalog
            .skills()
            .iter()
            .map(|s| {
                let player = self.player_settings(&s.name).unwrap_or_default();
                let stored = config::merged(s.user_config.as_ref(), Some(&player.settings));
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
        self.change_skill_state(|s| s.set_enabled(name, enabled))?;
        Ok(self.skills())
    }

    /// Validates and saves the player's own settings of a skill (never into
    /// the skill folder; see [`PlayerSettings`]). A secret sent back as the
    /// redaction mark keeps its stored value. Nothing is written when invalid.
    pub fn save_skill_config(&self, name: &str, submitted: &Value) -> Result<Value, AppError> {
        let catalog = self.registry.snapshot();
        let skill = catalog.get(name).ok_or_else(|| {
            AppError::new(ErrorCode::SkillNotFound, format!("no skill named {name:?}"))
        })?;
        let path = self.player_settings_file(name)?;
        let mut player = PlayerSettings::load(&path)?.unwrap_or_default();
        let stored = config::merged(skill.user_config.as_ref(), Some(&player.settings));
        let mut next = submitted.clone();
        if let Some(schema) = &skill.config_schema {
            for p in config::secret_pointers(schema, &next) {
                if next.pointer(&p).and_then(Value::as_str) == Some(REDACTED) {
                    if let (Some(slot), Some(old)) = (next.pointer_mut(&p), stored.pointer(&p)) {
                        *slot = old.clone();
                    }
                }
            }
        }
        player.settings = next.clone();
        player.save(
            &path,
            skill.config_schema.as_ref(),
            skill.user_config.as_ref(),
        )?;
        let effective = config::merged(skill.user_config.as_ref(), Some(&next));
        let shown = match &skill.config_schema {
            Some(schema) => config::redact(schema, &config::with_defaults(schema, &effective)),
            None => effective,
        };
        Ok(shown)
    }

    /// The player's own settings of skill `name`, when there are any.
    fn player_settings(&self, name: &str) -> Option<PlayerSettings> {
        let path = self.player_settings_file(name).ok()?;
        PlayerSettings::load(&path).ok().flatten()
    }

    fn player_settings_file(&self, name: &str) -> Result<std::path::PathBuf, AppError> {
        let dir = self
            .skill_settings
            .clone()
            .unwrap_or_else(PlayerSettings::default_dir);
        PlayerSettings::file_in(&dir, name).ok_or_else(|| {
            AppError::new(
                ErrorCode::SkillNotFound,
                format!("{name:?} is not a skill name"),
            )
        })
    }

    /// Applies `change` to the skill choices (on/off, health) in memory and,
    /// unless this app was told not to remember them, to their file: re-read
    /// under its lock, changed and written back, so that a choice another
    /// program saved meanwhile is kept, and applies here from now on.
    pub(crate) fn change_skill_state(
        &self,
        change: impl Fn(&mut SkillsState),
    ) -> Result<(), AppError> {
        let Some(path) = &self.state_path else {
            self.registry.update_state(|s| change(s));
            return Ok(());
        };
        let (written, warning) = SkillsState::update(path, &change).map_err(|e| {
            AppError::new(
                ErrorCode::Io,
                format!("cannot save {}: {e}", path.display()),
            )
        })?;
        if let Some(w) = warning {
            eprintln!("narratoria: note: {w}");
        }
        self.registry.update_state(|s| *s = written);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::tests::{app_in, write_skill};
    use narratoria_core::store::StatsQuery;

    const NARRATES: &str = "#!/usr/bin/env python3\nimport json, sys\nsys.stdin.readline()\n\
         print(json.dumps({'type': 'done', 'ok': True, 'output': {'narrative': 'The door opens.'}}))\n";

    /// The script runs of a turn played through the app are counted from
    /// its sessions database, for every skill or for one.
    #[tokio::test]
    async fn a_played_turns_script_runs_are_counted() {
        let dir = tempfile::tempdir().unwrap();
        write_skill(dir.path(), "storyteller", "narrate.py", NARRATES);
        let app = app_in(dir.path());
        let all = StatsQuery::default();
        assert_eq!(app.skill_stats(&all).unwrap().totals.runs, 0);
        app.play("I open the door", None).await.unwrap();
        let stats = app.skill_stats(&all).unwrap();
        let teller = stats
            .skills
            .iter()
            .find(|s| s.skill == "storyteller")
            .expect("the storyteller ran");
        assert_eq!((teller.stats.runs, teller.stats.failures), (1, 0));
        assert_eq!(teller.scripts[0].script, "narrate");
        let nobody = StatsQuery {
            skill: Some("nobody".into()),
            since_unix_ms: None,
        };
        assert!(app.skill_stats(&nobody).unwrap().skills.is_empty());
    }
}
