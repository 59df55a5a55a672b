#![no_main]

// The formula module alone: building the whole built-in skills crate (its
// embedding model's dependencies) instrumented would take far longer.
#[path = "../../crates/skills-builtin/src/dice/formula.rs"]
#[allow(dead_code)]
mod formula;

#[path = "../drivers/dice.rs"]
mod drivers;

libfuzzer_sys::fuzz_target!(|data: &[u8]| drivers::dice_formula(data));
