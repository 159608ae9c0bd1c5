//! Bad bytes on the wire against a real `binlogd serve`: mutated packets before and after
//! login, every command byte, truncated and oversized length headers and wrong sequence ids,
//! for a bounded count with a fixed seed (docs/fuzzing.md). Afterwards the process must be
//! alive, its log free of panics, and a normal client served; the server must answer a fresh
//! connection within 10 s throughout (a hang counts as a failure).
//!
//! Also here, since both need a client that stops reading: a connection blocked writing its
//! result holds its transaction's row locks only until `net_write_timeout` or a KILL.

mod support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use fuzzing::{mutate, Rng};
use mysql_async::prelude::Queryable;
use support::sql::{conn, conn_as};

/// A blocking raw client: packets and nothing else.
struct Raw {
    socket: TcpStream,
}

impl Raw {
    fn connect(port: u16) -> Raw {
        let socket = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        socket.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
        socket.set_write_timeout(Some(Duration::from_secs(10))).expect("timeout");
        socket.set_nodelay(true).expect("nodelay");
        Raw { socket }
    }

    /// One packet (seq, payload); `None` on EOF, error or timeout.
    fn read(&mut self) -> Option<(u8, Vec<u8>)> {
        let mut header = [0u8; 4];
        self.socket.read_exact(&mut header).ok()?;
        let len = u32::from_le_bytes([header[0], header[1], header[2], 0]) as usize;
        let mut payload = vec![0; len];
        self.socket.read_exact(&mut payload).ok()?;
        Some((header[3], payload))
    }

    fn send_raw(&mut self, bytes: &[u8]) -> bool {
        self.socket.write_all(bytes).is_ok()
    }

    fn send(&mut self, seq: u8, payload: &[u8]) -> bool {
        self.send_raw(&frame(seq, payload))
    }

    /// Logs in as `user` with an empty password (accounts made with no password).
    fn login(port: u16, user: &str) -> Raw {
        let mut raw = Raw::connect(port);
        raw.read().expect("greeting");
        assert!(raw.send(1, &handshake_response(user, b"")), "send handshake response");
        let (_, ok) = raw.read().expect("auth answer");
        assert_eq!(ok[0], 0x00, "login as {user}: {ok:?}");
        raw
    }

    /// COM_QUERY and its answer, for statements that answer OK or ERR.
    fn query_ok(&mut self, sql: &str) {
        let mut payload = vec![0x03];
        payload.extend_from_slice(sql.as_bytes());
        assert!(self.send(0, &payload));
        let (_, answer) = self.read().expect("answer");
        assert_eq!(answer[0], 0x00, "{sql}: {}", String::from_utf8_lossy(&answer));
    }
}

fn frame(seq: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = (payload.len() as u32).to_le_bytes()[..3].to_vec();
    out.push(seq);
    out.extend_from_slice(payload);
    out
}

/// Capabilities: PROTOCOL_41, SECURE_CONNECTION, PLUGIN_AUTH, CONNECT_WITH_DB off,
/// CONNECT_ATTRS, LONG_PASSWORD, TRANSACTIONS.
const CAPS: u32 = 0x0000_0200 | 0x0000_8000 | 0x0008_0000 | 0x0010_0000 | 0x1 | 0x2000;

/// A Handshake Response 41 for `caching_sha2_password` with `auth` as the auth data.
fn handshake_response(user: &str, auth: &[u8]) -> Vec<u8> {
    let mut b = CAPS.to_le_bytes().to_vec();
    b.extend_from_slice(&(16u32 << 20).to_le_bytes());
    b.push(45);
    b.extend_from_slice(&[0; 23]);
    b.extend_from_slice(user.as_bytes());
    b.push(0);
    b.push(auth.len() as u8);
    b.extend_from_slice(auth);
    b.extend_from_slice(b"caching_sha2_password\0");
    let attrs: &[(&str, &str)] = &[("_client_name", "wire_fuzz"), ("_os", "Linux")];
    let mut body = Vec::new();
    for (k, v) in attrs {
        body.push(k.len() as u8);
        body.extend_from_slice(k.as_bytes());
        body.push(v.len() as u8);
        body.extend_from_slice(v.as_bytes());
    }
    b.push(body.len() as u8);
    b.extend_from_slice(&body);
    b
}

/// Command packets to mutate: one of each command the server parses, and the inputs that
/// killed it before (a COM_BINLOG_DUMP_GTID declaring 2^45 and 2^62 intervals).
fn command_seeds() -> Vec<Vec<u8>> {
    let sid_block = |n_intervals: u64| {
        let mut b = 1u64.to_le_bytes().to_vec();
        b.extend_from_slice(&[0x3e; 16]);
        b.extend_from_slice(&n_intervals.to_le_bytes());
        b.extend_from_slice(&1u64.to_le_bytes());
        b.extend_from_slice(&6u64.to_le_bytes());
        b
    };
    let dump_gtid = |block: Vec<u8>| {
        // 0x1e | flags (NON_BLOCK) | server_id | name_size | name | pos | data_size | data
        let mut p = vec![0x1e, 0x05, 0x00];
        p.extend_from_slice(&9u32.to_le_bytes());
        p.extend_from_slice(&0u32.to_le_bytes());
        p.extend_from_slice(&4u64.to_le_bytes());
        p.extend_from_slice(&(block.len() as u32).to_le_bytes());
        p.extend_from_slice(&block);
        p
    };
    let mut seeds = vec![
        b"\x03SELECT 1".to_vec(),
        b"\x03SELECT @@version, CONNECTION_ID()".to_vec(),
        b"\x02test".to_vec(),
        b"\x0e".to_vec(),
        b"\x09".to_vec(),
        b"\x1b\x00\x00".to_vec(),
        b"\x16SELECT ?, ?".to_vec(),
        // COM_STMT_EXECUTE of statement 1 with two typed parameters.
        b"\x17\x01\x00\x00\x00\x00\x01\x00\x00\x00\x00\x01\x08\x00\xfd\x00\x2a\x00\x00\x00\x00\x00\x00\x00\x02hi"
            .to_vec(),
        b"\x18\x01\x00\x00\x00\x00\x00long data".to_vec(),
        b"\x19\x01\x00\x00\x00".to_vec(),
        b"\x1a\x01\x00\x00\x00".to_vec(),
        b"\x1c\x01\x00\x00\x00\x01\x00\x00\x00".to_vec(),
        b"\x15\x09\x00\x00\x00\x09127.0.0.1\x04repl\x00\xeb\x0c\x00\x00\x00\x00\x00\x00\x00\x00"
            .to_vec(),
        // COM_BINLOG_DUMP, non-blocking, of a file that does not exist.
        b"\x12\x04\x00\x00\x00\x01\x00\x09\x00\x00\x00binlog.999999".to_vec(),
        b"\x0d".to_vec(),
        b"\x0c\xff\xff\x00\x00".to_vec(),
        b"\x1f".to_vec(),
        b"\x11fuzz\x00\x00".to_vec(),
    ];
    for n in [1, 1 << 45, 1 << 62] {
        seeds.push(dump_gtid(sid_block(n)));
    }
    seeds
}

/// The server answers a fresh login and COM_PING within 10 s.
fn alive(port: u16) -> bool {
    let mut raw = Raw::connect(port);
    let Some(_) = raw.read() else { return false };
    if !raw.send(1, &handshake_response("fuzz", b"")) {
        return false;
    }
    match raw.read() {
        Some((_, ok)) if ok[0] == 0x00 => {}
        _ => return false,
    }
    raw.send(0, &[0x0e]) && raw.read().is_some_and(|(_, ok)| ok[0] == 0x00)
}

/// Reads whatever comes within a short time (answers, or EOF), so the next packet meets a
/// server that processed this one.
fn drain(raw: &mut Raw) {
    let _ = raw.socket.set_read_timeout(Some(Duration::from_millis(60)));
    let mut buf = [0u8; 65536];
    loop {
        match raw.socket.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
    }
    let _ = raw.socket.set_read_timeout(Some(Duration::from_secs(10)));
}

#[test]
fn mutated_packets_never_kill_or_hang_the_server() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = support::start(&dir.path().join("data"), &["--initialize-insecure"]);
    let port = server.port;
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    rt.block_on(async {
        let mut c = conn(port).await;
        for sql in [
            "CREATE USER 'fuzz'@'%'",
            "GRANT SELECT, INSERT, REPLICATION SLAVE ON *.* TO 'fuzz'@'%'",
            "CREATE DATABASE test",
        ] {
            c.query_drop(sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
        }
    });

    let seed = std::env::var("FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(17);
    let mut rng = Rng::new(seed);
    let commands = command_seeds();
    let handshake = vec![handshake_response("fuzz", b""), handshake_response("root", &[1; 32])];
    let budget = Duration::from_secs(40);
    let started = Instant::now();
    let (mut sessions, mut packets, mut hangs) = (0u64, 0u64, 0u64);
    while sessions < 400 && started.elapsed() < budget {
        sessions += 1;
        let pre_auth = rng.below(4) == 0;
        let mut raw = if pre_auth {
            let mut raw = Raw::connect(port);
            raw.read();
            raw
        } else {
            Raw::login(port, "fuzz")
        };
        let seeds = if pre_auth { &handshake } else { &commands };
        for _ in 0..1 + rng.below(8) {
            packets += 1;
            let base = &seeds[rng.below(seeds.len())];
            let mut payload = mutate(&mut rng, base, seeds, 4096);
            if !pre_auth && rng.below(3) == 0 && !payload.is_empty() {
                // Every command byte, 0x00 to 0xFF.
                payload[0] = rng.next_u64() as u8;
            }
            let expected_seq: u8 = if pre_auth { 1 } else { 0 };
            let ok = match rng.below(8) {
                // A wrong sequence id.
                0 => raw.send(expected_seq.wrapping_add(1 + rng.below(254) as u8), &payload),
                // A length header larger than what follows (truncated), then the next packet.
                1 => {
                    let mut bytes = frame(expected_seq, &payload);
                    let claimed = payload.len() + 1 + rng.below(1 << 20);
                    bytes[..3].copy_from_slice(&(claimed as u32).to_le_bytes()[..3]);
                    raw.send_raw(&bytes)
                }
                // An oversized length header (16 MiB - 1, a split packet's first chunk).
                2 => raw.send_raw(&[0xff, 0xff, 0xff, expected_seq]) && raw.send_raw(&payload),
                // Cut short: half a header or half a packet, then the socket closes.
                3 => {
                    let bytes = frame(expected_seq, &payload);
                    let cut = rng.below(bytes.len());
                    raw.send_raw(&bytes[..cut]);
                    false
                }
                _ => raw.send(expected_seq, &payload),
            };
            if !ok {
                break;
            }
            drain(&mut raw);
        }
        drop(raw);
        if sessions % 25 == 0 && !alive(port) {
            hangs += 1;
        }
    }
    assert!(alive(port), "the server answers after the fuzzing");
    eprintln!(
        "wire fuzz: {sessions} sessions, {packets} packets (seed {seed}) in {:?}",
        started.elapsed()
    );
    assert_eq!(hangs, 0, "liveness checks failed");
    let mut child = server;
    assert!(child.child.try_wait().expect("try_wait").is_none(), "the server process is alive");
    let log = std::fs::read_to_string(&child.log).expect("log");
    assert!(!log.contains("panicked"), "a panic in the server log:\n{log}");
    // A normal client is still served.
    rt.block_on(async {
        let mut c = conn_as(port, "fuzz", "").await;
        let one: Option<i64> = c.query_first("SELECT 1").await.expect("SELECT 1");
        assert_eq!(one, Some(1));
    });
    let _ = &mut child;
}

/// A connection that stops reading its result (its socket full) keeps its row locks only
/// until net_write_timeout; KILL ends it at once. Before, it held them forever and KILL left
/// it "Killed" while other sessions timed out on its rows (1205).
#[test]
fn a_client_that_stops_reading_loses_its_locks() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = support::start(&dir.path().join("data"), &["--initialize-insecure"]);
    let port = server.port;
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    rt.block_on(async {
        let mut c = conn(port).await;
        c.query_drop("CREATE DATABASE d").await.expect("db");
        c.query_drop("CREATE TABLE d.t (id INT PRIMARY KEY, n INT, v TEXT)").await.expect("t");
        // 400 rows of 60 000 bytes (TEXT holds 65 535): 24 MB, more than the socket buffers.
        let text = "x".repeat(60_000);
        for batch in 0..20 {
            let rows: Vec<String> =
                (0..20).map(|i| format!("({}, 0, '{text}')", batch * 20 + i)).collect();
            c.query_drop(format!("INSERT INTO d.t VALUES {}", rows.join(",")))
                .await
                .expect("insert");
        }
    });
    for (write_timeout, kill) in [(2, false), (600, true)] {
        let mut a = Raw::login(port, "root");
        a.query_ok(&format!("SET SESSION net_write_timeout = {write_timeout}"));
        a.query_ok("BEGIN");
        a.query_ok("UPDATE d.t SET n = n + 1 WHERE id = 1");
        // 24 MB that A never reads.
        assert!(a.send(0, b"\x03SELECT v FROM d.t"));
        rt.block_on(async {
            let mut root = conn(port).await;
            let mut b = conn(port).await;
            b.query_drop("SET SESSION innodb_lock_wait_timeout = 20").await.expect("set");
            tokio::time::sleep(Duration::from_millis(500)).await;
            if kill {
                let rows: Vec<mysql_async::Row> =
                    root.query("SHOW FULL PROCESSLIST").await.expect("processlist");
                let info = |r: &mysql_async::Row| r.get::<Option<String>, _>(7).flatten();
                let id: u64 = rows
                    .iter()
                    .find(|r| info(r).as_deref() == Some("SELECT v FROM d.t"))
                    .and_then(|r| r.get(0))
                    .expect("A is listed");
                root.query_drop(format!("KILL {id}")).await.expect("KILL");
            }
            let started = Instant::now();
            b.query_drop("UPDATE d.t SET n = n + 10 WHERE id = 1")
                .await
                .unwrap_or_else(|e| panic!("B waited on A's lock (kill: {kill}): {e}"));
            let waited = started.elapsed();
            assert!(waited < Duration::from_secs(if kill { 3 } else { 8 }), "{waited:?}");
            // A's transaction rolled back: only B's update is there.
            let n: Option<i64> =
                b.query_first("SELECT n FROM d.t WHERE id = 1").await.expect("select");
            assert_eq!(n.map(|n| n % 10), Some(0), "A's uncommitted +1 was rolled back");
        });
        drop(a);
    }
    drop(server);
}
