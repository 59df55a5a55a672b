//! A skill's settings: validated against its `config-schema.json` (draft-07
//! or 2020-12, by the `jsonschema` crate), schema defaults applied, `${VAR}`
//! taken from the environment when resolved (never written back), secrets
//! (`format: "password"`) redacted wherever they are shown, and saved
//! atomically — an invalid config is never written.

use std::io::Write;
use std::path::{Path, PathBuf};

use jsonschema::error::{TypeKind, ValidationErrorKind};
use serde_json::{Map, Value};

use crate::error::{ErrorCode, FieldError};

/// What stands in for a secret wherever config is shown.
pub const REDACTED: &str = "••••••••";

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
        .map(|e| friendly(&e))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(ConfigError::Invalid(errors))
    }
}

fn friendly(e: &jsonschema::ValidationError<'_>) -> FieldError {
    let pointer = e.instance_path().to_string();
    let got = short(e.instance());
    let (pointer, message) = match e.kind() {
        ValidationErrorKind::Required { property } => {
            let name = property
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| property.to_string());
            (
                format!("{pointer}/{}", super::manifest::escape_pointer(&name)),
                "is required".to_string(),
            )
        }
        ValidationErrorKind::Type { kind } => {
            let want = match kind {
                TypeKind::Single(t) => article(&t.to_string()),
                TypeKind::Multiple(ts) => format!("one of the types {ts:?}"),
            };
            (pointer, format!("must be {want}, not {got}"))
        }
        ValidationErrorKind::Enum { options } => {
            let list = options.as_array().map(|a| {
                a.iter()
                    .map(|o| o.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            });
            (
                pointer,
                format!(
                    "must be one of {}, not {got}",
                    list.unwrap_or_else(|| options.to_string())
                ),
            )
        }
        ValidationErrorKind::Minimum { limit } => {
            (pointer, format!("must be at least {limit}, not {got}"))
        }
        ValidationErrorKind::Maximum { limit } => {
            (pointer, format!("must be at most {limit}, not {got}"))
        }
        ValidationErrorKind::ExclusiveMinimum { limit } => {
            (pointer, format!("must be more than {limit}, not {got}"))
        }
        ValidationErrorKind::ExclusiveMaximum { limit } => {
            (pointer, format!("must be less than {limit}, not {got}"))
        }
        ValidationErrorKind::MinLength { limit } => {
            (pointer, format!("must be at least {limit} characters long"))
        }
        ValidationErrorKind::MaxLength { limit } => {
            (pointer, format!("must be at most {limit} characters long"))
        }
        ValidationErrorKind::Pattern { pattern } => {
            (pointer, format!("must match the pattern {pattern}"))
        }
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            let names = unexpected.join(", ");
            let at = if unexpected.len() == 1 {
                format!(
                    "{pointer}/{}",
                    super::manifest::escape_pointer(&unexpected[0])
                )
            } else {
                pointer
            };
            (
                at,
                format!("unknown setting {names} (not in the settings schema)"),
            )
        }
        ValidationErrorKind::Format { format } => (pointer, format!("must be a valid {format}")),
        _ => (pointer, e.to_string()),
    };
    FieldError { pointer, message }
}

fn article(t: &str) -> String {
    match t {
        "integer" | "object" | "array" => format!("an {t}"),
        "null" => "null".into(),
        _ => format!("a {t}"),
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s
    }
}

/// `config` with every missing property that has a schema `default` filled
/// in, recursively through nested objects.
pub fn with_defaults(schema: &Value, config: &Value) -> Value {
    let mut out = if config.is_null() {
        Value::Object(Map::new())
    } else {
        config.clone()
    };
    fill_defaults(schema, &mut out);
    out
}

fn fill_defaults(schema: &Value, value: &mut Value) {
    let (Some(props), Value::Object(obj)) =
        (schema.get("properties").and_then(Value::as_object), value)
    else {
        return;
    };
    for (key, prop) in props {
        match obj.get_mut(key) {
            Some(v) => fill_defaults(prop, v),
            None => {
                if let Some(d) = prop.get("default") {
                    let mut d = d.clone();
                    fill_defaults(prop, &mut d);
                    obj.insert(key.clone(), d);
                } else if prop.get("type").and_then(Value::as_str) == Some("object")
                    && prop.get("properties").is_some()
                {
                    let mut nested = Value::Object(Map::new());
                    fill_defaults(prop, &mut nested);
                    if nested.as_object().is_some_and(|m| !m.is_empty()) {
                        obj.insert(key.clone(), nested);
                    }
                }
            }
        }
    }
}

/// Replaces `${VAR}` (and `${VAR:-fallback}`) in every string of `config`
/// with the value `lookup` gives; an unset variable without a fallback is an
/// error naming the field and the variable.
pub fn substitute_env(
    config: &Value,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Value, ConfigError> {
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
    lookup: &dyn Fn(&str) -> Option<String>,
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
                    let p = format!("{pointer}/{}", super::manifest::escape_pointer(k));
                    (k.clone(), substitute(x, &p, lookup, errors))
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

fn expand(
    s: &str,
    pointer: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
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
                (Some(v), _) => out.push_str(&v),
                (None, Some(f)) => out.push_str(f),
                (None, None) => errors.push(FieldError {
                    pointer: pointer.to_string(),
                    message: format!(
                        "uses ${{{name}}}, but the environment variable {name} is not set"
                    ),
                }),
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

/// JSON pointers of every secret (`format: "password"` or `writeOnly`) the
/// schema declares, for values present in `config`.
pub fn secret_pointers(schema: &Value, config: &Value) -> Vec<String> {
    let mut out = Vec::new();
    collect_secrets(schema, config, "", &mut out);
    out
}

fn is_secret(schema: &Value) -> bool {
    schema.get("format").and_then(Value::as_str) == Some("password")
        || schema.get("writeOnly").and_then(Value::as_bool) == Some(true)
}

fn collect_secrets(schema: &Value, value: &Value, pointer: &str, out: &mut Vec<String>) {
    let (Some(props), Value::Object(obj)) =
        (schema.get("properties").and_then(Value::as_object), value)
    else {
        return;
    };
    for (key, prop) in props {
        if let Some(v) = obj.get(key) {
            let p = format!("{pointer}/{}", super::manifest::escape_pointer(key));
            if is_secret(prop) {
                out.push(p);
            } else {
                collect_secrets(prop, v, &p, out);
            }
        }
    }
}

/// Whether the schema declares any secret at all.
pub fn has_secrets(schema: &Value) -> bool {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|props| props.values().any(|p| is_secret(p) || has_secrets(p)))
}

/// `config` with every secret replaced by [`REDACTED`] (empty secrets stay empty).
pub fn redact(schema: &Value, config: &Value) -> Value {
    let mut out = config.clone();
    for p in secret_pointers(schema, config) {
        if let Some(v) = out.pointer_mut(&p) {
            if !matches!(v, Value::String(s) if s.is_empty()) && !v.is_null() {
                *v = Value::String(REDACTED.into());
            }
        }
    }
    out
}

/// The secret values of a resolved config, to be scrubbed from anything a
/// script prints.
pub fn secret_values(schema: &Value, resolved: &Value) -> Vec<String> {
    secret_pointers(schema, resolved)
        .iter()
        .filter_map(|p| resolved.pointer(p))
        .filter_map(|v| match v {
            Value::String(s) if s.len() >= 4 => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()).filter(|s| s.len() >= 4),
            _ => None,
        })
        .collect()
}

/// Replaces every occurrence of a secret inside the strings of `value`.
pub fn scrub(value: &mut Value, secrets: &[String]) {
    match value {
        Value::String(s) => scrub_text(s, secrets),
        Value::Array(a) => a.iter_mut().for_each(|v| scrub(v, secrets)),
        Value::Object(m) => m.values_mut().for_each(|v| scrub(v, secrets)),
        _ => {}
    }
}

/// Replaces every occurrence of a secret in `text`.
pub fn scrub_text(text: &mut String, secrets: &[String]) {
    for secret in secrets {
        if text.contains(secret.as_str()) {
            *text = text.replace(secret.as_str(), REDACTED);
        }
    }
}

/// The config a script receives: stored config, schema defaults, then the
/// environment's `${VAR}`s, validated.
pub fn resolve(
    schema: Option<&Value>,
    stored: Option<&Value>,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Value, ConfigError> {
    let stored = stored.cloned().unwrap_or_else(|| Value::Object(Map::new()));
    let Some(schema) = schema else {
        return substitute_env(&stored, lookup);
    };
    let resolved = substitute_env(&with_defaults(schema, &stored), lookup)?;
    validate(schema, &resolved)?;
    Ok(resolved)
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

/// Replaces `path` with `bytes` so that a crash leaves either the old or the
/// new file, never a mix.
pub fn write_atomically(path: &Path, bytes: &[u8], private: bool) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "config.json".into());
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| {
        let mut opts = std::fs::OpenOptions::new();
        opts.write(true).create(true).truncate(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            opts.mode(if private { 0o600 } else { 0o644 });
        }
        let mut f = opts.open(&tmp)?;
        #[cfg(unix)]
        if private {
            use std::os::unix::fs::PermissionsExt;
            f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
        }
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, path)?;
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Applies `key=value` assignments (dotted keys reach nested settings) to
/// `config`, typing each value by the schema: numbers, booleans and JSON for
/// non-string settings, the raw text for strings.
pub fn assign(
    schema: Option<&Value>,
    config: &Value,
    assignments: &[String],
) -> Result<Value, ConfigError> {
    let mut out = if config.is_object() {
        config.clone()
    } else {
        Value::Object(Map::new())
    };
    for a in assignments {
        let Some((key, raw)) = a.split_once('=') else {
            return Err(ConfigError::BadAssignment(format!(
                "{a:?} is not of the form key=value"
            )));
        };
        let parts: Vec<&str> = key.split('.').collect();
        if parts.iter().any(|p| p.is_empty()) {
            return Err(ConfigError::BadAssignment(format!(
                "{key:?} is not a setting name"
            )));
        }
        let mut prop_schema = schema;
        for p in &parts {
            prop_schema = prop_schema
                .and_then(|s| s.get("properties"))
                .and_then(|ps| ps.get(*p));
        }
        let value = typed_value(prop_schema, raw);
        let mut cur = &mut out;
        for (i, p) in parts.iter().enumerate() {
            let obj = match cur {
                Value::Object(m) => m,
                _ => {
                    return Err(ConfigError::BadAssignment(format!(
                        "{key:?}: {p:?} is inside a setting that is not an object"
                    )))
                }
            };
            if i + 1 == parts.len() {
                if raw.is_empty()
                    && prop_schema
                        .and_then(|s| s.get("type"))
                        .and_then(Value::as_str)
                        != Some("string")
                {
                    obj.remove(*p);
                } else {
                    obj.insert(p.to_string(), value.clone());
                }
                break;
            }
            cur = obj
                .entry(p.to_string())
                .or_insert_with(|| Value::Object(Map::new()));
        }
    }
    Ok(out)
}

fn typed_value(schema: Option<&Value>, raw: &str) -> Value {
    let ty = schema.and_then(|s| s.get("type")).and_then(Value::as_str);
    if ty == Some("string") || raw.contains("${") {
        return Value::String(raw.to_string());
    }
    serde_json::from_str::<Value>(raw).unwrap_or_else(|_| Value::String(raw.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {
                "sides": {"type": "integer", "minimum": 2, "maximum": 100, "default": 20},
                "mode": {"type": "string", "enum": ["fair", "loaded"], "default": "fair"},
                "apiKey": {"type": "string", "format": "password"},
                "endpoint": {"type": "string"},
                "nested": {"type": "object", "properties": {"depth": {"type": "integer", "default": 3}}}
            },
            "required": ["endpoint"],
            "additionalProperties": false
        })
    }

    fn errs(r: Result<(), ConfigError>) -> Vec<FieldError> {
        r.unwrap_err().field_errors().to_vec()
    }

    #[test]
    fn wrong_type_enum_range_required_unknown_are_named() {
        let e = errs(validate(
            &schema(),
            &json!({"sides": "six", "mode": "odd", "bogus": 1}),
        ));
        let by = |p: &str| {
            e.iter()
                .find(|x| x.pointer == p)
                .map(|x| x.message.clone())
                .unwrap_or_default()
        };
        assert!(by("/sides").contains("must be an integer"), "{e:?}");
        assert!(
            by("/mode").contains("must be one of \"fair\", \"loaded\""),
            "{e:?}"
        );
        assert!(by("/endpoint").contains("required"), "{e:?}");
        assert!(by("/bogus").contains("unknown setting"), "{e:?}");
        let e = errs(validate(&schema(), &json!({"sides": 1, "endpoint": "x"})));
        assert_eq!(e[0].pointer, "/sides");
        assert!(e[0].message.contains("at least 2"), "{e:?}");
    }

    #[test]
    fn draft_2020_12_schemas_work_too() {
        let s = json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
                       "properties": {"n": {"type": "number", "exclusiveMaximum": 1}}});
        assert!(validate(&s, &json!({"n": 0.5})).is_ok());
        assert!(validate(&s, &json!({"n": 1})).is_err());
    }

    #[test]
    fn defaults_fill_missing_fields_recursively() {
        let v = with_defaults(&schema(), &json!({"endpoint": "e", "sides": 6}));
        assert_eq!(
            v,
            json!({"endpoint": "e", "sides": 6, "mode": "fair", "nested": {"depth": 3}})
        );
    }

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
    fn resolve_applies_defaults_env_and_validates() {
        let lookup = |k: &str| (k == "EP").then(|| "http://127.0.0.1:9".to_string());
        let r = resolve(
            Some(&schema()),
            Some(&json!({"endpoint": "${EP}"})),
            &lookup,
        )
        .unwrap();
        assert_eq!(r["endpoint"], "http://127.0.0.1:9");
        assert_eq!(r["sides"], 20);
        assert!(resolve(
            Some(&schema()),
            Some(&json!({"endpoint": "x", "sides": 0})),
            &lookup
        )
        .is_err());
    }

    #[test]
    fn secrets_are_redacted_and_listed() {
        let cfg = json!({"apiKey": "sk-12345", "endpoint": "e"});
        assert_eq!(
            redact(&schema(), &cfg),
            json!({"apiKey": REDACTED, "endpoint": "e"})
        );
        assert_eq!(secret_values(&schema(), &cfg), vec!["sk-12345".to_string()]);
        assert!(has_secrets(&schema()));
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

    #[test]
    fn interrupted_write_leaves_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.json");
        std::fs::write(&path, "old").unwrap();
        // A rename onto a path whose parent is not a folder fails after the temp write.
        let bad = dir.path().join("config.json").join("x.json");
        assert!(write_atomically(&bad, b"new", false).is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
    }

    #[test]
    fn assignments_are_typed_by_the_schema() {
        let v = assign(
            Some(&schema()),
            &json!({}),
            &[
                "sides=12".into(),
                "mode=loaded".into(),
                "endpoint=42".into(),
                "nested.depth=5".into(),
            ],
        )
        .unwrap();
        assert_eq!(
            v,
            json!({"sides": 12, "mode": "loaded", "endpoint": "42", "nested": {"depth": 5}})
        );
        assert!(assign(Some(&schema()), &json!({}), &["novalue".into()]).is_err());
        let v = assign(Some(&schema()), &json!({"sides": 3}), &["sides=".into()]).unwrap();
        assert_eq!(v, json!({}));
    }
}
