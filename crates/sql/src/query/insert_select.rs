//! `INSERT [IGNORE] | REPLACE INTO t [(cols)] SELECT ...` and the 8.0.19 row alias of
//! `INSERT ... VALUES (...) AS new [(x, ...)] ON DUPLICATE KEY UPDATE`.
//!
//! The SELECT runs first, to completion (mysqld materializes a SELECT that reads the target
//! table, `Query_result_insert` over a temporary table; reading all rows first gives every
//! source the same meaning), then each row goes through the one-row insert of `write.rs`
//! ([`Session::insert_row`]: REPLACE, IGNORE with warning 1062, ON DUPLICATE KEY UPDATE with
//! `VALUES(c)`), mysqld's `write_record` (sql_insert.cc). The source rows are read as a
//! locking read with shared locks: InnoDB takes shared next-key locks on INSERT ... SELECT's
//! source under REPEATABLE READ with the binlog on, so the rows a replica re-reads are the
//! ones the source read (MySQL manual, "Locks Set by Different SQL Statements in InnoDB").
//!
//! Invariants: a row the SELECT returns has as many values as the INSERT names columns
//! (1136 otherwise, before anything is written); the answer's info line is mysqld's
//! `Records: n  Duplicates: d  Warnings: w` for every INSERT ... SELECT.

use engine::{TableSchema, Value};

use crate::ast::{InsertSelect, Select};
use crate::error::{Result, SqlError};
use crate::output::Output;
use crate::session::Session;
use crate::write::{insert_positions, map_names, InsertCounts};

impl Session {
    /// mysqld resolves an ON DUPLICATE KEY UPDATE name of an INSERT ... SELECT against the
    /// target and the SELECT's tables both: an unqualified name both have is 1052 (a name
    /// only the SELECT's tables have is not supported here: 1054).
    fn ambiguous_on_duplicate(&self, is: &InsertSelect, target: &TableSchema) -> Result<()> {
        let mut tables = Vec::new();
        crate::ast::base_tables(&is.select, &mut tables);
        let sources: Vec<_> =
            tables.iter().filter_map(|t| self.resolve_table(t).ok().map(|(_, s, _)| s)).collect();
        let hit = std::cell::RefCell::new(None::<String>);
        for (_, e) in &is.insert.on_duplicate {
            map_names(e, &|table, column| {
                let both = target.column_position(column).is_some()
                    && sources.iter().any(|s| s.column_position(column).is_some());
                if table.is_none() && both {
                    hit.borrow_mut().get_or_insert_with(|| column.to_string());
                }
                None
            });
        }
        match hit.into_inner() {
            Some(c) => Err(SqlError::Other {
                code: 1052,
                sqlstate: "23000",
                message: format!("Column '{c}' in field list is ambiguous"),
            }),
            None => Ok(()),
        }
    }

    /// Runs an INSERT ... SELECT (see the module doc).
    pub(crate) fn insert_select(&mut self, is: &InsertSelect, params: &[Value]) -> Result<Output> {
        let ins = &is.insert;
        let _abort = crate::temporal::AbortOnWarning::new(!ins.ignore);
        let t = self.write_target(&ins.table)?;
        let positions = insert_positions(&t.schema, &ins.columns)?;
        self.ambiguous_on_duplicate(is, &t.schema)?;
        let on_dup = self.bind_on_duplicate(&t.schema, ins, &positions, params)?;
        let select = read_with_shared_locks(&is.select);
        // Query expressions and subqueries (correlated ones too) go through run_select.
        let out = self.run_select(&select, params);
        // The SELECT's read set-up ended its locking reads; the inserts' duplicate checks
        // read the newest rows again (`latest_reads`).
        if let Some(open) = self.txn.as_mut() {
            open.txn.set_read_latest(true);
        }
        let rows = match out? {
            Output::Rows { rows, .. } => rows,
            Output::Ok { .. } => return Err(SqlError::NotSupported("this INSERT source".into())),
        };
        let width = t.schema.columns.len();
        let mut st = InsertCounts::default();
        for (i, r) in rows.into_iter().enumerate() {
            let row_no = i as u64 + 1;
            if r.len() != positions.len() {
                return Err(SqlError::ValueCount(row_no));
            }
            let mut given: Vec<Option<Value>> = vec![None; width];
            for (v, &p) in r.into_iter().zip(&positions) {
                given[p] = Some(v);
            }
            self.insert_row(&t, ins, &on_dup, given, row_no, &mut st)?;
        }
        let info = st.info(st.records as usize, self);
        Ok(st.output(self, info))
    }
}

/// `select` made a locking read with shared locks (FOR SHARE) unless it locks already, as
/// InnoDB reads the source of INSERT ... SELECT and CREATE TABLE ... SELECT; in a query
/// expression each block reads as a single SELECT would.
pub(crate) fn read_with_shared_locks(select: &Select) -> Select {
    let mut select = select.clone();
    if !select.for_update && select.from.is_some() {
        select.for_update = true;
        select.for_share = true;
    }
    if let Some(q) = select.query_expr_mut() {
        for b in q.blocks_mut() {
            if !b.for_update && b.from.is_some() {
                b.for_update = true;
                b.for_share = true;
            }
        }
    }
    select
}
