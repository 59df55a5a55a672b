//! The built-in skills' scripts, and the protocol side they share.
//!
//! Each script is a small binary under `src/bin/` that hands its work to
//! [`script::run`]: it reads the one-line stdin envelope, validates `input`
//! against the script's input schema from the skill's `skill.json`, calls the
//! script's handler and turns the result — or any failure, panics included —
//! into protocol events on stdout. The protocol's types come from
//! `narratoria-protocol`, re-exported here.

#![deny(unsafe_code)]

pub mod dice;
pub mod error;
pub mod gm;
pub mod host;
pub mod input;
#[cfg(feature = "memory")]
pub mod memory;
#[cfg(feature = "memory")]
pub mod memory_model;
pub mod protocol;
pub mod reputation;
pub mod script;
pub mod sqlite;

pub use error::{FailureCode, SkillError};
pub use protocol::{Envelope, Events, LogLevel};
pub use script::{run, Context, Outcome, ScriptSpec};
