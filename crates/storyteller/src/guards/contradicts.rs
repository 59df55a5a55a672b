//! `contradicts` (English): the rules' outcome told another way than it
//! went. The checked deed told the other way round (core's
//! `narration::contradicts`) — done after a failure ("…, but it will not
//! give, and the door slides open"), gone wrong after a success. For a
//! writer every guard reads, also a plain outcome told as a disaster (core's
//! `narration::escalates`): a catastrophe the story has not told ("…, but it
//! will not give, and a great storm of flames erupts."); a critical outcome
//! allows one. The rules decided; the prose only tells it.

use narratoria_lexicon::{contradicts, escalates};

use super::{Candidate, Guard, Words};

#[derive(Debug)]
pub struct Contradicts {
    /// The words a catastrophe is read by, when a plain outcome told as one
    /// is refused too (`None`: only an outcome told the other way round).
    pub overstated: Option<&'static Words>,
}

impl Guard for Contradicts {
    fn name(&self) -> &'static str {
        "contradicts"
    }

    fn refuses(&self, c: &Candidate) -> bool {
        let check = c.story.check.as_ref();
        let other_way = check.is_some_and(|(deed, verdict)| contradicts(deed, *verdict, c.text));
        let twist = check.is_some_and(|(_, v)| v.twist().is_some());
        let overstated = self
            .overstated
            .is_some_and(|words| !twist && escalates(c.text, &words.singulars(&c.story.text)));
        other_way || overstated
    }
}

#[cfg(test)]
mod tests {
    use narratoria_lexicon::{Language, Verdict};
    use narratoria_protocol::writer::WriterProfile;

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
