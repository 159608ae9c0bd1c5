//! The 19-byte common header every v4 event starts with.
//!
//! Layout (binlog_event.h, `LOG_EVENT_HEADER_LEN` and the `*_OFFSET` constants):
//! `timestamp u32 | type_code u8 | server_id u32 | event_size u32 | log_pos u32 | flags u16`,
//! all little-endian. `event_size` counts the whole event: header, body and the 4-byte
//! checksum when checksums are on. `log_pos` is the file offset just past this event (the
//! "end_log_pos" mysqlbinlog prints), i.e. where the next event starts.

use super::bytes::Cursor;
use super::EventType;
use crate::error::DecodeError;

/// Length of the v4 common header.
pub const HEADER_LEN: usize = 19;
/// Offset of the type code inside the header.
pub const TYPE_OFFSET: usize = 4;
/// Offset of the server id inside the header.
pub const SERVER_ID_OFFSET: usize = 5;
/// Offset of the event-size field inside the header.
pub const EVENT_SIZE_OFFSET: usize = 9;
/// Offset of the log-pos (next position) field inside the header.
pub const LOG_POS_OFFSET: usize = 13;
/// Offset of the flags field inside the header.
pub const FLAGS_OFFSET: usize = 17;

/// Header flags (binlog_event.h). Names are MySQL's, so greps across both code bases work.
pub mod flags {
    /// Set in the FORMAT_DESCRIPTION of a binlog file while the server has it open; cleared
    /// on a clean close. Found set at startup, it means the server crashed with the file open.
    /// MySQL computes the FORMAT_DESCRIPTION's checksum as if this bit were clear, so it can
    /// be cleared in place without rewriting the CRC.
    pub const LOG_EVENT_BINLOG_IN_USE_F: u16 = 0x1;
    /// Obsolete (4.x forced rotation).
    pub const LOG_EVENT_FORCED_ROTATE_F: u16 = 0x2;
    /// The event depends on the session's thread id (temporary tables).
    pub const LOG_EVENT_THREAD_SPECIFIC_F: u16 = 0x4;
    /// The QUERY event must not be preceded by `USE db` when printed.
    pub const LOG_EVENT_SUPPRESS_USE_F: u16 = 0x8;
    /// Obsolete.
    pub const LOG_EVENT_UPDATE_TABLE_MAP_VERSION_F: u16 = 0x10;
    /// Made by the server, not the client (e.g. a fake ROTATE); log_pos may be 0.
    pub const LOG_EVENT_ARTIFICIAL_F: u16 = 0x20;
    /// Written by a replica's I/O thread into its relay log.
    pub const LOG_EVENT_RELAY_LOG_F: u16 = 0x40;
    /// A server that does not know the type may skip the event.
    pub const LOG_EVENT_IGNORABLE_F: u16 = 0x80;
    /// Replication filters must not drop the event.
    pub const LOG_EVENT_NO_FILTER_F: u16 = 0x100;
    /// The event must be applied in isolation by a multi-threaded applier.
    pub const LOG_EVENT_MTS_ISOLATE_F: u16 = 0x200;
}

// Format: timestamp u32 | type u8 | server_id u32 | event_size u32 | log_pos u32 | flags u16
/// The common header of an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EventHeader {
    /// Seconds since the epoch when the statement began (not when it committed).
    pub timestamp: u32,
    /// The event's type code.
    pub event_type: EventType,
    /// The server that first wrote the event (kept across replication).
    pub server_id: u32,
    /// Whole event length including header and checksum. Filled by the encoder.
    pub event_size: u32,
    /// File offset just past this event. Filled by the encoder.
    pub log_pos: u32,
    /// `flags::*` bits.
    pub flags: u16,
}

impl EventHeader {
    /// A header for a new event; size and position are filled at encode time.
    pub fn new(timestamp: u32, server_id: u32, flags: u16) -> Self {
        EventHeader {
            timestamp,
            event_type: EventType::UNKNOWN,
            server_id,
            event_size: 0,
            log_pos: 0,
            flags,
        }
    }

    /// Parses the header at the start of `buf`; `offset` is `buf[0]`'s absolute offset.
    pub fn parse(buf: &[u8], offset: u64) -> Result<EventHeader, DecodeError> {
        if buf.len() < HEADER_LEN {
            return Err(DecodeError::Truncated {
                offset,
                needed: HEADER_LEN as u64,
                available: buf.len() as u64,
            });
        }
        let mut c = Cursor::new(&buf[..HEADER_LEN], offset, EventType::UNKNOWN);
        // The lengths are checked above, so these reads cannot fail.
        let header = (|| {
            Ok::<_, DecodeError>(EventHeader {
                timestamp: c.u32("timestamp")?,
                event_type: EventType(c.u8("type")?),
                server_id: c.u32("server id")?,
                event_size: c.u32("event size")?,
                log_pos: c.u32("log pos")?,
                flags: c.u16("flags")?,
            })
        })()?;
        Ok(header)
    }

    /// Appends the 19 header bytes.
    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.timestamp.to_le_bytes());
        out.push(self.event_type.0);
        out.extend_from_slice(&self.server_id.to_le_bytes());
        out.extend_from_slice(&self.event_size.to_le_bytes());
        out.extend_from_slice(&self.log_pos.to_le_bytes());
        out.extend_from_slice(&self.flags.to_le_bytes());
    }
}
