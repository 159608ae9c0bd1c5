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
mod explain;
mod explain_union;
pub(crate) mod insert_select;
pub(crate) mod plan;
pub(crate) mod subquery;
pub(crate) mod union;
pub(crate) mod write;

use std::sync::Arc;

use engine::{ColumnType, Row, TableSchema, Value};

use crate::ast::{BinOp, Expr, JoinKind, Select, TableRef};
use crate::error::{Result, SqlError};
use crate::exec::count_value;
use crate::output::{Output, ResultColumn};
use crate::scope::{Scope, ScopeEntry};
use crate::session::Session;

/// A derived table's schema from its result columns: their types as the engine's column
/// types (TIMESTAMP as DATETIME: the values are already in the session's time zone), string
/// columns in their result collation.
pub(crate) fn derived_schema(name: &str, columns: &[ResultColumn]) -> TableSchema {
    use crate::output::{flags, MysqlType as M, CHARSET_BINARY};
    let cols = columns
        .iter()
        .map(|c| {
            let unsigned = c.flags & flags::UNSIGNED != 0;
            let binary = c.charset == CHARSET_BINARY;
            let int = |bytes| ColumnType::Integer { bytes, unsigned };
            let ty = match c.mysql_type {
                M::Tiny => int(1),
                M::Short => int(2),
                M::Int24 => int(3),
                M::Long => int(4),
                M::LongLong => int(8),
                M::Float => ColumnType::Float,
                M::Double => ColumnType::Double,
                M::NewDecimal => {
                    let digits = c
                        .length
                        .saturating_sub(u32::from(c.decimals > 0))
                        .saturating_sub(u32::from(!unsigned));
                    ColumnType::Decimal {
                        precision: u8::try_from(digits.clamp(1, 65)).unwrap_or(65),
                        scale: c.decimals.min(30),
                    }
                }
                M::Date => ColumnType::Date,
                M::Time => ColumnType::Time { fsp: c.decimals.min(6) },
                M::DateTime | M::Timestamp => ColumnType::DateTime { fsp: c.decimals.min(6) },
                M::Year => ColumnType::Year,
                M::Bit => ColumnType::Bit(u8::try_from(c.length.clamp(1, 64)).unwrap_or(64)),
                M::Json => ColumnType::Json,
                M::Blob if binary => ColumnType::Blob { len_bytes: 4 },
                M::Blob => ColumnType::SizedText { len_bytes: 4 },
                M::VarString | M::String | M::Null if binary => ColumnType::VarBinary(c.length),
                M::VarString | M::String | M::Null => ColumnType::VarChar(c.length / 4),
            };
            let mut col = engine::Column::new(&c.name, ty);
            if !binary && matches!(ty, ColumnType::VarChar(_) | ColumnType::SizedText { .. }) {
                col.collation = c.charset;
            }
            col.nullable = c.flags & flags::NOT_NULL == 0;
            col
        })
        .collect();
    TableSchema::new(name, cols, Vec::new())
}

/// A multi-table SELECT's scope, with the rows of its made-up tables and the statement with
/// USING/NATURAL turned into ON terms.
struct Prepared {
    scope: Scope,
    made_up: Vec<Option<Vec<Row>>>,
    select: Select,
    kinds: Vec<JoinKind>,
}

impl Session {
    /// The joined rows of `plan` over `p`'s scope, read in the session's transaction: locking
    /// reads set up as `prepare_select_reads(for_update)` asks (`shared`: S locks rather than
    /// X) and ended before returning, whatever the outcome.
    fn read_joined(
        &mut self,
        p: &Prepared,
        plan: &plan::JoinPlan,
        for_update: bool,
        shared: bool,
    ) -> Result<Vec<Row>> {
        let engine = self.server.engine.clone();
        let locking = self.prepare_select_reads(for_update, false)?;
        let rows = match self.txn_mut() {
            Ok(open) => {
                let mut reader = exec::Reader {
                    engine: &engine,
                    txn: &mut open.txn,
                    made_up: &p.made_up,
                    locking,
                    shared,
                };
                exec::run(&mut reader, &p.scope, plan)
            }
            Err(e) => Err(e),
        };
        self.finish_select_reads();
        rows
    }

    /// A derived table's result columns and (when executing) rows.
    fn derived_rows(
        &mut self,
        inner: &Select,
        params: Option<&[Value]>,
    ) -> Result<(Vec<ResultColumn>, Vec<Row>)> {
        let Some(params) = params else {
            let columns = self.run_select_columns(inner)?;
            return Ok((columns, Vec::new()));
        };
        let out = self.run_select(inner, params)?;
        match out {
            Output::Rows { columns, rows } => Ok((columns, rows)),
            Output::Ok { .. } => Err(SqlError::NotSupported("this derived table".into())),
        }
    }

    /// The scope of a multi-table SELECT; a derived table is run now (`params` Some) and its
    /// rows kept, or only typed (`params` None: PREPARE).
    fn join_scope(&mut self, s: &Select, params: Option<&[Value]>) -> Result<Prepared> {
        let Some(first) = &s.from else {
            return Err(SqlError::NotSupported("joins without a first table".into()));
        };
        let mut tables: Vec<(&TableRef, Option<&String>, Option<&Select>)> =
            vec![(first, s.alias.as_ref(), s.derived.as_deref())];
        let mut kinds = vec![JoinKind::Inner];
        for (i, j) in s.joins.iter().enumerate() {
            if j.kind == JoinKind::Right && (i > 0 || j.natural || !j.using.is_empty()) {
                return Err(SqlError::NotSupported(
                    "RIGHT JOIN after other joins or with USING/NATURAL (write it as LEFT JOIN)"
                        .into(),
                ));
            }
            tables.push((&j.table, j.alias.as_ref(), j.derived.as_deref()));
            kinds.push(j.kind);
        }
        let mut entries = Vec::with_capacity(tables.len());
        let mut made_up = Vec::with_capacity(tables.len());
        for (k, (t, alias, derived)) in tables.iter().enumerate() {
            let nullable = match kinds.get(k) {
                Some(JoinKind::Left) => true,
                _ => k == 0 && kinds.get(1) == Some(&JoinKind::Right),
            };
            let (schema, db, table, rows) = if let Some(inner) = derived {
                let (columns, rows) = self.derived_rows(inner, params)?;
                (Arc::new(derived_schema(&t.name, &columns)), String::new(), None, Some(rows))
            } else {
                match self.information_schema_table(t) {
                    Some((schema, rows)) => {
                        (schema, "information_schema".to_string(), None, Some(rows))
                    }
                    None => {
                        let (id, schema, db) = self.resolve_table(t)?;
                        (schema, db, Some(id), None)
                    }
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
        let scope = Scope::new(entries, &using, self.server.names_case_sensitive())?;
        Ok(Prepared { scope, made_up, select, kinds })
    }

    /// The result columns of a multi-table SELECT (for PREPARE).
    pub(crate) fn join_select_columns(&mut self, s: &Select) -> Result<Vec<ResultColumn>> {
        let p = self.join_scope(s, None)?;
        Ok(self.plan_select_in(&p.select, None, Some(&p.scope))?.columns)
    }

    /// Runs a multi-table SELECT.
    pub(crate) fn join_select(&mut self, s: &Select, params: &[Value]) -> Result<Output> {
        let p = self.join_scope(s, Some(params))?;
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
        // FOR UPDATE takes X locks; FOR SHARE and SERIALIZABLE's plain reads S.
        let rows = self.read_joined(&p, &plan, s.for_update, !s.for_update || s.for_share)?;
        let width = p.scope.schema.columns.len();
        self.finish_select(sel, rows, width, s.distinct, limit, offset)
    }
}
