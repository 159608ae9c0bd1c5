//! The small events: XID, ROTATE, HEARTBEAT and HEARTBEAT_V2 (STOP has no body).
//!
//! Layouts (control_events.cpp / control_events.h):
//! - XID: the engine's transaction id, u64 little-endian. It ends a transaction that touched
//!   a transactional engine; its `xid` is what 2PC recovery matches against prepared
//!   transactions in the engine.
//! - ROTATE: `position u64 | next file name` (the name runs to the event end, no NUL). The
//!   server writes it as the last event of a file; a source also sends a fake one (artificial
//!   flag, log_pos 0) to tell a replica which file it streams.
//! - HEARTBEAT (v1): the body is the source's current file name; the position is in the
//!   header's log_pos. Sent on the wire only, never written to files.
//! - HEARTBEAT_V2 (codecs/binary.cpp `Heartbeat`): TLV fields of packed integers —
//!   type 1 file name (length, bytes), type 2 position (length, packed value), then the end
//!   mark 0. Used when positions exceed 4 GiB.

use super::bytes::{packed_len, put_packed, Cursor};
use crate::error::{DecodeError, EncodeError};

// Format: xid u64
/// XID: commits a transaction of a transactional engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct XidEvent {
    pub xid: u64,
}

impl XidEvent {
    pub(crate) fn decode(c: &mut Cursor<'_>) -> Result<Self, DecodeError> {
        Ok(XidEvent { xid: c.u64("xid")? })
    }

    pub(crate) fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        out.extend_from_slice(&self.xid.to_le_bytes());
        Ok(())
    }
}

// Format: position u64 | next_file [rest of the event]
/// ROTATE: the next file and the position its first event starts at (4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RotateEvent {
    pub position: u64,
    pub next_file: Vec<u8>,
}

impl RotateEvent {
    /// A rotation to `next_file`, whose events start after the magic.
    pub fn new(next_file: &str) -> Self {
        RotateEvent { position: 4, next_file: next_file.as_bytes().to_vec() }
    }

    pub(crate) fn decode(c: &mut Cursor<'_>) -> Result<Self, DecodeError> {
        let position = c.u64("rotate position")?;
        Ok(RotateEvent { position, next_file: c.rest().to_vec() })
    }

    pub(crate) fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        out.extend_from_slice(&self.position.to_le_bytes());
        out.extend_from_slice(&self.next_file);
        Ok(())
    }
}

// Format: log_file [rest of the event]   (position in the header's log_pos)
/// HEARTBEAT (v1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeartbeatEvent {
    pub log_file: Vec<u8>,
}

impl HeartbeatEvent {
    pub(crate) fn decode(c: &mut Cursor<'_>) -> Result<Self, DecodeError> {
        Ok(HeartbeatEvent { log_file: c.rest().to_vec() })
    }

    pub(crate) fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        out.extend_from_slice(&self.log_file);
        Ok(())
    }
}

/// TLV field types of HEARTBEAT_V2 (codecs/binary.h).
const HB_END_MARK: u64 = 0;
const HB_LOG_FILENAME: u64 = 1;
const HB_LOG_POSITION: u64 = 2;

// Format: (type packed | length packed | value)* | 0
/// HEARTBEAT_V2: file name and a 64-bit position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeartbeatV2Event {
    pub log_file: Vec<u8>,
    pub log_position: u64,
}

impl HeartbeatV2Event {
    pub(crate) fn decode(c: &mut Cursor<'_>) -> Result<Self, DecodeError> {
        let mut hb = HeartbeatV2Event { log_file: Vec::new(), log_position: 0 };
        while !c.is_empty() {
            let field = c.packed("heartbeat field type")?;
            if field == HB_END_MARK {
                break;
            }
            let len = c.packed_len("heartbeat field length")?;
            let value = c.bytes(len, "heartbeat field value")?;
            match field {
                HB_LOG_FILENAME => hb.log_file = value.to_vec(),
                HB_LOG_POSITION => {
                    let mut v =
                        Cursor::new(value, c.offset() - len as u64, super::EventType::HEARTBEAT_V2);
                    hb.log_position = v.packed("heartbeat position")?;
                }
                // Unknown fields are skipped, as MySQL does.
                _ => {}
            }
        }
        Ok(hb)
    }

    pub(crate) fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        put_packed(out, HB_LOG_FILENAME);
        put_packed(out, self.log_file.len() as u64);
        out.extend_from_slice(&self.log_file);
        put_packed(out, HB_LOG_POSITION);
        put_packed(out, packed_len(self.log_position) as u64);
        put_packed(out, self.log_position);
        put_packed(out, HB_END_MARK);
        Ok(())
    }
}
