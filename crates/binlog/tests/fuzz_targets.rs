//! The fuzz targets of `binlog::fuzz` over their seed corpus (`fuzz/corpus/<target>/`) plus
//! real binlog files (`tests/fixtures`), then a fixed-seed mutation loop (docs/fuzzing.md).

#[global_allocator]
static ALLOC: fuzzing::LimitAlloc<{ 1 << 30 }> = fuzzing::LimitAlloc;

fn fixtures() -> Vec<Vec<u8>> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mysql-binlogs");
    let files: Vec<Vec<u8>> = fuzzing::read_dir_inputs(&dir)
        .into_iter()
        .filter(|f| f.starts_with(&[0xfe, b'b', b'i', b'n']))
        .collect();
    assert!(files.len() >= 5, "binlog fixtures missing from {}", dir.display());
    files
}

#[test]
fn gtid_set_text() {
    fuzzing::exercise("gtid_set_text", &[], binlog::fuzz::gtid_set_text);
}

#[test]
fn gtid_set_binary() {
    fuzzing::exercise("gtid_set_binary", &[], binlog::fuzz::gtid_set_binary);
}

#[test]
fn binlog_file() {
    fuzzing::exercise("binlog_file", &fixtures(), binlog::fuzz::binlog_file);
}

#[test]
fn binlog_events() {
    let seeds: Vec<Vec<u8>> = fixtures()
        .iter()
        .map(|f| binlog::fuzz::strip_checksums(f))
        .filter(|s| !s.is_empty())
        .collect();
    assert!(!seeds.is_empty());
    fuzzing::exercise("binlog_events", &seeds, binlog::fuzz::binlog_events);
}
