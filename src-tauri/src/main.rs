//! Narratoria's desktop window: a thin Tauri shell. Each domain's
//! `commands.rs` lists plain calls into `narratoria_app::App`; live data
//! reaches the page over a `Channel` (a turn's events) and app events
//! (skill changes, model loading).

#![forbid(unsafe_code)]
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

mod controls;
mod files;
mod logs;
mod model;
#[cfg(test)]
mod page_contract;
mod play;
mod sessions;
mod skills;
mod startup;
mod stories;
mod tree;

fn main() {
    // llama.cpp's OpenMP threads must not spin while idle (see docs/narrator.md).
    narratoria_app::calm_openmp();
    // The log file (level from NARRATORIA_LOG); the folder opens from the
    // settings view. A bad level leaves the default.
    let _log = narratoria_app::logging::init("narratoria-desktop", None)
        .or_else(|e| {
            eprintln!("narratoria-desktop: {e}");
            narratoria_app::logging::init("narratoria-desktop", Some("info"))
        })
        .ok();
    // A panic is logged with its backtrace and told to the page.
    logs::panics::install();
    startup::run();
}
