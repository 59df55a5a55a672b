//! `says_nothing` (needs the language's words): someone speaks and says
//! nothing — a verb of speech ending its sentence or clause, in a sentence
//! quoting nothing ("…, and the barkeep says."). "You say nothing" and "she
//! tells you the way" say something.

use narratoria_core::narration::JOINING_WORDS;

use super::read::QuotedWord;
use super::words::Words;
use super::{Candidate, Guard};

#[derive(Debug)]
pub struct SaysNothing(pub &'static Words);

impl SaysNothing {
    fn says_nothing(&self, words: &[QuotedWord]) -> bool {
        !words.iter().any(|w| w.opens)
            && words.iter().enumerate().any(|(i, w)| {
                self.0.speech.contains(&w.letters)
                    && words
                        .get(i + 1)
                        .is_none_or(|n| JOINING_WORDS.contains(&n.letters.as_str()))
            })
    }
}

impl Guard for SaysNothing {
    fn name(&self) -> &'static str {
        "says_nothing"
    }

    fn refuses(&self, c: &Candidate) -> bool {
        self.says_nothing(&c.quoted())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guards::read::quoted_words;
    use crate::guards::testing::full;
    use crate::guards::words::english;

    fn says_nothing(sentence: &str) -> bool {
        SaysNothing(english()).says_nothing(&quoted_words(sentence, false))
    }

    #[test]
    fn no_one_speaks_to_say_nothing() {
        assert!(says_nothing(" the barkeep says."));
        assert!(says_nothing(" the barkeep says, and you look at him."));
        assert!(!says_nothing(" the barkeep says, \"Ferry's closed.\""));
        assert!(!says_nothing("\"Ferry's closed,\" the barkeep says."));
        assert!(!says_nothing(" you say nothing."));
        assert!(!says_nothing(" she tells you the way."));
        let mut s = full().opened_with("You sit by the fire, and");
        assert_eq!(s.push(" the barkeep says. "), "");
        assert!(s.turned_down());
        // Nor when the answer was cut short and its loose end trimmed.
        let mut s = full();
        assert_eq!(s.push("The barkeep says, and"), "");
        assert_eq!(s.finish(), "");
    }
}
