//! binlogd's commit layer: the ordered group-commit pipeline between the engine's redo log
//! and the binary log (two-phase commit), GTID allocation, the logical clock, binlog-in-redo,
//! XA crash recovery and commit statistics. Generic over an [`Engine`]; knows nothing of SQL
//! or the network. `docs/commit.md` summarizes the protocol and the crash cases.
//!
//! Layout:
//! - `engine_api.rs`: the [`Engine`] trait and its implementation for `engine::Engine`.
//! - `coordinator.rs` and `coordinator/`: the [`Coordinator`] (the API, one
//!   [`CommitRequest`] per commit), the pipeline's stages, recovery, binlog-in-redo, and how
//!   a panic poisons the pipeline; its module doc states the protocol, the invariants and
//!   the file layout.
//! - `cache.rs`: the session's [`BinlogCache`] (TABLE_MAP + ROWS events from engine rows).
//! - `writeset.rs`: write sets and WRITESET dependency tracking (`last_committed`).
//! - `gtid_state.rs`: `gtid_executed` and the owned set of explicit GTIDs.
//! - `payload.rs`: the binlog payload record kept in the redo.
//! - `config.rs`, `stats.rs`: runtime variables and counters.
//!
//! Session use:
//! ```text
//! let mut txn = coord.begin();
//! engine.insert(&mut txn, table, row.clone())?;  cache.insert(&schema, &row)?;
//! let done = coord.commit(CommitRequest::rows(txn, cache))?;  // durable and committed on return
//! ```

mod cache;
mod cache_bytes;
mod config;
mod coordinator;
mod engine_api;
mod error;
mod gtid_state;
mod payload;
mod stats;
mod writeset;

pub use cache::{
    datetime_from_binlog, datetime_to_binlog, table_map, time_from_binlog, time_to_binlog,
    BinlogCache, MappedTable,
};
pub use config::CommitConfig;
pub use coordinator::{
    BinlogSnapshot, CommitRequest, Committed, Coordinator, GtidChoice, OpenOptions, PendingCommit,
    QueryContext, RecoveryOutcome, Work,
};
pub use engine_api::Engine;
pub use error::{Error, ErrorClass, Result};
pub use gtid_state::{GtidNext, OwnedGtid};
pub use stats::{CommitStats, Stage, GROUP_SIZE_BUCKETS};
/// The binlog file set's directory inside the data directory.
pub const BINLOG_DIR: &str = "binlog";

pub use writeset::{DependencyTracking, WriteSet, DEFAULT_HISTORY_SIZE, MAX_HISTORY_SIZE};
