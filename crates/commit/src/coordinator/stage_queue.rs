//! The leader/follower stage queue of MySQL 8.0's group commit
//! (`Commit_stage_manager::enroll_for`, `fetch_queue_for`, and the ordering rule of
//! `MYSQL_BIN_LOG::change_stage`, sql/rpl_commit_stage_manager.cc and sql/binlog.cc), on its
//! own so the rule that makes commit order equal binlog order can be read and tested apart
//! from the pipeline.
//!
//! - [`StageQueue::enroll`]: a session (or a whole group) joins the end of a stage's queue.
//!   Whoever finds the queue empty is the stage's **leader**: it takes the stage's lock, then
//!   the whole queue ([`StageQueue::fetch`]) and does the stage's work for everyone in it.
//!   Whoever finds it non-empty is a **follower**: someone ahead of it will fetch it, so it
//!   only waits for its outcome (the waiting is the member's business, not the queue's).
//! - [`change_stage`]: a leader enrolls its group in the next stage's queue *before* it
//!   releases the current stage's lock. The next group cannot fetch the current stage before
//!   that, so groups enter every stage in the order they left the previous one.
//!
//! Invariants (tested below): exactly one leader per non-empty queue (the first to enroll);
//! every member enrolled is fetched exactly once, in enrollment order; with [`change_stage`]
//! the order of groups is the same in every stage.
//!
//! Cost per enroll: one uncontended mutex and a condvar notify (a no-op without waiters).

use std::time::Instant;

use parking_lot::{Condvar, Mutex};

/// What [`StageQueue::enroll`] made of the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub(super) enum Role {
    /// The queue was empty: the caller fetches it and leads the stage.
    Leader,
    /// Someone ahead will fetch the caller's members: it waits for their outcome.
    Follower,
}

/// One stage's queue.
pub(super) struct StageQueue<T> {
    queue: Mutex<Vec<T>>,
    /// Signalled at each enroll, for a leader waiting for more members
    /// ([`StageQueue::wait_for`], `binlog_group_commit_sync_delay`).
    arrived: Condvar,
}

impl<T> StageQueue<T> {
    pub(super) fn new() -> Self {
        StageQueue { queue: Mutex::new(Vec::new()), arrived: Condvar::new() }
    }

    /// Appends `group` (in its order) to the queue (`enroll_for`). The caller leads if the
    /// queue was empty.
    pub(super) fn enroll(&self, group: Vec<T>) -> Role {
        let mut q = self.queue.lock();
        let role = if q.is_empty() {
            // Reuse the caller's vector: no copy, no allocation.
            *q = group;
            Role::Leader
        } else {
            q.extend(group);
            Role::Follower
        };
        self.arrived.notify_all();
        role
    }

    /// Takes the whole queue, oldest first (`fetch_queue_for`); the next enroll leads.
    pub(super) fn fetch(&self) -> Vec<T> {
        std::mem::take(&mut *self.queue.lock())
    }

    /// Waits until `count` members are queued (0: no count) or `deadline` passes
    /// (`binlog_group_commit_sync_delay` / `_no_delay_count`).
    pub(super) fn wait_for(&self, count: usize, deadline: Instant) {
        let mut q = self.queue.lock();
        while count == 0 || q.len() < count {
            if self.arrived.wait_until(&mut q, deadline).timed_out() {
                break;
            }
        }
    }
}

/// `change_stage`: enrolls `group` in the `next` stage's queue while `held`, the guard of the
/// current stage's lock, is still held, then releases it. Returns the caller's role in the
/// next stage.
pub(super) fn change_stage<T, G>(next: &StageQueue<T>, group: Vec<T>, held: G) -> Role {
    let role = next.enroll(group);
    drop(held);
    role
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::time::Duration;

    use super::*;

    #[test]
    fn the_first_to_enroll_in_an_empty_queue_leads() {
        let q = StageQueue::new();
        assert_eq!(q.enroll(vec![1]), Role::Leader);
        assert_eq!(q.enroll(vec![2, 3]), Role::Follower);
        assert_eq!(q.enroll(vec![4]), Role::Follower);
        assert_eq!(q.fetch(), vec![1, 2, 3, 4], "the whole queue, in enrollment order");
        assert!(q.fetch().is_empty());
        assert_eq!(q.enroll(vec![5]), Role::Leader, "after a fetch the next one leads");
    }

    #[test]
    fn change_stage_enrolls_before_it_releases_the_lock() {
        let lock = Mutex::new(());
        let next = StageQueue::new();
        let held = lock.lock();
        assert_eq!(change_stage(&next, vec!["a"], held), Role::Leader);
        assert!(lock.try_lock().is_some(), "the stage lock was released");
        let held = lock.lock();
        assert_eq!(change_stage(&next, vec!["b"], held), Role::Follower);
        assert_eq!(next.fetch(), vec!["a", "b"]);
    }

    #[test]
    fn wait_for_returns_at_the_count_or_the_deadline() {
        let q = Arc::new(StageQueue::new());
        let t = Instant::now();
        q.wait_for(2, Instant::now() + Duration::from_millis(20));
        assert!(t.elapsed() >= Duration::from_millis(20), "nobody came: the deadline");
        let q2 = q.clone();
        let h = std::thread::spawn(move || {
            let _ = q2.enroll(vec![1]);
            let _ = q2.enroll(vec![2]);
        });
        let t = Instant::now();
        q.wait_for(2, Instant::now() + Duration::from_secs(30));
        assert!(t.elapsed() < Duration::from_secs(30), "two came: no need to wait longer");
        h.join().expect("enroller");
    }

    /// A follower's wait as the pipeline does it: a flag and a condvar per member, set by
    /// the leader that fetched it.
    struct Ticket {
        id: usize,
        done: Mutex<usize>,
        cv: Condvar,
    }

    /// Threads enroll one ticket each in stage 1; leaders run stage 1, move their group to
    /// stage 2 with [`change_stage`], and the leaders of stage 2 "complete" each ticket. Every
    /// ticket is completed exactly once, every follower wakes (no thread is left waiting), and
    /// stage 2 saw the tickets in the order stage 1 did.
    #[test]
    fn every_member_is_fetched_once_and_groups_keep_their_order_through_stages() {
        const THREADS: usize = 16;
        const PER_THREAD: usize = 200;
        let stage1 = Arc::new((StageQueue::<Arc<Ticket>>::new(), Mutex::new(Vec::new())));
        let stage2 = Arc::new((StageQueue::<Arc<Ticket>>::new(), Mutex::new(Vec::new())));
        let leaders = Arc::new(AtomicUsize::new(0));
        let handles: Vec<_> = (0..THREADS)
            .map(|th| {
                let (stage1, stage2, leaders) = (stage1.clone(), stage2.clone(), leaders.clone());
                std::thread::spawn(move || {
                    for i in 0..PER_THREAD {
                        let t = Arc::new(Ticket {
                            id: th * PER_THREAD + i,
                            done: Mutex::new(0),
                            cv: Condvar::new(),
                        });
                        if stage1.0.enroll(vec![t.clone()]) == Role::Leader {
                            leaders.fetch_add(1, Ordering::Relaxed);
                            let mut seen1 = stage1.1.lock();
                            let group = stage1.0.fetch();
                            seen1.extend(group.iter().map(|t| t.id));
                            if change_stage(&stage2.0, group, seen1) == Role::Leader {
                                let mut seen2 = stage2.1.lock();
                                let group = stage2.0.fetch();
                                seen2.extend(group.iter().map(|t| t.id));
                                drop(seen2);
                                for m in group {
                                    *m.done.lock() += 1;
                                    m.cv.notify_one();
                                }
                            }
                        }
                        let mut done = t.done.lock();
                        while *done == 0 {
                            t.cv.wait(&mut done);
                        }
                        assert_eq!(*done, 1, "completed exactly once");
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().expect("session thread");
        }
        let seen1 = stage1.1.lock().clone();
        let seen2 = stage2.1.lock().clone();
        assert_eq!(seen1.len(), THREADS * PER_THREAD);
        let mut sorted = seen1.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), THREADS * PER_THREAD, "no member fetched twice");
        assert_eq!(seen2, seen1, "stage 2 saw the groups in stage 1's order");
        assert!(leaders.load(Ordering::Relaxed) >= 1);
    }
}
