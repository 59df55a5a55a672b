//! `unfinished` (needs the language's words): a sentence that stops before
//! what its last word begins ("…, and you are unable.", "you see the."), by
//! the language's words for such endings; for a small writer also one
//! where someone speaks and says nothing — a verb of speech ending its
//! sentence or clause, in a sentence quoting nothing ("…, and the barkeep
//! says."; "you say nothing" and "she tells you the way" say something).
//! (A last sentence trailing off in an ellipsis, or cut off with no
//! sentence end, is the stream's to drop: `crate::sentences`.)

use narratoria_lexicon::{CLOSERS, JOINING_WORDS, SENTENCE_ENDS};

use super::{Candidate, Guard, Words};
use narratoria_lexicon::words::QuotedWord;

#[derive(Debug)]
pub struct Unfinished {
    pub words: &'static Words,
    /// Whether speech that says nothing counts too.
    pub speech: bool,
}

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
        words.next().is_some() && self.words.cut_short.contains(&last)
    }

    /// Whether a sentence's words quote nothing and end a sentence or
    /// clause on a verb of speech.
    fn says_nothing(&self, words: &[QuotedWord]) -> bool {
        let speech_ends = |(i, w): (usize, &QuotedWord)| {
            let next = words.get(i + 1);
            self.words.speech.contains(&w.letters)
                && next.is_none_or(|n| JOINING_WORDS.contains(&n.letters.as_str()))
        };
        !words.iter().any(|w| w.opens) && words.iter().enumerate().any(speech_ends)
    }
}

impl Guard for Unfinished {
    fn name(&self) -> &'static str {
        "unfinished"
    }

    fn refuses(&self, c: &Candidate) -> bool {
        self.cut_short(c.text) || (self.speech && self.says_nothing(&c.quoted()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guards::testing::{full, opened, told};
    use crate::guards::Story;
    use narratoria_lexicon::vocabulary::english;
    use narratoria_lexicon::words::quoted_words;

    fn guard() -> Unfinished {
        Unfinished {
            words: english(),
            speech: true,
        }
    }

    #[test]
    fn a_sentence_ending_on_what_begins_more_is_not_told() {
        let text = told(
            full(Story::default()),
            &[
                "You try to shoot, but you miss, and the wolf runs. You are unable.",
                " It howls.",
            ],
        );
        assert_eq!(text, "You try to shoot, but you miss, and the wolf runs.");
        assert!(guard().cut_short("You see the."));
        assert!(guard().cut_short("\"Give it to.\""));
        assert!(!guard().cut_short("You are able to see the hill."));
        assert!(!guard().cut_short("He nods, and that is that."));
    }

    fn says_nothing(sentence: &str) -> bool {
        guard().says_nothing(&quoted_words(sentence, false))
    }

    #[test]
    fn no_one_speaks_to_say_nothing() {
        assert!(says_nothing(" the barkeep says."));
        assert!(says_nothing(" the barkeep says, and you look at him."));
        assert!(!says_nothing(" the barkeep says, \"Ferry's closed.\""));
        assert!(!says_nothing("\"Ferry's closed,\" the barkeep says."));
        assert!(!says_nothing(" you say nothing."));
        assert!(!says_nothing(" she tells you the way."));
        let mut s = full(opened("You sit by the fire, and"));
        assert_eq!(s.push(" the barkeep says. "), "");
        assert!(s.turned_down());
        // Nor when the answer was cut short and its loose end trimmed.
        let mut s = full(Story::default());
        assert_eq!(s.push("The barkeep says, and"), "");
        assert_eq!(s.finish(), "");
    }
}
