//! Plan reuse of prepared statements (issues 20 and 22): a prepared single-table SELECT keeps
//! its plan less the WHERE between executions (`exec::PlanCache`), and a join's primary-key
//! lookups are prepared once per statement (`query::exec::PointLookup`). Each test changes
//! one thing a plan depends on (DDL, RENAME, DROP/CREATE, a view, USE, session variables,
//! privileges, parameter types) and checks that the executed-again statement answers exactly
//! as a freshly prepared one (rows and column metadata) and as the change demands, as mysqld
//! re-prepares a statement whose metadata changed without the client seeing
//! ER_NEED_REPREPARE.

mod common;

use common::{err, q, rows};
use engine::Value;
use sql::{Output, Prepared, Session};

/// Executes `p` (cached) and `sql` prepared afresh with `params`; both answers (column
/// metadata included) must be equal. Returns the text rows.
fn same_as_fresh(s: &mut Session, p: &Prepared, sql: &str, params: &[Value]) -> Vec<Vec<String>> {
    let cached = s.execute(p, params);
    let fresh_stmt = s.prepare(sql).expect("fresh prepare");
    let fresh = s.execute(&fresh_stmt, params);
    let show = |r: &Result<Output, sql::SqlError>| match r {
        Ok(o) => format!("{o:?}"),
        Err(e) => format!("error {} {e}", e.code()),
    };
    assert_eq!(show(&cached), show(&fresh), "{sql} with {params:?}");
    match cached {
        Ok(o) => o.text_rows(),
        Err(e) => panic!("{sql}: {e}"),
    }
}

fn setup() -> (std::sync::Arc<sql::Server>, Session) {
    let srv = common::server();
    let mut s = srv.session("root", "localhost");
    q(&mut s, "CREATE DATABASE d");
    q(&mut s, "CREATE DATABASE e");
    q(&mut s, "USE d");
    q(&mut s, "CREATE TABLE t (id INT PRIMARY KEY, k INT, c VARCHAR(10))");
    q(&mut s, "INSERT INTO t VALUES (1, 10, 'one'), (2, 20, 'two'), (3, 30, 'three')");
    (srv, s)
}

fn strs(v: &[&[&str]]) -> Vec<Vec<String>> {
    v.iter().map(|r| r.iter().map(|c| c.to_string()).collect()).collect()
}

#[test]
fn a_prepared_select_reuses_its_plan_with_new_values() {
    let (_srv, mut s) = setup();
    let sql = "SELECT c, k + 1 AS k1 FROM t WHERE id = ?";
    let p = s.prepare(sql).unwrap();
    assert!(!p.plan_cached());
    assert_eq!(same_as_fresh(&mut s, &p, sql, &[Value::Int(1)]), strs(&[&["one", "11"]]));
    assert!(p.plan_cached(), "the first execution keeps the plan");
    for (param, want) in [
        (Value::Int(2), vec![vec!["two", "21"]]),
        (Value::Bytes(b"3".to_vec()), vec![vec!["three", "31"]]),
        (Value::Bytes(b" 2abc".to_vec()), vec![vec!["two", "21"]]),
        (Value::Double(1.0), vec![vec!["one", "11"]]),
        (Value::Double(1.5), vec![]),
        (Value::Null, vec![]),
        (Value::UInt(u64::MAX), vec![]),
    ] {
        let got = same_as_fresh(&mut s, &p, sql, std::slice::from_ref(&param));
        let want: Vec<Vec<String>> =
            want.iter().map(|r| r.iter().map(|c| c.to_string()).collect()).collect();
        assert_eq!(got, want, "{param:?}");
    }
    // Ranges, ORDER BY, LIMIT and aggregates over the reused plan.
    let range = "SELECT id, c FROM t WHERE id BETWEEN ? AND ? ORDER BY c DESC LIMIT ?";
    let r = s.prepare(range).unwrap();
    let params = [Value::Int(1), Value::Int(3), Value::Int(2)];
    assert_eq!(same_as_fresh(&mut s, &r, range, &params), strs(&[&["2", "two"], &["3", "three"]]));
    let params = [Value::Int(2), Value::Int(9), Value::Int(5)];
    assert_eq!(same_as_fresh(&mut s, &r, range, &params), strs(&[&["2", "two"], &["3", "three"]]));
    let agg = "SELECT COUNT(*), SUM(k), MAX(c) FROM t WHERE k > ?";
    let a = s.prepare(agg).unwrap();
    assert_eq!(same_as_fresh(&mut s, &a, agg, &[Value::Int(10)]), strs(&[&["2", "50", "two"]]));
    assert_eq!(same_as_fresh(&mut s, &a, agg, &[Value::Int(99)]), strs(&[&["0", "NULL", "NULL"]]));
    // FOR UPDATE in a transaction, and a row the transaction changed.
    let lock = "SELECT k FROM t WHERE id = ? FOR UPDATE";
    let l = s.prepare(lock).unwrap();
    q(&mut s, "BEGIN");
    assert_eq!(same_as_fresh(&mut s, &l, lock, &[Value::Int(3)]), strs(&[&["30"]]));
    q(&mut s, "UPDATE t SET k = 31 WHERE id = 3");
    assert_eq!(same_as_fresh(&mut s, &l, lock, &[Value::Int(3)]), strs(&[&["31"]]));
    q(&mut s, "ROLLBACK");
    assert_eq!(same_as_fresh(&mut s, &l, lock, &[Value::Int(3)]), strs(&[&["30"]]));
}

#[test]
fn functions_and_variables_in_the_select_list_are_bound_per_execution() {
    let (_srv, mut s) = setup();
    let sql = "SELECT @v, ?, LAST_INSERT_ID(), c FROM t WHERE id = 1";
    let p = s.prepare(sql).unwrap();
    q(&mut s, "SET @v = 5");
    assert_eq!(
        s.execute(&p, &[Value::Int(7)]).unwrap().text_rows(),
        strs(&[&["5", "7", "0", "one"]])
    );
    q(&mut s, "SET @v = 6");
    q(&mut s, "CREATE TABLE ai (id INT AUTO_INCREMENT PRIMARY KEY)");
    q(&mut s, "INSERT INTO ai VALUES (NULL)");
    assert_eq!(
        s.execute(&p, &[Value::Int(8)]).unwrap().text_rows(),
        strs(&[&["6", "8", "1", "one"]])
    );
}

#[test]
fn ddl_on_the_table_re_prepares() {
    let (_srv, mut s) = setup();
    let sql = "SELECT * FROM t WHERE id = ?";
    let p = s.prepare(sql).unwrap();
    assert_eq!(same_as_fresh(&mut s, &p, sql, &[Value::Int(1)]), strs(&[&["1", "10", "one"]]));
    // ALTER ... ADD COLUMN: `*` reads the new column.
    q(&mut s, "ALTER TABLE t ADD COLUMN z INT DEFAULT 7");
    assert_eq!(same_as_fresh(&mut s, &p, sql, &[Value::Int(1)]), strs(&[&["1", "10", "one", "7"]]));
    // MODIFY: the column's type (and its metadata) changes.
    q(&mut s, "ALTER TABLE t MODIFY k VARCHAR(5)");
    assert_eq!(same_as_fresh(&mut s, &p, sql, &[Value::Int(2)]), strs(&[&["2", "20", "two", "7"]]));
    // DROP COLUMN.
    q(&mut s, "ALTER TABLE t DROP COLUMN c");
    assert_eq!(same_as_fresh(&mut s, &p, sql, &[Value::Int(2)]), strs(&[&["2", "20", "7"]]));
    // A statement naming a dropped column fails as a fresh one does (1054), then works again.
    let named = "SELECT z FROM t WHERE id = ?";
    let n = s.prepare(named).unwrap();
    assert_eq!(same_as_fresh(&mut s, &n, named, &[Value::Int(3)]), strs(&[&["7"]]));
    q(&mut s, "ALTER TABLE t DROP COLUMN z");
    assert_eq!(s.execute(&n, &[Value::Int(3)]).unwrap_err().code(), 1054);
    q(&mut s, "ALTER TABLE t ADD COLUMN z INT DEFAULT 8");
    assert_eq!(same_as_fresh(&mut s, &n, named, &[Value::Int(3)]), strs(&[&["8"]]));
    // CREATE INDEX / DROP INDEX change the access path, not the answer.
    let by_k = "SELECT id FROM t WHERE k = ? ORDER BY id";
    let bk = s.prepare(by_k).unwrap();
    assert_eq!(same_as_fresh(&mut s, &bk, by_k, &[Value::Int(20)]), strs(&[&["2"]]));
    q(&mut s, "CREATE INDEX kk ON t (k)");
    assert_eq!(same_as_fresh(&mut s, &bk, by_k, &[Value::Int(20)]), strs(&[&["2"]]));
    q(&mut s, "DROP INDEX kk ON t");
    assert_eq!(same_as_fresh(&mut s, &bk, by_k, &[Value::Bytes(b"30".to_vec())]), strs(&[&["3"]]));
}

#[test]
fn drop_create_rename_and_views_re_prepare() {
    let (_srv, mut s) = setup();
    let sql = "SELECT c FROM t WHERE id = ?";
    let p = s.prepare(sql).unwrap();
    assert_eq!(same_as_fresh(&mut s, &p, sql, &[Value::Int(1)]), strs(&[&["one"]]));
    // DROP: the table is gone (1146), as for a fresh statement.
    q(&mut s, "DROP TABLE t");
    assert_eq!(s.execute(&p, &[Value::Int(1)]).unwrap_err().code(), 1146);
    // CREATE again with another shape and other rows.
    q(&mut s, "CREATE TABLE t (c INT, id BIGINT PRIMARY KEY)");
    q(&mut s, "INSERT INTO t VALUES (100, 1)");
    assert_eq!(same_as_fresh(&mut s, &p, sql, &[Value::Int(1)]), strs(&[&["100"]]));
    // RENAME: the name now means another table.
    q(&mut s, "CREATE TABLE u (id INT PRIMARY KEY, c CHAR(3))");
    q(&mut s, "INSERT INTO u VALUES (1, 'uuu')");
    q(&mut s, "RENAME TABLE t TO t_old, u TO t");
    assert_eq!(same_as_fresh(&mut s, &p, sql, &[Value::Int(1)]), strs(&[&["uuu"]]));
    q(&mut s, "ALTER TABLE t RENAME TO t2");
    assert_eq!(s.execute(&p, &[Value::Int(1)]).unwrap_err().code(), 1146);
    // A view of the same name: the statement reads through it.
    q(&mut s, "CREATE VIEW t AS SELECT id, UPPER(c) AS c FROM t2");
    assert_eq!(same_as_fresh(&mut s, &p, sql, &[Value::Int(1)]), strs(&[&["UUU"]]));
    q(&mut s, "DROP VIEW t");
    q(&mut s, "CREATE VIEW t AS SELECT id, LOWER(c) AS c FROM t2");
    assert_eq!(same_as_fresh(&mut s, &p, sql, &[Value::Int(1)]), strs(&[&["uuu"]]));
    q(&mut s, "DROP VIEW t");
    q(&mut s, "RENAME TABLE t2 TO t");
    assert_eq!(same_as_fresh(&mut s, &p, sql, &[Value::Int(1)]), strs(&[&["uuu"]]));
}

#[test]
fn use_resolves_unqualified_names_again() {
    let (_srv, mut s) = setup();
    q(&mut s, "CREATE TABLE e.t (id INT PRIMARY KEY, c VARCHAR(10), extra INT)");
    q(&mut s, "INSERT INTO e.t VALUES (1, 'e-one', 5)");
    let sql = "SELECT * FROM t WHERE id = ?";
    let p = s.prepare(sql).unwrap();
    assert_eq!(same_as_fresh(&mut s, &p, sql, &[Value::Int(1)]), strs(&[&["1", "10", "one"]]));
    q(&mut s, "USE e");
    assert_eq!(same_as_fresh(&mut s, &p, sql, &[Value::Int(1)]), strs(&[&["1", "e-one", "5"]]));
    s.use_database("d").unwrap();
    assert_eq!(same_as_fresh(&mut s, &p, sql, &[Value::Int(1)]), strs(&[&["1", "10", "one"]]));
    // information_schema as the default database: its made-up tables, never a cached plan.
    let tables = "SELECT TABLE_NAME FROM TABLES WHERE TABLE_SCHEMA = ? ORDER BY 1";
    let tp = s
        .prepare(
            "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? ORDER BY 1",
        )
        .unwrap();
    s.use_database("information_schema").unwrap();
    let p2 = s.prepare(tables).unwrap();
    let want = strs(&[&["t"]]);
    assert_eq!(same_as_fresh(&mut s, &p2, tables, &[Value::Bytes(b"e".to_vec())]), want);
    assert_eq!(s.execute(&tp, &[Value::Bytes(b"e".to_vec())]).unwrap().text_rows(), want);
}

#[test]
fn session_variables_that_change_binding_re_prepare() {
    let (_srv, mut s) = setup();
    // collation_connection decides how two literals compare.
    let sql = "SELECT 'a' = 'A', c FROM t WHERE id = ?";
    let p = s.prepare(sql).unwrap();
    assert_eq!(same_as_fresh(&mut s, &p, sql, &[Value::Int(1)]), strs(&[&["1", "one"]]));
    q(&mut s, "SET collation_connection = utf8mb4_bin");
    assert_eq!(same_as_fresh(&mut s, &p, sql, &[Value::Int(1)]), strs(&[&["0", "one"]]));
    q(&mut s, "SET NAMES utf8mb4");
    assert_eq!(same_as_fresh(&mut s, &p, sql, &[Value::Int(1)]), strs(&[&["1", "one"]]));
    // time_zone: a TIMESTAMP column is shown in the session's zone.
    q(&mut s, "SET time_zone = '+00:00'");
    q(&mut s, "CREATE TABLE ts (id INT PRIMARY KEY, at TIMESTAMP)");
    q(&mut s, "INSERT INTO ts VALUES (1, '2024-01-01 00:00:00')");
    let at = "SELECT at FROM ts WHERE id = ?";
    let a = s.prepare(at).unwrap();
    assert_eq!(same_as_fresh(&mut s, &a, at, &[Value::Int(1)]), strs(&[&["2024-01-01 00:00:00"]]));
    q(&mut s, "SET time_zone = '+05:00'");
    assert_eq!(same_as_fresh(&mut s, &a, at, &[Value::Int(1)]), strs(&[&["2024-01-01 05:00:00"]]));
    // sql_mode: the same text under another mode answers as a fresh statement does.
    let div = "SELECT k / 0 FROM t WHERE id = ?";
    let dp = s.prepare(div).unwrap();
    assert_eq!(same_as_fresh(&mut s, &dp, div, &[Value::Int(1)]), strs(&[&["NULL"]]));
    q(&mut s, "SET sql_mode = ''");
    assert_eq!(same_as_fresh(&mut s, &dp, div, &[Value::Int(1)]), strs(&[&["NULL"]]));
    // group_concat_max_len is part of the plan.
    let gc = "SELECT GROUP_CONCAT(c ORDER BY id) FROM t WHERE id <= ?";
    let g = s.prepare(gc).unwrap();
    assert_eq!(same_as_fresh(&mut s, &g, gc, &[Value::Int(3)]), strs(&[&["one,two,three"]]));
    q(&mut s, "SET group_concat_max_len = 5");
    assert_eq!(same_as_fresh(&mut s, &g, gc, &[Value::Int(3)]), strs(&[&["one,t"]]));
    // COM_RESET_CONNECTION: the session's variables are the defaults again.
    s.reset();
    assert_eq!(same_as_fresh(&mut s, &g, gc, &[Value::Int(3)]), strs(&[&["one,two,three"]]));
}

#[test]
fn privileges_are_checked_at_every_execution() {
    let (srv, mut s) = setup();
    let dir = tempfile::tempdir().expect("tempdir");
    let (users, _) = accounts::Users::open(dir.path(), true).expect("accounts open");
    srv.attach_accounts(std::sync::Arc::new(users));
    q(&mut s, "CREATE USER u@localhost");
    q(&mut s, "GRANT SELECT ON d.t TO u@localhost");
    let mut u = srv.session("u", "localhost");
    u.use_database("d").unwrap();
    let sql = "SELECT c FROM t WHERE id = ?";
    let p = u.prepare(sql).unwrap();
    assert_eq!(u.execute(&p, &[Value::Int(1)]).unwrap().text_rows(), strs(&[&["one"]]));
    assert!(p.plan_cached());
    q(&mut s, "REVOKE SELECT ON d.t FROM u@localhost");
    assert_eq!(u.execute(&p, &[Value::Int(1)]).unwrap_err().code(), 1142);
    q(&mut s, "GRANT SELECT ON d.* TO u@localhost");
    assert_eq!(u.execute(&p, &[Value::Int(2)]).unwrap().text_rows(), strs(&[&["two"]]));
    q(&mut s, "REVOKE SELECT ON d.* FROM u@localhost");
    assert_eq!(u.execute(&p, &[Value::Int(2)]).unwrap_err().code(), 1142);
    assert_eq!(err(&mut u, "SELECT c FROM t WHERE id = 2").code(), 1142);
}

/// A join's primary-key lookups prepared once per statement answer as the per-row planner:
/// composite keys bound partly by a constant, outer values that are NULL, strings, out of the
/// column's range or not integral (no key: the per-row planner decides), and LEFT JOIN's
/// NULL-extended rows.
#[test]
fn join_point_lookups_prepared_once() {
    let (_srv, mut s) = setup();
    q(&mut s, "CREATE TABLE st (w INT, i INT, qty INT, PRIMARY KEY (w, i))");
    q(&mut s, "INSERT INTO st VALUES (1, 1, 5), (1, 2, 50), (2, 1, 7), (2, 2, 70), (1, 3, 9)");
    q(
        &mut s,
        "CREATE TABLE ol (id INT PRIMARY KEY, w INT, i_int INT, i_txt VARCHAR(10), i_dec DECIMAL(5,2))",
    );
    q(
        &mut s,
        "INSERT INTO ol VALUES (1, 1, 1, '1', 1.00), (2, 1, 2, '2x', 2.50), (3, 2, NULL, NULL, NULL), \
         (4, 2, 2, ' 2', 2.00), (5, 1, 3, '3', 3.00), (6, 1, 9, '9', 9.00), (7, NULL, 1, '1', 1.00)",
    );
    // StockLevel's shape: a constant and an outer column bind the key.
    assert_eq!(
        rows(
            &mut s,
            "SELECT COUNT(DISTINCT st.i) FROM ol, st WHERE ol.id < 7 AND st.w = 1 \
             AND st.i = ol.i_int AND st.qty < 10"
        ),
        strs(&[&["2"]])
    );
    let cases: [(&str, &[&[&str]]); 6] = [
        ("SELECT ol.id, st.qty FROM ol JOIN st ON st.w = ol.w AND st.i = ol.i_int ORDER BY ol.id",
         &[&["1", "5"], &["2", "50"], &["4", "70"], &["5", "9"]]),
        ("SELECT ol.id, st.qty FROM ol JOIN st ON st.w = ol.w AND st.i = ol.i_txt ORDER BY ol.id",
         &[&["1", "5"], &["2", "50"], &["4", "70"], &["5", "9"]]),
        ("SELECT ol.id, st.qty FROM ol JOIN st ON st.w = ol.w AND st.i = ol.i_dec ORDER BY ol.id",
         &[&["1", "5"], &["4", "70"], &["5", "9"]]),
        ("SELECT ol.id, st.qty FROM ol LEFT JOIN st ON st.w = ol.w AND st.i = ol.i_int ORDER BY ol.id",
         &[&["1", "5"], &["2", "50"], &["3", "NULL"], &["4", "70"], &["5", "9"], &["6", "NULL"], &["7", "NULL"]]),
        ("SELECT ol.id, st.qty FROM ol JOIN st ON st.w <=> ol.w AND st.i = ol.i_int + 1 ORDER BY ol.id",
         &[&["1", "50"], &["2", "9"]]),
        ("SELECT ol.id, st.qty FROM ol STRAIGHT_JOIN st ON st.w = 2 AND st.i = ol.i_int - 4294967296 ORDER BY ol.id",
         &[]),
    ];
    for (sql, want) in cases {
        let want: Vec<Vec<String>> =
            want.iter().map(|r| r.iter().map(|c| c.to_string()).collect()).collect();
        assert_eq!(rows(&mut s, sql), want, "{sql}");
        // The same join prepared and executed twice.
        let p = s.prepare(sql).unwrap();
        assert_eq!(s.execute(&p, &[]).unwrap().text_rows(), want, "{sql} prepared");
        assert_eq!(s.execute(&p, &[]).unwrap().text_rows(), want, "{sql} again");
    }
    // A parameter in the key and FOR UPDATE: the lookup locks and reads the newest row.
    let sql = "SELECT ol.id, st.qty FROM ol JOIN st ON st.w = ? AND st.i = ol.i_int \
               WHERE ol.id <= ? ORDER BY ol.id FOR UPDATE";
    let p = s.prepare(sql).unwrap();
    q(&mut s, "BEGIN");
    let r = s.execute(&p, &[Value::Int(2), Value::Int(4)]).unwrap().text_rows();
    assert_eq!(r, strs(&[&["1", "7"], &["2", "70"], &["4", "70"]]));
    q(&mut s, "UPDATE st SET qty = 71 WHERE w = 2 AND i = 2");
    let r = s.execute(&p, &[Value::Int(2), Value::Int(4)]).unwrap().text_rows();
    assert_eq!(r, strs(&[&["1", "7"], &["2", "71"], &["4", "71"]]));
    q(&mut s, "ROLLBACK");
}
