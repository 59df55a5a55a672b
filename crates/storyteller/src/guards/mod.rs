//! The guards: each one judgement on the model's sentences, by name
//! (docs/storyteller.md, "What the model may tell"). A [`Policy`] picks
//! those that read a writer's prose; the stream (`crate::sentences`) ends
//! the answer before a sentence one refuses, or at a clause one cuts.

use narratoria_lexicon::{open_quote, Verdict};

pub mod acts_for_player;
pub mod adds_nothing;
pub mod contradicts;
pub mod foretells;
pub mod labels;
#[cfg(test)]
mod languages;
pub mod most_sentences;
pub mod out_of_story;
pub mod policy;
pub mod repeats;
pub mod stranger;
pub mod unfinished;

pub use narratoria_lexicon::vocabulary::{talk_of_the_story, words_for, Words};
pub use policy::Policy;

use narratoria_lexicon::words::{quoted_words, words_of, QuotedWord};

/// One judgement on the model's sentences.
pub trait Guard: std::fmt::Debug + Send + Sync {
    /// Its name, as logged when it refuses.
    fn name(&self) -> &'static str;
    /// Whether `sentence` may not be told: the answer ends before it.
    fn refuses(&self, sentence: &Candidate) -> bool;
    /// Where a sentence it lets through ends instead: the byte index of the
    /// joint before its first clause that may not be told.
    fn cuts(&self, _sentence: &Candidate) -> Option<usize> {
        None
    }
    /// Whether it refuses any sentence numbered `index` among the model's
    /// and `at` in the answer, whatever the sentence says.
    fn refuses_every(&self, _index: usize, _at: usize) -> bool {
        false
    }
}

/// What the story told before the answer, and how the answer opens.
#[derive(Debug, Clone, Default)]
pub struct Story {
    /// The narration of earlier turns.
    pub earlier: Vec<String>,
    /// The rules' words for this turn's outcomes.
    pub decided: Vec<String>,
    /// The story's text so far: scenario, earlier turns, the action, what
    /// the rules decided.
    pub text: String,
    /// The checked deed and its verdict.
    pub check: Option<(String, Verdict)>,
    /// The rules' opening: words certain before the model says anything,
    /// which the model's answer continues (empty: none).
    pub opening: String,
}

/// Which time the model is asked for the answer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Asked {
    #[default]
    First,
    /// Again, after an answer with no sentence told: its first clause may
    /// add nothing to the opening (asked again, the model mostly told it
    /// back in the world's words, the lesser fault than no prose of its own).
    Again,
    /// Again, for the last time: its first sentence may also repeat earlier
    /// turns, the lesser fault than no prose of the model's at all.
    Last,
}

/// A sentence the stream is about to tell.
#[derive(Debug)]
pub struct Candidate<'a> {
    pub text: &'a str,
    /// Its number among the model's sentences (0: its first).
    pub index: usize,
    /// Its number in the answer: the opening's whole sentences come first.
    pub at: usize,
    pub asked: Asked,
    /// What the answer told before it.
    pub before: &'a str,
    pub story: &'a Story,
}

impl Candidate<'_> {
    /// Whether it is a later sentence of the answer (not its first).
    pub fn later(&self) -> bool {
        self.at > 0
    }

    /// Whether the answer began with the rules' opening.
    pub fn opened(&self) -> bool {
        !self.story.opening.trim().is_empty()
    }

    /// Whether it is the model's own words: a later sentence, or the
    /// model's end of the rules' opening — but on its last try a repeat is
    /// the lesser fault than no words of the model's.
    pub fn own(&self) -> bool {
        self.later() || (self.opened() && self.asked != Asked::Last)
    }

    pub fn words(&self) -> Vec<String> {
        words_of(self.text)
    }

    /// Its words by the quotations, one an earlier sentence opened included.
    pub fn quoted(&self) -> Vec<QuotedWord> {
        quoted_words(self.text, open_quote(self.before).is_some())
    }
}

#[cfg(test)]
pub(crate) mod testing {
    use narratoria_lexicon::Language;
    use narratoria_protocol::writer::{AnswerLength, WriterProfile};

    use super::{Asked, Policy, Story};
    use crate::sentences::SentenceStream;

    /// The bundled small model's profile: every guard.
    pub fn small() -> WriterProfile {
        WriterProfile::local(None, 4096, AnswerLength::Medium)
    }

    /// Every guard, as for the small model telling an English story.
    pub fn every_guard() -> Policy {
        Policy::for_writer(&small(), &Language::english())
    }

    /// Every guard but the most sentences.
    pub fn unbounded() -> Policy {
        let profile = WriterProfile {
            most_sentences: None,
            ..small()
        };
        Policy::for_writer(&profile, &Language::english())
    }

    /// A stream under every guard answering `story` the `time` it is asked.
    pub fn asked(story: Story, time: Asked) -> SentenceStream {
        SentenceStream::new(every_guard(), story, time)
    }

    /// A stream under every guard answering `story` the first time.
    pub fn full(story: Story) -> SentenceStream {
        asked(story, Asked::First)
    }

    /// A story whose answer opens with `opening`.
    pub fn opened(opening: &str) -> Story {
        Story {
            opening: opening.into(),
            ..Story::default()
        }
    }

    /// All `stream` tells of `pieces`, pushed in turn, then finished.
    pub fn told(mut stream: SentenceStream, pieces: &[&str]) -> String {
        let mut shown: Vec<String> = pieces.iter().map(|p| stream.push(p)).collect();
        shown.push(stream.finish());
        assert_eq!(shown.concat(), stream.text());
        stream.text().to_string()
    }

    /// [`told`] under `policy` in a story that already names whoever
    /// `pieces` name.
    pub fn grounded(policy: Policy, pieces: &[&str]) -> String {
        let story = Story {
            text: pieces.concat(),
            ..Story::default()
        };
        told(SentenceStream::new(policy, story, Asked::First), pieces)
    }
}
