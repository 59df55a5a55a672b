//! The game master's table as the player reads and changes it
//! (docs/game-master.md, "The player at the table"): the scene, the
//! threads, the people met and the facts kept, read from the story's
//! current state; a thread closed, reopened or renamed, a fact pinned or
//! unpinned, kept with the current branch's head turn so that it rewinds
//! and branches with the story.

use narratoria_core::error::ErrorCode;
use narratoria_core::protocol::table::Table;
use narratoria_core::sync;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use ts_rs::TS;

use crate::{App, AppError};

/// The most characters of a thread's title the player gives.
pub const THREAD_TITLE_CHARS: usize = 200;
/// The most characters of a fact the player pins.
pub const FACT_CHARS: usize = 500;

/// The story's table, as the panel and `/threads`, `/people`, `/facts`
/// show it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
pub struct StoryTable {
    /// 1 (calm) to 9 (everything going wrong); 0 when the story has no
    /// game master's table yet.
    pub tension: u8,
    pub scene: SceneShown,
    pub threads: Vec<ThreadShown>,
    pub people: Vec<PersonShown>,
    pub facts: Vec<FactShown>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
pub struct SceneShown {
    pub number: u32,
    #[serde(rename = "where")]
    pub place: String,
    pub present: Vec<String>,
    pub goal: String,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
pub struct ThreadShown {
    pub title: String,
    pub progress: u32,
    pub steps: u32,
    pub closed: bool,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
pub struct PersonShown {
    pub name: String,
    pub wants: String,
    pub attitude: String,
    pub met: bool,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
pub struct FactShown {
    pub text: String,
    pub pinned: bool,
}

/// A change the player makes at the table. Threads and facts are numbered
/// from 1, as the table lists them.
#[derive(Debug, Clone, PartialEq, Deserialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum TableChange {
    CloseThread { thread: usize },
    ReopenThread { thread: usize },
    RenameThread { thread: usize, title: String },
    AddThread { title: String },
    PinFact { text: String },
    UnpinFact { fact: usize },
}

impl StoryTable {
    /// The table in `state` (`gm`, read as `narratoria_protocol::table`):
    /// empty (tension 0) when the story has none; `state_invalid` when it
    /// does not read.
    pub fn of_state(state: &Map<String, Value>) -> Result<StoryTable, AppError> {
        match state.get("gm") {
            None | Some(Value::Null) => Ok(StoryTable::default()),
            Some(gm) => serde_json::from_value::<Table>(gm.clone())
                .map(|t| StoryTable::from(&t))
                .map_err(|e| {
                    AppError::new(
                        ErrorCode::StateInvalid,
                        format!("the game master's table does not read: {e}"),
                    )
                }),
        }
    }
}

impl From<&Table> for StoryTable {
    fn from(t: &Table) -> StoryTable {
        StoryTable {
            tension: t.tension,
            scene: SceneShown {
                number: t.scene.number,
                place: t.scene.place.clone(),
                present: t.scene.present.clone(),
                goal: t.scene.goal.clone(),
            },
            threads: t
                .threads
                .iter()
                .map(|th| ThreadShown {
                    title: th.title.clone(),
                    progress: th.progress,
                    steps: th.steps,
                    closed: th.closed,
                })
                .collect(),
            people: t
                .people
                .iter()
                .map(|p| PersonShown {
                    name: p.name.clone(),
                    wants: p.wants.clone(),
                    attitude: p.attitude.in_words().to_string(),
                    met: p.met,
                })
                .collect(),
            facts: t
                .facts
                .iter()
                .map(|f| FactShown {
                    text: f.text.clone(),
                    pinned: f.pinned,
                })
                .collect(),
        }
    }
}

impl App {
    /// The current branch's table of story `session`.
    pub fn story_table(&self, session: &str) -> Result<StoryTable, AppError> {
        let state = sync::lock(&self.store).current_state(session)?;
        StoryTable::of_state(&state)
    }

    /// Makes `change` at the table of story `session` and returns the table
    /// after it. Promises: `thread_not_found` for a thread or fact number
    /// the table does not have, `table_text_invalid` for an empty title or
    /// fact or one past [`THREAD_TITLE_CHARS`] / [`FACT_CHARS`]; a refused
    /// change leaves the story as it was.
    pub fn change_table(
        &self,
        session: &str,
        change: &TableChange,
    ) -> Result<StoryTable, AppError> {
        let amended = sync::lock(&self.store).amend_state(session, |state| apply(state, change))?;
        StoryTable::of_state(&amended?)
    }
}

/// `change` made to the `gm` table of `state` (created when missing).
fn apply(state: &mut Map<String, Value>, change: &TableChange) -> Result<(), AppError> {
    let gm = state.entry("gm").or_insert_with(|| json!({}));
    if !gm.is_object() {
        return Err(AppError::new(
            ErrorCode::StateInvalid,
            "the game master's table is not an object",
        ));
    }
    let list = |gm: &mut Value, key: &str| -> Vec<Value> {
        gm.get(key)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    match change {
        TableChange::CloseThread { thread } | TableChange::ReopenThread { thread } => {
            let mut threads = list(gm, "threads");
            let t = nth(&mut threads, *thread, "thread")?;
            t["closed"] = json!(matches!(change, TableChange::CloseThread { .. }));
            gm["threads"] = Value::Array(threads);
        }
        TableChange::RenameThread { thread, title } => {
            let title = text(title, THREAD_TITLE_CHARS, "a thread's title")?;
            let mut threads = list(gm, "threads");
            nth(&mut threads, *thread, "thread")?["title"] = json!(title);
            gm["threads"] = Value::Array(threads);
        }
        TableChange::AddThread { title } => {
            let title = text(title, THREAD_TITLE_CHARS, "a thread's title")?;
            let mut threads = list(gm, "threads");
            threads.push(json!({"title": title, "progress": 0, "steps": 4, "closed": false}));
            gm["threads"] = Value::Array(threads);
        }
        TableChange::PinFact { text: fact } => {
            let fact = text(fact, FACT_CHARS, "a fact")?;
            let mut facts = list(gm, "facts");
            facts.push(json!({"text": fact, "pinned": true}));
            gm["facts"] = Value::Array(facts);
        }
        TableChange::UnpinFact { fact } => {
            let mut facts = list(gm, "facts");
            nth(&mut facts, *fact, "fact")?["pinned"] = json!(false);
            gm["facts"] = Value::Array(facts);
        }
    }
    Ok(())
}

/// The `n`th (from 1) of `items`, an object.
fn nth<'a>(items: &'a mut [Value], n: usize, what: &str) -> Result<&'a mut Value, AppError> {
    let count = items.len();
    n.checked_sub(1)
        .and_then(|i| items.get_mut(i))
        .filter(|v| v.is_object())
        .ok_or_else(|| {
            AppError::new(
                ErrorCode::ThreadNotFound,
                format!("the story has no {what} {n} (it has {count})"),
            )
        })
}

/// `given` trimmed, when it is not empty and within `max` characters.
fn text(given: &str, max: usize, what: &str) -> Result<String, AppError> {
    let t = given.split_whitespace().collect::<Vec<_>>().join(" ");
    let n = t.chars().count();
    if n == 0 || n > max {
        return Err(AppError::new(
            ErrorCode::TableTextInvalid,
            format!("{what} must hold 1 to {max} characters, not {n}"),
        ));
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state() -> Map<String, Value> {
        json!({"gm": {"tension": 6, "threads": [{"title": "The countdown", "steps": 4}],
                      "facts": [{"text": "Whether the hatch is sealed: no."}]}})
        .as_object()
        .unwrap()
        .clone()
    }

    #[test]
    fn the_player_closes_renames_and_adds_threads_and_pins_facts() {
        let mut s = state();
        apply(
            &mut s,
            &TableChange::RenameThread {
                thread: 1,
                title: "  The   voice ".into(),
            },
        )
        .unwrap();
        apply(&mut s, &TableChange::CloseThread { thread: 1 }).unwrap();
        apply(
            &mut s,
            &TableChange::AddThread {
                title: "Dee's debt".into(),
            },
        )
        .unwrap();
        apply(
            &mut s,
            &TableChange::PinFact {
                text: "Dee owes the guild 400 credits.".into(),
            },
        )
        .unwrap();
        apply(&mut s, &TableChange::UnpinFact { fact: 2 }).unwrap();
        apply(
            &mut s,
            &TableChange::PinFact {
                text: "The voice is CALLIOPE's.".into(),
            },
        )
        .unwrap();
        let t = StoryTable::of_state(&s).unwrap();
        assert_eq!(t.tension, 6);
        assert_eq!(t.threads[0].title, "The voice");
        assert!(t.threads[0].closed);
        assert_eq!(t.threads[1].title, "Dee's debt");
        assert_eq!(t.facts.len(), 3);
        assert!(!t.facts[1].pinned && t.facts[2].pinned);
    }

    #[test]
    fn a_change_the_table_cannot_take_is_refused_naming_why() {
        let mut s = state();
        let e = apply(&mut s, &TableChange::CloseThread { thread: 2 }).unwrap_err();
        assert_eq!(e.code, ErrorCode::ThreadNotFound);
        assert!(
            e.message.contains("no thread 2 (it has 1)"),
            "{}",
            e.message
        );
        let e = apply(&mut s, &TableChange::CloseThread { thread: 0 }).unwrap_err();
        assert_eq!(e.code, ErrorCode::ThreadNotFound);
        let e = apply(&mut s, &TableChange::PinFact { text: " ".into() }).unwrap_err();
        assert_eq!(e.code, ErrorCode::TableTextInvalid);
        let long = "x".repeat(FACT_CHARS + 1);
        assert!(apply(&mut s, &TableChange::PinFact { text: long }).is_err());
        assert_eq!(s, state(), "a refused change changes nothing");
        // A story with no table gets one.
        let mut empty = Map::new();
        apply(
            &mut empty,
            &TableChange::AddThread {
                title: "A debt".into(),
            },
        )
        .unwrap();
        assert_eq!(StoryTable::of_state(&empty).unwrap().threads.len(), 1);
    }
}
