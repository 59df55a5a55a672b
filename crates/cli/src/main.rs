//! `narratoria`: the command-line front end over the engine. JSON for
//! programs on stdout, messages for people on stderr, no panics on bad input.

mod bench;
mod cli;
mod commands;
mod roots;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    calm_openmp();
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

/// llama.cpp's OpenMP threads spin while they wait by default, which starves
/// everything else on a small machine (decoding fell from ≈ 19 to 1–2 tokens/s
/// under load). The OpenMP runtime reads its wait policy once, when the process
/// starts, so the command restarts itself with a passive policy unless one is set.
#[cfg(all(unix, feature = "llama"))]
fn calm_openmp() {
    use std::os::unix::process::CommandExt;
    if std::env::var_os("OMP_WAIT_POLICY").is_some() {
        return;
    }
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    let err = std::process::Command::new(exe)
        .args(std::env::args_os().skip(1))
        .env("OMP_WAIT_POLICY", "passive")
        .exec();
    // exec only returns on failure: carry on as we are.
    eprintln!("narratoria: note: could not restart with a passive OpenMP wait policy: {err}");
}

#[cfg(not(all(unix, feature = "llama")))]
fn calm_openmp() {}
