//! The Unix socket (`socket`, mysqld's variable): local clients connect through a socket file,
//! as `localhost`, with passwords sent as over TLS (a secure transport), and the file is
//! managed as mysqld manages it (stale files replaced, a live server's refused, removed on
//! shutdown).

mod support;

use std::path::Path;
use std::process::{Command, Output};

use mysql_async::prelude::*;
use support::{ok, start, stop};

/// `mariadb --batch --skip-column-names` through the socket file `socket`.
fn over_socket(socket: &Path, user: &str, password: &str, sql: &str) -> Output {
    let mut command = Command::new("mariadb");
    command.args(["--no-defaults", "--protocol=SOCKET", "--batch", "--skip-column-names"]);
    command.arg(format!("--socket={}", socket.display())).arg(format!("-u{user}"));
    if !password.is_empty() {
        command.arg(format!("-p{password}"));
    }
    command.args(["-e", sql]).output().expect("run mariadb (scripts/test.sh installs it)")
}

/// Runs `binlogd serve` on `datadir` with `socket_arg` to its end (a server that cannot start).
fn serve_to_exit(datadir: &Path, socket_arg: &str) -> Output {
    let datadir_arg = format!("--datadir={}", datadir.display());
    support::serve(&[&datadir_arg, "--port=0", "--initialize-insecure", socket_arg])
        .output()
        .expect("run binlogd")
}

#[test]
fn local_clients_connect_through_the_socket_as_localhost() {
    let dir = tempfile::tempdir().expect("tempdir");
    let datadir = dir.path().join("d");
    let server = start(&datadir, &["--initialize-insecure"]);
    let socket = datadir.join("mysql.sock");
    let out = ok(over_socket(&socket, "root", "", "SELECT CURRENT_USER(), USER(), @@socket"));
    assert_eq!(out.trim(), format!("root@localhost\troot@localhost\t{}", socket.display()));

    ok(over_socket(
        &socket,
        "root",
        "",
        "CREATE USER bob@localhost IDENTIFIED BY 'bob-pw';
         CREATE USER tcp_only@'127.0.0.1' IDENTIFIED BY 'tcp-pw';
         CREATE USER anywhere@'%' IDENTIFIED WITH mysql_native_password BY 'any-pw';
         CREATE DATABASE s; CREATE TABLE s.t (id INT PRIMARY KEY, v INT);
         GRANT ALL ON *.* TO bob@localhost",
    ));
    // A fresh caching_sha2_password account: the first login is a cache miss, so the client
    // sends the password itself, in clear as over TLS (no RSA key exchange on a socket).
    for _ in 0..2 {
        let out = ok(over_socket(&socket, "bob", "bob-pw", "SELECT CURRENT_USER()"));
        assert_eq!(out.trim(), "bob@localhost");
    }
    let status = ok(over_socket(&socket, "root", "", "SHOW GLOBAL STATUS LIKE 'Caching_sha2%'"));
    assert!(status.contains("Caching_sha2_password_full_auths\t1"), "{status}");
    let denied = over_socket(&socket, "bob", "wrong", "SELECT 1");
    let err = support::fails(denied);
    assert!(err.contains("1045") && err.contains("'bob'@'localhost'"), "{err}");
    // Host patterns: `%` admits a socket client, an IP address does not (its host is
    // `localhost`, as mysqld names it).
    assert_eq!(
        ok(over_socket(&socket, "anywhere", "any-pw", "SELECT CURRENT_USER()")).trim(),
        "anywhere@%"
    );
    let err = support::fails(over_socket(&socket, "tcp_only", "tcp-pw", "SELECT 1"));
    assert!(err.contains("1045"), "{err}");
    assert!(ok(support::mariadb(server.port, "tcp_only", "tcp-pw", &[], "SELECT 1")).contains('1'));

    // A Rust client with prepared statements over the socket.
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("rt");
    let (count, v7): (i64, i64) = rt.block_on(async {
        let opts = mysql_async::OptsBuilder::default()
            .socket(Some(socket.display().to_string()))
            .user(Some("bob"))
            .pass(Some("bob-pw"))
            .db_name(Some("s"));
        let mut conn = mysql_async::Conn::new(opts).await.expect("connect over the socket");
        let insert = conn.prep("INSERT INTO t VALUES (?, ?)").await.expect("prepare");
        for i in 1..=10i64 {
            conn.exec_drop(&insert, (i, i * 10)).await.expect("insert");
        }
        let count: Option<i64> = conn.query_first("SELECT COUNT(*) FROM t").await.expect("count");
        let v7: Option<i64> =
            conn.exec_first("SELECT v FROM t WHERE id = ?", (7,)).await.expect("select");
        conn.disconnect().await.expect("disconnect");
        (count.expect("a row"), v7.expect("a row"))
    });
    assert_eq!((count, v7), (10, 70));

    let log = stop(server, "-TERM");
    assert!(log.contains(&format!("socket: '{}'", socket.display())), "{log}");
    assert!(!socket.exists(), "the socket file is removed on shutdown");
}

#[test]
fn socket_files_are_managed_like_mysqld() {
    let dir = tempfile::tempdir().expect("tempdir");
    let shared = dir.path().join("shared.sock");
    let shared_arg = format!("--socket={}", shared.display());

    // A stale socket file (its server is gone) is replaced.
    drop(std::os::unix::net::UnixListener::bind(&shared).expect("stale socket"));
    assert!(shared.exists());
    let first = start(&dir.path().join("a"), &["--initialize-insecure", &shared_arg]);
    assert!(ok(over_socket(&shared, "root", "", "SELECT 1")).contains('1'));

    // A live server's socket is refused: the second server does not start.
    let second = serve_to_exit(&dir.path().join("b"), &shared_arg);
    assert!(!second.status.success(), "a second server took a live socket");
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(err.contains("another server is using the socket file"), "{err}");
    assert!(ok(over_socket(&shared, "root", "", "SELECT 2")).contains('2'), "first still serves");
    stop(first, "-TERM");

    // A file that is not a socket is never removed.
    std::fs::write(&shared, b"not a socket").expect("write");
    let third = serve_to_exit(&dir.path().join("c"), &shared_arg);
    assert!(!third.status.success());
    assert_eq!(std::fs::read(&shared).expect("kept"), b"not a socket");

    // `--socket=` (empty): TCP only.
    let datadir = dir.path().join("e");
    let tcp_only = start(&datadir, &["--initialize-insecure", "--socket="]);
    let out =
        ok(support::mariadb(tcp_only.port, "root", "", &[], "SELECT CONCAT('[', @@socket, ']')"));
    assert_eq!(out.trim(), "[]");
    assert!(!datadir.join("mysql.sock").exists());
}

/// A binlog dump over the Unix socket: the stream's first part is read from the files, the
/// rest (once the dump is caught up) written by the shared tail thread on a second handle of
/// the Unix socket (`replication::tail`); every transaction's XID event arrives.
#[test]
fn a_binlog_dump_streams_over_the_socket() {
    use futures_util::StreamExt;
    use mysql_async::binlog::EventType;

    let dir = tempfile::tempdir().expect("tempdir");
    let datadir = dir.path().join("d");
    let server = start(&datadir, &["--initialize-insecure"]);
    let socket = datadir.join("mysql.sock").display().to_string();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("rt");
    rt.block_on(async {
        let opts = |db: Option<&str>| {
            mysql_async::OptsBuilder::default()
                .socket(Some(socket.clone()))
                .user(Some("root"))
                .db_name(db)
        };
        let mut writer = mysql_async::Conn::new(opts(None)).await.expect("connect");
        writer.query_drop("CREATE DATABASE s").await.expect("db");
        writer.query_drop("CREATE TABLE s.t (id INT PRIMARY KEY)").await.expect("table");
        for i in 0..5 {
            writer.exec_drop("INSERT INTO s.t VALUES (?)", (i,)).await.expect("insert");
        }
        let reader = mysql_async::Conn::new(opts(None)).await.expect("connect the reader");
        let mut stream = reader
            .get_binlog_stream(mysql_async::BinlogStreamRequest::new(77))
            .await
            .expect("COM_BINLOG_DUMP over the socket");
        let mut xids = 0;
        let mut wanted = 5;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while xids < 20 {
            if xids == wanted && wanted == 5 {
                // Caught up with the files: the next 15 come through the tail.
                for i in 5..20 {
                    writer.exec_drop("INSERT INTO s.t VALUES (?)", (i,)).await.expect("insert");
                }
                wanted = 20;
            }
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let event = tokio::time::timeout(left, stream.next())
                .await
                .unwrap_or_else(|_| panic!("only {xids} of 20 XID events arrived"))
                .expect("stream open")
                .expect("event");
            if event.header().event_type() == Ok(EventType::XID_EVENT) {
                xids += 1;
            }
        }
        writer.disconnect().await.expect("disconnect");
    });
    let log = std::fs::read_to_string(&server.log).expect("log");
    assert!(log.contains("is sent by the binlog-tail thread"), "the tail never sent:\n{log}");
}
