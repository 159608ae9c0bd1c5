//! The statements dump files and binlog replays are made of, driven in-process: executable
//! comments, the session variables mysqlbinlog output sets, LOCK/UNLOCK TABLES with their
//! privileges, ALTER TABLE ... DISABLE KEYS, SHOW TABLE STATUS and information_schema.TABLES /
//! COLUMNS, SAVEPOINT / ROLLBACK TO / RELEASE, and the statement ends handed to the committer
//! (where the binlog writes STMT_END_F).

mod common;
#[path = "support/recording.rs"]
mod recording;

use std::sync::Arc;

use common::{engine, err, q, rows};
use recording::Recording;
use sql::{Hooks, Output, Server, Session};

fn recorded() -> (Arc<Server>, Arc<Recording>) {
    let e = engine();
    let rec = Recording::new(&e);
    let hooks = Hooks { committer: rec.clone(), ..Hooks::without_binlog(&e) };
    (Server::open(e, hooks, &[]).expect("server"), rec)
}

fn one(s: &mut Session, sql: &str) -> String {
    rows(s, sql).remove(0).remove(0)
}

#[test]
fn executable_comments_run_as_mysqld_runs_them() {
    let (srv, _) = recorded();
    let mut s = srv.session("root", "localhost");
    // The first lines of every mariadb-dump file.
    q(&mut s, "/*M!999999\\- enable the sandbox mode */");
    q(&mut s, "/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */");
    q(&mut s, "/*!40101 SET NAMES utf8mb4 */");
    q(&mut s, "/*!40014 SET @OLD_UNIQUE_CHECKS=@@UNIQUE_CHECKS, UNIQUE_CHECKS=0 */");
    assert_eq!(one(&mut s, "SELECT @@unique_checks"), "0");
    assert_eq!(one(&mut s, "SELECT @OLD_UNIQUE_CHECKS"), "1");
    q(&mut s, "/*!40101 SET @OLD_SQL_MODE=@@SQL_MODE, SQL_MODE='NO_AUTO_VALUE_ON_ZERO' */");
    // A newer version's comment is a comment; MariaDB's /*M! too.
    q(&mut s, "/*!90000 SET UNIQUE_CHECKS=1 */");
    q(&mut s, "/*M!100616 SET UNIQUE_CHECKS=1 */");
    assert_eq!(one(&mut s, "SELECT @@unique_checks"), "0");
    q(&mut s, "/*!80040 SET UNIQUE_CHECKS=1 */");
    assert_eq!(one(&mut s, "SELECT @@unique_checks"), "1");
    // Inside statements.
    q(&mut s, "CREATE DATABASE d /*!40100 DEFAULT CHARACTER SET utf8mb4 */");
    q(&mut s, "CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(20))");
    q(&mut s, "INSERT /*!40000 IGNORE */ INTO d.t VALUES (1, '/*!40000 x */')");
    q(&mut s, "INSERT /*!40000 IGNORE */ INTO d.t VALUES (1, 'dup')");
    assert_eq!(one(&mut s, "SELECT /*!40001 SQL_NO_CACHE */ v FROM d.t"), "/*!40000 x */");
    // Nothing but a comment is mysqld's empty statement (OK); nothing at all is 1065.
    q(&mut s, "/* just a comment */");
    assert_eq!(err(&mut s, "   ").code(), 1065);
    // Text that is still not SQL after the comments are applied stays a syntax error.
    assert_eq!(err(&mut s, "/*!40101 SET */").code(), 1064);
}

#[test]
fn mysqlbinlog_session_variables_are_accepted() {
    let (srv, _) = recorded();
    let mut s = srv.session("root", "localhost");
    for sql in [
        "/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=1*/",
        "SET @@session.pseudo_thread_id=5",
        "SET TIMESTAMP=1795643586",
        "SET @@session.foreign_key_checks=1, @@session.sql_auto_is_null=0, @@session.unique_checks=1, @@session.autocommit=1",
        "SET @@session.sql_mode=1168113696",
        "SET @@session.auto_increment_increment=1, @@session.auto_increment_offset=1",
        "SET @@session.character_set_client=255,@@session.collation_connection=255,@@session.collation_server=255",
        "SET @@session.lc_time_names=0",
        "SET @@session.collation_database=DEFAULT",
        "/*!80001 SET @@session.original_commit_timestamp=1700000000000000*/",
        "/*!80014 SET @@session.original_server_version=80040*/",
        "/*!80014 SET @@session.immediate_server_version=80040*/",
        "SET @@SESSION.GTID_NEXT= 'AUTOMATIC'",
        "ROLLBACK",
    ] {
        if let Err(e) = s.query(sql) {
            // `sql_mode` as a number is mysqld's bit set; binlogd keeps its modes by name.
            assert!(sql.contains("sql_mode"), "{sql}: {e}");
        }
    }
    assert_eq!(one(&mut s, "SELECT @@character_set_client"), "utf8mb4");
    assert_eq!(one(&mut s, "SELECT @@collation_connection"), "utf8mb4_0900_ai_ci");
    assert_eq!(one(&mut s, "SELECT @@lc_time_names"), "en_US");
    assert_eq!(one(&mut s, "SELECT @@pseudo_slave_mode"), "1");
    assert_eq!(err(&mut s, "SET @@session.collation_connection=9999").code(), 1273);
}

#[test]
fn table_status_and_information_schema() {
    let (srv, _) = recorded();
    let mut s = srv.session("root", "localhost");
    q(&mut s, "CREATE DATABASE d");
    q(&mut s, "USE d");
    q(&mut s, "CREATE TABLE a (id INT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(10) NOT NULL)");
    q(&mut s, "CREATE TABLE b (x DECIMAL(6,2))");
    q(&mut s, "INSERT INTO a (v) VALUES ('x'), ('y'), ('z')");
    let out = q(&mut s, "SHOW TABLE STATUS");
    assert_eq!(out.column_names().len(), 18);
    assert_eq!(out.column_names()[4], "Rows");
    let status = out.text_rows();
    assert_eq!(status.len(), 2);
    assert_eq!(&status[0][..5], ["a", "InnoDB", "10", "Dynamic", "3"]);
    assert_eq!(status[0][10], "4", "next AUTO_INCREMENT");
    assert_eq!(status[1][4], "0");
    assert_eq!(rows(&mut s, "SHOW TABLE STATUS FROM d LIKE 'b'").len(), 1);
    assert_eq!(rows(&mut s, "SHOW TABLE STATUS WHERE Name = 'a'").len(), 1);
    assert_eq!(err(&mut s, "SHOW TABLE STATUS FROM nope").code(), 1049);
    assert_eq!(
        rows(
            &mut s,
            "SELECT engine, table_type, table_rows FROM INFORMATION_SCHEMA.TABLES \
             WHERE table_schema = DATABASE() AND table_name = 'a'"
        ),
        [["InnoDB", "BASE TABLE", "3"]]
    );
    assert_eq!(
        rows(
            &mut s,
            "select column_name, data_type, column_type, is_nullable, column_key, extra \
             from information_schema.columns where table_schema=database() and table_name='a' \
             order by ordinal_position"
        ),
        [
            ["id", "int", "int", "NO", "PRI", "auto_increment"],
            ["v", "varchar", "varchar(10)", "NO", "", ""]
        ]
    );
    // Objects binlogd does not have: the tables exist and are empty.
    assert!(rows(&mut s, "SELECT TRIGGER_NAME FROM INFORMATION_SCHEMA.TRIGGERS").is_empty());
    assert!(rows(&mut s, "SELECT * FROM information_schema.ROUTINES").is_empty());
    // DISABLE/ENABLE KEYS: OK with mysqld's note, on an existing table only.
    q(&mut s, "/*!40000 ALTER TABLE `a` DISABLE KEYS */");
    assert_eq!(rows(&mut s, "SHOW WARNINGS")[0][1], "1031");
    q(&mut s, "ALTER TABLE d.a ENABLE KEYS");
    assert_eq!(err(&mut s, "ALTER TABLE nope DISABLE KEYS").code(), 1146);
}

#[test]
fn lock_tables_needs_lock_tables_and_select() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (users, _) = accounts::Users::open(dir.path(), true).expect("users");
    let (srv, _) = recorded();
    srv.attach_accounts(Arc::new(users));
    let mut root = srv.session("root", "localhost");
    q(&mut root, "CREATE DATABASE d");
    q(&mut root, "CREATE TABLE d.t (id INT PRIMARY KEY)");
    q(&mut root, "CREATE USER u@localhost, w@localhost");
    q(&mut root, "GRANT SELECT ON d.* TO u@localhost");
    q(&mut root, "GRANT SELECT, LOCK TABLES ON d.* TO w@localhost");
    q(&mut root, "LOCK TABLES d.t WRITE, d.t AS x READ LOCAL");
    q(&mut root, "UNLOCK TABLES");
    assert_eq!(err(&mut root, "LOCK TABLES d.nope READ").code(), 1146);
    let mut u = srv.session("u", "localhost");
    assert_eq!(err(&mut u, "LOCK TABLES d.t READ").code(), 1142);
    let mut w = srv.session("w", "localhost");
    q(&mut w, "LOCK TABLES d.t READ");
    q(&mut w, "UNLOCK TABLES");
    assert_eq!(err(&mut w, "LOCK TABLES d.t FOR").code(), 1064);
}

#[test]
fn savepoints_undo_rows_and_the_commit_keeps_the_rest() {
    let (srv, rec) = recorded();
    let mut s = srv.session("root", "localhost");
    q(&mut s, "CREATE DATABASE d");
    q(&mut s, "USE d");
    q(&mut s, "CREATE TABLE t (id INT PRIMARY KEY, v INT)");
    q(&mut s, "INSERT INTO t VALUES (1, 1)");
    q(&mut s, "BEGIN");
    q(&mut s, "UPDATE t SET v = 2 WHERE id = 1");
    q(&mut s, "SAVEPOINT a");
    q(&mut s, "INSERT INTO t VALUES (2, 2)");
    q(&mut s, "SAVEPOINT b");
    q(&mut s, "DELETE FROM t WHERE id = 1");
    q(&mut s, "ROLLBACK TO SAVEPOINT a");
    assert_eq!(rows(&mut s, "SELECT id, v FROM t"), [["1", "2"]]);
    // b was after a: gone; a stays until released.
    assert_eq!(err(&mut s, "ROLLBACK TO b").code(), 1305);
    q(&mut s, "INSERT INTO t VALUES (3, 3)");
    q(&mut s, "ROLLBACK WORK TO a");
    q(&mut s, "RELEASE SAVEPOINT a");
    assert_eq!(err(&mut s, "RELEASE SAVEPOINT a").code(), 1305);
    q(&mut s, "COMMIT");
    assert_eq!(rows(&mut s, "SELECT id, v FROM t"), [["1", "2"]]);
    // The committed transaction holds only the update that remained.
    let last = rec.changes().pop().expect("a commit");
    assert_eq!(last.changes.len(), 1);
    assert_eq!(last.statement_ends, [1]);
    // Under autocommit outside a transaction, SAVEPOINT does nothing.
    q(&mut s, "SAVEPOINT x");
    assert_eq!(err(&mut s, "ROLLBACK TO x").code(), 1305);
}

#[test]
fn statement_ends_reach_the_committer() {
    let (srv, rec) = recorded();
    let mut s = srv.session("root", "localhost");
    q(&mut s, "CREATE DATABASE d");
    q(&mut s, "USE d");
    q(&mut s, "CREATE TABLE a (id INT PRIMARY KEY)");
    q(&mut s, "CREATE TABLE b (id INT PRIMARY KEY)");
    q(&mut s, "BEGIN");
    q(&mut s, "INSERT INTO a VALUES (1), (2)");
    q(&mut s, "UPDATE a SET id = id WHERE id = 99");
    q(&mut s, "INSERT INTO b VALUES (1)");
    // A failed statement is undone and leaves no statement end.
    assert_eq!(err(&mut s, "INSERT INTO a VALUES (3), (1)").code(), 1062);
    q(&mut s, "DELETE FROM a WHERE id = 2");
    q(&mut s, "COMMIT");
    let last = rec.changes().pop().expect("a commit");
    assert_eq!(last.changes.len(), 4);
    assert_eq!(last.statement_ends, [2, 3, 4]);
    assert!(last.statement_ends_after(1));
    assert!(last.statement_ends_after(2));
    assert!(!last.statement_ends_after(0));
    assert!(!last.statement_ends_after(3), "the transaction's end is not a statement's here");
}

/// The session values handed to the committer with each transaction and DDL, for their QUERY
/// events: the character sets' ids (`SET NAMES … COLLATE …`, numeric ids as mysqlbinlog output
/// sets them, latin1), `sql_mode` bits, flags2, auto_increment and `pseudo_thread_id`, as
/// mysqld's `Query_log_event` takes them from the THD.
#[test]
fn query_context_follows_the_session() {
    let (srv, rec) = recorded();
    let mut s = srv.session_with_id(42, "root", "localhost");
    q(&mut s, "CREATE DATABASE d");
    q(&mut s, "USE d");
    q(&mut s, "SET NAMES utf8mb4 COLLATE utf8mb4_general_ci");
    q(&mut s, "SET collation_server = 'utf8mb4_general_ci'");
    q(&mut s, "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))");
    q(&mut s, "SET NAMES latin1");
    q(&mut s, "SET sql_mode = 'ANSI_QUOTES,STRICT_ALL_TABLES', foreign_key_checks = 0");
    q(&mut s, "SET auto_increment_increment = 2, pseudo_thread_id = 9");
    q(&mut s, "INSERT INTO t VALUES (1, 'a')");
    q(&mut s, "SET @@session.character_set_client=45,@@session.collation_connection=45");
    q(&mut s, "SET autocommit = 0, unique_checks = 0");
    q(&mut s, "DROP TABLE t");

    let ddl = rec.ddl_contexts.lock().expect("lock").clone();
    let ctx = |i: usize| ddl[i].clone().expect("a context with every DDL");
    // CREATE DATABASE: the defaults of a fresh session, its connection id as thread id.
    let c = ctx(0);
    assert_eq!(c.thread_id, 42);
    assert_eq!(c.status.charset, Some((255, 255, 255)));
    assert_eq!(c.status.sql_mode, Some(binlog::event::MYSQL80_DEFAULT_SQL_MODE));
    assert_eq!(c.status.flags2, Some(0));
    assert_eq!(c.status.auto_increment, None);
    // CREATE TABLE after SET NAMES … COLLATE utf8mb4_general_ci.
    assert_eq!(ctx(1).status.charset, Some((45, 45, 45)));
    // DROP TABLE: ids set by number, autocommit and unique checks off.
    let c = ctx(2);
    assert_eq!(c.thread_id, 9);
    assert_eq!(c.status.charset, Some((45, 45, 45)));
    assert_eq!(c.status.sql_mode, Some(4 | 1 << 22));
    assert_eq!(c.status.flags2, Some(1 << 19 | 1 << 26 | 1 << 27));
    assert_eq!(c.status.auto_increment, Some((2, 1)));
    // The INSERT's transaction: latin1 (8) for client and connection.
    let changes = rec.changes();
    let c = changes.last().and_then(|c| c.context.clone()).expect("a context with the rows");
    assert_eq!(c.thread_id, 9);
    assert_eq!(c.status.charset, Some((8, 8, 45)));
    assert_eq!(c.status.flags2, Some(1 << 26));
}

/// GTID_SUBSET, GTID_SUBTRACT and WAIT_FOR_EXECUTED_GTID_SET with mysqld's results and errors.
#[test]
fn gtid_set_functions() {
    let (srv, _) = recorded();
    let mut s = srv.session("root", "localhost");
    let a = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
    let b = "4e11fa47-71ca-11e1-9e33-c80aa9429562";
    assert_eq!(one(&mut s, &format!("SELECT GTID_SUBSET('{a}:1-3', '{a}:1-5')")), "1");
    assert_eq!(one(&mut s, &format!("SELECT GTID_SUBSET('{a}:1-3,{b}:1', '{a}:1-5')")), "0");
    assert_eq!(one(&mut s, "SELECT GTID_SUBSET('', '')"), "1");
    assert_eq!(
        one(&mut s, &format!("SELECT GTID_SUBTRACT('{a}:1-10,{b}:5', '{a}:4-6')")),
        format!("{a}:1-3:7-10,\n{b}:5")
    );
    assert_eq!(rows(&mut s, "SELECT GTID_SUBTRACT(NULL, '')"), vec![vec!["NULL".to_string()]]);
    let e = err(&mut s, "SELECT GTID_SUBTRACT('x:1', '')");
    assert_eq!((e.code(), e.sqlstate()), (1772, "HY000"));
    assert_eq!(e.to_string(), "Malformed GTID set specification 'x:1'.");
    assert_eq!(err(&mut s, &format!("SELECT GTID_SUBSET('{a}:1', 'bad')")).code(), 1772);
    // Without a binlog gtid_executed is empty: the empty set is there at once, another set
    // times out (1), a negative timeout is 1210.
    assert_eq!(one(&mut s, "SELECT WAIT_FOR_EXECUTED_GTID_SET('')"), "0");
    let started = std::time::Instant::now();
    assert_eq!(one(&mut s, &format!("SELECT WAIT_FOR_EXECUTED_GTID_SET('{a}:1', 0.2)")), "1");
    assert!(started.elapsed() >= std::time::Duration::from_millis(200));
    assert_eq!(
        err(&mut s, &format!("SELECT WAIT_FOR_EXECUTED_GTID_SET('{a}:1', -1)")).code(),
        1210
    );
    assert_eq!(err(&mut s, "SELECT WAIT_FOR_EXECUTED_GTID_SET('nope', 1)").code(), 1772);
}

/// `BINLOG '…'`'s refusals: without SUPER (1227), bad base64 (1575), a row event before any
/// format description (1609).
#[test]
fn binlog_statement_refusals() {
    let (srv, _) = recorded();
    let mut s = srv.session("root", "localhost");
    assert_eq!(err(&mut s, "BINLOG '!!!!'").code(), 1575);
    // A TABLE_MAP header (type 19) of 19 bytes, base64: no FORMAT_DESCRIPTION before it.
    let mut ev = vec![0u8; 19];
    ev[4] = 19;
    ev[9] = 19;
    let text = base64_of(&ev);
    let e = err(&mut s, &format!("BINLOG '{text}'"));
    assert_eq!(e.code(), 1609, "{e}");
    assert!(e.to_string().contains("Table_map"), "{e}");
    // A header claiming more bytes than present: mysqld's syntax error.
    ev[9] = 200;
    assert_eq!(err(&mut s, &format!("BINLOG '{}'", base64_of(&ev))).code(), 1149);
}

fn base64_of(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Single-table `DELETE … ORDER BY … LIMIT` removes the first rows in that order, as mysqld
/// (the rows sorted before the LIMIT applies).
#[test]
fn delete_with_order_by_and_limit() {
    let (srv, rec) = recorded();
    let mut s = srv.session("root", "localhost");
    q(&mut s, "CREATE DATABASE o");
    q(&mut s, "USE o");
    q(&mut s, "CREATE TABLE t (id INT PRIMARY KEY, v INT, w VARCHAR(5))");
    q(&mut s, "INSERT INTO t VALUES (1, 30, 'a'), (2, 10, 'b'), (3, NULL, 'c'), (4, 20, 'd')");
    let out = q(&mut s, "DELETE FROM t ORDER BY v DESC LIMIT 1");
    assert!(matches!(out, Output::Ok { affected_rows: 1, .. }), "{out:?}");
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t WHERE id = 1"), "0");
    // NULL sorts first ascending; a WHERE clause filters before the ORDER BY.
    let out = q(&mut s, "DELETE FROM t WHERE id > 2 ORDER BY v, id LIMIT 1");
    assert!(matches!(out, Output::Ok { affected_rows: 1, .. }), "{out:?}");
    assert_eq!(
        rows(&mut s, "SELECT id FROM t ORDER BY id"),
        vec![vec!["2".to_string()], vec!["4".to_string()]]
    );
    // An expression; LIMIT 0 removes nothing.
    let out = q(&mut s, "DELETE FROM t ORDER BY v * -1 LIMIT 0");
    assert!(matches!(out, Output::Ok { affected_rows: 0, .. }), "{out:?}");
    let out = q(&mut s, "DELETE FROM t ORDER BY v * -1 LIMIT 1");
    assert!(matches!(out, Output::Ok { affected_rows: 1, .. }), "{out:?}");
    assert_eq!(rows(&mut s, "SELECT id FROM t"), vec![vec!["2".to_string()]]);
    assert_eq!(err(&mut s, "DELETE FROM t ORDER BY nope LIMIT 1").code(), 1054);
    assert!(!rec.changes().is_empty());
}

/// information_schema SCHEMATA, STATISTICS, KEY_COLUMN_USAGE and TABLE_CONSTRAINTS (what
/// Debezium's snapshot and drivers' DatabaseMetaData read): mysqld 8.0's columns, the keys in
/// order, each row only for what the account may see, through WHERE / ORDER BY / column lists.
#[test]
fn information_schema_keys_and_schemata_show_what_the_account_may_see() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (users, _) = accounts::Users::open(dir.path(), true).expect("users");
    let (srv, _) = recorded();
    srv.attach_accounts(Arc::new(users));
    let mut root = srv.session("root", "localhost");
    q(&mut root, "CREATE DATABASE d COLLATE utf8mb4_bin");
    q(&mut root, "CREATE DATABASE hidden");
    q(&mut root, "CREATE TABLE d.t (a INT, b VARCHAR(5), c INT, PRIMARY KEY (b, a), UNIQUE KEY u (c), KEY k (c, a))");
    q(&mut root, "CREATE TABLE d.other (id INT PRIMARY KEY)");
    q(&mut root, "CREATE TABLE hidden.h (id INT PRIMARY KEY)");
    let rows = |s: &mut Session, sql: &str| -> Vec<String> {
        q(s, sql).text_rows().into_iter().map(|r| r.join(" ")).collect()
    };
    assert_eq!(
        rows(&mut root, "SELECT SCHEMA_NAME, DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME \
                         FROM information_schema.SCHEMATA WHERE SCHEMA_NAME <> 'information_schema' \
                         ORDER BY SCHEMA_NAME"),
        ["d utf8mb4 utf8mb4_bin", "hidden utf8mb4 utf8mb4_0900_ai_ci"]
    );
    assert_eq!(
        rows(
            &mut root,
            "SELECT INDEX_NAME, NON_UNIQUE, SEQ_IN_INDEX, COLUMN_NAME, NULLABLE \
                         FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'd' \
                         AND TABLE_NAME = 't'"
        ),
        ["PRIMARY 0 1 b ", "PRIMARY 0 2 a ", "u 0 1 c YES", "k 1 1 c YES", "k 1 2 a "]
    );
    assert_eq!(
        rows(
            &mut root,
            "SELECT CONSTRAINT_NAME, COLUMN_NAME, ORDINAL_POSITION \
                         FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_NAME = 't'"
        ),
        ["PRIMARY b 1", "PRIMARY a 2", "u c 1"]
    );
    assert_eq!(
        rows(
            &mut root,
            "SELECT TABLE_NAME, CONSTRAINT_NAME, CONSTRAINT_TYPE \
                         FROM information_schema.TABLE_CONSTRAINTS WHERE TABLE_SCHEMA = 'd' \
                         ORDER BY TABLE_NAME, CONSTRAINT_NAME LIMIT 3"
        ),
        ["other PRIMARY PRIMARY KEY", "t PRIMARY PRIMARY KEY", "t u UNIQUE"]
    );
    // An account with a privilege on d.t only: information_schema and d, t's rows only.
    q(&mut root, "CREATE USER v@localhost");
    q(&mut root, "GRANT SELECT ON d.t TO v@localhost");
    let mut v = srv.session("v", "localhost");
    assert_eq!(
        rows(&mut v, "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA ORDER BY 1"),
        ["d", "information_schema"]
    );
    assert_eq!(
        rows(&mut v, "SELECT DISTINCT TABLE_SCHEMA, TABLE_NAME FROM information_schema.STATISTICS"),
        ["d t"]
    );
    assert_eq!(rows(&mut v, "SELECT COUNT(*) FROM information_schema.KEY_COLUMN_USAGE"), ["3"]);
}

/// Single-table `UPDATE … [ORDER BY …] [LIMIT n]` (MySQL's `update_stmt`): at most n rows,
/// changed in the ORDER BY order, which decides whether a key shift collides (mysqld:
/// `UPDATE t SET id = id + 1 ORDER BY id DESC` succeeds where ascending order hits 1062) and
/// the order of the binlog's row images.
#[test]
fn update_with_order_by_and_limit() {
    let (srv, rec) = recorded();
    let mut s = srv.session("root", "localhost");
    q(&mut s, "CREATE DATABASE o");
    q(&mut s, "USE o");
    q(&mut s, "CREATE TABLE t (id INT PRIMARY KEY, v INT, w VARCHAR(5))");
    q(&mut s, "INSERT INTO t VALUES (1, 30, 'a'), (2, 10, 'b'), (3, NULL, 'c'), (4, 20, 'd')");
    let out = q(&mut s, "UPDATE t SET w = 'x' ORDER BY v DESC LIMIT 2");
    assert!(matches!(out, Output::Ok { affected_rows: 2, .. }), "{out:?}");
    assert_eq!(
        rows(&mut s, "SELECT id FROM t WHERE w = 'x' ORDER BY id"),
        vec![vec!["1".to_string()], vec!["4".to_string()]]
    );
    // LIMIT alone; a WHERE clause filters first; NULL sorts first ascending.
    let out = q(&mut s, "UPDATE t SET w = 'y' WHERE id > 1 ORDER BY v LIMIT 1");
    assert!(matches!(out, Output::Ok { affected_rows: 1, .. }), "{out:?}");
    assert_eq!(one(&mut s, "SELECT w FROM t WHERE id = 3"), "y");
    let out = q(&mut s, "UPDATE t SET v = 0 WHERE v IS NOT NULL LIMIT 1");
    assert!(matches!(out, Output::Ok { affected_rows: 1, .. }), "{out:?}");
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t WHERE v = 0"), "1");
    // Shifting a primary key: descending order never collides; ascending does (1062) and
    // changes nothing (the statement rolls back).
    let before = rec.changes().len();
    let out = q(&mut s, "UPDATE t SET id = id + 1 ORDER BY id DESC");
    assert!(matches!(out, Output::Ok { affected_rows: 4, .. }), "{out:?}");
    let last = rec.changes().pop().expect("a commit");
    assert_eq!(rec.changes().len(), before + 1);
    let afters: Vec<String> =
        last.changes.iter().map(|c| format!("{:?}", c.after.as_ref().unwrap()[0])).collect();
    let mut sorted = afters.clone();
    sorted.sort();
    sorted.reverse();
    assert_eq!(afters.len(), 4);
    assert_eq!(afters, sorted, "binlog rows follow ORDER BY id DESC");
    assert_eq!(err(&mut s, "UPDATE t SET id = id + 1 ORDER BY id").code(), 1062);
    assert_eq!(
        rows(&mut s, "SELECT id FROM t ORDER BY id"),
        (2..=5).map(|i| vec![i.to_string()]).collect::<Vec<_>>()
    );
    let out = q(&mut s, "UPDATE t SET w = 'z' ORDER BY id LIMIT 0");
    assert!(matches!(out, Output::Ok { affected_rows: 0, .. }), "{out:?}");
    assert_eq!(err(&mut s, "UPDATE t SET w = 'z' ORDER BY nope LIMIT 1").code(), 1054);
    assert_eq!(err(&mut s, "UPDATE t SET w = 'z' ORDER BY id LIMIT").code(), 1064);
    assert_eq!(err(&mut s, "UPDATE t SET w = 'z' LIMIT 1 ORDER BY id").code(), 1064);
}
