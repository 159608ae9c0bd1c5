//! Tests of the file set: on real files in temporary directories, and on the simulated disk
//! where the test needs a clock, faults or a deterministic `fallocate`.
//! The crash-at-every-step tests are in `crash_tests.rs`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use vfs::{Allocation, Fault, FaultKind, FaultOp, OpenMode, RealVfs, SimVfs, VfsRef};

use super::frame::{testing, MAGIC};
use super::recover::{self, Cursor, Step};
use super::*;
use crate::event::{decode_event, EventBody, EventType, FormatContext, TYPE_OFFSET};
use crate::gtid::{Gtid, GtidSet, Sid};

pub(super) const SID: Sid = Sid([0x3e; 16]);

pub(super) fn gtid(n: u64) -> Gtid {
    Gtid::new(SID, n).expect("gno in range")
}

pub(super) fn small_opts(dir: &Path) -> Options {
    Options { max_binlog_size: 4096, ..Options::new(dir) }
}

/// Appends transaction `n` (GTID `SID:n`, XID `n`) at the writer's `write_pos`.
pub(super) fn append_trx(w: &mut BinlogWriter, n: u64) -> Appended {
    let bytes = testing::transaction(w.options().checksum, Some(gtid(n)), n, w.write_pos());
    w.append(&bytes, &[gtid(n)]).expect("append")
}

fn set_of(range: std::ops::RangeInclusive<u64>) -> GtidSet {
    let mut s = GtidSet::new();
    for n in range {
        s.add(gtid(n));
    }
    s
}

/// One event of a file.
#[derive(Debug)]
pub(super) struct FileEvent {
    pub pos: u64,
    pub event_type: EventType,
    pub bytes: Vec<u8>,
}

/// Every event of a file from offset 4, asserting the file reads cleanly to its very end.
pub(super) fn read_all(vfs: &VfsRef, path: &Path) -> Vec<FileEvent> {
    let file = vfs.open(path, OpenMode::Read).expect("open");
    let len = file.len().expect("len");
    let header = recover::read_header(&file, path, len).expect("header");
    let mut cur = Cursor::default();
    let mut pos = MAGIC.len() as u64;
    let mut out = Vec::new();
    loop {
        match cur.event_at(&file, len, pos, header.checksum).expect("read") {
            Step::Event(ev) => {
                out.push(FileEvent {
                    pos,
                    event_type: EventType(ev[TYPE_OFFSET]),
                    bytes: ev.to_vec(),
                });
                pos += ev.len() as u64;
            }
            Step::End => return out,
            Step::Damaged(d) => panic!("{}: damaged at {pos}: {d}", path.display()),
        }
    }
}

pub(super) fn in_use(vfs: &VfsRef, path: &Path) -> bool {
    let file = vfs.open(path, OpenMode::Read).expect("open");
    recover::read_header(&file, path, file.len().expect("len")).expect("header").in_use
}

fn file_len(vfs: &VfsRef, path: &Path) -> u64 {
    vfs.open(path, OpenMode::Read).expect("open").len().expect("len")
}

fn rotate_target(ev: &FileEvent, checksum: bool) -> (String, u64) {
    let ctx = FormatContext {
        checksum: if checksum {
            crate::event::ChecksumAlg::Crc32
        } else {
            crate::event::ChecksumAlg::None
        },
    };
    match decode_event(&ev.bytes, &ctx, ev.pos).expect("decode").body {
        EventBody::Rotate(r) => (String::from_utf8(r.next_file).expect("utf8"), r.position),
        other => panic!("expected ROTATE, got {other:?}"),
    }
}

fn real() -> (tempfile::TempDir, VfsRef) {
    (tempfile::tempdir().expect("tempdir"), RealVfs::shared())
}

fn sim() -> (SimVfs, VfsRef, PathBuf) {
    let sim = SimVfs::new();
    let vfs = sim.shared();
    (sim, vfs, PathBuf::from("/data"))
}

#[test]
fn first_open_creates_file_and_index() {
    let (dir, vfs) = real();
    let w = BinlogWriter::open(vfs.clone(), small_opts(dir.path())).expect("open");
    assert_eq!(w.active_file(), "binlog.000001");
    let index = std::fs::read_to_string(dir.path().join("binlog.index")).expect("index");
    assert_eq!(index, "./binlog.000001\n");
    let path = dir.path().join("binlog.000001");
    let events = read_all(&vfs, &path);
    let types: Vec<EventType> = events.iter().map(|e| e.event_type).collect();
    assert_eq!(types, vec![EventType::FORMAT_DESCRIPTION, EventType::PREVIOUS_GTIDS]);
    assert!(in_use(&vfs, &path), "an open file carries LOG_EVENT_BINLOG_IN_USE_F");
    assert_eq!(w.write_pos(), file_len(&vfs, &path));
    assert_eq!(w.synced_pos(), w.write_pos());
    assert!(w.executed_gtids().is_empty());
    assert!(w.recovery_report().is_none());
    assert!(!w.is_recovering());
}

/// `next_ref` reads the same events as `next` (borrowed, the file by number), across a
/// rotation, and stops at the synced end as it does.
#[test]
fn next_ref_reads_what_next_reads() {
    let (dir, vfs) = real();
    let mut w = BinlogWriter::open(vfs.clone(), small_opts(dir.path())).expect("open");
    for n in 1..=3 {
        append_trx(&mut w, n);
    }
    w.sync().expect("sync");
    w.rotate().expect("rotate");
    for n in 4..=5 {
        append_trx(&mut w, n);
    }
    w.sync().expect("sync");
    append_trx(&mut w, 6);
    let files = w.files();
    let mut owned = files.reader_from_start().expect("reader");
    let mut borrowed = files.reader_from_start().expect("reader");
    let mut events = 0;
    loop {
        let a = owned.next(Some(Duration::ZERO)).expect("next");
        let b = borrowed.next_ref(Some(Duration::ZERO)).expect("next_ref");
        match (a, b) {
            (Next::Event(a), NextRef::Event { seq, pos, bytes }) => {
                assert_eq!((a.file, a.pos, &a.bytes[..]), (files.file_name(seq), pos, bytes));
                events += 1;
            }
            (Next::TimedOut, NextRef::TimedOut) => break,
            (a, b) => panic!("next gave {a:?}, next_ref {b:?}"),
        }
    }
    // Two files' FDE and PREVIOUS_GTIDS, the first's ROTATE, 5 synced transactions of 3 events.
    assert_eq!(events, 2 + 1 + 2 + 5 * 3);
    assert_eq!(owned.position(), borrowed.position());
}

#[test]
fn append_sync_and_read_back() {
    let (dir, vfs) = real();
    let mut w = BinlogWriter::open(vfs.clone(), small_opts(dir.path())).expect("open");
    let start = w.write_pos();
    let a = append_trx(&mut w, 1);
    assert_eq!((a.seq, a.start), (1, start));
    assert_eq!(w.synced_pos(), start, "append does not sync");
    let b = append_trx(&mut w, 2);
    assert_eq!(b.start, a.end);
    let synced = w.sync().expect("sync");
    assert_eq!(synced, BinlogPosition { file: "binlog.000001".into(), pos: b.end });
    assert_eq!(w.executed_gtids(), &set_of(1..=2));
    let mut r = w.files().reader_from_start().expect("reader");
    let mut seen = Vec::new();
    while let Next::Event(ev) = r.next(Some(Duration::ZERO)).expect("next") {
        assert_eq!(ev.file, "binlog.000001");
        seen.push((ev.pos, EventType(ev.bytes[TYPE_OFFSET])));
    }
    assert_eq!(seen.len(), 2 + 6, "FDE, PREVIOUS_GTIDS, then 2 x (GTID, BEGIN, XID)");
    assert_eq!(seen[2], (start, EventType::GTID));
    assert_eq!(seen[7].1, EventType::XID);
    assert_eq!(r.position().pos, b.end);
}

#[test]
fn rotation_at_max_binlog_size() {
    let (dir, vfs) = real();
    let mut w = BinlogWriter::open(vfs.clone(), small_opts(dir.path())).expect("open");
    let mut n = 0;
    loop {
        n += 1;
        let a = append_trx(&mut w, n);
        w.sync().expect("sync");
        if !a.rotation_due {
            assert!(!w.rotate_if_due().expect("not due"), "no rotation below max_binlog_size");
            continue;
        }
        assert!(a.end >= 4096);
        assert!(w.rotate_if_due().expect("rotate"));
        break;
    }
    assert_eq!(w.active_file(), "binlog.000002");
    let index = std::fs::read_to_string(dir.path().join("binlog.index")).expect("index");
    assert_eq!(index, "./binlog.000001\n./binlog.000002\n");
    let old = dir.path().join("binlog.000001");
    let events = read_all(&vfs, &old);
    let last = events.last().expect("events");
    assert_eq!(last.event_type, EventType::ROTATE);
    assert_eq!(rotate_target(last, true), ("binlog.000002".to_string(), 4));
    assert!(!in_use(&vfs, &old), "a rotated file is closed");
    let new = dir.path().join("binlog.000002");
    assert!(in_use(&vfs, &new));
    let file = vfs.open(&new, OpenMode::Read).expect("open");
    let header = recover::read_header(&file, &new, file.len().expect("len")).expect("header");
    assert_eq!(header.previous_gtids, set_of(1..=n), "PREVIOUS_GTIDS = GTIDs of older files");
    assert_eq!(w.executed_gtids(), &set_of(1..=n));
}

#[test]
fn forced_rotation_close_and_reopen() {
    let (dir, vfs) = real();
    let mut w = BinlogWriter::open(vfs.clone(), small_opts(dir.path())).expect("open");
    append_trx(&mut w, 1);
    w.rotate().expect("flush binary logs");
    append_trx(&mut w, 2);
    w.rotate().expect("flush binary logs");
    w.rotate().expect("an empty file rotates too");
    append_trx(&mut w, 3);
    w.sync().expect("sync");
    let names: Vec<String> = w.list_files().expect("list").into_iter().map(|f| f.name).collect();
    assert_eq!(names, ["binlog.000001", "binlog.000002", "binlog.000003", "binlog.000004"]);
    w.close().expect("close");
    for seq in 1..=4 {
        let path = dir.path().join(file_name("binlog", seq));
        assert!(!in_use(&vfs, &path), "{seq} closed");
        let last = read_all(&vfs, &path).pop().expect("events");
        let want = if seq == 4 { EventType::STOP } else { EventType::ROTATE };
        assert_eq!(last.event_type, want, "file {seq} ends with its closing event");
    }
    let w = BinlogWriter::open(vfs.clone(), small_opts(dir.path())).expect("reopen");
    assert!(w.recovery_report().is_none(), "a clean shutdown needs no recovery");
    assert_eq!(w.active_file(), "binlog.000005", "a new file at every start, as MySQL");
    assert_eq!(w.executed_gtids(), &set_of(1..=3));
    let path = dir.path().join("binlog.000005");
    let file = vfs.open(&path, OpenMode::Read).expect("open");
    let header = recover::read_header(&file, &path, file.len().expect("len")).expect("header");
    assert_eq!(header.previous_gtids, set_of(1..=3));
}

#[test]
fn purge_to_name() {
    let (dir, vfs) = real();
    let mut w = BinlogWriter::open(vfs.clone(), small_opts(dir.path())).expect("open");
    for n in 1..=4 {
        append_trx(&mut w, n);
        w.rotate().expect("rotate");
    }
    assert_eq!(w.active_file(), "binlog.000005");
    assert!(matches!(w.purge_to("binlog.000042"), Err(Error::UnknownFile { .. })));
    assert!(matches!(w.purge_to("nonsense"), Err(Error::UnknownFile { .. })));
    let out = w.purge_to("binlog.000003").expect("purge");
    assert_eq!(out.purged, ["binlog.000001", "binlog.000002"]);
    assert_eq!(out.stopped_at_in_use, None);
    assert!(!dir.path().join("binlog.000001").exists());
    assert!(!dir.path().join("binlog.000002").exists());
    let index = std::fs::read_to_string(dir.path().join("binlog.index")).expect("index");
    assert_eq!(index, "./binlog.000003\n./binlog.000004\n./binlog.000005\n");
    assert_eq!(w.purged_gtids(), &set_of(1..=2), "gtid_purged = first file's PREVIOUS_GTIDS");
    assert_eq!(w.files().file_names(), ["binlog.000003", "binlog.000004", "binlog.000005"]);
    let out = w.purge_to("binlog.000005").expect("purge to the active file");
    assert_eq!(out.purged, ["binlog.000003", "binlog.000004"]);
    assert_eq!(w.files().file_names(), ["binlog.000005"], "the active file stays");
    assert!(matches!(w.files().reader_at("binlog.000002", 4), Err(Error::Purged { .. })));
    drop(w);
    let w = BinlogWriter::open(vfs, small_opts(dir.path())).expect("reopen");
    assert_eq!(w.purged_gtids(), &set_of(1..=4));
    assert_eq!(w.executed_gtids(), &set_of(1..=4));
}

#[test]
fn purge_before_date_never_the_active_file() {
    let (sim, vfs, dir) = sim();
    sim.set_now_unix_secs(1000);
    let mut w = BinlogWriter::open(vfs.clone(), small_opts(&dir)).expect("open");
    append_trx(&mut w, 1);
    w.rotate().expect("rotate");
    sim.set_now_unix_secs(2000);
    append_trx(&mut w, 2);
    w.rotate().expect("rotate");
    sim.set_now_unix_secs(3000);
    append_trx(&mut w, 3);
    w.rotate().expect("rotate");
    // Each file was last changed when it was closed; file 4 is active.
    let ages: Vec<u64> = (1..=4)
        .map(|s| vfs.modified_unix_secs(&dir.join(file_name("binlog", s))).expect("mtime"))
        .collect();
    assert_eq!(ages, [1000, 2000, 3000, 3000]);
    let out = w.purge_before_date(1000).expect("purge nothing");
    assert!(out.purged.is_empty(), "modified at 1000 is not before 1000");
    let out = w.purge_before_date(2500).expect("purge");
    assert_eq!(out.purged, ["binlog.000001", "binlog.000002"]);
    let out = w.purge_before_date(1_000_000).expect("purge everything old");
    assert_eq!(out.purged, ["binlog.000003"]);
    assert_eq!(w.files().file_names(), ["binlog.000004"], "never the active file");
    assert_eq!(w.purged_gtids(), &set_of(1..=3));
}

#[test]
fn purge_stops_at_a_file_being_read() {
    let (dir, vfs) = real();
    let mut w = BinlogWriter::open(vfs.clone(), small_opts(dir.path())).expect("open");
    for n in 1..=3 {
        append_trx(&mut w, n);
        w.rotate().expect("rotate");
    }
    let reader = w.files().reader_at("binlog.000002", 4).expect("reader");
    let out = w.purge_to("binlog.000004").expect("purge");
    assert_eq!(out.purged, ["binlog.000001"]);
    assert_eq!(out.stopped_at_in_use.as_deref(), Some("binlog.000002"));
    drop(reader);
    let out = w.purge_to("binlog.000004").expect("purge");
    assert_eq!(out.purged, ["binlog.000002", "binlog.000003"]);
}

#[test]
fn purge_stops_at_a_pinned_file_and_the_pin_follows() {
    let (dir, vfs) = real();
    let mut w = BinlogWriter::open(vfs.clone(), small_opts(dir.path())).expect("open");
    for n in 1..=4 {
        append_trx(&mut w, n);
        w.rotate().expect("rotate");
    }
    let mut pin = w.files().pin("binlog.000002").expect("pin");
    let out = w.purge_to("binlog.000005").expect("purge");
    assert_eq!(out.purged, ["binlog.000001"]);
    assert_eq!(out.stopped_at_in_use.as_deref(), Some("binlog.000002"));
    assert!(matches!(w.files().pin("binlog.000001"), Err(Error::Purged { .. })));
    assert!(matches!(pin.follow("binlog.000009"), Err(Error::UnknownFile { .. })));
    pin.follow("binlog.000004").expect("follow");
    let out = w.purge_to("binlog.000005").expect("purge");
    assert_eq!(out.purged, ["binlog.000002", "binlog.000003"]);
    assert_eq!(out.stopped_at_in_use.as_deref(), Some("binlog.000004"));
    drop(pin);
    let out = w.purge_to("binlog.000005").expect("purge");
    assert_eq!(out.purged, ["binlog.000004"]);
}

fn fallocate_works(dir: &Path) -> bool {
    let f = RealVfs::shared().open(&dir.join("probe"), OpenMode::CreateNew).expect("probe");
    let ok = f.allocate(8192).expect("allocate") == Allocation::Allocated;
    std::fs::remove_file(dir.join("probe")).expect("rm probe");
    ok
}

#[test]
fn preallocated_file_is_full_size_while_open_and_cut_at_close() {
    let (dir, vfs) = real();
    let supported = fallocate_works(dir.path());
    let opts =
        Options { binlog_preallocate: true, max_binlog_size: 65536, ..small_opts(dir.path()) };
    let mut w = BinlogWriter::open(vfs.clone(), opts.clone()).expect("open");
    let first = dir.path().join("binlog.000001");
    if supported {
        assert_eq!(file_len(&vfs, &first), 65536, "fallocated to max_binlog_size");
    }
    append_trx(&mut w, 1);
    w.sync().expect("sync");
    if supported {
        assert_eq!(file_len(&vfs, &first), 65536, "appends overwrite preallocated space");
    }
    let mut r = w.files().reader_from_start().expect("reader");
    let mut count = 0;
    while let Next::Event(_) = r.next(Some(Duration::ZERO)).expect("next") {
        count += 1;
    }
    assert_eq!(count, 5, "the reader stops at the synced end, not in the zeros");
    w.rotate().expect("rotate");
    let events = read_all(&vfs, &first);
    let end = events.last().map(|e| e.pos + e.bytes.len() as u64).expect("events");
    assert_eq!(file_len(&vfs, &first), end, "the unused tail is cut when the file is closed");
    let second = dir.path().join("binlog.000002");
    w.close().expect("close");
    let events = read_all(&vfs, &second);
    assert_eq!(events.last().map(|e| e.event_type), Some(EventType::STOP));
}

#[test]
fn preallocation_on_the_simulated_disk() {
    let (sim, vfs, dir) = sim();
    let opts = Options { binlog_preallocate: true, max_binlog_size: 65536, ..small_opts(&dir) };
    let mut w = BinlogWriter::open(vfs.clone(), opts.clone()).expect("open");
    let first = dir.join("binlog.000001");
    assert_eq!(sim.contents(&first).expect("file").len(), 65536);
    append_trx(&mut w, 1);
    w.close().expect("close");
    assert!(sim.contents(&first).expect("file").len() < 4096, "cut at close");
    // Without fallocate the set still works: files grow by appending (and a warning is logged).
    sim.set_allocate_supported(false);
    let mut w = BinlogWriter::open(vfs.clone(), opts).expect("reopen");
    let second = dir.join("binlog.000002");
    assert_eq!(sim.contents(&second).map(|c| c.len() as u64), Some(w.write_pos()));
    append_trx(&mut w, 2);
    w.sync().expect("sync");
    assert_eq!(sim.contents(&second).map(|c| c.len() as u64), Some(w.write_pos()));
}

#[test]
fn allocate_warns_once() {
    let (sim, vfs, _) = sim();
    sim.set_allocate_supported(false);
    let f = vfs.open(Path::new("/f"), OpenMode::CreateNew).expect("create");
    let warned = AtomicBool::new(false);
    assert!(!prealloc::allocate(&f, 4096, &warned).expect("allocate"));
    assert!(warned.load(Ordering::Relaxed));
    assert!(!prealloc::allocate(&f, 4096, &warned).expect("allocate again"));
}

#[test]
fn pool_files_are_used_by_rename() {
    let (dir, vfs) = real();
    let pool = dir.path().join(POOL_DIR_NAME);
    std::fs::create_dir(&pool).expect("mkdir pool");
    for name in ["empty.000001", "empty.000002"] {
        std::fs::write(pool.join(name), vec![0u8; 16384]).expect("pool file");
    }
    let opts = Options { pool_dir: Some(pool.clone()), ..small_opts(dir.path()) };
    let mut w = BinlogWriter::open(vfs.clone(), opts).expect("open");
    assert!(!pool.join("empty.000001").exists(), "the first file came from the pool");
    let first = dir.path().join("binlog.000001");
    assert_eq!(file_len(&vfs, &first), 16384, "a pool file keeps its size while open");
    append_trx(&mut w, 1);
    w.rotate().expect("rotate");
    assert!(!pool.join("empty.000002").exists(), "rotation takes the next pool file");
    let cut = file_len(&vfs, &first);
    assert!(cut < 16384, "closed pool file is cut to its events");
    w.rotate().expect("rotate with an empty pool");
    assert!(dir.path().join("binlog.000003").exists(), "an empty pool falls back to a new file");
    w.close().expect("close");
    for seq in 1..=3 {
        read_all(&vfs, &dir.path().join(file_name("binlog", seq)));
    }
}

#[test]
fn reader_never_sees_unsynced_bytes() {
    let (dir, vfs) = real();
    let mut w = BinlogWriter::open(vfs, small_opts(dir.path())).expect("open");
    let mut r = w.files().reader_from_start().expect("reader");
    for _ in 0..2 {
        assert!(matches!(r.next(None).expect("header"), Next::Event(_)));
    }
    append_trx(&mut w, 1);
    assert_eq!(
        r.next(Some(Duration::from_millis(1))).expect("next"),
        Next::TimedOut,
        "appended but not synced: invisible"
    );
    w.sync().expect("sync");
    let Next::Event(ev) = r.next(None).expect("next") else { panic!("expected an event") };
    assert_eq!(EventType(ev.bytes[TYPE_OFFSET]), EventType::GTID);
    r.next(None).expect("BEGIN");
    r.next(None).expect("XID");
    w.close().expect("close");
    let Next::Event(stop) = r.next(None).expect("STOP") else { panic!("expected STOP") };
    assert_eq!(EventType(stop.bytes[TYPE_OFFSET]), EventType::STOP);
    assert_eq!(r.next(None).expect("end"), Next::Ended);
}

#[test]
fn readers_follow_rotation_while_a_writer_appends() {
    const TRXS: u64 = 300;
    let (dir, vfs) = real();
    let opts = Options { binlog_preallocate: true, ..small_opts(dir.path()) };
    let mut w = BinlogWriter::open(vfs, opts).expect("open");
    let files = w.files();
    let readers: Vec<_> = (0..3)
        .map(|_| {
            let files = files.clone();
            let mut r = files.reader_from_start().expect("reader");
            std::thread::spawn(move || {
                let mut xids = Vec::new();
                let mut rotations = 0;
                let mut current = String::new();
                while (xids.len() as u64) < TRXS {
                    let ev = match r.next(None).expect("next") {
                        Next::Event(ev) => ev,
                        other => panic!("reader stopped early: {other:?} after {xids:?}"),
                    };
                    let end = files.synced_end();
                    if ev.file == end.file {
                        assert!(ev.pos + ev.bytes.len() as u64 <= end.pos, "read past synced end");
                    }
                    if ev.file != current {
                        assert_eq!(ev.pos, 4, "a new file is read from its start");
                        current = ev.file.clone();
                    }
                    match EventType(ev.bytes[TYPE_OFFSET]) {
                        EventType::XID => {
                            let body = &ev.bytes[19..27];
                            xids.push(u64::from_le_bytes(body.try_into().expect("8 bytes")));
                        }
                        EventType::ROTATE => rotations += 1,
                        _ => {}
                    }
                }
                (xids, rotations)
            })
        })
        .collect();
    for n in 1..=TRXS {
        append_trx(&mut w, n);
        w.sync().expect("sync");
        w.rotate_if_due().expect("rotate");
    }
    let rotated = w.active_seq() - 1;
    assert!(rotated >= 5, "the workload rotates several times");
    w.close().expect("close");
    for h in readers {
        let (xids, rotations) = h.join().expect("reader thread");
        assert_eq!(xids, (1..=TRXS).collect::<Vec<_>>(), "every transaction once, in order");
        assert_eq!(rotations, rotated);
    }
}

/// Writes `bytes` at the end of the active file behind the writer's back, as a crash in
/// the middle of a write would leave them.
fn scribble(vfs: &VfsRef, path: &Path, at: u64, bytes: &[u8]) {
    let f = vfs.open(path, OpenMode::ReadWrite).expect("open");
    f.write_at(bytes, at).expect("write");
    f.sync_data().expect("sync");
}

#[test]
fn recovery_cuts_a_partial_transaction() {
    for checksum in [true, false] {
        let (dir, vfs) = real();
        let opts = Options { checksum, ..small_opts(dir.path()) };
        let mut w = BinlogWriter::open(vfs.clone(), opts.clone()).expect("open");
        let a = append_trx(&mut w, 1);
        let b = append_trx(&mut w, 2);
        w.sync().expect("sync");
        let half = testing::transaction(checksum, Some(gtid(3)), 3, b.end);
        let path = dir.path().join("binlog.000001");
        // The GTID and BEGIN events of transaction 3 made it, its XID did not.
        let cut = half.len() - if checksum { 31 } else { 27 };
        drop(w);
        scribble(&vfs, &path, b.end, &half[..cut]);
        let mut w = BinlogWriter::open(vfs.clone(), opts.clone()).expect("recover");
        let report = w.recovery_report().expect("report").clone();
        assert_eq!(report.file, "binlog.000001");
        assert!(report.in_use);
        assert_eq!(report.valid_end, b.end);
        assert_eq!(report.original_len, b.end + cut as u64);
        assert_eq!(report.bytes_cut, cut as u64);
        assert_eq!(report.reason, CutReason::PartialTransaction);
        assert_eq!(report.xids, [1, 2]);
        assert_eq!(report.gtids, [gtid(1), gtid(2)]);
        assert_eq!(report.transactions[0].start, a.start);
        assert!(report.previous_gtids.is_empty());
        assert!(w.is_recovering());
        assert_eq!(w.executed_gtids(), &set_of(1..=2));
        assert_eq!(file_len(&vfs, &path), b.end, "cut durably at open");
        assert!(matches!(w.rotate(), Err(Error::RecoveryPending)));
        w.finish_recovery().expect("finish");
        assert!(!w.is_recovering());
        assert!(!in_use(&vfs, &path), "flag cleared once recovery finished");
        assert_eq!(w.active_file(), "binlog.000002");
        w.close().expect("close");
        let w = BinlogWriter::open(vfs, opts).expect("reopen");
        assert!(w.recovery_report().is_none());
        assert_eq!(w.executed_gtids(), &set_of(1..=2));
    }
}

#[test]
fn recovery_cuts_preallocated_zeros_and_garbage() {
    let (sim, vfs, dir) = sim();
    let opts = Options { binlog_preallocate: true, max_binlog_size: 65536, ..small_opts(&dir) };
    let mut w = BinlogWriter::open(vfs.clone(), opts.clone()).expect("open");
    let a = append_trx(&mut w, 1);
    w.sync().expect("sync");
    drop(w);
    let vfs = sim.crash(vfs::CrashMode::DropUnsynced).shared();
    let mut w = BinlogWriter::open(vfs.clone(), opts.clone()).expect("recover");
    let report = w.recovery_report().expect("report");
    assert_eq!(report.reason, CutReason::Zeros);
    assert_eq!((report.valid_end, report.original_len), (a.end, 65536));
    assert_eq!(report.xids, [1]);
    let b = append_trx(&mut w, 2);
    w.sync().expect("sync");
    drop(w);
    let path = dir.join("binlog.000001");
    scribble(&vfs, &path, b.end, &[0xa5; 100]);
    let w = BinlogWriter::open(vfs.clone(), opts).expect("recover again");
    let report = w.recovery_report().expect("report");
    assert!(matches!(report.reason, CutReason::Damaged(_)), "{:?}", report.reason);
    assert_eq!(report.valid_end, b.end, "a group appended during recovery is kept");
    assert_eq!(report.xids, [1, 2]);
    assert_eq!(w.executed_gtids(), &set_of(1..=2));
}

#[test]
fn refill_during_recovery_then_finish() {
    let (dir, vfs) = real();
    let opts = small_opts(dir.path());
    let mut w = BinlogWriter::open(vfs.clone(), opts.clone()).expect("open");
    append_trx(&mut w, 1);
    w.sync().expect("sync");
    drop(w);
    let mut w = BinlogWriter::open(vfs.clone(), opts.clone()).expect("recover");
    assert_eq!(w.recovery_report().expect("report").reason, CutReason::Nothing);
    let mut r = w.files().reader_from_start().expect("reader");
    // Binlog-in-redo refills transaction 2 into the crashed file, at its own position.
    let b = append_trx(&mut w, 2);
    assert_eq!(b.seq, 1);
    assert!(!b.rotation_due, "no rotation while recovering");
    w.sync().expect("sync");
    w.finish_recovery().expect("finish");
    let file = dir.path().join("binlog.000001");
    assert!(!in_use(&vfs, &file));
    let last = read_all(&vfs, &file).pop().expect("events");
    assert_eq!(last.event_type, EventType::XID, "a recovered file ends at a transaction");
    let mut xids = 0;
    let mut files = Vec::new();
    while let Next::Event(ev) = r.next(Some(Duration::ZERO)).expect("next") {
        xids += usize::from(EventType(ev.bytes[TYPE_OFFSET]) == EventType::XID);
        if !files.contains(&ev.file) {
            files.push(ev.file);
        }
    }
    assert_eq!(xids, 2);
    assert_eq!(files, ["binlog.000001", "binlog.000002"], "reader moves on at end of file");
    assert_eq!(w.executed_gtids(), &set_of(1..=2));
}

#[test]
fn ddl_is_a_complete_transaction() {
    let (dir, vfs) = real();
    let opts = small_opts(dir.path());
    let mut w = BinlogWriter::open(vfs.clone(), opts.clone()).expect("open");
    let ddl = testing::ddl(true, gtid(1), w.write_pos());
    w.append(&ddl, &[gtid(1)]).expect("append");
    w.sync().expect("sync");
    drop(w);
    let w = BinlogWriter::open(vfs, opts).expect("recover");
    let report = w.recovery_report().expect("report");
    assert_eq!(report.gtids, [gtid(1)]);
    assert!(report.xids.is_empty());
    assert_eq!(report.reason, CutReason::Nothing);
}

#[test]
fn atomic_ddl_reports_its_xid() {
    let (dir, vfs) = real();
    let opts = small_opts(dir.path());
    let mut w = BinlogWriter::open(vfs.clone(), opts.clone()).expect("open");
    let ddl = testing::ddl_with_xid(true, gtid(1), Some(31), w.write_pos());
    w.append(&ddl, &[gtid(1)]).expect("append");
    w.sync().expect("sync");
    drop(w);
    let w = BinlogWriter::open(vfs, opts).expect("recover");
    let report = w.recovery_report().expect("report");
    assert_eq!(report.gtids, [gtid(1)]);
    assert_eq!(report.xids, [31], "a prepared DDL with this XID must commit");
}

#[test]
fn leftovers_removed_orphans_refused_missing_reported() {
    let (dir, vfs) = real();
    let opts = small_opts(dir.path());
    let mut w = BinlogWriter::open(vfs.clone(), opts.clone()).expect("open");
    append_trx(&mut w, 1);
    w.close().expect("close");
    std::fs::write(dir.path().join("binlog.000009"), b"half made").expect("stray");
    std::fs::write(dir.path().join("binlog.index_crash_safe"), b"./binlog.0000").expect("tmp");
    std::fs::write(dir.path().join("unrelated.txt"), b"keep me").expect("other");
    let w = BinlogWriter::open(vfs.clone(), opts.clone()).expect("open with leftovers");
    assert!(!dir.path().join("binlog.000009").exists());
    assert!(!dir.path().join("binlog.index_crash_safe").exists());
    assert!(dir.path().join("unrelated.txt").exists());
    assert_eq!(w.active_file(), "binlog.000002");
    w.close().expect("close");

    std::fs::remove_file(dir.path().join("binlog.000001")).expect("rm");
    assert!(matches!(
        BinlogWriter::open(vfs.clone(), opts.clone()),
        Err(Error::MissingFile { name }) if name == "binlog.000001"
    ));
    std::fs::remove_file(dir.path().join("binlog.index")).expect("rm index");
    assert!(matches!(BinlogWriter::open(vfs, opts), Err(Error::OrphanFiles { .. })));
}

#[test]
fn invalid_options_and_reader_errors() {
    let (dir, vfs) = real();
    let bad = Options { max_binlog_size: 100, ..small_opts(dir.path()) };
    assert!(matches!(BinlogWriter::open(vfs.clone(), bad), Err(Error::InvalidOptions { .. })));
    let bad = Options { basename: "a/b".into(), ..small_opts(dir.path()) };
    assert!(matches!(BinlogWriter::open(vfs.clone(), bad), Err(Error::InvalidOptions { .. })));
    let w = BinlogWriter::open(vfs, small_opts(dir.path())).expect("open");
    assert!(matches!(w.files().reader_at("binlog.000002", 4), Err(Error::UnknownFile { .. })));
    assert!(matches!(w.files().reader_at("other.000001", 4), Err(Error::UnknownFile { .. })));
    let mut r = w.files().reader_at("binlog.000001", 5).expect("reader at a non-boundary");
    assert!(matches!(r.next(Some(Duration::ZERO)), Err(Error::Corrupt { offset: 5, .. })));
}

#[test]
fn eio_on_fsync_poisons_the_writer() {
    let (sim, vfs, dir) = sim();
    let mut w = BinlogWriter::open(vfs.clone(), small_opts(&dir)).expect("open");
    let mut r = w.files().reader_from_start().expect("reader");
    append_trx(&mut w, 1);
    w.sync().expect("sync");
    append_trx(&mut w, 2);
    sim.inject(Fault::new(FaultOp::Sync, FaultKind::Eio));
    let err = w.sync().expect_err("fsync fails");
    assert!(matches!(&err, Error::Io(e) if e.kind() != std::io::ErrorKind::StorageFull));
    assert!(w.is_poisoned());
    // The next sync would succeed on the disk, but the writer must not report it.
    assert!(w.sync().expect_err("poisoned").is_poisoned());
    assert!(matches!(w.append(b"x", &[]), Err(Error::Poisoned { .. })));
    assert!(matches!(w.rotate(), Err(Error::Poisoned { .. })));
    assert!(matches!(w.purge_to("binlog.000001"), Err(Error::Poisoned { .. })));
    let poisoned = w.sync().expect_err("poisoned");
    assert!(std::error::Error::source(&poisoned).is_some(), "the cause is kept");
    // Readers get what was synced before, then the end.
    let mut xids = 0;
    loop {
        match r.next(None).expect("next") {
            Next::Event(ev) => {
                xids += usize::from(EventType(ev.bytes[TYPE_OFFSET]) == EventType::XID)
            }
            Next::Ended => break,
            Next::TimedOut => panic!("no timeout was given"),
        }
    }
    assert_eq!(xids, 1);
    assert!(matches!(w.close(), Err(Error::Poisoned { .. })));
    // A restart recovers: transaction 1 was synced; 2 may or may not have survived.
    let w = BinlogWriter::open(sim.crash(vfs::CrashMode::DropUnsynced).shared(), small_opts(&dir))
        .expect("reopen");
    assert!(w.executed_gtids().contains(&gtid(1)));
}

#[test]
fn enospc_on_write_is_a_clean_error() {
    let (sim, vfs, dir) = sim();
    let mut w = BinlogWriter::open(vfs.clone(), small_opts(&dir)).expect("open");
    append_trx(&mut w, 1);
    w.sync().expect("sync");
    sim.inject(Fault::new(FaultOp::Write, FaultKind::Enospc).on_path("binlog.000001"));
    let bytes = testing::transaction(true, Some(gtid(2)), 2, w.write_pos());
    match w.append(&bytes, &[gtid(2)]) {
        Err(Error::NoSpace { source }) => assert!(source.is_no_space()),
        other => panic!("expected NoSpace, got {other:?}"),
    }
    assert!(!w.executed_gtids().contains(&gtid(2)), "a failed append adds no GTID");
    assert!(matches!(w.append(&bytes, &[gtid(2)]), Err(Error::Poisoned { .. })));
}

#[test]
fn eio_during_rotation_poisons_and_restart_is_consistent() {
    let (sim, vfs, dir) = sim();
    let mut w = BinlogWriter::open(vfs.clone(), small_opts(&dir)).expect("open");
    append_trx(&mut w, 1);
    w.sync().expect("sync");
    sim.inject(Fault::new(FaultOp::Rename, FaultKind::Eio).on_path("binlog.index"));
    assert!(matches!(w.rotate(), Err(Error::Io(_))));
    assert!(w.rotate().expect_err("poisoned").is_poisoned());
    drop(w);
    let vfs = sim.crash(vfs::CrashMode::KeepAll).shared();
    let w = BinlogWriter::open(vfs.clone(), small_opts(&dir)).expect("reopen");
    assert_eq!(w.executed_gtids(), &set_of(1..=1));
    assert_eq!(w.files().file_names(), ["binlog.000001"], "the half-made file is gone");
    assert!(w.is_recovering(), "file 1 was never closed");
    let events = read_all(&vfs, &dir.join("binlog.000001"));
    assert_eq!(events.last().map(|e| e.event_type), Some(EventType::XID), "dangling ROTATE cut");
    assert_eq!(w.recovery_report().expect("report").reason, CutReason::TrailingEvent);
}

#[test]
fn shared_handle_reports_synced_end() {
    let (dir, vfs) = real();
    let mut w = BinlogWriter::open(vfs, small_opts(dir.path())).expect("open");
    let files: BinlogFiles = w.files();
    let before = files.synced_end();
    append_trx(&mut w, 1);
    assert_eq!(files.synced_end(), before, "unsynced appends are not published");
    let synced = w.sync().expect("sync");
    assert_eq!(files.synced_end(), synced);
    let shared: Arc<BinlogFiles> = Arc::new(files);
    assert_eq!(shared.file_names(), ["binlog.000001"]);
}

#[test]
fn a_closed_file_that_does_not_read_to_its_end_is_refused_then_cut_by_name() {
    let (dir, vfs) = real();
    let opts = Options { max_binlog_size: 1 << 20, ..Options::new(dir.path()) };
    let mut w = BinlogWriter::open(vfs.clone(), opts.clone()).expect("open");
    let ends: Vec<Appended> = (1..=20).map(|n| append_trx(&mut w, n)).collect();
    w.sync().expect("sync");
    w.close().expect("close");
    let path = dir.path().join("binlog.000001");
    assert!(!in_use(&vfs, &path));
    // One byte flipped inside transaction 11 of the closed file.
    let at = ends[9].end + 30;
    let f = vfs.open(&path, OpenMode::ReadWrite).expect("open");
    let mut b = [0u8; 1];
    f.read_exact_at(&mut b, at).expect("read");
    scribble(&vfs, &path, at, &[b[0] ^ 0x01]);
    let len = file_len(&vfs, &path);
    let err = BinlogWriter::open(vfs.clone(), opts.clone()).expect_err("refused");
    match &err {
        Error::ClosedFileDamaged { path: p, offset, bytes_after, .. } => {
            assert_eq!(p, &path);
            assert_eq!(*offset, ends[9].end, "the walk stops at transaction 11's damaged event");
            assert_eq!(*bytes_after, len - ends[9].end);
        }
        other => panic!("{other:?}"),
    }
    assert!(err.to_string().contains("binlog.000001"), "{err}");
    // The refusal changed nothing: the file is whole and the index lists one file.
    assert_eq!(file_len(&vfs, &path), len);
    assert!(!vfs.exists(&dir.path().join("binlog.000002")).expect("exists"));
    // The explicit mode accepts the loss: the file is cut, the report names what was lost.
    let accept = Options { recovery_accept_loss: true, ..opts };
    let mut w = BinlogWriter::open(vfs.clone(), accept).expect("accepted");
    let report = w.recovery_report().cloned().expect("a report");
    assert_eq!(report.valid_end, ends[9].end);
    assert_eq!(report.gtids.len(), 10);
    assert!(!report.in_use);
    w.finish_recovery().expect("finish");
    assert_eq!(w.executed_gtids(), &set_of(1..=10));
}
