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
use crate::table::{Image, Ordered, ReadMode, RowCell, Sharded, Table, TxnShared};
use crate::value::{Key, Row, Value};
use crate::TableId;

/// Bounds on encoded keys (of the clustered key, or of a secondary index's entries: the
/// index columns followed by the clustered key).
pub type ByteRange = (Bound<Vec<u8>>, Bound<Vec<u8>>);

/// A row as a read returns it: decoded from the table's encoded image once, by the scan
/// (images are encoded bytes since issue 22's memory work: `crate::image`), then moved, never
/// copied again, through the SQL layer.
pub type SharedRow = Row;

/// One row a range scan found: the row's cell (its clustered key, shared rather than copied),
/// the entry's key when the scan read a secondary index, and the row the reader sees, decoded
/// once from its image (the profile of oltp_read_only put a fifth of the server's time into
/// copying rows and keys out of the tables, then copying them again in the SQL layer).
#[derive(Debug, Clone)]
pub struct RangeRow {
    entry: Option<Key>,
    cell: Arc<RowCell>,
    row: SharedRow,
}

impl RangeRow {
    /// The key of the entry read: the clustered key for the primary index, else the
    /// secondary entry (the index columns followed by the clustered key).
    pub fn entry(&self) -> &[u8] {
        self.entry.as_deref().unwrap_or(&self.cell.key)
    }

    /// The row's clustered (primary) key.
    pub fn key(&self) -> &[u8] {
        &self.cell.key
    }

    /// The row's values.
    pub fn row(&self) -> &[Value] {
        &self.row
    }

    /// The shared image.
    pub fn into_shared(self) -> SharedRow {
        self.row
    }

    /// The clustered key and an owned copy of the row.
    pub fn into_owned(self) -> (Key, Row) {
        ((*self.cell.key).into(), self.row)
    }
}

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
/// (reversed when `reverse`). `key_of` gives the entry key of a kept item: nothing is copied
/// out of the shards but what `keep` returns (a row's cell and image are shared).
///
/// The shards' runs (each sorted) are merged by sorting their concatenation, one shard's lock
/// held at a time. Each entry carries the first 16 bytes of its key as a big-endian integer
/// ([`prefix16`]): almost every comparison is then one integer comparison, and only equal
/// prefixes compare the keys' bytes (the profile had `memcmp` at 5–8 % of the server).
fn scan_one<T, M: Ordered + Default + Clone>(
    map: &Sharded<M>,
    range: &ByteRange,
    limit: usize,
    reverse: bool,
    keep: &mut impl FnMut(&[u8], &Arc<RowCell>) -> Option<T>,
    key_of: impl Fn(&T) -> &[u8],
) -> Vec<T> {
    if limit == 0 || empty(range) {
        return Vec::new();
    }
    let bounds = (slice(&range.0), slice(&range.1));
    let mut all: Vec<(u128, T)> = Vec::new();
    let mut runs = 0;
    for shard in map.shards() {
        let mut n = 0;
        shard.read().walk(bounds, reverse, &mut |k, cell| {
            if let Some(t) = keep(k, cell) {
                all.push((prefix16(k), t));
                n += 1;
            }
            n < limit
        });
        runs += usize::from(n > 0);
    }
    if runs > 1 {
        let cmp = |a: &(u128, T), b: &(u128, T)| {
            a.0.cmp(&b.0).then_with(|| key_of(&a.1).cmp(key_of(&b.1)))
        };
        if reverse {
            all.sort_by(|a, b| cmp(b, a));
        } else {
            all.sort_by(cmp);
        }
    }
    all.truncate(limit);
    all.into_iter().map(|(_, t)| t).collect()
}

/// The first 16 bytes of `key`, zero-padded, as a big-endian integer: if
/// `prefix16(a) < prefix16(b)` then `a < b` bytewise (at the first differing byte either both
/// have a byte, or `a` has ended, being a prefix of `b`), so comparing these first and the
/// bytes only on a tie gives the keys' order.
fn prefix16(key: &[u8]) -> u128 {
    let mut b = [0u8; 16];
    let n = key.len().min(16);
    b[..n].copy_from_slice(&key[..n]);
    u128::from_be_bytes(b)
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
            let same = again.rows.len() == first.rows.len()
                && again.rows.iter().zip(&first.rows).all(|(a, b)| a.entry() == b.entry());
            if same {
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
        match index {
            None => Ok(count_in(&t.rows, ranges, cap)),
            Some(name) => {
                let i = t
                    .schema
                    .index(name)
                    .ok_or_else(|| Error::NoSuchIndex { name: name.to_string() })?;
                Ok(count_in(&t.indexes[i], ranges, cap))
            }
        }
    }
}

/// The entries of `map` in `ranges`, counted up to `cap`.
fn count_in<M: Ordered + Default + Clone>(map: &Sharded<M>, ranges: &[ByteRange], cap: u64) -> u64 {
    let mut n = 0u64;
    for range in ranges {
        if empty(range) {
            continue;
        }
        for shard in map.shards() {
            shard.read().walk((slice(&range.0), slice(&range.1)), false, &mut |_, _| {
                n += 1;
                n < cap
            });
            if n >= cap {
                return n;
            }
        }
    }
    n
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
                let mut keep = |_: &[u8], cell: &Arc<RowCell>| {
                    let st = cell.state.lock();
                    if locking && blocker.is_none() {
                        if let Some(o) = &st.owner {
                            if o.id != me && st.committed.is_none() {
                                blocker = Some(o.clone());
                            }
                        }
                    }
                    let row = st.visible(me, mode)?.to_vec();
                    Some(RangeRow { entry: None, cell: cell.clone(), row })
                };
                scan_one(&t.rows, range, left, reverse, &mut keep, RangeRow::entry)
            }
            Some(i) => {
                let mut keep = |entry: &[u8], cell: &Arc<RowCell>| {
                    let st = cell.state.lock();
                    let has = |r: &Image| *schema.index_entry(i, r, &cell.key).0 == *entry;
                    if locking && blocker.is_none() {
                        if let Some(o) = &st.owner {
                            if o.id != me && !st.committed.as_ref().is_some_and(has) {
                                blocker = Some(o.clone());
                            }
                        }
                    }
                    let image = st.visible(me, mode)?;
                    has(image).then(|| RangeRow {
                        entry: Some(entry.into()),
                        cell: cell.clone(),
                        row: image.to_vec(),
                    })
                };
                scan_one(&t.indexes[i], range, left, reverse, &mut keep, RangeRow::entry)
            }
        };
        if out.blocker.is_none() {
            out.blocker = blocker;
        }
        if locking {
            let covered = match found.last() {
                Some(last) if found.len() == left => {
                    if reverse {
                        (Bound::Included(last.entry().to_vec()), range.1.clone())
                    } else {
                        (range.0.clone(), Bound::Included(last.entry().to_vec()))
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

#[cfg(test)]
mod tests {
    use super::prefix16;

    /// Ordering by (prefix16, bytes) is the bytes' order, for keys shorter and longer than 16
    /// bytes, with zero bytes (the padding's value) and prefixes of each other.
    #[test]
    fn prefix_then_bytes_is_the_byte_order() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut keys: Vec<Vec<u8>> = (0..3000)
            .map(|_| {
                let len = (next() % 24) as usize;
                (0..len).map(|_| [0u8, 1, 0x80, 0xFF][(next() % 4) as usize]).collect()
            })
            .collect();
        keys.push(Vec::new());
        let mut by_bytes = keys.clone();
        by_bytes.sort();
        keys.sort_by(|a, b| prefix16(a).cmp(&prefix16(b)).then_with(|| a.cmp(b)));
        assert_eq!(keys, by_bytes);
    }
}
