//! The transaction coordinator: ordered three-stage group commit with 2PC between the
//! engine's redo log and the binlog, GTID and logical-clock assignment, binlog-in-redo, and
//! XA crash recovery at open.
//!
//! # The pipeline (MySQL 8.0 `MYSQL_BIN_LOG::ordered_commit`, sql/binlog.cc)
//! A committing session prepares in the engine (a buffered Prepare record with its XID,
//! reading `last_committed` = the highest sequence number committed in the engine so far,
//! as `binlog_prepare` stores the commit parent), then enters three stages. Each stage is a
//! queue plus a stage lock ([`stage_queue`]: `Commit_stage_manager::enroll_for`,
//! `fetch_queue_for`, `MYSQL_BIN_LOG::change_stage`): a session that finds the queue empty is
//! the leader; it takes the stage lock, then the whole queue, and works for the group.
//! Sessions that found the queue non-empty are followers and wait until their transaction is
//! done. A leader moves its group into the next stage's queue *before* releasing the current
//! stage's lock, so groups reach each stage in order and commit order = binlog order; if that
//! queue was not empty, it becomes a follower there.
//!
//! - FLUSH (`process_flush_stage_queue`; `flush.rs`): rotate first if the previous group
//!   filled the file; assign GTIDs for the group under one lock
//!   (`assign_automatic_gtids_to_flush_group`) and sequence numbers, and `last_committed`
//!   (commit order, lowered by write sets per `binlog_transaction_dependency_tracking`, see
//!   `writeset.rs`); build each transaction (GTID with logical clock, timestamps and
//!   `transaction_length`, QUERY `BEGIN`, the session's rows events with positions patched,
//!   XID; a DDL is GTID + QUERY naming the DDL's XID); if the binlog is not synced per group
//!   (binlog-in-redo, or `sync_binlog != 1`) buffer the group's bytes as a redo payload; make
//!   the redo durable once for the group per `innodb_flush_log_at_trx_commit`; append the
//!   group to the binlog with one write.
//! - SYNC (`stages.rs`): optionally wait `binlog_group_commit_sync_delay` µs or until
//!   `binlog_group_commit_sync_no_delay_count` transactions queue; fdatasync the binlog per
//!   `sync_binlog` (in binlog-in-redo mode the background writer syncs); publish the synced
//!   end to readers.
//! - COMMIT (`process_commit_stage_queue`; `stages.rs`): with `binlog_order_commits` the
//!   leader commits the group in the engine in queue order (buffered commit records, no
//!   fsync); otherwise each session is woken and commits itself. `m_max_committed_transaction`
//!   advances.
//!
//! DDL (MySQL 8.0's atomic DDL): a DDL statement is an engine transaction holding staged
//! schema changes; it is prepared with an XID, that XID goes into its QUERY event
//! (`ddl_xid`), and it flows through the stages and recovery exactly as a row transaction.
//!
//! # Files
//! - this file: the API ([`Coordinator`]: open, [`Coordinator::commit`],
//!   [`Coordinator::commit_batch`], accessors) and the shared state ([`Inner`]);
//! - `request.rs`: [`CommitRequest`], the one thing a session hands over;
//! - `stage_queue.rs`: the leader/follower queue of one stage (enroll, fetch, change_stage);
//! - `member.rs`: a transaction in the pipeline and how its session waits and is woken;
//! - `stages.rs`: prepare, the SYNC and COMMIT stages, the leaders' walk through them;
//! - `flush.rs`: the FLUSH stage (GTIDs, clock, events, redo flush, binlog write, rotation);
//! - `poison.rs`: failures and panics: poisoning the pipeline and failing the waiters;
//! - `pending.rs`, `leaders.rs`: the async hand-off ([`PendingCommit`], the lane threads);
//! - `recovery.rs`: XA crash recovery at open; `admin.rs`: rotate, purge, reset, sync now,
//!   shutdown, the binlog-in-redo background writer.
//!
//! # Invariants
//! - A transaction's (rows or DDL) engine commit record is appended only after its binlog
//!   bytes are durable in the binlog file (sync_binlog=1) or in the redo as a payload (every
//!   other mode), so no crash leaves a transaction committed in the engine and absent from
//!   the binlog after recovery (recovery refills the binlog from payloads).
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
//!
//! Checked at run time with `assert!` in every build (integer compares on the hot path, no
//! lock or allocation added): a member's bytes are written, then the SYNC stage has passed
//! them, before its engine commit (`finish_member`); sequence numbers strictly increase
//! through the COMMIT stage and `last_committed < sequence_number` (`commit_stage`,
//! `flush_group`); a file rotates only once every transaction written is settled
//! (`rotate_locked`). The binlog crate checks that the published synced end never moves back,
//! the engine that the redo's durable LSN never does.
//!
//! # Panics: unwind, poison, answer everyone
//! A panic (a failed `assert!` included) in stage work — a session leading inline, the
//! `binlog-flush` / `binlog-syncer` lane threads, the `binlog-sync` background writer — is
//! caught where the stage runs (`Inner::guard`, `poison.rs`): the pipeline is poisoned with
//! [`Error::Panicked`], every member the panicking leader had in hand is completed with that
//! error and woken (threads and async wakers), members queued behind it are failed by the
//! next leader's poison check, and every later commit is refused. No thread is left waiting.
//! We unwind rather than build with `panic = "abort"` (mysqld's `ut_a` aborts): an abort
//! leaves every connected client without an answer and the recovery to the next start anyway;
//! unwinding lets each waiting session report an error (1105) first, while the poison keeps
//! anything from being written after the panic, so recovery sees the same files it would
//! after an abort. The cost is nothing on the path taken: `catch_unwind` around a stage is
//! free unless it unwinds.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use binlog::event::FormatContext;
use binlog::files::{BinlogFiles, BinlogWriter, RecoveryReport};
use binlog::gtid::{Gtid, GtidSet, Sid};
use parking_lot::{Condvar, Mutex};
use vfs::VfsRef;

use crate::cache::BinlogCache;
use crate::config::CommitConfig;
use crate::engine_api::{engine_error, Engine};
use crate::error::{Error, Result};
use crate::gtid_state::{GtidNext, GtidState, OwnedGtid};
use crate::stats::{CommitStats, Stats};

mod admin;
mod flush;
mod leaders;
mod member;
mod pending;
mod poison;
mod recovery;
mod request;
mod stage_queue;
mod stages;

use flush::{FlushState, PendingPayload};
use member::Member;
pub use pending::PendingCommit;
pub use request::{CommitRequest, GtidChoice, QueryContext, Work};
use stage_queue::StageQueue;
use stages::{CommitState, Progress, SyncState};

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
    /// Recovery mode (`--recovery-mode`): false (strict) refuses to start on damage that
    /// would lose acknowledged work (a damaged redo or closed binlog file, a binlog whose
    /// `gtid_executed` lacks GTIDs the engine committed, an engine missing beside a binlog);
    /// true (point-in-time) accepts the loss, reports it in [`RecoveryOutcome::lost`] and
    /// keeps GTIDs going after every one ever executed. [`Coordinator::open`] passes it to
    /// the engine and the binlog.
    pub recovery_accept_loss: bool,
    /// Set by [`Coordinator::open`]: the engine was created by this start (no checkpoint and
    /// no redo before it). With an existing binlog that means the engine's files were lost.
    pub engine_created: bool,
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
            recovery_accept_loss: false,
            engine_created: false,
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
    /// Damage accepted by the recovery mode (`OpenOptions::recovery_accept_loss`), each
    /// naming the file and offset or the GTIDs concerned. Empty in strict mode.
    pub lost: Vec<String>,
}

/// What readers may see of the binlog: the position just past the last transaction committed
/// in the engine (in commit order) and the GTIDs of the transactions committed in the engine.
/// Published once per group after the group's engine commits (mysqld 8.0's
/// `Gtid_state::update_commit_group`, called from `process_commit_stage_queue` after the
/// engine commit), so `SHOW BINARY LOG STATUS` and `@@gtid_executed` never name a transaction
/// a read view taken afterwards cannot see. GTID *allocation* is unchanged (seed 003: the
/// FLUSH leader allocates for its group straight into the allocation set, no owned set);
/// only the moment readers see the group moved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BinlogSnapshot {
    pub file: String,
    pub position: u64,
    pub gtid_executed: GtidSet,
}

/// The state shared by the coordinator's handles, the sessions and the pipeline threads.
struct Inner<E: Engine> {
    engine: E,
    config: Arc<CommitConfig>,
    server_id: u32,
    ctx: FormatContext,
    writer: Mutex<Option<BinlogWriter>>,
    files: BinlogFiles,
    gtids: GtidState,
    /// What readers see (see [`BinlogSnapshot`]). Held across a group's engine commits and
    /// its publication, and by [`Coordinator::consistent_snapshot`] while a read view is
    /// taken: a view and the position published with it match exactly. Lock order: after
    /// the commit lock, before every engine lock.
    published: Mutex<BinlogSnapshot>,
    next_xid: AtomicU64,
    max_committed: AtomicI64,
    flush_q: StageQueue<Arc<Member<E>>>,
    sync_q: StageQueue<Arc<Member<E>>>,
    commit_q: StageQueue<Arc<Member<E>>>,
    flush_lock: Mutex<FlushState>,
    sync_lock: Mutex<SyncState>,
    commit_lock: Mutex<CommitState>,
    /// Absolute sequence number of the last transaction the FLUSH stage appended to the
    /// binlog, and the highest one the SYNC stage has passed (durable per the settings):
    /// for the run-time check that a member is written, then synced, then committed.
    flushed_seq: AtomicI64,
    synced_seq: AtomicI64,
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

impl Coordinator<engine::Engine> {
    /// Opens the engine (`<datadir>/engine`) and the binlog (`<datadir>/binlog`) and runs XA
    /// crash recovery (see [`Coordinator::with_engine`]).
    pub fn open(
        vfs: VfsRef,
        datadir: &Path,
        options: OpenOptions,
        config: Arc<CommitConfig>,
    ) -> Result<(Self, RecoveryOutcome)> {
        // An engine directory without checkpoint or redo beside an existing binlog index: the
        // engine's files were lost (a new engine always writes its first checkpoint before
        // the binlog is opened). Refused before anything is created.
        let engine_dir = datadir.join("engine");
        let engine_missing = !vfs.exists(&engine_dir.join("checkpoint")).unwrap_or(false)
            && vfs.list_dir(&engine_dir.join("#redo")).map(|l| l.is_empty()).unwrap_or(true);
        let index = datadir.join(crate::BINLOG_DIR).join(format!("{}.index", options.basename));
        if engine_missing && vfs.exists(&index).unwrap_or(false) {
            let what = format!(
                "{} holds no checkpoint and no redo, but the binary log index {} exists: the \
                 engine's files were lost",
                engine_dir.display(),
                index.display()
            );
            if !options.recovery_accept_loss {
                return Err(Error::Lost { what });
            }
            log::warn!("{what}; accepted (recovery mode point-in-time)");
        }
        let mut ec = options.engine.clone();
        // Payload records must outlive the binlog's unsynced tail (see the module doc).
        ec.retain_redo_for_binlog = true;
        ec.recovery_accept_loss |= options.recovery_accept_loss;
        let (engine, rec) = engine::Engine::open(vfs.clone(), &datadir.join("engine"), ec)
            .map_err(engine_error::<engine::Engine>)?;
        let mut options = options;
        options.engine_created = rec.fresh && engine_missing && vfs.exists(&index).unwrap_or(false);
        let engine_lost = rec.lost;
        let (coord, mut outcome) = Self::with_engine(
            engine,
            rec.prepared_xids,
            rec.max_xid,
            vfs,
            &datadir.join(crate::BINLOG_DIR),
            options,
            config,
        )?;
        outcome.lost.splice(0..0, engine_lost);
        Ok((coord, outcome))
    }
}

impl<E: Engine> Coordinator<E> {
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

    /// `gtid_executed`: the GTIDs of the transactions committed in the engine (published
    /// once per group after its engine commits).
    pub fn gtid_executed(&self) -> GtidSet {
        self.inner.published.lock().gtid_executed.clone()
    }

    /// The binlog position and GTID set readers may see now (`SHOW BINARY LOG STATUS`).
    pub fn published(&self) -> BinlogSnapshot {
        self.inner.published.lock().clone()
    }

    /// Runs `take` (which takes an engine read view) while no group publishes, and returns
    /// the binlog position and GTID set that view corresponds to exactly (MariaDB's
    /// `binlog_snapshot_file`/`binlog_snapshot_position`, taken under `LOCK_commit_ordered`).
    pub fn consistent_snapshot<R>(&self, take: impl FnOnce() -> R) -> (R, BinlogSnapshot) {
        let p = self.inner.published.lock();
        let r = take();
        (r, p.clone())
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

    /// `gtid_purged`: the GTIDs of purged files (the first remaining file's PREVIOUS_GTIDS).
    pub fn gtid_purged(&self) -> Result<GtidSet> {
        self.inner.with_writer(|w| Ok(w.purged_gtids().clone()))
    }

    /// The binlog's files, oldest first (`SHOW BINARY LOGS`).
    pub fn binlog_file_names(&self) -> Vec<String> {
        self.inner.files.file_names()
    }
}

impl<E: Engine> Inner<E> {
    /// Runs `f` on the binlog writer (an error once shut down).
    fn with_writer<T>(&self, f: impl FnOnce(&mut BinlogWriter) -> Result<T>) -> Result<T> {
        let mut w = self.writer.lock();
        f(w.as_mut().ok_or(Error::ShutDown)?)
    }
}
