//! Debezium's MySQL connector (io.debezium:debezium-embedded + debezium-connector-mysql from
//! Maven Central, run embedded with file offset and schema-history stores, no Kafka) against
//! binlogd while several writers insert, update and delete (issue 21):
//! - its default `snapshot.mode=initial` snapshot (FLUSH TABLES WITH READ LOCK, START
//!   TRANSACTION WITH CONSISTENT SNAPSHOT, SHOW BINARY LOG STATUS, information_schema.SCHEMATA,
//!   SHOW CREATE TABLE, SELECT *) is taken while the writers run, then it streams the binlog;
//! - the connector is stopped and started again (it resumes from its stored offsets, with no
//!   second snapshot), then binlogd is killed (-9) and restarted under it, and it resumes again;
//! - every change is delivered exactly once: the state rebuilt from the events (snapshot reads,
//!   then creates, updates and deletes, each update's and delete's before-image equal to the
//!   rebuilt row, each create of a row not yet there) equals the tables at the end. Each
//!   update changes a counter, so a duplicate or a lost event breaks the chain; rolled-back
//!   transactions must deliver nothing.
//!
//! Needs java (17+) and mvn: the test command installs them and fetches the jars
//! (`tests/drivers/install.sh TARGET debezium`); without them the test fails under `CI=true`
//! and is skipped otherwise.

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mysql_async::prelude::Queryable;
use mysql_async::Row;
use serde_json::Value as Json;
use support::drivers::{install, programs, target_dir};
use support::mariadb::have;
use support::sql::{conn, text};
use support::Node;

/// One run of the embedded connector: stdout (one JSON change event a line) to `out`.
struct Connector {
    child: Child,
    out: PathBuf,
    work: PathBuf,
}

impl Connector {
    fn start(port: u16, work: &Path, run: u32) -> Connector {
        let out = work.join(format!("events.{run}"));
        let err = work.join(format!("debezium.{run}.log"));
        let _ = std::fs::remove_file(work.join("stop"));
        let child = Command::new("java")
            .arg("-cp")
            .arg(format!("{}/drivers/debezium-lib/*", target_dir().display()))
            .arg(programs().join("debezium/DebeziumCheck.java"))
            .args([&port.to_string(), "dbz", "dbz-secret", "app", &work.display().to_string()])
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&out).expect("events file"))
            .stderr(std::fs::File::create(err).expect("log file"))
            .spawn()
            .expect("start java");
        Connector { child, out, work: work.to_path_buf() }
    }

    fn lines(&self) -> Vec<String> {
        std::fs::read_to_string(&self.out).unwrap_or_default().lines().map(String::from).collect()
    }

    fn log(&self) -> String {
        let run = self.out.extension().and_then(|e| e.to_str()).unwrap_or_default();
        std::fs::read_to_string(self.work.join(format!("debezium.{run}.log"))).unwrap_or_default()
    }

    /// Waits (at most `limit`) until an event line satisfies `pred`; panics with the log.
    fn wait_for(&mut self, what: &str, limit: Duration, pred: impl Fn(&Json) -> bool) {
        let end = Instant::now() + limit;
        loop {
            if self.lines().iter().filter_map(|l| serde_json::from_str(l).ok()).any(|e| pred(&e)) {
                return;
            }
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                panic!("connector exited ({status}) before {what}:\n{}", tail(&self.log()));
            }
            assert!(Instant::now() < end, "no {what} in {limit:?}:\n{}", tail(&self.log()));
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Stops the connector (it commits its offsets) and returns its events.
    fn stop(mut self) -> Vec<Json> {
        std::fs::write(self.work.join("stop"), b"").expect("stop file");
        let end = Instant::now() + Duration::from_secs(90);
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                break status;
            }
            if Instant::now() > end {
                let _ = self.child.kill();
                panic!("connector did not stop:\n{}", tail(&self.log()));
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        let lines = self.lines();
        assert!(
            status.success() && lines.last().map(String::as_str) == Some("stopped"),
            "connector failed ({status}):\n{}\n{}",
            lines.last().cloned().unwrap_or_default(),
            tail(&self.log())
        );
        lines[..lines.len() - 1]
            .iter()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
            .collect()
    }
}

impl Drop for Connector {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn tail(log: &str) -> String {
    let lines: Vec<&str> = log.lines().collect();
    lines[lines.len().saturating_sub(60)..].join("\n")
}

/// A small deterministic generator (xorshift), so a failing run can be replayed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

const WRITERS: u64 = 4;
/// Bound on each writer's operations per burst, whatever the machine's speed.
const MAX_OPS: u64 = 3_000;

/// A burst of `WRITERS` writers for `time` (or `MAX_OPS` each). Returns the number of
/// committed statements.
async fn burst(port: u16, time: Duration, round: u64) -> u64 {
    let stop = Arc::new(AtomicBool::new(false));
    let tasks = writers(port, round, &stop);
    tokio::time::sleep(time).await;
    stop.store(true, Ordering::Relaxed);
    let mut total = 0;
    for t in tasks {
        total += t.await.expect("writer");
    }
    total
}

/// `WRITERS` writers until `stop` (or `MAX_OPS` each): inserts, updates (a counter goes up by
/// one, so each update is distinct) and deletes on the writer's own rows, in autocommit
/// statements and in transactions of two or three statements, a tenth of them rolled back.
/// Each returns its number of committed statements.
fn writers(port: u16, round: u64, stop: &Arc<AtomicBool>) -> Vec<tokio::task::JoinHandle<u64>> {
    (0..WRITERS)
        .map(|w| {
            let stop = stop.clone();
            tokio::spawn(async move {
                let mut c = conn(port).await;
                let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ (w * 7919 + round * 104_729 + 1));
                let mut next = (round * WRITERS + w) * 1_000_000 + 1_000;
                let mut committed = 0u64;
                for _ in 0..MAX_OPS {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let statements = if rng.below(3) == 0 { 2 + rng.below(2) } else { 1 };
                    let txn = statements > 1;
                    if txn {
                        c.query_drop("BEGIN").await.expect("begin");
                    }
                    let mut aborted = false;
                    for _ in 0..statements {
                        let table = if rng.below(2) == 0 { "a" } else { "b" };
                        let sql = match rng.below(10) {
                            0..=3 => {
                                next += 1;
                                match table {
                                    "a" => format!(
                                        "INSERT INTO app.a VALUES ({next}, {w}, 0, 'w{w}-{next}')"
                                    ),
                                    _ => format!(
                                        "INSERT INTO app.b VALUES ({next}, 0, {}.{:02})",
                                        rng.below(1000),
                                        rng.below(100)
                                    ),
                                }
                            }
                            // The writer's rows only (ids ≡ w mod WRITERS, and its own inserts);
                            // the scan's gap locks can still make writers wait (below).
                            4..=7 => format!(
                                "UPDATE app.{table} SET n = n + 1 WHERE id % {WRITERS} = {w} \
                                 AND id % 97 = {} LIMIT 1",
                                rng.below(97)
                            ),
                            _ => format!(
                                "DELETE FROM app.{table} WHERE id % {WRITERS} = {w} AND id % 89 = {} \
                                 LIMIT 1",
                                rng.below(89)
                            ),
                        };
                        match c.query_drop(&sql).await {
                            Ok(()) => {}
                            // Under REPEATABLE READ a scanning UPDATE/DELETE locks the gaps it
                            // read, so writers can deadlock (1213: the transaction is rolled
                            // back) or time out (1205), as on InnoDB; the application retries.
                            Err(mysql_async::Error::Server(e)) if matches!(e.code, 1205 | 1213) => {
                                aborted = true;
                                break;
                            }
                            Err(e) => panic!("{sql}: {e}"),
                        }
                    }
                    if aborted {
                        if txn {
                            c.query_drop("ROLLBACK").await.expect("rollback");
                        }
                        continue;
                    }
                    if txn && rng.below(10) == 0 {
                        c.query_drop("ROLLBACK").await.expect("rollback");
                    } else {
                        if txn {
                            c.query_drop("COMMIT").await.expect("commit");
                        }
                        committed += statements;
                    }
                }
                committed
            })
        })
        .collect()
}

/// A column value as text: JSON numbers and strings as the server prints them.
fn json_text(v: &Json) -> String {
    match v {
        Json::Null => "NULL".into(),
        Json::String(s) => s.clone(),
        other => other.to_string(),
    }
}

type Rows = BTreeMap<String, BTreeMap<String, String>>;

fn image(v: &Json) -> BTreeMap<String, String> {
    v.as_object()
        .unwrap_or_else(|| panic!("row image {v}"))
        .iter()
        .map(|(k, v)| (k.clone(), json_text(v)))
        .collect()
}

/// Applies the events to `state` (table → id → row), checking each one against it.
fn apply(state: &mut BTreeMap<String, Rows>, events: &[Json], run: u32) -> (u64, u64) {
    let (mut reads, mut changes) = (0, 0);
    for e in events {
        let op = e["op"].as_str().unwrap_or_else(|| panic!("op in {e}"));
        let table = e["source"]["table"].as_str().unwrap_or_else(|| panic!("table in {e}"));
        let rows = state.entry(table.to_string()).or_default();
        let key = |img: &BTreeMap<String, String>| img["id"].clone();
        match op {
            "r" => {
                assert_eq!(run, 1, "a second snapshot in run {run}: {e}");
                let after = image(&e["after"]);
                assert!(rows.insert(key(&after), after).is_none(), "read twice: {e}");
                reads += 1;
            }
            "c" => {
                let after = image(&e["after"]);
                assert!(rows.insert(key(&after), after).is_none(), "created twice: {e}");
                changes += 1;
            }
            "u" | "d" => {
                let before = image(&e["before"]);
                let id = key(&before);
                let have = rows.remove(&id);
                assert_eq!(have.as_ref(), Some(&before), "run {run}: before-image differs: {e}");
                if op == "u" {
                    let after = image(&e["after"]);
                    assert_eq!(key(&after), id, "{e}");
                    rows.insert(id, after);
                }
                changes += 1;
            }
            other => panic!("op {other}: {e}"),
        }
    }
    (reads, changes)
}

async fn table_rows(port: u16, table: &str) -> Rows {
    let mut c = conn(port).await;
    let sql = format!("SELECT * FROM app.{table}");
    let result: Vec<Row> = c.query(&sql).await.expect("select");
    result
        .iter()
        .map(|r| {
            let cols = r.columns_ref();
            let m: BTreeMap<String, String> =
                (0..r.len()).map(|i| (cols[i].name_str().into_owned(), text(&r[i]))).collect();
            (m["id"].clone(), m)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn debezium_snapshots_and_streams_exactly_once_across_restarts() {
    let missing: Vec<&str> = ["java", "mvn"].into_iter().filter(|p| !have(p)).collect();
    if !missing.is_empty() {
        assert!(
            std::env::var("CI").is_err(),
            "missing {missing:?} (scripts/test.sh installs them)"
        );
        eprintln!("skipped: {missing:?} not installed");
        return;
    }
    install("debezium");
    let dir = tempfile::tempdir().expect("tempdir");
    let work = dir.path().join("debezium");
    std::fs::create_dir_all(&work).expect("work dir");
    let mut node = Node::start(&dir.path().join("data"), 1, &[]);
    let port = node.port;
    {
        let mut c = conn(port).await;
        for sql in [
            "CREATE DATABASE app",
            "CREATE TABLE app.a (id BIGINT PRIMARY KEY, w INT NOT NULL, n INT NOT NULL, \
             s VARCHAR(40))",
            "CREATE TABLE app.b (id BIGINT PRIMARY KEY, n INT NOT NULL, d DECIMAL(10,2))",
            "CREATE TABLE app.done (id INT PRIMARY KEY)",
            // The privileges Debezium's documentation asks for.
            "CREATE USER dbz@'%' IDENTIFIED BY 'dbz-secret'",
            "GRANT SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT, \
             LOCK TABLES ON *.* TO dbz@'%'",
        ] {
            c.query_drop(sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
        }
        for i in 0..400 {
            c.query_drop(format!("INSERT INTO app.a VALUES ({i}, -1, 0, 'seed {i}')"))
                .await
                .expect("seed a");
            c.query_drop(format!("INSERT INTO app.b VALUES ({i}, 0, {i}.25)"))
                .await
                .expect("seed b");
        }
    }

    // Run 1: the snapshot is taken while the writers run (they run from before the connector
    // starts until after it streams), then streaming.
    let stop = Arc::new(AtomicBool::new(false));
    let tasks = writers(port, 0, &stop);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut first = Connector::start(port, &work, 1);
    tokio::task::block_in_place(|| {
        first.wait_for("streamed change", Duration::from_secs(120), |e| {
            e["source"]["snapshot"].as_str() == Some("false")
        })
    });
    tokio::time::sleep(Duration::from_secs(2)).await;
    stop.store(true, Ordering::Relaxed);
    let mut committed = 0;
    for t in tasks {
        committed += t.await.expect("writer");
    }
    let events1 = tokio::task::block_in_place(|| first.stop());
    assert!(events1.iter().any(|e| e["op"] == "r"), "run 1 has no snapshot");
    // The writers went on through the snapshot: their changes after its position came
    // through the stream (the chain check below covers each of them).
    let streamed = events1.iter().filter(|e| e["op"] != "r").count();
    assert!(streamed > 10, "run 1 streamed {streamed} changes: no writes after the snapshot?");

    // Run 2: the connector restarts from its stored offsets while the writers run.
    let writers = tokio::spawn(burst(port, Duration::from_secs(6), 1));
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut second = Connector::start(port, &work, 2);
    tokio::task::block_in_place(|| {
        second.wait_for("streamed change", Duration::from_secs(120), |e| e["op"] != "r")
    });
    committed += writers.await.expect("burst");
    // binlogd is killed and restarted under the running connector.
    tokio::task::block_in_place(|| node.crash_and_restart());
    assert_eq!(node.port, port);
    committed += burst(port, Duration::from_secs(4), 2).await;
    let events2 = tokio::task::block_in_place(|| second.stop());

    // Run 3: resumes after the restarted server; changes made while it was stopped arrive.
    committed += burst(port, Duration::from_secs(2), 3).await;
    let mut third = Connector::start(port, &work, 3);
    conn(port).await.query_drop("INSERT INTO app.done VALUES (1)").await.expect("marker");
    tokio::task::block_in_place(|| {
        third.wait_for("the marker row", Duration::from_secs(120), |e| {
            e["source"]["table"] == "done"
        })
    });
    let events3 = tokio::task::block_in_place(|| third.stop());

    let mut state = BTreeMap::new();
    let (reads, c1) = apply(&mut state, &events1, 1);
    let (_, c2) = apply(&mut state, &events2, 2);
    let (_, c3) = apply(&mut state, &events3, 3);
    eprintln!(
        "{committed} statements committed; snapshot {reads} rows, then {c1} + {c2} + {c3} changes"
    );
    assert!(reads >= 400, "snapshot read {reads} rows");
    assert!(c2 > 0 && c3 > 1, "runs 2 and 3 streamed {c2} and {c3} changes");
    for table in ["a", "b", "done"] {
        let want = table_rows(port, table).await;
        let got = state.remove(table).unwrap_or_default();
        assert_eq!(got.len(), want.len(), "{table}: rebuilt rows vs the table's");
        for (id, row) in &want {
            assert_eq!(got.get(id), Some(row), "{table} row {id}");
        }
    }
    assert!(state.values().all(BTreeMap::is_empty), "events for other tables: {state:?}");
}
