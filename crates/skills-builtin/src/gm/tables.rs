//! The tables events and complications are drawn from: data, one file a
//! genre (`skills/game-master/tables/<genre>.json`), with `any` for a
//! story of no known genre; a scenario may bring its own, part by part.

use narratoria_protocol::table::Tables;

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

/// The shipped tables of `genre` (`any`'s for a genre not shipped).
pub fn shipped(genre: &str) -> Tables {
    let text = GENRES
        .iter()
        .find(|(name, _)| *name == genre)
        .unwrap_or(&GENRES[0])
        .1;
    // The shipped files are checked by this module's tests.
    serde_json::from_str(text).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_genre_reads_and_fills_every_list() {
        let names: Vec<&str> = GENRES.iter().map(|(name, _)| *name).collect();
        assert_eq!(names, narratoria_protocol::table::GENRES);
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
        let t = shipped("western").overlaid(Some(&own));
        assert_eq!(t.events, vec!["The tide turns".to_string()]);
        assert_eq!(t.actions, shipped("western").actions);
        assert_eq!(shipped("no-such"), shipped("any"));
    }
}
