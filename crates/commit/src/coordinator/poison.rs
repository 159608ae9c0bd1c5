//! Failures: the first one poisons the pipeline, and every member it touches is answered.
//!
//! A failed redo flush, binlog write, binlog fsync or engine commit poisons the pipeline
//! ([`Inner::poison_with`]): the failing group and every later commit get
//! [`Error::Poisoned`] naming the first failure; prepared transactions of a failed group are
//! abandoned (not rolled back: the binlog may hold them) for recovery to decide. mysqld
//! aborts the server instead (`binlog_error_action=ABORT_SERVER`); here the server stays up
//! to answer and waits for a restart.
//!
//! A panic in stage work is the same kind of failure ([`Inner::guard`]): caught where the
//! stage runs, it poisons the pipeline with [`Error::Panicked`] and completes every member
//! the panicking leader had in hand with that error, waking each (thread or task) — without
//! it, a panicking leader would leave its followers on their condvars forever. The module
//! doc of `coordinator.rs` and docs/commit.md say why we unwind instead of aborting.

use std::any::Any;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::member::{complete, Member, Outcome};
use super::Inner;
use crate::engine_api::Engine;
use crate::error::{Error, Result};

/// The error a caught panic becomes: the thread it happened on and its message.
pub(super) fn panic_error(payload: &(dyn Any + Send)) -> Error {
    let message = if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_string()
    };
    let thread = std::thread::current().name().unwrap_or("unnamed").to_string();
    Error::Panicked { thread, message }
}

impl<E: Engine> Inner<E> {
    /// The poisoned error, if an earlier failure poisoned the pipeline (one atomic load when
    /// not).
    pub(super) fn check_poison(&self) -> Result<()> {
        if self.poisoned.load(Ordering::Acquire) {
            if let Some(cause) = self.poison.lock().as_ref() {
                return Err(Error::poisoned(cause));
            }
        }
        Ok(())
    }

    /// Records the first failure; returns the error for the caller (as Poisoned).
    pub(super) fn set_poison(&self, e: Error) -> Error {
        Error::poisoned(&self.poison_with(e))
    }

    /// Records the first failure and returns it (the cause every later error names).
    pub(super) fn poison_with(&self, e: Error) -> Arc<Error> {
        if let Error::Poisoned { cause } = e {
            self.poisoned.store(true, Ordering::Release);
            return cause;
        }
        let mut p = self.poison.lock();
        let cause = match p.as_ref() {
            Some(c) => c.clone(),
            None => {
                if !matches!(e, Error::ShutDown) {
                    log::error!("commit pipeline poisoned: {e}");
                }
                let c = Arc::new(e);
                *p = Some(c.clone());
                c
            }
        };
        self.poisoned.store(true, Ordering::Release);
        cause
    }

    /// Whether the pipeline was poisoned by a panic (then even transactions already durable
    /// in the binlog are not committed in the engine: recovery decides them).
    pub(super) fn poisoned_by_panic(&self) -> bool {
        self.poisoned.load(Ordering::Acquire)
            && matches!(self.poison.lock().as_deref(), Some(Error::Panicked { .. }))
    }

    /// Runs `work`, a stage's work for `group`, catching a panic: then the pipeline is
    /// poisoned with [`Error::Panicked`], every member of `group` still waiting is failed
    /// and woken ([`Self::fail`]), and None is returned. Free unless it unwinds.
    pub(super) fn guard<R>(&self, group: &[Arc<Member<E>>], work: impl FnOnce() -> R) -> Option<R> {
        match panic::catch_unwind(AssertUnwindSafe(work)) {
            Ok(r) => Some(r),
            Err(payload) => {
                let cause = self.poison_with(panic_error(&*payload));
                self.fail(group, &cause);
                None
            }
        }
    }

    /// Completes every member of `group` still waiting (`Outcome::Pending`) with the
    /// poisoned error and wakes it. Prepared transactions are abandoned, not rolled back: the
    /// binlog may hold them, and only recovery may decide. Members whose outcome a stage set
    /// before a panic are only woken again (their waker, if still stored, too).
    pub(super) fn fail(&self, group: &[Arc<Member<E>>], cause: &Arc<Error>) {
        let (mut written, mut failed) = (0, 0);
        for m in group {
            let mut st = m.st.lock();
            if !matches!(st.outcome, Outcome::Pending) {
                m.done.notify_one();
                if let Some(w) = st.waker.take() {
                    w.wake();
                }
                continue;
            }
            if let Some(t) = st.txn.take() {
                self.engine.abandon(t);
            }
            if let Some((g, owner)) = st.explicit.take() {
                self.gtids.release(g, owner);
            }
            if st.written {
                written += 1;
            }
            failed += 1;
            complete(m, &mut st, Outcome::Done(Err(Error::poisoned(cause))));
        }
        self.stats.failed_commits.fetch_add(failed, Ordering::Relaxed);
        self.settle(written);
    }
}
