//! Stop sequences over streamed text: the text before a stop sequence is
//! passed on, the stop sequence and everything after it never are. A piece
//! that could still turn into a stop sequence is held back until it cannot.

/// Scans streamed text for the first of a set of stop sequences.
#[derive(Debug, Clone)]
pub struct StopScanner {
    stops: Vec<String>,
    /// Text not yet passed on, because it might start a stop sequence.
    held: String,
    stopped: bool,
}

impl StopScanner {
    /// A scanner for `stops` (empty strings are ignored).
    pub fn new(stops: &[String]) -> StopScanner {
        StopScanner {
            stops: stops.iter().filter(|s| !s.is_empty()).cloned().collect(),
            held: String::new(),
            stopped: false,
        }
    }

    /// Takes the next piece; returns the text that is now certain to come
    /// before any stop sequence. Promises: after a stop sequence is found,
    /// [`StopScanner::stopped`] is true and nothing more is ever returned.
    pub fn push(&mut self, piece: &str) -> String {
        if self.stopped {
            return String::new();
        }
        self.held.push_str(piece);
        if let Some(at) = self
            .stops
            .iter()
            .filter_map(|s| self.held.find(s.as_str()))
            .min()
        {
            self.stopped = true;
            let out = self.held[..at].to_string();
            self.held.clear();
            return out;
        }
        let keep = self.longest_partial_stop();
        let cut = self.held.len() - keep;
        let out = self.held[..cut].to_string();
        self.held.drain(..cut);
        out
    }

    /// Whether a stop sequence has been seen.
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// What is still held back once generation ends without a stop sequence.
    pub fn finish(&mut self) -> String {
        if self.stopped {
            return String::new();
        }
        std::mem::take(&mut self.held)
    }

    /// Length in bytes of the longest end of `held` that begins some stop sequence.
    fn longest_partial_stop(&self) -> usize {
        let mut best = 0;
        for stop in &self.stops {
            for (i, _) in self.held.char_indices() {
                let tail = &self.held[i..];
                if tail.len() <= best {
                    break;
                }
                if stop.starts_with(tail) {
                    best = tail.len();
                    break;
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(stops: &[&str], pieces: &[&str]) -> (String, bool) {
        let stops: Vec<String> = stops.iter().map(|s| s.to_string()).collect();
        let mut s = StopScanner::new(&stops);
        let mut out = String::new();
        for p in pieces {
            out.push_str(&s.push(p));
        }
        out.push_str(&s.finish());
        (out, s.stopped())
    }

    #[test]
    fn text_before_a_stop_passes_and_the_stop_never_does() {
        assert_eq!(
            run(&["\nPlayer:"], &["You enter", ".\nPla", "yer: I sit"]),
            ("You enter.".into(), true)
        );
    }

    #[test]
    fn a_false_start_is_released_when_it_stops_matching() {
        assert_eq!(
            run(&["<|im_end|>"], &["a <", "|im", " b"]),
            ("a <|im b".into(), false)
        );
    }

    #[test]
    fn the_earliest_stop_wins_and_nothing_follows() {
        let stops = vec!["END".to_string(), "\n\n".to_string()];
        let mut s = StopScanner::new(&stops);
        assert_eq!(s.push("one\n\ntwo END"), "one");
        assert!(s.stopped());
        assert_eq!(s.push("more"), "");
        assert_eq!(s.finish(), "");
    }

    #[test]
    fn multibyte_text_is_cut_on_character_boundaries() {
        assert_eq!(run(&["»»"], &["é»", "é"]), ("é»é".into(), false));
        assert_eq!(run(&["»»"], &["é»", "»x"]), ("é".into(), true));
    }

    #[test]
    fn no_stops_passes_everything_at_once() {
        let mut s = StopScanner::new(&[String::new()]);
        assert_eq!(s.push("abc"), "abc");
    }
}
