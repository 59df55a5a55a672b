//! `foretells` (needs the language's future auxiliary): a clause in the
//! narrator's voice that tells what is yet to happen ("…, and the airlock
//! door will close", "you will be rescued"). The rules decide what happens
//! and when (docs/game-master.md); a small writer's promises of what comes
//! next are events nobody decided, which the next turn contradicts. A
//! character may still threaten or promise in a quotation. The clause is
//! cut; a model's first sentence that opens with one is refused.

use narratoria_lexicon::open_quote;
use narratoria_lexicon::words::clause_words;

use super::{Asked, Candidate, Guard, Words};

#[derive(Debug)]
pub struct Foretells(pub &'static Words);

impl Foretells {
    /// The byte index of the joint before each clause of `c` whose words
    /// outside quotations foretell (0 for its first clause).
    fn foretelling(&self, c: &Candidate) -> Vec<usize> {
        let narrated = narrated(c.text, open_quote(c.before).is_some());
        clause_words(&narrated)
            .into_iter()
            .filter(|(_, words)| self.0.foretells(words))
            .map(|(joint, _)| joint)
            .collect()
    }
}

/// `sentence` with what its quotations say blanked out, byte for byte (so
/// its clauses' joints stay where they are); `inside`: it starts within a
/// quotation an earlier sentence opened.
fn narrated(sentence: &str, inside: bool) -> String {
    const MARKS: [char; 5] = ['"', '“', '”', '«', '»'];
    let mut inside = inside;
    let mut out = String::with_capacity(sentence.len());
    for ch in sentence.chars() {
        if MARKS.contains(&ch) {
            inside = !inside;
            out.push_str(&" ".repeat(ch.len_utf8()));
        } else if inside {
            out.push_str(&" ".repeat(ch.len_utf8()));
        } else {
            out.push(ch);
        }
    }
    out
}

impl Guard for Foretells {
    fn name(&self) -> &'static str {
        "foretells"
    }

    fn refuses(&self, c: &Candidate) -> bool {
        // On its last try, the model's first sentence may promise: the
        // lesser fault than no prose of its own.
        (c.later() || c.asked != Asked::Last) && self.foretelling(c).first() == Some(&0)
    }

    fn cuts(&self, c: &Candidate) -> Option<usize> {
        self.foretelling(c).into_iter().find(|&at| at > 0)
    }
}

#[cfg(test)]
mod tests {
    use crate::guards::testing::{every_guard, opened};
    use crate::guards::{Asked, Story};
    use crate::sentences::SentenceStream;

    fn told(story: Story, answer: &str) -> String {
        let mut s = SentenceStream::new(every_guard(), story, Asked::First);
        s.push(answer);
        s.finish();
        s.text().to_string()
    }

    #[test]
    fn what_the_narrator_says_is_yet_to_happen_is_not_told() {
        let opening = "You force the hatch, but it will not give, and";
        let flicker = "You force the hatch, but it will not give, and the lights flicker.";
        for (answer, kept) in [
            (" the lights flicker. The airlock door will close soon.", flicker),
            (" the lights flicker, and you will be rescued.", flicker),
            (
                " a voice crackles: \"You will die here.\" The lights flicker.",
                "You force the hatch, but it will not give, and a voice crackles: \"You will die here.\" The lights flicker.",
            ),
        ] {
            assert_eq!(told(opened(opening), answer), kept, "{answer}");
        }
    }

    #[test]
    fn a_first_sentence_that_foretells_is_not_told() {
        let mut s = SentenceStream::new(every_guard(), Story::default(), Asked::First);
        s.push("Someone will come for you. The hum fades.");
        s.finish();
        assert!(s.turned_down(), "{}", s.text());
    }
}
