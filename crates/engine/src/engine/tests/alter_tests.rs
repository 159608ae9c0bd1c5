//! ALTER TABLE / RENAME TABLE (`Ddl::Replace`): rebuilt and kept rows, duplicate keys,
//! renames and swaps, and a crash at every disk operation of an ALTER's two-phase commit and
//! the checkpoint after it (the outcome is the old table or the new one, never a mix; a
//! flushed commit is never lost; a prepared ALTER stays undecided until decided).

use super::*;

const BIG: ColumnType = ColumnType::Integer { bytes: 8, unsigned: false };

/// t with `k` widened to BIGINT and a column `extra VARCHAR(5)` added first.
fn widened(e: &Engine, t: TableId) -> (TableSchema, Vec<Row>) {
    let old = e.schema(t).expect("t");
    let mut s = (*old).clone();
    s.columns[1] = Column::new("k", BIG);
    s.columns.insert(0, Column::new("extra", ColumnType::VarChar(5)));
    s.primary_key = vec![1];
    for i in &mut s.indexes {
        i.columns = i.columns.iter().map(|c| c + 1).collect();
    }
    let r = e.begin();
    let rows = e
        .scan(&r, t, Unbounded, Unbounded, usize::MAX)
        .expect("scan")
        .into_iter()
        .map(|(_, mut row)| {
            row.insert(0, Value::Bytes(b"x".to_vec()));
            row
        })
        .collect();
    (s, rows)
}

fn all_rows(e: &Engine, t: TableId) -> Vec<Row> {
    let r = e.begin();
    e.scan(&r, t, Unbounded, Unbounded, usize::MAX)
        .expect("scan")
        .into_iter()
        .map(|(_, r)| r)
        .collect()
}

#[test]
fn alter_rebuilds_rows_and_keeps_them_for_metadata_changes() {
    let (sim, e, t) = fixture(&[row(1, 10, "a"), row(2, 20, "b")]);
    let (s, rows) = widened(&e, t);
    let mut d = e.begin();
    e.replace_table_in(&mut d, t, s.clone(), Some(rows)).expect("stage");
    // Staged only: readers see the old definition.
    assert_eq!(e.schema(t).expect("t").columns.len(), 3);
    e.commit(d).expect("commit");
    assert_eq!(e.schema(t).expect("t").columns[0].name, "extra");
    let r = e.begin();
    let got = e.scan_index(&r, t, "uk", Unbounded, Unbounded, 10).expect("scan");
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].1[2], Value::Int(10));
    // Metadata only: rename a column and the table; the row cells are shared, not copied.
    let before = e.inner.table(t).expect("t");
    let mut m = (*e.schema(t).expect("t")).clone();
    m.columns[3].name = "label".into();
    m.name = "t2".into();
    m.indexes[0].name = "uk_label".into();
    let mut d = e.begin();
    e.replace_table_in(&mut d, t, m, None).expect("stage rename");
    e.commit(d).expect("commit");
    let after = e.inner.table(t).expect("t");
    let key = pk(&e, 1);
    let same_cell = Arc::ptr_eq(
        before.rows.shard(&key).read().get(&key[..]).expect("cell"),
        after.rows.shard(&key).read().get(&key[..]).expect("cell"),
    );
    assert!(same_cell, "a metadata change keeps the rows");
    assert_eq!(e.table_id("t"), None);
    assert_eq!(e.table_id("t2"), Some(t));
    // Names compare exactly unless folding is on (lower_case_table_names 0 vs 1/2).
    assert_eq!(e.table_id("T2"), None);
    e.set_name_folding(true);
    assert_eq!(e.table_id("T2"), Some(t));
    assert!(e.same_table_name("t2", "T2"));
    e.set_name_folding(false);
    assert!(!e.same_table_name("t2", "T2"));
    // A changed row format without rows is refused; so is a duplicate key in the rows.
    let mut bad = (*e.schema(t).expect("t")).clone();
    bad.columns[2] = Column::new("k", INT);
    let mut d = e.begin();
    assert_eq!(e.replace_table_in(&mut d, t, bad, None).expect_err("format").mysql_code(), 1105);
    drop(d);
    let s2 = (*e.schema(t).expect("t")).clone();
    let dup = vec![all_rows(&e, t)[0].clone(), all_rows(&e, t)[0].clone()];
    let mut d = e.begin();
    assert_eq!(e.replace_table_in(&mut d, t, s2, Some(dup)).expect_err("dup").mysql_code(), 1062);
    drop(d);
    assert_eq!(all_rows(&e, t).len(), 2, "nothing changed");
    e.flush_all().expect("flush");
    drop(e);
    let (e, _) = open(&sim.crash(vfs::CrashMode::DropUnsynced));
    assert_eq!(e.table_id("t2"), Some(t));
    assert_eq!(e.schema(t).expect("t").columns[3].name, "label");
    assert_eq!(all_rows(&e, t).len(), 2);
    assert_eq!(
        e.scan_index(&e.begin(), t, "uk_label", Unbounded, Unbounded, 9).expect("s").len(),
        2
    );
}

#[test]
fn rename_tables_swaps_names_atomically() {
    let (_sim, e, t) = fixture(&[row(1, 1, "a")]);
    let u = small(&e, "u");
    let mut d = e.begin();
    e.rename_tables_in(&mut d, &[(t, "u".into()), (u, "t".into())]).expect("swap");
    e.commit(d).expect("commit");
    assert_eq!(e.table_id("u"), Some(t));
    assert_eq!(e.table_id("t"), Some(u));
    let mut d = e.begin();
    let taken = e.rename_tables_in(&mut d, &[(t, "t".into())]).expect_err("taken");
    assert_eq!(taken.mysql_code(), 1050);
    drop(d);
    // A name reserved by a staged rename is taken for CREATE TABLE too.
    let mut d = e.begin();
    e.rename_tables_in(&mut d, &[(t, "v".into())]).expect("rename");
    let v = TableSchema::new("v", vec![Column::new("x", INT)], vec![]);
    assert_eq!(e.create_table_in(&mut d, v).expect_err("reserved").mysql_code(), 1050);
    e.rollback(d).expect("rollback");
    assert_eq!(e.table_id("u"), Some(t));
    small(&e, "v");
}

/// The ALTER workload the crash test replays: rows, an ALTER (rebuild) prepared as XID 5
/// and committed, a checkpoint, then a RENAME committed. Returns whether each commit
/// returned and was flushed.
fn alter_workload(sim: &SimVfs) -> (bool, bool) {
    let Ok((e, _)) = Engine::open(sim.shared(), Path::new("/data"), config()) else {
        return (false, false);
    };
    let Ok(t) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let t = table(&e);
        for i in 0..6 {
            commit_row(&e, t, row(i, i * 10, &format!("n{i}")));
        }
        e.flush_all().expect("flush");
        t
    })) else {
        return (false, false);
    };
    let (s, rows) = widened(&e, t);
    let run = || -> Result<bool> {
        let mut d = e.begin();
        e.replace_table_in(&mut d, t, s, Some(rows))?;
        let end = e.prepare(&mut d, 5)?;
        e.flush_up_to(end)?;
        let end = e.commit(d)?;
        e.flush_up_to(end)?;
        Ok(true)
    };
    let altered = run().unwrap_or(false);
    if !altered {
        return (false, false);
    }
    let renamed = (|| -> Result<bool> {
        e.checkpoint()?;
        let mut d = e.begin();
        e.rename_tables_in(&mut d, &[(t, "renamed".into())])?;
        let end = e.commit(d)?;
        e.flush_up_to(end)?;
        e.checkpoint()?;
        Ok(true)
    })()
    .unwrap_or(false);
    (altered, renamed)
}

#[test]
fn a_crash_at_every_operation_of_an_alter_leaves_the_old_or_the_new_table() {
    let sim = SimVfs::new();
    assert_eq!(alter_workload(&sim), (true, true));
    let total = sim.op_count();
    let mut outcomes = [0usize; 3];
    for k in 0..total {
        let mode = match k % 3 {
            0 => vfs::CrashMode::DropUnsynced,
            1 => vfs::CrashMode::Tear { seed: k },
            _ => vfs::CrashMode::KeepAll,
        };
        let sim = SimVfs::new();
        sim.crash_at(k);
        let (altered, renamed) = alter_workload(&sim);
        let sim = sim.crash(mode);
        let (e, rec) = open(&sim);
        let Some(id) = e.table_id("t").or(e.table_id("renamed")) else {
            // The crash came before the table was created durably.
            assert!(!altered, "k {k}: an acknowledged ALTER lost its table");
            continue;
        };
        if rec.prepared_xids == vec![5] {
            // Prepared and undecided: the old definition until the decision.
            assert_eq!(e.schema(id).expect("t").columns.len(), 3, "k {k}");
            e.commit_prepared(5).expect("commit prepared");
        }
        let s = e.schema(id).expect("t");
        let rows = all_rows(&e, id);
        if s.columns.len() == 4 {
            outcomes[1] += 1;
            assert_eq!(s.columns[0].name, "extra", "k {k}");
            assert_eq!(rows.len(), 6, "k {k}: the rebuilt rows are all there");
            for r in &rows {
                assert_eq!(r.len(), 4, "k {k}");
                assert_eq!(r[0], Value::Bytes(b"x".to_vec()), "k {k}");
            }
            let via_index = e.scan_index(&e.begin(), id, "kk", Unbounded, Unbounded, 99);
            assert_eq!(via_index.expect("index").len(), 6, "k {k}");
        } else {
            outcomes[0] += 1;
            assert!(!altered, "k {k}: an acknowledged ALTER was lost");
            assert_eq!(s.columns.len(), 3, "k {k}");
            assert!(rows.iter().all(|r| r.len() == 3), "k {k}");
        }
        if e.table_id("renamed").is_some() {
            outcomes[2] += 1;
            assert_eq!(e.table_id("t"), None, "k {k}");
        } else {
            assert!(!renamed, "k {k}: an acknowledged RENAME was lost");
        }
    }
    assert!(outcomes.iter().all(|&n| n > 0), "every outcome was reached: {outcomes:?}");
}

/// A prepared ALTER, caught by a checkpoint and a crash, is restaged by recovery (the
/// DdlPrepare record with its rows is decoded again) and the decision taken then stands.
#[test]
fn a_prepared_alter_survives_a_checkpoint_and_a_crash_undecided() {
    for commit in [false, true] {
        let (sim, e, t) = fixture(&[row(1, 10, "a"), row(2, 20, "b")]);
        let (s, rows) = widened(&e, t);
        let mut d = e.begin();
        e.replace_table_in(&mut d, t, s, Some(rows)).expect("stage");
        let end = e.prepare(&mut d, 9).expect("prepare");
        e.flush_up_to(end).expect("flush");
        e.checkpoint().expect("checkpoint");
        e.abandon(d);
        drop(e);
        let sim = sim.crash(vfs::CrashMode::DropUnsynced);
        let (e, rec) = open(&sim);
        assert_eq!(rec.prepared_xids, vec![9]);
        assert_eq!(e.schema(t).expect("t").columns.len(), 3);
        if commit {
            e.commit_prepared(9).expect("commit");
        } else {
            e.rollback_prepared(9).expect("rollback");
        }
        e.flush_all().expect("flush");
        drop(e);
        let (e, _) = open(&sim.crash(vfs::CrashMode::DropUnsynced));
        let want = if commit { 4 } else { 3 };
        assert_eq!(e.schema(t).expect("t").columns.len(), want);
        assert!(all_rows(&e, t).iter().all(|r| r.len() == want));
    }
}
