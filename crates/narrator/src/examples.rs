//! Worked examples the prompt shows as earlier turns. Each names the tools it
//! calls by path, so it is shown only when the catalog has every one of those
//! tools and each call's input satisfies the tool's input schema: an example
//! never points the model at a tool it cannot use, or at an input the tool
//! would refuse.

use std::collections::HashMap;

use serde_json::{json, Value};

use crate::catalog::SkillCard;

/// At most this many examples are shown.
const MAX_EXAMPLES: usize = 5;

/// A player line and the plan that answers it.
struct WorkedExample {
    input: &'static str,
    plan: Value,
}

/// Every worked example, in the order they are shown.
fn library() -> [WorkedExample; 5] {
    [
        WorkedExample {
            input: "I look around the quiet room.",
            plan: json!({"narrative":"Dust drifts in the light from the shutters. Nothing stirs.","tools":[]}),
        },
        WorkedExample {
            input: "Remember that the innkeeper Mara owes me ten gold.",
            plan: json!({"narrative":"You make a mental note of Mara's debt.","tools":[
                {"use":"memory/store-memory","input":{"summary":"The innkeeper Mara owes the player ten gold."}}]}),
        },
        WorkedExample {
            input: "I hand the stolen relic back to the temple priests.",
            plan: json!({"narrative":"The priests bow deeply as you return the relic.","tools":[
                {"use":"reputation/update-reputation","input":{"factionId":"temple","delta":15,"reason":"Returned the relic"}}]}),
        },
        WorkedExample {
            input: "I spit at the feet of the watch captain.",
            plan: json!({"narrative":"The captain's jaw tightens as the guards look on.","tools":[
                {"use":"reputation/update-reputation","input":{"factionId":"city-watch","delta":-15,"reason":"Insulted the captain"}}]}),
        },
        WorkedExample {
            input: "I try to pick the lock on the old chest.",
            plan: json!({"narrative":"You kneel by the chest and work a bent pin into the lock.","tools":[
                {"use":"dice-roller/roll-dice","input":{"formula":"1d20+2","dc":15,"reason":"Pick the lock"}}]}),
        },
    ]
}

/// The examples `cards` can carry out, as (`Player: …` line, compact plan)
/// pairs; the narrative-only example is always among them.
pub fn for_catalog(cards: &[SkillCard]) -> Vec<(String, String)> {
    let tools: HashMap<&str, Option<&Value>> = cards
        .iter()
        .flat_map(|c| {
            c.tools
                .iter()
                .map(|t| (t.path.as_str(), t.input_schema.as_ref()))
        })
        .collect();
    library()
        .into_iter()
        .filter(|example| runs_with(&example.plan, &tools))
        .take(MAX_EXAMPLES)
        .map(|example| {
            (
                format!("Player: {}", example.input),
                example.plan.to_string(),
            )
        })
        .collect()
}

/// Whether every call of `plan` names one of `tools` with an input its schema
/// accepts (a tool without a schema accepts any input).
fn runs_with(plan: &Value, tools: &HashMap<&str, Option<&Value>>) -> bool {
    plan["tools"].as_array().map(|calls| {
        calls.iter().all(|call| {
            let path = call["use"].as_str().unwrap_or_default();
            match tools.get(path) {
                None => false,
                Some(None) => true,
                Some(Some(schema)) => crate::catalog::accepts(schema, &call["input"]),
            }
        })
    }) == Some(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_cards::{card, dice};

    fn inputs(cards: &[SkillCard]) -> Vec<String> {
        for_catalog(cards)
            .into_iter()
            .map(|(input, _)| input)
            .collect()
    }

    #[test]
    fn only_the_narrative_example_without_tools() {
        assert_eq!(inputs(&[]), vec!["Player: I look around the quiet room."]);
    }

    #[test]
    fn an_example_shows_only_when_its_tool_is_in_the_catalog() {
        let with_dice = for_catalog(&[dice()]);
        assert_eq!(with_dice.len(), 2);
        assert!(with_dice[1].1.contains("dice-roller/roll-dice"));
        let other_dice = card(
            "my-dice",
            "roll-dice",
            "Roll dice.",
            json!({"type":"object"}),
        );
        assert_eq!(inputs(&[other_dice]).len(), 1);
    }

    #[test]
    fn an_example_shows_only_when_the_tool_accepts_its_input() {
        let strict_dice = card(
            "dice-roller",
            "roll-dice",
            "Roll dice.",
            json!({"type":"object","properties":{"sides":{"type":"integer"}},"required":["sides"]}),
        );
        assert_eq!(inputs(&[strict_dice]).len(), 1);
    }
}
