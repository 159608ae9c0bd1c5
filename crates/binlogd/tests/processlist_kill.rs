//! The connection registry against a real `binlogd serve`: SHOW [FULL] PROCESSLIST and
//! COM_PROCESS_INFO (`mariadb-admin processlist`) list the real connections with the ids
//! CONNECTION_ID() returns; KILL [CONNECTION | QUERY] and COM_PROCESS_KILL (`mariadb-admin
//! kill`) end them as mysqld does (1094, 1095, 1317; the killed connection's transaction rolls
//! back, a binlog dump ends); FLUSH needs RELOAD (1227).

mod support;

use std::time::{Duration, Instant};

use mysql_async::prelude::Queryable;
use mysql_async::{BinlogStreamRequest, Conn, Row};

use support::sql::{conn, conn_as, exec, text};

fn insecure(dir: &std::path::Path, extra: &[&str]) -> support::Running {
    let mut args = vec!["--initialize-insecure"];
    args.extend_from_slice(extra);
    support::start(dir, &args)
}

async fn rows(c: &mut Conn, sql: &str) -> Vec<Vec<String>> {
    let rows: Vec<Row> = c.query(sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    rows.iter().map(|r| (0..r.len()).map(|i| text(&r[i])).collect()).collect()
}

async fn error(c: &mut Conn, sql: &str) -> (u16, String) {
    let e = c.query_drop(sql).await.expect_err(sql);
    let mysql_async::Error::Server(s) = &e else { panic!("{sql}: {e}") };
    (s.code, s.message.clone())
}

async fn connection_id(c: &mut Conn) -> u64 {
    c.query_first("SELECT CONNECTION_ID()").await.expect("CONNECTION_ID()").expect("a row")
}

/// The SHOW FULL PROCESSLIST row of connection `id` (as root), if listed.
async fn process(port: u16, id: u64) -> Option<Vec<String>> {
    let mut c = conn(port).await;
    let all = rows(&mut c, "SHOW FULL PROCESSLIST").await;
    let _ = c.disconnect().await;
    all.into_iter().find(|r| r[0] == id.to_string())
}

/// Polls until connection `id` shows `command` running `info` (or, with `None`, until it is
/// no longer listed); panics after 20 s.
async fn wait_for(port: u16, id: u64, command: Option<(&str, &str)>) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let row = process(port, id).await;
        let done = match (command, &row) {
            (Some((cmd, info)), Some(r)) => r[4] == cmd && r[7].starts_with(info),
            (None, None) => true,
            _ => false,
        };
        if done {
            return;
        }
        assert!(Instant::now() < deadline, "connection {id}: {row:?}, waiting for {command:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

fn admin(port: u16, args: &[&str]) -> String {
    let out = support::client("mariadb-admin", port, "root", "")
        .arg("--connect-timeout=10")
        .args(args)
        .output()
        .expect("run mariadb-admin (scripts/test.sh installs mariadb-client)");
    assert!(
        out.status.success(),
        "mariadb-admin {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A bare protocol client for the two commands no client library here sends: COM_PROCESS_INFO
/// (0x0a) and COM_PROCESS_KILL (0x0c). Logs in as root with no password (the server runs with
/// --initialize-insecure), without CLIENT_DEPRECATE_EOF, so result sets end with EOF packets.
struct Raw(tokio::net::TcpStream);

impl Raw {
    async fn login(port: u16) -> Raw {
        use mysql_common::constants::CapabilityFlags as C;
        use mysql_common::proto::MySerialize;
        let socket = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.expect("connect");
        let mut raw = Raw(socket);
        let _greeting = raw.read().await;
        let capabilities = C::CLIENT_PROTOCOL_41
            | C::CLIENT_SECURE_CONNECTION
            | C::CLIENT_PLUGIN_AUTH
            | C::CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA
            | C::CLIENT_LONG_PASSWORD
            | C::CLIENT_TRANSACTIONS;
        let response = mysql_common::packets::HandshakeResponse::new(
            Some(Vec::new()),
            (8, 0, 40),
            Some(&b"root"[..]),
            None::<&[u8]>,
            Some(mysql_common::packets::AuthPlugin::CachingSha2Password),
            capabilities,
            None,
            1 << 24,
        );
        let mut bytes = Vec::new();
        response.serialize(&mut bytes);
        raw.write(1, &bytes).await;
        assert_eq!(raw.read().await.first(), Some(&0x00), "OK after login");
        raw
    }

    async fn read(&mut self) -> Vec<u8> {
        use tokio::io::AsyncReadExt;
        let mut header = [0u8; 4];
        self.0.read_exact(&mut header).await.expect("packet header");
        let mut payload =
            vec![
                0;
                usize::from(header[0]) | usize::from(header[1]) << 8 | usize::from(header[2]) << 16
            ];
        self.0.read_exact(&mut payload).await.expect("packet payload");
        payload
    }

    async fn write(&mut self, seq: u8, payload: &[u8]) {
        use tokio::io::AsyncWriteExt;
        let len = u32::try_from(payload.len()).expect("small").to_le_bytes();
        let mut packet = vec![len[0], len[1], len[2], seq];
        packet.extend_from_slice(payload);
        self.0.write_all(&packet).await.expect("write");
    }

    /// COM_PROCESS_INFO: the Id (first column) of each row.
    async fn process_info(&mut self) -> Vec<String> {
        self.write(0, &[0x0a]).await;
        let count = self.read().await;
        assert_eq!(count, [8], "8 columns");
        for _ in 0..8 {
            self.read().await;
        }
        assert_eq!(self.read().await[0], 0xFE, "EOF after the columns");
        let mut ids = Vec::new();
        loop {
            let row = self.read().await;
            if row[0] == 0xFE && row.len() < 9 {
                return ids;
            }
            // The first field: a length-encoded string (short).
            let len = usize::from(row[0]);
            ids.push(String::from_utf8(row[1..1 + len].to_vec()).expect("utf8"));
        }
    }

    /// COM_PROCESS_KILL `id`: Ok, or the ERR packet's code.
    async fn process_kill(&mut self, id: u64) -> Result<(), u16> {
        let mut payload = vec![0x0c];
        payload.extend_from_slice(&u32::try_from(id).expect("u32 id").to_le_bytes());
        self.write(0, &payload).await;
        let answer = self.read().await;
        match answer[0] {
            0x00 => Ok(()),
            0xFF => Err(u16::from_le_bytes([answer[1], answer[2]])),
            other => panic!("answer {other:#x} to COM_PROCESS_KILL"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn processlist_lists_the_real_connections() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = insecure(&dir.path().join("data"), &[]);
    let p = server.port;
    exec(p, "CREATE DATABASE d").await;
    exec(p, "CREATE USER app IDENTIFIED BY 'pw'").await;
    exec(p, "GRANT ALL ON d.* TO app").await;

    let mut root = conn(p).await;
    root.query_drop("USE d").await.expect("USE");
    let root_id = connection_id(&mut root).await;
    let mut app = conn_as(p, "app", "pw").await;
    let app_id = connection_id(&mut app).await;
    let mut app2 = conn_as(p, "app", "pw").await;
    let app2_id = connection_id(&mut app2).await;
    assert_ne!(root_id, app_id);

    // Root (all privileges, PROCESS among them) sees everyone; its own row is the statement
    // it runs, the others sleep.
    let all = rows(&mut root, "SHOW FULL PROCESSLIST").await;
    let ids: Vec<&str> = all.iter().map(|r| r[0].as_str()).collect();
    for id in [root_id, app_id, app2_id] {
        assert!(ids.contains(&id.to_string().as_str()), "{id} in {all:?}");
    }
    let mine = all.iter().find(|r| r[0] == root_id.to_string()).expect("own row");
    assert_eq!(
        (mine[1].as_str(), mine[3].as_str(), mine[4].as_str(), mine[6].as_str(), mine[7].as_str()),
        ("root", "d", "Query", "executing", "SHOW FULL PROCESSLIST"),
        "{mine:?}"
    );
    let (ip, port) = mine[2].rsplit_once(':').expect("Host is ip:port");
    assert_eq!(ip, "127.0.0.1");
    assert!(port.parse::<u16>().is_ok_and(|p| p > 0), "{mine:?}");
    let other = all.iter().find(|r| r[0] == app_id.to_string()).expect("app's row");
    assert_eq!(
        (other[1].as_str(), other[3].as_str(), other[4].as_str(), other[7].as_str()),
        ("app", "NULL", "Sleep", "NULL"),
        "{other:?}"
    );
    // USE shows up in the db column.
    app.query_drop("USE d").await.expect("USE as app");
    assert_eq!(process(p, app_id).await.expect("listed")[3], "d");

    // Without PROCESS an account sees its own user's connections only.
    let seen = rows(&mut app, "SHOW PROCESSLIST").await;
    let mut seen_ids: Vec<String> = seen.iter().map(|r| r[0].clone()).collect();
    seen_ids.sort();
    let mut expected = vec![app_id.to_string(), app2_id.to_string()];
    expected.sort();
    assert_eq!(seen_ids, expected, "{seen:?}");

    // Info is cut to 100 characters without FULL.
    let long = format!("SHOW /* {} */ PROCESSLIST", "x".repeat(150));
    let cut = rows(&mut root, &long).await;
    let info = &cut.iter().find(|r| r[0] == root_id.to_string()).expect("own row")[7];
    assert_eq!(info.chars().count(), 100, "{info}");
    assert!(long.starts_with(info.as_str()));
    let full = rows(&mut root, &long.replace("SHOW", "SHOW FULL")).await;
    let info = &full.iter().find(|r| r[0] == root_id.to_string()).expect("own row")[7];
    assert_eq!(info, &long.replace("SHOW", "SHOW FULL"));

    // information_schema.PROCESSLIST: the same rows, through a single-table SELECT.
    // (ids are handed out in connection order)
    let apps = vec![
        vec![app_id.to_string(), "app".to_string(), "Sleep".to_string()],
        vec![app2_id.to_string(), "app".to_string(), "Sleep".to_string()],
    ];
    assert_eq!(
        rows(
            &mut root,
            "SELECT ID, USER, COMMAND FROM information_schema.PROCESSLIST WHERE USER = 'app' \
             ORDER BY ID"
        )
        .await,
        apps
    );
    assert_eq!(
        rows(
            &mut root,
            "SELECT INFO FROM information_schema.processlist WHERE ID = CONNECTION_ID()"
        )
        .await,
        [["SELECT INFO FROM information_schema.processlist WHERE ID = CONNECTION_ID()"]]
    );
    // Without PROCESS: the own user's only, and no privilege on information_schema needed.
    assert_eq!(
        rows(&mut app, "SELECT COUNT(*) FROM information_schema.PROCESSLIST").await,
        [["2"]]
    );

    // COM_PROCESS_INFO lists the same connections, and mariadb-admin processlist too.
    let mut raw = Raw::login(p).await;
    let listed = raw.process_info().await;
    for id in [root_id, app_id, app2_id] {
        assert!(listed.contains(&id.to_string()), "{id} in {listed:?}");
    }
    let listed = admin(p, &["processlist"]);
    for id in [root_id, app_id, app2_id] {
        assert!(listed.contains(&format!("| {id} ")), "{id} in {listed}");
    }

    // A closed connection leaves the list.
    app2.disconnect().await.expect("disconnect");
    wait_for(p, app2_id, None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_connection_closes_it_and_rolls_its_transaction_back() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = insecure(&dir.path().join("data"), &[]);
    let p = server.port;
    exec(p, "CREATE DATABASE d").await;
    exec(p, "CREATE TABLE d.t (id INT PRIMARY KEY, v INT)").await;
    exec(p, "INSERT INTO d.t VALUES (1, 0)").await;
    exec(p, "CREATE USER app IDENTIFIED BY 'pw'").await;
    exec(p, "GRANT ALL ON d.* TO app").await;

    // The holder's open transaction holds the row; a waiter queues behind it.
    let mut holder = conn(p).await;
    let holder_id = connection_id(&mut holder).await;
    holder.query_drop("BEGIN").await.expect("BEGIN");
    holder.query_drop("UPDATE d.t SET v = 1 WHERE id = 1").await.expect("holder's UPDATE");
    let mut waiter = conn(p).await;
    let waiter_id = connection_id(&mut waiter).await;
    let waiting = tokio::spawn(async move {
        let r = waiter.query_drop("UPDATE d.t SET v = v + 10 WHERE id = 1").await;
        (r, waiter)
    });
    wait_for(p, waiter_id, Some(("Query", "UPDATE d.t SET v = v + 10"))).await;

    // KILL (CONNECTION) of the idle holder: OK, its transaction rolls back, the waiter gets
    // the row and adds to the committed 0.
    let mut root = conn(p).await;
    root.query_drop(format!("KILL CONNECTION {holder_id}")).await.expect("KILL");
    let (r, mut waiter) = tokio::time::timeout(Duration::from_secs(20), waiting)
        .await
        .expect("the waiter was released")
        .expect("joined");
    r.expect("the waiter's UPDATE");
    assert_eq!(rows(&mut waiter, "SELECT v FROM d.t WHERE id = 1").await, [["10"]]);
    // The killed client finds its connection closed (no server error: the socket is gone).
    let e = holder.query_drop("SELECT 1").await.expect_err("killed connection");
    assert!(!matches!(e, mysql_async::Error::Server(_)), "{e}");
    wait_for(p, holder_id, None).await;

    // Unknown ids: 1094.
    assert_eq!(
        error(&mut root, "KILL 4000000000").await,
        (1094, "Unknown thread id: 4000000000".into())
    );
    assert_eq!(error(&mut root, "KILL QUERY 999999").await.0, 1094);

    // Another user's connection without SUPER: 1095; its own user's: allowed.
    let mut app = conn_as(p, "app", "pw").await;
    let root_id = connection_id(&mut root).await;
    assert_eq!(
        error(&mut app, &format!("KILL {root_id}")).await,
        (1095, format!("You are not owner of thread {root_id}"))
    );
    let mut app2 = conn_as(p, "app", "pw").await;
    let app2_id = connection_id(&mut app2).await;
    app.query_drop(format!("KILL {app2_id}")).await.expect("KILL own user's connection");
    wait_for(p, app2_id, None).await;
    assert!(app2.query_drop("SELECT 1").await.is_err());

    // KILL of the own connection: 1317 for the statement, then the connection is closed.
    let app_id = connection_id(&mut app).await;
    assert_eq!(error(&mut app, &format!("KILL {app_id}")).await.0, 1317);
    wait_for(p, app_id, None).await;
    assert!(app.query_drop("SELECT 1").await.is_err());

    // COM_PROCESS_KILL: 1094 for an unknown id, OK and the target closed otherwise.
    let mut raw = Raw::login(p).await;
    assert_eq!(raw.process_kill(999_999).await, Err(1094));
    let mut victim = conn(p).await;
    let victim_id = connection_id(&mut victim).await;
    raw.process_kill(victim_id).await.expect("COM_PROCESS_KILL");
    wait_for(p, victim_id, None).await;
    assert!(victim.query_drop("SELECT 1").await.is_err());
    // mariadb-admin kill (KILL or COM_PROCESS_KILL, depending on its version).
    let mut victim = conn(p).await;
    let victim_id = connection_id(&mut victim).await;
    admin(p, &["kill", &victim_id.to_string()]);
    wait_for(p, victim_id, None).await;
    assert!(victim.query_drop("SELECT 1").await.is_err());
    // The server serves on.
    assert_eq!(rows(&mut root, "SELECT 1").await, [["1"]]);
}

/// A server with `d.t` holding rows 1..=3 (v = 0), row 1 locked by `holder`'s open
/// transaction, and a root connection.
struct Locked {
    _dir: tempfile::TempDir,
    server: support::Running,
    holder: Conn,
    root: Conn,
}

async fn locked_row(extra: &[&str]) -> Locked {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = insecure(&dir.path().join("data"), extra);
    let p = server.port;
    exec(p, "CREATE DATABASE d").await;
    exec(p, "CREATE TABLE d.t (id INT PRIMARY KEY, v INT)").await;
    exec(p, "INSERT INTO d.t VALUES (1, 0), (2, 0), (3, 0)").await;
    let mut holder = conn(p).await;
    holder.query_drop("BEGIN").await.expect("BEGIN");
    holder.query_drop("UPDATE d.t SET v = 1 WHERE id = 1").await.expect("holder's UPDATE");
    let root = conn(p).await;
    Locked { _dir: dir, server, holder, root }
}

/// Has connection `id` (`c`) run an UPDATE of the locked row 1, waits until the processlist
/// shows it running, and kills it with `kill` ("KILL QUERY" or "KILL"): the UPDATE's outcome
/// and the connection, once it ended (the lock wait timeout is far longer than 20 s).
async fn kill_locked_update(
    l: &mut Locked,
    mut c: Conn,
    id: u64,
    kill: &str,
) -> (Result<(), mysql_async::Error>, Conn) {
    let waiting = tokio::spawn(async move {
        let r = c.query_drop("UPDATE d.t SET v = v + 10 WHERE id = 1").await;
        (r, c)
    });
    wait_for(l.server.port, id, Some(("Query", "UPDATE d.t SET v = v + 10"))).await;
    l.root.query_drop(format!("{kill} {id}")).await.expect(kill);
    tokio::time::timeout(Duration::from_secs(20), waiting)
        .await
        .expect("the KILL ended the lock wait")
        .expect("joined")
}

fn server_code(r: &Result<(), mysql_async::Error>) -> (u16, String) {
    match r {
        Err(mysql_async::Error::Server(e)) => (e.code, e.state.clone()),
        other => panic!("the waiter's UPDATE: {other:?}"),
    }
}

/// An autocommit statement waiting for a row lock (on the connection's task for its first
/// 500 ms, then in the engine's blocking wait) ends with 1317 on KILL QUERY; the connection
/// lives on and the statement changed nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_query_interrupts_a_row_lock_wait() {
    let mut l = locked_row(&[]).await;
    let p = l.server.port;
    let mut waiter = conn(p).await;
    let waiter_id = connection_id(&mut waiter).await;

    // KILL QUERY of an idle connection does nothing to its next statement.
    l.root.query_drop(format!("KILL QUERY {waiter_id}")).await.expect("KILL QUERY idle");
    assert_eq!(rows(&mut waiter, "SELECT 7").await, [["7"]]);

    let (r, mut waiter) = kill_locked_update(&mut l, waiter, waiter_id, "KILL QUERY").await;
    assert_eq!(server_code(&r), (1317, "70100".to_string()));
    l.holder.query_drop("ROLLBACK").await.expect("ROLLBACK");
    assert_eq!(rows(&mut waiter, "SELECT v FROM d.t WHERE id = 1").await, [["0"]]);
    assert_eq!(process(p, waiter_id).await.expect("still listed")[4], "Sleep");
}

/// A statement inside a transaction waits for a row lock in the engine's blocking wait (it
/// holds row locks of its own, so it cannot be undone and retried on the worker). KILL QUERY
/// ends that wait with 1317 and leaves the transaction open with its earlier change; KILL
/// CONNECTION ends a waiting connection and rolls its transaction back. The lock wait timeout
/// is the default 50 s, so only the KILL can have ended the waits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_interrupts_a_blocking_lock_wait_inside_a_transaction() {
    let mut l = locked_row(&[]).await;
    let p = l.server.port;

    // KILL QUERY: the statement ends, the transaction lives on.
    let mut waiter = conn(p).await;
    let waiter_id = connection_id(&mut waiter).await;
    waiter.query_drop("BEGIN").await.expect("BEGIN");
    waiter.query_drop("UPDATE d.t SET v = 2 WHERE id = 2").await.expect("waiter's own row");
    let (r, mut waiter) = kill_locked_update(&mut l, waiter, waiter_id, "KILL QUERY").await;
    assert_eq!(server_code(&r), (1317, "70100".to_string()));
    assert_eq!(rows(&mut waiter, "SELECT v FROM d.t WHERE id = 2").await, [["2"]]);
    waiter.query_drop("COMMIT").await.expect("COMMIT");

    // KILL CONNECTION: the connection ends, its transaction is rolled back.
    let mut victim = conn(p).await;
    let victim_id = connection_id(&mut victim).await;
    victim.query_drop("BEGIN").await.expect("BEGIN");
    victim.query_drop("UPDATE d.t SET v = 3 WHERE id = 3").await.expect("victim's own row");
    let (r, _) = kill_locked_update(&mut l, victim, victim_id, "KILL").await;
    assert!(r.is_err(), "the killed connection's statement failed: {r:?}");
    wait_for(p, victim_id, None).await;

    l.holder.query_drop("ROLLBACK").await.expect("ROLLBACK");
    assert_eq!(
        rows(&mut l.root, "SELECT id, v FROM d.t ORDER BY id").await,
        [["1", "0"], ["2", "2"], ["3", "0"]]
    );
}

/// A prepared statement is listed with its text while it executes (COM_STMT_EXECUTE carries
/// only the statement id: the text is the one COM_STMT_PREPARE gave), and not after it is
/// closed and the connection idles.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prepared_statement_is_listed_with_its_text_while_it_executes() {
    let mut l = locked_row(&[]).await;
    let p = l.server.port;
    let mut waiter = conn(p).await;
    let waiter_id = connection_id(&mut waiter).await;
    let sql = "UPDATE d.t SET v = v + ? WHERE id = ?";
    let waiting = tokio::spawn(async move {
        let stmt = waiter.prep(sql).await.expect("prepare");
        waiter.exec_drop(&stmt, (10, 1)).await.expect("the waiter's UPDATE");
        waiter.close(stmt).await.expect("close");
        waiter
    });
    // Waiting for the holder's row lock: listed as Execute, with the prepared text.
    wait_for(p, waiter_id, Some(("Execute", sql))).await;
    l.holder.query_drop("COMMIT").await.expect("COMMIT");
    let mut waiter = tokio::time::timeout(Duration::from_secs(20), waiting)
        .await
        .expect("ended")
        .expect("joined");
    let row = process(p, waiter_id).await.expect("still listed");
    assert_eq!((row[4].as_str(), row[7].as_str()), ("Sleep", "NULL"));
    assert_eq!(rows(&mut waiter, "SELECT v FROM d.t WHERE id = 1").await, [["11"]]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_ends_a_binlog_dump() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = insecure(&dir.path().join("data"), &[]);
    let p = server.port;
    exec(p, "CREATE DATABASE d").await;

    let mut replica = conn(p).await;
    let dump_id = connection_id(&mut replica).await;
    // A blocking dump (COM_BINLOG_DUMP): it would wait for new events forever.
    let mut stream =
        replica.get_binlog_stream(BinlogStreamRequest::new(4242)).await.expect("dump started");
    wait_for(p, dump_id, Some(("Binlog Dump", "NULL"))).await;
    exec(p, &format!("KILL QUERY {dump_id}")).await;
    let ended = tokio::time::timeout(Duration::from_secs(20), async {
        use futures_util::StreamExt;
        while let Some(event) = stream.next().await {
            if event.is_err() {
                break;
            }
        }
    })
    .await;
    assert!(ended.is_ok(), "the dump did not end after KILL");
    wait_for(p, dump_id, None).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flush_needs_reload() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = insecure(&dir.path().join("data"), &[]);
    let p = server.port;
    exec(p, "CREATE USER plain IDENTIFIED BY 'pw'").await;
    exec(p, "CREATE USER reloader IDENTIFIED BY 'pw'").await;
    exec(p, "GRANT RELOAD ON *.* TO reloader").await;
    let statements =
        ["FLUSH PRIVILEGES", "FLUSH TABLES", "FLUSH LOGS", "FLUSH BINARY LOGS", "FLUSH STATUS"];
    let mut plain = conn_as(p, "plain", "pw").await;
    for sql in statements {
        assert_eq!(
            error(&mut plain, sql).await,
            (
                1227,
                "Access denied; you need (at least one of) the RELOAD privilege(s) for this \
                 operation"
                    .into()
            ),
            "{sql}"
        );
    }
    let mut reloader = conn_as(p, "reloader", "pw").await;
    for sql in statements {
        reloader.query_drop(sql).await.unwrap_or_else(|e| panic!("{sql} with RELOAD: {e}"));
    }
}
