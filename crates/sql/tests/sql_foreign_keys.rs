//! Foreign keys (issue 20): definitions (CREATE TABLE, ALTER TABLE ADD/DROP FOREIGN KEY), their
//! errors, the checks of child and parent writes with mysqld's exact messages, the referential
//! actions (CASCADE, SET NULL, RESTRICT, NO ACTION) and their depth bound, foreign_key_checks,
//! DROP/TRUNCATE of a parent, SHOW CREATE TABLE, and the parent row lock.

mod common;

use std::time::Duration;

use common::{err, q, rows};
use sql::Session;

fn setup() -> (std::sync::Arc<sql::Server>, Session) {
    let srv = common::server_with_lock_wait(Duration::from_millis(300));
    let mut s = srv.session("root", "localhost");
    for sql in [
        "CREATE DATABASE d",
        "USE d",
        "CREATE TABLE p (id INT PRIMARY KEY, name VARCHAR(10))",
        "CREATE TABLE c (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p (id))",
    ] {
        q(&mut s, sql);
    }
    (srv, s)
}

fn code(s: &mut Session, sql: &str) -> (u16, String) {
    let e = err(s, sql);
    (e.code(), e.to_string())
}

fn flat(s: &mut Session, sql: &str) -> Vec<String> {
    rows(s, sql).into_iter().map(|r| r.join(",")).collect()
}

#[test]
fn child_without_parent_is_1452_with_mysqlds_text() {
    let (_srv, mut s) = setup();
    let (c, m) = code(&mut s, "INSERT INTO c VALUES (1, 7)");
    assert_eq!(c, 1452);
    assert_eq!(
        m,
        "Cannot add or update a child row: a foreign key constraint fails (`d`.`c`, CONSTRAINT \
         `c_ibfk_1` FOREIGN KEY (`pid`) REFERENCES `p` (`id`))"
    );
    assert!(flat(&mut s, "SELECT * FROM c").is_empty(), "the failed row is undone");
    q(&mut s, "INSERT INTO c VALUES (1, NULL)");
    q(&mut s, "INSERT INTO p VALUES (7, 'x')");
    q(&mut s, "INSERT INTO c VALUES (2, 7)");
    assert_eq!(code(&mut s, "UPDATE c SET pid = 8 WHERE id = 2").0, 1452);
    // A multi-row statement stops at its first bad row and changes nothing.
    assert_eq!(code(&mut s, "INSERT INTO c VALUES (3, 7), (4, 9)").0, 1452);
    assert_eq!(flat(&mut s, "SELECT id, pid FROM c ORDER BY id"), ["1,NULL", "2,7"]);
    // Prepared point UPDATE (the fast path) checks too.
    let (c2, _) = code(&mut s, "UPDATE c SET pid = 99 WHERE id = 1");
    assert_eq!(c2, 1452);
}

#[test]
fn parent_delete_or_update_with_children_is_1451() {
    let (_srv, mut s) = setup();
    q(&mut s, "INSERT INTO p VALUES (1, 'a'), (2, 'b')");
    q(&mut s, "INSERT INTO c VALUES (10, 1)");
    let (c, m) = code(&mut s, "DELETE FROM p WHERE id = 1");
    assert_eq!(c, 1451);
    assert_eq!(
        m,
        "Cannot delete or update a parent row: a foreign key constraint fails (`d`.`c`, \
         CONSTRAINT `c_ibfk_1` FOREIGN KEY (`pid`) REFERENCES `p` (`id`))"
    );
    assert_eq!(code(&mut s, "UPDATE p SET id = 3 WHERE id = 1").0, 1451);
    // Changing a column the constraint does not reference is fine; so is a parent without
    // children.
    q(&mut s, "UPDATE p SET name = 'z' WHERE id = 1");
    q(&mut s, "DELETE FROM p WHERE id = 2");
    assert_eq!(code(&mut s, "REPLACE INTO p VALUES (1, 'r')").0, 1451);
    assert_eq!(flat(&mut s, "SELECT * FROM p"), ["1,z"]);
}

#[test]
fn cascade_and_set_null_actions() {
    let srv = common::server();
    let mut s = srv.session("root", "localhost");
    for sql in [
        "CREATE DATABASE d",
        "USE d",
        "CREATE TABLE p (id INT PRIMARY KEY)",
        "CREATE TABLE c (id INT PRIMARY KEY, pid INT, CONSTRAINT fk_c FOREIGN KEY (pid) \
         REFERENCES p (id) ON DELETE CASCADE ON UPDATE CASCADE)",
        "CREATE TABLE g (id INT PRIMARY KEY, cid INT, FOREIGN KEY (cid) REFERENCES c (id) \
         ON DELETE SET NULL)",
        "INSERT INTO p VALUES (1), (2)",
        "INSERT INTO c VALUES (10, 1), (11, 1), (12, 2)",
        "INSERT INTO g VALUES (100, 10), (101, 12)",
    ] {
        q(&mut s, sql);
    }
    q(&mut s, "UPDATE p SET id = 5 WHERE id = 2");
    assert_eq!(flat(&mut s, "SELECT id, pid FROM c ORDER BY id"), ["10,1", "11,1", "12,5"]);
    let out = q(&mut s, "DELETE FROM p WHERE id = 1");
    assert_eq!(out.affected_rows(), 1, "cascaded rows are not counted");
    assert_eq!(flat(&mut s, "SELECT id, pid FROM c ORDER BY id"), ["12,5"]);
    assert_eq!(flat(&mut s, "SELECT id, cid FROM g ORDER BY id"), ["100,NULL", "101,12"]);
    // A statement that fails undoes its cascades too.
    q(&mut s, "CREATE TABLE h (id INT PRIMARY KEY, gid INT, FOREIGN KEY (gid) REFERENCES g (id))");
    q(&mut s, "INSERT INTO h VALUES (1, 101)");
    q(&mut s, "UPDATE g SET cid = NULL WHERE id = 101");
    q(&mut s, "INSERT INTO c VALUES (13, 5)");
    q(&mut s, "UPDATE g SET cid = 13 WHERE id = 101");
    q(&mut s, "CREATE TABLE k (id INT PRIMARY KEY, c13 INT, FOREIGN KEY (c13) REFERENCES c (id))");
    q(&mut s, "INSERT INTO k VALUES (1, 12)");
    assert_eq!(code(&mut s, "DELETE FROM p WHERE id = 5").0, 1451);
    assert_eq!(flat(&mut s, "SELECT id, pid FROM c ORDER BY id"), ["12,5", "13,5"]);
    assert_eq!(flat(&mut s, "SELECT id, cid FROM g ORDER BY id"), ["100,NULL", "101,13"]);
}

#[test]
fn cascades_stop_at_depth_15_with_3008() {
    let srv = common::server();
    let mut s = srv.session("root", "localhost");
    q(&mut s, "CREATE DATABASE d");
    q(&mut s, "USE d");
    q(&mut s, "CREATE TABLE t (id INT PRIMARY KEY, up INT, FOREIGN KEY (up) REFERENCES t (id) ON DELETE CASCADE)");
    // A chain of 16 rows: deleting the head cascades 15 levels deep; 17 rows need 16.
    q(&mut s, "INSERT INTO t VALUES (0, NULL)");
    for i in 1..=15 {
        q(&mut s, &format!("INSERT INTO t VALUES ({i}, {})", i - 1));
    }
    q(&mut s, "DELETE FROM t WHERE id = 0");
    assert!(flat(&mut s, "SELECT * FROM t").is_empty());
    q(&mut s, "INSERT INTO t VALUES (0, NULL)");
    for i in 1..=16 {
        q(&mut s, &format!("INSERT INTO t VALUES ({i}, {})", i - 1));
    }
    let (c, m) = code(&mut s, "DELETE FROM t WHERE id = 0");
    assert_eq!(
        (c, m.as_str()),
        (3008, "Foreign key cascade delete/update exceeds max depth of 15.")
    );
    assert_eq!(flat(&mut s, "SELECT COUNT(*) FROM t"), ["17"]);
}

#[test]
fn definitions_are_checked_as_mysqld() {
    let (_srv, mut s) = setup();
    q(&mut s, "CREATE TABLE u (a BIGINT, b VARCHAR(5), c INT NOT NULL, KEY (b))");
    let cases: &[(&str, u16)] = &[
        ("CREATE TABLE x (a BIGINT, FOREIGN KEY (a) REFERENCES p (id))", 3780),
        ("CREATE TABLE x (a INT, FOREIGN KEY (a) REFERENCES p (name))", 3780),
        ("CREATE TABLE x (a INT, FOREIGN KEY (a) REFERENCES u (c))", 1822),
        ("CREATE TABLE x_ok (b VARCHAR(9), FOREIGN KEY (b) REFERENCES u (b))", 0),
        ("CREATE TABLE x (a INT, FOREIGN KEY (a) REFERENCES p (nope))", 3734),
        ("CREATE TABLE x (a INT, FOREIGN KEY (a) REFERENCES nope (id))", 1824),
        ("CREATE TABLE x (a INT, FOREIGN KEY (b) REFERENCES p (id))", 1072),
        (
            "CREATE TABLE x (a INT NOT NULL, FOREIGN KEY (a) REFERENCES p (id) ON DELETE SET NULL)",
            1830,
        ),
        ("CREATE TABLE x (a INT, CONSTRAINT c_ibfk_1 FOREIGN KEY (a) REFERENCES p (id))", 1826),
        ("CREATE TABLE x (a INT, b INT, FOREIGN KEY (a, b) REFERENCES p (id))", 1239),
        ("ALTER TABLE c DROP FOREIGN KEY nope", 1091),
        ("DROP TABLE p", 3730),
        ("TRUNCATE TABLE p", 1701),
        ("DROP INDEX pid ON c", 1553),
    ];
    for (sql, want) in cases {
        if *want == 0 {
            // Character columns of one collation relate whatever their lengths.
            q(&mut s, sql);
            continue;
        }
        assert_eq!(code(&mut s, sql).0, *want, "{sql}");
    }
    assert_eq!(
        code(&mut s, "DROP TABLE p").1,
        "Cannot drop table 'p' referenced by a foreign key constraint 'c_ibfk_1' on table 'c'."
    );
    assert_eq!(
        code(&mut s, "TRUNCATE TABLE p").1,
        "Cannot truncate a table referenced in a foreign key constraint (`d`.`c`, CONSTRAINT `c_ibfk_1`)"
    );
    // Column-level REFERENCES is parsed and ignored, as MySQL 8.0 does.
    q(&mut s, "CREATE TABLE y (a INT REFERENCES p (id))");
    q(&mut s, "INSERT INTO y VALUES (12345)");
    // Dropping the child with the parent, or with checks off, is allowed.
    q(&mut s, "SET foreign_key_checks = 0");
    q(&mut s, "TRUNCATE TABLE p");
    q(&mut s, "SET foreign_key_checks = 1");
    q(&mut s, "DROP TABLE c, p");
}

#[test]
fn show_create_table_prints_constraints_and_the_supporting_index() {
    let (_srv, mut s) = setup();
    q(&mut s, "CREATE TABLE c2 (a INT, b INT, CONSTRAINT my_fk FOREIGN KEY (a) REFERENCES p (id) ON DELETE CASCADE, FOREIGN KEY (b) REFERENCES p (id) ON DELETE SET NULL ON UPDATE NO ACTION)");
    let r = rows(&mut s, "SHOW CREATE TABLE c2");
    assert_eq!(
        r[0][1],
        "CREATE TABLE `c2` (\n  `a` int DEFAULT NULL,\n  `b` int DEFAULT NULL,\n  KEY `my_fk` (`a`),\n  KEY `b` (`b`),\n  CONSTRAINT `my_fk` FOREIGN KEY (`a`) REFERENCES `p` (`id`) ON DELETE CASCADE,\n  CONSTRAINT `c2_ibfk_1` FOREIGN KEY (`b`) REFERENCES `p` (`id`) ON DELETE SET NULL ON UPDATE NO ACTION\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci"
    );
    let r = rows(&mut s, "SHOW CREATE TABLE c");
    assert!(r[0][1].contains("  KEY `pid` (`pid`),\n  CONSTRAINT `c_ibfk_1` FOREIGN KEY (`pid`) REFERENCES `p` (`id`)\n)"), "{}", r[0][1]);
}

#[test]
fn alter_table_adds_and_drops_foreign_keys() {
    let (_srv, mut s) = setup();
    q(&mut s, "CREATE TABLE q (x INT, y INT, id INT PRIMARY KEY, UNIQUE KEY (x, y))");
    q(&mut s, "CREATE TABLE t (a INT, b INT)");
    q(&mut s, "INSERT INTO q VALUES (1, 2, 1)");
    q(&mut s, "INSERT INTO t VALUES (1, 2), (1, NULL), (5, 5)");
    // Orphan rows: 1452, nothing changed.
    assert_eq!(
        code(&mut s, "ALTER TABLE t ADD CONSTRAINT fkey_x FOREIGN KEY (a, b) REFERENCES q (x, y)")
            .0,
        1452
    );
    assert!(!rows(&mut s, "SHOW CREATE TABLE t")[0][1].contains("CONSTRAINT"));
    q(&mut s, "SET foreign_key_checks = 0");
    q(&mut s, "ALTER TABLE t ADD CONSTRAINT fkey_x FOREIGN KEY (a, b) REFERENCES q (x, y)");
    q(&mut s, "SET foreign_key_checks = 1");
    assert_eq!(code(&mut s, "INSERT INTO t VALUES (9, 9)").0, 1452);
    q(&mut s, "INSERT INTO t VALUES (1, 2)");
    let r = rows(&mut s, "SHOW CREATE TABLE t")[0][1].clone();
    assert!(r.contains("KEY `fkey_x` (`a`,`b`)"), "{r}");
    assert!(
        r.contains("CONSTRAINT `fkey_x` FOREIGN KEY (`a`, `b`) REFERENCES `q` (`x`, `y`)"),
        "{r}"
    );
    q(&mut s, "ALTER TABLE t DROP FOREIGN KEY fkey_x");
    q(&mut s, "INSERT INTO t VALUES (9, 9)");
    // The generated name continues after the highest one.
    q(&mut s, "ALTER TABLE c ADD FOREIGN KEY (pid) REFERENCES p (id)");
    assert!(rows(&mut s, "SHOW CREATE TABLE c")[0][1].contains("`c_ibfk_2`"));
}

#[test]
fn foreign_key_checks_off_skips_checks_and_actions() {
    let (_srv, mut s) = setup();
    q(&mut s, "SET foreign_key_checks = 0");
    q(&mut s, "INSERT INTO c VALUES (1, 42)");
    q(&mut s, "CREATE TABLE later (id INT, FOREIGN KEY (id) REFERENCES not_yet (id))");
    q(&mut s, "SET foreign_key_checks = 1");
    assert_eq!(code(&mut s, "INSERT INTO later VALUES (1)").0, 1452);
    q(&mut s, "CREATE TABLE not_yet (id INT PRIMARY KEY)");
    q(&mut s, "INSERT INTO not_yet VALUES (1)");
    q(&mut s, "INSERT INTO later VALUES (1)");
}

#[test]
fn parent_and_child_in_one_transaction_and_self_reference() {
    let (_srv, mut s) = setup();
    q(&mut s, "BEGIN");
    q(&mut s, "INSERT INTO p VALUES (1, 'a')");
    q(&mut s, "INSERT INTO c VALUES (1, 1)");
    q(&mut s, "COMMIT");
    q(
        &mut s,
        "CREATE TABLE e (id INT PRIMARY KEY, boss INT, FOREIGN KEY (boss) REFERENCES e (id))",
    );
    q(&mut s, "INSERT INTO e VALUES (1, 1)");
    q(&mut s, "INSERT INTO e VALUES (2, 1), (3, 2)");
    assert_eq!(code(&mut s, "INSERT INTO e VALUES (4, 5), (5, NULL)").0, 1452);
    assert_eq!(code(&mut s, "DELETE FROM e WHERE id = 2").0, 1451);
}

#[test]
fn a_parent_delete_waits_for_the_transaction_that_referenced_it() {
    let (srv, mut s) = setup();
    q(&mut s, "INSERT INTO p VALUES (1, 'a')");
    q(&mut s, "BEGIN");
    q(&mut s, "INSERT INTO c VALUES (1, 1)");
    // The child's transaction holds the parent row shared: another session's delete waits
    // (1205 after the short lock wait), and then finds no child because it was rolled back.
    let mut other = srv.session("root", "localhost");
    q(&mut other, "USE d");
    assert_eq!(code(&mut other, "DELETE FROM p WHERE id = 1").0, 1205);
    q(&mut s, "ROLLBACK");
    q(&mut other, "DELETE FROM p WHERE id = 1");
}

/// An ALTER TABLE of the child keeps its constraints, their columns followed to their new
/// positions; dropping a constrained column is mysqld's 1828; CREATE TABLE ... LIKE copies no
/// foreign keys.
#[test]
fn alter_table_keeps_the_childs_foreign_keys() {
    let (_srv, mut s) = setup();
    q(&mut s, "INSERT INTO p VALUES (1, 'a')");
    q(&mut s, "INSERT INTO c VALUES (10, 1)");
    q(&mut s, "ALTER TABLE c ADD COLUMN note VARCHAR(5) FIRST, ADD COLUMN n INT");
    assert_eq!(code(&mut s, "INSERT INTO c (id, pid) VALUES (11, 2)").0, 1452);
    q(&mut s, "INSERT INTO c (id, pid) VALUES (11, 1)");
    assert_eq!(code(&mut s, "DELETE FROM p WHERE id = 1").0, 1451);
    let show = flat(&mut s, "SHOW CREATE TABLE c").concat();
    assert!(show.contains("FOREIGN KEY (`pid`) REFERENCES `p` (`id`)"), "{show}");
    let (c, m) = code(&mut s, "ALTER TABLE c DROP COLUMN pid");
    assert_eq!(c, 1828, "{m}");
    assert_eq!(m, "Cannot drop column 'pid': needed in a foreign key constraint 'c_ibfk_1'");
    q(&mut s, "CREATE TABLE c2 LIKE c");
    let show = flat(&mut s, "SHOW CREATE TABLE c2").concat();
    assert!(!show.contains("FOREIGN KEY"), "{show}");
    q(&mut s, "INSERT INTO c2 (id, pid) VALUES (1, 99)");
}

#[test]
fn information_schema_describes_foreign_keys() {
    let (_srv, mut s) = setup();
    q(&mut s, "CREATE TABLE c2 (a INT, CONSTRAINT fk_a FOREIGN KEY (a) REFERENCES p (id) ON DELETE CASCADE ON UPDATE SET NULL)");
    assert_eq!(
        flat(&mut s, "SELECT CONSTRAINT_NAME, UNIQUE_CONSTRAINT_SCHEMA, UNIQUE_CONSTRAINT_NAME, MATCH_OPTION, UPDATE_RULE, DELETE_RULE, TABLE_NAME, REFERENCED_TABLE_NAME FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = 'd' ORDER BY CONSTRAINT_NAME"),
        ["c_ibfk_1,d,PRIMARY,NONE,NO ACTION,NO ACTION,c,p", "fk_a,d,PRIMARY,NONE,SET NULL,CASCADE,c2,p"]
    );
    assert_eq!(
        flat(&mut s, "SELECT CONSTRAINT_NAME, TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION, POSITION_IN_UNIQUE_CONSTRAINT, REFERENCED_TABLE_SCHEMA, REFERENCED_TABLE_NAME, REFERENCED_COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = 'd' AND REFERENCED_TABLE_NAME IS NOT NULL ORDER BY CONSTRAINT_NAME"),
        ["c_ibfk_1,c,pid,1,1,d,p,id", "fk_a,c2,a,1,1,d,p,id"]
    );
    assert_eq!(
        flat(&mut s, "SELECT CONSTRAINT_NAME, TABLE_NAME FROM information_schema.TABLE_CONSTRAINTS WHERE TABLE_SCHEMA = 'd' AND CONSTRAINT_TYPE = 'FOREIGN KEY' ORDER BY CONSTRAINT_NAME"),
        ["c_ibfk_1,c", "fk_a,c2"]
    );
}
