//! `narratoria scenarios|cards|lore` and starting a story from a scenario
//! (docs/scenarios.md).

use std::path::Path;
use std::process::ExitCode;

use narratoria_app::stories::{self, scenarios_dir};
use narratoria_core::scenario::CardRole;

use super::common::open_store;
use super::common::{print_json, CliError};
use crate::cli::{CardsCommand, LoreCommand, ScenariosCommand};

/// `scenarios list|new`.
pub fn scenarios(cmd: ScenariosCommand) -> Result<ExitCode, CliError> {
    match cmd {
        ScenariosCommand::List { json } => {
            let list = stories::list_scenarios(&scenarios_dir());
            if json {
                print_json(&list);
            } else {
                for s in &list.scenarios {
                    let origin = if s.builtin { "built-in" } else { "saved" };
                    say!("{:<20} {:<40} ({origin})", s.name, s.title);
                }
            }
            for u in &list.unreadable {
                tell!(
                    "narratoria: note: {} cannot be read: {}",
                    u.path.display(),
                    u.problem
                );
            }
        }
        ScenariosCommand::New { name, from, json } => {
            let path = stories::new_scenario(&scenarios_dir(), &name, from.as_deref())?;
            if json {
                print_json(&serde_json::json!({ "name": name, "path": path }));
            } else {
                say!("{}", path.display());
                tell!("Saved scenario {name:?}. Edit the file, then: narratoria play --new --scenario {name}");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `cards import`: checks a card, and adds it to a story when one is named.
pub fn cards(cmd: CardsCommand) -> Result<ExitCode, CliError> {
    let CardsCommand::Import {
        file,
        role,
        session,
        db,
        json,
    } = cmd;
    let role: CardRole = role
        .parse()
        .map_err(|e: String| CliError::usage(narratoria_core::ErrorCode::CardInvalid, e))?;
    let card = stories::read_card(&file)?;
    if let Some(id) = &session {
        let mut store = open_store(db.as_deref())?;
        stories::add_card(&mut store, id, &card, role)?;
    }
    if json {
        print_json(&card);
    } else {
        say!(
            "{} ({}): {} lore entr{}{}",
            card.name,
            card.spec,
            card.lore.len(),
            if card.lore.len() == 1 { "y" } else { "ies" },
            if card.first_mes.trim().is_empty() {
                ", no greeting"
            } else {
                ", with a greeting"
            }
        );
    }
    for s in &card.lore_skipped {
        tell!("narratoria: note: left out {s}");
    }
    match &session {
        Some(id) => tell!("Added {} to story {id} as {}.", card.name, role_word(role)),
        None => tell!("The card is valid. Add it to a story with --session ID, or start one from it: narratoria scenarios new NAME --from {}", file.display()),
    }
    Ok(ExitCode::SUCCESS)
}

/// `lore import`: checks a lorebook, and adds it to a story or a scenario.
pub fn lore(cmd: LoreCommand) -> Result<ExitCode, CliError> {
    let LoreCommand::Import {
        file,
        session,
        scenario,
        db,
        json,
    } = cmd;
    let book = stories::read_lorebook(&file)?;
    let mut saved_to = None;
    if let Some(id) = &session {
        let mut store = open_store(db.as_deref())?;
        stories::add_lore(&mut store, id, &book)?;
    } else if let Some(name) = &scenario {
        saved_to = Some(stories::add_lore_to_scenario(
            &scenarios_dir(),
            name,
            &book,
        )?);
    }
    if json {
        print_json(&serde_json::json!({
            "name": book.name,
            "entries": book.entries,
            "skipped": book.skipped,
            "session": session,
            "scenarioFile": saved_to,
        }));
    } else {
        say!(
            "{}: {} entr{}",
            book.name.as_deref().unwrap_or("lorebook"),
            book.entries.len(),
            if book.entries.len() == 1 { "y" } else { "ies" }
        );
    }
    for s in &book.skipped {
        tell!("narratoria: note: left out {s}");
    }
    match (&session, &saved_to) {
        (Some(id), _) => tell!("Added to story {id}."),
        (None, Some(path)) => tell!("Saved into {}.", path.display()),
        (None, None) => {
            tell!("The lorebook is valid. Add it with --session ID or --scenario NAME.")
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `sessions new`: starts a story (from a scenario, or the first built-in
/// one) in the given database and prints its id.
pub fn new_session(
    scenario: Option<&str>,
    db: Option<&Path>,
    json: bool,
) -> Result<ExitCode, CliError> {
    let mut store = open_store(db)?;
    let name = scenario.unwrap_or(narratoria_core::scenario::builtin::DEFAULT);
    let id = stories::start_story(&mut store, &scenarios_dir(), name)?;
    if json {
        let state = store
            .current_state(&id)
            .map_err(|e| CliError::usage(e.code(), e.to_string()))?;
        print_json(&serde_json::json!({ "session": id, "scenario": name, "state": state }));
    } else {
        say!("{id}");
    }
    Ok(ExitCode::SUCCESS)
}

fn role_word(role: CardRole) -> &'static str {
    match role {
        CardRole::Player => "the player's character",
        CardRole::Npc => "someone in the story",
    }
}
