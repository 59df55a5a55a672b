//! The scenarios that ship with Narratoria (the `scenarios/` folder of this
//! repository, compiled in), so a new player starts a story in one click.

use super::model::Scenario;

/// The built-in scenario files, by name.
const FILES: [(&str, &str); 2] = [
    (
        "ashford",
        include_str!("../../../../scenarios/ashford.json"),
    ),
    (
        "tithonus",
        include_str!("../../../../scenarios/tithonus.json"),
    ),
];

/// Every built-in scenario, in the order a player is offered them.
pub fn all() -> Vec<Scenario> {
    FILES.iter().map(|(name, text)| parse(name, text)).collect()
}

/// The built-in scenario called `name`.
pub fn find(name: &str) -> Option<Scenario> {
    FILES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(n, text)| parse(n, text))
}

/// A scenario for an author to fill in: every field present, each saying
/// what goes there.
pub fn starter() -> Scenario {
    parse("starter", include_str!("starter.json"))
}

/// The scenario a new player is offered first.
pub const DEFAULT: &str = "ashford";

fn parse(name: &str, text: &str) -> Scenario {
    let mut s = Scenario::from_json(text)
        .unwrap_or_else(|e| panic!("built-in scenario {name} is broken: {e}"));
    s.name = name.to_string();
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_built_in_scenario_is_valid_and_complete() {
        let all = all();
        assert_eq!(all.len(), 2);
        for s in &all {
            s.check().unwrap();
            assert!(!s.opening.is_empty() && !s.setting.is_empty() && !s.location.is_empty());
            assert!(s.factions.len() >= 3, "{}", s.name);
            assert!(!s.people.is_empty() && s.lore.len() >= 4, "{}", s.name);
        }
        assert!(find(DEFAULT).is_some());
        assert!(find("nowhere").is_none());
        starter().check().unwrap();
    }
}
