//! The last step of the fallback chain: "You [action]. [outcome] [flavour]" —
//! no model, no network, always an answer, and the same answer for the same input.

use narratoria_core::narration::told;
use serde_json::{Map, Value};

use crate::config::Style;

/// Flavour lines, one set per style. They name no place, weather or
/// object: the template knows nothing of the scene, so it must not invent
/// one (a door creaking in the middle of a desert).
const TERSE: &[&str] = &[
    "That is that.",
    "The moment passes.",
    "It is done.",
    "The world waits.",
    "Then, a pause.",
    "So be it.",
];

const VIVID: &[&str] = &[
    "For a moment, everything is very still.",
    "You let out the breath you were holding.",
    "You take a moment to gather yourself.",
    "The moment stretches, then passes.",
    "You steady yourself and look ahead.",
    "Whatever comes next, it starts here.",
];

const POETIC: &[&str] = &[
    "The hour leans close, listening.",
    "What comes next is not yet written.",
    "Time takes a breath and moves on.",
    "Somewhere, a story turns its page.",
    "The silence after is a held breath.",
    "The moment settles, and is gone.",
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
