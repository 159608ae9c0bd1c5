//! The seam between the protocol layer and the SQL layer: a [`Backend`] knows the user
//! accounts and opens a [`BackendSession`] per authenticated connection; the session answers
//! commands by writing to a [`ResultWriter`].
//!
//! Methods return futures that must be `Send` (connections are tokio tasks on a multi-threaded
//! runtime); implementations write them as plain `async fn`. A method's `Err(Error::Sql(..))`
//! becomes an ERR packet and the connection goes on; any fatal error ends the connection.

use std::future::Future;
use std::net::IpAddr;
use std::sync::Arc;

use mysql_common::constants::CapabilityFlags;
use mysql_common::packets::Column;
use mysql_common::Value;

use super::auth::UserAuth;
use super::error::{ErrPacket, Result};
use super::packet::PacketWriter;
use super::results::ResultWriter;

/// What the protocol knows about a connection once it has authenticated.
#[derive(Debug, Clone)]
pub struct ConnectionInfo {
    /// Server-assigned id (`CONNECTION_ID()`), unique for the server's lifetime.
    pub connection_id: u32,
    /// The user name the client logged in with.
    pub user: String,
    /// The client's address, as used for account host matching.
    pub host: String,
    /// The client's IP address.
    pub peer: IpAddr,
    /// Database named in the handshake (`CLIENT_CONNECT_WITH_DB`), before `init_db` checks it.
    pub database: Option<String>,
    /// Capabilities both sides agreed on.
    pub capabilities: CapabilityFlags,
    /// Collation id the client asked for.
    pub collation: u8,
    /// True when the connection runs over TLS.
    pub tls: bool,
    /// What the TLS handshake negotiated (the session's `Ssl_version`, `Ssl_cipher`).
    pub tls_session: Option<crate::tls_status::TlsSession>,
    /// Connection attributes sent by the client (`_client_name`, `program_name`, ...).
    pub attributes: Vec<(String, String)>,
    /// The connection's entry in the registry (`ServerConfig::processes`).
    pub process: Arc<crate::processlist::Process>,
}

/// The shape of a prepared statement, answered to COM_STMT_PREPARE.
#[derive(Debug, Clone, Default)]
pub struct PreparedStatement {
    /// One definition per `?` placeholder (type `MYSQL_TYPE_VAR_STRING` is what mysqld sends
    /// when it does not know better).
    pub params: Vec<Column>,
    /// The result set's columns; empty for statements without a result set.
    pub columns: Vec<Column>,
}

/// Replication commands, routed to [`BackendSession::replication`] with their raw packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplicationCommand {
    /// COM_REGISTER_SLAVE: the replica announces itself; answered with OK or ERR.
    RegisterSlave,
    /// COM_BINLOG_DUMP: stream events from a file and position.
    BinlogDump,
    /// COM_BINLOG_DUMP_GTID: stream events the replica's GTID set lacks.
    BinlogDumpGtid,
}

/// The server's view of users and sessions, shared by all connections.
pub trait Backend: Send + Sync + 'static {
    /// One connection's session.
    type Session: BackendSession;

    /// The account `user` connecting from `host` (an IP address in text form), or `None` if no
    /// account matches. Host-pattern matching is the backend's business.
    fn user(&self, user: &str, host: &str) -> Option<UserAuth>;

    /// Opens a session for an authenticated connection. An `Err` is sent to the client and the
    /// connection closes.
    fn open_session(&self, info: &ConnectionInfo) -> Result<Self::Session, ErrPacket>;

    /// True if the account `user`@`host` (authenticated) holds CONNECTION_ADMIN or SUPER: it
    /// may take the one connection past `max_connections` mysqld keeps for an administrator.
    /// The default: nobody does.
    fn is_connection_admin(&self, user: &str, host: &str) -> bool {
        let _ = (user, host);
        false
    }
}

/// One client connection's SQL state (current database, transaction, prepared plans, ...).
pub trait BackendSession: Send + 'static {
    /// COM_QUERY: runs `sql` and writes its result(s). Writing nothing means a plain OK.
    /// With multi-statements on ([`ResultWriter::multi_statements`]) a session may write several
    /// results; the protocol sets SERVER_MORE_RESULTS_EXISTS on all but the last.
    fn query(
        &mut self,
        sql: &str,
        out: &mut ResultWriter<'_>,
    ) -> impl Future<Output = Result<()>> + Send;

    /// A COM_QUERY / COM_STMT_PREPARE body in UTF-8 when the session's `character_set_client`
    /// is not a UTF-8 set (mysqld converts statement text from it, `THD::convert_string`);
    /// None: the body is read as UTF-8 (the default).
    fn client_statement(&self, body: &[u8]) -> Option<String> {
        let _ = body;
        None
    }

    /// COM_STMT_PREPARE: prepares `sql` under the id the protocol chose (ids are unique per
    /// connection and never reused by it while the statement lives).
    fn prepare(
        &mut self,
        stmt_id: u32,
        sql: &str,
    ) -> impl Future<Output = Result<PreparedStatement>> + Send;

    /// COM_STMT_EXECUTE: runs prepared statement `stmt_id` with `params` (one per placeholder,
    /// long data already joined). Rows written go out in the binary protocol.
    fn execute(
        &mut self,
        stmt_id: u32,
        params: &[Value],
        out: &mut ResultWriter<'_>,
    ) -> impl Future<Output = Result<()>> + Send;

    /// The session state changes (CLIENT_SESSION_TRACK) since the last call, encoded for an
    /// OK packet; taken for each OK the protocol writes itself (COM_INIT_DB, the handshake's
    /// database, COM_RESET_CONNECTION). The default: no tracking.
    fn session_state(&mut self) -> Vec<u8> {
        Vec::new()
    }

    /// COM_STMT_CLOSE (and COM_RESET_CONNECTION, per statement): forgets `stmt_id`.
    fn close_statement(&mut self, stmt_id: u32);

    /// COM_INIT_DB and a handshake's database: makes `db` the current database.
    fn init_db(&mut self, db: &str) -> impl Future<Output = Result<()>> + Send;

    /// COM_RESET_CONNECTION: back to a fresh session's state (rolls back, clears variables).
    /// Prepared statements are closed one by one through [`BackendSession::close_statement`] first.
    fn reset(&mut self) -> impl Future<Output = Result<()>> + Send;

    /// The session's socket timeouts (`net_read_timeout`, `net_write_timeout`,
    /// `wait_timeout`), read after each command. The default is mysqld's defaults.
    fn timeouts(&self) -> crate::settings::Timeouts {
        crate::settings::Timeouts::default()
    }

    /// 1227 unless the session's account holds the global privilege named `privilege`
    /// (mysqld's `check_global_access`), for the commands the protocol answers itself
    /// (COM_REFRESH, COM_SHUTDOWN, COM_DEBUG). The default allows everything.
    fn check_global_privilege(&self, privilege: &str) -> Result<()> {
        let _ = privilege;
        Ok(())
    }

    /// COM_REGISTER_SLAVE, COM_BINLOG_DUMP, COM_BINLOG_DUMP_GTID: `packet` is the whole command
    /// packet (command byte first). The handler writes its answer with `out` for as long as it
    /// needs (a dump streams `0x00 <event>` packets until it ends with EOF or ERR), flushing as
    /// it goes; when it returns the connection reads the next command.
    ///
    /// The default answers ER_UNKNOWN_COM_ERROR, as a server without replication would.
    fn replication(
        &mut self,
        command: ReplicationCommand,
        packet: &[u8],
        out: &mut PacketWriter<'_>,
    ) -> impl Future<Output = Result<()>> + Send {
        let _ = (command, packet, out);
        async { Err(ErrPacket::unknown_command().into()) }
    }
}
