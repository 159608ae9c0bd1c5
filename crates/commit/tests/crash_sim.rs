//! Crash simulation: a deterministic seeded workload (8 sessions, inserts/updates/deletes/
//! rollbacks, groups, DDL and autocommit inserts on other tables, rotations, checkpoints) on
//! the simulated disk, with a power cut at
//! write/sync point k, dropping, tearing or keeping the unsynced state; then restart, XA
//! recovery, and docs/design-brief.md's invariant. Both modes × sync_binlog 1 and 0.
//!
//! By default every crash point is covered for one crash mode and the three modes rotate
//! over the points; `COMMIT_CRASH_EXHAUSTIVE=1` runs every point in every mode. A failure
//! prints its replay command (`COMMIT_CRASH_REPLAY=...`). `COMMIT_CRASH_SEEDS=n` sweeps n
//! seeds per configuration instead of one.

mod common;

use common::{check_invariant, open, setup, workload, Mode};
use vfs::{CrashMode, SimVfs};

const STEPS: usize = 120;

fn crash_modes(k: u64, seed: u64, exhaustive: bool) -> Vec<CrashMode> {
    let all = [
        CrashMode::DropUnsynced,
        CrashMode::Tear { seed: seed ^ k.wrapping_mul(0x9e37_79b9) },
        CrashMode::KeepAll,
    ];
    if exhaustive {
        all.to_vec()
    } else {
        vec![all[(k % 3) as usize]]
    }
}

fn crash_name(m: CrashMode) -> String {
    match m {
        CrashMode::DropUnsynced => "drop".into(),
        CrashMode::Tear { seed } => format!("tear:{seed}"),
        CrashMode::KeepAll => "keep".into(),
    }
}

fn parse_crash(s: &str) -> CrashMode {
    match s {
        "drop" => CrashMode::DropUnsynced,
        "keep" => CrashMode::KeepAll,
        t => CrashMode::Tear { seed: t.trim_start_matches("tear:").parse().expect("tear:<seed>") },
    }
}

/// Runs the workload with a power cut at operation `k` (counted after setup), restarts and
/// checks; then crashes again right after recovery and checks again (recovery is
/// repeatable).
fn one(mode: Mode, seed: u64, k: u64, cm: CrashMode, base: u64) {
    let ctx = format!(
        "{mode} seed={seed} k={k} crash={}; replay: COMMIT_CRASH_REPLAY={},{},{seed},{k},{} \
         cargo test -p commit --release --test crash_sim replay",
        crash_name(cm),
        u8::from(mode.in_redo),
        mode.sync_binlog,
        crash_name(cm)
    );
    let disk = SimVfs::new();
    let (c, _) = open(disk.shared(), mode);
    setup(&c);
    assert_eq!(disk.op_count(), base, "{ctx}: setup is not deterministic");
    disk.crash_at(base + k);
    let run = workload(&c, seed, STEPS);
    drop(c);
    let disk = disk.crash(cm);
    let (c, _) = open(disk.shared(), mode);
    check_invariant(&c, &run.acked, &ctx);
    drop(c);
    let disk = disk.crash(CrashMode::DropUnsynced);
    let (c, _) = open(disk.shared(), mode);
    check_invariant(&c, &run.acked, &format!("{ctx} (second restart)"));
}

fn sweep(mode: Mode, first_seed: u64) {
    let seeds: u64 =
        std::env::var("COMMIT_CRASH_SEEDS").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    for i in 0..seeds {
        sweep_seed(mode, first_seed + 1000 * i);
    }
}

fn sweep_seed(mode: Mode, seed: u64) {
    let exhaustive = std::env::var_os("COMMIT_CRASH_EXHAUSTIVE").is_some();
    let disk = SimVfs::new();
    let (c, _) = open(disk.shared(), mode);
    setup(&c);
    let base = disk.op_count();
    let run = workload(&c, seed, STEPS);
    assert!(!run.stopped_by_error, "{mode} seed={seed}: the reference run failed");
    assert!(run.acked.len() > 20, "{mode}: too few commits ({})", run.acked.len());
    let total = disk.op_count() - base;
    // Readers see only the synced end; make all of it visible for the live check.
    c.sync_binlog_now().expect("sync");
    let n = check_invariant(&c, &run.acked, &format!("{mode} seed={seed} no crash"));
    let ddl = common::read_binlog(&c, "count").iter().filter(|t| t.ddl.is_some()).count();
    assert!(ddl >= 4, "{mode} seed={seed}: the workload mixes in DDL ({ddl} statements)");
    drop(c);
    eprintln!(
        "{mode} seed={seed}: {} commits, {n} binlog transactions ({ddl} DDL), {total} crash \
         points",
        run.acked.len()
    );
    for k in 0..=total {
        for cm in crash_modes(k, seed, exhaustive) {
            one(mode, seed, k, cm, base);
        }
    }
}

#[test]
fn crash_sweep_classic_sync_binlog_1() {
    sweep(Mode { in_redo: false, sync_binlog: 1 }, 11);
}

#[test]
fn crash_sweep_classic_sync_binlog_0() {
    sweep(Mode { in_redo: false, sync_binlog: 0 }, 12);
}

#[test]
fn crash_sweep_in_redo_sync_binlog_1() {
    sweep(Mode { in_redo: true, sync_binlog: 1 }, 13);
}

#[test]
fn crash_sweep_in_redo_sync_binlog_0() {
    sweep(Mode { in_redo: true, sync_binlog: 0 }, 14);
}

/// `COMMIT_CRASH_REPLAY=in_redo,sync_binlog,seed,k,crash` replays one failing point.
#[test]
fn replay() {
    let Ok(spec) = std::env::var("COMMIT_CRASH_REPLAY") else { return };
    let f: Vec<&str> = spec.split(',').collect();
    assert_eq!(f.len(), 5, "COMMIT_CRASH_REPLAY=in_redo,sync_binlog,seed,k,crash");
    let mode = Mode { in_redo: f[0] == "1", sync_binlog: f[1].parse().expect("sync_binlog") };
    let seed: u64 = f[2].parse().expect("seed");
    let k: u64 = f[3].parse().expect("k");
    let disk = SimVfs::new();
    let (c, _) = open(disk.shared(), mode);
    setup(&c);
    let base = disk.op_count();
    drop(c);
    one(mode, seed, k, parse_crash(f[4]), base);
}
