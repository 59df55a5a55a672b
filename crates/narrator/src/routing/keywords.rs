//! Routing by keywords: a tool scores by the rare (idf-weighted) stemmed words
//! its skill's texts share with the player's input.

use narratoria_routing::keywords::{without_code_blocks, KeywordIndex};

use crate::catalog::SkillCard;

/// Tools whose skill texts share rare words with `input`, best first, at most `max`.
pub fn keyword_hints(cards: &[SkillCard], input: &str, max: usize) -> Vec<String> {
    keyword_scores(cards, input, max)
        .into_iter()
        .map(|(p, _)| p)
        .collect()
}

/// [`keyword_hints`] with each tool's score (the idf-weighted overlap).
pub fn keyword_scores(cards: &[SkillCard], input: &str, max: usize) -> Vec<(String, f64)> {
    let docs = cards.iter().flat_map(|c| {
        c.tools.iter().map(move |t| {
            let mut text = format!(
                "{} {} {}",
                t.path.replace(['/', '-'], " "),
                c.description,
                t.description.as_deref().unwrap_or("")
            );
            if let Some(g) = &c.guide {
                text.push(' ');
                text.push_str(&without_code_blocks(g));
            }
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
