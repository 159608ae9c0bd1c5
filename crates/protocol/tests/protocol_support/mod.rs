//! A small test-only SQL session for the protocol tests, and a server on a loopback port.
//!
//! The "SQL" it understands (case-insensitive, one statement per query unless multi-statements):
//! `select 1`, `select echo <text>`, `select rows <n>` (id, name, score, created, note with
//! NULLs), `select big <n>` (one string of n bytes), `select database()`, `select tls`,
//! `insert` (OK with affected rows, insert id and info), `begin`, `commit`, `warn`
//! (OK with a warning); anything else is ER_PARSE_ERROR. Prepared statements echo their
//! parameters back as one row (`select ...`) or answer OK with the parameter count; a prepared
//! `select rows <n>` returns the multi-row result in binary form. COM_BINLOG_DUMP streams three
//! fake events and an EOF. `set timeouts <read ms> <write ms> <wait ms>` sets the session's
//! socket timeouts. The account [`ADMIN_USER`] holds CONNECTION_ADMIN.

#![allow(dead_code)]

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use protocol::error::Result;
use protocol::{
    Backend, BackendSession, Column, ColumnFlags, ColumnType, ConnectionInfo, ErrPacket, Listener,
    OkResult, PacketWriter, PreparedStatement, ReplicationCommand, ResultWriter, ServerConfig,
    ServerKeys, Stats, UserAuth, Value,
};

pub const NATIVE_USER: &str = "native_user";
pub const NATIVE_PASSWORD: &str = "native-pw";
pub const SHA2_USER: &str = "sha2_user";
pub const SHA2_PASSWORD: &str = "sha2-pw";
/// A second caching_sha2 account, so one test can see a cold cache.
pub const SHA2_RSA_USER: &str = "sha2_rsa_user";
pub const SHA2_TLS_USER: &str = "sha2_tls_user";
pub const EMPTY_USER: &str = "nopw";
/// An administrator (CONNECTION_ADMIN), password [`NATIVE_PASSWORD`].
pub const ADMIN_USER: &str = "admin_user";

/// The key directory for this test binary (made once, then loaded on later runs).
pub fn keys(name: &str) -> Arc<ServerKeys> {
    static KEYS: OnceLock<Arc<ServerKeys>> = OnceLock::new();
    KEYS.get_or_init(|| {
        let dir = key_dir(name);
        Arc::new(ServerKeys::load_or_create(&dir).expect("server keys"))
    })
    .clone()
}

pub fn key_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("protocol-keys-{name}"))
}

pub struct TestBackend {
    users: HashMap<String, UserAuth>,
}

impl TestBackend {
    pub fn new() -> Self {
        let rounds = 100;
        let users = HashMap::from([
            (NATIVE_USER.to_string(), UserAuth::native(NATIVE_PASSWORD)),
            (SHA2_USER.to_string(), UserAuth::caching_sha2_with_rounds(SHA2_PASSWORD, rounds)),
            (SHA2_RSA_USER.to_string(), UserAuth::caching_sha2_with_rounds(SHA2_PASSWORD, rounds)),
            (SHA2_TLS_USER.to_string(), UserAuth::caching_sha2_with_rounds(SHA2_PASSWORD, rounds)),
            (EMPTY_USER.to_string(), UserAuth::native("")),
            (ADMIN_USER.to_string(), UserAuth::native(NATIVE_PASSWORD)),
        ]);
        Self { users }
    }
}

impl Backend for TestBackend {
    type Session = TestSession;

    fn user(&self, user: &str, _host: &str) -> Option<UserAuth> {
        self.users.get(user).cloned()
    }

    fn open_session(&self, info: &ConnectionInfo) -> Result<TestSession, ErrPacket> {
        Ok(TestSession {
            user: info.user.clone(),
            collation: info.collation,
            db: None,
            tls: info.tls,
            statements: HashMap::new(),
            timeouts: protocol::Timeouts::default(),
        })
    }

    fn is_connection_admin(&self, user: &str, _host: &str) -> bool {
        user == ADMIN_USER
    }
}

pub struct TestSession {
    /// The account the session was opened for (login or COM_CHANGE_USER).
    user: String,
    /// The collation id of the handshake or COM_CHANGE_USER.
    collation: u8,
    timeouts: protocol::Timeouts,
    db: Option<String>,
    tls: bool,
    statements: HashMap<u32, String>,
}

fn parse_error(sql: &str) -> ErrPacket {
    ErrPacket::new(1064, "42000", format!("You have an error in your SQL syntax near '{sql}'"))
}

fn col(name: &str, column_type: ColumnType) -> Column {
    Column::new(column_type)
        .with_name(name.as_bytes())
        .with_org_name(name.as_bytes())
        .with_character_set(
            if matches!(
                column_type,
                ColumnType::MYSQL_TYPE_VAR_STRING | ColumnType::MYSQL_TYPE_NULL
            ) {
                45
            } else {
                63
            },
        )
        // A DOUBLE of no fixed decimals, as mysqld sends one (NOT_FIXED_DEC): 0 would print
        // the value rounded to an integer.
        .with_decimals(if column_type == ColumnType::MYSQL_TYPE_DOUBLE { 31 } else { 0 })
}

fn rows_columns() -> Vec<Column> {
    vec![
        col("id", ColumnType::MYSQL_TYPE_LONGLONG)
            .with_flags(ColumnFlags::NOT_NULL_FLAG | ColumnFlags::PRI_KEY_FLAG),
        col("name", ColumnType::MYSQL_TYPE_VAR_STRING),
        col("score", ColumnType::MYSQL_TYPE_DOUBLE),
        col("created", ColumnType::MYSQL_TYPE_DATETIME),
        col("note", ColumnType::MYSQL_TYPE_VAR_STRING),
    ]
}

fn rows_row(i: u64) -> Vec<Value> {
    vec![
        Value::Int(i as i64),
        Value::Bytes(format!("name-{i}").into_bytes()),
        Value::Double(i as f64 / 2.0),
        Value::Date(2024, 1, 1 + (i % 28) as u8, 12, 30, 0, 0),
        if i.is_multiple_of(2) { Value::NULL } else { Value::Bytes(b"odd".to_vec()) },
    ]
}

impl TestSession {
    async fn one(&mut self, sql: &str, out: &mut ResultWriter<'_>) -> Result<()> {
        let lower = sql.trim().to_ascii_lowercase();
        let words: Vec<&str> = lower.split_whitespace().collect();
        match words.as_slice() {
            ["select", "1"] => {
                out.start_result_set(&[col("1", ColumnType::MYSQL_TYPE_LONGLONG)]).await?;
                out.row(&[Value::Int(1)]).await?;
                out.end_result_set(0)?;
            }
            ["select", "echo", ..] => {
                let text = sql.trim()["select echo".len()..].trim().to_string();
                out.start_result_set(&[col("echo", ColumnType::MYSQL_TYPE_VAR_STRING)]).await?;
                out.row(&[Value::Bytes(text.into_bytes())]).await?;
                out.end_result_set(0)?;
            }
            ["select", "rows", n] => {
                let n: u64 = n.parse().map_err(|_| parse_error(sql))?;
                out.start_result_set(&rows_columns()).await?;
                for i in 0..n {
                    out.row(&rows_row(i)).await?;
                }
                out.end_result_set(0)?;
            }
            ["select", "big", n] => {
                let n: usize = n.parse().map_err(|_| parse_error(sql))?;
                out.start_result_set(&[col("big", ColumnType::MYSQL_TYPE_LONG_BLOB)]).await?;
                out.row(&[Value::Bytes(vec![b'x'; n])]).await?;
                out.end_result_set(0)?;
            }
            ["select", "database()"] => {
                out.start_result_set(&[col("database()", ColumnType::MYSQL_TYPE_VAR_STRING)])
                    .await?;
                let db = self.db.clone().map_or(Value::NULL, |d| Value::Bytes(d.into_bytes()));
                out.row(&[db]).await?;
                out.end_result_set(0)?;
            }
            ["select", "user()"] => {
                out.start_result_set(&[col("user()", ColumnType::MYSQL_TYPE_VAR_STRING)]).await?;
                out.row(&[Value::Bytes(self.user.clone().into_bytes())]).await?;
                out.end_result_set(0)?;
            }
            ["select", "collation"] => {
                out.start_result_set(&[col("collation", ColumnType::MYSQL_TYPE_LONGLONG)]).await?;
                out.row(&[Value::Int(i64::from(self.collation))]).await?;
                out.end_result_set(0)?;
            }
            ["select", "tls"] => {
                out.start_result_set(&[col("tls", ColumnType::MYSQL_TYPE_LONGLONG)]).await?;
                out.row(&[Value::Int(i64::from(self.tls))]).await?;
                out.end_result_set(0)?;
            }
            ["set", "timeouts", read, write, wait] => {
                let ms = |t: &str| -> Result<std::time::Duration> {
                    Ok(std::time::Duration::from_millis(t.parse().map_err(|_| parse_error(sql))?))
                };
                self.timeouts = protocol::Timeouts {
                    net_read: ms(read)?,
                    net_write: ms(write)?,
                    wait: ms(wait)?,
                };
                out.ok(OkResult::default())?;
            }
            ["insert", ..] => out.ok(OkResult {
                affected_rows: 3,
                last_insert_id: 42,
                warnings: 0,
                info: "Records: 3  Duplicates: 0  Warnings: 0".to_string(),
                ..OkResult::default()
            })?,
            ["warn"] => out.ok(OkResult { warnings: 1, ..OkResult::default() })?,
            ["begin"] => {
                out.set_transaction_state(true, true);
                out.ok(OkResult::default())?;
            }
            ["commit"] => {
                out.set_transaction_state(true, false);
                out.ok(OkResult::default())?;
            }
            _ => return Err(parse_error(sql).into()),
        }
        Ok(())
    }
}

impl BackendSession for TestSession {
    fn timeouts(&self) -> protocol::Timeouts {
        self.timeouts
    }

    async fn query(&mut self, sql: &str, out: &mut ResultWriter<'_>) -> Result<()> {
        if out.multi_statements() {
            for statement in sql.split(';').filter(|s| !s.trim().is_empty()) {
                self.one(statement, out).await?;
            }
            Ok(())
        } else {
            self.one(sql, out).await
        }
    }

    async fn prepare(&mut self, stmt_id: u32, sql: &str) -> Result<PreparedStatement> {
        let params = sql.matches('?').count();
        let lower = sql.trim().to_ascii_lowercase();
        if !(lower.starts_with("select") || lower.starts_with("insert")) {
            return Err(parse_error(sql).into());
        }
        let columns = if lower.starts_with("select rows") {
            rows_columns()
        } else if lower.starts_with("select") {
            (0..params).map(|i| col(&format!("p{i}"), ColumnType::MYSQL_TYPE_VAR_STRING)).collect()
        } else {
            Vec::new()
        };
        self.statements.insert(stmt_id, lower);
        Ok(PreparedStatement {
            params: (0..params).map(|_| col("?", ColumnType::MYSQL_TYPE_VAR_STRING)).collect(),
            columns,
        })
    }

    async fn execute(
        &mut self,
        stmt_id: u32,
        params: &[Value],
        out: &mut ResultWriter<'_>,
    ) -> Result<()> {
        let Some(sql) = self.statements.get(&stmt_id).cloned() else {
            return Err(ErrPacket::unknown_statement(stmt_id, "execute").into());
        };
        if sql.starts_with("select rows") {
            let n = match params.first() {
                Some(Value::Int(n)) => *n as u64,
                Some(Value::UInt(n)) => *n,
                _ => 3,
            };
            out.start_result_set(&rows_columns()).await?;
            for i in 0..n {
                out.row(&rows_row(i)).await?;
            }
            return out.end_result_set(0);
        }
        if sql.starts_with("select") {
            let columns: Vec<Column> = params
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    let name = format!("p{i}");
                    match v {
                        Value::Int(_) => col(&name, ColumnType::MYSQL_TYPE_LONGLONG),
                        Value::UInt(_) => col(&name, ColumnType::MYSQL_TYPE_LONGLONG)
                            .with_flags(ColumnFlags::UNSIGNED_FLAG),
                        Value::Float(_) => col(&name, ColumnType::MYSQL_TYPE_FLOAT),
                        Value::Double(_) => col(&name, ColumnType::MYSQL_TYPE_DOUBLE),
                        Value::Date(..) => col(&name, ColumnType::MYSQL_TYPE_DATETIME),
                        Value::Time(..) => col(&name, ColumnType::MYSQL_TYPE_TIME),
                        Value::NULL | Value::Bytes(_) => {
                            col(&name, ColumnType::MYSQL_TYPE_VAR_STRING)
                        }
                    }
                })
                .collect();
            out.start_result_set(&columns).await?;
            out.row(params).await?;
            return out.end_result_set(0);
        }
        out.ok(OkResult {
            affected_rows: params.len() as u64,
            last_insert_id: 7,
            ..OkResult::default()
        })
    }

    fn close_statement(&mut self, stmt_id: u32) {
        self.statements.remove(&stmt_id);
    }

    async fn init_db(&mut self, db: &str) -> Result<()> {
        if db == "nosuchdb" {
            return Err(ErrPacket::bad_db(db).into());
        }
        self.db = Some(db.to_string());
        Ok(())
    }

    async fn reset(&mut self) -> Result<()> {
        self.db = None;
        self.statements.clear();
        Ok(())
    }

    async fn replication(
        &mut self,
        command: ReplicationCommand,
        _packet: &[u8],
        out: &mut PacketWriter<'_>,
    ) -> Result<()> {
        match command {
            ReplicationCommand::RegisterSlave => {
                out.write_packet(&[0x00, 0, 0, 2, 0, 0, 0]);
                out.flush().await
            }
            ReplicationCommand::BinlogDump | ReplicationCommand::BinlogDumpGtid => {
                for i in 0..3u8 {
                    // Format: 0x00 | fake event bytes
                    out.write_packet(&[0x00, b'e', b'v', i]);
                    out.flush().await?;
                }
                // Format: 0xFE | warnings u16 | status u16 (end of the stream)
                out.write_packet(&[0xFE, 0, 0, 2, 0]);
                out.flush().await
            }
        }
    }
}

/// A running server on 127.0.0.1 with an ephemeral port.
pub struct TestServer {
    pub addr: SocketAddr,
    pub stats: Arc<Stats>,
    task: tokio::task::JoinHandle<()>,
}

impl TestServer {
    pub fn port(&self) -> u16 {
        self.addr.port()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Starts a server with `config` on the current tokio runtime.
pub async fn start(config: ServerConfig) -> TestServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind loopback");
    let addr = listener.local_addr().expect("local addr");
    let server = Listener::new(config, TestBackend::new());
    let stats = server.stats().clone();
    let task = tokio::spawn(async move { server.serve(listener).await });
    TestServer { addr, stats, task }
}

/// Default config with this binary's keys.
pub fn config_with_keys(name: &str) -> ServerConfig {
    ServerConfig { keys: Some(keys(name)), ..ServerConfig::default() }
}
