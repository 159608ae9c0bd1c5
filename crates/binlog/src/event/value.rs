//! Column types and row values as ROWS events store them.
//!
//! A row image stores each non-NULL column in its "binlog" form, whose length follows from
//! the column type and the per-column metadata of the TABLE_MAP (binary_log_funcs.cpp
//! `calc_field_size`; sql/log_event.cc `log_event_print_value`):
//! - TINY/SHORT/INT24/LONG/LONGLONG: 1/2/3/4/8 bytes little-endian; signedness is not in
//!   the row (it is in the TABLE_MAP's optional SIGNEDNESS metadata, when logged).
//! - FLOAT/DOUBLE: IEEE 754 little-endian, 4/8 bytes.
//! - NEWDECIMAL: MySQL's binary decimal (strings/decimal.cc `decimal2bin`): the integer and
//!   fraction digits in groups of nine per 4 bytes big-endian, leftover digits in
//!   1–4 bytes (`dig2bytes`), all bytes inverted for negative numbers, then the top bit of
//!   the first byte flipped. Metadata: precision << 8 | scale.
//! - VARCHAR: a 1-byte length if the declared max (metadata) is below 256, else 2 bytes.
//! - STRING (CHAR/BINARY, and ENUM/SET whose real type is in the metadata's high byte):
//!   CHAR has a 1- or 2-byte length depending on its max byte length
//!   (`((meta >> 4) & 0x300) ^ 0x300) + (meta & 0xff)`); ENUM/SET are `meta & 0xff` bytes.
//! - BLOB/TEXT/JSON/GEOMETRY: a `meta`-byte (1–4) little-endian length, then the bytes.
//! - DATE: 3 bytes little-endian `day | month << 5 | year << 9`. YEAR: 1 byte, year − 1900
//!   (0 means 0000).
//! - DATETIME2: 5 bytes big-endian `0x8000000000 + (((year*13+month) << 5 | day) << 17 |
//!   hour << 12 | minute << 6 | second)`, then `(fsp+1)/2` bytes of fraction.
//! - TIMESTAMP2: 4 bytes big-endian seconds, then the fraction.
//! - TIME2: 3 bytes big-endian `0x800000 + (±(hour << 12 | minute << 6 | second))`, then the
//!   fraction; negative times store the fraction "reversed" (my_time.cc
//!   `my_time_packed_to_binary`), and fsp 5–6 store one 6-byte integer of the packed value.
//! - Fractions: fsp 1–2 one byte of µs/10000 (hundredths), fsp 3–4 two bytes of
//!   µs/100, fsp 5–6 three bytes of µs, big-endian.
//! - BIT, ENUM, SET, JSON, GEOMETRY and the pre-5.6 temporal types are kept as raw bytes
//!   (length prefix included), which is enough to walk rows and re-encode them exactly.

use super::bytes::{le_uint, put_uint_n, Cursor};
use crate::error::{DecodeError, EncodeError};

/// A column type code (`enum_field_types`, include/field_types.h).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ColumnType(pub u8);

impl ColumnType {
    pub const DECIMAL: ColumnType = ColumnType(0);
    pub const TINY: ColumnType = ColumnType(1);
    pub const SHORT: ColumnType = ColumnType(2);
    pub const LONG: ColumnType = ColumnType(3);
    pub const FLOAT: ColumnType = ColumnType(4);
    pub const DOUBLE: ColumnType = ColumnType(5);
    pub const NULL: ColumnType = ColumnType(6);
    pub const TIMESTAMP: ColumnType = ColumnType(7);
    pub const LONGLONG: ColumnType = ColumnType(8);
    pub const INT24: ColumnType = ColumnType(9);
    pub const DATE: ColumnType = ColumnType(10);
    pub const TIME: ColumnType = ColumnType(11);
    pub const DATETIME: ColumnType = ColumnType(12);
    pub const YEAR: ColumnType = ColumnType(13);
    pub const NEWDATE: ColumnType = ColumnType(14);
    pub const VARCHAR: ColumnType = ColumnType(15);
    pub const BIT: ColumnType = ColumnType(16);
    pub const TIMESTAMP2: ColumnType = ColumnType(17);
    pub const DATETIME2: ColumnType = ColumnType(18);
    pub const TIME2: ColumnType = ColumnType(19);
    pub const JSON: ColumnType = ColumnType(245);
    pub const NEWDECIMAL: ColumnType = ColumnType(246);
    pub const ENUM: ColumnType = ColumnType(247);
    pub const SET: ColumnType = ColumnType(248);
    pub const TINY_BLOB: ColumnType = ColumnType(249);
    pub const MEDIUM_BLOB: ColumnType = ColumnType(250);
    pub const LONG_BLOB: ColumnType = ColumnType(251);
    pub const BLOB: ColumnType = ColumnType(252);
    pub const VAR_STRING: ColumnType = ColumnType(253);
    pub const STRING: ColumnType = ColumnType(254);
    pub const GEOMETRY: ColumnType = ColumnType(255);

    /// Bytes of TABLE_MAP metadata this type has (log_event.cc `read_field_metadata`).
    pub fn metadata_len(self) -> usize {
        match self {
            ColumnType::FLOAT
            | ColumnType::DOUBLE
            | ColumnType::TINY_BLOB
            | ColumnType::MEDIUM_BLOB
            | ColumnType::LONG_BLOB
            | ColumnType::BLOB
            | ColumnType::GEOMETRY
            | ColumnType::JSON
            | ColumnType::TIME2
            | ColumnType::DATETIME2
            | ColumnType::TIMESTAMP2 => 1,
            ColumnType::VARCHAR
            | ColumnType::VAR_STRING
            | ColumnType::BIT
            | ColumnType::NEWDECIMAL
            | ColumnType::STRING
            | ColumnType::ENUM
            | ColumnType::SET => 2,
            _ => 0,
        }
    }

    /// Reads this type's metadata. STRING/ENUM/SET and NEWDECIMAL store their two bytes
    /// high byte first; VARCHAR and BIT low byte first.
    pub(crate) fn read_metadata(self, c: &mut Cursor<'_>) -> Result<u16, DecodeError> {
        let b = c.bytes(self.metadata_len(), "column metadata")?;
        Ok(match (self, b) {
            (_, []) => 0,
            (_, [x]) => u16::from(*x),
            (
                ColumnType::STRING | ColumnType::ENUM | ColumnType::SET | ColumnType::NEWDECIMAL,
                [hi, lo],
            ) => u16::from(*hi) << 8 | u16::from(*lo),
            (_, [lo, hi]) => u16::from(*hi) << 8 | u16::from(*lo),
            _ => return Err(c.malformed("column metadata")),
        })
    }

    pub(crate) fn write_metadata(self, meta: u16, out: &mut Vec<u8>) {
        match (self.metadata_len(), self) {
            (0, _) => {}
            (1, _) => out.push(meta as u8),
            (
                _,
                ColumnType::STRING | ColumnType::ENUM | ColumnType::SET | ColumnType::NEWDECIMAL,
            ) => out.extend_from_slice(&meta.to_be_bytes()),
            _ => out.extend_from_slice(&meta.to_le_bytes()),
        }
    }

    /// The type a STRING column really is (ENUM and SET are logged as STRING with their
    /// real type in the metadata's high byte).
    pub fn real_type(self, meta: u16) -> ColumnType {
        if self == ColumnType::STRING {
            let real = ColumnType((meta >> 8) as u8);
            if real == ColumnType::ENUM || real == ColumnType::SET {
                return real;
            }
        }
        self
    }

    /// Whether the TABLE_MAP's SIGNEDNESS bitmap has a bit for this type.
    pub fn is_numeric(self) -> bool {
        matches!(
            self,
            ColumnType::TINY
                | ColumnType::SHORT
                | ColumnType::INT24
                | ColumnType::LONG
                | ColumnType::LONGLONG
                | ColumnType::NEWDECIMAL
                | ColumnType::FLOAT
                | ColumnType::DOUBLE
        )
    }

    /// Whether the TABLE_MAP's charset metadata has an entry for this (real) type.
    pub fn is_character(self) -> bool {
        matches!(
            self,
            ColumnType::STRING
                | ColumnType::VAR_STRING
                | ColumnType::VARCHAR
                | ColumnType::BLOB
                | ColumnType::TINY_BLOB
                | ColumnType::MEDIUM_BLOB
                | ColumnType::LONG_BLOB
        )
    }

    /// Whether this (real) type is ENUM or SET.
    pub fn is_enum_or_set(self) -> bool {
        matches!(self, ColumnType::ENUM | ColumnType::SET)
    }

    /// The type name mysqlbinlog -vv prints (`log_event_print_value`).
    pub fn describe(self, meta: u16) -> String {
        match self.real_type(meta) {
            ColumnType::TINY => "TINYINT".into(),
            ColumnType::SHORT => "SHORTINT".into(),
            ColumnType::INT24 => "MEDIUMINT".into(),
            ColumnType::LONG => "INT".into(),
            ColumnType::LONGLONG => "LONGINT".into(),
            ColumnType::FLOAT => "FLOAT".into(),
            ColumnType::DOUBLE => "DOUBLE".into(),
            ColumnType::NEWDECIMAL => format!("DECIMAL({},{})", meta >> 8, meta & 0xff),
            ColumnType::VARCHAR | ColumnType::VAR_STRING => format!("VARSTRING({meta})"),
            ColumnType::STRING => format!("STRING({})", string_max_len(meta)),
            ColumnType::ENUM => format!("ENUM({} bytes)", meta & 0xff),
            ColumnType::SET => format!("SET({} bytes)", meta & 0xff),
            ColumnType::TINY_BLOB
            | ColumnType::MEDIUM_BLOB
            | ColumnType::LONG_BLOB
            | ColumnType::BLOB => "BLOB/TEXT".into(),
            ColumnType::JSON => "JSON".into(),
            ColumnType::GEOMETRY => "GEOMETRY".into(),
            ColumnType::BIT => format!("BIT({})", (meta >> 8) * 8 + (meta & 0xff)),
            ColumnType::DATE | ColumnType::NEWDATE => "DATE".into(),
            ColumnType::YEAR => "YEAR".into(),
            ColumnType::TIMESTAMP => "TIMESTAMP".into(),
            ColumnType::DATETIME => "DATETIME".into(),
            ColumnType::TIME => "TIME".into(),
            ColumnType::TIMESTAMP2 => format!("TIMESTAMP({meta})"),
            ColumnType::DATETIME2 => format!("DATETIME({meta})"),
            ColumnType::TIME2 => format!("TIME({meta})"),
            ColumnType::NULL => "NULL".into(),
            other => format!("TYPE({})", other.0),
        }
    }
}

/// The declared maximum byte length of a CHAR/BINARY column from its metadata.
fn string_max_len(meta: u16) -> u32 {
    let meta = u32::from(meta);
    (((meta >> 4) & 0x300) ^ 0x300) + (meta & 0xff)
}

/// `dig2bytes` of strings/decimal.cc: bytes for 0..=9 leftover decimal digits.
const DIG2BYTES: [usize; 10] = [0, 1, 1, 2, 2, 3, 3, 4, 4, 4];
const DIGITS_PER_GROUP: usize = 9;
const POWERS10: [u32; 10] =
    [1, 10, 100, 1000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000];

/// Bytes of a binary decimal of `precision` digits, `scale` of them after the point.
pub fn decimal_binary_len(precision: usize, scale: usize) -> usize {
    let intg = precision.saturating_sub(scale);
    (intg / DIGITS_PER_GROUP) * 4
        + DIG2BYTES[intg % DIGITS_PER_GROUP]
        + (scale / DIGITS_PER_GROUP) * 4
        + DIG2BYTES[scale % DIGITS_PER_GROUP]
}

/// A calendar date (DATE). Zero fields are allowed, as MySQL allows `0000-00-00`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Date {
    pub year: u16,
    pub month: u8,
    pub day: u8,
}

/// A DATETIME value as a row event carries it (DATETIME2, or the old DATETIME): the codec's
/// own type, apart from the engine's `DateTime` (the commit layer converts between them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BinlogDateTime {
    pub year: u16,
    pub month: u8,
    pub day: u8,
    pub hour: u8,
    pub minute: u8,
    pub second: u8,
    pub micros: u32,
}

/// A TIME value: a signed duration up to 838:59:59.999999 (the field allows 1023 hours).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Time {
    pub negative: bool,
    pub hours: u16,
    pub minutes: u8,
    pub seconds: u8,
    pub micros: u32,
}

/// One column's value in a row image.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    /// A signed integer column (or one whose signedness was not logged).
    Int(i64),
    /// An integer column the TABLE_MAP marks unsigned.
    UInt(u64),
    Float(f32),
    Double(f64),
    /// A NEWDECIMAL as text: optional `-`, digits, and exactly `scale` fraction digits.
    Decimal(String),
    /// CHAR/VARCHAR/BINARY/VARBINARY/BLOB/TEXT contents (without the length prefix).
    Bytes(Vec<u8>),
    Date(Date),
    DateTime(BinlogDateTime),
    /// TIMESTAMP: seconds since the epoch (UTC) and microseconds.
    Timestamp {
        seconds: u32,
        micros: u32,
    },
    Time(Time),
    /// 0 or 1901..=2155.
    Year(u16),
    /// BIT, ENUM, SET, JSON, GEOMETRY and old temporal types: the stored bytes as they are,
    /// length prefix included.
    Raw(Vec<u8>),
}

/// Fraction bytes for `fsp` fractional digits.
fn frac_len(fsp: u16) -> usize {
    usize::from(fsp.min(6)).div_ceil(2)
}

/// Reads the fraction of a DATETIME2/TIMESTAMP2 as µs.
fn read_frac(c: &mut Cursor<'_>, fsp: u16) -> Result<u32, DecodeError> {
    let b = c.bytes(frac_len(fsp), "fractional seconds")?;
    Ok(match b {
        [x] => u32::from(*x) * 10_000,
        [x, y] => (u32::from(*x) << 8 | u32::from(*y)) * 100,
        [x, y, z] => u32::from(*x) << 16 | u32::from(*y) << 8 | u32::from(*z),
        _ => 0,
    })
}

fn put_frac(out: &mut Vec<u8>, fsp: u16, micros: u32) {
    match frac_len(fsp) {
        1 => out.push((micros / 10_000) as u8),
        2 => out.extend_from_slice(&((micros / 100) as u16).to_be_bytes()),
        3 => out.extend_from_slice(&micros.to_be_bytes()[1..]),
        _ => {}
    }
}

fn be_uint(b: &[u8]) -> u64 {
    b.iter().fold(0u64, |acc, &x| (acc << 8) | u64::from(x))
}

fn put_be(out: &mut Vec<u8>, v: u64, n: usize) {
    out.extend_from_slice(&v.to_be_bytes()[8 - n..]);
}

const DATETIMEF_INT_OFS: u64 = 0x80_0000_0000;
const TIMEF_INT_OFS: i64 = 0x80_0000;
const TIMEF_OFS: i64 = 0x8000_0000_0000;

/// Decodes one non-NULL value of a column. `unsigned` comes from the TABLE_MAP.
pub(crate) fn decode_value(
    c: &mut Cursor<'_>,
    column_type: ColumnType,
    meta: u16,
    unsigned: bool,
) -> Result<Value, DecodeError> {
    let int = |c: &mut Cursor<'_>, n: usize| -> Result<Value, DecodeError> {
        let v = c.uint_n(n, "integer value")?;
        Ok(if unsigned {
            Value::UInt(v)
        } else {
            let shift = 64 - 8 * n as u32;
            Value::Int(((v << shift) as i64) >> shift)
        })
    };
    Ok(match column_type.real_type(meta) {
        ColumnType::TINY => int(c, 1)?,
        ColumnType::SHORT => int(c, 2)?,
        ColumnType::INT24 => int(c, 3)?,
        ColumnType::LONG => int(c, 4)?,
        ColumnType::LONGLONG => int(c, 8)?,
        ColumnType::FLOAT => Value::Float(f32::from_le_bytes(c.array("float value")?)),
        ColumnType::DOUBLE => Value::Double(f64::from_le_bytes(c.array("double value")?)),
        ColumnType::NEWDECIMAL => Value::Decimal(decode_decimal(c, meta)?),
        ColumnType::VARCHAR | ColumnType::VAR_STRING => {
            Value::Bytes(length_prefixed(c, if meta < 256 { 1 } else { 2 })?.to_vec())
        }
        ColumnType::STRING => {
            let n = if string_max_len(meta) > 255 { 2 } else { 1 };
            Value::Bytes(length_prefixed(c, n)?.to_vec())
        }
        ColumnType::ENUM | ColumnType::SET => {
            Value::Raw(c.bytes(usize::from(meta & 0xff), "enum/set value")?.to_vec())
        }
        ColumnType::TINY_BLOB
        | ColumnType::MEDIUM_BLOB
        | ColumnType::LONG_BLOB
        | ColumnType::BLOB => Value::Bytes(length_prefixed(c, blob_prefix(c, meta)?)?.to_vec()),
        ColumnType::JSON | ColumnType::GEOMETRY => {
            let start = c.clone();
            let n = blob_prefix(c, meta)?;
            length_prefixed(c, n)?;
            let len = start.remaining() - c.remaining();
            Value::Raw(start.clone().bytes(len, "value")?.to_vec())
        }
        ColumnType::BIT => {
            let len = usize::from(meta >> 8) + usize::from(meta & 0xff > 0);
            Value::Raw(c.bytes(len, "bit value")?.to_vec())
        }
        ColumnType::DATE | ColumnType::NEWDATE => {
            let v = c.uint_n(3, "date value")? as u32;
            Value::Date(Date {
                year: (v >> 9) as u16,
                month: ((v >> 5) & 0xf) as u8,
                day: (v & 0x1f) as u8,
            })
        }
        ColumnType::YEAR => {
            let v = c.u8("year value")?;
            Value::Year(if v == 0 { 0 } else { 1900 + u16::from(v) })
        }
        ColumnType::TIMESTAMP => Value::Timestamp { seconds: c.u32("timestamp value")?, micros: 0 },
        ColumnType::TIMESTAMP2 => {
            let seconds = be_uint(c.bytes(4, "timestamp value")?) as u32;
            Value::Timestamp { seconds, micros: read_frac(c, meta)? }
        }
        ColumnType::DATETIME2 => {
            let packed = be_uint(c.bytes(5, "datetime value")?).wrapping_sub(DATETIMEF_INT_OFS);
            let micros = read_frac(c, meta)?;
            let ymd = (packed >> 17) & 0x3f_ffff;
            let ym = ymd >> 5;
            let hms = packed & 0x1_ffff;
            Value::DateTime(BinlogDateTime {
                year: (ym / 13) as u16,
                month: (ym % 13) as u8,
                day: (ymd & 0x1f) as u8,
                hour: (hms >> 12) as u8,
                minute: ((hms >> 6) & 0x3f) as u8,
                second: (hms & 0x3f) as u8,
                micros,
            })
        }
        ColumnType::TIME2 => Value::Time(decode_time2(c, meta)?),
        ColumnType::TIME => Value::Raw(c.bytes(3, "time value")?.to_vec()),
        ColumnType::DATETIME => Value::Raw(c.bytes(8, "datetime value")?.to_vec()),
        ColumnType::NULL => Value::Null,
        _ => return Err(c.malformed("column type whose values this codec cannot measure")),
    })
}

/// A value with an `n`-byte little-endian length prefix; returns the contents.
fn length_prefixed<'a>(c: &mut Cursor<'a>, n: usize) -> Result<&'a [u8], DecodeError> {
    let start = c.clone();
    let len = c.uint_n(n, "value length")?;
    match usize::try_from(len) {
        Ok(len) if len <= c.remaining() => c.bytes(len, "value"),
        _ => {
            *c = start;
            Err(c.malformed("value longer than the event"))
        }
    }
}

fn blob_prefix(c: &Cursor<'_>, meta: u16) -> Result<usize, DecodeError> {
    match meta {
        1..=4 => Ok(usize::from(meta)),
        _ => Err(c.malformed("blob length-bytes metadata outside 1..=4")),
    }
}

fn decode_time2(c: &mut Cursor<'_>, fsp: u16) -> Result<Time, DecodeError> {
    let packed: i64 = match frac_len(fsp) {
        3 => be_uint(c.bytes(6, "time value")?) as i64 - TIMEF_OFS,
        n => {
            let mut intpart = be_uint(c.bytes(3, "time value")?) as i64 - TIMEF_INT_OFS;
            let (mut frac, unit, wrap) = match n {
                1 => (i64::from(c.u8("time fraction")?), 10_000, 0x100),
                2 => (be_uint(c.bytes(2, "time fraction")?) as i64, 100, 0x1_0000),
                _ => (0, 1, 1),
            };
            // Negative times store the fraction counted back from the next second.
            if intpart < 0 && frac != 0 {
                intpart += 1;
                frac -= wrap;
            }
            (intpart << 24) + frac * unit
        }
    };
    let negative = packed < 0;
    let abs = packed.unsigned_abs();
    let hms = abs >> 24;
    Ok(Time {
        negative,
        hours: ((hms >> 12) & 0x3ff) as u16,
        minutes: ((hms >> 6) & 0x3f) as u8,
        seconds: (hms & 0x3f) as u8,
        micros: (abs & 0xff_ffff) as u32,
    })
}

fn decode_decimal(c: &mut Cursor<'_>, meta: u16) -> Result<String, DecodeError> {
    let precision = usize::from(meta >> 8);
    let scale = usize::from(meta & 0xff);
    if precision == 0 || scale > precision || precision > 65 {
        return Err(c.malformed("decimal precision/scale metadata out of range"));
    }
    let len = decimal_binary_len(precision, scale);
    let start = c.clone();
    let raw = c.bytes(len, "decimal value")?;
    let negative = raw[0] & 0x80 == 0;
    let mask = if negative { 0xff } else { 0 };
    let mut buf = [0u8; 32];
    let buf = &mut buf[..len];
    buf.copy_from_slice(raw);
    buf[0] ^= 0x80;
    for b in buf.iter_mut() {
        *b ^= mask;
    }
    let intg = precision - scale;
    let mut digits = String::with_capacity(precision + 2);
    let mut pos = 0;
    let mut group = |digits_in: usize, out: &mut String| -> Result<(), DecodeError> {
        let n = if digits_in == DIGITS_PER_GROUP { 4 } else { DIG2BYTES[digits_in] };
        let v = be_uint(&buf[pos..pos + n]);
        pos += n;
        if v >= u64::from(POWERS10[digits_in]) {
            return Err(start.malformed("decimal digit group out of range"));
        }
        out.push_str(&format!("{v:0digits_in$}"));
        Ok(())
    };
    let mut int_digits = String::with_capacity(intg);
    if intg % DIGITS_PER_GROUP > 0 {
        group(intg % DIGITS_PER_GROUP, &mut int_digits)?;
    }
    for _ in 0..intg / DIGITS_PER_GROUP {
        group(DIGITS_PER_GROUP, &mut int_digits)?;
    }
    let mut frac_digits = String::with_capacity(scale);
    for _ in 0..scale / DIGITS_PER_GROUP {
        group(DIGITS_PER_GROUP, &mut frac_digits)?;
    }
    if scale % DIGITS_PER_GROUP > 0 {
        group(scale % DIGITS_PER_GROUP, &mut frac_digits)?;
    }
    if negative {
        digits.push('-');
    }
    let trimmed = int_digits.trim_start_matches('0');
    digits.push_str(if trimmed.is_empty() { "0" } else { trimmed });
    if scale > 0 {
        digits.push('.');
        digits.push_str(&frac_digits);
    }
    Ok(digits)
}

/// Writes `value` for a column of `column_type`/`meta`. `column` names errors.
pub(crate) fn encode_value(
    out: &mut Vec<u8>,
    column: usize,
    column_type: ColumnType,
    meta: u16,
    value: &Value,
) -> Result<(), EncodeError> {
    let bad = |reason| EncodeError::BadValue { column, reason };
    let int = |out: &mut Vec<u8>, n: usize| -> Result<(), EncodeError> {
        let bits = 8 * n as u32;
        let v = match *value {
            Value::Int(v) => {
                let min = if bits == 64 { i64::MIN } else { -(1i64 << (bits - 1)) };
                let max = if bits == 64 { i64::MAX } else { (1i64 << bits) - 1 };
                if v < min || v > max {
                    return Err(bad("integer out of the column's range"));
                }
                v as u64
            }
            Value::UInt(v) => {
                if bits < 64 && v >> bits != 0 {
                    return Err(bad("integer out of the column's range"));
                }
                v
            }
            _ => return Err(bad("an integer column needs Int or UInt")),
        };
        put_uint_n(out, v, n);
        Ok(())
    };
    let length_prefixed = |out: &mut Vec<u8>, n: usize, b: &[u8]| -> Result<(), EncodeError> {
        if n < 8 && (b.len() as u64) >> (8 * n) != 0 {
            return Err(bad("value longer than the column's length prefix allows"));
        }
        put_uint_n(out, b.len() as u64, n);
        out.extend_from_slice(b);
        Ok(())
    };
    match (column_type.real_type(meta), value) {
        (_, Value::Null) => return Err(bad("NULL is written in the null bitmap, not as a value")),
        (ColumnType::TINY, _) => int(out, 1)?,
        (ColumnType::SHORT, _) => int(out, 2)?,
        (ColumnType::INT24, _) => int(out, 3)?,
        (ColumnType::LONG, _) => int(out, 4)?,
        (ColumnType::LONGLONG, _) => int(out, 8)?,
        (ColumnType::FLOAT, Value::Float(f)) => out.extend_from_slice(&f.to_le_bytes()),
        (ColumnType::DOUBLE, Value::Double(f)) => out.extend_from_slice(&f.to_le_bytes()),
        (ColumnType::NEWDECIMAL, Value::Decimal(s)) => {
            encode_decimal(out, meta, s).map_err(bad)?;
        }
        (ColumnType::VARCHAR | ColumnType::VAR_STRING, Value::Bytes(b)) => {
            length_prefixed(out, if meta < 256 { 1 } else { 2 }, b)?
        }
        (ColumnType::STRING, Value::Bytes(b)) => {
            length_prefixed(out, if string_max_len(meta) > 255 { 2 } else { 1 }, b)?
        }
        (
            ColumnType::TINY_BLOB
            | ColumnType::MEDIUM_BLOB
            | ColumnType::LONG_BLOB
            | ColumnType::BLOB,
            Value::Bytes(b),
        ) if (1..=4).contains(&meta) => length_prefixed(out, usize::from(meta), b)?,
        (ColumnType::DATE | ColumnType::NEWDATE, Value::Date(d)) => {
            if d.month > 12 || d.day > 31 || d.year > 9999 {
                return Err(bad("date field out of range"));
            }
            let v = u64::from(d.day) | u64::from(d.month) << 5 | u64::from(d.year) << 9;
            put_uint_n(out, v, 3);
        }
        (ColumnType::YEAR, Value::Year(y)) => match *y {
            0 => out.push(0),
            1901..=2155 => out.push((y - 1900) as u8),
            _ => return Err(bad("YEAR outside 1901..=2155")),
        },
        (ColumnType::TIMESTAMP, Value::Timestamp { seconds, micros: 0 }) => {
            out.extend_from_slice(&seconds.to_le_bytes())
        }
        (ColumnType::TIMESTAMP2, Value::Timestamp { seconds, micros }) => {
            if *micros > 999_999 {
                return Err(bad("microseconds above 999999"));
            }
            out.extend_from_slice(&seconds.to_be_bytes());
            put_frac(out, meta, *micros);
        }
        (ColumnType::DATETIME2, Value::DateTime(d)) => {
            if d.month > 12
                || d.day > 31
                || d.year > 9999
                || d.hour > 23
                || d.minute > 59
                || d.second > 59
                || d.micros > 999_999
            {
                return Err(bad("datetime field out of range"));
            }
            let ymd = (u64::from(d.year) * 13 + u64::from(d.month)) << 5 | u64::from(d.day);
            let hms = u64::from(d.hour) << 12 | u64::from(d.minute) << 6 | u64::from(d.second);
            put_be(out, (ymd << 17 | hms) + DATETIMEF_INT_OFS, 5);
            put_frac(out, meta, d.micros);
        }
        (ColumnType::TIME2, Value::Time(t)) => {
            if t.hours > 1023 || t.minutes > 59 || t.seconds > 59 || t.micros > 999_999 {
                return Err(bad("time field out of range"));
            }
            let hms = i64::from(t.hours) << 12 | i64::from(t.minutes) << 6 | i64::from(t.seconds);
            let abs = hms << 24 | i64::from(t.micros);
            let packed = if t.negative { -abs } else { abs };
            // my_time_packed_to_binary: the fraction is the C remainder (sign of the value).
            let intpart = packed >> 24;
            let frac = packed % (1 << 24);
            match frac_len(meta) {
                0 => put_be(out, (TIMEF_INT_OFS + intpart) as u64, 3),
                1 => {
                    put_be(out, (TIMEF_INT_OFS + intpart) as u64, 3);
                    out.push((frac / 10_000) as i8 as u8);
                }
                2 => {
                    put_be(out, (TIMEF_INT_OFS + intpart) as u64, 3);
                    put_be(out, (frac / 100) as i16 as u16 as u64, 2);
                }
                _ => put_be(out, (packed + TIMEF_OFS) as u64, 6),
            }
        }
        (
            ColumnType::ENUM
            | ColumnType::SET
            | ColumnType::BIT
            | ColumnType::JSON
            | ColumnType::GEOMETRY
            | ColumnType::TIME
            | ColumnType::DATETIME,
            Value::Raw(b),
        ) => out.extend_from_slice(b),
        _ => return Err(bad("value does not match the column type")),
    }
    Ok(())
}

/// Encodes a decimal string as MySQL's binary decimal (strings/decimal.cc `decimal2bin`).
fn encode_decimal(out: &mut Vec<u8>, meta: u16, text: &str) -> Result<(), &'static str> {
    let precision = usize::from(meta >> 8);
    let scale = usize::from(meta & 0xff);
    if precision == 0 || scale > precision || precision > 65 {
        return Err("decimal precision/scale metadata out of range");
    }
    let (negative, unsigned) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (int_text, frac_text) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    let all_digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (int_text.is_empty() && frac_text.is_empty())
        || !all_digits(int_text)
        || !all_digits(frac_text)
    {
        return Err("not a decimal number");
    }
    let int_text = int_text.trim_start_matches('0');
    let intg = precision - scale;
    if int_text.len() > intg {
        return Err("decimal has more integer digits than the column");
    }
    if frac_text.len() > scale {
        return Err("decimal has more fraction digits than the column");
    }
    let len = decimal_binary_len(precision, scale);
    let start = out.len();
    // Integer digits, right-aligned in `intg` positions; fraction left-aligned in `scale`.
    let int_digit = |i: usize| -> u32 {
        let pad = intg - int_text.len();
        if i < pad {
            0
        } else {
            u32::from(int_text.as_bytes()[i - pad] - b'0')
        }
    };
    let frac_digit =
        |i: usize| -> u32 { frac_text.as_bytes().get(i).map_or(0, |b| u32::from(b - b'0')) };
    let put_group = |out: &mut Vec<u8>, digits: &mut dyn Iterator<Item = u32>, n: usize| {
        let v = digits.fold(0u64, |acc, d| acc * 10 + u64::from(d));
        let bytes = if n == DIGITS_PER_GROUP { 4 } else { DIG2BYTES[n] };
        put_be(out, v, bytes);
    };
    let lead = intg % DIGITS_PER_GROUP;
    put_group(out, &mut (0..lead).map(int_digit), lead);
    for g in 0..intg / DIGITS_PER_GROUP {
        let from = lead + g * DIGITS_PER_GROUP;
        put_group(out, &mut (from..from + DIGITS_PER_GROUP).map(int_digit), DIGITS_PER_GROUP);
    }
    for g in 0..scale / DIGITS_PER_GROUP {
        let from = g * DIGITS_PER_GROUP;
        put_group(out, &mut (from..from + DIGITS_PER_GROUP).map(frac_digit), DIGITS_PER_GROUP);
    }
    let tail = scale % DIGITS_PER_GROUP;
    let from = scale - tail;
    put_group(out, &mut (from..scale).map(frac_digit), tail);
    debug_assert_eq!(out.len() - start, len);
    let bytes = &mut out[start..];
    if negative {
        for b in bytes.iter_mut() {
            *b = !*b;
        }
    }
    if let Some(first) = bytes.first_mut() {
        *first ^= 0x80;
    }
    Ok(())
}

/// Unsigned little-endian integer of a raw value (for printing BIT/ENUM/SET).
pub fn raw_uint_le(b: &[u8]) -> u64 {
    le_uint(&b[..b.len().min(8)])
}

/// Encodes decimal text (`-12.50`) as MySQL's binary DECIMAL(precision, scale)
/// (`decimal2bin`), for values outside a row image (the OPAQUE decimals of binary JSON).
/// `None` if the text does not fit the precision or is not a number.
pub fn encode_decimal_bytes(
    out: &mut Vec<u8>,
    precision: usize,
    scale: usize,
    text: &str,
) -> Option<()> {
    let meta = u16::try_from(precision).ok()? << 8 | u16::try_from(scale).ok()?;
    encode_decimal(out, meta, text).ok()
}

/// Decodes a binary DECIMAL(precision, scale) (`bin2decimal`) to its text.
pub fn decode_decimal_bytes(b: &[u8], precision: usize, scale: usize) -> Option<String> {
    let meta = u16::try_from(precision).ok()? << 8 | u16::try_from(scale).ok()?;
    let mut c = Cursor::new(b, 0, crate::event_type::EventType::WRITE_ROWS);
    decode_decimal(&mut c, meta).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::EventType;

    fn round_trip(t: ColumnType, meta: u16, v: Value, unsigned: bool) -> Vec<u8> {
        let mut out = Vec::new();
        encode_value(&mut out, 0, t, meta, &v).expect("encodes");
        let mut c = Cursor::new(&out, 0, EventType::WRITE_ROWS);
        assert_eq!(decode_value(&mut c, t, meta, unsigned).expect("decodes"), v);
        assert!(c.is_empty());
        out
    }

    #[test]
    fn decimals_match_mysql_binary_form() {
        // decimal.cc's own example: 1234567890.1234 as DECIMAL(14,4).
        let b = round_trip(
            ColumnType::NEWDECIMAL,
            14 << 8 | 4,
            Value::Decimal("1234567890.1234".into()),
            false,
        );
        assert_eq!(b, [0x81, 0x0D, 0xFB, 0x38, 0xD2, 0x04, 0xD2]);
        let b = round_trip(
            ColumnType::NEWDECIMAL,
            14 << 8 | 4,
            Value::Decimal("-1234567890.1234".into()),
            false,
        );
        assert_eq!(b, [0x7E, 0xF2, 0x04, 0xC7, 0x2D, 0xFB, 0x2D]);
        round_trip(ColumnType::NEWDECIMAL, 10 << 8 | 2, Value::Decimal("0.00".into()), false);
        round_trip(
            ColumnType::NEWDECIMAL,
            65 << 8 | 30,
            Value::Decimal(
                "-12345678901234567890123456789012345.123456789012345678901234567890".into(),
            ),
            false,
        );
        round_trip(ColumnType::NEWDECIMAL, 5 << 8 | 5, Value::Decimal("0.12345".into()), false);
    }

    #[test]
    fn negative_times_store_the_fraction_reversed() {
        // my_time.cc's table: -00:00:01.01 at fsp 2 is 7FFFFE.FF.
        let t = Time { negative: true, hours: 0, minutes: 0, seconds: 1, micros: 10_000 };
        assert_eq!(
            round_trip(ColumnType::TIME2, 2, Value::Time(t), false),
            [0x7f, 0xff, 0xfe, 0xff]
        );
        let t = Time { negative: true, hours: 0, minutes: 0, seconds: 0, micros: 990_000 };
        assert_eq!(
            round_trip(ColumnType::TIME2, 2, Value::Time(t), false),
            [0x7f, 0xff, 0xff, 0x9d]
        );
        let t = Time { negative: true, hours: 838, minutes: 59, seconds: 59, micros: 999_999 };
        round_trip(ColumnType::TIME2, 6, Value::Time(t), false);
        let t = Time { negative: true, hours: 1, minutes: 2, seconds: 3, micros: 456_700 };
        round_trip(ColumnType::TIME2, 4, Value::Time(t), false);
    }

    #[test]
    fn integers_sign_extend_unless_unsigned() {
        round_trip(ColumnType::INT24, 0, Value::Int(-8_388_608), false);
        round_trip(ColumnType::LONG, 0, Value::UInt(4_294_967_295), true);
        let b = round_trip(ColumnType::TINY, 0, Value::Int(-1), false);
        assert_eq!(b, [0xff]);
    }
}
