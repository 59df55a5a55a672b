//! Skill cards the unit tests share.

use serde_json::{json, Value};

use crate::catalog::{SkillCard, ToolCard};

/// A skill `name` with one script `script`, a guide, and an input schema.
pub fn card(name: &str, script: &str, guide: &str, schema: Value) -> SkillCard {
    SkillCard {
        name: name.into(),
        description: format!("The {name} skill. More text."),
        guide: Some(guide.into()),
        tools: vec![ToolCard {
            path: format!("{name}/{script}"),
            description: None,
            input_schema: Some(schema.clone()),
            declared_schema: Some(schema),
        }],
    }
}

/// The built-in dice roller as the prompt sees it.
pub fn dice() -> SkillCard {
    card(
        "dice-roller",
        "roll-dice",
        "Roll for attacks, climbing, sneaking and lockpicking.\n\nMore detail here that is long.",
        json!({"type":"object","properties":{"formula":{"type":"string"},"reason":{"type":"string"}},"required":["formula"]}),
    )
}
