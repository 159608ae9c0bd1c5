//! Incremental checkpoints (a base plus delta files named by the chain manifest, see
//! docs/engine.md "Checkpoints"): a delta holds only what changed, tables changed by DDL are
//! written whole, recovery of base + deltas + redo equals the engine before the crash at
//! every crash point of a delta and of a new base, and damage to any file of the chain is
//! refused at start-up with the file and offset.

mod common;

use std::collections::BTreeMap;
use std::ops::Bound::Unbounded;
use std::path::Path;

use engine::{Column, ColumnType, Engine, IndexDef, TableSchema, Value};
use vfs::{CrashMode, OpenMode, SimVfs};

type State = BTreeMap<String, BTreeMap<i64, i64>>;

fn schema(name: &str) -> TableSchema {
    let int = ColumnType::Integer { bytes: 8, unsigned: false };
    TableSchema::new(name, vec![Column::new("k", int), Column::new("v", int)], vec![0]).with_index(
        "iv",
        vec![1],
        false,
    )
}

/// Every table's rows (k -> v), checking the secondary index agrees.
fn state(e: &Engine) -> State {
    let r = e.begin();
    let mut out = State::new();
    for name in ["a", "b", "c"] {
        let Some(t) = e.table_id(name) else { continue };
        let rows = e.scan(&r, t, Unbounded, Unbounded, usize::MAX).expect("scan");
        let m: BTreeMap<i64, i64> = rows
            .iter()
            .map(|(_, row)| match (&row[0], &row[1]) {
                (Value::Int(k), Value::Int(v)) => (*k, *v),
                other => panic!("bad row {other:?}"),
            })
            .collect();
        let by_v = e.scan_index(&r, t, "iv", Unbounded, Unbounded, usize::MAX).expect("index");
        assert_eq!(by_v.len(), m.len(), "index iv of {name} disagrees with its rows");
        out.insert(name.to_string(), m);
    }
    out
}

fn put(e: &Engine, table: &str, rows: impl IntoIterator<Item = (i64, i64)>) {
    let t = e.table_id(table).expect("table");
    let mut w = e.begin();
    for (k, v) in rows {
        let key = e.key(&[Value::Int(k)]);
        if e.get(&w, t, &key).expect("get").is_some() {
            e.update(&mut w, t, &key, vec![Value::Int(k), Value::Int(v)]).expect("update");
        } else {
            e.insert(&mut w, t, vec![Value::Int(k), Value::Int(v)]).expect("insert");
        }
    }
    e.commit(w).expect("commit");
}

fn delete(e: &Engine, table: &str, keys: impl IntoIterator<Item = i64>) {
    let t = e.table_id(table).expect("table");
    let mut w = e.begin();
    for k in keys {
        assert!(e.delete(&mut w, t, &e.key(&[Value::Int(k)])).expect("delete"));
    }
    e.commit(w).expect("commit");
}

fn size(sim: &SimVfs, name: &str) -> usize {
    sim.contents(Path::new("/data").join(name)).map_or(0, |c| c.len())
}

/// A base of 4 000 rows in "a" and 100 in "b".
fn with_base(sim: &SimVfs) -> Engine {
    let (e, _) = common::open(sim).expect("open");
    e.create_table(schema("a")).expect("create a");
    e.create_table(schema("b")).expect("create b");
    for chunk in 0..4 {
        put(&e, "a", (chunk * 1000..(chunk + 1) * 1000).map(|k| (k, k * 10)));
    }
    put(&e, "b", (0..100).map(|k| (k, -k)));
    e.checkpoint_full().expect("base");
    e
}

/// Changes after the base: updates, deletes (a key deleted then inserted again among them),
/// inserts, and in "b" nothing.
fn changes(e: &Engine) {
    put(e, "a", (0..20).map(|k| (k, k + 7)));
    delete(e, "a", [100, 101, 102, 103]);
    put(e, "a", [(101, 5), (9000, 1), (9001, 2)]);
    put(e, "a", [(0, 99)]);
}

#[test]
fn a_delta_holds_only_the_rows_changed_since_the_last_checkpoint() {
    let sim = SimVfs::new();
    let e = with_base(&sim);
    let base = size(&sim, "checkpoint");
    changes(&e);
    let before = e.stats();
    e.checkpoint().expect("delta");
    let after = e.stats();
    assert_eq!(after.checkpoint_deltas, before.checkpoint_deltas + 1, "a delta, not a base");
    let delta = size(&sim, "checkpoint.delta.1");
    // 25 changed keys of ~40 bytes each plus headers; the base holds 4 100 rows.
    assert!(delta > 0 && delta * 20 < base, "delta {delta} bytes against a base of {base}");
    assert_eq!(after.checkpoint_bytes_written - before.checkpoint_bytes_written, delta as u64);
    assert_eq!(size(&sim, "checkpoint"), base, "the base is not rewritten");
    // A second delta with nothing changed holds no rows at all.
    e.checkpoint().expect("empty delta");
    let empty = size(&sim, "checkpoint.delta.2");
    assert!(empty < 200, "an empty delta is {empty} bytes");
    let want = state(&e);
    let (e, _) = common::crash_and_reopen(e, &sim, false);
    assert_eq!(state(&e), want);
}

#[test]
fn tables_created_dropped_truncated_or_altered_since_the_last_checkpoint_are_written_whole() {
    let sim = SimVfs::new();
    let e = with_base(&sim);
    changes(&e);
    e.checkpoint().expect("delta 1");
    // DDL between checkpoints: a new table with rows, a truncated one with new rows, and a
    // new index on "a" (a new table object sharing the rows).
    e.create_table(schema("c")).expect("create c");
    put(&e, "c", (0..50).map(|k| (k, k)));
    let b = e.table_id("b").expect("b");
    e.truncate(b).expect("truncate");
    put(&e, "b", [(1, 1), (2, 2)]);
    let a = e.table_id("a").expect("a");
    e.create_index(a, IndexDef::new("iv2", vec![1, 0], false)).expect("index");
    put(&e, "a", [(5, 55)]);
    e.checkpoint().expect("delta 2");
    assert_eq!(e.stats().checkpoint_deltas, 2);
    let want = state(&e);
    let (e, sim) = common::crash_and_reopen(e, &sim, false);
    assert_eq!(state(&e), want);
    assert!(e
        .table_id("a")
        .is_some_and(|a| e.scan_index(&e.begin(), a, "iv2", Unbounded, Unbounded, 10).is_ok()));
    // After recovery, the replayed changes and a dropped table reach the next delta.
    put(&e, "a", [(7, 77)]);
    let (e, sim) = common::crash_and_reopen(e, &sim, false);
    let c = e.table_id("c").expect("c");
    e.drop_table(c).expect("drop c");
    delete(&e, "a", [7]);
    e.checkpoint().expect("delta after recovery");
    let want = state(&e);
    assert!(!want.contains_key("c"));
    let (e, _) = common::crash_and_reopen(e, &sim, false);
    assert_eq!(state(&e), want);
}

#[test]
fn deltas_past_half_the_base_make_a_new_base_and_the_chain_files_go() {
    let sim = SimVfs::new();
    let e = with_base(&sim);
    let mut k = 10_000;
    let mut rounds = 0;
    // Each round adds 400 new rows (a tenth of the base) and takes a checkpoint.
    while e.stats().checkpoint_deltas == rounds {
        put(&e, "a", (k..k + 400).map(|k| (k, k)));
        k += 400;
        e.checkpoint().expect("checkpoint");
        rounds += 1;
        assert!(rounds < 10, "no new base after {rounds} rounds");
    }
    assert!(rounds >= 3, "a new base after only {rounds} deltas");
    assert!(sim.contents("/data/checkpoint.chain").is_none(), "the manifest goes with a new base");
    assert!(sim.contents("/data/checkpoint.delta.1").is_none(), "so do the deltas");
    let want = state(&e);
    let (e, _) = common::crash_and_reopen(e, &sim, false);
    assert_eq!(state(&e), want);
    // A clean shutdown writes a base too: one checkpoint file.
    put(&e, "b", [(1, 2)]);
    e.checkpoint().expect("delta");
    assert!(sim.contents("/data/checkpoint.chain").is_some());
    e.shutdown().expect("shutdown");
    assert!(sim.contents("/data/checkpoint.chain").is_none());
}

/// Runs `setup` then `action` on a fresh simulated disk cut at every operation of `action`,
/// with each crash mode, and checks recovery gives the state after `setup` (every change was
/// flushed before the checkpoint, so it is the state after `action` too).
fn crash_at_every_operation_of(setup: fn(&Engine), action: fn(&Engine)) {
    let (start, end, want) = {
        let sim = SimVfs::new();
        let e = with_base(&sim);
        setup(&e);
        e.flush_all().expect("flush");
        let want = state(&e);
        let start = sim.op_count();
        action(&e);
        (start, sim.op_count(), want)
    };
    assert!(end > start + 4, "the action does disk operations ({start}..{end})");
    for k in start..=end {
        for mode in [CrashMode::DropUnsynced, CrashMode::Tear { seed: k }, CrashMode::KeepAll] {
            let sim = SimVfs::new();
            let e = with_base(&sim);
            setup(&e);
            e.flush_all().expect("flush");
            sim.crash_at(k);
            action(&e);
            std::mem::forget(e);
            let sim = sim.crash(mode);
            let (e, _) = common::open(&sim)
                .unwrap_or_else(|err| panic!("crash at {k} ({mode:?}): recovery failed: {err}"));
            assert_eq!(state(&e), want, "crash at {k} ({mode:?})");
            // And the next checkpoint after it, then a restart, keep it.
            e.checkpoint().expect("checkpoint after recovery");
            let (e, _) = common::crash_and_reopen(e, &sim, false);
            assert_eq!(state(&e), want, "crash at {k} ({mode:?}), after the next checkpoint");
        }
    }
}

#[test]
fn a_crash_at_every_operation_of_a_delta_checkpoint_recovers() {
    crash_at_every_operation_of(
        |e| {
            changes(e);
            e.checkpoint().expect("delta 1");
            put(e, "b", [(500, 5)]);
            delete(e, "a", [9000]);
        },
        |e| {
            let _ = e.checkpoint();
        },
    );
}

#[test]
fn a_crash_at_every_operation_of_a_new_base_after_deltas_recovers() {
    crash_at_every_operation_of(
        |e| {
            changes(e);
            e.checkpoint().expect("delta 1");
            put(e, "b", [(500, 5)]);
            e.checkpoint().expect("delta 2");
            delete(e, "a", [9000]);
        },
        |e| {
            let _ = e.checkpoint_full();
        },
    );
}

/// A chain of base + 2 deltas, the engine dropped (its files all durable).
fn chain(sim: &SimVfs) -> State {
    let e = with_base(sim);
    changes(&e);
    e.checkpoint().expect("delta 1");
    put(&e, "b", [(500, 5)]);
    e.checkpoint().expect("delta 2");
    let want = state(&e);
    drop(e);
    want
}

fn refused(sim: &SimVfs, needles: &[&str]) {
    let sim = sim.crash(CrashMode::KeepAll);
    match common::open(&sim) {
        Ok(_) => panic!("damage accepted ({needles:?})"),
        Err(err) => {
            let msg = err.to_string();
            for n in needles {
                assert!(msg.contains(n), "{msg:?} does not name {n:?}");
            }
        }
    }
}

fn rewrite(sim: &SimVfs, name: &str, f: impl FnOnce(&mut Vec<u8>)) {
    let path = Path::new("/data").join(name);
    let mut bytes = sim.contents(&path).expect("file");
    f(&mut bytes);
    let v = sim.shared();
    v.remove_file(&path).expect("remove");
    let file = v.open(&path, OpenMode::CreateNew).expect("create");
    file.write_at(&bytes, 0).expect("write");
    file.sync_data().expect("sync");
    v.sync_dir(Path::new("/data")).expect("sync dir");
}

#[test]
fn damage_to_the_chain_is_refused_with_the_file_and_offset() {
    // Intact, it loads.
    let sim = SimVfs::new();
    let want = chain(&sim);
    let (e, _) = common::open(&sim.crash(CrashMode::KeepAll)).expect("intact chain");
    assert_eq!(state(&e), want);
    drop(e);

    // A delta missing.
    let sim = SimVfs::new();
    chain(&sim);
    sim.shared().remove_file(Path::new("/data/checkpoint.delta.2")).expect("remove");
    refused(&sim, &["checkpoint.delta.2", "missing"]);

    // A delta with a flipped byte: its CRC fails.
    let sim = SimVfs::new();
    chain(&sim);
    rewrite(&sim, "checkpoint.delta.1", |b| b[30] ^= 0x40);
    refused(&sim, &["checkpoint.delta.1", "offset"]);

    // A torn (short) delta.
    let sim = SimVfs::new();
    chain(&sim);
    rewrite(&sim, "checkpoint.delta.2", |b| b.truncate(b.len() / 2));
    refused(&sim, &["checkpoint.delta.2", "offset"]);

    // A delta replaced by another intact one (delta 1 copied over delta 2).
    let sim = SimVfs::new();
    chain(&sim);
    let one = sim.contents("/data/checkpoint.delta.1").expect("delta 1");
    rewrite(&sim, "checkpoint.delta.2", |b| *b = one);
    refused(&sim, &["checkpoint.delta.2"]);

    // The manifest damaged.
    let sim = SimVfs::new();
    chain(&sim);
    rewrite(&sim, "checkpoint.chain", |b| b[9] ^= 1);
    refused(&sim, &["checkpoint.chain", "offset"]);

    // A manifest naming a newer base than the checkpoint file holds.
    let sim = SimVfs::new();
    chain(&sim);
    rewrite(&sim, "checkpoint.chain", |b| {
        b[8] = b[8].wrapping_add(1);
        let n = b.len() - 4;
        let crc = crc32fast::hash(&b[..n]);
        b[n..].copy_from_slice(&crc.to_le_bytes());
    });
    refused(&sim, &["checkpoint.chain", "names a base"]);
}

#[test]
fn a_base_alone_still_loads_and_starts_a_chain() {
    // A directory from before delta checkpoints: the base file and the redo, no manifest.
    let sim = SimVfs::new();
    let e = with_base(&sim);
    put(&e, "a", [(1, 1)]);
    e.flush_all().expect("flush");
    let want = state(&e);
    drop(e);
    assert!(sim.contents("/data/checkpoint.chain").is_none());
    let sim = sim.crash(CrashMode::DropUnsynced);
    let (e, rec) = common::open(&sim).expect("open");
    assert!(rec.prepared_xids.is_empty());
    assert_eq!(state(&e), want);
    // The replayed change is in the first delta.
    e.checkpoint().expect("delta");
    assert_eq!(e.stats().checkpoint_deltas, 1);
    let (e, _) = common::crash_and_reopen(e, &sim, false);
    assert_eq!(state(&e), want);
}
