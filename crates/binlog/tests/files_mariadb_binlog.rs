//! A file set written by `BinlogWriter` (rotations, a clean close, a crashed-and-recovered
//! file, preallocation) is read by a real binlog tool, `mariadb-binlog`, with checksums
//! verified: every file must decode to its end without an error.
//!
//! `scripts/test.sh` installs the tool; without it (a bare `cargo test`) the test says so and
//! checks nothing.

use std::path::Path;
use std::process::Command;

use binlog::event::{
    ChecksumAlg, Event, EventBody, EventHeader, FormatContext, GtidEvent, LogicalClock, QueryEvent,
    StatusVars, XidEvent,
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
    let mut out = Vec::new();
    for body in [EventBody::Gtid(g), EventBody::Query(begin), EventBody::Xid(XidEvent { xid: n })] {
        let at = pos + out.len() as u64;
        Event::new(header, body).encode(&ctx, at, &mut out).expect("encode");
    }
    (out, gtid)
}

fn append(w: &mut BinlogWriter, n: u64) {
    let (bytes, gtid) = transaction(n, w.write_pos());
    w.append(&bytes, &[gtid]).expect("append");
    w.sync().expect("sync");
}

fn tool_reads_cleanly(path: &Path) {
    let out = Command::new("mariadb-binlog")
        .arg("--verify-binlog-checksum")
        .arg(path)
        .output()
        .expect("run mariadb-binlog");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{}: mariadb-binlog failed: {stderr}", path.display());
    assert!(!stderr.contains("ERROR"), "{}: {stderr}", path.display());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("End of log file"), "{}: not read to its end", path.display());
}

#[test]
fn mariadb_binlog_reads_every_file() {
    if Command::new("mariadb-binlog").arg("--version").output().is_err() {
        eprintln!("mariadb-binlog not installed; run scripts/test.sh for this check");
        return;
    }
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
    for line in names.lines() {
        tool_reads_cleanly(&dir.path().join(line));
    }
}
