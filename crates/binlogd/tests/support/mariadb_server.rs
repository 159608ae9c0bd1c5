//! A throwaway MariaDB server for differential tests (`mariadb-install-db` into a temporary
//! directory, `mariadbd` on 127.0.0.1 and a free port, `--user=root`, grant tables skipped,
//! no binlog), and a runner that sends the same statements to it and to binlogd and returns
//! each answer as text rows or an error code.
//!
//! Needs `mariadbd` and `mariadb-install-db` (Debian's mariadb-server, installed by
//! scripts/test.sh); [`available`] says whether a test may run (under `CI=true` a missing
//! server is a failure, not a skip).

use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Row, Value};

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

fn have(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Whether mariadbd can be started; panics under `CI=true` when it cannot.
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

/// Starts MariaDB in `dir/mariadb` (utf8mb4, strict mode as its default).
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
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("mariadbd starts");
    Mariadb { child, port }
}

/// Connects to 127.0.0.1:`port` as root, retrying until `deadline` passes.
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

/// One statement's answer: rows of values as text (binary-safe: non-UTF-8 bytes escaped), or
/// the server's error code.
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

/// Runs `sql` and returns its answer.
pub async fn answer(c: &mut Conn, sql: &str) -> Answer {
    match c.query::<Row, _>(sql).await {
        Ok(rows) => Ok(rows.iter().map(|r| (0..r.len()).map(|i| cell(&r[i])).collect()).collect()),
        Err(mysql_async::Error::Server(e)) => Err(e.code),
        Err(e) => panic!("{sql}: {e}"),
    }
}
