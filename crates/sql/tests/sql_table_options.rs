//! Table options kept with the definition (issue 20): `AUTO_INCREMENT = n` of CREATE TABLE
//! and ALTER TABLE (InnoDB's rule: never below the largest value in use plus one), table and
//! column COMMENTs, as SHOW CREATE TABLE, SHOW FULL COLUMNS, SHOW TABLE STATUS and
//! information_schema show them; both survive a crash. Expected answers are mysqld 8.0's
//! (manual, "ALTER TABLE Statement", "InnoDB AUTO_INCREMENT Counter Initialization";
//! sql_show.cc `store_create_info`).

mod common;

use common::{after_crash, err, q, rows, server, server_on, settle};
use sql::Session;

fn create(s: &mut Session, t: &str) -> String {
    rows(s, &format!("SHOW CREATE TABLE {t}"))[0][1].clone()
}

fn one(s: &mut Session, sql: &str) -> String {
    rows(s, sql)[0][0].clone()
}

#[test]
fn auto_increment_option_sets_the_next_value_as_innodb() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    q(&mut s, "CREATE DATABASE d");
    q(&mut s, "USE d");
    q(&mut s, "CREATE TABLE t (id INT AUTO_INCREMENT PRIMARY KEY, v INT) AUTO_INCREMENT=10");
    assert!(create(&mut s, "t").contains(") ENGINE=InnoDB AUTO_INCREMENT=10 DEFAULT CHARSET"));
    q(&mut s, "INSERT INTO t (v) VALUES (1), (2)");
    assert_eq!(rows(&mut s, "SELECT id FROM t ORDER BY id"), [["10"], ["11"]]);
    // Below the largest value in use: the largest plus one.
    q(&mut s, "ALTER TABLE t AUTO_INCREMENT = 3");
    let ai = "SELECT AUTO_INCREMENT FROM information_schema.TABLES WHERE TABLE_NAME = 't'";
    assert_eq!(one(&mut s, ai), "12");
    // Above it: set, and lowered again down to the largest plus one.
    q(&mut s, "ALTER TABLE t AUTO_INCREMENT 1000");
    assert_eq!(one(&mut s, ai), "1000");
    q(&mut s, "ALTER TABLE t AUTO_INCREMENT = 500, ADD COLUMN w INT");
    assert_eq!(one(&mut s, ai), "500");
    q(&mut s, "INSERT INTO t (v) VALUES (3)");
    assert_eq!(one(&mut s, "SELECT MAX(id) FROM t"), "500");
    assert!(create(&mut s, "t").contains("AUTO_INCREMENT=501 "));
    assert_eq!(rows(&mut s, "SHOW TABLE STATUS LIKE 't'")[0][10], "501");
    // A counter of 1 is not shown (mysqld prints it only when > 1).
    q(&mut s, "CREATE TABLE e (id INT AUTO_INCREMENT PRIMARY KEY) AUTO_INCREMENT=1");
    assert!(!create(&mut s, "e").contains("AUTO_INCREMENT="));
    // Not a number: a syntax error, nothing created.
    assert_eq!(err(&mut s, "CREATE TABLE f (id INT) AUTO_INCREMENT='x'").code(), 1064);
    assert_eq!(err(&mut s, "ALTER TABLE t AUTO_INCREMENT = -1").code(), 1064);
}

#[test]
fn comments_are_stored_shown_and_altered() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    q(&mut s, "CREATE DATABASE d");
    q(&mut s, "USE d");
    q(
        &mut s,
        "CREATE TABLE t (id INT PRIMARY KEY COMMENT 'the key', v VARCHAR(5) COMMENT 'it''s v') \
         COMMENT='people\\'s table'",
    );
    let ddl = create(&mut s, "t");
    assert!(ddl.contains("`id` int NOT NULL COMMENT 'the key',"), "{ddl}");
    assert!(ddl.contains("`v` varchar(5) DEFAULT NULL COMMENT 'it''s v'"), "{ddl}");
    assert!(ddl.ends_with(" COMMENT='people''s table'"), "{ddl}");
    let full = rows(&mut s, "SHOW FULL COLUMNS FROM t");
    assert_eq!(full[0][8], "the key");
    assert_eq!(full[1][8], "it's v");
    assert_eq!(
        rows(
            &mut s,
            "SELECT COLUMN_NAME, COLUMN_COMMENT FROM information_schema.COLUMNS \
             WHERE TABLE_NAME = 't' ORDER BY ORDINAL_POSITION"
        ),
        [["id", "the key"], ["v", "it's v"]]
    );
    let tc = "SELECT TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_NAME = 't'";
    assert_eq!(one(&mut s, tc), "people's table");
    assert_eq!(rows(&mut s, "SHOW TABLE STATUS LIKE 't'")[0][17], "people's table");
    // ALTER changes them; MODIFY without COMMENT drops the column's (mysqld: the new
    // definition replaces the old whole).
    q(&mut s, "ALTER TABLE t COMMENT = 'x', MODIFY v VARCHAR(5) COMMENT 'new v'");
    assert_eq!(one(&mut s, tc), "x");
    assert!(create(&mut s, "t").contains("COMMENT 'new v'"));
    q(&mut s, "ALTER TABLE t MODIFY v VARCHAR(6)");
    assert!(!create(&mut s, "t").contains("new v"));
    q(&mut s, "ALTER TABLE t COMMENT ''");
    assert!(!create(&mut s, "t").contains("COMMENT="));
    // CREATE TABLE ... LIKE copies them.
    q(&mut s, "CREATE TABLE c LIKE t");
    assert!(create(&mut s, "c").contains("COMMENT 'the key'"));
    // Too long: 1628 (table, 2048 characters) and 1629 (column, 1024); nothing changes.
    let long = "é".repeat(2049);
    let e = err(&mut s, &format!("ALTER TABLE t COMMENT '{long}'"));
    assert_eq!(
        (e.code(), e.to_string()),
        (1628, "Comment for table 't' is too long (max = 2048)".into())
    );
    let e = err(&mut s, &format!("CREATE TABLE n (a INT COMMENT '{}')", &long[..2050]));
    assert_eq!(e.code(), 1629, "{e}");
    assert!(e.to_string().contains("Comment for field 'a' is too long (max = 1024)"));
    q(&mut s, &format!("CREATE TABLE n (a INT COMMENT '{}')", "é".repeat(1024)));
    assert_eq!(one(&mut s, tc), "");
}

#[test]
fn options_survive_a_crash_and_a_checkpoint() {
    for checkpoint in [false, true] {
        let sim = vfs::SimVfs::new();
        {
            let srv = server_on(&sim);
            let mut s = srv.session("root", "localhost");
            q(&mut s, "CREATE DATABASE d");
            q(&mut s, "USE d");
            q(
                &mut s,
                "CREATE TABLE t (id BIGINT AUTO_INCREMENT PRIMARY KEY COMMENT 'k') \
                 AUTO_INCREMENT=7 COMMENT='c'",
            );
            q(&mut s, "INSERT INTO t (id) VALUES (NULL), (NULL)");
            q(&mut s, "DELETE FROM t");
            q(&mut s, "ALTER TABLE t AUTO_INCREMENT=40, COMMENT='c2'");
            settle(srv, checkpoint);
        }
        let (_srv, mut s) = after_crash(&sim, "d");
        let ddl = create(&mut s, "d.t");
        assert!(ddl.contains("`id` bigint NOT NULL AUTO_INCREMENT COMMENT 'k'"), "{ddl}");
        assert!(ddl.contains("AUTO_INCREMENT=40 "), "{checkpoint}: {ddl}");
        assert!(ddl.ends_with("COMMENT='c2'"), "{ddl}");
        q(&mut s, "INSERT INTO d.t (id) VALUES (NULL)");
        assert_eq!(one(&mut s, "SELECT id FROM d.t"), "40");
    }
}

/// Index COMMENTs (CREATE TABLE, CREATE INDEX, ALTER TABLE ADD INDEX): kept with the
/// definition, shown by SHOW CREATE TABLE after the key parts (mysqld's `store_key_options`),
/// by SHOW INDEX's Index_comment and information_schema.STATISTICS.INDEX_COMMENT, carried by
/// ALTER TABLE, 1688 beyond 1024 characters, and kept across a crash through the DDL redo
/// records and a checkpoint.
#[test]
fn index_comments_are_kept_shown_and_survive_a_crash() {
    for checkpoint in [false, true] {
        let sim = vfs::SimVfs::new();
        {
            let srv = server_on(&sim);
            let mut s = srv.session("root", "localhost");
            q(&mut s, "CREATE DATABASE d");
            q(&mut s, "USE d");
            q(
                &mut s,
                "CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT, c INT, \
                 UNIQUE KEY ua (a) COMMENT 'unique a', KEY kb (b) USING BTREE COMMENT 'it''s b')",
            );
            q(&mut s, "CREATE INDEX kc ON t (c) COMMENT 'made by create index'");
            q(&mut s, "ALTER TABLE t ADD INDEX kbc (b, c) COMMENT 'added', ADD COLUMN z INT");
            let ddl = create(&mut s, "t");
            assert!(ddl.contains("  UNIQUE KEY `ua` (`a`) COMMENT 'unique a',\n"), "{ddl}");
            assert!(ddl.contains("  KEY `kb` (`b`) COMMENT 'it''s b',\n"), "{ddl}");
            assert!(ddl.contains("  KEY `kc` (`c`) COMMENT 'made by create index',\n"), "{ddl}");
            assert!(ddl.contains("  KEY `kbc` (`b`,`c`) COMMENT 'added'\n"), "{ddl}");
            // A rename keeps the comment; a long one is refused and changes nothing.
            q(&mut s, "ALTER TABLE t RENAME INDEX kb TO kb2");
            let e =
                err(&mut s, &format!("CREATE INDEX kz ON t (z) COMMENT '{}'", "x".repeat(1025)));
            assert_eq!(
                (e.code(), e.to_string()),
                (1688, "Comment for index 'kz' is too long (max = 1024)".into())
            );
            q(&mut s, &format!("CREATE INDEX kz ON t (z) COMMENT '{}'", "é".repeat(1024)));
            q(&mut s, "DROP INDEX kz ON t");
            settle(srv, checkpoint);
        }
        let (_srv, mut s) = after_crash(&sim, "d");
        let ddl = create(&mut s, "t");
        assert!(ddl.contains("  KEY `kb2` (`b`) COMMENT 'it''s b',\n"), "{checkpoint}: {ddl}");
        assert!(ddl.contains("  KEY `kc` (`c`) COMMENT 'made by create index',\n"), "{ddl}");
        let shown: Vec<Vec<String>> = rows(&mut s, "SHOW INDEX FROM t")
            .into_iter()
            .map(|r| vec![r[2].clone(), r[12].clone()])
            .collect();
        let expect = |k: &str, c: &str| vec![k.to_string(), c.to_string()];
        assert_eq!(
            shown,
            vec![
                expect("PRIMARY", ""),
                expect("ua", "unique a"),
                expect("kb2", "it's b"),
                expect("kc", "made by create index"),
                expect("kbc", "added"),
                expect("kbc", "added"),
            ]
        );
        assert_eq!(
            rows(
                &mut s,
                "SELECT INDEX_NAME, INDEX_COMMENT FROM information_schema.STATISTICS \
                 WHERE TABLE_NAME = 't' AND SEQ_IN_INDEX = 1 AND INDEX_COMMENT <> '' \
                 ORDER BY INDEX_NAME"
            ),
            vec![
                expect("kb2", "it's b"),
                expect("kbc", "added"),
                expect("kc", "made by create index"),
                expect("ua", "unique a"),
            ]
        );
    }
}
