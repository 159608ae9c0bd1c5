//! The async hand-off: a session on an async runtime prepares and enrolls without blocking
//! ([`Coordinator::commit_deferred`]), and awaits its outcome as a [`PendingCommit`]. A FLUSH
//! leader's blocking work runs on a thread that may block ([`PendingCommit::run`]) or on the
//! pipeline's lane threads ([`PendingCommit::hand_off`], `leaders.rs`).

use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use super::member::{Member, Prepared};
use super::request::{CommitRequest, GtidChoice};
use super::stage_queue::Role;
use super::{leaders, Committed, Coordinator, Inner};
use crate::engine_api::Engine;
use crate::error::{Error, Result};

/// A commit handed to the pipeline ([`Coordinator::commit_deferred`]) whose outcome is awaited
/// without a blocked thread: the transaction is prepared and queued for FLUSH. If the session
/// became the FLUSH leader, [`PendingCommit::needs_thread`] is true and
/// [`PendingCommit::run`] must be called on a thread that may block (it does the group's redo
/// and binlog writes and fsyncs); then [`PendingCommit::poll`] tells the outcome, ready only
/// once the transaction is durable per the settings and committed in the engine — the same
/// guarantee as [`Coordinator::commit`]. A follower never needs a thread: the leader's
/// thread wakes its task.
///
/// Dropping a pending commit before its outcome does not cancel it: the pipeline finishes it
/// (a dropped leader that never ran would stall its queue, so drop runs it).
pub struct PendingCommit<E: Engine> {
    inner: Arc<Inner<E>>,
    state: PendingState<E>,
}

enum PendingState<E: Engine> {
    /// Group commit OFF: the serialized path, all of it blocking, runs in `run`.
    Serial(Vec<CommitRequest<E::Txn>>),
    /// The FLUSH leader, its stages not yet run; `Instant`: when it enrolled.
    Leader(Arc<Member<E>>, Instant),
    /// Waiting for the pipeline.
    Queued(Arc<Member<E>>),
    /// Known already (read-only, refused, or taken).
    Ready(Option<Result<Committed>>),
}

impl<E: Engine> Coordinator<E> {
    /// [`Coordinator::commit`] for an async caller: prepares the transaction and enrolls it in
    /// the FLUSH queue without waiting. See [`PendingCommit`].
    pub fn commit_deferred(&self, req: CommitRequest<E::Txn>) -> PendingCommit<E> {
        let inner = self.inner.clone();
        if let GtidChoice::Assigned(owned) = &req.gtid {
            if !inner.gtids.is_owner(owned) {
                let e = inner.refuse_not_owned(req);
                return PendingCommit { inner, state: PendingState::Ready(Some(Err(e))) };
            }
        }
        if !inner.config.binlog_group_commit() {
            return PendingCommit { inner, state: PendingState::Serial(vec![req]) };
        }
        if let Err(e) = inner.check_poison() {
            let _ = inner.engine.rollback(req.txn);
            return PendingCommit { inner, state: PendingState::Ready(Some(Err(e))) };
        }
        let state = match inner.prepare(req) {
            Ok(Prepared::Member(m)) => {
                let t = Instant::now();
                if inner.flush_q.enroll(vec![m.clone()]) == Role::Leader {
                    PendingState::Leader(m, t)
                } else {
                    PendingState::Queued(m)
                }
            }
            Ok(Prepared::ReadOnly(info)) => PendingState::Ready(Some(Ok(info))),
            Err(e) => PendingState::Ready(Some(Err(e))),
        };
        PendingCommit { inner, state }
    }
}

impl<E: Engine> PendingCommit<E> {
    /// True when [`Self::run`] must be called (on a thread that may block) before the outcome
    /// can arrive.
    pub fn needs_thread(&self) -> bool {
        matches!(self.state, PendingState::Serial(_) | PendingState::Leader(..))
    }

    /// Does the blocking part: the serialized commit (group commit OFF), or the leader's
    /// stages. Does nothing when [`Self::needs_thread`] is false.
    pub fn run(&mut self) {
        let state = std::mem::replace(&mut self.state, PendingState::Ready(None));
        self.state = match state {
            PendingState::Serial(items) => PendingState::Ready(self.inner.submit(items).pop()),
            PendingState::Leader(m, t) => {
                self.inner.lead(t);
                PendingState::Queued(m)
            }
            other => other,
        };
    }

    /// The outcome once known; `Pending` stores the context's waker, woken when it is. Polling
    /// before [`Self::run`] of a leader would never complete: it returns an error instead.
    pub fn poll(&mut self, cx: &mut Context<'_>) -> Poll<Result<Committed>> {
        match &mut self.state {
            PendingState::Queued(m) => {
                let m = m.clone();
                let r = self.inner.poll_done(&m, cx.waker());
                if r.is_ready() {
                    self.state = PendingState::Ready(None);
                }
                r
            }
            PendingState::Ready(r) => Poll::Ready(r.take().unwrap_or(Err(Error::ShutDown))),
            PendingState::Serial(_) | PendingState::Leader(..) => Poll::Ready(Err(Error::ShutDown)),
        }
    }

    /// Leaves the leader's work to the pipeline's FLUSH thread instead of running it here (see
    /// the `leaders` module): afterwards the outcome arrives through [`Self::poll`] as a
    /// follower's does. False when there is nothing to hand off (not a leader) or the
    /// pipeline's threads are stopped; then [`Self::needs_thread`] still tells whether
    /// [`Self::run`] is needed.
    pub fn hand_off(&mut self) -> bool {
        let PendingState::Leader(_, t) = &self.state else { return false };
        if !leaders::hand_off(&self.inner, *t) {
            return false;
        }
        let state = std::mem::replace(&mut self.state, PendingState::Ready(None));
        if let PendingState::Leader(m, _) = state {
            self.state = PendingState::Queued(m);
        }
        true
    }

    /// Blocks until the outcome is known (runs the leader's work first if needed).
    pub fn wait(mut self) -> Result<Committed> {
        self.run();
        let state = std::mem::replace(&mut self.state, PendingState::Ready(None));
        match state {
            PendingState::Queued(m) => self.inner.wait_done(&m),
            PendingState::Ready(r) => r.unwrap_or(Err(Error::ShutDown)),
            PendingState::Serial(_) | PendingState::Leader(..) => Err(Error::ShutDown),
        }
    }
}

impl<E: Engine> Drop for PendingCommit<E> {
    fn drop(&mut self) {
        // A leader that never ran would leave its queue without a leader forever.
        if self.needs_thread() {
            self.run();
        }
    }
}

impl<E: Engine> std::fmt::Debug for PendingCommit<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingCommit").field("needs_thread", &self.needs_thread()).finish()
    }
}
