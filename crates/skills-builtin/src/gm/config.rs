//! The game master's settings (`skills/game-master/config-schema.json`).

use serde::Deserialize;

use super::oracle::Likelihood;

/// How the game master runs the table; absent fields take the schema's
/// defaults.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct GameMasterConfig {
    /// The tables events and complications are drawn from when the story
    /// names none (`any`, `mystery`, `science-fiction`, `western`,
    /// `fantasy`).
    pub genre: String,
    /// Percent chance of an event per point of tension (tension runs 1–9).
    pub event_chance: u32,
    /// Turns a scene lasts before the game master frames the next.
    pub scene_length: u32,
    /// How likely a yes is when the oracle answers a question the story
    /// does not hold.
    pub oracle_likelihood: Likelihood,
    /// Whether a failed check brings a complication.
    pub complications: bool,
}

impl Default for GameMasterConfig {
    fn default() -> Self {
        GameMasterConfig {
            genre: "any".into(),
            event_chance: 4,
            scene_length: 8,
            oracle_likelihood: Likelihood::Even,
            complications: true,
        }
    }
}
