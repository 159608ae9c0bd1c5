//! Shared pieces of the commit layer's integration tests: a deterministic seeded workload
//! over the real engine, and the invariant check of DESIGN.md after a restart.

#![allow(dead_code)]

use std::collections::{BTreeMap, HashSet};
use std::ops::Bound;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use binlog::event::{decode_event, EventBody, FormatContext, TableMap, Value as BinValue};
use binlog::files::Next;
use binlog::gtid::{Gtid, GtidSet, Sid};
use commit::{BinlogCache, CommitConfig, Coordinator, OpenOptions, RecoveryOutcome};
use engine::{Column, ColumnType, EngineConfig, TableSchema, Value};

pub type Coord = Coordinator<engine::Engine>;

pub const TABLE: &str = "t";
pub const SESSIONS: u64 = 8;
pub const KEYS_PER_SESSION: u64 = 8;

pub fn sid() -> Sid {
    Sid::parse("3e11fa47-71ca-11e1-9e33-c80aa9429562").expect("valid uuid")
}

/// The crash-test settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mode {
    pub in_redo: bool,
    pub sync_binlog: u32,
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let m = if self.in_redo { "binlog-in-redo" } else { "classic" };
        write!(f, "{m} sync_binlog={}", self.sync_binlog)
    }
}

pub fn options() -> OpenOptions {
    let mut o = OpenOptions::new(sid());
    o.max_binlog_size = 4096;
    o.engine = EngineConfig {
        redo_file_bytes: 64 << 10,
        checkpoint_redo_bytes: None,
        ..EngineConfig::default()
    };
    o
}

/// Deterministic config: no background thread (tests sync the binlog at chosen steps).
pub fn config(mode: Mode) -> Arc<CommitConfig> {
    let c = CommitConfig::default();
    c.set_binlog_in_redo(mode.in_redo);
    c.set_sync_binlog(mode.sync_binlog);
    c.set_binlog_in_redo_sync_interval_ms(0);
    Arc::new(c)
}

pub fn open(vfs: vfs::VfsRef, mode: Mode) -> (Coord, RecoveryOutcome) {
    Coord::open(vfs, Path::new("/data"), options(), config(mode)).expect("open/recover")
}

pub fn schema() -> TableSchema {
    TableSchema::new(
        TABLE,
        vec![
            Column::new("id", ColumnType::Integer { bytes: 8, unsigned: false }).not_null(),
            Column::new("v", ColumnType::Integer { bytes: 8, unsigned: false }),
            Column::new("s", ColumnType::VarChar(16)),
        ],
        vec![0],
    )
}

/// Creates the table in the engine and logs its DDL.
pub fn setup(c: &Coord) {
    c.engine().create_table(schema()).expect("create table");
    c.log_ddl("test", "CREATE TABLE t (id BIGINT PRIMARY KEY, v BIGINT, s VARCHAR(16))")
        .expect("log ddl");
}

/// SplitMix64: a fixed generator, so a seed replays forever.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

struct Session {
    txn: engine::Txn,
    cache: BinlogCache,
    ops: usize,
}

/// What a workload run saw.
#[derive(Debug, Default)]
pub struct Run {
    pub acked: Vec<Gtid>,
    pub commits_failed: usize,
    pub stopped_by_error: bool,
}

/// The seeded workload: 8 sessions on disjoint keys (no lock waits in one thread), inserts,
/// updates, deletes, rollbacks, batches of commits (groups), checkpoints, forced rotations,
/// and (binlog-in-redo) background-writer syncs at chosen steps. Stops at the first error.
pub fn workload(c: &Coord, seed: u64, steps: usize) -> Run {
    let mut rng = Rng(seed);
    let engine = c.engine().clone();
    let table = engine.table_id(TABLE).expect("table exists");
    let schema = engine.schema(table).expect("schema");
    let mut sessions: Vec<Option<Session>> = (0..SESSIONS).map(|_| None).collect();
    let mut run = Run::default();
    for step in 0..steps {
        let s = rng.below(SESSIONS) as usize;
        let sess = sessions[s].get_or_insert_with(|| Session {
            txn: engine.begin(),
            cache: c.new_cache("test"),
            ops: 0,
        });
        let id = (s as u64 + SESSIONS * rng.below(KEYS_PER_SESSION)) as i64;
        let key = engine.key(&[Value::Int(id)]);
        let v = (seed.wrapping_mul(31).wrapping_add(step as u64) % 1_000_000) as i64;
        let row =
            vec![Value::Int(id), Value::Int(v), Value::Bytes(format!("s{step}").into_bytes())];
        let op = match engine.get(&sess.txn, table, &key) {
            Ok(Some(before)) if rng.below(10) < 7 => engine
                .update(&mut sess.txn, table, &key, row.clone())
                .map(|_| sess.cache.update(&schema, &before, &row).is_ok()),
            Ok(Some(before)) => engine
                .delete(&mut sess.txn, table, &key)
                .map(|_| sess.cache.delete(&schema, &before).is_ok()),
            Ok(None) => engine
                .insert(&mut sess.txn, table, row.clone())
                .map(|_| sess.cache.insert(&schema, &row).is_ok()),
            Err(e) => Err(e),
        };
        if !matches!(op, Ok(true)) {
            run.stopped_by_error = true;
            return run;
        }
        sess.ops += 1;
        if rng.below(12) == 0 {
            let sess = sessions[s].take().expect("session open");
            if c.rollback(sess.txn).is_err() {
                run.stopped_by_error = true;
                return run;
            }
        }
        if rng.below(4) == 0 {
            let mut batch = Vec::new();
            for slot in sessions.iter_mut() {
                if slot.as_ref().is_some_and(|x| x.ops >= 1) && rng.below(3) != 0 {
                    let x = slot.take().expect("checked");
                    batch.push((x.txn, x.cache));
                }
            }
            for r in c.commit_batch(batch) {
                match r {
                    Ok(info) => run.acked.extend(info.gtid),
                    Err(_) => run.commits_failed += 1,
                }
            }
            if run.commits_failed > 0 {
                run.stopped_by_error = true;
                return run;
            }
        }
        let side = rng.below(60);
        let r = match side {
            0 => engine.checkpoint().map(|_| ()).map_err(|e| e.to_string()),
            1 => c.rotate().map_err(|e| e.to_string()),
            2..=7 => c.sync_binlog_now().map_err(|e| e.to_string()),
            _ => Ok(()),
        };
        if r.is_err() {
            run.stopped_by_error = true;
            return run;
        }
    }
    // Transactions still open are rolled back (dropped).
    run
}

/// A row change: before and after images.
pub type Change = (Option<Vec<BinValue>>, Option<Vec<BinValue>>);

/// One transaction read back from the binlog.
#[derive(Debug, Clone)]
pub struct BinlogTxn {
    pub gtid: Gtid,
    pub file: String,
    /// (last_committed, sequence_number) of the GTID event.
    pub clock: (i64, i64),
    pub xid: Option<u64>,
    pub changes: Vec<Change>,
}

/// Reads every event of the binlog set, decoding each (CRC-checked), and returns the
/// transactions in order. Panics (with `ctx`) on anything that does not read cleanly.
pub fn read_binlog(c: &Coord, ctx: &str) -> Vec<BinlogTxn> {
    read_binlog_with_previous(c, ctx).1
}

/// [`read_binlog`] plus the first file's PREVIOUS_GTIDS (`gtid_purged`).
pub fn read_binlog_with_previous(c: &Coord, ctx: &str) -> (GtidSet, Vec<BinlogTxn>) {
    let mut first_previous: Option<GtidSet> = None;
    let files = c.binlog_files();
    let mut reader = files.reader_from_start().unwrap_or_else(|e| panic!("{ctx}: reader: {e}"));
    let mut fctx = FormatContext::mysql80();
    let mut maps: BTreeMap<u64, TableMap> = BTreeMap::new();
    let mut out = Vec::new();
    let mut cur: Option<BinlogTxn> = None;
    loop {
        let ev = match reader.next(Some(Duration::ZERO)) {
            Ok(Next::Event(ev)) => ev,
            Ok(Next::TimedOut) | Ok(Next::Ended) => break,
            Err(e) => panic!("{ctx}: binlog does not read cleanly: {e}"),
        };
        let event = decode_event(&ev.bytes, &fctx, ev.pos)
            .unwrap_or_else(|e| panic!("{ctx}: undecodable event at {}:{}: {e}", ev.file, ev.pos));
        match event.body {
            EventBody::FormatDescription(fde) => {
                fctx = FormatContext::from_fde(&fde, ev.pos).expect("fde context");
            }
            EventBody::PreviousGtids(p) => {
                first_previous.get_or_insert_with(|| p.gtids().clone());
            }
            EventBody::Gtid(g) => {
                assert!(
                    cur.is_none(),
                    "{ctx}: GTID inside a transaction at {}:{}",
                    ev.file,
                    ev.pos
                );
                let clock = g.logical_clock.map(|l| (l.last_committed, l.sequence_number));
                cur = Some(BinlogTxn {
                    gtid: g.gtid(),
                    file: ev.file.clone(),
                    clock: clock.unwrap_or((-1, -1)),
                    xid: None,
                    changes: Vec::new(),
                });
            }
            EventBody::TableMap(m) => {
                maps.insert(m.table_id, m);
            }
            EventBody::Rows(r) => {
                let map = maps.get(&r.table_id).expect("rows event after its table map");
                let rows = r.rows(map, ev.pos).expect("rows decode");
                let t = cur.as_mut().expect("rows inside a transaction");
                t.changes.extend(rows.into_iter().map(|rc| (rc.before, rc.after)));
            }
            EventBody::Xid(x) => {
                let mut t = cur.take().expect("XID ends a transaction");
                t.xid = Some(x.xid);
                out.push(t);
            }
            // A DDL: GTID + QUERY.
            EventBody::Query(q) if q.query != b"BEGIN" => {
                out.push(cur.take().expect("DDL after its GTID"));
            }
            _ => {}
        }
    }
    assert!(cur.is_none(), "{ctx}: a partial transaction at the binlog's end");
    (first_previous.unwrap_or_default(), out)
}

fn int(v: &BinValue) -> i64 {
    match v {
        BinValue::Int(i) => *i,
        BinValue::UInt(u) => *u as i64,
        other => panic!("not an integer: {other:?}"),
    }
}

/// DESIGN.md's invariant after a restart: the engine's rows are exactly the replay of the
/// binlog's complete transactions; `gtid_executed` equals the binlog's GTIDs (no purge in
/// these tests); no prepared transaction is left; every acknowledged GTID is present.
pub fn check_invariant(c: &Coord, acked: &[Gtid], ctx: &str) -> usize {
    let txns = read_binlog(c, ctx);
    let mut model: BTreeMap<i64, (i64, Vec<u8>)> = BTreeMap::new();
    let mut seen = GtidSet::new();
    for t in &txns {
        assert!(seen.add(t.gtid), "{ctx}: GTID {} twice in the binlog", t.gtid);
        for (before, after) in &t.changes {
            if let Some(b) = before {
                let id = int(&b[0]);
                assert!(model.remove(&id).is_some(), "{ctx}: {} changes absent row {id}", t.gtid);
            }
            if let Some(a) = after {
                let s = match &a[2] {
                    BinValue::Bytes(b) => b.clone(),
                    other => panic!("{ctx}: s is {other:?}"),
                };
                model.insert(int(&a[0]), (int(&a[1]), s));
            }
        }
    }
    let engine = c.engine();
    let table = engine.table_id(TABLE).expect("table survives");
    let txn = engine.begin();
    let rows =
        engine.scan(&txn, table, Bound::Unbounded, Bound::Unbounded, usize::MAX).expect("scan");
    let actual: BTreeMap<i64, (i64, Vec<u8>)> = rows
        .into_iter()
        .map(|(_, r)| match (&r[0], &r[1], &r[2]) {
            (Value::Int(id), Value::Int(v), Value::Bytes(s)) => (*id, (*v, s.clone())),
            other => panic!("{ctx}: unexpected row {other:?}"),
        })
        .collect();
    assert_eq!(actual, model, "{ctx}: engine rows differ from the binlog's replay");
    assert_eq!(c.gtid_executed(), seen, "{ctx}: gtid_executed differs from the binlog's GTIDs");
    assert!(engine.recovered_prepared().is_empty(), "{ctx}: prepared transactions left");
    let present: HashSet<Gtid> = txns.iter().map(|t| t.gtid).collect();
    for g in acked {
        assert!(present.contains(g), "{ctx}: acknowledged {g} lost");
    }
    txns.len()
}
