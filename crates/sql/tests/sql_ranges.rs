//! Range access (range.rs): OR/IN unions of ranges, composite prefixes plus a range, NULLs,
//! collation-equal keys, index order for ORDER BY ... LIMIT (ASC and DESC), UPDATE/DELETE
//! through ranges, EXPLAIN's rows for them, and a property: random WHERE clauses over random
//! rows return the same rows with range access as with a forced full scan.

mod common;

use common::{q, rows, server};
use proptest::prelude::*;
use sql::Session;

fn setup(s: &mut Session) {
    q(s, "CREATE DATABASE r");
    q(s, "USE r");
    q(
        s,
        "CREATE TABLE t (id INT PRIMARY KEY, k INT, a INT, b INT, name VARCHAR(10), \
         KEY kk (k), KEY ab (a, b), KEY kn (name))",
    );
    for i in 1..=40 {
        let k = if i % 7 == 0 { "NULL".to_string() } else { (i % 10).to_string() };
        let name = match i % 4 {
            0 => "'a'",
            1 => "'A'",
            2 => "'b'",
            _ => "NULL",
        };
        q(s, &format!("INSERT INTO t VALUES ({i}, {k}, {}, {}, {name})", i % 3, i % 5));
    }
}

/// The rows of `sql`, and the same with a forced full scan: they must agree (as sets when
/// there is no ORDER BY: rows then come in the access path's order; by count alone for a
/// LIMIT without ORDER BY, which may keep any rows).
fn both(s: &mut Session, sql: &str) -> Vec<Vec<String>> {
    let ranged = rows(s, sql);
    sql::range::force_full_scan(true);
    let scanned = rows(s, sql);
    sql::range::force_full_scan(false);
    if sql.contains("ORDER BY") {
        assert_eq!(ranged, scanned, "{sql}");
    } else if sql.contains("LIMIT") {
        assert_eq!(ranged.len(), scanned.len(), "{sql}");
    } else {
        let (mut a, mut b) = (ranged.clone(), scanned);
        a.sort();
        b.sort();
        assert_eq!(a, b, "{sql}");
    }
    ranged
}

fn ids(r: &[Vec<String>]) -> Vec<String> {
    r.iter().map(|r| r[0].clone()).collect()
}

/// The EXPLAIN row's type, key, key_len, rows and Extra.
fn plan(s: &mut Session, sql: &str) -> Vec<String> {
    let r = rows(s, &format!("EXPLAIN {sql}"));
    assert_eq!(r.len(), 1, "{sql}: {r:?}");
    vec![r[0][4].clone(), r[0][6].clone(), r[0][7].clone(), r[0][9].clone(), r[0][11].clone()]
}

fn v(cells: &[&str]) -> Vec<String> {
    cells.iter().map(|c| c.to_string()).collect()
}

#[test]
fn overlapping_ors_return_each_row_once_in_key_order() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    let r = both(&mut s, "SELECT id FROM t WHERE k BETWEEN 2 AND 4 OR k BETWEEN 3 AND 5 OR k = 4");
    let mut want: Vec<i64> =
        (1..=40).filter(|i| i % 7 != 0 && (2..=5).contains(&(i % 10))).collect();
    // Read through index kk: in (k, id) order.
    want.sort_by_key(|i| (i % 10, *i));
    assert_eq!(ids(&r), want.iter().map(|i| i.to_string()).collect::<Vec<_>>());
    assert_eq!(
        plan(&mut s, "SELECT id FROM t WHERE k BETWEEN 2 AND 4 OR k BETWEEN 3 AND 5 OR k = 4"),
        v(&["range", "kk", "5", &want.len().to_string(), "Using where"])
    );
    // IN lists with duplicates, and a primary key union.
    both(&mut s, "SELECT id FROM t WHERE k IN (1, 1, 9, 3) AND id > 5");
    let r = both(&mut s, "SELECT id FROM t WHERE id < 3 OR id BETWEEN 2 AND 4 OR id > 38");
    assert_eq!(ids(&r), v(&["1", "2", "3", "4", "39", "40"]));
    assert_eq!(
        plan(&mut s, "SELECT id FROM t WHERE id < 3 OR id BETWEEN 2 AND 4 OR id > 38"),
        v(&["range", "PRIMARY", "4", "6", "Using where"])
    );
}

#[test]
fn nulls_and_impossible_ranges() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    let r = both(&mut s, "SELECT id FROM t WHERE k IS NULL");
    assert_eq!(ids(&r), v(&["7", "14", "21", "28", "35"]));
    let r = both(&mut s, "SELECT id FROM t WHERE k <=> NULL OR k = 1 ORDER BY id");
    assert_eq!(ids(&r), v(&["1", "7", "11", "14", "21", "28", "31", "35"]));
    assert!(both(&mut s, "SELECT id FROM t WHERE k = NULL").is_empty());
    assert!(both(&mut s, "SELECT id FROM t WHERE k > 5 AND k < 3").is_empty());
    assert!(both(&mut s, "SELECT id FROM t WHERE k IN (NULL)").is_empty());
    // `k < 3` never returns the NULLs the index holds below every value.
    let r = both(&mut s, "SELECT COUNT(*) FROM t WHERE k < 3");
    assert_eq!(r, vec![v(&["11"])]);
    both(&mut s, "SELECT id FROM t WHERE k IS NOT NULL AND k <= 1");
}

#[test]
fn collation_equal_keys_are_one_key() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    let r = both(&mut s, "SELECT id FROM t WHERE name = 'a' ORDER BY id");
    assert_eq!(r.len(), 20);
    let r = both(&mut s, "SELECT id FROM t WHERE name IN ('a', 'A') OR name = 'A' ORDER BY id");
    assert_eq!(r.len(), 20);
    let r = both(&mut s, "SELECT id FROM t WHERE name > 'a' ORDER BY id");
    assert_eq!(r.len(), 10);
    let r = both(&mut s, "SELECT id FROM t WHERE name BETWEEN 'A' AND 'B' ORDER BY id");
    assert_eq!(r.len(), 30);
    // Under another collation the index does not bound the comparison: still right.
    both(&mut s, "SELECT id FROM t WHERE name = 'a' COLLATE utf8mb4_bin ORDER BY id");
}

#[test]
fn composite_prefix_and_range() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    let r = both(&mut s, "SELECT id, a, b FROM t WHERE a = 1 AND b BETWEEN 2 AND 3");
    // (a, b, id) order.
    let mut want: Vec<(i64, i64, i64)> = (1..=40)
        .filter(|i| i % 3 == 1 && (2..=3).contains(&(i % 5)))
        .map(|i| (i % 3, i % 5, i))
        .collect();
    want.sort();
    assert_eq!(ids(&r), want.iter().map(|w| w.2.to_string()).collect::<Vec<_>>());
    assert_eq!(
        plan(&mut s, "SELECT id, a, b FROM t WHERE a = 1 AND b BETWEEN 2 AND 3"),
        v(&["range", "ab", "10", &want.len().to_string(), "Using where"])
    );
    // Equality on the whole composite key: ref on both parts.
    let n = (1..=40).filter(|i| i % 3 == 2 && i % 5 == 4).count();
    assert_eq!(
        plan(&mut s, "SELECT id FROM t WHERE a = 2 AND b = 4"),
        v(&["ref", "ab", "10", &n.to_string(), "NULL"])
    );
    both(
        &mut s,
        "SELECT id FROM t WHERE (a = 1 AND b > 3) OR (a = 2 AND b < 1) OR a = 0 AND b IN (1, 2)",
    );
    both(&mut s, "SELECT id FROM t WHERE a IN (0, 2) AND b = 3");
}

#[test]
fn index_order_serves_order_by_limit() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    let r = both(&mut s, "SELECT id FROM t ORDER BY id DESC LIMIT 3");
    assert_eq!(ids(&r), v(&["40", "39", "38"]));
    assert_eq!(
        plan(&mut s, "SELECT id FROM t ORDER BY id DESC LIMIT 3"),
        v(&["index", "PRIMARY", "4", "40", "Backward index scan"])
    );
    let r = both(
        &mut s,
        "SELECT id FROM t WHERE id BETWEEN 5 AND 30 AND b = 1 ORDER BY id DESC LIMIT 2 OFFSET 1",
    );
    assert_eq!(ids(&r), v(&["21", "16"]));
    let r = both(&mut s, "SELECT id, b FROM t WHERE a = 1 ORDER BY b DESC, id DESC LIMIT 4");
    assert_eq!(ids(&r), v(&["34", "19", "4", "28"]));
    assert_eq!(
        plan(&mut s, "SELECT id, b FROM t WHERE a = 1 ORDER BY b DESC LIMIT 4")[4],
        "Backward index scan"
    );
    let r = both(&mut s, "SELECT id, k FROM t WHERE k > 7 ORDER BY k LIMIT 3");
    assert_eq!(ids(&r), v(&["8", "18", "38"]));
    // An order the index does not give: sorted after the range read.
    let r = both(&mut s, "SELECT id FROM t WHERE k > 7 ORDER BY id DESC LIMIT 3");
    assert_eq!(ids(&r), v(&["39", "38", "29"]));
    assert_eq!(
        plan(&mut s, "SELECT id FROM t WHERE k > 7 ORDER BY id DESC LIMIT 3")[4],
        "Using where; Using filesort"
    );
    // LIMIT without ORDER BY stops after the rows; with GROUP BY nothing stops early.
    assert_eq!(both(&mut s, "SELECT id FROM t WHERE k IN (1, 2) LIMIT 2").len(), 2);
    both(&mut s, "SELECT k, COUNT(*) FROM t WHERE k < 4 GROUP BY k ORDER BY k DESC LIMIT 2");
}

#[test]
fn update_and_delete_read_through_ranges() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    q(&mut s, "UPDATE t SET b = 100 WHERE k = 3 OR k BETWEEN 8 AND 9");
    let r = rows(&mut s, "SELECT COUNT(*) FROM t WHERE b = 100");
    assert_eq!(r, vec![v(&["11"])]);
    assert_eq!(plan(&mut s, "DELETE FROM t WHERE a = 1 AND b = 100")[0], "range");
    q(&mut s, "DELETE FROM t WHERE a = 1 AND b = 100");
    let r = rows(&mut s, "SELECT COUNT(*) FROM t WHERE b = 100");
    assert_eq!(r, vec![v(&["9"])]);
    // Another transaction's lock on a row outside the range does not block the update.
    let mut o = srv.session("root", "localhost");
    q(&mut o, "USE r");
    q(&mut o, "BEGIN");
    q(&mut o, "SELECT * FROM t WHERE id = 1 FOR UPDATE");
    q(&mut s, "UPDATE t SET b = 7 WHERE k BETWEEN 4 AND 5");
    q(&mut o, "ROLLBACK");
}

#[test]
fn joins_use_ranges_for_local_predicates() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    q(&mut s, "CREATE TABLE u (id INT PRIMARY KEY, x INT, KEY kx (x))");
    for i in 1..=20 {
        q(&mut s, &format!("INSERT INTO u VALUES ({i}, {})", i % 6));
    }
    both(
        &mut s,
        "SELECT t.id, u.id FROM t JOIN u ON u.id = t.id WHERE (t.k BETWEEN 1 AND 2 OR t.k = 9) \
         AND u.x IN (1, 3) ORDER BY t.id",
    );
}

/// One random comparison over a column of `t`.
fn term() -> impl Strategy<Value = String> {
    let col = prop_oneof![Just("id"), Just("k"), Just("a"), Just("b"), Just("name")];
    let num = -2i32..14;
    let op = prop_oneof![Just("="), Just("<"), Just("<="), Just(">"), Just(">="), Just("<=>")];
    prop_oneof![
        (col.clone(), op, num.clone()).prop_map(|(c, o, n)| if c == "name" {
            format!("{c} {o} '{}'", ["a", "A", "b", "B", "c"][n.rem_euclid(5) as usize])
        } else {
            format!("{c} {o} {n}")
        }),
        (col.clone(), num.clone(), 0i32..6)
            .prop_map(|(c, n, w)| format!("{c} BETWEEN {n} AND {}", n + w)),
        (col.clone(), prop::collection::vec(num, 1..4)).prop_map(|(c, l)| {
            let l: Vec<String> = l.iter().map(|n| n.to_string()).collect();
            format!("{c} IN ({})", l.join(", "))
        }),
        col.clone().prop_map(|c| format!("{c} IS NULL")),
        col.prop_map(|c| format!("{c} IS NOT NULL")),
    ]
}

fn clause() -> impl Strategy<Value = String> {
    term().prop_recursive(3, 12, 3, |inner| {
        (inner.clone(), prop_oneof![Just("AND"), Just("OR")], inner)
            .prop_map(|(a, op, b)| format!("({a} {op} {b})"))
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
    #[test]
    fn ranges_return_what_a_scan_returns(
        data in prop::collection::vec((prop::option::of(0i32..10), 0i32..4, prop::option::of(0i32..6), 0usize..5), 0..40),
        w in clause(),
        order in prop_oneof![Just(""), Just(" ORDER BY id DESC LIMIT 3"), Just(" ORDER BY k, id LIMIT 5"), Just(" LIMIT 4")],
    ) {
        let srv = server();
        let mut s = srv.session("root", "localhost");
        q(&mut s, "CREATE DATABASE r");
        q(&mut s, "USE r");
        q(&mut s, "CREATE TABLE t (id INT PRIMARY KEY, k INT, a INT, b INT, name VARCHAR(10), \
                   KEY kk (k), KEY ab (a, b), KEY kn (name))");
        for (i, (k, a, b, n)) in data.iter().enumerate() {
            let k = k.map_or("NULL".to_string(), |k| k.to_string());
            let b = b.map_or("NULL".to_string(), |b| b.to_string());
            let n = ["'a'", "'A'", "'b'", "'B '", "NULL"][*n];
            q(&mut s, &format!("INSERT INTO t VALUES ({i}, {k}, {a}, {b}, {n})"));
        }
        // Row order without ORDER BY is the access path's: compare as sets.
        let sql = format!("SELECT id FROM t WHERE {w}{order}");
        let mut ranged = rows(&mut s, &sql);
        sql::range::force_full_scan(true);
        let mut scanned = rows(&mut s, &sql);
        sql::range::force_full_scan(false);
        if order.is_empty() {
            ranged.sort();
            scanned.sort();
        }
        if order == " LIMIT 4" {
            prop_assert_eq!(ranged.len(), scanned.len(), "{}", sql);
        } else {
            prop_assert_eq!(ranged, scanned, "{}", sql);
        }
        let sql = format!("SELECT COUNT(*) FROM t WHERE {w}");
        let ranged = rows(&mut s, &sql);
        sql::range::force_full_scan(true);
        let scanned = rows(&mut s, &sql);
        sql::range::force_full_scan(false);
        prop_assert_eq!(ranged, scanned, "{}", sql);
    }
}

/// A primary key range skips re-checking the terms it implies (`range::bounds_exactly`) and
/// ORDER BY reads keys that are select items from the output row: every shape here returns
/// what a full scan (which checks the whole WHERE on every row and sorts by evaluated keys)
/// returns, including constants that are not integers, composite and unsigned keys, terms
/// beside the range and locking reads.
#[test]
fn skipped_range_terms_and_order_items_agree_with_a_scan() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    q(&mut s, "CREATE TABLE p (a INT, b INT, v VARCHAR(5), PRIMARY KEY (a, b))");
    q(
        &mut s,
        "INSERT INTO p VALUES (1, 1, 'a'), (1, 2, 'b'), (2, 1, 'c'), (3, 3, 'd'), (-1, 0, 'e')",
    );
    q(&mut s, "CREATE TABLE u (id BIGINT UNSIGNED PRIMARY KEY, v VARCHAR(5))");
    q(&mut s, "INSERT INTO u VALUES (0, 'z'), (7, 's'), (18446744073709551615, 'm')");
    for sql in [
        "SELECT name FROM t WHERE id BETWEEN 5 AND 15",
        "SELECT SUM(k), COUNT(*) FROM t WHERE id BETWEEN 5 AND 15",
        "SELECT name FROM t WHERE id BETWEEN 5 AND 15 ORDER BY name, id",
        "SELECT DISTINCT name FROM t WHERE id BETWEEN 5 AND 15 ORDER BY name",
        "SELECT k, name FROM t WHERE id BETWEEN 1 AND 40 ORDER BY k DESC, name, id",
        "SELECT id FROM t WHERE id BETWEEN '5' AND '9'",
        "SELECT id FROM t WHERE id BETWEEN 4.5 AND 9",
        "SELECT id FROM t WHERE id BETWEEN 9 AND 4",
        "SELECT id FROM t WHERE id > 3 AND id <= 12 AND k = 1",
        "SELECT id FROM t WHERE id < 10 AND id >= 10",
        "SELECT id FROM t WHERE (id BETWEEN 2 AND 4 OR id BETWEEN 30 AND 33) AND a = 1",
        "SELECT id FROM t WHERE id BETWEEN 2 AND 20 AND id BETWEEN 10 AND 30",
        "SELECT id FROM t WHERE id BETWEEN 2 AND 20 AND name IS NULL",
        "SELECT id FROM t WHERE id BETWEEN 2 AND 20 ORDER BY id DESC LIMIT 3",
        "SELECT id FROM t WHERE id BETWEEN 2 AND 20 AND b = 1 LIMIT 2",
        "SELECT id FROM t WHERE id BETWEEN 2 AND 6 FOR UPDATE",
        "SELECT v FROM p WHERE a BETWEEN 1 AND 2",
        "SELECT v FROM p WHERE a = 1 AND b BETWEEN 2 AND 3",
        "SELECT v FROM p WHERE a >= 0 AND b < 2",
        "SELECT v FROM u WHERE id BETWEEN 1 AND 18446744073709551615",
        "SELECT v FROM u WHERE id > -1",
        "SELECT v FROM u WHERE id BETWEEN -5 AND 7",
    ] {
        both(&mut s, sql);
    }
    // The answers themselves, not only their agreement.
    assert_eq!(ids(&both(&mut s, "SELECT id FROM t WHERE id BETWEEN '5' AND '9'")).len(), 5);
    assert_eq!(
        both(&mut s, "SELECT v FROM u WHERE id BETWEEN -5 AND 7"),
        vec![v(&["z"]), v(&["s"])]
    );
}
