//! EXPLAIN of single-table statements: mysqld 8.0's traditional table (columns and types of
//! `THD::send_explain_fields`), filled from the access path binlogd runs (explain.rs).
//! Expected rows are mysqld 8.0's for the same tables (InnoDB; `rows` there is an estimate,
//! binlogd counts).

mod common;

use common::server;

use engine::Value;
use sql::output::MysqlType;
use sql::{Output, Session};

fn q(s: &mut Session, sql: &str) -> Output {
    s.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// The one EXPLAIN row, as text cells (NULL as "NULL"); filtered with two decimals.
fn plan(s: &mut Session, sql: &str) -> Vec<String> {
    let out = q(s, sql);
    let rows = out.rows();
    assert_eq!(rows.len(), 1, "{sql}: {rows:?}");
    rows[0]
        .iter()
        .enumerate()
        .map(|(i, v)| match (i, v) {
            (10, Value::Double(d)) => format!("{d:.2}"),
            (_, v) => v.to_string(),
        })
        .collect()
}

fn setup(s: &mut Session) {
    q(s, "CREATE DATABASE e");
    q(s, "USE e");
    q(
        s,
        "CREATE TABLE t (id INT PRIMARY KEY, k INT, name VARCHAR(20) NOT NULL, \
         d DECIMAL(10,2), ts DATETIME(3), u BIGINT NOT NULL, \
         KEY kk (k), UNIQUE KEY uu (u), KEY kn (name))",
    );
    q(s, "CREATE TABLE c (a INT NOT NULL, b CHAR(4) NOT NULL, v INT, PRIMARY KEY (a, b))");
    for i in 1..=10 {
        q(
            s,
            &format!(
                "INSERT INTO t VALUES ({i}, {}, 'n{i}', {i}.5, '2024-01-0{} 00:00:00', {})",
                i % 3,
                i % 9 + 1,
                i * 100
            ),
        );
        q(s, &format!("INSERT INTO c VALUES ({}, 'b{i}', {i})", i % 4));
    }
}

fn row(cells: &[&str]) -> Vec<String> {
    cells.iter().map(|c| c.to_string()).collect()
}

#[test]
fn explain_columns_are_mysqlds() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    let Output::Rows { columns, .. } = q(&mut s, "EXPLAIN SELECT * FROM t") else { panic!() };
    let names: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "id",
            "select_type",
            "table",
            "partitions",
            "type",
            "possible_keys",
            "key",
            "key_len",
            "ref",
            "rows",
            "filtered",
            "Extra"
        ]
    );
    assert_eq!(columns[0].mysql_type, MysqlType::LongLong);
    assert_eq!(columns[0].length, 3);
    assert_eq!(columns[9].mysql_type, MysqlType::LongLong);
    assert_eq!((columns[10].mysql_type, columns[10].decimals), (MysqlType::Double, 2));
    assert!(columns[2..9].iter().all(|c| c.mysql_type == MysqlType::VarString));
}

#[test]
fn explain_follows_the_access_path() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    let n = "NULL";
    // Primary key point: const, 4 bytes of INT.
    assert_eq!(
        plan(&mut s, "EXPLAIN SELECT * FROM t WHERE id = 3"),
        row(&[
            "1", "SIMPLE", "t", n, "const", "PRIMARY", "PRIMARY", "4", "const", "1", "100.00", n
        ])
    );
    // FORMAT=TRADITIONAL and DESCRIBE are the same; a missing const row.
    assert_eq!(
        plan(&mut s, "DESCRIBE SELECT * FROM t WHERE id = 99"),
        row(&["1", "SIMPLE", n, n, n, n, n, n, n, n, n, "no matching row in const table"])
    );
    assert_eq!(
        plan(&mut s, "EXPLAIN FORMAT=TRADITIONAL SELECT id FROM t WHERE id IN (1, 2, 30)"),
        row(&[
            "1",
            "SIMPLE",
            "t",
            n,
            "range",
            "PRIMARY",
            "PRIMARY",
            "4",
            n,
            "2",
            "100.00",
            "Using where"
        ])
    );
    // A primary key range and an equality on kn: the index with fewer counted entries (kn,
    // none) is read, the primary key range is the residual condition (mysqld's choice too).
    assert_eq!(
        plan(&mut s, "EXPLAIN SELECT * FROM t WHERE id > 7 AND name = 'x'")[4..],
        row(&["ref", "PRIMARY,kn", "kn", "82", "const", "0", "33.33", "Using where"])
    );
    // A non-unique index: ref; nullable INT is 5 bytes.
    assert_eq!(
        plan(&mut s, "EXPLAIN SELECT * FROM t WHERE k = 1")[4..],
        row(&["ref", "kk", "kk", "5", "const", "4", "100.00", n])
    );
    // A unique NOT NULL BIGINT: const, 8 bytes.
    assert_eq!(
        plan(&mut s, "EXPLAIN SELECT * FROM t WHERE u = 300")[4..],
        row(&["const", "uu", "uu", "8", "const", "1", "100.00", n])
    );
    // VARCHAR(20) utf8mb4 NOT NULL: 20 * 4 + 2.
    assert_eq!(plan(&mut s, "EXPLAIN SELECT * FROM t WHERE name = 'n1'")[7], "82");
    // Full scans: ALL with mysqld's filtering guesses; ORDER BY the key reads the index.
    assert_eq!(
        plan(&mut s, "EXPLAIN SELECT * FROM t WHERE d > 3")[4..],
        row(&["ALL", n, n, n, n, "10", "33.33", "Using where"])
    );
    assert_eq!(
        plan(&mut s, "EXPLAIN SELECT * FROM t ORDER BY d")[4..],
        row(&["ALL", n, n, n, n, "10", "100.00", "Using filesort"])
    );
    assert_eq!(
        plan(&mut s, "EXPLAIN SELECT * FROM t ORDER BY id DESC")[4..],
        row(&["index", n, "PRIMARY", "4", n, "10", "100.00", "Backward index scan"])
    );
    // A composite key prefix: ref on the first part.
    assert_eq!(
        plan(&mut s, "EXPLAIN SELECT * FROM c WHERE a = 1")[4..],
        row(&["ref", "PRIMARY", "PRIMARY", "4", "const", "3", "100.00", n])
    );
    // Both parts: const; CHAR(4) utf8mb4 is 16 bytes.
    assert_eq!(plan(&mut s, "EXPLAIN SELECT * FROM c WHERE a = 1 AND b = 'b1'")[7], "20");
    // No table, impossible WHERE.
    assert_eq!(plan(&mut s, "EXPLAIN SELECT 1")[11], "No tables used");
    assert_eq!(plan(&mut s, "EXPLAIN SELECT * FROM t WHERE 1 = 0")[11], "Impossible WHERE");
    // Aliases label the table.
    assert_eq!(plan(&mut s, "EXPLAIN SELECT * FROM t AS x WHERE x.id = 1")[2], "x");
}

#[test]
fn explain_of_writes() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    let n = "NULL";
    assert_eq!(
        plan(&mut s, "EXPLAIN UPDATE t SET k = 0 WHERE id = 3"),
        row(&[
            "1",
            "UPDATE",
            "t",
            n,
            "range",
            "PRIMARY",
            "PRIMARY",
            "4",
            "const",
            "1",
            "100.00",
            "Using where"
        ])
    );
    assert_eq!(
        plan(&mut s, "EXPLAIN UPDATE t SET k = 0 ORDER BY d LIMIT 2")[4..],
        row(&["ALL", n, n, n, n, "10", "100.00", "Using filesort"])
    );
    assert_eq!(
        plan(&mut s, "EXPLAIN DELETE FROM t WHERE k = 2"),
        row(&[
            "1",
            "DELETE",
            "t",
            n,
            "range",
            "kk",
            "kk",
            "5",
            "const",
            "3",
            "100.00",
            "Using where"
        ])
    );
    assert_eq!(
        plan(&mut s, "EXPLAIN INSERT INTO t (id, name, u) VALUES (50, 'x', 5000)"),
        row(&["1", "INSERT", "t", n, "ALL", n, n, n, n, n, n, n])
    );
    assert_eq!(
        plan(&mut s, "EXPLAIN REPLACE INTO t (id, name, u) VALUES (5, 'x', 5)")[1],
        "REPLACE"
    );
    // EXPLAIN changes nothing.
    assert_eq!(q(&mut s, "SELECT COUNT(*) FROM t WHERE k = 0").text_rows()[0][0], "3");
    // The statement's own errors.
    for (sql, code) in [
        ("EXPLAIN SELECT nope FROM t", 1054),
        ("EXPLAIN SELECT * FROM missing", 1146),
        ("EXPLAIN UPDATE t SET nope = 1", 1054),
        ("EXPLAIN DELETE FROM t WHERE nope = 1", 1054),
        ("EXPLAIN INSERT INTO t (nope) VALUES (1)", 1054),
        ("EXPLAIN FORMAT=JSON SELECT * FROM t", 1235),
        ("EXPLAIN FORMAT=XML SELECT * FROM t", 1791),
        ("EXPLAIN EXPLAIN SELECT 1", 1064),
    ] {
        let e = s.query(sql).expect_err(sql);
        assert_eq!(e.code(), code, "{sql}: {e}");
    }
    // EXPLAIN / DESCRIBE of a table is still SHOW COLUMNS.
    assert_eq!(q(&mut s, "EXPLAIN t").rows().len(), 6);
    assert_eq!(q(&mut s, "DESC c").rows().len(), 3);
}
