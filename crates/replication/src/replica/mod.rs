//! binlogd as a replica: CHANGE REPLICATION SOURCE, START/STOP/RESET REPLICA, SHOW REPLICA
//! STATUS (and the old MASTER/SLAVE spellings), a receiver that copies the source's binlog
//! into a relay log by GTID auto-position, and a parallel applier that applies it with the
//! source's GTIDs. The design and the crash-safety argument are in `docs/replication.md`
//! ("Replica").
//!
//! - `statements.rs`: the hand parser for the statements (sqlparser has no grammar for them);
//! - `settings.rs`: the connection settings, persisted in the data directory;
//! - `receiver.rs`: the I/O thread (mysql_async binlog stream → relay log);
//! - `applier.rs`: the SQL thread, its workers (logical clock) and committer;
//! - `apply.rs`: one transaction's rows applied to the engine.
//!
//! Threads: START REPLICA discards the relay log (`<datadir>/relay`) and starts both threads;
//! the receiver asks the source for everything not in `gtid_executed`, so nothing the relay
//! log held is lost (it is fetched again). STOP REPLICA stops the receiver, lets the applier
//! commit what it dispatched, and joins both. A server with saved settings starts them at
//! boot, as mysqld does without `--skip-replica-start`.

pub mod applier;
pub mod apply;
pub mod receiver;
pub mod settings;
pub mod statements;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;

use binlog::files::{BinlogWriter, Options as FileOptions};
use binlog::gtid::{Gtid, GtidSet};
use commit::Coordinator;
use engine::{Engine, Value};
use parking_lot::Mutex;

use settings::Settings;
use sql::vars::Var;
use sql::{self, Output, ResultColumn, SqlError};
use statements::{ChangeOption, ReplicaStmt};

/// The relay log's directory inside the data directory.
pub const RELAY_DIR: &str = "relay";
/// The relay log files' basename (`relay-bin.000001`, …).
pub const RELAY_BASENAME: &str = "relay-bin";
/// Relay log files rotate at this size; the applied ones are purged.
const RELAY_MAX_SIZE: u64 = 256 << 20;

/// Replica_IO_Running.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IoState {
    #[default]
    No,
    Connecting,
    Yes,
}

/// What SHOW REPLICA STATUS shows, updated by the threads.
#[derive(Debug, Default)]
pub struct Status {
    pub io: IoState,
    pub sql_running: bool,
    pub source_log_file: String,
    pub read_source_log_pos: u64,
    pub relay_log_file: String,
    pub relay_log_pos: u64,
    pub exec_source_log_file: String,
    pub exec_source_log_pos: u64,
    pub source_server_id: u32,
    pub source_uuid: String,
    pub last_io_errno: u16,
    pub last_io_error: String,
    pub last_io_error_ts: String,
    pub last_sql_errno: u16,
    pub last_sql_error: String,
    pub last_sql_error_ts: String,
    /// The GTIDs of the whole transactions received since START REPLICA.
    pub retrieved: GtidSet,
    /// Source coordinates of received, not yet applied transactions (Exec_Source_Log_Pos).
    pub source_positions: HashMap<Gtid, (String, u64)>,
    /// The source's commit time of the last applied transaction, µs since the epoch.
    pub last_applied_ts_us: u64,
    /// The applier has applied everything in the relay log.
    pub caught_up: bool,
}

/// State shared by the statements and the two threads.
pub struct Shared {
    pub status: Mutex<Status>,
    pub stop_io: AtomicBool,
    pub stop_sql: AtomicBool,
}

/// MySQL's error timestamp format (`%y%m%d %H:%M:%S`, Last_IO_Error_Timestamp).
fn error_timestamp() -> String {
    let (secs, _) = sql::eval::unix_now();
    let t = sql::eval::datetime_of(secs);
    format!(
        "{:02}{:02}{:02} {:02}:{:02}:{:02}",
        t.year % 100,
        t.month,
        t.day,
        t.hour,
        t.minute,
        t.second
    )
}

impl Shared {
    pub fn set_io_state(&self, state: IoState) {
        self.status.lock().io = state;
    }

    pub fn connected(&self) {
        let mut st = self.status.lock();
        st.io = IoState::Yes;
        st.last_io_errno = 0;
        st.last_io_error.clear();
        st.last_io_error_ts.clear();
    }

    pub fn io_error(&self, code: u16, message: &str) {
        let mut st = self.status.lock();
        st.last_io_errno = code;
        st.last_io_error = message.to_string();
        st.last_io_error_ts = error_timestamp();
    }

    pub fn sql_error(&self, code: u16, message: &str) {
        log::error!("replica applier stopped: error {code}: {message}");
        let mut st = self.status.lock();
        st.last_sql_errno = code;
        st.last_sql_error = format!("Worker failed executing transaction: {message}");
        st.last_sql_error_ts = error_timestamp();
    }
}

/// What the replica runs on.
pub struct ReplicaConfig {
    pub datadir: PathBuf,
    pub server_id: u32,
    pub server_uuid: String,
}

struct Threads {
    io: Option<JoinHandle<()>>,
    sql: Option<JoinHandle<()>>,
}

/// The replica: statements, settings and threads.
pub struct Replica {
    config: ReplicaConfig,
    coordinator: Arc<Coordinator<Engine>>,
    sql: OnceLock<Arc<sql::Server>>,
    shared: Arc<Shared>,
    settings: Mutex<Settings>,
    threads: Mutex<Threads>,
}

fn must_stop() -> SqlError {
    // ER_REPLICA_CHANNEL_MUST_STOP's predecessor ER_SLAVE_MUST_STOP (1198), 8.0.22+ wording.
    SqlError::Other {
        code: 1198,
        sqlstate: "HY000",
        message: "This operation cannot be performed with a running replica; run STOP REPLICA \
                  first"
            .into(),
    }
}

fn io_failure(what: &str, e: &dyn std::fmt::Display) -> SqlError {
    SqlError::Other { code: 1105, sqlstate: "HY000", message: format!("{what}: {e}") }
}

impl Replica {
    /// The replica of a server whose commit pipeline is `coordinator`; loads saved settings.
    pub fn new(
        config: ReplicaConfig,
        coordinator: Arc<Coordinator<Engine>>,
    ) -> std::io::Result<Arc<Replica>> {
        let saved = settings::load(&config.datadir)?.unwrap_or_default();
        Ok(Arc::new(Replica {
            config,
            coordinator,
            sql: OnceLock::new(),
            shared: Arc::new(Shared {
                status: Mutex::new(Status::default()),
                stop_io: AtomicBool::new(false),
                stop_sql: AtomicBool::new(false),
            }),
            settings: Mutex::new(saved),
            threads: Mutex::new(Threads { io: None, sql: None }),
        }))
    }

    /// Attaches the SQL layer (the applier runs DDL through it) and answers the replica
    /// statements for it.
    pub fn attach(self: &Arc<Self>, server: &Arc<sql::Server>) {
        let _ = self.sql.set(server.clone());
        server.set_statement_hook(self.clone());
    }

    /// At boot: starts replicating if CHANGE REPLICATION SOURCE was run before.
    pub fn start_at_boot(&self) {
        if self.settings.lock().configured() {
            if let Err(e) = self.start() {
                log::error!("replica: START REPLICA at boot failed: {e}");
            } else {
                log::info!("replica: started at boot with the saved source settings");
            }
        }
    }

    /// Stops both threads (server shutdown).
    pub fn shutdown(&self) {
        self.stop();
    }

    fn running(&self) -> bool {
        let st = self.shared.status.lock();
        st.io != IoState::No || st.sql_running
    }

    /// Runs a parsed replica statement.
    pub fn execute(&self, stmt: ReplicaStmt) -> Result<Output, SqlError> {
        match stmt {
            ReplicaStmt::Change(options) => {
                if self.running() {
                    return Err(must_stop());
                }
                let mut s = self.settings.lock();
                let mut next = s.clone();
                for o in options {
                    match o {
                        ChangeOption::Host(h) => next.host = h,
                        ChangeOption::Port(p) => next.port = p,
                        ChangeOption::User(u) => next.user = u,
                        ChangeOption::Password(p) => next.password = p,
                        ChangeOption::AutoPosition(a) => next.auto_position = a,
                        ChangeOption::HeartbeatPeriod(h) => next.heartbeat_period_s = h,
                        ChangeOption::ConnectRetry(c) => next.connect_retry_s = c,
                        ChangeOption::RetryCount(c) => next.retry_count = c,
                    }
                }
                if !next.auto_position {
                    return Err(SqlError::NotSupported(
                        "SOURCE_AUTO_POSITION = 0: binlogd replicates by GTID auto-position only"
                            .into(),
                    ));
                }
                settings::store(&self.config.datadir, &next)
                    .map_err(|e| io_failure("cannot save the replica settings", &e))?;
                *s = next;
                Ok(Output::Ok {
                    affected_rows: 0,
                    last_insert_id: 0,
                    info: String::new(),
                    warnings: 0,
                })
            }
            ReplicaStmt::Start => {
                self.start()?;
                Ok(ok())
            }
            ReplicaStmt::Stop => {
                self.stop();
                Ok(ok())
            }
            ReplicaStmt::Reset { all } => {
                if self.running() {
                    return Err(must_stop());
                }
                self.join();
                remove_relay(&self.config.datadir)
                    .map_err(|e| io_failure("cannot remove the relay log", &e))?;
                {
                    let mut st = self.shared.status.lock();
                    *st = Status::default();
                }
                if all {
                    settings::remove(&self.config.datadir)
                        .map_err(|e| io_failure("cannot remove the replica settings", &e))?;
                    *self.settings.lock() = Settings::default();
                }
                Ok(ok())
            }
            ReplicaStmt::ShowStatus { old_names } => Ok(self.show_status(old_names)),
        }
    }

    /// START REPLICA: a fresh relay log, then the receiver and the applier.
    fn start(&self) -> Result<(), SqlError> {
        let settings = self.settings.lock().clone();
        if !settings.configured() {
            // ER_BAD_REPLICA (1200), 8.0.22+ wording.
            return Err(SqlError::Other {
                code: 1200,
                sqlstate: "HY000",
                message: "The server is not configured as replica; fix in config file or with \
                          CHANGE REPLICATION SOURCE TO"
                    .into(),
            });
        }
        if self.running() {
            // MySQL answers OK with warning 3083 ("already running").
            return Ok(());
        }
        let Some(server) = self.sql.get().cloned() else {
            return Err(io_failure("replica", &"the SQL layer is not attached"));
        };
        self.join();
        let datadir = &self.config.datadir;
        remove_relay(datadir).map_err(|e| io_failure("cannot remove the relay log", &e))?;
        let mut options = FileOptions::new(datadir.join(RELAY_DIR));
        options.basename = RELAY_BASENAME.to_string();
        options.server_id = self.config.server_id;
        options.max_binlog_size = RELAY_MAX_SIZE;
        options.checksum = true;
        let relay = BinlogWriter::open(vfs::RealVfs::shared(), options)
            .map_err(|e| io_failure("cannot create the relay log", &e))?;
        let files = relay.files();

        let workers = match server.global(Var::ReplicaParallelWorkers) {
            Value::UInt(n) => n as usize,
            Value::Int(n) => n.max(0) as usize,
            _ => 4,
        };
        let preserve = !matches!(
            server.global(Var::ReplicaPreserveCommitOrder),
            Value::Int(0) | Value::UInt(0)
        );
        {
            let mut st = self.shared.status.lock();
            let keep_source = (st.source_server_id, st.source_uuid.clone());
            *st = Status::default();
            (st.source_server_id, st.source_uuid) = keep_source;
            st.io = IoState::Connecting;
            st.sql_running = true;
        }
        self.shared.stop_io.store(false, Ordering::Release);
        self.shared.stop_sql.store(false, Ordering::Release);
        let receiver = receiver::Receiver {
            shared: self.shared.clone(),
            settings,
            coordinator: self.coordinator.clone(),
            relay,
            server_id: self.config.server_id,
            server_uuid: self.config.server_uuid.clone(),
        };
        let applier = applier::Applier {
            shared: self.shared.clone(),
            coordinator: self.coordinator.clone(),
            sql: server,
            relay: files,
            workers,
            preserve_commit_order: preserve,
            server_id: self.config.server_id,
        };
        let mut threads = self.threads.lock();
        let io = std::thread::Builder::new()
            .name("replica-receiver".into())
            .spawn(move || receiver.run())
            .map_err(|e| io_failure("cannot start the receiver", &e))?;
        threads.io = Some(io);
        match std::thread::Builder::new()
            .name("replica-applier".into())
            .spawn(move || applier.run())
        {
            Ok(t) => threads.sql = Some(t),
            Err(e) => {
                self.shared.status.lock().sql_running = false;
                return Err(io_failure("cannot start the applier", &e));
            }
        }
        log::info!(
            "replica started: replica_parallel_workers={workers}, \
             replica_preserve_commit_order={}",
            if preserve { "ON" } else { "OFF" }
        );
        Ok(())
    }

    /// STOP REPLICA: both threads, waiting for them.
    fn stop(&self) {
        self.shared.stop_io.store(true, Ordering::Release);
        self.shared.stop_sql.store(true, Ordering::Release);
        self.join();
    }

    fn join(&self) {
        let mut threads = self.threads.lock();
        if let Some(t) = threads.io.take() {
            let _ = t.join();
        }
        if let Some(t) = threads.sql.take() {
            let _ = t.join();
        }
    }

    fn show_status(&self, old_names: bool) -> Output {
        let columns: Vec<ResultColumn> = STATUS_COLUMNS
            .iter()
            .map(|(name, numeric)| {
                let name = if old_names { old_name(name) } else { (*name).to_string() };
                if *numeric {
                    ResultColumn::bigint(&name, true)
                } else {
                    ResultColumn::text(&name, 256)
                }
            })
            .collect();
        let s = self.settings.lock().clone();
        if !s.configured() {
            return Output::Rows { columns, rows: Vec::new() };
        }
        let st = self.shared.status.lock();
        let text = |t: &str| Value::Bytes(t.as_bytes().to_vec());
        let num = Value::UInt;
        let yes_no = |b: bool| text(if b { "Yes" } else { "No" });
        let io_running = match st.io {
            IoState::No => "No",
            IoState::Connecting => "Connecting",
            IoState::Yes => "Yes",
        };
        let io_state = match st.io {
            IoState::No => "",
            IoState::Connecting => "Connecting to source",
            IoState::Yes => "Waiting for source to send event",
        };
        let sql_state = match (st.sql_running, st.caught_up) {
            (false, _) => "",
            (true, true) => "Replica has read all relay log; waiting for more updates",
            (true, false) => "Waiting for dependent transaction to commit",
        };
        // MySQL: NULL when the SQL thread is not running (or the I/O thread is not connected),
        // 0 when the applier is idle and caught up, else now minus the source's commit time
        // of the transaction last applied.
        let behind = if !st.sql_running || st.io != IoState::Yes {
            Value::Null
        } else if st.caught_up || st.last_applied_ts_us == 0 {
            num(0)
        } else {
            let (now, _) = sql::eval::unix_now();
            let now_us = u64::try_from(now).unwrap_or(0) * 1_000_000;
            num(now_us.saturating_sub(st.last_applied_ts_us) / 1_000_000)
        };
        let executed = self.coordinator.gtid_executed().to_string();
        let row: Vec<Value> = vec![
            text(io_state),
            text(&s.host),
            text(&s.user),
            num(u64::from(s.port)),
            num(u64::from(s.connect_retry_s)),
            text(&st.source_log_file),
            num(st.read_source_log_pos),
            text(&st.relay_log_file),
            num(st.relay_log_pos),
            text(&st.exec_source_log_file),
            text(io_running),
            yes_no(st.sql_running),
            text(""),
            text(""),
            text(""),
            text(""),
            text(""),
            text(""),
            num(u64::from(st.last_sql_errno)),
            text(&st.last_sql_error),
            num(0),
            num(st.exec_source_log_pos),
            num(relay_space(&self.config.datadir)),
            text("None"),
            text(""),
            num(0),
            text("No"),
            text(""),
            text(""),
            text(""),
            text(""),
            text(""),
            behind,
            text("No"),
            num(u64::from(st.last_io_errno)),
            text(&st.last_io_error),
            num(u64::from(st.last_sql_errno)),
            text(&st.last_sql_error),
            text(""),
            num(u64::from(st.source_server_id)),
            text(&st.source_uuid),
            text("mysql.slave_master_info"),
            num(0),
            Value::Null,
            text(sql_state),
            num(s.retry_count),
            text(""),
            text(&st.last_io_error_ts),
            text(&st.last_sql_error_ts),
            text(""),
            text(""),
            text(&st.retrieved.to_string()),
            text(&executed),
            num(u64::from(s.auto_position)),
            text(""),
            text(""),
            text(""),
            text(""),
            num(0),
            text(""),
        ];
        debug_assert_eq!(row.len(), columns.len());
        Output::Rows { columns, rows: vec![row] }
    }
}

fn ok() -> Output {
    Output::Ok { affected_rows: 0, last_insert_id: 0, info: String::new(), warnings: 0 }
}

/// The relay log's size on disk (Relay_Log_Space).
fn relay_space(datadir: &std::path::Path) -> u64 {
    std::fs::read_dir(datadir.join(RELAY_DIR))
        .map(|d| d.flatten().filter_map(|e| e.metadata().ok()).map(|m| m.len()).sum())
        .unwrap_or(0)
}

fn remove_relay(datadir: &std::path::Path) -> std::io::Result<()> {
    match std::fs::remove_dir_all(datadir.join(RELAY_DIR)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// SHOW REPLICA STATUS's columns in MySQL 8.0.22+'s order (`show_replica_status`'s field
/// list in `rpl_replica.cc`); `true` for the numeric ones.
const STATUS_COLUMNS: &[(&str, bool)] = &[
    ("Replica_IO_State", false),
    ("Source_Host", false),
    ("Source_User", false),
    ("Source_Port", true),
    ("Connect_Retry", true),
    ("Source_Log_File", false),
    ("Read_Source_Log_Pos", true),
    ("Relay_Log_File", false),
    ("Relay_Log_Pos", true),
    ("Relay_Source_Log_File", false),
    ("Replica_IO_Running", false),
    ("Replica_SQL_Running", false),
    ("Replicate_Do_DB", false),
    ("Replicate_Ignore_DB", false),
    ("Replicate_Do_Table", false),
    ("Replicate_Ignore_Table", false),
    ("Replicate_Wild_Do_Table", false),
    ("Replicate_Wild_Ignore_Table", false),
    ("Last_Errno", true),
    ("Last_Error", false),
    ("Skip_Counter", true),
    ("Exec_Source_Log_Pos", true),
    ("Relay_Log_Space", true),
    ("Until_Condition", false),
    ("Until_Log_File", false),
    ("Until_Log_Pos", true),
    ("Source_SSL_Allowed", false),
    ("Source_SSL_CA_File", false),
    ("Source_SSL_CA_Path", false),
    ("Source_SSL_Cert", false),
    ("Source_SSL_Cipher", false),
    ("Source_SSL_Key", false),
    ("Seconds_Behind_Source", true),
    ("Source_SSL_Verify_Server_Cert", false),
    ("Last_IO_Errno", true),
    ("Last_IO_Error", false),
    ("Last_SQL_Errno", true),
    ("Last_SQL_Error", false),
    ("Replicate_Ignore_Server_Ids", false),
    ("Source_Server_Id", true),
    ("Source_UUID", false),
    ("Source_Info_File", false),
    ("SQL_Delay", true),
    ("SQL_Remaining_Delay", true),
    ("Replica_SQL_Running_State", false),
    ("Source_Retry_Count", true),
    ("Source_Bind", false),
    ("Last_IO_Error_Timestamp", false),
    ("Last_SQL_Error_Timestamp", false),
    ("Source_SSL_Crl", false),
    ("Source_SSL_Crlpath", false),
    ("Retrieved_Gtid_Set", false),
    ("Executed_Gtid_Set", false),
    ("Auto_Position", true),
    ("Replicate_Rewrite_DB", false),
    ("Channel_Name", false),
    ("Source_TLS_Version", false),
    ("Source_public_key_path", false),
    ("Get_Source_public_key", true),
    ("Network_Namespace", false),
];

/// SHOW SLAVE STATUS's name of a column (the pre-8.0.22 names MySQL still uses there).
fn old_name(name: &str) -> String {
    match name {
        "Source_public_key_path" => "Master_public_key_path".into(),
        "Get_Source_public_key" => "Get_master_public_key".into(),
        _ => name.replace("Replica", "Slave").replace("Source", "Master"),
    }
}

impl sql::StatementHook for Replica {
    fn try_execute(
        &self,
        sql: &str,
        allowed: &dyn Fn(sql::HookPrivilege) -> Result<(), SqlError>,
    ) -> Option<Result<Output, SqlError>> {
        let parsed = statements::parse(sql)?;
        Some(parsed.and_then(|stmt| {
            allowed(stmt.privilege())?;
            self.execute(stmt)
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn old_column_names() {
        assert_eq!(old_name("Replica_IO_Running"), "Slave_IO_Running");
        assert_eq!(old_name("Seconds_Behind_Source"), "Seconds_Behind_Master");
        assert_eq!(old_name("Exec_Source_Log_Pos"), "Exec_Master_Log_Pos");
        assert_eq!(old_name("Relay_Source_Log_File"), "Relay_Master_Log_File");
        assert_eq!(old_name("Get_Source_public_key"), "Get_master_public_key");
        assert_eq!(STATUS_COLUMNS.len(), 60);
    }
}
