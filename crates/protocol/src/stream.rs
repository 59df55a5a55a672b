//! One attempt's stream of stdout lines, checked against the protocol's
//! ordering rules and size caps.

use crate::event::Event;
use crate::parse::{parse_line, Line, RawEvent};
use crate::violation::Violation;

/// Longest accepted stdout line, in bytes (without the newline).
pub const MAX_LINE_BYTES: usize = 1024 * 1024;
/// Default cap on events per attempt.
pub const DEFAULT_MAX_EVENTS: usize = 10_000;
/// Default cap on stdout bytes per attempt.
pub const DEFAULT_MAX_STDOUT_BYTES: usize = 8 * 1024 * 1024;

/// Tracks one attempt's stream of lines against the protocol's rules and caps.
#[derive(Debug)]
pub struct StreamChecker {
    max_events: usize,
    max_bytes: usize,
    events: usize,
    bytes: usize,
    done: bool,
}

impl StreamChecker {
    /// A checker enforcing the given caps on events and stdout bytes.
    pub fn new(max_events: usize, max_bytes: usize) -> Self {
        Self {
            max_events,
            max_bytes,
            events: 0,
            bytes: 0,
            done: false,
        }
    }

    /// Accepts one raw line (without newline); returns its event, if any.
    pub fn accept(&mut self, line: &[u8]) -> Result<Option<RawEvent>, Violation> {
        self.bytes = self.bytes.saturating_add(line.len() + 1);
        if self.bytes > self.max_bytes {
            return Err(Violation::TooMuchOutput(self.max_bytes));
        }
        match parse_line(line)? {
            Line::Empty => Ok(None),
            Line::Event(event, raw) => {
                if self.done {
                    return Err(Violation::EventAfterDone);
                }
                self.events += 1;
                if self.events > self.max_events {
                    return Err(Violation::TooManyEvents(self.max_events));
                }
                if matches!(event, Event::Done { .. }) {
                    self.done = true;
                }
                Ok(Some((event, raw)))
            }
        }
    }

    /// Whether a `done` event has been seen.
    pub fn saw_done(&self) -> bool {
        self.done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_rejects_events_after_done_and_over_caps() {
        let mut c = StreamChecker::new(2, 1000);
        c.accept(br#"{"type":"log","level":"info","message":"a"}"#)
            .unwrap();
        c.accept(br#"{"type":"done","ok":true}"#).unwrap();
        assert!(c.saw_done());
        assert_eq!(c.accept(b""), Ok(None));
        assert_eq!(
            c.accept(br#"{"type":"log","level":"info","message":"b"}"#),
            Err(Violation::EventAfterDone)
        );

        let mut c = StreamChecker::new(1, 1000);
        c.accept(br#"{"type":"log","level":"info","message":"a"}"#)
            .unwrap();
        assert_eq!(
            c.accept(br#"{"type":"log","level":"info","message":"a"}"#),
            Err(Violation::TooManyEvents(1))
        );

        let mut c = StreamChecker::new(100, 10);
        assert_eq!(
            c.accept(br#"{"type":"done","ok":true}"#),
            Err(Violation::TooMuchOutput(10))
        );
    }
}
