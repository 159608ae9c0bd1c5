//! ALTER TABLE and RENAME TABLE in the engine: one DDL step, `Ddl::Replace`, that installs a
//! table's new definition and, when the row format changes, its rows in the new format.
//!
//! Why one step that carries the rows: the value conversions of ALTER TABLE ... MODIFY are
//! the SQL layer's (mysqld's `Field::store` rules, strict or not, with warnings), and they
//! depend on session state the engine does not have. So the SQL layer converts every row
//! while the table is held for DDL, and the DdlPrepare record logs the converted rows with
//! the new schema. Replay installs exactly what the statement checked: it never converts a
//! value again (mysqld's ALTER ... ALGORITHM=COPY redo-logs the copied rows the same way).
//! A change that keeps the row format (rename of a column or of the table, a new default,
//! indexes added, dropped or renamed, table options) logs no rows: the row cells are shared
//! with the old table object and only the secondary indexes are rebuilt (mysqld's
//! ALGORITHM=INSTANT/INPLACE cases).
//!
//! Invariants:
//! - The replacement keeps the table id; the old object is retired at commit, so a writer
//!   that opened it waits and reopens (as for CREATE/DROP INDEX).
//! - A kept-rows replacement has the same number of columns, each of the same type and
//!   collation, and the same primary key (checked in `check_replace`; asserted on replay).
//! - Rows given are already normalized to the new schema: `replaced` checks each (primary
//!   key and unique indexes: 1062, nothing installed) and the rebuilt table holds exactly
//!   them, keyed as an insert would key them (hidden row ids 1.. when there is no primary
//!   key).
//! - A new table name is reserved from staging to the end of the transaction, as CREATE
//!   TABLE reserves one; several renames in one transaction may swap names (`install` gives
//!   up an old name only if it still points at the renamed table).

use std::ops::Bound;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::{copy_table, ddl_table, unlock_exclusive, Catalog, Ddl, DdlStep, Engine, Inner, Txn};
use crate::codec::{Put, Reader};
use crate::error::{Error, Result};
use crate::schema::{decode_schema, encode_schema, hidden_key, TableId, TableSchema};
use crate::table::{ShardedMap, Table};
use crate::value::{decode_row, encode_row, Row, Value};

// Format (replace): u8 6 (written by the caller) | u32 table | schema | u8 rows present |
// u32 count | rows.
pub(super) fn encode_replace(b: &mut Vec<u8>, t: TableId, s: &TableSchema, rows: Option<&[Row]>) {
    b.put_u8(6);
    b.put_u32(t);
    encode_schema(b, s);
    match rows {
        None => b.put_u8(0),
        Some(rows) => {
            b.put_u8(1);
            b.put_u32(rows.len() as u32);
            for r in rows {
                encode_row(b, r);
            }
        }
    }
}

pub(super) fn decode_replace(r: &mut Reader<'_>) -> Result<Ddl> {
    let t = r.u32()?;
    let s = decode_schema(r)?;
    let rows = match r.u8()? {
        0 => None,
        1 => {
            let n = r.u32()?;
            // No allocation on the count: each row is read from the bytes present.
            let mut rows = Vec::new();
            for _ in 0..n {
                rows.push(decode_row(r)?);
            }
            Some(rows)
        }
        _ => return Err(r.corrupt()),
    };
    Ok(Ddl::Replace(t, s, rows))
}

/// Whether `new` keeps `old`'s row format: same columns in order, of the same types and
/// collations, and the same primary key (names, defaults, nullability of non-key columns
/// widened, indexes and the table name may differ).
pub fn keeps_row_format(old: &TableSchema, new: &TableSchema) -> bool {
    old.columns.len() == new.columns.len()
        && old.primary_key == new.primary_key
        && old.columns.iter().zip(&new.columns).all(|(a, b)| {
            a.ty == b.ty
                && a.collation == b.collation
                && a.elements == b.elements
                && (b.nullable || !a.nullable)
                && a.auto_increment == b.auto_increment
        })
}

/// Checks a replacement definition of table `t` (stage time; `live` for a new statement).
pub(super) fn check_replace(
    _inner: &Inner,
    _txn: &Txn,
    t: &Table,
    schema: &TableSchema,
    _live: bool,
) -> Result<()> {
    if schema.id != t.schema.id {
        return Err(Error::InvalidSchema { reason: "a replaced table keeps its id" });
    }
    let mut s = schema.clone();
    s.validate()?;
    if s != *schema {
        return Err(Error::InvalidSchema { reason: "a replacement definition must be validated" });
    }
    for (i, idx) in schema.indexes.iter().enumerate() {
        schema.check_index(idx, &schema.indexes[..i])?;
    }
    Ok(())
}

/// The table object `schema` describes: `t`'s rows kept (rows None; the format must be
/// kept) or exactly `rows` (checked for duplicate keys: 1062).
pub(super) fn replaced(t: &Table, mut schema: TableSchema, rows: Option<&[Row]>) -> Result<Table> {
    let start = schema.auto_increment_start.take();
    let new = match rows {
        None => {
            if !keeps_row_format(&t.schema, &schema) {
                return Err(Error::InvalidSchema {
                    reason: "a change of the row format must give the rebuilt rows",
                });
            }
            kept_rows(t, schema)?
        }
        Some(rows) => rebuilt(t, schema, rows)?,
    };
    if let Some(n) = start {
        set_auto_increment(&new, n);
    }
    Ok(new)
}

/// `ALTER TABLE ... AUTO_INCREMENT = n` on table object `t` (held for DDL, or being
/// replayed): the counter becomes n, or the largest committed value of the column plus one
/// if that is more: InnoDB lowers the counter only down to that (`innobase_set_max_autoinc`,
/// "you cannot reset the counter to a value less than or equal to the value currently in
/// use"). A table without an AUTO_INCREMENT column keeps n, unused.
fn set_auto_increment(t: &Table, n: u64) {
    let mut next = n.max(1);
    if let Some(a) = t.schema.auto_increment_column() {
        for (_, row) in t.committed_rows(None) {
            let used = match row.value(a) {
                Value::Int(i) if i > 0 => i as u64,
                Value::UInt(u) => u,
                _ => continue,
            };
            next = next.max(used.saturating_add(1));
        }
    }
    t.auto_inc.store(next, Ordering::Release);
}

/// The same row cells under the new definition; each secondary index reused when an old
/// one has the same key parts and uniqueness, else built from the committed rows.
fn kept_rows(t: &Table, schema: TableSchema) -> Result<Table> {
    let mut new = copy_table(t, schema);
    let mut maps = Vec::with_capacity(new.schema.indexes.len());
    for (i, def) in new.schema.indexes.iter().enumerate() {
        let same = t.schema.indexes.iter().position(|o| o.same_entries(def));
        match same {
            Some(o) => maps.push(t.indexes[o].clone_contents()),
            None => maps.push(build_index(&new, i, t)?),
        }
    }
    new.indexes = maps;
    Ok(new)
}

/// Index `idx` of `new` built from `from`'s committed rows (1062 on a duplicate of a unique
/// key): for ALTER's new indexes and CREATE INDEX (`with_index`).
pub(super) fn build_index(new: &Table, idx: usize, from: &Table) -> Result<ShardedMap> {
    let map = ShardedMap::new();
    for shard in from.rows.shards() {
        for cell in shard.read().values() {
            let Some(row) = cell.state.lock().committed.clone() else { continue };
            let (entry, plen) = new.schema.index_entry(idx, &row, &cell.key);
            let mut m = map.shard(&entry[..plen]).write();
            if new.schema.unique_applies(idx, &row) {
                let prefix = &entry[..plen];
                let dup = m.range::<[u8], _>((Bound::Included(prefix), Bound::Unbounded)).next();
                if dup.is_some_and(|(k, _)| k.starts_with(prefix)) {
                    let def = &new.schema.indexes[idx];
                    return Err(Error::DupEntry {
                        entry: new.schema.index_entry_text(idx, &row),
                        key: def.name.clone(),
                    });
                }
            }
            m.insert(entry.into(), cell.clone());
        }
    }
    Ok(map)
}

/// A new table (CREATE TABLE ... SELECT) holding exactly `rows`, normalized to `schema`
/// (1062 on a duplicate key); AUTO_INCREMENT continues after the largest value given.
pub(super) fn filled(schema: TableSchema, rows: &[Row]) -> Result<Table> {
    let empty = Table::new(schema.clone());
    rebuilt(&empty, schema, rows)
}

/// A new table object holding exactly `rows` (each normalized to `schema` here).
fn rebuilt(t: &Table, schema: TableSchema, rows: &[Row]) -> Result<Table> {
    let new = Table::new(schema);
    new.auto_inc.store(t.auto_inc.load(Ordering::Acquire), Ordering::Release);
    let mut next_hidden = 1u64;
    for row in rows {
        let mut row = row.clone();
        if row.len() != new.schema.columns.len() {
            return Err(Error::InvalidSchema { reason: "a rebuilt row has the new column count" });
        }
        new.schema.normalize_row(&mut row)?;
        let key = if new.schema.primary_key.is_empty() {
            let k = hidden_key(next_hidden);
            next_hidden += 1;
            k
        } else {
            new.schema.primary_key_of(&row)
        };
        if new.rows.shard(&key).read().contains_key(&key) {
            return Err(Error::DupEntry {
                entry: new.schema.entry_text(&new.schema.primary_key, &row),
                key: "PRIMARY".into(),
            });
        }
        for idx in 0..new.schema.indexes.len() {
            if !new.schema.unique_applies(idx, &row) {
                continue;
            }
            let (entry, plen) = new.schema.index_entry(idx, &row, &key);
            let prefix = &entry[..plen];
            let m = new.indexes[idx].shard(prefix).read();
            let dup = m.range::<[u8], _>((Bound::Included(prefix), Bound::Unbounded)).next();
            if dup.is_some_and(|(k, _)| k.starts_with(prefix)) {
                let def = &new.schema.indexes[idx];
                return Err(Error::DupEntry {
                    entry: new.schema.index_entry_text(idx, &row),
                    key: def.name.clone(),
                });
            }
        }
        new.apply_put(&key, row);
    }
    Ok(new)
}

/// Drops the reservation of `name` by table `id` (end of its DDL transaction).
pub(super) fn unreserve(c: &mut Catalog, id: TableId, name: &str) {
    let lname = c.key(name);
    if c.reserved.get(&lname) == Some(&id) {
        c.reserved.remove(&lname);
    }
}

impl Engine {
    /// Stages ALTER TABLE in DDL transaction `txn`: table `id` gets definition `schema`
    /// (its `id` must be `id`), and when `rows` is given, exactly those rows (in the new
    /// format, in the order the hidden row ids follow). Waits, up to the lock wait timeout,
    /// for transactions that changed the table (mysqld's exclusive metadata lock). Errors:
    /// 1050 if a new name is taken, 1062 on duplicate keys; nothing changes then.
    pub fn replace_table_in(
        &self,
        txn: &mut Txn,
        id: TableId,
        mut schema: TableSchema,
        rows: Option<Vec<Row>>,
    ) -> Result<()> {
        self.inner.enter_ddl(txn)?;
        schema.id = id;
        schema.validate()?;
        self.reserve_names(txn, &[(id, schema.name.clone())])?;
        let name = schema.name.clone();
        match self.inner.stage(txn, Ddl::Replace(id, schema, rows), true) {
            Ok(step) => {
                txn.ddl.push(step);
                Ok(())
            }
            Err(e) => {
                unreserve(&mut self.inner.catalog.write(), id, &name);
                Err(e)
            }
        }
    }

    /// Stages ALTER TABLE with a row rebuild in `txn`: takes the table for DDL (waiting, up
    /// to the lock wait timeout, for the transactions that use it: mysqld's exclusive
    /// metadata lock), reads its committed rows in clustered-key order, and gives them to
    /// `convert`, which returns them in the new format (or the error that aborts the ALTER,
    /// nothing changed). The table stays held until `txn` ends; the converted rows are what
    /// the DdlPrepare record logs and what replay installs.
    pub fn alter_table_in<E, F>(
        &self,
        txn: &mut Txn,
        id: TableId,
        mut schema: TableSchema,
        convert: F,
    ) -> std::result::Result<(), E>
    where
        E: From<Error>,
        F: FnOnce(Vec<Row>) -> std::result::Result<Vec<Row>, E>,
    {
        let inner = &self.inner;
        inner.enter_ddl(txn)?;
        schema.id = id;
        schema.validate()?;
        if txn.ddl.iter().any(|s| ddl_table(&s.ddl) == Some(id)) {
            return Err(Error::TxnState {
                reason: "the table already has a schema change in this transaction",
            }
            .into());
        }
        self.reserve_names(txn, &[(id, schema.name.clone())])?;
        let name = schema.name.clone();
        let t = match inner.lock_exclusive(id) {
            Ok(t) => t,
            Err(e) => {
                unreserve(&mut inner.catalog.write(), id, &name);
                return Err(e.into());
            }
        };
        let result = (|| -> std::result::Result<(Vec<Row>, Table), E> {
            check_replace(inner, txn, &t, &schema, true)?;
            let rows: Vec<Row> =
                t.committed_rows(None).into_iter().map(|(_, r)| r.to_vec()).collect();
            let rows = convert(rows)?;
            let built = replaced(&t, schema.clone(), Some(&rows))?;
            Ok((rows, built))
        })();
        match result {
            Ok((rows, built)) => {
                txn.ddl.push(DdlStep {
                    ddl: Ddl::Replace(id, schema, Some(rows)),
                    locked: Some(t),
                    built: Some(Arc::new(built)),
                });
                Ok(())
            }
            Err(e) => {
                unlock_exclusive(&t);
                unreserve(&mut inner.catalog.write(), id, &name);
                Err(e)
            }
        }
    }

    /// Stages `RENAME TABLE` of several tables in `txn` (each pair: table id, new full name
    /// `db.table`), the final names given: names may be swapped among the tables renamed.
    /// 1050 if a new name belongs to a table not renamed away.
    pub fn rename_tables_in(&self, txn: &mut Txn, renames: &[(TableId, String)]) -> Result<()> {
        self.inner.enter_ddl(txn)?;
        self.reserve_names(txn, renames)?;
        // Old name -> new name: the constraints naming a renamed parent follow it.
        let moves: Vec<(String, String)> = renames
            .iter()
            .filter_map(|(id, name)| {
                Some((self.inner.table(*id).ok()?.schema.name.clone(), name.clone()))
            })
            .collect();
        for (n, (id, name)) in renames.iter().enumerate() {
            let staged = self.inner.table(*id).and_then(|t| {
                let mut s = (*t.schema).clone();
                s.name = name.clone();
                crate::foreign_keys::repoint_parents(&mut s.foreign_keys, &moves);
                self.inner.stage(txn, Ddl::Replace(*id, s, None), true)
            });
            match staged {
                Ok(step) => txn.ddl.push(step),
                Err(e) => {
                    let mut c = self.inner.catalog.write();
                    for (id, name) in &renames[n..] {
                        unreserve(&mut c, *id, name);
                    }
                    return Err(e);
                }
            }
        }
        let ids: Vec<TableId> = renames.iter().map(|(id, _)| *id).collect();
        self.repoint_foreign_keys_in(txn, &moves, &ids)
    }

    /// Stages, for each table (but those in `skip`, which stage their own definitions) with a
    /// foreign key whose parent is an old name of `moves` (old full name, new full name), its
    /// definition with the parent's new name: a metadata-only change, committed with the
    /// RENAME (or ALTER TABLE ... RENAME) that renamed the parent.
    pub fn repoint_foreign_keys_in(
        &self,
        txn: &mut Txn,
        moves: &[(String, String)],
        skip: &[TableId],
    ) -> Result<()> {
        let mut children: Vec<(TableId, Arc<TableSchema>)> = Vec::new();
        for (old, _) in moves {
            for (id, schema) in self.referencing(old) {
                if !skip.contains(&id) && !children.iter().any(|(c, _)| *c == id) {
                    children.push((id, schema));
                }
            }
        }
        for (id, schema) in children {
            let mut s = (*schema).clone();
            if crate::foreign_keys::repoint_parents(&mut s.foreign_keys, moves) {
                let step = self.inner.stage(txn, Ddl::Replace(id, s, None), true)?;
                txn.ddl.push(step);
            }
        }
        Ok(())
    }

    /// Reserves the new names of `renames` (a table keeping its name reserves nothing).
    fn reserve_names(&self, txn: &Txn, renames: &[(TableId, String)]) -> Result<()> {
        let mut c = self.inner.catalog.write();
        let moving: Vec<TableId> = renames
            .iter()
            .filter(|(id, name)| {
                c.tables.get(id).is_some_and(|t| c.key(&t.schema.name) != c.key(name))
            })
            .map(|(id, _)| *id)
            .collect();
        let staged_renamed = |id: TableId| {
            txn.ddl.iter().any(|s| {
                matches!(&s.ddl, Ddl::Replace(i, sc, _) if *i == id
                && c.tables.get(&id).is_some_and(|t| c.key(&t.schema.name) != c.key(&sc.name)))
            })
        };
        let mut taken = Vec::new();
        for (id, name) in renames {
            if !moving.contains(id) {
                continue;
            }
            let lname = c.key(name);
            let holder = c.names.get(&lname).copied();
            let held =
                holder.is_some_and(|h| h != *id && !moving.contains(&h) && !staged_renamed(h));
            if held || c.reserved.contains_key(&lname) || taken.contains(&lname) {
                return Err(Error::TableExists { name: name.clone() });
            }
            taken.push(lname);
        }
        for (id, name) in renames {
            if moving.contains(id) {
                let key = c.key(name);
                c.reserved.insert(key, *id);
            }
        }
        Ok(())
    }
}
