#![no_main]

#[path = "../drivers/core.rs"]
mod drivers;

libfuzzer_sys::fuzz_target!(|data: &[u8]| drivers::skill_md(data));
