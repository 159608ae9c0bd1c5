//! Damage found at start-up (issue 17): lost binlog files or a lost engine directory are a
//! refusal naming what is missing, never a silent loss; the recovery mode that accepts the
//! loss (`OpenOptions::recovery_accept_loss`, the server's `--recovery-mode=point-in-time`)
//! reports it and never hands out a GTID twice.

mod common;

use std::path::Path;

use binlog::gtid::{Gtid, GtidSet};
use commit::{CommitRequest, Coordinator, Error, OpenOptions};
use common::{config, one_row_txn, options, setup, sid, Coord, Mode};
use vfs::SimVfs;

const MODES: [Mode; 2] =
    [Mode { in_redo: false, sync_binlog: 1 }, Mode { in_redo: true, sync_binlog: 1 }];

fn open_with(sim: &SimVfs, mode: Mode, o: OpenOptions) -> commit::Result<Coord> {
    Coordinator::open(sim.shared(), Path::new("/data"), o, config(mode)).map(|(c, _)| c)
}

fn commit_rows(c: &Coord, ids: std::ops::Range<i64>) -> Vec<Gtid> {
    ids.map(|id| {
        let (txn, cache) = one_row_txn(c.engine(), || c.new_cache("test"), id);
        c.commit(CommitRequest::rows(txn, cache)).expect("commit").gtid.expect("gtid")
    })
    .collect()
}

fn gtids(n: std::ops::RangeInclusive<u64>) -> GtidSet {
    let mut s = GtidSet::new();
    for g in n {
        s.add(Gtid::new(sid(), g).expect("gno"));
    }
    s
}

fn remove_dir(sim: &SimVfs, dir: &str) {
    let vfs = sim.shared();
    let dir = Path::new(dir);
    for name in vfs.list_dir(dir).expect("list") {
        let p = dir.join(&name);
        if vfs.list_dir(&p).is_ok() {
            remove_dir(sim, p.to_str().expect("utf-8"));
        } else {
            vfs.remove_file(&p).expect("remove");
        }
    }
}

#[test]
fn lost_binlog_files_are_refused_and_accepted_gtids_never_go_back() {
    for mode in MODES {
        let sim = SimVfs::new();
        let (c, _) = Coordinator::open(sim.shared(), Path::new("/data"), options(), config(mode))
            .expect("open");
        setup(&c);
        let acked = commit_rows(&c, 0..20);
        assert_eq!(acked.last().map(|g| g.gno), Some(21), "{mode}");
        c.shutdown().expect("shutdown");
        drop(c);
        // Every binlog file and the index deleted while stopped.
        remove_dir(&sim, "/data/binlog");
        let err = open_with(&sim, mode, options()).expect_err("refused");
        assert!(matches!(err, Error::Lost { .. }), "{mode}: {err}");
        assert!(err.to_string().contains(&gtids(1..=21).to_string()), "{mode}: {err}");
        // Accepted: the engine's set is kept, the next GTID follows it.
        let accept = OpenOptions { recovery_accept_loss: true, ..options() };
        let (c, outcome) =
            Coordinator::open(sim.shared(), Path::new("/data"), accept, config(mode))
                .expect("accepted");
        assert_eq!(outcome.lost.len(), 1, "{mode}: {:?}", outcome.lost);
        assert_eq!(c.gtid_executed(), gtids(1..=21), "{mode}");
        let next = commit_rows(&c, 100..101);
        assert_eq!(next[0].gno, 22, "{mode}: a GTID handed out twice");
        c.shutdown().expect("shutdown");
        drop(c);
        // Strict again: the binlog now carries the whole history in PREVIOUS_GTIDS.
        let c = open_with(&sim, mode, options()).expect("strict start after the accepted loss");
        assert_eq!(c.gtid_executed(), gtids(1..=22), "{mode}");
    }
}

#[test]
fn a_lost_engine_directory_beside_a_binlog_is_refused() {
    for mode in MODES {
        let sim = SimVfs::new();
        let (c, _) = Coordinator::open(sim.shared(), Path::new("/data"), options(), config(mode))
            .expect("open");
        setup(&c);
        commit_rows(&c, 0..5);
        c.shutdown().expect("shutdown");
        drop(c);
        remove_dir(&sim, "/data/engine");
        let err = open_with(&sim, mode, options()).expect_err("refused");
        assert!(err.to_string().contains("engine"), "{mode}: {err}");
        let accept = OpenOptions { recovery_accept_loss: true, ..options() };
        let (c, outcome) =
            Coordinator::open(sim.shared(), Path::new("/data"), accept, config(mode))
                .expect("accepted");
        assert!(!outcome.lost.is_empty(), "{mode}");
        // The binlog's GTIDs stay executed: numbering continues after them.
        assert_eq!(c.gtid_executed(), gtids(1..=6), "{mode}");
    }
}

#[test]
fn the_engine_keeps_gtid_executed_across_crashes_and_reset_master() {
    let mode = Mode { in_redo: false, sync_binlog: 1 };
    let sim = SimVfs::new();
    let (c, _) =
        Coordinator::open(sim.shared(), Path::new("/data"), options(), config(mode)).expect("open");
    setup(&c);
    commit_rows(&c, 0..10);
    assert_eq!(c.engine().gtid_executed(), gtids(1..=11));
    drop(c);
    // A crash (no shutdown): the engine's set comes back from its redo.
    let (c, _) = common::open(sim.crash(vfs::CrashMode::DropUnsynced).shared(), mode);
    assert_eq!(c.engine().gtid_executed(), gtids(1..=11));
    c.engine().checkpoint().expect("checkpoint");
    commit_rows(&c, 10..12);
    drop(c);
    let (c, _) = common::open(sim.crash(vfs::CrashMode::DropUnsynced).shared(), mode);
    assert_eq!(c.engine().gtid_executed(), gtids(1..=13), "checkpoint + redo");
    c.reset_binary_logs().expect("reset master");
    assert!(c.engine().gtid_executed().is_empty());
    commit_rows(&c, 20..21);
    drop(c);
    let (c, _) = common::open(sim.crash(vfs::CrashMode::DropUnsynced).shared(), mode);
    assert_eq!(c.gtid_executed(), gtids(1..=1));
    assert_eq!(c.engine().gtid_executed(), gtids(1..=1));
}
