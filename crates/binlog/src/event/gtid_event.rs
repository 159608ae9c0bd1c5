//! GTID / ANONYMOUS_GTID (types 33/34) and PREVIOUS_GTIDS (type 35).
//!
//! GTID layout (control_events.cpp, `Gtid_event::Gtid_event(const char*, ...)`), each part
//! present only if the event is long enough, because servers added them over time:
//! - `flags u8 | sid [16] | gno i64` (5.6: nothing more);
//! - `lt_type u8 = 2 | last_committed i64 | sequence_number i64` (5.7: logical clock; a
//!   different `lt_type`, from 5.7.4 and earlier, means the rest is ignored);
//! - `immediate_commit_timestamp` 7 bytes (µs), bit 55 set when an
//!   `original_commit_timestamp` (7 bytes) follows, i.e. when the transaction came from
//!   another server (8.0.1);
//! - `transaction_length` packed integer: bytes of the whole transaction, this event included;
//! - `immediate_server_version u32`, bit 31 set when `original_server_version u32` follows
//!   (8.0.14);
//! - `commit_group_ticket u64` (8.0.27+, only when set by a group-replication applier).
//!
//! [`GtidEvent`] records which parts were present, so any event re-encodes byte for byte.
//! ANONYMOUS_GTID has the same layout with sid and gno zero (`gtid_mode=OFF`).
//!
//! PREVIOUS_GTIDS (`Previous_gtids_event`): the body is the binary GTID set (see
//! [`crate::gtid`]) of every transaction in earlier files; written right after the
//! FORMAT_DESCRIPTION of every file, even with GTIDs off (then empty: 8 zero bytes).

use super::bytes::{packed_len, put_packed, put_uint_n, Cursor};
use crate::error::{DecodeError, EncodeError};
use crate::gtid::{Gtid, GtidSet, Sid};

/// `lt_type` for the logical clock (LOGICAL_TIMESTAMP_TYPECODE).
const LOGICAL_TIMESTAMP_TYPECODE: u8 = 2;
/// Bit of the 7-byte immediate commit timestamp telling an original timestamp follows.
const ORIGINAL_COMMIT_TS_BIT: u64 = 1 << 55;
/// Bit of the immediate server version telling an original server version follows.
const ORIGINAL_SERVER_VERSION_BIT: u32 = 1 << 31;
/// Flag bit: the transaction may contain statement-based events (FLAG_MAY_HAVE_SBR).
pub const GTID_FLAG_MAY_HAVE_SBR: u8 = 1;

/// The logical clock for parallel appliers: a transaction may run in parallel with those
/// whose `sequence_number` is greater than its `last_committed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LogicalClock {
    pub last_committed: i64,
    pub sequence_number: i64,
}

/// The fields MySQL 8.0 added after the logical clock: the commit timestamps, the
/// transaction length and the server versions (was `CommitInfo`, a name the commit layer's
/// acknowledgement also had).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GtidCommitFields {
    /// Commit time on the server that wrote this event, µs since the epoch (56 bits).
    pub immediate_commit_ts: u64,
    /// Commit time on the originating server, present when it differs (replicated).
    pub original_commit_ts: Option<u64>,
    /// Bytes of the whole transaction, this GTID event included.
    pub transaction_length: Option<u64>,
    pub server_versions: Option<ServerVersions>,
}

/// Server versions (`80040` for 8.0.40) and the group-commit ticket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ServerVersions {
    pub immediate: u32,
    /// Present when the originating server's version differs.
    pub original: Option<u32>,
    pub commit_group_ticket: Option<u64>,
}

// Format: flags u8 | sid [16] | gno u64 | [lt_type u8 | last_committed u64 | sequence_number
//         u64 | [immediate_ts 7B (bit55) | original_ts 7B? | trx_length packed |
//         [immediate_version u32 (bit31) | original_version u32? | ticket u64?]]]
/// A GTID or ANONYMOUS_GTID event body.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GtidEvent {
    /// `GTID_FLAG_MAY_HAVE_SBR` or 0.
    pub flags: u8,
    pub sid: Sid,
    pub gno: u64,
    pub logical_clock: Option<LogicalClock>,
    pub commit_info: Option<GtidCommitFields>,
    /// Bytes after the parsed fields (e.g. an old `lt_type`'s clock), kept for re-encoding.
    pub trailing: Vec<u8>,
}

impl GtidEvent {
    /// The GTID event MySQL 8.0 writes for a locally committed row-based transaction.
    /// `transaction_length` can be fixed later with [`GtidEvent::set_transaction_length`].
    pub fn mysql80(
        gtid: Gtid,
        clock: LogicalClock,
        commit_ts_us: u64,
        transaction_length: u64,
        server_version: u32,
    ) -> Self {
        GtidEvent {
            flags: 0,
            sid: gtid.sid,
            gno: gtid.gno,
            logical_clock: Some(clock),
            commit_info: Some(GtidCommitFields {
                immediate_commit_ts: commit_ts_us,
                original_commit_ts: None,
                transaction_length: Some(transaction_length),
                server_versions: Some(ServerVersions {
                    immediate: server_version,
                    original: None,
                    commit_group_ticket: None,
                }),
            }),
            trailing: Vec::new(),
        }
    }

    /// The GTID this event assigns (meaningless for ANONYMOUS_GTID).
    pub fn gtid(&self) -> Gtid {
        Gtid { sid: self.sid, gno: self.gno }
    }

    /// Sets the transaction length to `rest_len` (the bytes of the transaction after this
    /// event) plus this event's own encoded size with checksum `trailer_len`, which depends
    /// on the length's packed width, as MySQL computes it.
    pub fn set_transaction_length(&mut self, rest_len: u64, trailer_len: usize) {
        let Some(info) = self.commit_info.as_mut() else { return };
        info.transaction_length = None;
        // Everything but the length field itself.
        let fixed = rest_len + (super::HEADER_LEN + self.body_len() + trailer_len) as u64;
        let mut total = fixed + 1;
        // The packed width only grows with the value, so this settles in a few rounds.
        while fixed + packed_len(total) as u64 != total {
            total = fixed + packed_len(total) as u64;
        }
        if let Some(info) = self.commit_info.as_mut() {
            info.transaction_length = Some(total);
        }
    }

    /// Encoded body length.
    pub fn body_len(&self) -> usize {
        let mut n = 1 + 16 + 8;
        if self.logical_clock.is_some() {
            n += 1 + 8 + 8;
        }
        if let Some(info) = &self.commit_info {
            n += 7 + if info.original_commit_ts.is_some() { 7 } else { 0 };
            if let Some(len) = info.transaction_length {
                n += packed_len(len);
            }
            if let Some(v) = &info.server_versions {
                n += 4 + v.original.map_or(0, |_| 4) + v.commit_group_ticket.map_or(0, |_| 8);
            }
        }
        n + self.trailing.len()
    }

    pub(crate) fn decode(c: &mut Cursor<'_>) -> Result<Self, DecodeError> {
        let flags = c.u8("gtid flags")?;
        let sid = Sid(c.array::<16>("sid")?);
        let gno = c.u64("gno")?;
        let mut ev = GtidEvent { flags, sid, gno, ..GtidEvent::default() };
        if c.is_empty() {
            return Ok(ev);
        }
        if c.u8("lt_type")? != LOGICAL_TIMESTAMP_TYPECODE {
            // A clock from 5.7.4 or earlier: MySQL ignores everything from the type code on;
            // we keep those bytes (type code included) so the event re-encodes exactly.
            ev.trailing = c.bytes_before(1).to_vec();
            ev.trailing.extend_from_slice(c.rest());
            return Ok(ev);
        }
        ev.logical_clock = Some(LogicalClock {
            last_committed: c.u64("last_committed")? as i64,
            sequence_number: c.u64("sequence_number")? as i64,
        });
        if c.remaining() < 7 {
            ev.trailing = c.rest().to_vec();
            return Ok(ev);
        }
        let raw_ts = c.uint_n(7, "immediate commit timestamp")?;
        let mut info = GtidCommitFields {
            immediate_commit_ts: raw_ts & !ORIGINAL_COMMIT_TS_BIT,
            ..GtidCommitFields::default()
        };
        if raw_ts & ORIGINAL_COMMIT_TS_BIT != 0 {
            info.original_commit_ts = Some(c.uint_n(7, "original commit timestamp")?);
        }
        if !c.is_empty() {
            info.transaction_length = Some(c.packed("transaction length")?);
        }
        if c.remaining() >= 4 {
            let raw_version = c.u32("immediate server version")?;
            let mut v = ServerVersions {
                immediate: raw_version & !ORIGINAL_SERVER_VERSION_BIT,
                ..ServerVersions::default()
            };
            if raw_version & ORIGINAL_SERVER_VERSION_BIT != 0 {
                v.original = Some(c.u32("original server version")?);
            }
            if c.remaining() >= 8 {
                v.commit_group_ticket = Some(c.u64("commit group ticket")?);
            }
            info.server_versions = Some(v);
        }
        ev.commit_info = Some(info);
        ev.trailing = c.rest().to_vec();
        Ok(ev)
    }

    pub(crate) fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        out.reserve(self.body_len());
        out.push(self.flags);
        out.extend_from_slice(&self.sid.0);
        out.extend_from_slice(&self.gno.to_le_bytes());
        if let Some(clock) = &self.logical_clock {
            out.push(LOGICAL_TIMESTAMP_TYPECODE);
            out.extend_from_slice(&clock.last_committed.to_le_bytes());
            out.extend_from_slice(&clock.sequence_number.to_le_bytes());
        }
        if let Some(info) = &self.commit_info {
            let mut ts = info.immediate_commit_ts & (ORIGINAL_COMMIT_TS_BIT - 1);
            if info.original_commit_ts.is_some() {
                ts |= ORIGINAL_COMMIT_TS_BIT;
            }
            put_uint_n(out, ts, 7);
            if let Some(original) = info.original_commit_ts {
                put_uint_n(out, original, 7);
            }
            if let Some(len) = info.transaction_length {
                put_packed(out, len);
            }
            if let Some(v) = &info.server_versions {
                let mut raw = v.immediate & !ORIGINAL_SERVER_VERSION_BIT;
                if v.original.is_some() {
                    raw |= ORIGINAL_SERVER_VERSION_BIT;
                }
                out.extend_from_slice(&raw.to_le_bytes());
                if let Some(original) = v.original {
                    out.extend_from_slice(&original.to_le_bytes());
                }
                if let Some(ticket) = v.commit_group_ticket {
                    out.extend_from_slice(&ticket.to_le_bytes());
                }
            }
        }
        out.extend_from_slice(&self.trailing);
        Ok(())
    }
}

// Format: n_sids u64 | (sid [16] | n_intervals u64 | (start u64 | end u64)*)*
/// PREVIOUS_GTIDS: the GTIDs of all earlier files.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PreviousGtids {
    gtids: GtidSet,
    /// The bytes as read, kept only when they are not the canonical encoding of `gtids`
    /// (MySQL always writes canonical sets, so this is normally `None`).
    non_canonical: Option<Vec<u8>>,
}

impl PreviousGtids {
    pub fn new(gtids: GtidSet) -> Self {
        PreviousGtids { gtids, non_canonical: None }
    }

    pub fn gtids(&self) -> &GtidSet {
        &self.gtids
    }

    pub(crate) fn decode(c: &mut Cursor<'_>) -> Result<Self, DecodeError> {
        let offset = c.offset();
        let body = c.rest();
        let (gtids, used) =
            GtidSet::decode_binary(body).map_err(|source| DecodeError::Gtid { offset, source })?;
        if used != body.len() {
            return Err(DecodeError::Malformed {
                offset: offset + used as u64,
                event_type: super::EventType::PREVIOUS_GTIDS,
                reason: "bytes after the GTID set",
            });
        }
        let mut canonical = Vec::with_capacity(body.len());
        gtids.encode_binary(&mut canonical);
        let non_canonical = (canonical != body).then(|| body.to_vec());
        Ok(PreviousGtids { gtids, non_canonical })
    }

    pub(crate) fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        match &self.non_canonical {
            Some(raw) => out.extend_from_slice(raw),
            None => self.gtids.encode_binary(out),
        }
        Ok(())
    }
}
