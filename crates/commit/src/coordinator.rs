//! The transaction coordinator: ordered three-stage group commit with 2PC between the
//! engine's redo log and the binlog, GTID and logical-clock assignment, binlog-in-redo, and
//! XA crash recovery at open.
//!
//! # The pipeline (MySQL 8.0 `MYSQL_BIN_LOG::ordered_commit`)
//! A committing session prepares in the engine (a buffered Prepare record with its XID,
//! reading `last_committed` = the highest sequence number committed in the engine so far,
//! as `binlog_prepare` stores the commit parent), then enters three stages. Each stage is a
//! queue plus a stage lock (`Commit_stage_manager::enroll_for`, `change_stage`): a session
//! that finds the queue empty is the leader; it takes the stage lock, then the whole queue
//! (`fetch_queue_for`), and works for the group. Sessions that found the queue non-empty are
//! followers and wait until their transaction is done. A leader moves its group into the
//! next stage's queue *before* releasing the current stage's lock, so groups reach each
//! stage in order and commit order = binlog order; if that queue was not empty, it becomes
//! a follower there.
//!
//! - FLUSH (`process_flush_stage_queue`): rotate first if the previous group filled the
//!   file; assign GTIDs for the group under one lock (`assign_automatic_gtids_to_flush_group`)
//!   and sequence numbers, and `last_committed` (commit order, lowered by write sets per
//!   `binlog_transaction_dependency_tracking`, see `writeset.rs`); build each transaction
//!   (GTID with logical clock, timestamps and `transaction_length`, QUERY `BEGIN`, the
//!   session's rows events with positions patched, XID; a DDL is GTID + QUERY naming the
//!   DDL's XID); if the binlog is not synced per group (binlog-in-redo, or
//!   `sync_binlog != 1`) buffer the group's bytes as a redo payload; make the redo durable
//!   once for the group per `innodb_flush_log_at_trx_commit`; append the group to the
//!   binlog with one write.
//! - SYNC: optionally wait `binlog_group_commit_sync_delay` µs or until
//!   `binlog_group_commit_sync_no_delay_count` transactions queue; fdatasync the binlog per
//!   `sync_binlog` (in binlog-in-redo mode the background writer syncs); publish the synced
//!   end to readers.
//! - COMMIT (`process_commit_stage_queue`): with `binlog_order_commits` the leader commits
//!   the group in the engine in queue order (buffered commit records, no fsync); otherwise
//!   each session is woken and commits itself. `m_max_committed_transaction` advances.
//!
//! DDL (MySQL 8.0's atomic DDL): a DDL statement is an engine transaction holding staged
//! schema changes; it is prepared with an XID, that XID goes into its QUERY event
//! (`ddl_xid`), and it flows through the stages and recovery exactly as a row transaction.
//!
//! # Invariants
//! - A transaction's (rows or DDL) engine commit record is appended only after its binlog bytes are
//!   durable in the binlog file (sync_binlog=1) or in the redo as a payload (every other
//!   mode), so no crash leaves a transaction committed in the engine and absent from the
//!   binlog after recovery (recovery refills the binlog from payloads).
//! - The binlog bytes of a group are written only after its prepare records are durable
//!   (with `innodb_flush_log_at_trx_commit=1`), so the binlog never holds a transaction the
//!   engine cannot commit.
//! - A binlog file is closed (rotated) only when every transaction written to it is
//!   committed in the engine and those commits are durable (`ha_flush_logs` before
//!   `new_file_impl`): recovery reads the XIDs of the last file only.
//! - Redo holding a payload is retained until the binlog file holding the same bytes is
//!   synced.
//! - A failed redo flush, binlog write or binlog fsync poisons the pipeline: the failing
//!   group and every later commit get an error; prepared transactions of the failed group
//!   are abandoned (not rolled back: the binlog may hold them) for recovery to decide.

use std::collections::{HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::task::{Context, Poll, Waker};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use binlog::event::{
    patch_log_pos, Event, EventBody, EventHeader, FormatContext, GtidEvent, LogicalClock,
    QueryEvent, StatusVars, XidEvent, EVENT_SIZE_OFFSET, HEADER_LEN,
};
use binlog::files::{BinlogFiles, BinlogWriter, Options, RecoveryReport};
use binlog::gtid::{Gtid, GtidSet, Sid};
use parking_lot::{Condvar, Mutex};
use vfs::VfsRef;

use crate::cache::BinlogCache;
use crate::config::CommitConfig;
use crate::engine_api::{engine_error, Engine};
use crate::error::{Error, Result};
use crate::gtid_state::{GtidNext, GtidState, OwnedGtid};
use crate::payload::{self, PayloadTxn};
use crate::stats::{CommitStats, CyclePart, Stage, Stats};
use crate::writeset::{DependencyTracker, TxnWrites, WriteSet};

mod leaders;
mod request;

pub use request::{CommitRequest, GtidChoice, Work};

/// The server version the GTID events name (`immediate_server_version`).
const SERVER_VERSION: u32 = 80040;
/// Without payloads the retain LSN only needs to follow the log loosely; setting it takes
/// the redo writer's lock, so it is moved at most once per this many bytes.
const RETAIN_STEP_BYTES: u64 = 4 << 20;
/// `innodb_flush_log_at_trx_commit` 0 and 2 flush the redo once a second in the background.
const BACKGROUND_REDO_FLUSH: Duration = Duration::from_secs(1);

/// Settings fixed at open.
#[derive(Debug, Clone)]
pub struct OpenOptions {
    /// `server_uuid`: the sid of automatic GTIDs.
    pub server_uuid: Sid,
    pub server_id: u32,
    pub max_binlog_size: u64,
    pub binlog_preallocate: bool,
    /// `binlog_checksum=CRC32` (true) or `NONE`.
    pub binlog_checksum: bool,
    /// The static pool of preallocated binlog files, if any.
    pub pool_dir: Option<PathBuf>,
    /// The binlog files' base name (`--log-bin=basename`): `<basename>.000001`, ...
    pub basename: String,
    /// Engine settings for [`Coordinator::open`] (the coordinator forces redo retention).
    pub engine: engine::EngineConfig,
}

impl OpenOptions {
    pub fn new(server_uuid: Sid) -> OpenOptions {
        OpenOptions {
            server_uuid,
            server_id: 1,
            max_binlog_size: binlog::files::MAX_MAX_BINLOG_SIZE,
            binlog_preallocate: false,
            binlog_checksum: true,
            pool_dir: None,
            basename: "binlog".to_string(),
            engine: engine::EngineConfig::default(),
        }
    }
}

/// Where an acknowledged transaction went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Committed {
    /// None for a read-only transaction (nothing logged).
    pub gtid: Option<Gtid>,
    /// The binlog file and the offset just past the transaction.
    pub file: String,
    pub end_pos: u64,
    /// The logical clock as written in the GTID event (relative to the file).
    pub last_committed: i64,
    pub sequence_number: i64,
}

/// What recovery at open did.
#[derive(Debug, Clone, Default)]
pub struct RecoveryOutcome {
    /// The binlog file set's report on the crashed last file (None after a clean shutdown).
    pub binlog: Option<RecoveryReport>,
    /// Transactions appended to the binlog from the redo's payloads.
    pub refilled: usize,
    /// Prepared XIDs committed (found in the binlog) and rolled back (not found).
    pub committed_xids: Vec<u64>,
    pub rolled_back_xids: Vec<u64>,
}

enum PreparedWork {
    /// `writeset` and `session` (0: none) are for WRITESET dependency tracking.
    Dml { xid: u64, prepare_lsn: u64, rows: Vec<u8>, db: String, writeset: WriteSet, session: u64 },
    /// A DDL transaction: its schema changes are prepared in the engine with `xid`, which
    /// its QUERY event carries (`ddl_xid`) for recovery to find.
    Ddl { xid: u64, prepare_lsn: u64, db: String, query: String },
}

enum Outcome {
    Pending,
    /// `binlog_order_commits=OFF`: durable in the binlog; the session commits itself.
    SelfCommit,
    Done(Result<Committed>),
}

struct MemberState<E: Engine> {
    txn: Option<E::Txn>,
    work: PreparedWork,
    explicit: Option<(Gtid, u64)>,
    /// Absolute `m_max_committed_transaction` when the transaction prepared.
    last_committed_abs: i64,
    sequence_abs: i64,
    info: Option<Committed>,
    written: bool,
    outcome: Outcome,
    /// The task awaiting this member through a [`PendingCommit`], woken with `done`.
    waker: Option<Waker>,
}

/// A transaction in the pipeline: a session's place in the stage queues.
struct Member<E: Engine> {
    start: Instant,
    /// When the COMMIT leader woke it (ns since `Inner::epoch`; 0: not yet), for the
    /// wake-up part of the cycle statistics.
    signaled_ns: AtomicU64,
    st: Mutex<MemberState<E>>,
    done: Condvar,
}

struct StageQueue<E: Engine> {
    members: Mutex<Vec<Arc<Member<E>>>>,
    arrived: Condvar,
}

impl<E: Engine> StageQueue<E> {
    fn new() -> Self {
        StageQueue { members: Mutex::new(Vec::new()), arrived: Condvar::new() }
    }
}

/// State only the FLUSH leader touches (under the flush lock).
struct FlushState {
    /// Absolute sequence numbers: the last one given (`m_transaction_counter`).
    counter: i64,
    /// The counter at the current file's start (the clock's offset: sequence numbers
    /// restart with each binlog file).
    offset: i64,
    rotate_due: bool,
    /// WRITESET dependency tracking (per file, like the clock).
    deps: DependencyTracker,
    /// When the previous FLUSH group ended (the leader about to release the flush lock).
    last_end: Option<Instant>,
}

struct SyncState {
    /// Groups since the last fdatasync, for `sync_binlog=N`.
    groups_unsynced: u32,
}

/// A payload in the redo whose bytes the binlog file may not have synced yet.
struct PendingPayload {
    seq: u64,
    end: u64,
    /// An LSN at or below the payload record's start.
    lsn: u64,
}

#[derive(Default)]
struct Progress {
    /// Transactions appended to the binlog.
    written: u64,
    /// Of those, committed in the engine or given up (failed group).
    settled: u64,
}

struct Inner<E: Engine> {
    engine: E,
    config: Arc<CommitConfig>,
    server_id: u32,
    ctx: FormatContext,
    writer: Mutex<Option<BinlogWriter>>,
    files: BinlogFiles,
    gtids: GtidState,
    next_xid: AtomicU64,
    max_committed: AtomicI64,
    flush_q: StageQueue<E>,
    sync_q: StageQueue<E>,
    commit_q: StageQueue<E>,
    flush_lock: Mutex<FlushState>,
    sync_lock: Mutex<SyncState>,
    commit_lock: Mutex<()>,
    /// Group commit OFF: the old prepare_commit_mutex.
    serial: Mutex<()>,
    poisoned: AtomicBool,
    poison: Mutex<Option<Arc<Error>>>,
    pending: Mutex<VecDeque<PendingPayload>>,
    retain_lsn: AtomicU64,
    progress: Mutex<Progress>,
    settled_cv: Condvar,
    stats: Stats,
    /// The origin of `Member::signaled_ns`.
    epoch: Instant,
    bg_stop: Mutex<bool>,
    bg_cv: Condvar,
    bg_thread: Mutex<Option<JoinHandle<()>>>,
    /// The FLUSH and SYNC lane threads for leaders handed off by async sessions.
    leaders: leaders::Leaders,
}

/// The commit coordinator; clones share one.
pub struct Coordinator<E: Engine> {
    inner: Arc<Inner<E>>,
}

impl<E: Engine> Clone for Coordinator<E> {
    fn clone(&self) -> Self {
        Coordinator { inner: self.inner.clone() }
    }
}

impl<E: Engine> std::fmt::Debug for Coordinator<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Coordinator").finish_non_exhaustive()
    }
}

fn now_us() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_micros() as u64).unwrap_or(0)
}

impl Coordinator<engine::Engine> {
    /// Opens the engine (`<datadir>/engine`) and the binlog (`<datadir>/binlog`) and runs XA
    /// crash recovery (see [`Coordinator::with_engine`]).
    pub fn open(
        vfs: VfsRef,
        datadir: &Path,
        options: OpenOptions,
        config: Arc<CommitConfig>,
    ) -> Result<(Self, RecoveryOutcome)> {
        let mut ec = options.engine.clone();
        // Payload records must outlive the binlog's unsynced tail (see the module doc).
        ec.retain_redo_for_binlog = true;
        let (engine, rec) = engine::Engine::open(vfs.clone(), &datadir.join("engine"), ec)
            .map_err(engine_error::<engine::Engine>)?;
        Self::with_engine(
            engine,
            rec.prepared_xids,
            rec.max_xid,
            vfs,
            &datadir.join("binlog"),
            options,
            config,
        )
    }
}

impl<E: Engine> Coordinator<E> {
    /// XA crash recovery over an opened engine, then a running coordinator:
    /// 1. open the binlog set (a crashed last file is walked and cut after its last complete
    ///    transaction; its XIDs and GTIDs are reported);
    /// 2. append to it whatever the redo's payloads hold beyond its end (binlog-in-redo and
    ///    `sync_binlog != 1`);
    /// 3. commit the engine's prepared XIDs found in the binlog, roll back the others;
    /// 4. sync the binlog, make the engine's decisions durable, then close the crashed file
    ///    (clearing its in-use flag) and open a new one. `gtid_executed` = the last file's
    ///    PREVIOUS_GTIDS + its GTIDs.
    pub fn with_engine(
        engine: E,
        prepared_xids: Vec<u64>,
        max_xid: u64,
        vfs: VfsRef,
        binlog_dir: &Path,
        options: OpenOptions,
        config: Arc<CommitConfig>,
    ) -> Result<(Self, RecoveryOutcome)> {
        let mut bopts = Options::new(binlog_dir);
        bopts.server_id = options.server_id;
        bopts.max_binlog_size = options.max_binlog_size;
        bopts.binlog_preallocate = options.binlog_preallocate;
        bopts.checksum = options.binlog_checksum;
        bopts.pool_dir = options.pool_dir.clone();
        bopts.basename = options.basename.clone();
        let mut writer = BinlogWriter::open(vfs, bopts)?;
        let mut outcome = RecoveryOutcome::default();
        let mut in_binlog: HashSet<u64> = HashSet::new();
        let mut max_binlog_xid = 0;
        if let Some(report) = writer.recovery_report().cloned() {
            in_binlog.extend(report.xids.iter().copied());
            outcome.refilled = refill(&engine, &mut writer, &mut in_binlog)?;
            outcome.binlog = Some(report);
        }
        max_binlog_xid = in_binlog.iter().copied().max().unwrap_or(max_binlog_xid);
        let mut prepared = prepared_xids;
        prepared.sort_unstable();
        for xid in prepared {
            if in_binlog.contains(&xid) {
                engine.commit_prepared(xid).map_err(engine_error::<E>)?;
                outcome.committed_xids.push(xid);
            } else {
                engine.rollback_prepared(xid).map_err(engine_error::<E>)?;
                outcome.rolled_back_xids.push(xid);
            }
        }
        writer.sync()?;
        engine.flush_all().map_err(engine_error::<E>)?;
        writer.finish_recovery()?;
        let executed = writer.executed_gtids().clone();
        let files = writer.files();
        let retain = engine.next_lsn();
        engine.set_retain_lsn(retain);
        let ctx = if options.binlog_checksum {
            FormatContext::mysql80()
        } else {
            FormatContext { checksum: binlog::event::ChecksumAlg::None }
        };
        let inner = Arc::new(Inner {
            engine,
            config: config.clone(),
            server_id: options.server_id,
            ctx,
            writer: Mutex::new(Some(writer)),
            files,
            gtids: GtidState::new(options.server_uuid, executed),
            next_xid: AtomicU64::new(max_xid.max(max_binlog_xid) + 1),
            max_committed: AtomicI64::new(0),
            flush_q: StageQueue::new(),
            sync_q: StageQueue::new(),
            commit_q: StageQueue::new(),
            flush_lock: Mutex::new(FlushState {
                counter: 0,
                offset: 0,
                rotate_due: false,
                deps: DependencyTracker::default(),
                last_end: None,
            }),
            sync_lock: Mutex::new(SyncState { groups_unsynced: 0 }),
            commit_lock: Mutex::new(()),
            serial: Mutex::new(()),
            poisoned: AtomicBool::new(false),
            poison: Mutex::new(None),
            pending: Mutex::new(VecDeque::new()),
            retain_lsn: AtomicU64::new(retain),
            progress: Mutex::new(Progress::default()),
            settled_cv: Condvar::new(),
            stats: Stats::new(),
            epoch: Instant::now(),
            bg_stop: Mutex::new(false),
            bg_cv: Condvar::new(),
            bg_thread: Mutex::new(None),
            leaders: leaders::Leaders::new(),
        });
        let interval_ms = config.binlog_in_redo_sync_interval_ms();
        if interval_ms > 0 {
            start_background(&inner, Duration::from_millis(interval_ms));
        }
        Ok((Coordinator { inner }, outcome))
    }

    pub fn engine(&self) -> &E {
        &self.inner.engine
    }

    pub fn config(&self) -> &Arc<CommitConfig> {
        &self.inner.config
    }

    /// A handle for binlog readers (dump threads see only the synced end).
    pub fn binlog_files(&self) -> BinlogFiles {
        self.inner.files.clone()
    }

    /// `gtid_executed`.
    pub fn gtid_executed(&self) -> GtidSet {
        self.inner.gtids.executed()
    }

    /// An empty binlog cache for a transaction in `db`.
    pub fn new_cache(&self, db: &str) -> BinlogCache {
        BinlogCache::new(db, self.inner.server_id, self.inner.ctx.clone())
    }

    pub fn begin(&self) -> E::Txn {
        self.inner.engine.begin()
    }

    pub fn rollback(&self, txn: E::Txn) -> Result<()> {
        self.inner.engine.rollback(txn).map_err(engine_error::<E>)
    }

    pub fn is_poisoned(&self) -> bool {
        self.inner.poisoned.load(Ordering::Acquire)
    }

    pub fn stats(&self) -> CommitStats {
        self.inner.stats.snapshot(self.inner.engine.redo_fsyncs())
    }

    /// Commits one transaction (rows or DDL, automatic or assigned GTID). Returns once it is
    /// durable per the settings and committed in the engine. An assigned GTID the caller no
    /// longer owns refuses the commit (error 1837) and rolls the transaction back. On any
    /// other error the transaction is rolled back, or, if the pipeline failed after its
    /// prepare, left for recovery to decide.
    ///
    /// A DDL request ([`CommitRequest::ddl`]: schema changes staged in the engine, e.g.
    /// `engine::Engine::create_table_in`) takes the same two-phase commit as rows: the engine
    /// prepares the changes with an XID; the FLUSH leader makes that durable, then writes
    /// GTID + QUERY (the QUERY carries the XID, as MySQL 8.0's atomic DDL does); the COMMIT
    /// stage commits them in the engine. After a crash the DDL is committed if its QUERY
    /// event is in the binlog, rolled back if not.
    pub fn commit(&self, req: CommitRequest<E::Txn>) -> Result<Committed> {
        let mut r = self.inner.submit(vec![req]);
        r.pop().unwrap_or(Err(Error::ShutDown))
    }

    /// Commits several transactions as one submission: they enter the FLUSH queue together,
    /// in this order, so the binlog and the engine commit them in this order (the replica
    /// applier's `replica_preserve_commit_order`; the deterministic crash simulation, which
    /// has no threads to form groups). The results are in the same order.
    pub fn commit_batch(&self, reqs: Vec<CommitRequest<E::Txn>>) -> Vec<Result<Committed>> {
        self.inner.submit(reqs)
    }

    /// `SET gtid_next='uuid:N'`: owns the GTID, or reports it executed (skip the
    /// transaction), waiting while another session owns it (MySQL's behaviour).
    pub fn acquire_gtid(&self, gtid: Gtid) -> GtidNext {
        self.inner.gtids.acquire(gtid)
    }

    /// Gives back an owned GTID (the transaction rolled back).
    pub fn release_gtid(&self, owned: OwnedGtid) {
        self.inner.gtids.release(owned.gtid, owned.owner);
    }

    /// fdatasyncs the binlog now and publishes the synced end (the binlog-in-redo
    /// background writer's step; tests call it at chosen points).
    pub fn sync_binlog_now(&self) -> Result<()> {
        self.inner.check_poison()?;
        self.inner.sync_binlog_file().map_err(|e| self.inner.set_poison(e))
    }

    /// `FLUSH BINARY LOGS`: closes the active file and opens the next, between groups.
    pub fn rotate(&self) -> Result<()> {
        let mut fs = self.inner.flush_lock.lock();
        self.inner.check_poison()?;
        self.inner.rotate_locked(&mut fs).map_err(|e| self.inner.set_poison(e))
    }

    /// `PURGE BINARY LOGS TO 'name'`: removes the files before `name` (never the active one,
    /// nor one a reader is on).
    pub fn purge_binary_logs_to(&self, name: &str) -> Result<binlog::files::PurgeOutcome> {
        self.inner.with_writer(|w| Ok(w.purge_to(name)?))
    }

    /// `PURGE BINARY LOGS BEFORE`: removes the files last modified before `unix_secs`.
    pub fn purge_binary_logs_before(&self, unix_secs: u64) -> Result<binlog::files::PurgeOutcome> {
        self.inner.with_writer(|w| Ok(w.purge_before_date(unix_secs)?))
    }

    /// `RESET MASTER`: deletes every binlog file, starts again at `<basename>.000001` and
    /// clears `gtid_executed` and `gtid_purged`. Serialized with commits: it holds the flush
    /// lock (no group enters the binlog meanwhile) and first waits until every group already
    /// written is committed in the engine, whose commits are then made durable. Refused (with
    /// nothing changed) while the redo still holds binlog payloads that crash recovery would
    /// copy into the new first file (binlog-in-redo, or `sync_binlog` != 1 with unsynced
    /// groups), and while a reader is on the binlog. Returns the deleted files' names.
    pub fn reset_binary_logs(&self) -> Result<Vec<String>> {
        let inner = &self.inner;
        let mut fs = inner.flush_lock.lock();
        inner.wait_settled();
        inner.check_poison()?;
        inner.sync_binlog_file().map_err(|e| inner.set_poison(e))?;
        inner.engine.flush_all().map_err(engine_error::<E>)?;
        let seq = inner.with_writer(|w| Ok(w.active_seq()))?;
        inner.release_payloads(seq + 1, 0);
        let payloads = inner
            .engine
            .read_binlog_payloads_from(inner.engine.oldest_lsn())
            .map_err(engine_error::<E>)?;
        if !payloads.is_empty() {
            return Err(Error::Inconsistent {
                what: "RESET MASTER refused: the redo log still holds binlog payloads \
                       (binlog_in_redo=ON or sync_binlog != 1); restart the server with \
                       binlog_in_redo=OFF and sync_binlog=1 first",
                seq,
                pos: 0,
            });
        }
        let deleted = inner.with_writer(|w| Ok(w.reset()?))?;
        inner.gtids.reset();
        fs.counter = 0;
        fs.offset = 0;
        fs.rotate_due = false;
        fs.deps.rotate();
        Ok(deleted)
    }

    /// `gtid_purged`: the GTIDs of purged files (the first remaining file's PREVIOUS_GTIDS).
    pub fn gtid_purged(&self) -> Result<GtidSet> {
        self.inner.with_writer(|w| Ok(w.purged_gtids().clone()))
    }

    /// The binlog's files, oldest first (`SHOW BINARY LOGS`).
    pub fn binlog_file_names(&self) -> Vec<String> {
        self.inner.files.file_names()
    }

    /// Clean shutdown: stops new groups, waits for the ones in flight, makes the engine's
    /// commits durable, then closes the binlog (STOP event, in-use flag cleared) — in that
    /// order, so a clean binlog never names a transaction the engine could lose.
    pub fn shutdown(&self) -> Result<()> {
        let inner = &self.inner;
        leaders::stop(inner);
        stop_background(inner);
        let _fs = inner.flush_lock.lock();
        inner.wait_settled();
        inner.check_poison()?;
        inner.engine.flush_all().map_err(engine_error::<E>)?;
        let writer = inner.writer.lock().take().ok_or(Error::ShutDown)?;
        writer.close()?;
        inner.set_poison(Error::ShutDown);
        inner.engine.shutdown().map_err(engine_error::<E>)
    }
}

/// Appends to the recovering last file whatever the redo's payloads hold beyond its end;
/// returns the number of transactions appended and adds their XIDs to `in_binlog`.
fn refill<E: Engine>(
    engine: &E,
    writer: &mut BinlogWriter,
    in_binlog: &mut HashSet<u64>,
) -> Result<usize> {
    let last = writer.active_seq();
    let mut refilled = 0;
    let payloads =
        engine.read_binlog_payloads_from(engine.oldest_lsn()).map_err(engine_error::<E>)?;
    for (lsn, raw) in payloads {
        let p = payload::decode(&raw, lsn)?;
        if p.seq < last {
            // Rotation synced that file before any later group was written.
            continue;
        }
        if p.seq > last {
            return Err(Error::Inconsistent {
                what: "the redo holds a group for a binlog file after the last one",
                seq: p.seq,
                pos: p.start,
            });
        }
        let (mut pos, mut off) = (p.start, 0usize);
        for t in &p.txns {
            let len = t.len as usize;
            let end = pos + u64::from(t.len);
            let wp = writer.write_pos();
            if end > wp {
                if pos != wp {
                    return Err(Error::Inconsistent {
                        what: "the binlog's end is not a transaction boundary of the redo's group",
                        seq: last,
                        pos: wp,
                    });
                }
                let gtids: Vec<Gtid> = t.gtid.into_iter().collect();
                writer.append(&p.bytes[off..off + len], &gtids)?;
                in_binlog.extend(t.xid);
                refilled += 1;
            }
            pos = end;
            off += len;
        }
    }
    Ok(refilled)
}

fn start_background<E: Engine>(inner: &Arc<Inner<E>>, interval: Duration) {
    let weak: Weak<Inner<E>> = Arc::downgrade(inner);
    let handle = std::thread::Builder::new()
        .name("binlog-sync".into())
        .spawn(move || {
            let mut last_redo_flush = Instant::now();
            loop {
                let Some(inner) = weak.upgrade() else { return };
                {
                    let mut stop = inner.bg_stop.lock();
                    if *stop {
                        return;
                    }
                    inner.bg_cv.wait_for(&mut stop, interval);
                    if *stop {
                        return;
                    }
                }
                if inner.poisoned.load(Ordering::Acquire) {
                    continue;
                }
                let has_pending = !inner.pending.lock().is_empty();
                if inner.config.binlog_in_redo() || has_pending {
                    if let Err(e) = inner.sync_binlog_file() {
                        inner.set_poison(e);
                        continue;
                    }
                }
                if inner.config.innodb_flush_log_at_trx_commit() != 1
                    && last_redo_flush.elapsed() >= BACKGROUND_REDO_FLUSH
                {
                    last_redo_flush = Instant::now();
                    if let Err(e) = inner.engine.flush_all() {
                        inner.set_poison(engine_error::<E>(e));
                    }
                }
            }
        })
        .expect("spawning the binlog sync thread");
    *inner.bg_thread.lock() = Some(handle);
}

fn stop_background<E: Engine>(inner: &Inner<E>) {
    *inner.bg_stop.lock() = true;
    inner.bg_cv.notify_all();
    if let Some(h) = inner.bg_thread.lock().take() {
        // The thread only ends by returning; a panic there already printed its message.
        let _ = h.join();
    }
}

impl<E: Engine> Drop for Inner<E> {
    fn drop(&mut self) {
        *self.bg_stop.lock() = true;
        self.bg_cv.notify_all();
    }
}

impl<E: Engine> Inner<E> {
    fn check_poison(&self) -> Result<()> {
        if self.poisoned.load(Ordering::Acquire) {
            if let Some(cause) = self.poison.lock().as_ref() {
                return Err(Error::poisoned(cause));
            }
        }
        Ok(())
    }

    /// Records the first failure; returns the error for the caller (as Poisoned).
    fn set_poison(&self, e: Error) -> Error {
        Error::poisoned(&self.poison_with(e))
    }

    /// Records the first failure and returns it (the cause every later error names).
    fn poison_with(&self, e: Error) -> Arc<Error> {
        if let Error::Poisoned { cause } = e {
            self.poisoned.store(true, Ordering::Release);
            return cause;
        }
        let mut p = self.poison.lock();
        let cause = match p.as_ref() {
            Some(c) => c.clone(),
            None => {
                if !matches!(e, Error::ShutDown) {
                    log::error!("commit pipeline poisoned: {e}");
                }
                let c = Arc::new(e);
                *p = Some(c.clone());
                c
            }
        };
        self.poisoned.store(true, Ordering::Release);
        cause
    }

    fn with_writer<T>(&self, f: impl FnOnce(&mut BinlogWriter) -> Result<T>) -> Result<T> {
        let mut w = self.writer.lock();
        f(w.as_mut().ok_or(Error::ShutDown)?)
    }

    /// The ownership check of assigned GTIDs: the indexes of the requests whose GTID the
    /// caller no longer owns (one lock of the owned set for the whole submission; none
    /// without assigned GTIDs).
    fn not_owned(&self, reqs: &[CommitRequest<E::Txn>]) -> Vec<usize> {
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

    fn submit(&self, reqs: Vec<CommitRequest<E::Txn>>) -> Vec<Result<Committed>> {
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
    fn refuse_not_owned(&self, req: CommitRequest<E::Txn>) -> Error {
        let _ = self.engine.rollback(req.txn);
        match req.gtid {
            GtidChoice::Assigned(owned) => Error::GtidNotOwned { gtid: owned.gtid },
            GtidChoice::Automatic => Error::ShutDown,
        }
    }

    fn prepare(&self, req: CommitRequest<E::Txn>) -> Result<Prepared<E>> {
        let last_committed_abs = self.max_committed.load(Ordering::Acquire);
        let CommitRequest { txn, work, gtid } = req;
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
            (mut t, Work::Rows(mut cache)) => {
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
                let prepare_lsn = match self.engine.prepare(&mut t, xid) {
                    Ok(l) => l,
                    Err(e) => {
                        let _ = self.engine.rollback(t);
                        return Err(engine_error::<E>(e));
                    }
                };
                (Some(t), PreparedWork::Dml { xid, prepare_lsn, rows, db, writeset, session })
            }
            (mut t, Work::Ddl { db, query }) => {
                let xid = self.next_xid.fetch_add(1, Ordering::Relaxed);
                let prepare_lsn = match self.engine.prepare(&mut t, xid) {
                    Ok(l) => l,
                    Err(e) => {
                        let _ = self.engine.rollback(t);
                        return Err(engine_error::<E>(e));
                    }
                };
                (Some(t), PreparedWork::Ddl { xid, prepare_lsn, db, query })
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

    /// Puts `members` at the end of the queue; true if the queue was empty (leader).
    fn enroll(&self, q: &StageQueue<E>, members: Vec<Arc<Member<E>>>) -> bool {
        let mut v = q.members.lock();
        let leader = v.is_empty();
        v.extend(members);
        q.arrived.notify_all();
        leader
    }

    fn take(&self, q: &StageQueue<E>) -> Vec<Arc<Member<E>>> {
        std::mem::take(&mut *q.members.lock())
    }

    /// Runs the stages for `members` as far as this thread leads; followers return at once
    /// and wait in [`Self::wait_done`].
    fn ordered_commit(&self, members: Vec<Arc<Member<E>>>) {
        let t = Instant::now();
        if self.enroll(&self.flush_q, members) {
            self.lead(t);
        }
    }

    /// The work of a session that found the FLUSH queue empty: leads the FLUSH stage for the
    /// whole queue, then the next stages as far as it leads them. `t`: when it enrolled.
    fn lead(&self, t: Instant) {
        if self.lead_flush(t) {
            self.lead_sync();
        }
    }

    /// The FLUSH stage of [`Self::lead`]; true when the group it wrote found the SYNC queue
    /// empty, so the caller must lead SYNC ([`Self::lead_sync`]) for it.
    fn lead_flush(&self, t: Instant) -> bool {
        let mut fs = self.flush_lock.lock();
        let mut group = self.take(&self.flush_q);
        let max_wait_us = self.config.binlog_max_flush_queue_time_us();
        if max_wait_us > 0 {
            // MySQL 5.6: keep taking late arrivals while they come, up to the time limit.
            let deadline = Instant::now() + Duration::from_micros(max_wait_us);
            while Instant::now() < deadline {
                let more = self.take(&self.flush_q);
                if more.is_empty() {
                    break;
                }
                group.extend(more);
            }
        }
        self.stats.waited(Stage::Flush, t.elapsed());
        if let Some(prev) = fs.last_end {
            self.stats.cycle(CyclePart::Gap, prev.elapsed());
        }
        let group = self.flush_stage(&mut fs, group);
        fs.last_end = Some(Instant::now());
        if group.is_empty() {
            return false;
        }
        let leader = self.enroll(&self.sync_q, group);
        drop(fs);
        leader
    }

    /// The SYNC stage and then the COMMIT stage as far as this thread leads them, for the
    /// groups in the SYNC queue.
    fn lead_sync(&self) {
        let t = Instant::now();
        let mut ss = self.sync_lock.lock();
        self.sync_delay();
        let group = self.take(&self.sync_q);
        self.stats.waited(Stage::Sync, t.elapsed());
        self.stats.group(Stage::Sync, group.len());
        let t = Instant::now();
        let synced = self.sync_stage(&mut ss);
        self.stats.cycle(CyclePart::Sync, t.elapsed());
        if let Err(e) = synced {
            let cause = self.poison_with(e);
            self.fail(&group, &cause);
            return;
        }
        if self.config.binlog_order_commits() {
            let leader = self.enroll(&self.commit_q, group);
            drop(ss);
            if !leader {
                return;
            }
            let t = Instant::now();
            let c = self.commit_lock.lock();
            let group = self.take(&self.commit_q);
            self.stats.waited(Stage::Commit, t.elapsed());
            let t = Instant::now();
            let wakers = self.commit_stage(&group);
            self.stats.cycle(CyclePart::Commit, t.elapsed());
            drop(c);
            signal_done(&group, wakers, self.epoch);
        } else {
            drop(ss);
            for m in group {
                let mut st = m.st.lock();
                complete(&m, &mut st, Outcome::SelfCommit);
            }
        }
    }

    fn sync_delay(&self) {
        let delay_us = self.config.binlog_group_commit_sync_delay_us();
        if delay_us == 0 {
            return;
        }
        let count = self.config.binlog_group_commit_sync_no_delay_count() as usize;
        let deadline = Instant::now() + Duration::from_micros(delay_us);
        let mut q = self.sync_q.members.lock();
        while count == 0 || q.len() < count {
            if self.sync_q.arrived.wait_until(&mut q, deadline).timed_out() {
                break;
            }
        }
    }

    fn wait_done(&self, m: &Arc<Member<E>>) -> Result<Committed> {
        let t = Instant::now();
        let mut st = m.st.lock();
        let mut slept = false;
        loop {
            match std::mem::replace(&mut st.outcome, Outcome::Pending) {
                Outcome::Done(r) => {
                    self.stats.waited(Stage::Commit, t.elapsed());
                    if slept {
                        self.record_wake(m);
                    }
                    return r;
                }
                Outcome::SelfCommit => {
                    let r = self.finish_member(&mut st);
                    self.settle(1);
                    self.stats.record_latencies(&[m.start.elapsed()]);
                    return r;
                }
                Outcome::Pending => {
                    slept = true;
                    m.done.wait(&mut st)
                }
            }
        }
    }

    /// Adds the time from the COMMIT leader's wake-up call for `m` to now (the member's
    /// session running again) to the cycle statistics.
    fn record_wake(&self, m: &Member<E>) {
        let signaled = m.signaled_ns.load(Ordering::Relaxed);
        if signaled > 0 {
            let now = self.epoch.elapsed().as_nanos() as u64;
            self.stats.cycle(CyclePart::Wake, Duration::from_nanos(now.saturating_sub(signaled)));
        }
    }

    /// [`Self::wait_done`] for a task: ready when the member's outcome is known, otherwise the
    /// waker is stored for [`complete`] to wake.
    fn poll_done(&self, m: &Arc<Member<E>>, waker: &Waker) -> Poll<Result<Committed>> {
        let mut st = m.st.lock();
        match std::mem::replace(&mut st.outcome, Outcome::Pending) {
            Outcome::Done(r) => {
                self.record_wake(m);
                Poll::Ready(r)
            }
            Outcome::SelfCommit => {
                // binlog_order_commits=OFF: the engine commit is buffered work, no wait.
                let r = self.finish_member(&mut st);
                self.settle(1);
                self.stats.record_latencies(&[m.start.elapsed()]);
                Poll::Ready(r)
            }
            Outcome::Pending => {
                if !st.waker.as_ref().is_some_and(|w| w.will_wake(waker)) {
                    st.waker = Some(waker.clone());
                }
                Poll::Pending
            }
        }
    }

    /// Completes every member of `group` with `e`. Prepared transactions are abandoned, not
    /// rolled back: the binlog may hold them, and only recovery may decide.
    fn fail(&self, group: &[Arc<Member<E>>], cause: &Arc<Error>) {
        let mut written = 0;
        for m in group {
            let mut st = m.st.lock();
            if let Some(t) = st.txn.take() {
                self.engine.abandon(t);
            }
            if let Some((g, owner)) = st.explicit {
                self.gtids.release(g, owner);
            }
            if st.written {
                written += 1;
            }
            complete(m, &mut st, Outcome::Done(Err(Error::poisoned(cause))));
        }
        self.stats.failed_commits.fetch_add(group.len() as u64, Ordering::Relaxed);
        self.settle(written);
    }

    fn settle(&self, n: u64) {
        if n > 0 {
            let mut p = self.progress.lock();
            p.settled += n;
            if p.settled == p.written {
                self.settled_cv.notify_all();
            }
        }
    }

    /// Waits until every transaction written to the binlog is committed in the engine or
    /// given up (the caller holds the flush lock, so no new ones are written).
    fn wait_settled(&self) {
        let mut p = self.progress.lock();
        while p.settled < p.written {
            self.settled_cv.wait(&mut p);
        }
    }

    fn flush_stage(&self, fs: &mut FlushState, group: Vec<Arc<Member<E>>>) -> Vec<Arc<Member<E>>> {
        self.stats.group(Stage::Flush, group.len());
        let r = self.check_poison().and_then(|()| {
            if fs.rotate_due {
                self.rotate_locked(fs).map_err(|e| self.set_poison(e))?;
            }
            self.flush_group(fs, &group)
        });
        match r {
            Ok(()) => group,
            Err(e) => {
                let cause = self.poison_with(e);
                self.fail(&group, &cause);
                Vec::new()
            }
        }
    }

    /// Closes the active file and opens the next once every transaction in it is committed
    /// and those commits are durable. Caller holds the flush lock.
    fn rotate_locked(&self, fs: &mut FlushState) -> Result<()> {
        self.wait_settled();
        self.check_poison()?;
        self.engine.flush_all().map_err(engine_error::<E>)?;
        let seq = self.with_writer(|w| {
            w.rotate()?;
            Ok(w.active_seq())
        })?;
        fs.offset = fs.counter;
        fs.rotate_due = false;
        fs.deps.rotate();
        // Rotation synced the old file: its payloads are no longer needed.
        self.release_payloads(seq, 0);
        Ok(())
    }

    fn flush_group(&self, fs: &mut FlushState, group: &[Arc<Member<E>>]) -> Result<()> {
        let cfg = &self.config;
        let t = Instant::now();
        let need_payload = cfg.binlog_in_redo() || cfg.sync_binlog() != 1;
        let (seq, start_pos, file) =
            self.with_writer(|w| Ok((w.active_seq(), w.write_pos(), w.active_file())))?;
        // Each member's state is locked only while its own transaction is encoded, never
        // across the redo flush and the binlog write: a follower on its way to sleep in
        // `wait_done` takes the same mutex, and one held for the whole stage would park it on
        // the mutex, so the leader would wake every follower of its group once here (under
        // the flush lock) only for it to go back to sleep on its condvar.
        let explicit: Vec<Gtid> =
            group.iter().filter_map(|m| m.st.lock().explicit.map(|e| e.0)).collect();
        let autos = self.gtids.assign_group(group.len() - explicit.len(), &explicit);
        let mut autos = autos.into_iter();
        let ts_us = now_us();
        let mut bytes = Vec::with_capacity(group.len() * 256);
        let mut txns = Vec::with_capacity(group.len());
        let mut gtids = Vec::with_capacity(group.len());
        let mut flush_lsn = 0;
        let counter_before = fs.counter;
        let tracking = cfg.binlog_transaction_dependency_tracking();
        let history_size = cfg.binlog_transaction_dependency_history_size();
        for m in group {
            let mut st = m.st.lock();
            let gtid = match st.explicit {
                Some((g, _)) => g,
                None => autos.next().expect("one automatic GTID per member without gtid_next"),
            };
            fs.counter += 1;
            let sequence = fs.counter - fs.offset;
            let commit_order = if st.last_committed_abs <= fs.offset {
                0
            } else {
                (st.last_committed_abs - fs.offset).min(sequence - 1)
            };
            let writes = match &st.work {
                PreparedWork::Dml { writeset, session, .. } => {
                    TxnWrites::Rows { writeset, session: *session }
                }
                PreparedWork::Ddl { .. } => TxnWrites::Ddl,
            };
            let last_committed =
                fs.deps.last_committed(tracking, history_size, sequence, commit_order, writes);
            let start = start_pos + bytes.len() as u64;
            let clock = LogicalClock { last_committed, sequence_number: sequence };
            let xid = match &st.work {
                PreparedWork::Dml { xid, prepare_lsn, .. }
                | PreparedWork::Ddl { xid, prepare_lsn, .. } => {
                    flush_lsn = flush_lsn.max(*prepare_lsn);
                    Some(*xid)
                }
            };
            if let Err(e) = self.encode_txn(&st.work, gtid, clock, ts_us, start, &mut bytes) {
                // Nothing was written anywhere yet: the group can be undone cleanly.
                self.gtids.unassign(&gtids);
                fs.counter = counter_before;
                return Err(e);
            }
            let len = (start_pos + bytes.len() as u64 - start) as u32;
            st.sequence_abs = fs.counter;
            st.info = Some(Committed {
                gtid: Some(gtid),
                file: file.clone(),
                end_pos: start + u64::from(len),
                last_committed,
                sequence_number: sequence,
            });
            txns.push(PayloadTxn { len, gtid: Some(gtid), xid });
            gtids.push(gtid);
        }
        let undo = |e: Error| {
            self.gtids.unassign(&gtids);
            e
        };
        let record = need_payload.then(|| payload::encode(seq, start_pos, &txns, &bytes));
        self.stats.cycle(CyclePart::Encode, t.elapsed());
        let t = Instant::now();
        if let Some(record) = record {
            {
                let mut p = self.pending.lock();
                let lsn = self.engine.next_lsn();
                p.push_back(PendingPayload { seq, end: start_pos + bytes.len() as u64, lsn });
            }
            let end = self
                .engine
                .append_binlog_payload(&record)
                .map_err(|e| undo(engine_error::<E>(e)))?;
            flush_lsn = flush_lsn.max(end);
        }
        match cfg.innodb_flush_log_at_trx_commit() {
            1 => self.engine.flush_up_to(flush_lsn),
            2 => self.engine.write_up_to(flush_lsn),
            _ => Ok(()),
        }
        .map_err(|e| undo(engine_error::<E>(e)))?;
        self.stats.cycle(CyclePart::RedoFlush, t.elapsed());
        let t = Instant::now();
        let appended = self.with_writer(|w| Ok(w.append(&bytes, &gtids)?)).map_err(undo)?;
        self.stats.cycle(CyclePart::BinlogWrite, t.elapsed());
        fs.rotate_due = appended.rotation_due;
        for m in group {
            m.st.lock().written = true;
        }
        self.progress.lock().written += group.len() as u64;
        Ok(())
    }

    /// Appends one transaction's events at file offset `start`.
    fn encode_txn(
        &self,
        work: &PreparedWork,
        gtid: Gtid,
        clock: LogicalClock,
        ts_us: u64,
        start: u64,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let header = EventHeader::new((ts_us / 1_000_000) as u32, self.server_id, 0);
        let trailer = self.ctx.checksum.len();
        let mut rest = Vec::new();
        match work {
            PreparedWork::Dml { xid, rows, db, .. } => {
                let begin = QueryEvent::begin(0, db, &StatusVars::mysql80_default())?;
                Event::new(header, EventBody::Query(begin)).encode(&self.ctx, 0, &mut rest)?;
                rest.extend_from_slice(rows);
                Event::new(header, EventBody::Xid(XidEvent { xid: *xid }))
                    .encode(&self.ctx, 0, &mut rest)?;
            }
            PreparedWork::Ddl { xid, db, query, .. } => {
                // MySQL 8.0's atomic DDL: the QUERY event names the DDL's XID
                // (Q_DDL_LOGGED_WITH_XID), which binlog recovery collects with the XID events'
                // (`Binlog_recovery::process_atomic_ddl`, sql/binlog/recovery.cc).
                let status = StatusVars::mysql80_ddl(db, Some(*xid));
                let q = QueryEvent::new(0, 0, db, query, &status)?;
                Event::new(header, EventBody::Query(q)).encode(&self.ctx, 0, &mut rest)?;
            }
        }
        let mut ev = GtidEvent::mysql80(gtid, clock, ts_us, 0, SERVER_VERSION);
        ev.set_transaction_length(rest.len() as u64, trailer);
        let gtid_len = Event::new(header, EventBody::Gtid(ev)).encode(&self.ctx, start, out)?;
        // The rest was encoded at offset 0: walk its events and patch each next-position.
        let mut pos = start + gtid_len as u64;
        let mut off = 0;
        while off < rest.len() {
            let size_bytes = rest
                .get(off + EVENT_SIZE_OFFSET..off + EVENT_SIZE_OFFSET + 4)
                .and_then(|b| <[u8; 4]>::try_from(b).ok())
                .expect("events encoded here have whole headers");
            let size = u32::from_le_bytes(size_bytes) as usize;
            debug_assert!(size >= HEADER_LEN && off + size <= rest.len());
            pos += size as u64;
            patch_log_pos(&mut rest[off..off + size], pos as u32, self.ctx.checksum);
            off += size;
        }
        out.extend_from_slice(&rest);
        Ok(())
    }

    fn sync_stage(&self, ss: &mut SyncState) -> Result<()> {
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
    fn sync_binlog_file(&self) -> Result<()> {
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
    fn release_payloads(&self, seq: u64, end: u64) {
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
    /// row locks and the commit lock still held. Returns the members' task wakers.
    fn commit_stage(&self, group: &[Arc<Member<E>>]) -> Vec<Option<Waker>> {
        self.stats.group(Stage::Commit, group.len());
        let mut latencies = Vec::with_capacity(group.len());
        let mut wakers = Vec::with_capacity(group.len());
        for m in group {
            let mut st = m.st.lock();
            let r = self.finish_member(&mut st);
            latencies.push(m.start.elapsed());
            st.outcome = Outcome::Done(r);
            wakers.push(st.waker.take());
        }
        self.settle(group.len() as u64);
        self.stats.record_latencies(&latencies);
        wakers
    }

    /// The engine commit of a member whose binlog bytes are durable.
    fn finish_member(&self, st: &mut MemberState<E>) -> Result<Committed> {
        // The clock advances before the engine commit releases the row locks, as mysqld's
        // `process_commit_stage_queue` calls `update_max_committed` before
        // `finish_transaction_in_engines`: a transaction that waited for one of these locks
        // prepares only after they are released, so it reads a `last_committed` that
        // includes this one, and a replica never applies the two in parallel.
        self.max_committed.fetch_max(st.sequence_abs, Ordering::AcqRel);
        if let Some(t) = st.txn.take() {
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
}

enum Prepared<E: Engine> {
    Member(Arc<Member<E>>),
    ReadOnly(Committed),
}

/// Sets a member's outcome and wakes whoever waits for it: a thread in `wait_done` (the
/// condvar) or a task polling a [`PendingCommit`] (its waker).
fn complete<E: Engine>(m: &Member<E>, st: &mut MemberState<E>, outcome: Outcome) {
    st.outcome = outcome;
    m.done.notify_one();
    if let Some(w) = st.waker.take() {
        w.wake();
    }
}

/// Wakes the members of a group whose outcomes [`Inner::commit_stage`] set: one wake-up per
/// member, outside every stage lock and outside the members' own mutexes (a waiter checks its
/// outcome under its mutex before it sleeps, and the outcome was stored under that mutex, so
/// no wake-up is lost), so a woken follower does not block again on a mutex the leader holds.
fn signal_done<E: Engine>(group: &[Arc<Member<E>>], wakers: Vec<Option<Waker>>, epoch: Instant) {
    for (m, w) in group.iter().zip(wakers) {
        m.signaled_ns.store((epoch.elapsed().as_nanos() as u64).max(1), Ordering::Relaxed);
        m.done.notify_one();
        if let Some(w) = w {
            w.wake();
        }
    }
}

/// A commit handed to the pipeline ([`Coordinator::commit_deferred`]) whose outcome is awaited
/// without a blocked thread: the transaction is prepared and queued for FLUSH. If the session
/// became the FLUSH leader, [`PendingCommit::needs_thread`] is true and
/// [`PendingCommit::run`] must be called on a thread that may block (it does the group's redo
/// and binlog writes and fsyncs); then [`PendingCommit::poll`] tells the outcome, ready only
/// once the transaction is durable per the settings and committed in the engine — the same
/// guarantee as [`Coordinator::commit`]. A follower never needs a thread: the leader's
/// thread wakes its task.
///
/// Dropping a pending commit before its outcome does not cancel it: the pipeline finishes it
/// (a dropped leader that never ran would stall its queue, so drop runs it).
pub struct PendingCommit<E: Engine> {
    inner: Arc<Inner<E>>,
    state: PendingState<E>,
}

enum PendingState<E: Engine> {
    /// Group commit OFF: the serialized path, all of it blocking, runs in `run`.
    Serial(Vec<CommitRequest<E::Txn>>),
    /// The FLUSH leader, its stages not yet run; `Instant`: when it enrolled.
    Leader(Arc<Member<E>>, Instant),
    /// Waiting for the pipeline.
    Queued(Arc<Member<E>>),
    /// Known already (read-only, refused, or taken).
    Ready(Option<Result<Committed>>),
}

impl<E: Engine> Coordinator<E> {
    /// [`Coordinator::commit`] for an async caller: prepares the transaction and enrolls it in
    /// the FLUSH queue without waiting. See [`PendingCommit`].
    pub fn commit_deferred(&self, req: CommitRequest<E::Txn>) -> PendingCommit<E> {
        let inner = self.inner.clone();
        if let GtidChoice::Assigned(owned) = &req.gtid {
            if !inner.gtids.is_owner(owned) {
                let e = inner.refuse_not_owned(req);
                return PendingCommit { inner, state: PendingState::Ready(Some(Err(e))) };
            }
        }
        if !inner.config.binlog_group_commit() {
            return PendingCommit { inner, state: PendingState::Serial(vec![req]) };
        }
        if let Err(e) = inner.check_poison() {
            let _ = inner.engine.rollback(req.txn);
            return PendingCommit { inner, state: PendingState::Ready(Some(Err(e))) };
        }
        let state = match inner.prepare(req) {
            Ok(Prepared::Member(m)) => {
                let t = Instant::now();
                if inner.enroll(&inner.flush_q, vec![m.clone()]) {
                    PendingState::Leader(m, t)
                } else {
                    PendingState::Queued(m)
                }
            }
            Ok(Prepared::ReadOnly(info)) => PendingState::Ready(Some(Ok(info))),
            Err(e) => PendingState::Ready(Some(Err(e))),
        };
        PendingCommit { inner, state }
    }
}

impl<E: Engine> PendingCommit<E> {
    /// True when [`Self::run`] must be called (on a thread that may block) before the outcome
    /// can arrive.
    pub fn needs_thread(&self) -> bool {
        matches!(self.state, PendingState::Serial(_) | PendingState::Leader(..))
    }

    /// Does the blocking part: the serialized commit (group commit OFF), or the leader's
    /// stages. Does nothing when [`Self::needs_thread`] is false.
    pub fn run(&mut self) {
        let state = std::mem::replace(&mut self.state, PendingState::Ready(None));
        self.state = match state {
            PendingState::Serial(items) => PendingState::Ready(self.inner.submit(items).pop()),
            PendingState::Leader(m, t) => {
                self.inner.lead(t);
                PendingState::Queued(m)
            }
            other => other,
        };
    }

    /// The outcome once known; `Pending` stores the context's waker, woken when it is. Polling
    /// before [`Self::run`] of a leader would never complete: it returns an error instead.
    pub fn poll(&mut self, cx: &mut Context<'_>) -> Poll<Result<Committed>> {
        match &mut self.state {
            PendingState::Queued(m) => {
                let m = m.clone();
                let r = self.inner.poll_done(&m, cx.waker());
                if r.is_ready() {
                    self.state = PendingState::Ready(None);
                }
                r
            }
            PendingState::Ready(r) => Poll::Ready(r.take().unwrap_or(Err(Error::ShutDown))),
            PendingState::Serial(_) | PendingState::Leader(..) => Poll::Ready(Err(Error::ShutDown)),
        }
    }

    /// Leaves the leader's work to the pipeline's FLUSH thread instead of running it here (see
    /// the `leaders` module): afterwards the outcome arrives through [`Self::poll`] as a
    /// follower's does. False when there is nothing to hand off (not a leader) or the
    /// pipeline's threads are stopped; then [`Self::needs_thread`] still tells whether
    /// [`Self::run`] is needed.
    pub fn hand_off(&mut self) -> bool {
        let PendingState::Leader(_, t) = &self.state else { return false };
        if !leaders::hand_off(&self.inner, *t) {
            return false;
        }
        let state = std::mem::replace(&mut self.state, PendingState::Ready(None));
        if let PendingState::Leader(m, _) = state {
            self.state = PendingState::Queued(m);
        }
        true
    }

    /// Blocks until the outcome is known (runs the leader's work first if needed).
    pub fn wait(mut self) -> Result<Committed> {
        self.run();
        let state = std::mem::replace(&mut self.state, PendingState::Ready(None));
        match state {
            PendingState::Queued(m) => self.inner.wait_done(&m),
            PendingState::Ready(r) => r.unwrap_or(Err(Error::ShutDown)),
            PendingState::Serial(_) | PendingState::Leader(..) => Err(Error::ShutDown),
        }
    }
}

impl<E: Engine> Drop for PendingCommit<E> {
    fn drop(&mut self) {
        // A leader that never ran would leave its queue without a leader forever.
        if self.needs_thread() {
            self.run();
        }
    }
}

impl<E: Engine> std::fmt::Debug for PendingCommit<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PendingCommit").field("needs_thread", &self.needs_thread()).finish()
    }
}
