//! The player's corrections of a turn's mechanics, kept as examples for the
//! story's routing (docs/narrator.md, "The player corrects"). A correction
//! says which skills an input needed and which it got without needing them;
//! a catalog with the story's corrections lists each input among the
//! examples of the scripts it needed, among the counter-examples of the
//! skills it did not, and among the narration-only inputs when it needed
//! none, so the router weighs it as any example an author wrote.

use serde::{Deserialize, Serialize};

use super::Catalog;

/// One correction the player made of a turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct Correction {
    /// The store's id, to remove it by.
    pub id: i64,
    /// The player's input of the corrected turn.
    pub input: String,
    /// The scripts (`<skill>/<script>`) the turn needed; empty: narration only.
    pub needed: Vec<String>,
    /// The skills the turn got and did not need.
    pub unneeded: Vec<String>,
    /// When it was made (RFC 3339).
    pub created_at: String,
}

impl Correction {
    /// The skills it says the input needed.
    pub fn needed_skills(&self) -> impl Iterator<Item = &str> {
        self.needed.iter().map(|path| {
            path.split_once('/')
                .map_or(path.as_str(), |(skill, _)| skill)
        })
    }

    /// Whether it names `skill`, as needed or not.
    pub fn names(&self, skill: &str) -> bool {
        self.needed_skills().any(|s| s == skill) || self.unneeded.iter().any(|s| s == skill)
    }
}

impl Catalog {
    /// This catalog with `corrections` among its scripts' examples and
    /// counter-examples and its narration-only inputs. A correction naming a
    /// skill or script the catalog lacks changes nothing for that name.
    pub fn with_corrections(&self, corrections: &[Correction]) -> Catalog {
        let mut catalog = self.clone();
        for c in corrections {
            for path in &c.needed {
                let Some((skill, script)) = path.split_once('/') else {
                    continue;
                };
                let found = catalog
                    .get_mut(skill)
                    .and_then(|s| s.scripts.iter_mut().find(|s| s.name == script));
                if let Some(script) = found {
                    push_new(&mut script.examples, &c.input);
                }
            }
            for skill in &c.unneeded {
                if let Some(skill) = catalog.get_mut(skill) {
                    for script in &mut skill.scripts {
                        push_new(&mut script.counter_examples, &c.input);
                    }
                }
            }
            if c.needed.is_empty() {
                push_new(&mut catalog.narration_examples, &c.input);
            }
        }
        catalog
    }

    /// Inputs the story's player said needed no mechanics, besides the
    /// router's own narration-only class.
    pub fn narration_examples(&self) -> &[String] {
        &self.narration_examples
    }
}

fn push_new(list: &mut Vec<String>, text: &str) {
    if !list.iter().any(|t| t == text) {
        list.push(text.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skills::discover;
    use crate::test_support::script_skill;

    /// A catalog of `skills`, each with its scripts, discovered from a
    /// folder in `root`.
    fn catalog_of(root: &tempfile::TempDir, skills: &[(&str, &[&str])]) -> Catalog {
        for (name, scripts) in skills {
            let dir = script_skill(root.path(), name, scripts[0], "", "true");
            for more in &scripts[1..] {
                let from = dir.join("scripts").join(format!("{}.sh", scripts[0]));
                std::fs::copy(from, dir.join("scripts").join(format!("{more}.sh"))).unwrap();
            }
        }
        discover(&[root.path().to_path_buf()]).unwrap()
    }

    fn correction(input: &str, needed: &[&str], unneeded: &[&str]) -> Correction {
        Correction {
            id: 1,
            input: input.into(),
            needed: needed.iter().map(|s| s.to_string()).collect(),
            unneeded: unneeded.iter().map(|s| s.to_string()).collect(),
            created_at: String::new(),
        }
    }

    #[test]
    fn a_needed_script_gets_the_input_as_an_example_and_an_unneeded_skill_as_a_counter_example() {
        let root = tempfile::tempdir().unwrap();
        let catalog = catalog_of(
            &root,
            &[("dice", &["roll"]), ("memory", &["store", "recall"])],
        );
        let corrected = catalog.with_corrections(&[correction(
            "I haggle for the horse",
            &["dice/roll"],
            &["memory"],
        )]);
        let dice = corrected.get("dice").unwrap().script("roll").unwrap();
        assert!(dice
            .examples
            .contains(&"I haggle for the horse".to_string()));
        for script in &corrected.get("memory").unwrap().scripts {
            assert!(script
                .counter_examples
                .contains(&"I haggle for the horse".to_string()));
            assert!(!script
                .examples
                .contains(&"I haggle for the horse".to_string()));
        }
        assert!(corrected.narration_examples().is_empty());
        // The catalog corrected is a copy.
        assert!(catalog.get("dice").unwrap().scripts[0].examples.is_empty());
    }

    #[test]
    fn a_turn_that_needed_nothing_joins_the_narration_only_inputs_once() {
        let root = tempfile::tempdir().unwrap();
        let catalog = catalog_of(&root, &[("dice", &["roll"])]);
        let told = correction("I follow the sailor to the docks", &[], &["dice"]);
        let corrected = catalog.with_corrections(&[told.clone(), told]);
        assert_eq!(
            corrected.narration_examples(),
            ["I follow the sailor to the docks".to_string()]
        );
        let roll = corrected.get("dice").unwrap().script("roll").unwrap();
        assert_eq!(roll.counter_examples.len(), 1);
    }

    #[test]
    fn names_the_catalog_lacks_change_nothing() {
        let root = tempfile::tempdir().unwrap();
        let catalog = catalog_of(&root, &[("dice", &["roll"])]);
        let corrected = catalog.with_corrections(&[correction(
            "I cast a spell",
            &["magic/cast", "dice/nope", "loose"],
            &["weather"],
        )]);
        assert!(corrected.get("dice").unwrap().scripts[0]
            .examples
            .is_empty());
        assert!(corrected.get("magic").is_none());
    }
}
