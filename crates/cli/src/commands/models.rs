//! `narratoria models …`: the narrator's models — what is installed and in
//! use, adding a GGUF file, downloading from the catalog, removing, choosing.

use std::process::ExitCode;

use narratoria_app::locate;
use narratoria_app::models::Models;
use narratoria_app::AppError;
use narratoria_core::error::ErrorCode;
use narratoria_models::{InstalledModel, Kind, ModelsError};

use super::{print_json, CliError};
use crate::cli::ModelsCommand;
use crate::progress::DownloadBar;

/// Runs one `models` subcommand.
pub fn run(cmd: ModelsCommand) -> Result<ExitCode, CliError> {
    let models = Models::open(None);
    match cmd {
        ModelsCommand::List { json } => list(&models, json),
        ModelsCommand::Add { file, link } => {
            let added = models.add(&file, link).map_err(to_cli)?;
            tracing::info!(path = %added.path.display(), "model added");
            say!(
                "Added {} ({}). Use it with: narratoria models use {}",
                added.name,
                added.path.display(),
                added.name
            );
            Ok(ExitCode::SUCCESS)
        }
        ModelsCommand::Download { name } => {
            let mut bar = DownloadBar::new(&name);
            let installed = models.download(&name, &mut |p| bar.update(p));
            bar.finish();
            let installed = installed.map_err(to_cli)?;
            tracing::info!(path = %installed.display(), "model downloaded");
            say!("{name} is installed at {}", installed.display());
            Ok(ExitCode::SUCCESS)
        }
        ModelsCommand::Remove { name } => {
            let removed = models.remove(&name).map_err(to_cli)?;
            if removed.was_chosen {
                say!("(it was the model in use; the default model is used again)");
            }
            tracing::info!(path = %removed.path.display(), "model removed");
            say!("Removed {}", removed.path.display());
            Ok(ExitCode::SUCCESS)
        }
        ModelsCommand::Use { name } => choose(&models, &name),
    }
}

/// Prints the installed models and the catalog's others.
fn list(models: &Models, json: bool) -> Result<ExitCode, CliError> {
    let in_use = Some(locate::default_model_path()).filter(|p| p.is_file());
    let view = models.list(in_use.as_deref());
    if json {
        print_json(&view);
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(problem) = &view.catalog_problem {
        tell!("warning: {problem}");
    }
    let listing = &view.listing;
    say!("Models folder: {}", listing.models_dir.display());
    if listing.installed.is_empty() {
        say!("No models installed.");
    } else {
        say!(
            "  {:<28} {:>9} {:<8} {:>8}  {}",
            "NAME", "SIZE", "QUANT", "CONTEXT", "WHERE"
        );
        for m in &listing.installed {
            say!("{}", row(m));
        }
    }
    if in_use.is_none() {
        say!(
            "No model in use: the rule-based planner answers (narratoria models download smollm2)."
        );
    }
    if !listing.available.is_empty() {
        say!("\nIn the catalog, not installed (narratoria models download NAME):");
        for e in &listing.available {
            let size = e.size.map(human_size).unwrap_or_else(|| "?".into());
            say!(
                "  {:<28} {:>9}  {}",
                e.name,
                size,
                e.description
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn row(m: &InstalledModel) -> String {
    let mark = if m.in_use { "*" } else { " " };
    let quant = match m.kind {
        Kind::Embedder => "embedder".to_string(),
        Kind::Narrator => m.quantization.clone().unwrap_or_else(|| "?".into()),
    };
    let context = m
        .context_length
        .map(|c| c.to_string())
        .unwrap_or_else(|| "-".into());
    let place = if m.read_only { "bundled" } else { "yours" };
    let mut line = format!(
        "{mark} {:<28} {:>9} {:<8} {:>8}  {place}  {}",
        m.name,
        human_size(m.size),
        quant,
        context,
        m.path.display()
    );
    if m.in_use {
        line.push_str("  (in use)");
    }
    if let Some(problem) = &m.problem {
        line.push_str(&format!("  [unusable: {problem}]"));
    }
    line
}

/// Remembers `name` as the model in use (`default`: forget the choice).
fn choose(models: &Models, name: &str) -> Result<ExitCode, CliError> {
    let Some(path) = models.choose(name).map_err(to_cli)? else {
        say!("The default model is used from now on.");
        return Ok(ExitCode::SUCCESS);
    };
    if std::env::var_os("NARRATORIA_MODEL").is_some_and(|v| !v.is_empty()) {
        tracing::warn!("NARRATORIA_MODEL is set and wins over this choice while it is");
    }
    say!(
        "{name} ({}) is used from now on by play, turn, narrate and the window ({}).",
        path.display(),
        models.settings_file().display()
    );
    Ok(ExitCode::SUCCESS)
}

/// "97.8 MB".
fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KB", "MB", "GB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit < UNITS.len() - 1 {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// A models error as the command's error: the user's mistakes exit 2,
/// failed downloads and disk trouble exit 1.
fn to_cli(e: ModelsError) -> CliError {
    let detail = e.code();
    let error = AppError::from(e);
    let exit = match error.code {
        ErrorCode::DownloadFailed | ErrorCode::Io => 1,
        _ => 2,
    };
    CliError {
        code: error.code,
        message: format!("{} [{detail}]", error.message),
        exit,
    }
}

#[cfg(test)]
mod tests {
    use super::human_size;

    #[test]
    fn sizes_read_like_a_file_manager() {
        assert_eq!(human_size(512), "512 B");
        assert_eq!(human_size(98_362_432), "98.4 MB");
    }
}
