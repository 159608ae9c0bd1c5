//! What the sql crate's integration tests share (`mod common;`): a [`Server`] over a fresh
//! simulated disk, without a binlog, with the engine's default settings or a short row lock
//! wait.

#![allow(dead_code)] // each test binary uses some of it

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use engine::{Engine, EngineConfig};
use sql::{Hooks, Server};

/// An engine over a fresh simulated disk with the defaults (no checkpoints by redo size).
pub fn engine() -> Engine {
    engine_with(EngineConfig { checkpoint_redo_bytes: None, ..EngineConfig::default() })
}

fn engine_with(cfg: EngineConfig) -> Engine {
    let vfs = vfs::SimVfs::new().shared();
    Engine::open(vfs, Path::new("/data"), cfg).expect("engine opens").0
}

fn open(cfg: EngineConfig) -> Arc<Server> {
    let e = engine_with(cfg);
    Server::open(e.clone(), Hooks::without_binlog(&e), &[]).expect("server opens")
}

/// A server over simulated disk `sim` (no checkpoints by redo size): crash tests open it
/// again on `sim.crash(..)`.
pub fn server_on(sim: &vfs::SimVfs) -> Arc<Server> {
    let cfg = EngineConfig { checkpoint_redo_bytes: None, ..EngineConfig::default() };
    let e = Engine::open(sim.shared(), Path::new("/data"), cfg).expect("engine opens").0;
    Server::open(e.clone(), Hooks::without_binlog(&e), &[]).expect("server opens")
}

/// What `srv` committed made durable (and a checkpoint taken when `checkpoint`), then `srv`
/// dropped: the state a crash test crashes from.
pub fn settle(srv: Arc<Server>, checkpoint: bool) {
    srv.engine().flush_all().expect("flush");
    if checkpoint {
        srv.engine().checkpoint().expect("checkpoint");
    }
}

/// A server opened again on `sim` after a crash that drops unsynced writes, with a root
/// session in database `db`.
pub fn after_crash(sim: &vfs::SimVfs, db: &str) -> (Arc<Server>, sql::Session) {
    let srv = server_on(&sim.crash(vfs::CrashMode::DropUnsynced));
    let mut s = srv.session("root", "localhost");
    q(&mut s, &format!("USE {db}"));
    (srv, s)
}

/// A server with the engine's defaults (no checkpoints by redo size).
pub fn server() -> Arc<Server> {
    open(EngineConfig { checkpoint_redo_bytes: None, ..EngineConfig::default() })
}

/// A server started with `lower_case_table_names` = `value` (a start-up option).
pub fn server_with_lctn(value: &str) -> Arc<Server> {
    let e = engine();
    let overrides = [("lower_case_table_names".to_string(), value.to_string())];
    Server::open(e.clone(), Hooks::without_binlog(&e), &overrides).expect("server opens")
}

/// The rows of `sql` as one comma-separated line.
pub fn one(s: &mut sql::Session, sql: &str) -> String {
    rows(s, sql).concat().join(",")
}

/// A server whose row lock waits end after `wait` (1205), for tests that provoke them.
pub fn server_with_lock_wait(wait: Duration) -> Arc<Server> {
    open(EngineConfig {
        checkpoint_redo_bytes: None,
        lock_wait_timeout: wait,
        ..EngineConfig::default()
    })
}

/// Runs `sql`, panicking with the statement and the error when it fails.
pub fn q(s: &mut sql::Session, sql: &str) -> sql::Output {
    s.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// The text rows of `sql`'s result.
pub fn rows(s: &mut sql::Session, sql: &str) -> Vec<Vec<String>> {
    q(s, sql).text_rows()
}

/// The error `sql` must end in (a long statement is named by its first 200 bytes).
pub fn err(s: &mut sql::Session, sql: &str) -> sql::SqlError {
    match s.query(sql) {
        Ok(o) => panic!("{}: expected an error, got {o:?}", sql.get(..200).unwrap_or(sql)),
        Err(e) => e,
    }
}

/// Attaches a fresh account store to `srv` (root holds every privilege; other accounts what
/// they are granted); the returned directory holds `users.json` and must outlive the server.
pub fn attach_accounts(srv: &Server) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let (users, _) = accounts::Users::open(dir.path(), true).expect("accounts open");
    srv.attach_accounts(Arc::new(users));
    dir
}

/// The first column of `sql`'s rows.
pub fn col(s: &mut sql::Session, sql: &str) -> Vec<String> {
    q(s, sql).text_rows().into_iter().map(|r| r[0].clone()).collect()
}

/// The MySQL error number `sql` must end in.
pub fn code(s: &mut sql::Session, sql: &str) -> u16 {
    err(s, sql).code()
}

/// Two root sessions on database `d` of a server whose lock waits end after 300 ms, with
/// t(id PK, v, k indexed) holding `rows` (an `INSERT INTO t VALUES ...`): the set-up of the
/// two-session isolation and lock tests.
pub fn two_sessions(rows: &str) -> (Arc<Server>, sql::Session, sql::Session) {
    let srv = server_with_lock_wait(Duration::from_millis(300));
    let mut a = srv.session("root", "localhost");
    q(&mut a, "CREATE DATABASE d");
    q(&mut a, "USE d");
    q(&mut a, "CREATE TABLE t (id INT PRIMARY KEY, v INT, k INT, KEY kk (k))");
    q(&mut a, rows);
    let mut b = srv.session("root", "localhost");
    q(&mut b, "USE d");
    (srv, a, b)
}

/// Runs `sql` on `s` in a thread; the handle yields the session back with the outcome.
pub fn spawn_query(
    mut s: sql::Session,
    sql: &'static str,
) -> std::thread::JoinHandle<(sql::Session, Result<sql::Output, u16>)> {
    std::thread::spawn(move || {
        let r = s.query(sql).map_err(|e| e.code());
        (s, r)
    })
}
