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
        c.index > 0 && c.at >= self.0
    }
}

#[cfg(test)]
mod tests {
    use crate::guards::testing::{asked, every_guard, full, grounded, opened};
    use crate::guards::Asked;

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
