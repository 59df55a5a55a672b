//! `key=value` assignments, as the CLI takes them, applied to a skill's settings.

use serde_json::{Map, Value};

use super::ConfigError;

/// Applies `key=value` assignments (dotted keys reach nested settings) to
/// `config`, typing each value by the schema: numbers, booleans and JSON for
/// non-string settings, the raw text for strings. An empty value removes a
/// non-string setting.
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

/// `raw` as the setting's schema types it: the text itself for strings and
/// `${VAR}` placeholders, parsed JSON otherwise (the text when it is not JSON).
fn typed_value(schema: Option<&Value>, raw: &str) -> Value {
    let ty = schema.and_then(|s| s.get("type")).and_then(Value::as_str);
    if ty == Some("string") || raw.contains("${") {
        return Value::String(raw.to_string());
    }
    serde_json::from_str::<Value>(raw).unwrap_or_else(|_| Value::String(raw.to_string()))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::test_schema::schema;
    use super::*;

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
