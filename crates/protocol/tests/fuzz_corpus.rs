//! Replays the fuzzer's corpus (fuzz/corpus/protocol_line) through the same
//! function the fuzz target calls, so that every input that once mattered
//! is checked by `cargo test` without a nightly compiler.

#[path = "../../../fuzz/drivers/protocol.rs"]
mod drivers;

#[path = "../../../fuzz/drivers/replay.rs"]
mod replay;

#[test]
fn the_protocol_line_corpus_replays_cleanly() {
    assert!(replay::each_input("protocol_line", drivers::protocol_line) > 0);
}
