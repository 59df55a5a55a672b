//! `${VAR}` and `${VAR:-fallback}` in a skill's settings, taken from the
//! environment when the settings are resolved (never written back). Only
//! the player's own settings are expanded, and only with variables the
//! player allowed (see `player.rs`).

use serde_json::Value;

use super::ConfigError;
use crate::error::FieldError;
use crate::skills::manifest::escape_pointer;

/// What a variable named in a setting stands for.
enum Found {
    Value(String),
    Unset,
    NotAllowed,
}

/// Replaces `${VAR}` (and `${VAR:-fallback}`) in every string of `config`
/// with the value `lookup` gives; an unset variable without a fallback is an
/// error naming the field and the variable.
pub fn substitute_env(
    config: &Value,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Value, ConfigError> {
    run(config, &|name| {
        lookup(name).map_or(Found::Unset, Found::Value)
    })
}

/// Like [`substitute_env`], but only variables named in `allowed` are looked
/// up: `lookup` is never asked for any other. A variable that is not allowed
/// takes its fallback, else is an error saying how to allow it.
pub fn substitute_allowed(
    config: &Value,
    allowed: &[String],
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Value, ConfigError> {
    run(config, &|name| {
        if allowed.iter().any(|a| a == name) {
            lookup(name).map_or(Found::Unset, Found::Value)
        } else {
            Found::NotAllowed
        }
    })
}

fn run(config: &Value, lookup: &dyn Fn(&str) -> Found) -> Result<Value, ConfigError> {
    let mut errors = Vec::new();
    let out = substitute(config, "", lookup, &mut errors);
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(ConfigError::Invalid(errors))
    }
}

fn substitute(
    v: &Value,
    pointer: &str,
    lookup: &dyn Fn(&str) -> Found,
    errors: &mut Vec<FieldError>,
) -> Value {
    match v {
        Value::String(s) if s.contains("${") => Value::String(expand(s, pointer, lookup, errors)),
        Value::Array(a) => Value::Array(
            a.iter()
                .enumerate()
                .map(|(i, x)| substitute(x, &format!("{pointer}/{i}"), lookup, errors))
                .collect(),
        ),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| {
                    let p = format!("{pointer}/{}", escape_pointer(k));
                    (k.clone(), substitute(x, &p, lookup, errors))
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `s` with its variables filled in; text that only looks like a variable
/// (`${}`, `${a b}`, an unclosed `${`) stays as written.
fn expand(
    s: &str,
    pointer: &str,
    lookup: &dyn Fn(&str) -> Found,
    errors: &mut Vec<FieldError>,
) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return out;
        };
        let spec = &after[..end];
        let (name, fallback) = match spec.split_once(":-") {
            Some((n, f)) => (n, Some(f)),
            None => (spec, None),
        };
        let valid_name =
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid_name {
            out.push_str(&rest[start..start + 2 + end + 1]);
        } else {
            match (lookup(name), fallback) {
                (Found::Value(v), _) => out.push_str(&v),
                (_, Some(f)) => out.push_str(f),
                (Found::Unset, None) => errors.push(FieldError {
                    pointer: pointer.to_string(),
                    message: format!(
                        "uses ${{{name}}}, but the environment variable {name} is not set"
                    ),
                }),
                (Found::NotAllowed, None) => errors.push(FieldError {
                    pointer: pointer.to_string(),
                    message: format!(
                        "uses ${{{name}}}, but the player has not allowed {name} for this skill (narratoria skills config SKILL --allow-env {name})"
                    ),
                }),
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn env_substitution_and_missing_variables() {
        let lookup = |k: &str| (k == "KEY").then(|| "s3cret".to_string());
        let v = substitute_env(
            &json!({"a": "${KEY}", "b": "x-${KEY}-y", "c": "${NOPE:-dflt}", "d": "$NOTVAR"}),
            &lookup,
        )
        .unwrap();
        assert_eq!(
            v,
            json!({"a": "s3cret", "b": "x-s3cret-y", "c": "dflt", "d": "$NOTVAR"})
        );
        let e = substitute_env(&json!({"k": {"x": "${MISSING}"}}), &lookup).unwrap_err();
        assert_eq!(e.field_errors()[0].pointer, "/k/x");
        assert!(e.field_errors()[0].message.contains("MISSING"));
    }

    #[test]
    fn only_allowed_variables_are_read() {
        let asked = std::cell::RefCell::new(Vec::new());
        let lookup = |k: &str| {
            asked.borrow_mut().push(k.to_string());
            Some(format!("<{k}>"))
        };
        let allowed = ["MINE".to_string()];
        let v = substitute_allowed(
            &json!({"a": "${MINE}", "b": "${HOST_SECRET:-none}"}),
            &allowed,
            &lookup,
        )
        .unwrap();
        assert_eq!(v, json!({"a": "<MINE>", "b": "none"}));
        let e = substitute_allowed(&json!({"c": "${HOST_SECRET}"}), &allowed, &lookup).unwrap_err();
        assert_eq!(e.field_errors()[0].pointer, "/c");
        assert!(e.field_errors()[0]
            .message
            .contains("--allow-env HOST_SECRET"));
        assert_eq!(*asked.borrow(), vec!["MINE".to_string()]);
    }
}
