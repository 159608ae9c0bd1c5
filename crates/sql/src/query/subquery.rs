//! Subqueries in expressions (issue 20): scalar `(SELECT …)`, `[NOT] IN (SELECT …)`,
//! `[NOT] EXISTS`, `op ANY|SOME|ALL (SELECT …)` and row subqueries `(a, b) = (SELECT x, y …)`,
//! uncorrelated or correlated, in the select list, WHERE, HAVING, ORDER BY and GROUP BY of a
//! SELECT, in an inner join's ON, in UPDATE / DELETE and INSERT … SELECT, and (uncorrelated)
//! in INSERT VALUES.
//!
//! How: before a SELECT with subqueries is bound, each subquery of its clauses is *lifted*
//! (mysqld's `Item_subselect::fix_fields`): its names that resolve neither in its own FROM (nor
//! in the FROMs of subqueries nested in it) but in the enclosing query's tables become
//! [`Expr::OuterRef`]s (`find_field_in_tables` walking out through the outer contexts).
//! - No outer reference: the subquery runs once per execution (mysqld caches uncorrelated
//!   subqueries the same way, `Item_subselect::is_uncacheable`) and its node is replaced by
//!   the equivalent constant expression: a literal (scalar, EXISTS), an IN list, or the OR/AND
//!   of the comparisons with each value (ANY/ALL; `Item_in_subselect`'s three-valued result:
//!   TRUE if a row matches, else NULL if a compared value was NULL, else FALSE; an empty set is
//!   FALSE for IN/ANY and TRUE for ALL, whatever the left side).
//! - Outer references: the subquery is a *dependent* one. The outer query's joined rows are
//!   read (its WHERE terms without dependent subqueries applied during the join), then for each
//!   row the subquery runs with the outer values as literals (its result cached per distinct
//!   outer values), its value appended to the row as an extra column, the remaining WHERE terms
//!   are checked, and the rows go through the usual grouping / ORDER BY / LIMIT
//!   (`Session::finish_select`). Over many outer rows, a subquery correlated only through
//!   `inner_int_column = outer` WHERE terms is read once and bucketed by those keys
//!   ([`Memo`]) instead of run per row.
//! - UPDATE / DELETE with correlated subqueries: a SELECT … FOR UPDATE of the statement's
//!   WHERE / ORDER BY / LIMIT reads the target rows' primary keys and the SET's subquery
//!   values, then each row is written through its key (`Session::update_correlated`).
//!
//! Invariants: a subquery node never reaches the binder of a statement this module runs (the
//! binder answers 1235 for one that does); nesting is bounded by the parser at
//! [`crate::ast::MAX_SELECT_NESTING`] (1473), so the recursion here (lift → run → lift) is bounded too.
//!
//! Why by hand: the semantics are mysqld's (`Item_singlerow_subselect`, `Item_exists_subselect`,
//! `Item_in_subselect`, `Item_allany_subselect` in item_subselect.cc); no crate provides them
//! over this engine.

use std::collections::HashMap;

use engine::{encode_key, Row, Value};

use crate::ast::{BinOp, Delete, Expr, Func, Insert, JoinKind, Select, SubqueryKind, UnOp, Update};
use crate::error::{Result, SqlError};
use crate::eval::{eval, truth};
use crate::exec::count_value;
use crate::output::{flags, Output, ResultColumn};
use crate::scope::Scope;
use crate::session::Session;

/// The expressions of a SELECT's own clauses (not of its derived tables).
pub(crate) fn clauses_mut(s: &mut Select) -> Vec<&mut Expr> {
    let mut v: Vec<&mut Expr> = Vec::new();
    for item in &mut s.items {
        if let crate::ast::SelectItem::Expr { expr, .. } = item {
            v.push(expr);
        }
    }
    v.extend(s.filter.iter_mut());
    v.extend(s.group_by.iter_mut());
    v.extend(s.having.iter_mut());
    v.extend(s.order_by.iter_mut().map(|o| &mut o.expr));
    for j in &mut s.joins {
        v.extend(j.on.iter_mut());
    }
    v
}

/// The direct children of an expression, mutably (a subquery's: its left operands only).
pub(crate) fn children_mut(e: &mut Expr) -> Vec<&mut Expr> {
    match e {
        Expr::Unary(_, x)
        | Expr::IsNull { expr: x, .. }
        | Expr::InsertValue(x)
        | Expr::Collate(x, _)
        | Expr::Collated(_, x)
        | Expr::LikeEscape(x, _) => vec![x.as_mut()],
        Expr::Binary(_, a, b) | Expr::Like { expr: a, pattern: b, .. } => {
            vec![a.as_mut(), b.as_mut()]
        }
        Expr::Between { expr, low, high, .. } => vec![expr.as_mut(), low.as_mut(), high.as_mut()],
        Expr::InList { expr, list, .. } => {
            let mut v = vec![expr.as_mut()];
            v.extend(list.iter_mut());
            v
        }
        Expr::Case { operand, whens, otherwise } => {
            let mut v: Vec<&mut Expr> = Vec::new();
            if let Some(o) = operand {
                v.push(o.as_mut());
            }
            for (w, t) in whens {
                v.push(w);
                v.push(t);
            }
            if let Some(o) = otherwise {
                v.push(o.as_mut());
            }
            v
        }
        Expr::Func(_, args) | Expr::Str(_, args) => args.iter_mut().collect(),
        Expr::AggCall { arg: Some(a), .. } => vec![a.as_mut()],
        Expr::GroupConcat(g) => {
            let g = g.as_mut();
            let mut v: Vec<&mut Expr> = g.args.iter_mut().collect();
            v.extend(g.order.iter_mut().map(|o| &mut o.expr));
            v
        }
        Expr::Subquery(q) => q.left.iter_mut().collect(),
        _ => Vec::new(),
    }
}

use crate::ast::{expr_has_subquery, has_subquery};

/// `e` with every [`Expr::OuterRef`] `i` replaced by `values[i]`, nested subqueries included.
fn substitute(e: &mut Expr, values: &[Value]) {
    if let Expr::OuterRef(i) = e {
        *e = Expr::Lit(values.get(*i).cloned().unwrap_or(Value::Null));
        return;
    }
    if let Expr::Subquery(q) = e {
        for x in clauses_mut(&mut q.query) {
            substitute(x, values);
        }
    }
    if let Expr::Query(q) = e {
        for b in q.blocks_mut() {
            for x in clauses_mut(b) {
                substitute(x, values);
            }
        }
    }
    for c in children_mut(e) {
        substitute(c, values);
    }
}

/// A balanced AND/OR tree (so a long list stays shallow for the recursions over it).
fn balanced(mut terms: Vec<Expr>, op: BinOp) -> Option<Expr> {
    while terms.len() > 1 {
        let mut next = Vec::with_capacity(terms.len().div_ceil(2));
        let mut it = terms.into_iter();
        while let Some(a) = it.next() {
            next.push(match it.next() {
                Some(b) => Expr::Binary(op, Box::new(a), Box::new(b)),
                None => a,
            });
        }
        terms = next;
    }
    terms.pop()
}

fn operand_columns(n: usize) -> SqlError {
    SqlError::Other {
        code: 1241,
        sqlstate: "21000",
        message: format!("Operand should contain {n} column(s)"),
    }
}

fn not(e: Expr) -> Expr {
    Expr::Unary(UnOp::Not, Box::new(e))
}

/// The constant expression equivalent to a subquery whose result is `rows` (`columns` wide)
/// for the left operands `left` (see the module doc for the semantics).
fn replacement(
    kind: SubqueryKind,
    left: Vec<Expr>,
    columns: usize,
    rows: Vec<Row>,
) -> Result<Expr> {
    let want = match kind {
        SubqueryKind::Scalar => 1,
        SubqueryKind::Exists => columns,
        SubqueryKind::In | SubqueryKind::Row(_) => left.len(),
        // mysqld: a row operand of ANY/ALL is 1241 unless the comparison is = (IN) / <> ALL.
        SubqueryKind::Any(BinOp::Eq) | SubqueryKind::All(BinOp::NotEq) => left.len(),
        SubqueryKind::Any(_) | SubqueryKind::All(_) => {
            if left.len() != 1 {
                return Err(operand_columns(1));
            }
            1
        }
    };
    if columns != want {
        return Err(operand_columns(want));
    }
    let too_many = || SqlError::Other {
        code: 1242,
        sqlstate: "21000",
        message: "Subquery returns more than 1 row".into(),
    };
    let lit = |v: Value| Expr::Lit(v);
    let row_eq = |op: BinOp, r: Row| -> Option<Expr> {
        let eqs: Vec<Expr> = left
            .iter()
            .zip(r)
            .map(|(a, b)| Expr::Binary(op, Box::new(a.clone()), Box::new(lit(b))))
            .collect();
        balanced(eqs, BinOp::And)
    };
    let membership = |rows: Vec<Row>| -> Result<Expr> {
        if rows.is_empty() {
            return Ok(lit(Value::Int(0)));
        }
        if left.len() == 1 {
            let list = rows.into_iter().map(|mut r| lit(r.swap_remove(0))).collect();
            return Ok(Expr::InList { expr: Box::new(left[0].clone()), list, negated: false });
        }
        let terms: Vec<Expr> = rows.into_iter().filter_map(|r| row_eq(BinOp::Eq, r)).collect();
        balanced(terms, BinOp::Or).ok_or_else(|| operand_columns(left.len()))
    };
    Ok(match kind {
        SubqueryKind::Scalar => match rows.len() {
            0 => lit(Value::Null),
            1 => lit(rows
                .into_iter()
                .next()
                .and_then(|r| r.into_iter().next())
                .unwrap_or(Value::Null)),
            _ => return Err(too_many()),
        },
        SubqueryKind::Exists => lit(Value::Int(i64::from(!rows.is_empty()))),
        SubqueryKind::In | SubqueryKind::Any(BinOp::Eq) => membership(rows)?,
        SubqueryKind::All(BinOp::NotEq) => {
            if rows.is_empty() {
                lit(Value::Int(1))
            } else {
                not(membership(rows)?)
            }
        }
        SubqueryKind::Any(op) | SubqueryKind::All(op) => {
            let all = matches!(kind, SubqueryKind::All(_));
            if rows.is_empty() {
                return Ok(lit(Value::Int(i64::from(all))));
            }
            let terms: Vec<Expr> = rows
                .into_iter()
                .map(|mut r| {
                    Expr::Binary(op, Box::new(left[0].clone()), Box::new(lit(r.swap_remove(0))))
                })
                .collect();
            balanced(terms, if all { BinOp::And } else { BinOp::Or }).unwrap_or(lit(Value::Null))
        }
        SubqueryKind::Row(op) => match rows.len() {
            0 => lit(Value::Null),
            1 => {
                let r = rows.into_iter().next().unwrap_or_default();
                let each = if op == BinOp::NullSafeEq { BinOp::NullSafeEq } else { BinOp::Eq };
                let all = row_eq(each, r).ok_or_else(|| operand_columns(left.len()))?;
                if op == BinOp::NotEq {
                    not(all)
                } else {
                    all
                }
            }
            _ => return Err(too_many()),
        },
    })
}

/// The names a query's FROM makes visible: per table its label and columns (lower case), and
/// the select list's aliases.
struct Names {
    tables: Vec<(String, Vec<String>)>,
    aliases: Vec<String>,
}

impl Names {
    fn has(&self, table: Option<&str>, column: &str) -> bool {
        let column = column.to_ascii_lowercase();
        match table {
            Some(t) => {
                let t = t.to_ascii_lowercase();
                self.tables.iter().any(|(l, cols)| *l == t && cols.contains(&column))
            }
            None => {
                self.tables.iter().any(|(_, cols)| cols.contains(&column))
                    || self.aliases.contains(&column)
            }
        }
    }
}

/// The enclosing query's names: how an outer reference is resolved and read.
pub(crate) enum Outer<'a> {
    /// A SELECT's scope: the name's joined-row position.
    Scope(&'a Scope),
    /// No enclosing row (a FROM-less SELECT, or a write statement's target table, whose
    /// references are refused as a correlated subquery there).
    Table(Option<(&'a engine::TableSchema, String)>),
}

/// A dependent subquery of the statement being run.
struct Dependent {
    kind: SubqueryKind,
    /// The left operands, bound over the outer row.
    left: Vec<Expr>,
    /// The outer references' expressions (bound over the outer row), by `OuterRef` index.
    outer: Vec<Expr>,
    query: Select,
    /// Results by the outer values (encoded key).
    cache: HashMap<Box<[u8]>, Value>,
    /// The subquery's rows materialized once and bucketed by its correlation keys (when
    /// [`Session::memo_for`] found it worth it).
    memo: Option<Memo>,
}

/// Outer rows from which a dependent subquery is materialized once rather than run per row.
const MEMO_MIN_OUTER: usize = 32;

/// Materialized rows past this many per outer row (plus a floor) are not kept: the subquery
/// runs per outer row instead.
const MEMO_ROWS_PER_OUTER: usize = 64;
const MEMO_ROWS_FLOOR: usize = 200_000;

/// A dependent subquery whose outer references all sit in WHERE terms `inner_col = outer`
/// over integer columns, materialized once (mysqld 8.0's `subquery_to_derived`, which turns
/// such a subquery into a derived table grouped by the correlated columns,
/// `Query_block::transform_scalar_subqueries_to_join_with_derived`): its FROM and remaining
/// WHERE are read once, the rows bucketed by the inner key columns, and each outer row's
/// result is the grouping / ORDER BY / LIMIT of its bucket (an empty bucket gives the empty
/// set's result: NULL for SUM, 0 for COUNT, as running the subquery would).
///
/// Invariant: the buckets are keyed by exact integers, so a bucket holds exactly the rows
/// for which every key term `inner_col = outer_value` is TRUE when the outer values are
/// integers; a NULL outer value matches no row; any other outer value type is not looked up
/// here (the subquery runs for that row as before).
struct Memo {
    plan: crate::exec::SelectPlan,
    width: usize,
    distinct: bool,
    limit: Option<u64>,
    offset: u64,
    /// Per key: the `OuterRef` index it is compared with.
    outer: Vec<usize>,
    buckets: HashMap<Vec<i128>, Vec<Row>>,
}

/// What lifting found in one statement.
#[derive(Default)]
struct Lifted {
    dependent: Vec<Dependent>,
    /// Select items that were a subquery: (item index, its result column).
    columns: Vec<(usize, ResultColumn)>,
}

impl Session {
    /// Runs any SELECT: with subqueries through this module, else the join or the
    /// single-table path.
    pub(crate) fn run_select(&mut self, s: &Select, params: &[Value]) -> Result<Output> {
        if let Some(q) = s.query_expr() {
            return self.run_query(q, params);
        }
        if has_subquery(s) {
            self.subquery_select(s, params)
        } else if s.is_multi() {
            self.join_select(s, params)
        } else {
            self.select(s, params)
        }
    }

    /// The result columns of any SELECT (PREPARE): a subquery is typed from its own columns.
    pub(crate) fn run_select_columns(&mut self, s: &Select) -> Result<Vec<ResultColumn>> {
        if let Some(q) = s.query_expr() {
            return self.query_columns(q);
        }
        if !has_subquery(s) {
            return if s.is_multi() { self.join_select_columns(s) } else { self.select_columns(s) };
        }
        let mut q = s.clone();
        let mut typed = Vec::new();
        for (n, item) in q.items.iter_mut().enumerate() {
            if let crate::ast::SelectItem::Expr { expr: Expr::Subquery(sq), .. } = item {
                if sq.kind == SubqueryKind::Scalar {
                    let mut inner = sq.query.clone();
                    for x in clauses_mut(&mut inner) {
                        null_names(x);
                    }
                    if let Ok(cols) = self.run_select_columns(&inner) {
                        if let Some(c) = cols.into_iter().next() {
                            typed.push((n, c));
                        }
                    }
                }
            }
        }
        for x in clauses_mut(&mut q) {
            null_subqueries(x);
        }
        let mut cols =
            if q.is_multi() { self.join_select_columns(&q)? } else { self.select_columns(&q)? };
        for (n, c) in typed {
            if let Some(slot) = cols.get_mut(n) {
                let name = std::mem::take(&mut slot.name);
                *slot = c;
                slot.name = name;
                slot.flags &= !flags::NOT_NULL;
            }
        }
        Ok(cols)
    }

    /// The names visible in a query's own FROM.
    fn query_names(&mut self, q: &Select) -> Result<Names> {
        let mut tables = Vec::new();
        let first = q.from.iter().map(|t| (t, q.alias.as_ref(), q.derived.as_deref()));
        let rest = q.joins.iter().map(|j| (&j.table, j.alias.as_ref(), j.derived.as_deref()));
        let all: Vec<_> = first.chain(rest).collect();
        for (t, alias, derived) in all {
            if q.joins.is_empty()
                && q.derived.is_none()
                && t.db.is_none()
                && t.name.eq_ignore_ascii_case("dual")
            {
                continue;
            }
            let cols: Vec<String> = match derived {
                Some(inner) => self
                    .run_select_columns(inner)?
                    .into_iter()
                    .map(|c| c.name.to_ascii_lowercase())
                    .collect(),
                None => {
                    let schema = match self.information_schema_table(t) {
                        Some((schema, _)) => schema,
                        None => self.resolve_table(t)?.1,
                    };
                    schema.columns.iter().map(|c| c.name.to_ascii_lowercase()).collect()
                }
            };
            let label = alias.unwrap_or(&t.name).to_ascii_lowercase();
            tables.push((label, cols));
        }
        let aliases = q
            .items
            .iter()
            .filter_map(|i| match i {
                crate::ast::SelectItem::Expr { label, aliased: true, .. } => {
                    Some(label.to_ascii_lowercase())
                }
                _ => None,
            })
            .collect();
        Ok(Names { tables, aliases })
    }

    /// Marks the outer references of `e` (inside a subquery whose visible names are
    /// `inner`, innermost last): each becomes an `OuterRef` into `outer_exprs`.
    fn mark(
        &mut self,
        e: &mut Expr,
        inner: &mut Vec<Names>,
        outer: &Outer<'_>,
        outer_exprs: &mut Vec<Expr>,
    ) -> Result<()> {
        if let Expr::Name { table, column } = e {
            if inner.iter().any(|n| n.has(table.as_deref(), column)) {
                return Ok(());
            }
            let bound = match outer {
                Outer::Scope(sc) => sc
                    .resolve(table.as_deref(), column, "where clause")
                    .ok()
                    .map(|p| crate::exec::column_expr(Some(&sc.schema), p)),
                Outer::Table(Some((schema, label))) => {
                    let qualifies = table.as_ref().is_none_or(|t| t.eq_ignore_ascii_case(label));
                    match schema.column_position(column) {
                        Some(p) if qualifies => Some(crate::exec::column_expr(Some(schema), p)),
                        _ => None,
                    }
                }
                Outer::Table(None) => None,
            };
            if let Some(b) = bound {
                let i = match outer_exprs.iter().position(|x| *x == b) {
                    Some(i) => i,
                    None => {
                        outer_exprs.push(b);
                        outer_exprs.len() - 1
                    }
                };
                *e = Expr::OuterRef(i);
            }
            return Ok(());
        }
        if let Expr::Query(q) = e {
            // A query expression's blocks: each its own scope (`query/union.rs`).
            for b in q.blocks_mut() {
                let names = self.query_names(b)?;
                inner.push(names);
                let r = self.mark_select(b, inner, outer, outer_exprs);
                inner.pop();
                r?;
            }
            return Ok(());
        }
        if let Expr::Subquery(q) = e {
            for x in q.left.iter_mut() {
                self.mark(x, inner, outer, outer_exprs)?;
            }
            let names = self.query_names(&q.query)?;
            inner.push(names);
            let r = self.mark_select(&mut q.query, inner, outer, outer_exprs);
            inner.pop();
            return r;
        }
        for c in children_mut(e) {
            self.mark(c, inner, outer, outer_exprs)?;
        }
        Ok(())
    }

    fn mark_select(
        &mut self,
        q: &mut Select,
        inner: &mut Vec<Names>,
        outer: &Outer<'_>,
        outer_exprs: &mut Vec<Expr>,
    ) -> Result<()> {
        for x in clauses_mut(q) {
            self.mark(x, inner, outer, outer_exprs)?;
        }
        Ok(())
    }

    /// Lifts the subqueries of `e` (see the module doc): uncorrelated ones are run and
    /// replaced; dependent ones (allowed when `width` is Some: the outer row's width) become
    /// an extra column of the outer row.
    fn lift(
        &mut self,
        e: &mut Expr,
        outer: &Outer<'_>,
        width: Option<usize>,
        params: &[Value],
        lifted: &mut Lifted,
    ) -> Result<()> {
        let Expr::Subquery(sq) = e else {
            for c in children_mut(e) {
                self.lift(c, outer, width, params, lifted)?;
            }
            return Ok(());
        };
        for x in sq.left.iter_mut() {
            self.lift(x, outer, width, params, lifted)?;
        }
        let mut query = sq.query.clone();
        let mut outer_exprs = Vec::new();
        let mut inner = vec![self.query_names(&query)?];
        self.mark_select(&mut query, &mut inner, outer, &mut outer_exprs)?;
        if outer_exprs.is_empty() {
            let (columns, rows) = match self.run_select(&query, params)? {
                Output::Rows { columns, rows } => (columns, rows),
                Output::Ok { .. } => return Err(SqlError::NotSupported("this subquery".into())),
            };
            if sq.kind == SubqueryKind::Scalar {
                if let Some(c) = columns.first() {
                    lifted.columns.push((usize::MAX, c.clone()));
                }
            }
            *e = replacement(sq.kind, std::mem::take(&mut sq.left), columns.len(), rows)?;
            return Ok(());
        }
        let (Some(width), Outer::Scope(sc)) = (width, outer) else {
            return Err(SqlError::NotSupported(
                "correlated subqueries in UPDATE, DELETE and INSERT".into(),
            ));
        };
        let mut left = Vec::with_capacity(sq.left.len());
        {
            let mut b = self.binder(Some(&sc.schema), params, "where clause");
            b.scope = Some(sc);
            for x in &sq.left {
                left.push(b.bind(x)?);
            }
        }
        if sq.kind == SubqueryKind::Scalar {
            let mut typed = query.clone();
            for x in clauses_mut(&mut typed) {
                substitute(x, &vec![Value::Null; outer_exprs.len()]);
            }
            if let Some(c) = self.run_select_columns(&typed)?.into_iter().next() {
                lifted.columns.push((usize::MAX, c));
            }
        }
        let k = lifted.dependent.len();
        lifted.dependent.push(Dependent {
            kind: sq.kind,
            left,
            outer: outer_exprs,
            query,
            cache: HashMap::new(),
            memo: None,
        });
        // Not a bare column: the select list types it from the subquery (`Lifted::columns`).
        *e = Expr::Func(Func::Coalesce, vec![Expr::Col(width + k)]);
        Ok(())
    }

    /// Lifts every subquery of a SELECT's clauses; records which select items were scalar
    /// subqueries (typed from their first column).
    fn lift_select(
        &mut self,
        q: &mut Select,
        outer: &Outer<'_>,
        width: Option<usize>,
        params: &[Value],
    ) -> Result<Lifted> {
        let mut lifted = Lifted::default();
        for (n, item) in q.items.iter_mut().enumerate() {
            if let crate::ast::SelectItem::Expr { expr, .. } = item {
                let scalar = matches!(expr, Expr::Subquery(sq) if sq.kind == SubqueryKind::Scalar);
                let before = lifted.columns.len();
                self.lift(expr, outer, width, params, &mut lifted)?;
                if scalar {
                    if let Some(c) = lifted.columns.get_mut(before) {
                        c.0 = n;
                    }
                }
            }
        }
        let mut rest: Vec<&mut Expr> = Vec::new();
        rest.extend(q.filter.iter_mut());
        rest.extend(q.group_by.iter_mut());
        rest.extend(q.having.iter_mut());
        rest.extend(q.order_by.iter_mut().map(|o| &mut o.expr));
        for j in &mut q.joins {
            rest.extend(j.on.iter_mut());
        }
        for x in rest {
            self.lift(x, outer, width, params, &mut lifted)?;
        }
        lifted.columns.retain(|(n, _)| *n != usize::MAX);
        Ok(lifted)
    }

    /// A SELECT whose clauses hold subqueries.
    fn subquery_select(&mut self, s: &Select, params: &[Value]) -> Result<Output> {
        let mut tables = Vec::new();
        for sq in subqueries(s) {
            crate::ast::base_tables(&sq.query, &mut tables);
        }
        for t in &tables {
            self.check_privileges(&crate::ast::Stmt::Select(Select {
                from: Some((*t).clone()),
                ..Select::empty()
            }))?;
        }
        if s.from.is_none() {
            let mut q = s.clone();
            let lifted = self.lift_select(&mut q, &Outer::Table(None), None, params)?;
            let out = self.select(&q, params)?;
            return Ok(retype(out, &lifted.columns));
        }
        let mut p = self.join_scope(s, Some(params))?;
        let width = p.scope.schema.columns.len();
        let mut lifted =
            self.lift_select(&mut p.select, &Outer::Scope(&p.scope), Some(width), params)?;
        let mut sel = self.plan_select_in(&p.select, Some(params), Some(&p.scope))?;
        let limit = s.limit.as_ref().map(|l| count_value(self, l, params)).transpose()?;
        let offset =
            s.offset.as_ref().map(|o| count_value(self, o, params)).transpose()?.unwrap_or(0);
        let dependent = |e: &Expr| {
            let mut d = false;
            e.walk(&mut |x| d |= matches!(x, Expr::Col(c) if *c >= width));
            d
        };
        let mut pre = Vec::new();
        let mut post = Vec::new();
        // A dependent term of an inner join's ON is a WHERE term (the same rows pass); an
        // outer join's would decide NULL-extension, which the post-join check cannot.
        for (i, on) in sel.join_on.iter_mut().enumerate() {
            let Some(e) = on.take() else { continue };
            if !dependent(&e) {
                *on = Some(e);
                continue;
            }
            if !matches!(p.kinds.get(i + 1), Some(JoinKind::Inner | JoinKind::Straight)) {
                return Err(SqlError::NotSupported(
                    "correlated subqueries in the ON of an outer join".into(),
                ));
            }
            let mut terms = Vec::new();
            and_terms(e, &mut terms);
            let (dep, indep): (Vec<Expr>, Vec<Expr>) = terms.into_iter().partition(dependent);
            post.extend(dep);
            *on = balanced(indep, BinOp::And);
        }
        if let Some(f) = sel.join_filter.take() {
            let mut terms = Vec::new();
            and_terms(f, &mut terms);
            for t in terms {
                if dependent(&t) {
                    post.push(t);
                } else {
                    pre.push(t);
                }
            }
        }
        let plan = super::plan::plan(
            &p.scope,
            &p.kinds,
            std::mem::take(&mut sel.join_on),
            balanced(pre, BinOp::And),
        );
        let mut rows = self.read_joined(&p, &plan, s.for_update, !s.for_update || s.for_share)?;
        if rows.len() >= MEMO_MIN_OUTER {
            for d in &mut lifted.dependent {
                d.memo = self.memo_for(&d.query, rows.len(), params)?;
            }
        }
        if !lifted.dependent.is_empty() {
            let mut kept = Vec::with_capacity(rows.len());
            for mut row in rows {
                for k in 0..lifted.dependent.len() {
                    let v = self.dependent_value(&mut lifted.dependent[k], &row, params)?;
                    row.push(v);
                }
                let mut ok = true;
                for t in &post {
                    if truth(&eval(t, &row, &[])?) != Some(true) {
                        ok = false;
                        break;
                    }
                }
                if ok {
                    kept.push(row);
                }
            }
            rows = kept;
        }
        let total = width + lifted.dependent.len();
        // The output conforms each value to its column's type: a scalar subquery's column is
        // the subquery's (a DECIMAL SUM keeps its scale), not the placeholder's.
        for (n, c) in &lifted.columns {
            if let Some(slot) = sel.columns.get_mut(*n) {
                slot.mysql_type = c.mysql_type;
                slot.flags = (slot.flags & !flags::UNSIGNED) | (c.flags & flags::UNSIGNED);
            }
        }
        let out = self.finish_select(sel, rows, total, s.distinct, limit, offset)?;
        Ok(retype(out, &lifted.columns))
    }

    /// A dependent subquery's value for one outer row.
    fn dependent_value(
        &mut self,
        d: &mut Dependent,
        row: &[Value],
        params: &[Value],
    ) -> Result<Value> {
        let mut values = Vec::with_capacity(d.outer.len() + d.left.len());
        for x in &d.outer {
            values.push(eval(x, row, &[])?);
        }
        let mut left = Vec::with_capacity(d.left.len());
        for x in &d.left {
            left.push(eval(x, row, &[])?);
        }
        let mut key_vals = values.clone();
        key_vals.extend(left.iter().cloned());
        let key = encode_key(&key_vals);
        if let Some(v) = d.cache.get(&key) {
            return Ok(v.clone());
        }
        let hit = d.memo.as_ref().and_then(|m| memo_rows(m, &values).map(|rows| (m, rows)));
        let out = match hit {
            Some((m, rows)) => {
                self.finish_select(m.plan.clone(), rows, m.width, m.distinct, m.limit, m.offset)?
            }
            None => {
                let mut q = d.query.clone();
                for x in clauses_mut(&mut q) {
                    substitute(x, &values);
                }
                self.run_select(&q, params)?
            }
        };
        let (columns, rows) = match out {
            Output::Rows { columns, rows } => (columns, rows),
            Output::Ok { .. } => return Err(SqlError::NotSupported("this subquery".into())),
        };
        let left_exprs: Vec<Expr> = left.into_iter().map(Expr::Lit).collect();
        let e = replacement(d.kind, left_exprs, columns.len(), rows)?;
        let bound = self.binder(None, params, "where clause").bind(&e)?;
        let v = eval(&bound, &[], &[])?;
        d.cache.insert(key, v.clone());
        Ok(v)
    }

    /// The subquery `query` (its outer references still `OuterRef`s) materialized as a
    /// [`Memo`], when its shape allows it and the rows stay within bounds; None: run it per
    /// outer row.
    fn memo_for(
        &mut self,
        query: &Select,
        outer_rows: usize,
        params: &[Value],
    ) -> Result<Option<Memo>> {
        let mut q = query.clone();
        if q.from.is_none() {
            return Ok(None);
        }
        let Some(filter) = q.filter.take() else { return Ok(None) };
        let mut terms = Vec::new();
        ast_and_terms(filter, &mut terms);
        let mut keys = Vec::new();
        let mut rest = Vec::new();
        for t in terms {
            let key = match &t {
                Expr::Binary(BinOp::Eq, a, b) => match (a.as_ref(), b.as_ref()) {
                    (Expr::Name { table, column }, Expr::OuterRef(i))
                    | (Expr::OuterRef(i), Expr::Name { table, column }) => {
                        Some((table.clone(), column.clone(), *i))
                    }
                    _ => None,
                },
                _ => None,
            };
            match key {
                Some(k) => keys.push(k),
                None => rest.push(t),
            }
        }
        if keys.is_empty() {
            return Ok(None);
        }
        q.filter = balanced(rest, BinOp::And);
        if has_subquery(&q) {
            return Ok(None);
        }
        let mut correlated = false;
        for x in clauses_mut(&mut q) {
            x.walk(&mut |e| correlated |= matches!(e, Expr::OuterRef(_)));
        }
        if correlated {
            return Ok(None);
        }
        let p = self.join_scope(&q, Some(params))?;
        let mut positions = Vec::with_capacity(keys.len());
        for (table, column, _) in &keys {
            let Ok(pos) = p.scope.resolve(table.as_deref(), column, "where clause") else {
                return Ok(None);
            };
            match p.scope.schema.columns.get(pos) {
                Some(c) if matches!(c.ty, engine::ColumnType::Integer { .. }) => {}
                _ => return Ok(None),
            }
            positions.push(pos);
        }
        let mut sel = self.plan_select_in(&p.select, Some(params), Some(&p.scope))?;
        let limit = q.limit.as_ref().map(|l| count_value(self, l, params)).transpose()?;
        let offset =
            q.offset.as_ref().map(|o| count_value(self, o, params)).transpose()?.unwrap_or(0);
        let plan = super::plan::plan(
            &p.scope,
            &p.kinds,
            std::mem::take(&mut sel.join_on),
            sel.join_filter.take(),
        );
        let rows = self.read_joined(&p, &plan, false, true)?;
        if rows.len() > MEMO_ROWS_FLOOR.max(outer_rows.saturating_mul(MEMO_ROWS_PER_OUTER)) {
            return Ok(None);
        }
        let mut buckets: HashMap<Vec<i128>, Vec<Row>> = HashMap::new();
        'rows: for r in rows {
            let mut key = Vec::with_capacity(positions.len());
            for &pos in &positions {
                match r.get(pos) {
                    Some(Value::Int(v)) => key.push(i128::from(*v)),
                    Some(Value::UInt(v)) => key.push(i128::from(*v)),
                    // NULL (or, never for an integer column, anything else): `=` is not TRUE.
                    _ => continue 'rows,
                }
            }
            buckets.entry(key).or_default().push(r);
        }
        Ok(Some(Memo {
            plan: sel,
            width: p.scope.schema.columns.len(),
            distinct: q.distinct,
            limit,
            offset,
            outer: keys.iter().map(|k| k.2).collect(),
            buckets,
        }))
    }

    /// Runs the uncorrelated subqueries of an UPDATE / DELETE (1093 when one reads the target
    /// table other than through a derived table, as mysqld's `unique_table`).
    pub(crate) fn lift_write_filter(
        &mut self,
        target: &crate::ast::TableRef,
        alias: Option<&String>,
        exprs: Vec<&mut Expr>,
        params: &[Value],
        lift: bool,
    ) -> Result<()> {
        let (_, schema, db) = self.resolve_table(target)?;
        let label = alias.cloned().unwrap_or_else(|| target.name.clone());
        for e in exprs {
            if !expr_has_subquery(e) {
                continue;
            }
            let mut reads = Vec::new();
            let mut probe = Vec::new();
            e.walk(&mut |x| {
                if let Expr::Subquery(sq) = x {
                    probe.push(sq.query.clone());
                }
            });
            for q in &probe {
                direct_tables(q, &mut reads);
            }
            for t in &reads {
                let tdb = t.db.clone().or_else(|| self.db.clone()).unwrap_or_default();
                if tdb.eq_ignore_ascii_case(&db) && t.name.eq_ignore_ascii_case(&target.name) {
                    return Err(SqlError::Other {
                        code: 1093,
                        sqlstate: "HY000",
                        message: format!(
                            "You can't specify target table '{label}' for update in FROM clause"
                        ),
                    });
                }
            }
            let mut tables = Vec::new();
            for q in &probe {
                crate::ast::base_tables(q, &mut tables);
            }
            for t in &tables {
                self.check_privileges(&crate::ast::Stmt::Select(Select {
                    from: Some((*t).clone()),
                    ..Select::empty()
                }))?;
            }
            if lift {
                let outer = Outer::Table(Some((&schema, label.clone())));
                let mut lifted = Lifted::default();
                self.lift(e, &outer, None, params, &mut lifted)?;
            }
        }
        Ok(())
    }

    /// An UPDATE, with its subqueries run first when it has some.
    pub(crate) fn update_any(&mut self, u: &Update, params: &[Value]) -> Result<Output> {
        if update_has_subquery(u) {
            self.update_lifted(u, params)
        } else {
            self.update(u, params)
        }
    }

    /// A DELETE, with its subqueries run first when it has some.
    pub(crate) fn delete_any(&mut self, d: &Delete, params: &[Value]) -> Result<Output> {
        if delete_has_subquery(d) {
            self.delete_lifted(d, params)
        } else {
            self.delete(d, params)
        }
    }

    /// An INSERT, with the subqueries of its VALUES run first when it has some.
    pub(crate) fn insert_any(&mut self, i: &Insert, params: &[Value]) -> Result<Output> {
        if insert_has_subquery(i) {
            self.insert_lifted(i, params)
        } else {
            self.insert(i, params)
        }
    }

    /// Whether a subquery of `exprs` (of a write to the table `schema`, named `label`)
    /// refers to the row being written: a correlated subquery of UPDATE / DELETE.
    fn write_correlated(
        &mut self,
        schema: &engine::TableSchema,
        label: &str,
        exprs: &[&Expr],
    ) -> Result<bool> {
        let mut queries = Vec::new();
        for e in exprs {
            let mut found = Vec::new();
            collect_subqueries(e, &mut found);
            queries.extend(found.into_iter().map(|sq| sq.query.clone()));
        }
        let outer = Outer::Table(Some((schema, label.to_string())));
        for mut q in queries {
            let mut outer_exprs = Vec::new();
            let mut inner = vec![self.query_names(&q)?];
            self.mark_select(&mut q, &mut inner, &outer, &mut outer_exprs)?;
            if !outer_exprs.is_empty() {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The rows an UPDATE / DELETE with correlated subqueries writes, read and locked by a
    /// SELECT of the same WHERE / ORDER BY / LIMIT (`FOR UPDATE`), with the table's primary
    /// key first and then `extra` (each evaluated for the row: correlated subqueries run per
    /// outer row there, or materialized, as in any SELECT). The WHERE sees the rows before
    /// any is written, as mysqld's: a subquery cannot read the target table (1093, checked
    /// first), so the writes cannot change what it answers.
    #[allow(clippy::too_many_arguments)]
    fn correlated_targets(
        &mut self,
        table: &crate::ast::TableRef,
        alias: Option<&String>,
        filter: Option<&Expr>,
        order_by: &[crate::ast::OrderItem],
        limit: Option<&Expr>,
        extra: Vec<Expr>,
        params: &[Value],
    ) -> Result<(Vec<usize>, Vec<Row>)> {
        let (_, schema, _) = self.resolve_table(table)?;
        if schema.primary_key.is_empty() {
            return Err(SqlError::NotSupported(
                "correlated subqueries in UPDATE or DELETE of a table without a primary key".into(),
            ));
        }
        let mut checked: Vec<Expr> = filter.into_iter().cloned().collect();
        checked.extend(order_by.iter().map(|o| o.expr.clone()));
        checked.extend(extra.iter().cloned());
        self.lift_write_filter(table, alias, checked.iter_mut().collect(), params, false)?;
        let label = alias.cloned().unwrap_or_else(|| table.name.clone());
        let mut items: Vec<crate::ast::SelectItem> = schema
            .primary_key
            .iter()
            .map(|&p| crate::ast::SelectItem::Expr {
                expr: Expr::Name {
                    table: Some(label.clone()),
                    column: schema.columns[p].name.clone(),
                },
                label: schema.columns[p].name.clone(),
                aliased: false,
            })
            .collect();
        items.extend(extra.into_iter().enumerate().map(|(k, expr)| crate::ast::SelectItem::Expr {
            expr,
            label: format!("_subquery{k}"),
            aliased: true,
        }));
        let select = Select {
            from: Some(table.clone()),
            alias: alias.cloned(),
            items,
            filter: filter.cloned(),
            order_by: order_by.to_vec(),
            limit: limit.cloned(),
            for_update: true,
            ..Select::empty()
        };
        match self.run_select(&select, params)? {
            Output::Rows { rows, .. } => Ok((schema.primary_key.clone(), rows)),
            Output::Ok { .. } => Err(SqlError::NotSupported("this UPDATE".into())),
        }
    }

    /// `pk1 = ?n AND pk2 = ?n+1 …` over the primary key columns, parameters from `first`.
    fn key_filter(schema: &engine::TableSchema, pk: &[usize], first: usize) -> Option<Expr> {
        let terms = pk
            .iter()
            .enumerate()
            .map(|(k, &p)| {
                Expr::Binary(
                    BinOp::Eq,
                    Box::new(Expr::Name { table: None, column: schema.columns[p].name.clone() }),
                    Box::new(Expr::Param(first + k)),
                )
            })
            .collect();
        balanced(terms, BinOp::And)
    }

    /// An UPDATE whose WHERE, ORDER BY or SET has correlated subqueries: the target rows and
    /// the SET's subquery values are read first ([`Session::correlated_targets`]), then each
    /// row is updated through its primary key with those values as parameters. The
    /// assignments still run left to right over the row; a subquery in SET sees the row as
    /// it was before the statement (mysqld's sees columns assigned to its left: a
    /// difference only when a subquery of a later assignment reads an earlier one's column).
    fn update_correlated(&mut self, u: &Update, params: &[Value]) -> Result<Output> {
        let mut set = u.set.clone();
        let mut extra = Vec::new();
        for (_, e) in set.iter_mut() {
            param_subqueries(e, params.len(), &mut extra);
        }
        let n_extra = extra.len();
        let (pk, rows) = self.correlated_targets(
            &u.table,
            u.alias.as_ref(),
            u.filter.as_ref(),
            &u.order_by,
            u.limit.as_ref(),
            extra,
            params,
        )?;
        let (_, schema, _) = self.resolve_table(&u.table)?;
        let per_row = Update {
            table: u.table.clone(),
            alias: u.alias.clone(),
            set,
            filter: Self::key_filter(&schema, &pk, params.len() + n_extra),
            order_by: Vec::new(),
            limit: None,
        };
        let found_rows = std::mem::replace(&mut self.found_rows, false);
        let mut changed = 0;
        let mut result = Ok(());
        for row in &rows {
            let mut ext = params.to_vec();
            ext.extend(row[pk.len()..].iter().cloned());
            ext.extend(row[..pk.len()].iter().cloned());
            match self.update(&per_row, &ext) {
                Ok(Output::Ok { affected_rows, .. }) => changed += affected_rows,
                Ok(Output::Rows { .. }) => {}
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        self.found_rows = found_rows;
        result?;
        Ok(Output::updated(rows.len() as u64, changed, self.found_rows, self.warning_count()))
    }

    /// A DELETE whose WHERE or ORDER BY has correlated subqueries (as
    /// [`Session::update_correlated`]).
    fn delete_correlated(&mut self, d: &Delete, params: &[Value]) -> Result<Output> {
        let (pk, rows) = self.correlated_targets(
            &d.table,
            d.alias.as_ref(),
            d.filter.as_ref(),
            &d.order_by,
            d.limit.as_ref(),
            Vec::new(),
            params,
        )?;
        let (_, schema, _) = self.resolve_table(&d.table)?;
        let per_row = Delete {
            table: d.table.clone(),
            alias: d.alias.clone(),
            filter: Self::key_filter(&schema, &pk, params.len()),
            order_by: Vec::new(),
            limit: None,
        };
        let mut deleted = 0;
        for row in &rows {
            let mut ext = params.to_vec();
            ext.extend(row.iter().cloned());
            if let Output::Ok { affected_rows, .. } = self.delete(&per_row, &ext)? {
                deleted += affected_rows;
            }
        }
        Ok(Output::ok(deleted))
    }

    /// An UPDATE with its subqueries run (a clone only when it has some).
    pub(crate) fn update_lifted(&mut self, u: &Update, params: &[Value]) -> Result<Output> {
        {
            let (_, schema, _) = self.resolve_table(&u.table)?;
            let label = u.alias.clone().unwrap_or_else(|| u.table.name.clone());
            let exprs: Vec<&Expr> = u
                .set
                .iter()
                .map(|(_, e)| e)
                .chain(u.filter.iter())
                .chain(u.order_by.iter().map(|o| &o.expr))
                .collect();
            if self.write_correlated(&schema, &label, &exprs)? {
                return self.update_correlated(u, params);
            }
        }
        let mut u2 = u.clone();
        let alias = u2.alias.clone();
        let table = u2.table.clone();
        let exprs: Vec<&mut Expr> = u2
            .set
            .iter_mut()
            .map(|(_, e)| e)
            .chain(u2.filter.iter_mut())
            .chain(u2.order_by.iter_mut().map(|o| &mut o.expr))
            .collect();
        self.lift_write_filter(&table, alias.as_ref(), exprs, params, true)?;
        self.update(&u2, params)
    }

    /// A DELETE with its subqueries run.
    pub(crate) fn delete_lifted(&mut self, d: &Delete, params: &[Value]) -> Result<Output> {
        {
            let (_, schema, _) = self.resolve_table(&d.table)?;
            let label = d.alias.clone().unwrap_or_else(|| d.table.name.clone());
            let exprs: Vec<&Expr> =
                d.filter.iter().chain(d.order_by.iter().map(|o| &o.expr)).collect();
            if self.write_correlated(&schema, &label, &exprs)? {
                return self.delete_correlated(d, params);
            }
        }
        let mut d2 = d.clone();
        let alias = d2.alias.clone();
        let table = d2.table.clone();
        let exprs: Vec<&mut Expr> =
            d2.filter.iter_mut().chain(d2.order_by.iter_mut().map(|o| &mut o.expr)).collect();
        self.lift_write_filter(&table, alias.as_ref(), exprs, params, true)?;
        self.delete(&d2, params)
    }

    /// An INSERT whose VALUES hold subqueries (uncorrelated: run once; reading the target
    /// table is allowed, as mysqld materializes the subquery first).
    pub(crate) fn insert_lifted(&mut self, i: &Insert, params: &[Value]) -> Result<Output> {
        let mut i2 = i.clone();
        let mut lifted = Lifted::default();
        for row in i2.rows.iter_mut() {
            for e in row.iter_mut() {
                if expr_has_subquery(e) {
                    self.lift(e, &Outer::Table(None), None, params, &mut lifted)?;
                }
            }
        }
        self.insert(&i2, params)
    }
}

/// Whether any write statement expression holds a subquery.
pub(crate) fn update_has_subquery(u: &Update) -> bool {
    u.set.iter().any(|(_, e)| expr_has_subquery(e))
        || u.filter.as_ref().is_some_and(expr_has_subquery)
        || u.order_by.iter().any(|o| expr_has_subquery(&o.expr))
}

pub(crate) fn delete_has_subquery(d: &Delete) -> bool {
    d.filter.as_ref().is_some_and(expr_has_subquery)
        || d.order_by.iter().any(|o| expr_has_subquery(&o.expr))
}

pub(crate) fn insert_has_subquery(i: &Insert) -> bool {
    i.rows.iter().flatten().any(expr_has_subquery)
}

/// The stored tables a query reads directly (not through a derived table, which mysqld
/// materializes first), its nested subqueries' included.
fn direct_tables(q: &Select, out: &mut Vec<crate::ast::TableRef>) {
    if q.derived.is_none() {
        out.extend(q.from.iter().cloned());
    }
    for j in &q.joins {
        if j.derived.is_none() {
            out.push(j.table.clone());
        }
    }
    for sq in subqueries(q) {
        direct_tables(&sq.query, out);
    }
}

/// The subqueries of a SELECT's own clauses (top level of each expression).
fn subqueries(s: &Select) -> Vec<&crate::ast::Subquery> {
    let mut out = Vec::new();
    let mut exprs: Vec<&Expr> = Vec::new();
    for item in &s.items {
        if let crate::ast::SelectItem::Expr { expr, .. } = item {
            exprs.push(expr);
        }
    }
    exprs.extend(s.filter.iter());
    exprs.extend(s.group_by.iter());
    exprs.extend(s.having.iter());
    exprs.extend(s.order_by.iter().map(|o| &o.expr));
    for j in &s.joins {
        exprs.extend(j.on.iter());
    }
    for e in exprs {
        collect_subqueries(e, &mut out);
    }
    out
}

fn collect_subqueries<'a>(e: &'a Expr, out: &mut Vec<&'a crate::ast::Subquery>) {
    if let Expr::Subquery(q) = e {
        out.push(q);
        for x in &q.left {
            collect_subqueries(x, out);
        }
        return;
    }
    for c in children(e) {
        collect_subqueries(c, out);
    }
}

/// The direct children of an expression (as [`children_mut`]).
fn children(e: &Expr) -> Vec<&Expr> {
    let mut v = Vec::new();
    match e {
        Expr::Unary(_, x)
        | Expr::IsNull { expr: x, .. }
        | Expr::InsertValue(x)
        | Expr::Collate(x, _)
        | Expr::Collated(_, x)
        | Expr::LikeEscape(x, _) => v.push(x.as_ref()),
        Expr::Binary(_, a, b) | Expr::Like { expr: a, pattern: b, .. } => {
            v.push(a.as_ref());
            v.push(b.as_ref());
        }
        Expr::Between { expr, low, high, .. } => v.extend([&**expr, &**low, &**high]),
        Expr::InList { expr, list, .. } => {
            v.push(expr.as_ref());
            v.extend(list.iter());
        }
        Expr::Case { operand, whens, otherwise } => {
            v.extend(operand.as_deref());
            for (w, t) in whens {
                v.push(w);
                v.push(t);
            }
            v.extend(otherwise.as_deref());
        }
        Expr::Func(_, args) | Expr::Str(_, args) => v.extend(args.iter()),
        Expr::AggCall { arg: Some(a), .. } => v.push(a.as_ref()),
        Expr::GroupConcat(g) => {
            v.extend(g.args.iter());
            v.extend(g.order.iter().map(|o| &o.expr));
        }
        Expr::Subquery(q) => v.extend(q.left.iter()),
        _ => {}
    }
    v
}

/// The source rows of a memoized subquery for the outer values `values`; None when an outer
/// key value is not an integer or NULL (the subquery then runs for this row).
fn memo_rows(m: &Memo, values: &[Value]) -> Option<Vec<Row>> {
    let mut key = Vec::with_capacity(m.outer.len());
    let mut null = false;
    for &i in &m.outer {
        match values.get(i)? {
            Value::Null => null = true,
            Value::Int(v) => key.push(i128::from(*v)),
            Value::UInt(v) => key.push(i128::from(*v)),
            _ => return None,
        }
    }
    if null {
        return Some(Vec::new());
    }
    Some(m.buckets.get(&key).cloned().unwrap_or_default())
}

/// Replaces each subquery of `e` (outermost, with its left operands) by the parameter
/// `first + k`, `k` its position in `out`, where the subquery node goes.
fn param_subqueries(e: &mut Expr, first: usize, out: &mut Vec<Expr>) {
    if matches!(e, Expr::Subquery(_)) {
        let sq = std::mem::replace(e, Expr::Param(first + out.len()));
        out.push(sq);
        return;
    }
    for c in children_mut(e) {
        param_subqueries(c, first, out);
    }
}

/// Splits an unbound condition into its AND terms.
fn ast_and_terms(e: Expr, out: &mut Vec<Expr>) {
    match e {
        Expr::Binary(BinOp::And, a, b) => {
            ast_and_terms(*a, out);
            ast_and_terms(*b, out);
        }
        other => out.push(other),
    }
}

/// Splits a bound condition into its AND terms.
fn and_terms(e: Expr, out: &mut Vec<Expr>) {
    match e {
        Expr::Binary(BinOp::And, a, b) => {
            and_terms(*a, out);
            and_terms(*b, out);
        }
        other => out.push(other),
    }
}

/// Unresolved names → NULL (typing a dependent subquery at PREPARE).
fn null_names(e: &mut Expr) {
    if matches!(e, Expr::OuterRef(_)) {
        *e = Expr::Lit(Value::Null);
        return;
    }
    for c in children_mut(e) {
        null_names(c);
    }
}

/// Subqueries → NULL (typing the enclosing query at PREPARE).
fn null_subqueries(e: &mut Expr) {
    if matches!(e, Expr::Subquery(_)) {
        *e = Expr::Lit(Value::Null);
        return;
    }
    for c in children_mut(e) {
        null_subqueries(c);
    }
}

/// The result with the scalar-subquery items typed from their subquery's column.
fn retype(out: Output, typed: &[(usize, ResultColumn)]) -> Output {
    match out {
        Output::Rows { mut columns, rows } => {
            for (n, c) in typed {
                if let Some(slot) = columns.get_mut(*n) {
                    let name = std::mem::take(&mut slot.name);
                    *slot = c.clone();
                    slot.name = name;
                    slot.table.clear();
                    slot.org_table.clear();
                    slot.org_name.clear();
                    slot.schema.clear();
                    slot.flags &= !(flags::NOT_NULL
                        | flags::PRI_KEY
                        | flags::UNIQUE_KEY
                        | flags::MULTIPLE_KEY);
                }
            }
            Output::Rows { columns, rows }
        }
        other => other,
    }
}

impl Session {
    /// For EXPLAIN (`query/explain_union.rs`): `s` with its subqueries replaced by NULL, and
    /// each subquery of its clauses with whether it is dependent (reads the outer row) and its
    /// outer references replaced by NULL, so it can be planned alone.
    pub(crate) fn explain_subqueries(
        &mut self,
        s: &Select,
    ) -> Result<(Select, Vec<(Select, bool)>)> {
        // Each subquery → TRUE, so the outer block's plan keeps its other terms.
        fn true_subqueries(e: &mut Expr) {
            if matches!(e, Expr::Subquery(_)) {
                *e = Expr::Lit(Value::Int(1));
                return;
            }
            for c in children_mut(e) {
                true_subqueries(c);
            }
        }
        let mut outer = s.clone();
        for x in clauses_mut(&mut outer) {
            true_subqueries(x);
        }
        let scope = if s.from.is_some() { Some(self.join_scope(s, None)?) } else { None };
        let mut out = Vec::new();
        for sq in subqueries(s) {
            let mut query = sq.query.clone();
            let mut outer_exprs = Vec::new();
            let mut inner = vec![self.query_names(&query)?];
            let o = match &scope {
                Some(p) => Outer::Scope(&p.scope),
                None => Outer::Table(None),
            };
            self.mark_select(&mut query, &mut inner, &o, &mut outer_exprs)?;
            let dependent = !outer_exprs.is_empty();
            for x in clauses_mut(&mut query) {
                substitute(x, &vec![Value::Null; outer_exprs.len()]);
            }
            out.push((query, dependent));
        }
        Ok((outer, out))
    }
}
