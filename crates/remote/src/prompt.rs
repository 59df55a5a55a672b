//! The plan prompt for a remote model: a system message that depends only
//! on the catalog (so a server that keeps its prompt cache reads it once),
//! and a user message with everything about this turn.
//!
//! The ideas are the in-process planner's (crates/narrator/src/prompt.rs):
//! every usable tool listed with its description and input, skill guides
//! in short, the story so far and the state in a few lines. A remote model
//! writes the plan's own JSON, so the shape shown is the Plan's.

use narratoria_core::planner::{PlanRequest, MAX_MODEL_PLAN_TOOLS};
use serde_json::{Map, Value};

use crate::catalog::SkillCard;
use narratoria_lexicon::clip_to as clip;

const RULES: &str = "You plan the next step of an interactive story. The player says what their character does; you choose which tools run.\n\
Answer with exactly one JSON object and nothing else (no prose, no code fence):\n\
{\"narrative\":\"<one or two short sentences: what happens, second person, present tense>\",\"tools\":[{\"toolId\":\"<short id>\",\"toolPath\":\"<skill>/<script>\",\"input\":{...},\"dependencies\":[\"<toolId of an earlier tool whose result it needs>\"]}]}\n\
Rules:\n\
- Use only the tools listed below, by their exact toolPath, with an input that follows the tool's input schema.\n\
- Use a tool only when the action needs it; \"tools\":[] is fine.\n\
- Every toolId is unique. \"dependencies\" names only toolIds of other tools in this plan, never in a circle; leave it out when no tool needs another's result.\n\
- Never decide a risky outcome yourself when a dice tool exists: roll.\n\
- The host fills in requestId, metadata and disabledSkills: leave them out.";

/// The most of one skill guide the system message holds, in characters.
const GUIDE_CHARS: usize = 400;
/// The most of all skill guides together, in characters.
const GUIDES_CHARS: usize = 4000;
/// Earlier turns shown.
const RECENT_TURNS: usize = 4;

/// The system message for a catalog's skills (all of them: skills disabled
/// for one turn are named in that turn's user message).
pub(crate) fn system(cards: &[SkillCard]) -> String {
    let mut s = RULES.to_string();
    if cards.is_empty() {
        s.push_str("\n\nNo tools are available now: always answer with \"tools\":[].");
        return s;
    }
    s.push_str(&format!(
        "\n- Use at most {MAX_MODEL_PLAN_TOOLS} tools: the ones the action needs most."
    ));
    s.push_str("\n\nTools:");
    for c in cards {
        for t in &c.tools {
            let description = t.description.as_deref().unwrap_or(&c.description);
            s.push_str(&format!(
                "\n- {}: {}",
                t.path,
                clip(&one_line(description), 240)
            ));
            s.push_str(&format!(
                " Input schema: {}",
                compact_schema(t.input_schema.as_ref())
            ));
        }
    }
    let mut guides = String::new();
    for c in cards {
        let Some(guide) = &c.guide else { continue };
        let text = format!(
            "\n## {}\n{}",
            c.name,
            clip(first_paragraph(guide), GUIDE_CHARS)
        );
        if guides.chars().count() + text.chars().count() > GUIDES_CHARS {
            break;
        }
        guides.push_str(&text);
    }
    if !guides.is_empty() {
        s.push_str("\n\nSkill guides:");
        s.push_str(&guides);
    }
    s
}

/// The user message: the state, the story so far, skills not to use, why
/// the previous attempt failed, whether a narrative is wanted, the input.
pub(crate) fn user(request: &PlanRequest<'_>) -> String {
    let mut s = String::new();
    if !request.state.is_empty() {
        s.push_str(&format!("State: {}\n", state_digest(request.state, 1200)));
    }
    let recent = &request.recent_turns[request.recent_turns.len().saturating_sub(RECENT_TURNS)..];
    if !recent.is_empty() {
        s.push_str("Story so far:\n");
        for turn in recent {
            s.push_str(&format!(
                "Player: {}\nNarrator: {}\n",
                clip(&one_line(&turn.input), 200),
                clip(&one_line(&turn.narrative), 400)
            ));
        }
    }
    if !request.disabled_skills.is_empty() {
        s.push_str(&format!(
            "Do not use these skills now: {}.\n",
            request.disabled_skills.join(", ")
        ));
    }
    if let Some(needed) = request.skills_needed {
        s.push_str(&match needed {
            [] => "The player says this turn needs no skill: use none.\n".to_string(),
            _ => format!(
                "The player says this turn needs these skills: use each of them once: {}.\n",
                needed.join(", ")
            ),
        });
    }
    if request.attempt > 1 {
        s.push_str(&format!("This is attempt {}.", request.attempt));
        if let Some(f) = request.previous_failure {
            s.push_str(&format!(
                " The previous plan failed: {}",
                clip(&one_line(f), 300)
            ));
        }
        s.push_str(" Write a different plan.\n");
    }
    if !request.narrative {
        s.push_str("Leave \"narrative\" empty (\"\"): the story is told after the tools run.\n");
    }
    s.push_str(&format!("Player: {}", clip(request.input, 800)));
    s
}

/// An input schema on one line, without what only documents the schema
/// itself (`$schema`, `$id`, `title`); `{}` (any object) without one.
fn compact_schema(schema: Option<&Value>) -> String {
    let Some(schema) = schema else {
        return "{\"type\":\"object\"}".into();
    };
    let mut schema = schema.clone();
    if let Value::Object(o) = &mut schema {
        for k in ["$schema", "$id", "title"] {
            o.shift_remove(k);
        }
    }
    serde_json::to_string(&schema).unwrap_or_else(|_| "{}".into())
}

/// A short, single-line digest of the session state.
fn state_digest(state: &Map<String, Value>, max_chars: usize) -> String {
    let text = serde_json::to_string(state).unwrap_or_default();
    clip(&text, max_chars)
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn first_paragraph(text: &str) -> &str {
    text.split("\n\n")
        .map(str::trim)
        .find(|p| !p.is_empty() && !p.starts_with('#'))
        .unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;
    use narratoria_core::planner::TurnSummary;
    use narratoria_core::skills::cards::ToolCard;
    use narratoria_core::skills::Catalog;
    use serde_json::json;
    use std::time::Instant;

    fn dice() -> SkillCard {
        SkillCard {
            name: "dice-roller".into(),
            description: "Rolls dice.".into(),
            guide: Some("# Dice\n\nRoll for anything risky.\n\nMore detail here.".into()),
            tools: vec![ToolCard {
                path: "dice-roller/roll-dice".into(),
                description: Some("Roll a formula like 1d20.".into()),
                input_schema: Some(
                    json!({"$schema": "x", "type": "object", "properties": {"formula": {"type": "string"}}, "required": ["formula"]}),
                ),
                declared_schema: None,
            }],
        }
    }

    #[test]
    fn the_system_message_lists_tools_with_schemas_and_guides() {
        let s = system(&[dice()]);
        assert!(
            s.contains("- dice-roller/roll-dice: Roll a formula like 1d20."),
            "{s}"
        );
        assert!(s.contains(r#"Input schema: {"type":"object","properties":{"formula":{"type":"string"}},"required":["formula"]}"#), "{s}");
        assert!(
            s.contains("## dice-roller\nRoll for anything risky."),
            "{s}"
        );
        assert!(!s.contains("More detail"), "{s}");
        assert!(system(&[]).contains("No tools are available"));
    }

    #[test]
    fn the_user_message_tells_the_turn() {
        let state: Map<String, Value> = serde_json::from_value(json!({"hp": 7})).unwrap();
        let turns = vec![TurnSummary {
            input: "I wait".into(),
            narrative: "Night falls.".into(),
        }];
        let disabled = vec!["memory".to_string()];
        let catalog = Catalog::default();
        let request = PlanRequest {
            disabled_skills: &disabled,
            recent_turns: &turns,
            attempt: 2,
            previous_failure: Some("dice failed"),
            narrative: false,
            ..PlanRequest::first("I run", &catalog, &state, Instant::now())
        };
        let u = user(&request);
        for needle in [
            "\"hp\":7",
            "Player: I wait\nNarrator: Night falls.",
            "Do not use these skills now: memory.",
            "attempt 2",
            "dice failed",
            "Leave \"narrative\" empty",
            "Player: I run",
        ] {
            assert!(u.contains(needle), "{needle} in {u}");
        }
    }
}
