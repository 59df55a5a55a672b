//! The settings schema the config tests share.

use serde_json::{json, Value};

/// A draft-07 schema with defaults, an enum, a range, a secret, a required
/// setting, a nested object, and no room for unknown settings.
pub fn schema() -> Value {
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
