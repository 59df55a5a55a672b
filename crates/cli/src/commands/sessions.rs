//! `narratoria sessions list|export|rewind` (`export --turn N --run DIR`:
//! a turn's run folder)

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use narratoria_core::store;

use super::common::{open_store, print_json, CliError};
use crate::cli::SessionsCommand;
use narratoria_app::{locate, run_export};
use narratoria_core::ErrorCode;

/// Writes turn `turn` of session `id` as a run folder at `dir`, the secret
/// settings of the skills under `skills` (the built-in and the user's own
/// when none is given) scrubbed out; says where.
fn export_run(
    id: &str,
    db: Option<&Path>,
    turn: u32,
    dir: &Path,
    skills: &[PathBuf],
) -> Result<(), CliError> {
    let store = open_store(db)?;
    let mut roots = locate::skill_roots(skills);
    let own = locate::user_skills_dir();
    if skills.is_empty() && own.is_dir() {
        roots.push(own);
    }
    let catalog = narratoria_core::skills::discover(&roots)
        .map_err(|e| CliError::usage(ErrorCode::SkillsDirUnusable, e.to_string()))?;
    let secrets = run_export::skill_secrets(&catalog, None);
    let out = run_export::export_run(&store, id, turn, dir, &secrets)?;
    say!(
        "Wrote turn {turn} of session {id} to {} (run {}{}).",
        out.path.display(),
        out.run_id,
        out.trace_id
            .map(|t| format!(", trace {t}"))
            .unwrap_or_default()
    );
    Ok(())
}

pub fn run(cmd: SessionsCommand) -> Result<ExitCode, CliError> {
    let fail = |e: store::StoreError| CliError::usage(e.code(), e.to_string());
    match cmd {
        SessionsCommand::New {
            scenario,
            session,
            json,
        } => return super::stories::new_session(scenario.as_deref(), session.as_deref(), json),
        SessionsCommand::List { session, json } => {
            let store = open_store(session.as_deref())?;
            let sessions = store.sessions().map_err(fail)?;
            if json {
                print_json(&sessions);
            } else if sessions.is_empty() {
                say!("No saved sessions in {}.", store.path().display());
            } else {
                for s in sessions {
                    say!(
                        "{}  {:<30} {:>3} turn(s)  last played {}",
                        s.id,
                        s.title,
                        s.turns,
                        s.updated_at
                    );
                }
            }
        }
        SessionsCommand::Export {
            id,
            session,
            turn: Some(turn),
            run: Some(dir),
            skills,
            ..
        } => export_run(&id, session.as_deref(), turn, &dir, &skills)?,
        SessionsCommand::Export {
            id,
            session,
            format,
            ..
        } => {
            let store = open_store(session.as_deref())?;
            if format == "json" {
                print_json(&store.export_json(&id).map_err(fail)?);
            } else if format == "tree" {
                print_json(&store.export_tree_json(&id).map_err(fail)?);
            } else {
                say_part!("{}", store.export_markdown(&id).map_err(fail)?);
            }
        }
        SessionsCommand::Rewind { id, turn, session } => {
            let mut store = open_store(session.as_deref())?;
            let state = store.rewind(&id, turn).map_err(fail)?;
            print_json(&serde_json::json!({ "session": id, "turn": turn, "state": state }));
        }
        other => return super::story_tree::run(other),
    }
    Ok(ExitCode::SUCCESS)
}
