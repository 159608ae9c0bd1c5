//! Runtime settings: one shared handle of atomics, read by the pipeline at each use, so
//! `SET GLOBAL` takes effect at the next group without any lock.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicU8, Ordering};

use crate::writeset::{DependencyTracking, DEFAULT_HISTORY_SIZE};

/// The commit variables (MySQL names). Clone the `Arc` to change them from anywhere.
#[derive(Debug)]
pub struct CommitConfig {
    sync_binlog: AtomicU32,
    binlog_order_commits: AtomicBool,
    binlog_max_flush_queue_time_us: AtomicU64,
    binlog_group_commit_sync_delay_us: AtomicU64,
    binlog_group_commit_sync_no_delay_count: AtomicU64,
    innodb_flush_log_at_trx_commit: AtomicU8,
    binlog_group_commit: AtomicBool,
    binlog_in_redo: AtomicBool,
    binlog_in_redo_sync_interval_ms: AtomicU64,
    /// A [`DependencyTracking`] as its index.
    binlog_transaction_dependency_tracking: AtomicU8,
    binlog_transaction_dependency_history_size: AtomicU64,
}

impl Default for CommitConfig {
    /// MySQL 8.0's durable defaults: sync_binlog=1, flush at commit 1, order commits ON,
    /// group commit on, binlog-in-redo off (its background sync every 10 ms when on),
    /// dependency tracking COMMIT_ORDER with a write-set history of 25 000.
    fn default() -> Self {
        CommitConfig {
            sync_binlog: AtomicU32::new(1),
            binlog_order_commits: AtomicBool::new(true),
            binlog_max_flush_queue_time_us: AtomicU64::new(0),
            binlog_group_commit_sync_delay_us: AtomicU64::new(0),
            binlog_group_commit_sync_no_delay_count: AtomicU64::new(0),
            innodb_flush_log_at_trx_commit: AtomicU8::new(1),
            binlog_group_commit: AtomicBool::new(true),
            binlog_in_redo: AtomicBool::new(false),
            binlog_in_redo_sync_interval_ms: AtomicU64::new(10),
            binlog_transaction_dependency_tracking: AtomicU8::new(
                DependencyTracking::CommitOrder as u8,
            ),
            binlog_transaction_dependency_history_size: AtomicU64::new(DEFAULT_HISTORY_SIZE),
        }
    }
}

macro_rules! knob {
    ($get:ident, $set:ident, $field:ident, $ty:ty, $doc:literal) => {
        #[doc = $doc]
        pub fn $get(&self) -> $ty {
            self.$field.load(Ordering::Relaxed)
        }
        #[doc = $doc]
        pub fn $set(&self, value: $ty) {
            self.$field.store(value, Ordering::Relaxed)
        }
    };
}

impl CommitConfig {
    knob!(
        sync_binlog,
        set_sync_binlog,
        sync_binlog,
        u32,
        "`sync_binlog`: 0 never fdatasync the binlog in the pipeline, N every N groups."
    );
    knob!(
        binlog_order_commits,
        set_binlog_order_commits,
        binlog_order_commits,
        bool,
        "`binlog_order_commits`: ON, the COMMIT-stage leader commits the group in order; OFF, each session commits itself."
    );
    knob!(
        binlog_max_flush_queue_time_us,
        set_binlog_max_flush_queue_time_us,
        binlog_max_flush_queue_time_us,
        u64,
        "`binlog_max_flush_queue_time` (µs): how long a FLUSH leader keeps taking late arrivals into its group (0: take the queue once)."
    );
    knob!(
        binlog_group_commit_sync_delay_us,
        set_binlog_group_commit_sync_delay_us,
        binlog_group_commit_sync_delay_us,
        u64,
        "`binlog_group_commit_sync_delay` (µs): the SYNC leader waits this long for more groups."
    );
    knob!(
        binlog_group_commit_sync_no_delay_count,
        set_binlog_group_commit_sync_no_delay_count,
        binlog_group_commit_sync_no_delay_count,
        u64,
        "`binlog_group_commit_sync_no_delay_count`: stop the sync delay once this many transactions wait (0: no limit)."
    );
    knob!(
        innodb_flush_log_at_trx_commit,
        set_innodb_flush_log_at_trx_commit,
        innodb_flush_log_at_trx_commit,
        u8,
        "`innodb_flush_log_at_trx_commit`: 1 fdatasync the redo per group, 2 write only, 0 neither (a background flush once a second)."
    );
    knob!(
        binlog_group_commit,
        set_binlog_group_commit,
        binlog_group_commit,
        bool,
        "Group commit; OFF serializes commits (the old prepare_commit_mutex) for the seeds' before curves."
    );
    knob!(
        binlog_in_redo,
        set_binlog_in_redo,
        binlog_in_redo,
        bool,
        "`binlog_in_redo` (seed 002): the group's binlog bytes go into the redo; the binlog file is synced in the background."
    );
    knob!(
        binlog_in_redo_sync_interval_ms,
        set_binlog_in_redo_sync_interval_ms,
        binlog_in_redo_sync_interval_ms,
        u64,
        "Background binlog sync period in binlog-in-redo mode (ms). Read at open; 0 runs no background thread (tests call `Coordinator::sync_binlog_now`)."
    );
    knob!(
        binlog_transaction_dependency_history_size,
        set_binlog_transaction_dependency_history_size,
        binlog_transaction_dependency_history_size,
        u64,
        "`binlog_transaction_dependency_history_size`: the most row hashes the WRITESET history keeps before it is cleared."
    );

    /// `binlog_transaction_dependency_tracking`: how the FLUSH stage computes `last_committed`.
    pub fn binlog_transaction_dependency_tracking(&self) -> DependencyTracking {
        DependencyTracking::from_index(
            self.binlog_transaction_dependency_tracking.load(Ordering::Relaxed),
        )
    }

    /// Sets `binlog_transaction_dependency_tracking` (from the next transaction flushed).
    pub fn set_binlog_transaction_dependency_tracking(&self, mode: DependencyTracking) {
        self.binlog_transaction_dependency_tracking.store(mode as u8, Ordering::Relaxed)
    }
}
