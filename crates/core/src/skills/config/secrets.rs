//! Secret settings (`format: "password"` or `writeOnly`): where they are,
//! redacted wherever config is shown, and scrubbed out of what scripts print.
//!
//! A secret counts wherever the schema declares it: under `properties`, in
//! array `items` (or `prefixItems`), behind a local `$ref`, in
//! `additionalProperties` or `patternProperties`, or in any branch of
//! `allOf`/`anyOf`/`oneOf`/`if`/`then`/`else`. Where the schema leaves a
//! doubt (a pattern, a branch that may not apply), the value counts as secret.

use serde_json::{Map, Value};

use crate::skills::manifest::escape_pointer;

/// What stands in for a secret wherever config is shown.
pub const REDACTED: &str = "••••••••";

/// Shortest secret value that is scrubbed out of text (shorter ones would
/// blank out ordinary words).
pub const MIN_SCRUBBED_LEN: usize = 4;

/// How deep `$ref`s and nested schemas are followed (a `$ref` cycle stops here).
const MAX_DEPTH: usize = 64;

/// JSON pointers of every secret the schema declares, for values present in
/// `config`.
pub fn secret_pointers(schema: &Value, config: &Value) -> Vec<String> {
    let mut out = Vec::new();
    collect_secrets(schema, schema, config, "", 0, &mut out);
    let mut seen = std::collections::HashSet::new();
    out.retain(|p| seen.insert(p.clone()));
    out
}

fn is_secret(schema: &Value) -> bool {
    schema.get("format").and_then(Value::as_str) == Some("password")
        || schema.get("writeOnly").and_then(Value::as_bool) == Some(true)
}

/// The schema a local `$ref` (`#`, `#/definitions/x`, `#/$defs/x`) names.
fn follow_ref<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    root.pointer(&percent_decode(pointer))
}

/// `%XX` escapes of a URI fragment decoded (JSON pointers in `$ref` are URI fragments).
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && bytes[i + 1].is_ascii_hexdigit()
            && bytes[i + 2].is_ascii_hexdigit()
        {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("00");
            out.push(u8::from_str_radix(hex, 16).unwrap_or(0));
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn collect_secrets(
    root: &Value,
    schema: &Value,
    value: &Value,
    pointer: &str,
    depth: usize,
    out: &mut Vec<String>,
) {
    if depth > MAX_DEPTH || !schema.is_object() {
        return;
    }
    if is_secret(schema) {
        out.push(pointer.to_string());
        return;
    }
    let next = depth + 1;
    if let Some(target) = schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| follow_ref(root, r))
    {
        collect_secrets(root, target, value, pointer, next, out);
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        for branch in schema
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            collect_secrets(root, branch, value, pointer, next, out);
        }
    }
    for key in ["if", "then", "else"] {
        if let Some(branch) = schema.get(key) {
            collect_secrets(root, branch, value, pointer, next, out);
        }
    }
    for branch in schema
        .get("dependentSchemas")
        .or_else(|| schema.get("dependencies"))
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(Map::values)
    {
        collect_secrets(root, branch, value, pointer, next, out);
    }
    match value {
        Value::Object(obj) => object_secrets(root, schema, obj, pointer, next, out),
        Value::Array(items) => array_secrets(root, schema, items, pointer, next, out),
        _ => {}
    }
}

fn object_secrets(
    root: &Value,
    schema: &Value,
    obj: &Map<String, Value>,
    pointer: &str,
    depth: usize,
    out: &mut Vec<String>,
) {
    let props = schema.get("properties").and_then(Value::as_object);
    let patterns = schema.get("patternProperties").and_then(Value::as_object);
    let rest = ["additionalProperties", "unevaluatedProperties"]
        .iter()
        .filter_map(|k| schema.get(*k))
        .filter(|s| s.is_object());
    let rest: Vec<&Value> = rest.collect();
    for (key, v) in obj {
        let p = format!("{pointer}/{}", escape_pointer(key));
        if let Some(prop) = props.and_then(|ps| ps.get(key)) {
            collect_secrets(root, prop, v, &p, depth, out);
        }
        // Patterns are not evaluated here: every pattern's schema is taken
        // to apply, which can only redact more.
        for prop in patterns.into_iter().flat_map(Map::values) {
            collect_secrets(root, prop, v, &p, depth, out);
        }
        if props.is_none_or(|ps| !ps.contains_key(key)) {
            for prop in &rest {
                collect_secrets(root, prop, v, &p, depth, out);
            }
        }
    }
}

fn array_secrets(
    root: &Value,
    schema: &Value,
    items: &[Value],
    pointer: &str,
    depth: usize,
    out: &mut Vec<String>,
) {
    let tuple = schema
        .get("prefixItems")
        .or_else(|| schema.get("items").filter(|i| i.is_array()))
        .and_then(Value::as_array);
    let every = ["items", "additionalItems", "unevaluatedItems", "contains"]
        .iter()
        .filter_map(|k| schema.get(*k))
        .filter(|s| s.is_object())
        .collect::<Vec<_>>();
    for (i, v) in items.iter().enumerate() {
        let p = format!("{pointer}/{i}");
        if let Some(item) = tuple.and_then(|t| t.get(i)) {
            collect_secrets(root, item, v, &p, depth, out);
        }
        for item in &every {
            collect_secrets(root, item, v, &p, depth, out);
        }
    }
}

/// Whether the schema declares a secret anywhere at all.
pub fn has_secrets(schema: &Value) -> bool {
    match schema {
        Value::Object(m) => is_secret(schema) || m.values().any(has_secrets),
        Value::Array(a) => a.iter().any(has_secrets),
        _ => false,
    }
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
/// script prints: every string and number inside a secret setting.
pub fn secret_values(schema: &Value, resolved: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for p in secret_pointers(schema, resolved) {
        if let Some(v) = resolved.pointer(&p) {
            texts_of(v, &mut out);
        }
    }
    out.retain(|s| s.len() >= MIN_SCRUBBED_LEN);
    // Longest first, so that a secret containing another is scrubbed whole.
    out.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    out.dedup();
    out
}

fn texts_of(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Number(n) => out.push(n.to_string()),
        Value::Array(a) => a.iter().for_each(|x| texts_of(x, out)),
        Value::Object(m) => m.values().for_each(|x| texts_of(x, out)),
        _ => {}
    }
}

/// Replaces every occurrence of a secret inside the strings of `value`,
/// object keys included.
pub fn scrub(value: &mut Value, secrets: &[String]) {
    if secrets.is_empty() {
        return;
    }
    match value {
        Value::String(s) => scrub_text(s, secrets),
        Value::Array(a) => a.iter_mut().for_each(|v| scrub(v, secrets)),
        Value::Object(m) => scrub_map(m, secrets),
        _ => {}
    }
}

/// [`scrub`] for every key and value of an object.
pub fn scrub_map(map: &mut Map<String, Value>, secrets: &[String]) {
    if secrets.is_empty() {
        return;
    }
    if map.keys().any(|k| contains_secret(k, secrets)) {
        let old = std::mem::take(map);
        for (mut k, v) in old {
            scrub_text(&mut k, secrets);
            map.insert(k, v);
        }
    }
    map.values_mut().for_each(|v| scrub(v, secrets));
}

/// Whether a string of `value`, or a key of one of its objects, holds one
/// of `secrets`: where [`scrub`] would replace something. JSON's own
/// literals (`true`, `null`, numbers) are never a secret's.
pub fn holds_secret(value: &Value, secrets: &[String]) -> bool {
    match value {
        Value::String(s) => contains_secret(s, secrets),
        Value::Array(a) => a.iter().any(|v| holds_secret(v, secrets)),
        Value::Object(m) => m
            .iter()
            .any(|(k, v)| contains_secret(k, secrets) || holds_secret(v, secrets)),
        Value::Null | Value::Bool(_) | Value::Number(_) => false,
    }
}

/// Whether `text` holds one of `secrets` (an empty one holds nothing).
pub fn contains_secret(text: &str, secrets: &[String]) -> bool {
    secrets
        .iter()
        .any(|s| !s.is_empty() && text.contains(s.as_str()))
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

    /// Secrets declared in array items, behind `$ref`, in
    /// `additionalProperties`, `patternProperties` and `allOf` count too.
    #[test]
    fn secrets_anywhere_in_the_schema_are_found() {
        let schema = json!({
            "type": "object",
            "definitions": {"token": {"type": "string", "format": "password"}},
            "$defs": {"wrapped": {"$ref": "#/definitions/token"}},
            "properties": {
                "keys": {"type": "array", "items": {"type": "string", "writeOnly": true}},
                "pair": {"type": "array", "items": [{"type": "string"}, {"$ref": "#/definitions/token"}]},
                "byHost": {"type": "object", "additionalProperties": {"$ref": "#/$defs/wrapped"}},
                "patterned": {"type": "object", "patternProperties": {"^k": {"format": "password"}}},
                "mixed": {"allOf": [{"type": "object"}, {"properties": {"pin": {"writeOnly": true}}}]},
                "plain": {"type": "string"}
            }
        });
        assert!(has_secrets(&schema));
        let cfg = json!({
            "keys": ["key-one", "key-two"],
            "pair": ["public", "pair-secret"],
            "byHost": {"example.org": "host-secret"},
            "patterned": {"k1": "pattern-secret"},
            "mixed": {"pin": 123456},
            "plain": "visible"
        });
        let shown = redact(&schema, &cfg);
        assert_eq!(
            shown,
            json!({
                "keys": [REDACTED, REDACTED],
                "pair": ["public", REDACTED],
                "byHost": {"example.org": REDACTED},
                "patterned": {"k1": REDACTED},
                "mixed": {"pin": REDACTED},
                "plain": "visible"
            })
        );
        let values = secret_values(&schema, &cfg);
        for s in [
            "key-one",
            "key-two",
            "pair-secret",
            "host-secret",
            "pattern-secret",
            "123456",
        ] {
            assert!(
                values.contains(&s.to_string()),
                "{s} missing from {values:?}"
            );
        }
        assert!(!values.contains(&"visible".to_string()));
    }

    #[test]
    fn a_ref_cycle_ends() {
        let schema = json!({"$ref": "#", "properties": {"a": {"$ref": "#"}}});
        let cfg = json!({"a": {"a": {"a": "x"}}});
        assert!(secret_pointers(&schema, &cfg).is_empty());
        assert!(!has_secrets(&schema));
    }

    #[test]
    fn keys_are_scrubbed_too() {
        let mut v = json!({"hunter22": {"note": "say hunter22"}});
        scrub(&mut v, &["hunter22".to_string()]);
        assert_eq!(v, json!({REDACTED: {"note": format!("say {REDACTED}")}}));
    }
}
