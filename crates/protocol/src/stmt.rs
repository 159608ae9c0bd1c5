//! Prepared statements on the protocol side: the per-connection statement table, long data,
//! and decoding COM_STMT_EXECUTE's binary parameters.
//!
//! COM_STMT_EXECUTE (mysql-server docs, "COM_STMT_EXECUTE"; MariaDB's "COM_STMT_EXECUTE"):
//! `0x17 | stmt_id u32 | flags u8 | iteration_count u32`, then, if the statement has
//! parameters: `NULL bitmap ((n + 7) / 8 bytes, bit offset 0) | new_params_bound u8`, then if
//! `new_params_bound == 1`: `n × (type u8, flags u8 (0x80 = unsigned))`, then the values of the
//! non-NULL parameters that did not come as long data, each in its type's binary form.
//! CLIENT_QUERY_ATTRIBUTES is not offered, so no parameter count or names precede the bitmap.
//!
//! The flags byte: 0 (CURSOR_TYPE_NO_CURSOR) or CURSOR_TYPE_READ_ONLY (1), which opens a
//! cursor on the result set for COM_STMT_FETCH (`0x1c | stmt_id u32 | num_rows u32`);
//! CURSOR_TYPE_FOR_UPDATE / SCROLLABLE are refused by mysqld and ignored here as by it
//! (`mysqld_stmt_execute` only looks at CURSOR_TYPE_READ_ONLY).
//!
//! Invariants: types sent with `new_params_bound = 1` are kept for later executions that do not
//! resend them; long data (COM_STMT_SEND_LONG_DATA) accumulates per parameter until the next
//! execute or COM_STMT_RESET; nothing here trusts a length from the wire without checking it
//! against the packet.

use std::collections::HashMap;
use std::sync::Arc;

use mysql_common::constants::ColumnType;
use mysql_common::io::ParseBuf;
use mysql_common::Value;

use super::error::{ErrPacket, Error, Result};

/// One prepared statement's protocol state.
#[derive(Debug, Default)]
pub struct StatementState {
    /// Placeholders in the statement.
    pub param_count: usize,
    /// The statement's text (the processlist's Info while it executes).
    text: Arc<str>,
    /// Types from the last execute that bound them: (type, unsigned).
    param_types: Option<Vec<(ColumnType, bool)>>,
    /// COM_STMT_SEND_LONG_DATA pieces, joined, by parameter index.
    long_data: HashMap<u16, Vec<u8>>,
    /// The open cursor of the last execute with CURSOR_TYPE_READ_ONLY, until its last row is
    /// fetched, the statement is reset, re-executed or closed.
    pub cursor: Option<crate::results::Cursor>,
}

/// The statements of one connection.
#[derive(Debug, Default)]
pub struct Statements {
    next_id: u32,
    by_id: HashMap<u32, StatementState>,
}

impl Statements {
    /// Registers a statement with `param_count` placeholders under a fresh id.
    pub fn allocate_id(&mut self) -> u32 {
        // Ids start at 1 (clients treat 0 as "none") and skip any still in use after wrapping.
        loop {
            self.next_id = self.next_id.wrapping_add(1);
            if self.next_id != 0 && !self.by_id.contains_key(&self.next_id) {
                return self.next_id;
            }
        }
    }

    /// Records a successfully prepared statement: its placeholders and its text.
    pub fn insert(&mut self, id: u32, param_count: usize, text: &str) {
        let text = Arc::from(text);
        self.by_id.insert(id, StatementState { param_count, text, ..StatementState::default() });
    }

    /// The text of statement `id`, if prepared.
    pub fn text(&self, id: u32) -> Option<&str> {
        self.by_id.get(&id).map(|st| &*st.text)
    }

    /// Forgets a statement; true if it existed.
    pub fn remove(&mut self, id: u32) -> bool {
        self.by_id.remove(&id).is_some()
    }

    /// All statement ids (for COM_RESET_CONNECTION).
    pub fn drain_ids(&mut self) -> Vec<u32> {
        self.by_id.drain().map(|(id, _)| id).collect()
    }

    /// The statement, if prepared.
    pub fn get_mut(&mut self, id: u32) -> Option<&mut StatementState> {
        self.by_id.get_mut(&id)
    }
}

impl StatementState {
    /// COM_STMT_SEND_LONG_DATA: appends a piece to a parameter. Pieces for a parameter the
    /// statement does not have are dropped, as mysqld does (it reports the error at execute).
    pub fn append_long_data(&mut self, param: u16, data: &[u8], max_bytes: usize) -> Result<()> {
        if usize::from(param) >= self.param_count {
            return Ok(());
        }
        let piece = self.long_data.entry(param).or_default();
        if piece.len() + data.len() > max_bytes {
            return Err(Error::PacketTooLarge { max_allowed_packet: max_bytes });
        }
        piece.extend_from_slice(data);
        Ok(())
    }

    /// COM_STMT_RESET: drops long data and closes the cursor.
    pub fn reset(&mut self) {
        self.long_data.clear();
        self.cursor = None;
    }

    /// Decodes the parameter part of a COM_STMT_EXECUTE packet (everything after
    /// `iteration_count`) and consumes the long data.
    pub fn decode_params(&mut self, body: &[u8]) -> Result<Vec<Value>> {
        let n = self.param_count;
        let long_data = std::mem::take(&mut self.long_data);
        if n == 0 {
            return Ok(Vec::new());
        }
        let malformed = || Error::Malformed { what: "COM_STMT_EXECUTE" };
        let mut buf = ParseBuf(body);
        let bitmap = buf.checked_eat(n.div_ceil(8)).ok_or_else(malformed)?;
        let new_params_bound = buf.checked_eat_u8().ok_or_else(malformed)?;
        if new_params_bound == 1 {
            let mut types = Vec::with_capacity(n);
            for _ in 0..n {
                let raw_type = buf.checked_eat_u8().ok_or_else(malformed)?;
                let flags = buf.checked_eat_u8().ok_or_else(malformed)?;
                let column_type = ColumnType::try_from(raw_type).map_err(|_| malformed())?;
                types.push((column_type, flags & 0x80 != 0));
            }
            self.param_types = Some(types);
        }
        let Some(types) = self.param_types.as_ref() else {
            // Types were never sent: mysqld answers ER_WRONG_ARGUMENTS here.
            return Err(ErrPacket::wrong_arguments("mysqld_stmt_execute").into());
        };
        let mut params = Vec::with_capacity(n);
        for (i, &(column_type, unsigned)) in types.iter().enumerate() {
            // `i < n` and the bitmap has n.div_ceil(8) bytes.
            let is_null = bitmap[i / 8] & (1 << (i % 8)) != 0;
            let long = u16::try_from(i).ok().and_then(|i| long_data.get(&i));
            let value = if let Some(data) = long {
                Value::Bytes(data.clone())
            } else if is_null || column_type == ColumnType::MYSQL_TYPE_NULL {
                Value::NULL
            } else {
                decode_value(&mut buf, column_type, unsigned).ok_or_else(malformed)?
            };
            params.push(value);
        }
        Ok(params)
    }
}

/// One binary-protocol parameter value (mysql-server "Binary Protocol Value").
fn decode_value(buf: &mut ParseBuf<'_>, column_type: ColumnType, unsigned: bool) -> Option<Value> {
    use ColumnType::*;
    let int = |v: i64, u: u64| {
        if unsigned {
            Value::UInt(u)
        } else {
            Value::Int(v)
        }
    };
    Some(match column_type {
        MYSQL_TYPE_TINY => {
            let b = buf.checked_eat_u8()?;
            int(i64::from(b as i8), u64::from(b))
        }
        MYSQL_TYPE_SHORT | MYSQL_TYPE_YEAR => {
            let v = buf.checked_eat_u16_le()?;
            int(i64::from(v as i16), u64::from(v))
        }
        MYSQL_TYPE_LONG | MYSQL_TYPE_INT24 => {
            let v = buf.checked_eat_u32_le()?;
            int(i64::from(v as i32), u64::from(v))
        }
        MYSQL_TYPE_LONGLONG => {
            let v = buf.checked_eat_u64_le()?;
            int(v as i64, v)
        }
        MYSQL_TYPE_FLOAT => Value::Float(f32::from_le_bytes(buf.checked_eat(4)?.try_into().ok()?)),
        MYSQL_TYPE_DOUBLE => {
            Value::Double(f64::from_le_bytes(buf.checked_eat(8)?.try_into().ok()?))
        }
        MYSQL_TYPE_DATE
        | MYSQL_TYPE_DATETIME
        | MYSQL_TYPE_TIMESTAMP
        | MYSQL_TYPE_NEWDATE
        | MYSQL_TYPE_DATETIME2
        | MYSQL_TYPE_TIMESTAMP2 => {
            // Format: length u8 (0, 4, 7 or 11) | year u16 | month | day | hour | minute
            //         | second | microsecond u32
            let len = buf.checked_eat_u8()?;
            let mut p = ParseBuf(buf.checked_eat(usize::from(len))?);
            let (mut y, mut mo, mut d, mut h, mut mi, mut s, mut us) = (0, 0, 0, 0, 0, 0, 0);
            if len >= 4 {
                y = p.checked_eat_u16_le()?;
                mo = p.checked_eat_u8()?;
                d = p.checked_eat_u8()?;
            }
            if len >= 7 {
                h = p.checked_eat_u8()?;
                mi = p.checked_eat_u8()?;
                s = p.checked_eat_u8()?;
            }
            if len >= 11 {
                us = p.checked_eat_u32_le()?;
            }
            Value::Date(y, mo, d, h, mi, s, us)
        }
        MYSQL_TYPE_TIME | MYSQL_TYPE_TIME2 => {
            // Format: length u8 (0, 8 or 12) | is_negative u8 | days u32 | hour | minute
            //         | second | microsecond u32
            let len = buf.checked_eat_u8()?;
            let mut p = ParseBuf(buf.checked_eat(usize::from(len))?);
            let (mut neg, mut days, mut h, mut mi, mut s, mut us) = (false, 0, 0, 0, 0, 0);
            if len >= 8 {
                neg = p.checked_eat_u8()? == 1;
                days = p.checked_eat_u32_le()?;
                h = p.checked_eat_u8()?;
                mi = p.checked_eat_u8()?;
                s = p.checked_eat_u8()?;
            }
            if len >= 12 {
                us = p.checked_eat_u32_le()?;
            }
            Value::Time(neg, days, h, mi, s, us)
        }
        MYSQL_TYPE_NULL => Value::NULL,
        MYSQL_TYPE_DECIMAL
        | MYSQL_TYPE_NEWDECIMAL
        | MYSQL_TYPE_VARCHAR
        | MYSQL_TYPE_BIT
        | MYSQL_TYPE_ENUM
        | MYSQL_TYPE_SET
        | MYSQL_TYPE_TINY_BLOB
        | MYSQL_TYPE_MEDIUM_BLOB
        | MYSQL_TYPE_LONG_BLOB
        | MYSQL_TYPE_BLOB
        | MYSQL_TYPE_VAR_STRING
        | MYSQL_TYPE_STRING
        | MYSQL_TYPE_GEOMETRY
        | MYSQL_TYPE_JSON
        | MYSQL_TYPE_VECTOR => Value::Bytes(buf.checked_eat_lenenc_str()?.to_vec()),
        MYSQL_TYPE_TYPED_ARRAY | MYSQL_TYPE_UNKNOWN => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(n: usize) -> StatementState {
        StatementState { param_count: n, ..StatementState::default() }
    }

    #[test]
    fn decodes_typed_params_with_nulls() {
        let mut st = state(4);
        let mut body = vec![0b0000_0010, 1];
        // LONGLONG signed, VAR_STRING, DOUBLE, TINY unsigned
        body.extend_from_slice(&[8, 0, 253, 0, 5, 0, 1, 0x80]);
        body.extend_from_slice(&(-3i64).to_le_bytes());
        body.extend_from_slice(&1.5f64.to_le_bytes());
        body.push(200);
        let params = st.decode_params(&body).expect("decodes");
        assert_eq!(params, vec![Value::Int(-3), Value::NULL, Value::Double(1.5), Value::UInt(200)]);
        // Types remembered: a second execute without them.
        let mut body = vec![0, 0];
        body.extend_from_slice(&5i64.to_le_bytes());
        body.extend_from_slice(&[2, b'h', b'i']);
        body.extend_from_slice(&0.0f64.to_le_bytes());
        body.push(1);
        let params = st.decode_params(&body).expect("decodes");
        assert_eq!(params[1], Value::Bytes(b"hi".to_vec()));
    }

    #[test]
    fn long_data_replaces_the_value() {
        let mut st = state(1);
        st.append_long_data(0, b"ab", 100).expect("fits");
        st.append_long_data(0, b"cd", 100).expect("fits");
        st.append_long_data(5, b"ignored", 100).expect("dropped");
        assert!(st.append_long_data(0, &[0; 200], 100).is_err());
        let params = st.decode_params(&[0, 1, 252, 0]).expect("decodes");
        assert_eq!(params, vec![Value::Bytes(b"abcd".to_vec())]);
        // Long data is used once.
        let params = st.decode_params(&[0, 0, 1, b'z']).expect("decodes");
        assert_eq!(params, vec![Value::Bytes(b"z".to_vec())]);
    }

    #[test]
    fn dates_and_times() {
        let mut st = state(2);
        let mut body = vec![0, 1, 12, 0, 11, 0];
        body.extend_from_slice(&[7, 0xE8, 0x07, 2, 29, 13, 14, 15]);
        body.extend_from_slice(&[8, 1, 2, 0, 0, 0, 3, 4, 5]);
        let params = st.decode_params(&body).expect("decodes");
        assert_eq!(params[0], Value::Date(2024, 2, 29, 13, 14, 15, 0));
        assert_eq!(params[1], Value::Time(true, 2, 3, 4, 5, 0));
    }

    #[test]
    fn missing_types_and_truncation_are_errors() {
        let mut st = state(1);
        let err = st.decode_params(&[0, 0]).expect_err("no types yet");
        assert!(matches!(err, Error::Sql(ref e) if e.code == 1210));
        let err = st.decode_params(&[0, 1, 8, 0, 1, 2]).expect_err("short LONGLONG");
        assert!(matches!(err, Error::Malformed { .. }));
        let err = st.decode_params(&[0, 1, 0x42, 0]).expect_err("unknown type");
        assert!(matches!(err, Error::Malformed { .. }));
        let err = st.decode_params(&[]).expect_err("empty");
        assert!(matches!(err, Error::Malformed { .. }));
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        let mut seed = 0x1234_5678_u64;
        for len in 0..300 {
            let body: Vec<u8> = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    seed as u8
                })
                .collect();
            let mut st = state(1 + len % 9);
            let _ = st.decode_params(&body);
        }
    }

    #[test]
    fn ids_are_fresh() {
        let mut s = Statements::default();
        let a = s.allocate_id();
        s.insert(a, 0, "SELECT 1");
        let b = s.allocate_id();
        assert_ne!(a, b);
        assert!(s.remove(a));
        assert!(!s.remove(a));
    }
}
