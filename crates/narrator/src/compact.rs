//! The compact plan the model writes, the grammar that constrains it, and its
//! expansion into a full, validated Plan.
//!
//! The model writes only what it must:
//! `{"narrative":"…","tools":[{"use":"dice-roller/roll-dice","input":{…},"after":["…"]}]}`.
//! A tool's id is its script's name (made unique); `after` names earlier
//! tools by that id. The host adds the requestId, metadata, contract defaults
//! and retry policy.

use serde::Deserialize;
use serde_json::{json, Map, Value};
use uuid::Uuid;

use narratoria_core::plan::Plan;
use narratoria_lexicon::clip_after;

use crate::catalog::ToolCard;
use crate::error::NarratorError;

/// Bounds that keep generation short.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompactLimits {
    pub narrative_max_chars: usize,
    /// The narrative's bound when tools follow it (their results tell the rest).
    pub narrative_with_tools_max_chars: usize,
    pub max_tools: usize,
    /// Upper bound for free-text strings in tool inputs that declare none.
    pub input_string_max_chars: usize,
}

impl Default for CompactLimits {
    fn default() -> Self {
        CompactLimits {
            narrative_max_chars: 90,
            narrative_with_tools_max_chars: 56,
            max_tools: narratoria_core::planner::MAX_MODEL_PLAN_TOOLS,
            input_string_max_chars: 32,
        }
    }
}

/// The JSON Schema of the compact form for `tools`. With `typed_inputs`, each
/// tool's `input` follows its script's input schema where llama.cpp's
/// converter accepts it, else any object. With no tools, only a narrative.
/// With `min_tools` > 0 the plan must use at least that many tools.
pub fn compact_schema(
    tools: &[ToolCard],
    limits: CompactLimits,
    typed_inputs: bool,
    min_tools: usize,
) -> Value {
    let narrative =
        json!({"type": "string", "minLength": 1, "maxLength": limits.narrative_max_chars});
    if tools.is_empty() {
        return json!({
            "type": "object",
            "properties": {"narrative": narrative},
            "required": ["narrative"],
            "additionalProperties": false
        });
    }
    let ids: Vec<String> = tools.iter().map(|t| tool_id(&t.path)).collect();
    let items = item_schema(tools, limits, typed_inputs, &ids);
    json!({
        "type": "object",
        "properties": {
            "narrative": narrative,
            "tools": {"type": "array", "items": items, "minItems": min_tools.min(limits.max_tools), "maxItems": limits.max_tools}
        },
        "required": ["narrative", "tools"],
        "additionalProperties": false
    })
}

/// The JSON Schema of one tool of the compact form: `use` one of `tools`,
/// its `input`, and `after` naming some of `earlier` (absent when empty).
pub fn item_schema(
    tools: &[ToolCard],
    limits: CompactLimits,
    typed_inputs: bool,
    earlier: &[String],
) -> Value {
    let variants: Vec<Value> = tools
        .iter()
        .map(|t| {
            let input = if typed_inputs {
                generation_input_schema(t.input_schema.as_ref(), limits.input_string_max_chars)
            } else {
                json!({"type": "object"})
            };
            let mut properties = json!({
                "use": {"const": t.path},
                "input": input,
            });
            if !earlier.is_empty() {
                properties["after"] = json!({
                    "type": "array",
                    "items": {"enum": earlier},
                    "minItems": 1,
                    "maxItems": earlier.len()
                });
            }
            json!({
                "type": "object",
                "properties": properties,
                "required": ["use", "input"],
                "additionalProperties": false
            })
        })
        .collect();
    if variants.len() == 1 {
        variants.into_iter().next().unwrap_or(Value::Null)
    } else {
        json!({"anyOf": variants})
    }
}

/// The id a tool gets in a plan: its script's name.
pub fn tool_id(path: &str) -> String {
    sanitize_id(path.rsplit('/').next().unwrap_or(path), 0)
}

/// A GBNF grammar for the narrative string, from its opening quote to its
/// closing one (1 to `max_chars` characters), optionally followed by a start
/// of `then` — the text the host writes next — so the model can close the
/// string with the tokens it prefers (such as `",`).
pub fn narrative_grammar(max_chars: usize, then: &str) -> String {
    let mut tail = String::new();
    for c in then.chars().take(12).collect::<Vec<_>>().into_iter().rev() {
        let lit = serde_json::to_string(&c.to_string()).unwrap_or_default();
        tail = if tail.is_empty() {
            format!("({lit})?")
        } else {
            format!("({lit} {tail})?")
        };
    }
    format!(
        r#"root ::= "\"" char{{1,{n}}} "\"" {tail}
char ::= [^"\\\x7F\x00-\x1F] | [\\] (["\\/bfnrt] | "u" [0-9a-fA-F]{{4}})
"#,
        n = max_chars.max(1)
    )
}

/// What `answer` holds after its narrative string closes: the start of the
/// host's next text that the model wrote with its closing quote (see
/// [`narrative_grammar`]). `answer` starts with `{"narrative":"`.
pub fn after_narrative(answer: &str) -> &str {
    let Some(open) = answer.find(":\"") else {
        return "";
    };
    let mut escape = false;
    for (i, c) in answer[open + 2..].char_indices() {
        if escape {
            escape = false;
        } else if c == '\\' {
            escape = true;
        } else if c == '"' {
            return &answer[open + 2 + i + 1..];
        }
    }
    ""
}

/// A script's input schema made fit for generation: unsupported schemas
/// become "any object", free strings get a length bound, objects with declared
/// properties get no extra ones, and long free strings are bounded more tightly. Values valid here are valid for the script.
pub fn generation_input_schema(schema: Option<&Value>, string_max: usize) -> Value {
    let Some(schema) = schema.filter(|s| s.is_object()) else {
        return json!({"type": "object"});
    };
    let mut s = schema.clone();
    if let Some(o) = s.as_object_mut() {
        for k in ["$schema", "$id", "title", "examples", "default"] {
            o.remove(k);
        }
    }
    tighten(&mut s, string_max, 0);
    let accepted = serde_json::to_string(&s)
        .ok()
        .map(|text| llama_cpp_2::json_schema_to_grammar(&text).is_ok())
        .unwrap_or(false);
    if accepted && s.get("type").and_then(Value::as_str) == Some("object") {
        s
    } else {
        json!({"type": "object"})
    }
}

/// The most items of a list the model writes, unless the script needs more.
const ARRAY_MAX: u64 = 8;

/// Bounds what the model may write under the schema `v` and every schema
/// nested in it (to depth 16): strings, whole numbers with examples, lists
/// and objects.
fn tighten(v: &mut Value, string_max: usize, depth: u32) {
    if depth > 16 {
        return;
    }
    let Some(o) = v.as_object_mut() else { return };
    bound_string(o, string_max);
    integer_examples_as_choices(o);
    // A list the model writes is short: a small model left room repeats
    // itself until its deadline ("the island_1.5_2.5…" fifty times).
    if is_type(o, "array") {
        let most = o
            .get("maxItems")
            .and_then(Value::as_u64)
            .unwrap_or(u64::MAX);
        let least = o.get("minItems").and_then(Value::as_u64).unwrap_or(0);
        o.insert("maxItems".into(), json!(most.min(ARRAY_MAX).max(least)));
    }
    if is_type(o, "object")
        && o.contains_key("properties")
        && !o.contains_key("additionalProperties")
    {
        o.insert("additionalProperties".into(), json!(false));
    }
    for k in ["properties", "$defs", "definitions"] {
        if let Some(Value::Object(props)) = o.get_mut(k) {
            for p in props.values_mut() {
                tighten(p, string_max, depth + 1);
            }
        }
    }
    for k in ["items", "additionalProperties"] {
        if let Some(p) = o.get_mut(k) {
            tighten(p, string_max, depth + 1);
        }
    }
    for k in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(list)) = o.get_mut(k) {
            for p in list {
                tighten(p, string_max, depth + 1);
            }
        }
    }
}

fn is_type(o: &Map<String, Value>, t: &str) -> bool {
    o.get("type").and_then(Value::as_str) == Some(t)
}

/// A free string (no enum, const, pattern or format) is bounded to
/// `string_max` characters, unless the script needs longer text.
fn bound_string(o: &mut Map<String, Value>, string_max: usize) {
    let bounded = o
        .get("maxLength")
        .and_then(Value::as_u64)
        .is_some_and(|m| m <= string_max as u64);
    if is_type(o, "string")
        && !bounded
        && !o.contains_key("enum")
        && !o.contains_key("const")
        && !o.contains_key("pattern")
        && !o.contains_key("format")
    {
        o.insert("maxLength".into(), json!(string_max));
        if let Some(min) = o.get("minLength").and_then(Value::as_u64) {
            if min > string_max as u64 {
                // The script needs longer text than generation allows: keep its own bound.
                o.insert("maxLength".into(), json!(min));
            }
        }
    }
}

/// A whole number the author gave examples for is one of them: one cheap
/// choice for the model (a check's difficulty: 10, 15, 20 or 25).
fn integer_examples_as_choices(o: &mut Map<String, Value>) {
    if is_type(o, "integer") && !o.contains_key("enum") {
        if let Some(Value::Array(examples)) = o.get("examples") {
            if !examples.is_empty() && examples.iter().all(Value::is_i64) {
                let choices = examples.clone();
                for k in ["minimum", "maximum", "examples"] {
                    o.remove(k);
                }
                o.insert("enum".into(), Value::Array(choices));
            }
        }
    }
}

/// The GBNF grammar for `schema`, with no whitespace between tokens: the
/// model cannot spend time on layout, and the grammar is complete exactly
/// when the value closes.
pub fn grammar(schema: &Value) -> Result<String, NarratorError> {
    let text = serde_json::to_string(schema).map_err(|e| NarratorError::Grammar(e.to_string()))?;
    let gbnf = llama_cpp_2::json_schema_to_grammar(&text)
        .map_err(|e| NarratorError::Grammar(e.to_string()))?;
    Ok(gbnf
        .lines()
        .map(|l| {
            if l.starts_with("space ::=") {
                "space ::= \"\""
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n"))
}

/// What the model wrote, parsed.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompactPlan {
    pub narrative: String,
    #[serde(default)]
    pub tools: Vec<CompactTool>,
}

/// One tool of the compact form.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompactTool {
    /// Optional: the script's name by default.
    #[serde(default)]
    pub id: Option<String>,
    #[serde(rename = "use")]
    pub tool_path: String,
    #[serde(default)]
    pub input: Map<String, Value>,
    #[serde(default)]
    pub after: Vec<String>,
}

/// What the host adds to a compact plan.
#[derive(Debug, Clone, PartialEq)]
pub struct Expansion<'a> {
    pub allowed_paths: &'a [String],
    pub disabled_skills: &'a [String],
    pub attempt: u32,
    pub parent_plan_id: Option<Uuid>,
}

/// Parses the model's text and expands it into a validated Plan: a fresh
/// requestId, metadata, contract defaults and retry policy. Tool ids are made
/// unique; `after` keeps only ids of earlier tools, so the plan is always a DAG.
/// A toolPath outside `allowed_paths` is an error.
pub fn expand(text: &str, how: &Expansion<'_>) -> Result<Plan, NarratorError> {
    let compact: CompactPlan = serde_json::from_str(text).map_err(|e| {
        NarratorError::InvalidOutput(format!(
            "not the compact plan form: {e}: {}",
            clip_for_error(text)
        ))
    })?;
    let mut seen: Vec<String> = Vec::new();
    let mut tools = Vec::new();
    for (i, t) in compact.tools.iter().enumerate() {
        if !how.allowed_paths.iter().any(|p| p == &t.tool_path) {
            return Err(NarratorError::InvalidOutput(format!(
                "tool {} uses {:?}, which is not an available tool",
                i, t.tool_path
            )));
        }
        let mut id = match &t.id {
            Some(id) => sanitize_id(id, i),
            None => tool_id(&t.tool_path),
        };
        if seen.contains(&id) {
            id = format!("{id}-{}", i + 1);
        }
        let mut deps: Vec<String> = Vec::new();
        for a in &t.after {
            let a = sanitize_id(a, usize::MAX);
            if seen.contains(&a) && !deps.contains(&a) {
                deps.push(a);
            }
        }
        seen.push(id.clone());
        tools.push(json!({
            "toolId": id,
            "toolPath": t.tool_path,
            "input": t.input,
            "dependencies": deps,
            "required": true,
            "async": false,
            "retryPolicy": {"maxRetries": 3, "backoffMs": 100}
        }));
    }
    let mut metadata = json!({"generationAttempt": how.attempt.max(1)});
    if let Some(parent) = how.parent_plan_id {
        metadata["parentPlanId"] = json!(parent.to_string());
    }
    let narrative = tidy_narrative(&compact.narrative);
    let narrative = narrative.as_str();
    let mut plan = json!({
        "requestId": Uuid::new_v4().to_string(),
        "tools": tools,
        "parallel": false,
        "disabledSkills": how.disabled_skills,
        "metadata": metadata
    });
    if !narrative.is_empty() {
        plan["narrative"] = json!(narrative);
    }
    Plan::from_value(plan).map_err(|e| NarratorError::InvalidOutput(e.to_string()))
}

/// The narrative as the player reads it: a text cut short by the length
/// bound ends at its last complete sentence, or with an ellipsis.
pub fn tidy_narrative(text: &str) -> String {
    let text = text.trim();
    let ends = |c: char| matches!(c, '.' | '!' | '?' | '…' | '"' | '\'' | ')');
    if text.is_empty() || text.ends_with(ends) {
        return text.to_string();
    }
    let cut = text
        .char_indices()
        .filter(|&(i, c)| matches!(c, '.' | '!' | '?') && text[i + c.len_utf8()..].starts_with(' '))
        .map(|(i, c)| i + c.len_utf8())
        .next_back();
    match cut {
        Some(at) => text[..at].to_string(),
        None => format!("{}…", text.trim_end_matches([',', ';', ':', ' '])),
    }
}

/// The model's text as an error shows it: its first 400 characters.
fn clip_for_error(text: &str) -> String {
    clip_after(text, 400)
}

fn sanitize_id(id: &str, index: usize) -> String {
    let clean: String = id
        .trim()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .take(32)
        .collect();
    if clean.trim_matches('-').is_empty() {
        format!("t{}", index.wrapping_add(1))
    } else {
        clean
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dice() -> ToolCard {
        ToolCard {
            path: "dice-roller/roll-dice".into(),
            description: None,
            declared_schema: None,
            input_schema: Some(json!({
                "$schema": "http://json-schema.org/draft-07/schema#",
                "type": "object",
                "properties": {"formula": {"type": "string", "minLength": 1, "maxLength": 100},
                               "reason": {"type": "string"}},
                "required": ["formula"]
            })),
        }
    }

    fn how(paths: &[String]) -> Expansion<'_> {
        Expansion {
            allowed_paths: paths,
            disabled_skills: &[],
            attempt: 2,
            parent_plan_id: Some(Uuid::nil()),
        }
    }

    #[test]
    fn schema_constrains_paths_and_inputs() {
        let s = compact_schema(&[dice()], CompactLimits::default(), true, 0);
        let input = &s["properties"]["tools"]["items"]["properties"]["input"];
        assert_eq!(input["additionalProperties"], false);
        assert_eq!(input["properties"]["reason"]["maxLength"], 32);
        assert_eq!(input["properties"]["formula"]["maxLength"], 32);
        assert!(input.get("$schema").is_none());
        let g = grammar(&s).unwrap();
        assert!(g.contains("dice-roller/roll-dice"), "{g}");
    }

    #[test]
    fn a_whole_number_with_examples_is_one_of_them() {
        let s = generation_input_schema(
            Some(&json!({"type": "object", "properties": {
                "dc": {"type": "integer", "minimum": 1, "maximum": 1000, "examples": [10, 15, 20, 25]},
                "seed": {"type": "integer", "minimum": 0}
            }})),
            32,
        );
        assert_eq!(
            s["properties"]["dc"],
            json!({"type": "integer", "enum": [10, 15, 20, 25]})
        );
        assert_eq!(
            s["properties"]["seed"],
            json!({"type": "integer", "minimum": 0})
        );
        let g = grammar(&json!({"type": "object", "properties": {"input": s}})).unwrap();
        assert!(g.contains("\"25\""), "{g}");
    }

    #[test]
    fn a_list_the_model_writes_is_short_unless_the_script_needs_more() {
        let s = generation_input_schema(
            Some(&json!({"type": "object", "properties": {
                "places": {"type": "array", "items": {"type": "string"}, "maxItems": 50},
                "tags": {"type": "array", "items": {"type": "string"}},
                "pair": {"type": "array", "items": {"type": "integer"}, "maxItems": 2},
                "many": {"type": "array", "items": {"type": "integer"}, "minItems": 12}
            }})),
            32,
        );
        let most = |k: &str| s["properties"][k]["maxItems"].as_u64().unwrap();
        assert_eq!(
            [most("places"), most("tags"), most("pair"), most("many")],
            [8, 8, 2, 12]
        );
    }

    #[test]
    fn no_tools_means_narrative_only() {
        let s = compact_schema(&[], CompactLimits::default(), true, 1);
        assert!(s["properties"].get("tools").is_none());
        grammar(&s).unwrap();
    }

    #[test]
    fn unsupported_input_schemas_fall_back_to_any_object() {
        let s = generation_input_schema(Some(&json!({"$ref": "https://example.com/x.json"})), 80);
        assert_eq!(s, json!({"type": "object"}));
        assert_eq!(generation_input_schema(None, 80), json!({"type": "object"}));
    }

    #[test]
    fn expands_into_a_valid_plan() {
        let paths = vec![
            "dice-roller/roll-dice".to_string(),
            "storyteller/narrate".to_string(),
        ];
        let text = r#"{"narrative":"You swing.","tools":[
            {"id":"roll","use":"dice-roller/roll-dice","input":{"formula":"1d20"}},
            {"id":"roll","use":"storyteller/narrate","input":{},"after":["roll","later","roll"]},
            {"id":"!!","use":"storyteller/narrate","input":{},"after":["nope"]}]}"#;
        let plan = expand(text, &how(&paths)).unwrap();
        assert_eq!(plan.tools.len(), 3);
        assert_eq!(plan.tools[1].tool_id, "roll-2");
        assert_eq!(plan.tools[1].dependencies, vec!["roll"]);
        assert_eq!(plan.tools[2].tool_id, "t3");
        assert!(plan.tools[2].dependencies.is_empty());
        assert_eq!(plan.metadata.generation_attempt, 2);
        assert_eq!(plan.metadata.parent_plan_id, Some(Uuid::nil()));
        assert_eq!(plan.narrative.as_deref(), Some("You swing."));
    }

    #[test]
    fn narratives_cut_short_end_cleanly() {
        assert_eq!(tidy_narrative(" You win. "), "You win.");
        assert_eq!(
            tidy_narrative("You bribe the guard. He nods! The guards will not help you, which"),
            "You bribe the guard. He nods!"
        );
        assert_eq!(
            tidy_narrative("You walk toward the gate,"),
            "You walk toward the gate…"
        );
        assert_eq!(tidy_narrative("Mr.Smith waves"), "Mr.Smith waves…");
    }

    #[test]
    fn rejects_unknown_tools_and_garbage() {
        let paths = vec!["dice-roller/roll-dice".to_string()];
        let err = expand(
            r#"{"narrative":"x","tools":[{"id":"a","use":"rm/rf","input":{}}]}"#,
            &how(&paths),
        )
        .unwrap_err();
        assert_eq!(err.code(), "invalid_output");
        assert!(expand("{\"narrative\":", &how(&paths)).is_err());
    }
}
