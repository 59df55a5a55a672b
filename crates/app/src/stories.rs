//! Starting stories from scenarios and character cards, and adding cards
//! and lorebooks to stories and scenarios (docs/scenarios.md). Plain
//! functions over a session store and the user's scenarios folder, which
//! the terminal command calls directly and [`App`] calls with its own.

use std::path::{Path, PathBuf};

use narratoria_core::error::ErrorCode;
use narratoria_core::fs::ReadError;
use narratoria_core::scenario::library::{self, ScenarioSummary, Unreadable};
use narratoria_core::scenario::{
    builtin, initial_state, parse_lorebook, start, CardRole, CharacterCard, Lorebook, Scenario,
    ScenarioError,
};
use narratoria_core::store::{NewTurn, Store};
use narratoria_core::sync;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::{App, AppError, SessionView};

/// The user's own scenarios: `<user data>/scenarios`.
pub fn scenarios_dir() -> PathBuf {
    narratoria_core::paths::user_data_dir().join("scenarios")
}

impl From<ScenarioError> for AppError {
    fn from(e: ScenarioError) -> Self {
        AppError::new(e.code(), e.to_string())
    }
}

/// The scenarios a player can start from, and saved files that are broken.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScenarioList {
    pub scenarios: Vec<ScenarioSummary>,
    pub unreadable: Vec<Unreadable>,
}

/// What importing a card did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CardImport {
    pub card: CharacterCard,
    pub role: CardRole,
    /// The story it was added to or started, if any.
    pub session: Option<String>,
}

/// What importing a lorebook did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LoreImport {
    pub name: Option<String>,
    pub entries: usize,
    /// Entries left out, and why.
    pub skipped: Vec<String>,
    /// The story it was added to, if any.
    pub session: Option<String>,
    /// The scenario file it was saved into, if any.
    pub scenario_file: Option<PathBuf>,
}

/// Where a lorebook goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoreTarget {
    /// Checked only.
    Nowhere,
    /// A story, from its next turn on.
    Session(String),
    /// A scenario (a built-in one is copied to the user's folder first).
    Scenario(String),
}

/// Every scenario in `dir` and built in.
pub fn list_scenarios(dir: &Path) -> ScenarioList {
    let (scenarios, unreadable) = library::list(dir);
    ScenarioList {
        scenarios,
        unreadable,
    }
}

/// Starts a story from the scenario called `name` (saved in `dir` or built
/// in); returns the new session's id.
pub fn start_story(store: &mut Store, dir: &Path, name: &str) -> Result<String, AppError> {
    let scenario = library::find(dir, name)?;
    start_from(store, &scenario)
}

/// Starts a story from `scenario`, told in the scenario's language when it
/// names one; returns the new session's id.
pub fn start_from(store: &mut Store, scenario: &Scenario) -> Result<String, AppError> {
    Ok(store.create_story(
        &scenario.title,
        &initial_state(scenario),
        scenario.language.as_ref(),
    )?)
}

/// Reads a character card file (PNG or JSON); the problem is named when it is not one.
pub fn read_card(path: &Path) -> Result<CharacterCard, AppError> {
    Ok(CharacterCard::from_bytes(&read_limited(
        path,
        ErrorCode::CardInvalid,
    )?)?)
}

/// Reads a lorebook file (world info, character book or Narratoria lore).
pub fn read_lorebook(path: &Path) -> Result<Lorebook, AppError> {
    Ok(parse_lorebook(&read_limited(
        path,
        ErrorCode::LoreInvalid,
    )?)?)
}

/// Adds `card` to a story as `role`. The addition is a step of the story's
/// history (rewinding before it takes it out): its narrative is the card's
/// greeting, or a line saying who joined.
pub fn add_card(
    store: &mut Store,
    session: &str,
    card: &CharacterCard,
    role: CardRole,
) -> Result<(), AppError> {
    let state = store.current_state(session)?;
    let after = start::with_card(&state, card, role)?;
    let player = start::player_name(&after);
    let greeting = card.fill(&card.first_mes, &player);
    let narrative = match role {
        CardRole::Player => format!("You are now {}.", card.name),
        CardRole::Npc if greeting.is_empty() => format!("{} joins the story.", card.name),
        CardRole::Npc => greeting,
    };
    let input = format!("/card {} ({})", card.name, role_word(role));
    record(store, session, input, narrative, after)
}

/// Adds a lorebook's entries to a story, as a step of its history.
pub fn add_lore(store: &mut Store, session: &str, book: &Lorebook) -> Result<(), AppError> {
    let state = store.current_state(session)?;
    let after = start::with_lore(&state, &book.entries)?;
    let name = book.name.as_deref().unwrap_or("a lorebook");
    let input = format!("/lore {name}");
    let narrative = format!(
        "The narrator now knows {} entr{} of lore from {name}.",
        book.entries.len(),
        if book.entries.len() == 1 { "y" } else { "ies" }
    );
    record(store, session, input, narrative, after)
}

/// Adds a lorebook's entries to the scenario called `name`, saving it in
/// `dir` (a built-in scenario is copied there first); returns the file.
pub fn add_lore_to_scenario(dir: &Path, name: &str, book: &Lorebook) -> Result<PathBuf, AppError> {
    let mut scenario = library::find(dir, name)?;
    for e in &book.entries {
        if !scenario
            .lore
            .iter()
            .any(|l| l.name == e.name && l.content == e.content)
        {
            scenario.lore.push(e.clone());
        }
    }
    scenario.name = name.to_string();
    scenario
        .check()
        .map_err(|e| AppError::new(ErrorCode::LoreInvalid, e.to_string()))?;
    Ok(library::save(dir, &scenario)?)
}

/// Saves a new scenario called `name` in `dir`: read from `from` (a
/// scenario file, or a character card, whose character the player meets),
/// or else a starter an author fills in. Refuses to replace a saved one.
pub fn new_scenario(dir: &Path, name: &str, from: Option<&Path>) -> Result<PathBuf, AppError> {
    library::check_name_free(dir, name)?;
    let mut scenario = match from {
        None => builtin::starter(),
        Some(path) => scenario_or_card(path, name)?,
    };
    scenario.name = name.to_string();
    Ok(library::save(dir, &scenario)?)
}

/// A scenario file's or a character card's scenario, by what the file holds.
fn scenario_or_card(path: &Path, name: &str) -> Result<Scenario, AppError> {
    let bytes = read_limited(path, ErrorCode::ScenarioInvalid)?;
    // An object with a scenario's fields and none of a card's is read as a
    // scenario, so a missing field is named as the scenario's.
    let looks_like_scenario = serde_json::from_slice::<Map<String, Value>>(
        narratoria_core::scenario::without_bom(&bytes),
    )
    .map(|m| {
        let scenario = ["premise", "player", "title"]
            .iter()
            .any(|k| m.contains_key(*k));
        let card = ["spec", "data", "first_mes", "char_name"]
            .iter()
            .any(|k| m.contains_key(*k));
        scenario && !card
    })
    .unwrap_or(false);
    if looks_like_scenario {
        let text = String::from_utf8_lossy(&bytes);
        return Scenario::from_json(&text)
            .map_err(|e| AppError::new(e.code(), format!("{}: {e}", path.display())));
    }
    let card = CharacterCard::from_bytes(&bytes).map_err(|e| {
        AppError::new(
            ErrorCode::ScenarioInvalid,
            format!(
                "{}: neither a scenario nor a character card ({e})",
                path.display()
            ),
        )
    })?;
    Ok(card.to_scenario(name, CardRole::Npc))
}

fn record(
    store: &mut Store,
    session: &str,
    input: String,
    narrative: String,
    state_after: Map<String, Value>,
) -> Result<(), AppError> {
    store.commit_turn(
        session,
        &NewTurn {
            input,
            narrative,
            fallback: false,
            state_after,
            duration_ms: 0,
            attempts: Vec::new(),
            trace: None,
        },
    )?;
    Ok(())
}

fn role_word(role: CardRole) -> &'static str {
    match role {
        CardRole::Player => "player",
        CardRole::Npc => "npc",
    }
}

/// A file's bytes, refusing one over 5 MiB, or one that is not a regular
/// file, without reading it ([`narratoria_core::fs::read_regular`]).
fn read_limited(path: &Path, code: ErrorCode) -> Result<Vec<u8>, AppError> {
    const MAX: u64 = 5 * 1024 * 1024;
    narratoria_core::fs::read_regular(path, MAX).map_err(|e| match e {
        ReadError::Io(e) => AppError::new(ErrorCode::Io, format!("{}: {e}", path.display())),
        ReadError::NotRegular { .. } => {
            AppError::new(code, format!("{} is not a file", path.display()))
        }
        ReadError::TooLarge { size, .. } => AppError::new(
            code,
            format!(
                "{} is {size} bytes; files of at most {MAX} bytes (5 MiB) are read",
                path.display()
            ),
        ),
    })
}

impl App {
    /// The scenarios a player can start from.
    pub fn scenarios(&self) -> ScenarioList {
        list_scenarios(&scenarios_dir())
    }

    /// Starts a story from a scenario and makes it current; with no name,
    /// from the built-in scenario offered first.
    pub fn new_story(&self, scenario: Option<&str>) -> Result<SessionView, AppError> {
        let name = scenario.unwrap_or(builtin::DEFAULT);
        let id = start_story(&mut sync::lock(&self.store), &scenarios_dir(), name)?;
        self.open_session(&id)
    }

    /// Imports a character card: into a new story built around it (`None`),
    /// or into the given story.
    pub fn import_card(
        &self,
        path: &Path,
        role: CardRole,
        session: Option<&str>,
    ) -> Result<(CardImport, SessionView), AppError> {
        let card = read_card(path)?;
        let id = match session {
            Some(id) => {
                add_card(&mut sync::lock(&self.store), id, &card, role)?;
                id.to_string()
            }
            None => {
                let name = slug(&card.name);
                start_from(&mut sync::lock(&self.store), &card.to_scenario(&name, role))?
            }
        };
        let view = self.open_session(&id)?;
        Ok((
            CardImport {
                card,
                role,
                session: Some(id),
            },
            view,
        ))
    }

    /// Imports a lorebook into a story or a scenario (or only checks it).
    pub fn import_lore(&self, path: &Path, target: &LoreTarget) -> Result<LoreImport, AppError> {
        let book = read_lorebook(path)?;
        let mut done = LoreImport {
            name: book.name.clone(),
            entries: book.entries.len(),
            skipped: book.skipped.clone(),
            session: None,
            scenario_file: None,
        };
        match target {
            LoreTarget::Nowhere => {}
            LoreTarget::Session(id) => {
                add_lore(&mut sync::lock(&self.store), id, &book)?;
                done.session = Some(id.clone());
            }
            LoreTarget::Scenario(name) => {
                done.scenario_file = Some(add_lore_to_scenario(&scenarios_dir(), name, &book)?);
            }
        }
        Ok(done)
    }
}

/// A scenario name from a character's name: `Mara Vell` → `mara-vell`.
pub fn slug(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-');
    let out: String = out.chars().take(64).collect();
    if out.is_empty() {
        "card".into()
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use narratoria_core::scenario::start::lore_in;

    fn store(dir: &Path) -> Store {
        Store::open(&dir.join("s.db")).unwrap()
    }

    #[test]
    fn a_story_starts_from_a_built_in_scenario() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = store(dir.path());
        let id = start_story(&mut store, &dir.path().join("scenarios"), "tithonus").unwrap();
        let state = store.current_state(&id).unwrap();
        assert_eq!(state["scenario"]["name"], "tithonus");
        assert!(state["reputation"]["salvage-guild"]["score"].is_i64());
        assert_eq!(
            store.session(&id).unwrap().title,
            "The Quiet on Tithonus Station"
        );
        let missing = start_story(&mut store, dir.path(), "nowhere").unwrap_err();
        assert_eq!(missing.code, ErrorCode::ScenarioNotFound);
    }

    #[test]
    fn cards_and_lore_join_a_story_as_steps_of_its_history() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = store(dir.path());
        let id = start_story(&mut store, dir.path(), "ashford").unwrap();
        let card = CharacterCard::from_json(
            br#"{"name": "Old Tom", "description": "A ferryman.", "first_mes": "Fare's a copper, {{user}}."}"#,
        )
        .unwrap();
        add_card(&mut store, &id, &card, CardRole::Npc).unwrap();
        let turns = store.turns(&id).unwrap();
        assert_eq!(turns.len(), 1);
        assert_eq!(turns[0].input, "/card Old Tom (npc)");
        assert_eq!(turns[0].narrative, "Fare's a copper, Wren Ashdown.");
        let lore_file = dir.path().join("book.json");
        std::fs::write(
            &lore_file,
            r#"{"name": "River lore", "entries": {"0": {"key": ["eel"], "content": "Eels swarm in spring."}}}"#,
        )
        .unwrap();
        let book = read_lorebook(&lore_file).unwrap();
        add_lore(&mut store, &id, &book).unwrap();
        let lore = lore_in(&store.current_state(&id).unwrap());
        assert!(lore.iter().any(|e| e.name == "Old Tom"));
        assert!(lore.iter().any(|e| e.name == "eel"));
        let no_file = read_card(&dir.path().join("nope.png")).unwrap_err();
        assert_eq!(no_file.code, ErrorCode::Io);
        assert_eq!(
            read_card(&lore_file).unwrap_err().code,
            ErrorCode::CardInvalid
        );
    }

    /// A scenario file missing a required field is told which, not called
    /// "neither a scenario nor a character card"; a byte-order mark at its
    /// start is passed over.
    #[test]
    fn a_scenario_file_is_judged_as_a_scenario() {
        let dir = tempfile::tempdir().unwrap();
        let scenarios = dir.path().join("scenarios");
        let no_premise = dir.path().join("no-premise.json");
        std::fs::write(
            &no_premise,
            r#"{"title": "The Ferry", "player": {"name": "Wren"}}"#,
        )
        .unwrap();
        let e = new_scenario(&scenarios, "ferry", Some(&no_premise)).unwrap_err();
        assert_eq!(e.code, ErrorCode::ScenarioInvalid);
        assert!(e.message.contains("premise"), "{}", e.message);
        assert!(!e.message.contains("neither"), "{}", e.message);
        let no_player = dir.path().join("no-player.json");
        std::fs::write(
            &no_player,
            r#"{"title": "The Ferry", "premise": "A river at night."}"#,
        )
        .unwrap();
        let e = new_scenario(&scenarios, "ferry", Some(&no_player)).unwrap_err();
        assert!(e.message.contains("player"), "{}", e.message);
        assert!(!e.message.contains("neither"), "{}", e.message);
        let bom = dir.path().join("bom.json");
        std::fs::write(
            &bom,
            "\u{feff}{\"title\": \"The Ferry\", \"premise\": \"A river at night.\", \"player\": {\"name\": \"Wren\"}}",
        )
        .unwrap();
        let saved = new_scenario(&scenarios, "ferry", Some(&bom)).unwrap();
        assert_eq!(library::read_file(&saved).unwrap().title, "The Ferry");
    }

    #[test]
    fn new_scenarios_come_from_a_starter_a_file_or_a_card() {
        let dir = tempfile::tempdir().unwrap();
        let scenarios = dir.path().join("scenarios");
        let path = new_scenario(&scenarios, "my-story", None).unwrap();
        assert!(library::read_file(&path).is_ok());
        assert!(new_scenario(&scenarios, "my-story", None).is_err());
        let card = dir.path().join("tom.json");
        std::fs::write(
            &card,
            r#"{"name": "Old Tom", "description": "A ferryman."}"#,
        )
        .unwrap();
        let from_card = new_scenario(&scenarios, "tom", Some(&card)).unwrap();
        assert_eq!(
            library::read_file(&from_card).unwrap().people[0].name,
            "Old Tom"
        );
        let copied = new_scenario(&scenarios, "copy", Some(&path)).unwrap();
        assert_eq!(library::read_file(&copied).unwrap().name, "copy");
        let book = Lorebook {
            name: None,
            entries: vec![narratoria_core::scenario::LoreEntry::new(
                "eel",
                &["eel"],
                "Eels.",
            )],
            skipped: Vec::new(),
        };
        let saved = add_lore_to_scenario(&scenarios, "ashford", &book).unwrap();
        assert!(saved.ends_with("ashford.json"));
        let listed = list_scenarios(&scenarios);
        assert_eq!(
            listed
                .scenarios
                .iter()
                .filter(|s| s.name == "ashford")
                .count(),
            1
        );
        assert_eq!(slug("Mara Vell!"), "mara-vell");
        assert_eq!(slug("???"), "card");
    }
}
