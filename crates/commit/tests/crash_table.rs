//! One named test per row of the crash table of docs/design-brief.md (docs/architecture.md
//! maps each row to its tests), each on the simulated disk with the crash placed exactly, then
//! restart, XA recovery and the invariant.

mod common;

use std::path::Path;

use commit::CommitRequest;
use common::{check_invariant, open, read_binlog_with_previous, setup, Coord, Mode};
use engine::Value;
use vfs::{CrashMode, Fault, FaultKind, FaultOp, OpenMode, SimVfs, Vfs};

const CLASSIC: Mode = Mode { in_redo: false, sync_binlog: 1 };
const IN_REDO: Mode = Mode { in_redo: true, sync_binlog: 1 };
const FIRST_BINLOG: &str = "/data/binlog/binlog.000001";

/// Inserts row `id` and commits it.
fn commit_row(c: &Coord, id: i64) -> commit::Result<commit::Committed> {
    let e = c.engine();
    let t = e.table_id(common::TABLE).expect("table");
    let schema = e.schema(t).expect("schema");
    let mut txn = e.begin();
    let row = vec![Value::Int(id), Value::Int(id * 10), Value::Bytes(b"x".to_vec())];
    e.insert(&mut txn, t, row.clone()).expect("insert");
    let mut cache = c.new_cache("test");
    cache.insert(&schema, &row).expect("log row");
    c.commit(CommitRequest::rows(txn, cache))
}

fn has_row(c: &Coord, id: i64) -> bool {
    let e = c.engine();
    let t = e.table_id(common::TABLE).expect("table");
    e.get(&e.begin(), t, &e.key(&[Value::Int(id)])).expect("get").is_some()
}

/// A set with table t and `n` acknowledged rows 1..=n.
fn prepared_disk(mode: Mode, n: i64) -> (SimVfs, Coord, Vec<binlog::gtid::Gtid>) {
    let disk = SimVfs::new();
    let (c, _) = open(disk.shared(), mode);
    setup(&c);
    let acked = (1..=n).filter_map(|i| commit_row(&c, i).expect("commit").gtid).collect();
    (disk, c, acked)
}

#[test]
fn before_redo_prepare_durable_rolled_back() {
    let (disk, c, acked) = prepared_disk(CLASSIC, 3);
    disk.inject(Fault::new(FaultOp::Sync, FaultKind::Eio).on_path("#redo"));
    let e = commit_row(&c, 100).expect_err("the redo sync failed");
    assert_eq!(e.class(), commit::ErrorClass::Fatal);
    assert!(c.is_poisoned());
    drop(c);
    let (c, rec) = open(disk.crash(CrashMode::DropUnsynced).shared(), CLASSIC);
    // Its prepare record never became durable: recovery does not even see it (earlier
    // commits whose commit records were lost with the failed sync come back committed).
    assert!(rec.rolled_back_xids.is_empty());
    assert!(!has_row(&c, 100));
    assert_eq!(check_invariant(&c, &acked, "row 1"), 4);
}

#[test]
fn prepare_durable_binlog_not_written_rolled_back() {
    let (disk, c, acked) = prepared_disk(CLASSIC, 3);
    disk.inject(Fault::new(FaultOp::Write, FaultKind::Eio).on_path("binlog.0"));
    assert!(commit_row(&c, 100).is_err());
    drop(c);
    let (c, rec) = open(disk.crash(CrashMode::KeepAll).shared(), CLASSIC);
    assert_eq!(rec.rolled_back_xids.len(), 1, "the prepared transaction is rolled back");
    assert!(!has_row(&c, 100));
    check_invariant(&c, &acked, "row 2");
}

/// Ops of one classic commit: redo write, redo sync, binlog write, binlog sync. The power
/// fails at the binlog sync: the binlog bytes were written but not synced.
fn crash_at_binlog_sync(
    cm: CrashMode,
) -> (Coord, commit::RecoveryOutcome, Vec<binlog::gtid::Gtid>) {
    let (disk, c, acked) = prepared_disk(CLASSIC, 3);
    let before = disk.op_count();
    commit_row(&c, 50).expect("probe commit");
    assert_eq!(disk.op_count() - before, 4, "redo write+sync, binlog write+sync");
    let mut acked = acked;
    acked.extend(c.gtid_executed().gtids().last());
    disk.crash_at(disk.op_count() + 3);
    assert!(commit_row(&c, 100).is_err());
    drop(c);
    let (c, rec) = open(disk.crash(cm).shared(), CLASSIC);
    (c, rec, acked)
}

#[test]
fn binlog_written_not_synced_lost_means_rolled_back() {
    let (c, rec, acked) = crash_at_binlog_sync(CrashMode::DropUnsynced);
    assert_eq!(rec.rolled_back_xids.len(), 1);
    assert!(!has_row(&c, 100));
    check_invariant(&c, &acked, "row 3, bytes lost");
}

#[test]
fn binlog_written_not_synced_survived_means_committed() {
    let (c, rec, acked) = crash_at_binlog_sync(CrashMode::KeepAll);
    assert_eq!(rec.committed_xids.len(), 1);
    assert!(has_row(&c, 100));
    check_invariant(&c, &acked, "row 3, bytes kept");
}

#[test]
fn binlog_synced_engine_commit_not_durable_committed() {
    let (disk, c, mut acked) = prepared_disk(CLASSIC, 3);
    acked.extend(commit_row(&c, 100).expect("acknowledged").gtid);
    // The engine's commit record is only buffered: the power cut loses it.
    drop(c);
    let (c, rec) = open(disk.crash(CrashMode::DropUnsynced).shared(), CLASSIC);
    assert_eq!(rec.committed_xids.len(), 1, "recovered prepared, found in the binlog");
    assert!(has_row(&c, 100));
    check_invariant(&c, &acked, "row 4");
}

#[test]
fn partial_transaction_at_tail_truncated_and_rolled_back() {
    let (disk, c, acked) = prepared_disk(CLASSIC, 3);
    let before = disk.op_count();
    disk.crash_at(before + 3);
    assert!(commit_row(&c, 100).is_err());
    drop(c);
    let disk = disk.crash(CrashMode::KeepAll);
    // Tear the last transaction: cut inside its XID event, durably.
    let f = disk.open(Path::new(FIRST_BINLOG), OpenMode::ReadWrite).expect("open binlog");
    let len = f.len().expect("len");
    f.set_len(len - 10).expect("cut");
    f.sync_data().expect("sync");
    drop(f);
    let (c, rec) = open(disk.shared(), CLASSIC);
    let report = rec.binlog.expect("crashed file recovered");
    assert!(report.bytes_cut > 0, "the partial transaction was cut");
    assert_eq!(rec.rolled_back_xids.len(), 1);
    assert!(!has_row(&c, 100));
    check_invariant(&c, &acked, "row 5");
}

#[test]
fn preallocated_binlog_zeros_past_end() {
    let disk = SimVfs::new();
    let mut o = common::options();
    o.binlog_preallocate = true;
    o.max_binlog_size = 1 << 20;
    let (c, _) = Coord::open(disk.shared(), Path::new("/data"), o.clone(), common::config(CLASSIC))
        .expect("open");
    setup(&c);
    let acked: Vec<_> = (1..=5).filter_map(|i| commit_row(&c, i).expect("commit").gtid).collect();
    let preallocated = disk.contents(FIRST_BINLOG).expect("file").len();
    assert_eq!(preallocated, 1 << 20, "the file is preallocated");
    drop(c);
    let disk = disk.crash(CrashMode::DropUnsynced);
    let (c, rec) = Coord::open(disk.shared(), Path::new("/data"), o, common::config(CLASSIC))
        .expect("recover");
    let report = rec.binlog.expect("recovered");
    assert!(report.valid_end < 1 << 20);
    assert_eq!(disk.contents(FIRST_BINLOG).expect("file").len() as u64, report.valid_end);
    check_invariant(&c, &acked, "row 6, zeros");
}

#[test]
fn garbage_past_end_cut() {
    let (disk, c, acked) = prepared_disk(CLASSIC, 4);
    drop(c);
    let disk = disk.crash(CrashMode::DropUnsynced);
    let f = disk.open(Path::new(FIRST_BINLOG), OpenMode::ReadWrite).expect("open");
    let len = f.len().expect("len");
    f.write_at(&[0xAB; 100], len).expect("garbage");
    f.sync_data().expect("sync");
    drop(f);
    let (c, rec) = open(disk.shared(), CLASSIC);
    assert_eq!(rec.binlog.expect("recovered").bytes_cut, 100);
    check_invariant(&c, &acked, "row 6, garbage");
}

/// Crashes at every operation of `step` (after `n` acknowledged commits), in each crash
/// mode; checks the invariant and that no GTID is lost or doubled.
fn sweep_step(name: &str, step: impl Fn(&Coord) -> commit::Result<()>, full_check: bool) {
    let (disk, c, _) = prepared_disk(CLASSIC, 6);
    let before = disk.op_count();
    step(&c).expect("reference step");
    let ops = disk.op_count() - before;
    assert!(ops > 0);
    drop(c);
    for k in 0..ops {
        for cm in [CrashMode::DropUnsynced, CrashMode::KeepAll, CrashMode::Tear { seed: k }] {
            let (disk, c, acked) = prepared_disk(CLASSIC, 6);
            disk.crash_at(disk.op_count() + k);
            assert!(step(&c).is_err(), "{name}: k={k} must hit the crash");
            drop(c);
            let (c, _) = open(disk.crash(cm).shared(), CLASSIC);
            let ctx = format!("{name} k={k} {cm:?}");
            if full_check {
                check_invariant(&c, &acked, &ctx);
            } else {
                let (purged, txns) = read_binlog_with_previous(&c, &ctx);
                let mut all = purged;
                for t in &txns {
                    assert!(all.add(t.gtid), "{ctx}: {} doubled", t.gtid);
                }
                assert_eq!(c.gtid_executed(), all, "{ctx}: gtid_executed");
                for g in &acked {
                    assert!(all.contains(g), "{ctx}: {g} lost");
                }
            }
            // The set works after recovery.
            commit_row(&c, 1000).unwrap_or_else(|e| panic!("{ctx}: commit after recovery: {e}"));
        }
    }
}

#[test]
fn crash_during_rotation() {
    sweep_step("rotation", |c| c.rotate(), true);
}

#[test]
fn crash_during_purge() {
    sweep_step(
        "purge",
        |c| {
            c.rotate()?;
            commit_row(c, 77)?;
            c.rotate()?;
            let last = c.binlog_file_names().pop().expect("files");
            c.purge_binary_logs_to(&last).map(|_| ())
        },
        false,
    );
}

#[test]
fn in_redo_binlog_behind_redo_refilled() {
    let (disk, c, acked) = prepared_disk(IN_REDO, 10);
    assert_eq!(c.stats().binlog_fsyncs, 0, "no binlog fsync in the commit path");
    drop(c);
    let (c, rec) = open(disk.crash(CrashMode::DropUnsynced).shared(), IN_REDO);
    assert_eq!(rec.refilled, 11, "the DDL and 10 commits come back from the redo");
    check_invariant(&c, &acked, "row 8");
}

#[test]
fn eio_on_binlog_fsync_poisons_and_loses_nothing_acknowledged() {
    let (disk, c, acked) = prepared_disk(CLASSIC, 3);
    disk.inject(Fault::new(FaultOp::Sync, FaultKind::Eio).on_path("binlog.0"));
    let e = commit_row(&c, 100).expect_err("fsync failed");
    assert_eq!(e.class(), commit::ErrorClass::Fatal);
    assert!(matches!(commit_row(&c, 101), Err(commit::Error::Poisoned { .. })));
    assert!(c.sync_binlog_now().is_err(), "never retry an fsync and report success");
    drop(c);
    for cm in [CrashMode::KeepAll, CrashMode::DropUnsynced] {
        let (c, _) = open(disk.crash(cm).shared(), CLASSIC);
        check_invariant(&c, &acked, "row 9, EIO");
        assert!(!has_row(&c, 101));
    }
}

#[test]
fn enospc_on_binlog_write_is_a_clean_error() {
    let (disk, c, acked) = prepared_disk(CLASSIC, 3);
    disk.inject(Fault::new(FaultOp::Write, FaultKind::Enospc).on_path("binlog.0"));
    let e = commit_row(&c, 100).expect_err("disk full");
    assert!(e.is_no_space(), "{e}");
    assert_eq!(e.mysql_code(), 1021);
    assert!(commit_row(&c, 101).is_err(), "refuses until restart");
    drop(c);
    let (c, _) = open(disk.crash(CrashMode::KeepAll).shared(), CLASSIC);
    check_invariant(&c, &acked, "row 9, ENOSPC");
    commit_row(&c, 102).expect("works after restart");
}

#[test]
fn eio_on_redo_fsync_in_redo_mode_poisons() {
    let (disk, c, acked) = prepared_disk(IN_REDO, 3);
    disk.inject(Fault::new(FaultOp::Sync, FaultKind::Eio).on_path("#redo"));
    assert!(commit_row(&c, 100).is_err());
    assert!(commit_row(&c, 101).is_err());
    drop(c);
    let (c, _) = open(disk.crash(CrashMode::KeepAll).shared(), IN_REDO);
    check_invariant(&c, &acked, "row 9, redo EIO");
}

// ---- DDL: the same two-phase commit as rows (MySQL 8.0's atomic DDL) ----------------------

const CREATE_X0: &str = "CREATE TABLE x0 (id BIGINT PRIMARY KEY, v BIGINT)";

fn has_table(c: &Coord, name: &str) -> bool {
    c.engine().table_id(name).is_some()
}

/// The DDL's prepare record became durable (another group's redo flush can do that) and the
/// power failed before its FLUSH stage wrote the QUERY event: recovery rolls it back.
#[test]
fn ddl_prepared_binlog_not_written_rolled_back() {
    for mode in [CLASSIC, IN_REDO] {
        let (disk, c, acked) = prepared_disk(mode, 3);
        let e = c.engine();
        let mut txn = e.begin();
        e.create_table_in(&mut txn, common::aux_schema("x0")).expect("stage");
        let xid = 1 << 40;
        e.prepare(&mut txn, xid).expect("prepare");
        e.flush_all().expect("the prepare record is durable");
        e.abandon(txn);
        drop(c);
        let (c, rec) = open(disk.crash(CrashMode::DropUnsynced).shared(), mode);
        assert_eq!(rec.rolled_back_xids, vec![xid], "{mode}");
        assert!(!has_table(&c, "x0"), "{mode}: the table is not created");
        check_invariant(&c, &acked, &format!("{mode} DDL row 2"));
        // The name is free again.
        common::run_ddl(&c, CREATE_X0).expect("create after recovery");
    }
    // The same through the pipeline: the binlog write fails after the redo flush.
    let (disk, c, acked) = prepared_disk(CLASSIC, 3);
    disk.inject(Fault::new(FaultOp::Write, FaultKind::Eio).on_path("binlog.0"));
    assert!(common::run_ddl(&c, CREATE_X0).is_err());
    drop(c);
    let (c, rec) = open(disk.crash(CrashMode::KeepAll).shared(), CLASSIC);
    assert_eq!(rec.rolled_back_xids.len(), 1, "the prepared DDL is rolled back");
    assert!(!has_table(&c, "x0"));
    check_invariant(&c, &acked, "DDL row 2, binlog write failed");
}

/// The QUERY event is durable (binlog synced, or in the redo's payload in binlog-in-redo
/// mode) and the engine's commit record was only buffered: recovery commits the DDL.
#[test]
fn ddl_binlog_synced_engine_commit_not_done_committed() {
    for mode in [CLASSIC, IN_REDO, Mode { in_redo: false, sync_binlog: 0 }] {
        let (disk, c, mut acked) = prepared_disk(mode, 3);
        let info = common::run_ddl(&c, CREATE_X0).expect("acknowledged");
        acked.extend(info.gtid);
        assert!(has_table(&c, "x0"));
        drop(c);
        let (c, rec) = open(disk.crash(CrashMode::DropUnsynced).shared(), mode);
        assert_eq!(rec.committed_xids.len(), 1, "{mode}: recovered prepared, found in the binlog");
        assert!(has_table(&c, "x0"), "{mode}");
        check_invariant(&c, &acked, &format!("{mode} DDL row 4"));
    }
}

/// A checkpoint taken while a DDL is prepared and undecided keeps it undecided: after the
/// crash it is committed if its QUERY event reached the binlog (here: the redo's payload in
/// binlog-in-redo mode, refilled into the binlog), rolled back if not (classic: the binlog
/// write failed after the redo flush).
#[test]
fn ddl_prepared_at_checkpoint_decided_by_the_binlog() {
    for (mode, in_binlog) in [(CLASSIC, false), (IN_REDO, true)] {
        let (disk, c, mut acked) = prepared_disk(mode, 3);
        disk.inject(Fault::new(FaultOp::Write, FaultKind::Eio).on_path("binlog.0"));
        // The group fails after its redo flush: the DDL is left prepared in the engine for
        // recovery to decide.
        assert!(common::run_ddl(&c, CREATE_X0).is_err());
        let lsn = c.engine().checkpoint().expect("checkpoint with the DDL prepared");
        assert!(lsn.0 > 0);
        assert!(!has_table(&c, "x0"), "not visible while undecided");
        drop(c);
        let (c, rec) = open(disk.crash(CrashMode::DropUnsynced).shared(), mode);
        let ctx = format!("{mode}: DDL prepared at checkpoint, in binlog: {in_binlog}");
        assert_eq!(rec.refilled > 0, in_binlog, "{ctx}: refilled from the redo");
        assert_eq!(rec.committed_xids.len(), usize::from(in_binlog), "{ctx}");
        assert_eq!(rec.rolled_back_xids.len(), usize::from(!in_binlog), "{ctx}");
        assert_eq!(has_table(&c, "x0"), in_binlog, "{ctx}");
        if in_binlog {
            acked.extend(c.gtid_executed().gtids().last());
        }
        check_invariant(&c, &acked, &ctx);
    }
}

/// Every write and sync of a DDL sequence (CREATE TABLE, insert, CREATE INDEX, TRUNCATE, DROP
/// of two tables) in each mode, with each crash mode: engine == binlog after recovery.
#[test]
fn ddl_crash_at_every_point() {
    let statements = [
        CREATE_X0,
        "CREATE TABLE x1 (id BIGINT PRIMARY KEY, v BIGINT)",
        "CREATE INDEX iv ON x0 (v)",
        "TRUNCATE TABLE x1",
        "DROP INDEX iv ON x0",
        "DROP TABLE x0, x1",
    ];
    let step = |c: &Coord| -> commit::Result<()> {
        for (i, q) in statements.iter().enumerate() {
            common::run_ddl(c, q)?;
            if i == 1 {
                commit_row(c, 500)?;
            }
        }
        Ok(())
    };
    for mode in [CLASSIC, IN_REDO, Mode { in_redo: false, sync_binlog: 0 }] {
        let (disk, c, _) = prepared_disk(mode, 2);
        let before = disk.op_count();
        step(&c).expect("reference run");
        let ops = disk.op_count() - before;
        drop(c);
        for k in 0..ops {
            for cm in [CrashMode::DropUnsynced, CrashMode::KeepAll, CrashMode::Tear { seed: k }] {
                let (disk, c, acked) = prepared_disk(mode, 2);
                disk.crash_at(disk.op_count() + k);
                assert!(step(&c).is_err(), "{mode} k={k}: must hit the crash");
                drop(c);
                let (c, _) = open(disk.crash(cm).shared(), mode);
                check_invariant(&c, &acked, &format!("{mode} DDL k={k} {cm:?}"));
            }
        }
    }
}
