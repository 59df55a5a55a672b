//! `narratoria sessions tree|branch|switch|rename|delete|undo|redo`: moving
//! about a story's tree from scripts and tests (docs/stories.md).

use std::process::ExitCode;

use narratoria_core::store::{StoreError, StoryTree};
use serde_json::json;

use super::common::open_store;
use super::common::{print_json, CliError};
use crate::cli::SessionsCommand;

fn fail(e: StoreError) -> CliError {
    CliError::usage(e.code(), e.to_string())
}

/// Runs one of the tree commands; each prints JSON saying where the story
/// now stands (`tree` without `--json` prints it as text).
pub fn run(cmd: SessionsCommand) -> Result<ExitCode, CliError> {
    match cmd {
        SessionsCommand::Tree { id, session, json } => {
            let store = open_store(session.as_deref())?;
            let tree = store.tree(&id).map_err(fail)?;
            if json {
                print_json(&tree);
            } else {
                say_part!("{}", outline(&tree));
            }
        }
        SessionsCommand::Branch {
            id,
            turn,
            name,
            session,
        } => {
            let mut store = open_store(session.as_deref())?;
            let made = store.branch(&id, turn, name.as_deref()).map_err(fail)?;
            store.switch_branch(&id, &made.name).map_err(fail)?;
            print_json(&json!({"session": id, "branch": made.name, "turns": made.turns}));
        }
        SessionsCommand::Switch {
            id,
            branch,
            session,
        } => {
            let mut store = open_store(session.as_deref())?;
            store.switch_branch(&id, &branch).map_err(fail)?;
            let info = store.session(&id).map_err(fail)?;
            print_json(&json!({"session": id, "branch": info.branch, "turns": info.turns}));
        }
        SessionsCommand::Rename { id, title, session } => {
            let store = open_store(session.as_deref())?;
            store.rename(&id, title.trim()).map_err(fail)?;
            print_json(&json!({"session": id, "title": title.trim()}));
        }
        SessionsCommand::Delete { id, session } => {
            let store = open_store(session.as_deref())?;
            store.delete_session(&id).map_err(fail)?;
            print_json(&json!({"session": id, "deleted": true}));
        }
        SessionsCommand::Undo { id, session } => {
            let mut store = open_store(session.as_deref())?;
            let moved = store.undo(&id).map_err(fail)?;
            moved_to(&store, &id, moved)?;
        }
        SessionsCommand::Redo { id, session } => {
            let mut store = open_store(session.as_deref())?;
            let moved = store.redo(&id).map_err(fail)?;
            moved_to(&store, &id, moved)?;
        }
        _ => unreachable!("handled by sessions::run"),
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints where the current branch ends after an undo or redo.
fn moved_to(store: &narratoria_core::store::Store, id: &str, moved: bool) -> Result<(), CliError> {
    let info = store.session(id).map_err(fail)?;
    print_json(&json!({
        "session": id,
        "moved": moved,
        "branch": info.branch,
        "turns": info.turns,
        "state": store.current_state(id).map_err(fail)?,
    }));
    Ok(())
}

/// The tree as indented text: each turn under the turn it follows, branch
/// heads marked.
fn outline(tree: &StoryTree) -> String {
    let mut out = format!("{} ({})\n", tree.session.title, tree.session.id);
    fn walk(tree: &StoryTree, parent: Option<&str>, depth: usize, out: &mut String) {
        for t in tree.turns.iter().filter(|t| t.parent.as_deref() == parent) {
            let heads: Vec<String> = tree
                .branches
                .iter()
                .filter(|b| b.head.as_deref() == Some(t.id.as_str()))
                .map(|b| {
                    if b.current {
                        format!("*{}", b.name)
                    } else {
                        b.name.clone()
                    }
                })
                .collect();
            let mark = if heads.is_empty() {
                String::new()
            } else {
                format!("  [{}]", heads.join(", "))
            };
            out.push_str(&format!(
                "{}{}. > {}{mark}\n",
                "  ".repeat(depth),
                t.number,
                t.input
            ));
            walk(tree, Some(&t.id), depth + 1, out);
        }
    }
    walk(tree, None, 0, &mut out);
    out
}
