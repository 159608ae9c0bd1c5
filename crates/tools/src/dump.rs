//! `binlogd dump FILE…`: prints binlog files one event per line, modelled on `mysqlbinlog`.
//!
//! Each event line is `# at POS TYPE server_id=ID end_log_pos=END details…`, where the
//! details depend on the type: the GTID and logical clock, the XID, the query text (newlines
//! escaped so it stays one line), the table a TABLE_MAP maps, the row count of a rows event,
//! the target of a ROTATE. `--verbose` adds the rows as pseudo-SQL, as `mysqlbinlog -vv`
//! does (`### INSERT INTO `db`.`t` / ### SET / ###   @1=5 /* INT meta=0 nullable=1
//! is_null=0 */`).
//!
//! Filters, applied to printing only (every event is still decoded and checksum-verified):
//! `--start-position`/`--stop-position` select events by offset (the FORMAT_DESCRIPTION is
//! always printed); `--include-gtids` and
//! `--exclude-gtids` select whole transactions by their GTID (an anonymous transaction is
//! never in an include set). Events outside transactions (FORMAT_DESCRIPTION,
//! PREVIOUS_GTIDS, ROTATE, STOP) are always printed, as `mysqlbinlog` prints its headers.
//!
//! `--verify` prints one summary line per file instead. Whatever the mode, the first bad
//! event (checksum mismatch, cut event, impossible field, undecodable rows) ends the run with
//! an error naming the file and the offset, and a non-zero exit. A file whose events are
//! followed only by zero bytes (a preallocated file, seed 004) ends at its last event.
//!
//! JSON, GEOMETRY and pre-5.6 temporal values are printed as hex of their stored bytes.
//!
//! Files are read whole into memory: this is an offline tool and binlog files are bounded by
//! `max_binlog_size`.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use binlog::error::DecodeError;
use binlog::event::{
    flags, rows_flags, BinlogFileReader, ColumnType, Event, EventBody, ReadEvent, RowsEvent,
    RowsKind, TableMap, Value,
};
use binlog::gtid::{Gtid, GtidError, GtidSet};

/// `binlogd dump` options (the names of `mysqlbinlog`'s).
#[derive(clap::Args, Debug, Clone)]
pub struct DumpArgs {
    /// Binlog files to print, in order.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Also print the rows of rows events as pseudo-SQL (as `mysqlbinlog -vv`).
    #[arg(short, long)]
    pub verbose: bool,
    /// Print only events at this offset or after.
    #[arg(long)]
    pub start_position: Option<u64>,
    /// Print only events that start before this offset.
    #[arg(long)]
    pub stop_position: Option<u64>,
    /// Print only transactions whose GTID is in this set (`uuid:1-5,uuid2:7`).
    #[arg(long, value_parser = parse_gtid_set)]
    pub include_gtids: Option<GtidSet>,
    /// Do not print transactions whose GTID is in this set.
    #[arg(long, value_parser = parse_gtid_set)]
    pub exclude_gtids: Option<GtidSet>,
    /// Only check every event's checksum and structure; print one line per file.
    #[arg(long)]
    pub verify: bool,
}

fn parse_gtid_set(text: &str) -> Result<GtidSet, GtidError> {
    text.parse()
}

/// Why `binlogd dump` stopped.
#[derive(Debug, thiserror::Error)]
pub enum DumpError {
    #[error("cannot read {}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}", path.display())]
    Decode {
        path: PathBuf,
        #[source]
        source: DecodeError,
    },
    #[error("cannot write the output")]
    Output(#[source] std::io::Error),
}

/// Runs `binlogd dump`.
pub fn run(args: &DumpArgs) -> Result<(), DumpError> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for path in &args.files {
        let result = dump_file(args, path, &mut out);
        out.flush().map_err(DumpError::Output)?;
        result?;
    }
    Ok(())
}

pub(crate) fn dump_file(
    args: &DumpArgs,
    path: &Path,
    out: &mut impl std::io::Write,
) -> Result<(), DumpError> {
    let bytes =
        std::fs::read(path).map_err(|source| DumpError::Read { path: path.into(), source })?;
    let decode_err = |source| DumpError::Decode { path: path.into(), source };
    let mut reader = BinlogFileReader::new(&bytes).map_err(decode_err)?;
    let mut filter = TrxFilter::default();
    let mut events = 0u64;
    let mut line = String::new();
    if !args.verify {
        writeln!(out, "# file {}", path.display()).map_err(DumpError::Output)?;
    }
    loop {
        let at = reader.position() as usize;
        // A preallocated file: only zeros after the last event.
        if bytes[at.min(bytes.len())..].iter().all(|&b| b == 0) {
            if at < bytes.len() && !args.verify {
                let zeros = bytes.len() - at;
                writeln!(out, "# end of events at {at} ({zeros} preallocated zero bytes follow)")
                    .map_err(DumpError::Output)?;
            }
            break;
        }
        let Some(item) = reader.next() else { break };
        let read = item.map_err(decode_err)?;
        events += 1;
        // Rows are decoded in every mode, so --verify checks them too.
        let rows = match &read.event.body {
            EventBody::Rows(r) => Some(reader.rows(r, read.offset).map_err(decode_err)?),
            _ => None,
        };
        let selected = filter.select(args, &read.event);
        // The format description is printed whatever the range, as mysqlbinlog does: it
        // says how to read the rest.
        let in_range = matches!(read.event.body, EventBody::FormatDescription(_))
            || (args.start_position.is_none_or(|p| read.offset >= p)
                && args.stop_position.is_none_or(|p| read.offset < p));
        if args.verify || !selected || !in_range {
            continue;
        }
        line.clear();
        describe(&mut line, &read, &reader, rows.as_ref().map(Vec::len));
        if args.verbose {
            if let (EventBody::Rows(r), Some(rows)) = (&read.event.body, &rows) {
                if let Some(table) = reader.table(r.table_id) {
                    print_rows(&mut line, r, table, rows);
                }
            }
        }
        out.write_all(line.as_bytes()).map_err(DumpError::Output)?;
    }
    if args.verify {
        writeln!(out, "{}: {events} events, every checksum and event valid", path.display())
            .map_err(DumpError::Output)?;
    }
    Ok(())
}

/// Tracks which transaction the current event belongs to and whether the GTID filters keep it.
#[derive(Default)]
struct TrxFilter {
    current_selected: bool,
}

impl TrxFilter {
    fn select(&mut self, args: &DumpArgs, event: &Event) -> bool {
        let gtid = match &event.body {
            EventBody::Gtid(g) => Some(Some(g.gtid())),
            EventBody::AnonymousGtid(_) => Some(None),
            EventBody::FormatDescription(_)
            | EventBody::PreviousGtids(_)
            | EventBody::Rotate(_)
            | EventBody::Stop => return true,
            _ => None,
        };
        if let Some(gtid) = gtid {
            self.current_selected = Self::keeps(args, gtid.as_ref());
        } else if args.include_gtids.is_none() && args.exclude_gtids.is_none() {
            return true;
        }
        self.current_selected
    }

    fn keeps(args: &DumpArgs, gtid: Option<&Gtid>) -> bool {
        let included = match (&args.include_gtids, gtid) {
            (None, _) => true,
            (Some(set), Some(g)) => set.contains(g),
            (Some(_), None) => false,
        };
        let excluded = match (&args.exclude_gtids, gtid) {
            (Some(set), Some(g)) => set.contains(g),
            _ => false,
        };
        included && !excluded
    }
}

/// One line describing an event.
fn describe(
    s: &mut String,
    read: &ReadEvent<'_>,
    reader: &BinlogFileReader<'_>,
    rows: Option<usize>,
) {
    let h = &read.event.header;
    let _ = write!(
        s,
        "# at {} {} server_id={} end_log_pos={}",
        read.offset,
        read.event.event_type().name(),
        h.server_id,
        h.log_pos
    );
    match &read.event.body {
        EventBody::FormatDescription(f) => {
            let checksum = match f.checksum_alg {
                None => "none (pre-5.6.1)",
                Some(0) => "NONE",
                Some(1) => "CRC32",
                Some(_) => "unknown",
            };
            let in_use = h.flags & flags::LOG_EVENT_BINLOG_IN_USE_F != 0;
            let _ = write!(
                s,
                " server_version={} binlog_version={} checksum={checksum} in_use={in_use}",
                f.server_version_str(),
                f.binlog_version
            );
        }
        EventBody::PreviousGtids(p) => {
            let _ = write!(s, " previous_gtids={}", p.gtids());
        }
        EventBody::Gtid(g) | EventBody::AnonymousGtid(g) => {
            if matches!(read.event.body, EventBody::Gtid(_)) {
                let _ = write!(s, " gtid={}", g.gtid());
            } else {
                s.push_str(" gtid=ANONYMOUS");
            }
            if let Some(c) = g.logical_clock {
                let _ = write!(
                    s,
                    " last_committed={} sequence_number={}",
                    c.last_committed, c.sequence_number
                );
            }
            if let Some(info) = g.commit_info {
                let _ = write!(s, " immediate_commit_timestamp={}", info.immediate_commit_ts);
                if let Some(o) = info.original_commit_ts {
                    let _ = write!(s, " original_commit_timestamp={o}");
                }
                if let Some(len) = info.transaction_length {
                    let _ = write!(s, " transaction_length={len}");
                }
            }
        }
        EventBody::Query(q) => {
            let _ = write!(
                s,
                " thread_id={} exec_time={} error_code={} db={} query=",
                q.thread_id,
                q.exec_time,
                q.error_code,
                String::from_utf8_lossy(&q.schema)
            );
            for c in String::from_utf8_lossy(&q.query).chars() {
                match c {
                    '\n' => s.push_str("\\n"),
                    '\r' => s.push_str("\\r"),
                    c => s.push(c),
                }
            }
        }
        EventBody::TableMap(t) => {
            let _ = write!(
                s,
                " table=`{}`.`{}` table_id={} columns={}",
                String::from_utf8_lossy(&t.schema),
                String::from_utf8_lossy(&t.table),
                t.table_id,
                t.column_count()
            );
        }
        EventBody::Rows(r) => {
            if let Some(t) = reader.table(r.table_id) {
                let _ = write!(
                    s,
                    " table=`{}`.`{}`",
                    String::from_utf8_lossy(&t.schema),
                    String::from_utf8_lossy(&t.table)
                );
            }
            let _ = write!(s, " table_id={} rows={}", r.table_id, rows.unwrap_or(0));
            if r.flags & rows_flags::STMT_END_F != 0 {
                s.push_str(" flags=STMT_END_F");
            }
        }
        EventBody::Xid(x) => {
            let _ = write!(s, " xid={}", x.xid);
        }
        EventBody::Rotate(r) => {
            let _ = write!(
                s,
                " next_file={} position={}",
                String::from_utf8_lossy(&r.next_file),
                r.position
            );
        }
        EventBody::Stop => {}
        EventBody::Heartbeat(hb) => {
            let _ = write!(s, " log_file={}", String::from_utf8_lossy(&hb.log_file));
        }
        EventBody::HeartbeatV2(hb) => {
            let _ = write!(
                s,
                " log_file={} log_position={}",
                String::from_utf8_lossy(&hb.log_file),
                hb.log_position
            );
        }
        EventBody::Raw { body, .. } => {
            let _ = write!(s, " body_bytes={}", body.len());
        }
    }
    s.push('\n');
}

/// The rows of a rows event as `mysqlbinlog -vv` prints them.
fn print_rows(
    s: &mut String,
    event: &RowsEvent,
    table: &TableMap,
    rows: &[binlog::event::RowChange],
) {
    let name = format!(
        "`{}`.`{}`",
        String::from_utf8_lossy(&table.schema),
        String::from_utf8_lossy(&table.table)
    );
    let after_cols = event.columns_after.as_ref().unwrap_or(&event.columns);
    for row in rows {
        match event.kind {
            RowsKind::Write => {
                let _ = writeln!(s, "### INSERT INTO {name}\n### SET");
                print_image(s, table, event.columns.ones(), row.after.as_deref());
            }
            RowsKind::Delete => {
                let _ = writeln!(s, "### DELETE FROM {name}\n### WHERE");
                print_image(s, table, event.columns.ones(), row.before.as_deref());
            }
            RowsKind::Update => {
                let _ = writeln!(s, "### UPDATE {name}\n### WHERE");
                print_image(s, table, event.columns.ones(), row.before.as_deref());
                s.push_str("### SET\n");
                print_image(s, table, after_cols.ones(), row.after.as_deref());
            }
        }
    }
}

fn print_image(
    s: &mut String,
    table: &TableMap,
    columns: impl Iterator<Item = usize>,
    values: Option<&[Value]>,
) {
    let Some(values) = values else { return };
    for (col, value) in columns.zip(values) {
        let t = table.column_types.get(col).copied().unwrap_or_default();
        let meta = table.column_meta.get(col).copied().unwrap_or_default();
        let _ = write!(s, "###   @{}=", col + 1);
        print_value(s, t, meta, value);
        let _ = writeln!(
            s,
            " /* {} meta={} nullable={} is_null={} */",
            t.describe(meta),
            meta,
            u8::from(table.nullable.get(col)),
            u8::from(matches!(value, Value::Null))
        );
    }
}

/// A value as `mysqlbinlog` prints it (`log_event_print_value`): integers signed, followed by
/// the unsigned reading in parentheses when they differ; strings quoted and escaped.
fn print_value(s: &mut String, t: ColumnType, meta: u16, value: &Value) {
    let width = match t {
        ColumnType::TINY => 8,
        ColumnType::SHORT => 16,
        ColumnType::INT24 => 24,
        ColumnType::LONG => 32,
        _ => 64,
    };
    let signed_unsigned = |s: &mut String, bits: u64| {
        let shift = 64 - width;
        let signed = ((bits << shift) as i64) >> shift;
        let unsigned = if width == 64 { bits } else { bits & ((1u64 << width) - 1) };
        if signed < 0 {
            let _ = write!(s, "{signed} ({unsigned})");
        } else {
            let _ = write!(s, "{signed}");
        }
    };
    match value {
        Value::Null => s.push_str("NULL"),
        Value::Int(v) => signed_unsigned(s, *v as u64),
        Value::UInt(v) => signed_unsigned(s, *v),
        Value::Float(f) => {
            let _ = write!(s, "{f}");
        }
        Value::Double(f) => {
            let _ = write!(s, "{f}");
        }
        Value::Decimal(d) => s.push_str(d),
        Value::Bytes(b) => quote(s, b),
        // mysqlbinlog separates DATE fields with colons.
        Value::Date(d) => {
            let _ = write!(s, "'{:04}:{:02}:{:02}'", d.year, d.month, d.day);
        }
        Value::DateTime(d) => {
            let _ = write!(
                s,
                "'{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
                d.year, d.month, d.day, d.hour, d.minute, d.second
            );
            frac(s, meta, d.micros);
            s.push('\'');
        }
        Value::Timestamp { seconds, micros } => {
            let _ = write!(s, "{seconds}");
            frac(s, meta, *micros);
        }
        Value::Time(tm) => {
            let sign = if tm.negative { "-" } else { "" };
            let _ = write!(s, "'{sign}{:02}:{:02}:{:02}", tm.hours, tm.minutes, tm.seconds);
            frac(s, meta, tm.micros);
            s.push('\'');
        }
        Value::Year(y) => {
            let _ = write!(s, "{y}");
        }
        Value::Raw(b) => match t.real_type(meta) {
            ColumnType::ENUM | ColumnType::SET => {
                let _ = write!(s, "{}", binlog::event::raw_uint_le(b));
            }
            ColumnType::BIT => {
                // Exactly the column's bits, most significant first, as mysqlbinlog does.
                let bits = usize::from(meta >> 8) * 8 + usize::from(meta & 0xff);
                let all: String = b.iter().map(|byte| format!("{byte:08b}")).collect();
                let _ = write!(s, "b'{}'", &all[all.len().saturating_sub(bits)..]);
            }
            _ => {
                s.push_str("x'");
                for byte in b {
                    let _ = write!(s, "{byte:02x}");
                }
                s.push('\'');
            }
        },
    }
}

/// `.ffffff` cut to the column's fractional digits.
fn frac(s: &mut String, fsp: u16, micros: u32) {
    let digits = usize::from(fsp.min(6));
    if digits > 0 {
        let text = format!("{micros:06}");
        s.push('.');
        s.push_str(&text[..digits]);
    }
}

/// A quoted string with `mysqlbinlog`'s escapes; bytes that are not printable ASCII as
/// `\xNN`.
fn quote(s: &mut String, b: &[u8]) {
    s.push('\'');
    for &c in b {
        match c {
            b'\'' => s.push_str("\\'"),
            b'\\' => s.push_str("\\\\"),
            b'\n' => s.push_str("\\n"),
            b'\r' => s.push_str("\\r"),
            b'\t' => s.push_str("\\t"),
            0x20..=0x7e => s.push(char::from(c)),
            _ => {
                let _ = write!(s, "\\x{c:02x}");
            }
        }
    }
    s.push('\'');
}
