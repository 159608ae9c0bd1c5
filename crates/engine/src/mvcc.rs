//! Versions and read views: commit sequence numbers, the registry of live read views, the
//! history list (the undo chains purge still has to trim) and purge.
//!
//! Design (InnoDB's read views and purge, `ReadView::prepare`, `trx_purge`, re-cut for an
//! in-memory engine; see `docs/engine.md`, "Versions and read views"):
//! - Every commit that changes rows gets the next commit sequence number `seq` while it
//!   publishes its images ([`Mvcc::publish`], inside the engine's commit gate). `visible` is the
//!   largest `seq` whose images are all published; it moves only at the end of a publish.
//! - A read view is one number, `visible` when it was taken. It sees, for every row, the newest
//!   version whose `seq` is at most its own. Taking a view and publishing a commit share one
//!   mutex, so no view ever sees a commit half published, and a commit knows whether any view
//!   exists that might need the image it replaces.
//! - The newest committed image stays in place in its row cell; a commit moves the image it
//!   replaces to the cell's history only while some view exists (the hot path with no view
//!   open keeps no history at all), and then records the cell in the history list.
//! - Purge drops the versions no live view can see: for each history-list entry whose `seq` is
//!   at most the oldest live view (or `visible` when none is live), it trims the cell's chain
//!   to the newest version at or before that view, removes the index entries only dropped
//!   versions had, and removes a deleted row's cell once nothing of it remains. It runs a
//!   little after each commit while the list is non-empty (bounded work per commit) and from
//!   the engine's background thread, so memory stays bounded while a long-running view is the
//!   only thing holding versions back.
//!
//! Invariants:
//! - `visible` and every view number never exceed the last assigned `seq`; `visible` never
//!   moves back (asserted in `publish`).
//! - A version is dropped only when no live view is older than the `seq` that superseded it.
//! - The history list's length is the number of committed transactions whose replaced images
//!   are not yet purged (InnoDB's "History list length" counts the same: update undo logs).

use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

use crate::table::{RowCell, Table};

/// Row cells of one table object, as the history list names them.
pub(crate) type Cells = Vec<(Arc<Table>, Arc<RowCell>)>;

/// One committed transaction's replaced images: the cells whose history gained a version at
/// commit sequence number `seq`.
pub(crate) struct Undo {
    pub(crate) seq: u64,
    pub(crate) cells: Cells,
}

#[derive(Default)]
struct State {
    /// The last commit sequence number handed out (all of them published: publish holds the
    /// mutex throughout).
    last_seq: u64,
    /// Live read views: view number -> how many.
    views: BTreeMap<u64, usize>,
}

/// The engine's version bookkeeping (one per engine).
#[derive(Default)]
pub(crate) struct Mvcc {
    state: Mutex<State>,
    visible: AtomicU64,
    history: Mutex<VecDeque<Undo>>,
    history_len: AtomicU64,
    views_live: AtomicU64,
    purged_versions: AtomicU64,
    /// One purge at a time (others skip instead of waiting).
    purging: Mutex<()>,
}

/// A consistent read view: sees every commit published when it was taken and none after.
/// Dropping it lets purge reclaim the versions only it could see.
pub struct ReadView {
    seq: u64,
    mvcc: Arc<Mvcc>,
}

impl ReadView {
    /// The commit sequence number it reads at.
    pub fn seq(&self) -> u64 {
        self.seq
    }
}

impl std::fmt::Debug for ReadView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadView").field("seq", &self.seq).finish()
    }
}

impl Drop for ReadView {
    fn drop(&mut self) {
        self.mvcc.release(self.seq);
    }
}

/// What a publish decided: the sequence number and whether replaced images go to history.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Publish {
    pub(crate) seq: u64,
    pub(crate) keep_history: bool,
}

impl Mvcc {
    /// A new read view at the last published commit.
    pub(crate) fn view(self: &Arc<Self>) -> ReadView {
        let mut st = self.state.lock();
        let seq = st.last_seq;
        *st.views.entry(seq).or_insert(0) += 1;
        self.views_live.fetch_add(1, Ordering::Relaxed);
        ReadView { seq, mvcc: self.clone() }
    }

    fn release(&self, seq: u64) {
        let mut st = self.state.lock();
        let n = st.views.get_mut(&seq).expect("a live view is registered");
        *n -= 1;
        if *n == 0 {
            st.views.remove(&seq);
        }
        self.views_live.fetch_sub(1, Ordering::Relaxed);
    }

    /// Runs `f` (which publishes one commit's images) with the next sequence number; views
    /// taken meanwhile wait for it, so they see all of the commit or none of it. `f` returns
    /// the cells whose history gained a version (recorded in the history list).
    pub(crate) fn publish<R>(&self, f: impl FnOnce(Publish) -> (R, Cells)) -> R {
        let mut st = self.state.lock();
        let seq = st.last_seq + 1;
        let p = Publish { seq, keep_history: !st.views.is_empty() };
        let (r, cells) = f(p);
        assert!(p.keep_history || cells.is_empty(), "history kept without a live view");
        if !cells.is_empty() {
            self.history.lock().push_back(Undo { seq, cells });
            self.history_len.fetch_add(1, Ordering::Relaxed);
        }
        st.last_seq = seq;
        let before = self.visible.swap(seq, Ordering::Release);
        assert!(before < seq, "visible commit sequence moved back");
        r
    }

    /// The last published commit sequence number.
    pub(crate) fn visible(&self) -> u64 {
        self.visible.load(Ordering::Acquire)
    }

    pub(crate) fn history_len(&self) -> u64 {
        self.history_len.load(Ordering::Relaxed)
    }

    pub(crate) fn views_live(&self) -> u64 {
        self.views_live.load(Ordering::Relaxed)
    }

    pub(crate) fn purged_versions(&self) -> u64 {
        self.purged_versions.load(Ordering::Relaxed)
    }

    /// The oldest sequence number a live view reads at (`visible` when none is live).
    fn oldest_view(&self) -> u64 {
        let st = self.state.lock();
        st.views.keys().next().copied().unwrap_or(st.last_seq)
    }

    /// Purges up to `max` history-list entries no live view needs; returns how many. Skips
    /// (returns 0) if another purge runs.
    pub(crate) fn purge(&self, max: usize) -> usize {
        if self.history_len() == 0 {
            return 0;
        }
        let Some(_one) = self.purging.try_lock() else { return 0 };
        let oldest = self.oldest_view();
        let mut done = 0;
        while done < max {
            let undo = {
                let mut h = self.history.lock();
                match h.front() {
                    Some(u) if u.seq <= oldest => h.pop_front(),
                    _ => None,
                }
            };
            let Some(undo) = undo else { break };
            self.history_len.fetch_sub(1, Ordering::Relaxed);
            for (t, cell) in undo.cells {
                let (dropped, empty, now) = {
                    let mut st = cell.state.lock();
                    let dropped = st.trim(oldest);
                    let empty =
                        st.committed.is_none() && st.owner.is_none() && st.history.is_empty();
                    let now = if dropped.is_empty() { None } else { st.committed.clone() };
                    (dropped, empty, now)
                };
                self.purged_versions.fetch_add(dropped.len() as u64, Ordering::Relaxed);
                for row in &dropped {
                    for idx in 0..t.indexes.len() {
                        // The committed image has the same entry, so it stays. Safe without
                        // the lock: whoever later replaces that image checks the entry again
                        // when the image it replaced is dropped.
                        if now.as_ref().is_some_and(|n| t.schema.same_index_values(idx, row, n)) {
                            continue;
                        }
                        let (entry, plen) = t.schema.index_entry(idx, row, &cell.key);
                        t.remove_index_entry_unless_kept(idx, &entry, plen, &cell);
                    }
                }
                if empty {
                    t.purge_if_empty(&cell);
                }
            }
            done += 1;
        }
        done
    }
}
