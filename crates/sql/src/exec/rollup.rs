//! `GROUP BY ... WITH ROLLUP` and `GROUPING()`, as mysqld 8.0 (sql/sql_select.cc
//! `JOIN::rollup_process_const_fields` / `Item_rollup_group_item`, sql/item_sum.cc
//! `Item_func_grouping`): besides the groups of all `n` GROUP BY expressions, one
//! super-aggregate row per distinct prefix of `n - 1`, ..., 0 of them, where the rolled-up
//! expressions read NULL.
//!
//! The plan replaces every GROUP BY expression in the select list, HAVING, ORDER BY and the
//! window specifications by a *group slot* `Expr::Agg(n_aggs + k)`: in a row of the full
//! grouping it holds the expression's value, in a super-aggregate row NULL (so `a + 1` is
//! NULL where `a` is rolled up, as mysqld 8.0's `Item_rollup_group_item`). GROUPING's late
//! slots hold the bit mask of its arguments' rolled-up state (leftmost argument highest).
//! Each level is grouped afresh from the source rows (the aggregates, DISTINCT ones and
//! GROUP_CONCAT included, then need no merging), and the rows are put in mysqld's order:
//! by the group values, each group's super-aggregate row after its last detail row.
//!
//! Invariants: the group slots lie between the aggregates and the late slots; an empty
//! source gives no row (no grand total), as mysqld.

use std::cmp::Ordering;

use engine::{Row, Value};

use super::window::{replace, Late, LATE_BASE};
use super::{group, order_cmp, CutRows, GroupRow, SelectPlan};
use crate::ast::Expr;
use crate::error::{Result, SqlError};
use crate::eval::collate::keyed;
use crate::eval::eval;

/// The ROLLUP part of a plan.
#[derive(Debug, Clone)]
pub(crate) struct Rollup {
    /// Where the group slots start (the number of aggregates).
    pub base: usize,
    /// GROUPING() slots: (position in the results, GROUP BY positions of its arguments).
    pub groupings: Vec<(usize, Vec<usize>)>,
}

/// The late slots and rollup of a finished plan: renumbers late slots to `late_base + j`
/// and, with ROLLUP, replaces GROUP BY expressions by group slots. Returns the rollup, the
/// windows (with their slots) and the full width of a row's results.
pub(super) struct Finished {
    pub rollup: Option<Rollup>,
    pub windows: Vec<super::window::Window>,
    pub late_len: usize,
}

/// 3602 ER_FIELD_IN_GROUPING_NOT_GROUP_BY.
fn not_in_group_by(n: usize) -> SqlError {
    SqlError::Other {
        code: 3602,
        sqlstate: "HY000",
        message: format!("Argument #{n} of GROUPING function is not in GROUP BY"),
    }
}

/// Finishes the late slots and the ROLLUP of a plan (`exprs`: the select items, ORDER BY
/// keys and HAVING, bound).
pub(super) fn finish(
    exprs: &mut [&mut Expr],
    late: Vec<Late>,
    group_by: &[Expr],
    n_aggs: usize,
    rollup: bool,
) -> Result<Finished> {
    let keys = if rollup { group_by.len() } else { 0 };
    let late_base = n_aggs + keys;
    let mut renumber = |e: &Expr| match e {
        Expr::Agg(i) if *i >= LATE_BASE => Some(Expr::Agg(late_base + (*i - LATE_BASE))),
        _ => None,
    };
    for e in exprs.iter_mut() {
        replace(e, &mut renumber);
    }
    let mut slot_of =
        |e: &Expr| group_by.iter().position(|g| g == e).map(|k| Expr::Agg(n_aggs + k));
    let mut windows = Vec::new();
    let mut groupings = Vec::new();
    let late_len = late_base + late.len();
    for (j, l) in late.into_iter().enumerate() {
        match l {
            Late::Window(mut w) => {
                w.slot = late_base + j;
                if rollup {
                    for a in w.args.iter_mut() {
                        replace(a, &mut slot_of);
                    }
                    for (p, _) in w.partition.iter_mut() {
                        replace(p, &mut slot_of);
                    }
                    for (o, _, _) in w.order.iter_mut() {
                        replace(o, &mut slot_of);
                    }
                }
                windows.push(*w);
            }
            Late::Grouping(args) => {
                if !rollup {
                    return Err(SqlError::InvalidGroupFunction);
                }
                let mut pos = Vec::with_capacity(args.len());
                for (n, a) in args.iter().enumerate() {
                    pos.push(
                        group_by
                            .iter()
                            .position(|g| g == a)
                            .ok_or_else(|| not_in_group_by(n + 1))?,
                    );
                }
                groupings.push((late_base + j, pos));
            }
        }
    }
    if rollup {
        for e in exprs.iter_mut() {
            replace(e, &mut slot_of);
        }
    }
    let rollup = rollup.then_some(Rollup { base: n_aggs, groupings });
    Ok(Finished { rollup, windows, late_len })
}

/// Whether a bound expression reads a group slot (its column is then nullable).
pub(super) fn reads_group_slot(e: &Expr, r: &Rollup, keys: usize) -> bool {
    let mut found = false;
    e.walk(&mut |x| {
        if let Expr::Agg(i) = x {
            found |= (r.base..r.base + keys).contains(i);
        }
    });
    found
}

/// The groups of every level with their group and GROUPING slots filled, in mysqld's order.
pub(super) fn groups(
    plan: &SelectPlan,
    r: &Rollup,
    source: Vec<Row>,
    width: usize,
) -> Result<(Vec<GroupRow>, CutRows)> {
    if source.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let n = plan.group_by.len();
    let mut all: Vec<(usize, Vec<Value>, GroupRow)> = Vec::new();
    let mut cut = Vec::new();
    let mut level_plan = plan.clone();
    for level in (0..=n).rev() {
        level_plan.group_by.truncate(level);
        let (groups, c) = group(&level_plan, source.clone(), width)?;
        cut.extend(c);
        for (first, mut results) in groups {
            let mut sort = Vec::with_capacity(level);
            results.truncate(r.base);
            for (k, g) in plan.group_by.iter().enumerate() {
                let v = if k < level { eval(g, &first, &[])? } else { Value::Null };
                if k < level {
                    sort.push(keyed(v.clone(), plan.group_colls.get(k).copied().flatten()));
                }
                results.push(v);
            }
            results.resize(plan.late_len.max(results.len()), Value::Null);
            for (slot, pos) in &r.groupings {
                let mut bits = 0i64;
                for p in pos {
                    bits = (bits << 1) | i64::from(*p >= level);
                }
                if let Some(x) = results.get_mut(*slot) {
                    *x = Value::Int(bits);
                }
            }
            all.push((level, sort, (first, results)));
        }
    }
    // By the group values of the common prefix; then the row with more of them (the less
    // rolled-up one) first.
    all.sort_by(|(la, a, _), (lb, b, _)| {
        for (x, y) in a.iter().zip(b) {
            let o = order_cmp(x, y);
            if o != Ordering::Equal {
                return o;
            }
        }
        lb.cmp(la)
    });
    Ok((all.into_iter().map(|(_, _, g)| g).collect(), cut))
}
