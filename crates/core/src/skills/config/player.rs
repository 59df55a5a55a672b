//! The player's own settings of a skill, kept in the player's data folder
//! (`<user data>/skill-settings/<skill>.json`), never in the skill folder:
//!
//! ```json
//! {"settings": {"apiKey": "${OPENAI_API_KEY}"}, "allowEnv": ["OPENAI_API_KEY"]}
//! ```
//!
//! `settings` override the skill's shipped `config.json`; `allowEnv` lists
//! the environment variables the player lets `${VAR}` read for this skill.
//! Only these settings are expanded: a `${VAR}` in a schema default or a
//! shipped `config.json` stays as written.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{validate, validate_stored, with_defaults, ConfigError};
use crate::fs::write_atomically;

/// One skill's settings as the player wrote them, and the environment
/// variables the player allowed it to read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlayerSettings {
    #[serde(default = "empty_object")]
    pub settings: Value,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow_env: Vec<String>,
}

fn empty_object() -> Value {
    Value::Object(Map::new())
}

impl Default for PlayerSettings {
    fn default() -> Self {
        PlayerSettings {
            settings: empty_object(),
            allow_env: Vec::new(),
        }
    }
}

/// Whether `name` can be an environment variable named in `${…}`.
pub fn valid_var_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl PlayerSettings {
    /// The default folder: `<user data>/skill-settings`.
    pub fn default_dir() -> PathBuf {
        crate::paths::user_data_dir().join("skill-settings")
    }

    /// The file of skill `skill` in `dir` (`None` for a name that is not a
    /// plain file name).
    pub fn file_in(dir: &Path, skill: &str) -> Option<PathBuf> {
        crate::fs::child(dir, &format!("{skill}.json")).ok()
    }

    /// The player's settings of skill `skill`, from `dir` (the default
    /// folder when `None`); `None` when the player set nothing.
    pub fn for_skill(
        dir: Option<&Path>,
        skill: &str,
    ) -> Result<Option<PlayerSettings>, ConfigError> {
        let dir = dir.map_or_else(PlayerSettings::default_dir, Path::to_path_buf);
        match PlayerSettings::file_in(&dir, skill) {
            Some(path) => PlayerSettings::load(&path),
            None => Ok(None),
        }
    }

    /// Reads the file; a missing file is `None`.
    pub fn load(path: &Path) -> Result<Option<PlayerSettings>, ConfigError> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => {
                return Err(ConfigError::Io {
                    path: path.to_path_buf(),
                    message: e.to_string(),
                })
            }
        };
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| ConfigError::Io {
                path: path.to_path_buf(),
                message: format!("not valid player settings: {e}"),
            })
    }

    /// Lets `${name}` read the environment variable `name` for this skill.
    pub fn allow(&mut self, name: &str) -> Result<(), ConfigError> {
        if !valid_var_name(name) {
            return Err(ConfigError::BadAssignment(format!(
                "{name:?} is not an environment variable name (letters, digits, _)"
            )));
        }
        if !self.allow_env.iter().any(|a| a == name) {
            self.allow_env.push(name.to_string());
        }
        Ok(())
    }

    /// Takes back the permission to read `name`.
    pub fn revoke(&mut self, name: &str) {
        self.allow_env.retain(|a| a != name);
    }

    /// Checks the settings over the skill's shipped ones against `schema`
    /// and, when valid, writes them to `path` atomically with mode 0600 (the
    /// file is the player's own and may hold secrets).
    pub fn save(
        &self,
        path: &Path,
        schema: Option<&Value>,
        shipped: Option<&Value>,
    ) -> Result<(), ConfigError> {
        if let Some(schema) = schema {
            validate_stored(schema, &merged(shipped, Some(&self.settings)))?;
        }
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| ConfigError::Io {
                path: dir.to_path_buf(),
                message: e.to_string(),
            })?;
        }
        let mut text = serde_json::to_string_pretty(self).expect("settings serialise");
        text.push('\n');
        write_atomically(path, text.as_bytes(), true).map_err(|e| ConfigError::Io {
            path: path.to_path_buf(),
            message: e.to_string(),
        })
    }
}

/// The settings as stored: the skill's shipped `config.json` with the
/// player's settings laid over it (objects merge key by key).
pub fn merged(shipped: Option<&Value>, player: Option<&Value>) -> Value {
    let mut out = shipped.cloned().unwrap_or_else(empty_object);
    if !out.is_object() {
        out = empty_object();
    }
    if let Some(p) = player {
        lay_over(&mut out, p);
    }
    out
}

fn lay_over(base: &mut Value, top: &Value) {
    match (base, top) {
        (Value::Object(b), Value::Object(t)) => {
            for (k, v) in t {
                match b.get_mut(k) {
                    Some(slot) => lay_over(slot, v),
                    None => {
                        b.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (slot, v) => *slot = v.clone(),
    }
}

/// The config a script receives: the shipped settings, the player's settings
/// over them with `${VAR}` filled in from the variables the player allowed
/// (`lookup` is asked for no other), then schema defaults, validated.
pub fn resolve(
    schema: Option<&Value>,
    shipped: Option<&Value>,
    player: Option<&PlayerSettings>,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Value, ConfigError> {
    let own = match player {
        Some(p) => Some(super::vars::substitute_allowed(
            &p.settings,
            &p.allow_env,
            lookup,
        )?),
        None => None,
    };
    let stored = merged(shipped, own.as_ref());
    let Some(schema) = schema else {
        return Ok(stored);
    };
    let resolved = with_defaults(schema, &stored);
    validate(schema, &resolved)?;
    Ok(resolved)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::test_schema::schema;
    use super::*;

    fn env(k: &str) -> Option<String> {
        match k {
            "EP" => Some("http://127.0.0.1:9".into()),
            "HOST_SECRET" => Some("the-host-secret".into()),
            _ => None,
        }
    }

    #[test]
    fn the_players_allowed_variables_are_filled_in() {
        let player = PlayerSettings {
            settings: json!({"endpoint": "${EP}"}),
            allow_env: vec!["EP".into()],
        };
        let r = resolve(Some(&schema()), None, Some(&player), &env).unwrap();
        assert_eq!(r["endpoint"], "http://127.0.0.1:9");
        assert_eq!(r["sides"], 20);
    }

    /// A skill's own default or shipped config.json cannot read the host's environment.
    #[test]
    fn variables_outside_the_players_settings_stay_as_written() {
        let schema = json!({"type": "object", "properties": {
            "a": {"type": "string", "default": "${HOST_SECRET}"},
            "b": {"type": "string"}
        }});
        let shipped = json!({"b": "${HOST_SECRET}"});
        let everything_allowed = PlayerSettings {
            settings: json!({}),
            allow_env: vec!["HOST_SECRET".into()],
        };
        let r = resolve(
            Some(&schema),
            Some(&shipped),
            Some(&everything_allowed),
            &env,
        )
        .unwrap();
        assert_eq!(r, json!({"b": "${HOST_SECRET}", "a": "${HOST_SECRET}"}));
    }

    #[test]
    fn a_variable_the_player_did_not_allow_is_refused() {
        let player = PlayerSettings {
            settings: json!({"endpoint": "${HOST_SECRET}"}),
            allow_env: vec![],
        };
        let e = resolve(Some(&schema()), None, Some(&player), &env).unwrap_err();
        assert_eq!(e.field_errors()[0].pointer, "/endpoint");
        assert!(e.to_string().contains("--allow-env HOST_SECRET"), "{e}");
    }

    #[test]
    fn player_settings_lie_over_the_shipped_ones() {
        let shipped = json!({"endpoint": "shipped", "nested": {"depth": 4}, "mode": "loaded"});
        let player = json!({"endpoint": "mine", "nested": {"depth": 5}});
        assert_eq!(
            merged(Some(&shipped), Some(&player)),
            json!({"endpoint": "mine", "nested": {"depth": 5}, "mode": "loaded"})
        );
    }

    #[test]
    fn saved_settings_are_private_and_validated() {
        let dir = tempfile::tempdir().unwrap();
        let path = PlayerSettings::file_in(&dir.path().join("skill-settings"), "teller").unwrap();
        let mut player = PlayerSettings {
            settings: json!({"endpoint": 5}),
            allow_env: vec![],
        };
        assert!(player.save(&path, Some(&schema()), None).is_err());
        assert!(!path.exists());
        player.settings = json!({"endpoint": "${EP}"});
        player.allow("EP").unwrap();
        assert!(player.allow("NOT A NAME").is_err());
        player.save(&path, Some(&schema()), None).unwrap();
        assert_eq!(PlayerSettings::load(&path).unwrap(), Some(player));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600);
        }
        assert!(PlayerSettings::file_in(dir.path(), "../x").is_none());
    }
}
