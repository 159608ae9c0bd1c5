//! How the binary-string, BLOB/TEXT, ENUM, SET, BIT and JSON columns (issue 19) go into
//! TABLE_MAP events and row images, as mysqld writes them (`Field_*::do_save_field_metadata`
//! and `Field_*::pack` in field.cc, log_event.cc):
//!
//! - BINARY(n): MYSQL_TYPE_STRING, metadata (real type STRING, n bytes) as CHAR's; the image
//!   drops trailing 0x00 (`Field_string::pack` strips the pad character; a replica pads back).
//! - VARBINARY(n): MYSQL_TYPE_VARCHAR, metadata n.
//! - TINY/…/LONG BLOB and TEXT: MYSQL_TYPE_BLOB, metadata = length bytes 1–4; charset 63 for
//!   BLOB, the column's collation for TEXT.
//! - ENUM/SET: MYSQL_TYPE_STRING with the real type (ENUM 247 / SET 248) in the metadata's
//!   high byte and the pack length (ENUM 1–2 bytes, SET 1–4 or 8) in its low byte; the image is
//!   the member index / bitmask, little-endian, in that many bytes.
//! - BIT(n): MYSQL_TYPE_BIT, metadata `n % 8 | (n / 8) << 8`; the image is ⌈n/8⌉ big-endian
//!   bytes.
//! - JSON: MYSQL_TYPE_JSON, metadata 4; the image is a 4-byte length and the document in
//!   MySQL's binary JSON ([`engine::json::to_binary`]).

use binlog::event::{ColumnType as BinType, Value as BinValue};
use engine::json::{self, Json};
use engine::{Column, ColumnType, Value};

/// utf8mb4_0900_ai_ci (text columns until per-column collations exist).
const COLLATION_UTF8MB4: u16 = 255;
/// The `binary` collation.
const COLLATION_BINARY: u16 = 63;

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

/// ENUM's pack length: 1 byte up to 255 members, else 2 (`get_enum_pack_length`).
fn enum_pack_len(members: usize) -> u16 {
    if members < 256 {
        1
    } else {
        2
    }
}

/// SET's pack length: ⌈members/8⌉ bytes, 5–8 rounded to 8 (`get_set_pack_length`).
fn set_pack_len(members: usize) -> u16 {
    match members.div_ceil(8) {
        n @ 0..=4 => n.max(1) as u16,
        _ => 8,
    }
}

/// (binlog type, metadata, collation if the type has a charset entry) of a column of issue 19's
/// types; None for the others.
pub(crate) fn column_type(c: &Column) -> Option<(BinType, u16, Option<u16>)> {
    Some(match c.ty {
        ColumnType::Binary(n) => {
            let max = n.min(1020);
            let high = 0xFE ^ ((max & 0x300) >> 4) as u16;
            (BinType::STRING, high << 8 | (max & 0xff) as u16, Some(COLLATION_BINARY))
        }
        ColumnType::VarBinary(n) => {
            (BinType::VARCHAR, n.min(65_535) as u16, Some(COLLATION_BINARY))
        }
        ColumnType::Blob { len_bytes } => {
            (BinType::BLOB, u16::from(len_bytes), Some(COLLATION_BINARY))
        }
        ColumnType::SizedText { len_bytes } => {
            // The column's own collation (latin1 TEXT is 8), as its row image's bytes are.
            (BinType::BLOB, u16::from(len_bytes), Some(own_collation(c)))
        }
        ColumnType::Enum => (
            BinType::STRING,
            u16::from(BinType::ENUM.0) << 8 | enum_pack_len(c.elements.len()),
            None,
        ),
        ColumnType::Set => {
            (BinType::STRING, u16::from(BinType::SET.0) << 8 | set_pack_len(c.elements.len()), None)
        }
        ColumnType::Bit(n) => (BinType::BIT, u16::from(n % 8) | u16::from(n / 8) << 8, None),
        ColumnType::Json => (BinType::JSON, 4, None),
        _ => return None,
    })
}

/// A character column's collation for the TABLE_MAP (utf8mb4's default where the column
/// records none: `binary`, which a text column never has).
fn own_collation(c: &Column) -> u16 {
    if c.collation == COLLATION_BINARY {
        COLLATION_UTF8MB4
    } else {
        c.collation
    }
}

/// The ENUM and SET columns of a table for the TABLE_MAP's optional metadata:
/// (is SET, collation, members).
pub(crate) fn enum_and_set(schema: &engine::TableSchema) -> Vec<(bool, u16, Vec<Vec<u8>>)> {
    schema
        .columns
        .iter()
        .filter(|c| matches!(c.ty, ColumnType::Enum | ColumnType::Set))
        .map(|c| {
            // Member names in the column's character set, as mysqld logs them.
            let names = c
                .elements
                .iter()
                .map(|e| collation::encode_lossy(c.charset(), e.as_bytes()).into_owned())
                .collect();
            (c.ty == ColumnType::Set, own_collation(c), names)
        })
        .collect()
}

/// A row image value of a column of issue 19's types.
pub(crate) fn row_value(c: &Column, v: &Value) -> BinValue {
    let raw_le = |n: u64, len: u16| BinValue::Raw(n.to_le_bytes()[..usize::from(len)].to_vec());
    match (c.ty, v) {
        (_, Value::Null) => BinValue::Null,
        (_, Value::Json(b)) => json_row_value(b),
        (ColumnType::Binary(_), Value::Bytes(b)) => {
            let end = b.iter().rposition(|&x| x != 0).map_or(0, |i| i + 1);
            BinValue::Bytes(b[..end].to_vec())
        }
        (ColumnType::Enum, Value::Bytes(b)) => {
            let index = engine::enum_index(c, b).unwrap_or(0);
            raw_le(u64::from(index), enum_pack_len(c.elements.len()))
        }
        (ColumnType::Set, Value::Bytes(b)) => {
            raw_le(engine::set_mask(c, b).unwrap_or(0), set_pack_len(c.elements.len()))
        }
        (ColumnType::Bit(n), Value::Bytes(b)) => {
            let x = engine::bit_to_uint(b).unwrap_or(0);
            BinValue::Raw(engine::bit_from_uint(x, n).unwrap_or_default())
        }
        (ColumnType::Json, Value::Bytes(b)) => {
            let doc = Json::parse(b).map(|d| d.to_text()).unwrap_or_else(|_| b"null".to_vec());
            json_row_value(&doc)
        }
        // TINY/MEDIUM/LONGTEXT: the column's character set's bytes (see `to_bin_row`).
        (_, Value::Bytes(b)) => {
            BinValue::Bytes(collation::encode_lossy(c.charset(), b).into_owned())
        }
        (_, other) => BinValue::Bytes(other.to_string().into_bytes()),
    }
}

/// A JSON value's row image: 4-byte little-endian length, then binary JSON.
pub(crate) fn json_row_value(text: &[u8]) -> BinValue {
    let doc = json::parse_stored(text);
    let bin = json::to_binary(&doc).unwrap_or_else(|| vec![0x04, 0x00]);
    let mut out = Vec::with_capacity(bin.len() + 4);
    out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
    out.extend_from_slice(&bin);
    BinValue::Raw(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use binlog::event::RowMetadata;
    use engine::TableSchema;

    #[test]
    fn table_map_and_images_follow_mysqld() {
        let e = Column::new("e", ColumnType::Enum).with_elements(vec!["x".into(), "y".into()]);
        let s = Column::new("s", ColumnType::Set)
            .with_elements((0..10).map(|i| format!("m{i}")).collect());
        assert_eq!(column_type(&e), Some((BinType::STRING, 0xF701, None)));
        assert_eq!(column_type(&s), Some((BinType::STRING, 0xF802, None)));
        let bit = Column::new("b", ColumnType::Bit(13));
        assert_eq!(column_type(&bit), Some((BinType::BIT, 5 | 1 << 8, None)));
        assert_eq!(
            column_type(&Column::new("t", ColumnType::Blob { len_bytes: 3 })),
            Some((BinType::BLOB, 3, Some(63)))
        );
        assert_eq!(row_value(&e, &Value::Bytes(b"y".to_vec())), BinValue::Raw(vec![2]));
        assert_eq!(row_value(&s, &Value::Bytes(b"m0,m9".to_vec())), BinValue::Raw(vec![1, 2]));
        assert_eq!(
            row_value(&Column::new("b", ColumnType::Binary(4)), &Value::Bytes(b"a\0b\0".to_vec())),
            BinValue::Bytes(b"a\0b".to_vec())
        );
        let schema = TableSchema::new("t", vec![Column::new("id", ColumnType::Json), e, s], vec![]);
        let map = crate::cache::table_map("db", &schema, RowMetadata::Full);
        assert_eq!(map.enum_or_set_values(false), Some(vec![vec![b"x".to_vec(), b"y".to_vec()]]));
        assert_eq!(map.enum_or_set_values(true).map(|v| v[0].len()), Some(10));
        let types: Vec<u8> = map.optional.iter().map(|f| f.field_type).collect();
        assert_eq!(types, vec![10, 4, 5, 6]);
    }
}
