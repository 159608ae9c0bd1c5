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
//! whichever comes first. The directory's file system type is printed (from `statfs`): on
//! tmpfs `fdatasync` does nothing and the figures mean nothing, so the default directory is a
//! fresh one under the current directory, never `/tmp`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use vfs::{Allocation, OpenMode, RealVfs, Vfs};

use crate::alloc::{human_bytes, parse_size, zero_fill};

/// The size of one record: one sector, a small transaction's binlog events.
const RECORD_SIZE: usize = 512;

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
}

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("--count must be at least 1")]
    NoRecords,
    #[error("--file-size {file_size} cannot hold --count {count} records of {RECORD_SIZE} bytes")]
    FileTooSmall { file_size: u64, count: u64 },
    #[error("--max-seconds must be a positive number of seconds, not {0}")]
    MaxSeconds(f64),
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
    let max_time = Duration::try_from_secs_f64(args.max_seconds)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or(BenchError::MaxSeconds(args.max_seconds))?;
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
    Ok(())
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
