//! In-memory tables: a clustered set of row cells ordered by primary key (the key is held
//! once, in its cell: [`CellSet`]), secondary indexes mapping (index columns, primary key) to
//! the same cells, and the per-row lock state. The per-row memory layout is described in
//! `docs/engine.md`, "Memory layout per row".
//!
//! A row cell holds the newest committed image in place (with the commit sequence number that
//! made it, `seq`), the older committed images some read view may still need (`history`, the
//! undo chain, oldest first), and, while a transaction owns the row lock, that transaction's
//! pending image. Readers never block: the owner reads its pending image, a read view reads the
//! newest version whose `seq` is at most the view's (see `docs/engine.md`, "Versions and read
//! views"), a locking read or a write reads the newest committed image. Index entries are
//! hints: an entry is added for every image a transaction writes and removed once no version
//! the cell keeps (committed, history, pending) has it, so a reader checks that the version it
//! sees really has the entry's key.
//!
//! Maps are split into shards by a hash of the key (of the index columns for a secondary
//! index, so that all entries one unique check must see share a shard); point operations
//! touch one shard, scans merge the shards in key order.
//!
//! Lock order: catalog, index shard, clustered shard, row cell, transaction state.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::{Condvar, Mutex, RwLock};

use crate::schema::{hidden_row_id, TableSchema};
use crate::value::{encode_key_part_in, Key, Value};

const SHARDS: usize = 16;

use crate::image::Columns;
pub(crate) use crate::image::Image;

/// An older committed image of a row: `row` (None = absent) was the newest committed image
/// from commit sequence number `seq` until the next version's.
#[derive(Debug, Clone)]
pub(crate) struct Version {
    pub(crate) seq: u64,
    pub(crate) row: Option<Image>,
}

/// A list in one word, without an allocation while empty: a row cell's history and sharers
/// are empty for nearly every row, and a `Vec` would cost three words each per row.
/// (The extra allocation clippy's `box_collection` warns of is the point: one word in every
/// row cell instead of three, paid only by the rare non-empty list.)
#[derive(Debug)]
#[allow(clippy::box_collection)]
pub(crate) struct List<T>(Option<Box<Vec<T>>>);

impl<T> Default for List<T> {
    fn default() -> Self {
        List(None)
    }
}

impl<T> std::ops::Deref for List<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.0.as_deref().map_or(&[], |v| v)
    }
}

impl<T> List<T> {
    pub(crate) fn push(&mut self, x: T) {
        self.0.get_or_insert_with(Box::default).push(x);
    }

    pub(crate) fn retain(&mut self, f: impl FnMut(&T) -> bool) {
        if let Some(v) = &mut self.0 {
            v.retain(f);
            if v.is_empty() {
                self.0 = None;
            }
        }
    }

    pub(crate) fn clear(&mut self) {
        self.0 = None;
    }

    /// Removes the first `n` elements, in order.
    pub(crate) fn drain_front(&mut self, n: usize) -> std::vec::IntoIter<T> {
        let Some(v) = &mut self.0 else { return Vec::new().into_iter() };
        let front: Vec<T> = v.drain(..n).collect();
        if v.is_empty() {
            self.0 = None;
        }
        front.into_iter()
    }
}

impl<T> IntoIterator for List<T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.map_or_else(Vec::new, |v| *v).into_iter()
    }
}

/// What a read sees of rows other transactions own or changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadMode {
    /// The newest committed image (locking reads, UPDATE/DELETE, reads without a view).
    Latest,
    /// The newest image committed at or before this commit sequence number (a read view).
    Snapshot(u64),
    /// The newest image, committed or not (READ UNCOMMITTED's dirty reads).
    Uncommitted,
}

/// The lock-and-visibility state of one row.
#[derive(Debug, Default)]
pub(crate) struct RowState {
    pub(crate) committed: Option<Image>,
    /// The commit sequence number of `committed` (0: loaded by recovery, older than any view).
    pub(crate) seq: u64,
    /// Older committed images still needed by some read view, oldest first; each has a
    /// smaller `seq` than the next and than `seq`. Trimmed by purge.
    pub(crate) history: List<Version>,
    /// The transaction holding the row's write lock.
    pub(crate) owner: Option<Arc<TxnShared>>,
    /// The owner's image (None = absent); meaningful only while `owner` is set.
    pub(crate) pending: Option<Image>,
    /// The transactions holding a shared (S) lock on the row (FOR SHARE, LOCK IN SHARE MODE,
    /// SERIALIZABLE reads), each once. S locks are compatible with each other; the write
    /// (X) lock `owner` is taken only when no other transaction holds an S lock, and an S
    /// lock only when no other transaction holds the X lock (InnoDB's `lock_mode_compatible`).
    /// A transaction may hold both (an S lock upgraded to X).
    pub(crate) sharers: List<Arc<TxnShared>>,
    /// Set when the cell left the clustered map; a waiter holding it must look the key up again.
    pub(crate) removed: bool,
}

impl RowState {
    /// The image transaction `me` sees reading with `mode`.
    pub(crate) fn visible(&self, me: u64, mode: ReadMode) -> Option<&Image> {
        match (&self.owner, mode) {
            // The owner's own change; a row it only locked (pending = committed, the same
            // image) reads through its view like any other, as InnoDB's consistent read of a
            // row locked by FOR UPDATE.
            (Some(o), _) if o.id == me && !self.only_locked() => self.pending.as_ref(),
            (Some(_), ReadMode::Uncommitted) => self.pending.as_ref(),
            (_, ReadMode::Latest | ReadMode::Uncommitted) => self.committed.as_ref(),
            (_, ReadMode::Snapshot(view)) => self.at(view),
        }
    }

    /// Whether the owner holds the row without having changed it (FOR UPDATE).
    fn only_locked(&self) -> bool {
        match (&self.pending, &self.committed) {
            (Some(p), Some(c)) => Image::ptr_eq(p, c),
            (None, None) => true,
            _ => false,
        }
    }

    /// The newest committed image at commit sequence number `view` (None: absent then).
    pub(crate) fn at(&self, view: u64) -> Option<&Image> {
        if self.seq <= view {
            return self.committed.as_ref();
        }
        // No kept version at or before the view: the row did not exist for it (an insert
        // keeps no "absent" version; purge never drops one a live view needs).
        self.history.iter().rev().find(|v| v.seq <= view).and_then(|v| v.row.as_ref())
    }

    /// Whether any version the cell keeps (committed, history, the owner's pending image)
    /// has index entry `entry` of index `idx`.
    pub(crate) fn any_has_entry(&self, t: &Table, idx: usize, key: &[u8], entry: &[u8]) -> bool {
        let has = |r: &Option<Image>| {
            r.as_ref().is_some_and(|r| *t.schema.index_entry(idx, r, key).0 == *entry)
        };
        has(&self.committed)
            || (self.owner.is_some() && has(&self.pending))
            || self.history.iter().any(|v| has(&v.row))
    }

    /// Drops the versions no view at or after `oldest` can see: everything older than the
    /// newest version committed at or before `oldest`. Returns the images dropped.
    pub(crate) fn trim(&mut self, oldest: u64) -> Vec<Image> {
        let keep_from = if self.seq <= oldest {
            self.history.len()
        } else {
            match self.history.iter().rposition(|v| v.seq <= oldest) {
                Some(i) => i,
                None => return Vec::new(),
            }
        };
        self.history.drain_front(keep_from).filter_map(|v| v.row).collect()
    }
}

#[derive(Debug)]
pub(crate) struct RowCell {
    /// The primary key (the hidden row id for a table without one); never changed.
    pub(crate) key: InlineKey,
    pub(crate) state: Mutex<RowState>,
}

/// The part of a transaction other transactions see: its id and its end, which lock waiters
/// sleep on.
#[derive(Debug)]
pub(crate) struct TxnShared {
    pub(crate) id: u64,
    pub(crate) done: Mutex<bool>,
    pub(crate) cv: Condvar,
    /// Tasks waiting for the end without a thread ([`crate::LockWait`]).
    wakers: Mutex<Vec<std::task::Waker>>,
}

impl TxnShared {
    pub(crate) fn new(id: u64) -> TxnShared {
        TxnShared {
            id,
            done: Mutex::new(false),
            cv: Condvar::new(),
            wakers: Mutex::new(Vec::new()),
        }
    }

    pub(crate) fn finish(&self) {
        *self.done.lock() = true;
        self.cv.notify_all();
        // After `done` is set: a poll that registered before this drain is woken, one after
        // it sees `done`.
        for w in std::mem::take(&mut *self.wakers.lock()) {
            w.wake();
        }
    }

    /// Ready once the transaction has ended; otherwise the waker is kept for `finish`.
    pub(crate) fn poll_end(&self, cx: &mut std::task::Context<'_>) -> std::task::Poll<()> {
        let mut wakers = self.wakers.lock();
        if *self.done.lock() {
            return std::task::Poll::Ready(());
        }
        if !wakers.iter().any(|w| w.will_wake(cx.waker())) {
            wakers.push(cx.waker().clone());
        }
        std::task::Poll::Pending
    }
}

/// An encoded key without an allocation when short: a row cell's primary key (stored once:
/// the clustered map orders and finds cells by it, [`CellSet`]) and a secondary index entry's
/// key. Keys up to [`INLINE_KEY_BYTES`] bytes (an encoded INT or BIGINT is 9, a hidden row id
/// 9, so an index entry on one integer column of such a table is 18) are held inline, longer
/// ones in one allocation. Compared, ordered and borrowed as its bytes.
#[derive(Clone)]
pub(crate) enum InlineKey {
    Inline { len: u8, bytes: [u8; INLINE_KEY_BYTES] },
    Heap(Box<[u8]>),
}

/// The longest key kept inside the cell (the enum is then 24 bytes, as large as a
/// `Box<[u8]>` and its tag).
pub(crate) const INLINE_KEY_BYTES: usize = 22;

impl From<&[u8]> for InlineKey {
    fn from(k: &[u8]) -> InlineKey {
        if k.len() <= INLINE_KEY_BYTES {
            let mut bytes = [0; INLINE_KEY_BYTES];
            bytes[..k.len()].copy_from_slice(k);
            InlineKey::Inline { len: k.len() as u8, bytes }
        } else {
            InlineKey::Heap(k.into())
        }
    }
}

impl From<Key> for InlineKey {
    fn from(k: Key) -> InlineKey {
        if k.len() <= INLINE_KEY_BYTES {
            InlineKey::from(&k[..])
        } else {
            InlineKey::Heap(k)
        }
    }
}

impl std::borrow::Borrow<[u8]> for InlineKey {
    fn borrow(&self) -> &[u8] {
        self
    }
}

impl PartialEq for InlineKey {
    fn eq(&self, o: &InlineKey) -> bool {
        **self == **o
    }
}

impl Eq for InlineKey {}

impl PartialOrd for InlineKey {
    fn partial_cmp(&self, o: &InlineKey) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for InlineKey {
    fn cmp(&self, o: &InlineKey) -> std::cmp::Ordering {
        (**self).cmp(&**o)
    }
}

impl std::ops::Deref for InlineKey {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            InlineKey::Inline { len, bytes } => &bytes[..usize::from(*len)],
            InlineKey::Heap(b) => b,
        }
    }
}

impl std::fmt::Debug for InlineKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl RowCell {
    pub(crate) fn new(key: &[u8], state: RowState) -> Arc<RowCell> {
        Arc::new(RowCell { key: key.into(), state: Mutex::new(state) })
    }
}

/// A cell as the clustered map holds it: ordered, compared and looked up (`Borrow<[u8]>`) by
/// the cell's own key, which is therefore never changed (`RowCell::key` is set once).
#[derive(Debug, Clone)]
pub(crate) struct ByKey(pub(crate) Arc<RowCell>);

impl std::borrow::Borrow<[u8]> for ByKey {
    fn borrow(&self) -> &[u8] {
        &self.0.key
    }
}

impl PartialEq for ByKey {
    fn eq(&self, o: &ByKey) -> bool {
        *self.0.key == *o.0.key
    }
}

impl Eq for ByKey {}

impl PartialOrd for ByKey {
    fn partial_cmp(&self, o: &ByKey) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for ByKey {
    fn cmp(&self, o: &ByKey) -> std::cmp::Ordering {
        (*self.0.key).cmp(&*o.0.key)
    }
}

/// One shard of the clustered index: the row cells ordered by primary key, each key held once
/// (in its cell). Its methods mirror the map a secondary index uses ([`Ordered`]).
#[derive(Debug, Default, Clone)]
pub(crate) struct CellSet(BTreeSet<ByKey>);

impl CellSet {
    pub(crate) fn get(&self, key: &[u8]) -> Option<&Arc<RowCell>> {
        self.0.get(key).map(|c| &c.0)
    }

    pub(crate) fn contains_key(&self, key: &[u8]) -> bool {
        self.0.contains(key)
    }

    /// Adds `cell` (replacing a cell with the same key, which is returned).
    pub(crate) fn insert(&mut self, cell: Arc<RowCell>) -> Option<Arc<RowCell>> {
        self.0.replace(ByKey(cell)).map(|c| c.0)
    }

    pub(crate) fn remove(&mut self, key: &[u8]) -> Option<Arc<RowCell>> {
        self.0.take(key).map(|c| c.0)
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    pub(crate) fn values(&self) -> impl DoubleEndedIterator<Item = &Arc<RowCell>> {
        self.0.iter().map(|c| &c.0)
    }

    /// The cells with keys in `range`, in key order.
    pub(crate) fn range<'a>(
        &'a self,
        range: (Bound<&[u8]>, Bound<&[u8]>),
    ) -> impl DoubleEndedIterator<Item = &'a Arc<RowCell>> + 'a {
        self.0.range::<[u8], _>(range).map(|c| &c.0)
    }
}

impl FromIterator<Arc<RowCell>> for CellSet {
    fn from_iter<I: IntoIterator<Item = Arc<RowCell>>>(it: I) -> CellSet {
        CellSet(it.into_iter().map(ByKey).collect())
    }
}

/// A secondary index's shard: entry key (index columns then primary key) to the row's cell.
pub(crate) type EntryMap = BTreeMap<InlineKey, Arc<RowCell>>;

/// The ordered walk range scans need from either kind of shard.
pub(crate) trait Ordered {
    /// Calls `f` with each entry key and cell in `range` (descending when `reverse`) until it
    /// returns false.
    fn walk(
        &self,
        range: (Bound<&[u8]>, Bound<&[u8]>),
        reverse: bool,
        f: &mut dyn FnMut(&[u8], &Arc<RowCell>) -> bool,
    );
}

impl Ordered for EntryMap {
    fn walk(
        &self,
        range: (Bound<&[u8]>, Bound<&[u8]>),
        reverse: bool,
        f: &mut dyn FnMut(&[u8], &Arc<RowCell>) -> bool,
    ) {
        let r = self.range::<[u8], _>(range);
        if reverse {
            for (k, c) in r.rev() {
                if !f(k, c) {
                    break;
                }
            }
        } else {
            for (k, c) in r {
                if !f(k, c) {
                    break;
                }
            }
        }
    }
}

impl Ordered for CellSet {
    fn walk(
        &self,
        range: (Bound<&[u8]>, Bound<&[u8]>),
        reverse: bool,
        f: &mut dyn FnMut(&[u8], &Arc<RowCell>) -> bool,
    ) {
        let r = self.range(range);
        if reverse {
            for c in r.rev() {
                if !f(&c.key, c) {
                    break;
                }
            }
        } else {
            for c in r {
                if !f(&c.key, c) {
                    break;
                }
            }
        }
    }
}

/// An ordered map split into hash shards (`M`: [`CellSet`] for the clustered index,
/// [`EntryMap`] for a secondary one).
#[derive(Debug)]
pub(crate) struct Sharded<M> {
    shards: Box<[RwLock<M>]>,
}

/// A secondary index.
pub(crate) type ShardedMap = Sharded<EntryMap>;

/// The clustered index.
pub(crate) type RowMap = Sharded<CellSet>;

pub(crate) fn hash_bytes(b: &[u8]) -> usize {
    // FNV-1a: keys are short and come from the engine's own encoding (no DoS concern).
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &c in b {
        h ^= u64::from(c);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    (h ^ (h >> 32)) as usize
}

impl<M: Default + Clone> Sharded<M> {
    pub(crate) fn new() -> Self {
        Sharded { shards: (0..SHARDS).map(|_| RwLock::new(M::default())).collect() }
    }

    pub(crate) fn shard(&self, hash_key: &[u8]) -> &RwLock<M> {
        &self.shards[hash_bytes(hash_key) % SHARDS]
    }

    pub(crate) fn shards(&self) -> &[RwLock<M>] {
        &self.shards
    }

    pub(crate) fn clone_contents(&self) -> Self {
        Sharded { shards: self.shards.iter().map(|s| RwLock::new(s.read().clone())).collect() }
    }
}

/// Replaces each shard's contents with its part (a map built in one pass from the sorted
/// entries: `BTreeMap`'s `FromIterator` sorts, then appends with full nodes).
fn fill<M: FromIterator<T>, T>(map: &Sharded<M>, parts: Vec<Vec<T>>) {
    for (shard, part) in map.shards.iter().zip(parts) {
        *shard.write() = part.into_iter().collect();
    }
}

/// Turns bounds on (a prefix of) key values into bounds on encoded keys (see `value.rs`: no
/// encoded component starts with 0xFF, so `prefix ++ 0xFF` is above every key with the prefix).
/// `colls[i]` is the collation of key column i (strings are encoded by their sort keys).
pub(crate) fn key_range(
    lower: Bound<&[Value]>,
    upper: Bound<&[Value]>,
    colls: &[u16],
) -> (Bound<Vec<u8>>, Bound<Vec<u8>>) {
    let enc = |v: &[Value]| {
        let mut out = Vec::new();
        for (i, x) in v.iter().enumerate() {
            encode_key_part_in(&mut out, x, colls.get(i).copied().unwrap_or(collation::BINARY));
        }
        out
    };
    let above = |v: &[Value]| {
        let mut e = enc(v);
        e.push(0xFF);
        e
    };
    let lo = match lower {
        Bound::Included(v) => Bound::Included(enc(v)),
        Bound::Excluded(v) => Bound::Excluded(above(v)),
        Bound::Unbounded => Bound::Unbounded,
    };
    let hi = match upper {
        Bound::Included(v) => Bound::Excluded(above(v)),
        Bound::Excluded(v) => Bound::Excluded(enc(v)),
        Bound::Unbounded => Bound::Unbounded,
    };
    (lo, hi)
}

/// A table's dirty set (see [`Table::dirty`]).
#[derive(Debug, Default)]
pub(crate) struct Dirty {
    pub(crate) cells: Vec<Arc<RowCell>>,
    /// More than [`DIRTY_CAP`] cells were pushed: the set was dropped and the next
    /// checkpoint writes the table whole. Bounds the memory (the set keeps deleted rows'
    /// cells alive) when checkpoints are rare or off.
    pub(crate) overflow: bool,
}

/// At most this many cells in one table's dirty set.
const DIRTY_CAP: usize = 1 << 20;

/// A table: its definition, rows, indexes and counters.
#[derive(Debug)]
pub(crate) struct Table {
    pub(crate) schema: Arc<TableSchema>,
    pub(crate) rows: RowMap,
    /// One map per `schema.indexes` entry.
    pub(crate) indexes: Vec<ShardedMap>,
    /// The next AUTO_INCREMENT value to hand out.
    pub(crate) auto_inc: AtomicU64,
    /// The next hidden row id (tables without primary key).
    pub(crate) next_row_id: AtomicU64,
    /// Transactions holding changes to this table (a DDL waits for zero).
    pub(crate) users: AtomicU32,
    /// A DDL waits for this table; new writers wait until it is done.
    pub(crate) ddl_pending: AtomicBool,
    /// Replaced or dropped by a DDL; holders must look the table up again.
    pub(crate) retired: AtomicBool,
    /// The commit sequence number of the DDL that installed this definition (0: loaded at
    /// start-up, older than any read view). A read view older than it cannot read the
    /// table: InnoDB's `DB_MISSING_HISTORY` for an index newer than the view, 1412.
    pub(crate) def_seq: AtomicU64,
    /// Per secondary index (as `schema.indexes`): the commit sequence number of the DDL that
    /// built it (0: loaded at start-up). A read view older than an index cannot read through it
    /// (its entries were built from the committed rows only), though it reads the rows through
    /// the clustered index or an older index: InnoDB's per-index `trx_id` check in
    /// `row_search_mvcc` (`DB_MISSING_HISTORY` when the index is newer than the view).
    pub(crate) index_seq: Vec<AtomicU64>,
    /// Gap locks ([`crate::gaps`]): `[0]` on the clustered index, `[1 + i]` on secondary index i.
    pub(crate) gaps: Vec<crate::gaps::GapLocks<Arc<TxnShared>>>,
    pub(crate) mdl: Mutex<()>,
    pub(crate) mdl_cv: Condvar,
    /// The cells whose committed image changed since the last checkpoint took this table's
    /// set (each cell once per checkpoint interval: a commit pushes a cell only when the
    /// version it replaces is at or below that checkpoint's read view). An incremental
    /// checkpoint reads these cells alone (docs/engine.md, "Checkpoints").
    pub(crate) dirty: Mutex<Dirty>,
}

impl Table {
    /// 1412 when `mode` reads a view older than this table's rows (a table created,
    /// truncated or rebuilt after the view began: its rows at the view are not kept), or
    /// older than secondary index `index` it reads through (an index added after the view).
    pub(crate) fn check_definition(
        &self,
        mode: ReadMode,
        index: Option<usize>,
    ) -> crate::Result<()> {
        let ReadMode::Snapshot(view) = mode else { return Ok(()) };
        if self.def_seq.load(Ordering::Acquire) > view
            || index.is_some_and(|i| self.index_seq[i].load(Ordering::Acquire) > view)
        {
            return Err(crate::Error::TableDefChanged);
        }
        Ok(())
    }

    /// A new table object; an `AUTO_INCREMENT = n` the definition carries starts the counter
    /// (and is taken out of the definition the table keeps).
    pub(crate) fn new(mut schema: TableSchema) -> Table {
        let start = schema.auto_increment_start.take().unwrap_or(1).max(1);
        let indexes = schema.indexes.iter().map(|_| ShardedMap::new()).collect();
        let index_seq = schema.indexes.iter().map(|_| AtomicU64::new(0)).collect();
        let gaps = (0..=schema.indexes.len()).map(|_| Default::default()).collect();
        Table {
            schema: Arc::new(schema),
            rows: RowMap::new(),
            indexes,
            auto_inc: AtomicU64::new(start),
            next_row_id: AtomicU64::new(1),
            users: AtomicU32::new(0),
            ddl_pending: AtomicBool::new(false),
            retired: AtomicBool::new(false),
            def_seq: AtomicU64::new(0),
            index_seq,
            gaps,
            mdl: Mutex::new(()),
            mdl_cv: Condvar::new(),
            dirty: Mutex::new(Dirty::default()),
        }
    }

    pub(crate) fn index_prefix(&self, idx: usize, row: &(impl Columns + ?Sized)) -> Vec<u8> {
        let mut out = Vec::with_capacity(16);
        let def = &self.schema.indexes[idx];
        for (part, &p) in def.columns.iter().enumerate() {
            self.schema.encode_key_part(&mut out, p, def.prefix(part), &row.column(p));
        }
        out
    }

    /// Raises the counters past the values a stored row uses (after replay or a load, and when
    /// a row names its AUTO_INCREMENT value).
    pub(crate) fn observe_row(&self, key: &[u8], row: &(impl Columns + ?Sized)) {
        if self.schema.primary_key.is_empty() {
            if let Some(id) = hidden_row_id(key) {
                self.next_row_id.fetch_max(id.saturating_add(1), Ordering::AcqRel);
            }
        }
        if let Some(a) = self.schema.auto_increment_column() {
            self.observe_auto_inc(&row.column(a));
        }
    }

    pub(crate) fn observe_auto_inc(&self, v: &Value) {
        let n = match v {
            Value::Int(i) if *i > 0 => *i as u64,
            Value::UInt(u) => *u,
            _ => return,
        };
        self.auto_inc.fetch_max(n.saturating_add(1), Ordering::AcqRel);
    }

    /// Sets the committed image of `key` directly (replay, checkpoint load): no locks, no
    /// uniqueness checks; index entries follow the image.
    /// Whether `key` is `row`'s clustered key as this binary encodes it (always true for a
    /// table without a primary key: its keys are hidden row ids).
    pub(crate) fn key_matches(&self, key: &[u8], row: &(impl Columns + ?Sized)) -> bool {
        self.schema.primary_key.is_empty() || *self.schema.primary_key_of(row) == *key
    }

    pub(crate) fn apply_put(&self, key: &[u8], row: impl Into<Image>) -> Arc<RowCell> {
        let row = row.into();
        self.observe_row(key, &row);
        let cell = {
            let mut m = self.rows.shard(key).write();
            match m.get(key) {
                Some(c) => c.clone(),
                None => {
                    let c = RowCell::new(key, RowState::default());
                    m.insert(c.clone());
                    c
                }
            }
        };
        let old = {
            let mut st = cell.state.lock();
            st.seq = 0;
            st.history.clear();
            st.committed.replace(row.clone())
        };
        for i in 0..self.indexes.len() {
            let (new_entry, plen) = self.schema.index_entry(i, &row, key);
            if let Some(old) = &old {
                let (old_entry, oplen) = self.schema.index_entry(i, old, key);
                if old_entry != new_entry {
                    self.indexes[i].shard(&old_entry[..oplen]).write().remove(&old_entry[..]);
                }
            }
            self.indexes[i]
                .shard(&new_entry[..plen])
                .write()
                .insert(new_entry.into(), cell.clone());
        }
        cell
    }

    /// A table filled with a checkpoint's rows (`rows` in key order, each key once), as if
    /// each were [`Table::apply_put`] but built in bulk: every map of every shard is built
    /// from its sorted entries in one pass (`BTreeMap::from_iter` fills its nodes, where
    /// inserting one key at a time leaves them about half full), without a lock or a lookup
    /// per row. Restart cost per row is then one cell and one entry per index. None if a
    /// row's key is not its primary key's encoding ([`Table::key_matches`]).
    pub(crate) fn loaded(schema: TableSchema, rows: Vec<(Key, Image)>) -> Option<Table> {
        type Part = Vec<(InlineKey, Arc<RowCell>)>;
        let t = Table::new(schema);
        let parts = || -> Vec<Part> { (0..SHARDS).map(|_| Vec::new()).collect() };
        let mut clustered: Vec<Vec<Arc<RowCell>>> = (0..SHARDS).map(|_| Vec::new()).collect();
        let mut secondary: Vec<Vec<Part>> = t.indexes.iter().map(|_| parts()).collect();
        for (key, row) in rows {
            if !t.key_matches(&key, &row) {
                return None;
            }
            t.observe_row(&key, &row);
            let state = RowState { committed: Some(row.clone()), ..RowState::default() };
            let cell = RowCell::new(&key, state);
            for (i, part) in secondary.iter_mut().enumerate() {
                let (entry, plen) = t.schema.index_entry(i, &row, &key);
                part[hash_bytes(&entry[..plen]) % SHARDS].push((entry.into(), cell.clone()));
            }
            clustered[hash_bytes(&key) % SHARDS].push(cell);
        }
        fill(&t.rows, clustered);
        for (map, part) in t.indexes.iter().zip(secondary) {
            fill(map, part);
        }
        Some(t)
    }

    /// Records that `cell`'s committed image changed since the last checkpoint.
    pub(crate) fn mark_dirty(&self, cell: Arc<RowCell>) {
        let mut d = self.dirty.lock();
        if d.overflow {
            return;
        }
        if d.cells.len() >= DIRTY_CAP {
            d.cells = Vec::new();
            d.overflow = true;
        } else {
            d.cells.push(cell);
        }
    }

    /// Removes `key` directly (replay); returns the cell removed.
    pub(crate) fn apply_delete(&self, key: &[u8]) -> Option<Arc<RowCell>> {
        let cell = self.rows.shard(key).write().remove(key)?;
        let old = {
            let mut st = cell.state.lock();
            st.removed = true;
            st.history.clear();
            st.committed.take()
        };
        if let Some(old) = old {
            for i in 0..self.indexes.len() {
                let (e, plen) = self.schema.index_entry(i, &old, key);
                self.indexes[i].shard(&e[..plen]).write().remove(&e[..]);
            }
        }
        Some(cell)
    }

    /// Removes index entry `entry` of index `idx` if it points at `cell` and no version the
    /// cell keeps has it (checked under the shard's write lock, so no writer re-adds it
    /// meanwhile: writers set their image before they add its entry under the same lock).
    pub(crate) fn remove_index_entry_unless_kept(
        &self,
        idx: usize,
        entry: &[u8],
        plen: usize,
        cell: &Arc<RowCell>,
    ) {
        let mut m = self.indexes[idx].shard(&entry[..plen]).write();
        if !m.get(entry).is_some_and(|c| Arc::ptr_eq(c, cell)) {
            return;
        }
        if !cell.state.lock().any_has_entry(self, idx, &cell.key, entry) {
            m.remove(entry);
        }
    }

    /// Drops the cell from the clustered map if no image and no lock remain on it.
    pub(crate) fn purge_if_empty(&self, cell: &Arc<RowCell>) {
        let mut m = self.rows.shard(&cell.key).write();
        let mut st = cell.state.lock();
        if st.committed.is_none()
            && st.owner.is_none()
            && st.sharers.is_empty()
            && st.history.is_empty()
            && !st.removed
        {
            st.removed = true;
            if m.get(&cell.key).is_some_and(|c| Arc::ptr_eq(c, cell)) {
                m.remove(&cell.key);
            }
        }
    }

    /// Committed rows in key order, read in chunks so writers are never held off for long:
    /// the newest images, or those of read view `view`.
    pub(crate) fn committed_rows(&self, view: Option<u64>) -> Vec<(Key, Image)> {
        const CHUNK: usize = 1024;
        let mut out = Vec::new();
        for shard in self.rows.shards() {
            let mut after: Option<InlineKey> = None;
            loop {
                let m = shard.read();
                let lo = match &after {
                    Some(k) => Bound::Excluded(&k[..]),
                    None => Bound::Unbounded,
                };
                let mut n = 0;
                for cell in m.range((lo, Bound::Unbounded)).take(CHUNK) {
                    n += 1;
                    after = Some(cell.key.clone());
                    let st = cell.state.lock();
                    let r = match view {
                        Some(v) => st.at(v),
                        None => st.committed.as_ref(),
                    };
                    if let Some(r) = r {
                        out.push((Key::from(&*cell.key), r.clone()));
                    }
                }
                if n < CHUNK {
                    break;
                }
            }
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }
}
