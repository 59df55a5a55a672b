//! Routing by meaning in the planner: the skills a plan must use come from
//! [`narratoria_routing::Router`] (authors' examples, embedded) when the
//! embedding model is loaded, else from keywords alone. The narration step
//! is never routed: the host adds it to every plan.

use std::path::Path;

use narratoria_core::planner::Routing;
use narratoria_core::skills::Catalog;
use narratoria_routing::{model_dir_for, multilingual_dir_for, Router};

use crate::catalog::{SkillCard, ToolCard};

/// The router over the embedding model (where
/// [`narratoria_routing::model_dir_for`] finds it for `planner_model`), or
/// `None` (logged) when it cannot be loaded: routing then uses keywords
/// alone.
pub fn load_router(planner_model: &Path) -> Option<Router> {
    load_or_say(
        &model_dir_for(planner_model),
        "skills are routed by keywords alone",
    )
}

/// The router over the multilingual encoder (where
/// [`narratoria_routing::multilingual_dir_for`] finds it), for a story in
/// another language than English; `None` (logged) when it cannot be
/// loaded: such a story is then routed as an English one (docs/
/// narrator.md, "Routing in every language").
pub fn load_multilingual_router(planner_model: &Path) -> Option<Router> {
    load_or_say(
        &multilingual_dir_for(planner_model),
        "a story in another language is routed as an English one",
    )
}

/// The router over the encoder in `dir`, or `None` with a warning naming
/// why and what routing does `instead`.
fn load_or_say(dir: &Path, instead: &str) -> Option<Router> {
    Router::load(dir)
        .map_err(|e| tracing::warn!("{e}; {instead}"))
        .ok()
}

/// The skills a plan with `Prefilter::Require` must use, best first, at
/// most `max_skills`, each as the tools the model may choose among: by
/// `router` when given (its chosen script, with why), else by keywords
/// ([`super::route`]) over the cards other than narration. Either way the
/// skills are decided with every usable skill and those in `disabled` are
/// then left out. With `needed` (the player's correction) the skills are
/// those instead, each with the script routing finds best, else the
/// skill's first.
pub fn route_skills(
    router: Option<&Router>,
    catalog: &Catalog,
    usable: &[SkillCard],
    input: &str,
    disabled: &[String],
    needed: Option<&[String]>,
    max_skills: usize,
) -> (Vec<Vec<ToolCard>>, Option<Routing>) {
    let tool = |path: &str| {
        usable
            .iter()
            .flat_map(|c| &c.tools)
            .find(|t| t.path == path)
            .cloned()
    };
    if let Some(router) = router {
        match router.route(catalog, input, disabled) {
            Ok(decision) => {
                let mut decision = match needed {
                    Some(needed) => decision.as_needed(needed),
                    None => decision,
                };
                // What the plan cannot use is not "chosen" in its routing either.
                let mut groups = Vec::new();
                decision.skills.retain(|r| {
                    let found = (groups.len() < max_skills)
                        .then(|| tool(&format!("{}/{}", r.skill, r.script)))
                        .flatten();
                    found.map(|t| groups.push(vec![t])).is_some()
                });
                return (groups, Some(decision.why()));
            }
            Err(e) => tracing::warn!("routing by meaning failed ({e}); routing by keywords"),
        }
    }
    if let Some(needed) = needed {
        let groups = needed
            .iter()
            .filter(|skill| !disabled.contains(skill))
            .filter_map(|skill| usable.iter().find(|c| &c.name == skill))
            .filter_map(|card| card.tools.first().cloned())
            .map(|tool| vec![tool])
            .take(max_skills)
            .collect();
        return (groups, None);
    }
    // As the router does, decide with every skill, then leave the disabled
    // out: a skill that failed is not replaced by the next likeliest.
    let routable: Vec<SkillCard> = crate::catalog::cards(catalog, &[])
        .into_iter()
        .filter(|c| {
            catalog.get(&c.name).is_none_or(|skill| {
                !c.tools.iter().all(|t| {
                    let script = t.path.split_once('/').map_or("", |(_, s)| s);
                    skill
                        .script(script)
                        .is_some_and(|s| narratoria_routing::is_host_step(skill, s))
                })
            })
        })
        .collect();
    let groups = super::route(&routable, input, max_skills)
        .into_iter()
        .filter(|group| {
            group.iter().all(|t| {
                let skill = t.path.split_once('/').map_or("", |(skill, _)| skill);
                !disabled.iter().any(|d| d == skill)
            })
        })
        .collect();
    (groups, None)
}
