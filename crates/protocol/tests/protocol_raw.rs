//! The protocol server driven with raw bytes over loopback TCP: framing, sequence ids,
//! malformed and oversized packets, unknown commands, max_connections, multi-results,
//! replication routing.

mod protocol_support;

use mysql_common::constants::{CapabilityFlags, StatusFlags};
use mysql_common::io::ParseBuf;
use mysql_common::packets::{AuthPlugin, HandshakePacket, HandshakeResponse};
use mysql_common::proto::MySerialize;
use protocol::auth::scramble_native;
use protocol::ServerConfig;
use protocol_support::{start, ADMIN_USER, NATIVE_PASSWORD, NATIVE_USER};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A minimal client that speaks packets and nothing else.
struct Raw {
    socket: TcpStream,
    /// The greeting's nonce, once [`Raw::try_login`] read it.
    nonce: Vec<u8>,
}

impl Raw {
    async fn connect(port: u16) -> Self {
        let socket = TcpStream::connect(("127.0.0.1", port)).await.expect("connect");
        Self { socket, nonce: Vec::new() }
    }

    /// Reads one packet (chunks joined); `None` at EOF.
    async fn read(&mut self) -> Option<(u8, Vec<u8>)> {
        let mut payload = Vec::new();
        loop {
            let mut header = [0u8; 4];
            if self.socket.read_exact(&mut header).await.is_err() {
                return None;
            }
            let len = u32::from_le_bytes([header[0], header[1], header[2], 0]) as usize;
            let start = payload.len();
            payload.resize(start + len, 0);
            self.socket.read_exact(&mut payload[start..]).await.expect("packet body");
            if len < 0xFF_FFFF {
                return Some((header[3], payload));
            }
        }
    }

    async fn write(&mut self, seq: u8, payload: &[u8]) {
        let mut bytes = Vec::new();
        let mut seq = seq;
        let mut rest = payload;
        loop {
            let n = rest.len().min(0xFF_FFFF);
            bytes.extend_from_slice(&(n as u32).to_le_bytes()[..3]);
            bytes.push(seq);
            bytes.extend_from_slice(&rest[..n]);
            seq = seq.wrapping_add(1);
            rest = &rest[n..];
            if n < 0xFF_FFFF {
                break;
            }
        }
        self.socket.write_all(&bytes).await.expect("write");
    }

    /// Logs in as the native test user with the given client capabilities.
    async fn login(port: u16, extra: CapabilityFlags) -> Self {
        let (raw, ok) = Self::try_login(port, NATIVE_USER, extra).await;
        assert_eq!(ok[0], 0x00, "login OK, got {ok:?}");
        raw
    }

    /// Logs in as `user` (password NATIVE_PASSWORD); returns the server's answer (OK or ERR).
    async fn try_login(port: u16, user: &str, extra: CapabilityFlags) -> (Self, Vec<u8>) {
        let mut raw = Self::connect(port).await;
        let (seq, greeting) = raw.read().await.expect("greeting");
        assert_eq!(seq, 0);
        let handshake: HandshakePacket<'_> = ParseBuf(&greeting).parse(()).expect("handshake");
        assert_eq!(handshake.protocol_version(), 10);
        assert_eq!(handshake.server_version_ref(), b"8.0.40-binlogd");
        let nonce = handshake.nonce();
        raw.nonce = nonce.clone();
        let caps = CapabilityFlags::CLIENT_PROTOCOL_41
            | CapabilityFlags::CLIENT_SECURE_CONNECTION
            | CapabilityFlags::CLIENT_PLUGIN_AUTH
            | CapabilityFlags::CLIENT_LONG_PASSWORD
            | extra;
        let response = HandshakeResponse::new(
            Some(scramble_native(&nonce, NATIVE_PASSWORD.as_bytes()).to_vec()),
            (8, 0, 40),
            Some(user.as_bytes()),
            None::<Vec<u8>>,
            Some(AuthPlugin::MysqlNativePassword),
            caps,
            None,
            16 * 1024 * 1024,
        );
        let mut buf = Vec::new();
        response.serialize(&mut buf);
        raw.write(1, &buf).await;
        let (seq, ok) = raw.read().await.expect("auth answer");
        assert_eq!(seq, 2);
        (raw, ok)
    }

    /// Sends a command (seq 0) and reads the first answer packet.
    async fn command(&mut self, payload: &[u8]) -> Vec<u8> {
        self.write(0, payload).await;
        self.read().await.expect("answer").1
    }
}

/// (code, sqlstate, message) of an ERR packet.
fn err_of(packet: &[u8]) -> (u16, String, String) {
    assert_eq!(packet[0], 0xFF, "expected ERR, got {packet:?}");
    let code = u16::from_le_bytes([packet[1], packet[2]]);
    assert_eq!(packet[3], b'#');
    let state = String::from_utf8_lossy(&packet[4..9]).into_owned();
    let message = String::from_utf8_lossy(&packet[9..]).into_owned();
    (code, state, message)
}

/// Status flags of an OK packet whose lenenc ints are one byte each.
fn ok_status(packet: &[u8]) -> StatusFlags {
    StatusFlags::from_bits_truncate(u16::from_le_bytes([packet[3], packet[4]]))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_and_malformed_commands_get_err_and_the_connection_lives() {
    let server = start(ServerConfig::default()).await;
    let mut c = Raw::login(server.port(), CapabilityFlags::empty()).await;

    let (code, state, message) = err_of(&c.command(&[0x63, 1, 2]).await);
    assert_eq!((code, state.as_str(), message.as_str()), (1047, "08S01", "Unknown command"));

    // An empty packet, a truncated COM_STMT_EXECUTE, an unknown statement, a bad COM_STMT_RESET.
    assert_eq!(err_of(&c.command(&[]).await).0, 1835);
    assert_eq!(err_of(&c.command(&[0x17, 1, 0]).await).0, 1835);
    let (code, _, message) = err_of(&c.command(&[0x17, 9, 0, 0, 0, 0, 1, 0, 0, 0]).await);
    assert_eq!(code, 1243, "{message}");
    assert_eq!(err_of(&c.command(&[0x1a, 1]).await).0, 1835);
    // Invalid UTF-8 in a query.
    assert_eq!(err_of(&c.command(&[0x03, 0xFF, 0xFE]).await).0, 1300);
    // COM_FIELD_LIST is refused; COM_STMT_FETCH of a statement that does not exist is 1243
    // (mysqld's `mysqld_stmt_fetch`), a truncated one malformed.
    assert_eq!(err_of(&c.command(&[0x04, b't', 0]).await).0, 1047);
    assert_eq!(err_of(&c.command(&[0x1c, 1, 0, 0, 0, 1, 0, 0, 0]).await).0, 1243);
    assert_eq!(err_of(&c.command(&[0x1c, 1, 0]).await).0, 1835);
    // COM_INIT_DB of a database the session rejects.
    let (code, state, message) = err_of(&c.command(b"\x02nosuchdb").await);
    assert_eq!((code, state.as_str()), (1049, "42000"));
    assert_eq!(message, "Unknown database 'nosuchdb'");

    // Still alive.
    assert_eq!(c.command(&[0x0e]).await[0], 0x00);
    let answer = c.command(b"\x03select 1").await;
    assert_eq!(answer, vec![1], "one column");
    assert!(server.stats.snapshot().contains(&("Com_unknown", 1)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_sequence_id_is_an_error_and_closes() {
    let server = start(ServerConfig::default()).await;
    let mut c = Raw::login(server.port(), CapabilityFlags::empty()).await;
    c.write(5, b"\x03select 1").await;
    let (seq, packet) = c.read().await.expect("ERR");
    assert_eq!(seq, 6);
    let (code, state, message) = err_of(&packet);
    assert_eq!((code, state.as_str()), (1156, "08S01"));
    assert_eq!(message, "Got packets out of order");
    assert!(c.read().await.is_none(), "connection closed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_packet_gets_1153_and_closes() {
    let config = ServerConfig { max_allowed_packet: 1024, ..ServerConfig::default() };
    let server = start(config).await;
    let mut c = Raw::login(server.port(), CapabilityFlags::empty()).await;
    let mut query = b"\x03select echo ".to_vec();
    query.extend(std::iter::repeat_n(b'a', 2000));
    c.write(0, &query).await;
    let (_, packet) = c.read().await.expect("ERR");
    let (code, state, message) = err_of(&packet);
    assert_eq!((code, state.as_str()), (1153, "08S01"));
    assert_eq!(message, "Got a packet bigger than 'max_allowed_packet' bytes");
    assert!(c.read().await.is_none(), "connection closed");

    // A packet just under the limit still works on a new connection.
    let mut c = Raw::login(server.port(), CapabilityFlags::empty()).await;
    let mut query = b"\x03select echo ".to_vec();
    query.extend(std::iter::repeat_n(b'b', 1000));
    assert_eq!(c.command(&query).await, vec![1]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn packets_of_16_mib_and_more_are_split_and_joined() {
    let server = start(ServerConfig::default()).await;
    let mut c = Raw::login(server.port(), CapabilityFlags::CLIENT_DEPRECATE_EOF).await;
    // A query of 17 MiB crosses the 16 MiB chunk size; the echoed row does too.
    let text_len = 17 * 1024 * 1024;
    let mut query = b"\x03select echo ".to_vec();
    query.extend(std::iter::repeat_n(b'z', text_len));
    c.write(0, &query).await;
    assert_eq!(c.read().await.expect("column count").1, vec![1]);
    c.read().await.expect("column definition");
    let (_, row) = c.read().await.expect("row");
    // lenenc string over 16 MiB: 0xFE + 8-byte length, then the text.
    assert_eq!(row[0], 0xFE);
    let mut len = [0u8; 8];
    len.copy_from_slice(&row[1..9]);
    assert_eq!(u64::from_le_bytes(len) as usize, text_len);
    assert_eq!(row.len(), 9 + text_len);
    assert!(row[9..].iter().all(|&b| b == b'z'));
    let (_, end) = c.read().await.expect("terminator");
    assert_eq!(end[0], 0xFE);
    // Still in sync afterwards.
    assert_eq!(c.command(&[0x0e]).await[0], 0x00);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn result_sets_with_and_without_deprecate_eof() {
    let server = start(ServerConfig::default()).await;

    // Without CLIENT_DEPRECATE_EOF: count, definitions, EOF, rows, EOF.
    let mut c = Raw::login(server.port(), CapabilityFlags::empty()).await;
    assert_eq!(c.command(b"\x03select rows 2").await, vec![5]);
    for _ in 0..5 {
        let (_, def) = c.read().await.expect("column definition");
        assert_eq!(&def[..4], b"\x03def");
    }
    let (_, eof) = c.read().await.expect("EOF after definitions");
    assert_eq!(eof.len(), 5);
    assert_eq!(eof[0], 0xFE);
    let (_, row0) = c.read().await.expect("row 0");
    assert_eq!(&row0[..2], b"\x010");
    assert_eq!(*row0.last().expect("non-empty"), 0xFB, "NULL note");
    c.read().await.expect("row 1");
    let (seq, eof) = c.read().await.expect("final EOF");
    assert_eq!((eof[0], eof.len(), seq), (0xFE, 5, 10));

    // With it: count, definitions, rows, OK with 0xFE header.
    let mut c = Raw::login(server.port(), CapabilityFlags::CLIENT_DEPRECATE_EOF).await;
    assert_eq!(c.command(b"\x03select rows 1").await, vec![5]);
    for _ in 0..5 {
        c.read().await.expect("column definition");
    }
    let (_, row) = c.read().await.expect("row");
    assert_eq!(&row[..2], b"\x010");
    let (_, ok) = c.read().await.expect("terminator");
    assert_eq!(ok[0], 0xFE);
    assert!(ok.len() < 9, "an OK, not a row");
    assert!(ok_status(&ok).contains(StatusFlags::SERVER_STATUS_AUTOCOMMIT));

    // OK fields: affected rows, insert id, status, warnings, info.
    let ok = c.command(b"\x03insert").await;
    assert_eq!(&ok[..5], &[0x00, 3, 42, 2, 0]);
    assert_eq!(&ok[5..7], &[0, 0]);
    assert_eq!(&ok[8..], b"Records: 3  Duplicates: 0  Warnings: 0");
    let ok = c.command(b"\x03begin").await;
    assert!(ok_status(&ok).contains(StatusFlags::SERVER_STATUS_IN_TRANS));
    // The transaction state stays on later answers until the session changes it.
    let ok = c.command(&[0x0e]).await;
    assert!(ok_status(&ok).contains(StatusFlags::SERVER_STATUS_IN_TRANS));
    let ok = c.command(b"\x03commit").await;
    assert!(!ok_status(&ok).contains(StatusFlags::SERVER_STATUS_IN_TRANS));
    let ok = c.command(b"\x03warn").await;
    assert_eq!(u16::from_le_bytes([ok[5], ok[6]]), 1);
    let (code, state, _) = err_of(&c.command(b"\x03bogus").await);
    assert_eq!((code, state.as_str()), (1064, "42000"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn multi_statements_set_more_results_on_all_but_the_last() {
    let server = start(ServerConfig::default()).await;
    let mut c = Raw::login(
        server.port(),
        CapabilityFlags::CLIENT_MULTI_STATEMENTS
            | CapabilityFlags::CLIENT_MULTI_RESULTS
            | CapabilityFlags::CLIENT_DEPRECATE_EOF,
    )
    .await;
    assert_eq!(c.command(b"\x03select 1; insert; begin").await, vec![1]);
    c.read().await.expect("definition");
    c.read().await.expect("row");
    let (_, end) = c.read().await.expect("result set end");
    assert_eq!(end[0], 0xFE);
    assert!(ok_status(&end).contains(StatusFlags::SERVER_MORE_RESULTS_EXISTS));
    let (_, ok) = c.read().await.expect("insert OK");
    assert_eq!(ok[0], 0x00);
    assert!(ok_status(&ok).contains(StatusFlags::SERVER_MORE_RESULTS_EXISTS));
    let (_, ok) = c.read().await.expect("begin OK");
    assert!(!ok_status(&ok).contains(StatusFlags::SERVER_MORE_RESULTS_EXISTS));
    assert!(ok_status(&ok).contains(StatusFlags::SERVER_STATUS_IN_TRANS));

    // An error ends the batch: results before it keep MORE_RESULTS, then the ERR.
    assert_eq!(c.command(b"\x03insert; bogus; insert").await[0], 0x00);
    let (_, err) = c.read().await.expect("ERR");
    assert_eq!(err_of(&err).0, 1064);

    // COM_SET_OPTION turns multi-statements off: the same text is now one bad statement.
    let eof = c.command(&[0x1b, 1, 0]).await;
    assert_eq!(eof[0], 0xFE);
    assert_eq!(err_of(&c.command(b"\x03insert; insert").await).0, 1064);
    assert_eq!(err_of(&c.command(&[0x1b, 9, 0]).await).0, 1047);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_commands() {
    let server = start(ServerConfig::default()).await;
    let mut c = Raw::login(server.port(), CapabilityFlags::CLIENT_DEPRECATE_EOF).await;
    let stats = c.command(&[0x09]).await;
    assert!(String::from_utf8_lossy(&stats).starts_with("Uptime: "));
    assert_eq!(c.command(b"\x02somedb").await[0], 0x00);
    assert_eq!(c.command(b"\x03select database()").await, vec![1]);
    c.read().await.expect("definition");
    assert_eq!(c.read().await.expect("row").1, b"\x06somedb");
    c.read().await.expect("end");
    // COM_RESET_CONNECTION: the session forgets its database; statements are closed.
    let prepared = c.command(b"\x16select ?").await;
    assert_eq!(prepared[0], 0x00);
    c.read().await.expect("param definition");
    c.read().await.expect("column definition");
    assert_eq!(c.command(&[0x1f]).await[0], 0x00);
    let stmt = [prepared[1], prepared[2], prepared[3], prepared[4]];
    let mut execute = vec![0x17];
    execute.extend_from_slice(&stmt);
    execute.extend_from_slice(&[0, 1, 0, 0, 0, 0, 1, 253, 0, 1, b'x']);
    assert_eq!(err_of(&c.command(&execute).await).0, 1243);
    // COM_QUIT: the server closes without answering.
    c.write(0, &[0x01]).await;
    assert!(c.read().await.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replication_commands_reach_the_session() {
    let server = start(ServerConfig::default()).await;
    let mut c = Raw::login(server.port(), CapabilityFlags::empty()).await;
    // COM_BINLOG_DUMP: pos u32, flags u16, server_id u32, file name.
    let mut dump = vec![0x12, 4, 0, 0, 0, 0, 0, 2, 0, 0, 0];
    dump.extend_from_slice(b"binlog.000001");
    c.write(0, &dump).await;
    for i in 0..3u8 {
        let (seq, event) = c.read().await.expect("event");
        assert_eq!(seq, i + 1);
        assert_eq!(event, vec![0x00, b'e', b'v', i]);
    }
    let (_, eof) = c.read().await.expect("end of stream");
    assert_eq!(eof[0], 0xFE);
    // COM_REGISTER_SLAVE, then the connection goes on.
    assert_eq!(c.command(&[0x15, 2, 0, 0, 0, 0, 0, 0]).await[0], 0x00);
    assert_eq!(c.command(&[0x0e]).await[0], 0x00);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_handshakes_are_refused() {
    let server = start(ServerConfig::default()).await;
    // Garbage instead of a Handshake Response.
    let mut c = Raw::connect(server.port()).await;
    c.read().await.expect("greeting");
    c.write(1, b"garbage").await;
    let (seq, err) = c.read().await.expect("ERR");
    assert_eq!(seq, 2);
    let (code, state, message) = err_of(&err);
    assert_eq!((code, state.as_str(), message.as_str()), (1043, "08S01", "Bad handshake"));
    assert!(c.read().await.is_none());

    // A client that hangs up before answering.
    let mut c = Raw::connect(server.port()).await;
    c.read().await.expect("greeting");
    drop(c);

    // Wrong password.
    let mut c = Raw::connect(server.port()).await;
    let (_, greeting) = c.read().await.expect("greeting");
    let handshake: HandshakePacket<'_> = ParseBuf(&greeting).parse(()).expect("handshake");
    let response = HandshakeResponse::new(
        Some(scramble_native(&handshake.nonce(), b"wrong").to_vec()),
        (8, 0, 40),
        Some(NATIVE_USER.as_bytes()),
        None::<Vec<u8>>,
        Some(AuthPlugin::MysqlNativePassword),
        CapabilityFlags::CLIENT_PROTOCOL_41 | CapabilityFlags::CLIENT_SECURE_CONNECTION,
        None,
        1 << 24,
    );
    let mut buf = Vec::new();
    response.serialize(&mut buf);
    c.write(1, &buf).await;
    let (code, state, message) = err_of(&c.read().await.expect("ERR").1);
    assert_eq!((code, state.as_str()), (1045, "28000"));
    assert_eq!(message, "Access denied for user 'native_user'@'127.0.0.1' (using password: YES)");

    // Every failed attempt counts; the server still serves.
    let mut ok = Raw::login(server.port(), CapabilityFlags::empty()).await;
    assert_eq!(ok.command(&[0x0e]).await[0], 0x00);
    assert!(server.stats.aborted_connects() >= 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_handshake_responses_never_crash_the_server() {
    let server = start(ServerConfig::default()).await;
    let mut seed = 0x9E37_79B9_7F4A_7C15_u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for round in 0..100 {
        let mut c = Raw::connect(server.port()).await;
        c.read().await.expect("greeting");
        let len = (next() % 120) as usize;
        let mut body: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        if round % 2 == 0 && body.len() >= 4 {
            // Make the client flags plausible so parsing goes deeper.
            let caps = (CapabilityFlags::CLIENT_PROTOCOL_41
                | CapabilityFlags::CLIENT_PLUGIN_AUTH
                | CapabilityFlags::CLIENT_CONNECT_ATTRS
                | CapabilityFlags::CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA)
                .bits();
            body[..4].copy_from_slice(&caps.to_le_bytes());
        }
        c.write(1, &body).await;
        // Whatever the answer (ERR, an auth switch, ...), the server must stay up.
        let _ = c.read().await;
    }
    let mut c = Raw::login(server.port(), CapabilityFlags::empty()).await;
    assert_eq!(c.command(&[0x0e]).await[0], 0x00);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_connections_is_enforced_with_1040() {
    let config = ServerConfig { max_connections: 2, ..ServerConfig::default() };
    let server = start(config).await;
    let mut a = Raw::login(server.port(), CapabilityFlags::empty()).await;
    let _b = Raw::login(server.port(), CapabilityFlags::empty()).await;
    // As mysqld: max_connections + 1 sockets get the greeting; past max_connections only an
    // administrator logs in, anyone else gets 1040 after authenticating...
    let (mut third, err) =
        Raw::try_login(server.port(), NATIVE_USER, CapabilityFlags::empty()).await;
    let (code, state, message) = err_of(&err);
    assert_eq!((code, state.as_str(), message.as_str()), (1040, "08004", "Too many connections"));
    assert!(third.read().await.is_none());
    let _admin = Raw::try_login(server.port(), ADMIN_USER, CapabilityFlags::empty()).await;
    assert_eq!(_admin.1[0], 0x00, "the administrator's extra connection");
    // ...and with max_connections + 1 open, the next socket gets 1040 instead of a greeting.
    let mut fourth = Raw::connect(server.port()).await;
    let (seq, err) = fourth.read().await.expect("ERR instead of a greeting");
    assert_eq!(seq, 0);
    assert_eq!(err_of(&err).0, 1040);
    assert!(fourth.read().await.is_none());
    drop(_admin);

    // Once a connection ends its slot is free again (the server closes after COM_QUIT and
    // releases the slot as the task ends, so allow a bounded number of attempts).
    a.write(0, &[0x01]).await;
    assert!(a.read().await.is_none());
    let mut admitted = false;
    for _ in 0..200 {
        let mut c = Raw::connect(server.port()).await;
        let (_, first) = c.read().await.expect("first packet");
        if first[0] == 10 {
            admitted = true;
            break;
        }
        assert_eq!(err_of(&first).0, 1040);
        tokio::task::yield_now().await;
    }
    assert!(admitted, "a slot was released");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stalled_handshakes_are_dropped_after_connect_timeout() {
    let config = ServerConfig {
        max_connections: 1,
        connect_timeout: std::time::Duration::from_millis(200),
        ..ServerConfig::default()
    };
    let server = start(config).await;
    // A client that takes the only slot and never answers the greeting is disconnected...
    let mut stalled = Raw::connect(server.port()).await;
    stalled.read().await.expect("greeting");
    assert!(stalled.read().await.is_none(), "dropped at connect_timeout");
    // ...and its slot goes to the next client (bounded attempts while the task winds down).
    let mut admitted = false;
    for _ in 0..200 {
        let mut c = Raw::connect(server.port()).await;
        let (_, first) = c.read().await.expect("first packet");
        if first[0] == 10 {
            admitted = true;
            break;
        }
        assert_eq!(err_of(&first).0, 1040);
        tokio::task::yield_now().await;
    }
    assert!(admitted);
}

/// Reads packets until COM_STATISTICS' answer (a bare text packet starting "Uptime"), or EOF
/// (a fatal error closed the connection). Returns whether the connection is still open.
async fn drain_to_statistics(c: &mut Raw) -> bool {
    loop {
        match c.read().await {
            None => return false,
            Some((_, p)) if p.starts_with(b"Uptime") => return true,
            Some(_) => {}
        }
    }
}

/// A fuzz run on the command phase: after a normal login (and a prepared statement, so
/// COM_STMT_* bodies reach parameter parsing), random commands with random bodies, each
/// followed by COM_STATISTICS as a marker. Every round must end (answer or close) within 5 s,
/// and afterwards the server still logs in and answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_commands_after_login_never_crash_or_hang_the_server() {
    let server = start(ServerConfig::default()).await;
    let mut seed = 0xD1B5_4A32_D192_ED03_u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    // Commands that answer (or not) within the command phase; COM_QUIT, COM_CHANGE_USER and
    // the replication commands change the protocol state and are covered elsewhere.
    const COMMANDS: [u8; 13] =
        [0x02, 0x03, 0x04, 0x09, 0x0e, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1f];
    let mut closed = 0;
    for round in 0..300 {
        let mut c = Raw::login(server.port(), CapabilityFlags::CLIENT_MULTI_STATEMENTS).await;
        c.write(0, b"\x16select ?, ?").await;
        c.write(0, &[0x09]).await;
        assert!(drain_to_statistics(&mut c).await, "prepare closed the connection");
        for _ in 0..4 {
            let r = next();
            let command =
                if r % 8 == 0 { (r >> 8) as u8 | 0x20 } else { COMMANDS[(r >> 8) as usize % 13] };
            let len = (next() % 48) as usize;
            let mut body = vec![command];
            if matches!(command, 0x17 | 0x18 | 0x19 | 0x1a | 0x1c) && next() % 2 == 0 {
                body.extend_from_slice(&1u32.to_le_bytes());
            }
            body.extend((0..len).map(|_| next() as u8));
            c.write(0, &body).await;
            c.write(0, &[0x09]).await;
            let alive = tokio::time::timeout(Duration::from_secs(5), drain_to_statistics(&mut c))
                .await
                .unwrap_or_else(|_| panic!("round {round}: no answer to {body:02x?}"));
            if !alive {
                closed += 1;
                break;
            }
        }
    }
    eprintln!("300 fuzz rounds, {closed} ended by a fatal protocol error");
    let mut c = Raw::login(server.port(), CapabilityFlags::empty()).await;
    assert_eq!(c.command(&[0x0e]).await[0], 0x00);
}

/// Before login only a handshake-sized packet is taken: a length header over the limit is
/// refused with 1153 at once, without waiting for (or buffering) the body. Before the fix the
/// server accepted up to max_allowed_packet (64 MiB) from anyone who opened a socket.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pre_auth_packets_are_limited_to_a_handshake_size() {
    let server = start(ServerConfig::default()).await;
    let mut c = Raw::connect(server.port()).await;
    c.read().await.expect("greeting");
    // A header announcing 16 MiB - 1 and 1 KiB of body: the server must not wait for the rest.
    let mut bytes = vec![0xFF, 0xFF, 0xFF, 1];
    bytes.extend(std::iter::repeat_n(b'a', 1024));
    c.socket.write_all(&bytes).await.expect("write");
    let answer = tokio::time::timeout(Duration::from_secs(5), c.read())
        .await
        .expect("answered at once, not after 16 MiB");
    let (_, err) = answer.expect("ERR");
    assert_eq!(err_of(&err).0, 1153);
    assert!(c.read().await.is_none(), "connection closed");
    // A handshake response with the largest connect attributes a client sends (64 KiB) passes.
    let mut ok = Raw::connect(server.port()).await;
    ok.read().await.expect("greeting");
    let mut response = vec![0u8; 64 * 1024];
    response[..4].copy_from_slice(&0x0000_0200u32.to_le_bytes());
    ok.write(1, &response).await;
    let (_, err) = ok.read().await.expect("an answer, not a closed socket");
    assert_ne!(err_of(&err).0, 1153, "a 64 KiB handshake is not too large");
}

/// 151 (here 2) half-open sockets must not lock an administrator out: mysqld accepts
/// max_connections + 1 sockets and keeps the last login for CONNECTION_ADMIN / SUPER.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn half_open_sockets_leave_the_administrators_connection() {
    let config = ServerConfig { max_connections: 2, ..ServerConfig::default() };
    let server = start(config).await;
    let mut stalled = Vec::new();
    for _ in 0..2 {
        let mut c = Raw::connect(server.port()).await;
        c.read().await.expect("greeting");
        stalled.push(c);
    }
    let (mut admin, ok) = Raw::try_login(server.port(), ADMIN_USER, CapabilityFlags::empty()).await;
    assert_eq!(ok[0], 0x00, "administrator logged in past half-open sockets: {ok:?}");
    assert_eq!(admin.command(&[0x0e]).await[0], 0x00);
}

/// A client that stops reading its result is disconnected after net_write_timeout, and a
/// KILL ends a connection blocked writing at once; both leave the process list (the session,
/// its transaction and its locks are dropped with the connection).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn blocked_writers_end_at_net_write_timeout_or_kill() {
    let processes = std::sync::Arc::new(protocol::processlist::ProcessList::default());
    let config = ServerConfig { processes: processes.clone(), ..ServerConfig::default() };
    let server = start(config).await;
    for (write_ms, kill) in [(800u64, false), (600_000, true)] {
        let mut c = Raw::login(server.port(), CapabilityFlags::empty()).await;
        let set = format!("\x03set timeouts 30000 {write_ms} 600000").into_bytes();
        assert_eq!(c.command(&set).await[0], 0x00);
        assert_eq!(c.command(b"\x03begin").await[0], 0x00);
        // 64 MiB the client never reads: the socket buffers fill and the server's write blocks.
        c.write(0, b"\x03select big 67108864").await;
        tokio::time::sleep(Duration::from_millis(200)).await;
        let ids: Vec<u32> = processes.snapshot().iter().map(|p| p.id()).collect();
        assert_eq!(ids.len(), 1);
        if kill {
            processes.get(ids[0]).expect("listed").kill(protocol::processlist::KILL_CONNECTION);
        }
        let started = std::time::Instant::now();
        while !processes.snapshot().is_empty() {
            assert!(
                started.elapsed() < Duration::from_secs(5),
                "connection still listed (kill: {kill})"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        drop(c);
    }
}

/// wait_timeout: an idle client gets ER_CLIENT_INTERACTION_TIMEOUT (4031) and is closed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_clients_end_at_wait_timeout() {
    let server = start(ServerConfig::default()).await;
    let mut c = Raw::login(server.port(), CapabilityFlags::empty()).await;
    assert_eq!(c.command(b"\x03set timeouts 30000 60000 300").await[0], 0x00);
    let (seq, err) = tokio::time::timeout(Duration::from_secs(5), c.read())
        .await
        .expect("closed after wait_timeout")
        .expect("ERR 4031");
    assert_eq!(seq, 1);
    assert_eq!(err_of(&err).0, 4031);
    assert!(c.read().await.is_none());
}

/// connect_timeout bounds the whole connection phase: a client trickling its handshake
/// response one byte at a time is dropped all the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connect_timeout_bounds_the_whole_handshake() {
    let config =
        ServerConfig { connect_timeout: Duration::from_millis(500), ..ServerConfig::default() };
    let server = start(config).await;
    let mut c = Raw::connect(server.port()).await;
    c.read().await.expect("greeting");
    let started = std::time::Instant::now();
    c.socket.write_all(&[200, 0, 0, 1]).await.expect("header");
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        if c.socket.write_all(b"x").await.is_err() {
            break;
        }
    }
    let mut rest = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), c.socket.read_to_end(&mut rest)).await;
    assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
}

/// Sends a handshake response for `user` with `plugin` and `auth` as the first answer and
/// returns the server's next packet.
async fn first_answer(port: u16, user: &str, plugin: &str, auth: &[u8]) -> (Raw, Vec<u8>, Vec<u8>) {
    let mut raw = Raw::connect(port).await;
    let (_, greeting) = raw.read().await.expect("greeting");
    let handshake: HandshakePacket<'_> = ParseBuf(&greeting).parse(()).expect("handshake");
    let nonce = handshake.nonce();
    let caps = CapabilityFlags::CLIENT_PROTOCOL_41
        | CapabilityFlags::CLIENT_SECURE_CONNECTION
        | CapabilityFlags::CLIENT_PLUGIN_AUTH
        | CapabilityFlags::CLIENT_LONG_PASSWORD;
    let response = HandshakeResponse::new(
        Some(auth.to_vec()),
        (8, 0, 40),
        Some(user.as_bytes()),
        None::<Vec<u8>>,
        Some(AuthPlugin::Other(std::borrow::Cow::Owned(plugin.as_bytes().to_vec()))),
        caps,
        None,
        16 * 1024 * 1024,
    );
    let mut buf = Vec::new();
    response.serialize(&mut buf);
    raw.write(1, &buf).await;
    let (_, answer) = raw.read().await.expect("auth answer");
    (raw, answer, nonce)
}

/// The plugin an AuthSwitchRequest names, and its nonce.
fn switch_of(packet: &[u8]) -> (String, Vec<u8>) {
    assert_eq!(packet[0], 0xFE, "expected AuthSwitchRequest, got {packet:?}");
    let end = packet.iter().position(|&b| b == 0).expect("NUL after the plugin name");
    (String::from_utf8_lossy(&packet[1..end]).into_owned(), packet[end + 1..].to_vec())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_native_first_answer_gets_an_auth_switch() {
    // A MariaDB client that cannot use the announced plugin answers with
    // mysql_native_password and no data, then waits for a nonce: mysqld sends an
    // AuthSwitchRequest; binlogd answered 1045.
    let server = start(ServerConfig::default()).await;
    let (mut raw, answer, _) =
        first_answer(server.port(), NATIVE_USER, "mysql_native_password", b"").await;
    let (plugin, nonce) = switch_of(&answer);
    assert_eq!(plugin, "mysql_native_password");
    assert_eq!(nonce.len(), 21, "20-byte nonce and a NUL");
    raw.write(3, &scramble_native(&nonce[..20], NATIVE_PASSWORD.as_bytes())).await;
    let (_, ok) = raw.read().await.expect("auth result");
    assert_eq!(ok[0], 0x00, "login OK after the switch, got {ok:?}");
    // Any other plugin name, or an unknown one, is switched as well.
    for client_plugin in ["caching_sha2_password", "mysql_clear_password", "no_such_plugin", ""] {
        let (_, answer, _) =
            first_answer(server.port(), NATIVE_USER, client_plugin, b"\x01\x02").await;
        assert_eq!(
            switch_of(&answer).0,
            "mysql_native_password",
            "client plugin {client_plugin:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_users_get_the_exchange_of_an_existing_account() {
    // mysqld's decoy user: an unknown user is switched to a plugin like an existing account
    // would be, the same one every time for the same name.
    let server = start(ServerConfig::default()).await;
    let mut switched = 0;
    for i in 0..24 {
        let user = format!("nobody_{i}");
        let (_, a, _) = first_answer(server.port(), &user, "mysql_native_password", &[7; 20]).await;
        let (_, b, _) = first_answer(server.port(), &user, "mysql_native_password", &[7; 20]).await;
        assert_eq!(a[0], b[0], "the same exchange for the same unknown user");
        if a[0] == 0xFE {
            assert_eq!(switch_of(&a).0, "caching_sha2_password");
            switched += 1;
        } else {
            // Treated as a native account: the wrong answer is refused at once.
            assert_eq!(err_of(&a).0, 1045);
        }
    }
    assert!(switched > 0 && switched < 24, "both plugins are picked ({switched} of 24)");
}

/// Prepares `sql` and reads the whole COM_STMT_PREPARE answer; returns the statement id.
async fn prepare(raw: &mut Raw, sql: &str, deprecate_eof: bool) -> u32 {
    let mut cmd = vec![0x16];
    cmd.extend_from_slice(sql.as_bytes());
    let ok = raw.command(&cmd).await;
    assert_eq!(ok[0], 0x00, "prepare OK, got {ok:?}");
    let id = u32::from_le_bytes([ok[1], ok[2], ok[3], ok[4]]);
    let columns = usize::from(u16::from_le_bytes([ok[5], ok[6]]));
    let params = usize::from(u16::from_le_bytes([ok[7], ok[8]]));
    for block in [params, columns] {
        for _ in 0..block {
            raw.read().await.expect("definition");
        }
        if block > 0 && !deprecate_eof {
            assert_eq!(raw.read().await.expect("eof").1[0], 0xFE);
        }
    }
    id
}

/// The status flags of an EOF packet or of a 0xFE-headed OK with one-byte counts.
fn terminator_status(packet: &[u8]) -> StatusFlags {
    assert_eq!(packet[0], 0xFE, "expected a terminator, got {packet:?}");
    // EOF: 0xFE | warnings u16 | status u16; OK: 0xFE | 0 | 0 | status u16 | warnings u16:
    // the status is at offset 3 in both.
    StatusFlags::from_bits_truncate(u16::from_le_bytes([packet[3], packet[4]]))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cursors_send_rows_in_fetch_sized_batches() {
    let server = start(ServerConfig::default()).await;
    for deprecate_eof in [false, true] {
        let extra = if deprecate_eof {
            CapabilityFlags::CLIENT_DEPRECATE_EOF
        } else {
            CapabilityFlags::empty()
        };
        let mut raw = Raw::login(server.port(), extra).await;
        let id = prepare(&mut raw, "select rows ?", deprecate_eof).await;
        // COM_STMT_EXECUTE, CURSOR_TYPE_READ_ONLY, one LONGLONG parameter: 10 rows.
        let mut exec = vec![0x17];
        exec.extend_from_slice(&id.to_le_bytes());
        exec.push(1);
        exec.extend_from_slice(&1u32.to_le_bytes());
        exec.extend_from_slice(&[0, 1, 8, 0]);
        exec.extend_from_slice(&10i64.to_le_bytes());
        let count = raw.command(&exec).await;
        assert_eq!(count, [5], "column count");
        for _ in 0..5 {
            raw.read().await.expect("column definition");
        }
        // Even with CLIENT_DEPRECATE_EOF a status follows the metadata: a cursor is open,
        // and no row was sent.
        let (_, end) = raw.read().await.expect("metadata terminator");
        let status = terminator_status(&end);
        assert!(status.contains(StatusFlags::SERVER_STATUS_CURSOR_EXISTS), "{status:?}");
        let fetch = |n: u32| {
            let mut f = vec![0x1c];
            f.extend_from_slice(&id.to_le_bytes());
            f.extend_from_slice(&n.to_le_bytes());
            f
        };
        for (batch, last) in [(4, false), (4, false), (2, true)] {
            raw.write(0, &fetch(4)).await;
            for i in 0..batch {
                let (_, row) = raw.read().await.expect("row");
                assert_eq!(row[0], 0x00, "binary row {i} of {batch}, got {row:?}");
            }
            let (_, end) = raw.read().await.expect("fetch terminator");
            let status = terminator_status(&end);
            assert!(status.contains(StatusFlags::SERVER_STATUS_CURSOR_EXISTS), "{status:?}");
            assert_eq!(status.contains(StatusFlags::SERVER_STATUS_LAST_ROW_SENT), last);
        }
        // Exhausted: the cursor is closed.
        let err = raw.command(&fetch(1)).await;
        assert_eq!(err_of(&err).0, 1421);
        // Without the cursor flag the rows come at once, as before.
        exec[5] = 0;
        assert_eq!(raw.command(&exec).await, [5]);
        for _ in 0..5 {
            raw.read().await.expect("column definition");
        }
        if !deprecate_eof {
            raw.read().await.expect("eof");
        }
        for _ in 0..10 {
            assert_eq!(raw.read().await.expect("row").1[0], 0x00);
        }
        let (_, end) = raw.read().await.expect("end");
        assert!(!terminator_status(&end).contains(StatusFlags::SERVER_STATUS_CURSOR_EXISTS));
        // An unknown statement's fetch is 1243.
        let mut bad = fetch(1);
        bad[1] = 0x7f;
        assert_eq!(err_of(&raw.command(&bad).await).0, 1243);
    }
}

/// A COM_CHANGE_USER packet as libmysql's `send_change_user_packet` builds it (with
/// CLIENT_SECURE_CONNECTION and CLIENT_PLUGIN_AUTH): user, length-prefixed auth data,
/// database, collation, plugin.
fn change_user(user: &str, auth: &[u8], db: &str, collation: u16, plugin: &str) -> Vec<u8> {
    let mut p = vec![0x11];
    p.extend_from_slice(user.as_bytes());
    p.push(0);
    p.push(auth.len() as u8);
    p.extend_from_slice(auth);
    p.extend_from_slice(db.as_bytes());
    p.push(0);
    p.extend_from_slice(&collation.to_le_bytes());
    p.extend_from_slice(plugin.as_bytes());
    p.push(0);
    p
}

/// The one value of a one-row, one-column text result (without DEPRECATE_EOF).
async fn single_value(c: &mut Raw, sql: &str) -> Vec<u8> {
    let mut cmd = vec![0x03];
    cmd.extend_from_slice(sql.as_bytes());
    assert_eq!(c.command(&cmd).await, vec![1], "{sql}: one column");
    c.read().await.expect("definition");
    c.read().await.expect("eof");
    let row = c.read().await.expect("row").1;
    c.read().await.expect("eof");
    row[1..].to_vec()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn change_user_reauthenticates_and_resets_the_session() {
    let server = start(ServerConfig::default()).await;
    let mut c = Raw::login(server.port(), CapabilityFlags::empty()).await;
    let nonce = c.nonce.clone();
    assert_eq!(single_value(&mut c, "select user()").await, NATIVE_USER.as_bytes());
    let prepared = c.command(b"\x16select ?").await;
    assert_eq!(prepared[0], 0x00);
    c.read().await.expect("param definition");
    c.read().await.expect("eof");
    c.read().await.expect("column definition");
    c.read().await.expect("eof");

    // Same plugin: answered at once over the handshake's nonce; the database and collation
    // of the packet apply; the prepared statement is gone.
    let scramble = scramble_native(&nonce, NATIVE_PASSWORD.as_bytes());
    let packet = change_user(ADMIN_USER, &scramble, "otherdb", 8, "mysql_native_password");
    let ok = c.command(&packet).await;
    assert_eq!(ok[0], 0x00, "change user OK, got {ok:?}");
    assert_eq!(single_value(&mut c, "select user()").await, ADMIN_USER.as_bytes());
    assert_eq!(single_value(&mut c, "select database()").await, b"otherdb");
    assert_eq!(single_value(&mut c, "select collation").await, b"8");
    let mut execute = vec![0x17];
    execute.extend_from_slice(&prepared[1..5]);
    execute.extend_from_slice(&[0, 1, 0, 0, 0, 0, 1, 253, 0, 1, b'x']);
    assert_eq!(err_of(&c.command(&execute).await).0, 1243);

    // Another plugin (caching_sha2_password's answer for a native account): an
    // AuthSwitchRequest naming the account's plugin with the handshake's nonce.
    let packet = change_user(NATIVE_USER, &[9; 32], "", 45, "caching_sha2_password");
    let switch = c.command(&packet).await;
    let (plugin, switch_nonce) = switch_of(&switch);
    assert_eq!(plugin, "mysql_native_password");
    assert_eq!(&switch_nonce[..20], &nonce[..]);
    c.write(2, &scramble_native(&switch_nonce[..20], NATIVE_PASSWORD.as_bytes())).await;
    let (seq, ok) = c.read().await.expect("auth result");
    assert_eq!((seq, ok[0]), (3, 0x00), "OK after the switch, got {ok:?}");
    assert_eq!(single_value(&mut c, "select user()").await, NATIVE_USER.as_bytes());

    // A wrong password: 1045, and the connection closes (mysqld's answer).
    let packet = change_user(ADMIN_USER, &[1; 20], "", 45, "mysql_native_password");
    let (code, state, message) = err_of(&c.command(&packet).await);
    assert_eq!((code, state.as_str()), (1045, "28000"));
    assert!(message.contains(&format!("'{ADMIN_USER}'@")), "{message}");
    assert!(c.read().await.is_none(), "the connection closes");

    // A truncated packet (no database terminator) is refused and closes too.
    let mut c = Raw::login(server.port(), CapabilityFlags::empty()).await;
    let (code, _, _) = err_of(&c.command(b"\x11user\x00\x14abc").await);
    assert_eq!(code, 1047);
    assert!(c.read().await.is_none(), "the connection closes");
}
