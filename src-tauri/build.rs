//! Declares the app's own commands so that the window's capability lists
//! exactly which of them the page may call.

const COMMANDS: &[&str] = &[
    "model_status",
    "model_load",
    "app_folders",
    "skills_list",
    "skill_set_enabled",
    "skill_save_config",
    "sessions_list",
    "session_current",
    "session_new",
    "session_open",
    "session_rewind",
    "session_export",
    "choose_export_file",
    "choose_model_file",
    "play",
    "scenarios_list",
    "story_new",
    "card_import",
    "lore_import",
    "open_log_folder",
];

fn main() {
    tauri_build::try_build(
        tauri_build::Attributes::new()
            .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS)),
    )
    .expect("tauri build step");
}
