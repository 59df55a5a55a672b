pub mod commands;
pub mod panics;
