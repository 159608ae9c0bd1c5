//! Row-image values of issue 19's types as the engine stores them (the inverse of
//! `commit::cache_bytes`): BINARY padded back with 0x00, ENUM index and SET bitmask to their
//! member text, BIT bytes to ⌈n/8⌉ bytes, binary JSON (`engine::json::from_binary`, bounded)
//! to its canonical text. Used when a replica applies a source's ROWS events.

use binlog::event::Value as BinValue;
use engine::{Column, ColumnType, Value};

pub(crate) fn handles(ty: ColumnType) -> bool {
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

fn le(b: &[u8]) -> Option<u64> {
    if b.len() > 8 {
        return None;
    }
    Some(b.iter().rev().fold(0u64, |acc, &x| acc << 8 | u64::from(x)))
}

pub(crate) fn to_engine_value(v: &BinValue, c: &Column) -> Result<Value, String> {
    let mismatch = || format!("{v:?} does not fit {:?}", c.ty);
    Ok(match (v, c.ty) {
        (BinValue::Null, _) => Value::Null,
        (BinValue::Bytes(b), ColumnType::Binary(n)) => {
            let mut b = b.clone();
            if b.len() > n as usize {
                return Err(mismatch());
            }
            b.resize(n as usize, 0);
            Value::Bytes(b)
        }
        (BinValue::Bytes(b), ColumnType::VarBinary(_) | ColumnType::Blob { .. }) => {
            Value::Bytes(b.clone())
        }
        // TEXT in the column's character set's bytes; the engine holds UTF-8.
        (BinValue::Bytes(b), ColumnType::SizedText { .. }) => {
            Value::Bytes(collation::decode(c.charset(), b).into_owned())
        }
        (BinValue::Raw(b), ColumnType::Enum) => {
            let i = le(b).ok_or_else(mismatch)?;
            match usize::try_from(i).ok().and_then(|i| c.elements.get(i.checked_sub(1)?)) {
                Some(name) => Value::Bytes(name.as_bytes().to_vec()),
                None if i == 0 => Value::Bytes(Vec::new()),
                None => return Err(mismatch()),
            }
        }
        (BinValue::Raw(b), ColumnType::Set) => {
            Value::Bytes(engine::set_text(c, le(b).ok_or_else(mismatch)?))
        }
        (BinValue::Raw(b), ColumnType::Bit(n)) => {
            let x = engine::bit_to_uint(b).ok_or_else(mismatch)?;
            Value::Bytes(engine::bit_from_uint(x, n).ok_or_else(mismatch)?)
        }
        (BinValue::Raw(b), ColumnType::Json) => {
            // 4-byte length, then binary JSON (an empty value is JSON null, as mysqld reads it).
            let body = b.get(4..).ok_or_else(mismatch)?;
            if body.is_empty() {
                Value::Json(b"null".to_vec())
            } else {
                let doc = engine::json::from_binary(body).ok_or_else(mismatch)?;
                Value::Json(doc.to_text())
            }
        }
        _ => return Err(mismatch()),
    })
}
