//! Loads of the roles asked for one after another (a server chosen while
//! the models load at start, a model picked twice quickly): each runs
//! alone, and one overtaken by a later ask before it starts is skipped, so
//! the last load asked for is the last one applied and reads the settings
//! as they are after every ask (docs/models.md, "Roles").

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// The queue of role loads; one per app.
#[derive(Debug, Default)]
pub struct LoadQueue {
    asked: AtomicU64,
    running: Mutex<()>,
}

/// One ask for a load, in the order asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ticket(u64);

/// What became of a load.
#[derive(Debug, PartialEq, Eq)]
pub enum Ran<T> {
    /// It ran; `latest`: no load was asked for after it (its outcome is
    /// the one that stands).
    Ran { outcome: T, latest: bool },
    /// A later ask came before it started; that one loads instead.
    Overtaken,
}

impl LoadQueue {
    /// Asks for a load; the ticket runs it with [`LoadQueue::run`].
    pub fn ask(&self) -> Ticket {
        Ticket(self.asked.fetch_add(1, Ordering::SeqCst) + 1)
    }

    /// Whether no load was asked for after `ticket`.
    pub fn is_latest(&self, ticket: Ticket) -> bool {
        self.asked.load(Ordering::SeqCst) == ticket.0
    }

    /// Runs `load` once the loads before it have ended, unless a later
    /// ask came first. Blocks the calling thread meanwhile.
    pub fn run<T>(&self, ticket: Ticket, load: impl FnOnce() -> T) -> Ran<T> {
        let _alone = narratoria_core::sync::lock(&self.running);
        if !self.is_latest(ticket) {
            return Ran::Overtaken;
        }
        let outcome = load();
        Ran::Ran {
            outcome,
            latest: self.is_latest(ticket),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::sync::Arc;
    use std::thread;

    #[test]
    fn a_lone_load_runs_and_stands() {
        let q = LoadQueue::default();
        let t = q.ask();
        assert_eq!(
            q.run(t, || 7),
            Ran::Ran {
                outcome: 7,
                latest: true
            }
        );
    }

    #[test]
    fn an_ask_overtaken_before_it_starts_is_skipped() {
        let q = LoadQueue::default();
        let first = q.ask();
        let second = q.ask();
        assert_eq!(q.run(first, || "stale"), Ran::Overtaken);
        assert_eq!(
            q.run(second, || "fresh"),
            Ran::Ran {
                outcome: "fresh",
                latest: true
            }
        );
    }

    /// Stepped by hand: the first load is held inside its work while a
    /// second is asked for; the first ends not latest, and the second runs
    /// only after it, so the second's outcome is the one applied last.
    #[test]
    fn a_load_asked_during_another_runs_after_it_and_stands() {
        let q = Arc::new(LoadQueue::default());
        let applied = Arc::new(Mutex::new(Vec::new()));
        let (started_tx, started_rx) = mpsc::channel();
        let (release_tx, release_rx) = mpsc::channel::<()>();

        let first = q.ask();
        let (q1, a1) = (Arc::clone(&q), Arc::clone(&applied));
        let running = thread::spawn(move || {
            q1.run(first, || {
                started_tx.send(()).unwrap();
                release_rx.recv().unwrap();
                a1.lock().unwrap().push("first");
            })
        });
        started_rx.recv().unwrap();

        let second = q.ask();
        assert!(!q.is_latest(first));
        let (q2, a2) = (Arc::clone(&q), Arc::clone(&applied));
        let waiting = thread::spawn(move || q2.run(second, || a2.lock().unwrap().push("second")));
        // The second cannot start while the first holds the queue.
        thread::sleep(std::time::Duration::from_millis(50));
        assert!(applied.lock().unwrap().is_empty());

        release_tx.send(()).unwrap();
        assert_eq!(
            running.join().unwrap(),
            Ran::Ran {
                outcome: (),
                latest: false
            }
        );
        assert_eq!(
            waiting.join().unwrap(),
            Ran::Ran {
                outcome: (),
                latest: true
            }
        );
        assert_eq!(*applied.lock().unwrap(), ["first", "second"]);
    }
}
