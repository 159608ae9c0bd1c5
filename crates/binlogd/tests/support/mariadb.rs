//! A real MariaDB server started by a test (Debian's mariadb-server): `mariadb-install-db` into
//! a temporary directory, `mariadbd` on 127.0.0.1 and a free port with its own Unix socket,
//! `--user=root`, grant tables skipped (root, or any name, logs in without a password),
//! utf8mb4 with utf8mb4_general_ci (MySQL 8.0's default collation 255 is unknown to MariaDB).
//! Killed when dropped.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Mariadb {
    child: Child,
    pub port: u16,
    pub socket: PathBuf,
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

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port()
}

/// Installs and starts MariaDB under `dir`; returns once it accepts TCP connections (60 s at
/// most).
pub fn start_mariadb(dir: &Path) -> Mariadb {
    let datadir = dir.join("mariadb");
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
    assert!(out.status.success(), "mariadb-install-db: {}", String::from_utf8_lossy(&out.stderr));
    let port = free_port();
    let socket = dir.join("mariadb.sock");
    let child = Command::new("mariadbd")
        .args([
            "--no-defaults",
            &format!("--datadir={}", datadir.display()),
            &format!("--socket={}", socket.display()),
            &format!("--pid-file={}", dir.join("mariadb.pid").display()),
            &format!("--port={port}"),
            "--bind-address=127.0.0.1",
            "--user=root",
            "--skip-grant-tables",
            "--skip-log-bin",
            "--character-set-server=utf8mb4",
            "--collation-server=utf8mb4_general_ci",
            "--innodb-buffer-pool-size=16M",
            &format!("--tmpdir={}", dir.display()),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("mariadbd starts");
    let started = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() || !socket.exists() {
        assert!(started.elapsed() < Duration::from_secs(60), "MariaDB not up in 60 s");
        std::thread::sleep(Duration::from_millis(100));
    }
    Mariadb { child, port, socket }
}
