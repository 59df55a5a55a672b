//! Inputs that are the player's own words: a string input marked
//! `"x-fromInput": true` — a memory recall's query, a search — is the
//! player's input verbatim, so a small model cannot put a guess in its place
//! (docs/skills.md, "The player's words"). The model does not write it: the
//! property leaves the grammar and the host fills it in the plan, which costs
//! no generated token.

use std::collections::HashMap;

use narratoria_core::plan::Plan;
use serde_json::{Map, Value};

use crate::catalog::{fits, SkillCard};

pub const KEYWORD: &str = "x-fromInput";

/// The properties the host fills with the player's words, by toolPath.
pub type PlayerWords = HashMap<String, Vec<String>>;

/// `cards` without the `x-fromInput` string inputs that accept `input`
/// (trimmed), which the host fills instead ([`fill_player_words`]); other
/// marked properties stay, without the keyword.
pub fn without_player_words(
    mut cards: Vec<SkillCard>,
    input: &str,
) -> (Vec<SkillCard>, PlayerWords) {
    let said = Value::String(input.trim().to_string());
    let mut filled = PlayerWords::new();
    for tool in cards.iter_mut().flat_map(|c| c.tools.iter_mut()) {
        let Some(Value::Object(schema)) = tool.input_schema.as_mut() else {
            continue;
        };
        let mut taken = Vec::new();
        if let Some(Value::Object(properties)) = schema.get_mut("properties") {
            for (name, property) in properties.iter_mut() {
                if let Some(o) = property.as_object_mut() {
                    if is_player_words(o, &said) {
                        taken.push(name.clone());
                    }
                }
            }
            properties.retain(|name, _| !taken.contains(name));
        }
        if let Some(Value::Array(required)) = schema.get_mut("required") {
            required.retain(|r| !r.as_str().is_some_and(|r| taken.iter().any(|t| t == r)));
        }
        if !taken.is_empty() {
            filled.insert(tool.path.clone(), taken);
        }
    }
    (cards, filled)
}

/// Whether `o` (its keyword removed) is a free string input the host fills
/// with `said`.
fn is_player_words(o: &mut Map<String, Value>, said: &Value) -> bool {
    if o.remove(KEYWORD) != Some(Value::Bool(true)) {
        return false;
    }
    o.get("type").and_then(Value::as_str) == Some("string")
        && !o.contains_key("enum")
        && !o.contains_key("const")
        && fits(o, said)
}

/// Writes the player's `input` (trimmed) into every property `filled` names
/// of `plan`'s tools.
pub fn fill_player_words(plan: &mut Plan, filled: &PlayerWords, input: &str) {
    for tool in &mut plan.tools {
        for name in filled.get(&tool.tool_path).into_iter().flatten() {
            tool.input
                .insert(name.clone(), Value::String(input.trim().to_string()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_cards::card;
    use narratoria_core::plan::ToolInvocation;
    use serde_json::json;

    #[test]
    fn the_players_words_leave_the_grammar_and_fill_the_plan() {
        let cards = vec![card(
            "memory",
            "recall-memory",
            "",
            json!({"type": "object", "properties": {
                "query": {"type": "string", "maxLength": 100, "x-fromInput": true},
                "limit": {"type": "integer"}
            }, "required": ["query"]}),
        )];
        let (got, filled) = without_player_words(cards, "  Who was the stranger at the ford? ");
        let schema = got[0].tools[0].input_schema.as_ref().unwrap();
        assert!(schema["properties"].get("query").is_none());
        assert!(schema["properties"].get("limit").is_some());
        assert_eq!(schema["required"], json!([]));
        let mut plan = Plan::new(vec![ToolInvocation::new("recall", "memory/recall-memory")]);
        fill_player_words(&mut plan, &filled, "  Who was the stranger at the ford? ");
        assert_eq!(
            plan.tools[0].input["query"],
            "Who was the stranger at the ford?"
        );
    }

    #[test]
    fn words_the_property_refuses_leave_it_to_the_model() {
        let cards = vec![card(
            "memory",
            "recall-memory",
            "",
            json!({"type": "object", "properties": {
                "query": {"type": "string", "maxLength": 5, "x-fromInput": true},
                "count": {"type": "integer", "x-fromInput": true}
            }}),
        )];
        let (got, filled) = without_player_words(cards, "a long question");
        let props = &got[0].tools[0].input_schema.as_ref().unwrap()["properties"];
        assert!(filled.is_empty());
        assert!(props["query"].get(KEYWORD).is_none() && props.get("count").is_some());
    }
}
