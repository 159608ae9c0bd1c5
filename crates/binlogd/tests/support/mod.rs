//! What the process-level tests share (`mod support;`): `binlogd serve` started as a child
//! process on a temporary data directory and a free port (`--port=0`, the real port read back
//! from its error log), stopped with a signal, and the `mariadb` CLI run against it.
//!
//! Each test binary uses only part of this module.

#![allow(dead_code)]

pub mod differential;
pub mod drivers;
pub mod mariadb;
pub mod sql;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// How long a server may take to say "ready for connections" (the machine may be loaded).
const READY_TIMEOUT: Duration = Duration::from_secs(60);

/// A running `binlogd serve`; killed (SIGKILL) when dropped, so a test that fails midway leaves
/// no server behind.
pub struct Running {
    pub child: Child,
    pub port: u16,
    /// Its `--log-error` file.
    pub log: PathBuf,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `binlogd ARGS` (this package's binary).
pub fn binlogd(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_binlogd"));
    command.args(args);
    command
}

/// `binlogd serve ARGS` with stdin and stdout closed; stderr is left to the caller
/// (`output()` captures it).
pub fn serve(args: &[&str]) -> Command {
    let mut command = binlogd(&["serve"]);
    command.args(args).stdin(Stdio::null()).stdout(Stdio::null());
    command
}

/// Starts `binlogd serve --datadir=DATADIR --port=0 --log-error=DATADIR.log EXTRA...` and waits
/// until its log says it is ready; panics with the log if it exits first or takes too long.
pub fn start(datadir: &Path, extra: &[&str]) -> Running {
    try_start(datadir, extra).unwrap_or_else(|log| panic!("{log}"))
}

/// [`start`], but a server that exits before it is ready is an `Err` with its status and log
/// (for a caller that retries, e.g. on a port another process took meanwhile).
pub fn try_start(datadir: &Path, extra: &[&str]) -> Result<Running, String> {
    let log = datadir.with_extension("log");
    let _ = std::fs::remove_file(&log);
    let datadir_arg = format!("--datadir={}", datadir.display());
    let log_arg = format!("--log-error={}", log.display());
    let mut args = vec![datadir_arg.as_str(), "--port=0", log_arg.as_str()];
    args.extend_from_slice(extra);
    let mut child = serve(&args).stderr(Stdio::null()).spawn().expect("start binlogd");
    let port = try_wait_ready(&mut child, &log, "binlogd")?;
    Ok(Running { child, port, log })
}

/// Waits until `log` says "ready for connections" and returns the port it names; panics with
/// the log if `child` exits first or takes longer than READY_TIMEOUT.
fn wait_ready(child: &mut Child, log: &Path, name: &str) -> u16 {
    try_wait_ready(child, log, name).unwrap_or_else(|log| panic!("{log}"))
}

/// [`wait_ready`], with a child that exits first an `Err` (its status and log).
fn try_wait_ready(child: &mut Child, log: &Path, name: &str) -> Result<u16, String> {
    let deadline = Instant::now() + READY_TIMEOUT;
    loop {
        let bytes = std::fs::read(log).unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes);
        if let Some(rest) = text.split("ready for connections").nth(1) {
            let port = rest.split("port: ").nth(1).and_then(|p| p.split_whitespace().next());
            return Ok(port.and_then(|p| p.parse().ok()).expect("port in the log"));
        }
        if let Some(status) = child.try_wait().expect("try_wait") {
            return Err(format!("{name} exited ({status}) before it was ready:\n{text}"));
        }
        assert!(Instant::now() < deadline, "{name} not ready in {READY_TIMEOUT:?}:\n{text}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A `binlogd serve` that a test kills (-9) and starts again on the same data directory. The
/// first start takes a free port, later ones reuse it, so replicas find a restarted source at
/// the same address. Start N logs to DATADIR.N.log. Killed when dropped.
pub struct Node {
    pub name: String,
    pub port: u16,
    pub datadir: PathBuf,
    args: Vec<String>,
    child: Option<Child>,
    starts: u32,
}

impl Node {
    /// Starts `binlogd serve --initialize-insecure --server-id=SERVER_ID EXTRA...` on DATADIR.
    pub fn start(datadir: &Path, server_id: u32, extra: &[&str]) -> Node {
        let mut args =
            vec!["--initialize-insecure".to_string(), format!("--server-id={server_id}")];
        args.extend(extra.iter().map(|s| s.to_string()));
        let name = datadir.file_name().map(|n| n.to_string_lossy().into_owned());
        let mut node = Node {
            name: name.unwrap_or_default(),
            port: 0,
            datadir: datadir.to_path_buf(),
            args,
            child: None,
            starts: 0,
        };
        node.spawn();
        node
    }

    /// Starts the process (again).
    pub fn spawn(&mut self) {
        self.starts += 1;
        let log = self.datadir.with_extension(format!("{}.log", self.starts));
        let datadir_arg = format!("--datadir={}", self.datadir.display());
        let port_arg = format!("--port={}", self.port);
        let log_arg = format!("--log-error={}", log.display());
        let mut args = vec![datadir_arg.as_str(), port_arg.as_str(), log_arg.as_str()];
        args.extend(self.args.iter().map(String::as_str));
        let mut child = serve(&args).stderr(Stdio::null()).spawn().expect("start binlogd");
        self.port = wait_ready(&mut child, &log, &self.name);
        self.child = Some(child);
    }

    /// kill -9 (nothing if it is not running).
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// kill -9, then start again on the same data directory and port.
    pub fn crash_and_restart(&mut self) {
        self.kill();
        self.spawn();
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Sends `signal` (`-TERM`, `-INT`) and waits for a clean exit; returns the log.
pub fn stop(running: Running, signal: &str) -> String {
    stop_with(running, signal, true)
}

/// Sends `signal`, waits for the process, checks that it exited successfully exactly when
/// `clean`, and returns its log.
pub fn stop_with(mut running: Running, signal: &str, clean: bool) -> String {
    let pid = running.child.id().to_string();
    let status = Command::new("kill").args([signal, &pid]).status().expect("kill");
    assert!(status.success(), "kill {signal} {pid}");
    let exit = running.child.wait().expect("wait");
    let log = std::fs::read_to_string(&running.log).expect("log");
    assert_eq!(exit.success(), clean, "exit status {exit}; server log:\n{log}");
    log
}

/// A MariaDB client `program` (`mariadb`, `mariadb-admin`, ...) set to reach 127.0.0.1:`port`
/// over TCP as `user` (with `password` unless it is empty), reading no option files.
pub fn client(program: &str, port: u16, user: &str, password: &str) -> Command {
    let mut command = Command::new(program);
    command.args([
        "--no-defaults",
        "--protocol=TCP",
        "-h127.0.0.1",
        &format!("-P{port}"),
        &format!("-u{user}"),
    ]);
    if !password.is_empty() {
        command.arg(format!("-p{password}"));
    }
    command
}

/// `mariadb --batch --skip-column-names` over TCP to 127.0.0.1:`port`, with `extra` options
/// (e.g. `--ssl`), running `sql`.
pub fn mariadb(port: u16, user: &str, password: &str, extra: &[&str], sql: &str) -> Output {
    client("mariadb", port, user, password)
        .args(["--batch", "--skip-column-names"])
        .args(extra)
        .args(["-e", sql])
        .output()
        .expect("run mariadb (scripts/test.sh installs mariadb-client)")
}

/// `mariadb < input` against 127.0.0.1:`port` as root (a dump or a binlog replay); panics with
/// the client's error, naming `what`, if it fails.
pub fn feed(port: u16, input: &[u8], what: &str) {
    use std::io::Write;
    let mut child = client("mariadb", port, "root", "")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run mariadb");
    child.stdin.take().expect("stdin").write_all(input).expect("write");
    let out = child.wait_with_output().expect("mariadb");
    assert!(out.status.success(), "{what}: {}", String::from_utf8_lossy(&out.stderr));
}

/// The output of a `mariadb` run that must succeed.
pub fn ok(output: Output) -> String {
    assert!(output.status.success(), "mariadb: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The error text of a `mariadb` run that must fail.
pub fn fails(output: Output) -> String {
    assert!(!output.status.success(), "succeeded: {}", String::from_utf8_lossy(&output.stdout));
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// `mariadb-binlog FILE | mariadb` into the server on `port` as root, both of which must
/// succeed; returns what mariadb-binlog printed (the replayed SQL).
pub fn replay_binlog(file: &Path, port: u16) -> String {
    use std::io::Write;
    let out = Command::new("mariadb-binlog")
        .arg(file)
        .output()
        .expect("run mariadb-binlog (scripts/test.sh installs mariadb-client)");
    assert!(out.status.success(), "mariadb-binlog: {}", String::from_utf8_lossy(&out.stderr));
    let mut child = client("mariadb", port, "root", "")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run mariadb");
    child.stdin.take().expect("stdin").write_all(&out.stdout).expect("write the replay");
    let replay = child.wait_with_output().expect("mariadb");
    assert!(replay.status.success(), "replay: {}", String::from_utf8_lossy(&replay.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}
