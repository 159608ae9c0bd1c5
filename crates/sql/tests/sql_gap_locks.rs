//! Gap locks through SQL, two sessions on one server (issue 21): under REPEATABLE READ and
//! SERIALIZABLE a locking read, UPDATE or DELETE locks the key ranges it scanned against the
//! other session's inserts (phantom-free), READ COMMITTED locks rows only; gap locks never
//! wait for each other, an insert into another's gap waits (1205 at the timeout, 1213 on a
//! cycle); a point UPDATE of an existing row takes none. And 1412 per index: an old view reads
//! a table given a new index through its primary key, and only the new index answers 1412.

mod common;

use std::time::Duration;

use common::{code, col, q, spawn_query};
use sql::{Server, Session};

/// Two sessions on database `d` with t(id PK, v, k indexed) holding ids 10, 20, 30 (k = id).
fn setup() -> (std::sync::Arc<Server>, Session, Session) {
    common::two_sessions("INSERT INTO t VALUES (10, 1, 10), (20, 2, 20), (30, 3, 30)")
}

#[test]
fn a_for_update_range_is_phantom_free() {
    let (_srv, mut a, mut b) = setup();
    q(&mut a, "BEGIN");
    assert_eq!(col(&mut a, "SELECT id FROM t WHERE id BETWEEN 10 AND 20 FOR UPDATE"), ["10", "20"]);
    assert_eq!(code(&mut b, "INSERT INTO t VALUES (15, 0, 0)"), 1205);
    q(&mut b, "INSERT INTO t VALUES (25, 0, 0)");
    q(&mut b, "INSERT INTO t VALUES (5, 0, 0)");
    assert_eq!(col(&mut a, "SELECT id FROM t WHERE id BETWEEN 10 AND 20 FOR UPDATE"), ["10", "20"]);
    q(&mut a, "COMMIT");
    q(&mut b, "INSERT INTO t VALUES (15, 0, 0)");
}

#[test]
fn for_share_ranges_block_inserts_and_admit_each_other() {
    let (_srv, mut a, mut b) = setup();
    q(&mut a, "BEGIN");
    q(&mut b, "BEGIN");
    assert_eq!(col(&mut a, "SELECT id FROM t WHERE id > 20 LOCK IN SHARE MODE"), ["30"]);
    assert_eq!(col(&mut b, "SELECT id FROM t WHERE id > 20 FOR SHARE"), ["30"]);
    q(&mut b, "COMMIT");
    assert_eq!(code(&mut b, "INSERT INTO t VALUES (99, 0, 0)"), 1205);
    q(&mut a, "ROLLBACK");
    q(&mut b, "INSERT INTO t VALUES (99, 0, 0)");
}

#[test]
fn an_absent_row_for_update_blocks_its_insert() {
    let (_srv, mut a, mut b) = setup();
    q(&mut a, "BEGIN");
    assert!(col(&mut a, "SELECT id FROM t WHERE id = 15 FOR UPDATE").is_empty());
    assert_eq!(code(&mut b, "INSERT INTO t VALUES (15, 0, 0)"), 1205);
    // Through a secondary index: no row has k = 5; a new one with k = 5 waits.
    assert!(col(&mut a, "SELECT id FROM t WHERE k = 5 FOR UPDATE").is_empty());
    assert_eq!(code(&mut b, "INSERT INTO t VALUES (40, 0, 5)"), 1205);
    q(&mut b, "INSERT INTO t VALUES (41, 0, 6)");
    q(&mut a, "COMMIT");
    q(&mut b, "INSERT INTO t VALUES (15, 0, 5)");
}

#[test]
fn update_and_delete_with_a_range_lock_it() {
    let (_srv, mut a, mut b) = setup();
    q(&mut a, "BEGIN");
    q(&mut a, "UPDATE t SET v = v + 1 WHERE id BETWEEN 10 AND 20");
    assert_eq!(code(&mut b, "INSERT INTO t VALUES (12, 0, 0)"), 1205);
    q(&mut b, "INSERT INTO t VALUES (22, 0, 0)");
    // An UPDATE moving another row's key into the range waits too.
    assert_eq!(code(&mut b, "UPDATE t SET id = 13 WHERE id = 22"), 1205);
    q(&mut a, "COMMIT");
    q(&mut b, "INSERT INTO t VALUES (12, 0, 0)");
    // A DELETE whose WHERE no index serves scans (and locks) the whole table.
    q(&mut a, "BEGIN");
    q(&mut a, "DELETE FROM t WHERE v = 999");
    assert_eq!(code(&mut b, "INSERT INTO t VALUES (1000, 0, 0)"), 1205);
    assert_eq!(code(&mut b, "INSERT INTO t VALUES (1, 0, 0)"), 1205);
    q(&mut a, "ROLLBACK");
    q(&mut b, "INSERT INTO t VALUES (1000, 0, 0)");
}

#[test]
fn read_committed_takes_no_gap_locks() {
    let (_srv, mut a, mut b) = setup();
    q(&mut a, "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED");
    q(&mut a, "BEGIN");
    assert_eq!(col(&mut a, "SELECT id FROM t WHERE id BETWEEN 10 AND 20 FOR UPDATE"), ["10", "20"]);
    assert!(col(&mut a, "SELECT id FROM t WHERE id = 15 FOR UPDATE").is_empty());
    q(&mut a, "UPDATE t SET v = v + 1 WHERE id BETWEEN 10 AND 30");
    q(&mut a, "DELETE FROM t WHERE v = 999");
    q(&mut b, "INSERT INTO t VALUES (15, 0, 0)");
    q(&mut b, "INSERT INTO t VALUES (16, 0, 0)");
    // ... but rows stay locked.
    assert_eq!(code(&mut b, "UPDATE t SET v = 0 WHERE id = 10"), 1205);
    q(&mut a, "COMMIT");
    // READ UNCOMMITTED likewise.
    q(&mut a, "SET SESSION TRANSACTION ISOLATION LEVEL READ UNCOMMITTED");
    q(&mut a, "BEGIN");
    q(&mut a, "SELECT id FROM t WHERE id > 100 FOR UPDATE");
    q(&mut b, "INSERT INTO t VALUES (101, 0, 0)");
    q(&mut a, "COMMIT");
}

#[test]
fn serializable_plain_reads_lock_their_ranges() {
    let (_srv, mut a, mut b) = setup();
    q(&mut a, "SET SESSION TRANSACTION ISOLATION LEVEL SERIALIZABLE");
    q(&mut a, "BEGIN");
    assert_eq!(col(&mut a, "SELECT id FROM t WHERE id >= 20"), ["20", "30"]);
    assert_eq!(code(&mut b, "INSERT INTO t VALUES (25, 0, 0)"), 1205);
    q(&mut b, "INSERT INTO t VALUES (15, 0, 0)");
    q(&mut a, "COMMIT");
    q(&mut b, "INSERT INTO t VALUES (25, 0, 0)");
}

#[test]
fn two_inserts_into_each_others_gaps_deadlock() {
    let (_srv, mut a, mut b) = setup();
    q(&mut a, "SET SESSION innodb_lock_wait_timeout = 20");
    q(&mut b, "SET SESSION innodb_lock_wait_timeout = 20");
    q(&mut a, "BEGIN");
    q(&mut b, "BEGIN");
    // Both lock the gap between 10 and 20 at once: gap locks are compatible.
    assert!(col(&mut a, "SELECT id FROM t WHERE id BETWEEN 11 AND 19 FOR UPDATE").is_empty());
    assert!(col(&mut b, "SELECT id FROM t WHERE id BETWEEN 11 AND 19 FOR UPDATE").is_empty());
    let waiter = spawn_query(b, "INSERT INTO t VALUES (12, 0, 0)");
    std::thread::sleep(Duration::from_millis(200));
    assert!(!waiter.is_finished(), "b's insert waits for a's gap lock");
    assert_eq!(code(&mut a, "INSERT INTO t VALUES (13, 0, 0)"), 1213);
    // 1213 rolled a back; b's insert goes on.
    let (mut b, r) = waiter.join().expect("thread");
    r.expect("b's insert after the deadlock");
    q(&mut b, "COMMIT");
    assert_eq!(col(&mut a, "SELECT id FROM t WHERE id BETWEEN 11 AND 19"), ["12"]);
}

#[test]
fn a_point_update_of_an_existing_row_locks_no_gap() {
    let (_srv, mut a, mut b) = setup();
    q(&mut a, "BEGIN");
    q(&mut a, "UPDATE t SET v = 5 WHERE id = 10");
    q(&mut a, "DELETE FROM t WHERE id = 20");
    assert_eq!(col(&mut a, "SELECT id FROM t WHERE id = 30 FOR UPDATE"), ["30"]);
    for id in [9, 11, 19, 21, 29, 31] {
        q(&mut b, &format!("INSERT INTO t VALUES ({id}, 0, 0)"));
    }
    q(&mut a, "COMMIT");
}

#[test]
fn a_limited_locking_read_locks_up_to_its_last_row() {
    let (_srv, mut a, mut b) = setup();
    q(&mut a, "BEGIN");
    assert_eq!(col(&mut a, "SELECT id FROM t ORDER BY id LIMIT 1 FOR UPDATE"), ["10"]);
    assert_eq!(code(&mut b, "INSERT INTO t VALUES (5, 0, 0)"), 1205);
    q(&mut b, "INSERT INTO t VALUES (15, 0, 0)");
    q(&mut b, "INSERT INTO t VALUES (100, 0, 0)");
    q(&mut a, "COMMIT");
}

/// A locking read with a WHERE, an ORDER BY its index gives and a LIMIT locks the rows up to
/// its LIMIT-th match only (InnoDB's scan stops there): go-tpc's Delivery reads
/// `... WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id LIMIT 1 FOR UPDATE` over hundreds
/// of rows. A row whose newest image fails the WHERE is skipped and the scan goes on.
#[test]
fn a_limited_locking_read_with_a_where_stops_at_its_limit() {
    let (_srv, mut a, mut b) = setup();
    q(&mut a, "BEGIN");
    assert_eq!(
        col(&mut a, "SELECT id FROM t WHERE id >= 10 ORDER BY id LIMIT 1 FOR UPDATE"),
        ["10"]
    );
    q(&mut b, "UPDATE t SET v = 5 WHERE id = 20");
    q(&mut b, "INSERT INTO t VALUES (15, 0, 15)");
    assert_eq!(code(&mut b, "UPDATE t SET v = 5 WHERE id = 10"), 1205);
    assert_eq!(
        col(&mut a, "SELECT id FROM t WHERE id >= 10 AND v > 1 ORDER BY id LIMIT 1 FOR UPDATE"),
        ["20"]
    );
    assert_eq!(code(&mut b, "UPDATE t SET v = 6 WHERE id = 20"), 1205);
    q(&mut b, "UPDATE t SET v = 6 WHERE id = 30");
    // Backward, through the secondary index: the last row only.
    q(&mut a, "COMMIT");
    q(&mut a, "BEGIN");
    assert_eq!(
        col(&mut a, "SELECT id FROM t WHERE k > 0 ORDER BY k DESC LIMIT 1 FOR UPDATE"),
        ["30"]
    );
    q(&mut b, "UPDATE t SET v = 7 WHERE id = 20");
    assert_eq!(code(&mut b, "UPDATE t SET v = 7 WHERE id = 30"), 1205);
    q(&mut a, "COMMIT");
}

#[test]
fn insert_select_locks_its_source_range() {
    let (_srv, mut a, mut b) = setup();
    q(&mut a, "CREATE TABLE u (id INT PRIMARY KEY)");
    q(&mut a, "BEGIN");
    q(&mut a, "INSERT INTO u SELECT id FROM t WHERE id >= 20");
    assert_eq!(code(&mut b, "INSERT INTO t VALUES (25, 0, 0)"), 1205);
    q(&mut a, "COMMIT");
    q(&mut b, "INSERT INTO t VALUES (25, 0, 0)");
}

/// 1412 per index: a view older than ALTER TABLE ... ADD INDEX reads the table through its
/// primary key (and older indexes); only a read through the new index answers 1412.
#[test]
fn an_old_view_reads_through_older_indexes_after_add_index() {
    let (_srv, mut a, mut b) = setup();
    q(&mut a, "START TRANSACTION WITH CONSISTENT SNAPSHOT");
    q(&mut b, "UPDATE t SET v = 7 WHERE id = 10");
    q(&mut b, "ALTER TABLE t ADD INDEX vv (v)");
    assert_eq!(col(&mut a, "SELECT v FROM t ORDER BY id"), ["1", "2", "3"]);
    assert_eq!(col(&mut a, "SELECT id FROM t WHERE id = 10"), ["10"]);
    assert_eq!(col(&mut a, "SELECT v FROM t WHERE k = 10"), ["1"], "older index kk");
    let e = a.query("SELECT id FROM t FORCE INDEX (vv) WHERE v = 7").expect_err("new index");
    assert_eq!((e.code(), e.sqlstate()), (1412, "HY000"));
    // The transaction stays usable; a new one reads through the new index.
    assert_eq!(col(&mut a, "SELECT COUNT(*) FROM t"), ["3"]);
    q(&mut a, "COMMIT");
    assert_eq!(col(&mut a, "SELECT id FROM t FORCE INDEX (vv) WHERE v = 7"), ["10"]);
    // A table truncated after the view answers 1412 whole.
    q(&mut a, "START TRANSACTION WITH CONSISTENT SNAPSHOT");
    q(&mut b, "TRUNCATE TABLE t");
    assert_eq!(code(&mut a, "SELECT COUNT(*) FROM t"), 1412);
    assert_eq!(code(&mut a, "SELECT id FROM t WHERE id = 10"), 1412);
    q(&mut a, "COMMIT");
}
