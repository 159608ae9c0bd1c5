//! What the engine's crash tests share (`mod common;`): an engine opened on a simulated file
//! system at `/data` with small redo files, fsync flushing, no automatic checkpoint and
//! no acceptance of loss, so every crash point shows exactly what recovery keeps.

#![allow(dead_code)]

use std::path::Path;
use std::time::Duration;

use engine::{Engine, EngineConfig, Recovery, RedoFlushMethod};
use vfs::{CrashMode, SimVfs};

/// The crash tests' engine configuration (64 KiB redo files).
pub fn config() -> EngineConfig {
    EngineConfig {
        redo_file_bytes: 64 << 10,
        lock_wait_timeout: Duration::from_secs(30),
        checkpoint_redo_bytes: None,
        retain_redo_for_binlog: false,
        redo_flush_method: RedoFlushMethod::Fsync,
        recovery_accept_loss: false,
    }
}

/// Opens (and recovers) the engine of `sim` at `/data`.
pub fn open(sim: &SimVfs) -> Result<(Engine, Recovery), engine::Error> {
    Engine::open(sim.shared(), Path::new("/data"), config())
}

/// Flushes the redo (and takes a checkpoint if asked), crashes dropping what was not synced,
/// and recovers: the engine after the crash and its file system.
pub fn crash_and_reopen(e: Engine, sim: &SimVfs, checkpoint: bool) -> (Engine, SimVfs) {
    e.flush_all().expect("flush");
    if checkpoint {
        e.checkpoint().expect("checkpoint");
    }
    drop(e);
    let sim = sim.crash(CrashMode::DropUnsynced);
    let (e, _) = open(&sim).expect("reopen");
    (e, sim)
}
