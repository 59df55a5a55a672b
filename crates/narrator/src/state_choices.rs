//! Inputs whose values the story decides: a string input that names, with
//! `x-choicesFromState`, the places in the story state that hold its
//! choices (docs/skills.md, "Choices from the story state"). The model may
//! only write one of them; with none in the state the string stays free.
//! When the player's words name some of them, only those are offered: the
//! story decides which faction "the watch captain" belongs to, not the model.

use std::collections::HashSet;

use narratoria_core::protocol::{named_choices_at, NamedChoice};
use narratoria_routing::keywords::stems;
use serde_json::{Map, Value};

use crate::catalog::{each_input_property, fits, SkillCard};

pub use narratoria_core::protocol::CHOICES_KEYWORD as KEYWORD;
/// At most this many choices are offered (a grammar, not a list to read).
const MOST_CHOICES: usize = 64;

/// `cards` with each `x-choicesFromState` string input limited to the
/// choices found in `state` (as an `enum`): those `input` names by their id
/// or name when it names any, else all of them.
pub fn with_state_choices(
    mut cards: Vec<SkillCard>,
    state: &Map<String, Value>,
    input: &str,
) -> Vec<SkillCard> {
    let state = Value::Object(state.clone());
    let said = stems(input);
    each_input_property(
        cards.iter_mut().flat_map(|c| c.tools.iter_mut()),
        |property| limit(property, &state, &said),
    );
    cards
}

fn limit(o: &mut Map<String, Value>, state: &Value, said: &HashSet<String>) {
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
    // Only choices the property itself accepts (a length, a pattern).
    let mut choices: Vec<NamedChoice> = named_choices_at(state, &pointers)
        .into_iter()
        .filter(|c| fits(o, &Value::String(c.id.clone())))
        .collect();
    let named: Vec<NamedChoice> = choices
        .iter()
        .filter(|c| is_named(c, said))
        .cloned()
        .collect();
    if !named.is_empty() {
        choices = named;
    }
    choices.truncate(MOST_CHOICES);
    if !choices.is_empty() {
        o.insert(
            "enum".into(),
            Value::Array(choices.into_iter().map(|c| Value::String(c.id)).collect()),
        );
    }
}

/// Whether a word of the choice's id ("ashford-watch") or name ("The Ashford
/// Watch") is among the words `said`, stemmed alike ("watchmen" is not
/// "watch", "ferryman's" is "ferryman").
fn is_named(choice: &NamedChoice, said: &HashSet<String>) -> bool {
    let words = format!("{} {}", choice.id, choice.name.as_deref().unwrap_or(""));
    !stems(&words).is_disjoint(said)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn card(schema: Value) -> Vec<SkillCard> {
        vec![crate::test_cards::card(
            "reputation",
            "update-reputation",
            "",
            schema,
        )]
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
        let cards = with_state_choices(card(schema), state.as_object().unwrap(), "");
        assert_eq!(
            faction_schema(&cards),
            &json!({"type": "string", "enum": ["watch", "temple", "ferrymen"]})
        );
        let reason = &cards[0].tools[0].input_schema.as_ref().unwrap()["properties"]["reason"];
        assert_eq!(reason, &json!({"type": "string"}));
    }

    #[test]
    fn the_choices_the_player_names_are_the_only_ones_offered() {
        let schema = json!({"type": "object", "properties": {
            "factionId": {"type": "string", KEYWORD: ["/reputation", "/factions"]}
        }});
        let state = json!({
            "reputation": {"ferrymen": {"score": 5}},
            "factions": [
                {"id": "ashford-watch", "name": "The Ashford Watch"},
                {"id": "ferrymen", "name": "The Ferrymen's Guild"},
                {"id": "temple-of-the-ford", "name": "The Temple of the Ford"}
            ]
        });
        let offered = |input: &str| {
            let cards = with_state_choices(card(schema.clone()), state.as_object().unwrap(), input);
            faction_schema(&cards)["enum"].clone()
        };
        assert_eq!(
            offered("I spit on the Watch's notice board"),
            json!(["ashford-watch"])
        );
        assert_eq!(
            offered("I pray at the temple and pay the ferryman's guild"),
            json!(["ferrymen", "temple-of-the-ford"])
        );
        // Named by none of its words: every choice stays open.
        assert_eq!(
            offered("I insult the captain"),
            json!(["ferrymen", "ashford-watch", "temple-of-the-ford"])
        );
    }

    #[test]
    fn a_named_choice_past_the_first_sixty_four_or_one_the_schema_refuses() {
        let schema = json!({"type": "object", "properties": {
            "factionId": {"type": "string", "maxLength": 20, KEYWORD: "/factions"}
        }});
        let mut factions: Vec<Value> = (0..70).map(|i| json!(format!("band-{i}"))).collect();
        factions.push(json!("ferrymen"));
        factions.push(json!("ferrymen-of-the-very-long-river"));
        let state = json!({ "factions": factions });
        let cards = with_state_choices(
            card(schema),
            state.as_object().unwrap(),
            "I pay the ferrymen",
        );
        // Named, though the 71st; the id longer than the schema allows is not offered.
        assert_eq!(faction_schema(&cards)["enum"], json!(["ferrymen"]));
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
            let cards = with_state_choices(card(schema.clone()), state.as_object().unwrap(), "");
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
        let cards = with_state_choices(card(schema), state.as_object().unwrap(), "");
        let props = &cards[0].tools[0].input_schema.as_ref().unwrap()["properties"];
        assert_eq!(props["factionId"], json!({"type": "integer"}));
        assert_eq!(props["other"], json!({"type": "string"}));
    }
}
