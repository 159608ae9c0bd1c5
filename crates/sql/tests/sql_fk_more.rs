//! Foreign keys, continued (issue 20): what the binlog learns of `foreign_key_checks` (rows
//! changed with it off are marked, so their ROWS events carry `NO_FOREIGN_KEY_CHECKS_F` and an
//! applier neither checks nor cascades them), and INSERT IGNORE turning 1452 into a warning.

mod common;
#[path = "support/recording.rs"]
mod recording;

use std::sync::Arc;

use common::{engine, err, q, rows};
use recording::Recording;
use sql::commit::TxnChanges;
use sql::{Hooks, Server, Session};

fn recorded() -> (Arc<Server>, Arc<Recording>, Session) {
    let e = engine();
    let rec = Recording::new(&e);
    let hooks = Hooks { committer: rec.clone(), ..Hooks::without_binlog(&e) };
    let srv = Server::open(e, hooks, &[]).expect("server");
    let mut s = srv.session("root", "localhost");
    for sql in [
        "CREATE DATABASE d",
        "USE d",
        "CREATE TABLE p (id INT PRIMARY KEY)",
        "CREATE TABLE c (id INT PRIMARY KEY, pid INT, \
           FOREIGN KEY (pid) REFERENCES p (id) ON DELETE CASCADE)",
    ] {
        q(&mut s, sql);
    }
    (srv, rec, s)
}

#[test]
fn rows_changed_without_checks_are_marked_for_the_binlog() {
    let (_srv, rec, mut s) = recorded();
    for sql in [
        "BEGIN",
        "INSERT INTO p VALUES (1)",
        "INSERT INTO c VALUES (10, 1)",
        "SET foreign_key_checks = 0",
        "INSERT INTO c VALUES (11, 99), (12, 98)",
    ] {
        q(&mut s, sql);
    }
    // A failed statement leaves no mark behind (its rows are undone).
    assert_eq!(err(&mut s, "INSERT INTO c VALUES (13, 97), (13, 96)").code(), 1062);
    q(&mut s, "SET foreign_key_checks = 1");
    // The cascade deletes c 10 in the engine; the binlog gets the parent's row only.
    q(&mut s, "DELETE FROM p WHERE id = 1");
    q(&mut s, "COMMIT");
    let last = rec.changes().pop().expect("a commit");
    let ids: Vec<String> = last
        .changes
        .iter()
        .map(|c| format!("{:?} {:?}", c.kind, c.before.as_ref().or(c.after.as_ref()).unwrap()[0]))
        .collect();
    assert_eq!(
        ids,
        ["Insert Int(1)", "Insert Int(10)", "Insert Int(11)", "Insert Int(12)", "Delete Int(1)"]
    );
    assert_eq!(last.fk_unchecked, [(2, 4)]);
    assert!(!last.fk_unchecked_at(1) && last.fk_unchecked_at(2) && last.fk_unchecked_at(3));
    assert!(!last.fk_unchecked_at(4));
    assert_eq!(rows(&mut s, "SELECT id FROM c ORDER BY id"), [["11"], ["12"]]);
}

#[test]
fn unchecked_marks_merge_truncate_and_follow_the_logged_rows() {
    let mut t = TxnChanges::default();
    t.mark_fk_unchecked(2, 4);
    t.mark_fk_unchecked(4, 5);
    t.mark_fk_unchecked(7, 7);
    t.mark_fk_unchecked(8, 10);
    assert_eq!(t.fk_unchecked, [(2, 5), (8, 10)]);
    t.truncate_fk_unchecked(9);
    assert_eq!(t.fk_unchecked, [(2, 5), (8, 9)]);
    t.truncate_fk_unchecked(8);
    assert_eq!(t.fk_unchecked, [(2, 5)]);
    assert!(!t.fk_unchecked_at(1) && t.fk_unchecked_at(2) && t.fk_unchecked_at(4));
    assert!(!t.fk_unchecked_at(5));
}

#[test]
fn insert_ignore_skips_rows_a_foreign_key_refuses() {
    let (_srv, _rec, mut s) = recorded();
    q(&mut s, "INSERT INTO p VALUES (1)");
    let e = err(&mut s, "INSERT INTO c VALUES (20, 1), (21, 999)");
    assert_eq!(e.code(), 1452);
    assert!(rows(&mut s, "SELECT id FROM c").is_empty(), "nothing of the failed statement stays");
    let out = q(&mut s, "INSERT IGNORE INTO c VALUES (20, 1), (21, 999), (22, 1)");
    assert_eq!(out.affected_rows(), 2);
    let warnings = rows(&mut s, "SHOW WARNINGS");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(warnings[0][1], "1452");
    assert!(warnings[0][2].starts_with("Cannot add or update a child row"), "{warnings:?}");
    assert_eq!(rows(&mut s, "SELECT id, pid FROM c ORDER BY id"), [["20", "1"], ["22", "1"]]);
    // ON DUPLICATE KEY UPDATE IGNORE moving a child to a missing parent: skipped too.
    q(&mut s, "INSERT IGNORE INTO c VALUES (20, 1) ON DUPLICATE KEY UPDATE pid = 555");
    assert_eq!(rows(&mut s, "SHOW WARNINGS")[0][1], "1452");
    assert_eq!(rows(&mut s, "SELECT pid FROM c WHERE id = 20"), [["1"]]);
}

/// CREATE TABLE and ALTER TABLE ADD FOREIGN KEY need REFERENCES on the parent (mysqld 8.0's
/// `check_fk_parent_table_access`): 1142 with the REFERENCES command otherwise; a table that
/// references itself needs nothing more.
#[test]
fn defining_a_foreign_key_needs_references_on_the_parent() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (users, _) = accounts::Users::open(dir.path(), true).expect("users");
    let (srv, _rec, mut root) = recorded();
    srv.attach_accounts(Arc::new(users));
    q(&mut root, "CREATE USER u@localhost, w@localhost");
    q(&mut root, "GRANT CREATE, ALTER, SELECT, INSERT ON d.* TO u@localhost");
    q(&mut root, "GRANT CREATE, ALTER, SELECT, INSERT ON d.* TO w@localhost");
    q(&mut root, "GRANT REFERENCES ON d.p TO w@localhost");
    let mut u = srv.session("u", "localhost");
    q(&mut u, "USE d");
    let e = err(
        &mut u,
        "CREATE TABLE k (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p (id))",
    );
    assert_eq!((e.code(), e.sqlstate()), (1142, "42000"));
    assert_eq!(e.to_string(), "REFERENCES command denied to user 'u'@'localhost' for table 'p'");
    assert!(rows(&mut root, "SHOW TABLES FROM d LIKE 'k'").is_empty(), "nothing created");
    q(&mut u, "CREATE TABLE k (id INT PRIMARY KEY, pid INT)");
    let e = err(&mut u, "ALTER TABLE k ADD FOREIGN KEY (pid) REFERENCES p (id)");
    assert_eq!(e.code(), 1142);
    // Self-references need no REFERENCES.
    q(
        &mut u,
        "CREATE TABLE tree (id INT PRIMARY KEY, up INT, FOREIGN KEY (up) REFERENCES tree (id))",
    );
    let mut w = srv.session("w", "localhost");
    q(&mut w, "USE d");
    q(
        &mut w,
        "CREATE TABLE k2 (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES d.p (id))",
    );
    q(&mut w, "ALTER TABLE k ADD FOREIGN KEY (pid) REFERENCES p (id)");
}

/// RENAME TABLE and ALTER TABLE ... RENAME of a parent: its children's constraints follow it
/// (SHOW CREATE TABLE, REFERENTIAL_CONSTRAINTS, and the checks), across databases too; a
/// self-referencing table follows itself.
#[test]
fn renaming_a_parent_repoints_its_children() {
    let (_srv, _rec, mut s) = recorded();
    q(&mut s, "INSERT INTO p VALUES (1)");
    q(&mut s, "INSERT INTO c VALUES (10, 1)");
    q(&mut s, "RENAME TABLE p TO parent");
    let create = rows(&mut s, "SHOW CREATE TABLE c")[0][1].clone();
    assert!(create.contains("REFERENCES `parent` (`id`) ON DELETE CASCADE"), "{create}");
    assert_eq!(
        rows(
            &mut s,
            "SELECT REFERENCED_TABLE_NAME FROM information_schema.REFERENTIAL_CONSTRAINTS \
             WHERE CONSTRAINT_SCHEMA = 'd' AND TABLE_NAME = 'c'"
        ),
        [["parent"]]
    );
    // The constraint works under the new name: 1452 for a missing parent, cascades on.
    assert_eq!(err(&mut s, "INSERT INTO c VALUES (11, 2)").code(), 1452);
    q(&mut s, "ALTER TABLE parent RENAME TO p2");
    let create = rows(&mut s, "SHOW CREATE TABLE c")[0][1].clone();
    assert!(create.contains("REFERENCES `p2` (`id`)"), "{create}");
    q(&mut s, "CREATE DATABASE e");
    q(&mut s, "RENAME TABLE p2 TO e.p");
    let create = rows(&mut s, "SHOW CREATE TABLE c")[0][1].clone();
    assert!(create.contains("REFERENCES `e`.`p` (`id`)"), "{create}");
    q(&mut s, "DELETE FROM e.p WHERE id = 1");
    assert!(rows(&mut s, "SELECT * FROM c").is_empty(), "the cascade follows the parent");
    // A self-reference, renamed with ALTER and with RENAME, and a swap of names.
    q(
        &mut s,
        "CREATE TABLE tree (id INT PRIMARY KEY, up INT, FOREIGN KEY (up) REFERENCES tree (id))",
    );
    q(&mut s, "ALTER TABLE tree RENAME TO t2");
    assert!(rows(&mut s, "SHOW CREATE TABLE t2")[0][1].contains("REFERENCES `t2` (`id`)"));
    q(&mut s, "RENAME TABLE t2 TO t3");
    assert!(rows(&mut s, "SHOW CREATE TABLE t3")[0][1].contains("REFERENCES `t3` (`id`)"));
    q(&mut s, "INSERT INTO t3 VALUES (1, NULL), (2, 1)");
    assert_eq!(err(&mut s, "INSERT INTO t3 VALUES (3, 9)").code(), 1452);
    q(&mut s, "CREATE TABLE x (id INT PRIMARY KEY)");
    q(&mut s, "CREATE TABLE kx (id INT PRIMARY KEY, xid INT, FOREIGN KEY (xid) REFERENCES x (id))");
    q(&mut s, "RENAME TABLE x TO tmp, t3 TO x, tmp TO t3");
    assert!(rows(&mut s, "SHOW CREATE TABLE kx")[0][1].contains("REFERENCES `t3` (`id`)"));
    assert!(rows(&mut s, "SHOW CREATE TABLE x")[0][1].contains("REFERENCES `x` (`id`)"));
}
