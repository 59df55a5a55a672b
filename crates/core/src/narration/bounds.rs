//! How much the storyteller is told of each thing: the bounds of its input
//! schema (skills/storyteller/skill.json), one constant each, held equal to
//! the schema by a test. What the player gives over its bound (an action,
//! an author's note) is refused before the turn starts, never cut; what the
//! host tells of the story (a turn saved before the bound, a scene, the
//! scenario) is clipped to fit, so every input the host builds passes the
//! storyteller's input check (docs/stories.md, "What the narrator is
//! told" and "When a turn is refused").

use crate::error::ErrorCode;

/// The most characters of a player's action: the storyteller's
/// `playerInput`, and each earlier turn's `recentTurns[].player`.
pub const ACTION_CHARS: usize = 2000;

/// The most characters of one turn's narration the storyteller is told
/// (`recentTurns[].narrator`).
pub const NARRATION_CHARS: usize = 8000;

/// The most characters of the turn's scene, the lore chosen with it
/// (`context`).
pub const SCENE_CHARS: usize = 8000;

/// The most characters of the story's premise and setting (`scenario`).
pub const SCENARIO_CHARS: usize = 4000;

/// The most characters an author's note holds (`authorNote`); a longer one
/// is refused, never cut.
pub const AUTHOR_NOTE_CHARS: usize = 2000;

/// The most characters of the story's language as told (`language`).
pub const LANGUAGE_CHARS: usize = 40;

/// The most turns the narration step is told (`recentTurns`' `maxItems`).
pub const STORY_TURNS: usize = 2000;

/// A player's action longer than [`ACTION_CHARS`]: refused whole before the
/// turn starts, nothing played and nothing saved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("an action holds at most {limit} characters; this one holds {chars} — shorten it")]
pub struct ActionTooLong {
    /// The action's length, in characters.
    pub chars: usize,
    /// [`ACTION_CHARS`].
    pub limit: usize,
}

impl ActionTooLong {
    /// The code the UI and CLI show: [`ErrorCode::ActionTooLong`].
    pub fn code(&self) -> ErrorCode {
        ErrorCode::ActionTooLong
    }
}

/// Refuses an `action` of more than [`ACTION_CHARS`] characters (counted
/// as characters, not bytes).
pub fn check_action(action: &str) -> Result<(), ActionTooLong> {
    // Never more characters than bytes: most actions are not counted.
    if action.len() <= ACTION_CHARS {
        return Ok(());
    }
    match action.chars().count() {
        chars if chars > ACTION_CHARS => Err(ActionTooLong {
            chars,
            limit: ACTION_CHARS,
        }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// The storyteller's input schema's properties, as the skill ships them.
    fn storyteller_input() -> Value {
        crate::test_support::storyteller_input_schema()["properties"].clone()
    }

    /// Each bound is the schema's own, so the two never drift apart.
    #[test]
    fn every_bound_is_the_storytellers_schema_bound() {
        let input = storyteller_input();
        let max = |pointer: &str, key: &str| {
            input
                .pointer(pointer)
                .and_then(|p| p[key].as_u64())
                .unwrap_or_else(|| panic!("{pointer} has a {key}")) as usize
        };
        for (pointer, bound) in [
            ("/playerInput", ACTION_CHARS),
            ("/recentTurns/items/properties/player", ACTION_CHARS),
            ("/recentTurns/items/properties/narrator", NARRATION_CHARS),
            ("/context", SCENE_CHARS),
            ("/scenario", SCENARIO_CHARS),
            ("/authorNote", AUTHOR_NOTE_CHARS),
            ("/language", LANGUAGE_CHARS),
            ("/answer", crate::scenario::known::ANSWER_CHARS),
        ] {
            assert_eq!(max(pointer, "maxLength"), bound, "{pointer}");
        }
        assert_eq!(max("/recentTurns", "maxItems"), STORY_TURNS);
    }

    /// The window's input box holds the same bounds (ui/src/bounds.ts).
    #[test]
    fn the_windows_bounds_are_these() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../ui/src/bounds.ts");
        let ts = std::fs::read_to_string(path).unwrap();
        for (name, bound) in [
            ("ACTION_CHARS", ACTION_CHARS),
            ("NOTE_CHARS", AUTHOR_NOTE_CHARS),
        ] {
            let line = format!("export const {name} = {bound};");
            assert!(ts.contains(&line), "ui/src/bounds.ts lacks {line:?}");
        }
    }

    #[test]
    fn an_action_over_the_bound_is_refused_counted_in_characters() {
        assert_eq!(check_action(&"é".repeat(ACTION_CHARS)), Ok(()));
        let err = check_action(&"é".repeat(ACTION_CHARS + 1)).unwrap_err();
        assert_eq!(
            err,
            ActionTooLong {
                chars: 2001,
                limit: 2000
            }
        );
        assert_eq!(err.code(), ErrorCode::ActionTooLong);
        assert_eq!(
            err.to_string(),
            "an action holds at most 2000 characters; this one holds 2001 — shorten it"
        );
    }
}
