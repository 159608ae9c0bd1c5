#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| binlog::fuzz::binlog_events(data));
