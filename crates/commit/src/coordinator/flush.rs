//! The FLUSH stage (`MYSQL_BIN_LOG::process_flush_stage_queue`, sql/binlog.cc): under the
//! flush lock, the leader rotates if the previous group filled the file, assigns the group's
//! GTIDs under one lock (`assign_automatic_gtids_to_flush_group`) and sequence numbers, sets
//! each `last_committed` (commit order lowered by write sets), encodes each transaction,
//! buffers the group as a redo payload when the binlog is not synced per group, makes the
//! redo durable once for the group, and appends the group to the binlog with one write.
//!
//! Invariants checked here: `last_committed < sequence_number` for every transaction; a file
//! rotates only once every transaction written to it is settled (committed in the engine or
//! given up), and those commits are made durable first (`ha_flush_logs` before
//! `new_file_impl`).

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use binlog::event::{
    patch_log_pos, Event, EventBody, EventHeader, GtidEvent, LogicalClock, QueryEvent, StatusVars,
    XidEvent, EVENT_SIZE_OFFSET, HEADER_LEN,
};
use binlog::gtid::Gtid;

use super::member::{Member, PreparedWork};
use super::{Committed, Inner};
use crate::engine_api::{engine_error, Engine};
use crate::error::{Error, Result};
use crate::payload::{self, PayloadTxn};
use crate::stats::{CyclePart, Stage};
use crate::writeset::{DependencyTracker, TxnWrites};

/// The server version the GTID events name (`immediate_server_version`).
const SERVER_VERSION: u32 = 80040;

fn now_us() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_micros() as u64).unwrap_or(0)
}

/// State only the FLUSH leader touches (under the flush lock).
pub(super) struct FlushState {
    /// Absolute sequence numbers: the last one given (`m_transaction_counter`).
    pub(super) counter: i64,
    /// The counter at the current file's start (the clock's offset: sequence numbers
    /// restart with each binlog file).
    pub(super) offset: i64,
    pub(super) rotate_due: bool,
    /// WRITESET dependency tracking (per file, like the clock).
    pub(super) deps: DependencyTracker,
    /// When the previous FLUSH group ended (the leader about to release the flush lock).
    pub(super) last_end: Option<Instant>,
}

/// A payload in the redo whose bytes the binlog file may not have synced yet.
pub(super) struct PendingPayload {
    pub(super) seq: u64,
    pub(super) end: u64,
    /// An LSN at or below the payload record's start.
    pub(super) lsn: u64,
}

impl<E: Engine> Inner<E> {
    /// The FLUSH stage's work for `group`; false when it failed (the group is then failed and
    /// the pipeline poisoned).
    pub(super) fn flush_stage(&self, fs: &mut FlushState, group: &[Arc<Member<E>>]) -> bool {
        self.stats.group(Stage::Flush, group.len());
        let r = self.check_poison().and_then(|()| {
            if fs.rotate_due {
                self.rotate_locked(fs).map_err(|e| self.set_poison(e))?;
            }
            self.flush_group(fs, group)
        });
        match r {
            Ok(()) => true,
            Err(e) => {
                let cause = self.poison_with(e);
                self.fail(group, &cause);
                false
            }
        }
    }

    /// Closes the active file and opens the next once every transaction in it is committed
    /// and those commits are durable. Caller holds the flush lock.
    pub(super) fn rotate_locked(&self, fs: &mut FlushState) -> Result<()> {
        self.wait_settled();
        self.check_poison()?;
        {
            let p = self.progress.lock();
            assert!(
                p.settled >= p.written,
                "rotation with {} of {} transactions written not committed",
                p.written - p.settled,
                p.written
            );
        }
        self.engine.flush_all().map_err(engine_error::<E>)?;
        let (seq, file, pos) = self.with_writer(|w| {
            w.rotate()?;
            Ok((w.active_seq(), w.active_file(), w.write_pos()))
        })?;
        // Everything written is committed and published (`wait_settled`): readers see the
        // new file's start.
        {
            let mut p = self.published.lock();
            p.file = file;
            p.position = pos;
        }
        fs.offset = fs.counter;
        fs.rotate_due = false;
        fs.deps.rotate();
        // Rotation synced the old file: its payloads are no longer needed.
        self.release_payloads(seq, 0);
        Ok(())
    }

    /// GTIDs, clock, events, payload, redo flush and binlog append for `group`.
    pub(super) fn flush_group(&self, fs: &mut FlushState, group: &[Arc<Member<E>>]) -> Result<()> {
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
            assert!(
                (0..sequence).contains(&last_committed),
                "logical clock: last_committed {last_committed} for sequence number {sequence}"
            );
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
        self.flushed_seq.store(fs.counter, Ordering::Release);
        Ok(())
    }

    /// Appends one transaction's events at file offset `start`.
    pub(super) fn encode_txn(
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
            PreparedWork::Dml { xid, rows, db, context, .. } => {
                // mysqld's BEGIN carries the session's status variables like any QUERY event.
                let begin = match context {
                    Some(c) => QueryEvent::begin(c.thread_id, db, &c.status)?,
                    None => QueryEvent::begin(0, db, &StatusVars::mysql80_default())?,
                };
                Event::new(header, EventBody::Query(begin)).encode(&self.ctx, 0, &mut rest)?;
                rest.extend_from_slice(rows);
                Event::new(header, EventBody::Xid(XidEvent { xid: *xid }))
                    .encode(&self.ctx, 0, &mut rest)?;
            }
            PreparedWork::Ddl { xid, db, query, context, rows: Some(rows), .. } => {
                // CREATE TABLE ... SELECT (mysqld 8.0.21+ `select_create::binlog_show_create_table`
                // then the rows in the same transaction cache): QUERY `CREATE TABLE ... START
                // TRANSACTION` with the session's values, the rows, XID. Recovery finds the XID
                // event like a row transaction's.
                let mut status = StatusVars::mysql80_ddl(db, None);
                let mut thread_id = 0;
                if let Some(c) = context {
                    let dbs = status.updated_db_names.take();
                    status = c.status.clone();
                    status.updated_db_names = dbs;
                    status.ddl_xid = None;
                    thread_id = c.thread_id;
                }
                let q = QueryEvent::new(thread_id, 0, db, query, &status)?;
                Event::new(header, EventBody::Query(q)).encode(&self.ctx, 0, &mut rest)?;
                rest.extend_from_slice(rows);
                Event::new(header, EventBody::Xid(XidEvent { xid: *xid }))
                    .encode(&self.ctx, 0, &mut rest)?;
            }
            PreparedWork::Ddl { xid, db, query, context, rows: None, .. } => {
                // MySQL 8.0's atomic DDL: the QUERY event names the DDL's XID
                // (Q_DDL_LOGGED_WITH_XID), which binlog recovery collects with the XID events'
                // (`Binlog_recovery::process_atomic_ddl`, sql/binlog/recovery.cc).
                let mut status = StatusVars::mysql80_ddl(db, Some(*xid));
                let mut thread_id = 0;
                if let Some(c) = context {
                    let (dbs, ddl_xid) = (status.updated_db_names.take(), status.ddl_xid);
                    status = c.status.clone();
                    status.updated_db_names = dbs;
                    status.ddl_xid = ddl_xid;
                    thread_id = c.thread_id;
                }
                let q = QueryEvent::new(thread_id, 0, db, query, &status)?;
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
}
