//! One function per command; each calls plain engine functions.

pub(crate) mod common;
mod example_advice;
mod interrupt;
mod live;
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
mod table;
mod turn;

use std::process::ExitCode;

use crate::cli::{Cli, Command, LogsCommand, SkillsCommand};

pub(crate) use common::CliError;

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
