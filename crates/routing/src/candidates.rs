//! What the router knows of a catalog: every script a plan may route to,
//! with the texts that say when to call it.

use narratoria_core::skills::{Catalog, Skill, SkillScript};

use crate::keywords::script_text;

/// One script the router may choose.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub skill: String,
    pub script: String,
    /// The skill's description and the script's, as one text.
    pub description: String,
    /// Player inputs that call for the script (its manifest `examples`).
    pub examples: Vec<String>,
    /// Player inputs that must not (its manifest `counterExamples`).
    pub counter_examples: Vec<String>,
    /// The words keyword routing matches: the toolPath's words, the
    /// descriptions, the guide's prose and the examples.
    pub keyword_text: String,
}

impl Candidate {
    /// `<skill>/<script>`.
    pub fn tool_path(&self) -> String {
        format!("{}/{}", self.skill, self.script)
    }
}

pub use narratoria_core::turn::narration_step::{is_host_step, is_narration};

/// Every executable script the host does not add itself (narration and
/// direction aside) of the catalog's usable skills
/// (none disabled), in catalog order.
pub fn candidates(catalog: &Catalog) -> Vec<Candidate> {
    catalog
        .usable(&[])
        .flat_map(|skill| {
            skill
                .scripts
                .iter()
                .filter(move |s| s.is_executable && !is_host_step(skill, s))
                .map(move |s| candidate(skill, s))
        })
        .collect()
}

fn candidate(skill: &Skill, script: &SkillScript) -> Candidate {
    let description = match script.description.as_deref().map(str::trim) {
        Some(d) if !d.is_empty() => format!("{} {d}", skill.description.trim()),
        _ => skill.description.trim().to_string(),
    };
    let mut keyword_text = script_text(
        &skill.name,
        &script.name,
        &skill.description,
        script.description.as_deref(),
        skill.prompt.as_deref(),
    );
    for e in &script.examples {
        keyword_text.push(' ');
        keyword_text.push_str(e);
    }
    Candidate {
        skill: skill.name.clone(),
        script: script.name.clone(),
        description,
        examples: script.examples.clone(),
        counter_examples: script.counter_examples.clone(),
        keyword_text,
    }
}
