//! `lower_case_table_names = 0`'s loose ends (issue 19): table aliases compare exactly, as
//! mysqld on Linux (`table_alias_charset` is binary there: `SELECT T.a FROM t AS t` is 1054),
//! and information_schema's database and table name columns are utf8mb3_bin, so a WHERE on
//! them follows the setting (mysqld's data dictionary name columns,
//! `fs_name_collation()`). Under 1 and 2 both stay case-insensitive.

mod common;

use common::{err, one, q, server_with_lctn};

use sql::Session;

fn setup(s: &mut Session) {
    q(s, "CREATE DATABASE d");
    q(s, "USE d");
    q(s, "CREATE TABLE t (id INT PRIMARY KEY, a INT)");
    q(s, "CREATE TABLE u (id INT PRIMARY KEY, b INT)");
    q(s, "INSERT INTO t VALUES (1, 10)");
    q(s, "INSERT INTO u VALUES (1, 20)");
}

#[test]
fn aliases_are_case_sensitive_under_zero() {
    let srv = server_with_lctn("0");
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    assert_eq!(err(&mut s, "SELECT T.a FROM t AS t").code(), 1054);
    assert_eq!(err(&mut s, "SELECT T.a FROM t").code(), 1054);
    assert_eq!(one(&mut s, "SELECT x.a FROM t AS x"), "10");
    assert_eq!(err(&mut s, "SELECT X.a FROM t AS x").code(), 1054);
    // Joins: the scope compares labels exactly, and `x` and `X` are two aliases.
    assert_eq!(err(&mut s, "SELECT X.a FROM t AS x JOIN u ON x.id = u.id").code(), 1054);
    assert_eq!(one(&mut s, "SELECT x.a, X.b FROM t AS x JOIN u AS X ON x.id = X.id"), "10,20");
    assert_eq!(err(&mut s, "SELECT 1 FROM t AS x JOIN u AS x ON 1").code(), 1066);
}

#[test]
fn aliases_fold_under_one_and_two() {
    for lctn in ["1", "2"] {
        let srv = server_with_lctn(lctn);
        let mut s = srv.session("root", "localhost");
        setup(&mut s);
        assert_eq!(one(&mut s, "SELECT T.a FROM t AS t"), "10", "lctn {lctn}");
        assert_eq!(one(&mut s, "SELECT X.a FROM t AS x JOIN u ON x.id = u.id"), "10");
        assert_eq!(err(&mut s, "SELECT 1 FROM t AS x JOIN u AS X ON 1").code(), 1066);
    }
}

#[test]
fn information_schema_names_follow_the_setting() {
    let srv = server_with_lctn("0");
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    q(&mut s, "CREATE TABLE T (id INT PRIMARY KEY)");
    assert_eq!(
        one(&mut s, "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 'T'"),
        "T"
    );
    assert_eq!(
        one(&mut s, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'D'"),
        "0"
    );
    assert_eq!(
        one(&mut s, "SELECT COLLATION(TABLE_NAME), COLLATION(TABLE_TYPE) FROM information_schema.TABLES WHERE TABLE_NAME = 't'"),
        "utf8mb3_bin,utf8mb3_general_ci"
    );
    let srv = server_with_lctn("2");
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    assert_eq!(
        one(&mut s, "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'D' AND TABLE_NAME = 'T'"),
        "t"
    );
}
