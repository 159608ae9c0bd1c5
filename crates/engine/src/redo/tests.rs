//! The redo log through the engine's API: group flush, end-of-log detection, recycling,
//! poisoning.

use std::path::Path;
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use vfs::{CrashMode, Fault, FaultKind, FaultOp, LatencyVfs, OpenMode, SimVfs, VfsRef};

use crate::schema::{Column, ColumnType};
use crate::{Engine, EngineConfig, Lsn, Recovery, TableId, TableSchema, Value};

fn config(file_bytes: u64) -> EngineConfig {
    EngineConfig {
        redo_file_bytes: file_bytes,
        lock_wait_timeout: Duration::from_secs(30),
        checkpoint_redo_bytes: None,
        retain_redo_for_binlog: false,
        redo_flush_method: crate::RedoFlushMethod::Fsync,
        recovery_accept_loss: false,
    }
}

fn open_with(vfs: VfsRef, cfg: EngineConfig) -> (Engine, Recovery) {
    Engine::open(vfs, Path::new("/data"), cfg).expect("open")
}

fn kv(e: &Engine) -> TableId {
    let int = ColumnType::Integer { bytes: 8, unsigned: false };
    e.create_table(TableSchema::new(
        "kv",
        vec![Column::new("k", int), Column::new("v", int)],
        vec![0],
    ))
    .expect("create")
}

fn put(e: &Engine, t: TableId, k: i64, v: i64) -> Lsn {
    let mut tx = e.begin();
    match e.get_for_update(&mut tx, t, &e.key(&[Value::Int(k)])).expect("lock") {
        Some(_) => assert!(e
            .update(&mut tx, t, &e.key(&[Value::Int(k)]), vec![Value::Int(k), Value::Int(v)])
            .expect("update")),
        None => {
            e.insert(&mut tx, t, vec![Value::Int(k), Value::Int(v)]).expect("insert");
        }
    }
    e.commit(tx).expect("commit")
}

fn value_of(e: &Engine, t: TableId, k: i64) -> Option<i64> {
    let r = e.get(&e.begin(), t, &e.key(&[Value::Int(k)])).expect("get")?;
    match r[1] {
        Value::Int(v) => Some(v),
        _ => None,
    }
}

#[test]
fn concurrent_flushes_share_fsyncs() {
    let sim = SimVfs::new();
    let slow = LatencyVfs::new(sim.shared(), Duration::from_millis(2));
    let (e, _) = open_with(slow.shared(), config(1 << 20));
    let t = kv(&e);
    let before = e.stats().redo_fsyncs;
    let threads = 16;
    let per_thread = 10;
    let handles: Vec<_> = (0..threads)
        .map(|n| {
            let e = e.clone();
            thread::spawn(move || {
                for i in 0..per_thread {
                    let mut tx = e.begin();
                    e.insert(&mut tx, t, vec![Value::Int(n * 1000 + i), Value::Int(0)])
                        .expect("insert");
                    let lsn = e.prepare(&mut tx, (n * 1000 + i) as u64 + 1).expect("prepare");
                    e.flush_up_to(lsn).expect("flush");
                    assert!(e.flushed_lsn() >= lsn);
                    e.commit(tx).expect("commit");
                }
            })
        })
        .collect();
    for h in handles {
        h.join().expect("thread");
    }
    let fsyncs = e.stats().redo_fsyncs - before;
    let commits = (threads * per_thread) as u64;
    assert!(fsyncs < commits, "{fsyncs} fsyncs for {commits} flushes: no coalescing");
    // A flush of an LSN already durable does nothing.
    let s = e.stats();
    e.flush_up_to(Lsn(1)).expect("flush");
    assert_eq!(e.stats().redo_fsyncs, s.redo_fsyncs);
}

#[test]
fn replay_stops_at_a_corrupt_record() {
    let sim = SimVfs::new();
    let (e, _) = open_with(sim.shared(), config(1 << 20));
    let t = kv(&e);
    put(&e, t, 1, 1);
    let second_start = e.next_lsn();
    put(&e, t, 2, 2);
    put(&e, t, 3, 3);
    e.flush_all().expect("flush");
    drop(e);
    // Flip one payload byte of the second record: replay must end before it.
    let path = Path::new("/data/#redo/redo.0");
    let f = sim.shared().open(path, OpenMode::ReadWrite).expect("open");
    let off = super::HEADER_BYTES + second_start.0 + super::RECORD_HEADER_BYTES + 3;
    let mut b = [0u8; 1];
    f.read_exact_at(&mut b, off).expect("read");
    f.write_at(&[b[0] ^ 0x40], off).expect("write");
    f.sync_data().expect("sync");
    drop(f);
    let (e, rec) = open_with(sim.shared(), config(1 << 20));
    assert_eq!(rec.end_lsn, second_start);
    assert_eq!((value_of(&e, t, 1), value_of(&e, t, 2), value_of(&e, t, 3)), (Some(1), None, None));
    // New commits after the restart survive the next restart; the stale third record never
    // comes back.
    put(&e, t, 4, 4);
    e.flush_all().expect("flush");
    drop(e);
    let (e, _) = open_with(sim.crash(CrashMode::DropUnsynced).shared(), config(1 << 20));
    assert_eq!((value_of(&e, t, 3), value_of(&e, t, 4)), (None, Some(4)));
}

#[test]
fn a_torn_tail_ends_the_log() {
    for seed in 0..20 {
        let sim = SimVfs::new();
        let (e, _) = open_with(sim.shared(), config(1 << 20));
        let t = kv(&e);
        for k in 0..5 {
            put(&e, t, k, k);
        }
        e.flush_all().expect("flush");
        let tail: Vec<Lsn> = (5..40).map(|k| put(&e, t, k, k)).collect();
        e.write_up_to(e.next_lsn()).expect("write");
        drop(e);
        let (e, rec) = open_with(sim.crash(CrashMode::Tear { seed }).shared(), config(1 << 20));
        let survived = (0..40).take_while(|&k| value_of(&e, t, k).is_some()).count();
        assert!(survived >= 5, "seed {seed}: durable commits lost");
        for k in survived as i64..40 {
            assert_eq!(value_of(&e, t, k), None, "seed {seed}: a commit after a hole");
        }
        if survived > 5 {
            // The log ends after the last surviving record, or after the batch's Mark.
            let last = tail[survived - 6];
            assert!(
                rec.end_lsn == last || rec.end_lsn == Lsn(last.0 + super::MARK_BYTES),
                "seed {seed}: {:?} after {last:?}",
                rec.end_lsn
            );
        }
    }
}

#[test]
fn files_are_recycled_only_below_checkpoint_and_retain() {
    let sim = SimVfs::new();
    let mut cfg = config(4096);
    cfg.retain_redo_for_binlog = true;
    let (e, _) = open_with(sim.shared(), cfg.clone());
    let t = kv(&e);
    let mut payload_lsns = Vec::new();
    for k in 0..200 {
        put(&e, t, k % 10, k);
        let end = e.append_binlog_payload(format!("event {k}").as_bytes()).expect("payload");
        payload_lsns.push(end);
    }
    e.flush_all().expect("flush");
    let live_before = e.stats().redo_files_live;
    assert!(live_before > 4);
    e.checkpoint().expect("checkpoint");
    assert_eq!(e.stats().redo_files_live, live_before, "retain 0 keeps everything");
    let all = e.read_binlog_payloads_from(Lsn(0)).expect("read");
    assert_eq!(all.len(), 200);
    // The binlog has events up to 150: redo before that may go.
    e.set_retain_lsn(payload_lsns[150]);
    let s = e.stats();
    assert!(s.redo_files_live < live_before && s.redo_files_spare > 0, "{s:?}");
    let rest = e.read_binlog_payloads_from(payload_lsns[150]).expect("read");
    assert_eq!(rest.first().map(|p| p.bytes.clone()), Some(b"event 151".to_vec()));
    assert_eq!(rest.len(), 49);
    let oldest = e.oldest_lsn();
    assert!(matches!(e.read_binlog_payloads_from(Lsn(0)), Err(crate::Error::RedoPurged { .. })));
    // Spares are reused: the number of files stays bounded as the log goes on.
    e.set_retain_lsn(Lsn::MAX);
    let files = sim.shared().list_dir(Path::new("/data/#redo")).expect("list").len();
    for k in 0..400 {
        put(&e, t, k % 10, k);
        if k % 50 == 0 {
            e.flush_all().expect("flush");
            e.checkpoint().expect("checkpoint");
        }
    }
    e.flush_all().expect("flush");
    let files_after = sim.shared().list_dir(Path::new("/data/#redo")).expect("list").len();
    assert!(files_after <= files + 2, "{files} -> {files_after} files");
    drop(e);
    let (e, rec) = open_with(sim.crash(CrashMode::DropUnsynced).shared(), cfg);
    assert!(rec.checkpoint_lsn > oldest);
    assert_eq!(value_of(&e, t, 9), Some(399));
}

#[test]
fn a_failed_sync_poisons_the_log() {
    let sim = SimVfs::new();
    let (e, _) = open_with(sim.shared(), config(1 << 20));
    let t = kv(&e);
    put(&e, t, 1, 1);
    e.flush_all().expect("flush");
    sim.inject(Fault::new(FaultOp::Sync, FaultKind::Eio).on_path("redo"));
    let lsn = put(&e, t, 2, 2);
    let err = e.flush_up_to(lsn).expect_err("sync fails");
    assert!(err.is_fatal(), "{err}");
    // Never again: no retry of the sync can report success.
    assert!(matches!(e.flush_up_to(lsn), Err(crate::Error::Poisoned)));
    let mut tx = e.begin();
    e.insert(&mut tx, t, vec![Value::Int(3), Value::Int(3)]).expect("in memory");
    assert!(matches!(e.prepare(&mut tx, 9), Err(crate::Error::Poisoned)));
    drop(tx);
    drop(e);
    let (e, _) = open_with(sim.crash(CrashMode::DropUnsynced).shared(), config(1 << 20));
    assert_eq!((value_of(&e, t, 1), value_of(&e, t, 2)), (Some(1), None));
}

#[test]
fn a_full_disk_is_a_clean_error() {
    let sim = SimVfs::new();
    let (e, _) = open_with(sim.shared(), config(8192));
    let t = kv(&e);
    e.flush_all().expect("flush");
    // Room for no new redo file: the flush that needs one fails cleanly, and succeeds once
    // space is back.
    sim.set_capacity(Some(sim.used_bytes() + 100));
    let mut last = Lsn(0);
    let mut failed = None;
    for k in 0..400 {
        last = put(&e, t, k, k);
        if let Err(err) = e.flush_up_to(last) {
            failed = Some(err);
            break;
        }
    }
    let err = failed.expect("the disk fills up");
    assert_eq!(err.mysql_code(), 1021, "{err}");
    assert!(!err.is_fatal());
    sim.set_capacity(None);
    e.flush_up_to(last).expect("flush after space is back");
    let n = e.row_count(t).expect("count");
    drop(e);
    let (e, _) = open_with(sim.crash(CrashMode::DropUnsynced).shared(), config(8192));
    assert_eq!(e.row_count(t).expect("count"), n);
}

#[test]
fn payloads_come_back_after_a_crash() {
    let sim = SimVfs::new();
    let (e, _) = open_with(sim.shared(), config(1 << 16));
    let ends: Vec<Lsn> =
        (0..10).map(|i| e.append_binlog_payload(&[i; 100]).expect("append")).collect();
    e.flush_up_to(ends[6]).expect("flush");
    drop(e);
    let sim = sim.crash(CrashMode::DropUnsynced);
    let (e, rec) = open_with(sim.shared(), config(1 << 16));
    let got: Vec<u8> = rec.binlog_payloads.iter().map(|p| p.bytes[0]).collect();
    // Records past the flush point may survive (written together), never a gap.
    assert!(got.len() >= 7 && got.iter().enumerate().all(|(i, &b)| b == i as u8), "{got:?}");
    assert_eq!(rec.binlog_payloads[3].end_lsn, ends[3]);
    let again = e.read_binlog_payloads_from(rec.binlog_payloads[5].lsn).expect("read");
    assert_eq!(again, rec.binlog_payloads[5..].to_vec());
    let e = Arc::new(e);
    assert_eq!(e.stats().checkpoints, 0);
}

fn o_dsync(file_bytes: u64) -> EngineConfig {
    EngineConfig { redo_flush_method: crate::RedoFlushMethod::ODsync, ..config(file_bytes) }
}

/// Payload `i`: `len` bytes of `i as u8`, so a wrong or shifted byte shows.
fn payload(i: usize, len: usize) -> Vec<u8> {
    vec![i as u8; len]
}

fn payload_len(i: usize) -> usize {
    // 1 to 1 300 bytes: flushes inside one block, across one, and across a file end.
    1 + (i * 397) % 1300
}

#[test]
fn o_dsync_many_small_flushes_rewrite_the_tail_block() {
    let sim = SimVfs::new();
    let cfg = o_dsync(3 * 4096);
    let (e, _) = open_with(sim.shared(), cfg.clone());
    let before = sim.stats();
    let mut flushes = 0;
    let n = 120;
    for i in 0..n {
        let end = e.append_binlog_payload(&payload(i, payload_len(i))).expect("append");
        if i % 9 == 4 {
            // A buffered write first (innodb_flush_log_at_trx_commit=2): the next durable
            // write must read its tail block back.
            e.write_up_to(end).expect("write");
        } else {
            flushes += 1;
        }
        e.flush_up_to(end).expect("flush");
        // Acknowledged means durable now, with no fdatasync of the log's data.
        let path = format!("/data/#redo/redo.{}", end.0.saturating_sub(1) / (3 * 4096));
        let durable = sim.durable_contents(&path).expect("file is durable");
        let current = sim.contents(&path).expect("file");
        let upto = (super::HEADER_BYTES + (end.0 - 1) % (3 * 4096) + 1) as usize;
        assert_eq!(durable[..upto], current[..upto], "flush {i}: durable bytes differ");
    }
    let after = sim.stats();
    let direct = after.durable_writes - before.durable_writes;
    assert!(
        direct >= flushes,
        "one direct write per flush with bytes to write (more across a file end): {direct}"
    );
    // The only fdatasyncs: new files made before use, and the flushes after a buffered write.
    let new_files = sim.shared().list_dir(Path::new("/data/#redo")).expect("list").len() as u64;
    assert!(after.syncs - before.syncs <= new_files + (n as u64).div_ceil(9), "{after:?}");
    assert_eq!(e.stats().redo_durable_writes, direct);
    drop(e);
    let (_, rec) = open_with(sim.crash(CrashMode::DropUnsynced).shared(), cfg);
    assert_eq!(rec.binlog_payloads.len(), n);
    for (i, p) in rec.binlog_payloads.iter().enumerate() {
        assert_eq!(p.bytes, payload(i, payload_len(i)), "payload {i}");
    }
}

#[test]
fn o_dsync_a_crash_during_a_multi_block_write_keeps_every_acknowledged_record() {
    let cfg = o_dsync(4 * 4096);
    for seed in 0..48 {
        let sim = SimVfs::new();
        let (e, _) = open_with(sim.shared(), cfg.clone());
        // Acknowledged: ends inside a block, so the cut write rewrites that block.
        let acked: Vec<Lsn> =
            (0..5).map(|i| e.append_binlog_payload(&payload(i, 700)).expect("append")).collect();
        e.flush_up_to(acked[4]).expect("flush");
        // Not acknowledged: 4 to 15 records of 900 bytes, several blocks, maybe across the
        // file end; the power goes at the first or second operation of their flush (the
        // second exists when the flush crosses into a new file).
        let total = 5 + 4 + (seed as usize % 12);
        for i in 5..total {
            e.append_binlog_payload(&payload(i, 900)).expect("append");
        }
        let appended = e.next_lsn();
        sim.crash_at(sim.op_count() + seed % 2);
        let must_keep = match e.flush_up_to(appended) {
            Ok(()) => total,
            Err(err) => {
                assert!(err.is_fatal(), "{err}");
                5
            }
        };
        drop(e);
        let mode = match seed % 3 {
            0 => CrashMode::Tear { seed },
            1 => CrashMode::DropUnsynced,
            _ => CrashMode::KeepAll,
        };
        let (e, rec) = open_with(sim.crash(mode).shared(), cfg.clone());
        let got = &rec.binlog_payloads;
        assert!(got.len() >= must_keep, "seed {seed} {mode:?}: acknowledged records lost");
        for (i, p) in got.iter().enumerate() {
            let want = payload(i, if i < 5 { 700 } else { 900 });
            assert_eq!(p.bytes, want, "seed {seed}: record {i} wrong");
        }
        // At most the batch's Mark after what was appended.
        assert!(rec.end_lsn.0 <= appended.0 + super::MARK_BYTES, "seed {seed}");
        // Work after recovery is durable and lands behind the recovered end.
        let end = e.append_binlog_payload(b"after").expect("append");
        e.flush_up_to(end).expect("flush");
        let kept = got.len();
        drop(e);
        let (_, rec) = open_with(sim.crash(CrashMode::Tear { seed }).shared(), cfg.clone());
        assert_eq!(rec.binlog_payloads.len(), kept + 1, "seed {seed}");
        assert_eq!(rec.binlog_payloads[kept].bytes, b"after");
    }
}

#[test]
fn o_dsync_a_failed_write_poisons_and_a_full_disk_is_clean() {
    let sim = SimVfs::new();
    let cfg = o_dsync(4096);
    let (e, _) = open_with(sim.shared(), cfg.clone());
    let first = e.append_binlog_payload(b"one").expect("append");
    e.flush_up_to(first).expect("flush");
    // ENOSPC from the device (thin provisioning): clean, nothing acknowledged, retry works.
    sim.inject(Fault::new(FaultOp::Write, FaultKind::Enospc).on_path("redo"));
    let second = e.append_binlog_payload(b"two").expect("append");
    let err = e.flush_up_to(second).expect_err("full");
    assert_eq!(err.mysql_code(), 1021, "{err}");
    assert!(!err.is_fatal());
    e.flush_up_to(second).expect("flush after space is back");
    // EIO: poisoned for good.
    sim.inject(Fault::new(FaultOp::Sync, FaultKind::Eio).on_path("redo"));
    let third = e.append_binlog_payload(b"three").expect("append");
    assert!(e.flush_up_to(third).expect_err("eio").is_fatal());
    assert!(matches!(e.flush_up_to(third), Err(crate::Error::Poisoned)));
    assert!(matches!(e.append_binlog_payload(b"four"), Err(crate::Error::Poisoned)));
    drop(e);
    let (_, rec) = open_with(sim.crash(CrashMode::DropUnsynced).shared(), cfg);
    let got: Vec<&[u8]> = rec.binlog_payloads.iter().map(|p| &p.bytes[..]).collect();
    assert_eq!(got[..2], [&b"one"[..], &b"two"[..]]);
}

#[test]
fn o_dsync_falls_back_to_fdatasync_without_direct_io() {
    let sim = SimVfs::new();
    sim.set_direct_supported(false);
    let cfg = o_dsync(4096);
    let (e, _) = open_with(sim.shared(), cfg.clone());
    let syncs = sim.stats().syncs;
    let ends: Vec<Lsn> = (0..20)
        .map(|i| {
            let end = e.append_binlog_payload(&payload(i, 300)).expect("append");
            e.flush_up_to(end).expect("flush");
            end
        })
        .collect();
    assert_eq!(sim.stats().durable_writes, 0);
    assert!(sim.stats().syncs >= syncs + 20, "each flush is write + fdatasync");
    drop(e);
    let (_, rec) = open_with(sim.crash(CrashMode::DropUnsynced).shared(), cfg);
    assert_eq!(rec.binlog_payloads.len(), 20);
    assert_eq!(rec.binlog_payloads[19].end_lsn, ends[19]);
}

#[test]
fn flush_method_names_round_trip() {
    use crate::RedoFlushMethod;
    for name in RedoFlushMethod::NAMES {
        let m = RedoFlushMethod::from_name(name).expect("known");
        assert_eq!(m.name(), name);
    }
    assert_eq!(RedoFlushMethod::from_name("o_dsync"), Some(RedoFlushMethod::ODsync));
    assert_eq!(RedoFlushMethod::from_name("FSYNC"), Some(RedoFlushMethod::Fsync));
    assert_eq!(RedoFlushMethod::from_name("O_DIRECT"), None);
}

/// Flips one byte of the file's data at `lsn + delta` (the file is the first one: `redo.0`).
fn flip(sim: &SimVfs, lsn: Lsn, delta: u64) {
    let f = sim.shared().open(Path::new("/data/#redo/redo.0"), OpenMode::ReadWrite).expect("open");
    let off = super::HEADER_BYTES + lsn.0 + delta;
    let mut b = [0u8; 1];
    f.read_exact_at(&mut b, off).expect("read");
    f.write_at(&[b[0] ^ 0x40], off).expect("write");
    f.sync_data().expect("sync");
}

#[test]
fn a_damaged_record_followed_by_durable_ones_is_refused_then_accepted_by_name() {
    let sim = SimVfs::new();
    let (e, _) = open_with(sim.shared(), config(1 << 20));
    let t = kv(&e);
    let mut starts = Vec::new();
    for k in 0..20 {
        starts.push(e.next_lsn());
        put(&e, t, k, k);
        e.flush_all().expect("flush");
    }
    drop(e); // as kill -9: no shutdown checkpoint, everything after the first in the redo
    flip(&sim, starts[10], super::RECORD_HEADER_BYTES + 3);
    let err = Engine::open(sim.shared(), Path::new("/data"), config(1 << 20)).expect_err("refused");
    let msg = err.to_string();
    let want = format!("/data/#redo/redo.0 offset {}", super::HEADER_BYTES + starts[10].0);
    assert!(msg.contains(&want), "{msg}");
    assert!(matches!(err, crate::Error::RedoDamaged { .. }), "{err:?}");
    // Refused again: nothing was changed by the refusal.
    assert!(Engine::open(sim.shared(), Path::new("/data"), config(1 << 20)).is_err());
    // The explicit recovery mode takes the named loss: rows 0..10 stay, 10.. are gone.
    let accept = EngineConfig { recovery_accept_loss: true, ..config(1 << 20) };
    let (e, rec) = open_with(sim.shared(), accept);
    assert_eq!(rec.lost.len(), 1, "{:?}", rec.lost);
    assert!(rec.lost[0].contains(&want), "{:?}", rec.lost);
    assert_eq!(
        (value_of(&e, t, 9), value_of(&e, t, 10), value_of(&e, t, 19)),
        (Some(9), None, None)
    );
    put(&e, t, 30, 30);
    e.flush_all().expect("flush");
    drop(e);
    // Accepted once: later starts are strict again and find a consistent log.
    let (e, rec) = open_with(sim.shared(), config(1 << 20));
    assert!(rec.lost.is_empty());
    assert_eq!((value_of(&e, t, 10), value_of(&e, t, 30)), (None, Some(30)));
}

#[test]
fn damage_in_the_last_batch_is_a_torn_tail_not_a_refusal() {
    // The last write batch may be cut anywhere by a crash: no Mark after it says it was durable.
    let sim = SimVfs::new();
    let (e, _) = open_with(sim.shared(), config(1 << 20));
    let t = kv(&e);
    put(&e, t, 1, 1);
    e.flush_all().expect("flush");
    let second = e.next_lsn();
    put(&e, t, 2, 2);
    put(&e, t, 3, 3);
    e.flush_all().expect("flush");
    drop(e);
    flip(&sim, second, super::RECORD_HEADER_BYTES + 3);
    let (e, rec) = open_with(sim.shared(), config(1 << 20));
    assert!(rec.lost.is_empty());
    assert_eq!((value_of(&e, t, 1), value_of(&e, t, 2), value_of(&e, t, 3)), (Some(1), None, None));
}

#[test]
fn a_redo_removed_beside_its_checkpoint_is_refused() {
    let sim = SimVfs::new();
    let (e, _) = open_with(sim.shared(), config(1 << 20));
    let t = kv(&e);
    put(&e, t, 1, 1);
    e.flush_all().expect("flush");
    drop(e);
    let vfs = sim.shared();
    let dir = Path::new("/data/#redo");
    for name in vfs.list_dir(dir).expect("list") {
        vfs.remove_file(&dir.join(name)).expect("remove");
    }
    let err = Engine::open(sim.shared(), Path::new("/data"), config(1 << 20)).expect_err("refused");
    assert!(matches!(err, crate::Error::RedoMissing { .. }), "{err:?}");
    assert!(err.to_string().contains("/data/#redo"), "{err}");
    let accept = EngineConfig { recovery_accept_loss: true, ..config(1 << 20) };
    let (_, rec) = open_with(sim.shared(), accept);
    assert_eq!(rec.lost.len(), 1);
}

#[test]
fn a_record_larger_than_a_file_spans_files_and_survives_a_crash() {
    let cfg = config(64 << 10);
    for mode in [CrashMode::DropUnsynced, CrashMode::KeepAll, CrashMode::Tear { seed: 7 }] {
        let sim = SimVfs::new();
        let (e, _) = open_with(sim.shared(), cfg.clone());
        let small = e.append_binlog_payload(b"before").expect("append");
        e.flush_up_to(small).expect("flush");
        let big: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        let end = e.append_binlog_payload(&big).expect("a record of 4.6 files");
        e.flush_up_to(end).expect("flush");
        // Not acknowledged: another big one, written but never synced.
        e.append_binlog_payload(&big[..200_000]).expect("append");
        e.write_up_to(e.next_lsn()).expect("write");
        drop(e);
        let (e, rec) = open_with(sim.crash(mode).shared(), cfg.clone());
        let got: Vec<&[u8]> = rec.binlog_payloads.iter().map(|p| &p.bytes[..]).collect();
        assert!(got.len() >= 2, "{mode:?}: acknowledged records lost");
        assert_eq!(got[0], b"before");
        assert_eq!(got[1], &big[..], "{mode:?}");
        if got.len() == 3 {
            assert_eq!(got[2], &big[..200_000], "{mode:?}: a cut record came back");
        }
        // After recovery new records land after the recovered end, never joined to a
        // Fragment chain cut by the crash.
        let after = e.append_binlog_payload(b"after").expect("append");
        e.flush_up_to(after).expect("flush");
        drop(e);
        let (_, rec) = open_with(sim.crash(CrashMode::DropUnsynced).shared(), cfg.clone());
        assert_eq!(rec.binlog_payloads.last().map(|p| &p.bytes[..]), Some(&b"after"[..]));
    }
}

#[test]
fn restarts_recycle_the_redo_instead_of_growing_it() {
    let sim = SimVfs::new();
    let cfg = config(64 << 10);
    let (e, _) = open_with(sim.shared(), cfg.clone());
    let t = kv(&e);
    e.shutdown().expect("shutdown");
    drop(e);
    for round in 0..13 {
        let (e, _) = open_with(sim.shared(), cfg.clone());
        for k in 0..50 {
            put(&e, t, round * 100 + k, k);
        }
        e.shutdown().expect("shutdown");
        drop(e);
    }
    let files = sim.shared().list_dir(Path::new("/data/#redo")).expect("list").len();
    assert!(files <= 3, "{files} redo files after 13 restarts");
    let (e, _) = open_with(sim.shared(), cfg);
    assert_eq!(value_of(&e, t, 1249), Some(49));
}

#[test]
fn the_tail_of_a_record_whose_head_was_recycled_is_skipped_not_read_as_a_record() {
    let cfg = config(64 << 10);
    let sim = SimVfs::new();
    let (e, _) = open_with(sim.shared(), cfg.clone());
    let big: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
    e.append_binlog_payload(&big).expect("append");
    let end = e.append_binlog_payload(b"after").expect("append");
    e.flush_up_to(end).expect("flush");
    e.checkpoint().expect("checkpoint recycles the files wholly below it");
    let oldest = e.oldest_lsn();
    assert!(oldest.0 > 0 && oldest.0 % (64 << 10) == 0, "{oldest:?}");
    let got = e.read_binlog_payloads_from(oldest).expect("read");
    assert_eq!(got.iter().map(|p| &p.bytes[..]).collect::<Vec<_>>(), [&b"after"[..]]);
}
