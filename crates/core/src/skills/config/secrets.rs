//! Secret settings (`format: "password"` or `writeOnly`): where they are,
//! redacted wherever config is shown, and scrubbed out of what scripts print.

use serde_json::Value;

use crate::skills::manifest::escape_pointer;

/// What stands in for a secret wherever config is shown.
pub const REDACTED: &str = "••••••••";

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
            let p = format!("{pointer}/{}", escape_pointer(key));
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::test_schema::schema;
    use super::*;

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
}
