//! Replays the fuzzer's corpus (fuzz/corpus/dice_formula) through the same
//! function the fuzz target calls, so that every input that once mattered
//! is checked by `cargo test` without a nightly compiler.

use narratoria_skills_builtin::dice::formula;

#[path = "../../../fuzz/drivers/dice.rs"]
mod drivers;

#[path = "../../../fuzz/drivers/replay.rs"]
mod replay;

#[test]
fn the_dice_formula_corpus_replays_cleanly() {
    assert!(replay::each_input("dice_formula", drivers::dice_formula) > 0);
}
