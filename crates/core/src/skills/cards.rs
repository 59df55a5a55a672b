//! The skills as a planner is shown them: the catalog's usable skills and
//! their runnable scripts, in catalog (name) order. The in-process planner
//! and a planner on a model server read the same cards.

use serde_json::Value;

use super::Catalog;

/// One skill as a planner's prompt shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct SkillCard {
    pub name: String,
    pub description: String,
    /// The skill's `prompt.md` text, trimmed; `None` when empty.
    pub guide: Option<String>,
    pub tools: Vec<ToolCard>,
}

/// One runnable script of a skill.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCard {
    /// `<skill>/<script>`.
    pub path: String,
    /// The script's description, trimmed; `None` when empty.
    pub description: Option<String>,
    /// The script's input schema as the planner is shown it: properties the
    /// host or the script fills (`readOnly` and not required) left out. A
    /// planner may narrow it further (choices read from the story).
    pub input_schema: Option<Value>,
    /// The script's input schema as declared, which a plan's input must meet.
    pub declared_schema: Option<Value>,
}

/// The skills a plan may use, excluding `disabled`: enabled, healthy enough,
/// with at least one executable script (scripts that are not are left out).
pub fn cards(catalog: &Catalog, disabled: &[String]) -> Vec<SkillCard> {
    catalog
        .usable(disabled)
        .map(|s| SkillCard {
            name: s.name.clone(),
            description: s.description.trim().to_string(),
            guide: trimmed(s.prompt.as_deref()),
            tools: s
                .scripts
                .iter()
                // The game master's step is the host's alone: no planner
                // is shown it (docs/game-master.md).
                .filter(|sc| sc.is_executable && !directs(s, sc))
                .map(|sc| ToolCard {
                    path: format!("{}/{}", s.name, sc.name),
                    description: trimmed(sc.description.as_deref()),
                    input_schema: sc.input_schema.clone().map(without_read_only),
                    declared_schema: sc.input_schema.clone(),
                })
                .collect(),
        })
        .filter(|c| !c.tools.is_empty())
        .collect()
}

/// Whether `script` of `skill` directs the turn: a step the host adds.
fn directs(skill: &super::Skill, script: &super::SkillScript) -> bool {
    use crate::turn::narration_step::{is_host_step, is_narration};
    is_host_step(skill, script) && !is_narration(skill, script)
}

/// Every tool of `cards`, in order.
pub fn tools(cards: &[SkillCard]) -> impl Iterator<Item = &ToolCard> {
    cards.iter().flat_map(|c| c.tools.iter())
}

/// Every toolPath of `cards`, in order.
pub fn tool_paths(cards: &[SkillCard]) -> Vec<String> {
    tools(cards).map(|t| t.path.clone()).collect()
}

fn trimmed(text: Option<&str>) -> Option<String> {
    text.map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
}

/// `schema` without its top-level properties marked `readOnly` that are not
/// required: the script or the host fills them, never the planner
/// (docs/skills.md, "Input schema").
fn without_read_only(mut schema: Value) -> Value {
    let required: Vec<String> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        properties.retain(|name, property| {
            required.contains(name) || property.get("readOnly") != Some(&Value::Bool(true))
        });
    }
    schema
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn read_only_properties_are_not_the_planners_to_write_unless_required() {
        let schema = json!({
            "type": "object",
            "properties": {
                "summary": {"type": "string"},
                "timestamp": {"type": "string", "readOnly": true},
                "id": {"type": "string", "readOnly": true},
                "note": {"type": "string", "readOnly": false}
            },
            "required": ["summary", "id"]
        });
        let kept = without_read_only(schema);
        let names: Vec<&String> = kept["properties"].as_object().unwrap().keys().collect();
        assert_eq!(names, ["summary", "id", "note"]);
        assert_eq!(without_read_only(json!(true)), json!(true));
    }

    #[test]
    fn empty_texts_are_none() {
        assert_eq!(trimmed(Some("  \n")), None);
        assert_eq!(trimmed(Some(" Rolls dice. ")), Some("Rolls dice.".into()));
        assert_eq!(trimmed(None), None);
    }
}
