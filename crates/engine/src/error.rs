//! The engine's one error type. Every variant maps to the MySQL error code a client would see
//! ([`Error::mysql_code`]) and to a class ([`Error::is_fatal`], [`Error::is_retryable`]).

use crate::lsn::Lsn;

/// An engine error.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A unique key (the primary key or a unique secondary index) already holds the value.
    #[error("Duplicate entry '{entry}' for key '{key}'")]
    DupEntry { entry: String, key: String },
    /// A row lock was not granted within `innodb_lock_wait_timeout`. The statement failed; the
    /// transaction is intact.
    #[error("Lock wait timeout exceeded; try restarting transaction")]
    LockWaitTimeout,
    /// Waiting for the lock would close a cycle in the wait-for graph; this transaction is the
    /// victim and must be rolled back by the caller.
    #[error("Deadlock found when trying to get lock; try restarting transaction")]
    Deadlock,
    #[error("Table '{name}' doesn't exist")]
    NoSuchTable { name: String },
    /// A consistent read of a table whose definition is newer than the read view (created,
    /// altered or truncated after it began). The statement failed; the transaction is intact.
    #[error("Table definition has changed, please retry transaction")]
    TableDefChanged,
    #[error("Table '{name}' already exists")]
    TableExists { name: String },
    #[error("Duplicate key name '{name}'")]
    DupKeyName { name: String },
    #[error("Key '{name}' doesn't exist in table")]
    NoSuchIndex { name: String },
    #[error("Column '{column}' cannot be null")]
    BadNull { column: String },
    #[error("Out of range value for column '{column}'")]
    OutOfRange { column: String },
    #[error("Data too long for column '{column}'")]
    DataTooLong { column: String },
    #[error("Incorrect value for column '{column}'")]
    WrongValue { column: String },
    #[error("Column count doesn't match value count: expected {expected}, got {got}")]
    ColumnCount { expected: usize, got: usize },
    /// A table definition the engine cannot hold (unknown column, empty name, ...).
    #[error("invalid table definition: {reason}")]
    InvalidSchema { reason: &'static str },
    /// The transaction is in the wrong state for the call (e.g. a write after prepare).
    #[error("transaction state: {reason}")]
    TxnState { reason: &'static str },
    /// No prepared transaction has this XID.
    #[error("Unknown XID {xid}")]
    UnknownXid { xid: u64 },
    /// A record larger than a redo file can hold.
    #[error("redo record of {bytes} bytes exceeds the redo file capacity")]
    RecordTooLarge { bytes: usize },
    /// The device is full. Nothing was made durable by the failing call; the log is not
    /// poisoned and a later call may succeed.
    #[error("disk full: {source}")]
    NoSpace {
        #[source]
        source: vfs::Error,
    },
    /// A file operation failed. If it was a redo write or sync the log is now poisoned.
    #[error("I/O: {source}")]
    Io {
        #[source]
        source: vfs::Error,
    },
    /// An earlier redo write or sync failed; the log refuses all writes until restart.
    #[error("redo log poisoned by an earlier I/O failure; restart required")]
    Poisoned,
    /// Bytes read from disk are not what the engine wrote.
    #[error("corrupt {what} at {position}")]
    Corrupt { what: &'static str, position: u64 },
    /// Recovery found the redo damaged inside data that had been durable (strict mode).
    #[error("{damage}; refusing to start (a recovery mode that accepts the loss can override)")]
    RedoDamaged { damage: Box<RedoDamage> },
    /// Recovery found the redo files gone beside a checkpoint (strict mode).
    #[error("{what}; refusing to start (a recovery mode that accepts the loss can override)")]
    RedoMissing { what: String },
    /// A checkpoint file (base, delta or chain manifest) is damaged or missing: named with
    /// its path and offset; start-up refuses it rather than dropping what it held.
    #[error("{what}; refusing to start")]
    CheckpointDamaged { what: String },
    /// The requested redo is no longer on disk (recycled).
    #[error("redo at {requested:?} was recycled; oldest available is {oldest:?}")]
    RedoPurged { requested: Lsn, oldest: Lsn },
    /// The call would have waited (for a row lock or a table's DDL) on a thread that asked not
    /// to ([`crate::without_waiting`]). Nothing was waited for; the caller undoes the statement
    /// and runs it again where it may block.
    #[error("the statement must wait for a lock")]
    WouldBlock,
    /// A blocking wait (row lock, table DDL) was given up because the caller's interrupt check
    /// ([`crate::interruptible`]) turned true: KILL QUERY or KILL CONNECTION. The statement
    /// failed; the transaction is intact.
    #[error("Query execution was interrupted")]
    Interrupted,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// The MySQL error number a client sees for this error.
    pub fn mysql_code(&self) -> u16 {
        match self {
            Error::DupEntry { .. } => 1062,
            Error::LockWaitTimeout => 1205,
            Error::Deadlock => 1213,
            Error::NoSuchTable { .. } => 1146,
            Error::TableDefChanged => 1412,
            Error::TableExists { .. } => 1050,
            Error::DupKeyName { .. } => 1061,
            Error::NoSuchIndex { .. } => 1176,
            Error::BadNull { .. } => 1048,
            Error::OutOfRange { .. } => 1264,
            Error::DataTooLong { .. } => 1406,
            Error::WrongValue { .. } => 1366,
            Error::ColumnCount { .. } => 1136,
            Error::InvalidSchema { .. } => 1105,
            Error::TxnState { .. } => 1399,
            Error::UnknownXid { .. } => 1397,
            Error::RecordTooLarge { .. } => 1118,
            Error::NoSpace { .. } => 1021,
            Error::Io { .. }
            | Error::Poisoned
            | Error::Corrupt { .. }
            | Error::RedoDamaged { .. }
            | Error::RedoMissing { .. }
            | Error::CheckpointDamaged { .. } => 1030,
            Error::RedoPurged { .. } => 1236,
            Error::WouldBlock => 1205,
            Error::Interrupted => 1317,
        }
    }

    /// True when the engine can no longer make anything durable (restart needed).
    pub fn is_fatal(&self) -> bool {
        matches!(
            self,
            Error::Io { .. }
                | Error::Poisoned
                | Error::Corrupt { .. }
                | Error::RedoDamaged { .. }
                | Error::RedoMissing { .. }
                | Error::CheckpointDamaged { .. }
        )
    }

    /// True when retrying the transaction may succeed (lock conflicts, a full disk).
    pub fn is_retryable(&self) -> bool {
        matches!(self, Error::LockWaitTimeout | Error::Deadlock | Error::NoSpace { .. })
    }

    /// Classifies a file error: ENOSPC is clean, anything else is I/O.
    pub(crate) fn from_vfs(source: vfs::Error) -> Error {
        if source.is_no_space() {
            Error::NoSpace { source }
        } else {
            Error::Io { source }
        }
    }
}

impl From<vfs::Error> for Error {
    fn from(source: vfs::Error) -> Self {
        Error::from_vfs(source)
    }
}

/// Where replay stopped inside data that had been durable: the redo is damaged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedoDamage {
    /// The redo file holding the first bad record.
    pub file: std::path::PathBuf,
    /// Its byte offset in that file.
    pub offset: u64,
    /// Its LSN (where replay stopped).
    pub lsn: crate::lsn::Lsn,
    /// The durable LSN a later Mark names (everything below it had been synced).
    pub durable: crate::lsn::Lsn,
    /// Where that Mark is.
    pub mark_lsn: crate::lsn::Lsn,
    /// Valid records found after the bad one.
    pub valid_after: u64,
}

impl std::fmt::Display for RedoDamage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "redo damaged: {} offset {} (lsn {}) holds no valid record, but {} valid records \
             follow and the mark at lsn {} says the redo was durable up to lsn {}; {} bytes of \
             redo after the damage would be lost",
            self.file.display(),
            self.offset,
            self.lsn.0,
            self.valid_after,
            self.mark_lsn.0,
            self.durable.0,
            self.durable.0 - self.lsn.0,
        )
    }
}
