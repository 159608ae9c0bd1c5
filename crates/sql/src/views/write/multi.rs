//! Multi-table UPDATE and DELETE through views (issue 20).
//!
//! Why a merge: mysqld merges a mergeable view into the statement that names it
//! (`mysql_make_view`, `TABLE_LIST::merge_where`), and a multi-table UPDATE or DELETE writes a
//! view's base table when the view is updatable (`Sql_cmd_update::prepare_inner` /
//! `multi_update_precheck` with `TABLE_LIST::is_updatable`, `check_view_single_update`). So
//! `UPDATE t JOIN v ON t.a = v.a SET v.c = 1` changes v's table, logged and locked as that
//! table. A view the statement only reads stays a derived table of its SELECT
//! (`expand_select`), as in a SELECT.
//!
//! Invariants:
//! - A view is written when an assignment names it (`v.c`, or an unqualified column only it
//!   has) or, for DELETE, when it is a target. It is resolved by `resolve_for_write`, so the
//!   single-table rules and errors hold: 1288 (not mergeable), 1348 (assigning an
//!   expression column), 1393 (two base tables of one join view), 1395 (DELETE through a
//!   join view), 1356 (definer lacks rights).
//! - The merged base table takes the view's label as its alias, so the statement's own
//!   qualifiers keep working; the view's columns are replaced by their expressions in the
//!   SET list, the WHERE and every ON; an unqualified name both the view and another table
//!   of the FROM have is 1052.
//! - The views' WHERE goes where it keeps the view's meaning: into the statement's WHERE
//!   for the first or an inner-joined entry, into the ON of the LEFT JOIN that
//!   NULL-extends the view. A join view is merged only as the first or an inner-joined
//!   entry (its tables flattened into the FROM, the entry's own ON moved to the WHERE, which
//!   inner joins make equivalent). What would need a nested join to keep its meaning (a view
//!   with a WHERE before a RIGHT JOIN, a join view under an outer join) and a FROM with
//!   USING/NATURAL joins (their columns would change meaning) are refused with 1288, not
//!   merged wrongly.
//! - One CHECK OPTION per statement (the session's `ViewCheck`): a second written view that
//!   asks for one is refused (1288) rather than left unchecked.

use super::{not_writable, plain, substitute, Resolved, Verb};
use crate::ast::{BinOp, Expr, JoinKind, Select, TableRef};
use crate::error::{Result, SqlError};
use crate::session::{Session, ViewCheck};

/// What a multi-table write changes: UPDATE's assignments or DELETE's target tables.
pub(crate) enum Writes<'a> {
    Update(&'a mut Vec<(Option<String>, String, Expr)>),
    Delete(&'a [TableRef]),
}

/// `e`'s top-level unqualified column names qualified by `label` (subqueries keep theirs).
fn qualify_names(e: &mut Expr, label: &str) {
    if let Expr::Name { table: t @ None, .. } = e {
        *t = Some(label.to_string());
        return;
    }
    for c in crate::query::subquery::children_mut(e) {
        qualify_names(c, label);
    }
}

/// `e`'s top-level qualifiers renamed by `map` (old label, new label).
fn rename_labels(e: &mut Expr, map: &[(String, String)]) {
    if let Expr::Name { table: Some(t), .. } = e {
        if let Some((_, new)) = map.iter().find(|(old, _)| old.eq_ignore_ascii_case(t)) {
            *t = new.clone();
        }
        return;
    }
    for c in crate::query::subquery::children_mut(e) {
        rename_labels(c, map);
    }
}

fn and_into(slot: &mut Option<Expr>, e: Expr) {
    *slot = Some(match slot.take() {
        Some(a) => Expr::Binary(BinOp::And, Box::new(a), Box::new(e)),
        None => e,
    });
}

/// The label of FROM entry `i` (0: `from.from`, then the joins) and whether it is a stored
/// table or view (not a derived table).
fn entry(from: &Select, i: usize) -> Option<(TableRef, String)> {
    let (t, alias, derived) = match i {
        0 => (from.from.as_ref()?, from.alias.as_ref(), from.derived.is_some()),
        _ => {
            let j = from.joins.get(i - 1)?;
            (&j.table, j.alias.as_ref(), j.derived.is_some())
        }
    };
    (!derived).then(|| (t.clone(), alias.cloned().unwrap_or_else(|| t.name.clone())))
}

/// Sets FROM entry `i` to stored table `t` labelled `label`.
fn set_entry(from: &mut Select, i: usize, t: TableRef, label: &str) {
    if i == 0 {
        from.from = Some(t);
        from.alias = Some(label.to_string());
    } else {
        from.joins[i - 1].table = t;
        from.joins[i - 1].alias = Some(label.to_string());
    }
}

impl Session {
    /// Merges into `from` every view the multi-table write changes (see the module doc);
    /// the views it only reads are left for `expand_select`.
    pub(crate) fn merge_written_views(
        &mut self,
        from: &mut Select,
        mut writes: Writes<'_>,
    ) -> Result<()> {
        let verb = match writes {
            Writes::Update(_) => Verb::Update,
            Writes::Delete(_) => Verb::Delete,
        };
        let mut i = 0;
        while i <= from.joins.len() {
            let Some((t, label)) = entry(from, i) else {
                i += 1;
                continue;
            };
            let Some((db, name, def)) = self.lookup_view(&t) else {
                i += 1;
                continue;
            };
            let written = match &writes {
                Writes::Delete(targets) => {
                    targets.iter().any(|x| x.name.eq_ignore_ascii_case(&label))
                }
                Writes::Update(set) => {
                    let named = |q: &Option<String>| {
                        q.as_deref().is_some_and(|q| q.eq_ignore_ascii_case(&label))
                    };
                    set.iter().any(|(q, ..)| named(q))
                        || (set.iter().any(|(q, ..)| q.is_none()) && {
                            let cols = self.view_columns_of(&db, &name, &def, false)?;
                            set.iter().any(|(q, c, _)| {
                                q.is_none() && cols.iter().any(|rc| rc.name.eq_ignore_ascii_case(c))
                            })
                        })
                }
            };
            if !written {
                i += 1;
                continue;
            }
            if from.joins.iter().any(|j| !j.using.is_empty() || j.natural) {
                return Err(not_writable(&t.name, verb));
            }
            let mut chain = Vec::new();
            let mut r =
                self.resolve_for_write(&db, &name, &def, verb, &t.name, false, &mut chain)?;
            r.view = format!("{db}.{name}");
            i += 1 + self.merge_view(from, i, &t, &label, r, &mut writes, verb)?;
        }
        Ok(())
    }

    /// Merges view `t` (resolved as `r`), FROM entry `i` labelled `label`, into `from`; the
    /// number of entries it added after `i` (a join view's further tables).
    #[allow(clippy::too_many_arguments)]
    fn merge_view(
        &mut self,
        from: &mut Select,
        i: usize,
        t: &TableRef,
        label: &str,
        mut r: Resolved,
        writes: &mut Writes<'_>,
        verb: Verb,
    ) -> Result<usize> {
        let kind = i.checked_sub(1).map(|k| from.joins[k].kind);
        let right_after = from.joins[i..].iter().any(|j| j.kind == JoinKind::Right);
        let refuse = || Err(not_writable(&t.name, verb));
        // The other stored tables' columns, for 1052 on an unqualified name.
        let mut others: Vec<String> = Vec::new();
        for k in (0..=from.joins.len()).filter(|&k| k != i) {
            if let Some((o, _)) = entry(from, k) {
                if let Ok((_, schema, _)) = self.resolve_table(&o) {
                    others.extend(schema.columns.iter().map(|c| c.name.clone()));
                }
            }
        }
        // First the view's own expressions over labels of the statement: a single-table
        // view's base columns take the view's label, a join view's tables keep their labels
        // unless another entry has them.
        let join = r.join.take();
        let mut map: Vec<(String, String)> = Vec::new();
        match &join {
            None => {
                for (_, e) in &mut r.columns {
                    qualify_names(e, label);
                }
                if let Some(f) = r.filter.as_mut() {
                    qualify_names(f, label);
                }
                if right_after && r.filter.is_some() {
                    return refuse();
                }
            }
            Some(_) => {
                if right_after || matches!(kind, Some(JoinKind::Left | JoinKind::Right)) {
                    return refuse();
                }
                if let Writes::Update(set) = writes {
                    // The written base table (one, 1393) with its definer's right, by the
                    // view's own labels.
                    let mut written: Option<String> = None;
                    for (q, c, _) in set.iter() {
                        if !names_view(q.as_deref(), c, label, &r.columns) {
                            continue;
                        }
                        if let Some((Some(l), _)) = view_column(&r.columns, c).and_then(plain) {
                            match &written {
                                Some(w) if !w.eq_ignore_ascii_case(l) => {
                                    return Err(super::join_view_error(1393, &r.view))
                                }
                                _ => written = Some(l.to_string()),
                            }
                        }
                    }
                    if let Some(w) = written {
                        self.join_target(&r, &w, verb)?;
                    }
                }
                let taken = |l: &str| {
                    (0..=from.joins.len())
                        .filter(|&k| k != i)
                        .filter_map(|k| entry(from, k).map(|(_, x)| x))
                        .any(|x| x.eq_ignore_ascii_case(l))
                };
                for (l, _) in &r.tables {
                    let mut new = l.clone();
                    let mut n = 2;
                    while taken(&new) || map.iter().any(|(_, x)| x.eq_ignore_ascii_case(&new)) {
                        new = format!("{label}_{l}_{n}");
                        n += 1;
                    }
                    map.push((l.clone(), new));
                }
                for e in r.columns.iter_mut().map(|(_, e)| e).chain(r.filter.iter_mut()) {
                    rename_labels(e, &map);
                }
            }
        }
        // Then the statement's names of the view's columns (before the FROM changes, so the
        // view's own expressions added below are not looked up as view columns).
        self.substitute_view_columns(from, writes, label, &r.columns, &others)?;
        // Then the FROM: the view's table(s) in its place, its WHERE where it belongs.
        let mut added = 0;
        match join {
            None => {
                if let Some(cond) = r.check.take() {
                    if self.view_check.is_some() {
                        return refuse();
                    }
                    let base = &r.tables[0].1;
                    self.view_check = Some(ViewCheck {
                        table: format!("{}.{}", base.db.as_deref().unwrap_or_default(), base.name),
                        cond,
                        view: r.view.clone(),
                        bound: None,
                    });
                }
                set_entry(from, i, r.tables[0].1.clone(), label);
                if let Some(f) = r.filter.take() {
                    match kind {
                        Some(JoinKind::Left) => and_into(&mut from.joins[i - 1].on, f),
                        _ => and_into(&mut from.filter, f),
                    }
                }
            }
            Some((mut jfrom, ..)) => {
                let new_label = |t: &TableRef, alias: &Option<String>| {
                    let l = alias.clone().unwrap_or_else(|| t.name.clone());
                    map.iter().find(|(o, _)| o.eq_ignore_ascii_case(&l)).map_or(l, |m| m.1.clone())
                };
                let first = jfrom.from.take().ok_or_else(|| not_writable(&t.name, verb))?;
                let first_label = new_label(&first, &jfrom.alias);
                if let Some(on) = i.checked_sub(1).and_then(|k| from.joins[k].on.take()) {
                    and_into(&mut from.filter, on);
                }
                set_entry(from, i, first, &first_label);
                let mut inner = std::mem::take(&mut jfrom.joins);
                for j in &mut inner {
                    j.alias = Some(new_label(&j.table, &j.alias));
                    if let Some(on) = j.on.as_mut() {
                        rename_labels(on, &map);
                    }
                }
                added = inner.len();
                from.joins.splice(i..i, inner);
                if let Some(f) = r.filter.take() {
                    and_into(&mut from.filter, f);
                }
            }
        }
        Ok(added)
    }

    /// Replaces the statement's names of the view labelled `label` (columns `cols`) by their
    /// expressions: assignment targets (plain columns only, 1348), then the SET values, the
    /// WHERE and every ON; an unqualified name another table of the FROM has too is 1052.
    fn substitute_view_columns(
        &self,
        from: &mut Select,
        writes: &mut Writes<'_>,
        label: &str,
        cols: &[(String, Expr)],
        others: &[String],
    ) -> Result<()> {
        let view_name = |q: Option<&str>, c: &str| names_view(q, c, label, cols);
        for (q, c) in writes_columns(writes) {
            if !view_name(q.as_deref(), c) {
                continue;
            }
            if q.is_none() && others.iter().any(|o| o.eq_ignore_ascii_case(c)) {
                return Err(crate::scope::ambiguous(c, "field list"));
            }
            let unknown = || SqlError::UnknownColumn {
                column: q.as_ref().map_or_else(|| c.clone(), |q| format!("{q}.{c}")),
                context: "field list",
            };
            let x = view_column(cols, c).ok_or_else(unknown)?;
            let Some((Some(l), base)) = plain(x) else {
                return Err(SqlError::Other {
                    code: 1348,
                    sqlstate: "HY000",
                    message: format!("Column '{c}' is not updatable"),
                });
            };
            *q = Some(l.to_string());
            *c = base.to_string();
        }
        let resolve =
            |q: Option<&str>, c: &str| view_column(cols, c).cloned().filter(|_| view_name(q, c));
        let pass = |q: Option<&str>, c: &str| !view_name(q, c);
        let mut exprs: Vec<(&mut Expr, &'static str)> = Vec::new();
        if let Writes::Update(set) = writes {
            exprs.extend(set.iter_mut().map(|(_, _, e)| (e, "field list")));
        }
        exprs.extend(from.filter.iter_mut().map(|e| (e, "where clause")));
        exprs.extend(from.joins.iter_mut().filter_map(|j| j.on.as_mut()).map(|e| (e, "on clause")));
        for (e, context) in exprs {
            ambiguity(&mut *e, cols, others, context)?;
            substitute(e, &resolve, context, &pass)?;
        }
        Ok(())
    }
}

/// Whether column name `q.c` names the merged view labelled `label` (with `columns`).
fn names_view(q: Option<&str>, c: &str, label: &str, columns: &[(String, Expr)]) -> bool {
    match q {
        Some(q) => q.eq_ignore_ascii_case(label),
        None => view_column(columns, c).is_some(),
    }
}

/// The assignments' target columns (UPDATE) as mutable (qualifier, column) pairs.
fn writes_columns<'a>(writes: &'a mut Writes<'_>) -> Vec<(&'a mut Option<String>, &'a mut String)> {
    match writes {
        Writes::Update(set) => set.iter_mut().map(|(q, c, _)| (q, c)).collect(),
        Writes::Delete(_) => Vec::new(),
    }
}

fn view_column<'a>(columns: &'a [(String, Expr)], c: &str) -> Option<&'a Expr> {
    columns.iter().find(|(n, _)| n.eq_ignore_ascii_case(c)).map(|(_, x)| x)
}

/// 1052 for an unqualified name in `e` (top level) that both the view and another table
/// have.
fn ambiguity(
    e: &mut Expr,
    columns: &[(String, Expr)],
    others: &[String],
    context: &str,
) -> Result<()> {
    if let Expr::Name { table: None, column } = e {
        if view_column(columns, column).is_some()
            && others.iter().any(|o| o.eq_ignore_ascii_case(column))
        {
            return Err(crate::scope::ambiguous(column, context));
        }
        return Ok(());
    }
    for c in crate::query::subquery::children_mut(e) {
        ambiguity(c, columns, others, context)?;
    }
    Ok(())
}
