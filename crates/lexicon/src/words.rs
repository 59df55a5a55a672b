//! A text read word by word: its words, where they stand to its
//! quotations, and its clauses (the storyteller's guards read prose so).

/// A text's words, without case or punctuation.
pub fn words_of(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(|w| {
            w.chars()
                .map(|c| if c == '’' { '\'' } else { c })
                .filter(|c| c.is_alphanumeric() || *c == '\'')
                .flat_map(char::to_lowercase)
                .collect::<String>()
        })
        .filter(|w| !w.is_empty())
        .collect()
}

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

/// Where a sentence ends and the next one's first clause starts.
const SENTENCE_JOINTS: [&str; 3] = [". ", "! ", "? "];

/// Where a clause starts inside a sentence.
const INNER_JOINTS: [&str; 6] = [": ", "; ", ", and ", ", but ", ", so ", ", then "];

/// The words of each clause of `text`, cut after a sentence end or a joint
/// (a joint's word stays with the clause before it).
pub fn clauses(text: &str) -> Vec<Vec<String>> {
    let mut marked = text.to_string();
    for joint in SENTENCE_JOINTS.iter().chain(&INNER_JOINTS) {
        marked = marked.replace(joint, &format!("{}\n", joint.trim_end()));
    }
    marked
        .split('\n')
        .map(words_of)
        .filter(|words| !words.is_empty())
        .collect()
}

/// The words of each clause of one sentence, with the byte index of the
/// joint before it (0 for the first).
pub fn clause_words(sentence: &str) -> Vec<(usize, Vec<String>)> {
    let mut joints: Vec<(usize, usize)> = INNER_JOINTS
        .iter()
        .flat_map(|j| sentence.match_indices(j).map(|(at, j)| (at, j.len())))
        .collect();
    joints.sort_unstable();
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
