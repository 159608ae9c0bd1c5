//! Connection and command counters for `SHOW GLOBAL STATUS`.
//!
//! Plain relaxed atomics: each is a sum or a gauge read on its own, never compared with another
//! counter, so no ordering between them is needed. Names follow MySQL's status variables where
//! MySQL has one (`Threads_connected`, `Connections`, `Aborted_connects`, `Aborted_clients`,
//! `Bytes_received`, `Bytes_sent`, `Max_used_connections`, `Questions`, `Com_stmt_*`,
//! `Com_change_db`); the other protocol commands are counted as `Com_<command name>`, and
//! `caching_sha2_password` logins as `Caching_sha2_password_fast_auths` / `_full_auths`
//! (binlogd's names).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Protocol command bytes (`enum_server_command` in mysql-server's `my_command.h`).
pub mod command {
    pub const QUIT: u8 = 0x01;
    pub const INIT_DB: u8 = 0x02;
    pub const QUERY: u8 = 0x03;
    pub const FIELD_LIST: u8 = 0x04;
    pub const STATISTICS: u8 = 0x09;
    pub const PING: u8 = 0x0e;
    pub const CHANGE_USER: u8 = 0x11;
    pub const BINLOG_DUMP: u8 = 0x12;
    pub const REGISTER_SLAVE: u8 = 0x15;
    pub const STMT_PREPARE: u8 = 0x16;
    pub const STMT_EXECUTE: u8 = 0x17;
    pub const STMT_SEND_LONG_DATA: u8 = 0x18;
    pub const STMT_CLOSE: u8 = 0x19;
    pub const STMT_RESET: u8 = 0x1a;
    pub const SET_OPTION: u8 = 0x1b;
    pub const STMT_FETCH: u8 = 0x1c;
    pub const BINLOG_DUMP_GTID: u8 = 0x1e;
    pub const RESET_CONNECTION: u8 = 0x1f;
}

/// Counter names for the commands this layer serves, by command byte.
const COMMAND_COUNTERS: [(u8, &str); 16] = [
    (command::QUIT, "Com_quit"),
    (command::INIT_DB, "Com_change_db"),
    (command::QUERY, "Com_query"),
    (command::FIELD_LIST, "Com_field_list"),
    (command::STATISTICS, "Com_statistics"),
    (command::PING, "Com_ping"),
    (command::BINLOG_DUMP, "Com_binlog_dump"),
    (command::REGISTER_SLAVE, "Com_register_slave"),
    (command::STMT_PREPARE, "Com_stmt_prepare"),
    (command::STMT_EXECUTE, "Com_stmt_execute"),
    (command::STMT_SEND_LONG_DATA, "Com_stmt_send_long_data"),
    (command::STMT_CLOSE, "Com_stmt_close"),
    (command::STMT_RESET, "Com_stmt_reset"),
    (command::SET_OPTION, "Com_set_option"),
    (command::BINLOG_DUMP_GTID, "Com_binlog_dump_gtid"),
    (command::RESET_CONNECTION, "Com_reset_connection"),
];

/// Server-wide counters, shared by every connection.
#[derive(Debug)]
pub struct Stats {
    started: Instant,
    threads_connected: AtomicU64,
    max_used_connections: AtomicU64,
    connections: AtomicU64,
    aborted_connects: AtomicU64,
    aborted_clients: AtomicU64,
    bytes_received: AtomicU64,
    bytes_sent: AtomicU64,
    questions: AtomicU64,
    unknown_commands: AtomicU64,
    sha2_fast_auths: AtomicU64,
    sha2_full_auths: AtomicU64,
    commands: [AtomicU64; 256],
}

impl Default for Stats {
    fn default() -> Self {
        Self {
            started: Instant::now(),
            threads_connected: AtomicU64::new(0),
            max_used_connections: AtomicU64::new(0),
            connections: AtomicU64::new(0),
            aborted_connects: AtomicU64::new(0),
            aborted_clients: AtomicU64::new(0),
            bytes_received: AtomicU64::new(0),
            bytes_sent: AtomicU64::new(0),
            questions: AtomicU64::new(0),
            unknown_commands: AtomicU64::new(0),
            sha2_fast_auths: AtomicU64::new(0),
            sha2_full_auths: AtomicU64::new(0),
            commands: std::array::from_fn(|_| AtomicU64::new(0)),
        }
    }
}

impl Stats {
    pub(crate) fn add_bytes_received(&self, n: u64) {
        self.bytes_received.fetch_add(n, Ordering::Relaxed);
    }

    pub(crate) fn add_bytes_sent(&self, n: u64) {
        self.bytes_sent.fetch_add(n, Ordering::Relaxed);
    }

    /// A connection attempt was accepted on the socket (`Connections`).
    pub(crate) fn connection_attempt(&self) {
        self.connections.fetch_add(1, Ordering::Relaxed);
    }

    /// A connection attempt failed before its session started (`Aborted_connects`).
    pub(crate) fn aborted_connect(&self) {
        self.aborted_connects.fetch_add(1, Ordering::Relaxed);
    }

    /// An established session ended without COM_QUIT (`Aborted_clients`).
    pub(crate) fn aborted_client(&self) {
        self.aborted_clients.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn thread_connected(&self) {
        let now = self.threads_connected.fetch_add(1, Ordering::Relaxed) + 1;
        self.max_used_connections.fetch_max(now, Ordering::Relaxed);
    }

    pub(crate) fn thread_disconnected(&self) {
        self.threads_connected.fetch_sub(1, Ordering::Relaxed);
    }

    pub(crate) fn command(&self, command: u8) {
        self.commands[usize::from(command)].fetch_add(1, Ordering::Relaxed);
        if matches!(command, command::QUERY | command::STMT_EXECUTE | command::INIT_DB) {
            self.questions.fetch_add(1, Ordering::Relaxed);
        }
    }

    pub(crate) fn unknown_command(&self) {
        self.unknown_commands.fetch_add(1, Ordering::Relaxed);
    }

    /// A `caching_sha2_password` login succeeded on the fast path (or, `full`, by full
    /// authentication).
    pub(crate) fn sha2_auth(&self, full: bool) {
        let counter = if full { &self.sha2_full_auths } else { &self.sha2_fast_auths };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// Successful `caching_sha2_password` logins: (fast path, full authentication).
    pub fn sha2_auths(&self) -> (u64, u64) {
        (self.sha2_fast_auths.load(Ordering::Relaxed), self.sha2_full_auths.load(Ordering::Relaxed))
    }

    /// Sessions currently authenticated (`Threads_connected`).
    pub fn threads_connected(&self) -> u64 {
        self.threads_connected.load(Ordering::Relaxed)
    }

    /// Connection attempts since start (`Connections`).
    pub fn connections(&self) -> u64 {
        self.connections.load(Ordering::Relaxed)
    }

    /// Failed connection attempts since start (`Aborted_connects`).
    pub fn aborted_connects(&self) -> u64 {
        self.aborted_connects.load(Ordering::Relaxed)
    }

    /// Times a command was received, by command byte.
    pub fn command_count(&self, command: u8) -> u64 {
        self.commands[usize::from(command)].load(Ordering::Relaxed)
    }

    /// Seconds since the counters were made (`Uptime`).
    pub fn uptime_secs(&self) -> u64 {
        self.started.elapsed().as_secs()
    }

    /// Statements received (`Questions`).
    pub fn questions(&self) -> u64 {
        self.questions.load(Ordering::Relaxed)
    }

    /// All counters as `(name, value)`, in the spelling of `SHOW GLOBAL STATUS`.
    pub fn snapshot(&self) -> Vec<(&'static str, u64)> {
        let load = |c: &AtomicU64| c.load(Ordering::Relaxed);
        let mut out = vec![
            ("Aborted_clients", load(&self.aborted_clients)),
            ("Aborted_connects", load(&self.aborted_connects)),
            ("Bytes_received", load(&self.bytes_received)),
            ("Bytes_sent", load(&self.bytes_sent)),
            ("Caching_sha2_password_fast_auths", load(&self.sha2_fast_auths)),
            ("Caching_sha2_password_full_auths", load(&self.sha2_full_auths)),
            ("Com_unknown", load(&self.unknown_commands)),
            ("Connections", load(&self.connections)),
            ("Max_used_connections", load(&self.max_used_connections)),
            ("Questions", load(&self.questions)),
            ("Threads_connected", load(&self.threads_connected)),
            ("Uptime", self.uptime_secs()),
        ];
        out.extend(COMMAND_COUNTERS.iter().map(|&(cmd, name)| (name, self.command_count(cmd))));
        out.sort_by_key(|&(name, _)| name);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshot_names_and_counts() {
        let stats = Stats::default();
        stats.command(command::QUERY);
        stats.command(command::QUERY);
        stats.command(command::PING);
        stats.thread_connected();
        stats.thread_connected();
        stats.thread_disconnected();
        let snap = stats.snapshot();
        let get = |n: &str| snap.iter().find(|(k, _)| *k == n).map(|(_, v)| *v);
        assert_eq!(get("Com_query"), Some(2));
        assert_eq!(get("Com_ping"), Some(1));
        assert_eq!(get("Questions"), Some(2));
        assert_eq!(get("Threads_connected"), Some(1));
        assert_eq!(get("Max_used_connections"), Some(2));
    }
}
