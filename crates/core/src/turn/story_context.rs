//! What the narration step is told of the story as a whole: the scenario's
//! premise and setting and the lore the turn calls for — chosen by its keys,
//! and by meaning when the planner holds an embedding model
//! (docs/scenarios.md, "Lorebooks").

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::likeness::Likeness;
use crate::planner::{Planner, TurnSummary};
use crate::scenario::lore::Similarities;
use crate::scenario::StoryContext;

/// The most characters of scenario and lore the narration step is given
/// (the storyteller's own prompt budget for it).
const SCENARIO_CHARS: usize = 800;

/// The least similarity in meaning (cosine, all-MiniLM-L6-v2) between a
/// lore entry and the player's input at which the entry is told without
/// its keys occurring (docs/scenarios.md, "Lorebooks").
pub const LORE_LIKENESS: f32 = 0.33;
/// The most entries told by meaning alone in one turn (the closest ones).
pub const LORE_BY_MEANING: usize = 2;
/// The most sentences of an entry's text compared by meaning.
const LORE_SENTENCES: usize = 4;

/// The story's premise, setting and the lore the recent turns call for —
/// by their keys, and by meaning when `likeness` is given — as the
/// narration step is told them, with the lore entries used
/// (docs/scenarios.md). Promises: the same text as without `likeness` when
/// no entry is close enough in meaning or `likeness` fails.
pub fn story_context(
    state: &Map<String, Value>,
    input: &str,
    recent: &[TurnSummary],
    likeness: Option<&dyn Likeness>,
) -> Option<StoryContext> {
    if let Some(Value::String(text)) = state.get("scenario") {
        return Some(StoryContext {
            text: text.clone(),
            lore_used: Vec::new(),
            standing: text.clone(),
            scene: String::new(),
        });
    }
    let mut texts = vec![input.to_string()];
    for turn in recent {
        texts.push(turn.input.clone());
        texts.push(turn.narrative.clone());
    }
    let scores = likeness.and_then(|l| lore_likeness(state, input, l));
    let similar = scores.as_deref().map(|scores| Similarities {
        scores,
        threshold: likeness_threshold(scores),
    });
    crate::scenario::telling::telling_with(state, &texts, SCENARIO_CHARS, similar.as_ref())
}

/// Each lore entry's similarity in meaning to the player's input, compared
/// with the entry's name and keys and with each of its first sentences (a
/// whole entry's text dilutes what a short input is about; the narrations
/// are left out: they keep naming the scene, which brings in whoever lives
/// there turn after turn). `None` without lore or input, or when the model
/// fails (logged: lore is then chosen by its keys alone).
fn lore_likeness(
    state: &Map<String, Value>,
    input: &str,
    likeness: &dyn Likeness,
) -> Option<Vec<f32>> {
    let entries = crate::scenario::start::lore_in(state);
    if entries.is_empty() || input.trim().is_empty() {
        return None;
    }
    let mut texts: Vec<String> = Vec::new();
    let mut owner: Vec<usize> = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let head = format!("{}: {}", e.name.trim(), e.keys.join(", "));
        let sentences = e
            .content
            .split_inclusive(['.', '!', '?', ';'])
            .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|s| s.chars().count() > 3)
            .take(LORE_SENTENCES);
        for text in std::iter::once(head).chain(sentences) {
            texts.push(text);
            owner.push(i);
        }
    }
    let scores = match likeness.similarities(input, &texts) {
        Ok(scores) => scores,
        Err(e) => {
            tracing::warn!("lore is chosen by its keys alone: {e}");
            return None;
        }
    };
    let mut best = vec![f32::MIN; entries.len()];
    for (&i, s) in owner.iter().zip(scores) {
        best[i] = best[i].max(s);
    }
    Some(best)
}

/// The least similarity that tells an entry by meaning among `scores`:
/// [`LORE_LIKENESS`], raised above the score of the first entry past the
/// [`LORE_BY_MEANING`] closest.
fn likeness_threshold(scores: &[f32]) -> f32 {
    let mut ranked = scores.to_vec();
    ranked.sort_by(|a, b| b.total_cmp(a));
    match ranked.get(LORE_BY_MEANING) {
        Some(&floor) => LORE_LIKENESS.max(floor.next_up()),
        None => LORE_LIKENESS,
    }
}

/// [`story_context`] for a turn of `state` after `recent`, lore chosen by
/// meaning too when `planner` holds an embedding model (which runs off the
/// async threads).
pub async fn story_context_judged_by(
    planner: &Arc<dyn Planner>,
    state: &Map<String, Value>,
    input: &str,
    recent: &[TurnSummary],
) -> Option<StoryContext> {
    let keys_only = || story_context(state, input, recent, None);
    let Some(likeness) = planner.likeness() else {
        return keys_only();
    };
    let (owned_state, owned_input, owned_recent) =
        (state.clone(), input.to_string(), recent.to_vec());
    let judged = tokio::task::spawn_blocking(move || {
        story_context(
            &owned_state,
            &owned_input,
            &owned_recent,
            Some(likeness.as_ref()),
        )
    })
    .await;
    judged.unwrap_or_else(|_| keys_only())
}
