//! The session's binlog cache: the TABLE_MAP and ROWS v2 events of one transaction, built
//! from engine rows while it runs (full row images, as `binlog_row_image=FULL`).
//!
//! Events are encoded as if the cache started at offset 0; the FLUSH leader copies them to
//! their place in the file and rewrites each event's next-position field
//! ([`binlog::event::patch_log_pos`]), as MySQL copies a session's IO_CACHE into the binlog.
//! A TABLE_MAP is written once per table per statement, before the table's first ROWS event
//! of the statement; each statement's last ROWS event carries `STMT_END_F` (the applier then
//! releases its maps), as mysqld (`THD::binlog_flush_pending_rows_event`). A caller marks
//! statement ends with [`BinlogCache::end_statement`]; without any the transaction is one
//! statement.
//!
//! The cache also collects the transaction's [`WriteSet`] from the same row images (MySQL's
//! `binlog_log_row` → `add_pke` for each image), and the session it belongs to, for WRITESET
//! dependency tracking in the FLUSH stage.

use std::sync::Arc;

use binlog::event::{
    patch_log_pos, rows_flags, BinlogDateTime, ColumnDef, ColumnType as BinType, Event, EventBody,
    EventHeader, FormatContext, RowMetadata, RowsEvent, RowsKind, TableMap, Value as BinValue,
};
use engine::{ColumnType, Row, TableSchema, Value};

use crate::error::Result;
use crate::writeset::WriteSet;

/// A ROWS event is cut when its row images pass this size (MySQL's
/// `binlog_row_event_max_size` default is 8 KiB).
const ROWS_EVENT_MAX_BYTES: usize = 8192;
/// Bytes per character of utf8mb4.
const UTF8MB4_MAX_BYTES: u32 = 4;

struct Pending {
    table: u32,
    kind: RowsKind,
    event: RowsEvent,
    map: Arc<MappedTable>,
}

/// A table's TABLE_MAP, built and encoded once per table definition and shared by the
/// transactions that log its rows ([`BinlogCache::map_table`], [`BinlogCache::update_mapped`]
/// and the like): building it per transaction (the column list, the optional metadata, the
/// encoding) cost a dozen allocations per commit.
#[derive(Debug)]
pub struct MappedTable {
    map: TableMap,
    /// The TABLE_MAP event as encoded at cache offset 0; a transaction copies it and sets its
    /// own timestamp (and checksum).
    event: Vec<u8>,
}

/// Where the timestamp is in an event header (the header's first field).
const TIMESTAMP_RANGE: std::ops::Range<usize> = 0..4;

/// One transaction's row events. Build it beside the engine calls; hand it to
/// [`crate::Coordinator::commit`].
pub struct BinlogCache {
    db: String,
    server_id: u32,
    ctx: FormatContext,
    metadata: RowMetadata,
    /// Finished events, each encoded at cache offset 0 (next-position patched at flush).
    bytes: Vec<u8>,
    pending: Option<Pending>,
    mapped: Vec<u32>,
    rows: usize,
    writeset: WriteSet,
    /// The session (connection id) committing it; 0 when none is known.
    session: u64,
    /// Rows pushed now were changed with `foreign_key_checks=0`: their ROWS events carry
    /// `NO_FOREIGN_KEY_CHECKS_F`.
    no_fk_checks: bool,
}

impl std::fmt::Debug for BinlogCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BinlogCache").field("db", &self.db).field("rows", &self.rows).finish()
    }
}

impl BinlogCache {
    /// An empty cache for a transaction in database `db`.
    pub fn new(db: &str, server_id: u32, ctx: FormatContext) -> BinlogCache {
        BinlogCache {
            db: db.to_string(),
            server_id,
            ctx,
            metadata: RowMetadata::Minimal,
            bytes: Vec::new(),
            pending: None,
            mapped: Vec::new(),
            rows: 0,
            writeset: WriteSet::default(),
            session: 0,
            no_fk_checks: false,
        }
    }

    /// Names the session (connection id, non-zero) committing the transaction, for
    /// `binlog_transaction_dependency_tracking=WRITESET_SESSION`.
    pub fn set_session(&mut self, session: u64) {
        self.session = session;
    }

    /// Whether the rows pushed from now on were changed with `foreign_key_checks` on. Off,
    /// their ROWS events carry `NO_FOREIGN_KEY_CHECKS_F`, as mysqld's `Rows_log_event`
    /// constructor sets it from `OPTION_NO_FOREIGN_KEY_CHECKS`; an applier then neither
    /// checks nor cascades them. A change of the setting starts a new ROWS event.
    pub fn set_foreign_key_checks(&mut self, on: bool) {
        self.no_fk_checks = !on;
    }

    /// The write set collected so far.
    pub fn write_set(&self) -> &WriteSet {
        &self.writeset
    }

    /// Takes the write set and the session out (the FLUSH stage needs them, not the bytes).
    pub(crate) fn take_writes(&mut self) -> (WriteSet, u64) {
        (std::mem::take(&mut self.writeset), self.session)
    }

    /// `binlog_row_metadata=FULL`: TABLE_MAPs also carry column names and the primary key.
    pub fn with_full_metadata(mut self) -> BinlogCache {
        self.metadata = RowMetadata::Full;
        self
    }

    /// Logs an inserted row (the whole row as the engine stored it).
    pub fn insert(&mut self, schema: &TableSchema, row: &Row) -> Result<()> {
        self.push(schema, RowsKind::Write, None, Some(row))
    }

    /// Logs an update: the before and after images.
    pub fn update(&mut self, schema: &TableSchema, before: &Row, after: &Row) -> Result<()> {
        self.push(schema, RowsKind::Update, Some(before), Some(after))
    }

    /// Logs a deleted row (its before image).
    pub fn delete(&mut self, schema: &TableSchema, before: &Row) -> Result<()> {
        self.push(schema, RowsKind::Delete, Some(before), None)
    }

    /// The number of row changes logged.
    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// The database name the transaction's BEGIN names.
    pub fn db(&self) -> &str {
        &self.db
    }

    /// The TABLE_MAP of `schema` (named by its table name alone) in database `db`, as this
    /// cache would write it, to keep and pass to [`Self::insert_mapped`] and the like while
    /// the table's definition does not change.
    pub fn map_table(&self, db: &str, schema: &TableSchema) -> Result<Arc<MappedTable>> {
        let map = table_map(db, schema, self.metadata);
        let mut event = Vec::new();
        Event::new(EventHeader::new(0, self.server_id, 0), EventBody::TableMap(map.clone()))
            .encode(&self.ctx, 0, &mut event)?;
        Ok(Arc::new(MappedTable { map, event }))
    }

    /// [`Self::insert`] with the table's TABLE_MAP from [`Self::map_table`].
    pub fn insert_mapped(
        &mut self,
        mapped: &Arc<MappedTable>,
        schema: &TableSchema,
        row: &Row,
    ) -> Result<()> {
        self.push_mapped(Some(mapped), schema, RowsKind::Write, None, Some(row))
    }

    /// [`Self::update`] with the table's TABLE_MAP from [`Self::map_table`].
    pub fn update_mapped(
        &mut self,
        mapped: &Arc<MappedTable>,
        schema: &TableSchema,
        before: &Row,
        after: &Row,
    ) -> Result<()> {
        self.push_mapped(Some(mapped), schema, RowsKind::Update, Some(before), Some(after))
    }

    /// [`Self::delete`] with the table's TABLE_MAP from [`Self::map_table`].
    pub fn delete_mapped(
        &mut self,
        mapped: &Arc<MappedTable>,
        schema: &TableSchema,
        before: &Row,
    ) -> Result<()> {
        self.push_mapped(Some(mapped), schema, RowsKind::Delete, Some(before), None)
    }

    fn push(
        &mut self,
        schema: &TableSchema,
        kind: RowsKind,
        before: Option<&Row>,
        after: Option<&Row>,
    ) -> Result<()> {
        self.push_mapped(None, schema, kind, before, after)
    }

    fn push_mapped(
        &mut self,
        mapped: Option<&Arc<MappedTable>>,
        schema: &TableSchema,
        kind: RowsKind,
        before: Option<&Row>,
        after: Option<&Row>,
    ) -> Result<()> {
        let flags = if self.no_fk_checks { rows_flags::NO_FOREIGN_KEY_CHECKS_F } else { 0 };
        let reuse = matches!(&self.pending, Some(p) if p.table == schema.id && p.kind == kind
            && p.event.rows_data.len() < ROWS_EVENT_MAX_BYTES
            && p.event.flags & rows_flags::NO_FOREIGN_KEY_CHECKS_F == flags);
        if !reuse {
            self.finish_pending(false)?;
            let map = match mapped {
                Some(m) => m.clone(),
                None => self.map_table(&self.db, schema)?,
            };
            if !self.mapped.contains(&schema.id) {
                // Room for the TABLE_MAP and a rows event of one change (a transaction's
                // usual size) at once, instead of growing the buffer event by event.
                let row_bytes = [before, after].into_iter().flatten().map(row_size).sum::<usize>();
                self.bytes.reserve(map.event.len() + ROWS_EVENT_OVERHEAD + row_bytes);
                // The shared encoding with this event's timestamp; log_pos (= its size at
                // offset 0) and the checksum as encoding it here would give.
                let start = self.bytes.len();
                self.bytes.extend_from_slice(&map.event);
                let event = &mut self.bytes[start..];
                event[TIMESTAMP_RANGE].copy_from_slice(&now_secs().to_le_bytes());
                let size = event.len() as u32;
                patch_log_pos(event, size, self.ctx.checksum);
                self.mapped.push(schema.id);
            }
            let mut event = RowsEvent::new(kind, &map.map, flags);
            event.rows_data.reserve(
                [before, after].into_iter().flatten().map(row_size).sum::<usize>()
                    + ROWS_EVENT_OVERHEAD,
            );
            self.pending = Some(Pending { table: schema.id, kind, event, map });
        }
        for image in [before, after].into_iter().flatten() {
            self.writeset.add_row(schema, image);
        }
        let before = before.map(|r| to_bin_row(schema, r));
        let after = after.map(|r| to_bin_row(schema, r));
        let p = self.pending.as_mut().expect("a pending rows event was just ensured");
        p.event.push_row(&p.map.map, before.as_deref(), after.as_deref())?;
        self.rows += 1;
        Ok(())
    }

    /// Ends a statement, as mysqld's `binlog_flush_pending_rows_event(thd, true)` at each
    /// statement's end: its last ROWS event gets `STMT_END_F` (an applier frees its table
    /// maps there, MariaDB's refuses a transaction whose maps outlive it with 1595), and the
    /// next statement writes its TABLE_MAPs again.
    pub fn end_statement(&mut self) -> Result<()> {
        self.finish_pending(true)?;
        self.mapped.clear();
        Ok(())
    }

    fn finish_pending(&mut self, last: bool) -> Result<()> {
        if let Some(mut p) = self.pending.take() {
            if last {
                p.event.flags |= rows_flags::STMT_END_F;
            }
            self.encode(EventBody::Rows(p.event))?;
        }
        Ok(())
    }

    fn encode(&mut self, body: EventBody) -> Result<()> {
        let ev = Event::new(EventHeader::new(now_secs(), self.server_id, 0), body);
        ev.encode(&self.ctx, 0, &mut self.bytes)?;
        Ok(())
    }

    /// The finished events (the last ROWS event marked as the statement end).
    pub(crate) fn finish(mut self) -> Result<Vec<u8>> {
        self.finish_pending(true)?;
        Ok(self.bytes)
    }
}

pub(crate) fn now_secs() -> u32 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as u32)
        .unwrap_or(0)
}

/// The TABLE_MAP MySQL 8.0 writes for an engine table (table id = engine table id).
pub fn table_map(db: &str, schema: &TableSchema, metadata: RowMetadata) -> TableMap {
    let columns: Vec<ColumnDef> = schema
        .columns
        .iter()
        .map(|c| {
            if let Some((column_type, meta, collation)) = crate::cache_bytes::column_type(c) {
                return ColumnDef {
                    name: c.name.clone(),
                    column_type,
                    meta,
                    nullable: c.nullable,
                    unsigned: false,
                    collation,
                };
            }
            let (column_type, meta, unsigned, character) = column_type(c.ty);
            let meta = text_meta(c.ty, c.charset().mbmaxlen()).unwrap_or(meta);
            ColumnDef {
                name: c.name.clone(),
                column_type,
                meta,
                nullable: c.nullable,
                unsigned,
                collation: character.then_some(c.collation),
            }
        })
        .collect();
    let mut map = TableMap::new(
        u64::from(schema.id),
        db,
        &schema.name,
        &columns,
        &schema.primary_key,
        metadata,
    );
    map.add_enum_and_set(&crate::cache_bytes::enum_and_set(schema), metadata);
    map
}

/// CHAR/VARCHAR metadata for a character set of `mbmax` bytes per character (the byte length
/// is characters × mbmaxlen, as `Field_string`/`Field_varstring` save it); None for others.
fn text_meta(ty: ColumnType, mbmax: u32) -> Option<u16> {
    match ty {
        ColumnType::Char(n) => {
            let max = n.saturating_mul(mbmax).min(1020);
            let high = 0xFE ^ ((max & 0x300) >> 4) as u16;
            Some(high << 8 | (max & 0xff) as u16)
        }
        ColumnType::VarChar(n) => Some(n.saturating_mul(mbmax).min(65535) as u16),
        _ => None,
    }
}

/// (binlog type, metadata, unsigned, character) of an engine column type.
fn column_type(ty: ColumnType) -> (BinType, u16, bool, bool) {
    match ty {
        ColumnType::Integer { bytes, unsigned } => {
            let t = match bytes {
                1 => BinType::TINY,
                2 => BinType::SHORT,
                3 => BinType::INT24,
                4 => BinType::LONG,
                _ => BinType::LONGLONG,
            };
            (t, 0, unsigned, false)
        }
        ColumnType::Double => (BinType::DOUBLE, 8, false, false),
        ColumnType::Decimal { precision, scale } => {
            (BinType::NEWDECIMAL, u16::from(precision) << 8 | u16::from(scale), false, false)
        }
        ColumnType::Char(n) => {
            // CHAR's metadata packs the real type and a 10-bit byte length (log_event.cc
            // `Field_string::do_save_field_metadata`).
            let max = (n * UTF8MB4_MAX_BYTES).min(1020);
            let high = 0xFE ^ ((max & 0x300) >> 4) as u16;
            (BinType::STRING, high << 8 | (max & 0xff) as u16, false, true)
        }
        ColumnType::VarChar(n) => {
            (BinType::VARCHAR, (n * UTF8MB4_MAX_BYTES).min(65535) as u16, false, true)
        }
        ColumnType::Text => (BinType::BLOB, 2, false, true),
        // Issue 19's types, as mysqld's `Field_*::binlog_type` / `save_field_metadata`:
        // the fsp is the metadata of the *2 types, FLOAT's is its 4 bytes.
        ColumnType::DateTime { fsp } => (BinType::DATETIME2, u16::from(fsp), false, false),
        ColumnType::Timestamp { fsp } => (BinType::TIMESTAMP2, u16::from(fsp), false, false),
        ColumnType::Time { fsp } => (BinType::TIME2, u16::from(fsp), false, false),
        ColumnType::Date => (BinType::DATE, 0, false, false),
        ColumnType::Year => (BinType::YEAR, 0, false, false),
        ColumnType::Float => (BinType::FLOAT, 4, false, false),
        // Issue 19 (bytes): mapped by `cache_bytes::column_type`, which needs the whole column.
        ColumnType::Binary(_)
        | ColumnType::VarBinary(_)
        | ColumnType::Blob { .. }
        | ColumnType::SizedText { .. }
        | ColumnType::Enum
        | ColumnType::Set
        | ColumnType::Bit(_)
        | ColumnType::Json => {
            let c = engine::Column::new("", ty).with_elements(vec![String::new()]);
            let (t, meta, collation) =
                crate::cache_bytes::column_type(&c).unwrap_or((BinType::BLOB, 4, None));
            (t, meta, false, collation.is_some())
        }
    }
}

/// Room for a rows event's header, post-header, column bitmaps, null bitmaps and checksum
/// beyond its row images (a few dozen bytes; more only for very wide tables).
const ROWS_EVENT_OVERHEAD: usize = 64;

/// An estimate of a row image's size in a rows event (a capacity hint, never a limit): 8
/// bytes per fixed-size value, the bytes and a 2-byte length per string.
fn row_size(row: &Row) -> usize {
    row.iter()
        .map(|v| match v {
            Value::Bytes(b) | Value::Json(b) => b.len() + 4,
            _ => 8,
        })
        .sum()
}

fn to_bin_row(schema: &TableSchema, row: &Row) -> Vec<BinValue> {
    row.iter()
        .zip(&schema.columns)
        .map(|(v, c)| match v {
            _ if crate::cache_bytes::is_bytes_type(c.ty) => crate::cache_bytes::row_value(c, v),
            Value::Null => BinValue::Null,
            Value::Int(i) => BinValue::Int(*i),
            Value::UInt(u) if c.ty == ColumnType::Year => BinValue::Year(*u as u16),
            Value::UInt(u) => BinValue::UInt(*u),
            Value::Double(d) => BinValue::Double(*d),
            Value::Decimal(d) => {
                let scale = match c.ty {
                    ColumnType::Decimal { scale, .. } => scale,
                    _ => d.scale,
                };
                BinValue::Decimal(d.rescale(scale).unwrap_or(*d).to_string())
            }
            // The engine holds text as UTF-8; a latin1/ascii column's row image carries its
            // own character set's bytes, as mysqld stores them (every stored value is
            // representable: the SQL layer refused the others with 1366).
            Value::Bytes(b) => {
                BinValue::Bytes(collation::encode_lossy(c.charset(), b).into_owned())
            }
            Value::DateTime(t) => match c.ty {
                ColumnType::Timestamp { .. } => BinValue::Timestamp {
                    seconds: u32::try_from(engine::temporal::epoch_seconds(t)).unwrap_or(0),
                    micros: t.micros,
                },
                _ => BinValue::DateTime(datetime_to_binlog(t)),
            },
            Value::Float(f) => BinValue::Float(*f),
            Value::Date(d) => {
                BinValue::Date(binlog::event::Date { year: d.year, month: d.month, day: d.day })
            }
            Value::Time(us) => BinValue::Time(time_to_binlog(*us)),
            Value::Json(b) => crate::cache_bytes::json_row_value(b),
        })
        .collect()
}

/// An engine DATETIME as a rows event carries it.
pub fn datetime_to_binlog(t: &engine::DateTime) -> BinlogDateTime {
    BinlogDateTime {
        year: t.year,
        month: t.month,
        day: t.day,
        hour: t.hour,
        minute: t.minute,
        second: t.second,
        micros: t.micros,
    }
}

/// An engine TIME (signed microseconds) as a rows event carries it.
pub fn time_to_binlog(us: i64) -> binlog::event::Time {
    let abs = us.unsigned_abs();
    let secs = abs / 1_000_000;
    binlog::event::Time {
        negative: us < 0,
        hours: (secs / 3600).min(1023) as u16,
        minutes: (secs / 60 % 60) as u8,
        seconds: (secs % 60) as u8,
        micros: (abs % 1_000_000) as u32,
    }
}

/// A rows event's TIME as the engine keeps it.
pub fn time_from_binlog(t: &binlog::event::Time) -> i64 {
    let us = ((i64::from(t.hours) * 60 + i64::from(t.minutes)) * 60 + i64::from(t.seconds))
        * 1_000_000
        + i64::from(t.micros);
    if t.negative {
        -us
    } else {
        us
    }
}

/// A rows event's DATETIME as the engine keeps it (the replica applier's direction).
pub fn datetime_from_binlog(t: &BinlogDateTime) -> engine::DateTime {
    engine::DateTime {
        year: t.year,
        month: t.month,
        day: t.day,
        hour: t.hour,
        minute: t.minute,
        second: t.second,
        micros: t.micros,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Column;

    /// Each statement writes its TABLE_MAPs again and ends with STMT_END_F, as mysqld: two
    /// statements over two tables give map a, rows, map b, rows (end), map a, rows (end).
    #[test]
    fn statements_write_their_table_maps_and_end_flags() {
        let table = |name: &str, id: u32| {
            let mut t = TableSchema::new(
                name,
                vec![Column::new("id", ColumnType::Integer { bytes: 4, unsigned: false })],
                vec![0],
            );
            t.id = id;
            t
        };
        let (a, b) = (table("a", 1), table("b", 2));
        let ctx = FormatContext::mysql80();
        let mut cache = BinlogCache::new("db1", 3, ctx.clone());
        cache.insert(&a, &vec![Value::Int(1)]).expect("insert");
        cache.insert(&b, &vec![Value::Int(1)]).expect("insert");
        cache.end_statement().expect("end");
        cache.delete(&a, &vec![Value::Int(1)]).expect("delete");
        let bytes = cache.finish().expect("finish");
        let mut seen = Vec::new();
        let mut at = 0;
        while at < bytes.len() {
            let size = u32::from_le_bytes(bytes[at + 9..at + 13].try_into().expect("4 bytes"));
            let event = binlog::event::decode_event(&bytes[at..at + size as usize], &ctx, 0)
                .expect("decode");
            seen.push(match event.body {
                EventBody::TableMap(m) => format!("map {}", String::from_utf8_lossy(&m.table)),
                EventBody::Rows(r) if r.flags & rows_flags::STMT_END_F != 0 => "rows end".into(),
                EventBody::Rows(_) => "rows".into(),
                other => format!("{other:?}"),
            });
            at += size as usize;
        }
        assert_eq!(seen, ["map a", "rows", "map b", "rows end", "map a", "rows end"]);
    }

    /// Rows changed with `foreign_key_checks=0` are in ROWS events of their own flagged
    /// `NO_FOREIGN_KEY_CHECKS_F`; the others are not flagged.
    #[test]
    fn rows_without_fk_checks_are_flagged() {
        let mut t = TableSchema::new(
            "a",
            vec![Column::new("id", ColumnType::Integer { bytes: 4, unsigned: false })],
            vec![0],
        );
        t.id = 1;
        let ctx = FormatContext::mysql80();
        let mut cache = BinlogCache::new("db1", 3, ctx.clone());
        cache.insert(&t, &vec![Value::Int(1)]).expect("insert");
        cache.set_foreign_key_checks(false);
        cache.insert(&t, &vec![Value::Int(2)]).expect("insert");
        cache.insert(&t, &vec![Value::Int(3)]).expect("insert");
        cache.set_foreign_key_checks(true);
        cache.insert(&t, &vec![Value::Int(4)]).expect("insert");
        let bytes = cache.finish().expect("finish");
        let mut flags = Vec::new();
        let mut at = 0;
        while at < bytes.len() {
            let size = u32::from_le_bytes(bytes[at + 9..at + 13].try_into().expect("4 bytes"));
            let event = binlog::event::decode_event(&bytes[at..at + size as usize], &ctx, 0)
                .expect("decode");
            if let EventBody::Rows(r) = event.body {
                let rows =
                    r.rows(&table_map("db1", &t, RowMetadata::Minimal), 0).expect("rows").len();
                flags.push((r.flags & rows_flags::NO_FOREIGN_KEY_CHECKS_F != 0, rows));
            }
            at += size as usize;
        }
        assert_eq!(flags, [(false, 1), (true, 2), (false, 1)]);
    }

    /// A latin1 / ascii column's row image carries its own character set's bytes (the engine
    /// holds UTF-8): 'é' is 0xE9, one byte, as mysqld logs it; utf8mb4 columns are unchanged.
    /// Decoded back by the binlog crate against the TABLE_MAP (FULL metadata: its charset).
    #[test]
    fn latin1_columns_are_logged_in_latin1() {
        let mut latin1 = Column::new("l", ColumnType::VarChar(10));
        latin1.collation = 8;
        let mut ascii = Column::new("a", ColumnType::Char(4));
        ascii.collation = 11;
        let mut text = Column::new("t", ColumnType::SizedText { len_bytes: 1 });
        text.collation = 8;
        let mut t = TableSchema::new(
            "t",
            vec![
                Column::new("id", ColumnType::Integer { bytes: 4, unsigned: false }),
                latin1,
                ascii,
                Column::new("u", ColumnType::VarChar(10)),
                text,
            ],
            vec![0],
        );
        t.id = 5;
        let ctx = FormatContext::mysql80();
        let mut cache = BinlogCache::new("db1", 3, ctx.clone()).with_full_metadata();
        let row = vec![
            Value::Int(1),
            Value::Bytes("café€".into()),
            Value::Bytes("ab".into()),
            Value::Bytes("café".into()),
            Value::Bytes("Ç".into()),
        ];
        cache.insert(&t, &row).expect("insert");
        let bytes = cache.finish().expect("finish");
        let (mut map, mut values) = (None, Vec::new());
        let mut at = 0;
        while at < bytes.len() {
            let size = u32::from_le_bytes(bytes[at + 9..at + 13].try_into().expect("4 bytes"));
            let event = binlog::event::decode_event(&bytes[at..at + size as usize], &ctx, 0)
                .expect("decode");
            match event.body {
                EventBody::TableMap(m) => map = Some(m),
                EventBody::Rows(r) => {
                    let m = map.as_ref().expect("map first");
                    for change in r.rows(m, 0).expect("rows") {
                        values.extend(change.after.expect("after"));
                    }
                }
                _ => {}
            }
            at += size as usize;
        }
        let m = map.expect("a table map");
        assert_eq!(m.character_collations(), Some(vec![8, 11, 255, 8]));
        assert_eq!(
            values,
            vec![
                BinValue::Int(1),
                BinValue::Bytes(b"caf\xe9\x80".to_vec()),
                BinValue::Bytes(b"ab".to_vec()),
                BinValue::Bytes("café".into()),
                BinValue::Bytes(vec![0xC7]),
            ]
        );
    }

    /// A shared TABLE_MAP ([`BinlogCache::map_table`]) gives the same bytes as building it in
    /// the transaction: same events, timestamps, positions and checksums.
    #[test]
    fn mapped_table_gives_the_same_events() {
        let mut schema = TableSchema::new(
            "t1",
            vec![
                Column::new("id", ColumnType::Integer { bytes: 4, unsigned: false }).not_null(),
                Column::new("c", ColumnType::Char(120)),
                Column::new("pad", ColumnType::VarChar(60)),
            ],
            vec![0],
        );
        schema.id = 7;
        let row = |i: i64, c: &str| vec![Value::Int(i), Value::Bytes(c.into()), Value::Null];
        for metadata_full in [false, true] {
            for checksum in [true, false] {
                let ctx = if checksum {
                    FormatContext::mysql80()
                } else {
                    FormatContext { checksum: binlog::event::ChecksumAlg::None }
                };
                // Timestamps are seconds: build both within one second.
                loop {
                    let second = now_secs();
                    let new = || {
                        let c = BinlogCache::new("db1", 3, ctx.clone());
                        if metadata_full {
                            c.with_full_metadata()
                        } else {
                            c
                        }
                    };
                    let mut plain = new();
                    let mut shared = new();
                    let map = shared.map_table("db1", &schema).expect("map");
                    plain.insert(&schema, &row(1, "a")).expect("insert");
                    plain.update(&schema, &row(1, "a"), &row(1, "b")).expect("update");
                    plain.delete(&schema, &row(1, "b")).expect("delete");
                    shared.insert_mapped(&map, &schema, &row(1, "a")).expect("insert");
                    shared
                        .update_mapped(&map, &schema, &row(1, "a"), &row(1, "b"))
                        .expect("update");
                    shared.delete_mapped(&map, &schema, &row(1, "b")).expect("delete");
                    let (plain, shared) = (plain.finish().expect("a"), shared.finish().expect("b"));
                    if now_secs() == second {
                        assert_eq!(plain, shared, "full metadata {metadata_full}, crc {checksum}");
                        break;
                    }
                }
            }
        }
    }
}
