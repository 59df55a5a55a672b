//! `acts_for_player` (needs the language's words): what the player does or
//! says is theirs to decide. A later sentence starting with "You" and a deed
//! ("You use your magic"; "You see", "You are" stay), or, past the player's
//! own deed, "you" with a verb of speech and a quotation ("You say, 'I am
//! the keeper.'"; others' words and "you say nothing" stay).

use super::{Candidate, Guard, Words};
use narratoria_lexicon::words::QuotedWord;

#[derive(Debug)]
pub struct ActsForPlayer(pub &'static Words);

impl ActsForPlayer {
    /// Whether `sentence` starts by telling something "you" do.
    fn acts(&self, sentence: &str) -> bool {
        let mut words = sentence.split_whitespace();
        if !words.next().unwrap_or("").eq_ignore_ascii_case(&self.0.you) {
            return false;
        }
        let next = words
            .next()
            .unwrap_or("")
            .trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
            .to_lowercase();
        !next.is_empty() && !self.0.you_may.contains(&next)
    }

    /// Whether a sentence's words quote words as the player's.
    fn speaks(&self, words: &[QuotedWord]) -> bool {
        (0..words.len().saturating_sub(1)).any(|i| {
            let (you, verb) = (&words[i], &words[i + 1]);
            let spoken = !you.quoted
                && !verb.quoted
                && you.letters == self.0.you
                && self.0.speech.contains(&verb.letters);
            let quote_after = words[i + 2..].iter().take(2).any(|w| w.opens);
            let quote_before = i > 0 && words[i - 1].closes;
            spoken && (quote_after || quote_before)
        })
    }
}

impl Guard for ActsForPlayer {
    fn name(&self) -> &'static str {
        "acts_for_player"
    }

    fn refuses(&self, c: &Candidate) -> bool {
        // Past the player's own deed, told by the rules' opening or by the
        // first sentence of a model that writes it all.
        (c.later() && self.acts(c.text)) || ((c.later() || c.opened()) && self.speaks(&c.quoted()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guards::testing::{every_guard, full, grounded, opened, unbounded};
    use crate::guards::{Asked, Story};
    use crate::sentences::SentenceStream;
    use narratoria_lexicon::vocabulary::english;
    use narratoria_lexicon::words::quoted_words;

    fn speaks_for_the_player(sentence: &str) -> bool {
        ActsForPlayer(english()).speaks(&quoted_words(sentence, false))
    }

    #[test]
    fn the_prose_ends_before_a_later_sentence_acts_for_the_player() {
        for (answer, told) in [
            (
                "You try to force the door, but it is too heavy. You use your magic, and it glows.",
                "You try to force the door, but it is too heavy.",
            ),
            (
                "You push, but it holds. \"You go first,\" she says.",
                "You push, but it holds. \"You go first,\" she says.",
            ),
            (
                "You push, but it holds. You try to find a way out.",
                "You push, but it holds.",
            ),
            (
                "You plead, but he refuses. You have a bit of luck, and you get past.",
                "You plead, but he refuses.",
            ),
            (
                "You step inside, and it is dark. You see two people by the stairs.",
                "You step inside, and it is dark. You see two people by the stairs.",
            ),
            (
                "You step inside, and it is dark. You're not alone.",
                "You step inside, and it is dark. You're not alone.",
            ),
            (
                "You step inside, and it is dark. Your lantern gutters.",
                "You step inside, and it is dark. Your lantern gutters.",
            ),
        ] {
            assert_eq!(grounded(every_guard(), &[answer]), told);
        }
        // The first sentence is the rules' opening and the model's end of it.
        assert_eq!(
            grounded(
                unbounded(),
                &["You draw your sword. You strike. The troll falls. It is over."]
            ),
            "You draw your sword."
        );
        assert_eq!(
            grounded(
                unbounded(),
                &["You wait. The troll falls. It is over. Dust settles."]
            ),
            "You wait. The troll falls. It is over. Dust settles."
        );
    }

    #[test]
    fn no_sentence_puts_words_in_the_players_mouth() {
        for said in [
            " you say, 'The keeper. I am the keeper.'",
            "\"Who goes there?\" you ask.",
            " and you reply: “Never.”",
            "‘I am the keeper,’ you whisper.",
        ] {
            assert!(speaks_for_the_player(said), "{said}");
        }
        for other in [
            " the keeper says, 'Welcome.'",
            "\"You go first,\" she says.",
            "'What do you say, stranger?' the keeper asks.",
            " you say nothing, and the keeper says, 'Welcome.'",
            " you tell of the sailors' song.",
            " you tell of the sailors’ song.",
        ] {
            assert!(!speaks_for_the_player(other), "{other}");
        }
        // A later sentence quoting the player, as no sentence starting "You" would.
        let mut s = SentenceStream::new(unbounded(), Story::default(), Asked::First);
        s.push("You look up, and the keeper nods. 'I am the keeper,' you say. Rain falls.");
        s.finish();
        assert_eq!(s.text(), "You look up, and the keeper nods.");
        // After the rules' opening, the model's first words are its own too.
        let mut s = full(opened("You knock, and"));
        assert_eq!(s.push(" you say, 'I am the keeper.' "), "");
        // A model that writes the whole turn may tell the player's own words first.
        let mut s = full(Story::default());
        assert_eq!(
            s.push("\"Open up,\" you say, knocking. "),
            "\"Open up,\" you say, knocking."
        );
    }
}
