//! One connection: the connection phase (handshake, TLS, authentication) and the command loop.
//!
//! Connection phase (mysql-server docs "Connection Phase"; MariaDB "Connection"):
//! 1. server → Initial Handshake v10 (seq 0): version, connection id, 20-byte nonce, capability
//!    flags, `caching_sha2_password` as the default plugin;
//! 2. client → SSLRequest (seq 1, 32 bytes, CLIENT_SSL) and the TLS handshake, optionally;
//! 3. client → Handshake Response 41: capabilities, user, auth data, database, plugin, attributes;
//! 4. if the account's plugin differs from the client's: server → AuthSwitchRequest, client →
//!    auth data for the new plugin;
//! 5. plugin exchange (`0x01`-prefixed AuthMoreData packets, see [`super::auth`]);
//! 6. server → OK, or ERR and close.
//!
//! Command phase: each command starts at sequence id 0; the response continues the sequence.
//! Every response is flushed once, when it is complete.
//!
//! COM_CHANGE_USER re-runs steps 4–6 for the account the packet names, over the handshake's
//! nonce (mysqld keeps `thd->scramble`), after closing the prepared statements and resetting
//! the session; a failure answers ERR and closes, as mysqld ([`Connection::change_user`]).
//!
//! Invariants: capabilities used after the handshake are the intersection of the server's and
//! the client's; nothing from the network is indexed without a length check; a client error is
//! answered with ERR and the loop goes on; a fatal error sends ERR when the client can still read
//! it and closes.

mod legacy;

use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::Arc;

use mysql_common::constants::{CapabilityFlags, StatusFlags};
use mysql_common::io::ParseBuf;
use mysql_common::packets::{AuthSwitchRequest, HandshakePacket, HandshakeResponse};
use mysql_common::proto::MySerialize;

use super::auth::{
    generate_scramble, sha2_fast_hash, unxor_rsa_password, verify_native, verify_sha2_fast,
    AuthCache, AuthPlugin, StoredPassword, UserAuth, SCRAMBLE_LEN,
};
use super::error::{ErrPacket, Error, Result};
use super::keys::ServerKeys;
use super::packet::{PacketStream, PacketWriter, Plain};
use super::results::{write_column_block, write_eof, write_ok, OkResult, ResultWriter};
use super::session::{Backend, BackendSession, ConnectionInfo, ReplicationCommand};
use super::settings::{Limits, ServerConfig, PRE_AUTH_MAX_PACKET};
use super::stats::{command, Stats};
use super::stmt::Statements;
use crate::processlist::{Process, Registration, KILL_CONNECTION, KILL_QUERY};

/// utf8mb4_general_ci: a collation every client library knows (MySQL 8's own default, 255, is
/// unknown to older MariaDB clients).
pub const DEFAULT_COLLATION: u8 = 45;

/// Capabilities this server offers (CLIENT_SSL is added when TLS is configured).
pub fn server_capabilities() -> CapabilityFlags {
    CapabilityFlags::CLIENT_LONG_PASSWORD
        | CapabilityFlags::CLIENT_FOUND_ROWS
        | CapabilityFlags::CLIENT_LONG_FLAG
        | CapabilityFlags::CLIENT_CONNECT_WITH_DB
        | CapabilityFlags::CLIENT_IGNORE_SPACE
        | CapabilityFlags::CLIENT_PROTOCOL_41
        | CapabilityFlags::CLIENT_INTERACTIVE
        | CapabilityFlags::CLIENT_TRANSACTIONS
        | CapabilityFlags::CLIENT_SECURE_CONNECTION
        | CapabilityFlags::CLIENT_MULTI_STATEMENTS
        | CapabilityFlags::CLIENT_MULTI_RESULTS
        | CapabilityFlags::CLIENT_PS_MULTI_RESULTS
        | CapabilityFlags::CLIENT_PLUGIN_AUTH
        | CapabilityFlags::CLIENT_CONNECT_ATTRS
        | CapabilityFlags::CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
        | CapabilityFlags::CLIENT_DEPRECATE_EOF
        | CapabilityFlags::CLIENT_SESSION_TRACK
}

/// AuthMoreData answers of `caching_sha2_password` (mysql-server `sha2_password.cc`).
const FAST_AUTH_SUCCESS: u8 = 0x03;
const PERFORM_FULL_AUTHENTICATION: u8 = 0x04;
const REQUEST_PUBLIC_KEY: u8 = 0x02;

/// `ER_INVALID_CHARACTER_STRING`.
fn invalid_utf8() -> ErrPacket {
    ErrPacket::new(1300, "HY000", "Invalid utf8mb4 character string")
}

/// A COM_QUERY / COM_STMT_PREPARE body as text: borrowed when it is UTF-8, else with its
/// binary string literals as hex literals (`binary_literals`), else 1300.
fn statement_text(body: &[u8]) -> Result<std::borrow::Cow<'_, str>, ErrPacket> {
    match std::str::from_utf8(body) {
        Ok(sql) => Ok(std::borrow::Cow::Borrowed(sql)),
        Err(_) => crate::binary_literals::hex_binary_literals(body)
            .map(std::borrow::Cow::Owned)
            .ok_or_else(invalid_utf8),
    }
}

/// `ER_STMT_HAS_NO_OPEN_CURSOR`: statements never open cursors here.
/// COM_STMT_EXECUTE's flag for a read-only cursor (`CURSOR_TYPE_READ_ONLY`).
const CURSOR_TYPE_READ_ONLY: u8 = 1;

fn no_open_cursor(stmt_id: u32) -> ErrPacket {
    ErrPacket::new(1421, "HY000", format!("The statement ({stmt_id}) has no open cursor."))
}

/// State shared by all connections of one server.
pub(crate) struct Shared<B> {
    pub backend: B,
    pub config: ServerConfig,
    pub limits: Arc<Limits>,
    pub stats: Arc<Stats>,
    pub auth_cache: AuthCache,
    pub next_connection_id: AtomicU32,
    pub open_connections: AtomicUsize,
}

/// Releases a `max_connections` slot when the connection task ends, however it ends.
pub(crate) struct Slot<B: Backend>(pub Arc<Shared<B>>);

impl<B: Backend> Drop for Slot<B> {
    fn drop(&mut self) {
        self.0.open_connections.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Answers a connection over `max_connections` with ER_CON_COUNT_ERROR in place of the
/// handshake, as mysqld does, and closes it.
pub(crate) async fn refuse(socket: impl Into<Plain>, shared: &Shared<impl Backend>) {
    let mut io =
        PacketStream::new(socket, shared.limits.max_allowed_packet(), shared.stats.clone());
    io.write_err(&ErrPacket::too_many_connections());
    io.close().await;
}

/// Where a connection comes from.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Origin {
    /// A TCP client at this address.
    Tcp(SocketAddr),
    /// A client on this host, over the Unix socket.
    Unix,
}

impl Origin {
    /// The client's host as account host matching sees it: its IP address (IPv4-mapped IPv6
    /// as IPv4), or `localhost` over the Unix socket, as mysqld names such clients.
    fn host(&self) -> String {
        match self {
            Origin::Tcp(peer) => host_of(*peer).to_string(),
            Origin::Unix => "localhost".to_string(),
        }
    }

    /// The client as SHOW PROCESSLIST's Host column shows it: `ip:port` over TCP,
    /// `localhost` over the Unix socket, as mysqld shows them.
    fn listed(&self) -> String {
        match self {
            Origin::Tcp(peer) => SocketAddr::new(host_of(*peer), peer.port()).to_string(),
            Origin::Unix => "localhost".to_string(),
        }
    }

    /// The client's IP address; a Unix socket client has none, and is given the loopback
    /// address (it is on this host).
    fn ip(&self) -> IpAddr {
        match self {
            Origin::Tcp(peer) => host_of(*peer),
            Origin::Unix => IpAddr::V4(std::net::Ipv4Addr::LOCALHOST),
        }
    }
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Tcp(peer) => write!(f, "{peer}"),
            Origin::Unix => f.write_str("the Unix socket"),
        }
    }
}

/// Serves one connection until it ends.
pub(crate) async fn run<B: Backend>(slot: Slot<B>, socket: Plain, peer: Origin) {
    let shared = &slot.0;
    if let Plain::Tcp(tcp) = &socket {
        let _ = tcp.set_nodelay(true);
    }
    let max_allowed_packet = shared.limits.max_allowed_packet();
    // Before login only a handshake-sized packet is taken (see PRE_AUTH_MAX_PACKET).
    let mut io = PacketStream::new(
        socket,
        PRE_AUTH_MAX_PACKET.min(max_allowed_packet),
        shared.stats.clone(),
    );
    let connecting = connect(shared, &mut io, peer);
    // mysqld's connect_timeout bounds the whole connection phase (from accept to the OK), not
    // each read: a client trickling one byte at a time is dropped all the same.
    let connected = match tokio::time::timeout(shared.limits.connect_timeout(), connecting).await {
        Ok(connected) => connected,
        // mysqld's connect_timeout: a client that stalls in the connection phase is dropped
        // (without an answer: it is not reading).
        Err(_elapsed) => Err(Error::ConnectTimeout),
    };
    let (session, info, registration, scramble) = match connected {
        Ok(connected) => connected,
        Err(e) => {
            shared.stats.aborted_connect();
            log::debug!("connection from {peer} refused: {e}");
            if let Some(sql) = e.to_sql_error() {
                io.write_err(&sql);
            }
            io.close().await;
            return;
        }
    };
    shared.stats.thread_connected();
    io.set_max_packet(max_allowed_packet);
    io.watch_kill(info.process.clone());
    let mut conn = Connection {
        io,
        session,
        capabilities: info.capabilities,
        status: StatusFlags::SERVER_STATUS_AUTOCOMMIT,
        multi_statements: info.capabilities.contains(CapabilityFlags::CLIENT_MULTI_STATEMENTS),
        statements: Statements::default(),
        shared: shared.clone(),
        process: info.process.clone(),
        info: info.clone(),
        scramble,
    };
    let ended = conn.serve().await;
    shared.stats.thread_disconnected();
    match ended {
        Ok(()) => {}
        Err(Error::Closed) => shared.stats.aborted_client(),
        Err(e) => {
            shared.stats.aborted_client();
            log::debug!("connection {} ended: {e}", info.connection_id);
        }
    }
    conn.io.close().await;
    // Unlisted only once the session (and its transaction) is gone.
    drop(conn);
    drop(registration);
}

/// The client's address as account host matching sees it (IPv4-mapped IPv6 as IPv4).
fn host_of(peer: SocketAddr) -> IpAddr {
    match peer.ip() {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map(IpAddr::V4).unwrap_or(IpAddr::V6(v6)),
        v4 => v4,
    }
}

/// The connection phase: handshake, TLS, authentication, session.
async fn connect<B: Backend>(
    shared: &Shared<B>,
    io: &mut PacketStream,
    peer: Origin,
) -> Result<(B::Session, ConnectionInfo, Registration, [u8; SCRAMBLE_LEN])> {
    let connection_id = shared.next_connection_id.fetch_add(1, Ordering::Relaxed);
    let scramble = generate_scramble();
    let keys = shared.config.keys.as_deref();
    let mut tls_session = None;
    let mut offered = server_capabilities();
    if keys.is_some() {
        offered |= CapabilityFlags::CLIENT_SSL;
    }

    // The nonce goes as 8 + 12 bytes and a NUL, as mysqld sends it (auth_plugin_data_len 21).
    let mut scramble_2 = scramble[8..].to_vec();
    scramble_2.push(0);
    let mut scramble_1 = [0u8; 8];
    scramble_1.copy_from_slice(&scramble[..8]);
    let handshake = HandshakePacket::new(
        10,
        shared.config.server_version.as_bytes(),
        connection_id,
        scramble_1,
        Some(scramble_2),
        offered,
        DEFAULT_COLLATION,
        StatusFlags::SERVER_STATUS_AUTOCOMMIT,
        Some(AuthPlugin::CachingSha2Password.name().as_bytes()),
    );
    io.write_with(|buf| handshake.serialize(buf));
    io.flush().await?;

    let mut packet = io.read_packet().await?;
    let client_flags = packet
        .get(..4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or(Error::Refused(ErrPacket::bad_handshake()))?;
    let client_flags = CapabilityFlags::from_bits_truncate(client_flags);
    if client_flags.contains(CapabilityFlags::CLIENT_SSL) && packet.len() == 32 {
        // SSLRequest: the first 32 bytes of a Handshake Response, then TLS.
        let Some(keys) = keys else {
            return Err(Error::Refused(ErrPacket::bad_handshake()));
        };
        keys.tls_context.accept_started();
        io.upgrade_to_tls(&keys.tls).await?;
        tls_session = io.tls_session().map(|mut session| {
            keys.tls_context.accept_finished(&session);
            session.cipher_list.clone_from(&keys.tls_context.cipher_list);
            session
        });
        packet = io.read_packet().await?;
    }
    let response: HandshakeResponse<'_> =
        ParseBuf(&packet).parse(()).map_err(|_| Error::Refused(ErrPacket::bad_handshake()))?;
    let capabilities = offered & response.capabilities();
    if !capabilities.contains(CapabilityFlags::CLIENT_PROTOCOL_41) {
        // Pre-4.1 clients are long gone; mysqld 8 refuses them the same way.
        return Err(Error::Refused(ErrPacket::bad_handshake()));
    }

    let user = String::from_utf8_lossy(response.user()).into_owned();
    let host = peer.host();
    let database = response
        .db_name()
        .filter(|db| {
            !db.is_empty() && capabilities.contains(CapabilityFlags::CLIENT_CONNECT_WITH_DB)
        })
        .map(|db| String::from_utf8_lossy(db).into_owned());
    let client_plugin = if capabilities.contains(CapabilityFlags::CLIENT_PLUGIN_AUTH) {
        response.auth_plugin().map(|p| p.as_bytes().to_vec()).unwrap_or_default()
    } else {
        AuthPlugin::MysqlNativePassword.name().as_bytes().to_vec()
    };

    // An unknown user gets a decoy account (mysqld's `decoy_user`): a plugin fixed per name
    // and host and a password nothing matches, so neither the exchange nor its cost reveals
    // whether the account exists.
    let account =
        shared.backend.user(&user, &host).unwrap_or_else(|| UserAuth::decoy(&user, &host));
    let auth_data = response.scramble_buf().to_vec();
    // A client that does not know the greeting's plugin (a MariaDB server's replica connection
    // greeted with caching_sha2_password) answers with its own plugin and no data, and waits
    // for the server to start that plugin's exchange: mysqld then sends an AuthSwitchRequest
    // (`send_plugin_request_packet` after the RESTART of `parse_client_handshake_packet`) even
    // when the client's plugin is the account's. Decoy accounts get the same, so the exchange
    // does not tell whether the account exists.
    let greeted = AuthPlugin::CachingSha2Password.name().as_bytes();
    let restart = client_plugin != greeted && auth_data.is_empty();
    let (authenticated, password_used) =
        exchange(shared, io, &account, &client_plugin, auth_data, restart, &scramble, capabilities)
            .await?;
    if !authenticated {
        return Err(Error::Refused(ErrPacket::access_denied(&user, &host, password_used)));
    }
    // mysqld (`check_and_incr_conn_count`, then `acl_authenticate`) lets max_connections + 1
    // sockets in, and after login keeps the last one for an account with CONNECTION_ADMIN or
    // SUPER: anyone else past max_connections gets ER_CON_COUNT_ERROR.
    if shared.open_connections.load(Ordering::Acquire) > shared.limits.max_connections()
        && !shared.backend.is_connection_admin(&user, &host)
    {
        return Err(Error::Refused(ErrPacket::too_many_connections()));
    }

    // Listed from here on: SHOW PROCESSLIST prints `ip:port`, as mysqld does for TCP clients
    // (`localhost` over the Unix socket).
    let registration =
        shared.config.processes.register(connection_id, &user, peer.listed(), database.clone());
    let info = ConnectionInfo {
        connection_id,
        user,
        host,
        peer: peer.ip(),
        database: database.clone(),
        capabilities,
        collation: response.collation(),
        tls: io.is_tls(),
        tls_session,
        attributes: response
            .connect_attributes()
            .map(|attrs| attrs.into_iter().collect())
            .unwrap_or_default(),
        process: registration.process().clone(),
    };
    let mut session = shared.backend.open_session(&info).map_err(Error::Refused)?;
    if let Some(db) = database.as_deref() {
        match session.init_db(db).await {
            Ok(()) => {}
            Err(Error::Sql(e)) => return Err(Error::Refused(e)),
            Err(e) => return Err(e),
        }
    }
    // The handshake's database is a schema change the client may track (mysqld's
    // `net_send_ok` after `acl_authenticate` stores the session state too).
    let ok = OkResult { session_state: session.session_state(), ..OkResult::default() };
    write_ok(io, &ok, StatusFlags::SERVER_STATUS_AUTOCOMMIT, 0x00, capabilities);
    io.flush().await?;
    Ok((session, info, registration, scramble))
}

/// The authentication exchange after the client's first answer (`auth_data`, made with
/// `client_plugin` over `scramble`), for the handshake and COM_CHANGE_USER alike (mysqld's
/// `acl_authenticate` for both): an AuthSwitchRequest to the account's plugin when the client
/// used another one (or `restart`), then the plugin's own exchange. Returns (authenticated,
/// password used).
#[allow(clippy::too_many_arguments)]
async fn exchange<B: Backend>(
    shared: &Shared<B>,
    io: &mut PacketStream,
    account: &UserAuth,
    client_plugin: &[u8],
    mut auth_data: Vec<u8>,
    restart: bool,
    scramble: &[u8; SCRAMBLE_LEN],
    capabilities: CapabilityFlags,
) -> Result<(bool, bool)> {
    let plugin = account.plugin;
    // An empty first answer from a client of the native plugin is no password at all only for
    // an account without one; otherwise the client could not use the handshake's data (a
    // MariaDB client that does not know the announced plugin answers so, then waits for a
    // nonce): ask again with an AuthSwitchRequest, as mysqld's `server_mpvio_read_packet` does
    // when the cached reply is unusable.
    let empty_native = plugin == AuthPlugin::MysqlNativePassword
        && (auth_data.is_empty() || auth_data == [0])
        && account.password != StoredPassword::Empty;
    if client_plugin != plugin.name().as_bytes() || restart || empty_native {
        if !capabilities.contains(CapabilityFlags::CLIENT_PLUGIN_AUTH) {
            return Err(Error::Refused(ErrPacket::auth_mode_not_supported()));
        }
        let mut nonce = scramble.to_vec();
        nonce.push(0);
        // Format: 0xFE | plugin name NUL | nonce (20 bytes and a NUL, as mysqld sends it)
        let switch = AuthSwitchRequest::new(plugin.name().as_bytes(), nonce);
        io.write_with(|buf| switch.serialize(buf));
        io.flush().await?;
        auth_data = io.read_packet().await?.to_vec();
    }
    // mysqld treats an empty answer and a lone NUL alike: no password given.
    if auth_data == [0] {
        auth_data.clear();
    }
    let password_used = !auth_data.is_empty();
    let authenticated =
        authenticate(shared, io, Some(account), plugin, scramble, &auth_data).await?;
    Ok((authenticated, password_used))
}

/// Runs the account's plugin on the client's first answer `auth_data`; true if the password is
/// right. Sends the plugin's intermediate packets itself.
async fn authenticate<B: Backend>(
    shared: &Shared<B>,
    io: &mut PacketStream,
    account: Option<&UserAuth>,
    plugin: AuthPlugin,
    scramble: &[u8; SCRAMBLE_LEN],
    auth_data: &[u8],
) -> Result<bool> {
    let stored = account.map(|a| &a.password);
    if let Some(StoredPassword::Empty) = stored {
        return Ok(auth_data.is_empty());
    }
    match plugin {
        AuthPlugin::MysqlNativePassword => Ok(match stored {
            Some(StoredPassword::Native(hash)) => verify_native(scramble, auth_data, hash),
            _ => false,
        }),
        AuthPlugin::CachingSha2Password => {
            let hash = match stored {
                Some(StoredPassword::Sha2(hash)) => Some(hash),
                // An account whose plugin and stored form disagree never authenticates.
                Some(_) => return Ok(false),
                None => None,
            };
            if auth_data.is_empty() {
                return Ok(false);
            }
            if let Some(hash) = hash {
                if let Some(fast) = shared.auth_cache.get(hash) {
                    if verify_sha2_fast(scramble, auth_data, &fast) {
                        // Format: 0x01 (AuthMoreData) | 0x03 (fast_auth_success)
                        io.write_packet(&[0x01, FAST_AUTH_SUCCESS]);
                        shared.stats.sha2_auth(false);
                        return Ok(true);
                    }
                }
            }
            // A cache miss or a mismatch: mysqld asks for the password itself in both cases.
            // Format: 0x01 (AuthMoreData) | 0x04 (perform_full_authentication)
            io.write_packet(&[0x01, PERFORM_FULL_AUTHENTICATION]);
            io.flush().await?;
            let Some(password) = full_authentication(shared, io, scramble).await? else {
                return Ok(false);
            };
            let Some(hash) = hash else {
                return Ok(false);
            };
            // Password hashing takes milliseconds by design: keep it off the threads that run
            // connections.
            let verified = {
                let hash = hash.clone();
                tokio::task::spawn_blocking(move || hash.verify(&password).then_some(password))
                    .await
                    .unwrap_or(None)
            };
            let Some(password) = verified else {
                return Ok(false);
            };
            shared.auth_cache.insert(hash, sha2_fast_hash(&password));
            shared.stats.sha2_auth(true);
            Ok(true)
        }
    }
}

/// Gets the cleartext password for `caching_sha2_password` full authentication: sent as is
/// over TLS or the Unix socket (mysqld's secure transports), otherwise RSA-encrypted (after
/// handing out the public key if asked for).
async fn full_authentication<B: Backend>(
    shared: &Shared<B>,
    io: &mut PacketStream,
    scramble: &[u8; SCRAMBLE_LEN],
) -> Result<Option<Vec<u8>>> {
    let packet = io.read_packet().await?;
    if io.is_secure() {
        // Format: password NUL
        let password = packet.strip_suffix(&[0]).unwrap_or(&packet);
        if password.len() > crate::auth::CACHING_SHA2_MAX_PASSWORD_LENGTH {
            // mysqld refuses a longer reply before hashing anything.
            return Ok(None);
        }
        return Ok(Some(password.to_vec()));
    }
    let Some(keys) = shared.config.keys.clone() else {
        // Without TLS and without an RSA key there is no safe way to get the password.
        return Ok(None);
    };
    let ciphertext = if packet[..] == [REQUEST_PUBLIC_KEY] {
        send_public_key(io, &keys);
        io.flush().await?;
        io.read_packet().await?
    } else {
        packet
    };
    // An RSA private-key operation costs about a millisecond: off the connection threads.
    let plain =
        tokio::task::spawn_blocking(move || keys.rsa_decrypt(&ciphertext)).await.unwrap_or(None);
    Ok(plain
        .and_then(|plain| unxor_rsa_password(&plain, scramble))
        .filter(|p| p.len() <= crate::auth::CACHING_SHA2_MAX_PASSWORD_LENGTH))
}

fn send_public_key(io: &mut PacketStream, keys: &ServerKeys) {
    // Format: 0x01 (AuthMoreData) | public key PEM
    io.write_with(|buf| {
        buf.push(0x01);
        buf.extend_from_slice(keys.rsa_public_pem().as_bytes());
    });
}

/// A COM_CHANGE_USER packet's fields (after the command byte), as mysqld's
/// `parse_com_change_user_packet` reads them:
/// `user NUL | auth (u8 length + bytes with CLIENT_SECURE_CONNECTION, else NUL-terminated) |
/// database NUL | [charset u16] | [plugin NUL, with CLIENT_PLUGIN_AUTH] |
/// [attributes: lenenc length + lenenc key/value pairs, with CLIENT_CONNECT_ATTRS]`.
/// Every length is checked against the bytes present; the optional tail may be absent (old
/// clients), as mysqld allows.
#[derive(Debug, PartialEq, Eq)]
struct ChangeUser<'a> {
    user: &'a [u8],
    auth: &'a [u8],
    db: &'a [u8],
    charset: Option<u16>,
    plugin: Option<&'a [u8]>,
    attributes: Option<Vec<(String, String)>>,
}

impl<'a> ChangeUser<'a> {
    fn parse(body: &'a [u8], capabilities: CapabilityFlags) -> Option<ChangeUser<'a>> {
        fn nul_string<'b>(rest: &mut &'b [u8]) -> Option<&'b [u8]> {
            let end = rest.iter().position(|&b| b == 0)?;
            let s = &rest[..end];
            *rest = &rest[end + 1..];
            Some(s)
        }
        let mut rest = body;
        let user = nul_string(&mut rest)?;
        let auth = if capabilities.contains(CapabilityFlags::CLIENT_SECURE_CONNECTION) {
            let (&len, tail) = rest.split_first()?;
            let auth = tail.get(..usize::from(len))?;
            rest = &tail[usize::from(len)..];
            auth
        } else {
            nul_string(&mut rest)?
        };
        let db = nul_string(&mut rest)?;
        let mut charset = None;
        if rest.len() >= 2 {
            charset = Some(u16::from_le_bytes([rest[0], rest[1]]));
            rest = &rest[2..];
        }
        let mut plugin = None;
        if capabilities.contains(CapabilityFlags::CLIENT_PLUGIN_AUTH) && !rest.is_empty() {
            // A plugin name without its NUL runs to the end (mysqld: `strend` of the rest).
            plugin = Some(match rest.iter().position(|&b| b == 0) {
                Some(end) => {
                    let p = &rest[..end];
                    rest = &rest[end + 1..];
                    p
                }
                None => std::mem::take(&mut rest),
            });
        }
        let mut attributes = None;
        if capabilities.contains(CapabilityFlags::CLIENT_CONNECT_ATTRS) && !rest.is_empty() {
            let mut buf = ParseBuf(rest);
            let total = buf.checked_eat_lenenc_int()?;
            let block = buf.checked_eat(usize::try_from(total).ok()?)?;
            let mut buf = ParseBuf(block);
            let mut attrs = Vec::new();
            while !buf.is_empty() {
                let k = buf.checked_eat_lenenc_str()?;
                let v = buf.checked_eat_lenenc_str()?;
                attrs.push((
                    String::from_utf8_lossy(k).into_owned(),
                    String::from_utf8_lossy(v).into_owned(),
                ));
            }
            attributes = Some(attrs);
        }
        Some(ChangeUser { user, auth, db, charset, plugin, attributes })
    }
}

/// What the loop does after a command.
enum Next {
    Continue,
    Quit,
}

/// An authenticated connection in its command phase.
struct Connection<B: Backend> {
    io: PacketStream,
    session: B::Session,
    capabilities: CapabilityFlags,
    status: StatusFlags,
    multi_statements: bool,
    statements: Statements,
    shared: Arc<Shared<B>>,
    /// This connection's registry entry: the command it runs, its kill flag.
    process: Arc<Process>,
    /// What the session was opened with (COM_CHANGE_USER opens the next one from it).
    info: ConnectionInfo,
    /// The handshake's nonce: COM_CHANGE_USER's answer is made over it, as mysqld keeps
    /// `thd->scramble` for the connection's life.
    scramble: [u8; SCRAMBLE_LEN],
}

impl<B: Backend> Connection<B> {
    /// Reads and answers commands until COM_QUIT (Ok) or a fatal error.
    async fn serve(&mut self) -> Result<()> {
        loop {
            self.io.reset_seq();
            // Between commands the client may stay silent wait_timeout long; within a command
            // (a dump reading acknowledgements, ...) net_read_timeout; every write may wait
            // net_write_timeout (mysqld's `do_command` and `my_net_set_*_timeout`).
            let timeouts = self.session.timeouts();
            self.io.set_read_timeout(Some(timeouts.wait));
            self.io.set_write_timeout(Some(timeouts.net_write));
            // KILL CONNECTION of an idle connection closes it without a packet, as mysqld
            // (`THD::awake` shuts the socket down; the client's next read sees it closed).
            let read = tokio::select! {
                read = self.io.read_packet() => read,
                () = self.process.wait_killed(KILL_CONNECTION) => return Ok(()),
            };
            let packet = match read {
                Ok(packet) => packet,
                Err(Error::ReadTimeout) => {
                    return Err(self.fail_after_read(Error::IdleTimeout).await)
                }
                Err(e) => return Err(self.fail_after_read(e).await),
            };
            self.io.set_read_timeout(Some(timeouts.net_read));
            self.begin_command(&packet);
            let outcome = self.command(&packet).await;
            self.process.end_command();
            match outcome {
                Ok(Next::Continue) => {}
                Ok(Next::Quit) => return Ok(()),
                Err(e) if !e.is_fatal() => {
                    if let Some(sql) = e.to_sql_error() {
                        self.io.write_err(&sql);
                    }
                }
                Err(e) => {
                    if let Some(sql) = e.to_sql_error() {
                        self.io.write_err(&sql);
                        let _ = self.io.flush().await;
                    }
                    return Err(e);
                }
            }
            self.io.flush().await?;
            if self.process.killed() == KILL_CONNECTION {
                // Killed while the command ran: its answer went out, the connection ends.
                return Ok(());
            }
        }
    }

    /// Updates the registry entry as a command starts: its name and statement text.
    fn begin_command(&mut self, packet: &[u8]) {
        let Some((&cmd, body)) = packet.split_first() else { return };
        let info = match cmd {
            command::QUERY | command::STMT_PREPARE => std::str::from_utf8(body).ok(),
            command::STMT_EXECUTE => {
                ParseBuf(body).checked_eat_u32_le().and_then(|id| self.statements.text(id))
            }
            _ => None,
        };
        self.process.begin_command(cmd, info);
    }

    /// A read failed: tell the client why if it can still listen, and end.
    async fn fail_after_read(&mut self, e: Error) -> Error {
        if let Some(sql) = e.to_sql_error() {
            // Answer as the response to the offending packet would be numbered.
            let seq = match e {
                Error::OutOfOrder { got, .. } => got.wrapping_add(1),
                _ => self.io.seq().wrapping_add(1),
            };
            self.io.set_seq(seq);
            self.io.write_err(&sql);
            let _ = self.io.flush().await;
        }
        e
    }

    async fn command(&mut self, packet: &[u8]) -> Result<Next> {
        let Some((&cmd, body)) = packet.split_first() else {
            return Err(Error::Malformed { what: "command" });
        };
        let stats = &self.shared.stats;
        match cmd {
            command::QUIT => {
                stats.command(cmd);
                return Ok(Next::Quit);
            }
            command::PING => {
                stats.command(cmd);
                self.ok();
            }
            command::QUERY => {
                stats.command(cmd);
                let converted = self.session.client_statement(body);
                let sql = match &converted {
                    Some(text) => std::borrow::Cow::Borrowed(text.as_str()),
                    None => statement_text(body)?,
                };
                let sql = sql.as_ref();
                let mut out = ResultWriter::new(
                    &mut self.io,
                    self.capabilities,
                    false,
                    self.multi_statements,
                    &mut self.status,
                );
                let outcome = self.session.query(sql, &mut out).await;
                out.finish(outcome)?;
            }
            command::INIT_DB => {
                stats.command(cmd);
                let db = std::str::from_utf8(body).map_err(|_| invalid_utf8())?;
                self.session.init_db(db).await?;
                self.ok();
            }
            command::STATISTICS => {
                stats.command(cmd);
                let uptime = stats.uptime_secs();
                let questions = stats.questions();
                // Format: human-readable text, the whole packet (mysqld's COM_STATISTICS)
                let text = format!(
                    "Uptime: {uptime}  Threads: {}  Questions: {questions}  Slow queries: 0  \
                     Opens: 0  Open tables: 0  Queries per second avg: {:.3}",
                    stats.threads_connected(),
                    questions as f64 / uptime.max(1) as f64
                );
                self.io.write_packet(text.as_bytes());
            }
            command::SET_OPTION => {
                stats.command(cmd);
                // Format: 0x1b | option u16 (0 = MULTI_STATEMENTS_ON, 1 = OFF)
                match body {
                    [0, 0] => self.multi_statements = true,
                    [1, 0] => self.multi_statements = false,
                    [_, _] => return Err(ErrPacket::unknown_command().into()),
                    _ => return Err(Error::Malformed { what: "COM_SET_OPTION" }),
                }
                self.eof();
            }
            command::RESET_CONNECTION => {
                stats.command(cmd);
                for id in self.statements.drain_ids() {
                    self.session.close_statement(id);
                }
                self.session.reset().await?;
                self.status = StatusFlags::SERVER_STATUS_AUTOCOMMIT;
                self.ok();
            }
            command::CHANGE_USER => {
                stats.command(cmd);
                self.change_user(body).await?;
            }
            command::STMT_PREPARE => {
                stats.command(cmd);
                let converted = self.session.client_statement(body);
                let sql = match &converted {
                    Some(text) => std::borrow::Cow::Borrowed(text.as_str()),
                    None => statement_text(body)?,
                };
                let sql = sql.as_ref();
                self.prepare(sql).await?;
            }
            command::STMT_EXECUTE => {
                stats.command(cmd);
                self.execute(body).await?;
            }
            command::STMT_SEND_LONG_DATA => {
                stats.command(cmd);
                // Format: 0x18 | stmt_id u32 | param_id u16 | data (rest). Never answered.
                let mut buf = ParseBuf(body);
                let (Some(id), Some(param)) = (buf.checked_eat_u32_le(), buf.checked_eat_u16_le())
                else {
                    return Ok(Next::Continue);
                };
                let max = self.shared.limits.max_allowed_packet();
                if let Some(st) = self.statements.get_mut(id) {
                    st.append_long_data(param, buf.eat_all(), max)?;
                }
            }
            command::STMT_CLOSE => {
                stats.command(cmd);
                // Format: 0x19 | stmt_id u32. Never answered.
                if let Some(id) = ParseBuf(body).checked_eat_u32_le() {
                    if self.statements.remove(id) {
                        self.session.close_statement(id);
                    }
                }
            }
            command::STMT_RESET => {
                stats.command(cmd);
                // Format: 0x1a | stmt_id u32
                let id = ParseBuf(body)
                    .checked_eat_u32_le()
                    .ok_or(Error::Malformed { what: "COM_STMT_RESET" })?;
                let st = self
                    .statements
                    .get_mut(id)
                    .ok_or_else(|| ErrPacket::unknown_statement(id, "mysqld_stmt_reset"))?;
                st.reset();
                self.ok();
            }
            command::STMT_FETCH => {
                stats.command(cmd);
                self.fetch(body).await?;
            }
            command::FIELD_LIST => {
                // Deprecated since MySQL 5.7.11 and removed in 9.0; clients use SHOW COLUMNS.
                stats.command(cmd);
                return Err(ErrPacket::unknown_command().into());
            }
            command::REGISTER_SLAVE | command::BINLOG_DUMP | command::BINLOG_DUMP_GTID => {
                stats.command(cmd);
                let which = match cmd {
                    command::REGISTER_SLAVE => ReplicationCommand::RegisterSlave,
                    command::BINLOG_DUMP => ReplicationCommand::BinlogDump,
                    _ => ReplicationCommand::BinlogDumpGtid,
                };
                // A dump only reads to notice the client closing (mysqld's dump thread does not
                // read at all): no net_read_timeout while it streams, or an idle dump without
                // heartbeats would end after 30 s.
                self.io.set_read_timeout(None);
                let mut out = PacketWriter::new(&mut self.io);
                // Any KILL ends a dump (mysqld's dump loop stops on `thd->killed`), and with it
                // the connection. The dump's future only awaits at points it can be dropped at
                // (the file reader thread sees its channel closed).
                tokio::select! {
                    done = self.session.replication(which, packet, &mut out) => done?,
                    () = self.process.wait_killed(KILL_QUERY) => {
                        log::info!("binlog dump of connection {} killed", self.process.id());
                        return Err(Error::Closed);
                    }
                }
            }
            legacy::REFRESH
            | legacy::SHUTDOWN
            | legacy::PROCESS_INFO
            | legacy::PROCESS_KILL
            | legacy::DEBUG => {
                stats.command(cmd);
                self.legacy_command(cmd, body).await?;
            }
            _ => {
                stats.unknown_command();
                return Err(ErrPacket::unknown_command().into());
            }
        }
        Ok(Next::Continue)
    }

    /// An OK ending a command, with the session state it changed (COM_INIT_DB's schema).
    fn ok(&mut self) {
        let ok = OkResult { session_state: self.session.session_state(), ..OkResult::default() };
        write_ok(&mut self.io, &ok, self.status, 0x00, self.capabilities);
    }

    /// COM_CHANGE_USER, as mysqld's `dispatch_command` → `acl_authenticate` with
    /// `parse_com_change_user_packet`: the connection's state is cleaned up first
    /// (`THD::cleanup_connection`: prepared statements closed; the session, its transaction
    /// rolled back, its variables, is dropped), then the new account authenticates over the
    /// handshake's nonce (an AuthSwitchRequest when the client's plugin is not the account's,
    /// the plugin's exchange as at login), and a fresh session opens with the packet's
    /// database and character set. Any failure (wrong password, unknown database) is an ERR
    /// (1045, 1049, ...) and the connection closes, as with mysqld.
    async fn change_user(&mut self, body: &[u8]) -> Result<()> {
        let packet = ChangeUser::parse(body, self.capabilities)
            .ok_or(Error::Refused(ErrPacket::unknown_command()))?;
        for id in self.statements.drain_ids() {
            self.session.close_statement(id);
        }
        // The old session's state goes now, whatever the outcome (mysqld cleans up before it
        // authenticates): reset rolls back its transaction and clears its variables.
        self.session.reset().await?;
        self.status = StatusFlags::SERVER_STATUS_AUTOCOMMIT;
        let user = String::from_utf8_lossy(packet.user).into_owned();
        let host = self.info.host.clone();
        let shared = self.shared.clone();
        let account =
            shared.backend.user(&user, &host).unwrap_or_else(|| UserAuth::decoy(&user, &host));
        let client_plugin = match packet.plugin {
            Some(p) if !p.is_empty() => p.to_vec(),
            _ => AuthPlugin::MysqlNativePassword.name().as_bytes().to_vec(),
        };
        let (authenticated, password_used) = exchange(
            &shared,
            &mut self.io,
            &account,
            &client_plugin,
            packet.auth.to_vec(),
            false,
            &self.scramble,
            self.capabilities,
        )
        .await?;
        if !authenticated {
            return Err(Error::Refused(ErrPacket::access_denied(&user, &host, password_used)));
        }
        let mut info = self.info.clone();
        info.user = user;
        info.database =
            (!packet.db.is_empty()).then(|| String::from_utf8_lossy(packet.db).into_owned());
        if let Some(cs) = packet.charset.and_then(|c| u8::try_from(c).ok()) {
            info.collation = cs;
        }
        if let Some(attributes) = packet.attributes {
            info.attributes = attributes;
        }
        self.process.set_user(&info.user);
        self.process.set_db(info.database.as_deref());
        let mut session = shared.backend.open_session(&info).map_err(Error::Refused)?;
        if let Some(db) = info.database.as_deref() {
            match session.init_db(db).await {
                Ok(()) => {}
                Err(Error::Sql(e)) => return Err(Error::Refused(e)),
                Err(e) => return Err(e),
            }
        }
        // The old session (and its transaction, already rolled back) is dropped here.
        self.session = session;
        self.info = info;
        self.ok();
        Ok(())
    }

    /// The end-of-command EOF mysqld sends for COM_SET_OPTION (an OK with 0xFE header under
    /// CLIENT_DEPRECATE_EOF).
    fn eof(&mut self) {
        if self.capabilities.contains(CapabilityFlags::CLIENT_DEPRECATE_EOF) {
            write_ok(&mut self.io, &OkResult::default(), self.status, 0xFE, self.capabilities);
        } else {
            write_eof(&mut self.io, 0, self.status);
        }
    }

    async fn prepare(&mut self, sql: &str) -> Result<()> {
        let id = self.statements.allocate_id();
        let prepared = self.session.prepare(id, sql).await?;
        let (Ok(columns), Ok(params)) =
            (u16::try_from(prepared.columns.len()), u16::try_from(prepared.params.len()))
        else {
            self.session.close_statement(id);
            // mysqld's limit on placeholders (ER_PS_MANY_PARAM).
            return Err(ErrPacket::new(
                1390,
                "HY000",
                "Prepared statement contains too many placeholders",
            )
            .into());
        };
        self.statements.insert(id, prepared.params.len(), sql);
        // Format: 0x00 | stmt_id u32 | num_columns u16 | num_params u16 | 0x00 | warnings u16
        self.io.write_with(|buf| {
            buf.push(0x00);
            buf.extend_from_slice(&id.to_le_bytes());
            buf.extend_from_slice(&columns.to_le_bytes());
            buf.extend_from_slice(&params.to_le_bytes());
            buf.push(0x00);
            buf.extend_from_slice(&0u16.to_le_bytes());
        });
        write_column_block(&mut self.io, &prepared.params, self.capabilities, self.status);
        write_column_block(&mut self.io, &prepared.columns, self.capabilities, self.status);
        Ok(())
    }

    async fn execute(&mut self, body: &[u8]) -> Result<()> {
        let malformed = Error::Malformed { what: "COM_STMT_EXECUTE" };
        // Format: stmt_id u32 | flags u8 | iteration_count u32 | parameters (see stmt.rs)
        let mut buf = ParseBuf(body);
        let id = buf.checked_eat_u32_le().ok_or(malformed)?;
        let (Some(flags), Some(_iterations)) = (buf.checked_eat_u8(), buf.checked_eat_u32_le())
        else {
            return Err(Error::Malformed { what: "COM_STMT_EXECUTE" });
        };
        let st = self
            .statements
            .get_mut(id)
            .ok_or_else(|| ErrPacket::unknown_statement(id, "mysqld_stmt_execute"))?;
        // A new execution closes the statement's open cursor, as mysqld's.
        st.cursor = None;
        let params = st.decode_params(buf.eat_all())?;
        let mut out =
            ResultWriter::new(&mut self.io, self.capabilities, true, false, &mut self.status);
        if flags & CURSOR_TYPE_READ_ONLY != 0 {
            out = out.with_cursor();
        }
        let outcome = self.session.execute(id, &params, &mut out).await;
        out.finish(outcome)?;
        let cursor = out.take_cursor();
        if let (Some(cursor), Some(st)) = (cursor, self.statements.get_mut(id)) {
            st.cursor = Some(cursor);
        }
        Ok(())
    }

    /// COM_STMT_FETCH: the next rows of the statement's cursor.
    async fn fetch(&mut self, body: &[u8]) -> Result<()> {
        // Format: 0x1c | stmt_id u32 | num_rows u32
        let mut buf = ParseBuf(body);
        let (Some(id), Some(count)) = (buf.checked_eat_u32_le(), buf.checked_eat_u32_le()) else {
            return Err(Error::Malformed { what: "COM_STMT_FETCH" });
        };
        let st = self
            .statements
            .get_mut(id)
            .ok_or_else(|| ErrPacket::unknown_statement(id, "mysqld_stmt_fetch"))?;
        let Some(cursor) = st.cursor.as_mut() else {
            return Err(no_open_cursor(id).into());
        };
        let exhausted = cursor.fetch(&mut self.io, count, self.capabilities, self.status).await?;
        if exhausted {
            st.cursor = None;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mysql_common::packets::AuthPlugin as WirePlugin;
    use std::collections::HashMap;

    /// The Handshake Response parser (mysql_common's) must reject, never panic on, whatever a
    /// client sends: truncations and byte flips of a valid response, and random bytes.
    #[test]
    fn handshake_response_parsing_never_panics() {
        let attrs = HashMap::from([("_client_name".to_string(), "fuzz".to_string())]);
        let valid = HandshakeResponse::new(
            Some(vec![7u8; 20]),
            (8, 0, 40),
            Some(&b"user"[..]),
            Some(&b"db"[..]),
            Some(WirePlugin::CachingSha2Password),
            server_capabilities(),
            Some(attrs),
            1 << 24,
        );
        let mut bytes = Vec::new();
        valid.serialize(&mut bytes);
        let mut seed = 0x2545_F491_4F6C_DD1D_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for round in 0..20_000 {
            let mut input = bytes.clone();
            match round % 3 {
                0 => input.truncate((next() as usize) % (bytes.len() + 1)),
                1 => {
                    for _ in 0..1 + next() % 4 {
                        let i = (next() as usize) % input.len();
                        input[i] = next() as u8;
                    }
                }
                _ => input = (0..next() % 80).map(|_| next() as u8).collect(),
            }
            if let Ok(response) = ParseBuf(&input).parse::<HandshakeResponse<'_>>(()) {
                let _ = (response.user(), response.scramble_buf(), response.db_name());
                let _ = response.connect_attributes();
            }
        }
    }

    #[test]
    fn ipv4_mapped_peers_match_as_ipv4() {
        let peer: SocketAddr = "[::ffff:10.1.2.3]:3306".parse().expect("address");
        assert_eq!(host_of(peer).to_string(), "10.1.2.3");
        let peer: SocketAddr = "[::1]:3306".parse().expect("address");
        assert_eq!(host_of(peer).to_string(), "::1");
    }
}
