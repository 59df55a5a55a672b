//! A turn told without a model: the player's deed, then what the rules
//! decided — a sentence per outcome, never the raw numbers.

use serde_json::Value;

use super::checked::{checked_whole, checked_without_a_deed};
use super::deed::{act, deed};
use super::facts::{facts_of, Fact};

/// The turn in a few plain sentences. Promises: it starts with the player's
/// deed ("You …"); a failed check is never told as a success and the other
/// way round; no digit from the tools' outputs appears. `outputs` are the
/// outputs of the turn's tools in plan order (`null` for one that failed).
pub fn told<'a>(action: &str, outputs: impl IntoIterator<Item = &'a Value>) -> String {
    let facts: Vec<Fact> = outputs.into_iter().flat_map(facts_of).collect();
    let first_check = facts.iter().position(|f| f.verdict().is_some());
    // The first check is told with the deed, in one sentence ("You try to
    // pick the lock, but it will not give."); later ones on their own.
    let mut text = match (first_check.and_then(|i| facts[i].verdict()), act(action)) {
        (Some(verdict), Some(done)) => checked_whole(&done, verdict),
        (Some(verdict), None) => format!("{} {}", deed(action), checked_without_a_deed(verdict)),
        (None, _) => deed(action),
    };
    for (i, fact) in facts.iter().enumerate() {
        let sentence = match fact {
            Fact::Check { .. } if Some(i) == first_check => continue,
            Fact::Check { verdict, .. } => checked_without_a_deed(*verdict),
            Fact::StandingChanged { .. } | Fact::Standing { .. } => fact.in_words(),
            Fact::Recalled { memories } => match memories.first() {
                Some(m) => format!("You remember: {m}"),
                // Finding nothing is the recall's outcome, told like any other.
                None => fact.in_words(),
            },
            Fact::Roll { .. } | Fact::Unavailable => continue,
        };
        text.push(' ');
        text.push_str(&sentence);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_failed_attack_is_told_as_a_failure() {
        let roll = json!({"formula": "1d20+2", "total": 9, "outcome": "failure", "margin": -6});
        let t = told("I attack the goblin with my sword", [&roll]);
        assert_eq!(
            t,
            "You try to attack the goblin with your sword, but you miss."
        );
        let crit =
            json!({"formula": "1d20", "total": 20, "outcome": "criticalSuccess", "margin": 5});
        assert!(told("I leap the chasm", [&crit]).ends_with("hoped."));
    }

    #[test]
    fn no_number_from_the_tools_reaches_the_player() {
        let outputs = [
            json!({"formula": "1d20+7", "rolls": [13], "total": 20, "outcome": "success", "margin": 3}),
            json!({"factionId": "guild", "previousScore": 10, "delta": 15, "score": 25, "standing": "friendly"}),
            json!({"formula": "3d6", "total": 14}),
            Value::Null,
        ];
        let t = told("I bargain with the guild", outputs.iter());
        assert!(!t.chars().any(|c| c.is_ascii_digit()), "{t}");
        assert!(
            t.starts_with("You bargain with the guild.")
                && t.contains("The guild think better of you"),
            "{t}"
        );
    }

    #[test]
    fn a_recall_that_found_nothing_says_so() {
        let none = json!({"memories": []});
        assert_eq!(
            told("What do I remember about the keeper?", [&none]),
            "You wonder what you remember about the keeper. Nothing from earlier comes to mind."
        );
    }

    #[test]
    fn without_outcomes_only_the_deed_is_told() {
        assert_eq!(told("I look around", []), "You look around.");
    }
}
