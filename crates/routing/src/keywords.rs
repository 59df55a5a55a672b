//! Routing by rare words, the one home of keyword routing: a document (one
//! script's texts, [`script_text`], and with the multilingual encoder its
//! examples in other languages) scores by the idf-weighted stems it shares
//! with the player's input ([`KeywordIndex`]), and the best
//! scores name the skills ([`skills_by_score`]). The narrator routes by
//! keywords alone when the embedding model cannot be loaded; routing by
//! meaning weighs the same scores as one signal (docs/narrator.md,
//! "Routing").

use std::collections::HashSet;

use narratoria_lexicon::{is_stop_word, stem, Language};

/// Documents by key, as sets of stems, ready to score inputs against.
#[derive(Debug, Clone, Default)]
pub struct KeywordIndex {
    docs: Vec<(String, HashSet<String>)>,
    /// Whether the documents hold texts in other languages than English:
    /// an input's words are then stemmed as the language it is written in.
    multilingual: bool,
}

impl KeywordIndex {
    /// An index over `(key, text)` documents in English.
    pub fn new<K: Into<String>, T: AsRef<str>>(docs: impl IntoIterator<Item = (K, T)>) -> Self {
        KeywordIndex {
            docs: docs
                .into_iter()
                .map(|(k, t)| (k.into(), stems(t.as_ref())))
                .collect(),
            multilingual: false,
        }
    }

    /// An index over documents whose texts are in several languages: each
    /// `(key, texts)` holds its English text and its texts in other
    /// languages by code, each stemmed with its language's stemmer and
    /// stop words. An input is then read in the language it is written in
    /// (detected; English when too short to tell), so "merk dir" meets
    /// "merke dir" (docs/narrator.md, "Routing in every language").
    pub fn in_languages<K: Into<String>>(
        docs: impl IntoIterator<Item = (K, String, Vec<(String, String)>)>,
    ) -> Self {
        let mut multilingual = false;
        let docs = docs
            .into_iter()
            .map(|(key, english, others)| {
                let mut set = stems(&english);
                for (code, text) in others {
                    multilingual = true;
                    let language = Language::parse(&code).unwrap_or_else(|_| Language::english());
                    set.extend(stems_in(&text, &language));
                }
                (key.into(), set)
            })
            .collect();
        KeywordIndex { docs, multilingual }
    }

    /// `input`'s stems, read as English or, in an index with other
    /// languages, as the language `input` is written in.
    fn input_stems(&self, input: &str) -> HashSet<String> {
        let language = self
            .multilingual
            .then(|| Language::detect(input))
            .flatten()
            .unwrap_or_else(Language::english);
        stems_in(input, &language)
    }

    /// Documents sharing rare words with `input` (score above 0.5), best
    /// first, at most `max`, each with its score: the sum over shared stems
    /// of ln(documents / documents holding the stem).
    pub fn scores(&self, input: &str, max: usize) -> Vec<(String, f64)> {
        if self.docs.is_empty() {
            return Vec::new();
        }
        let n = self.docs.len() as f64;
        let words = self.input_stems(input);
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

/// A skill after the first is chosen only when its best script's score is
/// at least this share of the best one.
const FURTHER_SKILL_SHARE: f64 = 0.5 - 1e-9;

/// How many of the best-scoring scripts the skills are chosen among.
const SCRIPTS_CONSIDERED: usize = 3;

/// The skills that script `scores` (best first, as [`KeywordIndex::scores`]
/// gives them, keyed `<skill>/<script>`) route to, best first, at most
/// `max_skills`: the skills of the three best scripts, each once, a skill
/// after the first only with at least half the best score.
pub fn skills_by_score(scores: &[(String, f64)], max_skills: usize) -> Vec<String> {
    let top = scores.first().map_or(0.0, |(_, s)| *s);
    let mut skills: Vec<String> = Vec::new();
    for (path, score) in scores.iter().take(SCRIPTS_CONSIDERED) {
        let skill = path.split('/').next().unwrap_or_default();
        if skills.iter().any(|s| s == skill) {
            continue;
        }
        if skills.len() == max_skills || *score < FURTHER_SKILL_SHARE * top {
            break;
        }
        skills.push(skill.to_string());
    }
    skills
}

/// The words keyword routing matches for one script: its skill's name and
/// its own, the skill's description and the script's, and the prose of the
/// skill's guide (`prompt.md`, code blocks left out).
pub fn script_text(
    skill: &str,
    script: &str,
    skill_description: &str,
    script_description: Option<&str>,
    guide: Option<&str>,
) -> String {
    let mut text = format!(
        "{} {} {} {}",
        skill.replace('-', " "),
        script.replace('-', " "),
        skill_description.trim(),
        script_description.map_or("", str::trim)
    );
    if let Some(guide) = guide {
        text.push(' ');
        text.push_str(&without_code_blocks(guide));
    }
    text
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

/// Words every skill's texts use ("input", "returns", "story"): like the
/// language's stop words, they cannot tell one skill from another.
const SKILL_TEXT_WORDS: [&str; 19] = [
    "input",
    "output",
    "player",
    "story",
    "skill",
    "tool",
    "tools",
    "script",
    "plan",
    "json",
    "returns",
    "string",
    "object",
    "optional",
    "required",
    "example",
    "narrate",
    "narrative",
    "character",
];

/// The English stems of `text`'s words of three letters or more, stop words
/// and [`SKILL_TEXT_WORDS`] left out.
pub fn stems(text: &str) -> HashSet<String> {
    stems_in(text, &Language::english())
}

/// The stems of `text`'s words of three letters or more in `language`, its
/// stop words and [`SKILL_TEXT_WORDS`] left out.
pub fn stems_in(text: &str, language: &Language) -> HashSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| {
            w.chars().count() >= 3
                && !is_stop_word(w, language)
                && !SKILL_TEXT_WORDS.contains(&w.as_str())
        })
        .map(|w| stem(&w, language))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_input_is_read_in_its_language_against_examples_in_it() {
        let index = KeywordIndex::in_languages([
            (
                "memory",
                "Remember what happened.".to_string(),
                vec![(
                    "de".to_string(),
                    "Merk dir, dass die Brücke bewacht wird".to_string(),
                )],
            ),
            (
                "dice",
                "Roll for attacks.".to_string(),
                vec![(
                    "de".to_string(),
                    "Ich greife die Wachen mit dem Schwert an".to_string(),
                )],
            ),
        ]);
        // German stems: "merke" meets "merk", and the stop words ("dass",
        // "die") weigh nothing.
        let scores = index.scores("Ich merke mir, dass die Fähre um Mitternacht ablegt", 5);
        assert_eq!(
            scores.first().map(|(k, _)| k.as_str()),
            Some("memory"),
            "{scores:?}"
        );
        assert_eq!(scores.len(), 1, "{scores:?}");
        // An English-only index reads every input as English.
        let english = KeywordIndex::new([("memory", "Remember what happened.")]);
        assert!(!english.multilingual);
    }

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
    fn a_further_skill_needs_half_the_best_score() {
        let scores = |s: &[(&str, f64)]| -> Vec<(String, f64)> {
            s.iter().map(|(p, v)| (p.to_string(), *v)).collect()
        };
        let tied = scores(&[("dice/roll", 4.0), ("memory/recall", 2.0)]);
        assert_eq!(skills_by_score(&tied, 2), vec!["dice", "memory"]);
        assert_eq!(skills_by_score(&tied, 1), vec!["dice"]);
        let weak = scores(&[("dice/roll", 4.0), ("memory/recall", 1.9)]);
        assert_eq!(skills_by_score(&weak, 2), vec!["dice"]);
        // Only the three best scripts count, and a skill counts once.
        let same = scores(&[
            ("memory/recall", 4.0),
            ("memory/store", 3.9),
            ("memory/forget", 3.8),
            ("dice/roll", 3.7),
        ]);
        assert_eq!(skills_by_score(&same, 2), vec!["memory"]);
        assert!(skills_by_score(&[], 2).is_empty());
    }

    #[test]
    fn a_script_is_known_by_its_names_descriptions_and_guide_prose() {
        let text = script_text(
            "dice-roller",
            "roll-dice",
            " Rolls dice. ",
            Some("A check."),
            Some("Attack or sneak.\n```\n{\"formula\": \"1d20\"}\n```\n"),
        );
        let words = stems(&text);
        for w in ["dice", "roller", "roll", "check", "attack", "sneak"] {
            assert!(words.contains(w), "{w} in {text:?}");
        }
        assert!(!words.contains("formula"), "code blocks are left out");
    }

    #[test]
    fn code_blocks_are_left_out() {
        assert_eq!(without_code_blocks("a\n```\nb\n```\nc"), "a\nc\n");
    }
}
