//! TABLE_MAP (type 19): binds a table id to a table's name and column types for the rows
//! events that follow it in the same transaction.
//!
//! Layout (rows_event.cpp `Table_map_event`; TABLE_MAP_HEADER_LEN = 8):
//! `table_id u48 | flags u16 | db_len u8 | db | NUL | table_len u8 | table | NUL |
//! column_count packed | column_type[column_count] | metadata_len packed |
//! metadata[metadata_len] | null_bitmap[(column_count + 7) / 8] | optional metadata`.
//!
//! The metadata block holds 0, 1 or 2 bytes per column depending on its type
//! ([`ColumnType::metadata_len`]). The null bitmap has bit `i % 8` of byte `i / 8` set when
//! column `i` is nullable. The optional metadata (8.0, `binlog_row_metadata`; rows_event.h
//! `Optional_metadata_field_type`) is a sequence of `type u8 | length packed | value`
//! fields; bitmaps inside it (SIGNEDNESS, COLUMN_VISIBILITY) are most-significant bit first.
//! Every field is kept raw, in order, so unknown ones re-encode exactly; accessors parse the
//! common ones.

use super::bytes::{put_packed, put_short_string, put_uint_n, Cursor};
use super::value::ColumnType;
use super::EventType;
use crate::error::{DecodeError, EncodeError};

/// Optional metadata field types (rows_event.h).
pub mod optional {
    pub const SIGNEDNESS: u8 = 1;
    pub const DEFAULT_CHARSET: u8 = 2;
    pub const COLUMN_CHARSET: u8 = 3;
    pub const COLUMN_NAME: u8 = 4;
    pub const SET_STR_VALUE: u8 = 5;
    pub const ENUM_STR_VALUE: u8 = 6;
    pub const GEOMETRY_TYPE: u8 = 7;
    pub const SIMPLE_PRIMARY_KEY: u8 = 8;
    pub const PRIMARY_KEY_WITH_PREFIX: u8 = 9;
    pub const ENUM_AND_SET_DEFAULT_CHARSET: u8 = 10;
    pub const ENUM_AND_SET_COLUMN_CHARSET: u8 = 11;
    pub const COLUMN_VISIBILITY: u8 = 12;
}

/// TABLE_MAP flag: the null bitmap's length is exact (TM_BIT_LEN_EXACT_F).
pub const TM_BIT_LEN_EXACT_F: u16 = 1;

/// A bitmap over columns, bit `i % 8` of byte `i / 8` (LSB first), as in ROWS events and the
/// TABLE_MAP null bitmap. The bytes are kept as read, unused high bits included.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Bitmap {
    len: usize,
    bytes: Vec<u8>,
}

impl Bitmap {
    /// `len` bits, all set (e.g. every column present).
    pub fn all_set(len: usize) -> Self {
        let mut bytes = vec![0xff; len.div_ceil(8)];
        if !len.is_multiple_of(8) {
            if let Some(last) = bytes.last_mut() {
                *last = (1u8 << (len % 8)) - 1;
            }
        }
        Bitmap { len, bytes }
    }

    /// `len` bits from `bools`.
    pub fn from_bools(bools: &[bool]) -> Self {
        let mut bytes = vec![0u8; bools.len().div_ceil(8)];
        for (i, _) in bools.iter().enumerate().filter(|(_, b)| **b) {
            bytes[i / 8] |= 1 << (i % 8);
        }
        Bitmap { len: bools.len(), bytes }
    }

    pub(crate) fn read(
        c: &mut Cursor<'_>,
        len: usize,
        what: &'static str,
    ) -> Result<Self, DecodeError> {
        let bytes = c.bytes(len.div_ceil(8), what)?.to_vec();
        Ok(Bitmap { len, bytes })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn get(&self, i: usize) -> bool {
        i < self.len && self.bytes[i / 8] & (1 << (i % 8)) != 0
    }

    /// Number of set bits among the first `len`.
    pub fn count_ones(&self) -> usize {
        (0..self.len).filter(|&i| self.get(i)).count()
    }

    /// Indexes of the set bits.
    pub fn ones(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.len).filter(|&i| self.get(i))
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }
}

/// One optional metadata field, raw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionalField {
    pub field_type: u8,
    pub value: Vec<u8>,
}

/// A column as a new TABLE_MAP describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnDef {
    pub name: String,
    pub column_type: ColumnType,
    /// Type metadata (see [`ColumnType::metadata_len`]).
    pub meta: u16,
    pub nullable: bool,
    pub unsigned: bool,
    /// Collation id of a character column (`is_character`), e.g. 255.
    pub collation: Option<u16>,
}

/// How much optional metadata a new TABLE_MAP carries (`binlog_row_metadata`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowMetadata {
    /// SIGNEDNESS and DEFAULT_CHARSET or COLUMN_CHARSET.
    Minimal,
    /// Also COLUMN_NAME and SIMPLE_PRIMARY_KEY.
    Full,
}

// Format: table_id u48 | flags u16 | db_len u8 | db | 0 | table_len u8 | table | 0 |
//         column_count packed | types [n] | meta_len packed | meta | null_bitmap | optional*
/// A TABLE_MAP event body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableMap {
    pub table_id: u64,
    pub flags: u16,
    pub schema: Vec<u8>,
    pub table: Vec<u8>,
    pub column_types: Vec<ColumnType>,
    /// Per-column metadata as one number: STRING/ENUM/SET and NEWDECIMAL read high byte first,
    /// VARCHAR and BIT low byte first (see [`ColumnType::metadata_len`]).
    pub column_meta: Vec<u16>,
    /// Nullable columns.
    pub nullable: Bitmap,
    pub optional: Vec<OptionalField>,
}

impl TableMap {
    /// A TABLE_MAP as MySQL 8.0 writes it for `columns`, with `primary_key` column indexes
    /// (used with [`RowMetadata::Full`]).
    pub fn new(
        table_id: u64,
        schema: &str,
        table: &str,
        columns: &[ColumnDef],
        primary_key: &[usize],
        metadata: RowMetadata,
    ) -> Self {
        let mut optional = Vec::new();
        let numeric: Vec<bool> =
            columns.iter().filter(|c| c.column_type.is_numeric()).map(|c| c.unsigned).collect();
        if !numeric.is_empty() {
            optional.push(OptionalField {
                field_type: optional::SIGNEDNESS,
                value: msb_bitmap(&numeric),
            });
        }
        let charsets: Vec<u16> = columns
            .iter()
            .filter(|c| c.column_type.real_type(c.meta).is_character())
            .map(|c| c.collation.unwrap_or(63))
            .collect();
        if let Some(field) = charset_field(&charsets) {
            optional.push(field);
        }
        if metadata == RowMetadata::Full {
            let mut value = Vec::new();
            for c in columns {
                put_packed(&mut value, c.name.len() as u64);
                value.extend_from_slice(c.name.as_bytes());
            }
            optional.push(OptionalField { field_type: optional::COLUMN_NAME, value });
            if !primary_key.is_empty() {
                let mut value = Vec::new();
                for &i in primary_key {
                    put_packed(&mut value, i as u64);
                }
                optional.push(OptionalField { field_type: optional::SIMPLE_PRIMARY_KEY, value });
            }
        }
        TableMap {
            table_id,
            flags: TM_BIT_LEN_EXACT_F,
            schema: schema.as_bytes().to_vec(),
            table: table.as_bytes().to_vec(),
            column_types: columns.iter().map(|c| c.column_type).collect(),
            column_meta: columns.iter().map(|c| c.meta).collect(),
            nullable: Bitmap::from_bools(&columns.iter().map(|c| c.nullable).collect::<Vec<_>>()),
            optional,
        }
    }

    /// Adds the ENUM/SET optional metadata mysqld writes (log_event.cc
    /// `Table_map_log_event::init_enum_str_value_field` & co.): ENUM_AND_SET_DEFAULT_CHARSET
    /// (or ..._COLUMN_CHARSET) after the charset field, and with [`RowMetadata::Full`]
    /// SET_STR_VALUE and ENUM_STR_VALUE after COLUMN_NAME. `columns` lists, in column order,
    /// each ENUM or SET column: (is SET, collation, member names).
    pub fn add_enum_and_set(
        &mut self,
        columns: &[(bool, u16, Vec<Vec<u8>>)],
        metadata: RowMetadata,
    ) {
        if columns.is_empty() {
            return;
        }
        let collations: Vec<u16> = columns.iter().map(|c| c.1).collect();
        let mut fields = Vec::new();
        if let Some(mut f) = charset_field(&collations) {
            f.field_type = if f.field_type == optional::DEFAULT_CHARSET {
                optional::ENUM_AND_SET_DEFAULT_CHARSET
            } else {
                optional::ENUM_AND_SET_COLUMN_CHARSET
            };
            fields.push(f);
        }
        // After SIGNEDNESS and the column charset, before COLUMN_NAME.
        let at = self
            .optional
            .iter()
            .position(|f| f.field_type > optional::COLUMN_CHARSET)
            .unwrap_or(self.optional.len());
        self.optional.splice(at..at, fields);
        if metadata == RowMetadata::Full {
            let mut strs = Vec::new();
            for want_set in [true, false] {
                let mut value = Vec::new();
                for (_, _, names) in columns.iter().filter(|c| c.0 == want_set) {
                    put_packed(&mut value, names.len() as u64);
                    for n in names {
                        put_packed(&mut value, n.len() as u64);
                        value.extend_from_slice(n);
                    }
                }
                if !value.is_empty() {
                    let field_type =
                        if want_set { optional::SET_STR_VALUE } else { optional::ENUM_STR_VALUE };
                    strs.push(OptionalField { field_type, value });
                }
            }
            let at = self
                .optional
                .iter()
                .position(|f| {
                    f.field_type > optional::COLUMN_NAME
                        && f.field_type != optional::ENUM_AND_SET_DEFAULT_CHARSET
                        && f.field_type != optional::ENUM_AND_SET_COLUMN_CHARSET
                })
                .unwrap_or(self.optional.len());
            self.optional.splice(at..at, strs);
        }
    }

    /// ENUM (`set` false) or SET (`set` true) member names per such column, in column order,
    /// from ENUM_STR_VALUE / SET_STR_VALUE (binlog_row_metadata=FULL).
    pub fn enum_or_set_values(&self, set: bool) -> Option<Vec<Vec<Vec<u8>>>> {
        let value =
            self.field(if set { optional::SET_STR_VALUE } else { optional::ENUM_STR_VALUE })?;
        let mut c = Cursor::new(value, 0, EventType::TABLE_MAP);
        let mut cols = Vec::new();
        while !c.is_empty() {
            let n = c.packed_len("member count").ok()?;
            let mut names = Vec::new();
            for _ in 0..n {
                let len = c.packed_len("member length").ok()?;
                names.push(c.bytes(len, "member").ok()?.to_vec());
            }
            cols.push(names);
        }
        Some(cols)
    }

    pub fn column_count(&self) -> usize {
        self.column_types.len()
    }

    fn field(&self, field_type: u8) -> Option<&[u8]> {
        self.optional.iter().find(|f| f.field_type == field_type).map(|f| f.value.as_slice())
    }

    /// Per column, whether it is unsigned (false when SIGNEDNESS was not logged).
    pub fn unsigned_columns(&self) -> Vec<bool> {
        let bits = self.field(optional::SIGNEDNESS).unwrap_or(&[]);
        let mut numeric_index = 0;
        self.column_types
            .iter()
            .map(|t| {
                if !t.is_numeric() {
                    return false;
                }
                let i = numeric_index;
                numeric_index += 1;
                bits.get(i / 8).is_some_and(|b| b & (0x80 >> (i % 8)) != 0)
            })
            .collect()
    }

    /// Column names, when COLUMN_NAME was logged (binlog_row_metadata=FULL).
    pub fn column_names(&self) -> Option<Vec<Vec<u8>>> {
        let value = self.field(optional::COLUMN_NAME)?;
        let mut c = Cursor::new(value, 0, EventType::TABLE_MAP);
        let mut names = Vec::new();
        while !c.is_empty() {
            let len = c.packed_len("column name length").ok()?;
            names.push(c.bytes(len, "column name").ok()?.to_vec());
        }
        Some(names)
    }

    /// Primary key column indexes from SIMPLE_PRIMARY_KEY or PRIMARY_KEY_WITH_PREFIX.
    pub fn primary_key(&self) -> Option<Vec<usize>> {
        if let Some(value) = self.field(optional::SIMPLE_PRIMARY_KEY) {
            return packed_list(value).map(|v| v.into_iter().map(|x| x as usize).collect());
        }
        let pairs = packed_list(self.field(optional::PRIMARY_KEY_WITH_PREFIX)?)?;
        Some(pairs.chunks(2).map(|p| p[0] as usize).collect())
    }

    /// Collation per character column (in column order), from COLUMN_CHARSET or
    /// DEFAULT_CHARSET (default collation, then (index, collation) exceptions).
    pub fn character_collations(&self) -> Option<Vec<u16>> {
        let count = self
            .column_types
            .iter()
            .zip(&self.column_meta)
            .filter(|(t, m)| t.real_type(**m).is_character())
            .count();
        if let Some(value) = self.field(optional::COLUMN_CHARSET) {
            return packed_list(value).map(|v| v.into_iter().map(|x| x as u16).collect());
        }
        let list = packed_list(self.field(optional::DEFAULT_CHARSET)?)?;
        let (&default, pairs) = list.split_first()?;
        let mut out = vec![default as u16; count];
        for p in pairs.chunks(2) {
            if let [i, cs] = p {
                if let Some(slot) = usize::try_from(*i).ok().and_then(|i| out.get_mut(i)) {
                    *slot = *cs as u16;
                }
            }
        }
        Some(out)
    }

    /// Per column, whether it is visible (COLUMN_VISIBILITY; all visible when absent).
    pub fn visible_columns(&self) -> Vec<bool> {
        let bits = self.field(optional::COLUMN_VISIBILITY);
        (0..self.column_count())
            .map(|i| bits.is_none_or(|b| b.get(i / 8).is_some_and(|x| x & (0x80 >> (i % 8)) != 0)))
            .collect()
    }

    pub(crate) fn decode(c: &mut Cursor<'_>) -> Result<Self, DecodeError> {
        let table_id = c.uint_n(6, "table id")?;
        let flags = c.u16("table map flags")?;
        let schema = name(c, "db name")?;
        let table = name(c, "table name")?;
        let count = c.packed_len("column count")?;
        let column_types: Vec<ColumnType> =
            c.bytes(count, "column types")?.iter().map(|&t| ColumnType(t)).collect();
        let meta_len = c.packed_len("metadata length")?;
        let meta_block = c.bytes(meta_len, "column metadata")?;
        let meta_base = c.offset() - meta_len as u64;
        let mut mc = Cursor::new(meta_block, meta_base, EventType::TABLE_MAP);
        let column_meta =
            column_types.iter().map(|t| t.read_metadata(&mut mc)).collect::<Result<Vec<_>, _>>()?;
        if !mc.is_empty() {
            return Err(mc.malformed("metadata block longer than the column types need"));
        }
        let nullable = Bitmap::read(c, count, "null bitmap")?;
        let mut optional = Vec::new();
        while !c.is_empty() {
            let field_type = c.u8("optional metadata type")?;
            let len = c.packed_len("optional metadata length")?;
            let value = c.bytes(len, "optional metadata value")?.to_vec();
            optional.push(OptionalField { field_type, value });
        }
        Ok(TableMap {
            table_id,
            flags,
            schema,
            table,
            column_types,
            column_meta,
            nullable,
            optional,
        })
    }

    pub(crate) fn encode(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        if self.column_meta.len() != self.column_types.len()
            || self.nullable.len() != self.column_types.len()
        {
            return Err(EncodeError::RowWidth {
                expected: self.column_types.len(),
                got: self.column_meta.len(),
            });
        }
        put_uint_n(out, self.table_id, 6);
        out.extend_from_slice(&self.flags.to_le_bytes());
        put_name(out, &self.schema, "table map db name")?;
        put_name(out, &self.table, "table map table name")?;
        put_packed(out, self.column_types.len() as u64);
        out.extend(self.column_types.iter().map(|t| t.0));
        let meta_len: usize = self.column_types.iter().map(|t| t.metadata_len()).sum();
        put_packed(out, meta_len as u64);
        for (t, m) in self.column_types.iter().zip(&self.column_meta) {
            t.write_metadata(*m, out);
        }
        out.extend_from_slice(self.nullable.as_bytes());
        for f in &self.optional {
            out.push(f.field_type);
            put_packed(out, f.value.len() as u64);
            out.extend_from_slice(&f.value);
        }
        Ok(())
    }
}

/// The charset field MySQL writes for character columns with these collations
/// (log_event.cc `init_charset_field`): DEFAULT_CHARSET (the most used collation, the
/// smallest id on ties, then `(index among character columns, collation)` for the others)
/// unless COLUMN_CHARSET (every collation) is shorter by MySQL's one-byte-per-number estimate.
fn charset_field(charsets: &[u16]) -> Option<OptionalField> {
    let mut counts = std::collections::BTreeMap::<u16, usize>::new();
    for &cs in charsets {
        *counts.entry(cs).or_default() += 1;
    }
    let (mut default, mut most) = (0u16, 0usize);
    for (&cs, &n) in &counts {
        if n > most {
            (default, most) = (cs, n);
        }
    }
    let n = charsets.len();
    if n == 0 {
        return None;
    }
    let mut value = Vec::new();
    if n < 1 + (n - most) * 2 {
        for &cs in charsets {
            put_packed(&mut value, u64::from(cs));
        }
        return Some(OptionalField { field_type: optional::COLUMN_CHARSET, value });
    }
    put_packed(&mut value, u64::from(default));
    for (i, &cs) in charsets.iter().enumerate().filter(|(_, cs)| **cs != default) {
        put_packed(&mut value, i as u64);
        put_packed(&mut value, u64::from(cs));
    }
    Some(OptionalField { field_type: optional::DEFAULT_CHARSET, value })
}

fn name(c: &mut Cursor<'_>, what: &'static str) -> Result<Vec<u8>, DecodeError> {
    let len = c.u8(what)?;
    let s = c.bytes(usize::from(len), what)?.to_vec();
    if c.u8(what)? != 0 {
        return Err(c.malformed("name not NUL-terminated"));
    }
    Ok(s)
}

fn put_name(out: &mut Vec<u8>, s: &[u8], field: &'static str) -> Result<(), EncodeError> {
    put_short_string(out, s, field)?;
    out.push(0);
    Ok(())
}

fn packed_list(value: &[u8]) -> Option<Vec<u64>> {
    let mut c = Cursor::new(value, 0, EventType::TABLE_MAP);
    let mut out = Vec::new();
    while !c.is_empty() {
        out.push(c.packed("packed list").ok()?);
    }
    Some(out)
}

/// A most-significant-bit-first bitmap, as the optional metadata uses.
fn msb_bitmap(bits: &[bool]) -> Vec<u8> {
    let mut out = vec![0u8; bits.len().div_ceil(8)];
    for (i, _) in bits.iter().enumerate().filter(|(_, b)| **b) {
        out[i / 8] |= 0x80 >> (i % 8);
    }
    out
}
