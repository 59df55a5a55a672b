//! `narratoria models …`: the narrator's models — what is installed and in
//! use, adding a GGUF file, downloading from the catalog, removing, choosing.

use std::process::ExitCode;

use narratoria_app::models::{ModelEntry, Models};
use narratoria_app::roles::{self, Given, Role, RoleChoice};
use narratoria_app::servers;
use narratoria_app::AppError;
use narratoria_core::error::ErrorCode;
use narratoria_models::{Kind, ModelsError};

use super::common::{print_json, CliError};
use crate::cli::{ModelsCommand, ServerCommand};
use crate::progress::DownloadBar;

/// Runs one `models` subcommand.
pub fn run(cmd: ModelsCommand) -> Result<ExitCode, CliError> {
    let models = Models::open(None);
    match cmd {
        ModelsCommand::List { json } => list(&models, json),
        ModelsCommand::Add { file, link, pick } => {
            let text = file.to_string_lossy();
            let added = if looks_like_link(&text) {
                add_from_hub(&models, &text, pick.as_deref())?
            } else {
                models.add(&file, link).map_err(to_cli)?
            };
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
        ModelsCommand::Server(cmd) => server(cmd),
        ModelsCommand::Remove { name } => {
            let removed = models.remove(&name).map_err(to_cli)?;
            if removed.was_chosen {
                say!("(it was the model in use; the default model is used again)");
            }
            tracing::info!(path = %removed.path.display(), "model removed");
            say!("Removed {}", removed.path.display());
            Ok(ExitCode::SUCCESS)
        }
        ModelsCommand::Use {
            name,
            role,
            writer_context,
        } => {
            let role: RoleChoice = role.parse()?;
            if let Some(tokens) = writer_context {
                models
                    .set_writer_context(Some(tokens).filter(|t| *t > 0))
                    .map_err(to_cli)?;
            }
            choose(&models, &name, role)
        }
    }
}

/// Runs one `models server` subcommand.
fn server(cmd: ServerCommand) -> Result<ExitCode, CliError> {
    match cmd {
        ServerCommand::Show { json } => {
            // Shown: an endpoint's credentials masked, as an API key is.
            let chosen = servers::chosen().shown();
            if json {
                print_json(&chosen);
                return Ok(ExitCode::SUCCESS);
            }
            for (role, choice) in [("plans", &chosen.planner), ("writes", &chosen.writer)] {
                match choice {
                    Some(c) => say!("{role}: {} at {}", c.model, c.endpoint),
                    None => say!("{role}: a model in the process (narratoria models list)"),
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        ServerCommand::Models {
            endpoint,
            api_key_env,
        } => {
            for model in servers::list_models(&endpoint, api_key_env.as_deref())? {
                say!("{model}");
            }
            Ok(ExitCode::SUCCESS)
        }
        ServerCommand::Set {
            role,
            endpoint,
            model,
            api_key_env,
        } => {
            let role: RoleChoice = role.parse()?;
            let choice = servers::ServerChoice {
                endpoint,
                model,
                api_key_env,
            };
            let check = servers::check(&choice)?;
            servers::set(role, Some(&choice))?;
            say!(
                "{} at {} answers in {} ms and is used from now on by play, turn, narrate and the window.",
                choice.model,
                choice.shown().endpoint,
                check.round_trip_ms
            );
            Ok(ExitCode::SUCCESS)
        }
        ServerCommand::Check => {
            let chosen = servers::chosen();
            if chosen.planner.is_none() && chosen.writer.is_none() {
                say!("No server is chosen: models in the process plan and write.");
            }
            for (role, choice) in [("plans", &chosen.planner), ("writes", &chosen.writer)] {
                if let Some(c) = choice {
                    let check = servers::check(c)?;
                    say!(
                        "{role}: {} at {} answers in {} ms",
                        c.model,
                        c.shown().endpoint,
                        check.round_trip_ms
                    );
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        ServerCommand::Clear { role } => {
            let role: RoleChoice = role.parse()?;
            servers::set(role, None)?;
            say!("Models in the process play that role again.");
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Whether what was given to `models add` is a link rather than a file.
fn looks_like_link(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    lower.starts_with("https://")
        || lower.starts_with("http://")
        || lower.starts_with("huggingface.co/")
        || lower.starts_with("hf.co/")
}

/// Downloads the GGUF a Hugging Face link points at, with a progress bar.
/// The repository is listed once, by the download itself: a repository
/// with several files and no pick (or a pick that is none of them) lists
/// them with their sizes.
fn add_from_hub(
    models: &Models,
    link: &str,
    pick: Option<&str>,
) -> Result<narratoria_models::InstalledModel, CliError> {
    let mut bar = DownloadBar::new(pick.unwrap_or(link));
    let added = models.add_from_hub(link, pick, &mut |p| bar.update(p));
    bar.finish();
    if let Err(ModelsError::HubChoose { files, .. }) = &added {
        say!("The repository has {} GGUF models:", files.len());
        for f in files {
            say!("  {:<60} {:>9}", f.path, human_size(f.size));
        }
        say!("Pick one with: narratoria models add {link} --pick NAME");
    }
    added.map_err(to_cli)
}

/// Prints the installed models and the catalog's others.
fn list(models: &Models, json: bool) -> Result<ExitCode, CliError> {
    // The roles `play` and `turn` would load with (NARRATORIA_MODEL included).
    let roles = roles::for_run(&Given::default(), None);
    let view = models.list(&roles);
    if json {
        print_json(&view);
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(problem) = &view.catalog_problem {
        tell!("warning: {problem}");
    }
    say!("This machine: {}", machine_words(&view.machine));
    say!("Models folder: {}", view.models_dir.display());
    if view.installed.is_empty() {
        say!("No models installed.");
    } else {
        say!(
            "  {:<28} {:>9} {:<8} {:>8} {:>7}  {:<12} {}",
            "NAME",
            "SIZE",
            "QUANT",
            "CONTEXT",
            "PARAMS",
            "ROLE",
            "WHERE"
        );
        for m in &view.installed {
            say!("{}", row(m));
        }
    }
    if roles.planner.as_deref().is_none_or(|p| !p.is_file()) {
        say!(
            "No model plans: the rule-based planner answers (narratoria models download smollm2)."
        );
    }
    if !view.available.is_empty() {
        say!("\nIn the catalog, not installed (narratoria models download NAME):");
        say!(
            "  {:<14} {:>9} {:>7} {:>8} {:<13} {:>6}  {}",
            "NAME",
            "SIZE",
            "PARAMS",
            "NEEDS",
            "HERE",
            "TOK/S",
            "ABOUT"
        );
        for offer in &view.available {
            say!("{}", catalog_row(offer, view.recommended.as_deref()));
        }
    }
    if let Some(pick) = &view.recommended {
        say!("\nRecommended for this machine: {pick} (narratoria models download {pick}, then narratoria models use {pick})");
    }
    Ok(ExitCode::SUCCESS)
}

/// "2 cores (avx2, fma), 23.5 GB of memory free of 24.6 GB, no graphics card".
fn machine_words(m: &narratoria_models::machine::Machine) -> String {
    let features = if m.cpu_features.is_empty() {
        String::new()
    } else {
        format!(" ({})", m.cpu_features.join(", "))
    };
    let memory = match (m.memory_available, m.memory_total) {
        (Some(free), Some(total)) => format!(
            ", {} of memory free of {}",
            human_size(free),
            human_size(total)
        ),
        _ => String::new(),
    };
    let gpu = match &m.gpu {
        Some(g) if g.software => format!(", {} (a driver on the processor: not used)", g.name),
        Some(g) => format!(", {} with {} free", g.name, human_size(g.memory_free)),
        None => ", no graphics card in use".to_string(),
    };
    format!("{} cores{features}{memory}{gpu}", m.cores)
}

/// One catalog model not installed: its figures, how it runs here, and
/// what it is good at; the recommended one marked.
fn catalog_row(offer: &narratoria_app::models::Offer, recommended: Option<&str>) -> String {
    let e = &offer.entry;
    let mark = if recommended == Some(e.name.as_str()) {
        "→"
    } else {
        " "
    };
    let (here, speed) = match &offer.fit {
        Some(f) => (f.verdict.words(), format!("{:.0}", f.tokens_per_second)),
        None => ("-", "-".to_string()),
    };
    let note = e.notes.as_deref().unwrap_or(&e.description);
    format!(
        "{mark} {:<14} {:>9} {:>7} {:>8} {:<13} {:>6}  {note} [{}]",
        e.name,
        e.size.map(human_size).unwrap_or_else(|| "?".into()),
        e.parameters.map(human_count).unwrap_or_else(|| "-".into()),
        e.ram.map(human_size).unwrap_or_else(|| "?".into()),
        here,
        speed,
        e.license
    )
}

/// One installed model: its figures, its role, where it is, and (on the
/// line below) its writer's profile.
fn row(entry: &ModelEntry) -> String {
    let m = &entry.model;
    let mark = if m.in_use { "*" } else { " " };
    let quant = match m.kind {
        Kind::Embedder => "embedder".to_string(),
        Kind::Narrator => m.quantization.clone().unwrap_or_else(|| "?".into()),
    };
    let context = m
        .context_length
        .map(|c| c.to_string())
        .unwrap_or_else(|| "-".into());
    let params = m
        .parameters
        .filter(|_| m.kind == Kind::Narrator)
        .map(human_count)
        .unwrap_or_else(|| "-".into());
    let place = if m.read_only { "bundled" } else { "yours" };
    let mut line = format!(
        "{mark} {:<28} {:>9} {:<8} {:>8} {:>7}  {:<12} {place}  {}",
        m.name,
        human_size(m.size),
        quant,
        context,
        params,
        role_words(&entry.roles),
        m.path.display()
    );
    if let Some(problem) = &m.problem {
        line.push_str(&format!("  [unusable: {problem}]"));
    }
    if let Some(profile) = &entry.profile {
        let context = entry
            .writer_context
            .map(|c| format!(" (writing in {c} tokens of context)"))
            .unwrap_or_default();
        line.push_str(&format!("\n    {profile}{context}"));
    }
    if let Some(fit) = &entry.fit {
        line.push_str(&format!(
            "\n    here: {}, {}",
            fit.verdict.words(),
            fit.reason
        ));
    }
    line
}

/// "plans+writes", "writes", "plans" or "-".
fn role_words(roles: &[Role]) -> &'static str {
    match (
        roles.contains(&Role::Planner),
        roles.contains(&Role::Writer),
    ) {
        (true, true) => "plans+writes",
        (true, false) => "plans",
        (false, true) => "writes",
        (false, false) => "-",
    }
}

/// Remembers `name` in `role` (`default`: forget that role's choice).
fn choose(models: &Models, name: &str, role: RoleChoice) -> Result<ExitCode, CliError> {
    let what = match role {
        RoleChoice::Writer => "write the prose",
        RoleChoice::Planner => "plan the mechanics",
        RoleChoice::Both => "plan and write",
    };
    let Some(path) = models.choose_as(name, role).map_err(to_cli)? else {
        say!(
            "{}",
            match role {
                RoleChoice::Writer => "The planner's model writes from now on.",
                RoleChoice::Planner => "The default model plans from now on.",
                RoleChoice::Both => "The default model plans and writes from now on.",
            }
        );
        return Ok(ExitCode::SUCCESS);
    };
    if std::env::var_os("NARRATORIA_MODEL").is_some_and(|v| !v.is_empty()) {
        tracing::warn!("NARRATORIA_MODEL is set and wins over this choice while it is");
    }
    say!(
        "{name} ({}) is used to {what} from now on by play, turn, narrate and the window ({}).",
        path.display(),
        models.settings_file().display()
    );
    Ok(ExitCode::SUCCESS)
}

/// "135M", "1.5B".
fn human_count(n: u64) -> String {
    match n {
        n if n >= 1_000_000_000 => format!("{:.1}B", n as f64 / 1e9),
        n if n >= 1_000_000 => format!("{}M", (n as f64 / 1e6).round()),
        n if n >= 1_000 => format!("{}K", (n as f64 / 1e3).round()),
        n => n.to_string(),
    }
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
    use super::{human_count, human_size};

    #[test]
    fn sizes_read_like_a_file_manager() {
        assert_eq!(human_size(512), "512 B");
        assert_eq!(human_size(98_362_432), "98.4 MB");
    }

    #[test]
    fn parameters_read_as_model_names_say_them() {
        assert_eq!(human_count(134_515_008), "135M");
        assert_eq!(human_count(1_543_714_304), "1.5B");
        assert_eq!(human_count(494_032_768), "494M");
        assert_eq!(human_count(8), "8");
    }
}
