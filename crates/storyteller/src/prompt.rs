//! The prompt every provider gets: a system message saying how to narrate
//! (with the style), and a user message holding the facts of the turn.

use serde_json::{Map, Value};

use crate::config::Style;

/// The most characters of free context, of one tool's output and of the
/// session state put into a prompt (the default local model reads ≈ 300
/// tokens a second, so a short prompt is a fast first word).
const CONTEXT_CHARS: usize = 3000;
const DEP_CHARS: usize = 600;
const STATE_CHARS: usize = 1200;

/// What the turn's prose must be grounded in.
#[derive(Debug, Clone, Copy)]
pub struct Facts<'a> {
    /// The player's action, in their words.
    pub action: &'a str,
    /// Free context from the plan (recent events, recalled memories).
    pub context: Option<&'a str>,
    /// Outputs of the tools this one depends on, by tool id (`null` = failed).
    pub deps: &'a Map<String, Value>,
    /// The session state snapshot.
    pub state: &'a Value,
}

/// A system and a user message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    pub system: String,
    pub user: String,
}

/// How each style reads, as told to the model.
pub fn style_guide(style: Style) -> &'static str {
    match style {
        Style::Terse => "terse — one to three short, plain sentences; no flourishes",
        Style::Vivid => {
            "vivid — concrete sensory detail (sight, sound, smell, touch) and strong verbs; one or two short paragraphs"
        }
        Style::Poetic => {
            "poetic — lyrical, rhythmic prose with imagery and metaphor; one short paragraph"
        }
    }
}

/// Builds the prompt. Promises: the system message names the style
/// (`Style: <name>`) and a length bound derived from `max_tokens`; the user
/// message holds the action, then the context, tool results and state that
/// are present, each bounded in length.
pub fn build(facts: &Facts, style: Style, max_tokens: u32) -> Prompt {
    let words = (max_tokens as usize * 3 / 4).clamp(20, 700);
    let system = format!(
        "You are the narrator of an interactive story. The player has just acted; write what happens next.\n\
         - Write in the second person (\"you\"), present tense.\n\
         - Tell the outcome of the player's action and how the world reacts. Never decide what the player does next or speak for them.\n\
         - Stay true to the facts you are given: tool results (dice rolls, memories, reputation standings) and the story state decide what happened. On a d20, 1 is a fumble, 10 or less usually fails, 15 or more succeeds, 20 is a triumph. Never mention dice, numbers, scores or game mechanics.\n\
         - Write only the narrative: no title, no lists, no notes, no questions to the player.\n\
         Style: {}.\n\
         Length: at most about {words} words.",
        style_guide(style)
    );

    let mut user = format!("Player's action: {}\n", one_line(facts.action, 2000));
    if let Some(c) = facts.context.map(str::trim).filter(|c| !c.is_empty()) {
        user.push_str(&format!("\nContext:\n{}\n", clip(c, CONTEXT_CHARS)));
    }
    if !facts.deps.is_empty() {
        user.push_str("\nTool results:\n");
        for (id, output) in facts.deps {
            user.push_str(&format!("- {id}: {}\n", describe(output)));
        }
    }
    if let Some(state) = state_line(facts.state) {
        user.push_str(&format!("\nStory state: {state}\n"));
    }
    user.push_str("\nNarrate what happens next.");
    Prompt { system, user }
}

/// One tool's output in words: dice, memories and standings by their known
/// shapes, anything else as compact JSON.
pub fn describe(output: &Value) -> String {
    if output.is_null() {
        return "failed or unavailable (do not assume its result)".into();
    }
    if let (Some(total), Some(formula)) = (output.get("total"), output.get("formula")) {
        let reason = output
            .get("reason")
            .and_then(Value::as_str)
            .map(|r| format!(" for \"{}\"", one_line(r, 200)))
            .unwrap_or_default();
        let rolls = output
            .get("rolls")
            .filter(|r| r.as_array().is_some_and(|a| !a.is_empty()))
            .map(|r| format!(" (dice {})", compact(r, 120)))
            .unwrap_or_default();
        return format!(
            "dice roll{reason}: {} = {}{rolls}",
            text_of(formula),
            text_of(total)
        );
    }
    if let Some(memories) = output.get("memories").and_then(Value::as_array) {
        if memories.is_empty() {
            return "no memories recalled".into();
        }
        let items: Vec<String> = memories
            .iter()
            .take(8)
            .map(|m| {
                m.get("summary")
                    .and_then(Value::as_str)
                    .map(|s| one_line(s, 200))
                    .unwrap_or_else(|| compact(m, 200))
            })
            .collect();
        return clip(&format!("memories: {}", items.join(" | ")), DEP_CHARS);
    }
    if let Some(factions) = output.get("factions").and_then(Value::as_array) {
        let items: Vec<String> = factions.iter().take(12).map(standing).collect();
        return clip(&format!("reputation: {}", items.join("; ")), DEP_CHARS);
    }
    if output.get("standing").is_some() {
        return format!("reputation: {}", standing(output));
    }
    compact(output, DEP_CHARS)
}

fn standing(v: &Value) -> String {
    let faction = ["factionId", "faction_id", "faction", "name"]
        .iter()
        .find_map(|k| v.get(*k).and_then(Value::as_str))
        .unwrap_or("a faction");
    let standing = v.get("standing").map(text_of).unwrap_or_default();
    let score = v
        .get("score")
        .map(|s| format!(" ({})", text_of(s)))
        .unwrap_or_default();
    let reason = v
        .get("reason")
        .and_then(Value::as_str)
        .filter(|r| !r.is_empty())
        .map(|r| format!(", after \"{}\"", one_line(r, 120)))
        .unwrap_or_default();
    format!("{faction} is {standing}{score}{reason}")
}

fn state_line(state: &Value) -> Option<String> {
    match state {
        Value::Null => None,
        Value::Object(m) if m.is_empty() => None,
        v => Some(compact(v, STATE_CHARS)),
    }
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => one_line(s, 200),
        other => other.to_string(),
    }
}

fn compact(v: &Value, max: usize) -> String {
    clip(&v.to_string(), max)
}

fn one_line(s: &str, max: usize) -> String {
    clip(&s.split_whitespace().collect::<Vec<_>>().join(" "), max)
}

/// `s` cut to at most `max` characters, with an ellipsis when cut.
pub fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_string(),
        Some((i, _)) => format!("{}…", &s[..i]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn grounds_the_prose_in_tool_results_and_state() {
        let deps = json!({
            "sneak": {"formula": "1d20+3", "rolls": [14], "total": 17, "reason": "Sneak past the guard"},
            "remember": {"mode": "hybrid", "memories": [{"summary": "Hilda lent us 20 gold."}]},
            "standing": {"factionId": "city_guard", "score": -20, "standing": "unfriendly"},
            "broken": null
        });
        let state = json!({"location": "Ashford gate"});
        let facts = Facts {
            action: "I sneak past the guard",
            context: Some("It is night."),
            deps: deps.as_object().unwrap(),
            state: &state,
        };
        let p = build(&facts, Style::Poetic, 200);
        assert!(p.system.contains("Style: poetic"), "{}", p.system);
        assert!(p.system.contains("150 words"), "{}", p.system);
        assert!(p
            .user
            .starts_with("Player's action: I sneak past the guard"));
        assert!(p.user.contains("It is night."));
        assert!(p.user.contains("1d20+3 = 17"), "{}", p.user);
        assert!(p.user.contains("Hilda lent us 20 gold."));
        assert!(
            p.user.contains("city_guard is unfriendly (-20)"),
            "{}",
            p.user
        );
        assert!(p.user.contains("broken: failed or unavailable"));
        assert!(p.user.contains("Ashford gate"));
    }

    #[test]
    fn long_parts_are_clipped() {
        let big = "x".repeat(10_000);
        let state = json!({"notes": big});
        let deps = Map::new();
        let facts = Facts {
            action: "look",
            context: Some(&big),
            deps: &deps,
            state: &state,
        };
        let p = build(&facts, Style::Terse, 32);
        assert!(
            p.user.len() < CONTEXT_CHARS + STATE_CHARS + 200,
            "{}",
            p.user.len()
        );
        assert_eq!(clip("héllo", 2), "hé…");
        assert_eq!(clip("hé", 2), "hé");
    }
}
