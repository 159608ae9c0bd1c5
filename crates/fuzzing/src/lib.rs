//! The stable-Rust side of binlogd's fuzzing (docs/fuzzing.md): runs one fuzz target over its
//! committed seed corpus and then over a bounded number of inputs mutated from it with a fixed
//! seed, so the normal test suite exercises every decoder of network and disk bytes. The long,
//! coverage-guided runs are cargo-fuzz's (`fuzz/`, nightly), over the same target functions.
//!
//! A fuzz target is a plain `fn(&[u8])` living in the crate whose decoder it drives (for
//! instance `binlog::fuzz::gtid_set_binary`); it must never panic, abort, allocate without
//! bound or hang on any input. Its corpus is `fuzz/corpus/<name>/` at the repository root (one
//! file per input, the layout cargo-fuzz reads and grows).
//!
//! Why hand-written: libFuzzer needs nightly and a sanitizer build, so it cannot run in the
//! stable test suite; `proptest` generates values, not mutations of real byte fixtures. The
//! mutations here are libFuzzer's classic ones (bit flips, interesting integers, erase, insert,
//! duplicate, splice, truncate), driven by xorshift64* with a fixed seed: a failure reproduces
//! with the same seed and count.
//!
//! Invariants: the run is deterministic for a given seed, corpus and count; it is bounded by
//! `iterations` and by `time_limit` (whichever is reached first); a panicking input is printed
//! (hex) and written to `target/fuzz-failures/<name>-<n>` before the panic is propagated.
//! [`LimitAlloc`] turns one allocation over its limit into an abort with a message, so an
//! allocation sized from an unchecked count fails the test even where the OS would grant it.

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How one target is exercised.
#[derive(Debug, Clone)]
pub struct Options {
    /// Mutated inputs to run after the corpus.
    pub iterations: u64,
    /// Stop mutating once this much time has passed (the corpus always runs whole).
    pub time_limit: Duration,
    /// The mutation generator's seed.
    pub seed: u64,
    /// Longest mutated input.
    pub max_len: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            iterations: env_u64("FUZZ_ITERATIONS").unwrap_or(200_000),
            time_limit: Duration::from_secs(env_u64("FUZZ_SECONDS").unwrap_or(8)),
            seed: env_u64("FUZZ_SEED").unwrap_or(0x5EED_0FB1_1A6D),
            max_len: 64 * 1024,
        }
    }
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok()?.parse().ok()
}

/// What a run did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Report {
    /// Corpus inputs run.
    pub corpus: usize,
    /// Mutated inputs run.
    pub mutations: u64,
}

/// The repository root (this crate is `crates/fuzzing`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The committed corpus directory of target `name`.
pub fn corpus_dir(name: &str) -> PathBuf {
    repo_root().join("fuzz/corpus").join(name)
}

/// Reads every file of `dir` (sorted by name, so runs are reproducible); none if it is absent.
pub fn read_dir_inputs(dir: &Path) -> Vec<Vec<u8>> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut paths: Vec<PathBuf> =
        entries.filter_map(|e| e.ok()).map(|e| e.path()).filter(|p| p.is_file()).collect();
    paths.sort();
    paths.into_iter().filter_map(|p| std::fs::read(p).ok()).collect()
}

/// Runs target `name` over its corpus (`fuzz/corpus/<name>/`) plus `extra` seeds, then over
/// mutations of them, with the default [`Options`]. Panics (naming the input) if the target
/// panics; panics too if there is no seed at all, so a missing corpus cannot pass unnoticed.
pub fn exercise(name: &str, extra: &[Vec<u8>], target: fn(&[u8])) -> Report {
    exercise_with(name, extra, target, &Options::default())
}

/// [`exercise`] with explicit options.
pub fn exercise_with(name: &str, extra: &[Vec<u8>], target: fn(&[u8]), opts: &Options) -> Report {
    let mut seeds = read_dir_inputs(&corpus_dir(name));
    seeds.extend(extra.iter().cloned());
    assert!(!seeds.is_empty(), "fuzz target {name}: no seed in {}", corpus_dir(name).display());
    for (i, input) in seeds.iter().enumerate() {
        run_one(name, &format!("seed-{i}"), input, target);
    }
    let mut rng = Rng::new(opts.seed);
    let started = Instant::now();
    let mut mutations = 0;
    while mutations < opts.iterations && started.elapsed() < opts.time_limit {
        let base = &seeds[rng.below(seeds.len())];
        let input = mutate(&mut rng, base, &seeds, opts.max_len);
        run_one(name, &format!("mutation-{mutations}"), &input, target);
        mutations += 1;
    }
    eprintln!(
        "fuzz target {name}: {} seeds, {mutations} mutations (seed {:#x}) in {:?}",
        seeds.len(),
        opts.seed,
        started.elapsed()
    );
    Report { corpus: seeds.len(), mutations }
}

fn run_one(name: &str, label: &str, input: &[u8], target: fn(&[u8])) {
    let outcome = std::panic::catch_unwind(|| target(input));
    if let Err(panic) = outcome {
        let dir = repo_root().join("target/fuzz-failures");
        let path = dir.join(format!("{name}-{label}"));
        let _ = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, input));
        eprintln!(
            "fuzz target {name} panicked on {label} ({} bytes, saved to {}): {}",
            input.len(),
            path.display(),
            hex(&input[..input.len().min(512)])
        );
        std::panic::resume_unwind(panic);
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// xorshift64*: small, fast, and the same on every platform.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator; seed 0 is replaced (xorshift never leaves 0).
    pub fn new(seed: u64) -> Rng {
        Rng(if seed == 0 { 0x9E37_79B9_7F4A_7C15 } else { seed })
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        assert!(n > 0, "below(0)");
        (self.next_u64() % n as u64) as usize
    }
}

/// Integers that make length and count fields interesting: boundaries, and the sizes that
/// overflow a multiplication by a record size.
const INTERESTING: &[u64] = &[
    0,
    1,
    0x7F,
    0x80,
    0xFF,
    0x100,
    0x7FFF,
    0xFFFF,
    0xFF_FFFF,
    0x100_0000,
    0x7FFF_FFFF,
    0xFFFF_FFFF,
    1 << 45,
    1 << 62,
    u64::MAX / 16,
    i64::MAX as u64,
    u64::MAX,
];

/// One input derived from `base`: 1 to 4 stacked mutations, at most `max_len` bytes.
pub fn mutate(rng: &mut Rng, base: &[u8], seeds: &[Vec<u8>], max_len: usize) -> Vec<u8> {
    let mut out = base.to_vec();
    for _ in 0..1 + rng.below(4) {
        match rng.below(10) {
            0 if !out.is_empty() => {
                let i = rng.below(out.len());
                out[i] ^= 1 << rng.below(8);
            }
            1 if !out.is_empty() => {
                let i = rng.below(out.len());
                out[i] = rng.next_u64() as u8;
            }
            2 if !out.is_empty() => {
                // An interesting integer, 1 to 8 bytes wide, little endian.
                let value = INTERESTING[rng.below(INTERESTING.len())].to_le_bytes();
                let width = [1, 2, 3, 4, 8][rng.below(5)];
                let at = rng.below(out.len());
                let end = (at + width).min(out.len());
                out[at..end].copy_from_slice(&value[..end - at]);
            }
            3 if !out.is_empty() => {
                let at = rng.below(out.len());
                let n = 1 + rng.below((out.len() - at).min(16));
                out.drain(at..at + n);
            }
            4 => {
                let at = rng.below(out.len() + 1);
                let n = 1 + rng.below(16);
                let bytes: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
                out.splice(at..at, bytes);
            }
            5 if !out.is_empty() => {
                // Duplicate a range (repeated records, lists longer than declared).
                let from = rng.below(out.len());
                let n = 1 + rng.below((out.len() - from).min(64));
                let piece = out[from..from + n].to_vec();
                let at = rng.below(out.len() + 1);
                out.splice(at..at, piece);
            }
            6 => {
                // Splice: this input's head, another seed's tail.
                let other = &seeds[rng.below(seeds.len())];
                let cut = rng.below(out.len() + 1);
                let from = rng.below(other.len() + 1);
                out.truncate(cut);
                out.extend_from_slice(&other[from..]);
            }
            7 => {
                let keep = rng.below(out.len() + 1);
                out.truncate(keep);
            }
            8 if !out.is_empty() => {
                let i = rng.below(out.len());
                out[i] = [0x00, 0xFF, 0x7F, 0x80, 0xFB, 0xFC, 0xFD, 0xFE][rng.below(8)];
            }
            _ => {
                // Length-prefixed field growth: raise one byte by a small amount.
                if !out.is_empty() {
                    let i = rng.below(out.len());
                    out[i] = out[i].wrapping_add(1 + rng.below(4) as u8);
                }
            }
        }
    }
    out.truncate(max_len);
    out
}

/// A global allocator that aborts, with a message, on one allocation over `LIMIT` bytes.
/// Fuzz test binaries install it (`#[global_allocator] static A: LimitAlloc<{1 << 30}> =
/// LimitAlloc;`) so an allocation sized by an unchecked count fails loudly and at once.
pub struct LimitAlloc<const LIMIT: usize>;

// SAFETY: forwards to `System` unchanged; only refuses (aborting) sizes over LIMIT.
unsafe impl<const LIMIT: usize> GlobalAlloc for LimitAlloc<LIMIT> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        check::<LIMIT>(layout.size());
        // SAFETY: the caller's contract is System's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        check::<LIMIT>(layout.size());
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        check::<LIMIT>(new_size);
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

fn check<const LIMIT: usize>(size: usize) {
    if size > LIMIT {
        // No allocation from here on: write the message straight to stderr.
        let mut msg = *b"fuzzing::LimitAlloc: allocation over the limit, aborting\n";
        // SAFETY: writing a valid buffer to fd 2.
        unsafe {
            libc_write(2, msg.as_mut_ptr(), msg.len());
        }
        std::process::abort();
    }
}

extern "C" {
    #[link_name = "write"]
    fn libc_write(fd: i32, buf: *mut u8, count: usize) -> isize;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutations_are_deterministic_and_bounded() {
        let seeds = vec![b"hello world".to_vec(), vec![0u8; 40]];
        let run = |seed| {
            let mut rng = Rng::new(seed);
            (0..500).map(|i| mutate(&mut rng, &seeds[i % 2], &seeds, 32)).collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
        assert!(run(7).iter().all(|m| m.len() <= 32));
    }

    #[test]
    fn a_panicking_target_fails_the_run() {
        fn target(data: &[u8]) {
            assert!(!data.contains(&0xAB), "found the byte");
        }
        let opts = Options {
            iterations: 100_000,
            time_limit: Duration::from_secs(10),
            seed: 1,
            max_len: 64,
        };
        let outcome = std::panic::catch_unwind(|| {
            exercise_with("selftest-does-not-exist", &[b"abc".to_vec()], target, &opts)
        });
        assert!(outcome.is_err(), "the mutation loop never produced 0xAB");
    }
}
