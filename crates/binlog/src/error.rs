//! Errors of the binlog crate.
//!
//! Decoding errors always name the absolute byte offset (in the file or stream the caller
//! decodes) where the problem was found, so a tool can say "bad event at 1234" and a recovery
//! routine can truncate there. They are classified by what a caller does next:
//! - [`DecodeError::Truncated`]: the bytes end inside an event. At the tail of an active or
//!   crashed binlog this is expected (wait for more, or truncate); anywhere else it is damage.
//! - everything else: the bytes are present but wrong (bad checksum, impossible field). Never
//!   retried; the file is damaged from that offset on.

use crate::event_type::EventType;
use crate::gtid::GtidError;

/// Why bytes could not be decoded as binlog events.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The buffer ends before the event (header or body) does.
    #[error(
        "event at offset {offset} is cut: it needs {needed} bytes, only {available} are there"
    )]
    Truncated { offset: u64, needed: u64, available: u64 },
    /// The stored CRC32 does not match the event's bytes.
    #[error("checksum mismatch in event at offset {offset}: stored {stored:#010x}, computed {computed:#010x}")]
    Checksum { offset: u64, stored: u32, computed: u32 },
    /// The file does not start with the binlog magic `\xfebin`.
    #[error("no binlog magic at offset {offset}")]
    BadMagic { offset: u64 },
    /// The header's event-size field is smaller than the header (plus checksum) itself.
    #[error("event at offset {offset} declares size {event_size}, below the minimum {minimum}")]
    BadEventSize { offset: u64, event_size: u32, minimum: u32 },
    /// A field inside a complete, checksum-valid event is impossible.
    #[error("malformed {event_type} event: {reason} (at offset {offset})")]
    Malformed { offset: u64, event_type: EventType, reason: &'static str },
    /// The format description names a checksum algorithm this codec does not know.
    #[error(
        "unsupported binlog checksum algorithm {alg} in the format description at offset {offset}"
    )]
    UnsupportedChecksum { offset: u64, alg: u8 },
    /// A PREVIOUS_GTIDS event holds a GTID set MySQL could not have written.
    #[error("bad GTID set in the event at offset {offset}")]
    Gtid {
        offset: u64,
        #[source]
        source: GtidError,
    },
    /// A rows event refers to a table id no TABLE_MAP event has described.
    #[error("rows event at offset {offset} refers to unknown table id {table_id}")]
    UnknownTable { offset: u64, table_id: u64 },
}

impl DecodeError {
    /// Whether the bytes simply ended inside an event (as at the tail of an active file).
    pub fn is_truncated(&self) -> bool {
        matches!(self, DecodeError::Truncated { .. })
    }

    /// The absolute offset the error names.
    pub fn offset(&self) -> u64 {
        match *self {
            DecodeError::Truncated { offset, .. }
            | DecodeError::Checksum { offset, .. }
            | DecodeError::BadMagic { offset }
            | DecodeError::BadEventSize { offset, .. }
            | DecodeError::Malformed { offset, .. }
            | DecodeError::UnsupportedChecksum { offset, .. }
            | DecodeError::Gtid { offset, .. }
            | DecodeError::UnknownTable { offset, .. } => offset,
        }
    }
}

/// Why an event could not be encoded. These are caller errors (a value the format cannot
/// hold); nothing is written when they occur.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// A string or block is longer than its length field can say.
    #[error("{field} is {len} bytes, more than the {max} the format allows")]
    TooLong { field: &'static str, len: usize, max: usize },
    /// A row value does not match the column it is written to.
    #[error("column {column}: {reason}")]
    BadValue { column: usize, reason: &'static str },
    /// A row has a different number of values than the columns it claims to carry.
    #[error("row has {got} values, the columns bitmap selects {expected}")]
    RowWidth { expected: usize, got: usize },
}

/// Any error of the binlog crate.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Decode(#[from] DecodeError),
    #[error(transparent)]
    Encode(#[from] EncodeError),
}
