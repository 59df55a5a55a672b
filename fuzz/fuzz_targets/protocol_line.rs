#![no_main]

#[path = "../drivers/protocol.rs"]
mod drivers;

libfuzzer_sys::fuzz_target!(|data: &[u8]| drivers::protocol_line(data));
