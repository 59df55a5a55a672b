//! How much a scenario, a character card or a lorebook may hold: every
//! bound in one place. What comes from outside and breaks one is refused
//! with the field and the limit named, never cut short; and what a story
//! then tells the storyteller fits the storyteller's input schema
//! (skills/storyteller/skill.json: `recentTurns[].narrator` at most 8,000
//! characters, `recentTurns[].player` 2,000, `scenario` 4,000).

use super::error::{Origin, ScenarioError};

/// A name or a title: a scenario's title, the player's name, a faction's,
/// a person's, a character card's `name` and `creator`, a lore entry's
/// name, a lorebook's name, a card's tag.
pub const NAME_CHARS: usize = 200;
/// A text: a premise, a setting, a description, an opening or a card's
/// greeting, a lore entry's content, any other text field of a card. An
/// opening or a greeting is told as a turn's narration, so this is at most
/// the storyteller's `recentTurns[].narrator` limit (8,000).
pub const TEXT_CHARS: usize = 8_000;
/// The most items in a list a scenario or card names: factions, people,
/// a card's alternate greetings and tags.
pub const MAX_NAMED: usize = 100;
/// The longest lore key (or a person's key): a person's name is their key,
/// so as long as a name.
pub const KEY_CHARS: usize = NAME_CHARS;
/// The most keys one entry (or person) has, and the most secondary keys.
pub const MAX_KEYS: usize = 100;
/// The most entries a story's lore, a lorebook or a card's book holds.
pub const MAX_ENTRIES: usize = 1_000;
/// The most text all of a story's lore may hold, in characters (the lore
/// travels with the story's state, which every turn stores).
pub const LORE_CHARS: usize = 256 * 1024;
/// The most characters all keys of a story's lore may hold (keys travel
/// with the state too).
pub const LORE_KEY_CHARS: usize = 128 * 1024;
/// The largest card, lorebook or scenario file read, in bytes; also the
/// largest card JSON a PNG may carry.
pub const MAX_FILE_BYTES: usize = 5 * 1024 * 1024;
/// The most a PNG card's `chara`/`ccv3` chunk may inflate to, in bytes: the
/// base64 of a card of [`MAX_FILE_BYTES`], with room for line breaks. Other
/// compressed chunks are never inflated.
pub const CARD_CHUNK_BYTES: usize = 8 * 1024 * 1024;

/// The number of characters of `text` when it is more than `max`.
pub(crate) fn over(text: &str, max: usize) -> Option<usize> {
    if text.len() <= max {
        return None; // never more characters than bytes
    }
    let n = text.chars().count();
    (n > max).then_some(n)
}

/// Refuses `text` of more than `max` characters, naming `field` of `of`.
pub(crate) fn chars(of: Origin, field: &str, text: &str, max: usize) -> Result<(), ScenarioError> {
    match over(text, max) {
        Some(size) => Err(ScenarioError::too_large(of, field, size, max, "characters")),
        None => Ok(()),
    }
}

/// Refuses a list of more than `max` items, naming `field` of `of`.
pub(crate) fn items(
    of: Origin,
    field: &str,
    len: usize,
    max: usize,
    unit: &'static str,
) -> Result<(), ScenarioError> {
    if len > max {
        return Err(ScenarioError::too_large(of, field, len, max, unit));
    }
    Ok(())
}

/// Refuses keys beyond [`MAX_KEYS`] or [`KEY_CHARS`]; `field` names the
/// list (e.g. `entries[2].key`).
pub(crate) fn keys<S: AsRef<str>>(
    of: Origin,
    field: &str,
    keys: &[S],
) -> Result<(), ScenarioError> {
    items(of, field, keys.len(), MAX_KEYS, "keys")?;
    for (i, k) in keys.iter().enumerate() {
        chars(of, &format!("{field}[{i}]"), k.as_ref(), KEY_CHARS)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// The storyteller's input schema, as the skill ships it.
    fn storyteller_input() -> Value {
        crate::test_support::storyteller_input_schema()
    }

    fn max_length(schema: &Value, pointer: &str) -> usize {
        schema
            .pointer(pointer)
            .and_then(|v| v["maxLength"].as_u64())
            .unwrap_or_else(|| panic!("{pointer} has a maxLength")) as usize
    }

    #[test]
    fn what_a_story_tells_the_storyteller_fits_its_input_schema() {
        let input = storyteller_input();
        let turn = "/properties/recentTurns/items/properties";
        // An opening, a card's greeting and the line a card or lorebook
        // adds are told as a turn's narration.
        assert!(TEXT_CHARS <= max_length(&input, &format!("{turn}/narrator")));
        let joined = format!(
            "The narrator now knows 1000 entries of lore from {}.",
            "n".repeat(NAME_CHARS)
        );
        assert!(joined.chars().count() <= max_length(&input, &format!("{turn}/narrator")));
        // `/card NAME (player)` and `/lore NAME` are told as the player's words.
        let card = format!("/card {} (player)", "n".repeat(NAME_CHARS));
        assert!(card.chars().count() <= max_length(&input, &format!("{turn}/player")));
        // The story's premise, player, setting and lore are told within a budget.
        assert!(super::super::TELLING_CHARS <= max_length(&input, "/properties/scenario"));
    }

    #[test]
    fn a_refusal_names_the_field_and_the_limit() {
        let err = chars(
            Origin::Card,
            "`data.first_mes`",
            &"é".repeat(8_001),
            TEXT_CHARS,
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "character card: `data.first_mes` holds 8001 characters; at most 8000 are allowed"
        );
        assert_eq!(err.code(), crate::error::ErrorCode::CardInvalid);
        assert!(chars(Origin::Card, "x", &"é".repeat(8_000), TEXT_CHARS).is_ok());
        let err = keys(Origin::Lore, "entries[0].key", &["k".repeat(201)]).unwrap_err();
        assert_eq!(err.code(), crate::error::ErrorCode::LoreInvalid);
        assert!(err
            .to_string()
            .contains("entries[0].key[0] holds 201 characters; at most 200"));
        let many = vec!["k"; MAX_KEYS + 1];
        assert!(keys(Origin::Lore, "k", &many)
            .unwrap_err()
            .to_string()
            .contains("101 keys"));
    }
}
