//! The syntax of foreign keys (issue 20): sqlparser's FOREIGN KEY constraint → [`FkSpec`], for
//! CREATE TABLE and for ALTER TABLE's `ADD [CONSTRAINT [sym]] FOREIGN KEY ...` (read by
//! `parse/alter.rs`, which makes an ALTER of foreign key clauses only a
//! [`crate::ast::Stmt::AlterForeignKeys`], the metadata-only foreign key DDL).
//! mysqld's grammar: `sql_yacc.yy` `key_def` (`opt_constraint FOREIGN KEY opt_ident (key_list)
//! references`) and `alter_list_item` (`DROP FOREIGN KEY ident`).
//!
//! ON DELETE/UPDATE SET DEFAULT parses (InnoDB refuses it at definition, 1215, as mysqld does).
//! A constraint characteristic (`DEFERRABLE`, ...) is no MySQL syntax: 1064.

use sqlparser::ast as sp;

use engine::FkAction;

use super::ast::{FkSpec, TableRef};
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
