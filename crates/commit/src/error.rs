//! The commit layer's one error type, classified for the layers above.

use std::sync::Arc;

use binlog::gtid::Gtid;

/// What a caller should do about an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorClass {
    /// The request was wrong (bad row, unknown table, GTID rules): report it, carry on.
    Client,
    /// Try the transaction again (lock conflicts).
    Retryable,
    /// Nothing more can be made durable until a restart runs recovery (a failed write or
    /// fsync, a full disk in the log path, corruption).
    Fatal,
}

/// A commit-layer error.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The engine refused or failed; `class` and `mysql_code` come from the engine.
    #[error("engine: {source}")]
    Engine {
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
        class: ErrorClass,
        mysql_code: u16,
        no_space: bool,
    },
    /// The binlog file set failed (its writer is then poisoned, except for usage errors).
    #[error("binlog: {source}")]
    Binlog {
        #[source]
        source: binlog::files::Error,
    },
    /// An event could not be encoded (a value does not fit its column).
    #[error("binlog event: {source}")]
    Encode {
        #[source]
        source: binlog::error::EncodeError,
    },
    /// An earlier failure in the pipeline; the server must restart (recovery decides the
    /// outcome of every transaction that was in flight).
    #[error("commit pipeline poisoned by an earlier failure; restart required: {cause}")]
    Poisoned {
        #[source]
        cause: Arc<Error>,
    },
    /// A binlog payload read back from the redo is not what the commit layer wrote.
    #[error("corrupt binlog payload in the redo at LSN {lsn}")]
    CorruptPayload { lsn: u64 },
    /// Recovery found the binlog and the redo in a state no crash can produce.
    #[error("recovery: {what} (binlog file {seq}, position {pos})")]
    Inconsistent { what: &'static str, seq: u64, pos: u64 },
    /// Recovery found acknowledged work missing (lost files, damage) and the recovery mode
    /// does not accept the loss: the server refuses to start.
    #[error(
        "recovery: {what}; refusing to start (a recovery mode that accepts the loss can override)"
    )]
    Lost { what: String },
    /// A row change was logged for a table the engine does not know.
    #[error("no table with id {table}")]
    NoSuchTable { table: u32 },
    /// `gtid_next` named a GTID whose server uuid part is invalid for automatic use, or a
    /// transaction with an explicit GTID was committed without owning it.
    #[error("GTID {gtid} is not owned by this session")]
    GtidNotOwned { gtid: Gtid },
    /// A pipeline thread panicked (a failed run-time invariant included) while it worked for
    /// the transaction, or before it: the pipeline is poisoned (see `coordinator/poison.rs`).
    #[error("commit pipeline thread '{thread}' panicked: {message}")]
    Panicked { thread: String, message: String },
    /// The coordinator was shut down.
    #[error("the commit coordinator is shut down")]
    ShutDown,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// How to react to the error.
    pub fn class(&self) -> ErrorClass {
        match self {
            Error::Engine { class, .. } => *class,
            Error::Binlog { source } if !source.is_poisoned() && !is_io(source) => {
                ErrorClass::Client
            }
            Error::Encode { .. } | Error::NoSuchTable { .. } | Error::GtidNotOwned { .. } => {
                ErrorClass::Client
            }
            _ => ErrorClass::Fatal,
        }
    }

    /// Whether the root cause is a full disk (MySQL's ER_DISK_FULL, 1021).
    pub fn is_no_space(&self) -> bool {
        match self {
            Error::Engine { no_space, .. } => *no_space,
            Error::Binlog { source } => matches!(source, binlog::files::Error::NoSpace { .. }),
            Error::Poisoned { cause } => cause.is_no_space(),
            _ => false,
        }
    }

    /// The MySQL error number a client sees.
    pub fn mysql_code(&self) -> u16 {
        if self.is_no_space() {
            return 1021;
        }
        match self {
            Error::Engine { mysql_code, .. } => *mysql_code,
            // A panic is no write error: ER_UNKNOWN_ERROR, as for the panic itself.
            Error::Poisoned { cause } if matches!(**cause, Error::Panicked { .. }) => 1105,
            // ER_ERROR_ON_WRITE for log I/O, as MySQL reports a failed binlog flush/sync.
            Error::Binlog { .. } | Error::Poisoned { .. } => 1026,
            Error::Encode { .. } => 1366,
            Error::NoSuchTable { .. } => 1146,
            // ER_GTID_NEXT_TYPE_UNDEFINED_GTID: committing with a GTID the session no longer
            // owns is what MySQL reports when gtid_next was not set again.
            Error::GtidNotOwned { .. } => 1837,
            Error::CorruptPayload { .. }
            | Error::Inconsistent { .. }
            | Error::Lost { .. }
            | Error::Panicked { .. } => 1105,
            Error::ShutDown => 1053,
        }
    }

    /// The poisoned error later commits get, keeping the first failure as the cause.
    pub(crate) fn poisoned(cause: &Arc<Error>) -> Error {
        Error::Poisoned { cause: cause.clone() }
    }
}

fn is_io(e: &binlog::files::Error) -> bool {
    matches!(e, binlog::files::Error::Io(_) | binlog::files::Error::NoSpace { .. })
}

impl From<binlog::files::Error> for Error {
    fn from(source: binlog::files::Error) -> Self {
        Error::Binlog { source }
    }
}

impl From<binlog::error::EncodeError> for Error {
    fn from(source: binlog::error::EncodeError) -> Self {
        Error::Encode { source }
    }
}

impl From<vfs::Error> for Error {
    fn from(source: vfs::Error) -> Self {
        let source = if source.is_no_space() {
            binlog::files::Error::NoSpace { source }
        } else {
            binlog::files::Error::Io(source)
        };
        Error::Binlog { source }
    }
}
