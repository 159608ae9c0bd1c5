//! The connection-level settings: [`ServerConfig`] (start values, given to the listener) and
//! [`Limits`] (the ones `SET GLOBAL` changes while the server runs), read by the listener and
//! by each connection.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use super::keys::ServerKeys;

/// Connection-level settings.
#[derive(Clone)]
pub struct ServerConfig {
    /// Version string in the handshake (`SELECT VERSION()` is the SQL layer's).
    pub server_version: String,
    /// Most connections open at once (`max_connections`); the next gets ER_CON_COUNT_ERROR.
    pub max_connections: usize,
    /// Largest packet accepted from a client (`max_allowed_packet`, bytes).
    pub max_allowed_packet: usize,
    /// Longest the connection phase may take (`connect_timeout`); a client still not
    /// authenticated by then is disconnected, so stalled clients cannot hold every slot.
    pub connect_timeout: Duration,
    /// TLS and RSA keys; without them, no CLIENT_SSL and no `caching_sha2_password` full
    /// authentication (only the fast path and `mysql_native_password`).
    pub keys: Option<Arc<ServerKeys>>,
    /// The connection registry (SHOW PROCESSLIST, KILL); the SQL layer reads the same one.
    pub processes: Arc<crate::processlist::ProcessList>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            server_version: binlog::files::SERVER_VERSION.to_string(),
            // mysqld's defaults.
            max_connections: 151,
            max_allowed_packet: 64 * 1024 * 1024,
            connect_timeout: Duration::from_secs(10),
            keys: None,
            processes: Arc::default(),
        }
    }
}

/// The limits `SET GLOBAL` may change while the server runs; [`ServerConfig`] gives their
/// start values. As in mysqld, a new `max_connections` applies to the next connection attempt
/// and a new `max_allowed_packet` to connections opened afterwards (the session value is
/// read-only and taken from the global at connect).
#[derive(Debug)]
pub struct Limits {
    max_connections: AtomicUsize,
    max_allowed_packet: AtomicUsize,
    /// `connect_timeout`, milliseconds (a new value applies to the next connection).
    connect_timeout_ms: AtomicU64,
}

/// The largest packet accepted before authentication. mysqld reads the handshake response
/// into its network buffer (`net_buffer_length`, 16 KiB, grown as needed) and bounds connect
/// attributes at 64 KiB (`performance_schema_session_connect_attrs_size` at most; the client
/// library refuses more); nothing legitimate before login comes near `max_allowed_packet`,
/// and accepting that much from anyone who opens a socket lets 40 strangers hold 1.3 GiB.
/// A longer packet is refused from its length header (ER_NET_PACKET_TOO_LARGE) before its
/// bytes are read.
pub const PRE_AUTH_MAX_PACKET: usize = 64 * 1024 + 8 * 1024;

/// The socket timeouts of one session, mysqld's variables (seconds in SQL): the connection
/// loop reads them after each command, so `SET SESSION` applies from the next one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// `net_read_timeout`: longest wait for the client's bytes within a command.
    pub net_read: Duration,
    /// `net_write_timeout`: longest wait for the client to take bytes of a result.
    pub net_write: Duration,
    /// `wait_timeout` (`interactive_timeout` for CLIENT_INTERACTIVE clients, copied into
    /// the session's `wait_timeout` at connect as mysqld does): longest idle time between
    /// commands.
    pub wait: Duration,
}

impl Default for Timeouts {
    /// mysqld's defaults: 30 s, 60 s, 8 hours.
    fn default() -> Self {
        Timeouts {
            net_read: Duration::from_secs(30),
            net_write: Duration::from_secs(60),
            wait: Duration::from_secs(28_800),
        }
    }
}

impl Limits {
    /// The start values from `config`.
    pub fn new(config: &ServerConfig) -> Self {
        Self {
            max_connections: AtomicUsize::new(config.max_connections),
            max_allowed_packet: AtomicUsize::new(config.max_allowed_packet),
            connect_timeout_ms: AtomicU64::new(config.connect_timeout.as_millis() as u64),
        }
    }

    /// `connect_timeout` in force.
    pub fn connect_timeout(&self) -> Duration {
        Duration::from_millis(self.connect_timeout_ms.load(Ordering::Relaxed))
    }

    /// `SET GLOBAL connect_timeout`.
    pub fn set_connect_timeout(&self, timeout: Duration) {
        self.connect_timeout_ms.store(timeout.as_millis() as u64, Ordering::Relaxed);
    }

    pub fn max_connections(&self) -> usize {
        self.max_connections.load(Ordering::Relaxed)
    }

    pub fn max_allowed_packet(&self) -> usize {
        self.max_allowed_packet.load(Ordering::Relaxed)
    }

    pub fn set_max_connections(&self, n: usize) {
        self.max_connections.store(n, Ordering::Relaxed);
    }

    pub fn set_max_allowed_packet(&self, n: usize) {
        self.max_allowed_packet.store(n, Ordering::Relaxed);
    }
}
