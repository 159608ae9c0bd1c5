//! ALTER TABLE, RENAME TABLE and CREATE TABLE ... LIKE.
//!
//! mysqld's `mysql_alter_table` / `mysql_prepare_alter_table` (sql_table.cc) shape: the
//! operations are applied in order to a copy of the definition (columns keep a link to the
//! old column they come from), the result is checked as CREATE TABLE checks a definition,
//! and then either
//! - the row format is unchanged (renames, defaults, indexes, table name, options): the new
//!   definition replaces the old, rows untouched, indexes rebuilt as needed (mysqld's
//!   INSTANT/INPLACE); or
//! - every row is converted old -> new while the table is held (mysqld's COPY algorithm):
//!   a value that does not convert aborts the ALTER in strict mode (1265 truncated, 1264 out
//!   of range, 1366 wrong value, 1138 NULL into NOT NULL) and a duplicate in a new unique or
//!   primary key answers 1062; nothing changes then.
//!
//! Foreign key clauses beside other operations (`ADD ... FOREIGN KEY`, `DROP FOREIGN KEY`)
//! are part of the same definition: drops apply to the old constraints, adds are defined
//! against the new columns by `fk_define` (as ADD FOREIGN KEY alone), and with
//! `foreign_key_checks=1` the rows the new definition gets are checked (1452); an index the
//! ALTER drops that a kept constraint needs answers 1553. Table options (`AUTO_INCREMENT = n`,
//! COMMENT) ride on the definition (`table_options.rs`).
//!
//! Either way it is one DDL transaction of the engine (`Engine::alter_table_in`,
//! `replace_table_in`, `rename_tables_in`), committed with its QUERY event by the
//! committer's two-phase commit, like every DDL (see ddl.rs).
//!
//! What it blocks: the engine holds the table for DDL from the row read to the commit
//! (writers and new users wait, up to lock_wait_timeout, then 1205), and the DDL gate (one
//! DDL at a time). Readers of other tables and writers of other tables do not wait.
//!
//! Invariants: an ALTER that fails changes nothing and is not logged; a column keeps its
//! link to its old position through CHANGE/RENAME/moves, so values are never taken from the
//! wrong column; index and key column lists are kept by name and resolved at the end.

use engine::{Column, ColumnType, IndexDef, Row, TableSchema, Txn, Value};

use super::note;
use crate::ast::{AlterOp, ColumnPosition, ColumnSpec, IndexSpec, TableRef};
use crate::error::{Result, SqlError};
use crate::eval::to_column;
use crate::session::Session;

/// A column of the definition being built.
struct WorkColumn {
    col: Column,
    /// The old column it comes from.
    src: Option<usize>,
}

/// An index being built: its key parts by column name.
struct WorkIndex {
    name: String,
    parts: Vec<KeyPart>,
    unique: bool,
    comment: String,
    /// Written by this statement (its key parts are judged strictly, see
    /// `ddl::key_part_prefix`).
    declared: bool,
}

/// A key part of a [`WorkIndex`]: the column's name and its prefix length (None: whole
/// column).
struct KeyPart {
    column: String,
    prefix: Option<u64>,
}

fn cant_drop(name: &str) -> SqlError {
    SqlError::Other {
        code: 1091,
        sqlstate: "42000",
        message: format!("Can't DROP '{name}'; check that column/key exists"),
    }
}

fn unknown_column(name: &str, table: &str) -> SqlError {
    SqlError::Other {
        code: 1054,
        sqlstate: "42S22",
        message: format!("Unknown column '{name}' in '{table}'"),
    }
}

fn dup_key_name(name: &str) -> SqlError {
    SqlError::Other {
        code: 1061,
        sqlstate: "42000",
        message: format!("Duplicate key name '{name}'"),
    }
}

fn eq(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b)
}

impl Session {
    /// Resolves `t` to a full engine name `db.table`, the database checked (1049).
    fn full_name(&self, t: &TableRef) -> Result<(String, String)> {
        let db = match &t.db {
            Some(d) => d.clone(),
            None => self.db.clone().ok_or(SqlError::NoDatabaseSelected)?,
        };
        let db = self.server.database(&db).ok_or_else(|| SqlError::UnknownDatabase(db.clone()))?;
        if t.name.is_empty() || t.name.chars().count() > 64 || t.name.ends_with(' ') {
            return Err(SqlError::WrongTableName(t.name.clone()));
        }
        Ok((format!("{db}.{}", self.server.stored_name(&t.name)), db))
    }

    /// `CREATE TABLE t LIKE src`: the same columns, keys and options, no rows.
    pub(super) fn create_table_like(
        &mut self,
        txn: &mut Txn,
        table: &TableRef,
        like: &TableRef,
        if_not_exists: bool,
    ) -> Result<()> {
        let (_, src, _) = self.resolve_table(like)?;
        let (full, _) = self.full_name(table)?;
        if self.server.engine.table_id(&full).is_some() {
            if if_not_exists {
                self.warnings
                    .push(note(1050, SqlError::TableExists(table.name.clone()).to_string()));
                return Ok(());
            }
            return Err(SqlError::TableExists(table.name.clone()));
        }
        let mut schema = (*src).clone();
        schema.id = 0;
        schema.name = full;
        // LIKE copies no foreign keys (mysqld: "CREATE TABLE ... LIKE does not preserve
        // ... FOREIGN KEY definitions").
        schema.foreign_keys.clear();
        // CHECK constraints are copied, generated names following the new table's
        // (`<new>_chk_<n>`, as mysqld's `mysql_create_like_table`).
        crate::checks::rename_generated(&mut schema, &src.name);
        self.server.engine.create_table_in(txn, schema).map_err(|e| match e {
            engine::Error::TableExists { .. } => SqlError::TableExists(table.name.clone()),
            e => SqlError::Engine(e),
        })?;
        Ok(())
    }

    /// `RENAME TABLE a TO b, ...`: applied in order to a name map (so `a TO tmp, b TO a,
    /// tmp TO b` swaps), then staged at once with each table's final name (mysqld's
    /// `mysql_rename_tables`: 1146 for a missing source, 1050 for a taken target).
    pub(super) fn rename_tables(
        &mut self,
        txn: &mut Txn,
        pairs: &[(TableRef, TableRef)],
    ) -> Result<()> {
        // Current name (lower case) -> (table id or None for a name freed, display name).
        let mut names: Vec<(String, engine::TableId)> = Vec::new();
        let lookup = |s: &Session, names: &[(String, engine::TableId)], full: &str| {
            let l = full.to_ascii_lowercase();
            if let Some((_, id)) = names.iter().find(|(n, _)| *n == l) {
                return Some(*id);
            }
            let moved_away = names.iter().any(|(_, id)| {
                s.server.engine.schema(*id).is_some_and(|sc| sc.name.eq_ignore_ascii_case(full))
            });
            if moved_away {
                return None;
            }
            s.server.engine.table_id(full)
        };
        let mut finals: Vec<(engine::TableId, String)> = Vec::new();
        for (from, to) in pairs {
            let (from_full, _) = self.full_name(from)?;
            let (to_full, _) = self.full_name(to)?;
            let db = from_full.split_once('.').map_or("", |p| p.0).to_string();
            let id = lookup(self, &names, &from_full)
                .ok_or_else(|| SqlError::NoSuchTable { db, table: from.name.clone() })?;
            if lookup(self, &names, &to_full).is_some() {
                return Err(SqlError::TableExists(to.name.clone()));
            }
            names.retain(|(_, i)| *i != id);
            names.push((to_full.to_ascii_lowercase(), id));
            match finals.iter_mut().find(|(i, _)| *i == id) {
                Some(f) => f.1 = to_full,
                None => finals.push((id, to_full)),
            }
        }
        self.server.engine.rename_tables_in(txn, &finals).map_err(|e| match e {
            engine::Error::TableExists { name } => {
                SqlError::TableExists(crate::commit::split_engine_name(&name).1.to_string())
            }
            e => SqlError::Engine(e),
        })
    }

    /// `ALTER TABLE t ops`.
    /// `ops` with each `DROP CONSTRAINT sym` resolved against the table as it is (mysqld's
    /// `Drop_constraint_type_resolver::resolve_constraint_type`, sql_constraint.cc): the
    /// PRIMARY or UNIQUE key of that name becomes DROP INDEX, the foreign key DROP FOREIGN
    /// KEY; both is 3939, neither 3940. (binlogd keeps no CHECK constraints: refused at
    /// creation.)
    pub(crate) fn resolve_drop_constraints(
        &self,
        table: &TableRef,
        ops: &[AlterOp],
    ) -> Result<Vec<AlterOp>> {
        if !ops.iter().any(|op| matches!(op, AlterOp::DropConstraint(_))) {
            return Ok(ops.to_vec());
        }
        let (_, old, _) = self.resolve_table(table)?;
        let mut out = Vec::with_capacity(ops.len());
        for op in ops {
            let AlterOp::DropConstraint(n) = op else {
                out.push(op.clone());
                continue;
            };
            let key = (eq(n, "PRIMARY") && !old.primary_key.is_empty())
                || old.indexes.iter().any(|i| i.unique && eq(&i.name, n));
            let fk = old.foreign_keys.iter().any(|f| eq(&f.name, n));
            if old.checks.iter().any(|c| eq(&c.name, n)) {
                if key || fk {
                    return Err(multiple_constraints(n));
                }
                out.push(AlterOp::DropCheck(n.clone()));
                continue;
            }
            out.push(match (key, fk) {
                (true, true) => return Err(multiple_constraints(n)),
                (true, false) => AlterOp::DropIndex { name: n.clone(), if_exists: false },
                (false, true) => AlterOp::DropForeignKey(n.clone()),
                (false, false) => {
                    return Err(SqlError::Other {
                        code: 3940,
                        sqlstate: "HY000",
                        message: format!("Constraint '{n}' does not exist."),
                    })
                }
            });
        }
        Ok(out)
    }

    pub(super) fn alter_table(
        &mut self,
        txn: &mut Txn,
        table: &TableRef,
        ops: &[AlterOp],
    ) -> Result<()> {
        let (id, old, db) = self.resolve_table(table)?;
        let tname = table.name.clone();
        let mut name = old.name.clone();
        let mut collation = old.collation;
        let mut comment = old.comment.clone();
        let mut auto_increment_start = None;
        // Foreign keys: mysqld applies the drops to the old list, then adds the new ones
        // against the new definition (`mysql_prepare_alter_table`).
        let mut fk_drops: Vec<String> = Vec::new();
        let mut fk_adds: Vec<crate::ast::FkSpec> = Vec::new();
        let mut dropped_indexes: Vec<String> = Vec::new();
        // CHECK constraints: the table's, less those dropped, their state changed; the added
        // ones defined against the new definition; columns dropped or renamed (3959).
        let mut checks = old.checks.clone();
        let mut check_adds: Vec<crate::ast::CheckSpec> = Vec::new();
        let mut newly_enforced = false;
        let mut columns_gone: Vec<String> = Vec::new();
        let mut cols: Vec<WorkColumn> = old
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| WorkColumn { col: c.clone(), src: Some(i) })
            .collect();
        let mut pk: Vec<String> =
            old.primary_key.iter().map(|&p| old.columns[p].name.clone()).collect();
        let mut indexes: Vec<WorkIndex> = old
            .indexes
            .iter()
            .map(|i| WorkIndex {
                name: i.name.clone(),
                parts: (i.columns.iter().enumerate())
                    .map(|(k, &p)| KeyPart {
                        column: old.columns[p].name.clone(),
                        prefix: Some(u64::from(i.prefix(k))).filter(|&n| n != 0),
                    })
                    .collect(),
                unique: i.unique,
                comment: i.comment.clone(),
                declared: false,
            })
            .collect();
        // Columns whose values must be converted (type changed); NOT NULL newly required.
        let mut convert_all = false;
        let find = |cols: &[WorkColumn], n: &str| cols.iter().position(|c| eq(&c.col.name, n));
        let place = |cols: &mut Vec<WorkColumn>,
                     w: WorkColumn,
                     at: Option<usize>,
                     position: &Option<ColumnPosition>|
         -> Result<()> {
            let idx = match position {
                None => at.unwrap_or(cols.len()),
                Some(ColumnPosition::First) => 0,
                Some(ColumnPosition::After(a)) => {
                    find(cols, a).ok_or_else(|| unknown_column(a, &tname))? + 1
                }
            };
            cols.insert(idx.min(cols.len()), w);
            Ok(())
        };
        for op in ops {
            match op {
                AlterOp::AddColumn { spec, position } => {
                    if find(&cols, &spec.column.name).is_some() {
                        return Err(SqlError::DuplicateColumn(spec.column.name.clone()));
                    }
                    let col = self.spec_column(spec, collation)?;
                    self.inline_keys(spec, &mut pk, &mut indexes)?;
                    place(&mut cols, WorkColumn { col, src: None }, None, position)?;
                    convert_all = true;
                }
                AlterOp::DropColumn { name: n, if_exists } => {
                    let Some(i) = find(&cols, n) else {
                        if *if_exists {
                            self.warnings.push(note(1091, cant_drop(n).to_string()));
                            continue;
                        }
                        return Err(cant_drop(n));
                    };
                    if cols.len() == 1 {
                        return Err(SqlError::Other {
                            code: 1090,
                            sqlstate: "42000",
                            message: "You can't delete all columns with ALTER TABLE; use DROP \
                                      TABLE instead"
                                .into(),
                        });
                    }
                    columns_gone.push(n.clone());
                    cols.remove(i);
                    // mysqld drops the column from every key; a key left empty goes.
                    pk.retain(|c| !eq(c, n));
                    for ix in &mut indexes {
                        ix.parts.retain(|p| !eq(&p.column, n));
                    }
                    indexes.retain(|ix| !ix.parts.is_empty());
                    convert_all = true;
                }
                AlterOp::ChangeColumn { old: o, spec, position } => {
                    let i = find(&cols, o).ok_or_else(|| unknown_column(o, &tname))?;
                    let new_name = &spec.column.name;
                    if cols.iter().enumerate().any(|(j, c)| j != i && eq(&c.col.name, new_name)) {
                        return Err(SqlError::DuplicateColumn(new_name.clone()));
                    }
                    if !eq(o, new_name) {
                        columns_gone.push(o.clone());
                    }
                    let col = self.spec_column(spec, collation)?;
                    let w = cols.remove(i);
                    rename_in_keys(&mut pk, &mut indexes, o, new_name);
                    self.inline_keys(spec, &mut pk, &mut indexes)?;
                    let at = if position.is_none() { Some(i) } else { None };
                    place(&mut cols, WorkColumn { col, src: w.src }, at, position)?;
                    convert_all = true;
                }
                AlterOp::RenameColumn { old: o, new } => {
                    let i = find(&cols, o).ok_or_else(|| unknown_column(o, &tname))?;
                    if !eq(o, new) {
                        columns_gone.push(o.clone());
                    }
                    if cols.iter().enumerate().any(|(j, c)| j != i && eq(&c.col.name, new)) {
                        return Err(SqlError::DuplicateColumn(new.clone()));
                    }
                    cols[i].col.name = new.clone();
                    rename_in_keys(&mut pk, &mut indexes, o, new);
                }
                AlterOp::SetDefault { column, default } => {
                    let i = find(&cols, column).ok_or_else(|| unknown_column(column, &tname))?;
                    let c = &mut cols[i].col;
                    match default {
                        None => {
                            c.default = None;
                            c.default_now = false;
                        }
                        Some(spec) => {
                            c.default_now = false;
                            if spec.column.default_now {
                                if !matches!(
                                    c.ty,
                                    ColumnType::DateTime { .. } | ColumnType::Timestamp { .. }
                                ) {
                                    return Err(SqlError::InvalidDefault(c.name.clone()));
                                }
                                c.default = None;
                                c.default_now = true;
                            } else {
                                match spec.column.default.clone() {
                                    None if c.nullable => c.default = None,
                                    None => return Err(SqlError::InvalidDefault(c.name.clone())),
                                    Some(v) => {
                                        let v = to_column(v, c, 1).map_err(|_| {
                                            SqlError::InvalidDefault(c.name.clone())
                                        })?;
                                        c.default = Some(v);
                                    }
                                }
                            }
                        }
                    }
                }
                AlterOp::AddIndex(spec) => {
                    add_index(&cols, &mut indexes, spec)?;
                }
                AlterOp::AddPrimaryKey(columns) => {
                    if !pk.is_empty() {
                        return Err(SqlError::MultiplePrimaryKey);
                    }
                    for c in columns {
                        find(&cols, c).ok_or_else(|| SqlError::KeyColumnMissing(c.clone()))?;
                    }
                    pk = columns.clone();
                    convert_all = true;
                }
                AlterOp::DropIndex { name: n, if_exists } => {
                    if eq(n, "PRIMARY") && !pk.is_empty() {
                        pk.clear();
                        convert_all = true;
                        continue;
                    }
                    match indexes.iter().position(|i| eq(&i.name, n)) {
                        Some(i) => {
                            dropped_indexes.push(indexes.remove(i).name);
                        }
                        None if *if_exists => {
                            self.warnings.push(note(1091, cant_drop(n).to_string()))
                        }
                        None => return Err(cant_drop(n)),
                    }
                }
                AlterOp::DropPrimaryKey => {
                    if pk.is_empty() {
                        return Err(cant_drop("PRIMARY"));
                    }
                    pk.clear();
                    convert_all = true;
                }
                AlterOp::RenameIndex { old: o, new } => {
                    let i = indexes.iter().position(|i| eq(&i.name, o)).ok_or_else(|| {
                        SqlError::Other {
                            code: 1176,
                            sqlstate: "42000",
                            message: format!("Key '{o}' doesn't exist in table '{tname}'"),
                        }
                    })?;
                    if eq(new, "PRIMARY")
                        || indexes.iter().enumerate().any(|(j, x)| j != i && eq(&x.name, new))
                    {
                        return Err(dup_key_name(new));
                    }
                    indexes[i].name = new.clone();
                }
                AlterOp::RenameTable(to) => {
                    let (full, _) = self.full_name(to)?;
                    if !eq(&full, &old.name) && self.server.engine.table_id(&full).is_some() {
                        return Err(SqlError::TableExists(to.name.clone()));
                    }
                    name = full;
                }
                AlterOp::Charset { charset, collate, convert } => {
                    collation = crate::eval::collate::resolve(
                        charset.as_deref(),
                        collate.as_deref(),
                        self.server.database_collation(&db),
                    )?;
                    if *convert {
                        for c in &mut cols {
                            if c.col.ty.is_text() && c.col.collation != collation {
                                if collation::by_id(collation).map(|x| x.charset)
                                    != collation::by_id(c.col.collation).map(|x| x.charset)
                                {
                                    convert_all = true;
                                }
                                c.col.collation = collation;
                            }
                        }
                    }
                }
                AlterOp::AutoIncrement(n) => auto_increment_start = Some(*n),
                AlterOp::Comment(text) => comment = text.clone(),
                AlterOp::AddForeignKey(spec) => fk_adds.push(spec.clone()),
                // Resolved by the caller (`resolve_drop_constraints`).
                AlterOp::DropConstraint(n) => return Err(cant_drop(n)),
                AlterOp::DropForeignKey(n) => {
                    let known = old.foreign_keys.iter().any(|f| eq(&f.name, n));
                    if !known || fk_drops.iter().any(|d| eq(d, n)) {
                        return Err(cant_drop(n));
                    }
                    fk_drops.push(n.clone());
                }
                AlterOp::AddCheck(spec) => {
                    newly_enforced |= spec.enforced;
                    check_adds.push(spec.clone());
                }
                AlterOp::DropCheck(n) => {
                    let i = checks
                        .iter()
                        .position(|c| eq(&c.name, n))
                        .ok_or_else(|| check_not_found(n))?;
                    checks.remove(i);
                }
                AlterOp::AlterCheck { name: n, enforced } => {
                    let c = checks
                        .iter_mut()
                        .find(|c| eq(&c.name, n))
                        .ok_or_else(|| check_not_found(n))?;
                    newly_enforced |= *enforced && !c.enforced;
                    c.enforced = *enforced;
                }
                AlterOp::Accepted => {}
            }
        }
        let kept = TableSchema { checks: checks.clone(), ..(*old).clone() };
        for n in &columns_gone {
            crate::checks::check_column_unused(&kept, n)?;
        }
        // The new definition, keys resolved by name (1072 for a key column gone).
        let columns: Vec<Column> = cols.iter().map(|w| w.col.clone()).collect();
        let pos = |n: &str| {
            columns
                .iter()
                .position(|c| eq(&c.name, n))
                .ok_or_else(|| SqlError::KeyColumnMissing(n.to_string()))
        };
        let primary_key = pk.iter().map(|c| pos(c)).collect::<Result<Vec<_>>>()?;
        let mut schema =
            TableSchema::new(&name, columns.clone(), primary_key).with_collation(collation);
        schema.id = id;
        schema.comment = comment;
        schema.auto_increment_start = auto_increment_start;
        super::table_options::check_comments(&schema, &tname)?;
        for &p in &schema.primary_key.clone() {
            schema.columns[p].nullable = false;
        }
        for ix in &indexes {
            let columns = ix.parts.iter().map(|p| pos(&p.column)).collect::<Result<Vec<_>>>()?;
            let prefixes = columns
                .iter()
                .zip(&ix.parts)
                .map(|(&c, p)| super::key_part_prefix(&schema.columns[c], p.prefix, ix.declared))
                .collect::<Result<Vec<_>>>()?;
            schema.indexes.push(IndexDef {
                name: ix.name.clone(),
                columns,
                unique: ix.unique,
                comment: ix.comment.clone(),
                prefixes: super::normal_prefixes(prefixes),
            });
        }
        match schema.auto_increment_columns()[..] {
            [] => {}
            [a] if schema.leads_a_key(a) => {}
            _ => return Err(SqlError::WrongAutoKey),
        }
        let srcs: Vec<Option<usize>> = cols.iter().map(|w| w.src).collect();
        // The table's foreign keys stay, their columns followed to where they now are; one
        // whose column is dropped stops the ALTER (mysqld's 1828, ER_FK_COLUMN_CANNOT_DROP).
        for fk in old.foreign_keys.iter().filter(|f| !fk_drops.iter().any(|d| eq(d, &f.name))) {
            let mut columns = Vec::with_capacity(fk.columns.len());
            for &c in &fk.columns {
                match srcs.iter().position(|s| *s == Some(c)) {
                    Some(p) => columns.push(p),
                    None => {
                        return Err(SqlError::Other {
                            code: 1828,
                            sqlstate: "HY000",
                            message: format!(
                                "Cannot drop column '{}': needed in a foreign key constraint '{}'",
                                old.columns.get(c).map_or("", |x| x.name.as_str()),
                                fk.name
                            ),
                        })
                    }
                }
            }
            schema.foreign_keys.push(engine::ForeignKeyDef { columns, ..fk.clone() });
        }
        // An index dropped that a constraint kept still needs (as child, or as parent of
        // another table's): 1553, as DROP INDEX.
        if !dropped_indexes.is_empty() {
            let mut kept = (*old).clone();
            kept.foreign_keys.retain(|f| !fk_drops.iter().any(|d| eq(d, &f.name)));
            for n in &dropped_indexes {
                let still_there = schema.indexes.iter().any(|i| {
                    old.index(n).is_some_and(|o| {
                        let cols: Vec<&str> = old.indexes[o]
                            .columns
                            .iter()
                            .map(|&c| old.columns[c].name.as_str())
                            .collect();
                        let now: Vec<&str> =
                            i.columns.iter().map(|&c| schema.columns[c].name.as_str()).collect();
                        now.starts_with(&cols)
                    })
                });
                if !still_there {
                    crate::foreign_keys::check_drop_index(&self.server.engine, &kept, n)?;
                }
            }
        }
        // The constraints added, against the new definition (their supporting indexes added
        // to it: 1822, 1826, 3780, ... as ALTER TABLE ... ADD FOREIGN KEY alone).
        let fks_before = schema.foreign_keys.len();
        if !fk_adds.is_empty() {
            self.fk_define(&db, &mut schema, &fk_adds)?;
        }
        schema.checks = checks;
        if schema.name != old.name {
            crate::checks::rename_generated(&mut schema, &old.name);
        }
        self.check_define(&db, &mut schema, &check_adds)?;
        // The rows are checked against the enforced constraints when one becomes enforced,
        // or when they are copied (mysqld's copying ALTER evaluates every constraint).
        let row_checks = self.check_conditions(&schema)?;
        let new_fks: Vec<engine::ForeignKeyDef> =
            if self.fk_checks() { schema.foreign_keys[fks_before..].to_vec() } else { Vec::new() };
        // A new name: the table's self-references and its children's constraints follow it
        // (InnoDB's `row_rename_table_for_mysql`).
        let renamed = schema.name != old.name;
        let moves = [(old.name.clone(), schema.name.clone())];
        if renamed {
            engine::repoint_parents(&mut schema.foreign_keys, &moves);
        }
        let identity = srcs.iter().enumerate().all(|(i, s)| *s == Some(i));
        let engine = &self.server.engine;
        if renamed {
            engine.repoint_foreign_keys_in(txn, &moves, &[id]).map_err(SqlError::Engine)?;
        }
        let mapped = |e: engine::Error| match e {
            engine::Error::TableExists { name } => {
                SqlError::TableExists(crate::commit::split_engine_name(&name).1.to_string())
            }
            e => SqlError::Engine(e),
        };
        if identity && !convert_all && engine::keeps_row_format(&old, &schema) {
            if !new_fks.is_empty() || newly_enforced {
                let rows: Vec<Row> = engine
                    .scan(
                        txn,
                        id,
                        std::ops::Bound::Unbounded,
                        std::ops::Bound::Unbounded,
                        usize::MAX,
                    )?
                    .into_iter()
                    .map(|(_, r)| r)
                    .collect();
                crate::foreign_keys::check_rows(engine, txn, id, &schema, &new_fks, &rows)?;
                crate::checks::check_rows(&row_checks, &rows)?;
            }
            return engine.replace_table_in(txn, id, schema, None).map_err(mapped);
        }
        let target = schema.clone();
        engine.alter_table_in(txn, id, schema, |rows: Vec<Row>| -> Result<Vec<Row>> {
            let rows = convert_rows(&old, &target, &srcs, rows)?;
            crate::checks::check_rows(&row_checks, &rows)?;
            if !new_fks.is_empty() {
                // The converted rows, as the copy mysqld checks; parents read committed.
                let reader = engine.begin();
                let checked =
                    crate::foreign_keys::check_rows(engine, &reader, id, &target, &new_fks, &rows);
                let _ = engine.rollback(reader);
                checked?;
            }
            Ok(rows)
        })
    }

    /// A column of ADD/CHANGE/MODIFY: its collation resolved against the table's.
    fn spec_column(&self, spec: &ColumnSpec, table_coll: u16) -> Result<Column> {
        let mut col = spec.column.clone();
        if col.ty.is_text() {
            col.collation = crate::eval::collate::resolve(
                spec.charset.as_deref(),
                spec.collate.as_deref(),
                table_coll,
            )?;
            if let Some(Value::Bytes(b)) = &col.default {
                if collation::convert_from_utf8(col.charset(), b).is_err() {
                    return Err(SqlError::InvalidDefault(col.name.clone()));
                }
            }
        }
        Ok(col)
    }

    /// Inline PRIMARY KEY / UNIQUE of a column definition.
    fn inline_keys(
        &self,
        spec: &ColumnSpec,
        pk: &mut Vec<String>,
        indexes: &mut Vec<WorkIndex>,
    ) -> Result<()> {
        if spec.primary {
            if !pk.is_empty() {
                return Err(SqlError::MultiplePrimaryKey);
            }
            *pk = vec![spec.column.name.clone()];
        }
        if spec.unique {
            let name = free_name(indexes, &spec.column.name);
            indexes.push(WorkIndex {
                name,
                parts: vec![KeyPart { column: spec.column.name.clone(), prefix: None }],
                unique: true,
                comment: String::new(),
                declared: true,
            });
        }
        Ok(())
    }
}

fn rename_in_keys(pk: &mut [String], indexes: &mut [WorkIndex], old: &str, new: &str) {
    for c in pk
        .iter_mut()
        .chain(indexes.iter_mut().flat_map(|i| i.parts.iter_mut().map(|p| &mut p.column)))
    {
        if eq(c, old) {
            *c = new.to_string();
        }
    }
}

/// mysqld's name for an unnamed key: its first column, then `_2`, `_3`, ...
fn free_name(indexes: &[WorkIndex], base: &str) -> String {
    let taken = |n: &str| eq(n, "PRIMARY") || indexes.iter().any(|i| eq(&i.name, n));
    let mut n = base.to_string();
    let mut k = 2;
    while taken(&n) {
        n = format!("{base}_{k}");
        k += 1;
    }
    n
}

fn add_index(cols: &[WorkColumn], indexes: &mut Vec<WorkIndex>, spec: &IndexSpec) -> Result<()> {
    for c in &spec.columns {
        if !cols.iter().any(|w| eq(&w.col.name, c)) {
            return Err(SqlError::KeyColumnMissing(c.clone()));
        }
    }
    let name = match &spec.name {
        Some(n) => {
            if eq(n, "PRIMARY") || indexes.iter().any(|i| eq(&i.name, n)) {
                return Err(dup_key_name(n));
            }
            n.clone()
        }
        None => free_name(indexes, spec.columns.first().map_or("key", |s| s.as_str())),
    };
    crate::ddl::check_index_comment(&name, &spec.comment)?;
    let parts = (spec.columns.iter().enumerate()).map(|(i, c)| KeyPart {
        column: c.clone(),
        prefix: spec.prefixes.get(i).copied().flatten(),
    });
    indexes.push(WorkIndex {
        name,
        parts: parts.collect(),
        unique: spec.unique,
        comment: spec.comment.clone(),
        declared: true,
    });
    Ok(())
}

/// The value a new NOT NULL column without a DEFAULT gets in existing rows (mysqld's
/// implicit default: 0, '', the first ENUM member, the zero date).
fn implicit_default(col: &Column) -> Result<Value> {
    let candidates: Vec<Value> = match col.ty {
        ColumnType::Enum => {
            vec![Value::Bytes(col.elements.first().cloned().unwrap_or_default().into_bytes())]
        }
        _ => vec![
            Value::Int(0),
            Value::Bytes(Vec::new()),
            Value::Bytes(b"0000-00-00 00:00:00".to_vec()),
            Value::Bytes(b"00:00:00".to_vec()),
        ],
    };
    for v in candidates {
        if let Ok(v) = to_column(v, col, 1) {
            return Ok(v);
        }
    }
    Err(SqlError::InvalidDefault(col.name.clone()))
}

/// Every row old -> new: moved values converted as a store into the new column (strict),
/// new columns filled with their default, AUTO_INCREMENT columns added numbered 1, 2, ...
fn convert_rows(
    old: &TableSchema,
    new: &TableSchema,
    srcs: &[Option<usize>],
    rows: Vec<Row>,
) -> Result<Vec<Row>> {
    let mut fills = Vec::with_capacity(new.columns.len());
    for (i, c) in new.columns.iter().enumerate() {
        fills.push(match (srcs[i], &c.default) {
            (Some(_), _) => Value::Null,
            (None, _) if c.auto_increment => Value::Null,
            (None, Some(d)) => d.clone(),
            // DEFAULT CURRENT_TIMESTAMP: the statement's time, as mysqld fills the column for
            // existing rows.
            (None, None) if c.default_now => crate::temporal::current_for(c, 1)?,
            (None, None) if c.nullable => Value::Null,
            // Asked only when there are rows to fill (an empty table takes any column).
            (None, None) if rows.is_empty() => Value::Null,
            (None, None) => implicit_default(c)?,
        });
    }
    let mut out = Vec::with_capacity(rows.len());
    let mut next_auto = 1u64;
    for (n, row) in rows.into_iter().enumerate() {
        let row_no = n as u64 + 1;
        let mut r: Row = Vec::with_capacity(new.columns.len());
        for (i, c) in new.columns.iter().enumerate() {
            let v = match srcs[i] {
                Some(s) => {
                    let v = row.get(s).cloned().unwrap_or(Value::Null);
                    if old.columns[s].ty == c.ty && old.columns[s].collation == c.collation {
                        v
                    } else {
                        to_column(v, c, row_no).map_err(|e| truncated(e, &c.name, row_no))?
                    }
                }
                None if c.auto_increment => {
                    let v = Value::UInt(next_auto);
                    next_auto += 1;
                    v
                }
                None => fills[i].clone(),
            };
            if v == Value::Null && !c.nullable {
                // mysqld's copy_data_between_tables in strict mode: 1138.
                return Err(SqlError::Other {
                    code: 1138,
                    sqlstate: "22004",
                    message: "Invalid use of NULL value".into(),
                });
            }
            r.push(v);
        }
        new.normalize_row(&mut r).map_err(|e| {
            let e = crate::eval::engine_value_error(e, row_no, |_| String::new());
            truncated(e, "", row_no)
        })?;
        out.push(r);
    }
    Ok(out)
}

/// mysqld reports a value cut short by ALTER as 1265 (`WARN_DATA_TRUNCATED` made an error
/// by strict mode), where INSERT says 1406.
fn truncated(e: SqlError, _column: &str, row: u64) -> SqlError {
    match e {
        SqlError::DataTooLong { column, .. } => SqlError::Other {
            code: 1265,
            sqlstate: "01000",
            message: format!("Data truncated for column '{column}' at row {row}"),
        },
        e => e,
    }
}

/// 3939: a name that is more than one kind of constraint of the table.
fn multiple_constraints(n: &str) -> SqlError {
    SqlError::Other {
        code: 3939,
        sqlstate: "HY000",
        message: format!(
            "Table has multiple constraints with the name '{n}'. Please use constraint \
             specific 'DROP' clause."
        ),
    }
}

/// 3821: DROP CHECK / ALTER CHECK of a name the table has no check constraint of.
fn check_not_found(n: &str) -> SqlError {
    SqlError::Other {
        code: 3821,
        sqlstate: "HY000",
        message: format!("Check constraint '{n}' is not found in the table."),
    }
}
