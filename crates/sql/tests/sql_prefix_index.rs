//! Index prefixes (`KEY (c(10))`): SHOW CREATE TABLE and SHOW INDEX as mysqld 8.0 shows them
//! (sql_show.cc `store_create_info` prints a part's length when it is shorter than the
//! column), mysqld's refusals in `prepare_key_column` (1170, 1391, 1089, 1071), entries cut
//! to the prefix so a UNIQUE prefix judges duplicates on it, reads that re-check the whole
//! value, and definitions and entries kept across a crash and a checkpoint. The MariaDB
//! differential (`crates/binlogd/tests/differential/prefix_index.cases`) checks the answers
//! both servers share.

mod common;

use common::{after_crash, code, err, q, rows, server, server_on, settle};
use sql::Session;

fn create(s: &mut Session, t: &str) -> String {
    rows(s, &format!("SHOW CREATE TABLE {t}"))[0][1].clone()
}

fn ids(s: &mut Session, sql: &str) -> Vec<String> {
    rows(s, sql).into_iter().map(|r| r[0].clone()).collect()
}

#[test]
fn prefixes_are_shown_as_mysqld_shows_them() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    q(&mut s, "CREATE DATABASE d");
    q(&mut s, "USE d");
    q(
        &mut s,
        "CREATE TABLE t (id INT PRIMARY KEY, k VARCHAR(255), v TEXT, c CHAR(10), \
         KEY mk (k(191)), UNIQUE KEY uv (v(20), id), KEY mc (c(10)))",
    );
    let ddl = create(&mut s, "t");
    assert!(ddl.contains("  UNIQUE KEY `uv` (`v`(20),`id`),\n"), "{ddl}");
    assert!(ddl.contains("  KEY `mk` (`k`(191)),\n"), "{ddl}");
    // A length equal to the column's is the whole column (not shown).
    assert!(ddl.contains("  KEY `mc` (`c`)\n"), "{ddl}");
    let mut sub: Vec<(String, String)> = rows(&mut s, "SHOW INDEX FROM t")
        .into_iter()
        .map(|r| (r[2].clone(), r[7].clone()))
        .collect();
    sub.sort();
    let want = [("PRIMARY", "NULL"), ("mc", "NULL"), ("mk", "191"), ("uv", "20"), ("uv", "NULL")];
    let want: Vec<(String, String)> =
        want.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    assert_eq!(sub, want);
    // EXPLAIN's key_len of a prefix: characters × mbmaxlen, 2 length bytes, 1 for NULL.
    let plan = rows(&mut s, "EXPLAIN SELECT id FROM t WHERE k = 'x'");
    assert_eq!((plan[0][6].as_str(), plan[0][7].as_str()), ("mk", "767"), "{plan:?}");
}

#[test]
fn refusals_follow_prepare_key_column() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    q(&mut s, "CREATE DATABASE d");
    q(&mut s, "USE d");
    let e = err(&mut s, "CREATE TABLE a (t TEXT, KEY (t))");
    assert_eq!(
        (e.code(), e.to_string()),
        (1170, "BLOB/TEXT column 't' used in key specification without a key length".into())
    );
    let e = err(&mut s, "CREATE TABLE a (t VARCHAR(10), KEY (t(0)))");
    assert_eq!((e.code(), e.to_string()), (1391, "Key part 't' length cannot be 0".into()));
    assert_eq!(code(&mut s, "CREATE TABLE a (n INT, KEY (n(1)))"), 1089);
    assert_eq!(code(&mut s, "CREATE TABLE a (t VARCHAR(10), KEY (t(11)))"), 1089);
    // 769 utf8mb4 characters are 3 076 bytes: beyond InnoDB's 3 072-byte key part.
    let e = err(&mut s, "CREATE TABLE a (t TEXT, KEY (t(769)))");
    assert_eq!(
        (e.code(), e.to_string()),
        (1071, "Specified key was too long; max key length is 3072 bytes".into())
    );
    q(&mut s, "CREATE TABLE a (t TEXT CHARACTER SET latin1, KEY (t(3072)))");
    // A prefix primary key is not built: refused, not indexed on the whole column.
    assert_eq!(code(&mut s, "CREATE TABLE p (t VARCHAR(10), PRIMARY KEY (t(3)))"), 1235);
    q(&mut s, "CREATE TABLE p (t VARCHAR(10))");
    assert_eq!(code(&mut s, "ALTER TABLE p ADD PRIMARY KEY (t(3))"), 1235);
    // `c(x)` with anything but a number is a syntax error, as in mysqld's grammar.
    assert_eq!(code(&mut s, "CREATE TABLE f (t VARCHAR(10), KEY (t(x)))"), 1064);
    assert_eq!(code(&mut s, "ALTER TABLE p ADD KEY (t('3'))"), 1064);
    assert_eq!(rows(&mut s, "SHOW TABLES").len(), 2);
}

#[test]
fn unique_prefix_judges_duplicates_on_the_prefix() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    q(&mut s, "CREATE DATABASE d");
    q(&mut s, "USE d");
    q(&mut s, "CREATE TABLE u (id INT PRIMARY KEY, s VARCHAR(20), UNIQUE KEY us (s(3)))");
    q(&mut s, "INSERT INTO u VALUES (1, 'abcdef')");
    let e = err(&mut s, "INSERT INTO u VALUES (2, 'ABCxyz')");
    // mysqld prints the key image: the prefix (`key_unpack`).
    assert_eq!((e.code(), e.to_string()), (1062, "Duplicate entry 'ABC' for key 'us'".into()));
    q(&mut s, "INSERT INTO u VALUES (2, 'abd'), (3, 'ab')");
    assert_eq!(ids(&mut s, "SELECT id FROM u WHERE s = 'abcdef'"), ["1"]);
    assert_eq!(ids(&mut s, "SELECT id FROM u WHERE s = 'abc'"), Vec::<String>::new());
    assert_eq!(ids(&mut s, "SELECT id FROM u WHERE s > 'abc' ORDER BY id"), ["1", "2"]);
}

#[test]
fn prefixes_survive_a_crash_and_a_checkpoint() {
    for checkpoint in [false, true] {
        let sim = vfs::SimVfs::new();
        {
            let srv = server_on(&sim);
            let mut s = srv.session("root", "localhost");
            q(&mut s, "CREATE DATABASE d");
            q(&mut s, "USE d");
            q(&mut s, "CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR(20), UNIQUE KEY us (s(2)))");
            q(&mut s, "INSERT INTO t VALUES (1, 'hello'), (2, 'world')");
            q(&mut s, "ALTER TABLE t ADD INDEX ks (s(4)) COMMENT 'c'");
            settle(srv, checkpoint);
        }
        let (_srv, mut s) = after_crash(&sim, "d");
        let ddl = create(&mut s, "t");
        assert!(ddl.contains("  UNIQUE KEY `us` (`s`(2)),\n"), "{checkpoint}: {ddl}");
        assert!(ddl.contains("  KEY `ks` (`s`(4)) COMMENT 'c'\n"), "{checkpoint}: {ddl}");
        assert_eq!(code(&mut s, "INSERT INTO t VALUES (3, 'help')"), 1062);
        assert_eq!(ids(&mut s, "SELECT id FROM t WHERE s = 'world'"), ["2"]);
    }
}
