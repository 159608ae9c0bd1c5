//! Issue 19's arithmetic and operator fidelity in the SQL layer, where MySQL 8.0's answer is
//! not MariaDB's (the differential suite, `binlogd/tests/differential/exprs.cases`, compares
//! the rest with MariaDB): a DECIMAL quotient compared unrounded, `X'41'` as an integer in
//! arithmetic; and the parts a result set shows: the quotient rounded and a merged DECIMAL
//! padded to the column's scale, RAND(constant) continuing its generator per row.

mod common;

use common::{q, rows, server};

fn one(s: &mut sql::Session, sql: &str) -> String {
    rows(s, sql).remove(0).remove(0)
}

#[test]
fn quotients_keep_their_words_until_sent() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    // mysqld's Item_func_div::decimal_op returns decimal_div's word-cut quotient unrounded;
    // Protocol_text::store_decimal rounds it to the item's decimals (4).
    assert_eq!(one(&mut s, "SELECT 1/7*7"), "1.0000");
    assert_eq!(one(&mut s, "SELECT 1/3*3"), "1.0000");
    assert_eq!(one(&mut s, "SELECT 1/7 + 1/7"), "0.2857");
    assert_eq!(one(&mut s, "SELECT (1/7)/(1/3)"), "0.42857143");
    assert_eq!(one(&mut s, "SELECT CONCAT(1/3), LENGTH(1/3)"), "0.3333");
    // MySQL 8.0's Arg_comparator::compare_decimal compares the unrounded val_decimal
    // (sql/item_cmpfunc.cc); MariaDB rounds both sides first and answers 1.
    assert_eq!(one(&mut s, "SELECT 1/7*7 = 1"), "0");
    assert_eq!(one(&mut s, "SELECT 1/3 > 0.3333"), "1");
    q(&mut s, "CREATE DATABASE d");
    q(&mut s, "USE d");
    q(&mut s, "CREATE TABLE t (id INT PRIMARY KEY, i INT)");
    q(&mut s, "INSERT INTO t VALUES (1, 1), (2, 2), (3, 3), (4, 7)");
    assert_eq!(one(&mut s, "SELECT SUM(i/7) FROM t"), "1.8571");
    assert_eq!(one(&mut s, "SELECT AVG(i/7) FROM t"), "0.46428571");
}

#[test]
fn merged_decimals_are_padded_to_their_scale() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    assert_eq!(
        rows(
            &mut s,
            "SELECT IFNULL(1, 2.5), COALESCE(1, 2.50), IF(1, 1, 2.5), \
             CASE WHEN 1 THEN 1 ELSE 2.5 END, GREATEST(3, 2.5)"
        ),
        vec![vec!["1.0", "1.00", "1.0", "1.0", "3.0"]]
    );
    assert_eq!(rows(&mut s, "SELECT 1 UNION ALL SELECT 2.5"), vec![vec!["1.0"], vec!["2.5"]]);
}

#[test]
fn hex_literals_are_integers_in_numeric_context() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    // refman "Hexadecimal Literals": `SET @v2 = X'41'+0` is 65 (MariaDB: 0).
    assert_eq!(one(&mut s, "SELECT X'41' + 0"), "65");
    assert_eq!(one(&mut s, "SELECT 0x41 + 0"), "65");
    assert_eq!(one(&mut s, "SELECT CONCAT(0x41, X'42')"), "AB");
    assert_eq!(one(&mut s, "SELECT b'101' | 0"), "5");
    assert_eq!(one(&mut s, "SELECT BIT_COUNT(0x41)"), "2");
    assert_eq!(one(&mut s, "SELECT 1 << 2 + 1, 2 * 3 ^ 1, ~0"), "8");
}

#[test]
fn rand_with_a_constant_seed_continues_per_row() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    q(&mut s, "CREATE DATABASE d");
    q(&mut s, "USE d");
    q(&mut s, "CREATE TABLE t (id INT PRIMARY KEY)");
    q(&mut s, "INSERT INTO t VALUES (1), (2), (3)");
    let seq = rows(&mut s, "SELECT RAND(1) FROM t ORDER BY id");
    // MySQL 8.0 (and MariaDB): 0.40540353712197724, 0.8716141803857071, 0.1418603212962489.
    assert_eq!(
        seq,
        vec![vec!["0.40540353712197724"], vec!["0.8716141803857071"], vec!["0.1418603212962489"]]
    );
    // A new statement seeds anew.
    assert_eq!(rows(&mut s, "SELECT RAND(1) FROM t ORDER BY id"), seq);
    // A per-row seed re-seeds each row.
    assert_eq!(one(&mut s, "SELECT RAND(id) FROM t WHERE id = 3"), "0.9057697559760601");
}

#[test]
fn enum_set_bit_read_as_numbers() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    q(&mut s, "CREATE DATABASE d");
    q(&mut s, "USE d");
    q(
        &mut s,
        "CREATE TABLE t (id INT PRIMARY KEY, e ENUM('a','b','c'), s SET('x','y','z'), b BIT(10))",
    );
    q(&mut s, "INSERT INTO t VALUES (1, 'b', 'x,z', b'1010'), (2, 'c', 'y', b'11')");
    assert_eq!(
        rows(&mut s, "SELECT e+0, s+0, b+0 FROM t WHERE id = 1"),
        vec![vec!["2", "5", "10"]]
    );
    assert_eq!(rows(&mut s, "SELECT e, s FROM t WHERE id = 1"), vec![vec!["b", "x,z"]]);
    assert_eq!(rows(&mut s, "SELECT id FROM t WHERE e = 3"), vec![vec!["2"]]);
    assert_eq!(rows(&mut s, "SELECT id FROM t WHERE e = 'b'"), vec![vec!["1"]]);
    assert_eq!(rows(&mut s, "SELECT SUM(e), SUM(s), SUM(b) FROM t"), vec![vec!["5", "7", "13"]]);
}
