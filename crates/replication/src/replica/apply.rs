//! One replicated transaction: its events grouped from the relay log ([`TxnEvents`]), and
//! its application to the engine ([`apply_rows`]) as MySQL's row applier does it through the
//! handler API (`Rows_log_event::do_apply_event`): WRITE_ROWS inserts the after image,
//! UPDATE_ROWS and DELETE_ROWS find the row by the before image's primary key (by a scan
//! comparing the whole image for a table without one) and replace or remove it.
//!
//! The applied rows are encoded again into a binlog cache for the replica's own binlog
//! (`log_replica_updates=ON`), so the commit with the source's GTID makes the data, the GTID
//! in `gtid_executed` and the replica's binlog durable together (2PC), which is what makes the
//! replica crash-safe.

use std::collections::HashMap;
use std::ops::Bound;
use std::sync::Arc;

use binlog::event::{LogicalClock, RowsKind, Value as BinValue};
use binlog::gtid::Gtid;
use commit::{BinlogCache, Coordinator};
use engine::{Engine, Row, TableId, TableSchema, Txn, Value};
use sql::foreign_keys;

/// Why a transaction could not be applied (Last_SQL_Errno / Last_SQL_Error).
#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    /// The relay log names a table the replica does not have (MySQL's 1146).
    #[error("Table '{db}.{table}' doesn't exist")]
    NoSuchTable { db: String, table: String },
    /// A row to update or delete is not on the replica (MySQL's HA_ERR_KEY_NOT_FOUND, 1032).
    #[error(
        "Could not execute {kind} event on table {db}.{table}; Can't find record in '{table}'"
    )]
    RowNotFound { kind: &'static str, db: String, table: String },
    /// A value or row image the replica cannot map onto its table.
    #[error("Column {column} of table '{db}.{table}' cannot be converted: {why}")]
    Conversion { db: String, table: String, column: usize, why: String },
    #[error(transparent)]
    Engine(#[from] engine::Error),
    #[error(transparent)]
    Commit(#[from] commit::Error),
    /// A row event refused by a foreign key (1451, 1452, 3008: mysqld's applier reports the
    /// handler error of `Rows_log_event::do_apply_event` this way).
    #[error("Could not execute {kind} event on table {db}.{table}; {message}, Error_code: {code}")]
    Rows { kind: &'static str, db: String, table: String, code: u16, message: String },
    /// DDL failed in the SQL layer.
    #[error("Error '{message}' on query. Default database: '{db}'. Query: '{query}'")]
    Ddl { code: u16, message: String, db: String, query: String },
    /// The relay log could not be read or decoded.
    #[error("Relay log read failure: {0}")]
    Relay(String),
}

impl ApplyError {
    /// The MySQL error number shown as Last_SQL_Errno.
    pub fn code(&self) -> u16 {
        match self {
            ApplyError::NoSuchTable { .. } => 1146,
            ApplyError::RowNotFound { .. } => 1032,
            ApplyError::Conversion { .. } => 13146, // ER_REPLICA_CONVERSION_FAILED
            ApplyError::Engine(e) => e.mysql_code(),
            ApplyError::Commit(e) => e.mysql_code(),
            ApplyError::Ddl { code, .. } | ApplyError::Rows { code, .. } => *code,
            ApplyError::Relay(_) => 13121, // ER_REPLICA_RELAY_LOG_READ_FAILURE
        }
    }
}

/// One row change of a transaction, as decoded from its ROWS event.
#[derive(Debug, Clone)]
pub struct RowOp {
    pub db: String,
    pub table: String,
    pub kind: RowsKind,
    pub before: Option<Vec<BinValue>>,
    pub after: Option<Vec<BinValue>>,
    /// The event did not carry `NO_FOREIGN_KEY_CHECKS_F`: the source changed the row with
    /// `foreign_key_checks=1`, so the replica checks its constraints and runs their actions.
    pub fk_checks: bool,
}

/// What a transaction does.
#[derive(Debug, Clone)]
pub enum Body {
    /// Row changes (BEGIN … XID).
    Rows(Vec<RowOp>),
    /// One DDL statement run in database `db`.
    Ddl { db: String, query: String },
}

/// A whole transaction from the relay log.
#[derive(Debug, Clone)]
pub struct TxnEvents {
    pub gtid: Gtid,
    /// last_committed / sequence_number of the source's group commit.
    pub clock: Option<LogicalClock>,
    /// When the source committed it (original or immediate commit timestamp), µs since the
    /// epoch; 0 if the GTID event did not say.
    pub commit_ts_us: u64,
    pub body: Body,
}

/// A transaction applied in the engine, ready to commit with its GTID.
pub struct Applied {
    pub txn: Txn,
    pub cache: BinlogCache,
}

/// Engine tables by lower-cased `db.table`, resolved once per transaction.
struct Tables<'a> {
    engine: &'a Engine,
    found: HashMap<(String, String), (TableId, Arc<TableSchema>, TableSchema)>,
}

impl<'a> Tables<'a> {
    fn get(
        &mut self,
        db: &str,
        table: &str,
    ) -> Result<&(TableId, Arc<TableSchema>, TableSchema), ApplyError> {
        let key = (db.to_string(), table.to_string());
        if !self.found.contains_key(&key) {
            let full = format!("{db}.{table}").to_ascii_lowercase();
            let schema = self
                .engine
                .tables()
                .into_iter()
                .find(|s| s.name.to_ascii_lowercase() == full)
                .ok_or_else(|| ApplyError::NoSuchTable { db: db.into(), table: table.into() })?;
            // The cache names tables by their table name alone (TABLE_MAP carries db apart).
            let mut named = schema.as_ref().clone();
            named.name = table.to_string();
            self.found.insert(key.clone(), (schema.id, schema, named));
        }
        Ok(&self.found[&key])
    }
}

/// Applies `ops` in a new engine transaction and encodes them into a cache for the replica's
/// binlog. On error the engine transaction is rolled back.
pub fn apply_rows(coordinator: &Coordinator<Engine>, ops: &[RowOp]) -> Result<Applied, ApplyError> {
    let engine = coordinator.engine();
    let db = ops.first().map(|o| o.db.clone()).unwrap_or_default();
    let mut txn = engine.begin();
    let mut cache = coordinator.new_cache(&db);
    let mut tables = Tables { engine, found: HashMap::new() };
    for op in ops {
        if let Err(e) = apply_one(engine, &mut tables, &mut txn, &mut cache, op) {
            let _ = engine.rollback(txn);
            return Err(e);
        }
    }
    Ok(Applied { txn, cache })
}

fn apply_one(
    engine: &Engine,
    tables: &mut Tables<'_>,
    txn: &mut Txn,
    cache: &mut BinlogCache,
    op: &RowOp,
) -> Result<(), ApplyError> {
    let (id, schema, named) = tables.get(&op.db, &op.table)?;
    let (id, schema, named) = (*id, schema.clone(), named.clone());
    let convert = |image: &Option<Vec<BinValue>>| -> Result<Row, ApplyError> {
        let values = image.as_ref().ok_or_else(|| ApplyError::Conversion {
            db: op.db.clone(),
            table: op.table.clone(),
            column: 0,
            why: "row image missing".into(),
        })?;
        to_engine_row(&schema, values).map_err(|(column, why)| ApplyError::Conversion {
            db: op.db.clone(),
            table: op.table.clone(),
            column,
            why,
        })
    };
    let not_found =
        |kind| ApplyError::RowNotFound { kind, db: op.db.clone(), table: op.table.clone() };
    let fk_error = |kind: &'static str, e: sql::SqlError| match e {
        sql::SqlError::Engine(e) => ApplyError::Engine(e),
        e => ApplyError::Rows {
            kind,
            db: op.db.clone(),
            table: op.table.clone(),
            code: e.code(),
            message: e.to_string(),
        },
    };
    // Foreign keys: the checks and referential actions the SQL write path runs, unless the
    // source changed the row with foreign_key_checks=0 (InnoDB's `trx->check_foreigns`).
    let children = if op.fk_checks { engine.referencing(&schema.name) } else { Vec::new() };
    let child_checks = op.fk_checks && !schema.foreign_keys.is_empty();
    cache.set_foreign_key_checks(op.fk_checks);
    match op.kind {
        RowsKind::Write => {
            let row = convert(&op.after)?;
            let ins = engine.insert(txn, id, row.clone())?;
            if child_checks {
                let stored = engine.get(txn, id, &ins.key)?.unwrap_or_else(|| row.clone());
                let mut w = ApplierFk { engine, txn };
                foreign_keys::check_child(&mut w, &schema, None, &stored)
                    .map_err(|e| fk_error("Write_rows", e))?;
            }
            cache.insert(&named, &row)?;
        }
        RowsKind::Update => {
            let before = convert(&op.before)?;
            let after = convert(&op.after)?;
            let key = find_key(engine, txn, id, &schema, &before)?
                .ok_or_else(|| not_found("Update_rows"))?;
            if !children.is_empty() {
                let current = engine.get(txn, id, &key)?.ok_or_else(|| not_found("Update_rows"))?;
                let mut new = after.clone();
                schema.normalize_row(&mut new)?;
                let mut w = ApplierFk { engine, txn };
                foreign_keys::parent_change(&mut w, &schema, &current, Some(&new), 0)
                    .map_err(|e| fk_error("Update_rows", e))?;
            }
            if !engine.update(txn, id, &key, after.clone())? {
                return Err(not_found("Update_rows"));
            }
            if child_checks {
                let mut new = after.clone();
                schema.normalize_row(&mut new)?;
                let mut w = ApplierFk { engine, txn };
                foreign_keys::check_child(&mut w, &schema, Some(&before), &new)
                    .map_err(|e| fk_error("Update_rows", e))?;
            }
            cache.update(&named, &before, &after)?;
        }
        RowsKind::Delete => {
            let before = convert(&op.before)?;
            let key = find_key(engine, txn, id, &schema, &before)?
                .ok_or_else(|| not_found("Delete_rows"))?;
            if !children.is_empty() {
                let current = engine.get(txn, id, &key)?.ok_or_else(|| not_found("Delete_rows"))?;
                let mut w = ApplierFk { engine, txn };
                foreign_keys::parent_change(&mut w, &schema, &current, None, 0)
                    .map_err(|e| fk_error("Delete_rows", e))?;
            }
            if !engine.delete(txn, id, &key)? {
                return Err(not_found("Delete_rows"));
            }
            cache.delete(&named, &before)?;
        }
    }
    Ok(())
}

/// The applier's side of [`foreign_keys::FkWriter`]: rows changed by referential actions go
/// to the engine transaction only. They are not logged in the replica's binlog (as mysqld:
/// a replica of the replica runs the actions itself), and need no statement undo: an error
/// rolls the whole transaction back.
struct ApplierFk<'a> {
    engine: &'a Engine,
    txn: &'a mut Txn,
}

impl foreign_keys::FkWriter for ApplierFk<'_> {
    fn fk_txn(&mut self) -> Result<(Engine, &mut Txn), sql::SqlError> {
        Ok((self.engine.clone(), self.txn))
    }

    fn fk_record(
        &mut self,
        _table: TableId,
        _schema: &Arc<TableSchema>,
        _before: Row,
        _after: Option<Row>,
        _key_after: Option<engine::Key>,
    ) {
    }
}

/// The clustered key of the row the before image describes: from its primary key, or (a
/// table without one) by scanning for a row equal to the whole image, as MySQL does.
fn find_key(
    engine: &Engine,
    txn: &Txn,
    id: TableId,
    schema: &TableSchema,
    before: &Row,
) -> Result<Option<Vec<u8>>, ApplyError> {
    if !schema.primary_key.is_empty() {
        let pk: Vec<Value> = schema.primary_key.iter().map(|&i| before[i].clone()).collect();
        return Ok(Some(schema.key_of_values(&schema.primary_key, &pk).to_vec()));
    }
    let rows = engine.scan(txn, id, Bound::Unbounded, Bound::Unbounded, usize::MAX)?;
    Ok(rows.into_iter().find(|(_, row)| row == before).map(|(k, _)| k.to_vec()))
}

/// Converts a full row image to the engine's values (the SQL layer's, shared with its
/// `BINLOG '…'` statement).
pub use sql::rowimage::to_engine_row;

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{Column, ColumnType};

    #[test]
    fn values_convert_by_column_type() {
        let schema = TableSchema::new(
            "d.t",
            vec![
                Column::new("a", ColumnType::Integer { bytes: 4, unsigned: false }),
                Column::new("b", ColumnType::Integer { bytes: 1, unsigned: true }),
                Column::new("c", ColumnType::VarChar(10)),
                Column::new("d", ColumnType::Decimal { precision: 10, scale: 2 }),
            ],
            vec![0],
        );
        let row = to_engine_row(
            &schema,
            &[
                BinValue::Int(-5),
                BinValue::Int(-1),
                BinValue::Bytes(b"x".to_vec()),
                BinValue::Decimal("-1.50".into()),
            ],
        )
        .expect("converts");
        assert_eq!(row[0], Value::Int(-5));
        assert_eq!(row[1], Value::UInt(255));
        assert_eq!(row[2], Value::Bytes(b"x".to_vec()));
        assert!(matches!(row[3], Value::Decimal(d) if d == engine::Decimal::new(-150, 2)));
        let short = to_engine_row(&schema, &[BinValue::Int(1)]).expect_err("short image");
        assert!(short.1.contains("full row images"));
        let wrong = to_engine_row(
            &schema,
            &[BinValue::Bytes(vec![]), BinValue::Null, BinValue::Null, BinValue::Null],
        )
        .expect_err("bytes into an integer");
        assert_eq!(wrong.0, 0);
    }
}
