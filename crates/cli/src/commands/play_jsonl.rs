//! `narratoria play --jsonl`: the story for programs, one JSON line per turn.

use std::io::BufRead;
use std::process::ExitCode;

use super::common::{runtime, CliError};
use super::play;
use crate::cli::PlayArgs;

/// Reads player inputs one per line on stdin and prints, per turn, its final
/// ExecutionResult as one JSON line (the object `turn --json` prints). The
/// model loads once. Empty lines are skipped, and so are lines starting with
/// `/`: they are not commands here, and a note on stderr says so. stdout
/// carries nothing but the JSON lines.
pub fn run(args: PlayArgs) -> Result<ExitCode, CliError> {
    let app = play::open_app(&args)?;
    app.load_model(args.model.as_deref(), None)?;
    play::open_story(&app, &args)?;
    let mut language_known = play::warn_of_language(&app);
    let rt = runtime();
    for line in std::io::stdin().lock().lines() {
        let line = line.map_err(|e| {
            CliError::usage(
                narratoria_core::ErrorCode::Io,
                format!("cannot read stdin: {e}"),
            )
        })?;
        let input = line.trim();
        if input.is_empty() {
            continue;
        }
        if input.starts_with('/') {
            tracing::warn!("skipped {input:?}: --jsonl reads no commands");
            continue;
        }
        let played = rt.block_on(app.play(input, None))?;
        if !language_known {
            language_known = play::warn_of_language(&app);
        }
        // A reader that went away ends the story; the turns are saved.
        if !crate::terminal::json_line(&played.result) {
            break;
        }
    }
    Ok(ExitCode::SUCCESS)
}
