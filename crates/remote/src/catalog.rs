//! The tools a remote plan may use: the catalog's usable skills and their
//! runnable scripts, in catalog order, as the prompt and the checks see them.

use narratoria_core::skills::Catalog;
use serde_json::Value;

/// One skill with the tools a plan may use.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SkillCard {
    pub name: String,
    pub description: String,
    /// The skill's `prompt.md` text, trimmed.
    pub guide: Option<String>,
    pub tools: Vec<ToolCard>,
}

/// One runnable script of a skill.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ToolCard {
    /// `<skill>/<script>`.
    pub path: String,
    pub description: Option<String>,
    /// The script's input schema as the planner is shown it (properties the
    /// host or the script fills, `readOnly` and not required, left out).
    pub shown_schema: Option<Value>,
    /// The script's input schema as declared, which the plan's input must meet.
    pub input_schema: Option<Value>,
}

/// The skills a plan may use, excluding `disabled`: enabled, healthy enough,
/// with at least one executable script (scripts that are not are left out).
pub(crate) fn cards(catalog: &Catalog, disabled: &[String]) -> Vec<SkillCard> {
    catalog
        .usable(disabled)
        .map(|s| SkillCard {
            name: s.name.clone(),
            description: s.description.trim().to_string(),
            guide: s
                .prompt
                .as_deref()
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(str::to_string),
            tools: s
                .scripts
                .iter()
                .filter(|sc| sc.is_executable)
                .map(|sc| ToolCard {
                    path: format!("{}/{}", s.name, sc.name),
                    description: sc
                        .description
                        .as_deref()
                        .map(str::trim)
                        .filter(|d| !d.is_empty())
                        .map(str::to_string),
                    shown_schema: sc.input_schema.clone().map(without_read_only),
                    input_schema: sc.input_schema.clone(),
                })
                .collect(),
        })
        .filter(|c| !c.tools.is_empty())
        .collect()
}

/// Every tool of `cards`, in order.
pub(crate) fn tools(cards: &[SkillCard]) -> impl Iterator<Item = &ToolCard> {
    cards.iter().flat_map(|c| c.tools.iter())
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
    fn read_only_properties_are_not_shown_unless_required() {
        let kept = without_read_only(json!({
            "type": "object",
            "properties": {
                "summary": {"type": "string"},
                "timestamp": {"type": "string", "readOnly": true},
                "id": {"type": "string", "readOnly": true}
            },
            "required": ["summary", "id"]
        }));
        let names: Vec<&String> = kept["properties"].as_object().unwrap().keys().collect();
        assert_eq!(names, ["summary", "id"]);
        assert_eq!(without_read_only(json!(true)), json!(true));
    }
}
