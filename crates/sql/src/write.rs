//! INSERT, REPLACE, UPDATE and DELETE.
//!
//! Every row change goes to the engine under its row lock and is recorded (with the stored
//! images read back from the engine, so they are exactly what a commit makes durable) for the
//! binlog cache and for statement undo. UPDATE and DELETE find candidates with a non-locking
//! read, then lock each row (`get_for_update`) and re-check the WHERE clause on the latest
//! image, as InnoDB's locking reads do: a row changed by a concurrent commit meanwhile is
//! judged on its new contents, so `k = k + 1` never loses an increment.

use std::ops::Bound;
use std::sync::Arc;

use engine::{ColumnType, Key, Row, TableId, TableSchema, Value};

use super::ast::{BinOp, Delete, Expr, Insert, OrderItem, Update};
use super::commit::{ChangeKind, ChangedRow};
use super::error::{Result, SqlError};
use super::eval::{engine_value_error, eval, to_column};
use super::exec::{count_value, fetch, key_value, matches, order_cmp, plan_access_in, Access};
use super::output::Output;
use super::session::{Session, Undo};

/// Where a table's rows are and how they look.
pub(crate) struct Target {
    pub(crate) id: TableId,
    pub(crate) schema: Arc<TableSchema>,
}

impl Session {
    fn target(&self, t: &super::ast::TableRef) -> Result<Target> {
        let (id, schema, _) = self.resolve_table(t)?;
        Ok(Target { id, schema })
    }

    /// The table a write statement of the query layer changes.
    pub(crate) fn write_target(&self, t: &super::ast::TableRef) -> Result<Target> {
        self.target(t)
    }

    /// The stored image of `key` as the open transaction sees it.
    fn image(&mut self, t: &Target, key: &[u8]) -> Result<Option<Row>> {
        let engine = self.server.engine.clone();
        let open = self.txn_mut()?;
        Ok(engine.get(&open.txn, t.id, key)?)
    }

    pub(crate) fn write_insert(
        &mut self,
        t: &Target,
        row: Row,
        row_no: u64,
    ) -> Result<(Key, Option<u64>)> {
        let mut row = row;
        let checked = !self.row_events && t.schema.checks.iter().any(|c| c.enforced);
        if self.view_check.is_some() || checked {
            // The row as it would be stored (NOT NULL's 1048, a value's range) before the view's
            // CHECK OPTION and the table's CHECK constraints, as mysqld fills the record before
            // `view_check_option` / `invoke_table_check_constraints`; normalizing is
            // idempotent, so the engine's own pass changes nothing more.
            t.schema
                .normalize_row(&mut row)
                .map_err(|e| engine_value_error(e, row_no, |c| cell_text(&t.schema, &row, c)))?;
            self.check_row(t.id, &t.schema, &row)?;
            self.view_check_row(t, &row)?;
        }
        let engine = self.server.engine.clone();
        let open = self.txn_mut()?;
        let proposed = row.clone();
        let ins = engine
            .insert(&mut open.txn, t.id, row)
            .map_err(|e| engine_value_error(e, row_no, |c| cell_text(&t.schema, &proposed, c)))?;
        let after = self.image(t, &ins.key)?;
        let fk_row = if t.schema.foreign_keys.is_empty() { None } else { after.clone() };
        self.record(
            ChangedRow { table: t.schema.clone(), kind: ChangeKind::Insert, before: None, after },
            Undo { table: t.id, key_after: Some(ins.key.clone()) },
        );
        // After the row is recorded (a failed check is undone with the statement), and after
        // it is written (a row may reference itself), as InnoDB checks.
        if let Some(row) = fk_row {
            self.fk_after_write(&t.schema, None, &row)?;
        }
        Ok((ins.key, ins.auto_inc))
    }

    /// Replaces the row at `key` (whose current image is `before`) with `row`.
    pub(crate) fn write_update(
        &mut self,
        t: &Target,
        key: &Key,
        before: Row,
        row: Row,
        row_no: u64,
    ) -> Result<()> {
        let engine = self.server.engine.clone();
        let new_key = if t.schema.primary_key.is_empty() {
            key.clone()
        } else {
            t.schema.key_of_values(
                &t.schema.primary_key,
                &t.schema.primary_key.iter().map(|&p| row[p].clone()).collect::<Vec<_>>(),
            )
        };
        // Normalized here, the row is the image the engine stores (normalizing is idempotent),
        // so it needs no read-back, and a refused value is quoted from it without a copy.
        let mut row = row;
        t.schema
            .normalize_row(&mut row)
            .map_err(|e| engine_value_error(e, row_no, |c| cell_text(&t.schema, &row, c)))?;
        self.check_row(t.id, &t.schema, &row)?;
        if self.view_check.is_some() {
            self.view_check_row(t, &row)?;
        }
        // Children of the row first (their referential actions), as InnoDB's
        // `row_upd_check_references_constraints`.
        self.fk_before_parent_change(&t.schema, &before, Some(&row), 0)?;
        let open = self.txn_mut()?;
        let stored = row.clone();
        let found = engine
            .update(&mut open.txn, t.id, key, row)
            .map_err(|e| engine_value_error(e, row_no, |c| cell_text(&t.schema, &stored, c)))?;
        let after = found.then_some(stored);
        let fk_rows = match &after {
            Some(a) if !t.schema.foreign_keys.is_empty() => Some((before.clone(), a.clone())),
            _ => None,
        };
        self.record(
            ChangedRow {
                table: t.schema.clone(),
                kind: ChangeKind::Update,
                before: Some(before),
                after,
            },
            Undo { table: t.id, key_after: Some(new_key) },
        );
        if let Some((b, a)) = fk_rows {
            self.fk_after_write(&t.schema, Some(&b), &a)?;
        }
        Ok(())
    }

    pub(crate) fn write_delete(&mut self, t: &Target, key: &Key, before: Row) -> Result<bool> {
        let engine = self.server.engine.clone();
        self.fk_before_parent_change(&t.schema, &before, None, 0)?;
        let open = self.txn_mut()?;
        if !engine.delete(&mut open.txn, t.id, key)? {
            return Ok(false);
        }
        self.record(
            ChangedRow {
                table: t.schema.clone(),
                kind: ChangeKind::Delete,
                before: Some(before),
                after: None,
            },
            Undo { table: t.id, key_after: None },
        );
        Ok(true)
    }

    pub(crate) fn insert(&mut self, ins: &Insert, params: &[Value]) -> Result<Output> {
        let _abort = super::temporal::AbortOnWarning::new(!ins.ignore);
        let t = self.target(&ins.table)?;
        let positions = insert_positions(&t.schema, &ins.columns)?;
        let on_dup = self.bind_on_duplicate(&t.schema, ins, &positions, params)?;
        // mysqld's `Sql_cmd_insert_values::prepare_inner`: every row has the first row's
        // width, and with no column list an empty first row (`VALUES ()`) means every column
        // takes its default; otherwise the width is the column list's (1136).
        let width = match ins.rows.first() {
            Some(r) if r.is_empty() && ins.columns.is_empty() => 0,
            _ => positions.len(),
        };
        let mut st = InsertCounts::default();
        for (i, exprs) in ins.rows.iter().enumerate() {
            let row_no = i as u64 + 1;
            if exprs.len() != width {
                return Err(SqlError::ValueCount(row_no));
            }
            let mut given: Vec<Option<Value>> = vec![None; t.schema.columns.len()];
            for (e, &p) in exprs.iter().zip(&positions) {
                if *e != Expr::Default {
                    let v = self.binder(Some(&t.schema), params, "field list").bind(e)?;
                    given[p] = Some(eval(&v, &[], &[])?);
                }
            }
            self.insert_row(&t, ins, &on_dup, given, row_no, &mut st)?;
        }
        let info = if ins.rows.len() > 1 { st.info(ins.rows.len(), self) } else { String::new() };
        Ok(st.output(self, info))
    }

    /// The ON DUPLICATE KEY UPDATE assignments bound over the table's row: (column, value).
    /// `VALUES(c)` and the row alias's names (`new.c`, a column alias `x` of `AS new(x, ..)`)
    /// stay [`Expr::InsertValue`] of the proposed row's column, replaced per row.
    pub(crate) fn bind_on_duplicate(
        &self,
        schema: &Arc<TableSchema>,
        ins: &Insert,
        positions: &[usize],
        params: &[Value],
    ) -> Result<Vec<(usize, Expr)>> {
        let mut out = Vec::with_capacity(ins.on_duplicate.len());
        for (name, e) in &ins.on_duplicate {
            let p = schema.column_position(name).ok_or_else(|| SqlError::UnknownColumn {
                column: name.clone(),
                context: "field list",
            })?;
            let e = match &ins.row_alias {
                Some((alias, cols)) => {
                    if !cols.is_empty() && cols.len() != positions.len() {
                        return Err(SqlError::ValueCount(1));
                    }
                    row_alias_names(e, schema, alias, cols, positions)
                }
                None => e.clone(),
            };
            out.push((p, self.binder(Some(schema), params, "field list").bind(&e)?));
        }
        Ok(out)
    }

    /// Inserts one proposed row (`given`: the values given per column, None for a default),
    /// with REPLACE, IGNORE and ON DUPLICATE KEY UPDATE handling the duplicate-key errors, as
    /// mysqld's `write_record` (sql_insert.cc).
    pub(crate) fn insert_row(
        &mut self,
        t: &Target,
        ins: &Insert,
        on_dup: &[(usize, Expr)],
        mut given: Vec<Option<Value>>,
        row_no: u64,
        st: &mut InsertCounts,
    ) -> Result<()> {
        let schema = t.schema.clone();
        let auto_col = schema.auto_increment_column();
        st.records += 1;
        let mut row = Vec::with_capacity(schema.columns.len());
        for (p, col) in schema.columns.iter().enumerate() {
            let v = match given[p].take() {
                Some(v) => to_column(v, col, row_no)?,
                None if col.auto_increment => Value::Null,
                None if col.default_now => super::temporal::current_for(col, row_no)?,
                None => match &col.default {
                    Some(d) => d.clone(),
                    None if col.nullable => Value::Null,
                    None => return Err(SqlError::NoDefault(col.name.clone())),
                },
            };
            row.push(v);
        }
        if let (Some(a), Some(Value::Int(n))) = (auto_col, auto_col.map(|a| &row[a])) {
            if *n < 0 {
                return Err(SqlError::OutOfRange {
                    column: schema.columns[a].name.clone(),
                    row: row_no,
                });
            }
        }
        loop {
            let mark = self.txn.as_ref().map_or(0, |o| o.changes.changes.len());
            match self.write_insert(t, row.clone(), row_no) {
                Ok((_, auto)) => {
                    st.affected += 1;
                    if st.first_auto.is_none() {
                        st.first_auto = auto;
                    }
                    return Ok(());
                }
                Err(SqlError::Engine(engine::Error::DupEntry { entry, key })) => {
                    let dup = engine::Error::DupEntry { entry, key: key.clone() };
                    if !ins.replace && on_dup.is_empty() {
                        if ins.ignore {
                            self.warnings.push(super::session::Warning {
                                level: "Warning",
                                code: 1062,
                                message: dup.to_string(),
                            });
                            st.duplicates += 1;
                            return Ok(());
                        }
                        return Err(SqlError::Engine(dup));
                    }
                    let Some((old_key, old)) = self.conflicting(t, &key, &row)? else {
                        return Err(SqlError::Engine(dup));
                    };
                    st.duplicates += 1;
                    if ins.replace {
                        self.write_delete(t, &old_key, old)?;
                        st.affected += 1;
                        continue;
                    }
                    let mut new = old.clone();
                    for (p, bound) in on_dup {
                        let bound = substitute_insert_values(bound.clone(), &row);
                        new[*p] = to_column(eval(&bound, &new, &[])?, &schema.columns[*p], row_no)?;
                    }
                    if !same_values(&old, &new) {
                        let assigned = |i: usize| on_dup.iter().any(|(p, _)| *p == i);
                        super::temporal::touch_on_update(
                            &schema.columns,
                            &mut new,
                            &assigned,
                            row_no,
                        )?;
                        match self.write_update(t, &old_key, old, new, row_no) {
                            Ok(()) => st.affected += 2,
                            // IGNORE: an update that would duplicate another key is skipped.
                            Err(SqlError::Engine(e @ engine::Error::DupEntry { .. }))
                                if ins.ignore =>
                            {
                                self.warnings.push(super::session::Warning {
                                    level: "Warning",
                                    code: 1062,
                                    message: e.to_string(),
                                });
                            }
                            // IGNORE: so is one a foreign key refuses (below).
                            Err(e) if ins.ignore && refused_row(&e) => {
                                self.skip_refused_row(mark, &e)?;
                            }
                            Err(e) => return Err(e),
                        }
                    } else if self.found_rows {
                        // CLIENT_FOUND_ROWS: an unchanged duplicate counts as found (1).
                        st.affected += 1;
                    }
                    return Ok(());
                }
                // IGNORE: a row refused by a foreign key (1452, or 1451 for the parent rows a
                // REPLACE or ODKU would change) is skipped with a warning.
                Err(e) if ins.ignore && refused_row(&e) => {
                    self.skip_refused_row(mark, &e)?;
                    return Ok(());
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// IGNORE's answer to a row a foreign key refuses ([`refused_row`]): what the row changed
    /// since `mark` (cascades included) is undone and the error becomes a warning, as mysqld
    /// 8.0's `ignore_error_handler` downgrades ER_NO_REFERENCED_ROW_2 and
    /// ER_ROW_IS_REFERENCED_2 (INSERT/UPDATE/DELETE IGNORE, single- and multi-table).
    pub(crate) fn skip_refused_row(&mut self, mark: usize, e: &SqlError) -> Result<()> {
        self.undo_statement(mark)?;
        self.warnings.push(super::session::Warning {
            level: "Warning",
            code: e.code(),
            message: e.to_string(),
        });
        Ok(())
    }

    /// The row a duplicate-key error collided with, locked.
    fn conflicting(
        &mut self,
        t: &Target,
        key_name: &str,
        row: &[Value],
    ) -> Result<Option<(Key, Row)>> {
        let engine = self.server.engine.clone();
        let key = if key_name == "PRIMARY" {
            t.schema.key_of_values(
                &t.schema.primary_key,
                &t.schema.primary_key.iter().map(|&p| row[p].clone()).collect::<Vec<_>>(),
            )
        } else {
            let Some(i) = t.schema.index(key_name) else { return Ok(None) };
            let vals: Vec<Value> =
                t.schema.indexes[i].columns.iter().map(|&p| row[p].clone()).collect();
            let open = self.txn_mut()?;
            let found = engine.scan_index(
                &open.txn,
                t.id,
                key_name,
                Bound::Included(&vals),
                Bound::Included(&vals),
                1,
            )?;
            match found.into_iter().next() {
                Some((k, _)) => k,
                None => return Ok(None),
            }
        };
        let open = self.txn_mut()?;
        Ok(engine.get_for_update(&mut open.txn, t.id, &key)?.map(|r| (key, r)))
    }

    /// The bound ORDER BY of a single-table UPDATE/DELETE (mysqld's `Sql_cmd_update` /
    /// `Sql_cmd_delete` with `order`): expressions over the table's columns.
    fn bind_order(
        &self,
        schema: &Arc<TableSchema>,
        alias: Option<&String>,
        order_by: &[OrderItem],
        params: &[Value],
    ) -> Result<Vec<(Expr, bool)>> {
        let mut b = self.binder(Some(schema), params, "order clause").with_alias(alias);
        order_by.iter().map(|o| Ok((b.bind(&o.expr)?, o.desc))).collect()
    }

    /// Locked rows matching a bound WHERE clause, in key order (or `order`, mysqld's filesort
    /// before the LIMIT), at most `limit`.
    fn locked_matches(
        &mut self,
        t: &Target,
        filter: Option<&Expr>,
        order: &[(Expr, bool)],
        limit: Option<u64>,
    ) -> Result<Vec<(Key, Row)>> {
        let engine = self.server.engine.clone();
        let access = plan_access_in(&engine, t.id, &t.schema, filter);
        let keys: Vec<Key> = match &access {
            // Point access: lock directly, no read before the lock.
            Access::Keys(keys) if order.is_empty() => {
                keys.iter().map(|k| t.schema.key_of_values(&t.schema.primary_key, k)).collect()
            }
            _ if !order.is_empty() => {
                // Candidates read without locks, sorted, then locked in that order and
                // re-checked (a row changed meanwhile is judged on its new image).
                let open = self.txn_mut()?;
                let mut found = Vec::new();
                for (k, r) in fetch(&engine, &open.txn, t.id, &access, usize::MAX)? {
                    if matches(filter, &r)? {
                        let sort: Vec<Value> =
                            order.iter().map(|(e, _)| eval(e, &r, &[])).collect::<Result<_>>()?;
                        found.push((k, sort));
                    }
                }
                found.sort_by(|(_, a), (_, b)| {
                    for (i, (_, desc)) in order.iter().enumerate() {
                        let o = order_cmp(&a[i], &b[i]);
                        if o != std::cmp::Ordering::Equal {
                            return if *desc { o.reverse() } else { o };
                        }
                    }
                    std::cmp::Ordering::Equal
                });
                found.into_iter().map(|(k, _)| k).collect()
            }
            _ => {
                let open = self.txn_mut()?;
                fetch(&engine, &open.txn, t.id, &access, usize::MAX)?
                    .into_iter()
                    .filter_map(|(k, r)| match matches(filter, &r) {
                        Ok(true) => Some(Ok(k)),
                        Ok(false) => None,
                        Err(e) => Some(Err(e)),
                    })
                    .collect::<Result<_>>()?
            }
        };
        let limit = limit.map_or(usize::MAX, |l| usize::try_from(l).unwrap_or(usize::MAX));
        let mut out = Vec::new();
        for k in keys {
            if out.len() >= limit {
                break;
            }
            let open = self.txn_mut()?;
            if let Some(r) = engine.get_for_update(&mut open.txn, t.id, &k)? {
                if matches(filter, &r)? {
                    out.push((k, r));
                }
            }
        }
        Ok(out)
    }

    pub(crate) fn update(&mut self, u: &Update, params: &[Value]) -> Result<Output> {
        let _abort = super::temporal::AbortOnWarning::new(true);
        let t = self.target(&u.table)?;
        if let Some(out) = self.update_point(&t, u, params)? {
            return Ok(out);
        }
        let schema = t.schema.clone();
        let mut sets = Vec::with_capacity(u.set.len());
        {
            let mut b =
                self.binder(Some(&schema), params, "field list").with_alias(u.alias.as_ref());
            for (name, e) in &u.set {
                let p = schema.column_position(name).ok_or_else(|| SqlError::UnknownColumn {
                    column: name.clone(),
                    context: "field list",
                })?;
                sets.push((p, b.bind(e)?));
            }
        }
        let filter = {
            let mut b =
                self.binder(Some(&schema), params, "where clause").with_alias(u.alias.as_ref());
            u.filter.as_ref().map(|f| b.bind(f)).transpose()?
        };
        let limit = u.limit.as_ref().map(|l| count_value(self, l, params)).transpose()?;
        let order = self.bind_order(&schema, u.alias.as_ref(), &u.order_by, params)?;
        let rows = self.locked_matches(&t, filter.as_ref(), &order, limit)?;
        let (matched, mut changed) = (rows.len() as u64, 0u64);
        for (i, (key, old)) in rows.into_iter().enumerate() {
            let row_no = i as u64 + 1;
            // Assignments see the columns as already assigned, left to right (MySQL).
            let mut new = old.clone();
            for (p, e) in &sets {
                new[*p] = to_column(eval(e, &new, &[])?, &schema.columns[*p], row_no)?;
            }
            if !same_values(&old, &new) {
                let assigned = |i: usize| sets.iter().any(|(p, _)| *p == i);
                super::temporal::touch_on_update(&schema.columns, &mut new, &assigned, row_no)?;
                self.write_update(&t, &key, old, new, row_no)?;
                changed += 1;
            }
        }
        Ok(Output::updated(matched, changed, self.found_rows, self.warning_count()))
    }

    pub(crate) fn delete(&mut self, d: &Delete, params: &[Value]) -> Result<Output> {
        let t = self.target(&d.table)?;
        if d.order_by.is_empty() && d.limit.is_none() {
            if let Some(point) = point_key(&t.schema, d.filter.as_ref(), params) {
                let mut deleted = 0;
                if let Some((key, old)) = self.lock_point(&t, &point)? {
                    if self.write_delete(&t, &key, old)? {
                        deleted += 1;
                    }
                }
                return Ok(Output::ok(deleted));
            }
        }
        let schema = t.schema.clone();
        let filter = {
            let mut b =
                self.binder(Some(&schema), params, "where clause").with_alias(d.alias.as_ref());
            d.filter.as_ref().map(|f| b.bind(f)).transpose()?
        };
        let limit = d.limit.as_ref().map(|l| count_value(self, l, params)).transpose()?;
        let order = self.bind_order(&schema, d.alias.as_ref(), &d.order_by, params)?;
        let rows = self.locked_matches(&t, filter.as_ref(), &order, limit)?;
        let mut deleted = 0;
        for (key, old) in rows {
            if self.write_delete(&t, &key, old)? {
                deleted += 1;
            }
        }
        Ok(Output::ok(deleted))
    }
}

/// The fast path's view of `WHERE pk = value`: the one integer primary-key column, the value
/// as the statement gave it, and the same value as a key (exactly as the general path's
/// `plan_access` would convert it).
struct PointKey<'a> {
    column: usize,
    given: &'a Value,
    key: Value,
}

/// A literal or a bound parameter: the only SET / WHERE operands the fast paths take.
fn operand<'a>(e: &'a Expr, params: &'a [Value]) -> Option<&'a Value> {
    match e {
        Expr::Param(i) => params.get(*i),
        Expr::Lit(v) => Some(v),
        _ => None,
    }
}

/// `WHERE pk = ?` (or a literal) on a table whose primary key is one integer column, with an
/// integer value that is a valid key: the shape of sysbench's and most OLTP point writes.
/// None for anything else (qualified names, NULL, strings, other operators, out-of-range
/// values, multi-column keys): the general binder and planner take those, with their exact
/// conversions and errors.
fn point_key<'a>(
    schema: &TableSchema,
    filter: Option<&'a Expr>,
    params: &'a [Value],
) -> Option<PointKey<'a>> {
    let &[column] = schema.primary_key.as_slice() else { return None };
    let ty @ ColumnType::Integer { .. } = schema.columns[column].ty else { return None };
    let Some(Expr::Binary(BinOp::Eq, l, r)) = filter else { return None };
    let Expr::Name { table: None, column: name } = l.as_ref() else { return None };
    if schema.column_position(name) != Some(column) {
        return None;
    }
    let given = operand(r, params)?;
    if !matches!(given, Value::Int(_) | Value::UInt(_)) {
        return None;
    }
    let key = key_value(given, ty)?;
    Some(PointKey { column, given, key })
}

impl Session {
    /// The fast path of a point UPDATE / DELETE: locks the row at `point` and returns it if the
    /// WHERE clause holds on its latest image, as `locked_matches` does for `Access::Keys` (no
    /// binder, planner or key vectors per execution).
    fn lock_point(&mut self, t: &Target, point: &PointKey<'_>) -> Result<Option<(Key, Row)>> {
        let engine = self.server.engine.clone();
        let key = t.schema.key_of_values(&t.schema.primary_key, std::slice::from_ref(&point.key));
        let open = self.txn_mut()?;
        let Some(row) = engine.get_for_update(&mut open.txn, t.id, &key)? else { return Ok(None) };
        // The row found under the key holds the key's value, so `pk = value` holds; anything
        // else is judged by the general evaluator, as the general path judges it.
        if row.get(point.column) != Some(&point.key) {
            let filter = Expr::Binary(
                BinOp::Eq,
                Box::new(Expr::Col(point.column)),
                Box::new(Expr::Lit(point.given.clone())),
            );
            if !matches(Some(&filter), &row)? {
                return Ok(None);
            }
        }
        Ok(Some((key, row)))
    }

    /// `UPDATE t SET c = ?, ... WHERE pk = ?` with literal or parameter values (a prepared
    /// statement's hot shape): the same row lock, conversions (`to_column`), row change,
    /// binlog row image and answer as [`Session::update`]'s general path, without binding the
    /// expressions and planning the access per execution. None, having done nothing, when the
    /// statement has another shape.
    fn update_point(&mut self, t: &Target, u: &Update, params: &[Value]) -> Result<Option<Output>> {
        if u.limit.is_some() || !u.order_by.is_empty() {
            return Ok(None);
        }
        let Some(point) = point_key(&t.schema, u.filter.as_ref(), params) else { return Ok(None) };
        let mut sets = Vec::with_capacity(u.set.len());
        for (name, e) in &u.set {
            let (Some(p), Some(v)) = (t.schema.column_position(name), operand(e, params)) else {
                return Ok(None);
            };
            sets.push((p, v));
        }
        let (mut matched, mut changed) = (0u64, 0u64);
        if let Some((key, old)) = self.lock_point(t, &point)? {
            matched = 1;
            // The old image, less the assigned columns' values (copying them would be wasted).
            let mut new: Row = old
                .iter()
                .enumerate()
                .map(
                    |(i, v)| {
                        if sets.iter().any(|&(p, _)| p == i) {
                            Value::Null
                        } else {
                            v.clone()
                        }
                    },
                )
                .collect();
            for &(p, v) in &sets {
                new[p] = to_column(v.clone(), &t.schema.columns[p], 1)?;
            }
            if !same_values(&old, &new) {
                let assigned = |i: usize| sets.iter().any(|&(p, _)| p == i);
                super::temporal::touch_on_update(&t.schema.columns, &mut new, &assigned, 1)?;
                self.write_update(t, &key, old, new, 1)?;
                changed = 1;
            }
        }
        Ok(Some(Output::updated(matched, changed, self.found_rows, self.warning_count())))
    }
}

/// The table positions an INSERT's column list names (all columns in order when empty):
/// 1054 for an unknown column, 1110 for one named twice.
pub(crate) fn insert_positions(schema: &TableSchema, columns: &[String]) -> Result<Vec<usize>> {
    if columns.is_empty() {
        return Ok((0..schema.columns.len()).collect());
    }
    let mut v = Vec::with_capacity(columns.len());
    for c in columns {
        let p = schema
            .column_position(c)
            .ok_or_else(|| SqlError::UnknownColumn { column: c.clone(), context: "field list" })?;
        if v.contains(&p) {
            return Err(SqlError::ColumnTwice(c.clone()));
        }
        v.push(p);
    }
    Ok(v)
}

/// What an INSERT did so far: its answer's counts.
#[derive(Default)]
pub(crate) struct InsertCounts {
    pub(crate) records: u64,
    pub(crate) affected: u64,
    pub(crate) duplicates: u64,
    pub(crate) first_auto: Option<u64>,
}

impl InsertCounts {
    /// mysqld's ER_INSERT_INFO line.
    pub(crate) fn info(&self, records: usize, sess: &Session) -> String {
        format!(
            "Records: {records}  Duplicates: {}  Warnings: {}",
            self.duplicates,
            sess.warning_count()
        )
    }

    /// The OK answer (and LAST_INSERT_ID() set from the first generated value).
    pub(crate) fn output(&self, sess: &mut Session, info: String) -> Output {
        if let Some(a) = self.first_auto {
            sess.last_insert_id = a;
        }
        Output::Ok {
            affected_rows: self.affected,
            last_insert_id: self.first_auto.unwrap_or(0),
            info,
            warnings: sess.warning_count(),
        }
    }
}

/// True if a row's new image stores what the old one does, so the update changes nothing
/// (mysqld's `compare_records` compares the stored records): numbers by value (an INT
/// UNSIGNED column's 2 may come as `Int` or `UInt`, a DECIMAL's 1.5 as 1.50), NULL equal to
/// NULL, strings byte for byte.
pub(crate) fn same_values(old: &[Value], new: &[Value]) -> bool {
    use super::eval::compare;
    let numeric = |v: &Value| matches!(v, Value::Int(_) | Value::UInt(_) | Value::Decimal(_));
    old.len() == new.len()
        && old.iter().zip(new).all(|(a, b)| {
            if numeric(a) && numeric(b) {
                compare(a, b) == Some(std::cmp::Ordering::Equal)
            } else {
                a == b
            }
        })
}

/// Replaces `VALUES(col)` by the value the INSERT proposed for `col`.
fn substitute_insert_values(e: Expr, proposed: &[Value]) -> Expr {
    match e {
        Expr::InsertValue(x) => match *x {
            Expr::Col(p) => Expr::Lit(proposed.get(p).cloned().unwrap_or(Value::Null)),
            other => other,
        },
        Expr::Binary(op, a, b) => Expr::Binary(
            op,
            Box::new(substitute_insert_values(*a, proposed)),
            Box::new(substitute_insert_values(*b, proposed)),
        ),
        Expr::Unary(op, a) => Expr::Unary(op, Box::new(substitute_insert_values(*a, proposed))),
        Expr::Func(f, args) => {
            Expr::Func(f, args.into_iter().map(|a| substitute_insert_values(a, proposed)).collect())
        }
        other => other,
    }
}

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
pub(crate) fn map_names(e: &Expr, f: &dyn Fn(Option<&str>, &str) -> Option<Expr>) -> Expr {
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

/// The text of the value proposed for `column` (for 1366 messages).
fn cell_text(schema: &TableSchema, row: &[Value], column: &str) -> String {
    schema
        .column_position(column)
        .and_then(|p| row.get(p))
        .map(|v| match v {
            Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
            v => v.to_string(),
        })
        .unwrap_or_default()
}

/// Whether `e` refuses one row, which IGNORE skips with a warning (mysqld 8.0's
/// `ignore_error_handler`): a foreign key's 1452 (a child's new values reference no parent)
/// or 1451 (a parent's referenced values would change), or a CHECK constraint's 3819.
pub(crate) fn refused_row(e: &SqlError) -> bool {
    matches!(e.code(), 1451 | 1452 | 3819)
}

#[cfg(test)]
mod tests {
    use engine::{Column, ColumnType, TableSchema, Value};

    use super::super::ast::Stmt;
    use super::super::parse::parse;
    use super::point_key;

    fn schema() -> TableSchema {
        let int = ColumnType::Integer { bytes: 4, unsigned: false };
        TableSchema::new(
            "d.t",
            vec![
                Column::new("id", int).not_null(),
                Column::new("k", int),
                Column::new("c", ColumnType::Char(10)),
            ],
            vec![0],
        )
    }

    /// (key column, key value) the fast path would use for `sql`'s WHERE clause, if any.
    fn key_of(schema: &TableSchema, sql: &str, params: &[Value]) -> Option<(usize, Value)> {
        let parsed = parse(sql).expect("parses");
        let filter = match &parsed.stmt {
            Stmt::Update(u) => u.filter.clone(),
            Stmt::Delete(d) => d.filter.clone(),
            other => panic!("{other:?}"),
        };
        point_key(schema, filter.as_ref(), params).map(|p| (p.column, p.key))
    }

    #[test]
    fn only_the_point_shape_takes_the_fast_path() {
        let s = schema();
        let one = [Value::Int(7)];
        assert_eq!(key_of(&s, "DELETE FROM t WHERE id = ?", &one), Some((0, Value::Int(7))));
        assert_eq!(key_of(&s, "DELETE FROM t WHERE ID = 7", &[]), Some((0, Value::Int(7))));
        assert_eq!(
            key_of(&s, "UPDATE t SET c = ? WHERE id = ?", &[Value::Null, Value::UInt(7)]),
            Some((0, Value::Int(7)))
        );
        for (sql, params) in [
            ("DELETE FROM t WHERE id = ? AND 1 = 1", &one[..]),
            ("DELETE FROM t WHERE id = ? + 0", &one),
            ("DELETE FROM t WHERE ? = id", &one),
            ("DELETE FROM t WHERE t.id = ?", &one),
            ("DELETE FROM t WHERE k = ?", &one),
            ("DELETE FROM t WHERE id <=> ?", &one),
            ("DELETE FROM t WHERE id IN (?)", &one),
            ("DELETE FROM t", &[]),
            ("DELETE FROM t WHERE id = ?", &[Value::Null]),
            ("DELETE FROM t WHERE id = ?", &[Value::Bytes(b"7".to_vec())]),
            ("DELETE FROM t WHERE id = ?", &[Value::Double(7.0)]),
            ("DELETE FROM t WHERE id = ?", &[Value::UInt(u64::MAX)]),
            ("DELETE FROM t WHERE id = ?", &[]),
        ] {
            assert_eq!(key_of(&s, sql, params), None, "{sql} {params:?}");
        }
        // A key of two columns, or of a non-integer column: the general path.
        let mut two = schema();
        two.primary_key = vec![0, 1];
        assert_eq!(key_of(&two, "DELETE FROM t WHERE id = ?", &one), None);
        let mut text = schema();
        text.primary_key = vec![2];
        assert_eq!(key_of(&text, "DELETE FROM t WHERE c = ?", &one), None);
    }
}
