//! Stopping a running turn: one handle the front end keeps and the turn and
//! the executor watch. Stopping is one-way; a new turn takes a new handle.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tokio::sync::Notify;

/// A turn's stop button. Clones share one state.
#[derive(Debug, Clone, Default)]
pub struct Stop(Arc<Inner>);

#[derive(Debug, Default)]
struct Inner {
    stopped: AtomicBool,
    notify: Notify,
}

impl Stop {
    /// A handle not yet stopped.
    pub fn new() -> Stop {
        Stop::default()
    }

    /// Stops: everything watching this handle is told at once.
    pub fn stop(&self) {
        self.0.stopped.store(true, Ordering::SeqCst);
        self.0.notify.notify_waiters();
    }

    /// Whether `other` is this handle or a clone of it.
    pub fn same(&self, other: &Stop) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// Whether [`Stop::stop`] was called.
    pub fn is_stopped(&self) -> bool {
        self.0.stopped.load(Ordering::SeqCst)
    }

    /// Resolves once stopped (at once when already stopped).
    pub async fn stopped(&self) {
        loop {
            let notified = self.0.notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.is_stopped() {
                return;
            }
            notified.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn every_clone_hears_the_stop() {
        let stop = Stop::new();
        let watcher = stop.clone();
        let waiting = tokio::spawn(async move { watcher.stopped().await });
        tokio::task::yield_now().await;
        assert!(!stop.is_stopped());
        stop.stop();
        waiting.await.unwrap();
        assert!(stop.is_stopped());
        stop.stopped().await;
    }
}
