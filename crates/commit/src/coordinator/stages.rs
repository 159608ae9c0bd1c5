//! The stages after a session's request: prepare (the session's own thread), then, as far
//! as the session leads them, FLUSH (`flush.rs`), SYNC and COMMIT — the walk of
//! `MYSQL_BIN_LOG::ordered_commit` (sql/binlog.cc): `process_flush_stage_queue`,
//! `sync_binlog_file`, `process_commit_stage_queue`, `signal_done`, each stage entered
//! through `change_stage` ([`super::stage_queue`]).
//!
//! Each leader's stage work runs under [`Inner::guard`]: a panic there fails and wakes the
//! members it holds instead of leaving them waiting (see `poison.rs`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::Waker;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use super::member::{complete, signal_done, Member, MemberState, Outcome, Prepared, PreparedWork};
use super::request::{CommitRequest, GtidChoice, Work};
use super::stage_queue::{change_stage, Role};
use super::{Committed, Inner};
use crate::engine_api::{engine_error, Engine};
use crate::error::{Error, Result};
use crate::gtid_state::OwnedGtid;
use crate::stats::{CyclePart, Stage};

/// Without payloads the retain LSN only needs to follow the log loosely; setting it takes
/// the redo writer's lock, so it is moved at most once per this many bytes.
const RETAIN_STEP_BYTES: u64 = 4 << 20;

/// State only the SYNC leader touches (under the sync lock).
pub(super) struct SyncState {
    /// Groups since the last fdatasync, for `sync_binlog=N`.
    pub(super) groups_unsynced: u32,
}

/// State only the COMMIT leader touches (under the commit lock).
#[derive(Default)]
pub(super) struct CommitState {
    /// The absolute sequence number last committed by a COMMIT leader (0 after RESET
    /// MASTER): the next must be greater (commit order = binlog order).
    pub(super) last_seq: i64,
}

/// How many transactions were appended to the binlog and how many of those are settled,
/// for rotation, RESET MASTER and shutdown to wait until a file's transactions are done.
#[derive(Default)]
pub(super) struct Progress {
    /// Transactions appended to the binlog.
    pub(super) written: u64,
    /// Of those, committed in the engine or given up (failed group).
    pub(super) settled: u64,
}

impl<E: Engine> Inner<E> {
    /// The ownership check of assigned GTIDs: the indexes of the requests whose GTID the
    /// caller no longer owns (one lock of the owned set for the whole submission; none
    /// without assigned GTIDs).
    pub(super) fn not_owned(&self, reqs: &[CommitRequest<E::Txn>]) -> Vec<usize> {
        fn assigned<T>(r: &CommitRequest<T>) -> Option<&OwnedGtid> {
            match &r.gtid {
                GtidChoice::Assigned(o) => Some(o),
                GtidChoice::Automatic => None,
            }
        }
        if !reqs.iter().any(|r| assigned(r).is_some()) {
            return Vec::new();
        }
        self.gtids.not_owned(reqs.iter().map(assigned))
    }

    /// Prepares each request on this thread, enrolls the members in the FLUSH queue together,
    /// leads as far as it is the leader and waits for each outcome.
    pub(super) fn submit(&self, reqs: Vec<CommitRequest<E::Txn>>) -> Vec<Result<Committed>> {
        let refused = self.not_owned(&reqs);
        let serial = (!self.config.binlog_group_commit()).then(|| self.serial.lock());
        let mut results: Vec<Option<Result<Committed>>> = Vec::with_capacity(reqs.len());
        let mut members = Vec::new();
        let mut slots = Vec::new();
        for (i, req) in reqs.into_iter().enumerate() {
            if refused.contains(&i) {
                results.push(Some(Err(self.refuse_not_owned(req))));
                continue;
            }
            if let Err(e) = self.check_poison() {
                let _ = self.engine.rollback(req.txn);
                results.push(Some(Err(e)));
                continue;
            }
            match self.prepare(req) {
                Ok(Prepared::Member(m)) => {
                    slots.push(results.len());
                    results.push(None);
                    members.push(m);
                }
                Ok(Prepared::ReadOnly(info)) => results.push(Some(Ok(info))),
                Err(e) => results.push(Some(Err(e))),
            }
        }
        if !members.is_empty() {
            self.ordered_commit(members.clone());
            for (m, slot) in members.iter().zip(slots) {
                results[slot] = Some(self.wait_done(m));
            }
        }
        drop(serial);
        results.into_iter().map(|r| r.unwrap_or(Err(Error::ShutDown))).collect()
    }

    /// Rolls back a request whose assigned GTID the caller no longer owns; its error.
    pub(super) fn refuse_not_owned(&self, req: CommitRequest<E::Txn>) -> Error {
        let _ = self.engine.rollback(req.txn);
        match req.gtid {
            GtidChoice::Assigned(owned) => Error::GtidNotOwned { gtid: owned.gtid },
            GtidChoice::Automatic => Error::ShutDown,
        }
    }

    /// The engine's prepare of `t` under `xid`, or `t` rolled back and the engine's error.
    fn prepare_or_roll_back(&self, mut t: E::Txn, xid: u64) -> Result<(E::Txn, u64)> {
        match self.engine.prepare(&mut t, xid) {
            Ok(lsn) => Ok((t, lsn)),
            Err(e) => {
                let _ = self.engine.rollback(t);
                Err(engine_error::<E>(e))
            }
        }
    }

    /// 2PC prepare (the session's thread, before any queue): the XID, the commit parent
    /// (`last_committed`, read before the prepare, as `binlog_prepare` does), the engine's
    /// buffered prepare record and the session's events.
    pub(super) fn prepare(&self, req: CommitRequest<E::Txn>) -> Result<Prepared<E>> {
        let last_committed_abs = self.max_committed.load(Ordering::Acquire);
        let CommitRequest { txn, work, gtid, context } = req;
        let explicit = match gtid {
            GtidChoice::Assigned(owned) => Some((owned.gtid, owned.owner)),
            GtidChoice::Automatic => None,
        };
        let (txn, work) = match (txn, work) {
            (t, Work::Rows(cache)) if cache.is_empty() && E::is_read_only(&t) => {
                self.engine.commit(t).map_err(engine_error::<E>)?;
                return Ok(Prepared::ReadOnly(Committed {
                    gtid: None,
                    file: String::new(),
                    end_pos: 0,
                    last_committed: 0,
                    sequence_number: 0,
                }));
            }
            (t, Work::Rows(mut cache)) => {
                let xid = self.next_xid.fetch_add(1, Ordering::Relaxed);
                let db = cache.db().to_string();
                let (writeset, session) = cache.take_writes();
                let rows = match cache.finish() {
                    Ok(r) => r,
                    Err(e) => {
                        let _ = self.engine.rollback(t);
                        return Err(e);
                    }
                };
                let (t, prepare_lsn) = self.prepare_or_roll_back(t, xid)?;
                (
                    Some(t),
                    PreparedWork::Dml { xid, prepare_lsn, rows, db, writeset, session, context },
                )
            }
            (t, Work::Ddl { db, query }) => {
                let xid = self.next_xid.fetch_add(1, Ordering::Relaxed);
                let (t, prepare_lsn) = self.prepare_or_roll_back(t, xid)?;
                (Some(t), PreparedWork::Ddl { xid, prepare_lsn, db, query, context, rows: None })
            }
            (t, Work::DdlRows { db, query, cache }) => {
                let xid = self.next_xid.fetch_add(1, Ordering::Relaxed);
                let rows = match cache.finish() {
                    Ok(r) => r,
                    Err(e) => {
                        let _ = self.engine.rollback(t);
                        return Err(e);
                    }
                };
                let (t, prepare_lsn) = self.prepare_or_roll_back(t, xid)?;
                let rows = Some(rows);
                (Some(t), PreparedWork::Ddl { xid, prepare_lsn, db, query, context, rows })
            }
        };
        Ok(Prepared::Member(Arc::new(Member {
            start: Instant::now(),
            signaled_ns: AtomicU64::new(0),
            st: Mutex::new(MemberState {
                txn,
                work,
                explicit,
                last_committed_abs,
                sequence_abs: 0,
                info: None,
                written: false,
                outcome: Outcome::Pending,
                waker: None,
            }),
            done: Condvar::new(),
        })))
    }

    /// Runs the stages for `members` as far as this thread leads; followers return at once
    /// and wait in [`Self::wait_done`].
    pub(super) fn ordered_commit(&self, members: Vec<Arc<Member<E>>>) {
        let t = Instant::now();
        if self.flush_q.enroll(members) == Role::Leader {
            self.lead(t);
        }
    }

    /// The work of a session that found the FLUSH queue empty: leads the FLUSH stage for the
    /// whole queue, then the next stages as far as it leads them. `t`: when it enrolled.
    pub(super) fn lead(&self, t: Instant) {
        if self.lead_flush(t) {
            self.lead_sync();
        }
    }

    /// The FLUSH stage of [`Self::lead`]; true when the group it wrote found the SYNC queue
    /// empty, so the caller must lead SYNC ([`Self::lead_sync`]) for it.
    pub(super) fn lead_flush(&self, t: Instant) -> bool {
        let mut fs = self.flush_lock.lock();
        let mut group = self.flush_q.fetch();
        let max_wait_us = self.config.binlog_max_flush_queue_time_us();
        if max_wait_us > 0 {
            // MySQL 5.6: keep taking late arrivals while they come, up to the time limit.
            let deadline = Instant::now() + Duration::from_micros(max_wait_us);
            while Instant::now() < deadline {
                let more = self.flush_q.fetch();
                if more.is_empty() {
                    break;
                }
                group.extend(more);
            }
        }
        let flushed = self.guard(&group, || {
            self.stats.waited(Stage::Flush, t.elapsed());
            if let Some(prev) = fs.last_end {
                self.stats.cycle(CyclePart::Gap, prev.elapsed());
            }
            self.flush_stage(&mut fs, &group)
        });
        fs.last_end = Some(Instant::now());
        if flushed != Some(true) {
            return false;
        }
        change_stage(&self.sync_q, group, fs) == Role::Leader
    }

    /// The SYNC stage and then the COMMIT stage as far as this thread leads them, for the
    /// groups in the SYNC queue.
    pub(super) fn lead_sync(&self) {
        let t = Instant::now();
        let mut ss = self.sync_lock.lock();
        self.sync_delay();
        let group = self.sync_q.fetch();
        // Every member fetched was appended at or before this sequence number; a later group
        // appended by then is synced too (its bytes precede the sync target).
        let flushed = self.flushed_seq.load(Ordering::Acquire);
        let synced = self.guard(&group, || {
            self.stats.waited(Stage::Sync, t.elapsed());
            self.stats.group(Stage::Sync, group.len());
            let t = Instant::now();
            let synced = self.sync_stage(&mut ss);
            self.stats.cycle(CyclePart::Sync, t.elapsed());
            match synced {
                Ok(()) => {
                    self.synced_seq.fetch_max(flushed, Ordering::AcqRel);
                    true
                }
                Err(e) => {
                    let cause = self.poison_with(e);
                    self.fail(&group, &cause);
                    false
                }
            }
        });
        if synced != Some(true) {
            return;
        }
        if self.config.binlog_order_commits() {
            if change_stage(&self.commit_q, group, ss) == Role::Leader {
                self.lead_commit();
            }
        } else {
            drop(ss);
            self.guard(&group, || {
                for m in &group {
                    let mut st = m.st.lock();
                    complete(m, &mut st, Outcome::SelfCommit);
                }
            });
        }
    }

    /// The COMMIT stage for the groups in the commit queue, then the wake-ups.
    fn lead_commit(&self) {
        let t = Instant::now();
        let mut cs = self.commit_lock.lock();
        let group = self.commit_q.fetch();
        self.stats.waited(Stage::Commit, t.elapsed());
        let t = Instant::now();
        let mut wakers = Vec::with_capacity(group.len());
        if self.guard(&group, || self.commit_stage(&mut cs, &group, &mut wakers)).is_none() {
            // The members committed before the panic are settled here (the rest by `fail`).
            self.settle(wakers.len() as u64);
        }
        self.stats.cycle(CyclePart::Commit, t.elapsed());
        drop(cs);
        signal_done(&group, wakers, self.epoch);
    }

    /// `binlog_group_commit_sync_delay` / `binlog_group_commit_sync_no_delay_count`.
    pub(super) fn sync_delay(&self) {
        let delay_us = self.config.binlog_group_commit_sync_delay_us();
        if delay_us == 0 {
            return;
        }
        let count = self.config.binlog_group_commit_sync_no_delay_count() as usize;
        let deadline = Instant::now() + Duration::from_micros(delay_us);
        self.sync_q.wait_for(count, deadline);
    }

    /// The SYNC stage's work: fdatasync the binlog per `sync_binlog` (not in binlog-in-redo
    /// mode, where the redo already made the bytes durable).
    pub(super) fn sync_stage(&self, ss: &mut SyncState) -> Result<()> {
        self.check_poison()?;
        if self.config.binlog_in_redo() {
            // The redo already holds the bytes durably; the background writer syncs.
            return Ok(());
        }
        let period = self.config.sync_binlog();
        if period == 0 {
            return Ok(());
        }
        ss.groups_unsynced += 1;
        if ss.groups_unsynced < period {
            return Ok(());
        }
        ss.groups_unsynced = 0;
        self.sync_binlog_file()
    }

    /// fdatasync of the active binlog file without holding the writer, then publication of
    /// the synced end and release of the redo payloads it covers.
    pub(super) fn sync_binlog_file(&self) -> Result<()> {
        let target = self.with_writer(|w| Ok(w.sync_target()?))?;
        if target.end <= self.with_writer(|w| Ok(w.synced_pos()))? {
            return Ok(());
        }
        let outcome = target.file.sync_data();
        if outcome.is_ok() {
            self.stats.binlog_fsyncs.fetch_add(1, Ordering::Relaxed);
        }
        let (seq, end) = (target.seq, target.end);
        self.with_writer(|w| Ok(w.complete_sync(target, outcome)?))?;
        self.release_payloads(seq, end);
        Ok(())
    }

    /// The binlog is synced through (`seq`, `end`): payloads it covers may be recycled.
    pub(super) fn release_payloads(&self, seq: u64, end: u64) {
        let mut p = self.pending.lock();
        let before = p.len();
        while p.front().is_some_and(|f| f.seq < seq || (f.seq == seq && f.end <= end)) {
            p.pop_front();
        }
        let retain = match p.front() {
            Some(f) => f.lsn,
            None => self.engine.next_lsn(),
        };
        let old = self.retain_lsn.load(Ordering::Relaxed);
        if retain > old && (p.len() != before || retain - old >= RETAIN_STEP_BYTES) {
            self.retain_lsn.store(retain, Ordering::Relaxed);
            drop(p);
            self.engine.set_retain_lsn(retain);
        }
    }

    /// Commits the group in the engine in queue order and records each outcome, waking
    /// nobody: the caller releases the commit lock, then calls [`signal_done`]. As in mysqld
    /// (`process_commit_stage_queue` under LOCK_commit, `signal_done` for the whole queue
    /// after it), the engine commits of a group are not interleaved with wake-ups: each
    /// wake-up lets a follower preempt the leader on this core, and on a busy machine the
    /// leader would then wait behind every runnable thread with the rest of its group's
    /// row locks and the commit lock still held. Pushes the members' task wakers to `wakers`
    /// as it goes (one per member committed), so a panic part-way loses none.
    pub(super) fn commit_stage(
        &self,
        cs: &mut CommitState,
        group: &[Arc<Member<E>>],
        wakers: &mut Vec<Option<Waker>>,
    ) {
        self.stats.group(Stage::Commit, group.len());
        if self.poisoned_by_panic() {
            // Durable in the binlog, but the engine may be in any state: recovery decides.
            if let Err(Error::Poisoned { cause }) = self.check_poison() {
                self.fail(group, &cause);
                return;
            }
        }
        let mut latencies = Vec::with_capacity(group.len());
        // The group becomes visible to readers once, after its engine commits, with the
        // publication lock held throughout (see `BinlogSnapshot`).
        let mut published = self.published.lock();
        for m in group {
            let mut st = m.st.lock();
            // Commit order = binlog order (`change_stage` keeps the groups' order).
            assert!(
                st.sequence_abs > cs.last_seq,
                "commit stage: sequence number {} after {}",
                st.sequence_abs,
                cs.last_seq
            );
            cs.last_seq = st.sequence_abs;
            let r = self.finish_member(&mut st);
            if let Ok(c) = &r {
                publish_one(&mut published, c);
            }
            latencies.push(m.start.elapsed());
            st.outcome = Outcome::Done(r);
            wakers.push(st.waker.take());
        }
        drop(published);
        self.settle(group.len() as u64);
        self.stats.record_latencies(&latencies);
    }

    /// The engine commit of a member whose binlog bytes are durable.
    pub(super) fn finish_member(&self, st: &mut MemberState<E>) -> Result<Committed> {
        // The clock advances before the engine commit releases the row locks, as mysqld's
        // `process_commit_stage_queue` calls `update_max_committed` before
        // `finish_transaction_in_engines`: a transaction that waited for one of these locks
        // prepares only after they are released, so it reads a `last_committed` that
        // includes this one, and a replica never applies the two in parallel.
        // Written, then passed by the SYNC stage, then committed: checked in every build.
        assert!(st.written, "engine commit of a transaction not written to the binlog");
        assert!(
            st.sequence_abs <= self.synced_seq.load(Ordering::Acquire),
            "engine commit of sequence number {} before the SYNC stage passed it",
            st.sequence_abs
        );
        self.max_committed.fetch_max(st.sequence_abs, Ordering::AcqRel);
        if let Some(mut t) = st.txn.take() {
            if let Some(g) = st.info.as_ref().and_then(|c| c.gtid) {
                self.engine.set_commit_gtid(&mut t, g);
            }
            if let Err(e) = self.engine.commit(t) {
                self.stats.failed_commits.fetch_add(1, Ordering::Relaxed);
                return Err(self.set_poison(engine_error::<E>(e)));
            }
        }
        if let Some((g, owner)) = st.explicit.take() {
            self.gtids.release(g, owner);
        }
        self.stats.commits.fetch_add(1, Ordering::Relaxed);
        st.info.take().ok_or(Error::ShutDown)
    }

    /// `n` transactions written to the binlog are committed in the engine or given up.
    pub(super) fn settle(&self, n: u64) {
        if n > 0 {
            let mut p = self.progress.lock();
            p.settled += n;
            if p.settled >= p.written {
                self.settled_cv.notify_all();
            }
        }
    }

    /// Waits until every transaction written to the binlog is committed in the engine or
    /// given up (the caller holds the flush lock, so no new ones are written).
    pub(super) fn wait_settled(&self) {
        let mut p = self.progress.lock();
        while p.settled < p.written {
            self.settled_cv.wait(&mut p);
        }
    }
}

/// Adds one transaction committed in the engine to what readers see: its GTID, and the
/// position past it (commit order is binlog order, so this only moves forward).
pub(super) fn publish_one(p: &mut super::BinlogSnapshot, c: &Committed) {
    if let Some(g) = c.gtid {
        p.gtid_executed.add(g);
    }
    if c.file > p.file || (c.file == p.file && c.end_pos > p.position) {
        p.file.clone_from(&c.file);
        p.position = c.end_pos;
    }
}
