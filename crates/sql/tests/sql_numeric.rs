//! Issue 19's numbers in the SQL layer: DECIMAL(65,30) columns and keys, literals beyond
//! BIGINT, DECIMAL arithmetic with `div_precision_increment`, SUM/AVG over integers as
//! DECIMAL; and `SET GLOBAL innodb_lock_wait_timeout` reaching new sessions.

mod common;

use std::time::{Duration, Instant};

use common::{err, q, rows, server, server_with_lock_wait};

fn one(s: &mut sql::Session, sql: &str) -> String {
    rows(s, sql).remove(0).remove(0)
}

#[test]
fn literals_beyond_bigint_are_decimal() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    assert_eq!(one(&mut s, "SELECT -9223372036854775809"), "-9223372036854775809");
    assert_eq!(one(&mut s, "SELECT 18446744073709551616"), "18446744073709551616");
    let d65 = "12345678901234567890123456789012345678901234567890123456789012345";
    assert_eq!(one(&mut s, &format!("SELECT {d65}")), d65);
    assert_eq!(one(&mut s, &format!("SELECT -{d65} + 1")), format!("-{}4", &d65[..64]));
    assert_eq!(one(&mut s, "SELECT 18446744073709551616 DIV 4"), "4611686018427387904");
    assert_eq!(err(&mut s, "SELECT 18446744073709551616 DIV 2").code(), 1690);
    // BIGINT arithmetic still overflows as mysqld's (1690).
    assert_eq!(err(&mut s, "SELECT 9223372036854775807 + 1").code(), 1690);
}

#[test]
fn decimal_65_30_columns_store_compare_and_key() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    q(&mut s, "CREATE DATABASE d");
    q(&mut s, "USE d");
    q(&mut s, "CREATE TABLE t (k DECIMAL(65,30) PRIMARY KEY, n INT)");
    let big = "99999999999999999999999999999999999.999999999999999999999999999999";
    q(
        &mut s,
        &format!(
            "INSERT INTO t VALUES ({big}, 1), (-{big}, 2), (1, 3), (-1, 4), \
             (12345678901234567890123456789012345.5, 5), (0, 6)"
        ),
    );
    let order: Vec<String> =
        rows(&mut s, "SELECT n FROM t ORDER BY k").into_iter().flatten().collect();
    assert_eq!(order, ["2", "4", "6", "3", "5", "1"]);
    assert_eq!(one(&mut s, &format!("SELECT n FROM t WHERE k = -{big}")), "2");
    assert_eq!(one(&mut s, "SELECT k FROM t WHERE n = 3"), "1.000000000000000000000000000000");
    assert_eq!(
        err(&mut s, "INSERT INTO t VALUES (100000000000000000000000000000000000, 7)").code(),
        1264
    );
    assert_eq!(err(&mut s, &format!("INSERT INTO t VALUES ({big}, 8)")).code(), 1062);
    assert_eq!(err(&mut s, "CREATE TABLE u (d DECIMAL(66,2))").code(), 1426);
    assert_eq!(err(&mut s, "CREATE TABLE u (d DECIMAL(40,31))").code(), 1425);
    assert_eq!(err(&mut s, "CREATE TABLE u (d DECIMAL(5,6))").code(), 1427);
}

#[test]
fn sum_of_bigint_is_decimal_and_avg_follows_div_precision_increment() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    q(&mut s, "CREATE DATABASE d");
    q(&mut s, "USE d");
    q(&mut s, "CREATE TABLE t (id INT PRIMARY KEY, b BIGINT, u BIGINT UNSIGNED)");
    q(
        &mut s,
        "INSERT INTO t VALUES (1, 9223372036854775807, 18446744073709551615), \
         (2, 9223372036854775807, 18446744073709551615), (3, 1, 1)",
    );
    assert_eq!(one(&mut s, "SELECT SUM(b) FROM t"), "18446744073709551615");
    assert_eq!(one(&mut s, "SELECT SUM(u) FROM t"), "36893488147419103231");
    assert_eq!(one(&mut s, "SELECT AVG(id) FROM t"), "2.0000");
    q(&mut s, "SET div_precision_increment = 7");
    assert_eq!(one(&mut s, "SELECT AVG(id) FROM t"), "2.0000000");
    assert_eq!(one(&mut s, "SELECT 1 / 3"), "0.3333333");
    q(&mut s, "SET div_precision_increment = 0");
    // mysqld cuts the quotient to whole 9-digit words first: 0.666… with no word is 0.
    assert_eq!(one(&mut s, "SELECT 2 / 3"), "0");
    assert_eq!(one(&mut s, "SELECT 1.5 / 2"), "0.8");
}

/// `SET GLOBAL innodb_lock_wait_timeout` reaches the sessions that connect after it (issue
/// 19: their waits stayed the engine's configured timeout).
#[test]
fn global_innodb_lock_wait_timeout_reaches_new_sessions() {
    let srv = server_with_lock_wait(Duration::from_secs(50));
    let mut a = srv.session("root", "localhost");
    q(&mut a, "CREATE DATABASE d");
    q(&mut a, "USE d");
    q(&mut a, "CREATE TABLE t (id INT PRIMARY KEY, v INT)");
    q(&mut a, "INSERT INTO t VALUES (1, 1)");
    q(&mut a, "SET GLOBAL innodb_lock_wait_timeout = 1");
    let mut b = srv.session("root", "localhost");
    assert_eq!(one(&mut b, "SELECT @@session.innodb_lock_wait_timeout"), "1");
    q(&mut b, "USE d");
    q(&mut a, "BEGIN");
    q(&mut a, "UPDATE t SET v = 10 WHERE id = 1");
    let started = Instant::now();
    assert_eq!(err(&mut b, "UPDATE t SET v = 30 WHERE id = 1").code(), 1205);
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(900) && waited < Duration::from_secs(10), "{waited:?}");
    q(&mut a, "COMMIT");
}
