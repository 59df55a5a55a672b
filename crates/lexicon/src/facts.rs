//! What a turn's tools decided, read from their outputs by shape: dice checks
//! (the `outcome` of a roll with a `dc`), plain rolls, standings changed or
//! looked up, memories recalled. A tool output of another shape tells nothing.

use serde_json::Value;

use super::lines::Lines;

/// How a check went, as the dice-roller's `outcome` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    CriticalSuccess,
    Success,
    Failure,
    CriticalFailure,
}

impl Verdict {
    /// The verdict named by a check's `outcome` field.
    pub fn parse(outcome: &str) -> Option<Verdict> {
        Some(match outcome {
            "criticalSuccess" => Verdict::CriticalSuccess,
            "success" => Verdict::Success,
            "failure" => Verdict::Failure,
            "criticalFailure" => Verdict::CriticalFailure,
            _ => return None,
        })
    }

    /// Whether the action succeeds.
    pub fn succeeded(self) -> bool {
        matches!(self, Verdict::CriticalSuccess | Verdict::Success)
    }

    /// How a critical result turns out, in words ("it goes badly wrong");
    /// `None` for a plain success or failure.
    pub fn twist(self) -> Option<&'static str> {
        match self {
            Verdict::CriticalSuccess => Some("it goes better than you could have hoped"),
            Verdict::CriticalFailure => Some("it goes badly wrong"),
            Verdict::Success | Verdict::Failure => None,
        }
    }
}

/// `text` with its first letter in upper case.
pub fn sentence_case(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// One thing the rules decided this turn.
#[derive(Debug, Clone, PartialEq)]
pub enum Fact {
    /// A roll against a difficulty.
    Check {
        reason: Option<String>,
        verdict: Verdict,
        /// `total − dc`.
        margin: i64,
    },
    /// A roll with no difficulty: chance, not success or failure.
    Roll { reason: Option<String> },
    /// A faction's standing changed.
    StandingChanged {
        faction: String,
        delta: i64,
        standing: String,
    },
    /// A faction's standing was looked up.
    Standing { faction: String, standing: String },
    /// Memories came back from earlier in the story.
    Recalled { memories: Vec<String> },
    /// Something the game master decided happens beyond the deed (a
    /// complication, a thread moving, someone acting, an event, the
    /// oracle's answer), told in its own words.
    Beat {
        kind: String,
        text: String,
        /// What the writer may make of it beyond what the player is told.
        hint: Option<String>,
    },
    /// Who is in the scene with the player, each with their attitude to
    /// the player.
    Present { people: Vec<(String, String)> },
    /// A tool the turn depended on gave nothing.
    Unavailable,
}

/// The kinds of game master's beats the player is told in the rules' own
/// words (the others — a thread moving, a scene ending — are the writer's
/// to tell: docs/game-master.md, "Beats").
const BEATS_TOLD: [&str; 6] = [
    "oracle",
    "complication",
    "attitude",
    "personActs",
    "pressure",
    "event",
];

impl Fact {
    /// The beat's sentence when it is one the player is told in the rules'
    /// own words ([`BEATS_TOLD`]); `None` for any other fact.
    pub fn beat_told(&self) -> Option<&str> {
        match self {
            Fact::Beat { kind, text, .. } if BEATS_TOLD.contains(&kind.as_str()) => Some(text),
            _ => None,
        }
    }

    /// The verdict of a check; `None` for any other fact.
    pub fn verdict(&self) -> Option<Verdict> {
        match self {
            Fact::Check { verdict, .. } => Some(*verdict),
            _ => None,
        }
    }

    /// The fact in plain English words for a narrator ([`Fact::told_in`]).
    pub fn in_words(&self) -> String {
        self.told_in(Lines::english())
    }

    /// The fact in plain words of `lines`' language for a narrator, without
    /// numbers: what happened, never how it was computed.
    pub fn told_in(&self, lines: &Lines) -> String {
        let fill = |pattern: &str, faction: &str, standing: &str| {
            pattern
                .replace("{faction}", &lines.faction_name(faction))
                .replace("{standing}", lines.standing(standing))
        };
        match self {
            Fact::Check {
                reason,
                verdict,
                margin,
            } => {
                let what = reason
                    .as_deref()
                    .map(|r| format!("{}{}", r.trim().trim_end_matches('.'), lines.colon))
                    .unwrap_or_default();
                let c = &lines.check;
                let how = match verdict {
                    Verdict::CriticalSuccess => &c.critical_success,
                    Verdict::Success if *margin >= 5 => &c.success,
                    Verdict::Success => &c.narrow_success,
                    Verdict::Failure if *margin >= -4 => &c.narrow_failure,
                    Verdict::Failure => &c.failure,
                    Verdict::CriticalFailure => &c.critical_failure,
                };
                sentence_case(&format!("{what}{how}."))
            }
            Fact::Roll { reason } => match reason {
                Some(r) => format!(
                    "{}{}{}.",
                    r.trim().trim_end_matches('.'),
                    lines.colon,
                    lines.chance
                ),
                None => sentence_case(&format!("{}.", lines.chance)),
            },
            Fact::StandingChanged {
                faction,
                delta,
                standing,
            } => {
                let moved = match delta.signum() {
                    1 => &lines.think_better,
                    -1 => &lines.think_worse,
                    _ => &lines.unmoved,
                };
                fill(moved, faction, standing)
            }
            Fact::Standing { faction, standing } => fill(&lines.regard, faction, standing),
            Fact::Recalled { memories } if memories.is_empty() => lines.recalled_nothing.clone(),
            Fact::Recalled { memories } => {
                lines.recalled.replace("{memories}", &memories.join(" | "))
            }
            Fact::Beat {
                text,
                hint: Some(hint),
                ..
            } => format!("{text} {hint}"),
            Fact::Beat { text, .. } => text.clone(),
            Fact::Present { people } => {
                let who: Vec<String> = people
                    .iter()
                    .map(|(name, attitude)| match attitude.as_str() {
                        // Neutral is what saying nothing says.
                        "" | "neutral" => name.clone(),
                        _ => lines
                            .present_person
                            .replace("{name}", name)
                            .replace("{attitude}", attitude),
                    })
                    .collect();
                // A phrase with a comma in it sets people apart with semicolons.
                let apart = match who.iter().any(|w| w.contains(',')) {
                    true => "; ",
                    false => ", ",
                };
                lines.present.replace("{people}", &who.join(apart))
            }
            Fact::Unavailable => lines.unavailable.clone(),
        }
    }
}

/// The facts in one tool output, by its shape.
pub fn facts_of(output: &Value) -> Vec<Fact> {
    if output.is_null() {
        return vec![Fact::Unavailable];
    }
    let text = |k: &str| output.get(k).and_then(Value::as_str).map(str::to_string);
    if output.get("formula").is_some() && output.get("total").is_some() {
        let reason = text("reason").filter(|r| !r.trim().is_empty());
        let verdict = output
            .get("outcome")
            .and_then(Value::as_str)
            .and_then(Verdict::parse);
        return vec![match verdict {
            Some(verdict) => Fact::Check {
                reason,
                verdict,
                margin: output.get("margin").and_then(Value::as_i64).unwrap_or(0),
            },
            None => Fact::Roll { reason },
        }];
    }
    if let (Some(faction), Some(standing)) = (text("factionId"), text("standing")) {
        return vec![match output.get("delta").and_then(Value::as_i64) {
            Some(delta) if output.get("previousScore").is_some() => Fact::StandingChanged {
                faction,
                delta,
                standing,
            },
            _ => Fact::Standing { faction, standing },
        }];
    }
    if let Some(list) = output.get("factions").and_then(Value::as_array) {
        return list.iter().flat_map(facts_of).collect();
    }
    if let Some(beats) = output.get("beats").and_then(Value::as_array) {
        return game_master_facts(output, beats);
    }
    if let Some(memories) = output.get("memories").and_then(Value::as_array) {
        let memories = memories
            .iter()
            .filter_map(|m| m.get("summary").and_then(Value::as_str))
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect();
        return vec![Fact::Recalled { memories }];
    }
    Vec::new()
}

/// The facts of a game master's output: who is present (when anyone
/// is), then its beats in order.
fn game_master_facts(output: &Value, beats: &[Value]) -> Vec<Fact> {
    let mut facts = Vec::new();
    let people: Vec<(String, String)> = output
        .get("present")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(|p| {
                    let name = p.get("name")?.as_str()?.trim();
                    let attitude = p.get("attitude").and_then(Value::as_str).unwrap_or("");
                    (!name.is_empty()).then(|| (name.to_string(), attitude.to_string()))
                })
                .collect()
        })
        .unwrap_or_default();
    if !people.is_empty() {
        facts.push(Fact::Present { people });
    }
    facts.extend(beats.iter().filter_map(|b| {
        let text = b.get("text")?.as_str()?.trim();
        let kind = b.get("kind").and_then(Value::as_str).unwrap_or("event");
        let hint = b
            .get("hint")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|h| !h.is_empty())
            .map(str::to_string);
        (!text.is_empty()).then(|| Fact::Beat {
            kind: kind.to_string(),
            text: text.to_string(),
            hint,
        })
    }));
    facts
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_failed_check_reads_as_a_failure_without_numbers() {
        let out = json!({"formula": "1d20+2", "rolls": [7], "total": 9, "dc": 15,
                         "outcome": "failure", "margin": -6, "reason": "Strike the goblin"});
        let facts = facts_of(&out);
        assert_eq!(
            facts,
            vec![Fact::Check {
                reason: Some("Strike the goblin".into()),
                verdict: Verdict::Failure,
                margin: -6
            }]
        );
        let words = facts[0].in_words();
        assert_eq!(words, "Strike the goblin: it fails.");
        assert!(!words.chars().any(|c| c.is_ascii_digit()));
    }

    #[test]
    fn every_verdict_has_its_own_words() {
        let said: Vec<String> = [
            ("criticalSuccess", 9),
            ("success", 6),
            ("success", 0),
            ("failure", -2),
            ("failure", -9),
            ("criticalFailure", -12),
        ]
        .iter()
        .map(|(o, m)| {
            facts_of(&json!({"formula": "1d20", "total": 1, "outcome": o, "margin": m}))[0]
                .in_words()
        })
        .collect();
        let mut unique = said.clone();
        unique.dedup();
        assert_eq!(unique.len(), said.len(), "{said:?}");
        assert!(said[0].contains("triumph") && said[5].contains("disaster"));
    }

    #[test]
    fn standings_memories_and_failures_are_read_by_shape() {
        let update = json!({"factionId": "city-watch", "previousScore": 0, "delta": 5,
                            "score": 5, "standing": "neutral", "reason": "helped"});
        assert_eq!(
            facts_of(&update)[0].in_words(),
            "The city watch think better of you (now neutral)."
        );
        let query =
            json!({"factionId": "temple", "score": 40, "standing": "friendly", "known": true});
        assert_eq!(
            facts_of(&query)[0].in_words(),
            "The temple regard you as friendly."
        );
        let recall = json!({"memories": [{"summary": "You met Mira at the well."}]});
        assert_eq!(
            facts_of(&recall),
            vec![Fact::Recalled {
                memories: vec!["You met Mira at the well.".into()]
            }]
        );
        assert_eq!(facts_of(&Value::Null), vec![Fact::Unavailable]);
        assert!(facts_of(&json!({"weather": "rain"})).is_empty());
        let plain = json!({"formula": "3d6", "total": 11});
        assert_eq!(facts_of(&plain), vec![Fact::Roll { reason: None }]);
    }

    #[test]
    fn a_game_masters_output_reads_as_who_is_present_then_its_beats() {
        let out = json!({"beats": [
            {"kind": "complication", "text": "Someone hears the noise."},
            {"kind": "event", "text": "   "}
        ], "present": [{"name": "Dee Marchetti", "attitude": "friendly"}, {"name": ""},
                       {"name": "Augie", "attitude": "neutral"}]});
        let facts = facts_of(&out);
        assert_eq!(facts.len(), 2, "{facts:?}");
        assert_eq!(
            facts[0].in_words(),
            "With you here: Dee Marchetti, who is friendly towards you; Augie."
        );
        assert_eq!(facts[1].in_words(), "Someone hears the noise.");
        assert_eq!(facts_of(&json!({"beats": []})), vec![]);
    }
}
