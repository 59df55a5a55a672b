//! Which skills a turn is likely about, from the player's input and the
//! skills' texts: by meaning ([`route_skills`] with the embedding router),
//! else by keywords, whose scores [`route`] turns into skills.

mod by_meaning;
mod keywords;

use crate::catalog::{SkillCard, ToolCard};

pub use self::by_meaning::{load_router, route_skills};
pub use self::keywords::{keyword_hints, keyword_scores};

/// A skill after the first is routed to only when its prefilter score is at
/// least this share of the best one.
const FURTHER_SKILL_SHARE: f64 = 0.5 - 1e-9;

/// The skills a plan must use with [`Prefilter::Require`], best first, at most
/// `max_skills`: for each, its tools the model may choose among (those that
/// score best within the skill). A skill after the first needs at least half
/// the best score.
///
/// [`Prefilter::Require`]: crate::prompt::Prefilter::Require
pub fn route(cards: &[SkillCard], input: &str, max_skills: usize) -> Vec<Vec<ToolCard>> {
    by_skill(cards, &keyword_scores(cards, input, usize::MAX), max_skills)
}

/// Tool `scores` (best first) grouped into at most `max_skills` skills, as
/// [`route`] promises.
fn by_skill(
    cards: &[SkillCard],
    scores: &[(String, f64)],
    max_skills: usize,
) -> Vec<Vec<ToolCard>> {
    let score = |p: &str| scores.iter().find(|(q, _)| q == p).map_or(0.0, |(_, s)| *s);
    let top = scores.first().map_or(0.0, |(_, s)| *s);
    let mut groups: Vec<Vec<ToolCard>> = Vec::new();
    for (path, s) in scores.iter().take(3) {
        let skill = path.split('/').next().unwrap_or_default();
        if groups
            .iter()
            .any(|g| g[0].path.starts_with(&format!("{skill}/")))
        {
            continue;
        }
        if groups.len() == max_skills || *s < FURTHER_SKILL_SHARE * top {
            break;
        }
        if let Some(card) = cards.iter().find(|k| k.name == skill) {
            let best = card
                .tools
                .iter()
                .map(|t| score(&t.path))
                .fold(0.0, f64::max);
            let tools: Vec<ToolCard> = card
                .tools
                .iter()
                .filter(|t| score(&t.path) >= best - 1e-9)
                .cloned()
                .collect();
            if !tools.is_empty() {
                groups.push(tools);
            }
        }
    }
    groups
}
