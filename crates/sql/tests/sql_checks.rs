//! CHECK constraints (MySQL 8.0.16+, WL#929): defined by CREATE TABLE (column and table
//! constraints, named and `<table>_chk_<n>`) and ALTER TABLE, enforced on every write path
//! (3819; NULL passes; IGNORE skips the row with a warning), the conditions mysqld refuses
//! (3812-3820), SHOW CREATE TABLE and information_schema as mysqld 8.0 prints them, and kept
//! across a crash. Expected answers are mysqld 8.0's (manual, "CHECK Constraints"; MariaDB
//! differs in its names (`CONSTRAINT_1`), its printing and its error numbers, so these are not
//! differential cases).

mod common;

use common::{after_crash, code, err, q, rows, server, server_on};
use sql::Session;

fn create(s: &mut Session, t: &str) -> String {
    rows(s, &format!("SHOW CREATE TABLE {t}"))[0][1].clone()
}

fn setup(s: &mut Session) {
    q(s, "CREATE DATABASE d");
    q(s, "USE d");
}

#[test]
fn names_order_and_show_create_table_as_mysqld() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    // The manual's example: unnamed constraints numbered in the order written, column ones
    // and table ones alike; shown sorted by name.
    q(
        &mut s,
        "CREATE TABLE t1 (CHECK (c1 <> c2), c1 INT CHECK (c1 > 10), \
         c2 INT CONSTRAINT c2_positive CHECK (c2 > 0), c3 INT CHECK (c3 < 100), \
         CONSTRAINT c1_nonzero CHECK (c1 <> 0), CHECK (c1 > c3))",
    );
    let ddl = create(&mut s, "t1");
    let expected = "  CONSTRAINT `c1_nonzero` CHECK ((`c1` <> 0)),\n  \
        CONSTRAINT `c2_positive` CHECK ((`c2` > 0)),\n  \
        CONSTRAINT `t1_chk_1` CHECK ((`c1` <> `c2`)),\n  \
        CONSTRAINT `t1_chk_2` CHECK ((`c1` > 10)),\n  \
        CONSTRAINT `t1_chk_3` CHECK ((`c3` < 100)),\n  \
        CONSTRAINT `t1_chk_4` CHECK ((`c1` > `c3`))\n) ENGINE=InnoDB";
    assert!(ddl.contains(expected), "{ddl}");
    // LIKE copies them, generated names following the new table; so does ALTER ... RENAME.
    q(&mut s, "CREATE TABLE t2 LIKE t1");
    let ddl = create(&mut s, "t2");
    assert!(ddl.contains("CONSTRAINT `t2_chk_4` CHECK ((`c1` > `c3`))"), "{ddl}");
    assert_eq!(code(&mut s, "INSERT INTO t2 VALUES (5, 1, 1)"), 3819);
    q(&mut s, "ALTER TABLE t2 RENAME TO t3");
    assert!(create(&mut s, "t3").contains("CONSTRAINT `t3_chk_1` CHECK ((`c1` <> `c2`))"));
    q(&mut s, "DROP TABLE t3");
    q(&mut s, "CREATE TABLE g (g CHAR(1), n INT, CHECK (g IN ('M','F') AND n BETWEEN 1 AND 9))");
    let ddl = create(&mut s, "g");
    assert!(
        ddl.contains(
            "CONSTRAINT `g_chk_1` CHECK (((`g` in (_utf8mb4'M',_utf8mb4'F')) and \
             (`n` between 1 and 9)))"
        ),
        "{ddl}"
    );
    q(&mut s, "CREATE TABLE ne (a INT, CONSTRAINT lax CHECK (a > 0) NOT ENFORCED)");
    assert!(create(&mut s, "ne").contains("CHECK ((`a` > 0)) /*!80016 NOT ENFORCED */"));
    // The SHOW CREATE TABLE text (what mysqldump and mariadb-dump print) creates the same
    // table again, the NOT ENFORCED version comment included.
    for t in ["g", "ne"] {
        let ddl = create(&mut s, t);
        q(&mut s, &format!("DROP TABLE {t}"));
        q(&mut s, &ddl);
        assert_eq!(create(&mut s, t), ddl);
    }
    q(&mut s, "INSERT INTO ne VALUES (-1)");
}

#[test]
fn rows_are_checked_on_every_write() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    q(&mut s, "CREATE TABLE t (id INT PRIMARY KEY, a INT CHECK (a > 0), b INT, CHECK (b < a))");
    q(&mut s, "INSERT INTO t VALUES (1, 5, 1), (2, NULL, 7), (3, 4, NULL)");
    let e = err(&mut s, "INSERT INTO t VALUES (4, -1, NULL)");
    assert_eq!(
        (e.code(), e.sqlstate(), e.to_string().as_str()),
        (3819, "HY000", "Check constraint 't_chk_1' is violated.")
    );
    // Statement atomicity: the first row of a failing INSERT is not kept.
    assert_eq!(code(&mut s, "INSERT INTO t VALUES (5, 1, 0), (6, 1, 2)"), 3819);
    assert_eq!(code(&mut s, "UPDATE t SET b = 10 WHERE id = 1"), 3819);
    assert_eq!(code(&mut s, "UPDATE t SET a = a - 10"), 3819);
    assert_eq!(code(&mut s, "REPLACE INTO t VALUES (1, 0, 0)"), 3819);
    assert_eq!(
        code(&mut s, "INSERT INTO t VALUES (1, 2, 3) ON DUPLICATE KEY UPDATE b = 100"),
        3819
    );
    assert_eq!(code(&mut s, "INSERT INTO t SELECT id + 10, -a, b FROM t WHERE id = 1"), 3819);
    assert_eq!(rows(&mut s, "SELECT COUNT(*) FROM t")[0][0], "3");
    // IGNORE: the row is skipped with warning 3819.
    q(&mut s, "INSERT IGNORE INTO t VALUES (7, -1, NULL), (8, 2, 1)");
    assert_eq!(
        rows(&mut s, "SHOW WARNINGS"),
        [["Warning", "3819", "Check constraint 't_chk_1' is violated."]]
    );
    q(&mut s, "UPDATE IGNORE t SET b = 50 WHERE id = 1");
    assert_eq!(rows(&mut s, "SELECT b FROM t WHERE id = 1")[0][0], "1");
    assert_eq!(rows(&mut s, "SELECT id FROM t ORDER BY id"), [["1"], ["2"], ["3"], ["8"]]);
    // NOT ENFORCED: not checked; ENFORCED again: the rows are validated first.
    q(&mut s, "ALTER TABLE t ALTER CHECK t_chk_2 NOT ENFORCED");
    q(&mut s, "UPDATE t SET b = 100 WHERE id = 1");
    assert_eq!(code(&mut s, "ALTER TABLE t ALTER CONSTRAINT t_chk_2 ENFORCED"), 3819);
    q(&mut s, "UPDATE t SET b = 0 WHERE id = 1");
    q(&mut s, "ALTER TABLE t ALTER CONSTRAINT t_chk_2 ENFORCED");
    assert_eq!(code(&mut s, "UPDATE t SET b = 100 WHERE id = 1"), 3819);
    // CREATE TABLE ... SELECT checks the rows it copies.
    assert_eq!(code(&mut s, "CREATE TABLE c (a INT CHECK (a > 4)) SELECT a FROM t"), 3819);
}

#[test]
fn refused_conditions_as_mysqld() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    let cases: [(&str, u16, &str); 8] = [
        ("CREATE TABLE x (a INT CHECK (a))", 3812,
         "An expression of non-boolean type specified to a check constraint 'x_chk_1'."),
        ("CREATE TABLE x (a INT, b INT CHECK (a > b))", 3813,
         "Column check constraint 'x_chk_1' references other column."),
        ("CREATE TABLE x (a DATETIME, CONSTRAINT c CHECK (a < NOW()))", 3814,
         "An expression of a check constraint 'c' contains disallowed function: now."),
        ("CREATE TABLE x (a INT, CHECK (a > RAND()))", 3814,
         "An expression of a check constraint 'x_chk_1' contains disallowed function: rand."),
        ("CREATE TABLE x (a INT, CHECK (a IN (SELECT 1)))", 3815,
         "An expression of a check constraint 'x_chk_1' contains disallowed function."),
        ("CREATE TABLE x (a INT, CHECK (a > @v))", 3816,
         "An expression of a check constraint 'x_chk_1' cannot refer to a user or system variable."),
        ("CREATE TABLE x (a INT AUTO_INCREMENT PRIMARY KEY, CHECK (a > 0))", 3818,
         "Check constraint 'x_chk_1' cannot refer to an auto-increment column."),
        ("CREATE TABLE x (a INT, CHECK (b > 0))", 3820,
         "Check constraint 'x_chk_1' refers to non-existing column 'b'."),
    ];
    for (sql, code_, message) in cases {
        let e = err(&mut s, sql);
        assert_eq!((e.code(), e.to_string().as_str()), (code_, message), "{sql}");
        assert_eq!(rows(&mut s, "SHOW TABLES").len(), 0, "{sql} created nothing");
    }
    // Names are unique in a database (3822).
    q(&mut s, "CREATE TABLE p (a INT, CONSTRAINT pos CHECK (a > 0))");
    assert_eq!(code(&mut s, "CREATE TABLE q (a INT, CONSTRAINT pos CHECK (a > 0))"), 3822);
    assert_eq!(
        code(
            &mut s,
            "CREATE TABLE q (a INT, CONSTRAINT k CHECK (a > 0), CONSTRAINT K CHECK (a < 9))"
        ),
        3822
    );
}

#[test]
fn alter_table_adds_drops_and_guards_columns() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    q(&mut s, "CREATE TABLE t (a INT, b INT, CHECK (a > 0))");
    q(&mut s, "INSERT INTO t VALUES (1, 5), (2, -5)");
    // Adding an enforced constraint validates the rows; a NOT ENFORCED one does not.
    assert_eq!(code(&mut s, "ALTER TABLE t ADD CHECK (b > 0)"), 3819);
    q(&mut s, "ALTER TABLE t ADD CONSTRAINT bpos CHECK (b > 0) NOT ENFORCED");
    q(&mut s, "ALTER TABLE t ADD CHECK (b < 100)");
    let ddl = create(&mut s, "t");
    assert!(ddl.contains("CONSTRAINT `t_chk_2` CHECK ((`b` < 100))"), "{ddl}");
    // A column used by a constraint cannot be dropped or renamed (3959) unless the
    // constraint goes in the same statement.
    let e = err(&mut s, "ALTER TABLE t DROP COLUMN b");
    assert_eq!(e.code(), 3959);
    assert_eq!(
        e.to_string(),
        "Check constraint 'bpos' uses column 'b', hence column cannot be dropped or renamed."
    );
    assert_eq!(code(&mut s, "ALTER TABLE t RENAME COLUMN a TO z"), 3959);
    q(&mut s, "ALTER TABLE t DROP CHECK bpos, DROP CONSTRAINT t_chk_2, DROP COLUMN b");
    assert_eq!(code(&mut s, "ALTER TABLE t DROP CHECK nope"), 3821);
    assert_eq!(code(&mut s, "ALTER TABLE t ALTER CHECK nope ENFORCED"), 3821);
    assert_eq!(code(&mut s, "ALTER TABLE t DROP CONSTRAINT nope"), 3940);
    // A column added with its own constraint.
    q(&mut s, "ALTER TABLE t ADD COLUMN c INT CONSTRAINT cpos CHECK (c >= 0)");
    assert_eq!(code(&mut s, "INSERT INTO t VALUES (3, -1)"), 3819);
    assert_eq!(
        rows(
            &mut s,
            "SELECT CONSTRAINT_NAME, CONSTRAINT_TYPE, ENFORCED FROM information_schema.\
             TABLE_CONSTRAINTS WHERE TABLE_NAME = 't' ORDER BY 1"
        ),
        [["cpos", "CHECK", "YES"], ["t_chk_1", "CHECK", "YES"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "SELECT CONSTRAINT_SCHEMA, CONSTRAINT_NAME, CHECK_CLAUSE FROM \
             information_schema.CHECK_CONSTRAINTS ORDER BY 2"
        ),
        [["d", "cpos", "(`c` >= 0)"], ["d", "t_chk_1", "(`a` > 0)"]]
    );
}

/// The constraints are part of the table's definition: kept by the DDL redo record and by a
/// checkpoint, enforced after a crash.
#[test]
fn checks_survive_a_crash_and_a_checkpoint() {
    let sim = vfs::SimVfs::new();
    {
        let srv = server_on(&sim);
        let mut s = srv.session("root", "localhost");
        setup(&mut s);
        q(&mut s, "CREATE TABLE t (a INT CHECK (a > 0), b INT, CONSTRAINT lax CHECK (b < 0) NOT ENFORCED)");
        q(&mut s, "CREATE TABLE u (a INT)");
        q(&mut s, "ALTER TABLE u ADD CONSTRAINT upos CHECK (a > 0)");
    }
    for round in 0..2 {
        let (srv, mut s) = after_crash(&sim, "d");
        assert_eq!(code(&mut s, "INSERT INTO t VALUES (0, 1)"), 3819, "round {round}");
        assert_eq!(code(&mut s, "INSERT INTO u VALUES (0)"), 3819, "round {round}");
        q(&mut s, "INSERT INTO t VALUES (1, 1)");
        assert!(create(&mut s, "t")
            .contains("CONSTRAINT `lax` CHECK ((`b` < 0)) /*!80016 NOT ENFORCED */"));
        q(&mut s, "DELETE FROM t");
        if round == 0 {
            srv.engine().checkpoint().expect("checkpoint");
        }
    }
}
