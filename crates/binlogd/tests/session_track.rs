//! CLIENT_SESSION_TRACK against a real `binlogd serve`: the server advertises the capability,
//! and to a client that sets it, every OK carries what the statement changed
//! (SERVER_SESSION_STATE_CHANGED + the session state), as mysqld's `Session_tracker`:
//! variables of `session_track_system_variables`, the schema (USE, COM_INIT_DB, the
//! handshake's database), `session_track_state_change`, `session_track_gtids`. The packets
//! are decoded by mysql_common's OK packet parser (what the Rust `mysql` drivers use); a
//! client without the capability gets mysqld's short OK.

mod support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use mysql_common::constants::{CapabilityFlags, StatusFlags};
use mysql_common::io::ParseBuf;
use mysql_common::packets::session_state_change::SessionStateChange;
use mysql_common::packets::{CommonOkPacket, OkPacket, OkPacketDeserializer};
use mysql_common::proto::MyDeserialize;

struct Raw {
    socket: TcpStream,
}

impl Raw {
    fn read(&mut self) -> (u8, Vec<u8>) {
        let mut header = [0u8; 4];
        self.socket.read_exact(&mut header).expect("packet header");
        let len = u32::from_le_bytes([header[0], header[1], header[2], 0]) as usize;
        let mut payload = vec![0; len];
        self.socket.read_exact(&mut payload).expect("packet payload");
        (header[3], payload)
    }

    fn send(&mut self, seq: u8, payload: &[u8]) {
        let mut out = (payload.len() as u32).to_le_bytes()[..3].to_vec();
        out.push(seq);
        out.extend_from_slice(payload);
        self.socket.write_all(&out).expect("send");
    }

    /// Logs in as root (no password) with `caps`, optionally naming a database; returns the
    /// greeting's capabilities and the auth OK.
    fn login(port: u16, caps: u32, db: Option<&str>) -> (Raw, u32, Vec<u8>) {
        let socket = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        socket.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
        let mut raw = Raw { socket };
        let (_, greeting) = raw.read();
        // protocol 10 | version NUL | thread id 4 | scramble 8 | 0 | caps low 2 | charset |
        // status 2 | caps high 2 ...
        let nul = greeting[1..].iter().position(|&b| b == 0).expect("version") + 1;
        let at = nul + 1 + 4 + 8 + 1;
        let low = u16::from_le_bytes([greeting[at], greeting[at + 1]]);
        let high = u16::from_le_bytes([greeting[at + 5], greeting[at + 6]]);
        let offered = u32::from(low) | u32::from(high) << 16;
        let caps = caps | if db.is_some() { 0x8 } else { 0 };
        let mut b = caps.to_le_bytes().to_vec();
        b.extend_from_slice(&(16u32 << 20).to_le_bytes());
        b.push(45);
        b.extend_from_slice(&[0; 23]);
        b.extend_from_slice(b"root\0");
        b.push(0);
        if let Some(db) = db {
            b.extend_from_slice(db.as_bytes());
            b.push(0);
        }
        b.extend_from_slice(b"caching_sha2_password\0");
        raw.send(1, &b);
        let (_, ok) = raw.read();
        assert_eq!(ok[0], 0x00, "login: {ok:?}");
        (raw, offered, ok)
    }

    /// COM_QUERY answered by an OK; returns the OK's payload.
    fn query_ok(&mut self, sql: &str) -> Vec<u8> {
        let mut payload = vec![0x03];
        payload.extend_from_slice(sql.as_bytes());
        self.send(0, &payload);
        let (_, answer) = self.read();
        assert_eq!(answer[0], 0x00, "{sql}: {}", String::from_utf8_lossy(&answer));
        answer
    }

    /// COM_INIT_DB answered by an OK.
    fn init_db(&mut self, db: &str) -> Vec<u8> {
        let mut payload = vec![0x02];
        payload.extend_from_slice(db.as_bytes());
        self.send(0, &payload);
        let (_, answer) = self.read();
        assert_eq!(answer[0], 0x00, "init_db: {}", String::from_utf8_lossy(&answer));
        answer
    }
}

/// PROTOCOL_41, SECURE_CONNECTION, PLUGIN_AUTH, LONG_PASSWORD, TRANSACTIONS.
const BASE: u32 = 0x0000_0200 | 0x0000_8000 | 0x0008_0000 | 0x1 | 0x2000;
const SESSION_TRACK: u32 = 0x0080_0000;

/// A decoded change, as text.
#[derive(Debug, PartialEq, Eq)]
enum Change {
    Var(String, String),
    Schema(String),
    State,
    Gtids(String),
    Other(String),
}

/// The OK packet's status and changes, decoded by mysql_common.
fn decode(ok: &[u8]) -> (StatusFlags, Vec<Change>) {
    let packet: OkPacket<'_> = OkPacketDeserializer::<CommonOkPacket>::deserialize(
        CapabilityFlags::CLIENT_SESSION_TRACK | CapabilityFlags::CLIENT_PROTOCOL_41,
        &mut ParseBuf(ok),
    )
    .expect("an OK packet mysql_common reads")
    .into();
    let mut out = Vec::new();
    for info in packet.session_state_info().expect("session state") {
        match info.decode().expect("a session state entry") {
            SessionStateChange::SystemVariables(vars) => {
                for v in vars {
                    out.push(Change::Var(v.name_str().into_owned(), v.value_str().into_owned()));
                }
            }
            SessionStateChange::Schema(s) => out.push(Change::Schema(s.as_str().into_owned())),
            SessionStateChange::IsTracked(true) => out.push(Change::State),
            // mysqld's data: encoding specification 0, then the set as a length-encoded
            // string; mysql_common hands over the raw data.
            SessionStateChange::Gtids(g) => {
                let raw = g.as_str().into_owned().into_bytes();
                assert_eq!(raw[0], 0, "encoding specification");
                assert_eq!(usize::from(raw[1]), raw.len() - 2, "length-encoded GTID set");
                out.push(Change::Gtids(String::from_utf8_lossy(&raw[2..]).into_owned()))
            }
            other => out.push(Change::Other(format!("{other:?}"))),
        }
    }
    (packet.status_flags(), out)
}

fn var(name: &str, value: &str) -> Change {
    Change::Var(name.to_string(), value.to_string())
}

#[test]
fn ok_packets_carry_the_session_state_changes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = support::start(&dir.path().join("data"), &["--initialize-insecure"]);
    let (mut c, offered, _) = Raw::login(server.port, BASE | SESSION_TRACK, None);
    assert!(offered & SESSION_TRACK != 0, "CLIENT_SESSION_TRACK advertised: {offered:#x}");
    c.query_ok("CREATE DATABASE t1");
    c.query_ok("CREATE DATABASE t2");

    // mysqld's default list: time_zone, autocommit and the character sets.
    let (status, changes) = decode(&c.query_ok("SET time_zone = '+01:00'"));
    assert!(status.contains(StatusFlags::SERVER_SESSION_STATE_CHANGED));
    assert_eq!(changes, [var("time_zone", "+01:00")]);
    let (_, changes) = decode(&c.query_ok("SET autocommit = 0"));
    assert_eq!(changes, [var("autocommit", "OFF")]);
    c.query_ok("SET autocommit = 1");
    // Not in the list: no change reported, no flag.
    let (status, changes) = decode(&c.query_ok("SET sql_mode = ''"));
    assert!(!status.contains(StatusFlags::SERVER_SESSION_STATE_CHANGED), "{changes:?}");
    assert!(changes.is_empty());
    let (_, changes) = decode(&c.query_ok("SET NAMES latin1"));
    assert!(changes.contains(&var("character_set_client", "latin1")), "{changes:?}");
    assert!(changes.contains(&var("character_set_results", "latin1")), "{changes:?}");
    assert!(changes.contains(&var("character_set_connection", "latin1")), "{changes:?}");
    c.query_ok("SET NAMES utf8mb4");

    // The schema: USE and COM_INIT_DB.
    let (_, changes) = decode(&c.query_ok("USE t1"));
    assert_eq!(changes, [Change::Schema("t1".into())]);
    let (_, changes) = decode(&c.init_db("t2"));
    assert_eq!(changes, [Change::Schema("t2".into())]);
    c.query_ok("SET session_track_schema = OFF");
    let (_, changes) = decode(&c.query_ok("USE t1"));
    assert!(changes.is_empty(), "{changes:?}");

    // '*' tracks every variable; the state-change tracker flags any change.
    c.query_ok("SET session_track_system_variables = '*'");
    c.query_ok("SET session_track_state_change = ON");
    let (_, changes) = decode(&c.query_ok("SET sql_mode = 'STRICT_TRANS_TABLES'"));
    assert_eq!(changes, [var("sql_mode", "STRICT_TRANS_TABLES"), Change::State]);
    let (_, changes) = decode(&c.query_ok("SET @u = 1"));
    assert_eq!(changes, [Change::State]);
    let (status, changes) = decode(&c.query_ok("CREATE TABLE x (id INT PRIMARY KEY)"));
    assert!(!status.contains(StatusFlags::SERVER_SESSION_STATE_CHANGED), "{changes:?}");

    // OWN_GTID: the GTID the session's commit got.
    c.query_ok("SET session_track_gtids = OWN_GTID");
    let (_, changes) = decode(&c.query_ok("INSERT INTO x VALUES (1)"));
    let gtid = changes.iter().find_map(|c| match c {
        Change::Gtids(g) => Some(g.clone()),
        _ => None,
    });
    let gtid = gtid.unwrap_or_else(|| panic!("a GTID: {changes:?}"));
    let (uuid, n) = gtid.split_once(':').expect("uuid:n");
    assert_eq!(uuid.len(), 36, "{gtid}");
    assert!(n.parse::<u64>().is_ok(), "{gtid}");
}

#[test]
fn the_handshake_database_and_clients_without_the_capability() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = support::start(&dir.path().join("data"), &["--initialize-insecure"]);
    let (mut c, _, _) = Raw::login(server.port, BASE, None);
    c.query_ok("CREATE DATABASE d");
    // Without CLIENT_SESSION_TRACK: mysqld's short OK (no info, no state), status unflagged.
    let ok = c.query_ok("SET time_zone = '+02:00'");
    assert_eq!(ok.len(), 7, "{ok:?}");
    let status = u16::from_le_bytes([ok[3], ok[4]]);
    assert_eq!(status & 0x4000, 0);
    // The handshake's database is reported in the login OK.
    let (_, _, login_ok) = Raw::login(server.port, BASE | SESSION_TRACK, Some("d"));
    let (_, changes) = decode(&login_ok);
    assert_eq!(changes, [Change::Schema("d".into())]);
}
