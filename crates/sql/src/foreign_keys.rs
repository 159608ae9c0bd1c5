//! Foreign keys with InnoDB's semantics (issue 20): their definition (CREATE TABLE, ALTER
//! TABLE ADD/DROP FOREIGN KEY), the checks of every row change, the referential actions, and
//! how SHOW CREATE TABLE and the errors print a constraint.
//!
//! mysqld splits this between the SQL layer (`sql_table.cc`: `prepare_foreign_key`, the
//! supporting index, names `<table>_ibfk_<n>`, 1822/3734/3780/1830) and InnoDB
//! (`row0ins.cc` `row_ins_check_foreign_constraint`: 1452 and the parent row's shared lock;
//! `row0upd.cc`/`row0ins.cc` `row_ins_foreign_check_on_constraint`: 1451, CASCADE, SET NULL,
//! the cascade depth `FK_MAX_CASCADE_DEL` = 15, 3008). Here the definitions live in the
//! engine's schema (`engine::ForeignKeyDef`) and everything else is in this module, called by
//! the session's three row writers (`write_insert`, `write_update`, `write_delete`), through
//! which every SQL write path goes (INSERT, REPLACE, ODKU, UPDATE, DELETE, the prepared point
//! UPDATE); a new write path calls [`Session::fk_after_write`] and [`Session::fk_before_parent_change`]
//! (or simply uses the three writers).
//!
//! Rules (InnoDB's):
//! - A child row written (inserted, or updated with its constraint columns changed) with no
//!   NULL in its constraint columns needs a parent row with equal values (compared under the
//!   parent columns' collations), found by a locking read that takes a shared lock on the
//!   parent row, so a concurrent delete of that parent waits for this transaction. None: 1452.
//!   The check runs after the row is written (a row may reference itself).
//! - A parent row deleted, or updated with its referenced columns changed, with child rows
//!   (found by a locking read, exclusive locks): RESTRICT, NO ACTION or no clause → 1451;
//!   CASCADE deletes the children (updates them to the new values); SET NULL sets their
//!   constraint columns to NULL. Each changed child is a parent change in turn, down to depth
//!   15; deeper → 3008.
//! - Rows changed by a referential action are not logged as row events of their own (MySQL
//!   logs only the statement's own rows in row format; a replica's engine runs the actions
//!   itself — MySQL manual, "Replication and foreign keys"/"Foreign key cascades"), but they
//!   are part of the transaction and of statement undo.
//! - `foreign_key_checks=0` turns all of it off (checks and actions), as InnoDB's
//!   `trx->check_foreigns`; a definition may then name a parent that does not exist.
//!
//! Invariants: a constraint's child columns always lead an index of the child (the supporting
//! index is created with the constraint, and an index that is the only support of a constraint
//! cannot be dropped: 1553); checks use the child's and parent's current definitions.

use std::ops::Bound;
use std::sync::Arc;

use engine::{
    ColumnType, FkAction, ForeignKeyDef, IndexDef, Key, Row, TableId, TableSchema, Value,
};

use super::ast::FkSpec;
use super::commit::{split_engine_name, ChangeKind, ChangedRow};
use super::error::{Result, SqlError};
use super::session::{Session, Undo};
use super::vars::Var;

/// InnoDB's `FK_MAX_CASCADE_DEL`: how deep referential actions may chain.
pub const MAX_CASCADE_DEPTH: usize = 15;

fn other(code: u16, sqlstate: &'static str, message: String) -> SqlError {
    SqlError::Other { code, sqlstate, message }
}

fn quote(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// The constraint as SHOW CREATE TABLE prints it (without indentation), which the 1451/1452
/// messages quote: ``CONSTRAINT `c_ibfk_1` FOREIGN KEY (`a`) REFERENCES `p` (`id`) ON DELETE
/// CASCADE``; the parent is qualified when it is in another database.
pub(crate) fn constraint_clause(child: &TableSchema, fk: &ForeignKeyDef) -> String {
    let cols = |names: Vec<&str>| names.iter().map(|n| quote(n)).collect::<Vec<_>>().join(", ");
    let child_cols =
        cols(fk.columns.iter().map(|&p| child.columns[p].name.as_str()).collect::<Vec<_>>());
    let parent_cols = cols(fk.parent_columns.iter().map(String::as_str).collect());
    let (cdb, _) = split_engine_name(&child.name);
    let (pdb, ptable) = split_engine_name(&fk.parent);
    let parent = if pdb.eq_ignore_ascii_case(cdb) {
        quote(ptable)
    } else {
        format!("{}.{}", quote(pdb), quote(ptable))
    };
    let mut s = format!(
        "CONSTRAINT {} FOREIGN KEY ({child_cols}) REFERENCES {parent} ({parent_cols})",
        quote(&fk.name)
    );
    if let Some(a) = fk.on_delete.clause() {
        s.push_str(&format!(" ON DELETE {a}"));
    }
    if let Some(a) = fk.on_update.clause() {
        s.push_str(&format!(" ON UPDATE {a}"));
    }
    s
}

fn violation(child: &TableSchema, fk: &ForeignKeyDef, parent_side: bool) -> SqlError {
    let (db, table) = split_engine_name(&child.name);
    let what = if parent_side {
        (1451, "Cannot delete or update a parent row")
    } else {
        (1452, "Cannot add or update a child row")
    };
    other(
        what.0,
        "23000",
        format!(
            "{}: a foreign key constraint fails ({}.{}, {})",
            what.1,
            quote(db),
            quote(table),
            constraint_clause(child, fk)
        ),
    )
}

/// Where rows with given values in some columns are found: the primary key or a secondary
/// index whose leading columns are those columns, in order, none of them a prefix (InnoDB's
/// `dict_foreign_find_index` refuses column prefixes).
enum Lookup {
    Primary,
    Index(String),
}

fn lookup(schema: &TableSchema, cols: &[usize]) -> Option<Lookup> {
    if schema.primary_key.starts_with(cols) {
        return Some(Lookup::Primary);
    }
    schema
        .indexes
        .iter()
        .find(|i| i.columns.starts_with(cols) && (0..cols.len()).all(|k| i.prefix(k) == 0))
        .map(|i| Lookup::Index(i.name.clone()))
}

/// Whether two column types may be related by a foreign key (mysqld 8.0's
/// `fk_check_column_changes`/InnoDB's `cmp_cols_are_equal`): integers of one size and
/// signedness, character columns of one collation (any length), binary strings, or one type.
fn compatible(a: &engine::Column, b: &engine::Column) -> bool {
    use ColumnType as T;
    match (a.ty, b.ty) {
        (T::Integer { bytes: x, unsigned: u }, T::Integer { bytes: y, unsigned: v }) => {
            x == y && u == v
        }
        (T::Char(_) | T::VarChar(_), T::Char(_) | T::VarChar(_)) => a.collation == b.collation,
        (T::Binary(_) | T::VarBinary(_), T::Binary(_) | T::VarBinary(_)) => true,
        (T::Text | T::SizedText { .. } | T::Blob { .. } | T::Json, _)
        | (_, T::Text | T::SizedText { .. } | T::Blob { .. } | T::Json) => false,
        (T::Enum, T::Enum) | (T::Set, T::Set) => a.elements == b.elements,
        (x, y) => x == y,
    }
}

fn values_at(row: &[Value], cols: &[usize]) -> Vec<Value> {
    cols.iter().map(|&p| row[p].clone()).collect()
}

/// Lock kinds of [`fk_rows`].
#[derive(Clone, Copy, PartialEq)]
enum Lock {
    Share,
    Exclusive,
}

/// Whoever writes the rows whose constraints are checked: a SQL session (its open transaction,
/// statement undo) or binlogd's replica applier and `BINLOG '…'`, which apply row events
/// (mysqld's `Rows_log_event::do_apply_event` writes through the handler, so InnoDB checks
/// and cascades there exactly as for a statement).
pub trait FkWriter {
    /// The engine and the transaction the rows are written in.
    fn fk_txn(&mut self) -> Result<(engine::Engine, &mut engine::Txn)>;
    /// A row changed by a referential action (`after` None: deleted; `key_after`: the row's
    /// key after the change). Never logged in the binlog: the writer keeps it for undo only.
    fn fk_record(
        &mut self,
        table: TableId,
        schema: &Arc<TableSchema>,
        before: Row,
        after: Option<Row>,
        key_after: Option<Key>,
    );
}

impl FkWriter for Session {
    fn fk_txn(&mut self) -> Result<(engine::Engine, &mut engine::Txn)> {
        let engine = self.server.engine.clone();
        Ok((engine, &mut self.txn_mut()?.txn))
    }

    fn fk_record(
        &mut self,
        table: TableId,
        schema: &Arc<TableSchema>,
        before: Row,
        after: Option<Row>,
        key_after: Option<Key>,
    ) {
        let kind = if after.is_some() { ChangeKind::Update } else { ChangeKind::Delete };
        if let Ok(open) = self.txn_mut() {
            open.changes.cascaded.push(open.changes.changes.len());
        }
        self.record(
            ChangedRow { table: schema.clone(), kind, before: Some(before), after },
            Undo { table, key_after },
        );
    }
}

/// The rows of table `id` whose columns `cols` equal `values` (compared as the table's key
/// encodes them), each locked: a locking read of the latest committed data, as InnoDB's
/// constraint checks read. At most `limit` rows.
fn fk_rows<W: FkWriter + ?Sized>(
    w: &mut W,
    id: TableId,
    schema: &TableSchema,
    cols: &[usize],
    values: &[Value],
    lock: Lock,
    limit: usize,
) -> Result<Vec<(Key, Row)>> {
    let Some(how) = lookup(schema, cols) else { return Ok(Vec::new()) };
    let want = schema.key_of_values(cols, values);
    let (engine, txn) = w.fk_txn()?;
    let candidates: Vec<Key> = match how {
        Lookup::Primary if cols.len() == schema.primary_key.len() => vec![want.clone()],
        Lookup::Primary => {
            let latest = txn.set_read_latest(true);
            let found =
                engine.scan(txn, id, Bound::Included(values), Bound::Included(values), limit);
            txn.set_read_latest(latest);
            found?.into_iter().map(|(k, _)| k).collect()
        }
        Lookup::Index(name) => {
            let latest = txn.set_read_latest(true);
            let found = engine.scan_index(
                txn,
                id,
                &name,
                Bound::Included(values),
                Bound::Included(values),
                limit,
            );
            txn.set_read_latest(latest);
            found?.into_iter().map(|(k, _)| k).collect()
        }
    };
    let mut out = Vec::new();
    for key in candidates {
        let row = match lock {
            Lock::Share => engine.get_for_share(txn, id, &key)?,
            Lock::Exclusive => engine.get_for_update(txn, id, &key)?,
        };
        // The locked image is the latest: it must still hold the values.
        if let Some(row) = row {
            if schema.key_of_values(cols, &values_at(&row, cols)) == want {
                out.push((key, row));
            }
        }
    }
    Ok(out)
}

/// The child side, after row `after` of `schema` was written (`before`: its old image for
/// an update): every constraint whose columns changed and hold no NULL needs its parent
/// row, which stays locked shared until the transaction ends (1452 if there is none).
/// The caller has established that checks are on (`foreign_key_checks=1`, or a row event
/// without `NO_FOREIGN_KEY_CHECKS_F`).
pub fn check_child<W: FkWriter + ?Sized>(
    w: &mut W,
    schema: &TableSchema,
    before: Option<&Row>,
    after: &Row,
) -> Result<()> {
    for fk in &schema.foreign_keys {
        let values = values_at(after, &fk.columns);
        if values.contains(&Value::Null) {
            continue;
        }
        if let Some(b) = before {
            let old = schema.key_of_values(&fk.columns, &values_at(b, &fk.columns));
            if old == schema.key_of_values(&fk.columns, &values) {
                continue;
            }
        }
        let (engine, _) = w.fk_txn()?;
        let Some((pid, parent)) = engine.table_named(&fk.parent) else {
            return Err(violation(schema, fk, false));
        };
        let Some(pcols) =
            fk.parent_columns.iter().map(|c| parent.column_position(c)).collect::<Option<Vec<_>>>()
        else {
            return Err(violation(schema, fk, false));
        };
        if fk_rows(w, pid, &parent, &pcols, &values, Lock::Share, 1)?.is_empty() {
            return Err(violation(schema, fk, false));
        }
    }
    Ok(())
}

/// The parent side, before row `before` of `schema` is deleted (`after` None) or replaced
/// by `after`: the children of each constraint whose referenced columns change get its
/// action (1451 for RESTRICT/NO ACTION). `depth`: 0 for a statement's (or event's) own row.
/// The caller has established that checks are on, as for [`check_child`].
pub fn parent_change<W: FkWriter + ?Sized>(
    w: &mut W,
    schema: &TableSchema,
    before: &Row,
    after: Option<&Row>,
    depth: usize,
) -> Result<()> {
    let (engine, _) = w.fk_txn()?;
    let children = engine.referencing(&schema.name);
    act_on_children(w, children, schema, before, after, depth)
}

/// [`parent_change`] over the tables referencing `schema` (`children`).
fn act_on_children<W: FkWriter + ?Sized>(
    w: &mut W,
    children: Vec<(TableId, Arc<TableSchema>)>,
    schema: &TableSchema,
    before: &Row,
    after: Option<&Row>,
    depth: usize,
) -> Result<()> {
    for (cid, child) in children {
        for fk in child.foreign_keys.iter().filter(|f| f.parent.eq_ignore_ascii_case(&schema.name))
        {
            let Some(pcols) = fk
                .parent_columns
                .iter()
                .map(|c| schema.column_position(c))
                .collect::<Option<Vec<_>>>()
            else {
                continue;
            };
            let old = values_at(before, &pcols);
            if old.contains(&Value::Null) {
                continue;
            }
            if let Some(a) = after {
                let new = values_at(a, &pcols);
                if schema.key_of_values(&pcols, &old) == schema.key_of_values(&pcols, &new) {
                    continue;
                }
            }
            let action = if after.is_some() { fk.on_update } else { fk.on_delete };
            let acts = matches!(action, FkAction::Cascade | FkAction::SetNull);
            let lock = if acts { Lock::Exclusive } else { Lock::Share };
            let limit = if acts { usize::MAX } else { 1 };
            let rows = fk_rows(w, cid, &child, &fk.columns, &old, lock, limit)?;
            if rows.is_empty() {
                continue;
            }
            if !acts {
                return Err(violation(&child, fk, true));
            }
            if depth + 1 > MAX_CASCADE_DEPTH {
                return Err(other(
                    3008,
                    "HY000",
                    format!(
                        "Foreign key cascade delete/update exceeds max depth of {MAX_CASCADE_DEPTH}."
                    ),
                ));
            }
            for (key, row) in rows {
                fk_act(w, cid, &child, fk, &pcols, key, row, after, action, depth + 1)?;
            }
        }
    }
    Ok(())
}

/// Runs `action` on child row `row` (at `key`) of constraint `fk`, whose parent row
/// becomes `after` (None: deleted).
#[allow(clippy::too_many_arguments)]
fn fk_act<W: FkWriter + ?Sized>(
    w: &mut W,
    cid: TableId,
    child: &Arc<TableSchema>,
    fk: &ForeignKeyDef,
    pcols: &[usize],
    key: Key,
    row: Row,
    after: Option<&Row>,
    action: FkAction,
    depth: usize,
) -> Result<()> {
    let new = match (action, after) {
        (FkAction::Cascade, None) => None,
        (FkAction::Cascade, Some(a)) => {
            let mut n = row.clone();
            for (i, &c) in fk.columns.iter().enumerate() {
                n[c] = a[pcols[i]].clone();
            }
            Some(n)
        }
        _ => {
            let mut n = row.clone();
            for &c in &fk.columns {
                n[c] = Value::Null;
            }
            Some(n)
        }
    };
    parent_change(w, child, &row, new.as_ref(), depth)?;
    let (engine, txn) = w.fk_txn()?;
    let (key_after, stored) = match new {
        None => {
            engine.delete(txn, cid, &key)?;
            (None, None)
        }
        Some(mut n) => {
            child.normalize_row(&mut n).map_err(SqlError::Engine)?;
            let new_key = if child.primary_key.is_empty() {
                key.clone()
            } else {
                child.key_of_values(&child.primary_key, &values_at(&n, &child.primary_key))
            };
            engine.update(txn, cid, &key, n.clone())?;
            (Some(new_key), Some(n))
        }
    };
    w.fk_record(cid, child, row, stored, key_after);
    Ok(())
}

impl Session {
    /// Whether foreign keys are checked and their actions run now (`foreign_key_checks`).
    pub(crate) fn fk_checks(&self) -> bool {
        match self.variable(Var::ForeignKeyChecks) {
            Value::Int(n) => n != 0,
            Value::UInt(n) => n != 0,
            Value::Bytes(b) => b.eq_ignore_ascii_case(b"ON") || b == b"1",
            _ => true,
        }
    }

    /// [`check_child`] for a statement's row, if `foreign_key_checks` is on.
    pub fn fk_after_write(
        &mut self,
        schema: &TableSchema,
        before: Option<&Row>,
        after: &Row,
    ) -> Result<()> {
        if schema.foreign_keys.is_empty() || !self.fk_checks() {
            return Ok(());
        }
        check_child(self, schema, before, after)
    }

    /// [`parent_change`] for a statement's row, if `foreign_key_checks` is on.
    pub fn fk_before_parent_change(
        &mut self,
        schema: &TableSchema,
        before: &Row,
        after: Option<&Row>,
        depth: usize,
    ) -> Result<()> {
        let children = self.server.engine.referencing(&schema.name);
        if children.is_empty() || !self.fk_checks() {
            return Ok(());
        }
        act_on_children(self, children, schema, before, after, depth)
    }

    /// The constraints `specs` of child table `schema` (in database `db`, being created or
    /// altered), checked as mysqld checks them and added to it, with a supporting index for
    /// each constraint whose columns lead none; returns the indexes added.
    pub(crate) fn fk_define(
        &self,
        db: &str,
        schema: &mut TableSchema,
        specs: &[FkSpec],
    ) -> Result<Vec<IndexDef>> {
        let checks = self.fk_checks();
        let (_, table) = split_engine_name(&schema.name);
        let table = table.to_string();
        // Constraint names are unique in a database (InnoDB's dictionary keys them by name).
        let mut taken: Vec<String> = self
            .tables_of(db)
            .iter()
            .filter(|t| t.id != schema.id || schema.id == 0)
            .filter(|t| !t.name.eq_ignore_ascii_case(&schema.name))
            .flat_map(|t| t.foreign_keys.iter().map(|f| f.name.to_ascii_lowercase()))
            .collect();
        taken.extend(schema.foreign_keys.iter().map(|f| f.name.to_ascii_lowercase()));
        // `<table>_ibfk_<n>`: n after the highest such number the table has (mysqld's
        // `get_fk_max_generated_name_number`).
        let prefix = format!("{}_ibfk_", table.to_ascii_lowercase());
        let mut counter = schema
            .foreign_keys
            .iter()
            .filter_map(|f| f.name.to_ascii_lowercase().strip_prefix(&prefix)?.parse::<u32>().ok())
            .max()
            .unwrap_or(0);
        let mut added = Vec::new();
        for spec in specs {
            let name = match &spec.name {
                Some(n) => n.clone(),
                None => {
                    counter += 1;
                    format!("{table}_ibfk_{counter}")
                }
            };
            if taken.contains(&name.to_ascii_lowercase()) {
                return Err(other(
                    1826,
                    "HY000",
                    format!("Duplicate foreign key constraint name '{name}'"),
                ));
            }
            taken.push(name.to_ascii_lowercase());
            let mut columns = Vec::with_capacity(spec.columns.len());
            for c in &spec.columns {
                columns.push(schema.column_position(c).ok_or_else(|| {
                    other(1072, "42000", format!("Key column '{c}' doesn't exist in table"))
                })?);
            }
            if matches!(spec.on_delete, FkAction::SetDefault)
                || matches!(spec.on_update, FkAction::SetDefault)
            {
                return Err(other(1215, "HY000", "Cannot add foreign key constraint".into()));
            }
            if spec.on_delete == FkAction::SetNull || spec.on_update == FkAction::SetNull {
                if let Some(&c) = columns.iter().find(|&&c| !schema.columns[c].nullable) {
                    return Err(other(
                        1830,
                        "HY000",
                        format!(
                            "Column '{}' cannot be NOT NULL: needed in a foreign key constraint '{name}' SET NULL",
                            schema.columns[c].name
                        ),
                    ));
                }
            }
            let pdb = spec.parent.db.clone().unwrap_or_else(|| db.to_string());
            let pfull = format!("{pdb}.{}", spec.parent.name);
            let self_ref = self.server.name_key(&pfull) == self.server.name_key(&schema.name);
            let parent: Option<Arc<TableSchema>> = if self_ref {
                Some(Arc::new(schema.clone()))
            } else {
                self.server.engine.table_named(&pfull).map(|(_, s)| s)
            };
            let mut parent_name = pfull.clone();
            let mut parent_columns = spec.parent_columns.clone();
            match parent {
                None if checks => {
                    return Err(other(
                        1824,
                        "HY000",
                        format!("Failed to open the referenced table '{}'", spec.parent.name),
                    ))
                }
                None => {}
                Some(p) => {
                    parent_name = p.name.clone();
                    let mut pcols = Vec::with_capacity(parent_columns.len());
                    for c in parent_columns.iter_mut() {
                        let Some(pos) = p.column_position(c) else {
                            return Err(other(
                                3734,
                                "HY000",
                                format!(
                                    "Failed to add the foreign key constraint. Missing column '{c}' for constraint '{name}' in the referenced table '{}'",
                                    spec.parent.name
                                ),
                            ));
                        };
                        *c = p.columns[pos].name.clone();
                        pcols.push(pos);
                    }
                    for (&cc, &pc) in columns.iter().zip(&pcols) {
                        if !compatible(&schema.columns[cc], &p.columns[pc]) {
                            return Err(other(
                                3780,
                                "HY000",
                                format!(
                                    "Referencing column '{}' and referenced column '{}' in foreign key constraint '{name}' are incompatible.",
                                    schema.columns[cc].name, p.columns[pc].name
                                ),
                            ));
                        }
                    }
                    if lookup(&p, &pcols).is_none()
                        && !(self_ref && lookup(schema, &pcols).is_some())
                    {
                        return Err(other(
                            1822,
                            "HY000",
                            format!(
                                "Failed to add the foreign key constraint. Missing index for constraint '{name}' in the referenced table '{}'",
                                spec.parent.name
                            ),
                        ));
                    }
                }
            }
            if lookup(schema, &columns).is_none() {
                // The supporting index: named by FOREIGN KEY's index name, else the CONSTRAINT
                // symbol, else after its first column (`_2`, ... on collision), as mysqld.
                let taken_index = |n: &str| {
                    schema.indexes.iter().any(|i| i.name.eq_ignore_ascii_case(n))
                        || n.eq_ignore_ascii_case("PRIMARY")
                };
                let index_name = match spec.index_name.as_ref().or(spec.name.as_ref()) {
                    Some(n) if !taken_index(n) => n.clone(),
                    Some(n) => {
                        return Err(other(1061, "42000", format!("Duplicate key name '{n}'")))
                    }
                    None => {
                        let base = schema.columns[columns[0]].name.clone();
                        let mut n = base.clone();
                        let mut k = 2;
                        while taken_index(&n) {
                            n = format!("{base}_{k}");
                            k += 1;
                        }
                        n
                    }
                };
                let def = IndexDef::new(index_name, columns.clone(), false);
                schema.indexes.push(def.clone());
                added.push(def);
            }
            schema.foreign_keys.push(ForeignKeyDef {
                name,
                columns,
                parent: parent_name,
                parent_columns,
                on_delete: spec.on_delete,
                on_update: spec.on_update,
            });
        }
        Ok(added)
    }

    /// ALTER TABLE t ADD/DROP FOREIGN KEY: staged in `txn` (metadata only). Added constraints
    /// are checked against the existing rows unless `foreign_key_checks=0` (1452).
    pub(crate) fn fk_alter(
        &mut self,
        txn: &mut engine::Txn,
        table: &super::ast::TableRef,
        add: &[FkSpec],
        drop: &[String],
    ) -> Result<()> {
        let (id, current, db) = self.resolve_table(table)?;
        let mut schema = (*current).clone();
        for name in drop {
            let Some(i) =
                schema.foreign_keys.iter().position(|f| f.name.eq_ignore_ascii_case(name))
            else {
                return Err(other(
                    1091,
                    "42000",
                    format!("Can't DROP '{name}'; check that column/key exists"),
                ));
            };
            schema.foreign_keys.remove(i);
        }
        let before = schema.foreign_keys.len();
        let indexes = self.fk_define(&db, &mut schema, add)?;
        if self.fk_checks() {
            let engine = self.server.engine.clone();
            let rows: Vec<Row> = engine
                .scan(txn, id, Bound::Unbounded, Bound::Unbounded, usize::MAX)?
                .into_iter()
                .map(|(_, r)| r)
                .collect();
            check_rows(&engine, txn, id, &schema, &schema.foreign_keys[before..], &rows)?;
        }
        self.server.engine.set_foreign_keys_in(txn, id, schema.foreign_keys, indexes)?;
        Ok(())
    }

    /// DROP TABLE: 3730 if a table dropped is the parent of a constraint of a table not
    /// dropped by the same statement (`foreign_key_checks=1` only, as mysqld).
    pub(crate) fn fk_check_drop(&self, dropped: &[Arc<TableSchema>]) -> Result<()> {
        if !self.fk_checks() {
            return Ok(());
        }
        for t in dropped {
            for (_, child) in self.server.engine.referencing(&t.name) {
                if dropped.iter().any(|d| d.id == child.id) {
                    continue;
                }
                let fk = child
                    .foreign_keys
                    .iter()
                    .find(|f| self.server.name_key(&f.parent) == self.server.name_key(&t.name))
                    .expect("referencing lists tables with such a constraint");
                return Err(other(
                    3730,
                    "HY000",
                    format!(
                        "Cannot drop table '{}' referenced by a foreign key constraint '{}' on table '{}'.",
                        split_engine_name(&t.name).1,
                        fk.name,
                        split_engine_name(&child.name).1
                    ),
                ));
            }
        }
        Ok(())
    }

    /// TRUNCATE TABLE: 1701 if another table's constraint references it
    /// (`foreign_key_checks=1` only; mysqld's `fk_truncate_illegal_if_parent`).
    pub(crate) fn fk_check_truncate(&self, t: &TableSchema) -> Result<()> {
        if !self.fk_checks() {
            return Ok(());
        }
        if let Some((_, child)) =
            self.server.engine.referencing(&t.name).into_iter().find(|(id, _)| *id != t.id)
        {
            let fk = child
                .foreign_keys
                .iter()
                .find(|f| self.server.name_key(&f.parent) == self.server.name_key(&t.name))
                .expect("referencing lists tables with such a constraint");
            let (db, name) = split_engine_name(&child.name);
            return Err(other(
                1701,
                "42000",
                format!(
                    "Cannot truncate a table referenced in a foreign key constraint ({}.{}, CONSTRAINT {})",
                    quote(db),
                    quote(name),
                    quote(&fk.name)
                ),
            ));
        }
        Ok(())
    }
}

/// DROP INDEX: 1553 if the index is the only one whose leading columns support a constraint
/// of the table (as child) or of a table referencing it (as parent).
pub(crate) fn check_drop_index(
    engine: &engine::Engine,
    schema: &TableSchema,
    index: &str,
) -> Result<()> {
    let Some(pos) = schema.index(index) else { return Ok(()) };
    let mut without = schema.clone();
    without.indexes.remove(pos);
    let needed =
        |cols: &[usize]| lookup(schema, cols).is_some() && lookup(&without, cols).is_none();
    let mut used = schema.foreign_keys.iter().any(|f| needed(&f.columns));
    for (_, child) in engine.referencing(&schema.name) {
        for f in
            child.foreign_keys.iter().filter(|f| engine.same_table_name(&f.parent, &schema.name))
        {
            let pcols: Option<Vec<usize>> =
                f.parent_columns.iter().map(|c| schema.column_position(c)).collect();
            used |= pcols.is_some_and(|p| needed(&p));
        }
    }
    if used {
        return Err(other(
            1553,
            "HY000",
            format!(
                "Cannot drop index '{}': needed in a foreign key constraint",
                schema.indexes[pos].name
            ),
        ));
    }
    Ok(())
}

/// The rows of table `id` (definition `schema`) checked against its new constraints `fks`
/// (ALTER TABLE ... ADD FOREIGN KEY with `foreign_key_checks=1`, as mysqld's copy of the rows
/// checks each): a row without a parent answers 1452; parents are read in `txn`'s view, the
/// table's own rows are `rows` (a self-reference).
pub(crate) fn check_rows(
    engine: &engine::Engine,
    txn: &engine::Txn,
    id: TableId,
    schema: &TableSchema,
    fks: &[ForeignKeyDef],
    rows: &[Row],
) -> Result<()> {
    for fk in fks {
        let Some((pid, parent)) = engine.table_named(&fk.parent) else { continue };
        let parent = if pid == id { Arc::new(schema.clone()) } else { parent };
        let pcols: Vec<usize> =
            fk.parent_columns.iter().filter_map(|c| parent.column_position(c)).collect();
        for row in rows {
            let values = values_at(row, &fk.columns);
            if values.contains(&Value::Null) {
                continue;
            }
            let found = if pid == id {
                let want = parent.key_of_values(&pcols, &values);
                rows.iter().any(|r| parent.key_of_values(&pcols, &values_at(r, &pcols)) == want)
            } else {
                let found = match lookup(&parent, &pcols) {
                    Some(Lookup::Index(n)) => engine.scan_index(
                        txn,
                        pid,
                        &n,
                        Bound::Included(&values),
                        Bound::Included(&values),
                        1,
                    )?,
                    _ => engine.scan(
                        txn,
                        pid,
                        Bound::Included(&values),
                        Bound::Included(&values),
                        1,
                    )?,
                };
                !found.is_empty()
            };
            if !found {
                return Err(violation(schema, fk, false));
            }
        }
    }
    Ok(())
}
