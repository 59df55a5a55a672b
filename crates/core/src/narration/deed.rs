//! The player's words as something the character does: "I open the door" →
//! "You open the door."

/// "You [action]." from the player's words. Promises a sentence starting with
/// "You"; a question becomes something asked and a quote something said.
pub fn deed(action: &str) -> String {
    let a = action.split_whitespace().collect::<Vec<_>>().join(" ");
    let a = a.trim();
    if a.is_empty() {
        return "You pause.".into();
    }
    if a.starts_with('"') || a.starts_with('“') {
        return format!("You say {a}");
    }
    if a.ends_with('?') {
        let body = a.trim_end_matches(['.', '!', '?', ';', ',', ' ']);
        return format!("You ask: \"{body}?\"");
    }
    match act(a) {
        Some(done) => format!("You {done}."),
        None => "You pause.".into(),
    }
}

/// What the player's words say the character does, as a verb phrase in the
/// second person ("I open my pack" → "open your pack"); `None` for a
/// question, a quote or no words.
pub fn act(action: &str) -> Option<String> {
    let a = action.split_whitespace().collect::<Vec<_>>().join(" ");
    let a = a.trim();
    if a.is_empty() || a.starts_with('"') || a.starts_with('“') || a.ends_with('?') {
        return None;
    }
    let body = a.trim_end_matches(['.', '!', '?', ';', ',', ' ']);
    let words: Vec<&str> = body.split(' ').collect();
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    for (i, w) in words.iter().enumerate() {
        let lower = w.to_lowercase();
        let swapped = match lower.as_str() {
            "i" if i == 0 => None, // dropped: "I open" → "open"
            "i'm" | "im" if i == 0 => Some("are".to_string()),
            "i'll" if i == 0 => Some("will".to_string()),
            "i" => Some("you".to_string()),
            "am" if i == 1 && words[0].eq_ignore_ascii_case("i") => Some("are".to_string()),
            "my" => Some("your".to_string()),
            "me" => Some("you".to_string()),
            "mine" => Some("yours".to_string()),
            "myself" => Some("yourself".to_string()),
            _ if i == 0 && !is_acronym(w) => Some(lowercase_first(w)),
            _ => Some((*w).to_string()),
        };
        if let Some(s) = swapped {
            out.push(s);
        }
    }
    (!out.is_empty()).then(|| out.join(" "))
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
            "You ask: \"what is that noise?\""
        );
        assert_eq!(deed("\"Who goes there?\""), "You say \"Who goes there?\"");
        assert_eq!(deed("   "), "You pause.");
        assert_eq!(deed("Ask the NPC"), "You ask the NPC.");
    }
}
