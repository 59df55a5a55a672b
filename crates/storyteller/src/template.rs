//! The last step of the fallback chain: "You [action]. [flavour]" — no model,
//! no network, always an answer, and the same answer for the same input.

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
/// the same for the same action, style and dice, and no number beyond what
/// a dice result among `deps` says.
pub fn narrate(action: &str, style: Style, deps: &Map<String, Value>) -> String {
    let deed = deed(action);
    let flavours = match style {
        Style::Terse => TERSE,
        Style::Vivid => VIVID,
        Style::Poetic => POETIC,
    };
    let key = format!("{}|{}", action.trim().to_lowercase(), style.name());
    let flavour = flavours[(fnv1a(key.as_bytes()) % flavours.len() as u64) as usize];
    let mut text = format!("{deed} {flavour}");
    if let Some(total) = dice_total(deps) {
        text.push_str(&match style {
            Style::Terse => format!(" The dice say {total}."),
            Style::Vivid => format!(" Fate rolls a {total}."),
            Style::Poetic => format!(" Fate, tumbling, comes to rest at {total}."),
        });
    }
    text
}

/// "You [action]." from the player's words: "I open the door" → "You open the door.",
/// a question or a quote becomes something asked or said.
fn deed(action: &str) -> String {
    let a = action.split_whitespace().collect::<Vec<_>>().join(" ");
    let a = a.trim();
    if a.is_empty() {
        return "You pause.".into();
    }
    if a.starts_with('"') || a.starts_with('“') {
        return format!("You say {a}");
    }
    let body = a.trim_end_matches(['.', '!', '?', ';', ',', ' ']);
    if a.ends_with('?') {
        return format!("You ask: \"{body}?\"");
    }
    let words: Vec<&str> = body.split(' ').collect();
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    for (i, w) in words.iter().enumerate() {
        let lower = w.to_lowercase();
        let swapped = match lower.as_str() {
            "i" if i == 0 => None, // dropped: "I open" → "open"
            "i'm" | "im" if i == 0 => Some("are".to_string()),
            "i'll" if i == 0 => Some("will".to_string()),
            "i" => Some("you".to_string()),
            "am" if i == 1 && words[0].eq_ignore_ascii_case("i") => Some("are".to_string()),
            "my" => Some("your".to_string()),
            "me" => Some("you".to_string()),
            "mine" => Some("yours".to_string()),
            "myself" => Some("yourself".to_string()),
            _ if i == 0 && !is_acronym(w) => Some(lowercase_first(w)),
            _ => Some((*w).to_string()),
        };
        if let Some(s) = swapped {
            out.push(s);
        }
    }
    if out.is_empty() {
        return "You pause.".into();
    }
    format!("You {}.", out.join(" "))
}

fn is_acronym(w: &str) -> bool {
    w.chars().filter(|c| c.is_alphabetic()).count() > 1
        && w.chars()
            .filter(|c| c.is_alphabetic())
            .all(char::is_uppercase)
}

fn lowercase_first(w: &str) -> String {
    let mut c = w.chars();
    match c.next() {
        Some(f) => f.to_lowercase().chain(c).collect(),
        None => String::new(),
    }
}

/// The total of the first dice result among the dependencies, by tool id order.
fn dice_total(deps: &Map<String, Value>) -> Option<String> {
    deps.values().find_map(|v| {
        v.get("formula")?;
        v.get("total")
            .filter(|t| t.is_number())
            .map(Value::to_string)
    })
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
    fn turns_the_action_into_a_you_sentence() {
        assert_eq!(deed("I open the door"), "You open the door.");
        assert_eq!(deed("Draw my sword!"), "You draw your sword.");
        assert_eq!(
            deed("i am hiding behind the crates"),
            "You are hiding behind the crates."
        );
        assert_eq!(
            deed("I'm tired, let me rest"),
            "You are tired, let you rest."
        );
        assert_eq!(
            deed("what is that noise?"),
            "You ask: \"what is that noise?\""
        );
        assert_eq!(deed("\"Who goes there?\""), "You say \"Who goes there?\"");
        assert_eq!(deed("   "), "You pause.");
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
    fn mentions_a_dice_total() {
        let deps = json!({"roll": {"formula": "1d20", "rolls": [17], "total": 17}});
        let t = narrate("I attack", Style::Terse, deps.as_object().unwrap());
        assert!(t.ends_with("The dice say 17."), "{t}");
    }
}
