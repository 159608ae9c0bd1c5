//! Transactions, locking, visibility, indexes, AUTO_INCREMENT and DDL, on the simulated disk.

use std::ops::Bound::{Included, Unbounded};
use std::path::Path;
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use vfs::SimVfs;

use super::*;
use crate::schema::{Column, ColumnType};
use crate::value::{DateTime, Decimal};

const INT: ColumnType = ColumnType::Integer { bytes: 4, unsigned: false };
const BIG_U: ColumnType = ColumnType::Integer { bytes: 8, unsigned: true };

fn config() -> EngineConfig {
    EngineConfig {
        redo_file_bytes: 64 << 10,
        lock_wait_timeout: Duration::from_secs(30),
        checkpoint_redo_bytes: None,
        retain_redo_for_binlog: false,
        redo_flush_method: crate::RedoFlushMethod::Fsync,
        recovery_accept_loss: false,
    }
}

fn open(sim: &SimVfs) -> (Engine, Recovery) {
    Engine::open(sim.shared(), Path::new("/data"), config()).expect("open")
}

/// t(id INT PRIMARY KEY, k INT, name VARCHAR(10), UNIQUE KEY uk(name), KEY kk(k))
fn table(e: &Engine) -> TableId {
    let s = TableSchema::new(
        "t",
        vec![
            Column::new("id", INT),
            Column::new("k", INT),
            Column::new("name", ColumnType::VarChar(10)),
        ],
        vec![0],
    )
    .with_index("uk", vec![2], true)
    .with_index("kk", vec![1], false);
    e.create_table(s).expect("create")
}

fn row(id: i64, k: i64, name: &str) -> Row {
    vec![Value::Int(id), Value::Int(k), Value::Bytes(name.as_bytes().to_vec())]
}

fn pk(e: &Engine, id: i64) -> Key {
    e.key(&[Value::Int(id)])
}

fn commit_row(e: &Engine, t: TableId, r: Row) {
    let mut tx = e.begin();
    e.insert(&mut tx, t, r).expect("insert");
    e.commit(tx).expect("commit");
}

/// An engine on a fresh simulated disk with [`table`] holding `rows`, each committed alone.
fn fixture(rows: &[Row]) -> (SimVfs, Engine, TableId) {
    let sim = SimVfs::new();
    let (e, _) = open(&sim);
    let t = table(&e);
    for r in rows {
        commit_row(&e, t, r.clone());
    }
    (sim, e, t)
}

/// A transaction that reads through a read view taken now (REPEATABLE READ's snapshot).
fn viewer(e: &Engine) -> Txn {
    let mut tx = e.begin();
    tx.set_read_view(Some(e.read_view()));
    tx
}

/// Returns once some transaction waits for a row lock.
fn until_someone_waits(e: &Engine) {
    while e.inner.waits.lock().is_empty() {
        thread::yield_now();
    }
}

/// Entries in `t`'s secondary index number `i` (0 is `uk`, 1 is `kk`), purged ones not counted.
fn index_entries(e: &Engine, t: TableId, i: usize) -> usize {
    let tb = e.inner.table(t).expect("table");
    tb.indexes[i].shards().iter().map(|m| m.read().len()).sum()
}

/// Row cells in `t` (a deleted row keeps its cell until purge).
fn row_cells(e: &Engine, t: TableId) -> usize {
    let tb = e.inner.table(t).expect("table");
    tb.rows.shards().iter().map(|m| m.read().len()).sum()
}

#[test]
fn read_committed_never_sees_or_waits_for_uncommitted_writes() {
    let (_sim, e, t) = fixture(&[row(1, 10, "a")]);
    let mut w = e.begin();
    e.update(&mut w, t, &pk(&e, 1), row(1, 11, "a2")).expect("update");
    e.insert(&mut w, t, row(2, 20, "b")).expect("insert");
    let r = e.begin();
    assert_eq!(e.get(&r, t, &pk(&e, 1)).expect("get"), Some(row(1, 10, "a")));
    assert_eq!(e.get(&r, t, &pk(&e, 2)).expect("get"), None);
    assert_eq!(e.scan(&r, t, Unbounded, Unbounded, 10).expect("scan").len(), 1);
    // The writer sees its own changes, by key and through the indexes.
    assert_eq!(e.get(&w, t, &pk(&e, 1)).expect("get"), Some(row(1, 11, "a2")));
    let by_k = e.scan_index(&w, t, "kk", Included(&[Value::Int(11)]), Unbounded, 10).expect("scan");
    assert_eq!(
        by_k.iter().map(|(_, r)| r[0].clone()).collect::<Vec<_>>(),
        vec![Value::Int(1), Value::Int(2)]
    );
    let by_k = e.scan_index(&r, t, "kk", Unbounded, Unbounded, 10).expect("scan");
    assert_eq!(by_k, vec![(pk(&e, 1), row(1, 10, "a"))]);
    e.commit(w).expect("commit");
    assert_eq!(e.get(&r, t, &pk(&e, 1)).expect("get"), Some(row(1, 11, "a2")));
    let by_k = e.scan_index(&r, t, "kk", Unbounded, Unbounded, 10).expect("scan");
    assert_eq!(by_k.len(), 2, "the old index entry is gone: {by_k:?}");
}

#[test]
fn rollback_restores_rows_and_indexes() {
    let (_sim, e, t) = fixture(&[row(1, 10, "a"), row(2, 20, "b")]);
    let mut w = e.begin();
    e.update(&mut w, t, &pk(&e, 1), row(1, 12, "z")).expect("update");
    e.delete(&mut w, t, &pk(&e, 2)).expect("delete");
    e.insert(&mut w, t, row(3, 30, "c")).expect("insert");
    // The primary key itself changes: delete + insert underneath.
    e.update(&mut w, t, &pk(&e, 3), row(4, 40, "c")).expect("update pk");
    e.rollback(w).expect("rollback");
    let r = e.begin();
    let all = e.scan(&r, t, Unbounded, Unbounded, 10).expect("scan");
    assert_eq!(
        all.into_iter().map(|(_, r)| r).collect::<Vec<_>>(),
        vec![row(1, 10, "a"), row(2, 20, "b")]
    );
    let idx = e.scan_index(&r, t, "uk", Unbounded, Unbounded, 10).expect("scan");
    assert_eq!(idx.len(), 2);
    // The names are free again / still taken as before.
    let mut w = e.begin();
    e.insert(&mut w, t, row(5, 1, "z")).expect("z is free");
    assert_eq!(e.insert(&mut w, t, row(6, 1, "a")).expect_err("a is taken").mysql_code(), 1062);
}

#[test]
fn duplicate_keys_are_1062_with_the_key_name() {
    let (_sim, e, t) = fixture(&[row(1, 10, "a")]);
    let mut w = e.begin();
    let err = e.insert(&mut w, t, row(1, 0, "x")).expect_err("dup pk");
    assert_eq!(
        (err.mysql_code(), err.to_string()),
        (1062, "Duplicate entry '1' for key 'PRIMARY'".into())
    );
    let err = e.insert(&mut w, t, row(2, 0, "a")).expect_err("dup unique");
    assert_eq!(
        (err.mysql_code(), err.to_string()),
        (1062, "Duplicate entry 'a' for key 'uk'".into())
    );
    // The failed statement left nothing behind.
    e.insert(&mut w, t, row(2, 0, "b")).expect("insert");
    // NULLs never collide in a unique index.
    e.insert(&mut w, t, vec![Value::Int(3), Value::Null, Value::Null]).expect("null");
    e.insert(&mut w, t, vec![Value::Int(4), Value::Null, Value::Null]).expect("null");
    e.commit(w).expect("commit");
    // Swapping unique values inside one transaction works when done in a valid order.
    let mut w = e.begin();
    e.update(&mut w, t, &pk(&e, 1), row(1, 10, "tmp")).expect("a -> tmp");
    e.update(&mut w, t, &pk(&e, 2), row(2, 0, "a")).expect("b -> a");
    e.update(&mut w, t, &pk(&e, 1), row(1, 10, "b")).expect("tmp -> b");
    e.commit(w).expect("commit");
    let r = e.begin();
    let names = e
        .scan_index(&r, t, "uk", Included(&[Value::Bytes(b"a".to_vec())]), Unbounded, 10)
        .expect("scan");
    assert_eq!(
        names.iter().map(|(_, r)| r[0].clone()).collect::<Vec<_>>(),
        vec![Value::Int(2), Value::Int(1)]
    );
}

#[test]
fn a_unique_check_waits_for_the_uncommitted_holder() {
    let (_sim, e, t) = fixture(&[]);
    let mut a = e.begin();
    e.insert(&mut a, t, row(1, 0, "x")).expect("insert");
    let e2 = e.clone();
    let h = thread::spawn(move || {
        let mut b = e2.begin();
        let r = e2.insert(&mut b, t, row(2, 0, "x")).map(|_| ());
        e2.rollback(b).expect("rollback");
        r
    });
    // b blocks until a decides; a rolls back, so b's insert succeeds.
    until_someone_waits(&e);
    e.rollback(a).expect("rollback");
    h.join().expect("thread").expect("b inserts once a rolled back");
}

#[test]
fn lock_wait_times_out_with_1205() {
    let sim = SimVfs::new();
    let mut cfg = config();
    cfg.lock_wait_timeout = Duration::from_millis(50);
    let (e, _) = Engine::open(sim.shared(), Path::new("/data"), cfg).expect("open");
    let t = table(&e);
    commit_row(&e, t, row(1, 0, "a"));
    let mut a = e.begin();
    e.get_for_update(&mut a, t, &pk(&e, 1)).expect("lock");
    let mut b = e.begin();
    let err = e.update(&mut b, t, &pk(&e, 1), row(1, 1, "a")).expect_err("times out");
    assert_eq!(err.mysql_code(), 1205);
    assert!(err.is_retryable());
    e.commit(a).expect("commit");
    // b's transaction is intact and can go on.
    assert!(e.update(&mut b, t, &pk(&e, 1), row(1, 1, "a")).expect("update"));
    e.commit(b).expect("commit");
}

/// A transaction's own timeout (the session's `innodb_lock_wait_timeout`) bounds its row lock
/// waits, not the engine's configured one.
#[test]
fn a_transactions_own_lock_wait_timeout_bounds_its_waits() {
    let sim = SimVfs::new();
    let mut cfg = config();
    cfg.lock_wait_timeout = Duration::from_secs(30);
    let (e, _) = Engine::open(sim.shared(), Path::new("/data"), cfg).expect("open");
    let t = table(&e);
    commit_row(&e, t, row(1, 0, "a"));
    let mut a = e.begin();
    e.get_for_update(&mut a, t, &pk(&e, 1)).expect("lock");
    let mut b = e.begin();
    b.set_lock_wait_timeout(Some(Duration::from_millis(100)));
    let started = std::time::Instant::now();
    let err = e.update(&mut b, t, &pk(&e, 1), row(1, 1, "a")).expect_err("times out");
    assert_eq!(err.mysql_code(), 1205);
    assert!(started.elapsed() < Duration::from_secs(5), "waited {:?}", started.elapsed());
    e.commit(a).expect("commit");
    e.rollback(b).expect("rollback");
}

/// A row lock wait inside `interruptible` ends with 1317 (not the timeout's 1205) once the
/// check turns true; the waiting transaction stays usable; the timeout still applies inside
/// `interruptible` while the check is false.
#[test]
fn interruptible_waits_end_when_the_check_turns_true() {
    let sim = SimVfs::new();
    let mut cfg = config();
    cfg.lock_wait_timeout = Duration::from_secs(1);
    let (e, _) = Engine::open(sim.shared(), Path::new("/data"), cfg).expect("open");
    let t = table(&e);
    commit_row(&e, t, row(1, 0, "a"));
    let mut a = e.begin();
    e.get_for_update(&mut a, t, &pk(&e, 1)).expect("lock");

    let never: crate::Interrupt = Arc::new(|| false);
    let mut b = e.begin();
    let err = crate::interruptible(never, || e.update(&mut b, t, &pk(&e, 1), row(1, 1, "a")))
        .expect_err("times out");
    assert_eq!(err.mysql_code(), 1205);

    let (e2, key) = (e.clone(), pk(&e, 1));
    let flag = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let check = flag.clone();
    let waiter = thread::spawn(move || {
        let mut c = e2.begin();
        let check: crate::Interrupt = Arc::new(move || check.load(Ordering::SeqCst));
        let r = crate::interruptible(check, || e2.update(&mut c, t, &key, row(1, 2, "a")));
        (r.map(|_| ()), c)
    });
    thread::sleep(Duration::from_millis(100));
    flag.store(true, Ordering::SeqCst);
    let (r, c) = waiter.join().expect("waiter");
    let err = r.expect_err("interrupted");
    assert!(matches!(err, Error::Interrupted), "{err:?}");
    assert_eq!(err.mysql_code(), 1317);
    e.commit(a).expect("commit");
    e.rollback(c).expect("the interrupted transaction can still end");
    e.rollback(b).expect("rollback");
}

/// Wakes a parked thread (a minimal task context for [`LockWait::poll_end`]).
struct Unpark(thread::Thread);

impl std::task::Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

#[test]
fn without_waiting_refuses_lock_waits_and_names_the_holder() {
    let (_sim, e, t) = fixture(&[row(1, 0, "a")]);
    let mut a = e.begin();
    e.get_for_update(&mut a, t, &pk(&e, 1)).expect("lock");
    let mut b = e.begin();
    let started = std::time::Instant::now();
    let err = without_waiting(|| e.update(&mut b, t, &pk(&e, 1), row(1, 1, "b")))
        .expect_err("would block");
    assert!(matches!(err, Error::WouldBlock), "{err:?}");
    assert!(started.elapsed() < Duration::from_secs(5), "did not wait");
    assert!(e.inner.waits.lock().is_empty(), "no wait-for edge for a refused wait");
    let lock = refused_wait().expect("the holder");
    assert!(refused_wait().is_none(), "taken once");
    e.rollback(b).expect("rollback");

    let waker = std::task::Waker::from(Arc::new(Unpark(thread::current())));
    let mut cx = std::task::Context::from_waker(&waker);
    assert!(lock.poll_end(&mut cx).is_pending(), "a still holds the lock");
    let e2 = e.clone();
    let h = thread::spawn(move || {
        thread::sleep(Duration::from_millis(20));
        e2.commit(a).expect("commit");
    });
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while lock.poll_end(&mut cx).is_pending() {
        assert!(std::time::Instant::now() < deadline, "never woken");
        thread::park_timeout(Duration::from_secs(1));
    }
    h.join().expect("thread");
    // Outside without_waiting the same update waits as before (here: nobody holds it).
    let mut c = e.begin();
    assert!(e.update(&mut c, t, &pk(&e, 1), row(1, 2, "c")).expect("update"));
    e.commit(c).expect("commit");
}

#[test]
fn deadlock_victim_gets_1213_and_the_other_proceeds() {
    let (_sim, e, t) = fixture(&[row(1, 0, "a"), row(2, 0, "b")]);
    let mut a = e.begin();
    e.update(&mut a, t, &pk(&e, 1), row(1, 1, "a")).expect("a locks 1");
    let e2 = e.clone();
    let h = thread::spawn(move || {
        let mut b = e2.begin();
        e2.update(&mut b, t, &e2.key(&[Value::Int(2)]), row(2, 2, "b")).expect("b locks 2");
        // b now waits for a.
        let r = e2.update(&mut b, t, &e2.key(&[Value::Int(1)]), row(1, 2, "a"));
        e2.commit(b).expect("commit");
        r
    });
    until_someone_waits(&e);
    let err = e.update(&mut a, t, &pk(&e, 2), row(2, 1, "b")).expect_err("a would close the cycle");
    assert_eq!(err.mysql_code(), 1213);
    e.rollback(a).expect("rollback");
    assert!(h.join().expect("thread").expect("b got the lock"));
    let r = e.begin();
    assert_eq!(e.get(&r, t, &pk(&e, 1)).expect("get"), Some(row(1, 2, "a")));
    assert_eq!(e.get(&r, t, &pk(&e, 2)).expect("get"), Some(row(2, 2, "b")));
}

/// A wait that timed out (1205) or was refused (`without_waiting`) leaves no wait-for edge: the
/// holder it was for may then wait for the ex-waiter's own locks without a false 1213.
#[test]
fn ended_and_refused_waits_leave_no_wait_for_edge() {
    let sim = SimVfs::new();
    let mut cfg = config();
    cfg.lock_wait_timeout = Duration::from_millis(300);
    let (e, _) = Engine::open(sim.shared(), Path::new("/data"), cfg).expect("open");
    let t = table(&e);
    commit_row(&e, t, row(1, 0, "a"));
    commit_row(&e, t, row(2, 0, "b"));
    let mut a = e.begin();
    e.update(&mut a, t, &pk(&e, 1), row(1, 1, "a")).expect("a locks 1");
    let mut b = e.begin();
    e.update(&mut b, t, &pk(&e, 2), row(2, 2, "b")).expect("b locks 2");
    let refused = without_waiting(|| e.update(&mut b, t, &pk(&e, 1), row(1, 2, "a")));
    assert!(matches!(refused, Err(Error::WouldBlock)), "{refused:?}");
    let timed_out = e.update(&mut b, t, &pk(&e, 1), row(1, 2, "a")).expect_err("a holds 1");
    assert_eq!(timed_out.mysql_code(), 1205);
    assert!(e.inner.waits.lock().is_empty(), "b waits for nobody now");
    // b is still active and holds 2: a waits for it (no cycle) and gets it once b commits.
    let e2 = e.clone();
    let h = thread::spawn(move || {
        let r = e2.update(&mut a, t, &e2.key(&[Value::Int(2)]), row(2, 1, "b"));
        e2.commit(a).expect("commit a");
        r
    });
    until_someone_waits(&e);
    e.commit(b).expect("commit b");
    assert!(h.join().expect("thread").expect("a waited for b, no deadlock"));
    let r = e.begin();
    assert_eq!(e.get(&r, t, &pk(&e, 1)).expect("get"), Some(row(1, 1, "a")));
    assert_eq!(e.get(&r, t, &pk(&e, 2)).expect("get"), Some(row(2, 1, "b")));
}

#[test]
fn auto_increment_and_hidden_row_ids_survive_restart() {
    let sim = SimVfs::new();
    let (e, _) = open(&sim);
    let s = TableSchema::new(
        "a",
        vec![Column::new("id", BIG_U).auto_increment(), Column::new("v", ColumnType::Text)],
        vec![0],
    );
    let a = e.create_table(s).expect("create");
    let h =
        e.create_table(TableSchema::new("h", vec![Column::new("v", INT)], vec![])).expect("create");
    let mut w = e.begin();
    let got: Vec<_> = (0..3)
        .map(|_| {
            e.insert(&mut w, a, vec![Value::Null, Value::Bytes(b"x".to_vec())])
                .expect("insert")
                .auto_inc
        })
        .collect();
    assert_eq!(got, vec![Some(1), Some(2), Some(3)]);
    e.insert(&mut w, a, vec![Value::UInt(10), Value::Null]).expect("explicit");
    assert_eq!(
        e.insert(&mut w, a, vec![Value::UInt(0), Value::Null]).expect("insert").auto_inc,
        Some(11)
    );
    e.insert(&mut w, h, vec![Value::Int(7)]).expect("insert");
    e.insert(&mut w, h, vec![Value::Int(7)]).expect("same values, new hidden id");
    e.commit(w).expect("commit");
    e.flush_all().expect("flush");
    drop(e);
    let (e, _) = open(&sim.crash(vfs::CrashMode::DropUnsynced));
    assert_eq!(e.auto_increment(a), Some(12));
    let mut w = e.begin();
    assert_eq!(
        e.insert(&mut w, a, vec![Value::Null, Value::Null]).expect("insert").auto_inc,
        Some(12)
    );
    e.insert(&mut w, h, vec![Value::Int(8)]).expect("insert");
    e.commit(w).expect("commit");
    assert_eq!(e.row_count(h).expect("count"), 3);
}

#[test]
fn values_are_checked_and_normalized() {
    let sim = SimVfs::new();
    let (e, _) = open(&sim);
    let s = TableSchema::new(
        "v",
        vec![
            Column::new("id", ColumnType::Integer { bytes: 1, unsigned: false }),
            Column::new("d", ColumnType::Decimal { precision: 5, scale: 2 }).not_null(),
            Column::new("c", ColumnType::Char(2)),
            Column::new("f", ColumnType::Double),
            Column::new("t", ColumnType::DateTime { fsp: 6 }),
        ],
        vec![0],
    );
    let v = e.create_table(s).expect("create");
    let dt = DateTime { year: 2024, month: 1, day: 2, hour: 3, minute: 4, second: 5, micros: 0 };
    let good = |id: i64| {
        vec![
            Value::Int(id),
            Value::Decimal(Decimal::parse("1.5").expect("ok")),
            Value::Null,
            Value::Int(2),
            Value::DateTime(dt),
        ]
    };
    let mut w = e.begin();
    e.insert(&mut w, v, good(1)).expect("insert");
    let stored = e.get(&w, v, &e.key(&[Value::Int(1)])).expect("get").expect("row");
    assert_eq!(stored[1], Value::Decimal(Decimal::new(150, 2)));
    assert_eq!(stored[3], Value::Double(2.0));
    let code = |r: Row| e.insert(&mut e.begin(), v, r).expect_err("rejected").mysql_code();
    let mut r = good(2);
    r[0] = Value::Int(128);
    assert_eq!(code(r), 1264);
    let mut r = good(2);
    r[1] = Value::Null;
    assert_eq!(code(r), 1048);
    let mut r = good(2);
    r[1] = Value::Decimal(Decimal::parse("1000").expect("ok"));
    assert_eq!(code(r), 1264);
    let mut r = good(2);
    r[2] = Value::Bytes(b"abc".to_vec());
    assert_eq!(code(r), 1406);
    assert_eq!(code(vec![Value::Int(2)]), 1136);
    // Normalizing is idempotent and gives what update stores: the SQL layer normalizes first
    // and logs that row as the after image without reading it back.
    let schema = e.schema(v).expect("schema");
    let mut given = good(1);
    given[1] = Value::Decimal(Decimal::parse("2.5").expect("ok"));
    given[0] = Value::UInt(1);
    schema.normalize_row(&mut given).expect("valid");
    let once = given.clone();
    schema.normalize_row(&mut given).expect("still valid");
    assert_eq!(given, once);
    assert!(e.update(&mut w, v, &e.key(&[Value::Int(1)]), given).expect("update"));
    assert_eq!(e.get(&w, v, &e.key(&[Value::Int(1)])).expect("get"), Some(once));
    // A refused value is left as given (the SQL layer quotes it in its message).
    let mut bad = good(3);
    bad[3] = Value::Bytes(b"x".to_vec());
    assert_eq!(schema.normalize_row(&mut bad).expect_err("1366").mysql_code(), 1366);
    assert_eq!(bad[3], Value::Bytes(b"x".to_vec()));
    e.commit(w).expect("commit");
}

#[test]
fn ddl_is_durable_and_waits_for_users() {
    let (sim, e, t) = fixture(&[]);
    assert_eq!(
        e.create_table(TableSchema::new("t", vec![Column::new("x", INT)], vec![]))
            .expect_err("exists")
            .mysql_code(),
        1050
    );
    commit_row(&e, t, row(1, 5, "a"));
    commit_row(&e, t, row(2, 5, "b"));
    let err = e.create_index(t, IndexDef::new("uk5", vec![1], true)).expect_err("dups");
    assert_eq!(err.mysql_code(), 1062);
    e.create_index(t, IndexDef::new("kn", vec![1, 2], true)).expect("index");
    // A DDL waits for a transaction holding changes on the table.
    let mut w = e.begin();
    e.insert(&mut w, t, row(3, 6, "c")).expect("insert");
    let e2 = e.clone();
    let h = thread::spawn(move || e2.truncate(t));
    while !e.inner.table(t).expect("table").ddl_pending.load(Ordering::SeqCst) {
        thread::yield_now();
    }
    e.commit(w).expect("commit");
    h.join().expect("thread").expect("truncate");
    let r = e.begin();
    assert!(e.scan(&r, t, Unbounded, Unbounded, 10).expect("scan").is_empty());
    commit_row(&e, t, row(9, 9, "z"));
    let other = e
        .create_table(TableSchema::new("gone", vec![Column::new("x", INT)], vec![0]))
        .expect("create");
    commit_row(&e, other, vec![Value::Int(1)]);
    e.drop_table(other).expect("drop");
    drop(e);
    let (e, _) = open(&sim.crash(vfs::CrashMode::DropUnsynced));
    assert_eq!(e.table_id("gone"), None);
    let schema = e.schema(t).expect("t survives");
    assert_eq!(
        schema.indexes.iter().map(|i| i.name.as_str()).collect::<Vec<_>>(),
        vec!["uk", "kk", "kn"]
    );
    let r = e.begin();
    // The commit of row 9 was not flushed by anyone, but the DDL after it was.
    let rows = e.scan_index(&r, t, "kn", Unbounded, Unbounded, 10).expect("scan");
    assert_eq!(rows, vec![(pk(&e, 9), row(9, 9, "z"))]);
}

#[test]
fn many_threads_update_disjoint_and_shared_rows() {
    let (_sim, e, t) = fixture(&[]);
    for i in 0..8 {
        commit_row(&e, t, row(i, 0, &format!("n{i}")));
    }
    let e = Arc::new(e);
    let handles: Vec<_> = (0..4)
        .map(|n| {
            let e = e.clone();
            thread::spawn(move || {
                for i in 0..200 {
                    let id = (i * 7 + n) % 8;
                    let mut w = e.begin();
                    let key = e.key(&[Value::Int(id)]);
                    let Some(mut r) = e.get_for_update(&mut w, t, &key).expect("lock") else {
                        panic!("row")
                    };
                    let Value::Int(k) = r[1] else { panic!("int") };
                    r[1] = Value::Int(k + 1);
                    e.update(&mut w, t, &key, r).expect("update");
                    e.commit(w).expect("commit");
                }
            })
        })
        .collect();
    for h in handles {
        h.join().expect("thread");
    }
    let r = e.begin();
    let total: i64 = e
        .scan(&r, t, Unbounded, Unbounded, 100)
        .expect("scan")
        .iter()
        .map(|(_, r)| if let Value::Int(k) = r[1] { k } else { 0 })
        .sum();
    assert_eq!(total, 800);
}

fn small(e: &Engine, name: &str) -> TableId {
    e.create_table(TableSchema::new(name, vec![Column::new("x", INT)], vec![0])).expect("create")
}

#[test]
fn a_ddl_transaction_changes_nothing_visible_until_it_commits() {
    let (_sim, e, t) = fixture(&[]);
    let old = small(&e, "old");
    commit_row(&e, old, vec![Value::Int(1)]);
    commit_row(&e, t, row(1, 5, "a"));
    for commit in [false, true] {
        let mut d = e.begin();
        let n = e
            .create_table_in(&mut d, TableSchema::new("n", vec![Column::new("x", INT)], vec![]))
            .expect("stage create");
        e.drop_table_in(&mut d, old).expect("stage drop");
        e.truncate_in(&mut d, t).expect("stage truncate");
        assert!(!d.is_read_only() && d.is_ddl());
        // Staged only: the catalog and the rows are unchanged, the name is taken.
        assert_eq!(e.table_id("n"), None);
        assert!(e.schema(old).is_some());
        assert_eq!(e.row_count(t).expect("count"), 1);
        let taken = TableSchema::new("n", vec![Column::new("x", INT)], vec![]);
        assert_eq!(e.create_table_in(&mut d, taken).expect_err("reserved").mysql_code(), 1050);
        // One DDL transaction at a time: a second one would wait for the gate.
        assert!(*e.inner.ddl_gate.lock());
        // A DDL transaction changes no rows.
        assert_eq!(
            e.insert(&mut d, t, row(7, 7, "q")).expect_err("rows in DDL").mysql_code(),
            1399
        );
        // Writers wait for a table the DDL marked; a created table does not exist yet.
        let mut w = e.begin();
        let refused = without_waiting(|| e.insert(&mut w, old, vec![Value::Int(2)]));
        assert!(matches!(refused, Err(Error::WouldBlock)));
        let missing = e.insert(&mut w, n, vec![Value::Int(1)]).expect_err("no such table yet");
        assert_eq!(missing.mysql_code(), 1146);
        drop(w);
        if commit {
            e.commit(d).expect("commit");
            assert_eq!(e.table_id("n"), Some(n));
            assert_eq!(e.table_id("old"), None);
            assert_eq!(e.row_count(t).expect("count"), 0);
        } else {
            e.rollback(d).expect("rollback");
            assert_eq!(e.table_id("n"), None);
            assert_eq!(e.row_count(t).expect("count"), 1);
            commit_row(&e, old, vec![Value::Int(3)]);
        }
        assert!(!*e.inner.ddl_gate.lock(), "the gate is released");
    }
    let mut rows = e.begin();
    e.insert(&mut rows, t, row(8, 8, "r")).expect("insert");
    assert_eq!(
        e.create_table_in(&mut rows, TableSchema::new("z", vec![Column::new("x", INT)], vec![]))
            .expect_err("DDL in a transaction with rows")
            .mysql_code(),
        1399
    );
}

/// A DDL prepared for 2PC (XID 77), caught by a checkpoint and by two crashes before its
/// decision, stays undecided: recovery hands it back as prepared with the catalog as it was,
/// and the decision taken then (commit or roll back) is the one that survives.
#[test]
fn a_prepared_ddl_stays_undecided_across_checkpoints_and_crashes() {
    let xid = 77;
    for commit in [false, true] {
        let sim = SimVfs::new();
        let (e, _) = open(&sim);
        let t = table(&e);
        let old = small(&e, "old");
        let tr = small(&e, "tr");
        commit_row(&e, tr, vec![Value::Int(1)]);
        commit_row(&e, t, row(1, 5, "a"));
        let mut d = e.begin();
        e.create_table_in(&mut d, TableSchema::new("n", vec![Column::new("x", INT)], vec![0]))
            .expect("stage create");
        e.drop_table_in(&mut d, old).expect("stage drop");
        e.truncate_in(&mut d, tr).expect("stage truncate");
        let index = IndexDef::new("k2", vec![1], false);
        e.create_index_in(&mut d, t, index).expect("stage index");
        let end = e.prepare(&mut d, xid).expect("prepare");
        e.flush_up_to(end).expect("flush");
        let ck = e.checkpoint().expect("checkpoint");
        assert!(ck >= end, "the checkpoint is past the prepare record");
        e.abandon(d);
        drop(e);
        let sim = sim.crash(vfs::CrashMode::DropUnsynced);
        let (e, rec) = open(&sim);
        assert_eq!(rec.prepared_xids, vec![xid]);
        let unchanged = |e: &Engine| {
            assert_eq!(e.table_id("n"), None);
            assert!(e.table_id("old").is_some());
            assert_eq!(e.row_count(e.table_id("tr").expect("tr")).expect("count"), 1);
            assert_eq!(e.schema(t).expect("t").indexes.len(), 2);
        };
        unchanged(&e);
        // Recovery restaged it: the checkpoint taken now keeps it prepared too.
        e.checkpoint().expect("second checkpoint");
        drop(e);
        let sim = sim.crash(vfs::CrashMode::DropUnsynced);
        let (e, rec) = open(&sim);
        assert_eq!(rec.prepared_xids, vec![xid]);
        unchanged(&e);
        if commit {
            e.commit_prepared(xid).expect("commit prepared");
        } else {
            e.rollback_prepared(xid).expect("rollback prepared");
        }
        e.flush_all().expect("flush");
        drop(e);
        let (e, rec) = open(&sim.crash(vfs::CrashMode::DropUnsynced));
        assert!(rec.prepared_xids.is_empty());
        if commit {
            assert!(e.table_id("n").is_some());
            assert_eq!(e.table_id("old"), None);
            assert_eq!(e.row_count(e.table_id("tr").expect("tr")).expect("count"), 0);
            let names: Vec<String> =
                e.schema(t).expect("t").indexes.iter().map(|i| i.name.clone()).collect();
            assert_eq!(names, ["uk", "kk", "k2"]);
            // A table created after it gets a fresh id.
            let z = small(&e, "z");
            assert!(Some(z) > e.table_id("n"));
        } else {
            unchanged(&e);
            small(&e, "n");
        }
    }
}

// ---- versions and read views ---------------------------------------------------------------

fn read_all(e: &Engine, tx: &Txn, t: TableId) -> Vec<Row> {
    e.scan(tx, t, Unbounded, Unbounded, usize::MAX)
        .expect("scan")
        .into_iter()
        .map(|(_, r)| r)
        .collect()
}

fn by_k(e: &Engine, tx: &Txn, t: TableId, k: i64) -> Vec<Row> {
    let v = [Value::Int(k)];
    e.scan_index(tx, t, "kk", Included(&v[..]), Included(&v[..]), usize::MAX)
        .expect("scan index")
        .into_iter()
        .map(|(_, r)| r)
        .collect()
}

#[test]
fn a_read_view_sees_no_later_insert_update_or_delete() {
    let (_sim, e, t) = fixture(&[row(1, 10, "a"), row(2, 20, "b")]);
    let mut reader = viewer(&e);
    let before = read_all(&e, &reader, t);
    // Another transaction inserts, updates (an indexed column too) and deletes.
    let mut w = e.begin();
    e.insert(&mut w, t, row(3, 30, "c")).expect("insert");
    e.update(&mut w, t, &pk(&e, 1), row(1, 11, "a")).expect("update");
    e.delete(&mut w, t, &pk(&e, 2)).expect("delete");
    // Uncommitted: invisible to the view, and to a reader without one.
    assert_eq!(read_all(&e, &reader, t), before);
    e.commit(w).expect("commit");
    assert_eq!(read_all(&e, &reader, t), before, "the view is fixed");
    assert_eq!(e.get(&reader, t, &pk(&e, 3)).expect("get"), None);
    assert_eq!(by_k(&e, &reader, t, 10), vec![row(1, 10, "a")], "old index entry kept");
    assert_eq!(by_k(&e, &reader, t, 11), Vec::<Row>::new());
    assert_eq!(by_k(&e, &reader, t, 20), vec![row(2, 20, "b")]);
    // A locking read sees the newest committed image.
    reader.set_read_latest(true);
    assert_eq!(read_all(&e, &reader, t), vec![row(1, 11, "a"), row(3, 30, "c")]);
    reader.set_read_latest(false);
    assert!(e.stats().history_list_length >= 1);
    // A new view sees everything.
    let fresh = viewer(&e);
    assert_eq!(read_all(&e, &fresh, t), vec![row(1, 11, "a"), row(3, 30, "c")]);
    drop(fresh);
    e.rollback(reader).expect("end");
    e.purge();
    let s = e.stats();
    assert_eq!(s.history_list_length, 0);
    assert_eq!(s.read_views, 0);
    assert!(s.purged_versions >= 2);
    // The purged index entries are gone and the deleted row's cell too.
    assert_eq!(index_entries(&e, t, 1), 2, "only the live rows' kk entries remain");
    assert_eq!(row_cells(&e, t), 2);
}

#[test]
fn own_changes_are_visible_through_the_view_and_dirty_reads_see_others() {
    let (_sim, e, t) = fixture(&[row(1, 10, "a")]);
    let mut me = viewer(&e);
    e.update(&mut me, t, &pk(&e, 1), row(1, 12, "a")).expect("update");
    assert_eq!(e.get(&me, t, &pk(&e, 1)).expect("get"), Some(row(1, 12, "a")));
    let mut other = e.begin();
    assert_eq!(e.get(&other, t, &pk(&e, 1)).expect("get"), Some(row(1, 10, "a")));
    other.set_read_uncommitted(true);
    assert_eq!(e.get(&other, t, &pk(&e, 1)).expect("get"), Some(row(1, 12, "a")));
    e.rollback(me).expect("rollback");
    assert_eq!(e.get(&other, t, &pk(&e, 1)).expect("get"), Some(row(1, 10, "a")));
}

#[test]
fn history_stays_bounded_under_a_long_reader_once_it_ends() {
    let rows: Vec<Row> = (0..10).map(|i| row(i, i, &format!("n{i}"))).collect();
    let (_sim, e, t) = fixture(&rows);
    let reader = viewer(&e);
    let snap = read_all(&e, &reader, t);
    for round in 0..200i64 {
        let mut w = e.begin();
        let id = round % 10;
        e.update(&mut w, t, &pk(&e, id), row(id, 1000 + round, &format!("n{id}"))).expect("u");
        e.commit(w).expect("commit");
    }
    assert_eq!(read_all(&e, &reader, t), snap);
    assert_eq!(e.stats().history_list_length, 200);
    drop(reader);
    e.purge();
    assert_eq!(e.stats().history_list_length, 0);
    let tb = e.inner.table(t).expect("table");
    for m in tb.rows.shards() {
        for cell in m.read().values() {
            assert!(cell.state.lock().history.is_empty());
        }
    }
    assert_eq!(index_entries(&e, t, 1), 10);
}

#[test]
fn a_checkpoint_is_a_read_view_without_uncommitted_or_prepared_rows() {
    let (sim, e, t) = fixture(&[row(1, 10, "a")]);
    let mut open_txn = e.begin();
    e.update(&mut open_txn, t, &pk(&e, 1), row(1, 99, "a")).expect("update");
    e.insert(&mut open_txn, t, row(2, 20, "b")).expect("insert");
    e.prepare(&mut open_txn, 7).expect("prepare");
    e.checkpoint().expect("checkpoint");
    e.abandon(open_txn);
    drop(e);
    let (e, rec) = open(&sim);
    assert_eq!(rec.prepared_xids, vec![7]);
    let tx = e.begin();
    assert_eq!(read_all(&e, &tx, t), vec![row(1, 10, "a")]);
    e.rollback_prepared(7).expect("rollback");
    assert_eq!(read_all(&e, &tx, t), vec![row(1, 10, "a")]);
}

mod model {
    //! Property: under any interleaving of commits, rollbacks, views taken and dropped and
    //! purges, every live view reads exactly the committed state at the moment it was taken
    //! (through the primary key and the secondary index), and a transaction without a view
    //! reads the newest committed state.
    use proptest::prelude::*;

    use super::*;

    #[derive(Debug, Clone)]
    enum Step {
        /// One transaction: (id, Some(k)) upserts, (id, None) deletes; commit or roll back.
        Txn(Vec<(i64, Option<i64>)>, bool),
        View,
        DropView(usize),
        Purge,
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            4 => (prop::collection::vec((0i64..6, prop::option::of(0i64..4)), 1..4), any::<bool>())
                .prop_map(|(c, ok)| Step::Txn(c, ok)),
            2 => Just(Step::View),
            1 => (0usize..8).prop_map(Step::DropView),
            1 => Just(Step::Purge),
        ]
    }

    fn state(e: &Engine, tx: &Txn, t: TableId) -> std::collections::BTreeMap<i64, i64> {
        let mut m = std::collections::BTreeMap::new();
        for r in read_all(e, tx, t) {
            let (Value::Int(id), Value::Int(k)) = (&r[0], &r[1]) else { panic!("row {r:?}") };
            m.insert(*id, *k);
        }
        // The index agrees with the clustered read.
        for k in 0..4 {
            let via: Vec<i64> = by_k(e, tx, t, k)
                .into_iter()
                .map(|r| match r[0] {
                    Value::Int(i) => i,
                    _ => unreachable!(),
                })
                .collect();
            let want: Vec<i64> = m.iter().filter(|(_, v)| **v == k).map(|(i, _)| *i).collect();
            assert_eq!(via, want, "index kk = {k}");
        }
        m
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
        #[test]
        fn views_read_the_state_at_their_start(steps in prop::collection::vec(step(), 1..40)) {
            let sim = SimVfs::new();
            let (e, _) = open(&sim);
            let s = TableSchema::new("m", vec![Column::new("id", INT), Column::new("k", INT)], vec![0])
                .with_index("kk", vec![1], false);
            let t = e.create_table(s).expect("create");
            let mut model = std::collections::BTreeMap::new();
            let mut views: Vec<(Txn, std::collections::BTreeMap<i64, i64>)> = Vec::new();
            for st in steps {
                match st {
                    Step::Txn(changes, ok) => {
                        let mut tx = e.begin();
                        let mut m2 = model.clone();
                        for (id, k) in changes {
                            let key = e.key(&[Value::Int(id)]);
                            match k {
                                Some(k) => {
                                    let r = vec![Value::Int(id), Value::Int(k)];
                                    if !e.update(&mut tx, t, &key, r.clone()).expect("update") {
                                        e.insert(&mut tx, t, r).expect("insert");
                                    }
                                    m2.insert(id, k);
                                }
                                None => {
                                    e.delete(&mut tx, t, &key).expect("delete");
                                    m2.remove(&id);
                                }
                            }
                        }
                        if ok {
                            e.commit(tx).expect("commit");
                            model = m2;
                        } else {
                            e.rollback(tx).expect("rollback");
                        }
                    }
                    Step::View => {
                        let mut tx = e.begin();
                        tx.set_read_view(Some(e.read_view()));
                        views.push((tx, model.clone()));
                    }
                    Step::DropView(i) => {
                        if !views.is_empty() {
                            let i = i % views.len();
                            views.remove(i);
                        }
                    }
                    Step::Purge => {
                        e.purge();
                    }
                }
                for (tx, want) in &views {
                    prop_assert_eq!(&state(&e, tx, t), want);
                }
                let latest = e.begin();
                prop_assert_eq!(&state(&e, &latest, t), &model);
            }
            views.clear();
            e.purge();
            prop_assert_eq!(e.stats().history_list_length, 0);
        }
    }
}

#[test]
fn a_row_only_locked_reads_through_the_view() {
    let (_sim, e, t) = fixture(&[row(1, 10, "a")]);
    let mut me = viewer(&e);
    let mut w = e.begin();
    e.update(&mut w, t, &pk(&e, 1), row(1, 11, "a")).expect("update");
    e.commit(w).expect("commit");
    assert_eq!(e.get_for_update(&mut me, t, &pk(&e, 1)).expect("lock"), Some(row(1, 11, "a")));
    assert_eq!(e.get(&me, t, &pk(&e, 1)).expect("get"), Some(row(1, 10, "a")));
    e.update(&mut me, t, &pk(&e, 1), row(1, 12, "a")).expect("update");
    assert_eq!(e.get(&me, t, &pk(&e, 1)).expect("get"), Some(row(1, 12, "a")));
}

/// Keys follow the column's collation: a `_ci` unique key refuses 'ALICE' after 'Alice', a
/// `_ci` primary key finds 'Alice' by 'alice', index ranges are in collation order, and the row
/// keeps the bytes as given; `utf8mb4_bin` tells them apart.
#[test]
fn keys_follow_the_column_collation() {
    let sim = SimVfs::new();
    let (e, _) = open(&sim);
    let s = TableSchema::new(
        "people",
        vec![
            Column::new("name", ColumnType::VarChar(20)),
            Column::new("nick", ColumnType::VarChar(20)),
            Column::new("exact", ColumnType::VarChar(20)).collation(46),
        ],
        vec![0],
    )
    .with_index("uk_nick", vec![1], true)
    .with_index("uk_exact", vec![2], true);
    let t = e.create_table(s).expect("create");
    let r = |a: &str, b: &str, c: &str| -> Row {
        vec![Value::Bytes(a.into()), Value::Bytes(b.into()), Value::Bytes(c.into())]
    };
    commit_row(&e, t, r("Alice", "ally", "x"));
    let mut w = e.begin();
    let err = e.insert(&mut w, t, r("ALICE", "other", "y")).expect_err("pk under ai_ci");
    assert_eq!(err.mysql_code(), 1062);
    let err = e.insert(&mut w, t, r("Bob", "ÁLLY", "z")).expect_err("unique under ai_ci");
    assert_eq!(err.mysql_code(), 1062);
    // utf8mb4_bin is PAD SPACE and case-sensitive: 'X' is new, 'x ' is 'x'.
    e.insert(&mut w, t, r("Carol", "c", "X")).expect("bin is case-sensitive");
    let err = e.insert(&mut w, t, r("Dave", "d", "x ")).expect_err("PAD SPACE");
    assert_eq!(err.mysql_code(), 1062);
    e.commit(w).expect("commit");
    let rd = e.begin();
    let key = e.key_in(t, &[Value::Bytes(b"alice".to_vec())]).expect("key");
    assert_eq!(e.get(&rd, t, &key).expect("get"), Some(r("Alice", "ally", "x")));
    let lo = [Value::Bytes(b"b".to_vec())];
    let names: Vec<Value> = e
        .scan(&rd, t, Included(&lo[..]), Unbounded, 10)
        .expect("scan")
        .into_iter()
        .map(|(_, row)| row[0].clone())
        .collect();
    assert_eq!(names, vec![Value::Bytes(b"Carol".to_vec())]);
}

/// A schema written before collations were kept reads back with `utf8mb4_0900_bin` for its
/// character columns (their keys were bytes) and `binary` for the others; a new schema keeps
/// its collations.
#[test]
fn schema_collations_round_trip_and_old_schemas_read_as_bytes() {
    use crate::codec::Reader;
    let s = TableSchema::new(
        "t",
        vec![Column::new("id", INT), Column::new("c", ColumnType::Char(3)).collation(8)],
        vec![0],
    )
    .with_collation(46);
    let mut buf = Vec::new();
    crate::schema::encode_schema(&mut buf, &s);
    let back = crate::schema::decode_schema(&mut Reader::new(&buf, "schema", 0)).expect("decodes");
    assert_eq!(back.columns[1].collation, 8);
    assert_eq!(back.columns[0].collation, 63);
    assert_eq!(back.collation, 46);
    // The old layout: the same bytes without the flag bit and the u16 after p2.
    let mut old = Vec::new();
    crate::codec::Put::put_u32(&mut old, 0);
    crate::codec::Put::put_bytes(&mut old, b"t");
    crate::codec::Put::put_u16(&mut old, 2);
    for (name, t, p1) in [("id", 1u8, 4u32), ("c", 4, 3)] {
        crate::codec::Put::put_bytes(&mut old, name.as_bytes());
        crate::codec::Put::put_u8(&mut old, t);
        crate::codec::Put::put_u32(&mut old, p1);
        old.extend_from_slice(&[0, 1, 0, 0]);
    }
    crate::codec::Put::put_u16(&mut old, 1);
    crate::codec::Put::put_u16(&mut old, 0);
    crate::codec::Put::put_u16(&mut old, 0);
    let back = crate::schema::decode_schema(&mut Reader::new(&old, "schema", 0)).expect("old");
    assert_eq!(back.columns[1].collation, 309);
    assert_eq!(back.columns[0].collation, 63);
    assert_eq!(back.collation, 255);
}

/// Shared row locks (FOR SHARE) as InnoDB's: S is compatible with S; X waits for another
/// transaction's S and S for another's X; a transaction's own S lock is upgraded to X when no
/// other holds one; two transactions upgrading the same S-locked row deadlock (1213).
#[test]
fn shared_locks_are_compatible_with_each_other_and_exclude_writers() {
    let sim = SimVfs::new();
    let mut cfg = config();
    cfg.lock_wait_timeout = Duration::from_millis(200);
    let (e, _) = Engine::open(sim.shared(), Path::new("/data"), cfg).expect("open");
    let t = table(&e);
    commit_row(&e, t, row(1, 0, "a"));
    let mut a = e.begin();
    let mut b = e.begin();
    // S + S: both hold it at once.
    assert_eq!(e.get_for_share(&mut a, t, &pk(&e, 1)).expect("a S"), Some(row(1, 0, "a")));
    assert_eq!(e.get_for_share(&mut b, t, &pk(&e, 1)).expect("b S"), Some(row(1, 0, "a")));
    // An absent row locks nothing.
    assert_eq!(e.get_for_share(&mut a, t, &pk(&e, 9)).expect("absent"), None);
    // X of a third transaction waits for them (here: times out, 1205).
    let mut c = e.begin();
    let err = e.update(&mut c, t, &pk(&e, 1), row(1, 5, "a")).expect_err("X waits for S");
    assert_eq!(err.mysql_code(), 1205);
    let err = e.get_for_update(&mut c, t, &pk(&e, 1)).expect_err("FOR UPDATE waits for S");
    assert_eq!(err.mysql_code(), 1205);
    e.rollback(c).expect("rollback");
    // b ends: a's S lock is then the only one, and a upgrades it to X.
    e.commit(b).expect("b commits");
    assert!(e.update(&mut a, t, &pk(&e, 1), row(1, 1, "a")).expect("upgrade"));
    // S of another transaction now waits for a's X.
    let mut d = e.begin();
    let err = e.get_for_share(&mut d, t, &pk(&e, 1)).expect_err("S waits for X");
    assert_eq!(err.mysql_code(), 1205);
    // ... and gets the new image once a commits.
    let e2 = e.clone();
    let h = thread::spawn(move || {
        let r = e2.get_for_share(&mut d, t, &e2.key(&[Value::Int(1)]));
        (r, d)
    });
    thread::sleep(Duration::from_millis(20));
    e.commit(a).expect("a commits");
    let (r, d) = h.join().expect("thread");
    assert_eq!(r.expect("S after X"), Some(row(1, 1, "a")));
    e.commit(d).expect("d ends, its S lock released");
    let mut f = e.begin();
    assert!(e.update(&mut f, t, &pk(&e, 1), row(1, 2, "a")).expect("no lock left"));
    e.commit(f).expect("commit");
}

#[test]
fn two_transactions_upgrading_a_shared_lock_deadlock() {
    let sim = SimVfs::new();
    let (e, _) = open(&sim);
    let t = table(&e);
    commit_row(&e, t, row(1, 0, "a"));
    let mut a = e.begin();
    e.get_for_share(&mut a, t, &pk(&e, 1)).expect("a S");
    let e2 = e.clone();
    let h = thread::spawn(move || {
        let mut b = e2.begin();
        e2.get_for_share(&mut b, t, &e2.key(&[Value::Int(1)])).expect("b S");
        // b waits for a's S lock.
        let r = e2.update(&mut b, t, &e2.key(&[Value::Int(1)]), row(1, 2, "b"));
        e2.commit(b).expect("commit");
        r
    });
    while e.inner.waits.lock().is_empty() {
        thread::yield_now();
    }
    let err = e.update(&mut a, t, &pk(&e, 1), row(1, 1, "a")).expect_err("a closes the cycle");
    assert_eq!(err.mysql_code(), 1213);
    e.rollback(a).expect("rollback");
    assert!(h.join().expect("thread").expect("b upgraded"));
    let r = e.begin();
    assert_eq!(e.get(&r, t, &pk(&e, 1)).expect("get"), Some(row(1, 2, "b")));
}

/// A read view older than a table's definition (the table created, truncated or given an
/// index after the view began) reads it with 1412, as InnoDB's consistent read of an index
/// newer than the view; tables defined before the view, and views taken after, read as usual.
#[test]
fn a_view_older_than_a_table_definition_reads_1412() {
    let sim = SimVfs::new();
    let (e, _) = open(&sim);
    let old = table(&e);
    commit_row(&e, old, row(1, 0, "a"));
    let mut view = e.begin();
    view.set_read_view(Some(e.read_view()));
    assert_eq!(e.get(&view, old, &pk(&e, 1)).expect("old table"), Some(row(1, 0, "a")));
    // Created after the view.
    let s = TableSchema::new("later", vec![Column::new("id", INT)], vec![0]);
    let later = e.create_table(s).expect("create");
    let mut w = e.begin();
    e.insert(&mut w, later, vec![Value::Int(1)]).expect("insert");
    e.commit(w).expect("commit");
    let err = e.scan(&view, later, Unbounded, Unbounded, usize::MAX).expect_err("newer table");
    assert_eq!(err.mysql_code(), 1412);
    assert_eq!(err.to_string(), "Table definition has changed, please retry transaction");
    assert_eq!(e.get(&view, later, &pk(&e, 1)).expect_err("get").mysql_code(), 1412);
    // The old table is still readable until its definition changes.
    assert_eq!(e.get(&view, old, &pk(&e, 1)).expect("old table"), Some(row(1, 0, "a")));
    e.truncate(old).expect("truncate");
    let err = e.scan_index(&view, old, "kk", Unbounded, Unbounded, usize::MAX);
    assert_eq!(err.expect_err("truncated after the view").mysql_code(), 1412);
    // A locking read sees the latest definition; a new view reads both.
    view.set_read_view(None);
    assert_eq!(e.scan(&view, later, Unbounded, Unbounded, 10).expect("no view").len(), 1);
    let mut fresh = e.begin();
    fresh.set_read_view(Some(e.read_view()));
    assert_eq!(e.scan(&fresh, later, Unbounded, Unbounded, 10).expect("new view").len(), 1);
    assert_eq!(e.scan(&fresh, old, Unbounded, Unbounded, 10).expect("new view").len(), 0);
}

/// A stored primary key that is not its row's key under this binary's collation weights (as
/// one written by a binlogd with other weights) is refused at start-up, from the checkpoint
/// and from the redo, instead of leaving a row that lookups miss.
#[test]
fn a_stored_key_that_is_not_the_rows_encoding_is_refused_at_start() {
    let (sim, e, t) = fixture(&[row(1, 10, "a")]);
    let tb = e.inner.table(t).expect("table");
    // The key of id 2, holding the row of id 3.
    tb.apply_put(&pk(&e, 2), row(3, 30, "c"));
    e.checkpoint().expect("checkpoint");
    drop(tb);
    drop(e);
    let err = Engine::open(sim.shared(), Path::new("/data"), config()).expect_err("refused");
    assert!(err.to_string().contains("stored primary key differs"), "{err}");
}

mod alter_tests;
mod gap_tests;
