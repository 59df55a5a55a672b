//! Where a script acts: the story, the branch and the turn being played, and
//! the turns that turn follows. A skill that keeps data of its own records
//! each change with the turn it was made in and, when reading, counts only
//! changes made on `path` (or in this turn), so its world follows the
//! story's branches and rewinds (docs/protocol.md, "Where a script acts").

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The envelope's `story`: present when a tool runs as part of a story's
/// turn; absent when a plan runs on its own (`run-plan`) or from an older host.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StoryPlace {
    /// The story (session) id.
    pub id: String,
    /// The branch the turn is played on, by name (informational: a branch
    /// can be renamed; `path` is what scopes data).
    pub branch: String,
    /// The number of the turn being played on its branch (1 for a first turn).
    pub turn: u32,
    /// The id of the turn being played: the id changes made now are
    /// recorded under.
    pub turn_id: String,
    /// The ids of the turns this turn follows, first to last (its parent).
    /// Changes recorded under any other turn id belong to another branch, to
    /// a turn taken back, or to another story.
    pub path: Vec<String>,
}

impl StoryPlace {
    /// Whether a change recorded under `turn_id` is part of the world this
    /// turn sees: made on `path` or in this turn.
    pub fn sees(&self, turn_id: &str) -> bool {
        self.turn_id == turn_id || self.path.iter().any(|t| t == turn_id)
    }

    /// The turn ids whose changes this turn sees: `path` and this turn.
    pub fn visible_turns(&self) -> Vec<&str> {
        self.path
            .iter()
            .map(String::as_str)
            .chain(std::iter::once(self.turn_id.as_str()))
            .collect()
    }
}
