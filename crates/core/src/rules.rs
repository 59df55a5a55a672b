//! The rule-based planner: used when no language model is available. It
//! reads the player's words for a few plain cues (a check or fight → dice;
//! "remember" → memory; a faction named → reputation) and always ends with
//! the storyteller when it is usable. Inputs are fitted to each script's
//! declared input schema by property name.
//!
//! These cues are not routing by the skills' texts (`narratoria_routing::
//! keywords`, which scores the words of each skill's descriptions and guide):
//! they name the built-in skills' own inputs (a typed formula, a faction from
//! the settings) and plan even for skills whose texts say nothing.

use std::time::Instant;

use serde_json::{json, Map, Value};

use crate::plan::{Plan, PlanMetadata, ToolInvocation};
use crate::planner::{PlanOutcome, PlanRequest, Planner, PlannerError, Transcript};
use crate::skills::{Catalog, Skill};
use crate::turn::narration_step::{NARRATE, NARRATE_TOOL_ID, STORYTELLER};

/// The fallback planner.
#[derive(Debug, Clone, Default)]
pub struct RulePlanner;

const ACTION_WORDS: &[&str] = &[
    "attack",
    "strike",
    "hit",
    "shoot",
    "stab",
    "fight",
    "swing",
    "punch",
    "kick",
    "cast",
    "dodge",
    "parry",
    "climb",
    "jump",
    "leap",
    "sneak",
    "hide",
    "pick",
    "lockpick",
    "persuade",
    "convince",
    "intimidate",
    "deceive",
    "lie",
    "bluff",
    "search",
    "investigate",
    "track",
    "swim",
    "run",
    "chase",
    "flee",
    "try",
    "attempt",
    "roll",
    "check",
    "steal",
    "disarm",
    "throw",
    "grab",
    "force",
    "break",
    "charm",
];
const RECALL_WORDS: &[&str] = &[
    "remember",
    "recall",
    "earlier",
    "last time",
    "before",
    "who was",
    "what was",
    "where was",
    "forgot",
    "memory",
];
const STORE_WORDS: &[&str] = &[
    "meet", "met", "named", "name is", "promise", "learn", "discover", "find", "found", "give",
    "receive", "buy", "sell", "arrive", "kill", "save", "rescue", "marry", "swear", "agree",
    "deal", "map", "key", "letter",
];
const GOOD_DEEDS: &[&str] = &[
    "help", "save", "rescue", "protect", "donate", "give", "heal", "defend", "aid", "gift",
    "thank", "ally",
];
const BAD_DEEDS: &[&str] = &[
    "betray", "steal", "insult", "attack", "kill", "lie", "rob", "threaten", "cheat", "mock",
    "burn", "bribe",
];
const STANDING_WORDS: &[&str] = &[
    "reputation",
    "standing",
    "think of me",
    "feel about me",
    "trust me",
    "like me",
];

impl Planner for RulePlanner {
    fn name(&self) -> String {
        "rules".into()
    }

    fn plan(
        &self,
        req: &PlanRequest<'_>,
        on_narrative: &mut dyn FnMut(&str),
    ) -> Result<PlanOutcome, PlannerError> {
        let started = Instant::now();
        let plan = rule_plan(req);
        if let Some(n) = &plan.narrative {
            on_narrative(n);
        }
        let response = serde_json::to_string(&plan).unwrap_or_default();
        Ok(PlanOutcome {
            plan,
            transcript: Transcript {
                planner: "rules".into(),
                prompt: req.input.to_string(),
                response,
                total_ms: started.elapsed().as_millis() as u64,
                ..Transcript::default()
            },
            routing: None,
        })
    }
}

/// The plan the rules give for a request.
pub fn rule_plan(req: &PlanRequest<'_>) -> Plan {
    let text = req.input.to_lowercase();
    let usable: Vec<&Skill> = req.catalog.usable(req.disabled_skills).collect();
    let find = |skill: &str, script: &str| {
        usable
            .iter()
            .find(|s| s.name == skill)
            .and_then(|s| s.script(script))
            .map(|sc| (format!("{skill}/{script}"), sc))
    };
    let mut tools: Vec<ToolInvocation> = Vec::new();
    // A player's correction names the skills; else the words decide.
    let needs = |skill: &str, by_words: bool| match req.skills_needed {
        Some(needed) => needed.iter().any(|s| s == skill),
        None => by_words,
    };
    let (mut recall, mut store) = (has_any(&text, RECALL_WORDS), has_any(&text, STORE_WORDS));
    if !needs("memory", true) {
        (recall, store) = (false, false);
    } else if req.skills_needed.is_some() && !recall && !store {
        recall = true;
    }

    if needs(
        "dice-roller",
        has_any(&text, ACTION_WORDS) || dice_formula(&text).is_some(),
    ) {
        if let Some((path, script)) = find("dice-roller", "roll-dice") {
            let formula = dice_formula(&text).unwrap_or_else(|| "1d20".into());
            let input = fit(
                script.input_schema.as_ref(),
                &[("formula", json!(formula)), ("reason", json!(req.input))],
            );
            add(&mut tools, "roll", path, input, vec![], true);
        }
    }
    if recall {
        if let Some((path, script)) = find("memory", "recall-memory") {
            let input = fit(script.input_schema.as_ref(), &[("query", json!(req.input))]);
            add(&mut tools, "recall", path, input, vec![], false);
        }
    }
    if store {
        if let Some((path, script)) = find("memory", "store-memory") {
            let input = fit(
                script.input_schema.as_ref(),
                &[("summary", json!(req.input)), ("content", json!(req.input))],
            );
            add(&mut tools, "remember", path, input, vec![], false);
        }
    }
    let faction = mentioned_faction(req.catalog, &text).filter(|_| needs("reputation", true));
    if let Some(faction) = faction {
        let delta = if has_any(&text, BAD_DEEDS) {
            Some(-10)
        } else if has_any(&text, GOOD_DEEDS) {
            Some(10)
        } else {
            None
        };
        match delta {
            Some(d) if !has_any(&text, STANDING_WORDS) => {
                if let Some((path, script)) = find("reputation", "update-reputation") {
                    let input = fit(
                        script.input_schema.as_ref(),
                        &[
                            ("faction", json!(faction)),
                            ("delta", json!(d)),
                            ("reason", json!(req.input)),
                        ],
                    );
                    add(&mut tools, "standing", path, input, vec![], false);
                }
            }
            _ => {
                if let Some((path, script)) = find("reputation", "query-reputation") {
                    let input = fit(script.input_schema.as_ref(), &[("faction", json!(faction))]);
                    add(&mut tools, "standing", path, input, vec![], false);
                }
            }
        }
    }
    if let Some((path, script)) = find(STORYTELLER, NARRATE) {
        let deps: Vec<String> = tools.iter().map(|t| t.tool_id.clone()).collect();
        let input = fit(
            script.input_schema.as_ref(),
            &[
                ("playerInput", json!(req.input)),
                ("action", json!(req.input)),
                ("input", json!(req.input)),
            ],
        );
        add(&mut tools, NARRATE_TOOL_ID, path, input, deps, true);
    }

    let mut plan = Plan::new(tools);
    plan.parallel = true;
    plan.narrative = Some(format!("You {}.", strip_i(req.input)));
    plan.disabled_skills = req.disabled_skills.to_vec();
    plan.metadata = PlanMetadata {
        generation_attempt: req.attempt.max(1),
        parent_plan_id: req.parent_plan_id,
    };
    plan
}

fn add(
    tools: &mut Vec<ToolInvocation>,
    id: &str,
    path: String,
    input: Map<String, Value>,
    deps: Vec<String>,
    required: bool,
) {
    let mut t = ToolInvocation::new(id, path);
    t.input = input;
    t.dependencies = deps;
    t.required = required;
    t.is_async = true;
    tools.push(t);
}

fn has_any(text: &str, words: &[&str]) -> bool {
    words.iter().any(|w| {
        text.match_indices(w).any(|(i, _)| {
            let before = text[..i].chars().next_back();
            let after = text[i + w.len()..].chars().next();
            before.is_none_or(|c| !c.is_alphanumeric())
                && after.is_none_or(|c| !c.is_alphanumeric() || c == 's')
        })
    })
}

/// A dice formula the player typed, like `2d6+1`.
fn dice_formula(text: &str) -> Option<String> {
    text.split(|c: char| c.is_whitespace() || c == ',' || c == '(' || c == ')')
        .map(|w| w.trim_matches(|c: char| c == '.' || c == '!' || c == '?'))
        .find(|w| {
            let Some((count, rest)) = w.split_once('d') else {
                return false;
            };
            let sides: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
            count.chars().all(|c| c.is_ascii_digit()) && !sides.is_empty()
        })
        .map(str::to_string)
}

/// A faction of the reputation skill's settings named in the text.
fn mentioned_faction(catalog: &Catalog, text: &str) -> Option<String> {
    let skill = catalog.get("reputation")?;
    let effective = match &skill.config_schema {
        Some(schema) => crate::skills::config::with_defaults(
            schema,
            skill.user_config.as_ref().unwrap_or(&Value::Null),
        ),
        None => skill.user_config.clone().unwrap_or(Value::Null),
    };
    let factions = effective.get("factionList").and_then(Value::as_array)?;
    factions
        .iter()
        .filter_map(Value::as_str)
        .find(|f| {
            let f = f.to_lowercase();
            text.contains(&f)
                || f.split_whitespace()
                    .filter(|w| w.len() > 3)
                    .any(|w| text.contains(w))
        })
        .map(str::to_string)
}

/// Builds an input object from candidate values, keeping only properties the
/// schema declares (all of them when there is no schema), and filling any
/// other required string property with the first text candidate; each
/// string within the `maxLength` its property declares
/// ([`crate::schema::fit_lengths`]).
fn fit(schema: Option<&Value>, candidates: &[(&str, Value)]) -> Map<String, Value> {
    let mut out = fit_names(schema, candidates);
    if let Some(schema) = schema {
        crate::schema::fit_lengths(&mut out, schema);
    }
    out
}

/// [`fit`]'s properties, before their lengths are fitted.
fn fit_names(schema: Option<&Value>, candidates: &[(&str, Value)]) -> Map<String, Value> {
    let mut out = Map::new();
    let Some(props) = schema
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
    else {
        if let Some((k, v)) = candidates.first() {
            out.insert(k.to_string(), v.clone());
        }
        return out;
    };
    for (key, value) in candidates {
        let matched = props.keys().find(|p| {
            p.eq_ignore_ascii_case(key) || p.to_lowercase().contains(&key.to_lowercase())
        });
        if let Some(p) = matched {
            out.entry(p.clone()).or_insert_with(|| value.clone());
        }
    }
    let required = schema
        .and_then(|s| s.get("required"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let first_text = candidates
        .iter()
        .map(|(_, v)| v)
        .find(|v| v.is_string())
        .cloned();
    for r in required.iter().filter_map(Value::as_str) {
        if !out.contains_key(r)
            && props
                .get(r)
                .and_then(|p| p.get("type"))
                .and_then(Value::as_str)
                == Some("string")
        {
            if let Some(t) = &first_text {
                out.insert(r.to_string(), t.clone());
            }
        }
    }
    out
}

fn strip_i(input: &str) -> String {
    let second_person = format!(" {} ", input.trim().trim_end_matches(['.', '!', '?']))
        .replace(" my ", " your ")
        .replace(" myself ", " yourself ")
        .replace(" me ", " you ")
        .replace(" I'm ", " you're ");
    let t = second_person.trim();
    let lower = t.to_lowercase();
    for prefix in ["i ", "i'll ", "i will ", "i try to ", "i want to "] {
        if lower.starts_with(prefix) {
            return t[prefix.len()..].to_string();
        }
    }
    let mut c = t.chars();
    match c.next() {
        Some(f) => f.to_lowercase().collect::<String>() + c.as_str(),
        None => "wait".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn skill(root: &Path, name: &str, scripts: &[(&str, Value)], extra: &str) {
        let dir = root.join(name);
        std::fs::create_dir_all(dir.join("scripts")).unwrap();
        let mut meta = Map::new();
        for (s, schema) in scripts {
            std::fs::write(dir.join("scripts").join(s), "#!/bin/sh\n").unwrap();
            meta.insert(s.to_string(), json!({"inputSchema": schema}));
        }
        let manifest =
            json!({"name": name, "version": "1.0.0", "description": "d", "scripts": meta});
        std::fs::write(dir.join("skill.json"), manifest.to_string()).unwrap();
        if !extra.is_empty() {
            std::fs::write(dir.join("config.json"), extra).unwrap();
        }
    }

    fn catalog() -> (tempfile::TempDir, Catalog) {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        let obj = |p: &str| json!({"type": "object", "properties": {p: {"type": "string"}}, "required": [p]});
        skill(r, "dice-roller", &[("roll-dice", obj("formula"))], "");
        skill(
            r,
            "memory",
            &[
                ("store-memory", obj("summary")),
                ("recall-memory", obj("query")),
            ],
            "",
        );
        skill(
            r,
            "reputation",
            &[
                (
                    "update-reputation",
                    json!({"type": "object", "properties": {"faction": {"type": "string"}, "delta": {"type": "integer"}, "reason": {"type": "string"}}}),
                ),
                ("query-reputation", obj("faction")),
            ],
            r#"{"factionList": ["Thieves Guild", "Royal Guard"]}"#,
        );
        skill(r, "storyteller", &[("narrate", obj("playerInput"))], "");
        let c = crate::skills::discover(&[r.to_path_buf()]).unwrap();
        (dir, c)
    }

    fn plan_for(catalog: &Catalog, input: &str, disabled: &[String]) -> Plan {
        let state = Map::new();
        let req = PlanRequest {
            disabled_skills: disabled,
            ..PlanRequest::first(
                input,
                catalog,
                &state,
                Instant::now() + std::time::Duration::from_secs(5),
            )
        };
        rule_plan(&req)
    }

    fn paths(p: &Plan) -> Vec<&str> {
        p.tools.iter().map(|t| t.tool_path.as_str()).collect()
    }

    /// The input schema of `skill`'s `script` as the skill ships it.
    fn shipped_schema(skill: &str, script: &str) -> Value {
        crate::test_support::shipped_input_schema(skill, script)
    }

    /// An action as long as an action may be, naming everything the rules
    /// plan for, gives every tool an input its shipped schema takes: each
    /// text clipped to the bound its property declares (a dice `reason`
    /// holds 200 characters, a standing's 500).
    #[test]
    fn a_long_action_gives_every_tool_an_input_its_schema_takes() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        let shipped: [(&str, &[&str]); 4] = [
            ("dice-roller", &["roll-dice"]),
            ("memory", &["store-memory", "recall-memory"]),
            ("reputation", &["update-reputation", "query-reputation"]),
            ("storyteller", &["narrate"]),
        ];
        for (name, scripts) in shipped {
            let schemas: Vec<(&str, Value)> = scripts
                .iter()
                .map(|script| (*script, shipped_schema(name, script)))
                .collect();
            let factions = r#"{"factionList": ["Thieves Guild"]}"#;
            skill(
                r,
                name,
                &schemas,
                if name == "reputation" { factions } else { "" },
            );
        }
        let c = crate::skills::discover(&[r.to_path_buf()]).unwrap();
        let start = "I attack, remember and help the Thieves Guild, and meet Mara ";
        let action = format!("{start}{}", "again ".repeat(400));
        let action = narratoria_lexicon::clip_after(&action, crate::narration::ACTION_CHARS - 1);
        let p = plan_for(&c, &action, &[]);
        assert_eq!(p.tools.len(), 5, "{:?}", paths(&p));
        for tool in &p.tools {
            let (skill, script) = tool.tool_path.split_once('/').unwrap();
            let schema = crate::schema::compile(&shipped_schema(skill, script)).unwrap();
            let input = Value::Object(tool.input.clone());
            let refused = crate::schema::validation_errors(&schema, &input);
            assert!(refused.is_empty(), "{}: {refused:?}", tool.tool_path);
        }
        let reason = p.tools[0].input["reason"].as_str().unwrap();
        assert!(
            reason.chars().count() <= 200 && reason.ends_with('…'),
            "{reason}"
        );
    }

    #[test]
    fn an_attack_rolls_dice_then_narrates() {
        let (_d, c) = catalog();
        let p = plan_for(&c, "I attack the goblin with my sword", &[]);
        assert_eq!(
            paths(&p),
            vec!["dice-roller/roll-dice", "storyteller/narrate"]
        );
        assert_eq!(p.tools[0].input["formula"], "1d20");
        assert_eq!(p.tools[1].dependencies, vec!["roll"]);
        assert_eq!(
            p.tools[1].input["playerInput"],
            "I attack the goblin with my sword"
        );
        assert!(Plan::from_value(serde_json::to_value(&p).unwrap()).is_ok());
    }

    #[test]
    fn explicit_formulas_memory_and_factions_are_picked_up() {
        let (_d, c) = catalog();
        let p = plan_for(&c, "Roll 2d6+1 for damage", &[]);
        assert_eq!(p.tools[0].input["formula"], "2d6+1");
        let p = plan_for(&c, "Do I remember who gave me the key?", &[]);
        assert!(paths(&p).contains(&"memory/recall-memory"));
        let p = plan_for(&c, "I help the Royal Guard defend the gate", &[]);
        let rep = p
            .tools
            .iter()
            .find(|t| t.tool_path == "reputation/update-reputation")
            .unwrap();
        assert_eq!(rep.input["faction"], "Royal Guard");
        assert_eq!(rep.input["delta"], 10);
        let p = plan_for(&c, "What does the thieves guild think of me?", &[]);
        assert!(paths(&p).contains(&"reputation/query-reputation"));
    }

    #[test]
    fn a_correction_names_the_skills_whatever_the_words() {
        let (_dir, c) = catalog();
        let state = Map::new();
        let deadline = Instant::now() + std::time::Duration::from_secs(5);
        let needed = ["dice-roller".to_string()];
        let haggle = PlanRequest {
            skills_needed: Some(&needed),
            ..PlanRequest::first("I haggle for the horse", &c, &state, deadline)
        };
        assert_eq!(paths(&rule_plan(&haggle))[..1], ["dice-roller/roll-dice"]);
        let none: [String; 0] = [];
        let attack = PlanRequest {
            skills_needed: Some(&none),
            ..PlanRequest::first("I attack the goblin and remember it", &c, &state, deadline)
        };
        assert_eq!(paths(&rule_plan(&attack)), ["storyteller/narrate"]);
    }

    #[test]
    fn disabled_skills_are_left_out() {
        let (_d, c) = catalog();
        let p = plan_for(&c, "I attack the goblin", &["dice-roller".to_string()]);
        assert_eq!(paths(&p), vec!["storyteller/narrate"]);
        let p = plan_for(
            &c,
            "I attack",
            &["dice-roller".to_string(), "storyteller".to_string()],
        );
        assert!(p.tools.is_empty());
        assert!(p.narrative.unwrap().starts_with("You attack"));
        let p = plan_for(&c, "I swing my axe at me", &[]);
        assert_eq!(p.narrative.as_deref(), Some("You swing your axe at you."));
    }
}
