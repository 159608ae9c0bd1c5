//! binlogd as a replication source, read by unmodified binlog clients: the `mysql_async`
//! driver's binlog stream (GTID auto-position and file/position) and Python's
//! `python-mysql-replication`. Each test starts `binlogd serve --port=0` on a temporary data
//! directory, writes through SQL, and compares the row changes the clients decode (with their
//! table maps) with what it wrote. Also: MySQL's 1236 and 1227 refusals, a dump that tails
//! later commits, heartbeats, SHOW REPLICAS, and dumps ending with their client and with the
//! server.

mod support;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use mysql_async::binlog::events::{Event, EventData, RowsEventData};
use mysql_async::binlog::value::BinlogValue;
use mysql_async::binlog::EventType;
use mysql_async::prelude::Queryable;
use mysql_async::{BinlogStream, BinlogStreamRequest, Conn, OptsBuilder, Sid, Value};

/// A server on a fresh data directory with an empty root password.
fn start(datadir: &Path, extra: &[&str]) -> support::Running {
    let mut args = vec!["--initialize-insecure"];
    args.extend_from_slice(extra);
    support::start(datadir, &args)
}

fn opts(port: u16, user: &str) -> OptsBuilder {
    OptsBuilder::default()
        .ip_or_hostname("127.0.0.1")
        .tcp_port(port)
        .user(Some(user))
        .pass(Some(""))
        .prefer_socket(false)
}

async fn connect(port: u16) -> Conn {
    Conn::new(opts(port, "root")).await.expect("connect as root")
}

/// The workload: DDL, inserts, an update, deletes and a multi-row statement across a
/// FLUSH BINARY LOGS, so streams must follow a rotation. Returns the row changes in binlog
/// order as [`describe`] prints them.
async fn write_workload(conn: &mut Conn) -> Vec<String> {
    for sql in [
        "CREATE DATABASE shop",
        "CREATE TABLE shop.item (id INT PRIMARY KEY, name VARCHAR(20), qty BIGINT)",
        "INSERT INTO shop.item VALUES (1, 'apple', 10), (2, 'pear', NULL)",
        "UPDATE shop.item SET name = 'plum', qty = 7 WHERE id = 2",
        "FLUSH BINARY LOGS",
        "INSERT INTO shop.item VALUES (3, 'fig', -5)",
        "DELETE FROM shop.item WHERE id = 1",
        "UPDATE shop.item SET qty = qty + 1",
    ] {
        conn.query_drop(sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    }
    [
        "INSERT shop.item [1,apple,10]",
        "INSERT shop.item [2,pear,NULL]",
        "UPDATE shop.item [2,pear,NULL] -> [2,plum,7]",
        "INSERT shop.item [3,fig,-5]",
        "DELETE shop.item [1,apple,10]",
        "UPDATE shop.item [2,plum,7] -> [2,plum,8]",
        "UPDATE shop.item [3,fig,-5] -> [3,fig,-4]",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn value_text(v: Option<&BinlogValue<'_>>) -> String {
    match v {
        Some(BinlogValue::Value(Value::NULL)) | None => "NULL".into(),
        Some(BinlogValue::Value(Value::Int(i))) => i.to_string(),
        Some(BinlogValue::Value(Value::UInt(u))) => u.to_string(),
        Some(BinlogValue::Value(Value::Bytes(b))) => String::from_utf8_lossy(b).into_owned(),
        Some(other) => format!("{other:?}"),
    }
}

fn row_text(row: &mysql_async::binlog::row::BinlogRow) -> String {
    let values: Vec<String> = (0..row.len()).map(|i| value_text(row.as_ref(i))).collect();
    format!("[{}]", values.join(","))
}

/// What a stream carried: decoded row changes, GTIDs, and the event types in order.
#[derive(Default, Debug)]
struct Seen {
    rows: Vec<String>,
    gtids: Vec<String>,
    types: Vec<EventType>,
    /// (file, position) of each ROTATE, fake ones included.
    rotates: Vec<(String, u64)>,
}

fn record(stream: &BinlogStream, event: &Event, seen: &mut Seen) {
    let event_type = event.header().event_type().expect("known event type");
    seen.types.push(event_type);
    match event.read_data().expect("event data decodes") {
        Some(EventData::RowsEvent(rows)) => {
            let tme = stream.get_tme(rows.table_id()).expect("TABLE_MAP before its rows");
            let table = format!("{}.{}", tme.database_name(), tme.table_name());
            let kind = match &rows {
                RowsEventData::WriteRowsEvent(_) => "INSERT",
                RowsEventData::UpdateRowsEvent(_) => "UPDATE",
                RowsEventData::DeleteRowsEvent(_) => "DELETE",
                other => panic!("unexpected rows event {other:?}"),
            };
            for row in rows.rows(tme) {
                let (before, after) = row.expect("row decodes");
                let text = match (before, after) {
                    (None, Some(a)) => format!("{kind} {table} {}", row_text(&a)),
                    (Some(b), None) => format!("{kind} {table} {}", row_text(&b)),
                    (Some(b), Some(a)) => {
                        format!("{kind} {table} {} -> {}", row_text(&b), row_text(&a))
                    }
                    (None, None) => panic!("a row without images"),
                };
                seen.rows.push(text);
            }
        }
        Some(EventData::GtidEvent(g)) => {
            let sid = binlog::gtid::Sid(g.sid());
            seen.gtids.push(format!("{sid}:{}", g.gno()));
        }
        Some(EventData::RotateEvent(r)) => {
            seen.rotates.push((r.name().into_owned(), r.position()));
        }
        _ => {}
    }
}

/// Opens a dump as root with `request` (made non-blocking) and reads it to its EOF.
async fn dump_to_eof(port: u16, request: BinlogStreamRequest<'_>) -> Seen {
    let stream =
        connect(port).await.get_binlog_stream(request.with_non_blocking()).await.expect("dump");
    read_to_eof(stream).await
}

/// Reads a non-blocking stream to its EOF (at most 20 s).
async fn read_to_eof(mut stream: BinlogStream) -> Seen {
    let mut seen = Seen::default();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, stream.next()).await.expect("EOF within 20 s") {
            None => return seen,
            Some(event) => record(&stream, &event.expect("event"), &mut seen),
        }
    }
}

fn server_code(e: &mysql_async::Error) -> Option<(u16, String)> {
    match e {
        mysql_async::Error::Server(e) => Some((e.code, e.message.clone())),
        _ => None,
    }
}

/// Opens a dump and returns the first error it gets (the stream must fail at once).
async fn dump_error(port: u16, user: &str, request: BinlogStreamRequest<'_>) -> (u16, String) {
    let conn = Conn::new(opts(port, user)).await.expect("connect");
    let mut stream = match conn.get_binlog_stream(request).await {
        Ok(stream) => stream,
        Err(e) => return server_code(&e).unwrap_or_else(|| panic!("not a server error: {e}")),
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, stream.next()).await.expect("an error within 10 s") {
            Some(Err(e)) => {
                return server_code(&e).unwrap_or_else(|| panic!("not a server error: {e}"))
            }
            Some(Ok(_)) => {}
            None => panic!("the dump ended without an error"),
        }
    }
}

async fn server_uuid(conn: &mut Conn) -> String {
    conn.query_first("SELECT @@server_uuid").await.expect("query").expect("a row")
}

fn sids(set: &str) -> Vec<Sid<'static>> {
    set.split(',').filter(|s| !s.is_empty()).map(|s| s.trim().parse().expect("sid")).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mysql_async_streams_the_rows_written_in_gtid_and_file_mode() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let server = start(&tmp.path().join("data"), &["--server-id=11"]);
    let mut conn = connect(server.port).await;
    let expected = write_workload(&mut conn).await;
    let uuid = server_uuid(&mut conn).await;
    let executed: String =
        conn.query_first("SELECT @@gtid_executed").await.expect("query").expect("row");
    assert_eq!(executed, format!("{uuid}:1-7"));

    // GTID auto-position with an empty set: everything, across the rotation.
    let seen = dump_to_eof(server.port, BinlogStreamRequest::new(101).with_gtid()).await;
    assert_eq!(seen.rows, expected);
    let all: Vec<String> = (1..=7).map(|n| format!("{uuid}:{n}")).collect();
    assert_eq!(seen.gtids, all);
    // The stream opens as mysqld's does: fake ROTATE, FORMAT_DESCRIPTION, PREVIOUS_GTIDS.
    assert_eq!(
        &seen.types[..3],
        &[
            EventType::ROTATE_EVENT,
            EventType::FORMAT_DESCRIPTION_EVENT,
            EventType::PREVIOUS_GTIDS_EVENT
        ]
    );
    assert_eq!(seen.rotates[0], ("binlog.000001".to_string(), 4));
    // The real ROTATE at the end of file 1, then the fake one that opens file 2.
    assert!(seen.rotates.contains(&("binlog.000002".to_string(), 4)), "{:?}", seen.rotates);
    assert_eq!(seen.types.iter().filter(|t| **t == EventType::FORMAT_DESCRIPTION_EVENT).count(), 2);

    // File and position: the same rows from binlog.000001 at 4.
    let seen = dump_to_eof(
        server.port,
        BinlogStreamRequest::new(102).with_filename(b"binlog.000001").with_pos(4u64),
    )
    .await;
    assert_eq!(seen.rows, expected);
    assert!(seen.types.contains(&EventType::XID_EVENT));

    // A replica that has 1-4 (DDL x2, two inserts... the update) gets exactly 5-7, whole.
    let seen = dump_to_eof(
        server.port,
        BinlogStreamRequest::new(103).with_gtid().with_gtid_set(sids(&format!("{uuid}:1-4"))),
    )
    .await;
    assert_eq!(seen.gtids, all[4..].to_vec());
    assert_eq!(seen.rows, expected[3..].to_vec());
    // It started in binlog.000002: the newest file whose PREVIOUS_GTIDS the replica has.
    assert_eq!(seen.rotates[0], ("binlog.000002".to_string(), 4));

    // A replica that has 1-2 and 4 (a gap) gets 3 and 5-7, skipping 4 whole.
    let seen = dump_to_eof(
        server.port,
        BinlogStreamRequest::new(104).with_gtid().with_gtid_set(sids(&format!("{uuid}:1-2:4"))),
    )
    .await;
    let mut want = vec![all[2].clone()];
    want.extend_from_slice(&all[4..]);
    assert_eq!(seen.gtids, want);
    let mut want_rows = expected[..2].to_vec();
    want_rows.extend_from_slice(&expected[3..]);
    assert_eq!(seen.rows, want_rows);
    // The skipped transaction was announced with a heartbeat carrying its end position.
    assert!(seen.types.contains(&EventType::HEARTBEAT_EVENT), "{:?}", seen.types);
    conn.disconnect().await.expect("disconnect");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_are_mysqls_1236_and_1227_and_non_blocking_ends_with_eof() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let datadir = tmp.path().join("data");
    // An account without REPLICATION SLAVE, made before the first start.
    std::fs::create_dir_all(&datadir).expect("mkdir");
    {
        let (users, _) = accounts::Users::open(&datadir, true).expect("users");
        let auth = protocol::UserAuth::caching_sha2("");
        users.create_user("reader", "%", auth, false).expect("create user");
        users.grant("reader", "%", accounts::Privileges::SELECT).expect("grant");
    }
    let server = start(&datadir, &[]);
    let port = server.port;
    let mut conn = connect(port).await;
    write_workload(&mut conn).await;
    let uuid = server_uuid(&mut conn).await;

    let (code, message) =
        dump_error(port, "reader", BinlogStreamRequest::new(201).with_gtid().with_non_blocking())
            .await;
    assert_eq!(code, 1227, "{message}");
    assert_eq!(
        message,
        "Access denied; you need (at least one of) the REPLICATION SLAVE privilege(s) for this \
         operation"
    );

    // Errant: the replica has transactions of this server's UUID it never executed.
    let errant =
        BinlogStreamRequest::new(202).with_gtid().with_gtid_set(sids(&format!("{uuid}:1-9")));
    let (code, message) = dump_error(port, "root", errant).await;
    assert_eq!(code, 1236);
    assert!(message.starts_with("Replica has more GTIDs than the source has"), "{message}");

    // Positions: not an event boundary, past the end, before the magic, an unknown file.
    for (pos, file, want) in [
        (
            5u64,
            "binlog.000001",
            "Client requested source to start replication from impossible position",
        ),
        (
            1_000_000,
            "binlog.000001",
            "Client requested source to start replication from position > file size",
        ),
        (2, "binlog.000001", "Client requested source to start replication from position < 4"),
        (4, "binlog.000099", "Could not find first log file name in binary log index file"),
    ] {
        let request = BinlogStreamRequest::new(203).with_filename(file.as_bytes()).with_pos(pos);
        let (code, message) = dump_error(port, "root", request).await;
        assert_eq!(code, 1236, "{message}");
        assert!(message.starts_with(want), "{file}:{pos}: {message}");
    }

    // Purged: binlog.000001 (GTIDs 1-4) is gone; a replica without them cannot be served,
    // one that has them still can.
    conn.query_drop("PURGE BINARY LOGS TO 'binlog.000002'").await.expect("purge");
    let purged: String = conn.query_first("SELECT @@gtid_purged").await.expect("q").expect("row");
    assert_eq!(purged, format!("{uuid}:1-4"));
    let (code, message) =
        dump_error(port, "root", BinlogStreamRequest::new(204).with_gtid().with_non_blocking())
            .await;
    assert_eq!(code, 1236);
    assert!(
        message.starts_with("Cannot replicate because the source purged required binary logs.")
            && message.ends_with(&format!("the missing transactions are '{uuid}:1-4'")),
        "{message}"
    );
    // Non-blocking: the stream ends with EOF once it has read everything.
    let seen = dump_to_eof(
        port,
        BinlogStreamRequest::new(205).with_gtid().with_gtid_set(sids(&format!("{uuid}:1-4"))),
    )
    .await;
    assert_eq!(seen.gtids.len(), 3);
    conn.disconnect().await.expect("disconnect");
}

/// Waits until SHOW REPLICAS lists exactly `want` server ids.
async fn wait_for_replicas(conn: &mut Conn, want: &[u32]) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let ids: Vec<u32> = conn
            .query("SHOW REPLICAS")
            .await
            .expect("SHOW REPLICAS")
            .into_iter()
            .map(|row: mysql_async::Row| row.get::<u32, _>(0).expect("Server_Id"))
            .collect();
        if ids == want {
            return;
        }
        assert!(Instant::now() < deadline, "SHOW REPLICAS shows {ids:?}, want {want:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dump_tails_later_commits_sends_heartbeats_and_ends_with_its_client_and_the_server() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let server = start(&tmp.path().join("data"), &[]);
    let port = server.port;
    let mut conn = connect(port).await;
    conn.query_drop("CREATE DATABASE d").await.expect("ddl");
    conn.query_drop("CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(10))").await.expect("ddl");
    let uuid = server_uuid(&mut conn).await;

    // A blocking dump from "now" (the replica has 1-2) with 100 ms heartbeats.
    let mut dump_conn = connect(port).await;
    dump_conn.query_drop("SET @master_heartbeat_period = 100000000").await.expect("set");
    dump_conn
        .query_drop("SET @replica_uuid = 'c0ffee00-0000-4000-8000-000000000001'")
        .await
        .expect("set");
    let mut stream = dump_conn
        .get_binlog_stream(
            BinlogStreamRequest::new(301).with_gtid().with_gtid_set(sids(&format!("{uuid}:1-2"))),
        )
        .await
        .expect("dump");
    let mut seen = Seen::default();
    // Idle: heartbeats come.
    let deadline = Instant::now() + Duration::from_secs(10);
    while seen.types.iter().filter(|t| **t == EventType::HEARTBEAT_EVENT).count() < 2 {
        let left = deadline.saturating_duration_since(Instant::now());
        let event =
            tokio::time::timeout(left, stream.next()).await.expect("heartbeats within 10 s");
        record(&stream, &event.expect("open").expect("event"), &mut seen);
    }
    assert!(seen.rows.is_empty());
    let replicas: Vec<mysql_async::Row> = conn.query("SHOW REPLICAS").await.expect("show");
    assert_eq!(replicas.len(), 1);
    assert_eq!(replicas[0].get::<u32, _>("Server_Id"), Some(301));
    assert_eq!(
        replicas[0].get::<String, _>("Replica_UUID").as_deref(),
        Some("c0ffee00-0000-4000-8000-000000000001")
    );
    let hosts: Vec<mysql_async::Row> = conn.query("SHOW SLAVE HOSTS").await.expect("show");
    assert_eq!(hosts[0].get::<u32, _>("Server_id"), Some(301));

    // Commits made after the dump started reach it.
    for i in 0..3 {
        conn.query_drop(format!("INSERT INTO d.t VALUES ({i}, 'v{i}')")).await.expect("insert");
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while seen.rows.len() < 3 {
        let left = deadline.saturating_duration_since(Instant::now());
        let event = tokio::time::timeout(left, stream.next()).await.expect("rows within 10 s");
        record(&stream, &event.expect("open").expect("event"), &mut seen);
    }
    assert_eq!(seen.rows, ["INSERT d.t [0,v0]", "INSERT d.t [1,v1]", "INSERT d.t [2,v2]"]);
    assert_eq!(seen.gtids, [3, 4, 5].map(|n| format!("{uuid}:{n}")));

    // The client goes away: its dump ends and it leaves SHOW REPLICAS.
    drop(stream);
    wait_for_replicas(&mut conn, &[]).await;

    // The server shuts down: a running dump ends and the server exits cleanly.
    let mut stream = connect(port)
        .await
        .get_binlog_stream(BinlogStreamRequest::new(302).with_gtid())
        .await
        .expect("dump");
    let first = tokio::time::timeout(Duration::from_secs(10), stream.next()).await.expect("event");
    assert!(matches!(first, Some(Ok(_))));
    wait_for_replicas(&mut conn, &[302]).await;
    drop(conn);
    let mut server = server;
    let pid = server.child.id().to_string();
    assert!(Command::new("kill").args(["-TERM", &pid]).status().expect("kill").success());
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, stream.next()).await.expect("the dump ends at shutdown") {
            None | Some(Err(_)) => break,
            Some(Ok(_)) => {}
        }
    }
    let status = server.child.wait().expect("wait");
    assert!(status.success(), "exit status {status}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_mysql_replication_streams_the_rows_written() {
    let tmp = tempfile::tempdir().expect("tempdir");
    // FULL row metadata: the client names the columns from the TABLE_MAP.
    let server = start(&tmp.path().join("data"), &["--binlog-row-metadata=FULL"]);
    let mut conn = connect(server.port).await;
    let expected = write_workload(&mut conn).await;
    let uuid = server_uuid(&mut conn).await;
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/stream_rows.py");
    // The replica has the CREATE DATABASE (1), or everything up to the first update (1-4).
    for args in [
        vec!["gtid".to_string(), format!("{uuid}:1")],
        vec!["gtid".into(), format!("{uuid}:1-4")],
        vec!["file".into(), "binlog.000001".into()],
    ] {
        let port = server.port.to_string();
        let output = tokio::task::spawn_blocking({
            let script = script.clone();
            let args = args.clone();
            move || {
                Command::new("python3")
                    .arg(&script)
                    .arg(&port)
                    .args(&args)
                    .output()
                    .expect("run python3 (scripts/test.sh installs mysql-replication)")
            }
        })
        .await
        .expect("join");
        assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
        let rows: Vec<String> =
            String::from_utf8_lossy(&output.stdout).lines().map(str::to_string).collect();
        let want =
            if args[1].ends_with(":1-4") { expected[3..].to_vec() } else { expected.clone() };
        assert_eq!(rows, want, "{args:?}");
    }
    conn.disconnect().await.expect("disconnect");
}

/// The measurement behind bench/RESULTS.md "Dump threads vs commit rate" (ignored: it is a
/// benchmark, not a test). For 0, 8 and 32 tailing dumps (blocking GTID streams that drain
/// their events), 16 writer connections run autocommit INSERTs for 5 s each on a fresh server
/// with sync_binlog=1; the commit rate is printed, and every dump must have received every
/// commit.
///
/// cargo test --release -p binlogd --test repl_source -- --ignored --nocapture dump_threads_vs_commit_rate
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "benchmark; run explicitly"]
async fn dump_threads_vs_commit_rate() {
    const WRITERS: usize = 16;
    const SECONDS: u64 = 5;
    let mut results = Vec::new();
    for readers in [0usize, 8, 32] {
        let tmp = tempfile::tempdir().expect("tempdir");
        let server = start(&tmp.path().join("data"), &["--sync-binlog=1"]);
        let port = server.port;
        let mut conn = connect(port).await;
        conn.query_drop("CREATE DATABASE b").await.expect("ddl");
        conn.query_drop("CREATE TABLE b.t (id BIGINT PRIMARY KEY, v VARCHAR(32))")
            .await
            .expect("ddl");
        let uuid = server_uuid(&mut conn).await;
        // Readers: count the XIDs they receive until told to stop.
        let (stop_tx, stop_rx) = tokio::sync::watch::channel(0u64);
        let mut reader_tasks = Vec::new();
        for r in 0..readers {
            let mut stop = stop_rx.clone();
            let stream = connect(port)
                .await
                .get_binlog_stream(
                    BinlogStreamRequest::new(1000 + r as u32)
                        .with_gtid()
                        .with_gtid_set(sids(&format!("{uuid}:1-2"))),
                )
                .await
                .expect("dump");
            reader_tasks.push(tokio::spawn(async move {
                let mut stream = stream;
                let mut xids = 0u64;
                loop {
                    let target = *stop.borrow();
                    if target > 0 && xids >= target {
                        return xids;
                    }
                    tokio::select! {
                        event = stream.next() => match event {
                            Some(Ok(e)) if e.header().event_type() == Ok(EventType::XID_EVENT) => xids += 1,
                            Some(Ok(_)) => {}
                            _ => return xids,
                        },
                        _ = stop.changed() => {}
                    }
                }
            }));
        }
        let start_at = Instant::now();
        let deadline = start_at + Duration::from_secs(SECONDS);
        let mut writers = Vec::new();
        for w in 0..WRITERS {
            let mut c = connect(port).await;
            writers.push(tokio::spawn(async move {
                let mut n = 0u64;
                while Instant::now() < deadline {
                    let id = (w as u64) << 40 | n;
                    c.query_drop(format!("INSERT INTO b.t VALUES ({id}, 'x')"))
                        .await
                        .expect("insert");
                    n += 1;
                }
                n
            }));
        }
        let mut commits = 0;
        for w in writers {
            commits += w.await.expect("writer");
        }
        let elapsed = start_at.elapsed().as_secs_f64();
        stop_tx.send(commits).expect("readers listen");
        for task in reader_tasks {
            let got = tokio::time::timeout(Duration::from_secs(30), task)
                .await
                .expect("readers catch up within 30 s")
                .expect("reader");
            assert_eq!(got, commits, "a dump missed commits");
        }
        let rate = commits as f64 / elapsed;
        println!(
            "dump threads {readers:>2}: {commits} commits in {elapsed:.2} s = {rate:.0} commits/s"
        );
        results.push((readers, rate));
    }
    println!("| dump threads | commits/s |\n|---|---|");
    for (readers, rate) in results {
        println!("| {readers} | {rate:.0} |");
    }
}
