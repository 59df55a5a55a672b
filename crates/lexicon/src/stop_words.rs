//! A language's stop words: words so common that any two sentences may
//! share them ("the", "you", "would"), so they say nothing of what a text is
//! about. Keyword routing leaves them out before stemming, and a recall's
//! full-text query leaves them out. Their core, the function words
//! (articles, pronouns, prepositions, "be" and "have"), are what the
//! storyteller's guards do not count as a clause's own words: a guard reads
//! "you're not sure if" as a way of speaking with two words of its own.
//!
//! One file a language (`stop_words/<code>.json`: the function words, then
//! the other stop words); English ships. "Who" is not one: it asks after a
//! person, which is what a recall is about ("Who is Mara?"), and keyword
//! routing reads it so.

use std::collections::HashSet;
use std::sync::LazyLock;

use serde::Deserialize;

use crate::Language;

/// One language's stop words, as its file holds them.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(borrow)]
    function_words: Vec<&'static str>,
    #[serde(borrow)]
    other: Vec<&'static str>,
}

/// A language's stop words, read.
struct StopWords {
    function_words: HashSet<&'static str>,
    all: HashSet<&'static str>,
}

static ENGLISH: LazyLock<StopWords> = LazyLock::new(|| {
    let file: File =
        serde_json::from_str(include_str!("../stop_words/en.json")).expect("valid stop words ship");
    StopWords {
        function_words: file.function_words.iter().copied().collect(),
        all: file.function_words.into_iter().chain(file.other).collect(),
    }
});

fn of(language: &Language) -> Option<&'static StopWords> {
    language.is_english().then(|| &*ENGLISH)
}

/// The stop words of `language` (lower case), where it has a list.
pub fn stop_words(language: &Language) -> Option<&'static HashSet<&'static str>> {
    of(language).map(|s| &s.all)
}

/// Whether lower-case `word` is one of `language`'s stop words; no word is
/// where the language has no list.
pub fn is_stop_word(word: &str, language: &Language) -> bool {
    of(language).is_some_and(|s| s.all.contains(word))
}

/// Whether lower-case `word` is one of `language`'s function words, the
/// stop words' core; no word is where the language has no list.
pub fn is_function_word(word: &str, language: &Language) -> bool {
    of(language).is_some_and(|s| s.function_words.contains(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn english_has_stop_words_and_other_languages_none() {
        let en = Language::english();
        for w in ["the", "you", "you're", "would", "through", "if"] {
            assert!(is_stop_word(w, &en), "{w}");
        }
        assert!(!is_stop_word("dragon", &en));
        assert!(!is_stop_word("who", &en));
        let fr = Language::parse("fr").unwrap();
        assert!(stop_words(&fr).is_none());
        assert!(!is_stop_word("the", &fr));
    }

    #[test]
    fn the_function_words_are_the_stop_words_core() {
        let en = Language::english();
        for w in ["the", "you're", "have", "not"] {
            assert!(is_function_word(w, &en), "{w}");
        }
        for w in ["if", "would", "sure"] {
            assert!(!is_function_word(w, &en), "{w}");
        }
        let all = stop_words(&en).unwrap();
        assert!(ENGLISH.function_words.iter().all(|w| all.contains(w)));
        assert!(!is_function_word("the", &Language::parse("fr").unwrap()));
    }
}
