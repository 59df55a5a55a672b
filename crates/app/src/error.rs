//! The error every application function returns: a stable code the UI
//! classifies without string matching, a sentence, and field errors.

use narratoria_core::error::{ErrorCode, FieldError};
use narratoria_core::skills::config::ConfigError;
use narratoria_core::store::StoreError;
use serde::Serialize;

/// An error for the UI: a stable code, a sentence, and field errors when a
/// form was invalid.
#[derive(Debug, Clone, PartialEq, Serialize, thiserror::Error)]
#[error("{message}")]
pub struct AppError {
    pub code: ErrorCode,
    pub message: String,
    /// Per-field problems (JSON pointer + words), for settings forms.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<FieldError>,
}

impl AppError {
    /// An error with a code and a sentence.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> AppError {
        AppError {
            code,
            message: message.into(),
            errors: Vec::new(),
        }
    }
}

impl From<StoreError> for AppError {
    fn from(e: StoreError) -> Self {
        AppError::new(e.code(), e.to_string())
    }
}

impl From<ConfigError> for AppError {
    fn from(e: ConfigError) -> Self {
        AppError {
            code: e.code(),
            message: e.to_string(),
            errors: e.field_errors().to_vec(),
        }
    }
}
