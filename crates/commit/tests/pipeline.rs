//! The pipeline with real threads: groups form, commit order = binlog order, the logical
//! clock, `binlog_order_commits=OFF`, group commit OFF, sync delay, explicit GTIDs.

mod common;

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use binlog::gtid::Gtid;
use commit::{CommitConfig, CommitRequest, GtidNext};
use common::{check_invariant, read_binlog, setup, Coord, Mode};
use engine::Value;
use vfs::{CrashMode, LatencyVfs, SimVfs};

const CLASSIC: Mode = Mode { in_redo: false, sync_binlog: 1 };

fn open_with(disk: &SimVfs, config: Arc<CommitConfig>) -> Coord {
    let vfs = LatencyVfs::new(disk.shared(), Duration::from_micros(300)).shared();
    Coord::open(vfs, Path::new("/data"), common::options(), config).expect("open").0
}

fn insert(
    c: &Coord,
    id: i64,
    gtid: Option<commit::OwnedGtid>,
) -> commit::Result<commit::Committed> {
    let (txn, cache) = common::one_row_txn(c.engine(), || c.new_cache("test"), id);
    match gtid {
        Some(g) => c.commit(CommitRequest::rows(txn, cache).with_gtid(g)),
        None => c.commit(CommitRequest::rows(txn, cache)),
    }
}

/// 16 threads × 30 commits; returns the acknowledged GTIDs.
fn hammer(c: &Coord) -> Vec<Gtid> {
    let acked = Arc::new(Mutex::new(Vec::new()));
    std::thread::scope(|s| {
        for th in 0..16i64 {
            let acked = acked.clone();
            s.spawn(move || {
                for i in 0..30 {
                    let info = insert(c, th * 1000 + i, None).expect("commit");
                    acked.lock().expect("lock").extend(info.gtid);
                }
            });
        }
    });
    let v = acked.lock().expect("lock").clone();
    v
}

/// Sequence numbers restart at 1 in each file and grow by one in binlog order;
/// last_committed is below the sequence number.
fn check_clock(c: &Coord) {
    let mut next: HashMap<String, i64> = HashMap::new();
    for t in read_binlog(c, "clock") {
        let (lc, seq) = t.clock;
        let expect = next.entry(t.file.clone()).or_insert(1);
        assert_eq!(seq, *expect, "sequence numbers in binlog order in {}", t.file);
        assert!(lc < seq && lc >= 0);
        *expect += 1;
    }
}

fn run(config: CommitConfig) -> commit::CommitStats {
    let disk = SimVfs::new();
    let c = open_with(&disk, Arc::new(config));
    setup(&c);
    let acked = hammer(&c);
    let stats = c.stats();
    c.sync_binlog_now().expect("sync");
    check_invariant(&c, &acked, "live");
    check_clock(&c);
    drop(c);
    let (c, _) = common::open(disk.crash(CrashMode::DropUnsynced).shared(), CLASSIC);
    check_invariant(&c, &acked, "after crash");
    stats
}

fn base_config() -> CommitConfig {
    let c = CommitConfig::default();
    c.set_binlog_in_redo_sync_interval_ms(0);
    c
}

#[test]
fn threads_form_groups_in_order() {
    let s = run(base_config());
    assert_eq!(s.commits, 16 * 30 + 1);
    assert!(s.groups_flush < s.commits, "some groups hold several commits: {s:?}");
    assert!(s.binlog_fsyncs <= s.groups_flush);
}

#[test]
fn order_commits_off_each_session_commits_itself() {
    let c = base_config();
    c.set_binlog_order_commits(false);
    let s = run(c);
    assert_eq!(s.groups_commit, 0);
    assert_eq!(s.commits, 16 * 30 + 1);
}

#[test]
fn group_commit_off_serializes() {
    let c = base_config();
    c.set_binlog_group_commit(false);
    let s = run(c);
    assert_eq!(s.groups_flush, s.commits, "one transaction per group");
    assert_eq!(s.binlog_fsyncs, s.commits);
}

#[test]
fn sync_delay_and_no_delay_count() {
    let c = base_config();
    c.set_binlog_group_commit_sync_delay_us(2000);
    c.set_binlog_group_commit_sync_no_delay_count(4);
    c.set_binlog_max_flush_queue_time_us(100);
    run(c);
}

#[test]
fn in_redo_with_background_writer() {
    let c = CommitConfig::default();
    c.set_binlog_in_redo(true);
    c.set_binlog_in_redo_sync_interval_ms(5);
    let s = run(c);
    assert!(s.binlog_fsyncs < s.groups_flush, "the binlog is synced in the background");
}

#[test]
fn sync_binlog_n() {
    let c = base_config();
    c.set_sync_binlog(4);
    let s = run(c);
    assert!(s.binlog_fsyncs * 4 <= s.groups_sync + 4);
}

#[test]
fn logical_clock_follows_commit_order() {
    let disk = SimVfs::new();
    let c = open_with(&disk, Arc::new(base_config()));
    setup(&c);
    // Sequential commits: each depends on the previous one.
    let a = insert(&c, 1, None).expect("a");
    let b = insert(&c, 2, None).expect("b");
    assert_eq!((b.last_committed, b.sequence_number), (a.sequence_number, a.sequence_number + 1));
    // Three prepared together share their commit parent.
    let e = c.engine();
    let t = e.table_id(common::TABLE).expect("table");
    let schema = e.schema(t).expect("schema");
    let batch = (10..13)
        .map(|id| {
            let mut txn = e.begin();
            let row = vec![Value::Int(id), Value::Int(id), Value::Bytes(b"b".to_vec())];
            e.insert(&mut txn, t, row.clone()).expect("insert");
            let mut cache = c.new_cache("test");
            cache.insert(&schema, &row).expect("log");
            CommitRequest::rows(txn, cache)
        })
        .collect();
    let infos: Vec<_> = c.commit_batch(batch).into_iter().map(|r| r.expect("commit")).collect();
    assert!(infos.iter().all(|i| i.last_committed == b.sequence_number));
    // A new file restarts the sequence.
    c.rotate().expect("rotate");
    let d = insert(&c, 20, None).expect("d");
    assert_eq!((d.last_committed, d.sequence_number), (0, 1));
}

#[test]
fn explicit_gtid_next_owned_executed_and_waited_for() {
    let disk = SimVfs::new();
    let c = open_with(&disk, Arc::new(base_config()));
    setup(&c);
    let g5 = Gtid { sid: common::sid(), gno: 5 };
    let GtidNext::Owned(owned) = c.acquire_gtid(g5) else { panic!("5 is free") };
    // Automatic GTIDs skip the owned one.
    let autos: Vec<u64> =
        (1..=5).map(|i| insert(&c, i, None).expect("auto").gtid.expect("g").gno).collect();
    assert_eq!(autos, vec![2, 3, 4, 6, 7], "1 is the DDL; 5 is owned");
    // Another session waits for the owner, then finds the GTID executed.
    std::thread::scope(|s| {
        let waiter = s.spawn(|| c.acquire_gtid(g5));
        std::thread::sleep(Duration::from_millis(20));
        let info = insert(&c, 100, Some(owned)).expect("commit with gtid_next");
        assert_eq!(info.gtid, Some(g5));
        assert!(matches!(waiter.join().expect("waiter"), GtidNext::AlreadyExecuted));
    });
    // A released GTID can be owned again.
    let g9 = Gtid { sid: common::sid(), gno: 9 };
    let GtidNext::Owned(o) = c.acquire_gtid(g9) else { panic!("free") };
    c.release_gtid(o);
    assert!(matches!(c.acquire_gtid(g9), GtidNext::Owned(_)));
    c.sync_binlog_now().expect("sync");
    check_invariant(&c, &[g5], "explicit");
}

#[test]
fn clean_shutdown_then_reopen() {
    let disk = SimVfs::new();
    let c = open_with(&disk, Arc::new(base_config()));
    setup(&c);
    let acked = hammer(&c);
    c.shutdown().expect("shutdown");
    assert!(insert(&c, 99_999, None).is_err(), "no commits after shutdown");
    drop(c);
    let (c, rec) = common::open(disk.crash(CrashMode::DropUnsynced).shared(), CLASSIC);
    assert!(rec.binlog.is_none(), "a clean binlog needs no recovery");
    check_invariant(&c, &acked, "after shutdown");
}

/// Wakes a parked thread: the smallest executor for [`commit::PendingCommit::poll`].
struct Unpark(std::thread::Thread);

impl std::task::Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// Commits through `commit_deferred` as an async server does: only a FLUSH leader runs the
/// blocking part; a follower parks until its waker is called (never on the pipeline's
/// condvar). Every acknowledged commit survives a crash, and followers were woken.
#[test]
fn deferred_commits_wake_their_tasks() {
    deferred_commits(false, false);
}

/// [`deferred_commits_wake_their_tasks`] with every FLUSH leader handed off to the pipeline's
/// own threads ([`commit::PendingCommit::hand_off`]), in classic 2PC (a SYNC thread of its own)
/// and with the binlog in the redo: nothing acknowledged is lost, and a clean shutdown right
/// after lets the threads finish.
#[test]
fn handed_off_leaders_commit_in_both_modes() {
    for in_redo in [false, true] {
        deferred_commits(true, in_redo);
    }
}

fn deferred_commits(hand_off: bool, in_redo: bool) {
    let disk = SimVfs::new();
    let config = base_config();
    config.set_binlog_in_redo(in_redo);
    let c = open_with(&disk, Arc::new(config));
    setup(&c);
    let handed = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let acked = Arc::new(Mutex::new(Vec::new()));
    let followers = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    std::thread::scope(|s| {
        for th in 0..16i64 {
            let (c, acked, followers, handed) =
                (&c, acked.clone(), followers.clone(), handed.clone());
            s.spawn(move || {
                let waker = std::task::Waker::from(Arc::new(Unpark(std::thread::current())));
                let mut cx = std::task::Context::from_waker(&waker);
                for i in 0..30 {
                    let e = c.engine();
                    let t = e.table_id(common::TABLE).expect("table");
                    let schema = e.schema(t).expect("schema");
                    let mut txn = e.begin();
                    let id = th * 1000 + i;
                    let row = vec![Value::Int(id), Value::Int(id), Value::Bytes(b"d".to_vec())];
                    e.insert(&mut txn, t, row.clone()).expect("insert");
                    let mut cache = c.new_cache("test");
                    cache.insert(&schema, &row).expect("log");
                    let mut pending = c.commit_deferred(CommitRequest::rows(txn, cache));
                    if hand_off && pending.hand_off() {
                        handed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        assert!(!pending.needs_thread(), "a handed-off leader needs no thread");
                    } else if pending.needs_thread() {
                        pending.run();
                    } else {
                        followers.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                    let deadline = std::time::Instant::now() + Duration::from_secs(30);
                    let info = loop {
                        if let std::task::Poll::Ready(r) = pending.poll(&mut cx) {
                            break r.expect("commit");
                        }
                        assert!(std::time::Instant::now() < deadline, "never woken");
                        std::thread::park_timeout(Duration::from_secs(1));
                    };
                    acked.lock().expect("lock").extend(info.gtid);
                }
            });
        }
    });
    let acked = acked.lock().expect("lock").clone();
    assert_eq!(acked.len(), 16 * 30);
    assert!(followers.load(std::sync::atomic::Ordering::Relaxed) > 0, "some commits followed");
    assert_eq!(handed.load(std::sync::atomic::Ordering::Relaxed) > 0, hand_off, "hand-offs");
    c.sync_binlog_now().expect("sync");
    check_invariant(&c, &acked, "live");
    check_clock(&c);
    if hand_off {
        c.shutdown().expect("shutdown with the pipeline threads started");
    }
    drop(c);
    let mode = Mode { in_redo, sync_binlog: 1 };
    let (c, _) = common::open(disk.crash(CrashMode::DropUnsynced).shared(), mode);
    check_invariant(&c, &acked, "after crash");
}

/// Inserts row `id` into auxiliary table `name` and commits it.
fn insert_aux(c: &Coord, name: &str, id: i64) -> commit::Result<commit::Committed> {
    let e = c.engine();
    let t = e.table_id(name).expect("aux table");
    let schema = e.schema(t).expect("schema");
    let mut txn = e.begin();
    let row = vec![Value::Int(id), Value::Int(id % 5)];
    e.insert(&mut txn, t, row.clone()).expect("insert");
    let mut cache = c.new_cache("test");
    cache.insert(&schema, &row).expect("log");
    c.commit(CommitRequest::rows(txn, cache))
}

/// DDL transactions in the same groups as row transactions, with checkpoints running all the
/// while (so some catch a DDL prepared and undecided): engine == binlog live and after a
/// crash, in both modes.
#[test]
fn ddl_and_rows_in_the_same_groups_with_checkpoints() {
    for in_redo in [false, true] {
        let config = base_config();
        config.set_binlog_in_redo(in_redo);
        let disk = SimVfs::new();
        let c = open_with(&disk, Arc::new(config));
        setup(&c);
        let done = std::sync::atomic::AtomicBool::new(false);
        let acked = Arc::new(Mutex::new(Vec::new()));
        let checkpoints = std::thread::scope(|s| {
            let ckpt = s.spawn(|| {
                let mut n = 0;
                while !done.load(std::sync::atomic::Ordering::Acquire) {
                    c.engine().checkpoint().expect("checkpoint");
                    n += 1;
                }
                n
            });
            let mut workers = Vec::new();
            for th in 0..6i64 {
                let acked = acked.clone();
                let c = &c;
                workers.push(s.spawn(move || {
                    for i in 0..25 {
                        let info = insert(c, th * 1000 + i, None).expect("commit");
                        acked.lock().expect("lock").extend(info.gtid);
                    }
                }));
            }
            for name in ["x0", "x1"] {
                let acked = acked.clone();
                let c = &c;
                workers.push(s.spawn(move || {
                    let ack = |r: commit::Result<commit::Committed>| {
                        acked.lock().expect("lock").extend(r.expect("commit").gtid);
                    };
                    for round in 0..6i64 {
                        ack(common::run_ddl(
                            c,
                            &format!("CREATE TABLE {name} (id BIGINT PRIMARY KEY, v BIGINT)"),
                        ));
                        ack(insert_aux(c, name, round * 10 + 1));
                        ack(common::run_ddl(c, &format!("CREATE INDEX iv ON {name} (v)")));
                        ack(insert_aux(c, name, round * 10 + 2));
                        ack(common::run_ddl(c, &format!("TRUNCATE TABLE {name}")));
                        ack(insert_aux(c, name, round * 10 + 3));
                        ack(common::run_ddl(c, &format!("DROP INDEX iv ON {name}")));
                        if round < 5 {
                            ack(common::run_ddl(c, &format!("DROP TABLE {name}")));
                        }
                    }
                }));
            }
            for w in workers {
                w.join().expect("worker");
            }
            done.store(true, std::sync::atomic::Ordering::Release);
            ckpt.join().expect("checkpointer")
        });
        assert!(checkpoints > 0);
        let acked = acked.lock().expect("lock").clone();
        let ctx = format!("in_redo={in_redo}");
        c.sync_binlog_now().expect("sync");
        check_invariant(&c, &acked, &format!("{ctx} live"));
        check_clock(&c);
        assert!(c.engine().table_id("x0").is_some() && c.engine().table_id("x1").is_some());
        drop(c);
        let mode = Mode { in_redo, sync_binlog: 1 };
        let (c, _) = common::open(disk.crash(CrashMode::DropUnsynced).shared(), mode);
        check_invariant(&c, &acked, &format!("{ctx} after crash"));
    }
}

/// Every QUERY event (`BEGIN` and DDL) in the binlog, in order: (thread id, query, status).
fn query_events(c: &Coord) -> Vec<(u32, String, binlog::event::StatusVars)> {
    use binlog::event::{decode_event, EventBody, FormatContext};
    use binlog::files::Next;
    let files = c.binlog_files();
    let mut reader = files.reader_from_start().expect("reader");
    let mut fctx = FormatContext::mysql80();
    let mut out = Vec::new();
    while let Ok(Next::Event(ev)) = reader.next(Some(Duration::ZERO)) {
        match decode_event(&ev.bytes, &fctx, ev.pos).expect("decode").body {
            EventBody::FormatDescription(fde) => {
                fctx = FormatContext::from_fde(&fde, ev.pos).expect("fde");
            }
            EventBody::Query(q) => {
                let status = q.status(ev.pos).expect("status vars");
                out.push((q.thread_id, String::from_utf8_lossy(&q.query).into_owned(), status));
            }
            _ => {}
        }
    }
    out
}

/// A request with the session's values logs them in its QUERY events (the BEGIN of a row
/// transaction and a DDL, the DDL keeping its database list and XID); one without logs MySQL
/// 8.0's defaults, as before.
#[test]
fn query_events_carry_the_session_context() {
    use binlog::event::{StatusVars, UpdatedDbs};
    let disk = SimVfs::new();
    let c = open_with(&disk, common::config(CLASSIC));
    setup(&c);
    let mut status = StatusVars::mysql80_default();
    status.charset = Some((45, 45, 8));
    status.sql_mode = Some(4);
    status.flags2 = Some(1 << 26);
    status.auto_increment = Some((2, 1));
    status.time_zone = Some(b"+01:00".to_vec());
    let context = Arc::new(commit::QueryContext { thread_id: 77, status: status.clone() });
    let (txn, cache) = common::one_row_txn(c.engine(), || c.new_cache("test"), 1);
    c.commit(CommitRequest::rows(txn, cache).with_context(context.clone())).expect("rows");
    let mut txn = c.begin();
    c.engine().create_table_in(&mut txn, common::aux_schema("x0")).expect("stage");
    let ddl = CommitRequest::ddl(txn, "test", "CREATE TABLE x0 (id BIGINT PRIMARY KEY, v BIGINT)");
    c.commit(ddl.with_context(context)).expect("ddl");
    let (txn, cache) = common::one_row_txn(c.engine(), || c.new_cache("test"), 2);
    c.commit(CommitRequest::rows(txn, cache)).expect("rows without context");

    let events = query_events(&c);
    assert_eq!(events.len(), 4, "{events:?}");
    // The setup's DDL and the last BEGIN: no context, MySQL 8.0's defaults, thread 0.
    assert_eq!(events[0].0, 0);
    assert_eq!(events[0].2.charset, Some((255, 255, 255)));
    assert_eq!((events[3].0, events[3].2.clone()), (0, StatusVars::mysql80_default()));
    // The BEGIN with the context: exactly its status variables.
    assert_eq!((events[1].0, events[1].1.as_str()), (77, "BEGIN"));
    assert_eq!(events[1].2, status);
    // The DDL: the context's values plus its database and XID.
    let (thread, query, ddl) = &events[2];
    assert_eq!(
        (*thread, query.as_str()),
        (77, "CREATE TABLE x0 (id BIGINT PRIMARY KEY, v BIGINT)")
    );
    assert_eq!(ddl.charset, Some((45, 45, 8)));
    assert_eq!(ddl.sql_mode, Some(4));
    assert_eq!(ddl.flags2, Some(1 << 26));
    assert_eq!(ddl.auto_increment, Some((2, 1)));
    assert_eq!(ddl.time_zone.as_deref(), Some(&b"+01:00"[..]));
    assert_eq!(ddl.updated_db_names, Some(UpdatedDbs::Names(vec![b"test".to_vec()])));
    assert!(ddl.ddl_xid.is_some());
}
