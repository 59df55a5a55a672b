//! The TypeScript declarations of the app's error and of the game
//! master's table in `ui/src/bindings/` match the Rust types. Regenerate it with
//! `NARRATORIA_UPDATE_BINDINGS=1 cargo test -p narratoria-app --no-default-features --test bindings`.

use narratoria_app::table::{StoryTable, TableChange};
use narratoria_app::AppError;
use narratoria_core::bindings;
use ts_rs::TS;

#[test]
fn checked_in_bindings_match_the_app_error_and_table() {
    let scratch = tempfile::tempdir().unwrap();
    let config = bindings::config(scratch.path());
    AppError::export_all(&config).unwrap();
    StoryTable::export_all(&config).unwrap();
    TableChange::export_all(&config).unwrap();
    let outcome = bindings::compare_or_update(
        scratch.path(),
        &bindings::checked_in_dir(),
        "NARRATORIA_UPDATE_BINDINGS=1 cargo test -p narratoria-app --no-default-features --test bindings",
    );
    if let Err(e) = outcome {
        panic!("{e}");
    }
}
