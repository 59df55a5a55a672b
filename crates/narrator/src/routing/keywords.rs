//! Routing by keywords: a tool scores by the rare (idf-weighted) stemmed words
//! its skill's texts share with the player's input.

use std::collections::HashSet;

use crate::catalog::SkillCard;

use super::stop_words::STOP_WORDS;

/// Tools whose skill texts share rare words with `input`, best first, at most `max`.
pub fn keyword_hints(cards: &[SkillCard], input: &str, max: usize) -> Vec<String> {
    keyword_scores(cards, input, max)
        .into_iter()
        .map(|(p, _)| p)
        .collect()
}

/// [`keyword_hints`] with each tool's score (the idf-weighted overlap).
pub fn keyword_scores(cards: &[SkillCard], input: &str, max: usize) -> Vec<(String, f64)> {
    let docs: Vec<(String, HashSet<String>)> = cards
        .iter()
        .flat_map(|c| {
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
                (t.path.clone(), stems(&text))
            })
        })
        .collect();
    if docs.is_empty() {
        return Vec::new();
    }
    let n = docs.len() as f64;
    let words = stems(input);
    let mut scored: Vec<(f64, &String)> = docs
        .iter()
        .map(|(path, set)| {
            let score: f64 = words
                .iter()
                .filter(|w| set.contains(*w))
                .map(|w| {
                    let df = docs.iter().filter(|(_, s)| s.contains(w)).count() as f64;
                    (n / df).ln()
                })
                .sum();
            (score, path)
        })
        .filter(|(s, _)| *s > 0.5)
        .collect();
    scored.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal));
    scored
        .into_iter()
        .take(max)
        .map(|(s, p)| (p.clone(), s))
        .collect()
}

/// A guide's prose: fenced code blocks (example plans and inputs) say what a
/// call looks like, not when to make it, so they do not count as trigger words.
fn without_code_blocks(guide: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for line in guide.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The English stems of `text`'s words of three letters or more, stop words left out.
fn stems(text: &str) -> HashSet<String> {
    let stemmer = rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English);
    text.split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| w.len() >= 3 && !STOP_WORDS.contains(&w.as_str()))
        .map(|w| stemmer.stem(&w).into_owned())
        .collect()
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
