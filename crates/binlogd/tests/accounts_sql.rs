//! Account SQL against real `binlogd serve` processes: database- and table-level privileges
//! (GRANT/REVOKE/SHOW GRANTS and their enforcement, with mysqld's errors), account statements
//! in the binary log (passwords as hashes) applied by a binlogd replica so that both servers
//! end with the same accounts, accounts surviving kill -9, `SHOW ... WHERE`, and SHUTDOWN.

mod support;

use std::time::{Duration, Instant};

use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Row};

use support::sql::{conn_as, exec, gtid_executed, query, text};

/// The error (code, SQLSTATE, message) `sql` gets on `c`.
async fn error(c: &mut Conn, sql: &str) -> (u16, String, String) {
    let e = c.query_drop(sql).await.expect_err(sql);
    let mysql_async::Error::Server(s) = &e else { panic!("{sql}: {e}") };
    (s.code, s.state.clone(), s.message.clone())
}

async fn rows(c: &mut Conn, sql: &str) -> Vec<Vec<String>> {
    let rows: Vec<Row> = c.query(sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    rows.iter().map(|r| (0..r.len()).map(|i| text(&r[i])).collect()).collect()
}

async fn grants(port: u16, user: &str) -> Vec<String> {
    query(port, &format!("SHOW GRANTS FOR {user}"))
        .await
        .into_iter()
        .map(|r| r[0].clone())
        .collect()
}

fn insecure(dir: &std::path::Path, extra: &[&str]) -> support::Running {
    let mut args = vec!["--initialize-insecure"];
    args.extend_from_slice(extra);
    support::start(dir, &args)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn database_and_table_privileges() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = insecure(&dir.path().join("data"), &[]);
    let p = server.port;
    for sql in [
        "CREATE DATABASE shop",
        "CREATE DATABASE other",
        "CREATE DATABASE closed",
        "CREATE TABLE shop.items (id INT PRIMARY KEY, n INT)",
        "CREATE TABLE shop.secret (id INT PRIMARY KEY)",
        "CREATE TABLE other.t (id INT PRIMARY KEY)",
        "CREATE TABLE closed.t (id INT PRIMARY KEY)",
        "INSERT INTO shop.items VALUES (1, 1)",
        "CREATE USER app IDENTIFIED BY 'pw', bob IDENTIFIED BY 'pw'",
        "GRANT SELECT, INSERT ON shop.* TO app",
        "GRANT UPDATE ON shop.items TO app",
        "GRANT ALL ON other.* TO app WITH GRANT OPTION",
    ] {
        exec(p, sql).await;
    }
    assert_eq!(
        grants(p, "app").await,
        [
            "GRANT USAGE ON *.* TO `app`@`%`",
            "GRANT ALL PRIVILEGES ON `other`.* TO `app`@`%` WITH GRANT OPTION",
            "GRANT SELECT, INSERT ON `shop`.* TO `app`@`%`",
            "GRANT UPDATE ON `shop`.`items` TO `app`@`%`",
        ]
    );

    let mut app = conn_as(p, "app", "pw").await;
    assert_eq!(rows(&mut app, "SELECT n FROM shop.items").await, [["1"]]);
    app.query_drop("INSERT INTO shop.secret VALUES (5)").await.expect("INSERT on shop.*");
    app.query_drop("UPDATE shop.items SET n = 2").await.expect("UPDATE on shop.items");
    app.query_drop("USE shop").await.expect("USE shop");
    assert_eq!(
        error(&mut app, "UPDATE secret SET id = 6").await,
        (
            1142,
            "42000".into(),
            "UPDATE command denied to user 'app'@'127.0.0.1' for table 'secret'".into()
        )
    );
    assert_eq!(error(&mut app, "DELETE FROM shop.items").await.0, 1142);
    assert_eq!(error(&mut app, "SELECT * FROM closed.t").await.0, 1142);
    assert_eq!(error(&mut app, "CREATE TABLE shop.x (id INT)").await.0, 1142);
    app.query_drop("CREATE TABLE other.x (id INT PRIMARY KEY)").await.expect("ALL on other.*");
    app.query_drop("DROP TABLE other.x").await.expect("ALL on other.*");
    assert_eq!(
        error(&mut app, "USE closed").await,
        (
            1044,
            "42000".into(),
            "Access denied for user 'app'@'127.0.0.1' to database 'closed'".into()
        )
    );
    assert_eq!(error(&mut app, "CREATE DATABASE newdb").await.0, 1044);
    assert_eq!(error(&mut app, "DROP DATABASE shop").await.0, 1044);
    // SHOW DATABASES lists the databases app holds a privilege in (no SHOW DATABASES).
    assert_eq!(
        rows(&mut app, "SHOW DATABASES").await,
        [["information_schema"], ["other"], ["shop"]]
    );
    // WITH GRANT OPTION on other.* lets app grant there, and only there.
    app.query_drop("GRANT SELECT ON other.* TO bob").await.expect("grant on other.*");
    let (code, _, message) = error(&mut app, "GRANT SELECT ON shop.* TO bob").await;
    assert_eq!(code, 1227, "{message}");
    assert!(message.contains("GRANT OPTION"), "{message}");
    // A database grant takes effect for connected sessions at their next statement.
    exec(p, "REVOKE UPDATE ON shop.items FROM app").await;
    assert_eq!(error(&mut app, "UPDATE shop.items SET n = 3").await.0, 1142);
    drop(app);

    let mut root = support::sql::conn(p).await;
    let wrong_usage =
        (1221, "HY000".into(), "Incorrect usage of DB GRANT and GLOBAL PRIVILEGES".into());
    assert_eq!(error(&mut root, "GRANT REPLICATION SLAVE ON shop.* TO app").await, wrong_usage);
    assert_eq!(error(&mut root, "GRANT SUPER, SELECT ON shop.* TO app").await, wrong_usage);
    assert_eq!(error(&mut root, "GRANT RELOAD ON shop.items TO app").await.0, 1144);
    assert_eq!(error(&mut root, "GRANT SELECT ON shop.missing TO app").await.0, 1146);
    assert_eq!(error(&mut root, "GRANT SELECT ON * TO app").await.0, 1046);
    assert_eq!(
        error(&mut root, "REVOKE SELECT ON closed.* FROM app").await,
        (1141, "42000".into(), "There is no such grant defined for user 'app' on host '%'".into())
    );
    assert_eq!(
        error(&mut root, "REVOKE SELECT ON shop.secret FROM app").await,
        (
            1147,
            "42000".into(),
            "There is no such grant defined for user 'app' on host '%' on table 'secret'".into()
        )
    );
    assert_eq!(error(&mut root, "GRANT SELECT ON shop.* TO ghost").await.0, 1410);
    assert_eq!(
        error(&mut root, "CREATE USER h IDENTIFIED WITH mysql_native_password AS 'nothex'").await,
        (1827, "HY000".into(), "The password hash doesn't have the expected format.".into())
    );
    assert_eq!(
        error(&mut root, "RENAME USER ghost TO g2, bob TO app").await,
        (1396, "HY000".into(), "Operation RENAME USER failed for 'ghost'@'%','bob'@'%'".into())
    );
    assert_eq!(
        error(&mut root, "SET PASSWORD FOR ghost = 'x'").await,
        (1133, "42000".into(), "Can't find any matching row in the user table".into())
    );
    // A failed account statement changes nothing and is not logged.
    let before = gtid_executed(p).await;
    assert_eq!(error(&mut root, "CREATE USER app, fresh").await.0, 1396);
    assert_eq!(error(&mut root, "SHOW GRANTS FOR fresh").await.0, 1141);
    assert_eq!(gtid_executed(p).await, before);
    // A user changes its own password without privileges; another's needs CREATE USER.
    let mut app = conn_as(p, "app", "pw").await;
    app.query_drop("SET PASSWORD = 'pw2'").await.expect("own password");
    assert_eq!(error(&mut app, "SET PASSWORD FOR bob = 'x'").await.0, 1227);
    drop(app);
    conn_as(p, "app", "pw2").await;
    // `ON *` and a bare table name use the default database.
    root.query_drop("USE shop").await.expect("use");
    root.query_drop("GRANT DELETE ON * TO bob").await.expect("ON *");
    root.query_drop("GRANT SELECT ON items TO bob").await.expect("ON tbl");
    assert_eq!(
        grants(p, "bob").await,
        [
            "GRANT USAGE ON *.* TO `bob`@`%`",
            "GRANT SELECT ON `other`.* TO `bob`@`%`",
            "GRANT DELETE ON `shop`.* TO `bob`@`%`",
            "GRANT SELECT ON `shop`.`items` TO `bob`@`%`",
        ]
    );
    root.query_drop("REVOKE INSERT ON shop.* FROM app").await.expect("revoke");
    root.query_drop("REVOKE ALL PRIVILEGES, GRANT OPTION FROM app, bob").await.expect("revoke all");
    assert_eq!(grants(p, "app").await, ["GRANT USAGE ON *.* TO `app`@`%`"]);
    assert_eq!(grants(p, "bob").await, ["GRANT USAGE ON *.* TO `bob`@`%`"]);

    // The grants survive a restart (users.json) and the database list hides the marker.
    let data = dir.path().join("data");
    support::stop(server, "-TERM");
    let server = insecure(&data, &[]);
    exec(server.port, "GRANT SELECT ON shop.items TO app").await;
    drop(server);
    let server = insecure(&data, &[]);
    assert_eq!(
        grants(server.port, "app").await,
        ["GRANT USAGE ON *.* TO `app`@`%`", "GRANT SELECT ON `shop`.`items` TO `app`@`%`"]
    );
    let dbs = query(server.port, "SHOW DATABASES").await;
    assert!(dbs.iter().all(|r| !r[0].starts_with('#')), "{dbs:?}");
}

/// Waits until `replica` has executed every GTID of `source`.
async fn caught_up(replica: u16, source: u16) {
    let want = gtid_executed(source).await;
    let deadline = Instant::now() + Duration::from_secs(60);
    while gtid_executed(replica).await != want {
        let status = query(replica, "SHOW REPLICA STATUS").await;
        assert!(Instant::now() < deadline, "replica did not reach {want}: {status:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn account_statements_are_binlogged_and_replicated() {
    let dir = tempfile::tempdir().expect("tempdir");
    let source = insecure(&dir.path().join("source"), &["--server-id=1"]);
    let replica = insecure(&dir.path().join("replica"), &["--server-id=2"]);
    let (s, r) = (source.port, replica.port);
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
    let before = gtid_executed(s).await;
    for sql in [
        "CREATE DATABASE shop",
        "CREATE TABLE shop.items (id INT PRIMARY KEY)",
        "CREATE USER 'ann'@'%' IDENTIFIED BY 'clear-text-1', 'cy'@'10.0.0.%' \
         IDENTIFIED WITH mysql_native_password BY 'clear-text-2'",
        "CREATE USER 'tmp'@'%'",
        "GRANT SELECT, INSERT ON shop.* TO 'ann'@'%'",
        "GRANT UPDATE ON shop.items TO 'ann'@'%' WITH GRANT OPTION",
        "GRANT REPLICATION CLIENT ON *.* TO 'cy'@'10.0.0.%'",
        "ALTER USER 'cy'@'10.0.0.%' IDENTIFIED WITH mysql_native_password BY 'clear-text-3'",
        "SET PASSWORD FOR 'ann'@'%' = 'clear-text-4'",
        "REVOKE INSERT ON shop.* FROM 'ann'@'%'",
        "RENAME USER 'tmp'@'%' TO 'tmp2'@'%'",
        "DROP USER IF EXISTS 'tmp2'@'%', 'never'@'%'",
    ] {
        exec(s, sql).await;
    }
    // Each account statement is a QUERY event with its own GTID, passwords as hashes.
    let events = query(s, "SHOW BINLOG EVENTS").await;
    let logged: Vec<&str> =
        events.iter().filter(|e| e[2] == "Query").map(|e| e[5].as_str()).collect();
    let text = logged.join("\n");
    assert!(!text.contains("clear-text"), "a clear password reached the binlog:\n{text}");
    for wanted in [
        "CREATE USER 'ann'@'%' IDENTIFIED WITH 'caching_sha2_password' AS '$",
        "'cy'@'10.0.0.%' IDENTIFIED WITH 'mysql_native_password' AS '*",
        "GRANT SELECT, INSERT ON `shop`.* TO 'ann'@'%'",
        "GRANT UPDATE ON `shop`.`items` TO 'ann'@'%' WITH GRANT OPTION",
        "ALTER USER 'ann'@'%' IDENTIFIED WITH 'caching_sha2_password' AS '$",
        "REVOKE INSERT ON `shop`.* FROM 'ann'@'%'",
        "RENAME USER 'tmp'@'%' TO 'tmp2'@'%'",
        "DROP USER IF EXISTS 'tmp2'@'%', 'never'@'%'",
    ] {
        assert!(text.contains(wanted), "missing {wanted:?} in:\n{text}");
    }
    let gtids = events.iter().filter(|e| e[2] == "Gtid").count();
    assert_eq!(gtids, 12, "one GTID per statement: {events:?}");
    assert_ne!(gtid_executed(s).await, before);

    caught_up(r, s).await;
    for user in ["'ann'@'%'", "'cy'@'10.0.0.%'", "'root'@'localhost'"] {
        assert_eq!(grants(r, user).await, grants(s, user).await, "{user}");
    }
    let mut c = support::sql::conn(r).await;
    assert_eq!(error(&mut c, "SHOW GRANTS FOR 'tmp2'@'%'").await.0, 1141);
    // The replica has the source's password hashes: ann logs in with the new password.
    let mut ann = conn_as(r, "ann", "clear-text-4").await;
    assert_eq!(rows(&mut ann, "SELECT COUNT(*) FROM shop.items").await, [["0"]]);
    drop(ann);
    // The replica's own binlog carries them with the source's GTIDs.
    assert_eq!(gtid_executed(r).await, gtid_executed(s).await);
    let status = query(r, "SHOW REPLICA STATUS").await;
    assert!(!status.is_empty());
    drop(replica);

    // kill -9 of the source right after an account statement: it is there after restart,
    // in users.json and in gtid_executed alike.
    exec(s, "CREATE USER 'late'@'%' IDENTIFIED BY 'x'").await;
    exec(s, "GRANT DELETE ON shop.items TO 'late'@'%'").await;
    let gtid = gtid_executed(s).await;
    drop(source);
    let source = insecure(&dir.path().join("source"), &["--server-id=1"]);
    assert_eq!(gtid_executed(source.port).await, gtid);
    assert_eq!(
        grants(source.port, "'late'@'%'").await,
        ["GRANT USAGE ON *.* TO `late`@`%`", "GRANT DELETE ON `shop`.`items` TO `late`@`%`"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn show_where_and_shutdown() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let server = insecure(&data, &[]);
    let p = server.port;
    for sql in [
        "CREATE DATABASE alpha",
        "CREATE DATABASE beta",
        "CREATE TABLE alpha.t1 (id INT PRIMARY KEY, name VARCHAR(10))",
        "CREATE TABLE alpha.t2 (id INT PRIMARY KEY)",
        "CREATE USER plain IDENTIFIED BY 'pw'",
    ] {
        exec(p, sql).await;
    }
    assert_eq!(
        query(
            p,
            "SHOW VARIABLES WHERE Variable_name = 'sync_binlog' OR Variable_name = 'server_id'"
        )
        .await,
        [["server_id", "1"], ["sync_binlog", "1"]]
    );
    assert_eq!(
        query(p, "SHOW GLOBAL VARIABLES WHERE Variable_name LIKE 'binlog_order%' AND Value = 'ON'")
            .await,
        [["binlog_order_commits", "ON"]]
    );
    assert!(query(p, "SHOW VARIABLES WHERE Value = 'no such value'").await.is_empty());
    let status =
        query(p, "SHOW GLOBAL STATUS WHERE Variable_name IN ('Uptime', 'Com_create_db')").await;
    assert_eq!(status.len(), 2, "{status:?}");
    assert!(status.iter().any(|r| r[0] == "Com_create_db" && r[1] == "2"), "{status:?}");
    assert_eq!(query(p, "SHOW DATABASES WHERE `Database` LIKE 'b%'").await, [["beta"]]);
    assert_eq!(query(p, "SHOW TABLES FROM alpha WHERE Tables_in_alpha <> 't1'").await, [["t2"]]);
    let columns = query(p, "SHOW COLUMNS FROM alpha.t1 WHERE Field = 'name'").await;
    assert_eq!(columns.len(), 1);
    assert_eq!(columns[0][1], "varchar(10)");
    let mut c = support::sql::conn(p).await;
    assert_eq!(error(&mut c, "SHOW VARIABLES WHERE nope = 1").await.0, 1054);
    assert_eq!(error(&mut c, "SHOW CREATE TABLE alpha.t1 WHERE 1").await.0, 1064);
    assert_eq!(error(&mut c, "SHOW VARIABLES WHERE").await.0, 1064);

    // SHUTDOWN needs the SHUTDOWN privilege, then shuts down cleanly.
    let mut plain = conn_as(p, "plain", "pw").await;
    assert_eq!(
        error(&mut plain, "SHUTDOWN").await,
        (
            1227,
            "42000".into(),
            "Access denied; you need (at least one of) the SHUTDOWN privilege(s) for this operation"
                .into()
        )
    );
    drop(plain);
    let mut running = server;
    // The answer may be OK or a lost connection (the server closes it as it shuts down).
    let _ = c.query_drop("SHUTDOWN").await;
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = running.child.try_wait().expect("try_wait") {
            break status;
        }
        assert!(Instant::now() < deadline, "SHUTDOWN did not stop the server");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "exit status {status}");
    let log = std::fs::read_to_string(&running.log).expect("log");
    assert!(log.contains("SHUTDOWN statement, shutting down"), "{log}");
    assert!(log.contains("shutdown complete"), "{log}");
    drop(running);
    // The data is intact after the statement's shutdown.
    let server = insecure(&data, &[]);
    assert_eq!(query(server.port, "SHOW TABLES FROM alpha").await, [["t1"], ["t2"]]);
}
