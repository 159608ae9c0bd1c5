//! Account statements (`CREATE/ALTER/DROP USER`, `GRANT`, `REVOKE`, `SHOW GRANTS`) and the
//! privilege checks every statement passes first.
//!
//! The accounts themselves live in [`crate::users::Users`] (`users.json`, outside the engine);
//! the serve wiring attaches them with [`Server::attach_accounts`](super::Server). A server
//! without attached accounts (the SQL layer embedded in tests) runs every statement with all
//! privileges and refuses the account statements.
//!
//! **Privilege model.** Global privileges only (`ON *.*`), resolved once when the session opens:
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
//! Account statements are not written to the binary log: accounts are server-local (see
//! `users.rs`), unlike mysqld which replicates them.

use engine::Value;

use super::admin::AdminCommand;
use super::ast::{Stmt, TableRef};
use super::error::{Result, SqlError};
use super::output::{ColumnDef, Output};
use super::session::{Session, Warning};
use crate::protocol::UserAuth;
use crate::users::{Privileges, UserError};

/// `'user'@'host'` as written; `host` defaults to `%`. `None` user in a spec means
/// `CURRENT_USER[()]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserName {
    pub user: String,
    pub host: String,
}

impl std::fmt::Display for UserName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "'{}'@'{}'", self.user, self.host)
    }
}

/// A user in an account statement: a name, or `CURRENT_USER[()]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UserSpec {
    Named(UserName),
    Current,
}

/// The authentication plugins accounts can use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plugin {
    CachingSha2,
    Native,
}

/// `IDENTIFIED [WITH plugin] [BY 'password']`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identified {
    /// None: the default plugin (caching_sha2_password, mysqld 8's default).
    pub plugin: Option<Plugin>,
    pub password: String,
}

impl Identified {
    fn auth(&self) -> UserAuth {
        match self.plugin {
            Some(Plugin::Native) => UserAuth::native(&self.password),
            Some(Plugin::CachingSha2) | None => UserAuth::caching_sha2(&self.password),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AccountStmt {
    CreateUser {
        if_not_exists: bool,
        users: Vec<(UserName, Option<Identified>)>,
    },
    AlterUser {
        if_exists: bool,
        users: Vec<(UserSpec, Option<Identified>)>,
    },
    DropUser {
        if_exists: bool,
        users: Vec<UserSpec>,
    },
    Grant {
        privileges: Privileges,
        users: Vec<UserSpec>,
    },
    Revoke {
        privileges: Privileges,
        users: Vec<UserSpec>,
    },
    /// `SHOW GRANTS [FOR user]`.
    ShowGrants(Option<UserSpec>),
}

/// What the session's account is allowed, resolved when the session opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SessionAccount {
    /// `CURRENT_USER()`: the account's user and host pattern.
    pub name: UserName,
    pub privileges: Privileges,
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

    /// 1142 unless the account holds `wanted`.
    fn need_table(&self, wanted: Privileges, command: &str, table: &TableRef) -> Result<()> {
        if self.privileges().contains(wanted) {
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

    /// 1044 unless the account holds `wanted` (`USE` asks for any privilege: `NONE`).
    pub(crate) fn need_database(&self, wanted: Privileges, db: &str) -> Result<()> {
        let have = self.privileges();
        let ok = if wanted.is_empty() { !have.is_empty() } else { have.contains(wanted) };
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

    /// 1227 unless the account holds one of `any`; `names` is how mysqld lists them.
    fn need_any(&self, any: &[Privileges], names: &str) -> Result<()> {
        let have = self.privileges();
        if any.iter().any(|p| have.contains(*p)) {
            return Ok(());
        }
        Err(specific_denied(names))
    }

    /// The privilege check every statement passes before it runs.
    pub(crate) fn check_privileges(&self, stmt: &Stmt) -> Result<()> {
        if let Stmt::Account(a) = stmt {
            return self.check_account_privileges(a);
        }
        if self.privileges().contains(Privileges::ALL) {
            return Ok(());
        }
        let index = Privileges::from_name("INDEX").unwrap_or(Privileges::ALL);
        match stmt {
            Stmt::Select(s) => match &s.from {
                Some(t) => self.need_table(Privileges::SELECT, "SELECT", t),
                None => Ok(()),
            },
            Stmt::Insert(i) if i.replace => {
                self.need_table(Privileges::INSERT.union(Privileges::DELETE), "REPLACE", &i.table)
            }
            Stmt::Insert(i) => self.need_table(Privileges::INSERT, "INSERT", &i.table),
            Stmt::Update(u) => self.need_table(Privileges::UPDATE, "UPDATE", &u.table),
            Stmt::Delete(d) => self.need_table(Privileges::DELETE, "DELETE", &d.table),
            Stmt::CreateDatabase { name, .. } => self.need_database(Privileges::CREATE, name),
            Stmt::DropDatabase { name, .. } => self.need_database(Privileges::DROP, name),
            Stmt::CreateTable(ct) => self.need_table(Privileges::CREATE, "CREATE", &ct.table),
            Stmt::CreateIndex { table, .. } | Stmt::DropIndex { table, .. } => {
                self.need_table(index, "INDEX", table)
            }
            Stmt::DropTable { tables, .. } => match tables.first() {
                Some(t) => self.need_table(Privileges::DROP, "DROP", t),
                None => Ok(()),
            },
            Stmt::Truncate(t) => self.need_table(Privileges::DROP, "DROP", t),
            // mysqld: SELECT on each table (`check_table_access(thd, SELECT_ACL, ...)`).
            Stmt::Checksum { tables, .. } => {
                tables.iter().try_for_each(|t| self.need_table(Privileges::SELECT, "SELECT", t))
            }
            Stmt::Set(items) => {
                let global = items.iter().any(|i| {
                    matches!(
                        i,
                        super::ast::SetItem::System { scope: super::ast::VarScope::Global, .. }
                    )
                });
                if global {
                    self.need_any(&[Privileges::SUPER], "SUPER or SYSTEM_VARIABLES_ADMIN")
                } else {
                    Ok(())
                }
            }
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

    fn check_account_privileges(&self, a: &AccountStmt) -> Result<()> {
        let create_user = || self.need_any(&[Privileges::CREATE_USER], "CREATE USER");
        match a {
            AccountStmt::CreateUser { .. } | AccountStmt::DropUser { .. } => create_user(),
            // Changing one's own password needs no privilege (mysqld).
            AccountStmt::AlterUser { users, .. } => {
                if users.iter().all(|(u, _)| self.is_self(u)) {
                    Ok(())
                } else {
                    create_user()
                }
            }
            AccountStmt::Grant { privileges, .. } | AccountStmt::Revoke { privileges, .. } => {
                let have = self.privileges();
                if !have.contains(Privileges::GRANT_OPTION) {
                    return Err(specific_denied("GRANT OPTION"));
                }
                if !have.contains(*privileges) {
                    let missing = privileges.difference(have).names().join(", ");
                    return Err(specific_denied(&missing));
                }
                Ok(())
            }
            // Another account's grants: mysqld wants SELECT on the mysql schema.
            AccountStmt::ShowGrants(Some(u)) if !self.is_self(u) => {
                self.need_any(&[Privileges::SELECT], "SELECT")
            }
            AccountStmt::ShowGrants(_) => Ok(()),
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

    /// Runs an account statement.
    pub(crate) fn account_statement(&mut self, stmt: &AccountStmt) -> Result<Output> {
        let server = self.server.clone();
        let Some(users) = server.accounts() else {
            return Err(SqlError::NotSupported(
                "account management without an accounts file".into(),
            ));
        };
        match stmt {
            AccountStmt::CreateUser { if_not_exists, users: list } => {
                server.count("Com_create_user");
                // mysqld 8 is atomic: every account is checked before any is made, and the
                // error names all the accounts that failed.
                let existing: Vec<String> = list
                    .iter()
                    .filter(|(n, _)| users.get(&n.user, &n.host).is_some())
                    .map(|(n, _)| n.to_string())
                    .collect();
                if !existing.is_empty() && !if_not_exists {
                    return Err(cannot_user("CREATE USER", &existing));
                }
                for (name, identified) in list {
                    let auth = identified
                        .as_ref()
                        .map_or_else(|| UserAuth::caching_sha2(""), Identified::auth);
                    let created = users
                        .create_user(&name.user, &name.host, auth, *if_not_exists)
                        .map_err(|e| user_error(&e))?;
                    if !created {
                        self.warnings
                            .push(note(3163, format!("Authorization ID {name} already exists.")));
                    }
                }
            }
            AccountStmt::AlterUser { if_exists, users: list } => {
                server.count("Com_alter_user");
                let names: Vec<(UserName, &Option<Identified>)> =
                    list.iter().map(|(u, i)| (self.resolve(u), i)).collect();
                let missing: Vec<String> = names
                    .iter()
                    .filter(|(n, _)| users.get(&n.user, &n.host).is_none())
                    .map(|(n, _)| n.to_string())
                    .collect();
                if !missing.is_empty() && !if_exists {
                    return Err(cannot_user("ALTER USER", &missing));
                }
                for (name, identified) in names {
                    if users.get(&name.user, &name.host).is_none() {
                        self.warnings
                            .push(note(3162, format!("Authorization ID {name} does not exist.")));
                        continue;
                    }
                    // ALTER USER without IDENTIFIED (account options only) changes nothing
                    // binlogd keeps.
                    if let Some(identified) = identified {
                        users
                            .alter_user(&name.user, &name.host, identified.auth())
                            .map_err(|e| user_error(&e))?;
                    }
                }
            }
            AccountStmt::DropUser { if_exists, users: list } => {
                server.count("Com_drop_user");
                let names: Vec<UserName> = list.iter().map(|u| self.resolve(u)).collect();
                let missing: Vec<String> = names
                    .iter()
                    .filter(|n| users.get(&n.user, &n.host).is_none())
                    .map(ToString::to_string)
                    .collect();
                if !missing.is_empty() && !if_exists {
                    return Err(cannot_user("DROP USER", &missing));
                }
                for name in names {
                    let dropped = users
                        .drop_user(&name.user, &name.host, true)
                        .map_err(|e| user_error(&e))?;
                    if !dropped {
                        self.warnings
                            .push(note(3162, format!("Authorization ID {name} does not exist.")));
                    }
                }
            }
            AccountStmt::Grant { privileges, users: list } => {
                server.count("Com_grant");
                let names: Vec<UserName> = list.iter().map(|u| self.resolve(u)).collect();
                // mysqld 8 does not create accounts in GRANT (1410), checked for all first.
                if names.iter().any(|n| users.get(&n.user, &n.host).is_none()) {
                    return Err(user_error(&UserError::NoSuchUserForGrant));
                }
                for name in names {
                    users.grant(&name.user, &name.host, *privileges).map_err(|e| user_error(&e))?;
                }
            }
            AccountStmt::Revoke { privileges, users: list } => {
                server.count("Com_revoke");
                for spec in list {
                    let name = self.resolve(spec);
                    users
                        .revoke(&name.user, &name.host, *privileges)
                        .map_err(|e| user_error(&e))?;
                }
            }
            AccountStmt::ShowGrants(spec) => {
                server.count("Com_show_grants");
                let name = match spec {
                    Some(s) => self.resolve(s),
                    None => self.resolve(&UserSpec::Current),
                };
                let Some(account) = users.get(&name.user, &name.host) else {
                    // ER_NONEXISTING_GRANT, as mysqld answers SHOW GRANTS for a missing account.
                    return Err(SqlError::Other {
                        code: 1141,
                        sqlstate: "42000",
                        message: format!(
                            "There is no such grant defined for user '{}' on host '{}'",
                            name.user, name.host
                        ),
                    });
                };
                let with_grant = account.privileges.contains(Privileges::GRANT_OPTION);
                let list: Vec<&str> = account
                    .privileges
                    .difference(Privileges::GRANT_OPTION)
                    .names()
                    .into_iter()
                    .collect();
                let grant = format!(
                    "GRANT {} ON *.* TO `{}`@`{}`{}",
                    list.join(", "),
                    account.user,
                    account.host,
                    if with_grant { " WITH GRANT OPTION" } else { "" }
                );
                let label = format!("Grants for {}@{}", account.user, account.host);
                return Ok(Output::Rows {
                    columns: vec![ColumnDef::text(&label, 1024)],
                    rows: vec![vec![Value::Bytes(grant.into_bytes())]],
                });
            }
        }
        Ok(Output::Ok {
            affected_rows: 0,
            last_insert_id: 0,
            info: String::new(),
            warnings: self.warning_count(),
        })
    }
}

/// 1396 ER_CANNOT_USER naming every account the operation failed for.
fn cannot_user(operation: &str, accounts: &[String]) -> SqlError {
    SqlError::Other {
        code: 1396,
        sqlstate: "HY000",
        message: format!("Operation {operation} failed for {}", accounts.join(",")),
    }
}
