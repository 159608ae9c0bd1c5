//! A committed statement's OK written by the commit pipeline's own thread
//! (`protocol::EarlyAnswer`), against a real `binlogd serve`: under concurrent commits every
//! client gets exactly its own answer (affected rows, LAST_INSERT_ID, the following statements
//! in sequence), reads its own writes, and every acknowledged commit survives a kill -9; with
//! `BINLOGD_EARLY_ANSWER=0` the same load is answered by the sessions only.

mod support;

use mysql_async::prelude::Queryable;
use mysql_async::Conn;

use support::sql::{conn, exec, query};

const CLIENTS: i64 = 8;
const COMMITS: i64 = 120;

async fn status(port: u16, name: &str) -> u64 {
    let rows = query(port, &format!("SHOW GLOBAL STATUS LIKE '{name}'")).await;
    rows[0][1].parse().expect("a number")
}

/// One client: prepared INSERTs (each checked against the id it was given and read back on
/// the same connection), and every 10th row bumped by a text UPDATE. Returns its ids.
async fn client(port: u16, who: i64) -> Vec<u64> {
    let mut c: Conn = conn(port).await;
    let insert = c.prep("INSERT INTO t.c (who, n) VALUES (?, ?)").await.expect("prepare");
    let mut ids = Vec::new();
    for i in 0..COMMITS {
        c.exec_drop(&insert, (who, i)).await.expect("insert");
        assert_eq!(c.affected_rows(), 1);
        let id = c.last_insert_id().expect("an AUTO_INCREMENT id");
        let mut n = i;
        if i % 10 == 0 {
            c.query_drop(format!("UPDATE t.c SET n = n + 1000 WHERE id = {id}"))
                .await
                .expect("update");
            assert_eq!(c.affected_rows(), 1);
            n += 1000;
        }
        let seen: Option<(i64, i64)> =
            c.query_first(format!("SELECT who, n FROM t.c WHERE id = {id}")).await.expect("read");
        assert_eq!(seen, Some((who, n)), "client {who} reads its own write {i} (id {id})");
        ids.push(id);
    }
    c.disconnect().await.expect("quit");
    ids
}

async fn load(port: u16) -> Vec<u64> {
    let tasks: Vec<_> = (0..CLIENTS).map(|who| tokio::spawn(client(port, who))).collect();
    let mut ids = Vec::new();
    for t in tasks {
        ids.extend(t.await.expect("client"));
    }
    ids
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commits_answered_by_the_pipeline_thread_are_exact_and_durable() {
    for early in [true, false] {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("d");
        let env: &[(&str, &str)] = if early { &[] } else { &[("BINLOGD_EARLY_ANSWER", "0")] };
        let server = support::start_env(&dir, &["--initialize-insecure"], env);
        let port = server.port;
        exec(port, "CREATE DATABASE t").await;
        exec(
            port,
            "CREATE TABLE t.c (id INT AUTO_INCREMENT PRIMARY KEY, who INT NOT NULL, n INT NOT NULL)",
        )
        .await;
        let mut ids = load(port).await;
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len() as i64, CLIENTS * COMMITS, "every insert got its own id");
        let early_answers = status(port, "Early_commit_answers").await;
        if early {
            assert!(early_answers > 0, "8 concurrent clients: some commits answered early");
        } else {
            assert_eq!(early_answers, 0, "BINLOGD_EARLY_ANSWER=0");
        }
        let sum = "SELECT COUNT(*), SUM(n) FROM t.c";
        let before = query(port, sum).await;
        let expect_sum = CLIENTS * ((0..COMMITS).sum::<i64>() + 1000 * ((COMMITS + 9) / 10));
        assert_eq!(before, vec![vec![(CLIENTS * COMMITS).to_string(), expect_sum.to_string()]]);

        drop(server); // kill -9
        let server = support::start(&dir, &[]);
        assert_eq!(query(server.port, sum).await, before, "acknowledged commits survive kill -9");
    }
}
