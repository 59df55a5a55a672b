//! `narratoria`: the command-line front end over the engine. JSON for
//! programs on stdout, messages for people on stderr, no panics on bad input.

#![forbid(unsafe_code)]

mod bench;
mod cli;
mod commands;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    narratoria_app::calm_openmp();
    std::panic::set_hook(Box::new(|info| {
        eprintln!("narratoria: internal error: {info}");
    }));
    let cli = cli::Cli::parse();
    match commands::dispatch(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("narratoria: error[{}]: {}", e.code, e.message);
            ExitCode::from(e.exit)
        }
    }
}
