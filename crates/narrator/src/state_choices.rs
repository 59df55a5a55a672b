//! Inputs whose values the story decides: a string input that names, with
//! `x-choicesFromState`, the places in the story state that hold its
//! choices (docs/skills.md, "Choices from the story state"). The model may
//! only write one of them; with none in the state the string stays free.

use narratoria_core::protocol::choices_at;
use serde_json::{Map, Value};

use crate::catalog::SkillCard;

pub use narratoria_core::protocol::CHOICES_KEYWORD as KEYWORD;
/// At most this many choices are offered (a grammar, not a list to read).
const MOST_CHOICES: usize = 64;

/// `cards` with each `x-choicesFromState` string input limited to the
/// choices found in `state` (as an `enum`).
pub fn with_state_choices(mut cards: Vec<SkillCard>, state: &Map<String, Value>) -> Vec<SkillCard> {
    let state = Value::Object(state.clone());
    for tool in cards.iter_mut().flat_map(|c| c.tools.iter_mut()) {
        if let Some(Value::Object(properties)) = tool
            .input_schema
            .as_mut()
            .and_then(|s| s.get_mut("properties"))
        {
            for property in properties.values_mut() {
                limit(property, &state);
            }
        }
    }
    cards
}

fn limit(property: &mut Value, state: &Value) {
    let Some(o) = property.as_object_mut() else {
        return;
    };
    let Some(pointers) = o.remove(KEYWORD) else {
        return;
    };
    if o.get("type").and_then(Value::as_str) != Some("string") || o.contains_key("enum") {
        return;
    }
    let pointers: Vec<&str> = match &pointers {
        Value::String(p) => vec![p.as_str()],
        Value::Array(list) => list.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let mut choices = choices_at(state, &pointers);
    choices.truncate(MOST_CHOICES);
    if !choices.is_empty() {
        o.insert(
            "enum".into(),
            Value::Array(choices.into_iter().map(Value::String).collect()),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::ToolCard;
    use serde_json::json;

    fn card(schema: Value) -> Vec<SkillCard> {
        vec![SkillCard {
            name: "reputation".into(),
            description: String::new(),
            guide: None,
            tools: vec![ToolCard {
                path: "reputation/update-reputation".into(),
                description: None,
                input_schema: Some(schema),
            }],
        }]
    }

    fn faction_schema(cards: &[SkillCard]) -> &Value {
        &cards[0].tools[0].input_schema.as_ref().unwrap()["properties"]["factionId"]
    }

    #[test]
    fn a_string_with_state_choices_becomes_one_of_them() {
        let schema = json!({"type": "object", "properties": {
            "factionId": {"type": "string", KEYWORD: ["/reputation", "/factions"]},
            "reason": {"type": "string"}
        }});
        let state = json!({
            "reputation": {"watch": {"score": 5}},
            "factions": [{"id": "temple", "name": "The Temple"}, "ferrymen", {"id": "watch"}, 7]
        });
        let cards = with_state_choices(card(schema), state.as_object().unwrap());
        assert_eq!(
            faction_schema(&cards),
            &json!({"type": "string", "enum": ["watch", "temple", "ferrymen"]})
        );
        let reason = &cards[0].tools[0].input_schema.as_ref().unwrap()["properties"]["reason"];
        assert_eq!(reason, &json!({"type": "string"}));
    }

    #[test]
    fn with_no_choices_in_the_state_the_string_stays_free() {
        let schema = json!({"type": "object", "properties": {
            "factionId": {"type": "string", "maxLength": 100, KEYWORD: "/factions"}
        }});
        for state in [
            json!({}),
            json!({"factions": "temple"}),
            json!({"factions": []}),
        ] {
            let cards = with_state_choices(card(schema.clone()), state.as_object().unwrap());
            assert_eq!(
                faction_schema(&cards),
                &json!({"type": "string", "maxLength": 100})
            );
        }
    }

    #[test]
    fn a_malformed_keyword_or_a_non_string_is_left_alone() {
        let schema = json!({"type": "object", "properties": {
            "factionId": {"type": "integer", KEYWORD: "/factions"},
            "other": {"type": "string", KEYWORD: 7}
        }});
        let state = json!({"factions": ["a"]});
        let cards = with_state_choices(card(schema), state.as_object().unwrap());
        let props = &cards[0].tools[0].input_schema.as_ref().unwrap()["properties"];
        assert_eq!(props["factionId"], json!({"type": "integer"}));
        assert_eq!(props["other"], json!({"type": "string"}));
    }
}
