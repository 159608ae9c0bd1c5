//! The protocol layer's error type, and the MySQL errors it reports to clients.
//!
//! Errors come in two classes (see [`Error::is_fatal`]):
//! - **client errors** are answered with an ERR packet and the connection goes on (a bad SQL
//!   statement, an unknown command, a malformed COM_STMT_EXECUTE, ...);
//! - **fatal errors** end the connection: I/O and TLS failures, a packet over
//!   `max_allowed_packet`, packets out of order, a bad handshake, failed authentication. Where the
//!   client can still read it, an ERR packet is sent before closing, as mysqld does.
//!
//! Error codes, SQLSTATEs and messages are MySQL's (`include/mysqld_ernum.h` and
//! `share/messages_to_clients.txt` of mysql-server, the same numbers in MariaDB's
//! `include/mysqld_error.h`), so clients and tools that test for a code keep working.

use std::fmt;

/// MySQL error codes used by the protocol layer; the SQL layer uses its own the same way.
pub mod code {
    /// `ER_CON_COUNT_ERROR`, SQLSTATE 08004.
    pub const CON_COUNT: u16 = 1040;
    /// `ER_HANDSHAKE_ERROR`, SQLSTATE 08S01.
    pub const HANDSHAKE: u16 = 1043;
    /// `ER_ACCESS_DENIED_ERROR`, SQLSTATE 28000.
    pub const ACCESS_DENIED: u16 = 1045;
    /// `ER_UNKNOWN_COM_ERROR`, SQLSTATE 08S01.
    pub const UNKNOWN_COM: u16 = 1047;
    /// `ER_BAD_DB_ERROR`, SQLSTATE 42000.
    pub const BAD_DB: u16 = 1049;
    /// `ER_UNKNOWN_ERROR`, SQLSTATE HY000.
    pub const UNKNOWN: u16 = 1105;
    /// `ER_NET_PACKET_TOO_LARGE`, SQLSTATE 08S01.
    pub const NET_PACKET_TOO_LARGE: u16 = 1153;
    /// `ER_NET_PACKETS_OUT_OF_ORDER`, SQLSTATE 08S01.
    pub const NET_PACKETS_OUT_OF_ORDER: u16 = 1156;
    /// `ER_NET_READ_INTERRUPTED`: `net_read_timeout` passed in the middle of a command.
    pub const NET_READ_INTERRUPTED: u16 = 1159;
    /// `ER_CLIENT_INTERACTION_TIMEOUT` (8.0.24+): `wait_timeout` passed between commands.
    pub const CLIENT_INTERACTION_TIMEOUT: u16 = 4031;
    /// `ER_WRONG_ARGUMENTS`, SQLSTATE HY000.
    pub const WRONG_ARGUMENTS: u16 = 1210;
    /// `ER_UNKNOWN_STMT_HANDLER`, SQLSTATE HY000.
    pub const UNKNOWN_STMT_HANDLER: u16 = 1243;
    /// `ER_NOT_SUPPORTED_AUTH_MODE`, SQLSTATE 08004.
    pub const NOT_SUPPORTED_AUTH_MODE: u16 = 1251;
    /// `ER_MALFORMED_PACKET`, SQLSTATE HY000.
    pub const MALFORMED_PACKET: u16 = 1835;
}

/// An error as the client sees it: the fields of an ERR packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrPacket {
    /// MySQL error number (`ER_*`).
    pub code: u16,
    /// Five-character SQLSTATE.
    pub sqlstate: [u8; 5],
    /// Human-readable message, as MySQL words it.
    pub message: String,
}

impl ErrPacket {
    /// An error with the given code, SQLSTATE (5 ASCII characters) and message.
    pub fn new(code: u16, sqlstate: &str, message: impl Into<String>) -> Self {
        let mut state = *b"HY000";
        if sqlstate.len() == 5 && sqlstate.is_ascii() {
            state.copy_from_slice(sqlstate.as_bytes());
        }
        Self { code, sqlstate: state, message: message.into() }
    }

    /// `ER_CON_COUNT_ERROR`.
    pub fn too_many_connections() -> Self {
        Self::new(code::CON_COUNT, "08004", "Too many connections")
    }

    /// `ER_HANDSHAKE_ERROR`.
    pub fn bad_handshake() -> Self {
        Self::new(code::HANDSHAKE, "08S01", "Bad handshake")
    }

    /// `ER_ACCESS_DENIED_ERROR`, worded as mysqld words it.
    pub fn access_denied(user: &str, host: &str, password_used: bool) -> Self {
        let using = if password_used { "YES" } else { "NO" };
        Self::new(
            code::ACCESS_DENIED,
            "28000",
            format!("Access denied for user '{user}'@'{host}' (using password: {using})"),
        )
    }

    /// `ER_UNKNOWN_COM_ERROR`.
    pub fn unknown_command() -> Self {
        Self::new(code::UNKNOWN_COM, "08S01", "Unknown command")
    }

    /// `ER_BAD_DB_ERROR`.
    pub fn bad_db(db: &str) -> Self {
        Self::new(code::BAD_DB, "42000", format!("Unknown database '{db}'"))
    }

    /// `ER_NET_PACKET_TOO_LARGE`.
    pub fn packet_too_large() -> Self {
        Self::new(
            code::NET_PACKET_TOO_LARGE,
            "08S01",
            "Got a packet bigger than 'max_allowed_packet' bytes",
        )
    }

    /// `ER_NET_PACKETS_OUT_OF_ORDER`.
    pub fn packets_out_of_order() -> Self {
        Self::new(code::NET_PACKETS_OUT_OF_ORDER, "08S01", "Got packets out of order")
    }

    /// `ER_MALFORMED_PACKET`.
    pub fn malformed_packet() -> Self {
        Self::new(code::MALFORMED_PACKET, "HY000", "Malformed communication packet.")
    }

    /// `ER_UNKNOWN_STMT_HANDLER`.
    pub fn unknown_statement(stmt_id: u32, command: &str) -> Self {
        Self::new(
            code::UNKNOWN_STMT_HANDLER,
            "HY000",
            format!("Unknown prepared statement handler ({stmt_id}) given to {command}"),
        )
    }

    /// `ER_WRONG_ARGUMENTS`.
    pub fn wrong_arguments(command: &str) -> Self {
        Self::new(code::WRONG_ARGUMENTS, "HY000", format!("Incorrect arguments to {command}"))
    }

    /// `ER_NOT_SUPPORTED_AUTH_MODE`.
    pub fn auth_mode_not_supported() -> Self {
        Self::new(
            code::NOT_SUPPORTED_AUTH_MODE,
            "08004",
            "Client does not support authentication protocol requested by server; \
             consider upgrading MySQL client",
        )
    }
}

impl fmt::Display for ErrPacket {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ERROR {} ({}): {}",
            self.code,
            String::from_utf8_lossy(&self.sqlstate),
            self.message
        )
    }
}

impl std::error::Error for ErrPacket {}

/// Everything that can go wrong on a connection.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The statement or command failed; the client gets this ERR and the connection goes on.
    #[error(transparent)]
    Sql(#[from] ErrPacket),
    /// A command packet that does not parse; answered with ER_MALFORMED_PACKET.
    #[error("malformed {what} packet")]
    Malformed {
        /// Which packet.
        what: &'static str,
    },
    /// A value a session gave for a result row that its column type cannot carry.
    #[error("column {column}: {reason}")]
    BadValue {
        /// Zero-based column index.
        column: usize,
        /// What was wrong.
        reason: &'static str,
    },
    /// A result-set call out of order (rows before columns, an OK inside a result set, ...):
    /// a bug in the session; the client gets ER_UNKNOWN_ERROR.
    #[error("result writer misuse: {0}")]
    Misuse(&'static str),
    /// The peer closed the connection between packets.
    #[error("connection closed by peer")]
    Closed,
    /// The peer closed the connection in the middle of a packet.
    #[error("connection closed in the middle of a packet")]
    Truncated,
    /// No bytes from the client within `net_read_timeout` in the middle of a command
    /// (ER_NET_READ_INTERRUPTED).
    #[error("no data from the client within net_read_timeout")]
    ReadTimeout,
    /// The client took no bytes within `net_write_timeout` (it stopped reading).
    #[error("client did not read within net_write_timeout")]
    WriteTimeout,
    /// The client sent no command within `wait_timeout` (or `interactive_timeout`)
    /// (ER_CLIENT_INTERACTION_TIMEOUT).
    #[error("no command within wait_timeout")]
    IdleTimeout,
    /// KILL CONNECTION while the connection waited on its socket.
    #[error("connection killed")]
    Killed,
    /// The connection phase took longer than `connect_timeout`.
    #[error("connection phase exceeded connect_timeout")]
    ConnectTimeout,
    /// A packet over `max_allowed_packet` (ER_NET_PACKET_TOO_LARGE).
    #[error("packet larger than max_allowed_packet ({max_allowed_packet} bytes)")]
    PacketTooLarge {
        /// The limit in force.
        max_allowed_packet: usize,
    },
    /// A packet whose sequence id is not the expected one (ER_NET_PACKETS_OUT_OF_ORDER).
    #[error("packet sequence id {got}, expected {expected}")]
    OutOfOrder {
        /// Expected sequence id.
        expected: u8,
        /// Received sequence id.
        got: u8,
    },
    /// The connection phase failed; the contained error was sent to the client.
    #[error("connection refused: {0}")]
    Refused(ErrPacket),
    /// Socket I/O failed.
    #[error("i/o error")]
    Io(#[from] std::io::Error),
    /// TLS configuration or key material could not be made or loaded.
    #[error("tls: {what}")]
    Tls {
        /// What was being done.
        what: String,
        /// The underlying failure.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

impl Error {
    /// True when the connection must end (after sending [`Error::to_sql_error`] if it can).
    pub fn is_fatal(&self) -> bool {
        !matches!(
            self,
            Error::Sql(_) | Error::Malformed { .. } | Error::BadValue { .. } | Error::Misuse(_)
        )
    }

    /// The ERR packet the client should get for this error, if any.
    pub fn to_sql_error(&self) -> Option<ErrPacket> {
        match self {
            Error::Sql(e) | Error::Refused(e) => Some(e.clone()),
            Error::Malformed { .. } => Some(ErrPacket::malformed_packet()),
            Error::BadValue { .. } | Error::Misuse(_) => {
                Some(ErrPacket::new(code::UNKNOWN, "HY000", self.to_string()))
            }
            Error::PacketTooLarge { .. } => Some(ErrPacket::packet_too_large()),
            Error::OutOfOrder { .. } => Some(ErrPacket::packets_out_of_order()),
            Error::ReadTimeout => Some(ErrPacket::new(
                code::NET_READ_INTERRUPTED,
                "08S01",
                "Got timeout reading communication packets",
            )),
            Error::IdleTimeout => Some(ErrPacket::new(
                code::CLIENT_INTERACTION_TIMEOUT,
                "HY000",
                "The client was disconnected by the server because of inactivity. See \
                 wait_timeout and interactive_timeout for configuring this behavior.",
            )),
            Error::WriteTimeout | Error::Killed => None,
            Error::Closed
            | Error::Truncated
            | Error::ConnectTimeout
            | Error::Io(_)
            | Error::Tls { .. } => None,
        }
    }

    pub(crate) fn tls(
        what: impl Into<String>,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        Error::Tls { what: what.into(), source: source.into() }
    }
}

/// Result with the protocol layer's error.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classification() {
        assert!(!Error::Sql(ErrPacket::unknown_command()).is_fatal());
        assert!(!Error::Malformed { what: "x" }.is_fatal());
        assert!(Error::Closed.is_fatal());
        assert!(Error::PacketTooLarge { max_allowed_packet: 1 }.is_fatal());
        let e = Error::OutOfOrder { expected: 1, got: 3 };
        assert_eq!(e.to_sql_error().map(|e| e.code), Some(1156));
    }

    #[test]
    fn access_denied_message_is_mysqls() {
        let e = ErrPacket::access_denied("bob", "127.0.0.1", true);
        assert_eq!(e.code, 1045);
        assert_eq!(&e.sqlstate, b"28000");
        assert_eq!(e.message, "Access denied for user 'bob'@'127.0.0.1' (using password: YES)");
    }

    #[test]
    fn io_error_keeps_source() {
        let e = Error::from(std::io::Error::other("boom"));
        assert!(std::error::Error::source(&e).is_some());
    }
}
