//! Routing by rare words: a document (one script's texts) scores by the
//! idf-weighted English stems it shares with the player's input.

use std::collections::HashSet;

use crate::stop_words::STOP_WORDS;

/// Documents by key, as sets of stems, ready to score inputs against.
#[derive(Debug, Clone, Default)]
pub struct KeywordIndex {
    docs: Vec<(String, HashSet<String>)>,
}

impl KeywordIndex {
    /// An index over `(key, text)` documents.
    pub fn new<K: Into<String>, T: AsRef<str>>(docs: impl IntoIterator<Item = (K, T)>) -> Self {
        KeywordIndex {
            docs: docs
                .into_iter()
                .map(|(k, t)| (k.into(), stems(t.as_ref())))
                .collect(),
        }
    }

    /// Documents sharing rare words with `input` (score above 0.5), best
    /// first, at most `max`, each with its score: the sum over shared stems
    /// of ln(documents / documents holding the stem).
    pub fn scores(&self, input: &str, max: usize) -> Vec<(String, f64)> {
        if self.docs.is_empty() {
            return Vec::new();
        }
        let n = self.docs.len() as f64;
        let words = stems(input);
        let mut scored: Vec<(f64, &String)> = self
            .docs
            .iter()
            .map(|(key, set)| {
                let score: f64 = words
                    .iter()
                    .filter(|w| set.contains(*w))
                    .map(|w| {
                        let df = self.docs.iter().filter(|(_, s)| s.contains(w)).count() as f64;
                        (n / df).ln()
                    })
                    .sum();
                (score, key)
            })
            .filter(|(s, _)| *s > 0.5)
            .collect();
        scored.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal));
        scored
            .into_iter()
            .take(max)
            .map(|(s, k)| (k.clone(), s))
            .collect()
    }
}

/// A guide's prose: fenced code blocks (example plans and inputs) say what a
/// call looks like, not when to make it, so they do not count as trigger words.
pub fn without_code_blocks(guide: &str) -> String {
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
pub fn stems(text: &str) -> HashSet<String> {
    let stemmer = rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English);
    text.split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| w.len() >= 3 && !STOP_WORDS.contains(&w.as_str()))
        .map(|w| stemmer.stem(&w).into_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rare_shared_words_score() {
        let index = KeywordIndex::new([
            ("dice", "Rolls dice for attacks and sneaking."),
            ("memory", "Recall what happened before."),
        ]);
        assert_eq!(index.scores("I try sneaking past", 2)[0].0, "dice");
        assert_eq!(index.scores("What happened before?", 2)[0].0, "memory");
        assert!(index.scores("hello", 2).is_empty());
    }

    #[test]
    fn code_blocks_are_left_out() {
        assert_eq!(without_code_blocks("a\n```\nb\n```\nc"), "a\nc\n");
    }
}
