//! `binlogd bench commit`: the commit path end to end, in process, without a network: N
//! threads each run single-row UPDATE transactions (read the row, write it back changed,
//! log the ROWS event, commit) against one table, for several commit configurations and
//! thread counts. One table row per (configuration, threads): TPS, p50/p99 commit latency,
//! average FLUSH group size, fsyncs per commit of the binlog and of the redo, and the
//! fsyncs per commit the design predicts (2/group classic, 1/group binlog-in-redo).
//!
//! Every point gets a fresh data directory (real files, by default under the current
//! directory, never `/tmp`, which may be tmpfs), is loaded with `--rows` rows, then timed for
//! `--seconds`, from the moment every client thread is running until the stop flag is set
//! (thread start-up, joins and the histogram merge are outside the window). Latency is
//! measured per transaction around `Coordinator::commit` only.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use binlog::gtid::Sid;
use commit::{CommitConfig, CommitRequest, CommitStats, Coordinator, OpenOptions};
use engine::{Column, ColumnType, EngineConfig, TableSchema, Value};
use hdrhistogram::Histogram;
use vfs::RealVfs;

/// Rows per loading transaction.
const LOAD_BATCH_ROWS: i64 = 500;
/// Stack of each client thread (1024 of them).
const CLIENT_STACK_BYTES: usize = 256 << 10;

/// `binlogd bench commit` options.
#[derive(clap::Args, Debug, Clone)]
pub struct CommitArgs {
    /// Directory for the data directories (default: a new temporary directory under the
    /// current directory, removed afterwards).
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Thread counts, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1,4,16,64,256,1024")]
    pub threads: Vec<usize>,
    /// Timed seconds per point.
    #[arg(long, default_value_t = 3.0)]
    pub seconds: f64,
    /// Rows in the table.
    #[arg(long, default_value_t = 10_000)]
    pub rows: i64,
    /// Configurations, comma-separated: gc-off, classic-sb1, classic-sb0, in-redo.
    #[arg(long, value_delimiter = ',', default_value = "gc-off,classic-sb1,classic-sb0,in-redo")]
    pub configs: Vec<String>,
    /// The redo's `innodb_flush_method`: fsync or O_DSYNC (the server's default).
    #[arg(long, default_value = "O_DSYNC", value_parser = parse_flush_method)]
    pub innodb_flush_method: engine::RedoFlushMethod,
}

fn parse_flush_method(text: &str) -> Result<engine::RedoFlushMethod, String> {
    engine::RedoFlushMethod::from_name(text)
        .ok_or_else(|| format!("one of {}", engine::RedoFlushMethod::NAMES.join(", ")))
}

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("unknown configuration {0:?} (gc-off, classic-sb1, classic-sb0, in-redo)")]
    UnknownConfig(String),
    #[error("--seconds must be a positive number, not {0}")]
    Seconds(f64),
    #[error("--rows must be at least 1")]
    NoRows,
    #[error("creating a temporary directory under the current directory")]
    TempDir(#[source] std::io::Error),
    #[error(transparent)]
    Commit(#[from] commit::Error),
    #[error(transparent)]
    Engine(#[from] engine::Error),
}

/// A commit configuration to compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Setup {
    GroupCommitOff,
    ClassicSync1,
    ClassicSync0,
    InRedo,
}

impl Setup {
    fn parse(s: &str) -> Result<Setup, BenchError> {
        match s {
            "gc-off" => Ok(Setup::GroupCommitOff),
            "classic-sb1" => Ok(Setup::ClassicSync1),
            "classic-sb0" => Ok(Setup::ClassicSync0),
            "in-redo" => Ok(Setup::InRedo),
            other => Err(BenchError::UnknownConfig(other.to_string())),
        }
    }

    fn label(self) -> &'static str {
        match self {
            Setup::GroupCommitOff => "group commit OFF, sync_binlog=1",
            Setup::ClassicSync1 => "classic, sync_binlog=1",
            Setup::ClassicSync0 => "classic, sync_binlog=0",
            Setup::InRedo => "binlog-in-redo",
        }
    }

    fn config(self) -> CommitConfig {
        let c = CommitConfig::default();
        match self {
            Setup::GroupCommitOff => c.set_binlog_group_commit(false),
            Setup::ClassicSync1 => {}
            Setup::ClassicSync0 => c.set_sync_binlog(0),
            Setup::InRedo => c.set_binlog_in_redo(true),
        }
        c
    }

    /// The fsyncs per commit the design predicts for an average group of `g`.
    fn expected_fsyncs_per_commit(self, g: f64) -> f64 {
        match self {
            Setup::GroupCommitOff | Setup::ClassicSync1 => 2.0 / g,
            Setup::ClassicSync0 | Setup::InRedo => 1.0 / g,
        }
    }
}

/// One measured point.
#[derive(Debug, Clone)]
struct Point {
    setup: Setup,
    threads: usize,
    tps: f64,
    p50_us: u64,
    p99_us: u64,
    avg_group: f64,
    binlog_fsyncs_per_commit: f64,
    redo_fsyncs_per_commit: f64,
    cycle: Cycle,
}

/// Mean µs per FLUSH group of each part of the group cycle (per SYNC / COMMIT group led for
/// those stages, per woken follower for `wake`), over the timed window.
#[derive(Debug, Clone, Copy, Default)]
struct Cycle {
    /// Wall time per FLUSH group: the elapsed window over the groups flushed in it.
    per_group: f64,
    gap: f64,
    encode: f64,
    redo_flush: f64,
    binlog_write: f64,
    sync: f64,
    commit: f64,
    wake: f64,
}

impl Cycle {
    fn between(a: &CommitStats, b: &CommitStats, elapsed_s: f64) -> Cycle {
        let per = |ns_a: u64, ns_b: u64, n_a: u64, n_b: u64| {
            let n = n_b.saturating_sub(n_a);
            if n == 0 {
                0.0
            } else {
                ns_b.saturating_sub(ns_a) as f64 / n as f64 / 1000.0
            }
        };
        let groups = (a.cycle_groups, b.cycle_groups);
        let g = |x: u64, y: u64| per(x, y, groups.0, groups.1);
        Cycle {
            per_group: elapsed_s * 1e6
                / b.cycle_groups.saturating_sub(a.cycle_groups).max(1) as f64,
            gap: g(a.cycle_gap_ns, b.cycle_gap_ns),
            encode: g(a.cycle_encode_ns, b.cycle_encode_ns),
            redo_flush: g(a.cycle_redo_flush_ns, b.cycle_redo_flush_ns),
            binlog_write: g(a.cycle_binlog_write_ns, b.cycle_binlog_write_ns),
            sync: per(a.cycle_sync_ns, b.cycle_sync_ns, a.cycle_syncs, b.cycle_syncs),
            commit: per(a.cycle_commit_ns, b.cycle_commit_ns, a.cycle_commits, b.cycle_commits),
            wake: per(a.cycle_wake_ns, b.cycle_wake_ns, a.cycle_wakes, b.cycle_wakes),
        }
    }
}

pub fn run(args: &CommitArgs) -> Result<(), BenchError> {
    if !(args.seconds > 0.0 && args.seconds.is_finite()) {
        return Err(BenchError::Seconds(args.seconds));
    }
    if args.rows < 1 {
        return Err(BenchError::NoRows);
    }
    let setups = args.configs.iter().map(|s| Setup::parse(s)).collect::<Result<Vec<_>, _>>()?;
    let tmp;
    let root = match &args.dir {
        Some(d) => d.clone(),
        None => {
            tmp = tempfile::Builder::new()
                .prefix("bench-commit-")
                .tempdir_in(".")
                .map_err(BenchError::TempDir)?;
            tmp.path().to_path_buf()
        }
    };
    println!(
        "binlogd bench commit: single-row UPDATE transactions, {} rows, {} s per point, data in {}",
        args.rows,
        args.seconds,
        root.display()
    );
    println!();
    println!("| configuration | threads | TPS | p50 µs | p99 µs | avg group | binlog fsync/commit | redo fsync/commit | expected fsync/commit |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut points = Vec::new();
    for &setup in &setups {
        for (i, &threads) in args.threads.iter().enumerate() {
            let dir = root.join(format!("{setup:?}-{threads}-{i}"));
            let p = measure(setup, threads, args, &dir)?;
            let _ = std::fs::remove_dir_all(&dir);
            println!(
                "| {} | {} | {:.0} | {} | {} | {:.1} | {:.3} | {:.3} | {:.3} |",
                setup.label(),
                threads,
                p.tps,
                p.p50_us,
                p.p99_us,
                p.avg_group,
                p.binlog_fsyncs_per_commit,
                p.redo_fsyncs_per_commit,
                setup.expected_fsyncs_per_commit(p.avg_group),
            );
            points.push(p);
        }
    }
    print_cycles(&points);
    print_targets(&points);
    Ok(())
}

fn print_cycles(points: &[Point]) {
    println!();
    println!("Group cycle, mean µs: wall time per FLUSH group; its parts (hand-over gap between FLUSH leaders, encoding, redo write+fdatasync, binlog write) per FLUSH group; SYNC and COMMIT stage per group led; wake-up call to follower running, per follower.");
    println!();
    println!("| configuration | threads | µs/group | gap | encode | redo flush | binlog write | sync stage | commit stage | wake |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for p in points {
        let c = &p.cycle;
        println!(
            "| {} | {} | {:.0} | {:.0} | {:.1} | {:.0} | {:.1} | {:.0} | {:.1} | {:.0} |",
            p.setup.label(),
            p.threads,
            c.per_group,
            c.gap,
            c.encode,
            c.redo_flush,
            c.binlog_write,
            c.sync,
            c.commit,
            c.wake
        );
    }
}

fn print_targets(points: &[Point]) {
    let find = |s: Setup, t: usize| points.iter().find(|p| p.setup == s && p.threads == t);
    println!();
    println!("Targets:");
    if let Some(p) = find(Setup::ClassicSync1, 64) {
        let ok = if p.avg_group >= 8.0 { "met" } else { "NOT met" };
        println!(
            "- avg group at 64 threads (classic, sync_binlog=1) >= 8: {:.1} ({ok})",
            p.avg_group
        );
    }
    for &s in &[Setup::ClassicSync1, Setup::ClassicSync0, Setup::InRedo, Setup::GroupCommitOff] {
        let of: Vec<&Point> = points.iter().filter(|p| p.setup == s).collect();
        let peak = of.iter().map(|p| p.tps).fold(0.0, f64::max);
        if let (Some(p), true) = (find(s, 1024), peak > 0.0) {
            let ratio = p.tps / peak;
            let ok = if ratio >= 0.9 { "met" } else { "NOT met" };
            println!(
                "- {}: TPS at 1024 threads / peak = {:.0} / {:.0} = {:.2} (>= 0.90 {ok})",
                s.label(),
                p.tps,
                peak,
                ratio
            );
        }
    }
    if let (Some(a), Some(b)) = (find(Setup::ClassicSync1, 64), find(Setup::ClassicSync0, 64)) {
        let ratio = a.tps / b.tps;
        let ok = if ratio >= 0.9 { "met" } else { "NOT met" };
        println!("- sync_binlog=1 / sync_binlog=0 TPS at 64 threads = {ratio:.2} (>= 0.90 {ok})");
    }
    for p in points.iter().filter(|p| p.threads >= 16) {
        let measured = p.binlog_fsyncs_per_commit + p.redo_fsyncs_per_commit;
        let expected = p.setup.expected_fsyncs_per_commit(p.avg_group);
        println!(
            "- {} at {} threads: fsyncs/commit {:.3}, expected {:.3}",
            p.setup.label(),
            p.threads,
            measured,
            expected
        );
    }
}

fn schema() -> TableSchema {
    TableSchema::new(
        "sbtest1",
        vec![
            Column::new("id", ColumnType::Integer { bytes: 4, unsigned: false }).not_null(),
            Column::new("k", ColumnType::Integer { bytes: 4, unsigned: false }),
            Column::new("c", ColumnType::Char(120)),
            Column::new("pad", ColumnType::Char(60)),
        ],
        vec![0],
    )
}

fn row(id: i64, k: i64) -> Vec<Value> {
    vec![
        Value::Int(id),
        Value::Int(k),
        Value::Bytes(format!("{id:0>11}-{k:0>11}").into_bytes()),
        Value::Bytes(b"qqqqqqqqqqq-wwwwwwwwwww".to_vec()),
    ]
}

type Coord = Coordinator<engine::Engine>;

fn measure(
    setup: Setup,
    threads: usize,
    args: &CommitArgs,
    dir: &Path,
) -> Result<Point, BenchError> {
    let mut options = OpenOptions::new(Sid([0x5b; 16]));
    options.max_binlog_size = 256 << 20;
    options.engine = EngineConfig {
        redo_file_bytes: 64 << 20,
        redo_flush_method: args.innodb_flush_method,
        ..EngineConfig::default()
    };
    let (c, _) = Coord::open(RealVfs::shared(), dir, options, Arc::new(setup.config()))?;
    let mut ddl = c.begin();
    let table = c.engine().create_table_in(&mut ddl, schema())?;
    c.commit(CommitRequest::ddl(
        ddl,
        "sbtest",
        "CREATE TABLE sbtest1 (id INT PRIMARY KEY, k INT, c CHAR(120), pad CHAR(60))",
    ))?;
    let table_schema =
        c.engine().schema(table).ok_or(engine::Error::NoSuchTable { name: "sbtest1".into() })?;
    let mut id = 1;
    while id <= args.rows {
        let mut txn = c.begin();
        let mut cache = c.new_cache("sbtest");
        for i in id..(id + LOAD_BATCH_ROWS).min(args.rows + 1) {
            let r = row(i, 0);
            c.engine().insert(&mut txn, table, r.clone())?;
            cache.insert(&table_schema, &r)?;
        }
        c.commit(CommitRequest::rows(txn, cache))?;
        id += LOAD_BATCH_ROWS;
    }
    // The timed window opens once every client thread runs (spawning 1024 threads and
    // faulting in their stacks takes tens of milliseconds) and closes when `stop` is set:
    // commits acknowledged after it, the joins and the merge of the clients' histograms are
    // outside it.
    let ready = Barrier::new(threads + 1);
    let stop = AtomicBool::new(false);
    let errors = AtomicU64::new(0);
    let duration = Duration::from_secs_f64(args.seconds);
    let mut merged = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3)
        .expect("static histogram bounds are valid");
    let (before, after, elapsed) = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (c, stop, errors, schema, ready) = (&c, &stop, &errors, &table_schema, &ready);
                std::thread::Builder::new()
                    .stack_size(CLIENT_STACK_BYTES)
                    .spawn_scoped(s, move || {
                        ready.wait();
                        client(c, table, schema, t as u64, args.rows, stop, errors)
                    })
                    .expect("spawning a client thread")
            })
            .collect();
        ready.wait();
        let before: CommitStats = c.stats();
        let start = Instant::now();
        std::thread::sleep(duration);
        stop.store(true, Ordering::Relaxed);
        let after = c.stats();
        let elapsed = start.elapsed().as_secs_f64();
        for h in handles {
            if let Ok(h) = h.join() {
                let _ = merged.add(&h);
            }
        }
        (before, after, elapsed)
    });
    let _ = c.shutdown();
    let commits = after.commits.saturating_sub(before.commits).max(1);
    let groups = after.groups_flush.saturating_sub(before.groups_flush).max(1);
    let e = errors.load(Ordering::Relaxed);
    if e > 0 {
        eprintln!("{} at {threads} threads: {e} transactions failed", setup.label());
    }
    Ok(Point {
        setup,
        threads,
        tps: commits as f64 / elapsed,
        p50_us: merged.value_at_quantile(0.5),
        p99_us: merged.value_at_quantile(0.99),
        avg_group: commits as f64 / groups as f64,
        binlog_fsyncs_per_commit: after.binlog_fsyncs.saturating_sub(before.binlog_fsyncs) as f64
            / commits as f64,
        redo_fsyncs_per_commit: after.redo_fsyncs.saturating_sub(before.redo_fsyncs) as f64
            / commits as f64,
        cycle: Cycle::between(&before, &after, elapsed),
    })
}

/// One client: UPDATE sbtest1 SET k=k+1 WHERE id=? in a loop until `stop`; returns its
/// commit latencies (µs).
fn client(
    c: &Coord,
    table: engine::TableId,
    schema: &TableSchema,
    seed: u64,
    rows: i64,
    stop: &AtomicBool,
    errors: &AtomicU64,
) -> Histogram<u64> {
    let mut h = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3)
        .expect("static histogram bounds are valid");
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    while !stop.load(Ordering::Relaxed) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let id = (x % rows as u64) as i64 + 1;
        let e = c.engine();
        let key = e.key(&[Value::Int(id)]);
        let mut txn = c.begin();
        let before = match e.get_for_update(&mut txn, table, &key) {
            Ok(Some(r)) => r,
            _ => {
                errors.fetch_add(1, Ordering::Relaxed);
                continue;
            }
        };
        let k = match before.get(1) {
            Some(Value::Int(k)) => *k,
            _ => 0,
        };
        let after = row(id, k + 1);
        let mut cache = c.new_cache("sbtest");
        if e.update(&mut txn, table, &key, after.clone()).is_err()
            || cache.update(schema, &before, &after).is_err()
        {
            errors.fetch_add(1, Ordering::Relaxed);
            continue;
        }
        let t = Instant::now();
        match c.commit(CommitRequest::rows(txn, cache)) {
            // Only commits inside the timed window.
            Ok(_) if stop.load(Ordering::Relaxed) => {}
            Ok(_) => h.saturating_record((t.elapsed().as_micros() as u64).max(1)),
            Err(_) => {
                errors.fetch_add(1, Ordering::Relaxed);
                if c.is_poisoned() {
                    return h;
                }
            }
        }
    }
    h
}
