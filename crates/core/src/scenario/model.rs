//! A scenario: an authored starting point for a story, and its checks.

use serde::{Deserialize, Serialize};

use super::error::Origin;
use super::game_master::{self, GameMasterSetup, ThreadSetup};
use super::json::without_bom_str;
use super::limits::{self, MAX_KEYS, MAX_NAMED, NAME_CHARS as TITLE_CHARS, TEXT_CHARS};
use super::lore::{self, LoreEntry};
use super::start::person_entry;
use super::ScenarioError;
use crate::narration::Language;

/// Starting standings lie on the reputation skill's default scale.
pub const STANDING_RANGE: std::ops::RangeInclusive<i64> = -100..=100;

/// An authored starting point for a story (docs/scenarios.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Scenario {
    /// Its short name: lower-case letters, digits and `-` (the file name).
    #[serde(default)]
    pub name: String,
    pub title: String,
    /// What the story is about, in a few sentences.
    pub premise: String,
    /// The world and its tone.
    #[serde(default)]
    pub setting: String,
    /// Where the story starts.
    #[serde(default)]
    pub location: String,
    /// Who the player is.
    pub player: PlayerCharacter,
    /// The first scene the player reads.
    #[serde(default)]
    pub opening: String,
    #[serde(default)]
    pub factions: Vec<Faction>,
    /// People the story knows (told when the recent turns name them).
    #[serde(default)]
    pub people: Vec<Person>,
    #[serde(default)]
    pub lore: Vec<LoreEntry>,
    /// The story's threads: its mystery, debts, promises and dangers
    /// (docs/game-master.md). Absent: its title is the one thread.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub threads: Vec<ThreadSetup>,
    /// How the game master runs the story: starting tension, genre, own
    /// event and consequence tables.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game_master: Option<GameMasterSetup>,
    /// The language the story is told in: an ISO 639 code or an English
    /// name in the file ("fr", "French"), kept as its code. Absent: the
    /// player's first words tell it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<Language>,
}

/// The player's character.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlayerCharacter {
    pub name: String,
    #[serde(default)]
    pub description: String,
}

/// A faction of the story; it becomes one of the reputation skill's factions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Faction {
    /// Lower-case letters, digits, `-` and `_` (e.g. `city-watch`).
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// The player's standing at the start (-100 to 100; 0 is neutral).
    #[serde(default)]
    pub standing: i64,
}

/// Someone in the story besides the player.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Person {
    pub name: String,
    pub description: String,
    /// Other words that bring them to mind (their name always does).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keys: Vec<String>,
    /// What they want, completing "they want …" ("to take the claim and
    /// leave"): the game master has them act on it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub wants: String,
    /// How they regard the player at the start: hostile, wary, neutral
    /// (when absent), friendly or loyal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attitude: Option<String>,
    /// Whether they are in the opening scene with the player.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub present: bool,
}

impl Scenario {
    /// Reads a scenario file's JSON (a leading byte-order mark passed
    /// over). Promises: unknown fields, missing fields and failed
    /// [`Scenario::check`]s are refused with the field named.
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        let value: serde_json::Value = serde_json::from_str(without_bom_str(text))
            .map_err(|e| ScenarioError::Invalid(format!("the file is not JSON ({e})")))?;
        let scenario: Scenario = serde_json::from_value(value.clone()).map_err(|e| {
            ScenarioError::Invalid(
                part_error(&value)
                    .unwrap_or_else(|| format!("the file does not read as a scenario: {e}")),
            )
        })?;
        scenario.check()?;
        Ok(scenario)
    }

    /// Refuses a scenario a story cannot start from: a bad name, blank
    /// texts, texts, lists or keys past the limits of [`super::limits`],
    /// duplicate or malformed faction ids, standings off the scale, broken
    /// lore.
    pub fn check(&self) -> Result<(), ScenarioError> {
        let bad = |m: String| Err(ScenarioError::Invalid(m));
        if !self.name.is_empty() {
            check_name(&self.name)?;
        }
        required("title", &self.title, TITLE_CHARS)?;
        required("premise", &self.premise, TEXT_CHARS)?;
        optional("setting", &self.setting, TEXT_CHARS)?;
        optional("location", &self.location, TITLE_CHARS)?;
        optional("opening", &self.opening, TEXT_CHARS)?;
        required("player.name", &self.player.name, TITLE_CHARS)?;
        optional("player.description", &self.player.description, TEXT_CHARS)?;
        limits::items(
            Origin::Scenario,
            "factions",
            self.factions.len(),
            MAX_NAMED,
            "factions",
        )?;
        limits::items(
            Origin::Scenario,
            "people",
            self.people.len(),
            MAX_NAMED,
            "people",
        )?;
        for (i, f) in self.factions.iter().enumerate() {
            let at = format!("factions[{i}]");
            if !is_id(&f.id, true) {
                return bad(format!(
                    "{at}.id {:?} must be lower-case letters, digits, '-' or '_' (at most 64)",
                    f.id
                ));
            }
            if self.factions[..i].iter().any(|g| g.id == f.id) {
                return bad(format!("{at}.id {:?} is used twice", f.id));
            }
            required(&format!("{at}.name"), &f.name, TITLE_CHARS)?;
            optional(&format!("{at}.description"), &f.description, TEXT_CHARS)?;
            if !STANDING_RANGE.contains(&f.standing) {
                return bad(format!(
                    "{at}.standing {} must be between -100 and 100",
                    f.standing
                ));
            }
        }
        for (i, p) in self.people.iter().enumerate() {
            required(&format!("people[{i}].name"), &p.name, TITLE_CHARS)?;
            required(
                &format!("people[{i}].description"),
                &p.description,
                TEXT_CHARS,
            )?;
            // Their name is a key too.
            let keys = format!("people[{i}].keys");
            limits::items(Origin::Scenario, &keys, p.keys.len(), MAX_KEYS - 1, "keys")?;
            limits::keys(Origin::Scenario, &keys, &p.keys)?;
        }
        game_master::check(self)?;
        lore::check_all(&self.lore, "lore").map_err(|e| e.within(Origin::Scenario))?;
        // People become lore entries: with the lore, they are held to the
        // limits of a story's lore together.
        let story: Vec<LoreEntry> = self
            .people
            .iter()
            .map(person_entry)
            .chain(self.lore.iter().cloned())
            .collect();
        lore::check_totals(&story, "people and lore together")
            .map_err(|e| e.within(Origin::Scenario))
    }
}

/// The first nested part of a scenario that does not read, named by its
/// place (e.g. `player: missing field `name``).
fn part_error(value: &serde_json::Value) -> Option<String> {
    fn first<T: serde::de::DeserializeOwned>(
        v: Option<&serde_json::Value>,
        at: &str,
    ) -> Option<String> {
        let v = v?;
        let items: Vec<(String, &serde_json::Value)> = match v.as_array() {
            Some(list) => list
                .iter()
                .enumerate()
                .map(|(i, x)| (format!("{at}[{i}]"), x))
                .collect(),
            None => vec![(at.to_string(), v)],
        };
        items.into_iter().find_map(|(at, x)| {
            serde_json::from_value::<T>(x.clone())
                .err()
                .map(|e| format!("{at}: {e}"))
        })
    }
    first::<PlayerCharacter>(value.get("player"), "player")
        .or_else(|| language_error(value.get("language")))
        .or_else(|| first::<Faction>(value.get("factions"), "factions"))
        .or_else(|| first::<Person>(value.get("people"), "people"))
        .or_else(|| first::<LoreEntry>(value.get("lore"), "lore"))
}

/// Why a scenario's `language` is not one, when it is not.
fn language_error(value: Option<&serde_json::Value>) -> Option<String> {
    match value? {
        serde_json::Value::Null => None,
        serde_json::Value::String(name) => Language::parse(name)
            .err()
            .map(|e| format!("language: {e}")),
        other => Some(format!(
            "language must be a string, an ISO 639 code (\"fr\") or an English name (\"French\"), not {other}"
        )),
    }
}

/// Refuses a scenario name that is not a plain file name.
pub fn check_name(name: &str) -> Result<(), ScenarioError> {
    if is_id(name, false) {
        Ok(())
    } else {
        Err(ScenarioError::Invalid(format!(
            "name {name:?} must be lower-case letters, digits and '-', starting with a letter or digit (at most 64)"
        )))
    }
}

fn is_id(id: &str, underscore: bool) -> bool {
    let ok = |c: char| {
        c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || (underscore && c == '_')
    };
    !id.is_empty()
        && id.len() <= 64
        && id.chars().all(ok)
        && id.starts_with(|c: char| c.is_ascii_alphanumeric())
}

fn required(field: &str, text: &str, max: usize) -> Result<(), ScenarioError> {
    if text.trim().is_empty() {
        return Err(ScenarioError::Invalid(format!("{field} is empty")));
    }
    optional(field, text, max)
}

fn optional(field: &str, text: &str, max: usize) -> Result<(), ScenarioError> {
    limits::chars(Origin::Scenario, field, text, max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sample() -> serde_json::Value {
        json!({
            "name": "mill",
            "title": "The Haunted Mill",
            "premise": "Something grinds at night in the old mill.",
            "player": {"name": "Ada", "description": "a miller's daughter"},
            "factions": [{"id": "village", "name": "The Village", "standing": 10}]
        })
    }

    fn check(v: serde_json::Value) -> Result<Scenario, ScenarioError> {
        Scenario::from_json(&v.to_string())
    }

    #[test]
    fn a_minimal_scenario_reads() {
        let s = check(sample()).unwrap();
        assert_eq!(s.factions[0].standing, 10);
        assert!(s.lore.is_empty() && s.opening.is_empty());
    }

    #[test]
    fn problems_name_the_field() {
        let with = |pointer: &str, value: serde_json::Value| {
            let mut v = sample();
            *v.pointer_mut(pointer).unwrap() = value;
            check(v).unwrap_err().to_string()
        };
        assert_eq!(with("/title", json!("  ")), "scenario: title is empty");
        assert!(with("/name", json!("My Story")).contains("name \"My Story\" must be"));
        assert!(with("/factions/0/id", json!("City Watch")).contains("factions[0].id"));
        assert!(with("/factions/0/standing", json!(500)).contains("between -100 and 100"));
        assert!(with("/player/name", json!("")).contains("player.name is empty"));
        let mut twice = sample();
        twice["factions"] = json!([{"id": "a", "name": "A"}, {"id": "a", "name": "B"}]);
        assert!(check(twice).unwrap_err().to_string().contains("used twice"));
        let mut unknown = sample();
        unknown["tone"] = json!("grim");
        assert!(check(unknown)
            .unwrap_err()
            .to_string()
            .contains("unknown field `tone`"));
        let mut no_premise = sample();
        no_premise.as_object_mut().unwrap().remove("premise");
        assert!(check(no_premise)
            .unwrap_err()
            .to_string()
            .contains("missing field `premise`"));
        let mut nameless = sample();
        nameless["player"] = json!({"description": "who?"});
        assert_eq!(
            check(nameless).unwrap_err().to_string(),
            "scenario: player: missing field `name`"
        );
        let mut bad_faction = sample();
        bad_faction["factions"][0]["standing"] = json!("high");
        assert!(check(bad_faction)
            .unwrap_err()
            .to_string()
            .starts_with("scenario: factions[0]: invalid type"));
        let mut bad_lore = sample();
        bad_lore["lore"] = json!([{"name": "x", "keys": [], "content": "c"}]);
        assert!(check(bad_lore).unwrap_err().to_string().contains("lore[0]"));
    }

    #[test]
    fn a_scenario_may_name_its_language() {
        assert_eq!(check(sample()).unwrap().language, None);
        for name in ["fr", "FRA", "French"] {
            let mut v = sample();
            v["language"] = json!(name);
            let s = check(v).unwrap();
            assert_eq!(
                s.language.as_ref().map(Language::code),
                Some("fr"),
                "{name}"
            );
            // Saved as its code.
            assert_eq!(serde_json::to_value(&s).unwrap()["language"], "fr");
        }
        let mut v = sample();
        v["language"] = json!("Elvish");
        let e = check(v).unwrap_err();
        assert_eq!(e.code(), crate::error::ErrorCode::ScenarioInvalid);
        let text = e.to_string();
        assert!(
            text.starts_with("scenario: language: \"Elvish\" is not a language"),
            "{text}"
        );
        let mut v = sample();
        v["language"] = json!(33);
        let text = check(v).unwrap_err().to_string();
        assert!(
            text.starts_with("scenario: language must be a string"),
            "{text}"
        );
        let mut v = sample();
        v["language"] = json!(null);
        assert_eq!(check(v).unwrap().language, None);
        // Left out when it is not given.
        let plain = serde_json::to_value(check(sample()).unwrap()).unwrap();
        assert!(plain.get("language").is_none());
    }

    #[test]
    fn a_persons_keys_are_bounded_like_lore_keys() {
        let mut v = sample();
        v["people"] =
            json!([{"name": "Mara", "description": "The innkeeper.", "keys": ["k".repeat(201)]}]);
        let e = check(v).unwrap_err().to_string();
        assert!(e.contains("people[0].keys[0]") && e.contains("200"), "{e}");
        let mut v = sample();
        let keys: Vec<String> = (0..100).map(|i| format!("k{i}")).collect();
        v["people"] = json!([{"name": "Mara", "description": "The innkeeper.", "keys": keys}]);
        let e = check(v).unwrap_err().to_string();
        assert!(
            e.contains("people[0].keys holds 100 keys; at most 99"),
            "{e}"
        );
        // 100 people of 99 keys of 200 characters: more keys than a story's
        // lore may hold.
        let mut v = sample();
        let keys: Vec<String> = (0..99)
            .map(|i| format!("{i:03}{}", "k".repeat(197)))
            .collect();
        let people: Vec<serde_json::Value> = (0..100)
            .map(|i| json!({"name": format!("P{i}"), "description": "Someone.", "keys": keys}))
            .collect();
        v["people"] = json!(people);
        let e = check(v).unwrap_err().to_string();
        assert!(
            e.contains("people and lore together (its entries' keys together)")
                && e.contains("at most 131072"),
            "{e}"
        );
    }
}
