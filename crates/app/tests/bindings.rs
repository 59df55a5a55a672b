//! The TypeScript declaration of the app's error in `ui/src/bindings/`
//! matches the Rust type. Regenerate it with
//! `NARRATORIA_UPDATE_BINDINGS=1 cargo test -p narratoria-app --no-default-features --test bindings`.

use narratoria_app::AppError;
use narratoria_core::bindings;
use ts_rs::TS;

#[test]
fn checked_in_bindings_match_the_app_error() {
    let scratch = tempfile::tempdir().unwrap();
    AppError::export_all(&bindings::config(scratch.path())).unwrap();
    let outcome = bindings::compare_or_update(
        scratch.path(),
        &bindings::checked_in_dir(),
        "NARRATORIA_UPDATE_BINDINGS=1 cargo test -p narratoria-app --no-default-features --test bindings",
    );
    if let Err(e) = outcome {
        panic!("{e}");
    }
}
