//! A MariaDB server started by a test (`mariadb-install-db` into a temporary directory,
//! `mariadbd` on 127.0.0.1 and a free port, `--user=root`, grant tables skipped), and the
//! differential harness that runs a case list against it and against binlogd and compares
//! the answers (`run_cases`).
//!
//! Case lists live in `tests/differential/*.cases`, one statement a line:
//! - `SQL` — both servers must give the same answer (rows as text, or the error code);
//! - `SQL ## mysql8: ANSWER ## why` — MySQL 8.0 answers otherwise than MariaDB 10.11: binlogd
//!   must give ANSWER (MySQL 8.0's, from its manual or source), MariaDB's is not compared;
//! - `w: SQL` — the warning codes (SHOW WARNINGS) are compared too;
//! - `setup: SQL` — run on both, must succeed on both, answers not compared;
//! - `binlogd: SQL` — run on binlogd only (where MariaDB lacks the feature), must succeed;
//! - blank lines and `#` comments are skipped.
//!
//! An answer is written `v1,v2;v3,v4` (rows separated by `;`, values by `,`, NULL as `NULL`),
//! `OK` for a statement without a result set, `ERROR n` for an error; a newline inside a
//! value is written `\n`.

#![allow(dead_code)]

use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Row};

pub struct Mariadb {
    child: Child,
    pub port: u16,
}

impl Drop for Mariadb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn have(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Whether MariaDB can be started here; without it a test fails under `CI=true` (the test
/// command installs it) and is skipped otherwise.
pub fn available() -> bool {
    if have("mariadbd") && have("mariadb-install-db") {
        return true;
    }
    assert!(std::env::var("CI").is_err(), "mariadbd is needed (scripts/test.sh installs it)");
    eprintln!("skipped: mariadbd not installed");
    false
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port()
}

/// Starts MariaDB on a fresh data directory under `dir`, in UTC.
pub fn start(dir: &Path) -> Mariadb {
    let datadir = dir.join("mariadb");
    let out = Command::new("mariadb-install-db")
        .args([
            "--no-defaults",
            &format!("--datadir={}", datadir.display()),
            "--user=root",
            "--skip-test-db",
            "--auth-root-authentication-method=normal",
        ])
        .output()
        .expect("mariadb-install-db runs");
    assert!(out.status.success(), "mariadb-install-db: {}", String::from_utf8_lossy(&out.stderr));
    let port = free_port();
    let child = Command::new("mariadbd")
        .args([
            "--no-defaults",
            &format!("--datadir={}", datadir.display()),
            &format!("--socket={}", dir.join("mariadb.sock").display()),
            &format!("--pid-file={}", dir.join("mariadb.pid").display()),
            &format!("--port={port}"),
            "--bind-address=127.0.0.1",
            "--user=root",
            "--skip-grant-tables",
            "--skip-log-bin",
            "--character-set-server=utf8mb4",
            "--collation-server=utf8mb4_general_ci",
            "--innodb-buffer-pool-size=16M",
            "--default-time-zone=+00:00",
        ])
        .env("TZ", "UTC")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("mariadbd starts");
    Mariadb { child, port }
}

pub async fn connect(port: u16, deadline: Duration) -> Conn {
    let start = Instant::now();
    loop {
        match Conn::new(super::sql::opts(port, "root", "")).await {
            Ok(c) => return c,
            Err(e) if start.elapsed() > deadline => panic!("connect to {port}: {e}"),
            Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
}

/// A statement's answer in the case-list notation.
pub async fn answer(c: &mut Conn, sql: &str) -> String {
    match c.query::<Row, _>(sql).await {
        Ok(rows) if rows.is_empty() => {
            // A result set without rows and an OK both come back empty here; tell them apart
            // by the statement.
            let head = sql.trim_start().get(..6).unwrap_or("").to_ascii_uppercase();
            if matches!(head.as_str(), "SELECT" | "SHOW C" | "SHOW W") {
                String::new()
            } else {
                "OK".into()
            }
        }
        Ok(rows) => rows
            .iter()
            .map(|r| {
                (0..r.len())
                    .map(|i| super::sql::text(&r[i]).replace('\n', "\\n"))
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .collect::<Vec<_>>()
            .join(";"),
        Err(mysql_async::Error::Server(e)) => format!("ERROR {}", e.code),
        Err(e) => panic!("{sql}: {e}"),
    }
}

async fn warning_codes(c: &mut Conn) -> String {
    let rows: Vec<Row> = c.query("SHOW WARNINGS").await.expect("SHOW WARNINGS");
    rows.iter().map(|r| super::sql::text(&r[1])).collect::<Vec<_>>().join(",")
}

/// One case of a list (see the module doc).
#[derive(Debug)]
pub enum Case {
    Compare { sql: String, warnings: bool },
    Mysql8 { sql: String, expected: String, why: String },
    Setup(String),
    BinlogdOnly(String),
}

/// Reads a case list.
pub fn cases(text: &str) -> Vec<Case> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(sql) = line.strip_prefix("setup:") {
            out.push(Case::Setup(sql.trim().into()));
        } else if let Some(sql) = line.strip_prefix("binlogd:") {
            out.push(Case::BinlogdOnly(sql.trim().into()));
        } else if let Some((sql, rest)) = line.split_once("## mysql8:") {
            let (expected, why) = rest.split_once("##").unwrap_or((rest, ""));
            assert!(!why.trim().is_empty(), "a MySQL-8.0 expectation says why: {line}");
            out.push(Case::Mysql8 {
                sql: sql.trim().into(),
                expected: expected.trim().into(),
                why: why.trim().into(),
            });
        } else if let Some(sql) = line.strip_prefix("w:") {
            out.push(Case::Compare { sql: sql.trim().into(), warnings: true });
        } else {
            out.push(Case::Compare { sql: line.into(), warnings: false });
        }
    }
    out
}

/// Runs the cases against MariaDB (`m`) and binlogd (`b`); returns the failures (empty when
/// every case passed) and the number of cases compared.
pub async fn run_cases(m: &mut Conn, b: &mut Conn, list: &[Case]) -> (Vec<String>, usize) {
    let mut failures = Vec::new();
    let mut compared = 0;
    for case in list {
        match case {
            Case::Setup(sql) => {
                let (x, y) = (answer(m, sql).await, answer(b, sql).await);
                if x.starts_with("ERROR") || y.starts_with("ERROR") {
                    failures.push(format!("setup {sql}: MariaDB {x}, binlogd {y}"));
                }
            }
            Case::BinlogdOnly(sql) => {
                let y = answer(b, sql).await;
                if y.starts_with("ERROR") {
                    failures.push(format!("binlogd-only {sql}: {y}"));
                }
            }
            Case::Compare { sql, warnings } => {
                compared += 1;
                let (x, y) = (answer(m, sql).await, answer(b, sql).await);
                if x != y {
                    failures.push(format!("{sql}\n   MariaDB: {x}\n   binlogd: {y}"));
                } else if *warnings {
                    let (wx, wy) = (warning_codes(m).await, warning_codes(b).await);
                    if wx != wy {
                        failures
                            .push(format!("{sql} (warnings)\n   MariaDB: {wx}\n   binlogd: {wy}"));
                    }
                }
            }
            Case::Mysql8 { sql, expected, why } => {
                compared += 1;
                let y = answer(b, sql).await;
                if &y != expected {
                    failures
                        .push(format!("{sql}\n   MySQL 8.0: {expected} ({why})\n   binlogd: {y}"));
                }
            }
        }
    }
    (failures, compared)
}
