//! The redo log: an append-only stream of checksummed records, addressed by LSN (the byte
//! position in the stream), stored in fixed-size preallocated files that are recycled once a
//! checkpoint no longer needs them.
//!
//! Protocol:
//! - `append` puts a record in the in-memory buffer under a short mutex and returns its
//!   start and end LSN. Nothing is written.
//! - `flush_up_to(lsn)` writes and syncs every buffered record, so all records ending at or
//!   before `lsn` are durable. Callers coalesce: the writer mutex is held across the write and
//!   the sync, so while one caller syncs, others append, and the next holder takes all of it in
//!   one write and one fdatasync; a caller whose lsn was covered meanwhile returns at once.
//! - File `k` of the stream covers LSNs `[k*cap, (k+1)*cap)` and holds them at offset
//!   `HEADER_BYTES + (lsn - start)`. A record never spans two files: if it does not fit, the
//!   rest of the file is filled with a Pad record (or, if too short for a record header, with
//!   zeros the reader skips), so every file begins at a record boundary.
//! - A new file is filled with written zeros (not just fallocated) and synced before use, so
//!   a commit's fdatasync only ever overwrites allocated, initialized blocks and needs no
//!   file-system metadata (no journal commit) — see `zero_fill`.
//! - Flush methods ([`RedoFlushMethod`], `innodb_flush_method`): `Fsync` writes the unwritten
//!   bytes with `pwrite` and makes them durable with `fdatasync`. `ODsync` makes them durable
//!   with one [`write_durable_at`](vfs::VfsFile::write_durable_at) (`O_DIRECT|O_DSYNC`, no
//!   fdatasync): the write covers whole 4 KiB blocks of the *file* (`HEADER_BYTES` is one
//!   block, so LSN and file alignment agree only because of that; the code aligns the file
//!   offset), from the block holding `written_lsn` through the block holding the new end. The
//!   writer keeps a copy of the partial tail block (`Writer::tail`) so each flush rewrites it
//!   with the same leading bytes; the bytes after the end are zeros, which replay reads as the
//!   end of the log (a zero length and LSN never match the position; at LSN 0, kind 0 is no
//!   kind). A crash during such a write may land any subset of its sectors: the bytes below
//!   `written_lsn` are rewritten with identical content, so they survive either way, and the
//!   new records are CRC'd, so replay stops at the first one not wholly there. Each durable
//!   write counts as one fsync in `RedoCounters::fsyncs` (`Innodb_os_log_fsyncs`: the redo's
//!   durability points) and in `durable_writes`.
//! - Each file header carries a random salt that seeds every record's CRC. A recycled file gets
//!   a new salt, so the stale records it still holds can never pass as current ones.
//!
//! Invariants:
//! - `flushed_lsn <= written_lsn <= next_lsn`; bytes below `written_lsn` are in files, bytes
//!   from `written_lsn` are in the writer's `unwritten` buffer or the append buffer.
//! - The durable LSN (`flushed_lsn`) never moves back: checked with `assert!` at each flush
//!   (one compare), since the commit layer acknowledges transactions on it.
//! - After a failed write (other than ENOSPC) or a failed sync the log is poisoned: every
//!   later append and flush fails with `Poisoned`, and a sync is never retried.
//! - A file is recycled only when its whole range lies below both the checkpoint LSN and the
//!   retain LSN.
//! - Replay stops at the first record whose length, LSN, or CRC is wrong: that is the end of
//!   the log. At startup the rest of the last file is padded and the files beyond it are
//!   retired, so records written after a restart never join stale ones.

use std::collections::hash_map::RandomState;
use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasher, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;
use vfs::{FileRef, OpenMode, VfsRef, DURABLE_BLOCK_BYTES};

use crate::codec::{Put, Reader};
use crate::error::{Error, RedoDamage, Result};
pub use crate::lsn::Lsn;

/// How a redo flush makes the written bytes durable (`innodb_flush_method`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RedoFlushMethod {
    /// `pwrite` of the new bytes, then `fdatasync` of each file written.
    #[default]
    Fsync,
    /// One `O_DIRECT|O_DSYNC` write of the whole blocks holding the new bytes (the partial
    /// tail block rewritten each time), no fdatasync. Falls back to `Fsync`'s syscalls on a
    /// file system without direct I/O, and is not used when the redo file size is not a
    /// multiple of 4 KiB.
    ODsync,
}

impl RedoFlushMethod {
    /// The `innodb_flush_method` values, in the enum's order.
    pub const NAMES: [&'static str; 2] = ["fsync", "O_DSYNC"];

    /// The variable's value as SHOW VARIABLES prints it.
    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// Parses a value (any case).
    pub fn from_name(name: &str) -> Option<RedoFlushMethod> {
        match Self::NAMES.iter().position(|n| n.eq_ignore_ascii_case(name))? {
            0 => Some(RedoFlushMethod::Fsync),
            _ => Some(RedoFlushMethod::ODsync),
        }
    }
}

/// The kinds of redo records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Kind {
    /// u64 xid | ops: a transaction's changes, prepared (2PC) and not yet decided.
    Prepare = 1,
    /// u64 xid: the prepared transaction committed.
    Commit = 2,
    /// u64 xid: the prepared transaction rolled back.
    Rollback = 3,
    /// ops: a transaction committed without 2PC.
    OnePhase = 4,
    /// Opaque bytes the commit layer stores (binlog events in binlog-in-redo mode).
    BinlogPayload = 5,
    /// A schema change committed without 2PC, one statement (older logs; see `engine::Ddl`).
    Ddl = 6,
    /// Filler up to the end of a file.
    Pad = 7,
    /// u64 xid | ddl list: a DDL transaction, prepared (2PC) and not yet decided; decided by
    /// a Commit or Rollback record like a Prepare.
    DdlPrepare = 8,
    /// ddl list: a DDL transaction committed without 2PC (no binlog).
    DdlOnePhase = 9,
    /// (empty): the engine's executed GTID set was emptied (`RESET MASTER`).
    GtidReset = 12,
    /// u64 durable LSN: appended by the writer to each write batch; everything below the LSN
    /// it holds was durable (synced) before the batch was written. Replay uses it to tell a
    /// torn tail from damage (see `RedoLog::find_damage`).
    Mark = 10,
    /// The leading part of a record larger than what a file can hold: the record's payload is
    /// the concatenation of the Fragments before it and its own payload.
    Fragment = 11,
}

impl Kind {
    fn from_u8(b: u8) -> Option<Kind> {
        Some(match b {
            1 => Kind::Prepare,
            2 => Kind::Commit,
            3 => Kind::Rollback,
            4 => Kind::OnePhase,
            5 => Kind::BinlogPayload,
            6 => Kind::Ddl,
            7 => Kind::Pad,
            8 => Kind::DdlPrepare,
            9 => Kind::DdlOnePhase,
            10 => Kind::Mark,
            11 => Kind::Fragment,
            12 => Kind::GtidReset,
            _ => return None,
        })
    }
}

pub(crate) const HEADER_BYTES: u64 = 4096;
// Format (record header): u32 payload length | u32 crc32(salt, length, lsn, kind, payload; a
// Pad's crc omits its payload) | u64 lsn | u8 kind. The payload follows.
pub(crate) const RECORD_HEADER_BYTES: u64 = 17;
/// Set in the kind byte of every part of a Fragment chain after the first (middle Fragments
/// and the completing record), so a reader starting at a file whose predecessor was recycled
/// knows the parts it finds there belong to a record whose head is gone, and skips them.
const CONTINUATION: u8 = 0x80;
/// A Mark record's size (header + the u64 durable LSN), when it does not need a Pad first.
#[cfg(test)]
pub(crate) const MARK_BYTES: u64 = RECORD_HEADER_BYTES + 8;
const MAGIC: &[u8; 8] = b"BLDREDO1";
const VERSION: u32 = 1;

// Format (file header, at offset 0, rest of the 4 KiB zero): "BLDREDO1" | u32 version |
// u64 start_lsn | u64 capacity | u64 salt | u32 crc32 of the preceding bytes.
#[derive(Debug, Clone, Copy)]
struct FileHeader {
    start_lsn: u64,
    capacity: u64,
    salt: u64,
}

impl FileHeader {
    fn encode(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(40);
        b.extend_from_slice(MAGIC);
        b.put_u32(VERSION);
        b.put_u64(self.start_lsn);
        b.put_u64(self.capacity);
        b.put_u64(self.salt);
        let crc = crc32fast::hash(&b);
        b.put_u32(crc);
        b
    }

    fn decode(b: &[u8]) -> Option<FileHeader> {
        let body = b.get(..36)?;
        let mut r = Reader::new(b, "redo file header", 0);
        if r.take(8).ok()? != MAGIC || r.u32().ok()? != VERSION {
            return None;
        }
        let h =
            FileHeader { start_lsn: r.u64().ok()?, capacity: r.u64().ok()?, salt: r.u64().ok()? };
        let crc = r.u32().ok()?;
        (crc == crc32fast::hash(body)
            && h.capacity > RECORD_HEADER_BYTES
            && h.start_lsn.is_multiple_of(h.capacity))
        .then_some(h)
    }
}

fn record_crc(salt: u64, len: u32, lsn: u64, kind: u8, payload: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(&salt.to_le_bytes());
    h.update(&len.to_le_bytes());
    h.update(&lsn.to_le_bytes());
    h.update(&[kind]);
    h.update(payload);
    h.finalize()
}

fn new_salt() -> u64 {
    let mut h = RandomState::new().build_hasher();
    h.write_u64(0x5a17);
    h.finish()
}

/// A prepared, undecided transaction as the checkpoint needs it.
#[derive(Debug, Clone)]
pub(crate) struct PreparedEntry {
    /// The row ops of a Prepare record, or the DDL list of a DdlPrepare record.
    pub(crate) ops: Arc<Vec<u8>>,
    pub(crate) ddl: bool,
}

/// State guarded by the append mutex.
#[derive(Debug, Default)]
pub(crate) struct Buffer {
    bytes: Vec<u8>,
    /// LSN of the next record.
    next_lsn: u64,
    /// Prepared transactions whose decision is not appended yet, by XID. Kept here so that
    /// the set changes atomically with LSN allocation: a checkpoint taken at LSN L sees exactly
    /// the transactions prepared before L and undecided at L.
    pub(crate) prepared: HashMap<u64, PreparedEntry>,
    /// The GTIDs of the Commit records appended (the engine's `gtid_executed`), changed with
    /// LSN allocation like `prepared`, so a checkpoint at L holds exactly those below L.
    pub(crate) gtids: binlog::gtid::GtidSet,
}

impl Buffer {
    pub(crate) fn next_lsn(&self) -> Lsn {
        Lsn(self.next_lsn)
    }
}

struct LiveFile {
    file: FileRef,
    salt: u64,
}

/// State guarded by the writer mutex (held across writes and syncs).
struct Writer {
    /// Bytes taken from the buffer, not yet written; they start at `written_lsn`.
    unwritten: Vec<u8>,
    /// Files written since the last sync, by start LSN.
    dirty: Vec<u64>,
    spares: Vec<FileRef>,
    next_file_no: u64,
    /// `ODsync` only: the file's bytes from the start of the block holding `written_lsn` up to
    /// it, valid when `tail_lsn == Some(written_lsn)` (else read back from the file).
    tail: Vec<u8>,
    tail_lsn: Option<u64>,
}

/// Counters, cheap to read.
#[derive(Debug, Default)]
pub struct RedoCounters {
    pub fsyncs: AtomicU64,
    pub bytes_written: AtomicU64,
    pub writes: AtomicU64,
    /// Flushes made durable by one direct `O_DIRECT|O_DSYNC` write (also in `fsyncs`).
    pub durable_writes: AtomicU64,
}

/// A record read back from the log.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ReadRecord {
    pub(crate) lsn: Lsn,
    pub(crate) end_lsn: Lsn,
    pub(crate) kind: Kind,
    pub(crate) payload: Vec<u8>,
}

pub(crate) struct RedoLog {
    vfs: VfsRef,
    dir: PathBuf,
    capacity: u64,
    buf: Mutex<Buffer>,
    writer: Mutex<Writer>,
    /// The live files by start LSN; readers clone handles from here.
    files: Mutex<BTreeMap<u64, LiveFile>>,
    written_lsn: AtomicU64,
    flushed_lsn: AtomicU64,
    poisoned: AtomicBool,
    checkpoint_lsn: AtomicU64,
    retain_lsn: AtomicU64,
    /// `ODsync` in effect (asked for, and the file size is a multiple of 4 KiB).
    durable_writes: bool,
    /// A fallback to write + fdatasync was logged.
    fallback_logged: AtomicBool,
    pub(crate) counters: RedoCounters,
}

impl RedoLog {
    /// Opens the log in `dir` (creating it), reading the file headers. Writing is not possible
    /// until `start` is called with the end found by `replay`.
    pub(crate) fn open(
        vfs: VfsRef,
        dir: &Path,
        file_bytes: u64,
        retain: bool,
        method: RedoFlushMethod,
    ) -> Result<RedoLog> {
        vfs.create_dir_all(dir)?;
        let mut files = BTreeMap::new();
        let mut spares = Vec::new();
        let mut capacity = None;
        let mut next_file_no = 0;
        for name in vfs.list_dir(dir)? {
            let path = dir.join(&name);
            let Some(no) = name
                .to_str()
                .and_then(|n| n.strip_prefix("redo."))
                .and_then(|n| n.parse::<u64>().ok())
            else {
                continue;
            };
            next_file_no = next_file_no.max(no + 1);
            let file = vfs.open(&path, OpenMode::ReadWrite)?;
            let mut hb = [0u8; 64];
            let n = file.read_at(&mut hb, 0)?;
            match FileHeader::decode(&hb[..n]) {
                Some(h) if capacity.is_none_or(|c| c == h.capacity) => {
                    capacity = Some(h.capacity);
                    if let Some(old) = files.insert(h.start_lsn, LiveFile { file, salt: h.salt }) {
                        // Two files claim one range: only possible if a recycled header was
                        // written twice; neither can be trusted more, keep the later one.
                        spares.push(old.file);
                    }
                }
                _ => spares.push(file),
            }
        }
        let capacity = capacity.unwrap_or(file_bytes.max(RECORD_HEADER_BYTES * 2));
        let aligned = capacity.is_multiple_of(DURABLE_BLOCK_BYTES);
        if method == RedoFlushMethod::ODsync && !aligned {
            log::warn!(
                "redo: innodb_flush_method=O_DSYNC needs a redo file size that is a multiple of \
                 {DURABLE_BLOCK_BYTES} bytes ({capacity} is not); using fsync"
            );
        }
        Ok(RedoLog {
            vfs,
            dir: dir.to_path_buf(),
            capacity,
            buf: Mutex::new(Buffer::default()),
            writer: Mutex::new(Writer {
                unwritten: Vec::new(),
                dirty: Vec::new(),
                spares,
                next_file_no,
                tail: Vec::new(),
                tail_lsn: None,
            }),
            files: Mutex::new(files),
            written_lsn: AtomicU64::new(0),
            flushed_lsn: AtomicU64::new(0),
            poisoned: AtomicBool::new(false),
            checkpoint_lsn: AtomicU64::new(0),
            retain_lsn: AtomicU64::new(if retain { 0 } else { u64::MAX }),
            durable_writes: method == RedoFlushMethod::ODsync && aligned,
            fallback_logged: AtomicBool::new(false),
            counters: RedoCounters::default(),
        })
    }

    /// Reads records from `from` (a record boundary or a file start) to the end of the log:
    /// the first position holding no valid record, or the start of a Fragment chain that no
    /// record completes. A record split into Fragments is delivered whole, at the LSN of its
    /// first Fragment; Pad and Mark records are not delivered.
    pub(crate) fn read_from(
        &self,
        from: Lsn,
        mut f: impl FnMut(ReadRecord) -> Result<()>,
    ) -> Result<Lsn> {
        let cap = self.capacity;
        let mut pos = from.0;
        // The Fragments read so far of a record not yet complete: (first LSN, payload).
        let mut frag: Option<(u64, Vec<u8>)> = None;
        let end = |pos: u64, frag: &Option<(u64, Vec<u8>)>| Lsn(frag.as_ref().map_or(pos, |f| f.0));
        loop {
            let start = pos - pos % cap;
            let Some((file, salt)) =
                self.files.lock().get(&start).map(|l| (l.file.clone(), l.salt))
            else {
                if !pos.is_multiple_of(cap) {
                    // The file holding `from` must exist: records below `from` were in it.
                    return Err(Error::Corrupt { what: "redo (missing file)", position: pos });
                }
                return Ok(end(pos, &frag));
            };
            let data = read_data(&file, cap)?;
            loop {
                let off = pos - start;
                if cap - off < RECORD_HEADER_BYTES {
                    pos = start + cap;
                    break;
                }
                let Some(rec) = check_record(&data, start, off, salt) else {
                    return Ok(end(pos, &frag));
                };
                let payload = &data[rec.body as usize..rec.end as usize];
                if rec.cont && frag.is_none() {
                    // The tail of a record whose head lies before `from` (a recycled file):
                    // only possible at the start of the read; not a record of its own.
                    pos = start + rec.end;
                    if pos == start + cap {
                        break;
                    }
                    continue;
                }
                match rec.kind {
                    Kind::Pad | Kind::Mark => {}
                    Kind::Fragment => {
                        frag.get_or_insert_with(|| (pos, Vec::new())).1.extend_from_slice(payload)
                    }
                    kind => {
                        let (lsn, payload) = match frag.take() {
                            Some((lsn, mut head)) => {
                                head.extend_from_slice(payload);
                                (lsn, head)
                            }
                            None => (pos, payload.to_vec()),
                        };
                        f(ReadRecord {
                            lsn: Lsn(lsn),
                            end_lsn: Lsn(start + rec.end),
                            kind,
                            payload,
                        })?;
                    }
                }
                pos = start + rec.end;
                if pos == start + cap {
                    break;
                }
            }
        }
    }

    /// Tells a torn tail from damage, given `end`, where replay stopped. A crash may leave the
    /// last write batch partly on disk (any subset of its sectors), so records after a hole
    /// are legal when they belong to that batch. But every batch ends with a Mark naming the
    /// LSN that was durable before the batch was written: a valid Mark after `end` naming an
    /// LSN above `end` proves that the bytes at `end` had been synced by an earlier batch, so
    /// they were damaged after the fact. Scans every byte offset after `end` in its file and
    /// in the later files (a record is valid only with its own LSN and the file's salted CRC,
    /// so stale or random bytes do not pass). Returns the damage found, if any.
    pub(crate) fn find_damage(&self, end: Lsn) -> Result<Option<RedoDamage>> {
        let cap = self.capacity;
        let end_file = end.0 - end.0 % cap;
        let files: Vec<(u64, FileRef, u64)> = self
            .files
            .lock()
            .range(end_file..)
            .map(|(&s, l)| (s, l.file.clone(), l.salt))
            .collect();
        let mut worst: Option<(u64, u64)> = None; // (durable LSN claimed, at LSN)
        let mut valid_after = 0u64;
        for (start, file, salt) in files {
            let data = read_data(&file, cap)?;
            let first = if start == end_file { end.0 - start + 1 } else { 0 };
            let mut off = first;
            while off + RECORD_HEADER_BYTES <= cap {
                let o = off as usize;
                let lsn = u64::from_le_bytes(data[o + 8..o + 16].try_into().expect("8 bytes"));
                if lsn == start + off {
                    if let Some(rec) = check_record(&data, start, off, salt) {
                        valid_after += 1;
                        if rec.kind == Kind::Mark {
                            let body = &data[rec.body as usize..rec.end as usize];
                            if let Ok(b) = <[u8; 8]>::try_from(body) {
                                let durable = u64::from_le_bytes(b);
                                if durable > end.0 && worst.is_none_or(|(d, _)| durable > d) {
                                    worst = Some((durable, lsn));
                                }
                            }
                        }
                    }
                }
                off += 1;
            }
        }
        let Some((durable, mark_lsn)) = worst else { return Ok(None) };
        let path = self
            .files
            .lock()
            .get(&end_file)
            .map(|l| l.file.path().to_path_buf())
            .unwrap_or_else(|| self.dir.join("(missing file)"));
        Ok(Some(RedoDamage {
            file: path,
            offset: HEADER_BYTES + end.0 - end_file,
            lsn: end,
            durable: Lsn(durable),
            mark_lsn: Lsn(mark_lsn),
            valid_after,
        }))
    }

    /// Whether any redo file has a valid header (in use or history).
    pub(crate) fn has_files(&self) -> bool {
        !self.files.lock().is_empty()
    }

    /// The oldest LSN still on disk.
    pub(crate) fn oldest_lsn(&self) -> Lsn {
        Lsn(self
            .files
            .lock()
            .keys()
            .next()
            .copied()
            .unwrap_or_else(|| self.flushed_lsn.load(Ordering::Acquire)))
    }

    /// Makes the log writable at `end` (the end found by replay): retires the files beyond it,
    /// pads the rest of its file, and keeps as history only the contiguous files before it.
    pub(crate) fn start(&self, end: Lsn) -> Result<()> {
        let cap = self.capacity;
        let mut w = self.writer.lock();
        let end_file = end.0 - end.0 % cap;
        let mut next = end.0;
        {
            let mut files = self.files.lock();
            let beyond: Vec<u64> = files.range(end_file + 1..).map(|(&s, _)| s).collect();
            for s in beyond {
                if let Some(l) = files.remove(&s) {
                    // A stale header is harmless (the file is re-salted on reuse) except that a
                    // later restart would read its old records: retire it durably now.
                    l.file.write_at(&[0u8; 64], 0).map_err(Error::from_vfs)?;
                    l.file.sync_data().map_err(Error::from_vfs)?;
                    self.counters.fsyncs.fetch_add(1, Ordering::Relaxed);
                    w.spares.push(l.file);
                }
            }
            // History: the run of consecutive files ending at the end's file.
            let mut keep = end_file;
            while keep >= cap && files.contains_key(&(keep - cap)) {
                keep -= cap;
            }
            let older: Vec<u64> = files.range(..keep).map(|(&s, _)| s).collect();
            for s in older {
                if let Some(l) = files.remove(&s) {
                    w.spares.push(l.file);
                }
            }
            if !end.0.is_multiple_of(cap) {
                if let Some(l) = files.get(&end_file) {
                    let rem = cap - end.0 % cap;
                    if rem >= RECORD_HEADER_BYTES {
                        let pad =
                            encode_record(l.salt, end.0, Kind::Pad, &[], rem - RECORD_HEADER_BYTES);
                        let hdr = &pad[..RECORD_HEADER_BYTES as usize];
                        l.file
                            .write_at(hdr, HEADER_BYTES + end.0 % cap)
                            .map_err(Error::from_vfs)?;
                        l.file.sync_data().map_err(Error::from_vfs)?;
                        self.counters.fsyncs.fetch_add(1, Ordering::Relaxed);
                    }
                    next = end_file + cap;
                }
            }
        }
        self.buf.lock().next_lsn = next;
        self.written_lsn.store(next, Ordering::Release);
        self.flushed_lsn.store(next, Ordering::Release);
        // History the checkpoint no longer needs is recycled now, so the file a restart moves
        // to is a spare rather than a new one (no growth per restart).
        let limit = self
            .checkpoint_lsn
            .load(Ordering::Acquire)
            .min(self.retain_lsn.load(Ordering::Acquire));
        {
            let mut files = self.files.lock();
            let old: Vec<u64> =
                files.range(..).map(|(&s, _)| s).take_while(|&s| s + cap <= limit).collect();
            for s in old {
                if let Some(l) = files.remove(&s) {
                    w.spares.push(l.file);
                }
            }
        }
        // Have the first file ready so the first commit does not create it.
        self.prepare_file(&mut w, next - next % cap)?;
        Ok(())
    }

    pub(crate) fn is_poisoned(&self) -> bool {
        self.poisoned.load(Ordering::Acquire)
    }

    fn check_poison(&self) -> Result<()> {
        if self.is_poisoned() {
            Err(Error::Poisoned)
        } else {
            Ok(())
        }
    }

    /// Buffers a record; `then` runs under the append mutex with the record's start and end
    /// LSN (used to keep the prepared set in step with LSN order). A record larger than what
    /// the rest of the file holds is split into Fragments (see `append_locked`).
    pub(crate) fn append<T>(
        &self,
        kind: Kind,
        parts: &[&[u8]],
        then: impl FnOnce(&mut Buffer, Lsn, Lsn) -> T,
    ) -> Result<(Lsn, Lsn, T)> {
        self.check_poison()?;
        let len: u64 = parts.iter().map(|p| p.len() as u64).sum();
        if len > MAX_RECORD_BYTES {
            return Err(Error::RecordTooLarge { bytes: len as usize });
        }
        let mut b = self.buf.lock();
        let (start, end) = append_locked(&mut b, self.capacity, kind, parts);
        let t = then(&mut b, start, end);
        Ok((start, end, t))
    }

    /// The LSN the next record will get (the end of everything appended).
    pub(crate) fn next_lsn(&self) -> Lsn {
        Lsn(self.buf.lock().next_lsn)
    }

    pub(crate) fn with_buffer<T>(&self, f: impl FnOnce(&mut Buffer) -> T) -> T {
        f(&mut self.buf.lock())
    }

    pub(crate) fn flushed_lsn(&self) -> Lsn {
        Lsn(self.flushed_lsn.load(Ordering::Acquire))
    }

    pub(crate) fn written_lsn(&self) -> Lsn {
        Lsn(self.written_lsn.load(Ordering::Acquire))
    }

    /// Makes every record ending at or before `lsn` durable (see the module docs).
    pub(crate) fn flush_up_to(&self, lsn: Lsn) -> Result<()> {
        self.write_impl(lsn, true)
    }

    /// Writes every record ending at or before `lsn` to the files without syncing.
    pub(crate) fn write_up_to(&self, lsn: Lsn) -> Result<()> {
        self.write_impl(lsn, false)
    }

    fn write_impl(&self, lsn: Lsn, sync: bool) -> Result<()> {
        let done = |s: &Self| {
            let reached = if sync { &s.flushed_lsn } else { &s.written_lsn };
            reached.load(Ordering::Acquire) >= lsn.0
        };
        self.check_poison()?;
        if done(self) {
            return Ok(());
        }
        let mut w = self.writer.lock();
        self.check_poison()?;
        if done(self) {
            return Ok(());
        }
        {
            let mut b = self.buf.lock();
            if !b.bytes.is_empty() {
                // The batch's Mark: what was durable before it (see `find_damage`).
                let durable = self.flushed_lsn.load(Ordering::Acquire);
                append_locked(&mut b, self.capacity, Kind::Mark, &[&durable.to_le_bytes()]);
            }
            if w.unwritten.is_empty() {
                std::mem::swap(&mut w.unwritten, &mut b.bytes);
            } else {
                let taken = std::mem::take(&mut b.bytes);
                w.unwritten.extend_from_slice(&taken);
            }
        }
        if sync && self.durable_writes {
            self.write_unwritten_durable(&mut w)?;
        } else {
            self.write_unwritten(&mut w)?;
        }
        // The two buffers trade places at every flush, so each keeps the largest capacity it
        // ever reached: a load of many records between flushes (a bulk transaction, or an
        // engine whose caller flushes rarely) would otherwise pin a buffer as large as that
        // whole batch for the process's lifetime (bench/RESULTS.md, "Memory per row, second
        // pass": 231 bytes per loaded row).
        if w.unwritten.capacity() > KEEP_BUFFER_BYTES {
            w.unwritten = Vec::new();
        }
        if sync {
            let end = self.written_lsn.load(Ordering::Acquire);
            let dirty = std::mem::take(&mut w.dirty);
            for start in dirty {
                let file = self.files.lock().get(&start).map(|l| l.file.clone());
                if let Some(file) = file {
                    self.counters.fsyncs.fetch_add(1, Ordering::Relaxed);
                    if let Err(e) = file.sync_data() {
                        self.poisoned.store(true, Ordering::Release);
                        return Err(Error::Io { source: e });
                    }
                }
            }
            // Checked at run time, not only in debug builds: a durable LSN that moved back would
            // let a caller believe records durable that are not (an integer compare, once per
            // flush, under the writer lock that orders every store of it).
            let before = self.flushed_lsn.load(Ordering::Relaxed);
            assert!(end >= before, "redo: the durable LSN moved back from {before} to {end}");
            self.flushed_lsn.store(end, Ordering::Release);
        }
        Ok(())
    }

    /// Writes `w.unwritten` into the files, one write per file touched.
    fn write_unwritten(&self, w: &mut Writer) -> Result<()> {
        let cap = self.capacity;
        while !w.unwritten.is_empty() {
            let pos = self.written_lsn.load(Ordering::Acquire);
            let start = pos - pos % cap;
            let n = (w.unwritten.len() as u64).min(start + cap - pos) as usize;
            let (file, salt) = self.prepare_file(w, start)?;
            salt_records(&mut w.unwritten[..n], salt);
            // ENOSPC: nothing was reported durable; the bytes stay for a later attempt.
            file.write_at(&w.unwritten[..n], HEADER_BYTES + pos - start)
                .map_err(|e| self.fail(e))?;
            self.counters.writes.fetch_add(1, Ordering::Relaxed);
            self.counters.bytes_written.fetch_add(n as u64, Ordering::Relaxed);
            w.unwritten.drain(..n);
            if !w.dirty.contains(&start) {
                w.dirty.push(start);
            }
            w.tail_lsn = None;
            self.written_lsn.store(pos + n as u64, Ordering::Release);
        }
        Ok(())
    }

    /// `ODsync`: makes `w.unwritten` durable with one direct write per file touched, each
    /// covering the whole blocks from the one holding `written_lsn` to the one holding the new
    /// end: the known tail of the first block, the new bytes, zeros to the block's end (what a
    /// zero-filled or re-salted file may hold past the end of the log; see the module docs).
    fn write_unwritten_durable(&self, w: &mut Writer) -> Result<()> {
        let cap = self.capacity;
        let block = DURABLE_BLOCK_BYTES;
        while !w.unwritten.is_empty() {
            let pos = self.written_lsn.load(Ordering::Acquire);
            let start = pos - pos % cap;
            let n = (w.unwritten.len() as u64).min(start + cap - pos) as usize;
            let (file, salt) = self.prepare_file(w, start)?;
            if !file.open_direct().map_err(|e| self.fail(e))?
                && !self.fallback_logged.swap(true, Ordering::Relaxed)
            {
                log::warn!(
                    "redo: {} does not support O_DIRECT; innodb_flush_method=O_DSYNC falls back \
                     to write + fdatasync",
                    file.path().display()
                );
            }
            salt_records(&mut w.unwritten[..n], salt);
            // Block alignment is on the file offset (the data starts after the header).
            let off = HEADER_BYTES + pos - start;
            let first = off - off % block;
            if w.tail_lsn != Some(pos) {
                // After startup or a buffered write: the tail is what the file holds.
                w.tail.resize((off - first) as usize, 0);
                file.read_exact_at(&mut w.tail, first).map_err(|e| self.fail(e))?;
                w.tail_lsn = Some(pos);
            }
            let end = off + n as u64;
            let padded = (end.div_ceil(block) * block - first) as usize;
            let mut buf = Vec::with_capacity(padded);
            buf.extend_from_slice(&w.tail);
            buf.extend_from_slice(&w.unwritten[..n]);
            buf.resize(padded, 0);
            self.counters.fsyncs.fetch_add(1, Ordering::Relaxed);
            // ENOSPC: nothing was reported durable; the bytes stay for a later attempt.
            file.write_durable_at(&buf, first).map_err(|e| self.fail(e))?;
            self.counters.writes.fetch_add(1, Ordering::Relaxed);
            self.counters.durable_writes.fetch_add(1, Ordering::Relaxed);
            self.counters.bytes_written.fetch_add(n as u64, Ordering::Relaxed);
            let last = end - end % block;
            w.tail.clear();
            w.tail.extend_from_slice(&buf[(last - first) as usize..(end - first) as usize]);
            w.unwritten.drain(..n);
            w.tail_lsn = Some(pos + n as u64);
            self.written_lsn.store(pos + n as u64, Ordering::Release);
        }
        Ok(())
    }

    /// Returns the live file starting at `start`, making one (a recycled spare, or a new
    /// preallocated file) durably if needed.
    fn prepare_file(&self, w: &mut Writer, start: u64) -> Result<(FileRef, u64)> {
        if let Some(l) = self.files.lock().get(&start) {
            return Ok((l.file.clone(), l.salt));
        }
        let header = FileHeader { start_lsn: start, capacity: self.capacity, salt: new_salt() };
        let mut hb = header.encode();
        hb.resize(HEADER_BYTES as usize, 0);
        let file = match w.spares.pop() {
            Some(file) => {
                let r = (|| {
                    let len = file.len()?;
                    if len < HEADER_BYTES + self.capacity {
                        zero_fill(&file, len, HEADER_BYTES + self.capacity - len)?;
                    }
                    file.write_at(&hb, 0)?;
                    file.sync_data()
                })();
                self.counters.fsyncs.fetch_add(1, Ordering::Relaxed);
                if let Err(e) = r {
                    // The spare's header may now be half new: never reuse it this run.
                    return Err(self.fail(e));
                }
                file
            }
            None => {
                let path = self.dir.join(format!("redo.{}", w.next_file_no));
                w.next_file_no += 1;
                let file = self.vfs.open(&path, OpenMode::CreateNew).map_err(|e| self.fail(e))?;
                let r = (|| {
                    // Reserved first, so a full disk is a clean ENOSPC before any write.
                    let _ = file.allocate(HEADER_BYTES + self.capacity)?;
                    zero_fill(&file, HEADER_BYTES, self.capacity)?;
                    file.write_at(&hb, 0)?;
                    file.sync_data()?;
                    self.vfs.sync_dir(&self.dir)
                })();
                self.counters.fsyncs.fetch_add(2, Ordering::Relaxed);
                if let Err(e) = r {
                    let no_space = e.is_no_space();
                    if no_space && self.vfs.remove_file(&path).is_ok() {
                        return Err(Error::NoSpace { source: e });
                    }
                    return Err(self.fail(e));
                }
                file
            }
        };
        self.files.lock().insert(start, LiveFile { file: file.clone(), salt: header.salt });
        Ok((file, header.salt))
    }

    /// Poisons the log unless the failure is a clean ENOSPC.
    fn fail(&self, e: vfs::Error) -> Error {
        if !e.is_no_space() {
            self.poisoned.store(true, Ordering::Release);
        }
        Error::from_vfs(e)
    }

    pub(crate) fn set_checkpoint_lsn(&self, lsn: Lsn) {
        self.checkpoint_lsn.fetch_max(lsn.0, Ordering::AcqRel);
    }

    pub(crate) fn set_retain_lsn(&self, lsn: Lsn) {
        self.retain_lsn.store(lsn.0, Ordering::Release);
    }

    /// Turns every file wholly below the checkpoint and retain LSNs into a spare.
    pub(crate) fn recycle(&self) -> usize {
        let limit = self
            .checkpoint_lsn
            .load(Ordering::Acquire)
            .min(self.retain_lsn.load(Ordering::Acquire));
        let cap = self.capacity;
        let mut w = self.writer.lock();
        let mut files = self.files.lock();
        let old: Vec<u64> =
            files.range(..).map(|(&s, _)| s).take_while(|&s| s + cap <= limit).collect();
        for s in &old {
            if let Some(l) = files.remove(s) {
                w.spares.push(l.file);
            }
        }
        old.len()
    }

    /// The number of files in use and spare.
    pub(crate) fn file_counts(&self) -> (usize, usize) {
        let w = self.writer.lock();
        let live = self.files.lock().len();
        (live, w.spares.len())
    }
}

/// Fuzzing: every record header found at any offset of `data` (a file's data region starting
/// at `start`), with its payload clamped to the bytes present; checked with salt 0 as replay
/// checks records. Returns (kind byte, payload) of each.
pub(crate) fn fuzz_records(start: u64, data: &[u8]) -> Vec<(u8, &[u8])> {
    let mut out = Vec::new();
    let mut off = 0usize;
    while off + RECORD_HEADER_BYTES as usize <= data.len() && out.len() < 4096 {
        let _ = check_record(data, start, off as u64, 0);
        let len = u32::from_le_bytes(data[off..off + 4].try_into().expect("4 bytes")) as usize;
        let body = off + RECORD_HEADER_BYTES as usize;
        let end = body.saturating_add(len).min(data.len());
        out.push((data[off + 16], &data[body..end]));
        off = end.max(off + 1);
    }
    out
}

/// A record header and body checked at `off` of a file's data: length within the file, LSN
/// equal to its position, a known kind, the salted CRC.
struct Checked {
    kind: Kind,
    /// A later part of a record split into Fragments (`CONTINUATION` set).
    cont: bool,
    /// Offsets of the payload in the file's data.
    body: u64,
    end: u64,
}

fn check_record(data: &[u8], start: u64, off: u64, salt: u64) -> Option<Checked> {
    let cap = data.len() as u64;
    if cap.checked_sub(off)? < RECORD_HEADER_BYTES {
        return None;
    }
    let o = off as usize;
    let h = &data[o..o + RECORD_HEADER_BYTES as usize];
    let len = u32::from_le_bytes(h[0..4].try_into().ok()?);
    let crc = u32::from_le_bytes(h[4..8].try_into().ok()?);
    let lsn = u64::from_le_bytes(h[8..16].try_into().ok()?);
    let cont = h[16] & CONTINUATION != 0;
    let kind = Kind::from_u8(h[16] & !CONTINUATION)?;
    let body = off + RECORD_HEADER_BYTES;
    let end = body + u64::from(len);
    if lsn != start + off || end > cap {
        return None;
    }
    let payload = &data[body as usize..end as usize];
    let covered = if kind == Kind::Pad { &[][..] } else { payload };
    (crc == record_crc(salt, len, lsn, h[16], covered)).then_some(Checked { kind, cont, body, end })
}

/// The largest record payload (a transaction's row images, a DDL list, a binlog payload):
/// above it even the Fragments' sum would not be addressable in memory comfortably; the commit
/// layer refuses a transaction far earlier (`max_binlog_cache_size`, error 1197).
pub(crate) const MAX_RECORD_BYTES: u64 = 1 << 40;

/// Appends one record (its CRC filled in later by the writer) to the buffer: a Pad (or zeros)
/// first when its header does not fit in the current file; a payload that does not fit in the
/// rest of the file goes out as Fragments, each filling the rest of its file, and the record
/// itself carries the last part. All parts are appended under one lock, so no other record
/// (and no checkpoint LSN) falls between a record's Fragments. Returns the start LSN of the
/// first part and the end LSN of the record.
fn append_locked(b: &mut Buffer, cap: u64, kind: Kind, parts: &[&[u8]]) -> (Lsn, Lsn) {
    let len: u64 = parts.iter().map(|p| p.len() as u64).sum();
    let mut first = None;
    let mut rest: Vec<&[u8]> = parts.to_vec();
    let mut left = len;
    loop {
        let mut pos = b.next_lsn;
        let off = pos % cap;
        // Room for a header plus at least one payload byte, else go to the next file.
        if cap - off < RECORD_HEADER_BYTES + left.min(1) {
            pad_to_file_end(b, pos, cap);
            pos += cap - off;
            b.next_lsn = pos;
        }
        let room = cap - pos % cap - RECORD_HEADER_BYTES;
        if left <= room {
            let cont = if first.is_some() { CONTINUATION } else { 0 };
            let first = *first.get_or_insert(pos);
            put_record_header(b, pos, left as u32, kind as u8 | cont);
            for p in &rest {
                b.bytes.extend_from_slice(p);
            }
            b.next_lsn = pos + RECORD_HEADER_BYTES + left;
            return (Lsn(first), Lsn(b.next_lsn));
        }
        if room < RECORD_HEADER_BYTES
            || (left + RECORD_HEADER_BYTES <= cap && !pos.is_multiple_of(cap))
        {
            // A record that fits in one file never spans two (as before Fragments existed), and
            // a sliver at the end of a file is not worth a Fragment: pad to the next file.
            pad_to_file_end(b, pos, cap);
            b.next_lsn = pos + (cap - pos % cap);
            continue;
        }
        let cont = if first.is_some() { CONTINUATION } else { 0 };
        first.get_or_insert(pos);
        put_record_header(b, pos, room as u32, Kind::Fragment as u8 | cont);
        let mut need = room as usize;
        while need > 0 {
            let p = rest[0];
            let n = p.len().min(need);
            b.bytes.extend_from_slice(&p[..n]);
            need -= n;
            if n == p.len() {
                rest.remove(0);
            } else {
                rest[0] = &p[n..];
            }
        }
        left -= room;
        b.next_lsn = pos + RECORD_HEADER_BYTES + room;
    }
}

fn put_record_header(b: &mut Buffer, pos: u64, len: u32, kind: u8) {
    b.bytes.extend_from_slice(&len.to_le_bytes());
    b.bytes.extend_from_slice(&[0; 4]);
    b.bytes.extend_from_slice(&pos.to_le_bytes());
    b.bytes.push(kind);
}

/// Fills the rest of the file holding `pos`: a Pad, or zeros where a header does not fit.
fn pad_to_file_end(b: &mut Buffer, pos: u64, cap: u64) {
    let rem = cap - pos % cap;
    if rem >= RECORD_HEADER_BYTES {
        let pad = encode_record(0, pos, Kind::Pad, &[], rem - RECORD_HEADER_BYTES);
        b.bytes.extend_from_slice(&pad);
    } else {
        b.bytes.extend(std::iter::repeat_n(0u8, rem as usize));
    }
}

/// Encodes a whole record with its CRC (used for pads written at startup and in tests).
fn encode_record(salt: u64, lsn: u64, kind: Kind, payload: &[u8], pad_bytes: u64) -> Vec<u8> {
    let len = if kind == Kind::Pad { pad_bytes as u32 } else { payload.len() as u32 };
    let mut b = Vec::with_capacity(RECORD_HEADER_BYTES as usize + len as usize);
    b.put_u32(len);
    b.put_u32(record_crc(salt, len, lsn, kind as u8, payload));
    b.put_u64(lsn);
    b.put_u8(kind as u8);
    if kind == Kind::Pad {
        b.resize(b.len() + pad_bytes as usize, 0);
    } else {
        b.extend_from_slice(payload);
    }
    b
}

/// Fills in the CRC of each record in `bytes` (which starts at a record boundary and lies in
/// one file). CRCs are computed at write time because the salt belongs to the file, which
/// may not exist when the record is appended.
fn salt_records(bytes: &mut [u8], salt: u64) {
    let mut o = 0usize;
    // A tail shorter than a record header is zero filler at the end of a file.
    while o + RECORD_HEADER_BYTES as usize <= bytes.len() {
        let h = &bytes[o..o + RECORD_HEADER_BYTES as usize];
        let len = u32::from_le_bytes([h[0], h[1], h[2], h[3]]);
        let lsn = u64::from_le_bytes([h[8], h[9], h[10], h[11], h[12], h[13], h[14], h[15]]);
        let kind = h[16];
        let body = o + RECORD_HEADER_BYTES as usize;
        let end = body + len as usize;
        let covered = if kind == Kind::Pad as u8 { &[][..] } else { &bytes[body..end] };
        let crc = record_crc(salt, len, lsn, kind, covered);
        bytes[o + 4..o + 8].copy_from_slice(&crc.to_le_bytes());
        o = end;
    }
}

/// Bytes per write when a new redo file is filled with zeros.
const ZERO_FILL_CHUNK_BYTES: usize = 1 << 20;

/// The largest capacity an emptied redo buffer keeps between flushes (a flush's batch is
/// usually far smaller; a larger one is allocated again when needed).
const KEEP_BUFFER_BYTES: usize = 1 << 20;

/// Writes real zeros over `[from, from + len)`. A fallocated range is only reserved: ext4
/// marks its extents unwritten, and the first write into each block converts one, a metadata
/// change that makes that group's fdatasync wait for a journal commit — and every journal
/// commit waits for whatever else the journal holds (the binlog file's growth, in binlog-in-
/// redo mode its background sync). Measured on ext4: the redo fdatasync then took 1.3–4.7 ms
/// instead of ~80 µs (bench/RESULTS.md, "group cycle"). Written once at creation and synced,
/// the file is only ever overwritten (recycled files keep their blocks), so a commit's
/// fdatasync carries data only. InnoDB does the same: its redo files are created at full
/// size with zeros written (`os_file_set_size`), never left sparse.
fn zero_fill(file: &FileRef, from: u64, len: u64) -> vfs::Result<()> {
    let zeros = vec![0u8; ZERO_FILL_CHUNK_BYTES];
    let mut done = 0u64;
    while done < len {
        let n = (len - done).min(ZERO_FILL_CHUNK_BYTES as u64) as usize;
        file.write_at(&zeros[..n], from + done)?;
        done += n as u64;
    }
    Ok(())
}

/// Reads a file's data region; bytes the file does not have read as zeros.
fn read_data(file: &FileRef, cap: u64) -> Result<Vec<u8>> {
    let mut data = vec![0u8; cap as usize];
    let mut done = 0usize;
    while done < data.len() {
        let n = file.read_at(&mut data[done..], HEADER_BYTES + done as u64)?;
        if n == 0 {
            break;
        }
        done += n;
    }
    Ok(data)
}

#[cfg(test)]
mod tests;
