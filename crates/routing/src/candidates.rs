//! What the router knows of a catalog: every script a plan may route to,
//! with the texts that say when to call it.

use std::collections::BTreeMap;

use narratoria_core::skills::{Catalog, Skill, SkillScript};

use crate::keywords::script_text;

/// Which of a script's examples a router reads: an English encoder places
/// only English texts, a multilingual one every language's
/// (docs/skills.md, "Examples in other languages").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ExampleLanguages {
    /// The manifest's `examples` and `counterExamples` alone.
    #[default]
    English,
    /// Those and every language's (`examplesByLanguage`,
    /// `counterExamplesByLanguage`).
    Every,
}

/// One script the router may choose.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub skill: String,
    pub script: String,
    /// The skill's description and the script's, as one text.
    pub description: String,
    /// Player inputs that call for the script (its manifest `examples`, and
    /// with [`ExampleLanguages::Every`] its examples in other languages).
    pub examples: Vec<String>,
    /// Player inputs that must not (its manifest `counterExamples`, and
    /// with [`ExampleLanguages::Every`] those in other languages).
    pub counter_examples: Vec<String>,
    /// The words keyword routing matches: the toolPath's words, the
    /// descriptions, the guide's prose and the examples.
    pub keyword_text: String,
    /// With [`ExampleLanguages::Every`], the words keyword routing matches
    /// in each other language: the script's examples in it, by code.
    pub keyword_texts_by_language: Vec<(String, String)>,
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
/// (none disabled), in catalog order, with the examples in `languages`.
pub fn candidates(catalog: &Catalog, languages: ExampleLanguages) -> Vec<Candidate> {
    catalog
        .usable(&[])
        .flat_map(|skill| {
            skill
                .scripts
                .iter()
                .filter(move |s| s.is_executable && !is_host_step(skill, s))
                .map(move |s| candidate(skill, s, languages))
        })
        .collect()
}

fn candidate(skill: &Skill, script: &SkillScript, languages: ExampleLanguages) -> Candidate {
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
    let keyword_texts_by_language = match languages {
        ExampleLanguages::English => Vec::new(),
        ExampleLanguages::Every => script
            .examples_by_language
            .iter()
            .map(|(code, examples)| (code.clone(), examples.join(" ")))
            .collect(),
    };
    let with_languages = |english: &[String], by_language: &BTreeMap<String, Vec<String>>| {
        let mut texts = english.to_vec();
        if languages == ExampleLanguages::Every {
            texts.extend(by_language.values().flatten().cloned());
        }
        texts
    };
    Candidate {
        skill: skill.name.clone(),
        script: script.name.clone(),
        description,
        examples: with_languages(&script.examples, &script.examples_by_language),
        counter_examples: with_languages(
            &script.counter_examples,
            &script.counter_examples_by_language,
        ),
        keyword_text,
        keyword_texts_by_language,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A skill whose one script has examples in English and in French.
    fn catalog(dir: &std::path::Path) -> Catalog {
        let skill = dir.join("lockpick");
        std::fs::create_dir_all(skill.join("scripts")).unwrap();
        std::fs::write(
            skill.join("skill.json"),
            r#"{"name":"lockpick","version":"1","description":"Picks locks.","scripts":{"pick":{
                "examples":["I pick the lock"],"counterExamples":["I look at the lock"],
                "examplesByLanguage":{"fr":["je crochète la serrure"]},
                "counterExamplesByLanguage":{"fr":["je regarde la serrure"]}}}}"#,
        )
        .unwrap();
        let script = skill.join("scripts/pick.sh");
        std::fs::write(&script, "#!/bin/sh\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        narratoria_core::skills::discover(&[dir.to_path_buf()]).unwrap()
    }

    #[test]
    fn an_english_router_reads_english_examples_and_a_multilingual_one_every_language() {
        let dir = tempfile::tempdir().unwrap();
        let catalog = catalog(dir.path());
        let english = candidates(&catalog, ExampleLanguages::English);
        assert_eq!(english[0].examples, ["I pick the lock"]);
        assert_eq!(english[0].counter_examples, ["I look at the lock"]);
        let every = candidates(&catalog, ExampleLanguages::Every);
        assert_eq!(
            every[0].examples,
            ["I pick the lock", "je crochète la serrure"]
        );
        assert_eq!(
            every[0].counter_examples,
            ["I look at the lock", "je regarde la serrure"]
        );
    }
}
