//! JSON Schema validation with pointer-located errors (the contract
//! schemas themselves are listed in `contracts.rs`).

use serde_json::{Map, Value};

use crate::error::FieldError;

/// Compiles a schema with format checking on (`uuid`, `email`, …); unknown
/// formats such as `password` are accepted as annotations.
pub fn compile(schema: &Value) -> Result<jsonschema::Validator, String> {
    jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .map_err(|e| e.to_string())
}

/// Every way `value` breaks the schema, each located by JSON pointer.
pub fn validation_errors(validator: &jsonschema::Validator, value: &Value) -> Vec<FieldError> {
    validator
        .iter_errors(value)
        .map(|e| FieldError {
            pointer: e.instance_path().to_string(),
            message: e.to_string(),
        })
        .collect()
}

/// Clips each top-level string of `input` to the `maxLength` its property
/// in `schema` declares (whole characters, an ellipsis marking the cut;
/// [`narratoria_lexicon::clip_to`]). Promises: every such string then
/// meets its `maxLength`; nothing else changes. For what the host writes
/// into a script's input from text it does not bound itself (the player's
/// words, a turn's account).
pub fn fit_lengths(input: &mut Map<String, Value>, schema: &Value) {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    for (key, value) in input.iter_mut() {
        let max = props
            .get(key)
            .and_then(|p| p.get("maxLength"))
            .and_then(Value::as_u64)
            .and_then(|m| usize::try_from(m).ok());
        if let (Some(max), Value::String(text)) = (max, &mut *value) {
            narratoria_lexicon::clip_in_place(text, max);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strings_are_clipped_to_their_declared_max_length_only() {
        let schema = json!({"type": "object", "properties": {
            "reason": {"type": "string", "maxLength": 5},
            "query": {"type": "string"},
            "n": {"type": "integer", "maxLength": 1}
        }});
        let mut input = json!({"reason": "éééééé", "query": "long words", "n": 12345, "x": "free"})
            .as_object()
            .unwrap()
            .clone();
        fit_lengths(&mut input, &schema);
        assert_eq!(
            Value::Object(input.clone()),
            json!({"reason": "éééé…", "query": "long words", "n": 12345, "x": "free"})
        );
        let validator = compile(&schema).unwrap();
        assert!(validation_errors(&validator, &Value::Object(input)).is_empty());
    }
}
