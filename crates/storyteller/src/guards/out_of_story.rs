//! `out_of_story` (needs the language's words): the narration steps out of
//! the story — it speaks as "I" outside any quotation ("…, and I am left
//! alone"), or talks of the story or its player, or unsays it ("…, and the
//! story is over.", "It's all just a dream."), perhaps begun by the opening.

use super::{Candidate, Guard, Words};
use narratoria_lexicon::words::QuotedWord;

#[derive(Debug)]
pub struct OutOfStory(pub &'static Words);

impl OutOfStory {
    fn speaks_as_i(&self, words: &[QuotedWord]) -> bool {
        words
            .iter()
            .any(|w| !w.quoted && self.0.is_first_person(&w.letters))
    }

    /// Whether `sentence`, after the text told before it ending in `before`,
    /// talks of the story; a phrase wholly in `before` is not the sentence's.
    fn talks_of_the_story(&self, before: &str, sentence: &str) -> bool {
        let talk = &self.0.talk_of_the_story;
        let reach = talk.iter().map(|t| t.len()).max().unwrap_or(0);
        let start = before
            .char_indices()
            .rev()
            .nth(reach.saturating_sub(1))
            .map_or(0, |(i, _)| i);
        // Apostrophes read straight, as the words are written ("qu'un rêve").
        let straight = |t: &str| t.to_lowercase().replace('’', "'");
        let text = straight(&format!("{}{sentence}", &before[start..]));
        let own_from = text.len().saturating_sub(straight(sentence).len());
        talk.iter()
            .any(|t| text.match_indices(t).any(|(at, _)| at + t.len() > own_from))
    }
}

impl Guard for OutOfStory {
    fn name(&self) -> &'static str {
        "out_of_story"
    }

    fn refuses(&self, c: &Candidate) -> bool {
        self.speaks_as_i(&c.quoted()) || self.talks_of_the_story(c.before, c.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guards::testing::{every_guard, full, grounded, opened};
    use narratoria_lexicon::vocabulary::english;
    use narratoria_lexicon::words::quoted_words;

    fn speaks_as_i(sentence: &str) -> bool {
        OutOfStory(english()).speaks_as_i(&quoted_words(sentence, false))
    }

    fn talks_of_the_story(before: &str, sentence: &str) -> bool {
        OutOfStory(english()).talks_of_the_story(before, sentence)
    }

    #[test]
    fn the_narration_never_speaks_as_i() {
        assert!(speaks_as_i(
            " it succeeds brilliantly, and I am left alone."
        ));
        assert!(speaks_as_i(" I'm sure the keeper knows."));
        assert!(!speaks_as_i(" the boy says, \"I'm sorry, I was lost.\""));
        assert!(!speaks_as_i("‘I am the keeper,’ she whispers."));
        assert!(!speaks_as_i(" the ink is thick with dust."));
        let mut s = full(opened("You knock, and"));
        assert_eq!(s.push(" I am left alone. "), "");
        assert!(s.turned_down());
    }

    #[test]
    fn a_sentence_inside_a_quotation_speaks_for_whoever_opened_it() {
        // "I" inside the driver's words is the driver's, not the narrator's.
        let text = grounded(
            every_guard(),
            &["You ask the way, and he says, \"North. I will take you,\" and smiles. "],
        );
        assert!(text.ends_with("and smiles."), "{text}");
        let text = grounded(
            every_guard(),
            &["You ask the way, and he says, \"It is far. I will take you.\" "],
        );
        assert_eq!(
            text,
            "You ask the way, and he says, \"It is far. I will take you.\""
        );
    }

    #[test]
    fn talk_of_the_story_is_not_told_even_when_the_opening_began_it() {
        assert!(talks_of_the_story("You haggle, and the", " story is over."));
        assert!(talks_of_the_story("", " The story goes on."));
        assert!(talks_of_the_story("", " \"It's all just a dream.\""));
        assert!(!talks_of_the_story("", " You dream of the sea."));
        assert!(!talks_of_the_story(
            "You haggle, and the",
            " storm is over."
        ));
        // Told before this sentence, the phrase is not this sentence's.
        assert!(!talks_of_the_story("the story is long.", " Rain falls."));
        let mut s = full(opened(
            "You haggle with the ferryman over the fare, and the",
        ));
        assert_eq!(s.push(" story is over. "), "");
        assert!(s.turned_down());
        let mut s = full(opened(
            "You haggle with the ferryman over the fare, and the",
        ));
        assert_eq!(s.push(" story is over"), "");
        assert_eq!(s.finish(), "");
    }
}
