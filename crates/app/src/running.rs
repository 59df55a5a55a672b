//! The turns running now, one per session at most, each with its stop
//! button, so a front end can stop the turn of a session (Ctrl-C at the
//! terminal, the stop button in the window).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use narratoria_core::stop::Stop;
use narratoria_core::sync;

/// The running turns of one app.
#[derive(Default)]
pub(crate) struct RunningTurns {
    stops: Arc<Mutex<HashMap<String, Stop>>>,
}

/// A running turn; it is no longer running once this is dropped.
pub(crate) struct Running {
    session: String,
    stop: Stop,
    stops: Arc<Mutex<HashMap<String, Stop>>>,
}

impl RunningTurns {
    /// Registers a turn of `session` starting now.
    pub fn begin(&self, session: &str) -> Running {
        let stop = Stop::new();
        sync::lock(&self.stops).insert(session.to_string(), stop.clone());
        Running {
            session: session.to_string(),
            stop,
            stops: Arc::clone(&self.stops),
        }
    }

    /// Stops the running turn of `session`; `false` when none runs.
    pub fn stop(&self, session: &str) -> bool {
        match sync::lock(&self.stops).get(session) {
            Some(stop) => {
                stop.stop();
                true
            }
            None => false,
        }
    }
}

impl Running {
    /// The turn's stop button.
    pub fn stop(&self) -> &Stop {
        &self.stop
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // Turns of one session run one at a time (see `turn_locks`).
        sync::lock(&self.stops).remove(&self.session);
    }
}
