//! Binlog administration: the statements are parsed here into typed [`AdminCommand`]s, run by
//! a [`BinlogAdmin`] that owns the binlog file set, and their answers are shaped into MySQL's
//! result sets by the executor (`show.rs`).
//!
//! [`NoBinlog`] is the administration of a server started without a binary log: MySQL's own
//! answers for `log_bin=OFF` (error 1381 for the file statements, an empty master status).

use engine::DateTime;

use super::error::{Result, SqlError};

/// A binlog administration statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AdminCommand {
    /// SHOW BINARY LOGS / SHOW MASTER LOGS.
    ShowBinaryLogs,
    /// SHOW MASTER STATUS / SHOW BINARY LOG STATUS.
    ShowMasterStatus,
    /// `SHOW BINLOG EVENTS [IN 'file'] [FROM pos] [LIMIT [offset,] count]`.
    ShowBinlogEvents { file: Option<String>, from: Option<u64>, offset: u64, limit: Option<u64> },
    /// FLUSH BINARY LOGS (and FLUSH LOGS).
    FlushBinaryLogs,
    /// PURGE BINARY|MASTER LOGS TO 'file'.
    PurgeTo(String),
    /// PURGE BINARY|MASTER LOGS BEFORE 'datetime'.
    PurgeBefore(DateTime),
    /// RESET MASTER / RESET BINARY LOGS AND GTIDS.
    ResetMaster,
    /// SHOW REPLICAS (8.0.22 column names) / SHOW SLAVE HOSTS (the older ones).
    ShowReplicas { old_names: bool },
}

/// One row of SHOW REPLICAS: a replica that registered (COM_REGISTER_SLAVE) and whose
/// connection is still there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplicaInfo {
    pub server_id: u32,
    /// The host the replica reported (`report_host`), possibly empty.
    pub host: String,
    pub port: u16,
    pub source_id: u32,
    /// `@replica_uuid` / `@slave_uuid` as the replica set it, possibly empty.
    pub uuid: String,
}

/// One row of SHOW BINARY LOGS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BinlogFileInfo {
    pub name: String,
    pub size: u64,
}

/// SHOW MASTER STATUS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MasterStatus {
    pub file: String,
    pub position: u64,
    pub executed_gtid_set: String,
}

/// One row of SHOW BINLOG EVENTS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BinlogEventInfo {
    pub log_name: String,
    pub pos: u64,
    pub event_type: String,
    pub server_id: u32,
    pub end_log_pos: u64,
    pub info: String,
}

/// The binlog file set, as the admin statements see it.
pub trait BinlogAdmin: Send + Sync {
    fn binary_logs(&self) -> Result<Vec<BinlogFileInfo>>;
    /// None when binary logging is off (the result set is then empty).
    fn master_status(&self) -> Result<Option<MasterStatus>>;
    /// Events of `file` (the first file if None) from position `from` (the first event if
    /// None), skipping `offset` events, at most `limit`.
    fn binlog_events(
        &self,
        file: Option<&str>,
        from: Option<u64>,
        offset: u64,
        limit: Option<u64>,
    ) -> Result<Vec<BinlogEventInfo>>;
    fn flush_binary_logs(&self) -> Result<()>;
    fn purge_to(&self, file: &str) -> Result<()>;
    fn purge_before(&self, before: DateTime) -> Result<()>;
    fn reset_master(&self) -> Result<()>;
    /// `@@global.gtid_executed` (a GTID set in text form).
    fn gtid_executed(&self) -> String;
    /// Runs `take` (which takes an engine read view) while no commit becomes visible, and
    /// returns the binlog position and GTID set that view matches exactly; None (after
    /// running `take`) without a binary log.
    fn consistent_snapshot(&self, take: &mut dyn FnMut()) -> Option<MasterStatus> {
        take();
        None
    }
    /// `@@global.gtid_purged`.
    fn gtid_purged(&self) -> String;
    /// The registered replicas (SHOW REPLICAS); none without a replication source.
    fn replicas(&self) -> Vec<ReplicaInfo> {
        Vec::new()
    }
}

/// MySQL's "You are not using binary logging" (ER_NO_BINARY_LOGGING).
pub fn no_binary_logging() -> SqlError {
    SqlError::Other {
        code: 1381,
        sqlstate: "HY000",
        message: "You are not using binary logging".into(),
    }
}

/// The administration of a server without a binary log.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoBinlog;

impl BinlogAdmin for NoBinlog {
    fn binary_logs(&self) -> Result<Vec<BinlogFileInfo>> {
        Err(no_binary_logging())
    }
    fn master_status(&self) -> Result<Option<MasterStatus>> {
        Ok(None)
    }
    fn binlog_events(
        &self,
        _: Option<&str>,
        _: Option<u64>,
        _: u64,
        _: Option<u64>,
    ) -> Result<Vec<BinlogEventInfo>> {
        Ok(Vec::new())
    }
    fn flush_binary_logs(&self) -> Result<()> {
        // mysqld with log_bin=OFF answers FLUSH BINARY LOGS with OK.
        Ok(())
    }
    fn purge_to(&self, _: &str) -> Result<()> {
        Err(no_binary_logging())
    }
    fn purge_before(&self, _: DateTime) -> Result<()> {
        Err(no_binary_logging())
    }
    fn reset_master(&self) -> Result<()> {
        Err(no_binary_logging())
    }
    fn gtid_executed(&self) -> String {
        String::new()
    }
    fn gtid_purged(&self) -> String {
        String::new()
    }
}

/// Supplies SHOW STATUS values owned by other layers (commit pipeline counters, connection
/// counts, uptime). The SQL layer adds its own `Com_*` and `Questions` counters.
pub trait StatusProvider: Send + Sync {
    /// (name, value) pairs of global status variables.
    fn global_status(&self) -> Vec<(String, String)>;
}

/// A provider with nothing to add.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoStatus;

impl StatusProvider for NoStatus {
    fn global_status(&self) -> Vec<(String, String)> {
        Vec::new()
    }
}
