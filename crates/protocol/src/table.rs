//! The game master's table as it is kept in a story's state (`state.gm`):
//! tension, the scene, the open threads, the people met and what they want,
//! the facts it settled, and the event and consequence tables a story may
//! bring (docs/game-master.md, "The table"). One definition for the game
//! master's script that writes it, the scenario that starts it and the
//! window and terminal that show it. Every field has a default, so a story
//! saved before the game master, or a table a scenario wrote in part, reads.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The lowest and highest tension (the chaos factor of solo role-play).
pub const TENSION: std::ops::RangeInclusive<u8> = 1..=9;
/// The tension a story starts at when its scenario names none.
pub const START_TENSION: u8 = 5;
/// The most facts a table keeps; the oldest unpinned one goes first.
pub const FACTS_KEPT: usize = 100;
/// The most people and threads a table keeps.
pub const PEOPLE_KEPT: usize = 64;
pub const THREADS_KEPT: usize = 32;

/// The game master's table (docs/game-master.md, "The table").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct Table {
    /// 1 (calm) to 9 (everything is going wrong): rises after failures,
    /// falls after successes; events come more often as it rises.
    pub tension: u8,
    pub scene: Scene,
    pub threads: Vec<Thread>,
    pub people: Vec<Someone>,
    pub facts: Vec<KeptFact>,
    /// The genre whose tables events and complications come from (absent:
    /// the skill's setting).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub genre: Option<String>,
    /// The story's own tables, when its scenario brings them: they take
    /// the place of the genre's, part by part.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tables: Option<Tables>,
}

impl Default for Table {
    fn default() -> Self {
        Table {
            tension: START_TENSION,
            scene: Scene::default(),
            threads: Vec::new(),
            people: Vec::new(),
            facts: Vec::new(),
            genre: None,
            tables: None,
        }
    }
}

/// The scene being played.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct Scene {
    /// 1 for the story's first scene.
    pub number: u32,
    /// Turns played in it.
    pub turns: u32,
    /// Where it is played.
    #[serde(rename = "where")]
    pub place: String,
    /// The names of the people in it with the player.
    pub present: Vec<String>,
    /// What the player is after in it.
    pub goal: String,
}

/// A thread of the story: a mystery, a debt, a promise, a danger.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct Thread {
    pub title: String,
    /// Steps taken towards its end; at [`Thread::steps`] it comes to a head.
    pub progress: u32,
    pub steps: u32,
    /// Closed by the player or come to a head.
    pub closed: bool,
}

impl Default for Thread {
    fn default() -> Self {
        Thread {
            title: String::new(),
            progress: 0,
            steps: 3,
            closed: false,
        }
    }
}

/// Someone in the story besides the player.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct Someone {
    pub name: String,
    /// Other words that name them ("Dee", "the pilot").
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub keys: Vec<String>,
    /// What they want, completing "they want …" ("to take the claim and
    /// leave").
    pub wants: String,
    pub attitude: Attitude,
    /// Whether the player has met them.
    pub met: bool,
}

impl Default for Someone {
    fn default() -> Self {
        Someone {
            name: String::new(),
            keys: Vec::new(),
            wants: String::new(),
            attitude: Attitude::Neutral,
            met: false,
        }
    }
}

/// How someone regards the player.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "camelCase")]
pub enum Attitude {
    Hostile,
    Wary,
    Neutral,
    Friendly,
    Loyal,
}

impl Attitude {
    pub fn in_words(self) -> &'static str {
        match self {
            Attitude::Hostile => "hostile",
            Attitude::Wary => "wary",
            Attitude::Neutral => "neutral",
            Attitude::Friendly => "friendly",
            Attitude::Loyal => "loyal",
        }
    }

    /// One step warmer, at most loyal.
    pub fn warmer(self) -> Attitude {
        match self {
            Attitude::Hostile => Attitude::Wary,
            Attitude::Wary => Attitude::Neutral,
            Attitude::Neutral => Attitude::Friendly,
            Attitude::Friendly | Attitude::Loyal => Attitude::Loyal,
        }
    }

    /// One step colder, at most hostile.
    pub fn colder(self) -> Attitude {
        match self {
            Attitude::Loyal => Attitude::Friendly,
            Attitude::Friendly => Attitude::Neutral,
            Attitude::Neutral => Attitude::Wary,
            Attitude::Wary | Attitude::Hostile => Attitude::Hostile,
        }
    }
}

/// A fact the table keeps: one the oracle settled (with the question it
/// answered) or one the player pinned.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct KeptFact {
    /// The fact in a sentence ("Whether the hatch is sealed: no.").
    pub text: String,
    /// The question it answers, as the player asked it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub question: Option<String>,
    /// The oracle's answer in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    pub pinned: bool,
}

impl Table {
    /// The table in `state` (`gm`); a story without one starts from the
    /// default. A `gm` that does not read as a table is refused.
    pub fn of_state(state: &Value) -> Result<Table, String> {
        match state.get("gm") {
            None | Some(Value::Null) => Ok(Table::default()),
            Some(v) => serde_json::from_value(v.clone())
                .map_err(|e| format!("state.gm does not read as the game master's table: {e}")),
        }
    }

    /// `tension` moved by `by`, within [`TENSION`].
    pub fn tense(&mut self, by: i8) {
        let t = i16::from(self.tension) + i16::from(by);
        self.tension = t.clamp(i16::from(*TENSION.start()), i16::from(*TENSION.end())) as u8;
    }

    /// The open threads.
    pub fn open_threads(&self) -> impl Iterator<Item = (usize, &Thread)> {
        self.threads.iter().enumerate().filter(|(_, t)| !t.closed)
    }

    /// Keeps `fact`, dropping the oldest unpinned fact past [`FACTS_KEPT`].
    pub fn keep(&mut self, fact: KeptFact) {
        self.facts.push(fact);
        while self.facts.len() > FACTS_KEPT {
            match self.facts.iter().position(|f| !f.pinned) {
                Some(i) => self.facts.remove(i),
                None => self.facts.remove(0),
            };
        }
    }

    /// The table within its bounds: tension on the scale, at most
    /// [`PEOPLE_KEPT`] people and [`THREADS_KEPT`] threads.
    pub fn bounded(mut self) -> Table {
        self.tense(0);
        self.people.truncate(PEOPLE_KEPT);
        self.threads.truncate(THREADS_KEPT);
        self
    }
}
/// What a failed check may cost, by how badly it went.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct Complications {
    /// After a failure: a price, a door closing, someone noticing.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub minor: Vec<String>,
    /// After a disaster or a failure at high stakes; still in proportion
    /// (a wound, a loss, an enemy alerted — never the story's end).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub serious: Vec<String>,
}

/// One genre's tables (every list may be empty in a scenario's own).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct Tables {
    #[serde(skip_serializing_if = "Complications::is_empty")]
    pub complications: Complications,
    /// A thread moving without the player: `{thread}` is its title.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pressures: Vec<String>,
    /// What a random event is about (its focus).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<String>,
    /// A random event's meaning: an action and a subject.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub subjects: Vec<String>,
}

impl Complications {
    /// Whether it lists nothing.
    pub fn is_empty(&self) -> bool {
        self.minor.is_empty() && self.serious.is_empty()
    }
}

impl Tables {
    /// These tables with `own`'s non-empty lists in place of theirs.
    pub fn overlaid(mut self, own: Option<&Tables>) -> Tables {
        let Some(own) = own else { return self };
        let take = |mine: &mut Vec<String>, theirs: &Vec<String>| {
            if !theirs.is_empty() {
                mine.clone_from(theirs);
            }
        };
        take(&mut self.complications.minor, &own.complications.minor);
        take(&mut self.complications.serious, &own.complications.serious);
        take(&mut self.pressures, &own.pressures);
        take(&mut self.events, &own.events);
        take(&mut self.actions, &own.actions);
        take(&mut self.subjects, &own.subjects);
        self
    }
}

/// The genres whose tables the built-in game master ships
/// (`skills/game-master/tables/<genre>.json`); `any` for a story of none.
pub const GENRES: [&str; 5] = ["any", "mystery", "science-fiction", "western", "fantasy"];

/// How someone may regard the player, coldest first.
pub const ATTITUDES: [&str; 5] = ["hostile", "wary", "neutral", "friendly", "loyal"];

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_story_without_a_table_starts_from_the_default() {
        assert_eq!(Table::of_state(&json!({})).unwrap(), Table::default());
        let partial = Table::of_state(&json!({"gm": {"tension": 7}})).unwrap();
        assert_eq!(partial.tension, 7);
        assert!(Table::of_state(&json!({"gm": {"tension": "high"}}))
            .unwrap_err()
            .contains("state.gm"));
    }

    #[test]
    fn tension_stays_on_its_scale() {
        let mut t = Table::default();
        t.tense(20);
        assert_eq!(t.tension, 9);
        t.tense(-20);
        assert_eq!(t.tension, 1);
    }

    #[test]
    fn a_story_s_own_lists_replace_others_part_by_part() {
        let mine = Tables {
            events: vec!["The lights flicker".into()],
            actions: vec!["a".into()],
            ..Tables::default()
        };
        let own = Tables {
            events: vec!["The tide turns".into()],
            ..Tables::default()
        };
        let t = mine.overlaid(Some(&own));
        assert_eq!(t.events, vec!["The tide turns".to_string()]);
        assert_eq!(t.actions, vec!["a".to_string()]);
    }

    #[test]
    fn every_attitude_has_its_word() {
        use Attitude::*;
        let words: Vec<&str> = [Hostile, Wary, Neutral, Friendly, Loyal]
            .iter()
            .map(|a| a.in_words())
            .collect();
        assert_eq!(words, ATTITUDES);
        assert_eq!(Hostile.colder(), Hostile);
        assert_eq!(Loyal.warmer(), Loyal);
    }

    #[test]
    fn pinned_facts_outlast_the_others() {
        let mut t = Table::default();
        t.keep(KeptFact {
            text: "pinned".into(),
            pinned: true,
            ..KeptFact::default()
        });
        for i in 0..FACTS_KEPT + 5 {
            t.keep(KeptFact {
                text: format!("f{i}"),
                ..KeptFact::default()
            });
        }
        assert_eq!(t.facts.len(), FACTS_KEPT);
        assert_eq!(t.facts[0].text, "pinned");
    }
}
