//! Issue 19's value-layer answers at the SQL layer: division by zero (1365 as a warning or,
//! in a strict write, the error), `@@warning_count` / `@@error_count` and `SHOW COUNT(*)
//! WARNINGS`, EXTRACT with compound units. Expected answers are mysqld 8.0's (manual,
//! "Server SQL Modes": ERROR_FOR_DIVISION_BY_ZERO; "SHOW WARNINGS"; "Temporal Intervals").

mod common;

use common::server;

use sql::{Output, Session, SqlError};

fn q(s: &mut Session, sql: &str) -> Output {
    s.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

fn rows(s: &mut Session, sql: &str) -> Vec<Vec<String>> {
    q(s, sql).text_rows()
}

fn one(s: &mut Session, sql: &str) -> String {
    let r = rows(s, sql);
    assert_eq!((r.len(), r[0].len()), (1, 1), "{sql}: {r:?}");
    r[0][0].clone()
}

fn err(s: &mut Session, sql: &str) -> SqlError {
    match s.query(sql) {
        Ok(o) => panic!("{sql}: expected an error, got {o:?}"),
        Err(e) => e,
    }
}

/// The (code) column of SHOW WARNINGS.
fn warning_codes(s: &mut Session) -> Vec<String> {
    rows(s, "SHOW WARNINGS").into_iter().map(|r| r[1].clone()).collect()
}

#[test]
fn division_by_zero_warns_and_a_strict_write_refuses_it() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    // Default sql_mode has ERROR_FOR_DIVISION_BY_ZERO: NULL and warning 1365 in a SELECT.
    for sql in ["SELECT 1/0", "SELECT 1 DIV 0", "SELECT 5 % 0", "SELECT 1.5/0", "SELECT 1e0/0"] {
        assert_eq!(one(&mut s, sql), "NULL", "{sql}");
        assert_eq!(warning_codes(&mut s), ["1365"], "{sql}");
    }
    // Without the mode: NULL and no warning.
    q(&mut s, "SET sql_mode = 'STRICT_TRANS_TABLES'");
    assert_eq!(one(&mut s, "SELECT 1/0"), "NULL");
    assert!(warning_codes(&mut s).is_empty());
    q(&mut s, "SET sql_mode = DEFAULT");

    q(&mut s, "CREATE DATABASE d");
    q(&mut s, "USE d");
    q(&mut s, "CREATE TABLE t (id INT PRIMARY KEY, v INT)");
    // Strict INSERT/UPDATE: the error, nothing changed.
    let e = err(&mut s, "INSERT INTO t VALUES (1, 1/0)");
    assert_eq!((e.code(), e.sqlstate()), (1365, "22012"));
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t"), "0");
    q(&mut s, "INSERT INTO t VALUES (1, 1)");
    assert_eq!(err(&mut s, "UPDATE t SET v = v DIV 0").code(), 1365);
    assert_eq!(one(&mut s, "SELECT v FROM t"), "1");
    // INSERT IGNORE: NULL with the warning.
    q(&mut s, "INSERT IGNORE INTO t VALUES (2, 1/0)");
    assert_eq!(warning_codes(&mut s), ["1365"]);
    assert_eq!(one(&mut s, "SELECT v FROM t WHERE id = 2"), "NULL");
    // Not strict: the write stores NULL and warns.
    q(&mut s, "SET sql_mode = 'ERROR_FOR_DIVISION_BY_ZERO'");
    q(&mut s, "INSERT INTO t VALUES (3, 1/0)");
    assert_eq!(warning_codes(&mut s), ["1365"]);
    // A SELECT under strict mode only warns.
    q(&mut s, "SET sql_mode = DEFAULT");
    assert_eq!(one(&mut s, "SELECT v/0 FROM t WHERE id = 1"), "NULL");
    assert_eq!(warning_codes(&mut s), ["1365"]);
}

#[test]
fn warning_count_reads_the_previous_statements_conditions() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    q(&mut s, "SELECT 1/0, 2/0");
    assert_eq!(one(&mut s, "SHOW COUNT(*) WARNINGS"), "2");
    assert_eq!(one(&mut s, "SHOW COUNT(*) ERRORS"), "0");
    // SHOW COUNT(*) WARNINGS keeps the conditions, as SHOW WARNINGS does.
    assert_eq!(warning_codes(&mut s), ["1365", "1365"]);
    assert_eq!(one(&mut s, "SELECT @@warning_count"), "2");
    // That SELECT had no conditions of its own.
    assert_eq!(one(&mut s, "SELECT @@warning_count"), "0");
    // An error counts in both.
    let _ = err(&mut s, "SELECT * FROM nowhere.t");
    assert_eq!(one(&mut s, "SELECT @@error_count"), "1");
    let _ = err(&mut s, "SELECT * FROM nowhere.t");
    assert_eq!(one(&mut s, "SELECT @@session.warning_count"), "1");
    let _ = err(&mut s, "SELECT * FROM nowhere.t");
    assert_eq!(one(&mut s, "SHOW COUNT(*) ERRORS"), "1");
    assert_eq!(err(&mut s, "SHOW COUNT(*) NOTES").code(), 1064);
    assert_eq!(err(&mut s, "SHOW COUNT(x) WARNINGS").code(), 1064);
}

#[test]
fn extract_takes_compound_units() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    let cases = [
        ("SELECT EXTRACT(YEAR_MONTH FROM '2019-07-02 01:02:03')", "201907"),
        ("SELECT EXTRACT(DAY_HOUR FROM '2019-07-02 01:02:03')", "201"),
        ("SELECT EXTRACT(DAY_MINUTE FROM '2019-07-02 01:02:03')", "20102"),
        ("SELECT EXTRACT(DAY_SECOND FROM '2019-07-02 01:02:03')", "2010203"),
        ("SELECT EXTRACT(HOUR_MINUTE FROM '2019-07-02 01:02:03')", "102"),
        ("SELECT EXTRACT(HOUR_SECOND FROM '2019-07-02 01:02:03')", "10203"),
        ("SELECT EXTRACT(MINUTE_SECOND FROM '2019-07-02 01:02:03')", "203"),
        ("SELECT EXTRACT(DAY_MICROSECOND FROM '2019-07-02 01:02:03.000004')", "2010203000004"),
        ("SELECT EXTRACT(HOUR_MICROSECOND FROM '2019-07-02 01:02:03.5')", "10203500000"),
        ("SELECT EXTRACT(MINUTE_MICROSECOND FROM '2019-07-02 01:02:03.5')", "203500000"),
        ("SELECT EXTRACT(SECOND_MICROSECOND FROM '2019-07-02 01:02:03.5')", "3500000"),
        ("SELECT extract( year_month  from  '2019-07-02')", "201907"),
        ("SELECT EXTRACT(YEAR_MONTH FROM NULL)", "NULL"),
        // The compound units still work after INTERVAL in the same statement.
        ("SELECT EXTRACT(DAY_HOUR FROM '2019-07-02' + INTERVAL '1 2' DAY_HOUR)", "302"),
    ];
    for (sql, want) in cases {
        assert_eq!(one(&mut s, sql), want, "{sql}");
    }
    assert_eq!(err(&mut s, "SELECT EXTRACT(YEAR_MONTH '2019-07-02')").code(), 1064);
}

/// FLOAT in arithmetic is DOUBLE arithmetic (mysqld's `Item_num_op::resolve_type`: a
/// REAL_RESULT operand makes the result REAL), not DECIMAL: `f * 1` keeps every digit of the
/// float widened to a double.
#[test]
fn float_arithmetic_is_double() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    q(&mut s, "CREATE DATABASE d");
    q(&mut s, "USE d");
    q(&mut s, "CREATE TABLE fl (id INT PRIMARY KEY, f FLOAT)");
    q(&mut s, "INSERT INTO fl VALUES (1, 0.1)");
    let out = q(&mut s, "SELECT f * 1, f + 1, f - f FROM fl");
    let Output::Rows { columns, rows } = &out else { panic!("{out:?}") };
    assert!(columns.iter().all(|c| c.mysql_type == sql::MysqlType::Double), "{columns:?}");
    assert_eq!(rows[0][0], engine::Value::Double(f64::from(0.1f32)));
    assert_eq!(one(&mut s, "SELECT f * 1 FROM fl"), "0.10000000149011612");
}
