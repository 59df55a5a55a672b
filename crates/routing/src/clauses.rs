//! The parts of a player's input that may each call for a different skill
//! ("I attack the bandit and remember his face").

/// The input's clauses: split at sentence ends, commas, semicolons, dashes
/// and the joining words "and", "then", "but", "while", "so"; parts of fewer
/// than two words are joined to the one before. Empty when the input is one clause.
pub fn clauses(input: &str) -> Vec<String> {
    let mut parts: Vec<String> = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    let joiners = ["and", "then", "but", "while", "so", "also"];
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
        if joiners.contains(&bare.as_str()) && (!current.is_empty() || !parts.is_empty()) {
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
            ["I attack the bandit", "remember his face for later"]
        );
        assert_eq!(
            clauses("what did the oracle say, and how do the monks feel about me now?"),
            [
                "what did the oracle say",
                "how do the monks feel about me now"
            ]
        );
        assert!(clauses("I look around the tavern").is_empty());
        assert!(clauses("bread and butter").is_empty());
    }
}
