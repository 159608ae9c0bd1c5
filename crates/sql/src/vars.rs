//! System variables: MySQL's names, scopes, types and defaults.
//!
//! The registry is a static table ([`VARIABLES`]). Global values live in [`Variables`] (shared);
//! each session copies the global values of session-scoped variables when it opens, as mysqld
//! does, so a later SET GLOBAL changes new sessions only. A few variables are answered from
//! live state instead of the table (`autocommit`, `gtid_next`, `last_insert_id`,
//! `gtid_executed`, `warning_count`, ...): the session resolves those itself.
//!
//! Values are stored as engine values: booleans and integers as `Int`/`UInt`, everything else
//! as `Bytes`. SHOW VARIABLES prints booleans as ON/OFF, `SELECT @@x` returns them as 1/0.

use std::collections::HashMap;

use engine::Value;
use parking_lot::RwLock;

use super::error::{Result, SqlError};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Global,
    Session,
    Both,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Bool,
    /// Unsigned integer with bounds (values are clamped into them, as mysqld does).
    UInt {
        min: u64,
        max: u64,
    },
    Str,
    Enum(&'static [&'static str]),
}

/// One system variable.
#[derive(Debug, Clone, Copy)]
pub struct VarDef {
    pub name: &'static str,
    pub scope: Scope,
    pub kind: Kind,
    pub default: &'static str,
    /// Settable only at start (`--name=value`), not with SET.
    pub read_only: bool,
}

const fn var(name: &'static str, scope: Scope, kind: Kind, default: &'static str) -> VarDef {
    VarDef { name, scope, kind, default, read_only: false }
}

const fn ro(name: &'static str, scope: Scope, kind: Kind, default: &'static str) -> VarDef {
    VarDef { name, scope, kind, default, read_only: true }
}

const fn uint(max: u64) -> Kind {
    Kind::UInt { min: 0, max }
}

const U32: u64 = u32::MAX as u64;
const ISOLATION: &[&str] =
    &["READ-UNCOMMITTED", "READ-COMMITTED", "REPEATABLE-READ", "SERIALIZABLE"];
const ON_OFF: Kind = Kind::Bool;
const STR: Kind = Kind::Str;

use Scope::{Both, Global, Session};

/// The MySQL version string clients see; an 8.0 version keeps connectors on their 8.0 paths.
/// The same string is in the handshake and in every binlog file's FORMAT_DESCRIPTION.
pub const VERSION: &str = binlog::files::SERVER_VERSION;

/// Every system variable the server knows.
pub static VARIABLES: &[VarDef] = &[
    // Identity and connection.
    ro("version", Global, STR, VERSION),
    ro("version_comment", Global, STR, "binlogd"),
    ro("version_compile_os", Global, STR, "Linux"),
    ro("version_compile_machine", Global, STR, "x86_64"),
    ro("protocol_version", Global, uint(U32), "10"),
    ro("license", Global, STR, "Apache-2.0"),
    ro("hostname", Global, STR, "localhost"),
    ro("port", Global, uint(65535), "3306"),
    ro("bind_address", Global, STR, "127.0.0.1"),
    ro("datadir", Global, STR, ""),
    ro("basedir", Global, STR, ""),
    ro("socket", Global, STR, ""),
    var("server_id", Global, uint(U32), "1"),
    ro("server_uuid", Global, STR, ""),
    var("max_connections", Global, Kind::UInt { min: 1, max: 100_000 }, "151"),
    var("max_allowed_packet", Both, Kind::UInt { min: 1024, max: 1 << 30 }, "67108864"),
    var("net_buffer_length", Both, Kind::UInt { min: 1024, max: 1 << 20 }, "16384"),
    var("wait_timeout", Both, Kind::UInt { min: 1, max: 31_536_000 }, "28800"),
    var("interactive_timeout", Both, Kind::UInt { min: 1, max: 31_536_000 }, "28800"),
    var("net_write_timeout", Both, Kind::UInt { min: 1, max: 31_536_000 }, "60"),
    var("net_read_timeout", Both, Kind::UInt { min: 1, max: 31_536_000 }, "30"),
    var("connect_timeout", Global, Kind::UInt { min: 2, max: 31_536_000 }, "10"),
    var("init_connect", Global, STR, ""),
    ro("performance_schema", Global, ON_OFF, "OFF"),
    ro("have_ssl", Global, STR, "YES"),
    ro("have_openssl", Global, STR, "YES"),
    ro("tls_version", Global, STR, "TLSv1.2,TLSv1.3"),
    ro("skip_networking", Global, ON_OFF, "OFF"),
    ro("skip_name_resolve", Global, ON_OFF, "ON"),
    var("default_authentication_plugin", Global, STR, "caching_sha2_password"),
    var("read_only", Global, ON_OFF, "OFF"),
    var("super_read_only", Global, ON_OFF, "OFF"),
    // Character sets and time.
    var("character_set_client", Both, STR, "utf8mb4"),
    var("character_set_connection", Both, STR, "utf8mb4"),
    var("character_set_results", Both, STR, "utf8mb4"),
    var("character_set_server", Both, STR, "utf8mb4"),
    var("character_set_database", Both, STR, "utf8mb4"),
    ro("character_set_system", Global, STR, "utf8mb3"),
    var("character_set_filesystem", Both, STR, "binary"),
    var("collation_connection", Both, STR, "utf8mb4_0900_ai_ci"),
    var("collation_server", Both, STR, "utf8mb4_0900_ai_ci"),
    var("collation_database", Both, STR, "utf8mb4_0900_ai_ci"),
    ro("lower_case_table_names", Global, uint(2), "2"),
    ro("system_time_zone", Global, STR, "UTC"),
    var("time_zone", Both, STR, "SYSTEM"),
    // SQL behaviour.
    var("autocommit", Both, ON_OFF, "ON"),
    var(
        "sql_mode",
        Both,
        STR,
        "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION",
    ),
    var("transaction_isolation", Both, Kind::Enum(ISOLATION), "REPEATABLE-READ"),
    var("tx_isolation", Both, Kind::Enum(ISOLATION), "REPEATABLE-READ"),
    var("transaction_read_only", Both, ON_OFF, "OFF"),
    var("tx_read_only", Both, ON_OFF, "OFF"),
    var("sql_auto_is_null", Both, ON_OFF, "OFF"),
    var("sql_safe_updates", Both, ON_OFF, "OFF"),
    var("sql_select_limit", Both, uint(u64::MAX), "18446744073709551615"),
    var("sql_notes", Both, ON_OFF, "ON"),
    var("sql_warnings", Both, ON_OFF, "OFF"),
    var("sql_log_bin", Session, ON_OFF, "ON"),
    // SHOW CREATE USER prints a hash with unprintable bytes as 0x... (mysqld 8.0.17).
    var("print_identified_with_as_hex", Both, ON_OFF, "OFF"),
    var("sql_require_primary_key", Both, ON_OFF, "OFF"),
    var("foreign_key_checks", Both, ON_OFF, "ON"),
    var("unique_checks", Both, ON_OFF, "ON"),
    var("auto_increment_increment", Both, Kind::UInt { min: 1, max: 65535 }, "1"),
    var("auto_increment_offset", Both, Kind::UInt { min: 1, max: 65535 }, "1"),
    var("div_precision_increment", Both, uint(30), "4"),
    var("group_concat_max_len", Both, Kind::UInt { min: 4, max: u64::MAX }, "1024"),
    var("max_execution_time", Both, uint(U32), "0"),
    var("lock_wait_timeout", Both, Kind::UInt { min: 1, max: 31_536_000 }, "31536000"),
    var("innodb_lock_wait_timeout", Both, Kind::UInt { min: 1, max: 1_073_741_824 }, "50"),
    ro("explicit_defaults_for_timestamp", Both, ON_OFF, "ON"),
    var("default_storage_engine", Both, STR, "InnoDB"),
    var("session_track_gtids", Both, Kind::Enum(&["OFF", "OWN_GTID", "ALL_GTIDS"]), "OFF"),
    var("session_track_schema", Both, ON_OFF, "ON"),
    var("session_track_state_change", Both, ON_OFF, "OFF"),
    var(
        "session_track_system_variables",
        Both,
        STR,
        "time_zone,autocommit,character_set_client,character_set_results,character_set_connection",
    ),
    ro("query_cache_size", Global, uint(u64::MAX), "0"),
    ro("query_cache_type", Global, STR, "OFF"),
    var("table_open_cache", Global, uint(524_288), "4000"),
    var("thread_cache_size", Global, uint(16384), "9"),
    var("max_connect_errors", Global, uint(u64::MAX), "100"),
    var("event_scheduler", Global, STR, "OFF"),
    // Binary log and commit (docs/design-brief.md).
    ro("log_bin", Global, ON_OFF, "ON"),
    ro("log_bin_basename", Global, STR, ""),
    ro("log_bin_index", Global, STR, ""),
    var("binlog_format", Both, Kind::Enum(&["ROW", "STATEMENT", "MIXED"]), "ROW"),
    var("binlog_row_image", Both, Kind::Enum(&["FULL", "MINIMAL", "NOBLOB"]), "FULL"),
    var("binlog_row_metadata", Global, Kind::Enum(&["MINIMAL", "FULL"]), "MINIMAL"),
    var("binlog_checksum", Global, Kind::Enum(&["NONE", "CRC32"]), "CRC32"),
    var("max_binlog_size", Global, Kind::UInt { min: 4096, max: 1 << 30 }, "1073741824"),
    var("binlog_cache_size", Global, Kind::UInt { min: 4096, max: u64::MAX }, "32768"),
    var("max_binlog_cache_size", Global, Kind::UInt { min: 4096, max: u64::MAX }, "18446744073709547520"),
    var("sync_binlog", Global, uint(U32), "1"),
    var("binlog_order_commits", Global, ON_OFF, "ON"),
    var("binlog_max_flush_queue_time", Global, uint(100_000), "0"),
    var("binlog_group_commit_sync_delay", Global, uint(1_000_000), "0"),
    var("binlog_group_commit_sync_no_delay_count", Global, uint(100_000), "0"),
    var(
        "binlog_transaction_dependency_tracking",
        Global,
        Kind::Enum(&["COMMIT_ORDER", "WRITESET", "WRITESET_SESSION"]),
        "COMMIT_ORDER",
    ),
    var("binlog_transaction_dependency_history_size", Global, Kind::UInt { min: 1, max: 1_000_000 }, "25000"),
    ro("transaction_write_set_extraction", Both, Kind::Enum(&["OFF", "MURMUR32", "XXHASH64"]), "XXHASH64"),
    var("binlog_preallocate", Global, ON_OFF, "ON"),
    ro("binlog_in_redo", Global, ON_OFF, "OFF"),
    var("binlog_expire_logs_seconds", Global, uint(U32), "2592000"),
    ro("log_replica_updates", Global, ON_OFF, "ON"),
    ro("log_slave_updates", Global, ON_OFF, "ON"),
    // The replica applier reads these at START REPLICA (MySQL 8.0.27+ defaults).
    var("replica_parallel_workers", Global, uint(1024), "4"),
    var("replica_preserve_commit_order", Global, ON_OFF, "ON"),
    var(
        "gtid_mode",
        Global,
        Kind::Enum(&["OFF", "OFF_PERMISSIVE", "ON_PERMISSIVE", "ON"]),
        "ON",
    ),
    var("enforce_gtid_consistency", Global, Kind::Enum(&["OFF", "ON", "WARN"]), "ON"),
    var("gtid_next", Session, STR, "AUTOMATIC"),
    ro("gtid_executed", Global, STR, ""),
    var("gtid_purged", Global, STR, ""),
    var("innodb_flush_log_at_trx_commit", Global, uint(2), "1"),
    // Start-up only, as in MySQL (its value comes from the config; see config.rs).
    ro("innodb_flush_method", Global, Kind::Enum(&engine::RedoFlushMethod::NAMES), "O_DSYNC"),
    ro("innodb_buffer_pool_size", Global, uint(u64::MAX), "134217728"),
    // Live session state (answered by the session, listed here for SHOW VARIABLES).
    var("last_insert_id", Session, uint(u64::MAX), "0"),
    var("identity", Session, uint(u64::MAX), "0"),
    var("insert_id", Session, uint(u64::MAX), "0"),
    var("timestamp", Session, STR, "0"),
    ro("warning_count", Session, uint(u64::MAX), "0"),
    ro("error_count", Session, uint(u64::MAX), "0"),
    var("pseudo_thread_id", Session, uint(u64::MAX), "0"),
];

/// The definition of `name` (case-insensitive).
pub fn lookup(name: &str) -> Option<&'static VarDef> {
    VARIABLES.iter().find(|d| d.name.eq_ignore_ascii_case(name))
}

/// Converts `value` to what `def` stores, or MySQL's error for a bad value.
pub fn check(def: &VarDef, value: &Value) -> Result<Value> {
    let text = || match value {
        Value::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        v => v.to_string(),
    };
    let wrong = || SqlError::WrongVariableValue { name: def.name.into(), value: text() };
    match def.kind {
        Kind::Bool => {
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
        Kind::UInt { min, max } => {
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
        Kind::Enum(options) => {
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
        Kind::Str => match value {
            Value::Null => Ok(Value::Bytes(Vec::new())),
            Value::Bytes(b) => Ok(Value::Bytes(b.clone())),
            v => Ok(Value::Bytes(v.to_string().into_bytes())),
        },
    }
}

/// The text SHOW VARIABLES prints for a stored value.
pub fn show_text(def: &VarDef, value: &Value) -> String {
    match (def.kind, value) {
        (Kind::Bool, Value::Int(0)) => "OFF".into(),
        (Kind::Bool, Value::Int(_)) => "ON".into(),
        (_, v) => v.to_string(),
    }
}

/// The global values, shared by all sessions.
#[derive(Debug)]
pub struct Variables {
    global: RwLock<HashMap<&'static str, Value>>,
}

impl Variables {
    /// The defaults, with start-up overrides (`--name=value`; dashes and underscores are
    /// interchangeable). Read-only variables may be set here.
    pub fn new(overrides: &[(String, String)]) -> Result<Variables> {
        let mut global = HashMap::with_capacity(VARIABLES.len());
        for d in VARIABLES {
            global.insert(d.name, check(d, &Value::Bytes(d.default.as_bytes().to_vec()))?);
        }
        for (name, value) in overrides {
            let name = name.replace('-', "_");
            let d = lookup(&name).ok_or_else(|| SqlError::UnknownVariable(name.clone()))?;
            global.insert(d.name, check(d, &Value::Bytes(value.as_bytes().to_vec()))?);
        }
        Ok(Variables { global: RwLock::new(global) })
    }

    pub fn global(&self, def: &VarDef) -> Value {
        self.global.read().get(def.name).cloned().unwrap_or(Value::Null)
    }

    pub fn set_global(&self, def: &'static VarDef, value: Value) {
        self.global.write().insert(def.name, value);
    }

    /// The session copies of session-scoped variables for a new session.
    pub fn session_defaults(&self) -> HashMap<&'static str, Value> {
        let g = self.global.read();
        VARIABLES
            .iter()
            .filter(|d| d.scope != Scope::Global)
            .map(|d| (d.name, g.get(d.name).cloned().unwrap_or(Value::Null)))
            .collect()
    }
}

/// Told about every successful SET GLOBAL (the commit pipeline's configuration handle
/// listens to `sync_binlog`, `binlog_group_commit_sync_delay`, ...). An error refuses the
/// change.
pub trait VariableListener: Send + Sync {
    fn set_global(&self, name: &str, value: &Value) -> Result<()>;
}
