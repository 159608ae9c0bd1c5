#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| protocol::fuzz::stmt_execute(data));
