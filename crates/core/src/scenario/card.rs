//! Character cards as SillyTavern and TavernAI write them: V2
//! (`spec: "chara_card_v2"`, fields under `data`), V3 (`chara_card_v3`,
//! same fields) and V1 (flat), as JSON or inside a PNG whose tEXt chunk
//! `chara` (or `ccv3`) holds the card's JSON in base64.

use std::io::Cursor;

use base64::Engine;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::lore::LoreEntry;
use super::model::{Person, PlayerCharacter, Scenario};
use super::world_info::entries_from;
use super::ScenarioError;

/// The largest card file read, in bytes.
pub const MAX_CARD_BYTES: usize = 5 * 1024 * 1024;
const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

/// Whom a card's character becomes in the story.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum CardRole {
    /// The player's own character.
    Player,
    /// Someone the player meets.
    #[default]
    Npc,
}

impl std::str::FromStr for CardRole {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "player" => Ok(CardRole::Player),
            "npc" => Ok(CardRole::Npc),
            other => Err(format!("{other:?} is not a role (player or npc)")),
        }
    }
}

/// A character card, its fields as the card has them.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CharacterCard {
    /// `chara_card_v2`, `chara_card_v3`, or `v1` for a flat card.
    pub spec: String,
    pub name: String,
    pub description: String,
    pub personality: String,
    /// The situation the card is written for.
    pub scenario: String,
    /// The character's greeting: the story's opening.
    pub first_mes: String,
    pub alternate_greetings: Vec<String>,
    pub creator: String,
    pub tags: Vec<String>,
    /// The card's embedded `character_book`, as lore entries.
    pub lore: Vec<LoreEntry>,
    /// Lore entries of the book that were left out, and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lore_skipped: Vec<String>,
}

impl CharacterCard {
    /// Reads a card file's bytes: a PNG with a `chara`/`ccv3` chunk, or
    /// JSON. Promises: never panics; refuses files over 5 MiB, files that
    /// are neither PNG nor JSON, PNGs without a card chunk, chunks that are
    /// not base64 JSON, and cards without a name, naming the problem.
    pub fn from_bytes(bytes: &[u8]) -> Result<CharacterCard, ScenarioError> {
        if bytes.len() > MAX_CARD_BYTES {
            return Err(bad(format!(
                "the file is {} bytes; cards of at most {MAX_CARD_BYTES} bytes (5 MiB) are read",
                bytes.len()
            )));
        }
        if bytes.starts_with(PNG_SIGNATURE) {
            let json = card_json_in_png(bytes)?;
            return CharacterCard::from_json(&json);
        }
        match bytes.iter().find(|b| !b.is_ascii_whitespace()) {
            Some(b'{') => CharacterCard::from_json(bytes),
            _ => Err(bad(
                "the file is neither a PNG image nor JSON (a character card is a .png or .json file)",
            )),
        }
    }

    /// Reads a card's JSON (V1, V2 or V3).
    pub fn from_json(bytes: &[u8]) -> Result<CharacterCard, ScenarioError> {
        let value: Value = serde_json::from_slice(bytes)
            .map_err(|e| bad(format!("the card is not valid JSON ({e})")))?;
        let Value::Object(root) = value else {
            return Err(bad("the card must be a JSON object"));
        };
        let spec = root.get("spec").and_then(Value::as_str).unwrap_or("");
        let (fields, at, spec) = match (spec, root.get("data")) {
            ("chara_card_v2" | "chara_card_v3", Some(Value::Object(data))) => (data, "data.", spec),
            ("chara_card_v2" | "chara_card_v3", _) => {
                return Err(bad(format!("a {spec} card needs a `data` object")))
            }
            ("", Some(Value::Object(data))) if data.contains_key("name") => {
                (data, "data.", "chara_card_v2")
            }
            ("", _) => (&root, "", "v1"),
            (other, _) => return Err(bad(format!("unknown card spec {other:?}"))),
        };
        const CARD_FIELDS: [&str; 5] = [
            "description",
            "personality",
            "scenario",
            "first_mes",
            "mes_example",
        ];
        if spec == "v1" && !CARD_FIELDS.iter().any(|k| fields.contains_key(*k)) {
            return Err(bad(
                "not a character card: it has none of the card fields (description, personality, scenario, first_mes)",
            ));
        }
        let text = |key: &str| text_field(fields, key, at);
        let name = text("name")?;
        if name.trim().is_empty() {
            return Err(bad(format!("the card has no character name (`{at}name`)")));
        }
        let (lore, lore_skipped) = match fields.get("character_book") {
            None | Some(Value::Null) => (Vec::new(), Vec::new()),
            Some(Value::Object(book)) => match book.get("entries") {
                Some(Value::Array(items)) => {
                    let raw: Vec<&Value> = items.iter().collect();
                    let read = entries_from(&raw, &format!("{at}character_book.entries"))
                        .map_err(|e| bad(e.to_string().replacen("lorebook: ", "", 1)))?;
                    (read.entries, read.skipped)
                }
                None | Some(Value::Null) => (Vec::new(), Vec::new()),
                Some(_) => return Err(bad(format!("`{at}character_book.entries` must be a list"))),
            },
            Some(_) => return Err(bad(format!("`{at}character_book` must be an object"))),
        };
        Ok(CharacterCard {
            spec: spec.to_string(),
            name: name.trim().to_string(),
            description: text("description")?,
            personality: text("personality")?,
            scenario: text("scenario")?,
            first_mes: text("first_mes")?,
            alternate_greetings: text_list(fields, "alternate_greetings", at)?,
            creator: text("creator")?,
            tags: text_list(fields, "tags", at)?,
            lore,
            lore_skipped,
        })
    }

    /// `text` with the card's placeholders filled in: `{{char}}`/`<BOT>`
    /// become the character's name, `{{user}}`/`<USER>` the player's.
    pub fn fill(&self, text: &str, player: &str) -> String {
        let mut out = text.to_string();
        for (from, to) in [
            ("{{char}}", self.name.as_str()),
            ("{{Char}}", self.name.as_str()),
            ("<BOT>", self.name.as_str()),
            ("{{user}}", player),
            ("{{User}}", player),
            ("<USER>", player),
        ] {
            out = out.replace(from, to);
        }
        out.trim().to_string()
    }

    /// The character as the player's own: name and description (with
    /// their personality).
    pub fn as_player(&self) -> PlayerCharacter {
        let description = [self.description.trim(), self.personality.trim()]
            .iter()
            .filter(|t| !t.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join(" ");
        PlayerCharacter {
            name: self.name.clone(),
            description: self.fill(&description, &self.name),
        }
    }

    /// The character as someone the player meets; `player` fills `{{user}}`.
    pub fn as_person(&self, player: &str) -> Person {
        let mut description = self.description.trim().to_string();
        if !self.personality.trim().is_empty() {
            if !description.is_empty() {
                description.push(' ');
            }
            description.push_str(&format!("Personality: {}", self.personality.trim()));
        }
        if description.is_empty() {
            description = format!("{} is here.", self.name);
        }
        let first = self.name.split_whitespace().next().unwrap_or(&self.name);
        Person {
            name: self.name.clone(),
            description: self.fill(&description, player),
            keys: if first != self.name {
                vec![first.to_string()]
            } else {
                Vec::new()
            },
        }
    }

    /// A scenario built around the card: the card's situation as the
    /// premise, its greeting as the opening, its book as lore; the
    /// character plays `role` (a traveller stands in as the player when
    /// the character is someone they meet).
    pub fn to_scenario(&self, name: &str, role: CardRole) -> Scenario {
        let player = match role {
            CardRole::Player => self.as_player(),
            CardRole::Npc => PlayerCharacter {
                name: "Traveller".into(),
                description: String::new(),
            },
        };
        let premise = [self.scenario.trim(), self.description.trim()]
            .into_iter()
            .find(|t| !t.is_empty())
            .map(|t| self.fill(t, &player.name))
            .unwrap_or_else(|| format!("A story with {}.", self.name));
        Scenario {
            name: name.to_string(),
            title: self.name.clone(),
            premise: clip(&premise, 4000),
            setting: String::new(),
            location: String::new(),
            opening: self.fill(&self.first_mes, &player.name),
            people: match role {
                CardRole::Npc => vec![self.as_person(&player.name)],
                CardRole::Player => Vec::new(),
            },
            player,
            factions: Vec::new(),
            lore: self.lore.clone(),
        }
    }
}

/// The card's JSON in a PNG's `ccv3` (preferred) or `chara` text chunk.
fn card_json_in_png(bytes: &[u8]) -> Result<Vec<u8>, ScenarioError> {
    let decoder = png::Decoder::new(Cursor::new(bytes));
    let mut reader = decoder
        .read_info()
        .map_err(|e| bad(format!("the PNG image cannot be read ({e})")))?;
    // Card chunks usually follow the image data: read to the end.
    reader
        .finish()
        .map_err(|e| bad(format!("the PNG image cannot be read to its end ({e})")))?;
    let info = reader.info();
    let mut texts: Vec<(String, String)> = info
        .uncompressed_latin1_text
        .iter()
        .map(|t| (t.keyword.clone(), t.text.clone()))
        .collect();
    texts.extend(
        info.utf8_text
            .iter()
            .filter_map(|t| t.get_text().ok().map(|text| (t.keyword.clone(), text))),
    );
    let chunk = ["ccv3", "chara"]
        .iter()
        .find_map(|k| texts.iter().find(|(kw, _)| kw.eq_ignore_ascii_case(k)))
        .ok_or_else(|| {
            bad("the PNG has no `chara` text chunk, so it is a picture but not a character card")
        })?;
    let compact: String = chunk.1.chars().filter(|c| !c.is_whitespace()).collect();
    let engine = base64::engine::general_purpose::GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        base64::engine::GeneralPurposeConfig::new()
            .with_decode_padding_mode(base64::engine::DecodePaddingMode::Indifferent),
    );
    engine.decode(compact.as_bytes()).map_err(|e| {
        bad(format!(
            "the PNG's `{}` chunk is not valid base64 ({e})",
            chunk.0
        ))
    })
}

fn text_field(fields: &Map<String, Value>, key: &str, at: &str) -> Result<String, ScenarioError> {
    match fields.get(key) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(bad(format!("`{at}{key}` must be text"))),
    }
}

fn text_list(
    fields: &Map<String, Value>,
    key: &str,
    at: &str,
) -> Result<Vec<String>, ScenarioError> {
    match fields.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_str()
                    .map(String::from)
                    .ok_or_else(|| bad(format!("`{at}{key}` must be a list of text")))
            })
            .collect(),
        Some(_) => Err(bad(format!("`{at}{key}` must be a list of text"))),
    }
}

fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((i, _)) => format!("{}…", &text[..i]),
    }
}

fn bad(message: impl Into<String>) -> ScenarioError {
    ScenarioError::Card(message.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn v2() -> Value {
        json!({
            "spec": "chara_card_v2",
            "spec_version": "2.0",
            "data": {
                "name": "Mara Vell",
                "description": "{{char}} runs the Drowned Lantern.",
                "personality": "shrewd, warm",
                "scenario": "{{user}} arrives at the inn on a stormy night.",
                "first_mes": "*{{char}} looks up.* Wet night, {{user}}?",
                "mes_example": "",
                "creator_notes": "", "system_prompt": "", "post_history_instructions": "",
                "alternate_greetings": ["Back again?"],
                "tags": ["fantasy"], "creator": "someone", "character_version": "1",
                "extensions": {},
                "character_book": {"extensions": {}, "entries": [
                    {"keys": ["ledger"], "content": "Mara's ledger lists every debt in town.",
                     "extensions": {}, "enabled": true, "insertion_order": 5}
                ]}
            }
        })
    }

    /// A 1×1 PNG with these text chunks (keyword, text).
    pub(crate) fn png_with(chunks: &[(&str, &str)]) -> Vec<u8> {
        let mut out = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut out, 1, 1);
            enc.set_color(png::ColorType::Rgba);
            enc.set_depth(png::BitDepth::Eight);
            for (k, t) in chunks {
                enc.add_text_chunk(k.to_string(), t.to_string()).unwrap();
            }
            let mut w = enc.write_header().unwrap();
            w.write_image_data(&[200, 100, 50, 255]).unwrap();
            w.finish().unwrap();
        }
        out
    }

    fn b64(v: &Value) -> String {
        base64::engine::general_purpose::STANDARD.encode(v.to_string())
    }

    #[test]
    fn reads_a_v2_card_from_json_and_png() {
        let card = CharacterCard::from_bytes(v2().to_string().as_bytes()).unwrap();
        assert_eq!(card.spec, "chara_card_v2");
        assert_eq!(card.name, "Mara Vell");
        assert_eq!(card.lore.len(), 1);
        assert_eq!(card.lore[0].order, 5);
        let png = png_with(&[("Title", "x"), ("chara", &b64(&v2()))]);
        assert_eq!(CharacterCard::from_bytes(&png).unwrap(), card);
        assert_eq!(
            card.fill(&card.first_mes, "Wren"),
            "*Mara Vell looks up.* Wet night, Wren?"
        );
    }

    #[test]
    fn reads_v1_and_prefers_ccv3() {
        let v1 = json!({"name": "Old Tom", "description": "A ferryman.", "first_mes": "Fare's a copper."});
        let card = CharacterCard::from_bytes(v1.to_string().as_bytes()).unwrap();
        assert_eq!((card.spec.as_str(), card.name.as_str()), ("v1", "Old Tom"));
        let mut v3 = v2();
        v3["spec"] = json!("chara_card_v3");
        v3["data"]["name"] = json!("Mara (v3)");
        let png = png_with(&[("chara", &b64(&v2())), ("ccv3", &b64(&v3))]);
        assert_eq!(CharacterCard::from_bytes(&png).unwrap().name, "Mara (v3)");
    }

    #[test]
    fn bad_files_name_the_problem() {
        let err = |b: &[u8]| CharacterCard::from_bytes(b).unwrap_err().to_string();
        assert!(err(b"GIF89a....").contains("neither a PNG image nor JSON"));
        assert!(err(b"").contains("neither a PNG image nor JSON"));
        assert!(err(&png_with(&[("Comment", "hello")])).contains("no `chara` text chunk"));
        assert!(err(&png_with(&[("chara", "@@not base64@@")])).contains("not valid base64"));
        let not_json = base64::engine::general_purpose::STANDARD.encode("hello");
        assert!(err(&png_with(&[("chara", &not_json)])).contains("not valid JSON"));
        let mut truncated = png_with(&[("chara", &b64(&v2()))]);
        truncated.truncate(30);
        assert!(err(&truncated).contains("PNG image cannot be read"));
        let mut nameless = v2();
        nameless["data"]["name"] = json!("  ");
        assert!(err(nameless.to_string().as_bytes()).contains("no character name (`data.name`)"));
        assert!(err(br#"{"description": "no name"}"#).contains("no character name (`name`)"));
        assert!(err(br#"{"spec": "chara_card_v2"}"#).contains("needs a `data` object"));
        assert!(err(br#"{"name": "X", "first_mes": 3}"#).contains("`first_mes` must be text"));
        assert!(
            err(br#"{"name": "A lorebook", "entries": {}}"#).contains("none of the card fields")
        );
        assert!(err(b"{ not json").contains("not valid JSON"));
        assert!(err(&vec![b'{'; MAX_CARD_BYTES + 1]).contains("5 MiB"));
    }

    #[test]
    fn a_card_becomes_a_scenario_for_either_role() {
        let card = CharacterCard::from_bytes(v2().to_string().as_bytes()).unwrap();
        let met = card.to_scenario("mara", CardRole::Npc);
        met.check().unwrap();
        assert_eq!(met.player.name, "Traveller");
        assert_eq!(
            met.premise,
            "Traveller arrives at the inn on a stormy night."
        );
        assert_eq!(met.people[0].keys, ["Mara"]);
        assert!(met.people[0]
            .description
            .contains("Mara Vell runs the Drowned Lantern"));
        let played = card.to_scenario("mara-self", CardRole::Player);
        played.check().unwrap();
        assert_eq!(played.player.name, "Mara Vell");
        assert!(played.people.is_empty());
        assert_eq!(played.lore.len(), 1);
    }
}
