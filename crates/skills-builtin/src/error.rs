//! Failures a script reports, each with a protocol failure code.

use serde_json::Value;

pub use narratoria_protocol::FailureCode;

/// A failure of one script run, reported as an `error` event then `done ok:false`.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{code:?}: {message}")]
pub struct SkillError {
    pub code: FailureCode,
    pub message: String,
    /// Whether a retry of the same request could succeed.
    pub recoverable: bool,
    pub details: Option<Value>,
}

impl SkillError {
    /// Input that can never succeed as given (not retried).
    pub fn validation(message: impl Into<String>) -> SkillError {
        SkillError {
            code: FailureCode::ValidationError,
            message: message.into(),
            recoverable: false,
            details: None,
        }
    }

    /// A storage failure; a retry may succeed (a locked database, a full disk).
    pub fn persistence(message: impl Into<String>) -> SkillError {
        SkillError {
            code: FailureCode::PersistenceError,
            message: message.into(),
            recoverable: true,
            details: None,
        }
    }

    /// A bug or an impossible state; not retried.
    pub fn internal(message: impl Into<String>) -> SkillError {
        SkillError {
            code: FailureCode::InternalError,
            message: message.into(),
            recoverable: false,
            details: None,
        }
    }

    /// The same error with machine-readable details attached.
    pub fn with_details(mut self, details: Value) -> SkillError {
        self.details = Some(details);
        self
    }
}

impl From<rusqlite::Error> for SkillError {
    fn from(e: rusqlite::Error) -> SkillError {
        SkillError::persistence(format!("database: {e}"))
    }
}

impl From<rusqlite_migration::Error> for SkillError {
    fn from(e: rusqlite_migration::Error) -> SkillError {
        SkillError::persistence(format!("database migration: {e}"))
    }
}
