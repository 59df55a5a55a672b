//! `adds_nothing` (needs the language's words): a clause that tells nothing
//! new — its own words all told already in this answer ("…called Senna, and
//! you remember that she is called Senna"), a failed check's failure again
//! ("…, but it will not give, and the door will not allow you"), or only
//! what you are ("…, and you're happy"). A first clause is refused (only
//! what you are: as a whole later sentence), a later one cut.

use std::collections::HashSet;

use narratoria_lexicon::{ended_at, has_negation, sentences_of};

use super::{Asked, Candidate, Guard};
use narratoria_lexicon::vocabulary::{english, Words};
use narratoria_lexicon::words::{clause_words, words_of};

#[derive(Debug)]
pub struct AddsNothing(pub &'static Words);

impl AddsNothing {
    /// Where the clauses of `sentence` start that add nothing (0 for the
    /// first, else the joint before it): every word of their own (two or
    /// more) told in `before` or the clauses before them, with no new
    /// negation; a later clause that only tells what you are; a negation
    /// about something `deed` (a failed deed's words) names. And whether
    /// its first clause is such a negation.
    fn idle(&self, before: &str, sentence: &str, deed: &HashSet<String>) -> (Vec<usize>, bool) {
        let w = self.0;
        let before = words_of(before);
        let (mut told, mut negated) = (w.own_of(&before), w.negates(&before));
        let (mut idle, mut failure_first) = (Vec::new(), false);
        for (joint, words) in clause_words(sentence) {
            let (own, negates) = (w.own_of(&words), w.negates(&words));
            let failure = negates && !own.is_disjoint(deed);
            let told_already = own.len() >= 2 && (negated || !negates) && own.is_subset(&told);
            if told_already || failure || (joint > 0 && self.only_what_you_are(&words)) {
                idle.push(joint);
            }
            failure_first |= failure && joint == 0;
            told.extend(own);
            negated |= negates;
        }
        (idle, failure_first)
    }

    /// [`AddsNothing::idle`] of the candidate, after a failed check by its deed.
    fn idle_in(&self, c: &Candidate) -> (Vec<usize>, bool) {
        let failed = c.story.check.as_ref().filter(|(_, v)| !v.succeeded());
        let deed = failed.map_or_else(HashSet::new, |(deed, _)| self.0.own_of(&words_of(deed)));
        self.idle(c.before, c.text, &deed)
    }

    /// Whether a clause's words only tell what you are or feel: "you're",
    /// or "you" and a verb of being, then at most one word of its own,
    /// nothing perceived and no negation ("you're not alone" tells more).
    fn only_what_you_are(&self, words: &[String]) -> bool {
        let w = self.0;
        let being = match words {
            [first, ..] if w.you_are.contains(first) => 1,
            [first, second, ..] if *first == w.you && w.being.contains(second) => 2,
            _ => return false,
        };
        let rest = &words[being..];
        let perceives = rest
            .iter()
            .any(|x| w.you_may.contains(x) && !w.being.contains(x));
        !perceives && !has_negation(rest) && rest.iter().filter(|x| w.is_own(x)).count() <= 1
    }
}

impl Guard for AddsNothing {
    fn name(&self) -> &'static str {
        "adds_nothing"
    }

    fn refuses(&self, c: &Candidate) -> bool {
        let (idle, failure_first) = self.idle_in(c);
        // Asked again, the model mostly tells the opening back in the
        // world's words: the lesser fault than no words of its own.
        let idle_first =
            (c.later() || (c.opened() && c.asked == Asked::First)) && idle.first() == Some(&0);
        idle_first
            || (c.own() && failure_first)
            || (c.index > 0 && self.only_what_you_are(&c.words()))
    }

    fn cuts(&self, c: &Candidate) -> Option<usize> {
        self.idle_in(c).0.into_iter().find(|&at| at > 0)
    }
}

/// `text` with each sentence ended before its first clause that adds
/// nothing to what came before, and without the sentences that add nothing
/// at all: a memory told back without the small model's echoes (English).
pub(crate) fn without_idle_clauses(text: &str) -> String {
    let guard = AddsNothing(english());
    let mut kept = String::new();
    for sentence in sentences_of(text) {
        match guard.idle(&kept, sentence, &HashSet::new()).0.first() {
            Some(0) => {}
            Some(&at) => {
                let cut = ended_at(&kept, sentence, at);
                kept.push_str(cut.as_deref().unwrap_or(sentence));
            }
            None => kept.push_str(sentence),
        }
    }
    kept.trim().to_string()
}

#[cfg(test)]
mod tests {
    use narratoria_lexicon::Verdict;

    use super::*;
    use crate::guards::testing::{asked, every_guard, full, grounded, opened};
    use crate::guards::Story;

    /// Where the clauses of `sentence` add nothing to `before`.
    fn idle_after(before: &str, sentence: &str) -> Vec<usize> {
        AddsNothing(english())
            .idle(before, sentence, &HashSet::new())
            .0
    }

    #[test]
    fn a_negation_told_again_adds_nothing() {
        let opening = "You try to force the rusted door open, but it will not give, and";
        assert_eq!(idle_after(opening, " the door will not open."), [0]);
        // A negation after a success is news.
        assert!(idle_after(
            "You sneak past the gate guard, and",
            " the gate guard does not stir."
        )
        .is_empty());
    }

    #[test]
    fn a_failure_the_rules_told_is_not_told_again() {
        // Played: "…, but it will not give, and the door will not allow you."
        let failed = Some(("force the rusted door open".to_string(), Verdict::Failure));
        let opening = "You try to force the rusted door open, but it will not give, and";
        for again in [
            " the door will not allow you. ",
            " the door will not be able to open. ",
            " you cannot open it. ",
        ] {
            let mut s = full(Story {
                check: failed.clone(),
                ..opened(opening)
            });
            assert_eq!(s.push(again), "", "{again}");
            assert!(s.turned_down(), "{again}");
        }
        // Asked again it is still refused; on the last try it is the lesser
        // fault than no words of the model's.
        let again = " the door will not allow you. ";
        let mut s = asked(
            Story {
                check: failed.clone(),
                ..opened(opening)
            },
            Asked::Again,
        );
        assert_eq!(s.push(again), "");
        let mut s = asked(
            Story {
                check: failed.clone(),
                ..opened(opening)
            },
            Asked::Last,
        );
        assert_eq!(s.push(again), again.trim_end());
        // A later clause saying it again is cut; what follows from the
        // failure, even with a negation, is told.
        let mut s = full(Story {
            check: failed.clone(),
            ..opened(opening)
        });
        assert_eq!(
            s.push(" rust flakes off, and the door does not move. "),
            " rust flakes off."
        );
        let mut s = full(Story {
            check: failed,
            ..opened(opening)
        });
        assert_eq!(s.push(" nobody answers. "), " nobody answers.");
        // After a success, nothing is held to it.
        let done = Some(("force the rusted door open".to_string(), Verdict::Success));
        let mut s = full(Story {
            check: done,
            ..opened("You force the rusted door open, and")
        });
        assert_eq!(
            s.push(" the door does not creak. "),
            " the door does not creak."
        );
    }

    #[test]
    fn a_clause_that_only_tells_what_you_are_ends_the_prose_before_it() {
        // Played: "…, and you find something, and you're happy."
        for (added, kept) in [
            (" you find a ring, and you're happy. ", " you find a ring."),
            (
                " the raider falls, and you are on your own. ",
                " the raider falls.",
            ),
            (" the wind dies, and you feel relieved. ", " the wind dies."),
        ] {
            let mut s = full(opened("You search the body, and"));
            assert_eq!(s.push(added), kept, "{added}");
        }
        // What you perceive, or are in, or have done to you, is the world's.
        for added in [
            " you feel a cold wind on your neck. ",
            " you are in a narrow cave. ",
            " you are seized by the guards. ",
            " you hear a bell. ",
        ] {
            let mut s = full(Story {
                text: added.into(),
                ..opened("You search the body, and")
            });
            assert_eq!(s.push(added), added.trim_end(), "{added}");
        }
        // A later sentence of it alone is not told.
        let mut s = full(opened("You search the body, and"));
        assert_eq!(
            s.push(" you find a ring. You're pleased. "),
            " you find a ring."
        );
    }

    #[test]
    fn a_clause_that_adds_nothing_ends_the_prose_before_it() {
        // Played: the model told the rules' words back as its own.
        let mut echo = full(opened(
            "You remember that the woman in grey is called Senna, and",
        ));
        assert_eq!(echo.push(" you remember that she is called Senna. "), "");
        assert!(echo.turned_down(), "its first clause adds nothing");
        // Asked again, the first clause may add nothing; a later one may not.
        let mut again = asked(
            opened("You hide in the shadows, and you go unseen, and"),
            Asked::Again,
        );
        assert_eq!(
            again.push(" the shadows hide you, and you hide in the shadows. "),
            " the shadows hide you."
        );
        // A later clause that adds nothing is cut off, and so is all after it.
        let mut later = full(opened("You light the great lamp, and"));
        let told = later.push(
            " the lamp casts a long shadow, and you see the shadow of the lamp. The sea is calm. ",
        );
        assert_eq!(told, " the lamp casts a long shadow.");
        assert_eq!(later.finish(), "");
        assert_eq!(
            later.text(),
            "You light the great lamp, and the lamp casts a long shadow."
        );
        // A later sentence that adds nothing is not told.
        let text = grounded(
            every_guard(),
            &[
                "The door creaks open. ",
                "The door is open. ",
                "Rain falls.",
            ],
        );
        assert_eq!(text, "The door creaks open.");
        // Anything new is kept: a negation, the outcome of a search, another thing seen.
        let spotted = "You are spotted by the guard. The guard is not there, and you flee. ";
        assert_eq!(grounded(every_guard(), &[spotted]), spotted.trim_end());
        let found = "You search the desk for the logbook, and you find it. ";
        assert_eq!(grounded(every_guard(), &[found]), found.trim_end());
        // The same however the text comes in pieces.
        let text = grounded(
            every_guard(),
            &["The door creaks open. The door is open. Rain falls."],
        );
        assert_eq!(text, "The door creaks open.");
        // A quotation is never cut open, nor one a sentence before opened.
        let quoted = "She says, \"I am Senna, and I am Senna.\"";
        assert_eq!(grounded(every_guard(), &[quoted, " "]), quoted);
        let across = "She says, \"Come in. The fire is warm, and the fire is warm.\" Rain falls.";
        assert_eq!(
            grounded(crate::guards::testing::unbounded(), &[across]),
            across
        );
        // A model's own first sentence, with no opening from the rules, stays whole.
        let whole = "You sneak past the gate guard, and you sneak past the guard.";
        assert_eq!(grounded(every_guard(), &[whole]), whole);
    }

    #[test]
    fn a_memory_is_told_without_its_echoes() {
        assert_eq!(
            without_idle_clauses(
                "You remember that the woman in grey is called Senna, and you remember that \
                 she is called Senna. She is called Senna. The tide turns."
            ),
            "You remember that the woman in grey is called Senna. The tide turns."
        );
        assert_eq!(without_idle_clauses("You greet Mara."), "You greet Mara.");
        assert_eq!(
            without_idle_clauses("You greet Mara, and you greet Mara"),
            "You greet Mara."
        );
        assert_eq!(
            without_idle_clauses("You see the guard. You cannot see the guard."),
            "You see the guard. You cannot see the guard."
        );
        assert_eq!(
            without_idle_clauses(
                "You remember that the woman in grey is called Senna, and you remember that she is called Senna."
            ),
            "You remember that the woman in grey is called Senna."
        );
    }
}
