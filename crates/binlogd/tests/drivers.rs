//! The drivers MySQL users reach for, unmodified, against binlogd (issue 18): MySQL Connector/J
//! and the MariaDB Java client (Maven Central), Node's mysql2 (npm) and go-sql-driver/mysql (the
//! Go module proxy). PyMySQL and mysql-connector-python are in driver_metadata.rs and
//! serve_tools.rs.
//!
//! Each test installs its driver if missing (`tests/drivers/install.sh`, into
//! `target/drivers/`; scripts/test.sh runs it first), starts binlogd and a MariaDB server, and
//! runs the driver's program (`tests/drivers/{java,node,go}`) against both:
//! - **conn** (binlogd): a caching_sha2_password and a mysql_native_password account over TCP
//!   (twice: the first caching_sha2 login is a full authentication by RSA key exchange, the
//!   second the fast path), TLS and the Unix socket; `SHOW SESSION STATUS LIKE 'Ssl_cipher'`
//!   and `Ssl_version` non-empty exactly over TLS;
//! - **types** (both): every row of `tests/drivers/types.tsv` inserted by a text and by a
//!   server-side prepared statement, read back through both protocols, compared as the
//!   driver's own values, and each value bound as a parameter in a WHERE; the driver's
//!   metadata printed (`meta` lines) for the table's columns and some expressions;
//! - **pool** (both): what pools do (connection-time settings, COM_PING / isValid,
//!   COM_RESET_CONNECTION, transactions, batches, cursor fetch, isolation and read-only
//!   transactions, concurrent use of a bounded pool).
//!
//! The metadata each driver reports for binlogd must equal what the same driver reports for
//! MariaDB, except where MySQL 8.0 and MariaDB 10.11 legitimately differ ([`mysql_differs`], each
//! with its reason) and the binlogd defects not yet fixed ([`KNOWN_DEFECTS`]).
//!
//! Needs java (17+) with mvn, node with npm, go, and mariadbd: the test command installs them;
//! without them a test fails under `CI=true` and is skipped otherwise.

mod support;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use support::drivers::{install, programs, target_dir};
use support::mariadb::have;
use support::{mariadb, ok, start, stop};

/// False (skip) when a tool is missing outside CI; a failure under CI.
fn tools(needed: &[&str]) -> bool {
    let missing: Vec<&str> = needed.iter().copied().filter(|p| !have(p)).collect();
    if missing.is_empty() {
        return true;
    }
    assert!(std::env::var("CI").is_err(), "missing {missing:?} (scripts/test.sh installs them)");
    eprintln!("skipped: {missing:?} not installed");
    false
}

/// One run of a driver program: its output, which must report no FAIL.
fn run(what: &str, mut command: Command) -> String {
    let started = Instant::now();
    let out = command.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    eprintln!("{what}: {:?}", started.elapsed());
    assert!(
        out.status.success() && !stdout.contains("FAIL"),
        "{what}:\n{}\n{}",
        stdout.lines().filter(|l| !l.starts_with("meta")).collect::<Vec<_>>().join("\n"),
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// `meta MODE LABEL key=value ...` lines as (MODE, LABEL) → key → value (a value may contain
/// spaces: `typeName=BIGINT UNSIGNED`).
fn meta(out: &str) -> BTreeMap<(String, String), BTreeMap<String, String>> {
    let mut all = BTreeMap::new();
    for line in out.lines().filter(|l| l.starts_with("meta ")) {
        let mut words = line.split(' ').skip(1);
        let mode = words.next().expect("mode").to_string();
        let label = words.next().expect("label").to_string();
        let mut fields: BTreeMap<String, String> = BTreeMap::new();
        let mut last = String::new();
        for w in words {
            match w.split_once('=') {
                Some((k, v)) => {
                    fields.insert(k.to_string(), v.to_string());
                    last = k.to_string();
                }
                None => {
                    let v = fields.get_mut(&last).expect("a value before");
                    v.push(' ');
                    v.push_str(w);
                }
            }
        }
        all.insert((mode, label), fields);
    }
    all
}

/// Where MySQL 8.0 legitimately sends something else than MariaDB 10.11, as the driver shows
/// it: `Some(reason)` when binlogd's value `ours` against MariaDB's `theirs` is MySQL's.
fn mysql_differs(key: &str, theirs: &str, ours: &str) -> Option<&'static str> {
    match (key, theirs, ours) {
        // NOT_FIXED_DEC: the "decimals" of a string (or other non-numeric) expression is 31 in
        // MySQL (`DECIMAL_NOT_SPECIFIED`, sql/field.h) and 39 in MariaDB; JDBC drivers report
        // it as the scale.
        ("scale" | "decimals", "39", "31") => Some("NOT_FIXED_DEC is 31 in MySQL, 39 in MariaDB"),
        _ => None,
    }
}

/// binlogd's differences from mysqld that these drivers show and that are not fixed yet:
/// (mode, column, key, reason). Each is also a difference from MariaDB, which agrees with
/// mysqld there.
const KNOWN_DEFECTS: &[(&str, &str, &str, &str)] = &[
    // (`id + 1`'s length, 21 instead of mysqld's 12, was one until typelen.rs.)
];

/// Compares the metadata of binlogd's run with MariaDB's; returns the number of fields
/// compared.
fn compare_meta(driver: &str, ours: &str, theirs: &str) -> usize {
    let (ours, theirs) = (meta(ours), meta(theirs));
    assert_eq!(
        ours.keys().collect::<Vec<_>>(),
        theirs.keys().collect::<Vec<_>>(),
        "{driver}: the same result columns"
    );
    let mut compared = 0;
    let mut problems = Vec::new();
    for (key, fields) in &theirs {
        let mine = &ours[key];
        for (k, v) in fields {
            compared += 1;
            let got = mine.get(k).map(String::as_str).unwrap_or("<absent>");
            if got == v || mysql_differs(k, v, got).is_some() {
                continue;
            }
            let known =
                KNOWN_DEFECTS.iter().any(|(m, c, f, _)| *m == key.0 && *c == key.1 && f == k);
            if known {
                eprintln!(
                    "{driver}: known defect: {} {} {k}: binlogd {got}, MariaDB {v}",
                    key.0, key.1
                );
                continue;
            }
            problems.push(format!("{} {} {k}: binlogd <{got}>, MariaDB <{v}>", key.0, key.1));
        }
    }
    assert!(
        problems.is_empty(),
        "{driver} metadata differs from MariaDB's:\n{}",
        problems.join("\n")
    );
    compared
}

/// The conn phase's findings: every account over every transport, TLS exactly over TLS.
fn check_conn(driver: &str, out: &str) {
    for user in ["sha2", "native"] {
        for (transport, tls) in [("tcp", false), ("tls", true), ("socket", false)] {
            let line = format!("conn {user} {transport} {user}@% tls={tls}\n");
            assert!(out.contains(&line), "{driver}: no <{}> in\n{out}", line.trim());
        }
    }
    assert_eq!(out.matches("conn ").count(), 8, "{driver}: {out}");
    assert!(out.contains("pool ok"), "{driver}: {out}");
}

/// Starts binlogd (with the two accounts) and MariaDB, runs `program ARGS` against both through
/// `command(port, socket, phases, accounts)`, checks the findings and compares the metadata.
fn against_both(driver: &str, command: impl Fn(u16, &Path, &str, &[&str]) -> Command) {
    let dir = tempfile::tempdir().expect("tempdir");
    let maria = mariadb::start(dir.path());
    let datadir = dir.path().join("data");
    let server = start(&datadir, &["--initialize-insecure"]);
    ok(mariadb(
        server.port,
        "root",
        "",
        &[],
        "CREATE USER 'sha2'@'%' IDENTIFIED WITH caching_sha2_password BY 'sha2-secret'; \
         CREATE USER 'native'@'%' IDENTIFIED WITH mysql_native_password BY 'native-secret'; \
         GRANT ALL ON *.* TO 'sha2'@'%'; GRANT ALL ON *.* TO 'native'@'%'",
    ));
    let accounts = ["sha2", "sha2-secret", "native", "native-secret"];
    let ours = run(
        &format!("{driver} against binlogd"),
        command(server.port, &datadir.join("mysql.sock"), "conn,types,pool", &accounts),
    );
    check_conn(driver, &ours);
    let theirs = run(
        &format!("{driver} against MariaDB"),
        command(maria.port, &maria.socket, "types,pool", &["root", ""]),
    );
    let compared = compare_meta(driver, &ours, &theirs);
    // Every column of types.tsv, through both protocols, with several fields each.
    assert!(compared > 100, "{driver}: {compared} metadata fields compared");
    // Global TLS figures: every TLS connection above was accepted and finished.
    let status = ok(mariadb(
        server.port,
        "root",
        "",
        &[],
        "SHOW GLOBAL STATUS LIKE 'Ssl_finished_accepts'; SHOW STATUS LIKE 'Ssl_server_not_after'",
    ));
    let finished: u64 = status
        .lines()
        .next()
        .and_then(|l| l.split('\t').nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("{status}"));
    assert!(finished >= 2, "{status}");
    assert!(status.contains("Ssl_server_not_after\t") && status.contains(" GMT"), "{status}");
    stop(server, "-TERM");
}

fn types_tsv() -> String {
    programs().join("types.tsv").display().to_string()
}

fn java(driver: &'static str) -> impl Fn(u16, &Path, &str, &[&str]) -> Command {
    move |port, socket, phases, accounts| {
        let mut c = Command::new("java");
        c.arg("-cp")
            .arg(format!("{}/drivers/java-lib/*", target_dir().display()))
            .arg(programs().join("java/DriverCheck.java"))
            .args([driver, &port.to_string(), &socket.display().to_string(), &types_tsv(), phases])
            .args(accounts);
        c
    }
}

#[test]
fn mysql_connector_j() {
    if !tools(&["java", "mvn", "mariadbd"]) {
        return;
    }
    install("java");
    against_both("Connector/J", java("mysql"));
}

#[test]
fn mariadb_java_client() {
    if !tools(&["java", "mvn", "mariadbd"]) {
        return;
    }
    install("java");
    against_both("MariaDB Java client", java("mariadb"));
}

#[test]
fn node_mysql2() {
    if !tools(&["node", "npm", "mariadbd"]) {
        return;
    }
    install("node");
    against_both("mysql2", |port, socket, phases, accounts| {
        let mut c = Command::new("node");
        c.arg(target_dir().join("drivers/node/check.js"))
            .args([&port.to_string(), &socket.display().to_string(), &types_tsv(), phases])
            .args(accounts);
        c
    });
}

#[test]
fn go_sql_driver() {
    if !tools(&["go", "mariadbd"]) {
        return;
    }
    install("go");
    against_both("go-sql-driver", |port, socket, phases, accounts| {
        let mut c = Command::new(target_dir().join("drivers/driverscheck"));
        c.args([&port.to_string(), &socket.display().to_string(), &types_tsv(), phases])
            .args(accounts);
        c
    });
}

/// The schema both servers hold for [`connector_j_database_metadata`]: keys of every shape
/// (auto-increment, unique, composite primary, composite secondary) and the column types
/// MySQL 8.0 and MariaDB 10.11 describe alike (not JSON: MariaDB's is LONGTEXT).
const METADATA_SCHEMA: &str =
    "CREATE DATABASE md CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci; \
     USE md; \
     CREATE TABLE parent (id INT NOT NULL AUTO_INCREMENT, code CHAR(4) NOT NULL, \
       name VARCHAR(40), PRIMARY KEY (id), UNIQUE KEY code_u (code)); \
     CREATE TABLE child (p INT NOT NULL, seq SMALLINT UNSIGNED NOT NULL, \
       qty DECIMAL(10,3) DEFAULT 1.500, at DATETIME, note TEXT, PRIMARY KEY (p, seq), \
       KEY at_i (at, qty)); \
     CREATE TABLE kinds (id BIGINT UNSIGNED NOT NULL PRIMARY KEY, t TINYINT, f DOUBLE, \
       d DATE, ts TIMESTAMP NULL, b VARBINARY(10), e ENUM('x','y') DEFAULT 'x', y YEAR)";

/// MetadataCheck's lines with MariaDB's own differences taken out: its extra databases
/// (mysql, performance_schema, sys, test: binlogd has none of them) and information_schema's
/// COLUMN_DEFAULT, which MariaDB 10.2+ writes as an SQL literal (`'x'`, `NULL`) where mysqld
/// writes the value (`x`) or SQL NULL.
fn metadata_lines(out: &str) -> Vec<String> {
    out.lines()
        .filter(|l| {
            !["mysql", "performance_schema", "sys", "test"]
                .iter()
                .any(|db| *l == format!("catalogs | TABLE_CAT={db}"))
        })
        .map(|l| {
            l.split(" | ")
                .map(|cell| match cell.strip_prefix("COLUMN_DEF=") {
                    Some("NULL") => "COLUMN_DEF=null".to_string(),
                    Some(v) if v.len() > 1 && v.starts_with('\'') && v.ends_with('\'') => {
                        format!("COLUMN_DEF={}", &v[1..v.len() - 1])
                    }
                    _ => cell.to_string(),
                })
                .collect::<Vec<_>>()
                .join(" | ")
        })
        .collect()
}

/// Connector/J's DatabaseMetaData (getCatalogs, getTables, getColumns, getPrimaryKeys,
/// getIndexInfo, getBestRowIdentifier, getImportedKeys) in both of its modes: its own
/// information_schema queries (`useInformationSchema=true`: CASE/LOCATE/COLLATE over COLUMNS,
/// STATISTICS, a three-way join of KEY_COLUMN_USAGE, TABLE_CONSTRAINTS and
/// REFERENTIAL_CONSTRAINTS) and its SHOW statements, against binlogd and MariaDB with the same
/// schema: the same answers.
#[test]
fn connector_j_database_metadata() {
    if !tools(&["java", "mvn", "mariadbd"]) {
        return;
    }
    install("java");
    let dir = tempfile::tempdir().expect("tempdir");
    let maria = mariadb::start(dir.path());
    let server = start(&dir.path().join("data"), &["--initialize-insecure"]);
    ok(mariadb(server.port, "root", "", &[], METADATA_SCHEMA));
    ok(mariadb(maria.port, "root", "", &[], METADATA_SCHEMA));
    for infoschema in ["true", "false"] {
        let check = |port: u16| {
            let mut c = Command::new("java");
            c.arg("-cp")
                .arg(format!("{}/drivers/java-lib/*", target_dir().display()))
                .arg(programs().join("java/MetadataCheck.java"))
                .args([&port.to_string(), "md", infoschema]);
            c
        };
        let ours = run(&format!("metadata ({infoschema}) against binlogd"), check(server.port));
        let theirs = run(&format!("metadata ({infoschema}) against MariaDB"), check(maria.port));
        let (ours, theirs) = (metadata_lines(&ours), metadata_lines(&theirs));
        assert!(ours.len() > 40, "{ours:#?}");
        let differ: Vec<String> = ours
            .iter()
            .filter(|l| !theirs.contains(l))
            .map(|l| format!("binlogd: {l}"))
            .chain(theirs.iter().filter(|l| !ours.contains(l)).map(|l| format!("MariaDB: {l}")))
            .collect();
        assert!(differ.is_empty(), "useInformationSchema={infoschema}:\n{}", differ.join("\n"));
    }
    stop(server, "-TERM");
}
