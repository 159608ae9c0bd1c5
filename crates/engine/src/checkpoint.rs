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
//!
//! Delta checkpoints (docs/engine.md, "Checkpoints"): the base above is extended by delta
//! files holding only what changed since the previous checkpoint of the chain, named in order
//! by the chain manifest, which is replaced atomically after its newest delta is durable.
//! Invariants: the manifest never names a file that is not durable; redo is recycled only
//! below the newest checkpoint the manifest (or a base) makes durable; a manifest naming an
//! older base than `checkpoint` is the one legal leftover of a crash (ignored), and every
//! other mismatch is damage refused with the file and offset. Like InnoDB's fuzzy
//! checkpoints (`log_checkpoint`) only changed data is written, but as a logical delta of
//! row images rather than dirty pages.

use std::collections::HashMap;
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

/// Bytes handed on in pieces of about [`PIECE_BYTES`], the CRC computed as they go: writing a
/// checkpoint needs a bounded buffer whatever the data size.
struct Encoder<'a> {
    b: Vec<u8>,
    crc: crc32fast::Hasher,
    out: &'a mut dyn FnMut(&[u8]) -> Result<()>,
}

impl<'a> Encoder<'a> {
    fn new(out: &'a mut dyn FnMut(&[u8]) -> Result<()>) -> Encoder<'a> {
        Encoder { b: Vec::with_capacity(PIECE_BYTES + (64 << 10)), crc: Default::default(), out }
    }

    /// Hands the buffer on once it holds a piece.
    fn maybe_spill(&mut self) -> Result<()> {
        if self.b.len() >= PIECE_BYTES {
            self.crc.update(&self.b);
            (self.out)(&self.b)?;
            self.b.clear();
        }
        Ok(())
    }

    fn rows<'r>(
        &mut self,
        rows: impl ExactSizeIterator<Item = (&'r [u8], &'r Image)>,
    ) -> Result<()> {
        self.b.put_u64(rows.len() as u64);
        for (k, r) in rows {
            self.b.put_bytes(k);
            self.b.extend_from_slice(r.as_bytes());
            self.maybe_spill()?;
        }
        Ok(())
    }

    fn whole_table(&mut self, t: &TableImage) -> Result<()> {
        encode_schema(&mut self.b, &t.schema);
        self.b.put_u64(t.auto_inc);
        self.b.put_u64(t.next_row_id);
        self.rows(t.rows.iter().map(|(k, r)| (&k[..], r)))
    }

    fn prepared_and_gtids(&mut self, prepared: &[PreparedImage], gtids: &GtidSet) {
        self.b.put_u32(prepared.len() as u32);
        for p in prepared {
            self.b.put_u64(p.xid);
            self.b.put_u8(if p.ddl { 2 } else { 1 });
            self.b.put_bytes(&p.bytes);
        }
        let mut raw = Vec::new();
        gtids.encode_binary(&mut raw);
        self.b.put_bytes(&raw);
    }

    /// Appends the CRC of everything and hands the rest on; returns the CRC.
    fn finish(mut self) -> Result<u32> {
        self.crc.update(&self.b);
        let crc = self.crc.finalize();
        self.b.put_u32(crc);
        (self.out)(&self.b)?;
        Ok(crc)
    }
}

/// Encodes `s` (the format above) and hands the bytes to `out` in order, in pieces of about
/// [`PIECE_BYTES`], the CRC computed as they go (before, the whole file was built in memory).
pub(crate) fn encode_to(s: &Snapshot, out: &mut dyn FnMut(&[u8]) -> Result<()>) -> Result<()> {
    let mut e = Encoder::new(out);
    e.b.extend_from_slice(MAGIC);
    e.b.put_u32(VERSION);
    e.b.put_u64(s.lsn);
    e.b.put_u64(s.max_xid);
    e.b.put_u32(s.next_table_id);
    e.b.put_u32(s.tables.len() as u32);
    for t in &s.tables {
        e.whole_table(t)?;
    }
    e.prepared_and_gtids(&s.prepared, &s.gtid_executed);
    e.finish().map(drop)
}

/// A file of the checkpoint family (`what`: its name in errors) opened for reading: at least
/// magic and CRC long, its trailing CRC32 matching everything before it, starting with
/// `magic`; the reader stands after the magic, the CRC excluded.
fn framed<'a>(buf: &'a [u8], what: &'static str, magic: &[u8; 8]) -> Result<Reader<'a>> {
    let corrupt = |position| Error::Corrupt { what, position };
    if buf.len() < 12 {
        return Err(corrupt(0));
    }
    let (body, crc) = buf.split_at(buf.len() - 4);
    if crc32fast::hash(body).to_le_bytes() != crc {
        return Err(corrupt(body.len() as u64));
    }
    let mut r = Reader::new(body, what, 0);
    if r.take(8)? != magic {
        return Err(corrupt(0));
    }
    Ok(r)
}

pub(crate) fn decode(buf: &[u8]) -> Result<Snapshot> {
    let corrupt = |position| Error::Corrupt { what: "checkpoint", position };
    let mut r = framed(buf, "checkpoint", MAGIC)?;
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
        tables.push(read_whole_table(&mut r)?);
    }
    let (prepared, gtid_executed) = read_prepared_and_gtids(&mut r, version)?;
    if !r.is_empty() {
        return Err(r.corrupt());
    }
    Ok(Snapshot { lsn, max_xid, next_table_id, tables, prepared, gtid_executed })
}

fn read_rows(r: &mut Reader<'_>, columns: usize) -> Result<Vec<(Key, Image)>> {
    let nrows = r.u64()?;
    let mut rows = Vec::new();
    for _ in 0..nrows {
        let key: Key = r.bytes()?.into();
        // The row's bytes are the image: checked, copied, not decoded.
        let row = Image::read(r)?;
        if row.len() != columns {
            return Err(r.corrupt());
        }
        rows.push((key, row));
    }
    Ok(rows)
}

fn read_whole_table(r: &mut Reader<'_>) -> Result<TableImage> {
    let schema = decode_schema(r)?;
    let auto_inc = r.u64()?;
    let next_row_id = r.u64()?;
    let rows = read_rows(r, schema.columns.len())?;
    Ok(TableImage { schema, auto_inc, next_row_id, rows })
}

fn read_prepared_and_gtids(
    r: &mut Reader<'_>,
    version: u32,
) -> Result<(Vec<PreparedImage>, GtidSet)> {
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
    Ok((prepared, gtid_executed))
}

/// Writes the snapshot durably and atomically (temp file, fsync, rename, directory fsync),
/// encoding it piece by piece ([`encode_to`]); returns its size.
pub(crate) fn write(vfs: &VfsRef, dir: &Path, s: &Snapshot) -> Result<u64> {
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
    Ok(at)
}

// ---- delta checkpoints ----------------------------------------------------------------------

/// The chain manifest: which delta files extend which base.
pub(crate) const CHAIN_NAME: &str = "checkpoint.chain";
const CHAIN_TMP: &str = "checkpoint.chain.tmp";
const CHAIN_MAGIC: &[u8; 8] = b"BLDCKCH1";
const DELTA_MAGIC: &[u8; 8] = b"BLDCKDL1";
const DELTA_VERSION: u32 = 1;

/// The name of the `n`th delta (1-based) of the chain.
pub(crate) fn delta_name(n: usize) -> String {
    format!("checkpoint.delta.{n}")
}

/// One table in a delta checkpoint.
pub(crate) enum DeltaTable {
    /// Created, replaced (ALTER, TRUNCATE, index changes) or first seen since the previous
    /// checkpoint of the chain: written whole.
    Whole(Box<TableImage>),
    /// The same table object as at the previous checkpoint: only the rows whose committed
    /// image changed since then (`None`: deleted, a tombstone), in key order.
    Changes { id: u32, auto_inc: u64, next_row_id: u64, rows: Vec<(Key, Option<Image>)> },
}

impl DeltaTable {
    pub(crate) fn id(&self) -> u32 {
        match self {
            DeltaTable::Whole(t) => t.schema.id,
            DeltaTable::Changes { id, .. } => *id,
        }
    }
}

/// A delta checkpoint: the state at `lsn` as changes to the chain's state at the previous
/// checkpoint. Every table of the catalog at `lsn` is listed (unchanged ones with no rows);
/// a table of the previous state that is not listed was dropped.
pub(crate) struct Delta {
    pub(crate) base_lsn: u64,
    pub(crate) lsn: u64,
    pub(crate) max_xid: u64,
    pub(crate) next_table_id: u32,
    pub(crate) tables: Vec<DeltaTable>,
    pub(crate) prepared: Vec<PreparedImage>,
    pub(crate) gtid_executed: GtidSet,
}

// Format (delta file): "BLDCKDL1" | u32 version | u64 base_lsn | u64 lsn | u64 max_xid |
// u32 next_table_id | u32 table count | per table: u32 id, u8 kind (1 whole: schema,
// u64 auto_inc, u64 next_row_id, rows as in the base; 2 changes: u64 auto_inc,
// u64 next_row_id, u64 count, per change: bytes key, u8 (0 tombstone, 1 row: row)) |
// prepared and GTID set as in the base | u32 crc32 of everything before it.
fn encode_delta_to(d: &Delta, out: &mut dyn FnMut(&[u8]) -> Result<()>) -> Result<u32> {
    let mut e = Encoder::new(out);
    e.b.extend_from_slice(DELTA_MAGIC);
    e.b.put_u32(DELTA_VERSION);
    e.b.put_u64(d.base_lsn);
    e.b.put_u64(d.lsn);
    e.b.put_u64(d.max_xid);
    e.b.put_u32(d.next_table_id);
    e.b.put_u32(d.tables.len() as u32);
    for t in &d.tables {
        e.b.put_u32(t.id());
        match t {
            DeltaTable::Whole(img) => {
                e.b.put_u8(1);
                e.whole_table(img)?;
            }
            DeltaTable::Changes { auto_inc, next_row_id, rows, .. } => {
                e.b.put_u8(2);
                e.b.put_u64(*auto_inc);
                e.b.put_u64(*next_row_id);
                e.b.put_u64(rows.len() as u64);
                for (k, r) in rows {
                    e.b.put_bytes(k);
                    match r {
                        None => e.b.put_u8(0),
                        Some(r) => {
                            e.b.put_u8(1);
                            e.b.extend_from_slice(r.as_bytes());
                        }
                    }
                    e.maybe_spill()?;
                }
            }
        }
    }
    e.prepared_and_gtids(&d.prepared, &d.gtid_executed);
    e.finish()
}

/// Decodes a delta. `columns` holds the column count of each table in the chain's state
/// before this delta (a `Changes` entry may name no other table); it is brought up to date
/// with the delta's tables.
fn decode_delta(buf: &[u8], columns: &mut HashMap<u32, usize>) -> Result<Delta> {
    let corrupt = |position| Error::Corrupt { what: "checkpoint delta", position };
    let mut r = framed(buf, "checkpoint delta", DELTA_MAGIC)?;
    if r.u32()? != DELTA_VERSION {
        return Err(corrupt(8));
    }
    let base_lsn = r.u64()?;
    let lsn = r.u64()?;
    let max_xid = r.u64()?;
    let next_table_id = r.u32()?;
    let ntables = r.u32()?;
    let mut tables = Vec::new();
    for _ in 0..ntables {
        let id = r.u32()?;
        match r.u8()? {
            1 => {
                let img = read_whole_table(&mut r)?;
                if img.schema.id != id {
                    return Err(r.corrupt());
                }
                tables.push(DeltaTable::Whole(Box::new(img)));
            }
            2 => {
                let Some(&ncols) = columns.get(&id) else { return Err(r.corrupt()) };
                let auto_inc = r.u64()?;
                let next_row_id = r.u64()?;
                let n = r.u64()?;
                let mut rows = Vec::new();
                for _ in 0..n {
                    let key: Key = r.bytes()?.into();
                    let row = match r.u8()? {
                        0 => None,
                        1 => {
                            let row = Image::read(&mut r)?;
                            if row.len() != ncols {
                                return Err(r.corrupt());
                            }
                            Some(row)
                        }
                        _ => return Err(r.corrupt()),
                    };
                    rows.push((key, row));
                }
                tables.push(DeltaTable::Changes { id, auto_inc, next_row_id, rows });
            }
            _ => return Err(r.corrupt()),
        }
    }
    let (prepared, gtid_executed) = read_prepared_and_gtids(&mut r, VERSION)?;
    if !r.is_empty() {
        return Err(r.corrupt());
    }
    let mut now = HashMap::new();
    for t in &tables {
        let n = match t {
            DeltaTable::Whole(img) => img.schema.columns.len(),
            DeltaTable::Changes { id, .. } => columns[id],
        };
        now.insert(t.id(), n);
    }
    *columns = now;
    Ok(Delta { base_lsn, lsn, max_xid, next_table_id, tables, prepared, gtid_executed })
}

/// One delta of the chain as the manifest records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ChainEntry {
    pub(crate) lsn: u64,
    pub(crate) bytes: u64,
    pub(crate) crc: u32,
}

/// The chain manifest: the base's LSN and size, then the deltas in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Chain {
    pub(crate) base_lsn: u64,
    pub(crate) base_bytes: u64,
    pub(crate) deltas: Vec<ChainEntry>,
}

impl Chain {
    pub(crate) fn delta_bytes(&self) -> u64 {
        self.deltas.iter().map(|d| d.bytes).sum()
    }
}

// Format (chain manifest): "BLDCKCH1" | u64 base_lsn | u64 base_bytes | u32 count |
// per delta: u64 lsn, u64 bytes, u32 crc32 of the delta file's body | u32 crc32.
fn encode_chain(c: &Chain) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(CHAIN_MAGIC);
    b.put_u64(c.base_lsn);
    b.put_u64(c.base_bytes);
    b.put_u32(c.deltas.len() as u32);
    for d in &c.deltas {
        b.put_u64(d.lsn);
        b.put_u64(d.bytes);
        b.put_u32(d.crc);
    }
    let crc = crc32fast::hash(&b);
    b.put_u32(crc);
    b
}

fn decode_chain(buf: &[u8]) -> Result<Chain> {
    let mut r = framed(buf, "checkpoint chain", CHAIN_MAGIC)?;
    let base_lsn = r.u64()?;
    let base_bytes = r.u64()?;
    let n = r.u32()?;
    let mut deltas = Vec::new();
    for _ in 0..n {
        deltas.push(ChainEntry { lsn: r.u64()?, bytes: r.u64()?, crc: r.u32()? });
    }
    if !r.is_empty() {
        return Err(r.corrupt());
    }
    Ok(Chain { base_lsn, base_bytes, deltas })
}

/// Damage in a checkpoint file, named with its path and offset (start-up refuses it).
fn damaged(path: &Path, e: Error) -> Error {
    match e {
        Error::Corrupt { what, position } => Error::CheckpointDamaged {
            what: format!("corrupt {what}: {} at offset {position}", path.display()),
        },
        other => other,
    }
}

fn read_all(vfs: &VfsRef, path: &Path) -> Result<Vec<u8>> {
    let f = vfs.open(path, OpenMode::Read)?;
    let len = usize::try_from(f.len()?)
        .map_err(|_| Error::Corrupt { what: "checkpoint", position: 0 })?;
    let mut buf = vec![0u8; len];
    f.read_exact_at(&mut buf, 0)?;
    Ok(buf)
}

/// Writes delta `n` of the chain durably (the file and its directory entry); returns its
/// manifest entry. A file of that name left by a crash before its manifest named it is
/// replaced: no manifest names it.
pub(crate) fn write_delta(vfs: &VfsRef, dir: &Path, n: usize, d: &Delta) -> Result<ChainEntry> {
    let path = dir.join(delta_name(n));
    if vfs.exists(&path)? {
        vfs.remove_file(&path)?;
    }
    let f = vfs.open(&path, OpenMode::CreateNew)?;
    let mut at = 0u64;
    let crc = encode_delta_to(d, &mut |piece| {
        f.write_at(piece, at)?;
        at += piece.len() as u64;
        Ok(())
    })?;
    f.sync_data()?;
    vfs.sync_dir(dir)?;
    Ok(ChainEntry { lsn: d.lsn, bytes: at, crc })
}

/// Replaces the manifest atomically (temp file, fsync, rename, directory fsync).
pub(crate) fn write_chain(vfs: &VfsRef, dir: &Path, c: &Chain) -> Result<()> {
    let tmp = dir.join(CHAIN_TMP);
    if vfs.exists(&tmp)? {
        vfs.remove_file(&tmp)?;
    }
    let f = vfs.open(&tmp, OpenMode::CreateNew)?;
    f.write_at(&encode_chain(c), 0)?;
    f.sync_data()?;
    vfs.rename(&tmp, &dir.join(CHAIN_NAME))?;
    vfs.sync_dir(dir)?;
    Ok(())
}

/// After a new base: the manifest goes first (durably), then the delta files it named. A
/// crash between the base's rename and here leaves a manifest naming an older base, which
/// [`read_chain`] ignores; stray delta files no manifest names are ignored and replaced.
pub(crate) fn remove_chain(vfs: &VfsRef, dir: &Path, old: &Chain) -> Result<()> {
    let path = dir.join(CHAIN_NAME);
    if vfs.exists(&path)? {
        vfs.remove_file(&path)?;
        vfs.sync_dir(dir)?;
    }
    // The named ones, and strays after them (written by a checkpoint a crash cut before
    // its manifest, or named by a stale manifest).
    for n in 1.. {
        let p = dir.join(delta_name(n));
        if vfs.exists(&p)? {
            vfs.remove_file(&p)?;
        } else if n > old.deltas.len() {
            break;
        }
    }
    Ok(())
}

/// Reads the chain extending the base at `base_lsn` (size `base_bytes`): the manifest's
/// deltas, each checked against its manifest entry (size, CRC, LSN) and decoded. No manifest,
/// or one naming an older base (a crash after a new base's rename, before the manifest's
/// removal): the base alone. A manifest naming a newer base, a delta missing, short, torn
/// or not the one named: `CheckpointDamaged` with the file and offset, never skipped.
/// `columns`: the base's tables' column counts (see [`decode_delta`]); `apply` is called
/// with each delta in order (its errors are named with the delta's file).
pub(crate) fn read_chain(
    vfs: &VfsRef,
    dir: &Path,
    base_lsn: u64,
    base_bytes: u64,
    mut columns: HashMap<u32, usize>,
    apply: &mut dyn FnMut(Delta) -> Result<()>,
) -> Result<Chain> {
    let fresh = Chain { base_lsn, base_bytes, deltas: Vec::new() };
    let path = dir.join(CHAIN_NAME);
    if !vfs.exists(&path)? {
        return Ok(fresh);
    }
    let chain = decode_chain(&read_all(vfs, &path)?).map_err(|e| damaged(&path, e))?;
    if chain.base_lsn < base_lsn {
        log::info!(
            "{}: names the base at lsn {}, older than the checkpoint's {base_lsn}; ignored (a \
             crash after a new base)",
            path.display(),
            chain.base_lsn
        );
        return Ok(fresh);
    }
    if chain.base_lsn > base_lsn {
        return Err(Error::CheckpointDamaged {
            what: format!(
                "{} names a base at lsn {} but {} is at lsn {base_lsn}",
                path.display(),
                chain.base_lsn,
                dir.join(FILE_NAME).display()
            ),
        });
    }
    let mut prev = base_lsn;
    for (i, entry) in chain.deltas.iter().enumerate() {
        let p = dir.join(delta_name(i + 1));
        if !vfs.exists(&p)? {
            return Err(Error::CheckpointDamaged {
                what: format!("{} is missing ({} names it)", p.display(), path.display()),
            });
        }
        let buf = read_all(vfs, &p)?;
        if buf.len() as u64 != entry.bytes {
            let at = entry.bytes.min(buf.len() as u64);
            return Err(Error::CheckpointDamaged {
                what: format!(
                    "{} holds {} bytes, {} names {} (damaged at offset {at})",
                    p.display(),
                    buf.len(),
                    path.display(),
                    entry.bytes
                ),
            });
        }
        let d = decode_delta(&buf, &mut columns).map_err(|e| damaged(&p, e))?;
        let crc = u32::from_le_bytes(buf[buf.len() - 4..].try_into().expect("4 bytes"));
        if crc != entry.crc || d.lsn != entry.lsn || d.base_lsn != base_lsn || d.lsn < prev {
            return Err(Error::CheckpointDamaged {
                what: format!(
                    "{} at offset 0 is not the delta {} names (lsn {}, crc {:08x})",
                    p.display(),
                    path.display(),
                    entry.lsn,
                    entry.crc
                ),
            });
        }
        prev = d.lsn;
        apply(d).map_err(|e| damaged(&p, e))?;
    }
    Ok(chain)
}

/// Reads the base checkpoint with its size, if one was ever written.
pub(crate) fn read_base(vfs: &VfsRef, dir: &Path) -> Result<Option<(Snapshot, u64)>> {
    let path = dir.join(FILE_NAME);
    if !vfs.exists(&path)? {
        return Ok(None);
    }
    let buf = read_all(vfs, &path)?;
    Ok(Some((decode(&buf)?, buf.len() as u64)))
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
