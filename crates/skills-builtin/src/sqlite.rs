//! Opening a skill's SQLite database the same way for every script.

use std::time::Duration;

use rusqlite::Connection;
use rusqlite_migration::Migrations;

use crate::error::SkillError;

/// Attempts at preparing before giving up (about 2 s of waiting in all).
const PREPARE_ATTEMPTS: u32 = 12;

/// Prepares a connection (5 s busy timeout, WAL journal) and migrates it to
/// the latest schema. Scripts of one plan run side by side, so several may
/// find a fresh database at once: switching it to WAL and migrating both
/// need it alone, and SQLite refuses the others at once ("database is
/// locked") rather than waiting; each then tries again, finding the schema
/// already there.
pub fn prepare(conn: &mut Connection, migrations: &Migrations) -> Result<(), SkillError> {
    conn.busy_timeout(Duration::from_secs(5))?;
    let mut attempt = 1;
    loop {
        let prepared = conn
            .pragma_update(None, "journal_mode", "WAL")
            .map_err(SkillError::from)
            .and_then(|()| migrations.to_latest(conn).map_err(SkillError::from));
        match prepared {
            Ok(()) => return Ok(()),
            Err(_) if attempt < PREPARE_ATTEMPTS => {
                std::thread::sleep(Duration::from_millis(30 * attempt as u64));
                attempt += 1;
            }
            Err(e) => return Err(e),
        }
    }
}
