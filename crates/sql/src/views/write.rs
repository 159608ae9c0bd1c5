//! Writes through views (issue 20): INSERT, UPDATE and DELETE naming an updatable view.
//!
//! Why a rewrite: mysqld merges an updatable view into the statement (`mysql_make_view` with
//! the MERGE algorithm, `TABLE_LIST::merge_where`, `TABLE_LIST::prep_check_option`), so the
//! write runs on the base table, is logged as the base table's row events and takes the base
//! table's locks. binlogd does the same before planning: the statement is rewritten to name
//! the stored table, its view columns replaced by the view's expressions, the views' WHERE
//! clauses ANDed into its own, so every write path (point fast path, subqueries, ODKU,
//! REPLACE, INSERT … SELECT) runs unchanged on the base table.
//!
//! Invariants:
//! - Only a view mysqld would merge is written through ([`updatable`]: one table or an
//!   updatable view in FROM, no aggregate / window function / subquery in the SELECT list, no
//!   DISTINCT, GROUP BY, HAVING, LIMIT, UNION, not ALGORITHM=TEMPTABLE); otherwise 1288 (UPDATE,
//!   DELETE) or 1471 (INSERT) naming the view the statement named, as
//!   `Sql_cmd_update::prepare_inner` / `check_insert_fields` answer.
//! - INSERT needs every view column to be a plain column, each base column at most once (1471
//!   otherwise), and every base column the INSERT leaves out to have a default (1423
//!   `ER_NO_DEFAULT_FOR_VIEW_FIELD`); UPDATE assigns only plain columns (1348
//!   `ER_NONUPDATEABLE_COLUMN`).
//! - CHECK OPTION follows the standard semantics mysqld 8.0 implements (MySQL manual, "The
//!   View WITH CHECK OPTION Clause"): LOCAL checks the view's WHERE and recurses, CASCADED
//!   checks it and forces the check on every view below, none checks nothing itself and
//!   recurses. The combined condition is evaluated on every row written to the base table by
//!   the statement (before the engine write); a row failing it (false or NULL, as
//!   `TABLE_LIST::view_check_option`) is 1369 naming the view the statement named.
//! - Privileges: the statement's own check sees the view as a table (INSERT/UPDATE/DELETE on
//!   the view); each view level's definer (SQL SECURITY DEFINER) or the invoker needs the
//!   same privilege on what that level reads, as mysqld's `check_single_table_access` under
//!   the view's security context; a lack is 1356, as for reads.
//! - Recursion over nested views is bounded by [`super::MAX_NESTING`] (1462 beyond, or on a
//!   cycle); expressions are bounded by the parser's depth limit.

use accounts::Privileges;
use engine::Value;

use super::ViewDef;
use crate::ast::{BinOp, Expr, Insert, JoinKind, Select, SelectItem, Stmt, TableRef};
use crate::error::{Result, SqlError};
use crate::session::{Session, ViewCheck};

mod multi;
pub(crate) use multi::Writes;

/// The statement kind a view is written by (its error texts and privilege).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verb {
    Insert,
    Update,
    Delete,
}

impl Verb {
    fn name(self) -> &'static str {
        match self {
            Verb::Insert => "INSERT",
            Verb::Update => "UPDATE",
            Verb::Delete => "DELETE",
        }
    }
}

/// A view chain resolved down to its stored table(s).
struct Resolved {
    /// `db.v` of the view the statement named.
    view: String,
    /// The stored tables by their label in the rewritten statement (one unless a join view).
    tables: Vec<(String, TableRef)>,
    /// A join view's FROM (its tables, aliases and ON conditions) for a multi-table UPDATE,
    /// with the view that joins (its definer's rights are checked on the table written).
    join: Option<(Select, String, String, ViewDef)>,
    /// The base table's alias in the innermost view (correlated subqueries may name it).
    alias: Option<String>,
    /// The view's columns in order: name and expression over the base table(s).
    columns: Vec<(String, Expr)>,
    /// The views' WHERE clauses over the base table(s), ANDed.
    filter: Option<Expr>,
    /// The CHECK OPTION condition over the base table, if any view asks for one.
    check: Option<Expr>,
}

fn and(a: Option<Expr>, b: Option<Expr>) -> Option<Expr> {
    match (a, b) {
        (Some(a), Some(b)) => Some(Expr::Binary(BinOp::And, Box::new(a), Box::new(b))),
        (a, None) => a,
        (None, b) => b,
    }
}

/// mysqld's merge rule for a view's SELECT (`LEX::can_be_merged` plus `mysql_make_view`'s
/// `updatable_view`): tables in FROM inner-joined by ON conditions (no derived table, no
/// outer join: the manual's "Updatable and Insertable Views"), no
/// aggregate, window function or subquery in the SELECT list, no DISTINCT, GROUP BY,
/// HAVING, LIMIT or UNION, not ALGORITHM=TEMPTABLE. Whether a table in FROM is itself an
/// updatable view is the caller's question.
pub(crate) fn updatable(s: &Select, def: &ViewDef) -> bool {
    let bad_item = s.items.iter().any(|i| match i {
        SelectItem::Expr { expr, .. } => {
            expr.has_aggregate() || expr.has_window() || crate::ast::expr_has_subquery(expr)
        }
        _ => false,
    });
    !def.algorithm.eq_ignore_ascii_case("TEMPTABLE")
        && s.query_expr().is_none()
        && s.from.as_ref().is_some_and(|t| !t.name.is_empty())
        && s.derived.is_none()
        && s.joins.iter().all(|j| {
            matches!(j.kind, JoinKind::Inner | JoinKind::Straight)
                && j.derived.is_none()
                && j.using.is_empty()
                && !j.natural
        })
        && !bad_item
        && !s.distinct
        && s.group_by.is_empty()
        && s.having.is_none()
        && s.limit.is_none()
}

/// 1471 (INSERT) or 1288 (UPDATE, DELETE) for a write through view `name`.
pub(crate) fn not_writable(name: &str, verb: Verb) -> SqlError {
    match verb {
        Verb::Insert => SqlError::Other {
            code: 1471,
            sqlstate: "HY000",
            message: format!("The target table {name} of the INSERT is not insertable-into"),
        },
        _ => SqlError::Other {
            code: 1288,
            sqlstate: "HY000",
            message: format!("The target table {name} of the {} is not updatable", verb.name()),
        },
    }
}

/// 1393 / 1394 / 1395: a write a join view cannot take (`view`: `db.v`).
fn join_view_error(code: u16, view: &str) -> SqlError {
    let message = match code {
        1393 => format!("Can not modify more than one base table through a join view '{view}'"),
        1394 => format!("Can not insert into join view '{view}' without fields list"),
        _ => format!("Can not delete from join view '{view}'"),
    };
    SqlError::Other { code, sqlstate: "HY000", message }
}

/// Resolves a column name (qualifier, column) to its expression; None: unknown.
type Resolver<'a> = &'a dyn Fn(Option<&str>, &str) -> Option<Expr>;

/// A view's columns: (label, expression).
type Columns = Vec<(String, Expr)>;

/// `e` with every column name replaced by what `resolve` maps it to; an unknown name is 1054
/// in `context`; `pass` keeps names that mean something else (an INSERT's row alias).
/// Subqueries keep their own scope.
fn substitute(
    e: &mut Expr,
    resolve: Resolver<'_>,
    context: &'static str,
    pass: &dyn Fn(Option<&str>, &str) -> bool,
) -> Result<()> {
    if let Expr::Name { table, column } = e {
        if pass(table.as_deref(), column) {
            return Ok(());
        }
        return match resolve(table.as_deref(), column) {
            Some(x) => {
                *e = x;
                Ok(())
            }
            None => Err(SqlError::UnknownColumn {
                column: match table {
                    Some(t) => format!("{t}.{column}"),
                    None => column.clone(),
                },
                context,
            }),
        };
    }
    for c in crate::query::subquery::children_mut(e) {
        substitute(c, resolve, context, pass)?;
    }
    Ok(())
}

/// The resolver of a single table (or view) named by any of `labels` with `columns`.
fn by_labels<'a>(
    columns: &'a [(String, Expr)],
    labels: &'a [&'a str],
) -> impl Fn(Option<&str>, &str) -> Option<Expr> + 'a {
    move |t: Option<&str>, c: &str| {
        if !t.is_none_or(|t| labels.iter().any(|l| l.eq_ignore_ascii_case(t))) {
            return None;
        }
        columns.iter().find(|(n, _)| n.eq_ignore_ascii_case(c)).map(|(_, x)| x.clone())
    }
}

fn no_pass(_: Option<&str>, _: &str) -> bool {
    false
}

/// The base column a view column writes: its table label (join views) and column name.
fn plain(e: &Expr) -> Option<(Option<&str>, &str)> {
    match e {
        Expr::Name { table, column } => Some((table.as_deref(), column)),
        _ => None,
    }
}

impl Session {
    /// The privilege `wanted` on `t` as the view's definer or the invoker (1356 if lacking).
    fn need_as_view_security(
        &mut self,
        db: &str,
        name: &str,
        def: &ViewDef,
        verb: Verb,
        t: &TableRef,
    ) -> Result<()> {
        let wanted = match verb {
            Verb::Insert => Privileges::INSERT,
            Verb::Update => Privileges::UPDATE,
            Verb::Delete => Privileges::DELETE,
        };
        self.as_view_security(db, name, def, |sess| {
            sess.need_table_privilege(wanted, verb.name(), t)
        })
    }

    /// Resolves view `db.name` for a write by `verb`: `top` is the name the statement used
    /// (error texts), `cascaded`: a view above asked for CASCADED CHECK OPTION.
    #[allow(clippy::too_many_arguments)]
    fn resolve_for_write(
        &mut self,
        db: &str,
        name: &str,
        def: &ViewDef,
        verb: Verb,
        top: &str,
        cascaded: bool,
        chain: &mut Vec<String>,
    ) -> Result<Resolved> {
        let key = self.server.name_key(&format!("{db}.{name}"));
        if chain.contains(&key) || chain.len() >= super::MAX_NESTING {
            return Err(super::recursion(db, name));
        }
        let parsed = crate::parse::parse(&def.body).map_err(|_| super::invalid_view(db, name))?;
        let Stmt::Select(mut select) = parsed.stmt else {
            return Err(super::invalid_view(db, name));
        };
        super::qualify(&mut select, db);
        if !updatable(&select, def) {
            return Err(not_writable(top, verb));
        }
        self.check_view_select(db, name, def, &select)?;
        let Some(from) = select.from.clone() else { return Err(not_writable(top, verb)) };
        let effective = if cascaded { "CASCADED" } else { def.check_option.as_str() };
        if !select.joins.is_empty() {
            return self.resolve_join(db, name, def, select, verb, top, effective);
        }
        self.need_as_view_security(db, name, def, verb, &from)?;
        chain.push(key);
        let lower = match self.lookup_view(&from) {
            Some((ldb, lname, ldef)) => self.resolve_for_write(
                &ldb,
                &lname,
                &ldef,
                verb,
                top,
                cascaded || effective == "CASCADED",
                chain,
            ),
            None => self.resolve_table(&from).map(|(_, schema, _)| {
                let base = TableRef {
                    db: from.db.clone(),
                    name: crate::commit::split_engine_name(&schema.name).1.to_string(),
                };
                Resolved {
                    view: String::new(),
                    tables: vec![(String::new(), base)],
                    join: None,
                    alias: select.alias.clone(),
                    columns: schema
                        .columns
                        .iter()
                        .map(|c| {
                            (c.name.clone(), Expr::Name { table: None, column: c.name.clone() })
                        })
                        .collect(),
                    filter: None,
                    check: None,
                }
            }),
        };
        chain.pop();
        let lower = lower?;
        if lower.join.is_some() && effective != "NONE" {
            // A join's CHECK OPTION needs the joined row: not built (refused, not skipped).
            return Err(not_writable(top, verb));
        }
        let label = select.alias.clone().unwrap_or_else(|| from.name.clone());
        let labels = [label.as_str()];
        let resolve = by_labels(&lower.columns, &labels);
        let wildcard = |t: Option<&str>| {
            t.is_none_or(|t| t.eq_ignore_ascii_case(&label)).then(|| lower.columns.clone())
        };
        let (columns, own) = project((db, name), &mut select, def, &resolve, &wildcard)?;
        let checked = if effective == "NONE" { None } else { own.clone() };
        Ok(Resolved {
            view: lower.view,
            tables: lower.tables,
            join: lower.join,
            alias: lower.alias,
            columns,
            filter: and(own, lower.filter),
            check: and(checked, lower.check),
        })
    }

    /// A join view over stored tables (mysqld merges it; only UPDATE and INSERT may write
    /// through it, one of its tables at a time).
    #[allow(clippy::too_many_arguments)]
    fn resolve_join(
        &mut self,
        db: &str,
        name: &str,
        def: &ViewDef,
        mut select: Select,
        verb: Verb,
        top: &str,
        effective: &str,
    ) -> Result<Resolved> {
        if verb == Verb::Delete {
            return Err(join_view_error(1395, &format!("{db}.{name}")));
        }
        if effective != "NONE" {
            // A join's CHECK OPTION needs the joined row: not built (refused, not skipped).
            return Err(not_writable(top, verb));
        }
        let mut tables: Vec<(String, TableRef, Vec<String>)> = Vec::new();
        let first = select.from.iter().map(|t| (t, select.alias.as_ref()));
        let rest = select.joins.iter().map(|j| (&j.table, j.alias.as_ref()));
        for (t, alias) in first.chain(rest) {
            if self.lookup_view(t).is_some() {
                return Err(not_writable(top, verb));
            }
            let (_, schema, _) = self.resolve_table(t)?;
            let label = alias.cloned().unwrap_or_else(|| t.name.clone());
            let cols = schema.columns.iter().map(|c| c.name.clone()).collect();
            tables.push((label, t.clone(), cols));
        }
        let qualified = |l: &str, c: &str| Expr::Name { table: Some(l.into()), column: c.into() };
        let resolve = |t: Option<&str>, c: &str| -> Option<Expr> {
            let mut hits = tables.iter().filter(|(l, _, cols)| {
                t.is_none_or(|t| l.eq_ignore_ascii_case(t))
                    && cols.iter().any(|x| x.eq_ignore_ascii_case(c))
            });
            let (l, _, cols) = hits.next()?;
            if hits.next().is_some() {
                return None;
            }
            let c = cols.iter().find(|x| x.eq_ignore_ascii_case(c))?;
            Some(qualified(l, c))
        };
        let wildcard = |t: Option<&str>| {
            let picked: Vec<_> = match t {
                None => tables.iter().collect(),
                Some(t) => vec![tables.iter().find(|(l, _, _)| l.eq_ignore_ascii_case(t))?],
            };
            let expand = |(l, _, cols): &&(String, TableRef, Vec<String>)| {
                cols.iter().map(|c| (c.clone(), qualified(l, c))).collect::<Vec<_>>()
            };
            Some(picked.iter().flat_map(expand).collect())
        };
        let (columns, filter) = project((db, name), &mut select, def, &resolve, &wildcard)?;
        let mut from = Select::empty();
        from.from = select.from.take();
        from.alias = select.alias.take();
        from.joins = std::mem::take(&mut select.joins);
        Ok(Resolved {
            view: String::new(),
            tables: tables.into_iter().map(|(l, t, _)| (l, t)).collect(),
            join: Some((from, db.to_string(), name.to_string(), def.clone())),
            alias: None,
            columns,
            filter,
            check: None,
        })
    }

    /// The view `t` resolved for a write, with its CHECK OPTION installed for the statement;
    /// None when `t` is no view.
    fn write_view(&mut self, t: &TableRef, verb: Verb) -> Result<Option<Resolved>> {
        let Some((db, name, def)) = self.lookup_view(t) else { return Ok(None) };
        let mut chain = Vec::new();
        let mut r = self.resolve_for_write(&db, &name, &def, verb, &t.name, false, &mut chain)?;
        r.view = format!("{db}.{name}");
        if let (Some(cond), [(_, base)]) = (r.check.clone(), r.tables.as_slice()) {
            let base_db = base.db.clone().unwrap_or_default();
            self.view_check = Some(ViewCheck {
                table: format!("{base_db}.{}", base.name),
                cond,
                view: r.view.clone(),
                bound: None,
            });
        }
        Ok(Some(r))
    }

    /// The stored table a join view's write changes (`label`), with its definer's right.
    fn join_target(&mut self, r: &Resolved, label: &str, verb: Verb) -> Result<TableRef> {
        let t = r
            .tables
            .iter()
            .find(|(l, _)| l.eq_ignore_ascii_case(label))
            .map(|(_, t)| t.clone())
            .ok_or_else(|| join_view_error(1393, &r.view))?;
        if let Some((_, db, name, def)) = &r.join {
            self.need_as_view_security(db, name, def, verb, &t)?;
        }
        Ok(t)
    }

    /// UPDATE through a view: onto the base table (Some(MultiUpdate) for a join view, the
    /// statement rewritten in place otherwise); false: `u` names no view.
    pub(crate) fn update_through_view(
        &mut self,
        u: &mut crate::ast::Update,
    ) -> Result<Option<Option<Stmt>>> {
        let Some(r) = self.write_view(&u.table.clone(), Verb::Update)? else { return Ok(None) };
        let label = u.alias.clone().unwrap_or_else(|| u.table.name.clone());
        let labels = [label.as_str()];
        let resolve = by_labels(&r.columns, &labels);
        let mut set = Vec::with_capacity(u.set.len());
        for (c, e) in &mut u.set {
            let Some((_, x)) = r.columns.iter().find(|(n, _)| n.eq_ignore_ascii_case(c)) else {
                return Err(SqlError::UnknownColumn { column: c.clone(), context: "field list" });
            };
            let Some((table, base)) = plain(x) else {
                return Err(SqlError::Other {
                    code: 1348,
                    sqlstate: "HY000",
                    message: format!("Column '{c}' is not updatable"),
                });
            };
            set.push((table.map(str::to_string), base.to_string()));
            substitute(e, &resolve, "field list", &no_pass)?;
        }
        if let Some(f) = u.filter.as_mut() {
            substitute(f, &resolve, "where clause", &no_pass)?;
        }
        for o in &mut u.order_by {
            substitute(&mut o.expr, &resolve, "order clause", &no_pass)?;
        }
        let filter = and(r.filter.clone(), u.filter.take());
        if let Some((from, ..)) = &r.join {
            // mysqld runs it as a multi-table UPDATE: one table written, no ORDER BY / LIMIT.
            if !u.order_by.is_empty() || u.limit.is_some() {
                let what = if u.limit.is_some() { "LIMIT" } else { "ORDER BY" };
                return Err(SqlError::Other {
                    code: 1221,
                    sqlstate: "HY000",
                    message: format!("Incorrect usage of UPDATE and {what}"),
                });
            }
            let mut labels = set.iter().map(|(t, _)| t.clone().unwrap_or_default());
            let first = labels.next().unwrap_or_default();
            if labels.any(|l| !l.eq_ignore_ascii_case(&first)) {
                return Err(join_view_error(1393, &r.view));
            }
            self.join_target(&r, &first, Verb::Update)?;
            let mut from = from.clone();
            from.filter = filter;
            let set =
                set.into_iter().zip(u.set.drain(..)).map(|((t, c), (_, e))| (t, c, e)).collect();
            let multi = crate::ast::MultiUpdate { from, set, ignore: false };
            return Ok(Some(Some(Stmt::MultiUpdate(multi))));
        }
        for ((c, _), (_, base)) in u.set.iter_mut().zip(set) {
            *c = base;
        }
        u.filter = filter;
        u.table = r.tables[0].1.clone();
        u.alias = r.alias;
        Ok(Some(None))
    }

    /// DELETE through a view (false: `d` names no view); a join view is 1395.
    pub(crate) fn delete_through_view(&mut self, d: &mut crate::ast::Delete) -> Result<bool> {
        let Some(r) = self.write_view(&d.table.clone(), Verb::Delete)? else { return Ok(false) };
        let label = d.alias.clone().unwrap_or_else(|| d.table.name.clone());
        let labels = [label.as_str()];
        let resolve = by_labels(&r.columns, &labels);
        if let Some(f) = d.filter.as_mut() {
            substitute(f, &resolve, "where clause", &no_pass)?;
        }
        for o in &mut d.order_by {
            substitute(&mut o.expr, &resolve, "order clause", &no_pass)?;
        }
        d.filter = and(r.filter.clone(), d.filter.take());
        d.table = r.tables[0].1.clone();
        d.alias = r.alias;
        Ok(true)
    }

    /// INSERT (VALUES, SELECT, REPLACE, ON DUPLICATE KEY UPDATE) through a view: the base
    /// table and its column list (false: `ins` names no view). Through a join view the
    /// columns must be given and be one table's (1394, 1393).
    pub(crate) fn insert_through_view(&mut self, ins: &mut Insert) -> Result<bool> {
        let view = ins.table.clone();
        let Some(r) = self.write_view(&view, Verb::Insert)? else { return Ok(false) };
        if r.join.is_some() && ins.columns.is_empty() {
            return Err(join_view_error(1394, &r.view));
        }
        let named: Vec<String> = if ins.columns.is_empty() {
            r.columns.iter().map(|(n, _)| n.clone()).collect()
        } else {
            ins.columns.clone()
        };
        // The columns written: plain, one table's, none twice (mysqld: the view is not
        // insertable-into otherwise; a single-table view must be insertable as a whole).
        let mut written: Vec<(Option<String>, String)> = Vec::with_capacity(named.len());
        let checked: Vec<&Expr> = if r.join.is_some() {
            let mut v = Vec::new();
            for c in &named {
                let Some((_, x)) = r.columns.iter().find(|(n, _)| n.eq_ignore_ascii_case(c)) else {
                    return Err(SqlError::UnknownColumn {
                        column: c.clone(),
                        context: "field list",
                    });
                };
                v.push(x);
            }
            v
        } else {
            r.columns.iter().map(|(_, x)| x).collect()
        };
        for x in checked {
            match plain(x) {
                Some((t, b)) if !written.iter().any(|(_, o)| o.eq_ignore_ascii_case(b)) => {
                    written.push((t.map(str::to_string), b.to_string()))
                }
                _ => return Err(not_writable(&view.name, Verb::Insert)),
            }
        }
        let mut base_columns = Vec::with_capacity(named.len());
        let mut label: Option<String> = None;
        for c in &named {
            let Some(k) = r.columns.iter().position(|(n, _)| n.eq_ignore_ascii_case(c)) else {
                return Err(SqlError::UnknownColumn { column: c.clone(), context: "field list" });
            };
            let Some((t, b)) = plain(&r.columns[k].1) else {
                return Err(not_writable(&view.name, Verb::Insert));
            };
            if let Some(t) = t {
                match &label {
                    Some(l) if !l.eq_ignore_ascii_case(t) => {
                        return Err(join_view_error(1393, &r.view))
                    }
                    _ => label = Some(t.to_string()),
                }
            }
            base_columns.push(b.to_string());
        }
        let target = match &label {
            Some(l) if r.join.is_some() => self.join_target(&r, l, Verb::Insert)?,
            _ => r.tables[0].1.clone(),
        };
        // Every base column left out needs a default (mysqld's
        // `check_that_all_fields_are_given_values` for a view: 1423).
        let (_, schema, _) = self.resolve_table(&target)?;
        for col in &schema.columns {
            let given = base_columns.iter().any(|b| b.eq_ignore_ascii_case(&col.name));
            let defaulted =
                col.default.is_some() || col.nullable || col.auto_increment || col.default_now;
            if !given && !defaulted {
                return Err(SqlError::Other {
                    code: 1423,
                    sqlstate: "HY000",
                    message: format!(
                        "Field of view '{}' underlying table doesn't have a default value",
                        r.view
                    ),
                });
            }
        }
        // ON DUPLICATE KEY UPDATE: targets and expressions over the written table (a join
        // view's qualifier dropped: the INSERT names one table); the row alias keeps its
        // names (they become the proposed row's columns, write.rs).
        let row_alias = ins.row_alias.clone();
        if let Some((_, cols)) = ins.row_alias.as_mut() {
            if cols.is_empty() {
                *cols = named.clone();
            }
        }
        let alias_cols = ins.row_alias.as_ref().map(|(_, c)| c.clone()).unwrap_or_default();
        let pass = |t: Option<&str>, c: &str| match (&row_alias, t) {
            (Some((a, _)), Some(t)) => a.eq_ignore_ascii_case(t),
            (Some(_), None) => {
                !r.columns.iter().any(|(n, _)| n.eq_ignore_ascii_case(c))
                    && alias_cols.iter().any(|n| n.eq_ignore_ascii_case(c))
            }
            _ => false,
        };
        let labels = [view.name.as_str()];
        let in_view = by_labels(&r.columns, &labels);
        let resolve = |t: Option<&str>, c: &str| match in_view(t, c)? {
            Expr::Name { table: Some(l), column }
                if label.as_deref().is_some_and(|w| w.eq_ignore_ascii_case(&l)) =>
            {
                Some(Expr::Name { table: None, column })
            }
            Expr::Name { table: Some(_), .. } => None,
            x => Some(x),
        };
        for (c, e) in &mut ins.on_duplicate {
            match resolve(None, c) {
                Some(Expr::Name { table: None, column }) => *c = column,
                Some(_) => {
                    return Err(SqlError::Other {
                        code: 1348,
                        sqlstate: "HY000",
                        message: format!("Column '{c}' is not updatable"),
                    })
                }
                None => {
                    return Err(SqlError::UnknownColumn {
                        column: c.clone(),
                        context: "field list",
                    })
                }
            }
            substitute(e, &resolve, "field list", &pass)?;
        }
        ins.columns = base_columns;
        ins.table = target;
        Ok(true)
    }

    /// The running statement's CHECK OPTION on a row about to be written to table `t`
    /// (1369 when the row fails it).
    pub(crate) fn view_check_row(&mut self, t: &crate::write::Target, row: &[Value]) -> Result<()> {
        let Some(check) = self.view_check.as_mut() else { return Ok(()) };
        if !check.table.eq_ignore_ascii_case(&t.schema.name) {
            return Ok(());
        }
        let bound = match check.bound.take() {
            Some(b) => b,
            None => {
                let cond = check.cond.clone();
                self.binder(Some(&t.schema), &[], "where clause").bind(&cond)?
            }
        };
        let ok = crate::exec::matches(Some(&bound), row);
        let Some(check) = self.view_check.as_mut() else { return Ok(()) };
        check.bound = Some(bound);
        if ok? {
            return Ok(());
        }
        Err(SqlError::Other {
            code: 1369,
            sqlstate: "HY000",
            message: format!("CHECK OPTION failed '{}'", check.view),
        })
    }

    /// Whether view `db.name` (definition `def`) may be written through: its SELECT is
    /// mergeable and so is every view below it (information_schema.VIEWS.IS_UPDATABLE).
    pub(crate) fn view_is_updatable(&self, db: &str, def: &ViewDef, depth: usize) -> bool {
        let Ok(parsed) = crate::parse::parse(&def.body) else { return false };
        let Stmt::Select(select) = parsed.stmt else { return false };
        self.select_is_updatable(db, &select, def, depth)
    }

    /// [`updatable`] for a view's SELECT (in database `db`), with the view it reads, if any,
    /// updatable too (CREATE VIEW's 1368 for CHECK OPTION, IS_UPDATABLE).
    /// Whether CHECK OPTION may be declared on a view of `select` (1368 otherwise): its own
    /// query mergeable and writable, the views it reads not looked into — mysqld's
    /// `mysql_register_view` stores `updatable_view` from `LEX::can_be_merged` and the
    /// algorithm alone. A dump restored in order (mariadb-dump, mysqldump) creates a view over
    /// another view's placeholder (`SELECT 1 AS id`) before that placeholder is replaced.
    pub(crate) fn own_select_is_updatable(&self, db: &str, select: &Select, def: &ViewDef) -> bool {
        let mut s = select.clone();
        super::qualify(&mut s, db);
        updatable(&s, def)
    }

    pub(crate) fn select_is_updatable(
        &self,
        db: &str,
        select: &Select,
        def: &ViewDef,
        depth: usize,
    ) -> bool {
        let mut s = select.clone();
        super::qualify(&mut s, db);
        if !updatable(&s, def) || depth >= super::MAX_NESTING {
            return false;
        }
        if !s.joins.is_empty() {
            // A join view: writable over stored tables only (views/write.rs).
            let first = s.from.iter();
            return first
                .chain(s.joins.iter().map(|j| &j.table))
                .all(|t| self.lookup_view(t).is_none());
        }
        match s.from.as_ref().and_then(|f| self.lookup_view(f)) {
            Some((ldb, _, ldef)) => self.view_is_updatable(&ldb, &ldef, depth + 1),
            None => true,
        }
    }
}

/// `columns` renamed by a view's column list (`names`, empty: kept); None when the counts
/// differ (the view no longer matches its definition).
/// The view's columns as (label, expression over what `resolve` names) and its WHERE, both
/// substituted; `wildcard(None)` expands `*`, `wildcard(Some(t))` expands `t.*` (None: no
/// such table). Any failure is 1356 for view `db.name`.
fn project(
    (db, name): (&str, &str),
    select: &mut Select,
    def: &ViewDef,
    resolve: Resolver<'_>,
    wildcard: &dyn Fn(Option<&str>) -> Option<Columns>,
) -> Result<(Columns, Option<Expr>)> {
    let unknown = || super::invalid_view(db, name);
    let substitute =
        |e: &mut Expr, context| substitute(e, resolve, context, &no_pass).map_err(|_| unknown());
    let mut columns = Vec::new();
    for item in &select.items {
        match item {
            SelectItem::Wildcard => columns.extend(wildcard(None).ok_or_else(unknown)?),
            SelectItem::TableWildcard(_, t) => {
                columns.extend(wildcard(Some(t)).ok_or_else(unknown)?)
            }
            SelectItem::Expr { expr, label, .. } => {
                let mut x = expr.clone();
                substitute(&mut x, "field list")?;
                columns.push((label.clone(), x));
            }
        }
    }
    let columns = relabel(columns, &def.columns).ok_or_else(unknown)?;
    let filter = match select.filter.take() {
        Some(mut f) => {
            substitute(&mut f, "where clause")?;
            Some(f)
        }
        None => None,
    };
    Ok((columns, filter))
}

fn relabel(mut columns: Vec<(String, Expr)>, names: &[String]) -> Option<Vec<(String, Expr)>> {
    if names.is_empty() {
        return Some(columns);
    }
    if names.len() != columns.len() {
        return None;
    }
    for ((n, _), c) in columns.iter_mut().zip(names) {
        *n = c.clone();
    }
    Some(columns)
}
