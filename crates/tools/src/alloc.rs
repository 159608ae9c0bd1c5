//! `binlogd alloc`: makes a static pool of preallocated binlog files, like WL#4925's
//! `mysqlbinlogalloc` (seed 004, "static preallocation").
//!
//! `--binlog-name DIR/NAME --start-suffix N --end-suffix M --size S` creates `DIR/NAME.00000N`
//! … `DIR/NAME.00000M`, each `S` bytes of zeros whose blocks are already reserved, so the
//! server's later `fdatasync`s overwrite instead of extending the file.
//!
//! Each file is made crash-safely: a temporary `DIR/.NAME.00000N.tmp` is created, given its
//! full size with `fallocate`, synced, renamed to its final name, and the directory synced.
//! A crash at any point leaves either no final file or a complete one (and at most a stale
//! temporary file, replaced by the next run).
//!
//! When the file system has no `fallocate` the file is zero-filled with large writes instead.
//! That is slow and writes `S` bytes per file, which is acceptable for this offline tool and is
//! the reason the pool exists (the server itself never zero-fills). `set_len` is not an option:
//! it makes a sparse file, whose blocks would still be allocated at commit time.
//!
//! Invariants:
//! - An existing final file is never overwritten: at the first one found the tool stops with
//!   an error naming it; files created before it stay.
//! - A final name only ever appears with the whole file durable behind it.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use vfs::{Allocation, OpenMode, Vfs, VfsFile};

/// The largest suffix of a 6-digit binlog file name (`NAME.999999`).
pub const MAX_SUFFIX: u32 = 999_999;

/// Zero-filling writes this much at a time.
const ZERO_FILL_CHUNK: usize = 1 << 20;

/// `binlogd alloc` options (the names of `mysqlbinlogalloc`).
#[derive(clap::Args, Debug, Clone)]
pub struct AllocArgs {
    /// First suffix to create (inclusive).
    #[arg(long)]
    pub start_suffix: u32,
    /// Last suffix to create (inclusive).
    #[arg(long)]
    pub end_suffix: u32,
    /// Size of each file in bytes, or with a K, M, G or T suffix (powers of 1024).
    #[arg(long, visible_alias = "binlog-size", value_parser = parse_size)]
    pub size: u64,
    /// Path and base name of the files: DIR/NAME makes DIR/NAME.000001 and so on. DIR is
    /// created if missing.
    #[arg(long)]
    pub binlog_name: PathBuf,
}

/// Why `binlogd alloc` stopped.
#[derive(Debug, thiserror::Error)]
pub enum AllocError {
    #[error("--start-suffix {start} is greater than --end-suffix {end}")]
    Range { start: u32, end: u32 },
    #[error("suffix {0} does not fit a 6-digit binlog file name (0..={MAX_SUFFIX})")]
    Suffix(u32),
    #[error("--size must be greater than 0")]
    ZeroSize,
    #[error("--binlog-name {} has no file name part", .0.display())]
    NoName(PathBuf),
    #[error("{} already exists; refusing to overwrite it ({created} file(s) created before it)", path.display())]
    Exists { path: PathBuf, created: u32 },
    #[error(transparent)]
    Io(#[from] vfs::Error),
}

/// A size argument that is not a number with an optional K/M/G/T suffix.
#[derive(Debug, thiserror::Error)]
#[error("invalid size {0:?}: expected bytes, or a number followed by K, M, G or T")]
pub struct InvalidSize(String);

/// Parses `4096`, `64K`, `256M`, `1G`, `2T` (case-insensitive, powers of 1024, as MySQL's
/// size options).
pub fn parse_size(text: &str) -> Result<u64, InvalidSize> {
    let invalid = || InvalidSize(text.to_string());
    let t = text.trim();
    let (digits, shift) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let shift = match c.to_ascii_uppercase() {
                'K' => 10,
                'M' => 20,
                'G' => 30,
                'T' => 40,
                _ => return Err(invalid()),
            };
            (&t[..i], shift)
        }
        _ => (t, 0),
    };
    let n: u64 = digits.parse().map_err(|_| invalid())?;
    n.checked_mul(1u64 << shift).ok_or_else(invalid)
}

/// Formats a byte count the way users pass it (`1 GiB`, `64 KiB`, `1000 B`).
pub fn human_bytes(n: u64) -> String {
    const UNITS: [(u32, &str); 4] = [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")];
    for (shift, unit) in UNITS {
        if n >= 1 << shift {
            let v = n as f64 / (1u64 << shift) as f64;
            return if n.trailing_zeros() >= shift {
                format!("{} {unit}", n >> shift)
            } else {
                format!("{v:.1} {unit}")
            };
        }
    }
    format!("{n} B")
}

/// The final and temporary paths of suffix `n` (`NAME.00000n`, `.NAME.00000n.tmp`).
fn paths(dir: &Path, name: &str, n: u32) -> (PathBuf, PathBuf) {
    (dir.join(format!("{name}.{n:06}")), dir.join(format!(".{name}.{n:06}.tmp")))
}

/// What the user sees: a line per file made, and a progress bar over all bytes to make, drawn
/// only on a terminal and only when it helps (many files, or a zero-fill). Silent when not
/// `enabled` (unit tests).
struct Progress {
    bar: Option<ProgressBar>,
    total_bytes: u64,
    enabled: bool,
}

impl Progress {
    fn new(total_bytes: u64, files: u32, enabled: bool) -> Self {
        let mut p = Progress { bar: None, total_bytes, enabled };
        if files > 1 {
            p.show();
        }
        p
    }

    fn show(&mut self) -> Option<&ProgressBar> {
        if self.bar.is_none() && self.enabled {
            let bar =
                ProgressBar::with_draw_target(Some(self.total_bytes), ProgressDrawTarget::stderr());
            let style = ProgressStyle::with_template(
                "{bar:40} {binary_bytes}/{binary_total_bytes} {binary_bytes_per_sec} eta {eta} {msg}",
            )
            .expect("the template is a valid constant");
            bar.set_style(style);
            self.bar = Some(bar);
        }
        self.bar.as_ref()
    }

    fn inc(&self, bytes: u64) {
        if let Some(bar) = &self.bar {
            bar.inc(bytes);
        }
    }

    /// Prints a line without tearing the bar (and even when the bar is hidden).
    fn println(&self, line: &str) {
        if !self.enabled {
            return;
        }
        let print = || {
            let mut out = std::io::stdout().lock();
            // Nothing sensible to do if stdout is gone; the exit status still tells the story.
            let _ = writeln!(out, "{line}");
        };
        match &self.bar {
            Some(bar) => bar.suspend(print),
            None => print(),
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// Runs `binlogd alloc` on the real file system, with a progress bar on a terminal.
pub fn run(args: &AllocArgs) -> Result<(), AllocError> {
    run_on(&vfs::RealVfs::new(), args, true)
}

/// Creates the files of `args` on `vfs`, reporting to the user if `report`.
pub fn run_on(vfs: &dyn Vfs, args: &AllocArgs, report: bool) -> Result<(), AllocError> {
    let (start, end) = (args.start_suffix, args.end_suffix);
    if start > end {
        return Err(AllocError::Range { start, end });
    }
    if end > MAX_SUFFIX {
        return Err(AllocError::Suffix(end));
    }
    if args.size == 0 {
        return Err(AllocError::ZeroSize);
    }
    let name = args
        .binlog_name
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| AllocError::NoName(args.binlog_name.clone()))?;
    let dir = match args.binlog_name.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    vfs.create_dir_all(dir)?;

    let files = end - start + 1;
    let mut progress = Progress::new(args.size.saturating_mul(u64::from(files)), files, report);
    let outcome = create_files(vfs, dir, name, args, &mut progress);
    progress.finish();
    outcome
}

/// Makes each file of the range in turn: temporary file, full size, sync, rename, dir sync.
fn create_files(
    vfs: &dyn Vfs,
    dir: &Path,
    name: &str,
    args: &AllocArgs,
    progress: &mut Progress,
) -> Result<(), AllocError> {
    let mut warned_zero_fill = false;
    for n in args.start_suffix..=args.end_suffix {
        let created = n - args.start_suffix;
        let (target, tmp) = paths(dir, name, n);
        if vfs.exists(&target)? {
            return Err(AllocError::Exists { path: target, created });
        }
        let how = match make_file(vfs, &tmp, args.size, progress, &mut warned_zero_fill) {
            Ok(how) => how,
            Err(e) => {
                remove_quietly(vfs, &tmp);
                return Err(e.into());
            }
        };
        // Checked again: the file could have appeared while this one was being made, and
        // rename would replace it.
        if vfs.exists(&target)? {
            remove_quietly(vfs, &tmp);
            return Err(AllocError::Exists { path: target, created });
        }
        vfs.rename(&tmp, &target)?;
        vfs.sync_dir(dir)?;
        progress.println(&format!(
            "created {} ({}, {how})",
            target.display(),
            human_bytes(args.size)
        ));
    }
    Ok(())
}

/// Best-effort removal of our temporary file after a failure; the original error is the one
/// worth reporting, and a leftover is replaced by the next run.
fn remove_quietly(vfs: &dyn Vfs, tmp: &Path) {
    let _ = vfs.remove_file(tmp);
}

/// Makes `tmp` a durable file of `size` zero bytes with its blocks reserved; returns how.
fn make_file(
    vfs: &dyn Vfs,
    tmp: &Path,
    size: u64,
    progress: &mut Progress,
    warned_zero_fill: &mut bool,
) -> Result<&'static str, vfs::Error> {
    // A temporary file left by an interrupted run is ours to replace.
    if vfs.exists(tmp)? {
        vfs.remove_file(tmp)?;
    }
    let file = vfs.open(tmp, OpenMode::CreateNew)?;
    let how = match file.allocate(size)? {
        Allocation::Allocated => {
            progress.inc(size);
            "fallocate"
        }
        Allocation::Unsupported => {
            if !*warned_zero_fill {
                *warned_zero_fill = true;
                progress.println(
                    "fallocate is not supported on this file system: zero-filling instead \
                     (slow, writes every byte; fine for this offline tool)",
                );
            }
            progress.show();
            zero_fill(&*file, size, |n| progress.inc(n))?;
            "zero-filled"
        }
    };
    file.sync_data()?;
    Ok(how)
}

/// Writes `size` zero bytes from offset 0 with large writes, reporting each chunk's length.
pub fn zero_fill(
    file: &dyn VfsFile,
    size: u64,
    mut on_chunk: impl FnMut(u64),
) -> Result<(), vfs::Error> {
    let zeros = vec![0u8; ZERO_FILL_CHUNK];
    let mut pos = 0u64;
    while pos < size {
        let n = (size - pos).min(ZERO_FILL_CHUNK as u64);
        file.write_at(&zeros[..n as usize], pos)?;
        pos += n;
        on_chunk(n);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use vfs::{CrashMode, SimVfs};

    fn args(start: u32, end: u32, size: u64) -> AllocArgs {
        AllocArgs {
            start_suffix: start,
            end_suffix: end,
            size,
            binlog_name: PathBuf::from("/data/pool/empty"),
        }
    }

    #[test]
    fn sizes_parse_with_binary_suffixes() {
        assert_eq!(parse_size("4096").expect("plain"), 4096);
        assert_eq!(parse_size("64K").expect("K"), 64 << 10);
        assert_eq!(parse_size("256m").expect("m"), 256 << 20);
        assert_eq!(parse_size("1G").expect("G"), 1 << 30);
        assert_eq!(parse_size("2T").expect("T"), 2 << 40);
        for bad in ["", "G", "1X", "1.5G", "-1", "99999999999T"] {
            assert!(parse_size(bad).is_err(), "{bad:?} must be refused");
        }
        assert_eq!(human_bytes(1 << 30), "1 GiB");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(100), "100 B");
    }

    #[test]
    fn creates_zeroed_files_and_zero_fills_without_fallocate() {
        for allocate in [true, false] {
            let sim = SimVfs::new();
            sim.set_allocate_supported(allocate);
            run_on(&sim, &args(1, 3, 3000), false).expect("alloc");
            let names = sim.list_dir(Path::new("/data/pool")).expect("list");
            let want: Vec<PathBuf> =
                (1..=3).map(|n| PathBuf::from(format!("empty.{n:06}"))).collect();
            assert_eq!(names, want, "no temporary file left");
            for n in 1..=3 {
                let path = format!("/data/pool/empty.{n:06}");
                assert_eq!(sim.durable_contents(&path), Some(vec![0u8; 3000]), "{path}");
            }
        }
    }

    #[test]
    fn stops_at_the_first_existing_file() {
        let sim = SimVfs::new();
        sim.create_dir_all(Path::new("/data/pool")).expect("mkdir");
        let f = sim.open(Path::new("/data/pool/empty.000003"), OpenMode::CreateNew).expect("f");
        f.write_at(b"keep", 0).expect("write");
        let err = run_on(&sim, &args(2, 5, 100), false).expect_err("must stop");
        match err {
            AllocError::Exists { path, created } => {
                assert_eq!(path, Path::new("/data/pool/empty.000003"));
                assert_eq!(created, 1);
            }
            other => panic!("unexpected error {other}"),
        }
        assert!(sim.exists(Path::new("/data/pool/empty.000002")).expect("exists"));
        assert_eq!(sim.contents("/data/pool/empty.000003").as_deref(), Some(&b"keep"[..]));
        assert!(!sim.exists(Path::new("/data/pool/empty.000004")).expect("exists"));
    }

    #[test]
    fn refuses_bad_arguments() {
        let sim = SimVfs::new();
        assert!(matches!(run_on(&sim, &args(3, 2, 1), false), Err(AllocError::Range { .. })));
        assert!(matches!(run_on(&sim, &args(1, 1_000_000, 1), false), Err(AllocError::Suffix(_))));
        assert!(matches!(run_on(&sim, &args(1, 1, 0), false), Err(AllocError::ZeroSize)));
    }

    /// At every crash point, a final name holds a complete durable file or does not exist,
    /// and a rerun from the first missing suffix completes the pool.
    #[test]
    fn a_crash_never_leaves_a_partial_final_file() {
        let size = 1500;
        for allocate in [true, false] {
            let clean = SimVfs::new();
            clean.set_allocate_supported(allocate);
            run_on(&clean, &args(1, 2, size), false).expect("clean run");
            let ops = clean.op_count();
            for k in 0..ops {
                for mode in
                    [CrashMode::DropUnsynced, CrashMode::KeepAll, CrashMode::Tear { seed: k }]
                {
                    let sim = SimVfs::new();
                    sim.set_allocate_supported(allocate);
                    sim.crash_at(k);
                    assert!(run_on(&sim, &args(1, 2, size), false).is_err());
                    let sim = sim.crash(mode);
                    let present: Vec<u32> = (1..=2)
                        .filter(|n| {
                            sim.exists(&paths(Path::new("/data/pool"), "empty", *n).0)
                                .expect("exists")
                        })
                        .collect();
                    for &n in &present {
                        let path = paths(Path::new("/data/pool"), "empty", n).0;
                        assert_eq!(
                            sim.contents(&path),
                            Some(vec![0u8; size as usize]),
                            "k={k} {mode:?}"
                        );
                    }
                    let start = match present.last() {
                        Some(&last) => {
                            assert_eq!(present, (1..=last).collect::<Vec<_>>(), "files in order");
                            last + 1
                        }
                        None => 1,
                    };
                    if start <= 2 {
                        run_on(&sim, &args(start, 2, size), false).expect("rerun completes");
                    }
                    for n in 1..=2 {
                        let path = paths(Path::new("/data/pool"), "empty", n).0;
                        assert_eq!(sim.durable_contents(&path), Some(vec![0u8; size as usize]));
                    }
                }
            }
        }
    }
}
