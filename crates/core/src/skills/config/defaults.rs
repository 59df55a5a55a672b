//! Schema defaults filled into a skill's settings.

use serde_json::{Map, Value};

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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::test_schema::schema;
    use super::*;

    #[test]
    fn defaults_fill_missing_fields_recursively() {
        let v = with_defaults(&schema(), &json!({"endpoint": "e", "sides": 6}));
        assert_eq!(
            v,
            json!({"endpoint": "e", "sides": 6, "mode": "fair", "nested": {"depth": 3}})
        );
    }
}
