//! The query layer: SELECT over several tables (issue 20).
//!
//! A multi-table FROM is resolved into a [`Scope`] (the tables, their aliases and one joined
//! row of all their columns), the statement is bound over that row by the single-table binder
//! (`exec.rs`, names resolved through the scope), the WHERE and ON terms are planned into a
//! [`plan::JoinPlan`] (join order, per-table access, where each term is checked), the plan is
//! run by [`exec::run`] into joined rows, and those rows go through the same grouping,
//! aggregates, DISTINCT, ORDER BY and LIMIT code as a single-table SELECT
//! (`Session::finish_select`). Single-table statements never come here: they keep their own
//! path (`Session::select`).
//!
//! Why by hand: no maintained Rust crate plans SQL over a foreign storage engine with MySQL's
//! name resolution and errors (DataFusion and others bring their own type system and
//! semantics, not mysqld's).
//!
//! mysqld references: name resolution `find_field_in_tables` (sql_base.cc), join order
//! `JOIN::make_join_plan` (sql_optimizer.cc), execution `sub_select` (sql_executor.cc).

pub(crate) mod exec;
pub(crate) mod plan;

use engine::{Row, Value};

use crate::ast::{BinOp, Expr, JoinKind, Select, TableRef};
use crate::error::{Result, SqlError};
use crate::exec::count_value;
use crate::output::{Output, ResultColumn};
use crate::scope::{Scope, ScopeEntry};
use crate::session::Session;

/// A multi-table SELECT's scope, with the rows of its made-up tables and the statement with
/// USING/NATURAL turned into ON terms.
struct Prepared {
    scope: Scope,
    made_up: Vec<Option<Vec<Row>>>,
    select: Select,
    kinds: Vec<JoinKind>,
}

impl Session {
    fn join_scope(&self, s: &Select) -> Result<Prepared> {
        let Some(first) = &s.from else {
            return Err(SqlError::NotSupported("joins without a first table".into()));
        };
        let mut tables: Vec<(&TableRef, Option<&String>)> = vec![(first, s.alias.as_ref())];
        let mut kinds = vec![JoinKind::Inner];
        for (i, j) in s.joins.iter().enumerate() {
            if j.kind == JoinKind::Right && (i > 0 || j.natural || !j.using.is_empty()) {
                return Err(SqlError::NotSupported(
                    "RIGHT JOIN after other joins or with USING/NATURAL (write it as LEFT JOIN)"
                        .into(),
                ));
            }
            tables.push((&j.table, j.alias.as_ref()));
            kinds.push(j.kind);
        }
        let mut entries = Vec::with_capacity(tables.len());
        let mut made_up = Vec::with_capacity(tables.len());
        for (k, (t, alias)) in tables.iter().enumerate() {
            let nullable = match kinds.get(k) {
                Some(JoinKind::Left) => true,
                _ => k == 0 && kinds.get(1) == Some(&JoinKind::Right),
            };
            let (schema, db, table, rows) = match self.information_schema_table(t) {
                Some((schema, rows)) => {
                    (schema, "information_schema".to_string(), None, Some(rows))
                }
                None => {
                    let (id, schema, db) = self.resolve_table(t)?;
                    (schema, db, Some(id), None)
                }
            };
            entries.push(ScopeEntry {
                db,
                label: alias.cloned().unwrap_or_else(|| t.name.clone()),
                aliased: alias.is_some(),
                schema,
                offset: 0,
                merged: Vec::new(),
                nullable,
                table,
            });
            made_up.push(rows);
        }
        // USING / NATURAL: the shared columns, each an equality of the left table's column
        // (the first table before it having the name) and this table's.
        let mut select = s.clone();
        let mut using: Vec<Vec<String>> = vec![Vec::new()];
        for (i, j) in s.joins.iter().enumerate() {
            let k = i + 1;
            let mut names = j.using.clone();
            if j.natural {
                for c in &entries[k].schema.columns {
                    let seen =
                        entries[..k].iter().any(|e| e.schema.column_position(&c.name).is_some());
                    if seen {
                        names.push(c.name.clone());
                    }
                }
            }
            let mut on = j.on.clone();
            for n in &names {
                let Some(left) =
                    entries[..k].iter().find(|e| e.schema.column_position(n).is_some())
                else {
                    return Err(SqlError::UnknownColumn {
                        column: n.clone(),
                        context: "from clause",
                    });
                };
                let eq = Expr::Binary(
                    BinOp::Eq,
                    Box::new(Expr::Name { table: Some(left.label.clone()), column: n.clone() }),
                    Box::new(Expr::Name {
                        table: Some(entries[k].label.clone()),
                        column: n.clone(),
                    }),
                );
                on = Some(match on {
                    Some(e) => Expr::Binary(BinOp::And, Box::new(e), Box::new(eq)),
                    None => eq,
                });
            }
            select.joins[i].on = on;
            using.push(names);
        }
        let scope = Scope::new(entries, &using)?;
        Ok(Prepared { scope, made_up, select, kinds })
    }

    /// The result columns of a multi-table SELECT (for PREPARE).
    pub(crate) fn join_select_columns(&self, s: &Select) -> Result<Vec<ResultColumn>> {
        let p = self.join_scope(s)?;
        Ok(self.plan_select_in(&p.select, None, Some(&p.scope))?.columns)
    }

    /// Runs a multi-table SELECT.
    pub(crate) fn join_select(&mut self, s: &Select, params: &[Value]) -> Result<Output> {
        let p = self.join_scope(s)?;
        let mut sel = self.plan_select_in(&p.select, Some(params), Some(&p.scope))?;
        let limit = s.limit.as_ref().map(|l| count_value(self, l, params)).transpose()?;
        let offset =
            s.offset.as_ref().map(|o| count_value(self, o, params)).transpose()?.unwrap_or(0);
        let plan = plan::plan(
            &p.scope,
            &p.kinds,
            std::mem::take(&mut sel.join_on),
            sel.join_filter.take(),
        );
        let engine = self.server.engine.clone();
        let locking = self.prepare_select_reads(s.for_update, false)?;
        let rows = match self.txn_mut() {
            Ok(open) => {
                let mut reader = exec::Reader {
                    engine: &engine,
                    txn: &mut open.txn,
                    made_up: &p.made_up,
                    locking,
                };
                exec::run(&mut reader, &p.scope, &plan)
            }
            Err(e) => Err(e),
        };
        self.finish_select_reads();
        let rows = rows?;
        let width = p.scope.schema.columns.len();
        self.finish_select(sel, rows, width, s.distinct, limit, offset)
    }
}
