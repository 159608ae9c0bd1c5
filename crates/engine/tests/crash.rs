//! Crash simulation: a seeded workload of interleaved sessions (inserts, updates, deletes,
//! rollbacks, one-phase commits, prepare + flush + commit, transactions left prepared across
//! checkpoints) on the simulated disk, cut at every durability-relevant operation, dropping or
//! tearing what was not synced; after recovery the engine must equal a model replay:
//! - every transaction whose commit record is in the recovered log is committed, in LSN order;
//! - every transaction whose prepare record is in the log but whose decision is not is
//!   returned as prepared, its changes invisible until decided;
//! - nothing else is visible, and everything acknowledged by a flush is in the log.
//!
//! A failure prints the seed, the crash point and the mode; `CRASH_SEED=s CRASH_K=k` replays
//! one case.

use std::cell::Cell;
use std::collections::{BTreeMap, HashMap};
use std::ops::Bound::Unbounded;
use std::path::Path;
use std::time::Duration;

use engine::{
    Column, ColumnType, Engine, EngineConfig, Lsn, Recovery, RedoFlushMethod, TableSchema, Txn,
    Value,
};
use vfs::{CrashMode, SimVfs};

const SESSIONS: usize = 5;
const KEYS: i64 = 24;

thread_local! {
    /// The flush method of the case running on this thread.
    static METHOD: Cell<RedoFlushMethod> = const { Cell::new(RedoFlushMethod::Fsync) };
}

fn config() -> EngineConfig {
    let method = METHOD.with(Cell::get);
    EngineConfig {
        // Small files so the workload crosses file boundaries and recycles (O_DSYNC needs
        // whole 4 KiB blocks, and its writes span one to a few of them).
        redo_file_bytes: if method == RedoFlushMethod::ODsync { 4096 } else { 2048 },
        lock_wait_timeout: Duration::from_secs(30),
        checkpoint_redo_bytes: None,
        retain_redo_for_binlog: false,
        redo_flush_method: method,
        recovery_accept_loss: false,
    }
}

/// How far the log may reach after the crash: what the engine wrote, and with O_DSYNC also
/// the direct write in flight at the power cut (it may land in part or whole: at most what
/// was appended).
fn written_bound(e: &Engine) -> Lsn {
    if METHOD.with(Cell::get) == RedoFlushMethod::ODsync {
        e.stats().next_lsn
    } else {
        e.written_lsn()
    }
}

fn dir() -> &'static Path {
    Path::new("/data")
}

/// SplitMix64: fixed, so a seed replays forever.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// What the model knows about one transaction.
#[derive(Debug, Clone, Default)]
struct TxnRecord {
    /// Final image per key (None = deleted).
    changes: BTreeMap<i64, Option<i64>>,
    xid: Option<u64>,
    prepare_end: Option<Lsn>,
    /// (committed?, end LSN of the decision record).
    decision: Option<(bool, Lsn)>,
    one_phase_end: Option<Lsn>,
}

#[derive(Debug, Default)]
struct Model {
    table_durable: bool,
    records: Vec<TxnRecord>,
    /// The highest LSN a flush acknowledged.
    acked: Lsn,
    /// How far the engine wrote the log before the crash: nothing beyond can be durable.
    written: Lsn,
}

struct Session {
    txn: Option<Txn>,
    record: TxnRecord,
}

/// The committed state a transaction log implies, given the end of the recovered log.
fn expected(model: &Model, end: Lsn) -> (BTreeMap<i64, i64>, Vec<u64>) {
    let mut commits: Vec<(Lsn, &TxnRecord)> = Vec::new();
    let mut prepared = Vec::new();
    for r in &model.records {
        if let Some(l) = r.one_phase_end.filter(|l| *l <= end) {
            commits.push((l, r));
        }
        if r.prepare_end.is_some_and(|p| p <= end) {
            match r.decision {
                Some((true, l)) if l <= end => commits.push((l, r)),
                Some((false, l)) if l <= end => {}
                _ => prepared.push(r.xid.expect("prepared has xid")),
            }
        }
    }
    commits.sort_by_key(|c| c.0);
    let mut state = BTreeMap::new();
    for (_, r) in commits {
        for (&k, v) in &r.changes {
            match v {
                Some(v) => state.insert(k, *v),
                None => state.remove(&k),
            };
        }
    }
    prepared.sort_unstable();
    (state, prepared)
}

fn actual(e: &Engine) -> Option<BTreeMap<i64, i64>> {
    let t = e.table_id("kv")?;
    let r = e.begin();
    let rows = e.scan(&r, t, Unbounded, Unbounded, usize::MAX).expect("scan");
    let state: BTreeMap<i64, i64> = rows
        .iter()
        .map(|(_, row)| match (&row[0], &row[1]) {
            (Value::Int(k), Value::Int(v)) => (*k, *v),
            other => panic!("bad row {other:?}"),
        })
        .collect();
    // The secondary index must describe exactly the same rows, in (v, k) order.
    let by_v = e.scan_index(&r, t, "iv", Unbounded, Unbounded, usize::MAX).expect("scan index");
    let mut want: Vec<(i64, i64)> = state.iter().map(|(k, v)| (*v, *k)).collect();
    want.sort_unstable();
    let got: Vec<(i64, i64)> = by_v
        .iter()
        .map(|(_, row)| match (&row[0], &row[1]) {
            (Value::Int(k), Value::Int(v)) => (*v, *k),
            other => panic!("bad row {other:?}"),
        })
        .collect();
    assert_eq!(got, want, "index iv disagrees with the rows");
    Some(state)
}

/// Runs the workload until it ends or the engine fails (the simulated power cut).
fn workload(sim: &SimVfs, seed: u64, steps: usize) -> Model {
    let mut model = Model::default();
    let Ok((e, _)) = Engine::open(sim.shared(), dir(), config()) else { return model };
    let int = ColumnType::Integer { bytes: 8, unsigned: false };
    let schema =
        TableSchema::new("kv", vec![Column::new("k", int), Column::new("v", int)], vec![0])
            .with_index("iv", vec![1], false);
    let Ok(t) = e.create_table(schema) else {
        // The CREATE's record may be written (not synced) when the power goes.
        model.written = written_bound(&e);
        std::mem::forget(e);
        return model;
    };
    model.table_durable = true;
    let mut rng = Rng(seed);
    let mut live: BTreeMap<i64, i64> = BTreeMap::new();
    let mut locked: HashMap<i64, usize> = HashMap::new();
    let mut sessions: Vec<Session> =
        (0..SESSIONS).map(|_| Session { txn: None, record: TxnRecord::default() }).collect();
    let mut next_xid = 1u64;
    let mut counter = 0i64;
    let result: Result<(), engine::Error> = (|| {
        for step in 0..steps {
            // Checkpoints: the first is a delta of the empty base written at open, which
            // outgrows half of it, so the second is a new base and the third a delta again
            // (docs/engine.md, "Checkpoints").
            if step == steps / 2 || step == steps * 5 / 8 || step == steps * 3 / 4 {
                e.checkpoint()?;
            }
            if step % 29 == 28 {
                e.flush_all()?;
                model.acked = model.acked.max(e.flushed_lsn());
            }
            let s = rng.below(SESSIONS as u64) as usize;
            let sess = &mut sessions[s];
            let Some(txn) = sess.txn.as_mut() else {
                sess.txn = Some(e.begin());
                sess.record = TxnRecord::default();
                continue;
            };
            let finish = |sess: &mut Session,
                          live: &mut BTreeMap<i64, i64>,
                          locked: &mut HashMap<i64, usize>,
                          commit: bool| {
                if commit {
                    for (&k, v) in &sess.record.changes {
                        match v {
                            Some(v) => live.insert(k, *v),
                            None => live.remove(&k),
                        };
                    }
                }
                locked.retain(|_, owner| *owner != s);
                sess.txn = None;
            };
            if txn.xid().is_some() {
                // Prepared: decide now and then.
                match rng.below(4) {
                    0 => {
                        let end = e.commit(sess.txn.take().expect("txn"))?;
                        sess.record.decision = Some((true, end));
                        model.records.push(sess.record.clone());
                        finish(sess, &mut live, &mut locked, true);
                    }
                    1 => {
                        e.rollback(sess.txn.take().expect("txn"))?;
                        // The Rollback record's LSN is not returned; it is the last record
                        // appended, so it ends at the current end of the log.
                        sess.record.decision = Some((false, e.next_lsn()));
                        model.records.push(sess.record.clone());
                        finish(sess, &mut live, &mut locked, false);
                    }
                    _ => {}
                }
                continue;
            }
            match rng.below(10) {
                0..=5 => {
                    let k = rng.below(KEYS as u64) as i64;
                    if locked.get(&k).is_some_and(|o| *o != s) {
                        continue;
                    }
                    let key = e.key(&[Value::Int(k)]);
                    let mine = sess
                        .record
                        .changes
                        .get(&k)
                        .copied()
                        .unwrap_or_else(|| live.get(&k).copied());
                    counter += 1;
                    let v = counter;
                    match mine {
                        None => {
                            e.insert(txn, t, vec![Value::Int(k), Value::Int(v)])?;
                            sess.record.changes.insert(k, Some(v));
                        }
                        Some(_) if rng.below(3) == 0 => {
                            assert!(e.delete(txn, t, &key)?);
                            sess.record.changes.insert(k, None);
                        }
                        Some(_) => {
                            assert!(e.update(txn, t, &key, vec![Value::Int(k), Value::Int(v)])?);
                            sess.record.changes.insert(k, Some(v));
                        }
                    }
                    locked.insert(k, s);
                }
                6 => {
                    let end = e.commit(sess.txn.take().expect("txn"))?;
                    if end > Lsn(0) {
                        sess.record.one_phase_end = Some(end);
                        model.records.push(sess.record.clone());
                    }
                    finish(sess, &mut live, &mut locked, true);
                }
                7 | 8 => {
                    let xid = next_xid;
                    next_xid += 1;
                    let end = e.prepare(txn, xid)?;
                    sess.record.xid = Some(xid);
                    sess.record.prepare_end = Some(end);
                    e.flush_up_to(end)?;
                    model.acked = model.acked.max(end);
                    if rng.below(2) == 0 {
                        let end = e.commit(sess.txn.take().expect("txn"))?;
                        sess.record.decision = Some((true, end));
                        model.records.push(sess.record.clone());
                        finish(sess, &mut live, &mut locked, true);
                    }
                }
                _ => {
                    e.rollback(sess.txn.take().expect("txn"))?;
                    finish(sess, &mut live, &mut locked, false);
                }
            }
        }
        Ok(())
    })();
    // Transactions still prepared when the workload ended are in the log too.
    for sess in &sessions {
        if sess.txn.as_ref().is_some_and(|t| t.xid().is_some()) {
            model.records.push(sess.record.clone());
        }
    }
    if let Err(err) = result {
        assert!(sim.power_lost(), "workload failed without a crash: {err}");
    }
    model.written = written_bound(&e);
    // The dead engine's transactions must not write anything: leak them with the engine.
    for sess in sessions {
        std::mem::forget(sess.txn);
    }
    std::mem::forget(e);
    model
}

fn check(sim: &SimVfs, model: &Model) -> Result<(), String> {
    let (e, rec): (Engine, Recovery) =
        Engine::open(sim.shared(), dir(), config()).map_err(|e| format!("recovery failed: {e}"))?;
    if rec.end_lsn < model.acked {
        return Err(format!(
            "log ends at {:?} but {:?} was acknowledged durable",
            rec.end_lsn, model.acked
        ));
    }
    // A file tail too short for a record header is skipped, so the end may be rounded up.
    let cap = config().redo_file_bytes;
    let tail = cap - model.written.0 % cap;
    let written = if tail < 17 { Lsn(model.written.0 + tail) } else { model.written };
    if rec.end_lsn > written {
        return Err(format!(
            "log ends at {:?} beyond what was ever written ({:?})",
            rec.end_lsn, model.written
        ));
    }
    let (want, want_prepared) = expected(model, rec.end_lsn);
    let Some(got) = actual(&e) else {
        if model.table_durable || !want.is_empty() {
            return Err("table kv missing".into());
        }
        return Ok(());
    };
    if got != want {
        return Err(format!(
            "state after recovery (end {:?}):\n got  {got:?}\n want {want:?}",
            rec.end_lsn
        ));
    }
    if rec.prepared_xids != want_prepared {
        return Err(format!("prepared {:?}, want {want_prepared:?}", rec.prepared_xids));
    }
    // The coordinator decides: even XIDs commit, odd roll back. Then a clean restart must
    // show the decisions.
    let mut want = want;
    for xid in &rec.prepared_xids {
        let r = model.records.iter().find(|r| r.xid == Some(*xid)).expect("known xid");
        if xid % 2 == 0 {
            e.commit_prepared(*xid).map_err(|e| format!("commit_prepared: {e}"))?;
            for (&k, v) in &r.changes {
                match v {
                    Some(v) => want.insert(k, *v),
                    None => want.remove(&k),
                };
            }
        } else {
            e.rollback_prepared(*xid).map_err(|e| format!("rollback_prepared: {e}"))?;
        }
    }
    // New work after recovery lands behind the recovered end and survives.
    let t = e.table_id("kv").expect("table");
    let mut w = e.begin();
    let key = e.key(&[Value::Int(KEYS)]);
    e.insert(&mut w, t, vec![Value::Int(KEYS), Value::Int(-1)])
        .map_err(|e| format!("insert: {e}"))?;
    e.commit(w).map_err(|e| format!("commit: {e}"))?;
    want.insert(KEYS, -1);
    if rec.end_lsn.0 % 3 == 0 {
        e.checkpoint().map_err(|e| format!("checkpoint: {e}"))?;
    }
    e.flush_all().map_err(|e| format!("flush: {e}"))?;
    assert!(e.get(&e.begin(), t, &key).expect("get").is_some());
    drop(e);
    let sim = sim.crash(CrashMode::Tear { seed: rec.end_lsn.0 });
    let (e, rec2) = Engine::open(sim.shared(), dir(), config())
        .map_err(|e| format!("second recovery failed: {e}"))?;
    let got = actual(&e).ok_or("table kv missing after second restart")?;
    if got != want || !rec2.prepared_xids.is_empty() {
        return Err(format!(
            "after deciding and restarting:\n got  {got:?} prepared {:?}\n want {want:?}",
            rec2.prepared_xids
        ));
    }
    Ok(())
}

fn run_case(seed: u64, steps: usize, k: u64, mode: CrashMode) {
    let outcome = std::panic::catch_unwind(|| {
        let sim = SimVfs::new();
        sim.crash_at(k);
        let model = workload(&sim, seed, steps);
        let sim = sim.crash(mode);
        check(&sim, &model)
    });
    let replay = format!("seed {seed} k {k} mode {mode:?} (replay: CRASH_SEED={seed} CRASH_K={k})");
    match outcome {
        Ok(Ok(())) => {}
        Ok(Err(msg)) => panic!("{replay}: {msg}"),
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()));
            panic!("{replay}: panicked: {}", msg.unwrap_or_default());
        }
    }
}

fn op_total(seed: u64, steps: usize) -> u64 {
    let sim = SimVfs::new();
    let model = workload(&sim, seed, steps);
    assert!(model.records.len() > 10, "the workload commits: {}", model.records.len());
    if METHOD.with(Cell::get) == RedoFlushMethod::ODsync {
        let stats = sim.stats();
        assert!(stats.durable_writes > 20, "flushes are direct writes: {stats:?}");
    }
    let sim = sim.crash(CrashMode::DropUnsynced);
    check(&sim, &model).unwrap_or_else(|m| panic!("seed {seed} without crash: {m}"));
    sim.op_count()
}

const STEPS: usize = 1200;

#[test]
fn crash_at_every_operation_recovers_to_the_model() {
    let env = |n: &str| std::env::var(n).ok().and_then(|v| v.parse::<u64>().ok());
    if let (Some(seed), Some(k)) = (env("CRASH_SEED"), env("CRASH_K")) {
        for mode in [CrashMode::DropUnsynced, CrashMode::Tear { seed: k }, CrashMode::KeepAll] {
            run_case(seed, STEPS, k, mode);
        }
        return;
    }
    crash_everywhere(&[1, 2, 3, 4]);
}

/// The same with `innodb_flush_method=O_DSYNC`: every flush is one simulated direct write that
/// rewrites the tail block; a crash in the middle of one lands any subset of its sectors.
#[test]
fn crash_at_every_operation_recovers_to_the_model_with_o_dsync() {
    METHOD.with(|m| m.set(RedoFlushMethod::ODsync));
    let env = |n: &str| std::env::var(n).ok().and_then(|v| v.parse::<u64>().ok());
    if let (Some(seed), Some(k)) = (env("CRASH_SEED"), env("CRASH_K")) {
        for mode in [CrashMode::DropUnsynced, CrashMode::Tear { seed: k }, CrashMode::KeepAll] {
            run_case(seed, STEPS, k, mode);
        }
        return;
    }
    crash_everywhere(&[5, 6, 7, 8]);
}

fn crash_everywhere(seeds: &[u64]) {
    for &seed in seeds {
        let total = op_total(seed, STEPS);
        eprintln!("seed {seed}: {total} crash points");
        for k in 0..total {
            let mode = match k % 3 {
                0 => CrashMode::DropUnsynced,
                1 => CrashMode::Tear { seed: seed * 1000 + k },
                _ => CrashMode::KeepAll,
            };
            run_case(seed, STEPS, k, mode);
        }
    }
}
