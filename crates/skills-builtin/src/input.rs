//! Validation of a script's `input` (and config) against a JSON Schema.

use serde_json::{json, Value};

use crate::error::SkillError;

/// Checks `value` against `schema`; on failure the error is a non-recoverable
/// VALIDATION_ERROR whose message names each offending field (`what` says
/// whether it is the input or the config) and whose details list them.
pub fn validate(schema: &Value, value: &Value, what: &str) -> Result<(), SkillError> {
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .map_err(|e| SkillError::internal(format!("the {what} schema is not usable: {e}")))?;
    let problems: Vec<(String, String)> = validator
        .iter_errors(value)
        .map(|e| (field_name(&e.instance_path().to_string()), e.to_string()))
        .collect();
    if problems.is_empty() {
        return Ok(());
    }
    let message = problems
        .iter()
        .map(|(field, msg)| format!("{what}{field}: {msg}"))
        .collect::<Vec<_>>()
        .join("; ");
    let details = json!({
        "fields": problems
            .iter()
            .map(|(f, m)| json!({"field": f, "message": m}))
            .collect::<Vec<_>>()
    });
    Err(SkillError::validation(message).with_details(details))
}

/// `/a/0/b` → `.a[0].b`; the root → ``.
fn field_name(pointer: &str) -> String {
    pointer
        .split('/')
        .skip(1)
        .map(|t| {
            let t = t.replace("~1", "/").replace("~0", "~");
            if t.parse::<usize>().is_ok() {
                format!("[{t}]")
            } else {
                format!(".{t}")
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_offending_field() {
        let schema = json!({
            "type": "object",
            "properties": {"formula": {"type": "string"}, "seed": {"type": "integer"}},
            "required": ["formula"],
            "additionalProperties": false
        });
        assert!(validate(&schema, &json!({"formula": "1d6"}), "input").is_ok());
        let e = validate(&schema, &json!({"formula": 3}), "input").unwrap_err();
        assert!(e.message.contains("input.formula"), "{}", e.message);
        assert!(!e.recoverable);
        let e = validate(&schema, &json!({}), "input").unwrap_err();
        assert!(e.message.contains("formula"), "{}", e.message);
    }

    #[test]
    fn pointer_becomes_a_field_path() {
        assert_eq!(field_name("/a/0/b"), ".a[0].b");
        assert_eq!(field_name(""), "");
    }
}
