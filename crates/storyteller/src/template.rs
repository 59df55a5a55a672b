//! The last step of the fallback chain: "You [action]. [outcome] [flavour]" —
//! no model, no network, always an answer, and the same answer for the same input.

use narratoria_core::narration::told;
use serde_json::{Map, Value};

use crate::config::Style;

const TERSE: &[&str] = &[
    "Nothing stirs.",
    "The moment passes.",
    "It is done.",
    "The world waits.",
    "Silence follows.",
    "So be it.",
];

const VIVID: &[&str] = &[
    "Somewhere nearby, a door creaks and falls still.",
    "The air smells of rain and old stone.",
    "Torchlight flickers across the walls as you move.",
    "A cold wind tugs at your cloak.",
    "Gravel crunches underfoot; a distant bell answers.",
    "Dust drifts through a shaft of pale light.",
];

const POETIC: &[&str] = &[
    "The hour leans close, listening.",
    "Shadows gather like unspoken words.",
    "The wind carries your deed into the dark, a seed on the water.",
    "Stars turn slowly overhead, keeping their counsel.",
    "Somewhere, a story turns its page.",
    "The silence after is a held breath.",
];

/// The fallback narrative. Promises a non-empty text starting with "You",
/// the same for the same action, style and tool outputs, every check told
/// as the outcome the rules decided, and no number from the tools.
pub fn narrate(action: &str, style: Style, deps: &Map<String, Value>) -> String {
    let flavours = match style {
        Style::Terse => TERSE,
        Style::Vivid => VIVID,
        Style::Poetic => POETIC,
    };
    let key = format!("{}|{}", action.trim().to_lowercase(), style.name());
    let flavour = flavours[(fnv1a(key.as_bytes()) % flavours.len() as u64) as usize];
    format!("{} {flavour}", told(action, deps.values()))
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

    #[test]
    fn is_deterministic_and_follows_the_style() {
        let a = narrate("I open the door", Style::Vivid, &none());
        assert_eq!(a, narrate("I open the door", Style::Vivid, &none()));
        assert!(a.starts_with("You open the door. "), "{a}");
        assert!(VIVID.iter().any(|f| a.ends_with(f)), "{a}");
        let t = narrate("I open the door", Style::Terse, &none());
        assert!(TERSE.iter().any(|f| t.ends_with(f)), "{t}");
        let p = narrate("I open the door", Style::Poetic, &none());
        assert!(POETIC.iter().any(|f| p.ends_with(f)), "{p}");
    }

    #[test]
    fn tells_the_outcome_of_a_check_without_its_numbers() {
        let deps = json!({"roll": {"formula": "1d20", "rolls": [3], "total": 3, "dc": 15,
                                   "outcome": "failure", "margin": -12}});
        let t = narrate("I attack", Style::Terse, deps.as_object().unwrap());
        assert!(t.starts_with("You try to attack, but you miss. "), "{t}");
        assert!(!t.chars().any(|c| c.is_ascii_digit()), "{t}");
    }
}
