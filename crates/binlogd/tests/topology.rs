//! Replication topologies of real `binlogd serve` processes, every one started by the test.
//!
//! - `sysbench_topology_with_kills`: a primary and two replicas (1 and 4 applier workers)
//!   under sysbench's oltp_write_only (16 threads, in phases). Each replica is killed with -9
//!   once mid-load and restarted, then the primary (restarted on the same port, so the
//!   replicas find it again by themselves). Afterwards every server has the same CHECKSUM
//!   TABLE of every sysbench table, the same `gtid_executed`, and no errant transaction: every
//!   GTID of a replica carries the primary's server_uuid and is in the primary's set. Both
//!   replicas (replica_preserve_commit_order=ON, the default) logged the primary's
//!   transactions in the primary's binlog order, kills included (SHOW BINLOG EVENTS).
//! - `failover_promotes_a_replica`: a primary and replicas A and B under a write load of
//!   unique `(client, seq)` rows in a table without a primary key (a transaction applied twice
//!   would show as a duplicate row) and hot counter updates. A lags (its replication stopped
//!   mid-load); the primary is killed with -9 with an uncommitted transaction open; A catches
//!   up from its sibling B, is promoted (STOP REPLICA; RESET REPLICA ALL) and takes writes; B
//!   is pointed at A by auto-position while A is written. Every acknowledged row is then on A
//!   and B exactly once, nothing else is, checksums and `gtid_executed` agree, and A and B
//!   logged the transactions in the same order.
//!
//! The two tests take a lock so they do not run together: each runs three servers, and two
//! such topologies on a 2-core machine would only slow each other.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mysql_async::prelude::Queryable;

mod support;
use support::sql::{conn, exec, first_row, gtid_executed, query};
use support::Node;

static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

// ---- processes ----------------------------------------------------------------------------

/// A server of the topology: DIR/NAME, restarted on the same port (support::Node).
fn node(name: &str, dir: &Path, server_id: u32, extra: &[&str]) -> Node {
    Node::start(&dir.join(name), server_id, extra)
}

// ---- SQL helpers ----------------------------------------------------------------------------

async fn server_uuid(port: u16) -> String {
    query(port, "SELECT @@server_uuid").await[0][0].clone()
}

/// SHOW REPLICA STATUS as column → value (empty if not a replica).
async fn replica_status(port: u16) -> BTreeMap<String, String> {
    first_row(port, "SHOW REPLICA STATUS").await
}

async fn replicate(replica: u16, source: u16) {
    exec(
        replica,
        &format!(
            "CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT={source}, \
             SOURCE_USER='root', SOURCE_PASSWORD='', SOURCE_AUTO_POSITION=1, \
             SOURCE_CONNECT_RETRY=1, SOURCE_HEARTBEAT_PERIOD=1"
        ),
    )
    .await;
    exec(replica, "START REPLICA").await;
}

/// Waits until `replica`'s gtid_executed equals `want`; the replica's status on timeout.
async fn converge(name: &str, port: u16, want: &str, within: Duration) {
    let deadline = Instant::now() + within;
    loop {
        let have = gtid_executed(port).await;
        if have == want {
            return;
        }
        if Instant::now() > deadline {
            panic!(
                "{name} did not reach {want} within {within:?}: it has {have}\n{:#?}",
                replica_status(port).await
            );
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A GTID set as text (`uuid:1-5:7,uuid2:1-3`, MySQL's format) → uuid → intervals.
fn parse_gtids(set: &str) -> BTreeMap<String, Vec<(u64, u64)>> {
    let mut out = BTreeMap::new();
    for part in set.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let mut pieces = part.split(':');
        let uuid = pieces.next().expect("uuid").to_ascii_lowercase();
        let intervals: Vec<(u64, u64)> = pieces
            .map(|iv| match iv.split_once('-') {
                Some((a, b)) => (a.parse().expect("gno"), b.parse().expect("gno")),
                None => {
                    let n = iv.parse().expect("gno");
                    (n, n)
                }
            })
            .collect();
        assert!(!intervals.is_empty(), "{set}: {part} has no intervals");
        out.insert(uuid, intervals);
    }
    out
}

/// Whether every GTID of `a` is in `b`.
fn gtids_subset(
    a: &BTreeMap<String, Vec<(u64, u64)>>,
    b: &BTreeMap<String, Vec<(u64, u64)>>,
) -> bool {
    a.iter().all(|(uuid, ivs)| {
        let Some(theirs) = b.get(uuid) else { return false };
        ivs.iter().all(|&(lo, hi)| theirs.iter().any(|&(tlo, thi)| tlo <= lo && hi <= thi))
    })
}

/// The GTIDs in a server's binlog, in binlog order (SHOW BINARY LOGS, then SHOW BINLOG EVENTS
/// of each file: the Gtid events' `SET @@SESSION.GTID_NEXT= 'uuid:n'`).
async fn logged_gtids(port: u16) -> Vec<String> {
    let mut out = Vec::new();
    for file in query(port, "SHOW BINARY LOGS").await {
        for event in query(port, &format!("SHOW BINLOG EVENTS IN '{}'", file[0])).await {
            if event[2] == "Gtid" {
                let gtid = event[5].split('\'').nth(1).expect("GTID_NEXT's value");
                out.push(gtid.to_string());
            }
        }
    }
    out
}

/// `CHECKSUM TABLE` of `tables` on a server: table → checksum.
async fn checksums(port: u16, tables: &[String]) -> Vec<(String, String)> {
    let rows = query(port, &format!("CHECKSUM TABLE {}", tables.join(", "))).await;
    assert_eq!(rows.len(), tables.len());
    rows.into_iter().map(|r| (r[0].clone(), r[1].clone())).collect()
}

/// The consistency checks both tests end with: the same checksums and gtid_executed on every
/// server, and no replica GTID the source set lacks or of a UUID not in `allowed_uuids`.
async fn same_everywhere(servers: &[(&str, u16)], tables: &[String], allowed_uuids: &[String]) {
    let (first, port) = servers[0];
    let want_sums = checksums(port, tables).await;
    for (t, sum) in &want_sums {
        assert_ne!(sum, "NULL", "{first}: {t} has no checksum");
    }
    let want_gtids = gtid_executed(port).await;
    let source_set = parse_gtids(&want_gtids);
    for uuid in source_set.keys() {
        assert!(allowed_uuids.contains(uuid), "{first}: GTIDs of unexpected {uuid}: {want_gtids}");
    }
    for &(name, port) in &servers[1..] {
        assert_eq!(checksums(port, tables).await, want_sums, "{name} vs {first}: CHECKSUM TABLE");
        let have = gtid_executed(port).await;
        assert_eq!(have, want_gtids, "{name} vs {first}: gtid_executed");
        let set = parse_gtids(&have);
        for uuid in set.keys() {
            assert!(allowed_uuids.contains(uuid), "{name}: errant GTIDs of {uuid}: {have}");
        }
        assert!(gtids_subset(&set, &source_set), "{name}: {have} not within {want_gtids}");
        let st = replica_status(port).await;
        assert_eq!(st["Replica_IO_Running"], "Yes", "{name}: {st:#?}");
        assert_eq!(st["Replica_SQL_Running"], "Yes", "{name}: {st:#?}");
        assert_eq!(st["Last_SQL_Errno"], "0", "{name}: {st:#?}");
    }
}

fn keep_or_drop(dir: tempfile::TempDir) -> Box<dyn AsRef<Path>> {
    if std::env::var_os("KEEP_TOPOLOGY_TEST").is_some() {
        Box::new(dir.keep())
    } else {
        Box::new(dir)
    }
}

// ---- sysbench topology ------------------------------------------------------------------------

const TABLES: u32 = 4;

fn sysbench(port: u16, command: &str, threads: u32, seconds: u32) -> Command {
    let mut c = Command::new("sysbench");
    c.arg("oltp_write_only")
        .args([
            "--db-driver=mysql",
            "--mysql-host=127.0.0.1",
            &format!("--mysql-port={port}"),
            "--mysql-user=root",
            "--mysql-password=",
            "--mysql-db=sbtest",
            &format!("--tables={TABLES}"),
            "--table-size=2000",
            "--rand-type=uniform",
            &format!("--threads={threads}"),
            &format!("--time={seconds}"),
            "--events=0",
        ])
        .arg(command)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

/// Runs a sysbench phase; `during` runs `after` into it (a kill). `must_succeed` false for
/// the phase whose server is killed under it.
async fn phase(
    port: u16,
    seconds: u32,
    after: Duration,
    during: impl FnOnce(),
    must_succeed: bool,
) -> String {
    let child = sysbench(port, "run", 16, seconds).spawn().expect("run sysbench");
    tokio::time::sleep(after).await;
    during();
    let out = tokio::task::spawn_blocking(move || child.wait_with_output())
        .await
        .expect("join")
        .expect("sysbench output");
    let report = String::from_utf8_lossy(&out.stdout).into_owned();
    if must_succeed {
        assert!(
            out.status.success(),
            "sysbench failed: {report}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let transactions = report
        .lines()
        .find_map(|l| l.trim().strip_prefix("transactions:"))
        .and_then(|rest| rest.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into());
    format!("{transactions} txns (exit {})", out.status)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sysbench_topology_with_kills() {
    let _serial = SERIAL.lock().await;
    let started = Instant::now();
    let dir = tempfile::tempdir().expect("tempdir");
    eprintln!("data directories in {}", dir.path().display());
    let holder = keep_or_drop(dir);
    let dir: &Path = (*holder).as_ref();
    let mut primary = node("primary", dir, 1, &["--max-connections=200"]);
    let mut r1 = node("r1", dir, 2, &["--replica-parallel-workers=1"]);
    let mut r2 = node("r2", dir, 3, &["--replica-parallel-workers=4"]);
    let p = primary.port;
    replicate(r1.port, p).await;
    replicate(r2.port, p).await;

    exec(p, "CREATE DATABASE sbtest").await;
    let prepare = sysbench(p, "prepare", TABLES, 10).output().expect("sysbench prepare");
    assert!(prepare.status.success(), "prepare: {}", String::from_utf8_lossy(&prepare.stderr));

    let mut phases = Vec::new();
    // Phase 1: R1 (one worker) killed and restarted under the load.
    phases.push(phase(p, 5, Duration::from_secs(2), || r1.crash_and_restart(), true).await);
    // Phase 2: R2 (four workers) likewise.
    phases.push(phase(p, 5, Duration::from_secs(2), || r2.crash_and_restart(), true).await);
    // Phase 3: the primary, on the same port: sysbench loses its connections and stops.
    phases.push(phase(p, 5, Duration::from_secs(2), || primary.crash_and_restart(), false).await);
    assert_eq!(primary.port, p, "the primary came back on its port");
    // Phase 4: the restarted primary under load while the replicas find it again.
    phases.push(phase(p, 4, Duration::ZERO, || {}, true).await);

    let want = gtid_executed(p).await;
    for (name, port) in [("r1", r1.port), ("r2", r2.port)] {
        converge(name, port, &want, Duration::from_secs(60)).await;
    }
    let tables: Vec<String> = (1..=TABLES).map(|i| format!("sbtest.sbtest{i}")).collect();
    let uuid = server_uuid(p).await;
    same_everywhere(&[("primary", p), ("r1", r1.port), ("r2", r2.port)], &tables, &[uuid]).await;
    // replica_preserve_commit_order=ON (the default) with 4 workers, and through the kills:
    // each replica logged the primary's transactions in the primary's order.
    let order = logged_gtids(p).await;
    assert!(order.len() > 1_000, "only {} transactions in the primary's binlog", order.len());
    for (name, port) in [("r1", r1.port), ("r2", r2.port)] {
        let have = logged_gtids(port).await;
        assert_eq!(have.len(), order.len(), "{name}: transactions in its binlog");
        let first_diff = have.iter().zip(&order).position(|(a, b)| a != b);
        assert!(first_diff.is_none(), "{name}: not the primary's order from {first_diff:?}");
    }
    let rows = query(p, "SELECT COUNT(*) FROM sbtest.sbtest1").await[0][0].clone();
    eprintln!(
        "sysbench topology: phases {}; {rows} rows in sbtest1; {} logged in the same order \
         on all three; {} in {:.1} s",
        phases.join(", "),
        order.len(),
        want.replace('\n', ""),
        started.elapsed().as_secs_f64()
    );
}

// ---- failover -------------------------------------------------------------------------------

/// A writer: transactions of one unique `(client, seq)` row plus a hot counter update, on
/// `port` until `stop`; returns the acknowledged seqs.
async fn writer(port: u16, client: u32, stop: Arc<AtomicBool>) -> Vec<u32> {
    let mut c = conn(port).await;
    let mut acked = Vec::new();
    let mut seq = 0u32;
    while !stop.load(Ordering::Acquire) {
        seq += 1;
        let body = [
            "BEGIN".to_string(),
            format!("INSERT INTO app.acked VALUES ({client}, {seq}, 'written on {port}')"),
            format!("UPDATE app.counter SET n = n + 1 WHERE id = {}", (client + seq) % 4),
            "COMMIT".to_string(),
        ];
        let mut ok = true;
        for q in &body {
            if let Err(e) = c.query_drop(q).await {
                // Deadlocks and lock wait timeouts roll the transaction back: not acknowledged.
                assert!(
                    matches!(e, mysql_async::Error::Server(ref s) if s.code == 1213 || s.code == 1205),
                    "client {client}: {q}: {e}"
                );
                let _ = c.query_drop("ROLLBACK").await;
                ok = false;
                break;
            }
        }
        if ok {
            acked.push(seq);
        }
    }
    acked
}

/// Runs `clients` writers (ids from `first`) on `port` for `d`; acknowledged (client, seq).
async fn load(port: u16, first: u32, clients: u32, d: Duration) -> BTreeSet<(u32, u32)> {
    let stop = Arc::new(AtomicBool::new(false));
    let tasks: Vec<_> = (first..first + clients)
        .map(|c| (c, tokio::spawn(writer(port, c, stop.clone()))))
        .collect();
    tokio::time::sleep(d).await;
    stop.store(true, Ordering::Release);
    let mut acked = BTreeSet::new();
    for (c, t) in tasks {
        acked.extend(t.await.expect("writer").into_iter().map(|s| (c, s)));
    }
    acked
}

/// `(client, seq)` → how many times it is in app.acked.
async fn row_counts(port: u16) -> BTreeMap<(u32, u32), u32> {
    query(port, "SELECT client, seq, COUNT(*) FROM app.acked GROUP BY client, seq")
        .await
        .into_iter()
        .map(|r| {
            (
                (r[0].parse().expect("client"), r[1].parse().expect("seq")),
                r[2].parse().expect("count"),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failover_promotes_a_replica() {
    let _serial = SERIAL.lock().await;
    let started = Instant::now();
    let dir = tempfile::tempdir().expect("tempdir");
    eprintln!("data directories in {}", dir.path().display());
    let holder = keep_or_drop(dir);
    let dir: &Path = (*holder).as_ref();
    let mut primary = node("fo-primary", dir, 11, &[]);
    let a = node("fo-a", dir, 12, &["--replica-parallel-workers=1"]);
    let b = node("fo-b", dir, 13, &["--replica-parallel-workers=4"]);
    let p = primary.port;
    exec(p, "CREATE DATABASE app").await;
    // No primary key: a transaction applied twice would leave a duplicate row.
    exec(p, "CREATE TABLE app.acked (client INT NOT NULL, seq INT NOT NULL, note VARCHAR(40))")
        .await;
    exec(p, "CREATE TABLE app.counter (id INT PRIMARY KEY, n INT NOT NULL)").await;
    exec(p, "INSERT INTO app.counter VALUES (0, 0), (1, 0), (2, 0), (3, 0)").await;
    replicate(a.port, p).await;
    replicate(b.port, p).await;

    // Phase 1 on the primary; A stops replicating half-way, so it lags behind B.
    let phase1 = tokio::spawn(load(p, 1, 8, Duration::from_secs(3)));
    tokio::time::sleep(Duration::from_millis(1500)).await;
    exec(a.port, "STOP REPLICA").await;
    let mut acked = phase1.await.expect("phase 1");
    assert!(!acked.is_empty(), "phase 1 wrote nothing");
    let primary_final = gtid_executed(p).await;
    converge("B", b.port, &primary_final, Duration::from_secs(30)).await;
    assert_ne!(gtid_executed(a.port).await, primary_final, "A lags behind B");

    // The primary dies with a transaction open: it was never acknowledged and must vanish.
    let mut straggler = conn(p).await;
    straggler.query_drop("BEGIN").await.expect("begin");
    straggler
        .query_drop("INSERT INTO app.acked VALUES (999, 1, 'never committed')")
        .await
        .expect("insert");
    primary.kill();
    drop(straggler);

    // A catches up from its sibling B, then is promoted.
    exec(
        a.port,
        &format!("CHANGE REPLICATION SOURCE TO SOURCE_PORT={}, SOURCE_AUTO_POSITION=1", b.port),
    )
    .await;
    exec(a.port, "START REPLICA").await;
    converge("A (from B)", a.port, &primary_final, Duration::from_secs(30)).await;
    exec(a.port, "STOP REPLICA").await;
    exec(a.port, "RESET REPLICA ALL").await;
    assert!(replica_status(a.port).await.is_empty(), "A is no replica any more");

    // Writes go to A at once; B is pointed at A while they do.
    let phase2 = tokio::spawn(load(a.port, 101, 8, Duration::from_secs(3)));
    exec(b.port, "STOP REPLICA").await;
    exec(
        b.port,
        &format!("CHANGE REPLICATION SOURCE TO SOURCE_PORT={}, SOURCE_AUTO_POSITION=1", a.port),
    )
    .await;
    exec(b.port, "START REPLICA").await;
    let acked2 = phase2.await.expect("phase 2");
    assert!(!acked2.is_empty(), "phase 2 wrote nothing on A");
    acked.extend(acked2);

    let a_final = gtid_executed(a.port).await;
    converge("B (from A)", b.port, &a_final, Duration::from_secs(30)).await;
    let (a_uuid, p_uuid) = (server_uuid(a.port).await, {
        // The primary is dead: its UUID is the one in its final set.
        let set = parse_gtids(&primary_final);
        assert_eq!(set.len(), 1, "{primary_final}");
        set.keys().next().expect("one uuid").clone()
    });
    assert!(
        gtids_subset(&parse_gtids(&primary_final), &parse_gtids(&a_final)),
        "A lost some of the primary's transactions: {primary_final} vs {a_final}"
    );
    assert_eq!(replica_status(b.port).await["Source_UUID"], a_uuid);
    // The old primary's transactions (A's last ones through B) and then A's own, in one order
    // on both.
    let (a_order, b_order) = (logged_gtids(a.port).await, logged_gtids(b.port).await);
    assert!(a_order.len() > 100, "only {} transactions in A's binlog", a_order.len());
    assert!(a_order == b_order, "A and B logged the transactions in different orders");
    for (name, port) in [("A", a.port), ("B", b.port)] {
        let counts = row_counts(port).await;
        let doubled: Vec<_> = counts.iter().filter(|(_, n)| **n != 1).collect();
        assert!(doubled.is_empty(), "{name}: rows not exactly once: {doubled:?}");
        let present: BTreeSet<(u32, u32)> = counts.keys().copied().collect();
        let lost: Vec<_> = acked.difference(&present).collect();
        assert!(lost.is_empty(), "{name}: acknowledged rows missing: {lost:?}");
        let extra: Vec<_> = present.difference(&acked).collect();
        assert!(extra.is_empty(), "{name}: rows never acknowledged: {extra:?}");
        let total = query(port, "SELECT SUM(n) FROM app.counter").await[0][0].clone();
        let total: f64 = total.parse().unwrap_or_else(|e| panic!("SUM(n) = {total}: {e}"));
        assert_eq!(total, acked.len() as f64, "{name}: one counter update per transaction");
    }
    let tables = vec!["app.acked".to_string(), "app.counter".to_string()];
    same_everywhere(&[("A", a.port), ("B", b.port)], &tables, &[p_uuid, a_uuid]).await;
    eprintln!(
        "failover: {} acknowledged transactions, final set {}; {:.1} s",
        acked.len(),
        a_final.replace('\n', ""),
        started.elapsed().as_secs_f64()
    );
}
