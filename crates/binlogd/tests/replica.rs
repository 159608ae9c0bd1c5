//! binlogd replicating from binlogd: every server is a `binlogd serve --port=0` process the
//! test starts. A primary under a concurrent load; replica R1 (1 worker, killed with -9 and
//! restarted mid-load), replica R2 (4 workers, CHANGE MASTER / START SLAVE spellings, stopped
//! and started mid-load) and R3, a replica of R2 (log_replica_updates). Afterwards every
//! server has the primary's gtid_executed and rows; SHOW REPLICA STATUS tells the truth, and
//! a wrong password shows up as Last_IO_Errno 1045.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use mysql_async::prelude::Queryable;
use mysql_async::Row;

mod support;
use support::sql::{conn, conn_as, exec, first_row, gtid_executed, query};
use support::Node;

fn start(datadir: &Path, server_id: u32) -> Node {
    Node::start(datadir, server_id, &[])
}

/// SHOW REPLICA STATUS (or SLAVE) as column → value.
async fn status(port: u16, sql: &str) -> BTreeMap<String, String> {
    first_row(port, sql).await
}

async fn wait_for(what: &str, mut check: impl AsyncFnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !check().await {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn replicate(replica: u16, source: u16, old_spelling: bool, workers: u32) {
    exec(replica, &format!("SET GLOBAL replica_parallel_workers = {workers}")).await;
    let sql = if old_spelling {
        format!(
            "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT={source}, MASTER_USER='root', \
             MASTER_PASSWORD='', MASTER_AUTO_POSITION=1, MASTER_CONNECT_RETRY=1, \
             MASTER_HEARTBEAT_PERIOD=1"
        )
    } else {
        format!(
            "CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT={source}, \
             SOURCE_USER='root', SOURCE_PASSWORD='', SOURCE_AUTO_POSITION=1, \
             SOURCE_CONNECT_RETRY=1, SOURCE_HEARTBEAT_PERIOD=1"
        )
    };
    exec(replica, &sql).await;
    exec(replica, if old_spelling { "START SLAVE" } else { "START REPLICA" }).await;
}

/// One client of the load: transactions touching hot rows (conflicts, so the logical clock
/// matters), inserts, deletes, and a table without a primary key.
async fn client(port: u16, t: u32, n: u32) {
    let mut c = conn(port).await;
    for i in 0..n {
        let hot = (i * 7 + t * 3) % 16;
        let id = 10_000 + t * 10_000 + i;
        let mut body = vec![
            format!("UPDATE app.acct SET bal = bal + 1 WHERE id = {hot}"),
            format!("INSERT INTO app.acct VALUES ({id}, 't{t}', 2.25)"),
            format!("INSERT INTO app.log VALUES ({t}, 'n{i}')"),
        ];
        if i % 4 == 3 {
            body.push(format!("DELETE FROM app.acct WHERE id = {}", id - 1));
            body.push(format!("DELETE FROM app.log WHERE k = {t} AND note = 'n{}'", i - 2));
        }
        let mut ok = c.query_drop("BEGIN").await.is_ok();
        for q in &body {
            ok = ok && c.query_drop(q).await.is_ok();
        }
        ok = ok && c.query_drop("COMMIT").await.is_ok();
        if !ok {
            // A deadlock or lock wait timeout: the client goes on, as a real one would.
            let _ = c.query_drop("ROLLBACK").await;
        }
    }
}

async fn same_everywhere(servers: &[(&str, u16)]) {
    let (_, primary) = servers[0];
    let want = gtid_executed(primary).await;
    for &(name, port) in &servers[1..] {
        let deadline = Instant::now() + Duration::from_secs(60);
        while gtid_executed(port).await != want {
            if Instant::now() > deadline {
                panic!(
                    "timed out waiting for {name} to reach {want}: it has {}\n{:#?}",
                    gtid_executed(port).await,
                    status(port, "SHOW REPLICA STATUS").await
                );
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    for q in ["SELECT * FROM app.acct ORDER BY id", "SELECT * FROM app.log ORDER BY k, note"] {
        let expected = query(primary, q).await;
        assert!(expected.len() > 16, "{q}: the load wrote rows");
        for &(name, port) in &servers[1..] {
            assert_eq!(query(port, q).await, expected, "{name}: {q}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn primary_replicas_chain_crash_and_status() {
    let dir = tempfile::tempdir().expect("tempdir");
    eprintln!("data directories in {}", dir.path().display());
    let dir = if std::env::var_os("KEEP_REPLICA_TEST").is_some() {
        Box::new(dir.keep()) as Box<dyn AsRef<Path>>
    } else {
        Box::new(dir)
    };
    let dir: &dyn AsRef<Path> = &*dir;
    let primary = start(&dir.as_ref().join("primary"), 1);
    let mut r1 = start(&dir.as_ref().join("r1"), 2);
    let r2 = start(&dir.as_ref().join("r2"), 3);
    let r3 = start(&dir.as_ref().join("r3"), 4);
    let p = primary.port;

    // Not configured yet: empty status, START refused with MySQL's 1200.
    assert!(status(r1.port, "SHOW REPLICA STATUS").await.is_empty());
    let mut c = conn(r1.port).await;
    let e = c.query_drop("START REPLICA").await.expect_err("not configured");
    assert!(matches!(e, mysql_async::Error::Server(ref s) if s.code == 1200), "{e}");
    drop(c);

    exec(p, "CREATE DATABASE app").await;
    exec(p, "CREATE TABLE app.acct (id INT PRIMARY KEY, owner VARCHAR(20), bal DECIMAL(10,2))")
        .await;
    exec(p, "CREATE TABLE app.log (k INT, note VARCHAR(30))").await;
    for id in 0..16 {
        exec(p, &format!("INSERT INTO app.acct VALUES ({id}, 'o{id}', 10.00)")).await;
    }
    replicate(r1.port, p, false, 1).await;
    replicate(r2.port, p, true, 4).await;
    replicate(r3.port, r2.port, false, 4).await;

    // CHANGE while running is refused (1198).
    let mut c = conn(r2.port).await;
    let e = c.query_drop("CHANGE MASTER TO MASTER_PORT=1").await.expect_err("running");
    assert!(matches!(e, mysql_async::Error::Server(ref s) if s.code == 1198), "{e}");
    drop(c);

    // The load, in three phases: R1 is killed after the first, R2 stopped during the second.
    let load = |n: u32| {
        let tasks: Vec<_> = (0..6u32).map(|t| tokio::spawn(client(p, t * 3 + n, 60))).collect();
        async move {
            for t in tasks {
                t.await.expect("client");
            }
        }
    };
    let first = load(0);
    tokio::time::sleep(Duration::from_millis(300)).await;
    r1.crash_and_restart();
    first.await;
    let second = load(1);
    exec(r2.port, "STOP SLAVE").await;
    let stopped = status(r2.port, "SHOW SLAVE STATUS").await;
    assert_eq!(stopped["Slave_IO_Running"], "No");
    assert_eq!(stopped["Slave_SQL_Running"], "No");
    assert_eq!(stopped["Seconds_Behind_Master"], "NULL");
    second.await;
    exec(r2.port, "START SLAVE").await;
    load(2).await;
    exec(p, "CREATE INDEX by_owner ON app.acct (owner)").await;

    same_everywhere(&[("primary", p), ("r1", r1.port), ("r2", r2.port), ("r3", r3.port)]).await;

    // SHOW REPLICA STATUS on the restarted R1.
    let want = gtid_executed(p).await;
    let s = status(r1.port, "SHOW REPLICA STATUS").await;
    assert_eq!(s["Replica_IO_Running"], "Yes");
    assert_eq!(s["Replica_SQL_Running"], "Yes");
    assert_eq!(s["Source_Host"], "127.0.0.1");
    assert_eq!(s["Source_Port"], p.to_string());
    assert_eq!(s["Source_User"], "root");
    assert_eq!(s["Source_Server_Id"], "1");
    assert_eq!(s["Auto_Position"], "1");
    assert_eq!(s["Executed_Gtid_Set"], want);
    assert_eq!(s["Last_IO_Errno"], "0");
    assert_eq!(s["Last_SQL_Errno"], "0");
    assert!(s["Source_Log_File"].starts_with("binlog."), "{s:?}");
    assert!(s["Read_Source_Log_Pos"].parse::<u64>().expect("pos") > 4, "{s:?}");
    assert!(s["Relay_Log_File"].starts_with("relay-bin."), "{s:?}");
    let caught_up = async || {
        let s = status(r1.port, "SHOW REPLICA STATUS").await;
        s["Seconds_Behind_Source"] == "0" && s["Exec_Source_Log_Pos"] == s["Read_Source_Log_Pos"]
    };
    wait_for("R1 idle and caught up", caught_up).await;
    let primary_uuid = query(p, "SELECT @@server_uuid").await[0][0].clone();
    assert_eq!(status(r1.port, "SHOW REPLICA STATUS").await["Source_UUID"], primary_uuid);

    // A wrong password: the receiver keeps trying and shows MySQL's 1045.
    exec(r1.port, "STOP REPLICA").await;
    exec(r1.port, "CHANGE REPLICATION SOURCE TO SOURCE_PASSWORD='wrong'").await;
    exec(r1.port, "START REPLICA").await;
    wait_for("Last_IO_Errno 1045", async || {
        status(r1.port, "SHOW REPLICA STATUS").await["Last_IO_Errno"] == "1045"
    })
    .await;
    let s = status(r1.port, "SHOW REPLICA STATUS").await;
    assert_eq!(s["Replica_IO_Running"], "Connecting");
    assert!(s["Last_IO_Error"].contains("error connecting to source 'root@127.0.0.1"), "{s:?}");
    assert!(!s["Last_IO_Error_Timestamp"].is_empty());
    exec(r1.port, "STOP REPLICA").await;
    exec(r1.port, "RESET REPLICA ALL").await;
    assert!(status(r1.port, "SHOW REPLICA STATUS").await.is_empty());
}

/// The replica statements check privileges as mysqld does: CHANGE REPLICATION SOURCE and
/// START/STOP REPLICA need SUPER (mysqld: or REPLICATION_SLAVE_ADMIN), RESET REPLICA needs
/// RELOAD, SHOW REPLICA STATUS needs SUPER or REPLICATION CLIENT; otherwise 1227 (42000).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replica_statements_need_privileges() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = start(&dir.path().join("data"), 7);
    let p = server.port;
    for (user, grant) in [
        ("nobody", None),
        ("monitor", Some("REPLICATION CLIENT")),
        ("admin", Some("SUPER")),
        ("reloader", Some("RELOAD")),
    ] {
        exec(p, &format!("CREATE USER '{user}'@'%' IDENTIFIED WITH mysql_native_password BY 'pw'"))
            .await;
        if let Some(g) = grant {
            exec(p, &format!("GRANT {g} ON *.* TO '{user}'@'%'")).await;
        }
    }
    let denied = async |user: &str, sql: &str, names: &str| {
        let mut c = conn_as(p, user, "pw").await;
        let e = c.query_drop(sql).await.expect_err(sql);
        let mysql_async::Error::Server(s) = &e else { panic!("{user}: {sql}: {e}") };
        assert_eq!((s.code, s.state.as_str()), (1227, "42000"), "{user}: {sql}: {s:?}");
        assert_eq!(
            s.message,
            format!(
                "Access denied; you need (at least one of) the {names} privilege(s) for this \
                 operation"
            ),
            "{user}: {sql}"
        );
    };
    let change = "CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=1";
    let admin = "SUPER or REPLICATION_SLAVE_ADMIN";
    for user in ["nobody", "monitor", "reloader"] {
        denied(user, change, admin).await;
        denied(user, "CHANGE MASTER TO MASTER_HOST='127.0.0.1'", admin).await;
        denied(user, "START REPLICA", admin).await;
        denied(user, "STOP SLAVE", admin).await;
    }
    for user in ["nobody", "monitor", "admin"] {
        denied(user, "RESET REPLICA ALL", "RELOAD").await;
    }
    for user in ["nobody", "reloader"] {
        denied(user, "SHOW REPLICA STATUS", "SUPER, REPLICATION CLIENT").await;
        denied(user, "SHOW SLAVE STATUS", "SUPER, REPLICATION CLIENT").await;
    }
    // Nothing was changed by the refused statements.
    assert!(status(p, "SHOW REPLICA STATUS").await.is_empty());

    // With the privileges they run.
    let mut admin_conn = conn_as(p, "admin", "pw").await;
    admin_conn.query_drop(change).await.expect("SUPER may CHANGE REPLICATION SOURCE");
    admin_conn.query_drop("STOP REPLICA").await.expect("SUPER may STOP REPLICA");
    let rows: Vec<Row> = admin_conn.query("SHOW REPLICA STATUS").await.expect("SUPER may SHOW");
    assert_eq!(rows.len(), 1);
    let mut monitor = conn_as(p, "monitor", "pw").await;
    let rows: Vec<Row> = monitor.query("SHOW SLAVE STATUS").await.expect("REPLICATION CLIENT");
    assert_eq!(rows.len(), 1);
    let mut reloader = conn_as(p, "reloader", "pw").await;
    reloader.query_drop("RESET REPLICA ALL").await.expect("RELOAD may RESET REPLICA");
    assert!(status(p, "SHOW REPLICA STATUS").await.is_empty());
    // root has everything.
    exec(p, change).await;
    exec(p, "RESET REPLICA ALL").await;
}
