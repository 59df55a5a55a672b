//! Advice for skill authors on their examples (`narratoria skills check`):
//! scripts with too few examples to be routed to, and examples that read
//! like another skill's.

use narratoria_core::skills::{Catalog, Skill};

use crate::candidates::{candidates, is_host_step};
use crate::index::dot;
use crate::{RouteError, Router};

/// Fewer examples than this and a script is hard to route to.
pub const MIN_EXAMPLES: usize = 5;
/// An example this similar (cosine) to another skill's example collides with it.
pub const COLLISION_SIMILARITY: f32 = 0.8;

/// Advice on one script's examples.
#[derive(Debug, Clone, PartialEq)]
pub enum ExampleAdvice {
    /// The script has fewer than [`MIN_EXAMPLES`] examples.
    TooFew { script: String, count: usize },
    /// An example's nearest neighbour is another skill's example.
    Collides {
        script: String,
        example: String,
        other_tool: String,
        other_example: String,
        similarity: f32,
    },
}

impl std::fmt::Display for ExampleAdvice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExampleAdvice::TooFew { script, count } => write!(
                f,
                "script {script:?} has {count} example(s); give at least {MIN_EXAMPLES} player inputs that call for it (\"examples\"), or the narrator may never choose it"
            ),
            ExampleAdvice::Collides {
                script,
                example,
                other_tool,
                other_example,
                similarity,
            } => write!(
                f,
                "example {example:?} of script {script:?} reads like {other_tool}'s example {other_example:?} (similarity {similarity:.2}); the narrator may choose {other_tool} instead"
            ),
        }
    }
}

/// The scripts of `skill` (the host's steps aside) with fewer than [`MIN_EXAMPLES`] examples.
pub fn too_few_examples(skill: &Skill) -> Vec<ExampleAdvice> {
    skill
        .scripts
        .iter()
        .filter(|s| !is_host_step(skill, s) && s.examples.len() < MIN_EXAMPLES)
        .map(|s| ExampleAdvice::TooFew {
            script: s.name.clone(),
            count: s.examples.len(),
        })
        .collect()
}

/// The examples of `skill` whose nearest neighbour among its own and
/// `builtin`'s examples belongs to another skill, with a similarity of at
/// least [`COLLISION_SIMILARITY`]. An example another skill lists word for
/// word is shared on purpose (a turn that needs both skills) and not a collision.
pub fn collisions(
    router: &Router,
    skill: &Skill,
    builtin: &Catalog,
) -> Result<Vec<ExampleAdvice>, RouteError> {
    let own: Vec<(String, String)> = skill
        .scripts
        .iter()
        .filter(|s| !is_host_step(skill, s))
        .flat_map(|s| s.examples.iter().map(|e| (s.name.clone(), e.clone())))
        .collect();
    let others: Vec<(String, String)> = candidates(builtin, router.example_languages())
        .into_iter()
        .filter(|c| c.skill != skill.name)
        .flat_map(|c| {
            let tool = c.tool_path();
            c.examples.into_iter().map(move |e| (tool.clone(), e))
        })
        .collect();
    if own.is_empty() || others.is_empty() {
        return Ok(Vec::new());
    }
    let own_texts: Vec<String> = own.iter().map(|(_, e)| e.clone()).collect();
    let other_texts: Vec<String> = others.iter().map(|(_, e)| e.clone()).collect();
    let own_vecs = router.embed_texts(&own_texts)?;
    let other_vecs = router.embed_texts(&other_texts)?;
    let mut advice = Vec::new();
    for (i, ((script, example), v)) in own.iter().zip(&own_vecs).enumerate() {
        let nearest_own = own_vecs
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .map(|(_, w)| dot(v, w))
            .fold(f32::MIN, f32::max);
        let Some((k, similarity)) = other_vecs
            .iter()
            .map(|w| dot(v, w))
            .enumerate()
            .filter(|(k, _)| others[*k].1 != *example)
            .max_by(|a, b| a.1.total_cmp(&b.1))
        else {
            continue;
        };
        if similarity >= COLLISION_SIMILARITY && similarity > nearest_own {
            advice.push(ExampleAdvice::Collides {
                script: script.clone(),
                example: example.clone(),
                other_tool: others[k].0.clone(),
                other_example: others[k].1.clone(),
                similarity,
            });
        }
    }
    Ok(advice)
}
