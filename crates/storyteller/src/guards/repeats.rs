//! `repeats` (any language): a later sentence that starts as one of an
//! earlier turn's (its first five words: the small model told "You are in
//! a dark room, …" in four turns of ten), or the model's own words holding
//! a run of an earlier turn's narration or of the rules' words for this
//! turn's outcome ("…, and the tavern is in a fantasy world" four turns
//! running; "…: a triumph — it succeeds brilliantly" after the opening).

use super::read::words_of;
use super::words::Words;
use super::{Candidate, Guard};
use crate::sentences::sentences_of;

/// How many first words make two sentences start alike.
const SAME_START_WORDS: usize = 5;

/// How many words in a row make a repeat where the language's function
/// words are known (a run with two words of its own), and where not.
pub const SAME_RUN_WORDS: usize = 5;
const BARE_RUN_WORDS: usize = 8;

#[derive(Debug)]
pub struct Repeats(pub Option<&'static Words>);

impl Guard for Repeats {
    fn name(&self) -> &'static str {
        "repeats"
    }

    fn refuses(&self, c: &Candidate) -> bool {
        let words = c.words();
        let start = words.get(..SAME_START_WORDS);
        let starts_alike = c.later()
            && c.story.earlier.iter().any(|text| {
                sentences_of(text)
                    .into_iter()
                    .any(|s| start.is_some_and(|start| words_of(s).starts_with(start)))
            });
        let n = self.0.map_or(BARE_RUN_WORDS, |_| SAME_RUN_WORDS);
        let told: Vec<Vec<String>> = c
            .story
            .earlier
            .iter()
            .chain(&c.story.decided)
            .map(|t| words_of(t))
            .collect();
        let repeats = |run: &[String]| {
            self.0.is_none_or(|w| w.says_something(run))
                && told.iter().any(|t| t.windows(n).any(|r| r == run))
        };
        starts_alike || (c.own() && words.windows(n).any(repeats))
    }
}

#[cfg(test)]
mod tests {
    use narratoria_core::narration::{Language, WriterProfile};

    use crate::guards::testing::{full, grounded, small};
    use crate::guards::Policy;
    use crate::sentences::SentenceStream;

    #[test]
    fn a_later_sentence_that_starts_like_an_earlier_turns_is_not_told() {
        let earlier = "You step in, and it is dark. You are in a dark room with two people.";
        let tell = |answer: &str| {
            let mut s = full().told_before([earlier]).grounded_in(earlier);
            let mut text = s.push(answer);
            text.push_str(&s.finish());
            text
        };
        assert_eq!(
            tell("You force the door, but it holds. You are in a dark room, and they stare."),
            "You force the door, but it holds."
        );
        assert_eq!(
            tell("You force the door, but it holds. Two people stare at you."),
            "You force the door, but it holds. Two people stare at you."
        );
        // The rules' opening sentence is always told, however it starts.
        assert_eq!(
            tell("You step in, and it is dark again."),
            "You step in, and it is dark again."
        );
    }

    #[test]
    fn the_models_own_words_do_not_repeat_an_earlier_turns() {
        let earlier = "You run out, and the tavern is in a fantasy world.";
        let tell = |answer: &str| {
            let mut s = full()
                .told_before([earlier])
                .opened_with("You hide in an alley, and");
            let mut text = s.push(answer);
            text.push_str(&s.finish());
            (text, s.turned_down())
        };
        assert_eq!(
            tell(" the tavern is in a fantasy world."),
            (String::new(), true)
        );
        assert_eq!(
            tell(" rain drips from the eaves. The tavern is in a fantasy world again."),
            (" rain drips from the eaves.".to_string(), false)
        );
        // Four words in a row are not a repeat.
        assert_eq!(
            tell(" the tavern is in sight."),
            (" the tavern is in sight.".to_string(), false)
        );
    }

    #[test]
    fn the_rules_words_for_the_outcome_are_not_told_again() {
        let opening =
            "You force the rusted door open, and it goes better than you could have hoped:";
        let told = |answer: &str| {
            let mut s = full()
                .decided(["Force the rusted door open: a triumph — it succeeds brilliantly."])
                .opened_with(opening);
            s.push(answer);
            s.finish();
            s.text().to_string()
        };
        assert_eq!(
            told(" a triumph — it succeeds brilliantly, you are now the lighthouse."),
            opening
        );
        assert_eq!(
            told(" the door bursts wide, and salt wind floods the stair."),
            format!("{opening} the door bursts wide, and salt wind floods the stair.")
        );
    }

    #[test]
    fn in_a_language_without_words_a_longer_run_repeats() {
        let french = Language::parse("fr").unwrap();
        let policy = Policy::for_writer(&small(), &french);
        let earlier = "Vous entrez, et la pluie tombe sur les toits de la vieille ville.";
        let stream = || SentenceStream::guarded_by(policy.clone()).told_before([earlier]);
        // Seven words of it are no repeat; eight are.
        let seven = "Vous attendez. La pluie tombe sur les toits de Paris.";
        assert_eq!(grounded(stream(), &[seven]), seven);
        let eight = "La pluie tombe sur les toits de la place.";
        assert_eq!(
            grounded(stream(), &["Vous attendez. ", eight]),
            "Vous attendez."
        );
        // A hosted writer is held to it too.
        let hosted =
            Policy::for_writer(&WriterProfile::hosted(128_000, Default::default()), &french);
        assert!(hosted.names().contains(&"repeats"));
    }
}
