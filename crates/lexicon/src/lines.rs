//! One language's lines for a turn told without a model, and for what the
//! rules decided as the writer reads it: a data file per language
//! (`crates/lexicon/lines/<code>.json`: English, French, Spanish and German
//! ship), read once (docs/stories.md, "Language"). A language without a
//! file is told in English lines.

use std::collections::HashMap;
use std::sync::LazyLock;

use serde::Deserialize;

use super::facts::Verdict;
use super::language::Language;

/// One language's lines. Placeholders in braces (`{faction}`) are filled
/// by the caller.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Lines {
    /// The player's "you", as the writer is asked to address them.
    pub you: String,
    /// A colon as the language sets it between a deed and its outcome
    /// (French puts a space before it, as its other lines do: "… : c'est
    /// un échec").
    pub colon: String,
    /// How a check went, without a deed ("it fails, narrowly").
    pub check: Checks,
    /// A roll with no difficulty.
    pub chance: String,
    /// A faction by its `{name}` ("The {name}").
    pub faction: String,
    pub think_better: String,
    pub think_worse: String,
    pub unmoved: String,
    pub regard: String,
    /// The reputation skill's standings ("friendly") in this language; one
    /// missing is told as the skill named it.
    pub standings: HashMap<String, String>,
    pub recalled_nothing: String,
    /// What a recall brought back, for the writer (`{memories}`).
    pub recalled: String,
    /// The first memory, told to the player (`{memory}`).
    pub you_remember: String,
    pub unavailable: String,
    /// Who is in the scene with the player: `{people}`, each by name, and
    /// by [`Lines::present_person`] when they are not neutral.
    pub present: String,
    /// Someone present and how they regard the player (`{name}`,
    /// `{attitude}`): a phrase, not a label a writer copies.
    pub present_person: String,
    /// The player's action in their own words (`{input}`), quoted: what a
    /// turn told without a model says when nothing else tells it in a
    /// language whose grammar the template does not turn to "you".
    pub acted: String,
    /// How a check went when the player's words tell no deed, a sentence.
    pub without_a_deed: ByVerdict,
    /// Lines that close a turn told without a model, by style.
    pub flavour: Flavour,
    /// What a turn says when no plan came out at all (`{input}`).
    pub no_plan: Vec<String>,
}

/// A check's outcome in words, the narrow ones apart.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Checks {
    pub critical_success: String,
    pub success: String,
    pub narrow_success: String,
    pub narrow_failure: String,
    pub failure: String,
    pub critical_failure: String,
}

/// One sentence per verdict.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ByVerdict {
    pub critical_success: String,
    pub success: String,
    pub failure: String,
    pub critical_failure: String,
}

impl ByVerdict {
    pub fn of(&self, verdict: Verdict) -> &str {
        match verdict {
            Verdict::CriticalSuccess => &self.critical_success,
            Verdict::Success => &self.success,
            Verdict::Failure => &self.failure,
            Verdict::CriticalFailure => &self.critical_failure,
        }
    }
}

/// Closing lines, one set per narration style; none names a place, weather
/// or object, since the template knows nothing of the scene.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Flavour {
    pub terse: Vec<String>,
    pub vivid: Vec<String>,
    pub poetic: Vec<String>,
}

impl Flavour {
    /// The lines of a narration `style` ("terse", "vivid", "poetic");
    /// another style reads as "vivid".
    pub fn of_style(&self, style: &str) -> &[String] {
        match style {
            "terse" => &self.terse,
            "poetic" => &self.poetic,
            _ => &self.vivid,
        }
    }
}

static SHIPPED: LazyLock<HashMap<&'static str, Lines>> = LazyLock::new(|| {
    [
        ("en", include_str!("../lines/en.json")),
        ("fr", include_str!("../lines/fr.json")),
        ("es", include_str!("../lines/es.json")),
        ("de", include_str!("../lines/de.json")),
    ]
    .into_iter()
    .map(|(code, json)| {
        (
            code,
            serde_json::from_str(json).expect("shipped lines read"),
        )
    })
    .collect()
});

impl Lines {
    /// The lines of `language`, or English ones where it has none.
    pub fn of(language: &Language) -> &'static Lines {
        Lines::shipped(language).unwrap_or_else(Lines::english)
    }

    /// The lines of `language`, where they ship.
    pub fn shipped(language: &Language) -> Option<&'static Lines> {
        SHIPPED.get(language.code())
    }

    pub fn english() -> &'static Lines {
        &SHIPPED["en"]
    }

    /// `standing` (as the reputation skill names it) in this language.
    pub fn standing<'a>(&'a self, standing: &'a str) -> &'a str {
        self.standings
            .get(standing)
            .map_or(standing, String::as_str)
    }

    /// A faction id as a name at the start of a sentence: "city-watch" →
    /// "The city watch" (an id that already starts with the pattern's own
    /// article keeps only its own: "the-guild" → "The guild").
    pub fn faction_name(&self, faction: &str) -> String {
        let words = faction.replace(['-', '_'], " ");
        let words = words.trim();
        let article = self.faction.split("{name}").next().unwrap_or("").trim();
        let own_article = !article.is_empty()
            && words
                .to_lowercase()
                .strip_prefix(&article.to_lowercase())
                .is_some_and(|rest| rest.starts_with(' '));
        if own_article {
            return super::facts::sentence_case(words);
        }
        self.faction.replace("{name}", words)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_language_reads_and_english_stands_in_for_the_rest() {
        for code in ["en", "fr", "es", "de"] {
            let lines = Lines::shipped(&Language::parse(code).unwrap());
            let lines = lines.unwrap_or_else(|| panic!("{code} ships"));
            assert_eq!(lines.no_plan.len(), 3, "{code}");
            assert!(lines.flavour.terse.len() >= 3, "{code}");
        }
        let welsh = Language::parse("cy").unwrap();
        assert!(Lines::shipped(&welsh).is_none());
        assert_eq!(Lines::of(&welsh).you, "you");
    }

    #[test]
    fn a_faction_is_named_with_the_languages_article_once() {
        let en = Lines::english();
        assert_eq!(en.faction_name("city-watch"), "The city watch");
        assert_eq!(en.faction_name("the_guild"), "The guild");
        let fr = Lines::of(&Language::parse("fr").unwrap());
        assert_eq!(fr.faction_name("city-watch"), "La faction « city watch »");
        assert_eq!(fr.standing("friendly"), "amicale");
        assert_eq!(fr.standing("revered"), "revered");
    }
}
