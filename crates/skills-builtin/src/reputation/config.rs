//! The reputation skill's settings (its `config-schema.json`, same defaults).

use serde::Deserialize;
use serde_json::Value;

use crate::error::SkillError;

/// Lowest and highest score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct Scale {
    pub min: i64,
    pub max: i64,
}

impl Default for Scale {
    fn default() -> Scale {
        Scale {
            min: -100,
            max: 100,
        }
    }
}

impl Scale {
    /// `score` brought inside the scale.
    pub fn clamp(&self, score: i64) -> i64 {
        score.clamp(self.min, self.max)
    }
}

/// The reputation skill's config.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ReputationConfig {
    /// The factions of this campaign. A change must name one of these or a
    /// faction the story already knows; with neither, every change is refused.
    pub faction_list: Vec<String>,
    pub reputation_scale: Scale,
    /// Share of a score lost per in-game day (0 = no decay).
    pub decay_rate: f64,
    /// JSON pointer into session state where the current in-game day is kept.
    pub day_state_pointer: String,
    pub storage_backend: String,
    /// The largest change one event may make, either way.
    pub max_delta: i64,
}

impl Default for ReputationConfig {
    fn default() -> ReputationConfig {
        ReputationConfig {
            faction_list: Vec::new(),
            reputation_scale: Scale::default(),
            decay_rate: 0.0,
            day_state_pointer: "/world/day".into(),
            storage_backend: "sqlite".into(),
            max_delta: 25,
        }
    }
}

impl ReputationConfig {
    /// Checks what the schema cannot: a scale whose minimum is below its maximum.
    pub fn check(&self) -> Result<(), SkillError> {
        let s = self.reputation_scale;
        if s.min >= s.max || s.min > 0 || s.max < 0 {
            return Err(SkillError::validation(format!(
                "config.reputationScale: min ({}) must be ≤ 0 ≤ max ({}) with min < max",
                s.min, s.max
            )));
        }
        Ok(())
    }

    /// Refuses a faction that does not exist in this story: one neither in
    /// `factionList` nor in `known` (the factions of the ledger and of the
    /// story state).
    pub fn check_faction(&self, faction: &str, known: &[String]) -> Result<(), SkillError> {
        let mut allowed: Vec<&String> = self.faction_list.iter().collect();
        allowed.extend(known.iter().filter(|k| !self.faction_list.contains(k)));
        if allowed.iter().any(|f| f.as_str() == faction) {
            return Ok(());
        }
        let message = if allowed.is_empty() {
            format!(
                "input.factionId: unknown faction {faction:?}; this story has no factions yet \
                 (set factionList in the reputation settings or start from a scenario with factions)"
            )
        } else {
            let names: Vec<&str> = allowed.iter().map(|f| f.as_str()).collect();
            format!(
                "input.factionId: unknown faction {faction:?}; known factions: {}",
                names.join(", ")
            )
        };
        Err(SkillError::validation(message)
            .with_details(serde_json::json!({"field": "factionId", "allowed": allowed})))
    }

    /// Refuses a change larger than `maxDelta` either way: it is never
    /// clamped into a silent success.
    pub fn check_delta(&self, delta: i64) -> Result<(), SkillError> {
        if delta.unsigned_abs() <= self.max_delta.unsigned_abs() {
            return Ok(());
        }
        Err(SkillError::validation(format!(
            "input.delta: {delta:+} is more than one event may change a standing (at most ±{})",
            self.max_delta
        ))
        .with_details(serde_json::json!({"field": "delta", "maxDelta": self.max_delta})))
    }

    /// The current in-game day: `explicit` if given, else the whole number at
    /// `dayStatePointer` in session state, else unknown.
    pub fn current_day(&self, explicit: Option<i64>, state: &Value) -> Option<i64> {
        explicit.or_else(|| {
            let v = state.pointer(&self.day_state_pointer)?;
            v.as_i64().or_else(|| v.as_f64().map(|f| f.floor() as i64))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_and_checks() {
        let c: ReputationConfig = serde_json::from_value(json!({})).unwrap();
        assert_eq!(
            c.reputation_scale,
            Scale {
                min: -100,
                max: 100
            }
        );
        assert!(c.check().is_ok());
        assert!(
            c.check_faction("anyone", &[]).is_err(),
            "no factions at all"
        );
        assert!(c.check_faction("guild", &["guild".into()]).is_ok());
        assert!(c.check_faction("crown", &["guild".into()]).is_err());
        let e = c.check_faction("crown", &[]).unwrap_err();
        assert!(e.message.contains("no factions yet"));
        assert!(c.check_delta(25).is_ok() && c.check_delta(-25).is_ok());
        let e = c.check_delta(1000).unwrap_err();
        assert!(e.message.contains("delta") && !e.recoverable);
        let c: ReputationConfig = serde_json::from_value(
            json!({"factionList": ["guild"], "reputationScale": {"min": 5, "max": 1}}),
        )
        .unwrap();
        assert!(c.check().is_err());
        assert!(c.check_faction("guild", &[]).is_ok());
        assert!(c.check_faction("crown", &["crown".into()]).is_ok());
        let e = c.check_faction("crown", &[]).unwrap_err();
        assert!(e.message.contains("factionId") && e.message.contains("guild"));
    }

    #[test]
    fn day_comes_from_input_then_state() {
        let c = ReputationConfig::default();
        let state = json!({"world": {"day": 12}});
        assert_eq!(c.current_day(Some(3), &state), Some(3));
        assert_eq!(c.current_day(None, &state), Some(12));
        assert_eq!(c.current_day(None, &json!({})), None);
    }
}
