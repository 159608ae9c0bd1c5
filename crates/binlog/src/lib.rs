//! The binary log of binlogd: MySQL binlog v4 events (`event`), GTIDs and GTID sets (`gtid`),
//! and the binlog file set (index, rotation, purge, preallocation, tail truncation, the
//! writer and the tailing reader).
//!
//! Nothing here knows about threads beyond the writer/reader hand-off, engines or the network.
pub mod error;
pub mod event;
mod event_type;
pub mod files;
pub mod fuzz;
pub mod gtid;
