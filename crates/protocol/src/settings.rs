//! The connection-level settings: [`ServerConfig`] (start values, given to the listener) and
//! [`Limits`] (the ones `SET GLOBAL` changes while the server runs), read by the listener and
//! by each connection.

use std::sync::atomic::{AtomicUsize, Ordering};
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
}

impl Limits {
    /// The start values from `config`.
    pub fn new(config: &ServerConfig) -> Self {
        Self {
            max_connections: AtomicUsize::new(config.max_connections),
            max_allowed_packet: AtomicUsize::new(config.max_allowed_packet),
        }
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
