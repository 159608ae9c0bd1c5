//! Checkpoint files: a snapshot of every table's committed rows, schema and counters, plus the
//! transactions prepared but undecided at the checkpoint LSN.
//!
//! Protocol (see `Engine::checkpoint`): pick LSN L while commits are held off (so every commit
//! before L is visible and none after L has started applying), note the prepared set at L,
//! read the tables (rows committed after L may be included), flush the redo to the end of
//! everything committed so far, then write `checkpoint.tmp`, fsync, rename to `checkpoint`, fsync
//! the directory. Recovery replays from L; records carry whole row images, so replaying a change
//! the snapshot already holds is harmless, and flushing before the file is written guarantees
//! the snapshot holds nothing the redo could lose.

use std::path::Path;

use binlog::gtid::GtidSet;
use vfs::{OpenMode, VfsRef};

use crate::codec::{Put, Reader};
use crate::error::{Error, Result};
use crate::schema::{decode_schema, encode_schema, TableSchema};
use crate::table::Image;
use crate::value::Key;

pub(crate) const FILE_NAME: &str = "checkpoint";
const TMP_NAME: &str = "checkpoint.tmp";
const MAGIC: &[u8; 8] = b"BLDCKPT1";
/// Version 2 added the kind byte of prepared entries (DDL prepared for 2PC); version 1 files
/// (row ops only) are still read.
/// Version 3 added the executed GTID set after the prepared entries.
const VERSION: u32 = 3;

pub(crate) struct TableImage {
    pub(crate) schema: TableSchema,
    pub(crate) auto_inc: u64,
    pub(crate) next_row_id: u64,
    /// The committed images, shared with the table (a checkpoint copies no row).
    pub(crate) rows: Vec<(Key, Image)>,
}

pub(crate) struct Snapshot {
    pub(crate) lsn: u64,
    pub(crate) max_xid: u64,
    pub(crate) next_table_id: u32,
    pub(crate) tables: Vec<TableImage>,
    /// Transactions prepared before `lsn` and undecided at it.
    pub(crate) prepared: Vec<PreparedImage>,
    /// The engine's executed GTIDs at `lsn` (version 3; empty for older files).
    pub(crate) gtid_executed: GtidSet,
}

/// A prepared transaction in a checkpoint: its row ops, or its DDL list (`ddl`).
pub(crate) struct PreparedImage {
    pub(crate) xid: u64,
    pub(crate) ddl: bool,
    pub(crate) bytes: Vec<u8>,
}

// Format (checkpoint file): "BLDCKPT1" | u32 version | u64 lsn | u64 max_xid |
// u32 next_table_id | u32 table count | per table: schema, u64 auto_inc, u64 next_row_id,
// u64 row count, per row: bytes key, row | u32 prepared count | per prepared: u64 xid,
// u8 kind (1 row ops, 2 DDL list; absent in version 1) | bytes | u32 crc32 of everything
// before it.
pub(crate) fn encode(s: &Snapshot) -> Vec<u8> {
    let mut all = Vec::new();
    encode_to(s, &mut |piece| {
        all.extend_from_slice(piece);
        Ok(())
    })
    .expect("appending to a Vec cannot fail");
    all
}

/// About how many bytes [`encode_to`] buffers before it hands them on.
const PIECE_BYTES: usize = 4 << 20;

/// Encodes `s` (the format above) and hands the bytes to `out` in order, in pieces of about
/// [`PIECE_BYTES`], the CRC computed as they go: writing a checkpoint needs a bounded buffer
/// whatever the data size (before, the whole file was built in memory first).
pub(crate) fn encode_to(s: &Snapshot, out: &mut dyn FnMut(&[u8]) -> Result<()>) -> Result<()> {
    let mut crc = crc32fast::Hasher::new();
    let mut b = Vec::with_capacity(PIECE_BYTES + (64 << 10));
    let mut spill = |b: &mut Vec<u8>, crc: &mut crc32fast::Hasher| -> Result<()> {
        crc.update(b);
        out(b)?;
        b.clear();
        Ok(())
    };
    b.extend_from_slice(MAGIC);
    b.put_u32(VERSION);
    b.put_u64(s.lsn);
    b.put_u64(s.max_xid);
    b.put_u32(s.next_table_id);
    b.put_u32(s.tables.len() as u32);
    for t in &s.tables {
        encode_schema(&mut b, &t.schema);
        b.put_u64(t.auto_inc);
        b.put_u64(t.next_row_id);
        b.put_u64(t.rows.len() as u64);
        for (k, r) in &t.rows {
            b.put_bytes(k);
            b.extend_from_slice(r.as_bytes());
            if b.len() >= PIECE_BYTES {
                spill(&mut b, &mut crc)?;
            }
        }
    }
    b.put_u32(s.prepared.len() as u32);
    for p in &s.prepared {
        b.put_u64(p.xid);
        b.put_u8(if p.ddl { 2 } else { 1 });
        b.put_bytes(&p.bytes);
    }
    let mut gtids = Vec::new();
    s.gtid_executed.encode_binary(&mut gtids);
    b.put_bytes(&gtids);
    let mut tail = crc.clone();
    tail.update(&b);
    b.put_u32(tail.finalize());
    out(&b)
}

pub(crate) fn decode(buf: &[u8]) -> Result<Snapshot> {
    let corrupt = |position| Error::Corrupt { what: "checkpoint", position };
    if buf.len() < 12 {
        return Err(corrupt(0));
    }
    let (body, crc) = buf.split_at(buf.len() - 4);
    if crc32fast::hash(body).to_le_bytes() != crc {
        return Err(corrupt(body.len() as u64));
    }
    let mut r = Reader::new(body, "checkpoint", 0);
    if r.take(8)? != MAGIC {
        return Err(corrupt(0));
    }
    let version = r.u32()?;
    if !(1..=VERSION).contains(&version) {
        return Err(corrupt(8));
    }
    let lsn = r.u64()?;
    let max_xid = r.u64()?;
    let next_table_id = r.u32()?;
    let ntables = r.u32()?;
    let mut tables = Vec::new();
    for _ in 0..ntables {
        let schema = decode_schema(&mut r)?;
        let auto_inc = r.u64()?;
        let next_row_id = r.u64()?;
        let nrows = r.u64()?;
        let mut rows = Vec::new();
        for _ in 0..nrows {
            let key: Key = r.bytes()?.into();
            // The row's bytes are the image: checked, copied, not decoded.
            let row = Image::read(&mut r)?;
            if row.len() != schema.columns.len() {
                return Err(r.corrupt());
            }
            rows.push((key, row));
        }
        tables.push(TableImage { schema, auto_inc, next_row_id, rows });
    }
    let nprep = r.u32()?;
    let mut prepared = Vec::new();
    for _ in 0..nprep {
        let xid = r.u64()?;
        let ddl = match version {
            1 => false,
            _ => match r.u8()? {
                1 => false,
                2 => true,
                _ => return Err(r.corrupt()),
            },
        };
        prepared.push(PreparedImage { xid, ddl, bytes: r.bytes()?.to_vec() });
    }
    let gtid_executed = if version >= 3 {
        let raw = r.bytes()?;
        match GtidSet::decode_binary(raw) {
            Ok((set, used)) if used == raw.len() => set,
            _ => return Err(r.corrupt()),
        }
    } else {
        GtidSet::new()
    };
    if !r.is_empty() {
        return Err(r.corrupt());
    }
    Ok(Snapshot { lsn, max_xid, next_table_id, tables, prepared, gtid_executed })
}

/// Writes the snapshot durably and atomically (temp file, fsync, rename, directory fsync),
/// encoding it piece by piece ([`encode_to`]).
pub(crate) fn write(vfs: &VfsRef, dir: &Path, s: &Snapshot) -> Result<()> {
    let tmp = dir.join(TMP_NAME);
    if vfs.exists(&tmp)? {
        vfs.remove_file(&tmp)?;
    }
    let f = vfs.open(&tmp, OpenMode::CreateNew)?;
    let mut at = 0u64;
    encode_to(s, &mut |piece| {
        f.write_at(piece, at)?;
        at += piece.len() as u64;
        Ok(())
    })?;
    f.sync_data()?;
    vfs.rename(&tmp, &dir.join(FILE_NAME))?;
    vfs.sync_dir(dir)?;
    Ok(())
}

/// Reads the checkpoint, if one was ever written.
pub(crate) fn read(vfs: &VfsRef, dir: &Path) -> Result<Option<Snapshot>> {
    let path = dir.join(FILE_NAME);
    if !vfs.exists(&path)? {
        return Ok(None);
    }
    let f = vfs.open(&path, OpenMode::Read)?;
    let len = usize::try_from(f.len()?)
        .map_err(|_| Error::Corrupt { what: "checkpoint", position: 0 })?;
    let mut buf = vec![0u8; len];
    f.read_exact_at(&mut buf, 0)?;
    decode(&buf).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{Column, ColumnType};
    use crate::value::Value;

    /// Written in pieces, the file is the same bytes as before: one CRC over the whole body at
    /// the end (what `decode` checks), and it reads back row for row.
    #[test]
    fn a_checkpoint_written_in_pieces_is_one_file_with_one_crc() {
        let schema = TableSchema::new(
            "t",
            vec![
                Column::new("id", ColumnType::Integer { bytes: 8, unsigned: false }),
                Column::new("v", ColumnType::VarChar(200)),
            ],
            vec![0],
        );
        let rows: Vec<(Key, Image)> = (0..40_000i64)
            .map(|i| {
                let row = vec![Value::Int(i), Value::Bytes(vec![b'a' + (i % 26) as u8; 150])];
                (crate::value::encode_key(&row[..1]), Image::from(row))
            })
            .collect();
        let snap = Snapshot {
            lsn: 77,
            max_xid: 5,
            next_table_id: 2,
            tables: vec![TableImage { schema, auto_inc: 1, next_row_id: 1, rows }],
            prepared: vec![PreparedImage { xid: 9, ddl: false, bytes: vec![1, 2, 3] }],
            gtid_executed: GtidSet::new(),
        };
        let mut pieces = Vec::new();
        encode_to(&snap, &mut |p| {
            pieces.push(p.to_vec());
            Ok(())
        })
        .expect("encode");
        assert!(pieces.len() > 1, "more than one piece for {} rows", 40_000);
        let file = pieces.concat();
        let (body, crc) = file.split_at(file.len() - 4);
        assert_eq!(crc32fast::hash(body).to_le_bytes(), crc);
        assert_eq!(file, encode(&snap));
        let back = decode(&file).expect("decode");
        assert_eq!(back.lsn, 77);
        assert_eq!(back.tables[0].rows.len(), 40_000);
        assert_eq!(back.tables[0].rows[123], snap.tables[0].rows[123]);
        assert_eq!(back.prepared[0].bytes, vec![1, 2, 3]);
    }
}
