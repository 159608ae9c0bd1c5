//! `binlogd bench fsync`: seed 004's low-level table on this machine — how many
//! `fdatasync`s per second a file sustains when each sync follows one 512-byte record, for four
//! ways of preparing the file:
//!
//! 1. `append`: an empty file, each record written at its end (the file grows every time, as
//!    a binlog without preallocation does: every sync also commits the new size and blocks);
//! 2. `overwrite`: a file fully written with zeros and synced beforehand, overwritten from 0
//!    (InnoDB's redo log; what a preallocated, already used binlog costs);
//! 3. `fallocate`: a file just reserved with `fallocate` (unwritten extents: the first write to
//!    each extent still converts it, a metadata change the sync must commit);
//! 4. `zero-fill`: a file zero-filled (not synced) just before the loop, so the first syncs
//!    carry the whole fill (the seed's "zero-filling kills performance").
//!
//! Only the record loop is timed; each mode stops after `--count` records or `--max-seconds`,
//! whichever comes first.
//!
//! A second table gives the device's write latency and queue depth, the figure a commit's
//! latency is measured against (issue 22): `--depths` threads at once each make one 4 KiB
//! block durable at a time, in a region of their own of an overwritten file, in both ways the
//! redo can (`innodb_flush_method`: one `O_DIRECT|O_DSYNC` write, or `pwrite` + `fdatasync`),
//! for `--depth-seconds` each. Writes per second that grow with the depth mean the device
//! completes overlapping writes in parallel (a queue); a latency that grows in step means it
//! serializes them. Each write's latency goes into an HDR histogram (mean, p50, p99). The directory's file system type is printed (from `statfs`): on
//! tmpfs `fdatasync` does nothing and the figures mean nothing, so the default directory is a
//! fresh one under the current directory, never `/tmp`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use vfs::{Allocation, FileRef, OpenMode, RealVfs, Vfs, DURABLE_BLOCK_BYTES};

use crate::alloc::{human_bytes, parse_size, zero_fill};

/// The size of one record: one sector, a small transaction's binlog events.
const RECORD_SIZE: usize = 512;

/// The deepest queue the write-latency table tries (threads at once).
const MAX_DEPTH: usize = 64;

/// Blocks each writer of the write-latency table cycles through (4 MiB of its own).
const BLOCKS_PER_WRITER: u64 = 1024;

/// `binlogd bench fsync` options.
#[derive(clap::Args, Debug, Clone)]
pub struct FsyncArgs {
    /// Directory for the test files (default: a new temporary directory under the current
    /// directory, removed afterwards).
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// Records (writes + fdatasyncs) per mode.
    #[arg(long, default_value_t = 20_000)]
    pub count: u64,
    /// Size of the preallocated files (bytes, or with K/M/G/T); must hold --count records.
    #[arg(long, default_value = "256M", value_parser = parse_size)]
    pub file_size: u64,
    /// Time limit of each mode's record loop, in seconds.
    #[arg(long, default_value_t = 10.0)]
    pub max_seconds: f64,
    /// Queue depths of the write-latency table: this many threads write at once (an empty
    /// list skips the table).
    #[arg(long, value_delimiter = ',', default_value = "1,2,4,8")]
    pub depths: Vec<usize>,
    /// Time of each (method, depth) point of the write-latency table, in seconds.
    #[arg(long, default_value_t = 3.0)]
    pub depth_seconds: f64,
}

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("--count must be at least 1")]
    NoRecords,
    #[error("--file-size {file_size} cannot hold --count {count} records of {RECORD_SIZE} bytes")]
    FileTooSmall { file_size: u64, count: u64 },
    #[error("--max-seconds must be a positive number of seconds, not {0}")]
    MaxSeconds(f64),
    #[error("--depth-seconds must be a positive number of seconds, not {0}")]
    DepthSeconds(f64),
    #[error("--depths must be between 1 and {MAX_DEPTH}, not {0}")]
    Depth(usize),
    #[error("creating a temporary directory under the current directory")]
    TempDir(#[source] std::io::Error),
    #[error("statfs {}", path.display())]
    Statfs {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Io(#[from] vfs::Error),
}

/// How the file is prepared before the timed loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Append,
    Overwrite,
    Fallocate,
    ZeroFill,
}

impl Mode {
    const ALL: [Mode; 4] = [Mode::Append, Mode::Overwrite, Mode::Fallocate, Mode::ZeroFill];

    fn label(self) -> &'static str {
        match self {
            Mode::Append => "1 append to an empty file",
            Mode::Overwrite => "2 overwrite a written, synced file",
            Mode::Fallocate => "3 write a fallocated file",
            Mode::ZeroFill => "4 write right after zero-fill",
        }
    }

    fn file_name(self) -> &'static str {
        match self {
            Mode::Append => "bench-fsync-append.dat",
            Mode::Overwrite => "bench-fsync-overwrite.dat",
            Mode::Fallocate => "bench-fsync-fallocate.dat",
            Mode::ZeroFill => "bench-fsync-zerofill.dat",
        }
    }
}

/// One mode's outcome; `None` records when the file system cannot `fallocate`.
struct Measured {
    mode: Mode,
    records: Option<u64>,
    seconds: f64,
}

impl Measured {
    fn per_second(&self) -> Option<f64> {
        self.records.filter(|_| self.seconds > 0.0).map(|r| r as f64 / self.seconds)
    }
}

/// The name of a `statfs` file system magic number, for the usual Linux ones.
fn fs_name(magic: u64) -> &'static str {
    match magic {
        0xEF53 => "ext2/3/4",
        0x5846_5342 => "xfs",
        0x9123_683E => "btrfs",
        0x0102_1994 => "tmpfs",
        0x794C_7630 => "overlayfs",
        0x2FC1_2FC1 => "zfs",
        0xF2F5_2010 => "f2fs",
        0x6969 => "nfs",
        0x0102_1997 => "9p",
        0x6573_5546 => "fuse",
        0x858_458F6 => "ramfs",
        _ => "unknown",
    }
}

fn fs_magic(dir: &Path) -> Result<u64, BenchError> {
    let st = rustix::fs::statfs(dir)
        .map_err(|e| BenchError::Statfs { path: dir.to_path_buf(), source: e.into() })?;
    // `f_type` is a signed word on some targets; the magic numbers are 32-bit.
    #[allow(clippy::unnecessary_cast)]
    Ok((st.f_type as u64) & 0xFFFF_FFFF)
}

/// Runs the benchmark and prints the table to stdout (progress to stderr).
pub fn run(args: &FsyncArgs) -> Result<(), BenchError> {
    if args.count == 0 {
        return Err(BenchError::NoRecords);
    }
    if args.count.saturating_mul(RECORD_SIZE as u64) > args.file_size {
        return Err(BenchError::FileTooSmall { file_size: args.file_size, count: args.count });
    }
    let max_time =
        positive_secs(args.max_seconds).ok_or(BenchError::MaxSeconds(args.max_seconds))?;
    let depth_time =
        positive_secs(args.depth_seconds).ok_or(BenchError::DepthSeconds(args.depth_seconds))?;
    if let Some(&d) = args.depths.iter().find(|&&d| d == 0 || d > MAX_DEPTH) {
        return Err(BenchError::Depth(d));
    }
    let vfs = RealVfs::new();
    // The guard removes the default directory (and anything left in it) when dropped.
    let (dir, _guard) = match &args.dir {
        Some(d) => {
            vfs.create_dir_all(d)?;
            (d.clone(), None)
        }
        None => {
            let cwd = std::env::current_dir().map_err(BenchError::TempDir)?;
            let t = tempfile::Builder::new()
                .prefix(".binlogd-bench-fsync-")
                .tempdir_in(cwd)
                .map_err(BenchError::TempDir)?;
            (t.path().to_path_buf(), Some(t))
        }
    };
    let magic = fs_magic(&dir)?;
    println!(
        "fdatasync after each {RECORD_SIZE}-byte record; up to {} records or {} s per mode",
        args.count, args.max_seconds
    );
    println!(
        "directory {} on {} (statfs f_type {magic:#x}); preallocated files {}",
        dir.display(),
        fs_name(magic),
        human_bytes(args.file_size)
    );
    if magic == 0x0102_1994 || magic == 0x858_458F6 {
        println!("warning: a RAM file system: fdatasync does nothing here, the figures are void");
    }

    let mut results = Vec::new();
    for mode in Mode::ALL {
        let m = measure(&vfs, &dir, mode, args, max_time)?;
        match m.records {
            Some(r) => eprintln!("{}: {r} records in {:.3} s", mode.label(), m.seconds),
            None => eprintln!("{}: fallocate unsupported here", mode.label()),
        }
        results.push(m);
    }
    print_table(&results);
    if !args.depths.is_empty() {
        let points = measure_depths(&vfs, &dir, &args.depths, depth_time)?;
        print_depth_table(&points);
    }
    Ok(())
}

fn positive_secs(s: f64) -> Option<Duration> {
    Duration::try_from_secs_f64(s).ok().filter(|d| !d.is_zero())
}

/// How a write-latency point makes its block durable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Durable {
    /// One `O_DIRECT|O_DSYNC` write (`innodb_flush_method=O_DSYNC`, binlogd's default).
    Direct,
    /// `pwrite` then `fdatasync` (`innodb_flush_method=fsync`).
    Fdatasync,
}

impl Durable {
    fn label(self) -> &'static str {
        match self {
            Durable::Direct => "O_DIRECT+O_DSYNC write",
            Durable::Fdatasync => "pwrite + fdatasync",
        }
    }
}

/// One (method, depth) point of the write-latency table.
struct DepthPoint {
    method: Durable,
    depth: usize,
    writes: u64,
    seconds: f64,
    latency_us: Histogram<u64>,
}

/// The write-latency table: for each method and depth, `depth` threads each make one 4 KiB
/// block durable after another in a region of their own of one zero-filled, synced file.
fn measure_depths(
    vfs: &dyn Vfs,
    dir: &Path,
    depths: &[usize],
    time: Duration,
) -> Result<Vec<DepthPoint>, BenchError> {
    let path = dir.join("bench-fsync-depth.dat");
    if vfs.exists(&path)? {
        vfs.remove_file(&path)?;
    }
    let deepest = depths.iter().copied().max().unwrap_or(1) as u64;
    let size = deepest * BLOCKS_PER_WRITER * DURABLE_BLOCK_BYTES;
    let file = vfs.open(&path, OpenMode::CreateNew)?;
    zero_fill(&*file, size, |_| {})?;
    file.sync_data()?;
    vfs.sync_dir(dir)?;
    let direct = file.open_direct()?;
    if !direct {
        println!("note: O_DIRECT refused here; the O_DSYNC rows fall back to pwrite + fdatasync");
    }
    let mut points = Vec::new();
    for method in [Durable::Direct, Durable::Fdatasync] {
        for &depth in depths {
            let p = measure_depth(&file, method, depth, time)?;
            eprintln!(
                "{} at depth {depth}: {} writes in {:.3} s",
                method.label(),
                p.writes,
                p.seconds
            );
            points.push(p);
        }
    }
    drop(file);
    vfs.remove_file(&path)?;
    Ok(points)
}

fn measure_depth(
    file: &FileRef,
    method: Durable,
    depth: usize,
    time: Duration,
) -> Result<DepthPoint, BenchError> {
    let block = DURABLE_BLOCK_BYTES as usize;
    let started = Instant::now();
    let per_thread: Vec<Result<(u64, Histogram<u64>), vfs::Error>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..depth as u64)
            .map(|t| {
                s.spawn(move || {
                    let mut h = latency_histogram();
                    let mut buf = vec![0x5Au8; block];
                    let region = t * BLOCKS_PER_WRITER;
                    let mut n = 0u64;
                    while started.elapsed() < time {
                        buf[..8].copy_from_slice(&n.to_le_bytes());
                        let off = (region + n % BLOCKS_PER_WRITER) * DURABLE_BLOCK_BYTES;
                        let t0 = Instant::now();
                        match method {
                            Durable::Direct => file.write_durable_at(&buf, off)?,
                            Durable::Fdatasync => {
                                file.write_at(&buf, off)?;
                                file.sync_data()?;
                            }
                        }
                        h.saturating_record(t0.elapsed().as_micros().max(1) as u64);
                        n += 1;
                    }
                    Ok((n, h))
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("a depth writer panicked")).collect()
    });
    let seconds = started.elapsed().as_secs_f64();
    let mut latency_us = latency_histogram();
    let mut writes = 0;
    for r in per_thread {
        let (n, h) = r?;
        writes += n;
        latency_us.add(&h).expect("histograms of the same bounds");
    }
    Ok(DepthPoint { method, depth, writes, seconds, latency_us })
}

fn latency_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 60_000_000, 3).expect("valid histogram bounds")
}

fn print_depth_table(points: &[DepthPoint]) {
    println!();
    println!(
        "Durable 4 KiB writes at a queue depth (threads writing at once, each its own blocks):"
    );
    println!();
    println!("| method | depth | writes/s | vs depth 1 | mean µs | p50 µs | p99 µs |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for p in points {
        let rate = p.writes as f64 / p.seconds.max(1e-9);
        let base = points
            .iter()
            .find(|q| q.method == p.method && q.depth == 1)
            .map(|q| q.writes as f64 / q.seconds.max(1e-9));
        let vs = base.filter(|b| *b > 0.0).map_or("-".to_string(), |b| format!("{:.2}", rate / b));
        let h = &p.latency_us;
        println!(
            "| {} | {} | {rate:.0} | {vs} | {:.0} | {} | {} |",
            p.method.label(),
            p.depth,
            h.mean(),
            h.value_at_quantile(0.5),
            h.value_at_quantile(0.99)
        );
    }
}

fn print_table(results: &[Measured]) {
    let append = results.iter().find(|m| m.mode == Mode::Append).and_then(Measured::per_second);
    println!();
    println!("| mode | records | seconds | fdatasync/s | vs append |");
    println!("|---|---:|---:|---:|---:|");
    for m in results {
        match (m.records, m.per_second()) {
            (Some(records), Some(rate)) => {
                let ratio = append.map_or("-".to_string(), |a| format!("{:.2}", rate / a));
                println!(
                    "| {} | {records} | {:.3} | {:.0} | {ratio} |",
                    m.mode.label(),
                    m.seconds,
                    rate
                );
            }
            _ => println!("| {} | - | - | unsupported | - |", m.mode.label()),
        }
    }
}

fn measure(
    vfs: &dyn Vfs,
    dir: &Path,
    mode: Mode,
    args: &FsyncArgs,
    max_time: Duration,
) -> Result<Measured, BenchError> {
    let path = dir.join(mode.file_name());
    // A file of ours left by an interrupted run.
    if vfs.exists(&path)? {
        vfs.remove_file(&path)?;
    }
    let file = vfs.open(&path, OpenMode::CreateNew)?;
    match mode {
        Mode::Append => {}
        Mode::Overwrite => {
            zero_fill(&*file, args.file_size, |_| {})?;
            file.sync_data()?;
        }
        Mode::Fallocate => {
            if file.allocate(args.file_size)? == Allocation::Unsupported {
                drop(file);
                vfs.remove_file(&path)?;
                return Ok(Measured { mode, records: None, seconds: 0.0 });
            }
            file.sync_data()?;
        }
        Mode::ZeroFill => zero_fill(&*file, args.file_size, |_| {})?,
    }
    // The entry is made durable first, so the loop's syncs carry the records only.
    vfs.sync_dir(dir)?;

    let mut record = [0xA5u8; RECORD_SIZE];
    let mut records = 0u64;
    let started = Instant::now();
    while records < args.count {
        record[..8].copy_from_slice(&records.to_le_bytes());
        file.write_at(&record, records * RECORD_SIZE as u64)?;
        file.sync_data()?;
        records += 1;
        if started.elapsed() >= max_time {
            break;
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    drop(file);
    vfs.remove_file(&path)?;
    Ok(Measured { mode, records: Some(records), seconds })
}
