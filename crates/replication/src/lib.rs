//! Replication, both directions, in modules that name the side:
//! - [`source`] (with `tail`): binlogd as a source, the dump threads serving COM_REGISTER_SLAVE,
//!   COM_BINLOG_DUMP and COM_BINLOG_DUMP_GTID to replicas and CDC clients;
//! - [`replica`]: binlogd as a replica, its receiver (I/O thread), relay log and parallel
//!   applier (SQL thread and workers).
//!
//! The source side:
//!
//! - [`source`]: the dump protocol: request parsing, where a dump starts (file and position, or
//!   the first file whose PREVIOUS_GTIDS the replica already has), the stream (fake ROTATE,
//!   FORMAT_DESCRIPTION, events up to the synced end, rotations, heartbeats, EOF for
//!   non-blocking dumps) and MySQL's 1236 errors. Each dump reads the binlog on its own thread
//!   (the tailing reader blocks on a condition variable) and hands packets to the connection's
//!   task through a bounded channel, so a waiting dump never holds a runtime worker.
//! - [`tail`]: dumps that reached the synced end leave their thread and send, from their
//!   connection's task, the segments one shared reader publishes (each newly synced range
//!   read once into a reference-counted buffer); a dump that falls behind reads the file again.
//! - [`Replicas`]: the registered replicas `SHOW REPLICAS` lists.
//!
//! `docs/replication.md` states the decisions (what is sent, checksums, errors) with the MySQL
//! sources they follow.

pub mod fuzz;
pub mod replica;
pub mod source;
mod tail;

pub use source::{DumpVariables, Peer, Replicas, Source};
