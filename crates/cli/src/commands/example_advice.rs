//! `skills check`'s advice on a skill's examples: scripts with too few to
//! be routed to, and examples that read like a built-in skill's.

use narratoria_core::skills::{discover, Skill};
use narratoria_routing::authoring::{collisions, too_few_examples};
use narratoria_routing::{model_dir_for, Router};

/// One sentence per piece of advice; comparing with the built-in skills
/// needs the embedding model, and says so when it is missing.
pub fn advice(skill: &Skill) -> Vec<String> {
    let mut out: Vec<String> = too_few_examples(skill)
        .iter()
        .map(ToString::to_string)
        .collect();
    let builtin_dir = narratoria_app::locate::builtin_skills_dir(None);
    if skill.dir.starts_with(&builtin_dir) {
        return out;
    }
    let Ok(builtin) = discover(&[builtin_dir]) else {
        return out;
    };
    let model_dir = model_dir_for(&narratoria_app::locate::default_model_path());
    let compared = Router::load(&model_dir).and_then(|r| collisions(&r, skill, &builtin));
    match compared {
        Ok(found) => out.extend(found.iter().map(ToString::to_string)),
        Err(e) => out.push(format!(
            "the examples were not compared with the built-in skills' ({e})"
        )),
    }
    out
}
