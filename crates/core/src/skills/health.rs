//! Skill health (seed 000 §1, seed 001 §3).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A skill's current health.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum ErrorState {
    #[default]
    Healthy,
    Degraded,
    TemporaryFailure,
    PermanentFailure,
}
