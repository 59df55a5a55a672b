//! Log commands: open the folder that holds the log files.

use narratoria_app::AppError;
use narratoria_core::error::ErrorCode;

/// Opens the log folder (created when missing) in the desktop's file
/// manager and returns its path, for the page to show as well.
#[tauri::command]
pub fn open_log_folder() -> Result<String, AppError> {
    let dir = narratoria_app::locate::user_log_dir();
    std::fs::create_dir_all(&dir).map_err(|e| {
        AppError::new(
            ErrorCode::Io,
            format!("cannot create {}: {e}", dir.display()),
        )
    })?;
    std::process::Command::new("xdg-open")
        .arg(&dir)
        .spawn()
        .map_err(|e| {
            AppError::new(
                ErrorCode::Io,
                format!("cannot open {} (xdg-open: {e})", dir.display()),
            )
        })?;
    Ok(dir.display().to_string())
}
