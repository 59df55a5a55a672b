//! Prose released a whole sentence at a time, so what the player has seen
//! never needs taking back: a generation cut off by its length ends at the
//! last complete sentence instead of mid-word.

/// Collects streamed prose and releases it sentence by sentence. Promises:
/// [`SentenceStream::text`] is always the concatenation of everything
/// released; released text never starts with white space; after
/// [`SentenceStream::finish`] the text ends at a sentence end.
#[derive(Debug, Default)]
pub struct SentenceStream {
    text: String,
    held: String,
}

/// Characters that end a sentence, and those that may close one after it.
const ENDS: [char; 4] = ['.', '!', '?', '…'];
const CLOSERS: [char; 6] = ['"', '\'', '”', '’', ')', '»'];

impl SentenceStream {
    pub fn new() -> SentenceStream {
        SentenceStream::default()
    }

    /// Takes one piece; returns the sentences it completed (possibly none).
    pub fn push(&mut self, piece: &str) -> String {
        self.held.push_str(piece);
        if self.text.is_empty() {
            self.held = self.held.trim_start().to_string();
        }
        match last_sentence_end(&self.held, false) {
            Some(end) => self.release(end),
            None => String::new(),
        }
    }

    /// Ends the stream: a sentence ended by the end of the text is released;
    /// an unfinished one is dropped — unless nothing was released yet, when
    /// it is released with a full stop so that there is an answer at all.
    pub fn finish(&mut self) -> String {
        if let Some(end) = last_sentence_end(&self.held, true) {
            let out = self.release(end);
            self.held.clear();
            return out;
        }
        let rest = std::mem::take(&mut self.held);
        let rest = rest.trim_end().trim_end_matches([',', ';', ':', '-', '—']);
        if self.text.is_empty() && !rest.is_empty() {
            let out = format!("{rest}.");
            self.text.push_str(&out);
            return out;
        }
        String::new()
    }

    /// Everything released so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether anything has been released.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    fn release(&mut self, end: usize) -> String {
        let out: String = self.held[..end].to_string();
        self.held.drain(..end);
        let out = if self.text.is_empty() {
            out.trim_start().to_string()
        } else {
            out
        };
        self.text.push_str(&out);
        out
    }
}

/// The byte index just after the last sentence end in `s` (closing quotes
/// included) that is followed by white space — or by the end of the text,
/// when `at_end`.
fn last_sentence_end(s: &str, at_end: bool) -> Option<usize> {
    let chars: Vec<(usize, char)> = s.char_indices().collect();
    let mut found = None;
    let mut i = 0;
    while i < chars.len() {
        if ENDS.contains(&chars[i].1) {
            let mut j = i + 1;
            while j < chars.len() && (ENDS.contains(&chars[j].1) || CLOSERS.contains(&chars[j].1)) {
                j += 1;
            }
            let end = chars.get(j).map_or(s.len(), |(b, _)| *b);
            let followed_by_space = chars.get(j).is_some_and(|(_, c)| c.is_whitespace());
            if followed_by_space || (at_end && j == chars.len()) {
                found = Some(end);
            }
            i = j;
        } else {
            i += 1;
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream(pieces: &[&str]) -> (Vec<String>, String) {
        let mut s = SentenceStream::new();
        let mut shown: Vec<String> = pieces.iter().map(|p| s.push(p)).collect();
        shown.push(s.finish());
        assert_eq!(shown.concat(), s.text());
        (shown, s.text().to_string())
    }

    #[test]
    fn sentences_are_released_once_complete() {
        let (shown, text) = stream(&["  The door", " creaks.", " Cold air", " drifts in. It"]);
        assert_eq!(shown[0], "");
        assert_eq!(shown[1], "", "a full stop may still be followed by a quote");
        assert_eq!(shown[2], "The door creaks.");
        assert_eq!(shown[3], " Cold air drifts in.");
        assert_eq!(text, "The door creaks. Cold air drifts in.");
    }

    #[test]
    fn an_unfinished_last_sentence_is_dropped() {
        let (_, text) = stream(&["You win. The crowd roars and"]);
        assert_eq!(text, "You win.");
    }

    #[test]
    fn a_sentence_ending_with_the_text_is_kept() {
        let (_, text) = stream(&["You win. \"Well done!\""]);
        assert_eq!(text, "You win. \"Well done!\"");
    }

    #[test]
    fn with_no_sentence_end_at_all_the_text_is_kept_with_a_full_stop() {
        let (_, text) = stream(&["You walk on,"]);
        assert_eq!(text, "You walk on.");
        let (_, text) = stream(&["   "]);
        assert_eq!(text, "");
    }

    #[test]
    fn closing_quotes_and_ellipses_stay_with_their_sentence() {
        let (shown, _) = stream(&["He says “Run!” and", " waits… Then"]);
        assert_eq!(shown[0], "He says “Run!”");
        assert_eq!(shown[1], " and waits…");
    }
}
