//! A file set written by `BinlogWriter` (rotations, a clean close, a crashed-and-recovered
//! file, preallocation) is read by a real binlog tool, `mariadb-binlog`, with checksums
//! verified: every file must decode to its end without an error.
//!
//! Each transaction carries a TABLE_MAP and a WRITE_ROWS with every column type binlogd
//! writes, and the tool must decode the row values back (`-vv`).
//!
//! `scripts/test.sh` installs the tool; without it the test fails and says so.

use std::path::Path;
use std::process::Command;

use binlog::event::{
    rows_flags, BinlogDateTime, ChecksumAlg, ColumnDef, ColumnType, Event, EventBody, EventHeader,
    FormatContext, GtidEvent, LogicalClock, QueryEvent, RowMetadata, RowsEvent, RowsKind,
    StatusVars, TableMap, Value, XidEvent,
};
use binlog::files::{BinlogWriter, Options};
use binlog::gtid::{Gtid, Sid};

fn transaction(n: u64, pos: u64) -> (Vec<u8>, Gtid) {
    let gtid = Gtid::new(Sid([0x5a; 16]), n).expect("gno in range");
    let ctx = FormatContext { checksum: ChecksumAlg::Crc32 };
    let header = EventHeader::new(1_700_000_000, 1, 0);
    let clock = LogicalClock { last_committed: n as i64 - 1, sequence_number: n as i64 };
    let g = GtidEvent::mysql80(gtid, clock, 1_700_000_000_000_000, 0, 80040);
    let begin = QueryEvent::begin(1, "test", &StatusVars::mysql80_default()).expect("BEGIN");
    let table = table_map();
    let mut rows = RowsEvent::new(RowsKind::Write, &table, rows_flags::STMT_END_F);
    rows.push_row(&table, None, Some(&row(n))).expect("row fits the table");
    let mut out = Vec::new();
    for body in [
        EventBody::Gtid(g),
        EventBody::Query(begin),
        EventBody::TableMap(table),
        EventBody::Rows(rows),
        EventBody::Xid(XidEvent { xid: n }),
    ] {
        let at = pos + out.len() as u64;
        Event::new(header, body).encode(&ctx, at, &mut out).expect("encode");
    }
    (out, gtid)
}

fn column(name: &str, column_type: ColumnType, meta: u16, collation: Option<u16>) -> ColumnDef {
    ColumnDef { name: name.into(), column_type, meta, nullable: true, unsigned: false, collation }
}

/// `t(id BIGINT, name VARCHAR(40), score DOUBLE, price DECIMAL(10,2), at DATETIME(6),
/// note TEXT)` in schema `test`.
fn table_map() -> TableMap {
    let columns = [
        column("id", ColumnType::LONGLONG, 0, None),
        column("name", ColumnType::VARCHAR, 160, Some(255)),
        column("score", ColumnType::DOUBLE, 8, None),
        column("price", ColumnType::NEWDECIMAL, 10 << 8 | 2, None),
        column("at", ColumnType::DATETIME2, 6, None),
        column("note", ColumnType::BLOB, 2, Some(255)),
    ];
    TableMap::new(77, "test", "t", &columns, &[0], RowMetadata::Full)
}

fn row(n: u64) -> Vec<Value> {
    let at = BinlogDateTime {
        year: 2026,
        month: 11,
        day: 22,
        hour: 3,
        minute: 4,
        second: 5,
        micros: 678,
    };
    vec![
        Value::Int(n as i64),
        Value::Bytes(format!("row-{n}").into_bytes()),
        Value::Double(n as f64 + 0.5),
        Value::Decimal(format!("-{n}.25")),
        Value::DateTime(at),
        Value::Null,
    ]
}

fn append(w: &mut BinlogWriter, n: u64) {
    let (bytes, gtid) = transaction(n, w.write_pos());
    w.append(&bytes, &[gtid]).expect("append");
    w.sync().expect("sync");
}

/// Runs the tool on one file and returns what it printed.
fn tool_reads_cleanly(path: &Path) -> String {
    let out = Command::new("mariadb-binlog")
        .arg("--verify-binlog-checksum")
        .arg("-vv")
        .arg(path)
        .output()
        .expect("run mariadb-binlog");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{}: mariadb-binlog failed: {stderr}", path.display());
    assert!(!stderr.contains("ERROR"), "{}: {stderr}", path.display());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("End of log file"), "{}: not read to its end", path.display());
    stdout.into_owned()
}

#[test]
fn mariadb_binlog_reads_every_file() {
    assert!(
        Command::new("mariadb-binlog").arg("--version").output().is_ok(),
        "mariadb-binlog is not installed: scripts/test.sh installs it (Debian's mariadb-client)"
    );
    let dir = tempfile::tempdir().expect("tempdir");
    let opts =
        Options { max_binlog_size: 4096, binlog_preallocate: true, ..Options::new(dir.path()) };
    let vfs = vfs::RealVfs::shared();
    let mut w = BinlogWriter::open(vfs.clone(), opts.clone()).expect("open");
    for n in 1..=40 {
        append(&mut w, n);
        w.rotate_if_due().expect("rotate");
    }
    w.rotate().expect("flush binary logs");
    append(&mut w, 41);
    // A crash: the writer is dropped without closing; the reopen recovers the file.
    drop(w);
    let mut w = BinlogWriter::open(vfs, opts).expect("recover");
    assert!(w.is_recovering());
    w.finish_recovery().expect("finish recovery");
    append(&mut w, 42);
    w.close().expect("close");
    let names = std::fs::read_to_string(dir.path().join("binlog.index")).expect("index");
    assert!(names.lines().count() >= 4, "{names}");
    let mut decoded = String::new();
    for line in names.lines() {
        decoded.push_str(&tool_reads_cleanly(&dir.path().join(line)));
    }
    // The tool decoded every row, value by value, as mysqlbinlog -vv prints them.
    for n in 1..=42 {
        assert!(decoded.contains(&format!("@1={n} ")), "row {n} not decoded:\n{decoded}");
        assert!(decoded.contains(&format!("@2='row-{n}'")), "row {n} name:\n{decoded}");
        assert!(decoded.contains(&format!("@4=-{n}.25")), "row {n} decimal:\n{decoded}");
    }
    assert!(decoded.contains("@5='2026-11-22 03:04:05.000678'"), "datetime:\n{decoded}");
    assert!(decoded.contains("@6=NULL"), "null:\n{decoded}");
    assert_eq!(decoded.matches("### INSERT INTO `test`.`t`").count(), 42, "{decoded}");
}
