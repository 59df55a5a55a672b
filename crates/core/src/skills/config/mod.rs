//! A skill's settings: validated against its `config-schema.json` (draft-07
//! or 2020-12, by the `jsonschema` crate), schema defaults applied, the
//! player's own settings laid over the skill's shipped ones with `${VAR}`
//! taken from the variables the player allowed (never written back), secrets
//! (`format: "password"` or `writeOnly`, anywhere in the schema) redacted
//! wherever they are shown, and saved atomically — an invalid config is
//! never written.

mod assign;
mod defaults;
mod player;
mod secrets;
mod tail;
#[cfg(test)]
mod test_schema;
mod vars;
mod wording;

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::{ErrorCode, FieldError};

pub use self::assign::assign;
pub use self::defaults::with_defaults;
pub use self::player::{merged, resolve, valid_var_name, PlayerSettings};
pub use self::secrets::{
    contains_secret, has_secrets, holds_secret, redact, scrub, scrub_map, scrub_text,
    secret_pointers, secret_values, MIN_SCRUBBED_LEN, REDACTED,
};
pub use self::tail::ScrubbedTail;
pub use self::vars::{substitute_allowed, substitute_env};
pub use crate::fs::write_atomically;

/// Why a config could not be resolved or saved.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ConfigError {
    #[error("the settings are not valid: {}", FieldError::join(.0))]
    Invalid(Vec<FieldError>),
    #[error("the settings schema is not usable: {0}")]
    BadSchema(String),
    #[error("cannot save {path}: {message}")]
    Io { path: PathBuf, message: String },
    #[error("{0}")]
    BadAssignment(String),
}

impl ConfigError {
    /// The stable code the UI and CLI show.
    pub fn code(&self) -> ErrorCode {
        match self {
            ConfigError::Invalid(_) | ConfigError::BadAssignment(_) => ErrorCode::ConfigInvalid,
            ConfigError::BadSchema(_) => ErrorCode::SkillInvalid,
            ConfigError::Io { .. } => ErrorCode::Io,
        }
    }

    /// The field errors, when the settings were invalid.
    pub fn field_errors(&self) -> &[FieldError] {
        match self {
            ConfigError::Invalid(e) => e,
            _ => &[],
        }
    }
}

/// Every way `config` breaks `schema`, each located by JSON pointer and worded
/// for a campaign author.
pub fn validate(schema: &Value, config: &Value) -> Result<(), ConfigError> {
    let validator = crate::schema::compile(schema).map_err(ConfigError::BadSchema)?;
    let errors: Vec<FieldError> = validator
        .iter_errors(config)
        .map(|e| wording::field_error(&e))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(ConfigError::Invalid(errors))
    }
}

/// Checks a config as it would be stored: a `${VAR}` placeholder is accepted
/// wherever it stands, since it is only filled in at resolution time.
pub fn validate_stored(schema: &Value, stored: &Value) -> Result<(), ConfigError> {
    match validate(schema, &with_defaults(schema, stored)) {
        Err(ConfigError::Invalid(errors)) => {
            let placeholder = |p: &str| {
                stored
                    .pointer(p)
                    .and_then(Value::as_str)
                    .is_some_and(|s| s.contains("${"))
            };
            let real: Vec<FieldError> = errors
                .into_iter()
                .filter(|e| !placeholder(&e.pointer))
                .collect();
            if real.is_empty() {
                Ok(())
            } else {
                Err(ConfigError::Invalid(real))
            }
        }
        other => other,
    }
}

/// Validates `config` against `schema` and, only if it is valid, writes it to
/// `path` atomically (temp file, fsync, rename, fsync of the folder). Files of
/// skills that declare secrets are written with mode 0600.
pub fn save(path: &Path, schema: Option<&Value>, config: &Value) -> Result<(), ConfigError> {
    if let Some(schema) = schema {
        validate_stored(schema, config)?;
    }
    let secret = schema.is_some_and(has_secrets);
    let mut text = serde_json::to_string_pretty(config).expect("config serialises");
    text.push('\n');
    write_atomically(path, text.as_bytes(), secret).map_err(|e| ConfigError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::test_schema::schema;
    use super::*;

    #[test]
    fn draft_2020_12_schemas_work_too() {
        let s = json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
                       "properties": {"n": {"type": "number", "exclusiveMaximum": 1}}});
        assert!(validate(&s, &json!({"n": 0.5})).is_ok());
        assert!(validate(&s, &json!({"n": 1})).is_err());
    }

    #[test]
    fn resolve_applies_defaults_env_and_validates() {
        let lookup = |k: &str| (k == "EP").then(|| "http://127.0.0.1:9".to_string());
        let player = |settings: Value| PlayerSettings {
            settings,
            allow_env: vec!["EP".into()],
        };
        let r = resolve(
            Some(&schema()),
            None,
            Some(&player(json!({"endpoint": "${EP}"}))),
            &lookup,
        )
        .unwrap();
        assert_eq!(r["endpoint"], "http://127.0.0.1:9");
        assert_eq!(r["sides"], 20);
        assert!(resolve(
            Some(&schema()),
            None,
            Some(&player(json!({"endpoint": "x", "sides": 0}))),
            &lookup
        )
        .is_err());
    }

    #[test]
    fn save_refuses_invalid_and_keeps_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.json");
        std::fs::write(&path, "{\"endpoint\":\"old\"}\n").unwrap();
        let err = save(&path, Some(&schema()), &json!({"endpoint": 5})).unwrap_err();
        assert_eq!(err.field_errors()[0].pointer, "/endpoint");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "{\"endpoint\":\"old\"}\n"
        );
        save(
            &path,
            Some(&schema()),
            &json!({"endpoint": "new", "apiKey": "${API_KEY}"}),
        )
        .unwrap();
        let saved: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(
            saved["apiKey"], "${API_KEY}",
            "placeholders are stored unresolved"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(
                std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
                0o600
            );
        }
        let leftovers: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().contains("tmp"))
            .collect();
        assert!(leftovers.is_empty());
    }
}
