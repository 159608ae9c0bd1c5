//! `BINLOG 'base64'`: the row events mysqlbinlog / mariadb-binlog print, applied as mysqld's
//! `mysql_client_binlog_statement` (sql/sql_binlog.cc) applies them — so replaying
//! `mariadb-binlog FILE | mariadb` restores rows, not only DDL.
//!
//! - The text is base64 in one or more chunks (each event is encoded on its own, padded, and
//!   wrapped over lines; mysqld decodes with `MY_BASE64_DECODE_ALLOW_MULTIPLE_CHUNKS`).
//!   Whitespace is skipped; a chunk ends after its `=` padding. Bad base64: 1575.
//! - Each decoded buffer holds whole events (`event_size` of each header, checked against
//!   the bytes present; anything shorter is 1149, as mysqld's syntax error). Events are
//!   decoded by the `binlog` crate, CRC32-checked when the format description says so.
//! - FORMAT_DESCRIPTION sets the session's format (mysqld's `rli_fake`); any other event
//!   before one is 1609. TABLE_MAP is kept per table id for the session; WRITE/UPDATE/
//!   DELETE_ROWS (v1 and v2) are applied; any other event type is 1730.
//! - Rows go through the session's own write path (`write_insert` / `write_update` /
//!   `write_delete`, under row locks, recorded for the binlog and statement undo), inside the
//!   open transaction or, under autocommit, a transaction of their own: they are binlogged
//!   again and committed like any statement's. UPDATE/DELETE find the row by the before
//!   image's primary key, or (no primary key) the first row equal to the whole image, as the
//!   replica applier does (1032 when absent).
//! - Foreign keys: each event's rows are checked and cascaded as for a statement
//!   (`write_insert` & co. run `crate::foreign_keys`) unless the event carries
//!   `NO_FOREIGN_KEY_CHECKS_F`; the rows are binlogged again with the event's flag, and rows
//!   changed by referential actions are not binlogged (a replica runs the actions itself).
//! - Privilege: SUPER (mysqld: SUPER, BINLOG_ADMIN or REPLICATION_APPLIER), checked in acl.rs.
//!
//! Not handled: `BINLOG @var1, @var2` (MariaDB's fragmented form for events over
//! `max_allowed_packet`, 1064 here) and partial row images (binlog_row_image=MINIMAL): the
//! image must have every column.

use std::ops::Bound;

use base64::Engine as _;
use binlog::event::{decode_event, rows_flags, EventBody, FormatContext, RowsKind};
use engine::{Row, Value};

use super::error::{Result, SqlError};
use super::output::Output;
use super::rowimage::to_engine_row;
use super::session::Session;
use super::vars::Var;
use super::write::Target;

/// Event header: timestamp u32 | type u8 | server_id u32 | event_size u32 | ...
const HEADER_LEN: usize = 19;
const EVENT_SIZE_OFFSET: usize = 9;
const TYPE_OFFSET: usize = 4;

fn error(code: u16, sqlstate: &'static str, message: impl Into<String>) -> SqlError {
    SqlError::Other { code, sqlstate, message: message.into() }
}

fn base64_error() -> SqlError {
    error(1575, "HY000", "Decoding of base64 string failed")
}

fn syntax_error() -> SqlError {
    error(
        1149,
        "42000",
        "You have an error in your SQL syntax; check the manual that corresponds to your MySQL \
         server version for the right syntax to use",
    )
}

/// The decoded buffers of `text`: whitespace skipped, a chunk ends after its padding.
fn decode_chunks(text: &str) -> Result<Vec<Vec<u8>>> {
    let mut chunks = Vec::new();
    let mut current = String::new();
    let mut chars = text.chars().filter(|c| !c.is_ascii_whitespace()).peekable();
    while let Some(c) = chars.next() {
        current.push(c);
        if c == '=' && chars.peek() != Some(&'=') {
            chunks.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        chunks.push(current);
    }
    chunks
        .iter()
        .map(|c| base64::engine::general_purpose::STANDARD.decode(c).map_err(|_| base64_error()))
        .collect()
}

/// A mysqld-style name of an event type for 1609/1730.
fn type_name(t: u8) -> String {
    match t {
        2 => "Query".into(),
        4 => "Rotate".into(),
        16 => "Xid".into(),
        19 => "Table_map".into(),
        23 | 30 => "Write_rows".into(),
        24 | 31 => "Update_rows".into(),
        25 | 32 => "Delete_rows".into(),
        33 => "Gtid".into(),
        35 => "Previous_gtids".into(),
        other => format!("type {other}"),
    }
}

impl Session {
    pub(crate) fn binlog_statement(&mut self, text: &str) -> Result<Output> {
        self.server.count("Com_binlog");
        let buffers = decode_chunks(text)?;
        let mut rows = Vec::new();
        for buf in &buffers {
            let mut off = 0;
            while off < buf.len() {
                let rest = &buf[off..];
                let size = rest
                    .get(EVENT_SIZE_OFFSET..EVENT_SIZE_OFFSET + 4)
                    .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
                    .filter(|&s| s >= HEADER_LEN && s <= rest.len())
                    .ok_or_else(syntax_error)?;
                let event = &rest[..size];
                off += size;
                let event_type = event[TYPE_OFFSET];
                let replay = &mut self.binlog_replay;
                if event_type != 15 && replay.format.is_none() {
                    return Err(error(
                        1609,
                        "HY000",
                        format!(
                            "The BINLOG statement of type `{}` was not preceded by a format \
                             description BINLOG statement.",
                            type_name(event_type)
                        ),
                    ));
                }
                let ctx = replay.format.clone().unwrap_or_else(FormatContext::mysql80);
                let decoded = decode_event(event, &ctx, 0)
                    .map_err(|e| error(1105, "HY000", format!("Error in BINLOG event: {e}")))?;
                match decoded.body {
                    EventBody::FormatDescription(fde) => {
                        let format = FormatContext::from_fde(&fde, 0).map_err(|e| {
                            error(1105, "HY000", format!("Error in BINLOG event: {e}"))
                        })?;
                        replay.format = Some(format);
                    }
                    EventBody::TableMap(map) => {
                        replay.maps.insert(map.table_id, map);
                    }
                    EventBody::Rows(r) => {
                        let map = replay.maps.get(&r.table_id).ok_or_else(|| {
                            error(
                                1105,
                                "HY000",
                                format!("No table map for table id {} in BINLOG", r.table_id),
                            )
                        })?;
                        let changes = r.rows(map, 0).map_err(|e| {
                            error(1105, "HY000", format!("Error in BINLOG event: {e}"))
                        })?;
                        let db = String::from_utf8_lossy(&map.schema).into_owned();
                        let table = String::from_utf8_lossy(&map.table).into_owned();
                        let checks = r.flags & rows_flags::NO_FOREIGN_KEY_CHECKS_F == 0;
                        rows.push((r.kind, db, table, changes, checks));
                    }
                    _ => {
                        return Err(error(
                            1730,
                            "HY000",
                            format!(
                                "Only Format_description_log_event and row events are allowed \
                                 in BINLOG statements (but {} was provided)",
                                type_name(event_type)
                            ),
                        ))
                    }
                }
            }
        }
        if rows.is_empty() {
            return Ok(Output::ok(0));
        }
        // Each event's rows are applied with foreign key checks (and referential actions) as
        // its NO_FOREIGN_KEY_CHECKS_F says (mysqld's `Rows_log_event::do_apply_event` sets
        // `OPTION_NO_FOREIGN_KEY_CHECKS` from it), and are binlogged again with that flag.
        // The session's own `foreign_key_checks` is what it was once the statement ends.
        let saved = self.vars.get(&Var::ForeignKeyChecks).cloned();
        let out = self.in_txn(move |s| {
            for (kind, db, table, changes, checks) in &rows {
                s.vars.insert(Var::ForeignKeyChecks, Value::Int(i64::from(*checks)));
                let t = s.binlog_target(db, table)?;
                let start = s.txn_mut()?.changes.changes.len();
                for change in changes {
                    // Row images are written as given: no CHECK constraint is evaluated
                    // (mysqld's `Rows_log_event` applier).
                    s.row_events = true;
                    let applied =
                        s.apply_binlog_row(&t, *kind, table, &change.before, &change.after);
                    s.row_events = false;
                    applied?;
                }
                if !checks {
                    let changes = &mut s.txn_mut()?.changes;
                    let end = changes.changes.len();
                    changes.mark_fk_unchecked(start, end);
                }
            }
            // The events marked their own rows; the statement as a whole adds no mark.
            s.vars.insert(Var::ForeignKeyChecks, Value::Int(1));
            Ok(Output::ok(0))
        });
        match saved {
            Some(v) => self.vars.insert(Var::ForeignKeyChecks, v),
            None => self.vars.remove(&Var::ForeignKeyChecks),
        };
        out
    }

    fn binlog_target(&self, db: &str, table: &str) -> Result<Target> {
        let full = self.server.name_key(&format!("{db}.{table}"));
        let schema = self
            .server
            .engine
            .tables()
            .into_iter()
            .find(|s| self.server.name_key(&s.name) == full)
            .ok_or_else(|| SqlError::NoSuchTable { db: db.into(), table: table.into() })?;
        Ok(Target { id: schema.id, schema })
    }

    fn apply_binlog_row(
        &mut self,
        t: &Target,
        kind: RowsKind,
        table: &str,
        before: &Option<Vec<binlog::event::Value>>,
        after: &Option<Vec<binlog::event::Value>>,
    ) -> Result<()> {
        let convert = |image: &Option<Vec<binlog::event::Value>>| -> Result<Row> {
            let values = image
                .as_ref()
                .ok_or_else(|| error(1105, "HY000", "row image missing in BINLOG event"))?;
            to_engine_row(&t.schema, values).map_err(|(column, why)| {
                error(
                    13146,
                    "HY000",
                    format!("Column {column} of table '{table}' cannot be converted: {why}"),
                )
            })
        };
        let not_found = || error(1032, "HY000", format!("Can't find record in '{table}'"));
        match kind {
            RowsKind::Write => {
                self.write_insert(t, convert(after)?, 1)?;
            }
            RowsKind::Update => {
                let (key, current) = self.locate(t, &convert(before)?)?.ok_or_else(not_found)?;
                self.write_update(t, &key, current, convert(after)?, 1)?;
            }
            RowsKind::Delete => {
                let (key, current) = self.locate(t, &convert(before)?)?.ok_or_else(not_found)?;
                if !self.write_delete(t, &key, current)? {
                    return Err(not_found());
                }
            }
        }
        Ok(())
    }

    /// The row the before image names, locked: by primary key, or the first row equal to the
    /// whole image (no primary key), as the replica applier finds it.
    fn locate(&mut self, t: &Target, before: &Row) -> Result<Option<(engine::Key, Row)>> {
        let engine = self.server.engine.clone();
        let open = self.txn_mut()?;
        let key = if t.schema.primary_key.is_empty() {
            let rows =
                engine.scan(&open.txn, t.id, Bound::Unbounded, Bound::Unbounded, usize::MAX)?;
            match rows.into_iter().find(|(_, row)| row == before) {
                Some((k, _)) => k,
                None => return Ok(None),
            }
        } else {
            let pk: Vec<_> = t.schema.primary_key.iter().map(|&i| before[i].clone()).collect();
            engine.key(&pk)
        };
        Ok(engine.get_for_update(&mut open.txn, t.id, &key)?.map(|row| (key, row)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_split_after_padding() {
        let a = base64::engine::general_purpose::STANDARD.encode(b"ab");
        let b = base64::engine::general_purpose::STANDARD.encode(b"cdef");
        let text = format!("\n{a}\n{}\n{}\n", &b[..4], &b[4..]);
        assert_eq!(decode_chunks(&text).ok(), Some(vec![b"ab".to_vec(), b"cdef".to_vec()]));
        assert_eq!(decode_chunks("!!!!").map_err(|e| e.code()), Err(1575));
        assert_eq!(decode_chunks("").ok(), Some(vec![]));
    }
}
