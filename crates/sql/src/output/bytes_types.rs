//! The SQL side of issue 19's byte types: BINARY/VARBINARY, TINY/MEDIUM/LONG BLOB and TEXT,
//! ENUM, SET, BIT and JSON, and integer display widths/ZEROFILL: conversion of a value for
//! storage in strict mode (mysqld's `Field_*::store`), the type text of SHOW CREATE TABLE /
//! SHOW COLUMNS / information_schema.COLUMNS, and the result column definition mysqld sends
//! (`Field_*::make_send_field`: ENUM/SET go as MYSQL_TYPE_STRING with ENUM_FLAG/SET_FLAG, TEXT
//! and BLOB as MYSQL_TYPE_BLOB with BLOB_FLAG, binary strings with charset 63 and BINARY_FLAG,
//! JSON as MYSQL_TYPE_JSON with charset 63, BIT as MYSQL_TYPE_BIT with UNSIGNED_FLAG).
//!
//! Errors are mysqld's: 1406 (data too long), 1265 (ENUM/SET value not a member: "Data
//! truncated"), 3140 (invalid JSON text), 3157 (JSON too deep).

use engine::json::{Json, JsonError};
use engine::{Column, ColumnType, Value};

use crate::error::{Result, SqlError};
use crate::output::{flags, MysqlType, CHARSET_BINARY, CHARSET_UTF8MB4};

/// Whether `ty` is one of this module's types.
pub(crate) fn is_bytes_type(ty: ColumnType) -> bool {
    matches!(
        ty,
        ColumnType::Binary(_)
            | ColumnType::VarBinary(_)
            | ColumnType::Blob { .. }
            | ColumnType::SizedText { .. }
            | ColumnType::Enum
            | ColumnType::Set
            | ColumnType::Bit(_)
            | ColumnType::Json
    )
}

/// BLOB, TEXT and JSON columns have no `DEFAULT NULL` in SHOW CREATE TABLE (mysqld prints
/// no default for types that cannot have a literal one).
pub(crate) fn is_blob_like(ty: ColumnType) -> bool {
    matches!(
        ty,
        ColumnType::Text
            | ColumnType::Blob { .. }
            | ColumnType::SizedText { .. }
            | ColumnType::Json
    )
}

/// Whether the column holds binary strings (charset `binary`).
pub(crate) fn is_binary_string(ty: ColumnType) -> bool {
    matches!(
        ty,
        ColumnType::Binary(_)
            | ColumnType::VarBinary(_)
            | ColumnType::Blob { .. }
            | ColumnType::Bit(_)
    )
}

/// `3140 Invalid JSON text` for a value stored in `column`.
pub(crate) fn json_text_error(e: JsonError, column: &str) -> SqlError {
    match e {
        JsonError::TooDeep => too_deep(),
        JsonError::Syntax { reason, pos } => SqlError::Other {
            code: 3140,
            sqlstate: "22032",
            message: format!(
                "Invalid JSON text: \"{reason}\" at position {pos} in value for column '{column}'."
            ),
        },
    }
}

/// 3157, the document is deeper than 100.
pub(crate) fn too_deep() -> SqlError {
    SqlError::Other {
        code: 3157,
        sqlstate: "22032",
        message: "The JSON document exceeds the maximum depth.".into(),
    }
}

fn truncated(col: &Column, row: u64) -> SqlError {
    SqlError::Other {
        code: 1265,
        sqlstate: "01000",
        message: format!("Data truncated for column '{}' at row {row}", col.name),
    }
}

/// A value as text for string storage (numbers printed as MySQL prints them).
fn text_of(v: &Value) -> Vec<u8> {
    match v {
        Value::Bytes(b) | Value::Json(b) => b.clone(),
        v => v.to_string().into_bytes(),
    }
}

/// An integer in a numeric context, if `v` is one (ENUM index, SET mask, BIT value).
fn as_uint(v: &Value) -> Option<Option<u64>> {
    Some(match v {
        Value::Int(i) => u64::try_from(*i).ok(),
        Value::UInt(u) => Some(*u),
        Value::Double(d) => (d.round() >= 0.0 && d.round() < 1.8e19).then_some(d.round() as u64),
        Value::Decimal(d) => {
            d.rescale(0).and_then(|r| r.mantissa_i128()).and_then(|r| u64::try_from(r).ok())
        }
        _ => return None,
    })
}

/// Converts `v` for storage in `col` of one of this module's types (strict mode).
pub(crate) fn to_column(v: Value, col: &Column, row: u64) -> Result<Value> {
    let too_long = || SqlError::DataTooLong { column: col.name.clone(), row };
    Ok(match col.ty {
        ColumnType::Json => match v {
            Value::Json(_) => v,
            Value::Bytes(b) => {
                Value::Json(Json::parse(&b).map_err(|e| json_text_error(e, &col.name))?.to_text())
            }
            _ => {
                return Err(SqlError::Other {
                    code: 3140,
                    sqlstate: "22032",
                    message: format!(
                        "Invalid JSON text: \"not a JSON text, may need CAST\" at position 0 in \
                         value for column '{}'.",
                        col.name
                    ),
                })
            }
        },
        ColumnType::Enum => match as_uint(&v) {
            Some(Some(i)) if i >= 1 && i <= col.elements.len() as u64 => {
                Value::Bytes(col.elements[i as usize - 1].as_bytes().to_vec())
            }
            Some(_) => return Err(truncated(col, row)),
            None => {
                let b = text_of(&v);
                let i = engine::enum_index(col, &b).ok_or_else(|| truncated(col, row))?;
                Value::Bytes(col.elements[usize::from(i) - 1].as_bytes().to_vec())
            }
        },
        ColumnType::Set => match as_uint(&v) {
            Some(Some(m)) if col.elements.len() >= 64 || m >> col.elements.len() == 0 => {
                Value::Bytes(engine::set_text(col, m))
            }
            Some(_) => return Err(truncated(col, row)),
            None => {
                let m = engine::set_mask(col, &text_of(&v)).ok_or_else(|| truncated(col, row))?;
                Value::Bytes(engine::set_text(col, m))
            }
        },
        ColumnType::Bit(n) => {
            let x = match as_uint(&v) {
                Some(Some(x)) => x,
                Some(None) => return Err(too_long()),
                None => engine::bit_to_uint(&text_of(&v)).ok_or_else(too_long)?,
            };
            Value::Bytes(engine::bit_from_uint(x, n).ok_or_else(too_long)?)
        }
        _ => {
            let b = text_of(&v);
            let max = match col.ty {
                ColumnType::Binary(n) | ColumnType::VarBinary(n) => u64::from(n),
                ColumnType::Blob { len_bytes } | ColumnType::SizedText { len_bytes } => {
                    ColumnType::blob_max_bytes(len_bytes)
                }
                _ => u64::MAX,
            };
            if b.len() as u64 > max {
                return Err(too_long());
            }
            let mut b = b;
            if let ColumnType::Binary(n) = col.ty {
                b.resize(n as usize, 0);
            }
            Value::Bytes(b)
        }
    })
}

/// `v` as a key value of `ty` (for index lookups), if it converts exactly.
pub(crate) fn key_value(v: &Value, ty: ColumnType) -> Option<Value> {
    match (ty, v) {
        (ColumnType::Json, _) => None,
        (ColumnType::Binary(n), Value::Bytes(b)) if b.len() <= n as usize => {
            let mut b = b.clone();
            b.resize(n as usize, 0);
            Some(Value::Bytes(b))
        }
        // ENUM/SET are stored canonically (declared spelling); a lookup by another spelling
        // or a number would miss, so those fall back to a scan.
        (ColumnType::Enum | ColumnType::Set | ColumnType::Bit(_), _) => None,
        (_, Value::Bytes(_)) => Some(v.clone()),
        _ => None,
    }
}

fn quote_member(m: &str) -> String {
    format!("'{}'", m.replace('\'', "''"))
}

/// The type text SHOW CREATE TABLE prints for `c` if its type is one of this module's, or an
/// integer with a display width or ZEROFILL (MySQL 8.0.19+ prints a width only for ZEROFILL
/// columns and TINYINT(1), the boolean convention of Connector/J).
pub(crate) fn column_type_text(c: &Column) -> Option<String> {
    Some(match c.ty {
        ColumnType::Integer { bytes, unsigned } if c.display_width != 0 || c.zerofill => {
            let base = match bytes {
                1 => "tinyint",
                2 => "smallint",
                3 => "mediumint",
                4 => "int",
                _ => "bigint",
            };
            let mut s = base.to_string();
            if c.zerofill || (bytes == 1 && c.display_width == 1) {
                s.push_str(&format!("({})", c.display_width.max(1)));
            }
            if unsigned {
                s.push_str(" unsigned");
            }
            if c.zerofill {
                s.push_str(" zerofill");
            }
            s
        }
        ColumnType::Enum | ColumnType::Set => format!(
            "{}({})",
            if c.ty == ColumnType::Enum { "enum" } else { "set" },
            c.elements.iter().map(|m| quote_member(m)).collect::<Vec<_>>().join(",")
        ),
        ty if is_bytes_type(ty) => type_text(ty),
        _ => return None,
    })
}

/// The type text of one of this module's types without its members.
pub(crate) fn type_text(ty: ColumnType) -> String {
    match ty {
        ColumnType::Binary(n) => format!("binary({n})"),
        ColumnType::VarBinary(n) => format!("varbinary({n})"),
        ColumnType::Blob { len_bytes } => ["tinyblob", "blob", "mediumblob", "longblob"]
            [usize::from(len_bytes.clamp(1, 4)) - 1]
            .into(),
        ColumnType::SizedText { len_bytes } => ["tinytext", "text", "mediumtext", "longtext"]
            [usize::from(len_bytes.clamp(1, 4)) - 1]
            .into(),
        ColumnType::Enum => "enum".into(),
        ColumnType::Set => "set".into(),
        ColumnType::Bit(n) => format!("bit({n})"),
        ColumnType::Json => "json".into(),
        _ => String::new(),
    }
}

/// information_schema.COLUMNS's CHARACTER_MAXIMUM_LENGTH / NUMERIC_PRECISION for these types.
pub(crate) fn info_lengths(c: &Column) -> (Option<u64>, Option<u64>) {
    match c.ty {
        ColumnType::Binary(n) | ColumnType::VarBinary(n) => (Some(u64::from(n)), None),
        ColumnType::Blob { len_bytes } | ColumnType::SizedText { len_bytes } => {
            (Some(ColumnType::blob_max_bytes(len_bytes)), None)
        }
        ColumnType::Enum => {
            (Some(c.elements.iter().map(|e| e.chars().count() as u64).max().unwrap_or(0)), None)
        }
        ColumnType::Set => (
            Some(
                c.elements.iter().map(|e| e.chars().count() as u64).sum::<u64>()
                    + c.elements.len().saturating_sub(1) as u64,
            ),
            None,
        ),
        ColumnType::Bit(n) => (None, Some(u64::from(n))),
        _ => (None, None),
    }
}

/// The protocol type of a column of these types.
pub(crate) fn mysql_type(ty: ColumnType) -> MysqlType {
    match ty {
        ColumnType::Binary(_) | ColumnType::Enum | ColumnType::Set => MysqlType::String,
        ColumnType::VarBinary(_) => MysqlType::VarString,
        ColumnType::Bit(_) => MysqlType::Bit,
        ColumnType::Json => MysqlType::Json,
        _ => MysqlType::Blob,
    }
}

/// (type, column_length, flags, decimals, charset) mysqld sends for a table column of these
/// types (`Field::make_send_field`; lengths in bytes, text ones for utf8mb4 as the caller's
/// `for_results` rescales).
pub(crate) fn send_field(c: &Column) -> (MysqlType, u32, u16, u8, u16) {
    let blob_len =
        |len_bytes: u8| ColumnType::blob_max_bytes(len_bytes).min(u64::from(u32::MAX)) as u32;
    match c.ty {
        ColumnType::Binary(n) => (MysqlType::String, n, flags::BINARY, 0, CHARSET_BINARY),
        ColumnType::VarBinary(n) => (MysqlType::VarString, n, flags::BINARY, 0, CHARSET_BINARY),
        ColumnType::Blob { len_bytes } => {
            (MysqlType::Blob, blob_len(len_bytes), flags::BLOB | flags::BINARY, 0, CHARSET_BINARY)
        }
        ColumnType::SizedText { len_bytes } => {
            // TEXT lengths are bytes; the stored length is "× 4" like other text columns, and
            // `for_results` divides by 4 (LONGTEXT stays 4 GiB − 1, as mysqld caps it).
            let len = blob_len(len_bytes);
            (MysqlType::Blob, len.saturating_mul(4), flags::BLOB, 0, CHARSET_UTF8MB4)
        }
        ColumnType::Enum => {
            let chars = c.elements.iter().map(|e| e.chars().count() as u32).max().unwrap_or(0);
            (MysqlType::String, chars * 4, flags::ENUM, 0, CHARSET_UTF8MB4)
        }
        ColumnType::Set => {
            let chars = c.elements.iter().map(|e| e.chars().count() as u32).sum::<u32>()
                + c.elements.len().saturating_sub(1) as u32;
            (MysqlType::String, chars * 4, flags::SET, 0, CHARSET_UTF8MB4)
        }
        ColumnType::Bit(n) => (MysqlType::Bit, u32::from(n), flags::UNSIGNED, 0, CHARSET_BINARY),
        ColumnType::Json => {
            (MysqlType::Json, u32::MAX, flags::BLOB | flags::BINARY, 0, CHARSET_BINARY)
        }
        _ => (MysqlType::Blob, 0, 0, 0, CHARSET_BINARY),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_storage_errors_are_mysqlds() {
        let e = Column::new("e", ColumnType::Enum).with_elements(vec!["a".into(), "b".into()]);
        assert_eq!(to_column(Value::Int(2), &e, 1).unwrap(), Value::Bytes(b"b".to_vec()));
        let err = to_column(Value::Bytes(b"c".to_vec()), &e, 3).unwrap_err();
        assert_eq!(
            (err.code(), err.to_string().as_str()),
            (1265, "Data truncated for column 'e' at row 3")
        );
        assert_eq!(to_column(Value::Int(0), &e, 1).unwrap_err().code(), 1265);
        let s = Column::new("s", ColumnType::Set).with_elements(vec!["a".into(), "b".into()]);
        assert_eq!(to_column(Value::Int(3), &s, 1).unwrap(), Value::Bytes(b"a,b".to_vec()));
        assert_eq!(to_column(Value::Int(4), &s, 1).unwrap_err().code(), 1265);
        let j = Column::new("j", ColumnType::Json);
        let err = to_column(Value::Bytes(b"{\"a\" 1}".to_vec()), &j, 1).unwrap_err();
        assert_eq!(err.code(), 3140);
        assert_eq!(
            err.to_string(),
            "Invalid JSON text: \"Missing a colon after a name of object member.\" at position 5 \
             in value for column 'j'."
        );
        assert_eq!(to_column(Value::Int(1), &j, 1).unwrap_err().code(), 3140);
        let deep = "[".repeat(101) + &"]".repeat(101);
        assert_eq!(to_column(Value::Bytes(deep.into_bytes()), &j, 1).unwrap_err().code(), 3157);
        let bit = Column::new("b", ColumnType::Bit(3));
        assert_eq!(to_column(Value::Int(5), &bit, 1).unwrap(), Value::Bytes(vec![5]));
        assert_eq!(to_column(Value::Int(8), &bit, 1).unwrap_err().code(), 1406);
        let tiny = Column::new("t", ColumnType::SizedText { len_bytes: 1 });
        assert_eq!(to_column(Value::Bytes(vec![b'x'; 256]), &tiny, 1).unwrap_err().code(), 1406);
        let bin = Column::new("b", ColumnType::Binary(3));
        assert_eq!(to_column(Value::Int(7), &bin, 1).unwrap(), Value::Bytes(b"7\0\0".to_vec()));
    }
}
