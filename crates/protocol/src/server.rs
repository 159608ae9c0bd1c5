//! The listener: accepts connections, enforces `max_connections`, and runs each connection as
//! its own tokio task (no thread per connection).

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, UnixListener, UnixStream};

use super::auth::AuthCache;
use super::conn::{self, Origin, Shared, Slot};
use super::packet::Plain;
use super::session::Backend;
use super::settings::{Limits, ServerConfig};
use super::stats::Stats;

/// A MySQL protocol server over a [`Backend`].
pub struct Listener<B: Backend> {
    shared: Arc<Shared<B>>,
}

impl<B: Backend> Listener<B> {
    /// A server answering with `backend`'s sessions.
    pub fn new(config: ServerConfig, backend: B) -> Self {
        let limits = Arc::new(Limits::new(&config));
        Self::with_limits(config, backend, limits)
    }

    /// As [`Listener::new`], with live limits the caller keeps a handle to (`SET GLOBAL`).
    pub fn with_limits(config: ServerConfig, backend: B, limits: Arc<Limits>) -> Self {
        Self {
            shared: Arc::new(Shared {
                backend,
                config,
                limits,
                stats: Arc::new(Stats::default()),
                auth_cache: AuthCache::default(),
                next_connection_id: AtomicU32::new(1),
                open_connections: AtomicUsize::new(0),
            }),
        }
    }

    /// The server's counters.
    pub fn stats(&self) -> &Arc<Stats> {
        &self.shared.stats
    }

    /// The `caching_sha2_password` cache (to clear on FLUSH PRIVILEGES).
    pub fn auth_cache(&self) -> &AuthCache {
        &self.shared.auth_cache
    }

    /// The backend.
    pub fn backend(&self) -> &B {
        &self.shared.backend
    }

    /// Accepts connections on `listener` until the task is dropped. Accept errors (out of file
    /// descriptors, a connection reset before accept) are logged and retried after a pause, as
    /// they pass.
    pub async fn serve(&self, listener: TcpListener) {
        self.serve_all(listener, None).await
    }

    /// [`Listener::serve`] on a TCP listener and, if given, a Unix socket listener (mysqld's
    /// `socket`), whose clients are `localhost`.
    pub async fn serve_all(&self, listener: TcpListener, unix: Option<UnixListener>) {
        loop {
            let accepted = tokio::select! {
                r = listener.accept() => r.map(|(s, peer)| (Plain::Tcp(s), Origin::Tcp(peer))),
                r = accept_unix(unix.as_ref()) => r.map(|s| (Plain::Unix(s), Origin::Unix)),
            };
            let (socket, peer) = match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    log::warn!("accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            let shared = self.shared.clone();
            shared.stats.connection_attempt();
            let open = shared.open_connections.fetch_add(1, Ordering::AcqRel);
            let slot = Slot(shared.clone());
            // As mysqld's `check_and_incr_conn_count`: max_connections + 1 sockets get the
            // handshake, half-open ones included (connect_timeout frees their slots); after
            // login the last one is kept for an administrator (conn.rs).
            if open > shared.limits.max_connections() {
                tokio::spawn(async move {
                    conn::refuse(socket, &slot.0).await;
                    drop(slot);
                });
                continue;
            }
            tokio::spawn(conn::run(slot, socket, peer));
        }
    }
}

/// The next connection on the Unix socket listener; never ready without one.
async fn accept_unix(unix: Option<&UnixListener>) -> std::io::Result<UnixStream> {
    match unix {
        Some(l) => l.accept().await.map(|(s, _)| s),
        None => std::future::pending().await,
    }
}
