//! Walking a binlog file: its header, its events (checksummed), and the transactions in it.
//!
//! Recovery rule (MySQL 8.0 `binlog::Binlog_recovery` in `sql/binlog/recovery.cc` and
//! `truncate_binlog_file_to_valid_pos` in `sql/binlog.cc`; WL#4925 for preallocated files):
//! the true end of a crashed file is found by walking events from offset 4, each checked by
//! size, `log_pos` and CRC32; the walk stops at the first event that fails (zeros of
//! preallocated space, a torn write, garbage). The file is then cut at the end of the last
//! *complete transaction*, so a transaction whose tail was lost disappears whole.
//!
//! Transaction grammar (what MySQL 8.0 writes):
//! - `GTID|ANONYMOUS_GTID, QUERY(BEGIN | XA START), body..., XID | QUERY(COMMIT|ROLLBACK) |
//!   XA_PREPARE`
//! - `GTID|ANONYMOUS_GTID, QUERY(<DDL>)`: a DDL is a transaction of its own;
//! - without a GTID event (old servers): `QUERY(BEGIN) ... end` or a lone `QUERY(<DDL>)`.
//!
//! ROTATE and STOP events stand between transactions. Anything else out of place is damage.

use std::path::Path;

use vfs::FileRef;

use super::error::{Damage, Error, Result};
use super::frame::{self, Class, MAGIC};
use crate::event::{EventHeader, HEADER_LEN};
use crate::gtid::{Gtid, GtidSet};

/// A read-ahead buffer for walking the events of one file with few reads.
///
/// It only ever holds bytes below the `limit` given when they were read. Readers of the active
/// file pass the published synced end as the limit: bytes below it never change again, so
/// the buffer cannot go stale even though the writer keeps appending beyond it.
#[derive(Debug, Default)]
pub struct Cursor {
    buf: Vec<u8>,
    buf_start: u64,
}

const READ_AHEAD: usize = 64 * 1024;

/// The result of reading one event.
pub enum Step<'a> {
    /// A complete event that passed the checks.
    Event(&'a [u8]),
    /// The limit is exactly at this position.
    End,
    /// The bytes at this position are not a valid event.
    Damaged(Damage),
}

impl Cursor {
    /// Forgets the buffered bytes (when moving to another file).
    pub fn reset(&mut self) {
        self.buf.clear();
        self.buf_start = 0;
    }

    /// `n` bytes at `pos`, or `None` if they pass `limit`.
    fn bytes(&mut self, file: &FileRef, limit: u64, pos: u64, n: usize) -> Result<Option<&[u8]>> {
        if pos + n as u64 > limit {
            return Ok(None);
        }
        let have =
            pos >= self.buf_start && pos + n as u64 <= self.buf_start + self.buf.len() as u64;
        if !have {
            let want = n.max(READ_AHEAD).min((limit - pos) as usize);
            self.buf.resize(want, 0);
            file.read_exact_at(&mut self.buf, pos)?;
            self.buf_start = pos;
        }
        let at = (pos - self.buf_start) as usize;
        Ok(Some(&self.buf[at..at + n]))
    }

    /// The `n` bytes at `pos` that the last [`Cursor::event_at`] returned (still buffered).
    pub fn buffered(&self, pos: u64, n: usize) -> &[u8] {
        let at = (pos - self.buf_start) as usize;
        &self.buf[at..at + n]
    }

    /// Reads and checks the event at `pos`, not looking past `limit`.
    pub fn event_at(
        &mut self,
        file: &FileRef,
        limit: u64,
        pos: u64,
        checksum: bool,
    ) -> Result<Step<'_>> {
        if pos == limit {
            return Ok(Step::End);
        }
        let Some(head) = self.bytes(file, limit, pos, HEADER_LEN)? else {
            return Ok(Step::Damaged(Damage::ShortHeader));
        };
        let size = match frame::check_header(head, pos) {
            Ok(size) => size as usize,
            Err(d) => return Ok(Step::Damaged(d)),
        };
        let Some(ev) = self.bytes(file, limit, pos, size)? else {
            return Ok(Step::Damaged(Damage::EventCut));
        };
        if let Err(d) = frame::check_frame(ev, pos, checksum) {
            return Ok(Step::Damaged(d));
        }
        Ok(Step::Event(ev))
    }
}

/// The start of a file: what its FORMAT_DESCRIPTION and PREVIOUS_GTIDS say.
#[derive(Debug, Clone)]
pub struct FileHeader {
    /// Whether events other than the FORMAT_DESCRIPTION carry a CRC32.
    pub checksum: bool,
    /// `LOG_EVENT_BINLOG_IN_USE_F` in the FORMAT_DESCRIPTION's flags.
    pub in_use: bool,
    /// Offset of the FORMAT_DESCRIPTION's end (where PREVIOUS_GTIDS starts).
    pub fde_end: u64,
    /// Offset just past PREVIOUS_GTIDS: where the first transaction goes.
    pub header_end: u64,
    /// The GTIDs executed before this file.
    pub previous_gtids: GtidSet,
}

/// Reads and checks the header of a file of length `len`. A file in the index always has a
/// durable header (it is synced before the file is added), so damage here is corruption.
pub fn read_header(file: &FileRef, path: &Path, len: u64) -> Result<FileHeader> {
    let corrupt = |offset, damage| Error::Corrupt { path: path.to_path_buf(), offset, damage };
    let mut cur = Cursor::default();
    match cur.bytes(file, len, 0, MAGIC.len())? {
        Some(m) if m == MAGIC => {}
        _ => return Err(corrupt(0, Damage::BadMagic)),
    }
    let fde_pos = MAGIC.len() as u64;
    // The FORMAT_DESCRIPTION always has a CRC32, whatever the file's algorithm.
    let fde = match cur.event_at(file, len, fde_pos, true)? {
        Step::Event(ev) => ev,
        Step::End => return Err(corrupt(fde_pos, Damage::ShortHeader)),
        Step::Damaged(d) => return Err(corrupt(fde_pos, d)),
    };
    let checksum = frame::fde_checksum(fde, fde_pos).map_err(|d| corrupt(fde_pos, d))?;
    let in_use = EventHeader::parse(fde, fde_pos).is_ok_and(|h| h.flags & frame::IN_USE_FLAG != 0);
    let fde_end = fde_pos + fde.len() as u64;
    let (previous_gtids, header_end) = match cur.event_at(file, len, fde_end, checksum)? {
        Step::Event(ev) => (
            frame::decode_previous_gtids(ev, fde_end, checksum).map_err(|d| corrupt(fde_end, d))?,
            fde_end + ev.len() as u64,
        ),
        Step::End => return Err(corrupt(fde_end, Damage::BadPreviousGtids)),
        Step::Damaged(d) => return Err(corrupt(fde_end, d)),
    };
    Ok(FileHeader { checksum, in_use, fde_end, header_end, previous_gtids })
}

/// A complete transaction found in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transaction {
    /// Its GTID (`None` for ANONYMOUS_GTID or no GTID event).
    pub gtid: Option<Gtid>,
    /// The engine XID of its XID event or of its atomic DDL's QUERY (`None` for other DDL,
    /// QUERY COMMIT, XA PREPARE).
    pub xid: Option<u64>,
    /// Offset of its first event.
    pub start: u64,
    /// Offset just past its last event.
    pub end: u64,
}

/// Everything a walk of one file found.
#[derive(Debug, Clone)]
pub struct Scan {
    pub header: FileHeader,
    /// The file's length when walked.
    pub len: u64,
    /// Complete transactions in file order.
    pub transactions: Vec<Transaction>,
    /// End of the last complete transaction (or of the header if there is none).
    pub trx_end: u64,
    /// End of the last complete unit: `trx_end`, or past ROTATE/STOP events that follow it.
    pub unit_end: u64,
    /// Start of a transaction that began but did not end before the walk stopped.
    pub partial_start: Option<u64>,
    /// End of the last valid event.
    pub events_end: u64,
    /// Why the walk stopped before `len` (`None` when every byte is a valid event).
    pub damage: Option<Damage>,
}

enum State {
    Idle,
    /// After a GTID event: a `BEGIN` or a DDL must follow.
    AfterGtid {
        start: u64,
        gtid: Option<Gtid>,
    },
    /// Inside `BEGIN ... COMMIT`.
    InTrx {
        start: u64,
        gtid: Option<Gtid>,
    },
}

/// Walks the whole file (see the module doc). I/O errors are returned; damage is not an
/// error here, it is where the walk stops (`Scan::damage`).
pub fn scan(file: &FileRef, path: &Path) -> Result<Scan> {
    let len = file.len()?;
    let header = read_header(file, path, len)?;
    let checksum = header.checksum;
    let mut cur = Cursor::default();
    let mut transactions = Vec::new();
    let mut trx_end = header.header_end;
    let mut unit_end = trx_end;
    let mut state = State::Idle;
    let mut pos = header.header_end;
    let damage = loop {
        let ev = match cur.event_at(file, len, pos, checksum)? {
            Step::End => break None,
            Step::Damaged(d) => break Some(d),
            Step::Event(ev) => ev,
        };
        let end = pos + ev.len() as u64;
        let class = match frame::classify(ev, pos, checksum) {
            Ok(c) => c,
            Err(d) => break Some(d),
        };
        // The transaction this event completes, if any, and the state after it.
        let (done, next) = match (state, class) {
            (State::Idle, Class::Gtid(g)) => (None, State::AfterGtid { start: pos, gtid: Some(g) }),
            (State::Idle, Class::AnonymousGtid) => {
                (None, State::AfterGtid { start: pos, gtid: None })
            }
            (State::Idle, Class::Begin) => (None, State::InTrx { start: pos, gtid: None }),
            (State::Idle, Class::OtherQuery) => (Some((pos, None, None)), State::Idle),
            (State::Idle, Class::AtomicDdl(xid)) => (Some((pos, None, Some(xid))), State::Idle),
            (State::Idle, Class::Rotate | Class::Stop) => {
                unit_end = end;
                (None, State::Idle)
            }
            (State::AfterGtid { start, gtid }, Class::Begin) => {
                (None, State::InTrx { start, gtid })
            }
            (State::AfterGtid { start, gtid }, Class::OtherQuery) => {
                (Some((start, gtid, None)), State::Idle)
            }
            (State::AfterGtid { start, gtid }, Class::AtomicDdl(xid)) => {
                (Some((start, gtid, Some(xid))), State::Idle)
            }
            (State::InTrx { start, gtid }, Class::Xid(xid)) => {
                (Some((start, gtid, Some(xid))), State::Idle)
            }
            (State::InTrx { start, gtid }, Class::Commit | Class::Rollback | Class::XaPrepare) => {
                (Some((start, gtid, None)), State::Idle)
            }
            (s @ State::InTrx { .. }, Class::Body | Class::OtherQuery | Class::AtomicDdl(_)) => {
                (None, s)
            }
            (s, _) => {
                state = s;
                break Some(Damage::OutsideTransaction);
            }
        };
        if let Some((start, gtid, xid)) = done {
            transactions.push(Transaction { gtid, xid, start, end });
            trx_end = end;
            unit_end = end;
        }
        state = next;
        pos = end;
    };
    let partial_start = match state {
        State::Idle => None,
        State::AfterGtid { start, .. } | State::InTrx { start, .. } => Some(start),
    };
    Ok(Scan {
        header,
        len,
        transactions,
        trx_end,
        unit_end,
        partial_start,
        events_end: pos,
        damage,
    })
}

/// Whether the bytes of `file` from `from` on start with zeros (as preallocated space does).
/// Only the first 64 KiB are looked at: enough to name the cause, cheap on a 1 GiB tail.
pub fn tail_is_zeros(file: &FileRef, from: u64, len: u64) -> Result<bool> {
    let n = (len - from).min(READ_AHEAD as u64) as usize;
    let mut buf = vec![0u8; n];
    file.read_exact_at(&mut buf, from)?;
    Ok(buf.iter().all(|&b| b == 0))
}

/// What was cut from the tail of a file, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CutReason {
    /// Nothing: the file ended exactly at a transaction boundary.
    Nothing,
    /// A transaction started at `valid_end` but did not end.
    PartialTransaction,
    /// ROTATE or STOP events after the last transaction of the last file (left by a crash in
    /// rotation or shutdown); the writer continues from the transaction boundary.
    TrailingEvent,
    /// Zeros: preallocated space never written.
    Zeros,
    /// Bytes that are not a valid event (a torn write, garbage).
    Damaged(Damage),
}

/// What opening a crashed binlog found and did. The commit layer uses it for XA recovery:
/// a transaction prepared in the engine commits if its XID is in `xids`, else rolls back.
#[derive(Debug, Clone)]
pub struct RecoveryReport {
    /// The crashed file's name (`binlog.000007`).
    pub file: String,
    /// Whether the in-use flag was set (false: the file was closed but its tail not cut).
    pub in_use: bool,
    /// The file's length before recovery.
    pub original_len: u64,
    /// Where the file now ends: the end of its last complete transaction.
    pub valid_end: u64,
    /// `original_len - valid_end`.
    pub bytes_cut: u64,
    /// What started at `valid_end`.
    pub reason: CutReason,
    /// The file's PREVIOUS_GTIDS.
    pub previous_gtids: GtidSet,
    /// The GTIDs of the complete transactions, in file order.
    pub gtids: Vec<Gtid>,
    /// The XIDs of the complete transactions, in file order.
    pub xids: Vec<u64>,
    /// The complete transactions with their offsets.
    pub transactions: Vec<Transaction>,
}

impl RecoveryReport {
    /// Builds the report of cutting `scan`'s file at `valid_end`.
    pub fn new(file: &FileRef, name: &str, scan: &Scan, valid_end: u64) -> Result<RecoveryReport> {
        let reason = if valid_end == scan.len {
            CutReason::Nothing
        } else if scan.partial_start == Some(valid_end) {
            CutReason::PartialTransaction
        } else if valid_end < scan.events_end {
            CutReason::TrailingEvent
        } else if tail_is_zeros(file, scan.events_end, scan.len)? {
            CutReason::Zeros
        } else {
            CutReason::Damaged(scan.damage.unwrap_or(Damage::ShortHeader))
        };
        let transactions: Vec<Transaction> =
            scan.transactions.iter().filter(|t| t.end <= valid_end).cloned().collect();
        Ok(RecoveryReport {
            file: name.to_string(),
            in_use: scan.header.in_use,
            original_len: scan.len,
            valid_end,
            bytes_cut: scan.len - valid_end,
            reason,
            previous_gtids: scan.header.previous_gtids.clone(),
            gtids: transactions.iter().filter_map(|t| t.gtid).collect(),
            xids: transactions.iter().filter_map(|t| t.xid).collect(),
            transactions,
        })
    }
}
