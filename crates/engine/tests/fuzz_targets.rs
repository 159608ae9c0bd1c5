//! The fuzz targets of `engine::fuzz` (redo records, checkpoints) through the workspace's
//! `fuzzing` driver (docs/fuzzing.md): the committed corpus `fuzz/corpus/<target>/` plus the
//! engine's generated seeds (a valid checkpoint, a valid redo data region), then the fixed-seed
//! mutation loop, with any allocation over 1 GiB an abort.

#[global_allocator]
static ALLOC: fuzzing::LimitAlloc<{ 1 << 30 }> = fuzzing::LimitAlloc;

fn seeds(name: &str) -> Vec<Vec<u8>> {
    let seeds: Vec<Vec<u8>> =
        engine::fuzz::seeds().into_iter().filter(|(n, _)| *n == name).map(|(_, s)| s).collect();
    assert!(!seeds.is_empty(), "{name}: no generated seed");
    seeds
}

#[test]
fn redo_records() {
    fuzzing::exercise("redo_records", &seeds("redo_records"), engine::fuzz::redo_records);
}

#[test]
fn checkpoint() {
    fuzzing::exercise("checkpoint", &seeds("checkpoint"), engine::fuzz::checkpoint);
}
