//! GROUP BY ... WITH ROLLUP with GROUPING() (`exec/rollup.rs`) and window functions
//! (`exec/window.rs`, `parse/window.rs`), against results worked out from mysqld 8.0's
//! documented semantics (sql/window.cc, the reference manual's "Window Function Concepts").

mod common;

use common::{err, q, rows, server};
use sql::output::{flags, MysqlType};
use sql::{Output, Session};

fn r(s: &mut Session, sql: &str) -> Vec<String> {
    rows(s, sql).into_iter().map(|r| r.join(",")).collect()
}

fn code(s: &mut Session, sql: &str) -> u16 {
    err(s, sql).code()
}

fn setup(s: &mut Session) {
    q(s, "CREATE DATABASE d");
    q(s, "USE d");
    q(s, "CREATE TABLE t (id INT PRIMARY KEY, g VARCHAR(5) NOT NULL, h INT NOT NULL, v INT)");
    q(
        s,
        "INSERT INTO t VALUES (1,'a',1,10),(2,'a',1,20),(3,'a',2,30),(4,'b',1,5),(5,'b',2,NULL),\
         (6,'c',1,7)",
    );
}

#[test]
fn rollup_rows_and_grouping() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    assert_eq!(
        r(&mut s, "SELECT g, SUM(v), COUNT(*) FROM t GROUP BY g WITH ROLLUP"),
        ["a,60,3", "b,5,2", "c,7,1", "NULL,72,6"]
    );
    assert_eq!(
        r(
            &mut s,
            "SELECT g, h, SUM(v), GROUPING(g), GROUPING(g, h) FROM t GROUP BY g, h WITH ROLLUP"
        ),
        [
            "a,1,30,0,0",
            "a,2,30,0,0",
            "a,NULL,60,0,1",
            "b,1,5,0,0",
            "b,2,NULL,0,0",
            "b,NULL,5,0,1",
            "c,1,7,0,0",
            "c,NULL,7,0,1",
            "NULL,NULL,72,1,3"
        ]
    );
    // An expression over a rolled-up column is NULL too (mysqld 8.0).
    assert_eq!(
        r(&mut s, "SELECT h + 1, COUNT(DISTINCT g), MAX(v), AVG(v) FROM t GROUP BY h WITH ROLLUP"),
        ["2,3,20,10.5000", "3,2,30,30.0000", "NULL,3,30,14.4000"]
    );
    // HAVING with GROUPING, ORDER BY over the rollup (8.0.12+), LIMIT.
    assert_eq!(
        r(
            &mut s,
            "SELECT g, h, SUM(v) FROM t GROUP BY g, h WITH ROLLUP HAVING GROUPING(h) = 1 \
             ORDER BY SUM(v) DESC LIMIT 3"
        ),
        ["NULL,NULL,72", "a,NULL,60", "c,NULL,7"]
    );
    assert_eq!(
        r(&mut s, "SELECT g, GROUP_CONCAT(id ORDER BY id) FROM t GROUP BY g WITH ROLLUP LIMIT 2"),
        ["a,1,2,3", "b,4,5"]
    );
    // Empty input: no grand total.
    assert!(r(&mut s, "SELECT g, COUNT(*) FROM t WHERE id > 100 GROUP BY g WITH ROLLUP").is_empty());
    // Over a join and a derived table.
    assert_eq!(
        r(&mut s, "SELECT x.g, COUNT(*) FROM t x JOIN t y ON x.id = y.id GROUP BY x.g WITH ROLLUP"),
        ["a,3", "b,2", "c,1", "NULL,6"]
    );
    assert_eq!(
        r(&mut s, "SELECT k, SUM(n) FROM (SELECT g AS k, h AS n FROM t) z GROUP BY k WITH ROLLUP"),
        ["a,4", "b,3", "c,1", "NULL,8"]
    );
    // The rolled-up column becomes nullable; GROUPING is BIGINT.
    match q(&mut s, "SELECT g, GROUPING(g) FROM t GROUP BY g WITH ROLLUP") {
        Output::Rows { columns, .. } => {
            assert_eq!(columns[0].flags & flags::NOT_NULL, 0);
            assert_eq!(columns[1].mysql_type, MysqlType::LongLong);
        }
        o => panic!("{o:?}"),
    }
    match q(&mut s, "SELECT g FROM t GROUP BY g") {
        Output::Rows { columns, .. } => assert_ne!(columns[0].flags & flags::NOT_NULL, 0),
        o => panic!("{o:?}"),
    }
}

#[test]
fn rollup_errors() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    // GROUPING without ROLLUP: 1111; an argument not in GROUP BY: 3602.
    assert_eq!(code(&mut s, "SELECT g, GROUPING(g) FROM t GROUP BY g"), 1111);
    assert_eq!(code(&mut s, "SELECT g, GROUPING(h) FROM t GROUP BY g WITH ROLLUP"), 3602);
    assert_eq!(
        code(&mut s, "SELECT GROUPING(g) FROM t WHERE GROUPING(g) = 0 GROUP BY g WITH ROLLUP"),
        1111
    );
    // CUBE is not MySQL.
    assert_eq!(code(&mut s, "SELECT g FROM t GROUP BY g WITH CUBE"), 1064);
}

#[test]
fn ranking_functions() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    assert_eq!(
        r(
            &mut s,
            "SELECT id, ROW_NUMBER() OVER w, RANK() OVER w, DENSE_RANK() OVER w, \
             PERCENT_RANK() OVER w, CUME_DIST() OVER w FROM t WINDOW w AS (ORDER BY h) ORDER BY id"
        ),
        [
            "1,1,1,1,0,0.6666666666666666",
            "2,2,1,1,0,0.6666666666666666",
            "3,5,5,2,0.8,1",
            "4,3,1,1,0,0.6666666666666666",
            "5,6,5,2,0.8,1",
            "6,4,1,1,0,0.6666666666666666"
        ]
    );
    assert_eq!(
        r(
            &mut s,
            "SELECT id, g, ROW_NUMBER() OVER (PARTITION BY g ORDER BY id DESC) FROM t ORDER BY id"
        ),
        ["1,a,3", "2,a,2", "3,a,1", "4,b,2", "5,b,1", "6,c,1"]
    );
    assert_eq!(
        r(&mut s, "SELECT id, NTILE(4) OVER (ORDER BY id) FROM t"),
        ["1,1", "2,1", "3,2", "4,2", "5,3", "6,4"]
    );
    // Without ORDER BY the rows come in the window's order.
    assert_eq!(
        r(&mut s, "SELECT id, RANK() OVER (ORDER BY v DESC) FROM t"),
        ["3,1", "2,2", "1,3", "6,4", "4,5", "5,6"]
    );
}

#[test]
fn value_functions_and_frames() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    assert_eq!(
        r(
            &mut s,
            "SELECT id, LAG(v) OVER w, LEAD(v, 2, -1) OVER w, FIRST_VALUE(v) OVER w, \
             LAST_VALUE(v) OVER w, NTH_VALUE(v, 2) OVER w FROM t WINDOW w AS (ORDER BY id)"
        ),
        [
            "1,NULL,30,10,10,NULL",
            "2,10,5,10,20,20",
            "3,20,NULL,10,30,20",
            "4,30,7,10,5,20",
            "5,5,-1,10,NULL,20",
            "6,NULL,-1,10,7,20"
        ]
    );
    // Default frame with ORDER BY: peers included; without: the whole partition.
    assert_eq!(
        r(&mut s, "SELECT id, SUM(v) OVER (ORDER BY h), SUM(v) OVER () FROM t ORDER BY id"),
        ["1,42,72", "2,42,72", "3,72,72", "4,42,72", "5,72,72", "6,42,72"]
    );
    assert_eq!(
        r(
            &mut s,
            "SELECT id, SUM(v) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING), \
             COUNT(v) OVER (ORDER BY id ROWS 2 PRECEDING), \
             AVG(v) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING), \
             MIN(v) OVER (ORDER BY id ROWS BETWEEN 1 FOLLOWING AND 2 FOLLOWING), \
             MAX(id) OVER (ORDER BY v RANGE BETWEEN 5 PRECEDING AND 5 FOLLOWING) \
             FROM t ORDER BY id"
        ),
        [
            "1,30,1,20.0000,20,6",
            "2,60,2,25.0000,5,2",
            "3,55,3,30.0000,5,3",
            "4,35,3,5.0000,7,6",
            "5,12,2,NULL,7,5",
            "6,7,2,7.0000,NULL,6"
        ]
    );
    // Windows over a grouped result, in a derived table, and ORDER BY a window.
    assert_eq!(
        r(
            &mut s,
            "SELECT g, SUM(h), RANK() OVER (ORDER BY SUM(h) DESC) AS rk FROM t GROUP BY g ORDER BY rk, g"
        ),
        ["a,4,1", "b,3,2", "c,1,3"]
    );
    assert_eq!(
        r(
            &mut s,
            "SELECT id FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY g ORDER BY id) AS n FROM t) z \
             WHERE n = 1 ORDER BY id"
        ),
        ["1", "4", "6"]
    );
    // A join under a window.
    assert_eq!(
        r(
            &mut s,
            "SELECT x.id, COUNT(*) OVER (PARTITION BY x.g) FROM t x JOIN t y ON x.id = y.id \
             ORDER BY x.id LIMIT 2"
        ),
        ["1,3", "2,3"]
    );
}

#[test]
fn window_metadata_and_errors() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    match q(
        &mut s,
        "SELECT ROW_NUMBER() OVER (), CUME_DIST() OVER (), LAG(h) OVER (), SUM(h) OVER () FROM t",
    ) {
        Output::Rows { columns, .. } => {
            assert_eq!(columns[0].mysql_type, MysqlType::LongLong);
            assert_ne!(columns[0].flags & flags::NOT_NULL, 0);
            assert_eq!(columns[1].mysql_type, MysqlType::Double);
            assert_eq!(columns[2].mysql_type, MysqlType::Long);
            assert_eq!(columns[2].flags & flags::NOT_NULL, 0);
            assert_eq!(columns[3].mysql_type, MysqlType::NewDecimal);
        }
        o => panic!("{o:?}"),
    }
    assert_eq!(code(&mut s, "SELECT id FROM t WHERE ROW_NUMBER() OVER () > 1"), 3593);
    assert_eq!(code(&mut s, "SELECT g FROM t GROUP BY g HAVING RANK() OVER () > 1"), 3593);
    assert_eq!(code(&mut s, "SELECT RANK() OVER w FROM t"), 3579);
    assert_eq!(code(&mut s, "SELECT 1 FROM t WINDOW w AS (), w AS ()"), 3591);
    assert_eq!(code(&mut s, "SELECT SUM(ROW_NUMBER() OVER ()) OVER () FROM t"), 3593);
    assert_eq!(code(&mut s, "SELECT NTILE(0) OVER () FROM t"), 1210);
    assert_eq!(code(&mut s, "SELECT SUM(v) OVER (ORDER BY id ROWS -1 PRECEDING) FROM t"), 1064);
    assert_eq!(code(&mut s, "SELECT COUNT(DISTINCT v) OVER () FROM t"), 1235);
    assert_eq!(code(&mut s, "SELECT SUM(v) OVER (ORDER BY id, h RANGE 1 PRECEDING) FROM t"), 3587);
    // A window naming another inherits its PARTITION BY.
    assert_eq!(
        r(
            &mut s,
            "SELECT id, ROW_NUMBER() OVER (w ORDER BY id DESC) FROM t WINDOW w AS (PARTITION BY g) \
             ORDER BY id LIMIT 3"
        ),
        ["1,3", "2,2", "3,1"]
    );
    assert_eq!(
        code(
            &mut s,
            "SELECT ROW_NUMBER() OVER (w PARTITION BY h) FROM t WINDOW w AS (PARTITION BY g)"
        ),
        3581
    );
    // Prepared: `?` as NTILE's buckets and as a frame offset, checked at EXECUTE.
    let st = s
        .prepare(
            "SELECT id, NTILE(?) OVER (ORDER BY id), \
             SUM(h) OVER (ORDER BY id ROWS BETWEEN ? PRECEDING AND CURRENT ROW) FROM t",
        )
        .expect("prepare");
    let out = s.execute(&st, &[engine::Value::Int(2), engine::Value::Int(1)]).expect("execute");
    let got: Vec<String> = out.text_rows().into_iter().map(|r| r.join(",")).collect();
    assert_eq!(got, ["1,1,1", "2,1,2", "3,1,3", "4,2,3", "5,2,3", "6,2,3"]);
    assert_eq!(
        s.execute(&st, &[engine::Value::Int(0), engine::Value::Int(1)]).map_err(|e| e.code()).err(),
        Some(1210)
    );
    // EXPLAIN does not fail.
    q(&mut s, "EXPLAIN SELECT id, ROW_NUMBER() OVER (ORDER BY v) FROM t");
    q(&mut s, "EXPLAIN SELECT g, COUNT(*) FROM t GROUP BY g WITH ROLLUP");
}

/// RANGE frames with INTERVAL offsets over a temporal ORDER BY key (mysqld 8.0's
/// `Window::check_border_sanity`, manual "Window Function Frame Specification"). MariaDB
/// 10.11 has no INTERVAL frame bounds, so these are MySQL's answers worked out by hand.
#[test]
fn range_frames_take_intervals_over_temporal_keys() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    q(&mut s, "CREATE DATABASE d");
    q(&mut s, "USE d");
    q(&mut s, "CREATE TABLE e (id INT PRIMARY KEY, d DATE, ts DATETIME, n INT)");
    q(
        &mut s,
        "INSERT INTO e VALUES (1,'2024-01-01','2024-01-01 10:00:00',1),\
         (2,'2024-01-02','2024-01-01 10:30:00',2),(3,'2024-01-05','2024-01-01 12:00:00',4),\
         (4,'2024-01-31','2024-01-02 10:00:00',8),(5,'2024-02-29','2024-01-02 10:00:00',16),\
         (6,NULL,NULL,32)",
    );
    // Two days back to the current row.
    assert_eq!(
        r(
            &mut s,
            "SELECT id, SUM(n) OVER (ORDER BY d RANGE BETWEEN INTERVAL 2 DAY PRECEDING AND \
             CURRENT ROW) FROM e ORDER BY id"
        ),
        ["1,1", "2,3", "3,4", "4,8", "5,16", "6,32"]
    );
    // A month ahead (calendar months: Jan 31 + 1 month = Feb 29 in 2024), descending too.
    assert_eq!(
        r(
            &mut s,
            "SELECT id, SUM(n) OVER (ORDER BY d RANGE BETWEEN CURRENT ROW AND INTERVAL 1 MONTH \
             FOLLOWING) FROM e ORDER BY id"
        ),
        ["1,15", "2,14", "3,12", "4,24", "5,16", "6,32"]
    );
    assert_eq!(
        r(
            &mut s,
            "SELECT id, COUNT(*) OVER (ORDER BY d DESC RANGE INTERVAL 3 DAY PRECEDING) \
             FROM e ORDER BY id"
        ),
        ["1,2", "2,2", "3,1", "4,1", "5,1", "6,1"]
    );
    // Hours and a compound unit over DATETIME; peers share the frame.
    assert_eq!(
        r(
            &mut s,
            "SELECT id, SUM(n) OVER (ORDER BY ts RANGE BETWEEN INTERVAL 1 HOUR PRECEDING AND \
             INTERVAL '0:30' HOUR_MINUTE FOLLOWING) FROM e ORDER BY id"
        ),
        ["1,3", "2,3", "3,4", "4,24", "5,24", "6,32"]
    );
    // The wrong kind of offset for the key, or of key (mysqld's 3587 / 3588 / 3589 / 3596).
    assert_eq!(code(&mut s, "SELECT SUM(n) OVER (ORDER BY d RANGE 1 PRECEDING) FROM e"), 3588);
    assert_eq!(
        code(&mut s, "SELECT SUM(n) OVER (ORDER BY n RANGE INTERVAL 1 DAY PRECEDING) FROM e"),
        3589
    );
    assert_eq!(
        code(&mut s, "SELECT SUM(n) OVER (ORDER BY d, n RANGE INTERVAL 1 DAY PRECEDING) FROM e"),
        3587
    );
    assert_eq!(code(&mut s, "SELECT SUM(n) OVER (RANGE INTERVAL 1 DAY PRECEDING) FROM e"), 3587);
    assert_eq!(
        code(&mut s, "SELECT SUM(n) OVER (ORDER BY CONCAT(d) RANGE 1 PRECEDING) FROM e"),
        3587
    );
    assert_eq!(
        code(&mut s, "SELECT SUM(n) OVER (ORDER BY d ROWS INTERVAL 1 DAY PRECEDING) FROM e"),
        3596
    );
    assert_eq!(
        code(&mut s, "SELECT SUM(n) OVER (ORDER BY d RANGE INTERVAL -1 DAY PRECEDING) FROM e"),
        3586
    );
}
