//! The SQL layer's commit and binlog-admin seams ([`sql::TxnCommitter`], [`sql::BinlogAdmin`])
//! implemented by the commit pipeline ([`commit::Coordinator`]): what `binlogd serve` uses when
//! the binary log is on.
//!
//! A transaction's row changes (full before/after images, in statement order) become its
//! binlog cache (TABLE_MAP + WRITE/UPDATE/DELETE_ROWS); the coordinator then runs the ordered
//! group commit (redo prepare, binlog write and sync, engine commit) and returns once the
//! transaction is durable per `sync_binlog` / `innodb_flush_log_at_trx_commit`. DDL, staged in
//! an engine DDL transaction, goes through the same two-phase commit
//! ([`commit::CommitRequest::ddl`]): the engine's DDL prepare record, then GTID + QUERY (carrying
//! the XID as `ddl_xid`, as MySQL 8.0's atomic DDL does), then the engine commit; after a
//! crash it is committed exactly when its QUERY event is in the binlog (docs/commit.md, "DDL").
//!
//! SHOW BINLOG EVENTS reads the file set through its tailing reader, so it never shows bytes past
//! the synced end. `SET GLOBAL sync_binlog` and the other group-commit variables reach the running pipeline
//! through [`CommitVariables`].
//!
//! `gtid_next`: AUTOMATIC takes the pipeline's GTID; an assigned GTID is acquired first (owned
//! until the commit, or reported executed, in which case MySQL skips the transaction: it is
//! rolled back and nothing is logged); ANONYMOUS is refused, as MySQL refuses it with
//! `gtid_mode=ON`.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use binlog::event::{decode_event, rows_flags, EventBody, FormatContext};
use binlog::files::{BinlogFiles, Next};

use commit::{CommitConfig, Coordinator};
use engine::{TableSchema, Txn};

use crate::config::RowMetadata;
use sql::admin::{BinlogEventInfo, BinlogFileInfo, MasterStatus};
use sql::error::Result as SqlResult;
use sql::vars::{Change, Var, VariableListener};
use sql::{BinlogAdmin, ChangeKind, GtidNext, SqlError, TxnChanges, TxnCommitter};

/// The coordinator as the SQL layer's committer and binlog administrator.
pub struct Binlogging {
    coordinator: Arc<Coordinator<engine::Engine>>,
    /// `<datadir>/binlog`, where the coordinator keeps the files (for their sizes).
    binlog_dir: PathBuf,
    row_metadata: RowMetadata,
    /// Engine name → (the engine's schema, the same under its table name alone).
    schemas: parking_lot::Mutex<HashMap<String, MappedSchema>>,
    /// The replication source's registered replicas (SHOW REPLICAS), when there is one.
    replicas: Option<Arc<replication::Replicas>>,
}

/// A table's schema as the engine has it, the same named for TABLE_MAP, and its TABLE_MAP.
type MappedSchema = (Arc<TableSchema>, Arc<TableSchema>, Arc<commit::MappedTable>);

impl Binlogging {
    /// Wraps an open coordinator whose binlog files live in `binlog_dir`.
    pub fn new(
        coordinator: Arc<Coordinator<engine::Engine>>,
        binlog_dir: PathBuf,
        row_metadata: RowMetadata,
    ) -> Self {
        Self { coordinator, binlog_dir, row_metadata, schemas: Default::default(), replicas: None }
    }

    /// Lists `replicas` in SHOW REPLICAS.
    pub fn with_replicas(mut self, replicas: Arc<replication::Replicas>) -> Self {
        self.replicas = Some(replicas);
        self
    }
}

/// A commit-layer error as the client sees it: the engine's MySQL code where there is one
/// (lock wait timeout, deadlock, duplicate key), ER_UNKNOWN_ERROR (1105) otherwise, with the
/// whole cause chain in the message.
fn to_sql_error(e: &commit::Error) -> SqlError {
    let mut message = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        message.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    let code = e.mysql_code();
    let sqlstate = match code {
        1205 | 1213 => "40001",
        1062 => "23000",
        _ => "HY000",
    };
    SqlError::Other { code, sqlstate, message }
}

fn missing_image(what: &str) -> SqlError {
    SqlError::Other {
        code: 1105,
        sqlstate: "HY000",
        message: format!("row change without its {what} image"),
    }
}

impl Binlogging {
    /// The transaction's binlog cache (TABLE_MAP + ROWS events); on error the transaction is
    /// rolled back.
    fn build_cache(&self, txn: Txn, changes: &TxnChanges) -> SqlResult<(Txn, commit::BinlogCache)> {
        let db = changes.changes.first().map(|c| c.names().0).unwrap_or_default();
        let mut cache = self.coordinator.new_cache(db);
        // For WRITESET_SESSION; the cache collects the write set itself from the row images.
        cache.set_session(changes.session);
        if self.row_metadata == RowMetadata::Full {
            cache = cache.with_full_metadata();
        }
        let mut mapped: Vec<(&Arc<TableSchema>, MappedSchema)> = Vec::new();
        for (i, change) in changes.changes.iter().enumerate() {
            let encoded = (|| {
                let (schema, map) = match mapped.iter().find(|(t, _)| Arc::ptr_eq(t, &change.table))
                {
                    Some((_, m)) => (m.1.clone(), m.2.clone()),
                    None => {
                        let m = self.map_schema(&cache, &change.table)?;
                        let found = (m.1.clone(), m.2.clone());
                        mapped.push((&change.table, m));
                        found
                    }
                };
                cache.set_foreign_key_checks(!changes.fk_unchecked_at(i));
                match change.kind {
                    ChangeKind::Insert => {
                        let after = change.after.as_ref().ok_or_else(|| missing_image("after"))?;
                        cache.insert_mapped(&map, &schema, after)
                    }
                    ChangeKind::Update => {
                        let before =
                            change.before.as_ref().ok_or_else(|| missing_image("before"))?;
                        let after = change.after.as_ref().ok_or_else(|| missing_image("after"))?;
                        cache.update_mapped(&map, &schema, before, after)
                    }
                    ChangeKind::Delete => {
                        let before =
                            change.before.as_ref().ok_or_else(|| missing_image("before"))?;
                        cache.delete_mapped(&map, &schema, before)
                    }
                }
                .map_err(|e| to_sql_error(&e))?;
                // mysqld writes each statement's table maps and ends it with STMT_END_F.
                if changes.statement_ends_after(i) {
                    cache.end_statement().map_err(|e| to_sql_error(&e))?;
                }
                Ok(())
            })();
            if let Err(e) = encoded {
                let _ = self.coordinator.rollback(txn);
                return Err(e);
            }
        }
        Ok((txn, cache))
    }

    /// The engine names tables `db.table`; TABLE_MAP carries the database and the table
    /// apart, so the cache gets each schema under its table name alone, and the table's
    /// TABLE_MAP in its own database. Both are kept per table definition (a DDL makes a new
    /// `Arc`), so commits neither clone schemas nor rebuild TABLE_MAPs.
    fn map_schema(
        &self,
        cache: &commit::BinlogCache,
        table: &Arc<TableSchema>,
    ) -> SqlResult<MappedSchema> {
        let mut cached = self.schemas.lock();
        if let Some(m) = cached.get(&table.name) {
            if Arc::ptr_eq(&m.0, table) {
                return Ok(m.clone());
            }
        }
        let (db, name) = sql::commit::split_engine_name(&table.name);
        let mut schema = table.as_ref().clone();
        schema.name = name.to_string();
        let map = cache.map_table(db, &schema).map_err(|e| to_sql_error(&e))?;
        let m = (table.clone(), Arc::new(schema), map);
        cached.insert(table.name.clone(), m.clone());
        Ok(m)
    }
}

/// `request` logged with the session's values (thread id, character sets, sql_mode...) when
/// the SQL layer gave them.
fn with_context<T>(
    request: commit::CommitRequest<T>,
    context: Option<Arc<commit::QueryContext>>,
) -> commit::CommitRequest<T> {
    match context {
        Some(c) => request.with_context(c),
        None => request,
    }
}

/// A commit in the pipeline, as the SQL layer awaits it.
struct Deferred(commit::PendingCommit<engine::Engine>);

impl sql::DeferredCommit for Deferred {
    fn needs_thread(&self) -> bool {
        self.0.needs_thread()
    }

    fn run(&mut self) {
        self.0.run();
    }

    fn hand_off(&mut self) -> bool {
        self.0.hand_off()
    }

    fn poll_done(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<SqlResult<sql::CommitOutcome>> {
        self.0
            .poll(cx)
            .map(|r| r.map(|i| sql::CommitOutcome { gtid: i.gtid }).map_err(|e| to_sql_error(&e)))
    }
}

impl TxnCommitter for Binlogging {
    fn defers(&self) -> bool {
        true
    }

    fn commit_deferred(
        &self,
        txn: Txn,
        changes: TxnChanges,
        gtid_next: GtidNext,
    ) -> SqlResult<Box<dyn sql::DeferredCommit>> {
        if gtid_next != GtidNext::Automatic {
            // Owning an assigned GTID may wait for another session: the synchronous path.
            return Ok(Box::new(sql::ReadyCommit(Some(self.commit(txn, changes, gtid_next)))));
        }
        let (txn, cache) = self.build_cache(txn, &changes)?;
        let request = with_context(commit::CommitRequest::rows(txn, cache), changes.context);
        Ok(Box::new(Deferred(self.coordinator.commit_deferred(request))))
    }

    fn commit(
        &self,
        txn: Txn,
        changes: TxnChanges,
        gtid_next: GtidNext,
    ) -> SqlResult<sql::CommitOutcome> {
        let (txn, cache) = self.build_cache(txn, &changes)?;
        let request = with_context(commit::CommitRequest::rows(txn, cache), changes.context);
        let info = match gtid_next {
            GtidNext::Automatic => self.coordinator.commit(request),
            GtidNext::Assigned(gtid) => match self.coordinator.acquire_gtid(gtid) {
                commit::GtidNext::Owned(owned) => self.coordinator.commit(request.with_gtid(owned)),
                commit::GtidNext::AlreadyExecuted => {
                    self.coordinator.rollback(request.txn).map_err(|e| to_sql_error(&e))?;
                    return Ok(sql::CommitOutcome { gtid: None });
                }
            },
            GtidNext::Anonymous => {
                let _ = self.coordinator.rollback(request.txn);
                return Err(SqlError::Other {
                    code: 1782,
                    sqlstate: "HY000",
                    message: "@@SESSION.GTID_NEXT cannot be set to ANONYMOUS when \
                              @@GLOBAL.GTID_MODE = ON."
                        .to_string(),
                });
            }
        };
        info.map(|i| sql::CommitOutcome { gtid: i.gtid }).map_err(|e| to_sql_error(&e))
    }

    fn commit_ddl_rows(
        &self,
        txn: Txn,
        db: Option<&str>,
        query: &str,
        changes: TxnChanges,
        gtid_next: GtidNext,
        context: Option<Arc<commit::QueryContext>>,
    ) -> SqlResult<sql::CommitOutcome> {
        let (txn, cache) = self.build_cache(txn, &changes)?;
        let request = commit::CommitRequest::ddl_rows(txn, db.unwrap_or(""), query, cache);
        self.commit_ddl_request(with_context(request, context), gtid_next)
    }

    fn commit_ddl(
        &self,
        txn: Txn,
        db: Option<&str>,
        query: &str,
        gtid_next: GtidNext,
        context: Option<Arc<commit::QueryContext>>,
    ) -> SqlResult<sql::CommitOutcome> {
        let request = commit::CommitRequest::ddl(txn, db.unwrap_or(""), query);
        self.commit_ddl_request(with_context(request, context), gtid_next)
    }
}

impl Binlogging {
    /// Commits a DDL request (with or without rows): an assigned GTID is logged with it (the
    /// replica applier preserves the source's GTIDs for DDL too); one already executed skips
    /// the statement.
    fn commit_ddl_request(
        &self,
        request: commit::CommitRequest<Txn>,
        gtid_next: GtidNext,
    ) -> SqlResult<sql::CommitOutcome> {
        let info = match gtid_next {
            GtidNext::Assigned(gtid) => match self.coordinator.acquire_gtid(gtid) {
                commit::GtidNext::Owned(owned) => self.coordinator.commit(request.with_gtid(owned)),
                commit::GtidNext::AlreadyExecuted => {
                    self.coordinator.rollback(request.txn).map_err(|e| to_sql_error(&e))?;
                    return Ok(sql::CommitOutcome { gtid: None });
                }
            },
            _ => self.coordinator.commit(request),
        };
        info.map(|i| sql::CommitOutcome { gtid: i.gtid }).map_err(|e| to_sql_error(&e))
    }
}

impl BinlogAdmin for Binlogging {
    fn binary_logs(&self) -> SqlResult<Vec<BinlogFileInfo>> {
        let end = self.coordinator.binlog_files().synced_end();
        let mut files = Vec::new();
        for name in self.coordinator.binlog_file_names() {
            // The active file's size is its durable end (a preallocated file is longer on
            // disk); closed files were truncated to their end when they were closed.
            let size = if name == end.file {
                end.pos
            } else {
                std::fs::metadata(self.binlog_dir.join(&name)).map(|m| m.len()).unwrap_or(0)
            };
            files.push(BinlogFileInfo { name, size });
        }
        Ok(files)
    }

    /// The position and GTID set published after the engine commits (commit::BinlogSnapshot):
    /// never a transaction a read view taken afterwards cannot see.
    fn master_status(&self) -> SqlResult<Option<MasterStatus>> {
        let p = self.coordinator.published();
        Ok(Some(MasterStatus {
            file: p.file,
            position: p.position,
            executed_gtid_set: p.gtid_executed.to_string(),
        }))
    }

    fn consistent_snapshot(&self, take: &mut dyn FnMut()) -> Option<MasterStatus> {
        let ((), p) = self.coordinator.consistent_snapshot(take);
        Some(MasterStatus {
            file: p.file,
            position: p.position,
            executed_gtid_set: p.gtid_executed.to_string(),
        })
    }

    fn binlog_events(
        &self,
        file: Option<&str>,
        from: Option<u64>,
        offset: u64,
        limit: Option<u64>,
    ) -> SqlResult<Vec<BinlogEventInfo>> {
        let files = self.coordinator.binlog_files();
        let names = files.file_names();
        let name = match file {
            Some(f) => f.to_string(),
            None => match names.first() {
                Some(first) => first.clone(),
                None => return Ok(Vec::new()),
            },
        };
        if !names.contains(&name) {
            return Err(show_events_error("Could not find target log"));
        }
        let want = limit.unwrap_or(u64::MAX);
        let mut events = Vec::new();
        if want == 0 {
            return Ok(events);
        }
        let mut skip = offset;
        read_events(&files, &name, from.unwrap_or(4), |info| {
            if skip > 0 {
                skip -= 1;
            } else {
                events.push(info);
            }
            (events.len() as u64) < want
        })?;
        Ok(events)
    }

    fn flush_binary_logs(&self) -> SqlResult<()> {
        self.coordinator.rotate().map_err(|e| to_sql_error(&e))
    }

    fn purge_to(&self, file: &str) -> SqlResult<()> {
        self.coordinator.purge_binary_logs_to(file).map(|_| ()).map_err(|e| to_sql_error(&e))
    }

    fn purge_before(&self, before: engine::DateTime) -> SqlResult<()> {
        let unix_secs = u64::try_from(sql::eval::unix_of(&before)).unwrap_or(0);
        let outcome =
            self.coordinator.purge_binary_logs_before(unix_secs).map_err(|e| to_sql_error(&e))?;
        if let Some(file) = outcome.stopped_at_in_use {
            log::warn!("PURGE BINARY LOGS BEFORE '{before}' stopped at {file}: a reader is on it");
        }
        Ok(())
    }

    fn reset_master(&self) -> SqlResult<()> {
        let deleted = self.coordinator.reset_binary_logs().map_err(|e| to_sql_error(&e))?;
        log::info!(
            "RESET MASTER: deleted {} binlog file(s), gtid_executed and gtid_purged cleared",
            deleted.len()
        );
        Ok(())
    }

    fn gtid_executed(&self) -> String {
        self.coordinator.gtid_executed().to_string()
    }

    fn gtid_purged(&self) -> String {
        self.coordinator.gtid_purged().map(|set| set.to_string()).unwrap_or_default()
    }

    fn replicas(&self) -> Vec<sql::admin::ReplicaInfo> {
        self.replicas.as_ref().map(|r| r.list()).unwrap_or_default()
    }
}

/// ER_ERROR_WHEN_EXECUTING_COMMAND (1220), worded as mysqld words SHOW BINLOG EVENTS errors.
fn show_events_error(what: &str) -> SqlError {
    SqlError::Other {
        code: 1220,
        sqlstate: "HY000",
        message: format!("Error when executing command SHOW BINLOG EVENTS: {what}"),
    }
}

/// Reads the events of file `name` from `from` (an event boundary) and hands each to `each`
/// until it returns false or the file ends (its end, or the synced end of the active file:
/// the reader never shows what is not durable).
fn read_events(
    files: &BinlogFiles,
    name: &str,
    from: u64,
    mut each: impl FnMut(BinlogEventInfo) -> bool,
) -> SqlResult<()> {
    let bad_offset = || show_events_error("Wrong offset or I/O error");
    // The FORMAT_DESCRIPTION at offset 4 says whether events carry a checksum; it is read
    // first even when the listing starts later.
    let mut ctx = FormatContext::default();
    let mut reader = files.reader_at(name, 4).map_err(|_| bad_offset())?;
    if let Next::Event(ev) = reader.next(Some(Duration::ZERO)).map_err(|_| bad_offset())? {
        let event = decode_event(&ev.bytes, &ctx, ev.pos).map_err(|_| bad_offset())?;
        if let EventBody::FormatDescription(fde) = &event.body {
            ctx = FormatContext::from_fde(fde, ev.pos).map_err(|_| bad_offset())?;
        }
        if from <= 4 && !each(describe(name, ev.pos, &event)) {
            return Ok(());
        }
    }
    if from > 4 {
        reader = files.reader_at(name, from).map_err(|_| bad_offset())?;
    }
    loop {
        let ev = match reader.next(Some(Duration::ZERO)).map_err(|_| bad_offset())? {
            Next::Event(ev) if ev.file == name => ev,
            _ => return Ok(()),
        };
        let event = decode_event(&ev.bytes, &ctx, ev.pos).map_err(|_| bad_offset())?;
        if !each(describe(name, ev.pos, &event)) {
            return Ok(());
        }
    }
}

/// One row of SHOW BINLOG EVENTS, with mysqld's wording of `Info`.
fn describe(name: &str, pos: u64, event: &binlog::event::Event) -> BinlogEventInfo {
    let lossy = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let mut info = String::new();
    match &event.body {
        EventBody::FormatDescription(f) => {
            let version = f.server_version_str();
            let _ = write!(info, "Server ver: {version}, Binlog ver: {}", f.binlog_version);
        }
        EventBody::PreviousGtids(p) => info = p.gtids().to_string(),
        EventBody::Gtid(g) => {
            let _ = write!(info, "SET @@SESSION.GTID_NEXT= '{}'", g.gtid());
        }
        EventBody::AnonymousGtid(_) => info.push_str("SET @@SESSION.GTID_NEXT= 'ANONYMOUS'"),
        EventBody::Query(q) => {
            let query = lossy(&q.query);
            if q.schema.is_empty() || query == "BEGIN" {
                info = query;
            } else {
                let _ = write!(info, "use `{}`; {query}", lossy(&q.schema));
            }
        }
        EventBody::TableMap(t) => {
            let _ =
                write!(info, "table_id: {} ({}.{})", t.table_id, lossy(&t.schema), lossy(&t.table));
        }
        EventBody::Rows(r) => {
            let _ = write!(info, "table_id: {}", r.table_id);
            if r.flags & rows_flags::STMT_END_F != 0 {
                info.push_str(" flags: STMT_END_F");
            }
        }
        EventBody::Xid(x) => {
            let _ = write!(info, "COMMIT /* xid={} */", x.xid);
        }
        EventBody::Rotate(r) => {
            let _ = write!(info, "{};pos={}", lossy(&r.next_file), r.position);
        }
        EventBody::Stop
        | EventBody::Heartbeat(_)
        | EventBody::HeartbeatV2(_)
        | EventBody::Raw { .. } => {}
    }
    BinlogEventInfo {
        log_name: name.to_string(),
        pos,
        event_type: event.event_type().name().to_string(),
        server_id: event.header.server_id,
        end_log_pos: u64::from(event.header.log_pos),
        info,
    }
}

/// SHOW GLOBAL STATUS figures of the commit pipeline (`Coordinator::stats`, when the binary
/// log is on) and of the protocol server (connections, bytes, commands), attached once the
/// protocol server exists: it is made after the SQL server that holds this provider.
#[derive(Default)]
pub struct ServerStatus {
    coordinator: Option<Arc<Coordinator<engine::Engine>>>,
    protocol: OnceLock<Arc<protocol::Stats>>,
    keys: OnceLock<Arc<protocol::ServerKeys>>,
}

impl ServerStatus {
    pub fn new(coordinator: Option<Arc<Coordinator<engine::Engine>>>) -> ServerStatus {
        ServerStatus { coordinator, protocol: OnceLock::new(), keys: OnceLock::new() }
    }

    /// Attaches the protocol server's counters (only the first call counts).
    pub fn attach_protocol(&self, stats: Arc<protocol::Stats>) {
        let _ = self.protocol.set(stats);
    }

    /// Attaches the TLS context, whose `Ssl_*` figures SHOW GLOBAL STATUS shows.
    pub fn attach_tls(&self, keys: Arc<protocol::ServerKeys>) {
        let _ = self.keys.set(keys);
    }
}

impl sql::StatusProvider for ServerStatus {
    fn global_status(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = Vec::new();
        if let Some(coordinator) = &self.coordinator {
            let s = coordinator.stats();
            let pairs = [
                ("Binlog_commits", s.commits.to_string()),
                ("Binlog_group_commits", s.groups_flush.to_string()),
                ("Binlog_failed_commits", s.failed_commits.to_string()),
                ("Binlog_group_commit_avg_size", format!("{:.2}", s.avg_group_size())),
                ("Binlog_groups_sync", s.groups_sync.to_string()),
                ("Binlog_groups_commit", s.groups_commit.to_string()),
                ("Binlog_fsyncs", s.binlog_fsyncs.to_string()),
                ("Innodb_os_log_fsyncs", s.redo_fsyncs.to_string()),
                ("Binlog_stage_wait_flush_us", (s.wait_flush_ns / 1000).to_string()),
                ("Binlog_stage_wait_sync_us", (s.wait_sync_ns / 1000).to_string()),
                ("Binlog_stage_wait_commit_us", (s.wait_commit_ns / 1000).to_string()),
                ("Binlog_commit_latency_p50_us", s.latency_p50_us.to_string()),
                ("Binlog_commit_latency_p99_us", s.latency_p99_us.to_string()),
                ("Binlog_commit_latency_max_us", s.latency_max_us.to_string()),
                // The group cycle's parts, summed (divide by the counts for means): FLUSH
                // groups timed, leader hand-over gap, encoding, redo write + fdatasync,
                // binlog write; SYNC and COMMIT stages per group led; follower wake-ups.
                ("Binlog_cycle_groups", s.cycle_groups.to_string()),
                ("Binlog_cycle_gap_us", (s.cycle_gap_ns / 1000).to_string()),
                ("Binlog_cycle_encode_us", (s.cycle_encode_ns / 1000).to_string()),
                ("Binlog_cycle_redo_flush_us", (s.cycle_redo_flush_ns / 1000).to_string()),
                ("Binlog_cycle_binlog_write_us", (s.cycle_binlog_write_ns / 1000).to_string()),
                ("Binlog_cycle_syncs", s.cycle_syncs.to_string()),
                ("Binlog_cycle_sync_us", (s.cycle_sync_ns / 1000).to_string()),
                ("Binlog_cycle_commits", s.cycle_commits.to_string()),
                ("Binlog_cycle_commit_us", (s.cycle_commit_ns / 1000).to_string()),
                ("Binlog_cycle_wakes", s.cycle_wakes.to_string()),
                ("Binlog_cycle_wake_us", (s.cycle_wake_ns / 1000).to_string()),
            ];
            out.extend(pairs.into_iter().map(|(n, v)| (n.to_string(), v)));
            for (i, n) in s.group_size_histogram.iter().enumerate() {
                // Bucket i holds groups of 2^(i-1)+1 ..= 2^i transactions: named by its bound.
                out.push((format!("Binlog_group_size_le_{}", 1u64 << i), n.to_string()));
            }
        }
        if let Some(keys) = self.keys.get() {
            let rows = keys.tls_context.global_status();
            out.extend(rows.into_iter().map(|(n, v)| (n.to_string(), v)));
        }
        if let Some(protocol) = self.protocol.get() {
            // The SQL layer counts Questions per statement and keeps its own Uptime.
            out.extend(
                protocol
                    .snapshot()
                    .into_iter()
                    .filter(|(n, _)| !matches!(*n, "Questions" | "Uptime"))
                    .map(|(n, v)| (n.to_string(), v.to_string())),
            );
        }
        out
    }
}

/// `SET GLOBAL` of the commit pipeline's variables, applied to its live configuration (the
/// pipeline reads them per group, so the next group uses the new value).
pub struct CommitVariables(pub Arc<CommitConfig>);

impl VariableListener for CommitVariables {
    fn set_global(&self, change: Change<'_>) -> SqlResult<()> {
        // The SQL layer checked the value against the variable's type and range; booleans and
        // integers arrive as Int or UInt, an enum as its (checked) name.
        let config = &self.0;
        let number = || change.number().unwrap_or(0);
        match change.var {
            Var::SyncBinlog => config.set_sync_binlog(u32::try_from(number()).unwrap_or(u32::MAX)),
            Var::BinlogOrderCommits => config.set_binlog_order_commits(number() != 0),
            Var::BinlogMaxFlushQueueTime => config.set_binlog_max_flush_queue_time_us(number()),
            Var::BinlogGroupCommitSyncDelay => {
                config.set_binlog_group_commit_sync_delay_us(number())
            }
            Var::BinlogGroupCommitSyncNoDelayCount => {
                config.set_binlog_group_commit_sync_no_delay_count(number())
            }
            Var::InnodbFlushLogAtTrxCommit => {
                config.set_innodb_flush_log_at_trx_commit(u8::try_from(number()).unwrap_or(1))
            }
            Var::BinlogTransactionDependencyHistorySize => {
                config.set_binlog_transaction_dependency_history_size(number())
            }
            Var::BinlogTransactionDependencyTracking => {
                if let Some(mode) = change.text().and_then(commit::DependencyTracking::from_name) {
                    config.set_binlog_transaction_dependency_tracking(mode);
                }
            }
            _ => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Value;

    #[test]
    fn set_global_reaches_the_pipeline_configuration() {
        let config = Arc::new(CommitConfig::default());
        let listener = CommitVariables(config.clone());
        // SET GLOBAL name = value, as the SQL layer tells it: the typed id and the checked value.
        let set = |name: &str, value: Value| {
            let var = sql::vars::lookup(name).expect(name).var;
            listener.set_global(Change { var, value: &value })
        };
        set("sync_binlog", Value::UInt(0)).expect("set");
        set("binlog_order_commits", Value::Int(0)).expect("set");
        set("binlog_group_commit_sync_delay", Value::UInt(500)).expect("set");
        set("binlog_group_commit_sync_no_delay_count", Value::UInt(8)).expect("set");
        set("binlog_max_flush_queue_time", Value::UInt(30)).expect("set");
        set("innodb_flush_log_at_trx_commit", Value::Int(2)).expect("set");
        set("max_connections", Value::UInt(9)).expect("others pass through");
        set("binlog_transaction_dependency_tracking", Value::Bytes(b"WRITESET".to_vec()))
            .expect("set");
        set("binlog_transaction_dependency_history_size", Value::UInt(7)).expect("set");
        assert_eq!(config.sync_binlog(), 0);
        assert!(!config.binlog_order_commits());
        assert_eq!(config.binlog_group_commit_sync_delay_us(), 500);
        assert_eq!(config.binlog_group_commit_sync_no_delay_count(), 8);
        assert_eq!(config.binlog_max_flush_queue_time_us(), 30);
        assert_eq!(config.innodb_flush_log_at_trx_commit(), 2);
        assert_eq!(
            config.binlog_transaction_dependency_tracking(),
            commit::DependencyTracking::Writeset
        );
        assert_eq!(config.binlog_transaction_dependency_history_size(), 7);
    }
}
