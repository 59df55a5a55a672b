//! A story's state from a scenario, and what a card or a lorebook adds to it.
//!
//! The state keys (docs/scenarios.md): `location`, `player` (name,
//! description), `reputation` (starting standings, as the reputation skill
//! writes them), `factions` (id, name, description: the reputation skill's
//! factions for the story), `scenario` (name, title, premise, setting,
//! opening), `lore` (entries, people included) and `gm` (the game
//! master's table: docs/game-master.md). The short, changing
//! keys come first, so a digest of the state's beginning shows them.

use serde_json::{json, Map, Value};

use super::card::{CardRole, CharacterCard};
use super::lore::{self, LoreEntry};
use super::model::{Person, Scenario};
use super::ScenarioError;

/// The state a story starts from. Promises: every faction is in `factions`
/// and has a `reputation` entry with its starting `score` and `standing`
/// word; every person becomes a lore entry keyed by their name; empty texts
/// are left out.
pub fn initial_state(scenario: &Scenario) -> Map<String, Value> {
    let mut state = Map::new();
    if !scenario.location.trim().is_empty() {
        state.insert("location".into(), json!(scenario.location.trim()));
    }
    state.insert(
        "player".into(),
        texts(&[
            ("name", &scenario.player.name),
            ("description", &scenario.player.description),
        ]),
    );
    if !scenario.factions.is_empty() {
        let standings: Map<String, Value> = scenario
            .factions
            .iter()
            .map(|f| {
                (
                    f.id.clone(),
                    json!({"score": f.standing, "standing": standing_word(f.standing)}),
                )
            })
            .collect();
        state.insert("reputation".into(), Value::Object(standings));
        let factions: Vec<Value> = scenario
            .factions
            .iter()
            .map(|f| {
                texts(&[
                    ("id", &f.id),
                    ("name", &f.name),
                    ("description", &f.description),
                ])
            })
            .collect();
        state.insert("factions".into(), Value::Array(factions));
    }
    state.insert(
        "scenario".into(),
        texts(&[
            ("name", &scenario.name),
            ("title", &scenario.title),
            ("premise", &scenario.premise),
            ("setting", &scenario.setting),
            ("opening", &scenario.opening),
        ]),
    );
    let mut entries: Vec<LoreEntry> = scenario.people.iter().map(person_entry).collect();
    entries.extend(scenario.lore.iter().cloned());
    if !entries.is_empty() {
        state.insert("lore".into(), lore_value(&entries));
    }
    // The game master's table: long and its own, so last.
    state.insert("gm".into(), super::game_master::initial_table(scenario));
    state
}

/// `state` with a card added: as the player's character (replacing
/// `player`) or as someone in the story (a lore entry keyed by their
/// name); the card's book joins the lore; its greeting becomes the opening
/// when the story has none. Refuses when the story's lore would grow past
/// its limits, or when the card's texts, the story's player's name filled
/// in, would be longer than a story allows (see [`CharacterCard::check_told`]):
/// its greeting is told to the storyteller as a turn's narration.
pub fn with_card(
    state: &Map<String, Value>,
    card: &CharacterCard,
    role: CardRole,
) -> Result<Map<String, Value>, ScenarioError> {
    let mut out = state.clone();
    let player_name = match role {
        CardRole::Player => {
            let player = card.as_player();
            let mut value = match out.remove("player") {
                Some(Value::Object(old)) => old,
                _ => Map::new(),
            };
            value.insert("name".into(), json!(player.name));
            value.insert("description".into(), json!(player.description));
            out.insert("player".into(), Value::Object(value));
            player.name
        }
        CardRole::Npc => player_name(state),
    };
    card.check_told(&player_name)?;
    let mut added: Vec<LoreEntry> = Vec::new();
    if role == CardRole::Npc {
        added.push(person_entry(&card.as_person(&player_name)));
    }
    added.extend(card.lore.iter().cloned());
    out = with_lore(&out, &added)?;
    let scenario = out
        .entry("scenario")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(scenario) = scenario {
        let opening = card.fill(&card.first_mes, &player_name);
        let has_opening = scenario
            .get("opening")
            .and_then(Value::as_str)
            .is_some_and(|o| !o.trim().is_empty());
        if !has_opening && !opening.is_empty() {
            scenario.insert("opening".into(), json!(opening));
        }
        let has_premise = scenario
            .get("premise")
            .and_then(Value::as_str)
            .is_some_and(|p| !p.trim().is_empty());
        let premise = card.fill(&card.scenario, &player_name);
        if !has_premise && !premise.is_empty() {
            scenario.insert("premise".into(), json!(premise));
        }
    }
    if role == CardRole::Npc {
        seat_at_the_table(&mut out, &card.name);
    }
    Ok(out)
}

/// Someone a card brings into the story joins the game master's table, met
/// and in the scene, when the story has one (docs/game-master.md).
fn seat_at_the_table(state: &mut Map<String, Value>, name: &str) {
    let Some(gm) = state.get_mut("gm").and_then(Value::as_object_mut) else {
        return;
    };
    let people = gm.entry("people").or_insert_with(|| json!([]));
    if let Some(people) = people.as_array_mut() {
        if !people
            .iter()
            .any(|p| p.get("name").and_then(Value::as_str) == Some(name))
        {
            people.push(json!({"name": name, "wants": "", "attitude": "neutral", "met": true}));
        }
    }
    let scene = gm.entry("scene").or_insert_with(|| json!({}));
    if let Some(scene) = scene.as_object_mut() {
        let present = scene.entry("present").or_insert_with(|| json!([]));
        if let Some(present) = present.as_array_mut() {
            if !present.iter().any(|p| p.as_str() == Some(name)) {
                present.push(json!(name));
            }
        }
    }
}

/// `state` with `entries` added to its lore (an entry with the same name
/// and content is not added twice). Refuses when an entry added breaks an
/// entry's limits, or when the lore would grow past the limits of a
/// story's lore together (entries, content, keys); the entries already
/// there are not judged again.
pub fn with_lore(
    state: &Map<String, Value>,
    entries: &[LoreEntry],
) -> Result<Map<String, Value>, ScenarioError> {
    const AT: &str = "the story's lore";
    let mut lore = lore_in(state);
    for e in entries {
        if !lore
            .iter()
            .any(|l| l.name == e.name && l.content == e.content)
        {
            e.check(&format!("{AT}[{}]", lore.len()))?;
            lore.push(e.clone());
        }
    }
    lore::check_totals(&lore, AT)?;
    let mut out = state.clone();
    if !lore.is_empty() {
        out.insert("lore".into(), lore_value(&lore));
    }
    Ok(out)
}

/// The lore entries in a state's `lore`; entries that do not read are passed over.
pub fn lore_in(state: &Map<String, Value>) -> Vec<LoreEntry> {
    state
        .get("lore")
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|v| serde_json::from_value(v.clone()).ok())
                .collect()
        })
        .unwrap_or_default()
}

/// The player's name in a state, or "you".
pub fn player_name(state: &Map<String, Value>) -> String {
    state
        .get("player")
        .and_then(|p| p.get("name"))
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .unwrap_or("you")
        .to_string()
}

/// The word the reputation skill uses for a score on its default scale (±100).
fn standing_word(score: i64) -> &'static str {
    match score {
        s if s >= 60 => "allied",
        s if s >= 20 => "friendly",
        s if s > -20 => "neutral",
        s if s > -60 => "unfriendly",
        _ => "hostile",
    }
}

/// The lore entry someone in the story becomes: keyed by their name and
/// keys, their description as its content (after their name).
pub(super) fn person_entry(p: &Person) -> LoreEntry {
    let mut keys = vec![p.name.trim().to_string()];
    keys.extend(
        p.keys
            .iter()
            .map(|k| k.trim().to_string())
            .filter(|k| !k.is_empty()),
    );
    let description = p.description.trim();
    let content = if description.starts_with(p.name.trim()) {
        description.to_string()
    } else {
        format!("{}: {}", p.name.trim(), description)
    };
    LoreEntry {
        name: p.name.trim().to_string(),
        keys,
        priority: 50,
        order: 10,
        ..LoreEntry::new("", &[], &content)
    }
}

fn lore_value(entries: &[LoreEntry]) -> Value {
    serde_json::to_value(entries).expect("lore entries serialise")
}

/// An object of the non-empty texts given, trimmed.
fn texts(fields: &[(&str, &str)]) -> Value {
    Value::Object(
        fields
            .iter()
            .filter(|(_, v)| !v.trim().is_empty())
            .map(|(k, v)| (k.to_string(), json!(v.trim())))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::builtin;

    #[test]
    fn a_scenario_starts_the_state_reputation_can_read() {
        let s = builtin::find("ashford").unwrap();
        let state = initial_state(&s);
        let keys: Vec<&str> = state.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "location",
                "player",
                "reputation",
                "factions",
                "scenario",
                "lore",
                "gm"
            ]
        );
        let watch = &state["reputation"]["ashford-watch"];
        assert_eq!(watch["score"], s.factions[0].standing);
        assert!(watch["standing"].is_string());
        let ids: Vec<&str> = state["factions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["id"].as_str().unwrap())
            .collect();
        assert_eq!(
            ids,
            s.factions.iter().map(|f| f.id.as_str()).collect::<Vec<_>>()
        );
        assert_eq!(state["scenario"]["opening"], s.opening.trim());
        let lore = lore_in(&state);
        assert_eq!(lore.len(), s.people.len() + s.lore.len());
        assert!(lore[0].keys.contains(&s.people[0].name));
    }

    #[test]
    fn a_card_adds_a_person_their_book_and_an_opening() {
        let card = CharacterCard::from_json(
            br#"{"name": "Old Tom", "description": "A ferryman who never sleeps.",
                 "first_mes": "Fare's a copper, {{user}}.",
                 "character_book": {"entries": [{"keys": ["river"], "content": "The river remembers."}]}}"#,
        )
        .unwrap();
        let mut start = Map::new();
        start.insert("player".into(), json!({"name": "Wren", "hp": 7}));
        let state = with_card(&start, &card, CardRole::Npc).unwrap();
        let lore = lore_in(&state);
        assert_eq!(
            lore.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(),
            ["Old Tom", "river"]
        );
        assert_eq!(state["scenario"]["opening"], "Fare's a copper, Wren.");
        // The same card twice adds nothing new.
        assert_eq!(
            lore_in(&with_card(&state, &card, CardRole::Npc).unwrap()).len(),
            2
        );
        let played = with_card(&start, &card, CardRole::Player).unwrap();
        assert_eq!(
            played["player"],
            json!({"name": "Old Tom", "hp": 7, "description": "A ferryman who never sleeps."})
        );
        assert_eq!(lore_in(&played).len(), 1);
        // In a story with a game master's table, they join it, once.
        let story = initial_state(&builtin::find("tithonus").unwrap());
        let seated = with_card(&story, &card, CardRole::Npc).unwrap();
        let seated = with_card(&seated, &card, CardRole::Npc).unwrap();
        let people = seated["gm"]["people"].as_array().unwrap();
        assert_eq!(people.iter().filter(|p| p["name"] == "Old Tom").count(), 1);
        assert!(seated["gm"]["scene"]["present"]
            .as_array()
            .unwrap()
            .contains(&json!("Old Tom")));
    }

    #[test]
    fn standing_words_follow_the_default_scale() {
        assert_eq!(
            [-100, -30, 0, 25, 100].map(standing_word),
            ["hostile", "unfriendly", "neutral", "friendly", "allied"]
        );
    }
}
