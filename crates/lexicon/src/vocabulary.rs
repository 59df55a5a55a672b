//! A language's vocabulary for reading prose: the words the storyteller's
//! guards read a sentence by (the player's "you", being and perceiving,
//! kinds of person, speech, talk of the story itself, words no sentence
//! ends on). One data file a language (`vocabulary/<code>.json`), read once.
//! English, French, Spanish and German ship
//! ([`crate::stop_words::SHIPPED`]); other languages have none, and only
//! the guards that need no words read their stories.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use serde::Deserialize;

use crate::stop_words::{elided_start, shipped, without_elision};
use crate::words::words_of;
use crate::{has_negation, is_function_word, stem, Language};

/// One language's words (lower case), as its data file holds them.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Words {
    /// The player's "you", and it with "are" run together ("you're").
    pub you: String,
    pub you_are: HashSet<String>,
    /// What may follow "you" without deciding what the player does.
    pub you_may: HashSet<String>,
    /// Verbs of being and feeling after "you" ("you feel relieved").
    pub being: HashSet<String>,
    pub first_person: HashSet<String>,
    /// Words saying something is not so, besides core's negations.
    pub negations: HashSet<String>,
    /// Kinds of person (singular), irregular plurals, the regular ending.
    pub people: HashSet<String>,
    pub plurals: HashMap<String, String>,
    pub plural_ending: String,
    /// "is a": a kind said of someone, unless after "there".
    pub copulas: HashSet<String>,
    pub articles: HashSet<String>,
    /// Words a noun phrase opens with: articles, demonstratives and
    /// possessives ("the", "its").
    pub determiners: HashSet<String>,
    /// The auxiliaries that tell what is yet to happen ("will"; one that
    /// starts with an apostrophe is a contraction's end: "'ll"). Empty
    /// where the language tells its future by the verb's own ending.
    pub foretelling: Vec<String>,
    pub there: String,
    pub speech: HashSet<String>,
    /// Talk of the story itself ([`talk_of_the_story`]).
    #[serde(borrow)]
    pub talk_of_the_story: Vec<&'static str>,
    /// Words a phrase of a deed may be cut before, keeping what comes
    /// first ("pick the lock | on the cellar door"): prepositions and the
    /// words that join clauses.
    pub phrase_starts: HashSet<String>,
    /// Words a cut-off sentence may not end on ("…, and"), and words no
    /// sentence ends on ("you see the.").
    pub loose_ends: HashSet<String>,
    pub cut_short: HashSet<String>,
    /// The language the words are of: its function words and stems are the
    /// lexicon's.
    #[serde(skip, default = "Language::english")]
    language: Language,
    #[serde(skip)]
    you_may_stems: HashSet<String>,
}

/// Each shipped language's words, in [`crate::stop_words::SHIPPED`]'s order.
static ALL: [LazyLock<Words>; 4] = [
    LazyLock::new(|| Words::read(include_str!("../vocabulary/en.json"), Language::english())),
    LazyLock::new(|| Words::read(include_str!("../vocabulary/fr.json"), language("fr"))),
    LazyLock::new(|| Words::read(include_str!("../vocabulary/es.json"), language("es"))),
    LazyLock::new(|| Words::read(include_str!("../vocabulary/de.json"), language("de"))),
];

fn language(code: &str) -> Language {
    Language::parse(code).expect("a shipped language's code")
}

/// The words of `language`, where the lexicon has them.
pub fn words_for(language: &Language) -> Option<&'static Words> {
    shipped(language).map(|i| &*ALL[i])
}

/// The English words, which ship.
pub fn english() -> &'static Words {
    &ALL[0]
}

/// Talk of the story itself or of its player rather than of its world
/// ("…, and the story is over."), or that unsays it ("It's all just a
/// dream."), in English: the host's answer stops at each, and the
/// `out_of_story` guard refuses a sentence that holds one.
pub fn talk_of_the_story() -> &'static [&'static str] {
    &ALL[0].talk_of_the_story
}

impl Words {
    fn read(json: &'static str, language: Language) -> Words {
        let mut words: Words = serde_json::from_str(json).expect("valid word files ship");
        words.language = language;
        // A kind of person is matched as [`Words::singular`] reads words.
        words.people = words.people.iter().map(|p| letters(p)).collect();
        words.you_may_stems = words.you_may.iter().map(|w| words.stem(w)).collect();
        words
    }

    /// Whether `word` is one the language's sentences all share: one of
    /// its function words ([`crate::stop_words`]).
    pub fn is_function_word(&self, word: &str) -> bool {
        is_function_word(word, &self.language)
    }

    /// Whether `word` is a clause's own: no function word, being or perceiving.
    pub fn is_own(&self, word: &str) -> bool {
        !self.is_function_word(word) && !self.you_may.contains(word)
    }

    /// Whether a run of words holds two that are not function words.
    pub fn says_something(&self, run: &[String]) -> bool {
        run.iter().filter(|w| !self.is_function_word(w)).count() >= 2
    }

    /// `word` lowercased, without punctuation nor an elided word before it,
    /// singular ("People" → "person", "l'homme" → "homme").
    pub fn singular(&self, word: &str) -> String {
        let lower = word.to_lowercase();
        let w = letters(without_elision(&lower, &self.language));
        if let Some(one) = self.plurals.get(&w) {
            return one.clone();
        }
        let doubled = self.plural_ending.repeat(2);
        match w.strip_suffix(self.plural_ending.as_str()) {
            Some(one) if w.len() > 3 && !w.ends_with(&doubled) => one.into(),
            _ => w,
        }
    }

    /// Each word of `text` lowercased, without punctuation, singular.
    pub fn singulars(&self, text: &str) -> Vec<String> {
        text.split_whitespace().map(|w| self.singular(w)).collect()
    }

    /// `word` singular, then by its stem ("illuminates", "illuminating").
    pub fn stem(&self, word: &str) -> String {
        stem(&self.singular(word), &self.language)
    }

    /// The stems of `words` that are their own: no function words, nor
    /// being and perceiving.
    pub fn own_of(&self, words: &[String]) -> HashSet<String> {
        words
            .iter()
            .filter(|w| !self.is_function_word(w))
            .map(|w| self.stem(w))
            .filter(|w| !w.is_empty() && !self.you_may_stems.contains(w))
            .collect()
    }

    /// Whether `words` say something is not so ("the guard is not there",
    /// "vous n'avez rien").
    pub fn negates(&self, words: &[String]) -> bool {
        let negation = |w: &str| self.negations.contains(w);
        has_negation(words)
            || words
                .iter()
                .any(|w| negation(w) || elided_start(w, &self.language).is_some_and(&negation))
    }

    /// Whether lower-case `word` is the speaker's "I", alone or elided
    /// into the word after it ("j'ouvre").
    pub fn is_first_person(&self, word: &str) -> bool {
        self.first_person.contains(word)
            || elided_start(word, &self.language).is_some_and(|s| self.first_person.contains(s))
    }

    /// Whether a clause's lower-case `words` tell what is yet to happen, in
    /// the narrator's voice: an auxiliary of the future ("the door will
    /// close", "you'll be rescued") that is not a noun ("against your
    /// will") nor a refusal now ("it will not give").
    pub fn foretells(&self, words: &[String]) -> bool {
        words.iter().enumerate().any(|(i, w)| {
            let contraction = self
                .foretelling
                .iter()
                .any(|f| f.starts_with('\'') && w.len() > f.len() && w.ends_with(f.as_str()));
            let auxiliary = contraction || self.foretelling.contains(w);
            // "your will", "against his will": after a determiner or a
            // preposition, the word is a noun.
            let noun = !contraction
                && i > 0
                && words.get(i - 1).is_some_and(|before| {
                    self.determiners.contains(before)
                        || (self.phrase_starts.contains(before)
                            && !crate::words::JOINING_WORDS.contains(&before.as_str()))
                });
            let refusal = words.get(i + 1).is_some_and(|next| {
                has_negation(std::slice::from_ref(next)) || self.negations.contains(next)
            });
            auxiliary && !noun && !refusal
        })
    }

    /// The language the words are of.
    pub fn language(&self) -> &Language {
        &self.language
    }
}

/// `word`'s letters, lower case.
fn letters(word: &str) -> String {
    word.chars()
        .filter(|c| c.is_alphabetic())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The English words of their own of `text` ([`Words::own_of`]).
pub fn own_words(text: &str) -> HashSet<String> {
    english().own_of(&words_of(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_yet_to_happen_is_told_by_its_auxiliary() {
        let en = english();
        let foretells = |s: &str| en.foretells(&words_of(s));
        assert!(foretells("the airlock door will close"));
        assert!(foretells("and you'll be rescued"));
        assert!(foretells("You shall see the king"));
        assert!(!foretells("it will not give"));
        assert!(!foretells("the door won't open"));
        assert!(!foretells("you bend it to your will"));
        assert!(!foretells("the lamp flickers"));
        // Where the future is the verb's own ending, nothing is read as it.
        let fr = words_for(&Language::parse("fr").unwrap()).unwrap();
        assert!(!fr.foretells(&words_of("la porte se fermera")));
    }

    #[test]
    fn french_spanish_and_german_ship_their_words() {
        let fr = words_for(&Language::parse("fr").unwrap()).expect("French words");
        assert_eq!(fr.you, "vous");
        assert_eq!(fr.singular("L'homme"), "homme");
        assert_eq!(fr.singular("gardes"), "garde");
        assert!(fr.people.contains(&fr.singular("quelqu'un")));
        assert!(fr.is_first_person("j'ouvre") && fr.is_first_person("je"));
        assert!(!fr.is_first_person("jouvre"));
        assert!(fr.negates(&["vous".into(), "n'avez".into(), "peur".into()]));
        let es = words_for(&Language::parse("es").unwrap()).expect("Spanish words");
        assert_eq!(es.singular("Mujeres"), "mujer");
        assert_eq!(es.singular("guardias"), "guardia");
        let de = words_for(&Language::parse("de").unwrap()).expect("German words");
        assert_eq!(de.singular("Männer"), "mann");
        assert_eq!(de.singular("Ritter"), "ritter");
        assert_eq!(de.stem("Wachen"), de.stem("Wache"));
        for code in crate::stop_words::SHIPPED {
            let language = Language::parse(code).unwrap();
            let words = words_for(&language).unwrap();
            assert_eq!(words.language(), &language);
            // Each language's own words are read by its own function words.
            assert!(words.is_function_word(&words.you), "{code}");
        }
    }

    #[test]
    fn english_ships_and_a_language_without_a_file_has_no_words() {
        let en = words_for(&Language::english()).expect("English words");
        assert!(en.people.contains("stranger"));
        assert_eq!(en.singular("Women"), "woman");
        assert_eq!(en.singular("guards"), "guard");
        assert_eq!(en.singular("glass"), "glass");
        assert_eq!(en.stem("illuminates"), en.stem("illuminating"));
        assert!(words_for(&Language::parse("ja").unwrap()).is_none());
        assert_eq!(talk_of_the_story(), en.talk_of_the_story);
    }

    #[test]
    fn the_stemmer_is_the_languages_own() {
        assert_eq!(english().language, Language::english());
        let bare = r#"{"you": "", "you_are": [], "you_may": [], "being": [], "first_person": [], "negations": [], "people": [], "plurals": {}, "plural_ending": "", "copulas": [], "articles": [], "determiners": [], "foretelling": [], "there": "", "speech": [], "talk_of_the_story": [], "phrase_starts": [], "loose_ends": [], "cut_short": []}"#;
        let ja = Language::parse("ja").unwrap();
        assert_eq!(Words::read(bare, ja).stem("spills"), "spills");
    }
}
