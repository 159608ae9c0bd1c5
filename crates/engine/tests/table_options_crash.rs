//! Table options kept with a definition (issue 20): the table and column COMMENTs and the
//! `AUTO_INCREMENT = n` a CREATE or ALTER carries (`TableSchema::comment`, `Column::comment`,
//! `TableSchema::auto_increment_start`). Each survives a crash through the DDL's redo record
//! and through a checkpoint; an ALTER's start below the largest value in use gives that value
//! plus one (InnoDB's rule); a start is applied once, so later DDL of the table (a rename
//! here) keeps the counter where the rows left it; a prepared ALTER stays undecided across a
//! crash and then commits or rolls back whole.

mod common;

use engine::{Column, ColumnType, Engine, TableSchema, Value};
use vfs::{CrashMode, SimVfs};

fn schema(name: &str) -> TableSchema {
    let mut id = Column::new("id", ColumnType::Integer { bytes: 4, unsigned: false });
    id = id.auto_increment();
    id.comment = "the key".into();
    let v = Column::new("v", ColumnType::Integer { bytes: 4, unsigned: false });
    let mut s = TableSchema::new(name, vec![id, v], vec![0]);
    s.comment = "it's a table".into();
    s
}

fn insert(e: &Engine, id: u32, v: i64) -> u64 {
    let mut t = e.begin();
    let got = e.insert(&mut t, id, vec![Value::Null, Value::Int(v)]).expect("insert");
    e.commit(t).expect("commit");
    got.auto_inc.expect("generated")
}

#[test]
fn comments_and_auto_increment_starts_survive_redo_and_checkpoint() {
    for checkpoint in [false, true] {
        let sim = SimVfs::new();
        let (e, _) = common::open(&sim).expect("open");
        let mut s = schema("d.t");
        s.auto_increment_start = Some(100);
        let id = e.create_table(s).expect("create");
        assert_eq!(e.auto_increment(id), Some(100));
        let (e, sim) = common::crash_and_reopen(e, &sim, checkpoint);
        let (_, back) = e.table_named("d.t").expect("table");
        assert_eq!(back.comment, "it's a table");
        assert_eq!(back.columns[0].comment, "the key");
        assert_eq!(back.columns[1].comment, "");
        assert_eq!(back.auto_increment_start, None, "an installed table holds no start");
        assert_eq!(e.auto_increment(id), Some(100), "checkpoint {checkpoint}");
        assert_eq!(insert(&e, id, 1), 100);
        assert_eq!(insert(&e, id, 2), 101);
        // ALTER ... AUTO_INCREMENT = 5, COMMENT = 'x': below the largest value in use, so the
        // counter becomes 102.
        let mut a = (*back).clone();
        a.comment = "x".into();
        a.auto_increment_start = Some(5);
        let mut d = e.begin();
        e.replace_table_in(&mut d, id, a.clone(), None).expect("alter");
        e.commit(d).expect("commit");
        assert_eq!(e.auto_increment(id), Some(102));
        let (e, sim) = common::crash_and_reopen(e, &sim, checkpoint);
        assert_eq!(e.auto_increment(id), Some(102));
        assert_eq!(e.table_named("d.t").expect("t").1.comment, "x");
        // Above it: the counter is set (and may go down from where it was).
        a.auto_increment_start = Some(500);
        let mut d = e.begin();
        e.replace_table_in(&mut d, id, a.clone(), None).expect("alter");
        e.commit(d).expect("commit");
        a.auto_increment_start = Some(200);
        let mut d = e.begin();
        e.replace_table_in(&mut d, id, a.clone(), None).expect("alter");
        e.commit(d).expect("commit");
        let (e, sim) = common::crash_and_reopen(e, &sim, checkpoint);
        assert_eq!(e.auto_increment(id), Some(200));
        assert_eq!(insert(&e, id, 3), 200);
        // A later DDL without a start (a rename) leaves the counter alone.
        let mut r = (*e.table_named("d.t").expect("t").1).clone();
        r.name = "d.t2".into();
        let mut d = e.begin();
        e.replace_table_in(&mut d, id, r, None).expect("rename");
        e.commit(d).expect("commit");
        let (e, _) = common::crash_and_reopen(e, &sim, checkpoint);
        assert_eq!(e.auto_increment(id), Some(201));
        assert_eq!(e.table_named("d.t2").expect("t2").1.comment, "x");
    }
}

#[test]
fn a_prepared_alter_of_the_options_commits_or_rolls_back_whole() {
    let xid = 9;
    for commit in [false, true] {
        let sim = SimVfs::new();
        let (e, _) = common::open(&sim).expect("open");
        let id = e.create_table(schema("d.t")).expect("create");
        insert(&e, id, 1);
        let mut a = (*e.table_named("d.t").expect("t").1).clone();
        a.comment = "new".into();
        a.columns[1].comment = "value".into();
        a.auto_increment_start = Some(50);
        let mut d = e.begin();
        e.replace_table_in(&mut d, id, a, None).expect("stage");
        let end = e.prepare(&mut d, xid).expect("prepare");
        e.flush_up_to(end).expect("flush");
        e.abandon(d);
        drop(e);
        let (e, rec) = common::open(&sim.crash(CrashMode::DropUnsynced)).expect("reopen");
        assert_eq!(rec.prepared_xids, vec![xid]);
        assert_eq!(e.table_named("d.t").expect("t").1.comment, "it's a table");
        if commit {
            e.commit_prepared(xid).expect("commit prepared");
        } else {
            e.rollback_prepared(xid).expect("rollback prepared");
        }
        let (e, _) = common::crash_and_reopen(e, &sim, false);
        let (_, s) = e.table_named("d.t").expect("t");
        let (comment, column, next) =
            if commit { ("new", "value", 50) } else { ("it's a table", "", 2) };
        assert_eq!(s.comment, comment);
        assert_eq!(s.columns[1].comment, column);
        assert_eq!(e.auto_increment(id), Some(next));
    }
}

/// An ALTER that rebuilds the rows (`alter_table_in`) applies its start as one that keeps them,
/// live and on replay.
#[test]
fn a_rebuilding_alter_applies_its_start_too() {
    let sim = SimVfs::new();
    let (e, _) = common::open(&sim).expect("open");
    let id = e.create_table(schema("d.t")).expect("create");
    insert(&e, id, 1);
    insert(&e, id, 2);
    let mut a = (*e.table_named("d.t").expect("t").1).clone();
    a.columns.push(Column::new("w", ColumnType::Integer { bytes: 4, unsigned: false }));
    a.auto_increment_start = Some(300);
    let mut d = e.begin();
    e.alter_table_in(&mut d, id, a, |rows: Vec<engine::Row>| -> Result<_, engine::Error> {
        Ok(rows
            .into_iter()
            .map(|mut r| {
                r.push(Value::Null);
                r
            })
            .collect())
    })
    .expect("alter");
    e.commit(d).expect("commit");
    assert_eq!(e.auto_increment(id), Some(300));
    let (e, _) = common::crash_and_reopen(e, &sim, false);
    assert_eq!(e.auto_increment(id), Some(300));
    assert_eq!(insert3(&e, id), 300);
}

fn insert3(e: &Engine, id: u32) -> u64 {
    let mut t = e.begin();
    let got = e.insert(&mut t, id, vec![Value::Null, Value::Int(0), Value::Null]).expect("insert");
    e.commit(t).expect("commit");
    got.auto_inc.expect("generated")
}
