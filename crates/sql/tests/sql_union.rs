//! Query expressions (issue 20, `query/union.rs`, `parse/query_expr.rs`): UNION / INTERSECT /
//! EXCEPT [ALL | DISTINCT] with mysqld's left-associative DISTINCT rule, parenthesised blocks,
//! ORDER BY / LIMIT over the whole expression, type aggregation across blocks, 1222 / 1250,
//! unions in derived tables, subqueries and INSERT ... SELECT; WITH (several CTEs, column
//! lists, CTEs in subqueries) and WITH RECURSIVE with its errors (3573 / 3574 / 3575 / 3636);
//! privileges per block.

mod common;

use common::{err, q, rows, server};
use sql::{Output, Session};

fn r(s: &mut Session, sql: &str) -> Vec<String> {
    rows(s, sql).into_iter().map(|r| r.join(",")).collect()
}

fn sorted(s: &mut Session, sql: &str) -> Vec<String> {
    let mut v = r(s, sql);
    v.sort();
    v
}

fn setup(s: &mut Session) {
    q(s, "CREATE DATABASE d");
    q(s, "USE d");
    q(s, "CREATE TABLE t (id INT PRIMARY KEY, g INT, name VARCHAR(10))");
    q(s, "INSERT INTO t VALUES (1, 1, 'a'), (2, 1, 'b'), (3, 2, 'c'), (4, NULL, 'A')");
    q(s, "CREATE TABLE u (id BIGINT PRIMARY KEY, g INT, label VARCHAR(30))");
    q(s, "INSERT INTO u VALUES (1, 1, 'x'), (2, 3, 'b'), (5, 5, 'zz')");
}

#[test]
fn union_all_and_distinct() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    assert_eq!(r(&mut s, "SELECT 1 UNION SELECT 1"), ["1"]);
    assert_eq!(r(&mut s, "SELECT 1 UNION ALL SELECT 1"), ["1", "1"]);
    assert_eq!(
        sorted(&mut s, "SELECT g FROM t UNION SELECT g FROM u"),
        ["1", "2", "3", "5", "NULL"]
    );
    assert_eq!(sorted(&mut s, "SELECT g FROM t UNION ALL SELECT g FROM u").len(), 7);
    // A DISTINCT union removes the duplicates of everything to its left; ALL after it keeps.
    assert_eq!(r(&mut s, "SELECT 1 UNION ALL SELECT 1 UNION SELECT 2"), ["1", "2"]);
    assert_eq!(r(&mut s, "SELECT 1 UNION SELECT 1 UNION ALL SELECT 1"), ["1", "1"]);
    assert_eq!(r(&mut s, "SELECT 1 UNION DISTINCT SELECT 2 UNION ALL SELECT 2"), ["1", "2", "2"]);
    // Parenthesised operands.
    assert_eq!(r(&mut s, "SELECT 1 UNION ALL (SELECT 1 UNION SELECT 1)"), ["1", "1"]);
    assert_eq!(r(&mut s, "(SELECT 2) UNION ALL (SELECT 1) ORDER BY 1"), ["1", "2"]);
    // Duplicates compare under the column's collation (utf8mb4_0900_ai_ci: 'a' = 'A').
    assert_eq!(
        r(&mut s, "SELECT name FROM t WHERE id = 1 UNION SELECT name FROM t WHERE id = 4"),
        ["a"]
    );
}

#[test]
fn order_by_and_limit() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    assert_eq!(
        r(
            &mut s,
            "SELECT id, name FROM t UNION SELECT id, label FROM u ORDER BY id DESC, name LIMIT 3"
        ),
        ["5,zz", "4,A", "3,c"]
    );
    assert_eq!(
        r(&mut s, "SELECT id FROM t UNION ALL SELECT id FROM u ORDER BY 1 LIMIT 2, 3"),
        ["2", "2", "3"]
    );
    // Per-block ORDER BY ... LIMIT inside parentheses.
    assert_eq!(
        r(&mut s, "(SELECT id FROM t ORDER BY id DESC LIMIT 1) UNION ALL (SELECT id FROM u ORDER BY id LIMIT 1)"),
        ["4", "1"]
    );
    // Names resolve against the first block's names; an alias too.
    assert_eq!(
        r(&mut s, "SELECT id AS k FROM t UNION SELECT id FROM u ORDER BY k DESC LIMIT 1"),
        ["5"]
    );
    let e = err(&mut s, "SELECT id FROM t UNION SELECT id FROM u ORDER BY t.id");
    assert_eq!(e.code(), 1250, "{e}");
}

#[test]
fn intersect_and_except() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    assert_eq!(sorted(&mut s, "SELECT g FROM t INTERSECT SELECT g FROM u"), ["1"]);
    assert_eq!(sorted(&mut s, "SELECT g FROM t EXCEPT SELECT g FROM u"), ["2", "NULL"]);
    assert_eq!(r(&mut s, "SELECT 1 UNION ALL SELECT 1 INTERSECT ALL SELECT 1"), ["1", "1"]);
    assert_eq!(sorted(&mut s, "SELECT g FROM t EXCEPT ALL SELECT 1"), ["1", "2", "NULL"]);
}

#[test]
fn column_types_and_errors() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    let cols = |s: &mut Session, sql: &str| match q(s, sql) {
        Output::Rows { columns, .. } => columns,
        other => panic!("{other:?}"),
    };
    // INT UNION VARCHAR: a string column long enough for both.
    let c = cols(&mut s, "SELECT g FROM t UNION SELECT label FROM u");
    assert_eq!(c[0].name, "g");
    assert_eq!(c[0].mysql_type, sql::MysqlType::VarString);
    assert_eq!(c[0].length, 30 * 4);
    // INT UNION BIGINT: BIGINT.
    let c = cols(&mut s, "SELECT g FROM t UNION SELECT id FROM u");
    assert_eq!(c[0].mysql_type, sql::MysqlType::LongLong);
    // INT UNION DOUBLE: DOUBLE; NULL takes the other type.
    assert_eq!(cols(&mut s, "SELECT 1 UNION SELECT 2.5e0")[0].mysql_type, sql::MysqlType::Double);
    assert_eq!(cols(&mut s, "SELECT NULL UNION SELECT 2")[0].mysql_type, sql::MysqlType::LongLong);
    assert_eq!(r(&mut s, "SELECT 1 UNION SELECT 'a'"), ["1", "a"]);
    assert_eq!(r(&mut s, "SELECT 1 UNION SELECT '1'"), ["1"]);
    assert_eq!(r(&mut s, "SELECT 1 UNION SELECT 2.50"), ["1.00", "2.50"]);
    let e = err(&mut s, "SELECT 1, 2 UNION SELECT 1");
    assert_eq!((e.code(), e.sqlstate()), (1222, "21000"), "{e}");
}

#[test]
fn unions_inside_other_statements() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    assert_eq!(
        r(
            &mut s,
            "SELECT COUNT(*), MAX(x) FROM (SELECT id AS x FROM t UNION SELECT id FROM u) AS d"
        ),
        ["5,5"]
    );
    assert_eq!(
        sorted(&mut s, "SELECT id FROM t WHERE id IN (SELECT 1 UNION SELECT 3)"),
        ["1", "3"]
    );
    assert_eq!(r(&mut s, "SELECT EXISTS (SELECT 1 FROM t WHERE id = 9 UNION SELECT 2)"), ["1"]);
    assert_eq!(r(&mut s, "SELECT (SELECT 7 UNION SELECT 7)"), ["7"]);
    let e = err(&mut s, "SELECT (SELECT 7 UNION SELECT 8)");
    assert_eq!(e.code(), 1242, "{e}");
    // Correlated: the outer row's value in every block.
    assert_eq!(
        sorted(
            &mut s,
            "SELECT id FROM t WHERE g IN (SELECT g FROM u WHERE u.id = t.id UNION SELECT 2 FROM u WHERE t.id = 3)"
        ),
        ["1", "3"]
    );
    q(&mut s, "CREATE TABLE w (k BIGINT PRIMARY KEY, s VARCHAR(30))");
    q(&mut s, "INSERT INTO w SELECT id, name FROM t UNION ALL SELECT id + 10, label FROM u");
    assert_eq!(r(&mut s, "SELECT COUNT(*), SUM(k) FROM w"), ["7,48"]);
}

#[test]
fn common_table_expressions() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    assert_eq!(
        r(&mut s, "WITH c AS (SELECT id FROM t WHERE g = 1) SELECT * FROM c ORDER BY id"),
        ["1", "2"]
    );
    assert_eq!(
        r(&mut s, "WITH a(x) AS (SELECT id FROM t), b AS (SELECT x * 10 AS y FROM a) SELECT SUM(y) FROM b"),
        ["100"]
    );
    assert_eq!(
        r(&mut s, "WITH c(k, v) AS (SELECT id, name FROM t) SELECT c.v FROM c JOIN u ON u.id = c.k ORDER BY k"),
        ["a", "b"]
    );
    assert_eq!(
        sorted(&mut s, "WITH c AS (SELECT 1 AS n UNION SELECT 3) SELECT id FROM t WHERE id IN (SELECT n FROM c)"),
        ["1", "3"]
    );
    assert_eq!(r(&mut s, "SELECT (WITH c AS (SELECT MAX(id) AS m FROM u) SELECT m FROM c)"), ["5"]);
    assert_eq!(r(&mut s, "SELECT * FROM (WITH c AS (SELECT 4 AS z) SELECT z FROM c) AS d"), ["4"]);
    // A CTE name hides a table of the same name.
    assert_eq!(r(&mut s, "WITH t AS (SELECT 42 AS id) SELECT id FROM t"), ["42"]);
    let e = err(&mut s, "WITH c AS (SELECT 1), c AS (SELECT 2) SELECT * FROM c");
    assert_eq!(e.code(), 1066, "{e}");
    let e = err(&mut s, "WITH c(a, b) AS (SELECT 1) SELECT * FROM c");
    assert_eq!(e.code(), 1353, "{e}");
    q(&mut s, "CREATE TABLE v (n INT)");
    q(&mut s, "INSERT INTO v WITH c AS (SELECT id FROM t) SELECT id FROM c WHERE id > 2");
    assert_eq!(r(&mut s, "SELECT n FROM v ORDER BY n"), ["3", "4"]);
    // Derived table column lists (8.0.19).
    assert_eq!(r(&mut s, "SELECT a + b FROM (SELECT 1, 2) AS d(a, b)"), ["3"]);
}

#[test]
fn recursive_ctes() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    assert_eq!(
        r(&mut s, "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 5) SELECT * FROM c"),
        ["1", "2", "3", "4", "5"]
    );
    assert_eq!(
        r(&mut s, "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 1000) SELECT COUNT(*), SUM(n) FROM c"),
        ["1000,500500"]
    );
    // Fibonacci with several columns; UNION DISTINCT stops a cycle.
    assert_eq!(
        r(&mut s, "WITH RECURSIVE f(a, b) AS (SELECT 0, 1 UNION ALL SELECT b, a + b FROM f WHERE b < 20) SELECT a FROM f"),
        ["0", "1", "1", "2", "3", "5", "8", "13"]
    );
    assert_eq!(
        r(&mut s, "WITH RECURSIVE c(n) AS (SELECT 1 UNION SELECT (n % 3) + 1 FROM c) SELECT n FROM c ORDER BY n"),
        ["1", "2", "3"]
    );
    // A join with a table in the recursive block.
    assert_eq!(
        r(&mut s, "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT t.id FROM c JOIN t ON t.id = c.i + 1) SELECT GROUP_CONCAT(i) FROM c"),
        ["1,2,3,4"]
    );
    // LIMIT stops the recursion.
    assert_eq!(
        r(&mut s, "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c LIMIT 3) SELECT * FROM c"),
        ["1", "2", "3"]
    );
    let e = err(
        &mut s,
        "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT * FROM c",
    );
    assert_eq!(e.code(), 3636, "{e}");
    assert!(e.to_string().contains("1001 iterations"), "{e}");
    q(&mut s, "SET SESSION cte_max_recursion_depth = 10");
    let e = err(&mut s, "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 20) SELECT * FROM c");
    assert_eq!(e.code(), 3636, "{e}");
    q(&mut s, "SET SESSION cte_max_recursion_depth = DEFAULT");
    let e =
        err(&mut s, "WITH RECURSIVE c(n) AS (SELECT n FROM c UNION ALL SELECT 1) SELECT * FROM c");
    assert_eq!(e.code(), 3573, "{e}");
    let e = err(&mut s, "WITH RECURSIVE c(n) AS (SELECT n FROM c) SELECT * FROM c");
    assert_eq!(e.code(), 3573, "{e}");
    let e = err(
        &mut s,
        "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT c.n + 1 FROM c, c AS c2 WHERE c.n < 3) SELECT * FROM c",
    );
    assert_eq!(e.code(), 3574, "{e}");
    let e = err(
        &mut s,
        "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT 2 FROM t WHERE id IN (SELECT n FROM c)) SELECT * FROM c",
    );
    assert_eq!(e.code(), 3574, "{e}");
    let e = err(
        &mut s,
        "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT MAX(n) + 1 FROM c) SELECT * FROM c",
    );
    assert_eq!(e.code(), 3575, "{e}");
    // WITH RECURSIVE without a self-reference is an ordinary CTE.
    assert_eq!(r(&mut s, "WITH RECURSIVE c AS (SELECT 9 AS n) SELECT n FROM c"), ["9"]);
}

#[test]
fn privileges_per_block() {
    let srv = server();
    let mut root = srv.session("root", "localhost");
    let _dir = common::attach_accounts(&srv);
    setup(&mut root);
    q(&mut root, "CREATE USER 'p'@'localhost' IDENTIFIED BY 'x'");
    q(&mut root, "GRANT SELECT ON d.t TO 'p'@'localhost'");
    let mut p = srv.session("p", "localhost");
    q(&mut p, "USE d");
    assert_eq!(r(&mut p, "SELECT id FROM t WHERE id = 1 UNION SELECT 2"), ["1", "2"]);
    for sql in [
        "SELECT id FROM t UNION SELECT id FROM u",
        "SELECT * FROM (SELECT 1 UNION SELECT id FROM u) AS x",
        "WITH c AS (SELECT id FROM u) SELECT * FROM c",
        "SELECT id FROM t WHERE id IN (SELECT 1 UNION SELECT id FROM u)",
    ] {
        let e = err(&mut p, sql);
        assert_eq!(e.code(), 1142, "{sql}: {e}");
    }
}

#[test]
fn prepared_unions() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    let p = s
        .prepare("SELECT id FROM t WHERE id = ? UNION SELECT id FROM u WHERE id = ? ORDER BY 1")
        .unwrap();
    assert_eq!(p.columns.len(), 1);
    let out = s.execute(&p, &[engine::Value::Int(2), engine::Value::Int(5)]).unwrap();
    match out {
        Output::Rows { rows, .. } => assert_eq!(rows.len(), 2),
        other => panic!("{other:?}"),
    }
}

/// EXPLAIN rows as (id, select_type, table).
fn explain(s: &mut Session, sql: &str) -> Vec<String> {
    match q(s, &format!("EXPLAIN {sql}")) {
        Output::Rows { rows, .. } => rows
            .iter()
            .map(|r| {
                let t = |v: &engine::Value| match v {
                    engine::Value::Null => "NULL".to_string(),
                    engine::Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
                    other => other.to_string(),
                };
                format!("{},{},{}", t(&r[0]), t(&r[1]), t(&r[2]))
            })
            .collect(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn explain_query_expressions_and_subqueries() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    assert_eq!(
        explain(&mut s, "SELECT id FROM t UNION SELECT id FROM u"),
        ["1,PRIMARY,t", "2,UNION,u", "NULL,UNION RESULT,<union1,2>"]
    );
    // UNION ALL streams: no UNION RESULT row (8.0).
    assert_eq!(
        explain(&mut s, "SELECT id FROM t UNION ALL SELECT id FROM u"),
        ["1,PRIMARY,t", "2,UNION,u"]
    );
    assert_eq!(
        explain(&mut s, "SELECT * FROM (SELECT id FROM t UNION SELECT id FROM u) AS d"),
        ["1,PRIMARY,<derived2>", "2,DERIVED,t", "3,UNION,u", "NULL,UNION RESULT,<union2,3>"]
    );
    assert_eq!(
        explain(&mut s, "SELECT id, (SELECT MAX(g) FROM u) FROM t"),
        ["1,PRIMARY,t", "2,SUBQUERY,u"]
    );
    assert_eq!(
        explain(&mut s, "SELECT id FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.g = t.g)"),
        ["1,PRIMARY,t", "2,DEPENDENT SUBQUERY,u"]
    );
}
