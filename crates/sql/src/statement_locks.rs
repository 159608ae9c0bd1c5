//! The session side of the statement locks (`locks.rs`): which statements take a write pass,
//! FLUSH TABLES WITH READ LOCK, LOCK TABLES and its rules for the locking session (1100,
//! 1099), the waits' bounds (`lock_wait_timeout`, 1205) and KILL (1317).
//!
//! mysqld's counterparts: `Global_read_lock::lock_global_read_lock` and
//! `make_global_read_lock_block_commit` (FTWRL), `lock_tables_open_and_lock_tables`,
//! `Locked_tables_list`, `find_locked_table` (`ER_TABLE_NOT_LOCKED`,
//! `ER_TABLE_NOT_LOCKED_FOR_WRITE`), `trans_begin`'s implicit UNLOCK TABLES.

use super::ast::TableRef;
use super::error::{Result, SqlError};
use super::locks::{LockError, Wait, WritePass};
use super::output::Output;
use super::session::Session;
use super::vars::Var;
use engine::Value;

fn lock_error(e: LockError) -> SqlError {
    match e {
        LockError::Timeout => SqlError::Engine(engine::Error::LockWaitTimeout),
        LockError::Interrupted => super::error::query_interrupted(),
        LockError::WouldBlock => SqlError::Engine(engine::Error::WouldBlock),
        LockError::OwnReadLock => SqlError::Other {
            code: 1223,
            sqlstate: "HY000",
            message: "Can't execute the query because you have a conflicting read lock".into(),
        },
    }
}

impl Session {
    /// Runs `f` with the session's wait bounds: `lock_wait_timeout` seconds, KILL, and no
    /// waiting at all on a thread that must not block.
    fn with_lock_wait<T>(
        &self,
        f: impl FnOnce(&Wait<'_>) -> std::result::Result<T, LockError>,
    ) -> Result<T> {
        let secs = match self.variable(Var::LockWaitTimeout) {
            Value::Int(i) => i.max(1) as u64,
            Value::UInt(u) => u.max(1),
            _ => 31_536_000,
        };
        let process = self.process.clone();
        let interrupted = move || process.as_ref().is_some_and(|p| p.killed() > 0);
        let w = Wait {
            deadline: std::time::Instant::now() + std::time::Duration::from_secs(secs),
            interrupted: &interrupted,
            no_wait: self.defer_commit,
        };
        f(&w).map_err(lock_error)
    }

    /// A write pass for a statement or commit of this session (waits out FTWRL).
    pub(crate) fn enter_write(&self) -> Result<WritePass> {
        let locks = self.server.locks.clone();
        let conn = self.connection_id;
        self.with_lock_wait(|w| locks.enter_write(conn, w))
    }

    /// Runs a writing statement holding a write pass (one per statement: its own commit
    /// reuses it); a commit the statement deferred keeps it until it is answered.
    pub(crate) fn writing(
        &mut self,
        f: impl FnOnce(&mut Session) -> Result<Output>,
    ) -> Result<Output> {
        let took = self.write_pass.is_none();
        if took {
            self.write_pass = Some(self.enter_write()?);
        }
        let r = f(self);
        if took {
            let pass = self.write_pass.take();
            if let Some(d) = self.deferred.take() {
                self.deferred = Some(super::locks::hold_until_done(d, pass));
            }
        }
        r
    }

    /// A DDL statement: waits while another session holds LOCK INSTANCE FOR BACKUP.
    pub(crate) fn ddl_allowed(&self) -> Result<()> {
        let locks = self.server.locks.clone();
        let conn = self.connection_id;
        self.with_lock_wait(|w| locks.enter_ddl(conn, w))
    }

    fn table_key(&self, t: &TableRef) -> Result<String> {
        let db = match (&t.db, &self.db) {
            (Some(d), _) | (None, Some(d)) => d.clone(),
            (None, None) => {
                return Err(SqlError::Other {
                    code: 1046,
                    sqlstate: "3D000",
                    message: "No database selected".into(),
                })
            }
        };
        Ok(self.server.name_key(&format!("{db}.{}", t.name)))
    }

    /// Checks a statement's access to `tables` against the table locks: in LOCK TABLES mode
    /// only locked tables (1100), written only under WRITE (1099); otherwise waits while
    /// another session's lock conflicts.
    pub(crate) fn table_access(&self, tables: &[&TableRef], write: bool) -> Result<()> {
        if let Some(locked) = &self.locked_tables {
            for t in tables {
                let key = self.table_key(t)?;
                // mysqld: information_schema (and performance_schema) need no table lock.
                // Their names are case-insensitive whatever lower_case_table_names says.
                let db = key.split('.').next().unwrap_or("");
                if db.eq_ignore_ascii_case("information_schema")
                    || db.eq_ignore_ascii_case("performance_schema")
                {
                    continue;
                }
                match locked.iter().find(|(k, _)| *k == key) {
                    None => {
                        return Err(SqlError::Other {
                            code: 1100,
                            sqlstate: "HY000",
                            message: format!("Table '{}' was not locked with LOCK TABLES", t.name),
                        })
                    }
                    Some((_, false)) if write => {
                        return Err(SqlError::Other {
                            code: 1099,
                            sqlstate: "HY000",
                            message: format!(
                                "Table '{}' was locked with a READ lock and can't be updated",
                                t.name
                            ),
                        })
                    }
                    Some(_) => {}
                }
            }
            return Ok(());
        }
        let locks = self.server.locks.clone();
        let conn = self.connection_id;
        loop {
            // Record the uses first, then look at the table locks (locks.rs, the Dekker pair).
            let mark = self.table_use.mark();
            let mut fresh = false;
            for t in tables {
                let db = match (&t.db, &self.db) {
                    (Some(d), _) | (None, Some(d)) => d.as_str(),
                    // No database: table_key answers 1046.
                    (None, None) => return self.table_key(t).map(drop),
                };
                if db.eq_ignore_ascii_case("information_schema")
                    || db.eq_ignore_ascii_case("performance_schema")
                {
                    continue;
                }
                fresh |= self.table_use.note(db, &t.name, write);
            }
            if !fresh || !locks.any_table_locks() {
                return Ok(());
            }
            let keys = tables.iter().map(|t| self.table_key(t)).collect::<Result<Vec<_>>>()?;
            let Some((key, draining, write_lock)) = locks.table_conflict(conn, &keys, write) else {
                return Ok(());
            };
            self.table_use.truncate(mark);
            // The LOCK TABLES waits for this transaction's earlier use: waiting for it would
            // never end (mysqld's MDL deadlock, ER_LOCK_DEADLOCK).
            if draining && self.table_use.blocks(&key, write_lock) {
                return Err(SqlError::Engine(engine::Error::Deadlock));
            }
            self.with_lock_wait(|w| locks.access_tables(conn, &keys, write, w))?;
        }
    }

    /// After a statement: an error that ends the transaction (1213 from [`Self::table_access`]
    /// comes before any row was touched) rolls it back; outside a transaction the session
    /// uses no table any more.
    pub(crate) fn end_table_use(&mut self, outcome: &Result<Output>) {
        if outcome.as_ref().is_err_and(|e| e.rolls_back_transaction()) {
            self.rollback_open();
        }
        if self.txn.is_none() {
            self.table_use.release();
        }
    }

    /// Leaves LOCK TABLES mode (UNLOCK TABLES, BEGIN, a new LOCK TABLES, disconnect).
    pub(crate) fn release_table_locks(&mut self) {
        if self.locked_tables.take().is_some() {
            self.server.locks.unlock_tables(self.connection_id);
        }
    }

    /// `LOCK TABLES t READ | WRITE, ...`: commits the open transaction, releases the
    /// session's previous table locks, checks each table exists (1146), then waits for the
    /// locks (a WRITE lock also waits out FTWRL).
    pub(crate) fn lock_tables(&mut self, tables: &[(TableRef, bool)]) -> Result<Output> {
        self.commit_open()?;
        self.release_table_locks();
        let mut list: Vec<(String, bool)> = Vec::with_capacity(tables.len());
        let mut tables = tables.to_vec();
        // A view locks the tables its SELECT reads too (mysqld's `open_tables` over a view in
        // LOCK TABLES mode), so statements over the view may run.
        for (t, write) in tables.clone() {
            if let Some(under) = self.view_base_tables(&t)? {
                tables.extend(under.into_iter().map(|u| (u, write)));
            }
        }
        for (t, write) in &tables {
            if self.lookup_view(t).is_none() {
                self.resolve_table(t)?;
            }
            let key = self.table_key(t)?;
            match list.iter_mut().find(|(k, _)| *k == key) {
                Some(e) => e.1 |= *write,
                None => list.push((key, *write)),
            }
        }
        if list.iter().any(|(_, w)| *w) {
            drop(self.enter_write()?);
        }
        let locks = self.server.locks.clone();
        let conn = self.connection_id;
        self.with_lock_wait(|w| locks.lock_tables(conn, &list, w))?;
        self.locked_tables = Some(list);
        Ok(Output::ok(0))
    }

    /// `FLUSH TABLES WITH READ LOCK`: commits the open transaction, blocks every other
    /// session's writes and commits, and returns once those in flight have ended (so all
    /// that is committed is visible); held until UNLOCK TABLES or disconnect. With tables:
    /// `LOCK TABLES t READ, ...` for those tables.
    pub(crate) fn flush_tables_with_read_lock(&mut self, tables: &[TableRef]) -> Result<Output> {
        if !tables.is_empty() {
            let list: Vec<(TableRef, bool)> = tables.iter().map(|t| (t.clone(), false)).collect();
            return self.lock_tables(&list);
        }
        if self.locked_tables.is_some() {
            return Err(SqlError::Other {
                code: 1192,
                sqlstate: "HY000",
                message: "Can't execute the given command because you have active locked \
                          tables or an active transaction"
                    .into(),
            });
        }
        self.commit_open()?;
        let locks = self.server.locks.clone();
        let conn = self.connection_id;
        self.with_lock_wait(|w| locks.global_read_lock(conn, w))?;
        Ok(Output::ok(0))
    }
}
