//! The reputation skill: standing with the factions of a story, changed by
//! bounded amounts, clamped to a scale, fading with in-game days, every
//! change in an audit log.

pub mod config;
pub mod factions;
pub mod ledger;
pub mod standing;
pub mod starting;

pub use config::{ReputationConfig, Scale};
pub use ledger::{Ledger, LogEntry, Standing, Update};
