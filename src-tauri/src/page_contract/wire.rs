//! Values across the IPC boundary: what the page sends deserializes into the
//! commands' argument types, and an error comes back as the
//! `{code, message, errors?}` the page reads (ui/src/api.ts `asAppError`),
//! through the conversion Tauri applies to a command's `Err`.

use narratoria_app::roles::RoleChoice;
use narratoria_app::AppError;
use narratoria_core::error::{ErrorCode, FieldError};
use narratoria_core::scenario::CardRole;
use narratoria_core::store::StatsQuery;
use serde_json::{json, Value};
use tauri::ipc::InvokeError;

use crate::files::commands::ImportKind;

/// What the page receives when a command fails with `e`.
fn as_the_page_reads_it(e: AppError) -> Value {
    InvokeError::from(e).0
}

#[test]
fn an_app_error_reaches_the_page_as_its_code_and_message() {
    let sent = as_the_page_reads_it(AppError::new(
        ErrorCode::SkillNotFound,
        "no skill named \"lantern\"",
    ));
    assert_eq!(
        sent,
        json!({"code": "skill_not_found", "message": "no skill named \"lantern\""})
    );
}

/// A settings form's refusal carries each field's problem by JSON pointer,
/// which the form shows at that field.
#[test]
fn a_refused_form_brings_its_field_errors() {
    let mut e = AppError::new(ErrorCode::ConfigInvalid, "the settings are not valid");
    e.errors = vec![FieldError {
        pointer: "/maxDice".into(),
        message: "must be at most 1000, not 5000".into(),
    }];
    assert_eq!(
        as_the_page_reads_it(e),
        json!({
            "code": "config_invalid",
            "message": "the settings are not valid",
            "errors": [{"pointer": "/maxDice", "message": "must be at most 1000, not 5000"}]
        })
    );
}

/// The codes the shell makes itself are spelled as the page's sentences
/// know them (ui/src/errors.ts): a code it does not know reads as `io`.
#[test]
fn the_shells_own_error_codes_are_ones_the_page_knows() {
    let sentences = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/src/errors.ts"),
    )
    .expect("ui/src/errors.ts");
    for (code, spelled) in [
        (ErrorCode::DownloadFailed, "download_failed"),
        (ErrorCode::ServerFailed, "server_failed"),
        (ErrorCode::Io, "io"),
        (ErrorCode::ModelLinkInvalid, "model_link_invalid"),
        (ErrorCode::ConfigInvalid, "config_invalid"),
    ] {
        let sent = as_the_page_reads_it(AppError::new(code, "m"));
        assert_eq!(sent["code"], spelled);
        assert!(
            sentences.contains(&format!("\n  {spelled}: ")),
            "ui/src/errors.ts has no sentence for {spelled}"
        );
    }
}

/// A role the page names (`ServerRole`: writer, planner, both) is one the
/// shell reads; any other is refused as `config_invalid`, naming it.
#[test]
fn the_roles_the_page_names_are_read_and_others_refused() {
    for role in ["writer", "planner", "both"] {
        assert!(role.parse::<RoleChoice>().is_ok(), "{role}");
    }
    let refused = as_the_page_reads_it("narrator".parse::<RoleChoice>().unwrap_err());
    assert_eq!(refused["code"], "config_invalid");
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("\"narrator\""),
        "{refused}"
    );
}

/// The structured arguments deserialize from what the page sends.
#[test]
fn structured_arguments_read_as_the_page_sends_them() {
    let query: StatsQuery =
        serde_json::from_value(json!({"skill": "dice-roller", "sinceUnixMs": 1700000000000u64}))
            .unwrap();
    assert_eq!(query.skill.as_deref(), Some("dice-roller"));
    assert_eq!(query.since_unix_ms, Some(1_700_000_000_000));
    let all: StatsQuery = serde_json::from_value(json!({})).unwrap();
    assert_eq!(all, StatsQuery::default());

    for (sent, role) in [("player", CardRole::Player), ("npc", CardRole::Npc)] {
        assert_eq!(
            serde_json::from_value::<CardRole>(json!(sent)).unwrap(),
            role
        );
    }
    for sent in ["card", "lore"] {
        serde_json::from_value::<ImportKind>(json!(sent)).unwrap();
    }
    assert!(serde_json::from_value::<ImportKind>(json!("Card")).is_err());
}
