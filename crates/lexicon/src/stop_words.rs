//! A language's stop words: words so common that any two sentences may
//! share them ("the", "you", "would"), so they say nothing of what a text is
//! about. Keyword routing leaves them out before stemming, and a recall's
//! full-text query leaves them out. Their core, the function words
//! (articles, pronouns, prepositions, "be" and "have"), are what the
//! storyteller's guards do not count as a clause's own words: a guard reads
//! "you're not sure if" as a way of speaking with two words of its own.
//!
//! One file a language (`stop_words/<code>.json`: the elided forms, the
//! function words, then the other stop words); English, French, Spanish and
//! German ship ([`SHIPPED`]). "Who" is not one: it asks after a person,
//! which is what a recall is about ("Who is Mara?"), and keyword routing
//! reads it so.

use std::collections::HashSet;
use std::sync::LazyLock;

use serde::Deserialize;

use crate::Language;

/// One language's stop words, as its file holds them.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    /// Words that lose their vowel before another word and join it with an
    /// apostrophe (French "l'", "j'"): written as the word's start.
    #[serde(default, borrow)]
    elided: Vec<&'static str>,
    #[serde(borrow)]
    function_words: Vec<&'static str>,
    #[serde(borrow)]
    other: Vec<&'static str>,
}

/// A language's stop words, read.
struct StopWords {
    elided: Vec<&'static str>,
    function_words: HashSet<&'static str>,
    all: HashSet<&'static str>,
}

impl StopWords {
    fn read(json: &'static str) -> StopWords {
        let file: File = serde_json::from_str(json).expect("valid stop words ship");
        StopWords {
            elided: file.elided,
            function_words: file.function_words.iter().copied().collect(),
            all: file.function_words.into_iter().chain(file.other).collect(),
        }
    }
}

/// The languages whose word lists ship with the lexicon: their stop words
/// here, their vocabulary in [`crate::vocabulary`].
pub const SHIPPED: [&str; 4] = ["en", "fr", "es", "de"];

/// Each shipped language's stop words, in [`SHIPPED`]'s order.
static ALL: [LazyLock<StopWords>; 4] = [
    LazyLock::new(|| StopWords::read(include_str!("../stop_words/en.json"))),
    LazyLock::new(|| StopWords::read(include_str!("../stop_words/fr.json"))),
    LazyLock::new(|| StopWords::read(include_str!("../stop_words/es.json"))),
    LazyLock::new(|| StopWords::read(include_str!("../stop_words/de.json"))),
];

/// Where `language` stands in [`SHIPPED`], when its word lists ship.
pub(crate) fn shipped(language: &Language) -> Option<usize> {
    SHIPPED.iter().position(|code| *code == language.code())
}

fn of(language: &Language) -> Option<&'static StopWords> {
    shipped(language).map(|i| &*ALL[i])
}

/// Lower-case `word` without the elided word it starts with, where its
/// language elides ("l'auberge" → "auberge", "j'ouvre" → "ouvre"); the
/// word itself otherwise, and where nothing follows the apostrophe.
pub fn without_elision<'a>(word: &'a str, language: &Language) -> &'a str {
    let Some(words) = of(language) else {
        return word;
    };
    words
        .elided
        .iter()
        .find_map(|e| {
            let straight = word.strip_prefix(e);
            let curly = e
                .strip_suffix('\'')
                .and_then(|bare| word.strip_prefix(bare))
                .and_then(|rest| rest.strip_prefix('’'));
            straight.or(curly).filter(|rest| !rest.is_empty())
        })
        .unwrap_or(word)
}

/// The elided word `word` starts with, apostrophe included ("j'" of
/// "j'ouvre"), where its language elides and something follows.
pub fn elided_start<'a>(word: &'a str, language: &Language) -> Option<&'a str> {
    let rest = without_elision(word, language);
    (rest.len() < word.len()).then(|| &word[..word.len() - rest.len()])
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
    fn each_shipped_language_has_its_stop_words_and_others_none() {
        let en = Language::english();
        for w in ["the", "you", "you're", "would", "through", "if"] {
            assert!(is_stop_word(w, &en), "{w}");
        }
        assert!(!is_stop_word("dragon", &en));
        assert!(!is_stop_word("who", &en));
        let fr = Language::parse("fr").unwrap();
        assert!(is_stop_word("les", &fr) && is_function_word("vous", &fr));
        assert!(!is_stop_word("the", &fr) && !is_stop_word("auberge", &fr));
        let es = Language::parse("es").unwrap();
        assert!(is_stop_word("los", &es) && !is_stop_word("cerradura", &es));
        let de = Language::parse("de").unwrap();
        assert!(is_function_word("der", &de) && !is_stop_word("schloss", &de));
        for code in SHIPPED {
            assert!(
                stop_words(&Language::parse(code).unwrap()).is_some(),
                "{code}"
            );
        }
        let ja = Language::parse("ja").unwrap();
        assert!(stop_words(&ja).is_none() && !is_stop_word("the", &ja));
    }

    #[test]
    fn an_elided_word_is_read_apart_from_the_word_it_joins() {
        let fr = Language::parse("fr").unwrap();
        assert_eq!(without_elision("l'auberge", &fr), "auberge");
        assert_eq!(without_elision("j’ouvre", &fr), "ouvre");
        assert_eq!(without_elision("qu'il", &fr), "il");
        assert_eq!(without_elision("l'", &fr), "l'");
        assert_eq!(without_elision("aujourd'hui", &fr), "aujourd'hui");
        assert_eq!(elided_start("j'entre", &fr), Some("j'"));
        assert_eq!(elided_start("entre", &fr), None);
        let en = Language::english();
        assert_eq!(without_elision("l'auberge", &en), "l'auberge");
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
        assert!(ALL[0].function_words.iter().all(|w| all.contains(w)));
        assert!(!is_function_word("the", &Language::parse("fr").unwrap()));
        for code in SHIPPED {
            let language = Language::parse(code).unwrap();
            let words = of(&language).unwrap();
            assert!(words.function_words.iter().all(|w| words.all.contains(w)));
        }
    }
}
