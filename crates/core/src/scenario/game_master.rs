//! What a scenario tells the game master (docs/game-master.md, "In a
//! scenario"): its threads, its starting tension, its genre and its own
//! event and consequence tables; and the table a story starts with, built
//! from them and from the scenario's people. The table's wire form is
//! `narratoria_protocol::table`, which the game master's script reads.

use narratoria_protocol::table::{
    Attitude, Scene, Someone, Table, Tables, Thread, ATTITUDES, GENRES, START_TENSION, TENSION,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::limits::{MAX_NAMED, NAME_CHARS, TEXT_CHARS};
use super::model::{Person, Scenario};
use super::ScenarioError;

/// The most steps a thread may take to come to a head.
pub const MAX_STEPS: u32 = 20;
/// The steps a thread takes when its scenario does not say.
pub const DEFAULT_STEPS: u32 = 4;
/// The most lines in one of a scenario's tables.
pub const MAX_TABLE_LINES: usize = 100;

/// A thread of the story as its scenario declares it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ThreadSetup {
    pub title: String,
    /// Successes it takes to come to a head (1–20; 4 when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps: Option<u32>,
}

/// How the game master runs this scenario's table.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GameMasterSetup {
    /// Tension at the start (1 calm – 9 everything going wrong; 5 when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tension: Option<u8>,
    /// Whose shipped tables to draw from (`any`, `mystery`,
    /// `science-fiction`, `western`, `fantasy`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub genre: Option<String>,
    /// The scenario's own tables; each list given replaces the genre's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tables: Option<Tables>,
}

/// Refuses a scenario's game-master part the game master could not use:
/// blank or long thread titles, steps or tension off their scale, an
/// unknown genre or attitude, tables past their bounds or a pressure that
/// does not name its `{thread}`.
pub fn check(scenario: &Scenario) -> Result<(), ScenarioError> {
    let bad = |m: String| Err(ScenarioError::Invalid(m));
    if scenario.threads.len() > MAX_NAMED {
        return bad(format!(
            "threads has {} entries; at most {MAX_NAMED}",
            scenario.threads.len()
        ));
    }
    for (i, t) in scenario.threads.iter().enumerate() {
        text(&format!("threads[{i}].title"), &t.title, NAME_CHARS, true)?;
        if let Some(steps) = t.steps.filter(|s| !(1..=MAX_STEPS).contains(s)) {
            return bad(format!(
                "threads[{i}].steps {steps} must be between 1 and {MAX_STEPS}"
            ));
        }
    }
    for (i, p) in scenario.people.iter().enumerate() {
        text(&format!("people[{i}].wants"), &p.wants, TEXT_CHARS, false)?;
        if let Some(a) = p.attitude.as_deref().filter(|a| !ATTITUDES.contains(a)) {
            return bad(format!(
                "people[{i}].attitude {a:?} must be one of {}",
                ATTITUDES.join(", ")
            ));
        }
    }
    let Some(gm) = &scenario.game_master else {
        return Ok(());
    };
    if let Some(t) = gm.tension.filter(|t| !TENSION.contains(t)) {
        return bad(format!("gameMaster.tension {t} must be between 1 and 9"));
    }
    if let Some(g) = gm.genre.as_deref().filter(|g| !GENRES.contains(g)) {
        return bad(format!(
            "gameMaster.genre {g:?} must be one of {}",
            GENRES.join(", ")
        ));
    }
    if let Some(tables) = &gm.tables {
        for (name, lines) in [
            ("complications.minor", &tables.complications.minor),
            ("complications.serious", &tables.complications.serious),
            ("pressures", &tables.pressures),
            ("events", &tables.events),
            ("actions", &tables.actions),
            ("subjects", &tables.subjects),
        ] {
            let at = format!("gameMaster.tables.{name}");
            if lines.len() > MAX_TABLE_LINES {
                return bad(format!(
                    "{at} has {} lines; at most {MAX_TABLE_LINES}",
                    lines.len()
                ));
            }
            for (i, line) in lines.iter().enumerate() {
                text(&format!("{at}[{i}]"), line, NAME_CHARS, true)?;
                if name == "pressures" && !line.contains("{thread}") {
                    return bad(format!("{at}[{i}] must name the thread as {{thread}}"));
                }
            }
        }
    }
    Ok(())
}

fn text(field: &str, value: &str, max: usize, required: bool) -> Result<(), ScenarioError> {
    if required && value.trim().is_empty() {
        return Err(ScenarioError::Invalid(format!("{field} is empty")));
    }
    let n = value.chars().count();
    if n > max {
        return Err(ScenarioError::Invalid(format!(
            "{field} has {n} characters; at most {max}"
        )));
    }
    Ok(())
}

/// The table a story of `scenario` starts with (`state.gm`): its tension,
/// scene 1 at its location with the people it marks present and its first
/// thread as its goal, its threads
/// (or, when it names none, one: its title), and its people with what they
/// want and how they regard the player.
pub fn initial_table(scenario: &Scenario) -> Value {
    let setup = scenario.game_master.clone().unwrap_or_default();
    let threads: Vec<Thread> = match scenario.threads.is_empty() {
        true => vec![Thread {
            title: scenario.title.trim().to_string(),
            steps: DEFAULT_STEPS + 2,
            ..Thread::default()
        }],
        false => scenario
            .threads
            .iter()
            .map(|t| Thread {
                title: t.title.trim().to_string(),
                steps: t.steps.unwrap_or(DEFAULT_STEPS),
                ..Thread::default()
            })
            .collect(),
    };
    let people: Vec<Someone> = scenario
        .people
        .iter()
        .map(|p| Someone {
            name: p.name.trim().to_string(),
            keys: p.keys.clone(),
            wants: wants_of(p),
            attitude: attitude_of(p.attitude.as_deref()),
            met: p.present,
        })
        .collect();
    let present = people
        .iter()
        .filter(|p| p.met)
        .map(|p| p.name.clone())
        .collect();
    let table = Table {
        tension: setup.tension.unwrap_or(START_TENSION),
        scene: Scene {
            number: 1,
            turns: 0,
            place: scenario.location.trim().to_string(),
            present,
            // The first scene is after the story's first thread.
            goal: threads[0].title.clone(),
        },
        threads,
        people,
        facts: Vec::new(),
        genre: setup.genre,
        tables: setup.tables,
    };
    serde_json::to_value(table).expect("a table serialises")
}

/// The attitude a scenario names ([`check`] refused any other word);
/// neutral when it names none.
fn attitude_of(word: Option<&str>) -> Attitude {
    word.and_then(|w| serde_json::from_value(Value::String(w.to_string())).ok())
        .unwrap_or(Attitude::Neutral)
}

/// What `person` wants: as the scenario says, else read from a sentence of
/// their description that says it ("She wants to take the claim and
/// leave." → "to take the claim and leave"), else nothing.
fn wants_of(person: &Person) -> String {
    if !person.wants.trim().is_empty() {
        return person.wants.trim().trim_end_matches('.').to_string();
    }
    narratoria_lexicon::sentences_of(&person.description)
        .into_iter()
        .find_map(|s| {
            let (_, after) = s.split_once(" wants ")?;
            Some(after.trim().trim_end_matches(['.', '!']).to_string())
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn scenario(extra: Value) -> Result<Scenario, ScenarioError> {
        let mut v = json!({
            "title": "The Quiet on Tithonus Station",
            "premise": "A station stopped transmitting.",
            "location": "Docking ring C",
            "player": {"name": "Sam Okafor"},
            "people": [{"name": "Dee Marchetti", "description": "The pilot. She wants to take the claim and leave.", "present": true, "attitude": "friendly"}]
        });
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        Scenario::from_json(&v.to_string())
    }

    #[test]
    fn a_scenario_without_game_master_fields_starts_from_its_people_and_title() {
        let s = scenario(json!({})).unwrap();
        let t = initial_table(&s);
        assert_eq!(t["tension"], 5);
        assert_eq!(t["threads"][0]["title"], "The Quiet on Tithonus Station");
        assert_eq!(t["people"][0]["wants"], "to take the claim and leave");
        assert_eq!(t["people"][0]["attitude"], "friendly");
        assert_eq!(t["scene"]["present"], json!(["Dee Marchetti"]));
        assert_eq!(t["scene"]["where"], "Docking ring C");
    }

    #[test]
    fn a_scenario_brings_its_threads_tension_and_tables() {
        let s = scenario(json!({
            "threads": [{"title": "The countdown", "steps": 3}, {"title": "Who is aboard"}],
            "gameMaster": {"tension": 7, "genre": "science-fiction",
                           "tables": {"events": ["The lights flicker"], "pressures": ["{thread} gets worse."]}}
        }))
        .unwrap();
        let t = initial_table(&s);
        assert_eq!(t["tension"], 7);
        assert_eq!(t["scene"]["goal"], "The countdown", "the first thread");
        assert_eq!(t["genre"], "science-fiction");
        assert_eq!(
            t["threads"][1],
            json!({"title": "Who is aboard", "progress": 0, "steps": DEFAULT_STEPS, "closed": false})
        );
        assert_eq!(t["tables"]["events"], json!(["The lights flicker"]));
    }

    #[test]
    fn a_bad_game_master_part_is_refused_with_its_field_named() {
        for (extra, field) in [
            (json!({"threads": [{"title": " "}]}), "threads[0].title"),
            (
                json!({"threads": [{"title": "x", "steps": 0}]}),
                "threads[0].steps",
            ),
            (json!({"gameMaster": {"tension": 12}}), "gameMaster.tension"),
            (
                json!({"gameMaster": {"genre": "opera"}}),
                "gameMaster.genre",
            ),
            (
                json!({"gameMaster": {"tables": {"pressures": ["no thread"]}}}),
                "gameMaster.tables.pressures[0]",
            ),
            (
                json!({"gameMaster": {"tables": {"weather": []}}}),
                "weather",
            ),
        ] {
            let e = scenario(extra).unwrap_err().to_string();
            assert!(e.contains(field), "{e}");
        }
        let mut v = json!({"title": "t", "premise": "p", "player": {"name": "n"},
                           "people": [{"name": "a", "description": "d", "attitude": "smitten"}]});
        let e = Scenario::from_json(&v.to_string()).unwrap_err().to_string();
        assert!(e.contains("people[0].attitude"), "{e}");
        v["people"][0]["attitude"] = json!("wary");
        assert!(Scenario::from_json(&v.to_string()).is_ok());
    }
}
