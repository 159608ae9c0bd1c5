//! The state shared by all sessions: the engine, the databases, the global variables, the
//! hooks into the commit pipeline and the binlog, and the statement counters.
//!
//! Databases live in the engine's catalog, so they are as durable as tables: a database `db`
//! is a one-column marker table named `db` (no dot), and its tables are engine tables named
//! `db.table`. Database names never contain a dot (1102 otherwise), so the two never collide.
//! CREATE DATABASE creates the marker; DROP DATABASE drops the tables, then the marker, so a
//! crash in between leaves the database with fewer tables, never tables without a database.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use engine::{Column, ColumnType, Engine, TableSchema, Txn, Value};
use parking_lot::{Mutex, RwLock};

use super::admin::{BinlogAdmin, NoBinlog, NoStatus, StatusProvider};
use super::commit::{EngineCommitter, TxnCommitter};
use super::error::{Result, SqlError};
use super::vars::{VariableListener, Variables};

/// The components behind the SQL layer's traits.
#[derive(Clone)]
pub struct Hooks {
    pub committer: Arc<dyn TxnCommitter>,
    pub admin: Arc<dyn BinlogAdmin>,
    pub status: Arc<dyn StatusProvider>,
    pub listener: Option<Arc<dyn VariableListener>>,
}

impl Hooks {
    /// A server without a binary log: engine commits, MySQL's log_bin=OFF admin answers.
    pub fn without_binlog(engine: &Engine) -> Hooks {
        Hooks {
            committer: Arc::new(EngineCommitter::new(engine.clone())),
            admin: Arc::new(NoBinlog),
            status: Arc::new(NoStatus),
            listener: None,
        }
    }
}

/// Statements another module answers before the SQL parser sees them: the replica's
/// CHANGE REPLICATION SOURCE, START/STOP/RESET/SHOW REPLICA and their old spellings, which
/// sqlparser has no grammar for (`replication::replica::statements` parses them by hand).
pub trait StatementHook: Send + Sync {
    /// `None` if the statement is not one of the hook's. Otherwise the hook parses it, asks
    /// `allowed` whether the session's account holds the privilege it needs (the session's
    /// check, 1227 if not), and only then runs it.
    fn try_execute(
        &self,
        sql: &str,
        allowed: &dyn Fn(HookPrivilege) -> Result<()>,
    ) -> Option<Result<super::output::Output>>;
}

/// What a hook statement needs of the session's account (mysqld's checks, mapped onto the
/// static privileges binlogd has: the dynamic REPLICATION_SLAVE_ADMIN is covered by SUPER).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookPrivilege {
    /// CHANGE REPLICATION SOURCE / CHANGE MASTER, START/STOP REPLICA: SUPER or
    /// REPLICATION_SLAVE_ADMIN (`sql_parse.cc`, SQLCOM_CHANGE_MASTER; `start_slave`).
    ReplicationAdmin,
    /// RESET REPLICA: RELOAD, mysqld's check for every RESET statement.
    Reload,
    /// SHOW REPLICA STATUS: SUPER or REPLICATION CLIENT.
    ReplicationClient,
}

/// Statement counters, by MySQL status name.
pub(crate) static COUNTERS: &[&str] = &[
    "Questions",
    "Com_select",
    "Com_insert",
    "Com_replace",
    "Com_update",
    "Com_delete",
    "Com_insert_select",
    "Com_replace_select",
    "Com_update_multi",
    "Com_delete_multi",
    "Com_begin",
    "Com_binlog",
    "Com_commit",
    "Com_rollback",
    "Com_set_option",
    "Com_change_db",
    "Com_create_db",
    "Com_drop_db",
    "Com_create_table",
    "Com_drop_table",
    "Com_create_index",
    "Com_drop_index",
    "Com_truncate",
    "Com_alter_table",
    "Com_rename_table",
    "Com_create_view",
    "Com_alter_view",
    "Com_drop_view",
    "Com_show_databases",
    "Com_show_tables",
    "Com_show_create_table",
    "Com_show_fields",
    "Com_show_variables",
    "Com_show_status",
    "Com_show_warnings",
    "Com_show_binlogs",
    "Com_show_master_status",
    "Com_show_binlog_events",
    "Com_flush",
    "Com_purge",
    "Com_purge_before_date",
    "Com_reset",
    "Com_stmt_prepare",
    "Com_stmt_execute",
    "Com_create_user",
    "Com_alter_user",
    "Com_drop_user",
    "Com_grant",
    "Com_revoke",
    "Com_show_grants",
    "Com_checksum",
];

/// The shared server state.
pub struct Server {
    pub(crate) engine: Engine,
    /// FLUSH TABLES WITH READ LOCK, LOCK TABLES, LOCK INSTANCE FOR BACKUP.
    pub(crate) locks: Arc<super::locks::Locks>,
    /// GET_LOCK's named locks (`userlocks.rs`).
    pub(crate) user_locks: super::userlocks::UserLocks,
    pub(crate) hooks: Hooks,
    pub(crate) vars: Variables,
    /// Lower-cased name → name as created.
    databases: RwLock<BTreeMap<String, String>>,
    /// `lower_case_table_names` (0, 1 or 2), fixed at start-up.
    lower_case_table_names: u8,
    /// Serializes database-level DDL with table creation (a table is never created in a
    /// database being dropped).
    pub(crate) ddl: Mutex<()>,
    pub(crate) next_connection_id: AtomicU32,
    counters: Vec<AtomicU64>,
    started: Instant,
    /// The accounts (`users.json`), when the server authenticates clients.
    accounts: std::sync::OnceLock<Arc<accounts::Users>>,
    /// The connection registry (SHOW PROCESSLIST, KILL), when a protocol server is attached.
    processes: std::sync::OnceLock<Arc<protocol::processlist::ProcessList>>,
    statement_hook: std::sync::OnceLock<Arc<dyn StatementHook>>,
    /// What the SHUTDOWN statement calls (the serve wiring's clean shutdown).
    shutdown: std::sync::OnceLock<Box<dyn Fn() + Send + Sync>>,
    /// `innodb_lock_wait_timeout` as the server started: the engine's configured timeout, so a
    /// session value equal to it needs no override of its own.
    pub(crate) lock_wait_at_start: engine::Value,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").field("engine", &self.engine).finish()
    }
}

impl Server {
    /// Opens the SQL layer on an engine: loads the databases from the engine's catalog and
    /// applies start-up variable overrides (`--name=value` pairs).
    pub fn open(
        engine: Engine,
        hooks: Hooks,
        overrides: &[(String, String)],
    ) -> Result<Arc<Server>> {
        let vars = Variables::new(overrides)?;
        // lower_case_table_names (start-up only): 0 compares table and database names
        // exactly, 1 and 2 fold them (1 also stores them in lower case, `names.rs`).
        let lctn = match vars.global(super::vars::Var::LowerCaseTableNames) {
            Value::UInt(n) => n.min(2) as u8,
            Value::Int(n) => n.clamp(0, 2) as u8,
            _ => 0,
        };
        engine.set_name_folding(lctn != 0);
        let fold = engine.folds_names();
        let key = |s: &str| if fold { s.to_ascii_lowercase() } else { s.to_string() };
        let lock_wait_at_start = vars.global(super::vars::Var::InnodbLockWaitTimeout);
        let mut databases = BTreeMap::new();
        for t in engine.tables() {
            if accounts::is_internal_table(&t.name) {
                continue;
            }
            let db = match t.name.split_once('.') {
                Some((db, _)) => db,
                None => t.name.as_str(),
            };
            databases.entry(key(db)).or_insert_with(|| db.to_string());
        }
        Ok(Arc::new(Server {
            engine,
            locks: Arc::default(),
            user_locks: Default::default(),
            hooks,
            vars,
            databases: RwLock::new(databases),
            lower_case_table_names: lctn,
            ddl: Mutex::new(()),
            next_connection_id: AtomicU32::new(1),
            counters: COUNTERS.iter().map(|_| AtomicU64::new(0)).collect(),
            started: Instant::now(),
            accounts: std::sync::OnceLock::new(),
            processes: std::sync::OnceLock::new(),
            statement_hook: std::sync::OnceLock::new(),
            shutdown: std::sync::OnceLock::new(),
            lock_wait_at_start,
        }))
    }

    /// Attaches the accounts: sessions then run with their account's privileges and the
    /// account statements work. Without them every session has all privileges.
    pub fn attach_accounts(&self, users: Arc<accounts::Users>) {
        let _ = self.accounts.set(users);
    }

    pub(crate) fn accounts(&self) -> Option<&Arc<accounts::Users>> {
        self.accounts.get()
    }

    /// Attaches the connection registry the protocol server fills: SHOW PROCESSLIST lists its
    /// connections and KILL reaches them. Without it a session sees only itself.
    pub fn attach_processes(&self, processes: Arc<protocol::processlist::ProcessList>) {
        let _ = self.processes.set(processes);
    }

    pub(crate) fn processes(&self) -> Option<&Arc<protocol::processlist::ProcessList>> {
        self.processes.get()
    }

    /// Installs the statement hook (only the first call counts).
    pub fn set_statement_hook(&self, hook: Arc<dyn StatementHook>) {
        let _ = self.statement_hook.set(hook);
    }

    pub(crate) fn statement_hook(&self) -> Option<&Arc<dyn StatementHook>> {
        self.statement_hook.get()
    }

    /// Sets what the SHUTDOWN statement starts (without one, SHUTDOWN is refused).
    pub fn on_shutdown(&self, start: Box<dyn Fn() + Send + Sync>) {
        let _ = self.shutdown.set(start);
    }

    /// SHUTDOWN: starts the clean shutdown; false if nothing can shut this server down.
    pub(crate) fn request_shutdown(&self) -> bool {
        match self.shutdown.get() {
            Some(start) => {
                start();
                true
            }
            None => false,
        }
    }

    /// The global value of `var`.
    pub fn global(&self, var: super::vars::Var) -> engine::Value {
        self.vars.global(var)
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    pub(crate) fn count(&self, name: &str) {
        if let Some(i) = COUNTERS.iter().position(|c| *c == name) {
            self.counters[i].fetch_add(1, Ordering::Relaxed);
        }
    }

    pub(crate) fn counter_values(&self) -> Vec<(String, String)> {
        let mut v: Vec<(String, String)> = COUNTERS
            .iter()
            .zip(&self.counters)
            .map(|(n, c)| (n.to_string(), c.load(Ordering::Relaxed).to_string()))
            .collect();
        v.push(("Uptime".into(), self.started.elapsed().as_secs().to_string()));
        v
    }

    /// SHOW GLOBAL STATUS: the SQL layer's counters and the providers' figures, by name
    /// (case-insensitive order, as mysqld lists them). The `/metrics` endpoint serves the same.
    pub fn global_status(&self) -> Vec<(String, String)> {
        let mut all = self.counter_values();
        let e = self.engine.stats();
        // InnoDB's "History list length" (SHOW ENGINE INNODB STATUS; INNODB_METRICS'
        // trx_rseg_history_len): committed transactions whose old row versions purge has not
        // removed yet; with the read views open and the versions purged so far.
        all.push(("Innodb_history_list_length".into(), e.history_list_length.to_string()));
        all.push(("Innodb_read_views_open".into(), e.read_views.to_string()));
        all.push(("Innodb_purged_row_versions".into(), e.purged_versions.to_string()));
        for (k, v) in self.hooks.status.global_status() {
            match all.iter_mut().find(|(n, _)| n.eq_ignore_ascii_case(&k)) {
                Some(slot) => slot.1 = v,
                None => all.push((k, v)),
            }
        }
        all.sort_by_key(|a| a.0.to_ascii_lowercase());
        all
    }

    /// The database's name as created, if it exists.
    pub fn database(&self, name: &str) -> Option<String> {
        self.databases.read().get(&self.name_key(name)).cloned()
    }

    /// The default collation of database `name` (`CREATE DATABASE ... COLLATE`): its marker
    /// table's collation (utf8mb4_0900_ai_ci for databases created before it was kept).
    pub fn database_collation(&self, name: &str) -> u16 {
        self.engine.table_named(name).map_or(collation::DEFAULT, |(_, schema)| schema.collation)
    }

    /// A database or table name as the catalog compares it: itself under
    /// `lower_case_table_names = 0`, else in lower case (mysqld's `lower_case_table_names`
    /// test in `check_db_name` / `tablename_to_filename`).
    pub fn name_key(&self, name: &str) -> String {
        if self.engine.folds_names() {
            name.to_ascii_lowercase()
        } else {
            name.to_string()
        }
    }

    /// A new database or table name as it is stored: in lower case under
    /// `lower_case_table_names = 1` (mysqld's `my_casedn_str` on the name), else as given.
    pub fn stored_name(&self, name: &str) -> String {
        if self.lower_case_table_names == 1 {
            name.to_ascii_lowercase()
        } else {
            name.to_string()
        }
    }

    /// Whether table and database names compare exactly (`lower_case_table_names = 0`).
    pub fn names_case_sensitive(&self) -> bool {
        !self.engine.folds_names()
    }

    pub fn databases(&self) -> Vec<String> {
        self.databases.read().values().cloned().collect()
    }

    /// Stages CREATE DATABASE (its marker table) in DDL transaction `txn`; once `txn` ended,
    /// [`Server::refresh_database`] updates the database list.
    /// The marker's table collation is the database's default collation.
    pub(crate) fn create_database(&self, txn: &mut Txn, name: &str, collation: u16) -> Result<()> {
        check_db_name(name)?;
        let name = &self.stored_name(name);
        let marker = TableSchema::new(
            name,
            vec![Column::new("database", ColumnType::Integer { bytes: 1, unsigned: false })],
            vec![],
        )
        .with_collation(collation);
        self.engine.create_table_in(txn, marker)?;
        Ok(())
    }

    /// Stages DROP DATABASE (its tables and its marker) in DDL transaction `txn`.
    pub(crate) fn drop_database(&self, txn: &mut Txn, name: &str) -> Result<()> {
        let prefix = self.name_key(&format!("{name}."));
        for t in self.engine.tables() {
            if self.name_key(&t.name).starts_with(&prefix) {
                self.engine.drop_table_in(txn, t.id)?;
            }
        }
        if let Some(id) = self.engine.table_id(name) {
            self.engine.drop_table_in(txn, id)?;
        }
        Ok(())
    }

    /// Brings the database list in line with the engine's catalog for database `name` (its
    /// marker table), after a DDL transaction on it ended (committed, rolled back, skipped).
    pub(crate) fn refresh_database(&self, name: &str) {
        let key = self.name_key(name);
        if self.engine.table_id(name).is_some() {
            let shown = self.stored_name(name);
            self.databases.write().entry(key).or_insert(shown);
        } else {
            self.databases.write().remove(&key);
        }
    }
}

/// Database names: non-empty, at most 64 characters, no dot, no slash.
pub(crate) fn check_db_name(name: &str) -> Result<()> {
    if name.is_empty() || name.chars().count() > 64 || name.contains(['.', '/', '\\']) {
        return Err(SqlError::WrongDatabaseName(name.to_string()));
    }
    Ok(())
}
