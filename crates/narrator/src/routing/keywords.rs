//! Routing by keywords over the planner's skill cards: a tool scores by the
//! rare (idf-weighted) stemmed words its skill's texts share with the
//! player's input, as `narratoria_routing::keywords` scores them.

use narratoria_routing::keywords::{script_text, KeywordIndex};

use crate::catalog::SkillCard;

/// Tools whose skill texts share rare words with `input`, best first, at most `max`.
pub fn keyword_hints(cards: &[SkillCard], input: &str, max: usize) -> Vec<String> {
    keyword_scores(cards, input, max)
        .into_iter()
        .map(|(p, _)| p)
        .collect()
}

/// [`keyword_hints`] with each tool's score (the idf-weighted overlap of
/// [`narratoria_routing::keywords`], over each tool's [`script_text`]).
pub fn keyword_scores(cards: &[SkillCard], input: &str, max: usize) -> Vec<(String, f64)> {
    let docs = cards.iter().flat_map(|c| {
        c.tools.iter().map(move |t| {
            let script = t.path.split_once('/').map_or("", |(_, s)| s);
            let text = script_text(
                &c.name,
                script,
                &c.description,
                t.description.as_deref(),
                c.guide.as_deref(),
            );
            (t.path.clone(), text)
        })
    });
    KeywordIndex::new(docs).scores(input, max)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::test_cards::{card, dice};

    #[test]
    fn hints_find_rare_shared_words() {
        let cards = vec![
            dice(),
            card(
                "memory",
                "recall-memory",
                "Recall what happened before.",
                json!({"type":"object"}),
            ),
        ];
        assert_eq!(
            keyword_hints(&cards, "I try sneaking past", 2),
            vec!["dice-roller/roll-dice"]
        );
        assert_eq!(
            keyword_hints(&cards, "What happened before?", 2),
            vec!["memory/recall-memory"]
        );
        assert!(keyword_hints(&cards, "hello", 2).is_empty());
    }
}
