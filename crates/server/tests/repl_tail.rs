//! Dump readers that reached the synced end share one reader of the binlog (the tail,
//! `src/replication/tail.rs`): several raw COM_BINLOG_DUMP clients must still receive, byte
//! for byte, the same stream — the files' events as stored, each file announced by a fake
//! ROTATE and its FORMAT_DESCRIPTION — across a rotation that happens while they follow, with
//! consecutive packet sequence numbers. The test also checks from /proc that the readers did
//! leave their dump threads for the tail, so the shared path is what it exercised.

mod support;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mysql_async::prelude::Queryable;
use mysql_async::Conn;
use parking_lot::Mutex;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const READERS: usize = 4;
const ROTATE: u8 = 4;
const FORMAT_DESCRIPTION: u8 = 15;
const LOG_EVENT_ARTIFICIAL_F: u16 = 0x20;

/// A minimal client speaking the wire protocol itself, so the test sees the raw packets.
struct Raw {
    socket: TcpStream,
}

impl Raw {
    async fn read(&mut self) -> Option<(u8, Vec<u8>)> {
        let mut header = [0u8; 4];
        self.socket.read_exact(&mut header).await.ok()?;
        let len = u32::from_le_bytes([header[0], header[1], header[2], 0]) as usize;
        let mut payload = vec![0u8; len];
        self.socket.read_exact(&mut payload).await.ok()?;
        Some((header[3], payload))
    }

    async fn write(&mut self, seq: u8, payload: &[u8]) {
        let mut packet = (payload.len() as u32).to_le_bytes();
        packet[3] = seq;
        self.socket.write_all(&packet).await.expect("write header");
        self.socket.write_all(payload).await.expect("write payload");
    }

    /// Logs in as root (empty password) without TLS.
    async fn login(port: u16) -> Raw {
        let socket = TcpStream::connect(("127.0.0.1", port)).await.expect("connect");
        let mut raw = Raw { socket };
        raw.read().await.expect("greeting");
        // HandshakeResponse41: CLIENT_LONG_PASSWORD | CLIENT_PROTOCOL_41 |
        // CLIENT_SECURE_CONNECTION | CLIENT_PLUGIN_AUTH, max packet, utf8mb4, 23 zero bytes,
        // user, empty auth response, plugin name.
        let caps: u32 = 0x1 | 0x200 | 0x8000 | 0x80000;
        let mut response = caps.to_le_bytes().to_vec();
        response.extend_from_slice(&(16u32 << 20).to_le_bytes());
        response.push(45);
        response.extend_from_slice(&[0; 23]);
        response.extend_from_slice(b"root\0");
        response.push(0);
        response.extend_from_slice(b"caching_sha2_password\0");
        raw.write(1, &response).await;
        loop {
            let (seq, answer) = raw.read().await.expect("auth answer");
            match answer[0] {
                0x00 => break,
                // AuthSwitchRequest: the empty password's answer is empty.
                0xFE => raw.write(seq + 1, &[]).await,
                // AuthMoreData (fast auth success): the OK follows.
                0x01 => {}
                _ => panic!("login refused: {answer:?}"),
            }
        }
        raw
    }

    async fn query(&mut self, sql: &str) {
        let mut packet = vec![0x03];
        packet.extend_from_slice(sql.as_bytes());
        self.write(0, &packet).await;
        let (_, answer) = self.read().await.expect("answer");
        assert_eq!(answer[0], 0x00, "{sql}: {answer:?}");
    }
}

/// What one reader received: every event (packet minus the 0x00 byte), in order.
#[derive(Default)]
struct Received {
    events: Vec<Vec<u8>>,
    /// The file of the last fake ROTATE and the end of the last real event.
    file: String,
    pos: u64,
    error: Option<String>,
}

async fn follow(port: u16, server_id: u32, received: Arc<Mutex<Received>>) {
    let mut raw = Raw::login(port).await;
    raw.query("SET @master_binlog_checksum = 'CRC32'").await;
    // COM_BINLOG_DUMP: pos u32, flags u16 (0: blocking), server id u32, file name.
    let mut dump = vec![0x12];
    dump.extend_from_slice(&4u32.to_le_bytes());
    dump.extend_from_slice(&0u16.to_le_bytes());
    dump.extend_from_slice(&server_id.to_le_bytes());
    dump.extend_from_slice(b"binlog.000001");
    raw.write(0, &dump).await;
    let mut expect_seq = 1u8;
    while let Some((seq, packet)) = raw.read().await {
        let mut r = received.lock();
        if seq != expect_seq || packet.first() != Some(&0x00) || packet.len() < 20 {
            r.error = Some(format!("packet {seq} (expected {expect_seq}): {packet:?}"));
            return;
        }
        expect_seq = expect_seq.wrapping_add(1);
        let event = packet[1..].to_vec();
        let flags = u16::from_le_bytes([event[17], event[18]]);
        if event[4] == ROTATE && flags & LOG_EVENT_ARTIFICIAL_F != 0 {
            // Format: header(19) | position u64 | file name | crc32
            r.file = String::from_utf8(event[27..event.len() - 4].to_vec()).expect("file name");
        }
        let log_pos = u32::from_le_bytes([event[13], event[14], event[15], event[16]]);
        if log_pos != 0 {
            r.pos = u64::from(log_pos);
        }
        r.events.push(event);
    }
}

async fn master_status(conn: &mut Conn) -> (String, u64) {
    let row: (String, u64) = conn
        .query_first("SHOW MASTER STATUS")
        .await
        .expect("show master status")
        .map(|row: mysql_async::Row| {
            (row.get::<String, _>(0).expect("file"), row.get::<u64, _>(1).expect("position"))
        })
        .expect("a row");
    row
}

/// Waits until every reader reached the current synced end.
async fn wait_caught_up(conn: &mut Conn, readers: &[Arc<Mutex<Received>>]) {
    let (file, pos) = master_status(conn).await;
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let done = readers.iter().all(|r| {
            let r = r.lock();
            assert!(r.error.is_none(), "{:?}", r.error);
            r.file == file && r.pos == pos
        });
        if done {
            return;
        }
        assert!(Instant::now() < deadline, "readers did not reach {file}:{pos}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The server's thread names.
fn threads(pid: u32) -> Vec<String> {
    let mut names = Vec::new();
    for task in std::fs::read_dir(format!("/proc/{pid}/task")).expect("tasks") {
        let path = task.expect("task").path().join("comm");
        if let Ok(name) = std::fs::read_to_string(path) {
            names.push(name.trim().to_string());
        }
    }
    names
}

/// Waits until the dump threads are gone and the tail runs: the readers follow the tail.
async fn wait_on_tail(pid: u32) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let names = threads(pid);
        let dumps = names.iter().filter(|n| n.starts_with("binlog-dump")).count();
        if dumps == 0 && names.iter().any(|n| n == "binlog-tail") {
            return;
        }
        assert!(Instant::now() < deadline, "readers still on dump threads: {names:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Checks one reader's stream against the files: per file a fake ROTATE naming it, its
/// FORMAT_DESCRIPTION (in-use flag cleared, CRC recomputed), then its bytes as stored.
fn check_against_files(binlog_dir: &Path, events: &[Vec<u8>], files: &[&str]) {
    let mut at = 0;
    for file in files {
        let bytes = std::fs::read(binlog_dir.join(file)).expect("binlog file");
        let rotate = &events[at];
        assert_eq!(rotate[4], ROTATE, "{file}: a fake ROTATE first");
        assert_eq!(&rotate[27..rotate.len() - 4], file.as_bytes());
        let fde = &events[at + 1];
        assert_eq!(fde[4], FORMAT_DESCRIPTION);
        let fde_end = 4 + fde.len();
        // All but the flags (17..19) and the CRC as in the file.
        assert_eq!(fde[..17], bytes[4..4 + 17]);
        assert_eq!(fde[19..fde.len() - 4], bytes[4 + 19..fde_end - 4]);
        at += 2;
        let mut rest = Vec::new();
        while at < events.len() && !(events[at][4] == ROTATE && events[at][13..17] == [0; 4]) {
            rest.extend_from_slice(&events[at]);
            at += 1;
        }
        assert!(rest == bytes[fde_end..], "{file}: the events differ from the file's bytes");
    }
    assert_eq!(at, events.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn caught_up_readers_share_the_tail_and_receive_the_files_bytes_across_a_rotation() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let datadir = tmp.path().join("data");
    let server = support::start(&datadir, &["--initialize-insecure"]);
    let port = server.port;
    let pid = server.child.id();
    let mut conn = support::sql::conn(port).await;
    conn.query_drop("CREATE DATABASE d").await.expect("ddl");
    conn.query_drop("CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(40))").await.expect("ddl");
    for i in 0..20 {
        conn.query_drop(format!("INSERT INTO d.t VALUES ({i}, 'before {i}')")).await.expect("ins");
    }

    let readers: Vec<Arc<Mutex<Received>>> =
        (0..READERS).map(|_| Arc::new(Mutex::new(Received::default()))).collect();
    let tasks: Vec<_> = readers
        .iter()
        .enumerate()
        .map(|(i, r)| tokio::spawn(follow(port, 500 + i as u32, r.clone())))
        .collect();
    wait_caught_up(&mut conn, &readers).await;
    wait_on_tail(pid).await;

    // Commits from two connections while the readers follow the tail, a rotation among them.
    let mut other = support::sql::conn(port).await;
    for round in 0..3 {
        let (a, b) = tokio::join!(
            async {
                for i in 0..40 {
                    let id = 1000 * (round + 1) + i;
                    conn.query_drop(format!("INSERT INTO d.t VALUES ({id}, 'a {id}')"))
                        .await
                        .expect("insert");
                }
            },
            async {
                for i in 0..40 {
                    let id = 1000 * (round + 1) + 500 + i;
                    other
                        .query_drop(format!("UPDATE d.t SET v = 'b {id}' WHERE id = {}", i % 20))
                        .await
                        .expect("update");
                }
            }
        );
        let ((), ()) = (a, b);
        if round == 1 {
            conn.query_drop("FLUSH BINARY LOGS").await.expect("flush");
        }
    }
    wait_caught_up(&mut conn, &readers).await;
    wait_on_tail(pid).await;

    let binlog_dir = datadir.join("binlog");
    let first = readers[0].lock().events.clone();
    for r in &readers[1..] {
        assert!(r.lock().events == first, "every reader receives the same bytes");
    }
    check_against_files(&binlog_dir, &first, &["binlog.000001", "binlog.000002"]);
    // Shutdown with the readers on the tail: the server exits cleanly and closes their streams.
    support::stop(server, "-TERM");
    for t in tasks {
        tokio::time::timeout(Duration::from_secs(10), t)
            .await
            .expect("a reader's stream ends at shutdown")
            .expect("reader task");
    }
}
