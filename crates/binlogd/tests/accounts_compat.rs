//! What a MySQL user meets around accounts, against real `binlogd serve` processes:
//! `mariadb-admin` (Debian's mariadb-client) commands, with their privilege errors; database
//! grants with `%` / `_` patterns; caching_sha2_password hashes in mysqld's own `$A$005$` form
//! (a hash made by MySQL 8 logs in; accounts stored in binlogd's former PBKDF2 form still do);
//! roles answering 1235 with the connection and its transaction intact.

mod support;

use std::process::Output;
use std::time::{Duration, Instant};

use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Row};

use support::sql::{conn, conn_as, exec, query, text};

fn insecure(dir: &std::path::Path) -> support::Running {
    support::start(dir, &["--initialize-insecure"])
}

/// `mariadb-admin ARGS` over TCP to 127.0.0.1:`port` as `user`.
fn admin(port: u16, user: &str, password: &str, args: &[&str]) -> Output {
    support::client("mariadb-admin", port, user, password)
        .arg("--connect-timeout=10")
        .args(args)
        .output()
        .expect("run mariadb-admin (scripts/test.sh installs mariadb-client)")
}

fn admin_ok(port: u16, args: &[&str]) -> String {
    let out = admin(port, "root", "", args);
    assert!(
        out.status.success(),
        "mariadb-admin {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn admin_fails(port: u16, user: &str, password: &str, args: &[&str]) -> String {
    let out = admin(port, user, password, args);
    assert!(!out.status.success(), "mariadb-admin {args:?} succeeded as {user}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

async fn binlog_count(port: u16) -> usize {
    query(port, "SHOW BINARY LOGS").await.len()
}

async fn error(c: &mut Conn, sql: &str) -> (u16, String) {
    let e = c.query_drop(sql).await.expect_err(sql);
    let mysql_async::Error::Server(s) = &e else { panic!("{sql}: {e}") };
    (s.code, s.message.clone())
}

async fn rows(c: &mut Conn, sql: &str) -> Vec<Vec<String>> {
    let rows: Vec<Row> = c.query(sql).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
    rows.iter().map(|r| (0..r.len()).map(|i| text(&r[i])).collect()).collect()
}

/// True if `user` / `password` can log in (caching_sha2_password full authentication over
/// the RSA key exchange, as a client without TLS does).
async fn logs_in(port: u16, user: &str, password: &str) -> bool {
    match Conn::new(support::sql::opts(port, user, password)).await {
        Ok(c) => {
            let _ = c.disconnect().await;
            true
        }
        Err(mysql_async::Error::Server(e)) if e.code == 1045 => false,
        Err(e) => panic!("connect as {user}: {e}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mariadb_admin_commands() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = insecure(&dir.path().join("data"));
    let p = server.port;
    exec(p, "CREATE USER plain IDENTIFIED WITH mysql_native_password BY 'pw'").await;

    assert_eq!(admin_ok(p, &["ping"]).trim(), "mysqld is alive");
    let status = admin_ok(p, &["status"]);
    assert!(status.starts_with("Uptime: ") && status.contains("Threads: "), "{status}");
    let version = admin_ok(p, &["version"]);
    let server_version = query(p, "SELECT VERSION()").await[0][0].clone();
    assert!(version.contains(&format!("Server version\t\t{server_version}")), "{version}");
    assert!(version.contains("Uptime:"), "{version}");
    let variables = admin_ok(p, &["variables"]);
    assert!(variables.lines().any(|l| l.contains("| sync_binlog ") && l.contains("| 1 ")));
    // COM_PROCESS_INFO is what `processlist` sends: its result set lists the connection.
    let processes = admin_ok(p, &["processlist"]);
    assert!(processes.contains("| Id ") && processes.contains("| root "), "{processes}");

    // flush-logs (FLUSH LOGS) and refresh (COM_REFRESH with REFRESH_LOG) rotate the binlog.
    let before = binlog_count(p).await;
    admin_ok(p, &["flush-logs"]);
    assert_eq!(binlog_count(p).await, before + 1);
    admin_ok(p, &["refresh"]);
    assert_eq!(binlog_count(p).await, before + 2);
    // COM_DEBUG writes to the error log.
    admin_ok(p, &["debug"]);
    let log = std::fs::read_to_string(&server.log).expect("log");
    assert!(log.contains("COM_DEBUG: uptime"), "{log}");

    // Without the privileges: mysqld's 1227, naming the privilege; nothing happens.
    let denied = |privilege: &str| {
        format!("Access denied; you need (at least one of) the {privilege} privilege(s)")
    };
    for (command, privilege) in [
        ("flush-logs", "RELOAD"),
        ("refresh", "RELOAD"),
        ("debug", "SUPER"),
        ("shutdown", "SHUTDOWN"),
    ] {
        let e = admin_fails(p, "plain", "pw", &[command]);
        assert!(e.contains(&denied(privilege)), "{command}: {e}");
    }
    assert_eq!(binlog_count(p).await, before + 2);
    assert_eq!(admin(p, "plain", "pw", &["ping"]).status.code(), Some(0));

    // shutdown (COM_SHUTDOWN) as root: a clean stop, as SIGTERM.
    admin_ok(p, &["shutdown"]);
    let mut running = server;
    let deadline = Instant::now() + Duration::from_secs(30);
    let exit = loop {
        if let Some(status) = running.child.try_wait().expect("try_wait") {
            break status;
        }
        assert!(Instant::now() < deadline, "COM_SHUTDOWN did not stop the server");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(exit.success(), "exit status {exit}");
    let log = std::fs::read_to_string(&running.log).expect("log");
    assert!(log.contains("shutdown complete"), "{log}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn database_grant_patterns() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = insecure(&dir.path().join("data"));
    let p = server.port;
    for sql in [
        "CREATE DATABASE app1",
        "CREATE DATABASE app_main",
        "CREATE DATABASE other",
        "CREATE DATABASE db_1",
        "CREATE DATABASE dbx1",
        "CREATE TABLE app1.t (id INT PRIMARY KEY)",
        "CREATE TABLE app_main.t (id INT PRIMARY KEY)",
        "CREATE TABLE other.t (id INT PRIMARY KEY)",
        "CREATE TABLE db_1.t (id INT PRIMARY KEY)",
        "CREATE TABLE dbx1.t (id INT PRIMARY KEY)",
        "CREATE USER u IDENTIFIED WITH mysql_native_password BY 'pw'",
        "GRANT SELECT ON `app%`.* TO u",
        r"GRANT INSERT ON `app\_main`.* TO u",
        r"GRANT SELECT ON `db\_1`.* TO u",
    ] {
        exec(p, sql).await;
    }
    assert_eq!(
        query(p, "SHOW GRANTS FOR u").await.concat(),
        [
            "GRANT USAGE ON *.* TO `u`@`%`",
            "GRANT SELECT ON `app%`.* TO `u`@`%`",
            r"GRANT INSERT ON `app\_main`.* TO `u`@`%`",
            r"GRANT SELECT ON `db\_1`.* TO `u`@`%`",
        ]
    );
    let mut u = conn_as(p, "u", "pw").await;
    // `app%` admits app1.
    assert!(rows(&mut u, "SELECT * FROM app1.t").await.is_empty());
    assert_eq!(error(&mut u, "INSERT INTO app1.t VALUES (1)").await.0, 1142);
    // app_main has its own grant (`_` escaped: an exact name), the most specific one: INSERT,
    // not the pattern's SELECT (mysqld takes the first match of its sorted db grants).
    u.query_drop("INSERT INTO app_main.t VALUES (1)").await.expect("INSERT on app_main");
    assert_eq!(error(&mut u, "SELECT * FROM app_main.t").await.0, 1142);
    assert_eq!(error(&mut u, "SELECT * FROM other.t").await.0, 1142);
    // An escaped `_` is literal: db_1 yes, dbx1 no.
    assert!(rows(&mut u, "SELECT * FROM db_1.t").await.is_empty());
    assert_eq!(error(&mut u, "SELECT * FROM dbx1.t").await.0, 1142);
    assert_eq!(error(&mut u, "USE dbx1").await.0, 1044);
    u.query_drop("USE app1").await.expect("USE a database a pattern admits");
    assert_eq!(
        rows(&mut u, "SHOW DATABASES").await.concat(),
        ["app1", "app_main", "db_1", "information_schema"]
    );
    // Revoking the pattern grant takes it away at the next statement.
    exec(p, "REVOKE SELECT ON `app%`.* FROM u").await;
    assert_eq!(error(&mut u, "SELECT * FROM app1.t").await.0, 1142);
}

/// `CREATE USER u1@localhost IDENTIFIED BY 'secret'` on MySQL 8 stores this
/// authentication_string (MySQL 8.0 Reference Manual, "SHOW CREATE USER Statement", with
/// print_identified_with_as_hex).
const MYSQL8_SECRET_HASH: &str = "244124303035240C7745603626313D613C4C10633E0A104B1E14135A544A78\
                                  71567245614F4872344643546336546F624F6C7861326932752F45622F4F\
                                  473273597557627139";

fn quote(bytes: &[u8]) -> String {
    let text = std::str::from_utf8(bytes).expect("mysqld's salts are 7-bit");
    format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn caching_sha2_hashes_in_mysql_form() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    let server = insecure(&data);
    let p = server.port;
    let hash = hex::decode(MYSQL8_SECRET_HASH).expect("hex");
    exec(
        p,
        &format!("CREATE USER 'm8'@'%' IDENTIFIED WITH caching_sha2_password AS {}", quote(&hash)),
    )
    .await;
    assert!(logs_in(p, "m8", "secret").await, "MySQL 8's hash of 'secret'");
    assert!(!logs_in(p, "m8", "Secret").await);

    // New passwords are hashed in mysqld's form, and that is what the binlog carries.
    exec(p, "CREATE USER 'fresh'@'%' IDENTIFIED BY 'pw-1'").await;
    let events = query(p, "SHOW BINLOG EVENTS").await;
    let created = events
        .iter()
        .map(|e| &e[5])
        .find(|info| info.starts_with("CREATE USER 'fresh'"))
        .expect("CREATE USER fresh in the binlog")
        .clone();
    let quoted = created.split(" AS '").nth(1).expect("AS '<hash>'");
    let mut logged = String::new();
    let mut chars = quoted.chars();
    while let Some(ch) = chars.next() {
        match ch {
            '\\' => logged.extend(chars.next()),
            '\'' => break,
            _ => logged.push(ch),
        }
    }
    assert!(logged.starts_with("$A$005$") && logged.len() == 70, "{logged:?}");
    // That logged hash, given to another server, logs in with the password.
    let other = insecure(&dir.path().join("other"));
    exec(
        other.port,
        &format!(
            "CREATE USER 'fresh'@'%' IDENTIFIED WITH caching_sha2_password AS {}",
            quote(logged.as_bytes())
        ),
    )
    .await;
    assert!(logs_in(other.port, "fresh", "pw-1").await);
    assert!(!logs_in(other.port, "fresh", "pw-2").await);
    drop(other);

    // A hash of the wrong shape is mysqld's 1827.
    let mut root = conn(p).await;
    let e = error(
        &mut root,
        "CREATE USER bad IDENTIFIED WITH caching_sha2_password AS '$A$005$tooshort'",
    )
    .await;
    assert_eq!(e.0, 1827, "{e:?}");
    drop(root);

    // An account stored by an older binlogd (PBKDF2 form) still loads and logs in; its next
    // password change moves it to mysqld's form.
    support::stop(server, "-TERM");
    let users_path = data.join("users.json");
    let mut users: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&users_path).expect("users.json")).expect("json");
    let salt = [7u8; 20];
    let mut digest = [0u8; 32];
    pbkdf2::pbkdf2_hmac::<sha2::Sha256>(b"old-pw", &salt, 1000, &mut digest);
    let legacy =
        format!("$binlogd-pbkdf2-sha256$1000${}${}", hex::encode(salt), hex::encode(digest));
    users["accounts"].as_array_mut().expect("accounts").push(serde_json::json!({
        "user": "old", "host": "%", "plugin": "caching_sha2_password",
        "authentication_string": legacy, "privileges": ["USAGE"], "grants": []
    }));
    std::fs::write(&users_path, serde_json::to_vec(&users).expect("json")).expect("write");
    let server = insecure(&data);
    let p = server.port;
    assert!(logs_in(p, "old", "old-pw").await, "the old form still verifies");
    assert!(!logs_in(p, "old", "other").await);
    assert!(logs_in(p, "m8", "secret").await, "the MySQL hash survives a restart");
    let mut old = conn_as(p, "old", "old-pw").await;
    old.query_drop("SET PASSWORD = 'new-pw'").await.expect("own password");
    drop(old);
    assert!(logs_in(p, "old", "new-pw").await);
    let stored = std::fs::read_to_string(&users_path).expect("users.json");
    assert!(!stored.contains("binlogd-pbkdf2"), "moved to mysqld's form:\n{stored}");
}

/// `IDENTIFIED WITH ... AS 0x...` takes the hash as MySQL 8's SHOW CREATE USER prints it with
/// print_identified_with_as_hex; binlogd's own SHOW CREATE USER prints it back that way, and
/// its text, run as a statement, makes an account that logs in with the same password.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn show_create_user_round_trips_with_hex_hashes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = insecure(&dir.path().join("data"));
    let p = server.port;
    let mut root = conn(p).await;
    root.query_drop(format!(
        "CREATE USER m8@'%' IDENTIFIED WITH caching_sha2_password AS 0x{MYSQL8_SECRET_HASH}"
    ))
    .await
    .expect("CREATE USER ... AS 0x");
    assert!(logs_in(p, "m8", "secret").await, "MySQL 8's hash of 'secret', given in hex");
    // mysql_native_password's `*` and 40 hex digits, given in hex too (SHA1(SHA1('secret'))).
    let native = "*14E65567ABDB5135D0CFD9A70B3032C179A49EE7";
    root.query_drop(format!(
        "CREATE USER nat@'%' IDENTIFIED WITH mysql_native_password AS X'{}'",
        hex::encode(native)
    ))
    .await
    .expect("CREATE USER ... AS X'...'");
    assert!(logs_in(p, "nat", "secret").await);

    // SHOW CREATE USER: hex only where the hash has unprintable bytes, and only when asked.
    let show = |rows: Vec<Vec<String>>| rows[0][0].clone();
    let plain = show(rows(&mut root, "SHOW CREATE USER m8@'%'").await);
    assert!(plain
        .starts_with("CREATE USER `m8`@`%` IDENTIFIED WITH 'caching_sha2_password' AS '$A$005$"));
    root.query_drop("SET print_identified_with_as_hex = ON").await.expect("SET");
    let hexed = show(rows(&mut root, "SHOW CREATE USER m8@'%'").await);
    assert_eq!(
        hexed,
        format!(
            "CREATE USER `m8`@`%` IDENTIFIED WITH 'caching_sha2_password' AS 0x{MYSQL8_SECRET_HASH} \
             REQUIRE NONE PASSWORD EXPIRE DEFAULT ACCOUNT UNLOCK PASSWORD HISTORY DEFAULT \
             PASSWORD REUSE INTERVAL DEFAULT PASSWORD REQUIRE CURRENT DEFAULT"
        )
    );
    let native_shown = show(rows(&mut root, "SHOW CREATE USER nat@'%'").await);
    assert!(native_shown.contains(&format!("AS '{native}' REQUIRE NONE")), "{native_shown}");

    // Both texts run back as statements (under another name) and log in with the password.
    for (shown, from, to) in [(&hexed, "`m8`", "`m8copy`"), (&native_shown, "`nat`", "`natcopy`")] {
        root.query_drop(shown.replacen(from, to, 1))
            .await
            .unwrap_or_else(|e| panic!("{shown}: {e}"));
    }
    assert!(logs_in(p, "m8copy", "secret").await);
    assert!(logs_in(p, "natcopy", "secret").await);
    assert!(!logs_in(p, "m8copy", "Secret").await);

    // Errors as mysqld's: a hex hash of the wrong shape 1827, a missing account 1396, another
    // account's text without SELECT 1227; the own account's is always allowed.
    let e =
        error(&mut root, "CREATE USER bad IDENTIFIED WITH caching_sha2_password AS 0x2441").await;
    assert_eq!(e.0, 1827, "{e:?}");
    let e = error(&mut root, "SHOW CREATE USER nobody@'%'").await;
    assert_eq!(e, (1396, "Operation SHOW CREATE USER failed for 'nobody'@'%'".into()));
    let mut nat = conn_as(p, "nat", "secret").await;
    assert_eq!(error(&mut nat, "SHOW CREATE USER m8@'%'").await.0, 1227);
    assert!(show(rows(&mut nat, "SHOW CREATE USER CURRENT_USER").await)
        .starts_with("CREATE USER `nat`"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn roles_and_column_privileges_are_not_supported() {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = insecure(&dir.path().join("data"));
    let p = server.port;
    for sql in [
        "CREATE DATABASE d",
        "CREATE TABLE d.t (id INT PRIMARY KEY, c INT)",
        "CREATE USER u IDENTIFIED WITH mysql_native_password BY 'pw'",
    ] {
        exec(p, sql).await;
    }
    let gtids = query(p, "SELECT @@GLOBAL.gtid_executed").await;
    let mut c = conn(p).await;
    c.query_drop("BEGIN").await.expect("begin");
    c.query_drop("INSERT INTO d.t VALUES (1, 1)").await.expect("insert");
    for sql in [
        "CREATE ROLE r",
        "CREATE ROLE IF NOT EXISTS r1, r2",
        "DROP ROLE r",
        "GRANT r TO u",
        "GRANT r1, r2 TO u WITH ADMIN OPTION",
        "REVOKE r FROM u",
        "SET ROLE r",
        "SET ROLE ALL",
        "SET DEFAULT ROLE r TO u",
        "GRANT SELECT (c) ON d.t TO u",
        "GRANT SELECT (id), UPDATE (c) ON d.t TO u",
    ] {
        let (code, message) = error(&mut c, sql).await;
        assert_eq!(code, 1235, "{sql}: {message}");
        let what = if sql.contains('(') { "column privileges" } else { "roles" };
        assert!(message.contains(what), "{sql}: {message}");
    }
    // The connection and its transaction are intact.
    assert_eq!(rows(&mut c, "SELECT id FROM d.t").await, [["1"]]);
    c.query_drop("ROLLBACK").await.expect("rollback");
    assert!(rows(&mut c, "SELECT id FROM d.t").await.is_empty());
    // `REVOKE ALL, GRANT OPTION FROM` (no ON) is still the real statement.
    c.query_drop("REVOKE ALL PRIVILEGES, GRANT OPTION FROM u").await.expect("revoke all");
    assert_eq!(query(p, "SHOW GRANTS FOR u").await, [["GRANT USAGE ON *.* TO `u`@`%`"]]);
    // Nothing of the refused statements reached the binlog (REVOKE ALL did: one GTID).
    let after = query(p, "SELECT @@GLOBAL.gtid_executed").await;
    assert_ne!(after, gtids);
    let events = query(p, "SHOW BINLOG EVENTS").await;
    assert!(events.iter().all(|e| !e[5].contains("ROLE")), "{events:?}");
}
