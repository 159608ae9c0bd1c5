//! The syntax of foreign keys (issue 20): sqlparser's FOREIGN KEY constraint → [`FkSpec`], and
//! `ALTER TABLE` statements made only of `ADD [CONSTRAINT [sym]] FOREIGN KEY ...`, `DROP
//! FOREIGN KEY sym` and `DROP CONSTRAINT sym` clauses → [`Stmt::AlterForeignKeys`]. Those are
//! recognised here, before the general ALTER TABLE conversion, so the foreign key DDL (a
//! metadata-only change, `crate::foreign_keys`) stays apart from the table-rebuilding ALTER.
//! mysqld's grammar: `sql_yacc.yy` `key_def` (`opt_constraint FOREIGN KEY opt_ident (key_list)
//! references`) and `alter_list_item` (`DROP FOREIGN KEY ident`).
//!
//! ON DELETE/UPDATE SET DEFAULT parses (InnoDB refuses it at definition, 1215, as mysqld does).
//! A constraint characteristic (`DEFERRABLE`, ...) is no MySQL syntax: 1064.

use sqlparser::ast as sp;

use engine::FkAction;

use super::ast::{FkSpec, Stmt, TableRef};
use super::error::{Result, SqlError};

fn action(a: &Option<sp::ReferentialAction>) -> FkAction {
    match a {
        None => FkAction::Unspecified,
        Some(sp::ReferentialAction::Restrict) => FkAction::Restrict,
        Some(sp::ReferentialAction::Cascade) => FkAction::Cascade,
        Some(sp::ReferentialAction::SetNull) => FkAction::SetNull,
        Some(sp::ReferentialAction::NoAction) => FkAction::NoAction,
        Some(sp::ReferentialAction::SetDefault) => FkAction::SetDefault,
    }
}

/// The specification of a FOREIGN KEY table constraint (`con` must be one).
pub(crate) fn fk_spec(con: &sp::TableConstraint) -> Result<FkSpec> {
    let sp::TableConstraint::ForeignKey {
        name,
        index_name,
        columns,
        foreign_table,
        referred_columns,
        on_delete,
        on_update,
        characteristics,
    } = con
    else {
        return Err(SqlError::near(&con.to_string()));
    };
    if characteristics.is_some() {
        return Err(SqlError::near(&con.to_string()));
    }
    if columns.len() != referred_columns.len() || columns.is_empty() {
        // mysqld: "Incorrect foreign key definition for 'sym': Key reference and table
        // reference don't match" (1239, ER_WRONG_FK_DEF).
        let sym = name.as_ref().map_or("foreign key without name".to_string(), |n| n.value.clone());
        return Err(SqlError::Other {
            code: 1239,
            sqlstate: "42000",
            message: format!(
                "Incorrect foreign key definition for '{sym}': Key reference and table reference don't match"
            ),
        });
    }
    Ok(FkSpec {
        name: name.as_ref().map(|n| n.value.clone()),
        index_name: index_name.as_ref().map(|n| n.value.clone()),
        columns: columns.iter().map(|c| c.value.clone()).collect(),
        parent: TableRef::from_sql(foreign_table)?,
        parent_columns: referred_columns.iter().map(|c| c.value.clone()).collect(),
        on_delete: action(on_delete),
        on_update: action(on_update),
    })
}

/// `ALTER TABLE t` whose clauses are all foreign key ADD/DROP clauses, converted; None for any
/// other statement (left to the general conversion).
pub(crate) fn alter_statement(st: &sp::Statement) -> Result<Option<Stmt>> {
    let sp::Statement::AlterTable { name, operations, if_exists: false, only: false, .. } = st
    else {
        return Ok(None);
    };
    let fk_only = !operations.is_empty()
        && operations.iter().all(|op| {
            matches!(
                op,
                sp::AlterTableOperation::AddConstraint {
                    constraint: sp::TableConstraint::ForeignKey { .. },
                    ..
                } | sp::AlterTableOperation::DropForeignKey { .. }
                    | sp::AlterTableOperation::DropConstraint { if_exists: false, .. }
            )
        });
    if !fk_only {
        // A foreign key clause beside other operations (the general ALTER grammar sends
        // every ALTER naming FOREIGN here): not yet, and said so.
        let names_fk = operations.iter().any(|op| {
            matches!(
                op,
                sp::AlterTableOperation::AddConstraint {
                    constraint: sp::TableConstraint::ForeignKey { .. },
                    ..
                } | sp::AlterTableOperation::DropForeignKey { .. }
            )
        });
        if names_fk {
            return Err(SqlError::NotSupported(
                "FOREIGN KEY clauses beside other ALTER TABLE operations".into(),
            ));
        }
        return Ok(None);
    }
    let (mut add, mut drop) = (Vec::new(), Vec::new());
    for op in operations {
        match op {
            sp::AlterTableOperation::AddConstraint { constraint, .. } => {
                add.push(fk_spec(constraint)?)
            }
            sp::AlterTableOperation::DropForeignKey { name, .. }
            | sp::AlterTableOperation::DropConstraint { name, .. } => drop.push(name.value.clone()),
            _ => unreachable!("checked above: foreign key clauses only"),
        }
    }
    Ok(Some(Stmt::AlterForeignKeys { table: TableRef::from_sql(name)?, add, drop }))
}
