//! What the writer is told of the story as a whole (docs/stories.md,
//! "Author's note" and "Language"): every turn of the branch being played,
//! oldest first, within bounds, with the player's steer — the author's note
//! and the story's language. The planner keeps its short window of recent
//! turns ([`super::RECENT_TURNS`]); only the narration sees the whole story.

use serde_json::{Map, Value};

use super::bounds::STORY_TURNS;
use super::Language;
use crate::planner::TurnSummary;

/// About the most characters of turns (the player's words and the
/// narrations) the narration step is told; older turns are left out first.
pub const STORY_CHARS: usize = 400_000;

/// The story as the narration step is told it.
#[derive(Debug, Clone, PartialEq)]
pub struct StoryTold {
    /// The branch's turns before this one, oldest first: the newest ones
    /// within [`STORY_TURNS`] and [`STORY_CHARS`].
    pub turns: Vec<TurnSummary>,
    /// Whether `turns` begins with the story's first turn (none was left
    /// out), so the scenario's opening scene comes before them.
    pub from_start: bool,
    /// The player's steer for the writer; empty when there is none.
    pub author_note: String,
    /// The language the story is told in.
    pub language: Language,
}

impl StoryTold {
    /// The story told from `turns`, the last turns of a branch that has
    /// `on_branch` turns before this one, oldest first. Promises: the newest
    /// turns are kept, at most [`STORY_TURNS`] of them and no more than
    /// [`STORY_CHARS`] characters in all (the newest turn is kept whatever
    /// its length); `from_start` is true only when every turn of the branch
    /// is kept.
    pub fn new(
        turns: Vec<TurnSummary>,
        on_branch: usize,
        author_note: impl Into<String>,
        language: Language,
    ) -> StoryTold {
        let turns = newest_within(turns);
        StoryTold {
            from_start: turns.len() >= on_branch,
            turns,
            author_note: author_note.into(),
            language,
        }
    }

    /// `self` with `turn` told last (a turn told again with more of its
    /// narration), the bounds kept.
    pub fn followed_by(mut self, turn: TurnSummary) -> StoryTold {
        let before = self.turns.len();
        self.turns.push(turn);
        self.turns = newest_within(std::mem::take(&mut self.turns));
        self.from_start = self.from_start && self.turns.len() == before + 1;
        self
    }

    /// The scenario's opening scene of `state`, told as the story's first
    /// narration while the whole story is told.
    pub fn opening<'a>(&self, state: &'a Map<String, Value>) -> Option<&'a str> {
        self.from_start
            .then(|| crate::scenario::opening(state))
            .flatten()
    }
}

impl Default for StoryTold {
    /// A story with no turn yet, no author's note, told in English.
    fn default() -> Self {
        StoryTold::new(Vec::new(), 0, String::new(), Language::english())
    }
}

/// The newest of `turns` (oldest first) within [`STORY_TURNS`] and
/// [`STORY_CHARS`], oldest first.
fn newest_within(mut turns: Vec<TurnSummary>) -> Vec<TurnSummary> {
    let mut kept = 0;
    let mut chars = 0;
    for turn in turns.iter().rev().take(STORY_TURNS) {
        let size = turn.input.chars().count() + turn.narrative.chars().count();
        if kept > 0 && chars + size > STORY_CHARS {
            break;
        }
        chars += size;
        kept += 1;
    }
    turns.drain(..turns.len() - kept);
    turns
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(n: usize, chars: usize) -> TurnSummary {
        TurnSummary {
            input: format!("t{n}"),
            narrative: "x".repeat(chars),
        }
    }

    #[test]
    fn a_short_story_is_told_whole() {
        let turns: Vec<TurnSummary> = (1..=10).map(|n| turn(n, 100)).collect();
        let told = StoryTold::new(turns.clone(), 10, "Keep it grim.", Language::english());
        assert_eq!(told.turns, turns);
        assert!(told.from_start);
        assert_eq!(told.author_note, "Keep it grim.");
    }

    #[test]
    fn a_long_story_keeps_its_newest_turns() {
        let turns: Vec<TurnSummary> = (1..=STORY_TURNS + 5).map(|n| turn(n, 10)).collect();
        let told = StoryTold::new(turns, STORY_TURNS + 5, "", Language::english());
        assert_eq!(told.turns.len(), STORY_TURNS);
        assert_eq!(told.turns[0].input, "t6");
        assert_eq!(
            told.turns.last().unwrap().input,
            format!("t{}", STORY_TURNS + 5)
        );
        assert!(!told.from_start);

        // 100 turns of 10,000 characters: the newest that fit in 400,000.
        let turns: Vec<TurnSummary> = (1..=100).map(|n| turn(n, 9_998)).collect();
        let told = StoryTold::new(turns, 100, "", Language::english());
        let chars: usize = told
            .turns
            .iter()
            .map(|t| t.input.chars().count() + t.narrative.chars().count())
            .sum();
        assert!(chars <= STORY_CHARS, "{chars}");
        assert_eq!(told.turns.len(), 39);
        assert_eq!(told.turns.last().unwrap().input, "t100");
        assert!(!told.from_start);

        // The newest turn is told whatever its length.
        let told = StoryTold::new(vec![turn(1, STORY_CHARS * 2)], 1, "", Language::english());
        assert_eq!(told.turns.len(), 1);
    }

    #[test]
    fn the_opening_is_told_while_the_story_is_told_from_its_start() {
        let state = serde_json::json!({"scenario": {"opening": "Rain on the roof."}});
        let state = state.as_object().unwrap();
        let whole = StoryTold::new(vec![turn(1, 5)], 1, "", Language::english());
        assert_eq!(whole.opening(state), Some("Rain on the roof."));
        // Only the last turns of a longer branch were read.
        let part = StoryTold::new(vec![turn(2, 5)], 2, "", Language::english());
        assert_eq!(part.opening(state), None);
        assert_eq!(
            StoryTold::default().opening(state),
            Some("Rain on the roof.")
        );
        let more = whole.followed_by(turn(2, 5));
        assert!(more.from_start);
        assert_eq!(more.turns.len(), 2);
    }
}
