//! `binlogd serve` driven by the client tools MySQL users point at it: sysbench (prepared
//! statements), mysqlslap, PyMySQL and mysql-connector-python, the mariadb CLI for accounts,
//! privileges, RESET MASTER, live SET GLOBAL limits and `/metrics`, and 1000 wrong-password
//! attempts. Each server runs on a temporary data directory and a free port; every load is
//! bounded in time and count. `scripts/test.sh` installs the tools.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use support::{fails, ok, start, stop};

/// The `mariadb` CLI without extra options.
fn mariadb(port: u16, user: &str, password: &str, sql: &str) -> Output {
    support::mariadb(port, user, password, &[], sql)
}

fn root(port: u16, sql: &str) -> String {
    ok(mariadb(port, "root", "", sql))
}

// ---- sysbench ---------------------------------------------------------------------------------

/// The first word after `label` on a line of sysbench's report.
fn sysbench_field<'a>(report: &'a str, label: &str) -> &'a str {
    report
        .lines()
        .find_map(|l| l.trim().strip_prefix(label))
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no '{label}' in sysbench's report:\n{report}"))
}

/// `transactions:`, `ignored errors:` and `total time:` (seconds) of sysbench's report.
fn sysbench_figures(report: &str) -> (u64, u64, f64) {
    let number = |label: &str| -> u64 {
        let field = sysbench_field(report, label);
        field.parse().unwrap_or_else(|_| panic!("'{label}' {field} in:\n{report}"))
    };
    let time = sysbench_field(report, "total time:");
    let seconds = time.trim_end_matches('s').parse();
    let seconds = seconds.unwrap_or_else(|_| panic!("'total time:' {time} in:\n{report}"));
    (number("transactions:"), number("ignored errors:"), seconds)
}

/// sysbench's OLTP workloads, each run in its own database `sb_<workload>`.
const WORKLOADS: [&str; 7] = [
    "oltp_insert",
    "oltp_update_index",
    "oltp_update_non_index",
    "oltp_delete",
    "oltp_write_only",
    "oltp_point_select",
    "oltp_read_write",
];

/// `sysbench WORKLOAD COMMAND` on database `sb_<workload>` with one 1000-row table and
/// otherwise sysbench's defaults (prepared statements; `run` lasts its default 10 s).
fn sysbench(port: u16, workload: &str, threads: u32, command: &str) -> Output {
    Command::new("sysbench")
        .arg(workload)
        .args([
            "--db-driver=mysql",
            "--mysql-host=127.0.0.1",
            &format!("--mysql-port={port}"),
            "--mysql-user=root",
            "--mysql-password=",
            &format!("--mysql-db=sb_{workload}"),
            "--tables=1",
            "--table-size=1000",
            &format!("--threads={threads}"),
        ])
        .arg(command)
        .output()
        .expect("run sysbench")
}

/// `sysbench WORKLOAD COMMAND` for every workload at once; each must exit with success and
/// without a FATAL line. Returns the reports in [`WORKLOADS`] order.
fn sysbench_all(port: u16, threads: u32, command: &str) -> Vec<String> {
    let outputs: Vec<Output> = std::thread::scope(|scope| {
        let runs = WORKLOADS.map(|w| scope.spawn(move || sysbench(port, w, threads, command)));
        runs.into_iter().map(|r| r.join().expect("sysbench thread")).collect()
    });
    WORKLOADS
        .iter()
        .zip(outputs)
        .map(|(workload, out)| {
            let report = String::from_utf8_lossy(&out.stdout).into_owned();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                out.status.success() && !report.contains("FATAL") && !stderr.contains("FATAL"),
                "{workload} {command} at {threads} threads: {}\n{report}{stderr}",
                out.status
            );
            report
        })
        .collect()
}

/// Every workload sysbench's OLTP suite is known by, with its default options (prepared
/// statements, 10 s runs), at 1 and 64 threads: prepare, run and cleanup must succeed with
/// transactions done. The seven workloads run at the same time, each in its own database (all
/// seven 1-thread runs, then all seven 64-thread runs: 448 client connections), which keeps
/// the test within the suite's budget. sysbench retries deadlocks (1213) by design ("ignored
/// errors"); every other error is FATAL and ends it with a non-zero status, which fails the
/// test.
#[test]
fn sysbench_oltp_workloads_at_1_and_64_threads() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server =
        start(&dir.path().join("data"), &["--initialize-insecure", "--max-connections=600"]);
    let databases: Vec<String> =
        WORKLOADS.iter().map(|w| format!("CREATE DATABASE sb_{w}")).collect();
    root(server.port, &databases.join("; "));
    let mut summary = Vec::new();
    for threads in [1, 64] {
        sysbench_all(server.port, 1, "prepare");
        let reports = sysbench_all(server.port, threads, "run");
        for (workload, report) in WORKLOADS.iter().zip(&reports) {
            let (transactions, ignored, seconds) = sysbench_figures(report);
            assert!(transactions > 0, "{workload} at {threads} threads did nothing:\n{report}");
            // sysbench's default run time is 10 s: the run went the whole way.
            assert!(seconds >= 9.5, "{workload} at {threads} threads ran {seconds} s:\n{report}");
            summary.push(format!("{workload}/{threads}: {transactions} txns, {ignored} retried"));
        }
        sysbench_all(server.port, 1, "cleanup");
    }
    eprintln!("sysbench (10 s each, 7 at a time): {}", summary.join("; "));
    stop(server, "-TERM");
}

// ---- mysqlslap --------------------------------------------------------------------------------

#[test]
fn mysqlslap_auto_generated_write_and_mixed_loads_at_1_20_50_clients() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = start(&dir.path().join("data"), &["--initialize-insecure"]);
    for load in ["write", "mixed"] {
        let out = Command::new("mysqlslap")
            .args([
                "--no-defaults",
                "-h127.0.0.1",
                &format!("-P{}", server.port),
                "-uroot",
                "--auto-generate-sql",
                &format!("--auto-generate-sql-load-type={load}"),
                "--concurrency=1,20,50",
                "--number-of-queries=1000",
            ])
            .output()
            .expect("run mysqlslap");
        let report = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "mysqlslap {load}: {report}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        for clients in [1, 20, 50] {
            assert!(
                report.contains(&format!("Number of clients running queries: {clients}\n")),
                "{load} at {clients} clients missing:\n{report}"
            );
        }
    }
    stop(server, "-TERM");
}

// ---- accounts, privileges, admin --------------------------------------------------------------

#[test]
fn accounts_grants_and_privilege_errors_persist_across_restart() {
    let dir = tempfile::tempdir().expect("tempdir");
    let datadir = dir.path().join("data");
    let server = start(&datadir, &["--initialize-insecure"]);
    let port = server.port;
    root(
        port,
        "CREATE USER 'app'@'%' IDENTIFIED BY 'app-pw';
         CREATE USER 'nat'@'%' IDENTIFIED WITH mysql_native_password BY 'nat-pw',
                     repl@'%' IDENTIFIED WITH caching_sha2_password BY 'repl-pw';
         CREATE USER IF NOT EXISTS 'app'@'%' IDENTIFIED BY 'other';
         GRANT ALL PRIVILEGES ON *.* TO 'app'@'%';
         GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO 'repl'@'%';
         GRANT SELECT ON *.* TO nat;
         CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY, v INT);
         INSERT INTO d.t VALUES (1, 10);",
    );
    assert!(fails(mariadb(port, "root", "", "CREATE USER 'app'@'%'"))
        .contains("ERROR 1396 (HY000) at line 1: Operation CREATE USER failed for 'app'@'%'"));
    assert!(fails(mariadb(port, "root", "", "DROP USER ghost@'%'"))
        .contains("ERROR 1396 (HY000) at line 1: Operation DROP USER failed for 'ghost'@'%'"));
    assert!(fails(mariadb(port, "root", "", "GRANT ALL ON *.* TO ghost")).contains("ERROR 1410"));
    assert!(fails(mariadb(port, "root", "", "GRANT SELEKT ON *.* TO app")).contains("ERROR 1064"));
    assert_eq!(
        root(port, "SHOW GRANTS FOR 'repl'@'%'"),
        "GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO `repl`@`%`\n"
    );
    assert_eq!(
        root(port, "SHOW GRANTS"),
        "GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` WITH GRANT OPTION\n"
    );

    // The created users log in with their plugins; CURRENT_USER() is the account.
    assert_eq!(ok(mariadb(port, "app", "app-pw", "SELECT CURRENT_USER()")), "app@%\n");
    assert_eq!(ok(mariadb(port, "nat", "nat-pw", "SELECT v FROM d.t")), "10\n");
    assert!(fails(mariadb(port, "app", "wrong", "SELECT 1")).contains("ERROR 1045"));

    // Privileges: SELECT only, replication only.
    let denied = fails(mariadb(port, "nat", "nat-pw", "INSERT INTO d.t VALUES (2, 20)"));
    assert!(
        denied.contains("ERROR 1142 (42000) at line 1: INSERT command denied to user 'nat'@'127.0.0.1' for table 't'"),
        "{denied}"
    );
    assert!(fails(mariadb(port, "nat", "nat-pw", "CREATE DATABASE e")).contains(
        "ERROR 1044 (42000) at line 1: Access denied for user 'nat'@'127.0.0.1' to database 'e'"
    ));
    assert!(fails(mariadb(port, "nat", "nat-pw", "SET GLOBAL sync_binlog = 0")).contains(
        "ERROR 1227 (42000) at line 1: Access denied; you need (at least one of) the SUPER or SYSTEM_VARIABLES_ADMIN privilege(s) for this operation"
    ));
    assert!(fails(mariadb(port, "nat", "nat-pw", "CREATE USER x")).contains("ERROR 1227"));
    assert!(fails(mariadb(port, "app", "app-pw", "GRANT SELECT ON *.* TO nat"))
        .contains("GRANT OPTION"));
    assert!(fails(mariadb(port, "repl", "repl-pw", "SELECT * FROM d.t")).contains("ERROR 1142"));
    assert!(ok(mariadb(port, "repl", "repl-pw", "SHOW MASTER STATUS")).contains("binlog.0000"));
    // A user with no privilege connects and runs SELECT 1, and may change its own password.
    root(port, "CREATE USER plain IDENTIFIED BY 'p1'");
    assert_eq!(ok(mariadb(port, "plain", "p1", "SELECT 1")), "1\n");
    assert!(fails(mariadb(port, "plain", "p1", "USE d")).contains("ERROR 1044"));
    ok(mariadb(port, "plain", "p1", "ALTER USER CURRENT_USER() IDENTIFIED BY 'p2'"));
    assert!(fails(mariadb(port, "plain", "p1", "SELECT 1")).contains("ERROR 1045"));

    // REVOKE, ALTER USER, DROP USER.
    root(
        port,
        "REVOKE REPLICATION CLIENT ON *.* FROM 'repl'@'%';
         ALTER USER 'app'@'%' IDENTIFIED WITH mysql_native_password BY 'app-pw2';
         DROP USER 'nat'@'%';
         DROP USER IF EXISTS 'nat'@'%'",
    );
    assert!(fails(mariadb(port, "repl", "repl-pw", "SHOW BINARY LOGS")).contains("ERROR 1227"));
    stop(server, "-TERM");

    // Everything above survives a restart.
    let server = start(&datadir, &[]);
    let port = server.port;
    assert_eq!(ok(mariadb(port, "app", "app-pw2", "SELECT CURRENT_USER()")), "app@%\n");
    assert!(fails(mariadb(port, "nat", "nat-pw", "SELECT 1")).contains("ERROR 1045"));
    assert_eq!(ok(mariadb(port, "plain", "p2", "SELECT 1")), "1\n");
    assert_eq!(
        root(port, "SHOW GRANTS FOR repl"),
        "GRANT REPLICATION SLAVE ON *.* TO `repl`@`%`\n"
    );
    stop(server, "-TERM");
}

/// The `/metrics` body over plain HTTP.
fn http_get(port: u16, path: &str) -> String {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect admin port");
    s.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
    write!(s, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").expect("send");
    let mut answer = String::new();
    s.read_to_string(&mut answer).expect("read");
    answer
}

/// Starts a server with `--admin-port` on a port the OS just had free, in `dir/dataN`; returns
/// it, its data directory and the admin port. The port is bound, released and handed over, so
/// another test may take it meanwhile: a start that fails with EADDRINUSE is tried again on a
/// new port and a new data directory (`--admin-port=0` means "off", so the server cannot pick).
fn start_with_admin_port(dir: &Path, extra: &[&str]) -> (support::Running, PathBuf, u16) {
    let mut last = String::new();
    for attempt in 0..5 {
        let admin_port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let datadir = dir.join(format!("data{attempt}"));
        let admin = format!("--admin-port={admin_port}");
        let mut args = extra.to_vec();
        args.push(&admin);
        match support::try_start(&datadir, &args) {
            Ok(server) => return (server, datadir, admin_port),
            Err(log) if log.contains("Address already in use") => last = log,
            Err(log) => panic!("{log}"),
        }
    }
    panic!("no free admin port in 5 attempts:\n{last}");
}

#[test]
fn reset_master_live_limits_log_bin_basename_and_metrics() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (server, datadir, admin_port) =
        start_with_admin_port(dir.path(), &["--initialize-insecure", "--log-bin=mysql-bin"]);
    let port = server.port;
    root(
        port,
        "CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY);
         INSERT INTO d.t VALUES (1); FLUSH BINARY LOGS; INSERT INTO d.t VALUES (2)",
    );
    assert_eq!(
        root(port, "SELECT @@log_bin_basename"),
        format!("{}\n", datadir.join("binlog").join("mysql-bin").display())
    );
    let logs = root(port, "SHOW BINARY LOGS");
    assert!(logs.contains("mysql-bin.000002"), "{logs}");

    // /metrics carries SHOW GLOBAL STATUS's figures.
    let commits: u64 = root(port, "SHOW GLOBAL STATUS LIKE 'Binlog_commits'")
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .expect("Binlog_commits");
    let metrics = http_get(admin_port, "/metrics");
    assert!(metrics.starts_with("HTTP/1.1 200 OK"), "{metrics}");
    assert!(
        metrics.contains(&format!("\nbinlogd_global_status_binlog_commits {commits}\n")),
        "{metrics}"
    );
    assert!(metrics.contains("\nbinlogd_global_status_com_insert 2\n"), "{metrics}");
    assert!(http_get(admin_port, "/nope").starts_with("HTTP/1.1 404"));

    // RESET MASTER: one empty first file, no GTIDs executed or purged; commits go on. Its note
    // in the error log follows SET GLOBAL log_error_verbosity: absent at 1 (errors only),
    // written at 3.
    let notes =
        || std::fs::read_to_string(&server.log).expect("log").matches("RESET MASTER").count();
    root(port, "SET GLOBAL log_error_verbosity = 1");
    root(port, "RESET MASTER");
    assert_eq!(notes(), 0, "a note written at log_error_verbosity 1");
    root(port, "SET GLOBAL log_error_verbosity = 3");
    root(port, "RESET MASTER");
    assert_eq!(notes(), 1, "the note of RESET MASTER at log_error_verbosity 3");
    assert_eq!(root(port, "SHOW BINARY LOGS"), "mysql-bin.000001\t157\tNo\n");
    assert_eq!(root(port, "SELECT @@global.gtid_executed, @@global.gtid_purged"), "\t\n");
    assert!(!datadir.join("binlog").join("mysql-bin.000002").exists());
    root(port, "INSERT INTO d.t VALUES (3)");
    let executed = root(port, "SELECT @@global.gtid_executed");
    assert!(executed.trim().ends_with(":1"), "{executed}");
    // Inside a transaction it is refused.
    let out = mariadb(port, "root", "", "BEGIN; RESET MASTER");
    assert!(fails(out).contains("ERROR 1179"));

    // SET GLOBAL max_connections reaches the listener at once. As mysqld, max_connections + 1
    // sockets are let in (the last login kept for SUPER), so two sockets lock even root out.
    root(port, "SET GLOBAL max_connections = 1");
    let blocker = std::net::TcpStream::connect(("127.0.0.1", port)).expect("hold a slot");
    let admin_slot = std::net::TcpStream::connect(("127.0.0.1", port)).expect("hold the last");
    std::thread::sleep(Duration::from_millis(200));
    let refused = fails(mariadb(port, "root", "", "SELECT 1"));
    // The CLI words it as a TLS-stage error quoting the server's 1040.
    assert!(refused.contains("1040 - Too many connections"), "{refused}");
    drop((blocker, admin_slot));
    std::thread::sleep(Duration::from_millis(200));
    root(port, "SET GLOBAL max_connections = 151; SET GLOBAL max_allowed_packet = 4096");
    let long = format!("SELECT LENGTH('{}')", "x".repeat(8000));
    assert!(fails(mariadb(port, "root", "", &long)).contains("ERROR 1153"));
    root(port, "SET GLOBAL max_allowed_packet = 67108864");
    assert_eq!(root(port, &long), "8000\n");
    stop(server, "-TERM");

    // After a restart the reset binlog goes on from GTID 1.
    let server = start(&datadir, &["--log-bin=mysql-bin"]);
    let executed = root(server.port, "SELECT @@global.gtid_executed");
    assert!(executed.trim().ends_with(":1"), "{executed}");
    assert_eq!(root(server.port, "SELECT COUNT(*) FROM d.t"), "3\n");
    stop(server, "-TERM");
}

// ---- Python drivers ---------------------------------------------------------------------------

const PYTHON_CLIENT: &str = r#"
import sys
driver, port, user, password, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
if driver == "pymysql":
    import pymysql
    def connect():
        kw = dict(host="127.0.0.1", port=port, user=user, password=password, autocommit=True)
        if mode == "tls":
            kw["ssl"] = {"check_hostname": False, "verify_mode": 0}
        return pymysql.connect(**kw)
else:
    import mysql.connector
    def connect():
        kw = dict(host="127.0.0.1", port=port, user=user, password=password, autocommit=True,
                  use_pure=True)
        if mode == "tls":
            kw["ssl_verify_cert"] = False
        else:
            kw["ssl_disabled"] = True
        return mysql.connector.connect(**kw)

a = connect()
b = connect()
ca, cb = a.cursor(), b.cursor()
ca.execute("SELECT CURRENT_USER()")
print("user", ca.fetchone()[0])
table = "d.t_" + driver + "_" + mode
ca.execute("CREATE TABLE " + table + " (id INT PRIMARY KEY, v VARCHAR(20))")
ca.execute("START TRANSACTION")
ca.execute("INSERT INTO " + table + " VALUES (%s, %s)", (1, "rolled back"))
ca.execute("ROLLBACK")
cb.execute("SELECT COUNT(*) FROM " + table)
print("after rollback", cb.fetchone()[0])
ca.execute("START TRANSACTION")
ca.execute("INSERT INTO " + table + " VALUES (%s, %s)", (2, "kept"))
cb.execute("SELECT COUNT(*) FROM " + table)
print("before commit", cb.fetchone()[0])
ca.execute("COMMIT")
cb.execute("SELECT v FROM " + table + " WHERE id = %s", (2,))
print("after commit", cb.fetchone()[0])
a.close(); b.close()
"#;

fn python(driver: &str, port: u16, user: &str, password: &str, mode: &str) -> String {
    let out = Command::new("python3")
        .args(["-c", PYTHON_CLIENT, driver, &port.to_string(), user, password, mode])
        .output()
        .expect("run python3");
    assert!(
        out.status.success(),
        "{driver} ({mode}): {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn pymysql_and_mysql_connector_authenticate_with_caching_sha2_and_run_transactions() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = start(&dir.path().join("data"), &["--initialize-insecure"]);
    let port = server.port;
    root(
        port,
        "CREATE USER 'py'@'%' IDENTIFIED WITH caching_sha2_password BY 'py-secret';
         GRANT ALL ON *.* TO 'py'@'%'; CREATE DATABASE d",
    );
    let expected = "user py@%\nafter rollback 0\nbefore commit 0\nafter commit kept\n";
    // PyMySQL: full authentication by the RSA key exchange first (nothing cached yet),
    // then over TLS.
    assert_eq!(python("pymysql", port, "py", "py-secret", "rsa"), expected);
    assert_eq!(python("pymysql", port, "py", "py-secret", "tls"), expected);
    // mysql-connector-python: over TLS, then the fast path (cached) without TLS.
    assert_eq!(python("connector", port, "py", "py-secret", "tls"), expected);
    assert_eq!(python("connector", port, "py", "py-secret", "plain"), expected);
    stop(server, "-TERM");
}

// ---- bad input --------------------------------------------------------------------------------

/// 1000 wrong passwords (10 clients × 100, native and caching_sha2 accounts) while another
/// client keeps querying: the good client is never refused and stays fast, and the attempts
/// finish in bounded time.
#[test]
fn a_thousand_wrong_passwords_do_not_stop_other_clients() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = start(&dir.path().join("data"), &["--initialize-insecure"]);
    let port = server.port;
    root(
        port,
        "CREATE USER 'victim'@'%' IDENTIFIED BY 'right';
         CREATE USER 'old'@'%' IDENTIFIED WITH mysql_native_password BY 'right'",
    );
    let started = Instant::now();
    let attackers: Vec<_> = (0..10)
        .map(|i| {
            std::thread::spawn(move || {
                let mut refused = 0;
                for n in 0..100 {
                    let user = if (i + n) % 2 == 0 { "victim" } else { "old" };
                    let pool = mysql_async::Opts::from_url(&format!(
                        "mysql://{user}:wrong{n}@127.0.0.1:{port}/"
                    ))
                    .expect("url");
                    let rt = tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                        .expect("runtime");
                    let result = rt.block_on(async {
                        tokio::time::timeout(Duration::from_secs(10), mysql_async::Conn::new(pool))
                            .await
                    });
                    match result {
                        Ok(Err(mysql_async::Error::Server(e))) if e.code == 1045 => refused += 1,
                        other => panic!("wrong password attempt {n}: {other:?}"),
                    }
                }
                refused
            })
        })
        .collect();
    let mut worst = Duration::ZERO;
    let mut good_queries = 0;
    while attackers.iter().any(|a| !a.is_finished()) {
        let t = Instant::now();
        assert_eq!(ok(mariadb(port, "victim", "right", "SELECT 1")), "1\n");
        worst = worst.max(t.elapsed());
        good_queries += 1;
    }
    let refused: u32 = attackers.into_iter().map(|a| a.join().expect("attacker")).sum();
    let elapsed = started.elapsed();
    eprintln!(
        "1000 wrong passwords in {elapsed:?}; {good_queries} good logins meanwhile, slowest {worst:?}"
    );
    assert_eq!(refused, 1000);
    assert!(elapsed < Duration::from_secs(120), "wrong passwords took {elapsed:?}");
    assert!(worst < Duration::from_secs(5), "a good login took {worst:?}");
    stop(server, "-TERM");
}
