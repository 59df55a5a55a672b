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
    named_choices_at(state, pointers)
        .into_iter()
        .map(|c| c.id)
        .collect()
}

/// One choice a state holds, with the name the state gives it, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedChoice {
    pub id: String,
    /// The `name` of an array item with this `id`.
    pub name: Option<String>,
}

/// The same choices as [`choices_at`], each with its name when an array
/// item with its `id` has a string `name`.
pub fn named_choices_at(state: &Value, pointers: &[&str]) -> Vec<NamedChoice> {
    let mut out: Vec<NamedChoice> = Vec::new();
    let mut add = |id: &str, name: Option<&str>| {
        let id = id.trim();
        if id.is_empty() {
            return;
        }
        let name = name
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(String::from);
        match out.iter_mut().find(|o| o.id == id) {
            Some(known) => {
                if known.name.is_none() {
                    known.name = name;
                }
            }
            None => out.push(NamedChoice {
                id: id.to_string(),
                name,
            }),
        }
    };
    for pointer in pointers {
        match state.pointer(pointer) {
            Some(Value::Object(map)) => map.keys().for_each(|k| add(k, None)),
            Some(Value::Array(items)) => {
                for item in items {
                    match item {
                        Value::String(id) => add(id, None),
                        Value::Object(o) => {
                            if let Some(id) = o.get("id").and_then(Value::as_str) {
                                add(id, o.get("name").and_then(Value::as_str))
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_choice_keeps_the_name_any_place_gives_it() {
        let state = json!({
            "reputation": {"watch": {"score": 5}},
            "factions": [{"id": "temple", "name": "The Temple"}, "ferrymen",
                         {"id": "watch", "name": " The Watch "}, {"id": "x", "name": 3}, 7]
        });
        let named = named_choices_at(&state, &["/reputation", "/factions"]);
        let got: Vec<(&str, Option<&str>)> = named
            .iter()
            .map(|c| (c.id.as_str(), c.name.as_deref()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("watch", Some("The Watch")),
                ("temple", Some("The Temple")),
                ("ferrymen", None),
                ("x", None)
            ]
        );
        assert_eq!(
            choices_at(&state, &["/reputation", "/factions"]),
            vec!["watch", "temple", "ferrymen", "x"]
        );
    }
}
