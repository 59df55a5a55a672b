//! The tables events and complications are drawn from: data, one file a
//! genre (`skills/game-master/tables/<genre>.json`), with `any` for a
//! story of no known genre; a scenario may bring its own, part by part.

use serde::{Deserialize, Serialize};

/// What a failed check may cost, by how badly it went.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct Complications {
    /// After a failure: a price, a door closing, someone noticing.
    pub minor: Vec<String>,
    /// After a disaster or a failure at high stakes; still in proportion
    /// (a wound, a loss, an enemy alerted — never the story's end).
    pub serious: Vec<String>,
}

/// One genre's tables (every list may be empty in a scenario's own).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct Tables {
    pub complications: Complications,
    /// A thread moving without the player: `{thread}` is its title.
    pub pressures: Vec<String>,
    /// What a random event is about (its focus).
    pub events: Vec<String>,
    /// A random event's meaning: an action and a subject.
    pub actions: Vec<String>,
    pub subjects: Vec<String>,
}

/// The genres shipped, by name.
pub const GENRES: [(&str, &str); 5] = [
    (
        "any",
        include_str!("../../../../skills/game-master/tables/any.json"),
    ),
    (
        "mystery",
        include_str!("../../../../skills/game-master/tables/mystery.json"),
    ),
    (
        "science-fiction",
        include_str!("../../../../skills/game-master/tables/science-fiction.json"),
    ),
    (
        "western",
        include_str!("../../../../skills/game-master/tables/western.json"),
    ),
    (
        "fantasy",
        include_str!("../../../../skills/game-master/tables/fantasy.json"),
    ),
];

impl Tables {
    /// The shipped tables of `genre` (`any`'s for a genre not shipped).
    pub fn of_genre(genre: &str) -> Tables {
        let text = GENRES
            .iter()
            .find(|(name, _)| *name == genre)
            .unwrap_or(&GENRES[0])
            .1;
        // The shipped files are checked by this module's tests.
        serde_json::from_str(text).unwrap_or_default()
    }

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_genre_reads_and_fills_every_list() {
        for (name, text) in GENRES {
            let t: Tables = serde_json::from_str(text).unwrap_or_else(|e| panic!("{name}: {e}"));
            for (list, what) in [
                (&t.complications.minor, "minor"),
                (&t.complications.serious, "serious"),
                (&t.pressures, "pressures"),
                (&t.events, "events"),
                (&t.actions, "actions"),
                (&t.subjects, "subjects"),
            ] {
                assert!(list.len() >= 4, "{name}.{what}");
            }
            assert!(t.pressures.iter().all(|p| p.contains("{thread}")), "{name}");
        }
    }

    #[test]
    fn a_story_s_own_lists_replace_the_genre_s_part_by_part() {
        let own = Tables {
            events: vec!["The tide turns".into()],
            ..Tables::default()
        };
        let t = Tables::of_genre("western").overlaid(Some(&own));
        assert_eq!(t.events, vec!["The tide turns".to_string()]);
        assert_eq!(t.actions, Tables::of_genre("western").actions);
        assert_eq!(Tables::of_genre("no-such"), Tables::of_genre("any"));
    }
}
