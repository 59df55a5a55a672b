//! The error every application function returns: a stable code the UI
//! classifies without string matching, a sentence, and field errors.

use narratoria_core::error::{ErrorCode, FieldError};
use narratoria_core::narration::ActionTooLong;
use narratoria_core::skills::config::ConfigError;
use narratoria_core::store::StoreError;
use serde::Serialize;
use ts_rs::TS;

/// An error for the UI: a stable code, a sentence, and field errors when a
/// form was invalid.
#[derive(Debug, Clone, PartialEq, Serialize, TS, thiserror::Error)]
#[error("{message}")]
pub struct AppError {
    pub code: ErrorCode,
    pub message: String,
    /// Per-field problems (JSON pointer + words), for settings forms; left
    /// out when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[ts(optional = nullable)]
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

impl From<ActionTooLong> for AppError {
    fn from(e: ActionTooLong) -> Self {
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_is_code_message_and_field_errors() {
        let err = AppError {
            code: ErrorCode::ConfigInvalid,
            message: "settings are not valid".into(),
            errors: vec![FieldError {
                pointer: "/n".into(),
                message: "must be at most 5".into(),
            }],
        };
        assert_eq!(
            serde_json::to_string(&err).unwrap(),
            r#"{"code":"config_invalid","message":"settings are not valid","errors":[{"pointer":"/n","message":"must be at most 5"}]}"#
        );
    }

    #[test]
    fn json_leaves_out_field_errors_when_there_are_none() {
        let err = AppError::new(ErrorCode::InputEmpty, "say what your character does");
        assert_eq!(
            serde_json::to_value(&err).unwrap(),
            json!({"code": "input_empty", "message": "say what your character does"})
        );
    }
}
