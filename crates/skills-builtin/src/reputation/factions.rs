//! Which factions exist in a story: those the campaign configures, those the
//! ledger has seen, and those the story state names.

use narratoria_protocol::choices_at;
use serde_json::Value;

/// Faction ids named in the story state: the keys of `reputation` (standings
/// the skill patched in) and the entries of `factions` (a scenario's
/// factions: an object keyed by id, or an array of ids or of `{"id": …}`).
pub fn in_state(state: &Value) -> Vec<String> {
    // The same places the manifest's `x-choicesFromState` names for factionId.
    choices_at(state, &["/reputation", "/factions"])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn factions_come_from_standings_and_the_scenario() {
        let state = json!({
            "reputation": {"city-watch": {"score": 5}},
            "factions": [{"id": "temple", "name": "The Temple"}, "guild", {"id": "city-watch"}, 7]
        });
        assert_eq!(in_state(&state), vec!["city-watch", "temple", "guild"]);
        assert_eq!(
            in_state(&json!({"factions": {"crown": {}, "rebels": {}}})),
            vec!["crown", "rebels"]
        );
        assert!(in_state(&json!({})).is_empty());
        assert!(in_state(&json!({"reputation": 3, "factions": "x"})).is_empty());
    }
}
