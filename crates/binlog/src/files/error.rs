//! Errors of the binlog file set, classified by what the caller does next:
//! - [`Error::NoSpace`], [`Error::Io`] from the writer: that call failed and the writer is now
//!   poisoned; every later call returns [`Error::Poisoned`] until the set is reopened.
//! - [`Error::Corrupt`], [`Error::MissingFile`], [`Error::OrphanFiles`], [`Error::BadIndexLine`]:
//!   the files on disk are not what the protocol leaves behind; an operator must look.
//! - [`Error::UnknownFile`], [`Error::Purged`], [`Error::PurgeActive`], [`Error::RecoveryPending`],
//!   [`Error::InvalidOptions`]: the caller asked for something impossible; nothing changed.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

/// What is wrong with the bytes at some offset of a binlog file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Damage {
    /// The file does not start with `\xfebin`.
    BadMagic,
    /// Fewer bytes than an event header remain.
    ShortHeader,
    /// The header's event size is impossible (below the header, or zero as in preallocated
    /// space).
    BadEventSize,
    /// The event runs past the end of the file.
    EventCut,
    /// The stored CRC32 does not match the event.
    BadChecksum,
    /// The header's `log_pos` is not the end of the event, as MySQL always writes it.
    BadLogPos,
    /// The event type code is not one MySQL 8.0 writes.
    UnknownEventType,
    /// The first event is not a FORMAT_DESCRIPTION event.
    NoFormatDescription,
    /// The FORMAT_DESCRIPTION event names an unknown checksum algorithm.
    BadChecksumAlgorithm,
    /// The second event is not a valid PREVIOUS_GTIDS event.
    BadPreviousGtids,
    /// A GTID, XID or QUERY event is too short for its fixed fields.
    BadEventBody,
    /// An event where the transaction grammar does not allow it (an XID outside a
    /// transaction, a GTID inside one, ...).
    OutsideTransaction,
}

impl fmt::Display for Damage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Damage::BadMagic => "no binlog magic",
            Damage::ShortHeader => "bytes end inside an event header",
            Damage::BadEventSize => "impossible event size",
            Damage::EventCut => "event runs past the end of the file",
            Damage::BadChecksum => "checksum mismatch",
            Damage::BadLogPos => "log_pos is not the end of the event",
            Damage::UnknownEventType => "unknown event type",
            Damage::NoFormatDescription => "first event is not a FORMAT_DESCRIPTION",
            Damage::BadChecksumAlgorithm => "unknown checksum algorithm",
            Damage::BadPreviousGtids => "second event is not a valid PREVIOUS_GTIDS",
            Damage::BadEventBody => "event body too short for its fields",
            Damage::OutsideTransaction => "event out of place in the transaction grammar",
        })
    }
}

/// An error of the binlog file set.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file operation failed (the writer is poisoned if it was a write or sync).
    #[error(transparent)]
    Io(#[from] vfs::Error),
    /// The device is full (ENOSPC). The writer is poisoned: the failed write may have left
    /// part of the group on disk, and nothing may be acknowledged after it until a restart.
    #[error("binlog device full: {source}")]
    NoSpace {
        #[source]
        source: vfs::Error,
    },
    /// An earlier write or sync failed; the writer refuses all further work until reopened.
    #[error("binlog writer is poisoned by an earlier failure (restart to recover): {cause}")]
    Poisoned {
        #[source]
        cause: Arc<vfs::Error>,
    },
    /// A file holds bytes the protocol never leaves there.
    #[error("{}: damaged at offset {offset}: {damage}", path.display())]
    Corrupt { path: PathBuf, offset: u64, damage: Damage },
    /// The last file is closed (its in-use flag clear: nothing was being written to it) but
    /// does not read to its end: the bytes were damaged after they were written.
    #[error(
        "{}: closed binlog file damaged at offset {offset} ({damage}); {bytes_after} bytes \
         would be cut from it; refusing to start (a recovery mode that accepts the loss can override)",
        path.display()
    )]
    ClosedFileDamaged {
        path: PathBuf,
        offset: u64,
        damage: String,
        /// Bytes from the end of the last complete transaction to the file's end.
        bytes_after: u64,
    },
    /// An index line does not name a file `<basename>.NNNNNN` of this set.
    #[error("{}: line {line} ({text:?}) is not a binlog file of this set", path.display())]
    BadIndexLine { path: PathBuf, line: usize, text: String },
    /// The index lists a file that does not exist.
    #[error("binlog file {name} is listed in the index but missing")]
    MissingFile { name: String },
    /// Binlog files exist but the index does not: refuse to guess which are valid.
    #[error("binlog files exist in {} but the index {} does not", dir.display(), index.display())]
    OrphanFiles { dir: PathBuf, index: PathBuf },
    /// A file name given by the caller is not in the index.
    #[error("binlog file {name} is not in the index")]
    UnknownFile { name: String },
    /// A reader needs a file that was purged.
    #[error("binlog file {name} was purged")]
    Purged { name: String },
    /// `PURGE BINARY LOGS TO` the active file or beyond it.
    #[error("cannot purge the active binlog file {name}")]
    PurgeActive { name: String },
    /// `RESET MASTER` while a reader (a dump thread) is on a file of the set.
    #[error("binlog file {name} is being read; RESET MASTER needs no reader on the binary log")]
    InUse { name: String },
    /// The operation needs [`BinlogWriter::finish_recovery`](super::BinlogWriter::finish_recovery)
    /// first.
    #[error("binlog crash recovery is not finished")]
    RecoveryPending,
    /// An event the set writes itself could not be encoded (a PREVIOUS_GTIDS too large for
    /// one event).
    #[error(transparent)]
    Encode(#[from] crate::error::EncodeError),
    /// The options cannot work.
    #[error("invalid binlog options: {reason}")]
    InvalidOptions { reason: &'static str },
}

impl Error {
    /// Whether this error came from (or is) a poisoned writer: nothing more will be written.
    pub fn is_poisoned(&self) -> bool {
        matches!(self, Error::Poisoned { .. })
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
