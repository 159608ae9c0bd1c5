//! WRITE_ROWS / UPDATE_ROWS / DELETE_ROWS v2 (types 30/31/32).
//!
//! Layout (rows_event.cpp `Rows_event`; ROWS_HEADER_LEN_V2 = 10):
//! `table_id u48 | flags u16 | extra_data_len u16 (counts itself) | extra_data |
//! column_count packed | columns_present[(n+7)/8] | (UPDATE only) columns_present_after |
//! rows`. Each row image is `null_bitmap[(present+7)/8] | values of the present, non-NULL
//! columns` ([`super::value`]); the null bitmap has one bit per *present* column. An UPDATE
//! row is a before image then an after image; WRITE has the after image, DELETE the before.
//!
//! The row images are kept as bytes ([`RowsEvent::rows_data`]), so an event whose TABLE_MAP
//! is not at hand still passes through exactly; [`RowsEvent::rows`] decodes them against the
//! TABLE_MAP, and [`RowsEvent::push_row`] appends values straight into the bytes, which is
//! what the commit path does while a transaction runs.

use super::bytes::{packed_len, put_packed, put_uint_n, Cursor};
use super::table_map::{Bitmap, TableMap};
use super::value::{decode_value, encode_value, Value};
use super::{EventType, HEADER_LEN};
use crate::error::{DecodeError, EncodeError};

/// Rows event flags (rows_event.h `enum_flag`).
pub mod rows_flags {
    /// The last rows event of a statement: the applier may release its table locks.
    pub const STMT_END_F: u16 = 1;
    pub const NO_FOREIGN_KEY_CHECKS_F: u16 = 2;
    pub const RELAXED_UNIQUE_CHECKS_F: u16 = 4;
    /// Every column is in the image (not just the changed ones).
    pub const COMPLETE_ROWS_F: u16 = 8;
}

/// Which rows event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowsKind {
    Write,
    Update,
    Delete,
}

impl RowsKind {
    pub fn event_type(self) -> EventType {
        match self {
            RowsKind::Write => EventType::WRITE_ROWS,
            RowsKind::Update => EventType::UPDATE_ROWS,
            RowsKind::Delete => EventType::DELETE_ROWS,
        }
    }
}

/// One decoded row: the before image (UPDATE, DELETE) and the after image (WRITE, UPDATE),
/// each the values of the present columns in column order.
#[derive(Debug, Clone, PartialEq)]
pub struct RowChange {
    pub before: Option<Vec<Value>>,
    pub after: Option<Vec<Value>>,
}

// Format: table_id u48 | flags u16 | extra_len u16 | extra [extra_len-2] | width packed |
//         columns [(width+7)/8] | [columns_after] | (null_bitmap | values)*
/// A ROWS v2 event body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowsEvent {
    pub kind: RowsKind,
    pub table_id: u64,
    pub flags: u16,
    /// The extra-data TLVs (NDB info, partition ids), without their 2-byte length.
    pub extra_data: Vec<u8>,
    /// Columns in the before image (UPDATE/DELETE) or the after image (WRITE).
    pub columns: Bitmap,
    /// Columns in the after image of an UPDATE.
    pub columns_after: Option<Bitmap>,
    /// The row images as written.
    pub rows_data: Vec<u8>,
}

impl RowsEvent {
    /// An empty event with full row images (every column present) for `table`.
    pub fn new(kind: RowsKind, table: &TableMap, flags: u16) -> Self {
        let n = table.column_count();
        RowsEvent {
            kind,
            table_id: table.table_id,
            flags,
            extra_data: Vec::new(),
            columns: Bitmap::all_set(n),
            columns_after: (kind == RowsKind::Update).then(|| Bitmap::all_set(n)),
            rows_data: Vec::new(),
        }
    }

    pub fn event_type(&self) -> EventType {
        self.kind.event_type()
    }

    /// Appends one row. WRITE takes `after`, DELETE `before`, UPDATE both; each holds the
    /// values of the present columns in order. On error nothing is appended.
    pub fn push_row(
        &mut self,
        table: &TableMap,
        before: Option<&[Value]>,
        after: Option<&[Value]>,
    ) -> Result<(), EncodeError> {
        let start = self.rows_data.len();
        let result = (|| match (self.kind, before, after) {
            (RowsKind::Write, None, Some(a)) => {
                write_image(&mut self.rows_data, table, &self.columns, a)
            }
            (RowsKind::Delete, Some(b), None) => {
                write_image(&mut self.rows_data, table, &self.columns, b)
            }
            (RowsKind::Update, Some(b), Some(a)) => {
                write_image(&mut self.rows_data, table, &self.columns, b)?;
                let cols = self.columns_after.as_ref().unwrap_or(&self.columns);
                write_image(&mut self.rows_data, table, cols, a)
            }
            _ => Err(EncodeError::BadValue {
                column: 0,
                reason: "WRITE takes an after image, DELETE a before image, UPDATE both",
            }),
        })();
        if result.is_err() {
            self.rows_data.truncate(start);
        }
        result
    }

    /// Absolute offset of the row images, for an event that starts at `event_offset`.
    fn rows_offset(&self, event_offset: u64) -> u64 {
        let bitmaps = self.columns.as_bytes().len()
            + self.columns_after.as_ref().map_or(0, |b| b.as_bytes().len());
        event_offset
            + (HEADER_LEN
                + 10
                + self.extra_data.len()
                + packed_len(self.columns.len() as u64)
                + bitmaps) as u64
    }

    /// Decodes the row images against `table` (the TABLE_MAP with this table id).
    /// `event_offset` is the event's absolute offset, used in errors.
    pub fn rows(&self, table: &TableMap, event_offset: u64) -> Result<Vec<RowChange>, DecodeError> {
        let base = self.rows_offset(event_offset);
        let mut c = Cursor::new(&self.rows_data, base, self.event_type());
        if table.table_id != self.table_id {
            return Err(DecodeError::UnknownTable {
                offset: event_offset,
                table_id: self.table_id,
            });
        }
        if self.columns.len() > table.column_count() {
            return Err(c.malformed("rows event has more columns than its table map"));
        }
        let unsigned = table.unsigned_columns();
        let mut out = Vec::new();
        while !c.is_empty() {
            let first = read_image(&mut c, table, &unsigned, &self.columns)?;
            let change = match self.kind {
                RowsKind::Write => RowChange { before: None, after: Some(first) },
                RowsKind::Delete => RowChange { before: Some(first), after: None },
                RowsKind::Update => {
                    let cols = self.columns_after.as_ref().unwrap_or(&self.columns);
                    let after = read_image(&mut c, table, &unsigned, cols)?;
                    RowChange { before: Some(first), after: Some(after) }
                }
            };
            out.push(change);
        }
        Ok(out)
    }

    pub(crate) fn decode(kind: RowsKind, c: &mut Cursor<'_>) -> Result<Self, DecodeError> {
        let table_id = c.uint_n(6, "table id")?;
        let flags = c.u16("rows flags")?;
        let extra_len = usize::from(c.u16("extra data length")?);
        if extra_len < 2 {
            return Err(c.malformed("extra data length below 2"));
        }
        let extra_data = c.bytes(extra_len - 2, "extra data")?.to_vec();
        let width = c.packed_len("column count")?;
        if width > c.remaining().saturating_mul(8) {
            return Err(c.malformed("column count larger than the event"));
        }
        let columns = Bitmap::read(c, width, "columns bitmap")?;
        let columns_after = match kind {
            RowsKind::Update => Some(Bitmap::read(c, width, "after-image columns bitmap")?),
            _ => None,
        };
        let rows_data = c.rest().to_vec();
        Ok(RowsEvent { kind, table_id, flags, extra_data, columns, columns_after, rows_data })
    }

    pub(crate) fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let extra_len = self.extra_data.len() + 2;
        let extra_len = u16::try_from(extra_len).map_err(|_| EncodeError::TooLong {
            field: "rows extra data",
            len: extra_len,
            max: u16::MAX as usize,
        })?;
        out.reserve(
            10 + self.extra_data.len()
                + 9
                + 2 * self.columns.as_bytes().len()
                + self.rows_data.len(),
        );
        put_uint_n(out, self.table_id, 6);
        out.extend_from_slice(&self.flags.to_le_bytes());
        out.extend_from_slice(&extra_len.to_le_bytes());
        out.extend_from_slice(&self.extra_data);
        put_packed(out, self.columns.len() as u64);
        out.extend_from_slice(self.columns.as_bytes());
        if let Some(after) = &self.columns_after {
            out.extend_from_slice(after.as_bytes());
        }
        out.extend_from_slice(&self.rows_data);
        Ok(())
    }
}

fn read_image(
    c: &mut Cursor<'_>,
    table: &TableMap,
    unsigned: &[bool],
    columns: &Bitmap,
) -> Result<Vec<Value>, DecodeError> {
    let present = columns.count_ones();
    let nulls = Bitmap::read(c, present, "row null bitmap")?;
    let mut values = Vec::with_capacity(present);
    for (k, col) in columns.ones().enumerate() {
        if nulls.get(k) {
            values.push(Value::Null);
            continue;
        }
        let (Some(&t), Some(&meta)) = (table.column_types.get(col), table.column_meta.get(col))
        else {
            return Err(c.malformed("column beyond the table map"));
        };
        let is_unsigned = unsigned.get(col).copied().unwrap_or(false);
        values.push(decode_value(c, t, meta, is_unsigned)?);
    }
    Ok(values)
}

fn write_image(
    out: &mut Vec<u8>,
    table: &TableMap,
    columns: &Bitmap,
    values: &[Value],
) -> Result<(), EncodeError> {
    let present = columns.count_ones();
    if values.len() != present {
        return Err(EncodeError::RowWidth { expected: present, got: values.len() });
    }
    let null_at = out.len();
    out.resize(null_at + present.div_ceil(8), 0);
    for (k, (col, value)) in columns.ones().zip(values).enumerate() {
        if matches!(value, Value::Null) {
            out[null_at + k / 8] |= 1 << (k % 8);
            continue;
        }
        let (Some(&t), Some(&meta)) = (table.column_types.get(col), table.column_meta.get(col))
        else {
            return Err(EncodeError::BadValue {
                column: col,
                reason: "column beyond the table map",
            });
        };
        encode_value(out, col, t, meta, value)?;
    }
    Ok(())
}
