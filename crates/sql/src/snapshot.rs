//! Consistent reads of a session: which read view a statement reads through (per the
//! transaction's isolation level, `isolation.rs`), locking reads, `START TRANSACTION WITH
//! CONSISTENT SNAPSHOT` and the binlog position its view matches, `SET TRANSACTION`.
//!
//! mysqld's counterparts: `trans_begin` + `innobase_start_trx_and_assign_read_view` (WITH
//! CONSISTENT SNAPSHOT), `row_search_mvcc` (a consistent read assigns the view if the
//! transaction has none; READ COMMITTED closes it at the statement end), and
//! `ha_innobase::store_lock` (SERIALIZABLE turns a plain SELECT inside a transaction into a
//! locking read). The binlog position of the view is MariaDB's `binlog_snapshot_file` /
//! `binlog_snapshot_position` (`binlog_trx_data::...`, read under `LOCK_commit_ordered`): the
//! commit layer takes the view while no group publishes (`Coordinator::consistent_snapshot`).

use super::ast::{Expr, SetItem, VarScope};
use super::error::{Result, SqlError};
use super::isolation::Isolation;
use super::output::Output;
use super::session::{Session, Warning};
use super::vars::Var;
use engine::Value;

impl Session {
    /// The session's level (`transaction_isolation`), or the one `SET TRANSACTION` chose for
    /// the next transaction.
    pub(crate) fn isolation_for_new_txn(&self) -> Isolation {
        if let Some(i) = self.next_isolation {
            return i;
        }
        match &self.derived.statement {
            Some((g, d)) if *g == self.vars_generation() => d.isolation,
            _ => self.parse_isolation(),
        }
    }

    /// `transaction_isolation` read and parsed (session_vars.rs caches it per change).
    pub(crate) fn parse_isolation(&self) -> Isolation {
        let v = self.variable(Var::TransactionIsolation);
        let text = match &v {
            Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
            other => other.to_string(),
        };
        Isolation::parse(&text).unwrap_or(Isolation::RepeatableRead)
    }

    /// Sets up the open transaction's reads for one SELECT and says whether the SELECT must
    /// lock the rows it returns: `locking` (FOR UPDATE / FOR SHARE), or SERIALIZABLE inside
    /// a transaction. A single-row read in a statement's own transaction needs no view (one
    /// row is read atomically, and no later statement shares the transaction).
    pub(crate) fn prepare_select_reads(&mut self, locking: bool, single_row: bool) -> Result<bool> {
        let engine = self.server.engine.clone();
        let open = self.txn_mut()?;
        let lock = locking || (open.isolation == Isolation::Serializable && !open.single);
        open.txn.set_read_latest(lock);
        if lock {
            return Ok(true);
        }
        match open.isolation {
            Isolation::ReadUncommitted => {
                open.txn.set_read_uncommitted(true);
            }
            Isolation::ReadCommitted => {
                if !(open.single && single_row) {
                    open.txn.set_read_view(Some(engine.read_view()));
                }
            }
            Isolation::RepeatableRead | Isolation::Serializable => {
                if open.txn.read_view().is_none() && !(open.single && single_row) {
                    open.txn.set_read_view(Some(engine.read_view()));
                }
            }
        }
        Ok(false)
    }

    /// Ends a SELECT's read set-up: READ COMMITTED closes its statement's view (so an idle
    /// transaction holds back no purge), locking reads end.
    pub(crate) fn finish_select_reads(&mut self) {
        if let Some(open) = self.txn.as_mut() {
            open.txn.set_read_latest(false);
            if open.isolation == Isolation::ReadCommitted {
                open.txn.set_read_view(None);
            }
        }
    }

    /// Runs a data-changing statement with the reads it makes to find and check rows seeing
    /// the newest committed images, as InnoDB's UPDATE/DELETE (and the duplicate checks of
    /// INSERT) read: they lock what they read.
    pub(crate) fn latest_reads<T>(
        &mut self,
        f: impl FnOnce(&mut Session) -> Result<T>,
    ) -> Result<T> {
        let before = self.txn.as_mut().map(|o| o.txn.set_read_latest(true));
        let r = f(self);
        if let (Some(before), Some(open)) = (before, self.txn.as_mut()) {
            open.txn.set_read_latest(before);
        }
        r
    }

    /// `START TRANSACTION WITH CONSISTENT SNAPSHOT` (the open transaction already
    /// committed): a new transaction whose read view is taken now, with the binlog position
    /// and GTID set it matches. The view is REPEATABLE READ's only (mysqld: other levels
    /// ignore the phrase with warning 138); the position is recorded at every level, as
    /// MariaDB does.
    pub(crate) fn begin_consistent_snapshot(&mut self) -> Result<Output> {
        let mut open = self.new_txn();
        let engine = self.server.engine.clone();
        let mut view = None;
        let pos =
            self.server.hooks.admin.consistent_snapshot(&mut || view = Some(engine.read_view()));
        if open.isolation == Isolation::RepeatableRead {
            open.txn.set_read_view(view);
        } else {
            drop(view);
            self.warnings.push(Warning {
                level: "Warning",
                code: 138,
                message: "InnoDB: WITH CONSISTENT SNAPSHOT was ignored because this phrase can \
                          only be used with REPEATABLE READ isolation level."
                    .into(),
            });
        }
        open.binlog_snapshot = pos;
        self.txn = Some(open);
        Ok(Output::Ok {
            affected_rows: 0,
            last_insert_id: 0,
            info: String::new(),
            warnings: self.warning_count(),
        })
    }

    /// `SET [GLOBAL | SESSION] TRANSACTION ...`. Without a scope it applies to the next
    /// transaction only, and is refused inside one (1568, as mysqld).
    pub(crate) fn set_transaction(
        &mut self,
        scope: VarScope,
        isolation: Option<&'static str>,
        read_only: Option<bool>,
    ) -> Result<Output> {
        if scope == VarScope::Default {
            if self.txn.is_some() {
                return Err(SqlError::Other {
                    code: 1568,
                    sqlstate: "25001",
                    message: "Transaction characteristics can't be changed while a transaction \
                              is in progress"
                        .into(),
                });
            }
            if let Some(level) = isolation {
                self.next_isolation = Isolation::parse(level);
            }
            if read_only.is_some() {
                self.next_read_only = read_only;
            }
            return Ok(Output::ok(0));
        }
        let lit = |s: &str| Some(Expr::Lit(Value::Bytes(s.as_bytes().to_vec())));
        if let Some(level) = isolation {
            let item =
                SetItem::System { scope, name: "transaction_isolation".into(), value: lit(level) };
            self.set(&item, &[])?;
        }
        if let Some(ro) = read_only {
            let item = SetItem::System {
                scope,
                name: "transaction_read_only".into(),
                value: lit(if ro { "ON" } else { "OFF" }),
            };
            self.set(&item, &[])?;
        }
        Ok(Output::ok(0))
    }

    /// `Binlog_snapshot_file`, `Binlog_snapshot_position` and `Binlog_snapshot_gtid_executed`:
    /// inside a `WITH CONSISTENT SNAPSHOT` transaction the position its view matches,
    /// otherwise the current one (MariaDB's definition). None without a binary log.
    pub(crate) fn binlog_snapshot_status(&self) -> Vec<(String, String)> {
        let pos = match self.txn.as_ref().and_then(|o| o.binlog_snapshot.clone()) {
            Some(p) => Some(p),
            None => self.server.hooks.admin.master_status().ok().flatten(),
        };
        match pos {
            Some(p) => vec![
                ("Binlog_snapshot_file".into(), p.file),
                ("Binlog_snapshot_gtid_executed".into(), p.executed_gtid_set),
                ("Binlog_snapshot_position".into(), p.position.to_string()),
            ],
            None => Vec::new(),
        }
    }
}
