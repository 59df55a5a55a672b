//! What the page and the shell agree on, checked without a window: the
//! commands the page may call (defined, registered, declared for the
//! capability), the argument names it sends (Tauri reads each argument
//! under its name in camelCase), the values it sends and the error it
//! reads back (`{code, message, errors?}`, ui/src/api.ts).
//!
//! The names are read from the sources on both sides (`sources.rs`); the
//! values and errors go through the same serde and Tauri conversions a
//! real call does (`wire.rs`).

mod sources;
mod wire;

use std::collections::{BTreeMap, BTreeSet};

use sources::{
    allowed_commands, declared_commands, defined_commands, page_calls, registered_commands,
};

#[test]
fn every_command_is_defined_registered_and_declared_alike() {
    let defined: BTreeSet<String> = defined_commands().into_keys().collect();
    let registered = registered_commands();
    let declared = declared_commands();
    assert_eq!(
        defined, registered,
        "defined (left) and registered in startup.rs (right)"
    );
    assert_eq!(
        registered, declared,
        "registered (left) and declared in build.rs (right)"
    );
    // A command the capability does not allow is refused in the window,
    // however it is declared.
    assert_eq!(
        declared,
        allowed_commands(),
        "declared in build.rs (left) and allowed in capabilities/default.json (right)"
    );
}

/// The page sends every argument a command needs under the name Tauri
/// reads it by, and nothing the command does not take: a name out of step
/// (`api_key_env` for `apiKeyEnv`) would be dropped, or refused as missing.
#[test]
fn the_page_sends_each_command_the_arguments_it_takes_in_camel_case() {
    let defined = defined_commands();
    let calls = page_calls();
    assert!(
        calls.len() > 40,
        "too few calls found in ui/src: {}",
        calls.len()
    );
    let mut wrong = Vec::new();
    let mut called = BTreeSet::new();
    for call in &calls {
        called.insert(call.command.clone());
        let Some(args) = defined.get(&call.command) else {
            wrong.push(format!(
                "{}: calls {}, which no command is",
                call.at, call.command
            ));
            continue;
        };
        let taken: BTreeMap<&str, bool> =
            args.iter().map(|a| (a.key.as_str(), a.optional)).collect();
        for key in &call.keys {
            if !taken.contains_key(key.as_str()) {
                wrong.push(format!(
                    "{}: {} takes no argument {key:?}",
                    call.at, call.command
                ));
            }
        }
        for (key, optional) in &taken {
            if !optional && !call.keys.iter().any(|k| k == key) {
                wrong.push(format!("{}: {} needs {key:?}", call.at, call.command));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    let unused: Vec<&String> = defined.keys().filter(|c| !called.contains(*c)).collect();
    assert!(
        unused.is_empty(),
        "commands the page never calls: {unused:?}"
    );
}

#[test]
fn argument_names_become_the_keys_tauri_reads() {
    assert_eq!(sources::camel_case("api_key_env"), "apiKeyEnv");
    assert_eq!(sources::camel_case("on_event"), "onEvent");
    assert_eq!(sources::camel_case("id"), "id");
}
