//! Accounts: first-start root, create/alter/drop/grant/revoke persisted across reopen, mysqld's
//! match order, and the protocol server authenticating real `mariadb` clients through them.

mod support;

use std::fs;
use std::sync::Arc;

use accounts::{
    Initialization, Privileges, UserError, Users, INITIAL_ROOT_PASSWORD_FILE, USERS_FILE,
};
use binlogd::datadir::DataDir;
use protocol::{
    Backend, BackendSession, Column, ColumnType, ConnectionInfo, ErrPacket, Listener,
    PreparedStatement, Result, ResultWriter, ServerConfig, UserAuth, Value,
};

/// Cheap hashes for tests: the account semantics do not depend on the iteration count.
fn sha2(pw: &str) -> UserAuth {
    UserAuth::caching_sha2_with_rounds(pw, 2)
}

#[test]
fn first_start_makes_root_with_a_printed_password() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (users, init) = Users::open(dir.path(), false).expect("open");
    let Initialization::RootPassword(password) = init else { panic!("{init:?}") };
    assert_eq!(password.len(), 20);
    let file = dir.path().join(INITIAL_ROOT_PASSWORD_FILE);
    assert_eq!(fs::read_to_string(&file).expect("password file"), format!("{password}\n"));
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(fs::metadata(&file).expect("stat").permissions().mode() & 0o777, 0o600);
    assert_eq!(
        fs::metadata(dir.path().join(USERS_FILE)).expect("stat").permissions().mode() & 0o777,
        0o600
    );

    let root = users.lookup("root", "127.0.0.1").expect("root on loopback");
    assert_eq!(root.host, "localhost");
    assert!(root.privileges.contains(Privileges::ALL.union(Privileges::GRANT_OPTION)));
    assert!(users.lookup("root", "10.0.0.1").is_none(), "root is loopback-only");
    let protocol::StoredPassword::Sha2(hash) = &root.auth.password else {
        panic!("root has a caching_sha2 password")
    };
    assert!(hash.verify(password.as_bytes()));
    drop(users);

    let (again, init) = Users::open(dir.path(), false).expect("reopen");
    assert_eq!(init, Initialization::Existing);
    assert_eq!(again.lookup("root", "::1").map(|a| a.auth), Some(root.auth));
}

#[test]
fn initialize_insecure_gives_root_an_empty_password() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (users, init) = Users::open(dir.path(), true).expect("open");
    assert_eq!(init, Initialization::Insecure);
    assert!(!dir.path().join(INITIAL_ROOT_PASSWORD_FILE).exists());
    assert_eq!(users.auth("root", "127.0.0.1"), Some(UserAuth::caching_sha2("")));
}

#[test]
fn account_changes_persist_and_fail_as_mysqld_does() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (users, _) = Users::open(dir.path(), true).expect("open");
    assert!(users.create_user("app", "%", sha2("pw1"), false).expect("create"));
    assert!(!users.create_user("app", "%", sha2("other"), true).expect("if not exists"));
    let err = users.create_user("app", "%", sha2("x"), false).expect_err("exists");
    assert_eq!(err.to_string(), "Operation CREATE USER failed for 'app'@'%'");
    assert_eq!(err.to_sql_error().code, 1396);

    users.create_user("repl", "10.0.0.0/255.0.0.0", UserAuth::native("r"), false).expect("create");
    users.grant("repl", "10.0.0.0/255.0.0.0", Privileges::REPLICATION_SLAVE).expect("grant");
    users.grant("app", "%", Privileges::ALL).expect("grant all");
    users.revoke("app", "%", Privileges::SUPER).expect("revoke");
    users.revoke("app", "%", Privileges::GRANT_OPTION).expect("revoke what it lacks: fine");
    users.alter_user("app", "%", UserAuth::native("pw2")).expect("alter");

    assert!(matches!(
        users.grant("ghost", "%", Privileges::ALL),
        Err(UserError::NoSuchUserForGrant)
    ));
    assert_eq!(
        users.revoke("ghost", "%", Privileges::ALL).expect_err("no account").to_sql_error().code,
        1141
    );
    assert_eq!(
        users.alter_user("ghost", "%", sha2("x")).expect_err("no account").to_string(),
        "Operation ALTER USER failed for 'ghost'@'%'"
    );
    assert!(matches!(
        users.create_user(&"u".repeat(33), "%", sha2("x"), false),
        Err(UserError::TooLong { .. })
    ));
    drop(users);

    let (users, _) = Users::open(dir.path(), true).expect("reopen");
    let app = users.get("app", "%").expect("app kept");
    assert_eq!(app.auth, UserAuth::native("pw2"));
    assert!(app.privileges.contains(Privileges::SELECT));
    assert!(!app.privileges.contains(Privileges::SUPER));
    assert!(users.has_privilege("repl", "10.0.0.0/255.0.0.0", Privileges::REPLICATION_SLAVE));
    assert!(!users.has_privilege("repl", "10.0.0.0/255.0.0.0", Privileges::SELECT));
    assert!(users.lookup("repl", "10.9.9.9").is_some());
    assert!(users.lookup("repl", "11.0.0.1").is_none());

    assert!(users.drop_user("app", "%", false).expect("drop"));
    assert!(!users.drop_user("app", "%", true).expect("if exists"));
    assert_eq!(users.drop_user("app", "%", false).expect_err("gone").to_sql_error().code, 1396);
    drop(users);
    let (users, _) = Users::open(dir.path(), true).expect("reopen");
    assert!(users.get("app", "%").is_none());
}

#[test]
fn most_specific_host_wins_then_named_user() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (users, _) = Users::open(dir.path(), true).expect("open");
    users.create_user("bob", "%", sha2("any"), false).expect("create");
    users.create_user("bob", "192.168.%", sha2("lan"), false).expect("create");
    users.create_user("bob", "192.168.1.%", sha2("subnet"), false).expect("create");
    users.create_user("bob", "192.168.1.20", sha2("exact"), false).expect("create");
    users.create_user("", "192.168.1.%", sha2("anon"), false).expect("create");
    users.create_user("bob", "LocalHost", sha2("local"), false).expect("create");

    let host_for = |client: &str| users.lookup("bob", client).map(|a| (a.user, a.host));
    assert_eq!(host_for("192.168.1.20"), Some(("bob".into(), "192.168.1.20".into())));
    assert_eq!(host_for("192.168.1.21"), Some(("bob".into(), "192.168.1.%".into())));
    assert_eq!(host_for("192.168.2.1"), Some(("bob".into(), "192.168.%".into())));
    assert_eq!(host_for("8.8.8.8"), Some(("bob".into(), "%".into())));
    assert_eq!(host_for("127.0.0.1"), Some(("bob".into(), "localhost".into())));
    // The anonymous account matches any user name, after named users on the same host.
    assert_eq!(
        users.lookup("carol", "192.168.1.5").map(|a| (a.user, a.host)),
        Some((String::new(), "192.168.1.%".into()))
    );
    assert!(users.lookup("carol", "8.8.8.8").is_none());
    assert!(users.get("bob", "localhost").is_some(), "hosts are stored lower case");
}

#[test]
fn a_damaged_users_file_is_an_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    fs::write(dir.path().join(USERS_FILE), b"{ not json").expect("write");
    let err = Users::open(dir.path(), false).expect_err("damaged");
    assert!(matches!(err, UserError::Parse { .. }), "{err}");
    assert!(std::error::Error::source(&err).is_some());
    fs::write(
        dir.path().join(USERS_FILE),
        br#"{"format":1,"accounts":[{"user":"a","host":"%","plugin":"mysql_native_password","authentication_string":"nope","privileges":[]}]}"#,
    )
    .expect("write");
    assert!(matches!(Users::open(dir.path(), false), Err(UserError::BadAccount { .. })));
}

/// The protocol server with accounts from [`Users`] and a session that answers `SELECT 1`.
struct UsersBackend(Arc<Users>);

struct OneSession;

impl Backend for UsersBackend {
    type Session = OneSession;

    fn user(&self, user: &str, host: &str) -> Option<UserAuth> {
        self.0.auth(user, host)
    }

    fn open_session(&self, _info: &ConnectionInfo) -> std::result::Result<OneSession, ErrPacket> {
        Ok(OneSession)
    }
}

impl BackendSession for OneSession {
    async fn query(&mut self, sql: &str, out: &mut ResultWriter<'_>) -> Result<()> {
        if !sql.trim().eq_ignore_ascii_case("select 1") {
            return Err(ErrPacket::new(1064, "42000", "only SELECT 1 here").into());
        }
        let column =
            Column::new(ColumnType::MYSQL_TYPE_LONGLONG).with_name(b"1").with_character_set(63);
        out.start_result_set(&[column]).await?;
        out.row(&[Value::Int(1)]).await?;
        out.end_result_set(0)
    }

    async fn prepare(&mut self, _stmt_id: u32, _sql: &str) -> Result<PreparedStatement> {
        Err(ErrPacket::new(1295, "HY000", "not here").into())
    }

    async fn execute(&mut self, _id: u32, _p: &[Value], _out: &mut ResultWriter<'_>) -> Result<()> {
        Err(ErrPacket::new(1295, "HY000", "not here").into())
    }

    fn close_statement(&mut self, _stmt_id: u32) {}

    async fn init_db(&mut self, _db: &str) -> Result<()> {
        Ok(())
    }

    async fn reset(&mut self) -> Result<()> {
        Ok(())
    }
}

/// `mariadb -e "SELECT 1"` off the async workers (the protocol server runs on them).
async fn mariadb(port: u16, user: &str, password: &str, ssl: &str) -> std::process::Output {
    let (user, password, ssl) = (user.to_string(), password.to_string(), ssl.to_string());
    tokio::task::spawn_blocking(move || {
        support::mariadb(port, &user, &password, &[ssl.as_str()], "SELECT 1")
    })
    .await
    .expect("join")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mariadb_cli_logs_in_through_the_accounts() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let datadir = DataDir::open(tmp.path()).expect("datadir");
    let keys = Arc::new(datadir.load_keys().expect("keys"));
    let (users, init) = Users::open(datadir.path(), false).expect("open");
    let Initialization::RootPassword(root_password) = init else { panic!("{init:?}") };
    users.create_user("native", "127.0.0.%", UserAuth::native("n-pw"), false).expect("create");
    users.create_user("elsewhere", "10.%", UserAuth::native("e-pw"), false).expect("create");
    let backend = UsersBackend(Arc::new(users));
    let config = ServerConfig { keys: Some(keys), ..ServerConfig::default() };
    let server = Arc::new(Listener::new(config, backend));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let serving = server.clone();
    let task = tokio::spawn(async move { serving.serve(listener).await });

    // root@localhost with the first start's password (caching_sha2 full authentication over
    // TLS with the data directory's keys), then a native account matched by a host pattern.
    let root = mariadb(port, "root", &root_password, "--ssl").await;
    assert!(root.status.success(), "{}", String::from_utf8_lossy(&root.stderr));
    assert_eq!(String::from_utf8_lossy(&root.stdout), "1\n");
    let ok = mariadb(port, "native", "n-pw", "--skip-ssl").await;
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
    assert_eq!(String::from_utf8_lossy(&ok.stdout), "1\n");

    let wrong = mariadb(port, "native", "bad", "--skip-ssl").await;
    let wrong = String::from_utf8_lossy(&wrong.stderr);
    assert!(wrong.contains("Access denied for user 'native'@'127.0.0.1'"), "{wrong}");
    let other_host = mariadb(port, "elsewhere", "e-pw", "--skip-ssl").await;
    let other_host = String::from_utf8_lossy(&other_host.stderr);
    assert!(other_host.contains("1045"), "host pattern refuses: {other_host}");
    task.abort();
}
