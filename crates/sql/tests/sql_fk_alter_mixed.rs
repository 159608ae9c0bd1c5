//! Foreign key clauses beside other operations of one ALTER TABLE (issue 20), and UPDATE
//! IGNORE / DELETE IGNORE over foreign key errors. Expected answers are mysqld 8.0's: an ALTER
//! mixing `ADD COLUMN` and `ADD CONSTRAINT ... FOREIGN KEY`, or `DROP FOREIGN KEY` and
//! `DROP INDEX`, is one statement that applies whole or not at all (1452 when existing rows
//! break the new constraint, 1553 when a kept constraint loses its index); with IGNORE, a row
//! a foreign key refuses is skipped with warning 1451/1452 (`ignore_error_handler`).

mod common;

use common::{err, q, rows, server};
use sql::Session;

fn setup(s: &mut Session) {
    q(s, "CREATE DATABASE d");
    q(s, "USE d");
    q(s, "CREATE TABLE p (id INT PRIMARY KEY)");
    q(s, "INSERT INTO p VALUES (1), (2)");
    q(s, "CREATE TABLE c (id INT PRIMARY KEY, v INT)");
    q(s, "INSERT INTO c VALUES (1, 1), (2, 2), (3, NULL)");
}

fn create(s: &mut Session, t: &str) -> String {
    rows(s, &format!("SHOW CREATE TABLE {t}"))[0][1].clone()
}

#[test]
fn a_mixed_alter_adds_and_drops_constraints_with_other_operations() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    q(
        &mut s,
        "ALTER TABLE c ADD COLUMN x INT AFTER id, ADD CONSTRAINT fk FOREIGN KEY (x) \
         REFERENCES p (id) ON DELETE CASCADE, ADD INDEX iv (v)",
    );
    let ddl = create(&mut s, "c");
    assert!(ddl.contains("  KEY `fk` (`x`),"), "{ddl}");
    assert!(ddl.contains("  KEY `iv` (`v`),"), "{ddl}");
    assert!(
        ddl.contains("CONSTRAINT `fk` FOREIGN KEY (`x`) REFERENCES `p` (`id`) ON DELETE CASCADE"),
        "{ddl}"
    );
    // The constraint is enforced and acts.
    assert_eq!(err(&mut s, "UPDATE c SET x = 9 WHERE id = 1").code(), 1452);
    q(&mut s, "UPDATE c SET x = 2 WHERE id = 2");
    q(&mut s, "DELETE FROM p WHERE id = 2");
    assert_eq!(rows(&mut s, "SELECT id FROM c ORDER BY id"), [["1"], ["3"]]);
    // Its index alone cannot go (1553); with the constraint, in one statement, it can.
    assert_eq!(err(&mut s, "ALTER TABLE c DROP INDEX fk, ADD COLUMN y INT").code(), 1553);
    assert_eq!(rows(&mut s, "SHOW COLUMNS FROM c").len(), 3, "nothing changed");
    q(&mut s, "ALTER TABLE c DROP FOREIGN KEY fk, DROP INDEX fk, MODIFY v BIGINT");
    let ddl = create(&mut s, "c");
    assert!(!ddl.contains("CONSTRAINT"), "{ddl}");
    assert!(!ddl.contains("`fk`"), "{ddl}");
    assert!(ddl.contains("`v` bigint"), "{ddl}");
    // An unknown constraint: 1091, nothing changed.
    assert_eq!(err(&mut s, "ALTER TABLE c DROP FOREIGN KEY nope, ADD COLUMN z INT").code(), 1091);
    assert_eq!(rows(&mut s, "SHOW COLUMNS FROM c").len(), 3);
    // The generated name `<table>_ibfk_<n>`, and DROP CONSTRAINT beside another operation.
    q(&mut s, "ALTER TABLE c ADD FOREIGN KEY (x) REFERENCES p (id), COMMENT 'with fk'");
    assert!(create(&mut s, "c").contains("CONSTRAINT `c_ibfk_1` FOREIGN KEY (`x`)"));
    q(&mut s, "ALTER TABLE c DROP CONSTRAINT c_ibfk_1, RENAME COLUMN v TO w");
    assert!(!create(&mut s, "c").contains("c_ibfk_1`"));
    assert!(create(&mut s, "c").contains("`w` bigint"));
}

#[test]
fn a_mixed_alter_checks_the_existing_rows_and_changes_nothing_when_they_fail() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    // New column y DEFAULT 5: no parent 5, so the rows break the constraint (row rebuild).
    let e = err(
        &mut s,
        "ALTER TABLE c ADD COLUMN y INT DEFAULT 5, ADD CONSTRAINT fy FOREIGN KEY (y) REFERENCES p (id)",
    );
    assert_eq!(e.code(), 1452, "{e}");
    // Without a rebuild (an index added beside it) the rows are checked too.
    q(&mut s, "UPDATE c SET v = 7 WHERE id = 3");
    let e = err(&mut s, "ALTER TABLE c ADD INDEX iv (v), ADD FOREIGN KEY (v) REFERENCES p (id)");
    assert_eq!(e.code(), 1452, "{e}");
    let ddl = create(&mut s, "c");
    assert!(!ddl.contains("CONSTRAINT") && !ddl.contains("`y`") && !ddl.contains("  KEY"), "{ddl}");
    // With foreign_key_checks=0 the rows are not checked (a load's order).
    q(&mut s, "SET foreign_key_checks = 0");
    q(&mut s, "ALTER TABLE c ADD INDEX iv (v), ADD FOREIGN KEY (v) REFERENCES p (id)");
    q(&mut s, "SET foreign_key_checks = 1");
    assert!(create(&mut s, "c").contains("CONSTRAINT `c_ibfk_1`"));
    // A missing parent column: 3734; incompatible types: 3780 (as ADD FOREIGN KEY alone).
    assert_eq!(
        err(&mut s, "ALTER TABLE c ADD COLUMN q INT, ADD FOREIGN KEY (q) REFERENCES p (nope)")
            .code(),
        3734
    );
    assert_eq!(
        err(&mut s, "ALTER TABLE c ADD COLUMN q BIGINT, ADD FOREIGN KEY (q) REFERENCES p (id)")
            .code(),
        3780
    );
}

#[test]
fn update_and_delete_ignore_skip_the_rows_a_foreign_key_refuses() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    q(&mut s, "ALTER TABLE c ADD CONSTRAINT fk FOREIGN KEY (v) REFERENCES p (id)");
    // Child side: 1452 as a warning, the row unchanged, the others updated.
    let out = q(&mut s, "UPDATE IGNORE c SET v = v + 1");
    assert_eq!(out.affected_rows(), 1, "{out:?}");
    let w = rows(&mut s, "SHOW WARNINGS");
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0][1], "1452");
    assert!(w[0][2].starts_with("Cannot add or update a child row"), "{w:?}");
    assert_eq!(
        rows(&mut s, "SELECT id, v FROM c ORDER BY id"),
        [["1", "2"], ["2", "2"], ["3", "NULL"]]
    );
    // Without IGNORE it is the error, and nothing changes.
    assert_eq!(err(&mut s, "UPDATE c SET v = 5").code(), 1452);
    // Parent side: rows still referenced stay (1451 warnings), the others go.
    q(&mut s, "INSERT INTO p VALUES (3)");
    let out = q(&mut s, "DELETE IGNORE FROM p WHERE id >= 1");
    assert_eq!(out.affected_rows(), 2, "{out:?}");
    let w = rows(&mut s, "SHOW WARNINGS");
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0][1], "1451");
    assert_eq!(rows(&mut s, "SELECT id FROM p"), [["2"]]);
    let out = q(&mut s, "UPDATE IGNORE p SET id = 10");
    assert_eq!(out.affected_rows(), 0);
    assert_eq!(rows(&mut s, "SHOW WARNINGS")[0][1], "1451");
    // Multi-table DELETE IGNORE, and an alias.
    let out = q(&mut s, "DELETE IGNORE x FROM p AS x JOIN c ON c.v = x.id");
    assert_eq!(out.affected_rows(), 0);
    assert_eq!(rows(&mut s, "SHOW WARNINGS")[0][1], "1451");
    let out = q(&mut s, "DELETE LOW_PRIORITY QUICK IGNORE FROM c AS y WHERE y.id = 1");
    assert_eq!(out.affected_rows(), 1);
    assert_eq!(rows(&mut s, "SELECT id FROM c ORDER BY id"), [["2"], ["3"]]);
}
