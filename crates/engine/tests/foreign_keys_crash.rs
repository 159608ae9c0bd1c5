//! Foreign key DDL is crash-safe as other DDL (issue 20): a constraint defined at CREATE TABLE
//! or changed by the metadata-only `set_foreign_keys_in` survives a crash through the redo log
//! and through a checkpoint; a prepared change stays undecided across crashes and checkpoints
//! and then commits or rolls back whole (constraints and supporting index together).

mod common;

use engine::{
    Column, ColumnType, Engine, FkAction, ForeignKeyDef, IndexDef, Recovery, TableSchema, Value,
};
use vfs::{CrashMode, SimVfs};

const INT: ColumnType = ColumnType::Integer { bytes: 4, unsigned: false };

fn open(sim: &SimVfs) -> (Engine, Recovery) {
    common::open(sim).expect("open")
}

fn fk(name: &str, on_delete: FkAction) -> ForeignKeyDef {
    ForeignKeyDef {
        name: name.into(),
        columns: vec![1],
        parent: "d.p".into(),
        parent_columns: vec!["id".into()],
        on_delete,
        on_update: FkAction::Unspecified,
    }
}

fn tables(e: &Engine) {
    e.create_table(TableSchema::new("d.p", vec![Column::new("id", INT)], vec![0])).expect("p");
    let mut c =
        TableSchema::new("d.c", vec![Column::new("id", INT), Column::new("pid", INT)], vec![0])
            .with_index("pid", vec![1], false);
    c.foreign_keys.push(fk("c_ibfk_1", FkAction::Cascade));
    e.create_table(c).expect("c");
}

fn fks(e: &Engine) -> Vec<ForeignKeyDef> {
    let id = e.table_id("d.c").expect("c exists");
    e.schema(id).expect("schema").foreign_keys.clone()
}

fn index_names(e: &Engine) -> Vec<String> {
    let id = e.table_id("d.c").expect("c exists");
    e.schema(id).expect("schema").indexes.iter().map(|i| i.name.clone()).collect()
}

#[test]
fn create_table_constraints_survive_redo_and_checkpoint() {
    let sim = SimVfs::new();
    let (e, _) = open(&sim);
    tables(&e);
    drop(e);
    let sim = sim.crash(CrashMode::DropUnsynced);
    let (e, _) = open(&sim);
    assert_eq!(fks(&e), vec![fk("c_ibfk_1", FkAction::Cascade)], "from the redo log");
    assert_eq!(e.referencing("d.p").len(), 1);
    e.checkpoint().expect("checkpoint");
    drop(e);
    let (e, _) = open(&sim.crash(CrashMode::DropUnsynced));
    assert_eq!(fks(&e), vec![fk("c_ibfk_1", FkAction::Cascade)], "from the checkpoint");
    assert!(e.referencing("d.c").is_empty());
}

#[test]
fn a_committed_change_is_durable_with_its_index() {
    for checkpoint in [false, true] {
        let sim = SimVfs::new();
        let (e, _) = open(&sim);
        tables(&e);
        let id = e.table_id("d.c").expect("c");
        let mut txn = e.begin();
        e.insert(&mut txn, id, vec![Value::Int(1), Value::Int(7)]).expect("row");
        e.commit(txn).expect("commit row");
        let mut d = e.begin();
        let new = vec![fk("c_ibfk_1", FkAction::Cascade), fk("fk2", FkAction::SetNull)];
        let idx = IndexDef::new("fk2", vec![1, 0], false);
        e.set_foreign_keys_in(&mut d, id, new.clone(), vec![idx]).expect("stage");
        e.commit(d).expect("commit ddl");
        e.flush_all().expect("flush");
        if checkpoint {
            e.checkpoint().expect("checkpoint");
        }
        drop(e);
        let (e, _) = open(&sim.crash(CrashMode::DropUnsynced));
        assert_eq!(fks(&e), new);
        assert_eq!(index_names(&e), ["pid", "fk2"]);
        assert_eq!(e.row_count(id).expect("rows"), 1, "rows unchanged by the metadata change");
        // Dropping every constraint (the indexes stay, as mysqld keeps them).
        let mut d = e.begin();
        e.set_foreign_keys_in(&mut d, id, Vec::new(), Vec::new()).expect("stage drop");
        e.commit(d).expect("commit");
        e.flush_all().expect("flush");
        drop(e);
        let (e, _) = open(&sim.crash(CrashMode::DropUnsynced));
        assert!(fks(&e).is_empty());
        assert_eq!(index_names(&e), ["pid", "fk2"]);
        assert!(e.referencing("d.p").is_empty());
    }
}

#[test]
fn a_prepared_change_stays_undecided_then_commits_or_rolls_back_whole() {
    let xid = 91;
    for commit in [false, true] {
        let sim = SimVfs::new();
        let (e, _) = open(&sim);
        tables(&e);
        let id = e.table_id("d.c").expect("c");
        let mut d = e.begin();
        let idx = IndexDef::new("k", vec![1, 0], false);
        e.set_foreign_keys_in(&mut d, id, vec![fk("other", FkAction::Restrict)], vec![idx])
            .expect("stage");
        let end = e.prepare(&mut d, xid).expect("prepare");
        e.flush_up_to(end).expect("flush");
        e.checkpoint().expect("checkpoint");
        e.abandon(d);
        drop(e);
        let (e, rec) = open(&sim.crash(CrashMode::DropUnsynced));
        assert_eq!(rec.prepared_xids, vec![xid]);
        assert_eq!(fks(&e), vec![fk("c_ibfk_1", FkAction::Cascade)], "undecided: unchanged");
        assert_eq!(index_names(&e), ["pid"]);
        if commit {
            e.commit_prepared(xid).expect("commit prepared");
        } else {
            e.rollback_prepared(xid).expect("rollback prepared");
        }
        e.flush_all().expect("flush");
        drop(e);
        let (e, rec) = open(&sim.crash(CrashMode::DropUnsynced));
        assert!(rec.prepared_xids.is_empty());
        if commit {
            assert_eq!(fks(&e), vec![fk("other", FkAction::Restrict)]);
            assert_eq!(index_names(&e), ["pid", "k"]);
        } else {
            assert_eq!(fks(&e), vec![fk("c_ibfk_1", FkAction::Cascade)]);
            assert_eq!(index_names(&e), ["pid"]);
        }
    }
}

#[test]
fn invalid_definitions_are_refused() {
    let sim = SimVfs::new();
    let (e, _) = open(&sim);
    tables(&e);
    let id = e.table_id("d.c").expect("c");
    for bad in [
        ForeignKeyDef { columns: vec![5], ..fk("x", FkAction::Cascade) },
        ForeignKeyDef { parent_columns: vec![], ..fk("x", FkAction::Cascade) },
        ForeignKeyDef { name: String::new(), ..fk("x", FkAction::Cascade) },
    ] {
        let mut d = e.begin();
        assert!(e.set_foreign_keys_in(&mut d, id, vec![bad], Vec::new()).is_err());
        e.rollback(d).expect("rollback");
    }
    let mut d = e.begin();
    let dup = vec![fk("x", FkAction::Cascade), fk("X", FkAction::Cascade)];
    assert!(e.set_foreign_keys_in(&mut d, id, dup, Vec::new()).is_err());
    e.rollback(d).expect("rollback");
    assert_eq!(fks(&e), vec![fk("c_ibfk_1", FkAction::Cascade)]);
}
