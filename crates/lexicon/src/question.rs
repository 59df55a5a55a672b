//! A player's question as something the character wonders, in the second
//! person and in indirect speech ("Who are they?" → "wonder who they are"),
//! so the narration tells it without repeating the player's words.

use super::deed::second_person;

/// Question words, and the words that may follow one in its phrase ("how
/// far", "which way").
const WH: [&str; 8] = [
    "who", "what", "where", "when", "why", "how", "which", "whose",
];

/// Forms of "be", with what each becomes after "you".
const BE: [(&str, &str); 5] = [
    ("is", "is"),
    ("are", "are"),
    ("am", "are"),
    ("was", "was"),
    ("were", "were"),
];

/// Helpers that stay before their verb ("what you can see").
const KEEP: [&str; 12] = [
    "can", "could", "will", "would", "should", "shall", "may", "might", "must", "have", "has",
    "had",
];

/// Subjects the rest of a question can be found after.
const PRONOUNS: [&str; 16] = [
    "i",
    "we",
    "you",
    "he",
    "she",
    "it",
    "they",
    "there",
    "anyone",
    "anybody",
    "someone",
    "somebody",
    "everyone",
    "everybody",
    "nobody",
    "anything",
];

/// Words after "is" that keep the question word as the subject ("what is
/// in the room", "who is standing there").
const STAYS_AFTER: [&str; 14] = [
    "in",
    "on",
    "at",
    "behind",
    "under",
    "inside",
    "near",
    "beyond",
    "there",
    "here",
    "out",
    "up",
    "going",
    "happening",
];

/// Words that end a question and stay at its end when it is told.
const STAYS_LAST: [&str; 7] = [
    "again", "now", "then", "today", "tonight", "exactly", "anyway",
];

/// Words after the subject of a question with "be" that stay after the
/// verb when it is told ("what the sailor was called", "who the letter is
/// from"): participles and prepositions.
const AFTER_THE_VERB: [&str; 35] = [
    "called", "named", "found", "hidden", "kept", "taken", "stolen", "buried", "seen", "known",
    "made", "built", "left", "lost", "killed", "sent", "written", "given", "sold", "told",
    "locked", "guarded", "held", "born", "for", "from", "about", "like", "with", "to", "of", "on",
    "in", "at", "by",
];

/// Misspellings of question words players type.
const WH_TYPED: [&str; 3] = ["whats", "wat", "whos"];

/// Whether lower-case `word` is one a question asks with ("who", "what",
/// "whom"): it says what is asked, not what about.
pub fn asks_with(word: &str) -> bool {
    WH.contains(&word) || word == "whom"
}

/// Words a question asks *how* with, not *what about* ("what was the name
/// of…", "do you remember…"): they name nothing the answer is about.
const ASKS_HOW: [&str; 14] = [
    "name", "named", "called", "again", "remember", "recall", "know", "tell", "me", "did", "does",
    "do", "said", "say",
];

/// Whether lower-case `word` only says how a question asks ("name",
/// "again", "remember"), not what it is about.
pub fn asks_how(word: &str) -> bool {
    ASKS_HOW.contains(&word)
}

/// Whether `question` asks for someone ("Who owns…", "Whose ship…"): its
/// answer names a person or a group.
pub fn asks_for_someone(question: &str) -> bool {
    question
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
                .to_lowercase()
        })
        .any(|w| matches!(w.as_str(), "who" | "whom" | "whose" | "who's" | "whos"))
}

/// Whether `question` asks about the speaker's own deed ("What did I give
/// her?", "Where did I hide it?"): its subject is "I".
pub fn asks_about_own_deed(question: &str) -> bool {
    crate::words::words_of(question).iter().any(|w| w == "i")
}

/// Whether `text` asks something: it ends with a question mark or opens
/// with a question word or a helper verb ("what's…", "do I…", "is there…").
pub fn is_question(text: &str) -> bool {
    let text = text.trim();
    if text.ends_with('?') {
        return true;
    }
    let Some(first) = text.split_whitespace().next() else {
        return false;
    };
    let first = first
        .trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
        .to_lowercase();
    let first = first
        .strip_suffix("'s")
        .or_else(|| first.strip_suffix("’s"))
        .unwrap_or(&first);
    WH.contains(&first) || WH_TYPED.contains(&first) || is_helper(first)
}

/// Whether `text` is a question answered yes or no ("Is the door
/// locked?", "Did anyone see me?"): a question that opens with a helper
/// verb, not a question word. English only, for now: a question in
/// another language is never one (docs/game-master.md, "The oracle").
pub fn asks_yes_or_no(text: &str) -> bool {
    if !is_question(text) {
        return false;
    }
    let first = crate::words::words_of(text);
    first.first().is_some_and(|w| is_helper(w))
}

/// "wonder who they are" for "Who are they?": the question as a verb phrase
/// in the second person, or `None` when its shape is not one of the plain
/// ones this reads (then the narration does not quote it either).
pub fn wondered(question: &str) -> Option<String> {
    let q = question.trim().trim_end_matches(['?', '!', '.', ' ']);
    // "What's …" is "What is …"; a later "'s" is a possessive ("the innkeeper's name").
    let q = match q.split_once(' ') {
        Some((head, rest)) => match head.strip_suffix("'s").or_else(|| head.strip_suffix("’s")) {
            Some(word) => format!("{word} is {rest}"),
            None => q.to_string(),
        },
        None => q.to_string(),
    };
    let words: Vec<String> = q.split_whitespace().map(str::to_lowercase).collect();
    let original: Vec<&str> = q.split_whitespace().collect();
    let first = words.first()?.as_str();
    if WH.contains(&first) {
        // The question's phrase: "how far", "which way", "what" alone.
        let phrase_len = if matches!(first, "how" | "which" | "whose")
            && words.get(1).is_some_and(|w| !is_helper(w))
        {
            2
        } else {
            1
        };
        let phrase = words[..phrase_len].join(" ");
        let helper = words.get(phrase_len)?.as_str();
        let rest = &original[phrase_len + 1..];
        let rest_lower = &words[phrase_len + 1..];
        if let Some((_, be)) = BE.iter().find(|(form, _)| *form == helper) {
            if rest.is_empty() {
                return None;
            }
            if STAYS_AFTER.contains(&rest_lower[0].as_str()) || rest_lower[0].ends_with("ing") {
                return Some(format!("wonder {phrase} {helper} {}", swapped(rest)));
            }
            // A last "again" or "now" stays last: "who the barkeep is again".
            let (rest, after) = match rest_lower.last() {
                Some(w) if rest.len() > 1 && STAYS_LAST.contains(&w.as_str()) => (
                    &rest[..rest.len() - 1],
                    format!(" {}", rest[rest.len() - 1]),
                ),
                _ => (rest, String::new()),
            };
            // "called" in "what was the sailor called" stays after "was".
            let (rest, tail) = match rest.last() {
                Some(w)
                    if rest.len() > 1 && AFTER_THE_VERB.contains(&w.to_lowercase().as_str()) =>
                {
                    (&rest[..rest.len() - 1], format!(" {w}"))
                }
                _ => (rest, String::new()),
            };
            let subject = swapped(rest);
            let be = if subject == "you" { "are" } else { be };
            return Some(format!("wonder {phrase} {subject} {be}{tail}{after}"));
        }
        return with_pronoun_subject(helper, rest)
            .map(|clause| format!("wonder {phrase} {clause}"));
    }
    if is_helper(first) {
        return with_pronoun_subject(first, &original[1..])
            .map(|clause| format!("wonder whether {clause}"));
    }
    None
}

fn is_helper(word: &str) -> bool {
    KEEP.contains(&word)
        || BE.iter().any(|(form, _)| *form == word)
        || matches!(word, "do" | "does" | "did")
}

/// "you can see from here" for helper "can" and rest "I see from here":
/// the clause in statement order, when its subject is a pronoun (any
/// subject after "do").
fn with_pronoun_subject(helper: &str, rest: &[&str]) -> Option<String> {
    let subject = rest.first()?.to_lowercase();
    // Without "do" the rest is in statement order whatever its subject:
    // "do the ferrymen trust me" → "the ferrymen trust you".
    if rest.len() < 2 || (helper != "do" && !PRONOUNS.contains(&subject.as_str())) {
        return None;
    }
    let who = swapped(&rest[..1]);
    let after = swapped(&rest[1..]);
    let helper = match (helper, who.as_str()) {
        ("am" | "are", "you") => "are".to_string(),
        ("has", "you") => "have".to_string(),
        (h, _) if BE.iter().any(|(form, _)| *form == h) || KEEP.contains(&h) => h.to_string(),
        ("do", _) => return Some(format!("{who} {after}")),
        ("does", _) => {
            let (verb, tail) = after.split_once(' ').unwrap_or((&after, ""));
            return Some(
                format!("{who} {} {tail}", third_person(verb))
                    .trim_end()
                    .to_string(),
            );
        }
        // "did" would need the verb's past form: not read.
        _ => return None,
    };
    Some(format!("{who} {helper} {after}"))
}

/// The words in the second person: "I", "me", "we", "us" → "you", "my",
/// "our" → "your".
fn swapped(words: &[&str]) -> String {
    words
        .iter()
        .map(|w| {
            let lower = w.to_lowercase();
            match (second_person(&lower), lower.as_str()) {
                (Some(you), _) => you,
                (None, "am") => "are",
                (None, _) => w,
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// "look" → "looks", "go" → "goes", "carry" → "carries", "have" → "has".
fn third_person(verb: &str) -> String {
    if verb == "have" {
        return "has".into();
    }
    if let Some(stem) = verb.strip_suffix('y') {
        if !stem.ends_with(['a', 'e', 'i', 'o', 'u']) {
            return format!("{stem}ies");
        }
    }
    if verb.ends_with(['s', 'x', 'z', 'o']) || verb.ends_with("sh") || verb.ends_with("ch") {
        return format!("{verb}es");
    }
    format!("{verb}s")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_asks_with_its_question_word() {
        for w in ["who", "whom", "what", "where"] {
            assert!(asks_with(w), "{w}");
        }
        assert!(!asks_with("mara"));
    }

    #[test]
    fn plain_questions_become_what_you_wonder() {
        for (question, want) in [
            ("Who are they?", "wonder who they are"),
            ("What is that noise?", "wonder what that noise is"),
            ("Where am I?", "wonder where you are"),
            (
                "Who is the barkeep again?",
                "wonder who the barkeep is again",
            ),
            ("Where are we now?", "wonder where you are now"),
            ("What's going on?", "wonder what is going on"),
            (
                "Who is standing at the door?",
                "wonder who is standing at the door",
            ),
            ("How far is the village?", "wonder how far the village is"),
            (
                "What is the innkeeper's name?",
                "wonder what the innkeeper's name is",
            ),
            (
                "What can I see from here?",
                "wonder what you can see from here",
            ),
            ("Where do we go now?", "wonder where you go now"),
            (
                "What does she want from me?",
                "wonder what she wants from you",
            ),
            (
                "Do I know anyone here?",
                "wonder whether you know anyone here",
            ),
            (
                "Have I met Jory before?",
                "wonder whether you have met Jory before",
            ),
            (
                "Can we cross the river?",
                "wonder whether you can cross the river",
            ),
            ("Is it safe?", "wonder whether it is safe"),
            ("Is there a way out?", "wonder whether there is a way out"),
            (
                "what was the caravan master called?",
                "wonder what the caravan master was called",
            ),
            (
                "Who is the letter from again?",
                "wonder who the letter is from again",
            ),
            ("Where is the shed?", "wonder where the shed is"),
            (
                "What do the ferrymen think of me now?",
                "wonder what the ferrymen think of you now",
            ),
            (
                "Do the guards trust us?",
                "wonder whether the guards trust you",
            ),
        ] {
            assert_eq!(wondered(question).as_deref(), Some(want), "{question}");
        }
    }

    #[test]
    fn questions_are_told_from_statements_and_commands() {
        for question in [
            "what was the caravan master called?",
            "whats the toll at the bridge again",
            "Do I know anyone here",
            "who's that",
            "is there a way out",
            "Really?",
        ] {
            assert!(is_question(question), "{question}");
        }
        for other in [
            "Remember that the caravan master is called Bertil.",
            "I ask the barkeep where the ferry is",
            "note: the boy's name is Pim",
            "",
        ] {
            assert!(!is_question(other), "{other}");
        }
    }

    #[test]
    fn other_shapes_are_not_guessed_at() {
        for question in [
            "What did the hermit tell me?",
            "Is the door locked?",
            "Mara, what's on the menu?",
            "Really?",
            "?",
        ] {
            assert_eq!(wondered(question), None, "{question}");
        }
    }

    #[test]
    fn a_question_opened_by_a_helper_verb_is_answered_yes_or_no() {
        for q in [
            "Is the door locked?",
            "did anyone see me",
            "Can I hear the guards?",
            "Are they armed?",
        ] {
            assert!(asks_yes_or_no(q), "{q}");
        }
        for q in [
            "Who owns the station?",
            "What is behind the door?",
            "I open the door.",
            "Is",
        ] {
            assert_eq!(asks_yes_or_no(q), q == "Is", "{q}");
        }
    }
}
