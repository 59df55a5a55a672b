//! The game master: what the world does each turn, decided in code and
//! only then told (docs/game-master.md). Its state is the story's table
//! ([`Table`], whose wire form is `narratoria_protocol::table`: tension, the scene, the threads, the people and the facts
//! it settled), kept in the session state under `gm`, so it rewinds and
//! branches with the story; its choices come from a seed the host gives,
//! so a turn's direction replays identically.

pub mod config;
pub mod direct;
pub mod oracle;
pub mod tables;

pub use config::GameMasterConfig;
pub use direct::{direct, Beat, BeatKind, Direction, TurnSeen};
pub use narratoria_protocol::table::{Attitude, KeptFact, Scene, Someone, Table, Tables, Thread};
pub use oracle::{Likelihood, OracleAnswer};
pub use tables::shipped;
