//! `CREATE TABLE t [(definitions)] [options] [IGNORE | REPLACE] [AS] SELECT ...`
//! (mysqld's `select_create`, sql/sql_insert.cc, and `create_table_from_items`).
//!
//! The SELECT runs first, to completion, with shared locks on the rows it reads (as INSERT
//! ... SELECT reads its source). The new table's columns are the CREATE part's, then one per
//! SELECT column whose name the CREATE part does not define (mysqld's rule: a column named
//! in both keeps the CREATE part's definition and gets the SELECT's values). A SELECT column
//! is typed as mysqld's `Create_field` from the item: a column read from a table keeps its
//! source column's definition (type, length, character set and collation, NULL-ability,
//! DEFAULT; not AUTO_INCREMENT, not keys), an expression gets the type of its result column
//! (the same metadata the protocol sends: integers by their type code, DECIMAL(p,s) from the
//! display length, strings as VARCHAR(n) in their collation or TEXT past 512 characters,
//! NULL as BINARY(0), NOT NULL when the expression cannot be NULL).
//!
//! Atomicity (MySQL 8.0.21+, WL#13355): the table and its rows are one engine DDL step
//! (`Engine::create_table_with_rows_in`) in one DDL transaction, committed by the same
//! two-phase commit as other DDL. In the binlog (row format) it is one transaction: GTID, the
//! QUERY `CREATE TABLE ... START TRANSACTION` with the generated definition, the rows'
//! TABLE_MAP/WRITE_ROWS events, XID. A failure anywhere (the SELECT, a conversion, a duplicate
//! key without IGNORE/REPLACE) stages nothing and logs nothing; a crash leaves the table with
//! all its rows or no table. If the table exists, IF NOT EXISTS makes the statement a no-op
//! with note 1050, nothing inserted or logged (as mysqld 8.0).
//!
//! Invariants: every row staged has one value per column of the new table, converted by
//! the INSERT rules ([`crate::eval::to_column`] and the engine's normalization, strict mode);
//! no two staged rows share a primary or unique key (checked here for IGNORE/REPLACE, and
//! again by the engine).

use std::collections::HashMap;
use std::sync::Arc;

use engine::{Column, ColumnType, Row, TableSchema, Txn, Value};

use crate::ast::{ColumnSpec, CreateTable};
use crate::commit::{ChangeKind, ChangedRow, TxnChanges};
use crate::error::{Result, SqlError};
use crate::output::{flags, MysqlType, Output, ResultColumn};
use crate::session::{Session, Warning};

/// mysqld's `CONVERT_IF_BIGGER_TO_BLOB`: a string expression longer than this many
/// characters becomes a TEXT/BLOB column.
const VARCHAR_MAX_CHARS: u32 = 512;

impl Session {
    /// Runs CREATE TABLE ... SELECT (see the module doc). `txn` is the statement's DDL
    /// transaction, not yet used.
    pub(super) fn create_table_select(
        &mut self,
        ct: &CreateTable,
        txn: Txn,
        sql: &str,
    ) -> Result<Output> {
        let server = self.server.clone();
        server.count("Com_create_table");
        let _ = sql;
        let cs = ct.select.as_ref().expect("a CREATE TABLE ... SELECT");
        // The SELECT, read with shared locks in a transaction of its own, kept until the end.
        let select = crate::query::insert_select::read_with_shared_locks(&cs.select);
        // The table may exist already: IF NOT EXISTS is then a no-op (nothing read).
        let exists = self.table_schema_exists(ct)?;
        if exists {
            server.engine.rollback(txn)?;
            if ct.if_not_exists {
                self.warnings.push(Warning {
                    level: "Note",
                    code: 1050,
                    message: SqlError::TableExists(ct.table.name.clone()).to_string(),
                });
                return Ok(Output::ok(0));
            }
            return Err(SqlError::TableExists(ct.table.name.clone()));
        }
        self.txn = Some(self.new_txn());
        let read = self.run_select(&select, &[]);
        let result = read.and_then(|out| self.stage_and_commit(ct, txn, out));
        // The read transaction (its shared locks) ends after the commit, or the failure.
        self.rollback_open();
        result
    }

    fn table_schema_exists(&self, ct: &CreateTable) -> Result<bool> {
        let db = match &ct.table.db {
            Some(d) => d.clone(),
            None => self.db.clone().ok_or(SqlError::NoDatabaseSelected)?,
        };
        let db = self.server.database(&db).ok_or_else(|| SqlError::UnknownDatabase(db.clone()))?;
        Ok(self.server.engine.table_id(&format!("{db}.{}", ct.table.name)).is_some())
    }

    fn stage_and_commit(&mut self, ct: &CreateTable, mut txn: Txn, out: Output) -> Result<Output> {
        let server = self.server.clone();
        let cs = ct.select.as_ref().expect("a CREATE TABLE ... SELECT");
        let (columns, rows) = match out {
            Output::Rows { columns, rows } => (columns, rows),
            Output::Ok { .. } => return Err(SqlError::NotSupported("this SELECT".into())),
        };
        // The columns: the CREATE part's, then the SELECT's not named there.
        let mut specs: Vec<ColumnSpec> = ct.columns.clone();
        for (i, rc) in columns.iter().enumerate() {
            if columns[..i].iter().any(|o| o.name.eq_ignore_ascii_case(&rc.name)) {
                return Err(SqlError::DuplicateColumn(rc.name.clone()));
            }
            if specs.iter().any(|s| s.column.name.eq_ignore_ascii_case(&rc.name)) {
                continue;
            }
            specs.push(ColumnSpec {
                column: self.column_from_result(rc)?,
                primary: false,
                unique: false,
                charset: None,
                collate: None,
            });
        }
        let _guard = server.ddl.lock();
        let Some(mut schema) = self.table_schema_of(ct, &specs)? else {
            // Created meanwhile by another session, IF NOT EXISTS given.
            server.engine.rollback(txn)?;
            return Ok(Output::ok(0));
        };
        // A SELECT column's derived collation is kept; a CREATE-part character column with
        // no CHARACTER SET of its own got the table's (table_schema_of).
        for (i, c) in specs.iter().enumerate().skip(ct.columns.len()) {
            if c.column.ty.is_text() {
                schema.columns[i].collation = c.column.collation;
            }
        }
        let targets: Vec<usize> = columns
            .iter()
            .map(|rc| schema.column_position(&rc.name).expect("every SELECT column has a column"))
            .collect();
        let staged = self.rows_for(&schema, &targets, rows, cs.ignore, cs.replace)?;
        let count = staged.len() as u64;
        let name = ct.table.name.clone();
        let schema_db = match schema.name.split_once('.') {
            Some((db, _)) => db.to_string(),
            None => self.db.clone().ok_or(SqlError::NoDatabaseSelected)?,
        };
        let id = server
            .engine
            .create_table_with_rows_in(&mut txn, schema.clone(), staged.clone())
            .map_err(|e| match e {
                engine::Error::TableExists { .. } => SqlError::TableExists(name.clone()),
                e => SqlError::Engine(e),
            })?;
        schema.id = id;
        // The QUERY event's text: the generated definition, as mysqld logs it
        // (`select_create::binlog_show_create_table`: store_create_info + START TRANSACTION),
        // with the statement's `AUTO_INCREMENT = n`, so a replica's counter starts there too.
        let start = schema.auto_increment_start;
        let text =
            format!("{} START TRANSACTION", crate::show::create_table_text(&schema, &name, start));
        let table = Arc::new(schema);
        let mut changes = TxnChanges {
            session: u64::from(self.connection_id),
            context: Some(self.query_context()),
            ..TxnChanges::default()
        };
        for row in staged {
            changes.changes.push(ChangedRow {
                table: table.clone(),
                kind: ChangeKind::Insert,
                before: None,
                after: Some(row),
            });
        }
        changes.end_statement();
        let gtid = self.gtid_next;
        // The event's database is the new table's, so that the unqualified name of the
        // generated text names it wherever the statement was issued from.
        let event_db = schema_db.clone();
        server.hooks.committer.commit_ddl_rows(
            txn,
            Some(event_db.as_str()),
            &text,
            changes,
            gtid,
            Some(self.query_context()),
        )?;
        self.consume_gtid();
        let dups = self.warnings.iter().filter(|w| w.code == 1062).count();
        let info =
            format!("Records: {count}  Duplicates: {dups}  Warnings: {}", self.warning_count());
        Ok(Output::Ok {
            affected_rows: count,
            last_insert_id: 0,
            info,
            warnings: self.warning_count(),
        })
    }

    /// The new table's rows: each SELECT row's values converted into its column (positions
    /// `targets`), the other columns their defaults (AUTO_INCREMENT numbered), duplicates of
    /// a primary or unique key refused (1062), skipped (IGNORE, warning 1062) or replacing
    /// the earlier row (REPLACE).
    fn rows_for(
        &mut self,
        schema: &TableSchema,
        targets: &[usize],
        rows: Vec<Vec<Value>>,
        ignore: bool,
        replace: bool,
    ) -> Result<Vec<Row>> {
        let _abort = crate::temporal::AbortOnWarning::new(!ignore);
        let auto = schema.auto_increment_column();
        let mut next_auto: u64 = 1;
        // The keys: the primary key, then each unique index (with its prefix lengths).
        let mut keys: Vec<(String, Vec<usize>, Vec<u32>)> = Vec::new();
        if !schema.primary_key.is_empty() {
            keys.push(("PRIMARY".into(), schema.primary_key.clone(), Vec::new()));
        }
        for idx in &schema.indexes {
            if idx.unique {
                keys.push((idx.name.clone(), idx.columns.clone(), idx.prefixes.clone()));
            }
        }
        // A key's values in a row, each prefix part cut to its prefix (as the index holds it).
        let key_values = |row: &Row, cols: &[usize], prefixes: &[u32]| -> Vec<Value> {
            let part = |(k, &c): (usize, &usize)| {
                let p = prefixes.get(k).copied().unwrap_or(0);
                schema.key_part_value(c, p, &row[c]).into_owned()
            };
            cols.iter().enumerate().map(part).collect()
        };
        let mut seen: Vec<HashMap<Box<[u8]>, usize>> = vec![HashMap::new(); keys.len()];
        let checks = self.check_conditions(schema)?;
        let mut out: Vec<Option<Row>> = Vec::with_capacity(rows.len());
        for (i, r) in rows.into_iter().enumerate() {
            let row_no = i as u64 + 1;
            let mut given: Vec<Option<Value>> = vec![None; schema.columns.len()];
            for (v, &p) in r.into_iter().zip(targets) {
                given[p] = Some(v);
            }
            let mut row = Vec::with_capacity(schema.columns.len());
            for (p, col) in schema.columns.iter().enumerate() {
                let v = match given[p].take() {
                    Some(v) => crate::eval::to_column(v, col, row_no)?,
                    None if col.auto_increment => Value::Null,
                    None if col.default_now => crate::temporal::current_for(col, row_no)?,
                    None => match &col.default {
                        Some(d) => d.clone(),
                        None if col.nullable => Value::Null,
                        None => return Err(SqlError::NoDefault(col.name.clone())),
                    },
                };
                row.push(v);
            }
            if let Some(a) = auto {
                let n = match &row[a] {
                    Value::Int(n) if *n > 0 => Some(*n as u64),
                    Value::UInt(n) if *n > 0 => Some(*n),
                    Value::Int(n) if *n < 0 => {
                        return Err(SqlError::OutOfRange {
                            column: schema.columns[a].name.clone(),
                            row: row_no,
                        })
                    }
                    _ => None,
                };
                match n {
                    Some(n) => next_auto = next_auto.max(n.saturating_add(1)),
                    None => {
                        row[a] = Value::UInt(next_auto);
                        next_auto += 1;
                    }
                }
            }
            for (p, col) in schema.columns.iter().enumerate() {
                if row[p] == Value::Null && !col.nullable {
                    return Err(SqlError::BadNull(col.name.clone()));
                }
            }
            let mut one = row.clone();
            schema.normalize_row(&mut one).map_err(|e| {
                crate::eval::engine_value_error(e, row_no, |c| {
                    schema.column_position(c).map(|p| row[p].to_string()).unwrap_or_default()
                })
            })?;
            let row = one;
            // CHECK constraints (3819; IGNORE skips the row with a warning).
            if let Err(e) = crate::checks::check_rows(&checks, &[&row]) {
                if !ignore {
                    return Err(e);
                }
                self.warnings.push(Warning {
                    level: "Warning",
                    code: e.code(),
                    message: e.to_string(),
                });
                continue;
            }
            // Duplicates of an earlier row.
            let mut clashes = Vec::new();
            for (k, (key_name, cols, prefixes)) in keys.iter().enumerate() {
                if cols.iter().any(|&c| row[c] == Value::Null) {
                    continue;
                }
                let vals = key_values(&row, cols, prefixes);
                let key = schema.key_of_values(cols, &vals);
                if let Some(&at) = seen[k].get(&key) {
                    if out[at].is_some() {
                        clashes.push((at, key_name.clone(), vals));
                    }
                }
            }
            if let Some((_, key_name, vals)) = clashes.first() {
                let entry = vals.iter().map(|v| v.to_string()).collect::<Vec<_>>().join("-");
                let table = crate::commit::split_engine_name(&schema.name).1;
                let dup = engine::Error::DupEntry { entry, key: format!("{table}.{key_name}") };
                if replace {
                    for (at, _, _) in &clashes {
                        out[*at] = None;
                    }
                } else if ignore {
                    self.warnings.push(Warning {
                        level: "Warning",
                        code: 1062,
                        message: dup.to_string(),
                    });
                    continue;
                } else {
                    return Err(SqlError::Engine(dup));
                }
            }
            let at = out.len();
            for (k, (_, cols, prefixes)) in keys.iter().enumerate() {
                if cols.iter().any(|&c| row[c] == Value::Null) {
                    continue;
                }
                let vals = key_values(&row, cols, prefixes);
                seen[k].insert(schema.key_of_values(cols, &vals), at);
            }
            out.push(Some(row));
        }
        Ok(out.into_iter().flatten().collect())
    }

    /// The column a SELECT result column makes (mysqld's `Create_field` from the item).
    fn column_from_result(&self, rc: &ResultColumn) -> Result<Column> {
        if !rc.org_table.is_empty() && !rc.org_name.is_empty() && !rc.schema.is_empty() {
            let full = format!("{}.{}", rc.schema, rc.org_table);
            if let Some((_, s)) = self.server.engine.table_named(&full) {
                if let Some(p) = s.column_position(&rc.org_name) {
                    let mut c = s.columns[p].clone();
                    c.name = rc.name.clone();
                    c.auto_increment = false;
                    // NOT NULL only if the result cannot be NULL (an outer join's inner side
                    // can): the result column says.
                    c.nullable = c.nullable || rc.flags & flags::NOT_NULL == 0;
                    return Ok(c);
                }
            }
        }
        Ok(column_of_expression(rc))
    }
}

/// The column type mysqld gives an expression result (`Item::tmp_table_field_from_field_type`
/// and `create_tmp_field` for CREATE TABLE ... SELECT).
fn column_of_expression(rc: &ResultColumn) -> Column {
    let unsigned = rc.flags & flags::UNSIGNED != 0;
    let coll = collation::by_id(rc.charset);
    let mbmaxlen = coll.map_or(1, |c| c.charset.mbmaxlen()).max(1);
    let binary = rc.charset == crate::output::CHARSET_BINARY;
    let chars = rc.length / mbmaxlen;
    let ty = match rc.mysql_type {
        // An integer expression: INT, or BIGINT from 10 digits on (`create_tmp_field` for
        // INT_RESULT: `max_length >= MY_INT32_NUM_DECIMAL_DIGITS - 1`).
        MysqlType::Tiny
        | MysqlType::Short
        | MysqlType::Int24
        | MysqlType::Long
        | MysqlType::LongLong => {
            let bytes = if rc.length >= 10 { 8 } else { 4 };
            ColumnType::Integer { bytes, unsigned }
        }
        MysqlType::Float => ColumnType::Float,
        MysqlType::Double => ColumnType::Double,
        MysqlType::NewDecimal => {
            // my_decimal_length_to_precision: the length counts a point and a sign.
            let scale = rc.decimals.min(30);
            let point = u32::from(scale > 0);
            let sign = u32::from(!unsigned);
            let precision = rc.length.saturating_sub(point + sign).clamp(1, 65);
            ColumnType::Decimal { precision: precision as u8, scale: scale.min(precision as u8) }
        }
        MysqlType::Date => ColumnType::Date,
        MysqlType::Time => ColumnType::Time { fsp: rc.decimals.min(6) },
        MysqlType::DateTime => ColumnType::DateTime { fsp: rc.decimals.min(6) },
        MysqlType::Timestamp => ColumnType::Timestamp { fsp: rc.decimals.min(6) },
        MysqlType::Year => ColumnType::Year,
        MysqlType::Bit => ColumnType::Bit(rc.length.clamp(1, 64) as u8),
        MysqlType::Json => ColumnType::Json,
        // A NULL literal: BINARY(0), as mysqld 8.0.
        MysqlType::Null => ColumnType::Binary(0),
        MysqlType::VarString | MysqlType::String | MysqlType::Blob => {
            if chars > VARCHAR_MAX_CHARS || rc.mysql_type == MysqlType::Blob {
                let len_bytes = match rc.length {
                    0..=255 => 1,
                    256..=65_535 => 2,
                    65_536..=16_777_215 => 3,
                    _ => 4,
                };
                match (binary, len_bytes) {
                    (true, l) => ColumnType::Blob { len_bytes: l },
                    (false, 2) => ColumnType::Text,
                    (false, l) => ColumnType::SizedText { len_bytes: l },
                }
            } else if binary {
                ColumnType::VarBinary(rc.length)
            } else {
                ColumnType::VarChar(chars)
            }
        }
    };
    let mut c = Column::new(&rc.name, ty);
    if ty.is_text() {
        c.collation = coll.map_or(collation::DEFAULT, |c| c.id);
    }
    c.nullable = rc.flags & flags::NOT_NULL == 0 || rc.mysql_type == MysqlType::Null;
    c
}
