pub mod commands;
pub mod library;
pub mod models;
pub mod servers;
