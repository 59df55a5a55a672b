//! What a sentence of prose is: the marks that end one, the quotes that
//! close words said after its end, the titles whose full stop ends none,
//! and where a text's sentences end. The turn told without a model and the
//! storyteller's guards read prose by the same rules.
//!
//! Where sentences end is Unicode's rule (UAX #29, through
//! `unicode-segmentation`), so a story in any script is read by its own
//! marks ("。", "।", "؟"), with two rules of prose on top that UAX #29 leaves
//! out: a title's full stop ends nothing ("Dr. Venn"), and a full stop or
//! an ellipsis before white space ends a sentence even when the next word is
//! not capitalised (a small model's "the door opens. you step in").

use unicode_segmentation::UnicodeSegmentation;

/// The marks a sentence ends with: the Latin ones, the ellipsis, and the
/// full stops and marks of the other scripts a story may be told in.
pub const SENTENCE_ENDS: [char; 10] = ['.', '!', '?', '…', '。', '！', '？', '｡', '।', '؟'];

/// What may close words said or an aside after a sentence's end mark.
pub const CLOSERS: [char; 6] = ['"', '\'', '”', '’', ')', '»'];

/// Words (lower case) a full stop follows without ending a sentence.
pub const TITLES: [&str; 8] = ["dr", "mr", "mrs", "ms", "st", "mt", "sgt", "capt"];

/// Whether `text` ends a sentence: with ".", "!", "?" or "…", closing
/// quotes after it aside (`ask him, "Where to?"` ends one; nothing may
/// follow it in that sentence).
pub fn ends_a_sentence(text: &str) -> bool {
    text.trim_end()
        .trim_end_matches(CLOSERS)
        .ends_with(SENTENCE_ENDS)
}

/// The byte index just after each sentence end in `s` (closing quotes
/// included): each end UAX #29 finds after an end mark, and each end mark
/// followed by white space or by the end of the text. A title's full stop
/// ("Dr. Venn") ends no sentence.
pub fn sentence_ends(s: &str) -> Vec<usize> {
    let mut found: Vec<usize> = unicode_ends(s).chain(marked_ends(s)).collect();
    found.retain(|&end| !after_a_title(&s[..end]));
    found.sort_unstable();
    found.dedup();
    found
}

/// UAX #29's sentence boundaries of `s` that follow an end mark (a line
/// break after words is no sentence's end in prose), each moved back before
/// the white space that opens the next sentence.
fn unicode_ends(s: &str) -> impl Iterator<Item = usize> + '_ {
    s.split_sentence_bound_indices()
        .skip(1)
        .map(|(at, _)| s[..at].trim_end().len())
        .chain(std::iter::once(s.trim_end().len()))
        .filter(move |&end| end > 0 && ends_with_a_mark(&s[..end]))
}

/// Where an end mark (closing quotes and further marks after it) is
/// followed by white space or by the end of `s`.
fn marked_ends(s: &str) -> Vec<usize> {
    let mut found = Vec::new();
    let mut chars = s.char_indices().peekable();
    while let Some((_, c)) = chars.next() {
        if !SENTENCE_ENDS.contains(&c) {
            continue;
        }
        while chars
            .next_if(|&(_, c)| SENTENCE_ENDS.contains(&c) || CLOSERS.contains(&c))
            .is_some()
        {}
        let next = chars.peek();
        if next.is_none_or(|&(_, c)| c.is_whitespace()) {
            found.push(next.map_or(s.len(), |&(at, _)| at));
        }
    }
    found
}

/// Whether `text` ends with an end mark, closing quotes after it aside.
fn ends_with_a_mark(text: &str) -> bool {
    text.trim_end_matches(CLOSERS).ends_with(SENTENCE_ENDS)
}

/// Whether `text` ends with a title and its full stop ("… Dr.").
fn after_a_title(text: &str) -> bool {
    let Some(before) = text.strip_suffix('.') else {
        return false;
    };
    let word = before.rsplit(char::is_whitespace).next().unwrap_or("");
    TITLES.contains(&word.to_lowercase().as_str())
}

/// The sentences of `text`, each with the white space before it; the last
/// may be unfinished. Together they are the whole text but its blank end.
pub fn sentences_of(text: &str) -> Vec<&str> {
    let mut start = 0;
    let mut sentences = Vec::new();
    for end in sentence_ends(text).into_iter().chain([text.len()]) {
        if !text[start..end].trim().is_empty() {
            sentences.push(&text[start..end]);
        }
        start = end;
    }
    sentences
}

/// The mark that closes the quotation `text` leaves open, if one is (double
/// quotes and guillemets: a single quote may be an apostrophe).
pub fn open_quote(text: &str) -> Option<char> {
    let count = |mark: char| text.matches(mark).count();
    if count('"') % 2 == 1 {
        Some('"')
    } else if count('“') > count('”') {
        Some('”')
    } else {
        (count('«') > count('»')).then_some('»')
    }
}

/// `sentence`, told after `before`, ended at byte `at` with a full stop —
/// `None` when that would leave a quotation open.
pub fn ended_at(before: &str, sentence: &str, at: usize) -> Option<String> {
    let open = open_quote(&format!("{before}{}", &sentence[..at]));
    let trailing = &sentence[sentence.trim_end().len()..];
    open.is_none()
        .then(|| format!("{}.{trailing}", sentence[..at].trim_end()))
}

/// Whether `text` ends in an ellipsis ("Lan...", "Lan…\""), closing quotes aside.
pub fn trails_off(text: &str) -> bool {
    let end = text.trim_end().trim_end_matches(CLOSERS);
    end.ends_with("...") || end.ends_with('…')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sentence_ends_with_its_mark_closing_quotes_aside() {
        assert!(ends_a_sentence("You ask him, \"Where to?\" "));
        assert!(ends_a_sentence("You wait…"));
        assert!(!ends_a_sentence("You wait,"));
    }

    #[test]
    fn a_title_ends_no_sentence() {
        let text = "You ask Dr. Venn about the plague. Mr. Hale nods.";
        let plague = text.find("plague.").unwrap() + "plague.".len();
        assert_eq!(sentence_ends(text), vec![plague, text.len()]);
    }

    #[test]
    fn closing_quotes_and_ellipses_stay_with_their_sentence() {
        let text = "He says “Run!” and waits… Then";
        assert_eq!(
            sentences_of(text),
            ["He says “Run!”", " and waits…", " Then"]
        );
        assert_eq!(sentences_of("  "), Vec::<&str>::new());
        // An end mark inside a word ("3.5") ends nothing.
        assert_eq!(sentence_ends("It costs 3.5 coins"), Vec::<usize>::new());
    }

    #[test]
    fn a_story_in_another_script_ends_sentences_by_its_own_marks() {
        let ja = "扉が開く。あなたは中に入る。";
        assert_eq!(sentences_of(ja), ["扉が開く。", "あなたは中に入る。"]);
        let hi = "दरवाज़ा खुलता है। तुम अंदर जाते हो।";
        assert_eq!(sentences_of(hi).len(), 2);
        let ar = "هل تتذكر؟ نعم.";
        assert_eq!(sentences_of(ar).len(), 2);
        assert!(ends_a_sentence("あなたは中に入る。"));
    }

    #[test]
    fn a_line_break_after_words_ends_no_sentence() {
        assert_eq!(
            sentences_of("You wait\nand the door opens."),
            ["You wait\nand the door opens."]
        );
        assert_eq!(
            sentences_of("The door opens. you step in."),
            ["The door opens.", " you step in."]
        );
    }

    #[test]
    fn an_open_quotation_is_found_by_its_closing_mark() {
        assert_eq!(open_quote("She says, \"Go"), Some('"'));
        assert_eq!(open_quote("She says, “Go"), Some('”'));
        assert_eq!(open_quote("Il dit « Va"), Some('»'));
        assert_eq!(open_quote("She says, \"Go.\" It's late."), None);
    }

    #[test]
    fn a_sentence_ended_early_keeps_no_quotation_open() {
        let sentence = " you find a ring, and you're happy. ";
        let at = sentence.find(", and").unwrap();
        assert_eq!(
            ended_at("You search.", sentence, at).as_deref(),
            Some(" you find a ring. ")
        );
        assert_eq!(ended_at("He says, \"", " Go, and run.", 4), None);
    }

    #[test]
    fn an_ellipsis_at_the_end_trails_off() {
        assert!(trails_off("and the Drowned Lan... "));
        assert!(trails_off("\"and the Drowned Lan…\""));
        assert!(!trails_off("nothing... then a bell rings."));
    }
}
