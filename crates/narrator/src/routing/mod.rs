//! Which skills a turn is likely about, from the player's input and the
//! skills' texts: by meaning ([`route_skills`] with the embedding router),
//! else by keywords, whose scores [`route`] turns into skills.

mod by_meaning;
mod keywords;

use narratoria_routing::keywords::skills_by_score;

use crate::catalog::{SkillCard, ToolCard};

pub use self::by_meaning::{load_multilingual_router, load_router, route_skills};
pub use self::keywords::{keyword_hints, keyword_scores};

/// The skills a plan must use with [`Prefilter::Require`], best first, at most
/// `max_skills` (chosen as [`skills_by_score`] promises: a skill after the
/// first needs at least half the best score): for each, its tools the model
/// may choose among (those that score best within the skill).
///
/// [`Prefilter::Require`]: crate::prompt::Prefilter::Require
pub fn route(cards: &[SkillCard], input: &str, max_skills: usize) -> Vec<Vec<ToolCard>> {
    let scores = keyword_scores(cards, input, usize::MAX);
    let score = |p: &str| scores.iter().find(|(q, _)| q == p).map_or(0.0, |(_, s)| *s);
    skills_by_score(&scores, max_skills)
        .iter()
        .filter_map(|skill| cards.iter().find(|k| &k.name == skill))
        .map(|card| {
            let best = card
                .tools
                .iter()
                .map(|t| score(&t.path))
                .fold(0.0, f64::max);
            card.tools
                .iter()
                .filter(|t| score(&t.path) >= best - 1e-9)
                .cloned()
                .collect::<Vec<ToolCard>>()
        })
        .filter(|tools| !tools.is_empty())
        .collect()
}
