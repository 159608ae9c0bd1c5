//! Real clients against the protocol server on loopback: the `mariadb` command-line client
//! (Debian's mariadb-client) and the `mysql_async` driver. Authentication with both plugins,
//! TLS, the RSA key exchange, prepared statements with binary parameters and results,
//! multi-results, and many concurrent connections.

mod protocol_support;

use std::process::{Command, Output};

use mysql_async::prelude::Queryable;
use mysql_async::{Conn, OptsBuilder, Params, Row, SslOpts, Value};
use protocol_support::{
    config_with_keys, key_dir, start, EMPTY_USER, NATIVE_PASSWORD, NATIVE_USER, SHA2_PASSWORD,
    SHA2_RSA_USER, SHA2_TLS_USER, SHA2_USER,
};

const KEYS: &str = "clients";

/// Runs the mariadb CLI with `args` after the connection options; blocking, so off the runtime.
async fn mariadb(port: u16, user: &str, password: &str, args: &[&str]) -> Output {
    let mut command = Command::new("mariadb");
    command
        .arg("--no-defaults")
        .arg("--protocol=TCP")
        .arg("-h127.0.0.1")
        .arg(format!("-P{port}"))
        .arg(format!("-u{user}"))
        .arg("--batch")
        .arg("--skip-column-names")
        .arg("--connect-timeout=30");
    if !password.is_empty() {
        command.arg(format!("-p{password}"));
    }
    command.args(args);
    tokio::task::spawn_blocking(move || command.output().expect("run mariadb (mariadb-client)"))
        .await
        .expect("join")
}

fn stdout(output: &Output) -> String {
    assert!(output.status.success(), "mariadb failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    assert!(!output.status.success(), "mariadb should have failed");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn ca_path() -> String {
    key_dir(KEYS).join("ca.pem").display().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mariadb_cli_text_queries_with_native_auth() {
    let server = start(config_with_keys(KEYS)).await;
    let port = server.port();
    let out = mariadb(port, NATIVE_USER, NATIVE_PASSWORD, &["-e", "select 1"]).await;
    assert_eq!(stdout(&out), "1\n");
    let out = mariadb(port, NATIVE_USER, NATIVE_PASSWORD, &["-e", "select rows 3"]).await;
    assert_eq!(
        stdout(&out),
        "0\tname-0\t0\t2024-01-01 12:30:00\tNULL\n\
         1\tname-1\t0.5\t2024-01-02 12:30:00\todd\n\
         2\tname-2\t1\t2024-01-03 12:30:00\tNULL\n"
    );
    let out = mariadb(port, NATIVE_USER, NATIVE_PASSWORD, &["-e", "select echo héllo wörld"]).await;
    assert_eq!(stdout(&out), "héllo wörld\n");
    let out = mariadb(
        port,
        NATIVE_USER,
        NATIVE_PASSWORD,
        &["-D", "appdb", "-e", "select database(); select 1"],
    )
    .await;
    assert_eq!(stdout(&out), "appdb\n1\n");
    let out = mariadb(port, EMPTY_USER, "", &["-e", "select 1"]).await;
    assert_eq!(stdout(&out), "1\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mariadb_cli_errors() {
    let server = start(config_with_keys(KEYS)).await;
    let port = server.port();
    let err = stderr(&mariadb(port, NATIVE_USER, NATIVE_PASSWORD, &["-e", "bogus"]).await);
    assert!(err.contains("ERROR 1064 (42000)"), "{err}");
    let err = stderr(&mariadb(port, NATIVE_USER, "wrong", &["-e", "select 1"]).await);
    assert!(
        err.contains(
            "ERROR 1045 (28000): Access denied for user 'native_user'@'127.0.0.1' \
             (using password: YES)"
        ),
        "{err}"
    );
    let err = stderr(&mariadb(port, SHA2_USER, "wrong", &["--ssl", "-e", "select 1"]).await);
    assert!(err.contains("ERROR 1045 (28000)"), "{err}");
    let err = stderr(&mariadb(port, "nobody", "", &["-e", "select 1"]).await);
    assert!(
        err.contains("Access denied for user 'nobody'@'127.0.0.1' (using password: NO)"),
        "{err}"
    );
    let err = stderr(
        &mariadb(port, NATIVE_USER, NATIVE_PASSWORD, &["-D", "nosuchdb", "-e", "select 1"]).await,
    );
    assert!(err.contains("ERROR 1049 (42000)"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mariadb_cli_caching_sha2_over_verified_tls_then_fast_path() {
    let server = start(config_with_keys(KEYS)).await;
    let port = server.port();
    let ca = format!("--ssl-ca={}", ca_path());
    // Full authentication over TLS, the certificate checked against the generated CA.
    let out = mariadb(
        port,
        SHA2_TLS_USER,
        SHA2_PASSWORD,
        &["--ssl", "--ssl-verify-server-cert", &ca, "-e", "select tls"],
    )
    .await;
    assert_eq!(stdout(&out), "1\n");
    assert_eq!(server.stats.sha2_auths(), (0, 1));
    // The server cached the login: the fast path works without TLS and without RSA.
    let out =
        mariadb(port, SHA2_TLS_USER, SHA2_PASSWORD, &["--skip-ssl", "-e", "select tls"]).await;
    assert_eq!(stdout(&out), "0\n");
    assert_eq!(server.stats.sha2_auths(), (1, 1));
    // Native accounts work over TLS too.
    let out = mariadb(port, NATIVE_USER, NATIVE_PASSWORD, &["--ssl", "-e", "select tls"]).await;
    assert_eq!(stdout(&out), "1\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mariadb_cli_caching_sha2_with_rsa_key_exchange() {
    let server = start(config_with_keys(KEYS)).await;
    let out = mariadb(
        server.port(),
        SHA2_RSA_USER,
        SHA2_PASSWORD,
        &["--skip-ssl", "-e", "select tls; select 1"],
    )
    .await;
    assert_eq!(stdout(&out), "0\n1\n");
    assert_eq!(server.stats.sha2_auths(), (0, 1), "one full authentication");
}

fn opts(port: u16, user: &str, password: &str) -> OptsBuilder {
    OptsBuilder::default()
        .ip_or_hostname("127.0.0.1")
        .tcp_port(port)
        .user(Some(user))
        .pass(Some(password))
        // The test session knows no @@variables: give the driver what it would ask for.
        .prefer_socket(false)
        .max_allowed_packet(Some(64 * 1024 * 1024))
        .wait_timeout(Some(28800))
}

fn tls() -> SslOpts {
    SslOpts::default().with_root_certs(vec![key_dir(KEYS).join("ca.pem").into()])
}

fn server_error_code(e: &mysql_async::Error) -> Option<u16> {
    match e {
        mysql_async::Error::Server(e) => Some(e.code),
        _ => None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mysql_async_prepared_statements_binary_round_trip() {
    let server = start(config_with_keys(KEYS)).await;
    let mut conn =
        Conn::new(opts(server.port(), NATIVE_USER, NATIVE_PASSWORD)).await.expect("connect");

    let params = vec![
        Value::Int(-42),
        Value::UInt(u64::MAX),
        Value::Bytes(b"two".to_vec()),
        Value::Double(3.25),
        Value::NULL,
        Value::Date(2024, 2, 29, 13, 14, 15, 123_456),
        Value::Time(true, 1, 2, 3, 4, 0),
        Value::Float(1.5),
    ];
    let row: Row = conn
        .exec_first("select ?, ?, ?, ?, ?, ?, ?, ?", Params::Positional(params.clone()))
        .await
        .expect("execute")
        .expect("one row");
    assert_eq!(row.unwrap(), params);

    // The same statement again (types resent or remembered, whichever the driver does).
    let row: Option<(i64, String)> =
        conn.exec_first("select ?, ?", (7i64, "again")).await.expect("execute");
    assert_eq!(row, Some((7, "again".to_string())));

    // A multi-row binary result with NULLs and DATETIMEs.
    let rows: Vec<Row> = conn.exec("select rows ?", (4i64,)).await.expect("rows");
    assert_eq!(rows.len(), 4);
    let first = rows[0].clone().unwrap();
    assert_eq!(first[0], Value::Int(0));
    assert_eq!(first[1], Value::Bytes(b"name-0".to_vec()));
    assert_eq!(first[2], Value::Double(0.0));
    assert_eq!(first[3], Value::Date(2024, 1, 1, 12, 30, 0, 0));
    assert_eq!(first[4], Value::NULL);
    assert_eq!(rows[3].clone().unwrap()[4], Value::Bytes(b"odd".to_vec()));

    // A large binary result crosses the flush threshold many times.
    let rows: Vec<Row> = conn.exec("select rows ?", (3000i64,)).await.expect("rows");
    assert_eq!(rows.len(), 3000);

    // A statement without a result set: affected rows and insert id.
    conn.exec_drop("insert into t values (?, ?)", (1i64, 2i64)).await.expect("insert");
    assert_eq!(conn.affected_rows(), 2);
    assert_eq!(conn.last_insert_id(), Some(7));

    // Prepare errors come back as server errors and the connection goes on.
    let err = conn.exec_drop("bogus ?", (1i64,)).await.expect_err("prepare fails");
    assert_eq!(server_error_code(&err), Some(1064));
    let one: Option<i64> = conn.query_first("select 1").await.expect("query");
    assert_eq!(one, Some(1));

    // Explicit close, then text-protocol queries and multi-results.
    let stmt = conn.prep("select ?").await.expect("prepare");
    conn.close(stmt).await.expect("close");
    let rows: Vec<Row> = conn.query("select rows 2000").await.expect("text rows");
    assert_eq!(rows.len(), 2000);
    conn.disconnect().await.expect("disconnect");
    assert!(server.stats.command_count(0x17) >= 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mysql_async_multi_results() {
    let server = start(config_with_keys(KEYS)).await;
    let mut conn =
        Conn::new(opts(server.port(), NATIVE_USER, NATIVE_PASSWORD)).await.expect("connect");
    let mut result = conn.query_iter("select 1; select echo two; insert").await.expect("multi");
    let first: Vec<i64> = result.collect().await.expect("first");
    assert_eq!(first, vec![1]);
    let second: Vec<String> = result.collect().await.expect("second");
    assert_eq!(second, vec!["two".to_string()]);
    let third: Vec<Row> = result.collect().await.expect("third");
    assert!(third.is_empty());
    assert_eq!(result.affected_rows(), 3);
    drop(result);
    conn.disconnect().await.expect("disconnect");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mysql_async_caching_sha2_full_auth_over_tls_and_rsa() {
    let server = start(config_with_keys(KEYS)).await;
    let port = server.port();

    // TLS: the password goes in clear inside TLS.
    let mut conn = Conn::new(opts(port, SHA2_TLS_USER, SHA2_PASSWORD).ssl_opts(Some(tls())))
        .await
        .expect("connect over TLS");
    let tls_on: Option<i64> = conn.query_first("select tls").await.expect("query");
    assert_eq!(tls_on, Some(1));
    conn.disconnect().await.expect("disconnect");

    // No TLS: the driver asks for the RSA public key and sends the password encrypted.
    let mut conn = Conn::new(opts(port, SHA2_RSA_USER, SHA2_PASSWORD))
        .await
        .expect("connect with RSA key exchange");
    let tls_on: Option<i64> = conn.query_first("select tls").await.expect("query");
    assert_eq!(tls_on, Some(0));
    conn.disconnect().await.expect("disconnect");

    // Again: now the fast path (cached), still no TLS.
    let mut conn = Conn::new(opts(port, SHA2_RSA_USER, SHA2_PASSWORD))
        .await
        .expect("connect on the fast path");
    conn.ping().await.expect("ping");
    conn.disconnect().await.expect("disconnect");
    assert_eq!(server.stats.sha2_auths(), (1, 2), "TLS and RSA full, then fast");

    // Wrong passwords are refused with 1045 on both plugins and both paths.
    for (user, tls_opts) in
        [(SHA2_RSA_USER, None), (SHA2_TLS_USER, Some(tls())), (NATIVE_USER, None)]
    {
        let err = Conn::new(opts(port, user, "wrong").ssl_opts(tls_opts))
            .await
            .expect_err("wrong password");
        assert_eq!(server_error_code(&err), Some(1045), "{user}: {err}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn caching_sha2_without_keys_needs_the_cache() {
    // Without TLS or an RSA key the server cannot receive a password safely: a cold account
    // is refused, exactly as mysqld without keys refuses it.
    let server = start(protocol::ServerConfig::default()).await;
    let err = Conn::new(opts(server.port(), SHA2_USER, SHA2_PASSWORD))
        .await
        .expect_err("no way to do full authentication");
    assert_eq!(server_error_code(&err), Some(1045), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_hundred_concurrent_connections() {
    let config = protocol::ServerConfig { max_connections: 400, ..config_with_keys(KEYS) };
    let server = start(config).await;
    let port = server.port();
    let mut tasks = tokio::task::JoinSet::new();
    // At most 64 handshakes in flight: 300 simultaneous SYNs overflow the listen queue, and the
    // kernel then drops the server's half of some connections the client already counts as
    // established. MySQL's server speaks first, so such a client would wait for a greeting
    // forever. The connections still end up all open at once, which is what is tested.
    let handshakes = std::sync::Arc::new(tokio::sync::Semaphore::new(64));
    for i in 0..300u32 {
        let handshakes = handshakes.clone();
        tasks.spawn(async move {
            let permit = handshakes.acquire_owned().await.expect("semaphore open");
            let mut conn =
                Conn::new(opts(port, NATIVE_USER, NATIVE_PASSWORD)).await.expect("connect");
            drop(permit);
            for _ in 0..3 {
                let echoed: Option<String> =
                    conn.query_first(format!("select echo c{i}")).await.expect("query");
                assert_eq!(echoed, Some(format!("c{i}")));
            }
            let row: Option<(i64,)> =
                conn.exec_first("select ?", (i64::from(i),)).await.expect("exec");
            assert_eq!(row, Some((i64::from(i),)));
            conn
        });
    }
    let mut conns = Vec::new();
    while let Some(done) = tasks.join_next().await {
        conns.push(done.expect("task"));
    }
    // All 300 were open at once.
    assert_eq!(server.stats.threads_connected(), 300);
    for conn in conns {
        conn.disconnect().await.expect("disconnect");
    }
    assert!(server.stats.connections() >= 300);
    assert_eq!(server.stats.command_count(0x03), 900);
}
