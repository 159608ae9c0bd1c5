//! `binlogd serve`: configuration, data directory, accounts, engine and SQL layer behind the
//! protocol server, until SIGINT or SIGTERM.
//!
//! Startup order, and why:
//! 1. options ([`Config`]) and the error log, so every later failure is reported where the
//!    operator looks;
//! 2. the data directory ([`DataDir`]): its lock comes before anything writes inside it;
//! 3. keys and accounts (first start: root's password is logged and written to the datadir);
//! 4. with the binary log on (the default), the commit pipeline ([`Coordinator::open`]): engine
//!    and binlog in `<datadir>/engine` and `<datadir>/binlog`, XA crash recovery; with
//!    `--skip-log-bin`, the engine alone, whose prepared transactions are rolled back (no
//!    binlog can hold them);
//! 5. the SQL layer and the listener; "ready for connections" is logged with the real port
//!    (`--port=0` picks a free one).
//!
//! Shutdown stops accepting, ends the connections, then [`Coordinator::shutdown`] waits for
//! groups in flight, makes the engine durable and closes the binlog cleanly (or
//! [`Engine::shutdown`] without a binlog); the data directory lock is released last.
//!
//! SQL sessions are synchronous. DML, SELECT and transaction control run on the tokio worker
//! with lock waits refused, and hand their commit to the pipeline without waiting; a session
//! that becomes a FLUSH leader leaves the group's writes and fsyncs to the pipeline's own
//! threads (`PendingCommit::hand_off`) and awaits its outcome like a follower; what else may
//! block (a lock wait inside a transaction, DDL) runs under [`tokio::task::block_in_place`]:
//! the runtime moves its other connections to another thread while one waits.

use std::collections::HashMap;
use std::ffi::OsString;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use binlog::gtid::Sid;
use commit::{CommitConfig, Coordinator, OpenOptions};
use engine::{Engine, EngineConfig};

use crate::binlogging::{Binlogging, CommitVariables, ServerStatus};
use crate::config::{BinlogChecksum, Config, ConfigError, LiveVariables};
use crate::datadir::{DataDir, DataDirError, BINLOG_DIR};
use crate::logging::{LogError, Logger};
use accounts::{UserError, Users};
use protocol::{
    self, Backend, BackendSession, Column, ColumnFlags, ColumnType, ConnectionInfo, Listener,
    OkResult, PacketWriter, PreparedStatement, ReplicationCommand, ResultWriter, ServerConfig,
    UserAuth, Value,
};
use replication::{self, Peer, Replicas, Source};
use sql::vars::Var;
use sql::{self, Hooks, Output};

/// The engine's directory inside the data directory (the commit pipeline uses the same).
pub const ENGINE_DIR: &str = "engine";

/// Why the server could not start or stop cleanly.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// Bad options.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The error log could not be opened.
    #[error(transparent)]
    Log(#[from] LogError),
    /// The data directory could not be opened.
    #[error(transparent)]
    DataDir(#[from] DataDirError),
    /// The accounts could not be loaded or made.
    #[error(transparent)]
    Users(#[from] UserError),
    /// The engine failed to open, recover or shut down.
    #[error("engine")]
    Engine(#[from] engine::Error),
    /// The commit pipeline failed to open, recover or shut down.
    #[error("commit pipeline")]
    Commit(#[from] commit::Error),
    /// The SQL layer refused the start-up variables.
    #[error("SQL layer")]
    Sql(#[from] sql::SqlError),
    /// The listener could not be bound.
    #[error("cannot listen on {address}")]
    Bind {
        /// `bind_address:port`.
        address: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The async runtime or the signal handlers could not be set up.
    #[error("runtime")]
    Runtime(#[source] std::io::Error),
}

/// Runs the server with `serve`'s arguments until SIGINT or SIGTERM.
pub fn run(args: Vec<OsString>) -> Result<(), ServeError> {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        print!("{}", crate::config::help_text());
        return Ok(());
    }
    let (config, warnings) = Config::from_args(args)?;
    Logger::to_file_or_stderr(config.log_error.as_deref(), config.log_error_verbosity)?
        .install()?;
    for warning in warnings {
        log::warn!("{warning}");
    }
    log::info!("binlogd {} starting as process {}", env!("CARGO_PKG_VERSION"), std::process::id());
    let result = run_configured(&config);
    match &result {
        Ok(()) => log::info!("shutdown complete"),
        // On stderr the caller prints the error; only a log file needs it too.
        Err(e) if config.log_error.is_some() => log::error!("{}", error_chain(e)),
        Err(_) => {}
    }
    result
}

fn run_configured(config: &Config) -> Result<(), ServeError> {
    let datadir = DataDir::open(&config.datadir)?;
    log::info!(
        "data directory {} (server_uuid {}{})",
        datadir.path().display(),
        datadir.server_uuid(),
        if datadir.first_start() { ", first start" } else { "" }
    );
    datadir.check_lower_case_table_names(config.lower_case_table_names)?;
    let keys = Arc::new(datadir.load_keys()?);
    let (users, _) = Users::open(datadir.path(), config.initialize_insecure)?;
    let users = Arc::new(users);

    let engine_config = EngineConfig {
        lock_wait_timeout: Duration::from_secs(config.innodb_lock_wait_timeout),
        redo_flush_method: config.innodb_flush_method,
        recovery_accept_loss: config.recovery_accept_loss,
        ..EngineConfig::default()
    };
    let storage = if config.log_bin.is_some() {
        open_binlogged(config, &datadir, engine_config, &users)?
    } else {
        open_engine_only(&datadir, engine_config)?
    };
    // An account change whose commit was cut by a crash: the engine's marker decides.
    users.recover(|table| storage.engine.table_id(table).is_some())?;
    let processes = Arc::new(protocol::processlist::ProcessList::default());
    let server_config = ServerConfig {
        processes,
        max_connections: config.max_connections as usize,
        max_allowed_packet: config.max_allowed_packet as usize,
        connect_timeout: Duration::from_secs(config.connect_timeout),
        keys: Some(keys.clone()),
        ..ServerConfig::default()
    };
    // SET GLOBAL max_connections / max_allowed_packet reach the listener's live limits.
    let limits = Arc::new(protocol::Limits::new(&server_config));
    let mut hooks = storage.hooks.clone();
    hooks.listener =
        Some(Arc::new(LiveVariables { next: hooks.listener.take(), limits: limits.clone() }));
    let sql = sql::Server::open(storage.engine.clone(), hooks, &sql_overrides(config, &datadir))?;
    sql.attach_processes(server_config.processes.clone());
    if let Some(replica) = &storage.replica {
        replica.attach(&sql);
        replica.start_at_boot();
    }

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(ServeError::Runtime)?;
    sql.attach_accounts(users.clone());
    let shutdown = Arc::new(tokio::sync::Notify::new());
    let notify = shutdown.clone();
    sql.on_shutdown(Box::new(move || notify.notify_one()));
    let source = storage.source.clone();
    let backend = SqlBackend { sql, users, source: storage.source.clone() };
    let served = runtime.block_on(async {
        let address = format!("{}:{}", config.bind_address, config.port);
        let listener = bind_listener(&address, config.max_connections.into())
            .await
            .map_err(|source| ServeError::Bind { address: address.clone(), source })?;
        let local = listener.local_addr().map_err(ServeError::Runtime)?;
        let unix = match config.socket_path() {
            // sockaddr_un's sun_path holds 108 bytes with the NUL. A data directory deep
            // enough to push the default socket past that should still start (over TCP); a
            // socket path given absolutely is refused below, as mysqld refuses it.
            Some(path)
                if path.as_os_str().len() >= SUN_PATH_MAX
                    && std::path::Path::new(&config.socket).is_relative() =>
            {
                log::warn!(
                    "the socket path {} is too long (the limit is {} bytes): no Unix socket",
                    path.display(),
                    SUN_PATH_MAX - 1
                );
                None
            }
            Some(path) => match bind_unix(&path) {
                Ok(l) => Some((l, path)),
                Err(source) => {
                    return Err(ServeError::Bind { address: path.display().to_string(), source })
                }
            },
            None => None,
        };
        if config.admin_port != 0 {
            let address = format!("127.0.0.1:{}", config.admin_port);
            let admin = tokio::net::TcpListener::bind(&address)
                .await
                .map_err(|source| ServeError::Bind { address: address.clone(), source })?;
            log::info!("metrics endpoint: http://{address}/metrics");
            tokio::spawn(crate::metrics::serve(admin, backend.sql.clone()));
        }
        let server = Listener::with_limits(server_config, backend, limits);
        storage.status.attach_protocol(server.stats().clone());
        storage.status.attach_tls(keys.clone());
        let mut terminate =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
                .map_err(ServeError::Runtime)?;
        log::info!(
            "ready for connections. Bind-address: '{}' port: {} socket: '{}'",
            local.ip(),
            local.port(),
            unix.as_ref().map(|(_, p)| p.display().to_string()).unwrap_or_default()
        );
        let (unix, socket_file) = match unix {
            Some((l, p)) => (Some(l), Some(SocketFile(p))),
            None => (None, None),
        };
        tokio::select! {
            () = server.serve_all(listener, unix) => {}
            _ = tokio::signal::ctrl_c() => log::info!("received SIGINT, shutting down"),
            _ = terminate.recv() => log::info!("received SIGTERM, shutting down"),
            () = shutdown.notified() => {
                log::info!("SHUTDOWN statement, shutting down");
                // mysqld answers the client that asked before it stops (`my_eof(thd)` /
                // `my_ok(thd)`, then `kill_mysql()`, sql/sql_parse.cc). Here that answer is
                // written by the asking connection's task right after the statement returns;
                // the runtime's shutdown below would drop the task first (mariadb-admin saw
                // "unexpected eof" under load). New connections are no longer accepted.
                tokio::time::sleep(SHUTDOWN_ANSWER_GRACE).await;
            }
        }
        if let Some(source) = &source {
            source.shutdown();
        }
        drop(socket_file);
        Ok::<(), ServeError>(())
    });
    // Connections still open are dropped with the runtime; their open transactions were never
    // committed and are gone after restart, as after mysqld's shutdown.
    runtime.shutdown_timeout(Duration::from_secs(10));
    if let Some(replica) = &storage.replica {
        replica.shutdown();
    }
    match &storage.coordinator {
        // Waits for groups in flight, makes the engine durable, then closes the binlog cleanly.
        Some(coordinator) => coordinator.shutdown()?,
        None => storage.engine.shutdown()?,
    }
    served
}

/// The engine, and the commit pipeline when the binary log is on.
struct Storage {
    engine: Engine,
    coordinator: Option<Arc<Coordinator<Engine>>>,
    hooks: Hooks,
    /// The SHOW GLOBAL STATUS provider in `hooks`, to attach the protocol counters to.
    status: Arc<ServerStatus>,
    /// The replication source (dump threads), with the binary log on.
    source: Option<Arc<Source>>,
    /// The replica (needs the commit pipeline: it applies with explicit GTIDs).
    replica: Option<Arc<replication::replica::Replica>>,
}

/// Binary log on: the commit pipeline opens the engine and the binlog and runs XA recovery.
fn open_binlogged(
    config: &Config,
    datadir: &DataDir,
    engine_config: EngineConfig,
    users: &Arc<Users>,
) -> Result<Storage, ServeError> {
    let commit_config = Arc::new(CommitConfig::default());
    commit_config.set_sync_binlog(config.sync_binlog);
    commit_config.set_binlog_order_commits(config.binlog_order_commits);
    commit_config.set_binlog_max_flush_queue_time_us(config.binlog_max_flush_queue_time);
    commit_config.set_binlog_group_commit_sync_delay_us(config.binlog_group_commit_sync_delay);
    commit_config.set_binlog_group_commit_sync_no_delay_count(
        config.binlog_group_commit_sync_no_delay_count,
    );
    commit_config.set_innodb_flush_log_at_trx_commit(config.innodb_flush_log_at_trx_commit);
    commit_config.set_binlog_in_redo(config.binlog_in_redo);
    commit_config.set_binlog_group_commit(config.binlog_group_commit);
    commit_config
        .set_binlog_transaction_dependency_tracking(config.binlog_transaction_dependency_tracking);
    commit_config.set_binlog_transaction_dependency_history_size(
        config.binlog_transaction_dependency_history_size,
    );
    let mut options = OpenOptions::new(Sid(*datadir.server_uuid().as_bytes()));
    options.server_id = config.server_id;
    options.max_binlog_size = config.max_binlog_size;
    options.binlog_preallocate = config.binlog_preallocate;
    options.binlog_checksum = config.binlog_checksum == BinlogChecksum::Crc32;
    options.basename = config.log_bin.clone().unwrap_or_else(|| options.basename.clone());
    options.engine = engine_config;
    options.recovery_accept_loss = config.recovery_accept_loss;
    let (coordinator, recovery) =
        Coordinator::open(data_vfs(config), datadir.path(), options, commit_config)?;
    for lost in &recovery.lost {
        log::warn!("recovery_mode=POINT_IN_TIME accepted a loss: {lost}");
    }
    log::info!(
        "recovery: {} transactions refilled from the redo, {} prepared committed, {} rolled back{}",
        recovery.refilled,
        recovery.committed_xids.len(),
        recovery.rolled_back_xids.len(),
        if recovery.binlog.is_some() {
            " (the last binlog file was not closed cleanly)"
        } else {
            ""
        }
    );
    let coordinator = Arc::new(coordinator);
    let engine = coordinator.engine().clone();
    let replicas = Arc::new(Replicas::default());
    let source = Arc::new(Source::new(
        coordinator.clone(),
        users.clone(),
        replicas.clone(),
        datadir.path().join(BINLOG_DIR),
        config.server_id,
        Sid(*datadir.server_uuid().as_bytes()),
    ));
    let binlogging = Arc::new(
        Binlogging::new(
            coordinator.clone(),
            datadir.path().join(BINLOG_DIR),
            config.binlog_row_metadata,
        )
        .with_replicas(replicas),
    );
    let status = Arc::new(ServerStatus::new(Some(coordinator.clone())));
    let hooks = Hooks {
        committer: binlogging.clone(),
        admin: binlogging,
        status: status.clone(),
        listener: Some(Arc::new(CommitVariables(coordinator.config().clone()))),
    };
    let replica = replication::replica::Replica::new(
        replication::replica::ReplicaConfig {
            datadir: datadir.path().to_path_buf(),
            server_id: config.server_id,
            server_uuid: datadir.server_uuid().to_string(),
        },
        coordinator.clone(),
    )
    .map_err(ServeError::Runtime)?;
    Ok(Storage {
        engine,
        coordinator: Some(coordinator),
        hooks,
        status,
        source: Some(source),
        replica: Some(replica),
    })
}

/// The file system of the data files: the real one, behind a simulated flush latency when the
/// developer option `--simulated-fsync-latency-us` asks for one (bench/compare --device).
fn data_vfs(config: &Config) -> vfs::VfsRef {
    match config.simulated_fsync_latency_us {
        0 => vfs::RealVfs::shared(),
        us => {
            log::warn!("simulated device: every data-file flush sleeps {us} us first");
            vfs::LatencyVfs::new(vfs::RealVfs::shared(), std::time::Duration::from_micros(us))
                .shared()
        }
    }
}

/// Binary log off (`--skip-log-bin`): the engine alone; a transaction left prepared by a crash
/// cannot be in any binlog, so it is rolled back.
fn open_engine_only(datadir: &DataDir, engine_config: EngineConfig) -> Result<Storage, ServeError> {
    let (engine, recovery) =
        Engine::open(vfs::RealVfs::shared(), &datadir.path().join(ENGINE_DIR), engine_config)?;
    for lost in &recovery.lost {
        log::warn!("recovery_mode=POINT_IN_TIME accepted a loss: {lost}");
    }
    for xid in &recovery.prepared_xids {
        engine.rollback_prepared(*xid)?;
    }
    log::info!(
        "engine recovered to lsn {} ({} prepared transactions rolled back)",
        recovery.end_lsn.0,
        recovery.prepared_xids.len()
    );
    let status = Arc::new(ServerStatus::new(None));
    let hooks = Hooks { status: status.clone(), ..Hooks::without_binlog(&engine) };
    Ok(Storage { engine, coordinator: None, hooks, status, source: None, replica: None })
}

/// The start-up variables the SQL layer shows (SHOW VARIABLES, `@@name`), from the config:
/// every registry row the configuration holds a value for (the options, and values derived
/// from them such as `log_bin_basename`), and the data directory's `server_uuid`.
fn sql_overrides(config: &Config, datadir: &DataDir) -> Vec<(String, String)> {
    let mut overrides: Vec<(String, String)> = sql::vars::VARIABLES
        .iter()
        .filter_map(|v| Some((v.name.to_string(), config.value(v.name)?)))
        .collect();
    if config.log_bin.is_none() {
        // No binary log, no basename (the registry's default is the default configuration's).
        overrides.push((Var::LogBinBasename.name().to_string(), String::new()));
    }
    overrides.push((Var::ServerUuid.name().to_string(), datadir.server_uuid().to_string()));
    overrides
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut message = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        message.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    message
}

/// The protocol server's view of the SQL layer and the accounts.
pub struct SqlBackend {
    /// The SQL layer.
    pub sql: Arc<sql::Server>,
    /// The accounts.
    pub users: Arc<Users>,
    /// The replication source, when the binary log is on.
    pub source: Option<Arc<Source>>,
}

impl Backend for SqlBackend {
    type Session = SqlConnection;

    fn user(&self, user: &str, host: &str) -> Option<UserAuth> {
        self.users.auth(user, host)
    }

    fn is_connection_admin(&self, user: &str, host: &str) -> bool {
        // CONNECTION_ADMIN is a dynamic privilege this server does not have; SUPER implies it.
        self.users
            .lookup(user, host)
            .is_some_and(|a| a.privileges.contains(accounts::Privileges::SUPER))
    }

    fn open_session(&self, info: &ConnectionInfo) -> Result<SqlConnection, protocol::ErrPacket> {
        let mut session = self.sql.session_with_id(info.connection_id, &info.user, &info.host);
        session.attach_process(info.process.clone());
        session.set_tls(info.tls_session.clone());
        if info.capabilities.contains(protocol::CapabilityFlags::CLIENT_INTERACTIVE) {
            // mysqld (`THD::init_for_queries`... `login_connection`): an interactive client's
            // session wait_timeout starts as the global interactive_timeout.
            let interactive = match session.variable(Var::InteractiveTimeout) {
                engine::Value::Int(n) => n.max(1).to_string(),
                engine::Value::UInt(n) => n.max(1).to_string(),
                _ => "28800".to_string(),
            };
            session
                .query(&format!("SET SESSION wait_timeout = {interactive}"))
                .map_err(|e| to_protocol_error(&e))?;
        }
        session.set_client(
            u16::from(info.collation),
            info.capabilities.contains(protocol::CapabilityFlags::CLIENT_FOUND_ROWS),
        );
        if let Some(db) = &info.database {
            session.use_database(db).map_err(|e| to_protocol_error(&e))?;
        }
        let peer = Peer {
            connection_id: info.connection_id,
            user: info.user.clone(),
            host: info.host.clone(),
            capabilities: info.capabilities,
        };
        OPEN_SESSIONS.fetch_add(1, Ordering::Relaxed);
        Ok(SqlConnection {
            session,
            statements: HashMap::new(),
            source: self.source.clone(),
            peer,
            process: info.process.clone(),
        })
    }
}

/// One connection: an SQL session and its prepared statements by protocol id.
pub struct SqlConnection {
    session: sql::Session,
    statements: HashMap<u32, Arc<sql::Prepared>>,
    source: Option<Arc<Source>>,
    peer: Peer,
    process: Arc<protocol::processlist::Process>,
}

impl Drop for SqlConnection {
    fn drop(&mut self) {
        OPEN_SESSIONS.fetch_sub(1, Ordering::Relaxed);
        if let Some(source) = &self.source {
            source.replicas().unregister(self.peer.connection_id);
        }
    }
}

impl SqlConnection {
    async fn write(&mut self, output: Output, out: &mut ResultWriter<'_>) -> protocol::Result<()> {
        out.set_transaction_state(self.session.autocommit(), self.session.in_transaction());
        // CLIENT_SESSION_TRACK: the statement's session state changes go in its OK.
        let session_state = self.session.take_session_state();
        match output {
            Output::Ok { affected_rows, last_insert_id, info, warnings } => {
                out.ok(OkResult { affected_rows, last_insert_id, warnings, info, session_state })
            }
            Output::Rows { columns: columns_in, rows } => {
                let results = self.session.results_charset();
                let columns: Vec<Column> =
                    columns_in.iter().map(|c| to_column(&c.for_results(results))).collect();
                // Text values in character_set_results (or a latin1 column's own set when it
                // is NULL); empty when every column goes as computed (the common case).
                let convert = self.session.result_charsets(&columns_in);
                out.start_result_set(&columns).await?;
                for row in rows {
                    let values: Vec<Value> = if convert.is_empty() {
                        row.into_iter().map(to_protocol_value).collect()
                    } else {
                        row.into_iter()
                            .zip(&convert)
                            .map(|(v, cs)| match (v, cs) {
                                (engine::Value::Bytes(b), Some(cs)) => {
                                    Value::Bytes(collation::encode_lossy(*cs, &b).into_owned())
                                }
                                (v, _) => to_protocol_value(v),
                            })
                            .collect()
                    };
                    out.row(&values).await?;
                }
                out.end_result_set(self.session.warning_count())
            }
        }
    }
}

impl SqlConnection {
    /// Awaits the commit the last statement handed to the pipeline, if any: a FLUSH leader does
    /// its group's work (redo and binlog writes, fsyncs) on this thread when its connection is
    /// the only one, otherwise hands it to the pipeline's FLUSH thread (`block_in_place` only
    /// if that thread is stopped); a follower just waits to be woken. The statement's answer
    /// goes out only after this, so nothing is acknowledged before it is durable.
    ///
    /// Why not `spawn_blocking`: that put two cross-thread wake-ups (to a pool thread and back
    /// to a worker) on the path of every leader's commit — every commit with one connection:
    /// 5.3 context switches and ~73 µs of server CPU per transaction at 1 thread with free
    /// fsyncs, against 1.0 and ~30 µs now (bench/RESULTS.md, "Server layer per statement").
    async fn finish_commit(&mut self) -> Result<(), sql::SqlError> {
        let Some(mut pending) = self.session.take_deferred_commit() else { return Ok(()) };
        if pending.needs_thread() {
            if OPEN_SESSIONS.load(Ordering::Relaxed) <= 1 {
                // The only connection: nothing needs this worker during the fsyncs, so it
                // keeps its core (the hand-off wakes another thread per commit). Not when
                // others are open but idle: a worker blocked here polls no socket, so their
                // commands would wait unread and could not join the next group (with "no other
                // statement running" as the test, 16 connections fell to 181 TPS, below 1).
                pending.run();
            } else if !pending.hand_off() {
                tokio::task::block_in_place(|| pending.run());
            }
        }
        match std::future::poll_fn(|cx| pending.poll_done(cx)).await {
            Ok(outcome) => {
                self.session.committed(&outcome);
                Ok(())
            }
            Err(e) => Err(self.session.deferred_commit_failed(e)),
        }
    }

    /// One statement: on this worker thread ([`sql::Session::try_query`]), again after the
    /// holder of a row lock it needed has ended; if it would block otherwise (or keeps meeting
    /// locks, or a holder takes long), under `block_in_place`, where the engine's lock waits
    /// (timeout, deadlock detection) apply.
    async fn run_query(&mut self, sql: &str) -> Result<Output, sql::SqlError> {
        self.run_attempts(|s| s.try_query(sql), |s| s.query(sql)).await
    }

    /// [`Self::run_query`] for a prepared statement.
    async fn run_prepared(
        &mut self,
        prepared: &sql::Prepared,
        params: &[engine::Value],
    ) -> Result<Output, sql::SqlError> {
        self.run_attempts(|s| s.try_execute(prepared, params), |s| s.execute(prepared, params))
            .await
    }

    /// The retry loop of [`Self::run_query`]: `attempt` runs the statement without blocking,
    /// `blocking` runs it where lock waits may block.
    async fn run_attempts(
        &mut self,
        mut attempt: impl FnMut(&mut sql::Session) -> sql::Attempt,
        blocking: impl FnOnce(&mut sql::Session) -> Result<Output, sql::SqlError>,
    ) -> Result<Output, sql::SqlError> {
        for _ in 0..ASYNC_LOCK_RETRIES {
            match attempt(&mut self.session) {
                sql::Attempt::Done(r) => {
                    let output = r?;
                    self.finish_commit().await?;
                    return Ok(output);
                }
                sql::Attempt::Wait(lock) => {
                    // The statement was undone and holds nothing: a KILL [QUERY] ends it here.
                    let kill = self.process.wait_killed(protocol::processlist::KILL_QUERY);
                    tokio::select! {
                        ended = await_lock(lock) => if !ended { break },
                        () = kill => return Err(sql::error::query_interrupted()),
                    }
                }
                sql::Attempt::Blocked => break,
            }
        }
        let interrupt = self.interrupt();
        tokio::task::block_in_place(|| {
            engine::interruptible(interrupt, || blocking(&mut self.session))
        })
    }

    /// The engine's interrupt check for this connection's blocking waits: a KILL QUERY or
    /// KILL CONNECTION ends a statement blocked on a lock (1317).
    fn interrupt(&self) -> engine::Interrupt {
        let process = self.process.clone();
        Arc::new(move || process.killed() >= protocol::processlist::KILL_QUERY)
    }
}

/// How long a SHUTDOWN waits, no longer accepting connections, so the connection that asked
/// gets its answer before the runtime and its connections are dropped.
const SHUTDOWN_ANSWER_GRACE: Duration = Duration::from_millis(500);

/// SQL sessions (connections past authentication) open in the process.
static OPEN_SESSIONS: AtomicUsize = AtomicUsize::new(0);

/// How often a statement is tried again on the worker after awaiting a row lock holder before
/// it runs where it may block.
const ASYNC_LOCK_RETRIES: usize = 8;
/// The longest a statement awaits a row lock holder on the worker; past it the statement runs
/// where it may block, under the engine's own `innodb_lock_wait_timeout` and deadlock checks
/// (so a lock wait can last up to `ASYNC_LOCK_RETRIES` x this longer than configured).
const ASYNC_LOCK_WAIT: Duration = Duration::from_millis(500);

/// Awaits the end of a row lock's holder; false if it did not end within [`ASYNC_LOCK_WAIT`].
async fn await_lock(lock: engine::LockWait) -> bool {
    tokio::time::timeout(ASYNC_LOCK_WAIT, std::future::poll_fn(|cx| lock.poll_end(cx)))
        .await
        .is_ok()
}

impl BackendSession for SqlConnection {
    fn client_statement(&self, body: &[u8]) -> Option<String> {
        self.session.client_text(body)
    }

    async fn query(&mut self, sql: &str, out: &mut ResultWriter<'_>) -> protocol::Result<()> {
        if out.multi_statements() && sql::parse::split_statements(sql).len() > 1 {
            let interrupt = self.interrupt();
            let results = tokio::task::block_in_place(|| {
                engine::interruptible(interrupt, || self.session.query_multi(sql))
            });
            for result in results {
                let output = result.map_err(|e| to_protocol_error(&e))?;
                self.write(output, out).await?;
            }
            Ok(())
        } else {
            let output = self.run_query(sql).await.map_err(|e| to_protocol_error(&e))?;
            self.write(output, out).await
        }
    }

    async fn prepare(&mut self, stmt_id: u32, sql: &str) -> protocol::Result<PreparedStatement> {
        let prepared = tokio::task::block_in_place(|| self.session.prepare(sql))
            .map_err(|e| to_protocol_error(&e))?;
        // mysqld describes a parameter whose type it cannot know as VAR_STRING.
        let param = Column::new(ColumnType::MYSQL_TYPE_VAR_STRING).with_name(b"?");
        let shape = PreparedStatement {
            params: vec![param; prepared.params],
            columns: {
                let results = self.session.results_charset();
                prepared.columns.iter().map(|c| to_column(&c.for_results(results))).collect()
            },
        };
        self.statements.insert(stmt_id, Arc::new(prepared));
        Ok(shape)
    }

    async fn execute(
        &mut self,
        stmt_id: u32,
        params: &[Value],
        out: &mut ResultWriter<'_>,
    ) -> protocol::Result<()> {
        let prepared = self.statements.get(&stmt_id).cloned().ok_or_else(|| {
            protocol::ErrPacket::unknown_statement(stmt_id, "mysqld_stmt_execute")
        })?;
        // String parameters are in character_set_client, as statement text.
        let params: Vec<engine::Value> = params
            .iter()
            .map(|p| match p {
                Value::Bytes(b) => match self.session.client_text(b) {
                    Some(text) => engine::Value::Bytes(text.into_bytes()),
                    None => to_engine_value(p),
                },
                p => to_engine_value(p),
            })
            .collect();
        let output =
            self.run_prepared(&prepared, &params).await.map_err(|e| to_protocol_error(&e))?;
        self.write(output, out).await
    }

    fn close_statement(&mut self, stmt_id: u32) {
        self.statements.remove(&stmt_id);
    }

    fn session_state(&mut self) -> Vec<u8> {
        self.session.take_session_state()
    }

    async fn init_db(&mut self, db: &str) -> protocol::Result<()> {
        self.session.use_database(db).map_err(|e| to_protocol_error(&e).into())
    }

    async fn reset(&mut self) -> protocol::Result<()> {
        tokio::task::block_in_place(|| self.session.reset());
        Ok(())
    }

    fn timeouts(&self) -> protocol::Timeouts {
        let secs = |var| {
            let seconds = match self.session.variable(var) {
                engine::Value::Int(n) => u64::try_from(n).unwrap_or(1),
                engine::Value::UInt(n) => n,
                _ => 0,
            };
            Duration::from_secs(seconds.max(1))
        };
        protocol::Timeouts {
            net_read: secs(Var::NetReadTimeout),
            net_write: secs(Var::NetWriteTimeout),
            wait: secs(Var::WaitTimeout),
        }
    }

    fn check_global_privilege(&self, privilege: &str) -> protocol::Result<()> {
        self.session.need_global_privilege(privilege).map_err(|e| to_protocol_error(&e).into())
    }

    async fn replication(
        &mut self,
        command: ReplicationCommand,
        packet: &[u8],
        out: &mut PacketWriter<'_>,
    ) -> protocol::Result<()> {
        let Some(source) = self.source.clone() else {
            // mysqld with log_bin=OFF refuses a dump the same way.
            return Err(protocol::ErrPacket::new(1236, "HY000", "Binary log is not open").into());
        };
        let vars = replication::DumpVariables::from_session(&self.session);
        source.handle(command, packet, &self.peer, vars, out).await
    }
}

/// The SQL layer's error as an ERR packet.
pub fn to_protocol_error(e: &sql::SqlError) -> protocol::ErrPacket {
    protocol::ErrPacket::new(e.code(), e.sqlstate(), e.to_string())
}

fn to_column(c: &sql::ResultColumn) -> Column {
    // MysqlType's discriminants are MySQL's type codes, which mysql_common knows.
    let column_type =
        ColumnType::try_from(c.mysql_type as u8).unwrap_or(ColumnType::MYSQL_TYPE_VAR_STRING);
    Column::new(column_type)
        .with_schema(c.schema.as_bytes())
        .with_table(c.table.as_bytes())
        .with_org_table(c.org_table.as_bytes())
        .with_name(c.name.as_bytes())
        .with_org_name(c.org_name.as_bytes())
        .with_column_length(c.length)
        .with_flags(ColumnFlags::from_bits_truncate(c.flags))
        .with_decimals(c.decimals)
        .with_character_set(c.charset)
}

fn to_protocol_value(v: engine::Value) -> Value {
    match v {
        engine::Value::Null => Value::NULL,
        engine::Value::Int(i) => Value::Int(i),
        engine::Value::UInt(u) => Value::UInt(u),
        engine::Value::Double(d) => Value::Double(d),
        // DECIMAL travels as its text in both protocols.
        v @ engine::Value::Decimal(_) => Value::Bytes(v.to_string().into_bytes()),
        engine::Value::Bytes(b) | engine::Value::Json(b) => Value::Bytes(b),
        engine::Value::DateTime(t) => {
            Value::Date(t.year, t.month, t.day, t.hour, t.minute, t.second, t.micros)
        }
        engine::Value::Date(t) => Value::Date(t.year, t.month, t.day, 0, 0, 0, 0),
        engine::Value::Float(f) => Value::Float(f),
        engine::Value::Time(us) => {
            let abs = us.unsigned_abs();
            let secs = abs / 1_000_000;
            Value::Time(
                us < 0,
                (secs / 86_400) as u32,
                (secs / 3600 % 24) as u8,
                (secs / 60 % 60) as u8,
                (secs % 60) as u8,
                (abs % 1_000_000) as u32,
            )
        }
    }
}

fn to_engine_value(v: &Value) -> engine::Value {
    match v {
        Value::NULL => engine::Value::Null,
        Value::Bytes(b) => engine::Value::Bytes(b.clone()),
        Value::Int(i) => engine::Value::Int(*i),
        Value::UInt(u) => engine::Value::UInt(*u),
        Value::Float(f) => engine::Value::Double(f64::from(*f)),
        Value::Double(d) => engine::Value::Double(*d),
        Value::Date(year, month, day, hour, minute, second, micros) => {
            engine::Value::DateTime(engine::DateTime {
                year: *year,
                month: *month,
                day: *day,
                hour: *hour,
                minute: *minute,
                second: *second,
                micros: *micros,
            })
        }
        // TIME parameters have no engine type; the SQL layer converts text where a column
        // needs it, as mysqld converts a string.
        Value::Time(negative, days, hours, minutes, seconds, micros) => {
            let hours = u64::from(*days) * 24 + u64::from(*hours);
            let sign = if *negative { "-" } else { "" };
            engine::Value::Bytes(
                format!("{sign}{hours:02}:{minutes:02}:{seconds:02}.{micros:06}").into_bytes(),
            )
        }
    }
}

/// The size of `sockaddr_un.sun_path` on Linux, NUL included.
const SUN_PATH_MAX: usize = 108;

/// Binds the Unix socket file (`socket`), world-writable as mysqld makes it, so every local
/// user's client can connect (accounts still decide who gets in). A socket file left by a
/// server that is gone is replaced; one a live server answers on is refused, as mysqld
/// refuses to start ("Another process ... is using unix socket file"); a file that is not a
/// socket is never removed.
fn bind_unix(path: &std::path::Path) -> std::io::Result<tokio::net::UnixListener> {
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if !meta.file_type().is_socket() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                "the file exists and is not a socket",
            ));
        }
        if std::os::unix::net::UnixStream::connect(path).is_ok() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::AddrInUse,
                "another server is using the socket file",
            ));
        }
        std::fs::remove_file(path)?;
    }
    let listener = tokio::net::UnixListener::bind(path)?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o777))?;
    Ok(listener)
}

/// The bound socket file: removed when the server stops listening.
struct SocketFile(std::path::PathBuf);

impl Drop for SocketFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Binds the listening socket with a backlog of `max_connections` (at least 128), as mysqld
/// sizes `back_log`. The default backlog of 128 overflows when hundreds of clients connect at
/// once (sysbench at 1024 threads); the kernel then drops the server's half of connections
/// the client already counts as established, and since the server speaks first in MySQL's
/// protocol, such a client waits for a greeting forever. The kernel caps the backlog at
/// `net.core.somaxconn`.
async fn bind_listener(
    address: &str,
    max_connections: u64,
) -> std::io::Result<tokio::net::TcpListener> {
    let addr = tokio::net::lookup_host(address).await?.next().ok_or_else(|| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, "address resolves to nothing")
    })?;
    let socket = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    let backlog = u32::try_from(max_connections.max(128)).unwrap_or(u32::MAX);
    socket.listen(backlog)
}
