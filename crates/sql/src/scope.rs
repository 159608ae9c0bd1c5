//! The names a multi-table SELECT can see: its tables (each with its alias), their columns laid
//! end to end in one joined row, and how a column name resolves to a position in that row.
//!
//! Why a module of its own: binding ([`crate::exec`]) resolves names through it, and the query
//! layer ([`crate::query`]) builds it; neither owns the other.
//!
//! Resolution follows mysqld's `find_field_in_tables` (sql/sql_base.cc):
//! - `t.c`: `t` must be a table's alias, or its name when it has no alias (an aliased table
//!   is not reachable by its own name); otherwise 1054 `Unknown column 't.c' in '<clause>'`.
//! - `c`: the one table having `c`; none is 1054, more than one is 1052 `Column 'c' in
//!   <clause> is ambiguous` (SQLSTATE 23000); a column merged by `USING`/`NATURAL` counts once
//!   (the right table's copy is hidden: mysqld's `Natural_join_column` coalesces them).
//!
//! `*` lists the USING/NATURAL columns first (once), then the other columns of each table in
//! FROM order (mysqld's `store_natural_using_join_columns`); `t.*` lists table `t`'s columns.
//!
//! Invariants: the entries' column ranges are contiguous, in FROM order, and cover
//! `schema.columns` exactly; `merged[i]` marks only columns that an earlier entry also has.

use std::sync::Arc;

use engine::TableSchema;

use crate::error::{Result, SqlError};

/// One table of the FROM clause.
#[derive(Debug, Clone)]
pub(crate) struct ScopeEntry {
    pub db: String,
    /// The table's alias, or its name.
    pub label: String,
    pub aliased: bool,
    pub schema: Arc<TableSchema>,
    /// Position of its first column in the joined row.
    pub offset: usize,
    /// Columns hidden from unqualified names and `*` (merged into an earlier table's by
    /// USING/NATURAL).
    pub merged: Vec<bool>,
    /// Outer-joined: its columns may be NULL-extended.
    pub nullable: bool,
    /// The engine table, or None for a row set the server makes up (information_schema).
    pub table: Option<engine::TableId>,
}

/// The tables of a multi-table FROM, and their joined row.
#[derive(Debug, Clone)]
pub(crate) struct Scope {
    pub entries: Vec<ScopeEntry>,
    /// All columns end to end (no keys): what expressions over the joined row are typed by.
    pub schema: Arc<TableSchema>,
    /// The joined-row positions `*` lists, in order.
    pub star: Vec<usize>,
    /// Table names and aliases compare exactly (`lower_case_table_names = 0`, as mysqld's
    /// `table_alias_charset` on Linux), else case-insensitively.
    pub exact: bool,
}

/// Whether two table names or aliases are the same under `exact` (see [`Scope::exact`]).
pub(crate) fn same_name(exact: bool, a: &str, b: &str) -> bool {
    if exact {
        a == b
    } else {
        a.eq_ignore_ascii_case(b)
    }
}

pub(crate) fn ambiguous(column: &str, context: &str) -> SqlError {
    SqlError::Other {
        code: 1052,
        sqlstate: "23000",
        message: format!("Column '{column}' in {context} is ambiguous"),
    }
}

impl Scope {
    /// Builds the scope from the entries (offsets and `merged` are filled in here from
    /// `using`: per entry, the column names it shares with the tables before it).
    /// `exact`: names compare exactly ([`Scope::exact`]).
    pub(crate) fn new(
        mut entries: Vec<ScopeEntry>,
        using: &[Vec<String>],
        exact: bool,
    ) -> Result<Scope> {
        // 1066 for two tables under one name (mysqld's `unique_table` check).
        for (i, e) in entries.iter().enumerate() {
            if entries[..i].iter().any(|p| same_name(exact, &p.label, &e.label)) {
                return Err(SqlError::Other {
                    code: 1066,
                    sqlstate: "42000",
                    message: format!("Not unique table/alias: '{}'", e.label),
                });
            }
        }
        let mut offset = 0;
        let mut columns = Vec::new();
        let mut star: Vec<usize> = Vec::new();
        for (k, e) in entries.iter_mut().enumerate() {
            e.offset = offset;
            e.merged = vec![false; e.schema.columns.len()];
            let shared = using.get(k).map(Vec::as_slice).unwrap_or(&[]);
            // The USING columns come first in `*`, in the order of the left side's columns.
            let mut front = Vec::new();
            for name in shared {
                let Some(p) = e.schema.column_position(name) else {
                    return Err(SqlError::UnknownColumn {
                        column: name.clone(),
                        context: "from clause",
                    });
                };
                let left = star.iter().copied().find(|&q| {
                    let c: &engine::Column = &columns[q];
                    c.name.eq_ignore_ascii_case(name)
                });
                let Some(left) = left else {
                    return Err(SqlError::UnknownColumn {
                        column: name.clone(),
                        context: "from clause",
                    });
                };
                e.merged[p] = true;
                front.push(left);
            }
            if !front.is_empty() {
                star.retain(|q| !front.contains(q));
                front.append(&mut star);
                star = front;
            }
            for (i, c) in e.schema.columns.iter().enumerate() {
                let mut c = c.clone();
                if e.nullable {
                    c.nullable = true;
                }
                columns.push(c);
                if !e.merged[i] {
                    star.push(offset + i);
                }
            }
            offset += e.schema.columns.len();
        }
        let schema = Arc::new(TableSchema::new("", columns, Vec::new()));
        Ok(Scope { entries, schema, star, exact })
    }

    /// The table `label` (an alias, or a name that has none), by its FROM position.
    pub(crate) fn entry_named(&self, db: Option<&str>, label: &str) -> Option<usize> {
        self.entries.iter().position(|e| {
            same_name(self.exact, &e.label, label)
                && db.is_none_or(|d| !e.aliased && same_name(self.exact, &e.db, d))
        })
    }

    /// The entry holding joined-row position `p`.
    pub(crate) fn entry_of(&self, p: usize) -> Option<&ScopeEntry> {
        self.entries.iter().rev().find(|e| e.offset <= p)
    }

    /// Resolves a column name to its joined-row position.
    pub(crate) fn resolve(
        &self,
        table: Option<&str>,
        column: &str,
        context: &'static str,
    ) -> Result<usize> {
        if let Some(q) = table {
            let unknown = || SqlError::UnknownColumn { column: format!("{q}.{column}"), context };
            let k = self.entry_named(None, q).ok_or_else(unknown)?;
            let e = &self.entries[k];
            return e.schema.column_position(column).map(|p| e.offset + p).ok_or_else(unknown);
        }
        let mut found = None;
        for e in &self.entries {
            if let Some(p) = e.schema.column_position(column) {
                if e.merged[p] {
                    continue;
                }
                if found.is_some() {
                    return Err(ambiguous(column, context));
                }
                found = Some(e.offset + p);
            }
        }
        found.ok_or_else(|| SqlError::UnknownColumn { column: column.to_string(), context })
    }

    /// The positions `t.*` lists.
    pub(crate) fn table_star(&self, db: Option<&str>, label: &str) -> Result<Vec<usize>> {
        let k = self.entry_named(db, label).ok_or_else(|| SqlError::Other {
            code: 1051,
            sqlstate: "42S02",
            message: format!("Unknown table '{label}'"),
        })?;
        let e = &self.entries[k];
        Ok((0..e.schema.columns.len()).map(|i| e.offset + i).collect())
    }
}
