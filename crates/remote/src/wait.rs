//! Telling people that a remote server is slow to start answering — most
//! often because it is loading the model — so a UI can say so instead of
//! looking stuck.

use std::sync::Arc;
use std::time::Duration;

use crate::server::{Server, ServerKind};

/// How long a request waits for its first byte before a [`WaitNotice`] is sent.
pub const WAIT_NOTICE_AFTER: Duration = Duration::from_secs(2);

/// Receives [`WaitNotice`]s; called on the thread that made the request.
pub type OnWait = Arc<dyn Fn(WaitNotice) + Send + Sync>;

/// A request has been waiting for the server's first byte (or, with
/// `answered`, the wait is over).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaitNotice {
    pub kind: ServerKind,
    /// The server as messages name it ([`Server::label`]).
    pub server: String,
    pub model: String,
    /// How long the request has waited so far.
    pub waited: Duration,
    /// Whether no answer has come from this server yet (in this process, or
    /// since a request to it ran out of time): it is likely loading the model.
    pub cold: bool,
    /// `false` when the wait passes [`WAIT_NOTICE_AFTER`]; `true` once the
    /// first byte came after such a notice (the UI can clear its message).
    pub answered: bool,
}

impl WaitNotice {
    pub(crate) fn new(server: &Server, waited: Duration, cold: bool, answered: bool) -> WaitNotice {
        WaitNotice {
            kind: server.kind,
            server: server.label(),
            model: server.model.clone(),
            waited,
            cold,
            answered,
        }
    }

    /// The notice in words: "Waiting for Ollama to load llama3…" when cold,
    /// "Waiting for Ollama (llama3)…" when not, "Ollama is answering." once
    /// answered.
    pub fn message(&self) -> String {
        let who = match self.kind {
            ServerKind::Other => "the server".to_string(),
            kind => kind.name().to_string(),
        };
        if self.answered {
            let mut who = who;
            if let Some(first) = who.get(..1) {
                who = first.to_uppercase() + &who[1..];
            }
            format!("{who} is answering.")
        } else if self.cold {
            format!("Waiting for {who} to load {}…", self.model)
        } else {
            format!("Waiting for {who} ({})…", self.model)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_notice_reads_well() {
        let s = Server::new("http://127.0.0.1:11434/v1", "llama3");
        let n = WaitNotice::new(&s, Duration::from_secs(3), true, false);
        assert_eq!(n.message(), "Waiting for Ollama to load llama3…");
        let n = WaitNotice::new(&s, Duration::from_secs(3), false, false);
        assert_eq!(n.message(), "Waiting for Ollama (llama3)…");
        let other = Server::new("http://h:9/v1", "m");
        let n = WaitNotice::new(&other, Duration::from_secs(3), false, true);
        assert_eq!(n.message(), "The server is answering.");
    }
}
