//! Fuzz targets (docs/fuzzing.md): plain `pub fn(&[u8])` over the engine's decoders of bytes
//! read from disk. None may panic, abort, allocate on a count not checked against the bytes
//! present, or hang, whatever the input. Run over a seed corpus and a fixed-seed mutation loop
//! by `tests/fuzz_targets.rs`.

use crate::checkpoint;
use crate::engine::fuzz_record_payload;
use crate::redo::fuzz_records;

/// A redo file's data region: every offset that holds a record header is checked as replay
/// checks it (length within the file, LSN, kind, CRC with salt 0), and every record's payload,
/// CRC or not, is decoded as replay would decode its kind (ops, DDL lists, GTIDs). The first
/// eight bytes choose the file's start LSN so LSN checks can pass.
pub fn redo_records(data: &[u8]) {
    let (start, body) = match data.split_first_chunk::<8>() {
        Some((s, rest)) => (u64::from_le_bytes(*s) & !0xffff, rest),
        None => (0, data),
    };
    for (kind, payload) in fuzz_records(start, body) {
        fuzz_record_payload(kind, payload);
    }
}

/// A checkpoint file image: decoded; when it decodes, encoding it again and decoding that
/// gives the same bytes (the round trip).
pub fn checkpoint(data: &[u8]) {
    if let Ok(snap) = checkpoint::decode(data) {
        let again = checkpoint::encode(&snap);
        let snap2 = checkpoint::decode(&again).expect("a re-encoded checkpoint decodes");
        assert_eq!(checkpoint::encode(&snap2), again, "checkpoint round trip");
    }
}

/// A valid checkpoint and a valid redo data region, for seeds.
pub fn seeds() -> Vec<(&'static str, Vec<u8>)> {
    crate::engine::fuzz_seeds()
}
