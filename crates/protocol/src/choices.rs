//! Choices a story's state holds for a skill's input: a string input schema
//! may name, with [`CHOICES_KEYWORD`], the JSON pointers in the session state
//! where its allowed values are kept (docs/skills.md, "Choices from the story
//! state"). The narrator limits what the model writes to them; a skill reads
//! the same places to know what exists.

use serde_json::Value;

/// The keyword a string input schema names its state pointers with.
pub const CHOICES_KEYWORD: &str = "x-choicesFromState";

/// The choices under `pointers` in `state`, in order, without repeats or
/// blanks: an object's keys; an array's strings and its objects' `id`s.
pub fn choices_at(state: &Value, pointers: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |id: &str| {
        let id = id.trim();
        if !id.is_empty() && !out.iter().any(|o| o == id) {
            out.push(id.to_string());
        }
    };
    for pointer in pointers {
        match state.pointer(pointer) {
            Some(Value::Object(map)) => map.keys().for_each(|k| add(k)),
            Some(Value::Array(items)) => {
                for item in items {
                    match item {
                        Value::String(id) => add(id),
                        Value::Object(o) => {
                            if let Some(id) = o.get("id").and_then(Value::as_str) {
                                add(id)
                            }
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    out
}
