//! Fuzz targets of this crate's decoders of disk and network bytes (docs/fuzzing.md): each is
//! a plain function over `&[u8]`, run by the `fuzz/` cargo-fuzz crate for long runs and by
//! `tests/fuzz_targets.rs` (through the `fuzzing` crate) over the seed corpus in every test run.
//!
//! Invariant checked by each: decoding never panics, whatever the bytes; what decodes also
//! re-encodes where the crate has an encoder, and the re-encoded form decodes to the same value.

use crate::event::{decode_event, BinlogFileReader, ChecksumAlg, EventBody, FormatContext};
use crate::gtid::GtidSet;

/// A GTID set in MySQL's text form (`SET GLOBAL gtid_purged`, `WAIT_FOR_EXECUTED_GTID_SET`,
/// `SOURCE_POS_WAIT`, a replica's `Retrieved_Gtid_Set`).
pub fn gtid_set_text(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(set) = text.parse::<GtidSet>() {
        let printed = set.to_string();
        let again: GtidSet = printed.parse().expect("a printed GTID set parses");
        assert_eq!(again, set, "text round trip");
    }
}

/// A GTID set in the binary form of PREVIOUS_GTIDS events and COM_BINLOG_DUMP_GTID.
pub fn gtid_set_binary(data: &[u8]) {
    if let Ok((set, used)) = GtidSet::decode_binary(data) {
        assert!(used <= data.len());
        let mut out = Vec::new();
        set.encode_binary(&mut out);
        assert_eq!(out.len(), set.binary_len());
        let (again, _) = GtidSet::decode_binary(&out).expect("an encoded GTID set decodes");
        assert_eq!(again, set, "binary round trip");
    }
}

/// A whole binlog file image (magic, FORMAT_DESCRIPTION, events), as the reader of local files
/// and `mysqlbinlog`-style consumers see it; rows events are decoded against their table maps.
pub fn binlog_file(data: &[u8]) {
    let Ok(mut reader) = BinlogFileReader::new(data) else { return };
    while let Some(Ok(read)) = reader.next() {
        if let EventBody::Rows(rows) = &read.event.body {
            let _ = reader.rows(rows, read.offset);
        }
    }
}

/// A sequence of events without checksums (`binlog_checksum=NONE`, as a replica may receive
/// them), so mutations reach the body decoders instead of failing the CRC: table maps are kept
/// and rows events decoded against them.
pub fn binlog_events(data: &[u8]) {
    let ctx = FormatContext { checksum: ChecksumAlg::None };
    let mut tables = std::collections::HashMap::new();
    let mut pos = 0usize;
    while pos < data.len() {
        let Ok(event) = decode_event(&data[pos..], &ctx, pos as u64) else { return };
        match &event.body {
            EventBody::TableMap(tm) => {
                tables.insert(tm.table_id, tm.clone());
            }
            EventBody::Rows(rows) => {
                if let Some(table) = tables.get(&rows.table_id) {
                    let _ = rows.rows(table, pos as u64);
                }
            }
            _ => {}
        }
        let size = event.header.event_size as usize;
        assert!(size > 0, "a decoded event has a size");
        pos += size;
    }
}

/// The events of a checksummed binlog file image (magic first) re-framed without their CRC32
/// trailers: seeds for [`binlog_events`] made from real files.
pub fn strip_checksums(file: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let Ok(reader) = BinlogFileReader::new(file) else { return out };
    for read in reader.flatten() {
        if read.event.header.event_type == crate::event::EventType::FORMAT_DESCRIPTION {
            continue;
        }
        let raw = read.raw;
        if raw.len() < crate::event::HEADER_LEN + 4 {
            continue;
        }
        let mut event = raw[..raw.len() - 4].to_vec();
        let size = event.len() as u32;
        event[crate::event::EVENT_SIZE_OFFSET..crate::event::EVENT_SIZE_OFFSET + 4]
            .copy_from_slice(&size.to_le_bytes());
        out.extend_from_slice(&event);
    }
    out
}
