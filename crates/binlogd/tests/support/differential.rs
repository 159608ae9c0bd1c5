//! The differential harness: runs the same statements against MariaDB (started by
//! [`super::mariadb`], re-exported here) and binlogd and compares the answers, either a case
//! list (`run_cases`) or one statement's values (`values`).
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

use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Row, Value};

#[allow(unused_imports)] // not every test binary that has `mod support` uses them
pub use super::mariadb::{available, connect, start};

/// One statement's answer as values: rows of text (binary-safe: non-UTF-8 bytes written
/// `0x…`), or the server's error code.
pub type Answer = Result<Vec<Vec<Option<String>>>, u16>;

fn cell(v: &Value) -> Option<String> {
    match v {
        Value::NULL => None,
        Value::Bytes(b) => Some(match std::str::from_utf8(b) {
            Ok(s) => s.to_string(),
            Err(_) => format!("0x{}", hex::encode(b)),
        }),
        other => Some(other.as_sql(true)),
    }
}

/// Runs `sql` and returns its answer as values.
pub async fn values(c: &mut Conn, sql: &str) -> Answer {
    match c.query::<Row, _>(sql).await {
        Ok(rows) => Ok(rows.iter().map(|r| (0..r.len()).map(|i| cell(&r[i])).collect()).collect()),
        Err(mysql_async::Error::Server(e)) => Err(e.code),
        Err(e) => panic!("{sql}: {e}"),
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

/// MariaDB and binlogd started side by side, each with database `db` created and in use.
/// The servers stop when this is dropped.
pub struct Pair {
    pub maria: Conn,
    pub binlogd: Conn,
    _servers: (super::mariadb::Mariadb, super::Running),
    _tmp: tempfile::TempDir,
}

/// Starts a [`Pair`]; None where MariaDB is missing outside CI (see [`available`]).
pub async fn start_pair(db: &str) -> Option<Pair> {
    if !available(&[]) {
        return None;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let maria = start(tmp.path());
    let binlogd = super::start(&tmp.path().join("binlogd"), &["--initialize-insecure"]);
    let mut m = connect(maria.port, std::time::Duration::from_secs(60)).await;
    let mut b = connect(binlogd.port, std::time::Duration::from_secs(10)).await;
    for sql in [format!("CREATE DATABASE {db}"), format!("USE {db}")] {
        m.query_drop(&sql).await.unwrap_or_else(|e| panic!("MariaDB: {sql}: {e}"));
        b.query_drop(&sql).await.unwrap_or_else(|e| panic!("binlogd: {sql}: {e}"));
    }
    Some(Pair { maria: m, binlogd: b, _servers: (maria, binlogd), _tmp: tmp })
}

/// The whole of a differential test: MariaDB and binlogd started, database `db` created and
/// used on both, then `tests/differential/<file>` run on both and compared; fails naming every
/// differing case, or when fewer than `at_least` cases were compared (a list that stopped
/// early). Returns at once where MariaDB is missing outside CI (see [`available`]).
pub async fn compare_case_file(file: &str, db: &str, at_least: usize) {
    let Some(mut pair) = start_pair(db).await else { return };
    let path = format!("{}/tests/differential/{file}", env!("CARGO_MANIFEST_DIR"));
    let list = cases(&std::fs::read_to_string(&path).expect("case list"));
    let (failures, compared) = run_cases(&mut pair.maria, &mut pair.binlogd, &list).await;
    assert!(compared >= at_least, "only {compared} cases");
    assert!(
        failures.is_empty(),
        "{} of {compared} cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
