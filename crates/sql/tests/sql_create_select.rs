//! CREATE TABLE ... SELECT (issue 20): column types derived from the SELECT as mysqld
//! derives them (`create_table_from_items`), the CREATE part's columns and keys first,
//! IGNORE / REPLACE on duplicate keys, IF NOT EXISTS, atomicity (a failing SELECT or row
//! leaves no table), and what is handed to the committer: one DDL transaction carrying the
//! generated `CREATE TABLE ... START TRANSACTION` and the rows. Expected answers are mysqld
//! 8.0's (manual, "CREATE TABLE ... SELECT Statement").

mod common;
#[path = "support/recording.rs"]
mod recording;

use common::{err, q, rows, server};

use sql::{Hooks, Server, Session};

fn setup(s: &mut Session) {
    q(s, "CREATE DATABASE d");
    q(s, "USE d");
    q(s, "CREATE TABLE src (id INT PRIMARY KEY, a INT NOT NULL, b VARCHAR(10), p DECIMAL(7,2))");
    q(s, "INSERT INTO src VALUES (1, 10, 'one', 1.50), (2, 20, 'two', NULL), (3, 20, NULL, 3)");
}

fn create_text(s: &mut Session, t: &str) -> String {
    rows(s, &format!("SHOW CREATE TABLE {t}"))[0][1].clone()
}

#[test]
fn columns_come_from_the_select_and_rows_are_copied() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    let out = q(&mut s, "CREATE TABLE c AS SELECT id, a, b, p FROM src WHERE id < 3");
    match out {
        sql::Output::Ok { affected_rows, info, .. } => {
            assert_eq!(affected_rows, 2);
            assert_eq!(info, "Records: 2  Duplicates: 0  Warnings: 0");
        }
        o => panic!("{o:?}"),
    }
    assert_eq!(
        rows(&mut s, "SELECT * FROM c ORDER BY id"),
        vec![vec!["1", "10", "one", "1.50"], vec!["2", "20", "two", "NULL"]]
    );
    // Columns of a table keep their definition; no key is copied (mysqld's rule).
    let text = create_text(&mut s, "c");
    assert!(text.contains("`id` int NOT NULL"), "{text}");
    assert!(text.contains("`a` int NOT NULL"), "{text}");
    assert!(text.contains("`b` varchar(10)"), "{text}");
    assert!(text.contains("`p` decimal(7,2) DEFAULT NULL"), "{text}");
    assert!(!text.contains("PRIMARY KEY"), "{text}");
}

#[test]
fn expressions_get_mysqld_types() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    q(
        &mut s,
        "CREATE TABLE e SELECT 1 AS i, 12345678901 AS big, 2.5 AS d, 'abc' AS s, \
         NULL AS n, 1e0 AS f, CONCAT(b, 'x') AS c FROM src",
    );
    let text = create_text(&mut s, "e");
    assert!(text.contains("`i` int NOT NULL"), "{text}");
    assert!(text.contains("`big` bigint NOT NULL"), "{text}");
    assert!(text.contains("`d` decimal(2,1) NOT NULL"), "{text}");
    assert!(text.contains("`s` varchar(3)"), "{text}");
    assert!(text.contains("`n` binary(0) DEFAULT NULL"), "{text}");
    assert!(text.contains("`f` double NOT NULL"), "{text}");
    assert!(text.contains("`c` varchar("), "{text}");
    assert_eq!(rows(&mut s, "SELECT COUNT(*), MAX(c) FROM e"), vec![vec!["3", "twox"]]);
}

#[test]
fn create_part_columns_and_keys_come_first() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    q(
        &mut s,
        "CREATE TABLE k (n INT AUTO_INCREMENT PRIMARY KEY, a BIGINT, UNIQUE KEY (b)) \
         SELECT a, b FROM src ORDER BY id",
    );
    assert_eq!(
        rows(&mut s, "SELECT * FROM k ORDER BY n"),
        vec![vec!["1", "10", "one"], vec!["2", "20", "two"], vec!["3", "20", "NULL"]]
    );
    let text = create_text(&mut s, "k");
    assert!(text.contains("`a` bigint DEFAULT NULL"), "{text}");
    assert!(text.contains("UNIQUE KEY `b` (`b`)"), "{text}");
    // AUTO_INCREMENT continues after the rows.
    q(&mut s, "INSERT INTO k (a) VALUES (99)");
    assert_eq!(rows(&mut s, "SELECT n FROM k WHERE a = 99"), vec![vec!["4"]]);
}

#[test]
fn duplicates_fail_or_are_ignored_or_replaced() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    let e = err(&mut s, "CREATE TABLE k1 (PRIMARY KEY (a)) SELECT a, id FROM src ORDER BY id");
    assert_eq!(e.code(), 1062, "{e}");
    // Atomic: nothing was created.
    assert_eq!(err(&mut s, "SELECT * FROM k1").code(), 1146);
    let out =
        q(&mut s, "CREATE TABLE k2 (PRIMARY KEY (a)) IGNORE SELECT a, id FROM src ORDER BY id");
    assert!(
        matches!(&out, sql::Output::Ok { affected_rows: 2, info, .. }
        if info == "Records: 2  Duplicates: 1  Warnings: 1"),
        "{out:?}"
    );
    assert_eq!(rows(&mut s, "SHOW WARNINGS")[0][1], "1062");
    assert_eq!(
        rows(&mut s, "SELECT a, id FROM k2 ORDER BY a"),
        vec![vec!["10", "1"], vec!["20", "2"]]
    );
    q(&mut s, "CREATE TABLE k3 (PRIMARY KEY (a)) REPLACE SELECT a, id FROM src ORDER BY id");
    assert_eq!(
        rows(&mut s, "SELECT a, id FROM k3 ORDER BY a"),
        vec![vec!["10", "1"], vec!["20", "3"]]
    );
}

#[test]
fn failures_leave_no_table_and_if_not_exists_is_a_no_op() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    // A failing SELECT.
    assert_eq!(err(&mut s, "CREATE TABLE f SELECT nope FROM src").code(), 1054);
    assert_eq!(err(&mut s, "SELECT * FROM f").code(), 1146);
    // A row that does not convert into the CREATE part's column (strict mode).
    assert_eq!(err(&mut s, "CREATE TABLE f (b INT) SELECT b FROM src").code(), 1366);
    assert_eq!(err(&mut s, "SELECT * FROM f").code(), 1146);
    // Duplicate column names in the SELECT.
    assert_eq!(err(&mut s, "CREATE TABLE f SELECT a, a FROM src").code(), 1060);
    // An existing table: 1050, or a note and nothing inserted with IF NOT EXISTS.
    q(&mut s, "CREATE TABLE g SELECT id FROM src");
    assert_eq!(err(&mut s, "CREATE TABLE g SELECT id FROM src").code(), 1050);
    q(&mut s, "CREATE TABLE IF NOT EXISTS g SELECT id FROM src");
    assert_eq!(rows(&mut s, "SHOW WARNINGS")[0][1], "1050");
    assert_eq!(rows(&mut s, "SELECT COUNT(*) FROM g"), vec![vec!["3"]]);
    // Reading a view, a join, a UNION.
    q(&mut s, "CREATE TABLE j SELECT s1.id, s2.a FROM src s1 JOIN src s2 ON s1.id = s2.id");
    assert_eq!(rows(&mut s, "SELECT COUNT(*) FROM j"), vec![vec!["3"]]);
    q(&mut s, "CREATE TABLE un SELECT id FROM src UNION SELECT a FROM src");
    assert_eq!(rows(&mut s, "SELECT COUNT(*) FROM un"), vec![vec!["5"]]);
}

#[test]
fn start_transaction_form_creates_and_opens_a_transaction() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    // What mysqld logs for CREATE TABLE ... SELECT, as a replica or a binlog replay runs it.
    q(&mut s, "CREATE TABLE st (`x` int DEFAULT NULL) START TRANSACTION");
    q(&mut s, "INSERT INTO st VALUES (1)");
    q(&mut s, "ROLLBACK");
    assert_eq!(rows(&mut s, "SELECT COUNT(*) FROM st"), vec![vec!["0"]]);
}

#[test]
fn the_committer_gets_the_generated_definition_and_the_rows_in_one_transaction() {
    let engine = common::engine();
    let rec = recording::Recording::new(&engine);
    let hooks = Hooks { committer: rec.clone(), ..Hooks::without_binlog(&engine) };
    let srv = Server::open(engine, hooks, &[]).expect("server");
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    rec.ddl.lock().unwrap().clear();
    rec.commits.lock().unwrap().clear();
    q(&mut s, "CREATE TABLE c SELECT id, b FROM src WHERE id <= 2");
    let ddl = rec.ddl.lock().unwrap().clone();
    assert_eq!(ddl.len(), 1);
    assert_eq!(
        ddl[0].1,
        "CREATE TABLE `c` (\n  `id` int NOT NULL,\n  `b` varchar(10) DEFAULT NULL\n) \
         ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci START TRANSACTION"
    );
    let commits = rec.commits.lock().unwrap().clone();
    assert_eq!(commits.len(), 1);
    let changes = &commits[0].0.changes;
    assert_eq!(changes.len(), 2);
    assert!(changes.iter().all(|c| c.kind == sql::ChangeKind::Insert && c.table.name == "d.c"));
    // A failure hands nothing over.
    let _ = err(&mut s, "CREATE TABLE f SELECT nope FROM src");
    assert_eq!(rec.ddl.lock().unwrap().len(), 1);
}

#[test]
fn privileges_are_create_and_insert_on_the_table_and_select_on_the_sources() {
    let srv = server();
    let _accounts = common::attach_accounts(&srv);
    let mut root = srv.session("root", "localhost");
    setup(&mut root);
    q(&mut root, "CREATE USER 'app'@'%' IDENTIFIED BY 'pw'");
    q(&mut root, "GRANT CREATE ON d.* TO 'app'@'%'");
    let mut app = srv.session("app", "10.0.0.1");
    // CREATE alone: INSERT on the new table is missing (1142).
    assert_eq!(err(&mut app, "CREATE TABLE d.n SELECT id FROM d.src").code(), 1142);
    q(&mut root, "GRANT INSERT ON d.* TO 'app'@'%'");
    let mut app = srv.session("app", "10.0.0.1");
    // SELECT on the source is missing.
    assert_eq!(err(&mut app, "CREATE TABLE d.n SELECT id FROM d.src").code(), 1142);
    q(&mut root, "GRANT SELECT ON d.src TO 'app'@'%'");
    let mut app = srv.session("app", "10.0.0.1");
    q(&mut app, "CREATE TABLE d.n SELECT id FROM d.src");
    assert_eq!(rows(&mut root, "SELECT COUNT(*) FROM d.n"), vec![vec!["3"]]);
}
