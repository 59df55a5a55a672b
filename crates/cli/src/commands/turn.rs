//! `narratoria turn "INPUT"`: one whole turn, for programs.

use std::process::ExitCode;

use narratoria_app::planner::stderr_progress_bar;
use narratoria_app::{locate, roles, App, AppConfig, SessionDb, SkillChoices};

use super::common::{print_json, runtime, CliError};
use crate::cli::TurnArgs;

/// `turn "INPUT" [--session DB] [--json]`: plays the turn the way the game
/// does. With `--session` the turn continues that database's latest session
/// (or starts one) and the skills' health is remembered; without it nothing
/// is saved anywhere, though the player's skill choices apply.
pub fn run(args: TurnArgs) -> Result<ExitCode, CliError> {
    let (session_db, skills_state) = match &args.session {
        Some(db) => (SessionDb::File(db.clone()), SkillChoices::User),
        None => (
            SessionDb::Memory,
            SkillChoices::ReadOnly(locate::skills_state_file()),
        ),
    };
    let app = App::open(AppConfig {
        skill_roots: locate::skill_roots(&args.roots.skills),
        session_db,
        skills_state,
        // Like `run-plan`: each skill keeps its data in its own folder.
        skill_data: None,
        ..AppConfig::default()
    })?;
    let roles = roles::for_run(
        &roles::Given {
            model: args.model.clone(),
            writer: args.writer.writer.clone(),
            writer_context: args.writer.writer_context,
        },
        None,
    );
    app.load_roles(&roles, (!args.json).then(stderr_progress_bar))?;
    let played = runtime().block_on(app.play(&args.input, None))?;
    if args.json {
        print_json(&played.result);
    } else {
        say!("{}", played.turn.narrative);
    }
    Ok(ExitCode::SUCCESS)
}
