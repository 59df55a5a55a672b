//! Where Narratoria keeps a user's files, and the default model's file name.

use std::path::PathBuf;

/// The default model's file name, in a `models/` folder (fetched by
/// scripts/fetch-model.sh).
pub const DEFAULT_MODEL_FILE: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";

/// The user's data folder: `$NARRATORIA_HOME`, else `$XDG_DATA_HOME/narratoria`,
/// else `~/.local/share/narratoria`, else a folder under the temp dir.
pub fn user_data_dir() -> PathBuf {
    if let Some(p) = std::env::var_os("NARRATORIA_HOME").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    if let Some(p) = std::env::var_os("XDG_DATA_HOME").filter(|p| !p.is_empty()) {
        return PathBuf::from(p).join("narratoria");
    }
    if let Some(home) = std::env::var_os("HOME").filter(|p| !p.is_empty()) {
        return PathBuf::from(home).join(".local/share/narratoria");
    }
    std::env::temp_dir().join("narratoria")
}

/// Where skills keep data when their own folder is read-only (an installed package).
pub fn skills_data_dir() -> PathBuf {
    user_data_dir().join("skill-data")
}
