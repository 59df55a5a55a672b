//! Prompt assembly: a byte-stable prefix (rules, examples, the skill catalog,
//! skill guides under a token budget) and a per-turn tail.
//!
//! Progressive disclosure (docs/narrator.md): every usable tool is always listed with
//! its description and input; skill guides (`prompt.md`) are disclosed in
//! full while they fit the budget, then as their first paragraph, then cut.

use std::collections::HashMap;

use narratoria_lexicon::clip_to;
use serde_json::{Map, Value};

use narratoria_core::planner::TurnSummary;

use crate::catalog::SkillCard;

// Routing lives in `crate::routing`; these names stay reachable from here.
pub use crate::routing::{keyword_hints, keyword_scores, route};

/// Prompt and generation features that can be switched off to measure what each buys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Levers {
    /// Worked examples as earlier chat turns.
    pub few_shot: bool,
    /// The skills' `prompt.md` guides (progressive disclosure).
    pub skill_guides: bool,
    /// A "likely tools" line in the tail from keyword overlap with the skills' texts.
    pub keyword_hints: bool,
    /// Tool inputs constrained by each script's input schema (else any object).
    pub typed_inputs: bool,
    /// Sample without the grammar and check only the chosen token (else grammar in the chain).
    pub sample_then_check: bool,
    /// Whether the keyword prefilter narrows the tools the grammar offers.
    pub prefilter: Prefilter,
}

/// How the keyword prefilter (the skill candidates of [`crate::routing`]) narrows the grammar's tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prefilter {
    /// Every usable tool is offered.
    Off,
    /// Only the candidates are offered when there are any, else every usable tool.
    Narrow,
    /// Only the candidates are offered; with none, the plan is narrative only.
    Strict,
    /// Like `Strict`, and with candidates the plan must use at least one of them.
    Route,
    /// Each candidate skill (up to the plan's tool limit) gives exactly one
    /// tool; the model picks the skill's script and writes its input. The host
    /// writes the structure between the model's parts.
    Require,
}

impl Default for Levers {
    fn default() -> Self {
        Levers {
            few_shot: true,
            skill_guides: true,
            keyword_hints: true,
            typed_inputs: true,
            sample_then_check: true,
            prefilter: Prefilter::Require,
        }
    }
}

/// How much of a skill guide the prefix holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Disclosure {
    Full,
    Summary,
    Cut,
    Withheld,
}

/// The stable part of the prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct Prefix {
    pub system: String,
    /// (player input, compact plan) pairs shown as earlier turns.
    pub examples: Vec<(String, String)>,
    pub disclosures: Vec<(String, Disclosure)>,
}

const RULES: &str = "You are the narrator of an interactive story. The player says what their character does. \
You answer with one JSON object and nothing else:\n\
{\"narrative\":\"<one or two short sentences: what happens, second person, present tense>\",\"tools\":[<tool>, ...]}\n\
where each tool is {\"use\":\"<skill>/<script>\",\"input\":{...},\"after\":[\"<script of an earlier tool whose result it needs>\"]}.\n\
Rules:\n\
- Use only the tools listed below, with inputs that follow their input description.\n\
- Use a tool only when the action needs it; \"tools\":[] is fine.\n\
- Leave out \"after\" unless a tool needs an earlier tool's result.\n\
- Never decide a risky outcome yourself when a dice tool exists: roll.";

/// Builds the prefix for `cards`; `count` gives a text's length in tokens;
/// guides are disclosed until the prefix reaches `budget` tokens.
pub fn prefix(
    cards: &[SkillCard],
    levers: Levers,
    budget: usize,
    count: &dyn Fn(&str) -> usize,
) -> Prefix {
    let examples = if levers.few_shot {
        crate::examples::for_catalog(cards)
    } else {
        Vec::new()
    };
    let base = format!("{RULES}{}", tool_list(cards));
    let examples_tokens: usize = examples.iter().map(|(a, b)| count(a) + count(b) + 10).sum();
    let remaining = budget.saturating_sub(count(&base) + examples_tokens);
    let disclosed = if levers.skill_guides {
        disclose_guides(cards, remaining, count)
    } else {
        HashMap::new()
    };
    let (system, disclosures) = with_guides(base, cards, disclosed);
    Prefix {
        system,
        examples,
        disclosures,
    }
}

/// One line per tool (its path, the first sentence of its description,
/// its input's signature), or the rule for a turn without tools.
fn tool_list(cards: &[SkillCard]) -> String {
    let mut catalog = String::new();
    if cards.is_empty() {
        catalog.push_str("\n\nNo tools are available now: always answer with a narrative only.");
    } else {
        catalog.push_str("\n\nTools:");
        for c in cards {
            for t in &c.tools {
                catalog.push_str(&format!("\n- {}: ", t.path));
                let desc = t.description.as_deref().unwrap_or(&c.description);
                catalog.push_str(&first_sentence(desc, 160));
                catalog.push_str(&format!(" Input: {}", signature(t.input_schema.as_ref())));
            }
        }
    }
    catalog
}

/// How much of each card's guide goes in within `remaining` tokens
/// (docs/narrator.md, "One plan", step 2): smallest guide first, each given
/// a fair share of what is left, whole, else its first paragraph, else cut
/// at a word, else withheld. Keyed by the card's index.
fn disclose_guides(
    cards: &[SkillCard],
    mut remaining: usize,
    count: &dyn Fn(&str) -> usize,
) -> HashMap<usize, (Disclosure, String)> {
    let mut guides: Vec<(usize, &SkillCard)> = cards
        .iter()
        .enumerate()
        .filter(|(_, c)| c.guide.is_some())
        .collect();
    let mut disclosed = HashMap::new();
    guides.sort_by_key(|(_, c)| c.guide.as_deref().map(count).unwrap_or(0));
    let n = guides.len();
    for (k, (i, c)) in guides.iter().enumerate() {
        let guide = c.guide.as_deref().unwrap_or_default();
        let share = remaining / (n - k).max(1);
        let full = format!("\n\n## {}\n{}", c.name, guide);
        let summary = format!("\n\n## {}\n{}", c.name, first_paragraph(guide));
        let choice = if count(&full) <= share {
            (Disclosure::Full, full)
        } else if count(&summary) <= share {
            (Disclosure::Summary, summary)
        } else if share > 24 {
            let cut = cut_to_tokens(&summary, share, count);
            (Disclosure::Cut, cut)
        } else {
            (Disclosure::Withheld, String::new())
        };
        remaining = remaining.saturating_sub(count(&choice.1));
        disclosed.insert(*i, choice);
    }
    disclosed
}

/// `base` with the disclosed guides in the cards' order, and what each
/// skill got.
fn with_guides(
    base: String,
    cards: &[SkillCard],
    mut disclosed: HashMap<usize, (Disclosure, String)>,
) -> (String, Vec<(String, Disclosure)>) {
    let mut system = base;
    let mut disclosures = Vec::new();
    let mut any = false;
    for (i, c) in cards.iter().enumerate() {
        match disclosed.remove(&i) {
            Some((d, text)) => {
                if !text.is_empty() {
                    if !any {
                        system.push_str("\n\nSkill guides:");
                        any = true;
                    }
                    system.push_str(&text);
                }
                disclosures.push((c.name.clone(), d));
            }
            None => disclosures.push((c.name.clone(), Disclosure::Withheld)),
        }
    }
    (system, disclosures)
}

/// What the tail says about this turn.
#[derive(Debug, Clone, Copy)]
pub struct TailInputs<'a> {
    pub input: &'a str,
    pub recent_turns: &'a [TurnSummary],
    pub state: &'a Map<String, Value>,
    pub disabled_skills: &'a [String],
    pub attempt: u32,
    pub previous_failure: Option<&'a str>,
}

/// The per-turn user message. `hints` are the likely tools to mention.
pub fn tail(t: &TailInputs<'_>, hints: &[String]) -> String {
    let mut s = String::new();
    // The state first: it seldom changes, so it stays in the cache with the
    // prefix, and the turns after it move back as the oldest gives way.
    if !t.state.is_empty() {
        s.push_str(&format!("State: {}\n", state_digest(t.state, 240)));
    }
    let recent = &t.recent_turns[t.recent_turns.len().saturating_sub(3)..];
    if !recent.is_empty() {
        s.push_str("Story so far:\n");
        for turn in recent {
            s.push_str(&format!(
                "Player: {}\nNarrator: {}\n",
                clip(&turn.input, 120),
                clip(&turn.narrative, 160)
            ));
        }
    }
    if !t.disabled_skills.is_empty() {
        s.push_str(&format!(
            "Do not use these skills now: {}.\n",
            t.disabled_skills.join(", ")
        ));
    }
    if t.attempt > 1 {
        s.push_str(&format!("This is attempt {}.", t.attempt));
        if let Some(f) = t.previous_failure {
            s.push_str(&format!(" The previous plan failed: {}", clip(f, 200)));
        }
        s.push_str(" Write a different plan.\n");
    }
    if !hints.is_empty() {
        s.push_str(&format!("Likely tools: {}.\n", hints.join(", ")));
    }
    s.push_str(&format!("Player: {}", clip(t.input, 400)));
    s
}

/// A short, single-line digest of the session state.
pub fn state_digest(state: &Map<String, Value>, max_chars: usize) -> String {
    let text = serde_json::to_string(&Value::Object(state.clone())).unwrap_or_default();
    clip(&text, max_chars)
}

/// A one-line rendering of an input schema: `{formula*: string, reason: string}`.
pub fn signature(schema: Option<&Value>) -> String {
    let Some(props) = schema
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
    else {
        return "{...}".into();
    };
    let required: Vec<&str> = schema
        .and_then(|s| s.get("required"))
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let fields: Vec<String> = props
        .iter()
        .map(|(k, v)| {
            let mut ty = if let Some(e) = v.get("enum").and_then(Value::as_array) {
                e.iter()
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join("|")
            } else {
                v.get("type")
                    .and_then(Value::as_str)
                    .unwrap_or("any")
                    .to_string()
            };
            if let (Some(lo), Some(hi)) = (v.get("minimum"), v.get("maximum")) {
                if lo.as_i64().is_some() && hi.as_i64().is_some() {
                    ty.push_str(&format!(" {lo}..{hi}"));
                }
            }
            if let Some(ex) = v
                .get("examples")
                .and_then(Value::as_array)
                .and_then(|e| e.first())
            {
                ty.push_str(&format!(" e.g. {ex}"));
            }
            let star = if required.contains(&k.as_str()) {
                "*"
            } else {
                ""
            };
            format!("{k}{star}: {ty}")
        })
        .collect();
    format!("{{{}}} (* required)", fields.join(", "))
}

fn first_sentence(text: &str, max: usize) -> String {
    // A sentence ends at ". " followed by a capital letter ("e.g. 1d20" does not end one).
    let end = text
        .char_indices()
        .find(|&(i, c)| {
            c == '.' && {
                let rest = &text[i + 1..];
                rest.starts_with(char::is_whitespace)
                    && rest.trim_start().starts_with(|n: char| n.is_uppercase())
            }
        })
        .map(|(i, _)| i + 1)
        .unwrap_or(text.len());
    clip(&text[..end], max)
}

fn first_paragraph(text: &str) -> &str {
    text.split("\n\n")
        .map(str::trim)
        .find(|p| !p.is_empty() && !p.starts_with('#'))
        .unwrap_or("")
}

fn cut_to_tokens(text: &str, tokens: usize, count: &dyn Fn(&str) -> usize) -> String {
    let mut end = text.len();
    let mut out = text.to_string();
    while count(&out) > tokens.saturating_sub(2) && end > 0 {
        end = text[..end].rfind(char::is_whitespace).unwrap_or(0);
        out = format!("{}…", text[..end].trim_end());
    }
    out
}

/// `text` trimmed, in at most `max` characters (the lexicon's `clip_to`).
fn clip(text: &str, max: usize) -> String {
    clip_to(text.trim(), max)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::test_cards::dice;

    fn words(s: &str) -> usize {
        s.split_whitespace().count()
    }

    #[test]
    fn prefix_is_stable_and_lists_tools() {
        let cards = vec![dice()];
        let a = prefix(&cards, Levers::default(), 2000, &words);
        let b = prefix(&cards, Levers::default(), 2000, &words);
        assert_eq!(a, b);
        assert!(a.system.contains("dice-roller/roll-dice"));
        assert!(a.system.contains("formula*: string"));
        assert_eq!(
            a.disclosures,
            vec![("dice-roller".to_string(), Disclosure::Full)]
        );
        assert_eq!(a.examples.len(), 2, "{:?}", a.examples);
    }

    #[test]
    fn guides_shrink_under_a_tight_budget() {
        let cards = vec![dice()];
        let base = prefix(
            &cards,
            Levers {
                skill_guides: false,
                ..Levers::default()
            },
            10_000,
            &words,
        );
        let used = words(&base.system)
            + base
                .examples
                .iter()
                .map(|(a, b)| words(a) + words(b) + 10)
                .sum::<usize>();
        let p = prefix(&cards, Levers::default(), used + 10, &words);
        assert_eq!(p.disclosures[0].1, Disclosure::Summary);
        assert!(!p.system.contains("More detail"));
        let p = prefix(&cards, Levers::default(), used, &words);
        assert_eq!(p.disclosures[0].1, Disclosure::Withheld);
    }

    #[test]
    fn no_tools_says_so() {
        let p = prefix(&[], Levers::default(), 1000, &words);
        assert!(p.system.contains("No tools are available"));
        assert_eq!(p.examples.len(), 1);
    }

    #[test]
    fn tail_mentions_everything_about_the_turn() {
        let state: Map<String, Value> = serde_json::from_value(json!({"hp": 7})).unwrap();
        let turns = vec![TurnSummary {
            input: "a".into(),
            narrative: "b".into(),
        }];
        let disabled = vec!["memory".to_string()];
        let t = tail(
            &TailInputs {
                input: "I run",
                recent_turns: &turns,
                state: &state,
                disabled_skills: &disabled,
                attempt: 2,
                previous_failure: Some("dice failed"),
            },
            &["dice-roller/roll-dice".to_string()],
        );
        for needle in [
            "Player: a",
            "\"hp\":7",
            "memory",
            "attempt 2",
            "dice failed",
            "Likely tools",
            "Player: I run",
        ] {
            assert!(t.contains(needle), "{needle} in {t}");
        }
    }
}
