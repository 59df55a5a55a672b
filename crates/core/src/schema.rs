//! JSON Schema validation with pointer-located errors (the contract
//! schemas themselves are listed in `contracts.rs`).

use serde_json::Value;

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
