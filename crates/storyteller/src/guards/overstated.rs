//! `overstated` (English: core's `narration::escalates`): past a plain
//! outcome, a catastrophe the story has not told ("…, but it will not give,
//! and a great storm of flames erupts."). A critical outcome allows one.

use narratoria_core::narration::escalates;

use super::words::Words;
use super::{Candidate, Guard};

#[derive(Debug)]
pub struct Overstated(pub &'static Words);

impl Guard for Overstated {
    fn name(&self) -> &'static str {
        "overstated"
    }

    fn refuses(&self, c: &Candidate) -> bool {
        let twist = c
            .story
            .check
            .as_ref()
            .is_some_and(|(_, v)| v.twist().is_some());
        !twist && escalates(c.text, &self.0.singulars(&c.story.text))
    }
}

#[cfg(test)]
mod tests {
    use narratoria_core::narration::Verdict;

    use crate::guards::testing::{full, opened};
    use crate::guards::Story;

    #[test]
    fn a_sentence_escalating_past_a_plain_outcome_is_not_told() {
        let story = "Action: I try to force the rusted door open.";
        let opening = "You try to force the rusted door open, but it will not give, and";
        let told = |verdict: Verdict, piece: &str| {
            let mut s = full(Story {
                text: story.into(),
                check: Some(("force the rusted door open".into(), verdict)),
                ..opened(opening)
            });
            let shown = s.push(piece);
            (shown, s.turned_down())
        };
        let flames = " a great storm of flames erupts. The";
        assert_eq!(told(Verdict::Failure, flames), (String::new(), true));
        // A proportionate mishap is told; so is a catastrophe the rules' twist allows.
        assert_eq!(
            told(Verdict::Failure, " the hinges groan. The"),
            (" the hinges groan.".to_string(), false)
        );
        assert_eq!(
            told(Verdict::CriticalFailure, flames),
            (" a great storm of flames erupts.".to_string(), false)
        );
    }
}
