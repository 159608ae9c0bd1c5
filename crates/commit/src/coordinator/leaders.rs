//! Pipeline threads that lead the FLUSH (and, in classic 2PC, the SYNC) stage for sessions
//! that run on an async runtime.
//!
//! In mysqld every session is a thread, and the first thread to reach an empty FLUSH queue
//! leads the stage for everyone queued behind it (`MYSQL_BIN_LOG::change_stage`,
//! sql/binlog.cc). A session here is a task on one of a few runtime workers, and a FLUSH
//! leader's work blocks (redo and binlog writes, fdatasync): before this module the session
//! ran it under `block_in_place`, so the runtime moved the worker's other connections to
//! another OS thread for every group, and the next group's leader, parked on the flush lock,
//! had to be woken once the previous group released it. On 2 cores that hand-over was the
//! largest part of a group's cycle at 16 connections after the fdatasync itself (163 µs a
//! group: bench/RESULTS.md, "group cycle"), and at 1 024 connections the runtime grew to
//! hundreds of threads.
//!
//! Here a session that becomes the FLUSH leader leaves a job on the FLUSH lane and awaits
//! its outcome like any follower ([`super::PendingCommit::hand_off`]). One thread per lane
//! runs the jobs in turn: when a group's redo flush ends, the FLUSH thread hands the group to
//! the SYNC thread (the binlog's fdatasync in classic 2PC, nothing with `binlog_in_redo`,
//! then the COMMIT stage and the wake-ups) and takes the next job at once, with the queue that
//! filled meanwhile, so under load no thread is woken between two groups and the next
//! group's redo flush overlaps this group's binlog fdatasync and engine commits, as in
//! mysqld's pipeline. A lane thread spins for up to [`SPIN`] before it sleeps, adaptively:
//! the spin halves each time it ends without a job and grows back (doubling, from
//! [`SPIN_MIN`]) each time a job arrives while the thread sleeps within [`SPIN`] of its
//! going idle, so a lane whose jobs come every few hundred microseconds stops burning a core
//! that the sessions need (on 2 cores a failed 30 µs spin per group cost ~7 µs of CPU per
//! transaction at 16 sysbench threads: bench/RESULTS.md, "Issue 21's A/B … paid back").
//!
//! The threads start with the first job and hold only a weak reference to the pipeline; they
//! end once it is dropped or [`stop`] is called (which lets them finish the jobs already
//! left: every job is a session waiting for its outcome).

use std::collections::VecDeque;
use std::sync::{Arc, Weak};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use super::Inner;
use crate::engine_api::Engine;

/// How often an idle lane thread checks whether the pipeline is gone.
const IDLE_POLL: Duration = Duration::from_millis(200);
/// The longest a lane thread spins for the next job before it sleeps.
const SPIN: Duration = Duration::from_micros(30);
/// The spin an idle lane grows back from after its spins stopped paying.
const SPIN_MIN: Duration = Duration::from_micros(2);

/// The two lanes.
pub(super) struct Leaders {
    flush: Arc<Lane>,
    sync: Arc<Lane>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Flush,
    Sync,
}

/// One thread and its jobs: each job is the instant its leader enrolled.
struct Lane {
    kind: Kind,
    /// Jobs waiting (`state.jobs.len()`), readable without the lock.
    queued: std::sync::atomic::AtomicUsize,
    state: Mutex<LaneState>,
    ready: Condvar,
}

#[derive(Default)]
struct LaneState {
    jobs: VecDeque<Instant>,
    /// The thread is waiting on `ready` (so a new job must wake it).
    idle: bool,
    stopped: bool,
    thread: Option<JoinHandle<()>>,
}

impl Leaders {
    pub(super) fn new() -> Leaders {
        Leaders { flush: Lane::new(Kind::Flush), sync: Lane::new(Kind::Sync) }
    }
}

impl Lane {
    fn new(kind: Kind) -> Arc<Lane> {
        Arc::new(Lane {
            kind,
            queued: std::sync::atomic::AtomicUsize::new(0),
            state: Mutex::new(LaneState::default()),
            ready: Condvar::new(),
        })
    }

    /// Leaves a job; false if the lane is stopped (the caller leads on its own thread) or its
    /// thread could not be started.
    fn push<E: Engine>(self: &Arc<Self>, inner: &Arc<Inner<E>>, enrolled: Instant) -> bool {
        let mut st = self.state.lock();
        if st.stopped {
            return false;
        }
        if st.thread.is_none() {
            let weak = Arc::downgrade(inner);
            let lane = self.clone();
            let name = match self.kind {
                Kind::Flush => "binlog-flush",
                Kind::Sync => "binlog-syncer",
            };
            match std::thread::Builder::new().name(name.into()).spawn(move || lane.run(weak)) {
                Ok(h) => st.thread = Some(h),
                Err(e) => {
                    log::warn!("cannot start the {name} thread ({e}): sessions lead themselves");
                    st.stopped = true;
                    return false;
                }
            }
        }
        st.jobs.push_back(enrolled);
        self.queued.store(st.jobs.len(), std::sync::atomic::Ordering::Release);
        if st.idle {
            st.idle = false;
            self.ready.notify_one();
        }
        true
    }

    fn run<E: Engine>(self: Arc<Self>, weak: Weak<Inner<E>>) {
        let mut spin = SPIN;
        loop {
            let idle_since = Instant::now();
            let found = self.spin_for_job(spin);
            let mut slept = false;
            let job = {
                let mut st = self.state.lock();
                loop {
                    if let Some(t) = st.jobs.pop_front() {
                        self.queued.store(st.jobs.len(), std::sync::atomic::Ordering::Release);
                        break Some(t);
                    }
                    if st.stopped || weak.strong_count() == 0 {
                        break None;
                    }
                    st.idle = true;
                    slept = true;
                    self.ready.wait_for(&mut st, IDLE_POLL);
                    st.idle = false;
                }
            };
            spin = next_spin(spin, found, slept, idle_since.elapsed());
            let Some(enrolled) = job else { return };
            let Some(inner) = weak.upgrade() else { return };
            // The stages catch their own panics (failing the members they hold); anything
            // escaping them still poisons the pipeline and leaves the thread serving jobs, so
            // a job left later is answered (with the poisoned error) rather than never run.
            let job = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match self.kind {
                Kind::Flush => {
                    if inner.lead_flush(enrolled)
                        && !inner.leaders.sync.push(&inner, Instant::now())
                    {
                        inner.lead_sync();
                    }
                }
                Kind::Sync => inner.lead_sync(),
            }));
            if let Err(payload) = job {
                inner.poison_with(super::poison::panic_error(&*payload));
            }
        }
    }

    /// Waits up to `spin` for the next job without sleeping (true if one came): under load
    /// the next group's leader arrives within microseconds of the last group's end, and a
    /// thread that went to sleep would have to be woken (and scheduled) first.
    fn spin_for_job(&self, spin: Duration) -> bool {
        if self.queued.load(std::sync::atomic::Ordering::Acquire) != 0 {
            return true;
        }
        if spin.is_zero() {
            return false;
        }
        let deadline = Instant::now() + spin;
        while self.queued.load(std::sync::atomic::Ordering::Acquire) == 0 {
            if Instant::now() >= deadline {
                return false;
            }
            for _ in 0..64 {
                std::hint::spin_loop();
            }
        }
        true
    }

    fn stop(&self) {
        let handle = {
            let mut st = self.state.lock();
            st.stopped = true;
            self.ready.notify_one();
            st.thread.take()
        };
        if let Some(h) = handle {
            // The thread only ends by returning; a panic there already printed its message.
            let _ = h.join();
        }
    }
}

/// The next spin budget of a lane: after a spin that found its job, the same; after one that
/// ended without, half (down to nothing); after a sleep that a job ended within [`SPIN`] of
/// going idle (a longer spin would have caught it), double, from at least [`SPIN_MIN`].
fn next_spin(spin: Duration, found: bool, slept: bool, idle_for: Duration) -> Duration {
    if found {
        spin
    } else if slept && idle_for < SPIN {
        (spin * 2).clamp(SPIN_MIN, SPIN)
    } else if spin < SPIN_MIN {
        Duration::ZERO
    } else {
        spin / 2
    }
}

/// Leaves a FLUSH leader's job for the FLUSH thread (started on first use); false if the
/// lanes are stopped, and then the caller must lead on a thread of its own.
pub(super) fn hand_off<E: Engine>(inner: &Arc<Inner<E>>, enrolled: Instant) -> bool {
    inner.leaders.flush.push(inner, enrolled)
}

/// Stops the lanes once they have run every job already left (FLUSH first: its jobs may
/// leave SYNC jobs). Later hand-offs are refused.
pub(super) fn stop<E: Engine>(inner: &Inner<E>) {
    inner.leaders.flush.stop();
    inner.leaders.sync.stop();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spin_shrinks_when_it_misses_and_grows_when_a_job_came_soon_after() {
        let us = Duration::from_micros;
        // A spin that caught its job keeps its budget.
        assert_eq!(next_spin(SPIN, true, false, us(5)), SPIN);
        // Missed, and the job came late: halve, down to nothing.
        let mut s = SPIN;
        for _ in 0..5 {
            s = next_spin(s, false, true, us(500));
        }
        assert!(s < SPIN_MIN, "{s:?}");
        assert_eq!(next_spin(s, false, true, us(500)), Duration::ZERO);
        // Nothing left to spin, but the job came 10 µs after going idle: grow back.
        assert_eq!(next_spin(Duration::ZERO, false, true, us(10)), SPIN_MIN);
        assert_eq!(next_spin(SPIN_MIN, false, true, us(10)), SPIN_MIN * 2);
        assert_eq!(next_spin(SPIN, false, true, us(10)), SPIN);
    }
}
