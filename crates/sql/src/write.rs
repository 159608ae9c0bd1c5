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
        let engine = self.server.engine.clone();
        let open = self.txn_mut()?;
        let proposed = row.clone();
        let ins = engine
            .insert(&mut open.txn, t.id, row)
            .map_err(|e| engine_value_error(e, row_no, |c| cell_text(&t.schema, &proposed, c)))?;
        let after = self.image(t, &ins.key)?;
        self.record(
            ChangedRow { table: t.schema.clone(), kind: ChangeKind::Insert, before: None, after },
            Undo { table: t.id, key_after: Some(ins.key.clone()) },
        );
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
        let open = self.txn_mut()?;
        // Normalized here, the row is the image the engine stores (normalizing is idempotent),
        // so it needs no read-back, and a refused value is quoted from it without a copy.
        let mut row = row;
        t.schema
            .normalize_row(&mut row)
            .map_err(|e| engine_value_error(e, row_no, |c| cell_text(&t.schema, &row, c)))?;
        let stored = row.clone();
        let found = engine
            .update(&mut open.txn, t.id, key, row)
            .map_err(|e| engine_value_error(e, row_no, |c| cell_text(&t.schema, &stored, c)))?;
        let after = found.then_some(stored);
        self.record(
            ChangedRow {
                table: t.schema.clone(),
                kind: ChangeKind::Update,
                before: Some(before),
                after,
            },
            Undo { table: t.id, key_after: Some(new_key) },
        );
        Ok(())
    }

    pub(crate) fn write_delete(&mut self, t: &Target, key: &Key, before: Row) -> Result<bool> {
        let engine = self.server.engine.clone();
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
        let schema = t.schema.clone();
        let positions: Vec<usize> = if ins.columns.is_empty() {
            (0..schema.columns.len()).collect()
        } else {
            let mut v = Vec::with_capacity(ins.columns.len());
            for c in &ins.columns {
                let p = schema.column_position(c).ok_or_else(|| SqlError::UnknownColumn {
                    column: c.clone(),
                    context: "field list",
                })?;
                if v.contains(&p) {
                    return Err(SqlError::ColumnTwice(c.clone()));
                }
                v.push(p);
            }
            v
        };
        let mut affected = 0u64;
        let mut duplicates = 0u64;
        let mut first_auto = None;
        let auto_col = schema.auto_increment_column();
        for (i, exprs) in ins.rows.iter().enumerate() {
            let row_no = i as u64 + 1;
            if exprs.len() != positions.len() {
                return Err(SqlError::ValueCount(row_no));
            }
            let mut given: Vec<Option<Value>> = vec![None; schema.columns.len()];
            for (e, &p) in exprs.iter().zip(&positions) {
                if *e != Expr::Default {
                    let v = self.binder(Some(&schema), params, "field list").bind(e)?;
                    given[p] = Some(eval(&v, &[], &[])?);
                }
            }
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
                match self.write_insert(&t, row.clone(), row_no) {
                    Ok((_, auto)) => {
                        affected += 1;
                        if first_auto.is_none() {
                            first_auto = auto;
                        }
                        break;
                    }
                    Err(SqlError::Engine(engine::Error::DupEntry { entry, key })) => {
                        let dup = engine::Error::DupEntry { entry, key: key.clone() };
                        if !ins.replace && ins.on_duplicate.is_empty() {
                            if ins.ignore {
                                self.warnings.push(super::session::Warning {
                                    level: "Warning",
                                    code: 1062,
                                    message: dup.to_string(),
                                });
                                duplicates += 1;
                                break;
                            }
                            return Err(SqlError::Engine(dup));
                        }
                        let Some((old_key, old)) = self.conflicting(&t, &key, &row)? else {
                            return Err(SqlError::Engine(dup));
                        };
                        duplicates += 1;
                        if ins.replace {
                            self.write_delete(&t, &old_key, old)?;
                            affected += 1;
                            continue;
                        }
                        let mut new = old.clone();
                        for (name, e) in &ins.on_duplicate {
                            let p = schema.column_position(name).ok_or_else(|| {
                                SqlError::UnknownColumn {
                                    column: name.clone(),
                                    context: "field list",
                                }
                            })?;
                            let bound = self.binder(Some(&schema), params, "field list").bind(e)?;
                            let bound = substitute_insert_values(bound, &row);
                            new[p] =
                                to_column(eval(&bound, &old, &[])?, &schema.columns[p], row_no)?;
                        }
                        if !same_values(&old, &new) {
                            let assigned = |i: usize| {
                                ins.on_duplicate
                                    .iter()
                                    .any(|(n, _)| schema.column_position(n) == Some(i))
                            };
                            super::temporal::touch_on_update(
                                &schema.columns,
                                &mut new,
                                &assigned,
                                row_no,
                            )?;
                            self.write_update(&t, &old_key, old, new, row_no)?;
                            affected += 2;
                        } else if self.found_rows {
                            // CLIENT_FOUND_ROWS: an unchanged duplicate counts as found (1).
                            affected += 1;
                        }
                        break;
                    }
                    Err(e) => return Err(e),
                }
            }
        }
        if let Some(a) = first_auto {
            self.last_insert_id = a;
        }
        let info = if ins.rows.len() > 1 {
            format!(
                "Records: {}  Duplicates: {duplicates}  Warnings: {}",
                ins.rows.len(),
                self.warning_count()
            )
        } else {
            String::new()
        };
        Ok(Output::Ok {
            affected_rows: affected,
            last_insert_id: first_auto.unwrap_or(0),
            info,
            warnings: self.warning_count(),
        })
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

/// True if a row's new image stores what the old one does, so the update changes nothing
/// (mysqld's `compare_records` compares the stored records): numbers by value (an INT
/// UNSIGNED column's 2 may come as `Int` or `UInt`, a DECIMAL's 1.5 as 1.50), NULL equal to
/// NULL, strings byte for byte.
fn same_values(old: &[Value], new: &[Value]) -> bool {
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
