//! `contradicts` (English: core's `narration::contradicts`): the checked
//! deed told the other way round — done after a failure ("…, but it will
//! not give, and the door slides open"), gone wrong after a success. The
//! rules decided; the prose only tells it.

use narratoria_core::narration::contradicts;

use super::{Candidate, Guard};

#[derive(Debug)]
pub struct Contradicts;

impl Guard for Contradicts {
    fn name(&self) -> &'static str {
        "contradicts"
    }

    fn refuses(&self, c: &Candidate) -> bool {
        c.story
            .check
            .as_ref()
            .is_some_and(|(deed, verdict)| contradicts(deed, *verdict, c.text))
    }
}

#[cfg(test)]
mod tests {
    use narratoria_core::narration::{Language, Verdict, WriterProfile};

    use crate::guards::testing::{full, opened};
    use crate::guards::Policy;
    use crate::guards::{Asked, Story};
    use crate::sentences::SentenceStream;

    #[test]
    fn a_sentence_telling_the_check_the_other_way_is_not_told() {
        let failed = Some(("force the rusted door open".to_string(), Verdict::Failure));
        let opening = "You try to force the rusted door open, but it will not give, and";
        let mut s = full(Story {
            check: failed.clone(),
            ..opened(opening)
        });
        assert_eq!(s.push(" the door slides open. Rust"), "");
        assert!(s.turned_down());
        let mut s = full(Story {
            check: failed.clone(),
            ..opened(opening)
        });
        assert_eq!(
            s.push(" rust flakes onto your boots. "),
            " rust flakes onto your boots."
        );
        // A hosted writer is held to the rules' outcome too.
        let hosted = WriterProfile::hosted(128_000, Default::default());
        let policy = Policy::for_writer(&hosted, &Language::english());
        let mut s = SentenceStream::new(
            policy,
            Story {
                check: failed,
                ..opened(opening)
            },
            Asked::First,
        );
        assert_eq!(s.push(" the door slides open. Rust"), "");
        assert_eq!(s.refusals()[0].guard, "contradicts");
    }
}
