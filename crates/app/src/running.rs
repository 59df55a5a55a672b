//! The turns of each session running or waiting to run now, each with its
//! stop button, so a front end can stop the turn of a session (Ctrl-C at the
//! terminal, the stop button in the window) from the moment it is asked for,
//! even while it still waits for the story.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use narratoria_core::stop::Stop;
use narratoria_core::sync;

/// The running turns of one app.
#[derive(Default)]
pub(crate) struct RunningTurns {
    stops: Arc<Mutex<HashMap<String, Vec<Stop>>>>,
}

/// A running turn; it is no longer running once this is dropped.
pub(crate) struct Running {
    session: String,
    stop: Stop,
    stops: Arc<Mutex<HashMap<String, Vec<Stop>>>>,
}

impl RunningTurns {
    /// Registers a turn of `session` starting now.
    pub fn begin(&self, session: &str) -> Running {
        let stop = Stop::new();
        sync::lock(&self.stops)
            .entry(session.to_string())
            .or_default()
            .push(stop.clone());
        Running {
            session: session.to_string(),
            stop,
            stops: Arc::clone(&self.stops),
        }
    }

    /// Stops the turns of `session` running or waiting; `false` when there
    /// is none.
    pub fn stop(&self, session: &str) -> bool {
        let stops = sync::lock(&self.stops);
        let turns = stops.get(session).map_or(&[][..], Vec::as_slice);
        turns.iter().for_each(Stop::stop);
        !turns.is_empty()
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
        let mut stops = sync::lock(&self.stops);
        if let Some(turns) = stops.get_mut(&self.session) {
            turns.retain(|s| !s.same(&self.stop));
            if turns.is_empty() {
                stops.remove(&self.session);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stop_reaches_the_turn_running_and_the_one_waiting() {
        let running = RunningTurns::default();
        assert!(!running.stop("story"), "no turn yet");
        let first = running.begin("story");
        let waiting = running.begin("story");
        let other = running.begin("another story");
        assert!(running.stop("story"));
        assert!(first.stop().is_stopped() && waiting.stop().is_stopped());
        assert!(!other.stop().is_stopped(), "another story's turn runs on");
        drop(first);
        let next = running.begin("story");
        drop(waiting);
        assert!(
            running.stop("story"),
            "the turn still there keeps its button"
        );
        assert!(next.stop().is_stopped());
        drop(next);
        assert!(!running.stop("story"), "none left");
    }
}
