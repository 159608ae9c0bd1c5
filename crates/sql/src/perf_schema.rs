//! `performance_schema.log_status` (mysqld 8.0's `table_log_status`, storage/perfschema/
//! table_log_status.cc): one row naming, at one moment, the server's UUID, the binary log's
//! position and `gtid_executed` (LOCAL), the replication channels (REPLICATION) and the storage
//! engine's redo position (STORAGE_ENGINES), for backup tools that copy the logs.
//!
//! Invariants: LOCAL is SHOW BINARY LOG STATUS's row (the commit layer's published position,
//! so it never names a transaction a new snapshot cannot see: docs/commit.md "Visibility
//! publication"); reading it needs SELECT on the table and BACKUP_ADMIN (checked in
//! `acl.rs`; RELOAD stands in for the dynamic privilege, as for LOCK INSTANCE FOR BACKUP).
//! The JSON documents are built with serde_json (well-kept; no hand-escaping).

use std::sync::Arc;

use engine::{Column, ColumnType, TableSchema, Value};

use super::information_schema::MadeUp;
use super::session::Session;
use super::vars::Var;

/// True if `t` names performance_schema.log_status.
pub(crate) fn is_log_status(sess: &Session, t: &super::ast::TableRef) -> bool {
    t.db.as_deref()
        .or(sess.database())
        .is_some_and(|db| db.eq_ignore_ascii_case("performance_schema"))
        && t.name.eq_ignore_ascii_case("log_status")
}

/// The table's definition and its one row.
pub(crate) fn log_status(sess: &Session) -> MadeUp {
    let columns = vec![
        Column::new("SERVER_UUID", ColumnType::Char(36)).not_null(),
        Column::new("LOCAL", ColumnType::Json).not_null(),
        Column::new("REPLICATION", ColumnType::Json).not_null(),
        Column::new("STORAGE_ENGINES", ColumnType::Json).not_null(),
    ];
    let uuid = match sess.variable(Var::ServerUuid) {
        Value::Bytes(b) => String::from_utf8_lossy(&b).into_owned(),
        other => other.to_string(),
    };
    let admin = &sess.server.hooks.admin;
    let mut local = serde_json::Map::new();
    local.insert("gtid_executed".into(), admin.gtid_executed().into());
    // Without a binary log mysqld leaves the file and position out.
    if let Ok(Some(m)) = admin.master_status() {
        local.insert("binary_log_file".into(), m.file.into());
        local.insert("binary_log_position".into(), m.position.into());
    }
    let stats = sess.server.engine.stats();
    let innodb = serde_json::json!({
        "LSN": stats.flushed_lsn.0,
        "LSN_checkpoint": stats.checkpoint_lsn.0,
    });
    let json = |v: serde_json::Value| Value::Bytes(v.to_string().into_bytes());
    let row = vec![
        Value::Bytes(uuid.into_bytes()),
        json(serde_json::Value::Object(local)),
        json(serde_json::json!({ "channels": [] })),
        json(serde_json::json!({ "InnoDB": innodb })),
    ];
    (Arc::new(TableSchema::new("performance_schema.log_status", columns, vec![])), vec![row])
}
