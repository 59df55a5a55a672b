//! Why a session database could not be opened, told apart so that the
//! person reads the real cause: a file, folder or disk that cannot be
//! written is not damage, and a database from a newer release is neither.

use std::io::ErrorKind;
use std::path::Path;

use rusqlite::Connection;

use super::{schema, StoreError};

/// Refuses a database whose schema version is past this release's
/// ([`StoreError::TooNew`]), before anything is written to it.
pub(super) fn refuse_newer(path: &Path, conn: &Connection) -> Result<(), StoreError> {
    let found =
        user_version(conn).map_err(|e| sql_error(path, "not a usable SQLite database", e))?;
    if found > schema::VERSION {
        return Err(too_new(path, found));
    }
    Ok(())
}

fn user_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.pragma_query_value(None, "user_version", |r| r.get(0))
}

fn too_new(path: &Path, found: i64) -> StoreError {
    StoreError::TooNew {
        path: path.to_path_buf(),
        found,
        known: schema::VERSION,
    }
}

/// A failed migration: a database from a newer release is
/// [`StoreError::TooNew`], one that cannot be written is
/// [`StoreError::ReadOnly`], anything else [`StoreError::Open`].
pub(super) fn migration_error(
    path: &Path,
    conn: &Connection,
    e: rusqlite_migration::Error,
) -> StoreError {
    use rusqlite_migration::{Error, MigrationDefinitionError};
    match e {
        Error::MigrationDefinition(MigrationDefinitionError::DatabaseTooFarAhead) => {
            too_new(path, user_version(conn).unwrap_or(schema::VERSION + 1))
        }
        Error::RusqliteError { err, .. } => sql_error(path, "its schema could not be updated", err),
        other => StoreError::Open {
            path: path.to_path_buf(),
            message: format!("its schema could not be updated ({other})"),
        },
    }
}

/// A failed SQLite call while opening: [`StoreError::ReadOnly`] when the
/// database cannot be written (SQLite says read-only, or could not open or
/// write and the file or its folder refuses writing), else
/// [`StoreError::Open`] saying `what` with SQLite's own words.
pub(super) fn sql_error(path: &Path, what: &str, e: rusqlite::Error) -> StoreError {
    use rusqlite::ErrorCode;
    let read_only = match e.sqlite_error_code() {
        Some(ErrorCode::ReadOnly) => Some(e.to_string()),
        Some(ErrorCode::CannotOpen | ErrorCode::PermissionDenied | ErrorCode::SystemIoFailure) => {
            unwritable(path)
        }
        _ => None,
    };
    match read_only {
        Some(reason) => StoreError::ReadOnly {
            path: path.to_path_buf(),
            reason,
        },
        None => StoreError::Open {
            path: path.to_path_buf(),
            message: format!("{what} ({e})"),
        },
    }
}

/// A failed file-system call while opening (making the folder):
/// [`StoreError::ReadOnly`] for permission denied or a read-only file
/// system, else [`StoreError::Open`].
pub(super) fn io_error(path: &Path, e: std::io::Error) -> StoreError {
    if refuses_writing(&e) {
        StoreError::ReadOnly {
            path: path.to_path_buf(),
            reason: format!("its folder cannot be made: {e}"),
        }
    } else {
        StoreError::Open {
            path: path.to_path_buf(),
            message: format!("its folder cannot be made ({e})"),
        }
    }
}

fn refuses_writing(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        ErrorKind::PermissionDenied | ErrorKind::ReadOnlyFilesystem
    )
}

/// Why the database at `path` cannot be written, if it cannot: the file
/// refuses to open for writing, or its folder refuses a new file (SQLite
/// keeps its journal there). Asks the file system itself, so it holds for
/// any user, root included; the probe file is removed at once.
fn unwritable(path: &Path) -> Option<String> {
    if path.exists() {
        if let Err(e) = std::fs::OpenOptions::new().write(true).open(path) {
            if refuses_writing(&e) {
                return Some(format!("the file cannot be written: {e}"));
            }
        }
    }
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    match tempfile::Builder::new()
        .prefix(".narratoria-probe")
        .tempfile_in(dir)
    {
        // The kind alone: the error names the random probe file.
        Err(e) if refuses_writing(&e) => Some(format!(
            "its folder cannot be written: {}",
            std::io::Error::from(e.kind())
        )),
        _ => None,
    }
}
