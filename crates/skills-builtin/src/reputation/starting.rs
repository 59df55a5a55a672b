//! The standings a story starts with: a scenario puts each faction's
//! starting score in the story state (`reputation.<faction>.score`), and a
//! faction the ledger has no record of on this story path starts there
//! instead of at 0 (docs/scenarios.md).

use std::collections::HashMap;

use serde_json::Value;

/// The whole-number scores under `state.reputation`, by faction id; a
/// faction whose entry has no such score is left out.
pub fn starting_scores(state: &Value) -> HashMap<String, i64> {
    let Some(standings) = state.get("reputation").and_then(Value::as_object) else {
        return HashMap::new();
    };
    standings
        .iter()
        .filter_map(|(id, entry)| {
            let score = entry.get("score")?;
            let score = score.as_i64().or_else(|| {
                score
                    .as_f64()
                    .filter(|f| f.is_finite())
                    .map(|f| f.round() as i64)
            })?;
            Some((id.trim().to_string(), score))
        })
        .filter(|(id, _)| !id.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn scores_come_from_the_state_standings() {
        let state = json!({"reputation": {
            "ashford-watch": {"score": 20, "standing": "friendly"},
            "thieves": {"score": -35.4},
            "temple": {"standing": "neutral"},
            "odd": "not an entry",
            "nan": {"score": "high"}
        }});
        let scores = starting_scores(&state);
        assert_eq!(scores.len(), 2, "{scores:?}");
        assert_eq!(scores["ashford-watch"], 20);
        assert_eq!(scores["thieves"], -35);
        assert!(starting_scores(&json!({})).is_empty());
        assert!(starting_scores(&json!({"reputation": [1, 2]})).is_empty());
    }
}
