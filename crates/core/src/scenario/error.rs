//! Why a scenario, a character card or a lorebook was refused.

use std::path::PathBuf;

use crate::error::ErrorCode;

/// What was refused: it decides an error's code and the words its message
/// starts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// A character card (`card_invalid`).
    Card,
    /// A lorebook or lore entries (`lore_invalid`).
    Lore,
    /// A scenario (`scenario_invalid`).
    Scenario,
}

impl Origin {
    fn word(self) -> &'static str {
        match self {
            Origin::Card => "character card",
            Origin::Lore => "lorebook",
            Origin::Scenario => "scenario",
        }
    }
}

/// Why a scenario, card or lorebook could not be used. Every message names
/// the problem in words a player or an author can act on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScenarioError {
    #[error("character card: {0}")]
    Card(String),
    #[error("lorebook: {0}")]
    Lore(String),
    #[error("scenario: {0}")]
    Invalid(String),
    /// A field, a list or a chunk holds more than its limit (see
    /// `scenario::limits`); refused whole, never cut short.
    #[error("{}: {field} holds {size} {unit}; at most {limit} are allowed", of.word())]
    TooLarge {
        of: Origin,
        /// The field as the file names it, e.g. `` `data.first_mes` ``.
        field: String,
        size: usize,
        limit: usize,
        /// What is counted: characters, bytes, keys, entries…
        unit: &'static str,
    },
    #[error("no scenario named {0:?} (see `narratoria scenarios list`)")]
    NotFound(String),
    #[error("{path}: {message}")]
    Io { path: PathBuf, message: String },
}

impl ScenarioError {
    /// The stable code the UI and CLI show.
    pub fn code(&self) -> ErrorCode {
        match self {
            ScenarioError::Card(_) => ErrorCode::CardInvalid,
            ScenarioError::Lore(_) => ErrorCode::LoreInvalid,
            ScenarioError::Invalid(_) => ErrorCode::ScenarioInvalid,
            ScenarioError::TooLarge { of, .. } => match of {
                Origin::Card => ErrorCode::CardInvalid,
                Origin::Lore => ErrorCode::LoreInvalid,
                Origin::Scenario => ErrorCode::ScenarioInvalid,
            },
            ScenarioError::NotFound(_) => ErrorCode::ScenarioNotFound,
            ScenarioError::Io { .. } => ErrorCode::Io,
        }
    }

    /// An I/O failure on `path`.
    pub fn io(path: &std::path::Path, e: std::io::Error) -> ScenarioError {
        ScenarioError::Io {
            path: path.to_path_buf(),
            message: e.to_string(),
        }
    }

    /// `field` of `of` holds `size` `unit`, more than `limit`.
    pub fn too_large(
        of: Origin,
        field: &str,
        size: usize,
        limit: usize,
        unit: &'static str,
    ) -> ScenarioError {
        ScenarioError::TooLarge {
            of,
            field: field.to_string(),
            size,
            limit,
            unit,
        }
    }

    /// The same problem told as part of `of` (a card's book, a scenario's
    /// lore): its code and its first words become `of`'s.
    pub fn within(self, of: Origin) -> ScenarioError {
        let message = match self {
            ScenarioError::TooLarge {
                field,
                size,
                limit,
                unit,
                ..
            } => {
                return ScenarioError::TooLarge {
                    of,
                    field,
                    size,
                    limit,
                    unit,
                }
            }
            ScenarioError::Card(m) | ScenarioError::Lore(m) | ScenarioError::Invalid(m) => m,
            other => return other,
        };
        match of {
            Origin::Card => ScenarioError::Card(message),
            Origin::Lore => ScenarioError::Lore(message),
            Origin::Scenario => ScenarioError::Invalid(message),
        }
    }
}
