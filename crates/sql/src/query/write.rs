//! Multi-table UPDATE and DELETE (mysqld's `Sql_cmd_update` with `multi_update` and
//! `Sql_cmd_delete` with `Query_result_delete`, sql_update.cc / sql_delete.cc).
//!
//! The tables and WHERE are planned and run by the query layer exactly as a SELECT's FROM
//! ([`Session::join_scope`], [`super::plan::plan`], [`super::exec::run`]) as a locking read
//! with shared locks: every row the join reads is locked shared, as InnoDB locks the rows a
//! multi-table UPDATE only reads. Then, per table that is changed (FROM order), each of its
//! rows found by the join is changed once, however many joined rows it appears in (mysqld
//! keeps the changed rows' ids in a temporary table for that), under an exclusive lock taken
//! on its newest image (`get_for_update`). The SET values are computed from the first joined
//! row the table's row appears in; assignments to one table apply left to right.
//!
//! A row is known by its primary key; a table without one is matched by its stored image
//! (every stored row equal to a joined image is that row: equal rows join alike).
//!
//! Invariants: each changed table is a base table of the FROM (1288 otherwise: a derived
//! table is not updatable); a row is changed at most once per statement and table
//! reference; nothing is changed before the whole join has been read.

use std::collections::HashMap;

use engine::{encode_key, Key, Row, Value};

use super::plan;
use crate::ast::{Expr, MultiDelete, MultiUpdate, Select};
use crate::error::{Result, SqlError};
use crate::eval::{eval, to_column};
use crate::exec::{fetch, Access};
use crate::output::Output;
use crate::scope::Scope;
use crate::session::Session;
use crate::write::{same_values, Target};

/// The rows the join found of one table: (row key, the first joined row it appears in).
type Found = Vec<(Key, Row)>;

fn not_updatable(label: &str, what: &str) -> SqlError {
    SqlError::Other {
        code: 1288,
        sqlstate: "HY000",
        message: format!("The target table {label} of the {what} is not updatable"),
    }
}

impl Session {
    /// Runs the join of `from` (a locking read, shared locks); its scope and joined rows.
    fn write_join(&mut self, from: &Select, params: &[Value]) -> Result<(Scope, Vec<Row>)> {
        let p = self.join_scope(from, Some(params))?;
        let mut sel = self.plan_select_in(&p.select, Some(params), Some(&p.scope))?;
        let plan = plan::plan(
            &p.scope,
            &p.kinds,
            std::mem::take(&mut sel.join_on),
            sel.join_filter.take(),
        );
        let rows = self.read_joined(&p, &plan, true, true);
        if let Some(open) = self.txn.as_mut() {
            open.txn.set_read_latest(true);
        }
        Ok((p.scope, rows?))
    }

    /// The distinct rows of scope entry `k` among `joined`, each with the first joined row
    /// it is in (NULL-extended rows of an outer join skipped).
    fn found_rows_of(
        &mut self,
        scope: &Scope,
        k: usize,
        t: &Target,
        joined: &[Row],
    ) -> Result<Found> {
        let e = &scope.entries[k];
        let width = e.schema.columns.len();
        let image = |r: &Row| r[e.offset..e.offset + width].to_vec();
        let mut seen: HashMap<Key, ()> = HashMap::new();
        let mut out = Vec::new();
        if !t.schema.primary_key.is_empty() {
            for r in joined {
                let img = image(r);
                let pk: Vec<Value> = t.schema.primary_key.iter().map(|&p| img[p].clone()).collect();
                if pk.iter().any(|v| matches!(v, Value::Null)) {
                    continue; // NULL-extended: no row of this table.
                }
                let key = t.schema.key_of_values(&t.schema.primary_key, &pk);
                if seen.insert(key.clone(), ()).is_none() {
                    out.push((key, r.clone()));
                }
            }
            return Ok(out);
        }
        // No primary key: the stored rows whose image a joined row has.
        let mut first: HashMap<Key, usize> = HashMap::new();
        for (i, r) in joined.iter().enumerate() {
            let img = image(r);
            if e.nullable && img.iter().all(|v| matches!(v, Value::Null)) {
                continue;
            }
            first.entry(encode_key(&img)).or_insert(i);
        }
        if first.is_empty() {
            return Ok(out);
        }
        let engine = self.server.engine.clone();
        let open = self.txn_mut()?;
        for (key, row) in fetch(&engine, &open.txn, t.id, &Access::Full, usize::MAX)? {
            if let Some(&i) = first.get(&encode_key(&row)) {
                out.push((key, joined[i].clone()));
            }
        }
        Ok(out)
    }

    /// The scope entry a multi-table write changes, as a writable table.
    fn write_entry(&self, scope: &Scope, k: usize, what: &str) -> Result<Target> {
        let e = &scope.entries[k];
        if e.table.is_none() || e.db.eq_ignore_ascii_case("information_schema") {
            return Err(not_updatable(&e.label, what));
        }
        let name = crate::ast::TableRef { db: Some(e.db.clone()), name: table_name(e) };
        self.write_target(&name)
    }

    /// Runs a multi-table UPDATE (see the module doc).
    pub(crate) fn multi_update(&mut self, u: &MultiUpdate, params: &[Value]) -> Result<Output> {
        let _abort = crate::temporal::AbortOnWarning::new(!u.ignore);
        let (scope, joined) = self.write_join(&u.from, params)?;
        // (entry, column, bound value) per assignment.
        let mut sets: Vec<(usize, usize, Expr)> = Vec::with_capacity(u.set.len());
        for (table, column, e) in &u.set {
            let pos = scope.resolve(table.as_deref(), column, "field list")?;
            let k = scope.entries.iter().rposition(|x| x.offset <= pos).ok_or_else(|| {
                SqlError::UnknownColumn { column: column.clone(), context: "field list" }
            })?;
            let mut b = self.binder(Some(&scope.schema), params, "field list");
            b.scope = Some(&scope);
            let bound = b.bind(e)?;
            sets.push((k, pos - scope.entries[k].offset, bound));
        }
        let mut targets: Vec<usize> = sets.iter().map(|s| s.0).collect();
        targets.sort_unstable();
        targets.dedup();
        let tables: Vec<Target> = targets
            .iter()
            .map(|&k| self.write_entry(&scope, k, "UPDATE"))
            .collect::<Result<_>>()?;
        let (mut matched, mut changed) = (0u64, 0u64);
        let engine = self.server.engine.clone();
        for (&k, t) in targets.iter().zip(&tables) {
            let offset = scope.entries[k].offset;
            let found = self.found_rows_of(&scope, k, t, &joined)?;
            for (i, (key, joined_row)) in found.into_iter().enumerate() {
                let row_no = i as u64 + 1;
                let open = self.txn_mut()?;
                let Some(old) = engine.get_for_update(&mut open.txn, t.id, &key)? else {
                    continue;
                };
                matched += 1;
                let mut row = joined_row;
                let mut new = old.clone();
                for (_, col, e) in sets.iter().filter(|s| s.0 == k) {
                    let v = to_column(eval(e, &row, &[])?, &t.schema.columns[*col], row_no)?;
                    row[offset + col] = v.clone();
                    new[*col] = v;
                }
                if same_values(&old, &new) {
                    continue;
                }
                let assigned = |c: usize| sets.iter().any(|s| s.0 == k && s.1 == c);
                crate::temporal::touch_on_update(&t.schema.columns, &mut new, &assigned, row_no)?;
                let mark = self.txn.as_ref().map_or(0, |o| o.changes.changes.len());
                match self.write_update(t, &key, old, new, row_no) {
                    Ok(()) => changed += 1,
                    Err(SqlError::Engine(e @ engine::Error::DupEntry { .. })) if u.ignore => {
                        self.warnings.push(crate::session::Warning {
                            level: "Warning",
                            code: 1062,
                            message: e.to_string(),
                        });
                    }
                    // IGNORE: a row a foreign key refuses (1452 for a child's new values,
                    // 1451 for a parent's referenced ones) is skipped with a warning, what it
                    // changed (cascades included) undone: mysqld 8.0's `ignore_error_handler`
                    // downgrades ER_NO_REFERENCED_ROW_2 and ER_ROW_IS_REFERENCED_2.
                    Err(e) if u.ignore && crate::write::refused_row(&e) => {
                        self.skip_refused_row(mark, &e)?;
                    }
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(Output::updated(matched, changed, self.found_rows, self.warning_count()))
    }

    /// Runs a multi-table DELETE (see the module doc).
    pub(crate) fn multi_delete(&mut self, d: &MultiDelete, params: &[Value]) -> Result<Output> {
        let (scope, joined) = self.write_join(&d.from, params)?;
        let mut targets = Vec::with_capacity(d.targets.len());
        for t in &d.targets {
            let k = scope.entry_named(t.db.as_deref(), &t.name).ok_or_else(|| SqlError::Other {
                code: 1109,
                sqlstate: "42S02",
                message: format!("Unknown table '{}' in MULTI DELETE", t.name),
            })?;
            if !targets.contains(&k) {
                targets.push(k);
            }
        }
        let tables: Vec<Target> = targets
            .iter()
            .map(|&k| self.write_entry(&scope, k, "DELETE"))
            .collect::<Result<_>>()?;
        let engine = self.server.engine.clone();
        let mut deleted = 0u64;
        for (&k, t) in targets.iter().zip(&tables) {
            for (key, _) in self.found_rows_of(&scope, k, t, &joined)? {
                let open = self.txn_mut()?;
                let Some(old) = engine.get_for_update(&mut open.txn, t.id, &key)? else {
                    continue;
                };
                let mark = self.txn.as_ref().map_or(0, |o| o.changes.changes.len());
                match self.write_delete(t, &key, old) {
                    Ok(true) => deleted += 1,
                    Ok(false) => {}
                    // DELETE IGNORE: a parent row still referenced (1451) stays, with a
                    // warning, as in UPDATE IGNORE above.
                    Err(e) if d.ignore && crate::write::refused_row(&e) => {
                        self.skip_refused_row(mark, &e)?;
                    }
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(Output::ok(deleted))
    }
}

/// The stored table's name of a scope entry (its label is the alias when it has one).
fn table_name(e: &crate::scope::ScopeEntry) -> String {
    let (_, name) = crate::commit::split_engine_name(&e.schema.name);
    name.to_string()
}
