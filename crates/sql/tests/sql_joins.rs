//! The query layer's multi-table SELECT (issue 20): inner, comma, CROSS, LEFT/RIGHT outer,
//! USING/NATURAL and STRAIGHT_JOIN joins; aliases and qualified names; `*` and `t.*`; mysqld's
//! 1052/1054/1066/1051 errors; GROUP BY/HAVING/ORDER BY/LIMIT/DISTINCT and aggregates over a
//! join; result column metadata; locking reads over joins; the read view; go-tpc's shapes.

mod common;

use std::sync::Arc;
use std::time::Duration;

use engine::Value;
use sql::{Output, Server, Session};

fn server() -> Arc<Server> {
    common::server_with_lock_wait(Duration::from_millis(300))
}

fn q(s: &mut Session, sql: &str) -> Output {
    s.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

fn rows(s: &mut Session, sql: &str) -> Vec<String> {
    q(s, sql).text_rows().into_iter().map(|r| r.join(",")).collect()
}

fn err(s: &mut Session, sql: &str) -> (u16, String) {
    match s.query(sql) {
        Ok(o) => panic!("{sql}: expected an error, got {o:?}"),
        Err(e) => (e.code(), e.to_string()),
    }
}

/// Database d: authors a(id PK, name, country), books b(id PK, author_id indexed, title,
/// year), tags g(book_id, tag) without keys.
fn setup() -> (Arc<Server>, Session) {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    for sql in [
        "CREATE DATABASE d",
        "USE d",
        "CREATE TABLE a (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL, country CHAR(2))",
        "CREATE TABLE b (id INT PRIMARY KEY, author_id INT, title VARCHAR(30), year INT, \
         KEY by_author (author_id))",
        "CREATE TABLE g (book_id INT, tag VARCHAR(10))",
        "INSERT INTO a VALUES (1, 'ann', 'uk'), (2, 'bob', 'us'), (3, 'cid', NULL)",
        "INSERT INTO b VALUES (10, 1, 'alpha', 2001), (11, 1, 'beta', 2003), \
         (12, 2, 'gamma', 2001), (13, NULL, 'orphan', 1999)",
        "INSERT INTO g VALUES (10, 'x'), (10, 'y'), (12, 'x'), (99, 'z')",
    ] {
        q(&mut s, sql);
    }
    (srv, s)
}

#[test]
fn inner_joins_in_every_spelling_agree() {
    let (_srv, mut s) = setup();
    let want = ["ann,alpha", "ann,beta", "bob,gamma"];
    for sql in [
        "SELECT a.name, b.title FROM a JOIN b ON b.author_id = a.id ORDER BY b.id",
        "SELECT a.name, b.title FROM a INNER JOIN b ON a.id = b.author_id ORDER BY b.id",
        "SELECT name, title FROM a, b WHERE author_id = a.id ORDER BY b.id",
        "SELECT x.name, y.title FROM a AS x CROSS JOIN b y WHERE y.author_id = x.id ORDER BY y.id",
        "SELECT a.name, b.title FROM b STRAIGHT_JOIN a ON a.id = b.author_id ORDER BY b.id",
        "SELECT d.a.name, d.b.title FROM d.a JOIN d.b ON d.b.author_id = d.a.id ORDER BY 2",
        "SELECT a.name, b.title FROM (a JOIN b ON a.id = b.author_id) ORDER BY b.title",
    ] {
        assert_eq!(rows(&mut s, sql), want, "{sql}");
    }
    // A cross product without a condition, and a three-table join through a keyless table.
    assert_eq!(rows(&mut s, "SELECT COUNT(*) FROM a, b").join(""), "12");
    assert_eq!(
        rows(
            &mut s,
            "SELECT a.name, b.title, g.tag FROM a JOIN b ON b.author_id = a.id \
             JOIN g ON g.book_id = b.id ORDER BY g.tag, b.id"
        ),
        ["ann,alpha,x", "bob,gamma,x", "ann,alpha,y"]
    );
    // A join condition between differently typed columns is compared as SQL compares.
    assert_eq!(
        rows(&mut s, "SELECT b.id FROM a JOIN b ON CONCAT(a.id, '') = b.author_id ORDER BY 1"),
        ["10", "11", "12"]
    );
}

#[test]
fn outer_joins_null_extend() {
    let (_srv, mut s) = setup();
    assert_eq!(
        rows(
            &mut s,
            "SELECT a.name, b.title FROM a LEFT JOIN b ON b.author_id = a.id ORDER BY a.id, b.id"
        ),
        ["ann,alpha", "ann,beta", "bob,gamma", "cid,NULL"]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT a.name, b.title FROM a RIGHT JOIN b ON b.author_id = a.id ORDER BY b.id"
        ),
        ["ann,alpha", "ann,beta", "bob,gamma", "NULL,orphan"]
    );
    // WHERE applies after the NULL-extension; ON only decides matches.
    assert_eq!(
        rows(&mut s, "SELECT a.name FROM a LEFT JOIN b ON b.author_id = a.id WHERE b.id IS NULL"),
        ["cid"]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT a.name, b.title FROM a LEFT JOIN b ON b.author_id = a.id AND b.year > 2002 \
             ORDER BY a.id"
        ),
        ["ann,beta", "bob,NULL", "cid,NULL"]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT b.title, g.tag FROM b LEFT OUTER JOIN g ON g.book_id = b.id \
             ORDER BY b.id, g.tag"
        ),
        ["alpha,x", "alpha,y", "beta,NULL", "gamma,x", "orphan,NULL"]
    );
    // Columns of the NULL-extended table lose NOT NULL in the metadata.
    let out = q(&mut s, "SELECT a.name FROM b LEFT JOIN a ON a.id = b.author_id");
    let Output::Rows { columns, .. } = out else { panic!() };
    assert_eq!(columns[0].flags & 1, 0, "NOT_NULL cleared");
    let out = q(&mut s, "SELECT a.name FROM b JOIN a ON a.id = b.author_id");
    let Output::Rows { columns, .. } = out else { panic!() };
    assert_eq!(columns[0].flags & 1, 1, "NOT_NULL kept");
}

#[test]
fn using_and_natural_merge_the_shared_columns() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    for sql in [
        "CREATE DATABASE d",
        "USE d",
        "CREATE TABLE p (k INT PRIMARY KEY, v VARCHAR(5))",
        "CREATE TABLE c (x INT, k INT, w VARCHAR(5))",
        "INSERT INTO p VALUES (1, 'p1'), (2, 'p2')",
        "INSERT INTO c VALUES (7, 1, 'c1'), (8, 3, 'c3')",
    ] {
        q(&mut s, sql);
    }
    let out = q(&mut s, "SELECT * FROM p JOIN c USING (k)");
    assert_eq!(out.column_names(), ["k", "v", "x", "w"]);
    assert_eq!(out.text_rows(), [["1", "p1", "7", "c1"]]);
    let out = q(&mut s, "SELECT * FROM p NATURAL JOIN c");
    assert_eq!(out.column_names(), ["k", "v", "x", "w"]);
    assert_eq!(out.text_rows(), [["1", "p1", "7", "c1"]]);
    // An unqualified USING column is not ambiguous; qualified ones still reach each table.
    assert_eq!(
        rows(&mut s, "SELECT k, p.k, c.k FROM p LEFT JOIN c USING (k) ORDER BY 1"),
        ["1,1,1", "2,2,NULL"]
    );
    let out = q(&mut s, "SELECT c.*, p.* FROM p JOIN c ON p.k = c.k");
    assert_eq!(out.column_names(), ["x", "k", "w", "k", "v"]);
    assert_eq!(err(&mut s, "SELECT * FROM p JOIN c USING (nope)").0, 1054);
}

#[test]
fn names_resolve_with_mysqld_errors() {
    let (_srv, mut s) = setup();
    let (code, msg) = err(&mut s, "SELECT id FROM a, b");
    assert_eq!((code, msg.as_str()), (1052, "Column 'id' in field list is ambiguous"));
    let (code, msg) = err(&mut s, "SELECT a.id FROM a JOIN b ON id = 1");
    assert_eq!((code, msg.as_str()), (1052, "Column 'id' in on clause is ambiguous"));
    let (code, _) = err(&mut s, "SELECT 1 FROM a, b WHERE id = 1");
    assert_eq!(code, 1052);
    let (code, msg) = err(&mut s, "SELECT a.nope FROM a, b");
    assert_eq!((code, msg.as_str()), (1054, "Unknown column 'a.nope' in 'field list'"));
    let (code, msg) = err(&mut s, "SELECT z.id FROM a, b");
    assert_eq!((code, msg.as_str()), (1054, "Unknown column 'z.id' in 'field list'"));
    // An aliased table is known only by its alias.
    assert_eq!(err(&mut s, "SELECT a.id FROM a AS x, b").0, 1054);
    let (code, msg) = err(&mut s, "SELECT 1 FROM a, a");
    assert_eq!((code, msg.as_str()), (1066, "Not unique table/alias: 'a'"));
    assert_eq!(rows(&mut s, "SELECT COUNT(*) FROM a, a AS a2").join(""), "9");
    assert_eq!(err(&mut s, "SELECT z.* FROM a, b").0, 1051);
    assert_eq!(err(&mut s, "SELECT 1 FROM a, nosuch").0, 1146);
    // ORDER BY a select alias, and an ambiguous ORDER BY name.
    assert_eq!(
        rows(&mut s, "SELECT a.id AS n FROM a, b WHERE a.id = b.author_id ORDER BY n DESC LIMIT 1"),
        ["2"]
    );
    assert_eq!(err(&mut s, "SELECT a.name FROM a, b ORDER BY id").0, 1052);
}

#[test]
fn result_columns_name_their_tables() {
    let (_srv, mut s) = setup();
    let out = q(
        &mut s,
        "SELECT x.name, b.title AS t, b.year + 1 FROM a x JOIN b ON b.author_id = x.id LIMIT 1",
    );
    let Output::Rows { columns, .. } = out else { panic!() };
    let meta: Vec<(&str, &str, &str, &str, &str)> = columns
        .iter()
        .map(|c| {
            (
                c.schema.as_str(),
                c.table.as_str(),
                c.org_table.as_str(),
                c.name.as_str(),
                c.org_name.as_str(),
            )
        })
        .collect();
    assert_eq!(
        meta,
        [
            ("d", "x", "a", "name", "name"),
            ("d", "b", "b", "t", "title"),
            ("", "", "", "b.year + 1", "")
        ]
    );
    let out = q(&mut s, "SELECT * FROM a, b LIMIT 1");
    assert_eq!(out.column_names(), ["id", "name", "country", "id", "author_id", "title", "year"]);
}

#[test]
fn grouping_ordering_and_aggregates_over_a_join() {
    let (_srv, mut s) = setup();
    assert_eq!(
        rows(
            &mut s,
            "SELECT a.name, COUNT(*), MAX(b.year), SUM(b.year) FROM a JOIN b ON b.author_id = a.id \
             GROUP BY a.name HAVING COUNT(*) >= 1 ORDER BY COUNT(*) DESC, a.name"
        ),
        ["ann,2,2003,4004", "bob,1,2001,2001"]
    );
    assert_eq!(
        rows(&mut s, "SELECT COUNT(DISTINCT b.year), COUNT(DISTINCT a.id) FROM a JOIN b ON b.author_id = a.id"),
        ["2,2"]
    );
    assert_eq!(
        rows(&mut s, "SELECT DISTINCT a.country FROM a JOIN b ON b.author_id = a.id ORDER BY 1"),
        ["uk", "us"]
    );
    assert_eq!(
        rows(&mut s, "SELECT b.title FROM a JOIN b ON b.author_id = a.id ORDER BY b.year DESC, b.id LIMIT 1, 2"),
        ["alpha", "gamma"]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT a.name, GROUP_CONCAT(b.title ORDER BY b.title SEPARATOR '|') FROM a \
             LEFT JOIN b ON b.author_id = a.id GROUP BY a.id ORDER BY a.id"
        ),
        ["ann,alpha|beta", "bob,gamma", "cid,NULL"]
    );
    // COUNT over an outer join counts NULL-extended rows for COUNT(*), not for COUNT(col).
    assert_eq!(
        rows(&mut s, "SELECT COUNT(*), COUNT(b.id) FROM a LEFT JOIN b ON b.author_id = a.id"),
        ["4,3"]
    );
}

#[test]
fn prepared_joins_take_parameters() {
    let (_srv, mut s) = setup();
    let st = s
        .prepare(
            "SELECT a.name, b.title FROM a, b WHERE a.id = ? AND b.author_id = a.id AND b.year = ?",
        )
        .expect("prepares");
    assert_eq!(st.params, 2);
    let names: Vec<&str> = st.columns.iter().map(|c| c.table.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
    let run = |s: &mut Session, i: i64, y: i64| -> Vec<String> {
        let out = s.execute(&st, &[Value::Int(i), Value::Int(y)]).expect("executes");
        out.text_rows().into_iter().map(|r| r.join(",")).collect()
    };
    assert_eq!(run(&mut s, 1, 2003), ["ann,beta"]);
    assert_eq!(run(&mut s, 2, 2001), ["bob,gamma"]);
}

/// go-tpc's NewOrder read: customer by its whole primary key through the warehouse's key.
#[test]
fn tpcc_new_order_customer_warehouse_join() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    for sql in [
        "CREATE DATABASE tpcc",
        "USE tpcc",
        "CREATE TABLE warehouse (w_id INT NOT NULL, w_name VARCHAR(10), w_tax DECIMAL(4,4), \
         PRIMARY KEY (w_id))",
        "CREATE TABLE customer (c_id INT NOT NULL, c_d_id INT NOT NULL, c_w_id INT NOT NULL, \
         c_last VARCHAR(16), c_first VARCHAR(16), c_credit CHAR(2), c_discount DECIMAL(4,4), \
         PRIMARY KEY (c_w_id, c_d_id, c_id), KEY idx_customer (c_w_id, c_d_id, c_last, c_first))",
        "INSERT INTO warehouse VALUES (1, 'w1', 0.1000), (2, 'w2', 0.2000)",
        "INSERT INTO customer VALUES (1, 1, 1, 'BAR', 'a', 'GC', 0.0100), \
         (2, 1, 1, 'OUGHT', 'b', 'BC', 0.0200), (1, 2, 1, 'ABLE', 'c', 'GC', 0.0300), \
         (1, 1, 2, 'PRI', 'd', 'GC', 0.0400)",
    ] {
        q(&mut s, sql);
    }
    let sql = "SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse \
               WHERE w_id = 1 AND c_w_id = w_id AND c_d_id = 1 AND c_id = 2";
    assert_eq!(rows(&mut s, sql), ["0.0200,OUGHT,BC,0.1000"]);
    let sql = "SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse \
               WHERE w_id = 2 AND c_w_id = w_id AND c_d_id = 1 AND c_id = 1 FOR UPDATE";
    q(&mut s, "BEGIN");
    assert_eq!(rows(&mut s, sql), ["0.0400,PRI,GC,0.2000"]);
    // The rows read are locked: another session cannot change them until COMMIT, and can
    // change rows the join did not read.
    let mut o = srv.session("root", "localhost");
    q(&mut o, "USE tpcc");
    assert_eq!(err(&mut o, "UPDATE warehouse SET w_tax = 0 WHERE w_id = 2").0, 1205);
    assert_eq!(
        err(
            &mut o,
            "UPDATE customer SET c_last = 'X' WHERE c_w_id = 2 AND c_d_id = 1 AND c_id = 1"
        )
        .0,
        1205
    );
    q(&mut o, "UPDATE warehouse SET w_tax = 0.3 WHERE w_id = 1");
    q(&mut s, "COMMIT");
    q(&mut o, "UPDATE warehouse SET w_tax = 0 WHERE w_id = 2");
    // StockLevel-like join of a secondary-indexed table with COUNT(DISTINCT).
    assert_eq!(
        rows(&mut s, "SELECT COUNT(DISTINCT c.c_last) FROM warehouse w JOIN customer c ON c.c_w_id = w.w_id WHERE w.w_id = 1"),
        ["3"]
    );
}

#[test]
fn joins_read_through_the_transactions_read_view() {
    let (srv, mut s) = setup();
    let mut o = srv.session("root", "localhost");
    q(&mut o, "USE d");
    q(&mut s, "BEGIN");
    assert_eq!(rows(&mut s, "SELECT COUNT(*) FROM a JOIN b ON b.author_id = a.id"), ["3"]);
    q(&mut o, "INSERT INTO b VALUES (14, 3, 'delta', 2005)");
    q(&mut o, "UPDATE a SET name = 'ANN' WHERE id = 1");
    assert_eq!(rows(&mut s, "SELECT COUNT(*) FROM a JOIN b ON b.author_id = a.id"), ["3"]);
    assert_eq!(
        rows(&mut s, "SELECT DISTINCT a.name FROM a JOIN b ON b.author_id = a.id ORDER BY 1"),
        ["ann", "bob"]
    );
    q(&mut s, "COMMIT");
    assert_eq!(rows(&mut s, "SELECT COUNT(*) FROM a JOIN b ON b.author_id = a.id"), ["4"]);
}

#[test]
fn joins_check_every_tables_privilege() {
    let (srv, mut s) = setup();
    let dir = tempfile::tempdir().expect("tempdir");
    let (users, _) = accounts::Users::open(dir.path(), true).expect("accounts open");
    srv.attach_accounts(Arc::new(users));
    q(&mut s, "CREATE USER u@localhost");
    q(&mut s, "GRANT SELECT ON d.a TO u@localhost");
    let mut u = srv.session("u", "localhost");
    q(&mut u, "USE d");
    assert_eq!(rows(&mut u, "SELECT COUNT(*) FROM a AS x, a AS y"), ["9"]);
    assert_eq!(err(&mut u, "SELECT 1 FROM a JOIN b ON a.id = b.author_id").0, 1142);
}

#[test]
fn joins_with_a_made_up_table() {
    let (_srv, mut s) = setup();
    // information_schema rows join like a table (PROCESSLIST lists this session).
    assert_eq!(
        rows(
            &mut s,
            "SELECT COUNT(*) FROM information_schema.PROCESSLIST p JOIN a ON a.id = 1 \
             WHERE p.ID = CONNECTION_ID()"
        ),
        ["1"]
    );
}

/// Row constructors: `(a, b) IN ((..), ..)` and `(a, b) = (..)` in SELECT (locking, by the
/// primary key: go-tpc's stock read), UPDATE and DELETE (its Delivery), with 1241 for a
/// column-count mismatch and SQL's NULL semantics.
#[test]
fn row_constructors_and_tuple_in() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    for sql in [
        "CREATE DATABASE d",
        "USE d",
        "CREATE TABLE stock (s_i_id INT NOT NULL, s_w_id INT NOT NULL, s_quantity INT, \
         PRIMARY KEY (s_w_id, s_i_id))",
        "INSERT INTO stock VALUES (1, 1, 10), (2, 1, 20), (3, 1, 30), (1, 2, 40), (2, 2, NULL)",
    ] {
        q(&mut s, sql);
    }
    assert_eq!(
        rows(&mut s, "SELECT s_i_id, s_w_id, s_quantity FROM stock WHERE (s_w_id, s_i_id) IN ((1, 2), (2, 1), (9, 9)) ORDER BY s_quantity"),
        ["2,1,20", "1,2,40"]
    );
    assert_eq!(
        rows(&mut s, "SELECT COUNT(*) FROM stock WHERE (s_w_id, s_i_id) NOT IN ((1, 2), (2, 1))"),
        ["3"]
    );
    assert_eq!(
        rows(&mut s, "SELECT s_quantity FROM stock WHERE (s_w_id, s_i_id) = (1, 3)"),
        ["30"]
    );
    assert_eq!(rows(&mut s, "SELECT COUNT(*) FROM stock WHERE (s_w_id, s_i_id) <> (1, 3)"), ["4"]);
    assert_eq!(
        rows(
            &mut s,
            "SELECT (1, NULL) IN ((1, 2)), (1, 2) IN ((1, 2), (3, 4)), (1, NULL) = (2, 1)"
        ),
        ["NULL,1,0"]
    );
    assert_eq!(
        rows(&mut s, "SELECT (1, NULL) IN ((1, 1), (1, 2)), (1, NULL) = (1, 1)"),
        ["NULL,NULL"]
    );
    let (code, msg) = err(&mut s, "SELECT 1 FROM stock WHERE (s_w_id, s_i_id) IN ((1, 2, 3))");
    assert_eq!((code, msg.as_str()), (1241, "Operand should contain 2 column(s)"));
    assert_eq!(err(&mut s, "SELECT (1, 2)").0, 1241);
    // The locking read locks only the rows named.
    q(&mut s, "BEGIN");
    assert_eq!(
        rows(
            &mut s,
            "SELECT s_quantity FROM stock WHERE (s_w_id, s_i_id) IN ((1, 1), (2, 2)) FOR UPDATE"
        ),
        ["10", "NULL"]
    );
    let mut o = srv.session("root", "localhost");
    q(&mut o, "USE d");
    assert_eq!(
        err(&mut o, "UPDATE stock SET s_quantity = 0 WHERE s_w_id = 1 AND s_i_id = 1").0,
        1205
    );
    q(&mut o, "UPDATE stock SET s_quantity = 31 WHERE s_w_id = 1 AND s_i_id = 3");
    // UPDATE and DELETE by row-constructor IN.
    assert_eq!(
        q(&mut s, "UPDATE stock SET s_quantity = s_quantity + 1 WHERE (s_w_id, s_i_id) IN ((1, 1), (1, 2))").affected_rows(),
        2
    );
    assert_eq!(
        q(&mut s, "DELETE FROM stock WHERE (s_w_id, s_i_id) IN ((2, 2))").affected_rows(),
        1
    );
    q(&mut s, "COMMIT");
    assert_eq!(
        rows(&mut s, "SELECT s_w_id, s_i_id, s_quantity FROM stock"),
        ["1,1,11", "1,2,21", "1,3,31", "2,1,40"]
    );
}

/// Derived tables `FROM (SELECT ...) alias`: materialized, joined like a table, typed from
/// the inner result (SQLAlchemy's `Query.count()` shape), nested, and 1248 without an alias.
#[test]
fn derived_tables_are_materialized() {
    let (_srv, mut s) = setup();
    assert_eq!(
        rows(&mut s, "SELECT COUNT(*) AS count_1 FROM (SELECT a.id AS a_id, a.name AS a_name FROM a WHERE a.country = 'uk') AS anon_1"),
        ["1"]
    );
    let out = q(&mut s, "SELECT t.n, t.c FROM (SELECT author_id AS n, COUNT(*) AS c FROM b GROUP BY author_id) t WHERE t.c > 1");
    assert_eq!(out.column_names(), ["n", "c"]);
    assert_eq!(out.text_rows(), [["1", "2"]]);
    let Output::Rows { columns, .. } = &out else { panic!() };
    assert_eq!((columns[0].table.as_str(), columns[0].schema.as_str()), ("t", ""));
    assert_eq!(
        rows(&mut s, "SELECT a.name, t.c FROM a JOIN (SELECT author_id, COUNT(*) AS c FROM b GROUP BY author_id) AS t ON t.author_id = a.id ORDER BY a.id"),
        ["ann,2", "bob,1"]
    );
    assert_eq!(
        rows(&mut s, "SELECT MAX(x.y) FROM (SELECT t.year AS y FROM (SELECT b.year FROM a JOIN b ON b.author_id = a.id) AS t) AS x"),
        ["2003"]
    );
    assert_eq!(rows(&mut s, "SELECT * FROM (SELECT name FROM a WHERE id = 1) AS t"), ["ann"]);
    assert_eq!(err(&mut s, "SELECT * FROM (SELECT 1) JOIN a").0, 1248);
    let st =
        s.prepare("SELECT COUNT(*) FROM (SELECT id FROM b WHERE year = ?) AS t").expect("prepares");
    assert_eq!(st.columns.len(), 1);
    let out = s.execute(&st, &[Value::Int(2001)]).expect("runs");
    assert_eq!(out.text_rows(), [["2"]]);
}

/// EXPLAIN of a join: one row per table in join order, each with the access the executor
/// runs (mysqld 8.0's traditional format): a const table first, an index lookup fed by it,
/// a table without a usable index joined through the join buffer.
#[test]
fn explain_shows_each_join_step() {
    let (_srv, mut s) = setup();
    // a is a const table (its primary key bound by a constant), so the key of b is fed by a
    // constant; b's by_author is not unique: ref, and its rows are the table's (no index
    // statistics yet).
    assert_eq!(
        rows(
            &mut s,
            "EXPLAIN SELECT a.name, b.title FROM b JOIN a ON b.author_id = a.id WHERE a.id = 1"
        ),
        [
            "1,SIMPLE,a,NULL,const,PRIMARY,PRIMARY,4,const,1,100,NULL",
            "1,SIMPLE,b,NULL,ref,by_author,by_author,5,const,4,100,NULL",
        ]
    );
    assert_eq!(
        rows(&mut s, "EXPLAIN SELECT * FROM a, g WHERE g.tag = a.country"),
        [
            "1,SIMPLE,a,NULL,ALL,NULL,NULL,NULL,NULL,3,100,NULL",
            "1,SIMPLE,g,NULL,ALL,NULL,NULL,NULL,NULL,4,100,Using where; Using join buffer (hash join)",
        ]
    );
    // Lookups fed by earlier tables' columns; an outer join's ON term the key does not serve.
    assert_eq!(
        rows(
            &mut s,
            "EXPLAIN SELECT * FROM g JOIN b ON b.id = g.book_id \
             LEFT JOIN a ON a.id = b.author_id AND a.country = 'uk'"
        ),
        [
            "1,SIMPLE,g,NULL,ALL,NULL,NULL,NULL,NULL,4,100,NULL",
            "1,SIMPLE,b,NULL,eq_ref,PRIMARY,PRIMARY,4,d.g.book_id,1,100,NULL",
            "1,SIMPLE,a,NULL,eq_ref,PRIMARY,PRIMARY,4,d.b.author_id,1,10,Using where",
        ]
    );
    // EXPLAIN needs what the statement needs.
    assert_eq!(err(&mut s, "EXPLAIN SELECT * FROM a JOIN nope ON 1").0, 1146);
}

/// FOR SHARE over a join takes shared locks: another reader's FOR SHARE of the same rows
/// goes on, a writer waits (1205 here) until the join's transaction ends.
#[test]
fn for_share_over_a_join_takes_shared_locks() {
    let (srv, mut s) = setup();
    let mut other = srv.session("root", "localhost");
    q(&mut other, "USE d");
    q(&mut s, "BEGIN");
    assert_eq!(
        rows(
            &mut s,
            "SELECT a.name, b.title FROM a JOIN b ON b.author_id = a.id WHERE a.id = 2 FOR SHARE"
        ),
        ["bob,gamma"]
    );
    q(&mut other, "BEGIN");
    assert_eq!(rows(&mut other, "SELECT name FROM a WHERE id = 2 FOR SHARE"), ["bob"]);
    q(&mut other, "ROLLBACK");
    assert_eq!(err(&mut other, "UPDATE a SET name = 'bo' WHERE id = 2").0, 1205);
    q(&mut s, "COMMIT");
    q(&mut other, "UPDATE a SET name = 'bo' WHERE id = 2");
}
