//! Consistent reads against a real server under concurrent writers (issue 21):
//! - `SHOW MASTER STATUS` (and so `@@gtid_executed`) never names a transaction that a read
//!   issued right after it cannot see: GTIDs are published after the engine commit.
//! - `START TRANSACTION WITH CONSISTENT SNAPSHOT` reports, in `Binlog_snapshot_file`,
//!   `Binlog_snapshot_position` and `Binlog_snapshot_gtid_executed`, exactly the binlog
//!   position its read view matches: the rows it reads are exactly those the GTID set names,
//!   and they stay fixed while the writers go on.
//!
//! Each writer transaction inserts one row and gets one GTID, so the number of rows visible
//! must equal the number of GTIDs in the set minus the statements before the writers.

mod support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mysql_async::prelude::Queryable;
use mysql_async::Row;
use support::sql::{conn, text};

/// How many GTIDs a set holds (every interval of every source).
fn gtid_count(set: &str) -> u64 {
    let mut n = 0;
    for part in set.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        for iv in part.split(':').skip(1) {
            let mut ends = iv.split('-').map(|x| x.trim().parse::<u64>().expect("gno"));
            let a = ends.next().expect("start");
            let b = ends.next().unwrap_or(a);
            n += b - a + 1;
        }
    }
    n
}

async fn rows(c: &mut mysql_async::Conn, sql: &str) -> Vec<Vec<String>> {
    let r: Vec<Row> = c.query(sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    r.iter().map(|r| (0..r.len()).map(|i| text(&r[i])).collect()).collect()
}

async fn count(c: &mut mysql_async::Conn) -> u64 {
    rows(c, "SELECT COUNT(*) FROM d.t").await[0][0].parse().expect("count")
}

/// Starts `writers` tasks that insert one row per autocommit transaction until `stop`.
fn spawn_writers(
    port: u16,
    writers: usize,
    stop: &Arc<AtomicBool>,
) -> Vec<tokio::task::JoinHandle<u64>> {
    (0..writers)
        .map(|_| {
            let stop = stop.clone();
            tokio::spawn(async move {
                let mut c = conn(port).await;
                let mut n = 0;
                while !stop.load(Ordering::Relaxed) {
                    c.query_drop("INSERT INTO d.t (w) VALUES (1)").await.expect("insert");
                    n += 1;
                }
                n
            })
        })
        .collect()
}

/// The GTIDs of the statements before the writers (CREATE DATABASE, CREATE TABLE).
async fn setup(port: u16) -> u64 {
    let mut c = conn(port).await;
    c.query_drop("CREATE DATABASE d").await.expect("create database");
    c.query_drop("CREATE TABLE d.t (id INT AUTO_INCREMENT PRIMARY KEY, w INT)")
        .await
        .expect("create");
    let set = rows(&mut c, "SELECT @@GLOBAL.gtid_executed").await[0][0].clone();
    gtid_count(&set)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn show_master_status_never_names_a_transaction_a_new_read_cannot_see() {
    let dir = tempfile::tempdir().expect("tempdir");
    // A slow simulated disk widens the window between the binlog write and the engine commit.
    let server = support::start(
        &dir.path().join("data"),
        &["--initialize-insecure", "--simulated-fsync-latency-us=2000"],
    );
    let ddl = setup(server.port).await;
    let stop = Arc::new(AtomicBool::new(false));
    let writers = spawn_writers(server.port, 8, &stop);
    let mut poller = conn(server.port).await;
    let (mut polls, mut bad, mut first_bad) = (0u64, 0u64, None);
    let end = Instant::now() + Duration::from_secs(4);
    while Instant::now() < end {
        let status = rows(&mut poller, "SHOW MASTER STATUS").await;
        let named = gtid_count(&status[0][4]) - ddl;
        let seen = count(&mut poller).await;
        polls += 1;
        if seen < named {
            bad += 1;
            first_bad.get_or_insert((named, seen));
        }
        let var = rows(&mut poller, "SELECT @@GLOBAL.gtid_executed").await[0][0].clone();
        let seen = count(&mut poller).await;
        if seen < gtid_count(&var) - ddl {
            bad += 1;
        }
    }
    stop.store(true, Ordering::Relaxed);
    let mut written = 0;
    for w in writers {
        written += w.await.expect("writer");
    }
    assert!(written > 50 && polls > 20, "too little load: {written} commits, {polls} polls");
    assert_eq!(bad, 0, "{bad} of {polls} polls named invisible transactions; first {first_bad:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_consistent_snapshot_reports_the_binlog_position_it_matches() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = support::start(
        &dir.path().join("data"),
        &["--initialize-insecure", "--simulated-fsync-latency-us=2000"],
    );
    let ddl = setup(server.port).await;
    let stop = Arc::new(AtomicBool::new(false));
    let writers = spawn_writers(server.port, 6, &stop);
    let mut reader = conn(server.port).await;
    let mut snapshots = 0;
    let mut last = (String::new(), 0u64);
    let end = Instant::now() + Duration::from_secs(4);
    while Instant::now() < end {
        reader.query_drop("START TRANSACTION WITH CONSISTENT SNAPSHOT").await.expect("start");
        let status = rows(&mut reader, "SHOW STATUS LIKE 'binlog_snapshot_%'").await;
        let get = |name: &str| {
            status
                .iter()
                .find(|r| r[0].eq_ignore_ascii_case(name))
                .unwrap_or_else(|| panic!("{name} in {status:?}"))[1]
                .clone()
        };
        let (file, pos, set) = (
            get("Binlog_snapshot_file"),
            get("Binlog_snapshot_position").parse::<u64>().expect("position"),
            get("Binlog_snapshot_gtid_executed"),
        );
        let named = gtid_count(&set) - ddl;
        let seen = count(&mut reader).await;
        assert_eq!(seen, named, "snapshot at {file}:{pos} ({set}) reads {seen} rows");
        // Positions move forward between snapshots.
        assert!((file.clone(), pos) >= last, "{file}:{pos} after {last:?}");
        last = (file, pos);
        tokio::time::sleep(Duration::from_millis(30)).await;
        // The view stays fixed while the writers go on.
        assert_eq!(count(&mut reader).await, named);
        let again = rows(&mut reader, "SHOW STATUS LIKE 'Binlog_snapshot_position'").await;
        assert_eq!(again[0][1], pos.to_string());
        reader.query_drop("COMMIT").await.expect("commit");
        snapshots += 1;
    }
    stop.store(true, Ordering::Relaxed);
    for w in writers {
        w.await.expect("writer");
    }
    assert!(snapshots > 5, "only {snapshots} snapshots");
    let history = rows(&mut reader, "SHOW GLOBAL STATUS LIKE 'Innodb_history_list_length'").await;
    assert_eq!(history.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flush_tables_with_read_lock_returns_with_everything_committed_visible() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = support::start(
        &dir.path().join("data"),
        &["--initialize-insecure", "--simulated-fsync-latency-us=2000"],
    );
    let ddl = setup(server.port).await;
    let stop = Arc::new(AtomicBool::new(false));
    let writers = spawn_writers(server.port, 6, &stop);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut locker = conn(server.port).await;
    for _ in 0..3 {
        locker.query_drop("FLUSH TABLES WITH READ LOCK").await.expect("ftwrl");
        let status = rows(&mut locker, "SHOW MASTER STATUS").await;
        let named = gtid_count(&status[0][4]) - ddl;
        assert_eq!(count(&mut locker).await, named, "everything committed is visible");
        tokio::time::sleep(Duration::from_millis(200)).await;
        // Nothing commits while the lock is held.
        assert_eq!(count(&mut locker).await, named);
        let again = rows(&mut locker, "SHOW MASTER STATUS").await;
        assert_eq!(again, status);
        locker.query_drop("UNLOCK TABLES").await.expect("unlock");
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(count(&mut locker).await > named, "writers resume");
    }
    stop.store(true, Ordering::Relaxed);
    for w in writers {
        w.await.expect("writer");
    }
}

/// `performance_schema.log_status`: LOCAL holds the binary log file, position and
/// gtid_executed that SHOW MASTER STATUS reports, SERVER_UUID the server's, STORAGE_ENGINES the
/// redo LSNs; it needs BACKUP_ADMIN (1227 without it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn log_status_names_the_binlog_position_and_needs_backup_admin() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = support::start(&dir.path().join("data"), &["--initialize-insecure"]);
    setup(server.port).await;
    let mut c = conn(server.port).await;
    c.query_drop("INSERT INTO d.t (w) VALUES (1), (2)").await.expect("insert");
    let status = rows(&mut c, "SHOW MASTER STATUS").await;
    let row = rows(&mut c, "SELECT * FROM performance_schema.log_status").await;
    assert_eq!(row.len(), 1, "{row:?}");
    let uuid = rows(&mut c, "SELECT @@server_uuid").await[0][0].clone();
    assert_eq!(row[0][0], uuid);
    let local: serde_json::Value = serde_json::from_str(&row[0][1]).expect("LOCAL is JSON");
    assert_eq!(local["binary_log_file"], status[0][0].as_str());
    assert_eq!(local["binary_log_position"].to_string(), status[0][1]);
    assert_eq!(local["gtid_executed"], status[0][4].as_str());
    let repl: serde_json::Value = serde_json::from_str(&row[0][2]).expect("REPLICATION");
    assert!(repl["channels"].is_array(), "{repl}");
    let engines: serde_json::Value = serde_json::from_str(&row[0][3]).expect("STORAGE_ENGINES");
    assert!(engines["InnoDB"]["LSN"].as_u64().is_some_and(|l| l > 0), "{engines}");
    let lsn = rows(
        &mut c,
        "SELECT JSON_EXTRACT(LOCAL, '$.binary_log_position') FROM performance_schema.log_status",
    )
    .await;
    assert_eq!(lsn[0][0], status[0][1]);

    c.query_drop("CREATE USER plain@'%' IDENTIFIED BY 'pw'").await.expect("user");
    c.query_drop("GRANT SELECT ON *.* TO plain@'%'").await.expect("grant");
    let mut plain = support::sql::conn_as(server.port, "plain", "pw").await;
    let e = plain
        .query_drop("SELECT * FROM performance_schema.log_status")
        .await
        .expect_err("needs BACKUP_ADMIN");
    assert!(e.to_string().contains("1227") && e.to_string().contains("BACKUP_ADMIN"), "{e}");
}
