//! The engine: transactions over the tables, the redo log and checkpoints.
//!
//! Transaction protocol:
//! - A write claims the row lock (waiting for the holder's end, with deadlock detection and a
//!   timeout), sets the pending image, and adds index entries for it (checking unique keys).
//! - `prepare(xid)` buffers a Prepare record holding the whole row images the transaction
//!   leaves behind (derived from the locked rows, not from a statement log).
//! - `commit` buffers a Commit record (or a OnePhase record with the images if there was no
//!   prepare), then publishes the pending images as committed, removes stale index entries,
//!   releases the locks and wakes the waiters. `rollback` drops the pending images.
//!
//! Invariants:
//! - A row's committed image changes only while its writer holds the row lock, and only after
//!   that writer's commit record has an LSN; so the redo order of commits is the order in
//!   which conflicting changes became visible.
//! - Commits append their record and publish their images inside the commit gate (a shared
//!   lock); a checkpoint takes the gate exclusively to pick its LSN, so every commit below the
//!   LSN is visible and none above it has published anything yet.
//! - A table's `users` counts the transactions holding changes on it; a DDL marks the table
//!   and waits for zero, so DDL never interleaves with a transaction's changes to that table.
//! - A DDL transaction changes the catalog only at commit, inside the commit gate together
//!   with its decision record; until then (prepared included) the catalog is as before, its
//!   tables stay marked and its new names reserved. So a checkpoint holds a prepared DDL as
//!   prepared, and replay applies a DDL exactly where its decision record is.

use std::collections::HashMap;
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use binlog::gtid::{Gtid, GtidSet, Sid};
use parking_lot::{Condvar, Mutex, RwLock};
use vfs::VfsRef;

use crate::checkpoint::{self, Chain, Delta, DeltaTable, PreparedImage, Snapshot, TableImage};
use crate::codec::{Put, Reader};
use crate::error::{Error, Result};
use crate::foreign_keys::ForeignKeyDef;
use crate::mvcc::{Cells, Mvcc, Publish, ReadView};
use crate::redo::{Kind, Lsn, PreparedEntry, ReadRecord, RedoFlushMethod, RedoLog};
use crate::schema::{
    decode_index, decode_schema, encode_index, encode_schema, hidden_key, IndexDef, TableId,
    TableSchema,
};
use crate::table::{
    key_range, Dirty, Image, InlineKey, ReadMode, RowCell, RowState, ShardedMap, Table, TxnShared,
    Version,
};
use crate::value::{encode_key, Key, Row, Value};

/// Engine settings.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// Data bytes per redo file (each file also has a 4 KiB header).
    pub redo_file_bytes: u64,
    /// `innodb_lock_wait_timeout`.
    pub lock_wait_timeout: Duration,
    /// Take a checkpoint in the background once this much redo was written since the last
    /// one; None: only `checkpoint()` takes them.
    pub checkpoint_redo_bytes: Option<u64>,
    /// Binlog-in-redo: recycle no redo until `set_retain_lsn` allows it.
    pub retain_redo_for_binlog: bool,
    /// How a redo flush is made durable (`innodb_flush_method`).
    pub redo_flush_method: RedoFlushMethod,
    /// Recovery mode: false (strict, the default) refuses to open when the redo is damaged
    /// (a bad record followed by records that had been durable) or missing beside a
    /// checkpoint; true (point-in-time) recovers up to the damage and reports the loss in
    /// [`Recovery::lost`], as RocksDB's `kPointInTimeRecovery`.
    pub recovery_accept_loss: bool,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            redo_file_bytes: 8 << 20,
            lock_wait_timeout: Duration::from_secs(50),
            checkpoint_redo_bytes: Some(64 << 20),
            retain_redo_for_binlog: false,
            redo_flush_method: RedoFlushMethod::default(),
            recovery_accept_loss: false,
        }
    }
}

/// A binlog payload record read back from the redo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BinlogPayload {
    pub lsn: Lsn,
    pub end_lsn: Lsn,
    pub bytes: Vec<u8>,
}

/// What recovery found.
#[derive(Debug, Clone, Default)]
pub struct Recovery {
    /// Transactions prepared and not decided: the caller must `commit_prepared` or
    /// `rollback_prepared` each.
    pub prepared_xids: Vec<u64>,
    /// The largest XID in the checkpoint or the redo.
    pub max_xid: u64,
    /// Binlog payload records replayed (those at or after the checkpoint LSN).
    pub binlog_payloads: Vec<BinlogPayload>,
    pub checkpoint_lsn: Lsn,
    /// The end of the valid log (replay stopped here).
    pub end_lsn: Lsn,
    /// The engine was created by this open (no checkpoint and no redo file before it).
    pub fresh: bool,
    /// The engine's executed GTID set: the checkpoint's plus the replayed Commit records'.
    pub gtid_executed: GtidSet,
    /// Damage found and accepted (`EngineConfig::recovery_accept_loss`): what was lost, for
    /// the server to report. Empty in strict mode (damage is an error there).
    pub lost: Vec<String>,
}

/// Counters, cheap to read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EngineStats {
    pub redo_fsyncs: u64,
    pub redo_writes: u64,
    /// Redo flushes made durable by one `O_DIRECT|O_DSYNC` write (also in `redo_fsyncs`).
    pub redo_durable_writes: u64,
    pub redo_bytes_written: u64,
    pub flushed_lsn: Lsn,
    pub next_lsn: Lsn,
    pub checkpoints: u64,
    /// Of `checkpoints`, those written as deltas of the chain (the rest are full bases).
    pub checkpoint_deltas: u64,
    /// Bytes written to checkpoint files (bases and deltas) since the start.
    pub checkpoint_bytes_written: u64,
    pub checkpoint_lsn: Lsn,
    pub redo_files_live: usize,
    pub redo_files_spare: usize,
    /// Committed transactions whose replaced row images are not purged yet (InnoDB's
    /// "History list length").
    pub history_list_length: u64,
    /// Read views open now.
    pub read_views: u64,
    /// Row versions purge has dropped since the start.
    pub purged_versions: u64,
    /// The last published commit sequence number.
    pub visible_seq: u64,
}

/// The outcome of an insert.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inserted {
    /// The clustered key of the new row (for later updates of tables without primary key).
    pub key: Key,
    /// The AUTO_INCREMENT value the engine generated, if it generated one.
    pub auto_inc: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TxnState {
    Active,
    Prepared { xid: u64 },
    Done,
}

thread_local! {
    /// Set while this thread runs inside [`without_waiting`].
    static NO_WAIT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// The row lock holder the last refused wait on this thread was for.
    static REFUSED: std::cell::RefCell<Option<Arc<TxnShared>>> = const { std::cell::RefCell::new(None) };
    /// Set while this thread runs inside [`interruptible`]: what its blocking waits poll.
    static INTERRUPT: std::cell::RefCell<Option<Interrupt>> =
        const { std::cell::RefCell::new(None) };
}

/// A caller's "give up waiting" check ([`interruptible`]).
pub type Interrupt = Arc<dyn Fn() -> bool + Send + Sync>;

/// How often a blocking wait inside [`interruptible`] polls its check: the longest a KILL
/// waits for a statement blocked on a lock to end.
const INTERRUPT_POLL: Duration = Duration::from_millis(50);

/// Runs `f` with this thread's blocking waits (row locks, a table's DDL, the DDL gate)
/// interruptible: they poll `check` every [`INTERRUPT_POLL`] and fail with
/// [`Error::Interrupted`] once it is true, as mysqld's lock waits end when KILL sets the
/// waiter's `killed` flag (`THD::awake` signals the wait's condition; here the wait polls,
/// because the engine knows nothing of connections).
pub fn interruptible<T>(check: Interrupt, f: impl FnOnce() -> T) -> T {
    struct Reset(Option<Interrupt>);
    impl Drop for Reset {
        fn drop(&mut self) {
            let old = self.0.take();
            INTERRUPT.with(|i| *i.borrow_mut() = old);
        }
    }
    let _reset = Reset(INTERRUPT.with(|i| i.borrow_mut().replace(check)));
    f()
}

/// Whether this thread's [`interruptible`] check holds now (the running statement was
/// KILLed): what waits outside the engine poll (SLEEP(), GET_LOCK()).
pub fn interrupt_requested() -> bool {
    INTERRUPT.with(|i| i.borrow().as_ref().is_some_and(|check| check()))
}

/// The moment a blocking wait with `deadline` should next wake to poll the interrupt check
/// (the deadline itself outside [`interruptible`]), and whether the check already holds.
fn wait_slice(deadline: Instant) -> Result<Instant> {
    INTERRUPT.with(|i| match &*i.borrow() {
        None => Ok(deadline),
        Some(check) if check() => Err(Error::Interrupted),
        Some(_) => Ok(deadline.min(Instant::now() + INTERRUPT_POLL)),
    })
}

/// The end of a transaction that holds a row lock someone could not wait for inside
/// [`without_waiting`] ([`refused_wait`]): an async caller awaits it, then runs its statement
/// again. It records no wait-for edge, so only a caller that holds no row locks while it waits
/// (its transaction rolled back) may use it; deadlock detection needs the blocking wait.
pub struct LockWait(Arc<TxnShared>);

impl LockWait {
    /// Ready once the holder has committed or rolled back.
    pub fn poll_end(&self, cx: &mut std::task::Context<'_>) -> std::task::Poll<()> {
        self.0.poll_end(cx)
    }
}

impl std::fmt::Debug for LockWait {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LockWait").field("holder", &self.0.id).finish()
    }
}

/// The row lock holder of this thread's last [`Error::WouldBlock`] from a row lock (None for
/// a table's pending DDL), taken.
pub fn refused_wait() -> Option<LockWait> {
    REFUSED.with(|r| r.borrow_mut().take()).map(LockWait)
}

/// Runs `f` with lock waits refused on this thread: where a row lock (or a table's pending
/// DDL) would make the call wait, it fails with [`Error::WouldBlock`] at once instead. An async
/// server runs statements this way on its event-loop threads, which must never block, and runs
/// a statement that got `WouldBlock` again (after undoing it) on a thread that may wait. No
/// wait-for edge is recorded for a refused wait, so deadlock detection is unaffected.
pub fn without_waiting<T>(f: impl FnOnce() -> T) -> T {
    struct Reset(bool);
    impl Drop for Reset {
        fn drop(&mut self) {
            NO_WAIT.set(self.0);
        }
    }
    let _reset = Reset(NO_WAIT.replace(true));
    REFUSED.with(|r| *r.borrow_mut() = None);
    f()
}

/// True while [`without_waiting`] runs on this thread: a caller that would block for another
/// reason than a row lock (a SQL function that waits, e.g. `WAIT_FOR_EXECUTED_GTID_SET`) must
/// fail with [`Error::WouldBlock`] too, so the statement runs again where it may wait.
pub fn waits_refused() -> bool {
    NO_WAIT.get()
}

/// A locked row and the image its owner sees.
type Claimed = (Arc<RowCell>, Option<Image>);
/// A row whose committed image a commit replaced: (table slot, cell, previous image, the image
/// committed now).
type Replaced = (usize, Arc<RowCell>, Option<Image>, Option<Image>);

struct IndexAdded {
    slot: usize,
    idx: usize,
    entry: Key,
    plen: usize,
    cell: Arc<RowCell>,
}

/// A transaction. Dropping one that was neither committed nor rolled back rolls it back.
pub struct Txn {
    engine: Weak<Inner>,
    shared: Arc<TxnShared>,
    state: TxnState,
    /// Tables this transaction registered as a user of.
    tables: Vec<Arc<Table>>,
    /// Rows whose lock this transaction holds: (slot in `tables`, cell).
    touched: Vec<(usize, Arc<RowCell>)>,
    /// Rows it holds a shared (S) lock on: (slot in `tables`, cell).
    shared_locks: Vec<(usize, Arc<RowCell>)>,
    index_added: Vec<IndexAdded>,
    /// Schema changes this transaction holds (a DDL transaction changes no rows).
    ddl: Vec<DdlStep>,
    /// Whether it holds the engine's DDL gate (one DDL transaction at a time).
    holds_ddl_gate: bool,
    /// The GTID its Commit record carries (`set_gtid`): the engine's own copy of
    /// `gtid_executed`, as mysqld's `mysql.gtid_executed` table is InnoDB's.
    gtid: Option<Gtid>,
    /// The read view its non-locking reads use (None: the newest committed images).
    view: Option<ReadView>,
    /// Reads see the newest committed images whatever the view (locking reads).
    read_latest: bool,
    /// Reads see other transactions' uncommitted images (READ UNCOMMITTED).
    read_dirty: bool,
    /// The session's `innodb_lock_wait_timeout` (None: the engine's configured one). mysqld
    /// reads it at each row lock wait (`thd_lock_wait_timeout`), so it is set per statement.
    lock_wait_timeout: Option<Duration>,
    /// Locking reads take gap locks on the key ranges they scan (REPEATABLE READ and
    /// SERIALIZABLE; see `gaps.rs`).
    gap_locks: bool,
    /// Tables it holds gap locks on (registered as a user of each, as of `tables`). Behind a
    /// mutex because scans take the transaction by shared reference.
    gap_tables: Mutex<Vec<Arc<Table>>>,
}

impl Txn {
    pub fn id(&self) -> u64 {
        self.shared.id
    }

    /// The XID given at prepare.
    pub fn xid(&self) -> Option<u64> {
        match self.state {
            TxnState::Prepared { xid } => Some(xid),
            _ => None,
        }
    }

    /// Names the GTID the commit layer gave the transaction; its Commit record carries it and
    /// the engine's executed set (`Engine::gtid_executed`) gains it with the commit.
    pub fn set_gtid(&mut self, gtid: Gtid) {
        self.gtid = Some(gtid);
    }

    /// Sets (or clears) the read view its non-locking reads use; returns the previous one.
    pub fn set_read_view(&mut self, view: Option<ReadView>) -> Option<ReadView> {
        std::mem::replace(&mut self.view, view)
    }

    /// The read view its non-locking reads use.
    pub fn read_view(&self) -> Option<&ReadView> {
        self.view.as_ref()
    }

    /// With `latest`, reads see the newest committed images (and the transaction's own) as
    /// a locking read must, whatever the view; returns the previous setting.
    pub fn set_read_latest(&mut self, latest: bool) -> bool {
        std::mem::replace(&mut self.read_latest, latest)
    }

    /// With `dirty`, reads without `read_latest` see other transactions' uncommitted images
    /// (READ UNCOMMITTED); returns the previous setting.
    pub fn set_read_uncommitted(&mut self, dirty: bool) -> bool {
        std::mem::replace(&mut self.read_dirty, dirty)
    }

    /// Sets how long its row lock waits last (the session's `innodb_lock_wait_timeout`);
    /// None: the engine's configured timeout.
    pub fn set_lock_wait_timeout(&mut self, timeout: Option<Duration>) {
        self.lock_wait_timeout = timeout;
    }

    /// With `on`, its locking reads (reads while `set_read_latest(true)`, `get_for_update`,
    /// `get_for_share`) lock the key ranges they scan against other transactions' inserts
    /// (InnoDB's gap locks, taken under REPEATABLE READ and SERIALIZABLE); returns the
    /// previous setting.
    pub fn set_gap_locks(&mut self, on: bool) -> bool {
        std::mem::replace(&mut self.gap_locks, on)
    }

    /// Whether its reads now lock the ranges they scan (a locking read with gap locks on).
    pub(crate) fn gap_locking(&self) -> bool {
        self.gap_locks && self.read_latest
    }

    /// How many gap locks (intervals) it holds.
    pub fn gap_lock_count(&self) -> usize {
        let me = self.shared.id;
        self.gap_tables
            .lock()
            .iter()
            .map(|t| t.gaps.iter().map(|g| g.count_of(me)).sum::<usize>())
            .sum()
    }

    /// What its reads see now.
    pub fn read_mode(&self) -> ReadMode {
        if self.read_latest {
            ReadMode::Latest
        } else if self.read_dirty {
            ReadMode::Uncommitted
        } else {
            match &self.view {
                Some(v) => ReadMode::Snapshot(v.seq()),
                None => ReadMode::Latest,
            }
        }
    }

    /// Whether the transaction changed or locked no row and holds no schema change.
    pub fn is_read_only(&self) -> bool {
        self.touched.is_empty() && self.ddl.is_empty()
    }

    /// Whether the transaction holds schema changes (a DDL transaction).
    pub fn is_ddl(&self) -> bool {
        self.holds_ddl_gate || !self.ddl.is_empty()
    }
}

impl std::fmt::Debug for Txn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Txn").field("id", &self.shared.id).field("state", &self.state).finish()
    }
}

impl Drop for Txn {
    fn drop(&mut self) {
        if self.state != TxnState::Done {
            match self.engine.upgrade() {
                Some(inner) => {
                    // An error here means the log is poisoned; recovery decides the outcome.
                    let _ = inner.rollback_impl(self);
                }
                None => release(self),
            }
        }
    }
}

/// A schema change as logged.
#[derive(Debug, Clone)]
enum Ddl {
    CreateTable(TableSchema),
    DropTable(TableId),
    Truncate(TableId),
    CreateIndex(TableId, IndexDef),
    DropIndex(TableId, String),
    /// ALTER TABLE / RENAME TABLE: the table's new definition, and its rows in the new format
    /// when the row format changes (None: the rows are kept; see `engine/alter.rs`).
    Replace(TableId, TableSchema, Option<Vec<Row>>),
    /// The table's foreign keys become the list given (ALTER TABLE ADD/DROP FOREIGN KEY), after
    /// adding the supporting indexes given: metadata only, rows unchanged.
    SetForeignKeys(TableId, Vec<ForeignKeyDef>, Vec<IndexDef>),
    /// CREATE TABLE ... SELECT: a new table holding exactly these rows (normalized to the
    /// schema, checked for duplicate keys when staged), created by one DDL step so that the
    /// table and its rows are both there or both gone after a crash (MySQL 8.0.21's atomic
    /// CREATE TABLE ... SELECT, WL#13355).
    CreateTableRows(TableSchema, Vec<Row>),
}

// Format (ddl): u8 op | 1: schema; 2 drop, 3 truncate: u32 table; 4: u32 table, index;
// 5: u32 table, bytes name.
fn encode_ddl(d: &Ddl) -> Vec<u8> {
    let mut b = Vec::new();
    match d {
        Ddl::CreateTable(s) => {
            b.put_u8(1);
            encode_schema(&mut b, s);
        }
        Ddl::DropTable(t) => {
            b.put_u8(2);
            b.put_u32(*t);
        }
        Ddl::Truncate(t) => {
            b.put_u8(3);
            b.put_u32(*t);
        }
        Ddl::CreateIndex(t, i) => {
            b.put_u8(4);
            b.put_u32(*t);
            encode_index(&mut b, i);
        }
        Ddl::DropIndex(t, n) => {
            b.put_u8(5);
            b.put_u32(*t);
            b.put_bytes(n.as_bytes());
        }
        Ddl::Replace(t, s, rows) => alter::encode_replace(&mut b, *t, s, rows.as_deref()),
        // 20: u32 table, u16 index count, indexes, foreign keys (code clear of other lanes'
        // new DDL kinds).
        Ddl::SetForeignKeys(t, fks, indexes) => {
            b.put_u8(20);
            b.put_u32(*t);
            b.put_u16(indexes.len() as u16);
            for i in indexes {
                encode_index(&mut b, i);
            }
            crate::foreign_keys::encode(&mut b, fks);
        }
        // 24: schema, u32 row count, rows (code clear of other lanes' new DDL kinds).
        Ddl::CreateTableRows(s, rows) => {
            b.put_u8(24);
            encode_schema(&mut b, s);
            b.put_u32(rows.len() as u32);
            for r in rows {
                crate::value::encode_row(&mut b, r);
            }
        }
    }
    b
}

fn decode_ddl(buf: &[u8], lsn: Lsn) -> Result<Ddl> {
    let mut r = Reader::new(buf, "ddl record", lsn.0);
    let d = decode_ddl_from(&mut r)?;
    if !r.is_empty() {
        return Err(r.corrupt());
    }
    Ok(d)
}

// Format (ddl list): u32 count | per DDL: bytes (ddl).
fn encode_ddl_list(steps: &[DdlStep]) -> Vec<u8> {
    let mut b = Vec::new();
    b.put_u32(steps.len() as u32);
    for s in steps {
        b.put_bytes(&encode_ddl(&s.ddl));
    }
    b
}

/// Fuzzing: decodes a record payload as replay decodes its kind (never applies it).
pub(crate) fn fuzz_record_payload(kind: u8, payload: &[u8]) {
    let lsn = Lsn(0);
    let mut rd = Reader::new(payload, "fuzz", 0);
    let has_xid = rd.u64().is_ok();
    match kind & 0x7f {
        1 if has_xid => {
            let _ = decode_ops(&payload[8..], 0);
        }
        8 if has_xid => {
            let _ = decode_ddl_list(&payload[8..], lsn);
        }
        2 if has_xid && !rd.is_empty() => {
            let _ = decode_gtid(&mut rd);
        }
        4 => {
            let _ = decode_ops(payload, 0);
        }
        6 => {
            let _ = decode_ddl(payload, lsn);
        }
        9 => {
            let _ = decode_ddl_list(payload, lsn);
        }
        _ => {}
    }
}

/// Fuzzing seeds: a checkpoint holding a table, rows, a prepared transaction and GTIDs, and
/// the redo data region of an engine that ran a few transactions and DDL.
pub(crate) fn fuzz_seeds() -> Vec<(&'static str, Vec<u8>)> {
    use crate::schema::{Column, ColumnType};
    let sim = vfs::SimVfs::new();
    let config = EngineConfig {
        redo_file_bytes: 16 << 10,
        checkpoint_redo_bytes: None,
        ..EngineConfig::default()
    };
    let dir = Path::new("/seed");
    let (e, _) = Engine::open(sim.shared(), dir, config).expect("seed engine");
    let int = ColumnType::Integer { bytes: 8, unsigned: false };
    let t = e
        .create_table(TableSchema::new(
            "t",
            vec![Column::new("k", int), Column::new("v", ColumnType::VarChar(20))],
            vec![0],
        ))
        .expect("table");
    let sid = Sid([7; 16]);
    for k in 0..4i64 {
        let mut tx = e.begin();
        e.insert(&mut tx, t, vec![Value::Int(k), Value::Bytes(b"seed".to_vec())]).expect("insert");
        e.prepare(&mut tx, k as u64 + 1).expect("prepare");
        tx.set_gtid(Gtid::new(sid, k as u64 + 1).expect("gno"));
        e.commit(tx).expect("commit");
    }
    let mut open = e.begin();
    e.insert(&mut open, t, vec![Value::Int(9), Value::Null]).expect("insert");
    e.prepare(&mut open, 99).expect("prepare");
    e.flush_all().expect("flush");
    let redo = sim.shared().list_dir(&dir.join("#redo")).expect("list");
    let file =
        sim.shared().open(&dir.join("#redo").join(&redo[0]), vfs::OpenMode::Read).expect("open");
    let mut data = vec![0u8; (crate::redo::HEADER_BYTES + (16 << 10)) as usize];
    let n = file.read_at(&mut data, 0).expect("read");
    data.truncate(n);
    let mut redo_seed = 0u64.to_le_bytes().to_vec();
    redo_seed.extend_from_slice(&data[crate::redo::HEADER_BYTES as usize..]);
    e.checkpoint().expect("checkpoint");
    let ck =
        sim.shared().open(&dir.join(checkpoint::FILE_NAME), vfs::OpenMode::Read).expect("open");
    let mut ckb = vec![0u8; ck.len().expect("len") as usize];
    ck.read_exact_at(&mut ckb, 0).expect("read");
    e.abandon(open);
    vec![("redo_records", redo_seed), ("checkpoint", ckb)]
}

/// A GTID in a Commit record: sid (16 bytes) | u64 gno.
fn encode_gtid(g: Gtid) -> Vec<u8> {
    let mut b = Vec::with_capacity(24);
    b.extend_from_slice(&g.sid.0);
    b.put_u64(g.gno);
    b
}

fn decode_gtid(r: &mut Reader<'_>) -> Result<Gtid> {
    let sid = Sid(r.take(16)?.try_into().map_err(|_| r.corrupt())?);
    let gno = r.u64()?;
    let g = Gtid::new(sid, gno).map_err(|_| r.corrupt())?;
    if !r.is_empty() {
        return Err(r.corrupt());
    }
    Ok(g)
}

fn decode_ddl_list(buf: &[u8], lsn: Lsn) -> Result<Vec<Ddl>> {
    let mut r = Reader::new(buf, "ddl list", lsn.0);
    let n = r.u32()?;
    let mut v = Vec::new();
    for _ in 0..n {
        v.push(decode_ddl(r.bytes()?, lsn)?);
    }
    if !r.is_empty() {
        return Err(r.corrupt());
    }
    Ok(v)
}

/// A schema change a DDL transaction holds until it ends. Until then the catalog is
/// unchanged: the table it changes is marked for DDL (writers wait), a new table's name is
/// reserved, and the replacement table object is already built (checks done).
struct DdlStep {
    ddl: Ddl,
    /// The table marked for DDL (`ddl_pending`); None for CREATE TABLE.
    locked: Option<Arc<Table>>,
    /// The table object installed at commit (all but DROP TABLE).
    built: Option<Arc<Table>>,
}

fn decode_ddl_from(r: &mut Reader<'_>) -> Result<Ddl> {
    let d = match r.u8()? {
        1 => Ddl::CreateTable(decode_schema(r)?),
        2 => Ddl::DropTable(r.u32()?),
        3 => Ddl::Truncate(r.u32()?),
        4 => Ddl::CreateIndex(r.u32()?, decode_index(r)?),
        5 => Ddl::DropIndex(r.u32()?, r.string()?),
        6 => alter::decode_replace(r)?,
        20 => {
            let t = r.u32()?;
            let n = r.u16()?;
            let indexes = (0..n).map(|_| decode_index(r)).collect::<Result<Vec<_>>>()?;
            Ddl::SetForeignKeys(t, crate::foreign_keys::decode(r)?, indexes)
        }
        24 => {
            let s = decode_schema(r)?;
            let n = r.u32()?;
            // No allocation on the count: each row is read from the bytes present.
            let mut rows = Vec::new();
            for _ in 0..n {
                rows.push(crate::value::decode_row(r)?);
            }
            Ddl::CreateTableRows(s, rows)
        }
        _ => return Err(r.corrupt()),
    };
    Ok(d)
}

/// One change in a Prepare or OnePhase record.
enum Op {
    Put { table: TableId, key: Key, row: Image },
    Delete { table: TableId, key: Key },
}

// Format (ops): u32 count | per op: u8 kind (1 put, 2 delete) | u32 table | bytes key | row
// (put only).
fn decode_ops(buf: &[u8], base: u64) -> Result<Vec<Op>> {
    let mut r = Reader::new(buf, "redo ops", base);
    let n = r.u32()?;
    let mut ops = Vec::new();
    for _ in 0..n {
        let kind = r.u8()?;
        let table = r.u32()?;
        let key: Key = r.bytes()?.into();
        ops.push(match kind {
            1 => Op::Put { table, key, row: Image::read(&mut r)? },
            2 => Op::Delete { table, key },
            _ => return Err(r.corrupt()),
        });
    }
    Ok(ops)
}

#[derive(Default)]
struct Catalog {
    tables: HashMap<TableId, Arc<Table>>,
    names: HashMap<String, TableId>,
    /// Lower-cased names of tables a DDL transaction creates, until it ends.
    reserved: HashMap<String, TableId>,
    next_id: TableId,
    /// How many installed tables have foreign keys (0: no write needs a parent lookup).
    with_fks: usize,
    /// How many installed entries are views (0: no statement needs a view lookup).
    views: usize,
    /// Table names compare case-insensitively (`lower_case_table_names` 1 or 2); false:
    /// as mysqld on Linux with 0, `t` and `T` are two tables.
    fold: bool,
}

impl Catalog {
    /// The key of a table name in `names` and `reserved`: the name itself, or folded to
    /// lower case when names are case-insensitive.
    pub(super) fn key(&self, name: &str) -> String {
        if self.fold {
            name.to_ascii_lowercase()
        } else {
            name.to_string()
        }
    }

    fn install(&mut self, t: Arc<Table>) {
        self.next_id = self.next_id.max(t.schema.id + 1);
        let id = t.schema.id;
        let lname = self.key(&t.schema.name);
        self.with_fks += usize::from(!t.schema.foreign_keys.is_empty());
        self.views += usize::from(t.schema.view.is_some());
        if let Some(old) = self.tables.insert(id, t) {
            self.with_fks -= usize::from(!old.schema.foreign_keys.is_empty());
            self.views -= usize::from(old.schema.view.is_some());
            // A renamed table gives up its old name, unless a table renamed in the same
            // transaction (a swap) took it already.
            let old_name = self.key(&old.schema.name);
            if old_name != lname && self.names.get(&old_name) == Some(&id) {
                self.names.remove(&old_name);
            }
            retire(&old);
        }
        self.names.insert(lname, id);
    }

    fn remove(&mut self, id: TableId) {
        if let Some(old) = self.tables.remove(&id) {
            let key = self.key(&old.schema.name);
            self.names.remove(&key);
            self.with_fks -= usize::from(!old.schema.foreign_keys.is_empty());
            self.views -= usize::from(old.schema.view.is_some());
            retire(&old);
        }
    }
}

/// Marks a table object as replaced and wakes writers waiting for its DDL.
fn retire(t: &Table) {
    let _g = t.mdl.lock();
    t.retired.store(true, Ordering::SeqCst);
    t.ddl_pending.store(false, Ordering::SeqCst);
    t.mdl_cv.notify_all();
}

struct Inner {
    vfs: VfsRef,
    dir: PathBuf,
    config: EngineConfig,
    log: RedoLog,
    catalog: RwLock<Catalog>,
    commit_gate: RwLock<()>,
    /// Commit sequence numbers, read views, history list and purge.
    mvcc: Arc<Mvcc>,
    /// Held (true) by the one DDL transaction in progress, from its first change to its end.
    ddl_gate: Mutex<bool>,
    ddl_gate_cv: Condvar,
    /// Held by the one checkpoint in progress; the chain it extends.
    checkpoint_lock: Mutex<ChainState>,
    /// The read view (commit sequence number) of the last checkpoint that took the tables'
    /// dirty sets: a commit replacing a version at or below it pushes the cell (written under
    /// the exclusive commit gate, read under the shared one).
    dirty_from: AtomicU64,
    /// The wait-for graph: waiting transaction id -> the holder it waits for.
    waits: Mutex<HashMap<u64, Arc<TxnShared>>>,
    next_txn_id: AtomicU64,
    max_xid: AtomicU64,
    /// Prepared transactions found by recovery, by XID.
    recovered: Mutex<HashMap<u64, Txn>>,
    checkpoints: AtomicU64,
    checkpoint_deltas: AtomicU64,
    checkpoint_bytes: AtomicU64,
    checkpoint_lsn: AtomicU64,
    /// Background checkpointer: stop flag and wake-up.
    bg_stop: Mutex<bool>,
    bg_cv: Condvar,
    bg_thread: Mutex<Option<JoinHandle<()>>>,
}

/// The engine handle; clones share one engine.
#[derive(Clone)]
pub struct Engine {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine").field("dir", &self.inner.dir).finish()
    }
}

impl Engine {
    /// Opens (creating if needed) the engine in `dir`: loads the checkpoint, replays the redo,
    /// and re-locks the rows of transactions left prepared.
    pub fn open(vfs: VfsRef, dir: &Path, config: EngineConfig) -> Result<(Engine, Recovery)> {
        vfs.create_dir_all(dir)?;
        let log = RedoLog::open(
            vfs.clone(),
            &dir.join("#redo"),
            config.redo_file_bytes,
            config.retain_redo_for_binlog,
            config.redo_flush_method,
        )?;
        let inner = Arc::new(Inner {
            vfs: vfs.clone(),
            dir: dir.to_path_buf(),
            config,
            log,
            catalog: RwLock::new(Catalog::default()),
            commit_gate: RwLock::new(()),
            mvcc: Arc::new(Mvcc::default()),
            ddl_gate: Mutex::new(false),
            ddl_gate_cv: Condvar::new(),
            checkpoint_lock: Mutex::new(ChainState::default()),
            dirty_from: AtomicU64::new(0),
            waits: Mutex::new(HashMap::new()),
            next_txn_id: AtomicU64::new(1),
            max_xid: AtomicU64::new(0),
            recovered: Mutex::new(HashMap::new()),
            checkpoints: AtomicU64::new(0),
            checkpoint_deltas: AtomicU64::new(0),
            checkpoint_bytes: AtomicU64::new(0),
            checkpoint_lsn: AtomicU64::new(0),
            bg_stop: Mutex::new(false),
            bg_cv: Condvar::new(),
            bg_thread: Mutex::new(None),
        });
        let recovery = inner.recover()?;
        let engine = Engine { inner };
        engine.start_background(engine.inner.config.checkpoint_redo_bytes);
        Ok((engine, recovery))
    }

    /// The background thread: purge every 100 ms, and a checkpoint after `bytes` of redo.
    fn start_background(&self, bytes: Option<u64>) {
        let weak = Arc::downgrade(&self.inner);
        let handle = std::thread::Builder::new()
            .name("engine-checkpoint".into())
            .spawn(move || loop {
                let Some(inner) = weak.upgrade() else { return };
                {
                    let mut stop = inner.bg_stop.lock();
                    if *stop {
                        return;
                    }
                    inner.bg_cv.wait_for(&mut stop, Duration::from_millis(100));
                    if *stop {
                        return;
                    }
                }
                while inner.mvcc.purge(1024) == 1024 {}
                let Some(bytes) = bytes else { continue };
                let since = inner
                    .log
                    .next_lsn()
                    .0
                    .saturating_sub(inner.checkpoint_lsn.load(Ordering::Acquire));
                if since >= bytes && !inner.log.is_poisoned() {
                    // A failure leaves the previous checkpoint in force; the next round retries.
                    let _ = inner.checkpoint(false);
                }
            })
            .expect("spawning the checkpoint thread");
        *self.inner.bg_thread.lock() = Some(handle);
    }

    /// Stops the background checkpointer and makes everything appended durable.
    pub fn shutdown(&self) -> Result<()> {
        *self.inner.bg_stop.lock() = true;
        self.inner.bg_cv.notify_all();
        if let Some(h) = self.inner.bg_thread.lock().take() {
            // The thread only ends by returning; a panic there already printed its message.
            let _ = h.join();
        }
        // A sharp checkpoint at a clean shutdown (as InnoDB's slow shutdown flushes every
        // page): the next start replays nothing and recycles the whole redo. A full base,
        // which also ends the delta chain: the directory is back to one checkpoint file.
        if self.inner.log.is_poisoned() {
            return Err(Error::Poisoned);
        }
        self.inner.checkpoint(true)?;
        self.inner.log.flush_up_to(self.inner.log.next_lsn())
    }

    // ---- catalog and DDL -------------------------------------------------------------------
    //
    // A DDL statement is a transaction holding schema changes instead of row changes: the
    // `*_in` calls check and stage each change (marking the table for DDL, reserving a new
    // table's name, building the replacement table) without touching the catalog; `prepare`
    // logs them in a DdlPrepare record with the XID, `commit` logs Commit and installs them in
    // the catalog (inside the commit gate, so a checkpoint sees all or nothing of them),
    // `rollback` (or dropping the transaction) undoes the staging. So a DDL follows the same
    // two-phase commit as rows do: recovery returns a prepared DDL's XID for the coordinator
    // to commit (its binlog event is in the binlog) or roll back. One DDL transaction runs at a
    // time (the DDL gate). The one-call forms (`create_table`, ...) commit at once without 2PC
    // and are durable on return (servers without a binlog, tests, tools).

    /// CREATE TABLE; durable on return. Returns the new table's id.
    pub fn create_table(&self, schema: TableSchema) -> Result<TableId> {
        let mut txn = self.begin();
        let id = self.create_table_in(&mut txn, schema)?;
        self.commit_durably(txn)?;
        Ok(id)
    }

    /// DROP TABLE; waits (up to the lock wait timeout) for transactions using it.
    pub fn drop_table(&self, id: TableId) -> Result<()> {
        let mut txn = self.begin();
        self.drop_table_in(&mut txn, id)?;
        self.commit_durably(txn)
    }

    /// TRUNCATE TABLE (also resets AUTO_INCREMENT).
    pub fn truncate(&self, id: TableId) -> Result<()> {
        let mut txn = self.begin();
        self.truncate_in(&mut txn, id)?;
        self.commit_durably(txn)
    }

    /// `CREATE [UNIQUE] INDEX`; fails with 1062 if existing rows violate a unique index.
    pub fn create_index(&self, id: TableId, index: IndexDef) -> Result<()> {
        let mut txn = self.begin();
        self.create_index_in(&mut txn, id, index)?;
        self.commit_durably(txn)
    }

    /// DROP INDEX.
    pub fn drop_index(&self, id: TableId, name: &str) -> Result<()> {
        let mut txn = self.begin();
        self.drop_index_in(&mut txn, id, name)?;
        self.commit_durably(txn)
    }

    fn commit_durably(&self, txn: Txn) -> Result<()> {
        let end = self.commit(txn)?;
        self.inner.log.flush_up_to(end)
    }

    /// Stages CREATE TABLE in DDL transaction `txn` (see above); returns the id the table will
    /// have once `txn` commits.
    pub fn create_table_in(&self, txn: &mut Txn, mut schema: TableSchema) -> Result<TableId> {
        let inner = &self.inner;
        inner.enter_ddl(txn)?;
        schema.validate()?;
        let step = inner.stage(txn, Ddl::CreateTable(schema), true)?;
        let id = match &step.ddl {
            Ddl::CreateTable(s) => s.id,
            _ => unreachable!("staged what was given"),
        };
        txn.ddl.push(step);
        Ok(id)
    }

    /// Stages CREATE TABLE ... SELECT in DDL transaction `txn`: a new table holding exactly
    /// `rows` (normalized to `schema`; 1062 on a duplicate primary or unique key, nothing
    /// staged). The DdlPrepare record logs the rows with the schema, so recovery installs the
    /// table with its rows or not at all. Returns the id the table will have.
    pub fn create_table_with_rows_in(
        &self,
        txn: &mut Txn,
        mut schema: TableSchema,
        rows: Vec<Row>,
    ) -> Result<TableId> {
        let inner = &self.inner;
        inner.enter_ddl(txn)?;
        schema.validate()?;
        let step = inner.stage(txn, Ddl::CreateTableRows(schema, rows), true)?;
        let id = match &step.ddl {
            Ddl::CreateTableRows(s, _) => s.id,
            _ => unreachable!("staged what was given"),
        };
        txn.ddl.push(step);
        Ok(id)
    }

    /// Stages DROP TABLE in `txn`; waits (up to the lock wait timeout) for transactions
    /// holding changes on the table.
    pub fn drop_table_in(&self, txn: &mut Txn, id: TableId) -> Result<()> {
        self.inner.enter_ddl(txn)?;
        let step = self.inner.stage(txn, Ddl::DropTable(id), true)?;
        txn.ddl.push(step);
        Ok(())
    }

    /// Stages TRUNCATE TABLE in `txn`.
    pub fn truncate_in(&self, txn: &mut Txn, id: TableId) -> Result<()> {
        self.inner.enter_ddl(txn)?;
        let step = self.inner.stage(txn, Ddl::Truncate(id), true)?;
        txn.ddl.push(step);
        Ok(())
    }

    /// Stages `CREATE [UNIQUE] INDEX` in `txn` (the index is built now: 1062 if existing rows
    /// violate a unique index).
    pub fn create_index_in(&self, txn: &mut Txn, id: TableId, index: IndexDef) -> Result<()> {
        self.inner.enter_ddl(txn)?;
        let step = self.inner.stage(txn, Ddl::CreateIndex(id, index), true)?;
        txn.ddl.push(step);
        Ok(())
    }

    /// Stages DROP INDEX in `txn`.
    pub fn drop_index_in(&self, txn: &mut Txn, id: TableId, name: &str) -> Result<()> {
        self.inner.enter_ddl(txn)?;
        let step = self.inner.stage(txn, Ddl::DropIndex(id, name.to_string()), true)?;
        txn.ddl.push(step);
        Ok(())
    }

    /// Stages a change of table `id`'s foreign keys in `txn`: they become `fks` (checked against
    /// the table), after `indexes` are added (the supporting indexes InnoDB creates for new
    /// constraints). Metadata only: the SQL layer has checked existing rows.
    pub fn set_foreign_keys_in(
        &self,
        txn: &mut Txn,
        id: TableId,
        fks: Vec<ForeignKeyDef>,
        indexes: Vec<IndexDef>,
    ) -> Result<()> {
        self.inner.enter_ddl(txn)?;
        let step = self.inner.stage(txn, Ddl::SetForeignKeys(id, fks, indexes), true)?;
        txn.ddl.push(step);
        Ok(())
    }

    /// The tables with a foreign key whose parent is `parent` (an engine name, compared
    /// case-insensitively), with their ids; empty at once when no table has foreign keys.
    pub fn referencing(&self, parent: &str) -> Vec<(TableId, Arc<TableSchema>)> {
        let c = self.inner.catalog.read();
        if c.with_fks == 0 {
            return Vec::new();
        }
        let mut v: Vec<_> = c
            .tables
            .values()
            .filter(|t| t.schema.foreign_keys.iter().any(|f| c.key(&f.parent) == c.key(parent)))
            .map(|t| (t.schema.id, t.schema.clone()))
            .collect();
        v.sort_by_key(|(id, _)| *id);
        v
    }

    /// Whether the catalog holds a view (`TableSchema::view`): false lets a statement skip
    /// looking its tables up as views.
    pub fn has_views(&self) -> bool {
        self.inner.catalog.read().views > 0
    }

    /// The id of the table named `name` (case-insensitive unless names are case-sensitive,
    /// [`Engine::set_name_folding`]).
    pub fn table_id(&self, name: &str) -> Option<TableId> {
        let c = self.inner.catalog.read();
        c.names.get(&c.key(name)).copied()
    }

    /// Whether `a` and `b` name the same table (see [`Engine::table_id`]).
    pub fn same_table_name(&self, a: &str, b: &str) -> bool {
        if self.folds_names() {
            a.eq_ignore_ascii_case(b)
        } else {
            a == b
        }
    }

    /// Whether table names compare case-insensitively (`lower_case_table_names` 1 or 2).
    pub fn folds_names(&self) -> bool {
        self.inner.catalog.read().fold
    }

    /// `lower_case_table_names`: `fold` makes table names case-insensitive (1, 2), else they
    /// compare exactly (0, mysqld's default on Linux). Set once at start-up, before any
    /// session; the name index is rebuilt (no two tables of an old data directory can
    /// differ only in case, since they were created with folding, so none is lost).
    pub fn set_name_folding(&self, fold: bool) {
        let mut c = self.inner.catalog.write();
        c.fold = fold;
        let names: Vec<(String, TableId)> =
            c.tables.values().map(|t| (t.schema.name.clone(), t.schema.id)).collect();
        let mut rebuilt = HashMap::with_capacity(names.len());
        for (name, id) in names {
            rebuilt.insert(c.key(&name), id);
        }
        c.names = rebuilt;
        let reserved: Vec<(String, TableId)> = c.reserved.drain().collect();
        for (name, id) in reserved {
            let k = c.key(&name);
            c.reserved.insert(k, id);
        }
    }

    /// The id and definition of the table named `name` (see [`Engine::table_id`]), read
    /// together (one catalog lock; no copy of a name already in lower case).
    pub fn table_named(&self, name: &str) -> Option<(TableId, Arc<TableSchema>)> {
        let catalog = self.inner.catalog.read();
        let id = if catalog.fold && name.bytes().any(|b| b.is_ascii_uppercase()) {
            catalog.names.get(&name.to_ascii_lowercase())
        } else {
            catalog.names.get(name)
        }
        .copied()?;
        catalog.tables.get(&id).map(|t| (id, t.schema.clone()))
    }

    pub fn schema(&self, id: TableId) -> Option<Arc<TableSchema>> {
        self.inner.catalog.read().tables.get(&id).map(|t| t.schema.clone())
    }

    /// All table definitions, by id.
    pub fn tables(&self) -> Vec<Arc<TableSchema>> {
        let mut v: Vec<_> =
            self.inner.catalog.read().tables.values().map(|t| t.schema.clone()).collect();
        v.sort_by_key(|s| s.id);
        v
    }

    /// The next AUTO_INCREMENT value of a table.
    pub fn auto_increment(&self, id: TableId) -> Option<u64> {
        self.inner.catalog.read().tables.get(&id).map(|t| t.auto_inc.load(Ordering::Acquire))
    }

    /// The number of rows with a committed image (ghosts of uncommitted inserts excluded).
    pub fn row_count(&self, id: TableId) -> Result<usize> {
        let t = self.inner.table(id)?;
        Ok(t.committed_rows(None).len())
    }

    // ---- versions and read views --------------------------------------------------------------

    /// A consistent read view at the last published commit (see `mvcc.rs`). Give it to a
    /// transaction with [`Txn::set_read_view`].
    pub fn read_view(&self) -> ReadView {
        self.inner.mvcc.view()
    }

    /// The last published commit sequence number.
    pub fn visible_seq(&self) -> u64 {
        self.inner.mvcc.visible()
    }

    /// Purges every history-list entry no live read view needs; returns how many.
    pub fn purge(&self) -> usize {
        let mut n = 0;
        loop {
            let k = self.inner.mvcc.purge(1024);
            n += k;
            if k < 1024 {
                return n;
            }
        }
    }

    // ---- transactions -----------------------------------------------------------------------

    pub fn begin(&self) -> Txn {
        self.inner.begin()
    }

    /// Inserts a row (one value per column). A NULL or 0 in the AUTO_INCREMENT column takes the
    /// next value. 1062 if the primary or a unique key exists.
    pub fn insert(&self, txn: &mut Txn, table: TableId, mut row: Row) -> Result<Inserted> {
        let inner = &self.inner;
        check_active(txn)?;
        let (slot, t) = inner.txn_table(txn, table)?;
        if t.schema.view.is_some() {
            // A view never holds rows: the SQL layer refuses writes to it (1471) first.
            return Err(Error::NoSuchTable { name: t.schema.name.clone() });
        }
        let mut auto_inc = None;
        if let Some(a) = t.schema.auto_increment_column() {
            if matches!(row.get(a), Some(Value::Null | Value::Int(0) | Value::UInt(0))) {
                let v = t.auto_inc.fetch_add(1, Ordering::AcqRel);
                row[a] = Value::UInt(v);
                auto_inc = Some(v);
            }
        }
        t.schema.normalize_row(&mut row)?;
        if let Some(a) = t.schema.auto_increment_column() {
            t.observe_auto_inc(&row[a]);
        }
        let key = if t.schema.primary_key.is_empty() {
            hidden_key(t.next_row_id.fetch_add(1, Ordering::AcqRel))
        } else {
            t.schema.primary_key_of(&row)
        };
        let mut deadline = None;
        let (cell, view) = inner
            .claim(txn, slot, &key, true, &mut deadline)?
            .expect("claim with create finds a cell");
        if view.is_some() {
            return Err(Error::DupEntry {
                entry: t.schema.entry_text(&t.schema.primary_key, &row),
                key: "PRIMARY".into(),
            });
        }
        inner.set_image(txn, slot, &cell, None, Some(Image::from(row)), &mut deadline)?;
        Ok(Inserted { key, auto_inc })
    }

    /// Replaces the row with clustered key `key` (see [`Engine::key`]); false if absent.
    pub fn update(&self, txn: &mut Txn, table: TableId, key: &[u8], mut row: Row) -> Result<bool> {
        let inner = &self.inner;
        check_active(txn)?;
        let (slot, t) = inner.txn_table(txn, table)?;
        t.schema.normalize_row(&mut row)?;
        if let Some(a) = t.schema.auto_increment_column() {
            t.observe_auto_inc(&row[a]);
        }
        let mut deadline = None;
        let Some((cell, Some(prev))) = inner.claim(txn, slot, key, false, &mut deadline)? else {
            return Ok(false);
        };
        let new_key: Key = if t.schema.primary_key.is_empty() {
            (*cell.key).into()
        } else {
            t.schema.primary_key_of(&row)
        };
        let row = Image::from(row);
        if *new_key == *cell.key {
            inner.set_image(txn, slot, &cell, Some(prev), Some(row), &mut deadline)?;
        } else {
            let (new_cell, view) = inner
                .claim(txn, slot, &new_key, true, &mut deadline)?
                .expect("claim with create finds a cell");
            if view.is_some() {
                return Err(Error::DupEntry {
                    entry: t.schema.entry_text(&t.schema.primary_key, &row),
                    key: "PRIMARY".into(),
                });
            }
            // The old row goes first, so its unique values do not collide with the new row.
            inner.set_image(txn, slot, &cell, Some(prev.clone()), None, &mut deadline)?;
            if let Err(e) = inner.set_image(txn, slot, &new_cell, None, Some(row), &mut deadline) {
                cell.state.lock().pending = Some(prev);
                return Err(e);
            }
        }
        Ok(true)
    }

    /// Deletes the row with clustered key `key`; false if absent.
    pub fn delete(&self, txn: &mut Txn, table: TableId, key: &[u8]) -> Result<bool> {
        let inner = &self.inner;
        check_active(txn)?;
        let (slot, _) = inner.txn_table(txn, table)?;
        let mut deadline = None;
        let Some((cell, Some(prev))) = inner.claim(txn, slot, key, false, &mut deadline)? else {
            return Ok(false);
        };
        inner.set_image(txn, slot, &cell, Some(prev), None, &mut deadline)?;
        Ok(true)
    }

    /// The clustered key for primary key values (in primary key column order), strings
    /// encoded as bytes: right only for keys without character columns (tests, benchmarks);
    /// [`Engine::key_in`] encodes strings under their columns' collations.
    pub fn key(&self, pk: &[Value]) -> Key {
        encode_key(pk)
    }

    /// The clustered key of `table` for primary key values (in primary key column order),
    /// each string under its column's collation.
    pub fn key_in(&self, table: TableId, pk: &[Value]) -> Result<Key> {
        let t = self.inner.table(table)?;
        Ok(t.schema.key_of_values(&t.schema.primary_key, pk))
    }

    /// The row as `txn` sees it (its own pending image, else the committed one). Never blocks.
    pub fn get(&self, txn: &Txn, table: TableId, key: &[u8]) -> Result<Option<Row>> {
        self.get_shared(txn, table, key)
    }

    /// [`Engine::get`] (one name for the SQL layer's shared-row reads).
    pub fn get_shared(&self, txn: &Txn, table: TableId, key: &[u8]) -> Result<Option<SharedRow>> {
        let t = self.inner.table(table)?;
        let cell = t.rows.shard(key).read().get(key).cloned();
        let mode = txn.read_mode();
        t.check_definition(mode, None)?;
        let found = cell.and_then(|c| c.state.lock().visible(txn.id(), mode).map(Image::to_vec));
        if found.is_some() || !txn.gap_locking() {
            return Ok(found);
        }
        // A locking read of an absent row: lock the key against inserts, then look again
        // (the lock is in place before the second look, so no insert slips between).
        check_active(txn)?;
        self.inner.lock_absent(txn, &t, key)
    }

    /// Locks the row (SELECT ... FOR UPDATE) and returns the latest image; None if absent.
    pub fn get_for_update(&self, txn: &mut Txn, table: TableId, key: &[u8]) -> Result<Option<Row>> {
        check_active(txn)?;
        let (slot, t) = self.inner.txn_table(txn, table)?;
        let mut deadline = None;
        let mut claimed = self.inner.claim(txn, slot, key, false, &mut deadline)?;
        if claimed.is_none() && txn.gap_locks {
            // Absent: lock the key against inserts, then claim again (an insert that got in
            // before the lock is waited for there).
            self.inner.add_gap(
                txn,
                &t,
                0,
                (Bound::Included(key.to_vec()), Bound::Included(key.to_vec())),
            );
            claimed = self.inner.claim(txn, slot, key, false, &mut deadline)?;
        }
        Ok(claimed.and_then(|(_, v)| v.map(|r| r.to_vec())))
    }

    /// Takes a shared lock on the row (SELECT ... FOR SHARE / LOCK IN SHARE MODE, SERIALIZABLE
    /// reads) and returns the latest committed image; None if absent. Other transactions'
    /// shared locks do not block it; their X locks do, as theirs wait for it.
    pub fn get_for_share(&self, txn: &mut Txn, table: TableId, key: &[u8]) -> Result<Option<Row>> {
        check_active(txn)?;
        let (slot, t) = self.inner.txn_table(txn, table)?;
        let mut deadline = None;
        let mut got = self.inner.claim_shared(txn, slot, key, &mut deadline)?;
        if got.is_none() && txn.gap_locks {
            self.inner.add_gap(
                txn,
                &t,
                0,
                (Bound::Included(key.to_vec()), Bound::Included(key.to_vec())),
            );
            got = self.inner.claim_shared(txn, slot, key, &mut deadline)?;
        }
        Ok(got.map(|r| r.to_vec()))
    }

    /// Rows with primary key values between the bounds (each bound may name a prefix of the
    /// primary key), in key order, at most `limit`.
    pub fn scan(
        &self,
        txn: &Txn,
        table: TableId,
        lower: Bound<&[Value]>,
        upper: Bound<&[Value]>,
        limit: usize,
    ) -> Result<Vec<(Key, Row)>> {
        let t = self.inner.table(table)?;
        let range = key_range(lower, upper, &t.schema.collations_of(&t.schema.primary_key));
        let rows = self.read_ranges(txn, &t, None, &[range], limit, false)?;
        Ok(rows.into_iter().map(RangeRow::into_owned).collect())
    }

    /// Rows whose index columns lie between the bounds (prefixes of the index columns), in
    /// index order, at most `limit`.
    pub fn scan_index(
        &self,
        txn: &Txn,
        table: TableId,
        index: &str,
        lower: Bound<&[Value]>,
        upper: Bound<&[Value]>,
        limit: usize,
    ) -> Result<Vec<(Key, Row)>> {
        let t = self.inner.table(table)?;
        let idx =
            t.schema.index(index).ok_or_else(|| Error::NoSuchIndex { name: index.to_string() })?;
        let def = &t.schema.indexes[idx];
        let range = if def.has_prefix() {
            // Values cut to the prefixes, every bound inclusive (a longer value with the
            // bound's prefix may lie on either side of it), so the rows are candidates only.
            let cut = |v: &[Value]| -> Vec<Value> {
                let part = |(part, (x, &c)): (usize, (&Value, &usize))| {
                    t.schema.key_part_value(c, def.prefix(part), x).into_owned()
                };
                v.iter().zip(&def.columns).enumerate().map(part).collect()
            };
            let widen = |b: Bound<&[Value]>| match b {
                Bound::Included(v) | Bound::Excluded(v) => Bound::Included(cut(v)),
                Bound::Unbounded => Bound::Unbounded,
            };
            let (lo, hi) = (widen(lower), widen(upper));
            let colls = t.schema.collations_of(&def.columns);
            key_range(lo.as_ref().map(Vec::as_slice), hi.as_ref().map(Vec::as_slice), &colls)
        } else {
            key_range(lower, upper, &t.schema.collations_of(&def.columns))
        };
        let rows = self.read_ranges(txn, &t, Some(idx), &[range], limit, false)?;
        Ok(rows.into_iter().map(RangeRow::into_owned).collect())
    }

    /// 2PC prepare: buffers the Prepare record (not durable until `flush_up_to` of the returned
    /// LSN). After it the transaction can only commit or roll back.
    pub fn prepare(&self, txn: &mut Txn, xid: u64) -> Result<Lsn> {
        check_active(txn)?;
        self.inner.prepare(txn, xid)
    }

    /// Commits: buffers the Commit (or OnePhase) record, publishes the changes and releases the
    /// locks. Returns the end LSN of the record (no fsync: the caller flushes as configured).
    /// A read-only transaction writes nothing and returns `Lsn(0)`.
    pub fn commit(&self, mut txn: Txn) -> Result<Lsn> {
        self.inner.commit_impl(&mut txn)
    }

    /// Rolls back through the pending images; a prepared transaction also logs a Rollback.
    pub fn rollback(&self, mut txn: Txn) -> Result<()> {
        self.inner.rollback_impl(&mut txn)
    }

    /// Commits a transaction that recovery returned as prepared.
    pub fn commit_prepared(&self, xid: u64) -> Result<Lsn> {
        self.commit_prepared_with_gtid(xid, None)
    }

    /// Commits a transaction that recovery returned as prepared, with the GTID the binlog
    /// gave it (see [`Txn::set_gtid`]).
    pub fn commit_prepared_with_gtid(&self, xid: u64, gtid: Option<Gtid>) -> Result<Lsn> {
        let mut txn = self.inner.recovered.lock().remove(&xid).ok_or(Error::UnknownXid { xid })?;
        txn.gtid = gtid;
        self.inner.commit_impl(&mut txn)
    }

    /// The GTIDs of the transactions committed in the engine (with a GTID, `Txn::set_gtid`),
    /// durable with their Commit records and kept in checkpoints: a lower bound of the
    /// binlog's `gtid_executed` that survives the binlog's loss.
    pub fn gtid_executed(&self) -> GtidSet {
        self.inner.log.with_buffer(|b| b.gtids.clone())
    }

    /// `RESET MASTER`: empties the engine's executed set (a GtidReset record, made durable).
    pub fn reset_gtid_executed(&self) -> Result<()> {
        let end = {
            let _gate = self.inner.commit_gate.write();
            self.inner.log.append(Kind::GtidReset, &[], |b, _, _| b.gtids = GtidSet::new())?.1
        };
        self.inner.log.flush_up_to(end)
    }

    /// Rolls back a transaction that recovery returned as prepared.
    pub fn rollback_prepared(&self, xid: u64) -> Result<()> {
        let mut txn = self.inner.recovered.lock().remove(&xid).ok_or(Error::UnknownXid { xid })?;
        self.inner.rollback_impl(&mut txn)
    }

    /// Gives up a prepared transaction whose outcome only crash recovery may decide: nothing
    /// is logged, its locks stay held until the restart; only the DDL gate is released, so
    /// later statements fail on their own errors instead of waiting for it.
    pub fn abandon(&self, mut txn: Txn) {
        if std::mem::take(&mut txn.holds_ddl_gate) {
            self.inner.release_ddl_gate();
        }
        // Dropping would roll back (and log it); the prepare record must stay the last word.
        std::mem::forget(txn);
    }

    /// XIDs recovered as prepared and not yet decided.
    pub fn recovered_prepared(&self) -> Vec<u64> {
        let mut v: Vec<u64> = self.inner.recovered.lock().keys().copied().collect();
        v.sort_unstable();
        v
    }

    // ---- redo --------------------------------------------------------------------------------

    /// Buffers a binlog payload record; returns its end LSN.
    pub fn append_binlog_payload(&self, bytes: &[u8]) -> Result<Lsn> {
        let (_, end, ()) = self.inner.log.append(Kind::BinlogPayload, &[bytes], |_, _, _| ())?;
        Ok(end)
    }

    /// Makes every record ending at or before `lsn` durable, with one write and one fdatasync
    /// for everything buffered; concurrent callers share the work.
    pub fn flush_up_to(&self, lsn: Lsn) -> Result<()> {
        self.inner.log.flush_up_to(lsn)
    }

    /// Writes (no sync) every record ending at or before `lsn`.
    pub fn write_up_to(&self, lsn: Lsn) -> Result<()> {
        self.inner.log.write_up_to(lsn)
    }

    /// Makes everything appended so far durable.
    pub fn flush_all(&self) -> Result<()> {
        self.inner.log.flush_up_to(self.inner.log.next_lsn())
    }

    pub fn flushed_lsn(&self) -> Lsn {
        self.inner.log.flushed_lsn()
    }

    pub fn written_lsn(&self) -> Lsn {
        self.inner.log.written_lsn()
    }

    /// The end of everything appended so far.
    pub fn next_lsn(&self) -> Lsn {
        self.inner.log.next_lsn()
    }

    /// Redo at or after `lsn` is kept (not recycled) until this is raised.
    pub fn set_retain_lsn(&self, lsn: Lsn) {
        self.inner.log.set_retain_lsn(lsn);
        self.inner.log.recycle();
    }

    /// The oldest LSN the redo still holds.
    pub fn oldest_lsn(&self) -> Lsn {
        self.inner.log.oldest_lsn()
    }

    /// Binlog payload records from `lsn` (an LSN the engine returned, or at most
    /// `oldest_lsn()`) to the end of what was written.
    pub fn read_binlog_payloads_from(&self, lsn: Lsn) -> Result<Vec<BinlogPayload>> {
        let oldest = self.inner.log.oldest_lsn();
        if lsn < oldest {
            return Err(Error::RedoPurged { requested: lsn, oldest });
        }
        let mut out = Vec::new();
        let written = self.inner.log.written_lsn();
        self.inner.log.read_from(lsn, |rec| {
            if rec.kind == Kind::BinlogPayload && rec.end_lsn <= written {
                out.push(BinlogPayload { lsn: rec.lsn, end_lsn: rec.end_lsn, bytes: rec.payload });
            }
            Ok(())
        })?;
        Ok(out)
    }

    /// Takes a checkpoint now (a delta of the chain, or a full base when the chain is due
    /// for one); returns its LSN.
    pub fn checkpoint(&self) -> Result<Lsn> {
        self.inner.checkpoint(false)
    }

    /// Takes a full base checkpoint now (ending the delta chain); returns its LSN.
    pub fn checkpoint_full(&self) -> Result<Lsn> {
        self.inner.checkpoint(true)
    }

    pub fn stats(&self) -> EngineStats {
        let inner = &self.inner;
        let c = &inner.log.counters;
        let (live, spare) = inner.log.file_counts();
        EngineStats {
            redo_fsyncs: c.fsyncs.load(Ordering::Relaxed),
            redo_writes: c.writes.load(Ordering::Relaxed),
            redo_durable_writes: c.durable_writes.load(Ordering::Relaxed),
            redo_bytes_written: c.bytes_written.load(Ordering::Relaxed),
            flushed_lsn: inner.log.flushed_lsn(),
            next_lsn: inner.log.next_lsn(),
            checkpoints: inner.checkpoints.load(Ordering::Relaxed),
            checkpoint_deltas: inner.checkpoint_deltas.load(Ordering::Relaxed),
            checkpoint_bytes_written: inner.checkpoint_bytes.load(Ordering::Relaxed),
            checkpoint_lsn: Lsn(inner.checkpoint_lsn.load(Ordering::Relaxed)),
            redo_files_live: live,
            redo_files_spare: spare,
            history_list_length: inner.mvcc.history_len(),
            read_views: inner.mvcc.views_live(),
            purged_versions: inner.mvcc.purged_versions(),
            visible_seq: inner.mvcc.visible(),
        }
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        *self.bg_stop.lock() = true;
        self.bg_cv.notify_all();
    }
}

fn check_active(txn: &Txn) -> Result<()> {
    match txn.state {
        TxnState::Active => Ok(()),
        TxnState::Prepared { .. } => Err(Error::TxnState { reason: "the transaction is prepared" }),
        TxnState::Done => Err(Error::TxnState { reason: "the transaction has ended" }),
    }
}

/// A copy of `t` (sharing its row cells) with one more index, built from the committed rows.
fn with_index(t: &Table, index: IndexDef) -> Result<Table> {
    let mut schema = (*t.schema).clone();
    schema.indexes.push(index);
    let mut new = copy_table(t, schema);
    let idx = new.indexes.len() - 1;
    let map = alter::build_index(&new, idx, t)?;
    new.indexes[idx] = map;
    Ok(new)
}

/// A copy of `t` whose foreign keys are `fks`, with `indexes` added first.
fn with_foreign_keys(t: &Table, fks: &[ForeignKeyDef], indexes: &[IndexDef]) -> Result<Table> {
    let mut base = copy_table(t, (*t.schema).clone());
    for i in indexes {
        base.schema.check_index(i, &base.schema.indexes)?;
        base = with_index(&base, i.clone())?;
    }
    let mut schema = (*base.schema).clone();
    schema.foreign_keys = fks.to_vec();
    schema.validate()?;
    Ok(copy_table(&base, schema))
}

fn without_index(t: &Table, name: &str) -> Result<Table> {
    let idx = t.schema.index(name).ok_or_else(|| Error::NoSuchIndex { name: name.to_string() })?;
    let mut schema = (*t.schema).clone();
    schema.indexes.remove(idx);
    let mut new = copy_table(t, schema);
    new.indexes = t
        .indexes
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != idx)
        .map(|(_, m)| m.clone_contents())
        .collect();
    Ok(new)
}

fn copy_table(t: &Table, schema: TableSchema) -> Table {
    let mut new = Table::new(schema);
    new.rows = t.rows.clone_contents();
    new.indexes = t.indexes.iter().map(|m| m.clone_contents()).collect();
    new.indexes.resize_with(new.schema.indexes.len(), ShardedMap::new);
    new.auto_inc.store(t.auto_inc.load(Ordering::Acquire), Ordering::Release);
    new.next_row_id.store(t.next_row_id.load(Ordering::Acquire), Ordering::Release);
    new
}

/// Sets the commit sequence numbers of a table object a DDL installs at `seq`: with `kept`
/// (the old object, whose row cells it shares) the rows keep their age and so does each index
/// taken over from the old object: the one with the same name, columns and uniqueness, or for a
/// kept-rows ALTER (`by_columns`) the first with the same columns and uniqueness, as
/// `alter::kept_rows` reuses it. Other indexes were built from the committed rows at `seq`.
fn stamp_definition(t: &Table, kept: Option<(&Table, bool)>, seq: u64) {
    let Some((old, by_columns)) = kept else {
        t.def_seq.store(seq, Ordering::Release);
        for s in &t.index_seq {
            s.store(seq, Ordering::Release);
        }
        return;
    };
    t.def_seq.store(old.def_seq.load(Ordering::Acquire), Ordering::Release);
    for (i, def) in t.schema.indexes.iter().enumerate() {
        let same = |o: &IndexDef| o.same_entries(def);
        let reused = if by_columns {
            old.schema.indexes.iter().position(same)
        } else {
            old.schema.indexes.iter().position(|o| o.name == def.name && same(o))
        };
        let at = reused.map_or(seq, |o| old.index_seq[o].load(Ordering::Acquire));
        t.index_seq[i].store(at, Ordering::Release);
    }
}

fn unlock_exclusive(t: &Table) {
    let _g = t.mdl.lock();
    t.ddl_pending.store(false, Ordering::SeqCst);
    t.mdl_cv.notify_all();
}

/// Releases a finished transaction's locks and table registrations and wakes its waiters.
fn release(txn: &mut Txn) {
    let me = txn.shared.id;
    for (slot, cell) in std::mem::take(&mut txn.shared_locks) {
        let empty = {
            let mut st = cell.state.lock();
            st.sharers.retain(|s| s.id != me);
            st.committed.is_none() && st.owner.is_none()
        };
        if empty {
            txn.tables[slot].purge_if_empty(&cell);
        }
    }
    for (slot, cell) in std::mem::take(&mut txn.touched) {
        let empty = {
            let mut st = cell.state.lock();
            st.owner = None;
            st.pending = None;
            st.committed.is_none()
        };
        if empty {
            txn.tables[slot].purge_if_empty(&cell);
        }
    }
    let gap_tables = std::mem::take(&mut *txn.gap_tables.lock());
    for t in gap_tables {
        for g in &t.gaps {
            g.release(me);
        }
        txn.tables.push(t);
    }
    for t in std::mem::take(&mut txn.tables) {
        t.users.fetch_sub(1, Ordering::SeqCst);
        if t.ddl_pending.load(Ordering::SeqCst) {
            let _g = t.mdl.lock();
            t.mdl_cv.notify_all();
        }
    }
    txn.index_added.clear();
    txn.ddl.clear();
    if std::mem::take(&mut txn.holds_ddl_gate) {
        if let Some(inner) = txn.engine.upgrade() {
            inner.release_ddl_gate();
        }
    }
    txn.state = TxnState::Done;
    txn.shared.finish();
}

fn same(a: &Option<Image>, b: &Option<Image>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => Image::ptr_eq(a, b),
        _ => false,
    }
}

impl Inner {
    fn table(&self, id: TableId) -> Result<Arc<Table>> {
        self.catalog
            .read()
            .tables
            .get(&id)
            .cloned()
            .ok_or_else(|| Error::NoSuchTable { name: format!("#{id}") })
    }

    fn begin(self: &Arc<Self>) -> Txn {
        let id = self.next_txn_id.fetch_add(1, Ordering::Relaxed);
        Txn {
            engine: Arc::downgrade(self),
            shared: Arc::new(TxnShared::new(id)),
            state: TxnState::Active,
            tables: Vec::new(),
            touched: Vec::new(),
            shared_locks: Vec::new(),
            index_added: Vec::new(),
            ddl: Vec::new(),
            holds_ddl_gate: false,
            gtid: None,
            view: None,
            read_latest: false,
            read_dirty: false,
            lock_wait_timeout: None,
            gap_locks: false,
            gap_tables: Mutex::new(Vec::new()),
        }
    }

    /// Registers `txn` as a user of the table (waiting out a DDL in progress, or
    /// [`Error::WouldBlock`] on a thread in [`without_waiting`]); returns its
    /// slot in `txn.tables`.
    fn txn_table(&self, txn: &mut Txn, id: TableId) -> Result<(usize, Arc<Table>)> {
        if let Some(i) = txn.tables.iter().position(|t| t.schema.id == id) {
            return Ok((i, txn.tables[i].clone()));
        }
        if txn.holds_ddl_gate {
            return Err(Error::TxnState { reason: "a DDL transaction changes no rows" });
        }
        let deadline = Instant::now() + self.config.lock_wait_timeout;
        loop {
            let t = self.table(id)?;
            t.users.fetch_add(1, Ordering::SeqCst);
            if !t.ddl_pending.load(Ordering::SeqCst) && !t.retired.load(Ordering::SeqCst) {
                txn.tables.push(t.clone());
                return Ok((txn.tables.len() - 1, t));
            }
            t.users.fetch_sub(1, Ordering::SeqCst);
            if NO_WAIT.get() {
                REFUSED.with(|r| *r.borrow_mut() = None);
                return Err(Error::WouldBlock);
            }
            let mut g = t.mdl.lock();
            t.mdl_cv.notify_all();
            while t.ddl_pending.load(Ordering::SeqCst) && !t.retired.load(Ordering::SeqCst) {
                let until = wait_slice(deadline)?;
                if t.mdl_cv.wait_until(&mut g, until).timed_out() && Instant::now() >= deadline {
                    return Err(Error::LockWaitTimeout);
                }
            }
        }
    }

    /// Marks the table for DDL and waits until no transaction holds changes on it.
    fn lock_exclusive(&self, id: TableId) -> Result<Arc<Table>> {
        let t = self.table(id)?;
        let deadline = Instant::now() + self.config.lock_wait_timeout;
        let mut g = t.mdl.lock();
        t.ddl_pending.store(true, Ordering::SeqCst);
        while t.users.load(Ordering::SeqCst) > 0 {
            let waited = wait_slice(deadline).and_then(|until| {
                if t.mdl_cv.wait_until(&mut g, until).timed_out()
                    && Instant::now() >= deadline
                    && t.users.load(Ordering::SeqCst) > 0
                {
                    return Err(Error::LockWaitTimeout);
                }
                Ok(())
            });
            if let Err(e) = waited {
                t.ddl_pending.store(false, Ordering::SeqCst);
                t.mdl_cv.notify_all();
                return Err(e);
            }
        }
        drop(g);
        Ok(t)
    }

    /// Makes `txn` a DDL transaction: it must not have changed rows; takes the DDL gate
    /// (waiting up to the lock wait timeout for the DDL transaction in progress).
    fn enter_ddl(&self, txn: &mut Txn) -> Result<()> {
        check_active(txn)?;
        if !txn.touched.is_empty() || !txn.tables.is_empty() {
            return Err(Error::TxnState { reason: "a DDL needs a transaction of its own" });
        }
        if txn.holds_ddl_gate {
            return Ok(());
        }
        let deadline = Instant::now() + self.config.lock_wait_timeout;
        let mut busy = self.ddl_gate.lock();
        while *busy {
            let until = wait_slice(deadline)?;
            if self.ddl_gate_cv.wait_until(&mut busy, until).timed_out()
                && *busy
                && Instant::now() >= deadline
            {
                return Err(Error::LockWaitTimeout);
            }
        }
        *busy = true;
        txn.holds_ddl_gate = true;
        Ok(())
    }

    fn release_ddl_gate(&self) {
        *self.ddl_gate.lock() = false;
        self.ddl_gate_cv.notify_all();
    }

    /// Checks and stages one schema change of `txn` (see "catalog and DDL"). `live`: a new
    /// statement (a new table gets the next id; the table waits for its users); otherwise a
    /// prepared DDL rebuilt by recovery, where nothing else can hold the table.
    fn stage(&self, txn: &Txn, ddl: Ddl, live: bool) -> Result<DdlStep> {
        if let Some(id) = ddl_table(&ddl) {
            if txn.ddl.iter().any(|s| ddl_table(&s.ddl) == Some(id)) {
                return Err(Error::TxnState {
                    reason: "the table already has a schema change in this transaction",
                });
            }
        }
        let other = match ddl {
            Ddl::CreateTable(mut schema) => {
                let mut c = self.catalog.write();
                let lname = c.key(&schema.name);
                if c.names.contains_key(&lname) || c.reserved.contains_key(&lname) {
                    return Err(Error::TableExists { name: schema.name });
                }
                if live {
                    schema.id = c.next_id.max(1);
                }
                c.next_id = c.next_id.max(schema.id + 1);
                c.reserved.insert(lname, schema.id);
                let built = Some(Arc::new(Table::new(schema.clone())));
                return Ok(DdlStep { ddl: Ddl::CreateTable(schema), locked: None, built });
            }
            Ddl::CreateTableRows(mut schema, mut rows) => {
                let mut c = self.catalog.write();
                let lname = c.key(&schema.name);
                if c.names.contains_key(&lname) || c.reserved.contains_key(&lname) {
                    return Err(Error::TableExists { name: schema.name });
                }
                if live {
                    schema.id = c.next_id.max(1);
                }
                for r in &mut rows {
                    if r.len() != schema.columns.len() {
                        return Err(Error::InvalidSchema { reason: "a row has the column count" });
                    }
                    schema.normalize_row(r)?;
                }
                let built = alter::filled(schema.clone(), &rows)?;
                c.next_id = c.next_id.max(schema.id + 1);
                c.reserved.insert(lname, schema.id);
                let ddl = Ddl::CreateTableRows(schema, rows);
                return Ok(DdlStep { ddl, locked: None, built: Some(Arc::new(built)) });
            }
            other => other,
        };
        let id = ddl_table(&other).expect("every DDL but CREATE TABLE names its table");
        let t = if live {
            self.lock_exclusive(id)?
        } else {
            let t = self
                .table(id)
                .map_err(|_| Error::Corrupt { what: "prepared ddl table", position: 0 })?;
            t.ddl_pending.store(true, Ordering::SeqCst);
            t
        };
        let built = match &other {
            Ddl::DropTable(_) => Ok(None),
            Ddl::Truncate(_) => Ok(Some(Table::new((*t.schema).clone()))),
            Ddl::CreateIndex(_, index) => t
                .schema
                .check_index(index, &t.schema.indexes)
                .and_then(|()| with_index(&t, index.clone()))
                .map(Some),
            Ddl::DropIndex(_, name) => without_index(&t, name).map(Some),
            Ddl::Replace(_, schema, rows) => alter::check_replace(self, txn, &t, schema, live)
                .and_then(|()| alter::replaced(&t, schema.clone(), rows.as_deref()))
                .map(Some),
            Ddl::SetForeignKeys(_, fks, indexes) => with_foreign_keys(&t, fks, indexes).map(Some),
            Ddl::CreateTable(_) | Ddl::CreateTableRows(..) => unreachable!("handled above"),
        };
        match built {
            Ok(b) => Ok(DdlStep { ddl: other, locked: Some(t), built: b.map(Arc::new) }),
            Err(e) => {
                unlock_exclusive(&t);
                Err(e)
            }
        }
    }

    /// Installs a committing DDL transaction's changes in the catalog (the caller holds the
    /// commit gate and has appended the decision record).
    /// `seq` is the commit sequence number the change gets: a read view older than it reads
    /// the new definitions with 1412 ([`Table::def_seq`]).
    fn install_ddl(&self, steps: Vec<DdlStep>, seq: u64) {
        let mut c = self.catalog.write();
        for step in steps {
            match (step.ddl, step.built) {
                (Ddl::DropTable(id), _) => c.remove(id),
                (Ddl::CreateTable(s) | Ddl::CreateTableRows(s, _), Some(t)) => {
                    let key = c.key(&s.name);
                    c.reserved.remove(&key);
                    stamp_definition(&t, None, seq);
                    c.install(t);
                }
                (ddl, Some(t)) => {
                    if let Ddl::Replace(id, s, _) = &ddl {
                        alter::unreserve(&mut c, *id, &s.name);
                    }
                    // Tables whose row cells are shared with the old object keep their rows'
                    // and their reused indexes' age; new rows (TRUNCATE, a rebuild) are new.
                    let kept = match &ddl {
                        Ddl::Truncate(_) | Ddl::Replace(_, _, Some(_)) => None,
                        Ddl::Replace(_, _, None) => step.locked.as_deref().map(|o| (o, true)),
                        _ => step.locked.as_deref().map(|o| (o, false)),
                    };
                    stamp_definition(&t, kept, seq);
                    c.install(t)
                }
                (_, None) => unreachable!("every DDL but DROP TABLE builds its table"),
            }
        }
    }

    /// Undoes the staging of a DDL transaction that rolls back.
    fn unstage_ddl(&self, steps: Vec<DdlStep>) {
        for step in steps {
            if let Ddl::CreateTable(s) | Ddl::CreateTableRows(s, _) = &step.ddl {
                let mut c = self.catalog.write();
                let key = c.key(&s.name);
                c.reserved.remove(&key);
            }
            if let Ddl::Replace(id, s, _) = &step.ddl {
                alter::unreserve(&mut self.catalog.write(), *id, &s.name);
            }
            if let Some(t) = &step.locked {
                unlock_exclusive(t);
            }
        }
    }

    /// Registers gap lock `range` of `txn` on slot `g` of `t` (0: the clustered index, 1 + i:
    /// secondary index i); the transaction becomes a user of the table (a DDL waits for it).
    fn add_gap(&self, txn: &Txn, t: &Arc<Table>, g: usize, range: crate::gaps::Interval) {
        assert!(
            txn.gap_locks && txn.state == TxnState::Active,
            "gap lock outside an RR transaction"
        );
        if t.gaps[g].add(txn.shared.id, &txn.shared, range) {
            let mut tables = txn.gap_tables.lock();
            if !tables.iter().any(|x| Arc::ptr_eq(x, t)) {
                t.users.fetch_add(1, Ordering::SeqCst);
                tables.push(t.clone());
            }
        }
    }

    /// A locking read of absent row `key`: locks the key against inserts, then reads it again,
    /// waiting for another transaction's uncommitted insert of it.
    fn lock_absent(&self, txn: &Txn, t: &Arc<Table>, key: &[u8]) -> Result<Option<Row>> {
        self.add_gap(txn, t, 0, (Bound::Included(key.to_vec()), Bound::Included(key.to_vec())));
        let mut deadline = None;
        loop {
            let Some(cell) = t.rows.shard(key).read().get(key).cloned() else { return Ok(None) };
            let holder = {
                let st = cell.state.lock();
                match &st.owner {
                    Some(o) if o.id != txn.id() && st.committed.is_none() => o.clone(),
                    _ => return Ok(st.visible(txn.id(), ReadMode::Latest).map(|r| r.to_vec())),
                }
            };
            self.wait_for(txn, holder, &mut deadline)?;
        }
    }

    /// Takes the row lock on `key` and returns the cell and the image this transaction sees.
    /// With `create` a missing row gets a cell (for inserts); without, a row absent for
    /// everyone is None and nothing is locked.
    fn claim(
        &self,
        txn: &mut Txn,
        slot: usize,
        key: &[u8],
        create: bool,
        deadline: &mut Option<Instant>,
    ) -> Result<Option<Claimed>> {
        let t = txn.tables[slot].clone();
        loop {
            let cell = if create {
                let mut m = t.rows.shard(key).write();
                let cell = match m.get(key) {
                    Some(c) => c.clone(),
                    None => {
                        let c = RowCell::new(key, RowState::default());
                        m.insert(c.clone());
                        c
                    }
                };
                let mut st = cell.state.lock();
                if st.owner.is_none()
                    && st.committed.is_none()
                    && !st.sharers.iter().any(|s| s.id != txn.id())
                {
                    // An insert into a gap: decided under the shard's write lock, where it
                    // either sees a gap lock registered before (and waits: InnoDB's insert
                    // intention lock) or a scanner registering after sees the owned cell.
                    match t.gaps[0].holder(key, txn.id()) {
                        None => {
                            st.owner = Some(txn.shared.clone());
                            st.pending = None;
                            drop(st);
                            drop(m);
                            txn.touched.push((slot, cell.clone()));
                            return Ok(Some((cell, None)));
                        }
                        Some(h) => {
                            drop(st);
                            drop(m);
                            if let Err(e) = self.wait_for(txn, h, deadline) {
                                t.purge_if_empty(&cell);
                                return Err(e);
                            }
                            continue;
                        }
                    }
                }
                drop(st);
                drop(m);
                cell
            } else {
                match t.rows.shard(key).read().get(key) {
                    Some(c) => c.clone(),
                    None => return Ok(None),
                }
            };
            let holder = {
                let mut st = cell.state.lock();
                if st.removed {
                    continue;
                }
                match &st.owner {
                    Some(o) if o.id == txn.id() => {
                        let view = st.pending.clone();
                        drop(st);
                        return Ok(Some((cell, view)));
                    }
                    Some(o) => o.clone(),
                    // Another transaction's S lock: X waits for it (an S lock of this
                    // transaction's own is upgraded).
                    None if st.sharers.iter().any(|s| s.id != txn.id()) => {
                        if !create && st.committed.is_none() {
                            return Ok(None);
                        }
                        let other = st.sharers.iter().find(|s| s.id != txn.id());
                        other.expect("checked above").clone()
                    }
                    None => {
                        if !create && st.committed.is_none() {
                            return Ok(None);
                        }
                        st.owner = Some(txn.shared.clone());
                        st.pending = st.committed.clone();
                        let view = st.committed.clone();
                        drop(st);
                        txn.touched.push((slot, cell.clone()));
                        return Ok(Some((cell, view)));
                    }
                }
            };
            self.wait_for(txn, holder, deadline)?;
        }
    }

    /// Takes a shared (S) lock on the row `key` and returns its newest committed image (the
    /// transaction's own image when it holds the X lock); None, with nothing locked, when the
    /// row is absent. Waits while another transaction holds the X lock.
    fn claim_shared(
        &self,
        txn: &mut Txn,
        slot: usize,
        key: &[u8],
        deadline: &mut Option<Instant>,
    ) -> Result<Option<Image>> {
        let t = txn.tables[slot].clone();
        let me = txn.id();
        loop {
            let Some(cell) = t.rows.shard(key).read().get(key).cloned() else {
                return Ok(None);
            };
            let holder = {
                let mut st = cell.state.lock();
                if st.removed {
                    continue;
                }
                match &st.owner {
                    Some(o) if o.id == me => return Ok(st.pending.clone()),
                    Some(o) => o.clone(),
                    None => {
                        let Some(row) = st.committed.clone() else { return Ok(None) };
                        if !st.sharers.iter().any(|s| s.id == me) {
                            st.sharers.push(txn.shared.clone());
                            drop(st);
                            txn.shared_locks.push((slot, cell.clone()));
                        }
                        return Ok(Some(row));
                    }
                }
            };
            self.wait_for(txn, holder, deadline)?;
        }
    }

    /// Waits until `holder` ends: 1213 if that would close a cycle, 1205 at the deadline.
    fn wait_for(
        &self,
        txn: &Txn,
        holder: Arc<TxnShared>,
        deadline: &mut Option<Instant>,
    ) -> Result<()> {
        if NO_WAIT.get() {
            REFUSED.with(|r| *r.borrow_mut() = Some(holder));
            return Err(Error::WouldBlock);
        }
        let me = txn.id();
        let timeout = txn.lock_wait_timeout.unwrap_or(self.config.lock_wait_timeout);
        let dl = *deadline.get_or_insert_with(|| Instant::now() + timeout);
        {
            let mut w = self.waits.lock();
            let mut cur = holder.id;
            let mut hops = 0;
            while let Some(next) = w.get(&cur) {
                if next.id == me {
                    return Err(Error::Deadlock);
                }
                cur = next.id;
                hops += 1;
                if hops > w.len() {
                    break;
                }
            }
            w.insert(me, holder.clone());
        }
        let res = {
            let mut done = holder.done.lock();
            loop {
                if *done {
                    break Ok(());
                }
                let until = match wait_slice(dl) {
                    Ok(until) => until,
                    Err(e) => break Err(e),
                };
                if holder.cv.wait_until(&mut done, until).timed_out() && Instant::now() >= dl {
                    break if *done { Ok(()) } else { Err(Error::LockWaitTimeout) };
                }
            }
        };
        self.waits.lock().remove(&me);
        res
    }

    /// Sets the owner's image of a locked row and adds its index entries; on failure the
    /// previous image is restored.
    fn set_image(
        &self,
        txn: &mut Txn,
        slot: usize,
        cell: &Arc<RowCell>,
        prev: Option<Image>,
        new: Option<Image>,
        deadline: &mut Option<Instant>,
    ) -> Result<()> {
        // The image goes in first so that a concurrent unique check that finds one of the new
        // entries also finds the image it describes.
        cell.state.lock().pending = new.clone();
        let Some(row) = new else { return Ok(()) };
        let t = txn.tables[slot].clone();
        for i in 0..t.indexes.len() {
            if prev.as_ref().is_some_and(|p| t.schema.same_index_values(i, p, &row)) {
                continue;
            }
            let (entry, plen) = t.schema.index_entry(i, &row, &cell.key);
            if prev.as_ref().is_some_and(|p| t.schema.index_entry(i, p, &cell.key).0 == entry) {
                continue;
            }
            if let Err(e) =
                self.add_index_entry(txn, slot, &t, i, entry, plen, cell, &row, deadline)
            {
                cell.state.lock().pending = prev;
                return Err(e);
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn add_index_entry(
        &self,
        txn: &mut Txn,
        slot: usize,
        t: &Table,
        idx: usize,
        entry: Key,
        plen: usize,
        cell: &Arc<RowCell>,
        row: &Image,
        deadline: &mut Option<Instant>,
    ) -> Result<()> {
        let me = txn.id();
        loop {
            let prefix = &entry[..plen];
            let mut m = t.indexes[idx].shard(prefix).write();
            let mut holder = None;
            if t.schema.unique_applies(idx, row) {
                let has = |r: &Option<Image>| {
                    r.as_ref().is_some_and(|r| t.index_prefix(idx, r) == prefix)
                };
                for (k, other) in m.range::<[u8], _>((Bound::Included(prefix), Bound::Unbounded)) {
                    if !k.starts_with(prefix) {
                        break;
                    }
                    if Arc::ptr_eq(other, cell) {
                        continue;
                    }
                    let mut st = other.state.lock();
                    let conflict = match &st.owner {
                        Some(o) if o.id == me => has(&st.pending),
                        Some(o) => {
                            if has(&st.committed) || has(&st.pending) {
                                holder = Some(o.clone());
                                break;
                            }
                            false
                        }
                        None => has(&st.committed),
                    };
                    if conflict {
                        // InnoDB's duplicate check S-locks the row it collided with
                        // (`row_ins_scan_sec_index_for_duplicate`), so the duplicate stays
                        // until this transaction ends.
                        if st.owner.is_none() && !st.sharers.iter().any(|s| s.id == me) {
                            st.sharers.push(txn.shared.clone());
                            drop(st);
                            txn.shared_locks.push((slot, other.clone()));
                        }
                        let def = &t.schema.indexes[idx];
                        return Err(Error::DupEntry {
                            entry: t.schema.index_entry_text(idx, row),
                            key: def.name.clone(),
                        });
                    }
                }
            }
            // A new entry into a range another transaction gap-locked waits (insert
            // intention), decided under the shard's write lock (see `gaps.rs`).
            let holder = holder.or_else(|| t.gaps[idx + 1].holder(&entry, me));
            match holder {
                Some(h) => {
                    drop(m);
                    self.wait_for(txn, h, deadline)?;
                }
                None => {
                    m.insert(InlineKey::from(&entry[..]), cell.clone());
                    txn.index_added.push(IndexAdded { slot, idx, entry, plen, cell: cell.clone() });
                    return Ok(());
                }
            }
        }
    }

    /// The whole images the transaction leaves behind, encoded as ops.
    fn encode_ops(&self, txn: &Txn) -> (Vec<u8>, u32) {
        let mut b = Vec::with_capacity(64);
        b.put_u32(0);
        let mut n = 0u32;
        for (slot, cell) in &txn.touched {
            let st = cell.state.lock();
            if same(&st.committed, &st.pending) {
                continue;
            }
            let table = txn.tables[*slot].schema.id;
            match &st.pending {
                Some(row) => {
                    b.put_u8(1);
                    b.put_u32(table);
                    b.put_bytes(&cell.key);
                    b.extend_from_slice(row.as_bytes());
                }
                None => {
                    b.put_u8(2);
                    b.put_u32(table);
                    b.put_bytes(&cell.key);
                }
            }
            n += 1;
        }
        b[..4].copy_from_slice(&n.to_le_bytes());
        (b, n)
    }

    fn prepare(&self, txn: &mut Txn, xid: u64) -> Result<Lsn> {
        let (kind, ops) = if txn.holds_ddl_gate {
            (Kind::DdlPrepare, encode_ddl_list(&txn.ddl))
        } else {
            (Kind::Prepare, self.encode_ops(txn).0)
        };
        let ops = Arc::new(ops);
        let entry = PreparedEntry { ops: ops.clone(), ddl: kind == Kind::DdlPrepare };
        let (_, end, ()) = self.log.append(kind, &[&xid.to_le_bytes(), &ops], |b, _, _| {
            b.prepared.insert(xid, entry);
        })?;
        self.max_xid.fetch_max(xid, Ordering::AcqRel);
        txn.state = TxnState::Prepared { xid };
        Ok(end)
    }

    fn commit_impl(&self, txn: &mut Txn) -> Result<Lsn> {
        let end;
        let olds;
        match txn.state {
            TxnState::Done => return Err(Error::TxnState { reason: "the transaction has ended" }),
            TxnState::Prepared { xid } => {
                let _gate = self.commit_gate.read();
                let gtid = txn.gtid.map(encode_gtid).unwrap_or_default();
                end = self
                    .log
                    .append(Kind::Commit, &[&xid.to_le_bytes(), &gtid], |b, _, _| {
                        b.prepared.remove(&xid);
                        if let Some(g) = txn.gtid {
                            b.gtids.add(g);
                        }
                    })?
                    .1;
                // Inside the gate: a checkpoint sees the commit record and the catalog change
                // together or neither.
                let ddl = std::mem::take(&mut txn.ddl);
                let dirty_from = self.dirty_from.load(Ordering::Relaxed);
                olds = self.mvcc.publish(|p| {
                    if !ddl.is_empty() {
                        self.install_ddl(ddl, p.seq);
                    }
                    publish(txn, p, dirty_from)
                });
            }
            TxnState::Active if txn.holds_ddl_gate => {
                if txn.ddl.is_empty() {
                    release(txn);
                    return Ok(Lsn(0));
                }
                let list = encode_ddl_list(&txn.ddl);
                let _gate = self.commit_gate.read();
                end = self.log.append(Kind::DdlOnePhase, &[&list], |_, _, _| ())?.1;
                let ddl = std::mem::take(&mut txn.ddl);
                self.mvcc.publish(|p| (self.install_ddl(ddl, p.seq), Vec::new()));
                olds = Vec::new();
            }
            TxnState::Active => {
                let (ops, n) = self.encode_ops(txn);
                if n == 0 {
                    release(txn);
                    return Ok(Lsn(0));
                }
                let _gate = self.commit_gate.read();
                end = self.log.append(Kind::OnePhase, &[&ops], |_, _, _| ())?.1;
                let dirty_from = self.dirty_from.load(Ordering::Relaxed);
                olds = self.mvcc.publish(|p| publish(txn, p, dirty_from));
            }
        }
        cleanup_indexes(txn, &olds);
        release(txn);
        // Purge a little while the history list is not empty (bounded work per commit; the
        // background thread does the rest).
        self.mvcc.purge(4);
        Ok(end)
    }

    fn rollback_impl(&self, txn: &mut Txn) -> Result<()> {
        let mut res = Ok(());
        match txn.state {
            TxnState::Done => return Err(Error::TxnState { reason: "the transaction has ended" }),
            TxnState::Prepared { xid } => {
                if let Err(e) = self.log.append(Kind::Rollback, &[&xid.to_le_bytes()], |b, _, _| {
                    b.prepared.remove(&xid);
                }) {
                    res = Err(e);
                }
            }
            TxnState::Active => {}
        }
        self.unstage_ddl(std::mem::take(&mut txn.ddl));
        for (_, cell) in &txn.touched {
            let mut st = cell.state.lock();
            st.pending = st.committed.clone();
        }
        cleanup_indexes(txn, &[]);
        release(txn);
        res
    }

    /// Takes a checkpoint: a delta of the chain, or a full base when `full`, when there is
    /// no chain, when the last attempt failed (its dirty sets are gone), or when the deltas
    /// outgrow their share of the base ([`ChainState::due_for_base`]).
    fn checkpoint(&self, full: bool) -> Result<Lsn> {
        let mut chain = self.checkpoint_lock.lock();
        let full = full || chain.due_for_base();
        // Under the exclusive commit gate: L, the prepared set (rows and DDL), the catalog
        // and each table's dirty set all as of L. A DDL commits (record + catalog change)
        // inside the shared gate, so a DDL prepared and undecided at L is in the prepared set
        // and not in the catalog. Table objects a later DDL replaces stay readable as they
        // were. The checkpoint is a read view taken at L: exactly the commits before L,
        // nothing prepared or uncommitted. Commits after L push their cells into fresh dirty
        // sets (`dirty_from` is L's view).
        let (lsn, prepared, gtid_executed, max_xid, mut tables, next_table_id, view, mut dirty) = {
            let _gate = self.commit_gate.write();
            let view = self.mvcc.view();
            let (lsn, prepared, gtids) =
                self.log.with_buffer(|b| (b.next_lsn(), b.prepared.clone(), b.gtids.clone()));
            let c = self.catalog.read();
            let tables: Vec<Arc<Table>> = c.tables.values().cloned().collect();
            let dirty: HashMap<TableId, Dirty> = tables
                .iter()
                .map(|t| (t.schema.id, std::mem::take(&mut *t.dirty.lock())))
                .collect();
            self.dirty_from.store(view.seq(), Ordering::Relaxed);
            let max_xid = self.max_xid.load(Ordering::Acquire);
            (lsn, prepared, gtids, max_xid, tables, c.next_id, view, dirty)
        };
        // The dirty sets are taken: until this checkpoint is on disk, only a full one can
        // follow it.
        chain.broken = true;
        tables.sort_by_key(|t| t.schema.id);
        let whole = |t: &Arc<Table>| TableImage {
            schema: (*t.schema).clone(),
            auto_inc: t.auto_inc.load(Ordering::Acquire),
            next_row_id: t.next_row_id.load(Ordering::Acquire),
            rows: t.committed_rows(Some(view.seq())),
        };
        let (images, deltas) = if full {
            (tables.iter().map(whole).collect(), Vec::new())
        } else {
            let deltas = tables
                .iter()
                .map(|t| {
                    let id = t.schema.id;
                    let same = chain.prev.get(&id).is_some_and(|w| std::ptr::eq(w.as_ptr(), &**t));
                    let set = dirty.remove(&id).unwrap_or_default();
                    if !same || set.overflow {
                        return DeltaTable::Whole(Box::new(whole(t)));
                    }
                    DeltaTable::Changes {
                        id,
                        auto_inc: t.auto_inc.load(Ordering::Acquire),
                        next_row_id: t.next_row_id.load(Ordering::Acquire),
                        rows: changed_rows(set.cells, view.seq()),
                    }
                })
                .collect();
            (Vec::new(), deltas)
        };
        drop(dirty);
        drop(view);
        // Every record below L must be durable before a checkpoint that no longer needs
        // them is (see checkpoint.rs).
        self.log.flush_up_to(self.log.next_lsn())?;
        let mut prepared: Vec<PreparedImage> = prepared
            .into_iter()
            .map(|(xid, e)| PreparedImage { xid, ddl: e.ddl, bytes: (*e.ops).clone() })
            .collect();
        prepared.sort_by_key(|p| p.xid);
        let written = if full {
            let snap = Snapshot {
                lsn: lsn.0,
                max_xid,
                next_table_id,
                tables: images,
                prepared,
                gtid_executed,
            };
            let bytes = checkpoint::write(&self.vfs, &self.dir, &snap)?;
            let base = Chain { base_lsn: lsn.0, base_bytes: bytes, deltas: Vec::new() };
            if let Some(old) = chain.chain.replace(base) {
                checkpoint::remove_chain(&self.vfs, &self.dir, &old)?;
            }
            bytes
        } else {
            let c = chain.chain.as_ref().expect("a delta extends a chain");
            let delta = Delta {
                base_lsn: c.base_lsn,
                lsn: lsn.0,
                max_xid,
                next_table_id,
                tables: deltas,
                prepared,
                gtid_executed,
            };
            let entry = checkpoint::write_delta(&self.vfs, &self.dir, c.deltas.len() + 1, &delta)?;
            let mut next = c.clone();
            next.deltas.push(entry);
            checkpoint::write_chain(&self.vfs, &self.dir, &next)?;
            chain.chain = Some(next);
            self.checkpoint_deltas.fetch_add(1, Ordering::Relaxed);
            entry.bytes
        };
        chain.prev = tables.iter().map(|t| (t.schema.id, Arc::downgrade(t))).collect();
        chain.broken = false;
        drop(chain);
        self.checkpoint_bytes.fetch_add(written, Ordering::Relaxed);
        self.checkpoint_lsn.store(lsn.0, Ordering::Release);
        self.checkpoints.fetch_add(1, Ordering::Relaxed);
        self.log.set_checkpoint_lsn(lsn);
        self.log.recycle();
        Ok(lsn)
    }

    // ---- recovery ----------------------------------------------------------------------------

    fn recover(self: &Arc<Self>) -> Result<Recovery> {
        let snap = checkpoint::read_base(&self.vfs, &self.dir)?;
        let had_checkpoint = snap.is_some();
        // xid -> (is a DDL list, row ops or DDL list).
        let mut pending: HashMap<u64, (bool, Arc<Vec<u8>>)> = HashMap::new();
        let mut rec = Recovery::default();
        let from = match snap {
            Some((s, base_bytes)) => {
                let mut c = self.catalog.write();
                c.next_id = s.next_table_id;
                let columns = s.tables.iter().map(|t| (t.schema.id, t.schema.columns.len()));
                let columns = columns.collect();
                let tables = load_tables(s.tables)
                    .ok_or(Error::Corrupt { what: STALE_KEY, position: s.lsn })?;
                for t in tables {
                    c.install(Arc::new(t));
                }
                for p in s.prepared {
                    pending.insert(p.xid, (p.ddl, Arc::new(p.bytes)));
                }
                rec.max_xid = s.max_xid;
                rec.gtid_executed = s.gtid_executed;
                // The deltas after the base, in order: each replaces the prepared set, the
                // GTID set and the counters, and changes the tables.
                let mut from = s.lsn;
                let chain = checkpoint::read_chain(
                    &self.vfs,
                    &self.dir,
                    s.lsn,
                    base_bytes,
                    columns,
                    &mut |d| {
                        apply_delta(&mut c, d.tables, d.next_table_id)?;
                        pending = d
                            .prepared
                            .into_iter()
                            .map(|p| (p.xid, (p.ddl, Arc::new(p.bytes))))
                            .collect();
                        rec.max_xid = d.max_xid;
                        rec.gtid_executed = d.gtid_executed;
                        from = d.lsn;
                        Ok(())
                    },
                )?;
                let mut state = self.checkpoint_lock.lock();
                state.chain = Some(chain);
                // Replay's changes join the dirty sets (`apply_ops`); tables a replayed DDL
                // replaces are new objects, written whole by the next delta.
                state.prev = c.tables.iter().map(|(id, t)| (*id, Arc::downgrade(t))).collect();
                drop(state);
                if !self.log.has_files() {
                    // A checkpoint is written only after the first redo file exists, and redo
                    // files are recycled, never deleted: no file at all means it was removed.
                    let what = format!(
                        "redo missing: the checkpoint (lsn {}) exists but {} holds no redo file",
                        s.lsn,
                        self.dir.join("#redo").display()
                    );
                    if !self.config.recovery_accept_loss {
                        return Err(Error::RedoMissing { what });
                    }
                    log::warn!("{what}; accepted (recovery mode point-in-time)");
                    rec.lost.push(what);
                }
                Lsn(from)
            }
            None => {
                rec.fresh = !self.log.has_files();
                if self.log.oldest_lsn() > Lsn(0) {
                    return Err(Error::Corrupt {
                        what: "redo without its checkpoint",
                        position: 0,
                    });
                }
                Lsn(0)
            }
        };
        rec.checkpoint_lsn = from;
        let end = self.log.read_from(from, |r: ReadRecord| {
            match r.kind {
                Kind::Prepare => {
                    let mut rd = Reader::new(&r.payload, "prepare record", r.lsn.0);
                    let xid = rd.u64()?;
                    // Validate now so a bad record fails recovery instead of a later commit.
                    decode_ops(&r.payload[8..], r.lsn.0)?;
                    rec.max_xid = rec.max_xid.max(xid);
                    pending.insert(xid, (false, Arc::new(r.payload[8..].to_vec())));
                }
                Kind::DdlPrepare => {
                    let mut rd = Reader::new(&r.payload, "ddl prepare record", r.lsn.0);
                    let xid = rd.u64()?;
                    decode_ddl_list(&r.payload[8..], r.lsn)?;
                    rec.max_xid = rec.max_xid.max(xid);
                    pending.insert(xid, (true, Arc::new(r.payload[8..].to_vec())));
                }
                Kind::Commit => {
                    let mut rd = Reader::new(&r.payload, "commit record", r.lsn.0);
                    let xid = rd.u64()?;
                    if !rd.is_empty() {
                        rec.gtid_executed.add(decode_gtid(&mut rd)?);
                    }
                    match pending.remove(&xid) {
                        Some((false, ops)) => self.apply_ops(&ops, r.lsn)?,
                        Some((true, list)) => {
                            for d in decode_ddl_list(&list, r.lsn)? {
                                self.replay_ddl(d, r.lsn)?;
                            }
                        }
                        None => {}
                    }
                }
                Kind::DdlOnePhase => {
                    for d in decode_ddl_list(&r.payload, r.lsn)? {
                        self.replay_ddl(d, r.lsn)?;
                    }
                }
                Kind::Rollback => {
                    let xid = Reader::new(&r.payload, "rollback record", r.lsn.0).u64()?;
                    pending.remove(&xid);
                }
                Kind::OnePhase => self.apply_ops(&r.payload, r.lsn)?,
                Kind::BinlogPayload => rec.binlog_payloads.push(BinlogPayload {
                    lsn: r.lsn,
                    end_lsn: r.end_lsn,
                    bytes: r.payload,
                }),
                Kind::Ddl => self.replay_ddl(decode_ddl(&r.payload, r.lsn)?, r.lsn)?,
                Kind::GtidReset => rec.gtid_executed = GtidSet::new(),
                Kind::Pad | Kind::Mark | Kind::Fragment => {}
            }
            Ok(())
        })?;
        if let Some(damage) = self.log.find_damage(end)? {
            if !self.config.recovery_accept_loss {
                return Err(Error::RedoDamaged { damage: Box::new(damage) });
            }
            log::warn!(
                "{damage}; accepted (recovery mode point-in-time): recovered to lsn {}",
                end.0
            );
            rec.lost.push(damage.to_string());
        }
        rec.end_lsn = end;
        let executed = rec.gtid_executed.clone();
        self.log.with_buffer(|b| b.gtids = executed);
        self.log.set_checkpoint_lsn(from);
        self.checkpoint_lsn.store(from.0, Ordering::Release);
        self.log.start(end)?;
        self.max_xid.store(rec.max_xid, Ordering::Release);

        let mut xids: Vec<u64> = pending.keys().copied().collect();
        xids.sort_unstable();
        for xid in &xids {
            let txn = match pending.remove(xid).expect("xid listed from the map") {
                (false, ops) => self.relock_prepared(*xid, ops)?,
                (true, list) => self.restage_prepared_ddl(*xid, list)?,
            };
            self.recovered.lock().insert(*xid, txn);
        }
        rec.prepared_xids = xids;
        if !had_checkpoint {
            // A new engine's first checkpoint, written after its first redo file exists,
            // marks the directory as holding an engine, so a redo removed later is refused
            // rather than taken for a fresh start.
            self.checkpoint(true)?;
        }
        Ok(rec)
    }

    fn apply_ops(&self, ops: &[u8], lsn: Lsn) -> Result<()> {
        for op in decode_ops(ops, lsn.0)? {
            match op {
                Op::Put { table, key, row } => {
                    let t = self
                        .table(table)
                        .map_err(|_| Error::Corrupt { what: "redo op table", position: lsn.0 })?;
                    if row.len() != t.schema.columns.len() {
                        return Err(Error::Corrupt { what: "redo op row", position: lsn.0 });
                    }
                    if !t.key_matches(&key, &row) {
                        return Err(Error::Corrupt { what: STALE_KEY, position: lsn.0 });
                    }
                    t.mark_dirty(t.apply_put(&key, row));
                }
                Op::Delete { table, key } => {
                    let t = self
                        .table(table)
                        .map_err(|_| Error::Corrupt { what: "redo op table", position: lsn.0 })?;
                    if let Some(cell) = t.apply_delete(&key) {
                        t.mark_dirty(cell);
                    }
                }
            }
        }
        Ok(())
    }

    /// Applies a logged DDL. Replay may start before changes the checkpoint already holds, so
    /// each DDL is applied as "make it so".
    fn replay_ddl(&self, ddl: Ddl, lsn: Lsn) -> Result<()> {
        let corrupt = || Error::Corrupt { what: "ddl record", position: lsn.0 };
        let mut c = self.catalog.write();
        match ddl {
            Ddl::CreateTable(s) => c.install(Arc::new(Table::new(s))),
            Ddl::CreateTableRows(s, rows) => {
                c.install(Arc::new(alter::filled(s, &rows).map_err(|_| corrupt())?))
            }
            Ddl::DropTable(id) => c.remove(id),
            Ddl::Truncate(id) => {
                let t = c.tables.get(&id).cloned().ok_or_else(corrupt)?;
                c.install(Arc::new(Table::new((*t.schema).clone())));
            }
            Ddl::CreateIndex(id, index) => {
                let t = c.tables.get(&id).cloned().ok_or_else(corrupt)?;
                let base = match t.schema.index(&index.name) {
                    Some(_) => without_index(&t, &index.name)?,
                    None => copy_table(&t, (*t.schema).clone()),
                };
                c.install(Arc::new(with_index(&base, index).map_err(|_| corrupt())?));
            }
            Ddl::DropIndex(id, name) => {
                let t = c.tables.get(&id).cloned().ok_or_else(corrupt)?;
                if t.schema.index(&name).is_some() {
                    c.install(Arc::new(without_index(&t, &name)?));
                }
            }
            Ddl::Replace(id, schema, rows) => {
                let t = c.tables.get(&id).cloned().ok_or_else(corrupt)?;
                let new = alter::replaced(&t, schema, rows.as_deref()).map_err(|_| corrupt())?;
                c.install(Arc::new(new));
            }

            Ddl::SetForeignKeys(id, fks, mut indexes) => {
                let t = c.tables.get(&id).cloned().ok_or_else(corrupt)?;
                // "Make it so": an index the checkpoint already holds is not added twice.
                indexes.retain(|i| t.schema.index(&i.name).is_none());
                c.install(Arc::new(with_foreign_keys(&t, &fks, &indexes).map_err(|_| corrupt())?));
            }
        }
        Ok(())
    }

    /// Rebuilds a prepared transaction from its ops: locks its rows with its images pending.
    fn relock_prepared(self: &Arc<Self>, xid: u64, ops: Arc<Vec<u8>>) -> Result<Txn> {
        let mut txn = self.begin();
        let mut deadline = None;
        for op in decode_ops(&ops, 0)? {
            let (table, key, new) = match op {
                Op::Put { table, key, row } => (table, key, Some(row)),
                Op::Delete { table, key } => (table, key, None),
            };
            let (slot, t) = self.txn_table(&mut txn, table)?;
            if let Some(row) = &new {
                // The hidden row id and AUTO_INCREMENT counters must pass the prepared rows
                // too: once committed, a new insert must not reuse their keys.
                t.observe_row(&key, row);
            }
            let (cell, _) = self
                .claim(&mut txn, slot, &key, true, &mut deadline)?
                .expect("claim with create finds a cell");
            cell.state.lock().pending = new.clone();
            if let Some(row) = new {
                for i in 0..t.indexes.len() {
                    let (entry, plen) = t.schema.index_entry(i, &row, &key);
                    t.indexes[i]
                        .shard(&entry[..plen])
                        .write()
                        .insert(InlineKey::from(&entry[..]), cell.clone());
                    txn.index_added.push(IndexAdded {
                        slot,
                        idx: i,
                        entry,
                        plen,
                        cell: cell.clone(),
                    });
                }
            }
        }
        txn.state = TxnState::Prepared { xid };
        self.log.with_buffer(|b| b.prepared.insert(xid, PreparedEntry { ops, ddl: false }));
        Ok(txn)
    }

    /// Rebuilds a prepared DDL transaction: stages its changes again (the catalog after replay
    /// is the one it was prepared against). It does not take the DDL gate: the coordinator
    /// decides it before any new DDL can start.
    fn restage_prepared_ddl(self: &Arc<Self>, xid: u64, list: Arc<Vec<u8>>) -> Result<Txn> {
        let mut txn = self.begin();
        for ddl in decode_ddl_list(&list, Lsn(0))? {
            let step = self.stage(&txn, ddl, false)?;
            txn.ddl.push(step);
        }
        txn.state = TxnState::Prepared { xid };
        self.log.with_buffer(|b| b.prepared.insert(xid, PreparedEntry { ops: list, ddl: true }));
        Ok(txn)
    }
}

/// The checkpoint's tables built ([`Table::loaded`]), as many at once as there are cores, so a
/// restart's load is spread over the machine rather than paid one table after another; in
/// the checkpoint's order. None if a row's key is stale.
fn load_tables(images: Vec<TableImage>) -> Option<Vec<Table>> {
    let n = images.len();
    let queue = Mutex::new(images.into_iter().enumerate());
    let done = Mutex::new(Vec::with_capacity(n));
    let stale = std::sync::atomic::AtomicBool::new(false);
    let workers = std::thread::available_parallelism().map_or(1, |p| p.get()).min(n);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                // Not `while let`: its scrutinee's guard would hold the queue for the body.
                let next = queue.lock().next();
                let Some((i, img)) = next else { return };
                let Some(t) = Table::loaded(img.schema, img.rows) else {
                    stale.store(true, Ordering::Release);
                    return;
                };
                t.auto_inc.fetch_max(img.auto_inc, Ordering::AcqRel);
                t.next_row_id.fetch_max(img.next_row_id, Ordering::AcqRel);
                done.lock().push((i, t));
            });
        }
    });
    if stale.load(Ordering::Acquire) {
        return None;
    }
    let mut done = done.into_inner();
    done.sort_by_key(|(i, _)| *i);
    Some(done.into_iter().map(|(_, t)| t).collect())
}

/// Applies a delta checkpoint to the catalog being recovered (see `checkpoint.rs`): tables it
/// does not list were dropped, whole ones replace theirs, changed rows are put or removed.
fn apply_delta(c: &mut Catalog, tables: Vec<DeltaTable>, next_table_id: u32) -> Result<()> {
    let listed: std::collections::HashSet<TableId> = tables.iter().map(|t| t.id()).collect();
    let gone: Vec<TableId> = c.tables.keys().filter(|id| !listed.contains(id)).copied().collect();
    for id in gone {
        c.remove(id);
    }
    let stale = || Error::Corrupt { what: STALE_KEY, position: 0 };
    for t in tables {
        match t {
            DeltaTable::Whole(img) => {
                let img = *img;
                let t = Table::loaded(img.schema, img.rows).ok_or_else(stale)?;
                t.auto_inc.fetch_max(img.auto_inc, Ordering::AcqRel);
                t.next_row_id.fetch_max(img.next_row_id, Ordering::AcqRel);
                c.install(Arc::new(t));
            }
            DeltaTable::Changes { id, auto_inc, next_row_id, rows } => {
                let t = c
                    .tables
                    .get(&id)
                    .cloned()
                    .ok_or(Error::Corrupt { what: "checkpoint delta table", position: 0 })?;
                for (key, row) in rows {
                    match row {
                        Some(row) if !t.key_matches(&key, &row) => return Err(stale()),
                        Some(row) => drop(t.apply_put(&key, row)),
                        None => drop(t.apply_delete(&key)),
                    }
                }
                t.auto_inc.fetch_max(auto_inc, Ordering::AcqRel);
                t.next_row_id.fetch_max(next_row_id, Ordering::AcqRel);
            }
        }
    }
    c.next_id = c.next_id.max(next_table_id);
    Ok(())
}

/// The rows of `cells` (a table's dirty set) as read view `view` sees them, one per key in
/// key order; None: no row at the view (a tombstone). A key deleted and inserted again has
/// two cells, of which at most one holds a row at any view: that one wins.
fn changed_rows(cells: Vec<Arc<RowCell>>, view: u64) -> Vec<(Key, Option<Image>)> {
    let mut m: std::collections::BTreeMap<Key, Option<Image>> = Default::default();
    for cell in cells {
        let r = cell.state.lock().at(view).cloned();
        let e = m.entry(Key::from(&*cell.key)).or_insert(None);
        if r.is_some() {
            *e = r;
        }
    }
    m.into_iter().collect()
}

/// The delta chain the checkpoints extend (held under `checkpoint_lock`).
#[derive(Default)]
struct ChainState {
    /// The chain on disk (None: no checkpoint yet).
    chain: Option<Chain>,
    /// The table objects the last checkpoint wrote, by id: a delta writes the changed rows
    /// of a table still the same object and any other table whole (created, replaced by a
    /// DDL). Weak, so a replaced table's rows are not kept for this.
    prev: HashMap<TableId, Weak<Table>>,
    /// A checkpoint took the dirty sets and did not finish: the next one is a full base.
    broken: bool,
}

/// At most this many deltas in a chain (restart opens each).
const MAX_DELTAS: usize = 64;
/// A new base once the deltas hold more than this percentage of the base's bytes: restart
/// reads at most base * (1 + 0.5) plus the redo since the last checkpoint, and each byte of
/// change is written about three times at most (its delta, and its share of the next base).
const REBASE_PERCENT: u64 = 50;

impl ChainState {
    fn due_for_base(&self) -> bool {
        match &self.chain {
            None => true,
            Some(c) => {
                self.broken
                    || c.deltas.len() >= MAX_DELTAS
                    || c.delta_bytes().saturating_mul(100)
                        > c.base_bytes.saturating_mul(REBASE_PERCENT)
            }
        }
    }
}

fn ddl_table(d: &Ddl) -> Option<TableId> {
    match d {
        Ddl::CreateTable(_) | Ddl::CreateTableRows(..) => None,
        Ddl::DropTable(t)
        | Ddl::Truncate(t)
        | Ddl::CreateIndex(t, _)
        | Ddl::DropIndex(t, _)
        | Ddl::Replace(t, _, _)
        | Ddl::SetForeignKeys(t, _, _) => Some(*t),
    }
}

/// Publishes the pending images as committed with commit sequence number `p.seq` (the lock
/// stays held). With a live read view the replaced image goes to the cell's history (the
/// cells returned second, for the history list); without one nothing can see it, nor the
/// history the cell still kept: those images are returned first, with their cell, so their
/// index entries go.
///
/// A cell whose replaced version is at or below `dirty_from` (the last checkpoint's view)
/// joins its table's dirty set: once per checkpoint interval, later commits find a newer
/// version and skip it (one compare per row on the hot path).
fn publish(txn: &Txn, p: Publish, dirty_from: u64) -> (Vec<Replaced>, Cells) {
    let mut olds = Vec::new();
    let mut kept = Vec::new();
    for (slot, cell) in &txn.touched {
        let mut st = cell.state.lock();
        if same(&st.committed, &st.pending) {
            continue;
        }
        let new = st.pending.clone();
        let old = std::mem::replace(&mut st.committed, new);
        let old_seq = std::mem::replace(&mut st.seq, p.seq);
        assert!(old_seq < p.seq, "a row version older than the one it replaces");
        if old_seq <= dirty_from {
            txn.tables[*slot].mark_dirty(cell.clone());
        }
        if p.keep_history {
            // A fresh insert keeps no "absent" version: a view older than `seq` finding no
            // version at or before it sees no row.
            if old.is_some() || !st.history.is_empty() {
                st.history.push(Version { seq: old_seq, row: old });
                kept.push((txn.tables[*slot].clone(), cell.clone()));
            }
        } else {
            let now = st.committed.clone();
            for v in std::mem::take(&mut st.history) {
                if v.row.is_some() {
                    olds.push((*slot, cell.clone(), v.row, now.clone()));
                }
            }
            olds.push((*slot, cell.clone(), old, now));
        }
    }
    (olds, kept)
}

/// Removes index entries that no longer describe the committed image: those this transaction
/// added for images that did not survive, and those of images its commit replaced. Runs while
/// the row locks are still held, so no other writer can re-add an entry being removed.
fn cleanup_indexes(txn: &Txn, olds: &[Replaced]) {
    for a in &txn.index_added {
        let t = &txn.tables[a.slot];
        t.remove_index_entry_unless_kept(a.idx, &a.entry, a.plen, &a.cell);
    }
    for (slot, cell, old, now) in olds {
        let Some(old) = old else { continue };
        let t = &txn.tables[*slot];
        for idx in 0..t.indexes.len() {
            // The image committed now has the same entry: it stays (no encoding, no lookup).
            if now.as_ref().is_some_and(|n| t.schema.same_index_values(idx, old, n)) {
                continue;
            }
            let (entry, plen) = t.schema.index_entry(idx, old, &cell.key);
            t.remove_index_entry_unless_kept(idx, &entry, plen, cell);
        }
    }
}

mod alter;
pub use alter::keeps_row_format;
mod ranges;
pub use ranges::{ByteRange, RangeRow, SharedRow};

#[cfg(test)]
mod tests;

/// A stored row whose primary key is not its key columns' encoding under their collations
/// (keys written by a binlogd whose collation weights differed, e.g. utf8mb4_general_ci and
/// utf8mb4_unicode_ci before 2026-11-26): lookups would miss the row, so start-up refuses.
const STALE_KEY: &str = "a row's stored primary key differs from its columns' key under their \
                         collations (written by an older binlogd: dump with that version and \
                         restore)";
