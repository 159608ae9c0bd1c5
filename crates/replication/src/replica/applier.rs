//! The applier ("SQL thread" and its workers): reads the relay log, groups its events into
//! transactions and applies them with the source's GTIDs.
//!
//! Scheduling (`replica_parallel_workers = N`, MySQL's LOGICAL_CLOCK policy, seed 003 and
//! `rpl_mta_submode.cc`): the source's group commit stamps each transaction with
//! `sequence_number` and `last_committed` (the newest transaction committed when it
//! prepared). Two transactions whose windows overlap held their locks together on the source,
//! so they do not conflict. The dispatcher hands a transaction to a worker once every
//! transaction it dispatched with a sequence number ≤ its `last_committed` has committed.
//! Skipped numbers (transactions the replica already had) are therefore no obstacle.
//! The numbers restart with each source binlog file: at a source ROTATE, or when a sequence
//! number does not increase, the dispatcher waits for everything in flight before going on.
//! DDL and transactions without a logical clock run alone.
//! A source with WRITESET dependency tracking writes a `last_committed` that may be lower than
//! the previous transaction's (its interval overlaps earlier groups); the rule above already
//! lets such a transaction start while its predecessors run, since it only waits for the
//! numbers ≤ its `last_committed`. Those predecessors wrote no primary or unique key it writes,
//! so neither waits for a row lock of the other (the engine locks rows and unique entries only)
//! and `replica_preserve_commit_order` cannot deadlock them.
//!
//! Commit: workers apply a transaction in the engine, then hand it to the committer thread.
//! The committer gives all ready transactions to the commit pipeline as one submission
//! ([`commit::Coordinator::commit_batch`]), so they form one group: one redo and
//! one binlog fsync. With `replica_preserve_commit_order=ON` it takes them only in relay log
//! order (a transaction waits for its predecessors), so the replica's binlog and
//! `gtid_executed` grow in the source's order; with OFF in any order.
//!
//! GTIDs: a worker first acquires the transaction's GTID (`gtid_next` semantics); one already
//! executed is skipped without touching the engine. The commit adds it to `gtid_executed` in
//! the same 2PC as the data, which is the crash-safety argument in `docs/replication.md`.
//!
//! Errors stop the applier with Last_SQL_Errno / Last_SQL_Error; transactions applied but
//! not committed are rolled back and their GTIDs released.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use binlog::event::{decode_event, rows_flags, EventBody, FormatContext, TableMap};
use binlog::files::{BinlogFiles, Next};
use commit::{Coordinator, OwnedGtid};
use engine::Engine;
use parking_lot::{Condvar, Mutex};

use super::apply::{apply_rows, Applied, ApplyError, Body, RowOp, TxnEvents};
use super::Shared;

/// What the applier needs. Public (with [`super::Shared`] and [`super::Status`]) so a test
/// above this crate can run the applier over a binlogd commit pipeline's own binlog files
/// (crates/binlogd/tests/replica_pipeline.rs); the server starts it through START REPLICA.
pub struct Applier {
    pub shared: Arc<Shared>,
    pub coordinator: Arc<Coordinator<Engine>>,
    pub sql: Arc<sql::Server>,
    pub relay: BinlogFiles,
    pub workers: usize,
    pub preserve_commit_order: bool,
    pub server_id: u32,
}

enum Outcome {
    Commit(Box<Applied>, OwnedGtid),
    /// Already executed: nothing to do.
    Skip,
    /// DDL the dispatcher ran itself.
    Done,
    Failed(ApplyError),
}

struct Ready {
    seq: Option<i64>,
    txn_gtid: binlog::gtid::Gtid,
    commit_ts_us: u64,
    outcome: Outcome,
}

struct Job {
    ticket: u64,
    seq: Option<i64>,
    txn: TxnEvents,
}

#[derive(Default)]
struct SchedState {
    queue: VecDeque<Job>,
    /// Sequence numbers (of the current source file) dispatched and not yet committed.
    inflight: BTreeSet<i64>,
    /// Transactions dispatched and not yet committed (with or without a clock).
    inflight_count: usize,
    ready: BTreeMap<u64, Ready>,
    next_commit: u64,
    failed: bool,
    /// No more jobs will come.
    closing: bool,
}

struct Sched {
    state: Mutex<SchedState>,
    changed: Condvar,
}

impl Applier {
    /// Runs until STOP REPLICA or an error.
    pub fn run(self) {
        let this = Arc::new(self);
        let sched =
            Arc::new(Sched { state: Mutex::new(SchedState::default()), changed: Condvar::new() });
        let mut threads = Vec::new();
        for i in 0..this.workers.max(1) {
            let (a, s) = (this.clone(), sched.clone());
            let spawned = std::thread::Builder::new()
                .name(format!("replica-worker-{i}"))
                .spawn(move || a.worker(&s));
            match spawned {
                Ok(t) => threads.push(t),
                Err(e) => {
                    this.shared.sql_error(1105, &format!("cannot start a worker: {e}"));
                    sched.state.lock().failed = true;
                }
            }
        }
        let (a, s) = (this.clone(), sched.clone());
        let committer = std::thread::Builder::new()
            .name("replica-committer".into())
            .spawn(move || a.committer(&s));
        match committer {
            Ok(t) => {
                if let Err(e) = this.dispatch_loop(&sched) {
                    this.shared.sql_error(e.code(), &e.to_string());
                    sched.state.lock().failed = true;
                }
                {
                    let mut st = sched.state.lock();
                    st.closing = true;
                    sched.changed.notify_all();
                }
                for t in threads {
                    let _ = t.join();
                }
                let _ = t.join();
            }
            Err(e) => {
                this.shared.sql_error(1105, &format!("cannot start the committer: {e}"));
                let mut st = sched.state.lock();
                st.closing = true;
                sched.changed.notify_all();
                drop(st);
                for t in threads {
                    let _ = t.join();
                }
            }
        }
        this.shared.status.lock().sql_running = false;
    }

    fn stopping(&self, sched: &Sched) -> bool {
        self.shared.stop_sql.load(Ordering::Acquire) || sched.state.lock().failed
    }

    /// Reads the relay log and dispatches its transactions.
    fn dispatch_loop(&self, sched: &Sched) -> Result<(), ApplyError> {
        let relay_err = |e: &dyn std::fmt::Display| ApplyError::Relay(e.to_string());
        let mut reader = self.relay.reader_from_start().map_err(|e| relay_err(&e))?;
        let mut ctx = FormatContext::mysql80();
        let mut tables: HashMap<u64, TableMap> = HashMap::new();
        let mut building: Option<(TxnEvents, Vec<RowOp>)> = None;
        let mut ticket: u64 = 0;
        let mut last_seq: Option<i64> = None;
        loop {
            if self.stopping(sched) {
                return Ok(());
            }
            let ev = match reader.next(Some(Duration::from_millis(100))) {
                Ok(Next::Event(ev)) => ev,
                Ok(next) => {
                    let idle = sched.state.lock().inflight_count == 0;
                    self.shared.status.lock().caught_up = idle && building.is_none();
                    if next == Next::Ended {
                        // The receiver closed the relay log: nothing more will come until
                        // START REPLICA, which restarts the applier too.
                        std::thread::sleep(Duration::from_millis(50));
                    }
                    continue;
                }
                Err(e) => return Err(relay_err(&e)),
            };
            let event = decode_event(&ev.bytes, &ctx, ev.pos).map_err(|e| relay_err(&e))?;
            {
                let mut st = self.shared.status.lock();
                st.caught_up = false;
                if st.relay_log_file != ev.file {
                    st.relay_log_file = ev.file.clone();
                }
                st.relay_log_pos = ev.pos + ev.bytes.len() as u64;
            }
            match event.body {
                EventBody::FormatDescription(fde) => {
                    ctx = FormatContext::from_fde(&fde, ev.pos).map_err(|e| relay_err(&e))?;
                }
                // The source's ROTATE (not the relay log's own): its clock restarts.
                EventBody::Rotate(_) if event.header.server_id != self.server_id => {
                    self.drain(sched);
                    last_seq = None;
                }
                EventBody::Gtid(g) => {
                    tables.clear();
                    let ts = g
                        .commit_info
                        .as_ref()
                        .map(|c| c.original_commit_ts.unwrap_or(c.immediate_commit_ts))
                        .filter(|ts| *ts > 0)
                        .unwrap_or(u64::from(event.header.timestamp) * 1_000_000);
                    let txn = TxnEvents {
                        gtid: g.gtid(),
                        clock: g.logical_clock,
                        commit_ts_us: ts,
                        body: Body::Rows(Vec::new()),
                    };
                    building = Some((txn, Vec::new()));
                }
                EventBody::Query(q) => {
                    let Some((mut txn, ops)) = building.take() else { continue };
                    let query = String::from_utf8_lossy(&q.query).into_owned();
                    if query.eq_ignore_ascii_case("BEGIN") {
                        building = Some((txn, ops));
                        continue;
                    }
                    if query.eq_ignore_ascii_case("COMMIT") {
                        txn.body = Body::Rows(ops);
                    } else {
                        let db = String::from_utf8_lossy(&q.schema).into_owned();
                        txn.body = Body::Ddl { db, query };
                    }
                    self.dispatch(sched, txn, &mut ticket, &mut last_seq);
                }
                EventBody::TableMap(t) => {
                    tables.insert(t.table_id, t);
                }
                EventBody::Rows(r) => {
                    let Some((_, ops)) = building.as_mut() else { continue };
                    let map = tables.get(&r.table_id).ok_or_else(|| {
                        relay_err(&format!("ROWS event for unmapped table id {}", r.table_id))
                    })?;
                    let db = String::from_utf8_lossy(&map.schema).into_owned();
                    let table = String::from_utf8_lossy(&map.table).into_owned();
                    if r.columns.count_ones() != map.column_count() {
                        return Err(ApplyError::Conversion {
                            db,
                            table,
                            column: r.columns.count_ones(),
                            why: "partial row image (binlogd applies binlog_row_image=FULL)".into(),
                        });
                    }
                    for row in r.rows(map, ev.pos).map_err(|e| relay_err(&e))? {
                        ops.push(RowOp {
                            db: db.clone(),
                            table: table.clone(),
                            kind: r.kind,
                            before: row.before,
                            after: row.after,
                            fk_checks: r.flags & rows_flags::NO_FOREIGN_KEY_CHECKS_F == 0,
                        });
                    }
                }
                EventBody::Xid(_) => {
                    if let Some((mut txn, ops)) = building.take() {
                        txn.body = Body::Rows(ops);
                        self.dispatch(sched, txn, &mut ticket, &mut last_seq);
                    }
                }
                _ => {}
            }
        }
    }

    /// Waits until everything dispatched has committed (or the applier failed).
    fn drain(&self, sched: &Sched) {
        let mut st = sched.state.lock();
        while st.inflight_count > 0 && !st.failed {
            sched.changed.wait(&mut st);
        }
        st.inflight.clear();
    }

    fn dispatch(
        &self,
        sched: &Sched,
        txn: TxnEvents,
        ticket: &mut u64,
        last_seq: &mut Option<i64>,
    ) {
        let my_ticket = *ticket;
        *ticket += 1;
        let clock = txn.clock;
        if let Some(c) = clock {
            // A sequence number that does not grow: a new source file began (its ROTATE may
            // have been before the relay log we have).
            if last_seq.is_some_and(|prev| c.sequence_number <= prev) {
                self.drain(sched);
            }
            *last_seq = Some(c.sequence_number);
        }
        let alone = clock.is_none() || matches!(txn.body, Body::Ddl { .. });
        let mut st = sched.state.lock();
        loop {
            if st.failed {
                return;
            }
            let free = match clock {
                _ if alone => st.inflight_count == 0,
                Some(c) => st.inflight.range(..=c.last_committed).next().is_none(),
                None => true,
            };
            if free {
                break;
            }
            sched.changed.wait(&mut st);
        }
        let seq = clock.map(|c| c.sequence_number);
        if let Some(s) = seq {
            st.inflight.insert(s);
        }
        st.inflight_count += 1;
        if let Body::Ddl { db, query } = &txn.body {
            drop(st);
            let outcome = self.run_ddl(txn.gtid, db, query);
            let mut st = sched.state.lock();
            st.ready.insert(
                my_ticket,
                Ready { seq, txn_gtid: txn.gtid, commit_ts_us: txn.commit_ts_us, outcome },
            );
            sched.changed.notify_all();
            // DDL runs alone: nothing starts before it is counted as committed.
            while st.inflight_count > 0 && !st.failed {
                sched.changed.wait(&mut st);
            }
            return;
        }
        st.queue.push_back(Job { ticket: my_ticket, seq, txn });
        sched.changed.notify_all();
        drop(st);
        if alone {
            self.drain(sched);
        }
    }

    /// DDL through the SQL layer with `gtid_next` set to the source's GTID (the commit
    /// pipeline logs it with that GTID); skipped if already executed.
    fn run_ddl(&self, gtid: binlog::gtid::Gtid, db: &str, query: &str) -> Outcome {
        if self.coordinator.gtid_executed().contains(&gtid) {
            return Outcome::Skip;
        }
        let mut session = self.sql.system_session("system user");
        let fail = |e: sql::SqlError| {
            Outcome::Failed(ApplyError::Ddl {
                code: e.code(),
                message: e.to_string(),
                db: db.to_string(),
                query: query.to_string(),
            })
        };
        if !db.is_empty() && self.sql.database(db).is_some() {
            if let Err(e) = session.use_database(db) {
                return fail(e);
            }
        }
        if let Err(e) = session.query(&format!("SET gtid_next = '{gtid}'")) {
            return fail(e);
        }
        match session.query(query) {
            Ok(_) => Outcome::Done,
            Err(e) => fail(e),
        }
    }

    fn worker(&self, sched: &Sched) {
        loop {
            let job = {
                let mut st = sched.state.lock();
                loop {
                    if let Some(job) = st.queue.pop_front() {
                        break job;
                    }
                    if st.closing {
                        return;
                    }
                    sched.changed.wait(&mut st);
                }
            };
            let failed = sched.state.lock().failed;
            let outcome = if failed {
                Outcome::Skip
            } else {
                match self.coordinator.acquire_gtid(job.txn.gtid) {
                    commit::GtidNext::AlreadyExecuted => Outcome::Skip,
                    commit::GtidNext::Owned(owned) => match &job.txn.body {
                        Body::Rows(ops) => match apply_rows(&self.coordinator, ops) {
                            Ok(applied) => Outcome::Commit(Box::new(applied), owned),
                            Err(e) => {
                                self.coordinator.release_gtid(owned);
                                Outcome::Failed(e)
                            }
                        },
                        Body::Ddl { .. } => {
                            self.coordinator.release_gtid(owned);
                            Outcome::Skip
                        }
                    },
                }
            };
            let mut st = sched.state.lock();
            st.ready.insert(
                job.ticket,
                Ready {
                    seq: job.seq,
                    txn_gtid: job.txn.gtid,
                    commit_ts_us: job.txn.commit_ts_us,
                    outcome,
                },
            );
            sched.changed.notify_all();
        }
    }

    fn committer(&self, sched: &Sched) {
        loop {
            let batch: Vec<(u64, Ready)> = {
                let mut st = sched.state.lock();
                loop {
                    let mut batch = Vec::new();
                    if self.preserve_commit_order && !st.failed {
                        loop {
                            let next = st.next_commit;
                            let Some(r) = st.ready.remove(&next) else { break };
                            batch.push((next, r));
                            st.next_commit += 1;
                        }
                    } else {
                        batch = std::mem::take(&mut st.ready).into_iter().collect();
                    }
                    if !batch.is_empty() {
                        break batch;
                    }
                    if st.closing && st.inflight_count == 0 && st.queue.is_empty() {
                        return;
                    }
                    // After a failure, what is still in flight is rolled back as it arrives.
                    sched.changed.wait(&mut st);
                }
            };
            let failed = sched.state.lock().failed;
            let mut items = Vec::new();
            let mut meta = Vec::new();
            let mut error = None;
            for (_, r) in batch {
                match r.outcome {
                    Outcome::Commit(applied, owned) if !failed && error.is_none() => {
                        items.push(
                            commit::CommitRequest::rows(applied.txn, applied.cache)
                                .with_gtid(owned),
                        );
                        meta.push((r.seq, r.txn_gtid, r.commit_ts_us, true));
                    }
                    Outcome::Commit(applied, owned) => {
                        let _ = self.coordinator.rollback(applied.txn);
                        self.coordinator.release_gtid(owned);
                        meta.push((r.seq, r.txn_gtid, r.commit_ts_us, false));
                    }
                    Outcome::Skip | Outcome::Done => {
                        meta.push((r.seq, r.txn_gtid, r.commit_ts_us, true));
                    }
                    Outcome::Failed(e) => {
                        meta.push((r.seq, r.txn_gtid, r.commit_ts_us, false));
                        if error.is_none() {
                            error = Some((e.code(), e.to_string()));
                        }
                    }
                }
            }
            let results =
                if items.is_empty() { Vec::new() } else { self.coordinator.commit_batch(items) };
            for r in results {
                if let Err(e) = r {
                    if error.is_none() {
                        error = Some((e.mysql_code(), e.to_string()));
                    }
                }
            }
            if let Some((code, message)) = &error {
                self.shared.sql_error(*code, message);
            }
            {
                let mut status = self.shared.status.lock();
                for (_, gtid, ts, ok) in &meta {
                    let pos = status.source_positions.remove(gtid);
                    if *ok && error.is_none() {
                        status.last_applied_ts_us = *ts;
                        if let Some((file, pos)) = pos {
                            status.exec_source_log_file = file;
                            status.exec_source_log_pos = pos;
                        }
                    }
                }
            }
            let mut st = sched.state.lock();
            if error.is_some() {
                st.failed = true;
            }
            for (seq, ..) in &meta {
                if let Some(s) = seq {
                    st.inflight.remove(s);
                }
                st.inflight_count -= 1;
            }
            sched.changed.notify_all();
        }
    }
}
