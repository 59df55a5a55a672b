//! `narratoria`: the command-line front end over the engine. JSON for
//! programs on stdout, messages for people on stderr, no panics on bad input.

#![forbid(unsafe_code)]

// First, so that its print macros are known to every module below.
#[macro_use]
mod terminal;

mod bench;
mod bench_kit;
mod cli;
mod commands;
mod load_bench;
mod progress;
mod turn_bench;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    narratoria_app::calm_openmp();
    // Ctrl-C or a SIGTERM ends the skill scripts of a running plan too.
    narratoria_core::process_groups::kill_all_on_termination_signals();
    let cli = cli::Cli::parse();
    let _log = match narratoria_app::logging::init("narratoria", cli.log_level.as_deref()) {
        Ok(guard) => guard,
        Err(e) => {
            tell!("narratoria: error: {e}");
            return ExitCode::from(2);
        }
    };
    // The log keeps the panic and its backtrace; its stderr note says where.
    narratoria_app::panic_hook::install(|note| {
        tell!(
            "narratoria: something failed inside; the log in {} has the details",
            note.log_dir.display()
        );
    });
    narratoria_app::logging::log_start(std::env::args_os());
    match commands::dispatch(cli) {
        Ok(code) => code,
        Err(e) => {
            // The message is for the person; the log keeps it too.
            tracing::info!(code = ?e.code, exit = e.exit, "command failed: {}", e.message);
            tell!("narratoria: error[{}]: {}", e.code, e.message);
            ExitCode::from(e.exit)
        }
    }
}
