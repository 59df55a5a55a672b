//! Inputs that are the player's own words: a string input marked
//! `"x-fromInput": true` — a memory recall's query, a search — is the
//! player's input verbatim, so a small model cannot put a guess in its place
//! (docs/skills.md, "The player's words").

use serde_json::{json, Map, Value};

use crate::catalog::{each_input_property, fits, SkillCard};

pub const KEYWORD: &str = "x-fromInput";

/// `cards` with each `x-fromInput` string input limited to `input`, trimmed
/// (a one-value `enum`), when the property accepts it; otherwise the
/// property stays as it was, without the keyword.
pub fn with_player_words(mut cards: Vec<SkillCard>, input: &str) -> Vec<SkillCard> {
    let said = Value::String(input.trim().to_string());
    each_input_property(
        cards.iter_mut().flat_map(|c| c.tools.iter_mut()),
        |property| limit(property, &said),
    );
    cards
}

fn limit(o: &mut Map<String, Value>, said: &Value) {
    if o.remove(KEYWORD) != Some(Value::Bool(true)) {
        return;
    }
    let free = o.get("type").and_then(Value::as_str) == Some("string")
        && !o.contains_key("enum")
        && !o.contains_key("const");
    if free && fits(o, said) {
        o.insert("enum".into(), json!([said]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_cards::card;

    #[test]
    fn a_from_input_string_is_the_players_words() {
        let cards = vec![card(
            "memory",
            "recall-memory",
            "",
            json!({"type": "object", "properties": {
                "query": {"type": "string", "maxLength": 100, "x-fromInput": true},
                "limit": {"type": "integer"}
            }}),
        )];
        let got = with_player_words(cards, "  Who was the stranger at the ford? ");
        let props = &got[0].tools[0].input_schema.as_ref().unwrap()["properties"];
        assert_eq!(props["query"]["enum"], json!(["Who was the stranger at the ford?"]));
        assert!(props["query"].get(KEYWORD).is_none());
        assert!(props["limit"].get("enum").is_none());
    }

    #[test]
    fn words_the_property_refuses_leave_it_free() {
        let cards = vec![card(
            "memory",
            "recall-memory",
            "",
            json!({"type": "object", "properties": {
                "query": {"type": "string", "maxLength": 5, "x-fromInput": true},
                "count": {"type": "integer", "x-fromInput": true}
            }}),
        )];
        let got = with_player_words(cards, "a long question");
        let props = &got[0].tools[0].input_schema.as_ref().unwrap()["properties"];
        assert!(props["query"].get("enum").is_none());
        assert!(props["count"].get("enum").is_none());
        assert!(props["query"].get(KEYWORD).is_none());
    }
}
