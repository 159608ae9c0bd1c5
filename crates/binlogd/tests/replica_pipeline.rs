//! The applier fed with binlog files a binlogd commit pipeline wrote under a concurrent load
//! (no network: the source's binlog directory stands in for the relay log; its own ROTATE
//! events between files test the clock reset). The replica must end with the source's
//! `gtid_executed` and rows, in its own binlog too, with 1 and 4 workers, with and without
//! commit order, and a second pass over the same files must skip everything. A source with
//! `binlog_transaction_dependency_tracking=WRITESET` writes intervals that overlap across groups
//! (a `last_committed` below the previous transaction's); 4 workers must apply them to the
//! same result.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use binlog::gtid::Sid;
use commit::{CommitConfig, Coordinator, DependencyTracking, OpenOptions};

use binlogd::binlogging::Binlogging;
use binlogd::config::RowMetadata;
use replication::replica::applier::Applier;
use replication::replica::{Shared, Status};
use sql::{Hooks, Output};

struct Node {
    coordinator: Arc<Coordinator<engine::Engine>>,
    sql: Arc<sql::Server>,
}

fn node(dir: &std::path::Path, uuid: u8, server_id: u32, max_binlog_size: u64) -> Node {
    node_tracking(dir, uuid, server_id, max_binlog_size, DependencyTracking::CommitOrder)
}

fn node_tracking(
    dir: &std::path::Path,
    uuid: u8,
    server_id: u32,
    max_binlog_size: u64,
    tracking: DependencyTracking,
) -> Node {
    let mut options = OpenOptions::new(Sid([uuid; 16]));
    options.server_id = server_id;
    options.max_binlog_size = max_binlog_size;
    let config = Arc::new(CommitConfig::default());
    config.set_binlog_transaction_dependency_tracking(tracking);
    let (coordinator, _) =
        Coordinator::open(vfs::RealVfs::shared(), dir, options, config).expect("open pipeline");
    let coordinator = Arc::new(coordinator);
    let binlogging =
        Arc::new(Binlogging::new(coordinator.clone(), dir.join("binlog"), RowMetadata::Minimal));
    let hooks = Hooks {
        committer: binlogging.clone(),
        admin: binlogging,
        ..Hooks::without_binlog(coordinator.engine())
    };
    let sql = sql::Server::open(coordinator.engine().clone(), hooks, &[]).expect("sql layer");
    Node { coordinator, sql }
}

fn run(session: &mut sql::Session, q: &str) -> Output {
    session.query(q).unwrap_or_else(|e| panic!("{q}: {e}"))
}

fn rows(node: &Node, q: &str) -> Vec<Vec<engine::Value>> {
    let mut s = node.sql.session("root", "localhost");
    match run(&mut s, q) {
        Output::Rows { rows, .. } => rows,
        other => panic!("{q}: {other:?}"),
    }
}

/// A source with DDL and a concurrent load on hot rows (so transactions depend on each
/// other), a table without a primary key, and small binlog files (several rotations).
fn loaded_source(dir: &std::path::Path) -> Node {
    let source = node(dir, 0xa1, 1, 16 * 1024);
    let mut s = source.sql.session("root", "localhost");
    run(&mut s, "CREATE DATABASE app");
    run(&mut s, "CREATE TABLE app.acct (id INT PRIMARY KEY, owner VARCHAR(20), bal DECIMAL(10,2))");
    run(&mut s, "CREATE TABLE app.log (k INT, note VARCHAR(30))");
    for id in 0..20 {
        run(&mut s, &format!("INSERT INTO app.acct VALUES ({id}, 'o{id}', 100.00)"));
    }
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let server = source.sql.clone();
            std::thread::spawn(move || {
                let mut s = server.session("root", "localhost");
                for i in 0..120u32 {
                    let hot = (i * 7 + t * 3) % 20;
                    let id = 1000 + t * 1000 + i;
                    let mut txn = || -> Option<()> {
                        s.query("BEGIN").ok()?;
                        s.query(&format!("UPDATE app.acct SET bal = bal + 1 WHERE id = {hot}"))
                            .ok()?;
                        s.query(&format!("INSERT INTO app.acct VALUES ({id}, 't{t}', 1.50)"))
                            .ok()?;
                        s.query(&format!("INSERT INTO app.log VALUES ({t}, 'n{i}')")).ok()?;
                        if i % 5 == 4 {
                            s.query(&format!("DELETE FROM app.acct WHERE id = {}", id - 2)).ok()?;
                            s.query(&format!(
                                "DELETE FROM app.log WHERE k = {t} AND note = 'n{}'",
                                i - 1
                            ))
                            .ok()?;
                        }
                        s.query("COMMIT").ok().map(|_| ())
                    };
                    let ok = txn();
                    if ok.is_none() {
                        // A deadlock or lock wait timeout: the load goes on, as a client's.
                        let _ = s.query("ROLLBACK");
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("load thread");
    }
    run(&mut s, "CREATE INDEX by_owner ON app.acct (owner)");
    run(&mut s, "UPDATE app.acct SET owner = 'late' WHERE id < 3");
    source
}

/// Starts an applier thread (server id 2) that reads `source`'s binlog files as its relay log
/// and applies them on `replica`.
fn start_applier(
    source: &Node,
    replica: &Node,
    workers: usize,
    preserve_commit_order: bool,
) -> (Arc<Shared>, std::thread::JoinHandle<()>) {
    let shared = Arc::new(Shared {
        status: parking_lot::Mutex::new(Status { sql_running: true, ..Status::default() }),
        stop_io: Default::default(),
        stop_sql: Default::default(),
    });
    let applier = Applier {
        shared: shared.clone(),
        coordinator: replica.coordinator.clone(),
        sql: replica.sql.clone(),
        relay: source.coordinator.binlog_files(),
        workers,
        preserve_commit_order,
        server_id: 2,
    };
    (shared, std::thread::spawn(move || applier.run()))
}

/// Applies the source's binlog on `replica` until its gtid_executed equals the source's.
fn apply(source: &Node, replica: &Node, workers: usize, preserve: bool) {
    let (shared, thread) = start_applier(source, replica, workers, preserve);
    let want = source.coordinator.gtid_executed();
    let deadline = Instant::now() + Duration::from_secs(60);
    while replica.coordinator.gtid_executed() != want || !shared.status.lock().caught_up {
        let st = shared.status.lock();
        assert_eq!(st.last_sql_errno, 0, "applier failed: {}", st.last_sql_error);
        drop(st);
        assert!(Instant::now() < deadline, "replica did not converge");
        std::thread::sleep(Duration::from_millis(20));
    }
    shared.stop_sql.store(true, Ordering::Release);
    thread.join().expect("applier thread");
    assert_eq!(shared.status.lock().last_sql_errno, 0);
}

fn same_data(source: &Node, replica: &Node) {
    for q in ["SELECT * FROM app.acct ORDER BY id", "SELECT * FROM app.log ORDER BY k, note"] {
        let (a, b) = (rows(source, q), rows(replica, q));
        assert!(a.len() > 20, "{q}: load too small");
        assert_eq!(a, b, "{q}");
    }
    assert_eq!(source.coordinator.gtid_executed(), replica.coordinator.gtid_executed());
}

#[test]
fn applier_converges_single_and_parallel_and_skips_what_it_has() {
    let dir = tempfile::tempdir().expect("tempdir");
    let source = loaded_source(&dir.path().join("source"));
    assert!(source.coordinator.binlog_file_names().len() > 2, "the load spans several files");
    for (i, (workers, preserve)) in [(1, true), (4, true), (4, false)].into_iter().enumerate() {
        let replica = node(&dir.path().join(format!("replica{i}")), 0xb0 + i as u8, 2, 1 << 30);
        apply(&source, &replica, workers, preserve);
        same_data(&source, &replica);
        // log_replica_updates: the replica's own binlog holds the source's GTIDs, once each.
        let logged = logged_order(&replica);
        let mut gtids = binlog::gtid::GtidSet::new();
        for g in &logged {
            assert!(gtids.add(*g), "GTID {g} twice");
        }
        assert_eq!(gtids, source.coordinator.gtid_executed());
        if preserve {
            assert!(logged == logged_order(&source), "{workers} workers: not the source's order");
        }
        // Everything again: all skipped, nothing doubled.
        let before = replica.coordinator.stats().commits;
        apply(&source, &replica, workers, preserve);
        same_data(&source, &replica);
        assert_eq!(replica.coordinator.stats().commits, before, "nothing re-committed");
    }
}

/// The GTIDs in `node`'s binlog, in binlog order (with replica_preserve_commit_order=ON a
/// replica's is its source's).
fn logged_order(node: &Node) -> Vec<binlog::gtid::Gtid> {
    clocks(node).into_iter().map(|c| c.3).collect()
}

/// (file, last_committed, sequence_number, GTID) of every transaction in `node`'s binlog, in
/// binlog order.
fn clocks(node: &Node) -> Vec<(String, i64, i64, binlog::gtid::Gtid)> {
    let files = node.coordinator.binlog_files();
    let mut reader = files.reader_from_start().expect("reader");
    let mut ctx = binlog::event::FormatContext::mysql80();
    let mut out = Vec::new();
    while let Ok(binlog::files::Next::Event(ev)) = reader.next(Some(Duration::ZERO)) {
        match binlog::event::decode_event(&ev.bytes, &ctx, ev.pos).expect("decode").body {
            binlog::event::EventBody::Gtid(g) => {
                let c = g.logical_clock.expect("MySQL 8.0 GTID events carry the clock");
                out.push((ev.file.clone(), c.last_committed, c.sequence_number, g.gtid()));
            }
            binlog::event::EventBody::FormatDescription(f) => {
                ctx = binlog::event::FormatContext::from_fde(&f, 0).expect("fde")
            }
            _ => {}
        }
    }
    out
}

/// A WRITESET source: 4 sessions update hot rows (dependencies through the primary key),
/// insert their own rows, move unique values that a later transaction takes again
/// (dependencies through a unique key only), sometimes write a table without a primary key
/// (commit order), with DDL in the middle and small files; the replica, 4 workers with and
/// without commit order, must end identical.
#[test]
fn writeset_binlog_applies_identically_with_four_workers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let source =
        node_tracking(&dir.path().join("source"), 0xa2, 1, 32 * 1024, DependencyTracking::Writeset);
    let mut s = source.sql.session("root", "localhost");
    run(&mut s, "CREATE DATABASE app");
    run(
        &mut s,
        "CREATE TABLE app.acct (id INT PRIMARY KEY, owner VARCHAR(20), bal DECIMAL(10,2), \
         UNIQUE KEY uo (owner))",
    );
    run(&mut s, "CREATE TABLE app.log (k INT, note VARCHAR(30))");
    for id in 0..20 {
        run(&mut s, &format!("INSERT INTO app.acct VALUES ({id}, 'h{id}', 100.00)"));
    }
    let load = |phase: u32| {
        let threads: Vec<_> = (0..4u32)
            .map(|t| {
                let server = source.sql.clone();
                std::thread::spawn(move || {
                    let mut s = server.session("root", "localhost");
                    for i in 0..100u32 {
                        let hot = (i * 7 + t * 3) % 20;
                        let id = 1000 + phase * 10_000 + t * 1000 + i;
                        let mut stmts = vec![
                            format!("UPDATE app.acct SET bal = bal + 1 WHERE id = {hot}"),
                            format!("INSERT INTO app.acct VALUES ({id}, 'o{id}', 1.50)"),
                        ];
                        if i % 6 == 5 {
                            // Free the owner of the previous row, and take it for a new row:
                            // only the unique key orders this against the move.
                            stmts.push(format!(
                                "UPDATE app.acct SET owner = 'm{id}' WHERE id = {}",
                                id - 1
                            ));
                        }
                        if i % 6 == 0 && i > 0 {
                            stmts = vec![format!(
                                "INSERT INTO app.acct VALUES ({}, 'o{}', 2.00)",
                                id + 500,
                                id - 2
                            )];
                        }
                        if i % 10 == 9 {
                            stmts.push(format!("INSERT INTO app.log VALUES ({t}, 'p{phase}n{i}')"));
                        }
                        let mut txn = || -> Option<()> {
                            s.query("BEGIN").ok()?;
                            for q in &stmts {
                                s.query(q).ok()?;
                            }
                            s.query("COMMIT").ok().map(|_| ())
                        };
                        if txn().is_none() {
                            // A deadlock or lock wait timeout: the load goes on, as a client's.
                            let _ = s.query("ROLLBACK");
                        }
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().expect("load thread");
        }
    };
    load(0);
    run(&mut s, "CREATE INDEX by_bal ON app.acct (bal)");
    load(1);
    run(&mut s, "DELETE FROM app.acct WHERE id < 5");

    // The binlog holds WRITESET intervals: within a file, a transaction whose last_committed
    // is below an earlier transaction's (commit order never goes back).
    let clocks = clocks(&source);
    assert!(clocks.len() > 600, "load too small: {}", clocks.len());
    let overlapping = clocks.windows(2).filter(|w| w[0].0 == w[1].0 && w[1].1 < w[0].1).count();
    assert!(overlapping > 20, "only {overlapping} transactions start before their predecessor");

    for (i, preserve) in [true, false].into_iter().enumerate() {
        let replica = node(&dir.path().join(format!("replica{i}")), 0xc0 + i as u8, 2, 1 << 30);
        apply(&source, &replica, 4, preserve);
        same_data(&source, &replica);
        // Transactions that WRITESET lets run side by side still commit in the source's order.
        if preserve {
            assert!(logged_order(&replica) == logged_order(&source), "not the source's order");
        }
    }
}

/// Applier throughput on a binlog made by a 16-thread load on 10 000 rows (few conflicts):
/// `cargo test --release -p binlogd --lib replica::pipeline_tests::applier_throughput -- --ignored --nocapture`
#[test]
#[ignore = "benchmark: run by hand, figures in bench/RESULTS.md"]
fn applier_throughput() {
    let dir = tempfile::tempdir().expect("tempdir");
    let source = node(&dir.path().join("source"), 0xa1, 1, 1 << 30);
    let mut s = source.sql.session("root", "localhost");
    run(&mut s, "CREATE DATABASE app");
    run(&mut s, "CREATE TABLE app.acct (id INT PRIMARY KEY, owner VARCHAR(20), bal DECIMAL(10,2))");
    run(&mut s, "CREATE TABLE app.log (k INT, note VARCHAR(30))");
    for chunk in 0..100 {
        let values: Vec<String> =
            (0..100).map(|i| format!("({}, 'o', 100.00)", chunk * 100 + i)).collect();
        run(&mut s, &format!("INSERT INTO app.acct VALUES {}", values.join(",")));
    }
    let per_thread = 400u32;
    let threads: Vec<_> = (0..16u32)
        .map(|t| {
            let server = source.sql.clone();
            std::thread::spawn(move || {
                let mut s = server.session("root", "localhost");
                let mut x = u64::from(t) * 7919 + 1;
                for i in 0..per_thread {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    let id = (x >> 33) % 10_000;
                    let ok = s.query("BEGIN").is_ok()
                        && s.query(&format!("UPDATE app.acct SET bal = bal + 1 WHERE id = {id}"))
                            .is_ok()
                        && s.query(&format!(
                            "INSERT INTO app.acct VALUES ({}, 'n', 1.00)",
                            100_000 + t * 10_000 + i
                        ))
                        .is_ok()
                        && s.query("COMMIT").is_ok();
                    if !ok {
                        let _ = s.query("ROLLBACK");
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("load thread");
    }
    let total = source
        .coordinator
        .gtid_executed()
        .iter()
        .flat_map(|(_, ivs)| ivs.iter())
        .map(|iv| iv.end - iv.start)
        .sum::<u64>();
    let stats = source.coordinator.stats();
    println!("source: {total} transactions, average group {:.1}", stats.avg_group_size());
    for workers in [1, 2, 4, 8] {
        let replica = node(&dir.path().join(format!("r{workers}")), 0xb0, 2, 1 << 30);
        let started = Instant::now();
        apply(&source, &replica, workers, true);
        let secs = started.elapsed().as_secs_f64();
        let q = "SELECT * FROM app.acct ORDER BY id";
        assert_eq!(rows(&source, q), rows(&replica, q));
        assert_eq!(source.coordinator.gtid_executed(), replica.coordinator.gtid_executed());
        println!(
            "workers={workers} preserve_commit_order=ON: {:.0} transactions/s ({secs:.2} s)",
            total as f64 / secs
        );
    }
}

/// Applier throughput on the binlog of a real `binlogd serve` that sysbench loaded
/// (`bench/replica-apply.sh` makes it and runs this): `BINLOGD_BENCH_DATADIR` is the source's
/// data directory (shut down cleanly; it is opened and changed), `BINLOGD_BENCH_PREPARED` the
/// source's `gtid_executed` after `sysbench prepare`. For 1, 2, 4 and 8 workers (commit order
/// preserved) it applies the prepare part, then times the rest: the sysbench transactions.
#[test]
#[ignore = "benchmark: run by bench/replica-apply.sh, figures in bench/RESULTS.md"]
fn applier_throughput_sysbench() {
    let (Ok(datadir), Ok(prepared)) =
        (std::env::var("BINLOGD_BENCH_DATADIR"), std::env::var("BINLOGD_BENCH_PREPARED"))
    else {
        panic!("set BINLOGD_BENCH_DATADIR and BINLOGD_BENCH_PREPARED (bench/replica-apply.sh)");
    };
    let prepared: binlog::gtid::GtidSet = prepared.trim().parse().expect("a GTID set");
    let source = node(std::path::Path::new(&datadir), 0xa1, 1, 1 << 30);
    let all = source.coordinator.gtid_executed();
    assert!(prepared.is_subset(&all), "the prepared set is not in the source's binlog");
    let txns = all.count() - prepared.count();
    let clocks = clocks(&source);
    let mean_window = clocks.iter().map(|(_, lc, seq, _)| (seq - lc) as f64).sum::<f64>()
        / clocks.len().max(1) as f64;
    println!(
        "source: {txns} sysbench transactions, mean sequence_number - last_committed {mean_window:.1}"
    );
    let scratch = tempfile::tempdir().expect("tempdir");
    for workers in [1, 2, 4, 8] {
        let replica = node(&scratch.path().join(format!("r{workers}")), 0xb0, 2, 1 << 30);
        let (shared, thread) = start_applier(&source, &replica, workers, true);
        let deadline = Instant::now() + Duration::from_secs(900);
        let wait_for = |want: &binlog::gtid::GtidSet, poll: Duration| {
            while !want.is_subset(&replica.coordinator.gtid_executed()) {
                let st = shared.status.lock();
                assert_eq!(st.last_sql_errno, 0, "applier failed: {}", st.last_sql_error);
                drop(st);
                assert!(Instant::now() < deadline, "replica did not converge");
                std::thread::sleep(poll);
            }
        };
        wait_for(&prepared, Duration::from_millis(1));
        let started = Instant::now();
        wait_for(&all, Duration::from_millis(2));
        let secs = started.elapsed().as_secs_f64();
        shared.stop_sql.store(true, Ordering::Release);
        thread.join().expect("applier thread");
        for table in 1..=4 {
            let q = format!("SELECT * FROM sbtest.sbtest{table} ORDER BY id");
            assert_eq!(rows(&source, &q), rows(&replica, &q), "{q}");
        }
        println!(
            "workers={workers} preserve_commit_order=ON: {:.0} transactions/s ({txns} in {secs:.2} s)",
            txns as f64 / secs
        );
    }
}
