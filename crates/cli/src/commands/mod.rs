//! One function per command; each calls plain engine functions.

mod example_advice;
mod interrupt;
mod logs;
mod models;
mod narrate;
mod play;
mod play_jsonl;
mod prompt;
mod run_plan;
mod sessions;
pub(crate) mod skill_stats;
mod skills;
mod stories;
mod story_controls;
mod story_tree;
mod turn;

use std::process::ExitCode;

use narratoria_core::ErrorCode;

use crate::cli::{Cli, Command, LogsCommand, SkillsCommand};

/// An error that ends the command with an exit status.
#[derive(Debug)]
pub struct CliError {
    pub code: ErrorCode,
    pub message: String,
    pub exit: u8,
}

impl From<narratoria_app::AppError> for CliError {
    fn from(e: narratoria_app::AppError) -> Self {
        let mut message = e.message;
        for f in &e.errors {
            message.push_str(&format!("\n  - {f}"));
        }
        CliError {
            code: e.code,
            message,
            exit: 2,
        }
    }
}

impl CliError {
    /// Bad input (arguments, files): exit status 2.
    pub fn usage(code: ErrorCode, message: impl Into<String>) -> CliError {
        CliError {
            code,
            message: message.into(),
            exit: 2,
        }
    }
}

/// Runs the parsed command; returns its exit status.
pub fn dispatch(cli: Cli) -> Result<ExitCode, CliError> {
    match cli.command {
        Command::RunPlan(args) => run_plan::run(args),
        Command::Skills(SkillsCommand::List { roots, json }) => skills::list(&roots, json),
        Command::Skills(SkillsCommand::Check { dir }) => skills::check(&dir),
        Command::Skills(SkillsCommand::Watch { roots }) => skills::watch(&roots),
        Command::Skills(SkillsCommand::Config {
            name,
            roots,
            set,
            allow_env,
            revoke_env,
            json,
        }) => skills::config(
            &name,
            &roots,
            &skills::ConfigChange {
                set,
                allow_env,
                revoke_env,
            },
            json,
        ),
        Command::Skills(SkillsCommand::Enable { name, roots }) => {
            skills::set_enabled(&name, &roots, true)
        }
        Command::Skills(SkillsCommand::Disable { name, roots }) => {
            skills::set_enabled(&name, &roots, false)
        }
        Command::Skills(SkillsCommand::Stats {
            skill,
            since,
            session,
            json,
        }) => skill_stats::run(
            &narratoria_core::store::StatsQuery {
                skill,
                since_unix_ms: since,
            },
            session.as_deref(),
            json,
        ),
        Command::Bench(args) => crate::bench::run(&args),
        Command::Narrate(args) => narrate::run(args),
        Command::Turn(args) => turn::run(args),
        Command::Play(args) => {
            // `--writer` and `--writer-context` reach the app's model load.
            narratoria_app::roles::set_command_line(narratoria_app::roles::Given {
                model: None,
                writer: args.writer.writer.clone(),
                writer_context: args.writer.writer_context,
            });
            if args.jsonl {
                play_jsonl::run(args)
            } else {
                play::play(args)
            }
        }
        Command::Sessions(cmd) => sessions::run(cmd),
        Command::Scenarios(cmd) => stories::scenarios(cmd),
        Command::Cards(cmd) => stories::cards(cmd),
        Command::Lore(cmd) => stories::lore(cmd),
        Command::Models(cmd) => models::run(cmd),
        Command::Logs(LogsCommand::Path) => logs::path(),
    }
}

/// A multi-threaded runtime for one command.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime starts")
}

/// Discovers skills under the given roots (or the built-in folder) with the
/// user's choices (enabled, health) applied; an unusable root is a usage error.
pub fn discover(
    roots: &crate::cli::SkillRoots,
) -> Result<narratoria_core::skills::Catalog, CliError> {
    let roots = narratoria_app::locate::skill_roots(&roots.skills);
    let mut catalog = narratoria_core::skills::discover(&roots)
        .map_err(|e| CliError::usage(ErrorCode::SkillsDirUnusable, e.to_string()))?;
    user_state().apply(&mut catalog);
    Ok(catalog)
}

/// The user's skill choices; a damaged file is set aside with a note.
pub fn user_state() -> narratoria_core::skills::SkillsState {
    use narratoria_core::skills::SkillsState;
    let (state, warning) = SkillsState::load(&narratoria_app::locate::skills_state_file());
    if let Some(w) = warning {
        tracing::warn!("{w}");
    }
    state
}

/// Prints a value as pretty JSON on stdout.
pub fn print_json<T: serde::Serialize>(value: &T) {
    say!(
        "{}",
        crate::terminal::clean_json(serde_json::to_string_pretty(value).expect("serialises"))
    );
}
