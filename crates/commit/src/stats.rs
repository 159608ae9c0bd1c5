//! Commit statistics: relaxed atomic counters, cheap to read at any time. The latency
//! histogram is recorded once per group by the leader that wakes it (one short lock per
//! group, not per commit).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use hdrhistogram::Histogram;
use parking_lot::Mutex;

/// Group-size histogram buckets: 1, 2, 3-4, 5-8, … 1025+.
pub const GROUP_SIZE_BUCKETS: usize = 12;

/// The parts of a group's cycle, timed by the leaders (see [`CommitStats::cycle_groups`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CyclePart {
    /// From the previous FLUSH group's end (flush lock about to be released) to this group's
    /// start (lock held, queue taken): the hand-over between leaders.
    Gap = 0,
    /// GTIDs, logical clock and event encoding of the group (and its redo payload record).
    Encode = 1,
    /// The redo made durable up to the group (write + fdatasync, or write only, per
    /// `innodb_flush_log_at_trx_commit`).
    RedoFlush = 2,
    /// The group's one binlog write.
    BinlogWrite = 3,
    /// The SYNC stage (binlog fdatasync per `sync_binlog`; nothing in binlog-in-redo mode).
    Sync = 4,
    /// The COMMIT stage: the group's engine commits under the commit lock.
    Commit = 5,
    /// From the COMMIT leader's wake-up call to the woken follower running (per follower).
    Wake = 6,
}

const CYCLE_PARTS: usize = 7;

/// The pipeline stages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    Flush = 0,
    Sync = 1,
    Commit = 2,
}

pub(crate) struct Stats {
    pub commits: AtomicU64,
    pub failed_commits: AtomicU64,
    pub groups: [AtomicU64; 3],
    pub group_size: [AtomicU64; GROUP_SIZE_BUCKETS],
    pub binlog_fsyncs: AtomicU64,
    /// Time sessions spent waiting to get a stage's lock (as leaders) and followers waiting
    /// for their leader, per stage, in nanoseconds.
    pub wait_ns: [AtomicU64; 3],
    pub latency_us: Mutex<Histogram<u64>>,
    /// Nanoseconds per [`CyclePart`], summed, and how many were timed.
    cycle_ns: [AtomicU64; CYCLE_PARTS],
    cycle_n: [AtomicU64; CYCLE_PARTS],
}

impl Stats {
    pub fn new() -> Stats {
        Stats {
            commits: AtomicU64::new(0),
            failed_commits: AtomicU64::new(0),
            groups: Default::default(),
            group_size: Default::default(),
            binlog_fsyncs: AtomicU64::new(0),
            wait_ns: Default::default(),
            cycle_ns: Default::default(),
            cycle_n: Default::default(),
            latency_us: Mutex::new(
                Histogram::new_with_bounds(1, 60_000_000, 3)
                    .expect("static histogram bounds are valid"),
            ),
        }
    }

    pub fn group(&self, stage: Stage, size: usize) {
        self.groups[stage as usize].fetch_add(1, Ordering::Relaxed);
        if stage == Stage::Flush {
            let bucket = (usize::BITS - (size.max(1) - 1).leading_zeros()) as usize;
            self.group_size[bucket.min(GROUP_SIZE_BUCKETS - 1)].fetch_add(1, Ordering::Relaxed);
        }
    }

    pub fn waited(&self, stage: Stage, d: Duration) {
        self.wait_ns[stage as usize].fetch_add(d.as_nanos() as u64, Ordering::Relaxed);
    }

    /// Adds one timing of a cycle part (relaxed atomics: two adds, no lock).
    pub fn cycle(&self, part: CyclePart, d: Duration) {
        self.cycle_ns[part as usize].fetch_add(d.as_nanos() as u64, Ordering::Relaxed);
        self.cycle_n[part as usize].fetch_add(1, Ordering::Relaxed);
    }

    pub fn record_latencies(&self, latencies: &[Duration]) {
        let mut h = self.latency_us.lock();
        for l in latencies {
            h.saturating_record((l.as_micros() as u64).max(1));
        }
    }
}

/// A copy of the counters.
#[derive(Debug, Clone, PartialEq)]
pub struct CommitStats {
    /// Transactions acknowledged (committed through the binlog).
    pub commits: u64,
    /// Transactions that got an error from the pipeline.
    pub failed_commits: u64,
    /// Groups led in FLUSH, SYNC, COMMIT.
    pub groups_flush: u64,
    pub groups_sync: u64,
    pub groups_commit: u64,
    /// FLUSH groups by size: bucket i counts groups of 2^(i-1)+1 ..= 2^i (bucket 0: size 1).
    pub group_size_histogram: [u64; GROUP_SIZE_BUCKETS],
    pub binlog_fsyncs: u64,
    pub redo_fsyncs: u64,
    pub wait_flush_ns: u64,
    pub wait_sync_ns: u64,
    pub wait_commit_ns: u64,
    /// Commit latency percentiles (µs) since open.
    pub latency_p50_us: u64,
    pub latency_p99_us: u64,
    pub latency_max_us: u64,
    /// The group cycle, summed over the groups timed (divide by the count for a mean): FLUSH
    /// groups timed, then nanoseconds in each part (see `CyclePart`): leader hand-over gap,
    /// encoding, redo flush (write + fdatasync), binlog write, SYNC stage, COMMIT stage.
    pub cycle_groups: u64,
    pub cycle_gap_ns: u64,
    pub cycle_encode_ns: u64,
    pub cycle_redo_flush_ns: u64,
    pub cycle_binlog_write_ns: u64,
    /// SYNC and COMMIT stages run once per group they lead: `cycle_syncs`, `cycle_commits`.
    pub cycle_syncs: u64,
    pub cycle_sync_ns: u64,
    pub cycle_commits: u64,
    pub cycle_commit_ns: u64,
    /// Followers woken by a COMMIT leader, and the nanoseconds from the wake-up call to each
    /// running again.
    pub cycle_wakes: u64,
    pub cycle_wake_ns: u64,
}

impl CommitStats {
    /// Transactions per FLUSH group.
    pub fn avg_group_size(&self) -> f64 {
        if self.groups_flush == 0 {
            0.0
        } else {
            self.commits as f64 / self.groups_flush as f64
        }
    }
}

impl Stats {
    pub fn snapshot(&self, redo_fsyncs: u64) -> CommitStats {
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        let (p50, p99, max) = {
            let h = self.latency_us.lock();
            (h.value_at_quantile(0.5), h.value_at_quantile(0.99), h.max())
        };
        CommitStats {
            commits: get(&self.commits),
            failed_commits: get(&self.failed_commits),
            groups_flush: get(&self.groups[0]),
            groups_sync: get(&self.groups[1]),
            groups_commit: get(&self.groups[2]),
            group_size_histogram: std::array::from_fn(|i| get(&self.group_size[i])),
            binlog_fsyncs: get(&self.binlog_fsyncs),
            redo_fsyncs,
            wait_flush_ns: get(&self.wait_ns[0]),
            wait_sync_ns: get(&self.wait_ns[1]),
            wait_commit_ns: get(&self.wait_ns[2]),
            latency_p50_us: p50,
            latency_p99_us: p99,
            latency_max_us: max,
            cycle_groups: get(&self.cycle_n[CyclePart::Encode as usize]),
            cycle_gap_ns: get(&self.cycle_ns[CyclePart::Gap as usize]),
            cycle_encode_ns: get(&self.cycle_ns[CyclePart::Encode as usize]),
            cycle_redo_flush_ns: get(&self.cycle_ns[CyclePart::RedoFlush as usize]),
            cycle_binlog_write_ns: get(&self.cycle_ns[CyclePart::BinlogWrite as usize]),
            cycle_syncs: get(&self.cycle_n[CyclePart::Sync as usize]),
            cycle_sync_ns: get(&self.cycle_ns[CyclePart::Sync as usize]),
            cycle_commits: get(&self.cycle_n[CyclePart::Commit as usize]),
            cycle_commit_ns: get(&self.cycle_ns[CyclePart::Commit as usize]),
            cycle_wakes: get(&self.cycle_n[CyclePart::Wake as usize]),
            cycle_wake_ns: get(&self.cycle_ns[CyclePart::Wake as usize]),
        }
    }
}
