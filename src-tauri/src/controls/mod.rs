pub mod commands;
mod events;
