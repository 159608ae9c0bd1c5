//! DDL: databases, tables, indexes.
//!
//! Each DDL statement commits the open transaction first (implicit commit), stages its changes
//! in a DDL transaction of the engine (checked, tables marked, nothing visible yet), then hands
//! that transaction and the statement's text to the committer, which commits both in one
//! two-phase commit: the QUERY event with its own GTID in the binlog and the schema change in
//! the engine, or neither after a crash (MySQL 8.0's atomic DDL). A statement that fails
//! changes nothing and is not logged. `IF [NOT] EXISTS` statements that find nothing to do
//! succeed with a note and are logged, as in MySQL.

use engine::{IndexDef, TableSchema, Txn, Value};

use super::ast::{foreign_key_clauses_only, CreateTable, IndexSpec, Stmt, TableRef};
use super::error::{Result, SqlError};
use super::output::Output;
use super::server::check_db_name;
use super::session::{Session, Warning};
use super::vars::Var;

mod alter;
mod create_select;
pub(crate) mod table_options;

fn note(code: u16, message: String) -> Warning {
    Warning { level: "Note", code, message }
}

impl Session {
    pub(crate) fn ddl(&mut self, stmt: &Stmt, sql: &str) -> Result<Output> {
        let server = self.server.clone();
        // Held until the DDL transaction ended: DDL statements are serialized.
        let _guard = server.ddl.lock();
        let mut txn = server.engine.begin();
        // The database whose entry in the database list the statement may change.
        let mut database = None;
        // The binlog text when it is not the statement's (CREATE VIEW spells out its definer).
        let mut logged = None;
        let affected = match stmt {
            Stmt::CreateDatabase { name, if_not_exists, charset, collate } => {
                server.count("Com_create_db");
                check_db_name(name)?;
                let server_default = collation::by_name(&self.var_text(Var::CollationServer))
                    .map_or(collation::DEFAULT, |c| c.id);
                let coll = crate::eval::collate::resolve(
                    charset.as_deref(),
                    collate.as_deref(),
                    server_default,
                )?;
                if server.database(name).is_some() {
                    if !if_not_exists {
                        return Err(SqlError::DatabaseExists(name.clone()));
                    }
                    self.warnings
                        .push(note(1007, SqlError::DatabaseExists(name.clone()).to_string()));
                    0
                } else {
                    server.create_database(&mut txn, name, coll)?;
                    database = Some(name.clone());
                    1
                }
            }
            Stmt::DropDatabase { name, if_exists } => {
                server.count("Com_drop_db");
                match server.database(name) {
                    None if *if_exists => {
                        self.warnings.push(note(
                            1008,
                            SqlError::DropMissingDatabase(name.clone()).to_string(),
                        ));
                        0
                    }
                    None => return Err(SqlError::DropMissingDatabase(name.clone())),
                    Some(real) => {
                        let tables = self.tables_of(&real).len() as u64;
                        server.drop_database(&mut txn, &real)?;
                        database = Some(real);
                        tables
                    }
                }
            }
            Stmt::CreateTable(ct) if ct.select.is_some() => {
                drop(_guard);
                return self.create_table_select(ct, txn, sql);
            }
            Stmt::CreateTable(ct) => {
                server.count("Com_create_table");
                self.create_table(&mut txn, ct)?;
                0
            }
            Stmt::CreateIndex { table, index } => {
                server.count("Com_create_index");
                let (id, schema, _) = self.resolve_table(table)?;
                let def = index_def(&schema, index, &schema.indexes)?;
                server.engine.create_index_in(&mut txn, id, def)?;
                0
            }
            Stmt::DropIndex { table, name } => {
                server.count("Com_drop_index");
                let (id, schema, _) = self.resolve_table(table)?;
                if name.eq_ignore_ascii_case("PRIMARY") {
                    return Err(SqlError::NotSupported("DROP PRIMARY KEY".into()));
                }
                crate::foreign_keys::check_drop_index(&server.engine, &schema, name)?;
                server.engine.drop_index_in(&mut txn, id, name).map_err(|e| match e {
                    engine::Error::NoSuchIndex { name } => SqlError::Other {
                        code: 1091,
                        sqlstate: "42000",
                        message: format!("Can't DROP '{name}'; check that column/key exists"),
                    },
                    e => SqlError::Engine(e),
                })?;
                0
            }
            Stmt::DropTable { tables, if_exists } => {
                server.count("Com_drop_table");
                let mut found = Vec::new();
                let mut found_schemas = Vec::new();
                let mut missing = Vec::new();
                for t in tables {
                    match self.resolve_table(t) {
                        Ok((id, schema, _)) => {
                            found.push(id);
                            found_schemas.push(schema);
                        }
                        Err(SqlError::NoSuchTable { db, table }) => {
                            missing.push(format!("{db}.{table}"))
                        }
                        // DROP TABLE of a view: mysqld's 1051 (the view stays).
                        Err(e) if e.code() == 1347 => missing.push(format!(
                            "{}.{}",
                            t.db.clone().or_else(|| self.db.clone()).unwrap_or_default(),
                            t.name
                        )),
                        Err(e) => return Err(e),
                    }
                }
                if !missing.is_empty() && !if_exists {
                    return Err(SqlError::UnknownTable(missing.join(",")));
                }
                self.fk_check_drop(&found_schemas)?;
                for m in missing {
                    self.warnings.push(note(1051, SqlError::UnknownTable(m).to_string()));
                }
                for id in found {
                    server.engine.drop_table_in(&mut txn, id)?;
                }
                0
            }
            Stmt::Truncate(t) => {
                server.count("Com_truncate");
                let (id, schema, _) = self.resolve_table(t)?;
                self.fk_check_truncate(&schema)?;
                server.engine.truncate_in(&mut txn, id)?;
                0
            }
            Stmt::AlterTable { table, ops } => {
                server.count("Com_alter_table");
                // DROP CONSTRAINT becomes DROP INDEX or DROP FOREIGN KEY; an ALTER left with
                // foreign key clauses only takes their own path.
                let ops = self.resolve_drop_constraints(table, ops)?;
                match foreign_key_clauses_only(ops) {
                    Ok((add, drop)) => self.fk_alter(&mut txn, table, &add, &drop)?,
                    Err(ops) => self.alter_table(&mut txn, table, &ops)?,
                }
                0
            }
            Stmt::RenameTables(pairs) => {
                server.count("Com_rename_table");
                self.rename_tables(&mut txn, pairs)?;
                0
            }
            Stmt::CreateTableLike { table, like, if_not_exists } => {
                server.count("Com_create_table");
                self.create_table_like(&mut txn, table, like, *if_not_exists)?;
                0
            }
            Stmt::AlterForeignKeys { table, add, drop } => {
                server.count("Com_alter_table");
                self.fk_alter(&mut txn, table, add, drop)?;
                0
            }
            Stmt::CreateView(cv) => {
                server.count(if cv.alter { "Com_alter_view" } else { "Com_create_view" });
                logged = Some(self.create_view(&mut txn, cv)?);
                0
            }
            Stmt::DropView { views, if_exists } => {
                server.count("Com_drop_view");
                self.drop_views(&mut txn, views, *if_exists)?;
                0
            }
            other => return Err(SqlError::NotSupported(format!("{other:?}"))),
        };
        let gtid = self.gtid_next;
        let committed = server.hooks.committer.commit_ddl(
            txn,
            self.db.as_deref(),
            logged.as_deref().unwrap_or(sql.trim().trim_end_matches(';')),
            gtid,
            Some(self.query_context()),
        );
        if let Some(name) = database {
            server.refresh_database(&name);
            let gone = server.database(&name).is_none();
            if gone && self.db.as_deref().is_some_and(|d| d.eq_ignore_ascii_case(&name)) {
                self.db = None;
            }
        }
        committed?;
        self.consume_gtid();
        Ok(Output::Ok {
            affected_rows: affected,
            last_insert_id: 0,
            info: String::new(),
            warnings: self.warning_count(),
        })
    }

    /// Engine schemas of the tables of database `db`.
    pub(crate) fn tables_of(&self, db: &str) -> Vec<std::sync::Arc<TableSchema>> {
        let prefix = self.server.name_key(&format!("{db}."));
        self.server
            .engine
            .tables()
            .into_iter()
            .filter(|t| self.server.name_key(&t.name).starts_with(&prefix))
            .collect()
    }

    fn create_table(&mut self, txn: &mut Txn, ct: &CreateTable) -> Result<()> {
        let Some(schema) = self.table_schema_of(ct, &ct.columns)? else { return Ok(()) };
        let name = &ct.table.name;
        self.server.engine.create_table_in(txn, schema).map_err(|e| match e {
            engine::Error::TableExists { .. } => SqlError::TableExists(name.clone()),
            e => SqlError::Engine(e),
        })?;
        Ok(())
    }

    /// The definition CREATE TABLE `ct` gives a new table with columns `column_specs` (its
    /// own, or with CREATE TABLE ... SELECT's added); None when the table exists and IF NOT
    /// EXISTS was given (note 1050 added).
    pub(super) fn table_schema_of(
        &mut self,
        ct: &CreateTable,
        column_specs: &[crate::ast::ColumnSpec],
    ) -> Result<Option<TableSchema>> {
        let TableRef { db, name } = &ct.table;
        let db = match db {
            Some(d) => d.clone(),
            None => self.db.clone().ok_or(SqlError::NoDatabaseSelected)?,
        };
        let db = self.server.database(&db).ok_or_else(|| SqlError::UnknownDatabase(db.clone()))?;
        if name.is_empty() || name.chars().count() > 64 {
            return Err(SqlError::WrongTableName(name.clone()));
        }
        let full = format!("{db}.{}", self.server.stored_name(name));
        if self.server.engine.table_id(&full).is_some() {
            if ct.if_not_exists {
                self.warnings.push(note(1050, SqlError::TableExists(name.clone()).to_string()));
                return Ok(None);
            }
            return Err(SqlError::TableExists(name.clone()));
        }
        // The table's default collation: its options, else the database's (mysqld's
        // `create_table_info.default_table_charset`); each character column's: its own
        // CHARACTER SET / COLLATE, else the table's.
        let table_coll = crate::eval::collate::resolve(
            ct.charset.as_deref(),
            ct.collate.as_deref(),
            self.server.database_collation(&db),
        )?;
        let mut columns = Vec::with_capacity(column_specs.len());
        for (i, c) in column_specs.iter().enumerate() {
            if column_specs[..i].iter().any(|o| o.column.name.eq_ignore_ascii_case(&c.column.name))
            {
                return Err(SqlError::DuplicateColumn(c.column.name.clone()));
            }
            let mut col = c.column.clone();
            if col.ty.is_text() {
                col.collation = crate::eval::collate::resolve(
                    c.charset.as_deref(),
                    c.collate.as_deref(),
                    table_coll,
                )?;
                // The DEFAULT must be a value of the column's character set (1067).
                if let Some(Value::Bytes(b)) = &col.default {
                    if collation::convert_from_utf8(col.charset(), b).is_err() {
                        return Err(SqlError::InvalidDefault(col.name.clone()));
                    }
                }
            }
            columns.push(col);
        }
        let position = |n: &str| {
            columns
                .iter()
                .position(|c| c.name.eq_ignore_ascii_case(n))
                .ok_or_else(|| SqlError::KeyColumnMissing(n.to_string()))
        };
        let inline_pk: Vec<usize> =
            column_specs.iter().enumerate().filter(|(_, c)| c.primary).map(|(i, _)| i).collect();
        let primary_key = match (&ct.primary_key, inline_pk.len()) {
            (Some(_), 1..) => return Err(SqlError::MultiplePrimaryKey),
            (Some(cols), 0) => cols.iter().map(|c| position(c)).collect::<Result<Vec<_>>>()?,
            (None, 0 | 1) => inline_pk,
            (None, _) => return Err(SqlError::MultiplePrimaryKey),
        };
        for &p in &primary_key {
            columns[p].nullable = false;
        }
        let mut schema = TableSchema::new(&full, columns, primary_key).with_collation(table_coll);
        let mut specs: Vec<IndexSpec> = ct
            .columns
            .iter()
            .filter(|c| c.unique)
            .map(|c| IndexSpec {
                name: None,
                columns: vec![c.column.name.clone()],
                prefixes: Vec::new(),
                unique: true,
                comment: String::new(),
            })
            .collect();
        specs.extend(ct.indexes.iter().cloned());
        for spec in &specs {
            let def = index_def(&schema, spec, &schema.indexes)?;
            schema.indexes.push(def);
        }
        // MySQL's rule, checked here for its error text: one AUTO_INCREMENT column, leading a key.
        match schema.auto_increment_columns()[..] {
            [] => {}
            [a] => {
                if !schema.leads_a_key(a) {
                    return Err(SqlError::WrongAutoKey);
                }
            }
            _ => return Err(SqlError::WrongAutoKey),
        }
        self.fk_define(&db, &mut schema, &ct.foreign_keys)?;
        self.check_define(&db, &mut schema, &ct.checks)?;
        schema.comment = ct.comment.clone().unwrap_or_default();
        schema.auto_increment_start = ct.auto_increment;
        table_options::check_comments(&schema, name)?;
        Ok(Some(schema))
    }
}

/// An index definition for `schema`, named as MySQL names unnamed indexes (after the first
/// column, with `_2`, `_3`, ... on collision).
fn index_def(schema: &TableSchema, spec: &IndexSpec, existing: &[IndexDef]) -> Result<IndexDef> {
    let mut columns = Vec::with_capacity(spec.columns.len());
    for c in &spec.columns {
        columns
            .push(schema.column_position(c).ok_or_else(|| SqlError::KeyColumnMissing(c.clone()))?);
    }
    let taken = |n: &str| {
        existing.iter().any(|i| i.name.eq_ignore_ascii_case(n)) || n.eq_ignore_ascii_case("PRIMARY")
    };
    let name = match &spec.name {
        Some(n) => {
            if taken(n) {
                return Err(SqlError::Other {
                    code: 1061,
                    sqlstate: "42000",
                    message: format!("Duplicate key name '{n}'"),
                });
            }
            n.clone()
        }
        None => {
            let base = spec.columns.first().cloned().unwrap_or_else(|| "key".into());
            let mut n = base.clone();
            let mut k = 2;
            while taken(&n) {
                n = format!("{base}_{k}");
                k += 1;
            }
            n
        }
    };
    check_index_comment(&name, &spec.comment)?;
    let given = |i: usize| spec.prefixes.get(i).copied().flatten();
    let prefixes = columns
        .iter()
        .enumerate()
        .map(|(i, &c)| key_part_prefix(&schema.columns[c], given(i), true))
        .collect::<Result<Vec<_>>>()?;
    Ok(IndexDef {
        name,
        columns,
        unique: spec.unique,
        comment: spec.comment.clone(),
        prefixes: normal_prefixes(prefixes),
    })
}

/// Prefix lengths as [`IndexDef::prefixes`] keeps them: empty when no part has one.
pub(crate) fn normal_prefixes(p: Vec<u32>) -> Vec<u32> {
    if p.iter().all(|&x| x == 0) {
        Vec::new()
    } else {
        p
    }
}

/// The prefix length of a key part on `col` (0: the whole column) for the length `given`
/// (`c(10)`), as mysqld's `prepare_key_column` judges it: BLOB/TEXT need one (1170), it must
/// not be 0 (1391), the column must be a string at least that long (1089), and it must fit
/// InnoDB's 3072-byte key part (1071). A length equal to a CHAR/VARCHAR/(VAR)BINARY column's
/// is the whole column. `declared`: the statement wrote the key part; for a key part kept
/// by ALTER TABLE whose column changed (`mysql_prepare_alter_table`), a prefix the column no
/// longer takes becomes the whole column instead of an error.
pub(crate) fn key_part_prefix(
    col: &engine::Column,
    given: Option<u64>,
    declared: bool,
) -> Result<u32> {
    use engine::ColumnType as T;
    let blob = matches!(col.ty, T::Text | T::SizedText { .. } | T::Blob { .. });
    let Some(n) = given else {
        if blob {
            return Err(SqlError::Other {
                code: 1170,
                sqlstate: "42000",
                message: format!(
                    "BLOB/TEXT column '{}' used in key specification without a key length",
                    col.name
                ),
            });
        }
        return Ok(0);
    };
    if n == 0 && declared {
        return Err(SqlError::Other {
            code: 1391,
            sqlstate: "HY000",
            message: format!("Key part '{}' length cannot be 0", col.name),
        });
    }
    let whole = match col.ty {
        T::Char(l) | T::VarChar(l) | T::Binary(l) | T::VarBinary(l) => Some(u64::from(l)),
        _ => None,
    };
    let fits = col.ty.is_string() && whole.is_none_or(|l| n <= l);
    if !fits {
        if declared {
            return Err(SqlError::Other {
                code: 1089,
                sqlstate: "HY000",
                message: "Incorrect prefix key; the used key part isn't a string, the used \
                          length is longer than the key part, or the storage engine doesn't \
                          support unique prefix keys"
                    .into(),
            });
        }
        return key_part_prefix(col, None, false);
    }
    if whole == Some(n) {
        return Ok(0);
    }
    let mbmaxlen = u64::from(col.charset().mbmaxlen());
    if n.saturating_mul(mbmaxlen) > 3072 {
        return Err(SqlError::Other {
            code: 1071,
            sqlstate: "42000",
            message: "Specified key was too long; max key length is 3072 bytes".into(),
        });
    }
    Ok(n as u32)
}

/// 1688 for an index COMMENT longer than mysqld's 1024 characters (`INDEX_COMMENT_MAXLEN`,
/// `validate_comment_length` in strict mode).
pub(crate) fn check_index_comment(index: &str, comment: &str) -> Result<()> {
    if comment.chars().count() <= 1024 {
        return Ok(());
    }
    Err(SqlError::Other {
        code: 1688,
        sqlstate: "HY000",
        message: format!("Comment for index '{index}' is too long (max = 1024)"),
    })
}
