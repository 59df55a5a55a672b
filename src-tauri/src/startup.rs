//! Start-up: resolve folders, open the app, confine the asset protocol,
//! forward skill changes, and load the default model in the background.

use std::path::Path;
use std::sync::Arc;

use narratoria_app::assets::AssetFolders;
use narratoria_app::chosen_paths::ChosenPaths;
use narratoria_app::desktop::{DesktopPaths, SharedApp};
use narratoria_app::models::Models;
use tauri::Manager;

use crate::{controls, files, logs, model, play, sessions, skills, stories, tree};

/// The app as every command sees it.
pub type AppState = Arc<SharedApp>;

/// Builds and runs the window; exits with a message when the app cannot open.
pub fn run() {
    tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .manage(ChosenPaths::default())
        .register_uri_scheme_protocol(files::assets::SCHEME, |ctx, request| {
            let folders = ctx.app_handle().try_state::<AssetFolders>();
            files::assets::respond(folders.as_deref(), &request)
        })
        .manage(model::models::ModelStatus::default())
        .manage(model::library::Downloads::default())
        .setup(|tauri_app| {
            logs::panics::tell_window(tauri_app.handle());
            let resources = tauri_app.path().resource_dir().ok();
            let paths = DesktopPaths::from_env(resources.as_deref());
            let app = SharedApp::open(&paths).map_err(|e| {
                eprintln!("narratoria-desktop: {} ({})", e.message, e.code);
                Box::new(e) as Box<dyn std::error::Error>
            })?;
            // Assets are served by `narratoria-asset:` alone, each file
            // judged when read; the built-in asset protocol's scope stays empty.
            tauri_app.manage(paths.asset_folders());
            tracing::info!(
                skills = ?paths.skill_roots,
                sessions = %paths.session_db.display(),
                "window opening"
            );
            let app: AppState = Arc::new(app);
            tauri_app.manage(Arc::clone(&app));
            tauri_app.manage(paths.clone());
            tauri_app.manage(Models::open(resources.as_deref()));
            skills::commands::forward_changes(tauri_app.handle().clone(), &app);
            model::servers::forward_waits(tauri_app.handle().clone(), &app);
            if let Some(choice) = &paths.model {
                let path = choice.path().map(Path::to_path_buf);
                model::commands::load_in_background(tauri_app.handle().clone(), path);
            }
            Ok(())
        })
        .invoke_handler(tauri::generate_handler![
            model::commands::model_status,
            model::commands::model_load,
            model::commands::app_folders,
            model::library::models_list,
            model::library::models_download,
            model::library::models_add,
            model::library::models_hub_files,
            model::library::models_add_from_hub,
            model::library::models_use,
            model::library::models_remove,
            model::servers::servers_show,
            model::servers::servers_models,
            model::servers::servers_check,
            model::servers::servers_set,
            model::servers::servers_clear,
            skills::commands::skills_list,
            skills::commands::skill_set_enabled,
            skills::commands::skill_save_config,
            skills::commands::skills_stats,
            sessions::commands::sessions_list,
            sessions::commands::session_current,
            sessions::commands::session_new,
            sessions::commands::session_open,
            sessions::commands::session_rewind,
            sessions::commands::session_rename,
            sessions::commands::session_delete,
            sessions::commands::session_export,
            sessions::commands::sessions_export_run,
            files::commands::choose_export_file,
            files::commands::choose_model_file,
            files::commands::choose_import_file,
            play::commands::play,
            controls::commands::turn_stop,
            controls::commands::narration_regenerate,
            controls::commands::narration_continue,
            controls::commands::narration_edit,
            controls::commands::turn_regenerate,
            controls::commands::turn_correct,
            controls::commands::corrections_list,
            controls::commands::correction_remove,
            controls::commands::turn_edit,
            controls::commands::alternatives_list,
            controls::commands::alternative_choose,
            tree::commands::story_undo,
            tree::commands::story_redo,
            tree::commands::story_tree,
            tree::commands::branches_list,
            tree::commands::branch_new,
            tree::commands::branch_switch,
            tree::commands::branch_rename,
            tree::commands::branch_delete,
            stories::commands::scenarios_list,
            stories::commands::story_new,
            stories::commands::card_import,
            stories::commands::lore_import,
            stories::commands::story_note,
            stories::commands::story_note_set,
            stories::commands::story_language,
            stories::commands::story_language_set,
            stories::commands::story_table,
            stories::commands::story_table_change,
            logs::commands::open_log_folder,
        ])
        .run(tauri::generate_context!())
        .expect("the window could not start");
}
