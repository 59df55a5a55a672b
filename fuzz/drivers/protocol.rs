//! What the protocol fuzz target feeds its input to; the protocol crate's
//! corpus replay test includes this same file.

use narratoria_protocol::{parse_line, Line, StreamChecker};

/// Reads `data` as one stdout line, then as a whole stdout stream split at
/// newlines, the way the runner does. Must never panic.
pub fn protocol_line(data: &[u8]) {
    if let Ok(Line::Event(_, raw)) = parse_line(data) {
        // What was accepted re-serialises and reads back as the same event.
        let again = serde_json::to_vec(&raw).expect("an accepted object serialises");
        assert!(
            matches!(parse_line(&again), Ok(Line::Event(..))),
            "an accepted event no longer parses after a round trip"
        );
    }
    let mut checker = StreamChecker::new(64, 1 << 20);
    for line in data.split(|&b| b == b'\n') {
        if checker.accept(line).is_err() {
            break;
        }
    }
}
