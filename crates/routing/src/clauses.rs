//! The parts of a player's input that may each call for a different skill
//! ("I attack the bandit and remember his face").

use narratoria_lexicon::JOINING_WORDS;

/// Words a part of an input starts after, left out of both parts besides
/// the language's [joining words](JOINING_WORDS): the words that open a
/// purpose, a source or a reported fact, so that one sentence holding two
/// deeds is two parts too ("I duel the order's champion | the Knights |
/// their respect"; docs/narrator.md, "Routing").
const OPENERS: [&str; 6] = ["also", "for", "from", "of", "that", "to"];

/// Whether a part of an input starts after `word` (lower case).
fn is_joiner(word: &str) -> bool {
    JOINING_WORDS.contains(&word) || OPENERS.contains(&word)
}

/// The input's clauses: split at sentence ends, commas, semicolons, dashes
/// and the joiners ([`is_joiner`]); parts of fewer than two words are joined to the one
/// before. Empty when the input is one clause.
pub fn clauses(input: &str) -> Vec<String> {
    let mut parts: Vec<String> = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    let flush = |current: &mut Vec<&str>, parts: &mut Vec<String>| {
        if current.is_empty() {
            return;
        }
        let text = current.join(" ");
        match parts.last_mut() {
            Some(last) if current.len() < 2 => {
                last.push(' ');
                last.push_str(&text);
            }
            _ => parts.push(text),
        }
        current.clear();
    };
    for word in input.split_whitespace() {
        let bare = word
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase();
        if is_joiner(&bare) && (!current.is_empty() || !parts.is_empty()) {
            flush(&mut current, &mut parts);
            continue;
        }
        let ends = word.ends_with([',', ';', '.', '?', '!', ':']) || word == "-" || word == "—";
        let word = word.trim_end_matches([',', ';', '.', '?', '!', ':']);
        if !word.is_empty() && word != "-" && word != "—" {
            current.push(word);
        }
        if ends {
            flush(&mut current, &mut parts);
        }
    }
    flush(&mut current, &mut parts);
    if parts.len() < 2 {
        Vec::new()
    } else {
        parts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_at_joining_words_and_punctuation() {
        assert_eq!(
            clauses("I attack the bandit and remember his face for later"),
            ["I attack the bandit", "remember his face later"]
        );
        assert_eq!(
            clauses("what did the oracle say, and how do the monks feel about me now?"),
            [
                "what did the oracle say",
                "how do the monks feel about me now"
            ]
        );
        assert_eq!(
            clauses("I duel the champion of the Knights for their respect"),
            ["I duel the champion", "the Knights", "their respect"]
        );
        assert!(clauses("I look around the tavern").is_empty());
        assert!(clauses("bread and butter").is_empty());
    }
}
