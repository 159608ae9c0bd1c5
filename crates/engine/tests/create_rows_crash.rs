//! CREATE TABLE ... SELECT's DDL step (`Engine::create_table_with_rows_in`, issue 20): the
//! new table and its rows are one DDL step, so they survive a crash together (through the
//! redo and through a checkpoint), a prepared step stays undecided across a crash and then
//! commits or rolls back whole, duplicate keys refuse the step (nothing staged), and a crash
//! at every disk operation leaves the table with all its rows or no table at all.

mod common;

use std::ops::Bound;

use engine::{Column, ColumnType, Engine, IndexDef, TableSchema, Value};
use vfs::{CrashMode, SimVfs};

fn schema() -> TableSchema {
    let int = ColumnType::Integer { bytes: 4, unsigned: false };
    let mut s = TableSchema::new(
        "d.c",
        vec![Column::new("id", int).auto_increment(), Column::new("v", ColumnType::VarChar(10))],
        vec![0],
    );
    s.indexes.push(IndexDef::new("v", vec![1], true));
    s
}

fn rows(n: i64) -> Vec<Vec<Value>> {
    (1..=n).map(|k| vec![Value::Int(k), Value::Bytes(format!("v{k}").into_bytes())]).collect()
}

/// The rows of `d.c` (sorted), if the table exists.
fn content(e: &Engine) -> Option<Vec<Vec<Value>>> {
    let (id, _) = e.table_named("d.c")?;
    let txn = e.begin();
    let mut out: Vec<Vec<Value>> = e
        .scan(&txn, id, Bound::Unbounded, Bound::Unbounded, usize::MAX)
        .expect("scan")
        .into_iter()
        .map(|(_, r)| r.to_vec())
        .collect();
    e.rollback(txn).expect("rollback");
    out.sort_by_key(|r| format!("{r:?}"));
    Some(out)
}

#[test]
fn the_table_and_its_rows_survive_redo_and_checkpoint() {
    for checkpoint in [false, true] {
        let sim = SimVfs::new();
        let (e, _) = common::open(&sim).expect("open");
        let mut d = e.begin();
        let id = e.create_table_with_rows_in(&mut d, schema(), rows(50)).expect("stage");
        assert!(e.table_named("d.c").is_none(), "invisible until committed");
        e.commit(d).expect("commit");
        assert_eq!(e.row_count(id).expect("count"), 50);
        e.flush_all().expect("flush");
        if checkpoint {
            e.checkpoint().expect("checkpoint");
        }
        drop(e);
        let (e, _) = common::open(&sim.crash(CrashMode::DropUnsynced)).expect("reopen");
        let mut want = rows(50);
        want.sort_by_key(|r| format!("{r:?}"));
        assert_eq!(content(&e), Some(want));
        // AUTO_INCREMENT continues after the rows.
        let mut t = e.begin();
        let ins = e.insert(&mut t, id, vec![Value::Null, Value::Null]).expect("insert");
        assert_eq!(ins.auto_inc, Some(51));
        e.rollback(t).expect("rollback");
    }
}

#[test]
fn duplicate_keys_refuse_the_step() {
    let sim = SimVfs::new();
    let (e, _) = common::open(&sim).expect("open");
    let mut d = e.begin();
    let mut r = rows(3);
    r[2][1] = Value::Bytes(b"v1".to_vec());
    let got = e.create_table_with_rows_in(&mut d, schema(), r);
    assert!(matches!(got, Err(engine::Error::DupEntry { .. })), "{got:?}");
    e.rollback(d).expect("rollback");
    assert!(e.table_named("d.c").is_none());
    // The name is free again.
    let mut d = e.begin();
    e.create_table_with_rows_in(&mut d, schema(), rows(2)).expect("stage");
    e.commit(d).expect("commit");
    assert_eq!(content(&e).map(|c| c.len()), Some(2));
}

#[test]
fn a_prepared_step_stays_undecided_then_commits_or_rolls_back_whole() {
    let xid = 11;
    for commit in [false, true] {
        let sim = SimVfs::new();
        let (e, _) = common::open(&sim).expect("open");
        let mut d = e.begin();
        e.create_table_with_rows_in(&mut d, schema(), rows(20)).expect("stage");
        let end = e.prepare(&mut d, xid).expect("prepare");
        e.flush_up_to(end).expect("flush");
        e.checkpoint().expect("checkpoint");
        e.abandon(d);
        drop(e);
        let (e, rec) = common::open(&sim.crash(CrashMode::DropUnsynced)).expect("reopen");
        assert_eq!(rec.prepared_xids, vec![xid]);
        assert!(content(&e).is_none(), "undecided: no table");
        if commit {
            e.commit_prepared(xid).expect("commit prepared");
        } else {
            e.rollback_prepared(xid).expect("rollback prepared");
        }
        e.flush_all().expect("flush");
        drop(e);
        let (e, _) = common::open(&sim.crash(CrashMode::DropUnsynced)).expect("reopen");
        assert_eq!(content(&e).map(|c| c.len()), commit.then_some(20));
    }
}

/// Stage, prepare, commit, checkpoint, cut at every disk operation (unsynced bytes dropped,
/// torn or kept): the table is there with all 30 rows or absent, never partial, and present
/// once the commit was flushed.
#[test]
fn a_crash_at_every_operation_leaves_all_rows_or_no_table() {
    let run = |sim: &SimVfs, acked: &std::cell::Cell<bool>| -> Result<(), engine::Error> {
        let (e, _) = common::open(sim)?;
        let mut d = e.begin();
        e.create_table_with_rows_in(&mut d, schema(), rows(30))?;
        e.prepare(&mut d, 5)?;
        e.commit(d)?;
        e.flush_all()?;
        acked.set(true);
        e.checkpoint()?;
        Ok(())
    };
    let probe = SimVfs::new();
    run(&probe, &std::cell::Cell::new(false)).expect("clean run");
    let total = probe.op_count();
    assert!(total > 3, "the sequence does disk operations ({total})");
    for at in 0..total {
        for mode in [CrashMode::DropUnsynced, CrashMode::Tear { seed: at }, CrashMode::KeepAll] {
            let sim = SimVfs::new();
            sim.crash_at(at);
            let acked = std::cell::Cell::new(false);
            let _ = run(&sim, &acked);
            let sim = sim.crash(mode);
            let (e, rec) =
                common::open(&sim).unwrap_or_else(|err| panic!("op {at} {mode:?}: {err}"));
            // A prepared, undecided step is the binlog's to decide: roll it back here.
            for x in rec.prepared_xids {
                e.rollback_prepared(x).expect("rollback prepared");
            }
            let n = content(&e).map(|c| c.len());
            assert!(n.is_none() || n == Some(30), "op {at} {mode:?}: {n:?}");
            if acked.get() {
                assert_eq!(n, Some(30), "op {at} {mode:?}: acknowledged");
            }
        }
    }
}
