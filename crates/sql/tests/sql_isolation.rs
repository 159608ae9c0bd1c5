//! Isolation levels through SQL, two sessions on one server: REPEATABLE READ keeps its read
//! view (no concurrent insert, update or delete seen), READ COMMITTED sees each commit,
//! READ UNCOMMITTED sees uncommitted rows, locking reads and UPDATE read the newest committed
//! rows and lock them, SERIALIZABLE turns plain SELECTs into locking reads inside a
//! transaction, `SET TRANSACTION` scopes, the history list as a status variable.

mod common;

use std::time::Duration;

use common::{code, col, q, spawn_query};
use sql::{Server, Session};

fn one(s: &mut Session, sql: &str) -> String {
    let r = q(s, sql).text_rows();
    assert_eq!(r.len(), 1, "{sql}: {r:?}");
    r[0][0].clone()
}

/// Two sessions on database `d` with t(id PK, v, k indexed) holding (1,10,1), (2,20,2), (3,30,3).
fn setup() -> (std::sync::Arc<Server>, Session, Session) {
    common::two_sessions("INSERT INTO t VALUES (1, 10, 1), (2, 20, 2), (3, 30, 3)")
}

fn concurrent_changes(b: &mut Session) {
    q(b, "INSERT INTO t VALUES (4, 40, 4)");
    q(b, "UPDATE t SET v = 11, k = 9 WHERE id = 1");
    q(b, "DELETE FROM t WHERE id = 2");
}

#[test]
fn repeatable_read_sees_no_concurrent_insert_update_or_delete() {
    let (_srv, mut a, mut b) = setup();
    assert_eq!(one(&mut a, "SELECT @@transaction_isolation"), "REPEATABLE-READ");
    q(&mut a, "BEGIN");
    assert_eq!(one(&mut a, "SELECT COUNT(*) FROM t"), "3");
    concurrent_changes(&mut b);
    assert_eq!(one(&mut a, "SELECT COUNT(*) FROM t"), "3");
    assert_eq!(col(&mut a, "SELECT v FROM t ORDER BY id"), ["10", "20", "30"]);
    assert_eq!(one(&mut a, "SELECT v FROM t WHERE id = 1"), "10");
    assert_eq!(col(&mut a, "SELECT id FROM t WHERE k = 1"), ["1"], "through the old index entry");
    assert!(col(&mut a, "SELECT id FROM t WHERE k = 9").is_empty());
    assert!(col(&mut a, "SELECT id FROM t WHERE id = 4").is_empty());
    q(&mut a, "COMMIT");
    assert_eq!(col(&mut a, "SELECT v FROM t ORDER BY id"), ["11", "30", "40"]);
}

#[test]
fn consistent_snapshot_is_taken_at_start_transaction() {
    let (_srv, mut a, mut b) = setup();
    q(&mut a, "START TRANSACTION WITH CONSISTENT SNAPSHOT");
    concurrent_changes(&mut b);
    assert_eq!(one(&mut a, "SELECT COUNT(*) FROM t"), "3");
    q(&mut a, "COMMIT");
    // Without WITH CONSISTENT SNAPSHOT the view is taken at the first read.
    q(&mut a, "START TRANSACTION");
    q(&mut b, "INSERT INTO t VALUES (5, 50, 5)");
    assert_eq!(one(&mut a, "SELECT COUNT(*) FROM t"), "4");
    q(&mut a, "ROLLBACK");
}

#[test]
fn read_committed_sees_each_commit_and_read_uncommitted_sees_uncommitted_rows() {
    let (_srv, mut a, mut b) = setup();
    q(&mut a, "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED");
    assert_eq!(one(&mut a, "SELECT @@tx_isolation"), "READ-COMMITTED");
    q(&mut a, "BEGIN");
    assert_eq!(one(&mut a, "SELECT COUNT(*) FROM t"), "3");
    concurrent_changes(&mut b);
    assert_eq!(col(&mut a, "SELECT v FROM t ORDER BY id"), ["11", "30", "40"]);
    q(&mut a, "COMMIT");

    q(&mut a, "SET SESSION transaction_isolation = 'READ-UNCOMMITTED'");
    q(&mut b, "BEGIN");
    q(&mut b, "UPDATE t SET v = 99 WHERE id = 3");
    assert_eq!(one(&mut a, "SELECT v FROM t WHERE id = 3"), "99", "a dirty read");
    q(&mut a, "SET SESSION transaction_isolation = 'REPEATABLE-READ'");
    assert_eq!(one(&mut a, "SELECT v FROM t WHERE id = 3"), "30");
    q(&mut b, "ROLLBACK");
}

#[test]
fn locking_reads_and_updates_read_the_newest_rows_and_lock_them() {
    let (_srv, mut a, mut b) = setup();
    q(&mut a, "BEGIN");
    assert_eq!(one(&mut a, "SELECT v FROM t WHERE id = 3"), "30");
    q(&mut b, "UPDATE t SET v = v + 1 WHERE id = 3");
    // The consistent read keeps the view; the locking reads see the commit.
    assert_eq!(one(&mut a, "SELECT v FROM t WHERE id = 3"), "30");
    assert_eq!(one(&mut a, "SELECT v FROM t WHERE id = 3 FOR UPDATE"), "31");
    assert_eq!(one(&mut a, "SELECT v FROM t WHERE id = 3 LOCK IN SHARE MODE"), "31");
    assert_eq!(one(&mut a, "SELECT v FROM t WHERE id = 3"), "30");
    // The row is locked: another writer times out (1205).
    assert_eq!(code(&mut b, "UPDATE t SET v = 0 WHERE id = 3"), 1205);
    // UPDATE reads the newest image: no lost increment.
    q(&mut b, "UPDATE t SET v = v + 100 WHERE id = 1");
    q(&mut a, "UPDATE t SET v = v + 1 WHERE id = 1");
    assert_eq!(one(&mut a, "SELECT v FROM t WHERE id = 1"), "111", "its own change is seen");
    // A range locking read sees a row inserted after the view was taken.
    q(&mut b, "INSERT INTO t VALUES (7, 70, 7)");
    assert_eq!(col(&mut a, "SELECT id FROM t WHERE id > 2 FOR UPDATE"), ["3", "7"]);
    assert_eq!(col(&mut a, "SELECT id FROM t WHERE id > 2"), ["3"]);
    q(&mut a, "COMMIT");
    assert_eq!(one(&mut b, "SELECT v FROM t WHERE id = 1"), "111");
}

#[test]
fn serializable_reads_lock_inside_a_transaction() {
    let (_srv, mut a, mut b) = setup();
    q(&mut a, "SET SESSION TRANSACTION ISOLATION LEVEL SERIALIZABLE");
    // Autocommit: a consistent read, no lock left behind.
    assert_eq!(one(&mut a, "SELECT v FROM t WHERE id = 2"), "20");
    q(&mut b, "UPDATE t SET v = 21 WHERE id = 2");
    q(&mut a, "SET autocommit = 0");
    assert_eq!(one(&mut a, "SELECT v FROM t WHERE id = 2"), "21");
    assert_eq!(code(&mut b, "UPDATE t SET v = 22 WHERE id = 2"), 1205);
    q(&mut a, "COMMIT");
    q(&mut b, "UPDATE t SET v = 22 WHERE id = 2");
}

#[test]
fn set_transaction_scopes() {
    let (_srv, mut a, mut b) = setup();
    // No scope: the next transaction only.
    q(&mut a, "SET TRANSACTION ISOLATION LEVEL READ COMMITTED");
    q(&mut a, "BEGIN");
    assert_eq!(code(&mut a, "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE"), 1568);
    assert_eq!(one(&mut a, "SELECT COUNT(*) FROM t"), "3");
    q(&mut b, "INSERT INTO t VALUES (8, 80, 8)");
    assert_eq!(one(&mut a, "SELECT COUNT(*) FROM t"), "4", "READ COMMITTED this once");
    q(&mut a, "COMMIT");
    q(&mut a, "BEGIN");
    assert_eq!(one(&mut a, "SELECT COUNT(*) FROM t"), "4");
    q(&mut b, "INSERT INTO t VALUES (9, 90, 9)");
    assert_eq!(one(&mut a, "SELECT COUNT(*) FROM t"), "4", "back to REPEATABLE READ");
    q(&mut a, "COMMIT");
    q(&mut a, "SET GLOBAL TRANSACTION ISOLATION LEVEL READ COMMITTED");
    assert_eq!(one(&mut a, "SELECT @@global.transaction_isolation"), "READ-COMMITTED");
    assert_eq!(one(&mut a, "SELECT @@global.tx_isolation"), "READ-COMMITTED");
    assert_eq!(one(&mut a, "SELECT @@session.transaction_isolation"), "REPEATABLE-READ");
    assert_eq!(code(&mut a, "SET TRANSACTION ISOLATION LEVEL SOMETIMES"), 1064);
}

#[test]
fn the_history_list_grows_under_an_open_view_and_is_purged_after_it() {
    let (_srv, mut a, mut b) = setup();
    let status = |s: &mut Session, name: &str| {
        let r = q(s, &format!("SHOW GLOBAL STATUS LIKE '{name}'")).text_rows();
        r[0][1].parse::<u64>().expect("a number")
    };
    q(&mut a, "START TRANSACTION WITH CONSISTENT SNAPSHOT");
    for i in 0..50 {
        q(&mut b, &format!("UPDATE t SET v = {i} WHERE id = 3"));
    }
    assert_eq!(status(&mut b, "Innodb_history_list_length"), 50);
    assert_eq!(one(&mut a, "SELECT v FROM t WHERE id = 3"), "30");
    q(&mut a, "COMMIT");
    // The engine's background purge (every 100 ms) empties the list.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while status(&mut b, "Innodb_history_list_length") > 0 {
        assert!(std::time::Instant::now() < deadline, "purge did not run");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(status(&mut b, "Innodb_read_views_open"), 0);
}

#[test]
fn flush_tables_with_read_lock_blocks_writers_until_unlock_tables() {
    let (_srv, mut a, b) = setup();
    q(&mut a, "FLUSH TABLES WITH READ LOCK");
    assert_eq!(code(&mut a, "INSERT INTO t VALUES (10, 1, 1)"), 1223);
    let writer = spawn_query(b, "INSERT INTO t VALUES (11, 1, 1)");
    std::thread::sleep(Duration::from_millis(300));
    assert!(!writer.is_finished(), "the insert waits for the read lock");
    // Reads go on.
    assert_eq!(one(&mut a, "SELECT COUNT(*) FROM t"), "3");
    q(&mut a, "UNLOCK TABLES");
    let (mut b, r) = writer.join().expect("writer");
    r.expect("the insert ran after UNLOCK TABLES");
    assert_eq!(one(&mut a, "SELECT COUNT(*) FROM t"), "4");
    // Bounded by lock_wait_timeout (1205); a COMMIT of changes waits too.
    q(&mut b, "BEGIN");
    q(&mut b, "INSERT INTO t VALUES (12, 1, 1)");
    q(&mut a, "FLUSH TABLES WITH READ LOCK");
    q(&mut b, "SET SESSION lock_wait_timeout = 1");
    assert_eq!(code(&mut b, "COMMIT"), 1205);
    assert_eq!(code(&mut b, "CREATE TABLE u (x INT)"), 1205);
    // A disconnect releases the lock.
    drop(a);
    q(&mut b, "COMMIT");
    assert_eq!(one(&mut b, "SELECT COUNT(*) FROM t"), "5");
}

#[test]
fn lock_tables_rules() {
    let (srv, mut a, mut b) = setup();
    q(&mut a, "CREATE TABLE u (x INT PRIMARY KEY)");
    q(&mut b, "SET SESSION lock_wait_timeout = 1");
    q(&mut a, "LOCK TABLES t READ");
    assert_eq!(one(&mut a, "SELECT COUNT(*) FROM t"), "3");
    assert_eq!(code(&mut a, "SELECT * FROM u"), 1100);
    // information_schema needs no table lock (mariadb-dump reads it under LOCK TABLES).
    assert_eq!(
        one(&mut a, "SELECT COUNT(*) FROM information_schema.TABLES WHERE table_name = 'u'"),
        "1"
    );
    assert_eq!(code(&mut a, "INSERT INTO t VALUES (20, 1, 1)"), 1099);
    assert_eq!(one(&mut b, "SELECT COUNT(*) FROM t"), "3", "others read a READ-locked table");
    assert_eq!(code(&mut b, "INSERT INTO t VALUES (21, 1, 1)"), 1205);
    q(&mut b, "INSERT INTO u VALUES (1)");
    q(&mut a, "UNLOCK TABLES");
    q(&mut b, "INSERT INTO t VALUES (21, 1, 1)");

    q(&mut a, "LOCK TABLES t WRITE, u READ");
    q(&mut a, "INSERT INTO t VALUES (22, 1, 1)");
    assert_eq!(code(&mut b, "SELECT COUNT(*) FROM t"), 1205, "a WRITE lock blocks readers");
    assert_eq!(one(&mut b, "SELECT COUNT(*) FROM u"), "1");
    // The reader waits, then runs once BEGIN released the locks.
    q(&mut b, "SET SESSION lock_wait_timeout = 30");
    let reader = spawn_query(b, "SELECT COUNT(*) FROM t");
    std::thread::sleep(Duration::from_millis(200));
    assert!(!reader.is_finished());
    q(&mut a, "BEGIN");
    let (_b, r) = reader.join().expect("reader");
    assert_eq!(r.expect("read after BEGIN").text_rows()[0][0], "5");
    q(&mut a, "COMMIT");
    assert_eq!(code(&mut a, "LOCK TABLES nope READ"), 1146);
    let mut c = srv.session("root", "localhost");
    q(&mut c, "USE d");
    q(&mut c, "FLUSH TABLES t WITH READ LOCK");
    assert_eq!(code(&mut c, "SELECT * FROM u"), 1100);
    q(&mut c, "UNLOCK TABLES");
    q(&mut c, "LOCK INSTANCE FOR BACKUP");
    q(&mut a, "INSERT INTO u VALUES (2)");
    q(&mut a, "SET SESSION lock_wait_timeout = 1");
    assert_eq!(code(&mut a, "CREATE TABLE v (x INT)"), 1205, "backup lock blocks DDL");
    q(&mut c, "UNLOCK INSTANCE");
    q(&mut a, "CREATE TABLE v (x INT)");
}

/// FOR SHARE and LOCK IN SHARE MODE take shared locks (InnoDB's S): two transactions hold
/// one on the same row at once, a writer waits for them (1205 here), FOR UPDATE waits too,
/// and an S lock is upgraded by the same transaction's UPDATE once it is the only one; two
/// transactions upgrading the same row deadlock (1213, the victim rolled back).
#[test]
fn shared_locks_admit_each_other_and_hold_off_writers() {
    let (srv, mut a, mut b) = setup();
    let mut c = srv.session("root", "localhost");
    q(&mut c, "USE d");
    q(&mut a, "BEGIN");
    q(&mut b, "BEGIN");
    assert_eq!(one(&mut a, "SELECT v FROM t WHERE id = 1 FOR SHARE"), "10");
    assert_eq!(one(&mut b, "SELECT v FROM t WHERE id = 1 LOCK IN SHARE MODE"), "10");
    assert_eq!(code(&mut c, "UPDATE t SET v = 0 WHERE id = 1"), 1205);
    assert_eq!(code(&mut c, "SELECT v FROM t WHERE id = 1 FOR UPDATE"), 1205);
    // A plain read never waits.
    assert_eq!(one(&mut c, "SELECT v FROM t WHERE id = 1"), "10");
    q(&mut b, "COMMIT");
    q(&mut a, "UPDATE t SET v = 11 WHERE id = 1");
    // Now a holds X: S of another waits.
    assert_eq!(code(&mut c, "SELECT v FROM t WHERE id = 1 FOR SHARE"), 1205);
    q(&mut a, "COMMIT");
    assert_eq!(one(&mut c, "SELECT v FROM t WHERE id = 1 FOR SHARE"), "11");

    // Both hold S on row 2, both try to write it: the second to wait closes the cycle.
    q(&mut a, "BEGIN");
    q(&mut b, "BEGIN");
    assert_eq!(one(&mut a, "SELECT v FROM t WHERE id = 2 FOR SHARE"), "20");
    assert_eq!(one(&mut b, "SELECT v FROM t WHERE id = 2 FOR SHARE"), "20");
    let waiter = std::thread::spawn(move || {
        let r = a.query("UPDATE t SET v = 21 WHERE id = 2").map(|_| ());
        (r.map_err(|e| e.code()), a)
    });
    std::thread::sleep(Duration::from_millis(50));
    let err = code(&mut b, "UPDATE t SET v = 22 WHERE id = 2");
    let (r, mut a) = waiter.join().expect("thread");
    // One of them is the victim (1213, rolled back), the other's update goes through; with a
    // 300 ms lock wait timeout the waiter may also time out first (1205) if the victim's
    // rollback is late: only a deadlock report is accepted from the second.
    assert_eq!(err, 1213, "b closes the cycle");
    assert_eq!(r, Ok(()), "a's upgrade proceeds once b is rolled back");
    q(&mut a, "COMMIT");
    assert_eq!(one(&mut b, "SELECT v FROM t WHERE id = 2"), "21");
}

/// SERIALIZABLE's plain SELECT in a transaction takes shared locks: two such readers of a
/// row do not wait for each other; a writer waits for them.
#[test]
fn serializable_readers_share_their_locks() {
    let (_srv, mut a, mut b) = setup();
    for s in [&mut a, &mut b] {
        q(s, "SET SESSION TRANSACTION ISOLATION LEVEL SERIALIZABLE");
        q(s, "BEGIN");
        assert_eq!(one(s, "SELECT v FROM t WHERE id = 3"), "30");
    }
    q(&mut b, "COMMIT");
    q(&mut b, "SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ");
    assert_eq!(code(&mut b, "UPDATE t SET v = 0 WHERE id = 3"), 1205);
    q(&mut a, "COMMIT");
    q(&mut b, "UPDATE t SET v = 0 WHERE id = 3");
}

/// A consistent read of a table created or truncated (or given an index) after the transaction's read
/// view began answers 1412 (ER_TABLE_DEF_CHANGED, HY000), as mysqld with InnoDB; the
/// transaction stays usable and a new one reads the table.
#[test]
fn a_snapshot_older_than_a_table_definition_gets_1412() {
    let (_srv, mut a, mut b) = setup();
    q(&mut a, "START TRANSACTION WITH CONSISTENT SNAPSHOT");
    q(&mut b, "CREATE TABLE n (id INT PRIMARY KEY)");
    q(&mut b, "INSERT INTO n VALUES (1)");
    let e = a.query("SELECT * FROM n").expect_err("newer table");
    assert_eq!((e.code(), e.sqlstate()), (1412, "HY000"));
    assert_eq!(e.to_string(), "Table definition has changed, please retry transaction");
    assert_eq!(one(&mut a, "SELECT COUNT(*) FROM t"), "3", "older tables still read");
    // A locking read reads the newest definition and rows.
    assert_eq!(one(&mut a, "SELECT id FROM n WHERE id = 1 FOR SHARE"), "1");
    q(&mut b, "TRUNCATE TABLE t");
    assert_eq!(code(&mut a, "SELECT COUNT(*) FROM t"), 1412);
    q(&mut a, "COMMIT");
    assert_eq!(one(&mut a, "SELECT COUNT(*) FROM n"), "1");
    assert_eq!(one(&mut a, "SELECT COUNT(*) FROM t"), "0");
}

/// `SET TRANSACTION READ ONLY` (no scope) makes the next transaction read-only (1792 for a
/// write, SQLSTATE 25006), that one only; inside a transaction it is 1568; `SET TRANSACTION
/// READ WRITE` makes the next one writable even with the session's transaction_read_only ON.
#[test]
fn set_transaction_read_only_applies_to_the_next_transaction_only() {
    let (_srv, mut a, _b) = setup();
    q(&mut a, "SET TRANSACTION READ ONLY");
    q(&mut a, "BEGIN");
    let e = a.query("INSERT INTO t VALUES (10, 1, 1)").expect_err("read only");
    assert_eq!((e.code(), e.sqlstate()), (1792, "25006"));
    assert_eq!(code(&mut a, "SET TRANSACTION READ WRITE"), 1568);
    assert_eq!(one(&mut a, "SELECT COUNT(*) FROM t"), "3");
    q(&mut a, "COMMIT");
    q(&mut a, "BEGIN");
    q(&mut a, "INSERT INTO t VALUES (10, 1, 1)");
    q(&mut a, "COMMIT");
    // An autocommit statement is the next transaction too.
    q(&mut a, "SET TRANSACTION READ ONLY");
    assert_eq!(code(&mut a, "UPDATE t SET v = 0 WHERE id = 10"), 1792);
    q(&mut a, "UPDATE t SET v = 0 WHERE id = 10");
    // READ WRITE for one transaction over a read-only session.
    q(&mut a, "SET SESSION transaction_read_only = ON");
    assert_eq!(code(&mut a, "DELETE FROM t WHERE id = 10"), 1792);
    q(&mut a, "SET TRANSACTION READ WRITE");
    q(&mut a, "START TRANSACTION");
    q(&mut a, "DELETE FROM t WHERE id = 10");
    q(&mut a, "COMMIT");
    assert_eq!(code(&mut a, "INSERT INTO t VALUES (11, 1, 1)"), 1792);
}

/// LOCK TABLES waits for transactions that already use the table, as mysqld's metadata locks
/// make it (a transaction's MDL_SHARED_READ/WRITE is held to its end): a WRITE lock waits for
/// any open use, a READ lock only for a write; the user goes on using its table while the
/// LOCK TABLES waits; a user that would wait for a LOCK TABLES waiting for it gets 1213.
#[test]
fn lock_tables_waits_for_open_transactions_using_the_table() {
    let (srv, mut a, mut b) = setup();
    q(&mut b, "SET SESSION lock_wait_timeout = 1");
    q(&mut a, "BEGIN");
    assert_eq!(one(&mut a, "SELECT COUNT(*) FROM t"), "3");
    // A WRITE lock waits for a's open transaction, which read t (1205 after 1 s).
    assert_eq!(code(&mut b, "LOCK TABLES t WRITE"), 1205);
    // A READ lock does not: a only read.
    q(&mut b, "LOCK TABLES t READ");
    q(&mut b, "UNLOCK TABLES");
    // The WRITE lock is granted once a commits; a waits for it from then on.
    q(&mut b, "SET SESSION lock_wait_timeout = 30");
    let locker = spawn_query(b, "LOCK TABLES t WRITE");
    std::thread::sleep(Duration::from_millis(200));
    assert!(!locker.is_finished(), "LOCK TABLES waits for a's transaction");
    // a already uses t: it reads on while the LOCK TABLES waits.
    assert_eq!(one(&mut a, "SELECT COUNT(*) FROM t"), "3");
    // Writing t would wait for the LOCK TABLES that waits for a: a deadlock, a rolled back.
    assert_eq!(code(&mut a, "UPDATE t SET v = v + 1 WHERE id = 1"), 1213);
    let (mut b, r) = locker.join().expect("locker");
    r.expect("granted after a's transaction ended");
    q(&mut b, "INSERT INTO t VALUES (30, 1, 1)");
    q(&mut a, "SET SESSION lock_wait_timeout = 1");
    assert_eq!(code(&mut a, "SELECT COUNT(*) FROM t"), 1205);
    q(&mut b, "UNLOCK TABLES");
    assert_eq!(one(&mut a, "SELECT COUNT(*) FROM t"), "4");

    // A write in an open transaction holds off a READ lock too; autocommit statements hold
    // their table only while they run.
    q(&mut a, "BEGIN");
    q(&mut a, "UPDATE t SET v = v + 1 WHERE id = 2");
    let mut c = srv.session("root", "localhost");
    q(&mut c, "USE d");
    q(&mut c, "SET SESSION lock_wait_timeout = 1");
    assert_eq!(code(&mut c, "LOCK TABLES t READ"), 1205);
    q(&mut a, "ROLLBACK");
    q(&mut c, "LOCK TABLES t READ");
    q(&mut c, "UNLOCK TABLES");
    q(&mut a, "INSERT INTO t VALUES (31, 1, 1)");
    q(&mut c, "LOCK TABLES t WRITE");
    q(&mut c, "UNLOCK TABLES");
    // A disconnect ends the use.
    q(&mut a, "BEGIN");
    assert_eq!(one(&mut a, "SELECT COUNT(*) FROM t"), "5");
    drop(a);
    q(&mut c, "LOCK TABLES t WRITE");
    q(&mut c, "UNLOCK TABLES");
}
