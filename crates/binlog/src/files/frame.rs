//! The event-level facts the file set needs, on top of the codec (`crate::event`): where an
//! event must sit (`log_pos`), the events the set writes itself (FORMAT_DESCRIPTION,
//! PREVIOUS_GTIDS, ROTATE, STOP) and a light classification of the events recovery must
//! understand (GTID, XID, QUERY `BEGIN`/`COMMIT`).
//!
//! Recovery walks a whole file on every crash restart, so only the few event types it needs
//! are decoded; rows events are framed and checksummed but not parsed.
//!
//! Checksums follow MySQL (see `event::event_checksum`): the FORMAT_DESCRIPTION always carries
//! a CRC32, computed as if `LOG_EVENT_BINLOG_IN_USE_F` were clear (libbinlogevents'
//! `Log_event_footer::event_checksum_test`), so the flag is cleared in place without touching
//! the CRC. Other events carry a CRC32 only when the FORMAT_DESCRIPTION says `CRC32`.

use super::error::Damage;
use crate::error::{DecodeError, EncodeError};
use crate::event::{
    self, decode_event, flags, ChecksumAlg, Event, EventBody, EventHeader, EventType,
    FormatContext, FormatDescription, PreviousGtids, RotateEvent, HEADER_LEN,
};
use crate::gtid::{Gtid, GtidSet};

pub use crate::event::{BINLOG_MAGIC as MAGIC, FLAGS_OFFSET};

/// `LOG_EVENT_BINLOG_IN_USE_F`: set in the file's FORMAT_DESCRIPTION while it is open.
pub const IN_USE_FLAG: u16 = flags::LOG_EVENT_BINLOG_IN_USE_F;

/// The server version written in the FORMAT_DESCRIPTION event. Clients parse its leading
/// `X.Y.Z` to decide which event layouts to expect, so it must look like a MySQL 8.0.
pub const SERVER_VERSION: &str = "8.0.40-binlogd";

/// The highest type code accepted in a file (MySQL 8.4's tagged GTID).
const LAST_TYPE: EventType = EventType::GTID_TAGGED;

fn alg(checksum: bool) -> ChecksumAlg {
    if checksum {
        ChecksumAlg::Crc32
    } else {
        ChecksumAlg::None
    }
}

fn ctx(checksum: bool) -> FormatContext {
    FormatContext { checksum: alg(checksum) }
}

/// Checks the header at the start of `buf` for an event at file offset `pos`: a known type
/// and `log_pos` pointing just past the event (MySQL always writes it so in a binlog file;
/// zeros and garbage almost never satisfy it). Returns the declared event size.
pub fn check_header(buf: &[u8], pos: u64) -> Result<u32, Damage> {
    let header = EventHeader::parse(buf, pos).map_err(|_| Damage::ShortHeader)?;
    if (header.event_size as usize) < HEADER_LEN {
        return Err(Damage::BadEventSize);
    }
    if header.event_type == EventType::UNKNOWN || header.event_type > LAST_TYPE {
        return Err(Damage::UnknownEventType);
    }
    if u64::from(header.log_pos) != pos + u64::from(header.event_size) {
        return Err(Damage::BadLogPos);
    }
    Ok(header.event_size)
}

/// Frames a complete event (`ev` is exactly its declared size): size and CRC32.
pub fn check_frame(ev: &[u8], pos: u64, checksum: bool) -> Result<(), Damage> {
    event::frame_event(ev, pos, alg(checksum)).map(|_| ()).map_err(|e| match e {
        DecodeError::Truncated { .. } => Damage::EventCut,
        DecodeError::Checksum { .. } => Damage::BadChecksum,
        DecodeError::BadEventSize { .. } => Damage::BadEventSize,
        _ => Damage::BadEventBody,
    })
}

/// From a complete FORMAT_DESCRIPTION event at `pos`: whether the file's other events carry
/// a CRC32.
pub fn fde_checksum(fde: &[u8], pos: u64) -> Result<bool, Damage> {
    if fde.get(event::TYPE_OFFSET) != Some(&EventType::FORMAT_DESCRIPTION.0) {
        return Err(Damage::NoFormatDescription);
    }
    let decoded = decode_event(fde, &FormatContext::default(), pos).map_err(|e| match e {
        DecodeError::Checksum { .. } => Damage::BadChecksum,
        _ => Damage::BadEventBody,
    })?;
    let EventBody::FormatDescription(f) = decoded.body else {
        return Err(Damage::NoFormatDescription);
    };
    match f.checksum(pos) {
        Ok(ChecksumAlg::Crc32) => Ok(true),
        Ok(ChecksumAlg::None) => Ok(false),
        Err(_) => Err(Damage::BadChecksumAlgorithm),
    }
}

/// Decodes the set of a complete, framed PREVIOUS_GTIDS event at `pos`.
pub fn decode_previous_gtids(ev: &[u8], pos: u64, checksum: bool) -> Result<GtidSet, Damage> {
    match decode_event(ev, &ctx(checksum), pos).map(|e| e.body) {
        Ok(EventBody::PreviousGtids(p)) => Ok(p.gtids().clone()),
        _ => Err(Damage::BadPreviousGtids),
    }
}

/// Encodes the events of one file at known positions.
#[derive(Debug, Clone, Copy)]
pub struct Encoder {
    pub server_id: u32,
    pub checksum: bool,
    /// Header timestamp, seconds since the epoch.
    pub timestamp: u32,
}

impl Encoder {
    fn encode(&self, flags: u16, body: EventBody, pos: u64) -> Result<Vec<u8>, EncodeError> {
        let ev = Event::new(EventHeader::new(self.timestamp, self.server_id, flags), body);
        let mut out = Vec::new();
        ev.encode(&ctx(self.checksum), pos, &mut out)?;
        Ok(out)
    }

    /// Magic, FORMAT_DESCRIPTION (in use) and PREVIOUS_GTIDS: the start of every file.
    /// `at_startup` stamps the FORMAT_DESCRIPTION's create timestamp, which MySQL sets only on
    /// the first file after a server start (replicas then drop their temporary tables).
    pub fn file_header(
        &self,
        previous: &GtidSet,
        at_startup: bool,
    ) -> Result<Vec<u8>, EncodeError> {
        let created = if at_startup { self.timestamp } else { 0 };
        let fde = FormatDescription::mysql80(SERVER_VERSION, created, alg(self.checksum))?;
        let mut out = MAGIC.to_vec();
        out.extend(self.encode(
            IN_USE_FLAG,
            EventBody::FormatDescription(fde),
            MAGIC.len() as u64,
        )?);
        let pos = out.len() as u64;
        let previous = EventBody::PreviousGtids(PreviousGtids::new(previous.clone()));
        out.extend(self.encode(0, previous, pos)?);
        Ok(out)
    }

    /// The ROTATE event at `pos` naming the next file.
    pub fn rotate(&self, next_name: &str, pos: u64) -> Result<Vec<u8>, EncodeError> {
        self.encode(0, EventBody::Rotate(RotateEvent::new(next_name)), pos)
    }

    /// The STOP event at `pos` (a clean shutdown).
    pub fn stop(&self, pos: u64) -> Result<Vec<u8>, EncodeError> {
        self.encode(0, EventBody::Stop, pos)
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
    /// A QUERY holding a DDL committed with its own engine XID (`Q_DDL_LOGGED_WITH_XID`,
    /// MySQL 8.0's atomic DDL): a transaction ends, with that XID
    /// (`Binlog_recovery::process_atomic_ddl`, sql/binlog/recovery.cc).
    AtomicDdl(u64),
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

/// Classifies a complete, framed event at `pos`; decodes only GTID, QUERY and XID events.
pub fn classify(ev: &[u8], pos: u64, checksum: bool) -> Result<Class, Damage> {
    let t = EventType(*ev.get(event::TYPE_OFFSET).ok_or(Damage::ShortHeader)?);
    let decode = || decode_event(ev, &ctx(checksum), pos).map_err(|_| Damage::BadEventBody);
    Ok(match t {
        EventType::GTID => match decode()?.body {
            EventBody::Gtid(g) => {
                Class::Gtid(Gtid::new(g.sid, g.gno).map_err(|_| Damage::BadEventBody)?)
            }
            _ => return Err(Damage::BadEventBody),
        },
        EventType::ANONYMOUS_GTID => Class::AnonymousGtid,
        EventType::QUERY => match decode()?.body {
            EventBody::Query(q) => match q.query.as_slice() {
                b"BEGIN" => Class::Begin,
                b"COMMIT" => Class::Commit,
                b"ROLLBACK" => Class::Rollback,
                q if q.starts_with(b"XA START") => Class::Begin,
                // mysqld 8.0.21+ logs CREATE TABLE ... SELECT in row format as one
                // transaction whose QUERY is the generated CREATE TABLE followed by
                // `START TRANSACTION`, then the rows and an XID (`select_create::
                // binlog_show_create_table`): that QUERY opens the transaction as BEGIN does.
                q if crate::event::ddl_opens_transaction(q) => Class::Begin,
                // Status variables this crate cannot parse cannot name an XID either.
                _ => match q.status(pos).ok().and_then(|v| v.ddl_xid) {
                    Some(xid) => Class::AtomicDdl(xid),
                    None => Class::OtherQuery,
                },
            },
            _ => return Err(Damage::BadEventBody),
        },
        EventType::XID => match decode()?.body {
            EventBody::Xid(x) => Class::Xid(x.xid),
            _ => return Err(Damage::BadEventBody),
        },
        EventType::XA_PREPARE => Class::XaPrepare,
        EventType::ROTATE => Class::Rotate,
        EventType::STOP => Class::Stop,
        _ => Class::Body,
    })
}

/// Test helpers: the events a commit layer writes.
#[cfg(test)]
pub mod testing {
    use super::*;
    use crate::event::{GtidEvent, LogicalClock, QueryEvent, StatusVars, XidEvent};

    /// One transaction `GTID, QUERY BEGIN, XID` (`ANONYMOUS_GTID` when `gtid` is `None`)
    /// encoded for file position `pos`, as MySQL 8.0 writes it.
    pub fn transaction(checksum: bool, gtid: Option<Gtid>, xid: u64, pos: u64) -> Vec<u8> {
        let ctx = ctx(checksum);
        let header = EventHeader::new(1_700_000_000, 1, 0);
        let clock = LogicalClock { last_committed: 0, sequence_number: 1 };
        let zero = Gtid { sid: crate::gtid::Sid([0; 16]), gno: 0 };
        let g = GtidEvent::mysql80(gtid.unwrap_or(zero), clock, 1_700_000_000_000_000, 0, 80040);
        let gbody = if gtid.is_some() { EventBody::Gtid(g) } else { EventBody::AnonymousGtid(g) };
        let begin = QueryEvent::begin(1, "test", &StatusVars::mysql80_default()).expect("BEGIN");
        let events = [gbody, EventBody::Query(begin), EventBody::Xid(XidEvent { xid })];
        let mut out = Vec::new();
        for body in events {
            let at = pos + out.len() as u64;
            Event::new(header, body).encode(&ctx, at, &mut out).expect("encode");
        }
        out
    }

    /// A DDL transaction `GTID, QUERY <ddl>` at `pos`.
    pub fn ddl(checksum: bool, gtid: Gtid, pos: u64) -> Vec<u8> {
        ddl_with_xid(checksum, gtid, None, pos)
    }

    /// GTID + a DDL QUERY, naming its engine XID when `xid` is given (atomic DDL).
    pub fn ddl_with_xid(checksum: bool, gtid: Gtid, xid: Option<u64>, pos: u64) -> Vec<u8> {
        let ctx = ctx(checksum);
        let header = EventHeader::new(1_700_000_000, 1, 0);
        let clock = LogicalClock { last_committed: 0, sequence_number: 1 };
        let g = GtidEvent::mysql80(gtid, clock, 1_700_000_000_000_000, 0, 80040);
        let status = StatusVars::mysql80_ddl("test", xid);
        let q = QueryEvent::new(1, 0, "test", "CREATE TABLE t (a INT)", &status).expect("DDL");
        let mut out = Vec::new();
        for body in [EventBody::Gtid(g), EventBody::Query(q)] {
            let at = pos + out.len() as u64;
            Event::new(header, body).encode(&ctx, at, &mut out).expect("encode");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gtid::Sid;

    fn enc(checksum: bool) -> Encoder {
        Encoder { server_id: 7, checksum, timestamp: 1_700_000_000 }
    }

    /// Walks `buf` (events starting at file offset `pos`), checking and classifying each.
    fn walk(buf: &[u8], pos: u64, checksum: bool) -> Vec<Class> {
        let mut at = 0usize;
        let mut out = Vec::new();
        while at < buf.len() {
            let at_pos = pos + at as u64;
            let size = check_header(&buf[at..], at_pos).expect("header") as usize;
            let ev = &buf[at..at + size];
            check_frame(ev, at_pos, checksum).expect("frame");
            out.push(classify(ev, at_pos, checksum).expect("classify"));
            at += size;
        }
        out
    }

    #[test]
    fn create_select_query_opens_a_transaction() {
        use crate::event::ddl_opens_transaction as opens;
        assert!(opens(b"CREATE TABLE `c` (\n  `id` int\n) START TRANSACTION"));
        assert!(opens(b"create table c (a int) start transaction"));
        assert!(!opens(b"CREATE TABLE c (a INT)"));
        assert!(!opens(b"INSERT INTO t VALUES (' START TRANSACTION')x"));
        assert!(!opens(b"START TRANSACTION"));
        let ctx = ctx(true);
        let header = EventHeader::new(1_700_000_000, 1, 0);
        let status = crate::event::StatusVars::mysql80_default();
        let text = "CREATE TABLE `c` (`id` int NOT NULL) START TRANSACTION";
        let q = crate::event::QueryEvent::new(1, 0, "app", text, &status).expect("query");
        let mut ev = Vec::new();
        Event::new(header, EventBody::Query(q)).encode(&ctx, 4, &mut ev).expect("encode");
        assert_eq!(classify(&ev, 4, true), Ok(Class::Begin));
    }

    #[test]
    fn fde_crc_ignores_in_use_flag() {
        let head = enc(true).file_header(&GtidSet::new(), true).expect("header");
        let size = check_header(&head[4..], 4).expect("fde header") as usize;
        let mut fde = head[4..4 + size].to_vec();
        assert_eq!(fde[FLAGS_OFFSET] as u16 & IN_USE_FLAG, IN_USE_FLAG);
        check_frame(&fde, 4, true).expect("valid with the flag");
        fde[FLAGS_OFFSET] &= !(IN_USE_FLAG as u8);
        check_frame(&fde, 4, true).expect("clearing the in-use flag keeps the CRC valid");
        fde[30] ^= 1;
        assert_eq!(check_frame(&fde, 4, true), Err(Damage::BadChecksum));
    }

    #[test]
    fn header_events_roundtrip_and_classify() {
        let sid = Sid([9; 16]);
        let mut set = GtidSet::new();
        set.add_interval(sid, 1, 6);
        for checksum in [false, true] {
            let e = enc(checksum);
            let head = e.file_header(&set, false).expect("header");
            let fde_len = check_header(&head[4..], 4).expect("fde") as usize;
            assert_eq!(fde_checksum(&head[4..4 + fde_len], 4), Ok(checksum));
            let pg_pos = 4 + fde_len as u64;
            let pg = &head[4 + fde_len..];
            check_frame(pg, pg_pos, checksum).expect("previous gtids framed");
            assert_eq!(decode_previous_gtids(pg, pg_pos, checksum), Ok(set.clone()));
            let pos = head.len() as u64;
            let gtid = Gtid::new(sid, 6).expect("gtid");
            let trx = testing::transaction(checksum, Some(gtid), 42, pos);
            assert_eq!(
                walk(&trx, pos, checksum),
                vec![Class::Gtid(gtid), Class::Begin, Class::Xid(42)]
            );
            let ddl = testing::ddl(checksum, gtid, pos);
            assert_eq!(walk(&ddl, pos, checksum), vec![Class::Gtid(gtid), Class::OtherQuery]);
            let atomic = testing::ddl_with_xid(checksum, gtid, Some(77), pos);
            assert_eq!(walk(&atomic, pos, checksum), vec![Class::Gtid(gtid), Class::AtomicDdl(77)]);
            let anon = testing::transaction(checksum, None, 43, pos);
            assert_eq!(
                walk(&anon, pos, checksum),
                vec![Class::AnonymousGtid, Class::Begin, Class::Xid(43)]
            );
            let rot = e.rotate("binlog.000002", pos).expect("rotate");
            let stop = e.stop(pos + rot.len() as u64).expect("stop");
            assert_eq!(
                walk(&[rot, stop].concat(), pos, checksum),
                vec![Class::Rotate, Class::Stop]
            );
        }
    }

    #[test]
    fn damaged_events_are_named() {
        let mut rot = enc(true).rotate("binlog.000002", 100).expect("rotate");
        assert_eq!(check_header(&rot, 100), Ok(rot.len() as u32));
        assert_eq!(check_header(&rot, 101), Err(Damage::BadLogPos));
        let last = rot.len() - 1;
        rot[last] ^= 0xff;
        assert_eq!(check_frame(&rot, 100, true), Err(Damage::BadChecksum));
        assert_eq!(check_header(&[0u8; 40], 100), Err(Damage::BadEventSize));
        assert_eq!(check_header(&[0u8; 10], 100), Err(Damage::ShortHeader));
    }
}
