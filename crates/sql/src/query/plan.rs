//! The join plan: the order tables are read in, how each is accessed, and which conditions
//! are checked where. An explicit tree of steps (not closures) so EXPLAIN can print it.
//!
//! Join order (mysqld's greedy search reduced to its first rule, `JOIN::make_join_plan` with
//! `optimizer_search_depth` = 1 and no cost model): when every join is inner (comma, JOIN,
//! CROSS JOIN), the next table is the one with the best access from the tables already read:
//! all of its primary key bound by equalities (to constants or read tables), else the leading
//! column of its primary key or of a secondary index bound by an equality, else a scan; ties
//! keep FROM order. So constant-equality tables come first and each later table is reached
//! through an index where a predicate allows. `STRAIGHT_JOIN` or an outer join keeps FROM order
//! (a `RIGHT JOIN` reads its right table first).
//!
//! Conditions: WHERE and inner ON clauses are split into AND terms; each is checked at the
//! first step where all tables it reads are read. An outer join's ON terms are checked at its
//! step only (they decide the match, not the row), and WHERE terms reading an outer-joined table
//! after its NULL-extended row is made.
//!
//! Invariants: `steps` names every scope entry exactly once; every term is placed at exactly
//! one step (or in `post` when it reads no table of any step after the last, which cannot
//! happen with a complete `steps`, so `post` holds only constant terms of a FROM whose steps
//! are all outer).

use engine::{ColumnType, TableSchema};

use crate::ast::{BinOp, Expr, JoinKind};
use crate::scope::Scope;

/// How one table's rows are found for each row of the tables before it.
#[derive(Debug, Clone)]
pub(crate) enum StepAccess {
    /// Index lookups per outer row: `keys` are equality terms `Col(c) = expr` (joined
    /// positions, `expr` reads only earlier tables or constants), made constant with the outer
    /// row and planned with the table's own constant terms (`local`) by the single-table
    /// access planner (`exec::plan_access`). `index` names the index meant ("PRIMARY" or a
    /// secondary index), for EXPLAIN.
    Lookup { keys: Vec<Expr>, local: Vec<Expr>, index: String },
    /// Read once, with the table's own constant terms (`local`, positions of the table), and
    /// kept in memory (a block nested-loop join); `hash` (inner column, outer expression)
    /// pairs key a hash table when an equality between compatible types exists.
    Scan { local: Vec<Expr>, hash: Vec<(usize, Expr)> },
}

/// One table of the join order.
#[derive(Debug, Clone)]
pub(crate) struct Step {
    /// The scope entry (FROM position).
    pub entry: usize,
    /// NULL-extended when no row matches (the inner table of a LEFT JOIN, or the left table
    /// of a RIGHT JOIN).
    pub outer: bool,
    pub access: StepAccess,
    /// Terms checked on the joined row once this table's row is in it (for an outer step: its
    /// ON terms, deciding the match).
    pub conds: Vec<Expr>,
    /// Terms checked after an outer step's match or NULL-extension (WHERE terms).
    pub after: Vec<Expr>,
}

/// A multi-table FROM's plan.
#[derive(Debug, Clone)]
pub(crate) struct JoinPlan {
    pub steps: Vec<Step>,
    /// Terms that read no table (checked once, before any read).
    pub constant: Vec<Expr>,
}

/// The AND terms of an expression.
pub(crate) fn conjuncts(e: Expr, out: &mut Vec<Expr>) {
    match e {
        Expr::Binary(BinOp::And, a, b) => {
            conjuncts(*a, out);
            conjuncts(*b, out);
        }
        e => out.push(e),
    }
}

/// The scope entries an expression reads, as a bit set (at most 61 tables: mysqld's limit).
pub(crate) fn refs(scope: &Scope, e: &Expr) -> u64 {
    let mut m = 0u64;
    e.walk(&mut |x| {
        if let Expr::Col(p) = x {
            if let Some(k) = scope.entries.iter().rposition(|en| en.offset <= *p) {
                m |= 1 << k;
            }
        }
    });
    m
}

/// `Col(c) = other` (either side; under a collation wrapper) with `c` in entry `k`: the
/// joined position and the other side.
pub(crate) fn equality<'e>(scope: &Scope, k: usize, term: &'e Expr) -> Option<(usize, &'e Expr)> {
    let inner = match term {
        Expr::Collated(_, x) => x.as_ref(),
        t => t,
    };
    let Expr::Binary(BinOp::Eq | BinOp::NullSafeEq, l, r) = inner else { return None };
    let e = &scope.entries[k];
    let within = |p: usize| p >= e.offset && p < e.offset + e.schema.columns.len();
    match (l.as_ref(), r.as_ref()) {
        (Expr::Col(c), o) if within(*c) && refs(scope, o) & (1 << k) == 0 => Some((*c, o)),
        (o, Expr::Col(c)) if within(*c) && refs(scope, o) & (1 << k) == 0 => Some((*c, o)),
        _ => None,
    }
}

/// Access quality of entry `k` given terms usable there: 3 all primary key columns bound by
/// equalities, 2 a key's leading column bound, 1 none. Equalities to a read table count
/// (`outer`: some key equality reads another table).
fn quality(scope: &Scope, k: usize, terms: &[&Expr]) -> (u8, bool, String) {
    let e = &scope.entries[k];
    let sc: &TableSchema = &e.schema;
    let mut bound = Vec::new();
    let mut outer = false;
    for t in terms {
        if let Some((c, o)) = equality(scope, k, t) {
            bound.push(c - e.offset);
            outer |= refs(scope, o) != 0;
        }
    }
    let pk = &sc.primary_key;
    if !pk.is_empty() && pk.iter().all(|c| bound.contains(c)) {
        return (3, outer, "PRIMARY".into());
    }
    if pk.first().is_some_and(|c| bound.contains(c)) {
        return (2, outer, "PRIMARY".into());
    }
    for idx in &sc.indexes {
        if idx.columns.first().is_some_and(|c| bound.contains(c)) {
            return (2, outer, idx.name.clone());
        }
    }
    (1, false, String::new())
}

/// Whether a hash join may key `inner` (a column) and `outer` (a column) by value: both
/// integers, or both character columns of one collation (the key is then the sort key).
fn hashable(scope: &Scope, inner: usize, outer: &Expr) -> bool {
    let Expr::Col(o) = outer else { return false };
    let (a, b) = (&scope.schema.columns[inner], &scope.schema.columns[*o]);
    let text = |t: ColumnType| matches!(t, ColumnType::Char(_) | ColumnType::VarChar(_));
    match (a.ty, b.ty) {
        (ColumnType::Integer { .. }, ColumnType::Integer { .. }) => true,
        (x, y) => text(x) && text(y) && a.collation == b.collation,
    }
}

/// Plans the join: `kinds[k]` is how entry k joins the ones before it (entry 0: Inner),
/// `on[k]` its bound ON clause, `filter` the bound WHERE.
pub(crate) fn plan(
    scope: &Scope,
    kinds: &[JoinKind],
    on: Vec<Option<Expr>>,
    filter: Option<Expr>,
) -> JoinPlan {
    let n = scope.entries.len();
    // (term, tables it reads, the outer entry whose ON it belongs to)
    let mut terms: Vec<(Expr, u64, Option<usize>)> = Vec::new();
    let add =
        |e: Option<Expr>, owner: Option<usize>, terms: &mut Vec<(Expr, u64, Option<usize>)>| {
            if let Some(e) = e {
                let mut v = Vec::new();
                conjuncts(e, &mut v);
                for t in v {
                    let r = refs(scope, &t);
                    terms.push((t, r, owner));
                }
            }
        };
    add(filter, None, &mut terms);
    let outer_of = |k: usize| match kinds.get(k) {
        Some(JoinKind::Left) => Some(k),
        // RIGHT JOIN (only as the first join): entry 0 is the NULL-extended one.
        Some(JoinKind::Right) => Some(0),
        _ => None,
    };
    for (k, o) in on.into_iter().enumerate() {
        // on[k] is the ON of entry k+1.
        let owner = outer_of(k + 1);
        add(o, owner, &mut terms);
    }
    let fixed = kinds.iter().any(|k| *k != JoinKind::Inner);
    let mut order: Vec<usize> = (0..n).collect();
    if kinds.get(1) == Some(&JoinKind::Right) {
        order.swap(0, 1);
    }
    let outer_step = |k: usize| (0..n).any(|j| outer_of(j) == Some(k));
    if !fixed {
        let mut left: Vec<usize> = (0..n).collect();
        let mut chosen = Vec::with_capacity(n);
        let mut bound = 0u64;
        while !left.is_empty() {
            let mut best = (0u8, 0usize);
            for (i, &k) in left.iter().enumerate() {
                let usable: Vec<&Expr> = terms
                    .iter()
                    .filter(|(_, r, _)| r & !(bound | (1 << k)) == 0)
                    .map(|(t, _, _)| t)
                    .collect();
                let (q, _, _) = quality(scope, k, &usable);
                if q > best.0 {
                    best = (q, i);
                }
            }
            let k = left.remove(best.1);
            bound |= 1 << k;
            chosen.push(k);
        }
        order = chosen;
    }
    let mut placed = vec![false; terms.len()];
    let mut constant = Vec::new();
    for (i, (t, r, owner)) in terms.iter().enumerate() {
        if *r == 0 && owner.is_none() {
            constant.push(t.clone());
            placed[i] = true;
        }
    }
    let mut steps = Vec::with_capacity(n);
    let mut bound = 0u64;
    for &k in &order {
        let now = bound | (1 << k);
        let outer = outer_step(k);
        let mut conds = Vec::new();
        let mut after = Vec::new();
        for (i, (t, r, owner)) in terms.iter().enumerate() {
            if placed[i] {
                continue;
            }
            let ready = r & !now == 0;
            if *owner == Some(k) {
                // The outer join's own ON terms: here, whatever they read.
                conds.push(t.clone());
                placed[i] = true;
            } else if owner.is_none() && ready {
                if outer {
                    after.push(t.clone());
                } else {
                    conds.push(t.clone());
                }
                placed[i] = true;
            }
        }
        let access = access_for(scope, k, &conds);
        steps.push(Step { entry: k, outer, access, conds, after });
        bound = now;
    }
    // Terms of an outer join's ON reading a table read later stay unplaced only if the owner
    // never came; every entry is a step, so all are placed.
    debug_assert!(placed.iter().all(|p| *p));
    JoinPlan { steps, constant }
}

/// Chooses a step's access from the terms checked there.
fn access_for(scope: &Scope, k: usize, conds: &[Expr]) -> StepAccess {
    let e = &scope.entries[k];
    let own = 1u64 << k;
    let rebase = |t: &Expr| super::exec::map_cols(t, &|p| Expr::Col(p - e.offset));
    let local: Vec<Expr> =
        conds.iter().filter(|t| refs(scope, t) & !own == 0).map(rebase).collect();
    let usable: Vec<&Expr> = conds.iter().collect();
    let (q, outer, index) = quality(scope, k, &usable);
    if q >= 2 && outer && e.table.is_some() {
        let keys = conds
            .iter()
            .filter(|t| equality(scope, k, t).is_some_and(|(_, o)| refs(scope, o) != 0))
            .cloned()
            .collect();
        return StepAccess::Lookup { keys, local, index };
    }
    let hash = conds
        .iter()
        .filter_map(|t| equality(scope, k, t))
        .filter(|(c, o)| refs(scope, o) != 0 && hashable(scope, *c, o))
        .map(|(c, o)| (c, o.clone()))
        .collect();
    StepAccess::Scan { local, hash }
}
