#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| binlog::fuzz::gtid_set_binary(data));
