//! MySQL binary log v4 events, encoded and decoded exactly as MySQL 8.0 writes them.
//!
//! # The format
//! A binlog file is the 4-byte magic `\xfe b i n` followed by events. Every event is a
//! 19-byte common header ([`EventHeader`]: timestamp, type, server id, event size, next
//! position, flags), a type-specific body (a fixed "post-header" then a variable part), and,
//! when the file's FORMAT_DESCRIPTION says so, a CRC32 (zlib polynomial) of everything before
//! it. The first event is always a FORMAT_DESCRIPTION ([`FormatDescription`]); it tells how
//! the rest is framed (header length, post-header lengths, checksum algorithm) and is itself
//! checksummed whenever it comes from a checksum-aware server (>= 5.6.1), whatever the
//! algorithm it announces. A MySQL 8.0 transaction is
//! `GTID | QUERY "BEGIN" | (TABLE_MAP | ROWS...)... | XID`; a DDL is `GTID | QUERY`.
//!
//! Sources of the byte layouts (MySQL 8.0, read, not copied): libbinlogevents
//! `binlog_event.h` (type codes, header offsets, flags), `control_events.cpp` (FORMAT_
//! DESCRIPTION, ROTATE, XID, GTID, PREVIOUS_GTIDS, HEARTBEAT), `statement_events.cpp` and
//! sql/`log_event.cc` `Query_log_event::write` (QUERY status variables), `rows_event.cpp`
//! and `rows_event.h` (TABLE_MAP with optional metadata, ROWS v2), `codecs/binary.cpp`
//! (HEARTBEAT_V2), sql/`log_event.cc` `log_event_print_value` and mysys `my_time.cc`,
//! strings `decimal.cc` (row value encodings). Real files written by 5.6–8.0 servers are the
//! golden tests (`tests/conformance.rs`).
//!
//! # API
//! - [`frame_event`] validates one event at the start of a buffer (header, length, checksum)
//!   before anything is parsed: a cut buffer is [`DecodeError::Truncated`], a bad CRC is
//!   [`DecodeError::Checksum`], both naming the event's offset.
//! - [`decode_event`] turns one framed event into an [`Event`]; [`Event::encode`] appends one
//!   to a caller's `Vec<u8>`, filling event size, next position and checksum. Encoding does
//!   no per-field allocation, since the commit path encodes GTID/QUERY/ROWS/XID per commit.
//! - [`BinlogFileReader`] walks a whole file image, updating its [`FormatContext`] at each
//!   FORMAT_DESCRIPTION and remembering TABLE_MAPs so rows can be decoded to values.
//!
//! # Invariants
//! - No input makes the decoder panic: every read is bounds-checked (`bytes::Cursor`) and
//!   every failure is a typed [`DecodeError`] naming an absolute offset.
//! - For every event type binlogd writes, `decode` then `encode` reproduces the input byte
//!   for byte, checksum included. Fields MySQL made optional over versions (GTID commit
//!   timestamps, server versions, ...) are `Option`s that record presence, not equality, and
//!   blocks whose every variant we do not model (QUERY status variables, TABLE_MAP optional
//!   metadata, ROWS extra data) are kept raw beside their parsed view.
//! - Types we do not model (TRANSACTION_PAYLOAD, PARTIAL_UPDATE_ROWS, ROWS_QUERY, ...) pass
//!   through as raw bodies, byte for byte.
//!
//! # Why not `mysql_common`
//! `mysql_common` (0.38) has good binlog structures, but its reader assumes well-formed input
//! (it panics on some cut files, and its rows iterator repeats an error forever), it cannot
//! build TABLE_MAP or ROWS events from values, and its event structs borrow from the input,
//! which does not fit a commit path that builds events from engine rows. We own the codec
//! and use `mysql_common` as an independent test oracle only (a dev-dependency with the
//! `binlog` feature; `default-features = false` leaves flate2 without a backend, so the
//! test build picks flate2's pure-Rust one): the conformance test parses every fixture with
//! both and checks they agree, and checks that `mysql_common` reads the files we encode.
//! Where they differ, we follow MySQL: `mysql_common` does not sign-extend MEDIUMINT and
//! counts YEAR in the SIGNEDNESS bitmap; mysqld (`sint3korr`, `is_numeric_type`) does
//! neither.

mod bytes;
mod fde;
mod gtid_event;
mod header;
mod misc;
mod query;
mod rows;
mod table_map;
mod value;

pub use fde::{FormatDescription, MYSQL80_POST_HEADER_LENS, SERVER_VERSION_LEN};
pub use gtid_event::{
    GtidCommitFields, GtidEvent, LogicalClock, PreviousGtids, ServerVersions,
    GTID_FLAG_MAY_HAVE_SBR,
};
pub use header::{
    flags, EventHeader, EVENT_SIZE_OFFSET, FLAGS_OFFSET, HEADER_LEN, LOG_POS_OFFSET,
    SERVER_ID_OFFSET, TYPE_OFFSET,
};
pub use misc::{HeartbeatEvent, HeartbeatV2Event, RotateEvent, XidEvent};
pub use query::{
    ddl_opens_transaction, QueryEvent, StatusVars, UpdatedDbs, MYSQL80_DEFAULT_SQL_MODE,
    UTF8MB4_0900_AI_CI,
};
pub use rows::{rows_flags, RowChange, RowsEvent, RowsKind};
pub use table_map::{
    optional, Bitmap, ColumnDef, OptionalField, RowMetadata, TableMap, TM_BIT_LEN_EXACT_F,
};
pub use value::{
    decimal_binary_len, decode_decimal_bytes, encode_decimal_bytes, raw_uint_le, BinlogDateTime,
    ColumnType, Date, Time, Value,
};

use crate::error::{DecodeError, EncodeError};
use bytes::Cursor;

/// The magic every binlog file starts with.
pub const BINLOG_MAGIC: [u8; 4] = [0xfe, b'b', b'i', b'n'];
/// Length of the CRC32 trailer.
pub const CHECKSUM_LEN: usize = 4;

pub use crate::event_type::EventType;

/// How events after a FORMAT_DESCRIPTION end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ChecksumAlg {
    /// No trailer (`binlog_checksum=NONE`, or a server older than 5.6.1).
    None,
    /// A 4-byte CRC32 of the event (`binlog_checksum=CRC32`, MySQL's default).
    #[default]
    Crc32,
}

impl ChecksumAlg {
    /// Bytes the trailer takes.
    pub fn len(self) -> usize {
        match self {
            ChecksumAlg::None => 0,
            ChecksumAlg::Crc32 => CHECKSUM_LEN,
        }
    }

    /// Whether there is no trailer.
    pub fn is_empty(self) -> bool {
        self == ChecksumAlg::None
    }
}

/// What decoding and encoding need to know from the governing FORMAT_DESCRIPTION.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FormatContext {
    /// The checksum of every event but FORMAT_DESCRIPTION (which carries its own).
    pub checksum: ChecksumAlg,
}

impl FormatContext {
    /// The context MySQL 8.0 writes with by default: CRC32.
    pub fn mysql80() -> Self {
        FormatContext { checksum: ChecksumAlg::Crc32 }
    }

    /// The context a FORMAT_DESCRIPTION establishes. `offset` names errors.
    pub fn from_fde(fde: &FormatDescription, offset: u64) -> Result<Self, DecodeError> {
        Ok(FormatContext { checksum: fde.checksum(offset)? })
    }
}

/// The CRC32 MySQL stores for `event` (all its bytes before the trailer).
///
/// For a FORMAT_DESCRIPTION the in-use flag is treated as clear, as MySQL does
/// (`Log_event_footer::event_checksum_test`), so the flag can be cleared in place on close.
pub fn event_checksum(event: &[u8]) -> u32 {
    if event.len() >= HEADER_LEN && event[TYPE_OFFSET] == EventType::FORMAT_DESCRIPTION.0 {
        let flag = event[FLAGS_OFFSET];
        if flag & flags::LOG_EVENT_BINLOG_IN_USE_F as u8 != 0 {
            let mut h = crc32fast::Hasher::new();
            h.update(&event[..FLAGS_OFFSET]);
            h.update(&[flag & !(flags::LOG_EVENT_BINLOG_IN_USE_F as u8)]);
            h.update(&event[FLAGS_OFFSET + 1..]);
            return h.finalize();
        }
    }
    crc32fast::hash(event)
}

/// Validates the event at the start of `buf` and returns its length.
///
/// Checks, before any body parsing: the header is complete, the declared size covers header
/// and checksum, the whole event is present, and (when there is one) the checksum matches.
/// A FORMAT_DESCRIPTION decides its own checksum presence from its server version, so
/// `checksum` is ignored for it. `offset` is `buf[0]`'s absolute offset, used in errors.
pub fn frame_event(buf: &[u8], offset: u64, checksum: ChecksumAlg) -> Result<usize, DecodeError> {
    let header = EventHeader::parse(buf, offset)?;
    let size = header.event_size as usize;
    if buf.len() < size {
        return Err(DecodeError::Truncated {
            offset,
            needed: u64::from(header.event_size),
            available: buf.len() as u64,
        });
    }
    let event = &buf[..size];
    let trailer = if header.event_type == EventType::FORMAT_DESCRIPTION {
        fde::trailer_len(event)
    } else {
        checksum.len()
    };
    let minimum = HEADER_LEN + trailer;
    if size < minimum {
        return Err(DecodeError::BadEventSize {
            offset,
            event_size: header.event_size,
            minimum: minimum as u32,
        });
    }
    if trailer == CHECKSUM_LEN {
        let (data, tail) = event.split_at(size - CHECKSUM_LEN);
        let stored = u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]);
        let computed = event_checksum(data);
        if stored != computed {
            return Err(DecodeError::Checksum { offset, stored, computed });
        }
    }
    Ok(size)
}

/// Rewrites the next-position field of an encoded event in place and refreshes its checksum.
/// Used when events encoded at cache-relative positions are copied into the file.
pub fn patch_log_pos(event: &mut [u8], log_pos: u32, checksum: ChecksumAlg) {
    if event.len() < HEADER_LEN {
        return;
    }
    event[LOG_POS_OFFSET..LOG_POS_OFFSET + 4].copy_from_slice(&log_pos.to_le_bytes());
    let trailer = if event[TYPE_OFFSET] == EventType::FORMAT_DESCRIPTION.0 {
        fde::trailer_len(event)
    } else {
        checksum.len()
    };
    if trailer == CHECKSUM_LEN && event.len() >= HEADER_LEN + CHECKSUM_LEN {
        let split = event.len() - CHECKSUM_LEN;
        let crc = event_checksum(&event[..split]);
        event[split..].copy_from_slice(&crc.to_le_bytes());
    }
}

/// A decoded event.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub header: EventHeader,
    pub body: EventBody,
}

/// The body of an event, by type.
#[derive(Debug, Clone, PartialEq)]
pub enum EventBody {
    FormatDescription(FormatDescription),
    PreviousGtids(PreviousGtids),
    /// GTID (type 33).
    Gtid(GtidEvent),
    /// ANONYMOUS_GTID (type 34): same layout, sid and gno zero.
    AnonymousGtid(GtidEvent),
    Query(QueryEvent),
    TableMap(TableMap),
    /// WRITE_ROWS / UPDATE_ROWS / DELETE_ROWS v2.
    Rows(RowsEvent),
    Xid(XidEvent),
    Rotate(RotateEvent),
    /// STOP: written when the server shuts down; empty body.
    Stop,
    Heartbeat(HeartbeatEvent),
    HeartbeatV2(HeartbeatV2Event),
    /// Any type not modelled here, kept byte for byte (body only, without the checksum).
    Raw {
        event_type: EventType,
        body: Vec<u8>,
    },
}

impl EventBody {
    /// The type code this body is written with.
    pub fn event_type(&self) -> EventType {
        match self {
            EventBody::FormatDescription(_) => EventType::FORMAT_DESCRIPTION,
            EventBody::PreviousGtids(_) => EventType::PREVIOUS_GTIDS,
            EventBody::Gtid(_) => EventType::GTID,
            EventBody::AnonymousGtid(_) => EventType::ANONYMOUS_GTID,
            EventBody::Query(_) => EventType::QUERY,
            EventBody::TableMap(_) => EventType::TABLE_MAP,
            EventBody::Rows(r) => r.event_type(),
            EventBody::Xid(_) => EventType::XID,
            EventBody::Rotate(_) => EventType::ROTATE,
            EventBody::Stop => EventType::STOP,
            EventBody::Heartbeat(_) => EventType::HEARTBEAT,
            EventBody::HeartbeatV2(_) => EventType::HEARTBEAT_V2,
            EventBody::Raw { event_type, .. } => *event_type,
        }
    }

    fn decode(event_type: EventType, body: &[u8], base: u64) -> Result<EventBody, DecodeError> {
        let mut c = Cursor::new(body, base, event_type);
        let decoded = match event_type {
            EventType::FORMAT_DESCRIPTION => {
                EventBody::FormatDescription(FormatDescription::decode(&mut c)?)
            }
            EventType::PREVIOUS_GTIDS => EventBody::PreviousGtids(PreviousGtids::decode(&mut c)?),
            EventType::GTID => EventBody::Gtid(GtidEvent::decode(&mut c)?),
            EventType::ANONYMOUS_GTID => EventBody::AnonymousGtid(GtidEvent::decode(&mut c)?),
            EventType::QUERY => EventBody::Query(QueryEvent::decode(&mut c)?),
            EventType::TABLE_MAP => EventBody::TableMap(TableMap::decode(&mut c)?),
            EventType::WRITE_ROWS => EventBody::Rows(RowsEvent::decode(RowsKind::Write, &mut c)?),
            EventType::UPDATE_ROWS => EventBody::Rows(RowsEvent::decode(RowsKind::Update, &mut c)?),
            EventType::DELETE_ROWS => EventBody::Rows(RowsEvent::decode(RowsKind::Delete, &mut c)?),
            EventType::XID => EventBody::Xid(XidEvent::decode(&mut c)?),
            EventType::ROTATE => EventBody::Rotate(RotateEvent::decode(&mut c)?),
            EventType::STOP => EventBody::Stop,
            EventType::HEARTBEAT => EventBody::Heartbeat(HeartbeatEvent::decode(&mut c)?),
            EventType::HEARTBEAT_V2 => EventBody::HeartbeatV2(HeartbeatV2Event::decode(&mut c)?),
            _ => return Ok(EventBody::Raw { event_type, body: body.to_vec() }),
        };
        if !c.is_empty() {
            return Err(c.malformed("bytes left over after the last field"));
        }
        Ok(decoded)
    }

    fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        match self {
            EventBody::FormatDescription(b) => b.encode(out),
            EventBody::PreviousGtids(b) => b.encode(out),
            EventBody::Gtid(b) | EventBody::AnonymousGtid(b) => b.encode(out),
            EventBody::Query(b) => b.encode(out),
            EventBody::TableMap(b) => b.encode(out),
            EventBody::Rows(b) => b.encode(out),
            EventBody::Xid(b) => b.encode(out),
            EventBody::Rotate(b) => b.encode(out),
            EventBody::Stop => Ok(()),
            EventBody::Heartbeat(b) => b.encode(out),
            EventBody::HeartbeatV2(b) => b.encode(out),
            EventBody::Raw { body, .. } => {
                out.extend_from_slice(body);
                Ok(())
            }
        }
    }
}

impl Event {
    /// An event with `body`; the header's type is set from the body.
    pub fn new(mut header: EventHeader, body: EventBody) -> Event {
        header.event_type = body.event_type();
        Event { header, body }
    }

    /// The event's type code.
    pub fn event_type(&self) -> EventType {
        self.body.event_type()
    }

    /// Appends the encoded event to `out` and returns its length.
    ///
    /// `start_pos` is the offset the event will have in its file (or cache); the header's
    /// next-position field becomes `start_pos + length` (as u32, wrapping past 4 GiB like
    /// MySQL). Size and checksum are computed; the header's own size/position/type fields are
    /// ignored. On error nothing is appended.
    pub fn encode(
        &self,
        ctx: &FormatContext,
        start_pos: u64,
        out: &mut Vec<u8>,
    ) -> Result<usize, EncodeError> {
        self.encode_inner(ctx, LogPos::After(start_pos), out)
    }

    /// Like [`Event::encode`] but writes `log_pos` as given: for events whose position is not
    /// their place in this file (artificial events with 0, a relay log's copies of a source's
    /// events, or re-encoding a decoded event exactly).
    pub fn encode_with_log_pos(
        &self,
        ctx: &FormatContext,
        log_pos: u32,
        out: &mut Vec<u8>,
    ) -> Result<usize, EncodeError> {
        self.encode_inner(ctx, LogPos::Exact(log_pos), out)
    }

    fn encode_inner(
        &self,
        ctx: &FormatContext,
        log_pos: LogPos,
        out: &mut Vec<u8>,
    ) -> Result<usize, EncodeError> {
        let start = out.len();
        let mut header = self.header;
        header.event_type = self.event_type();
        header.write(out);
        if let Err(e) = self.body.encode(out) {
            out.truncate(start);
            return Err(e);
        }
        let trailer = match &self.body {
            EventBody::FormatDescription(f) => f.trailer_len(),
            _ => ctx.checksum.len(),
        };
        let size = out.len() - start + trailer;
        let Ok(size32) = u32::try_from(size) else {
            out.truncate(start);
            return Err(EncodeError::TooLong { field: "event", len: size, max: u32::MAX as usize });
        };
        let log_pos = match log_pos {
            LogPos::After(start_pos) => start_pos.wrapping_add(size as u64) as u32,
            LogPos::Exact(pos) => pos,
        };
        out[start + EVENT_SIZE_OFFSET..start + EVENT_SIZE_OFFSET + 4]
            .copy_from_slice(&size32.to_le_bytes());
        out[start + LOG_POS_OFFSET..start + LOG_POS_OFFSET + 4]
            .copy_from_slice(&log_pos.to_le_bytes());
        if trailer == CHECKSUM_LEN {
            let crc = event_checksum(&out[start..]);
            out.extend_from_slice(&crc.to_le_bytes());
        }
        Ok(size)
    }
}

/// How the encoder fills the next-position field.
#[derive(Debug, Clone, Copy)]
enum LogPos {
    /// The event starts at this offset; write the offset past it.
    After(u64),
    /// Write this value.
    Exact(u32),
}

/// Decodes the event at the start of `buf` (validated with [`frame_event`] first).
/// `offset` is `buf[0]`'s absolute offset; errors name it or a byte inside the event.
pub fn decode_event(buf: &[u8], ctx: &FormatContext, offset: u64) -> Result<Event, DecodeError> {
    let size = frame_event(buf, offset, ctx.checksum)?;
    let header = EventHeader::parse(buf, offset)?;
    let trailer = if header.event_type == EventType::FORMAT_DESCRIPTION {
        fde::trailer_len(&buf[..size])
    } else {
        ctx.checksum.len()
    };
    let body = &buf[HEADER_LEN..size - trailer];
    let body = EventBody::decode(header.event_type, body, offset + HEADER_LEN as u64)?;
    Ok(Event { header, body })
}

/// One event read by [`BinlogFileReader`].
#[derive(Debug, Clone, PartialEq)]
pub struct ReadEvent<'a> {
    /// Absolute offset of the event's first byte.
    pub offset: u64,
    /// The event's bytes, checksum included.
    pub raw: &'a [u8],
    pub event: Event,
}

/// Iterates over the events of a whole binlog file image (magic first).
///
/// Each FORMAT_DESCRIPTION updates the context and each TABLE_MAP is remembered by table id
/// (see [`BinlogFileReader::table`]) so rows can be decoded. Iteration stops after the first
/// error, which names the offset; a file that ends exactly at an event boundary simply ends.
#[derive(Debug, Clone)]
pub struct BinlogFileReader<'a> {
    buf: &'a [u8],
    pos: usize,
    ctx: FormatContext,
    tables: std::collections::HashMap<u64, TableMap>,
    failed: bool,
}

impl<'a> BinlogFileReader<'a> {
    /// Checks the magic; events start at offset 4.
    pub fn new(buf: &'a [u8]) -> Result<Self, DecodeError> {
        if buf.len() < BINLOG_MAGIC.len() {
            return Err(DecodeError::Truncated {
                offset: 0,
                needed: BINLOG_MAGIC.len() as u64,
                available: buf.len() as u64,
            });
        }
        if buf[..4] != BINLOG_MAGIC {
            return Err(DecodeError::BadMagic { offset: 0 });
        }
        Ok(BinlogFileReader {
            buf,
            pos: 4,
            ctx: FormatContext::default(),
            tables: std::collections::HashMap::new(),
            failed: false,
        })
    }

    /// The context in force for the next event.
    pub fn context(&self) -> &FormatContext {
        &self.ctx
    }

    /// Offset of the next event.
    pub fn position(&self) -> u64 {
        self.pos as u64
    }

    /// The last TABLE_MAP read for `table_id`.
    pub fn table(&self, table_id: u64) -> Option<&TableMap> {
        self.tables.get(&table_id)
    }

    /// Decodes the rows of a rows event read from this file at `offset`.
    pub fn rows(&self, rows: &RowsEvent, offset: u64) -> Result<Vec<RowChange>, DecodeError> {
        let table = self
            .table(rows.table_id)
            .ok_or(DecodeError::UnknownTable { offset, table_id: rows.table_id })?;
        rows.rows(table, offset)
    }

    fn read_next(&mut self) -> Result<ReadEvent<'a>, DecodeError> {
        let offset = self.pos as u64;
        let rest = &self.buf[self.pos..];
        let event = decode_event(rest, &self.ctx, offset)?;
        let size = event.header.event_size as usize;
        match &event.body {
            EventBody::FormatDescription(fde) => self.ctx = FormatContext::from_fde(fde, offset)?,
            EventBody::TableMap(tm) => {
                self.tables.insert(tm.table_id, tm.clone());
            }
            _ => {}
        }
        self.pos += size;
        Ok(ReadEvent { offset, raw: &rest[..size], event })
    }
}

impl<'a> Iterator for BinlogFileReader<'a> {
    type Item = Result<ReadEvent<'a>, DecodeError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.pos >= self.buf.len() {
            return None;
        }
        let item = self.read_next();
        self.failed = item.is_err();
        Some(item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<u8> {
        let mut out = Vec::new();
        let event = Event::new(EventHeader::new(1, 2, 0), EventBody::Xid(XidEvent { xid: 9 }));
        event.encode(&FormatContext::mysql80(), 100, &mut out).expect("encodes");
        out
    }

    #[test]
    fn framing_names_the_offset_of_a_bad_or_cut_event() {
        let good = sample();
        assert_eq!(frame_event(&good, 100, ChecksumAlg::Crc32), Ok(good.len()));
        let mut bad = good.clone();
        bad[HEADER_LEN] ^= 1;
        assert!(matches!(
            frame_event(&bad, 100, ChecksumAlg::Crc32),
            Err(DecodeError::Checksum { offset: 100, .. })
        ));
        assert_eq!(
            frame_event(&good[..20], 100, ChecksumAlg::Crc32),
            Err(DecodeError::Truncated { offset: 100, needed: good.len() as u64, available: 20 })
        );
        let mut tiny = good.clone();
        tiny[EVENT_SIZE_OFFSET..EVENT_SIZE_OFFSET + 4].copy_from_slice(&20u32.to_le_bytes());
        assert_eq!(
            frame_event(&tiny, 100, ChecksumAlg::Crc32),
            Err(DecodeError::BadEventSize { offset: 100, event_size: 20, minimum: 23 })
        );
    }

    #[test]
    fn patched_positions_keep_the_checksum_valid() {
        let mut event = sample();
        patch_log_pos(&mut event, 5000, ChecksumAlg::Crc32);
        let decoded = decode_event(&event, &FormatContext::mysql80(), 0).expect("valid");
        assert_eq!(decoded.header.log_pos, 5000);
    }

    #[test]
    fn the_in_use_flag_is_outside_the_format_description_checksum() {
        let fde = FormatDescription::mysql80("8.0.40", 0, ChecksumAlg::Crc32).expect("fits");
        let header = EventHeader::new(1, 1, flags::LOG_EVENT_BINLOG_IN_USE_F);
        let mut open = Vec::new();
        Event::new(header, EventBody::FormatDescription(fde))
            .encode(&FormatContext::mysql80(), 4, &mut open)
            .expect("encodes");
        // Clearing the flag in place, as a clean close does, keeps the event valid.
        let mut closed = open.clone();
        closed[FLAGS_OFFSET] &= !(flags::LOG_EVENT_BINLOG_IN_USE_F as u8);
        assert_eq!(open[open.len() - 4..], closed[closed.len() - 4..]);
        assert!(decode_event(&closed, &FormatContext::mysql80(), 4).is_ok());
        assert!(decode_event(&open, &FormatContext::mysql80(), 4).is_ok());
    }
}
