//! Runs a [`JoinPlan`]: a nested loop over its steps, each table found by index lookups per
//! outer row ([`StepAccess::Lookup`], through the single-table access planner and fetch of
//! `exec.rs`, so primary and secondary indexes, the read view and the row locks are the ones
//! a single-table SELECT uses) or read once and joined from memory ([`StepAccess::Scan`]:
//! by a hash table on an equality between compatible columns, else a block nested loop).
//! This is mysqld's nested-loop join (`sub_select` in sql/sql_executor.cc) with its
//! "eq_ref"/"ref" and "hash join" accesses.
//!
//! A lookup that binds every primary key column (by equalities to earlier tables' columns or
//! to constants: mysqld's "eq_ref") is prepared once per statement ([`PointLookup`]): which
//! key column takes which outer expression, and the constant parts already converted; each
//! outer row then only evaluates its expressions into the key, as mysqld's `ref` access
//! copies the outer values into its key buffer (`cp_buffer_from_ref`) instead of optimizing
//! again. Other lookups are planned per outer row.
//!
//! Invariants: the joined row always holds every position (NULL for tables not read yet or
//! NULL-extended); a row is emitted only when every term of every step passed; the recursion
//! is one frame per step (at most 61, the parser's table limit). A lookup may yield more rows
//! than its terms allow, never fewer: the step's `conds` (which include its `keys` and
//! `local` terms) are checked on every candidate.

use std::collections::HashMap;

use engine::{encode_key, Engine, Key, Row, Txn, Value};

use super::plan::{JoinPlan, StepAccess};
use crate::ast::{BinOp, Expr};
use crate::error::Result;
use crate::eval::collate::keyed;
use crate::eval::{eval, truth};
use crate::exec::{fetch, is_const, key_value, plan_access, plan_access_in, Access, ColumnTerms};
use crate::scope::Scope;

/// `e` with every column `Col(p)` replaced by `f(p)` (the tree is bounded by the parser's
/// depth limit, `crate::depth`).
pub(crate) fn map_cols(e: &Expr, f: &dyn Fn(usize) -> Expr) -> Expr {
    let m = |x: &Expr| Box::new(map_cols(x, f));
    let v = |xs: &[Expr]| xs.iter().map(|x| map_cols(x, f)).collect::<Vec<_>>();
    match e {
        Expr::Col(p) => f(*p),
        Expr::Lit(_)
        | Expr::Param(_)
        | Expr::Name { .. }
        | Expr::SysVar { .. }
        | Expr::UserVar(_)
        | Expr::Agg(_)
        | Expr::Subquery(_)
        | Expr::Query(_)
        | Expr::OuterRef(_)
        | Expr::Default => e.clone(),
        Expr::Unary(op, x) => Expr::Unary(*op, m(x)),
        Expr::Binary(op, a, b) => Expr::Binary(*op, m(a), m(b)),
        Expr::IsNull { expr, negated } => Expr::IsNull { expr: m(expr), negated: *negated },
        Expr::Between { expr, low, high, negated } => {
            Expr::Between { expr: m(expr), low: m(low), high: m(high), negated: *negated }
        }
        Expr::InList { expr, list, negated } => {
            Expr::InList { expr: m(expr), list: v(list), negated: *negated }
        }
        Expr::Like { expr, pattern, negated } => {
            Expr::Like { expr: m(expr), pattern: m(pattern), negated: *negated }
        }
        Expr::Case { operand, whens, otherwise } => Expr::Case {
            operand: operand.as_ref().map(|o| m(o)),
            whens: whens.iter().map(|(w, t)| (map_cols(w, f), map_cols(t, f))).collect(),
            otherwise: otherwise.as_ref().map(|o| m(o)),
        },
        Expr::Func(func, args) => Expr::Func(*func, v(args)),
        Expr::Grouping(args) => Expr::Grouping(v(args)),
        Expr::Window(w) => {
            let mut w = w.clone();
            w.args = v(&w.args);
            w.partition = v(&w.partition);
            for o in &mut w.order {
                o.expr = map_cols(&o.expr, f);
            }
            Expr::Window(w)
        }
        Expr::AggCall { kind, distinct, arg } => {
            Expr::AggCall { kind: *kind, distinct: *distinct, arg: arg.as_ref().map(|a| m(a)) }
        }
        Expr::InsertValue(x) => Expr::InsertValue(m(x)),
        Expr::Collate(x, c) => Expr::Collate(m(x), *c),
        Expr::Collated(c, x) => Expr::Collated(*c, m(x)),
        Expr::LikeEscape(x, c) => Expr::LikeEscape(m(x), *c),
        Expr::Str(sf, args) => Expr::Str(*sf, v(args)),
        Expr::GroupConcat(g) => {
            let mut g = g.clone();
            g.args = v(&g.args);
            for o in &mut g.order {
                o.expr = map_cols(&o.expr, f);
            }
            Expr::GroupConcat(g)
        }
    }
}

fn and_all(terms: Vec<Expr>) -> Option<Expr> {
    terms.into_iter().reduce(|a, b| Expr::Binary(BinOp::And, Box::new(a), Box::new(b)))
}

fn holds(terms: &[Expr], row: &[Value]) -> Result<bool> {
    for t in terms {
        if truth(&eval(t, row, &[])?) != Some(true) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// A hash key value: integers of either signedness compare equal by value, strings by their
/// collation's sort key.
fn hash_value(v: Value, coll: Option<u16>) -> Value {
    match v {
        Value::UInt(u) if i64::try_from(u).is_ok() => Value::Int(u as i64),
        Value::Bytes(_) => keyed(v, coll),
        v => v,
    }
}

/// A step's rows read once (Scan): the rows, and the hash index over them.
struct Materialized {
    rows: Vec<Row>,
    hash: Option<HashMap<Key, Vec<usize>>>,
}

/// What the executor reads from: the engine in a transaction, and the made-up row sets.
pub(crate) struct Reader<'a> {
    pub engine: &'a Engine,
    pub txn: &'a mut Txn,
    /// Per scope entry: the rows of a made-up table (information_schema, derived tables).
    pub made_up: &'a [Option<Vec<Row>>],
    /// FOR UPDATE / FOR SHARE: each row read is locked and re-read at its newest version.
    pub locking: bool,
    /// With `locking`: the locks are shared (FOR SHARE, SERIALIZABLE's plain reads).
    pub shared: bool,
}

impl Reader<'_> {
    /// The rows of entry `k` an access yields (locked when locking).
    fn read(&mut self, scope: &Scope, k: usize, access: &Access) -> Result<Vec<Row>> {
        let e = &scope.entries[k];
        let Some(id) = e.table else {
            return Ok(self.made_up.get(k).and_then(|r| r.clone()).unwrap_or_default());
        };
        let cands = fetch(self.engine, self.txn, id, access, usize::MAX)?;
        if !self.locking {
            return Ok(cands.into_iter().map(|(_, r)| r).collect());
        }
        let mut out = Vec::with_capacity(cands.len());
        for (key, _) in cands {
            if let Some(r) = crate::exec::lock_row(self.engine, self.txn, id, &key, self.shared)? {
                out.push(r);
            }
        }
        Ok(out)
    }
}

/// Where one primary key column's lookup value comes from.
#[derive(Debug)]
enum KeyPart {
    /// An expression over earlier tables' columns (joined positions), evaluated per outer row.
    Outer(Expr),
    /// A constant of the table's own terms, already a key value.
    Const(Value),
}

/// A primary-key point lookup prepared once per statement: one part per key column, in key
/// order, with the column's type for converting an outer value into a key value.
#[derive(Debug)]
pub(crate) struct PointLookup {
    parts: Vec<(engine::ColumnType, KeyPart)>,
}

impl PointLookup {
    /// The prepared lookup of a [`StepAccess::Lookup`] over scope entry `k`, when every
    /// primary key column is bound: by a `keys` equality whose outer side is constant once the
    /// outer row is known (the last such term, as `exec::column_terms` keeps the last), else
    /// by exactly one constant of the table's own terms. None otherwise (the per-row planner
    /// runs).
    pub(crate) fn prepare(scope: &Scope, k: usize, keys: &[Expr], local: &[Expr]) -> Option<Self> {
        let e = &scope.entries[k];
        let sc = &e.schema;
        if sc.primary_key.is_empty() {
            return None;
        }
        let local_refs: Vec<&Expr> = local.iter().collect();
        let mut parts = Vec::with_capacity(sc.primary_key.len());
        for &c in &sc.primary_key {
            let col = &sc.columns[c];
            let outer = keys.iter().rev().find_map(|t| {
                let t = match t {
                    Expr::Collated(coll, inner) if *coll == col.collation => inner.as_ref(),
                    Expr::Collated(..) => return None,
                    t => t,
                };
                let Expr::Binary(BinOp::Eq | BinOp::NullSafeEq, l, r) = t else { return None };
                let o = match (l.as_ref(), r.as_ref()) {
                    (Expr::Col(p), o) if *p == e.offset + c => o,
                    (o, Expr::Col(p)) if *p == e.offset + c => o,
                    _ => return None,
                };
                // Constant once the outer row's columns are values (the per-row planner's
                // test, `exec::is_const`, on the substituted term).
                is_const(&map_cols(o, &|_| Expr::Lit(Value::Null))).then(|| o.clone())
            });
            let part = match outer {
                Some(o) => KeyPart::Outer(o),
                None => {
                    let ColumnTerms { eq, .. } =
                        crate::exec::column_terms(&local_refs, c, col.ty, col.collation);
                    match eq {
                        Some(mut v) if v.len() == 1 => KeyPart::Const(v.remove(0)),
                        _ => return None,
                    }
                }
            };
            parts.push((col.ty, part));
        }
        parts.iter().any(|(_, p)| matches!(p, KeyPart::Outer(_))).then_some(PointLookup { parts })
    }

    /// The primary key for the outer row `row`, or None when an outer value is not exactly a
    /// key value (NULL, a string that is no number for an integer key, an error): the
    /// per-row planner then decides, as it would have.
    fn key(&self, row: &[Value]) -> Option<Vec<Value>> {
        let mut key = Vec::with_capacity(self.parts.len());
        for (ty, part) in &self.parts {
            key.push(match part {
                KeyPart::Const(v) => v.clone(),
                KeyPart::Outer(o) => key_value(&eval(o, row, &[]).ok()?, *ty)?,
            });
        }
        Some(key)
    }
}

/// Runs the plan; the joined rows that pass every term.
pub(crate) fn run(reader: &mut Reader<'_>, scope: &Scope, plan: &JoinPlan) -> Result<Vec<Row>> {
    let mut out = Vec::new();
    if !holds(&plan.constant, &[])? {
        return Ok(out);
    }
    let mut cache: Vec<Option<Materialized>> = (0..plan.steps.len()).map(|_| None).collect();
    let points: Vec<Option<PointLookup>> = plan
        .steps
        .iter()
        .map(|st| match &st.access {
            StepAccess::Lookup { keys, local, .. } => {
                PointLookup::prepare(scope, st.entry, keys, local)
            }
            StepAccess::Scan { .. } => None,
        })
        .collect();
    let mut row = vec![Value::Null; scope.schema.columns.len()];
    let mut state = State { cache: &mut cache, points: &points };
    step(reader, scope, plan, 0, &mut row, &mut state, &mut out)?;
    Ok(out)
}

/// What a statement's steps keep across outer rows.
struct State<'a> {
    /// Scan steps' rows, read once.
    cache: &'a mut [Option<Materialized>],
    /// Lookup steps' prepared point lookups.
    points: &'a [Option<PointLookup>],
}

fn step(
    reader: &mut Reader<'_>,
    scope: &Scope,
    plan: &JoinPlan,
    n: usize,
    row: &mut Vec<Value>,
    state: &mut State<'_>,
    out: &mut Vec<Row>,
) -> Result<()> {
    let Some(st) = plan.steps.get(n) else {
        out.push(row.clone());
        return Ok(());
    };
    let e = &scope.entries[st.entry];
    let (off, width) = (e.offset, e.schema.columns.len());
    // The candidate rows of this table for the current outer row: looked up now, or from
    // the step's rows read once (taken out of the cache while the later steps run).
    let mut looked_up: Vec<Row> = Vec::new();
    let mut mat: Option<Materialized> = None;
    let mut picked: Option<Vec<usize>> = None;
    // A prepared point lookup's key for this outer row.
    let point = state.points.get(n).and_then(Option::as_ref).and_then(|p| p.key(row));
    match &st.access {
        StepAccess::Lookup { .. } if point.is_some() => {
            let key = point.unwrap_or_default();
            looked_up = reader.read(scope, st.entry, &Access::Keys(vec![key]))?;
        }
        StepAccess::Lookup { keys, local, .. } => {
            let outer_row: &[Value] = row;
            let mut terms = local.clone();
            for k in keys {
                terms.push(map_cols(k, &|p| {
                    if p >= off && p < off + width {
                        Expr::Col(p - off)
                    } else {
                        Expr::Lit(outer_row.get(p).cloned().unwrap_or(Value::Null))
                    }
                }));
            }
            let filter = and_all(terms);
            let access = plan_access(&e.schema, filter.as_ref());
            looked_up = reader.read(scope, st.entry, &access)?;
        }
        StepAccess::Scan { local, hash } => {
            let m = match state.cache[n].take() {
                Some(m) => m,
                None => materialize(reader, scope, st.entry, local, hash)?,
            };
            if let Some(h) = &m.hash {
                let mut k = Vec::with_capacity(hash.len());
                for (c, o) in hash {
                    let col = &scope.schema.columns[*c];
                    k.push(hash_value(eval(o, row, &[])?, Some(col.collation)));
                }
                picked = Some(h.get(&encode_key(&k)).cloned().unwrap_or_default());
            }
            mat = Some(m);
        }
    }
    let cands: Vec<&Row> = match (&mat, &picked) {
        (Some(m), Some(ix)) => ix.iter().map(|&i| &m.rows[i]).collect(),
        (Some(m), None) => m.rows.iter().collect(),
        (None, _) => looked_up.iter().collect(),
    };
    let mut matched = false;
    for r in cands {
        let w = width.min(r.len());
        row[off..off + w].clone_from_slice(&r[..w]);
        if !holds(&st.conds, row)? {
            continue;
        }
        matched = true;
        if holds(&st.after, row)? {
            step(reader, scope, plan, n + 1, row, state, out)?;
        }
    }
    row[off..off + width].fill(Value::Null);
    if st.outer && !matched && holds(&st.after, row)? {
        step(reader, scope, plan, n + 1, row, state, out)?;
    }
    if mat.is_some() {
        state.cache[n] = mat;
    }
    Ok(())
}

/// Reads a Scan step's table once: its rows passing the table's own terms, and the hash index
/// on the step's equality columns.
fn materialize(
    reader: &mut Reader<'_>,
    scope: &Scope,
    k: usize,
    local: &[Expr],
    hash: &[(usize, Expr)],
) -> Result<Materialized> {
    let e = &scope.entries[k];
    let filter = and_all(local.to_vec());
    let access = match e.table {
        Some(id) => plan_access_in(reader.engine, id, &e.schema, filter.as_ref()),
        None => plan_access(&e.schema, filter.as_ref()),
    };
    let mut keep = Vec::new();
    for r in reader.read(scope, k, &access)? {
        if holds(local, &r)? {
            keep.push(r);
        }
    }
    let index = if hash.is_empty() {
        None
    } else {
        let mut h: HashMap<Key, Vec<usize>> = HashMap::new();
        for (i, r) in keep.iter().enumerate() {
            let k: Vec<Value> = hash
                .iter()
                .map(|(c, _)| {
                    let col = &scope.schema.columns[*c];
                    hash_value(
                        r.get(c - e.offset).cloned().unwrap_or(Value::Null),
                        Some(col.collation),
                    )
                })
                .collect();
            h.entry(encode_key(&k)).or_default().push(i);
        }
        Some(h)
    };
    Ok(Materialized { rows: keep, hash: index })
}
