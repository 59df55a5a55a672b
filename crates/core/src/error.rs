//! Error codes shared by every front end (CLI, UI) and field-level errors.

use serde::{Deserialize, Serialize};

/// A stable, machine-readable code for an error the user may see. The UI
/// classifies errors by this code, never by message text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    PlanNotJson,
    PlanInvalid,
    SkillsDirUnusable,
    SkillInvalid,
    ConfigInvalid,
    SkillNotFound,
    SessionNotFound,
    SessionStore,
    ModelUnusable,
    StateInvalid,
    Io,
}

impl ErrorCode {
    /// The code as text, e.g. `plan_invalid`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::PlanNotJson => "plan_not_json",
            ErrorCode::PlanInvalid => "plan_invalid",
            ErrorCode::SkillsDirUnusable => "skills_dir_unusable",
            ErrorCode::SkillInvalid => "skill_invalid",
            ErrorCode::ConfigInvalid => "config_invalid",
            ErrorCode::SkillNotFound => "skill_not_found",
            ErrorCode::SessionNotFound => "session_not_found",
            ErrorCode::SessionStore => "session_store",
            ErrorCode::ModelUnusable => "model_unusable",
            ErrorCode::StateInvalid => "state_invalid",
            ErrorCode::Io => "io",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One problem with one field of a JSON document, located by JSON pointer
/// (`""` is the whole document).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldError {
    pub pointer: String,
    pub message: String,
}

impl FieldError {
    /// All errors on one line, `pointer: message; …`.
    pub fn join(errors: &[FieldError]) -> String {
        errors
            .iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("; ")
    }
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = if self.pointer.is_empty() {
            "(document)"
        } else {
            &self.pointer
        };
        write!(f, "{at}: {}", self.message)
    }
}
