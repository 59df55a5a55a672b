//! A text read word by word: its words, where they stand to its
//! quotations, and its clauses (the storyteller's guards read prose so).

use crate::sentence::sentences_of;

/// A text's words, lower case, with their apostrophes (straight): cut at
/// anything that is neither a letter, a digit nor an apostrophe ("half-open"
/// is two words, "you're" one).
pub fn words_of(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase().replace('’', "'"))
        .collect()
}

/// The fewest of the player's words, in a row, that make a narration give
/// them back (an echo: docs/stories.md, "Echo").
pub const ECHO_WORDS: usize = 5;

/// The longest run of `source`'s words, in order and in a row, that `text`
/// repeats (case and punctuation aside).
pub fn shared_run(text: &str, source: &str) -> usize {
    let (a, b) = (words_of(text), words_of(source));
    let mut best = 0;
    // prev[j]: the run ending at a[i-1], b[j-1].
    let mut prev = vec![0usize; b.len() + 1];
    for x in &a {
        let mut row = vec![0usize; b.len() + 1];
        for (j, y) in b.iter().enumerate() {
            if x == y {
                row[j + 1] = prev[j] + 1;
                best = best.max(row[j + 1]);
            }
        }
        prev = row;
    }
    best
}

/// Whether `text` gives the player's `words` back: it repeats
/// [`ECHO_WORDS`] or more of them in a row.
pub fn echoes(text: &str, words: &str) -> bool {
    shared_run(text, words) >= ECHO_WORDS
}

/// Words that join two clauses of one sentence ("you slip, but you hold
/// on"): a clause starts after each, a negation in one clause does not turn
/// the other round, and the player's own clause may follow one about
/// something else ("The storm passes and I look out").
pub const JOINING_WORDS: [&str; 6] = ["and", "but", "yet", "so", "then", "while"];

/// One word of a sentence, and where it stands to the sentence's quotations.
#[derive(Debug)]
pub struct QuotedWord {
    /// Its letters, lowercase.
    pub letters: String,
    /// It is inside a quotation.
    pub quoted: bool,
    /// A quotation opens with it.
    pub opens: bool,
    /// A quotation closes with it.
    pub closes: bool,
}

/// `sentence`'s words, each with where it stands to the quotations (an
/// apostrophe ending a plural possessive, "the guards'", closes none);
/// `inside`: the sentence starts within a quotation an earlier one opened.
pub fn quoted_words(sentence: &str, inside: bool) -> Vec<QuotedWord> {
    const OPEN: [char; 5] = ['"', '“', '«', '‘', '\''];
    const CLOSE: [char; 5] = ['"', '”', '»', '’', '\''];
    let mut inside = inside;
    let mut words = Vec::new();
    for w in sentence.split_whitespace() {
        let bare = w.trim_end_matches(|c: char| !c.is_alphanumeric() && !CLOSE.contains(&c));
        let possessive = bare.ends_with("s'") || bare.ends_with("s’");
        let opens = !inside && w.starts_with(OPEN);
        inside |= opens;
        let quoted = inside;
        let closes = inside && !possessive && bare.len() > 1 && bare.ends_with(CLOSE);
        if closes {
            inside = false;
        }
        let letters = w
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase()
            .replace('’', "'");
        words.push(QuotedWord {
            letters,
            quoted,
            opens,
            closes,
        });
    }
    words
}

/// Where a clause starts inside a sentence: after a colon or a semicolon,
/// or after a comma and a [joining word](JOINING_WORDS) (the joint's word
/// stays with the clause before it).
fn inner_joints(sentence: &str) -> Vec<(usize, usize)> {
    let mut joints: Vec<(usize, usize)> = [": ", "; "]
        .iter()
        .flat_map(|j| sentence.match_indices(j).map(|(at, j)| (at, j.len())))
        .collect();
    for word in JOINING_WORDS {
        let joint = format!(", {word} ");
        joints.extend(sentence.match_indices(&joint).map(|(at, j)| (at, j.len())));
    }
    joints.sort_unstable();
    joints
}

/// The words of each clause of `text`: its sentences ([`sentences_of`]),
/// each cut after its inner joints (a joint's word stays with the clause
/// before it: "you sit down, and").
pub fn clauses(text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for sentence in sentences_of(text) {
        let mut from = 0;
        for (at, len) in inner_joints(sentence) {
            if at >= from {
                out.push(words_of(&sentence[from..at + len]));
                from = at + len;
            }
        }
        out.push(words_of(&sentence[from..]));
    }
    out.retain(|words| !words.is_empty());
    out
}

/// The words of each clause of one sentence, with the byte index of the
/// joint before it (0 for the first).
pub fn clause_words(sentence: &str) -> Vec<(usize, Vec<String>)> {
    let joints = inner_joints(sentence);
    let mut spans = Vec::new();
    let (mut joint, mut from) = (0, 0);
    for (at, len) in joints {
        if at >= from {
            spans.push((joint, words_of(&sentence[from..at])));
            (joint, from) = (at, at + len);
        }
    }
    spans.push((joint, words_of(&sentence[from..])));
    spans
}

#[cfg(test)]
mod echo_tests {
    use super::*;

    #[test]
    fn an_echo_is_five_of_the_players_words_in_a_row() {
        let said = "I walk into the Silver Dollar and ask for Jonas Pike";
        assert_eq!(
            shared_run("You walk into the Silver Dollar, and a look…", said),
            6
        );
        assert!(echoes("You walk into the silver dollar.", said));
        assert!(!echoes(
            "The Silver Dollar is loud tonight; Jonas Pike waits.",
            said
        ));
        assert_eq!(shared_run("", said), 0);
    }
}
