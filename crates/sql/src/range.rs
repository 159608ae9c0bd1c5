//! The range optimizer: which index ranges a bound WHERE clause allows, for every index of a
//! table, and which index to read (mysqld's sql/range_optimizer: `get_mm_tree`, `SEL_ARG`,
//! `key_and`/`key_or`, `test_quick_select`; much smaller).
//!
//! Why by hand: no library knows binlogd's expressions or its key encoding. The analysis runs
//! per index over the WHERE tree: a comparison, BETWEEN, IN list or IS NULL of an index column
//! with constants is an interval of that column; AND intersects (a cross product of
//! disjunctions), OR unites; anything else allows every key (`All`). Each conjunction then
//! becomes one range of encoded keys: the equality prefix of the index, then at most one
//! range on the next column (as mysqld's `SEL_ARG` key parts), and the ranges are sorted and
//! merged, so overlapping ORs read a row once and rows come in key order. The engine encodes
//! strings by their column collation's weights, so 'a' and 'A' under `_ai_ci` are one key:
//! values are encoded with the column's collation and compared as bytes.
//!
//! Invariants:
//! - The ranges are a superset of the rows the WHERE keeps: every caller re-applies the
//!   WHERE, so a range only has to be wide enough; every fallback widens (a conjunction drops
//!   a side, a union too large becomes `All`). The one exception, [`bounds_exactly`], drops a
//!   term only after checking that the ranges actually built lie inside that term's own
//!   interval, so no widening can make it drop a term wrongly.
//! - Bounded: the recursion stops at [`MAX_DEPTH`] (deeper terms allow every key) and a tree
//!   holds at most [`MAX_CONJ`] conjunctions (mysqld's `range_optimizer_max_mem_size` idea).
//! - Only constants that convert exactly to the column's type become key values
//!   (`exec::key_value`), and a string comparison only under the column's own collation.
//! - The produced ranges are sorted and disjoint (`engine::Engine::scan_key_ranges` asserts).

use std::cmp::Ordering;
use std::ops::Bound;

use engine::{ByteRange, ColumnType, TableSchema, Value};

use crate::ast::{BinOp, Expr};

/// Counts the entries of ranges of an index (None: the primary key) up to a cap.
pub(crate) type Count<'a> = &'a dyn Fn(Option<&str>, &[ByteRange], u64) -> u64;

/// A constant's key value for a column of a type: None if the expression is not a constant
/// converting exactly to the type, Some(None) for NULL (`exec::key_constant`).
pub(crate) type Konst<'a> = &'a dyn Fn(&Expr, ColumnType) -> Option<Option<Value>>;

/// Deepest AND/OR nesting analysed; deeper terms allow every key.
const MAX_DEPTH: usize = 32;
/// Most conjunctions a tree keeps (each becomes at most one range).
const MAX_CONJ: usize = 512;

/// Above every encoded key with a given prefix (no encoded component starts with 0xFF).
const ABOVE: u8 = 0xFF;

thread_local! {
    static FORCE_SCAN: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Makes statements run on this thread read every table by a full scan (and point lookups
/// none): for tests that compare what range access returns with what a scan returns.
pub fn force_full_scan(on: bool) {
    FORCE_SCAN.with(|f| f.set(on));
}

/// Whether [`force_full_scan`] is on for this thread.
pub(crate) fn forced_scan() -> bool {
    FORCE_SCAN.with(|f| f.get())
}

/// A range read of one index.
#[derive(Debug, Clone)]
pub(crate) struct RangeAccess {
    /// The secondary index read; None: the primary key.
    pub(crate) index: Option<String>,
    /// Sorted, disjoint ranges of encoded keys.
    pub(crate) ranges: Vec<ByteRange>,
    /// Key parts the ranges bound (the most over all ranges): EXPLAIN's key_len.
    pub(crate) parts: usize,
    /// Leading key parts fixed to one value by every range (rows come ordered by the parts
    /// after them).
    pub(crate) const_parts: usize,
    /// Every range is one value of the first `parts` columns (a `ref` when one range).
    pub(crate) points: bool,
    /// The estimated rows (entries counted in the ranges, or 1 for a unique point).
    pub(crate) rows: u64,
    /// Read in descending key order (ORDER BY ... DESC served by the index).
    pub(crate) reverse: bool,
    /// A whole-index read chosen only for its order (EXPLAIN's `index`).
    pub(crate) full_index: bool,
    /// The rows come in the ORDER BY's order (no sort needed before a LIMIT).
    pub(crate) ordered: bool,
}

/// An interval of one column's encoded values.
#[derive(Debug, Clone, PartialEq)]
struct Iv {
    lo: Bound<Vec<u8>>,
    hi: Bound<Vec<u8>>,
}

impl Iv {
    fn point(&self) -> Option<&[u8]> {
        match (&self.lo, &self.hi) {
            (Bound::Included(a), Bound::Included(b)) if a == b => Some(a),
            _ => None,
        }
    }
    fn is_empty(&self) -> bool {
        match (&self.lo, &self.hi) {
            (Bound::Included(a), Bound::Included(b)) => a > b,
            (Bound::Included(a) | Bound::Excluded(a), Bound::Included(b) | Bound::Excluded(b)) => {
                a >= b
            }
            _ => false,
        }
    }
}

/// Lower bounds compared (Unbounded lowest; at equal bytes Included below Excluded).
fn cmp_lo(a: &Bound<Vec<u8>>, b: &Bound<Vec<u8>>) -> Ordering {
    match (a, b) {
        (Bound::Unbounded, Bound::Unbounded) => Ordering::Equal,
        (Bound::Unbounded, _) => Ordering::Less,
        (_, Bound::Unbounded) => Ordering::Greater,
        (Bound::Included(x), Bound::Excluded(y)) if x == y => Ordering::Less,
        (Bound::Excluded(x), Bound::Included(y)) if x == y => Ordering::Greater,
        (Bound::Included(x) | Bound::Excluded(x), Bound::Included(y) | Bound::Excluded(y)) => {
            x.cmp(y)
        }
    }
}

/// Upper bounds compared (Unbounded highest; at equal bytes Excluded below Included).
fn cmp_hi(a: &Bound<Vec<u8>>, b: &Bound<Vec<u8>>) -> Ordering {
    match (a, b) {
        (Bound::Unbounded, Bound::Unbounded) => Ordering::Equal,
        (Bound::Unbounded, _) => Ordering::Greater,
        (_, Bound::Unbounded) => Ordering::Less,
        (Bound::Excluded(x), Bound::Included(y)) if x == y => Ordering::Less,
        (Bound::Included(x), Bound::Excluded(y)) if x == y => Ordering::Greater,
        (Bound::Included(x) | Bound::Excluded(x), Bound::Included(y) | Bound::Excluded(y)) => {
            x.cmp(y)
        }
    }
}

fn intersect(a: &Iv, b: &Iv) -> Iv {
    let lo = if cmp_lo(&a.lo, &b.lo) == Ordering::Less { b.lo.clone() } else { a.lo.clone() };
    let hi = if cmp_hi(&a.hi, &b.hi) == Ordering::Greater { b.hi.clone() } else { a.hi.clone() };
    Iv { lo, hi }
}

/// Per index column (by key part), its interval; None: not constrained.
type Conj = Vec<Option<Iv>>;

/// What a WHERE (sub)tree allows of one index.
#[derive(Debug, Clone)]
enum Tree {
    /// Every key.
    All,
    /// Keys in any of the conjunctions (none: no key at all).
    Any(Vec<Conj>),
}

fn and(a: Tree, b: Tree) -> Tree {
    match (a, b) {
        (Tree::All, t) | (t, Tree::All) => t,
        (Tree::Any(x), Tree::Any(y)) => {
            if x.len().saturating_mul(y.len()) > MAX_CONJ {
                // Either side alone is wider than the conjunction: keep the tighter-looking one.
                return Tree::Any(if x.len() <= y.len() { x } else { y });
            }
            let mut out = Vec::with_capacity(x.len() * y.len());
            for cx in &x {
                'pair: for cy in &y {
                    let mut c: Conj = Vec::with_capacity(cx.len());
                    for (p, q) in cx.iter().zip(cy) {
                        let iv = match (p, q) {
                            (Some(p), Some(q)) => {
                                let iv = intersect(p, q);
                                if iv.is_empty() {
                                    continue 'pair;
                                }
                                Some(iv)
                            }
                            (Some(p), None) => Some(p.clone()),
                            (None, q) => q.clone(),
                        };
                        c.push(iv);
                    }
                    out.push(c);
                }
            }
            Tree::Any(out)
        }
    }
}

fn or(a: Tree, b: Tree) -> Tree {
    match (a, b) {
        (Tree::All, _) | (_, Tree::All) => Tree::All,
        (Tree::Any(mut x), Tree::Any(y)) => {
            if x.len() + y.len() > MAX_CONJ {
                return Tree::All;
            }
            x.extend(y);
            Tree::Any(x)
        }
    }
}

/// The analysis of one index: its columns and their types and collations, and the prefix
/// length of each key part (empty: none; see `engine::IndexDef::prefixes`).
struct Analyzer<'a> {
    schema: &'a TableSchema,
    cols: &'a [usize],
    prefixes: &'a [u32],
    konst: Konst<'a>,
}

impl Analyzer<'_> {
    fn part(&self, e: &Expr, coll: Option<u16>) -> Option<usize> {
        let Expr::Col(c) = e else { return None };
        let part = self.cols.iter().position(|x| x == c)?;
        let col = &self.schema.columns[*c];
        // A comparison under another collation than the column's does not bound its keys.
        if coll.is_some_and(|k| k != col.collation) {
            return None;
        }
        Some(part)
    }

    /// The encoded key value of constant `e` for key part `part`; None if it is not a
    /// constant converting exactly (Some(None) for NULL).
    /// A prefix part's key holds the value cut to the prefix (so does the constant's).
    fn value(&self, part: usize, e: &Expr) -> Option<Option<Vec<u8>>> {
        let c = self.cols[part];
        match (self.konst)(e, self.schema.columns[c].ty)? {
            None => Some(None),
            Some(k) => {
                let mut out = Vec::new();
                self.schema.encode_key_part(&mut out, c, self.prefix(part), &k);
                Some(Some(out))
            }
        }
    }

    fn prefix(&self, part: usize) -> u32 {
        self.prefixes.get(part).copied().unwrap_or(0)
    }

    fn null(&self, part: usize) -> Vec<u8> {
        let c = self.cols[part];
        self.schema.key_of_values(&[c], &[Value::Null]).into_vec()
    }

    fn leaf(&self, part: usize, iv: Iv) -> Tree {
        if iv.is_empty() {
            return Tree::Any(Vec::new());
        }
        let mut c: Conj = vec![None; self.cols.len()];
        c[part] = Some(iv);
        Tree::Any(vec![c])
    }

    fn tree(&self, e: &Expr, depth: usize, coll: Option<u16>) -> Tree {
        if depth > MAX_DEPTH {
            return Tree::All;
        }
        match e {
            Expr::Binary(BinOp::And, a, b) if coll.is_none() => {
                and(self.tree(a, depth + 1, None), self.tree(b, depth + 1, None))
            }
            Expr::Binary(BinOp::Or, a, b) if coll.is_none() => {
                or(self.tree(a, depth + 1, None), self.tree(b, depth + 1, None))
            }
            Expr::Collated(c, inner) if coll.is_none() => self.tree(inner, depth + 1, Some(*c)),
            Expr::Binary(op, l, r) => {
                if !matches!(
                    op,
                    BinOp::Eq | BinOp::NullSafeEq | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
                ) {
                    return Tree::All;
                }
                let (part, op, other) = match (self.part(l, coll), self.part(r, coll)) {
                    (Some(p), None) => (p, *op, r.as_ref()),
                    (None, Some(p)) => (p, flip(*op), l.as_ref()),
                    _ => return Tree::All,
                };
                let Some(v) = self.value(part, other) else { return Tree::All };
                let v = match (op, v) {
                    (BinOp::NullSafeEq, None) => {
                        let n = self.null(part);
                        return self.leaf(
                            part,
                            Iv { lo: Bound::Included(n.clone()), hi: Bound::Included(n) },
                        );
                    }
                    // A comparison with NULL is never true.
                    (BinOp::Eq | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge, None) => {
                        return Tree::Any(Vec::new())
                    }
                    (_, None) => return Tree::All,
                    (_, Some(v)) => v,
                };
                let n = self.null(part);
                // On a prefix part a strict bound becomes inclusive: a longer value cut to
                // the bound's prefix may lie on either side of the bound.
                let op = match op {
                    BinOp::Gt if self.prefix(part) != 0 => BinOp::Ge,
                    BinOp::Lt if self.prefix(part) != 0 => BinOp::Le,
                    o => o,
                };
                let iv = match op {
                    BinOp::Eq | BinOp::NullSafeEq => {
                        Iv { lo: Bound::Included(v.clone()), hi: Bound::Included(v) }
                    }
                    BinOp::Gt => Iv { lo: Bound::Excluded(v), hi: Bound::Unbounded },
                    BinOp::Ge => Iv { lo: Bound::Included(v), hi: Bound::Unbounded },
                    BinOp::Lt => Iv { lo: Bound::Excluded(n), hi: Bound::Excluded(v) },
                    BinOp::Le => Iv { lo: Bound::Excluded(n), hi: Bound::Included(v) },
                    _ => return Tree::All,
                };
                self.leaf(part, iv)
            }
            Expr::Between { expr, low, high, negated: false } => {
                let Some(part) = self.part(expr, coll) else { return Tree::All };
                match (self.value(part, low), self.value(part, high)) {
                    (Some(Some(lo)), Some(Some(hi))) => {
                        self.leaf(part, Iv { lo: Bound::Included(lo), hi: Bound::Included(hi) })
                    }
                    (Some(None), Some(_)) | (Some(_), Some(None)) => Tree::Any(Vec::new()),
                    _ => Tree::All,
                }
            }
            Expr::InList { expr, list, negated: false } => {
                let Some(part) = self.part(expr, coll) else { return Tree::All };
                if list.len() > MAX_CONJ {
                    return Tree::All;
                }
                let mut t = Tree::Any(Vec::new());
                for item in list {
                    match self.value(part, item) {
                        Some(Some(v)) => {
                            t = or(
                                t,
                                self.leaf(
                                    part,
                                    Iv { lo: Bound::Included(v.clone()), hi: Bound::Included(v) },
                                ),
                            )
                        }
                        // `x IN (NULL, ...)` is never true through the NULL.
                        Some(None) => {}
                        None => return Tree::All,
                    }
                }
                t
            }
            Expr::IsNull { expr, negated: false } => {
                let Some(part) = self.part(expr, None) else { return Tree::All };
                let n = self.null(part);
                self.leaf(part, Iv { lo: Bound::Included(n.clone()), hi: Bound::Included(n) })
            }
            Expr::IsNull { expr, negated: true } => {
                let Some(part) = self.part(expr, None) else { return Tree::All };
                self.leaf(part, Iv { lo: Bound::Excluded(self.null(part)), hi: Bound::Unbounded })
            }
            _ => Tree::All,
        }
    }
}

fn flip(op: BinOp) -> BinOp {
    match op {
        BinOp::Lt => BinOp::Gt,
        BinOp::Le => BinOp::Ge,
        BinOp::Gt => BinOp::Lt,
        BinOp::Ge => BinOp::Le,
        o => o,
    }
}

fn with(prefix: &[u8], tail: &[u8], above: bool) -> Vec<u8> {
    let mut v = Vec::with_capacity(prefix.len() + tail.len() + 1);
    v.extend_from_slice(prefix);
    v.extend_from_slice(tail);
    if above {
        v.push(ABOVE);
    }
    v
}

/// One conjunction as a range of encoded keys: its equality prefix, then at most one range
/// on the next part. Returns the range, the parts it bounds and whether it is a point.
fn conj_range(c: &Conj) -> (ByteRange, usize, bool) {
    let mut prefix = Vec::new();
    let mut parts = 0;
    for iv in c {
        let Some(iv) = iv else { break };
        if let Some(p) = iv.point() {
            prefix.extend_from_slice(p);
            parts += 1;
            continue;
        }
        let lo = match &iv.lo {
            Bound::Included(a) => Bound::Included(with(&prefix, a, false)),
            Bound::Excluded(a) => Bound::Excluded(with(&prefix, a, true)),
            Bound::Unbounded if prefix.is_empty() => Bound::Unbounded,
            Bound::Unbounded => Bound::Included(prefix.clone()),
        };
        let hi = match &iv.hi {
            Bound::Included(b) => Bound::Excluded(with(&prefix, b, true)),
            Bound::Excluded(b) => Bound::Excluded(with(&prefix, b, false)),
            Bound::Unbounded if prefix.is_empty() => Bound::Unbounded,
            Bound::Unbounded => Bound::Excluded(with(&prefix, &[], true)),
        };
        return ((lo, hi), parts + 1, false);
    }
    if prefix.is_empty() {
        return ((Bound::Unbounded, Bound::Unbounded), 0, false);
    }
    let hi = Bound::Excluded(with(&prefix, &[], true));
    ((Bound::Included(prefix), hi), parts, true)
}

/// Sorts ranges and merges those that overlap or touch.
fn merge(mut v: Vec<ByteRange>) -> Vec<ByteRange> {
    v.retain(|r| !Iv { lo: r.0.clone(), hi: r.1.clone() }.is_empty());
    v.sort_by(|a, b| cmp_lo(&a.0, &b.0));
    let mut out: Vec<ByteRange> = Vec::with_capacity(v.len());
    for r in v {
        if let Some(last) = out.last_mut() {
            let touches = match (&last.1, &r.0) {
                (Bound::Unbounded, _) | (_, Bound::Unbounded) => true,
                (
                    Bound::Included(u) | Bound::Excluded(u),
                    Bound::Included(l) | Bound::Excluded(l),
                ) => l <= u,
            };
            if touches {
                if cmp_hi(&r.1, &last.1) == Ordering::Greater {
                    last.1 = r.1;
                }
                continue;
            }
        }
        out.push(r);
    }
    out
}

/// The ranges `filter` allows of the index with columns `cols` and prefix lengths
/// `prefixes` (empty: none); None if every key.
pub(crate) fn index_ranges(
    schema: &TableSchema,
    cols: &[usize],
    prefixes: &[u32],
    filter: &Expr,
    konst: Konst<'_>,
) -> Option<RangeAccess> {
    let a = Analyzer { schema, cols, prefixes, konst };
    let Tree::Any(conjs) = a.tree(filter, 0, None) else { return None };
    let mut ranges = Vec::with_capacity(conjs.len());
    let mut parts = 0;
    let mut points = true;
    for c in &conjs {
        let (r, p, pt) = conj_range(c);
        if p == 0 {
            return None;
        }
        parts = parts.max(p);
        points &= pt;
        ranges.push(r);
    }
    // Parts fixed to one value by every conjunction.
    let mut const_parts = 0;
    'parts: for part in 0..cols.len() {
        let mut seen: Option<&[u8]> = None;
        for c in &conjs {
            let Some(v) = c[part].as_ref().and_then(|iv| iv.point()) else { break 'parts };
            if seen.is_some_and(|s| s != v) {
                break 'parts;
            }
            seen = Some(v);
        }
        if seen.is_none() {
            break;
        }
        const_parts += 1;
    }
    if points {
        points = conjs.iter().all(|c| {
            c.iter().take(parts).all(|iv| iv.as_ref().is_some_and(|i| i.point().is_some()))
        });
    }
    Some(RangeAccess {
        index: None,
        ranges: merge(ranges),
        parts,
        const_parts,
        points,
        rows: 0,
        reverse: false,
        full_index: false,
        ordered: false,
    })
}

/// The candidate indexes of `schema` that `filter` bounds: (index name or None for the
/// primary key, its ranges).
pub(crate) fn candidates(
    schema: &TableSchema,
    filter: &Expr,
    konst: Konst<'_>,
) -> Vec<RangeAccess> {
    let mut out = Vec::new();
    if !schema.primary_key.is_empty() {
        if let Some(r) = index_ranges(schema, &schema.primary_key, &[], filter, konst) {
            out.push(r);
        }
    }
    for idx in &schema.indexes {
        if let Some(mut r) = index_ranges(schema, &idx.columns, &idx.prefixes, filter, konst) {
            r.index = Some(idx.name.clone());
            out.push(r);
        }
    }
    out
}

/// Whether the access reads a unique key by one full value per range (each range one row).
fn unique_points(schema: &TableSchema, r: &RangeAccess) -> bool {
    if !r.points {
        return false;
    }
    match &r.index {
        None => r.parts == schema.primary_key.len(),
        // A unique secondary index may hold many NULLs: counted instead.
        Some(_) => false,
    }
}

/// Chooses the index with the fewest estimated rows; `count(index, ranges, cap)` counts the
/// entries of ranges up to `cap` (None: estimate from the shape alone). The primary key wins
/// ties (its reads need no secondary lookup), then the index declared first.
///
/// Counting walks entries one by one up to its cap, and each candidate's cap is the best
/// count so far plus one, so the candidates are counted in the order of their shape's
/// estimate (unique points first, then more bound parts): the likely winner is counted
/// first and caps the others early. go-tpc's customer-by-last-name read counted the 3 000
/// entries of its district's primary-key prefix before the 3 of its `(w, d, last)` index.
/// The order changes no choice: a count below its cap is exact, and ties go by the
/// candidates' declared order, not the counting order.
pub(crate) fn choose(
    schema: &TableSchema,
    filter: &Expr,
    konst: Konst<'_>,
    count: Option<Count<'_>>,
) -> Option<RangeAccess> {
    let cands = candidates(schema, filter, konst);
    if cands.is_empty() {
        return None;
    }
    // One candidate needs no count to be chosen.
    let count = if cands.len() == 1 { None } else { count };
    let mut order: Vec<(usize, RangeAccess)> = cands.into_iter().enumerate().collect();
    if count.is_some() {
        order.sort_by_key(|(i, c)| (!unique_points(schema, c), shape_estimate(c), *i));
    }
    let mut best: Option<(usize, RangeAccess)> = None;
    for (i, mut c) in order {
        let cap = best.as_ref().map_or(u64::MAX, |(_, b)| b.rows.saturating_add(1));
        c.rows = if unique_points(schema, &c) {
            c.ranges.len() as u64
        } else {
            match count {
                Some(f) => f(c.index.as_deref(), &c.ranges, cap),
                _ => shape_estimate(&c),
            }
        };
        if best.as_ref().is_none_or(|(j, b)| c.rows < b.rows || (c.rows == b.rows && i < *j)) {
            best = Some((i, c));
        }
    }
    best.map(|(_, c)| c)
}

/// Rows guessed from a range's shape when nothing is counted: more bound parts, fewer rows.
fn shape_estimate(r: &RangeAccess) -> u64 {
    let per = if r.points { 10u64 } else { 100 };
    (r.ranges.len() as u64).saturating_mul(per) / (r.parts as u64).max(1)
}

/// The key columns of an access path in order: the index's, then for a secondary index the
/// primary key's (its entries end with the clustered key).
pub(crate) fn order_columns(schema: &TableSchema, index: Option<&str>) -> Vec<usize> {
    match index.and_then(|n| schema.indexes.iter().find(|i| i.name == n)) {
        None => schema.primary_key.clone(),
        Some(i) => {
            let mut v = i.columns.clone();
            v.extend(schema.primary_key.iter().filter(|c| !i.columns.contains(c)));
            v
        }
    }
}

/// Whether reading `index` in key order (reversed for DESC) gives `order`'s order, with the
/// first `const_parts` key columns fixed: Some(reverse) if so (mysqld's
/// `test_if_order_by_key`). Only columns whose key encoding orders as ORDER BY does
/// (numbers, DATETIME/DATE) qualify.
pub(crate) fn serves_order(
    schema: &TableSchema,
    index: Option<&str>,
    const_parts: usize,
    order: &[(Expr, bool)],
) -> Option<bool> {
    use engine::ColumnType as T;
    if order.is_empty() {
        return None;
    }
    let cols = order_columns(schema, index);
    if cols.is_empty() {
        return None;
    }
    let mut next = const_parts.min(cols.len());
    let mut dir: Option<bool> = None;
    for (e, desc) in order {
        let Expr::Col(c) = e else { return None };
        if cols[..const_parts.min(cols.len())].contains(c) {
            continue;
        }
        if cols.get(next) != Some(c) {
            return None;
        }
        let ordered = matches!(
            schema.columns[*c].ty,
            T::Integer { .. } | T::Decimal { .. } | T::Double | T::DateTime { .. }
        );
        if !ordered || dir.is_some_and(|d| d != *desc) {
            return None;
        }
        dir = Some(*desc);
        next += 1;
    }
    dir
}

/// A read of the whole index `index` (None: the primary key) in its order, reversed when
/// `reverse`: mysqld's `index` join type, chosen for an ORDER BY ... LIMIT.
pub(crate) fn whole_index(schema: &TableSchema, index: Option<&str>, reverse: bool) -> RangeAccess {
    let parts = match index.and_then(|n| schema.indexes.iter().find(|i| i.name == n)) {
        None => schema.primary_key.len(),
        Some(i) => i.columns.len(),
    };
    RangeAccess {
        index: index.map(str::to_string),
        ranges: vec![(Bound::Unbounded, Bound::Unbounded)],
        parts,
        const_parts: 0,
        points: false,
        rows: 0,
        reverse,
        full_index: true,
        ordered: true,
    }
}

/// What is left of `ranges` after the scan reached key `last`: the keys above it (below it
/// when `reverse`). Sorted and disjoint as the input.
pub(crate) fn after(ranges: &[ByteRange], last: &[u8], reverse: bool) -> Vec<ByteRange> {
    let cut = if reverse {
        Iv { lo: Bound::Unbounded, hi: Bound::Excluded(last.to_vec()) }
    } else {
        Iv { lo: Bound::Excluded(last.to_vec()), hi: Bound::Unbounded }
    };
    ranges
        .iter()
        .map(|r| intersect(&Iv { lo: r.0.clone(), hi: r.1.clone() }, &cut))
        .filter(|iv| !iv.is_empty())
        .map(|iv| (iv.lo, iv.hi))
        .collect()
}

/// Whether WHERE term `term` holds for every row the primary-key ranges of `r` can read, so
/// that a caller may skip re-evaluating it on them (mysqld drops such conditions too:
/// `reduce_cond_for_table` / `test_if_ref` remove a term its ref access guarantees).
///
/// Provably exact only in this narrow case: the read is of the primary key, `term` is one
/// comparison, BETWEEN or IS [NOT] NULL of the key's first column with constants, that
/// column is an integer (its key is a fixed 9-byte order-preserving prefix of every key, so
/// a key lies in an interval of encoded bytes exactly when the column's value lies in the
/// interval of values), `konst` accepts only integer constants (an exact comparison of two
/// integers, no conversion), and every range of `r` lies inside the term's own interval.
/// The last check is on the ranges actually read, so however the analysis combined or
/// widened the WHERE's terms, a term is dropped only where the ranges imply it.
pub(crate) fn bounds_exactly(
    schema: &TableSchema,
    r: &RangeAccess,
    term: &Expr,
    konst: Konst<'_>,
) -> bool {
    let Some(&first) = schema.primary_key.first() else { return false };
    if r.index.is_some() || !matches!(schema.columns[first].ty, ColumnType::Integer { .. }) {
        return false;
    }
    let comparison = |op: &BinOp| {
        matches!(op, BinOp::Eq | BinOp::NullSafeEq | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge)
    };
    match term {
        Expr::Binary(op, ..) if comparison(op) => {}
        Expr::Between { .. } | Expr::IsNull { .. } => {}
        _ => return false,
    }
    let a = Analyzer { schema, cols: std::slice::from_ref(&first), prefixes: &[], konst };
    let Tree::Any(conjs) = a.tree(term, 0, None) else { return false };
    let [conj] = conjs.as_slice() else { return false };
    let ((lo, hi), parts, _) = conj_range(conj);
    if parts != 1 {
        return false;
    }
    r.ranges.iter().all(|(rlo, rhi)| {
        cmp_lo(rlo, &lo) != Ordering::Less && cmp_hi(rhi, &hi) != Ordering::Greater
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Column;

    fn int(v: i64) -> Box<Expr> {
        Box::new(Expr::Lit(Value::Int(v)))
    }

    fn between(col: usize, lo: Box<Expr>, hi: Box<Expr>) -> Expr {
        Expr::Between { expr: Box::new(Expr::Col(col)), low: lo, high: hi, negated: false }
    }

    /// Integer constants only, as `exec::int_key_constant`.
    fn konst(e: &Expr, _: ColumnType) -> Option<Option<Value>> {
        match e {
            Expr::Lit(v @ Value::Int(_)) => Some(Some(v.clone())),
            _ => None,
        }
    }

    fn access(schema: &TableSchema, filter: &Expr) -> RangeAccess {
        let cols = schema.primary_key.clone();
        index_ranges(schema, &cols, &[], filter, &konst).expect("ranges")
    }

    /// The candidate most bound is counted first and caps the others' counts; the choice and
    /// its tie rule (primary key first, then declaration order) are the counting order's.
    #[test]
    fn choose_counts_the_narrowest_candidate_first_and_keeps_ties() {
        let int_ty = ColumnType::Integer { bytes: 4, unsigned: false };
        let cols: Vec<Column> =
            ["w", "d", "id", "last"].iter().map(|n| Column::new(n, int_ty)).collect();
        let mut t = TableSchema::new("customer", cols, vec![0, 1, 2]);
        t.indexes.push(engine::IndexDef::new("by_last", vec![0, 1, 3], false));
        let eq = |c: usize, v: i64| Expr::Binary(BinOp::Eq, Box::new(Expr::Col(c)), int(v));
        let and = |a: Expr, b: Expr| Expr::Binary(BinOp::And, Box::new(a), Box::new(b));
        let filter = and(and(eq(0, 1), eq(1, 2)), eq(3, 7));
        // Entries per candidate: the primary key's (w, d) prefix holds 3 000, by_last 3.
        let run = |pk: u64, by_last: u64| {
            let calls = std::cell::RefCell::new(Vec::new());
            let count = |index: Option<&str>, _: &[ByteRange], cap: u64| {
                calls.borrow_mut().push((index.map(str::to_string), cap));
                if index.is_none() {
                    pk.min(cap)
                } else {
                    by_last.min(cap)
                }
            };
            let chosen = choose(&t, &filter, &konst, Some(&count)).expect("a range");
            (chosen.index, chosen.rows, calls.into_inner())
        };
        let (index, rows, calls) = run(3000, 3);
        assert_eq!((index.as_deref(), rows), (Some("by_last"), 3));
        assert_eq!(calls, [(Some("by_last".to_string()), u64::MAX), (None, 4)]);
        // A tie goes to the primary key although it was counted second.
        let (index, rows, _) = run(3, 3);
        assert_eq!((index, rows), (None, 3));
        let (index, rows, _) = run(2, 3);
        assert_eq!((index, rows), (None, 2));
    }

    #[test]
    fn only_terms_the_primary_ranges_imply_are_exact() {
        let int_ty = ColumnType::Integer { bytes: 4, unsigned: false };
        let cols = vec![
            Column::new("id", int_ty),
            Column::new("k", int_ty),
            Column::new("c", ColumnType::VarChar(10)),
        ];
        let t = TableSchema::new("t", cols.clone(), vec![0]);
        let b = between(0, int(2), int(6));
        let r = access(&t, &b);
        assert!(bounds_exactly(&t, &r, &b, &konst));
        // A narrower term than the ranges is not implied by them.
        assert!(!bounds_exactly(&t, &r, &between(0, int(3), int(6)), &konst));
        // A wider one is.
        assert!(bounds_exactly(&t, &r, &between(0, int(1), int(9)), &konst));
        let lt = Expr::Binary(BinOp::Lt, Box::new(Expr::Col(0)), int(7));
        assert!(bounds_exactly(&t, &r, &lt, &konst));
        let gt = Expr::Binary(BinOp::Gt, Box::new(Expr::Col(0)), int(2));
        assert!(!bounds_exactly(&t, &r, &gt, &konst), "2 is in the ranges");
        // Not the key's column, a negated BETWEEN, an OR, a non-integer constant.
        assert!(!bounds_exactly(&t, &r, &between(1, int(2), int(6)), &konst));
        let not = Expr::Between {
            expr: Box::new(Expr::Col(0)),
            low: int(20),
            high: int(30),
            negated: true,
        };
        assert!(!bounds_exactly(&t, &r, &not, &konst));
        let or = Expr::Binary(BinOp::Or, Box::new(b.clone()), Box::new(lt.clone()));
        assert!(!bounds_exactly(&t, &r, &or, &konst));
        let dec = between(0, Box::new(Expr::Lit(Value::Bytes(b"2".to_vec()))), int(6));
        assert!(!bounds_exactly(&t, &r, &dec, &konst));
        // A secondary index's ranges, a string key, a key whose first column is another.
        let mut via_index = r.clone();
        via_index.index = Some("kk".into());
        assert!(!bounds_exactly(&t, &via_index, &b, &konst));
        let s = TableSchema::new("s", cols.clone(), vec![2]);
        let sb = between(2, int(2), int(6));
        assert!(!bounds_exactly(&s, &access(&s, &sb), &sb, &konst));
        let pair = TableSchema::new("p", cols, vec![1, 0]);
        let pb = between(0, int(2), int(6));
        let pk = Expr::Binary(BinOp::Eq, Box::new(Expr::Col(1)), int(1));
        let both = Expr::Binary(BinOp::And, Box::new(pk.clone()), Box::new(pb.clone()));
        let pr = access(&pair, &both);
        assert!(bounds_exactly(&pair, &pr, &pk, &konst), "the first key column's point");
        assert!(!bounds_exactly(&pair, &pr, &pb, &konst), "not the first key column");
    }
}
