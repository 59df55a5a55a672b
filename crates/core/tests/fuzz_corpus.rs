//! Replays the fuzzer's corpora (fuzz/corpus/<target>) through the same
//! functions the fuzz targets call, so that every input that once mattered
//! is checked by `cargo test` without a nightly compiler.

#[path = "../../../fuzz/drivers/core.rs"]
mod drivers;

#[path = "../../../fuzz/drivers/replay.rs"]
mod replay;

#[test]
fn the_plan_corpus_replays_cleanly() {
    assert!(replay::each_input("plan", drivers::plan) > 0);
}

#[test]
fn the_skill_json_corpus_replays_cleanly() {
    assert!(replay::each_input("skill_json", drivers::skill_json) > 0);
}

#[test]
fn the_skill_md_corpus_replays_cleanly() {
    assert!(replay::each_input("skill_md", drivers::skill_md) > 0);
}

#[test]
fn the_config_corpus_replays_cleanly() {
    assert!(replay::each_input("config", drivers::config) > 0);
}
