//! The TypeScript declarations in `ui/src/bindings/` match the core types the
//! UI reads. Regenerate them with
//! `NARRATORIA_UPDATE_BINDINGS=1 cargo test -p narratoria-core --test bindings`.

use narratoria_core::bindings;
use narratoria_core::error::{ErrorCode, FieldError};
use narratoria_core::plan::Plan;
use narratoria_core::result::ExecutionResult;
use narratoria_core::skills::corrections::Correction;
use narratoria_core::store::{Alternative, SkillStats, StatsQuery, StoryTree};
use narratoria_core::turn::TurnEvent;
use ts_rs::TS;

#[test]
fn checked_in_bindings_match_the_core_types() {
    let scratch = tempfile::tempdir().unwrap();
    let cfg = bindings::config(scratch.path());
    ErrorCode::export_all(&cfg).unwrap();
    FieldError::export_all(&cfg).unwrap();
    ExecutionResult::export_all(&cfg).unwrap();
    Plan::export_all(&cfg).unwrap();
    TurnEvent::export_all(&cfg).unwrap();
    StoryTree::export_all(&cfg).unwrap();
    Alternative::export_all(&cfg).unwrap();
    SkillStats::export_all(&cfg).unwrap();
    StatsQuery::export_all(&cfg).unwrap();
    Correction::export_all(&cfg).unwrap();
    let outcome = bindings::compare_or_update(
        scratch.path(),
        &bindings::checked_in_dir(),
        "NARRATORIA_UPDATE_BINDINGS=1 cargo test -p narratoria-core --test bindings",
    );
    if let Err(e) = outcome {
        panic!("{e}");
    }
}
