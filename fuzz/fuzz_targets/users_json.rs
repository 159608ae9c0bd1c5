#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| accounts::fuzz::users_json(data));
