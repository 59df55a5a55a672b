//! What the narrator knows of the skills: an owned, ordered view of the
//! catalog's usable skills and their runnable scripts.

use narratoria_core::skills::Catalog;
use serde_json::{Map, Value};

/// One skill as the prompt shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct SkillCard {
    pub name: String,
    pub description: String,
    /// The skill's `prompt.md` text, trimmed.
    pub guide: Option<String>,
    pub tools: Vec<ToolCard>,
}

/// One runnable script of a skill.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCard {
    /// `<skill>/<script>`.
    pub path: String,
    pub description: Option<String>,
    pub input_schema: Option<Value>,
}

/// The skills a plan may use, excluding `disabled`, in catalog (name) order;
/// scripts that are not executable are left out, and so are skills left with none.
pub fn cards(catalog: &Catalog, disabled: &[String]) -> Vec<SkillCard> {
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
                    description: sc.description.as_deref().map(|d| d.trim().to_string()),
                    input_schema: sc.input_schema.clone().map(without_read_only),
                })
                .collect(),
        })
        .filter(|c| !c.tools.is_empty())
        .collect()
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

/// Every toolPath of `cards`, in order.
pub fn tool_paths(cards: &[SkillCard]) -> Vec<String> {
    cards
        .iter()
        .flat_map(|c| c.tools.iter().map(|t| t.path.clone()))
        .collect()
}

/// Whether `value` is valid for `schema` (an unusable schema accepts nothing).
pub fn accepts(schema: &Value, value: &Value) -> bool {
    narratoria_core::schema::compile(schema)
        .map(|v| narratoria_core::schema::validation_errors(&v, value).is_empty())
        .unwrap_or(false)
}

/// Whether `value` is valid for `property`, a property's schema.
pub fn fits(property: &Map<String, Value>, value: &Value) -> bool {
    accepts(&Value::Object(property.clone()), value)
}

/// Calls `f` with every top-level property schema of every input schema of
/// `tools` (an input schema without `properties` has none).
pub fn each_input_property<'a>(
    tools: impl IntoIterator<Item = &'a mut ToolCard>,
    mut f: impl FnMut(&mut Map<String, Value>),
) {
    for tool in tools {
        if let Some(Value::Object(properties)) = tool
            .input_schema
            .as_mut()
            .and_then(|s| s.get_mut("properties"))
        {
            properties
                .values_mut()
                .filter_map(Value::as_object_mut)
                .for_each(&mut f);
        }
    }
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
}
