//! Gap locks (`gaps.rs`): the lock table alone and through the engine's scans, inserts and
//! updates — conflicts, compatibility, release, deadlock through a gap wait — and 1412 per
//! index.

use super::*;

/// An engine whose lock waits give up after 150 ms.
fn short_wait() -> (SimVfs, Engine, TableId) {
    let sim = SimVfs::new();
    let mut cfg = config();
    cfg.lock_wait_timeout = Duration::from_millis(150);
    let (e, _) = Engine::open(sim.shared(), Path::new("/data"), cfg).expect("open");
    let t = table(&e);
    for id in [10, 20, 30] {
        commit_row(&e, t, row(id, id, &format!("n{id}")));
    }
    (sim, e, t)
}

/// A transaction reading as a locking read under REPEATABLE READ.
fn locking(e: &Engine) -> Txn {
    let mut tx = e.begin();
    tx.set_gap_locks(true);
    tx.set_read_latest(true);
    tx
}

fn ids(rows: &[(Key, Row)]) -> Vec<i64> {
    rows.iter()
        .map(|(_, r)| match r[0] {
            Value::Int(i) => i,
            _ => unreachable!("INT id"),
        })
        .collect()
}

fn scan_ids(e: &Engine, tx: &Txn, t: TableId, lo: i64, hi: i64) -> Vec<i64> {
    let (lo, hi) = ([Value::Int(lo)], [Value::Int(hi)]);
    ids(&e.scan(tx, t, Included(&lo[..]), Included(&hi[..]), usize::MAX).expect("scan"))
}

fn try_insert(e: &Engine, t: TableId, id: i64, k: i64) -> Result<()> {
    let mut b = e.begin();
    let r = e.insert(&mut b, t, row(id, k, &format!("x{id}")));
    match r {
        Ok(_) => e.commit(b).map(|_| ()),
        Err(err) => {
            e.rollback(b).expect("rollback");
            Err(err)
        }
    }
}

#[test]
fn a_locked_range_blocks_inserts_into_it_and_nothing_else() {
    let (_sim, e, t) = short_wait();
    let a = locking(&e);
    assert_eq!(scan_ids(&e, &a, t, 10, 20), vec![10, 20]);
    assert_eq!(a.gap_lock_count(), 1);
    // Inside the range: waits (insert intention), here until the timeout.
    assert_eq!(try_insert(&e, t, 15, 0).expect_err("phantom").mysql_code(), 1205);
    // Outside: at once (the interval is exactly what was scanned).
    try_insert(&e, t, 25, 0).expect("after the range");
    try_insert(&e, t, 5, 0).expect("before the range");
    // The holder's own inserts never wait for its own gap locks.
    let mut a = a;
    e.insert(&mut a, t, row(16, 0, "own")).expect("own insert");
    assert_eq!(scan_ids(&e, &a, t, 10, 20), vec![10, 16, 20], "no phantom, own row seen");
    // Released at commit: the blocked insert goes through.
    e.commit(a).expect("commit");
    try_insert(&e, t, 15, 0).expect("after release");
}

#[test]
fn a_blocked_insert_proceeds_when_the_holder_rolls_back() {
    let (_sim, e, t) = short_wait();
    let a = locking(&e);
    scan_ids(&e, &a, t, 11, 19);
    let e2 = e.clone();
    let h = thread::spawn(move || {
        let mut b = e2.begin();
        b.set_lock_wait_timeout(Some(Duration::from_secs(20)));
        let r = e2.insert(&mut b, t, row(15, 0, "b"));
        e2.commit(b).expect("commit");
        r
    });
    while e.inner.waits.lock().is_empty() {
        thread::yield_now();
    }
    assert!(!h.is_finished(), "the insert waits for the gap lock");
    e.rollback(a).expect("rollback");
    h.join().expect("thread").expect("insert after rollback");
}

#[test]
fn gap_locks_are_compatible_and_a_cycle_through_gap_waits_deadlocks() {
    let (_sim, e, t) = short_wait();
    let mut a = locking(&e);
    let b = locking(&e);
    // Both lock the same gap at once: gap locks never wait for each other.
    assert_eq!(scan_ids(&e, &a, t, 11, 19), Vec::<i64>::new());
    assert_eq!(scan_ids(&e, &b, t, 11, 19), Vec::<i64>::new());
    let e2 = e.clone();
    let h = thread::spawn(move || {
        let mut b = b;
        b.set_lock_wait_timeout(Some(Duration::from_secs(20)));
        // b's insert waits for a's gap lock.
        let r = e2.insert(&mut b, t, row(12, 0, "b"));
        if r.is_ok() {
            e2.commit(b).expect("commit");
        }
        r
    });
    while e.inner.waits.lock().is_empty() {
        thread::yield_now();
    }
    a.set_lock_wait_timeout(Some(Duration::from_secs(20)));
    // a's insert would wait for b's: the cycle is found at once.
    let err = e.insert(&mut a, t, row(13, 0, "a")).expect_err("deadlock");
    assert_eq!(err.mysql_code(), 1213);
    e.rollback(a).expect("rollback");
    h.join().expect("thread").expect("b goes on once a is gone");
}

#[test]
fn an_absent_row_locked_blocks_its_insert() {
    let (_sim, e, t) = short_wait();
    let mut a = e.begin();
    a.set_gap_locks(true);
    assert_eq!(e.get_for_update(&mut a, t, &pk(&e, 7)).expect("absent"), None);
    assert_eq!(try_insert(&e, t, 7, 0).expect_err("locked key").mysql_code(), 1205);
    try_insert(&e, t, 8, 0).expect("only the key is locked");
    // A point read under a locking read locks an absent key too; an existing row none.
    let b = locking(&e);
    assert_eq!(e.get(&b, t, &pk(&e, 9)).expect("absent"), None);
    assert_eq!(e.get(&b, t, &pk(&e, 10)).expect("present"), Some(row(10, 10, "n10")));
    assert_eq!(b.gap_lock_count(), 1);
    let mut c = e.begin();
    c.set_gap_locks(true);
    assert!(e.get_for_update(&mut c, t, &pk(&e, 20)).expect("present").is_some());
    assert_eq!(c.gap_lock_count(), 0, "an existing row needs no gap lock");
    assert_eq!(e.get_for_share(&mut c, t, &pk(&e, 6)).expect("absent"), None);
    assert_eq!(c.gap_lock_count(), 1);
    assert_eq!(try_insert(&e, t, 6, 0).expect_err("S on an absent key").mysql_code(), 1205);
    e.commit(a).expect("commit");
    e.commit(b).expect("commit");
    e.commit(c).expect("commit");
    try_insert(&e, t, 7, 0).expect("released");
    try_insert(&e, t, 9, 0).expect("released");
}

#[test]
fn without_gap_locks_nothing_but_rows_is_locked() {
    // READ COMMITTED: a locking read takes no gap lock.
    let (_sim, e, t) = short_wait();
    let mut a = e.begin();
    a.set_read_latest(true);
    assert_eq!(scan_ids(&e, &a, t, 10, 20), vec![10, 20]);
    assert_eq!(e.get_for_update(&mut a, t, &pk(&e, 7)).expect("absent"), None);
    assert_eq!(a.gap_lock_count(), 0);
    try_insert(&e, t, 15, 0).expect("no gap lock");
    try_insert(&e, t, 7, 0).expect("no gap lock");
    // A non-locking read takes none either, with gap locks on.
    let mut b = e.begin();
    b.set_gap_locks(true);
    assert_eq!(scan_ids(&e, &b, t, 10, 20), vec![10, 15, 20]);
    assert_eq!(b.gap_lock_count(), 0);
    try_insert(&e, t, 17, 0).expect("no gap lock");
}

#[test]
fn a_locking_scan_waits_for_an_uncommitted_insert_in_its_range() {
    let (_sim, e, t) = short_wait();
    let mut b = e.begin();
    e.insert(&mut b, t, row(15, 0, "b")).expect("insert");
    let e2 = e.clone();
    let h = thread::spawn(move || {
        let mut a = locking(&e2);
        a.set_lock_wait_timeout(Some(Duration::from_secs(20)));
        let lo = [Value::Int(10)];
        let hi = [Value::Int(20)];
        let r = e2.scan(&a, t, Included(&lo[..]), Included(&hi[..]), usize::MAX).map(|r| ids(&r));
        e2.commit(a).expect("commit");
        r
    });
    while e.inner.waits.lock().is_empty() {
        thread::yield_now();
    }
    e.commit(b).expect("commit");
    assert_eq!(h.join().expect("thread").expect("scan"), vec![10, 15, 20], "sees the insert");
    // Without a lock the wait does not happen: another uncommitted insert is skipped.
    let mut c = e.begin();
    e.insert(&mut c, t, row(16, 0, "c")).expect("insert");
    let mut plain = e.begin();
    plain.set_read_latest(true);
    assert_eq!(scan_ids(&e, &plain, t, 10, 20), vec![10, 15, 20]);
    e.commit(c).expect("commit");
}

#[test]
fn secondary_index_ranges_block_new_entries_there() {
    let (_sim, e, t) = short_wait();
    let a = locking(&e);
    let (lo, hi) = ([Value::Int(11)], [Value::Int(19)]);
    let found = e.scan_index(&a, t, "kk", Included(&lo[..]), Included(&hi[..]), usize::MAX);
    assert!(found.expect("scan").is_empty());
    // A new row whose k falls in the range waits; its primary key is elsewhere.
    assert_eq!(try_insert(&e, t, 100, 15).expect_err("k=15").mysql_code(), 1205);
    try_insert(&e, t, 101, 25).expect("k=25");
    // An update moving a row's k into the range waits too (a new index entry).
    let mut b = e.begin();
    let err = e.update(&mut b, t, &pk(&e, 30), row(30, 12, "n30")).expect_err("moved in");
    assert_eq!(err.mysql_code(), 1205);
    // An update that keeps its entry does not.
    assert!(e.update(&mut b, t, &pk(&e, 10), row(10, 10, "renamed")).expect("same k"));
    e.commit(b).expect("commit");
    e.commit(a).expect("commit");
    try_insert(&e, t, 100, 15).expect("released");
}

#[test]
fn an_update_moving_a_primary_key_into_a_locked_range_waits() {
    let (_sim, e, t) = short_wait();
    let a = locking(&e);
    scan_ids(&e, &a, t, 11, 19);
    let mut b = e.begin();
    let err = e.update(&mut b, t, &pk(&e, 30), row(14, 30, "n30")).expect_err("moved in");
    assert_eq!(err.mysql_code(), 1205);
    e.rollback(b).expect("rollback");
    // A delete of a row next to the gap does not wait for the gap lock.
    let mut c = e.begin();
    assert!(e.delete(&mut c, t, &pk(&e, 30)).expect("delete"));
    e.commit(c).expect("commit");
    e.commit(a).expect("commit");
}

#[test]
fn a_limited_scan_locks_only_what_it_read() {
    let (_sim, e, t) = short_wait();
    let a = locking(&e);
    // The first row only (SELECT ... ORDER BY id LIMIT 1 FOR UPDATE).
    let got = e.scan(&a, t, Unbounded, Unbounded, 1).expect("scan");
    assert_eq!(ids(&got), vec![10]);
    assert_eq!(try_insert(&e, t, 3, 0).expect_err("before the first row").mysql_code(), 1205);
    try_insert(&e, t, 15, 0).expect("after the last row read");
    try_insert(&e, t, 35, 0).expect("after the last row read");
    // Reverse through ranges: the last row only.
    let b = locking(&e);
    let all: ByteRange = (Bound::Unbounded, Bound::Unbounded);
    let got = e.scan_key_ranges(&b, t, None, &[all], 1, true).expect("scan");
    assert_eq!(got.len(), 1);
    assert_eq!(try_insert(&e, t, 40, 0).expect_err("after the last row").mysql_code(), 1205);
    try_insert(&e, t, 33, 0).expect("before the row read");
    e.commit(a).expect("commit");
    e.commit(b).expect("commit");
}

#[test]
fn a_full_scan_blocks_every_insert_and_ddl_waits_for_the_holder() {
    let (_sim, e, t) = short_wait();
    let a = locking(&e);
    assert_eq!(ids(&e.scan(&a, t, Unbounded, Unbounded, usize::MAX).expect("scan")).len(), 3);
    for id in [1, 15, 99] {
        assert_eq!(try_insert(&e, t, id, 0).expect_err("table locked").mysql_code(), 1205);
    }
    // A transaction holding only gap locks is a user of the table: DDL waits for it.
    let err = e.truncate(t).expect_err("ddl waits");
    assert_eq!(err.mysql_code(), 1205);
    drop(a);
    try_insert(&e, t, 15, 0).expect("dropped transaction released its locks");
    e.truncate(t).expect("no user left");
}

#[test]
fn the_lock_table_is_empty_once_transactions_end() {
    let (_sim, e, t) = short_wait();
    let mut txns = Vec::new();
    for i in 0..50 {
        let tx = locking(&e);
        scan_ids(&e, &tx, t, i, i + 1);
        txns.push(tx);
    }
    let tb = e.inner.table(t).expect("table");
    assert_eq!(tb.gaps[0].len(), 50);
    for (i, tx) in txns.into_iter().enumerate() {
        if i % 2 == 0 {
            e.commit(tx).expect("commit");
        } else {
            e.rollback(tx).expect("rollback");
        }
    }
    assert!(tb.gaps.iter().all(|g| g.len() == 0));
}

/// 1412 per index: a view older than an added index reads the table through the primary key
/// and older indexes; only the new index answers 1412. A truncated table answers 1412 whole.
#[test]
fn a_view_older_than_an_index_reads_through_the_others() {
    let sim = SimVfs::new();
    let (e, _) = open(&sim);
    let t = table(&e);
    commit_row(&e, t, row(1, 5, "a"));
    let mut view = e.begin();
    view.set_read_view(Some(e.read_view()));
    assert_eq!(e.get(&view, t, &pk(&e, 1)).expect("read"), Some(row(1, 5, "a")));
    // A change after the view, then an index.
    let mut w = e.begin();
    assert!(e.update(&mut w, t, &pk(&e, 1), row(1, 6, "b")).expect("update"));
    e.insert(&mut w, t, row(2, 7, "c")).expect("insert");
    e.commit(w).expect("commit");
    e.create_index(t, IndexDef::new("newer", vec![1, 2], false)).expect("create index");
    // Through the primary key and the older indexes: the view's rows.
    let all = e.scan(&view, t, Unbounded, Unbounded, usize::MAX).expect("primary");
    assert_eq!(all.into_iter().map(|(_, r)| r).collect::<Vec<_>>(), vec![row(1, 5, "a")]);
    let k = e.scan_index(&view, t, "kk", Unbounded, Unbounded, usize::MAX).expect("older index");
    assert_eq!(k.len(), 1);
    assert_eq!(e.get(&view, t, &pk(&e, 1)).expect("point"), Some(row(1, 5, "a")));
    // Through the new one: 1412.
    let err = e.scan_index(&view, t, "newer", Unbounded, Unbounded, usize::MAX);
    assert_eq!(err.expect_err("newer index").mysql_code(), 1412);
    let all: ByteRange = (Bound::Unbounded, Bound::Unbounded);
    let err = e.scan_key_ranges(&view, t, Some("newer"), std::slice::from_ref(&all), 10, false);
    assert_eq!(err.expect_err("newer index").mysql_code(), 1412);
    // A later view reads it.
    let mut fresh = e.begin();
    fresh.set_read_view(Some(e.read_view()));
    assert_eq!(e.scan_index(&fresh, t, "newer", Unbounded, Unbounded, 10).expect("new").len(), 2);
    // Dropping another index keeps the rest readable for the old view.
    e.drop_index(t, "uk").expect("drop index");
    assert_eq!(e.scan_index(&view, t, "kk", Unbounded, Unbounded, 10).expect("kept").len(), 1);
    assert_eq!(e.scan(&view, t, Unbounded, Unbounded, 10).expect("primary").len(), 1);
    // Truncated after the view: the whole table.
    e.truncate(t).expect("truncate");
    let err = e.scan(&view, t, Unbounded, Unbounded, 10).expect_err("truncated");
    assert_eq!(err.mysql_code(), 1412);
    let err = e.scan_key_ranges(&view, t, None, &[all], 10, false).expect_err("truncated");
    assert_eq!(err.mysql_code(), 1412);
}

/// A duplicate on a unique secondary index S-locks the row it collided with (InnoDB's
/// duplicate check), so another transaction cannot change or delete it until this one ends;
/// other readers with S locks still can read it.
#[test]
fn a_unique_duplicate_s_locks_the_existing_row() {
    let (_sim, e, t) = short_wait();
    let mut a = e.begin();
    let err = e.insert(&mut a, t, row(99, 0, "n20")).expect_err("duplicate name");
    assert_eq!(err.mysql_code(), 1062);
    let mut b = e.begin();
    let err = e.update(&mut b, t, &pk(&e, 20), row(20, 20, "gone")).expect_err("S held");
    assert_eq!(err.mysql_code(), 1205);
    assert!(e.get_for_share(&mut b, t, &pk(&e, 20)).expect("S with S").is_some());
    e.rollback(b).expect("rollback");
    e.commit(a).expect("commit");
    let mut c = e.begin();
    assert!(e.delete(&mut c, t, &pk(&e, 20)).expect("released"));
    e.commit(c).expect("commit");
}
