//! The dice-roller's settings (its `config-schema.json`, with the same defaults).

use serde::Deserialize;

use super::formula::Limits;

/// Where random numbers come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum RandomSource {
    /// The operating system's secure generator.
    #[default]
    Crypto,
    /// A fast generator seeded once from the operating system.
    Pseudo,
}

/// The dice-roller's config.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DiceConfig {
    pub show_individual_rolls: bool,
    pub random_source: RandomSource,
    pub max_dice: u32,
    pub max_sides: u32,
}

impl Default for DiceConfig {
    fn default() -> DiceConfig {
        DiceConfig {
            show_individual_rolls: true,
            random_source: RandomSource::Crypto,
            max_dice: 100,
            max_sides: 100,
        }
    }
}

impl DiceConfig {
    /// The formula limits this config sets.
    pub fn limits(&self) -> Limits {
        Limits {
            max_dice: self.max_dice,
            max_sides: self.max_sides,
            ..Limits::default()
        }
    }
}
