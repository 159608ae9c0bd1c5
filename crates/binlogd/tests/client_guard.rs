//! What a client can send a real `binlogd serve` without stopping it or crossing a privilege
//! (issue 17): deep expressions from a USAGE-only account (text and prepared), `SET
//! gtid_next` without the privilege, and passwords in the process list.

mod support;

use std::time::{Duration, Instant};

use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Row};

use support::sql::{conn_as, exec, text};

async fn rows(c: &mut Conn, sql: &str) -> Vec<Vec<String>> {
    let rows: Vec<Row> = c.query(sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    rows.iter().map(|r| (0..r.len()).map(|i| text(&r[i])).collect()).collect()
}

fn server_code(e: &mysql_async::Error) -> Option<u16> {
    match e {
        mysql_async::Error::Server(s) => Some(s.code),
        _ => None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deep_statements_from_a_usage_account_leave_the_server_up() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = support::start(&dir.path().join("data"), &["--initialize-insecure"]);
    let p = server.port;
    for sql in [
        "CREATE DATABASE d",
        "CREATE TABLE d.t (id INT PRIMARY KEY, v INT)",
        "INSERT INTO d.t VALUES (1, 1), (2, 2)",
        "CREATE USER usage_only IDENTIFIED BY 'pw'",
        "CREATE USER reader IDENTIFIED BY 'pw'",
        "GRANT SELECT ON d.* TO reader",
    ] {
        exec(p, sql).await;
    }
    let mut u = conn_as(p, "usage_only", "pw").await;
    let mut r = conn_as(p, "reader", "pw").await;
    let or_terms = |n: usize| (1..=n).map(|i| format!("id={i}")).collect::<Vec<_>>().join(" OR ");
    let mut tried = Vec::new();
    for n in [1_550usize, 3_000, 100_000] {
        tried.push((false, format!("SELECT 1{}", "+1".repeat(n - 1))));
        tried.push((false, format!("SELECT {}1{}", "(".repeat(n), ")".repeat(n))));
        tried.push((false, format!("SELECT {}1", "NOT ".repeat(n))));
        tried.push((true, format!("SELECT id FROM d.t WHERE {}", vec!["id > 0"; n].join(" AND "))));
        tried.push((true, format!("SELECT id FROM d.t WHERE {}", or_terms(n))));
    }
    for (needs_select, sql) in &tried {
        let c = if *needs_select { &mut r } else { &mut u };
        let e = c.query_drop(sql).await.expect_err("too deep");
        assert!(
            matches!(server_code(&e), Some(1436 | 1064)),
            "{}…: {e}",
            &sql[..60.min(sql.len())]
        );
        assert_eq!(rows(c, "SELECT 1").await, [["1"]], "the connection lives on");
    }
    // Prepared: `SELECT ?+?+…` past the bound fails at PREPARE; below it, it runs.
    let deep = format!("SELECT ?{}", "+?".repeat(1_549));
    let e = u.prep(&deep).await.expect_err("too deep to prepare");
    assert_eq!(server_code(&e), Some(1436), "{e}");
    let fits = format!("SELECT ?{}", "+?".repeat(499));
    let got: Vec<Row> = u.exec(&fits, vec![1i64; 500]).await.expect("500 parameters");
    assert_eq!(text(&got[0][0]), "500");
    // Wide is not deep: an IN list of 10 000 values.
    let list = (1..=10_000).map(|i| i.to_string()).collect::<Vec<_>>().join(",");
    let got = rows(&mut r, &format!("SELECT COUNT(*) FROM d.t WHERE id IN ({list})")).await;
    assert_eq!(got, [["2"]]);
    // The server is still there for new connections.
    let mut again = conn_as(p, "usage_only", "pw").await;
    assert_eq!(rows(&mut again, "SELECT 2").await, [["2"]]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gtid_next_needs_a_privilege_and_passwords_stay_out_of_the_processlist() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = support::start(&dir.path().join("data"), &["--initialize-insecure"]);
    let p = server.port;
    for sql in [
        "CREATE DATABASE d",
        "CREATE TABLE d.scratch (id INT PRIMARY KEY)",
        "CREATE TABLE d.t (id INT PRIMARY KEY, v INT)",
        "INSERT INTO d.t VALUES (1, 1)",
        "CREATE USER writer IDENTIFIED BY 'pw'",
        "GRANT INSERT ON d.scratch TO writer",
        "GRANT UPDATE, SELECT ON d.t TO writer",
        "CREATE USER watcher IDENTIFIED BY 'pw'",
        "GRANT PROCESS ON *.* TO watcher",
    ] {
        exec(p, sql).await;
    }
    let mut w = conn_as(p, "writer", "pw").await;
    let e = w
        .query_drop("SET gtid_next = '3E11FA47-71CA-11E1-9E33-C80AA9429562:1'")
        .await
        .expect_err("gtid_next without privilege");
    assert_eq!(server_code(&e), Some(1227), "{e}");
    assert_eq!(rows(&mut w, "SELECT @@gtid_next").await, [["AUTOMATIC"]]);
    w.query_drop("INSERT INTO d.scratch VALUES (1)").await.expect("insert");

    // A statement text carrying a password, held on a row lock so that it is visible.
    let mut holder = support::sql::conn(p).await;
    holder.query_drop("BEGIN").await.expect("begin");
    holder.query_drop("UPDATE d.t SET v = 2 WHERE id = 1").await.expect("lock the row");
    let secret = "clear-text-pw-7f3a";
    let blocked = tokio::spawn(async move {
        let r = w
            .query_drop(format!("SET PASSWORD = '{secret}'; UPDATE d.t SET v = 3 WHERE id = 1"))
            .await;
        (w, r)
    });
    let mut watcher = conn_as(p, "watcher", "pw").await;
    let deadline = Instant::now() + Duration::from_secs(10);
    let info = loop {
        let list = rows(&mut watcher, "SHOW FULL PROCESSLIST").await;
        let mine = list.iter().find(|r| r[1] == "writer" && r[7].contains("UPDATE"));
        if let Some(row) = mine {
            break row[7].clone();
        }
        assert!(Instant::now() < deadline, "the blocked statement never showed: {list:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(!info.contains(secret), "{info}");
    assert!(info.starts_with("SET PASSWORD = <secret>;"), "{info}");
    let schema =
        rows(&mut watcher, "SELECT INFO FROM information_schema.PROCESSLIST WHERE USER = 'writer'")
            .await;
    assert!(schema.iter().all(|r| !r[0].contains(secret)), "{schema:?}");
    holder.query_drop("COMMIT").await.expect("commit");
    let (_w, r) = blocked.await.expect("join");
    r.expect("SET PASSWORD and the UPDATE run once the lock is free");
}
