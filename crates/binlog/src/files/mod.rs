//! The binlog file set: files `<basename>.000001…` in one directory, listed by the index file
//! `<basename>.index`, written by one [`BinlogWriter`] and read by any number of
//! [`BinlogReader`]s in other threads.
//!
//! Every file is `\xfebin`, FORMAT_DESCRIPTION (with `LOG_EVENT_BINLOG_IN_USE_F` set while the
//! file is open), PREVIOUS_GTIDS (the GTIDs executed before the file), then whole transactions,
//! and at the end a ROTATE (rotation) or STOP (clean shutdown), or nothing (closed after crash
//! recovery).
//!
//! Invariants, after any crash at any step and a reopen:
//! - the index names exactly the files of the set in the directory, each with a durable header;
//! - every file but the last is closed: not in use, and its length is the end of its events;
//! - the last file ends at a transaction boundary: a partial transaction, torn event or
//!   preallocated zeros at its tail were cut;
//! - executed GTIDs = the last file's PREVIOUS_GTIDS + its GTIDs: every GTID whose group was
//!   synced is there, none twice;
//! - readers never see bytes of the active file past the published synced end.
//!
//! Checked at run time (`assert!`, every build): the published synced end of the active file
//! never moves back (`reader::Shared::publish_synced_end`).
//!
//! The protocols (rotation, purge, recovery) are in [`writer`]'s doc, the index update in
//! [`index`]'s, preallocation in [`prealloc`]'s, the reader in [`reader`]'s; `docs/binlog-files.md`
//! summarizes them.

mod error;
mod frame;
pub mod index;
mod names;
pub mod prealloc;
pub mod reader;
pub mod recover;
pub mod writer;

#[cfg(test)]
mod crash_tests;
#[cfg(test)]
mod tests;

use std::path::PathBuf;

pub use error::{Damage, Error, Result};
pub use frame::SERVER_VERSION;
pub use names::{file_name, parse_seq};
pub use reader::{BinlogEvent, BinlogFiles, BinlogPosition, BinlogReader, FilePin, Next, NextRef};
pub use recover::{CutReason, RecoveryReport, Transaction};
pub use writer::{Appended, BinlogWriter, FileInfo, PurgeOutcome, SyncTarget};

/// The smallest `max_binlog_size` MySQL accepts.
pub const MIN_MAX_BINLOG_SIZE: u64 = 4096;
/// The largest `max_binlog_size` MySQL accepts (1 GiB).
pub const MAX_MAX_BINLOG_SIZE: u64 = 1 << 30;
/// The name of the static pool directory under the data directory (WL#4925).
pub const POOL_DIR_NAME: &str = "pre-allocated-binlog";

/// How the file set is configured (MySQL variable names where there is one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// The directory of the binlog files and the index.
    pub dir: PathBuf,
    /// File name prefix (`log_bin_basename`'s last component, `binlog` by default).
    pub basename: String,
    /// `server_id`, written in every event header the set writes itself.
    pub server_id: u32,
    /// `max_binlog_size`: a file this long is rotated after the group that reached it.
    pub max_binlog_size: u64,
    /// `binlog_preallocate=1`: fallocate each new file to `max_binlog_size`.
    pub binlog_preallocate: bool,
    /// `binlog_checksum=CRC32` (true) or `NONE`.
    pub checksum: bool,
    /// The static pool (`<datadir>/pre-allocated-binlog/`), used first at rotation if set.
    pub pool_dir: Option<PathBuf>,
    /// Recovery mode: false (strict, the default) refuses to open a set whose last file is
    /// closed (in-use flag clear) but does not read to its end ([`Error::ClosedFileDamaged`]):
    /// only a file being written at a crash may have a torn tail. True (point-in-time)
    /// cuts it like a crashed file and reports it.
    pub recovery_accept_loss: bool,
}

impl Options {
    /// Defaults as MySQL 8.0's: `binlog` basename, 1 GiB files, CRC32, no preallocation.
    pub fn new(dir: impl Into<PathBuf>) -> Options {
        Options {
            dir: dir.into(),
            basename: "binlog".to_string(),
            server_id: 1,
            max_binlog_size: MAX_MAX_BINLOG_SIZE,
            binlog_preallocate: false,
            checksum: true,
            pool_dir: None,
            recovery_accept_loss: false,
        }
    }

    fn validate(&self) -> Result<()> {
        if self.basename.is_empty() || self.basename.contains('/') {
            return Err(Error::InvalidOptions { reason: "basename must be a plain file name" });
        }
        if !(MIN_MAX_BINLOG_SIZE..=MAX_MAX_BINLOG_SIZE).contains(&self.max_binlog_size) {
            return Err(Error::InvalidOptions {
                reason: "max_binlog_size must be between 4096 and 1073741824",
            });
        }
        Ok(())
    }
}
