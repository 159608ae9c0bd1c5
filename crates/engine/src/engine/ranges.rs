//! Scans of sorted, disjoint ranges of encoded keys, forward or backward, and cheap counts of
//! the entries in such ranges: what the SQL layer's range optimizer (`sql::range`) reads with.
//!
//! Why here: the SQL layer builds its ranges as bounds on encoded keys (so that ranges of
//! several key columns, each under its collation, can be sorted and merged by comparing
//! bytes) and needs the entry keys back to resume a scan after a LIMIT-sized batch. The
//! value-bound scans ([`Engine::scan`], [`Engine::scan_index`]) cannot do either.
//!
//! Invariants: the ranges passed are sorted and disjoint (asserted), so rows come out in key
//! order (reverse key order when `reverse`), each row at most once: a secondary entry is kept
//! only if the image the reader sees has exactly that entry, as `scan_index` does. Counts are
//! estimates (mysqld's `records_in_range`): entries, not visible rows, stopped at `cap`.

use std::ops::Bound;
use std::sync::Arc;

use super::Engine;
use crate::error::{Error, Result};
use crate::schema::TableSchema;
use crate::table::{Image, ReadMode, RowCell, ShardedMap, Table, TxnShared};
use crate::value::{Key, Row};
use crate::TableId;

/// Bounds on encoded keys (of the clustered key, or of a secondary index's entries: the
/// index columns followed by the clustered key).
pub type ByteRange = (Bound<Vec<u8>>, Bound<Vec<u8>>);

/// One row a range scan found: the entry's key (the clustered key for the primary index),
/// the row's clustered key, the row.
pub type RangeRow = (Key, Key, Row);

fn slice(b: &Bound<Vec<u8>>) -> Bound<&[u8]> {
    match b {
        Bound::Included(v) => Bound::Included(v.as_slice()),
        Bound::Excluded(v) => Bound::Excluded(v.as_slice()),
        Bound::Unbounded => Bound::Unbounded,
    }
}

/// Whether the range holds no key at all by its bounds (BTreeMap::range panics on those).
fn empty(r: &ByteRange) -> bool {
    match (&r.0, &r.1) {
        (Bound::Included(a), Bound::Included(b)) => a > b,
        (Bound::Included(a) | Bound::Excluded(a), Bound::Included(b) | Bound::Excluded(b)) => {
            a >= b
        }
        _ => false,
    }
}

/// The lower bound of `a` is below that of `b`, and `a` ends before `b` starts (sorted and
/// disjoint ranges).
fn before(a: &ByteRange, b: &ByteRange) -> bool {
    match (&a.1, &b.0) {
        (Bound::Unbounded, _) | (_, Bound::Unbounded) => false,
        (Bound::Excluded(x), Bound::Included(y)) => x <= y,
        (Bound::Included(x) | Bound::Excluded(x), Bound::Included(y) | Bound::Excluded(y)) => {
            x <= y
        }
    }
}

/// Up to `limit` entries of one range accepted by `keep`, merged across shards in key order
/// (reversed when `reverse`).
fn scan_one<T>(
    map: &ShardedMap,
    range: &ByteRange,
    limit: usize,
    reverse: bool,
    keep: &mut impl FnMut(&[u8], &std::sync::Arc<RowCell>) -> Option<T>,
) -> Vec<(Key, T)> {
    if limit == 0 || empty(range) {
        return Vec::new();
    }
    let bounds = (slice(&range.0), slice(&range.1));
    let mut all = Vec::new();
    for shard in map.shards() {
        let m = shard.read();
        let mut n = 0;
        let mut take = |k: &Key, cell: &std::sync::Arc<RowCell>| {
            if let Some(t) = keep(k, cell) {
                all.push((k.clone(), t));
                n += 1;
            }
            n < limit
        };
        if reverse {
            for (k, cell) in m.range::<[u8], _>(bounds).rev() {
                if !take(k, cell) {
                    break;
                }
            }
        } else {
            for (k, cell) in m.range::<[u8], _>(bounds) {
                if !take(k, cell) {
                    break;
                }
            }
        }
    }
    if reverse {
        all.sort_by(|a, b| b.0.cmp(&a.0));
    } else {
        all.sort_by(|a, b| a.0.cmp(&b.0));
    }
    all.truncate(limit);
    all
}

impl Engine {
    /// Rows in `ranges` (sorted, disjoint bounds on encoded keys) of the primary index
    /// (`index` None) or of a secondary index, in key order or reversed, at most `limit`, as
    /// `txn` sees them.
    pub fn scan_key_ranges(
        &self,
        txn: &crate::Txn,
        table: TableId,
        index: Option<&str>,
        ranges: &[ByteRange],
        limit: usize,
        reverse: bool,
    ) -> Result<Vec<RangeRow>> {
        for w in ranges.windows(2) {
            assert!(before(&w[0], &w[1]), "scan_key_ranges: ranges must be sorted and disjoint");
        }
        let t = self.inner.table(table)?;
        let idx = match index {
            None => None,
            Some(name) => Some(
                t.schema
                    .index(name)
                    .ok_or_else(|| Error::NoSuchIndex { name: name.to_string() })?,
            ),
        };
        self.read_ranges(txn, &t, idx, ranges, limit, reverse)
    }

    /// [`Engine::scan_key_ranges`] on a table object and index position. A locking read with
    /// gap locks (`Txn::gap_locking`) also locks what it scanned against inserts (`gaps.rs`):
    /// the whole ranges when nothing limits the scan (locked before the read), else the part
    /// read up to the last row (read, locked, then read again until both reads agree); an
    /// entry another transaction wrote and has not committed inside them is waited for
    /// (InnoDB's locking read waiting on an implicit lock), then the read is made again.
    pub(crate) fn read_ranges(
        &self,
        txn: &crate::Txn,
        t: &Arc<Table>,
        idx: Option<usize>,
        ranges: &[ByteRange],
        limit: usize,
        reverse: bool,
    ) -> Result<Vec<RangeRow>> {
        let mode = txn.read_mode();
        t.check_definition(mode, idx)?;
        if !txn.gap_locking() {
            return Ok(read_once(t, idx, ranges, limit, reverse, txn.id(), mode, false).rows);
        }
        // A locking read belongs to an active transaction (not one prepared or ended).
        super::check_active(txn)?;
        let g = idx.map_or(0, |i| i + 1);
        let mut deadline = None;
        loop {
            if limit == usize::MAX {
                for r in ranges {
                    self.inner.add_gap(txn, t, g, r.clone());
                }
            }
            let first = read_once(t, idx, ranges, limit, reverse, txn.id(), mode, true);
            if let Some(h) = first.blocker {
                self.inner.wait_for(txn, h, &mut deadline)?;
                continue;
            }
            if limit == usize::MAX {
                return Ok(first.rows);
            }
            for c in &first.covered {
                self.inner.add_gap(txn, t, g, c.clone());
            }
            let again = read_once(t, idx, ranges, limit, reverse, txn.id(), mode, true);
            if let Some(h) = again.blocker {
                self.inner.wait_for(txn, h, &mut deadline)?;
                continue;
            }
            let keys = |rows: &[RangeRow]| rows.iter().map(|r| r.0.clone()).collect::<Vec<_>>();
            if keys(&again.rows) == keys(&first.rows) {
                return Ok(again.rows);
            }
        }
    }

    /// The number of entries in `ranges` of the primary index (`index` None) or a secondary
    /// index, counted up to `cap` (an estimate: entries of every version, not visible rows).
    pub fn count_key_ranges(
        &self,
        table: TableId,
        index: Option<&str>,
        ranges: &[ByteRange],
        cap: u64,
    ) -> Result<u64> {
        let t = self.inner.table(table)?;
        let map = match index {
            None => &t.rows,
            Some(name) => {
                let i = t
                    .schema
                    .index(name)
                    .ok_or_else(|| Error::NoSuchIndex { name: name.to_string() })?;
                &t.indexes[i]
            }
        };
        let mut n = 0u64;
        for range in ranges {
            if empty(range) {
                continue;
            }
            for shard in map.shards() {
                let m = shard.read();
                for _ in m.range::<[u8], _>((slice(&range.0), slice(&range.1))) {
                    n += 1;
                    if n >= cap {
                        return Ok(n);
                    }
                }
            }
        }
        Ok(n)
    }
}

/// What one read of some ranges found.
struct ReadOnce {
    rows: Vec<RangeRow>,
    /// The parts of the ranges the read covered (a range cut by the limit: up to its last
    /// entry read).
    covered: Vec<ByteRange>,
    /// A transaction owning an entry in what was read that it wrote and has not committed
    /// (only looked for when `locking`).
    blocker: Option<Arc<TxnShared>>,
}

#[allow(clippy::too_many_arguments)]
fn read_once(
    t: &Table,
    idx: Option<usize>,
    ranges: &[ByteRange],
    limit: usize,
    reverse: bool,
    me: u64,
    mode: ReadMode,
    locking: bool,
) -> ReadOnce {
    let schema: &TableSchema = &t.schema;
    let mut out = ReadOnce { rows: Vec::new(), covered: Vec::new(), blocker: None };
    let order: Box<dyn Iterator<Item = &ByteRange>> =
        if reverse { Box::new(ranges.iter().rev()) } else { Box::new(ranges.iter()) };
    for range in order {
        let left = limit - out.rows.len();
        if left == 0 {
            break;
        }
        let mut blocker = None;
        let found: Vec<RangeRow> = match idx {
            None => {
                let found = scan_one(&t.rows, range, left, reverse, &mut |_, cell| {
                    let st = cell.state.lock();
                    if locking && blocker.is_none() {
                        if let Some(o) = &st.owner {
                            if o.id != me && st.committed.is_none() {
                                blocker = Some(o.clone());
                            }
                        }
                    }
                    st.visible(me, mode).cloned()
                });
                found.into_iter().map(|(k, r)| (k.clone(), k, r.to_vec())).collect()
            }
            Some(i) => {
                let found = scan_one(&t.indexes[i], range, left, reverse, &mut |entry, cell| {
                    let st = cell.state.lock();
                    let has = |r: &Image| *schema.index_entry(i, r, &cell.key).0 == *entry;
                    if locking && blocker.is_none() {
                        if let Some(o) = &st.owner {
                            if o.id != me && !st.committed.as_ref().is_some_and(has) {
                                blocker = Some(o.clone());
                            }
                        }
                    }
                    let r = st.visible(me, mode).cloned()?;
                    has(&r).then(|| (cell.key.clone(), r))
                });
                found.into_iter().map(|(e, (k, r))| (e, k, r.to_vec())).collect()
            }
        };
        if out.blocker.is_none() {
            out.blocker = blocker;
        }
        if locking {
            let covered = match found.last() {
                Some(last) if found.len() == left => {
                    if reverse {
                        (Bound::Included(last.0.to_vec()), range.1.clone())
                    } else {
                        (range.0.clone(), Bound::Included(last.0.to_vec()))
                    }
                }
                _ => range.clone(),
            };
            out.covered.push(covered);
        }
        out.rows.extend(found);
    }
    out
}
