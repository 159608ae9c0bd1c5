//! The few event-level facts the file set needs: framing (header, size, `log_pos`, CRC32),
//! the events it writes itself (FORMAT_DESCRIPTION, PREVIOUS_GTIDS, ROTATE, STOP) and a light
//! classification of the events recovery must understand (GTID, XID, QUERY `BEGIN`/`COMMIT`).
//!
//! Recovery walks a whole file on every crash restart, so it reads only the fixed fields it
//! needs instead of decoding every event fully.
//!
//! Checksums follow MySQL: the FORMAT_DESCRIPTION event always carries the algorithm byte and a
//! CRC32, computed as if `LOG_EVENT_BINLOG_IN_USE_F` were clear, so clearing the flag in place
//! keeps the CRC valid (`Log_event_footer::event_checksum_test` in libbinlogevents'
//! `binlog_event.cpp`: "FD event is checksummed and therefore verified w/o the binlog-in-use
//! flag"). Other events carry a CRC32 only when the FORMAT_DESCRIPTION says `CRC32`.

use super::error::Damage;
use crate::gtid::{Gtid, GtidSet, Sid};

/// Every binlog file starts with these 4 bytes (`BINLOG_MAGIC`).
pub const MAGIC: [u8; 4] = [0xfe, b'b', b'i', b'n'];
/// The length of the common event header (binlog v4).
pub const HEADER_LEN: usize = 19;
/// The length of the CRC32 trailer.
pub const CHECKSUM_LEN: usize = 4;
const EVENT_SIZE_OFFSET: usize = 9;
const LOG_POS_OFFSET: usize = 13;
/// Offset of the 2 flag bytes inside the header.
pub const FLAGS_OFFSET: usize = 17;
/// `LOG_EVENT_BINLOG_IN_USE_F`: set in the file's FORMAT_DESCRIPTION while it is open.
pub const IN_USE_FLAG: u16 = 0x1;

/// Event type codes (MySQL 8.0 `Log_event_type`).
pub mod kind {
    pub const QUERY: u8 = 2;
    pub const STOP: u8 = 3;
    pub const ROTATE: u8 = 4;
    pub const FORMAT_DESCRIPTION: u8 = 15;
    pub const XID: u8 = 16;
    pub const GTID: u8 = 33;
    pub const ANONYMOUS_GTID: u8 = 34;
    pub const PREVIOUS_GTIDS: u8 = 35;
    pub const XA_PREPARE: u8 = 38;
    /// The highest type code MySQL 8.0 writes (`HEARTBEAT_LOG_EVENT_V2`).
    pub const LAST: u8 = 41;
}

/// The server version written in the FORMAT_DESCRIPTION event. Clients parse its leading
/// `X.Y.Z` to decide which event layouts to expect, so it must look like a MySQL 8.0.
pub const SERVER_VERSION: &str = "8.0.36-binlogd";
const SERVER_VERSION_LEN: usize = 50;
const CHECKSUM_ALG_OFF: u8 = 0;
const CHECKSUM_ALG_CRC32: u8 = 1;

// The post-header length of each event type 1..=41 as MySQL 8.0 announces them (the
// `server_event_header_length` table of libbinlogevents' `Format_description_event`).
const POST_HEADER_LENS: [u8; kind::LAST as usize] = [
    56, 13, 0, 8, 0, 18, 0, 4, 4, 4, 4, 18, 0, 0, 98, 0, 4, 26, 8, 0, 0, 0, 10, 10, 10, 2, 0, 0, 0,
    10, 10, 10, 42, 42, 0, 18, 52, 0, 10, 0, 0,
];

/// The fields of a common header the file set uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub type_code: u8,
    pub event_size: u32,
    pub log_pos: u32,
    pub flags: u16,
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(b: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?))
}

impl Header {
    /// Parses the header at the start of `buf`; `None` if fewer than 19 bytes.
    pub fn parse(buf: &[u8]) -> Option<Header> {
        Some(Header {
            type_code: *buf.get(4)?,
            event_size: u32_at(buf, EVENT_SIZE_OFFSET)?,
            log_pos: u32_at(buf, LOG_POS_OFFSET)?,
            flags: u16_at(buf, FLAGS_OFFSET)?,
        })
    }

    /// The checks possible on the header alone, for an event starting at `pos`.
    pub fn check(&self, pos: u64, checksum: bool) -> Result<(), Damage> {
        let minimum = HEADER_LEN + if checksum { CHECKSUM_LEN } else { 0 };
        if (self.event_size as usize) < minimum {
            return Err(Damage::BadEventSize);
        }
        if self.type_code == 0 || self.type_code > kind::LAST {
            return Err(Damage::UnknownEventType);
        }
        if u64::from(self.log_pos) != pos + u64::from(self.event_size) {
            return Err(Damage::BadLogPos);
        }
        Ok(())
    }
}

/// CRC32 of an event as MySQL computes it: over everything but the trailer, with the in-use
/// flag of a FORMAT_DESCRIPTION event taken as clear.
fn event_crc(ev: &[u8]) -> u32 {
    let body = &ev[..ev.len() - CHECKSUM_LEN];
    let mut h = crc32fast::Hasher::new();
    if body.len() > FLAGS_OFFSET && body[4] == kind::FORMAT_DESCRIPTION {
        h.update(&body[..FLAGS_OFFSET]);
        h.update(&[body[FLAGS_OFFSET] & !(IN_USE_FLAG as u8)]);
        h.update(&body[FLAGS_OFFSET + 1..]);
    } else {
        h.update(body);
    }
    h.finalize()
}

/// Whether the CRC32 trailer of a complete event matches.
pub fn checksum_ok(ev: &[u8]) -> bool {
    if ev.len() < HEADER_LEN + CHECKSUM_LEN {
        return false;
    }
    let stored = u32_at(ev, ev.len() - CHECKSUM_LEN);
    stored == Some(event_crc(ev))
}

/// Fills the CRC32 trailer of a complete event.
pub fn seal(ev: &mut [u8]) {
    let crc = event_crc(ev);
    let n = ev.len();
    ev[n - CHECKSUM_LEN..].copy_from_slice(&crc.to_le_bytes());
}

/// Validates a complete event read at `pos`: header checks, then the CRC when enabled.
#[cfg(test)]
pub fn check_event(ev: &[u8], pos: u64, checksum: bool) -> Result<Header, Damage> {
    let header = Header::parse(ev).ok_or(Damage::ShortHeader)?;
    header.check(pos, checksum)?;
    if ev.len() != header.event_size as usize {
        return Err(Damage::EventCut);
    }
    if checksum && !checksum_ok(ev) {
        return Err(Damage::BadChecksum);
    }
    Ok(header)
}

/// From a complete FORMAT_DESCRIPTION event: whether the file's other events carry a CRC32.
/// The event itself must have a valid CRC (it always has one).
pub fn fde_checksum(fde: &[u8]) -> Result<bool, Damage> {
    let header = Header::parse(fde).ok_or(Damage::ShortHeader)?;
    if header.type_code != kind::FORMAT_DESCRIPTION {
        return Err(Damage::NoFormatDescription);
    }
    if fde.len() < HEADER_LEN + 57 + 1 + CHECKSUM_LEN {
        return Err(Damage::BadEventSize);
    }
    if !checksum_ok(fde) {
        return Err(Damage::BadChecksum);
    }
    match fde[fde.len() - CHECKSUM_LEN - 1] {
        CHECKSUM_ALG_OFF => Ok(false),
        CHECKSUM_ALG_CRC32 => Ok(true),
        _ => Err(Damage::BadChecksumAlgorithm),
    }
}

/// Encodes the events of one file at known positions.
#[derive(Debug, Clone, Copy)]
pub struct Encoder {
    pub server_id: u32,
    pub checksum: bool,
    pub timestamp: u32,
}

impl Encoder {
    fn event(&self, type_code: u8, flags: u16, body: &[u8], pos: u64, crc: bool) -> Vec<u8> {
        let size = HEADER_LEN + body.len() + if crc { CHECKSUM_LEN } else { 0 };
        let mut ev = Vec::with_capacity(size);
        ev.extend_from_slice(&self.timestamp.to_le_bytes());
        ev.push(type_code);
        ev.extend_from_slice(&self.server_id.to_le_bytes());
        ev.extend_from_slice(&(size as u32).to_le_bytes());
        // Positions past 4 GiB wrap, as in MySQL (log_pos is 32 bits); files never get there
        // because max_binlog_size is at most 1 GiB.
        ev.extend_from_slice(&((pos + size as u64) as u32).to_le_bytes());
        ev.extend_from_slice(&flags.to_le_bytes());
        ev.extend_from_slice(body);
        if crc {
            ev.extend_from_slice(&[0; CHECKSUM_LEN]);
            seal(&mut ev);
        }
        ev
    }

    // Format: binlog_version u16 (4) | server_version [50] | create_timestamp u32 |
    //         header_length u8 (19) | post_header_len [41] | checksum_alg u8 | crc32 u32
    /// The FORMAT_DESCRIPTION event at offset 4, with the in-use flag set.
    pub fn format_description(&self) -> Vec<u8> {
        let mut body =
            Vec::with_capacity(2 + SERVER_VERSION_LEN + 4 + 1 + POST_HEADER_LENS.len() + 1);
        body.extend_from_slice(&4u16.to_le_bytes());
        let mut version = [0u8; SERVER_VERSION_LEN];
        version[..SERVER_VERSION.len()].copy_from_slice(SERVER_VERSION.as_bytes());
        body.extend_from_slice(&version);
        body.extend_from_slice(&self.timestamp.to_le_bytes());
        body.push(HEADER_LEN as u8);
        body.extend_from_slice(&POST_HEADER_LENS);
        body.push(if self.checksum { CHECKSUM_ALG_CRC32 } else { CHECKSUM_ALG_OFF });
        self.event(kind::FORMAT_DESCRIPTION, IN_USE_FLAG, &body, MAGIC.len() as u64, true)
    }

    // Format: the GTID set's binary form (see `GtidSet::encode_binary`).
    /// The PREVIOUS_GTIDS event at `pos`.
    pub fn previous_gtids(&self, set: &GtidSet, pos: u64) -> Vec<u8> {
        let mut body = Vec::with_capacity(set.binary_len());
        set.encode_binary(&mut body);
        self.event(kind::PREVIOUS_GTIDS, 0, &body, pos, self.checksum)
    }

    // Format: position u64 (4) | next file name (no terminator)
    /// The ROTATE event at `pos` naming the next file.
    pub fn rotate(&self, next_name: &str, pos: u64) -> Vec<u8> {
        let mut body = Vec::with_capacity(8 + next_name.len());
        body.extend_from_slice(&(MAGIC.len() as u64).to_le_bytes());
        body.extend_from_slice(next_name.as_bytes());
        self.event(kind::ROTATE, 0, &body, pos, self.checksum)
    }

    /// The STOP event at `pos` (a clean shutdown).
    pub fn stop(&self, pos: u64) -> Vec<u8> {
        self.event(kind::STOP, 0, &[], pos, self.checksum)
    }

    /// Magic, FORMAT_DESCRIPTION (in use) and PREVIOUS_GTIDS: the start of every file.
    pub fn file_header(&self, previous: &GtidSet) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&self.format_description());
        let pos = out.len() as u64;
        out.extend_from_slice(&self.previous_gtids(previous, pos));
        out
    }
}

/// What recovery needs to know about one valid event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Class {
    /// GTID_LOG_EVENT: a transaction with this GTID starts.
    Gtid(Gtid),
    /// ANONYMOUS_GTID_LOG_EVENT: a transaction without GTID starts.
    AnonymousGtid,
    /// QUERY `BEGIN` (or `XA START ...`, which opens an XA transaction the same way).
    Begin,
    /// QUERY `COMMIT` (a transaction on non-XA engines ends).
    Commit,
    /// QUERY `ROLLBACK` (ends a transaction that only touched non-transactional tables).
    Rollback,
    /// Any other QUERY: a DDL or a statement inside a transaction.
    OtherQuery,
    /// XID_EVENT: a transaction ends, with its engine XID.
    Xid(u64),
    /// XA_PREPARE_LOG_EVENT: an `XA PREPARE` unit ends.
    XaPrepare,
    /// ROTATE_EVENT.
    Rotate,
    /// STOP_EVENT.
    Stop,
    /// Anything else (TABLE_MAP, rows events, ...): transaction body.
    Body,
}

/// Classifies a complete, valid event. `checksum` says whether a trailer must be skipped.
pub fn classify(ev: &[u8], checksum: bool) -> Result<Class, Damage> {
    let end = ev.len() - if checksum { CHECKSUM_LEN } else { 0 };
    let body = ev.get(HEADER_LEN..end).ok_or(Damage::BadEventBody)?;
    Ok(match ev[4] {
        // Format: flags u8 | sid [16] | gno u64 | ...
        kind::GTID => {
            let sid: [u8; 16] = body
                .get(1..17)
                .ok_or(Damage::BadEventBody)?
                .try_into()
                .map_err(|_| Damage::BadEventBody)?;
            let gno = u64_at(body, 17).ok_or(Damage::BadEventBody)?;
            Class::Gtid(Gtid::new(Sid(sid), gno).map_err(|_| Damage::BadEventBody)?)
        }
        kind::ANONYMOUS_GTID => Class::AnonymousGtid,
        // Format: thread_id u32 | exec_time u32 | db_len u8 | error_code u16 |
        //         status_vars_len u16 | status_vars | db | 0 | query
        kind::QUERY => {
            let db_len = *body.get(8).ok_or(Damage::BadEventBody)? as usize;
            let status_len = u16_at(body, 11).ok_or(Damage::BadEventBody)? as usize;
            let query = body.get(13 + status_len + db_len + 1..).ok_or(Damage::BadEventBody)?;
            match query {
                b"BEGIN" => Class::Begin,
                q if q.starts_with(b"XA START") => Class::Begin,
                b"COMMIT" => Class::Commit,
                b"ROLLBACK" => Class::Rollback,
                _ => Class::OtherQuery,
            }
        }
        // Format: xid u64
        kind::XID => Class::Xid(u64_at(body, 0).ok_or(Damage::BadEventBody)?),
        kind::XA_PREPARE => Class::XaPrepare,
        kind::ROTATE => Class::Rotate,
        kind::STOP => Class::Stop,
        _ => Class::Body,
    })
}

/// Decodes the set of a complete, valid PREVIOUS_GTIDS event.
pub fn decode_previous_gtids(ev: &[u8], checksum: bool) -> Result<GtidSet, Damage> {
    if ev.get(4) != Some(&kind::PREVIOUS_GTIDS) {
        return Err(Damage::BadPreviousGtids);
    }
    let end = ev.len() - if checksum { CHECKSUM_LEN } else { 0 };
    let body = ev.get(HEADER_LEN..end).ok_or(Damage::BadPreviousGtids)?;
    let (set, used) = GtidSet::decode_binary(body).map_err(|_| Damage::BadPreviousGtids)?;
    if used != body.len() {
        return Err(Damage::BadPreviousGtids);
    }
    Ok(set)
}

/// Test helpers: the events a commit layer writes, built the simplest valid way.
#[cfg(test)]
pub mod testing {
    use super::*;

    /// One transaction `GTID, QUERY BEGIN, XID` (or `ANONYMOUS_GTID` when `gtid` is `None`)
    /// encoded for the file position `pos`.
    pub fn transaction(enc: &Encoder, gtid: Option<Gtid>, xid: u64, pos: u64) -> Vec<u8> {
        let mut out = Vec::new();
        let mut gbody = vec![1u8];
        match gtid {
            Some(g) => {
                gbody.extend_from_slice(&g.sid.0);
                gbody.extend_from_slice(&g.gno.to_le_bytes());
            }
            None => gbody.extend_from_slice(&[0; 24]),
        }
        gbody.push(2);
        gbody.extend_from_slice(&0u64.to_le_bytes());
        gbody.extend_from_slice(&0u64.to_le_bytes());
        let t = if gtid.is_some() { kind::GTID } else { kind::ANONYMOUS_GTID };
        out.extend(enc.event(t, 0, &gbody, pos, enc.checksum));
        let mut q = Vec::new();
        q.extend_from_slice(&1u32.to_le_bytes());
        q.extend_from_slice(&0u32.to_le_bytes());
        q.push(4);
        q.extend_from_slice(&0u16.to_le_bytes());
        q.extend_from_slice(&0u16.to_le_bytes());
        q.extend_from_slice(b"test\0BEGIN");
        let qpos = pos + out.len() as u64;
        out.extend(enc.event(kind::QUERY, 0, &q, qpos, enc.checksum));
        let xpos = pos + out.len() as u64;
        out.extend(enc.event(kind::XID, 0, &xid.to_le_bytes(), xpos, enc.checksum));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(checksum: bool) -> Encoder {
        Encoder { server_id: 7, checksum, timestamp: 1_700_000_000 }
    }

    #[test]
    fn fde_crc_ignores_in_use_flag() {
        let mut fde = enc(true).format_description();
        assert!(checksum_ok(&fde));
        assert_eq!(Header::parse(&fde).expect("header").flags & IN_USE_FLAG, IN_USE_FLAG);
        fde[FLAGS_OFFSET] &= !(IN_USE_FLAG as u8);
        assert!(checksum_ok(&fde), "clearing the in-use flag must keep the CRC valid");
        fde[30] ^= 1;
        assert!(!checksum_ok(&fde));
    }

    #[test]
    fn fde_always_checksummed_and_announces_alg() {
        for checksum in [false, true] {
            let fde = enc(checksum).format_description();
            assert_eq!(fde_checksum(&fde), Ok(checksum));
            check_event(&fde, 4, true).expect("FDE is valid at 4");
        }
    }

    #[test]
    fn header_events_roundtrip_and_classify() {
        let sid = Sid([9; 16]);
        let mut set = GtidSet::new();
        set.add_interval(sid, 1, 6);
        for checksum in [false, true] {
            let e = enc(checksum);
            let head = e.file_header(&set);
            let fde_len = Header::parse(&head[4..]).expect("fde").event_size as usize;
            let pg = &head[4 + fde_len..];
            check_event(pg, (4 + fde_len) as u64, checksum).expect("previous gtids valid");
            assert_eq!(decode_previous_gtids(pg, checksum), Ok(set.clone()));
            let pos = head.len() as u64;
            let gtid = Gtid::new(sid, 6).expect("gtid");
            let trx = testing::transaction(&e, Some(gtid), 42, pos);
            let mut at = 0usize;
            let mut classes = Vec::new();
            while at < trx.len() {
                let h = Header::parse(&trx[at..]).expect("header");
                let ev = &trx[at..at + h.event_size as usize];
                check_event(ev, pos + at as u64, checksum).expect("valid");
                classes.push(classify(ev, checksum).expect("classify"));
                at += h.event_size as usize;
            }
            assert_eq!(classes, vec![Class::Gtid(gtid), Class::Begin, Class::Xid(42)]);
        }
    }

    #[test]
    fn damaged_events_are_named() {
        let e = enc(true);
        let mut rot = e.rotate("binlog.000002", 100);
        assert_eq!(check_event(&rot, 100, true).map(|h| h.type_code), Ok(kind::ROTATE));
        assert_eq!(check_event(&rot, 101, true), Err(Damage::BadLogPos));
        let last = rot.len() - 1;
        rot[last] ^= 0xff;
        assert_eq!(check_event(&rot, 100, true), Err(Damage::BadChecksum));
        assert_eq!(check_event(&[0u8; 40][..], 100, true), Err(Damage::BadEventSize));
    }
}
