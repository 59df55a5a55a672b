//! What the commands share: the error that ends a command, its runtime,
//! the skills it plays with, the session database and JSON output.

use std::path::Path;

use narratoria_core::store::Store;
use narratoria_core::ErrorCode;

/// An error that ends the command with an exit status.
#[derive(Debug)]
pub struct CliError {
    pub code: ErrorCode,
    pub message: String,
    pub exit: u8,
}

impl From<narratoria_app::AppError> for CliError {
    fn from(e: narratoria_app::AppError) -> Self {
        let mut message = e.message;
        for f in &e.errors {
            message.push_str(&format!("\n  - {f}"));
        }
        CliError {
            code: e.code,
            message,
            exit: 2,
        }
    }
}

impl CliError {
    /// Bad input (arguments, files): exit status 2.
    pub fn usage(code: ErrorCode, message: impl Into<String>) -> CliError {
        CliError {
            code,
            message: message.into(),
            exit: 2,
        }
    }
}

/// A multi-threaded runtime for one command.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime starts")
}

/// Discovers skills under the given roots (or the built-in folder) with the
/// user's choices (enabled, health) applied; an unusable root is a usage error.
pub fn discover(
    roots: &crate::cli::SkillRoots,
) -> Result<narratoria_core::skills::Catalog, CliError> {
    let roots = narratoria_app::locate::skill_roots(&roots.skills);
    let mut catalog = narratoria_core::skills::discover(&roots)
        .map_err(|e| CliError::usage(ErrorCode::SkillsDirUnusable, e.to_string()))?;
    user_state().apply(&mut catalog);
    Ok(catalog)
}

/// The user's skill choices; a damaged file is set aside with a note.
pub fn user_state() -> narratoria_core::skills::SkillsState {
    use narratoria_core::skills::SkillsState;
    let (state, warning) = SkillsState::load(&narratoria_app::locate::skills_state_file());
    if let Some(w) = warning {
        tracing::warn!("{w}");
    }
    state
}

/// Prints a value as pretty JSON on stdout.
pub fn print_json<T: serde::Serialize>(value: &T) {
    say!(
        "{}",
        crate::terminal::clean_json(serde_json::to_string_pretty(value).expect("serialises"))
    );
}

/// Opens the session database (the user's default when none is given).
pub fn open_store(path: Option<&Path>) -> Result<Store, CliError> {
    let path = path
        .map(Path::to_path_buf)
        .unwrap_or_else(narratoria_app::locate::sessions_db);
    Store::open(&path).map_err(|e| CliError::usage(e.code(), e.to_string()))
}
