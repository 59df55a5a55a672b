//! What the narrator knows of the skills: the cards core shows every
//! planner (`narratoria_core::skills::cards`), and how a value is checked
//! against a card's input schema.

use serde_json::{Map, Value};

pub use narratoria_core::skills::cards::{cards, tool_paths, SkillCard, ToolCard};

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
