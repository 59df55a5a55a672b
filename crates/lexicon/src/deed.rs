//! The player's words as something the character does: "I open the door" →
//! "You open the door."

use super::facts::sentence_case;
use super::language::Language;
use super::question::wondered;
use super::sentence::{ends_a_sentence, open_quote, sentence_ends, CLOSERS};
use super::words::JOINING_WORDS;

/// "You [action]." from the player's words. Promises a sentence starting with
/// "You"; a question becomes something wondered (never quoted back) and a
/// quote something said.
pub fn deed(action: &str) -> String {
    let a = action.split_whitespace().collect::<Vec<_>>().join(" ");
    let a = a.trim();
    if a.is_empty() {
        return "You pause.".into();
    }
    if let Some(done) = act(a) {
        return format!("You {}", ended(&done));
    }
    if a.starts_with('"') || a.starts_with('“') {
        return format!("You say {a}");
    }
    if a.ends_with('?') {
        // Told in indirect speech, never quoted back (docs/storyteller.md).
        return match wondered(a) {
            Some(w) => format!("You {w}."),
            None => "You ask your question.".into(),
        };
    }
    // Words about the world, not a deed ("The innkeeper owes me ten gold."):
    // kept as said, in the second person.
    let said: Vec<String> = a
        .split(' ')
        .enumerate()
        .map(|(i, w)| match second_person(&w.to_lowercase()) {
            Some(you) if i == 0 => sentence_case(you),
            Some(you) => you.to_string(),
            None => w.to_string(),
        })
        .collect();
    let said = said.join(" ");
    if said.ends_with(['.', '!', '?', '…']) {
        said
    } else {
        format!("{said}.")
    }
}

/// The player's words as something the character does, told in
/// `language`: [`deed`] in English; in another language the deed turned to
/// the player where its person file can ("Je note l'adresse." → "Vous
/// notez l'adresse."), else the player's words as they said them, never an
/// English frame around them.
pub fn deed_in(action: &str, language: &Language) -> String {
    if language.is_english() {
        return deed(action);
    }
    let a = action.split_whitespace().collect::<Vec<_>>().join(" ");
    match super::person::second_person(&a, language) {
        Some(done) => ended(&done),
        None if a.is_empty() => String::new(),
        None => ended(&a),
    }
}

/// What the player's words say the character does, as a verb phrase in the
/// second person ("I open my pack" → "open your pack", "we rest" → "rest");
/// a short lead before the subject goes after the deed ("At dawn I leave" →
/// "leave at dawn"). Of several sentences, the deeds are those whose
/// subject is the player ("A woman waits. I ask her name." → "ask her
/// name"); words said, then the player saying them, are the saying with the
/// words after it (`"Where to?" I ask him.` → `ask him, "Where to?"`).
/// `None` for a question, a bare quote, a sentence about someone or
/// something else ("The door opens") or no words.
pub fn act(action: &str) -> Option<String> {
    let a = action.split_whitespace().collect::<Vec<_>>().join(" ");
    let a = a.trim();
    if a.starts_with('"') || a.starts_with('“') {
        return said_then_saying(a);
    }
    if a.is_empty() {
        return None;
    }
    let sentences = sentences(a);
    if sentences.len() > 1 {
        // The sentences the player is the subject of; without any, the
        // commands, when every sentence is one ("Go north. Open the door.").
        let mut deeds: Vec<String> = sentences
            .iter()
            .filter(|s| has_the_players_subject(s))
            .filter_map(|s| act(s))
            .collect();
        if deeds.is_empty() {
            deeds = sentences.iter().map_while(|s| act(s)).collect();
            if deeds.len() < sentences.len() {
                deeds.clear();
            }
        }
        return match deeds.as_slice() {
            [] => None,
            [one] => Some(one.clone()),
            [rest @ .., last] => Some(format!("{} and {last}", rest.join(", "))),
        };
    }
    let others_first = ABOUT_OTHERS.contains(&first_word(a).as_str());
    if a.ends_with('?') || (others_first && !a.split(' ').any(is_subject)) {
        return None;
    }
    // Something else first, then the player: "The storm passes and I look
    // out at the sea" → "look out at the sea".
    if others_first {
        let words: Vec<&str> = a.split(' ').collect();
        let after_a_joint = |k: usize| {
            let before = words[k - 1].trim_end_matches(',').to_lowercase();
            is_subject(words[k]) && JOINING_WORDS.contains(&before.as_str())
        };
        if let Some(k) = (1..words.len()).find(|&k| after_a_joint(k)) {
            return act(&words[k..].join(" "));
        }
    }
    let body = a.trim_end_matches(['.', '!', '?', ';', ',', ' ']);
    let mut words: Vec<&str> = body.split(' ').collect();
    if let Some(k) = subject_after_a_lead(&words) {
        let mut lead: Vec<&str> = words.drain(..k).collect();
        let lead_last = lead.len() - 1;
        lead[lead_last] = lead[lead_last].trim_end_matches(',');
        let lowered = lowercase_first(lead[0]);
        if !is_acronym(lead[0]) {
            lead[0] = &lowered;
        }
        return act(&format!("{} {}", words.join(" "), lead.join(" ")));
    }
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    for (i, w) in words.iter().enumerate() {
        let lower = w.to_lowercase();
        let swapped = match lower.as_str() {
            "i" | "we" | "let's" | "lets" if i == 0 => None, // dropped: "I open" → "open"
            "i'm" | "im" | "we're" if i == 0 => Some("are".to_string()),
            "i'll" | "we'll" if i == 0 => Some("will".to_string()),
            // The verb after a swapped "I" agrees with "you", wherever it
            // stands: "I tell Lena I am not…" → "tell Lena you are not…".
            "am" | "was" if i > 0 && words[i - 1].eq_ignore_ascii_case("i") => {
                Some(if lower == "am" { "are" } else { "were" }.to_string())
            }
            other => Some(match second_person(other) {
                Some(you) => you.to_string(),
                None if i == 0 && !is_acronym(w) => lowercase_first(w),
                None => (*w).to_string(),
            }),
        };
        if let Some(s) = swapped {
            out.push(s);
        }
    }
    (!out.is_empty()).then(|| out.join(" "))
}

/// `"Where to?" I ask him.` as `ask him, "Where to?"`: the player's deed
/// after the quote that opens `a`, the quote after the deed's first clause;
/// `None` when no deed of the player's follows the quote.
fn said_then_saying(a: &str) -> Option<String> {
    let close = a
        .char_indices()
        .skip(1)
        .find(|(_, c)| matches!(c, '"' | '”'))
        .map(|(i, c)| i + c.len_utf8())?;
    let (quote, rest) = a.split_at(close);
    let rest = rest.trim_start_matches([',', ' ']);
    if rest.is_empty() || !has_the_players_subject(rest) {
        return None;
    }
    let saying = act(rest)?;
    // `"Hello," I say` ends its words with a comma that now ends the sentence.
    let quote = match quote.strip_suffix(",\"") {
        Some(words) => format!("{words}.\""),
        None => match quote.strip_suffix(",”") {
            Some(words) => format!("{words}.”"),
            None => quote.to_string(),
        },
    };
    // The words go with the first clause's saying ("shout, "Stay back!",
    // and you raise your torch").
    let head = [", ", " and "]
        .iter()
        .filter_map(|joint| saying.find(joint))
        .min()
        .unwrap_or(saying.len());
    let (head, tail) = saying.split_at(head);
    Some(format!("{head}, {quote}{tail}"))
}

/// `done` as the end of a sentence: a full stop after it, unless it ends
/// one already (in words said that end their own sentence).
pub(crate) fn ended(done: &str) -> String {
    if ends_a_sentence(done) {
        done.to_string()
    } else {
        format!("{done}.")
    }
}

/// A first-person word in the second person ("my" → "your", "us" → "you");
/// `None` for any other word. `lower` is the word in lower case.
pub(crate) fn second_person(lower: &str) -> Option<&'static str> {
    Some(match lower {
        "i" | "we" | "me" | "us" => "you",
        "my" | "our" => "your",
        "mine" | "ours" => "yours",
        "myself" => "yourself",
        "i'm" | "we're" => "you're",
        "i've" | "we've" => "you've",
        "i'll" | "we'll" => "you'll",
        "i'd" | "we'd" => "you'd",
        "ourselves" => "yourselves",
        _ => return None,
    })
}

/// The words a player's sentence has for its subject (the forms `act`
/// drops or swaps at its start).
const SUBJECTS: [&str; 9] = [
    "i", "we", "let's", "lets", "i'm", "im", "we're", "i'll", "we'll",
];

/// First words of a sentence about someone or something other than the
/// player's character.
const ABOUT_OTHERS: [&str; 15] = [
    "a", "an", "the", "this", "that", "these", "those", "there", "it", "he", "she", "they", "his",
    "her", "their",
];

fn first_word(text: &str) -> String {
    text.split(' ')
        .next()
        .unwrap_or_default()
        .trim_end_matches(',')
        .to_lowercase()
}

/// `text`'s sentences as a player writes them: cut at a sentence's end
/// ([`sentence_ends`]) that is followed by a capital letter and whose mark
/// stands outside quotes (`"Where to?" I ask him.` is one).
pub fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for end in sentence_ends(text) {
        let mark = text[..end].trim_end_matches(CLOSERS).len();
        let next_is_capital = text[end..]
            .trim_start()
            .chars()
            .next()
            .is_some_and(char::is_uppercase);
        if next_is_capital && open_quote(&text[..mark]).is_none() {
            out.push(text[start..end].trim());
            start = end;
        }
    }
    out.push(text[start..].trim());
    out.retain(|s| !s.is_empty());
    out
}

/// Whether `sentence` has the player for its subject, first or after a lead.
fn has_the_players_subject(sentence: &str) -> bool {
    let words: Vec<&str> = sentence.split(' ').collect();
    is_subject(words[0]) || subject_after_a_lead(&words).is_some()
}

/// Where the player's subject stands after a lead of when, where or how
/// ("At dawn I leave" → 2), if it does.
fn subject_after_a_lead(words: &[&str]) -> Option<usize> {
    (1..words.len().min(LEAD_WORDS + 1)).find(|&k| is_subject(words[k]) && is_lead(&words[..k]))
}

fn is_subject(word: &str) -> bool {
    SUBJECTS.contains(&word.trim_end_matches(',').to_lowercase().as_str())
}

/// The most words a lead before the subject may have ("in the morning I …").
const LEAD_WORDS: usize = 5;

/// Words a lead (when, where or how, before the subject) opens with: words
/// that make a lead alone ("Then I …"), prepositions ("At dawn I …") and
/// conjunctions, whose lead may hold a clause of its own ("When I reach the
/// gate, I …").
const LEAD_ADVERBS: [&str; 10] = [
    "there",
    "here",
    "then",
    "now",
    "finally",
    "suddenly",
    "later",
    "tonight",
    "tomorrow",
    "meanwhile",
];
const LEAD_PREPOSITIONS: [&str; 8] = [
    "in", "at", "on", "with", "without", "from", "under", "behind",
];
const LEAD_CONJUNCTIONS: [&str; 6] = ["when", "after", "before", "while", "as", "once"];
const LEAD_DETERMINERS: [&str; 6] = ["the", "that", "this", "next", "every", "one"];

/// Whether `words` read as a lead before the subject: when, where or how
/// ("in the morning", "quietly,", "when I reach the gate,"), not a deed of
/// its own ("Look, I …") nor the start of a clause whose subject follows
/// ("When I …").
fn is_lead(words: &[&str]) -> bool {
    let first = words[0].trim_end_matches(',').to_lowercase();
    let first = first.as_str();
    if words.iter().any(|w| w.eq_ignore_ascii_case("and")) {
        return false;
    }
    if words.len() == 1 {
        return LEAD_ADVERBS.contains(&first) || first.ends_with("ly");
    }
    if words[1..].iter().any(|w| is_subject(w)) {
        // A clause of its own: a conjunction's, closed by a comma.
        return LEAD_CONJUNCTIONS.contains(&first)
            && words.last().is_some_and(|w| w.ends_with(','));
    }
    // "That night", "The next morning", "This time": a determiner and a
    // word or two of time or place.
    if LEAD_DETERMINERS.contains(&first) && words.len() <= 3 {
        return true;
    }
    LEAD_ADVERBS.contains(&first)
        || LEAD_PREPOSITIONS.contains(&first)
        || LEAD_CONJUNCTIONS.contains(&first)
}

fn is_acronym(w: &str) -> bool {
    w.chars().filter(|c| c.is_alphabetic()).count() > 1
        && w.chars()
            .filter(|c| c.is_alphabetic())
            .all(char::is_uppercase)
}

fn lowercase_first(w: &str) -> String {
    let mut c = w.chars();
    match c.next() {
        Some(f) => f.to_lowercase().chain(c).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_the_action_into_a_you_sentence() {
        assert_eq!(deed("I open the door"), "You open the door.");
        assert_eq!(deed("Draw my sword!"), "You draw your sword.");
        assert_eq!(
            deed("i am hiding behind the crates"),
            "You are hiding behind the crates."
        );
        assert_eq!(
            deed("I'm tired, let me rest"),
            "You are tired, let you rest."
        );
        assert_eq!(
            deed("what is that noise?"),
            "You wonder what that noise is."
        );
        assert_eq!(deed("\"Who goes there?\""), "You say \"Who goes there?\"");
        assert_eq!(
            deed("\"How long until we reach the oasis?\" I ask him."),
            "You ask him, \"How long until we reach the oasis?\""
        );
        assert_eq!(deed("   "), "You pause.");
        assert_eq!(deed("Ask the NPC"), "You ask the NPC.");
    }

    #[test]
    fn the_verb_after_a_later_i_agrees_with_you() {
        assert_eq!(
            deed("I tell Lena I am not working for the police."),
            "You tell Lena you are not working for the police."
        );
        assert_eq!(
            deed("I swear I was never here"),
            "You swear you were never here."
        );
        assert_eq!(
            deed("I promise Dee I'll be back and I've got the key"),
            "You promise Dee you'll be back and you've got the key."
        );
        // "am" or "was" after another subject stays as it is.
        assert_eq!(
            deed("I ask whether the ship was damaged"),
            "You ask whether the ship was damaged."
        );
    }

    #[test]
    fn something_else_then_the_player_is_told_as_the_players_deed() {
        assert_eq!(
            act("The storm passes and I look out at the sea."),
            Some("look out at the sea".into())
        );
        assert_eq!(
            act("The guard turns away, then we slip inside"),
            Some("slip inside".into())
        );
        // A lead of time is still the deed's.
        assert_eq!(
            act("The next morning I leave"),
            Some("leave the next morning".into())
        );
        assert_eq!(act("The door opens and the wind blows"), None);
    }

    #[test]
    fn words_said_then_the_saying_are_told_as_the_saying_then_the_words() {
        assert_eq!(
            act("\"How long until we reach the oasis?\" I ask him."),
            Some("ask him, \"How long until we reach the oasis?\"".into())
        );
        assert_eq!(
            act("“Hello there,” I say to the old man"),
            Some("say to the old man, “Hello there.”".into())
        );
        assert_eq!(
            act("\"Stay back!\" we shout, and I raise my torch."),
            Some("shout, \"Stay back!\", and you raise your torch".into())
        );
        // No deed of the player's after the quote: nothing to tell as one.
        assert_eq!(act("\"Who goes there?\""), None);
        assert_eq!(act("\"Who goes there?\" the guard asks."), None);
        assert_eq!(act("\"Unclosed, I say"), None);
    }

    #[test]
    fn a_party_and_a_lead_before_the_subject_read_as_the_heros_deed() {
        assert_eq!(
            deed("we head upstairs to sleep"),
            "You head upstairs to sleep."
        );
        assert_eq!(deed("We pack our things"), "You pack your things.");
        assert_eq!(deed("let's rest here"), "You rest here.");
        assert_eq!(
            deed("in the morning I ask the innkeeper about the road north"),
            "You ask the innkeeper about the road north in the morning."
        );
        assert_eq!(
            deed("Quietly, I open the door."),
            "You open the door quietly."
        );
        // A subject after "and" is a second deed, not a lead.
        assert_eq!(deed("I eat and I drink"), "You eat and you drink.");
        assert_eq!(act("At dawn we leave"), Some("leave at dawn".into()));
        // Not a lead: a deed of its own before the subject stays where it is.
        assert_eq!(deed("Look, I found it"), "You look, you found it.");
    }

    #[test]
    fn of_several_sentences_the_players_deeds_are_told() {
        assert_eq!(
            deed("A woman in grey waits there. I ask her name."),
            "You ask her name."
        );
        assert_eq!(
            deed("I draw my sword. The orc roars! I charge it."),
            "You draw your sword and charge it."
        );
        assert_eq!(
            deed("I step closer. At dawn we leave."),
            "You step closer and leave at dawn."
        );
        // A deed before a question is told; a question alone is wondered.
        assert_eq!(deed("I look at her. Who is she?"), "You look at her.");
        assert_eq!(deed("Who is she?"), "You wonder who she is.");
        // Nothing the player's character does: no deed to tell, and the
        // words are kept as said.
        assert_eq!(act("The door creaks open."), None);
        assert_eq!(act("A bell rings. The door opens."), None);
        assert_eq!(
            deed("The innkeeper Mara owes me ten gold. Remember that."),
            "The innkeeper Mara owes you ten gold. Remember that."
        );
        // Commands alone are deeds.
        assert_eq!(
            deed("Go north. Open the door."),
            "You go north and open the door."
        );
        // Not a sentence end: a title, a quote, a lower-case word after.
        assert_eq!(
            deed("I ask Dr. Venn about the plague."),
            "You ask Dr. Venn about the plague."
        );
        assert_eq!(
            deed("I yell \"Run! Now!\" and flee."),
            "You yell \"Run! Now!\" and flee."
        );
    }

    #[test]
    fn a_lead_of_time_before_the_subject_follows_the_deed() {
        assert_eq!(
            deed("That night we camp by the river"),
            "You camp by the river that night."
        );
        assert_eq!(
            deed("The next morning I leave"),
            "You leave the next morning."
        );
        assert_eq!(
            deed("This time I aim for its eye"),
            "You aim for its eye this time."
        );
        assert_eq!(deed("There I wait"), "You wait there.");
    }

    #[test]
    fn a_clause_before_the_subject_follows_the_deed() {
        assert_eq!(
            act("When I reach the gate, I knock"),
            Some("knock when you reach the gate".into())
        );
        assert_eq!(
            act("After we eat, we sleep"),
            Some("sleep after you eat".into())
        );
        // A contraction is a subject too.
        assert_eq!(act("Tonight I'll leave"), Some("will leave tonight".into()));
        assert_eq!(act("At dawn let's go"), Some("go at dawn".into()));
        // "When I …" with no comma is not a lead: the words stay in order.
        assert_eq!(
            act("when I knock the door opens"),
            Some("when you knock the door opens".into())
        );
    }

    #[test]
    fn a_deed_in_another_language_is_told_in_it() {
        let fr = Language::parse("fr").unwrap();
        assert_eq!(
            deed_in("Je note l'adresse du marin.", &fr),
            "Vous notez l'adresse du marin."
        );
        // An order to the narrator is kept as said, with no English around it.
        assert_eq!(
            deed_in("Note que les deux joueurs portent la même bague", &fr),
            "Note que les deux joueurs portent la même bague."
        );
        let es = Language::parse("es").unwrap();
        assert_eq!(deed_in("¿Qué había apuntado?", &es), "¿Qué había apuntado?");
        assert_eq!(
            deed_in("I open the door", &Language::english()),
            "You open the door."
        );
    }
}
