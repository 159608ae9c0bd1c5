//! information_schema's privilege tables: USER_PRIVILEGES, SCHEMA_PRIVILEGES,
//! TABLE_PRIVILEGES and COLUMN_PRIVILEGES, from the account store (mysqld's
//! `fill_schema_user_privileges`, `fill_schema_schema_privileges`,
//! `fill_schema_table_privileges`, sql_authorization.cc).
//!
//! Invariants (mysqld's):
//! - An account with SELECT on the `mysql` schema (here: the global SELECT privilege, as
//!   binlogd keeps its grant tables outside SQL) sees every account's rows; any other sees only
//!   its own (`'user'@'host'` of CURRENT_USER()).
//! - One row per privilege; GRANT OPTION is not a row but `IS_GRANTABLE = 'YES'` on the
//!   others. An account with no global privilege has one `USAGE` row in USER_PRIVILEGES.
//! - binlogd has no column privileges: COLUMN_PRIVILEGES has its columns and no rows.

use std::sync::Arc;

use accounts::{Account, Privileges};
use engine::{Column, ColumnType, TableSchema, Value};

use super::{name, text, MadeUp};
use crate::session::Session;

fn grantee(user: &str, host: &str) -> String {
    format!("'{user}'@'{host}'")
}

/// The accounts whose rows `sess` may read: (user, host pattern, global privileges, grants).
fn visible(sess: &Session) -> Vec<(String, String, Privileges, Vec<accounts::Grant>)> {
    let own = sess.account.as_ref().map(|a| (a.name.user.clone(), a.name.host.clone()));
    match sess.server.accounts() {
        Some(users) => {
            let all = sess.has_global_privilege(Privileges::SELECT);
            let mut out: Vec<_> = users
                .accounts()
                .into_iter()
                .filter(|a: &Account| {
                    all || own.as_ref().is_some_and(|(u, h)| *u == a.user && *h == a.host)
                })
                .map(|a| (a.user, a.host, a.privileges, a.grants))
                .collect();
            out.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
            out
        }
        // No account store (embedded use): the session's own account holds everything.
        None => {
            let (user, host) = own.unwrap_or_else(|| (sess.user.clone(), sess.host.clone()));
            vec![(user, host, Privileges::ALL.union(Privileges::GRANT_OPTION), Vec::new())]
        }
    }
}

fn grantable(p: Privileges) -> Value {
    text(if p.contains(Privileges::GRANT_OPTION) { "YES" } else { "NO" })
}

fn grantee_column() -> Column {
    Column::new("GRANTEE", ColumnType::VarChar(292)).not_null()
}

fn catalog_column() -> Column {
    Column::new("TABLE_CATALOG", ColumnType::VarChar(512)).not_null()
}

fn type_and_grantable() -> [Column; 2] {
    [
        name("PRIVILEGE_TYPE").not_null(),
        Column::new("IS_GRANTABLE", ColumnType::VarChar(3)).not_null(),
    ]
}

/// `information_schema.USER_PRIVILEGES`: global privileges.
pub(super) fn user_privileges(sess: &Session) -> MadeUp {
    let mut columns = vec![grantee_column(), catalog_column()];
    columns.extend(type_and_grantable());
    let mut rows = Vec::new();
    for (user, host, privileges, _) in visible(sess) {
        let mut each = privileges.each();
        if each.is_empty() {
            each.push("USAGE");
        }
        for p in each {
            rows.push(vec![
                text(grantee(&user, &host)),
                text("def"),
                text(p),
                grantable(privileges),
            ]);
        }
    }
    (Arc::new(TableSchema::new("information_schema.USER_PRIVILEGES", columns, vec![])), rows)
}

/// `information_schema.SCHEMA_PRIVILEGES`: database-level grants (`GRANT ... ON db.*`).
pub(super) fn schema_privileges(sess: &Session) -> MadeUp {
    let mut columns = vec![grantee_column(), catalog_column(), name("TABLE_SCHEMA").not_null()];
    columns.extend(type_and_grantable());
    let mut rows = Vec::new();
    for (user, host, _, grants) in visible(sess) {
        for g in grants.iter().filter(|g| g.table.is_none()) {
            for p in g.privileges.each() {
                rows.push(vec![
                    text(grantee(&user, &host)),
                    text("def"),
                    text(&g.db),
                    text(p),
                    grantable(g.privileges),
                ]);
            }
        }
    }
    (Arc::new(TableSchema::new("information_schema.SCHEMA_PRIVILEGES", columns, vec![])), rows)
}

/// `information_schema.TABLE_PRIVILEGES`: table-level grants (`GRANT ... ON db.t`).
pub(super) fn table_privileges(sess: &Session) -> MadeUp {
    let mut columns = vec![
        grantee_column(),
        catalog_column(),
        name("TABLE_SCHEMA").not_null(),
        name("TABLE_NAME").not_null(),
    ];
    columns.extend(type_and_grantable());
    let mut rows = Vec::new();
    for (user, host, _, grants) in visible(sess) {
        for g in &grants {
            let Some(table) = &g.table else { continue };
            for p in g.privileges.each() {
                rows.push(vec![
                    text(grantee(&user, &host)),
                    text("def"),
                    text(&g.db),
                    text(table),
                    text(p),
                    grantable(g.privileges),
                ]);
            }
        }
    }
    (Arc::new(TableSchema::new("information_schema.TABLE_PRIVILEGES", columns, vec![])), rows)
}

/// `information_schema.COLUMN_PRIVILEGES`: no rows (binlogd grants no column privileges).
pub(super) fn column_privileges(_: &Session) -> MadeUp {
    let mut columns = vec![
        grantee_column(),
        catalog_column(),
        name("TABLE_SCHEMA").not_null(),
        name("TABLE_NAME").not_null(),
        name("COLUMN_NAME").not_null(),
    ];
    columns.extend(type_and_grantable());
    (Arc::new(TableSchema::new("information_schema.COLUMN_PRIVILEGES", columns, vec![])), vec![])
}
