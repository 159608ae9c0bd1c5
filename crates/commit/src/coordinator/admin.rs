//! Administration between groups — `FLUSH BINARY LOGS` (rotate), `PURGE BINARY LOGS`,
//! `RESET MASTER`, a binlog sync on demand, clean shutdown — and the binlog-in-redo
//! background writer (`binlog-sync` thread: fdatasyncs the binlog at
//! `binlog_in_redo_sync_interval_ms` and flushes the redo once a second for
//! `innodb_flush_log_at_trx_commit` 0/2). A panic in that thread poisons the pipeline (see
//! `poison.rs`); the thread then only idles until shutdown.

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use super::poison::panic_error;
use super::{leaders, Coordinator, Inner};
use crate::engine_api::{engine_error, Engine};
use crate::error::{Error, Result};

/// `innodb_flush_log_at_trx_commit` 0 and 2 flush the redo once a second in the background.
const BACKGROUND_REDO_FLUSH: Duration = Duration::from_secs(1);

impl<E: Engine> Coordinator<E> {
    /// fdatasyncs the binlog now and publishes the synced end (the binlog-in-redo
    /// background writer's step; tests call it at chosen points).
    pub fn sync_binlog_now(&self) -> Result<()> {
        self.inner.check_poison()?;
        self.inner.sync_binlog_file().map_err(|e| self.inner.set_poison(e))
    }

    /// `FLUSH BINARY LOGS`: closes the active file and opens the next, between groups.
    pub fn rotate(&self) -> Result<()> {
        let mut fs = self.inner.flush_lock.lock();
        self.inner.check_poison()?;
        self.inner.rotate_locked(&mut fs).map_err(|e| self.inner.set_poison(e))
    }

    /// `PURGE BINARY LOGS TO 'name'`: removes the files before `name` (never the active one,
    /// nor one a reader is on).
    pub fn purge_binary_logs_to(&self, name: &str) -> Result<binlog::files::PurgeOutcome> {
        self.inner.with_writer(|w| Ok(w.purge_to(name)?))
    }

    /// `PURGE BINARY LOGS BEFORE`: removes the files last modified before `unix_secs`.
    pub fn purge_binary_logs_before(&self, unix_secs: u64) -> Result<binlog::files::PurgeOutcome> {
        self.inner.with_writer(|w| Ok(w.purge_before_date(unix_secs)?))
    }

    /// `RESET MASTER`: deletes every binlog file, starts again at `<basename>.000001` and
    /// clears `gtid_executed` and `gtid_purged`. Serialized with commits: it holds the flush
    /// lock (no group enters the binlog meanwhile) and first waits until every group already
    /// written is committed in the engine, whose commits are then made durable. Refused (with
    /// nothing changed) while the redo still holds binlog payloads that crash recovery would
    /// copy into the new first file (binlog-in-redo, or `sync_binlog` != 1 with unsynced
    /// groups), and while a reader is on the binlog. Returns the deleted files' names.
    pub fn reset_binary_logs(&self) -> Result<Vec<String>> {
        let inner = &self.inner;
        let mut fs = inner.flush_lock.lock();
        inner.wait_settled();
        inner.check_poison()?;
        inner.sync_binlog_file().map_err(|e| inner.set_poison(e))?;
        inner.engine.flush_all().map_err(engine_error::<E>)?;
        let seq = inner.with_writer(|w| Ok(w.active_seq()))?;
        inner.release_payloads(seq + 1, 0);
        let payloads = inner
            .engine
            .read_binlog_payloads_from(inner.engine.oldest_lsn())
            .map_err(engine_error::<E>)?;
        if !payloads.is_empty() {
            return Err(Error::Inconsistent {
                what: "RESET MASTER refused: the redo log still holds binlog payloads \
                       (binlog_in_redo=ON or sync_binlog != 1); restart the server with \
                       binlog_in_redo=OFF and sync_binlog=1 first",
                seq,
                pos: 0,
            });
        }
        // The engine's copy first: a crash between the two leaves the binlog as it was and an
        // emptied engine set, a subset of it (never a refusal at the next start).
        inner.engine.reset_gtid_executed().map_err(engine_error::<E>)?;
        let deleted = inner.with_writer(|w| Ok(w.reset()?))?;
        inner.gtids.reset();
        let (file, position) = inner.with_writer(|w| Ok((w.active_file(), w.write_pos())))?;
        *inner.published.lock() =
            super::BinlogSnapshot { file, position, gtid_executed: binlog::gtid::GtidSet::new() };
        fs.counter = 0;
        fs.offset = 0;
        fs.rotate_due = false;
        fs.deps.rotate();
        // Sequence numbers start again: so do the run-time checks that follow them (every
        // transaction written is settled, and the flush lock keeps new ones out).
        inner.flushed_seq.store(0, Ordering::Release);
        inner.synced_seq.store(0, Ordering::Release);
        inner.commit_lock.lock().last_seq = 0;
        Ok(deleted)
    }

    /// Clean shutdown: stops new groups, waits for the ones in flight, makes the engine's
    /// commits durable, then closes the binlog (STOP event, in-use flag cleared) — in that
    /// order, so a clean binlog never names a transaction the engine could lose.
    pub fn shutdown(&self) -> Result<()> {
        let inner = &self.inner;
        leaders::stop(inner);
        stop_background(inner);
        let _fs = inner.flush_lock.lock();
        inner.wait_settled();
        inner.check_poison()?;
        inner.engine.flush_all().map_err(engine_error::<E>)?;
        let writer = inner.writer.lock().take().ok_or(Error::ShutDown)?;
        writer.close()?;
        inner.set_poison(Error::ShutDown);
        inner.engine.shutdown().map_err(engine_error::<E>)
    }
}

pub(super) fn start_background<E: Engine>(inner: &Arc<Inner<E>>, interval: Duration) {
    let weak: Weak<Inner<E>> = Arc::downgrade(inner);
    let handle = std::thread::Builder::new()
        .name("binlog-sync".into())
        .spawn(move || {
            let mut last_redo_flush = Instant::now();
            loop {
                let Some(inner) = weak.upgrade() else { return };
                {
                    let mut stop = inner.bg_stop.lock();
                    if *stop {
                        return;
                    }
                    inner.bg_cv.wait_for(&mut stop, interval);
                    if *stop {
                        return;
                    }
                }
                if inner.poisoned.load(Ordering::Acquire) {
                    continue;
                }
                let step = panic::catch_unwind(AssertUnwindSafe(|| {
                    let has_pending = !inner.pending.lock().is_empty();
                    if inner.config.binlog_in_redo() || has_pending {
                        if let Err(e) = inner.sync_binlog_file() {
                            inner.set_poison(e);
                            return;
                        }
                    }
                    if inner.config.innodb_flush_log_at_trx_commit() != 1
                        && last_redo_flush.elapsed() >= BACKGROUND_REDO_FLUSH
                    {
                        last_redo_flush = Instant::now();
                        if let Err(e) = inner.engine.flush_all() {
                            inner.set_poison(engine_error::<E>(e));
                        }
                    }
                }));
                if let Err(payload) = step {
                    inner.poison_with(panic_error(&*payload));
                }
            }
        })
        .expect("spawning the binlog sync thread");
    *inner.bg_thread.lock() = Some(handle);
}

pub(super) fn stop_background<E: Engine>(inner: &Inner<E>) {
    *inner.bg_stop.lock() = true;
    inner.bg_cv.notify_all();
    if let Some(h) = inner.bg_thread.lock().take() {
        // The thread only ends by returning; a panic there already printed its message.
        let _ = h.join();
    }
}

impl<E: Engine> Drop for Inner<E> {
    fn drop(&mut self) {
        *self.bg_stop.lock() = true;
        self.bg_cv.notify_all();
    }
}
