//! User accounts: `'user'@'host'` with an authentication plugin, a stored password, global
//! privileges and database/table grants, kept in `<datadir>/users.json`.
//!
//! **Host matching.** A host pattern is matched against the client's IP address in text form
//! (the protocol layer maps IPv4-mapped IPv6 to IPv4):
//! - `%` and `_` are SQL LIKE wildcards (any run, one character), case-insensitive; `%` or an
//!   empty host match every client;
//! - `a.b.c.d/m.m.m.m` (mysqld's netmask form) and `a.b.c.d/n` (CIDR) match an IPv4 range;
//! - `localhost` matches the loopback addresses `127.0.0.1` and `::1`. mysqld keeps `localhost`
//!   for Unix-socket connections and, by name resolution, for TCP from loopback; binlogd listens
//!   on TCP only and never resolves names (as mysqld with `skip_name_resolve`), so `localhost`
//!   means "connected over loopback", which is what `root@localhost` is meant to allow.
//!
//! **Which account a client gets.** As mysqld (`sql/auth/sql_auth_cache.cc`, the ACL sort): the
//! accounts are ordered most specific host first (no wildcards; then patterns by the length of
//! their literal prefix; `%` last), then named users before the anonymous user `''`, and the
//! first account whose host matches and whose user is the client's or anonymous wins. This keeps
//! mysqld's well-known consequence: an anonymous `''@'localhost'` beats `'bob'@'%'` for bob on
//! loopback.
//!
//! **Durability.** Every change writes the whole account list to `users.json` through
//! [`write_file_durably`] (temporary file, fsync, rename, directory fsync) before it becomes
//! visible; a failed write leaves the accounts as they were. Accounts live outside the engine's
//! tables: they are needed to authenticate before anything else, change rarely and are tiny.
//!
//! **Committed with the binary log.** An account statement is binlogged (a QUERY event with its
//! own GTID) and must be in the accounts exactly when its event is in the binlog, whatever the
//! crash. [`Users::change_committed`] numbers each change (a *generation*), writes the new
//! accounts to `users.json` as *pending* beside the current ones, then has the caller commit
//! one engine DDL transaction that drops the marker table of the current generation and creates
//! the new one ([`generation_table`]) together with the event, through the same two-phase
//! commit as other DDL; only then is the change published and the file rewritten without the
//! pending entry. After a crash, [`Users::recover`] (run once the engine recovered) keeps the
//! pending change whose marker exists — recovery committed it because its event is in the
//! binlog — and drops the others. So a crash after the file write but before the binlog loses
//! the change on both sides, a crash after the binlog keeps it on both, and a lost final
//! rewrite is repaired at the next start: never one without the other, never twice.
//!
//! **First start.** When `users.json` does not exist, `root@localhost` is made with every
//! privilege and `WITH GRANT OPTION`, and a random password that is logged once and written to
//! `<datadir>/initial-root-password` (mode 0600) before `users.json`, so no crash can leave an
//! account whose password was never shown. `--initialize-insecure` gives root an empty password
//! instead. (Unlike mysqld, the password is not marked expired: binlogd has no expired-password
//! sandbox mode.)

use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::{Mutex, RwLock};
use rand::RngExt;
use serde::{Deserialize, Serialize};

use protocol::auth::{native_hash_from_str, native_hash_to_string};
use protocol::{AuthPlugin, ErrPacket, StoredPassword, UserAuth};
use vfs::write_file_durably;

/// The accounts file in the data directory.
pub const USERS_FILE: &str = "users.json";
/// Where the first start's random root password is written.
pub const INITIAL_ROOT_PASSWORD_FILE: &str = "initial-root-password";
/// Longest user name, as mysqld 8.
pub const USER_NAME_MAX: usize = 32;
/// Longest host name or pattern, as mysqld 8.
pub const HOST_NAME_MAX: usize = 255;

const FORMAT_VERSION: u32 = 2;

/// Global privileges (`GRANT ... ON *.*`), a set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Privileges(u32);

/// Every static global privilege of mysqld 8, in the order `SHOW GRANTS` lists them.
const PRIVILEGE_NAMES: [&str; 29] = [
    "SELECT",
    "INSERT",
    "UPDATE",
    "DELETE",
    "CREATE",
    "DROP",
    "RELOAD",
    "SHUTDOWN",
    "PROCESS",
    "FILE",
    "REFERENCES",
    "INDEX",
    "ALTER",
    "SHOW DATABASES",
    "SUPER",
    "CREATE TEMPORARY TABLES",
    "LOCK TABLES",
    "EXECUTE",
    "REPLICATION SLAVE",
    "REPLICATION CLIENT",
    "CREATE VIEW",
    "SHOW VIEW",
    "CREATE ROUTINE",
    "ALTER ROUTINE",
    "CREATE USER",
    "EVENT",
    "TRIGGER",
    "CREATE TABLESPACE",
    "GRANT OPTION",
];

impl Privileges {
    /// No privilege (`USAGE`).
    pub const NONE: Privileges = Privileges(0);
    /// `SELECT`.
    pub const SELECT: Privileges = Privileges(1 << 0);
    /// `INSERT`.
    pub const INSERT: Privileges = Privileges(1 << 1);
    /// `UPDATE`.
    pub const UPDATE: Privileges = Privileges(1 << 2);
    /// `DELETE`.
    pub const DELETE: Privileges = Privileges(1 << 3);
    /// `CREATE`.
    pub const CREATE: Privileges = Privileges(1 << 4);
    /// `DROP`.
    pub const DROP: Privileges = Privileges(1 << 5);
    /// `RELOAD` (FLUSH).
    pub const RELOAD: Privileges = Privileges(1 << 6);
    /// `PROCESS`: SHOW PROCESSLIST lists every user's connections.
    pub const PROCESS: Privileges = Privileges(1 << 8);
    /// `SUPER`.
    pub const SUPER: Privileges = Privileges(1 << 14);
    /// `REPLICATION SLAVE`: may read the binlog stream (COM_BINLOG_DUMP).
    pub const REPLICATION_SLAVE: Privileges = Privileges(1 << 18);
    /// `REPLICATION CLIENT`: SHOW MASTER STATUS, SHOW BINARY LOGS.
    pub const REPLICATION_CLIENT: Privileges = Privileges(1 << 19);
    /// `CREATE USER`.
    pub const CREATE_USER: Privileges = Privileges(1 << 24);
    /// `GRANT OPTION`: may grant its own privileges. Not part of [`Privileges::ALL`], as in MySQL.
    pub const GRANT_OPTION: Privileges = Privileges(1 << 28);
    /// `ALL [PRIVILEGES]`: every privilege but `GRANT OPTION`.
    pub const ALL: Privileges = Privileges((1 << 28) - 1);
    /// What a database-level grant (`ON db.*`) may hold: mysqld's `DB_ACLS` (SELECT, INSERT,
    /// UPDATE, DELETE, CREATE, DROP, GRANT OPTION, REFERENCES, INDEX, ALTER, CREATE TEMPORARY
    /// TABLES, LOCK TABLES, EXECUTE, CREATE VIEW, SHOW VIEW, CREATE ROUTINE, ALTER ROUTINE,
    /// EVENT, TRIGGER; `sql/auth/auth_acls.h`).
    pub const DB_LEVEL: Privileges = Privileges(
        0b1111
            | 1 << 4
            | 1 << 5
            | 1 << 10
            | 1 << 11
            | 1 << 12
            | 1 << 15
            | 1 << 16
            | 1 << 17
            | 1 << 20
            | 1 << 21
            | 1 << 22
            | 1 << 23
            | 1 << 25
            | 1 << 26
            | 1 << 28,
    );
    /// What a table-level grant (`ON db.tbl`) may hold: mysqld's `TABLE_ACLS` (SELECT,
    /// INSERT, UPDATE, DELETE, CREATE, DROP, GRANT OPTION, REFERENCES, INDEX, ALTER, CREATE
    /// VIEW, SHOW VIEW, TRIGGER).
    pub const TABLE_LEVEL: Privileges = Privileges(
        0b1111
            | 1 << 4
            | 1 << 5
            | 1 << 10
            | 1 << 11
            | 1 << 12
            | 1 << 20
            | 1 << 21
            | 1 << 26
            | 1 << 28,
    );
    /// `INDEX`.
    pub const INDEX: Privileges = Privileges(1 << 11);
    /// `ALTER`.
    pub const ALTER: Privileges = Privileges(1 << 12);
    /// `SHUTDOWN`.
    pub const SHUTDOWN: Privileges = Privileges(1 << 7);

    /// The privilege named `name` (`ALL`, `ALL PRIVILEGES`, `REPLICATION SLAVE` or its 8.0.22
    /// synonym `REPLICATION REPLICA`, ..., any case, any spacing), or `None`.
    pub fn from_name(name: &str) -> Option<Privileges> {
        let name = name.split_whitespace().collect::<Vec<_>>().join(" ").to_ascii_uppercase();
        match name.as_str() {
            "ALL" | "ALL PRIVILEGES" => return Some(Privileges::ALL),
            "USAGE" => return Some(Privileges::NONE),
            "REPLICATION REPLICA" => return Some(Privileges::REPLICATION_SLAVE),
            _ => {}
        }
        PRIVILEGE_NAMES.iter().position(|n| *n == name).map(|i| Privileges(1 << i))
    }

    /// The names in this set, in `SHOW GRANTS` order (`ALL PRIVILEGES` when it holds all;
    /// `USAGE` when empty; `GRANT OPTION` is listed, callers print it as `WITH GRANT OPTION`).
    pub fn names(self) -> Vec<&'static str> {
        let mut names = Vec::new();
        let rest = if self.contains(Privileges::ALL) {
            names.push("ALL PRIVILEGES");
            self.difference(Privileges::ALL)
        } else {
            self
        };
        for (i, name) in PRIVILEGE_NAMES.iter().enumerate() {
            if rest.0 & (1 << i) != 0 {
                names.push(*name);
            }
        }
        if names.is_empty() {
            names.push("USAGE");
        }
        names
    }

    /// True if every privilege of `other` is in `self`.
    /// Each privilege held, one name each (ALL spelled out, GRANT OPTION left out): the rows
    /// of information_schema's USER_/SCHEMA_/TABLE_PRIVILEGES, which show grantability apart.
    pub fn each(self) -> Vec<&'static str> {
        PRIVILEGE_NAMES
            .iter()
            .enumerate()
            .filter(|&(i, _)| {
                self.0 & (1 << i) != 0 && Privileges(1 << i) != Privileges::GRANT_OPTION
            })
            .map(|(_, n)| *n)
            .collect()
    }

    pub fn contains(self, other: Privileges) -> bool {
        self.0 & other.0 == other.0
    }

    /// Both sets together.
    pub fn union(self, other: Privileges) -> Privileges {
        Privileges(self.0 | other.0)
    }

    /// The privileges in both sets.
    pub fn intersection(self, other: Privileges) -> Privileges {
        Privileges(self.0 & other.0)
    }

    /// `self` without `other`'s privileges.
    pub fn difference(self, other: Privileges) -> Privileges {
        Privileges(self.0 & !other.0)
    }

    /// True for `USAGE` (no privilege).
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

/// One account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account {
    /// User name; empty for the anonymous user.
    pub user: String,
    /// Host pattern, lower case.
    pub host: String,
    /// Plugin and stored password.
    pub auth: UserAuth,
    /// Global privileges.
    pub privileges: Privileges,
    /// Database- and table-level grants (`ON db.*`, `ON db.tbl`), at most one per object.
    pub grants: Vec<Grant>,
}

/// The privileges an account holds on one database (`table: None`) or one table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    /// The database, as written in the GRANT (matched case-insensitively, as binlogd's
    /// database names are).
    pub db: String,
    /// The table, for a table-level grant.
    pub table: Option<String>,
    /// Never empty: a grant whose last privilege is revoked is removed, as mysqld deletes the
    /// `mysql.db` / `mysql.tables_priv` row.
    pub privileges: Privileges,
}

impl Grant {
    /// [`Grant::is_on`] with names compared exactly when `case_sensitive`
    /// (`lower_case_table_names = 0`: `mysql.db` and `mysql.tables_priv` keys are binary).
    pub fn is_on_names(&self, db: &str, table: Option<&str>, case_sensitive: bool) -> bool {
        if !case_sensitive {
            return self.is_on(db, table);
        }
        self.db == db && self.table.as_deref() == table
    }

    /// [`Grant::db_matches`] with names compared exactly when `case_sensitive`.
    pub fn db_matches_names(&self, db: &str, case_sensitive: bool) -> bool {
        if !case_sensitive {
            return self.db_matches(db);
        }
        if self.table.is_some() {
            return self.db == db;
        }
        crate::wild_compare(db.as_bytes(), self.db.as_bytes())
    }

    /// True if this grant is the one on `db` (and `table`).
    pub fn is_on(&self, db: &str, table: Option<&str>) -> bool {
        self.db.eq_ignore_ascii_case(db)
            && match (&self.table, table) {
                (None, None) => true,
                (Some(a), Some(b)) => a.eq_ignore_ascii_case(b),
                _ => false,
            }
    }
}

impl Grant {
    /// True if this grant's database name admits database `db`. For a database-level grant the
    /// name is a pattern, as in mysqld (`acl_get` compares with `wild_case_compare`): `%` any
    /// run, `_` one character, `\` makes the next character literal (`db\_1` is only `db_1`).
    /// A table-level grant names its database literally (mysqld's `tables_priv`).
    pub fn db_matches(&self, db: &str) -> bool {
        if self.table.is_some() {
            return self.db.eq_ignore_ascii_case(db);
        }
        // SQL LIKE's own matcher: `%`, `_`, `\` escapes, ASCII case-insensitive.
        crate::wild_case_compare(db.as_bytes(), self.db.as_bytes())
    }
}

impl Account {
    /// Every privilege the account holds on `db` (all its tables) or, with `table`, on that
    /// table: the global ones, the database's and the table's together (mysqld ORs the levels).
    pub fn privileges_on(&self, db: &str, table: Option<&str>) -> Privileges {
        self.privileges.union(self.granted_on(db, table))
    }

    /// The privileges the account's database grant and (with `table`) table grant give on
    /// `db`, without the global ones. Of several database grants whose pattern admits `db`,
    /// the most specific counts, as mysqld takes the first match in its sorted `acl_dbs`
    /// (`sql/auth/sql_auth_cache.cc`, `acl_get`): an exact name first, then patterns with the
    /// longer literal prefix.
    pub fn granted_on(&self, db: &str, table: Option<&str>) -> Privileges {
        self.granted_on_names(db, table, false)
    }

    /// [`Account::granted_on`], names compared exactly when `case_sensitive`
    /// (`lower_case_table_names = 0`).
    pub fn granted_on_names(
        &self,
        db: &str,
        table: Option<&str>,
        case_sensitive: bool,
    ) -> Privileges {
        let mut have = self
            .grants
            .iter()
            .filter(|g| g.table.is_none() && g.db_matches_names(db, case_sensitive))
            .min_by_key(|g| db_pattern_rank(&g.db))
            .map_or(Privileges::NONE, |g| g.privileges);
        if let Some(t) = table {
            if let Some(g) = self.grants.iter().find(|g| g.is_on_names(db, Some(t), case_sensitive))
            {
                have = have.union(g.privileges);
            }
        }
        have
    }

    /// True if the account holds any privilege on `db` or a table in it (what `USE db` asks,
    /// as mysqld's `check_db_access` / `acl_get` with table grants counted).
    pub fn any_privilege_in(&self, db: &str) -> bool {
        self.any_privilege_in_names(db, false)
    }

    /// [`Account::any_privilege_in`], names compared exactly when `case_sensitive`.
    pub fn any_privilege_in_names(&self, db: &str, case_sensitive: bool) -> bool {
        // Global privileges count only where they apply to databases (mysqld's DB_ACLS): a
        // global PROCESS or REPLICATION SLAVE opens no database.
        !self.privileges.intersection(Privileges::DB_LEVEL).is_empty()
            || self.grants.iter().any(|g| g.db_matches_names(db, case_sensitive))
    }

    /// Adds `privileges` to the account's grant on `db` (`table`), made if missing.
    pub fn grant_on(&mut self, db: &str, table: Option<&str>, privileges: Privileges) {
        match self.grants.iter_mut().find(|g| g.is_on(db, table)) {
            Some(g) => g.privileges = g.privileges.union(privileges),
            None => self.grants.push(Grant {
                db: db.to_string(),
                table: table.map(str::to_string),
                privileges,
            }),
        }
        self.grants.sort_by(|a, b| {
            (a.db.to_ascii_lowercase(), a.table.as_ref().map(|t| t.to_ascii_lowercase()))
                .cmp(&(b.db.to_ascii_lowercase(), b.table.as_ref().map(|t| t.to_ascii_lowercase())))
        });
    }

    /// Removes `privileges` from the grant on `db` (`table`); false if there is no such grant
    /// (mysqld's 1141 / 1147). A grant left empty is removed.
    pub fn revoke_on(&mut self, db: &str, table: Option<&str>, privileges: Privileges) -> bool {
        let Some(i) = self.grants.iter().position(|g| g.is_on(db, table)) else {
            return false;
        };
        let left = self.grants[i].privileges.difference(privileges);
        if left.is_empty() {
            self.grants.remove(i);
        } else {
            self.grants[i].privileges = left;
        }
        true
    }
}

/// An account operation that failed.
#[derive(Debug, thiserror::Error)]
pub enum UserError {
    /// CREATE USER of an existing account, ALTER/DROP USER of a missing one (ER_CANNOT_USER).
    #[error("Operation {operation} failed for '{user}'@'{host}'")]
    OperationFailed {
        /// `CREATE USER`, `ALTER USER` or `DROP USER`.
        operation: &'static str,
        /// The user.
        user: String,
        /// The host.
        host: String,
    },
    /// GRANT to an account that does not exist (ER_CANT_CREATE_USER_WITH_GRANT).
    #[error("You are not allowed to create a user with GRANT")]
    NoSuchUserForGrant,
    /// REVOKE from an account that does not exist (ER_NONEXISTING_GRANT).
    #[error("There is no such grant defined for user '{user}' on host '{host}'")]
    NoSuchGrant {
        /// The user.
        user: String,
        /// The host.
        host: String,
    },
    /// A user or host name over mysqld's limit (ER_WRONG_STRING_LENGTH).
    #[error("String '{value}' is too long for {what} (should be no longer than {max})")]
    TooLong {
        /// The name.
        value: String,
        /// `user name` or `host name`.
        what: &'static str,
        /// The limit in characters.
        max: usize,
    },
    /// The accounts file could not be written; nothing changed.
    #[error("cannot save accounts")]
    Persist(#[source] vfs::Error),
    /// The accounts file could not be read.
    #[error("cannot read {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The accounts file is not valid JSON of the expected shape.
    #[error("{} is damaged", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: serde_json::Error,
    },
    /// The accounts file parses but holds a value binlogd cannot use.
    #[error("{}: account '{user}'@'{host}': {reason}", path.display())]
    BadAccount {
        /// The file.
        path: PathBuf,
        /// The account's user.
        user: String,
        /// The account's host.
        host: String,
        /// What is wrong.
        reason: &'static str,
    },
}

impl UserError {
    /// The ERR packet a client gets for this error.
    pub fn to_sql_error(&self) -> ErrPacket {
        let (code, state) = match self {
            UserError::OperationFailed { .. } => (1396, "HY000"),
            UserError::NoSuchUserForGrant => (1410, "42000"),
            UserError::NoSuchGrant { .. } => (1141, "42000"),
            UserError::TooLong { .. } => (1470, "HY000"),
            UserError::Persist(_)
            | UserError::Read { .. }
            | UserError::Parse { .. }
            | UserError::BadAccount { .. } => (1105, "HY000"),
        };
        let mut message = self.to_string();
        let mut source = std::error::Error::source(self);
        while let Some(cause) = source {
            message.push_str(&format!(": {cause}"));
            source = cause.source();
        }
        ErrPacket::new(code, state, message)
    }
}

/// What the first start did about root's password.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Initialization {
    /// `users.json` existed: nothing was made.
    Existing,
    /// `root@localhost` was made with this random password (logged and written to
    /// `initial-root-password`).
    RootPassword(String),
    /// `root@localhost` was made with an empty password (`--initialize-insecure`).
    Insecure,
}

/// The accounts, shared by every connection.
#[derive(Debug)]
pub struct Users {
    path: PathBuf,
    /// Sorted as described in the module docs; replaced whole on every change, so a lookup never
    /// sees a half-made change and never waits for a change's fsync.
    accounts: RwLock<Arc<Vec<Account>>>,
    /// Serializes changes (read, modify, persist, publish) and holds what the file holds
    /// besides the published accounts.
    change: Mutex<Durable>,
}

/// The commit bookkeeping of `users.json` (module docs, "Durability").
#[derive(Debug, Default)]
struct Durable {
    /// The generation of the published accounts: its marker table is in the engine (none for
    /// generation 0 or for changes made without a commit).
    generation: u64,
    /// The next generation number to use; never reused, also not after a failed commit.
    next: u64,
    /// Changes whose commit was started but did not succeed: each may have been prepared
    /// before the failure, so only the engine's marker says after a restart whether it
    /// committed. Cleared by the next successful commit (after a commit failure that could
    /// leave a prepared transaction the pipeline refuses every commit until restart).
    pending: Vec<(u64, Vec<Account>)>,
}

/// The engine table whose existence says that accounts generation `generation` committed
/// (module docs, "Durability"). Its name has a dot, so the SQL layer would take `#accounts`
/// for a database: [`is_internal_table`] keeps it out of the database list.
pub fn generation_table(generation: u64) -> String {
    format!("#accounts.generation_{generation}")
}

/// True for the engine tables this module keeps (not user data).
pub fn is_internal_table(name: &str) -> bool {
    name.starts_with("#accounts.")
}

impl Users {
    /// Loads `<dir>/users.json`, or makes it with `root@localhost` on the first start (an empty
    /// root password if `insecure`).
    pub fn open(dir: &Path, insecure: bool) -> Result<(Users, Initialization), UserError> {
        let path = dir.join(USERS_FILE);
        match std::fs::read(&path) {
            Ok(bytes) => {
                let file = decode(&path, &bytes)?;
                let users = Users::with_accounts(path, file.accounts);
                let next = file.pending.iter().map(|(g, _)| *g).max().unwrap_or(0);
                *users.change.lock() = Durable {
                    generation: file.generation,
                    next: next.max(file.generation) + 1,
                    pending: file.pending,
                };
                return Ok((users, Initialization::Existing));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => return Err(UserError::Read { path, source }),
        };
        let users = Users::with_accounts(path, Vec::new());
        let password_file = dir.join(INITIAL_ROOT_PASSWORD_FILE);
        let initialization = if insecure {
            match std::fs::remove_file(&password_file) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(UserError::Read { path: password_file, source: e })
                }
                _ => {}
            }
            log::warn!(
                "root@localhost is created with an empty password ! \
                 Please consider switching off the --initialize-insecure option."
            );
            Initialization::Insecure
        } else {
            let password = generate_password();
            write_file_durably(&password_file, format!("{password}\n").as_bytes(), 0o600)
                .map_err(UserError::Persist)?;
            // A warning rather than a note, so it shows at every log_error_verbosity above 1.
            log::warn!(
                "A temporary password is generated for root@localhost: {password} \
                 (also in {})",
                password_file.display()
            );
            Initialization::RootPassword(password)
        };
        let password = match &initialization {
            Initialization::RootPassword(p) => p.as_str(),
            _ => "",
        };
        users.change(|accounts| {
            accounts.push(Account {
                user: "root".to_string(),
                host: "localhost".to_string(),
                auth: UserAuth::caching_sha2(password),
                privileges: Privileges::ALL.union(Privileges::GRANT_OPTION),
                grants: Vec::new(),
            });
            Ok(())
        })?;
        Ok((users, initialization))
    }

    fn with_accounts(path: PathBuf, mut accounts: Vec<Account>) -> Users {
        sort(&mut accounts);
        Users {
            path,
            accounts: RwLock::new(Arc::new(accounts)),
            change: Mutex::new(Durable { generation: 0, next: 1, pending: Vec::new() }),
        }
    }

    /// After the engine recovered: adopts the pending change whose marker table the engine
    /// holds (its commit reached the binlog before a crash), drops the others (rolled back),
    /// and rewrites the file without them. `committed(name)` tells whether an engine table
    /// exists. Returns the generation in force.
    pub fn recover(&self, committed: impl Fn(&str) -> bool) -> Result<u64, UserError> {
        let mut durable = self.change.lock();
        if durable.pending.is_empty() {
            return Ok(durable.generation);
        }
        let pending = std::mem::take(&mut durable.pending);
        if let Some((generation, accounts)) =
            pending.into_iter().rev().find(|(g, _)| committed(&generation_table(*g)))
        {
            log::info!("accounts: recovered committed change (generation {generation})");
            durable.generation = generation;
            *self.accounts.write() = Arc::new(accounts);
        }
        let accounts = self.accounts.read().clone();
        write_file_durably(&self.path, &encode(&accounts, &durable), 0o600)
            .map_err(UserError::Persist)?;
        Ok(durable.generation)
    }

    /// One account statement committed with its binary log event: `edit` changes a copy of
    /// the accounts; the copy is saved as pending in `users.json`; `commit(old, new)` must
    /// commit, atomically with the statement's binlog event, an engine DDL transaction that
    /// drops marker table `old` (if it exists) and creates `new`, and answer whether `new`
    /// exists afterwards (false: the commit skipped the statement, e.g. its GTID was already
    /// executed). Only then is the change published. Returns that answer.
    pub fn change_committed<T, E>(
        &self,
        edit: impl FnOnce(&mut Vec<Account>) -> Result<T, E>,
        commit: impl FnOnce(&T, &str, &str) -> Result<bool, E>,
        persist_error: impl Fn(UserError) -> E,
    ) -> Result<Option<T>, E> {
        let mut durable = self.change.lock();
        let current = self.accounts.read().clone();
        let mut accounts = current.as_ref().clone();
        let edited = edit(&mut accounts)?;
        sort(&mut accounts);
        let generation = durable.next;
        durable.next += 1;
        durable.pending.push((generation, accounts.clone()));
        if let Err(e) = write_file_durably(&self.path, &encode(&current, &durable), 0o600) {
            durable.pending.pop();
            return Err(persist_error(UserError::Persist(e)));
        }
        let committed =
            commit(&edited, &generation_table(durable.generation), &generation_table(generation))?;
        if !committed {
            // Rolled back for sure: forget it (the file keeps it until the next write; a
            // restart finds no marker for it).
            durable.pending.pop();
            return Ok(None);
        }
        durable.generation = generation;
        durable.pending.clear();
        *self.accounts.write() = Arc::new(accounts.clone());
        // Committed: the marker decides after a crash even if this rewrite is lost.
        if let Err(e) = write_file_durably(&self.path, &encode(&accounts, &durable), 0o600) {
            log::warn!(
                "accounts: the change is committed but {} could not be rewritten ({e}); \
                 the next start recovers it",
                self.path.display()
            );
        }
        Ok(Some(edited))
    }

    /// The account a client `user` connecting from `client_host` (an IP address) logs in as:
    /// the first match in mysqld's order (module docs).
    pub fn lookup(&self, user: &str, client_host: &str) -> Option<Account> {
        let accounts = self.accounts.read().clone();
        accounts
            .iter()
            .find(|a| (a.user == user || a.user.is_empty()) && host_matches(&a.host, client_host))
            .cloned()
    }

    /// The authentication data for [`protocol::Backend::user`].
    pub fn auth(&self, user: &str, client_host: &str) -> Option<UserAuth> {
        self.lookup(user, client_host).map(|a| a.auth)
    }

    /// The account named exactly `'user'@'host'`.
    pub fn get(&self, user: &str, host: &str) -> Option<Account> {
        let host = host.to_ascii_lowercase();
        self.accounts.read().iter().find(|a| a.user == user && a.host == host).cloned()
    }

    /// Every account, in lookup order.
    pub fn accounts(&self) -> Vec<Account> {
        self.accounts.read().as_ref().clone()
    }

    /// True if account `'user'@'host'` (as [`Users::lookup`] or `CURRENT_USER()` names it)
    /// holds every privilege in `wanted`.
    pub fn has_privilege(&self, user: &str, host: &str, wanted: Privileges) -> bool {
        self.get(user, host).is_some_and(|a| a.privileges.contains(wanted))
    }

    /// `CREATE USER [IF NOT EXISTS]`. Returns false when the account existed and
    /// `if_not_exists` (mysqld's note 3163), leaving it unchanged.
    pub fn create_user(
        &self,
        user: &str,
        host: &str,
        auth: UserAuth,
        if_not_exists: bool,
    ) -> Result<bool, UserError> {
        check_names(user, host)?;
        let host = host.to_ascii_lowercase();
        let mut created = false;
        self.change(|accounts| {
            if accounts.iter().any(|a| a.user == user && a.host == host) {
                if if_not_exists {
                    return Ok(());
                }
                return Err(failed("CREATE USER", user, &host));
            }
            accounts.push(Account {
                user: user.to_string(),
                host: host.clone(),
                auth,
                privileges: Privileges::NONE,
                grants: Vec::new(),
            });
            created = true;
            Ok(())
        })?;
        Ok(created)
    }

    /// `ALTER USER ... IDENTIFIED [WITH plugin] BY ...`: replaces the plugin and password.
    pub fn alter_user(&self, user: &str, host: &str, auth: UserAuth) -> Result<(), UserError> {
        let host = host.to_ascii_lowercase();
        self.change(|accounts| {
            let account = accounts
                .iter_mut()
                .find(|a| a.user == user && a.host == host)
                .ok_or_else(|| failed("ALTER USER", user, &host))?;
            account.auth = auth;
            Ok(())
        })
    }

    /// `DROP USER [IF EXISTS]`. Returns false when the account was missing and `if_exists`.
    pub fn drop_user(&self, user: &str, host: &str, if_exists: bool) -> Result<bool, UserError> {
        let host = host.to_ascii_lowercase();
        let mut dropped = false;
        self.change(|accounts| {
            let before = accounts.len();
            accounts.retain(|a| !(a.user == user && a.host == host));
            dropped = accounts.len() < before;
            if !dropped && !if_exists {
                return Err(failed("DROP USER", user, &host));
            }
            Ok(())
        })?;
        Ok(dropped)
    }

    /// `GRANT privileges ON *.* TO 'user'@'host'`.
    pub fn grant(&self, user: &str, host: &str, privileges: Privileges) -> Result<(), UserError> {
        let host = host.to_ascii_lowercase();
        self.change(|accounts| {
            let account = accounts
                .iter_mut()
                .find(|a| a.user == user && a.host == host)
                .ok_or(UserError::NoSuchUserForGrant)?;
            account.privileges = account.privileges.union(privileges);
            Ok(())
        })
    }

    /// `REVOKE privileges ON *.* FROM 'user'@'host'`. Revoking a privilege the account does not
    /// hold is not an error at the global level, as in mysqld.
    pub fn revoke(&self, user: &str, host: &str, privileges: Privileges) -> Result<(), UserError> {
        let host = host.to_ascii_lowercase();
        self.change(|accounts| {
            let account =
                accounts.iter_mut().find(|a| a.user == user && a.host == host).ok_or_else(
                    || UserError::NoSuchGrant { user: user.to_string(), host: host.clone() },
                )?;
            account.privileges = account.privileges.difference(privileges);
            Ok(())
        })
    }

    /// Applies `edit` to a copy of the accounts, saves the copy durably, then publishes it.
    /// If `edit` or the save fails, nothing changes.
    fn change(
        &self,
        edit: impl FnOnce(&mut Vec<Account>) -> Result<(), UserError>,
    ) -> Result<(), UserError> {
        let durable = self.change.lock();
        let mut accounts = self.accounts.read().as_ref().clone();
        edit(&mut accounts)?;
        sort(&mut accounts);
        write_file_durably(&self.path, &encode(&accounts, &durable), 0o600)
            .map_err(UserError::Persist)?;
        *self.accounts.write() = Arc::new(accounts);
        Ok(())
    }
}

fn failed(operation: &'static str, user: &str, host: &str) -> UserError {
    UserError::OperationFailed { operation, user: user.to_string(), host: host.to_string() }
}

/// 1470 if a name is over mysqld's limit.
pub fn check_names(user: &str, host: &str) -> Result<(), UserError> {
    if user.chars().count() > USER_NAME_MAX {
        return Err(UserError::TooLong {
            value: user.to_string(),
            what: "user name",
            max: USER_NAME_MAX,
        });
    }
    if host.chars().count() > HOST_NAME_MAX {
        return Err(UserError::TooLong {
            value: host.to_string(),
            what: "host name",
            max: HOST_NAME_MAX,
        });
    }
    Ok(())
}

/// A random 20-character password of letters and digits (about 119 bits).
fn generate_password() -> String {
    rand::rng().sample_iter(rand::distr::Alphanumeric).take(20).map(char::from).collect()
}

/// Lookup order: most specific host first, then named users before the anonymous one.
fn sort(accounts: &mut [Account]) {
    accounts.sort_by(|a, b| {
        host_rank(&a.host)
            .cmp(&host_rank(&b.host))
            .then(a.user.is_empty().cmp(&b.user.is_empty()))
            .then_with(|| a.host.cmp(&b.host))
            .then_with(|| a.user.cmp(&b.user))
    });
}

/// Smaller is more specific: exact names and addresses, then address ranges, then wildcard
/// patterns with longer literal prefixes, then `%`.
fn host_rank(host: &str) -> (u8, std::cmp::Reverse<usize>) {
    use std::cmp::Reverse;
    if host.is_empty() || host == "%" {
        return (3, Reverse(0));
    }
    match host.find(['%', '_']) {
        None if host.contains('/') => (1, Reverse(0)),
        None => (0, Reverse(0)),
        Some(prefix) => (2, Reverse(prefix)),
    }
}

/// True if account host `pattern` admits a client at `client` (an IP address in text form).
pub fn host_matches(pattern: &str, client: &str) -> bool {
    if pattern.is_empty() || pattern == "%" {
        return true;
    }
    if pattern.eq_ignore_ascii_case("localhost") {
        // `localhost` itself is what a Unix socket connection's host is (mysqld's
        // `LOCAL_HOST`), as for mysqld.
        return client == "127.0.0.1" || client == "::1" || client == "localhost";
    }
    if let Some((address, mask)) = pattern.split_once('/') {
        return ipv4_range_matches(address, mask, client);
    }
    like(pattern.as_bytes(), client.as_bytes())
}

/// `a.b.c.d/m.m.m.m` or `a.b.c.d/n` against an IPv4 client.
fn ipv4_range_matches(address: &str, mask: &str, client: &str) -> bool {
    let (Ok(address), Ok(client)) =
        (address.parse::<std::net::Ipv4Addr>(), client.parse::<std::net::Ipv4Addr>())
    else {
        return false;
    };
    let mask = match (mask.parse::<std::net::Ipv4Addr>(), mask.parse::<u32>()) {
        (Ok(m), _) => u32::from(m),
        (_, Ok(0)) => 0,
        (_, Ok(bits)) if bits <= 32 => u32::MAX << (32 - bits),
        _ => return false,
    };
    u32::from(client) & mask == u32::from(address) & mask
}

/// Smaller is more specific, as mysqld's `get_sort` orders `acl_dbs` (larger first there): a
/// name without wildcards first, then by the position just past the last wildcard before the
/// first `%` (a longer literal part is more specific).
fn db_pattern_rank(pattern: &str) -> std::cmp::Reverse<usize> {
    let bytes = pattern.as_bytes();
    let mut wild_pos = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 1,
            b'_' => wild_pos = i + 1,
            b'%' => {
                wild_pos = i + 1;
                break;
            }
            _ => {}
        }
        i += 1;
    }
    std::cmp::Reverse(if wild_pos == 0 { usize::MAX } else { wild_pos })
}

/// SQL LIKE without escapes: `%` any run, `_` one byte, ASCII case-insensitive.
fn like(pattern: &[u8], text: &[u8]) -> bool {
    // Iterative matching with backtracking to the last `%`: linear in practice, never
    // exponential on patterns like `%%%%a`.
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && pattern[p] == b'%' {
            star = Some((p, t));
            p += 1;
        } else if p < pattern.len()
            && (pattern[p] == b'_' || pattern[p].eq_ignore_ascii_case(&text[t]))
        {
            p += 1;
            t += 1;
        } else if let Some((sp, st)) = star {
            p = sp + 1;
            t = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&c| c == b'%')
}

// Format: {"format":2,"generation":3,
//          "accounts":[{"user":"root","host":"localhost","plugin":"caching_sha2_password",
//            "authentication_string":"$binlogd-pbkdf2-sha256$...",
//            "privileges":["ALL PRIVILEGES","GRANT OPTION"],
//            "grants":[{"db":"shop","table":null,"privileges":["SELECT"]}]}, ...],
//          "pending":[{"generation":4,"accounts":[...]}]}
// Format 1 (before generations) has no "generation", "grants" or "pending".
#[derive(Serialize, Deserialize)]
struct UsersFile {
    format: u32,
    #[serde(default)]
    generation: u64,
    accounts: Vec<StoredAccount>,
    #[serde(default)]
    pending: Vec<StoredPending>,
}

#[derive(Serialize, Deserialize)]
struct StoredPending {
    generation: u64,
    accounts: Vec<StoredAccount>,
}

#[derive(Serialize, Deserialize)]
struct StoredAccount {
    user: String,
    host: String,
    plugin: String,
    /// mysqld's column name: empty, `*<40 hex>` (native) or binlogd's PBKDF2 form (SHA-2).
    authentication_string: String,
    privileges: Vec<String>,
    #[serde(default)]
    grants: Vec<StoredGrant>,
}

#[derive(Serialize, Deserialize)]
struct StoredGrant {
    db: String,
    table: Option<String>,
    privileges: Vec<String>,
}

/// The text of a stored password as mysqld's `authentication_string` column shows it (and
/// `IDENTIFIED WITH 'plugin' AS '...'` takes it back, see [`auth_from_string`]).
pub fn auth_string(auth: &UserAuth) -> String {
    match &auth.password {
        StoredPassword::Empty => String::new(),
        StoredPassword::Native(hash) => native_hash_to_string(hash),
        StoredPassword::Sha2(hash) => hash.to_string(),
    }
}

/// The stored password `text` of `plugin` (empty: no password); None if it is not a hash of
/// that plugin's form binlogd keeps (`*` and 40 hex digits; binlogd's PBKDF2 form).
pub fn auth_from_string(plugin: AuthPlugin, text: &str) -> Option<UserAuth> {
    let password = match plugin {
        _ if text.is_empty() => StoredPassword::Empty,
        AuthPlugin::MysqlNativePassword => StoredPassword::Native(native_hash_from_str(text).ok()?),
        AuthPlugin::CachingSha2Password => StoredPassword::Sha2(text.parse().ok()?),
    };
    Some(UserAuth { plugin, password })
}

fn store(accounts: &[Account]) -> Vec<StoredAccount> {
    accounts
        .iter()
        .map(|a| StoredAccount {
            user: a.user.clone(),
            host: a.host.clone(),
            plugin: a.auth.plugin.name().to_string(),
            authentication_string: auth_string(&a.auth),
            privileges: a.privileges.names().into_iter().map(str::to_string).collect(),
            grants: a
                .grants
                .iter()
                .map(|g| StoredGrant {
                    db: g.db.clone(),
                    table: g.table.clone(),
                    privileges: g.privileges.names().into_iter().map(str::to_string).collect(),
                })
                .collect(),
        })
        .collect()
}

fn encode(accounts: &[Account], durable: &Durable) -> Vec<u8> {
    let file = UsersFile {
        format: FORMAT_VERSION,
        generation: durable.generation,
        accounts: store(accounts),
        pending: durable
            .pending
            .iter()
            .map(|(generation, accounts)| StoredPending {
                generation: *generation,
                accounts: store(accounts),
            })
            .collect(),
    };
    let mut bytes =
        serde_json::to_vec_pretty(&file).expect("serializing strings and numbers cannot fail");
    bytes.push(b'\n');
    bytes
}

/// What `users.json` holds.
struct Decoded {
    generation: u64,
    accounts: Vec<Account>,
    pending: Vec<(u64, Vec<Account>)>,
}

fn decode(path: &Path, bytes: &[u8]) -> Result<Decoded, UserError> {
    let file: UsersFile = serde_json::from_slice(bytes)
        .map_err(|source| UserError::Parse { path: path.to_path_buf(), source })?;
    if !(1..=FORMAT_VERSION).contains(&file.format) {
        return Err(UserError::BadAccount {
            path: path.to_path_buf(),
            user: String::new(),
            host: String::new(),
            reason: "unknown file format version",
        });
    }
    let mut pending = Vec::with_capacity(file.pending.len());
    for p in file.pending {
        pending.push((p.generation, load(path, p.accounts)?));
    }
    Ok(Decoded { generation: file.generation, accounts: load(path, file.accounts)?, pending })
}

fn load(path: &Path, stored_accounts: Vec<StoredAccount>) -> Result<Vec<Account>, UserError> {
    let mut accounts = Vec::with_capacity(stored_accounts.len());
    for stored in stored_accounts {
        let bad = |reason| UserError::BadAccount {
            path: path.to_path_buf(),
            user: stored.user.clone(),
            host: stored.host.clone(),
            reason,
        };
        let plugin =
            AuthPlugin::from_name(stored.plugin.as_bytes()).ok_or_else(|| bad("unknown plugin"))?;
        let auth = auth_from_string(plugin, &stored.authentication_string)
            .ok_or_else(|| bad("bad password hash"))?;
        let privileges_of = |names: &[String]| {
            names.iter().try_fold(Privileges::NONE, |acc, name| {
                Privileges::from_name(name)
                    .map(|p| acc.union(p))
                    .ok_or_else(|| bad("unknown privilege"))
            })
        };
        let privileges = privileges_of(&stored.privileges)?;
        let mut grants = Vec::with_capacity(stored.grants.len());
        for g in &stored.grants {
            grants.push(Grant {
                db: g.db.clone(),
                table: g.table.clone(),
                privileges: privileges_of(&g.privileges)?,
            });
        }
        accounts.push(Account {
            user: stored.user.clone(),
            host: stored.host.to_ascii_lowercase(),
            auth,
            privileges,
            grants,
        });
    }
    Ok(accounts)
}

/// `text` against a wildcard `pattern` with `%`, `_` and `\` escapes, ASCII
/// case-insensitive: the grant tables' database patterns (mysqld's `wild_case_compare`,
/// mysys/mf_wcomp.cc), also the SQL layer's LIKE.
pub fn wild_case_compare(text: &[u8], pattern: &[u8]) -> bool {
    wild_match(text, pattern, true)
}

/// [`wild_case_compare`] with exact characters (mysqld's `wild_compare`, which `acl_get`
/// uses for database names under `lower_case_table_names = 0`).
pub fn wild_compare(text: &[u8], pattern: &[u8]) -> bool {
    wild_match(text, pattern, false)
}

fn wild_match(text: &[u8], pattern: &[u8], fold: bool) -> bool {
    // Iterative matcher with one backtrack point for the last `%` (linear for typical input).
    let (mut t, mut p) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() {
            match pattern[p] {
                b'%' => {
                    star = Some((p, t));
                    p += 1;
                    continue;
                }
                b'_' => {
                    t += 1;
                    p += 1;
                    continue;
                }
                c => {
                    let (c, step) = if c == b'\\' && p + 1 < pattern.len() {
                        (pattern[p + 1], 2)
                    } else {
                        (c, 1)
                    };
                    if c == text[t] || (fold && c.eq_ignore_ascii_case(&text[t])) {
                        t += 1;
                        p += step;
                        continue;
                    }
                }
            }
        }
        match star {
            Some((sp, st)) => {
                p = sp + 1;
                t = st + 1;
                star = Some((sp, st + 1));
            }
            None => return false,
        }
    }
    pattern[p..].iter().all(|&c| c == b'%')
}

/// Fuzz targets of this crate's decoders of disk bytes (docs/fuzzing.md).
pub mod fuzz {
    /// `users.json` as [`super::Users::open`] decodes it: JSON (serde_json bounds nesting at
    /// 128), then every account's plugin, password hash, host and privileges checked.
    pub fn users_json(data: &[u8]) {
        let path = std::path::Path::new("users.json");
        if let Ok(decoded) = super::decode(path, data) {
            for account in &decoded.accounts {
                let _ = super::host_matches(&account.host, "10.1.2.3");
                let _ = super::host_matches(&account.host, "localhost");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn add_user(name: &str) -> impl FnOnce(&mut Vec<Account>) -> Result<(), UserError> + '_ {
        move |accounts| {
            accounts.push(Account {
                user: name.to_string(),
                host: "%".into(),
                auth: UserAuth::native(""),
                privileges: Privileges::SELECT,
                grants: vec![Grant { db: "d".into(), table: None, privileges: Privileges::INSERT }],
            });
            Ok(())
        }
    }

    fn names(users: &Users) -> Vec<String> {
        users.accounts().into_iter().map(|a| a.user).collect()
    }

    /// The crash windows of an account change: after the pending file write (the commit may or
    /// may not have reached the binlog: the engine's marker decides at restart), after a
    /// commit that skipped the statement, and after a committed change whose final file
    /// rewrite was lost.
    #[test]
    fn pending_changes_are_decided_by_the_marker() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (users, _) = Users::open(dir.path(), true).expect("open");
        let mut engine: HashSet<String> = HashSet::new();

        // Committed: published at once, marker 1 made.
        let made = users.change_committed(
            add_user("a"),
            |_, old, new| {
                assert!(!engine.contains(old));
                engine.insert(new.to_string());
                Ok::<bool, UserError>(true)
            },
            |e| e,
        );
        assert!(made.expect("commit").is_some());
        assert_eq!(names(&users), ["root", "a"]);

        // Skipped (e.g. its GTID was executed): not published.
        let skipped = users.change_committed(add_user("skip"), |_, _, _| Ok(false), |e| e);
        assert!(skipped.expect("skip").is_none());
        assert_eq!(names(&users), ["root", "a"]);

        // The pipeline fails after the prepare ("crash"): not published, kept as pending.
        let failed = users.change_committed(
            add_user("b"),
            |_, _, new| {
                engine.insert(new.to_string()); // recovery will commit it
                Err(UserError::NoSuchUserForGrant)
            },
            |e| e,
        );
        assert!(failed.is_err());
        assert_eq!(names(&users), ["root", "a"]);
        drop(users);

        // Restart: the file alone has the old accounts and the pending change...
        let (users, _) = Users::open(dir.path(), true).expect("reopen");
        assert_eq!(names(&users), ["root", "a"]);
        // ...and the engine's marker says it committed.
        let generation = users.recover(|t| engine.contains(t)).expect("recover");
        assert_eq!(generation_table(generation), *engine.iter().max().expect("marker"));
        assert_eq!(names(&users), ["root", "a", "b"]);
        assert_eq!(users.get("b", "%").expect("b").grants[0].privileges, Privileges::INSERT);
        drop(users);
        let (users, _) = Users::open(dir.path(), true).expect("reopen");
        assert_eq!(names(&users), ["root", "a", "b"], "recovery rewrote the file");

        // A pending change whose transaction recovery rolled back is dropped.
        let _ = users.change_committed(
            add_user("c"),
            |_, _, _| Err(UserError::NoSuchUserForGrant),
            |e| e,
        );
        drop(users);
        let (users, _) = Users::open(dir.path(), true).expect("reopen");
        users.recover(|t| engine.contains(t)).expect("recover");
        assert_eq!(names(&users), ["root", "a", "b"]);
        drop(users);
        let (users, _) = Users::open(dir.path(), true).expect("reopen");
        assert_eq!(names(&users), ["root", "a", "b"]);
        assert_eq!(users.recover(|_| false).expect("nothing pending"), generation);
    }

    #[test]
    fn like_patterns() {
        assert!(like(b"192.168.%", b"192.168.1.7"));
        assert!(!like(b"192.168.%", b"10.168.1.7"));
        assert!(like(b"10.0.0._", b"10.0.0.5"));
        assert!(!like(b"10.0.0._", b"10.0.0.55"));
        assert!(like(b"%.example.COM", b"db.example.com"));
        assert!(like(b"%%%%a", b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
        assert!(!like(b"%%%%b", b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
        assert!(like(b"%", b""));
        assert!(!like(b"_", b""));
    }

    #[test]
    fn database_grant_patterns() {
        // A grant's database pattern first, as `db_matches` reads it.
        let db_like = |pattern: &[u8], db: &[u8]| crate::wild_case_compare(db, pattern);
        assert!(db_like(b"db%", b"db1"));
        assert!(db_like(b"db%", b"DB"));
        assert!(!db_like(b"db%", b"xdb"));
        assert!(db_like(b"db_1", b"dbx1"));
        assert!(!db_like(br"db\_1", b"dbx1"), "an escaped _ is literal");
        assert!(db_like(br"db\_1", b"db_1"));
        assert!(db_like(br"a\%", b"a%"));
        assert!(!db_like(br"a\%", b"ab"));
        assert!(db_like(b"shop", b"SHOP"));
        assert!(!db_like(b"shop", b"shops"));
        assert!(db_like(b"%%%%a", b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));

        let grant = |db: &str, p| Grant { db: db.into(), table: None, privileges: p };
        let account = Account {
            user: "u".into(),
            host: "%".into(),
            auth: UserAuth::native(""),
            privileges: Privileges::NONE,
            grants: vec![
                grant("app%", Privileges::SELECT),
                grant(r"app\_x%", Privileges::INSERT),
                grant(r"app\_main", Privileges::DELETE),
                // `_` is a wildcard: this matches "appXmain" too, and is less specific than
                // the escaped name.
                grant("app_main", Privileges::UPDATE),
                Grant { db: "t%".into(), table: Some("t1".into()), privileges: Privileges::UPDATE },
            ],
        };
        // The most specific matching database grant counts, not their union (mysqld).
        assert_eq!(account.granted_on("app_main", None), Privileges::DELETE);
        assert_eq!(account.granted_on("app_xy", None), Privileges::INSERT);
        assert_eq!(account.granted_on("apple", None), Privileges::SELECT);
        assert!(account.grants[3].db_matches("appxmain"), "`_` is a wildcard");
        assert!(!account.grants[2].db_matches("appxmain"), "`\\_` is not");
        assert_eq!(account.granted_on("other", None), Privileges::NONE);
        // A table grant's database is literal.
        assert_eq!(account.granted_on("tx", Some("t1")), Privileges::NONE);
        assert_eq!(account.granted_on("t%", Some("t1")), Privileges::UPDATE);
        assert!(account.any_privilege_in("APPLE"));
        assert!(!account.any_privilege_in("zz"));
    }

    #[test]
    fn host_forms() {
        assert!(host_matches("localhost", "127.0.0.1"));
        assert!(host_matches("LOCALHOST", "::1"));
        assert!(!host_matches("localhost", "127.0.0.2"));
        assert!(!host_matches("localhost", "10.0.0.1"));
        assert!(host_matches("", "10.0.0.1"));
        assert!(host_matches("10.1.0.0/255.255.0.0", "10.1.200.3"));
        assert!(!host_matches("10.1.0.0/255.255.0.0", "10.2.0.3"));
        assert!(host_matches("10.1.0.0/16", "10.1.200.3"));
        assert!(host_matches("0.0.0.0/0", "1.2.3.4"));
        assert!(!host_matches("10.1.0.0/33", "10.1.0.1"));
        assert!(!host_matches("10.1.0.0/16", "::1"));
        assert!(host_matches("::1", "::1"));
    }

    #[test]
    fn privilege_names() {
        assert_eq!(Privileges::from_name("all privileges"), Some(Privileges::ALL));
        assert_eq!(
            Privileges::from_name("replication   slave"),
            Some(Privileges::REPLICATION_SLAVE)
        );
        assert_eq!(
            Privileges::from_name("Replication Replica"),
            Some(Privileges::REPLICATION_SLAVE)
        );
        assert_eq!(Privileges::from_name("SELECT"), Some(Privileges::SELECT));
        assert_eq!(Privileges::from_name("CREATE USER"), Some(Privileges::CREATE_USER));
        assert_eq!(Privileges::from_name("GRANT OPTION"), Some(Privileges::GRANT_OPTION));
        assert_eq!(Privileges::from_name("FLY"), None);
        assert!(!Privileges::ALL.contains(Privileges::GRANT_OPTION));
        assert!(Privileges::ALL.contains(Privileges::SUPER.union(Privileges::RELOAD)));
        assert_eq!(Privileges::NONE.names(), vec!["USAGE"]);
        assert_eq!(
            Privileges::ALL.union(Privileges::GRANT_OPTION).names(),
            vec!["ALL PRIVILEGES", "GRANT OPTION"]
        );
        assert_eq!(
            Privileges::REPLICATION_SLAVE.union(Privileges::SELECT).names(),
            vec!["SELECT", "REPLICATION SLAVE"]
        );
        for (i, name) in PRIVILEGE_NAMES.iter().enumerate() {
            assert_eq!(Privileges::from_name(name), Some(Privileges(1 << i)), "{name}");
        }
    }
}
