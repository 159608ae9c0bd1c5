//! Writes built on the query layer (issue 20): INSERT/REPLACE ... SELECT (joins, a SELECT of
//! the target itself, IGNORE, ON DUPLICATE KEY UPDATE with VALUES()), multi-table UPDATE and
//! DELETE (each row changed once, ORDER BY/LIMIT refused with 1221, privileges per table),
//! and INSERT ... ON DUPLICATE KEY UPDATE with the 8.0.19 row alias. Each case checks the
//! rows, the affected counts and info line, and the row changes the committer receives (the
//! row events the binlog writes).

#[path = "support/recording.rs"]
mod recording;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use engine::{Engine, EngineConfig};
use recording::Recording;
use sql::{ChangeKind, Hooks, Output, Server, Session};

fn server() -> (Arc<Server>, Arc<Recording>) {
    let vfs = vfs::SimVfs::new().shared();
    let cfg = EngineConfig {
        checkpoint_redo_bytes: None,
        lock_wait_timeout: Duration::from_millis(300),
        ..EngineConfig::default()
    };
    let e: Engine = Engine::open(vfs, Path::new("/data"), cfg).expect("engine opens").0;
    let rec = Recording::new(&e);
    let hooks = Hooks { committer: rec.clone(), ..Hooks::without_binlog(&e) };
    (Server::open(e, hooks, &[]).expect("server opens"), rec)
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

/// (affected rows, info) of an OK answer.
fn ok(s: &mut Session, sql: &str) -> (u64, String) {
    match q(s, sql) {
        Output::Ok { affected_rows, info, .. } => (affected_rows, info),
        o => panic!("{sql}: {o:?}"),
    }
}

/// The row changes of the last committed transaction: (kind, table, before, after), images
/// as debug text.
fn last_changes(rec: &Recording) -> Vec<String> {
    let all = rec.changes();
    let last = all.last().expect("a commit");
    last.changes
        .iter()
        .map(|c| {
            let kind = match c.kind {
                ChangeKind::Insert => "W",
                ChangeKind::Update => "U",
                ChangeKind::Delete => "D",
            };
            let img = |r: &Option<Vec<engine::Value>>| match r {
                None => "-".to_string(),
                Some(r) => r.iter().map(|v| v.to_string()).collect::<Vec<_>>().join("|"),
            };
            format!("{kind} {} {} {}", c.names().1, img(&c.before), img(&c.after))
        })
        .collect()
}

fn setup() -> (Arc<Server>, Arc<Recording>, Session) {
    let (srv, rec) = server();
    let mut s = srv.session("root", "localhost");
    for sql in [
        "CREATE DATABASE d",
        "USE d",
        "CREATE TABLE a (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL, n INT)",
        "CREATE TABLE b (id INT PRIMARY KEY, a_id INT, v INT, KEY k (a_id))",
        "CREATE TABLE t (id INT PRIMARY KEY AUTO_INCREMENT, name VARCHAR(20), total INT, \
         UNIQUE KEY u (name))",
        "CREATE TABLE g (x INT, y INT)",
        "INSERT INTO a VALUES (1, 'ann', 10), (2, 'bob', 20), (3, 'cid', 30)",
        "INSERT INTO b VALUES (10, 1, 5), (11, 1, 6), (12, 2, 7), (13, NULL, 8)",
    ] {
        q(&mut s, sql);
    }
    (srv, rec, s)
}

#[test]
fn insert_select_of_a_join_writes_its_rows() {
    let (_srv, rec, mut s) = setup();
    let (n, info) = ok(
        &mut s,
        "INSERT INTO t (name, total) SELECT a.name, SUM(b.v) FROM a JOIN b ON b.a_id = a.id \
         GROUP BY a.name ORDER BY a.name",
    );
    assert_eq!((n, info.as_str()), (2, "Records: 2  Duplicates: 0  Warnings: 0"));
    assert_eq!(rows(&mut s, "SELECT * FROM t ORDER BY id"), ["1,ann,11", "2,bob,7"]);
    assert_eq!(rows(&mut s, "SELECT LAST_INSERT_ID()"), ["1"]);
    assert_eq!(last_changes(&rec), ["W t - 1|ann|11", "W t - 2|bob|7"]);
    // One row: the info line is still given (mysqld's ER_INSERT_INFO for every INSERT SELECT).
    let (n, info) = ok(&mut s, "INSERT INTO t (name) SELECT 'dan'");
    assert_eq!((n, info.as_str()), (1, "Records: 1  Duplicates: 0  Warnings: 0"));
    // No FROM, all columns, a single table with WHERE.
    assert_eq!(ok(&mut s, "INSERT INTO g SELECT id, n FROM a WHERE n > 10").0, 2);
    assert_eq!(rows(&mut s, "SELECT * FROM g ORDER BY x"), ["2,20", "3,30"]);
    // Column count mismatch: 1136, nothing written.
    assert_eq!(err(&mut s, "INSERT INTO g SELECT id FROM a").0, 1136);
    assert_eq!(err(&mut s, "INSERT INTO g (x) SELECT id, n FROM a").0, 1136);
    assert_eq!(rows(&mut s, "SELECT COUNT(*) FROM g"), ["2"]);
}

#[test]
fn insert_select_of_the_target_reads_it_first() {
    let (_srv, _rec, mut s) = setup();
    q(&mut s, "INSERT INTO g VALUES (1, 1), (2, 2)");
    assert_eq!(ok(&mut s, "INSERT INTO g SELECT x + 10, y FROM g").0, 2);
    assert_eq!(ok(&mut s, "INSERT INTO g SELECT x + 100, y FROM g").0, 4);
    assert_eq!(rows(&mut s, "SELECT COUNT(*), SUM(x) FROM g"), ["8,452"]);
}

#[test]
fn insert_ignore_and_replace_select_handle_duplicates() {
    let (_srv, rec, mut s) = setup();
    q(&mut s, "INSERT INTO t VALUES (1, 'ann', 0)");
    let (n, info) = ok(&mut s, "INSERT IGNORE INTO t (name, total) SELECT name, n FROM a");
    assert_eq!((n, info.as_str()), (2, "Records: 3  Duplicates: 1  Warnings: 1"));
    let w = rows(&mut s, "SHOW WARNINGS");
    assert_eq!(w, ["Warning,1062,Duplicate entry 'ann' for key 'u'"]);
    // Without IGNORE the duplicate fails the statement, which changes nothing.
    let before = rows(&mut s, "SELECT * FROM t ORDER BY id");
    assert_eq!(err(&mut s, "INSERT INTO t (name, total) SELECT name, n + 1 FROM a").0, 1062);
    assert_eq!(rows(&mut s, "SELECT * FROM t ORDER BY id"), before);
    // REPLACE: each duplicate deletes the old row (2 affected each).
    let (n, info) = ok(&mut s, "REPLACE INTO t (id, name, total) SELECT id, name, n FROM a");
    assert_eq!(info, "Records: 3  Duplicates: 3  Warnings: 0");
    assert_eq!(n, 6);
    assert_eq!(rows(&mut s, "SELECT * FROM t ORDER BY id"), ["1,ann,10", "2,bob,20", "3,cid,30"]);
    let ch = last_changes(&rec);
    assert_eq!(ch.len(), 6, "{ch:?}");
}

#[test]
fn insert_select_on_duplicate_key_update() {
    let (_srv, rec, mut s) = setup();
    q(&mut s, "INSERT INTO t VALUES (1, 'ann', 1), (2, 'bob', 20)");
    let (n, info) = ok(
        &mut s,
        "INSERT INTO t (id, name, total) SELECT id, name, n FROM a \
         ON DUPLICATE KEY UPDATE total = total + VALUES(total)",
    );
    // ann and bob updated (2 each), cid inserted (1).
    assert_eq!((n, info.as_str()), (5, "Records: 3  Duplicates: 2  Warnings: 0"));
    assert_eq!(
        rows(&mut s, "SELECT name, total FROM t ORDER BY name"),
        ["ann,11", "bob,40", "cid,30"]
    );
    assert_eq!(
        last_changes(&rec),
        ["U t 1|ann|1 1|ann|11", "U t 2|bob|20 2|bob|40", "W t - 3|cid|30"]
    );
    // A name both the target and the SELECT's tables have is ambiguous (1052), as mysqld.
    assert_eq!(
        err(
            &mut s,
            "INSERT INTO t (id, name) SELECT id, name FROM a ON DUPLICATE KEY UPDATE name = CONCAT(name, 'x')"
        )
        .0,
        1052
    );
    // An assignment that changes nothing counts 0.
    let (n, _) = ok(
        &mut s,
        "INSERT INTO t (name, total) SELECT name, n FROM a WHERE id = 3 \
         ON DUPLICATE KEY UPDATE total = VALUES(total)",
    );
    assert_eq!(n, 0);
}

#[test]
fn on_duplicate_key_update_with_the_row_alias() {
    let (_srv, _rec, mut s) = setup();
    q(&mut s, "INSERT INTO t VALUES (1, 'ann', 1)");
    assert_eq!(
        ok(&mut s, "INSERT INTO t VALUES (1, 'ann', 5) AS new ON DUPLICATE KEY UPDATE total = total + new.total").0,
        2
    );
    assert_eq!(rows(&mut s, "SELECT total FROM t"), ["6"]);
    assert_eq!(
        ok(
            &mut s,
            "INSERT INTO t (id, name, total) VALUES (1, 'ann', 7), (2, 'bob', 3) AS n(i, m, x) \
             ON DUPLICATE KEY UPDATE total = x * 10, name = CONCAT(n.m, '!')"
        )
        .0,
        3
    );
    assert_eq!(rows(&mut s, "SELECT * FROM t ORDER BY id"), ["1,ann!,70", "2,bob,3"]);
    // Unchanged: 0; VALUES() still works beside the alias.
    assert_eq!(
        ok(&mut s, "INSERT INTO t VALUES (2, 'bob', 3) AS new ON DUPLICATE KEY UPDATE total = VALUES(total)").0,
        0
    );
    assert_eq!(
        err(
            &mut s,
            "INSERT INTO t VALUES (2, 'bob', 3) AS new ON DUPLICATE KEY UPDATE total = new.nope"
        )
        .0,
        1054
    );
}

#[test]
fn multi_table_update_changes_each_row_once() {
    let (_srv, rec, mut s) = setup();
    // a.id 1 joins two b rows: it is updated once.
    let (n, info) =
        ok(&mut s, "UPDATE a JOIN b ON b.a_id = a.id SET a.n = a.n + 1, b.v = b.v * 10");
    assert_eq!(info, "Rows matched: 5  Changed: 5  Warnings: 0");
    assert_eq!(n, 5);
    assert_eq!(rows(&mut s, "SELECT id, n FROM a ORDER BY id"), ["1,11", "2,21", "3,30"]);
    assert_eq!(
        rows(&mut s, "SELECT id, v FROM b ORDER BY id"),
        ["10,50", "11,60", "12,70", "13,8"]
    );
    assert_eq!(
        last_changes(&rec),
        [
            "U a 1|ann|10 1|ann|11",
            "U a 2|bob|20 2|bob|21",
            "U b 10|1|5 10|1|50",
            "U b 11|1|6 11|1|60",
            "U b 12|2|7 12|2|70",
        ]
    );
    // The comma form with WHERE, and a value from the other table.
    let (n, info) = ok(
        &mut s,
        "UPDATE a, b SET a.name = CONCAT(a.name, b.id) WHERE b.a_id = a.id AND b.v = 70",
    );
    assert_eq!((n, info.as_str()), (1, "Rows matched: 1  Changed: 1  Warnings: 0"));
    assert_eq!(rows(&mut s, "SELECT name FROM a WHERE id = 2"), ["bob12"]);
    // Unchanged rows are matched, not changed.
    let (n, info) = ok(&mut s, "UPDATE a JOIN b ON b.a_id = a.id SET a.n = a.n");
    assert_eq!((n, info.as_str()), (0, "Rows matched: 2  Changed: 0  Warnings: 0"));
    // ORDER BY / LIMIT: 1221.
    assert_eq!(
        err(&mut s, "UPDATE a JOIN b ON b.a_id = a.id SET a.n = 0 LIMIT 1"),
        (1221, "Incorrect usage of UPDATE and LIMIT".into())
    );
    assert_eq!(err(&mut s, "UPDATE a, b SET a.n = 0 ORDER BY a.id").0, 1221);
    // Ambiguous and unknown names.
    assert_eq!(err(&mut s, "UPDATE a JOIN b ON b.a_id = a.id SET id = 1").0, 1052);
    assert_eq!(err(&mut s, "UPDATE a JOIN b ON b.a_id = a.id SET a.nope = 1").0, 1054);
    // A LEFT JOIN's NULL-extended rows change nothing of the inner table.
    let (n, _) =
        ok(&mut s, "UPDATE a LEFT JOIN b ON b.a_id = a.id SET a.n = 0, b.v = 0 WHERE a.id = 3");
    assert_eq!(n, 1);
    assert_eq!(rows(&mut s, "SELECT n FROM a WHERE id = 3"), ["0"]);
}

#[test]
fn multi_table_update_of_a_table_without_key() {
    let (_srv, _rec, mut s) = setup();
    q(&mut s, "INSERT INTO g VALUES (1, 0), (1, 0), (2, 0), (9, 0)");
    let (n, info) = ok(&mut s, "UPDATE g JOIN a ON a.id = g.x SET g.y = a.n");
    assert_eq!((n, info.as_str()), (3, "Rows matched: 3  Changed: 3  Warnings: 0"));
    assert_eq!(rows(&mut s, "SELECT x, y FROM g ORDER BY x, y"), ["1,10", "1,10", "2,20", "9,0"]);
}

#[test]
fn multi_table_delete_in_both_forms() {
    let (_srv, rec, mut s) = setup();
    assert_eq!(ok(&mut s, "DELETE b FROM a JOIN b ON b.a_id = a.id WHERE a.name = 'ann'").0, 2);
    assert_eq!(rows(&mut s, "SELECT id FROM b ORDER BY id"), ["12", "13"]);
    assert_eq!(last_changes(&rec), ["D b 10|1|5 -", "D b 11|1|6 -"]);
    assert_eq!(ok(&mut s, "DELETE FROM a, b USING a JOIN b ON b.a_id = a.id").0, 2);
    assert_eq!(rows(&mut s, "SELECT id FROM a ORDER BY id"), ["1", "3"]);
    assert_eq!(rows(&mut s, "SELECT id FROM b ORDER BY id"), ["13"]);
    // Aliases name the targets.
    assert_eq!(ok(&mut s, "DELETE x FROM a AS x JOIN a AS y ON y.id = x.id + 2").0, 1);
    assert_eq!(rows(&mut s, "SELECT id FROM a"), ["3"]);
    assert_eq!(err(&mut s, "DELETE c FROM a JOIN b ON b.a_id = a.id").0, 1109);
    assert_eq!(err(&mut s, "DELETE a FROM a JOIN b ON b.a_id = a.id LIMIT 1").0, 1064);
}

#[test]
fn privileges_are_per_table() {
    let (srv, _rec, mut s) = setup();
    let dir = tempfile::tempdir().expect("tempdir");
    let (users, _) = accounts::Users::open(dir.path(), true).expect("accounts open");
    srv.attach_accounts(Arc::new(users));
    for sql in [
        "CREATE USER u@localhost",
        "GRANT SELECT ON d.a TO u@localhost",
        "GRANT SELECT, UPDATE ON d.b TO u@localhost",
        "GRANT INSERT ON d.g TO u@localhost",
    ] {
        q(&mut s, sql);
    }
    let mut u = srv.session("u", "localhost");
    q(&mut u, "USE d");
    // UPDATE only on the table changed, SELECT on the one read.
    assert_eq!(ok(&mut u, "UPDATE a JOIN b ON b.a_id = a.id SET b.v = a.n").0, 3);
    assert_eq!(err(&mut u, "UPDATE a JOIN b ON b.a_id = a.id SET a.n = b.v").0, 1142);
    // INSERT on the target, SELECT on the source.
    assert_eq!(ok(&mut u, "INSERT INTO g SELECT id, n FROM a").0, 3);
    assert_eq!(err(&mut u, "INSERT INTO g SELECT id, x FROM g").0, 1142);
    assert_eq!(err(&mut u, "INSERT INTO b SELECT id, id, n FROM a").0, 1142);
    assert_eq!(err(&mut u, "DELETE b FROM a JOIN b ON b.a_id = a.id").0, 1142);
}

#[test]
fn insert_select_locks_its_source_rows_shared() {
    let (srv, _rec, mut s) = setup();
    let mut other = srv.session("root", "localhost");
    q(&mut other, "USE d");
    q(&mut s, "BEGIN");
    q(&mut s, "INSERT INTO g SELECT id, n FROM a WHERE id = 1");
    // Another transaction may read the row shared but not change it.
    assert_eq!(rows(&mut other, "SELECT n FROM a WHERE id = 1 FOR SHARE"), ["10"]);
    assert_eq!(err(&mut other, "UPDATE a SET n = 0 WHERE id = 1").0, 1205);
    q(&mut s, "COMMIT");
    assert_eq!(ok(&mut other, "UPDATE a SET n = 0 WHERE id = 1").0, 1);
}

#[test]
fn multi_table_update_locks_changed_rows_exclusive_and_read_rows_shared() {
    let (srv, _rec, mut s) = setup();
    let mut other = srv.session("root", "localhost");
    q(&mut other, "USE d");
    q(&mut s, "BEGIN");
    q(&mut s, "UPDATE a JOIN b ON b.a_id = a.id SET b.v = a.n WHERE a.id = 2");
    // a's row 2 was only read: shared; b's row 12 changed: exclusive.
    assert_eq!(rows(&mut other, "SELECT n FROM a WHERE id = 2 FOR SHARE"), ["20"]);
    assert_eq!(err(&mut other, "SELECT v FROM b WHERE id = 12 FOR SHARE").0, 1205);
    assert_eq!(err(&mut other, "UPDATE a SET n = 0 WHERE id = 2").0, 1205);
    q(&mut s, "ROLLBACK");
    assert_eq!(rows(&mut other, "SELECT v FROM b WHERE id = 12"), ["7"]);
}

#[test]
fn multi_table_update_errors_roll_back_the_statement_and_ignore_skips() {
    let (_srv, rec, mut s) = setup();
    q(&mut s, "INSERT INTO t VALUES (1, 'ann', 0), (2, 'bob', 0)");
    let commits = rec.changes().len();
    let before = rows(&mut s, "SELECT * FROM t ORDER BY id");
    assert_eq!(err(&mut s, "UPDATE t JOIN a ON a.id = t.id SET t.name = 'bob', a.n = 0").0, 1062);
    assert_eq!(rows(&mut s, "SELECT * FROM t ORDER BY id"), before);
    assert_eq!(rows(&mut s, "SELECT n FROM a ORDER BY id"), ["10", "20", "30"]);
    // Strict mode: NULL into NOT NULL is 1048 and nothing stays changed.
    assert_eq!(err(&mut s, "UPDATE a JOIN b ON b.a_id = a.id SET b.v = 0, a.name = NULL").0, 1048);
    assert_eq!(rows(&mut s, "SELECT v FROM b ORDER BY id"), ["5", "6", "7", "8"]);
    assert_eq!(rec.changes().len(), commits, "a failed statement commits nothing");
    // IGNORE: the duplicate is skipped with warning 1062, the rest is done.
    let (n, _) =
        ok(&mut s, "UPDATE IGNORE t JOIN a ON a.id = t.id SET t.name = 'bob', t.total = a.n");
    assert_eq!(n, 1);
    assert_eq!(rows(&mut s, "SHOW WARNINGS"), ["Warning,1062,Duplicate entry 'bob' for key 'u'"]);
    assert_eq!(rows(&mut s, "SELECT * FROM t ORDER BY id"), ["1,ann,0", "2,bob,20"]);
    // A derived table is not a target.
    assert_eq!(
        err(&mut s, "UPDATE a JOIN (SELECT id FROM b) AS d ON d.id = a.id SET d.id = 1").0,
        1288
    );
}

#[test]
fn an_empty_values_row_inserts_every_default() {
    let (_srv, rec, mut s) = setup();
    // No column list and `()`: every column's default, once per row (mysqld's prepare_inner).
    assert_eq!(ok(&mut s, "INSERT INTO t VALUES ()").0, 1);
    assert_eq!(ok(&mut s, "INSERT INTO t () VALUES (), ()").0, 2);
    assert_eq!(
        rows(&mut s, "SELECT * FROM t ORDER BY id"),
        ["1,NULL,NULL", "2,NULL,NULL", "3,NULL,NULL"]
    );
    assert_eq!(last_changes(&rec).len(), 2);
    // A column list needs its width; every row needs the first row's width.
    assert_eq!(
        err(&mut s, "INSERT INTO t (name) VALUES ()"),
        (1136, "Column count doesn't match value count at row 1".into())
    );
    assert_eq!(err(&mut s, "INSERT INTO t VALUES (), (9, 'x', 1)").0, 1136);
    assert_eq!(err(&mut s, "INSERT INTO t VALUES (9, 'x', 1), ()").0, 1136);
    assert_eq!(rows(&mut s, "SELECT COUNT(*) FROM t"), ["3"]);
}
