//! A transaction in the pipeline ([`Member`]) and how its session waits for the outcome:
//! blocked on the member's condvar ([`Inner::wait_done`]) or as a task polling it
//! ([`Inner::poll_done`]). The leader that finishes a member stores its outcome under the
//! member's mutex and then wakes it once (`signal_done`, as mysqld's
//! `Commit_stage_manager::signal_done` after `process_commit_stage_queue`), so a wake-up is
//! never lost and a follower never wakes into a mutex the leader still holds.

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Poll, Waker};
use std::time::{Duration, Instant};

use binlog::gtid::Gtid;
use parking_lot::{Condvar, Mutex};

use super::{Committed, Inner, QueryContext};
use crate::engine_api::Engine;
use crate::error::{Error, Result};
use crate::stats::{CyclePart, Stage};
use crate::writeset::WriteSet;

/// What a prepared member logs: its XID, the LSN its prepare record ends at, and its events.
pub(super) enum PreparedWork {
    /// `writeset` and `session` (0: none) are for WRITESET dependency tracking.
    /// `context`: the session's values for the `BEGIN` QUERY event (None: the defaults).
    Dml {
        xid: u64,
        prepare_lsn: u64,
        rows: Vec<u8>,
        db: String,
        writeset: WriteSet,
        session: u64,
        context: Option<Arc<QueryContext>>,
    },
    /// A DDL transaction: its schema changes are prepared in the engine with `xid`, which
    /// its QUERY event carries (`ddl_xid`) for recovery to find.
    Ddl {
        xid: u64,
        prepare_lsn: u64,
        db: String,
        query: String,
        context: Option<Arc<QueryContext>>,
        /// CREATE TABLE ... SELECT: the rows' events, logged after the QUERY and ended by an
        /// XID event (the QUERY then carries no `ddl_xid`: the XID event names the xid).
        rows: Option<Vec<u8>>,
    },
}

/// Where a member's outcome stands.
pub(super) enum Outcome {
    /// Not known yet: the session waits.
    Pending,
    /// `binlog_order_commits=OFF`: durable in the binlog; the session commits itself.
    SelfCommit,
    Done(Result<Committed>),
    /// The session took its outcome (`wait_done` / `poll_done`): distinct from `Pending`, so
    /// a leader failing a group after a panic knows which members still wait.
    Taken,
}

/// A member's state, under its mutex: the leaders of the stages fill it in.
pub(super) struct MemberState<E: Engine> {
    pub(super) txn: Option<E::Txn>,
    pub(super) work: PreparedWork,
    pub(super) explicit: Option<(Gtid, u64)>,
    /// Absolute `m_max_committed_transaction` when the transaction prepared.
    pub(super) last_committed_abs: i64,
    pub(super) sequence_abs: i64,
    pub(super) info: Option<Committed>,
    pub(super) written: bool,
    pub(super) outcome: Outcome,
    /// The task awaiting this member through a [`super::PendingCommit`], woken with `done`.
    pub(super) waker: Option<Waker>,
}

/// A transaction in the pipeline: a session's place in the stage queues.
pub(super) struct Member<E: Engine> {
    pub(super) start: Instant,
    /// When the COMMIT leader woke it (ns since `Inner::epoch`; 0: not yet), for the
    /// wake-up part of the cycle statistics.
    pub(super) signaled_ns: AtomicU64,
    pub(super) st: Mutex<MemberState<E>>,
    pub(super) done: Condvar,
}

/// What `prepare` made of a request: a member for the stages, or a read-only transaction
/// already committed (nothing to log).
pub(super) enum Prepared<E: Engine> {
    Member(Arc<Member<E>>),
    ReadOnly(Committed),
}

/// Sets a member's outcome and wakes whoever waits for it: a thread in `wait_done` (the
/// condvar) or a task polling a [`super::PendingCommit`] (its waker).
pub(super) fn complete<E: Engine>(m: &Member<E>, st: &mut MemberState<E>, outcome: Outcome) {
    st.outcome = outcome;
    m.done.notify_one();
    if let Some(w) = st.waker.take() {
        w.wake();
    }
}

/// Wakes the members of a group whose outcomes [`Inner::commit_stage`] set: one wake-up per
/// member, outside every stage lock and outside the members' own mutexes (a waiter checks its
/// outcome under its mutex before it sleeps, and the outcome was stored under that mutex, so
/// no wake-up is lost), so a woken follower does not block again on a mutex the leader holds.
pub(super) fn signal_done<E: Engine>(
    group: &[Arc<Member<E>>],
    wakers: Vec<Option<Waker>>,
    epoch: Instant,
) {
    for (m, w) in group.iter().zip(wakers) {
        m.signaled_ns.store((epoch.elapsed().as_nanos() as u64).max(1), Ordering::Relaxed);
        m.done.notify_one();
        if let Some(w) = w {
            w.wake();
        }
    }
}

impl<E: Engine> Inner<E> {
    /// Blocks until the member's outcome is known and takes it (a follower's wait in
    /// `enroll_for`; with `binlog_order_commits=OFF` the session then commits itself).
    pub(super) fn wait_done(&self, m: &Arc<Member<E>>) -> Result<Committed> {
        let t = Instant::now();
        let mut st = m.st.lock();
        let mut slept = false;
        loop {
            match std::mem::replace(&mut st.outcome, Outcome::Taken) {
                Outcome::Done(r) => {
                    self.stats.waited(Stage::Commit, t.elapsed());
                    if slept {
                        self.record_wake(m);
                    }
                    return r;
                }
                Outcome::SelfCommit => return self.self_commit(m, &mut st),
                Outcome::Pending => {
                    st.outcome = Outcome::Pending;
                    slept = true;
                    m.done.wait(&mut st)
                }
                // One waiter per member: taken twice is a bug, answered, not hung on.
                Outcome::Taken => return Err(Error::ShutDown),
            }
        }
    }

    /// `binlog_order_commits=OFF`: the session's own engine commit (buffered work, no wait)
    /// once its bytes are durable. A panic here poisons the pipeline like one in a stage, and
    /// the member is settled either way, so rotation and shutdown do not wait for it forever.
    fn self_commit(&self, m: &Member<E>, st: &mut MemberState<E>) -> Result<Committed> {
        let mut published = self.published.lock();
        let r = match panic::catch_unwind(AssertUnwindSafe(|| self.finish_member(st))) {
            Ok(r) => {
                if let Ok(c) = &r {
                    super::stages::publish_one(&mut published, c);
                }
                r
            }
            Err(payload) => {
                if let Some(t) = st.txn.take() {
                    self.engine.abandon(t);
                }
                Err(Error::poisoned(&self.poison_with(super::poison::panic_error(&*payload))))
            }
        };
        drop(published);
        self.settle(1);
        self.stats.record_latencies(&[m.start.elapsed()]);
        r
    }

    /// Adds the time from the COMMIT leader's wake-up call for `m` to now (the member's
    /// session running again) to the cycle statistics.
    pub(super) fn record_wake(&self, m: &Member<E>) {
        let signaled = m.signaled_ns.load(Ordering::Relaxed);
        if signaled > 0 {
            let now = self.epoch.elapsed().as_nanos() as u64;
            self.stats.cycle(CyclePart::Wake, Duration::from_nanos(now.saturating_sub(signaled)));
        }
    }

    /// [`Self::wait_done`] for a task: ready when the member's outcome is known, otherwise the
    /// waker is stored for [`complete`] to wake.
    pub(super) fn poll_done(&self, m: &Arc<Member<E>>, waker: &Waker) -> Poll<Result<Committed>> {
        let mut st = m.st.lock();
        match std::mem::replace(&mut st.outcome, Outcome::Taken) {
            Outcome::Done(r) => {
                self.record_wake(m);
                Poll::Ready(r)
            }
            Outcome::SelfCommit => Poll::Ready(self.self_commit(m, &mut st)),
            Outcome::Pending => {
                st.outcome = Outcome::Pending;
                if !st.waker.as_ref().is_some_and(|w| w.will_wake(waker)) {
                    st.waker = Some(waker.clone());
                }
                Poll::Pending
            }
            Outcome::Taken => Poll::Ready(Err(Error::ShutDown)),
        }
    }
}
