//! XA crash recovery at open (`MYSQL_BIN_LOG::recover` / `Binlog_recovery`,
//! sql/binlog/recovery.cc, and `ha_recover`): the binlog decides every transaction the engine
//! holds prepared — committed if its XID (or a DDL's `ddl_xid`) is in the binlog's last file,
//! rolled back if not — after the binlog has been refilled from the redo's payloads.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64};
use std::sync::Arc;
use std::time::{Duration, Instant};

use binlog::event::FormatContext;
use binlog::files::{BinlogWriter, Options};
use binlog::gtid::Gtid;
use parking_lot::{Condvar, Mutex};
use vfs::VfsRef;

use super::admin::start_background;
use super::flush::FlushState;
use super::stage_queue::StageQueue;
use super::stages::{CommitState, Progress, SyncState};
use super::{leaders, BinlogSnapshot, Coordinator, Inner, OpenOptions, RecoveryOutcome};
use crate::config::CommitConfig;
use crate::engine_api::{engine_error, Engine};
use crate::error::{Error, Result};
use crate::gtid_state::GtidState;
use crate::payload;
use crate::stats::Stats;
use crate::writeset::DependencyTracker;

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
        bopts.recovery_accept_loss = options.recovery_accept_loss;
        let accept = options.recovery_accept_loss;
        let index = binlog_dir.join(format!("{}.index", options.basename));
        let engine_gtids = engine.gtid_executed();
        if !accept && !engine_gtids.is_empty() && !vfs.exists(&index).unwrap_or(false) {
            // Checked before the writer creates a new set, so the refusal changes nothing.
            return Err(Error::Lost {
                what: format!(
                    "the binary log index {} is missing, but the engine committed {}: the \
                     binary log was lost",
                    index.display(),
                    engine_gtids
                ),
            });
        }
        let mut writer = BinlogWriter::open(vfs, bopts)?;
        let mut outcome = RecoveryOutcome::default();
        let mut in_binlog: HashSet<u64> = HashSet::new();
        // The GTID of each XID in the binlog, for the engine's copy of gtid_executed.
        let mut xid_gtids: HashMap<u64, Gtid> = HashMap::new();
        let mut max_binlog_xid = 0;
        if let Some(report) = writer.recovery_report().cloned() {
            if !report.in_use {
                outcome.lost.push(format!(
                    "binlog {}: closed file damaged; cut at offset {} ({} bytes lost, {:?})",
                    report.file, report.valid_end, report.bytes_cut, report.reason
                ));
            }
            in_binlog.extend(report.xids.iter().copied());
            for t in &report.transactions {
                if let (Some(x), Some(g)) = (t.xid, t.gtid) {
                    xid_gtids.insert(x, g);
                }
            }
            outcome.refilled = refill(
                &engine,
                &mut writer,
                &mut in_binlog,
                &mut xid_gtids,
                &mut outcome.lost,
                accept,
            )?;
            outcome.binlog = Some(report);
        }
        if options.engine_created {
            // Checked before anything was opened (`Coordinator::open`); here only reported.
            outcome.lost.push(format!(
                "the engine's directory held no checkpoint and no redo beside the binary log \
                 {} (gtid_executed {}): its data was lost",
                binlog_dir.display(),
                writer.executed_gtids()
            ));
        }
        max_binlog_xid = in_binlog.iter().copied().max().unwrap_or(max_binlog_xid);
        let mut prepared = prepared_xids;
        prepared.sort_unstable();
        for xid in prepared {
            if in_binlog.contains(&xid) {
                engine
                    .commit_prepared_with_gtid(xid, xid_gtids.get(&xid).copied())
                    .map_err(engine_error::<E>)?;
                outcome.committed_xids.push(xid);
            } else {
                engine.rollback_prepared(xid).map_err(engine_error::<E>)?;
                outcome.rolled_back_xids.push(xid);
            }
        }
        writer.sync()?;
        engine.flush_all().map_err(engine_error::<E>)?;
        writer.finish_recovery()?;
        // GTID numbering never goes back: the engine's executed set (durable with its
        // commits, as mysqld's mysql.gtid_executed table) must be inside the binlog's. A
        // binlog that lacks some lost files or a cut tail; accepted, the union is carried in
        // a new file's PREVIOUS_GTIDS so those GTIDs are never handed out again.
        let engine_gtids = engine.gtid_executed();
        if !engine_gtids.is_subset(writer.executed_gtids()) {
            let missing = engine_gtids.subtract(writer.executed_gtids());
            let what = format!(
                "the binary log's gtid_executed {} lacks {} that the engine committed (binlog \
                 files lost or cut)",
                writer.executed_gtids(),
                missing
            );
            if !accept {
                return Err(Error::Lost { what });
            }
            log::warn!("{what}; accepted (recovery mode point-in-time): gtid_executed keeps them");
            outcome.lost.push(what);
            writer.add_executed(&engine_gtids);
            writer.rotate()?;
        }
        let executed = writer.executed_gtids().clone();
        let published = BinlogSnapshot {
            file: writer.active_file(),
            position: writer.write_pos(),
            gtid_executed: executed.clone(),
        };
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
            published: Mutex::new(published),
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
            commit_lock: Mutex::new(CommitState::default()),
            flushed_seq: AtomicI64::new(0),
            synced_seq: AtomicI64::new(0),
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
}

/// Appends to the recovering last file whatever the redo's payloads hold beyond its end;
/// returns the number of transactions appended and adds their XIDs to `in_binlog`.
pub(super) fn refill<E: Engine>(
    engine: &E,
    writer: &mut BinlogWriter,
    in_binlog: &mut HashSet<u64>,
    xid_gtids: &mut HashMap<u64, Gtid>,
    lost: &mut Vec<String>,
    accept: bool,
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
        if p.seq > last && accept {
            // The binlog files it belonged to were lost and the loss accepted: the engine
            // committed these transactions and keeps their GTIDs (see `with_engine`).
            let what = format!(
                "binlog file {} (named by the redo's binlog payloads) is missing: its events \
                 are not refilled",
                p.seq
            );
            if !lost.contains(&what) {
                lost.push(what);
            }
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
                if let (Some(x), Some(g)) = (t.xid, t.gtid) {
                    xid_gtids.insert(x, g);
                }
                refilled += 1;
            }
            pos = end;
            off += len;
        }
    }
    Ok(refilled)
}
