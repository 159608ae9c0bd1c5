//! Shared pieces of the commit layer's integration tests: a deterministic seeded workload
//! (rows and DDL) over the real engine, and the invariant check of docs/design-brief.md after a
//! restart.

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::ops::Bound;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use binlog::event::{decode_event, EventBody, FormatContext, TableMap, Value as BinValue};
use binlog::files::Next;
use binlog::gtid::{Gtid, GtidSet, Sid};
use commit::{BinlogCache, CommitConfig, CommitRequest, Coordinator, OpenOptions, RecoveryOutcome};
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

pub const CREATE_T: &str = "CREATE TABLE t (id BIGINT PRIMARY KEY, v BIGINT, s VARCHAR(16))";

/// Creates the table: a DDL transaction committed through the pipeline.
/// Row `id` inserted into [`TABLE`] in a new transaction of `e`, and logged in a new cache
/// for database `test` from `new_cache`: a one-row transaction, ready to commit.
pub fn one_row_txn(
    e: &engine::Engine,
    new_cache: impl FnOnce() -> commit::BinlogCache,
    id: i64,
) -> (engine::Txn, commit::BinlogCache) {
    let t = e.table_id(TABLE).expect("table");
    let schema = e.schema(t).expect("schema");
    let mut txn = e.begin();
    let row = vec![Value::Int(id), Value::Int(id), Value::Bytes(b"p".to_vec())];
    e.insert(&mut txn, t, row.clone()).expect("insert");
    let mut cache = new_cache();
    cache.insert(&schema, &row).expect("log");
    (txn, cache)
}

pub fn setup(c: &Coord) {
    let mut txn = c.begin();
    c.engine().create_table_in(&mut txn, schema()).expect("stage create table");
    c.commit(CommitRequest::ddl(txn, "test", CREATE_T)).expect("commit ddl");
}

/// Tables the workload's DDL creates, changes and drops (never held by an open session, so
/// a DDL on them never waits).
pub const AUX: [&str; 3] = ["x0", "x1", "x2"];

pub fn aux_schema(name: &str) -> TableSchema {
    TableSchema::new(
        name,
        vec![
            Column::new("id", ColumnType::Integer { bytes: 8, unsigned: false }).not_null(),
            Column::new("v", ColumnType::Integer { bytes: 8, unsigned: false }),
        ],
        vec![0],
    )
}

/// Stages `query` (one of the forms [`AuxModel`] replays) in a DDL transaction and commits
/// it through the pipeline.
pub fn run_ddl(c: &Coord, query: &str) -> commit::Result<commit::Committed> {
    let e = c.engine();
    let mut txn = c.begin();
    let words: Vec<&str> = query.split([' ', ',', '(', ')']).filter(|w| !w.is_empty()).collect();
    let id = |name: &str| e.table_id(name).expect("the workload names existing tables");
    let staged = match words[..] {
        ["CREATE", "TABLE", name, ..] => e.create_table_in(&mut txn, aux_schema(name)).map(drop),
        ["DROP", "TABLE", ref names @ ..] => {
            names.iter().try_for_each(|n| e.drop_table_in(&mut txn, id(n)))
        }
        ["TRUNCATE", "TABLE", name] => e.truncate_in(&mut txn, id(name)),
        ["CREATE", "INDEX", index, "ON", name, ..] => {
            let def = engine::IndexDef::new(index, vec![1], false);
            e.create_index_in(&mut txn, id(name), def)
        }
        ["DROP", "INDEX", index, "ON", name] => e.drop_index_in(&mut txn, id(name), index),
        _ => panic!("not a workload DDL: {query}"),
    };
    staged.expect("staging a workload DDL");
    c.commit(CommitRequest::ddl(txn, "test", query))
}

/// One statement on an auxiliary table, chosen by `rng`: a DDL (CREATE, DROP of one or all,
/// TRUNCATE, CREATE/DROP INDEX) or an autocommit insert.
pub fn aux_step(c: &Coord, rng: &mut Rng, step: usize) -> commit::Result<commit::Committed> {
    let e = c.engine();
    let name = AUX[rng.below(AUX.len() as u64) as usize];
    let Some(table) = e.table_id(name) else {
        return run_ddl(c, &format!("CREATE TABLE {name} (id BIGINT PRIMARY KEY, v BIGINT)"));
    };
    let schema = e.schema(table).expect("schema");
    match rng.below(8) {
        0 => run_ddl(c, &format!("DROP TABLE {name}")),
        1 => {
            let all: Vec<&str> = AUX.iter().copied().filter(|n| e.table_id(n).is_some()).collect();
            run_ddl(c, &format!("DROP TABLE {}", all.join(", ")))
        }
        2 => run_ddl(c, &format!("TRUNCATE TABLE {name}")),
        3 if schema.index("iv").is_some() => run_ddl(c, &format!("DROP INDEX iv ON {name}")),
        3 => run_ddl(c, &format!("CREATE INDEX iv ON {name} (v)")),
        _ => {
            let mut txn = c.begin();
            let row = vec![Value::Int((rng.next() >> 24) as i64), Value::Int((step % 7) as i64)];
            e.insert(&mut txn, table, row.clone()).expect("insert into an aux table");
            let mut cache = c.new_cache("test");
            cache.insert(&schema, &row).expect("log row");
            c.commit(CommitRequest::rows(txn, cache))
        }
    }
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
/// updates, deletes, rollbacks, batches of commits (groups), DDL and autocommit inserts on the
/// auxiliary tables between them (while sessions hold open transactions on `t`),
/// checkpoints, forced rotations, and (binlog-in-redo) background-writer syncs at chosen
/// steps. Stops at the first error.
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
                    batch.push(CommitRequest::rows(x.txn, x.cache));
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
            8..=13 => match aux_step(c, &mut rng, step) {
                Ok(info) => {
                    run.acked.extend(info.gtid);
                    Ok(())
                }
                Err(e) => Err(e.to_string()),
            },
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

/// A row change: the table's name, before and after images.
pub type Change = (String, Option<Vec<BinValue>>, Option<Vec<BinValue>>);

/// One transaction read back from the binlog.
#[derive(Debug, Clone)]
pub struct BinlogTxn {
    pub gtid: Gtid,
    pub file: String,
    /// (last_committed, sequence_number) of the GTID event.
    pub clock: (i64, i64),
    /// The XID event's, or a DDL's (`ddl_xid` of its QUERY).
    pub xid: Option<u64>,
    /// The statement of a DDL.
    pub ddl: Option<String>,
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
                    ddl: None,
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
                let name = String::from_utf8_lossy(&map.table).into_owned();
                t.changes.extend(rows.into_iter().map(|rc| (name.clone(), rc.before, rc.after)));
            }
            EventBody::Xid(x) => {
                let mut t = cur.take().expect("XID ends a transaction");
                t.xid = Some(x.xid);
                out.push(t);
            }
            // A DDL: GTID + QUERY.
            EventBody::Query(q) if q.query != b"BEGIN" => {
                let mut t = cur.take().expect("DDL after its GTID");
                t.xid = q.status(ev.pos).expect("status variables").ddl_xid;
                t.ddl = Some(String::from_utf8_lossy(&q.query).into_owned());
                out.push(t);
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

/// An auxiliary table as the binlog's DDL and rows build it.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct AuxModel {
    pub indexes: BTreeSet<String>,
    pub rows: BTreeMap<i64, i64>,
}

fn aux_table<'a>(
    aux: &'a mut BTreeMap<String, AuxModel>,
    name: &str,
    what: &str,
) -> &'a mut AuxModel {
    aux.get_mut(name).unwrap_or_else(|| panic!("{what} on a missing table"))
}

/// Replays one workload DDL statement on the auxiliary tables' model.
fn replay_ddl(aux: &mut BTreeMap<String, AuxModel>, query: &str, ctx: &str) {
    let words: Vec<&str> = query.split([' ', ',', '(', ')']).filter(|w| !w.is_empty()).collect();
    let what = format!("{ctx}: `{query}`");
    match words[..] {
        ["CREATE", "TABLE", TABLE, ..] => {}
        ["CREATE", "TABLE", name, ..] => {
            let fresh = aux.insert(name.to_string(), AuxModel::default()).is_none();
            assert!(fresh, "{ctx}: `{query}` on an existing table");
        }
        ["DROP", "TABLE", ref names @ ..] => {
            for n in names {
                assert!(aux.remove(*n).is_some(), "{ctx}: `{query}` on a missing table");
            }
        }
        ["TRUNCATE", "TABLE", name] => {
            aux_table(aux, name, &what).rows.clear();
        }
        ["CREATE", "INDEX", index, "ON", name, ..] => {
            let t = aux_table(aux, name, &what);
            assert!(t.indexes.insert(index.to_string()), "{ctx}: {query} twice");
        }
        ["DROP", "INDEX", index, "ON", name] => {
            let t = aux_table(aux, name, &what);
            assert!(t.indexes.remove(index), "{ctx}: {query} of a missing index");
        }
        _ => panic!("{ctx}: unexpected DDL `{query}`"),
    }
}

/// The invariant of docs/design-brief.md after a restart: the engine's rows and tables are
/// exactly the replay of the binlog's complete transactions (rows and DDL); `gtid_executed`
/// equals the binlog's GTIDs (no purge in these tests); no prepared transaction is left; every
/// acknowledged GTID is present.
pub fn check_invariant(c: &Coord, acked: &[Gtid], ctx: &str) -> usize {
    let txns = read_binlog(c, ctx);
    let mut model: BTreeMap<i64, (i64, Vec<u8>)> = BTreeMap::new();
    let mut aux: BTreeMap<String, AuxModel> = BTreeMap::new();
    let mut seen = GtidSet::new();
    for t in &txns {
        assert!(seen.add(t.gtid), "{ctx}: GTID {} twice in the binlog", t.gtid);
        if let Some(q) = &t.ddl {
            assert!(t.xid.is_some(), "{ctx}: DDL {} logged without its XID", t.gtid);
            replay_ddl(&mut aux, q, ctx);
        }
        for (table, before, after) in &t.changes {
            if table != TABLE {
                let m = aux
                    .get_mut(table)
                    .unwrap_or_else(|| panic!("{ctx}: {} writes missing table {table}", t.gtid));
                assert!(before.is_none(), "{ctx}: aux tables only get inserts");
                let a = after.as_ref().expect("an insert has an after image");
                assert!(m.rows.insert(int(&a[0]), int(&a[1])).is_none(), "{ctx}: dup row");
                continue;
            }
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
    let mut actual_aux = BTreeMap::new();
    for name in AUX {
        let Some(id) = engine.table_id(name) else { continue };
        let schema = engine.schema(id).expect("schema");
        let rows = engine.scan(&txn, id, Bound::Unbounded, Bound::Unbounded, usize::MAX);
        let rows = rows
            .expect("scan")
            .into_iter()
            .map(|(_, r)| match (&r[0], &r[1]) {
                (Value::Int(id), Value::Int(v)) => (*id, *v),
                other => panic!("{ctx}: unexpected aux row {other:?}"),
            })
            .collect();
        let indexes = schema.indexes.iter().map(|i| i.name.clone()).collect();
        actual_aux.insert(name.to_string(), AuxModel { indexes, rows });
    }
    assert_eq!(actual_aux, aux, "{ctx}: engine tables differ from the binlog's DDL replay");
    assert_eq!(c.gtid_executed(), seen, "{ctx}: gtid_executed differs from the binlog's GTIDs");
    assert!(engine.recovered_prepared().is_empty(), "{ctx}: prepared transactions left");
    let present: HashSet<Gtid> = txns.iter().map(|t| t.gtid).collect();
    for g in acked {
        assert!(present.contains(g), "{ctx}: acknowledged {g} lost");
    }
    txns.len()
}
