//! Declares the app's own commands so that the window's capability lists
//! exactly which of them the page may call.

const COMMANDS: &[&str] = &[
    "model_status",
    "model_load",
    "app_folders",
    "models_list",
    "models_download",
    "models_add",
    "models_hub_files",
    "models_add_from_hub",
    "models_use",
    "models_remove",
    "skills_list",
    "skill_set_enabled",
    "skill_save_config",
    "sessions_list",
    "session_current",
    "session_new",
    "session_open",
    "session_rewind",
    "session_rename",
    "session_delete",
    "session_export",
    "choose_export_file",
    "choose_model_file",
    "choose_import_file",
    "play",
    "turn_stop",
    "narration_regenerate",
    "narration_continue",
    "narration_edit",
    "turn_regenerate",
    "turn_edit",
    "alternatives_list",
    "alternative_choose",
    "story_undo",
    "story_redo",
    "story_tree",
    "branches_list",
    "branch_new",
    "branch_switch",
    "branch_rename",
    "branch_delete",
    "scenarios_list",
    "story_new",
    "card_import",
    "lore_import",
    "story_note",
    "story_note_set",
    "story_language",
    "story_language_set",
    "open_log_folder",
];

fn main() {
    tauri_build::try_build(
        tauri_build::Attributes::new()
            .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS)),
    )
    .expect("tauri build step");
}
