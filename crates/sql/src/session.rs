//! A connection's SQL state and the statement dispatcher.
//!
//! Transaction rules (MySQL's, with InnoDB's defaults):
//! - With autocommit on and no open transaction, each statement runs in its own transaction,
//!   committed through the [`TxnCommitter`](super::commit::TxnCommitter) when it succeeds and
//!   rolled back when it fails.
//! - BEGIN / START TRANSACTION, or any statement with autocommit off, opens a transaction that
//!   COMMIT or ROLLBACK ends. BEGIN, DDL and `SET autocommit=1` commit an open one first.
//! - A failing statement inside a transaction is undone alone (statement atomicity): its row
//!   changes are reverted in reverse order from their recorded images, under the row locks the
//!   transaction still holds. A deadlock (1213) rolls back the whole transaction, as InnoDB
//!   does. Either way the session stays usable.
//!
//! Invariant: `txn` is Some exactly while an engine transaction is open, and its `changes`
//! list the row changes applied in it, in order, with their undo keys.

use std::collections::HashMap;
use std::sync::Arc;

use binlog::gtid::Gtid;
use engine::{DateTime, Key, TableId, Txn, Value};

use super::ast::{Expr, SetItem, Stmt, UserName, VarScope};
use super::charset;
use super::commit::{ChangeKind, ChangedRow, DeferredCommit, GtidNext, TxnChanges};
use super::error::{Result, SqlError};
use super::eval::{datetime_of, eval, unix_now};
use super::output::{Output, ResultColumn};
use super::parse::{parse, split_statements, Parsed};
use super::server::Server;
use super::vars::{self, check, lookup, Change, Scope, Var, VERSION};
use accounts::Privileges;

/// A prepared statement: parsed once at PREPARE, bound to parameters at each EXECUTE. A
/// single-table SELECT also keeps its plan less the WHERE between executions, re-made when
/// the table's definition, the database or a variable changed (`plan_cache.rs`).
#[derive(Debug, Clone)]
pub struct Prepared {
    parsed: Arc<Parsed>,
    sql: Arc<str>,
    plan: Arc<super::plan_cache::PlanCache>,
    /// Number of `?` placeholders.
    pub params: usize,
    /// The result set's columns (empty for statements without one, or when they are only
    /// known at execution, as for SHOW).
    pub columns: Vec<ResultColumn>,
}

impl Prepared {
    /// Whether a plan is kept for the next execution (`plan_cache.rs`; what tests and
    /// diagnostics observe: the cache itself decides at each execution whether it is valid).
    pub fn plan_cached(&self) -> bool {
        self.plan.is_cached()
    }
}

/// The outcome of running a statement on a thread that must not block
/// ([`Session::try_query`], [`Session::try_execute`]).
pub enum Attempt {
    /// The statement ran. Its commit may still be in the pipeline: the caller awaits
    /// [`Session::take_deferred_commit`] before answering.
    Done(Result<Output>),
    /// The statement would have blocked (a lock wait, an fsync, DDL, ...) and left no trace;
    /// run it again with [`Session::query`] / [`Session::execute`] on a thread that may block.
    Blocked,
    /// The statement, in a transaction of its own (autocommit), needed a row lock another
    /// transaction holds; it was rolled back, so it holds no locks. Await the holder's end,
    /// then try it again.
    Wait(engine::LockWait),
}

/// Where a row change can be undone: the table and the row's clustered key after the change
/// (a deleted row is re-inserted from its before image, which carries its key).
#[derive(Debug, Clone)]
pub(crate) struct Undo {
    pub table: TableId,
    pub key_after: Option<Key>,
}

/// An open transaction.
pub(crate) struct OpenTxn {
    pub txn: Txn,
    pub changes: TxnChanges,
    pub undo: Vec<Undo>,
    /// `SAVEPOINT name`s, oldest first: each name and the number of changes made before it.
    pub savepoints: Vec<(String, usize)>,
    /// Its isolation level, fixed when it began.
    pub isolation: super::isolation::Isolation,
    /// A statement's own transaction under autocommit (not BEGIN, not autocommit off).
    pub single: bool,
    /// `START TRANSACTION WITH CONSISTENT SNAPSHOT`: the binlog position and GTID set its read
    /// view matches (`Binlog_snapshot_file`, `Binlog_snapshot_position`).
    pub binlog_snapshot: Option<super::admin::MasterStatus>,
}

/// A warning or note for SHOW WARNINGS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    pub level: &'static str,
    pub code: u16,
    pub message: String,
}

/// What the session's account is allowed, resolved when the session opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SessionAccount {
    /// `CURRENT_USER()`: the account's user and host pattern.
    pub name: UserName,
    pub privileges: Privileges,
}

/// The CHECK OPTION of the running statement (`views/write.rs` sets and checks it): rows
/// written to `table` must satisfy `cond`.
#[derive(Debug, Clone)]
pub(crate) struct ViewCheck {
    /// The base table's engine name (`db.t`).
    pub table: String,
    pub cond: super::ast::Expr,
    /// `db.v` of the view the statement named (1369's text).
    pub view: String,
    /// `cond` bound over the base table, once per statement.
    pub bound: Option<super::ast::Expr>,
}

/// One connection's SQL session.
pub struct Session {
    pub(crate) server: Arc<Server>,
    pub(crate) connection_id: u32,
    pub(crate) user: String,
    pub(crate) host: String,
    pub(crate) db: Option<String>,
    pub(crate) autocommit: bool,
    pub(crate) txn: Option<OpenTxn>,
    pub(crate) vars: super::session_vars::SessionVars,
    /// What statements and commits derive from `vars` (session_vars.rs).
    pub(crate) derived: super::session_vars::DerivedVars,
    pub(crate) user_vars: HashMap<String, Value>,
    pub(crate) gtid_next: GtidNext,
    pub(crate) last_insert_id: u64,
    /// The previous statement's ROW_COUNT() and FOUND_ROWS() (`THD::get_row_count_func`,
    /// `THD::limit_found_rows`): affected rows, -1 after a result set or an error, 0 after
    /// other statements; the rows of the last result set.
    pub(crate) prev_row_count: i64,
    pub(crate) prev_found_rows: u64,
    pub(crate) warnings: Vec<Warning>,
    /// The previous statement's (warning, error) counts, kept when its conditions are cleared:
    /// `@@warning_count` / `@@error_count` read them (mysqld's `DA_KEEP_COUNTS`).
    pub(crate) last_counts: (u64, u64),
    /// The statement's start time (NOW() is constant within a statement).
    pub(crate) now: DateTime,
    /// Set while a statement runs through [`Session::try_query`] / [`Session::try_execute`]:
    /// its commit is handed over instead of waited for.
    pub(crate) defer_commit: bool,
    /// The commit the last statement handed over ([`Session::take_deferred_commit`]).
    pub(crate) deferred: Option<Box<dyn DeferredCommit>>,
    /// The statement is a re-run of an attempt that was [`Attempt::Blocked`]: it was counted.
    recount: bool,
    /// The authenticated account and its privileges (None: no accounts attached, all allowed).
    pub(crate) account: Option<SessionAccount>,
    /// The connection's registry entry (the protocol server's sessions have one).
    pub(crate) process: Option<Arc<protocol::processlist::Process>>,
    /// The collation id of the client's handshake, re-applied by [`Session::reset`].
    client_collation: Option<u16>,
    /// CLIENT_FOUND_ROWS: UPDATE reports matched rows, not changed ones.
    pub(crate) found_rows: bool,
    /// The running statement's view CHECK OPTION (set by `expand_views`, `views/write.rs`).
    pub(crate) view_check: Option<ViewCheck>,
    /// Bound CHECK constraint conditions (`checks.rs`).
    pub(crate) check_cache: CheckCache,
    /// Applying row events (BINLOG statements): CHECK constraints are not evaluated.
    pub(crate) row_events: bool,
    /// `SET TRANSACTION ISOLATION LEVEL` without a scope: the next transaction's level.
    pub(crate) next_isolation: Option<super::isolation::Isolation>,
    /// `LOCK TABLES`: the tables (`db.table`, lower case) this session locked, and whether
    /// for WRITE; None outside LOCK TABLES mode.
    pub(crate) locked_tables: Option<Vec<(String, bool)>>,
    /// The write pass the running statement holds (`locks.rs`).
    pub(crate) write_pass: Option<super::locks::WritePass>,
    /// What `BINLOG '…'` statements established (binlogstmt.rs): the format description
    /// and the table maps by table id, as mysqld's `rli_fake`.
    pub(crate) binlog_replay: super::rowimage::Replay,
    /// The connection's TLS session (its `Ssl_*` status rows); `None` on a plain connection.
    pub(crate) tls: Option<protocol::TlsSession>,
    /// This session's identity for prepared plans (`plan_cache.rs`): unique in the process,
    /// new after COM_RESET_CONNECTION.
    pub(crate) plan_epoch: u64,
    /// The plan cache of the prepared statement being executed, taken by `run`.
    plan_cache: Option<Arc<super::plan_cache::PlanCache>>,
    /// The open transaction was started `READ ONLY` (cleared when another one starts).
    read_only_txn: bool,
    /// The open transaction was started `READ WRITE` by `SET TRANSACTION READ WRITE`, over a
    /// session whose `transaction_read_only` is ON.
    read_write_txn: bool,
    /// `SET TRANSACTION READ ONLY | READ WRITE` without a scope: the next transaction's access
    /// mode (taken when it starts, as mysqld's `thd->tx_read_only` is reset by
    /// `trans_reset_one_shot_chistics`).
    pub(crate) next_read_only: Option<bool>,
    /// Session state changes for the next OK packet (tracker.rs).
    pub(crate) tracked: super::tracked::Tracked,
    /// The tables the open transaction uses (locks.rs), registered with the server's locks.
    pub(crate) table_use: Arc<super::locks::TableUse>,
    /// The working tables of the recursive CTEs being run (`query/union.rs`), by CTE id.
    pub(crate) work_tables:
        std::collections::HashMap<usize, (Vec<super::output::ResultColumn>, Vec<engine::Row>)>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("connection_id", &self.connection_id)
            .field("db", &self.db)
            .field("in_transaction", &self.txn.is_some())
            .finish()
    }
}

impl Session {
    pub(crate) fn new(server: Arc<Server>, connection_id: u32, user: &str, host: &str) -> Session {
        let vars = server.vars.session_defaults();
        let autocommit = vars.get(&Var::Autocommit).is_none_or(|v| *v != Value::Int(0));
        let account = server.accounts().map(|users| {
            let found = users.lookup(user, host);
            SessionAccount {
                name: UserName {
                    user: found.as_ref().map_or_else(|| user.to_string(), |a| a.user.clone()),
                    host: found.as_ref().map_or_else(|| host.to_string(), |a| a.host.clone()),
                },
                privileges: found.map_or(Privileges::NONE, |a| a.privileges),
            }
        });
        let table_use = Arc::new(super::locks::TableUse::default());
        server.locks.register_use(connection_id, &table_use);
        Session {
            server,
            connection_id,
            user: user.to_string(),
            host: host.to_string(),
            db: None,
            autocommit,
            txn: None,
            vars: super::session_vars::SessionVars::new(vars),
            derived: Default::default(),
            user_vars: HashMap::new(),
            gtid_next: GtidNext::Automatic,
            last_insert_id: 0,
            prev_row_count: -1,
            prev_found_rows: 0,
            warnings: Vec::new(),
            last_counts: (0, 0),
            now: datetime_of(0),
            defer_commit: false,
            deferred: None,
            recount: false,
            account,
            process: None,
            client_collation: None,
            found_rows: false,
            view_check: None,
            check_cache: Default::default(),
            row_events: false,
            next_isolation: None,
            locked_tables: None,
            write_pass: None,
            binlog_replay: Default::default(),
            tls: None,
            plan_epoch: {
                static EPOCHS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
                EPOCHS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            },
            plan_cache: None,
            read_only_txn: false,
            read_write_txn: false,
            next_read_only: None,
            tracked: Default::default(),
            table_use,
            work_tables: Default::default(),
        }
    }

    pub fn connection_id(&self) -> u32 {
        self.connection_id
    }

    /// The connection's TLS session, shown by `SHOW STATUS LIKE 'Ssl_%'`.
    pub fn set_tls(&mut self, tls: Option<protocol::TlsSession>) {
        self.tls = tls;
    }

    /// Ties the session to its connection's registry entry (kept up to date with the default
    /// database; the target of its own KILL).
    pub fn attach_process(&mut self, process: Arc<protocol::processlist::Process>) {
        process.set_db(self.db.as_deref());
        self.process = Some(process);
    }

    /// The current database.
    pub fn database(&self) -> Option<&str> {
        self.db.as_deref()
    }

    pub fn autocommit(&self) -> bool {
        self.autocommit
    }

    /// Whether a transaction is open (SERVER_STATUS_IN_TRANS).
    pub fn in_transaction(&self) -> bool {
        self.txn.is_some()
    }

    /// The session value of system variable `var` (the global one where the session has not
    /// set it, or for a global-only variable).
    pub fn variable(&self, var: super::vars::Var) -> Value {
        self.vars.get(&var).cloned().unwrap_or_else(|| self.server.vars.global(var))
    }

    /// The user variable `@name` (names are case-insensitive), if set.
    pub fn user_variable(&self, name: &str) -> Option<&Value> {
        self.user_vars.get(&name.to_ascii_lowercase())
    }

    /// Warnings of the last statement (for the OK/EOF warning count).
    pub fn warning_count(&self) -> u16 {
        u16::try_from(self.warnings.len()).unwrap_or(u16::MAX)
    }

    /// Counts a statement in SHOW STATUS, once even when it is run again after
    /// [`Attempt::Blocked`].
    fn count(&self, name: &str) {
        if !self.recount {
            self.server.count(name);
        }
    }

    /// [`Session::query`] on a thread that must not block (an async event loop): statements
    /// that could only wait (DDL, SHOW, admin, commits other than a plain one) are not run;
    /// DML, SELECT and COMMIT run with lock waits refused (a statement that would wait is
    /// undone and reported `Blocked`) and hand their commit to the pipeline without waiting.
    pub fn try_query(&mut self, sql: &str) -> Attempt {
        let parsed = match parse(sql) {
            Ok(p) => p,
            // The blocking run reports the error (and counts the question) the usual way.
            Err(_) => return Attempt::Blocked,
        };
        if parsed.params > 0 || !self.runs_inline(&parsed.stmt) {
            return Attempt::Blocked;
        }
        self.count("Questions");
        self.begin_statement();
        self.attempt(|sess| sess.run_statement(&parsed.stmt, &[], sql))
    }

    /// [`Session::execute`] on a thread that must not block; see [`Session::try_query`].
    pub fn try_execute(&mut self, stmt: &Prepared, params: &[Value]) -> Attempt {
        if params.len() != stmt.params || !self.runs_inline(&stmt.parsed.stmt) {
            return Attempt::Blocked;
        }
        self.count("Com_stmt_execute");
        self.count("Questions");
        self.begin_statement();
        self.plan_cache = Some(stmt.plan.clone());
        self.attempt(|sess| sess.run_statement(&stmt.parsed.stmt, params, &stmt.sql))
    }

    /// The commit the last statement handed to the pipeline, if any: the statement's answer
    /// must wait for it (and becomes its error if it fails).
    pub fn take_deferred_commit(&mut self) -> Option<Box<dyn DeferredCommit>> {
        self.deferred.take()
    }

    /// A deferred commit finished: its GTID is the session's (`session_track_gtids`).
    pub fn committed(&mut self, outcome: &super::commit::CommitOutcome) {
        let tracking = match self.vars.get(&Var::SessionTrackGtids) {
            Some(Value::Bytes(b)) => !b.eq_ignore_ascii_case(b"OFF"),
            Some(Value::Int(n)) => *n != 0,
            Some(Value::UInt(n)) => *n != 0,
            _ => true,
        };
        if let Some(g) = outcome.gtid.as_ref().filter(|_| tracking) {
            self.track_gtid(&g.to_string());
        }
    }

    /// Records a deferred commit's failure as the statement's diagnostics.
    pub fn deferred_commit_failed(&mut self, e: SqlError) -> SqlError {
        self.fail(e)
    }

    /// Whether `stmt` may run on a thread that must not block: row reads and writes (their
    /// only waits are row locks, refused there) and transaction control whose commit can be
    /// deferred. A BEGIN or SET that ends an open transaction commits it synchronously.
    fn runs_inline(&self, stmt: &Stmt) -> bool {
        if !self.server.hooks.committer.defers() || !matches!(self.gtid_next, GtidNext::Automatic) {
            return false;
        }
        match stmt {
            Stmt::Select(_) | Stmt::Insert(_) | Stmt::Update(_) | Stmt::Delete(_) => true,
            Stmt::InsertSelect(_) | Stmt::MultiUpdate(_) | Stmt::MultiDelete(_) => true,
            Stmt::Commit | Stmt::Rollback => true,
            Stmt::Begin | Stmt::BeginReadOnly => self.txn.is_none(),
            _ => false,
        }
    }

    fn attempt(&mut self, f: impl FnOnce(&mut Session) -> Result<Output>) -> Attempt {
        let had_txn = self.txn.is_some();
        self.defer_commit = true;
        let r = engine::without_waiting(|| f(self));
        self.defer_commit = false;
        let lock = engine::refused_wait();
        match r {
            Err(SqlError::Engine(engine::Error::WouldBlock)) => {
                // `in_txn` undid the statement (or rolled back its own transaction); the
                // re-run counts nothing again.
                self.deferred = None;
                self.recount = true;
                match lock {
                    Some(lock) if !had_txn && self.txn.is_none() => Attempt::Wait(lock),
                    _ => Attempt::Blocked,
                }
            }
            Err(e) => {
                self.recount = false;
                Attempt::Done(Err(self.fail(e)))
            }
            Ok(out) => {
                self.recount = false;
                Attempt::Done(Ok(out))
            }
        }
    }

    /// Runs one statement.
    pub fn query(&mut self, sql: &str) -> Result<Output> {
        let r = self.query_counted(sql);
        self.recount = false;
        r
    }

    fn query_counted(&mut self, sql: &str) -> Result<Output> {
        self.count("Questions");
        self.begin_statement();
        if let Some(hook) = self.server.statement_hook().cloned() {
            // The hook sees the statement as mysqld's parser would (executable comments
            // applied), e.g. `/*!50000 START SLAVE */`.
            let expanded = super::comments::expand(sql);
            let hooked = hook.try_execute(&expanded.text, &|p| self.check_hook_privilege(p));
            if let Some(r) = hooked {
                self.warnings.clear();
                return r.map_err(|e| self.fail(e));
            }
        }
        let parsed = parse(sql);
        let parsed = match parsed {
            Ok(p) => p,
            Err(e) => return Err(self.fail(e)),
        };
        if parsed.params > 0 {
            return Err(self.fail(SqlError::near("?")));
        }
        let r = self.run_statement(&parsed.stmt, &[], sql);
        r.map_err(|e| self.fail(e))
    }

    /// Runs `;`-separated statements (CLIENT_MULTI_STATEMENTS), stopping at the first error.
    pub fn query_multi(&mut self, sql: &str) -> Vec<Result<Output>> {
        let mut out = Vec::new();
        for piece in split_statements(sql) {
            let r = self.query(piece);
            let failed = r.is_err();
            out.push(r);
            if failed {
                break;
            }
        }
        out
    }

    /// COM_STMT_PREPARE.
    pub fn prepare(&mut self, sql: &str) -> Result<Prepared> {
        self.count("Com_stmt_prepare");
        self.begin_statement();
        let parsed = parse(sql)?;
        let expanded = self.expand_views(&parsed.stmt)?;
        let columns = match expanded.as_ref().unwrap_or(&parsed.stmt) {
            Stmt::Select(s) if crate::ast::has_subquery(s) => self.run_select_columns(s)?,
            Stmt::Select(s) if s.is_multi() => self.join_select_columns(s)?,
            Stmt::Select(s) => self.select_columns(s)?,
            _ => Vec::new(),
        };
        Ok(Prepared {
            params: parsed.params,
            parsed: Arc::new(parsed),
            sql: sql.into(),
            plan: Arc::default(),
            columns,
        })
    }

    /// COM_STMT_EXECUTE with one value per placeholder.
    pub fn execute(&mut self, stmt: &Prepared, params: &[Value]) -> Result<Output> {
        let r = self.execute_counted(stmt, params);
        self.recount = false;
        r
    }

    fn execute_counted(&mut self, stmt: &Prepared, params: &[Value]) -> Result<Output> {
        self.count("Com_stmt_execute");
        self.count("Questions");
        if params.len() != stmt.params {
            return Err(SqlError::WrongArguments("mysqld_stmt_execute"));
        }
        self.begin_statement();
        self.plan_cache = Some(stmt.plan.clone());
        let r = self.run_statement(&stmt.parsed.stmt, params, &stmt.sql);
        r.map_err(|e| self.fail(e))
    }

    /// Runs one statement and finishes it as every entry point does (text and prepared, on
    /// the async inline attempt and on a blocking thread): DECIMAL values at their column's
    /// scale, ROW_COUNT()/FOUND_ROWS() noted, table use ended, conversion warnings collected.
    fn run_statement(&mut self, stmt: &Stmt, params: &[Value], sql: &str) -> Result<Output> {
        let r = self.run(stmt, params, sql).map(decimal_scales);
        // A statement refused on a thread that must not block runs again, and its re-run
        // must see the counts it would have (WouldBlock cannot arise where waits are allowed).
        if !matches!(r, Err(SqlError::Engine(engine::Error::WouldBlock))) {
            self.note_row_counts(&r);
        }
        self.end_table_use(&r);
        self.collect_temporal_warnings();
        r
    }

    /// Records what ROW_COUNT() and FOUND_ROWS() of the next statement answer.
    fn note_row_counts(&mut self, r: &Result<Output>) {
        match r {
            Ok(Output::Rows { rows, .. }) => {
                self.prev_row_count = -1;
                self.prev_found_rows = rows.len() as u64;
            }
            Ok(Output::Ok { affected_rows, .. }) => {
                self.prev_row_count = i64::try_from(*affected_rows).unwrap_or(i64::MAX);
            }
            Err(_) => self.prev_row_count = -1,
        }
    }

    /// A user-lock function (`userlocks.rs`) over its evaluated arguments.
    pub(crate) fn user_lock_call(&self, f: crate::ast::MiscFn, a: &[Value]) -> Result<Value> {
        use crate::ast::MiscFn as M;
        let locks = &self.server.user_locks;
        let conn = self.connection_id;
        let name = || super::userlocks::lock_name(a.first().unwrap_or(&Value::Null));
        Ok(match f {
            M::GetLock => {
                let timeout = super::userlocks::timeout_of(a.get(1).unwrap_or(&Value::Null));
                let killed = || {
                    engine::interrupt_requested()
                        || self.process.as_ref().is_some_and(|p| p.killed() != 0)
                };
                locks.get(conn, &name()?, timeout, &killed)?
            }
            M::ReleaseLock => locks.release(conn, &name()?),
            M::IsFreeLock => locks.is_free(&name()?),
            M::IsUsedLock => locks.holder(&name()?),
            _ => Value::UInt(locks.release_all(conn)),
        })
    }

    /// COM_INIT_DB.
    pub fn use_database(&mut self, db: &str) -> Result<()> {
        self.need_database(Privileges::NONE, db)?;
        // Every MySQL server has information_schema, and clients name it as their default
        // database (python-mysql-replication's control connection); it holds no tables here.
        if db.eq_ignore_ascii_case("information_schema") {
            self.db = Some("information_schema".to_string());
            self.track_schema();
            self.count("Com_change_db");
            return Ok(());
        }
        let name = self.server.database(db).ok_or_else(|| SqlError::UnknownDatabase(db.into()))?;
        self.db = Some(name);
        self.track_schema();
        self.count("Com_change_db");
        if let Some(p) = &self.process {
            p.set_db(self.db.as_deref());
        }
        Ok(())
    }

    /// COM_RESET_CONNECTION: rolls back and returns to a fresh session's state.
    pub fn reset(&mut self) {
        self.rollback_open();
        let fresh = Session::new(self.server.clone(), self.connection_id, &self.user, &self.host);
        let db = self.db.take();
        let process = self.process.take();
        let (collation, found_rows) = (self.client_collation, self.found_rows);
        *self = fresh;
        self.db = db;
        self.process = process;
        if let Some(id) = collation {
            self.set_client(id, found_rows);
        }
    }

    /// The client's handshake: its collation id becomes `character_set_client`,
    /// `character_set_connection`, `character_set_results` and `collation_connection`
    /// (mysqld's `thd_init_client_charset`; an unknown id leaves the server's defaults), and
    /// CLIENT_FOUND_ROWS decides what UPDATE counts as affected.
    pub fn set_client(&mut self, collation_id: u16, found_rows: bool) {
        self.client_collation = Some(collation_id);
        self.found_rows = found_rows;
        if let Some(c) = charset::by_id(collation_id) {
            self.apply_names(c);
        }
    }

    /// `SET NAMES`: the three character-set variables and `collation_connection` at once
    /// (mysqld's `set_var_collation_client::update`).
    fn apply_names(&mut self, c: &charset::Collation) {
        let cs = Value::Bytes(c.charset.as_bytes().to_vec());
        for var in [Var::CharacterSetClient, Var::CharacterSetConnection, Var::CharacterSetResults]
        {
            self.vars.insert(var, cs.clone());
        }
        self.vars.insert(Var::CollationConnection, Value::Bytes(c.name.as_bytes().to_vec()));
    }

    /// A session variable's value as text (the global one if the session has none).
    pub(crate) fn var_text(&self, var: Var) -> String {
        match self.vars.get(&var) {
            Some(v) => text_of(v),
            None => text_of(&self.server.vars.global(var)),
        }
    }

    /// What text columns of a result set are described in: the collation id mysqld puts in a
    /// column definition and the character set's `mbmaxlen`, from `character_set_results`
    /// (the `collation_connection` when it belongs to that set, else the set's default
    /// collation). `None` when `character_set_results` is NULL: no conversion, columns keep
    /// their own collation and byte length (`Protocol_classic::send_field_metadata`).
    pub fn results_charset(&self) -> Option<(u16, u32)> {
        let results = self.var_text(Var::CharacterSetResults);
        let cs = charset::canonical_charset(&results)?;
        let mbmaxlen = charset::mbmaxlen(cs)?;
        let connection = charset::by_name(&self.var_text(Var::CollationConnection));
        let id = match connection {
            Some(c) if c.charset == cs => c.id,
            _ => charset::default_of(cs)?.id,
        };
        Some((id, mbmaxlen))
    }

    /// The generations `derived` caches are keyed by (session_vars.rs); the globals' first.
    pub(crate) fn vars_generation(&self) -> (u64, u64) {
        let global = self.server.vars.generation();
        (self.vars.generation(), global)
    }

    fn begin_statement(&mut self) {
        let generation = self.vars_generation();
        let derived = match &self.derived.statement {
            Some((g, d)) if *g == generation => d.clone(),
            _ => {
                // SET timestamp = n fixes NOW() for the session, as mysqld's `thd->user_time`.
                let fixed_timestamp = match self.vars.get(&Var::Timestamp) {
                    Some(v) => super::eval::str_to_f64(v.to_string().as_bytes()),
                    None => 0.0,
                };
                let d = super::session_vars::StatementVars {
                    zone: super::temporal::parse_zone(&self.var_text(Var::TimeZone))
                        .unwrap_or(super::temporal::Zone::System),
                    mode: super::temporal::Mode::parse(&self.var_text(Var::SqlMode)),
                    div_precision_increment: match self.variable(Var::DivPrecisionIncrement) {
                        Value::UInt(n) => n.min(30) as u8,
                        Value::Int(n) => n.clamp(0, 30) as u8,
                        _ => 4,
                    },
                    fixed_timestamp,
                    isolation: self.parse_isolation(),
                };
                self.derived.statement = Some((generation, d.clone()));
                d
            }
        };
        let fixed = derived.fixed_timestamp;
        let now = if fixed > 0.0 { (fixed * 1e6) as i64 } else { super::temporal::now_micros() };
        self.now = datetime_of(now.div_euclid(1_000_000));
        // The statement's time context (temporal.rs): zone, sql_mode, start time.
        super::temporal::begin(derived.zone, derived.mode, now);
        super::decimal::set_div_precision_increment(derived.div_precision_increment);
        crate::eval::mathfn::reset_seeded_rand();
    }

    /// Moves the warnings the statement's conversions raised (temporal.rs) to the session's
    /// diagnostics.
    fn collect_temporal_warnings(&mut self) {
        for (code, message) in super::temporal::take_warnings() {
            self.warnings.push(Warning { level: "Warning", code, message });
        }
    }

    /// mysqld's GTID auto-skip (`gtid_pre_statement_checks` answering GTID_STATEMENT_SKIP,
    /// MySQL 8.0 manual "GTID Auto-Skipping"): with `gtid_next` set to a GTID already in
    /// `gtid_executed`, the transaction is skipped silently, so a row statement changes
    /// nothing and answers OK with 0 rows (the commit then writes nothing either).
    fn gtid_skips(&self) -> bool {
        let GtidNext::Assigned(g) = self.gtid_next else { return false };
        let executed = self.server.hooks.admin.gtid_executed();
        executed.parse::<binlog::gtid::GtidSet>().is_ok_and(|set| set.contains(&g))
    }

    /// The answer of a skipped row statement; outside a transaction it was the whole
    /// transaction, so the GTID is used up as after a commit.
    fn skip_statement(&mut self) -> Output {
        if self.txn.is_none() {
            self.consume_gtid();
        }
        Output::ok(0)
    }

    /// Records the error as the statement's diagnostics and passes it on.
    fn fail(&mut self, e: SqlError) -> SqlError {
        self.warnings = vec![Warning { level: "Error", code: e.code(), message: e.to_string() }];
        e
    }

    fn run(&mut self, stmt: &Stmt, params: &[Value], sql: &str) -> Result<Output> {
        // A prepared statement's plan cache serves its own top-level SELECT only.
        let plan_cache = self.plan_cache.take();
        if !matches!(
            stmt,
            Stmt::Show(
                super::ast::Show::Warnings
                    | super::ast::Show::Errors
                    | super::ast::Show::WarningCount { .. }
            )
        ) {
            let errors = self.warnings.iter().filter(|w| w.level == "Error").count() as u64;
            self.last_counts = (self.warnings.len() as u64 - errors, errors);
            self.warnings.clear();
        }
        self.check_privileges(stmt)?;
        // Views read by the statement become derived tables of their SELECTs (views.rs).
        let expanded = self.expand_views(stmt)?;
        let stmt = expanded.as_ref().unwrap_or(stmt);
        match stmt {
            Stmt::Select(s) if crate::ast::has_subquery(s) => {
                self.count("Com_select");
                let mut tables: Vec<&super::ast::TableRef> = Vec::new();
                super::ast::base_tables(s, &mut tables);
                self.table_access(&tables, false)?;
                self.in_txn(|sess| sess.run_select(s, params))
            }
            Stmt::Select(s) if s.is_multi() => {
                self.count("Com_select");
                let mut tables: Vec<&super::ast::TableRef> = Vec::new();
                super::ast::base_tables(s, &mut tables);
                self.table_access(&tables, false)?;
                self.in_txn(|sess| sess.join_select(s, params))
            }

            Stmt::Explain(inner) => {
                self.count("Com_explain_other");
                self.explain(inner)
            }
            Stmt::Select(s) => {
                self.count("Com_select");
                if let Some(t) = &s.from {
                    self.table_access(&[t], false)?;
                }
                if s.from.is_some() {
                    // A statement that named a view runs its expansion, planned afresh.
                    let cache = plan_cache.as_deref().filter(|_| expanded.is_none());
                    self.in_txn(|sess| sess.select_with(s, params, cache))
                } else {
                    self.select(s, params)
                }
            }
            Stmt::InsertSelect(_) | Stmt::MultiUpdate(_) | Stmt::MultiDelete(_)
                if self.gtid_skips() || self.in_read_only_txn() =>
            {
                if self.gtid_skips() {
                    return Ok(self.skip_statement());
                }
                if self.txn.is_none() && self.autocommit {
                    self.next_read_only = None;
                }
                Err(SqlError::Other {
                    code: 1792,
                    sqlstate: "25006",
                    message: "Cannot execute statement in a READ ONLY transaction.".into(),
                })
            }
            Stmt::InsertSelect(is) => {
                self.count(if is.insert.replace {
                    "Com_replace_select"
                } else {
                    "Com_insert_select"
                });
                let mut read: Vec<&super::ast::TableRef> = Vec::new();
                super::ast::base_tables(&is.select, &mut read);
                self.table_access(&read, false)?;
                self.table_access(&[&is.insert.table], true)?;
                self.writing(|s| {
                    s.in_txn(|sess| sess.latest_reads(|sess| sess.insert_select(is, params)))
                })
            }
            Stmt::MultiUpdate(u) => {
                self.count("Com_update_multi");
                let has = |t: &super::ast::TableRef, c: &str| {
                    self.resolve_table(t).is_ok_and(|(_, s, _)| s.column_position(c).is_some())
                };
                let tables = super::ast::write_tables(&u.from, &|l, t| u.assigns(l, t, &has));
                for (t, derived, changed) in tables {
                    if derived.is_none() {
                        self.table_access(&[t], changed)?;
                    }
                }
                self.writing(|s| {
                    s.in_txn(|sess| sess.latest_reads(|sess| sess.multi_update(u, params)))
                })
            }
            Stmt::MultiDelete(d) => {
                self.count("Com_delete_multi");
                let tables = super::ast::write_tables(&d.from, &|l, t| d.deletes(l, t));
                for (t, derived, changed) in tables {
                    if derived.is_none() {
                        self.table_access(&[t], changed)?;
                    }
                }
                self.writing(|s| {
                    s.in_txn(|sess| sess.latest_reads(|sess| sess.multi_delete(d, params)))
                })
            }
            Stmt::Insert(_) | Stmt::Update(_) | Stmt::Delete(_) if self.gtid_skips() => {
                Ok(self.skip_statement())
            }
            Stmt::Insert(_) | Stmt::Update(_) | Stmt::Delete(_) if self.in_read_only_txn() => {
                if self.txn.is_none() && self.autocommit {
                    // The refused statement was the next transaction: the one-shot is used.
                    self.next_read_only = None;
                }
                Err(SqlError::Other {
                    code: 1792,
                    sqlstate: "25006",
                    message: "Cannot execute statement in a READ ONLY transaction.".into(),
                })
            }
            Stmt::Insert(i) => {
                self.count(if i.replace { "Com_replace" } else { "Com_insert" });
                self.table_access(&[&i.table], true)?;
                self.writing(|s| {
                    s.in_txn(|sess| sess.latest_reads(|sess| sess.insert_any(i, params)))
                })
            }
            Stmt::Update(u) => {
                self.count("Com_update");
                self.table_access(&[&u.table], true)?;
                self.writing(|s| {
                    s.in_txn(|sess| sess.latest_reads(|sess| sess.update_any(u, params)))
                })
            }
            Stmt::Delete(d) => {
                self.count("Com_delete");
                self.table_access(&[&d.table], true)?;
                self.writing(|s| {
                    s.in_txn(|sess| sess.latest_reads(|sess| sess.delete_any(d, params)))
                })
            }
            Stmt::FlushTablesWithReadLock(tables) => {
                self.count("Com_flush");
                self.flush_tables_with_read_lock(tables)
            }
            Stmt::LockInstance => {
                self.server.locks.backup_lock(self.connection_id);
                Ok(Output::ok(0))
            }
            Stmt::UnlockInstance => {
                self.server.locks.release_backup(self.connection_id);
                Ok(Output::ok(0))
            }
            Stmt::BeginConsistentSnapshot { read_only } => {
                self.count("Com_begin");
                self.commit_open()?;
                self.release_table_locks();
                let out = self.begin_consistent_snapshot()?;
                self.start_access(*read_only);
                Ok(out)
            }
            Stmt::SetTransaction { scope, isolation, read_only } => {
                self.count("Com_set_option");
                self.set_transaction(*scope, *isolation, *read_only)
            }
            Stmt::Begin | Stmt::BeginReadOnly => {
                self.count("Com_begin");
                self.commit_open()?;
                // mysqld: BEGIN releases the table locks (`trans_begin`).
                self.release_table_locks();
                self.txn = Some(self.new_txn());
                self.start_access(matches!(stmt, Stmt::BeginReadOnly));
                Ok(Output::ok(0))
            }
            Stmt::Commit => {
                self.count("Com_commit");
                self.commit_open_or_defer()?;
                Ok(Output::ok(0))
            }
            Stmt::Rollback => {
                self.count("Com_rollback");
                self.rollback_open();
                Ok(Output::ok(0))
            }
            Stmt::Use(db) => {
                self.use_database(db)?;
                Ok(Output::ok(0))
            }
            Stmt::Set(items) => {
                self.count("Com_set_option");
                for item in items {
                    self.set(item, params)?;
                }
                Ok(Output::ok(0))
            }
            Stmt::UnlockTables => {
                self.count("Com_unlock_tables");
                if self.locked_tables.is_some() {
                    // mysqld: UNLOCK TABLES commits a transaction begun under LOCK TABLES.
                    self.commit_open()?;
                }
                self.release_table_locks();
                self.server.locks.release_global_read(self.connection_id);
                Ok(Output::ok(0))
            }
            Stmt::Noop | Stmt::Flush => Ok(Output::ok(0)),
            Stmt::Savepoint(name) => {
                self.count("Com_savepoint");
                // mysqld (`trans_savepoint`): under autocommit outside a transaction there is
                // nothing to return to, and the statement does nothing.
                if self.txn.is_none() && !self.autocommit {
                    self.txn = Some(self.new_txn());
                }
                if let Some(open) = self.txn.as_mut() {
                    let mark = open.changes.changes.len();
                    // A savepoint with the name of an older one replaces it.
                    open.savepoints.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
                    open.savepoints.push((name.clone(), mark));
                }
                Ok(Output::ok(0))
            }
            Stmt::RollbackToSavepoint(name) => {
                self.count("Com_rollback_to_savepoint");
                let at = self.savepoint_index(name)?;
                let mark = self.txn.as_ref().map_or(0, |t| t.savepoints[at].1);
                if self.undo_statement(mark).is_err() {
                    self.rollback_open();
                    return Err(SqlError::Other {
                        code: 1030,
                        sqlstate: "HY000",
                        message: "Got error rolling back to the savepoint; the transaction was rolled back".into(),
                    });
                }
                // mysqld (`trans_rollback_to_savepoint`): later savepoints are removed, this
                // one stays.
                if let Some(open) = self.txn.as_mut() {
                    open.savepoints.truncate(at + 1);
                }
                Ok(Output::ok(0))
            }
            Stmt::ReleaseSavepoint(name) => {
                self.count("Com_release_savepoint");
                let at = self.savepoint_index(name)?;
                if let Some(open) = self.txn.as_mut() {
                    open.savepoints.truncate(at);
                }
                Ok(Output::ok(0))
            }
            Stmt::AlterKeys(t) => {
                // mysqld (InnoDB): OK with note 1031, the table left as it is; an implicit
                // commit as every ALTER TABLE.
                self.commit_open()?;
                let (_, schema, _) = self.resolve_table(t)?;
                let name = super::commit::split_engine_name(&schema.name).1.to_string();
                self.warnings.push(Warning {
                    level: "Note",
                    code: 1031,
                    message: format!("Table storage engine for '{name}' doesn't have this option"),
                });
                Ok(Output::ok(0))
            }
            Stmt::LockTables(tables) => {
                self.count("Com_lock_tables");
                self.lock_tables(tables)
            }
            Stmt::Kill { query, id } => self.kill(*query, id, params),
            Stmt::Show(s) => self.show(s),
            Stmt::ShowWhere { show, filter } => self.show_where(show, filter),
            Stmt::Admin(cmd) => self.admin(cmd),
            Stmt::Checksum { tables, quick } => self.checksum_table(tables, *quick),
            Stmt::Shutdown => self.shutdown(),
            Stmt::Binlog(text) => self.binlog_statement(text),
            Stmt::Account(a) => {
                // Account statements commit an open transaction, as mysqld's implicit commit.
                self.commit_open()?;
                self.writing(|s| s.account_statement(a))
            }
            ddl => {
                self.commit_open()?;
                self.ddl_allowed()?;
                let out = self.writing(|s| s.ddl(ddl, sql))?;
                if matches!(ddl, Stmt::CreateTable(ct) if ct.start_transaction) {
                    // `CREATE TABLE ... START TRANSACTION` (what mysqld logs for CREATE
                    // TABLE ... SELECT): the rows that follow run in one transaction. The
                    // table is committed first here, not with the rows (see
                    // ddl/create_select.rs).
                    self.txn = Some(self.new_txn());
                    self.start_access(false);
                }
                Ok(out)
            }
        }
    }

    /// Whether a write now is refused with 1792 (mysqld's `thd->tx_read_only`): inside a
    /// transaction started READ ONLY, or with the session's `transaction_read_only` ON (which
    /// mysqld applies from the next transaction on; here from the next statement).
    fn in_read_only_txn(&self) -> bool {
        let session_ro = matches!(
            self.vars.get(&Var::TransactionReadOnly),
            Some(Value::Int(1..) | Value::UInt(1..))
        );
        match &self.txn {
            Some(_) => self.read_only_txn || (session_ro && !self.read_write_txn),
            // The statement starts the next transaction: its one-shot access mode applies.
            None => self.next_read_only.unwrap_or(session_ro),
        }
    }

    /// Sets the access mode of a transaction that starts now: READ ONLY when `explicit`
    /// (`START TRANSACTION READ ONLY`) or when `SET TRANSACTION READ ONLY` chose it for this
    /// one; the one-shot choice is used up.
    fn start_access(&mut self, explicit: bool) {
        let next = self.next_read_only.take();
        self.read_only_txn = explicit || next == Some(true);
        self.read_write_txn = !explicit && next == Some(false);
    }

    pub(crate) fn new_txn(&self) -> OpenTxn {
        let isolation = self.isolation_for_new_txn();
        let mut txn = self.server.engine.begin();
        // InnoDB takes gap (next-key) locks under REPEATABLE READ and SERIALIZABLE only; READ
        // COMMITTED and READ UNCOMMITTED lock records alone, UPDATE/DELETE included
        // (`docs/engine.md`, "Gap locks").
        txn.set_gap_locks(matches!(
            isolation,
            super::isolation::Isolation::RepeatableRead | super::isolation::Isolation::Serializable
        ));
        OpenTxn {
            txn,
            changes: TxnChanges {
                session: u64::from(self.connection_id),
                // mysqld's BEGIN event takes the session's values when the transaction's
                // first event is cached.
                context: Some(self.query_context()),
                ..TxnChanges::default()
            },
            undo: Vec::new(),
            savepoints: Vec::new(),
            isolation,
            single: false,
            binlog_snapshot: None,
        }
    }

    /// Runs a statement inside the open transaction, or in its own one under autocommit.
    pub(crate) fn in_txn(
        &mut self,
        f: impl FnOnce(&mut Session) -> Result<Output>,
    ) -> Result<Output> {
        let own = self.txn.is_none() && self.autocommit;
        if self.txn.is_none() {
            let mut open = self.new_txn();
            open.single = own;
            self.txn = Some(open);
            self.start_access(false);
        }
        // mysqld reads the session's innodb_lock_wait_timeout at each row lock wait
        // (`thd_lock_wait_timeout`): a SET SESSION counts from the next statement on, and a
        // session starts with the global's value of its connect time (so a SET GLOBAL reaches
        // the sessions that connect after it). A value equal to the server's start-up one is
        // the engine's configured timeout (the server configures both from the same option;
        // an embedded engine may configure its own).
        let timeout = match self.vars.get(&Var::InnodbLockWaitTimeout) {
            Some(v) if *v == self.server.lock_wait_at_start => None,
            Some(Value::Int(i)) => Some((*i).max(1) as u64),
            Some(Value::UInt(u)) => Some((*u).max(1)),
            _ => None,
        };
        if let Some(open) = self.txn.as_mut() {
            open.txn.set_lock_wait_timeout(timeout.map(std::time::Duration::from_secs));
        }
        let mark = self.txn.as_ref().map_or(0, |t| t.changes.changes.len());
        match f(self) {
            Ok(out) => {
                let unchecked =
                    self.txn.as_ref().is_some_and(|open| open.changes.changes.len() > mark)
                        && !self.fk_checks();
                if let Some(open) = self.txn.as_mut() {
                    if unchecked {
                        let end = open.changes.changes.len();
                        open.changes.mark_fk_unchecked(mark, end);
                    }
                    open.changes.end_statement();
                }
                if own {
                    self.commit_open_or_defer()?;
                }
                Ok(out)
            }
            Err(e) => {
                if own || e.rolls_back_transaction() || e.code() == 1030 {
                    self.rollback_open();
                } else if self.undo_statement(mark).is_err() {
                    // The statement could not be reverted row by row; the transaction cannot
                    // continue in a known state, so it ends here.
                    self.rollback_open();
                }
                Err(e)
            }
        }
    }

    /// The position of savepoint `name` in the open transaction; 1305 (`ER_SP_DOES_NOT_EXIST`)
    /// if there is none, as mysqld.
    fn savepoint_index(&self, name: &str) -> Result<usize> {
        self.txn
            .as_ref()
            .and_then(|t| t.savepoints.iter().position(|(n, _)| n.eq_ignore_ascii_case(name)))
            .ok_or_else(|| SqlError::Other {
                code: 1305,
                sqlstate: "42000",
                message: format!("SAVEPOINT {name} does not exist"),
            })
    }

    /// Reverts the changes made after `mark`, newest first.
    pub(crate) fn undo_statement(&mut self, mark: usize) -> Result<()> {
        let engine = self.server.engine.clone();
        let Some(open) = self.txn.as_mut() else { return Ok(()) };
        open.changes.statement_ends.retain(|&end| end <= mark);
        open.changes.cascaded.retain(|&i| i < mark);
        open.changes.truncate_fk_unchecked(mark);
        while open.changes.changes.len() > mark {
            let (Some(c), Some(u)) = (open.changes.changes.pop(), open.undo.pop()) else { break };
            match c.kind {
                ChangeKind::Insert => {
                    if let Some(k) = &u.key_after {
                        engine.delete(&mut open.txn, u.table, k)?;
                    }
                }
                ChangeKind::Update => {
                    if let (Some(k), Some(before)) = (&u.key_after, c.before) {
                        engine.update(&mut open.txn, u.table, k, before)?;
                    }
                }
                ChangeKind::Delete => {
                    if let Some(before) = c.before {
                        engine.insert(&mut open.txn, u.table, before)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Records a row change of the open transaction.
    pub(crate) fn record(&mut self, change: ChangedRow, undo: Undo) {
        if let Some(open) = self.txn.as_mut() {
            open.changes.changes.push(change);
            open.undo.push(undo);
        }
    }

    /// Commits the open transaction (if any) through the committer.
    pub(crate) fn commit_open(&mut self) -> Result<()> {
        // A commit of changes holds a write pass: FTWRL blocks it and waits for it.
        let _pass = match &self.txn {
            Some(open) if !open.changes.is_empty() && self.write_pass.is_none() => {
                Some(self.enter_write()?)
            }
            _ => None,
        };
        let Some(open) = self.txn.take() else { return Ok(()) };
        self.next_isolation = None;
        let gtid = self.gtid_next;
        if open.changes.is_empty() && !matches!(gtid, GtidNext::Assigned(_)) {
            // Nothing to log: release the read locks (FOR UPDATE) without the pipeline.
            self.server.engine.commit(open.txn)?;
            return Ok(());
        }
        let outcome = self.server.hooks.committer.commit(open.txn, open.changes.logged(), gtid)?;
        self.committed(&outcome);
        self.consume_gtid();
        Ok(())
    }

    /// [`Self::commit_open`], or, in a statement run by [`Session::try_query`] /
    /// [`Session::try_execute`], hands the transaction to the committer without waiting
    /// ([`Session::take_deferred_commit`]). Only the last step of a statement may defer.
    fn commit_open_or_defer(&mut self) -> Result<()> {
        if !self.defer_commit {
            return self.commit_open();
        }
        let pass = match &self.txn {
            Some(open) if !open.changes.is_empty() && self.write_pass.is_none() => {
                Some(self.enter_write()?)
            }
            _ => None,
        };
        let Some(open) = self.txn.take() else { return Ok(()) };
        self.next_isolation = None;
        if open.changes.is_empty() {
            // Nothing to log: release the read locks (FOR UPDATE) without the pipeline.
            self.server.engine.commit(open.txn)?;
            return Ok(());
        }
        let gtid = self.gtid_next;
        let deferred =
            self.server.hooks.committer.commit_deferred(open.txn, open.changes.logged(), gtid)?;
        self.deferred = Some(super::locks::hold_until_done(deferred, pass));
        Ok(())
    }

    pub(crate) fn rollback_open(&mut self) {
        self.table_use.release();
        if let Some(open) = self.txn.take() {
            self.next_isolation = None;
            // A failed rollback means the redo is poisoned; the engine refuses further writes
            // and recovery decides, so there is nothing more to do here.
            let _ = self.server.engine.rollback(open.txn);
        }
    }

    /// An assigned GTID is used by one transaction; later ones get automatic GTIDs again.
    pub(crate) fn consume_gtid(&mut self) {
        if matches!(self.gtid_next, GtidNext::Assigned(_)) {
            self.gtid_next = GtidNext::Automatic;
            self.vars.insert(Var::GtidNext, Value::Bytes(b"AUTOMATIC".to_vec()));
        }
    }

    /// The transaction a read runs in (the open one; `in_txn` guarantees one is open).
    pub(crate) fn txn_mut(&mut self) -> Result<&mut OpenTxn> {
        self.txn.as_mut().ok_or_else(|| SqlError::Other {
            code: 1105,
            sqlstate: "HY000",
            message: "internal: no open transaction".into(),
        })
    }

    // ---- variables ------------------------------------------------------------------------

    /// `@@[scope.]name`.
    pub(crate) fn sysvar(&self, scope: VarScope, name: &str) -> Result<Value> {
        let def = lookup(name).ok_or_else(|| SqlError::UnknownVariable(name.to_string()))?;
        match (scope, def.scope) {
            (VarScope::Global, Scope::Session) => {
                return Err(SqlError::Other {
                    code: 1238,
                    sqlstate: "HY000",
                    message: format!("Variable '{}' is a SESSION variable", def.name),
                })
            }
            (VarScope::Session, Scope::Global) => {
                return Err(SqlError::GlobalOnlyVariable(def.name.to_string()))
            }
            _ => {}
        }
        let global = scope == VarScope::Global || def.scope == Scope::Global;
        Ok(match def.var {
            Var::Autocommit if !global => Value::Int(i64::from(self.autocommit)),
            Var::GtidNext => Value::Bytes(self.gtid_next_text().into_bytes()),
            Var::GtidExecuted => Value::Bytes(self.server.hooks.admin.gtid_executed().into_bytes()),
            Var::GtidPurged => Value::Bytes(self.server.hooks.admin.gtid_purged().into_bytes()),
            Var::LastInsertId | Var::Identity => Value::UInt(self.last_insert_id),
            // mysqld's warning_count counts every condition (errors too); error_count the
            // errors (`Diagnostics_area::warn_count` / `error_count`).
            Var::WarningCount => Value::UInt(self.last_counts.0 + self.last_counts.1),
            Var::ErrorCount => Value::UInt(self.last_counts.1),
            Var::Timestamp => Value::Int(unix_now().0),
            Var::SystemTimeZone => {
                Value::Bytes(super::temporal::system_time_zone_name().into_bytes())
            }
            Var::PseudoThreadId => Value::UInt(u64::from(self.connection_id)),
            Var::Version => Value::Bytes(VERSION.as_bytes().to_vec()),
            // SET character_set_results = NULL reads back as NULL.
            Var::CharacterSetResults
                if !global && self.vars.get(&def.var) == Some(&Value::Bytes(Vec::new())) =>
            {
                Value::Null
            }
            _ if global => self.server.vars.global(def.var),
            _ => {
                self.vars.get(&def.var).cloned().unwrap_or_else(|| self.server.vars.global(def.var))
            }
        })
    }

    fn gtid_next_text(&self) -> String {
        match self.gtid_next {
            GtidNext::Automatic => "AUTOMATIC".into(),
            GtidNext::Anonymous => "ANONYMOUS".into(),
            GtidNext::Assigned(g) => g.to_string(),
        }
    }

    pub(crate) fn set(&mut self, item: &SetItem, params: &[Value]) -> Result<()> {
        match item {
            SetItem::User { name, value } => {
                let v = self.const_value(value, params)?;
                self.user_vars.insert(name.clone(), v);
                self.track_state();
            }
            SetItem::Names { charset: name, collation } => {
                // NAMES DEFAULT / CHARACTER SET DEFAULT: the server's character set.
                let name = match name {
                    Some(n) => n.clone(),
                    None => text_of(&self.server.vars.global(Var::CharacterSetServer)),
                };
                let cs = charset::canonical_charset(&name).ok_or_else(|| unknown_charset(&name))?;
                let coll = match collation {
                    Some(c) => {
                        let coll = charset::by_name(c).ok_or_else(|| SqlError::Other {
                            code: 1273,
                            sqlstate: "HY000",
                            message: format!("Unknown collation: '{c}'"),
                        })?;
                        if coll.charset != cs {
                            return Err(SqlError::Other {
                                code: 1253,
                                sqlstate: "42000",
                                message: format!(
                                    "COLLATION '{}' is not valid for CHARACTER SET '{cs}'",
                                    coll.name
                                ),
                            });
                        }
                        coll
                    }
                    None => charset::default_of(cs).ok_or_else(|| unknown_charset(&name))?,
                };
                // ucs2/utf16/utf32 cannot be a client character set (mysqld: 1231).
                if matches!(cs, "ucs2" | "utf16" | "utf16le" | "utf32") {
                    return Err(SqlError::WrongVariableValue {
                        name: "character_set_client".into(),
                        value: cs.into(),
                    });
                }
                self.apply_names(coll);
                for v in [
                    "character_set_client",
                    "character_set_results",
                    "character_set_connection",
                    "collation_connection",
                ] {
                    self.track_variable(v);
                }
            }
            SetItem::CharacterSet { charset: name } => {
                // mysqld's `set_var_collation_client(cs, collation_database, cs)`:
                // client and results in `cs`, the connection in the database's collation.
                let (cs, default) = match name {
                    Some(n) => {
                        let cs = charset::canonical_charset(n).ok_or_else(|| unknown_charset(n))?;
                        (cs, false)
                    }
                    None => ("", true),
                };
                let cs = if default {
                    let server = text_of(&self.server.vars.global(Var::CharacterSetServer));
                    charset::canonical_charset(&server).ok_or_else(|| unknown_charset(&server))?
                } else {
                    cs
                };
                if matches!(cs, "ucs2" | "utf16" | "utf16le" | "utf32") {
                    return Err(SqlError::WrongVariableValue {
                        name: "character_set_client".into(),
                        value: cs.into(),
                    });
                }
                let value = Value::Bytes(cs.as_bytes().to_vec());
                self.vars.insert(Var::CharacterSetClient, value.clone());
                self.vars.insert(Var::CharacterSetResults, value);
                let db_collation = self.var_text(Var::CollationDatabase);
                if let Some(c) = charset::by_name(&db_collation) {
                    self.vars.insert(
                        Var::CharacterSetConnection,
                        Value::Bytes(c.charset.as_bytes().to_vec()),
                    );
                    self.vars
                        .insert(Var::CollationConnection, Value::Bytes(c.name.as_bytes().to_vec()));
                }
                for v in [
                    "character_set_client",
                    "character_set_results",
                    "character_set_connection",
                    "collation_connection",
                ] {
                    self.track_variable(v);
                }
            }
            SetItem::System { scope, name, value } => {
                let def = lookup(name).ok_or_else(|| SqlError::UnknownVariable(name.clone()))?;
                if !def.dynamic {
                    return Err(SqlError::ReadOnlyVariable(def.name.into()));
                }
                let global = match (scope, def.scope) {
                    (VarScope::Global, Scope::Session) => {
                        return Err(SqlError::SessionVariable(def.name.into()))
                    }
                    (VarScope::Global, _) => true,
                    (_, Scope::Global) => return Err(SqlError::GlobalVariable(def.name.into())),
                    _ => false,
                };
                let raw = match value {
                    None if global => Value::Bytes(def.default.as_bytes().to_vec()),
                    None => self.server.vars.global(def.var),
                    Some(e) => self.const_value(e, params)?,
                };
                let v = check(def, &raw)?;
                // `tx_isolation` is the old name of `transaction_isolation`: one value.
                let twin = match def.var {
                    Var::TransactionIsolation => Some(Var::TxIsolation),
                    Var::TxIsolation => Some(Var::TransactionIsolation),
                    Var::TransactionReadOnly => Some(Var::TxReadOnly),
                    Var::TxReadOnly => Some(Var::TransactionReadOnly),
                    _ => None,
                };
                if global {
                    if let Some(t) = twin {
                        self.server.vars.set_global(t, v.clone());
                    }
                    if def.var == Var::GtidPurged {
                        return Err(SqlError::NotSupported("SET GLOBAL gtid_purged".into()));
                    }
                    if let Some(l) = &self.server.hooks.listener {
                        l.set_global(Change { var: def.var, value: &v })?;
                    }
                    if def.var == Var::TimeZone {
                        super::temporal::parse_zone(&text_of(&v))?;
                    }
                    self.server.vars.set_global(def.var, v);
                    return Ok(());
                }
                if let Some(t) = twin {
                    self.vars.insert(t, v.clone());
                }
                self.set_session(def, v)?;
                self.track_variable(def.name);
            }
        }
        Ok(())
    }

    fn set_session(&mut self, def: &'static vars::Variable, v: Value) -> Result<()> {
        match def.var {
            Var::Autocommit => {
                let on = v != Value::Int(0);
                if on && !self.autocommit {
                    self.commit_open()?;
                }
                self.autocommit = on;
            }
            Var::GtidNext => {
                let text = String::from_utf8_lossy(match &v {
                    Value::Bytes(b) => b,
                    _ => &[][..],
                })
                .trim()
                .to_string();
                self.gtid_next = if text.eq_ignore_ascii_case("AUTOMATIC") {
                    GtidNext::Automatic
                } else if text.eq_ignore_ascii_case("ANONYMOUS") {
                    GtidNext::Anonymous
                } else {
                    let g: Gtid = text.parse().map_err(|_| SqlError::WrongVariableValue {
                        name: "gtid_next".into(),
                        value: text.clone(),
                    })?;
                    GtidNext::Assigned(g)
                };
            }
            // mysqlbinlog output sets these by number (`character_set_client=255`,
            // `lc_time_names=0`), which mysqld reads as a collation or locale id.
            Var::CharacterSetClient
            | Var::CharacterSetConnection
            | Var::CharacterSetResults
            | Var::CharacterSetServer
            | Var::CharacterSetDatabase
            | Var::CollationConnection
            | Var::CollationServer
            | Var::CollationDatabase
            | Var::LcTimeNames
            | Var::LcMessages
                if by_number(&v).is_some() =>
            {
                let id = by_number(&v).unwrap_or(0);
                let name = if matches!(def.var, Var::LcTimeNames | Var::LcMessages) {
                    (id == 0).then_some("en_US")
                } else {
                    collation_by_id(id).map(|(charset, collation)| {
                        if def.name.starts_with("collation") {
                            collation
                        } else {
                            charset
                        }
                    })
                };
                let name = name.ok_or_else(|| SqlError::Other {
                    code: if def.name.starts_with("lc_") { 1105 } else { 1273 },
                    sqlstate: "HY000",
                    message: if def.name.starts_with("lc_") {
                        format!("Unknown locale: '{id}'")
                    } else {
                        format!("Unknown collation: '{id}'")
                    },
                })?;
                self.vars.insert(def.var, Value::Bytes(name.as_bytes().to_vec()));
                return Ok(());
            }
            Var::TimeZone => {
                super::temporal::parse_zone(&text_of(&v))?;
            }
            Var::SqlLogBin if v == Value::Int(0) => {
                return Err(SqlError::NotSupported("SET sql_log_bin = 0".into()));
            }
            Var::LastInsertId | Var::InsertId | Var::Identity => {
                if let Value::UInt(n) = v {
                    self.last_insert_id = n;
                }
            }
            Var::TransactionIsolation | Var::TxIsolation => {
                self.vars.insert(Var::TransactionIsolation, v.clone());
                self.vars.insert(Var::TxIsolation, v.clone());
            }
            Var::TransactionReadOnly | Var::TxReadOnly => {
                self.vars.insert(Var::TransactionReadOnly, v.clone());
                self.vars.insert(Var::TxReadOnly, v.clone());
            }
            _ => {}
        }
        let v = match def.var {
            Var::CharacterSetClient
            | Var::CharacterSetConnection
            | Var::CharacterSetResults
            | Var::CharacterSetDatabase
            | Var::CharacterSetServer => {
                let name = text_of(&v);
                if name.is_empty() || name.eq_ignore_ascii_case("NULL") {
                    // Only character_set_results may be NULL: no conversion of results.
                    if def.var != Var::CharacterSetResults {
                        return Err(SqlError::WrongVariableValue {
                            name: def.name.into(),
                            value: "NULL".into(),
                        });
                    }
                    Value::Bytes(Vec::new())
                } else {
                    let cs =
                        charset::canonical_charset(&name).ok_or_else(|| unknown_charset(&name))?;
                    if def.var == Var::CharacterSetConnection {
                        let d = charset::default_of(cs).ok_or_else(|| unknown_charset(cs))?;
                        self.vars.insert(
                            Var::CollationConnection,
                            Value::Bytes(d.name.as_bytes().to_vec()),
                        );
                    }
                    Value::Bytes(cs.as_bytes().to_vec())
                }
            }
            Var::CollationConnection | Var::CollationDatabase | Var::CollationServer => {
                let name = text_of(&v);
                let c = charset::by_name(&name).ok_or_else(|| SqlError::Other {
                    code: 1273,
                    sqlstate: "HY000",
                    message: format!("Unknown collation: '{name}'"),
                })?;
                if def.var == Var::CollationConnection {
                    self.vars.insert(
                        Var::CharacterSetConnection,
                        Value::Bytes(c.charset.as_bytes().to_vec()),
                    );
                }
                Value::Bytes(c.name.as_bytes().to_vec())
            }
            _ => v,
        };
        self.vars.insert(def.var, v);
        Ok(())
    }

    /// Evaluates an expression without a table (SET values, SELECT without FROM parts).
    pub(crate) fn const_value(&self, e: &Expr, params: &[Value]) -> Result<Value> {
        let bound = self.binder(None, params, "field list").bind(e)?;
        eval(&bound, &[], &[])
    }
}

/// A variable's value as text (numbers in decimal).
fn text_of(v: &Value) -> String {
    match v {
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// mysqld's ER_UNKNOWN_CHARACTER_SET.
fn unknown_charset(name: &str) -> SqlError {
    SqlError::Other {
        code: 1115,
        sqlstate: "42000",
        message: format!("Unknown character set: '{name}'"),
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.rollback_open();
        // A disconnect releases the session's statement locks, as in mysqld.
        let locks = self.server.locks.clone();
        locks.release_global_read(self.connection_id);
        locks.unlock_tables(self.connection_id);
        locks.release_backup(self.connection_id);
        locks.unregister_use(self.connection_id, &self.table_use);
        // And its named user locks (GET_LOCK).
        self.server.user_locks.release_all(self.connection_id);
    }
}

/// Sessions are made by the server they belong to (here, beside [`Session::new`], so the
/// server's module does not depend on this one).
impl Server {
    /// A new session with the next connection id.
    pub fn session(self: &Arc<Self>, user: &str, host: &str) -> Session {
        let id = self.next_connection_id.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.session_with_id(id, user, host)
    }

    /// A session of the server itself (the replica applier, mysqld's "system user"): it runs
    /// with every privilege, as mysqld's applier does without PRIVILEGE_CHECKS_USER.
    pub fn system_session(self: &Arc<Self>, user: &str) -> Session {
        let mut session = self.session(user, "localhost");
        session.account = None;
        session
    }

    /// A new session with a connection id the caller (the protocol layer) assigned.
    pub fn session_with_id(
        self: &Arc<Self>,
        connection_id: u32,
        user: &str,
        host: &str,
    ) -> Session {
        Session::new(self.clone(), connection_id, user, host)
    }
}

/// A SET value given as a number (`255`), as mysqlbinlog prints collation and locale ids.
fn by_number(v: &Value) -> Option<u32> {
    let text = match v {
        Value::Bytes(b) => std::str::from_utf8(b).ok()?,
        _ => return None,
    };
    text.trim().parse().ok()
}

/// The character set and collation of a collation id (mysqld's `get_charset`): the ids
/// mysqlbinlog and clients send (a subset of mysqld's table).
fn collation_by_id(id: u32) -> Option<(&'static str, &'static str)> {
    Some(match id {
        8 => ("latin1", "latin1_swedish_ci"),
        33 => ("utf8mb3", "utf8mb3_general_ci"),
        45 => ("utf8mb4", "utf8mb4_general_ci"),
        46 => ("utf8mb4", "utf8mb4_bin"),
        47 => ("latin1", "latin1_bin"),
        63 => ("binary", "binary"),
        83 => ("utf8mb3", "utf8mb3_bin"),
        224 => ("utf8mb4", "utf8mb4_unicode_ci"),
        255 => ("utf8mb4", "utf8mb4_0900_ai_ci"),
        _ => return None,
    })
}

/// A result set's DECIMAL values at their column's scale, as mysqld sends an item of type
/// DECIMAL (`Protocol_text::store_decimal` with the item's `decimals`): a quotient rounded
/// (`1/7*7` is 1.0000), an integer or shorter DECIMAL branch padded (`IFNULL(1, 2.5)` is 1.0).
fn decimal_scales(mut out: Output) -> Output {
    if let Output::Rows { columns, rows } = &mut out {
        crate::decimal::conform_rows(columns, rows);
    }
    out
}

/// The bound conditions of the enforced constraints of the table definitions a session
/// wrote to, by table; an entry is valid while its definition is the table's current one.
#[derive(Default)]
pub(crate) struct CheckCache {
    pub(crate) by_table: std::collections::HashMap<
        engine::TableId,
        (std::sync::Arc<engine::TableSchema>, Vec<Bound>),
    >,
}

/// An enforced constraint's name and its condition bound to the table's rows.
pub(crate) type Bound = (String, super::ast::Expr);
