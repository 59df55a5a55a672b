//! `most_sentences` (any language): the writer's most sentences
//! (`WriterProfile::most_sentences`) are told. The rules' whole sentences
//! count toward them, but the model may always add one: a small model keeps
//! to the scene for about two, and its third and on wandered off.

use super::{Candidate, Guard};

#[derive(Debug)]
pub struct MostSentences(pub usize);

impl Guard for MostSentences {
    fn name(&self) -> &'static str {
        "most_sentences"
    }

    fn refuses(&self, c: &Candidate) -> bool {
        self.refuses_every(c.index, c.at)
    }

    fn refuses_every(&self, index: usize, at: usize) -> bool {
        index > 0 && at >= self.0
    }
}

#[cfg(test)]
mod tests {
    use crate::guards::testing::{asked, every_guard, full, grounded, opened, unbounded};
    use crate::guards::Asked;
    use crate::guards::Story;
    use crate::sentences::SentenceStream;

    #[test]
    fn a_small_model_tells_two_sentences_at_most() {
        let text = grounded(
            every_guard(),
            &[
                "You call out, and the light flickers. Two",
                " men stare. One falls. The",
                " end.",
            ],
        );
        assert_eq!(text, "You call out, and the light flickers. Two men stare.");
        // Released in one piece or many, the same.
        assert_eq!(grounded(every_guard(), &["A. B. C. D."]), "A. B.");
    }

    /// Once the most sentences are told the answer is whole: the writer
    /// need not be read further (crate::fallback stops reading there).
    #[test]
    fn the_answer_is_whole_once_its_most_sentences_are_told() {
        let story = |text: &str| Story {
            text: text.into(),
            ..Story::default()
        };
        let text = "The light flickers. Two men stare at the door. One";
        let mut s = full(story(text));
        s.push("The light flickers. Two");
        assert!(!s.whole(), "one sentence of two told");
        s.push(" men stare at the door. One");
        assert_eq!(s.text(), "The light flickers. Two men stare at the door.");
        assert!(s.whole());
        // Without a most, an answer is whole only where a guard ends it.
        let mut s = SentenceStream::new(unbounded(), story(text), Asked::First);
        s.push(text);
        assert!(!s.whole());
        assert!(!full(story(text)).whole(), "nothing told yet");
    }

    #[test]
    fn the_rules_whole_sentences_count_toward_the_most() {
        let mut s = full(opened(
            "You wonder who the barkeep is. You think back: you remember that he is called Oswin.",
        ));
        assert_eq!(
            s.push(" The fire crackles. The barkeep smiles. "),
            " The fire crackles."
        );
        // After a whole opening the model's first sentence is a later one:
        // it may not act for the player, nor add nothing.
        for added in [" You ask him where he lives. ", " He is called Oswin. "] {
            let mut s = asked(
                opened(
                    "You wonder who he is. You think back: you remember that he is called Oswin.",
                ),
                Asked::Again,
            );
            assert_eq!(s.push(added), "", "{added}");
            assert!(s.turned_down());
        }
        // An opening mid-sentence leaves the model its two.
        let mut s = full(opened("You look around, and"));
        s.push(" the fire crackles. The barkeep smiles. The door bangs. ");
        assert_eq!(
            s.text(),
            "You look around, and the fire crackles. The barkeep smiles."
        );
    }
}
