//! Error codes shared by every front end (CLI, UI) and field-level errors.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// A stable, machine-readable code for an error the user may see. The UI
/// classifies errors by this code, never by message text, and has a sentence
/// for each one; its JSON text (snake_case) is the contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The planner's output was not JSON.
    PlanNotJson,
    /// A plan broke the plan contract.
    PlanInvalid,
    /// The player's input was empty.
    InputEmpty,
    /// The player's action is longer than an action may be
    /// (`narration::ACTION_CHARS`); nothing was played.
    ActionTooLong,
    /// A session export was asked for in a format there is none of.
    ExportFormatUnknown,
    /// An export was refused: its folder is not new or empty, or a file
    /// would have held a secret setting's value. Nothing was written.
    ExportRefused,
    SkillsDirUnusable,
    /// A skill's own files (e.g. its settings schema) are broken.
    SkillInvalid,
    /// Settings broke their skill's schema; field errors say where.
    ConfigInvalid,
    SkillNotFound,
    SessionNotFound,
    SessionStore,
    /// The story moved on while a turn was played (e.g. it was rewound):
    /// the turn was not saved.
    SessionChanged,
    ModelUnusable,
    /// A model download failed or did not match its checksum; trying again
    /// may help.
    DownloadFailed,
    /// A pasted model link is not a Hugging Face repository or GGUF file.
    ModelLinkInvalid,
    /// A repository holds several GGUF files: the player picks one.
    ModelFileChoice,
    /// An external model server (Ollama, LM Studio, llama-server) could not
    /// be reached, does not serve the model, or answered badly.
    ServerFailed,
    /// A session state given in is not a JSON object.
    StateInvalid,
    /// A character card file is not one (format, chunk, encoding, fields).
    CardInvalid,
    /// A lorebook (world info) file or entry is broken.
    LoreInvalid,
    /// A scenario file breaks the scenario format.
    ScenarioInvalid,
    /// No built-in or saved scenario has the name asked for.
    ScenarioNotFound,
    /// A story's author's note is longer than it may be; it was not saved.
    NoteTooLong,
    /// A story's language was given as something that names no language.
    LanguageUnknown,
    /// A correction of a turn's mechanics would change nothing: the turn
    /// already used the skill said to be needed, or did not use the one
    /// said to be needless.
    CorrectionNeedless,
    /// The player named a thread of the story's table that is not there.
    ThreadNotFound,
    /// A thread's title or a fact the player gave is empty or too long.
    TableTextInvalid,
    Io,
}

impl std::fmt::Display for ErrorCode {
    /// Writes the code's JSON text, e.g. `plan_invalid`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match serde_json::to_value(self) {
            Ok(serde_json::Value::String(text)) => f.write_str(&text),
            _ => Err(std::fmt::Error),
        }
    }
}

/// One problem with one field of a JSON document, located by JSON pointer
/// (`""` is the whole document).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Every code and its JSON text, which front ends and saved outputs rely on.
    const PINNED: [(ErrorCode, &str); 29] = [
        (ErrorCode::PlanNotJson, "plan_not_json"),
        (ErrorCode::PlanInvalid, "plan_invalid"),
        (ErrorCode::InputEmpty, "input_empty"),
        (ErrorCode::ActionTooLong, "action_too_long"),
        (ErrorCode::ExportFormatUnknown, "export_format_unknown"),
        (ErrorCode::ExportRefused, "export_refused"),
        (ErrorCode::SkillsDirUnusable, "skills_dir_unusable"),
        (ErrorCode::SkillInvalid, "skill_invalid"),
        (ErrorCode::ConfigInvalid, "config_invalid"),
        (ErrorCode::SkillNotFound, "skill_not_found"),
        (ErrorCode::SessionNotFound, "session_not_found"),
        (ErrorCode::SessionStore, "session_store"),
        (ErrorCode::SessionChanged, "session_changed"),
        (ErrorCode::ModelUnusable, "model_unusable"),
        (ErrorCode::DownloadFailed, "download_failed"),
        (ErrorCode::ModelLinkInvalid, "model_link_invalid"),
        (ErrorCode::ModelFileChoice, "model_file_choice"),
        (ErrorCode::ServerFailed, "server_failed"),
        (ErrorCode::StateInvalid, "state_invalid"),
        (ErrorCode::CardInvalid, "card_invalid"),
        (ErrorCode::LoreInvalid, "lore_invalid"),
        (ErrorCode::ScenarioInvalid, "scenario_invalid"),
        (ErrorCode::ScenarioNotFound, "scenario_not_found"),
        (ErrorCode::NoteTooLong, "note_too_long"),
        (ErrorCode::LanguageUnknown, "language_unknown"),
        (ErrorCode::CorrectionNeedless, "correction_needless"),
        (ErrorCode::ThreadNotFound, "thread_not_found"),
        (ErrorCode::TableTextInvalid, "table_text_invalid"),
        (ErrorCode::Io, "io"),
    ];

    #[test]
    fn every_code_keeps_its_json_text() {
        for (code, text) in PINNED {
            assert_eq!(serde_json::to_value(code).unwrap(), json!(text));
            assert_eq!(
                serde_json::from_value::<ErrorCode>(json!(text)).unwrap(),
                code
            );
            assert_eq!(code.to_string(), text);
        }
    }

    #[test]
    fn the_pinned_list_names_every_code() {
        let listed = PINNED.map(|(_, text)| format!("\"{text}\"")).join(" | ");
        assert_eq!(ErrorCode::inline(&ts_rs::Config::new()), listed);
    }

    #[test]
    fn field_error_json_is_pointer_and_message() {
        let e = FieldError {
            pointer: "/apiKey".into(),
            message: "must be a string".into(),
        };
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            json!({"pointer": "/apiKey", "message": "must be a string"})
        );
    }
}
