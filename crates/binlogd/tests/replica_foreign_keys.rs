//! Foreign keys on binlogd's own replica and on row-event replay (issue 20).
//!
//! A source in row format logs only a statement's own rows, never those its referential actions
//! changed (mysqld: "the replica's InnoDB performs them"), so the replica's applier must run
//! the actions itself, and check the constraints, unless a rows event carries
//! `NO_FOREIGN_KEY_CHECKS_F` (the source ran it with `foreign_key_checks=0`). Each test fails
//! without that: the cascaded rows would survive on the replica (or the replay target), and an
//! orphan written with checks off would stop the applier with 1452.
//!
//! `mariadb_binlog_replay_runs_foreign_key_actions` needs `mariadb-binlog` and `mariadb`
//! (mariadb-client, installed by scripts/test.sh).

use std::path::Path;
use std::time::{Duration, Instant};

use mysql_async::prelude::Queryable;

mod support;
use support::sql::{conn, exec, first_row, gtid_executed, query};
use support::{ok, start, Node};

/// Parents, children with every action, a grandchild, a self-reference, and a
/// `foreign_key_checks=0` section; every statement's cascades are the replica's to run.
const SCHEMA: &[&str] = &[
    "CREATE DATABASE app",
    "CREATE TABLE app.p (id INT PRIMARY KEY, code VARCHAR(8) NOT NULL, UNIQUE KEY (code))",
    "CREATE TABLE app.c (id INT PRIMARY KEY, pid INT, note VARCHAR(10), \
       FOREIGN KEY (pid) REFERENCES app.p (id) ON DELETE CASCADE ON UPDATE CASCADE)",
    "CREATE TABLE app.n (id INT PRIMARY KEY, pcode VARCHAR(8) NULL, \
       CONSTRAINT n_code FOREIGN KEY (pcode) REFERENCES app.p (code) ON DELETE SET NULL \
       ON UPDATE CASCADE)",
    "CREATE TABLE app.g (id INT PRIMARY KEY, cid INT NOT NULL, \
       FOREIGN KEY (cid) REFERENCES app.c (id) ON DELETE CASCADE ON UPDATE CASCADE)",
    "CREATE TABLE app.tree (id INT PRIMARY KEY, up INT NULL, \
       FOREIGN KEY (up) REFERENCES app.tree (id) ON DELETE CASCADE)",
    "CREATE TABLE app.r (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES app.p (id))",
];

const LOAD: &[&str] = &[
    "INSERT INTO app.p VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd'), (5, 'e')",
    "INSERT INTO app.c VALUES (10, 1, 'x'), (11, 1, 'y'), (20, 2, 'z'), (30, 3, 'w'), \
       (40, 4, 'v')",
    "INSERT INTO app.n VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, NULL)",
    "INSERT INTO app.g VALUES (100, 10), (101, 11), (200, 20), (300, 30)",
    "INSERT INTO app.tree VALUES (1, NULL), (2, 1), (3, 2), (4, 3), (5, 1)",
    "INSERT INTO app.r VALUES (1, 5)",
    // DELETE CASCADE two levels down, SET NULL beside it.
    "DELETE FROM app.p WHERE id = 1",
    // UPDATE CASCADE of the key (c.pid, and c's own rows keep their g children), and of the
    // unique code (n.pcode).
    "UPDATE app.p SET id = 22, code = 'bb' WHERE id = 2",
    // A cascade inside a transaction with other rows.
    "BEGIN; INSERT INTO app.p VALUES (6, 'f'); INSERT INTO app.c VALUES (60, 6, 'u'); \
       UPDATE app.c SET id = 31 WHERE id = 30; DELETE FROM app.p WHERE id = 3; COMMIT",
    // A self-referencing chain deleted from its root.
    "DELETE FROM app.tree WHERE id = 2",
];

async fn wait_same_gtids(source: u16, replica: u16) {
    let want = gtid_executed(source).await;
    let deadline = Instant::now() + Duration::from_secs(60);
    while gtid_executed(replica).await != want {
        let s = first_row(replica, "SHOW REPLICA STATUS").await;
        assert!(
            s.get("Last_SQL_Errno").is_none_or(|e| e == "0"),
            "the replica stopped: {} {}",
            s["Last_SQL_Errno"],
            s["Last_SQL_Error"]
        );
        assert!(Instant::now() < deadline, "timed out waiting for {want}: {s:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

const TABLES: &[&str] = &["p", "c", "n", "g", "tree", "r"];

async fn rows(port: u16, table: &str) -> Vec<Vec<String>> {
    query(port, &format!("SELECT * FROM app.{table} ORDER BY id")).await
}

async fn wait_for_sql_error(replica: u16) -> (String, String) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let s = first_row(replica, "SHOW REPLICA STATUS").await;
        if s["Last_SQL_Errno"] != "0" {
            return (s["Last_SQL_Errno"].clone(), s["Last_SQL_Error"].clone());
        }
        assert!(Instant::now() < deadline, "the replica applied what it should refuse: {s:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn node(dir: &Path, name: &str, id: u32) -> Node {
    Node::start(&dir.join(name), id, &[])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replica_runs_foreign_key_actions_and_checks() {
    let dir = tempfile::tempdir().expect("tempdir");
    let source = node(dir.path(), "source", 1);
    let replica = node(dir.path(), "replica", 2);
    let (s, r) = (source.port, replica.port);
    for q in SCHEMA {
        exec(s, q).await;
    }
    exec(r, "SET GLOBAL replica_parallel_workers = 2").await;
    exec(
        r,
        &format!(
            "CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT={s}, \
             SOURCE_USER='root', SOURCE_PASSWORD='', SOURCE_AUTO_POSITION=1, \
             SOURCE_CONNECT_RETRY=1"
        ),
    )
    .await;
    exec(r, "START REPLICA").await;
    for q in LOAD {
        exec(s, q).await;
    }
    // With foreign_key_checks=0 the source neither checks nor cascades, and flags its rows
    // events so: the replica must not cascade this delete (c 40 and its parent-less rows
    // stay), nor refuse the orphan (a dump restore inserts children before parents so).
    let mut c = conn(s).await;
    for q in [
        "SET foreign_key_checks = 0",
        "DELETE FROM app.p WHERE id = 4",
        "INSERT INTO app.c VALUES (90, 999, 'orphan')",
        "SET foreign_key_checks = 1",
        "INSERT INTO app.c VALUES (91, 5, 'checked')",
    ] {
        c.query_drop(q).await.unwrap_or_else(|e| panic!("{q}: {e}"));
    }
    drop(c);
    wait_same_gtids(s, r).await;

    // What the source has is what the cascades made; the replica made the same.
    assert_eq!(
        rows(s, "c").await.iter().map(|r| r[0].as_str()).collect::<Vec<_>>(),
        ["20", "40", "60", "90", "91"]
    );
    assert_eq!(
        rows(s, "n").await,
        [["1", "NULL"], ["2", "bb"], ["3", "NULL"], ["4", "NULL"]]
            .map(|r| r.map(String::from).to_vec())
    );
    assert_eq!(rows(s, "tree").await.iter().map(|r| r[0].as_str()).collect::<Vec<_>>(), ["1", "5"]);
    for t in TABLES {
        assert_eq!(rows(r, t).await, rows(s, t).await, "app.{t} on the replica");
    }

    // The replica checks too: a parent the replica lacks (removed there behind the source's
    // back) makes the child's WRITE_ROWS fail with 1452, as on mysqld's replica.
    let mut c = conn(r).await;
    for q in ["SET foreign_key_checks = 0", "DELETE FROM app.p WHERE id = 6"] {
        c.query_drop(q).await.unwrap_or_else(|e| panic!("{q}: {e}"));
    }
    drop(c);
    exec(s, "INSERT INTO app.c VALUES (61, 6, 'needs p6')").await;
    let (errno, error) = wait_for_sql_error(r).await;
    assert_eq!(errno, "1452", "{error}");
    assert!(
        error.contains("Write_rows") && error.contains("foreign key constraint fails"),
        "{error}"
    );
    assert!(query(r, "SELECT id FROM app.c WHERE id = 61").await.is_empty());
}

/// A workload with cascades in a source binlogd's binlog, replayed by `mariadb-binlog FILE |
/// mariadb` into a fresh binlogd: the `BINLOG '…'` statements apply the events' rows with the
/// same actions and checks (and none for the events flagged `NO_FOREIGN_KEY_CHECKS_F`), so the
/// target ends with the source's rows.
#[test]
fn mariadb_binlog_replay_runs_foreign_key_actions() {
    let dir = tempfile::tempdir().expect("tempdir");
    let source_dir = dir.path().join("source");
    let source = start(&source_dir, &["--initialize-insecure"]);
    let mut workload: Vec<&str> = SCHEMA.to_vec();
    workload.extend_from_slice(LOAD);
    workload.extend_from_slice(&[
        "SET foreign_key_checks = 0",
        "DELETE FROM app.p WHERE id = 4",
        "INSERT INTO app.c VALUES (90, 999, 'orphan')",
        "SET foreign_key_checks = 1",
    ]);
    let script = workload.join(";\n") + ";";
    ok(support::mariadb(source.port, "root", "", &[], &script));
    let select = |port| {
        let q: Vec<String> =
            TABLES.iter().map(|t| format!("SELECT * FROM app.{t} ORDER BY id;")).collect();
        ok(support::mariadb(port, "root", "", &[], &q.join(" ")))
    };
    let expected = select(source.port);
    assert!(expected.contains("orphan"), "{expected}");

    let target = start(&dir.path().join("target"), &["--initialize-insecure"]);
    support::replay_binlog(&source_dir.join("binlog").join("binlog.000001"), target.port);
    assert_eq!(select(target.port), expected);
}
