//! Window functions (`func(...) OVER (...)`), evaluated after grouping and HAVING and before
//! the select list, DISTINCT, ORDER BY and LIMIT, as mysqld's windowing step does
//! (sql/window.cc `Window`, sql/sql_executor.cc `process_buffered_windowing_record`, the
//! functions of sql/item_sum.cc `Item_row_number`, `Item_rank`, `Item_cume_dist`,
//! `Item_percent_rank`, `Item_ntile`, `Item_lead_lag`, `Item_first_last_value`,
//! `Item_nth_value` and the aggregates' windowed `add`/inverse).
//!
//! Binding gives every window call a *late slot*: `Expr::Agg(LATE_BASE + j)` while the
//! statement's aggregates are still being collected, renumbered once they are known to
//! `Expr::Agg(late_base + j)`, a position after the aggregates (and ROLLUP's group values,
//! `rollup.rs`) in each row's results vector. The evaluator fills those positions, so
//! the select list, ORDER BY and HAVING evaluate with the ordinary `eval` and nothing on the
//! path of a query without windows changes. `GROUPING()` uses late slots too.
//!
//! Per window: the rows are sorted (stable) by PARTITION BY then ORDER BY, so the output of a
//! statement without ORDER BY comes in the order of its last window, as mysqld's does. The
//! default frame is RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW, which with ORDER BY
//! ends at the current row's last peer and without it covers the whole partition (every row
//! is a peer), as mysqld (`Window::set_is_last_row_in_frame`). SUM, COUNT and AVG slide
//! over moving frames by adding and removing rows, as mysqld's inverse aggregation; MIN and
//! MAX over a frame whose start moves are recomputed.
//!
//! Invariants: a window's frame offsets are constants checked at bind time (non-negative,
//! integral for ROWS); every frame is clamped to its partition, so `lo <= hi <= pe`.

use std::cmp::Ordering;

use engine::{encode_key, Row, TableSchema, Value};

use super::{expr_type, Binder, SelectPlan};
use crate::ast::{AggKind, BinOp, Expr, Func, WinBound, WinFunc, WindowCall};
use crate::error::{Result, SqlError};
use crate::eval::collate::keyed;
use crate::eval::{arith, compare, eval};
use crate::output::{flags, MysqlType, ResultColumn};
use crate::timefn::{TimeFn, Unit};

/// Where late slots are numbered while binding (far above any aggregate's position).
pub(crate) const LATE_BASE: usize = usize::MAX / 2;

/// A late slot: a bound window function, or a GROUPING() call's arguments (positions in
/// GROUP BY once the plan is finished).
#[derive(Debug, Clone)]
pub(crate) enum Late {
    Window(Box<Window>),
    Grouping(Vec<Expr>),
}

/// A frame bound with its offset evaluated.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Bound {
    UnboundedPreceding,
    Preceding(Value),
    CurrentRow,
    Following(Value),
    UnboundedFollowing,
}

/// A bound window function.
#[derive(Debug, Clone)]
pub(crate) struct Window {
    pub func: WinFunc,
    pub args: Vec<Expr>,
    pub partition: Vec<(Expr, Option<u16>)>,
    pub order: Vec<(Expr, bool, Option<u16>)>,
    /// ROWS (true) or RANGE.
    pub rows: bool,
    pub start: Bound,
    pub end: Bound,
    /// The INTERVAL units of a RANGE frame's start and end offsets (None: a number).
    pub units: [Option<Unit>; 2],
    /// NTILE's buckets, LAG/LEAD's offset, NTH_VALUE's N.
    pub n: u64,
    /// MIN/MAX: the collation strings compare under.
    pub coll: Option<u16>,
    /// Its position in the row's results.
    pub slot: usize,
}

fn err(code: u16, message: String) -> SqlError {
    SqlError::Other { code, sqlstate: "HY000", message }
}

/// 3593 ER_WINDOW_INVALID_WINDOW_FUNC_USE.
pub(crate) fn misplaced(func: WinFunc) -> SqlError {
    err(3593, format!("You cannot use the window function '{}' in this context.'", func.name()))
}

/// A temporal ORDER BY key: RANGE offsets are INTERVALs.
fn temporal_type(t: MysqlType) -> bool {
    matches!(t, MysqlType::Date | MysqlType::DateTime | MysqlType::Timestamp | MysqlType::Time)
}

/// A numeric ORDER BY key (YEAR included, as mysqld's `Item::is_temporal` excludes it).
fn numeric_type(t: MysqlType) -> bool {
    matches!(
        t,
        MysqlType::Tiny
            | MysqlType::Short
            | MysqlType::Long
            | MysqlType::LongLong
            | MysqlType::Int24
            | MysqlType::Float
            | MysqlType::Double
            | MysqlType::NewDecimal
            | MysqlType::Year
    )
}

/// Whether `e` reads no row (a constant after binding).
fn constant(e: &Expr) -> bool {
    let mut c = true;
    e.walk(&mut |x| c &= !matches!(x, Expr::Col(_) | Expr::Agg(_) | Expr::InsertValue(_)));
    c
}

impl Binder<'_> {
    /// A window call in a place that allows one (the select list, ORDER BY): its late slot.
    pub(super) fn bind_window(&mut self, w: &WindowCall) -> Result<Expr> {
        if !self.windows_ok {
            return Err(misplaced(w.func));
        }
        // No window function inside a window's arguments or specification.
        let Some(late) = self.late.take() else { return Err(misplaced(w.func)) };
        let bound = self.bind_window_parts(w);
        self.late = Some(late);
        let bound = bound?;
        let late = self.late.as_mut().ok_or_else(|| misplaced(w.func))?;
        late.push(Late::Window(Box::new(bound)));
        Ok(Expr::Agg(LATE_BASE + late.len() - 1))
    }

    fn bind_window_parts(&mut self, w: &WindowCall) -> Result<Window> {
        let name = w.func.name();
        let mut args = Vec::with_capacity(w.args.len());
        for a in &w.args {
            args.push(self.bind(a)?);
        }
        let mut partition = Vec::with_capacity(w.partition.len());
        for p in &w.partition {
            let e = self.bind(p)?;
            let d = self.dt(&e)?;
            partition.push((e, d.is_string().then_some(d.id)));
        }
        let mut order = Vec::with_capacity(w.order.len());
        for o in &w.order {
            let e = self.bind(&o.expr)?;
            let d = self.dt(&e)?;
            order.push((e, o.desc, d.is_string().then_some(d.id)));
        }
        let coll = match (w.func, args.first()) {
            (WinFunc::Agg(AggKind::Min | AggKind::Max), Some(a)) => {
                let d = self.dt(a)?;
                d.is_string().then_some(d.id)
            }
            _ => None,
        };
        // The constant argument of NTILE, LAG/LEAD's offset, NTH_VALUE's N (1210 otherwise,
        // as mysqld's `Item_ntile::fix_fields` and friends).
        let wrong = || err(1210, format!("Incorrect arguments to {name}"));
        // PREPARE binds `?` to NULL: the value is checked when the statement executes.
        let preparing = self.params.is_none();
        let count_arg = |e: Option<&Expr>, min: i64| -> Result<u64> {
            let Some(e) = e else { return Ok(1) };
            if !constant(e) {
                return Err(wrong());
            }
            match eval(e, &[], &[])? {
                Value::Null if preparing => Ok(1),
                Value::Int(i) if i >= min => Ok(i as u64),
                Value::UInt(u) if u >= min as u64 => Ok(u),
                _ => Err(wrong()),
            }
        };
        let n = match w.func {
            WinFunc::Ntile => count_arg(args.first(), 1)?,
            WinFunc::NthValue => count_arg(args.get(1), 1)?,
            WinFunc::Lag | WinFunc::Lead => count_arg(args.get(1), 0)?,
            _ => 0,
        };
        let (rows, start, end) = match &w.frame {
            None => (false, (Bound::UnboundedPreceding, None), (Bound::CurrentRow, None)),
            Some(f) => {
                let wname = "<unnamed window>";
                // The one ORDER BY key's type decides what a RANGE offset may be (mysqld's
                // `Window::check_border_sanity`): a number for a numeric key, an INTERVAL
                // for a temporal one.
                let key = match order.as_slice() {
                    [(k, ..)] => {
                        Some(expr_type(k, self.table, self.aggs.as_deref().unwrap_or(&[])))
                    }
                    _ => None,
                };
                let offset = |this: &mut Self, e: &Expr| -> Result<(Value, Option<Unit>)> {
                    let bad = || {
                        err(
                            3586,
                            format!(
                                "Window '{wname}': frame start or end is negative, NULL or of \
                                 non-integral type"
                            ),
                        )
                    };
                    let (e, unit) = match e {
                        Expr::Func(Func::Time(TimeFn::AddInterval { unit, .. }), a)
                            if a.len() == 1 =>
                        {
                            (&a[0], Some(*unit))
                        }
                        e => (e, None),
                    };
                    let b = this.bind(e)?;
                    if !constant(&b) {
                        return Err(err(
                            3590,
                            format!("Window '{wname}': frame bound must be a constant expression"),
                        ));
                    }
                    let v = match eval(&b, &[], &[])? {
                        Value::Null if this.params.is_none() => Value::Int(1),
                        v => v,
                    };
                    let negative = compare(&v, &Value::Int(0)) == Some(Ordering::Less);
                    let integral = matches!(v, Value::Int(_) | Value::UInt(_));
                    if v == Value::Null || negative || (f.rows && !integral) {
                        return Err(bad());
                    }
                    if !f.rows {
                        let temporal = key.is_some_and(temporal_type);
                        let numeric = key.is_some_and(numeric_type);
                        if key.is_none() || !(temporal || numeric) {
                            return Err(err(
                                3587,
                                format!(
                                    "Window '{wname}' with RANGE N PRECEDING/FOLLOWING frame \
                                     requires exactly one ORDER BY expression, of numeric or \
                                     temporal type"
                                ),
                            ));
                        }
                        if temporal && unit.is_none() {
                            return Err(err(
                                3588,
                                format!(
                                    "Window '{wname}' with RANGE frame has ORDER BY expression \
                                     of datetime type. Only INTERVAL bound value allowed."
                                ),
                            ));
                        }
                        if numeric && unit.is_some() {
                            return Err(err(
                                3589,
                                format!(
                                    "Window '{wname}' with RANGE frame has ORDER BY expression \
                                     of numeric type, INTERVAL bound value not allowed."
                                ),
                            ));
                        }
                    }
                    Ok((v, unit))
                };
                let conv = |this: &mut Self, b: &WinBound| -> Result<(Bound, Option<Unit>)> {
                    Ok(match b {
                        WinBound::UnboundedPreceding => (Bound::UnboundedPreceding, None),
                        WinBound::UnboundedFollowing => (Bound::UnboundedFollowing, None),
                        WinBound::CurrentRow => (Bound::CurrentRow, None),
                        WinBound::Preceding(e) => {
                            let (v, u) = offset(this, e)?;
                            (Bound::Preceding(v), u)
                        }
                        WinBound::Following(e) => {
                            let (v, u) = offset(this, e)?;
                            (Bound::Following(v), u)
                        }
                    })
                };
                let s = conv(self, &f.start)?;
                let e = conv(self, &f.end)?;
                (f.rows, s, e)
            }
        };
        let units = [start.1, end.1];
        let (start, end) = (start.0, end.0);
        Ok(Window {
            func: w.func,
            args,
            partition,
            order,
            rows,
            start,
            end,
            units,
            n,
            coll,
            slot: 0,
        })
    }

    /// GROUPING(args): its late slot (1111 where aggregates are not allowed, as mysqld).
    pub(super) fn bind_grouping(&mut self, args: &[Expr]) -> Result<Expr> {
        if self.late.is_none() || self.aggs.is_none() {
            return Err(SqlError::InvalidGroupFunction);
        }
        let bound = args.iter().map(|a| self.bind(a)).collect::<Result<Vec<_>>>()?;
        let late = self.late.as_mut().ok_or(SqlError::InvalidGroupFunction)?;
        late.push(Late::Grouping(bound));
        Ok(Expr::Agg(LATE_BASE + late.len() - 1))
    }

    /// The collation of a late slot's value (`Binder::dt` of `Expr::Agg` at a late slot).
    pub(super) fn late_dt(&self, i: usize) -> Result<crate::eval::collate::Dt> {
        let slot = self.late.as_ref().and_then(|l| l.get(i.wrapping_sub(LATE_BASE)));
        match slot {
            Some(Late::Window(w))
                if matches!(
                    w.func,
                    WinFunc::Lag
                        | WinFunc::Lead
                        | WinFunc::FirstValue
                        | WinFunc::LastValue
                        | WinFunc::NthValue
                        | WinFunc::Agg(AggKind::Min | AggKind::Max)
                ) =>
            {
                match w.args.first() {
                    Some(a) => self.dt(a),
                    None => self.dt(&Expr::Lit(Value::Int(0))),
                }
            }
            _ => self.dt(&Expr::Lit(Value::Int(0))),
        }
    }
}

/// Replaces, top-down, every node of a bound expression for which `f` answers a new node
/// (the tree is bounded by the parser's depth limit, `crate::depth`).
pub(crate) fn replace(e: &mut Expr, f: &mut dyn FnMut(&Expr) -> Option<Expr>) {
    if let Some(n) = f(e) {
        *e = n;
        return;
    }
    match e {
        Expr::Unary(_, x)
        | Expr::IsNull { expr: x, .. }
        | Expr::InsertValue(x)
        | Expr::Collate(x, _)
        | Expr::Collated(_, x)
        | Expr::LikeEscape(x, _) => replace(x, f),
        Expr::Binary(_, a, b) | Expr::Like { expr: a, pattern: b, .. } => {
            replace(a, f);
            replace(b, f);
        }
        Expr::Between { expr, low, high, .. } => {
            replace(expr, f);
            replace(low, f);
            replace(high, f);
        }
        Expr::InList { expr, list, .. } => {
            replace(expr, f);
            list.iter_mut().for_each(|x| replace(x, f));
        }
        Expr::Case { operand, whens, otherwise } => {
            if let Some(o) = operand {
                replace(o, f);
            }
            for (w, t) in whens {
                replace(w, f);
                replace(t, f);
            }
            if let Some(o) = otherwise {
                replace(o, f);
            }
        }
        Expr::Func(_, args) | Expr::Str(_, args) | Expr::Grouping(args) => {
            args.iter_mut().for_each(|x| replace(x, f))
        }
        _ => {}
    }
}

/// The result column of a select item that is a window function (None: not one). mysqld's
/// types: ROW_NUMBER, RANK, DENSE_RANK and NTILE are BIGINT, PERCENT_RANK and CUME_DIST
/// DOUBLE, the value functions their argument's type (nullable), the aggregates as without
/// OVER.
pub(super) fn item_column(
    b: &Binder<'_>,
    bound: &Expr,
    schema: Option<&TableSchema>,
    label: &str,
) -> Option<ResultColumn> {
    let Expr::Agg(i) = bound else { return None };
    let slot = b.late.as_ref()?.get(i.checked_sub(LATE_BASE)?)?;
    let w = match slot {
        Late::Grouping(_) => {
            let mut c = ResultColumn::expr(label, MysqlType::LongLong);
            c.flags |= flags::NOT_NULL;
            return Some(c);
        }
        Late::Window(w) => w,
    };
    let aggs = b.aggs.as_deref().unwrap_or(&[]);
    let mut c = match w.func {
        WinFunc::RowNumber | WinFunc::Rank | WinFunc::DenseRank => {
            let mut c = ResultColumn::expr(label, MysqlType::LongLong);
            c.flags |= flags::NOT_NULL;
            c
        }
        WinFunc::Ntile => ResultColumn::expr(label, MysqlType::LongLong),
        WinFunc::PercentRank | WinFunc::CumeDist => {
            let mut c = ResultColumn::expr(label, MysqlType::Double);
            c.flags |= flags::NOT_NULL;
            c
        }
        WinFunc::Agg(kind) => {
            // Typed as the same aggregate without OVER.
            let mut specs = aggs.to_vec();
            specs.push(super::AggSpec {
                kind,
                distinct: false,
                arg: w.args.first().cloned(),
                coll: w.coll,
                concat: None,
            });
            let proxy = Expr::Agg(specs.len() - 1);
            let ty = expr_type(&proxy, schema, &specs);
            let mut c = ResultColumn::expr(label, ty);
            if ty == MysqlType::NewDecimal {
                c.decimals = super::decimal_scale(&proxy, schema, &specs);
            }
            super::refine_expr_column(&mut c, &proxy, schema, &specs);
            if kind == AggKind::Count {
                c.flags |= flags::NOT_NULL;
            }
            c
        }
        _ => {
            let arg = w.args.first()?;
            let ty = expr_type(arg, schema, aggs);
            let mut c = ResultColumn::expr(label, ty);
            if ty == MysqlType::NewDecimal {
                c.decimals = super::decimal_scale(arg, schema, aggs);
            }
            super::temporal_expr_column(&mut c, arg, schema, aggs);
            super::refine_expr_column(&mut c, arg, schema, aggs);
            if let (Expr::Col(p), Some(sc)) = (arg, schema) {
                if let Some(col) = sc.columns.get(*p) {
                    let t = ResultColumn::for_table_column("", "", col, 0);
                    c.mysql_type = t.mysql_type;
                    c.length = t.length;
                    c.decimals = t.decimals;
                    c.charset = t.charset;
                    c.flags = t.flags & (flags::UNSIGNED | flags::BINARY);
                }
            }
            c.flags &= !flags::NOT_NULL;
            c
        }
    };
    c.name = label.to_string();
    Some(c)
}

/// Sort keys of a row for one window: partition keys, then ORDER BY keys.
struct Keys {
    part: Vec<Value>,
    order: Vec<Value>,
    /// RANGE with an offset: the single ORDER BY value, uncollated.
    raw: Value,
}

fn cmp_keys(a: &[Value], b: &[Value], desc: &[bool]) -> Ordering {
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        let o = super::order_cmp(x, y);
        if o != Ordering::Equal {
            return if desc.get(i).copied().unwrap_or(false) { o.reverse() } else { o };
        }
    }
    Ordering::Equal
}

/// Computes every window of the plan into its slot of each row's results (resized to the
/// plan's full width first), leaving the rows in the order of the last window.
pub(super) fn compute(plan: &SelectPlan, rows: &mut Vec<(Row, Vec<Value>)>) -> Result<()> {
    for (_, res) in rows.iter_mut() {
        if res.len() < plan.late_len {
            res.resize(plan.late_len, Value::Null);
        }
    }
    for w in &plan.windows {
        one(w, rows)?;
    }
    Ok(())
}

fn one(w: &Window, rows: &mut Vec<(Row, Vec<Value>)>) -> Result<()> {
    let mut keyed_rows = Vec::with_capacity(rows.len());
    for (r, res) in rows.drain(..) {
        let mut part = Vec::with_capacity(w.partition.len());
        for (e, coll) in &w.partition {
            part.push(keyed(eval(e, &r, &res)?, *coll));
        }
        let mut order = Vec::with_capacity(w.order.len());
        let mut raw = Value::Null;
        for (i, (e, _, coll)) in w.order.iter().enumerate() {
            let v = eval(e, &r, &res)?;
            if i == 0 {
                raw = v.clone();
            }
            order.push(keyed(v, *coll));
        }
        keyed_rows.push((Keys { part, order, raw }, (r, res)));
    }
    let desc: Vec<bool> = w.order.iter().map(|(_, d, _)| *d).collect();
    keyed_rows.sort_by(|(a, _), (b, _)| {
        cmp_keys(&a.part, &b.part, &[]).then_with(|| cmp_keys(&a.order, &b.order, &desc))
    });
    let (keys, mut out): (Vec<Keys>, Vec<(Row, Vec<Value>)>) = keyed_rows.into_iter().unzip();
    let mut ps = 0;
    while ps < out.len() {
        let pk = encode_key(&keys[ps].part);
        let mut pe = ps + 1;
        while pe < out.len() && encode_key(&keys[pe].part) == pk {
            pe += 1;
        }
        partition(w, &keys[ps..pe], &mut out[ps..pe], desc.first().copied().unwrap_or(false))?;
        ps = pe;
    }
    *rows = out;
    Ok(())
}

/// Frame positions of row `i` in a partition of `n` rows: `[lo, hi)`.
struct Frames<'a> {
    w: &'a Window,
    keys: &'a [Keys],
    peer_start: Vec<usize>,
    peer_end: Vec<usize>,
    desc: bool,
}

impl Frames<'_> {
    fn bounds(&self, i: usize) -> Result<(usize, usize)> {
        let n = self.keys.len();
        let lo = self.edge(&self.w.start, i, true)?;
        let hi = self.edge(&self.w.end, i, false)?.min(n);
        Ok((lo.min(hi), hi))
    }

    /// One frame edge: the first position in the frame (`start`) or one past the last.
    fn edge(&self, b: &Bound, i: usize, start: bool) -> Result<usize> {
        let n = self.keys.len();
        let off = |v: &Value| -> usize {
            match v {
                Value::Int(x) => usize::try_from(*x).unwrap_or(usize::MAX),
                Value::UInt(x) => usize::try_from(*x).unwrap_or(usize::MAX),
                _ => 0,
            }
        };
        Ok(match b {
            Bound::UnboundedPreceding => 0,
            Bound::UnboundedFollowing => n,
            Bound::CurrentRow if self.w.rows => {
                if start {
                    i
                } else {
                    i + 1
                }
            }
            Bound::CurrentRow => {
                if start {
                    self.peer_start[i]
                } else {
                    self.peer_end[i]
                }
            }
            Bound::Preceding(v) if self.w.rows => {
                let k = off(v);
                if start {
                    i.saturating_sub(k)
                } else {
                    (i + 1).saturating_sub(k)
                }
            }
            Bound::Following(v) if self.w.rows => {
                let k = off(v);
                if start {
                    i.saturating_add(k).min(n)
                } else {
                    i.saturating_add(k).saturating_add(1).min(n)
                }
            }
            Bound::Preceding(v) | Bound::Following(v) => {
                self.range_edge(i, v, matches!(b, Bound::Preceding(_)), start)?
            }
        })
    }

    /// RANGE N PRECEDING/FOLLOWING: the edge by the ORDER BY value (rows with a NULL value
    /// are peers of each other only).
    fn range_edge(&self, i: usize, off: &Value, preceding: bool, start: bool) -> Result<usize> {
        let cur = &self.keys[i].raw;
        if *cur == Value::Null {
            return Ok(if start { self.peer_start[i] } else { self.peer_end[i] });
        }
        // Moving toward earlier rows is subtracting for ASC, adding for DESC.
        let toward_earlier = preceding != self.desc;
        let unit = self.w.units[usize::from(!start)];
        let numeric = matches!(
            cur,
            Value::Int(_) | Value::UInt(_) | Value::Double(_) | Value::Float(_) | Value::Decimal(_)
        );
        let target =
            match unit {
                // The key plus or minus the interval, as `DATE_ADD` / `DATE_SUB` compute it.
                Some(unit) if !numeric => eval(
                    &Expr::Func(
                        Func::Time(TimeFn::AddInterval { unit, sub: toward_earlier }),
                        vec![Expr::Lit(cur.clone()), Expr::Lit(off.clone())],
                    ),
                    &[],
                    &[],
                )?,
                None if numeric => {
                    arith(if toward_earlier { BinOp::Sub } else { BinOp::Add }, cur, off)?
                }
                _ => return Err(err(
                    3587,
                    "Window '<unnamed window>' with RANGE N PRECEDING/FOLLOWING frame requires \
                     exactly one ORDER BY expression, of numeric or temporal type"
                        .into(),
                )),
            };
        if target == Value::Null {
            // The interval left the temporal range: the frame runs to the partition's edge.
            return Ok(if toward_earlier { 0 } else { self.keys.len() });
        }
        // Rows before position p are "before the target" (start) or "not after it" (end).
        let before = |v: &Value| -> bool {
            if *v == Value::Null {
                // NULLs sort first ascending, last descending.
                return !self.desc;
            }
            let o = compare(v, &target).unwrap_or(Ordering::Equal);
            let o = if self.desc { o.reverse() } else { o };
            if start {
                o == Ordering::Less
            } else {
                o != Ordering::Greater
            }
        };
        Ok(self.keys.partition_point(|k| before(&k.raw)))
    }
}

/// One partition's values of window `w`.
fn partition(w: &Window, keys: &[Keys], rows: &mut [(Row, Vec<Value>)], desc: bool) -> Result<()> {
    let n = rows.len();
    let mut peer_start = vec![0; n];
    let mut peer_end = vec![n; n];
    let mut s = 0;
    while s < n {
        let mut e = s + 1;
        while e < n && cmp_keys(&keys[s].order, &keys[e].order, &[]) == Ordering::Equal {
            e += 1;
        }
        for p in s..e {
            peer_start[p] = s;
            peer_end[p] = e;
        }
        s = e;
    }
    let fr = Frames { w, keys, peer_start, peer_end, desc };
    let vals: Vec<Value> = match w.args.first() {
        Some(a) if w.func != WinFunc::Ntile => {
            rows.iter().map(|(r, res)| eval(a, r, res)).collect::<Result<_>>()?
        }
        _ => Vec::new(),
    };
    let mut dense = 0i64;
    let mut agg = Running::default();
    for (i, (row, res)) in rows.iter_mut().enumerate() {
        let v = match w.func {
            WinFunc::RowNumber => Value::Int(i as i64 + 1),
            WinFunc::Rank => Value::Int(fr.peer_start[i] as i64 + 1),
            WinFunc::DenseRank => {
                if fr.peer_start[i] == i {
                    dense += 1;
                }
                Value::Int(dense)
            }
            WinFunc::PercentRank => {
                Value::Double(if n <= 1 { 0.0 } else { fr.peer_start[i] as f64 / (n - 1) as f64 })
            }
            WinFunc::CumeDist => Value::Double(fr.peer_end[i] as f64 / n as f64),
            WinFunc::Ntile => {
                let b = usize::try_from(w.n).unwrap_or(usize::MAX).max(1);
                let small = n / b;
                let extra = n % b;
                let big = extra * (small + 1);
                let bucket =
                    if i < big { i / (small + 1) } else { extra + (i - big) / small.max(1) };
                Value::Int(bucket as i64 + 1)
            }
            WinFunc::Lag | WinFunc::Lead => {
                let k = usize::try_from(w.n).unwrap_or(usize::MAX);
                let j = if w.func == WinFunc::Lag { i.checked_sub(k) } else { i.checked_add(k) };
                match j.filter(|j| *j < n) {
                    Some(j) => vals[j].clone(),
                    None => match w.args.get(2) {
                        Some(d) => eval(d, row, res)?,
                        None => Value::Null,
                    },
                }
            }
            WinFunc::FirstValue | WinFunc::LastValue | WinFunc::NthValue => {
                let (lo, hi) = fr.bounds(i)?;
                let pos = match w.func {
                    WinFunc::FirstValue => Some(lo),
                    WinFunc::LastValue => hi.checked_sub(1),
                    _ => lo.checked_add(usize::try_from(w.n).unwrap_or(usize::MAX) - 1),
                };
                match pos.filter(|p| (lo..hi).contains(p)) {
                    Some(p) => vals[p].clone(),
                    None => Value::Null,
                }
            }
            WinFunc::Agg(kind) => {
                let (lo, hi) = fr.bounds(i)?;
                agg.frame(kind, w, &vals, lo, hi)?
            }
        };
        if let Some(x) = res.get_mut(w.slot) {
            *x = v;
        }
    }
    Ok(())
}

/// An aggregate over a moving frame `[lo, hi)`: rows enter at `hi` and leave at `lo`.
#[derive(Default)]
struct Running {
    lo: usize,
    hi: usize,
    count: i64,
    sum: Option<Value>,
    /// MIN/MAX.
    best: Option<Value>,
    started: bool,
}

impl Running {
    fn frame(
        &mut self,
        kind: AggKind,
        w: &Window,
        vals: &[Value],
        lo: usize,
        hi: usize,
    ) -> Result<Value> {
        let star = w.args.is_empty();
        let present = |p: usize| star || vals.get(p).is_some_and(|v| *v != Value::Null);
        let inverse = matches!(kind, AggKind::Count | AggKind::Sum | AggKind::Avg);
        if !self.started || lo < self.lo || hi < self.hi || (!inverse && lo != self.lo) {
            *self = Running { lo, hi: lo, started: true, ..Running::default() };
        }
        // Rows leaving the frame (SUM, COUNT, AVG only).
        while self.lo < lo {
            let p = self.lo;
            self.lo += 1;
            if p >= self.hi || !present(p) {
                continue;
            }
            self.count -= 1;
            if !star && kind != AggKind::Count {
                let s = self.sum.take().unwrap_or(Value::Null);
                self.sum = Some(arith(BinOp::Sub, &s, &vals[p])?);
            }
        }
        if self.hi < self.lo {
            self.hi = self.lo;
        }
        while self.hi < hi {
            let p = self.hi;
            self.hi += 1;
            if !present(p) {
                continue;
            }
            self.count += 1;
            if star {
                continue;
            }
            let v = &vals[p];
            match kind {
                AggKind::Sum | AggKind::Avg => {
                    let s = self.sum.take().unwrap_or(Value::Null);
                    self.sum = Some(crate::eval::sum_add(s, v.clone())?);
                }
                AggKind::Min | AggKind::Max => {
                    let take = match &self.best {
                        None => true,
                        Some(b) => {
                            let o = match w.coll {
                                Some(c) => crate::eval::collate::compare_in(v, b, c),
                                None => compare(v, b),
                            };
                            (kind == AggKind::Min) == (o == Some(Ordering::Less)) && o.is_some()
                        }
                    };
                    if take {
                        self.best = Some(v.clone());
                    }
                }
                _ => {}
            }
        }
        Ok(match kind {
            AggKind::Count => Value::Int(self.count),
            _ if self.count == 0 => Value::Null,
            AggKind::Sum => self.sum.clone().unwrap_or(Value::Null),
            AggKind::Avg => arith(
                BinOp::Div,
                self.sum.as_ref().unwrap_or(&Value::Null),
                &Value::Int(self.count),
            )?,
            AggKind::Min | AggKind::Max => self.best.clone().unwrap_or(Value::Null),
            // Not parsed over a window (parse/window.rs names the window aggregates).
            AggKind::GroupConcat
            | AggKind::StdPop
            | AggKind::StdSamp
            | AggKind::VarPop
            | AggKind::VarSamp
            | AggKind::BitAnd
            | AggKind::BitOr
            | AggKind::BitXor
            | AggKind::JsonArrayAgg
            | AggKind::JsonObjectAgg => Value::Null,
        })
    }
}
