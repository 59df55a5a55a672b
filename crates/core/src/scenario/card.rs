//! Character cards as SillyTavern and TavernAI write them: V2
//! (`spec: "chara_card_v2"`, fields under `data`), V3 (`chara_card_v3`,
//! same fields) and V1 (flat), as JSON or inside a PNG whose text chunk
//! `chara` (or `ccv3`) holds the card's JSON in base64 (read by `png_card.rs`).
//!
//! Every field is held to the limits of [`super::limits`], and so is every
//! text the card gives a story once names are filled in: a card that
//! breaks one is refused with the field and the limit named.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::error::Origin;
use super::json::without_bom;
use super::limits::{self, MAX_FILE_BYTES, MAX_NAMED, NAME_CHARS, TEXT_CHARS};
use super::lore::LoreEntry;
use super::model::{Person, PlayerCharacter, Scenario};
use super::png_card;
use super::start::person_entry;
use super::world_info::entries_from;
use super::ScenarioError;

/// The largest card file read, in bytes.
pub const MAX_CARD_BYTES: usize = MAX_FILE_BYTES;
/// Who the player is in a story built around a character they meet.
const TRAVELLER: &str = "Traveller";

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
    /// JSON (a leading byte-order mark passed over). Promises: never
    /// panics; refuses files over 5 MiB, files that are neither PNG nor
    /// JSON, PNGs without a card chunk or whose card chunk inflates past
    /// its limit (no other chunk is inflated), chunks that are not base64
    /// JSON, and what [`CharacterCard::from_json`] refuses, naming the problem.
    pub fn from_bytes(bytes: &[u8]) -> Result<CharacterCard, ScenarioError> {
        if bytes.len() > MAX_CARD_BYTES {
            return Err(bad(format!(
                "the file is {} bytes; cards of at most {MAX_CARD_BYTES} bytes (5 MiB) are read",
                bytes.len()
            )));
        }
        if png_card::is_png(bytes) {
            let json = png_card::card_json_in_png(bytes)?;
            return CharacterCard::from_json(&json);
        }
        let bytes = without_bom(bytes);
        match bytes.iter().find(|b| !b.is_ascii_whitespace()) {
            Some(b'{') => CharacterCard::from_json(bytes),
            None => Err(bad("the file is empty (a character card is a .png or .json file)")),
            Some(b'[' | b'"') => Err(bad(
                "the file is JSON but not an object; a character card is one JSON object",
            )),
            _ => Err(bad(
                "the file is neither a PNG image nor JSON (a character card is a .png or .json file)",
            )),
        }
    }

    /// Reads a card's JSON (V1, V2 or V3). Promises: refuses JSON that is
    /// not a card (a scenario file is told which of its required fields it
    /// lacks), a card without a name, fields of the wrong type, and any
    /// field, list or book past the limits of [`super::limits`] — or
    /// whose texts, once names are filled in, would be — naming the field
    /// and the limit.
    pub fn from_json(bytes: &[u8]) -> Result<CharacterCard, ScenarioError> {
        let value: Value = serde_json::from_slice(without_bom(bytes))
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
            return Err(bad(not_a_card(fields)));
        }
        let text = |key: &str, max: usize| -> Result<String, ScenarioError> {
            let value = text_field(fields, key, at)?;
            limits::chars(Origin::Card, &format!("`{at}{key}`"), &value, max)?;
            Ok(value)
        };
        let name = text_field(fields, "name", at)?;
        limits::chars(
            Origin::Card,
            &format!("`{at}name`"),
            name.trim(),
            NAME_CHARS,
        )?;
        if name.trim().is_empty() {
            return Err(bad(format!("the card has no character name (`{at}name`)")));
        }
        // Fields the story does not keep are held to the same limits.
        for key in [
            "mes_example",
            "creator_notes",
            "system_prompt",
            "post_history_instructions",
        ] {
            if let Some(Value::String(value)) = fields.get(key) {
                limits::chars(Origin::Card, &format!("`{at}{key}`"), value, TEXT_CHARS)?;
            }
        }
        let (lore, lore_skipped) = match fields.get("character_book") {
            None | Some(Value::Null) => (Vec::new(), Vec::new()),
            Some(Value::Object(book)) => match book.get("entries") {
                Some(Value::Array(items)) => {
                    let raw: Vec<&Value> = items.iter().collect();
                    let read = entries_from(&raw, &format!("{at}character_book.entries"))
                        .map_err(|e| e.within(Origin::Card))?;
                    (read.entries, read.skipped)
                }
                None | Some(Value::Null) => (Vec::new(), Vec::new()),
                Some(_) => return Err(bad(format!("`{at}character_book.entries` must be a list"))),
            },
            Some(_) => return Err(bad(format!("`{at}character_book` must be an object"))),
        };
        let card = CharacterCard {
            spec: spec.to_string(),
            name: name.trim().to_string(),
            description: text("description", TEXT_CHARS)?,
            personality: text("personality", TEXT_CHARS)?,
            scenario: text("scenario", TEXT_CHARS)?,
            first_mes: text("first_mes", TEXT_CHARS)?,
            alternate_greetings: text_list(fields, "alternate_greetings", at, TEXT_CHARS)?,
            creator: text("creator", NAME_CHARS)?,
            tags: text_list(fields, "tags", at, NAME_CHARS)?,
            lore,
            lore_skipped,
        };
        // A story built around the card, the character met or played.
        card.check_told(TRAVELLER)?;
        card.check_told(&card.name)?;
        Ok(card)
    }

    /// Refuses the card when a text it gives a story whose player is
    /// called `player` would break the story's limits once `{{user}}` and
    /// `{{char}}` are filled in: the character's description (with their
    /// personality) as the player's or as someone met, the premise, and
    /// the greeting, which is told as a turn's narration (so it fits the
    /// storyteller's input).
    pub fn check_told(&self, player: &str) -> Result<(), ScenarioError> {
        let told = |field: &str, text: &str| match limits::over(text, TEXT_CHARS) {
            Some(size) => Err(ScenarioError::too_large(
                Origin::Card,
                &format!("{field}, with {{{{user}}}} and {{{{char}}}} filled in,"),
                size,
                TEXT_CHARS,
                "characters",
            )),
            None => Ok(()),
        };
        let both = "`description` and `personality` together";
        told(both, &self.as_player().description)?;
        told(both, &person_entry(&self.as_person(player)).content)?;
        told(
            "the premise (`scenario`, else `description`)",
            &self.premise(player),
        )?;
        told("`first_mes`", &self.fill(&self.first_mes, player))
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
            wants: String::new(),
            attitude: None,
            // Someone a card brings in is who the player is with.
            present: true,
        }
    }

    /// The premise of a story built around the card: its situation, else
    /// the character's description, `{{user}}` being `player`.
    fn premise(&self, player: &str) -> String {
        [self.scenario.trim(), self.description.trim()]
            .into_iter()
            .find(|t| !t.is_empty())
            .map(|t| self.fill(t, player))
            .unwrap_or_else(|| format!("A story with {}.", self.name))
    }

    /// A scenario built around the card: the card's situation as the
    /// premise, its greeting as the opening, its book as lore; the
    /// character plays `role` (a traveller stands in as the player when
    /// the character is someone they meet). A card read by
    /// [`CharacterCard::from_json`] gives a scenario that passes
    /// [`Scenario::check`].
    pub fn to_scenario(&self, name: &str, role: CardRole) -> Scenario {
        let player = match role {
            CardRole::Player => self.as_player(),
            CardRole::Npc => PlayerCharacter {
                name: TRAVELLER.into(),
                description: String::new(),
            },
        };
        Scenario {
            name: name.to_string(),
            title: self.name.clone(),
            premise: self.premise(&player.name),
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
            threads: Vec::new(),
            game_master: None,
            language: None,
        }
    }
}

/// Why a flat object with none of a card's fields is not a card; when it
/// has a scenario's fields, which of those a scenario needs it lacks.
fn not_a_card(fields: &Map<String, Value>) -> String {
    const SCENARIO: [&str; 9] = [
        "title", "premise", "player", "setting", "location", "opening", "factions", "people",
        "lore",
    ];
    const REQUIRED: [&str; 3] = ["title", "premise", "player"];
    let Some(has) = SCENARIO.iter().find(|k| fields.contains_key(**k)) else {
        return "not a character card: it has none of the card fields (description, personality, scenario, first_mes)".into();
    };
    let missing: Vec<String> = REQUIRED
        .iter()
        .filter(|k| !fields.contains_key(**k))
        .map(|k| format!("`{k}`"))
        .collect();
    if missing.is_empty() {
        return "this is a scenario file, not a character card".into();
    }
    format!(
        "not a character card, and not a whole scenario either: it has a scenario's `{has}` but no {}, which a scenario needs",
        missing.join(" and no ")
    )
}

fn text_field(fields: &Map<String, Value>, key: &str, at: &str) -> Result<String, ScenarioError> {
    match fields.get(key) {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(_) => Err(bad(format!("`{at}{key}` must be text"))),
    }
}

/// A list of texts: at most [`MAX_NAMED`] of them, each at most `max`
/// characters.
fn text_list(
    fields: &Map<String, Value>,
    key: &str,
    at: &str,
    max: usize,
) -> Result<Vec<String>, ScenarioError> {
    let items = match fields.get(key) {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(_) => return Err(bad(format!("`{at}{key}` must be a list of text"))),
    };
    limits::items(
        Origin::Card,
        &format!("`{at}{key}`"),
        items.len(),
        MAX_NAMED,
        "items",
    )?;
    items
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let text = v
                .as_str()
                .ok_or_else(|| bad(format!("`{at}{key}` must be a list of text")))?;
            limits::chars(Origin::Card, &format!("`{at}{key}[{i}]`"), text, max)?;
            Ok(text.to_string())
        })
        .collect()
}

fn bad(message: impl Into<String>) -> ScenarioError {
    ScenarioError::Card(message.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine;
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
    fn a_file_that_is_not_a_card_is_told_what_it_is() {
        let said = |bytes: &[u8]| CharacterCard::from_bytes(bytes).unwrap_err().to_string();
        assert!(said(b"  \n").contains("the file is empty"), "{}", said(b""));
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        assert!(
            said(deep.as_bytes()).contains("JSON but not an object"),
            "{}",
            said(deep.as_bytes())
        );
        assert!(said(b"GIF89a").contains("neither a PNG image nor JSON"));
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
        assert!(err(b"").contains("the file is empty"));
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

    /// A zlib stream that inflates to `mib` MiB of `A` (one compressed MiB
    /// repeated, then an empty final block and the Adler-32 of the whole).
    fn zlib_bomb(mib: usize) -> Vec<u8> {
        use flate2::{Compress, Compression, FlushCompress};
        const MIB: usize = 1 << 20;
        let mut block = Vec::with_capacity(64 * 1024);
        let mut deflate = Compress::new(Compression::best(), false);
        deflate
            .compress_vec(&vec![b'A'; MIB], &mut block, FlushCompress::Sync)
            .unwrap();
        let mut out = vec![0x78, 0xDA];
        for _ in 0..mib {
            out.extend_from_slice(&block);
        }
        out.extend_from_slice(&[0x03, 0x00]);
        let (n, v, m) = ((mib * MIB) as u128, u128::from(b'A'), 65_521u128);
        let (a, b) = ((1 + n * v) % m, (n + v * (n * (n + 1) / 2)) % m);
        out.extend_from_slice(&(((b << 16) | a) as u32).to_be_bytes());
        out
    }

    /// A 1×1 PNG with these raw chunks (kind, data) before its image data.
    fn png_with_raw(raw: &[(&[u8; 4], Vec<u8>)]) -> Vec<u8> {
        let mut out = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut out, 1, 1);
            enc.set_color(png::ColorType::Rgba);
            enc.set_depth(png::BitDepth::Eight);
            let mut w = enc.write_header().unwrap();
            for (kind, data) in raw {
                w.write_chunk(png::chunk::ChunkType(**kind), data).unwrap();
            }
            w.write_image_data(&[200, 100, 50, 255]).unwrap();
            w.finish().unwrap();
        }
        out
    }

    #[test]
    fn a_compressed_card_chunk_is_inflated_only_up_to_its_limit() {
        let mut chara = b"chara\0\x01\x00\x00\x00".to_vec();
        chara.extend_from_slice(&zlib_bomb(16));
        let err = CharacterCard::from_bytes(&png_with_raw(&[(b"iTXt", chara)]))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("`chara` chunk") && err.contains("8388608 bytes"),
            "{err}"
        );
        let mut ztxt = b"ccv3\0\x00".to_vec();
        ztxt.extend_from_slice(&zlib_bomb(16));
        let err = CharacterCard::from_bytes(&png_with_raw(&[(b"zTXt", ztxt)]))
            .unwrap_err()
            .to_string();
        assert!(err.contains("`ccv3` chunk"), "{err}");
    }

    #[test]
    fn a_card_in_a_compressed_ztxt_chunk_reads() {
        let mut out = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut out, 1, 1);
            enc.set_color(png::ColorType::Rgba);
            enc.set_depth(png::BitDepth::Eight);
            enc.add_ztxt_chunk("chara".into(), b64(&v2())).unwrap();
            let mut w = enc.write_header().unwrap();
            w.write_image_data(&[200, 100, 50, 255]).unwrap();
            w.finish().unwrap();
        }
        assert_eq!(CharacterCard::from_bytes(&out).unwrap().name, "Mara Vell");
    }

    #[test]
    fn a_json_card_may_start_with_a_byte_order_mark() {
        let mut bytes = "\u{feff}".as_bytes().to_vec();
        bytes.extend_from_slice(v2().to_string().as_bytes());
        assert_eq!(CharacterCard::from_bytes(&bytes).unwrap().name, "Mara Vell");
    }

    #[test]
    fn a_scenario_missing_a_required_field_is_told_which() {
        let err = |v: Value| {
            CharacterCard::from_bytes(v.to_string().as_bytes())
                .unwrap_err()
                .to_string()
        };
        let no_premise = json!({"title": "The Mill", "player": {"name": "Ada"}});
        assert!(
            err(no_premise).contains("no `premise`"),
            "{}",
            err(json!({"title": "The Mill", "player": {"name": "Ada"}}))
        );
        let no_player = json!({"title": "The Mill", "premise": "Something grinds."});
        assert!(err(no_player).contains("no `player`"));
    }

    /// `v2()` with `data.<field>` set to `value`.
    fn v2_with(field: &str, value: Value) -> Vec<u8> {
        let mut card = v2();
        card["data"][field] = value;
        card.to_string().into_bytes()
    }

    #[test]
    fn a_greeting_longer_than_the_storyteller_reads_is_refused() {
        let err = CharacterCard::from_bytes(&v2_with("first_mes", json!("a".repeat(8_001))))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("`data.first_mes`") && err.contains("8000"),
            "{err}"
        );
        let card =
            CharacterCard::from_bytes(&v2_with("first_mes", json!("a".repeat(8_000)))).unwrap();
        assert_eq!(
            card.to_scenario("m", CardRole::Npc).opening.chars().count(),
            8_000
        );
        // Names filled in may make a greeting too long for the story it joins.
        let filled = format!("{} {{{{user}}}}", "a".repeat(7_900));
        let card = CharacterCard::from_bytes(&v2_with("first_mes", json!(filled))).unwrap();
        let mut state = serde_json::Map::new();
        state.insert("player".into(), json!({"name": "W".repeat(200)}));
        let err = super::super::start::with_card(&state, &card, CardRole::Npc)
            .unwrap_err()
            .to_string();
        assert!(err.contains("first_mes") && err.contains("8000"), "{err}");
    }

    #[test]
    fn every_card_field_is_bounded_and_the_limit_named() {
        let err = |bytes: Vec<u8>| CharacterCard::from_bytes(&bytes).unwrap_err().to_string();
        let long = |n: usize| json!("x".repeat(n));
        for (field, value, words) in [
            ("name", long(201), "`data.name`"),
            ("description", long(8_001), "`data.description`"),
            ("personality", long(8_001), "`data.personality`"),
            ("scenario", long(8_001), "`data.scenario`"),
            ("mes_example", long(8_001), "`data.mes_example`"),
            ("creator_notes", long(8_001), "`data.creator_notes`"),
            ("creator", long(201), "`data.creator`"),
            (
                "alternate_greetings",
                json!([long(8_001)]),
                "`data.alternate_greetings[0]`",
            ),
            (
                "alternate_greetings",
                json!(vec!["hi"; 101]),
                "`data.alternate_greetings`",
            ),
            ("tags", json!([long(201)]), "`data.tags[0]`"),
        ] {
            let e = err(v2_with(field, value));
            assert!(e.contains(words), "{field}: {e}");
        }
        let mut both = v2();
        both["data"]["description"] = long(5_000);
        both["data"]["personality"] = long(5_000);
        let e = err(both.to_string().into_bytes());
        assert!(
            e.contains("`description` and `personality` together") && e.contains("8000"),
            "{e}"
        );
        let book = json!({"entries": [{"keys": ["k".repeat(201)], "content": "c"}]});
        let e = err(v2_with("character_book", book));
        assert!(
            e.contains("character_book.entries[0].keys[0]") && e.contains("200"),
            "{e}"
        );
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
