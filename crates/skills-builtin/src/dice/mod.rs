//! The dice-roller skill: formulas (seed 002 §6.2), limits, and rolling.

pub mod config;
pub mod formula;
pub mod roll;

pub use config::{DiceConfig, RandomSource};
pub use formula::{Formula, FormulaError, Limits, Term};
pub use roll::{roll, RollResult};
