//! The one MariaDB server the tests start (Debian's mariadb-server): `mariadb-install-db` into
//! a temporary directory, `mariadbd` on 127.0.0.1 and a free port with its own Unix socket,
//! `--user=root`, grant tables skipped (root, or any name, logs in without a password), no
//! binlog of its own, utf8mb4 with utf8mb4_general_ci (MySQL 8.0's default collation 255 is
//! unknown to MariaDB 10.11), time zone UTC (binlogd's default). Killed when dropped.
//!
//! Used by the differential tests (answers compared with binlogd's), the column-definition
//! test, the driver tests and the MariaDB-replica test. [`available`] says whether a test may
//! run: under `CI=true` a missing server is a failure, not a skip (scripts/test.sh installs it).

#![allow(dead_code)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mysql_async::Conn;

pub struct Mariadb {
    child: Child,
    pub port: u16,
    pub socket: PathBuf,
    /// Its error log (`mariadb.err`), for a failing test's message.
    pub error_log: PathBuf,
}

impl Drop for Mariadb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// True when `program` is on PATH.
pub fn have(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Whether MariaDB (and every program in `also`) can be run here; panics under `CI=true` when
/// one is missing, so the test fails instead of skipping.
pub fn available(also: &[&str]) -> bool {
    let missing: Vec<&str> = ["mariadbd", "mariadb-install-db"]
        .iter()
        .chain(also)
        .copied()
        .filter(|p| !have(p))
        .collect();
    if missing.is_empty() {
        return true;
    }
    assert!(std::env::var("CI").is_err(), "{missing:?} needed (scripts/test.sh installs them)");
    eprintln!("skipped: {missing:?} not installed");
    false
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port()
}

/// Installs and starts MariaDB under `dir`; returns once it accepts TCP connections and its
/// socket exists (90 s at most).
pub fn start(dir: &Path) -> Mariadb {
    start_with(dir, &[])
}

/// [`start`] with more `mariadbd` options (e.g. `--server-id=2` for a replica).
pub fn start_with(dir: &Path, extra: &[&str]) -> Mariadb {
    let datadir = dir.join("mariadb");
    {
        // One installation at a time per test binary: concurrent bootstraps collided on their
        // temporary tables ("Unknown table 'mysql.tmp_user_sys'").
        static INSTALL: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _one = INSTALL.lock().unwrap_or_else(|e| e.into_inner());
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
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "mariadb-install-db: {stderr}");
    }
    let port = free_port();
    let socket = dir.join("mariadb.sock");
    let error_log = dir.join("mariadb.err");
    let mut args = vec![
        "--no-defaults".to_string(),
        format!("--datadir={}", datadir.display()),
        format!("--socket={}", socket.display()),
        format!("--pid-file={}", dir.join("mariadb.pid").display()),
        format!("--log-error={}", error_log.display()),
        format!("--tmpdir={}", dir.display()),
        format!("--port={port}"),
        "--bind-address=127.0.0.1".into(),
        "--user=root".into(),
        "--skip-grant-tables".into(),
        "--skip-log-bin".into(),
        "--character-set-server=utf8mb4".into(),
        "--collation-server=utf8mb4_general_ci".into(),
        "--innodb-buffer-pool-size=16M".into(),
        "--default-time-zone=+00:00".into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let mut child = Command::new("mariadbd")
        .args(&args)
        .env("TZ", "UTC")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("mariadbd starts");
    let started = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() || !socket.exists() {
        if let Ok(Some(status)) = child.try_wait() {
            let log = std::fs::read_to_string(&error_log).unwrap_or_default();
            panic!("mariadbd exited ({status}): {log}");
        }
        assert!(started.elapsed() < Duration::from_secs(90), "MariaDB not up in 90 s");
        std::thread::sleep(Duration::from_millis(100));
    }
    Mariadb { child, port, socket, error_log }
}

/// Connects to 127.0.0.1:`port` as root without a password, retrying until `deadline` passes
/// (works for binlogd started by [`super::start`] too).
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
