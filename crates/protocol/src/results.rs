//! Answers to COM_QUERY and COM_STMT_EXECUTE: OK packets and result sets, text or binary.
//!
//! A result set is (MySQL "Protocol::Text/Binary Resultset"):
//! `column_count (lenenc)`, one column definition per column, an EOF packet unless
//! CLIENT_DEPRECATE_EOF, the rows, then a terminator: an EOF packet, or with
//! CLIENT_DEPRECATE_EOF an OK packet whose header is `0xFE`.
//!
//! Invariants kept by [`ResultWriter`]:
//! - the terminator of each result (OK or result-set end) is held back until the session either
//!   starts another result — then it goes out with SERVER_MORE_RESULTS_EXISTS — or finishes —
//!   then it goes out without; so a session never has to know whether more results follow;
//! - a session error after rows were sent replaces the terminator with an ERR packet, which
//!   clients accept there;
//! - every row has exactly as many values as the result set has columns.
//!
//! Column definitions are written here by hand ([`write_column_definition`]) and not with
//! `mysql_common`'s `MySerialize for Column`: that serializer (0.37 and 0.38) writes
//! `column_length` before `character_set`, the reverse of the protocol (and of its own parser),
//! which made Connector/J decode text in the wrong charset, Node's mysql2 fail on TEXT columns
//! and every driver report nonsense precision. The layout is mysqld's
//! `Protocol_classic::send_field_metadata` (sql/protocol_classic.cc).

use mysql_common::constants::{CapabilityFlags, ColumnFlags, ColumnType, StatusFlags};
use mysql_common::io::BufMutExt;
use mysql_common::packets::Column;
use mysql_common::proto::MySerialize;
use mysql_common::Value;

use super::error::{ErrPacket, Error, Result};
use super::packet::PacketStream;

/// The fields of an OK packet a session chooses; status flags come from the connection.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OkResult {
    /// Rows changed (or matched, with CLIENT_FOUND_ROWS).
    pub affected_rows: u64,
    /// `LAST_INSERT_ID()` after the statement.
    pub last_insert_id: u64,
    /// Warnings raised by the statement.
    pub warnings: u16,
    /// Human-readable info (`Rows matched: 1  Changed: 1  Warnings: 0`).
    pub info: String,
    /// Session state changes (CLIENT_SESSION_TRACK), already encoded as mysqld's
    /// `Session_tracker::store` writes them; sent only to clients that set the capability.
    pub session_state: Vec<u8>,
}

/// A held-back terminator.
enum PendingEnd {
    Ok(OkResult),
    ResultSet { warnings: u16 },
}

/// One column's type as the row encoders need it.
#[derive(Clone, Copy)]
struct ColumnShape {
    column_type: ColumnType,
    unsigned: bool,
    decimals: u8,
}

/// The rows of a result set opened as a server-side cursor (COM_STMT_EXECUTE with
/// CURSOR_TYPE_READ_ONLY), encoded as binary row packets and sent by COM_STMT_FETCH in the
/// batches the client asks for (mysqld's `Materialized_cursor`, sql_cursor.cc).
#[derive(Debug, Default)]
pub struct Cursor {
    rows: std::collections::VecDeque<Vec<u8>>,
}

impl Cursor {
    /// Rows not fetched yet.
    pub fn remaining(&self) -> usize {
        self.rows.len()
    }

    /// COM_STMT_FETCH: up to `count` rows, then an EOF (an OK-form terminator with
    /// CLIENT_DEPRECATE_EOF) with SERVER_STATUS_CURSOR_EXISTS, and SERVER_STATUS_LAST_ROW_SENT
    /// once the rows are exhausted. Returns true when the cursor is exhausted (closed).
    pub(crate) async fn fetch(
        &mut self,
        io: &mut PacketStream,
        count: u32,
        capabilities: CapabilityFlags,
        status: StatusFlags,
    ) -> Result<bool> {
        // mysqld treats a fetch of 0 rows as a fetch of 1.
        for _ in 0..count.max(1) {
            let Some(row) = self.rows.pop_front() else { break };
            io.write_packet(&row);
            io.flush_if_full().await?;
        }
        let exhausted = self.rows.is_empty();
        let mut status = status | StatusFlags::SERVER_STATUS_CURSOR_EXISTS;
        status.set(StatusFlags::SERVER_STATUS_LAST_ROW_SENT, exhausted);
        if capabilities.contains(CapabilityFlags::CLIENT_DEPRECATE_EOF) {
            write_ok(io, &OkResult::default(), status, 0xFE, capabilities);
        } else {
            write_eof(io, 0, status);
        }
        Ok(exhausted)
    }
}

/// Writes a command's results; lent to [`super::BackendSession::query`] and
/// [`super::BackendSession::execute`].
pub struct ResultWriter<'a> {
    io: &'a mut PacketStream,
    capabilities: CapabilityFlags,
    binary: bool,
    multi_statements: bool,
    status: &'a mut StatusFlags,
    pending: Option<PendingEnd>,
    columns: Option<Vec<ColumnShape>>,
    row_buf: Vec<u8>,
    /// COM_STMT_EXECUTE asked for a cursor: a result set's rows go here, not to the client.
    cursor: Option<Cursor>,
    /// A result set went into `cursor`.
    cursor_opened: bool,
}

impl<'a> ResultWriter<'a> {
    pub(crate) fn new(
        io: &'a mut PacketStream,
        capabilities: CapabilityFlags,
        binary: bool,
        multi_statements: bool,
        status: &'a mut StatusFlags,
    ) -> Self {
        Self {
            io,
            capabilities,
            binary,
            multi_statements,
            status,
            pending: None,
            columns: None,
            row_buf: Vec::new(),
            cursor: None,
            cursor_opened: false,
        }
    }

    /// Opens a result set as a read-only cursor (COM_STMT_EXECUTE's CURSOR_TYPE_READ_ONLY):
    /// its metadata goes out, ended by a terminator with SERVER_STATUS_CURSOR_EXISTS, its rows
    /// wait for COM_STMT_FETCH ([`ResultWriter::take_cursor`]).
    pub(crate) fn with_cursor(mut self) -> Self {
        self.cursor = Some(Cursor::default());
        self
    }

    /// The cursor a result set opened, if any (after [`ResultWriter::finish`]).
    pub(crate) fn take_cursor(&mut self) -> Option<Cursor> {
        if self.cursor_opened {
            self.cursor.take()
        } else {
            None
        }
    }

    /// Capabilities agreed with the client.
    pub fn capabilities(&self) -> CapabilityFlags {
        self.capabilities
    }

    /// True if the client allows several statements per COM_QUERY.
    pub fn multi_statements(&self) -> bool {
        self.multi_statements
    }

    /// True for COM_STMT_EXECUTE (binary rows), false for COM_QUERY (text rows).
    pub fn is_binary(&self) -> bool {
        self.binary
    }

    /// Records the session's transaction state; it goes into every OK and EOF from now on,
    /// this command's and later ones'.
    pub fn set_transaction_state(&mut self, autocommit: bool, in_transaction: bool) {
        self.status.set(StatusFlags::SERVER_STATUS_AUTOCOMMIT, autocommit);
        self.status.set(StatusFlags::SERVER_STATUS_IN_TRANS, in_transaction);
    }

    /// Ends one result with an OK packet.
    pub fn ok(&mut self, ok: OkResult) -> Result<()> {
        if self.columns.is_some() {
            return Err(Error::Misuse("OK inside a result set"));
        }
        self.release_pending(true);
        self.pending = Some(PendingEnd::Ok(ok));
        Ok(())
    }

    /// Starts a result set with these columns.
    pub async fn start_result_set(&mut self, columns: &[Column]) -> Result<()> {
        if self.columns.is_some() {
            return Err(Error::Misuse("result set started twice"));
        }
        self.release_pending(true);
        // Format: column_count (lenenc int)
        self.io.write_with(|buf| buf.put_lenenc_int(columns.len() as u64));
        for column in columns {
            self.io.write_with(|buf| write_column_definition(buf, column));
            self.io.flush_if_full().await?;
        }
        if self.cursor.is_some() {
            // The client reads a status here even with CLIENT_DEPRECATE_EOF: it tells whether
            // a cursor was opened (Connector/J's BinaryResultsetReader).
            self.cursor_opened = true;
            let status = *self.status | StatusFlags::SERVER_STATUS_CURSOR_EXISTS;
            if self.deprecate_eof() {
                write_ok(self.io, &OkResult::default(), status, 0xFE, self.capabilities);
            } else {
                write_eof(self.io, 0, status);
            }
        } else if !self.deprecate_eof() {
            let status = *self.status;
            write_eof(self.io, 0, status);
        }
        self.columns = Some(
            columns
                .iter()
                .map(|c| ColumnShape {
                    column_type: c.column_type(),
                    unsigned: c.flags().contains(ColumnFlags::UNSIGNED_FLAG),
                    decimals: c.decimals(),
                })
                .collect(),
        );
        Ok(())
    }

    /// Writes one row of the current result set.
    pub async fn row(&mut self, values: &[Value]) -> Result<()> {
        let Some(columns) = self.columns.as_ref() else {
            return Err(Error::Misuse("row outside a result set"));
        };
        if values.len() != columns.len() {
            return Err(Error::Misuse("row width differs from the column count"));
        }
        self.row_buf.clear();
        if self.binary {
            encode_binary_row(&mut self.row_buf, columns, values)?;
        } else {
            encode_text_row(&mut self.row_buf, columns, values);
        }
        if let (Some(cursor), true) = (self.cursor.as_mut(), self.cursor_opened) {
            cursor.rows.push_back(self.row_buf.clone());
            return Ok(());
        }
        self.io.write_packet(&self.row_buf);
        self.io.flush_if_full().await
    }

    /// Ends the current result set.
    pub fn end_result_set(&mut self, warnings: u16) -> Result<()> {
        if self.columns.take().is_none() {
            return Err(Error::Misuse("no result set to end"));
        }
        if self.cursor_opened {
            // The terminator went out with the metadata; COM_STMT_FETCH ends the rows.
            return Ok(());
        }
        self.pending = Some(PendingEnd::ResultSet { warnings });
        Ok(())
    }

    /// Completes the command after the session returned `outcome`: writes the held-back
    /// terminator, or the ERR for a client error. Fatal errors are handed back.
    pub(crate) fn finish(&mut self, outcome: Result<()>) -> Result<()> {
        match outcome {
            Ok(()) => {
                if self.columns.is_some() {
                    self.end_result_set(0)?;
                }
                if self.pending.is_none() && !self.cursor_opened {
                    self.pending = Some(PendingEnd::Ok(OkResult::default()));
                }
                self.release_pending(false);
                Ok(())
            }
            Err(e) if !e.is_fatal() => {
                // An error in the middle of a result set takes the terminator's place; one
                // after complete results follows them as the last result. A cursor's rows
                // are dropped: the client reads the error in place of the first fetch's.
                self.columns = None;
                self.cursor_opened = false;
                self.release_pending(true);
                let sql = e
                    .to_sql_error()
                    .unwrap_or_else(|| ErrPacket::new(super::error::code::UNKNOWN, "HY000", ""));
                self.io.write_err(&sql);
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    fn deprecate_eof(&self) -> bool {
        self.capabilities.contains(CapabilityFlags::CLIENT_DEPRECATE_EOF)
    }

    fn release_pending(&mut self, more: bool) {
        let Some(end) = self.pending.take() else {
            return;
        };
        let mut status = *self.status;
        status.set(StatusFlags::SERVER_MORE_RESULTS_EXISTS, more);
        match end {
            PendingEnd::Ok(ok) => write_ok(self.io, &ok, status, 0x00, self.capabilities),
            PendingEnd::ResultSet { warnings } => {
                if self.deprecate_eof() {
                    let ok = OkResult { warnings, ..OkResult::default() };
                    write_ok(self.io, &ok, status, 0xFE, self.capabilities);
                } else {
                    write_eof(self.io, warnings, status);
                }
            }
        }
    }
}

/// Appends an OK packet; `header` is 0x00, or 0xFE for a result-set terminator under
/// CLIENT_DEPRECATE_EOF.
///
/// Format (mysqld's `net_send_ok`): header | affected_rows lenenc | last_insert_id lenenc |
/// status u16 | warnings u16 | then with CLIENT_SESSION_TRACK: info lenenc (always) and,
/// when SERVER_SESSION_STATE_CHANGED is set, the session state lenenc; without it: the info
/// as the rest of the packet, only when non-empty.
pub(crate) fn write_ok(
    io: &mut PacketStream,
    ok: &OkResult,
    status: StatusFlags,
    header: u8,
    capabilities: CapabilityFlags,
) {
    let track = capabilities.contains(CapabilityFlags::CLIENT_SESSION_TRACK);
    let mut status = status;
    status.set(StatusFlags::SERVER_SESSION_STATE_CHANGED, track && !ok.session_state.is_empty());
    io.write_with(|buf| {
        buf.push(header);
        buf.put_lenenc_int(ok.affected_rows);
        buf.put_lenenc_int(ok.last_insert_id);
        buf.extend_from_slice(&status.bits().to_le_bytes());
        buf.extend_from_slice(&ok.warnings.to_le_bytes());
        if track {
            buf.put_lenenc_str(ok.info.as_bytes());
            if status.contains(StatusFlags::SERVER_SESSION_STATE_CHANGED) {
                buf.put_lenenc_str(&ok.session_state);
            }
        } else if !ok.info.is_empty() {
            buf.put_lenenc_str(ok.info.as_bytes());
        }
    });
}

/// Appends a (pre-CLIENT_DEPRECATE_EOF) EOF packet.
pub(crate) fn write_eof(io: &mut PacketStream, warnings: u16, status: StatusFlags) {
    // Format: 0xFE | warnings u16 | status u16
    io.write_with(|buf| {
        buf.push(0xFE);
        buf.extend_from_slice(&warnings.to_le_bytes());
        buf.extend_from_slice(&status.bits().to_le_bytes());
    });
}

/// Appends column definitions and, unless CLIENT_DEPRECATE_EOF, the EOF that ends them
/// (COM_STMT_PREPARE's parameter and column blocks).
pub(crate) fn write_column_block(
    io: &mut PacketStream,
    columns: &[Column],
    capabilities: CapabilityFlags,
    status: StatusFlags,
) {
    if columns.is_empty() {
        return;
    }
    for column in columns {
        io.write_with(|buf| write_column_definition(buf, column));
    }
    if !capabilities.contains(CapabilityFlags::CLIENT_DEPRECATE_EOF) {
        write_eof(io, 0, status);
    }
}

/// Appends one column definition (Protocol::ColumnDefinition41), as mysqld's
/// `Protocol_classic::send_field_metadata` writes it.
pub fn write_column_definition(buf: &mut Vec<u8>, column: &Column) {
    // Format: catalog "def" | schema | table | org_table | name | org_name (lenenc strings)
    //         | 0x0c | character_set u16 | column_length u32 | type u8 | flags u16
    //         | decimals u8 | filler 0x00 0x00
    buf.put_lenenc_str(b"def");
    buf.put_lenenc_str(column.schema_ref());
    buf.put_lenenc_str(column.table_ref());
    buf.put_lenenc_str(column.org_table_ref());
    buf.put_lenenc_str(column.name_ref());
    buf.put_lenenc_str(column.org_name_ref());
    buf.push(0x0c);
    let fixed = buf.len();
    buf.extend_from_slice(&column.character_set().to_le_bytes());
    buf.extend_from_slice(&column.column_length().to_le_bytes());
    buf.push(column.column_type() as u8);
    buf.extend_from_slice(&column.flags().bits().to_le_bytes());
    buf.push(column.decimals());
    buf.extend_from_slice(&[0, 0]);
    assert_eq!(buf.len() - fixed, 0x0c, "the fixed-length block is 12 bytes");
}

/// Text row: each value a length-encoded string, NULL as 0xFB.
fn encode_text_row(buf: &mut Vec<u8>, columns: &[ColumnShape], values: &[Value]) {
    // Format: (0xFB | lenenc string) per column
    let mut text = String::new();
    for (value, column) in values.iter().zip(columns) {
        match value {
            Value::NULL => buf.push(0xFB),
            Value::Bytes(bytes) => buf.put_lenenc_str(bytes),
            other => {
                text.clear();
                value_to_text(&mut text, other, column);
                buf.put_lenenc_str(text.as_bytes());
            }
        }
    }
}

/// MySQL's text form of a non-string value.
fn value_to_text(out: &mut String, value: &Value, column: &ColumnShape) {
    use std::fmt::Write;
    // Writing to a String cannot fail.
    let _ = match *value {
        Value::NULL | Value::Bytes(_) => Ok(()),
        // YEAR is ZEROFILL of width 4: mysqld's `Field_year::val_str` prints 0 as `0000`.
        Value::Int(v) if column.column_type == ColumnType::MYSQL_TYPE_YEAR => write!(out, "{v:04}"),
        Value::UInt(v) if column.column_type == ColumnType::MYSQL_TYPE_YEAR => {
            write!(out, "{v:04}")
        }
        Value::Int(v) => write!(out, "{v}"),
        Value::UInt(v) => write!(out, "{v}"),
        // A FLOAT prints the shortest digits that read back as the same single-precision
        // value (mysqld's `my_gcvt(.., MY_GCVT_ARG_FLOAT, ..)`), in either notation.
        Value::Float(v) if float_uses_exponent(f64::from(v)) => write!(out, "{v:e}"),
        Value::Float(v) => write!(out, "{v}"),
        // A DOUBLE item with fixed decimals (ROUND(x, 2), FLOOR(x), DOUBLE(M,D) columns)
        // prints exactly that many fraction digits (`Protocol_text::store_double` with
        // decimals < NOT_FIXED_DEC, `my_fcvt`).
        Value::Double(v) if column.decimals < 31 && v.is_finite() => {
            write_fixed(out, v, column.decimals);
            Ok(())
        }
        // Rust writes "1e20" and "1.5e-16" for `{:e}`, as mysqld does.
        Value::Double(v) => {
            write_shortest(out, v, float_uses_exponent(v));
            Ok(())
        }
        Value::Date(y, mo, d, h, mi, s, us) => {
            if column.column_type == ColumnType::MYSQL_TYPE_DATE {
                write!(out, "{y:04}-{mo:02}-{d:02}")
            } else {
                let r = write!(out, "{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}");
                write_fraction(out, us, column.decimals);
                r
            }
        }
        Value::Time(negative, days, h, mi, s, us) => {
            let hours = u64::from(days) * 24 + u64::from(h);
            let sign = if negative { "-" } else { "" };
            let r = write!(out, "{sign}{hours:02}:{mi:02}:{s:02}");
            write_fraction(out, us, column.decimals);
            r
        }
    };
}

/// Fractional seconds: as many digits as the column declares (at most 6); without a
/// declaration, six digits when there is a fraction at all.
fn write_fraction(out: &mut String, micros: u32, decimals: u8) {
    let digits = match decimals {
        1..=6 => usize::from(decimals),
        _ if micros != 0 => 6,
        _ => return,
    };
    let text = format!("{micros:06}");
    out.push('.');
    out.push_str(&text[..digits.min(text.len())]);
}

/// `my_fcvt(v, decimals)`: dtoa's mode 3, which gives the shortest round-trip digits when
/// they end within `decimals` fraction digits (so 1e300 at 0 decimals is 1 and 300 zeros, not
/// the binary value's digits) and the correctly rounded ones otherwise, padded with zeros to
/// exactly `decimals` fraction digits. A zero prints unsigned. (FORMAT uses it too.)
pub fn write_fixed(out: &mut String, v: f64, decimals: u8) {
    use std::fmt::Write;
    let v = if v == 0.0 { 0.0 } else { v };
    let decimals = usize::from(decimals);
    let start = out.len();
    let _ = write!(out, "{v}");
    let fraction = out[start..].split_once('.').map_or(0, |(_, f)| f.len());
    if fraction > decimals {
        out.truncate(start);
        let _ = write!(out, "{v:.decimals$}");
        return;
    }
    if decimals > 0 {
        if fraction == 0 {
            out.push('.');
        }
        out.extend(std::iter::repeat_n('0', decimals - fraction));
    }
}

/// A DOUBLE's shortest round-trip digits as dtoa's mode 0 (strings/dtoa.cc) picks them, in
/// `e` form (`exponent`) or `f` form. Where two candidates of the shortest length are
/// equally near the value (1159684340354238.25, between ...238.2 and ...238.3) dtoa rounds
/// the last digit half to even, where Rust's `{}` takes the upper one: the correctly rounded
/// candidate of that length (`{:.Ne}`, exact and half-to-even) is used when it reads back.
fn write_shortest(out: &mut String, v: f64, exponent: bool) {
    use std::fmt::Write;
    let rust = format!("{v:e}");
    let (mantissa, exp) = rust.split_once('e').unwrap_or((&rust, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let even = match digits.len() {
        n if n >= 2 && v.is_finite() => {
            let t = format!("{v:.prec$e}", prec = n - 1);
            (t != rust && t.parse::<f64>() == Ok(v)).then_some(t)
        }
        _ => None,
    };
    let Some(t) = even else {
        let _ = if exponent { write!(out, "{v:e}") } else { write!(out, "{v}") };
        return;
    };
    if exponent {
        out.push_str(&t);
        return;
    }
    // `f` form of the digits d.ddd × 10^exp.
    let (mantissa, exp) = t.split_once('e').unwrap_or((&t, exp));
    let exp: i32 = exp.parse().unwrap_or(0);
    if mantissa.starts_with('-') {
        out.push('-');
    }
    let digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    let point = exp + 1;
    if point <= 0 {
        out.push_str("0.");
        (0..-point).for_each(|_| out.push('0'));
        out.extend(digits.iter().map(|&d| char::from(d)));
    } else {
        let point = point as usize;
        for (i, d) in digits.iter().enumerate() {
            if i == point {
                out.push('.');
            }
            out.push(char::from(*d));
        }
        (digits.len()..point).for_each(|_| out.push('0'));
    }
}

/// Floating point as mysqld prints it: shortest round-trip digits, with an exponent where
/// `my_gcvt` (strings/dtoa.cc, called by `String::set_real` with a field wide enough for
/// every digit) picks the `e` form: below 1e-15 (`1e-16`; `1.5e-7` is `0.00000015`), and from
/// 1e15 for a whole number (`1e20`; `1234567890123456.8` stays): true where it applies.
fn float_uses_exponent(v: f64) -> bool {
    let a = v.abs();
    v.is_finite() && v != 0.0 && (a < 1e-15 || (a >= 1e15 && v.fract() == 0.0))
}

/// Binary row (MySQL "ProtocolBinary::ResultsetRow").
fn encode_binary_row(buf: &mut Vec<u8>, columns: &[ColumnShape], values: &[Value]) -> Result<()> {
    // Format: 0x00 | NULL bitmap ((columns + 7 + 2) / 8 bytes, bit offset 2) | non-NULL values
    buf.push(0x00);
    let bitmap_start = buf.len();
    buf.resize(bitmap_start + (columns.len() + 7 + 2) / 8, 0);
    for (i, (value, column)) in values.iter().zip(columns).enumerate() {
        if matches!(value, Value::NULL) || column.column_type == ColumnType::MYSQL_TYPE_NULL {
            let bit = i + 2;
            buf[bitmap_start + bit / 8] |= 1 << (bit % 8);
            continue;
        }
        encode_binary_value(buf, value, column)
            .map_err(|reason| Error::BadValue { column: i, reason })?;
    }
    Ok(())
}

/// One non-NULL value in the binary protocol, in the width its column type demands
/// (mysql-server `Protocol_binary::store_*`).
fn encode_binary_value(
    buf: &mut Vec<u8>,
    value: &Value,
    column: &ColumnShape,
) -> std::result::Result<(), &'static str> {
    use ColumnType::*;
    match column.column_type {
        MYSQL_TYPE_TINY => {
            let v = integer(value, column.unsigned)?;
            buf.push(v as u8);
        }
        MYSQL_TYPE_SHORT | MYSQL_TYPE_YEAR => {
            let v = integer(value, column.unsigned)?;
            buf.extend_from_slice(&(v as u16).to_le_bytes());
        }
        MYSQL_TYPE_LONG | MYSQL_TYPE_INT24 => {
            let v = integer(value, column.unsigned)?;
            buf.extend_from_slice(&(v as u32).to_le_bytes());
        }
        MYSQL_TYPE_LONGLONG => {
            let v = integer(value, column.unsigned)?;
            buf.extend_from_slice(&v.to_le_bytes());
        }
        MYSQL_TYPE_FLOAT => {
            let v = float(value)?;
            buf.extend_from_slice(&(v as f32).to_le_bytes());
        }
        MYSQL_TYPE_DOUBLE => {
            let v = float(value)?;
            buf.extend_from_slice(&v.to_le_bytes());
        }
        MYSQL_TYPE_DATE
        | MYSQL_TYPE_DATETIME
        | MYSQL_TYPE_TIMESTAMP
        | MYSQL_TYPE_NEWDATE
        | MYSQL_TYPE_DATETIME2
        | MYSQL_TYPE_TIMESTAMP2 => match value {
            // mysql_common writes the binary DATETIME form (length byte, then 0/4/7/11 bytes).
            Value::Date(..) => value.serialize(buf),
            _ => return Err("a DATE/DATETIME column needs a date value"),
        },
        MYSQL_TYPE_TIME | MYSQL_TYPE_TIME2 => match value {
            // The binary TIME form (length byte, then 0/8/12 bytes).
            Value::Time(..) => value.serialize(buf),
            _ => return Err("a TIME column needs a time value"),
        },
        _ => match value {
            Value::Bytes(bytes) => buf.put_lenenc_str(bytes),
            other => {
                let mut text = String::new();
                value_to_text(&mut text, other, column);
                buf.put_lenenc_str(text.as_bytes());
            }
        },
    }
    Ok(())
}

/// An integer value's bits, from an integer, or from decimal text.
fn integer(value: &Value, unsigned: bool) -> std::result::Result<u64, &'static str> {
    match *value {
        Value::Int(v) => Ok(v as u64),
        Value::UInt(v) => Ok(v),
        Value::Bytes(ref text) => {
            let text = std::str::from_utf8(text).map_err(|_| "integer column, non-UTF-8 text")?;
            let text = text.trim();
            if unsigned {
                text.parse::<u64>().map_err(|_| "integer column, non-integer text")
            } else {
                text.parse::<i64>()
                    .map(|v| v as u64)
                    .map_err(|_| "integer column, non-integer text")
            }
        }
        _ => Err("integer column, non-integer value"),
    }
}

/// A floating-point value, from any number or decimal text.
fn float(value: &Value) -> std::result::Result<f64, &'static str> {
    match *value {
        Value::Float(v) => Ok(f64::from(v)),
        Value::Double(v) => Ok(v),
        Value::Int(v) => Ok(v as f64),
        Value::UInt(v) => Ok(v as f64),
        Value::Bytes(ref text) => std::str::from_utf8(text)
            .ok()
            .and_then(|t| t.trim().parse().ok())
            .ok_or("floating-point column, non-numeric text"),
        _ => Err("floating-point column, non-numeric value"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortest_digits_break_ties_to_even_as_dtoa() {
        let text = |v: f64| {
            let mut s = String::new();
            write_shortest(&mut s, v, float_uses_exponent(v));
            s
        };
        // DEGREES(TIMESTAMP '2024-03-10 02:30:00') is exactly 1159684340354238.25: dtoa's
        // mode 0 ends in the even 2 (MariaDB and mysqld print ...238.2), Rust's `{}` in 3.
        let v = 20240310023000f64 * (180.0 / std::f64::consts::PI);
        assert_eq!(format!("{v}"), "1159684340354238.3");
        assert_eq!(text(v), "1159684340354238.2");
        assert_eq!(text(-v), "-1159684340354238.2");
        assert_eq!(text(0.1), "0.1");
        assert_eq!(text(1e300), "1e300");
        assert_eq!(text(1.5e-7), "0.00000015");
        assert_eq!(text(2.5), "2.5");
        assert_eq!(text(1234567890123456.8), "1234567890123456.8");
        for v in [1.0 / 3.0, 2.0f64.sqrt(), 1e22 + 1.0, 123456.789e-20, 9.007199254740993e15] {
            assert_eq!(text(v).parse::<f64>(), Ok(v), "{v}");
        }
    }

    #[test]
    fn fixed_decimals_doubles_print_as_my_fcvt() {
        let fixed = |v: f64, d: u8| {
            let mut s = String::new();
            write_fixed(&mut s, v, d);
            s
        };
        assert_eq!(fixed(7.0, 3), "7.000");
        assert_eq!(fixed(2.5, 0), "2");
        assert_eq!(fixed(9.999999999999998e19, 3), "99999999999999980000.000");
        assert_eq!(fixed(1e300, 0).len(), 301);
        assert_eq!(fixed(-0.0, 0), "0");
        assert_eq!(fixed(123.456789, 2), "123.46");
        assert_eq!(fixed(1e-7, 2), "0.00");
        let mut s = String::new();
        let column = ColumnShape {
            column_type: ColumnType::MYSQL_TYPE_DOUBLE,
            unsigned: false,
            decimals: 31,
        };
        value_to_text(&mut s, &Value::Double(2.5), &column);
        assert_eq!(s, "2.5");
    }

    fn shape(column_type: ColumnType) -> ColumnShape {
        // A DOUBLE without fixed decimals says so with 31 (mysqld's NOT_FIXED_DEC), as every
        // DOUBLE column and expression result does; 0 would mean "no fraction digits".
        let decimals = if column_type == ColumnType::MYSQL_TYPE_DOUBLE { 31 } else { 0 };
        ColumnShape { column_type, unsigned: false, decimals }
    }

    #[test]
    fn column_definition_bytes_follow_the_protocol() {
        // An INT column as mysqld 8.0 sends it: charset 63 before length 11.
        let col = Column::new(ColumnType::MYSQL_TYPE_LONG)
            .with_schema(b"db")
            .with_table(b"t")
            .with_org_table(b"t")
            .with_name(b"n")
            .with_org_name(b"n")
            .with_column_length(11)
            .with_character_set(63)
            .with_flags(ColumnFlags::NUM_FLAG | ColumnFlags::NOT_NULL_FLAG);
        let mut buf = Vec::new();
        write_column_definition(&mut buf, &col);
        let mut expected = vec![3, b'd', b'e', b'f', 2, b'd', b'b', 1, b't', 1, b't', 1, b'n'];
        expected.extend_from_slice(&[1, b'n', 0x0c, 0x3f, 0x00, 0x0b, 0, 0, 0, 0x03]);
        expected.extend_from_slice(&[0x01, 0x80, 0x00, 0x00, 0x00]);
        assert_eq!(buf, expected);
        // mysql_common's own parser reads it back field for field.
        let parsed: Column = mysql_common::proto::MyDeserialize::deserialize(
            (),
            &mut mysql_common::io::ParseBuf(&buf),
        )
        .expect("parses");
        assert_eq!(parsed.character_set(), 63);
        assert_eq!(parsed.column_length(), 11);
        assert_eq!(parsed.name_ref(), b"n");
    }

    #[test]
    fn text_row_encoding() {
        let cols = [
            shape(ColumnType::MYSQL_TYPE_LONGLONG),
            shape(ColumnType::MYSQL_TYPE_VAR_STRING),
            shape(ColumnType::MYSQL_TYPE_DATETIME),
            shape(ColumnType::MYSQL_TYPE_DOUBLE),
        ];
        let mut buf = Vec::new();
        encode_text_row(
            &mut buf,
            &cols,
            &[
                Value::Int(-5),
                Value::NULL,
                Value::Date(2024, 1, 2, 3, 4, 5, 0),
                Value::Double(1e20),
            ],
        );
        let mut expected = vec![2, b'-', b'5', 0xFB, 19];
        expected.extend_from_slice(b"2024-01-02 03:04:05");
        expected.push(4);
        expected.extend_from_slice(b"1e20");
        assert_eq!(buf, expected);
    }

    #[test]
    fn time_and_fraction_text() {
        let mut s = String::new();
        let col =
            ColumnShape { column_type: ColumnType::MYSQL_TYPE_TIME, unsigned: false, decimals: 3 };
        value_to_text(&mut s, &Value::Time(true, 1, 2, 3, 4, 500_000), &col);
        assert_eq!(s, "-26:03:04.500");
        s.clear();
        value_to_text(&mut s, &Value::Double(0.5), &shape(ColumnType::MYSQL_TYPE_DOUBLE));
        assert_eq!(s, "0.5");
    }

    /// A FLOAT's text is the shortest that reads back as the same f32 (not the f64 widening's
    /// digits); YEAR is four digits (`0000`), as mysqld prints them.
    #[test]
    fn float_and_year_text() {
        let text = |v: Value, t: ColumnType| {
            let mut s = String::new();
            value_to_text(&mut s, &v, &shape(t));
            s
        };
        let f = ColumnType::MYSQL_TYPE_FLOAT;
        assert_eq!(text(Value::Float(3.4e38), f), "3.4e38");
        assert_eq!(text(Value::Float(-1.175_494_4e-38), f), "-1.1754944e-38");
        assert_eq!(text(Value::Float(16_777_217.0), f), "16777216");
        assert_eq!(text(Value::Float(0.1), f), "0.1");
        let y = ColumnType::MYSQL_TYPE_YEAR;
        assert_eq!(text(Value::UInt(0), y), "0000");
        assert_eq!(text(Value::Int(0), y), "0000");
        assert_eq!(text(Value::UInt(2024), y), "2024");
        assert_eq!(text(Value::UInt(0), ColumnType::MYSQL_TYPE_LONG), "0");
    }

    #[test]
    fn binary_row_null_bitmap_and_widths() {
        let cols = [
            shape(ColumnType::MYSQL_TYPE_LONG),
            shape(ColumnType::MYSQL_TYPE_VAR_STRING),
            shape(ColumnType::MYSQL_TYPE_TINY),
        ];
        let mut buf = Vec::new();
        encode_binary_row(
            &mut buf,
            &cols,
            &[Value::Int(7), Value::NULL, Value::Bytes(b"3".to_vec())],
        )
        .expect("encodes");
        // header, bitmap (column 1 -> bit 3), LONG 7, TINY 3
        assert_eq!(buf, vec![0x00, 0b0000_1000, 7, 0, 0, 0, 3]);
    }

    #[test]
    fn binary_mismatch_is_reported() {
        let cols = [shape(ColumnType::MYSQL_TYPE_LONG)];
        let mut buf = Vec::new();
        let err = encode_binary_row(&mut buf, &cols, &[Value::Bytes(b"x".to_vec())])
            .expect_err("not an integer");
        assert!(matches!(err, Error::BadValue { column: 0, .. }));
    }
}
