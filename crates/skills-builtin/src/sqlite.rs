//! Opening a skill's SQLite database the same way for every script.

use std::time::Duration;

use rusqlite::Connection;
use rusqlite_migration::Migrations;

use crate::error::SkillError;

/// Attempts at migrating before giving up.
const MIGRATE_ATTEMPTS: u32 = 5;

/// Prepares a connection (5 s busy timeout, WAL journal) and migrates it to
/// the latest schema. Scripts of one plan run side by side, so two may find
/// a fresh database at once: the loser's migration fails and rolls back, and
/// it tries again, finding the schema already there.
pub fn prepare(conn: &mut Connection, migrations: &Migrations) -> Result<(), SkillError> {
    conn.busy_timeout(Duration::from_secs(5))?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    let mut attempt = 1;
    loop {
        match migrations.to_latest(conn) {
            Ok(()) => return Ok(()),
            Err(_) if attempt < MIGRATE_ATTEMPTS => {
                std::thread::sleep(Duration::from_millis(20 * attempt as u64));
                attempt += 1;
            }
            Err(e) => return Err(e.into()),
        }
    }
}
