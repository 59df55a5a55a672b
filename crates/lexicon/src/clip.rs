//! Text cut to a length in characters, with an ellipsis where it was cut.
//! Two meanings, one function each: a text that must fit a room
//! ([`clip_to`]: the ellipsis counts) and a text shown by its start
//! ([`clip_after`]: the ellipsis follows the characters kept).

/// `text` in at most `max` characters, the ellipsis that marks a cut among
/// them; the kept part's trailing white space is dropped before it.
pub fn clip_to(text: &str, max: usize) -> String {
    // Never more characters than bytes: a short text is not counted.
    if text.len() <= max || text.chars().count() <= max {
        return text.to_string();
    }
    let kept: String = text.chars().take(max.saturating_sub(1)).collect();
    format!("{}…", kept.trim_end())
}

/// [`clip_to`] in place: `text` is left as it is when it fits.
pub fn clip_in_place(text: &mut String, max: usize) {
    if text.len() > max && text.chars().count() > max {
        *text = clip_to(text, max);
    }
}

/// `text`'s first `max` characters, then an ellipsis when it had more.
pub fn clip_after(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((i, _)) => format!("{}…", &text[..i]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clipped_to_a_room_the_ellipsis_counts() {
        assert_eq!(clip_to("the bridge at dawn", 8), "the bri…");
        assert_eq!(clip_to("the bridge", 5), "the…");
        assert_eq!(clip_to("hé", 2), "hé");
    }

    #[test]
    fn clipped_in_place_as_clip_to_would() {
        let mut text = "the bridge at dawn".to_string();
        clip_in_place(&mut text, 8);
        assert_eq!(text, "the bri…");
        let mut short = "hé".to_string();
        clip_in_place(&mut short, 2);
        assert_eq!(short, "hé");
    }

    #[test]
    fn clipped_after_its_start_the_ellipsis_follows() {
        assert_eq!(clip_after("héllo", 2), "hé…");
        assert_eq!(clip_after("hé", 2), "hé");
    }
}
