//! Storage rules of the binary-string, BLOB/TEXT, ENUM, SET, BIT and JSON column types
//! (issue 19): what [`crate::TableSchema::normalize_row`] accepts for them and the canonical
//! form it stores, mysqld's `Field_string`/`Field_varstring`/`Field_blob`/`Field_enum`/
//! `Field_set`/`Field_bit`/`Field_json` `store` rules in strict mode.
//!
//! Representation (all [`Value::Bytes`] except JSON):
//! - BINARY(n): exactly n bytes, right-padded with 0x00 (`Field_string::store` pads binary
//!   strings with the charset's pad character, 0x00 for `binary`).
//! - ENUM: the member's declared text (matched case-insensitively, as under the column's
//!   `_ci` collation). The member index (1-based) is what the binlog carries
//!   ([`enum_index`]).
//! - SET: the members present, in declaration order, joined by `,` (duplicates dropped,
//!   `Field_set::store` → `find_set`); the bitmask is what the binlog carries ([`set_mask`]).
//! - BIT(n): ⌈n/8⌉ big-endian bytes, the value below 2^n (`Field_bit::store`).
//! - JSON: [`Value::Json`], the canonical text of a parsed document.
//!
//! Invariants: normalization is idempotent (a normalized value is stored as is), and a value it
//! refuses is left unchanged.

use crate::error::{Error, Result};
use crate::json::Json;
use crate::schema::{Column, ColumnType};
use crate::value::Value;

/// Whether two member names match (case-insensitively, as the default `_ci` collation; trailing
/// spaces are not significant in ENUM/SET members, which mysqld strips at definition).
fn member_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.trim_end_matches(' '), b.trim_end_matches(' '));
    a.len() == b.len() && a.eq_ignore_ascii_case(b) || a.to_lowercase() == b.to_lowercase()
}

/// The 1-based index of an ENUM member named `text` (None if it is no member).
pub fn enum_index(col: &Column, text: &[u8]) -> Option<u16> {
    let s = std::str::from_utf8(text).ok()?;
    col.elements.iter().position(|e| member_eq(e, s)).and_then(|i| u16::try_from(i + 1).ok())
}

/// The bitmask of a SET value's text (None if a part is no member). The empty string is 0.
pub fn set_mask(col: &Column, text: &[u8]) -> Option<u64> {
    let s = std::str::from_utf8(text).ok()?;
    if s.is_empty() {
        return Some(0);
    }
    let mut mask = 0u64;
    for part in s.split(',') {
        let i = col.elements.iter().position(|e| member_eq(e, part))?;
        mask |= 1u64.checked_shl(u32::try_from(i).ok()?)?;
    }
    Some(mask)
}

/// The canonical text of a SET bitmask (bits beyond the members are ignored).
pub fn set_text(col: &Column, mask: u64) -> Vec<u8> {
    let parts: Vec<&str> = col
        .elements
        .iter()
        .enumerate()
        .filter(|(i, _)| *i < 64 && mask & (1u64 << i) != 0)
        .map(|(_, e)| e.as_str())
        .collect();
    parts.join(",").into_bytes()
}

/// A BIT value's bytes as a number (big-endian; leading bytes beyond 8 must be zero).
pub fn bit_to_uint(b: &[u8]) -> Option<u64> {
    let start = b.len().saturating_sub(8);
    if b[..start].iter().any(|&x| x != 0) {
        return None;
    }
    Some(b[start..].iter().fold(0u64, |acc, &x| acc << 8 | u64::from(x)))
}

/// A number as BIT(n)'s ⌈n/8⌉ big-endian bytes; None if it needs more than n bits.
pub fn bit_from_uint(v: u64, bits: u8) -> Option<Vec<u8>> {
    if bits < 64 && v >> bits != 0 {
        return None;
    }
    let len = usize::from(bits).div_ceil(8);
    Some(v.to_be_bytes()[8 - len..].to_vec())
}

pub(crate) fn normalize(col: &Column, v: &mut Value) -> Result<()> {
    let too_long = || Error::DataTooLong { column: col.name.clone() };
    let wrong = || Error::WrongValue { column: col.name.clone() };
    if col.ty == ColumnType::Json {
        let canonical = match v {
            Value::Json(_) => return Ok(()),
            Value::Bytes(b) => Json::parse(b).map_err(|_| wrong())?.to_text(),
            _ => return Err(wrong()),
        };
        *v = Value::Json(canonical);
        return Ok(());
    }
    let Value::Bytes(b) = v else { return Err(wrong()) };
    match col.ty {
        ColumnType::Binary(n) => {
            if b.len() > n as usize {
                return Err(too_long());
            }
            b.resize(n as usize, 0);
        }
        ColumnType::VarBinary(n) => {
            if b.len() > n as usize {
                return Err(too_long());
            }
        }
        ColumnType::Blob { len_bytes } | ColumnType::SizedText { len_bytes } => {
            if b.len() as u64 > ColumnType::blob_max_bytes(len_bytes) {
                return Err(too_long());
            }
        }
        ColumnType::Enum => {
            let i = enum_index(col, b).ok_or_else(wrong)?;
            let canonical = col.elements[usize::from(i) - 1].as_bytes();
            if b.as_slice() != canonical {
                *b = canonical.to_vec();
            }
        }
        ColumnType::Set => {
            let mask = set_mask(col, b).ok_or_else(wrong)?;
            let canonical = set_text(col, mask);
            if *b != canonical {
                *b = canonical;
            }
        }
        ColumnType::Bit(n) => {
            let x = bit_to_uint(b).ok_or_else(too_long)?;
            *b = bit_from_uint(x, n).ok_or_else(too_long)?;
        }
        _ => return Err(wrong()),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(col: &Column, v: &[u8]) -> Result<Vec<u8>> {
        let mut v = Value::Bytes(v.to_vec());
        normalize(col, &mut v)?;
        match v {
            Value::Bytes(b) | Value::Json(b) => Ok(b),
            _ => unreachable!("normalize keeps bytes"),
        }
    }

    #[test]
    fn storage_forms() {
        let bin = Column::new("b", ColumnType::Binary(4));
        assert_eq!(norm(&bin, b"ab").unwrap(), b"ab\0\0");
        assert_eq!(norm(&bin, b"ab\0\0").unwrap(), b"ab\0\0");
        assert!(matches!(norm(&bin, b"abcde"), Err(Error::DataTooLong { .. })));
        let tiny = Column::new("t", ColumnType::Blob { len_bytes: 1 });
        assert!(norm(&tiny, &[7; 255]).is_ok());
        assert!(matches!(norm(&tiny, &[7; 256]), Err(Error::DataTooLong { .. })));
        let e = Column::new("e", ColumnType::Enum).with_elements(vec![
            "small".into(),
            "Medium".into(),
            "large".into(),
        ]);
        assert_eq!(norm(&e, b"MEDIUM").unwrap(), b"Medium");
        assert_eq!(enum_index(&e, b"large"), Some(3));
        assert!(matches!(norm(&e, b"huge"), Err(Error::WrongValue { .. })));
        let s = Column::new("s", ColumnType::Set).with_elements(vec![
            "a".into(),
            "b".into(),
            "c".into(),
        ]);
        assert_eq!(norm(&s, b"c,A,c").unwrap(), b"a,c");
        assert_eq!(set_mask(&s, b"a,c"), Some(5));
        assert_eq!(norm(&s, b"").unwrap(), b"");
        assert!(norm(&s, b"a,d").is_err());
        let bit = Column::new("x", ColumnType::Bit(10));
        assert_eq!(norm(&bit, &[5]).unwrap(), vec![0, 5]);
        assert_eq!(norm(&bit, &[0, 0, 3, 0xff]).unwrap(), vec![3, 0xff]);
        assert!(norm(&bit, &[4, 0]).is_err());
        assert_eq!(bit_from_uint(u64::MAX, 64).unwrap(), vec![0xff; 8]);
        let j = Column::new("j", ColumnType::Json);
        assert_eq!(norm(&j, br#"{"b":1,"a":[true]}"#).unwrap(), br#"{"a": [true], "b": 1}"#);
        assert!(norm(&j, b"{").is_err());
    }
}
