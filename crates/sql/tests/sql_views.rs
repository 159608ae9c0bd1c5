//! Views at the SQL layer (issue 20): CREATE / ALTER / DROP VIEW, views in queries (joins,
//! subqueries, nested views, column lists), their metadata (SHOW CREATE VIEW, SHOW FULL
//! TABLES, DESCRIBE, information_schema.VIEWS / TABLES / COLUMNS), privileges (CREATE VIEW,
//! SHOW VIEW, DROP, SQL SECURITY DEFINER / INVOKER), and mysqld's error numbers. Expected
//! answers are mysqld 8.0's (manual, "CREATE VIEW Statement", "Restrictions on Views";
//! sql_view.cc).

mod common;

use common::{attach_accounts, err, q, rows, server};

use sql::Session;

fn setup(s: &mut Session) {
    q(s, "CREATE DATABASE d");
    q(s, "USE d");
    q(s, "CREATE TABLE t (id INT PRIMARY KEY, a INT NOT NULL, b VARCHAR(10))");
    q(s, "INSERT INTO t VALUES (1, 10, 'one'), (2, 20, 'two'), (3, 30, NULL)");
    q(s, "CREATE TABLE u (id INT PRIMARY KEY, t_id INT, note VARCHAR(20))");
    q(s, "INSERT INTO u VALUES (100, 1, 'x'), (101, 1, 'y'), (102, 3, 'z')");
}

fn one(s: &mut Session, sql: &str) -> Vec<Vec<String>> {
    rows(s, sql)
}

fn row(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

#[test]
fn a_view_reads_like_its_select_in_every_query_shape() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    q(&mut s, "CREATE VIEW v AS SELECT id, a * 2 AS a2, b FROM t WHERE a > 10");
    assert_eq!(
        one(&mut s, "SELECT * FROM v ORDER BY id"),
        vec![row(&["2", "40", "two"]), row(&["3", "60", "NULL"])]
    );
    assert_eq!(one(&mut s, "SELECT a2 FROM v WHERE id = 3"), vec![row(&["60"])]);
    assert_eq!(one(&mut s, "SELECT COUNT(*), SUM(a2) FROM v"), vec![row(&["2", "100"])]);
    // Joined with a table, qualified by the view's name or an alias.
    assert_eq!(
        one(&mut s, "SELECT v.id, u.note FROM v JOIN u ON u.t_id = v.id ORDER BY u.id"),
        vec![row(&["3", "z"])]
    );
    assert_eq!(
        one(&mut s, "SELECT x.id FROM u LEFT JOIN v AS x ON x.id = u.t_id ORDER BY u.id"),
        vec![row(&["NULL"]), row(&["NULL"]), row(&["3"])]
    );
    // In a subquery and a derived table.
    assert_eq!(
        one(&mut s, "SELECT id FROM t WHERE id IN (SELECT id FROM v) ORDER BY id"),
        vec![row(&["2"]), row(&["3"])]
    );
    assert_eq!(one(&mut s, "SELECT MAX(m.a2) FROM (SELECT a2 FROM v) m"), vec![row(&["60"])]);
    // Nested views, a column list, and a view from another database's session.
    q(&mut s, "CREATE VIEW w (ident, doubled) AS SELECT id, a2 FROM v WHERE id < 3");
    assert_eq!(one(&mut s, "SELECT ident, doubled FROM w"), vec![row(&["2", "40"])]);
    q(&mut s, "CREATE VIEW star (p, q, r) AS SELECT * FROM t WHERE id = 1");
    assert_eq!(one(&mut s, "SELECT r, p FROM star"), vec![row(&["one", "1"])]);
    q(&mut s, "CREATE DATABASE other");
    q(&mut s, "USE other");
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM d.w"), vec![row(&["1"])]);
    // INSERT ... SELECT from a view, and a prepared statement over one.
    q(&mut s, "USE d");
    q(&mut s, "CREATE TABLE copy (id INT PRIMARY KEY, a2 INT)");
    q(&mut s, "INSERT INTO copy SELECT id, a2 FROM v");
    assert_eq!(one(&mut s, "SELECT SUM(a2) FROM copy"), vec![row(&["100"])]);
    let p = s.prepare("SELECT b FROM v WHERE id = ?").expect("prepare");
    assert_eq!(p.columns.len(), 1);
    let out = s.execute(&p, &[engine::Value::Int(2)]).expect("execute");
    assert_eq!(out.text_rows(), vec![row(&["two"])]);
    // The view sees later changes of its table.
    q(&mut s, "UPDATE t SET a = 50 WHERE id = 1");
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM v"), vec![row(&["3"])]);
}

#[test]
fn ddl_errors_are_mysqlds() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    q(&mut s, "CREATE VIEW v AS SELECT id FROM t");
    // The table namespace is shared.
    assert_eq!(err(&mut s, "CREATE VIEW v AS SELECT 1").code(), 1050);
    assert_eq!(err(&mut s, "CREATE VIEW t AS SELECT 1").code(), 1050);
    assert_eq!(err(&mut s, "CREATE TABLE v (x INT)").code(), 1050);
    assert_eq!(err(&mut s, "CREATE OR REPLACE VIEW t AS SELECT 1").code(), 1347);
    assert_eq!(err(&mut s, "ALTER VIEW t AS SELECT 1").code(), 1347);
    assert_eq!(err(&mut s, "ALTER VIEW nope AS SELECT 1").code(), 1146);
    assert_eq!(err(&mut s, "DROP VIEW t").code(), 1347);
    assert_eq!(err(&mut s, "DROP VIEW nope, v").code(), 1051);
    // The failed DROP dropped nothing.
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM v"), vec![row(&["3"])]);
    assert_eq!(err(&mut s, "DROP TABLE v").code(), 1051);
    assert_eq!(err(&mut s, "ALTER TABLE v ADD COLUMN z INT").code(), 1347);
    // The SELECT must resolve; column lists must match it; names must be distinct.
    assert_eq!(err(&mut s, "CREATE VIEW bad AS SELECT * FROM missing").code(), 1146);
    assert_eq!(err(&mut s, "CREATE VIEW bad AS SELECT nope FROM t").code(), 1054);
    assert_eq!(err(&mut s, "CREATE VIEW bad (x, y) AS SELECT id FROM t").code(), 1353);
    assert_eq!(err(&mut s, "CREATE VIEW bad AS SELECT id, a AS id FROM t").code(), 1060);
    assert_eq!(
        err(&mut s, "CREATE VIEW bad AS SELECT COUNT(*) FROM t WITH CHECK OPTION").code(),
        1368
    );
    // Writes through a view that is not updatable are refused (sql_views_write.rs has the
    // rest): an aggregate view.
    q(&mut s, "CREATE VIEW agg AS SELECT COUNT(*) AS n FROM t");
    assert_eq!(err(&mut s, "INSERT INTO agg VALUES (9)").code(), 1471);
    assert_eq!(err(&mut s, "UPDATE agg SET n = 2").code(), 1288);
    assert_eq!(err(&mut s, "DELETE FROM agg").code(), 1288);
    // A view whose table went away is invalid (1356); a cycle is 1462.
    q(&mut s, "CREATE TABLE gone (x INT)");
    q(&mut s, "CREATE VIEW vg AS SELECT x FROM gone");
    q(&mut s, "DROP TABLE gone");
    assert_eq!(err(&mut s, "SELECT * FROM vg").code(), 1146);
    assert_eq!(err(&mut s, "DESCRIBE vg").code(), 1356);
    q(&mut s, "CREATE VIEW c1 AS SELECT id FROM v");
    q(&mut s, "CREATE VIEW c2 AS SELECT id FROM c1");
    // Replacing c1 by a SELECT of c2 would close a cycle: refused (1462), c1 unchanged.
    assert_eq!(err(&mut s, "CREATE OR REPLACE VIEW c1 AS SELECT id FROM c2").code(), 1462);
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM c2"), vec![row(&["3"])]);
    // DROP VIEW IF EXISTS notes the missing ones and drops the rest.
    q(&mut s, "DROP VIEW IF EXISTS nope, c1, c2");
    assert_eq!(one(&mut s, "SHOW WARNINGS")[0][1], "1051");
    assert_eq!(err(&mut s, "SELECT * FROM c1").code(), 1146);
    // DROP DATABASE takes its views with it.
    q(&mut s, "DROP DATABASE d");
    q(&mut s, "CREATE DATABASE d");
    q(&mut s, "USE d");
    q(&mut s, "CREATE TABLE v (x INT)");
}

#[test]
fn metadata_shows_views_as_mysqld_does() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    q(&mut s, "CREATE VIEW v (k, doubled) AS SELECT id, a * 2 FROM t WITH LOCAL CHECK OPTION");
    let shown = one(&mut s, "SHOW CREATE VIEW v");
    assert_eq!(
        shown,
        vec![row(&[
            "v",
            "CREATE ALGORITHM=UNDEFINED DEFINER=`root`@`localhost` SQL SECURITY DEFINER VIEW \
             `v` (`k`,`doubled`) AS SELECT id, a * 2 FROM t WITH LOCAL CHECK OPTION",
            "utf8mb4",
            "utf8mb4_0900_ai_ci",
        ])]
    );
    assert_eq!(one(&mut s, "SHOW CREATE TABLE v"), shown);
    assert_eq!(err(&mut s, "SHOW CREATE VIEW t").code(), 1347);
    assert_eq!(
        one(&mut s, "SHOW FULL TABLES"),
        vec![row(&["t", "BASE TABLE"]), row(&["u", "BASE TABLE"]), row(&["v", "VIEW"])]
    );
    let status = one(&mut s, "SHOW TABLE STATUS LIKE 'v'");
    assert_eq!((status[0][0].as_str(), status[0][1].as_str()), ("v", "NULL"));
    assert_eq!(status[0][17], "VIEW");
    let desc = one(&mut s, "DESCRIBE v");
    assert_eq!(desc.len(), 2);
    assert_eq!(desc[0][0], "k");
    assert_eq!(desc[0][2], "NO");
    assert_eq!(desc[1][0], "doubled");
    assert_eq!(
        one(
            &mut s,
            "SELECT TABLE_NAME, VIEW_DEFINITION, CHECK_OPTION, IS_UPDATABLE, DEFINER, \
             SECURITY_TYPE FROM information_schema.VIEWS WHERE TABLE_SCHEMA = 'd'"
        ),
        vec![row(&["v", "SELECT id, a * 2 FROM t", "LOCAL", "YES", "root@localhost", "DEFINER"])]
    );
    assert_eq!(
        one(
            &mut s,
            "SELECT TABLE_NAME, TABLE_TYPE, ENGINE, TABLE_COMMENT FROM information_schema.TABLES \
             WHERE TABLE_SCHEMA = 'd' ORDER BY TABLE_NAME"
        ),
        vec![
            row(&["t", "BASE TABLE", "InnoDB", ""]),
            row(&["u", "BASE TABLE", "InnoDB", ""]),
            row(&["v", "VIEW", "NULL", "VIEW"]),
        ]
    );
    assert_eq!(
        one(
            &mut s,
            "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'd' \
             AND TABLE_NAME = 'v' ORDER BY ORDINAL_POSITION"
        ),
        vec![row(&["k"]), row(&["doubled"])]
    );
    // ALTER VIEW replaces the definition (the options not given go back to the defaults).
    q(&mut s, "ALTER SQL SECURITY INVOKER VIEW v AS SELECT b FROM t");
    assert_eq!(
        one(&mut s, "SHOW CREATE VIEW v")[0][1],
        "CREATE ALGORITHM=UNDEFINED DEFINER=`root`@`localhost` SQL SECURITY INVOKER VIEW `v` \
         AS SELECT b FROM t"
    );
    assert_eq!(one(&mut s, "SELECT COUNT(b) FROM v"), vec![row(&["2"])]);
}

#[test]
fn privileges_follow_mysqld() {
    let srv = server();
    let _dir = attach_accounts(&srv);
    let mut root = srv.session("root", "localhost");
    setup(&mut root);
    q(&mut root, "CREATE USER 'app'@'%' IDENTIFIED BY 'pw'");
    q(&mut root, "CREATE USER 'viewer'@'%' IDENTIFIED BY 'pw'");
    q(&mut root, "GRANT SELECT ON d.t TO 'app'@'%'");
    let mut app = srv.session("app", "10.0.0.1");
    q(&mut app, "USE d");
    // CREATE VIEW needs the CREATE VIEW privilege.
    assert_eq!(err(&mut app, "CREATE VIEW av AS SELECT id FROM t").code(), 1142);
    q(&mut root, "GRANT CREATE VIEW ON d.* TO 'app'@'%'");
    let mut app = srv.session("app", "10.0.0.1");
    q(&mut app, "USE d");
    // ... and SELECT on what the view reads.
    assert_eq!(err(&mut app, "CREATE VIEW av AS SELECT id FROM u").code(), 1142);
    q(&mut app, "CREATE VIEW av AS SELECT id, a FROM t");
    q(&mut app, "CREATE SQL SECURITY INVOKER VIEW iv AS SELECT id FROM t");
    // Another definer needs SUPER.
    assert_eq!(
        err(&mut app, "CREATE DEFINER = 'root'@'localhost' VIEW rv AS SELECT 1").code(),
        1227
    );
    // A reader with SELECT on the view only: DEFINER views run with the definer's rights,
    // INVOKER views with the reader's.
    q(&mut root, "GRANT SELECT ON d.av TO 'viewer'@'%'");
    q(&mut root, "GRANT SELECT ON d.iv TO 'viewer'@'%'");
    let mut viewer = srv.session("viewer", "10.0.0.2");
    q(&mut viewer, "USE d");
    assert_eq!(one(&mut viewer, "SELECT COUNT(*) FROM av"), vec![row(&["3"])]);
    assert_eq!(err(&mut viewer, "SELECT COUNT(*) FROM iv").code(), 1142);
    assert_eq!(err(&mut viewer, "SELECT * FROM t").code(), 1142);
    // SHOW CREATE VIEW needs SHOW VIEW; DROP VIEW needs DROP.
    assert_eq!(err(&mut viewer, "SHOW CREATE VIEW av").code(), 1142);
    assert_eq!(err(&mut viewer, "DROP VIEW av").code(), 1142);
    // The definer losing its rights makes the view invalid for everyone (1356).
    q(&mut root, "REVOKE SELECT ON d.t FROM 'app'@'%'");
    let mut viewer = srv.session("viewer", "10.0.0.2");
    q(&mut viewer, "USE d");
    assert_eq!(err(&mut viewer, "SELECT COUNT(*) FROM av").code(), 1356);
}

#[test]
fn a_view_body_may_be_a_query_expression() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    q(&mut s, "CREATE VIEW un AS SELECT id FROM t WHERE id < 3 UNION SELECT t_id FROM u");
    assert_eq!(
        one(&mut s, "SELECT id FROM un ORDER BY id"),
        vec![row(&["1"]), row(&["2"]), row(&["3"])]
    );
    q(&mut s, "CREATE VIEW ua (k) AS SELECT id FROM t UNION ALL SELECT t_id FROM u");
    assert_eq!(one(&mut s, "SELECT COUNT(*), SUM(k) FROM ua"), vec![row(&["6", "11"])]);
    assert_eq!(
        one(&mut s, "SELECT u.note FROM u JOIN un ON un.id = u.t_id WHERE un.id = 3"),
        vec![row(&["z"])]
    );
    // A parenthesised body with ORDER BY and LIMIT over the whole expression.
    q(&mut s, "CREATE VIEW ul AS (SELECT id FROM t) UNION (SELECT 7) ORDER BY id DESC LIMIT 2");
    assert_eq!(one(&mut s, "SELECT * FROM ul"), vec![row(&["7"]), row(&["3"])]);
    // Its column list must match the expression's width (1353); its columns show.
    assert_eq!(
        err(&mut s, "CREATE VIEW bad (x, y) AS SELECT id FROM t UNION SELECT 1").code(),
        1353
    );
    assert_eq!(
        one(&mut s, "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_NAME = 'ua'"),
        vec![row(&["k"])]
    );
    // A UNION view is not updatable (mysqld: `LEX::can_be_merged` is false for a union),
    // so a CHECK OPTION on it is 1368, and a write through it is refused.
    assert_eq!(
        err(&mut s, "CREATE VIEW uc AS SELECT id FROM t UNION SELECT 1 WITH CHECK OPTION").code(),
        1368
    );
    assert_eq!(
        one(&mut s, "SELECT IS_UPDATABLE FROM information_schema.VIEWS WHERE TABLE_NAME = 'un'"),
        vec![row(&["NO"])]
    );
    assert_eq!(err(&mut s, "INSERT INTO un VALUES (9)").code(), 1471);
    assert_eq!(err(&mut s, "DELETE FROM un").code(), 1288);
}
