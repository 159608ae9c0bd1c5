//! What a session hands to the pipeline: one [`CommitRequest`] for every kind of commit (rows
//! or DDL, automatic or assigned GTID), so the coordinator has one entry point per way of
//! waiting ([`super::Coordinator::commit`], [`super::Coordinator::commit_batch`],
//! [`super::Coordinator::commit_deferred`]) instead of one per combination.

use std::sync::Arc;

use binlog::event::StatusVars;

use crate::cache::BinlogCache;
use crate::gtid_state::OwnedGtid;

/// The session values mysqld writes into a transaction's QUERY events (the `BEGIN` of a row
/// transaction, or the DDL): the post-header's thread id and the status variables
/// (`Query_log_event::Query_log_event(THD*, ...)`, sql/log_event.cc: `pseudo_thread_id`,
/// `option_bits` as flags2, `sql_mode`, `character_set_client` / `collation_connection` /
/// `collation_server` ids, `auto_increment_*`, `time_zone`, `lc_time_names`,
/// `default_collation_for_utf8mb4`). A replica applies each QUERY event with them, so they
/// must be the session's: a MariaDB replica refuses a collation id it does not have (255).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryContext {
    /// `thread_id` of the QUERY post-header: the session's `pseudo_thread_id`.
    pub thread_id: u32,
    /// The status variables; the DDL path adds `updated_db_names` and `ddl_xid` itself.
    pub status: StatusVars,
}

impl Default for QueryContext {
    /// A session with MySQL 8.0's defaults (utf8mb4_0900_ai_ci everywhere), thread 0.
    fn default() -> Self {
        QueryContext { thread_id: 0, status: StatusVars::mysql80_default() }
    }
}

/// One transaction to commit: the engine transaction, what it logs, and its GTID.
#[derive(Debug)]
pub struct CommitRequest<T> {
    /// The engine transaction (row changes, or staged schema changes for DDL).
    pub txn: T,
    pub work: Work,
    pub gtid: GtidChoice,
    /// The session's values for the QUERY events (None: [`QueryContext::default`]).
    pub context: Option<Arc<QueryContext>>,
}

/// What the transaction writes to the binlog.
// Not boxed: that would be an allocation per commit; a request is moved a few times only.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Work {
    /// Row changes: the session's cache (TABLE_MAP + ROWS events), logged as GTID + QUERY
    /// `BEGIN` + rows + XID.
    Rows(BinlogCache),
    /// A DDL statement `query` run in database `db`, logged as GTID + QUERY naming the DDL's
    /// XID (MySQL 8.0's atomic DDL).
    Ddl { db: String, query: String },
    /// `CREATE TABLE ... SELECT` in row format (MySQL 8.0.21+, WL#13355): the table created
    /// by the DDL transaction and its rows, logged as one transaction: GTID + QUERY
    /// `CREATE TABLE ... START TRANSACTION` + the rows' TABLE_MAP/WRITE_ROWS + XID.
    DdlRows { db: String, query: String, cache: BinlogCache },
}

/// Which GTID the transaction gets (`gtid_next`).
#[derive(Debug)]
pub enum GtidChoice {
    /// `gtid_next=AUTOMATIC`: the FLUSH leader assigns `server_uuid:N`.
    Automatic,
    /// `SET gtid_next='uuid:N'` (or the replica applier): a GTID the caller owns
    /// ([`super::Coordinator::acquire_gtid`]); a commit with a GTID no longer owned is
    /// refused (error 1837).
    Assigned(OwnedGtid),
}

impl<T> CommitRequest<T> {
    /// A row transaction with an automatic GTID.
    pub fn rows(txn: T, cache: BinlogCache) -> Self {
        CommitRequest { txn, work: Work::Rows(cache), gtid: GtidChoice::Automatic, context: None }
    }

    /// A DDL transaction (schema changes staged in `txn`) with an automatic GTID.
    pub fn ddl(txn: T, db: impl Into<String>, query: impl Into<String>) -> Self {
        let work = Work::Ddl { db: db.into(), query: query.into() };
        CommitRequest { txn, work, gtid: GtidChoice::Automatic, context: None }
    }

    /// A CREATE TABLE ... SELECT: `txn` stages the table with its rows, `query` is the
    /// CREATE TABLE text to log before the rows in `cache` ([`Work::DdlRows`]).
    pub fn ddl_rows(
        txn: T,
        db: impl Into<String>,
        query: impl Into<String>,
        cache: BinlogCache,
    ) -> Self {
        let work = Work::DdlRows { db: db.into(), query: query.into(), cache };
        CommitRequest { txn, work, gtid: GtidChoice::Automatic, context: None }
    }

    /// The same request with an assigned GTID the caller owns.
    pub fn with_gtid(mut self, owned: OwnedGtid) -> Self {
        self.gtid = GtidChoice::Assigned(owned);
        self
    }

    /// The same request logged with the session's values (thread id, charsets, sql_mode...).
    pub fn with_context(mut self, context: Arc<QueryContext>) -> Self {
        self.context = Some(context);
        self
    }
}
