//! What a sentence of prose is: the marks that end one, the quotes that
//! close words said after its end, the titles whose full stop ends none,
//! and where a text's sentences end. The turn told without a model and the
//! storyteller's guards read prose by the same rules.

/// The marks a sentence ends with.
pub const SENTENCE_ENDS: [char; 4] = ['.', '!', '?', '…'];

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
/// included) that is followed by white space or by the end of the text.
/// A title's full stop ("Dr. Venn") ends no sentence.
pub fn sentence_ends(s: &str) -> Vec<usize> {
    let mut found = Vec::new();
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if !SENTENCE_ENDS.contains(&c) {
            continue;
        }
        let word = s[..i].rsplit(char::is_whitespace).next().unwrap_or("");
        let title = c == '.' && TITLES.contains(&word.to_lowercase().as_str());
        while chars
            .next_if(|&(_, c)| SENTENCE_ENDS.contains(&c) || CLOSERS.contains(&c))
            .is_some()
        {}
        let next = chars.peek();
        if !title && next.is_none_or(|&(_, c)| c.is_whitespace()) {
            found.push(next.map_or(s.len(), |&(at, _)| at));
        }
    }
    found
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
