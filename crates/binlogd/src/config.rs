//! Server configuration: MySQL-named variables given as `--name=value` on the command line or
//! as `name=value` in a my.cnf-style option file (`--defaults-file=FILE`).
//!
//! Option syntax follows mysqld's `my_getopt`:
//! - dashes and underscores are interchangeable in names (`--sync-binlog=1` is `--sync_binlog=1`)
//!   and names are case-insensitive;
//! - a boolean given bare means ON (`--binlog-order-commits`); `--skip-NAME` and
//!   `--disable-NAME` mean OFF, `--enable-NAME` means ON; values are ON, OFF, TRUE, FALSE, 1, 0;
//! - sizes take a K, M, G or T suffix (powers of 1024);
//! - an option that needs a value takes it after `=` or as the next argument (`--port 3307`);
//! - `--loose-NAME` is ignored with a warning when NAME is unknown, so option files can be shared
//!   with servers that know more variables;
//! - `--log-bin[=basename]` turns the binary log on (the default), `--skip-log-bin` turns it off.
//!
//! clap parses the subcommand, but not these options: clap matches option names exactly, so it
//! cannot treat `--sync-binlog` and `--sync_binlog` as one option, nor read the same names from an
//! option file, nor give `--skip-`/`--loose-` prefixes their meaning. The `serve` subcommand hands
//! its raw arguments to [`Config::from_args`].
//!
//! Precedence: built-in defaults, then the option file's `[mysqld]` and `[binlogd]` sections in
//! file order, then the command line, left to right; the last setting of a variable wins.
//!
//! The variables themselves (type, default, scope, whether `SET GLOBAL` may change them, help)
//! are rows of the one registry, `sql::vars::VARIABLES` (mysqld's `sys_var` table), which
//! `SHOW VARIABLES`, `SET` and this parser all read; [`VARIABLES`] here is its documented part.
//! Invariant, checked by tests: every variable marked [`Variable::startup_option`] is a field of
//! [`Config`], its default is what [`Config::value`] shows for a default configuration, and that
//! text parses back to itself.

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};

/// Where an option came from, for error messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// The command line.
    CommandLine,
    /// An option file, at a 1-based line.
    File {
        /// The option file.
        path: PathBuf,
        /// Its line number.
        line: usize,
    },
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::CommandLine => write!(f, "on the command line"),
            Origin::File { path, line } => write!(f, "in {} line {line}", path.display()),
        }
    }
}

/// A configuration that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// No such option.
    #[error("unknown option '--{name}' {origin}")]
    UnknownOption {
        /// The name as given (without `--`).
        name: String,
        /// Where it was given.
        origin: Origin,
    },
    /// The value does not fit the variable's type or range.
    #[error("invalid value '{value}' for option '--{name}' {origin}: expected {expected}")]
    BadValue {
        /// The variable's name.
        name: String,
        /// The value given.
        value: String,
        /// What the variable takes.
        expected: String,
        /// Where it was given.
        origin: Origin,
    },
    /// An option that needs a value was given without one.
    #[error("option '--{name}' {origin} requires a value (--{name}=VALUE)")]
    MissingValue {
        /// The option.
        name: String,
        /// Where it was given.
        origin: Origin,
    },
    /// A variable that exists but cannot be set at startup (`server_uuid`, `gtid_executed`, ...).
    #[error("variable '{name}' {origin} cannot be set as an option")]
    NotAnOption {
        /// The variable.
        name: String,
        /// Where it was given.
        origin: Origin,
    },
    /// A command-line argument that is not an option.
    #[error("unexpected argument '{0}': options are --name=value")]
    UnexpectedArgument(String),
    /// A command-line argument that is not valid UTF-8.
    #[error("argument {0:?} is not valid UTF-8")]
    NotUtf8(OsString),
    /// The option file could not be read.
    #[error("cannot read option file {}", path.display())]
    ReadFile {
        /// The option file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A line of the option file that is neither a section, an option nor a comment.
    #[error("{}: line {line}: cannot parse '{text}'", path.display())]
    FileSyntax {
        /// The option file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// The line.
        text: String,
    },
}

pub use sql::vars::{parse_bool, parse_size, Parsed, Scope, VarType, Variable};
use sql::vars::{Change, Var, VariableListener};

const GIB: u64 = 1 << 30;

/// The server's documented variables: the rows of the one registry
/// ([`sql::vars::VARIABLES`]) that have help text, sorted by name. These are what
/// `--help` and the README list and what the option parser knows; the registry's other rows
/// are MySQL variables for clients (`version_comment`, `sql_mode`, ...), unknown as options.
pub static VARIABLES: Documented = Documented;

/// The type of [`VARIABLES`]: iterates the documented rows of the registry.
#[derive(Debug, Clone, Copy)]
pub struct Documented;

impl Documented {
    /// The documented variables, sorted by name.
    pub fn iter(self) -> impl Iterator<Item = &'static Variable> {
        sql::vars::VARIABLES.iter().filter(|v| v.documented())
    }
}

impl IntoIterator for Documented {
    type Item = &'static Variable;
    type IntoIter = std::iter::Filter<std::slice::Iter<'static, Variable>, fn(&&Variable) -> bool>;

    fn into_iter(self) -> Self::IntoIter {
        sql::vars::VARIABLES.iter().filter(|v| v.documented())
    }
}

/// The documented variable named `name` (dashes or underscores, any case).
pub fn variable(name: &str) -> Option<&'static Variable> {
    sql::vars::lookup(&normalize_name(name)).filter(|v| v.documented())
}

/// A name as the registry spells it: lower case, underscores.
pub fn normalize_name(name: &str) -> String {
    name.trim().to_ascii_lowercase().replace('-', "_")
}

/// `binlog_checksum`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinlogChecksum {
    /// No checksum.
    None,
    /// CRC32 after each event.
    Crc32,
}

/// `binlog_row_metadata`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowMetadata {
    /// Only what decoding the rows needs.
    Minimal,
    /// Also column names, primary key, charsets.
    Full,
}

/// The server's startup configuration. Field names are the variables' names; units are in
/// the field docs (MySQL's names carry none).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// `server_id`.
    pub server_id: u32,
    /// `port`; 0 means any free port.
    pub port: u16,
    /// `/metrics` (Prometheus text format) on 127.0.0.1:admin_port; 0 is off.
    pub admin_port: u16,
    /// `bind_address`.
    pub bind_address: String,
    /// `socket`: the Unix socket file clients on this host may connect to, as given (relative
    /// to `datadir`; empty: no socket). [`Config::socket_path`] resolves it.
    pub socket: String,
    /// `datadir`.
    pub datadir: PathBuf,
    /// `log_bin`: the binlog basename (file names are `<basename>.000001`, ...), `None` when the
    /// binary log is off. A relative basename is relative to `datadir`.
    pub log_bin: Option<String>,
    /// `max_binlog_size`, bytes.
    pub max_binlog_size: u64,
    /// `sync_binlog`, commit groups per fdatasync (0: never).
    pub sync_binlog: u32,
    /// `binlog_order_commits`.
    pub binlog_order_commits: bool,
    /// `binlog_max_flush_queue_time`, microseconds.
    pub binlog_max_flush_queue_time: u64,
    /// `binlog_group_commit_sync_delay`, microseconds.
    pub binlog_group_commit_sync_delay: u64,
    /// `binlog_group_commit_sync_no_delay_count`, transactions.
    pub binlog_group_commit_sync_no_delay_count: u64,
    /// `binlog_checksum`.
    pub binlog_checksum: BinlogChecksum,
    /// `binlog_row_metadata`.
    pub binlog_row_metadata: RowMetadata,
    /// `binlog_preallocate`.
    pub binlog_preallocate: bool,
    /// `binlog_in_redo`.
    pub binlog_in_redo: bool,
    /// `binlog_transaction_dependency_tracking`.
    pub binlog_transaction_dependency_tracking: commit::DependencyTracking,
    /// `binlog_transaction_dependency_history_size`, row hashes.
    pub binlog_transaction_dependency_history_size: u64,
    /// `replica_parallel_workers`.
    pub replica_parallel_workers: u64,
    /// `replica_preserve_commit_order`.
    pub replica_preserve_commit_order: bool,
    /// `gtid_mode` (only OFF and ON: the permissive modes exist to migrate replication
    /// topologies one server at a time, which binlogd has no use for).
    pub gtid_mode: bool,
    /// `innodb_flush_log_at_trx_commit`: 0, 1 or 2.
    pub innodb_flush_log_at_trx_commit: u8,
    /// `innodb_flush_method` (the redo's; see `engine::RedoFlushMethod`).
    pub innodb_flush_method: engine::RedoFlushMethod,
    /// `recovery_mode=POINT_IN_TIME` (true): start-up accepts damage and reports the loss;
    /// `STRICT` (false, the default) refuses to start (`commit::OpenOptions`).
    pub recovery_accept_loss: bool,
    /// `innodb_lock_wait_timeout`, seconds.
    pub innodb_lock_wait_timeout: u64,
    /// `max_connections`.
    pub max_connections: u32,
    /// `max_allowed_packet`, bytes.
    pub max_allowed_packet: u64,
    /// `connect_timeout`, seconds.
    pub connect_timeout: u64,
    /// `log_error`: the error log file (already resolved against `datadir`), `None` for stderr.
    pub log_error: Option<PathBuf>,
    /// `log_error_verbosity`: 1, 2 or 3.
    pub log_error_verbosity: u8,
    /// `lower_case_table_names`: 0, 1 or 2 (3 and more are refused, as the registry's range);
    /// recorded in the data directory when it is initialised ([`crate::datadir`]).
    pub lower_case_table_names: u8,
    /// `--initialize-insecure`: on the first start, root gets an empty password.
    pub initialize_insecure: bool,
    /// Developer option `--binlog-group-commit=OFF`: serialize commits (the old
    /// prepare_commit_mutex) for the seeds' "before" curves. Not a MySQL variable.
    pub binlog_group_commit: bool,
    /// Developer option `--simulated-fsync-latency-us=N`: every flush of the data files sleeps
    /// N µs first, one at a time (`vfs::LatencyVfs`), to stand in for a slow device. Simulated.
    pub simulated_fsync_latency_us: u64,
    /// `--defaults-file`, if one was read.
    pub defaults_file: Option<PathBuf>,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            server_id: 1,
            port: 3306,
            admin_port: 0,
            bind_address: "127.0.0.1".to_string(),
            socket: "mysql.sock".to_string(),
            datadir: PathBuf::from("./data"),
            log_bin: Some(DEFAULT_LOG_BIN.to_string()),
            max_binlog_size: GIB,
            sync_binlog: 1,
            binlog_order_commits: true,
            binlog_max_flush_queue_time: 0,
            binlog_group_commit_sync_delay: 0,
            binlog_group_commit_sync_no_delay_count: 0,
            binlog_checksum: BinlogChecksum::Crc32,
            binlog_row_metadata: RowMetadata::Minimal,
            binlog_preallocate: false,
            binlog_in_redo: false,
            binlog_transaction_dependency_tracking: commit::DependencyTracking::CommitOrder,
            binlog_transaction_dependency_history_size: commit::DEFAULT_HISTORY_SIZE,
            replica_parallel_workers: 4,
            replica_preserve_commit_order: true,
            gtid_mode: true,
            innodb_flush_log_at_trx_commit: 1,
            innodb_flush_method: engine::RedoFlushMethod::ODsync,
            recovery_accept_loss: false,
            innodb_lock_wait_timeout: 50,
            max_connections: 151,
            max_allowed_packet: 64 << 20,
            connect_timeout: 10,
            log_error: None,
            log_error_verbosity: 3,
            lower_case_table_names: 0,
            initialize_insecure: false,
            binlog_group_commit: true,
            simulated_fsync_latency_us: 0,
            defaults_file: None,
        }
    }
}

/// The binlog basename when `--log-bin` is given without one (mysqld uses `<host>-bin`; a
/// fixed name keeps a data directory movable between hosts).
pub const DEFAULT_LOG_BIN: &str = "binlog";

/// The error log's name for a bare `--log-error`.
pub const DEFAULT_LOG_ERROR: &str = "binlogd.err";

/// One `name[=value]` setting before it is applied.
#[derive(Debug, Clone)]
struct Setting {
    /// As given, without `--` (for messages).
    raw_name: String,
    value: Option<String>,
    origin: Origin,
}

impl Config {
    /// Parses the `serve` subcommand's arguments (without the program and subcommand names).
    /// Returns the configuration and warnings (ignored `--loose-` options) to log.
    pub fn from_args<I, S>(args: I) -> Result<(Config, Vec<String>), ConfigError>
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        let command_line = split_command_line(args)?;
        let mut defaults_file = None;
        for s in &command_line {
            if normalize_name(&s.raw_name) == "defaults_file" {
                let path = s.value.as_deref().ok_or_else(|| ConfigError::MissingValue {
                    name: s.raw_name.clone(),
                    origin: s.origin.clone(),
                })?;
                defaults_file = Some(PathBuf::from(path));
            }
        }
        let mut settings = match &defaults_file {
            Some(path) => read_option_file(path)?,
            None => Vec::new(),
        };
        settings.extend(command_line);

        let mut config = Config { defaults_file, ..Config::default() };
        let mut warnings = Vec::new();
        let mut log_error_given: Option<Option<String>> = None;
        for s in settings {
            let name = normalize_name(&s.raw_name);
            // `--no-defaults` is accepted for scripts written for mysqld: binlogd reads no option
            // file unless given one.
            if name == "defaults_file" || name == "no_defaults" {
                continue;
            }
            if name == "log_error" {
                // Resolved against the final datadir below, which may come later.
                log_error_given = Some(s.value.clone());
                continue;
            }
            if let Some(warning) = config.apply(&s)? {
                warnings.push(warning);
            }
        }
        if let Some(value) = log_error_given {
            let file = value.filter(|v| !v.is_empty()).unwrap_or(DEFAULT_LOG_ERROR.to_string());
            let file = PathBuf::from(file);
            // As mysqld: a relative error log name is relative to the data directory.
            config.log_error =
                Some(if file.is_relative() { config.datadir.join(file) } else { file });
        }
        Ok((config, warnings))
    }

    /// Sets variable `name` from `value` as a startup option would, e.g. for `SET GLOBAL` on a
    /// copy of the configuration. The value is checked against the variable's type.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), ConfigError> {
        self.apply(&Setting {
            raw_name: name.to_string(),
            value: Some(value.to_string()),
            origin: Origin::CommandLine,
        })
        .map(|_| ())
    }

    /// The value of variable `name` as `SHOW VARIABLES` shows it, for the variables this
    /// configuration holds (`None` for runtime state such as `gtid_executed`, and unknown names).
    pub fn value(&self, name: &str) -> Option<String> {
        let on_off = |b: bool| if b { "ON" } else { "OFF" }.to_string();
        let var = sql::vars::lookup(&normalize_name(name))?.var;
        Some(match var {
            Var::ServerId => self.server_id.to_string(),
            Var::Port => self.port.to_string(),
            Var::AdminPort => self.admin_port.to_string(),
            Var::BindAddress => self.bind_address.clone(),
            Var::Socket => self.socket_path().map(|p| p.display().to_string()).unwrap_or_default(),
            Var::Datadir => self.datadir.display().to_string(),
            Var::LogBin => on_off(self.log_bin.is_some()),
            Var::LogBinBasename => self.log_bin_basename()?.display().to_string(),
            Var::MaxBinlogSize => self.max_binlog_size.to_string(),
            Var::SyncBinlog => self.sync_binlog.to_string(),
            Var::BinlogOrderCommits => on_off(self.binlog_order_commits),
            Var::BinlogMaxFlushQueueTime => self.binlog_max_flush_queue_time.to_string(),
            Var::BinlogGroupCommitSyncDelay => self.binlog_group_commit_sync_delay.to_string(),
            Var::BinlogGroupCommitSyncNoDelayCount => {
                self.binlog_group_commit_sync_no_delay_count.to_string()
            }
            Var::BinlogChecksum => match self.binlog_checksum {
                BinlogChecksum::None => "NONE",
                BinlogChecksum::Crc32 => "CRC32",
            }
            .to_string(),
            Var::BinlogRowMetadata => match self.binlog_row_metadata {
                RowMetadata::Minimal => "MINIMAL",
                RowMetadata::Full => "FULL",
            }
            .to_string(),
            Var::BinlogPreallocate => on_off(self.binlog_preallocate),
            Var::BinlogInRedo => on_off(self.binlog_in_redo),
            Var::BinlogTransactionDependencyTracking => {
                self.binlog_transaction_dependency_tracking.name().to_string()
            }
            Var::BinlogTransactionDependencyHistorySize => {
                self.binlog_transaction_dependency_history_size.to_string()
            }
            Var::ReplicaParallelWorkers => self.replica_parallel_workers.to_string(),
            Var::ReplicaPreserveCommitOrder => on_off(self.replica_preserve_commit_order),
            Var::GtidMode => on_off(self.gtid_mode),
            Var::InnodbFlushLogAtTrxCommit => self.innodb_flush_log_at_trx_commit.to_string(),
            Var::InnodbFlushMethod => self.innodb_flush_method.name().to_string(),
            Var::RecoveryMode => {
                if self.recovery_accept_loss { "POINT_IN_TIME" } else { "STRICT" }.to_string()
            }
            Var::InnodbLockWaitTimeout => self.innodb_lock_wait_timeout.to_string(),
            Var::MaxConnections => self.max_connections.to_string(),
            Var::MaxAllowedPacket => self.max_allowed_packet.to_string(),
            Var::ConnectTimeout => self.connect_timeout.to_string(),
            Var::LogError => match &self.log_error {
                Some(path) => path.display().to_string(),
                None => "stderr".to_string(),
            },
            Var::LogErrorVerbosity => self.log_error_verbosity.to_string(),
            Var::LowerCaseTableNames => self.lower_case_table_names.to_string(),
            _ => return None,
        })
    }

    /// The Unix socket file: `socket` resolved against `datadir`, or `None` when it is empty.
    pub fn socket_path(&self) -> Option<PathBuf> {
        if self.socket.is_empty() {
            return None;
        }
        let path = PathBuf::from(&self.socket);
        Some(if path.is_relative() { self.datadir.join(path) } else { path })
    }

    /// The binlog files' path prefix: `log_bin` resolved against `datadir`, or `None` when the
    /// binary log is off.
    pub fn log_bin_basename(&self) -> Option<PathBuf> {
        Some(self.datadir.join(commit::BINLOG_DIR).join(self.log_bin.as_deref()?))
    }

    /// Applies one setting; returns a warning for an ignored `--loose-` option.
    fn apply(&mut self, s: &Setting) -> Result<Option<String>, ConfigError> {
        let mut name = normalize_name(&s.raw_name);
        let loose = name.starts_with("loose_");
        if loose {
            name = name["loose_".len()..].to_string();
        }
        let unknown =
            || ConfigError::UnknownOption { name: s.raw_name.clone(), origin: s.origin.clone() };

        // `--skip-X`/`--disable-X`/`--enable-X` on booleans (and log_bin), as my_getopt does.
        let mut value = s.value.clone();
        if variable(&name).is_none() {
            for (prefix, word) in [("skip_", "OFF"), ("disable_", "OFF"), ("enable_", "ON")] {
                let Some(base) = name.strip_prefix(prefix) else { continue };
                if variable(base).is_some_and(|v| v.ty == VarType::Bool) && value.is_none() {
                    name = base.to_string();
                    value = Some(word.to_string());
                    break;
                }
            }
        }
        if name == "initialize_insecure" {
            self.initialize_insecure = match value.as_deref() {
                None => true,
                Some(v) => parse_bool(v).ok_or_else(|| bad_value(s, v, VarType::Bool))?,
            };
            return Ok(None);
        }
        // Developer options for `bench/compare` (not MySQL variables, so not in VARIABLES).
        if name == "binlog_group_commit" {
            let v = value.as_deref().unwrap_or("ON");
            self.binlog_group_commit =
                parse_bool(v).ok_or_else(|| bad_value(s, v, VarType::Bool))?;
            return Ok(None);
        }
        if name == "simulated_fsync_latency_us" {
            let ty = VarType::Integer { min: 0, max: 1_000_000 };
            let v = value.as_deref().unwrap_or("");
            self.simulated_fsync_latency_us = match ty.parse(v) {
                Ok(Parsed::Int(n)) => n,
                _ => return Err(bad_value(s, v, ty)),
            };
            return Ok(None);
        }
        let Some(var) = variable(&name) else {
            if loose {
                return Ok(Some(format!(
                    "ignoring unknown option '--{}' {}",
                    s.raw_name, s.origin
                )));
            }
            return Err(unknown());
        };
        if !var.startup_option {
            return Err(ConfigError::NotAnOption {
                name: var.name.to_string(),
                origin: s.origin.clone(),
            });
        }
        if var.var == Var::LogBin {
            // `--log-bin[=basename]`: a boolean word turns it on or off, anything else is the
            // basename.
            self.log_bin = match value.as_deref().map(|v| (v, parse_bool(v))) {
                Some((_, Some(false))) => None,
                None | Some(("", _)) | Some((_, Some(true))) => Some(DEFAULT_LOG_BIN.to_string()),
                // A plain file name: the files are `<datadir>/binlog/<basename>.NNNNNN` (the
                // binlog crate names files within one directory).
                Some((v, None)) if valid_basename(v) => Some(v.to_string()),
                Some((v, None)) => {
                    return Err(ConfigError::BadValue {
                        name: s.raw_name.clone(),
                        value: v.to_string(),
                        expected: "a file name without '/' (binlog files live in <datadir>/binlog)"
                            .to_string(),
                        origin: s.origin.clone(),
                    })
                }
            };
            return Ok(None);
        }
        let value = match (value, var.ty) {
            (Some(v), _) => v,
            (None, VarType::Bool) => "ON".to_string(),
            (None, _) => {
                return Err(ConfigError::MissingValue {
                    name: s.raw_name.clone(),
                    origin: s.origin.clone(),
                })
            }
        };
        let parsed = var.ty.parse(&value).map_err(|_| bad_value(s, &value, var.ty))?;
        self.set_parsed(var.var, parsed).ok_or_else(|| bad_value(s, &value, var.ty))?;
        Ok(None)
    }

    /// Stores a checked value in its field; `None` if the value does not fit the field (which
    /// the registry's ranges rule out) or the variable is no field.
    fn set_parsed(&mut self, var: Var, parsed: Parsed) -> Option<()> {
        use Parsed::{Bool, Int, Text};
        match (var, parsed) {
            (Var::ServerId, Int(n)) => self.server_id = u32::try_from(n).ok()?,
            (Var::Port, Int(n)) => self.port = u16::try_from(n).ok()?,
            (Var::AdminPort, Int(n)) => self.admin_port = u16::try_from(n).ok()?,
            (Var::BindAddress, Text(t)) => self.bind_address = t,
            (Var::Socket, Text(t)) => self.socket = t,
            (Var::Datadir, Text(t)) => self.datadir = PathBuf::from(t),
            (Var::MaxBinlogSize, Int(n)) => self.max_binlog_size = n,
            (Var::SyncBinlog, Int(n)) => self.sync_binlog = u32::try_from(n).ok()?,
            (Var::BinlogOrderCommits, Bool(b)) => self.binlog_order_commits = b,
            (Var::BinlogMaxFlushQueueTime, Int(n)) => self.binlog_max_flush_queue_time = n,
            (Var::BinlogGroupCommitSyncDelay, Int(n)) => self.binlog_group_commit_sync_delay = n,
            (Var::BinlogGroupCommitSyncNoDelayCount, Int(n)) => {
                self.binlog_group_commit_sync_no_delay_count = n
            }
            (Var::BinlogChecksum, Text(t)) => {
                self.binlog_checksum =
                    if t == "NONE" { BinlogChecksum::None } else { BinlogChecksum::Crc32 }
            }
            (Var::BinlogRowMetadata, Text(t)) => {
                self.binlog_row_metadata =
                    if t == "FULL" { RowMetadata::Full } else { RowMetadata::Minimal }
            }
            (Var::BinlogPreallocate, Bool(b)) => self.binlog_preallocate = b,
            (Var::BinlogInRedo, Bool(b)) => self.binlog_in_redo = b,
            (Var::BinlogTransactionDependencyTracking, Text(t)) => {
                self.binlog_transaction_dependency_tracking =
                    commit::DependencyTracking::from_name(&t)?
            }
            (Var::BinlogTransactionDependencyHistorySize, Int(n)) => {
                self.binlog_transaction_dependency_history_size = n
            }
            (Var::ReplicaParallelWorkers, Int(n)) => self.replica_parallel_workers = n,
            (Var::ReplicaPreserveCommitOrder, Bool(b)) => self.replica_preserve_commit_order = b,
            (Var::GtidMode, Text(t)) => self.gtid_mode = t == "ON",
            (Var::InnodbFlushLogAtTrxCommit, Int(n)) => {
                self.innodb_flush_log_at_trx_commit = u8::try_from(n).ok()?
            }
            (Var::InnodbFlushMethod, Text(t)) => {
                self.innodb_flush_method = engine::RedoFlushMethod::from_name(&t)?
            }
            (Var::InnodbLockWaitTimeout, Int(n)) => self.innodb_lock_wait_timeout = n,
            (Var::RecoveryMode, Text(t)) => self.recovery_accept_loss = t == "POINT_IN_TIME",
            (Var::MaxConnections, Int(n)) => self.max_connections = u32::try_from(n).ok()?,
            // mysqld rounds max_allowed_packet down to a multiple of 1024.
            (Var::MaxAllowedPacket, Int(n)) => self.max_allowed_packet = n / 1024 * 1024,
            (Var::ConnectTimeout, Int(n)) => self.connect_timeout = n,
            (Var::LogError, Text(t)) => self.log_error = Some(PathBuf::from(t)),
            (Var::LogErrorVerbosity, Int(n)) => self.log_error_verbosity = u8::try_from(n).ok()?,
            (Var::LowerCaseTableNames, Int(n)) if (0..=2).contains(&n) => {
                self.lower_case_table_names = n as u8
            }
            _ => return None,
        }
        Some(())
    }
}

/// A binlog basename: non-empty, no path separator, no dot-only names.
fn valid_basename(v: &str) -> bool {
    !v.is_empty() && !v.contains(['/', '\\']) && v != "." && v != ".."
}

fn bad_value(s: &Setting, value: &str, ty: VarType) -> ConfigError {
    ConfigError::BadValue {
        name: s.raw_name.clone(),
        value: value.to_string(),
        expected: ty.expected(),
        origin: s.origin.clone(),
    }
}

/// The command line as settings: `--name=value`, `--name value` (for options that need a
/// value), or bare `--name`.
fn split_command_line<I, S>(args: I) -> Result<Vec<Setting>, ConfigError>
where
    I: IntoIterator<Item = S>,
    S: Into<OsString>,
{
    let mut args = args.into_iter().map(Into::into).peekable();
    let mut settings = Vec::new();
    while let Some(arg) = args.next() {
        let arg = arg.into_string().map_err(ConfigError::NotUtf8)?;
        let Some(option) = arg.strip_prefix("--").filter(|o| !o.is_empty()) else {
            return Err(ConfigError::UnexpectedArgument(arg));
        };
        let (raw_name, mut value) = match option.split_once('=') {
            Some((n, v)) => (n.to_string(), Some(v.to_string())),
            None => (option.to_string(), None),
        };
        if value.is_none() && takes_separate_value(&raw_name) {
            let next_is_value =
                args.peek().and_then(|a| a.to_str()).is_some_and(|a| !a.starts_with("--"));
            if next_is_value {
                value = args.next().and_then(|a| a.into_string().ok());
            }
        }
        settings.push(Setting { raw_name, value, origin: Origin::CommandLine });
    }
    Ok(settings)
}

/// True for options whose value may follow as the next argument: those that need one.
fn takes_separate_value(raw_name: &str) -> bool {
    let name = normalize_name(raw_name);
    let name = name.strip_prefix("loose_").unwrap_or(&name);
    if name == "defaults_file" {
        return true;
    }
    // log_bin and log_error take an optional value, so a bare one stays bare, as in mysqld.
    variable(name).is_some_and(|v| {
        v.startup_option && v.ty != VarType::Bool && !matches!(v.var, Var::LogBin | Var::LogError)
    })
}

/// Reads the `[mysqld]` and `[binlogd]` sections of a my.cnf-style file.
fn read_option_file(path: &Path) -> Result<Vec<Setting>, ConfigError> {
    let text = std::fs::read_to_string(path)
        .map_err(|source| ConfigError::ReadFile { path: path.to_path_buf(), source })?;
    parse_option_file(path, &text)
}

/// Parses option file text. Lines are `[section]`, `name`, `name=value` (spaces around `=`
/// allowed, the value optionally quoted), blank, or comments starting with `#` or `;`; a `#`
/// after whitespace ends an unquoted value. Other sections (`[client]`, `[mysql]`) are skipped,
/// so one file can serve the server and its clients.
fn parse_option_file(path: &Path, text: &str) -> Result<Vec<Setting>, ConfigError> {
    let mut settings = Vec::new();
    let mut ours = false;
    for (index, line) in text.lines().enumerate() {
        let line_no = index + 1;
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        let syntax = || ConfigError::FileSyntax {
            path: path.to_path_buf(),
            line: line_no,
            text: line.to_string(),
        };
        if let Some(section) = trimmed.strip_prefix('[') {
            let section = section.strip_suffix(']').ok_or_else(syntax)?.trim();
            ours = matches!(section.to_ascii_lowercase().as_str(), "mysqld" | "binlogd");
            continue;
        }
        if trimmed.starts_with('!') {
            // `!include` and `!includedir` are not supported: say so rather than ignore them.
            return Err(syntax());
        }
        if !ours {
            continue;
        }
        let (raw_name, value) = match trimmed.split_once('=') {
            Some((n, v)) => (n.trim(), Some(unquote(v.trim()).ok_or_else(syntax)?)),
            None => (strip_comment(trimmed), None),
        };
        let raw_name = raw_name.strip_prefix("--").unwrap_or(raw_name);
        if raw_name.is_empty() || raw_name.contains(char::is_whitespace) {
            return Err(syntax());
        }
        settings.push(Setting {
            raw_name: raw_name.to_string(),
            value,
            origin: Origin::File { path: path.to_path_buf(), line: line_no },
        });
    }
    Ok(settings)
}

/// A value with its quotes removed, or with a trailing ` # comment` removed when unquoted.
fn unquote(value: &str) -> Option<String> {
    for quote in ['"', '\''] {
        if let Some(rest) = value.strip_prefix(quote) {
            let end = rest.find(quote)?;
            let after = rest[end + 1..].trim();
            if !after.is_empty() && !after.starts_with('#') && !after.starts_with(';') {
                return None;
            }
            return Some(rest[..end].to_string());
        }
    }
    Some(strip_comment(value).to_string())
}

fn strip_comment(text: &str) -> &str {
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'#' && i > 0 && bytes[i - 1].is_ascii_whitespace() {
            return text[..i].trim_end();
        }
    }
    text
}

/// `binlogd serve --help`: the options and their defaults.
pub fn help_text() -> String {
    let mut out = String::from(
        "Usage: binlogd serve [--defaults-file=FILE] [--name=value ...]\n\n\
         Names may use dashes or underscores. Booleans take ON/OFF/1/0; --skip-NAME means OFF.\n\
         Sizes take K, M or G. --initialize-insecure: give root an empty password on the first\n\
         start (otherwise a random one is printed and written to datadir/initial-root-password).\n         Developer options (benchmarks): --binlog-group-commit=OFF serializes commits;\n         --simulated-fsync-latency-us=N makes every data-file flush sleep N us (simulated device).\n\n",
    );
    for v in VARIABLES.iter().filter(|v| v.startup_option) {
        out.push_str(&format!(
            "  --{:<42} {} (default {})\n",
            v.name.replace('_', "-"),
            v.help,
            if v.default.is_empty() { "none" } else { v.default }
        ));
    }
    out
}

/// `SET GLOBAL` of the variables the protocol layer enforces (`max_connections`,
/// `max_allowed_packet`), forwarded to its live [`Limits`](protocol::Limits), and of
/// `log_error_verbosity`, forwarded to the error log; every other variable goes on to `next`
/// (the commit pipeline's listener).
pub struct LiveVariables {
    /// The listener of the other variables.
    pub next: Option<std::sync::Arc<dyn VariableListener>>,
    /// The protocol server's limits.
    pub limits: std::sync::Arc<protocol::Limits>,
}

impl VariableListener for LiveVariables {
    fn set_global(&self, change: Change<'_>) -> Result<(), sql::SqlError> {
        // The SQL layer checked type and range (vars.rs) before calling.
        let number = change.number().and_then(|n| usize::try_from(n).ok());
        match (change.var, number) {
            (Var::MaxConnections, Some(n)) => self.limits.set_max_connections(n),
            (Var::MaxAllowedPacket, Some(n)) => self.limits.set_max_allowed_packet(n),
            (Var::ConnectTimeout, Some(n)) => {
                self.limits.set_connect_timeout(std::time::Duration::from_secs(n as u64))
            }
            (Var::LogErrorVerbosity, Some(n)) => {
                crate::logging::set_verbosity(u8::try_from(n).unwrap_or(u8::MAX))
            }
            _ => {}
        }
        match &self.next {
            Some(next) => next.set_global(change),
            None => Ok(()),
        }
    }
}
