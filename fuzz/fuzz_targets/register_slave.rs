#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| replication::fuzz::register_slave(data));
