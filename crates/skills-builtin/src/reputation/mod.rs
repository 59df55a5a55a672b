//! The reputation skill: standing with factions (seed 002 §6.4), clamped to
//! a scale, fading with in-game days, every change in an audit log.

pub mod config;
pub mod ledger;
pub mod standing;

pub use config::{ReputationConfig, Scale};
pub use ledger::{Ledger, LogEntry, Standing, Update};
