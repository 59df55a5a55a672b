//! The language a story is told in (docs/stories.md, "Language"): named by
//! its ISO 639 code, taken from the scenario or detected from the player's
//! first words, and asked of the writer in every narration prompt.

use serde::{Deserialize, Serialize};

/// A story's language, as its ISO 639-1 code where the language has one
/// ("en", "fr"), else its ISO 639-3 code.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Language(String);

/// Why a name is not a language.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a language: give an ISO 639 code (\"fr\", \"fra\") or an English name (\"French\")")]
pub struct NotALanguage(pub String);

impl Language {
    /// English, the language a story has when nothing says otherwise.
    pub fn english() -> Language {
        Language("en".into())
    }

    /// Reads an ISO 639-1 or 639-3 code or an English name, in any case
    /// ("fr", "FRA", "French").
    pub fn parse(name: &str) -> Result<Language, NotALanguage> {
        let lower = name.trim().to_lowercase();
        let found = match lower.len() {
            2 => isolang::Language::from_639_1(&lower),
            3 => isolang::Language::from_639_3(&lower),
            _ => None,
        }
        .or_else(|| isolang::Language::from_name_lowercase(&lower));
        found
            .map(Language::of)
            .ok_or_else(|| NotALanguage(name.to_string()))
    }

    fn of(lang: isolang::Language) -> Language {
        Language(lang.to_639_1().unwrap_or(lang.to_639_3()).to_string())
    }

    /// The language `text` is written in, when it says enough to tell
    /// reliably (a few words of a player's first action usually do); `None`
    /// for text too short or too mixed to judge.
    pub fn detect(text: &str) -> Option<Language> {
        let info = whatlang::detect(text)?;
        // Short inputs are judged on letters alone: below this, "I look
        // around" reads as several languages at once.
        let letters = text.chars().filter(|c| c.is_alphabetic()).count();
        if letters < 12 {
            return None;
        }
        if info.is_reliable() || info.confidence() >= 0.5 {
            return isolang::Language::from_639_3(info.lang().code()).map(Language::of);
        }
        Language::by_function_words(text)
    }

    /// The language, of those the lexicon ships words for, whose function
    /// words `text` uses most, when it uses at least two of them and more than of any other
    /// ("Le pregunto a Tomás qué sabe del barco negro": le, a, qué, del),
    /// for a short sentence the letters alone do not tell.
    fn by_function_words(text: &str) -> Option<Language> {
        let words: Vec<String> = text
            .split(|c: char| !c.is_alphabetic())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect();
        let mut counts: Vec<(usize, Language)> = ["en", "fr", "es", "de"]
            .into_iter()
            .filter_map(|code| Language::parse(code).ok())
            .map(|language| {
                let n = words
                    .iter()
                    .filter(|w| crate::stop_words::is_function_word(w, &language))
                    .count();
                (n, language)
            })
            .collect();
        counts.sort_by(|a, b| b.0.cmp(&a.0));
        match counts.as_slice() {
            [(best, language), (second, _), ..] if *best >= 2 && best > second => {
                Some(language.clone())
            }
            _ => None,
        }
    }

    /// The code ("fr").
    pub fn code(&self) -> &str {
        &self.0
    }

    /// The language's English name ("French"), as a prompt asks for it.
    pub fn name(&self) -> &'static str {
        self.iso().map(|l| l.to_name()).unwrap_or("English")
    }

    /// The language's own name for itself ("français"), for the player.
    pub fn autonym(&self) -> &'static str {
        self.iso()
            .and_then(|l| l.to_autonym())
            .unwrap_or_else(|| self.name())
    }

    pub fn is_english(&self) -> bool {
        self.0 == "en"
    }

    fn iso(&self) -> Option<isolang::Language> {
        match self.0.len() {
            2 => isolang::Language::from_639_1(&self.0),
            _ => isolang::Language::from_639_3(&self.0),
        }
    }
}

impl Default for Language {
    fn default() -> Self {
        Language::english()
    }
}

impl TryFrom<String> for Language {
    type Error = NotALanguage;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        Language::parse(&value)
    }
}

impl From<Language> for String {
    fn from(value: Language) -> Self {
        value.0
    }
}

impl std::fmt::Display for Language {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_names_read_as_one_language() {
        for name in ["fr", "FR", "fra", "French", "french"] {
            assert_eq!(Language::parse(name).unwrap().code(), "fr", "{name}");
        }
        assert_eq!(Language::parse("fr").unwrap().name(), "French");
        assert!(Language::parse("xx").is_err());
        assert!(Language::parse("").is_err());
        let err = Language::parse("Elvish").unwrap_err();
        assert!(err.to_string().contains("Elvish"), "{err}");
    }

    #[test]
    fn a_players_first_words_tell_their_language() {
        let fr = Language::detect("J'entre dans l'auberge et je regarde autour de moi");
        assert_eq!(fr.map(|l| l.code().to_string()), Some("fr".into()));
        let en = Language::detect("I walk into the harbour office and ask for the ledger");
        assert_eq!(en, Some(Language::english()));
        let de = Language::detect("Ich öffne die Tür und gehe langsam in den dunklen Keller");
        assert_eq!(de.map(|l| l.code().to_string()), Some("de".into()));
        assert_eq!(Language::detect("hi"), None);
        // Short sentences the letters alone leave unsure of are told by
        // their function words.
        for (text, code) in [
            ("Le pregunto a Tomás qué sabe del barco negro.", "es"),
            ("Miro la cala con el catalejo.", "es"),
            ("Je m'assieds au comptoir et je commande un pastis.", "fr"),
        ] {
            let found = Language::detect(text).map(|l| l.code().to_string());
            assert_eq!(found.as_deref(), Some(code), "{text}");
        }
    }

    #[test]
    fn a_language_travels_as_its_code() {
        let fr: Language = serde_json::from_str("\"French\"").unwrap();
        assert_eq!(serde_json::to_string(&fr).unwrap(), "\"fr\"");
        assert!(serde_json::from_str::<Language>("\"klingon!\"").is_err());
    }
}
