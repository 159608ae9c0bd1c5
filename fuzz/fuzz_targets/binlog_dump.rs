#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| replication::fuzz::binlog_dump(data));
