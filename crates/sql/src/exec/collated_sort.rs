//! ORDER BY and DISTINCT over strings compared under their collation, without building a sort
//! key per row (issue 22).
//!
//! Why: a UCA collation's sort key (ICU4X `write_sort_key_utf8_to`) walks every character of
//! the string, so keying each row of `SELECT DISTINCT c ... ORDER BY c` (sysbench
//! oltp_read_only, 100 rows of a 120-character CHAR) spent most of the statement's CPU in
//! ICU. A comparison (`collation::compare`, ICU's `compare_utf8`) stops at the first
//! difference, so sorting n rows with O(n log n) comparisons costs far less than n full keys.
//! mysqld also sorts by comparing (`filesort` with `my_strnxfrm` keys, or `Item::cmp` for
//! small sorts in `Sort_param`); the result order is the same either way.
//!
//! Invariant (what makes this exact): for every value pair and collation, [`cmp_key`] is
//! `order_cmp(keyed(a, coll), keyed(b, coll))`, the order the keyed values had, because
//! `collation::compare(a, b) == sort_key(a).cmp(&sort_key(b))` (the collation crate's tested
//! invariant). Pairs other than two strings under a non-binary collation are keyed on the spot
//! (rare: a column mixing strings and numbers). [`dedup`] keeps exactly the rows the keyed
//! hash set kept: the first row (in input order) of each class of rows whose values are equal
//! under `encode_key(keyed(..))`, in input order.

use std::cmp::Ordering;

use engine::{encode_key, Value};

use crate::eval::collate::{cmp_text, is_plain_bytes, keyed};
use crate::exec::order_cmp;

/// The collations whose strings must be compared through the collation (None: binary, not a
/// string, or a collation whose keys are the bytes).
pub(crate) fn costly(colls: &[Option<u16>]) -> Vec<Option<u16>> {
    colls.iter().map(|c| c.filter(|&id| !is_plain_bytes(id))).collect()
}

/// `order_cmp(keyed(a, coll), keyed(b, coll))` (`coll` from [`costly`]).
pub(crate) fn cmp_key(a: &Value, b: &Value, coll: Option<u16>) -> Ordering {
    match (a, b, coll) {
        (Value::Bytes(x), Value::Bytes(y), Some(c)) => cmp_text(c, x, y),
        (_, _, None) | (Value::Null, _, _) | (_, Value::Null, _) => order_cmp(a, b),
        (_, _, Some(_)) => order_cmp(&keyed(a.clone(), coll), &keyed(b.clone(), coll)),
    }
}

/// The order of ORDER BY key lists `a` and `b` (`desc[i]`: key i descending).
/// The keys are found by position (`a(i)`: key i of the first row), so a key may be read
/// where it already is (an ORDER BY key that is a select item, in the output row).
pub(crate) fn cmp_keys_by<'v>(
    a: impl Fn(usize) -> &'v Value,
    b: impl Fn(usize) -> &'v Value,
    colls: &[Option<u16>],
    desc: &[bool],
) -> Ordering {
    for (i, d) in desc.iter().enumerate() {
        let o = cmp_key(a(i), b(i), colls.get(i).copied().flatten());
        if o != Ordering::Equal {
            return if *d { o.reverse() } else { o };
        }
    }
    Ordering::Equal
}

/// The order of `encode_key(&[keyed(v, coll)])` (DISTINCT's equality classes), computed
/// without the key for two strings.
fn cmp_distinct(a: &Value, b: &Value, coll: Option<u16>) -> Ordering {
    match (a, b, coll) {
        (Value::Bytes(x), Value::Bytes(y), Some(c)) => cmp_text(c, x, y),
        _ => {
            let k = |v: &Value| encode_key(std::slice::from_ref(&keyed(v.clone(), coll)));
            k(a).cmp(&k(b))
        }
    }
}

/// Which of `rows` (each `item(row)` the select list's values) DISTINCT keeps: the first of
/// each class of equal rows, as a keep-mask in input order. `colls` from [`costly`].
pub(crate) fn dedup<T>(
    rows: &[T],
    item: impl Fn(&T) -> &[Value],
    colls: &[Option<u16>],
) -> Vec<bool> {
    let cmp = |a: &T, b: &T| {
        let (a, b) = (item(a), item(b));
        for (i, (x, y)) in a.iter().zip(b.iter()).enumerate() {
            let o = cmp_distinct(x, y, colls.get(i).copied().flatten());
            if o != Ordering::Equal {
                return o;
            }
        }
        a.len().cmp(&b.len())
    };
    let mut order: Vec<usize> = (0..rows.len()).collect();
    // Stable: within a class of equal rows the first in input order comes first.
    order.sort_by(|&i, &j| cmp(&rows[i], &rows[j]));
    let mut keep = vec![false; rows.len()];
    let mut last: Option<usize> = None;
    for i in order {
        if last.is_none_or(|l| cmp(&rows[l], &rows[i]) != Ordering::Equal) {
            keep[i] = true;
            last = Some(i);
        }
    }
    keep
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    const AI_CI: u16 = 255; // utf8mb4_0900_ai_ci
    const GENERAL: u16 = 45; // utf8mb4_general_ci

    fn b(s: &str) -> Value {
        Value::Bytes(s.as_bytes().to_vec())
    }

    fn samples() -> Vec<Value> {
        let mut v: Vec<Value> = ["a", "A", "á", "b", "B ", "b", "", " ", "ß", "ss", "Z", "z", "0"]
            .iter()
            .map(|s| b(s))
            .collect();
        v.extend([Value::Null, Value::Int(5), Value::UInt(5), Value::Double(1.5)]);
        v
    }

    /// `cmp_key` is the order the keyed values had, for every pair and collation.
    #[test]
    fn key_order_is_keyed_order() {
        for coll in [None, Some(AI_CI), Some(GENERAL), Some(46)] {
            let c = costly(&[coll])[0];
            for x in samples() {
                for y in samples() {
                    let old = order_cmp(&keyed(x.clone(), coll), &keyed(y.clone(), coll));
                    assert_eq!(cmp_key(&x, &y, c), old, "{x:?} {y:?} {coll:?}");
                }
            }
        }
    }

    /// `dedup` keeps exactly what the keyed hash set kept, in input order.
    #[test]
    fn dedup_is_keyed_hash_set() {
        let vals = samples();
        let mut rows = Vec::new();
        for x in &vals {
            for y in vals.iter().rev().take(6) {
                rows.push(vec![x.clone(), y.clone()]);
                rows.push(vec![y.clone(), x.clone()]);
            }
        }
        for coll in [None, Some(AI_CI), Some(GENERAL)] {
            let colls = [coll, coll];
            let mut seen = HashSet::new();
            let want: Vec<bool> = rows
                .iter()
                .map(|r| {
                    let k: Vec<Value> = r.iter().map(|v| keyed(v.clone(), coll)).collect();
                    seen.insert(encode_key(&k))
                })
                .collect();
            let got = dedup(&rows, |r| r.as_slice(), &costly(&colls));
            assert_eq!(got, want, "{coll:?}");
        }
    }
}
