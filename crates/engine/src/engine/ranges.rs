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

use super::Engine;
use crate::error::{Error, Result};
use crate::schema::TableSchema;
use crate::table::{RowCell, ShardedMap};
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
        let me = txn.id();
        let mode = txn.read_mode();
        t.check_definition(mode)?;
        let idx = match index {
            None => None,
            Some(name) => Some(
                t.schema
                    .index(name)
                    .ok_or_else(|| Error::NoSuchIndex { name: name.to_string() })?,
            ),
        };
        let schema: &TableSchema = &t.schema;
        let mut out: Vec<RangeRow> = Vec::new();
        let order: Box<dyn Iterator<Item = &ByteRange>> =
            if reverse { Box::new(ranges.iter().rev()) } else { Box::new(ranges.iter()) };
        for range in order {
            let left = limit - out.len();
            if left == 0 {
                break;
            }
            match idx {
                None => {
                    let found = scan_one(&t.rows, range, left, reverse, &mut |_, cell| {
                        cell.state.lock().visible(me, mode).cloned()
                    });
                    out.extend(found.into_iter().map(|(k, r)| (k.clone(), k, (*r).clone())));
                }
                Some(i) => {
                    let found =
                        scan_one(&t.indexes[i], range, left, reverse, &mut |entry, cell| {
                            let r = cell.state.lock().visible(me, mode).cloned()?;
                            (*schema.index_entry(i, &r, &cell.key).0 == *entry)
                                .then(|| (cell.key.clone(), r))
                        });
                    out.extend(found.into_iter().map(|(e, (k, r))| (e, k, (*r).clone())));
                }
            }
        }
        Ok(out)
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
