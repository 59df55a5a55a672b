//! What the storyteller is told about the story each turn: the premise, who
//! the player is, the setting, where they are, and the lore the recent turns
//! call for, within a character budget.

use serde::Serialize;
use serde_json::{Map, Value};

use super::lore::{self, LoreUse, Similarities};
use super::start::lore_in;

/// The storyteller's budget for the scenario text, in characters (it reads
/// at most this many; see crates/storyteller/src/prompt.rs).
pub const TELLING_CHARS: usize = 800;

/// The scenario text for one turn, and which lore entries it holds and
/// why (for the inspector).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StoryContext {
    pub text: String,
    pub lore_used: Vec<LoreUse>,
    /// What stays the same turn after turn (the premise, the player, the
    /// setting, within the whole budget): a writer keeps it in its cache.
    #[serde(skip)]
    pub standing: String,
    /// What this turn calls for: where the player is now and the lore chosen.
    #[serde(skip)]
    pub scene: String,
}

// The scene's labels are the lexicon's: the storyteller's guard reads them
// too.
pub use narratoria_lexicon::labels::{LORE_LABEL, NOW_AT_LABEL, SCENE_LABELS};

/// The opening scene a story's state holds, if any (trimmed, never empty).
pub fn opening(state: &Map<String, Value>) -> Option<&str> {
    state
        .get("scenario")
        .and_then(|s| s.get("opening"))
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|o| !o.is_empty())
}

/// The scenario text for a turn, from the session `state` and the `recent`
/// texts (the player's input first, then the last turns). Promises: at
/// most `budget_chars` characters; the premise, the player, the setting and
/// the location first, each cut to its share, then the active lore entries
/// (see [`lore::select`]), whole, in up to half the budget; `None` when the
/// state holds nothing to tell.
pub fn telling(
    state: &Map<String, Value>,
    recent: &[String],
    budget_chars: usize,
) -> Option<StoryContext> {
    telling_with(state, recent, budget_chars, None)
}

/// [`telling`] with lore also chosen by meaning: `similar` holds one
/// similarity per entry of the state's `lore`, in order, from a sentence
/// embedding model.
pub fn telling_with(
    state: &Map<String, Value>,
    recent: &[String],
    budget_chars: usize,
    similar: Option<&Similarities>,
) -> Option<StoryContext> {
    let scenario = state.get("scenario").and_then(Value::as_object);
    let text_of = |obj: Option<&Map<String, Value>>, key: &str| -> String {
        obj.and_then(|o| o.get(key))
            .and_then(Value::as_str)
            .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
            .unwrap_or_default()
    };
    let player = state.get("player").and_then(Value::as_object);
    let title = text_of(scenario, "title");
    let premise = text_of(scenario, "premise");
    let setting = text_of(scenario, "setting");
    let (name, who) = (text_of(player, "name"), text_of(player, "description"));
    let location = state
        .get("location")
        .and_then(Value::as_str)
        .map(str::trim)
        .unwrap_or("");

    // Lore the turns call for takes up to half the budget; the rest is shared.
    let entries = lore_in(state);
    let recent_text = recent.join("\n");
    let room = (budget_chars / 2).saturating_sub(LORE_LABEL.len() + 2);
    let now_text = recent.first().map_or("", String::as_str);
    let chosen = lore::select_why(&entries, &recent_text, now_text, room, similar);
    let lore_line = if chosen.is_empty() {
        String::new()
    } else {
        let body: Vec<String> = chosen.iter().map(|(e, _)| one_line(&e.content)).collect();
        format!("{LORE_LABEL} {}", body.join(" "))
    };
    let head = budget_chars.saturating_sub(lore_line.chars().count() + 1);

    let story = match (title.is_empty(), premise.is_empty()) {
        (false, false) => format!("{title}: {premise}"),
        (true, false) => premise,
        (false, true) => title,
        (true, true) => String::new(),
    };
    let player_line = match (name.is_empty(), who.is_empty()) {
        // Who "you" is: a writer told only "the player" wrote the hero as
        // someone else met in the scene.
        (false, false) => format!("The hero, \"you\" in every sentence, is {name}: {who}"),
        (false, true) => format!("The hero, \"you\" in every sentence, is {name}."),
        _ => String::new(),
    };
    let standing = |head: usize| {
        let mut out = Budget::new(head);
        out.push(&story, head * 9 / 20);
        out.push(&player_line, head / 4);
        if !setting.is_empty() {
            out.push(&format!("Setting: {setting}"), head / 4);
        }
        out
    };
    let now_at = match location.is_empty() {
        true => String::new(),
        false => format!("{NOW_AT_LABEL} {location}."),
    };
    let mut out = standing(head);
    out.push(&now_at, head / 10);
    out.total = budget_chars;
    out.push(&lore_line, usize::MAX);
    let text = out.text;
    if text.is_empty() {
        return None;
    }
    let scene = [now_at, lore_line].into_iter().filter(|l| !l.is_empty());
    Some(StoryContext {
        text,
        lore_used: chosen.into_iter().map(|(_, used)| used).collect(),
        standing: standing(budget_chars).text,
        scene: scene.collect::<Vec<_>>().join("\n"),
    })
}

/// Lines added while characters are left.
struct Budget {
    text: String,
    used: usize,
    total: usize,
}

impl Budget {
    fn new(total: usize) -> Budget {
        Budget {
            text: String::new(),
            used: 0,
            total,
        }
    }

    /// Characters left for another line (after its line break).
    fn left(&self) -> usize {
        let sep = usize::from(!self.text.is_empty());
        self.total.saturating_sub(self.used + sep)
    }

    /// Adds `line` cut to `share` and to what is left; nothing when blank.
    fn push(&mut self, line: &str, share: usize) {
        let line = line.trim();
        let max = share.min(self.left());
        if line.is_empty() || max == 0 {
            return;
        }
        let line = narratoria_lexicon::clip_to(line, max);
        if !self.text.is_empty() {
            self.text.push('\n');
            self.used += 1;
        }
        self.used += line.chars().count();
        self.text.push_str(&line);
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{builtin, initial_state};
    use serde_json::json;

    #[test]
    fn tells_premise_player_setting_and_the_lore_the_turns_name() {
        let state = initial_state(&builtin::find("ashford").unwrap());
        let quiet = telling(&state, &["I look around.".into()], TELLING_CHARS).unwrap();
        assert!(
            quiet.text.starts_with("The Lantern at Ashford: "),
            "{}",
            quiet.text
        );
        assert!(quiet
            .text
            .contains("The hero, \"you\" in every sentence, is "));
        assert!(quiet.text.contains("Setting: "));
        let asked = telling(
            &state,
            &["I ask Mara about the bridge toll.".into()],
            TELLING_CHARS,
        )
        .unwrap();
        assert!(
            asked.lore_used.iter().any(|u| u.name == "Mara Vell"),
            "{:?}",
            asked.lore_used
        );
        assert!(asked.text.contains("Lore: "));
        for t in [&quiet, &asked] {
            assert!(t.text.chars().count() <= TELLING_CHARS, "{}", t.text.len());
        }
    }

    #[test]
    fn what_stays_is_the_same_whatever_the_turn_calls_for() {
        let mut state = initial_state(&builtin::find("ashford").unwrap());
        let quiet = telling(&state, &["I look around.".into()], TELLING_CHARS).unwrap();
        state.insert("location".into(), json!("the bridge"));
        let asked = telling(
            &state,
            &["I ask Mara about the bridge toll.".into()],
            TELLING_CHARS,
        )
        .unwrap();
        assert_eq!(quiet.standing, asked.standing);
        assert!(quiet.standing.starts_with("The Lantern at Ashford: "));
        assert!(!asked.standing.contains("Lore: ") && !asked.standing.contains("Now at: "));
        assert!(
            asked.scene.starts_with("Now at: the bridge.\nLore: "),
            "{}",
            asked.scene
        );
        assert!(asked.standing.chars().count() <= TELLING_CHARS);
    }

    #[test]
    fn never_exceeds_the_budget() {
        let state = initial_state(&builtin::find("ashford").unwrap());
        for budget in [0, 1, 10, 57, 120, 300, 2000] {
            let told = telling(
                &state,
                &["Mara, the watch, the bridge, the toll".into()],
                budget,
            );
            let len = told.as_ref().map_or(0, |t| t.text.chars().count());
            assert!(len <= budget, "{budget}: {len}");
        }
        assert!(telling(&state, &[], 0).is_none());
    }

    #[test]
    fn an_empty_state_tells_nothing_and_lore_alone_is_enough() {
        assert!(telling(&Map::new(), &["hello".into()], 800).is_none());
        let state = json!({"hp": 3, "lore": [
            {"name": "Wolves", "keys": ["wolf", "wolves"], "content": "Wolves here are grey."}
        ]});
        let state = state.as_object().unwrap();
        assert!(telling(state, &["A sheep bleats.".into()], 800).is_none());
        let told = telling(state, &["A WOLF howls".into()], 800).unwrap();
        assert_eq!(told.text, "Lore: Wolves here are grey.");
        assert_eq!(told.lore_used.len(), 1);
        assert_eq!(told.lore_used[0].name, "Wolves");
        assert_eq!(told.lore_used[0].by, lore::LoreReason::Keys);
    }
}
