//! Which guards read a writer's sentences: every guard for a small writer
//! (`Guarding::Full`), the shared ones for a larger or hosted one
//! (`Guarding::Neutral`), and of those only the ones the story's language
//! has words for.

use std::sync::Arc;

use narratoria_lexicon::Language;
use narratoria_protocol::writer::{Guarding, WriterProfile};

use super::*;

/// The guards that read one writer's sentences, and the words they read
/// them by. The default has none.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    guards: Vec<Arc<dyn Guard>>,
    words: Option<&'static Words>,
}

impl Policy {
    /// The guards for a writer of `profile` telling a story in `language`:
    /// `repeats`, `labels` and `most_sentences` (when the profile has a
    /// most) in any language, `unfinished` where the language has words and
    /// `contradicts` in English; with `Guarding::Full`, where the language
    /// has words, every other guard too (`foretells` where it has a future
    /// auxiliary), and `repeats`, `unfinished` and
    /// `contradicts` in full.
    pub fn for_writer(profile: &WriterProfile, language: &Language) -> Policy {
        let words = words_for(language);
        // The words of a writer every guard reads.
        let every = words.filter(|_| profile.guarding == Guarding::Full);
        let mut guards: Vec<Arc<dyn Guard>> = vec![
            Arc::new(repeats::Repeats {
                words,
                retellings: every,
            }),
            Arc::new(labels::Labels),
        ];
        if let Some(most) = profile.most_sentences {
            guards.push(Arc::new(most_sentences::MostSentences(most)));
        }
        if let Some(words) = words {
            let speech = every.is_some();
            guards.push(Arc::new(unfinished::Unfinished { words, speech }));
        }
        if language.is_english() {
            guards.push(Arc::new(contradicts::Contradicts { overstated: every }));
        }
        if let Some(w) = every {
            guards.push(Arc::new(adds_nothing::AddsNothing(w)));
            guards.push(Arc::new(acts_for_player::ActsForPlayer(w)));
            guards.push(Arc::new(stranger::Stranger(w)));
            guards.push(Arc::new(out_of_story::OutOfStory(w)));
            if !w.foretelling.is_empty() {
                guards.push(Arc::new(foretells::Foretells(w)));
            }
        }
        Policy { guards, words }
    }

    pub fn guards(&self) -> impl Iterator<Item = &dyn Guard> {
        self.guards.iter().map(|g| g.as_ref())
    }

    /// The words of the story's language, where it has them.
    pub fn words(&self) -> Option<&'static Words> {
        self.words
    }
}

#[cfg(test)]
mod tests {
    use narratoria_protocol::writer::AnswerLength;

    use super::*;

    impl Policy {
        /// The guards' names, in the order they read.
        pub fn names(&self) -> Vec<&'static str> {
            self.guards().map(|g| g.name()).collect()
        }
    }

    const NEUTRAL: [&str; 4] = ["repeats", "labels", "unfinished", "contradicts"];
    const WORD_BASED: [&str; 5] = [
        "adds_nothing",
        "acts_for_player",
        "stranger",
        "out_of_story",
        "foretells",
    ];

    fn english(parameters: u64) -> Vec<&'static str> {
        let profile = WriterProfile::local(Some(parameters), 8192, AnswerLength::Medium);
        Policy::for_writer(&profile, &Language::english()).names()
    }

    #[test]
    fn a_small_writer_is_read_by_every_guard() {
        let names = english(134_515_008);
        for name in NEUTRAL.iter().chain(&WORD_BASED).chain(&["most_sentences"]) {
            assert!(names.contains(name), "{name}: {names:?}");
        }
        assert_eq!(names.len(), 10);
    }

    #[test]
    fn a_medium_writer_is_read_by_the_shared_guards_and_its_most() {
        let mut expected = NEUTRAL.to_vec();
        expected.insert(2, "most_sentences");
        assert_eq!(english(1_543_714_304), expected);
    }

    #[test]
    fn a_large_or_hosted_writer_is_read_by_the_shared_guards_alone() {
        assert_eq!(english(7_615_616_512), NEUTRAL);
        let hosted = WriterProfile::hosted(128_000, AnswerLength::Long);
        assert_eq!(
            Policy::for_writer(&hosted, &Language::english()).names(),
            NEUTRAL
        );
    }

    #[test]
    fn a_language_without_words_is_read_by_the_guards_that_need_none() {
        let japanese = Language::parse("ja").unwrap();
        let small = WriterProfile::local(None, 4096, AnswerLength::Medium);
        let policy = Policy::for_writer(&small, &japanese);
        assert_eq!(policy.names(), ["repeats", "labels", "most_sentences"]);
        assert!(policy.words().is_none());
        let hosted = WriterProfile::hosted(128_000, AnswerLength::Medium);
        assert_eq!(
            Policy::for_writer(&hosted, &japanese).names(),
            ["repeats", "labels"]
        );
    }
}
