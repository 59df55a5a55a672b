//! Why a scenario, a character card or a lorebook was refused.

use std::path::PathBuf;

use crate::error::ErrorCode;

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
}
