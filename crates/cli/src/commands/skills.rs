//! `narratoria skills list|check`

use std::path::Path;
use std::process::ExitCode;

use narratoria_core::skills::{check_skill, Problem, SkillsState};
use narratoria_core::ErrorCode;
use serde_json::json;

use super::common::{discover, print_json, CliError};
use crate::cli::SkillRoots;

/// `skills list [--json]`: every discovered skill, and the folders passed over.
pub fn list(roots: &SkillRoots, as_json: bool) -> Result<ExitCode, CliError> {
    let catalog = discover(roots)?;
    if as_json {
        let skills: Vec<_> = catalog.skills().iter().map(|s| s.summary()).collect();
        print_json(
            &json!({ "skills": skills, "problems": catalog.problems, "overrides": catalog.overrides }),
        );
    } else {
        for s in catalog.skills() {
            let scripts: Vec<String> = s
                .scripts
                .iter()
                .map(|sc| {
                    if sc.is_executable {
                        sc.name.clone()
                    } else {
                        format!("{} (not executable)", sc.name)
                    }
                })
                .collect();
            let line = format!(
                "{:<20} {:<8} {:<8} {:?}  {}\n{:<20} scripts: {}",
                s.name,
                s.version,
                if s.enabled { "enabled" } else { "disabled" },
                s.error_state,
                s.description,
                "",
                if scripts.is_empty() {
                    "(none: prompt-only)".to_string()
                } else {
                    scripts.join(", ")
                }
            );
            say!("{line}");
        }
        for o in &catalog.overrides {
            let line = format!(
                "override: {} at {} replaces {}",
                o.name,
                o.path.display(),
                o.overridden_path.display()
            );
            say!("{line}");
        }
        for p in &catalog.problems {
            let line = format!("problem: {}: {}", p.path.display(), p.reason);
            say!("{line}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `skills check DIR`: 0 when the folder is a valid skill, 1 with every problem otherwise.
pub fn check(dir: &Path) -> Result<ExitCode, CliError> {
    let (name, problems, advice): (Option<String>, Vec<Problem>, Vec<String>) =
        match check_skill(dir) {
            Ok(skill) => {
                let advice = super::example_advice::advice(&skill);
                (Some(skill.name), Vec::new(), advice)
            }
            Err(problems) => (None, problems, Vec::new()),
        };
    for a in &advice {
        tell!("warning: {a}");
    }
    let corrections = name.as_deref().map(corrections_naming).unwrap_or_default();
    let valid = problems.is_empty();
    let listed: Vec<_> = problems
        .iter()
        .map(|p| json!({"path": p.path, "message": p.reason}))
        .collect();
    let corrected: Vec<_> = corrections
        .iter()
        .map(|(story, c)| json!({"story": story, "correction": c}))
        .collect();
    print_json(&json!({
        "valid": valid, "name": name, "path": dir, "problems": listed, "warnings": advice,
        "corrections": corrected,
    }));
    if valid {
        let line = format!(
            "{}: valid skill {:?}",
            dir.display(),
            name.unwrap_or_default()
        );
        tell!("{line}");
        if !corrections.is_empty() {
            tell!(
                "{} correction(s) players made in their stories name it (routing examples of those stories; /corrections remove ID in the story takes one back):",
                corrections.len()
            );
            for (story, c) in &corrections {
                let line = super::story_controls::correction_line(c);
                tell!("  {:>3}  {line}  (in “{story}”)", c.id);
            }
        }
        Ok(ExitCode::SUCCESS)
    } else {
        let line = format!("{}: {} problem(s):", dir.display(), problems.len());
        tell!("{line}");
        for p in &problems {
            let line = format!("  - {}: {}", p.path.display(), p.reason);
            tell!("{line}");
        }
        Ok(ExitCode::from(1))
    }
}

/// The corrections players made in the stories of the sessions database
/// that name `skill`, each with its story's title; none when there is no
/// database yet (checking a skill creates none) or it cannot be read (said).
fn corrections_naming(
    skill: &str,
) -> Vec<(String, narratoria_core::skills::corrections::Correction)> {
    let path = narratoria_app::locate::sessions_db();
    if !path.exists() {
        return Vec::new();
    }
    match narratoria_core::store::Store::open(&path).and_then(|s| s.corrections_naming(skill)) {
        Ok(found) => found,
        Err(e) => {
            tell!("warning: the players' corrections could not be read: {e}");
            Vec::new()
        }
    }
}

/// `skills watch`: one JSON line per change, until interrupted.
pub fn watch(roots: &SkillRoots) -> Result<ExitCode, CliError> {
    use narratoria_core::skills::Registry;
    let dirs = narratoria_app::locate::skill_roots(&roots.skills);
    let registry = Registry::open(&dirs, super::common::user_state())
        .map_err(|e| CliError::usage(ErrorCode::SkillsDirUnusable, e.to_string()))?;
    let mut rx = registry.subscribe();
    let _watch = registry
        .watch(std::time::Duration::from_millis(75))
        .map_err(|e| CliError::usage(ErrorCode::SkillsDirUnusable, e.to_string()))?;
    tell!(
        "narratoria: watching {} skill(s) in {}; one JSON line per change (Ctrl-C to stop)",
        registry.snapshot().skills().len(),
        dirs.iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let rt = super::common::runtime();
    rt.block_on(async move {
        loop {
            match rx.recv().await {
                Ok(change) => {
                    crate::terminal::json_line(&change);
                }
                Err(tokio::sync::broadcast::error::RecvError::Lagged(n)) => {
                    tracing::warn!("{n} changes were too fast to print");
                }
                Err(_) => break,
            }
        }
    });
    Ok(ExitCode::SUCCESS)
}

/// What `skills config` is asked to change in the player's own settings.
pub struct ConfigChange {
    /// `key=value` assignments.
    pub set: Vec<String>,
    /// Environment variables `${VAR}` may now read.
    pub allow_env: Vec<String>,
    /// Environment variables `${VAR}` may no longer read.
    pub revoke_env: Vec<String>,
}

impl ConfigChange {
    fn is_empty(&self) -> bool {
        self.set.is_empty() && self.allow_env.is_empty() && self.revoke_env.is_empty()
    }
}

/// `skills config NAME [--set k=v…] [--allow-env VAR…] [--revoke-env VAR…] [--json]`:
/// shows the settings (secrets redacted) or changes the player's own
/// settings file (`<user data>/skill-settings/NAME.json`, mode 0600); the
/// skill folder is never written.
pub fn config(
    name: &str,
    roots: &SkillRoots,
    change: &ConfigChange,
    as_json: bool,
) -> Result<ExitCode, CliError> {
    use narratoria_core::skills::config::{self as cfg, PlayerSettings};
    let catalog = discover(roots)?;
    let skill = catalog.get(name).ok_or_else(|| {
        CliError::usage(
            ErrorCode::SkillNotFound,
            format!("no skill named {name:?} in the skills folders"),
        )
    })?;
    let schema = skill.config_schema.as_ref();
    let shipped = skill.user_config.as_ref();
    let settings_path =
        PlayerSettings::file_in(&PlayerSettings::default_dir(), name).ok_or_else(|| {
            CliError::usage(
                ErrorCode::SkillNotFound,
                format!("{name:?} is not a skill name"),
            )
        })?;
    let io_error = |e: cfg::ConfigError| CliError::usage(e.code(), e.to_string());
    let mut player = PlayerSettings::load(&settings_path)
        .map_err(io_error)?
        .unwrap_or_default();

    if !change.is_empty() {
        player.settings = cfg::assign(schema, &player.settings, &change.set)
            .map_err(|e| CliError::usage(e.code(), e.to_string()))?;
        for var in &change.allow_env {
            player.allow(var).map_err(io_error)?;
        }
        for var in &change.revoke_env {
            player.revoke(var);
        }
        if let Err(e) = player.save(&settings_path, schema, shipped) {
            let errors: Vec<_> = e
                .field_errors()
                .iter()
                .map(|f| json!({"pointer": f.pointer, "message": f.message}))
                .collect();
            if as_json {
                print_json(
                    &json!({"skill": name, "saved": false, "error": e.to_string(), "errors": errors}),
                );
            }
            tell!("narratoria: settings of {name:?} not saved:");
            if e.field_errors().is_empty() {
                tell!("  - {e}");
            }
            for f in e.field_errors() {
                tell!("  - {f}");
            }
            return Ok(ExitCode::from(1));
        }
        tell!("narratoria: saved {}", settings_path.display());
    }

    let stored = cfg::merged(shipped, Some(&player.settings));
    let effective = schema
        .map(|s| cfg::with_defaults(s, &stored))
        .unwrap_or_else(|| stored.clone());
    let shown = schema
        .map(|s| cfg::redact(s, &effective))
        .unwrap_or_else(|| effective.clone());
    if as_json {
        print_json(&json!({
            "skill": name,
            "path": settings_path,
            "saved": !change.is_empty(),
            "config": shown,
            "stored": schema.map(|s| cfg::redact(s, &stored)).unwrap_or(stored),
            "allowEnv": player.allow_env,
            "schema": schema,
        }));
    } else {
        say!("{name} settings ({}):", settings_path.display());
        match shown.as_object() {
            Some(m) if !m.is_empty() => {
                for (k, v) in m {
                    let title = schema
                        .and_then(|s| s.pointer(&format!("/properties/{k}/title")))
                        .and_then(|t| t.as_str())
                        .map(|t| format!("  — {t}"))
                        .unwrap_or_default();
                    say!("  {k} = {v}{title}");
                }
            }
            _ => say!("  (no settings)"),
        }
        if !player.allow_env.is_empty() {
            say!(
                "  environment variables allowed: {}",
                player.allow_env.join(", ")
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `skills enable|disable NAME`: remembered in the user's skill state.
pub fn set_enabled(name: &str, roots: &SkillRoots, enabled: bool) -> Result<ExitCode, CliError> {
    let catalog = discover(roots)?;
    if catalog.get(name).is_none() {
        return Err(CliError::usage(
            ErrorCode::SkillNotFound,
            format!("no skill named {name:?} in the skills folders"),
        ));
    }
    let path = narratoria_app::locate::skills_state_file();
    // Re-read under the file's lock: a turn running meanwhile keeps this choice.
    let (_, warning) = SkillsState::update(&path, |state| state.set_enabled(name, enabled))
        .map_err(|e| {
            CliError::usage(
                ErrorCode::Io,
                format!("cannot save {}: {e}", path.display()),
            )
        })?;
    if let Some(w) = warning {
        tell!("narratoria: note: {w}");
    }
    tell!(
        "narratoria: {name} {}",
        if enabled { "enabled" } else { "disabled" }
    );
    Ok(ExitCode::SUCCESS)
}
