//! Query expressions (issue 20): `UNION` / `INTERSECT` / `EXCEPT` `[ALL | DISTINCT]` of query
//! blocks, ORDER BY / LIMIT over the whole expression, column lists, and recursive common
//! table expressions (`WITH RECURSIVE`).
//!
//! A query expression reaches this module as a wrapper SELECT ([`Select::wrap`]), so every
//! path that runs a SELECT (`Session::run_select`: statements, derived tables, subqueries,
//! INSERT ... SELECT; `run_select_columns`: PREPARE) runs it, and the single-table fast path
//! never sees one.
//!
//! Semantics (mysqld 8.0's `Query_expression`, sql_union.cc):
//! - blocks are evaluated left to right and combined left-associatively, so a DISTINCT union
//!   removes the duplicates of everything to its left and an ALL union after it appends;
//!   INTERSECT binds tighter (the parser nests it);
//! - the result columns are named from the first block and typed by aggregating every
//!   block's column (mysqld's `Item_aggregate_type::join_types`): integers widen, integer and
//!   DECIMAL give DECIMAL, any floating type gives DOUBLE, numbers or dates mixed with strings
//!   give a string as long as the longest member's text, DATE with DATETIME gives DATETIME;
//!   NULL-only columns take the other's type; NOT NULL only if every block's column is;
//!   values are converted to that type before duplicates are compared (with the column's
//!   collation, as mysqld's temporary table's unique index does);
//! - a different number of columns is 1222; ORDER BY over the expression names its result
//!   columns (a table qualifier is 1250), and runs, with LIMIT, as a SELECT over the
//!   materialized result (the same sorting code as any SELECT);
//! - a recursive CTE runs its non-recursive blocks once, then its recursive blocks over the
//!   rows of the previous iteration (the working table, [`SetExpr::Work`]) until one adds no
//!   rows; more than `@@cte_max_recursion_depth` iterations is 3636, as mysqld; UNION
//!   DISTINCT drops rows already produced; a LIMIT stops the iteration once reached (8.0.19).
//!
//! Invariants: the left-deep chain of blocks is walked in a loop (its length is bounded by the
//! parser, `parse/query_expr.rs`); recursion here only enters parenthesised operands and
//! nested queries, bounded by the statement's depth; a recursive CTE's result is bounded by
//! [`MAX_CTE_ROWS`] (1114 beyond: binlogd materializes in memory, mysqld spills to disk).
//!
//! Why by hand: the semantics are mysqld's; no crate runs them over this engine.

use std::collections::{HashMap, HashSet};

use engine::{encode_key, Row, Value};

use crate::ast::{Expr, QueryExpr, Select, SelectItem, SetExpr, SetOp, TableRef};
use crate::error::{Result, SqlError};
use crate::eval::collate::keyed;
use crate::exec::conform;
use crate::output::{flags, MysqlType as M, Output, ResultColumn, CHARSET_BINARY};
use crate::session::Session;
use crate::vars::Var;

// The working tables of recursive CTEs (and materialized results being ordered) are
// `Session::work_tables`, by id.

/// The most rows a recursive CTE may produce (it is materialized in memory).
pub(crate) const MAX_CTE_ROWS: usize = 4_000_000;

fn diff_columns() -> SqlError {
    SqlError::Other {
        code: 1222,
        sqlstate: "21000",
        message: "The used SELECT statements have a different number of columns".into(),
    }
}

fn name_count() -> SqlError {
    SqlError::Other {
        code: 1353,
        sqlstate: "HY000",
        message: "In definition of view, derived table or common table expression, SELECT \
                  list and column names list have different column counts"
            .into(),
    }
}

fn is_int(t: M) -> bool {
    matches!(t, M::Tiny | M::Short | M::Int24 | M::Long | M::LongLong | M::Year | M::Bit)
}

fn int_rank(t: M) -> u8 {
    match t {
        M::Tiny => 1,
        M::Short => 2,
        M::Int24 => 3,
        M::Long => 4,
        _ => 5,
    }
}

fn is_string(t: M) -> bool {
    matches!(t, M::VarString | M::String | M::Blob | M::Json)
}

fn is_temporal(t: M) -> bool {
    matches!(t, M::Date | M::Time | M::DateTime | M::Timestamp)
}

/// Characters of a column's text (its display length: bytes / 4 for utf8mb4 text).
fn char_length(c: &ResultColumn) -> u32 {
    if c.is_text() {
        c.length / 4
    } else {
        c.length
    }
}

/// Two columns' aggregate type (see the module doc); `a` keeps its names.
fn join_column(a: &ResultColumn, b: &ResultColumn) -> ResultColumn {
    let mut out = a.clone();
    let not_null = a.flags & b.flags & flags::NOT_NULL;
    let (ta, tb) = (a.mysql_type, b.mysql_type);
    if tb == M::Null {
        out.flags &= !flags::NOT_NULL;
        return out;
    }
    if ta == M::Null {
        let mut o = b.clone();
        o.name = a.name.clone();
        o.schema = a.schema.clone();
        o.table = a.table.clone();
        o.org_table = a.org_table.clone();
        o.org_name = a.org_name.clone();
        o.flags &= !flags::NOT_NULL & !key_flags();
        return o;
    }
    let unsigned = a.flags & b.flags & flags::UNSIGNED;
    let keep = |o: &mut ResultColumn, ty: M| {
        o.mysql_type = ty;
        o.flags =
            (o.flags & !key_flags() & !flags::UNSIGNED & !flags::NOT_NULL) | not_null | unsigned;
    };
    if ta == tb && !is_string(ta) {
        keep(&mut out, ta);
        out.length = a.length.max(b.length);
        out.decimals = a.decimals.max(b.decimals);
        return out;
    }
    let numeric = |t: M| is_int(t) || matches!(t, M::NewDecimal | M::Float | M::Double);
    if numeric(ta) && numeric(tb) {
        let ty = if is_int(ta) && is_int(tb) {
            let (ra, rb) = (int_rank(ta), int_rank(tb));
            let mut r = ra.max(rb);
            // A signed and an unsigned integer of the same width need the next width.
            let mixed = (a.flags ^ b.flags) & flags::UNSIGNED != 0;
            if mixed {
                let u = if a.flags & flags::UNSIGNED != 0 { ra } else { rb };
                let s = if a.flags & flags::UNSIGNED != 0 { rb } else { ra };
                if u >= s {
                    r = u + 1;
                }
            }
            match r {
                1 => M::Tiny,
                2 => M::Short,
                3 => M::Int24,
                4 => M::Long,
                5 => M::LongLong,
                _ => M::NewDecimal,
            }
        } else if matches!(ta, M::Float | M::Double) || matches!(tb, M::Float | M::Double) {
            if ta == M::Float && tb == M::Float {
                M::Float
            } else {
                M::Double
            }
        } else {
            M::NewDecimal
        };
        keep(&mut out, ty);
        match ty {
            M::NewDecimal => {
                let scale = a.decimals.max(b.decimals);
                let int_digits = |c: &ResultColumn| {
                    let d = if c.mysql_type == M::NewDecimal { c.decimals } else { 0 };
                    let signs = u32::from(c.flags & flags::UNSIGNED == 0)
                        + u32::from(c.mysql_type == M::NewDecimal && d > 0);
                    c.length.saturating_sub(signs).saturating_sub(u32::from(d))
                };
                let digits = int_digits(a).max(int_digits(b)) + u32::from(scale);
                out.decimals = scale;
                out.length = digits.min(65)
                    + u32::from(scale > 0)
                    + u32::from(out.flags & flags::UNSIGNED == 0);
            }
            M::Double | M::Float => {
                out.decimals = a.decimals.max(b.decimals);
                out.length = if ty == M::Double { 22 } else { 12 };
                out.length = out.length.max(a.length).max(b.length);
            }
            _ => out.length = a.length.max(b.length),
        }
        out.charset = CHARSET_BINARY;
        out.flags |= flags::BINARY;
        return out;
    }
    if is_temporal(ta) && is_temporal(tb) {
        let ty = match (ta, tb) {
            (M::Timestamp, M::Timestamp) => M::Timestamp,
            (M::Time, M::Time) => M::Time,
            (M::Date, M::Date) => M::Date,
            _ => M::DateTime,
        };
        keep(&mut out, ty);
        out.flags &= !flags::TIMESTAMP;
        out.decimals = a.decimals.max(b.decimals);
        out.length = 19 + if out.decimals > 0 { 1 + u32::from(out.decimals) } else { 0 };
        if ty == M::Date {
            out.length = 10;
        } else if ty == M::Time {
            out.length = a.length.max(b.length);
        }
        return out;
    }
    // Strings (or a mix with strings): a string long enough for every member's text.
    let binary = (!a.is_text() && is_string(ta)) || (!b.is_text() && is_string(tb));
    let blob = ta == M::Blob || tb == M::Blob || ta == M::Json || tb == M::Json;
    let chars = char_length(a).max(char_length(b));
    keep(&mut out, if blob { M::Blob } else { M::VarString });
    out.flags &= !(flags::BINARY | flags::BLOB | flags::TIMESTAMP | flags::ENUM);
    out.decimals = 31;
    if binary {
        out.charset = CHARSET_BINARY;
        out.flags |= flags::BINARY;
        out.length = chars;
    } else {
        out.charset = if a.is_text() {
            a.charset
        } else if b.is_text() {
            b.charset
        } else {
            crate::output::CHARSET_UTF8MB4
        };
        out.length = chars.saturating_mul(4);
    }
    if blob {
        out.flags |= flags::BLOB;
        out.length = out.length.max(if binary { 65_535 } else { 262_140 });
    }
    out
}

fn key_flags() -> u16 {
    flags::PRI_KEY | flags::UNIQUE_KEY | flags::MULTIPLE_KEY
}

/// The aggregate columns of several blocks' columns (1222 on a different count).
fn join_columns(blocks: &[Vec<ResultColumn>]) -> Result<Vec<ResultColumn>> {
    let Some(first) = blocks.first() else {
        return Ok(Vec::new());
    };
    let mut out = first.clone();
    if blocks.len() > 1 {
        for c in &mut out {
            c.flags &= !key_flags();
        }
    }
    for b in &blocks[1..] {
        if b.len() != out.len() {
            return Err(diff_columns());
        }
        for (o, c) in out.iter_mut().zip(b) {
            *o = join_column(o, c);
        }
    }
    Ok(out)
}

/// A value converted to its result column's type.
fn convert(v: Value, c: &ResultColumn) -> Value {
    let v = conform(v, c.mysql_type, c.flags & flags::UNSIGNED != 0);
    match (v, c.mysql_type) {
        (Value::UInt(u), t) if is_int(t) && c.flags & flags::UNSIGNED == 0 => {
            i64::try_from(u).map_or(Value::UInt(u), Value::Int)
        }
        (Value::Decimal(d), M::NewDecimal) => {
            d.rescale(c.decimals).map_or(Value::Decimal(d), Value::Decimal)
        }
        (v, _) => v,
    }
}

/// A row's duplicate-detection key (strings by their collation's sort key).
fn row_key(row: &[Value], cols: &[ResultColumn]) -> Box<[u8]> {
    let k: Vec<Value> = row
        .iter()
        .zip(cols)
        .map(|(v, c)| {
            let coll = c.is_text().then_some(c.charset);
            match v {
                Value::Double(d) if *d == 0.0 => Value::Double(0.0),
                v => keyed(v.clone(), coll),
            }
        })
        .collect();
    encode_key(&k)
}

fn distinct(rows: Vec<Row>, cols: &[ResultColumn]) -> Vec<Row> {
    let mut seen = HashSet::new();
    rows.into_iter().filter(|r| seen.insert(row_key(r, cols))).collect()
}

/// `left op right` over rows of the same columns.
fn combine(
    op: SetOp,
    all: bool,
    left: Vec<Row>,
    right: Vec<Row>,
    cols: &[ResultColumn],
) -> Vec<Row> {
    match op {
        SetOp::Union => {
            let mut rows = left;
            rows.extend(right);
            if all {
                rows
            } else {
                distinct(rows, cols)
            }
        }
        SetOp::Intersect | SetOp::Except => {
            let mut counts: HashMap<Box<[u8]>, usize> = HashMap::new();
            for r in &right {
                *counts.entry(row_key(r, cols)).or_default() += 1;
            }
            let left = if all { left } else { distinct(left, cols) };
            let mut out = Vec::new();
            for r in left {
                let k = row_key(&r, cols);
                let n = counts.get_mut(&k);
                let present = n.as_ref().is_some_and(|n| **n > 0);
                let keep = if op == SetOp::Intersect { present } else { !present };
                if all && present {
                    if let Some(n) = n {
                        *n -= 1;
                    }
                }
                if keep {
                    out.push(r);
                }
            }
            out
        }
    }
}

/// The left-deep spine of a body: its first operand and each (op, all, right operand).
fn spine(e: &SetExpr) -> (&SetExpr, Vec<(SetOp, bool, &SetExpr)>) {
    let mut rest = Vec::new();
    let mut cur = e;
    while let SetExpr::Op { op, all, left, right } = cur {
        rest.push((*op, *all, right.as_ref()));
        cur = left;
    }
    rest.reverse();
    (cur, rest)
}

fn rows_of(out: Output) -> Result<(Vec<ResultColumn>, Vec<Row>)> {
    match out {
        Output::Rows { columns, rows } => Ok((columns, rows)),
        Output::Ok { .. } => Err(SqlError::NotSupported("this query block".into())),
    }
}

impl Session {
    fn leaf(&mut self, e: &SetExpr, params: &[Value]) -> Result<(Vec<ResultColumn>, Vec<Row>)> {
        match e {
            SetExpr::Block(s) => rows_of(self.run_select(s, params)?),
            SetExpr::Work(id) => self
                .work_tables
                .get(id)
                .cloned()
                .ok_or_else(|| SqlError::NotSupported("this common table expression".into())),
            SetExpr::Op { .. } => self.body_rows(e, params),
        }
    }

    fn leaf_columns(&mut self, e: &SetExpr) -> Result<Vec<ResultColumn>> {
        match e {
            SetExpr::Block(s) => self.run_select_columns(s),
            SetExpr::Work(id) => self
                .work_tables
                .get(id)
                .map(|(c, _)| c.clone())
                .ok_or_else(|| SqlError::NotSupported("this common table expression".into())),
            SetExpr::Op { .. } => self.body_columns(e),
        }
    }

    /// The result columns of a body.
    fn body_columns(&mut self, e: &SetExpr) -> Result<Vec<ResultColumn>> {
        let (first, rest) = spine(e);
        let mut all = vec![self.leaf_columns(first)?];
        for (_, _, r) in rest {
            all.push(self.leaf_columns(r)?);
        }
        join_columns(&all)
    }

    /// A body's columns and rows (before the expression's ORDER BY / LIMIT).
    fn body_rows(
        &mut self,
        e: &SetExpr,
        params: &[Value],
    ) -> Result<(Vec<ResultColumn>, Vec<Row>)> {
        let (first, rest) = spine(e);
        let mut parts = vec![self.leaf(first, params)?];
        for (_, _, r) in &rest {
            parts.push(self.leaf(r, params)?);
        }
        let cols: Vec<Vec<ResultColumn>> = parts.iter().map(|(c, _)| c.clone()).collect();
        let cols = join_columns(&cols)?;
        let mut parts = parts.into_iter().map(|(_, rows)| {
            rows.into_iter()
                .map(|r| r.into_iter().zip(&cols).map(|(v, c)| convert(v, c)).collect())
                .collect::<Vec<Row>>()
        });
        let mut acc = parts.next().unwrap_or_default();
        for ((op, all, _), rows) in rest.into_iter().zip(parts) {
            acc = combine(op, all, acc, rows, &cols);
        }
        Ok((cols, acc))
    }

    /// Runs a query expression.
    pub(crate) fn run_query(&mut self, q: &QueryExpr, params: &[Value]) -> Result<Output> {
        let (mut cols, rows) = match &q.recursive {
            Some((id, name)) => self.recursive_rows(q, *id, name, params)?,
            None => self.body_rows(&q.body, params)?,
        };
        rename(&mut cols, &q.names)?;
        if q.order_by.is_empty() && q.limit.is_none() && q.offset.is_none() {
            return Ok(Output::Rows { columns: cols, rows });
        }
        self.order_limit(q, cols, rows, params)
    }

    /// The result columns of a query expression (PREPARE, derived tables' types).
    pub(crate) fn query_columns(&mut self, q: &QueryExpr) -> Result<Vec<ResultColumn>> {
        let mut cols = match &q.recursive {
            Some((id, _)) => {
                let (first, rest) = spine(&q.body);
                let mut anchors = vec![self.leaf_columns(first)?];
                for (_, _, r) in rest {
                    if reads_work(r, *id) {
                        break;
                    }
                    anchors.push(self.leaf_columns(r)?);
                }
                join_columns(&anchors)?
            }
            None => self.body_columns(&q.body)?,
        };
        rename(&mut cols, &q.names)?;
        Ok(cols)
    }

    /// ORDER BY / LIMIT over a materialized result: a SELECT * over it as a derived table.
    fn order_limit(
        &mut self,
        q: &QueryExpr,
        cols: Vec<ResultColumn>,
        rows: Vec<Row>,
        params: &[Value],
    ) -> Result<Output> {
        for o in &q.order_by {
            let mut qualified = None;
            o.expr.walk(&mut |e| {
                if let Expr::Name { table: Some(t), .. } = e {
                    qualified.get_or_insert_with(|| t.clone());
                }
            });
            if let Some(t) = qualified {
                return Err(SqlError::Other {
                    code: 1250,
                    sqlstate: "42000",
                    message: format!(
                        "Table '{t}' from one of the SELECTs cannot be used in global ORDER clause"
                    ),
                });
            }
        }
        let id = usize::MAX - self.work_tables.len();
        self.work_tables.insert(id, (cols.clone(), rows));
        let label = "union_result".to_string();
        let s = Select {
            from: Some(TableRef { db: None, name: label.clone() }),
            alias: Some(label),
            items: vec![SelectItem::Wildcard],
            filter: None,
            group_by: Vec::new(),
            rollup: false,
            having: None,
            order_by: q.order_by.clone(),
            limit: q.limit.clone(),
            offset: q.offset.clone(),
            distinct: false,
            for_update: false,
            for_share: false,
            joins: Vec::new(),
            derived: Some(Box::new(Select::wrap(QueryExpr {
                body: SetExpr::Work(id),
                order_by: Vec::new(),
                limit: None,
                offset: None,
                names: Vec::new(),
                recursive: None,
            }))),
        };
        let out = self.run_select(&s, params);
        self.work_tables.remove(&id);
        let (_, rows) = rows_of(out?)?;
        let rows = rows
            .into_iter()
            .map(|r| r.into_iter().zip(&cols).map(|(v, c)| convert(v, c)).collect())
            .collect();
        Ok(Output::Rows { columns: cols, rows })
    }

    /// A recursive CTE's columns and rows (see the module doc).
    fn recursive_rows(
        &mut self,
        q: &QueryExpr,
        id: usize,
        name: &str,
        params: &[Value],
    ) -> Result<(Vec<ResultColumn>, Vec<Row>)> {
        let (first, rest) = spine(&q.body);
        let split = rest.iter().position(|(_, _, r)| reads_work(r, id)).unwrap_or(rest.len());
        let any_distinct = rest.iter().any(|(_, all, _)| !all);
        // The non-recursive blocks, as their own union.
        let mut anchor = first.clone();
        for (op, all, r) in &rest[..split] {
            anchor = SetExpr::Op {
                op: *op,
                all: *all,
                left: Box::new(anchor),
                right: Box::new((*r).clone()),
            };
        }
        let (mut cols, rows) = self.body_rows(&anchor, params)?;
        rename(&mut cols, &q.names)?;
        for c in &mut cols {
            c.flags &= !key_flags();
        }
        let mut seen = HashSet::new();
        let mut rows = if any_distinct {
            rows.into_iter().filter(|r| seen.insert(row_key(r, &cols))).collect()
        } else {
            rows
        };
        let stop = match &q.limit {
            Some(l) => {
                let l = crate::exec::count_value(self, l, params)?;
                let o = match &q.offset {
                    Some(o) => crate::exec::count_value(self, o, params)?,
                    None => 0,
                };
                Some(usize::try_from(l.saturating_add(o)).unwrap_or(usize::MAX))
            }
            None => None,
        };
        let max_depth = match self.variable(Var::CteMaxRecursionDepth) {
            Value::UInt(u) => u,
            Value::Int(i) => u64::try_from(i).unwrap_or(0),
            _ => 1000,
        };
        let recursive: Vec<&SetExpr> = rest[split..].iter().map(|(_, _, r)| *r).collect();
        let mut work = rows.clone();
        let mut iteration: u64 = 0;
        let saved = self.work_tables.remove(&id);
        let result = (|| -> Result<()> {
            while !work.is_empty() && stop.is_none_or(|s| rows.len() < s) {
                iteration += 1;
                if iteration > max_depth {
                    return Err(SqlError::Other {
                        code: 3636,
                        sqlstate: "HY000",
                        message: format!(
                            "Recursive query aborted after {iteration} iterations. Try \
                             increasing @@cte_max_recursion_depth to a larger value."
                        ),
                    });
                }
                self.work_tables.insert(id, (cols.clone(), std::mem::take(&mut work)));
                for r in &recursive {
                    let (rc, rrows) = self.leaf(r, params)?;
                    if rc.len() != cols.len() {
                        return Err(diff_columns());
                    }
                    for row in rrows {
                        let row: Row =
                            row.into_iter().zip(&cols).map(|(v, c)| convert(v, c)).collect();
                        if any_distinct && !seen.insert(row_key(&row, &cols)) {
                            continue;
                        }
                        work.push(row);
                    }
                }
                rows.extend(work.iter().cloned());
                if rows.len() > MAX_CTE_ROWS {
                    return Err(SqlError::Other {
                        code: 1114,
                        sqlstate: "HY000",
                        message: format!("The table '{name}' is full"),
                    });
                }
            }
            Ok(())
        })();
        self.work_tables.remove(&id);
        if let Some(s) = saved {
            self.work_tables.insert(id, s);
        }
        result?;
        Ok((cols, rows))
    }
}

/// Applies a column list (1353 on a different count).
fn rename(cols: &mut [ResultColumn], names: &[String]) -> Result<()> {
    if names.is_empty() {
        return Ok(());
    }
    if names.len() != cols.len() {
        return Err(name_count());
    }
    for (c, n) in cols.iter_mut().zip(names) {
        c.name = n.clone();
    }
    Ok(())
}

/// Whether a body reads working table `id` (directly in a block's FROM, or below).
fn reads_work(e: &SetExpr, id: usize) -> bool {
    match e {
        SetExpr::Work(w) => *w == id,
        SetExpr::Op { left, right, .. } => reads_work(left, id) || reads_work(right, id),
        SetExpr::Block(s) => select_reads_work(s, id),
    }
}

fn select_reads_work(s: &Select, id: usize) -> bool {
    if let Some(q) = s.query_expr() {
        return reads_work(&q.body, id);
    }
    let first = s.derived.iter();
    let rest = s.joins.iter().filter_map(|j| j.derived.as_ref());
    first.chain(rest).any(|d| select_reads_work(d, id))
}
