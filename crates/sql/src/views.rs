//! Views (issue 20): CREATE / ALTER / DROP VIEW, views in queries, their metadata.
//!
//! Storage. A view is an engine catalog entry like a table (mysqld 8.0's data dictionary keeps
//! views in `mysql.tables` with type VIEW): an engine table named `db.view` with one marker
//! column and [`engine::TableSchema::view`] set to the definition encoded here. So a view
//! shares the table namespace (1050 both ways), and CREATE/ALTER/DROP VIEW are DDL
//! transactions through the same two-phase commit as CREATE TABLE (the QUERY event and the
//! catalog change together, or neither after a crash; `docs/commit.md`, "DDL"); a checkpoint
//! saves the entry as it saves a table's schema. The entry never holds rows (the engine
//! refuses an insert into it).
//!
//! Use. The definition keeps the SELECT as written and is parsed again at each use (as mysqld
//! re-parses its stored definition in `open_and_read_view` / `parse_view_definition`), so a
//! view means whatever the query grammar accepts (a UNION / INTERSECT / EXCEPT body too: the
//! walks below enter every block of a query expression). Each reference to a view in a statement is
//! replaced by a derived table holding the view's SELECT (mysqld's TEMPTABLE algorithm; the
//! query layer has no merge of a derived table into its parent yet), its unqualified tables
//! qualified with the view's database, nested views expanded the same way (bounded: 1462 on
//! a cycle, at most [`MAX_NESTING`] levels). The statement's own privilege check sees the view
//! as a table (SELECT on it); the view's SELECT is checked against its definer (`SQL SECURITY
//! DEFINER`, the default) or the invoker (`INVOKER`), as mysqld's `check_table_access` with
//! the view's security context.
//!
//! Writes through an updatable view are merged onto its base table(s) (`views/write.rs`,
//! multi-table UPDATE/DELETE in `views/write/multi.rs`); a view mysqld would not merge is 1471
//! for INSERT, 1288 for UPDATE/DELETE.
//!
//! Text forms (mysqld's `view_store_options` and `mysql_create_view`): the binlog and SHOW
//! CREATE VIEW print `CREATE ALGORITHM=a DEFINER=`u`@`h` SQL SECURITY s VIEW `v` AS body`
//! plus `WITH ... CHECK OPTION`; the body is the text as written (mysqld prints its own
//! canonical rewrite of the SELECT: a difference in spelling only).

use std::sync::Arc;

use accounts::Privileges;
use engine::{Column, ColumnType, TableSchema, Txn, Value};

use crate::ast::{CreateView, Expr, Select, SelectItem, Stmt, TableRef, UserName};
use crate::error::{Result, SqlError};
use crate::output::{Output, ResultColumn};
use crate::session::{Session, SessionAccount};
use crate::vars::Var;

mod write;

/// How deeply views may name views (mysqld bounds it by its stack; 1462 on a cycle).
pub(crate) const MAX_NESTING: usize = 32;

/// A view's stored definition.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ViewDef {
    /// `UNDEFINED`, `MERGE` or `TEMPTABLE`.
    pub algorithm: String,
    pub definer: UserName,
    /// `DEFINER` or `INVOKER`.
    pub security: String,
    /// `NONE`, `CASCADED` or `LOCAL`.
    pub check_option: String,
    /// The view's column names when given (`CREATE VIEW v (a, b)`), else empty.
    pub columns: Vec<String>,
    /// The SELECT as written.
    pub body: String,
    pub charset_client: String,
    pub collation_connection: String,
}

const FORMAT: u8 = 1;

// Format: u8 version (1) | strings (u32 length, bytes): algorithm, definer user, definer host,
// security, check option, body, character_set_client, collation_connection | u32 column count
// | column names as strings.
impl ViewDef {
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut b = vec![FORMAT];
        let mut put = |s: &str| {
            b.extend_from_slice(&(s.len() as u32).to_le_bytes());
            b.extend_from_slice(s.as_bytes());
        };
        for s in [
            &self.algorithm,
            &self.definer.user,
            &self.definer.host,
            &self.security,
            &self.check_option,
            &self.body,
            &self.charset_client,
            &self.collation_connection,
        ] {
            put(s);
        }
        b.extend_from_slice(&(self.columns.len() as u32).to_le_bytes());
        for c in &self.columns {
            b.extend_from_slice(&(c.len() as u32).to_le_bytes());
            b.extend_from_slice(c.as_bytes());
        }
        b
    }

    /// Decodes a stored definition; every length is checked against the bytes present.
    pub(crate) fn decode(bytes: &[u8]) -> Option<ViewDef> {
        let (&version, mut rest) = bytes.split_first()?;
        if version != FORMAT {
            return None;
        }
        let u32_at = |rest: &mut &[u8]| -> Option<usize> {
            let (n, tail) = rest.split_first_chunk::<4>()?;
            *rest = tail;
            Some(u32::from_le_bytes(*n) as usize)
        };
        let string = |rest: &mut &[u8]| -> Option<String> {
            let n = u32_at(rest)?;
            if rest.len() < n {
                return None;
            }
            let (s, tail) = rest.split_at(n);
            *rest = tail;
            String::from_utf8(s.to_vec()).ok()
        };
        let algorithm = string(&mut rest)?;
        let user = string(&mut rest)?;
        let host = string(&mut rest)?;
        let security = string(&mut rest)?;
        let check_option = string(&mut rest)?;
        let body = string(&mut rest)?;
        let charset_client = string(&mut rest)?;
        let collation_connection = string(&mut rest)?;
        let (n, tail) = rest.split_first_chunk::<4>()?;
        rest = tail;
        let n = u32::from_le_bytes(*n) as usize;
        // Not `with_capacity(n)`: the count is not checked against the bytes present.
        let mut columns = Vec::new();
        for _ in 0..n {
            columns.push(string(&mut rest)?);
        }
        if !rest.is_empty() {
            return None;
        }
        Some(ViewDef {
            algorithm,
            definer: UserName { user, host },
            security,
            check_option,
            columns,
            body,
            charset_client,
            collation_connection,
        })
    }

    /// `CREATE ALGORITHM=... DEFINER=... SQL SECURITY ... VIEW `name` [(cols)] AS body
    /// [WITH ... CHECK OPTION]` (mysqld's `view_store_options` + `mysql_create_view`).
    pub(crate) fn create_text(&self, verb: &str, qualified_name: &str) -> String {
        let mut s = format!(
            "{verb} ALGORITHM={} DEFINER={}@{} SQL SECURITY {} VIEW {qualified_name}",
            self.algorithm,
            quote(&self.definer.user),
            quote(&self.definer.host),
            self.security,
        );
        if !self.columns.is_empty() {
            let cols: Vec<String> = self.columns.iter().map(|c| quote(c)).collect();
            s.push_str(&format!(" ({})", cols.join(",")));
        }
        s.push_str(" AS ");
        s.push_str(&self.body);
        if self.check_option != "NONE" {
            s.push_str(&format!(" WITH {} CHECK OPTION", self.check_option));
        }
        s
    }

    /// `user@host` as information_schema.VIEWS.DEFINER shows it.
    pub(crate) fn definer_text(&self) -> String {
        format!("{}@{}", self.definer.user, self.definer.host)
    }
}

/// An identifier in backquotes (a backquote doubled).
pub(crate) fn quote(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// The definition of a catalog entry, if it is a view.
pub(crate) fn view_def(schema: &TableSchema) -> Option<ViewDef> {
    schema.view.as_deref().and_then(ViewDef::decode)
}

fn wrong_object(db: &str, name: &str, what: &str) -> SqlError {
    SqlError::Other {
        code: 1347,
        sqlstate: "HY000",
        message: format!("'{db}.{name}' is not {what}"),
    }
}

fn invalid_view(db: &str, name: &str) -> SqlError {
    SqlError::Other {
        code: 1356,
        sqlstate: "HY000",
        message: format!(
            "View '{db}.{name}' references invalid table(s) or column(s) or function(s) or \
             definer/invoker of view lack rights to use them"
        ),
    }
}

/// 1462: a view names itself, or views nest deeper than [`MAX_NESTING`].
fn recursion(db: &str, name: &str) -> SqlError {
    SqlError::Other {
        code: 1462,
        sqlstate: "HY000",
        message: format!("`{db}`.`{name}` contains view recursion"),
    }
}

/// Whether any view exists: statements skip looking their tables up as views otherwise.
fn no_views(sess: &Session) -> bool {
    !sess.server.engine.has_views()
}

impl Session {
    /// The view `t` names: its database, name as created and definition; None for a table
    /// or nothing.
    pub(crate) fn lookup_view(&self, t: &TableRef) -> Option<(String, String, ViewDef)> {
        if no_views(self) {
            return None;
        }
        let db = t.db.clone().or_else(|| self.db.clone())?;
        let db = self.server.database(&db)?;
        let (_, schema) = self.server.engine.table_named(&format!("{db}.{}", t.name))?;
        let def = view_def(&schema)?;
        let name = crate::commit::split_engine_name(&schema.name).1.to_string();
        Some((db, name, def))
    }

    /// CREATE / ALTER VIEW staged in DDL transaction `txn`; returns the statement's binlog
    /// text (mysqld logs the view with its definer and options spelled out).
    pub(crate) fn create_view(&mut self, txn: &mut Txn, cv: &CreateView) -> Result<String> {
        let db = match &cv.view.db {
            Some(d) => d.clone(),
            None => self.db.clone().ok_or(SqlError::NoDatabaseSelected)?,
        };
        let db = self.server.database(&db).ok_or_else(|| SqlError::UnknownDatabase(db.clone()))?;
        let name = &cv.view.name;
        if name.is_empty() || name.chars().count() > 64 || name.ends_with(' ') {
            return Err(SqlError::WrongTableName(name.clone()));
        }
        let full = format!("{db}.{name}");
        let existing = self.server.engine.table_named(&full);
        let replaced = match &existing {
            Some((_, schema)) if schema.view.is_none() => {
                return Err(if cv.or_replace || cv.alter {
                    wrong_object(&db, name, "VIEW")
                } else {
                    SqlError::TableExists(name.clone())
                });
            }
            Some((id, _)) if cv.or_replace || cv.alter => Some(*id),
            Some(_) => return Err(SqlError::TableExists(name.clone())),
            None if cv.alter => {
                return Err(SqlError::NoSuchTable { db: db.clone(), table: name.clone() })
            }
            None => None,
        };
        // The definer: as given, else the current account. Naming another account needs
        // SUPER (mysqld: SET_USER_ID or SUPER, `create_view_precheck`).
        let current = match &self.account {
            Some(a) => a.name.clone(),
            None => UserName { user: self.user.clone(), host: self.host.clone() },
        };
        let definer = match &cv.definer {
            Some((user, host)) => UserName { user: user.clone(), host: host.clone() },
            None => current.clone(),
        };
        let is_current =
            definer.user == current.user && definer.host.eq_ignore_ascii_case(&current.host);
        if !is_current {
            let has_super =
                self.account.as_ref().is_none_or(|a| a.privileges.contains(Privileges::SUPER));
            if !has_super {
                return Err(SqlError::Other {
                    code: 1227,
                    sqlstate: "42000",
                    message: "Access denied; you need (at least one of) the SUPER or SET_USER_ID privilege(s) for this operation".into(),
                });
            }
        }
        // An old view's options are kept by ALTER only where given again (mysqld's ALTER VIEW
        // takes ALGORITHM/SECURITY defaults from the statement, as here).
        let def = ViewDef {
            algorithm: cv.algorithm.clone().unwrap_or_else(|| "UNDEFINED".into()),
            definer,
            security: cv.security.clone().unwrap_or_else(|| "DEFINER".into()),
            check_option: cv.check_option.clone().unwrap_or_else(|| "NONE".into()),
            columns: cv.columns.clone(),
            body: cv.body.clone(),
            charset_client: self.var_text(Var::CharacterSetClient),
            collation_connection: self.var_text(Var::CollationConnection),
        };
        // The SELECT must be valid now: its tables exist, its columns resolve, the column
        // list matches (mysqld checks the same at CREATE).
        let columns = self.view_columns_of(&db, name, &def, true)?;
        if !def.columns.is_empty() && def.columns.len() != columns.len() {
            return Err(SqlError::Other {
                code: 1353,
                sqlstate: "HY000",
                message: "In definition of view, derived table or common table expression, \
                          SELECT list and column names list have different column counts"
                    .into(),
            });
        }
        for (i, c) in columns.iter().enumerate() {
            if columns[..i].iter().any(|o| o.name.eq_ignore_ascii_case(&c.name)) {
                return Err(SqlError::DuplicateColumn(c.name.clone()));
            }
        }
        if def.check_option != "NONE" && !self.own_select_is_updatable(&db, &cv.select, &def) {
            return Err(SqlError::Other {
                code: 1368,
                sqlstate: "HY000",
                message: format!("CHECK OPTION on non-updatable view '{db}.{name}'"),
            });
        }
        let mut schema = TableSchema::new(
            &full,
            vec![Column::new("view", ColumnType::Integer { bytes: 1, unsigned: false })],
            Vec::new(),
        );
        schema.view = Some(def.encode());
        match replaced {
            Some(id) => self.server.engine.replace_table_in(txn, id, schema, None)?,
            None => {
                self.server.engine.create_table_in(txn, schema).map_err(|e| match e {
                    engine::Error::TableExists { .. } => SqlError::TableExists(name.clone()),
                    e => SqlError::Engine(e),
                })?;
            }
        }
        let verb = if cv.alter {
            "ALTER"
        } else if cv.or_replace {
            "CREATE OR REPLACE"
        } else {
            "CREATE"
        };
        // mysqld names the database only when it is not the current one.
        let qualified = match (&cv.view.db, &self.db) {
            (Some(d), Some(cur)) if d == cur => quote(name),
            (Some(d), _) => format!("{}.{}", quote(d), quote(name)),
            (None, _) => quote(name),
        };
        Ok(def.create_text(verb, &qualified))
    }

    /// DROP VIEW staged in `txn`: every name must be a view (1347 for a table, 1051 listing
    /// the missing ones unless IF EXISTS, which notes them).
    pub(crate) fn drop_views(
        &mut self,
        txn: &mut Txn,
        views: &[TableRef],
        if_exists: bool,
    ) -> Result<()> {
        let mut found = Vec::new();
        let mut missing = Vec::new();
        for t in views {
            let db = match &t.db {
                Some(d) => d.clone(),
                None => self.db.clone().ok_or(SqlError::NoDatabaseSelected)?,
            };
            let entry = self
                .server
                .database(&db)
                .and_then(|real| self.server.engine.table_named(&format!("{real}.{}", t.name)));
            match entry {
                Some((_, schema)) if schema.view.is_none() => {
                    return Err(wrong_object(&db, &t.name, "VIEW"))
                }
                Some((id, _)) => found.push(id),
                None => missing.push(format!("{db}.{}", t.name)),
            }
        }
        if !missing.is_empty() && !if_exists {
            return Err(SqlError::UnknownTable(missing.join(",")));
        }
        for m in missing {
            self.warnings.push(crate::session::Warning {
                level: "Note",
                code: 1051,
                message: SqlError::UnknownTable(m).to_string(),
            });
        }
        for id in found {
            self.server.engine.drop_table_in(txn, id)?;
        }
        Ok(())
    }

    /// The view's SELECT ready to run: parsed, its tables qualified with the view's
    /// database, its nested views expanded, relabelled by the column list. `check`: the
    /// SELECT's privileges are checked against the definer or the invoker.
    fn view_select(
        &mut self,
        db: &str,
        name: &str,
        def: &ViewDef,
        check: bool,
        chain: &mut Vec<String>,
    ) -> Result<Select> {
        let key = self.server.name_key(&format!("{db}.{name}"));
        if chain.contains(&key) || chain.len() >= MAX_NESTING {
            return Err(recursion(db, name));
        }
        let parsed = crate::parse::parse(&def.body).map_err(|_| invalid_view(db, name))?;
        let Stmt::Select(mut select) = parsed.stmt else { return Err(invalid_view(db, name)) };
        qualify(&mut select, db);
        if check {
            self.check_view_select(db, name, def, &select)?;
        }
        chain.push(key);
        let expanded = self.expand_select(&mut select, check, chain);
        chain.pop();
        expanded?;
        if !def.columns.is_empty() {
            select = self.relabel(select, &def.columns)?;
        }
        Ok(select)
    }

    /// The privilege check of a view's SELECT, as its definer or as the invoker.
    fn check_view_select(
        &mut self,
        db: &str,
        name: &str,
        def: &ViewDef,
        select: &Select,
    ) -> Result<()> {
        let stmt = Stmt::Select(select.clone());
        self.as_view_security(db, name, def, |sess| sess.check_privileges(&stmt))
    }

    /// Runs the privilege check `f` as the view's definer (SQL SECURITY DEFINER) or the
    /// invoker, as mysqld's `check_table_access` with the view's security context: 1449 if
    /// the definer is gone, a definer's missing right is 1356.
    fn as_view_security(
        &mut self,
        db: &str,
        name: &str,
        def: &ViewDef,
        f: impl FnOnce(&mut Session) -> Result<()>,
    ) -> Result<()> {
        if def.security == "INVOKER" || self.account.is_none() {
            return f(self);
        }
        let Some(users) = self.server.accounts().cloned() else { return Ok(()) };
        let Some(account) = users.get(&def.definer.user, &def.definer.host) else {
            return Err(SqlError::Other {
                code: 1449,
                sqlstate: "HY000",
                message: format!(
                    "The user specified as a definer ('{}'@'{}') does not exist",
                    def.definer.user, def.definer.host
                ),
            });
        };
        let definer = SessionAccount {
            name: UserName { user: account.user.clone(), host: account.host.clone() },
            privileges: account.privileges,
        };
        let saved = self.account.replace(definer);
        let r = f(self);
        self.account = saved;
        r.map_err(|e| match e.code() {
            1142 | 1143 => invalid_view(db, name),
            _ => e,
        })
    }

    /// `select` with its result columns named `columns` (same count; 1353 otherwise).
    fn relabel(&mut self, mut select: Select, columns: &[String]) -> Result<Select> {
        // A query expression's wrapper has one item whatever its width: wrapped below.
        let plain = select.query_expr().is_none()
            && select.items.iter().all(|i| matches!(i, SelectItem::Expr { .. }));
        if plain && select.items.len() == columns.len() {
            for (item, c) in select.items.iter_mut().zip(columns) {
                if let SelectItem::Expr { label, aliased, .. } = item {
                    *label = c.clone();
                    *aliased = true;
                }
            }
            return Ok(select);
        }
        // `*` in the SELECT, or a query expression: wrap it, naming its columns by position.
        let inner = self.run_select_columns(&select)?;
        if inner.len() != columns.len() {
            return Err(SqlError::Other {
                code: 1353,
                sqlstate: "HY000",
                message: "In definition of view, derived table or common table expression, \
                          SELECT list and column names list have different column counts"
                    .into(),
            });
        }
        let mut outer = crate::ast::Select::empty();
        outer.from = Some(TableRef { db: None, name: "view_columns".into() });
        outer.items = inner
            .iter()
            .zip(columns)
            .map(|(c, n)| SelectItem::Expr {
                expr: Expr::Name { table: None, column: c.name.clone() },
                label: n.clone(),
                aliased: true,
            })
            .collect();
        outer.derived = Some(Box::new(select));
        Ok(outer)
    }

    /// Replaces every view `s` reads (FROM, joins, derived tables, subqueries) by a derived
    /// table of its SELECT.
    fn expand_select(
        &mut self,
        s: &mut Select,
        check: bool,
        chain: &mut Vec<String>,
    ) -> Result<()> {
        if let Some(inner) = s.derived.as_mut() {
            self.expand_select(inner, check, chain)?;
        } else if let Some(t) = s.from.clone() {
            if let Some((db, name, def)) = self.lookup_view(&t) {
                let body = self.view_select(&db, &name, &def, check, chain)?;
                s.derived = Some(Box::new(body));
                s.from = Some(TableRef { db: None, name: t.name.clone() });
            }
        }
        for j in &mut s.joins {
            if let Some(inner) = j.derived.as_mut() {
                self.expand_select(inner, check, chain)?;
            } else if let Some((db, name, def)) = self.lookup_view(&j.table) {
                let body = self.view_select(&db, &name, &def, check, chain)?;
                j.derived = Some(Box::new(body));
                j.table = TableRef { db: None, name: j.table.name.clone() };
            }
        }
        for e in crate::query::subquery::clauses_mut(s) {
            self.expand_expr(e, check, chain)?;
        }
        Ok(())
    }

    fn expand_expr(&mut self, e: &mut Expr, check: bool, chain: &mut Vec<String>) -> Result<()> {
        if let Expr::Subquery(q) = e {
            self.expand_select(&mut q.query, check, chain)?;
        }
        // A query expression (UNION / INTERSECT / EXCEPT, `query/union.rs`): each block.
        if let Expr::Query(q) = e {
            for b in q.blocks_mut() {
                self.expand_select(b, check, chain)?;
            }
        }
        for c in crate::query::subquery::children_mut(e) {
            self.expand_expr(c, check, chain)?;
        }
        Ok(())
    }

    /// `stmt` with the views it reads replaced by their SELECTs (None: it names no view, or
    /// is not a statement that reads tables). A single-table INSERT / UPDATE / DELETE whose
    /// target is a view is rewritten onto the view's base table (`views/write.rs`), its
    /// CHECK OPTION installed as the statement's `ViewCheck`; a multi-table write merges the
    /// views it changes (`views/write/multi.rs`) and reads the others as derived tables.
    pub(crate) fn expand_views(&mut self, stmt: &Stmt) -> Result<Option<Stmt>> {
        self.view_check = None;
        if no_views(self) {
            return Ok(None);
        }
        let mut out = stmt.clone();
        let mut chain = Vec::new();
        match &mut out {
            Stmt::Select(s) => self.expand_select(s, true, &mut chain)?,
            Stmt::Explain(inner) => match self.expand_views(inner)? {
                Some(x) => **inner = x,
                None => return Ok(None),
            },
            Stmt::InsertSelect(is) => {
                self.insert_through_view(&mut is.insert)?;
                self.expand_select(&mut is.select, true, &mut chain)?;
            }
            Stmt::Insert(i) => {
                self.insert_through_view(i)?;
                for e in
                    i.rows.iter_mut().flatten().chain(i.on_duplicate.iter_mut().map(|(_, e)| e))
                {
                    self.expand_expr(e, true, &mut chain)?;
                }
            }
            Stmt::Update(u) => {
                // A join view's UPDATE becomes a multi-table UPDATE of its tables.
                if let Some(Some(mut multi)) = self.update_through_view(u)? {
                    if let Stmt::MultiUpdate(m) = &mut multi {
                        let exprs = m.set.iter_mut().map(|(_, _, e)| e);
                        for e in exprs.chain(m.from.filter.iter_mut()).collect::<Vec<_>>() {
                            self.expand_expr(e, true, &mut chain)?;
                        }
                    }
                    return Ok(Some(multi));
                }
                let exprs = u.set.iter_mut().map(|(_, e)| e).chain(u.filter.iter_mut());
                for e in exprs.collect::<Vec<_>>() {
                    self.expand_expr(e, true, &mut chain)?;
                }
            }
            Stmt::Delete(d) => {
                self.delete_through_view(d)?;
                if let Some(f) = d.filter.as_mut() {
                    self.expand_expr(f, true, &mut chain)?;
                }
            }
            // Views a multi-table write changes are merged onto their tables, the views it
            // only reads become derived tables (views/write/multi.rs).
            Stmt::MultiUpdate(u) => {
                self.merge_written_views(&mut u.from, write::Writes::Update(&mut u.set))?;
                self.expand_select(&mut u.from, true, &mut chain)?;
                for (_, _, e) in &mut u.set {
                    self.expand_expr(e, true, &mut chain)?;
                }
            }
            Stmt::MultiDelete(d) => {
                self.merge_written_views(&mut d.from, write::Writes::Delete(&d.targets))?;
                self.expand_select(&mut d.from, true, &mut chain)?;
            }
            _ => return Ok(None),
        }
        Ok((out != *stmt).then_some(out))
    }

    /// The stored tables the view `t` reads, nested views' included (None: `t` is no view).
    pub(crate) fn view_base_tables(&mut self, t: &TableRef) -> Result<Option<Vec<TableRef>>> {
        let Some((db, name, def)) = self.lookup_view(t) else { return Ok(None) };
        let mut chain = Vec::new();
        let select = self.view_select(&db, &name, &def, false, &mut chain)?;
        let mut out: Vec<&TableRef> = Vec::new();
        crate::ast::base_tables(&select, &mut out);
        Ok(Some(out.into_iter().cloned().collect()))
    }

    /// The result columns of a view (its SELECT typed, as PREPARE types a query). `check`:
    /// with the privilege checks of a use.
    pub(crate) fn view_columns_of(
        &mut self,
        db: &str,
        name: &str,
        def: &ViewDef,
        check: bool,
    ) -> Result<Vec<ResultColumn>> {
        let mut chain = Vec::new();
        let select = self.view_select(db, name, def, check, &mut chain)?;
        self.run_select_columns(&select)
    }

    /// A view as a table definition (column names, types, nullability), for DESCRIBE and
    /// information_schema; 1356 if its SELECT no longer resolves. Typed in a session of its
    /// own (metadata readers hold the session shared; typing a query needs it exclusive).
    pub(crate) fn view_schema(
        &self,
        db: &str,
        name: &str,
        def: &ViewDef,
    ) -> Result<Arc<TableSchema>> {
        let mut typing =
            Session::new(self.server.clone(), self.connection_id, &self.user, &self.host);
        typing.db = Some(db.to_string());
        let columns = typing.view_columns_of(db, name, def, false).map_err(|e| match e.code() {
            1462 => e,
            _ => invalid_view(db, name),
        })?;
        Ok(Arc::new(crate::query::derived_schema(&format!("{db}.{name}"), &columns)))
    }

    /// SHOW CREATE VIEW v (and SHOW CREATE TABLE of a view): mysqld's four columns.
    pub(crate) fn show_create_view(&mut self, t: &TableRef) -> Result<Output> {
        let db = match &t.db {
            Some(d) => d.clone(),
            None => self.db.clone().ok_or(SqlError::NoDatabaseSelected)?,
        };
        let Some((db, name, def)) = self.lookup_view(t) else {
            return match self.resolve_table(t) {
                Ok(_) => Err(wrong_object(&db, &t.name, "VIEW")),
                Err(e) => Err(e),
            };
        };
        // SHOW VIEW and SELECT on the view (mysqld's `check_show_create_table_access` for a
        // view).
        self.need_view_privilege(&db, &name, "SHOW VIEW")?;
        let text = def.create_text("CREATE", &quote(&name));
        let columns = vec![
            ResultColumn::text("View", 64),
            ResultColumn::text("Create View", 1024),
            ResultColumn::text("character_set_client", 32),
            ResultColumn::text("collation_connection", 32),
        ];
        let rows = vec![vec![
            Value::Bytes(name.into_bytes()),
            Value::Bytes(text.into_bytes()),
            Value::Bytes(def.charset_client.into_bytes()),
            Value::Bytes(def.collation_connection.into_bytes()),
        ]];
        Ok(Output::Rows { columns, rows })
    }

    /// 1142 unless the account holds `privilege` (a name: SHOW VIEW, CREATE VIEW) on the view.
    pub(crate) fn need_view_privilege(&self, db: &str, name: &str, privilege: &str) -> Result<()> {
        let Some(wanted) = Privileges::from_name(privilege) else { return Ok(()) };
        let t = TableRef { db: Some(db.to_string()), name: name.to_string() };
        self.need_table_privilege(wanted, privilege, &t)
    }

    /// information_schema.VIEWS rows for the views the account may see.
    pub(crate) fn information_schema_view_rows(&self) -> Vec<Vec<Value>> {
        let mut out = Vec::new();
        if no_views(self) {
            return out;
        }
        let mut all: Vec<(String, String, ViewDef)> = Vec::new();
        for t in self.server.engine.tables() {
            let Some(def) = view_def(&t) else { continue };
            let (db, name) = crate::commit::split_engine_name(&t.name);
            all.push((db.to_string(), name.to_string(), def));
        }
        all.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
        for (db, name, def) in all {
            if !self.may_see_table(&db, &name) {
                continue;
            }
            // mysqld shows the definition to the definer and to holders of SHOW VIEW.
            let me = self.current_user();
            let shown = me == format!("{}@{}", def.definer.user, def.definer.host)
                || self.need_view_privilege(&db, &name, "SHOW VIEW").is_ok();
            let updatable = self.view_is_updatable(&db, &def, 0);
            let text = |s: &str| Value::Bytes(s.as_bytes().to_vec());
            out.push(vec![
                text("def"),
                text(&db),
                text(&name),
                text(if shown { &def.body } else { "" }),
                text(&def.check_option),
                text(if updatable { "YES" } else { "NO" }),
                text(&def.definer_text()),
                text(&def.security),
                text(&def.charset_client),
                text(&def.collation_connection),
            ]);
        }
        out
    }
}

/// Qualifies the unqualified tables `s` reads with `db` (derived tables and subqueries too):
/// a view's SELECT names tables of the view's database, whatever the session's is.
fn qualify(s: &mut Select, db: &str) {
    if let Some(inner) = s.derived.as_mut() {
        qualify(inner, db);
    } else if let Some(t) = s.from.as_mut() {
        if t.db.is_none() && !t.name.is_empty() {
            t.db = Some(db.to_string());
        }
    }
    for j in &mut s.joins {
        match j.derived.as_mut() {
            Some(inner) => qualify(inner, db),
            None if j.table.db.is_none() => j.table.db = Some(db.to_string()),
            None => {}
        }
    }
    for e in crate::query::subquery::clauses_mut(s) {
        qualify_expr(e, db);
    }
}

fn qualify_expr(e: &mut Expr, db: &str) {
    if let Expr::Subquery(q) = e {
        qualify(&mut q.query, db);
    }
    if let Expr::Query(q) = e {
        for b in q.blocks_mut() {
            qualify(b, db);
        }
    }
    for c in crate::query::subquery::children_mut(e) {
        qualify_expr(c, db);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_round_trip_and_truncations_are_refused() {
        let def = ViewDef {
            algorithm: "UNDEFINED".into(),
            definer: UserName { user: "root".into(), host: "localhost".into() },
            security: "DEFINER".into(),
            check_option: "NONE".into(),
            columns: vec!["x".into(), "y".into()],
            body: "SELECT a, b FROM t".into(),
            charset_client: "utf8mb4".into(),
            collation_connection: "utf8mb4_0900_ai_ci".into(),
        };
        let bytes = def.encode();
        assert_eq!(ViewDef::decode(&bytes), Some(def.clone()));
        for n in 0..bytes.len() {
            assert_eq!(ViewDef::decode(&bytes[..n]), None, "{n}");
        }
        assert_eq!(
            def.create_text("CREATE", "`v`"),
            "CREATE ALGORITHM=UNDEFINED DEFINER=`root`@`localhost` SQL SECURITY DEFINER VIEW `v` \
             (`x`,`y`) AS SELECT a, b FROM t"
        );
    }
}
