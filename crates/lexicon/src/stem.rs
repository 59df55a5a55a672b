//! A word's stem: the part its forms share ("illuminates",
//! "illuminating"), by Snowball's stemmer for the language. Keyword routing
//! and the storyteller's guards compare words by it.

use rust_stemmers::{Algorithm, Stemmer};

use crate::Language;

/// Snowball's stemmer for `language`, where it has one.
fn algorithm(language: &Language) -> Option<Algorithm> {
    Some(match language.code() {
        "ar" => Algorithm::Arabic,
        "da" => Algorithm::Danish,
        "nl" => Algorithm::Dutch,
        "en" => Algorithm::English,
        "fi" => Algorithm::Finnish,
        "fr" => Algorithm::French,
        "de" => Algorithm::German,
        "el" => Algorithm::Greek,
        "hu" => Algorithm::Hungarian,
        "it" => Algorithm::Italian,
        "no" | "nb" => Algorithm::Norwegian,
        "pt" => Algorithm::Portuguese,
        "ro" => Algorithm::Romanian,
        "ru" => Algorithm::Russian,
        "es" => Algorithm::Spanish,
        "sv" => Algorithm::Swedish,
        "ta" => Algorithm::Tamil,
        "tr" => Algorithm::Turkish,
        _ => return None,
    })
}

/// The stem of lower-case `word` in `language`; the word itself where the
/// language has no stemmer.
pub fn stem(word: &str, language: &Language) -> String {
    match algorithm(language) {
        Some(algorithm) => Stemmer::create(algorithm).stem(word).into_owned(),
        None => word.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_of_a_word_share_its_stem() {
        let en = Language::english();
        assert_eq!(stem("illuminates", &en), stem("illuminating", &en));
        assert_eq!(stem("sneaking", &en), "sneak");
        let fr = Language::parse("fr").unwrap();
        assert_eq!(stem("chantait", &fr), stem("chanter", &fr));
    }

    #[test]
    fn a_language_without_a_stemmer_keeps_its_words() {
        let ja = Language::parse("ja").unwrap();
        assert_eq!(stem("spills", &ja), "spills");
    }
}
