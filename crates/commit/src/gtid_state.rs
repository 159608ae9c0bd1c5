//! `gtid_executed` and the owned set (seed 003).
//!
//! - Automatic GTIDs (`server_uuid:N`) are allocated by the FLUSH leader for its whole group
//!   under one lock and go straight into `gtid_executed`: there is no owned entry and nothing
//!   to clean up at commit end. If the group's binlog write fails they are removed again.
//! - Explicit GTIDs (`SET gtid_next='uuid:N'`, the replica applier) are owned from the `SET`
//!   until commit or rollback, as MySQL's `gtid_acquire_ownership_single` does: a GTID
//!   already executed makes the transaction a silent skip; one owned by another session
//!   makes the caller wait for that session's commit or rollback, then check again.
//!
//! Lock order: `owned` before `executed`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use binlog::gtid::{Gtid, GtidSet, Sid};
use parking_lot::{Condvar, Mutex};

pub(crate) struct GtidState {
    pub sid: Sid,
    executed: Mutex<GtidSet>,
    /// Explicit GTIDs owned, by owner token.
    owned: Mutex<HashMap<Gtid, u64>>,
    released: Condvar,
    next_owner: AtomicU64,
    /// The next automatic gno to try (only the FLUSH leader allocates).
    next_gno: AtomicU64,
}

/// What `SET gtid_next = 'uuid:N'` found.
#[derive(Debug)]
pub enum GtidNext {
    /// The session owns the GTID; commit with it ([`crate::CommitRequest::with_gtid`])
    /// or give it back ([`crate::Coordinator::release_gtid`]).
    Owned(OwnedGtid),
    /// Already executed: MySQL skips the transaction silently (its statements do nothing and
    /// its COMMIT writes nothing).
    AlreadyExecuted,
}

/// Ownership of an explicit GTID; consumed by the commit or release, so a session cannot
/// commit twice with one `SET gtid_next` (MySQL's error 1837).
#[derive(Debug)]
pub struct OwnedGtid {
    pub(crate) gtid: Gtid,
    pub(crate) owner: u64,
}

impl OwnedGtid {
    pub fn gtid(&self) -> Gtid {
        self.gtid
    }
}

impl GtidState {
    pub fn new(sid: Sid, executed: GtidSet) -> GtidState {
        let next = max_gno(&executed, &sid) + 1;
        GtidState {
            sid,
            executed: Mutex::new(executed),
            owned: Mutex::new(HashMap::new()),
            released: Condvar::new(),
            next_owner: AtomicU64::new(1),
            next_gno: AtomicU64::new(next),
        }
    }

    /// `RESET MASTER`: nothing is executed any more; automatic GTIDs start again at 1. GTIDs
    /// sessions own (`gtid_next`) stay owned.
    pub fn reset(&self) {
        let _owned = self.owned.lock();
        *self.executed.lock() = GtidSet::new();
        self.next_gno.store(1, Ordering::Relaxed);
    }

    /// Allocates `n` automatic GTIDs and adds them to `gtid_executed`, plus `explicit` ones
    /// (owned by their sessions) — one lock for the whole group.
    pub fn assign_group(&self, n: usize, explicit: &[Gtid]) -> Vec<Gtid> {
        let owned = self.owned.lock();
        let mut executed = self.executed.lock();
        let mut gno = self.next_gno.load(Ordering::Relaxed);
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            let g = Gtid { sid: self.sid, gno };
            gno += 1;
            if !executed.contains(&g) && !owned.contains_key(&g) {
                executed.add(g);
                out.push(g);
            }
        }
        self.next_gno.store(gno, Ordering::Relaxed);
        for g in explicit {
            executed.add(*g);
        }
        out
    }

    /// Takes GTIDs of a failed binlog write back out of `gtid_executed`.
    pub fn unassign(&self, gtids: &[Gtid]) {
        let mut gone = GtidSet::new();
        for g in gtids {
            gone.add(*g);
        }
        let mut executed = self.executed.lock();
        *executed = executed.subtract(&gone);
    }

    pub fn acquire(&self, gtid: Gtid) -> GtidNext {
        let mut owned = self.owned.lock();
        loop {
            if self.executed.lock().contains(&gtid) {
                return GtidNext::AlreadyExecuted;
            }
            if let std::collections::hash_map::Entry::Vacant(slot) = owned.entry(gtid) {
                let owner = self.next_owner.fetch_add(1, Ordering::Relaxed);
                slot.insert(owner);
                return GtidNext::Owned(OwnedGtid { gtid, owner });
            }
            self.released.wait(&mut owned);
        }
    }

    pub fn is_owner(&self, o: &OwnedGtid) -> bool {
        self.owned.lock().get(&o.gtid) == Some(&o.owner)
    }

    /// [`Self::is_owner`] for each assigned GTID of a submission under one lock: the indexes
    /// of those no longer owned.
    pub fn not_owned<'a>(
        &self,
        assigned: impl Iterator<Item = Option<&'a OwnedGtid>>,
    ) -> Vec<usize> {
        let owned = self.owned.lock();
        assigned
            .enumerate()
            .filter(|(_, o)| o.is_some_and(|o| owned.get(&o.gtid) != Some(&o.owner)))
            .map(|(i, _)| i)
            .collect()
    }

    pub fn release(&self, gtid: Gtid, owner: u64) {
        let mut owned = self.owned.lock();
        if owned.get(&gtid) == Some(&owner) {
            owned.remove(&gtid);
            self.released.notify_all();
        }
    }
}

fn max_gno(set: &GtidSet, sid: &Sid) -> u64 {
    set.iter()
        .filter(|(s, _)| *s == sid)
        .flat_map(|(_, ivs)| ivs.iter())
        .map(|iv| iv.end - 1)
        .max()
        .unwrap_or(0)
}
