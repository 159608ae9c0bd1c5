//! `binlogd serve` as a process: started by the test on a temporary data directory and a free
//! port (`--port=0`, read back from the error log), driven with the `mariadb` CLI, stopped with
//! SIGTERM/SIGINT, restarted on the same data directory.

mod support;

use std::process::{Command, Stdio};

use support::{mariadb, ok, serve as binlogd, start, stop, stop_with};

#[test]
fn serve_answers_mariadb_and_keeps_data_across_restarts() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let datadir = tmp.path().join("data");
    let server = start(&datadir, &["--initialize-insecure", "--sync_binlog=1"]);
    assert_eq!(ok(mariadb(server.port, "root", "", &[], "SELECT 1")), "1\n");
    let out = ok(mariadb(
        server.port,
        "root",
        "",
        &[],
        "CREATE DATABASE shop; USE shop; \
         CREATE TABLE item (id INT PRIMARY KEY, name VARCHAR(20)); \
         INSERT INTO item VALUES (1, 'apple'), (2, 'pear'); \
         UPDATE item SET name = 'plum' WHERE id = 2; \
         SELECT id, name FROM item ORDER BY id",
    ));
    assert_eq!(out, "1\tapple\n2\tplum\n");
    let uuid = std::fs::read_to_string(datadir.join("auto.cnf")).expect("auto.cnf");
    let shown = ok(mariadb(server.port, "root", "", &[], "SELECT @@server_uuid"));
    let uuid_text = shown.trim().to_string();
    assert!(uuid.contains(&uuid_text), "{uuid} vs {shown}");
    // CREATE DATABASE, CREATE TABLE, INSERT, UPDATE: four GTIDs.
    let executed = format!("{uuid_text}:1-4");
    let status = ok(mariadb(server.port, "root", "", &[], "SHOW MASTER STATUS"));
    assert!(status.starts_with("binlog.000001\t") && status.contains(&executed), "{status}");

    // SHOW BINLOG EVENTS lists the file as mysqld does: type and Info of each event.
    let events = ok(mariadb(server.port, "root", "", &[], "SHOW BINLOG EVENTS IN 'binlog.000001'"));
    let types: Vec<&str> = events.lines().filter_map(|line| line.split('\t').nth(2)).collect();
    assert_eq!(&types[..2], ["Format_desc", "Previous_gtids"], "{events}");
    for want in [
        format!("SET @@SESSION.GTID_NEXT= '{uuid_text}:3'"),
        "use `shop`; CREATE TABLE item".to_string(),
        "table_id: ".to_string(),
        "Write_rows".to_string(),
        "Update_rows".to_string(),
        "COMMIT /* xid=".to_string(),
    ] {
        assert!(events.contains(&want), "{want} missing from:\n{events}");
    }
    let limited = ok(mariadb(
        server.port,
        "root",
        "",
        &[],
        "SHOW BINLOG EVENTS IN 'binlog.000001' LIMIT 1,2",
    ));
    assert_eq!(limited.lines().count(), 2, "{limited}");
    assert!(limited.lines().next().is_some_and(|l| l.contains("Previous_gtids")), "{limited}");
    let missing = mariadb(server.port, "root", "", &[], "SHOW BINLOG EVENTS IN 'nope.000009'");
    assert!(String::from_utf8_lossy(&missing.stderr).contains("1220"), "{missing:?}");

    // A second server on the same data directory is refused while the first runs.
    let second = binlogd(&[&format!("--datadir={}", datadir.display()), "--port=0"])
        .output()
        .expect("second binlogd");
    assert_eq!(second.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert!(stderr.contains("in use by another binlogd"), "{stderr}");

    // kill -9: every acknowledged transaction is there after recovery.
    let log = stop_with(server, "-KILL", false);
    assert!(!log.contains("shutdown complete"), "{log}");
    let server = start(&datadir, &[]);
    let out =
        ok(mariadb(server.port, "root", "", &[], "SELECT id, name FROM shop.item ORDER BY id"));
    assert_eq!(out, "1\tapple\n2\tplum\n");
    let gtids = ok(mariadb(server.port, "root", "", &[], "SELECT @@global.gtid_executed"));
    assert_eq!(gtids.trim(), executed);
    ok(mariadb(server.port, "root", "", &[], "DELETE FROM shop.item WHERE id = 1"));
    let log = stop(server, "-TERM");
    assert!(log.contains("received SIGTERM") && log.contains("shutdown complete"), "{log}");

    let server = start(&datadir, &[]);
    let out = ok(mariadb(server.port, "root", "", &[], "SELECT id, name FROM shop.item"));
    assert_eq!(out, "2\tplum\n");
    let log = stop(server, "-INT");
    assert!(log.contains("received SIGINT"), "{log}");

    // The binlog holds the row events under the table's own name, readable by mariadb-binlog.
    let dump = Command::new("mariadb-binlog")
        .args(["--no-defaults", "-v"])
        .arg(datadir.join("binlog/binlog.000001"))
        .output()
        .expect("run mariadb-binlog");
    let dump = String::from_utf8_lossy(&dump.stdout);
    assert!(dump.contains("### INSERT INTO `shop`.`item`"), "{dump}");
    assert!(dump.contains("### UPDATE `shop`.`item`"), "{dump}");
}

#[test]
fn flush_and_purge_binary_logs_move_gtid_purged() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let server = start(&tmp.path().join("data"), &["--initialize-insecure"]);
    let sql = |q: &str| ok(mariadb(server.port, "root", "", &[], q));
    sql("CREATE DATABASE a; FLUSH BINARY LOGS; CREATE DATABASE b; FLUSH BINARY LOGS");
    let uuid = sql("SELECT @@server_uuid").trim().to_string();
    let logs = sql("SHOW BINARY LOGS");
    assert_eq!(logs.lines().count(), 3, "{logs}");
    sql("PURGE BINARY LOGS TO 'binlog.000002'");
    assert!(sql("SHOW BINARY LOGS").starts_with("binlog.000002\t"));
    assert_eq!(sql("SELECT @@global.gtid_purged").trim(), format!("{uuid}:1"));
    // Every file but the active one was last written before 2099.
    sql("PURGE BINARY LOGS BEFORE '2099-01-01 00:00:00'");
    let logs = sql("SHOW BINARY LOGS");
    assert!(logs.starts_with("binlog.000003\t") && logs.lines().count() == 1, "{logs}");
    assert_eq!(sql("SELECT @@global.gtid_purged").trim(), format!("{uuid}:1-2"));
    assert_eq!(sql("SELECT @@global.gtid_executed").trim(), format!("{uuid}:1-2"));
    // SHOW GLOBAL STATUS carries the pipeline's and the protocol's counters.
    let status = sql("SHOW GLOBAL STATUS");
    let value = |name: &str| -> u64 {
        let line = status.lines().find(|l| l.split('\t').next() == Some(name));
        let line = line.unwrap_or_else(|| panic!("{name} missing from:\n{status}"));
        line.split('\t').nth(1).and_then(|v| v.parse().ok()).expect("a number")
    };
    assert_eq!(value("Binlog_commits"), 2, "{status}");
    assert!(value("Binlog_group_commits") >= 1 && value("Binlog_fsyncs") >= 1, "{status}");
    assert_eq!(value("Threads_connected"), 1, "{status}");
    assert!(value("Connections") >= 8, "{status}");
    stop(server, "-TERM");
}

#[test]
fn skip_log_bin_serves_without_a_binlog() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let datadir = tmp.path().join("data");
    let server = start(&datadir, &["--initialize-insecure", "--skip-log-bin"]);
    let out = ok(mariadb(
        server.port,
        "root",
        "",
        &[],
        "CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY); INSERT INTO d.t VALUES (7); \
         SELECT id FROM d.t; SELECT @@log_bin",
    ));
    assert_eq!(out, "7\n0\n");
    let binary_logs = mariadb(server.port, "root", "", &[], "SHOW BINARY LOGS");
    let stderr = String::from_utf8_lossy(&binary_logs.stderr);
    assert!(stderr.contains("1381") && stderr.contains("not using binary logging"), "{stderr}");
    stop(server, "-TERM");
    assert!(!datadir.join("binlog").exists());
}

#[test]
fn first_start_prints_root_password_and_root_logs_in_with_it() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let datadir = tmp.path().join("data");
    let server = start(&datadir, &[]);
    let password = std::fs::read_to_string(datadir.join("initial-root-password"))
        .expect("initial-root-password");
    let password = password.trim();
    let log = std::fs::read_to_string(&server.log).expect("log");
    assert!(
        log.contains(&format!("temporary password is generated for root@localhost: {password}"))
    );
    // caching_sha2_password full authentication over TLS with the generated certificate.
    assert_eq!(ok(mariadb(server.port, "root", password, &["--ssl"], "SELECT 1")), "1\n");
    let denied = mariadb(server.port, "root", "", &["--ssl"], "SELECT 1");
    assert!(String::from_utf8_lossy(&denied.stderr).contains("Access denied"));
    stop(server, "-TERM");
}

#[test]
fn bad_options_exit_1_naming_the_option() {
    let unknown = binlogd(&["--no-such-option=1"]).output().expect("run");
    assert_eq!(unknown.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("unknown option '--no-such-option'"));
    let bad = binlogd(&["--max-connections=lots"]).output().expect("run");
    assert_eq!(bad.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert!(stderr.contains("'--max-connections'") && stderr.contains("'lots'"), "{stderr}");
    let help = binlogd(&["--help"]).stdout(Stdio::piped()).output().expect("run");
    assert!(help.status.success());
    assert!(String::from_utf8_lossy(&help.stdout).contains("--sync-binlog"));
}
