//! Gap locks against MariaDB (issue 21): the same two-session scenarios run on `binlogd serve`
//! and on a MariaDB started by the test (its InnoDB takes the same gap locks as mysqld's), and
//! for each one the other session's probe must block (1205 after `innodb_lock_wait_timeout`)
//! on both or on neither. Only scenarios where binlogd's ranges equal InnoDB's next-key locks
//! are listed (docs/engine.md, "Gap locks", says where they differ). Also: KILL QUERY ends an
//! insert waiting for a gap lock with 1317.

mod support;

use std::time::{Duration, Instant};

use mysql_async::prelude::Queryable;
use mysql_async::Conn;

/// One scenario: session A's isolation level and statements (inside BEGIN), then session B's
/// probe, and whether the probe must block.
struct Case {
    name: &'static str,
    isolation: &'static str,
    a: &'static [&'static str],
    probe: &'static str,
    blocks: bool,
}

const CASES: &[Case] = &[
    Case {
        name: "FOR UPDATE range, insert inside",
        isolation: "REPEATABLE READ",
        a: &["SELECT * FROM t WHERE id BETWEEN 10 AND 20 FOR UPDATE"],
        probe: "INSERT INTO t VALUES (15, 0, 0)",
        blocks: true,
    },
    Case {
        name: "FOR UPDATE range, insert far after",
        isolation: "REPEATABLE READ",
        a: &["SELECT * FROM t WHERE id BETWEEN 10 AND 20 FOR UPDATE"],
        probe: "INSERT INTO t VALUES (35, 0, 0)",
        blocks: false,
    },
    Case {
        name: "absent row FOR UPDATE, insert of it",
        isolation: "REPEATABLE READ",
        a: &["SELECT * FROM t WHERE id = 15 FOR UPDATE"],
        probe: "INSERT INTO t VALUES (15, 0, 0)",
        blocks: true,
    },
    Case {
        name: "existing row FOR UPDATE, insert next to it",
        isolation: "REPEATABLE READ",
        a: &["SELECT * FROM t WHERE id = 20 FOR UPDATE"],
        probe: "INSERT INTO t VALUES (19, 0, 0)",
        blocks: false,
    },
    Case {
        name: "point UPDATE of an existing row, insert next to it",
        isolation: "REPEATABLE READ",
        a: &["UPDATE t SET v = v + 1 WHERE id = 20"],
        probe: "INSERT INTO t VALUES (21, 0, 0)",
        blocks: false,
    },
    Case {
        name: "UPDATE with a range, insert inside",
        isolation: "REPEATABLE READ",
        a: &["UPDATE t SET v = v + 1 WHERE id BETWEEN 10 AND 20"],
        probe: "INSERT INTO t VALUES (12, 0, 0)",
        blocks: true,
    },
    Case {
        name: "DELETE scanning the whole table, insert anywhere",
        isolation: "REPEATABLE READ",
        a: &["DELETE FROM t WHERE v = 999"],
        probe: "INSERT INTO t VALUES (1000, 0, 0)",
        blocks: true,
    },
    Case {
        name: "open-ended range, insert past the last row",
        isolation: "REPEATABLE READ",
        a: &["SELECT * FROM t WHERE id > 25 FOR UPDATE"],
        probe: "INSERT INTO t VALUES (100, 0, 0)",
        blocks: true,
    },
    Case {
        name: "secondary index equality, insert of the same k",
        isolation: "REPEATABLE READ",
        a: &["SELECT * FROM t WHERE k = 20 FOR UPDATE"],
        probe: "INSERT INTO t VALUES (25, 0, 20)",
        blocks: true,
    },
    Case {
        name: "FOR SHARE range, insert inside",
        isolation: "REPEATABLE READ",
        a: &["SELECT * FROM t WHERE id BETWEEN 10 AND 20 LOCK IN SHARE MODE"],
        probe: "INSERT INTO t VALUES (15, 0, 0)",
        blocks: true,
    },
    Case {
        name: "SERIALIZABLE plain SELECT, insert inside",
        isolation: "SERIALIZABLE",
        a: &["SELECT * FROM t WHERE id BETWEEN 10 AND 20"],
        probe: "INSERT INTO t VALUES (15, 0, 0)",
        blocks: true,
    },
    Case {
        name: "REPEATABLE READ plain SELECT, insert inside",
        isolation: "REPEATABLE READ",
        a: &["SELECT * FROM t WHERE id BETWEEN 10 AND 20"],
        probe: "INSERT INTO t VALUES (15, 0, 0)",
        blocks: false,
    },
    Case {
        name: "READ COMMITTED FOR UPDATE range, insert inside",
        isolation: "READ COMMITTED",
        a: &["SELECT * FROM t WHERE id BETWEEN 10 AND 20 FOR UPDATE"],
        probe: "INSERT INTO t VALUES (15, 0, 0)",
        blocks: false,
    },
    Case {
        name: "READ COMMITTED UPDATE with a range, insert inside",
        isolation: "READ COMMITTED",
        a: &["UPDATE t SET v = v + 1 WHERE id BETWEEN 10 AND 20"],
        probe: "INSERT INTO t VALUES (15, 0, 0)",
        blocks: false,
    },
    Case {
        name: "READ COMMITTED FOR UPDATE range, update of a row in it",
        isolation: "READ COMMITTED",
        a: &["SELECT * FROM t WHERE id BETWEEN 10 AND 20 FOR UPDATE"],
        probe: "UPDATE t SET v = 0 WHERE id = 10",
        blocks: true,
    },
];

async fn exec(c: &mut Conn, sql: &str) {
    c.query_drop(sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
}

/// Runs every case on the server at `port`; returns, per case, whether the probe blocked.
async fn run_cases(port: u16) -> Vec<bool> {
    let mut a = support::mariadb::connect(port, Duration::from_secs(30)).await;
    let mut b = support::mariadb::connect(port, Duration::from_secs(30)).await;
    exec(&mut a, "CREATE DATABASE IF NOT EXISTS gaps").await;
    exec(&mut a, "USE gaps").await;
    exec(&mut b, "USE gaps").await;
    exec(&mut b, "SET SESSION innodb_lock_wait_timeout = 1").await;
    let mut out = Vec::new();
    for case in CASES {
        exec(&mut a, "DROP TABLE IF EXISTS t").await;
        exec(&mut a, "CREATE TABLE t (id INT PRIMARY KEY, v INT, k INT, KEY kk (k)) ENGINE=InnoDB")
            .await;
        exec(&mut a, "INSERT INTO t VALUES (10, 1, 10), (20, 2, 20), (30, 3, 30)").await;
        exec(&mut a, &format!("SET SESSION TRANSACTION ISOLATION LEVEL {}", case.isolation)).await;
        exec(&mut a, "BEGIN").await;
        for s in case.a {
            exec(&mut a, s).await;
        }
        let started = Instant::now();
        let blocked = match b.query_drop(case.probe).await {
            Ok(()) => false,
            Err(mysql_async::Error::Server(e)) if e.code == 1205 => true,
            Err(e) => panic!("{} on port {port}: {}: {e}", case.name, case.probe),
        };
        if blocked {
            assert!(started.elapsed() >= Duration::from_millis(900), "{}: no wait", case.name);
        }
        exec(&mut a, "ROLLBACK").await;
        out.push(blocked);
    }
    exec(&mut a, "SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ").await;
    let _ = a.disconnect().await;
    let _ = b.disconnect().await;
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn blocks_and_does_not_block_as_mariadb() {
    let dir = tempfile::tempdir().expect("tempdir");
    let binlogd = support::start(&dir.path().join("binlogd"), &["--initialize-insecure"]);
    let ours = run_cases(binlogd.port).await;
    for (case, blocked) in CASES.iter().zip(&ours) {
        assert_eq!(*blocked, case.blocks, "binlogd: {}", case.name);
    }
    if !support::mariadb::available(&[]) {
        return;
    }
    let maria = support::mariadb::start(dir.path());
    let theirs = run_cases(maria.port).await;
    for ((case, o), t) in CASES.iter().zip(&ours).zip(&theirs) {
        assert_eq!(o, t, "{}: binlogd blocks = {o}, MariaDB blocks = {t}", case.name);
    }
}

/// KILL QUERY ends an INSERT waiting for another session's gap lock (1317), and a deadlock
/// through two gap waits is 1213 over the wire.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_and_deadlock_through_gap_waits() {
    let dir = tempfile::tempdir().expect("tempdir");
    let srv = support::start(&dir.path().join("binlogd"), &["--initialize-insecure"]);
    let mut a = support::sql::conn(srv.port).await;
    let mut b = support::sql::conn(srv.port).await;
    let mut root = support::sql::conn(srv.port).await;
    exec(&mut a, "CREATE DATABASE gaps").await;
    exec(&mut a, "USE gaps").await;
    exec(&mut b, "USE gaps").await;
    exec(&mut a, "CREATE TABLE t (id INT PRIMARY KEY, v INT)").await;
    exec(&mut a, "INSERT INTO t VALUES (10, 1), (20, 2)").await;
    exec(&mut a, "BEGIN").await;
    exec(&mut a, "SELECT * FROM t WHERE id BETWEEN 11 AND 19 FOR UPDATE").await;
    let b_id: u64 = b.query_first("SELECT CONNECTION_ID()").await.expect("id").expect("row");
    let waiter = tokio::spawn(async move {
        let r = b.query_drop("INSERT INTO t VALUES (15, 0)").await;
        (b, r)
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!waiter.is_finished(), "the insert waits for the gap lock");
    exec(&mut root, &format!("KILL QUERY {b_id}")).await;
    let (mut b, r) = waiter.await.expect("task");
    match r {
        Err(mysql_async::Error::Server(e)) => assert_eq!(e.code, 1317, "{e}"),
        other => panic!("expected 1317, got {other:?}"),
    }
    // Deadlock: both hold the gap, each inserts into it.
    exec(&mut b, "BEGIN").await;
    exec(&mut b, "SELECT * FROM t WHERE id BETWEEN 11 AND 19 FOR UPDATE").await;
    let waiter = tokio::spawn(async move {
        let r = b.query_drop("INSERT INTO t VALUES (12, 0)").await;
        (b, r)
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!waiter.is_finished(), "b waits for a's gap lock");
    match a.query_drop("INSERT INTO t VALUES (13, 0)").await {
        Err(mysql_async::Error::Server(e)) => assert_eq!(e.code, 1213, "{e}"),
        other => panic!("expected 1213, got {other:?}"),
    }
    let (mut b, r) = waiter.await.expect("task");
    r.expect("b's insert goes on after a's rollback");
    exec(&mut b, "COMMIT").await;
    let n: u64 = a.query_first("SELECT COUNT(*) FROM t").await.expect("count").expect("row");
    assert_eq!(n, 3);
}
