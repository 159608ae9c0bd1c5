//! What the process-level tests share (`mod support;`): `binlogd serve` started as a child
//! process on a temporary data directory and a free port (`--port=0`, the real port read back
//! from its error log), stopped with a signal, and the `mariadb` CLI run against it.
//!
//! Each test binary uses only part of this module.

#![allow(dead_code)]

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
    let log = datadir.with_extension("log");
    let _ = std::fs::remove_file(&log);
    let datadir_arg = format!("--datadir={}", datadir.display());
    let log_arg = format!("--log-error={}", log.display());
    let mut args = vec![datadir_arg.as_str(), "--port=0", log_arg.as_str()];
    args.extend_from_slice(extra);
    let child = serve(&args).stderr(Stdio::null()).spawn().expect("start binlogd");
    let mut running = Running { child, port: 0, log };
    let deadline = Instant::now() + READY_TIMEOUT;
    loop {
        let bytes = std::fs::read(&running.log).unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes);
        if let Some(rest) = text.split("ready for connections").nth(1) {
            let port = rest.split("port: ").nth(1).and_then(|p| p.split_whitespace().next());
            running.port = port.and_then(|p| p.parse().ok()).expect("port in the log");
            return running;
        }
        if let Some(status) = running.child.try_wait().expect("try_wait") {
            panic!("binlogd exited ({status}) before it was ready:\n{text}");
        }
        assert!(Instant::now() < deadline, "binlogd not ready in {READY_TIMEOUT:?}:\n{text}");
        std::thread::sleep(Duration::from_millis(50));
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
    assert_eq!(exit.success(), clean, "exit status {exit}");
    std::fs::read_to_string(&running.log).expect("log")
}

/// `mariadb --batch --skip-column-names` over TCP to 127.0.0.1:`port`, with `extra` options
/// (e.g. `--ssl`), running `sql`.
pub fn mariadb(port: u16, user: &str, password: &str, extra: &[&str], sql: &str) -> Output {
    let mut command = Command::new("mariadb");
    command.args([
        "--no-defaults",
        "--protocol=TCP",
        "-h127.0.0.1",
        &format!("-P{port}"),
        &format!("-u{user}"),
        "--batch",
        "--skip-column-names",
    ]);
    if !password.is_empty() {
        command.arg(format!("-p{password}"));
    }
    command.args(extra).args(["-e", sql]);
    command.output().expect("run mariadb (scripts/test.sh installs mariadb-client)")
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
