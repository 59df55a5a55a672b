//! The last step of the fallback chain: "You [action]. [outcome] [flavour]"
//! in the story's language — no model, no network, always an answer, and
//! the same answer for the same input.

use narratoria_lexicon::{told_in, Language, Lines};
use serde_json::{Map, Value};

use crate::config::Style;

/// The fallback narrative, in the story's `language` (core's lines,
/// English where it has none). Promises a non-empty text — starting with
/// "You" in English — the same for the same action, style and tool outputs,
/// every check told as the outcome the rules decided, and no number from
/// the tools. The closing line names no place, weather or object: the
/// template knows nothing of the scene.
pub fn narrate(
    action: &str,
    style: Style,
    language: &Language,
    deps: &Map<String, Value>,
) -> String {
    let flavour = &Lines::of(language).flavour;
    let flavours = match style {
        Style::Terse => &flavour.terse,
        Style::Vivid => &flavour.vivid,
        Style::Poetic => &flavour.poetic,
    };
    let key = format!("{}|{}", action.trim().to_lowercase(), style.name());
    let flavour = &flavours[(fnv1a(key.as_bytes()) % flavours.len() as u64) as usize];
    let told = told_in(language, action, deps.values());
    format!("{told} {flavour}").trim_start().to_string()
}

/// FNV-1a: a stable hash (the standard library's is not stable across builds).
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn none() -> Map<String, Value> {
        Map::new()
    }

    fn en() -> Language {
        Language::english()
    }

    fn flavour(style: Style) -> Vec<String> {
        let f = &Lines::english().flavour;
        match style {
            Style::Terse => f.terse.clone(),
            Style::Vivid => f.vivid.clone(),
            Style::Poetic => f.poetic.clone(),
        }
    }

    #[test]
    fn is_deterministic_and_follows_the_style() {
        let a = narrate("I open the door", Style::Vivid, &en(), &none());
        assert_eq!(a, narrate("I open the door", Style::Vivid, &en(), &none()));
        assert!(a.starts_with("You open the door. "), "{a}");
        assert!(flavour(Style::Vivid).iter().any(|f| a.ends_with(f)), "{a}");
        let t = narrate("I open the door", Style::Terse, &en(), &none());
        assert!(flavour(Style::Terse).iter().any(|f| t.ends_with(f)), "{t}");
        let p = narrate("I open the door", Style::Poetic, &en(), &none());
        assert!(flavour(Style::Poetic).iter().any(|f| p.ends_with(f)), "{p}");
    }

    #[test]
    fn tells_the_outcome_of_a_check_without_its_numbers() {
        let deps = json!({"roll": {"formula": "1d20", "rolls": [3], "total": 3, "dc": 15,
                                   "outcome": "failure", "margin": -12}});
        let t = narrate("I attack", Style::Terse, &en(), deps.as_object().unwrap());
        assert!(t.starts_with("You try to attack, but you miss. "), "{t}");
        assert!(!t.chars().any(|c| c.is_ascii_digit()), "{t}");
    }

    #[test]
    fn a_french_story_falls_back_on_french_words() {
        let deps = json!({"roll": {"formula": "1d20", "rolls": [20], "total": 20, "dc": 15,
                                   "outcome": "criticalSuccess", "margin": 5}});
        let fr = Language::parse("fr").unwrap();
        let t = narrate(
            "J'escalade la falaise",
            Style::Vivid,
            &fr,
            deps.as_object().unwrap(),
        );
        assert!(
            t.starts_with("Cela se passe mieux que vous n'osiez l'espérer. "),
            "{t}"
        );
        let f = &Lines::of(&fr).flavour.vivid;
        assert!(f.iter().any(|line| t.ends_with(line.as_str())), "{t}");
    }
}
