//! `unfinished`: a sentence that stops before what its last word begins
//! ("…, and you are unable.", "you see the."), by the language's words for
//! such endings. (A last sentence trailing off in an ellipsis, or cut off
//! with no sentence end, is the stream's to drop: `crate::sentences`.)

use narratoria_core::narration::{CLOSERS, SENTENCE_ENDS};

use super::words::Words;
use super::{Candidate, Guard};

#[derive(Debug)]
pub struct Unfinished(pub &'static Words);

impl Unfinished {
    /// Whether `sentence`, of two words or more, ends on a word that begins more.
    fn cut_short(&self, sentence: &str) -> bool {
        let end = sentence
            .trim_end()
            .trim_end_matches(CLOSERS)
            .trim_end_matches(SENTENCE_ENDS)
            .trim_end_matches(CLOSERS);
        let mut words = end.split_whitespace().rev();
        let last = words.next().unwrap_or("").to_lowercase();
        words.next().is_some() && self.0.cut_short.contains(&last)
    }
}

impl Guard for Unfinished {
    fn name(&self) -> &'static str {
        "unfinished"
    }

    fn refuses(&self, c: &Candidate) -> bool {
        self.cut_short(c.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guards::testing::{full, told};
    use crate::guards::words::english;

    #[test]
    fn a_sentence_ending_on_what_begins_more_is_not_told() {
        let text = told(
            full(),
            &[
                "You try to shoot, but you miss, and the wolf runs. You are unable.",
                " It howls.",
            ],
        );
        assert_eq!(text, "You try to shoot, but you miss, and the wolf runs.");
        let guard = Unfinished(english());
        assert!(guard.cut_short("You see the."));
        assert!(guard.cut_short("\"Give it to.\""));
        assert!(!guard.cut_short("You are able to see the hill."));
        assert!(!guard.cut_short("He nods, and that is that."));
    }
}
