//! Foreign key definitions as the engine keeps them (issue 20): part of a child table's
//! [`TableSchema`], written in its encoding (checkpoints, CREATE TABLE redo records) and changed
//! by a metadata-only DDL ([`crate::Engine::set_foreign_keys_in`]).
//!
//! Why the engine keeps them: InnoDB keeps FK definitions in its own dictionary
//! (`dict_foreign_t`, `dict_table_t::foreign_set`), and the SQL layer enforces them with the
//! engine's row locks. The engine only stores and validates the definitions; the checks and
//! cascades (mysqld's `row_ins_check_foreign_constraint`, `row_upd_cascade_...`) live in
//! `sql::foreign_keys`, which knows sessions, `foreign_key_checks` and the error texts.
//!
//! The parent is named by its engine name (`db.table`) and its columns by name, not by id and
//! position: with `foreign_key_checks=0` a child may reference a parent that does not exist
//! yet (mysqld allows it, as mariadb-dump's output relies on), and parent columns are
//! resolved when a check runs.
//!
//! Invariants (checked by [`TableSchema`]'s validation): a constraint has a non-empty name
//! unique in its table (case-insensitive), at least one column, child column positions that
//! exist and are distinct, and as many parent columns as child columns.

use crate::codec::{Put, Reader};
use crate::error::{Error, Result};

/// A referential action (`ON DELETE` / `ON UPDATE`), InnoDB's `DICT_FOREIGN_ON_*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FkAction {
    /// Neither clause given: InnoDB treats it as RESTRICT; SHOW CREATE TABLE prints nothing.
    Unspecified,
    Restrict,
    Cascade,
    SetNull,
    NoAction,
    /// Parsed by mysqld but refused by InnoDB (1215 at CREATE); never stored.
    SetDefault,
}

impl FkAction {
    /// The rule as `information_schema.REFERENTIAL_CONSTRAINTS` shows it.
    pub fn rule(self) -> &'static str {
        match self {
            FkAction::Unspecified | FkAction::NoAction => "NO ACTION",
            FkAction::Restrict => "RESTRICT",
            FkAction::Cascade => "CASCADE",
            FkAction::SetNull => "SET NULL",
            FkAction::SetDefault => "SET DEFAULT",
        }
    }

    /// The clause text SHOW CREATE TABLE prints (None: nothing printed).
    pub fn clause(self) -> Option<&'static str> {
        match self {
            FkAction::Unspecified => None,
            other => Some(other.rule()),
        }
    }

    fn code(self) -> u8 {
        match self {
            FkAction::Unspecified => 0,
            FkAction::Restrict => 1,
            FkAction::Cascade => 2,
            FkAction::SetNull => 3,
            FkAction::NoAction => 4,
            FkAction::SetDefault => 5,
        }
    }

    fn from_code(c: u8) -> Option<FkAction> {
        Some(match c {
            0 => FkAction::Unspecified,
            1 => FkAction::Restrict,
            2 => FkAction::Cascade,
            3 => FkAction::SetNull,
            4 => FkAction::NoAction,
            5 => FkAction::SetDefault,
            _ => return None,
        })
    }
}

/// One FOREIGN KEY constraint of a child table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForeignKeyDef {
    /// The constraint name (`t_ibfk_1` when generated).
    pub name: String,
    /// Child column positions, in constraint order.
    pub columns: Vec<usize>,
    /// The parent's engine name, `db.table`.
    pub parent: String,
    /// The parent's column names, matched by position to `columns`.
    pub parent_columns: Vec<String>,
    pub on_delete: FkAction,
    pub on_update: FkAction,
}

/// Most constraints a table may have (bounds the decoder; mysqld has no lower limit than its
/// 64-index limit makes practical, one supporting index per constraint).
pub const MAX_FOREIGN_KEYS: usize = 4096;

pub(crate) fn check(fks: &[ForeignKeyDef], ncols: usize) -> Result<()> {
    let bad = |reason| Err(Error::InvalidSchema { reason });
    if fks.len() > MAX_FOREIGN_KEYS {
        return bad("too many foreign keys");
    }
    for (i, fk) in fks.iter().enumerate() {
        if fk.name.is_empty() || fks[..i].iter().any(|o| o.name.eq_ignore_ascii_case(&fk.name)) {
            return bad("foreign key names must be non-empty and distinct");
        }
        let distinct =
            fk.columns.iter().enumerate().all(|(j, &c)| c < ncols && !fk.columns[..j].contains(&c));
        if fk.columns.is_empty() || !distinct || fk.parent_columns.len() != fk.columns.len() {
            return bad("foreign key columns must exist, be distinct and match the parent's");
        }
        if !fk.parent.contains('.') || fk.parent_columns.iter().any(|c| c.is_empty()) {
            return bad("a foreign key names its parent as db.table and its columns");
        }
    }
    Ok(())
}

/// Points the constraints of `fks` whose parent is an old name in `moves` (old full name, new
/// full name; compared case-insensitively) at the new name, as InnoDB's
/// `row_rename_table_for_mysql` updates `dict_foreign_t::referenced_table_name` at RENAME
/// TABLE. True if one changed.
pub fn repoint_parents(fks: &mut [ForeignKeyDef], moves: &[(String, String)]) -> bool {
    let mut changed = false;
    for fk in fks {
        if let Some((_, new)) = moves.iter().find(|(old, _)| old.eq_ignore_ascii_case(&fk.parent)) {
            if fk.parent != *new {
                fk.parent = new.clone();
                changed = true;
            }
        }
    }
    changed
}

// Format (foreign keys, after a schema's indexes when the index count has FLAG set): u16 count
// | per key: bytes name, u16 column count, u16 positions, bytes parent, per column bytes parent
// column name, u8 on delete, u8 on update.
pub(crate) const FLAG: u16 = 0x8000;

pub(crate) fn encode(out: &mut Vec<u8>, fks: &[ForeignKeyDef]) {
    out.put_u16(fks.len() as u16);
    for fk in fks {
        out.put_bytes(fk.name.as_bytes());
        out.put_u16(fk.columns.len() as u16);
        for &c in &fk.columns {
            out.put_u16(c as u16);
        }
        out.put_bytes(fk.parent.as_bytes());
        for c in &fk.parent_columns {
            out.put_bytes(c.as_bytes());
        }
        out.put_u8(fk.on_delete.code());
        out.put_u8(fk.on_update.code());
    }
}

pub(crate) fn decode(r: &mut Reader<'_>) -> Result<Vec<ForeignKeyDef>> {
    let n = usize::from(r.u16()?);
    if n > MAX_FOREIGN_KEYS {
        return Err(r.corrupt());
    }
    // Not `with_capacity(n)`: the count is not checked against the bytes present.
    let mut out = Vec::new();
    for _ in 0..n {
        let name = r.string()?;
        let ncols = r.u16()?;
        let mut columns = Vec::new();
        for _ in 0..ncols {
            columns.push(usize::from(r.u16()?));
        }
        let parent = r.string()?;
        let mut parent_columns = Vec::new();
        for _ in 0..ncols {
            parent_columns.push(r.string()?);
        }
        let on_delete = FkAction::from_code(r.u8()?).ok_or_else(|| r.corrupt())?;
        let on_update = FkAction::from_code(r.u8()?).ok_or_else(|| r.corrupt())?;
        out.push(ForeignKeyDef { name, columns, parent, parent_columns, on_delete, on_update });
    }
    Ok(out)
}
