//! The MySQL client/server protocol, server side, on tokio.
//!
//! Layers, bottom up:
//! - [`packet`]: framing (sequence ids, 16 MiB splitting, `max_allowed_packet`), TCP or TLS,
//!   buffered writes flushed once per response;
//! - [`auth`] and [`keys`]: `caching_sha2_password` and `mysql_native_password`, stored password
//!   forms, the fast-auth cache; TLS certificates and the RSA key pair, made on first start;
//! - [`conn`]: the connection phase (handshake v10, SSLRequest, auth switch) and the command
//!   loop (COM_QUERY, COM_STMT_*, COM_PING, ..., replication commands routed to the session);
//! - [`results`] and [`stmt`]: OK/ERR/EOF, text and binary result sets, binary parameters;
//! - [`server`]: the listener, `max_connections`, one task per connection; [`settings`]: the
//!   connection-level settings and the limits `SET GLOBAL` changes;
//! - [`session`]: the traits the SQL layer implements ([`Backend`], [`BackendSession`]);
//! - [`processlist`]: the registered connections (`SHOW PROCESSLIST`, `KILL`), which the
//!   connection loop updates and the SQL layer reads.
//!
//! Packet layouts follow the MySQL source documentation ("Client/Server Protocol" in
//! dev.mysql.com/doc/dev/mysql-server) and MariaDB's "Client/Server Protocol" pages; each
//! hand-encoded packet carries a `// Format:` line. `mysql_common` provides the chunk codec and
//! the handshake, handshake response, auth switch and column definition packets.
//!
//! Invariants of the whole layer: a connection task never panics on client input (every length
//! from the wire is checked; parsing goes through `ParseBuf`'s checked calls); a client error is
//! answered with ERR and the connection continues; a fatal one closes it; no connection blocks
//! another (each is its own task, all waits are async).

pub mod auth;
pub mod binary_literals;
pub mod conn;
pub mod error;
pub mod fuzz;
pub mod keys;
pub mod packet;
pub mod processlist;
pub mod results;
pub mod rewrite;
pub mod server;
pub mod session;
pub mod settings;
pub mod stats;
pub mod stmt;
pub mod tls_status;

pub use auth::{AuthCache, AuthPlugin, Sha2Hash, StoredPassword, UserAuth};
pub use error::{ErrPacket, Error, Result};
pub use keys::ServerKeys;
pub use packet::PacketWriter;
pub use results::{OkResult, ResultWriter};
pub use server::Listener;
pub use session::{Backend, BackendSession, ConnectionInfo, PreparedStatement, ReplicationCommand};
pub use settings::{Limits, ServerConfig, Timeouts, PRE_AUTH_MAX_PACKET};
pub use stats::Stats;
pub use tls_status::{TlsContext, TlsSession};

/// The `mysql_common` types that appear in this layer's API (column definitions, values,
/// flags), re-exported so the SQL layer uses the same versions.
pub use mysql_common::constants::{CapabilityFlags, ColumnFlags, ColumnType, StatusFlags};
pub use mysql_common::packets::Column;
pub use mysql_common::Value;
