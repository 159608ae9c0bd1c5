//! The engine's fuzz targets (`engine::fuzz`) on stable Rust: each over its seeds, then over a
//! fixed-seed mutation loop (bit flips, interesting integers over 4- and 8-byte fields, erase,
//! duplicate, truncate). Bounded in count and time. When the workspace's `fuzzing` crate (docs/
//! fuzzing.md) is present this is the loop `fuzzing::exercise` runs; this copy keeps the
//! engine's targets runnable on their own.

use std::time::{Duration, Instant};

const ITERATIONS: usize = 20_000;
const MAX_TIME: Duration = Duration::from_secs(8);

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        // SplitMix64.
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn mutate(rng: &mut Rng, input: &mut Vec<u8>) {
    const INTERESTING: [u64; 8] = [0, 1, 0x7f, 0xff, 0xffff, 1 << 31, 1 << 45, u64::MAX];
    for _ in 0..1 + rng.below(4) {
        let len = input.len();
        match rng.below(6) {
            0 if len > 0 => {
                let i = rng.below(len);
                input[i] ^= 1 << rng.below(8);
            }
            1 if len >= 8 => {
                let i = rng.below(len - 7);
                let v = INTERESTING[rng.below(INTERESTING.len())];
                input[i..i + 8].copy_from_slice(&v.to_le_bytes());
            }
            2 if len >= 4 => {
                let i = rng.below(len - 3);
                let v = INTERESTING[rng.below(INTERESTING.len())] as u32;
                input[i..i + 4].copy_from_slice(&v.to_le_bytes());
            }
            3 if len > 0 => {
                let i = rng.below(len);
                let n = rng.below(len - i).min(64);
                input.drain(i..i + n);
            }
            4 if len > 0 && len < 1 << 20 => {
                let i = rng.below(len);
                let n = rng.below(len - i).min(64);
                let chunk = input[i..i + n].to_vec();
                let at = rng.below(len);
                input.splice(at..at, chunk);
            }
            _ => input.truncate(rng.below(len + 1)),
        }
    }
}

fn exercise(name: &str, target: fn(&[u8])) {
    let seeds: Vec<Vec<u8>> =
        engine::fuzz::seeds().into_iter().filter(|(n, _)| *n == name).map(|(_, s)| s).collect();
    assert!(!seeds.is_empty(), "{name}: seeds");
    for s in &seeds {
        target(s);
    }
    let mut rng = Rng(0x5eed_0017);
    let started = Instant::now();
    for i in 0..ITERATIONS {
        let mut input = seeds[rng.below(seeds.len())].clone();
        mutate(&mut rng, &mut input);
        let result = std::panic::catch_unwind(|| target(&input));
        if result.is_err() {
            let path = std::env::temp_dir().join(format!("engine-fuzz-{name}-{i}.bin"));
            let _ = std::fs::write(&path, &input);
            panic!("{name}: input {i} panicked (saved to {})", path.display());
        }
        if started.elapsed() > MAX_TIME {
            break;
        }
    }
}

#[test]
fn redo_records() {
    exercise("redo_records", engine::fuzz::redo_records);
}

#[test]
fn checkpoint() {
    exercise("checkpoint", engine::fuzz::checkpoint);
}
