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

use crate::ast::{Expr, InsertSelect};
use crate::error::{Result, SqlError};
use crate::output::Output;
use crate::session::Session;
use crate::write::{insert_positions, InsertCounts};

/// `e` with the row alias's names turned into `VALUES(c)` of the target's column: `alias.c`,
/// and with column aliases `alias.x` / a bare `x` for the alias's position in the column
/// list (`positions`). mysqld resolves these in `Sql_cmd_insert_base::prepare_values_table`.
pub(crate) fn row_alias_names(
    e: &Expr,
    schema: &TableSchema,
    alias: &str,
    cols: &[String],
    positions: &[usize],
) -> Expr {
    let target = |column: &str| -> Option<String> {
        if cols.is_empty() {
            return Some(column.to_string());
        }
        let k = cols.iter().position(|c| c.eq_ignore_ascii_case(column))?;
        positions.get(k).map(|&p| schema.columns[p].name.clone())
    };
    map_names(e, &|table, column| {
        let hit = match table {
            Some(t) if t.eq_ignore_ascii_case(alias) => target(column),
            None if !cols.is_empty() => target(column),
            _ => None,
        };
        hit.map(|c| Expr::InsertValue(Box::new(Expr::Name { table: None, column: c })))
    })
}

/// `e` with each `Name` that `f` maps replaced (other nodes copied; `VALUES(...)` is not
/// entered). The tree is bounded by the parser's depth limit (`crate::depth`).
fn map_names(e: &Expr, f: &dyn Fn(Option<&str>, &str) -> Option<Expr>) -> Expr {
    match e {
        Expr::Name { table, column } => f(table.as_deref(), column).unwrap_or_else(|| e.clone()),
        Expr::InsertValue(_) => e.clone(),
        _ => rebuild(e, f),
    }
}

/// One level of `e` rebuilt with [`map_names`] applied to its children; aggregates and
/// leaves are copied as they are.
fn rebuild(e: &Expr, f: &dyn Fn(Option<&str>, &str) -> Option<Expr>) -> Expr {
    use crate::ast::Expr as E;
    let m = |x: &Expr| Box::new(map_names(x, f));
    let v = |xs: &[Expr]| xs.iter().map(|x| map_names(x, f)).collect::<Vec<_>>();
    match e {
        E::Unary(op, x) => E::Unary(*op, m(x)),
        E::Binary(op, a, b) => E::Binary(*op, m(a), m(b)),
        E::IsNull { expr, negated } => E::IsNull { expr: m(expr), negated: *negated },
        E::Between { expr, low, high, negated } => {
            E::Between { expr: m(expr), low: m(low), high: m(high), negated: *negated }
        }
        E::InList { expr, list, negated } => {
            E::InList { expr: m(expr), list: v(list), negated: *negated }
        }
        E::Like { expr, pattern, negated } => {
            E::Like { expr: m(expr), pattern: m(pattern), negated: *negated }
        }
        E::Case { operand, whens, otherwise } => E::Case {
            operand: operand.as_ref().map(|o| m(o)),
            whens: whens.iter().map(|(w, t)| (map_names(w, f), map_names(t, f))).collect(),
            otherwise: otherwise.as_ref().map(|o| m(o)),
        },
        E::Func(func, args) => E::Func(*func, v(args)),
        E::Collate(x, c) => E::Collate(m(x), *c),
        E::Collated(c, x) => E::Collated(*c, m(x)),
        E::LikeEscape(x, c) => E::LikeEscape(m(x), *c),
        E::Str(sf, args) => E::Str(*sf, v(args)),
        // Leaves, and aggregates (not allowed in ON DUPLICATE KEY UPDATE; the binder says so).
        other => other.clone(),
    }
}

impl Session {
    /// Runs an INSERT ... SELECT (see the module doc).
    pub(crate) fn insert_select(&mut self, is: &InsertSelect, params: &[Value]) -> Result<Output> {
        let ins = &is.insert;
        let _abort = crate::temporal::AbortOnWarning::new(!ins.ignore);
        let t = self.write_target(&ins.table)?;
        let positions = insert_positions(&t.schema, &ins.columns)?;
        let on_dup = self.bind_on_duplicate(&t.schema, ins, &positions, params)?;
        let mut select = (*is.select).clone();
        if !select.for_update && select.from.is_some() {
            select.for_update = true;
            select.for_share = true;
        }
        let out = if select.is_multi() {
            self.join_select(&select, params)
        } else {
            self.select(&select, params)
        };
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
