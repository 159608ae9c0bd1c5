//! The seam between the SQL layer and the commit pipeline.
//!
//! The executor applies a transaction's changes in the engine under row locks and records each
//! row change, with its table's schema, in a [`TxnChanges`]: the full before and after images,
//! in statement order — exactly what the binlog cache needs to encode TABLE_MAP and
//! WRITE/UPDATE/DELETE_ROWS v2 events. At COMMIT it hands the engine transaction and the
//! changes to a [`TxnCommitter`], which makes them durable and visible (2PC with the binlog
//! in the real pipeline). DDL is staged in an engine DDL transaction and handed over with its
//! statement text ([`TxnCommitter::commit_ddl`]); with the binlog on it takes the same
//! two-phase commit as rows, logged as a QUERY event with its own GTID, so after a crash the
//! change and its event are both there or both gone.
//!
//! [`EngineCommitter`] is a complete committer for a server without a binary log: it commits in
//! the engine (one-phase) and waits for the redo to be durable. The tests of this layer use it;
//! the commit crate's coordinator implements the same trait for the binlogged server.

use std::sync::Arc;
use std::task::{Context, Poll};

use binlog::gtid::Gtid;
use engine::{Engine, Row, TableSchema, Txn};

use super::error::Result;

/// What a row change did.
#[derive(Debug, Clone, PartialEq)]
pub enum ChangeKind {
    /// A new row (WRITE_ROWS): `after` only.
    Insert,
    /// A changed row (UPDATE_ROWS): `before` and `after`.
    Update,
    /// A removed row (DELETE_ROWS): `before` only.
    Delete,
}

/// One row change, with full row images (binlog_row_image=FULL).
#[derive(Debug, Clone, PartialEq)]
pub struct ChangedRow {
    /// The table's definition when the change was made; `schema.name` is `db.table`.
    pub table: Arc<TableSchema>,
    pub kind: ChangeKind,
    pub before: Option<Row>,
    pub after: Option<Row>,
}

impl ChangedRow {
    /// The database and table names of the change (split from the engine name `db.table`).
    pub fn names(&self) -> (&str, &str) {
        split_engine_name(&self.table.name)
    }
}

/// Splits an engine table name `db.table` into its parts (database names hold no dot).
pub fn split_engine_name(name: &str) -> (&str, &str) {
    name.split_once('.').unwrap_or(("", name))
}

/// A transaction's row changes in the order they were made.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TxnChanges {
    pub changes: Vec<ChangedRow>,
    /// The connection that made them (0: none), for WRITESET_SESSION dependency tracking.
    pub session: u64,
    /// Where statements end: for each statement that changed rows, the number of changes
    /// made up to its end (increasing; the last may equal `changes.len()`). The binlog writes
    /// the TABLE_MAPs of each statement before its rows and sets `STMT_END_F` on each
    /// statement's last ROWS event, as mysqld. Empty: the whole transaction is one statement.
    pub statement_ends: Vec<usize>,
    /// The session's values for the transaction's `BEGIN` QUERY event (thread id, character
    /// sets, sql_mode...: [`commit::QueryContext`]); None: MySQL 8.0's defaults.
    pub context: Option<Arc<commit::QueryContext>>,
    /// Positions in `changes` (increasing) of rows changed by a foreign key's referential
    /// action (`crate::foreign_keys`): kept for statement undo, left out of the binlog.
    pub cascaded: Vec<usize>,
    /// Ranges `[start, end)` (increasing, disjoint) of positions in `changes` made with
    /// `foreign_key_checks=0`: their ROWS events carry `NO_FOREIGN_KEY_CHECKS_F`, so an
    /// applier neither checks nor cascades them (mysqld's `Rows_log_event` flags).
    pub fk_unchecked: Vec<(usize, usize)>,
}

impl TxnChanges {
    /// The changes the binlog carries: without the rows changed by referential actions (as
    /// mysqld in row format: a replica's engine runs the actions itself), statement ends
    /// renumbered.
    pub fn logged(mut self) -> TxnChanges {
        if self.cascaded.is_empty() {
            return self;
        }
        let cascaded = std::mem::take(&mut self.cascaded);
        let before = |n: usize| n - cascaded.partition_point(|&c| c < n);
        let mut ends: Vec<usize> = self.statement_ends.iter().map(|&e| before(e)).collect();
        ends.dedup();
        ends.retain(|&e| e > 0);
        self.statement_ends = ends;
        let mut unchecked = Vec::with_capacity(self.fk_unchecked.len());
        for &(start, end) in &self.fk_unchecked {
            let (start, end) = (before(start), before(end));
            if start < end {
                unchecked.push((start, end));
            }
        }
        self.fk_unchecked = unchecked;
        let mut i = 0;
        self.changes.retain(|_| {
            let keep = cascaded.binary_search(&i).is_err();
            i += 1;
            keep
        });
        self
    }

    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// Marks the end of a statement (nothing if it changed no row).
    pub fn end_statement(&mut self) {
        let n = self.changes.len();
        if n > self.statement_ends.last().copied().unwrap_or(0) {
            self.statement_ends.push(n);
        }
    }

    /// Marks changes `start..end` as made with `foreign_key_checks=0`.
    pub fn mark_fk_unchecked(&mut self, start: usize, end: usize) {
        if start >= end {
            return;
        }
        match self.fk_unchecked.last_mut() {
            Some(last) if last.1 >= start => last.1 = last.1.max(end),
            _ => self.fk_unchecked.push((start, end)),
        }
    }

    /// Forgets the marks of changes at `mark` and after (statement undo).
    pub fn truncate_fk_unchecked(&mut self, mark: usize) {
        self.fk_unchecked.retain(|&(start, _)| start < mark);
        if let Some(last) = self.fk_unchecked.last_mut() {
            last.1 = last.1.min(mark);
        }
    }

    /// Whether the `i`-th change (0-based) was made with `foreign_key_checks=0`.
    pub fn fk_unchecked_at(&self, i: usize) -> bool {
        let n = self.fk_unchecked.partition_point(|&(_, end)| end <= i);
        self.fk_unchecked.get(n).is_some_and(|&(start, _)| start <= i)
    }

    /// True if a statement ends after the `i`-th change (0-based) and more changes follow.
    pub fn statement_ends_after(&self, i: usize) -> bool {
        i + 1 < self.changes.len() && self.statement_ends.binary_search(&(i + 1)).is_ok()
    }
}

/// The session's `gtid_next`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GtidNext {
    /// The pipeline allocates a GTID (the default).
    Automatic,
    /// No GTID (`ANONYMOUS`).
    Anonymous,
    /// The client set this GTID for its next transaction (replica appliers, `mysqlbinlog`
    /// output replayed).
    Assigned(Gtid),
}

/// What a commit produced.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommitOutcome {
    /// The GTID the transaction got in the binlog, if it was binlogged with one.
    pub gtid: Option<Gtid>,
}

/// Commits transactions and binlogs DDL. Implementations must be callable from many sessions
/// at once; each call returns when the commit is durable (as configured) and visible.
pub trait TxnCommitter: Send + Sync {
    /// Commits `txn`, whose changes are `changes` (empty for a transaction that wrote nothing
    /// but must still be logged, e.g. an empty transaction with an assigned `gtid_next`).
    /// On error the transaction is rolled back.
    fn commit(&self, txn: Txn, changes: TxnChanges, gtid_next: GtidNext) -> Result<CommitOutcome>;

    /// Commits DDL transaction `txn` (schema changes staged in the engine with
    /// `Engine::create_table_in` and the like) and binlogs `query`, run in database `db`, as a
    /// QUERY event with its own GTID, in one two-phase commit: after a crash the change and
    /// its event are both there or both gone. On error the change is not applied. An
    /// assigned `gtid_next` already executed skips the statement (the change is rolled back).
    /// `context` holds the session's values for the QUERY event (None: MySQL 8.0's defaults).
    fn commit_ddl(
        &self,
        txn: Txn,
        db: Option<&str>,
        query: &str,
        gtid_next: GtidNext,
        context: Option<Arc<commit::QueryContext>>,
    ) -> Result<CommitOutcome>;

    /// Commits `CREATE TABLE ... SELECT`: DDL transaction `txn` stages the new table with
    /// its rows, `changes` are those rows (inserts), `query` the CREATE TABLE text to log.
    /// With a binlog it is one transaction, one two-phase commit: GTID, the QUERY, the rows'
    /// events, XID (MySQL 8.0.21+ in row format), so after a crash the table and its rows
    /// are both there or both gone. Otherwise as [`TxnCommitter::commit_ddl`].
    fn commit_ddl_rows(
        &self,
        txn: Txn,
        db: Option<&str>,
        query: &str,
        changes: TxnChanges,
        gtid_next: GtidNext,
        context: Option<Arc<commit::QueryContext>>,
    ) -> Result<CommitOutcome>;

    /// True when [`TxnCommitter::commit_deferred`] hands the commit over without blocking
    /// (the caller may then run statements on threads that must not block).
    fn defers(&self) -> bool {
        false
    }

    /// [`TxnCommitter::commit`] for an async caller: starts the commit and returns what to
    /// await. The default commits synchronously (it blocks; see [`TxnCommitter::defers`]).
    fn commit_deferred(
        &self,
        txn: Txn,
        changes: TxnChanges,
        gtid_next: GtidNext,
    ) -> Result<Box<dyn DeferredCommit>> {
        Ok(Box::new(ReadyCommit(Some(self.commit(txn, changes, gtid_next)))))
    }
}

/// A commit in progress whose outcome an async caller awaits: if [`DeferredCommit::needs_thread`]
/// it first calls [`DeferredCommit::run`] on a thread that may block, then polls
/// [`DeferredCommit::poll_done`], which is ready only once the commit is durable (as
/// configured) and visible, as [`TxnCommitter::commit`] returns. Dropping one does not undo the
/// commit.
pub trait DeferredCommit: Send + Sync {
    fn needs_thread(&self) -> bool;
    fn run(&mut self);
    /// Leaves the blocking work [`Self::run`] would do to the committer's own threads; true
    /// if it did (then only [`Self::poll_done`] is needed). The default: it cannot.
    fn hand_off(&mut self) -> bool {
        false
    }
    fn poll_done(&mut self, cx: &mut Context<'_>) -> Poll<Result<CommitOutcome>>;
}

/// A commit whose outcome is already known.
pub struct ReadyCommit(pub Option<Result<CommitOutcome>>);

impl DeferredCommit for ReadyCommit {
    fn needs_thread(&self) -> bool {
        false
    }

    fn run(&mut self) {}

    fn poll_done(&mut self, _cx: &mut Context<'_>) -> Poll<Result<CommitOutcome>> {
        Poll::Ready(self.0.take().unwrap_or_else(|| Ok(CommitOutcome::default())))
    }
}

/// A committer for a server without a binary log: one-phase engine commit, then a redo flush
/// up to the commit record (`innodb_flush_log_at_trx_commit=1`).
#[derive(Debug, Clone)]
pub struct EngineCommitter {
    engine: Engine,
}

impl EngineCommitter {
    pub fn new(engine: Engine) -> EngineCommitter {
        EngineCommitter { engine }
    }
}

impl TxnCommitter for EngineCommitter {
    fn commit(
        &self,
        txn: Txn,
        _changes: TxnChanges,
        _gtid_next: GtidNext,
    ) -> Result<CommitOutcome> {
        let lsn = self.engine.commit(txn)?;
        self.engine.flush_up_to(lsn)?;
        Ok(CommitOutcome::default())
    }

    fn commit_ddl(
        &self,
        txn: Txn,
        _db: Option<&str>,
        _query: &str,
        _gtid: GtidNext,
        _context: Option<Arc<commit::QueryContext>>,
    ) -> Result<CommitOutcome> {
        // Without a binlog there is nothing to log: a one-phase commit, durable on return.
        let lsn = self.engine.commit(txn)?;
        self.engine.flush_up_to(lsn)?;
        Ok(CommitOutcome::default())
    }

    fn commit_ddl_rows(
        &self,
        txn: Txn,
        db: Option<&str>,
        query: &str,
        _changes: TxnChanges,
        gtid: GtidNext,
        context: Option<Arc<commit::QueryContext>>,
    ) -> Result<CommitOutcome> {
        // The rows are in the DDL transaction itself: the same one-phase commit.
        self.commit_ddl(txn, db, query, gtid, context)
    }
}
