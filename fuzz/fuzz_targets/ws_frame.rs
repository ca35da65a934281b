#![no_main]
//! `undercooked::fuzz_entry::ws_frame` on every input the fuzzer makes.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    undercooked::fuzz_entry::ws_frame(data);
});
