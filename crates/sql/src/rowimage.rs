//! Row images of ROWS events (binlog values) → the engine's row values, for the replica
//! applier (`replication::replica::apply`) and the `BINLOG '…'` statement (binlogstmt.rs): a
//! full row image (`binlog_row_image=FULL`, what binlogd and mysqld by default write) must
//! have one value per column, each of the column's type (mysqld's `unpack_row`). [`Replay`]
//! is what a session's `BINLOG` statements established (kept here, below the session).

use std::collections::HashMap;

use binlog::event::{FormatContext, TableMap, Value as BinValue};
use engine::{ColumnType, Row, TableSchema, Value};

/// A session's `BINLOG '…'` replay state (mysqld's `thd->rli_fake`).
#[derive(Debug, Default)]
pub(crate) struct Replay {
    pub(crate) format: Option<FormatContext>,
    pub(crate) maps: HashMap<u64, TableMap>,
}

/// Converts a full row image to the engine's values for `schema`; Err names the column.
pub fn to_engine_row(schema: &TableSchema, values: &[BinValue]) -> Result<Row, (usize, String)> {
    if values.len() != schema.columns.len() {
        return Err((
            values.len().min(schema.columns.len()),
            format!(
                "the row image has {} columns, the table {} (binlogd applies full row images)",
                values.len(),
                schema.columns.len()
            ),
        ));
    }
    values
        .iter()
        .zip(&schema.columns)
        .enumerate()
        .map(|(i, (v, c))| {
            if crate::rowimage_bytes::handles(c.ty) {
                return crate::rowimage_bytes::to_engine_value(v, c).map_err(|why| (i, why));
            }
            to_engine_value(v, c.ty, c.charset()).map_err(|why| (i, why))
        })
        .collect()
}

fn to_engine_value(v: &BinValue, ty: ColumnType, cs: collation::Charset) -> Result<Value, String> {
    let mismatch = || format!("{v:?} does not fit {ty:?}");
    Ok(match (v, ty) {
        (BinValue::Null, _) => Value::Null,
        (BinValue::Int(i), ColumnType::Integer { unsigned: false, .. }) => Value::Int(*i),
        (BinValue::UInt(u), ColumnType::Integer { unsigned: false, .. }) => {
            Value::Int(i64::try_from(*u).map_err(|_| mismatch())?)
        }
        // A TABLE_MAP without signedness metadata logs unsigned columns as signed: the
        // two's complement bits are the unsigned value.
        (BinValue::Int(i), ColumnType::Integer { unsigned: true, bytes }) => {
            let bits = u32::from(bytes.min(8)) * 8;
            let mask = if bits >= 64 { u64::MAX } else { (1u64 << bits) - 1 };
            Value::UInt((*i as u64) & mask)
        }
        (BinValue::UInt(u), ColumnType::Integer { unsigned: true, .. }) => Value::UInt(*u),
        (BinValue::Double(d), ColumnType::Double) => Value::Double(*d),
        (BinValue::Float(f), ColumnType::Double) => Value::Double(f64::from(*f)),
        (BinValue::Decimal(text), ColumnType::Decimal { .. }) => {
            Value::Decimal(engine::Decimal::parse(text).ok_or_else(mismatch)?)
        }
        // The row image holds the column's character set's bytes (latin1 from mysqld); the
        // engine holds text as UTF-8.
        (BinValue::Bytes(b), ColumnType::Char(_) | ColumnType::VarChar(_) | ColumnType::Text) => {
            Value::Bytes(collation::decode(cs, b).into_owned())
        }
        (BinValue::DateTime(t), ColumnType::DateTime { .. }) => {
            Value::DateTime(commit::datetime_from_binlog(t))
        }
        // Issue 19's types: a TIMESTAMP's seconds are UTC, as the engine stores it.
        (BinValue::Timestamp { seconds, micros }, ColumnType::Timestamp { .. }) => {
            Value::DateTime(engine::temporal::from_epoch_seconds(i64::from(*seconds), *micros))
        }
        (BinValue::Float(f), ColumnType::Float) => Value::Float(*f),
        (BinValue::Double(d), ColumnType::Float) => Value::Float(*d as f32),
        (BinValue::Date(d), ColumnType::Date) => Value::Date(engine::DateTime {
            year: d.year,
            month: d.month,
            day: d.day,
            ..engine::DateTime::ZERO
        }),
        (BinValue::Time(t), ColumnType::Time { .. }) => Value::Time(commit::time_from_binlog(t)),
        (BinValue::Year(y), ColumnType::Year) => Value::UInt(u64::from(*y)),
        _ => return Err(mismatch()),
    })
}
