//! Crash at every step, on the simulated disk.
//!
//! A deterministic workload (appends, syncs, rotations at `max_binlog_size`, a forced
//! rotation, a purge, a clean close) runs once to count its durability-relevant operations.
//! Then, for every operation `k` and for both [`CrashMode::DropUnsynced`] and
//! [`CrashMode::Tear`], the workload runs again with the power cut at `k`, the disk "restarts",
//! and the set is reopened and checked:
//! - it opens without error; the index names exactly the binlog files in the directory;
//! - every file reads cleanly to its end (no damage, no partial transaction) and only the
//!   last may be in use;
//! - PREVIOUS_GTIDS chain: each file's set is the previous file's set plus its GTIDs, so no
//!   GTID appears twice;
//! - executed GTIDs = last PREVIOUS_GTIDS + last file's GTIDs, contain every GTID whose sync
//!   returned, only GTIDs that were appended, and no holes (appends were in order);
//! - after `finish_recovery`, one more transaction can be appended, synced, and survives a
//!   clean close and reopen.
//!
//! Recovery itself (the cut of a crashed tail and `finish_recovery`) is crashed at every step
//! too, from a crashed state with a torn, preallocated tail.
//!
//! A failure names the variant, `k` and the mode; [`run_case`] replays exactly that case.

use std::path::PathBuf;

use vfs::{CrashMode, SimVfs, VfsRef};

use super::frame::testing;
use super::recover;
use super::tests::{gtid, small_opts};
use super::*;
use crate::gtid::GtidSet;

/// Transactions in the workload: enough for two rotations at 4 KiB besides the forced one.
const TRXS: u64 = 56;
/// The forced rotation (`FLUSH BINARY LOGS`) after this transaction.
const FORCED_ROTATION_AT: u64 = 9;
/// `PURGE BINARY LOGS TO` the file before the active one, after this transaction.
const PURGE_AT: u64 = 47;

#[derive(Debug, Clone, Copy)]
struct Variant {
    prealloc: bool,
    pool: bool,
    checksum: bool,
}

const VARIANTS: [Variant; 3] = [
    Variant { prealloc: false, pool: false, checksum: true },
    Variant { prealloc: true, pool: false, checksum: true },
    Variant { prealloc: false, pool: true, checksum: false },
];

fn dir() -> PathBuf {
    PathBuf::from("/data")
}

fn pool_dir() -> PathBuf {
    dir().join(POOL_DIR_NAME)
}

fn options(v: Variant) -> Options {
    Options {
        binlog_preallocate: v.prealloc,
        checksum: v.checksum,
        pool_dir: v.pool.then(pool_dir),
        ..small_opts(&dir())
    }
}

/// A disk with the pool made (two files, as `binlogd alloc` would).
fn fresh_disk(v: Variant) -> SimVfs {
    let sim = SimVfs::new();
    if v.pool {
        let vfs = sim.shared();
        vfs.create_dir_all(&pool_dir()).expect("pool dir");
        for n in 1..=2 {
            let path = pool_dir().join(file_name("empty", n));
            let f = vfs.open(&path, vfs::OpenMode::CreateNew).expect("pool file");
            f.allocate(8192).expect("allocate");
            f.sync_data().expect("sync");
        }
        vfs.sync_dir(&pool_dir()).expect("sync pool");
    }
    sim
}

/// What the workload did before it stopped.
#[derive(Debug, Default)]
struct Ledger {
    /// GTIDs whose append returned Ok.
    appended: GtidSet,
    /// GTIDs made durable by a sync, rotation or close that returned Ok.
    durable: GtidSet,
}

/// The workload; stops at the first error (the power cut).
fn workload(vfs: VfsRef, opts: &Options, ledger: &mut Ledger) -> Result<()> {
    let mut w = BinlogWriter::open(vfs, opts.clone())?;
    for n in 1..=TRXS {
        let bytes = testing::transaction(opts.checksum, Some(gtid(n)), n, w.write_pos());
        w.append(&bytes, &[gtid(n)])?;
        ledger.appended.add(gtid(n));
        if n % 2 == 0 {
            w.sync()?;
            ledger.durable = ledger.appended.clone();
        }
        if w.rotate_if_due()? {
            ledger.durable = ledger.appended.clone();
        }
        if n == FORCED_ROTATION_AT {
            w.rotate()?;
            ledger.durable = ledger.appended.clone();
        }
        if n == PURGE_AT {
            let before_active = file_name(&opts.basename, w.active_seq() - 1);
            w.purge_to(&before_active)?;
        }
    }
    w.close()?;
    ledger.durable = ledger.appended.clone();
    Ok(())
}

/// The highest gno of a set of `SID` GTIDs that has no holes, or an error naming the hole.
fn prefix_len(set: &GtidSet) -> std::result::Result<u64, String> {
    let n = set.count();
    for g in 1..=n {
        if !set.contains(&gtid(g)) {
            return Err(format!("executed GTIDs {set} have a hole at {g}"));
        }
    }
    Ok(n)
}

/// Reopens after a crash and checks every invariant of the module doc; returns the writer.
fn check_reopen(
    vfs: &VfsRef,
    opts: &Options,
    ledger: &Ledger,
) -> std::result::Result<BinlogWriter, String> {
    let w = BinlogWriter::open(vfs.clone(), opts.clone()).map_err(|e| format!("reopen: {e}"))?;
    let names = w.files().file_names();
    let mut on_disk: Vec<String> = vfs
        .list_dir(&opts.dir)
        .map_err(|e| e.to_string())?
        .into_iter()
        .filter_map(|n| n.to_str().map(str::to_string))
        .filter(|n| parse_seq(&opts.basename, n).is_some() || n.ends_with("_crash_safe"))
        .collect();
    on_disk.sort();
    if on_disk != names {
        return Err(format!("index {names:?} but directory has {on_disk:?}"));
    }
    let mut chain: Option<GtidSet> = None;
    let mut first_previous = None;
    for (i, name) in names.iter().enumerate() {
        let path = opts.dir.join(name);
        let file = vfs.open(&path, vfs::OpenMode::Read).map_err(|e| e.to_string())?;
        let scan = recover::scan(&file, &path).map_err(|e| format!("{name}: {e}"))?;
        let last = i + 1 == names.len();
        // The active file may be preallocated: its events end at `write_pos`, zeros follow.
        let end = if last { w.write_pos() } else { scan.len };
        let tail_ok = end == scan.len
            || (scan.damage.is_some()
                && recover::tail_is_zeros(&file, end, scan.len).map_err(|e| e.to_string())?);
        if scan.events_end != end || !tail_ok || scan.partial_start.is_some() {
            return Err(format!(
                "{name} does not read cleanly: len {} end {end} events end {} damage {:?} \
                 partial {:?}",
                scan.len, scan.events_end, scan.damage, scan.partial_start
            ));
        }
        if !last && scan.header.in_use {
            return Err(format!("{name} is not the last file but is in use"));
        }
        if last && scan.trx_end != end {
            return Err(format!(
                "{name} ends after its last transaction ({} < {end})",
                scan.trx_end
            ));
        }
        let previous = scan.header.previous_gtids.clone();
        if let Some(expected) = &chain {
            if &previous != expected {
                return Err(format!(
                    "{name}: PREVIOUS_GTIDS {previous} but older files hold {expected}"
                ));
            }
        }
        first_previous.get_or_insert_with(|| previous.clone());
        let mut next = previous;
        for t in &scan.transactions {
            let g = t.gtid.ok_or_else(|| format!("{name}: transaction without GTID"))?;
            if !next.add(g) {
                return Err(format!("{name}: GTID {g} appears twice"));
            }
        }
        chain = Some(next);
    }
    let executed = chain.ok_or("no files")?;
    if &executed != w.executed_gtids() {
        return Err(format!("files hold {executed} but the writer says {}", w.executed_gtids()));
    }
    if !ledger.durable.is_subset(&executed) {
        return Err(format!("synced GTIDs lost: synced {} executed {executed}", ledger.durable));
    }
    if !executed.is_subset(&ledger.appended) {
        return Err(format!("GTIDs never appended: {executed} vs {}", ledger.appended));
    }
    prefix_len(&executed)?;
    if first_previous.as_ref() != Some(w.purged_gtids()) {
        return Err(format!(
            "purged GTIDs {} but the first file says {first_previous:?}",
            w.purged_gtids()
        ));
    }
    Ok(w)
}

/// After a successful check: finish recovery, append one more, close, reopen.
fn continue_after(
    mut w: BinlogWriter,
    vfs: &VfsRef,
    opts: &Options,
) -> std::result::Result<(), String> {
    w.finish_recovery().map_err(|e| format!("finish_recovery: {e}"))?;
    let n = prefix_len(w.executed_gtids())? + 1;
    let bytes = testing::transaction(opts.checksum, Some(gtid(n)), n, w.write_pos());
    w.append(&bytes, &[gtid(n)]).map_err(|e| format!("append after recovery: {e}"))?;
    w.sync().map_err(|e| format!("sync after recovery: {e}"))?;
    w.close().map_err(|e| format!("close after recovery: {e}"))?;
    let w = BinlogWriter::open(vfs.clone(), opts.clone()).map_err(|e| format!("reopen: {e}"))?;
    if w.recovery_report().is_some() {
        return Err("a clean close was followed by recovery".into());
    }
    if prefix_len(w.executed_gtids())? != n {
        return Err(format!("transaction {n} lost after a clean close"));
    }
    Ok(())
}

/// Operations of the workload without a crash.
fn count_ops(v: Variant) -> u64 {
    let sim = fresh_disk(v);
    let start = sim.op_count();
    let mut ledger = Ledger::default();
    workload(sim.shared(), &options(v), &mut ledger).expect("workload without crash");
    assert_eq!(ledger.appended, ledger.durable);
    sim.op_count() - start
}

/// One case: the workload with the power cut at operation `k` (counted from the workload's
/// start), a restart in `mode`, the checks. Call it with a failure's values to replay it.
fn run_case(v: Variant, k: u64, mode: CrashMode) -> std::result::Result<(), String> {
    let sim = fresh_disk(v);
    let opts = options(v);
    sim.crash_at(sim.op_count() + k);
    let mut ledger = Ledger::default();
    let outcome = workload(sim.shared(), &opts, &mut ledger);
    if outcome.is_ok() {
        return Err("the workload finished although the power was cut".into());
    }
    let vfs = sim.crash(mode).shared();
    let w = check_reopen(&vfs, &opts, &ledger)?;
    continue_after(w, &vfs, &opts)
}

fn modes(k: u64) -> [CrashMode; 2] {
    [CrashMode::DropUnsynced, CrashMode::Tear { seed: k.wrapping_mul(0x9e37_79b9) + 1 }]
}

#[test]
fn crash_at_every_step_of_appends_rotations_purge_and_close() {
    for v in VARIANTS {
        let total = count_ops(v);
        assert!(total > 100, "the workload does real work ({total} ops)");
        for k in 0..total {
            for mode in modes(k) {
                if let Err(msg) = run_case(v, k, mode) {
                    panic!("variant {v:?}, crash at k={k} of {total}, mode {mode:?}: {msg}");
                }
            }
        }
    }
}

/// A crashed, preallocated set whose last file has a torn tail: returns the disk.
fn crashed_disk() -> (SimVfs, Options, Ledger) {
    let v = Variant { prealloc: true, pool: false, checksum: true };
    let sim = fresh_disk(v);
    let opts = options(v);
    let mut ledger = Ledger::default();
    let vfs = sim.shared();
    let mut w = BinlogWriter::open(vfs, opts.clone()).expect("open");
    for n in 1..=5 {
        let bytes = testing::transaction(true, Some(gtid(n)), n, w.write_pos());
        w.append(&bytes, &[gtid(n)]).expect("append");
        ledger.appended.add(gtid(n));
        if n <= 3 {
            w.sync().expect("sync");
            ledger.durable = ledger.appended.clone();
        }
    }
    drop(w);
    // `continue_after` appends the next GTID after whatever survived: at most 6.
    ledger.appended.add(gtid(6));
    (sim.crash(CrashMode::Tear { seed: 4 }), opts, ledger)
}

#[test]
fn crash_at_every_step_of_recovery() {
    let (probe, opts, ledger) = crashed_disk();
    let start = probe.op_count();
    let vfs = probe.shared();
    let w = check_reopen(&vfs, &opts, &ledger).expect("recovery without crash");
    assert!(w.is_recovering());
    continue_after(w, &vfs, &opts).expect("finish without crash");
    let total = probe.op_count() - start;
    for k in 0..total {
        for mode in modes(k) {
            let (sim, opts, ledger) = crashed_disk();
            sim.crash_at(sim.op_count() + k);
            let vfs = sim.shared();
            // The first recovery (and what follows it) is cut at k; it may fail anywhere.
            if let Ok(w) = BinlogWriter::open(vfs.clone(), opts.clone()) {
                let _ = continue_after(w, &vfs, &opts);
            }
            let vfs = sim.crash(mode).shared();
            let outcome =
                check_reopen(&vfs, &opts, &ledger).and_then(|w| continue_after(w, &vfs, &opts));
            if let Err(msg) = outcome {
                panic!("recovery crashed at k={k} of {total}, mode {mode:?}: {msg}");
            }
        }
    }
}

#[test]
fn a_replayed_case_is_deterministic() {
    let v = VARIANTS[1];
    let k = count_ops(v) / 2;
    for mode in modes(k) {
        assert_eq!(run_case(v, k, mode), run_case(v, k, mode));
    }
}
