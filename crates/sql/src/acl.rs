//! Account statements (`CREATE/ALTER/DROP USER`, `GRANT`, `REVOKE`, `SHOW GRANTS`) and the
//! privilege checks every statement passes first.
//!
//! The accounts themselves live in [`accounts::Users`] (`users.json`, outside the engine);
//! the serve wiring attaches them with [`Server::attach_accounts`](super::Server). A server
//! without attached accounts (the SQL layer embedded in tests) runs every statement with all
//! privileges and refuses the account statements.
//!
//! **Privilege model.** Global privileges (`ON *.*`) are resolved once when the session opens:
//! as in mysqld, "global privileges and passwords are unaffected for a connected client" by a
//! later GRANT/REVOKE (MySQL 8.0 manual, "When Privilege Changes Take Effect"). The checks and
//! error texts follow mysqld (`sql/auth/sql_authorization.cc`, `share/messages_to_clients.txt`):
//! - row statements need SELECT / INSERT (REPLACE: INSERT and DELETE) / UPDATE / DELETE on the
//!   table: 1142 `ER_TABLEACCESS_DENIED_ERROR` `"X command denied to user 'u'@'h' for table 't'"`;
//! - CREATE/DROP DATABASE need CREATE/DROP, and `USE db` needs any privilege: 1044
//!   `ER_DBACCESS_DENIED_ERROR`; CREATE/DROP TABLE, TRUNCATE, CREATE/DROP INDEX need CREATE,
//!   DROP, DROP, INDEX: 1142;
//! - `SET GLOBAL`, PURGE, SHOW BINARY LOGS / MASTER STATUS, SHOW BINLOG EVENTS, FLUSH and
//!   RESET MASTER need SUPER (or what mysqld names), and CREATE/ALTER/DROP USER need
//!   CREATE USER: 1227 `ER_SPECIFIC_ACCESS_DENIED_ERROR` naming the privileges;
//! - the replica's statements (answered by the statement hook): CHANGE REPLICATION SOURCE
//!   and START/STOP REPLICA need SUPER (mysqld: SUPER or REPLICATION_SLAVE_ADMIN), RESET
//!   REPLICA needs RELOAD, SHOW REPLICA STATUS needs SUPER or REPLICATION CLIENT: 1227;
//! - CHECKSUM TABLE needs SELECT on each table: 1142;
//! - GRANT and REVOKE need GRANT OPTION and every privilege they hand out (mysqld answers a
//!   global GRANT without them with 1045; binlogd says which privilege is missing with 1227).
//!
//! A database grant's name is a pattern as in mysqld: `%` and `_` are wildcards unless escaped
//! (`` GRANT ... ON `db\_1`.* `` is only `db_1`); of several matching database grants the
//! most specific counts (`users::Account::granted_on`).
//!
//! Database (`ON db.*`) and table (`ON db.tbl`) grants are ORed with the global privileges,
//! as mysqld's `check_access` / `check_grant` do; they are read from the accounts at each check.
//!
//! Account statements are written to the binary log as mysqld writes them (rewritten text,
//! passwords as hashes, one GTID each) and committed with it; see the `accounts` crate's module
//! doc, "Committed with the binary log".

use engine::Value;

use super::admin::AdminCommand;
use super::ast::{
    AccountStmt, GrantTarget, Identified, Plugin, Secret, Stmt, TableRef, UserName, UserSpec,
};
use super::error::{Result, SqlError};
use super::output::{Output, ResultColumn};
use super::session::{Session, Warning};
use accounts::{Account, Privileges, UserError};
use protocol::{AuthPlugin, UserAuth};

/// mysqld's ER_NOT_VALID_PASSWORD for a password longer than the plugin hashes
/// (`caching_sha2_password`: 256 bytes), before any hashing.
fn too_long(plugin: AuthPlugin, password: &str) -> Result<()> {
    UserAuth::check_password_length(plugin, password.as_bytes()).map_err(|e| SqlError::Other {
        code: e.code,
        sqlstate: "HY000",
        message: e.message.clone(),
    })
}

impl Identified {
    fn auth(&self) -> Result<UserAuth> {
        let plugin = match self.plugin {
            Some(Plugin::Native) => AuthPlugin::MysqlNativePassword,
            Some(Plugin::CachingSha2) | None => AuthPlugin::CachingSha2Password,
        };
        match (&self.secret, plugin) {
            (Secret::Password(p), AuthPlugin::MysqlNativePassword) => Ok(UserAuth::native(p)),
            (Secret::Password(p), AuthPlugin::CachingSha2Password) => {
                too_long(plugin, p)?;
                Ok(UserAuth::caching_sha2(p))
            }
            // ER_PASSWORD_FORMAT, as mysqld answers a hash not of the plugin's form.
            (Secret::Hash(h), plugin) => {
                accounts::auth_from_string(plugin, h).ok_or_else(|| SqlError::Other {
                    code: 1827,
                    sqlstate: "HY000",
                    message: "The password hash doesn't have the expected format.".into(),
                })
            }
        }
    }
}

/// A resolved grant level.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Level {
    Global,
    Database(String),
    Table(String, String),
}

impl Level {
    fn text(&self) -> String {
        match self {
            Level::Global => "*.*".into(),
            Level::Database(db) => format!("{}.*", quote_ident(db)),
            Level::Table(db, t) => format!("{}.{}", quote_ident(db), quote_ident(t)),
        }
    }
}

/// `` `name` `` with backticks doubled.
/// The first column an expression reads from the table (not inside `VALUES(col)`). Recursive:
/// the tree is at most [`super::depth::MAX_DEPTH`] deep.
fn first_column(e: &super::ast::Expr) -> Option<&str> {
    use super::ast::Expr;
    match e {
        Expr::Name { column, .. } => Some(column),
        Expr::InsertValue(_) => None,
        Expr::Unary(_, x) | Expr::IsNull { expr: x, .. } => first_column(x),
        Expr::Binary(_, a, b) | Expr::Like { expr: a, pattern: b, .. } => {
            first_column(a).or_else(|| first_column(b))
        }
        Expr::Between { expr, low, high, .. } => {
            first_column(expr).or_else(|| first_column(low)).or_else(|| first_column(high))
        }
        Expr::InList { expr, list, .. } => {
            first_column(expr).or_else(|| list.iter().find_map(first_column))
        }
        Expr::Case { operand, whens, otherwise } => operand
            .as_deref()
            .and_then(first_column)
            .or_else(|| whens.iter().find_map(|(w, t)| first_column(w).or_else(|| first_column(t))))
            .or_else(|| otherwise.as_deref().and_then(first_column)),
        Expr::Func(_, args) => args.iter().find_map(first_column),
        Expr::AggCall { arg, .. } => arg.as_deref().and_then(first_column),
        _ => None,
    }
}

fn quote_ident(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// `'text'` with quotes and backslashes escaped (as the binary log's statement text needs).
fn quote_string(text: &str) -> String {
    format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'"))
}

fn quote_user(name: &UserName) -> String {
    format!("{}@{}", quote_string(&name.user), quote_string(&name.host))
}

/// 1227 ER_SPECIFIC_ACCESS_DENIED_ERROR.
pub(crate) fn specific_denied(privileges: &str) -> SqlError {
    SqlError::Other {
        code: 1227,
        sqlstate: "42000",
        message: format!(
            "Access denied; you need (at least one of) the {privileges} privilege(s) for this operation"
        ),
    }
}

fn user_error(e: &UserError) -> SqlError {
    let p = e.to_sql_error();
    let sqlstate = match p.code {
        1410 | 1141 => "42000",
        _ => "HY000",
    };
    SqlError::Other { code: p.code, sqlstate, message: p.message }
}

fn note(code: u16, message: String) -> Warning {
    Warning { level: "Note", code, message }
}

impl Session {
    /// The account this session runs as (mysqld's `CURRENT_USER()`).
    pub(crate) fn current_user(&self) -> String {
        match &self.account {
            Some(a) => format!("{}@{}", a.name.user, a.name.host),
            None => format!("{}@{}", self.user, self.host),
        }
    }

    fn privileges(&self) -> Privileges {
        self.account.as_ref().map_or(Privileges::ALL, |a| a.privileges)
    }

    /// The account as stored now (its database and table grants take effect at once, as
    /// mysqld's do for the next statement; the global ones were fixed at login).
    fn stored_account(&self) -> Option<Account> {
        let a = self.account.as_ref()?;
        self.server.accounts()?.get(&a.name.user, &a.name.host)
    }

    /// The session's global privileges with the account's grants on `db` (and `table`).
    fn privileges_on(&self, db: &str, table: Option<&str>) -> Privileges {
        let have = self.privileges();
        match self.stored_account() {
            // Database grants match by pattern (`db%`, `db\_1`), see `Account::granted_on`.
            Some(account) => {
                have.union(account.granted_on_names(db, table, self.server.names_case_sensitive()))
            }
            None => have,
        }
    }

    /// 1142 unless the account holds `wanted` on the table (globally, on its database or on
    /// the table itself).
    fn need_table(&self, wanted: Privileges, command: &str, table: &TableRef) -> Result<()> {
        if self.privileges().contains(wanted) {
            return Ok(());
        }
        // Without a database the statement fails with 1046 when it resolves the table.
        let Some(db) = table.db.as_deref().or(self.db.as_deref()) else {
            return Ok(());
        };
        if self.privileges_on(db, Some(&table.name)).contains(wanted) {
            return Ok(());
        }
        Err(SqlError::Other {
            code: 1142,
            sqlstate: "42000",
            message: format!(
                "{command} command denied to user '{}'@'{}' for table '{}'",
                self.user, self.host, table.name
            ),
        })
    }

    /// [`Session::need_table`] for other modules (views.rs).
    pub(crate) fn need_table_privilege(
        &self,
        wanted: Privileges,
        command: &str,
        table: &TableRef,
    ) -> Result<()> {
        self.need_table(wanted, command, table)
    }

    /// REFERENCES on the parent of each constraint `fks` of table `child` defines (1142 with
    /// the REFERENCES command otherwise), as mysqld 8.0's `check_fk_parent_table_access`;
    /// a table referencing itself needs nothing more. An unqualified parent is in the
    /// child's database.
    fn need_references(&self, child: &TableRef, fks: &[super::ast::FkSpec]) -> Result<()> {
        let references = Privileges::from_name("REFERENCES").unwrap_or(Privileges::ALL);
        for fk in fks {
            let parent = TableRef {
                db: fk.parent.db.clone().or_else(|| child.db.clone()),
                name: fk.parent.name.clone(),
            };
            let same_db = match (&parent.db, &child.db) {
                (Some(a), Some(b)) => a.eq_ignore_ascii_case(b),
                (None, None) => true,
                _ => false,
            };
            if same_db && parent.name.eq_ignore_ascii_case(&child.name) {
                continue;
            }
            self.need_table(references, "REFERENCES", &parent)?;
        }
        Ok(())
    }

    /// 1142 naming every privilege of `wanted` the account lacks on the table, joined as
    /// mysqld's `get_privilege_desc` joins them (`INSERT,DELETE`).
    fn need_table_all(&self, wanted: Privileges, table: &TableRef) -> Result<()> {
        let have = match table.db.as_deref().or(self.db.as_deref()) {
            Some(db) => self.privileges_on(db, Some(&table.name)),
            None => return Ok(()),
        };
        let missing = wanted.difference(have);
        if missing.is_empty() {
            return Ok(());
        }
        self.need_table(missing, &missing.names().join(","), table)
    }

    /// 1143 ER_COLUMNACCESS_DENIED_ERROR unless the account may read the columns the
    /// expressions name: SELECT on the table (or its database, or globally; binlogd has no
    /// column grants). `VALUES(col)` of ON DUPLICATE KEY UPDATE reads the proposed row, not
    /// the table, and needs nothing.
    fn need_columns_read<'e>(
        &self,
        table: &TableRef,
        exprs: impl Iterator<Item = &'e super::ast::Expr>,
    ) -> Result<()> {
        let Some(db) = table.db.as_deref().or(self.db.as_deref()) else { return Ok(()) };
        if self.privileges_on(db, Some(&table.name)).contains(Privileges::SELECT) {
            return Ok(());
        }
        for e in exprs {
            if let Some(column) = first_column(e) {
                return Err(SqlError::Other {
                    code: 1143,
                    sqlstate: "42000",
                    message: format!(
                        "SELECT command denied to user '{}'@'{}' for column '{column}' in table '{}'",
                        self.user, self.host, table.name
                    ),
                });
            }
        }
        Ok(())
    }

    /// Metadata follows the privileges as in mysqld (`sql_parse.cc`, SQLCOM_SHOW_*): `SHOW
    /// TABLES [FROM db]` and `SHOW CREATE DATABASE` need some privilege on the database or
    /// one of its tables (`check_access` + `check_grant_db`: 1044); `SHOW CREATE TABLE`,
    /// `SHOW [FULL] COLUMNS` / `DESCRIBE` and `SHOW INDEX` some privilege on the table
    /// (`check_table_access(SELECT_ACL, any_combination_will_do)`: 1142 "SHOW command"). SHOW
    /// TABLES then lists only the tables the account may see ([`Session::may_see_table`]).
    fn check_show(&self, show: &super::ast::Show) -> Result<()> {
        use super::ast::Show;
        match show {
            Show::Tables { db, .. } => match db.as_deref().or(self.db.as_deref()) {
                Some(db) => self.need_database(Privileges::NONE, db),
                None => Ok(()),
            },
            Show::CreateDatabase(db) => self.need_database(Privileges::NONE, db),
            Show::CreateTable(t)
            | Show::CreateView(t)
            | Show::Columns { table: t, .. }
            | Show::Index(t) => {
                let Some(db) = t.db.as_deref().or(self.db.as_deref()) else { return Ok(()) };
                if self.may_see_table(db, &t.name) {
                    return Ok(());
                }
                self.need_table(Privileges::SELECT, "SHOW", t)
            }
            _ => Ok(()),
        }
    }

    /// True if the account holds any privilege on `db`.`table` (globally, on the database or
    /// on the table): mysqld's rule for listing a table in SHOW TABLES.
    pub(crate) fn may_see_table(&self, db: &str, table: &str) -> bool {
        !self.privileges_on(db, Some(table)).is_empty()
    }

    /// 1044 unless the account holds `wanted` on `db` (`USE` asks for any privilege on the
    /// database or a table in it: `NONE`).
    pub(crate) fn need_database(&self, wanted: Privileges, db: &str) -> Result<()> {
        let ok = if wanted.is_empty() {
            // Only global privileges that apply to databases count (mysqld's DB_ACLS): a
            // global PROCESS or REPLICATION CLIENT opens no database.
            !self.privileges().intersection(Privileges::DB_LEVEL).is_empty()
                || self.stored_account().is_some_and(|a| {
                    a.any_privilege_in_names(db, self.server.names_case_sensitive())
                })
        } else {
            self.privileges().contains(wanted) || self.privileges_on(db, None).contains(wanted)
        };
        if ok {
            return Ok(());
        }
        Err(SqlError::Other {
            code: 1044,
            sqlstate: "42000",
            message: format!(
                "Access denied for user '{}'@'{}' to database '{db}'",
                self.user, self.host
            ),
        })
    }

    /// True if SHOW DATABASES lists `db` to this session.
    pub(crate) fn may_see_database(&self, db: &str) -> bool {
        let show_databases = Privileges::from_name("SHOW DATABASES").unwrap_or(Privileges::ALL);
        self.privileges().contains(show_databases)
            || self.need_database(Privileges::NONE, db).is_ok()
    }

    /// True if the session holds the global privilege `p` (all of them without accounts).
    pub(crate) fn has_global_privilege(&self, p: Privileges) -> bool {
        self.privileges().contains(p)
    }

    /// 1227 unless the account holds one of `any`; `names` is how mysqld lists them.
    fn need_any(&self, any: &[Privileges], names: &str) -> Result<()> {
        let have = self.privileges();
        if any.iter().any(|p| have.contains(*p)) {
            return Ok(());
        }
        Err(specific_denied(names))
    }

    /// 1227 unless the session holds the global privilege `name` (mysqld's
    /// `check_global_access`), for the protocol's own administrative commands.
    pub fn need_global_privilege(&self, name: &str) -> Result<()> {
        let wanted = Privileges::from_name(name)
            .ok_or_else(|| SqlError::NotSupported(format!("the {name} privilege")))?;
        self.need_any(&[wanted], name)
    }

    /// SELECT on every table a multi-table SELECT reads, derived tables' included (their
    /// recursion is bounded by the statement's depth limit, `crate::depth`).
    fn check_multi_select(&self, s: &super::ast::Select) -> Result<()> {
        let first = s.from.iter().map(|t| (t, s.derived.as_deref()));
        let rest = s.joins.iter().map(|j| (&j.table, j.derived.as_deref()));
        for (t, derived) in first.chain(rest) {
            match derived {
                Some(inner) if inner.is_multi() => self.check_multi_select(inner)?,
                Some(inner) => self.check_privileges(&Stmt::Select(inner.clone()))?,
                None if self.is_information_schema(t) => {}
                None => self.need_table(Privileges::SELECT, "SELECT", t)?,
            }
        }
        Ok(())
    }

    /// A multi-table write's tables: `wanted` on the changed ones, SELECT on the others.
    fn check_write_tables(
        &self,
        tables: Vec<(&TableRef, Option<&super::ast::Select>, bool)>,
        wanted: Privileges,
        command: &str,
    ) -> Result<()> {
        for (t, derived, changed) in tables {
            match derived {
                Some(inner) if inner.is_multi() => self.check_multi_select(inner)?,
                Some(inner) => self.check_privileges(&Stmt::Select(inner.clone()))?,
                None if changed => self.need_table(wanted, command, t)?,
                None if self.is_information_schema(t) => {}
                None => self.need_table(Privileges::SELECT, "SELECT", t)?,
            }
        }
        Ok(())
    }

    /// The privilege check every statement passes before it runs.
    pub(crate) fn check_privileges(&self, stmt: &Stmt) -> Result<()> {
        if let Stmt::Account(a) = stmt {
            return self.check_account_privileges(a);
        }
        if self.privileges().contains(Privileges::ALL) {
            return Ok(());
        }
        match stmt {
            // A query expression: each block as a SELECT (`query/union.rs`).
            Stmt::Select(s) if s.query_expr().is_some() => {
                for b in s.query_expr().map(|q| q.blocks()).unwrap_or_default() {
                    self.check_privileges(&Stmt::Select(b.clone()))?;
                }
                Ok(())
            }
            Stmt::Select(s) if s.is_multi() => self.check_multi_select(s),
            // mysqld checks the explained statement's own privileges (`explain_query` runs
            // the statement's precheck).
            Stmt::Explain(inner) => self.check_privileges(inner),
            Stmt::Select(s) => match &s.from {
                // information_schema is readable by every account; what a table shows
                // depends on the privileges (PROCESSLIST: PROCESS).
                Some(t) if self.is_information_schema(t) => Ok(()),
                // performance_schema.log_status: SELECT and BACKUP_ADMIN (RELOAD stands in).
                Some(t) if super::perf_schema::is_log_status(self, t) => {
                    self.need_table(Privileges::SELECT, "SELECT", t)?;
                    self.need_any(&[Privileges::RELOAD], "BACKUP_ADMIN")
                }
                Some(t) => self.need_table(Privileges::SELECT, "SELECT", t),
                None => Ok(()),
            },
            // mysqld's `insert_precheck`: INSERT, DELETE for REPLACE, UPDATE for ON DUPLICATE
            // KEY UPDATE; the error names the missing ones (`get_privilege_desc`).
            Stmt::Insert(i) => {
                let mut want = Privileges::INSERT;
                if i.replace {
                    want = want.union(Privileges::DELETE);
                }
                if !i.on_duplicate.is_empty() {
                    want = want.union(Privileges::UPDATE);
                }
                self.need_table_all(want, &i.table)?;
                self.need_columns_read(&i.table, i.on_duplicate.iter().map(|(_, e)| e))
            }
            // mysqld's `insert_precheck` on the target and SELECT on the SELECT's tables
            // (`Sql_cmd_insert_select::precheck`).
            Stmt::InsertSelect(is) => {
                self.check_privileges(&Stmt::Insert(is.insert.clone()))?;
                if is.select.is_multi() {
                    self.check_multi_select(&is.select)
                } else {
                    self.check_privileges(&Stmt::Select((*is.select).clone()))
                }
            }
            // mysqld's `multi_update_precheck` / `multi_delete_precheck`: UPDATE (DELETE) on
            // the tables changed, SELECT on the tables only read.
            Stmt::MultiUpdate(u) => {
                let has = |t: &TableRef, c: &str| {
                    self.resolve_table(t).is_ok_and(|(_, s, _)| s.column_position(c).is_some())
                };
                let tables = super::ast::write_tables(&u.from, &|l, t| u.assigns(l, t, &has));
                self.check_write_tables(tables, Privileges::UPDATE, "UPDATE")
            }
            Stmt::MultiDelete(d) => {
                let tables = super::ast::write_tables(&d.from, &|l, t| d.deletes(l, t));
                self.check_write_tables(tables, Privileges::DELETE, "DELETE")
            }
            // UPDATE and DELETE also read the columns of their SET values, WHERE and ORDER BY:
            // SELECT on those (1143), as mysqld's column-level check in `setup_fields` /
            // `setup_conds` with `want_privilege = SELECT_ACL`.
            Stmt::Update(u) => {
                self.need_table(Privileges::UPDATE, "UPDATE", &u.table)?;
                let read = u.set.iter().map(|(_, e)| e).chain(u.filter.iter());
                let read = read.chain(u.order_by.iter().map(|o| &o.expr)).chain(u.limit.iter());
                self.need_columns_read(&u.table, read)
            }
            Stmt::Delete(d) => {
                self.need_table(Privileges::DELETE, "DELETE", &d.table)?;
                let read = d.filter.iter().chain(d.order_by.iter().map(|o| &o.expr));
                self.need_columns_read(&d.table, read.chain(d.limit.iter()))
            }
            Stmt::Show(show) | Stmt::ShowWhere { show, .. } => self.check_show(show),
            Stmt::CreateDatabase { name, .. } => self.need_database(Privileges::CREATE, name),
            Stmt::DropDatabase { name, .. } => self.need_database(Privileges::DROP, name),
            Stmt::CreateTable(ct) => {
                self.need_table(Privileges::CREATE, "CREATE", &ct.table)?;
                self.need_references(&ct.table, &ct.foreign_keys)?;
                // CREATE TABLE ... SELECT: also INSERT on the new table and SELECT on what
                // the SELECT reads (mysqld's `create_table_precheck`).
                let Some(cs) = &ct.select else { return Ok(()) };
                self.need_table(Privileges::INSERT, "INSERT", &ct.table)?;
                if cs.select.is_multi() {
                    self.check_multi_select(&cs.select)
                } else {
                    self.check_privileges(&Stmt::Select((*cs.select).clone()))
                }
            }
            Stmt::CreateIndex { table, .. } | Stmt::DropIndex { table, .. } => {
                self.need_table(Privileges::INDEX, "INDEX", table)
            }
            // mysqld: DROP on every table named (`check_table_access(thd, DROP_ACL, ...)`).
            Stmt::DropTable { tables, .. } => {
                tables.iter().try_for_each(|t| self.need_table(Privileges::DROP, "DROP", t))
            }
            Stmt::Truncate(t) => self.need_table(Privileges::DROP, "DROP", t),
            Stmt::AlterKeys(t) => self.need_table(Privileges::ALTER, "ALTER", t),
            // mysqld's ALTER TABLE: ALTER on the table (plus INSERT and CREATE on a new name;
            // `check_alter_table_access`, `mysql_rename_tables`: ALTER and DROP on the old
            // name, CREATE and INSERT on the new).
            Stmt::AlterTable { table, ops } => {
                self.need_table(Privileges::ALTER, "ALTER", table)?;
                let fks: Vec<crate::ast::FkSpec> = ops
                    .iter()
                    .filter_map(|op| match op {
                        crate::ast::AlterOp::AddForeignKey(f) => Some(f.clone()),
                        _ => None,
                    })
                    .collect();
                if !fks.is_empty() {
                    self.need_references(table, &fks)?;
                }
                for op in ops {
                    if let crate::ast::AlterOp::RenameTable(to) = op {
                        self.need_table(Privileges::DROP, "DROP", table)?;
                        self.need_table(Privileges::CREATE, "CREATE", to)?;
                        self.need_table(Privileges::INSERT, "INSERT", to)?;
                    }
                }
                Ok(())
            }
            Stmt::RenameTables(pairs) => pairs.iter().try_for_each(|(from, to)| {
                self.need_table(Privileges::ALTER, "ALTER", from)?;
                self.need_table(Privileges::DROP, "DROP", from)?;
                self.need_table(Privileges::CREATE, "CREATE", to)?;
                self.need_table(Privileges::INSERT, "INSERT", to)
            }),
            // mysqld: CREATE on the new table, SELECT on the source.
            Stmt::CreateTableLike { table, like, .. } => {
                self.need_table(Privileges::CREATE, "CREATE", table)?;
                self.need_table(Privileges::SELECT, "SELECT", like)
            }
            Stmt::AlterForeignKeys { table, add, .. } => {
                self.need_table(Privileges::ALTER, "ALTER", table)?;
                self.need_references(table, add)
            }
            // mysqld's `create_view_precheck`: CREATE VIEW on the view, DROP too to replace
            // it (OR REPLACE, ALTER VIEW), SELECT on what the SELECT reads.
            Stmt::CreateView(cv) => {
                let create_view = Privileges::from_name("CREATE VIEW").unwrap_or(Privileges::ALL);
                self.need_table(create_view, "CREATE VIEW", &cv.view)?;
                if cv.or_replace || cv.alter {
                    self.need_table(Privileges::DROP, "DROP", &cv.view)?;
                }
                self.check_privileges(&Stmt::Select((*cv.select).clone()))
            }
            Stmt::DropView { views, .. } => {
                views.iter().try_for_each(|t| self.need_table(Privileges::DROP, "DROP", t))
            }
            // mysqld's SQLCOM_LOCK_TABLES: LOCK TABLES (a database-level privilege) and SELECT
            // on each table (`lock_tables_precheck`).
            Stmt::LockTables(tables) => {
                let lock = Privileges::from_name("LOCK TABLES").unwrap_or(Privileges::ALL);
                tables.iter().try_for_each(|(t, _)| {
                    self.need_table(lock, "LOCK TABLES", t)?;
                    self.need_table(Privileges::SELECT, "SELECT", t)
                })
            }
            // mysqld's `mysql_client_binlog_statement`: SUPER, BINLOG_ADMIN or
            // REPLICATION_APPLIER (the project models dynamic privileges as SUPER).
            Stmt::Binlog(_) => {
                self.need_any(&[Privileges::SUPER], "SUPER, BINLOG_ADMIN or REPLICATION_APPLIER")
            }
            // mysqld: SELECT on each table (`check_table_access(thd, SELECT_ACL, ...)`).
            Stmt::Checksum { tables, .. } => {
                tables.iter().try_for_each(|t| self.need_table(Privileges::SELECT, "SELECT", t))
            }
            // mysqld: FLUSH TABLES WITH READ LOCK wants RELOAD; with tables also LOCK TABLES
            // and SELECT on each (`flush_tables_with_read_lock`'s precheck).
            Stmt::FlushTablesWithReadLock(tables) => {
                self.need_any(&[Privileges::RELOAD], "RELOAD")?;
                let lock = Privileges::from_name("LOCK TABLES").unwrap_or(Privileges::ALL);
                tables.iter().try_for_each(|t| {
                    self.need_table(lock, "LOCK TABLES", t)?;
                    self.need_table(Privileges::SELECT, "SELECT", t)
                })
            }
            // mysqld wants BACKUP_ADMIN, a dynamic privilege binlogd does not have; RELOAD
            // (what FTWRL, the older way to the same end, wants) stands in for it.
            Stmt::LockInstance => self.need_any(&[Privileges::RELOAD], "BACKUP_ADMIN"),
            // `SET GLOBAL TRANSACTION ...` sets global variables (mysqld: SUPER or
            // SYSTEM_VARIABLES_ADMIN).
            Stmt::SetTransaction { scope: super::ast::VarScope::Global, .. } => {
                self.need_any(&[Privileges::SUPER], "SUPER or SYSTEM_VARIABLES_ADMIN")
            }
            Stmt::Set(items) => {
                let global = items.iter().any(|i| {
                    matches!(
                        i,
                        super::ast::SetItem::System { scope: super::ast::VarScope::Global, .. }
                    )
                });
                if global {
                    return self.need_any(&[Privileges::SUPER], "SUPER or SYSTEM_VARIABLES_ADMIN");
                }
                // Restricted session variables (`gtid_next`, `sql_log_bin`, ...): see
                // `Var::session_set`. An unknown name fails later with 1193.
                for item in items {
                    if let super::ast::SetItem::System { name, .. } = item {
                        let Some(def) = super::vars::lookup(name) else { continue };
                        let rule = def.var.session_set();
                        if rule != super::vars::SessionSet::Anyone {
                            self.need_any(&[Privileges::SUPER], rule.privilege_names())?;
                        }
                    }
                }
                Ok(())
            }
            // mysqld's `check_global_access(thd, SHUTDOWN_ACL)` (sql_parse.cc, COM_SHUTDOWN and
            // the SHUTDOWN statement).
            Stmt::Shutdown => self.need_any(&[Privileges::SHUTDOWN], "SHUTDOWN"),
            // mysqld 8: `is_reload_request_denied` (sql_parse.cc, SQLCOM_FLUSH) wants RELOAD,
            // or for some options a FLUSH_* dynamic privilege binlogd does not have.
            Stmt::Flush => self.need_any(&[Privileges::RELOAD], "RELOAD"),
            Stmt::Admin(cmd) => match cmd {
                AdminCommand::ShowBinaryLogs | AdminCommand::ShowMasterStatus => self.need_any(
                    &[Privileges::SUPER, Privileges::REPLICATION_CLIENT],
                    "SUPER, REPLICATION CLIENT",
                ),
                // SHOW REPLICAS needs REPLICATION SLAVE in mysqld (sql/rpl_source.cc,
                // show_replicas()).
                AdminCommand::ShowBinlogEvents { .. } | AdminCommand::ShowReplicas { .. } => {
                    self.need_any(&[Privileges::REPLICATION_SLAVE], "REPLICATION SLAVE")
                }
                AdminCommand::FlushBinaryLogs | AdminCommand::ResetMaster => {
                    self.need_any(&[Privileges::RELOAD], "RELOAD")
                }
                AdminCommand::PurgeTo(_) | AdminCommand::PurgeBefore(_) => {
                    self.need_any(&[Privileges::SUPER], "SUPER or BINLOG_ADMIN")
                }
            },
            _ => Ok(()),
        }
    }

    /// The check of a statement another module answers (the replica's; see
    /// [`super::server::StatementHook`]): 1227 naming what mysqld names.
    pub(crate) fn check_hook_privilege(&self, wanted: super::server::HookPrivilege) -> Result<()> {
        use super::server::HookPrivilege;
        match wanted {
            HookPrivilege::ReplicationAdmin => {
                self.need_any(&[Privileges::SUPER], "SUPER or REPLICATION_SLAVE_ADMIN")
            }
            HookPrivilege::Reload => self.need_any(&[Privileges::RELOAD], "RELOAD"),
            // mysqld: `check_global_access(thd, SUPER_ACL | REPL_CLIENT_ACL)`.
            HookPrivilege::ReplicationClient => self.need_any(
                &[Privileges::SUPER, Privileges::REPLICATION_CLIENT],
                "SUPER, REPLICATION CLIENT",
            ),
        }
    }

    fn is_self(&self, spec: &UserSpec) -> bool {
        match (spec, &self.account) {
            (UserSpec::Current, _) => true,
            (UserSpec::Named(n), Some(a)) => {
                n.user == a.name.user && n.host.eq_ignore_ascii_case(&a.name.host)
            }
            (UserSpec::Named(_), None) => false,
        }
    }

    /// The level a GRANT/REVOKE names, with `*` and a bare table in the default database
    /// (1046 without one).
    fn level(&self, target: &GrantTarget) -> Result<Level> {
        let db = |d: &Option<String>| {
            d.clone().or_else(|| self.db.clone()).ok_or(SqlError::NoDatabaseSelected)
        };
        Ok(match target {
            GrantTarget::Global => Level::Global,
            GrantTarget::Database(d) => Level::Database(db(d)?),
            GrantTarget::Table(d, t) => Level::Table(db(d)?, t.clone()),
        })
    }

    fn check_account_privileges(&self, a: &AccountStmt) -> Result<()> {
        // A session without an account (the replica applier's, an embedded server's) may do
        // everything, GRANT OPTION included.
        if self.account.is_none() {
            return Ok(());
        }
        let create_user = || self.need_any(&[Privileges::CREATE_USER], "CREATE USER");
        match a {
            AccountStmt::CreateUser { .. }
            | AccountStmt::DropUser { .. }
            | AccountStmt::RenameUser(_) => create_user(),
            // Changing one's own password needs no privilege (mysqld).
            AccountStmt::AlterUser { users, .. } => {
                if users.iter().all(|(u, _)| self.is_self(u)) {
                    Ok(())
                } else {
                    create_user()
                }
            }
            AccountStmt::SetPassword { user, .. } => {
                if user.as_ref().is_none_or(|u| self.is_self(u)) {
                    Ok(())
                } else {
                    create_user()
                }
            }
            AccountStmt::Grant { privileges, target, .. }
            | AccountStmt::Revoke { privileges, target: Some(target), .. } => {
                let level = self.level(target)?;
                let privileges = level_privileges(&level, *privileges)?;
                let have = match &level {
                    Level::Global => self.privileges(),
                    Level::Database(db) => self.privileges_on(db, None),
                    Level::Table(db, t) => self.privileges_on(db, Some(t)),
                };
                if !have.contains(Privileges::GRANT_OPTION) {
                    return Err(specific_denied("GRANT OPTION"));
                }
                if !have.contains(privileges) {
                    let missing = privileges.difference(have).names().join(", ");
                    return Err(specific_denied(&missing));
                }
                Ok(())
            }
            // mysqld: `REVOKE ALL, GRANT OPTION` needs CREATE USER (or UPDATE on mysql).
            AccountStmt::Revoke { target: None, .. } => create_user(),
            // Another account's grants: mysqld wants SELECT on the mysql schema.
            AccountStmt::ShowGrants(Some(u)) if !self.is_self(u) => {
                self.need_any(&[Privileges::SELECT], "SELECT")
            }
            AccountStmt::ShowGrants(_) => Ok(()),
            // mysqld: SELECT on the mysql schema, except for the current user (1227 here, as
            // for SHOW GRANTS: binlogd has no mysql schema to name in a 1142).
            AccountStmt::ShowCreateUser(u) if !self.is_self(u) => {
                self.need_any(&[Privileges::SELECT], "SELECT")
            }
            AccountStmt::ShowCreateUser(_) => Ok(()),
        }
    }

    fn resolve(&self, spec: &UserSpec) -> UserName {
        match spec {
            UserSpec::Named(n) => n.clone(),
            UserSpec::Current => match &self.account {
                Some(a) => a.name.clone(),
                None => UserName { user: self.user.clone(), host: self.host.clone() },
            },
        }
    }

    /// SHUTDOWN (privilege checked first): starts the same clean shutdown as SIGTERM and
    /// answers OK, as mysqld does before it goes away.
    pub(crate) fn shutdown(&mut self) -> Result<Output> {
        if !self.server.request_shutdown() {
            return Err(SqlError::NotSupported("SHUTDOWN of an embedded server".into()));
        }
        log::info!("SHUTDOWN by {}", self.current_user());
        Ok(Output::ok(0))
    }

    /// Runs an account statement: the change is checked and made on a copy of the accounts,
    /// then committed with the statement's binlog event (a QUERY event with its own GTID,
    /// passwords as hashes, as mysqld's rewritten account statements) in one DDL transaction
    /// of the engine (see `Users::change_committed`), and only then published.
    pub(crate) fn account_statement(&mut self, stmt: &AccountStmt) -> Result<Output> {
        let server = self.server.clone();
        let Some(users) = server.accounts().cloned() else {
            return Err(SqlError::NotSupported(
                "account management without an accounts file".into(),
            ));
        };
        if let AccountStmt::ShowGrants(spec) = stmt {
            server.count("Com_show_grants");
            return self.show_grants(&users, spec.as_ref());
        }
        if let AccountStmt::ShowCreateUser(spec) = stmt {
            server.count("Com_show_create_user");
            return self.show_create_user(&users, spec);
        }
        let plan = self.plan(stmt)?;
        server.count(plan.counter);
        let db = self.db.clone();
        let gtid = self.gtid_next;
        let context = Some(self.query_context());
        let outcome = users.change_committed(
            |accounts| {
                let mut warnings = Vec::new();
                (plan.edit)(accounts, &mut warnings)?;
                let text = match &plan.text {
                    Some(text) => text.clone(),
                    None => set_password_text(accounts, &plan.names)?,
                };
                Ok((text, warnings))
            },
            |(text, _), old, new| {
                let _guard = server.ddl.lock();
                let mut txn = server.engine.begin();
                if let Some(id) = server.engine.table_id(old) {
                    server.engine.drop_table_in(&mut txn, id)?;
                }
                server.engine.create_table_in(&mut txn, marker_schema(new))?;
                server.hooks.committer.commit_ddl(
                    txn,
                    db.as_deref(),
                    text,
                    gtid,
                    context.clone(),
                )?;
                Ok(server.engine.table_id(new).is_some())
            },
            |e| user_error(&e),
        )?;
        self.consume_gtid();
        if let Some((_, warnings)) = outcome {
            self.warnings.extend(warnings);
        }
        Ok(Output::Ok {
            affected_rows: 0,
            last_insert_id: 0,
            info: String::new(),
            warnings: self.warning_count(),
        })
    }

    /// What an account statement changes and how it is logged.
    fn plan(&self, stmt: &AccountStmt) -> Result<Plan> {
        Ok(match stmt {
            AccountStmt::CreateUser { if_not_exists, users } => {
                let mut list = Vec::with_capacity(users.len());
                for (name, identified) in users {
                    let auth = match identified {
                        Some(i) => i.auth()?,
                        None => UserAuth::caching_sha2(""),
                    };
                    list.push((name.clone(), auth));
                }
                let text = format!(
                    "CREATE USER {}{}",
                    if *if_not_exists { "IF NOT EXISTS " } else { "" },
                    list.iter()
                        .map(|(n, auth)| format!("{} {}", quote_user(n), identified_text(auth)))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                let if_not_exists = *if_not_exists;
                Plan::new("Com_create_user", text, move |accounts, warnings| {
                    create_users(accounts, &list, if_not_exists, warnings)
                })
            }
            AccountStmt::AlterUser { if_exists, users } => {
                let mut list = Vec::with_capacity(users.len());
                for (spec, identified) in users {
                    list.push((
                        self.resolve(spec),
                        identified.as_ref().map(Identified::auth).transpose()?,
                    ));
                }
                let text = format!(
                    "ALTER USER {}{}",
                    if *if_exists { "IF EXISTS " } else { "" },
                    list.iter()
                        .map(|(n, auth)| match auth {
                            Some(auth) => format!("{} {}", quote_user(n), identified_text(auth)),
                            None => quote_user(n),
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                let if_exists = *if_exists;
                Plan::new("Com_alter_user", text, move |accounts, warnings| {
                    let missing = missing(accounts, list.iter().map(|(n, _)| n));
                    if !missing.is_empty() && !if_exists {
                        return Err(cannot_user("ALTER USER", &missing));
                    }
                    for (name, auth) in &list {
                        let Some(a) = find(accounts, name) else {
                            warnings.push(note(
                                3162,
                                format!("Authorization ID {name} does not exist."),
                            ));
                            continue;
                        };
                        // Without IDENTIFIED (account options only) nothing binlogd keeps changes.
                        if let Some(auth) = auth {
                            a.auth = auth.clone();
                        }
                    }
                    Ok(())
                })
            }
            AccountStmt::DropUser { if_exists, users } => {
                let list: Vec<UserName> = users.iter().map(|u| self.resolve(u)).collect();
                let text = format!(
                    "DROP USER {}{}",
                    if *if_exists { "IF EXISTS " } else { "" },
                    list.iter().map(quote_user).collect::<Vec<_>>().join(", ")
                );
                let if_exists = *if_exists;
                Plan::new("Com_drop_user", text, move |accounts, warnings| {
                    let missing = missing(accounts, list.iter());
                    if !missing.is_empty() && !if_exists {
                        return Err(cannot_user("DROP USER", &missing));
                    }
                    for name in &list {
                        let before = accounts.len();
                        accounts.retain(|a| !same(a, name));
                        if accounts.len() == before {
                            warnings.push(note(
                                3162,
                                format!("Authorization ID {name} does not exist."),
                            ));
                        }
                    }
                    Ok(())
                })
            }
            AccountStmt::RenameUser(pairs) => {
                let list: Vec<(UserName, UserName)> =
                    pairs.iter().map(|(from, to)| (self.resolve(from), to.clone())).collect();
                let text = format!(
                    "RENAME USER {}",
                    list.iter()
                        .map(|(f, t)| format!("{} TO {}", quote_user(f), quote_user(t)))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                Plan::new("Com_rename_user", text, move |accounts, _| {
                    // mysqld renames in order and reports every pair that failed.
                    let mut failed = Vec::new();
                    for (from, to) in &list {
                        accounts::check_names(&to.user, &to.host).map_err(|e| user_error(&e))?;
                        if find(accounts, to).is_some() {
                            failed.push(from.to_string());
                            continue;
                        }
                        match find(accounts, from) {
                            Some(a) => {
                                a.user = to.user.clone();
                                a.host = to.host.to_ascii_lowercase();
                            }
                            None => failed.push(from.to_string()),
                        }
                    }
                    if failed.is_empty() {
                        Ok(())
                    } else {
                        Err(cannot_user("RENAME USER", &failed))
                    }
                })
            }
            AccountStmt::SetPassword { user, password } => {
                let name = self.resolve(user.as_ref().unwrap_or(&UserSpec::Current));
                let password = password.clone();
                let target = name.clone();
                let mut plan = Plan::new("Com_set_password", String::new(), move |accounts, _| {
                    // ER_PASSWORD_NO_MATCH (mysqld's answer for a missing account).
                    let a = find(accounts, &target).ok_or_else(|| SqlError::Other {
                        code: 1133,
                        sqlstate: "42000",
                        message: "Can't find any matching row in the user table".into(),
                    })?;
                    too_long(a.auth.plugin, &password)?;
                    a.auth = match a.auth.plugin {
                        AuthPlugin::MysqlNativePassword => UserAuth::native(&password),
                        AuthPlugin::CachingSha2Password => UserAuth::caching_sha2(&password),
                    };
                    Ok(())
                });
                // Logged as mysqld 8 logs it: ALTER USER ... IDENTIFIED WITH ... AS, made once
                // the new hash exists.
                plan.text = None;
                plan.names = vec![name];
                plan
            }
            AccountStmt::Grant { privileges, target, users } => {
                let level = self.level(target)?;
                let privileges = level_privileges(&level, *privileges)?;
                if let Level::Table(db, t) = &level {
                    let real = self.server.database(db).unwrap_or_else(|| db.clone());
                    if self.server.engine.table_id(&format!("{real}.{t}")).is_none() {
                        return Err(SqlError::NoSuchTable { db: db.clone(), table: t.clone() });
                    }
                }
                let list: Vec<UserName> = users.iter().map(|u| self.resolve(u)).collect();
                let with_grant = privileges.contains(Privileges::GRANT_OPTION);
                let text = format!(
                    "GRANT {} ON {} TO {}{}",
                    level_names(&level, privileges.difference(Privileges::GRANT_OPTION)),
                    level.text(),
                    list.iter().map(quote_user).collect::<Vec<_>>().join(", "),
                    if with_grant { " WITH GRANT OPTION" } else { "" }
                );
                Plan::new("Com_grant", text, move |accounts, _| {
                    // mysqld 8 does not create accounts in GRANT (1410), checked for all first.
                    if !missing(accounts, list.iter()).is_empty() {
                        return Err(user_error(&UserError::NoSuchUserForGrant));
                    }
                    for name in &list {
                        let a = find(accounts, name).expect("checked above");
                        match &level {
                            Level::Global => a.privileges = a.privileges.union(privileges),
                            Level::Database(db) => a.grant_on(db, None, privileges),
                            Level::Table(db, t) => a.grant_on(db, Some(t), privileges),
                        }
                    }
                    Ok(())
                })
            }
            AccountStmt::Revoke { privileges, target, users } => {
                let level = target.as_ref().map(|t| self.level(t)).transpose()?;
                let privileges = match &level {
                    Some(l) => level_privileges(l, *privileges)?,
                    None => *privileges,
                };
                let list: Vec<UserName> = users.iter().map(|u| self.resolve(u)).collect();
                let users_text = list.iter().map(quote_user).collect::<Vec<_>>().join(", ");
                let text = match &level {
                    None => format!("REVOKE ALL PRIVILEGES, GRANT OPTION FROM {users_text}"),
                    Some(l) => format!(
                        "REVOKE {} ON {} FROM {users_text}",
                        revoke_names(l, privileges),
                        l.text()
                    ),
                };
                Plan::new("Com_revoke", text, move |accounts, _| {
                    for name in &list {
                        let no_grant = || {
                            user_error(&UserError::NoSuchGrant {
                                user: name.user.clone(),
                                host: name.host.clone(),
                            })
                        };
                        let a = find(accounts, name).ok_or_else(no_grant)?;
                        match &level {
                            None => {
                                a.privileges = Privileges::NONE;
                                a.grants.clear();
                            }
                            Some(Level::Global) => {
                                a.privileges = a.privileges.difference(privileges)
                            }
                            Some(Level::Database(db)) => {
                                if !a.revoke_on(db, None, privileges) {
                                    return Err(no_grant());
                                }
                            }
                            Some(Level::Table(db, t)) => {
                                if !a.revoke_on(db, Some(t), privileges) {
                                    // ER_NONEXISTING_TABLE_GRANT.
                                    return Err(SqlError::Other {
                                        code: 1147,
                                        sqlstate: "42000",
                                        message: format!(
                                            "There is no such grant defined for user '{}' on \
                                             host '{}' on table '{t}'",
                                            name.user, name.host
                                        ),
                                    });
                                }
                            }
                        }
                    }
                    Ok(())
                })
            }
            AccountStmt::ShowGrants(_) | AccountStmt::ShowCreateUser(_) => {
                unreachable!("SHOW GRANTS / SHOW CREATE USER change nothing")
            }
        })
    }

    /// `SHOW CREATE USER user`, as mysqld 8 prints it (`sql/auth/sql_user.cc`,
    /// `mysql_show_create_user`): user and host as identifiers, the plugin, the stored hash,
    /// then the account options at their defaults (binlogd keeps none). With
    /// `print_identified_with_as_hex` ON, a hash with a byte outside printable ASCII (a
    /// caching_sha2_password salt may have any 7-bit byte) is printed as `0x` and hex digits
    /// (mysqld's `print_identified_with_as_hex`); the parser takes both forms back.
    fn show_create_user(&self, users: &accounts::Users, spec: &UserSpec) -> Result<Output> {
        let name = self.resolve(spec);
        let Some(account) = users.get(&name.user, &name.host) else {
            // ER_CANNOT_USER, as mysqld answers SHOW CREATE USER for a missing account.
            return Err(SqlError::Other {
                code: 1396,
                sqlstate: "HY000",
                message: format!("Operation SHOW CREATE USER failed for {}", quote_user(&name)),
            });
        };
        let hash = accounts::auth_string(&account.auth);
        let as_hex = self
            .sysvar(super::ast::VarScope::Session, "print_identified_with_as_hex")
            .is_ok_and(|v| super::eval::truth(&v) == Some(true));
        let hash = if as_hex && hash.bytes().any(|b| !(b' '..=b'~').contains(&b)) {
            format!("0x{}", hex::encode_upper(&hash))
        } else {
            quote_string(&hash)
        };
        let text = format!(
            "CREATE USER {}@{} IDENTIFIED WITH {} AS {hash} REQUIRE NONE PASSWORD EXPIRE \
             DEFAULT ACCOUNT UNLOCK PASSWORD HISTORY DEFAULT PASSWORD REUSE INTERVAL DEFAULT \
             PASSWORD REQUIRE CURRENT DEFAULT",
            quote_ident(&account.user),
            quote_ident(&account.host),
            quote_string(account.auth.plugin.name()),
        );
        let label = format!("CREATE USER for {}@{}", account.user, account.host);
        Ok(Output::Rows {
            columns: vec![ResultColumn::text(&label, 1024)],
            rows: vec![vec![Value::Bytes(text.into_bytes())]],
        })
    }

    /// `SHOW GRANTS [FOR user]`: one row per level, as mysqld 8 prints them
    /// (`sql/auth/sql_show_grants.cc`): global first, then databases, then tables.
    fn show_grants(&self, users: &accounts::Users, spec: Option<&UserSpec>) -> Result<Output> {
        let name = self.resolve(spec.unwrap_or(&UserSpec::Current));
        let Some(account) = users.get(&name.user, &name.host) else {
            // ER_NONEXISTING_GRANT, as mysqld answers SHOW GRANTS for a missing account.
            return Err(user_error(&UserError::NoSuchGrant { user: name.user, host: name.host }));
        };
        let to = format!("{}@{}", quote_ident(&account.user), quote_ident(&account.host));
        let row = |level: &Level, privileges: Privileges| {
            let with_grant = privileges.contains(Privileges::GRANT_OPTION);
            let text = format!(
                "GRANT {} ON {} TO {to}{}",
                level_names(level, privileges.difference(Privileges::GRANT_OPTION)),
                level.text(),
                if with_grant { " WITH GRANT OPTION" } else { "" }
            );
            vec![Value::Bytes(text.into_bytes())]
        };
        let mut rows = vec![row(&Level::Global, account.privileges)];
        let mut grants = account.grants.clone();
        // Database grants before table grants, each sorted by name.
        grants.sort_by_key(|g| g.table.is_some());
        for g in grants {
            let level = match g.table {
                None => Level::Database(g.db),
                Some(t) => Level::Table(g.db, t),
            };
            rows.push(row(&level, g.privileges));
        }
        let label = format!("Grants for {}@{}", account.user, account.host);
        Ok(Output::Rows { columns: vec![ResultColumn::text(&label, 1024)], rows })
    }
}

type Edit = Box<dyn FnOnce(&mut Vec<Account>, &mut Vec<Warning>) -> Result<()>>;

/// An account statement ready to run: its `Com_*` counter, its binlog text (None: made from
/// the edited accounts `names`, for SET PASSWORD) and its change.
struct Plan {
    counter: &'static str,
    text: Option<String>,
    names: Vec<UserName>,
    edit: Edit,
}

impl Plan {
    fn new(
        counter: &'static str,
        text: String,
        edit: impl FnOnce(&mut Vec<Account>, &mut Vec<Warning>) -> Result<()> + 'static,
    ) -> Plan {
        Plan { counter, text: Some(text), names: Vec::new(), edit: Box::new(edit) }
    }
}

/// The marker table of an accounts generation (see `Users::change_committed`).
fn marker_schema(name: &str) -> engine::TableSchema {
    engine::TableSchema::new(
        name,
        vec![engine::Column::new(
            "generation",
            engine::ColumnType::Integer { bytes: 1, unsigned: false },
        )],
        vec![],
    )
}

/// `IDENTIFIED WITH 'plugin' AS 'hash'`: how mysqld writes a password to the binary log.
fn identified_text(auth: &UserAuth) -> String {
    format!(
        "IDENTIFIED WITH {} AS {}",
        quote_string(auth.plugin.name()),
        quote_string(&accounts::auth_string(auth))
    )
}

fn set_password_text(accounts: &[Account], names: &[UserName]) -> Result<String> {
    let parts: Vec<String> = names
        .iter()
        .filter_map(|n| accounts.iter().find(|a| same(a, n)))
        .map(|a| {
            format!(
                "{} {}",
                quote_user(&UserName { user: a.user.clone(), host: a.host.clone() }),
                identified_text(&a.auth)
            )
        })
        .collect();
    Ok(format!("ALTER USER {}", parts.join(", ")))
}

fn same(a: &Account, name: &UserName) -> bool {
    a.user == name.user && a.host.eq_ignore_ascii_case(&name.host)
}

fn find<'a>(accounts: &'a mut [Account], name: &UserName) -> Option<&'a mut Account> {
    accounts.iter_mut().find(|a| same(a, name))
}

fn missing<'a>(accounts: &[Account], names: impl Iterator<Item = &'a UserName>) -> Vec<String> {
    names.filter(|n| !accounts.iter().any(|a| same(a, n))).map(ToString::to_string).collect()
}

fn create_users(
    accounts: &mut Vec<Account>,
    list: &[(UserName, UserAuth)],
    if_not_exists: bool,
    warnings: &mut Vec<Warning>,
) -> Result<()> {
    // mysqld 8 is atomic: every account is checked before any is made, and the error names
    // all the accounts that failed.
    let existing: Vec<String> = list
        .iter()
        .filter(|(n, _)| accounts.iter().any(|a| same(a, n)))
        .map(|(n, _)| n.to_string())
        .collect();
    if !existing.is_empty() && !if_not_exists {
        return Err(cannot_user("CREATE USER", &existing));
    }
    for (name, auth) in list {
        accounts::check_names(&name.user, &name.host).map_err(|e| user_error(&e))?;
        if accounts.iter().any(|a| same(a, name)) {
            warnings.push(note(3163, format!("Authorization ID {name} already exists.")));
            continue;
        }
        accounts.push(Account {
            user: name.user.clone(),
            host: name.host.to_ascii_lowercase(),
            auth: auth.clone(),
            privileges: Privileges::NONE,
            grants: Vec::new(),
        });
    }
    Ok(())
}

/// The privileges a GRANT/REVOKE hands out at `level`: `ALL` means what the level can hold;
/// a privilege the level cannot hold is 1221 (database: mysqld's `ER_WRONG_USAGE` "DB GRANT
/// and GLOBAL PRIVILEGES") or 1144 (table: `ER_ILLEGAL_GRANT_FOR_TABLE`), as
/// `sql/auth/sql_authorization.cc` answers.
fn level_privileges(level: &Level, privileges: Privileges) -> Result<Privileges> {
    let allowed = match level {
        Level::Global => return Ok(privileges),
        Level::Database(_) => Privileges::DB_LEVEL,
        Level::Table(..) => Privileges::TABLE_LEVEL,
    };
    let privileges = if privileges.contains(Privileges::ALL) {
        privileges.difference(Privileges::ALL).union(allowed.difference(Privileges::GRANT_OPTION))
    } else {
        privileges
    };
    if allowed.contains(privileges) {
        return Ok(privileges);
    }
    Err(match level {
        Level::Database(_) => SqlError::Other {
            code: 1221,
            sqlstate: "HY000",
            message: "Incorrect usage of DB GRANT and GLOBAL PRIVILEGES".into(),
        },
        _ => SqlError::Other {
            code: 1144,
            sqlstate: "42000",
            message: "Illegal GRANT/REVOKE command; please consult the manual to see which \
                      privileges can be used"
                .into(),
        },
    })
}

/// The privilege list of a `GRANT ... ON level` line: `ALL PRIVILEGES` when it holds all the
/// level can hold, else the names (`USAGE` when empty).
fn level_names(level: &Level, privileges: Privileges) -> String {
    let all = match level {
        Level::Global => Privileges::ALL,
        Level::Database(_) => Privileges::DB_LEVEL.difference(Privileges::GRANT_OPTION),
        Level::Table(..) => Privileges::TABLE_LEVEL.difference(Privileges::GRANT_OPTION),
    };
    if privileges.contains(all) {
        let mut names = vec!["ALL PRIVILEGES"];
        names.extend(privileges.difference(all).names().into_iter().filter(|n| *n != "USAGE"));
        return names.join(", ");
    }
    privileges.names().join(", ")
}

/// The privilege list of a logged REVOKE (GRANT OPTION named like the others).
fn revoke_names(level: &Level, privileges: Privileges) -> String {
    let rest = privileges.difference(Privileges::GRANT_OPTION);
    let mut text = if rest.is_empty() { String::new() } else { level_names(level, rest) };
    if privileges.contains(Privileges::GRANT_OPTION) {
        if !text.is_empty() {
            text.push_str(", ");
        }
        text.push_str("GRANT OPTION");
    }
    if text.is_empty() {
        text.push_str("USAGE");
    }
    text
}

/// 1396 ER_CANNOT_USER naming every account the operation failed for.
fn cannot_user(operation: &str, accounts: &[String]) -> SqlError {
    SqlError::Other {
        code: 1396,
        sqlstate: "HY000",
        message: format!("Operation {operation} failed for {}", accounts.join(",")),
    }
}
