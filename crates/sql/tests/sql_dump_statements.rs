//! The statements dump files and binlog replays are made of, driven in-process: executable
//! comments, the session variables mysqlbinlog output sets, LOCK/UNLOCK TABLES with their
//! privileges, ALTER TABLE ... DISABLE KEYS, SHOW TABLE STATUS and information_schema.TABLES /
//! COLUMNS, SAVEPOINT / ROLLBACK TO / RELEASE, and the statement ends handed to the committer
//! (where the binlog writes STMT_END_F).

#[path = "support/recording.rs"]
mod recording;

use std::path::Path;
use std::sync::Arc;

use engine::{Engine, EngineConfig};
use recording::Recording;
use sql::{Hooks, Output, Server, Session, SqlError};

fn engine() -> Engine {
    let vfs = vfs::SimVfs::new().shared();
    let cfg = EngineConfig { checkpoint_redo_bytes: None, ..EngineConfig::default() };
    Engine::open(vfs, Path::new("/data"), cfg).expect("engine opens").0
}

fn recorded() -> (Arc<Server>, Arc<Recording>) {
    let e = engine();
    let rec = Recording::new(&e);
    let hooks = Hooks { committer: rec.clone(), ..Hooks::without_binlog(&e) };
    (Server::open(e, hooks, &[]).expect("server"), rec)
}

fn q(s: &mut Session, sql: &str) -> Output {
    s.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

fn rows(s: &mut Session, sql: &str) -> Vec<Vec<String>> {
    q(s, sql).text_rows()
}

fn err(s: &mut Session, sql: &str) -> SqlError {
    match s.query(sql) {
        Ok(o) => panic!("{sql}: expected an error, got {o:?}"),
        Err(e) => e,
    }
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
