//! A language's stop words: words so common that any two sentences may
//! share them ("the", "you", "would"), so they say nothing of what a text is
//! about. Keyword routing leaves them out before stemming, and the
//! storyteller's guards do not count them as a clause's own words. One
//! list a language (`stop_words/<code>.json`); English ships.

use std::collections::HashSet;
use std::sync::LazyLock;

use crate::Language;

static ENGLISH: LazyLock<HashSet<&'static str>> = LazyLock::new(|| {
    serde_json::from_str(include_str!("../stop_words/en.json")).expect("valid stop words ship")
});

/// The stop words of `language` (lower case), where it has a list.
pub fn stop_words(language: &Language) -> Option<&'static HashSet<&'static str>> {
    language.is_english().then(|| &*ENGLISH)
}

/// Whether lower-case `word` is one of `language`'s stop words; no word is
/// where the language has no list.
pub fn is_stop_word(word: &str, language: &Language) -> bool {
    stop_words(language).is_some_and(|words| words.contains(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn english_has_stop_words_and_other_languages_none() {
        let en = Language::english();
        for w in ["the", "you", "you're", "would", "through"] {
            assert!(is_stop_word(w, &en), "{w}");
        }
        assert!(!is_stop_word("dragon", &en));
        let fr = Language::parse("fr").unwrap();
        assert!(stop_words(&fr).is_none());
        assert!(!is_stop_word("the", &fr));
    }
}
