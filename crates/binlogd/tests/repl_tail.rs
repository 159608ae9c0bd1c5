//! Dump readers that reached the synced end share one reader of the binlog (the tail,
//! `crates/replication/src/tail.rs`): several raw COM_BINLOG_DUMP clients must still receive, byte
//! for byte, the same stream — the files' events as stored, each file announced by a fake
//! ROTATE and its FORMAT_DESCRIPTION — across a rotation that happens while they follow, with
//! consecutive packet sequence numbers. The test also checks from /proc that the readers did
//! leave their dump threads for the tail, so the shared path is what it exercised. The other
//! tests cover the tail thread writing the caught-up dumps itself: a stalled reader (its socket
//! fills, the dump goes back to its task) and a GTID dump skipping a transaction it has.

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

    /// Logs in as root (empty password) without TLS; `recv_buffer`: a fixed socket receive
    /// buffer (no autotuning), so that a client that stops reading fills the server's socket.
    async fn login(port: u16, recv_buffer: Option<u32>) -> Raw {
        let socket = tokio::net::TcpSocket::new_v4().expect("socket");
        if let Some(size) = recv_buffer {
            socket.set_recv_buffer_size(size).expect("SO_RCVBUF");
        }
        let socket = socket.connect(([127, 0, 0, 1], port).into()).await.expect("connect");
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
    /// The client's port.
    port: u16,
    /// The sequence id the next packet must have.
    seq: u8,
}

async fn follow(port: u16, server_id: u32, received: Arc<Mutex<Received>>) {
    follow_gated(port, server_id, received, None, None, None).await;
}

/// [`follow`], with a fixed receive buffer, reading only while `open` says so, from `start`
/// (file and position; default the first event of binlog.000001).
async fn follow_gated(
    port: u16,
    server_id: u32,
    received: Arc<Mutex<Received>>,
    recv_buffer: Option<u32>,
    mut open: Option<tokio::sync::watch::Receiver<bool>>,
    start: Option<(String, u32)>,
) {
    let (file, pos) = start.unwrap_or_else(|| ("binlog.000001".to_string(), 4));
    let mut raw = Raw::login(port, recv_buffer).await;
    received.lock().port = raw.socket.local_addr().expect("local address").port();
    raw.query("SET @master_binlog_checksum = 'CRC32'").await;
    // COM_BINLOG_DUMP: pos u32, flags u16 (0: blocking), server id u32, file name.
    let mut dump = vec![0x12];
    dump.extend_from_slice(&pos.to_le_bytes());
    dump.extend_from_slice(&0u16.to_le_bytes());
    dump.extend_from_slice(&server_id.to_le_bytes());
    dump.extend_from_slice(file.as_bytes());
    raw.write(0, &dump).await;
    let mut expect_seq = 1u8;
    loop {
        if let Some(open) = open.as_mut() {
            if open.wait_for(|&o| o).await.is_err() {
                return;
            }
        }
        let Some((seq, packet)) = raw.read().await else { break };
        let mut r = received.lock();
        if seq != expect_seq || packet.first() != Some(&0x00) || packet.len() < 20 {
            r.error = Some(format!("packet {seq} (expected {expect_seq}): {packet:?}"));
            return;
        }
        expect_seq = expect_seq.wrapping_add(1);
        r.seq = expect_seq;
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
    stop_and_join(server, tasks).await;
}

/// The bytes the server's socket to the client on `client_port` holds unacknowledged
/// (/proc/net/tcp's tx_queue).
fn server_send_queue(server_port: u16, client_port: u16) -> u64 {
    let table = std::fs::read_to_string("/proc/net/tcp").expect("/proc/net/tcp");
    // Format: sl local_address(hex ip:port) rem_address st tx_queue:rx_queue ...
    for line in table.lines().skip(1) {
        let f: Vec<&str> = line.split_whitespace().collect();
        let port = |a: &str| a.rsplit(':').next().and_then(|p| u16::from_str_radix(p, 16).ok());
        if f.len() > 4 && port(f[1]) == Some(server_port) && port(f[2]) == Some(client_port) {
            let tx = f[4].split(':').next().expect("tx_queue");
            return u64::from_str_radix(tx, 16).expect("hex");
        }
    }
    panic!("no socket {server_port} -> {client_port} in /proc/net/tcp");
}

/// Commits `rows` rows of `size` bytes, one transaction each.
async fn commit_big_rows(conn: &mut Conn, first: usize, rows: usize, size: usize) {
    for i in first..first + rows {
        let v = char::from(b'a' + (i % 26) as u8).to_string().repeat(size);
        conn.query_drop(format!("INSERT INTO d.big VALUES ({i}, '{v}')")).await.expect("insert");
    }
}

/// A server on `datadir` logging notes (`--log-error-verbosity=3`: the tail thread's
/// hand-overs are in the log), and a root connection with database `d` created.
async fn verbose_server_with_db(datadir: &Path) -> (support::Running, Conn) {
    let server = support::start(datadir, &["--initialize-insecure", "--log-error-verbosity=3"]);
    let mut conn = support::sql::conn(server.port).await;
    conn.query_drop("CREATE DATABASE d").await.expect("ddl");
    (server, conn)
}

/// Caught-up dumps are written by the tail thread itself (see tail.rs): a reader that stops
/// reading fills its socket, the tail thread hands that dump back to its connection's task
/// (which waits for the socket) and goes on sending to the others, which keep up; once the
/// stalled reader reads again it receives every byte, sequence numbers unbroken, as the other.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_reader_fills_its_socket_without_holding_back_the_tail_or_the_others() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let datadir = tmp.path().join("data");
    let (server, mut conn) = verbose_server_with_db(&datadir).await;
    let port = server.port;
    let pid = server.child.id();
    conn.query_drop("CREATE TABLE d.big (id INT PRIMARY KEY, v LONGTEXT)").await.expect("ddl");
    commit_big_rows(&mut conn, 0, 2, 1000).await;

    let (open_tx, open_rx) = tokio::sync::watch::channel(true);
    let steady = Arc::new(Mutex::new(Received::default()));
    let stalled = Arc::new(Mutex::new(Received::default()));
    let tasks = [
        tokio::spawn(follow(port, 601, steady.clone())),
        tokio::spawn(follow_gated(port, 602, stalled.clone(), Some(8192), Some(open_rx), None)),
    ];
    let both = [steady.clone(), stalled.clone()];
    wait_caught_up(&mut conn, &both).await;
    wait_on_tail(pid).await;

    // ~10 MiB while the stalled reader reads nothing: more than its socket's send buffer
    // (tcp_wmem's maximum, 4 MiB by default) and its fixed receive buffer hold, less than the
    // tail's ring (16 MiB), so it stays on the tail.
    open_tx.send(false).expect("gate");
    let before = stalled.lock().pos;
    commit_big_rows(&mut conn, 100, 180, 60_000).await;
    wait_caught_up(&mut conn, std::slice::from_ref(&steady)).await;
    let (_, end) = master_status(&mut conn).await;
    let behind = stalled.lock().pos;
    assert!(behind < end, "the stalled reader got everything ({behind} of {end})");
    assert!(behind >= before);
    // Its socket did fill: what the tail thread could not write went back to the task.
    let queued = server_send_queue(port, stalled.lock().port);
    assert!(queued >= 64 * 1024, "the server's socket to the stalled reader holds {queued} bytes");
    // The tail thread kept publishing and sending: more commits reach the steady reader.
    commit_big_rows(&mut conn, 1000, 5, 1000).await;
    wait_caught_up(&mut conn, std::slice::from_ref(&steady)).await;

    open_tx.send(true).expect("gate");
    wait_caught_up(&mut conn, &both).await;
    wait_on_tail(pid).await;
    let events = steady.lock().events.clone();
    assert!(stalled.lock().events == events, "both readers receive the same bytes");
    check_against_files(&datadir.join("binlog"), &events, &["binlog.000001"]);
    wait_sent_by_tail(&server.log, 2).await;
    let log = std::fs::read_to_string(&server.log).expect("error log");
    let sent = log.matches("is sent by the binlog-tail thread").count();
    assert_eq!(sent, 2, "each dump went to the tail thread once:\n{log}");

    stop_and_join(server, tasks).await;
}

/// Dumps at different packet sequence ids (they started at different places) are sent each
/// segment by the tail thread from one framing, the later dump from a copy with its own ids
/// (`Segment::framed`): both see unbroken ids through several wraps past 255, and the same
/// events from where the later one started.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dumps_at_different_sequence_ids_get_their_own_ids_from_the_tail_threads_framing() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let datadir = tmp.path().join("data");
    let (server, mut conn) = verbose_server_with_db(&datadir).await;
    let port = server.port;
    let pid = server.child.id();
    conn.query_drop("CREATE TABLE d.t (id INT PRIMARY KEY, v INT)").await.expect("ddl");
    for i in 0..10 {
        conn.query_drop(format!("INSERT INTO d.t VALUES ({i}, 0)")).await.expect("insert");
    }
    let early = Arc::new(Mutex::new(Received::default()));
    let mut tasks = vec![tokio::spawn(follow(port, 701, early.clone()))];
    wait_caught_up(&mut conn, std::slice::from_ref(&early)).await;
    let (file, pos) = master_status(&mut conn).await;
    let late = Arc::new(Mutex::new(Received::default()));
    let start = Some((file, u32::try_from(pos).expect("small file")));
    tasks.push(tokio::spawn(follow_gated(port, 702, late.clone(), None, None, start)));
    let both = [early.clone(), late.clone()];
    // The late dump sees a position only once a real event reaches it.
    conn.query_drop("INSERT INTO d.t VALUES (10, 0)").await.expect("insert");
    wait_caught_up(&mut conn, &both).await;
    wait_on_tail(pid).await;
    wait_sent_by_tail(&server.log, 2).await;
    let (a, b) = (early.lock().seq, late.lock().seq);
    assert_ne!(a, b, "the two dumps must be at different sequence ids");

    // Two connections, so that groups (and segments) hold several transactions: 5 events a
    // transaction, over 1 000 packets.
    let mut other = support::sql::conn(port).await;
    let (x, y) = tokio::join!(
        async {
            for i in 0..120 {
                conn.query_drop(format!("UPDATE d.t SET v = {i} WHERE id = {}", i % 5))
                    .await
                    .expect("update");
            }
        },
        async {
            for i in 0..120 {
                other
                    .query_drop(format!("UPDATE d.t SET v = {i} WHERE id = {}", 5 + i % 5))
                    .await
                    .expect("update");
            }
        }
    );
    let ((), ()) = (x, y);
    wait_caught_up(&mut conn, &both).await;
    let early_events = early.lock().events.clone();
    let late_events = late.lock().events.clone();
    assert!(early_events.len() > 1_000, "{} events", early_events.len());
    // The late dump: its fake ROTATE and FORMAT_DESCRIPTION, then the early one's last events.
    let tail = &late_events[2..];
    assert!(early_events[early_events.len() - tail.len()..] == *tail, "the same events");
    check_against_files(&datadir.join("binlog"), &early_events, &["binlog.000001"]);
    let log = std::fs::read_to_string(&server.log).expect("error log");
    assert_eq!(log.matches("is sent by the binlog-tail thread").count(), 2, "{log}");
    stop_and_join(server, tasks).await;
}

/// Waits until the error log says `dumps` dumps went to the tail thread.
async fn wait_sent_by_tail(log: &Path, dumps: usize) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        if text.matches("is sent by the binlog-tail thread").count() >= dumps {
            return;
        }
        assert!(Instant::now() < deadline, "no dump went to the tail thread:\n{text}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A GTID dump sent by the tail thread goes through the per-event path for a segment holding
/// a transaction the replica has: that one is skipped (a foreign GTID committed with
/// `gtid_next`, which the replica's set holds), the others arrive in order, and the packet
/// sequence stays unbroken for the stock client (mysql_async's binlog stream checks it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gtid_dump_sent_by_the_tail_thread_skips_what_the_replica_has() {
    use futures_util::StreamExt;
    use mysql_async::binlog::events::EventData;
    use mysql_async::BinlogStreamRequest;

    const FOREIGN: &str = "c0ffee00-0000-4000-8000-00000000000f";
    let tmp = tempfile::tempdir().expect("tempdir");
    let datadir = tmp.path().join("data");
    let (server, mut conn) = verbose_server_with_db(&datadir).await;
    let port = server.port;
    conn.query_drop("CREATE TABLE d.t (id INT PRIMARY KEY)").await.expect("ddl");
    let uuid: String =
        conn.query_first("SELECT @@server_uuid").await.expect("query").expect("a row");

    // The replica has the two DDLs and FOREIGN:5-9.
    let set: Vec<mysql_async::Sid<'static>> = [format!("{uuid}:1-2"), format!("{FOREIGN}:5-9")]
        .iter()
        .map(|s| s.parse().expect("sid"))
        .collect();
    let mut stream = support::sql::conn(port)
        .await
        .get_binlog_stream(BinlogStreamRequest::new(401).with_gtid().with_gtid_set(set))
        .await
        .expect("dump");
    wait_sent_by_tail(&server.log, 1).await;

    conn.query_drop("INSERT INTO d.t VALUES (1)").await.expect("insert");
    conn.query_drop(format!("SET gtid_next = '{FOREIGN}:7'")).await.expect("gtid_next");
    conn.query_drop("INSERT INTO d.t VALUES (2)").await.expect("insert");
    conn.query_drop("SET gtid_next = 'AUTOMATIC'").await.expect("gtid_next");
    conn.query_drop("INSERT INTO d.t VALUES (3)").await.expect("insert");

    let mut gtids = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(10);
    while gtids.len() < 2 {
        let left = deadline.saturating_duration_since(Instant::now());
        let event = tokio::time::timeout(left, stream.next()).await.expect("events within 10 s");
        let event = event.expect("open").expect("event");
        if let Some(EventData::GtidEvent(g)) = event.read_data().expect("decodes") {
            gtids.push(format!("{}:{}", binlog::gtid::Sid(g.sid()), g.gno()));
        }
    }
    assert_eq!(gtids, [format!("{uuid}:3"), format!("{uuid}:4")]);
    // Still on the tail thread: the skip did not end the dump or move it off.
    let log = std::fs::read_to_string(&server.log).expect("error log");
    assert_eq!(log.matches("is sent by the binlog-tail thread").count(), 1, "{log}");
    drop(stream);
    support::stop(server, "-TERM");
}

/// Stops the server (SIGTERM: a clean shutdown) and waits for the readers' streams to end.
async fn stop_and_join(
    server: support::Running,
    tasks: impl IntoIterator<Item = tokio::task::JoinHandle<()>>,
) {
    support::stop(server, "-TERM");
    for t in tasks {
        tokio::time::timeout(Duration::from_secs(10), t)
            .await
            .expect("a reader's stream ends at shutdown")
            .expect("reader task");
    }
}
