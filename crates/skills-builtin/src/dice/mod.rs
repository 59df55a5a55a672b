//! The dice-roller skill: formulas, limits, rolling, and checks against a difficulty.

pub mod check;
pub mod config;
pub mod formula;
pub mod roll;

pub use check::{judge, Check, CheckOutcome};
pub use config::{DiceConfig, RandomSource};
pub use formula::{DiceOptions, Formula, FormulaError, Keep, Limits, Redo, Term};
pub use roll::{roll, RollError, RollResult};
