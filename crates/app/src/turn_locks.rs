//! One thing at a time per story: a turn, a rewind, a branch switch… of the
//! same session wait for each other within this process, so a turn never
//! commits onto a story that moved under it from here (another process is
//! caught at commit instead: the turn is refused as `session_changed`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use narratoria_core::sync;
use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard};

/// Held while something changes a session; dropping it lets the next in.
pub(crate) type SessionTurn = OwnedMutexGuard<()>;

/// The per-session locks of one app.
#[derive(Default)]
pub(crate) struct TurnLocks {
    locks: Mutex<HashMap<String, Arc<AsyncMutex<()>>>>,
}

impl TurnLocks {
    fn of(&self, session: &str) -> Arc<AsyncMutex<()>> {
        sync::lock(&self.locks)
            .entry(session.to_string())
            .or_default()
            .clone()
    }

    /// Waits until nothing else changes `session`, then holds it.
    pub async fn hold(&self, session: &str) -> SessionTurn {
        self.of(session).lock_owned().await
    }

    /// [`TurnLocks::hold`] for plain (not async) callers: waits on this thread.
    pub fn hold_blocking(&self, session: &str) -> SessionTurn {
        let lock = self.of(session);
        loop {
            if let Ok(held) = lock.clone().try_lock_owned() {
                return held;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}
