//! Column values, their on-disk encoding and their order-preserving key encoding.
//!
//! Keys (primary and secondary) are byte strings whose `memcmp` order equals the SQL order of
//! the values they encode, so one `BTreeMap<Key, _>` serves point lookups and range scans.
//! Every key component starts with a flag byte (0 = NULL, 1 = value), which makes components
//! self-delimiting and lets a prefix followed by 0xFF bound all keys with that prefix.
//! A string component is its collation's sort key (`collation::sort_key`: the weight string,
//! so 'Alice' and 'ALICE' are one key under `utf8mb4_0900_ai_ci`), while the row keeps the
//! original bytes; under `binary` and `utf8mb4_0900_bin` (and in [`encode_key`], which knows no
//! collation) the sort key is the bytes escaped, the encoding keys had before collations.

use std::fmt;

use crate::codec::{Put, Reader};
use crate::error::Result;

/// A row: one value per column, in column order.
pub type Row = Vec<Value>;

/// A column value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    /// Any signed integer column (TINYINT..BIGINT).
    Int(i64),
    /// Any unsigned integer column.
    UInt(u64),
    Double(f64),
    Decimal(Decimal),
    /// CHAR, VARCHAR, TEXT (bytes as stored; no collation).
    Bytes(Vec<u8>),
    DateTime(DateTime),
    /// A JSON value: its canonical text as mysqld prints it ([`crate::json::Json`]'s
    /// `Display`). A JSON column stores it; expressions carry it so that JSON functions know a
    /// JSON argument from a string one (`JSON_ARRAY('[1]')` vs `JSON_ARRAY(JSON_ARRAY(1))`).
    Json(Vec<u8>),
    /// FLOAT (single precision).
    Float(f32),
    /// DATE: a `DateTime` whose time fields are zero.
    Date(DateTime),
    /// TIME: signed microseconds (|v| <= 838:59:59, see [`crate::temporal::TIME_MAX_MICROS`]).
    Time(i64),
}

/// A DECIMAL mantissa: 256 bits hold mysqld's 65 digits (`DECIMAL_MAX_PRECISION`) with room
/// to spare; `bnum` because Rust has no wider integer than i128 (its `BInt<4>` is four u64
/// words, 8-byte aligned, so `Value` stays 48 bytes).
pub type Mantissa = bnum::types::I256;
/// Twice as wide: products and scaled dividends before they are rounded back.
pub type WideMantissa = bnum::types::I512;

/// A fixed-point number: `mantissa / 10^scale`, at most [`Decimal::MAX_PRECISION`] digits and
/// [`Decimal::MAX_SCALE`] fraction digits once stored or computed (mysqld's `my_decimal`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decimal {
    pub mantissa: Mantissa,
    pub scale: u8,
}

/// 10^n as a mantissa (n <= 76).
pub fn pow10(n: u32) -> Mantissa {
    Mantissa::TEN.pow(n)
}

impl std::ops::Neg for Decimal {
    type Output = Decimal;

    /// The negated value.
    fn neg(self) -> Decimal {
        Decimal { mantissa: -self.mantissa, scale: self.scale }
    }
}

impl Decimal {
    /// mysqld's DECIMAL_MAX_PRECISION.
    pub const MAX_PRECISION: u32 = 65;
    /// mysqld's DECIMAL_MAX_SCALE.
    pub const MAX_SCALE: u8 = 30;

    /// `m / 10^scale`.
    pub fn new(m: i128, scale: u8) -> Decimal {
        Decimal { mantissa: Mantissa::from(m), scale }
    }

    /// Parses `-12.340` style text (up to 76 digits; callers check the precision).
    pub fn parse(s: &str) -> Option<Decimal> {
        let (neg, digits) = match s.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, s.strip_prefix('+').unwrap_or(s)),
        };
        let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
        if int.is_empty() && frac.is_empty() {
            return None;
        }
        let mut mantissa = Mantissa::ZERO;
        for c in int.bytes().chain(frac.bytes()) {
            if !c.is_ascii_digit() {
                return None;
            }
            mantissa =
                mantissa.checked_mul(Mantissa::TEN)?.checked_add(Mantissa::from(c - b'0'))?;
        }
        let scale = u8::try_from(frac.len()).ok()?;
        Some(Decimal { mantissa: if neg { -mantissa } else { mantissa }, scale })
    }

    /// The same number at `scale` digits, rounding half away from zero; None on overflow.
    pub fn rescale(self, scale: u8) -> Option<Decimal> {
        let mut m = self.mantissa;
        if scale >= self.scale {
            m = m.checked_mul(Mantissa::TEN.checked_pow(u32::from(scale - self.scale))?)?;
        } else {
            let Some(div) = Mantissa::TEN.checked_pow(u32::from(self.scale - scale)) else {
                return Some(Decimal { mantissa: Mantissa::ZERO, scale });
            };
            let q = m / div;
            let r = (m % div).abs();
            m = if r * Mantissa::TWO >= div { q + m.signum() } else { q };
        }
        Some(Decimal { mantissa: m, scale })
    }

    /// The same number at `scale` digits, dropping the digits beyond it (toward zero).
    pub fn truncate(self, scale: u8) -> Option<Decimal> {
        if scale >= self.scale {
            return self.rescale(scale);
        }
        let div = Mantissa::TEN.checked_pow(u32::from(self.scale - scale))?;
        Some(Decimal { mantissa: self.mantissa / div, scale })
    }

    /// The number of digits of the integral part (for precision checks).
    pub fn integral_digits(self) -> u32 {
        let int = self.mantissa.unsigned_abs() / pow10(u32::from(self.scale)).unsigned_abs();
        if int.is_zero() {
            0
        } else {
            int.ilog10() + 1
        }
    }

    /// Whether the value is zero.
    pub fn is_zero(self) -> bool {
        self.mantissa.is_zero()
    }

    /// Whether the value is below zero.
    pub fn is_negative(self) -> bool {
        self.mantissa.is_negative()
    }

    /// The mantissa as an i128, when it fits.
    pub fn mantissa_i128(self) -> Option<i128> {
        i128::try_from(self.mantissa).ok()
    }

    /// The nearest double (via its text, so that the conversion rounds once, as mysqld's
    /// `decimal2double`).
    pub fn to_f64(self) -> f64 {
        if let Some(m) = self.mantissa_i128() {
            if m.unsigned_abs() < 1 << 53 {
                return m as f64 / 10f64.powi(i32::from(self.scale));
            }
        }
        self.to_string().parse().unwrap_or(0.0)
    }

    /// The absolute value.
    pub fn abs(self) -> Decimal {
        Decimal { mantissa: self.mantissa.abs(), scale: self.scale }
    }
}

impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.mantissa.is_negative() { "-" } else { "" };
        let abs = self.mantissa.unsigned_abs();
        if self.scale == 0 {
            return write!(f, "{sign}{abs}");
        }
        let div = pow10(u32::from(self.scale)).unsigned_abs();
        let frac = (abs % div).to_string();
        let pad = usize::from(self.scale).saturating_sub(frac.len());
        write!(f, "{sign}{}.{}{frac}", abs / div, "0".repeat(pad))
    }
}

/// A DATETIME value (no time zone), with microseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct DateTime {
    pub year: u16,
    pub month: u8,
    pub day: u8,
    pub hour: u8,
    pub minute: u8,
    pub second: u8,
    pub micros: u32,
}

impl DateTime {
    /// '0000-00-00 00:00:00'.
    pub const ZERO: DateTime =
        DateTime { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0, micros: 0 };

    /// An integer with the same order as the value (MySQL's packed form).
    pub fn packed(self) -> u64 {
        let ymd = (u64::from(self.year) * 13 + u64::from(self.month)) * 32 + u64::from(self.day);
        let hms =
            (u64::from(self.hour) * 60 + u64::from(self.minute)) * 60 + u64::from(self.second);
        ((ymd * 86_400 + hms) << 20) | u64::from(self.micros)
    }

    /// Whether the fields are in MySQL's ranges (zero dates allowed, as MySQL does).
    pub fn is_valid(self) -> bool {
        self.year <= 9999
            && self.month <= 12
            && self.day <= 31
            && self.hour < 24
            && self.minute < 60
            && self.second < 60
            && self.micros < 1_000_000
    }
}

impl fmt::Display for DateTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )?;
        if self.micros != 0 {
            write!(f, ".{:06}", self.micros)?;
        }
        Ok(())
    }
}

/// Whether a DOUBLE/FLOAT reads as text in `e` notation, as mysqld's `val_str` of a real:
/// `String::set_real` calls `my_gcvt` (strings/dtoa.cc) with a field wide enough for every
/// digit, so the shortest digits that read back are printed in `f` form unless the decimal
/// point falls outside `-MAX_DECPT_FOR_F_FORMAT + 1 ..= MAX_DECPT_FOR_F_FORMAT` (DBL_DIG, 15)
/// with no fraction digit left: `e` below 1e-15 (`1e-16`, while `1e-7` is `0.0000001`) and
/// from 1e15 for a whole number (`1e15`, while `1234567890123456.8` stays). The same rule as
/// `protocol::results::float_uses_exponent`; Rust's plain `{}` would spell every digit
/// (`LOWER(1e300)` was 301 characters).
fn real_uses_exponent(v: f64) -> bool {
    let a = v.abs();
    v.is_finite() && v != 0.0 && (a < 1e-15 || (a >= 1e15 && v.fract() == 0.0))
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("NULL"),
            Value::Int(v) => write!(f, "{v}"),
            Value::UInt(v) => write!(f, "{v}"),
            Value::Double(v) if real_uses_exponent(*v) => write!(f, "{v:e}"),
            Value::Double(v) => write!(f, "{v}"),
            Value::Decimal(d) => write!(f, "{d}"),
            Value::Bytes(b) => f.write_str(&String::from_utf8_lossy(b)),
            Value::DateTime(d) => write!(f, "{d}"),
            Value::Json(b) => f.write_str(&String::from_utf8_lossy(b)),
            Value::Float(v) if real_uses_exponent(f64::from(*v)) => write!(f, "{v:e}"),
            Value::Float(v) => write!(f, "{v}"),
            Value::Date(d) => write!(f, "{}", DateText(*d)),
            Value::Time(t) => write!(f, "{}", TimeText(*t, None)),
        }
    }
}

// Format (value): tag u8 | payload — 0 NULL; 1 i64; 2 u64; 3 f64 bits; 4 i128 mantissa, u8
// scale; 5 u32 length, bytes; 6 u16 year, u8 month, day, hour, minute, second, u32 micros;
// 20 u32 length, JSON text.
// (issue 19, tags from 40) 40 f32 bits (u32); 41 u16 year, u8 month, u8 day; 42 i64 micros;
// 43 a DECIMAL whose mantissa needs more than i128: four u64 words (low first), u8 scale.
pub(crate) fn encode_value(out: &mut Vec<u8>, v: &Value) {
    match v {
        Value::Null => out.put_u8(0),
        Value::Int(i) => {
            out.put_u8(1);
            out.put_u64(*i as u64);
        }
        Value::UInt(u) => {
            out.put_u8(2);
            out.put_u64(*u);
        }
        Value::Double(d) => {
            out.put_u8(3);
            out.put_u64(d.to_bits());
        }
        Value::Decimal(d) => match d.mantissa_i128() {
            Some(m) => {
                out.put_u8(4);
                out.put_i128(m);
                out.put_u8(d.scale);
            }
            None => {
                out.put_u8(43);
                for w in d.mantissa.to_bits().digits() {
                    out.put_u64(*w);
                }
                out.put_u8(d.scale);
            }
        },
        Value::Bytes(b) => {
            out.put_u8(5);
            out.put_bytes(b);
        }
        Value::DateTime(t) => {
            out.put_u8(6);
            out.put_u16(t.year);
            out.extend_from_slice(&[t.month, t.day, t.hour, t.minute, t.second]);
            out.put_u32(t.micros);
        }
        // Tags of issue 19 (bytes) from 20 up (others' new values take 7..19).
        Value::Json(b) => {
            out.put_u8(20);
            out.put_bytes(b);
        }
        Value::Float(f) => {
            out.put_u8(40);
            out.put_u32(f.to_bits());
        }
        Value::Date(d) => {
            out.put_u8(41);
            out.put_u16(d.year);
            out.extend_from_slice(&[d.month, d.day]);
        }
        Value::Time(t) => {
            out.put_u8(42);
            out.put_u64(*t as u64);
        }
    }
}

pub(crate) fn decode_value(r: &mut Reader<'_>) -> Result<Value> {
    Ok(match r.u8()? {
        0 => Value::Null,
        1 => Value::Int(r.u64()? as i64),
        2 => Value::UInt(r.u64()?),
        3 => Value::Double(f64::from_bits(r.u64()?)),
        4 => Value::Decimal(Decimal { mantissa: Mantissa::from(r.i128()?), scale: r.u8()? }),
        5 => Value::Bytes(r.bytes()?.to_vec()),
        6 => Value::DateTime(DateTime {
            year: r.u16()?,
            month: r.u8()?,
            day: r.u8()?,
            hour: r.u8()?,
            minute: r.u8()?,
            second: r.u8()?,
            micros: r.u32()?,
        }),
        20 => Value::Json(r.bytes()?.to_vec()),
        40 => Value::Float(f32::from_bits(r.u32()?)),
        41 => {
            Value::Date(DateTime { year: r.u16()?, month: r.u8()?, day: r.u8()?, ..DateTime::ZERO })
        }
        42 => Value::Time(r.u64()? as i64),
        43 => {
            let words = [r.u64()?, r.u64()?, r.u64()?, r.u64()?];
            let mantissa = Mantissa::from_bits(bnum::types::U256::from_digits(words));
            Value::Decimal(Decimal { mantissa, scale: r.u8()? })
        }
        _ => return Err(r.corrupt()),
    })
}

/// Steps over one encoded value, checking its tag and length as [`decode_value`] does, without
/// building it (loading a checkpoint and finding a column of a row image).
pub(crate) fn skip_value(r: &mut Reader<'_>) -> Result<()> {
    let n = match r.u8()? {
        0 => 0,
        1 | 2 | 3 | 42 => 8,
        4 => 17,
        5 | 20 => r.u32()? as usize,
        6 => 11,
        40 | 41 => 4,
        43 => 33,
        _ => return Err(r.corrupt()),
    };
    r.take(n)?;
    Ok(())
}

// Format (row): u16 column count | values.
pub(crate) fn encode_row(out: &mut Vec<u8>, row: &[Value]) {
    out.put_u16(row.len() as u16);
    for v in row {
        encode_value(out, v);
    }
}

pub(crate) fn decode_row(r: &mut Reader<'_>) -> Result<Row> {
    let n = r.u16()?;
    (0..n).map(|_| decode_value(r)).collect()
}

/// Appends the order-preserving encoding of `v` (see the module docs), strings as bytes.
pub(crate) fn encode_key_part(out: &mut Vec<u8>, v: &Value) {
    encode_key_part_in(out, v, collation::BINARY)
}

/// Appends the order-preserving encoding of `v`, a string under collation `coll`.
pub(crate) fn encode_key_part_in(out: &mut Vec<u8>, v: &Value, coll: u16) {
    match v {
        Value::Null => out.push(0),
        Value::Int(i) => {
            out.push(1);
            out.extend_from_slice(&((*i as u64) ^ (1 << 63)).to_be_bytes());
        }
        Value::UInt(u) => {
            out.push(1);
            out.extend_from_slice(&u.to_be_bytes());
        }
        Value::Double(d) => {
            // -0.0 and 0.0 are equal in SQL, so they must encode the same.
            let bits = if *d == 0.0 { 0 } else { d.to_bits() };
            let ordered = if bits >> 63 == 1 { !bits } else { bits ^ (1 << 63) };
            out.push(1);
            out.extend_from_slice(&ordered.to_be_bytes());
        }
        Value::Decimal(d) => {
            // Values of one column share the column's scale (normalized on write), so the
            // mantissa alone orders them. A mantissa of at most 38 digits (every value of a
            // DECIMAL(p <= 38) column, and keys written before DECIMAL(65)) is 16 bytes, as
            // before; a wider one (only in DECIMAL(39..65)) is 16 bytes 0xFF (positive) or
            // 0x00 (negative) and its 32-byte form, which sorts beyond every narrow key.
            out.push(1);
            match d.mantissa_i128().filter(|m| m.unsigned_abs() < 10u128.pow(38)) {
                Some(m) => out.extend_from_slice(&((m as u128) ^ (1 << 127)).to_be_bytes()),
                None => {
                    let fill = if d.mantissa.is_negative() { 0x00 } else { 0xFF };
                    out.extend_from_slice(&[fill; 16]);
                    let bits = *d.mantissa.to_bits().digits();
                    for (i, w) in bits.iter().enumerate().rev() {
                        let w = if i == 3 { w ^ (1 << 63) } else { *w };
                        out.extend_from_slice(&w.to_be_bytes());
                    }
                }
            }
        }
        Value::Bytes(b) | Value::Json(b) => {
            // Binary: 0x00 is escaped as 0x00 0xFF and the string ends with 0x00 0x01, so a
            // string sorts before any longer string it prefixes. Other collations: their
            // self-delimiting sort key (never starting with 0xFF).
            out.push(1);
            match collation::by_id(coll).map(|c| c.charset) {
                // latin1/ascii columns hold their values as UTF-8 for now (the SQL layer checks
                // that each is representable): the key is the sort key of the value in the
                // column's own character set, so keys agree with the SQL layer's comparisons.
                Some(cs @ (collation::Charset::Latin1 | collation::Charset::Ascii))
                    if !b.is_ascii() && std::str::from_utf8(b).is_ok() =>
                {
                    let text = std::str::from_utf8(b).unwrap_or_default();
                    let mut own = Vec::with_capacity(b.len());
                    for c in text.chars() {
                        let mut buf = [0u8; 4];
                        match collation::convert_from_utf8(cs, c.encode_utf8(&mut buf).as_bytes()) {
                            Ok(x) => own.extend_from_slice(&x),
                            Err(_) => own.push(b'?'),
                        }
                    }
                    collation::sort_key(coll, &own, out);
                }
                _ => collation::sort_key(coll, b, out),
            }
        }
        Value::DateTime(t) | Value::Date(t) => {
            out.push(1);
            out.extend_from_slice(&t.packed().to_be_bytes());
        }
        Value::Float(f) => encode_key_part(out, &Value::Double(f64::from(*f))),
        Value::Time(t) => {
            out.push(1);
            out.extend_from_slice(&((*t as u64) ^ (1 << 63)).to_be_bytes());
        }
    }
}

/// `YYYY-MM-DD`.
pub struct DateText(pub DateTime);

impl fmt::Display for DateText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.0.year, self.0.month, self.0.day)
    }
}

/// `[-]HH:MM:SS[.f]` of signed microseconds: with `Some(fsp)` exactly fsp fraction digits,
/// with None six digits when there is a fraction (mysqld's `my_time_to_str`).
pub struct TimeText(pub i64, pub Option<u8>);

impl fmt::Display for TimeText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let abs = self.0.unsigned_abs();
        let (secs, micros) = (abs / 1_000_000, abs % 1_000_000);
        write!(f, "{sign}{:02}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60)?;
        write_fraction(f, micros as u32, self.1)
    }
}

/// The fraction of a temporal value: `fsp` digits, or six when None and non-zero.
pub fn write_fraction(f: &mut dyn fmt::Write, micros: u32, fsp: Option<u8>) -> fmt::Result {
    let digits = match fsp {
        Some(0) => return Ok(()),
        Some(n) => usize::from(n.min(6)),
        None if micros == 0 => return Ok(()),
        None => 6,
    };
    let text = format!("{micros:06}");
    write!(f, ".{}", &text[..digits])
}

/// An encoded key (primary or secondary index).
pub type Key = Box<[u8]>;

/// Encodes values as one key (strings compared as bytes: the `binary` collation).
pub fn encode_key(values: &[Value]) -> Key {
    let mut out = Vec::with_capacity(values.len() * 10);
    for v in values {
        encode_key_part(&mut out, v);
    }
    out.into_boxed_slice()
}

/// Encodes values as one key, string `values[i]` under collation `colls[i]` (missing: binary):
/// equal keys iff the values are equal under their collations (GROUP BY, DISTINCT, write sets).
pub fn encode_key_collated(values: &[Value], colls: &[u16]) -> Key {
    let mut out = Vec::with_capacity(values.len() * 10);
    for (i, v) in values.iter().enumerate() {
        encode_key_part_in(&mut out, v, colls.get(i).copied().unwrap_or(collation::BINARY));
    }
    out.into_boxed_slice()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_order_matches_value_order() {
        let ints = [i64::MIN, -5, -1, 0, 1, 7, i64::MAX];
        for w in ints.windows(2) {
            assert!(encode_key(&[Value::Int(w[0])]) < encode_key(&[Value::Int(w[1])]));
        }
        let dbl = [f64::NEG_INFINITY, -2.5, -0.1, 0.0, 1e-9, 3.0, f64::INFINITY];
        for w in dbl.windows(2) {
            assert!(encode_key(&[Value::Double(w[0])]) < encode_key(&[Value::Double(w[1])]));
        }
        let strs: [&[u8]; 5] = [b"", b"a", b"a\0", b"a\0b", b"ab"];
        for w in strs.windows(2) {
            let a = encode_key(&[Value::Bytes(w[0].to_vec()), Value::Int(9)]);
            let b = encode_key(&[Value::Bytes(w[1].to_vec()), Value::Int(0)]);
            assert!(a < b, "{:?} < {:?}", w[0], w[1]);
        }
        assert!(encode_key(&[Value::Null]) < encode_key(&[Value::Int(i64::MIN)]));
        assert_eq!(encode_key(&[Value::Double(-0.0)]), encode_key(&[Value::Double(0.0)]));
    }

    /// DECIMAL(65,30) keys (issue 19): mantissas beyond 38 digits sort with the narrow ones,
    /// narrow keys keep their 16-byte form (data files from before), and wide values survive
    /// the row encoding.
    #[test]
    fn wide_decimal_keys_order_and_rows_round_trip() {
        let nines = format!("{}.{}", "9".repeat(35), "9".repeat(30));
        // Ascending: DECIMAL(65,30)'s extremes (35 integral digits) lie inside ±10^38.
        let texts = [
            "-100000000000000000000000000000000000000".to_string(),
            "-99999999999999999999999999999999999999".to_string(),
            format!("-{nines}"),
            "-1".to_string(),
            "0".to_string(),
            "0.000000000000000000000000000001".to_string(),
            nines.clone(),
            "99999999999999999999999999999999999999".to_string(),
            "100000000000000000000000000000000000000".to_string(),
        ];
        let values: Vec<Value> = texts
            .iter()
            .map(|t| Value::Decimal(Decimal::parse(t).unwrap().rescale(30).unwrap()))
            .collect();
        for w in values.windows(2) {
            assert!(encode_key(&w[..1]) < encode_key(&w[1..]), "{} < {}", w[0], w[1]);
        }
        let narrow = encode_key(&[Value::Decimal(Decimal::new(-12345, 2))]);
        assert_eq!(narrow.len(), 17, "1 flag byte + the i128 form");
        let mut buf = Vec::new();
        encode_row(&mut buf, &values);
        let back = decode_row(&mut Reader::new(&buf, "test", 0)).expect("decodes");
        assert_eq!(back, values);
        assert_eq!(back[6].to_string(), nines);
    }

    #[test]
    fn decimal_parse_display_rescale() {
        let d = Decimal::parse("-12.345").expect("valid");
        assert_eq!(d.to_string(), "-12.345");
        assert_eq!(d.rescale(2).expect("fits").to_string(), "-12.35");
        assert_eq!(d.rescale(5).expect("fits").to_string(), "-12.34500");
        assert_eq!(Decimal::parse("0.05").expect("valid").to_string(), "0.05");
        assert_eq!(d.integral_digits(), 2);
        assert!(Decimal::parse("1x").is_none());
    }

    #[test]
    fn row_roundtrip() {
        let t =
            DateTime { year: 2024, month: 2, day: 29, hour: 1, minute: 2, second: 3, micros: 4 };
        let row = vec![
            Value::Null,
            Value::Int(-3),
            Value::UInt(u64::MAX),
            Value::Double(1.5),
            Value::Decimal(Decimal::new(-12345, 2)),
            Value::Bytes(b"hi\0".to_vec()),
            Value::DateTime(t),
            Value::Float(0.1),
            Value::Date(DateTime { hour: 0, minute: 0, second: 0, micros: 0, ..t }),
            Value::Time(-3_020_399_000_000),
        ];
        let mut buf = Vec::new();
        encode_row(&mut buf, &row);
        let mut r = Reader::new(&buf, "row", 0);
        assert_eq!(decode_row(&mut r).expect("decodes"), row);
        for cut in 0..buf.len() {
            assert!(decode_row(&mut Reader::new(&buf[..cut], "row", 0)).is_err());
        }
    }
}
