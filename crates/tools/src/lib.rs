//! binlogd's tools, the subcommands beside `serve`. Each stands on the layers below the server
//! (binlog files, the engine, the commit pipeline) or talks to a server as a client, and none
//! is linked into the server's own code paths:
//! - [`dump`]: `binlogd dump`, read binlog files one event per line (mysqlbinlog's role);
//! - [`alloc`]: `binlogd alloc`, a static pool of preallocated binlog files (seed 004's
//!   mysqlbinlogalloc);
//! - [`bench_fsync`], [`bench_commit`]: `binlogd bench fsync|commit`, this machine's fdatasync
//!   table and the commit pipeline in process;
//! - [`torture`]: `binlogd torture`, the kill -9 crash campaign against a child server.

pub mod alloc;
pub mod bench_commit;
pub mod bench_fsync;
pub mod dump;
pub mod torture;
