//! What the sql crate's integration tests share (`mod common;`): a [`Server`] over a fresh
//! simulated disk, without a binlog, with the engine's default settings or a short row lock
//! wait.

#![allow(dead_code)] // each test binary uses some of it

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use engine::{Engine, EngineConfig};
use sql::{Hooks, Server};

fn open(cfg: EngineConfig) -> Arc<Server> {
    let vfs = vfs::SimVfs::new().shared();
    let e = Engine::open(vfs, Path::new("/data"), cfg).expect("engine opens").0;
    Server::open(e.clone(), Hooks::without_binlog(&e), &[]).expect("server opens")
}

/// A server with the engine's defaults (no checkpoints by redo size).
pub fn server() -> Arc<Server> {
    open(EngineConfig { checkpoint_redo_bytes: None, ..EngineConfig::default() })
}

/// A server whose row lock waits end after `wait` (1205), for tests that provoke them.
pub fn server_with_lock_wait(wait: Duration) -> Arc<Server> {
    open(EngineConfig {
        checkpoint_redo_bytes: None,
        lock_wait_timeout: wait,
        ..EngineConfig::default()
    })
}
