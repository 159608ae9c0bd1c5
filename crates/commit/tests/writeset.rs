//! WRITESET dependency tracking through the real pipeline: the `last_committed` the FLUSH stage
//! writes for disjoint rows, the same primary key, the same unique key, DDL, a table without a
//! primary key, history overflow, WRITESET_SESSION, rotation and a change of mode; and, on the
//! seeded workload of the crash simulations, that no two transactions writing the same row get
//! overlapping intervals while WRITESET gives more parallelism than COMMIT_ORDER.

mod common;

use std::collections::HashMap;
use std::path::Path;

use binlog::event::Value as BinValue;
use commit::{CommitConfig, CommitRequest, Committed, DependencyTracking};
use common::{read_binlog, setup, Coord, Mode};
use engine::{Column, ColumnType, TableSchema, Value};
use vfs::SimVfs;

const CLASSIC: Mode = Mode { in_redo: false, sync_binlog: 1 };

fn open(disk: &SimVfs, mode: DependencyTracking, max_binlog_size: u64) -> Coord {
    let config = common::config(CLASSIC);
    config.set_binlog_transaction_dependency_tracking(mode);
    let mut options = common::options();
    options.max_binlog_size = max_binlog_size;
    Coord::open(disk.shared(), Path::new("/data"), options, config).expect("open").0
}

fn config(c: &Coord) -> &CommitConfig {
    c.config()
}

/// One row change in a transaction of its own.
enum Op<'a> {
    Insert(&'a str, Vec<Value>),
    /// Table, primary key, new row.
    Update(&'a str, i64, Vec<Value>),
    Delete(&'a str, i64),
}

fn commit(c: &Coord, ops: &[Op<'_>], session: u64) -> Committed {
    let e = c.engine();
    let mut txn = e.begin();
    let mut cache = c.new_cache("test");
    cache.set_session(session);
    for op in ops {
        match op {
            Op::Insert(table, row) => {
                let t = e.table_id(table).expect("table");
                let schema = e.schema(t).expect("schema");
                e.insert(&mut txn, t, row.clone()).expect("insert");
                cache.insert(&schema, row).expect("log");
            }
            Op::Update(table, id, row) => {
                let t = e.table_id(table).expect("table");
                let schema = e.schema(t).expect("schema");
                let key = e.key(&[Value::Int(*id)]);
                let before = e.get(&txn, t, &key).expect("get").expect("row exists");
                assert!(e.update(&mut txn, t, &key, row.clone()).expect("update"));
                cache.update(&schema, &before, row).expect("log");
            }
            Op::Delete(table, id) => {
                let t = e.table_id(table).expect("table");
                let schema = e.schema(t).expect("schema");
                let key = e.key(&[Value::Int(*id)]);
                let before = e.get(&txn, t, &key).expect("get").expect("row exists");
                assert!(e.delete(&mut txn, t, &key).expect("delete"));
                cache.delete(&schema, &before).expect("log");
            }
        }
    }
    c.commit(CommitRequest::rows(txn, cache)).expect("commit")
}

fn t_row(id: i64, v: i64) -> Vec<Value> {
    vec![Value::Int(id), Value::Int(v), Value::Bytes(b"x".to_vec())]
}

fn u_row(id: i64, code: &str) -> Vec<Value> {
    vec![Value::Int(id), Value::Bytes(code.as_bytes().to_vec())]
}

fn int() -> ColumnType {
    ColumnType::Integer { bytes: 8, unsigned: false }
}

/// `u (id PRIMARY KEY, code UNIQUE NOT NULL)` and `n (k, note)` without any key.
fn create_u_and_n(c: &Coord) -> (Committed, Committed) {
    let u = TableSchema::new(
        "u",
        vec![
            Column::new("id", int()).not_null(),
            Column::new("code", ColumnType::VarChar(8)).not_null(),
        ],
        vec![0],
    )
    .with_index("code", vec![1], true);
    let mut txn = c.begin();
    c.engine().create_table_in(&mut txn, u).expect("stage create u");
    let a = c.commit(CommitRequest::ddl(
        txn,
        "test",
        "CREATE TABLE u (id BIGINT PRIMARY KEY, code VARCHAR(8) NOT NULL UNIQUE)",
    ));
    let n =
        TableSchema::new("n", vec![Column::new("k", int()), Column::new("note", int())], vec![]);
    let mut txn = c.begin();
    c.engine().create_table_in(&mut txn, n).expect("stage create n");
    let b = c.commit(CommitRequest::ddl(txn, "test", "CREATE TABLE n (k BIGINT, note BIGINT)"));
    (a.expect("log u"), b.expect("log n"))
}

fn clock(i: &Committed) -> (i64, i64) {
    (i.last_committed, i.sequence_number)
}

#[test]
fn writeset_lowers_last_committed_to_the_last_conflict() {
    let disk = SimVfs::new();
    let c = open(&disk, DependencyTracking::Writeset, 1 << 20);
    setup(&c); // DDL, sequence 1: the floor.
               // Sequential commits of disjoint rows: commit order would chain them; write sets let
               // each depend on the DDL only, so their intervals overlap.
    let a = commit(&c, &[Op::Insert("t", t_row(1, 0))], 0);
    let b = commit(&c, &[Op::Insert("t", t_row(2, 0))], 0);
    let x = commit(&c, &[Op::Insert("t", t_row(3, 0))], 0);
    assert_eq!([clock(&a), clock(&b), clock(&x)], [(1, 2), (1, 3), (1, 4)]);
    // Same primary key: depends on the last writer.
    let d = commit(&c, &[Op::Update("t", 1, t_row(1, 5))], 0);
    assert_eq!(clock(&d), (a.sequence_number, 5));
    let e = commit(&c, &[Op::Delete("t", 2)], 0);
    assert_eq!(clock(&e), (b.sequence_number, 6));
    // Two rows in one transaction: the last writer of either.
    let f = commit(&c, &[Op::Delete("t", 3), Op::Insert("t", t_row(9, 0))], 0);
    assert_eq!(clock(&f), (x.sequence_number, 7));

    // DDL: commit order, and a barrier for everything after it.
    let (ddl_u, ddl_n) = create_u_and_n(&c);
    assert_eq!(clock(&ddl_u), (7, 8));
    assert_eq!(clock(&ddl_n), (8, 9));
    let g = commit(&c, &[Op::Update("t", 1, t_row(1, 9))], 0);
    assert_eq!(clock(&g), (9, 10), "pk 1 was last written before the DDL: the floor");

    // Same unique key, different primary keys.
    let h = commit(&c, &[Op::Insert("u", u_row(1, "a"))], 0);
    let i = commit(&c, &[Op::Insert("u", u_row(2, "b"))], 0);
    assert_eq!([clock(&h), clock(&i)], [(9, 11), (9, 12)]);
    // Row 1's code a → c: the before image holds "a".
    let j = commit(&c, &[Op::Update("u", 1, u_row(1, "c"))], 0);
    assert_eq!(clock(&j), (h.sequence_number, 13));
    let k = commit(&c, &[Op::Insert("u", u_row(3, "a"))], 0);
    assert_eq!(clock(&k), (j.sequence_number, 14), "code 'a' was freed by 13");

    // A table without a primary key: commit order (here the previous transaction), and the
    // history is kept for the others.
    let l = commit(&c, &[Op::Insert("n", vec![Value::Int(1), Value::Int(1)])], 0);
    assert_eq!(clock(&l), (14, 15));
    let m = commit(&c, &[Op::Insert("t", t_row(40, 0))], 0);
    assert_eq!(clock(&m), (9, 16));

    // The binlog says the same as the commit infos.
    let txns = read_binlog(&c, "writeset");
    let last: Vec<(i64, i64)> = txns.iter().rev().take(2).map(|t| t.clock).collect();
    assert_eq!(last, vec![(9, 16), (14, 15)]);
}

#[test]
fn commit_order_chains_the_same_commits() {
    let disk = SimVfs::new();
    let c = open(&disk, DependencyTracking::CommitOrder, 1 << 20);
    setup(&c);
    let a = commit(&c, &[Op::Insert("t", t_row(1, 0))], 0);
    let b = commit(&c, &[Op::Insert("t", t_row(2, 0))], 0);
    assert_eq!([clock(&a), clock(&b)], [(1, 2), (2, 3)]);
    // SET GLOBAL binlog_transaction_dependency_tracking = WRITESET: nothing flushed before
    // is in the history, so the floor is the last sequence number given out.
    config(&c).set_binlog_transaction_dependency_tracking(DependencyTracking::Writeset);
    let d = commit(&c, &[Op::Insert("t", t_row(3, 0))], 0);
    let e = commit(&c, &[Op::Insert("t", t_row(4, 0))], 0);
    assert_eq!([clock(&d), clock(&e)], [(3, 4), (3, 5)]);
    // A new file: the clock and the history restart.
    c.rotate().expect("rotate");
    let f = commit(&c, &[Op::Insert("t", t_row(5, 0))], 0);
    let g = commit(&c, &[Op::Update("t", 3, t_row(3, 1))], 0);
    assert_eq!([clock(&f), clock(&g)], [(0, 1), (0, 2)]);
}

#[test]
fn groups_of_disjoint_rows_share_the_floor() {
    let disk = SimVfs::new();
    let c = open(&disk, DependencyTracking::Writeset, 1 << 20);
    setup(&c);
    let e = c.engine();
    let t = e.table_id(common::TABLE).expect("table");
    let schema = e.schema(t).expect("schema");
    let batch = |ops: Vec<(i64, bool)>| {
        let items = ops
            .into_iter()
            .map(|(id, update)| {
                let mut txn = e.begin();
                let mut cache = c.new_cache("test");
                let row = t_row(id, 7);
                if update {
                    let key = e.key(&[Value::Int(id)]);
                    let before = e.get(&txn, t, &key).expect("get").expect("row exists");
                    assert!(e.update(&mut txn, t, &key, row.clone()).expect("update"));
                    cache.update(&schema, &before, &row).expect("log");
                } else {
                    e.insert(&mut txn, t, row.clone()).expect("insert");
                    cache.insert(&schema, &row).expect("log");
                }
                CommitRequest::rows(txn, cache)
            })
            .collect();
        c.commit_batch(items).into_iter().map(|r| clock(&r.expect("commit"))).collect::<Vec<_>>()
    };
    // One group (one FLUSH queue): all after the DDL only.
    let first = batch((0..5).map(|id| (id, false)).collect());
    assert_eq!(first, vec![(1, 2), (1, 3), (1, 4), (1, 5), (1, 6)]);
    // The next group: the update of row 3 waits for its insert (5), the inserts overlap all.
    let second = batch(vec![(10, false), (3, true), (11, false)]);
    assert_eq!(second, vec![(1, 7), (5, 8), (1, 9)]);
}

#[test]
fn history_overflow_makes_a_floor() {
    let disk = SimVfs::new();
    let c = open(&disk, DependencyTracking::Writeset, 1 << 20);
    config(&c).set_binlog_transaction_dependency_history_size(2);
    setup(&c);
    let a = commit(&c, &[Op::Insert("t", t_row(1, 0))], 0);
    let b = commit(&c, &[Op::Insert("t", t_row(2, 0))], 0);
    // History full (2 hashes): this one still sees its own conflicts (none), then clears it.
    let x = commit(&c, &[Op::Insert("t", t_row(3, 0))], 0);
    let d = commit(&c, &[Op::Insert("t", t_row(4, 0))], 0);
    assert_eq!([clock(&a), clock(&b), clock(&x), clock(&d)], [(1, 2), (1, 3), (1, 4), (4, 5)]);
    // Row 1's writer was forgotten: the floor (4) stands in for it.
    let e = commit(&c, &[Op::Update("t", 1, t_row(1, 1))], 0);
    assert_eq!(clock(&e), (4, 6));
}

#[test]
fn writeset_session_orders_a_sessions_transactions() {
    let disk = SimVfs::new();
    let c = open(&disk, DependencyTracking::WritesetSession, 1 << 20);
    setup(&c);
    let a = commit(&c, &[Op::Insert("t", t_row(1, 0))], 7);
    let b = commit(&c, &[Op::Insert("t", t_row(2, 0))], 8);
    let x = commit(&c, &[Op::Insert("t", t_row(3, 0))], 7);
    let d = commit(&c, &[Op::Insert("t", t_row(4, 0))], 8);
    let e = commit(&c, &[Op::Insert("t", t_row(5, 0))], 0);
    assert_eq!(
        [clock(&a), clock(&b), clock(&x), clock(&d), clock(&e)],
        [(1, 2), (1, 3), (2, 4), (3, 5), (1, 6)]
    );
}

fn key_of(image: &[BinValue]) -> i64 {
    match image.first() {
        Some(BinValue::Int(i)) => *i,
        other => panic!("not an id: {other:?}"),
    }
}

/// Sum over transactions of `sequence - last_committed`: how far back each may start.
fn run_seeded(seed: u64, mode: DependencyTracking) -> i64 {
    let disk = SimVfs::new();
    // Files large enough to hold several groups, small enough to rotate.
    let c = open(&disk, mode, 64 << 10);
    setup(&c);
    let run = common::workload(&c, seed, 600);
    assert!(!run.stopped_by_error, "seed {seed}: the workload failed");
    let txns = read_binlog(&c, &format!("seed {seed}"));
    assert!(txns.len() > 50, "seed {seed}: too small a workload");
    // key → sequence number of its last writer in the current file.
    let mut last_writer: HashMap<(String, i64), i64> = HashMap::new();
    let mut file = String::new();
    let mut barrier = 0;
    let mut slack = 0;
    for t in &txns {
        if t.file != file {
            file = t.file.clone();
            last_writer.clear();
            barrier = 0;
        }
        let (lc, seq) = t.clock;
        assert!(lc >= 0 && lc < seq, "seed {seed}: clock {lc}/{seq}");
        assert!(lc >= barrier, "seed {seed}: seq {seq} ({lc}) before the DDL {barrier}");
        if t.ddl.is_some() {
            barrier = seq;
            last_writer.clear();
        }
        for (table, before, after) in &t.changes {
            for image in [before, after].into_iter().flatten() {
                let key = (table.clone(), key_of(image));
                if let Some(&w) = last_writer.get(&key) {
                    assert!(lc >= w, "seed {seed}: seq {seq} (last_committed {lc}) overlaps {w}, which wrote key {key:?}");
                }
            }
        }
        for (table, before, after) in &t.changes {
            for image in [before, after].into_iter().flatten() {
                last_writer.insert((table.clone(), key_of(image)), seq);
            }
        }
        slack += seq - lc;
    }
    slack
}

#[test]
fn seeded_workload_never_overlaps_conflicting_transactions() {
    for seed in [1, 7, 42, 1234] {
        let commit_order = run_seeded(seed, DependencyTracking::CommitOrder);
        let writeset = run_seeded(seed, DependencyTracking::Writeset);
        let session = run_seeded(seed, DependencyTracking::WritesetSession);
        assert!(
            writeset > commit_order,
            "seed {seed}: WRITESET gives no more parallelism ({writeset} vs {commit_order})"
        );
        assert_eq!(session, writeset, "seed {seed}: no sessions named, same as WRITESET");
    }
}
