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
                    input_schema: sc.input_schema.clone(),
                })
                .collect(),
        })
        .filter(|c| !c.tools.is_empty())
        .collect()
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
