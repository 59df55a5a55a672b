//! `narratoria logs path`: where the log files are.

use std::process::ExitCode;

use super::common::CliError;

/// Prints the log folder (it holds one file a day, the last seven kept).
pub fn path() -> Result<ExitCode, CliError> {
    say!("{}", narratoria_app::locate::user_log_dir().display());
    Ok(ExitCode::SUCCESS)
}
