//! System variables: the one registry of every variable the server knows, and their values.
//!
//! The design is mysqld's `sys_var` (sql/sys_vars.cc): one static row per variable, made of
//! its name, its type (mysqld's `Sys_var_mybool`, `Sys_var_uint`/`Sys_var_ulong` with a range,
//! `Sys_var_enum` with its values, `Sys_var_charptr`, ...), its scope (`GLOBAL_VAR`,
//! `SESSION_VAR`, `SESSION_ONLY`), its default, its flags (`READ_ONLY`, `NO_CMD_LINE`: here
//! [`Variable::dynamic`] and [`Variable::startup_option`]) and its help text. The rows are
//! [`VARIABLES`], sorted by name, and each row's typed id is a variant of [`Var`]: the
//! `registry!` table below declares both, so adding a variable is one row (and, if a live
//! component acts on it, one arm in that component's listener).
//!
//! Everything that knows variables reads this table: the start-up options (`--name=value`,
//! `--defaults-file`, `binlogd serve --help`, in the server's `config` module, which parses
//! values with [`VarType::parse`]), `SHOW VARIABLES`, `SELECT @@name` and `SET [GLOBAL |
//! SESSION]` (which checks values with [`check`]), and the README's configuration table (a
//! test). The rows with help text are the server's documented configuration (the README table
//! and `--help`); the others are the MySQL variables clients and connectors read
//! (`version_comment`, `character_set_*`, `sql_mode`, ...), with no help and no start-up option.
//!
//! Global values live in [`Variables`] (shared), indexed by [`Var`]; each session copies the
//! global values of session-scoped variables when it opens, as mysqld does, so a later SET
//! GLOBAL changes new sessions only. A few variables are answered from live state instead of
//! the stored value (`autocommit`, `gtid_next`, `last_insert_id`, `gtid_executed`,
//! `warning_count`, ...): the session resolves those itself. A successful SET GLOBAL reaches
//! the live components (the commit pipeline's atomics, the protocol's limits) as a typed
//! [`Change`] through their [`VariableListener`]s, as mysqld's `sys_var::on_update` hooks.
//!
//! Read-only variables (no [`Variable::dynamic`]) refuse SET with 1238; a GLOBAL-only variable
//! refuses SET SESSION with 1229 and a SESSION-only one SET GLOBAL with 1228; a bad value is
//! 1231 and a value of the wrong type 1232. Values are stored as engine values: booleans and
//! integers as `Int`/`UInt`, everything else as `Bytes`. SHOW VARIABLES prints booleans as
//! ON/OFF, `SELECT @@x` returns them as 1/0.

use std::collections::HashMap;

use engine::Value;
use parking_lot::RwLock;

use super::error::{Result, SqlError};

/// Whether a variable exists globally, per session, or both (`SET GLOBAL` / `SET SESSION`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Only `@@global.name`.
    Global,
    /// Only `@@session.name`.
    Session,
    /// Both; a session starts with the global value.
    Both,
}

/// A variable's type, which decides what values it accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VarType {
    /// ON/OFF (also TRUE/FALSE, 1/0).
    Bool,
    /// A whole number in `min..=max` (a start-up option out of range is refused; SET clamps
    /// into the range, as mysqld does).
    Integer {
        /// Smallest value.
        min: u64,
        /// Largest value.
        max: u64,
    },
    /// A byte count in `min..=max`, with an optional K, M, G or T suffix at start-up (SET
    /// takes a plain number, as for [`VarType::Integer`]).
    Size {
        /// Smallest value.
        min: u64,
        /// Largest value.
        max: u64,
    },
    /// One of these words (case-insensitive; shown as listed).
    Enum(&'static [&'static str]),
    /// Free text (a path, an address, a GTID set).
    Text,
}

impl VarType {
    /// Parses start-up option text as this type; on failure, a description of what is
    /// expected.
    pub fn parse(self, text: &str) -> std::result::Result<Parsed, String> {
        let text = text.trim();
        match self {
            VarType::Bool => parse_bool(text).map(Parsed::Bool).ok_or_else(|| self.expected()),
            VarType::Integer { min, max } => match text.parse::<u64>() {
                Ok(n) if (min..=max).contains(&n) => Ok(Parsed::Int(n)),
                _ => Err(self.expected()),
            },
            VarType::Size { min, max } => match parse_size(text) {
                Some(n) if (min..=max).contains(&n) => Ok(Parsed::Int(n)),
                _ => Err(self.expected()),
            },
            VarType::Enum(words) => words
                .iter()
                .find(|w| w.eq_ignore_ascii_case(text))
                .map(|w| Parsed::Text((*w).to_string()))
                .ok_or_else(|| self.expected()),
            VarType::Text => Ok(Parsed::Text(text.to_string())),
        }
    }

    /// What this type accepts, for error messages.
    pub fn expected(self) -> String {
        match self {
            VarType::Bool => "ON, OFF, TRUE, FALSE, 1 or 0".to_string(),
            VarType::Integer { min, max } => format!("an integer from {min} to {max}"),
            VarType::Size { min, max } => {
                format!("a size from {min} to {max} bytes (K, M, G suffixes allowed)")
            }
            VarType::Enum(words) => format!("one of {}", words.join(", ")),
            VarType::Text => "text".to_string(),
        }
    }
}

/// A start-up value checked against its variable's type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parsed {
    /// A boolean.
    Bool(bool),
    /// An integer or a size in bytes.
    Int(u64),
    /// Text, or an enum's canonical word.
    Text(String),
}

/// ON/OFF, TRUE/FALSE, 1/0, any case.
pub fn parse_bool(text: &str) -> Option<bool> {
    match text.trim().to_ascii_uppercase().as_str() {
        "ON" | "TRUE" | "1" => Some(true),
        "OFF" | "FALSE" | "0" => Some(false),
        _ => None,
    }
}

/// Digits with an optional K, M, G or T suffix (powers of 1024, any case).
pub fn parse_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let (digits, shift) = match text.as_bytes().last()?.to_ascii_uppercase() {
        b'K' => (&text[..text.len() - 1], 10),
        b'M' => (&text[..text.len() - 1], 20),
        b'G' => (&text[..text.len() - 1], 30),
        b'T' => (&text[..text.len() - 1], 40),
        _ => (text, 0),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u64>().ok()?.checked_mul(1u64 << shift)
}

/// One system variable: mysqld's `sys_var`.
#[derive(Debug, Clone, Copy)]
pub struct Variable {
    /// Its typed id.
    pub var: Var,
    /// The MySQL name (lower case, underscores).
    pub name: &'static str,
    /// What it accepts.
    pub ty: VarType,
    /// The default, as `SHOW VARIABLES` shows it.
    pub default: &'static str,
    /// Global, session or both.
    pub scope: Scope,
    /// True when `SET` may change it while the server runs (mysqld: not `READ_ONLY`).
    pub dynamic: bool,
    /// True when it may be given at startup (`--name=value`, option file; mysqld: not
    /// `NO_CMD_LINE`).
    pub startup_option: bool,
    /// One line of help (`--help`, the README); empty for the variables that are there for
    /// MySQL clients only.
    pub help: &'static str,
}

impl Variable {
    /// True for the server's documented configuration: the rows with help text, which
    /// `--help` and the README list and the option parser knows.
    pub fn documented(&self) -> bool {
        !self.help.is_empty()
    }
}

/// How a variable may be set (mysqld's `READ_ONLY` and `NO_CMD_LINE` flags).
#[derive(Debug, Clone, Copy)]
struct Flags {
    dynamic: bool,
    startup_option: bool,
}

/// Neither SET nor a start-up option (runtime state, or fixed).
const READ_ONLY: Flags = Flags { dynamic: false, startup_option: false };
/// SET only.
const SET: Flags = Flags { dynamic: true, startup_option: false };
/// A start-up option only.
const OPTION: Flags = Flags { dynamic: false, startup_option: true };
/// A start-up option that SET may also change.
const OPTION_SET: Flags = Flags { dynamic: true, startup_option: true };

const fn uint(max: u64) -> VarType {
    VarType::Integer { min: 0, max }
}

const U32: u64 = u32::MAX as u64;
const GIB: u64 = 1 << 30;
const ISOLATION: &[&str] =
    &["READ-UNCOMMITTED", "READ-COMMITTED", "REPEATABLE-READ", "SERIALIZABLE"];

/// The MySQL version string clients see; an 8.0 version keeps connectors on their 8.0 paths.
/// The same string is in the handshake and in every binlog file's FORMAT_DESCRIPTION.
pub const VERSION: &str = binlog::files::SERVER_VERSION;

/// Declares [`Var`] and [`VARIABLES`] from one list of rows:
/// `Id = "name", scope, type, default, flags, help;`, sorted by name.
macro_rules! registry {
    ($($(#[$doc:meta])* $id:ident = $name:literal, $scope:ident, $ty:expr, $default:expr,
       $flags:ident, $help:expr;)*) => {
        /// A system variable's typed id: the variant's index is its row in [`VARIABLES`].
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[allow(missing_docs)]
        pub enum Var {
            $($(#[$doc])* $id,)*
        }

        /// Every system variable the server knows, sorted by name (in [`Var`]'s order).
        pub static VARIABLES: &[Variable] = &[$(Variable {
            var: Var::$id,
            name: $name,
            ty: $ty,
            default: $default,
            scope: Scope::$scope,
            dynamic: $flags.dynamic,
            startup_option: $flags.startup_option,
            help: $help,
        },)*];
    };
}

use VarType::{Bool, Enum, Integer, Size, Text};

registry! {
    AdminPort = "admin_port", Global, Integer { min: 0, max: 65_535 }, "0", OPTION,
        "port of the Prometheus /metrics endpoint on 127.0.0.1 (0: off)";
    AutoIncrementIncrement = "auto_increment_increment", Both, Integer { min: 1, max: 65535 }, "1",
        SET, "";
    AutoIncrementOffset = "auto_increment_offset", Both, Integer { min: 1, max: 65535 }, "1", SET,
        "";
    Autocommit = "autocommit", Both, Bool, "ON", SET, "";
    Basedir = "basedir", Global, Text, "", READ_ONLY, "";
    BindAddress = "bind_address", Global, Text, "127.0.0.1", OPTION, "IP address to listen on";
    BinlogCacheSize = "binlog_cache_size", Global, Integer { min: 4096, max: u64::MAX }, "32768",
        SET, "";
    BinlogChecksum = "binlog_checksum", Global, Enum(&["NONE", "CRC32"]), "CRC32", OPTION,
        "checksum written after each binlog event";
    BinlogExpireLogsSeconds = "binlog_expire_logs_seconds", Global, uint(U32), "2592000", SET, "";
    BinlogFormat = "binlog_format", Both, Enum(&["ROW", "STATEMENT", "MIXED"]), "ROW", SET, "";
    BinlogGroupCommitSyncDelay = "binlog_group_commit_sync_delay", Global,
        Integer { min: 0, max: 1_000_000 }, "0", OPTION_SET,
        "microseconds to wait before syncing the binlog, to gather a larger group";
    BinlogGroupCommitSyncNoDelayCount = "binlog_group_commit_sync_no_delay_count", Global,
        Integer { min: 0, max: 100_000 }, "0", OPTION_SET,
        "stop waiting for the sync delay once this many transactions are queued";
    BinlogInRedo = "binlog_in_redo", Global, Bool, "OFF", OPTION,
        "write binlog events into the redo log: one fsync per group instead of two";
    BinlogMaxFlushQueueTime = "binlog_max_flush_queue_time", Global,
        Integer { min: 0, max: 100_000 }, "0", OPTION_SET,
        "microseconds the flush-stage leader keeps taking new members";
    BinlogOrderCommits = "binlog_order_commits", Global, Bool, "ON", OPTION_SET,
        "commit in the engine in binlog order (the commit-stage leader commits the group)";
    BinlogPreallocate = "binlog_preallocate", Global, Bool, "OFF", OPTION,
        "preallocate each binlog file to max_binlog_size (fallocate)";
    BinlogRowImage = "binlog_row_image", Both, Enum(&["FULL", "MINIMAL", "NOBLOB"]), "FULL", SET,
        "";
    BinlogRowMetadata = "binlog_row_metadata", Global, Enum(&["MINIMAL", "FULL"]), "MINIMAL",
        OPTION_SET, "column metadata written in TABLE_MAP events";
    BinlogTransactionDependencyHistorySize = "binlog_transaction_dependency_history_size", Global,
        Integer { min: 1, max: commit::MAX_HISTORY_SIZE }, "25000", OPTION_SET,
        "row hashes the WRITESET dependency history keeps before it is cleared";
    BinlogTransactionDependencyTracking = "binlog_transaction_dependency_tracking", Global,
        Enum(&commit::DependencyTracking::NAMES), "COMMIT_ORDER", OPTION_SET,
        "how last_committed is computed: COMMIT_ORDER, WRITESET or WRITESET_SESSION";
    CharacterSetClient = "character_set_client", Both, Text, "utf8mb4", SET, "";
    CharacterSetConnection = "character_set_connection", Both, Text, "utf8mb4", SET, "";
    CharacterSetDatabase = "character_set_database", Both, Text, "utf8mb4", SET, "";
    CharacterSetFilesystem = "character_set_filesystem", Both, Text, "binary", SET, "";
    CharacterSetResults = "character_set_results", Both, Text, "utf8mb4", SET, "";
    CharacterSetServer = "character_set_server", Both, Text, "utf8mb4", SET, "";
    CharacterSetSystem = "character_set_system", Global, Text, "utf8mb3", READ_ONLY, "";
    /// MariaDB's `OPTION_NO_CHECK_CONSTRAINT_CHECKS`, which mariadb-binlog prints from every
    /// QUERY event's flags2 (`SET @@session.check_constraint_checks=1, ...`); binlogd has no
    /// CHECK constraints, so it changes nothing, but the replayed line must not fail.
    CheckConstraintChecks = "check_constraint_checks", Both, Bool, "ON", SET, "";
    CollationConnection = "collation_connection", Both, Text, "utf8mb4_0900_ai_ci", SET, "";
    CollationDatabase = "collation_database", Both, Text, "utf8mb4_0900_ai_ci", SET, "";
    CollationServer = "collation_server", Both, Text, "utf8mb4_0900_ai_ci", SET, "";
    /// Set by mysqlbinlog output (`SET COMPLETION_TYPE=0`); only NO_CHAIN behaviour exists.
    CompletionType = "completion_type", Both, Enum(&["NO_CHAIN", "CHAIN", "RELEASE"]), "NO_CHAIN",
        SET, "";
    ConnectTimeout = "connect_timeout", Global, Integer { min: 2, max: 31_536_000 }, "10",
        OPTION_SET, "seconds a client may take to authenticate";
    CteMaxRecursionDepth = "cte_max_recursion_depth", Both, uint(U32), "1000", SET, "";
    Datadir = "datadir", Global, Text, "./data", OPTION, "data directory (created on first start)";
    DefaultAuthenticationPlugin = "default_authentication_plugin", Global, Text,
        "caching_sha2_password", SET, "";
    DefaultCollationForUtf8mb4 = "default_collation_for_utf8mb4", Both, Text, "utf8mb4_0900_ai_ci",
        SET, "";
    DefaultStorageEngine = "default_storage_engine", Both, Text, "InnoDB", SET, "";
    DivPrecisionIncrement = "div_precision_increment", Both, uint(30), "4", SET, "";
    EnforceGtidConsistency = "enforce_gtid_consistency", Global, Enum(&["OFF", "ON", "WARN"]), "ON",
        SET, "";
    ErrorCount = "error_count", Session, uint(u64::MAX), "0", READ_ONLY, "";
    EventScheduler = "event_scheduler", Global, Text, "OFF", SET, "";
    ExplicitDefaultsForTimestamp = "explicit_defaults_for_timestamp", Both, Bool, "ON", READ_ONLY,
        "";
    ForeignKeyChecks = "foreign_key_checks", Both, Bool, "ON", SET, "";
    GroupConcatMaxLen = "group_concat_max_len", Both, Integer { min: 4, max: u64::MAX }, "1024",
        SET, "";
    GtidExecuted = "gtid_executed", Global, Text, "", READ_ONLY,
        "GTIDs of every transaction in the binlog";
    GtidMode = "gtid_mode", Global, Enum(&["OFF", "ON"]), "ON", OPTION,
        "give each transaction a GTID";
    GtidNext = "gtid_next", Session, Text, "AUTOMATIC", SET,
        "GTID of the session's next transaction (AUTOMATIC, ANONYMOUS or uuid:N)";
    GtidPurged = "gtid_purged", Global, Text, "", SET,
        "GTIDs executed but no longer in any binlog file";
    HaveOpenssl = "have_openssl", Global, Text, "YES", READ_ONLY, "";
    HaveSsl = "have_ssl", Global, Text, "YES", READ_ONLY, "";
    Hostname = "hostname", Global, Text, "localhost", READ_ONLY, "";
    Identity = "identity", Session, uint(u64::MAX), "0", SET, "";
    /// Set by mysqlbinlog output (`SET @@session.immediate_server_version`).
    ImmediateServerVersion = "immediate_server_version", Session, uint(U32), "999999", SET, "";
    InitConnect = "init_connect", Global, Text, "", SET, "";
    InnodbBufferPoolSize = "innodb_buffer_pool_size", Global, uint(u64::MAX), "134217728",
        READ_ONLY, "";
    InnodbFlushLogAtTrxCommit = "innodb_flush_log_at_trx_commit", Global,
        Integer { min: 0, max: 2 }, "1", OPTION_SET,
        "redo log at commit: 1 write+sync, 2 write, 0 neither (the engine's flush-at-commit)";
    // MySQL's values also include O_DIRECT and O_DIRECT_NO_FSYNC, which change how InnoDB's
    // *data* files are opened (binlogd has none: its tables live in memory and checkpoint
    // files); MySQL's O_DSYNC opens the log files O_SYNC and skips their fsync
    // (srv_unix_flush_t in MySQL's srv0srv.h: "open log files in O_SYNC mode"). binlogd's
    // O_DSYNC also skips the fsync but opens the redo O_DIRECT|O_DSYNC and writes whole 4 KiB
    // blocks, which measured faster than pwrite + fdatasync (bench/RESULTS.md).
    InnodbFlushMethod = "innodb_flush_method", Global, Enum(&engine::RedoFlushMethod::NAMES),
        "O_DSYNC", OPTION,
        "how a redo flush is made durable: fsync (pwrite + fdatasync) or O_DSYNC (one write \
            of whole blocks opened O_DIRECT and O_DSYNC; write + fdatasync where the file system \
            has no direct I/O)";
    InnodbLockWaitTimeout = "innodb_lock_wait_timeout", Both,
        Integer { min: 1, max: 1_073_741_824 }, "50", OPTION_SET,
        "seconds a statement waits for a row lock";
    InsertId = "insert_id", Session, uint(u64::MAX), "0", SET, "";
    InteractiveTimeout = "interactive_timeout", Both, Integer { min: 1, max: 31_536_000 }, "28800",
        SET, "";
    LastInsertId = "last_insert_id", Session, uint(u64::MAX), "0", SET, "";
    LcMessages = "lc_messages", Both, Text, "en_US", SET, "";
    /// Names of days and months (mysqlbinlog sets it by number: 0 is `en_US`).
    LcTimeNames = "lc_time_names", Both, Text, "en_US", SET, "";
    License = "license", Global, Text, "Apache-2.0", READ_ONLY, "";
    LockWaitTimeout = "lock_wait_timeout", Both, Integer { min: 1, max: 31_536_000 }, "31536000",
        SET, "";
    LogBin = "log_bin", Global, Bool, "ON", OPTION,
        "binary log on (--log-bin[=basename]) or off (--skip-log-bin)";
    LogBinBasename = "log_bin_basename", Global, Text, "./data/binlog/binlog", READ_ONLY,
        "path and name prefix of the binlog files";
    LogBinIndex = "log_bin_index", Global, Text, "", READ_ONLY, "";
    LogError = "log_error", Global, Text, "stderr", OPTION,
        "error log file (relative names are in datadir); stderr when not given";
    LogErrorVerbosity = "log_error_verbosity", Global, Integer { min: 1, max: 3 }, "3", OPTION_SET,
        "1 errors, 2 errors and warnings, 3 also notes";
    LogReplicaUpdates = "log_replica_updates", Global, Bool, "ON", READ_ONLY, "";
    LogSlaveUpdates = "log_slave_updates", Global, Bool, "ON", READ_ONLY, "";
    LowerCaseTableNames = "lower_case_table_names", Global, uint(2), "0", OPTION,
        "0 compares table and database names exactly, 1 stores them in lower case, 2 folds them; fixed when the data directory is initialised";
    MaxAllowedPacket = "max_allowed_packet", Both, Size { min: 1024, max: GIB }, "67108864",
        OPTION_SET, "largest packet or statement a client may send";
    MaxBinlogCacheSize = "max_binlog_cache_size", Global, Integer { min: 4096, max: u64::MAX },
        "18446744073709547520", SET, "";
    MaxBinlogSize = "max_binlog_size", Global, Size { min: 4096, max: GIB }, "1073741824",
        OPTION_SET, "rotate the binlog once a file reaches this size";
    MaxConnectErrors = "max_connect_errors", Global, uint(u64::MAX), "100", SET, "";
    MaxConnections = "max_connections", Global, Integer { min: 1, max: 100_000 }, "151", OPTION_SET,
        "most client connections open at once";
    /// Set by mysqlbinlog output (`SET @@session.max_delayed_threads=0`); no INSERT DELAYED.
    MaxDelayedThreads = "max_delayed_threads", Both, uint(16384), "20", SET, "";
    MaxExecutionTime = "max_execution_time", Both, uint(U32), "0", SET, "";
    NetBufferLength = "net_buffer_length", Both, Integer { min: 1024, max: 1 << 20 }, "16384", SET,
        "";
    NetReadTimeout = "net_read_timeout", Both, Integer { min: 1, max: 31_536_000 }, "30", SET, "";
    NetWriteTimeout = "net_write_timeout", Both, Integer { min: 1, max: 31_536_000 }, "60", SET, "";
    /// Set by mysqlbinlog output before each transaction (microseconds since the epoch).
    OriginalCommitTimestamp = "original_commit_timestamp", Session, uint(u64::MAX),
        "36028797018963968", SET, "";
    OriginalServerVersion = "original_server_version", Session, uint(U32), "999999", SET, "";
    PerformanceSchema = "performance_schema", Global, Bool, "OFF", READ_ONLY, "";
    Port = "port", Global, Integer { min: 0, max: 65_535 }, "3306", OPTION,
        "TCP port to listen on (0: any free port, logged at startup)";
    // SHOW CREATE USER prints a hash with unprintable bytes as 0x... (mysqld 8.0.17).
    PrintIdentifiedWithAsHex = "print_identified_with_as_hex", Both, Bool, "OFF", SET, "";
    ProtocolVersion = "protocol_version", Global, uint(U32), "10", READ_ONLY, "";
    /// `SET PSEUDO_SLAVE_MODE=1`, the first statement of mysqlbinlog output.
    PseudoReplicaMode = "pseudo_replica_mode", Session, Bool, "OFF", SET, "";
    PseudoSlaveMode = "pseudo_slave_mode", Session, Bool, "OFF", SET, "";
    PseudoThreadId = "pseudo_thread_id", Session, uint(u64::MAX), "0", SET, "";
    QueryCacheSize = "query_cache_size", Global, uint(u64::MAX), "0", READ_ONLY, "";
    QueryCacheType = "query_cache_type", Global, Text, "OFF", READ_ONLY, "";
    ReadOnly = "read_only", Global, Bool, "OFF", SET, "";
    // As RocksDB's wal_recovery_mode (kAbsoluteConsistency / kPointInTimeRecovery) and
    // mysqld's innodb_force_recovery: damage found at start-up is a refusal unless named.
    RecoveryMode = "recovery_mode", Global, Enum(&["STRICT", "POINT_IN_TIME"]), "STRICT", OPTION,
        "start-up damage (a redo record bad before durable ones, a closed binlog file not \
            reading to its end, lost binlog or engine files): STRICT refuses to start naming \
            the file and offset; POINT_IN_TIME recovers up to the damage, logs the loss and \
            keeps GTIDs after every one ever executed";
    // The replica applier reads these at START REPLICA (MySQL 8.0.27+ defaults).
    ReplicaParallelWorkers = "replica_parallel_workers", Global, Integer { min: 0, max: 1024 }, "4",
        OPTION_SET, "replica applier workers (logical-clock scheduling; read at START REPLICA)";
    ReplicaPreserveCommitOrder = "replica_preserve_commit_order", Global, Bool, "ON", OPTION_SET,
        "replica workers commit in the source's order (read at START REPLICA)";
    ServerId = "server_id", Global, Integer { min: 0, max: U32 }, "1", OPTION,
        "this server's id in binlog event headers and replication";
    ServerUuid = "server_uuid", Global, Text, "", READ_ONLY,
        "this server's UUID, generated once and kept in datadir/auto.cnf";
    SessionTrackGtids = "session_track_gtids", Both, Enum(&["OFF", "OWN_GTID", "ALL_GTIDS"]), "OFF",
        SET, "";
    SessionTrackSchema = "session_track_schema", Both, Bool, "ON", SET, "";
    SessionTrackStateChange = "session_track_state_change", Both, Bool, "OFF", SET, "";
    SessionTrackSystemVariables = "session_track_system_variables", Both, Text,
        "time_zone,autocommit,character_set_client,character_set_results,character_set_connection",
        SET, "";
    SkipNameResolve = "skip_name_resolve", Global, Bool, "ON", READ_ONLY, "";
    SkipNetworking = "skip_networking", Global, Bool, "OFF", READ_ONLY, "";
    Socket = "socket", Global, Text, "mysql.sock", OPTION,
        "Unix socket file to listen on too; relative to datadir; empty: none";
    SqlAutoIsNull = "sql_auto_is_null", Both, Bool, "OFF", SET, "";
    SqlLogBin = "sql_log_bin", Session, Bool, "ON", SET, "";
    SqlMode = "sql_mode", Both, Text,
        "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION",
        SET, "";
    SqlNotes = "sql_notes", Both, Bool, "ON", SET, "";
    SqlQuoteShowCreate = "sql_quote_show_create", Both, Bool, "ON", SET, "";
    SqlRequirePrimaryKey = "sql_require_primary_key", Both, Bool, "OFF", SET, "";
    SqlSafeUpdates = "sql_safe_updates", Both, Bool, "OFF", SET, "";
    SqlSelectLimit = "sql_select_limit", Both, uint(u64::MAX), "18446744073709551615", SET, "";
    SqlWarnings = "sql_warnings", Both, Bool, "OFF", SET, "";
    SuperReadOnly = "super_read_only", Global, Bool, "OFF", SET, "";
    SyncBinlog = "sync_binlog", Global, Integer { min: 0, max: U32 }, "1", OPTION_SET,
        "fdatasync the binlog every N commit groups (0: leave it to the OS)";
    SystemTimeZone = "system_time_zone", Global, Text, "UTC", READ_ONLY, "";
    /// MariaDB's, printed by mariadb-binlog beside check_constraint_checks; no system-versioned
    /// tables here, so it changes nothing.
    SystemVersioningInsertHistory = "system_versioning_insert_history", Both, Bool, "OFF", SET,
        "";
    TableOpenCache = "table_open_cache", Global, uint(524_288), "4000", SET, "";
    ThreadCacheSize = "thread_cache_size", Global, uint(16384), "9", SET, "";
    TimeZone = "time_zone", Both, Text, "SYSTEM", SET, "";
    Timestamp = "timestamp", Session, Text, "0", SET, "";
    TlsVersion = "tls_version", Global, Text, "TLSv1.2,TLSv1.3", READ_ONLY, "";
    TransactionIsolation = "transaction_isolation", Both, Enum(ISOLATION), "REPEATABLE-READ", SET,
        "";
    TransactionReadOnly = "transaction_read_only", Both, Bool, "OFF", SET, "";
    TransactionWriteSetExtraction = "transaction_write_set_extraction", Both,
        Enum(&["OFF", "MURMUR32", "XXHASH64"]), "XXHASH64", READ_ONLY, "";
    TxIsolation = "tx_isolation", Both, Enum(ISOLATION), "REPEATABLE-READ", SET, "";
    TxReadOnly = "tx_read_only", Both, Bool, "OFF", SET, "";
    UniqueChecks = "unique_checks", Both, Bool, "ON", SET, "";
    Version = "version", Global, Text, VERSION, READ_ONLY, "";
    VersionComment = "version_comment", Global, Text, "binlogd", READ_ONLY, "";
    VersionCompileMachine = "version_compile_machine", Global, Text, "x86_64", READ_ONLY, "";
    VersionCompileOs = "version_compile_os", Global, Text, "Linux", READ_ONLY, "";
    WaitTimeout = "wait_timeout", Both, Integer { min: 1, max: 31_536_000 }, "28800", SET, "";
    WarningCount = "warning_count", Session, uint(u64::MAX), "0", READ_ONLY, "";
}

impl Var {
    /// Its row in the registry.
    pub fn def(self) -> &'static Variable {
        &VARIABLES[self as usize]
    }

    /// Its MySQL name.
    pub fn name(self) -> &'static str {
        self.def().name
    }
}

/// Who may set a variable's *session* value: mysqld lets every account set most session
/// values, but a few reach beyond the session (the binary log, replication, other
/// connections' view of the server). mysqld checks those with `check_session_admin`
/// (sql/sys_vars.cc, WL#12217, MySQL 8.0 manual "System Variable Privileges": "setting the
/// session value of these system variables is a restricted operation"), and `gtid_next` with
/// `check_gtid_next`, which also admits REPLICATION_APPLIER.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionSet {
    /// Any account.
    Anyone,
    /// SUPER, SYSTEM_VARIABLES_ADMIN or SESSION_VARIABLES_ADMIN (binlogd models SUPER).
    SessionAdmin,
    /// `gtid_next`: also REPLICATION_APPLIER (binlogd models SUPER).
    GtidNext,
}

impl SessionSet {
    /// The privileges mysqld's 1227 names.
    pub fn privilege_names(self) -> &'static str {
        match self {
            SessionSet::Anyone => "",
            SessionSet::SessionAdmin => "SUPER, SYSTEM_VARIABLES_ADMIN or SESSION_VARIABLES_ADMIN",
            SessionSet::GtidNext => {
                "SUPER, SYSTEM_VARIABLES_ADMIN, SESSION_VARIABLES_ADMIN or REPLICATION_APPLIER"
            }
        }
    }
}

impl Var {
    /// Who may set its session value (see [`SessionSet`]). Of mysqld's restricted session
    /// variables the registry holds these; the rest (`binlog_direct_non_transactional_updates`,
    /// `binlog_rows_query_log_events`, `original_commit_timestamp`, `pseudo_replica_mode`,
    /// `sql_log_off`, `rbr_exec_mode`, ...) are not variables of binlogd.
    pub fn session_set(self) -> SessionSet {
        match self {
            Var::GtidNext => SessionSet::GtidNext,
            Var::SqlLogBin
            | Var::BinlogFormat
            | Var::BinlogRowImage
            | Var::PseudoThreadId
            | Var::CharacterSetDatabase
            | Var::CollationDatabase
            | Var::ExplicitDefaultsForTimestamp
            | Var::SqlRequirePrimaryKey
            | Var::TransactionWriteSetExtraction => SessionSet::SessionAdmin,
            _ => SessionSet::Anyone,
        }
    }
}

/// The definition of `name` (case-insensitive).
pub fn lookup(name: &str) -> Option<&'static Variable> {
    let name = name.to_ascii_lowercase();
    VARIABLES.binary_search_by(|v| v.name.cmp(name.as_str())).ok().map(|i| &VARIABLES[i])
}

/// Converts `value` to what `def` stores, or MySQL's error for a bad value.
pub fn check(def: &Variable, value: &Value) -> Result<Value> {
    let text = || match value {
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        v => v.to_string(),
    };
    let wrong = || SqlError::WrongVariableValue { name: def.name.into(), value: text() };
    match def.ty {
        VarType::Bool => {
            let on = match value {
                Value::Int(0) | Value::UInt(0) => false,
                Value::Int(1) | Value::UInt(1) => true,
                Value::Bytes(_) => match text().to_ascii_uppercase().as_str() {
                    "ON" | "TRUE" | "1" => true,
                    "OFF" | "FALSE" | "0" => false,
                    _ => return Err(wrong()),
                },
                Value::Null => {
                    return Err(SqlError::WrongVariableValue {
                        name: def.name.into(),
                        value: "NULL".into(),
                    })
                }
                _ => return Err(wrong()),
            };
            Ok(Value::Int(i64::from(on)))
        }
        VarType::Integer { min, max } | VarType::Size { min, max } => {
            let n: i128 = match value {
                Value::Int(i) => i128::from(*i),
                Value::UInt(u) => i128::from(*u),
                Value::Bytes(_) => text()
                    .trim()
                    .parse::<i128>()
                    .map_err(|_| SqlError::WrongVariableType(def.name.into()))?,
                _ => return Err(SqlError::WrongVariableType(def.name.into())),
            };
            Ok(Value::UInt(n.clamp(i128::from(min), i128::from(max)) as u64))
        }
        VarType::Enum(options) => {
            let pick = match value {
                Value::Int(i) => usize::try_from(*i).ok().and_then(|i| options.get(i)),
                Value::UInt(u) => usize::try_from(*u).ok().and_then(|i| options.get(i)),
                Value::Bytes(_) => {
                    let t = text();
                    options.iter().find(|o| o.eq_ignore_ascii_case(t.trim()))
                }
                _ => None,
            };
            pick.map(|o| Value::Bytes(o.as_bytes().to_vec())).ok_or_else(wrong)
        }
        VarType::Text => match value {
            Value::Null => Ok(Value::Bytes(Vec::new())),
            Value::Bytes(b) => Ok(Value::Bytes(b.clone())),
            v => Ok(Value::Bytes(v.to_string().into_bytes())),
        },
    }
}

/// The text SHOW VARIABLES prints for a stored value.
pub fn show_text(def: &Variable, value: &Value) -> String {
    match (def.ty, value) {
        (VarType::Bool, Value::Int(0)) => "OFF".into(),
        (VarType::Bool, Value::Int(_)) => "ON".into(),
        (_, v) => v.to_string(),
    }
}

/// The global values, shared by all sessions, indexed by [`Var`].
#[derive(Debug)]
pub struct Variables {
    global: RwLock<Vec<Value>>,
    /// Advanced by every [`Variables::set_global`]: caches derived from values read through
    /// to the globals are valid for one generation (session_vars.rs).
    generation: std::sync::atomic::AtomicU64,
}

impl Variables {
    /// The defaults, with start-up overrides (`--name=value`; dashes and underscores are
    /// interchangeable). Read-only variables may be set here.
    pub fn new(overrides: &[(String, String)]) -> Result<Variables> {
        let mut global = Vec::with_capacity(VARIABLES.len());
        for d in VARIABLES {
            global.push(check(d, &Value::Bytes(d.default.as_bytes().to_vec()))?);
        }
        for (name, value) in overrides {
            let name = name.replace('-', "_");
            let d = lookup(&name).ok_or_else(|| SqlError::UnknownVariable(name.clone()))?;
            global[d.var as usize] = check(d, &Value::Bytes(value.as_bytes().to_vec()))?;
        }
        Ok(Variables {
            global: RwLock::new(global),
            generation: std::sync::atomic::AtomicU64::new(1),
        })
    }

    /// The global value of `var`.
    pub fn global(&self, var: Var) -> Value {
        self.global.read()[var as usize].clone()
    }

    /// Changes with every [`Variables::set_global`].
    pub fn generation(&self) -> u64 {
        self.generation.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Stores a checked global value.
    pub fn set_global(&self, var: Var, value: Value) {
        self.global.write()[var as usize] = value;
        self.generation.fetch_add(1, std::sync::atomic::Ordering::Release);
    }

    /// The session copies of session-scoped variables for a new session.
    pub fn session_defaults(&self) -> HashMap<Var, Value> {
        let g = self.global.read();
        VARIABLES
            .iter()
            .filter(|d| d.scope != Scope::Global)
            .map(|d| (d.var, g[d.var as usize].clone()))
            .collect()
    }
}

/// A successful SET GLOBAL, as a listener sees it: the variable's typed id and its new value,
/// already checked against the variable's type and range.
#[derive(Debug, Clone, Copy)]
pub struct Change<'a> {
    /// The variable.
    pub var: Var,
    /// Its new value: `Int` 0/1 for a boolean, `UInt` for an integer or size, `Bytes` with
    /// the canonical word for an enum, `Bytes` for text.
    pub value: &'a Value,
}

impl Change<'_> {
    /// An integer or size (a boolean as 0/1).
    pub fn number(&self) -> Option<u64> {
        match self.value {
            Value::Int(i) => u64::try_from(*i).ok(),
            Value::UInt(u) => Some(*u),
            _ => None,
        }
    }

    /// A boolean.
    pub fn on(&self) -> Option<bool> {
        self.number().map(|n| n != 0)
    }

    /// Text, or an enum's word.
    pub fn text(&self) -> Option<&str> {
        match self.value {
            Value::Bytes(b) => std::str::from_utf8(b).ok(),
            _ => None,
        }
    }
}

/// Told about every successful SET GLOBAL before it is stored (the commit pipeline's
/// configuration handle acts on `sync_binlog`, `binlog_group_commit_sync_delay`, ...; the
/// protocol's limits on `max_connections`, `max_allowed_packet`); each acts on the variables
/// it owns and passes the others on. An error refuses the change.
pub trait VariableListener: Send + Sync {
    /// `change` is about to become the global value.
    fn set_global(&self, change: Change<'_>) -> Result<()>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_is_sorted_and_ids_are_rows() {
        for (i, d) in VARIABLES.iter().enumerate() {
            assert_eq!(d.var as usize, i, "{}", d.name);
            assert_eq!(d.name, d.name.to_ascii_lowercase());
        }
        assert!(VARIABLES.windows(2).all(|w| w[0].name < w[1].name), "sorted by name");
        assert_eq!(lookup("SYNC_BINLOG").map(|d| d.var), Some(Var::SyncBinlog));
        assert_eq!(Var::ServerUuid.name(), "server_uuid");
        assert!(lookup("no_such").is_none());
    }

    #[test]
    fn defaults_are_values_of_their_type() {
        for d in VARIABLES {
            check(d, &Value::Bytes(d.default.as_bytes().to_vec()))
                .unwrap_or_else(|e| panic!("{}: {e}", d.name));
            if d.startup_option {
                d.ty.parse(d.default).unwrap_or_else(|e| panic!("{}: {e}", d.name));
            }
        }
    }
}
