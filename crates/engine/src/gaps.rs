//! Gap (range) locks: the part of InnoDB's next-key locks that keeps phantoms out.
//!
//! A locking read, UPDATE or DELETE of a transaction that asked for gap locks
//! ([`crate::Txn::set_gap_locks`]: REPEATABLE READ and SERIALIZABLE) records here the key
//! intervals it scanned, on the index it scanned (the clustered index or a secondary index). An
//! insert of a new index entry (an INSERT, or an UPDATE giving a row a new primary or secondary
//! key) into an interval another transaction holds waits for that transaction, through the
//! engine's wait-for graph (1213 on a cycle, 1205 at the lock wait timeout, KILL): InnoDB's
//! insert intention lock waiting for a gap lock. Intervals never conflict with each other (gap
//! locks are compatible: `lock_rec_has_to_wait` in lock0lock.cc lets a gap request wait only
//! for... nothing; only `LOCK_INSERT_INTENTION` waits for a gap). Records are covered by the
//! row locks (`RowState::owner`, `sharers`) the SQL layer takes on each row it scanned; this
//! table covers the gaps between them. Released when the transaction ends.
//!
//! Narrower than InnoDB: an interval is exactly what the scan covered (its range's bounds, or
//! up to the last key read when a LIMIT stopped it), not "up to the next existing key" (see
//! `docs/engine.md`, "Gap locks"). So intervals need no inheritance when rows are purged
//! (InnoDB's `lock_rec_inherit_to_gap`), and an absent-row lookup locks only that key.
//!
//! Why no search when nothing is locked: `count` is read (SeqCst) before any search, so an
//! insert into a table no transaction holds an interval on pays one atomic load per entry.
//!
//! Invariant (no phantom slips between a scan and its lock): a scanner registers its interval
//! (count incremented, then the interval pushed, under the mutex) *before* it reads the index
//! map; an inserter checks the intervals *while holding the write lock of the map shard* it
//! inserts into. So either the check sees the interval (the inserter waits), or the scanner's
//! read of that shard comes after the insert (it sees the new entry, owned by the inserter, and
//! waits for that transaction: `Engine` scans treat an entry another transaction owns and did
//! not commit as a blocker).

use std::ops::Bound;
use std::sync::atomic::{AtomicUsize, Ordering};

use parking_lot::Mutex;

/// Bounds on encoded keys of one index.
pub(crate) type Interval = (Bound<Vec<u8>>, Bound<Vec<u8>>);

/// Whether `key` lies in `r`.
pub(crate) fn contains(r: &Interval, key: &[u8]) -> bool {
    let lo = match &r.0 {
        Bound::Included(b) => key >= b.as_slice(),
        Bound::Excluded(b) => key > b.as_slice(),
        Bound::Unbounded => true,
    };
    lo && match &r.1 {
        Bound::Included(b) => key <= b.as_slice(),
        Bound::Excluded(b) => key < b.as_slice(),
        Bound::Unbounded => true,
    }
}

/// Whether `inner` lies inside `outer`.
fn covers(outer: &Interval, inner: &Interval) -> bool {
    let lo = match (&outer.0, &inner.0) {
        (Bound::Unbounded, _) => true,
        (_, Bound::Unbounded) => false,
        (Bound::Included(a), Bound::Included(b) | Bound::Excluded(b)) => a <= b,
        (Bound::Excluded(a), Bound::Excluded(b)) => a <= b,
        (Bound::Excluded(a), Bound::Included(b)) => a < b,
    };
    lo && match (&outer.1, &inner.1) {
        (Bound::Unbounded, _) => true,
        (_, Bound::Unbounded) => false,
        (Bound::Included(a), Bound::Included(b) | Bound::Excluded(b)) => a >= b,
        (Bound::Excluded(a), Bound::Excluded(b)) => a >= b,
        (Bound::Excluded(a), Bound::Included(b)) => a > b,
    }
}

/// One interval and its owner: the transaction's id and what a waiter waits on (the
/// engine's `TxnShared`; generic so this module needs nothing of the tables).
struct GapLock<O> {
    id: u64,
    owner: O,
    range: Interval,
}

/// The intervals held on one index of one table object.
pub(crate) struct GapLocks<O> {
    /// How many intervals `locks` holds (read without the mutex by inserters).
    count: AtomicUsize,
    locks: Mutex<Vec<GapLock<O>>>,
}

impl<O> Default for GapLocks<O> {
    fn default() -> Self {
        GapLocks { count: AtomicUsize::new(0), locks: Mutex::new(Vec::new()) }
    }
}

impl<O> std::fmt::Debug for GapLocks<O> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GapLocks").field("count", &self.count.load(Ordering::Relaxed)).finish()
    }
}

impl<O: Clone> GapLocks<O> {
    /// Records `range` for `owner` (nothing if one of its intervals already covers it).
    /// Returns whether an interval was added.
    pub(crate) fn add(&self, id: u64, owner: &O, range: Interval) -> bool {
        let mut locks = self.locks.lock();
        if locks.iter().any(|l| l.id == id && covers(&l.range, &range)) {
            return false;
        }
        // Before the push and before the caller reads any shard (see the module invariant).
        self.count.fetch_add(1, Ordering::SeqCst);
        locks.push(GapLock { id, owner: owner.clone(), range });
        true
    }

    /// Another transaction than `me` holding an interval containing `key`, if any. The caller
    /// holds the write lock of the shard it is about to insert `key` into.
    pub(crate) fn holder(&self, key: &[u8], me: u64) -> Option<O> {
        if self.count.load(Ordering::SeqCst) == 0 {
            return None;
        }
        let locks = self.locks.lock();
        locks.iter().find(|l| l.id != me && contains(&l.range, key)).map(|l| l.owner.clone())
    }

    /// Drops every interval of transaction `me`.
    pub(crate) fn release(&self, me: u64) {
        let mut locks = self.locks.lock();
        let before = locks.len();
        locks.retain(|l| l.id != me);
        let n = before - locks.len();
        let was = self.count.fetch_sub(n, Ordering::SeqCst);
        assert!(was >= n && was - n == locks.len(), "gap lock count out of step with the list");
    }

    /// How many intervals transaction `me` holds.
    pub(crate) fn count_of(&self, me: u64) -> usize {
        if self.count.load(Ordering::SeqCst) == 0 {
            return 0;
        }
        self.locks.lock().iter().filter(|l| l.id == me).count()
    }

    /// How many intervals are held.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.count.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inc(a: &[u8], b: &[u8]) -> Interval {
        (Bound::Included(a.to_vec()), Bound::Included(b.to_vec()))
    }

    #[test]
    fn intervals_conflict_only_with_inserts_of_other_transactions() {
        let g: GapLocks<&str> = GapLocks::default();
        assert!(g.holder(b"m", 2).is_none(), "nothing locked");
        assert!(g.add(1, &"a", inc(b"k", b"p")));
        // Gap locks are compatible: b takes an overlapping one at once.
        assert!(g.add(2, &"b", inc(b"n", b"z")));
        assert_eq!(g.holder(b"m", 2), Some("a"), "b's insert of m waits for a");
        assert!(g.holder(b"m", 1).is_none(), "a's own insert of m does not wait");
        assert_eq!(g.holder(b"q", 1), Some("b"));
        assert!(g.holder(b"a", 1).is_none() && g.holder(b"a", 2).is_none(), "outside both");
        // A range inside one the owner holds adds nothing.
        assert!(!g.add(1, &"a", inc(b"l", b"m")));
        assert_eq!(g.len(), 2);
        g.release(1);
        assert!(g.holder(b"m", 2).is_none(), "released with the transaction");
        assert_eq!(g.len(), 1);
        g.release(2);
        assert_eq!(g.len(), 0);
    }

    #[test]
    fn bounds_are_exact() {
        let r: Interval = (Bound::Excluded(b"b".to_vec()), Bound::Excluded(b"d".to_vec()));
        assert!(!contains(&r, b"b") && contains(&r, b"c") && !contains(&r, b"d"));
        let all: Interval = (Bound::Unbounded, Bound::Unbounded);
        assert!(contains(&all, b"") && covers(&all, &r) && !covers(&r, &all));
        assert!(covers(&inc(b"a", b"e"), &r));
        assert!(!covers(&r, &inc(b"b", b"c")));
    }
}
