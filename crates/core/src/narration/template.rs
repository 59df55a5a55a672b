//! A turn told without a model: the player's deed, then what the rules
//! decided — a sentence per outcome, never the raw numbers.

use serde_json::Value;

use super::deed::deed;
use super::facts::{facts_of, sentence_case, Fact, Verdict};

/// The turn in a few plain sentences. Promises: it starts with the player's
/// deed ("You …"); a failed check is never told as a success and the other
/// way round; no digit from the tools' outputs appears. `outputs` are the
/// outputs of the turn's tools in plan order (`null` for one that failed).
pub fn told<'a>(action: &str, outputs: impl IntoIterator<Item = &'a Value>) -> String {
    let mut text = deed(action);
    for fact in outputs.into_iter().flat_map(facts_of) {
        let sentence = match &fact {
            Fact::Check {
                verdict, margin, ..
            } => match (verdict.twist(), verdict) {
                (Some(twist), _) => format!("{}.", sentence_case(twist)),
                (None, Verdict::Success) if *margin >= 5 => "It works.".into(),
                (None, Verdict::Success) => "It works — just barely.".into(),
                (None, _) if *margin >= -4 => "You come close, but it is not enough.".into(),
                (None, _) => "It does not work.".into(),
            },
            Fact::StandingChanged { .. } | Fact::Standing { .. } => fact.in_words(),
            Fact::Recalled { memories } => match memories.first() {
                Some(m) => format!("You remember: {m}"),
                None => continue,
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
            "You attack the goblin with your sword. It does not work."
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
            t.contains("just barely") && t.contains("The guild think better of you"),
            "{t}"
        );
    }

    #[test]
    fn without_outcomes_only_the_deed_is_told() {
        assert_eq!(told("I look around", []), "You look around.");
    }
}
