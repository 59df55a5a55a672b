//! `stranger` (needs the language's words): a sentence naming a kind of
//! person the story's words do not ("You are in a dark room with two
//! people"). A kind said of someone ("the old woman is a kind person")
//! brings no one in; "there is a man" does.

use std::collections::HashSet;

use super::{Candidate, Guard, Words};

#[derive(Debug)]
pub struct Stranger(pub &'static Words);

impl Stranger {
    /// Whether `sentence` names a kind of person missing from `known`, the
    /// story's text.
    fn brings_in_someone(&self, sentence: &str, known: &str) -> bool {
        let known: HashSet<String> = self.0.singulars(known).into_iter().collect();
        let words = self.0.singulars(sentence);
        words.iter().enumerate().any(|(i, w)| {
            self.0.people.contains(w) && !known.contains(w) && !self.said_of_someone(&words[..i])
        })
    }

    /// Whether the words before a noun make it what someone is: "is a" or
    /// "was an", perhaps with one word between ("is a wise …"), not after
    /// "there".
    fn said_of_someone(&self, before: &[String]) -> bool {
        let w = self.0;
        let n = before.len();
        (2..=3).filter(|&back| back <= n).any(|back| {
            let at = n - back;
            w.copulas.contains(&before[at])
                && w.articles.contains(&before[at + 1])
                && (at == 0 || before[at - 1] != w.there)
        })
    }
}

impl Guard for Stranger {
    fn name(&self) -> &'static str {
        "stranger"
    }

    fn refuses(&self, c: &Candidate) -> bool {
        self.brings_in_someone(c.text, &c.story.text)
    }
}

#[cfg(test)]
mod tests {
    use narratoria_lexicon::Language;
    use narratoria_protocol::writer::WriterProfile;

    use super::*;
    use crate::guards::testing::{every_guard, opened};
    use crate::guards::Policy;
    use crate::guards::{Asked, Story};
    use crate::sentences::SentenceStream;
    use narratoria_lexicon::vocabulary::english;

    #[test]
    fn a_small_model_brings_in_no_one_the_story_has_not_met() {
        let story = "Action: I step into the lighthouse and call out to the keeper.";
        let tell = |policy: Policy, answer: &str| {
            let story = Story {
                text: story.into(),
                ..opened("You step into the lighthouse and call out, and")
            };
            let mut s = SentenceStream::new(policy, story, Asked::First);
            let mut text = s.push(answer);
            text.push_str(&s.finish());
            (text, s.turned_down())
        };
        // A later sentence naming strangers ends the prose before it.
        assert_eq!(
            tell(
                every_guard(),
                " the light flickers. You are in a dark room with two people, and they stare."
            ),
            (" the light flickers.".to_string(), false)
        );
        // The keeper is in the story; plurals and case count as the same word.
        assert_eq!(
            tell(
                every_guard(),
                " the Keeper answers. The keepers' lamp hums."
            ),
            (
                " the Keeper answers. The keepers' lamp hums.".to_string(),
                false
            )
        );
        // A first sentence naming a stranger tells nothing, even unfinished.
        for answer in [
            " a figure stands before you. The lamp hums.",
            " a figure stands there",
        ] {
            assert_eq!(tell(every_guard(), answer), (String::new(), true));
        }
        // A kind said of someone known brings no one in; "there is" does.
        let guard = Stranger(english());
        assert!(!guard.brings_in_someone("The keeper is a kind person.", "the keeper"));
        assert!(guard.brings_in_someone("There is a man at the door.", ""));
        assert!(guard.brings_in_someone("A man is a shadow.", ""));
        // A hosted model may bring in whom it likes.
        let hosted = WriterProfile::hosted(128_000, Default::default());
        let policy = Policy::for_writer(&hosted, &Language::english());
        assert_eq!(
            tell(policy, " a figure stands before you."),
            (" a figure stands before you.".to_string(), false)
        );
    }
}
