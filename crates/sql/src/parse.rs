//! The parser front-end: SQL text to [`Stmt`].
//!
//! sqlparser (MySQL dialect) tokenizes every statement. Utility statements whose MySQL
//! grammar sqlparser does not model (SHOW of all kinds, SET, USE, transaction control, the
//! binlog admin statements, CREATE/DROP DATABASE, DESCRIBE) are recognized by a small grammar
//! here on sqlparser's own token stream; everything else goes through
//! `Parser::parse_statement` and is converted from sqlparser's AST. Valid SQL outside the
//! subset (joins, subqueries, UNION, ...) becomes 1235 with the construct named; text that is
//! not SQL becomes 1064 quoting the rest of the statement from the offending token, as mysqld
//! does.
//!
//! Placeholders (`?`) are numbered in text order; the conversion visits clauses in the order
//! they are written, which keeps that numbering.

use sqlparser::ast as sp;
use sqlparser::dialect::MySqlDialect;
use sqlparser::parser::{Parser, ParserError};
use sqlparser::tokenizer::{Location, Token};

use engine::{Column, ColumnType, Decimal, Value};

use crate::eval::strfunc::{StrFn, TrimWhere};

use super::admin::AdminCommand;
use super::ast::*;
use super::error::{Result, SqlError};
use super::eval::castnum::CastNum;
use super::eval::{parse_datetime, to_column};
use super::timefn::{CastTo, TimeFn, Unit};
use accounts::Privileges;

mod alter;
pub mod check_print;
mod create_select;
mod dialect;
mod fast_insert;
mod hex_numbers;
mod query_expr;
mod views;
mod window;
mod writes;

static DIALECT: dialect::MySql = dialect::MySql::new();

/// A parsed statement and its number of `?` placeholders.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    pub stmt: Stmt,
    pub params: usize,
}

/// Parses one statement (a trailing `;` is allowed, and trailing NUL bytes: mysqlslap sends its
/// CREATE TABLE with the C string's terminator, which mysqld's lexer reads as end of input).
pub fn parse(sql: &str) -> Result<Parsed> {
    let sql = sql.trim_end_matches('\0');
    if let Some(stmt) = transaction_keyword(sql) {
        return Ok(Parsed { stmt, params: 0 });
    }
    if let Some(parsed) = fast_insert::parse(sql) {
        return Ok(parsed);
    }
    parse_general(sql)
}

/// [`parse`] without its direct readers of the commonest statements.
fn parse_general(sql: &str) -> Result<Parsed> {
    // Executable comments (`/*!40101 SET ... */`) are part of the statement's text.
    let expanded = super::comments::expand(sql);
    let stripped = super::comments::strip_select_options(&expanded.text);
    let shared = share_mode_lock(&stripped);
    let unshared = shared.as_deref().unwrap_or(&*stripped);
    let spelled = crate::timefn::spell_compound_units(unshared);
    let sql = spelled.as_deref().unwrap_or(unshared);
    if sql.trim_matches(|c: char| c.is_ascii_whitespace() || c == ';').is_empty() {
        // mysqld's `query: END_OF_INPUT` rule: only comments is an empty statement (OK).
        return if expanded.had_comment {
            Ok(Parsed { stmt: Stmt::Noop, params: 0 })
        } else {
            Err(SqlError::Other {
                code: 1065,
                sqlstate: "42000",
                message: "Query was empty".into(),
            })
        };
    }
    let mut p = Front {
        sql,
        parser: new_parser(sql)?,
        params: 0,
        nesting: 0,
        with: query_expr::WithScope::default(),
        windows: Vec::new(),
    };
    let stmt = p.statement()?;
    let _ = p.parser.consume_token(&Token::SemiColon);
    if p.parser.peek_token().token != Token::EOF {
        return Err(p.error_here());
    }
    Ok(Parsed { stmt, params: p.params })
}

/// A SELECT ending in `LOCK IN SHARE MODE` (MySQL's older spelling of `FOR SHARE`, which
/// sqlparser does not know) rewritten to end in `FOR SHARE`.
fn share_mode_lock(sql: &str) -> Option<String> {
    let body = sql.trim_end_matches(|c: char| c.is_ascii_whitespace() || c == ';');
    let mut end = body.len();
    for k in ["MODE", "SHARE", "IN", "LOCK"] {
        let t = body[..end].trim_end_matches(|c: char| c.is_ascii_whitespace());
        let start = t.rfind(|c: char| c.is_ascii_whitespace()).map_or(0, |i| i + 1);
        if !t[start..].eq_ignore_ascii_case(k) {
            return None;
        }
        end = start;
    }
    let prefix = body[..end].trim_end();
    let select = prefix.trim_start().get(..6).is_some_and(|w| w.eq_ignore_ascii_case("SELECT"));
    select.then(|| format!("{prefix} FOR SHARE"))
}

/// `BEGIN`, `COMMIT`, `ROLLBACK` or `START TRANSACTION` alone (any case, ASCII blanks around):
/// the statements around every transaction of an OLTP client (sysbench sends them as text
/// queries), answered without tokenizing. Anything else, `BEGIN WORK` or a trailing `;`
/// included, goes to the parser, which gives these the same statements.
fn transaction_keyword(sql: &str) -> Option<Stmt> {
    let text = sql.trim_matches(|c: char| matches!(c, ' ' | '\t' | '\n' | '\r'));
    if text.len() > "START TRANSACTION".len() {
        return None;
    }
    if text.eq_ignore_ascii_case("BEGIN") {
        Some(Stmt::Begin)
    } else if text.eq_ignore_ascii_case("COMMIT") {
        Some(Stmt::Commit)
    } else if text.eq_ignore_ascii_case("ROLLBACK") {
        Some(Stmt::Rollback)
    } else if text.eq_ignore_ascii_case("START TRANSACTION") {
        Some(Stmt::Begin)
    } else {
        None
    }
}

/// The parser over `sql`'s tokens, once their nesting is known to be within
/// [`super::depth::MAX_DEPTH`] (1436 otherwise: see `depth.rs`).
fn new_parser(sql: &str) -> Result<Parser<'static>> {
    let tokens = super::depth::tokenize(&DIALECT, sql)
        .map_err(|e| parse_error(sql, &ParserError::TokenizerError(e.to_string())))?;
    super::depth::check(&tokens)?;
    Ok(Parser::new(&DIALECT).with_tokens_with_locations(tokens))
}

/// Splits a multi-statement text at `;` outside quotes and comments (empty pieces dropped).
pub fn split_statements(sql: &str) -> Vec<&str> {
    let b = sql.as_bytes();
    let mut out = Vec::new();
    let (mut i, mut start) = (0, 0);
    while i < b.len() {
        match b[i] {
            q @ (b'\'' | b'"' | b'`') => {
                i += 1;
                while i < b.len() && b[i] != q {
                    if b[i] == b'\\' && q != b'`' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'-' if b.get(i + 1) == Some(&b'-') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 1;
            }
            b';' => {
                out.push(&sql[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    if start < sql.len() {
        out.push(&sql[start..]);
    }
    out.into_iter().filter(|s| !s.trim().is_empty()).collect()
}

/// The byte offset of a (1-based line and column, in characters) location.
fn offset_of(sql: &str, loc: Location) -> Option<usize> {
    if loc.line == 0 || loc.column == 0 {
        return None;
    }
    let mut line = 1;
    let mut col = 1;
    for (i, c) in sql.char_indices() {
        if line == loc.line && col == loc.column {
            return Some(i);
        }
        if c == '\n' {
            line += 1;
            col = 1;
        } else {
            col += 1;
        }
    }
    (line == loc.line && col == loc.column).then_some(sql.len())
}

fn near_at(sql: &str, loc: Location) -> SqlError {
    let rest = offset_of(sql, loc).map(|o| &sql[o..]).unwrap_or("");
    SqlError::Parse { near: rest.chars().take(80).collect(), line: loc.line.max(1) }
}

/// MySQL's 1064 for a sqlparser error, quoting the text from the reported position.
fn parse_error(sql: &str, e: &ParserError) -> SqlError {
    let msg = e.to_string();
    let loc = msg.rfind("Line: ").and_then(|i| {
        let tail = &msg[i + 6..];
        let (line, rest) = tail.split_once(", Column: ")?;
        let col: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        Some(Location { line: line.trim().parse().ok()?, column: col.parse().ok()? })
    });
    match loc {
        Some(l) => near_at(sql, l),
        None => SqlError::near(""),
    }
}

fn negate_if(e: Expr, negated: bool) -> Expr {
    if negated {
        Expr::Unary(UnOp::Not, Box::new(e))
    } else {
        e
    }
}

fn unsupported(what: impl Into<String>) -> SqlError {
    SqlError::NotSupported(what.into())
}

/// 1235 for role statements: binlogd keeps no roles (CREATE/DROP ROLE, GRANT/REVOKE of a
/// role, SET [DEFAULT] ROLE).
/// mysqld's ER_WRONG_USAGE (1221): `Incorrect usage of UPDATE and LIMIT`.
fn wrong_usage(a: &str, b: &str) -> SqlError {
    SqlError::Other {
        code: 1221,
        sqlstate: "HY000",
        message: format!("Incorrect usage of {a} and {b}"),
    }
}

/// `UPDATE [LOW_PRIORITY] [IGNORE] t1, t2 ... SET` / `UPDATE t1 JOIN t2 ... SET`: the table
/// list of a multi-table UPDATE, up to and including SET (fails, and is rewound, on a
/// single-table UPDATE, which sqlparser reads).
fn multi_update_list(
    p: &mut Parser,
) -> std::result::Result<(bool, Vec<sp::TableWithJoins>), sqlparser::parser::ParserError> {
    use sqlparser::keywords::Keyword;
    p.expect_keyword(Keyword::UPDATE)?;
    let _ = p.parse_keyword(Keyword::LOW_PRIORITY);
    let ignore = p.parse_keyword(Keyword::IGNORE);
    let list = p.parse_comma_separated(Parser::parse_table_and_joins)?;
    let one_table = matches!(list.as_slice(), [t] if t.joins.is_empty()
        && !matches!(t.relation, sp::TableFactor::NestedJoin { .. }));
    // `UPDATE IGNORE t SET ...` runs as a one-table multi-table UPDATE, which honours IGNORE
    // (sqlparser would read IGNORE as the table's name).
    if one_table && !ignore {
        return Err(sqlparser::parser::ParserError::ParserError("one table".into()));
    }
    p.expect_keyword(Keyword::SET)?;
    Ok((ignore, list))
}

fn roles_unsupported() -> SqlError {
    unsupported("roles (CREATE ROLE, DROP ROLE, GRANT/REVOKE of a role, SET ROLE)")
}

struct Front<'a> {
    sql: &'a str,
    parser: Parser<'static>,
    params: usize,
    /// How many subqueries enclose the expression being converted.
    nesting: usize,
    /// The common table expressions in scope (`parse/query_expr.rs`).
    with: query_expr::WithScope,
    /// The named windows (WINDOW clause) of the query block being converted (`parse/window.rs`).
    windows: window::NamedWindows,
}

impl Front<'_> {
    fn error_here(&self) -> SqlError {
        let t = self.parser.peek_token();
        if t.token == Token::EOF {
            return SqlError::near("");
        }
        near_at(self.sql, t.span.start)
    }

    /// Consumes the next token if it is the unquoted word `w` (case-insensitive).
    fn word(&mut self, w: &str) -> bool {
        if self.peek_word(w) {
            self.parser.next_token();
            true
        } else {
            false
        }
    }

    fn peek_word(&self, w: &str) -> bool {
        matches!(&self.parser.peek_token().token,
            Token::Word(x) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w))
    }

    fn expect_word(&mut self, w: &str) -> Result<()> {
        if self.word(w) {
            Ok(())
        } else {
            Err(self.error_here())
        }
    }

    fn words(&mut self, ws: &[&str]) -> bool {
        for (n, w) in ws.iter().enumerate() {
            if !self.word(w) {
                self.back(n);
                return false;
            }
        }
        true
    }

    /// Un-reads `n` tokens (`prev_token` steps over whitespace itself).
    fn back(&mut self, n: usize) {
        for _ in 0..n {
            self.parser.prev_token();
        }
    }

    fn at_end(&self) -> bool {
        matches!(self.parser.peek_token().token, Token::EOF | Token::SemiColon)
    }

    fn ident(&mut self) -> Result<String> {
        match self.parser.next_token().token {
            Token::Word(w) => Ok(w.value),
            _ => {
                self.parser.prev_token();
                Err(self.error_here())
            }
        }
    }

    fn string(&mut self) -> Result<String> {
        match self.parser.next_token().token {
            Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => Ok(s),
            _ => {
                self.parser.prev_token();
                Err(self.error_here())
            }
        }
    }

    /// An identifier or a string (file names, charset names).
    fn name_or_string(&mut self) -> Result<String> {
        match self.parser.next_token().token {
            Token::Word(w) => Ok(w.value),
            Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => Ok(s),
            _ => {
                self.parser.prev_token();
                Err(self.error_here())
            }
        }
    }

    fn uint(&mut self) -> Result<u64> {
        match self.parser.next_token().token {
            Token::Number(n, _) => n.parse().map_err(|_| SqlError::near(&n)),
            _ => {
                self.parser.prev_token();
                Err(self.error_here())
            }
        }
    }

    fn table_name(&mut self) -> Result<TableRef> {
        let first = self.ident()?;
        if self.parser.consume_token(&Token::Period) {
            Ok(TableRef { db: Some(first), name: self.ident()? })
        } else {
            Ok(TableRef { db: None, name: first })
        }
    }

    /// `LIKE 'pattern'`, if present.
    fn like(&mut self) -> Result<Option<String>> {
        if self.word("LIKE") {
            Ok(Some(self.string()?))
        } else {
            // A WHERE is taken by `statement` after the SHOW.
            Ok(None)
        }
    }

    fn statement(&mut self) -> Result<Stmt> {
        if let Some(view) = self.view_statement()? {
            return Ok(view);
        }
        if self.word("SHOW") {
            let show = self.show()?;
            if self.word("WHERE") {
                // MySQL's `opt_wild_or_where`: only the SHOWs that take LIKE take WHERE.
                let Stmt::Show(
                    show @ (Show::Databases { like: None }
                    | Show::Tables { like: None, .. }
                    | Show::TableStatus { like: None, .. }
                    | Show::Columns { like: None, .. }
                    | Show::Variables { like: None, .. }
                    | Show::Status { like: None, .. }),
                ) = show
                else {
                    self.back(1);
                    return Err(self.error_here());
                };
                let filter = self.expr_value()?;
                return Ok(Stmt::ShowWhere { show, filter });
            }
            return Ok(show);
        }
        if self.words(&["SET", "PASSWORD"]) {
            let user = if self.word("FOR") { Some(self.user_spec()?) } else { None };
            if !self.parser.consume_token(&Token::Eq) {
                return Err(self.error_here());
            }
            let password = self.string()?;
            if !self.at_end() {
                return Err(unsupported("SET PASSWORD options"));
            }
            return Ok(Stmt::Account(AccountStmt::SetPassword { user, password }));
        }
        if self.words(&["SET", "ROLE"]) || self.words(&["SET", "DEFAULT", "ROLE"]) {
            return Err(roles_unsupported());
        }
        if self.word("SET") {
            return self.set();
        }
        if self.word("BINLOG") {
            let text = self.string()?;
            if !self.at_end() {
                return Err(self.error_here());
            }
            return Ok(Stmt::Binlog(text));
        }
        if self.peek_word("SHUTDOWN") {
            self.parser.next_token();
            if !self.at_end() {
                return Err(self.error_here());
            }
            return Ok(Stmt::Shutdown);
        }
        if self.word("USE") {
            return Ok(Stmt::Use(self.ident()?));
        }
        if self.word("BEGIN") {
            self.word("WORK");
            return Ok(Stmt::Begin);
        }
        if self.words(&["START", "TRANSACTION"]) {
            // `start_transaction_option_list`: WITH CONSISTENT SNAPSHOT | READ WRITE |
            // READ ONLY, comma-separated.
            let (mut consistent, mut read_only) = (false, false);
            if !self.at_end() {
                loop {
                    if self.words(&["WITH", "CONSISTENT", "SNAPSHOT"]) {
                        consistent = true;
                    } else if self.words(&["READ", "ONLY"]) {
                        read_only = true;
                    } else if !self.words(&["READ", "WRITE"]) {
                        return Err(self.error_here());
                    }
                    if !self.parser.consume_token(&Token::Comma) {
                        break;
                    }
                }
            }
            // READ ONLY refuses writes (1792), as go-sql-driver's `BeginTx(ReadOnly: true)`
            // and Spring's read-only transactions expect.
            return Ok(if consistent {
                Stmt::BeginConsistentSnapshot { read_only }
            } else if read_only {
                Stmt::BeginReadOnly
            } else {
                Stmt::Begin
            });
        }
        if self.word("COMMIT") {
            self.word("WORK");
            return Ok(Stmt::Commit);
        }
        if self.word("ROLLBACK") {
            self.word("WORK");
            if self.word("TO") {
                self.word("SAVEPOINT");
                return Ok(Stmt::RollbackToSavepoint(self.ident()?));
            }
            // `ROLLBACK [WORK] [AND [NO] CHAIN] [[NO] RELEASE]`: the defaults.
            self.words(&["AND", "NO", "CHAIN"]);
            self.words(&["NO", "RELEASE"]);
            return Ok(Stmt::Rollback);
        }
        if self.word("SAVEPOINT") {
            return Ok(Stmt::Savepoint(self.ident()?));
        }
        if self.words(&["RELEASE", "SAVEPOINT"]) {
            return Ok(Stmt::ReleaseSavepoint(self.ident()?));
        }
        if self.word("FLUSH") {
            self.word("LOCAL");
            self.word("NO_WRITE_TO_BINLOG");
            if self.words(&["BINARY", "LOGS"]) || self.word("LOGS") {
                return Ok(Stmt::Admin(AdminCommand::FlushBinaryLogs));
            }
            if self.word("TABLES") || self.word("TABLE") {
                // `FLUSH TABLES [t, ...] WITH READ LOCK` (mysqld's `flush_options_list`).
                if self.words(&["WITH", "READ", "LOCK"]) {
                    return if self.at_end() {
                        Ok(Stmt::FlushTablesWithReadLock(Vec::new()))
                    } else {
                        Err(self.error_here())
                    };
                }
                if !self.at_end() && !self.peek_word("FOR") {
                    let mut tables = vec![self.table_name()?];
                    while self.parser.consume_token(&Token::Comma) {
                        tables.push(self.table_name()?);
                    }
                    if self.words(&["WITH", "READ", "LOCK"]) {
                        return if self.at_end() {
                            Ok(Stmt::FlushTablesWithReadLock(tables))
                        } else {
                            Err(self.error_here())
                        };
                    }
                }
            }
            // FLUSH TABLES / PRIVILEGES / STATUS ...: nothing is cached that could be stale.
            while !self.at_end() {
                self.parser.next_token();
            }
            return Ok(Stmt::Flush);
        }
        if self.word("KILL") {
            // MySQL's `kill` rule: KILL [CONNECTION | QUERY] expr.
            let query = self.word("QUERY");
            if !query {
                self.word("CONNECTION");
            }
            return Ok(Stmt::Kill { query, id: self.expr_value()? });
        }
        if self.word("PURGE") {
            if !(self.word("BINARY") || self.word("MASTER")) {
                return Err(self.error_here());
            }
            self.expect_word("LOGS")?;
            if self.word("TO") {
                return Ok(Stmt::Admin(AdminCommand::PurgeTo(self.string()?)));
            }
            self.expect_word("BEFORE")?;
            let e = self.expr_value()?;
            let when = match e {
                Expr::Lit(Value::Bytes(b)) => parse_datetime(&b),
                Expr::Lit(Value::DateTime(t)) => Some(t),
                _ => None,
            };
            return when
                .map(|t| Stmt::Admin(AdminCommand::PurgeBefore(t)))
                .ok_or(SqlError::WrongArguments("PURGE LOGS BEFORE"));
        }
        if self.word("RESET") {
            if self.word("MASTER") || self.words(&["BINARY", "LOGS", "AND", "GTIDS"]) {
                return Ok(Stmt::Admin(AdminCommand::ResetMaster));
            }
            return Err(unsupported("RESET"));
        }
        if self.word("DESCRIBE") || self.word("DESC") || self.word("EXPLAIN") {
            return self.explain();
        }
        if self.word("LOCK") {
            return self.lock_tables();
        }
        if self.word("UNLOCK") {
            if self.word("INSTANCE") {
                return Ok(Stmt::UnlockInstance);
            }
            if !(self.word("TABLES") || self.word("TABLE")) {
                return Err(self.error_here());
            }
            return Ok(Stmt::UnlockTables);
        }
        if self.word("CHECKSUM") {
            return self.checksum();
        }
        if self.alter_keys_ahead() {
            // `ALTER TABLE t {DISABLE | ENABLE} KEYS`, around every table of a dump.
            self.words(&["ALTER", "TABLE"]);
            let table = self.table_name()?;
            self.parser.next_token();
            self.parser.next_token();
            return Ok(Stmt::AlterKeys(table));
        }
        if self.alter_table_ahead() {
            return self.alter_table();
        }
        if self.create_like_ahead() {
            return self.create_like();
        }
        if let Some(s) = self.create_table_extras()? {
            return Ok(s);
        }
        if self.rename_tables_ahead() {
            return self.rename_tables();
        }
        if let Some(s) = self.account_statement()? {
            return Ok(Stmt::Account(s));
        }
        if self.peek_word("CREATE") || self.peek_word("DROP") {
            if let Some(s) = self.database_ddl()? {
                return Ok(s);
            }
        }
        if self.delete_ignore_ahead() {
            return self.delete_ignore();
        }
        if self.peek_word("UPDATE") {
            // `UPDATE t1, t2 SET ...` (mysqld's `update_table_list`): sqlparser reads one
            // table reference only, so the comma form is read here (`multi_update_list`).
            if let Some(list) = self.parser.maybe_parse(multi_update_list).ok().flatten() {
                return self.multi_update_tail(list);
            }
        }
        let mut st = self.parser.parse_statement().map_err(|e| parse_error(self.sql, &e))?;
        if let sp::Statement::Update { limit: limit @ None, .. } = &mut st {
            // MySQL's `update_stmt` ends in `opt_order_clause opt_simple_limit`; sqlparser's
            // UPDATE stops before ORDER BY, so the tail is read here (DELETE's is sqlparser's).
            let order = self.update_order_tail(limit)?;
            return self.update_ordered(st, order);
        }
        self.convert(st)
    }

    /// `[ORDER BY expr [ASC|DESC], ...] [LIMIT n]` after a single-table UPDATE's WHERE:
    /// returns the order items and sets `limit`.
    fn update_order_tail(&mut self, limit: &mut Option<sp::Expr>) -> Result<Vec<sp::OrderByExpr>> {
        let mut order = Vec::new();
        if self.words(&["ORDER", "BY"]) {
            order = self
                .parser
                .parse_comma_separated(Parser::parse_order_by_expr)
                .map_err(|e| parse_error(self.sql, &e))?;
        }
        if self.word("LIMIT") {
            *limit = Some(self.parser.parse_expr().map_err(|e| parse_error(self.sql, &e))?);
        }
        Ok(order)
    }

    fn update_ordered(&mut self, st: sp::Statement, order: Vec<sp::OrderByExpr>) -> Result<Stmt> {
        let mut stmt = self.convert(st)?;
        if matches!(stmt, Stmt::MultiUpdate(_)) && !order.is_empty() {
            return Err(wrong_usage("UPDATE", "ORDER BY"));
        }
        if let Stmt::Update(u) = &mut stmt {
            u.order_by = self.order_items(&order)?;
        }
        Ok(stmt)
    }

    /// After EXPLAIN / DESCRIBE / DESC (synonyms in mysqld's grammar, `describe_command`):
    /// `tbl [column | 'wild']` is SHOW COLUMNS; `[FORMAT = name] stmt` explains a SELECT,
    /// INSERT, REPLACE, UPDATE or DELETE (`explainable_stmt`). FORMAT=TRADITIONAL is the
    /// table; JSON and TREE answer 1235, another name 1791 (ER_UNKNOWN_EXPLAIN_FORMAT).
    fn explain(&mut self) -> Result<Stmt> {
        if self.word("ANALYZE") {
            return Err(unsupported("EXPLAIN ANALYZE"));
        }
        let mut formatted = false;
        if self.word("FORMAT") {
            if !self.parser.consume_token(&Token::Eq) {
                return Err(self.error_here());
            }
            let name = self.ident()?;
            if name.eq_ignore_ascii_case("JSON") || name.eq_ignore_ascii_case("TREE") {
                return Err(unsupported("EXPLAIN FORMAT=JSON and FORMAT=TREE"));
            }
            if !name.eq_ignore_ascii_case("TRADITIONAL") {
                return Err(SqlError::Other {
                    code: 1791,
                    sqlstate: "HY000",
                    message: format!("Unknown EXPLAIN format name: '{name}'"),
                });
            }
            formatted = true;
        }
        let explainable = ["SELECT", "INSERT", "REPLACE", "UPDATE", "DELETE", "WITH"]
            .iter()
            .any(|w| self.peek_word(w))
            || self.parser.peek_token().token == Token::LParen;
        if !explainable {
            if formatted || !matches!(self.parser.peek_token().token, Token::Word(_)) {
                return Err(self.error_here());
            }
            let table = self.table_name()?;
            return Ok(Stmt::Show(Show::Columns { table, full: false, like: None }));
        }
        let st = self.parser.parse_statement().map_err(|e| parse_error(self.sql, &e))?;
        let inner = match st {
            mut st @ sp::Statement::Update { .. } => {
                let order = match &mut st {
                    sp::Statement::Update { limit: limit @ None, .. } => {
                        self.update_order_tail(limit)?
                    }
                    _ => Vec::new(),
                };
                self.update_ordered(st, order)?
            }
            st => self.convert(st)?,
        };
        match inner {
            Stmt::Select(_) | Stmt::Insert(_) | Stmt::Update(_) | Stmt::Delete(_) => {
                Ok(Stmt::Explain(Box::new(inner)))
            }
            _ => Err(unsupported("EXPLAIN of this statement")),
        }
    }

    /// True if the statement is `ALTER TABLE [db.]t {DISABLE | ENABLE} KEYS` (looked at
    /// without consuming).
    fn alter_keys_ahead(&self) -> bool {
        let word = |n: usize, w: &[&str]| match &self.parser.peek_nth_token(n).token {
            Token::Word(x) => {
                w.is_empty()
                    || (x.quote_style.is_none()
                        && w.iter().any(|w| x.value.eq_ignore_ascii_case(w)))
            }
            _ => false,
        };
        if !(word(0, &["ALTER"]) && word(1, &["TABLE"]) && word(2, &[])) {
            return false;
        }
        let at = if self.parser.peek_nth_token(3).token == Token::Period && word(4, &[]) {
            5
        } else {
            3
        };
        word(at, &["DISABLE", "ENABLE"])
            && word(at + 1, &["KEYS"])
            && matches!(self.parser.peek_nth_token(at + 2).token, Token::EOF | Token::SemiColon)
    }

    /// `LOCK {TABLES | TABLE} t [[AS] alias] {READ [LOCAL] | [LOW_PRIORITY] WRITE} [, ...]`
    /// (MySQL's `lock` grammar rule) or `LOCK INSTANCE FOR BACKUP`, after the LOCK word.
    fn lock_tables(&mut self) -> Result<Stmt> {
        if self.words(&["INSTANCE", "FOR", "BACKUP"]) {
            return Ok(Stmt::LockInstance);
        }
        if !(self.word("TABLES") || self.word("TABLE")) {
            return Err(self.error_here());
        }
        let mut tables = Vec::new();
        loop {
            let table = self.table_name()?;
            if self.word("AS") {
                self.ident()?;
            } else if !(self.peek_word("READ")
                || self.peek_word("WRITE")
                || self.peek_word("LOW_PRIORITY"))
            {
                if let Token::Word(_) = self.parser.peek_token().token {
                    self.ident()?;
                }
            }
            let write = if self.word("READ") {
                self.word("LOCAL");
                false
            } else {
                self.word("LOW_PRIORITY");
                self.expect_word("WRITE")?;
                true
            };
            tables.push((table, write));
            if !self.parser.consume_token(&Token::Comma) {
                break;
            }
        }
        Ok(Stmt::LockTables(tables))
    }

    /// `CHECKSUM {TABLE | TABLES} t [, t ...] [QUICK | EXTENDED]` (MySQL's `checksum`
    /// grammar rule), after the CHECKSUM word.
    fn checksum(&mut self) -> Result<Stmt> {
        if !(self.word("TABLE") || self.word("TABLES")) {
            return Err(self.error_here());
        }
        let mut tables = vec![self.table_name()?];
        while self.parser.consume_token(&Token::Comma) {
            tables.push(self.table_name()?);
        }
        let quick = self.word("QUICK");
        if !quick {
            self.word("EXTENDED");
        }
        if !self.at_end() {
            return Err(self.error_here());
        }
        Ok(Stmt::Checksum { tables, quick })
    }

    // ---- account statements (MySQL 8.0 manual, "Account Management Statements") ----------

    /// CREATE/ALTER/DROP USER, GRANT, REVOKE; None when the text is none of them.
    fn account_statement(&mut self) -> Result<Option<AccountStmt>> {
        if self.words(&["CREATE", "ROLE"]) || self.words(&["DROP", "ROLE"]) {
            return Err(roles_unsupported());
        }
        if self.words(&["CREATE", "USER"]) {
            let if_not_exists = self.words(&["IF", "NOT", "EXISTS"]);
            let mut users = Vec::new();
            loop {
                let UserSpec::Named(name) = self.user_spec()? else {
                    return Err(self.error_here());
                };
                users.push((name, self.identified()?));
                if !self.parser.consume_token(&Token::Comma) {
                    break;
                }
            }
            self.account_options_end("CREATE USER")?;
            return Ok(Some(AccountStmt::CreateUser { if_not_exists, users }));
        }
        if self.words(&["ALTER", "USER"]) {
            let if_exists = self.words(&["IF", "EXISTS"]);
            let mut users = Vec::new();
            loop {
                let user = self.user_spec()?;
                users.push((user, self.identified()?));
                if !self.parser.consume_token(&Token::Comma) {
                    break;
                }
            }
            self.account_options_end("ALTER USER")?;
            return Ok(Some(AccountStmt::AlterUser { if_exists, users }));
        }
        if self.words(&["DROP", "USER"]) {
            let if_exists = self.words(&["IF", "EXISTS"]);
            let users = self.user_list()?;
            return Ok(Some(AccountStmt::DropUser { if_exists, users }));
        }
        if self.words(&["RENAME", "USER"]) {
            let mut pairs = Vec::new();
            loop {
                let from = self.user_spec()?;
                self.expect_word("TO")?;
                let UserSpec::Named(to) = self.user_spec()? else {
                    return Err(self.error_here());
                };
                pairs.push((from, to));
                if !self.parser.consume_token(&Token::Comma) {
                    break;
                }
            }
            return Ok(Some(AccountStmt::RenameUser(pairs)));
        }
        if self.word("GRANT") {
            // `GRANT role [, role] TO user`: no ON before TO.
            if self.before_on().is_some_and(|(end, _)| end == "TO") {
                return Err(roles_unsupported());
            }
            let mut privileges = self.privilege_list()?;
            self.expect_word("ON")?;
            let target = self.grant_target()?;
            self.expect_word("TO")?;
            let users = self.user_list()?;
            if self.words(&["WITH", "GRANT", "OPTION"]) {
                privileges = privileges.union(Privileges::GRANT_OPTION);
            }
            if !self.at_end() {
                return Err(unsupported("GRANT options other than WITH GRANT OPTION"));
            }
            return Ok(Some(AccountStmt::Grant { privileges, target, users }));
        }
        if self.word("REVOKE") {
            self.words(&["IF", "EXISTS"]);
            // `REVOKE role [, role] FROM user`: no ON before FROM, and not the one statement
            // without ON, `REVOKE ALL [PRIVILEGES], GRANT OPTION FROM`.
            if let Some((end, words)) = self.before_on() {
                let all = ["ALL", "PRIVILEGES", "GRANT", "OPTION"];
                if end == "FROM" && !words.iter().all(|w| all.contains(&w.as_str())) {
                    return Err(roles_unsupported());
                }
            }
            let privileges = self.privilege_list()?;
            // `REVOKE ALL [PRIVILEGES], GRANT OPTION FROM ...` has no ON clause.
            let target = if self.word("ON") {
                Some(self.grant_target()?)
            } else if privileges.contains(Privileges::ALL.union(Privileges::GRANT_OPTION)) {
                None
            } else {
                return Err(self.error_here());
            };
            self.expect_word("FROM")?;
            let users = self.user_list()?;
            return Ok(Some(AccountStmt::Revoke { privileges, target, users }));
        }
        Ok(None)
    }

    /// Looks ahead (consuming nothing) for the first unquoted `ON`, `TO` or `FROM`: None if it
    /// is `ON` or there is none, else that word (upper case) and the words before it.
    fn before_on(&self) -> Option<(String, Vec<String>)> {
        let mut words = Vec::new();
        let mut n = 0;
        loop {
            n += 1;
            match self.parser.peek_nth_token(n - 1).token {
                Token::EOF => return None,
                Token::Word(w) if w.quote_style.is_none() => {
                    let upper = w.value.to_ascii_uppercase();
                    match upper.as_str() {
                        "ON" => return None,
                        "TO" | "FROM" => return Some((upper, words)),
                        _ => words.push(upper),
                    }
                }
                _ => {}
            }
        }
    }

    /// `'user'[@'host']` (any quoting; host `%` when omitted) or `CURRENT_USER[()]`.
    fn user_spec(&mut self) -> Result<UserSpec> {
        if self.word("CURRENT_USER") {
            if self.parser.consume_token(&Token::LParen)
                && !self.parser.consume_token(&Token::RParen)
            {
                return Err(self.error_here());
            }
            return Ok(UserSpec::Current);
        }
        // MySQL's tokenizer takes `@` as an identifier character, so unquoted `u@h` is one
        // word and `u@'h'` is the word `u@` then a string.
        if let Token::Word(w) = &self.parser.peek_token().token {
            if let (None, Some((user, host))) = (w.quote_style, w.value.split_once('@')) {
                let user = user.to_string();
                let host = host.to_string();
                self.parser.next_token();
                let host = if host.is_empty() { self.name_or_string()? } else { host };
                return Ok(UserSpec::Named(UserName { user, host }));
            }
        }
        let user = self.name_or_string()?;
        let host = if self.parser.consume_token(&Token::AtSign) {
            self.name_or_string()?
        } else {
            // Unquoted `@host` right after the user is one word to the MySQL tokenizer.
            match &self.parser.peek_token().token {
                Token::Word(w) if w.quote_style.is_none() && w.value.starts_with('@') => {
                    let host = w.value[1..].to_string();
                    self.parser.next_token();
                    host
                }
                _ => "%".to_string(),
            }
        };
        Ok(UserSpec::Named(UserName { user, host }))
    }

    fn user_list(&mut self) -> Result<Vec<UserSpec>> {
        let mut users = vec![self.user_spec()?];
        while self.parser.consume_token(&Token::Comma) {
            users.push(self.user_spec()?);
        }
        Ok(users)
    }

    /// `IDENTIFIED [WITH plugin] [BY 'password']`, if present.
    fn identified(&mut self) -> Result<Option<Identified>> {
        if !self.word("IDENTIFIED") {
            return Ok(None);
        }
        let mut plugin = None;
        if self.word("WITH") {
            let name = self.name_or_string()?;
            plugin = Some(match name.to_ascii_lowercase().as_str() {
                "caching_sha2_password" => Plugin::CachingSha2,
                "mysql_native_password" => Plugin::Native,
                // ER_PLUGIN_IS_NOT_LOADED, as mysqld answers an unknown plugin.
                _ => {
                    return Err(SqlError::Other {
                        code: 1524,
                        sqlstate: "HY000",
                        message: format!("Plugin '{name}' is not loaded"),
                    })
                }
            });
        }
        let secret = if self.word("BY") {
            if self.peek_word("RANDOM") {
                return Err(unsupported("IDENTIFIED BY RANDOM PASSWORD"));
            }
            Secret::Password(self.string()?)
        } else if plugin.is_some() && self.word("AS") {
            // The stored hash, as the binary log carries account statements; or as SHOW
            // CREATE USER prints it with `print_identified_with_as_hex` (`0x...`, or X'...').
            match self.parser.peek_token().token {
                Token::HexStringLiteral(h) => {
                    self.parser.next_token();
                    let text = hex(&h).and_then(|b| String::from_utf8(b).ok());
                    // ER_PASSWORD_FORMAT, as for any hash not of the plugin's form.
                    Secret::Hash(text.ok_or(SqlError::Other {
                        code: 1827,
                        sqlstate: "HY000",
                        message: "The password hash doesn't have the expected format.".into(),
                    })?)
                }
                _ => Secret::Hash(self.string()?),
            }
        } else if plugin.is_some() {
            Secret::Password(String::new())
        } else {
            return Err(self.error_here());
        };
        Ok(Some(Identified { plugin, secret }))
    }

    /// The rest of CREATE/ALTER USER: the account options binlogd has nothing to keep for.
    fn account_options_end(&mut self, what: &str) -> Result<()> {
        self.words(&["REQUIRE", "NONE"]);
        // The defaults, which SHOW CREATE USER prints (mysqld 8's option tail), and the
        // options binlogd has nothing to keep for.
        while self.words(&["ACCOUNT", "UNLOCK"])
            || self.words(&["PASSWORD", "EXPIRE", "NEVER"])
            || self.words(&["PASSWORD", "EXPIRE", "DEFAULT"])
            || self.words(&["PASSWORD", "HISTORY", "DEFAULT"])
            || self.words(&["PASSWORD", "REUSE", "INTERVAL", "DEFAULT"])
            || self.words(&["PASSWORD", "REQUIRE", "CURRENT", "DEFAULT"])
        {}
        if self.at_end() {
            Ok(())
        } else {
            Err(unsupported(format!("{what} options")))
        }
    }

    /// `priv [, priv]...` up to ON/FROM, each by its MySQL name.
    fn privilege_list(&mut self) -> Result<Privileges> {
        let mut privileges = Privileges::NONE;
        loop {
            let start = self.parser.peek_token().span.start;
            let mut words = Vec::new();
            while let Token::Word(w) = &self.parser.peek_token().token {
                if w.quote_style.is_some()
                    || (!words.is_empty() && (self.peek_word("ON") || self.peek_word("FROM")))
                {
                    break;
                }
                words.push(w.value.clone());
                self.parser.next_token();
            }
            if matches!(self.parser.peek_token().token, Token::LParen) {
                return Err(unsupported("column privileges"));
            }
            let privilege =
                Privileges::from_name(&words.join(" ")).ok_or_else(|| near_at(self.sql, start))?;
            privileges = privileges.union(privilege);
            if !self.parser.consume_token(&Token::Comma) {
                return Ok(privileges);
            }
        }
    }

    /// `[TABLE] {*.* | db.* | * | db.tbl | tbl}` (MySQL's `grant_ident`).
    fn grant_target(&mut self) -> Result<GrantTarget> {
        self.word("TABLE");
        let mut parts: Vec<Option<String>> = Vec::new();
        loop {
            match self.parser.next_token().token {
                Token::Mul => parts.push(None),
                Token::Word(w) => parts.push(Some(w.value)),
                _ => {
                    self.parser.prev_token();
                    return Err(self.error_here());
                }
            }
            if parts.len() == 2 || !self.parser.consume_token(&Token::Period) {
                break;
            }
        }
        Ok(match parts.as_slice() {
            [None, None] => GrantTarget::Global,
            [None] => GrantTarget::Database(None),
            [Some(db), None] => GrantTarget::Database(Some(db.clone())),
            [Some(t)] => GrantTarget::Table(None, t.clone()),
            [Some(db), Some(t)] => GrantTarget::Table(Some(db.clone()), t.clone()),
            _ => return Err(self.error_here()),
        })
    }

    /// CREATE/DROP DATABASE|SCHEMA (MySQL's options, which sqlparser does not know).
    fn database_ddl(&mut self) -> Result<Option<Stmt>> {
        let create = self.word("CREATE");
        if !create {
            self.expect_word("DROP")?;
        }
        if !(self.word("DATABASE") || self.word("SCHEMA")) {
            self.back(1);
            return Ok(None);
        }
        if create {
            let if_not_exists = self.words(&["IF", "NOT", "EXISTS"]);
            let name = self.ident()?;
            // [DEFAULT] {CHARACTER SET | CHARSET} [=] cs, [DEFAULT] COLLATE [=] coll,
            // ENCRYPTION [=] 'N' (accepted).
            let (mut charset, mut collate) = (None, None);
            while !self.at_end() {
                let _ = self.word("DEFAULT");
                if self.words(&["CHARACTER", "SET"]) || self.word("CHARSET") {
                    let _ = self.parser.consume_token(&Token::Eq);
                    charset = Some(self.name_or_string()?);
                } else if self.word("COLLATE") {
                    let _ = self.parser.consume_token(&Token::Eq);
                    collate = Some(self.name_or_string()?);
                } else if self.word("ENCRYPTION") {
                    let _ = self.parser.consume_token(&Token::Eq);
                    let _ = self.name_or_string()?;
                } else {
                    return Err(self.error_here());
                }
            }
            Ok(Some(Stmt::CreateDatabase { name, if_not_exists, charset, collate }))
        } else {
            let if_exists = self.words(&["IF", "EXISTS"]);
            Ok(Some(Stmt::DropDatabase { name: self.ident()?, if_exists }))
        }
    }

    fn show(&mut self) -> Result<Stmt> {
        let full = self.word("FULL");
        let global = self.word("GLOBAL");
        let session = !global && (self.word("SESSION") || self.word("LOCAL"));
        let _ = session;
        if self.word("GRANTS") {
            let user = if self.word("FOR") { Some(self.user_spec()?) } else { None };
            if self.word("USING") {
                return Err(unsupported("SHOW GRANTS ... USING (roles)"));
            }
            return Ok(Stmt::Account(AccountStmt::ShowGrants(user)));
        }
        if self.word("DATABASES") || self.word("SCHEMAS") {
            return Ok(Stmt::Show(Show::Databases { like: self.like()? }));
        }
        if self.words(&["TABLE", "STATUS"]) {
            let db = if self.word("FROM") || self.word("IN") { Some(self.ident()?) } else { None };
            return Ok(Stmt::Show(Show::TableStatus { db, like: self.like()? }));
        }
        if self.word("TABLES") {
            let db = if self.word("FROM") || self.word("IN") { Some(self.ident()?) } else { None };
            return Ok(Stmt::Show(Show::Tables { db, full, like: self.like()? }));
        }
        if self.word("CREATE") {
            if self.word("TABLE") {
                return Ok(Stmt::Show(Show::CreateTable(self.table_name()?)));
            }
            if self.word("VIEW") {
                return Ok(Stmt::Show(Show::CreateView(self.table_name()?)));
            }
            if self.word("USER") {
                let user = self.user_spec()?;
                return Ok(Stmt::Account(AccountStmt::ShowCreateUser(user)));
            }
            if self.word("DATABASE") || self.word("SCHEMA") {
                self.words(&["IF", "NOT", "EXISTS"]);
                return Ok(Stmt::Show(Show::CreateDatabase(self.ident()?)));
            }
            return Err(unsupported("SHOW CREATE"));
        }
        if self.word("COLUMNS") || self.word("FIELDS") {
            if !(self.word("FROM") || self.word("IN")) {
                return Err(self.error_here());
            }
            let mut table = self.table_name()?;
            if self.word("FROM") || self.word("IN") {
                table.db = Some(self.ident()?);
            }
            return Ok(Stmt::Show(Show::Columns { table, full, like: self.like()? }));
        }
        if self.word("VARIABLES") {
            return Ok(Stmt::Show(Show::Variables { global, like: self.like()? }));
        }
        if self.word("STATUS") {
            return Ok(Stmt::Show(Show::Status { global, like: self.like()? }));
        }
        if self.word("COUNT") {
            let star = self.parser.consume_token(&Token::LParen)
                && self.parser.consume_token(&Token::Mul)
                && self.parser.consume_token(&Token::RParen);
            let errors = match (star, self.word("WARNINGS"), self.word("ERRORS")) {
                (true, true, _) => false,
                (true, false, true) => true,
                _ => return Err(self.error_here()),
            };
            return Ok(Stmt::Show(Show::WarningCount { errors }));
        }
        if self.word("WARNINGS") {
            self.limit_clause()?;
            return Ok(Stmt::Show(Show::Warnings));
        }
        if self.word("ERRORS") {
            self.limit_clause()?;
            return Ok(Stmt::Show(Show::Errors));
        }
        if self.word("ENGINES") || self.words(&["STORAGE", "ENGINES"]) {
            return Ok(Stmt::Show(Show::Engines));
        }
        if self.word("INDEX") || self.word("INDEXES") || self.word("KEYS") {
            if !(self.word("FROM") || self.word("IN")) {
                return Err(self.error_here());
            }
            let mut table = self.table_name()?;
            if self.word("FROM") || self.word("IN") {
                table.db = Some(self.ident()?);
            }
            return Ok(Stmt::Show(Show::Index(table)));
        }
        if self.words(&["BINARY", "LOGS"]) || self.words(&["MASTER", "LOGS"]) {
            return Ok(Stmt::Admin(AdminCommand::ShowBinaryLogs));
        }
        if self.words(&["MASTER", "STATUS"]) || self.words(&["BINARY", "LOG", "STATUS"]) {
            return Ok(Stmt::Admin(AdminCommand::ShowMasterStatus));
        }
        if self.word("REPLICAS") {
            return Ok(Stmt::Admin(AdminCommand::ShowReplicas { old_names: false }));
        }
        if self.words(&["SLAVE", "HOSTS"]) {
            return Ok(Stmt::Admin(AdminCommand::ShowReplicas { old_names: true }));
        }
        if self.words(&["BINLOG", "EVENTS"]) {
            let file = if self.word("IN") { Some(self.string()?) } else { None };
            let from = if self.word("FROM") { Some(self.uint()?) } else { None };
            let (offset, limit) = self.limit_clause()?.unwrap_or((0, None));
            return Ok(Stmt::Admin(AdminCommand::ShowBinlogEvents { file, from, offset, limit }));
        }
        if self.words(&["CHARACTER", "SET"]) || self.word("CHARSET") {
            return Ok(Stmt::Show(Show::Charset { like: self.like()? }));
        }
        if self.word("COLLATION") {
            return Ok(Stmt::Show(Show::Collation { like: self.like()? }));
        }
        if self.word("PROCESSLIST") {
            return Ok(Stmt::Show(Show::ProcessList { full }));
        }
        Err(self.error_here())
    }

    /// `LIMIT [offset,] count` as (offset, Some(count)).
    fn limit_clause(&mut self) -> Result<Option<(u64, Option<u64>)>> {
        if !self.word("LIMIT") {
            return Ok(None);
        }
        let a = self.uint()?;
        if self.parser.consume_token(&Token::Comma) {
            Ok(Some((a, Some(self.uint()?))))
        } else {
            Ok(Some((0, Some(a))))
        }
    }

    fn set(&mut self) -> Result<Stmt> {
        let scope = if self.word("GLOBAL") {
            VarScope::Global
        } else if self.word("SESSION") || self.word("LOCAL") {
            VarScope::Session
        } else {
            VarScope::Default
        };
        let scoped = usize::from(scope != VarScope::Default);
        if self.word("TRANSACTION") {
            // `transaction_characteristics`: ISOLATION LEVEL level | READ WRITE | READ ONLY,
            // comma-separated, each at most once.
            let (mut isolation, mut read_only) = (None, None);
            loop {
                if self.words(&["ISOLATION", "LEVEL"]) {
                    let level = if self.words(&["READ", "UNCOMMITTED"]) {
                        "READ-UNCOMMITTED"
                    } else if self.words(&["READ", "COMMITTED"]) {
                        "READ-COMMITTED"
                    } else if self.words(&["REPEATABLE", "READ"]) {
                        "REPEATABLE-READ"
                    } else if self.word("SERIALIZABLE") {
                        "SERIALIZABLE"
                    } else {
                        return Err(self.error_here());
                    };
                    if isolation.replace(level).is_some() {
                        return Err(self.error_here());
                    }
                } else if self.words(&["READ", "WRITE"]) {
                    if read_only.replace(false).is_some() {
                        return Err(self.error_here());
                    }
                } else if self.words(&["READ", "ONLY"]) {
                    if read_only.replace(true).is_some() {
                        return Err(self.error_here());
                    }
                } else {
                    return Err(self.error_here());
                }
                if !self.parser.consume_token(&Token::Comma) {
                    break;
                }
            }
            if !self.at_end() {
                return Err(self.error_here());
            }
            return Ok(Stmt::SetTransaction { scope, isolation, read_only });
        }
        self.back(scoped);
        let mut items = Vec::new();
        loop {
            items.push(self.set_item()?);
            if !self.parser.consume_token(&Token::Comma) {
                break;
            }
        }
        Ok(Stmt::Set(items))
    }

    fn set_item(&mut self) -> Result<SetItem> {
        // NAMES and CHARACTER SET may stand anywhere in a SET list (`SET a=1, NAMES utf8mb4`,
        // as the MariaDB Java client sends on connect): mysqld's `option_value_no_option_type`.
        if self.word("NAMES") {
            if self.word("DEFAULT") {
                return Ok(SetItem::Names { charset: None, collation: None });
            }
            let charset = Some(self.name_or_string()?);
            let collation = if self.word("COLLATE") { Some(self.name_or_string()?) } else { None };
            return Ok(SetItem::Names { charset, collation });
        }
        if self.words(&["CHARACTER", "SET"]) || self.word("CHARSET") {
            if self.word("DEFAULT") {
                return Ok(SetItem::CharacterSet { charset: None });
            }
            return Ok(SetItem::CharacterSet { charset: Some(self.name_or_string()?) });
        }
        let mut scope = if self.word("GLOBAL") || self.word("PERSIST") {
            VarScope::Global
        } else if self.word("SESSION") || self.word("LOCAL") {
            VarScope::Session
        } else {
            VarScope::Default
        };
        let first = self.ident()?;
        let name = if let Some(v) = first.strip_prefix("@@") {
            let (s, rest) = sysvar_scope(v);
            if let Some(s) = s {
                if !self.parser.consume_token(&Token::Period) {
                    return Err(self.error_here());
                }
                scope = s;
                self.ident()?
            } else {
                scope = if scope == VarScope::Default { VarScope::Session } else { scope };
                rest.to_string()
            }
        } else if let Some(u) = first.strip_prefix('@') {
            if !(self.parser.consume_token(&Token::Eq) || self.assign_token()) {
                return Err(self.error_here());
            }
            let value = self.expr_value()?;
            return Ok(SetItem::User { name: u.to_ascii_lowercase(), value });
        } else {
            first
        };
        if !(self.parser.consume_token(&Token::Eq) || self.assign_token()) {
            return Err(self.error_here());
        }
        if self.word("DEFAULT") {
            return Ok(SetItem::System { scope, name, value: None });
        }
        let value = match self.expr_value()? {
            // `SET x = ON`, `SET sql_mode = TRADITIONAL`: bare words are strings here.
            Expr::Name { table: None, column } => Expr::Lit(Value::Bytes(column.into_bytes())),
            e => e,
        };
        Ok(SetItem::System { scope, name, value: Some(value) })
    }

    /// `:=`
    fn assign_token(&mut self) -> bool {
        self.parser.consume_token(&Token::Assignment)
    }

    fn expr_value(&mut self) -> Result<Expr> {
        let e = self.parser.parse_expr().map_err(|e| parse_error(self.sql, &e))?;
        self.expr(&e)
    }

    // ---- conversion of sqlparser's AST ---------------------------------------------------

    fn convert(&mut self, st: sp::Statement) -> Result<Stmt> {
        match st {
            sp::Statement::Query(q) => Ok(Stmt::Select(self.query(&q)?)),
            sp::Statement::Insert(i) => self.insert(i),
            sp::Statement::Update { table, assignments, from, selection, limit, .. } => {
                if from.is_some() {
                    return Err(unsupported("UPDATE ... FROM"));
                }
                if !table.joins.is_empty()
                    || matches!(table.relation, sp::TableFactor::NestedJoin { .. })
                {
                    if limit.is_some() {
                        return Err(wrong_usage("UPDATE", "LIMIT"));
                    }
                    return self.multi_update(
                        std::slice::from_ref(&table),
                        &assignments,
                        selection.as_ref(),
                    );
                }
                let (tref, alias) = self.single_table(&table)?;
                let mut set = Vec::with_capacity(assignments.len());
                for a in &assignments {
                    let sp::AssignmentTarget::ColumnName(name) = &a.target else {
                        return Err(unsupported("tuple assignment"));
                    };
                    set.push((last_part(name)?, self.expr(&a.value)?));
                }
                let filter = selection.as_ref().map(|e| self.expr(e)).transpose()?;
                let limit = limit.as_ref().map(|e| self.expr(e)).transpose()?;
                Ok(Stmt::Update(Update {
                    table: tref,
                    alias,
                    set,
                    filter,
                    order_by: Vec::new(),
                    limit,
                }))
            }
            sp::Statement::Delete(d) => {
                if !d.tables.is_empty() || d.using.is_some() {
                    return self.multi_delete(&d);
                }
                let tables = match &d.from {
                    sp::FromTable::WithFromKeyword(t) | sp::FromTable::WithoutKeyword(t) => t,
                };
                let [twj] = tables.as_slice() else {
                    return Err(unsupported("multi-table DELETE"));
                };
                let (table, alias) = self.single_table(twj)?;
                let filter = d.selection.as_ref().map(|e| self.expr(e)).transpose()?;
                let order_by = self.order_items(&d.order_by)?;
                let limit = d.limit.as_ref().map(|e| self.expr(e)).transpose()?;
                Ok(Stmt::Delete(Delete { table, alias, filter, order_by, limit }))
            }
            sp::Statement::CreateTable(ct) => self.create_table(ct),
            sp::Statement::CreateIndex(ci) => {
                let name = ci.name.as_ref().map(last_part).transpose()?;
                let (columns, prefixes) = index_columns(&ci.columns)?;
                Ok(Stmt::CreateIndex {
                    table: TableRef::from_sql(&ci.table_name)?,
                    index: IndexSpec {
                        name,
                        columns,
                        prefixes,
                        unique: ci.unique,
                        comment: index_comment(&ci.index_options),
                    },
                })
            }
            sp::Statement::Drop { object_type, if_exists, names, table, temporary, .. } => {
                match object_type {
                    sp::ObjectType::Table if !temporary => Ok(Stmt::DropTable {
                        tables: names.iter().map(TableRef::from_sql).collect::<Result<_>>()?,
                        if_exists,
                    }),
                    sp::ObjectType::Index => {
                        let (Some(t), [name]) = (table, names.as_slice()) else {
                            return Err(unsupported("DROP INDEX without ON table"));
                        };
                        Ok(Stmt::DropIndex {
                            table: TableRef::from_sql(&t)?,
                            name: last_part(name)?,
                        })
                    }
                    other => Err(unsupported(format!("DROP {other}"))),
                }
            }
            sp::Statement::Truncate { table_names, .. } => match table_names.as_slice() {
                [t] => Ok(Stmt::Truncate(TableRef::from_sql(&t.name)?)),
                _ => Err(unsupported("TRUNCATE of several tables")),
            },
            other => {
                let text = other.to_string();
                let head: String = text.split_whitespace().take(2).collect::<Vec<_>>().join(" ");
                Err(unsupported(head))
            }
        }
    }

    fn single_table(&mut self, t: &sp::TableWithJoins) -> Result<(TableRef, Option<String>)> {
        if !t.joins.is_empty() {
            return Err(unsupported("joins"));
        }
        match &t.relation {
            sp::TableFactor::Table { name, alias, args: None, .. } => {
                Ok((TableRef::from_sql(name)?, alias.as_ref().map(|a| a.name.value.clone())))
            }
            sp::TableFactor::Derived { .. } => Err(unsupported("subqueries in FROM")),
            other => Err(unsupported(format!("FROM {other}"))),
        }
    }

    /// A multi-table FROM (the query layer's input): the first table, and each later table
    /// with how it joins the tables before it, left-deep as written. Comma lists are inner
    /// joins; a parenthesized group of inner joins joined by an inner join flattens (inner
    /// joins associate); an outer join of a parenthesized group is refused (1235). The
    /// recursion over nested groups is bounded by the statement's token depth
    /// ([`crate::depth`]); the table count by mysqld's 61 (`MAX_TABLES`, 1116).
    fn join_tables(
        &mut self,
        list: &[sp::TableWithJoins],
        joins: &mut Vec<JoinItem>,
        first_derived: &mut Option<Box<Select>>,
    ) -> Result<(TableRef, Option<String>)> {
        let mut first = None;
        for twj in list {
            self.join_group(twj, &mut first, joins, first_derived)?;
        }
        if joins.len() + 1 > 61 {
            return Err(SqlError::Other {
                code: 1116,
                sqlstate: "HY000",
                message: "Too many tables; MySQL can only use 61 tables in a join".into(),
            });
        }
        first.ok_or_else(|| unsupported("this FROM clause"))
    }

    fn join_group(
        &mut self,
        twj: &sp::TableWithJoins,
        first: &mut Option<(TableRef, Option<String>)>,
        joins: &mut Vec<JoinItem>,
        first_derived: &mut Option<Box<Select>>,
    ) -> Result<()> {
        self.join_factor(&twj.relation, JoinKind::Inner, None, first, joins, first_derived)?;
        for j in &twj.joins {
            use sp::JoinOperator as O;
            let (kind, c) = match &j.join_operator {
                O::Join(c) | O::Inner(c) | O::CrossJoin(c) => (JoinKind::Inner, c),
                O::StraightJoin(c) => (JoinKind::Straight, c),
                O::Left(c) | O::LeftOuter(c) => (JoinKind::Left, c),
                O::Right(c) | O::RightOuter(c) => (JoinKind::Right, c),
                other => return Err(unsupported(format!("{other:?} joins"))),
            };
            self.join_factor(&j.relation, kind, Some(c), first, joins, first_derived)?;
        }
        Ok(())
    }

    fn join_factor(
        &mut self,
        f: &sp::TableFactor,
        kind: JoinKind,
        constraint: Option<&sp::JoinConstraint>,
        first: &mut Option<(TableRef, Option<String>)>,
        joins: &mut Vec<JoinItem>,
        first_derived: &mut Option<Box<Select>>,
    ) -> Result<()> {
        let (mut on, mut using, mut natural) = (None, Vec::new(), false);
        match constraint {
            Some(sp::JoinConstraint::On(e)) => on = Some(self.expr(e)?),
            Some(sp::JoinConstraint::Using(cols)) => {
                using = cols.iter().map(last_part).collect::<Result<_>>()?;
            }
            Some(sp::JoinConstraint::Natural) => natural = true,
            Some(sp::JoinConstraint::None) | None => {}
        }
        match f {
            sp::TableFactor::Table { name, alias, args: None, .. } => {
                let table = TableRef::from_sql(name)?;
                let alias = alias.as_ref().map(|a| a.name.value.clone());
                if let Some(cte) = self.cte_table(name) {
                    // A common table expression: a derived table named as the CTE.
                    let label = alias.unwrap_or_else(|| table.name.clone());
                    let table = TableRef { db: None, name: label.clone() };
                    let (alias, inner) = (Some(label), Some(Box::new(cte)));
                    if first.is_none() {
                        *first = Some((table, alias));
                        *first_derived = inner;
                    } else {
                        let derived = inner;
                        joins.push(JoinItem { table, alias, kind, on, using, natural, derived });
                    }
                    return Ok(());
                }
                if first.is_none() {
                    *first = Some((table, alias));
                } else {
                    joins.push(JoinItem { table, alias, kind, on, using, natural, derived: None });
                }
                Ok(())
            }
            sp::TableFactor::NestedJoin { table_with_joins, alias: None } => {
                let inner = |j: &sp::Join| {
                    matches!(
                        j.join_operator,
                        sp::JoinOperator::Join(_)
                            | sp::JoinOperator::Inner(_)
                            | sp::JoinOperator::CrossJoin(_)
                    )
                };
                let all_inner = table_with_joins.joins.iter().all(inner);
                if (first.is_some() && kind != JoinKind::Inner)
                    || !all_inner
                    || !using.is_empty()
                    || natural
                {
                    return Err(unsupported("outer joins of parenthesized join groups"));
                }
                let start = joins.len();
                self.join_group(table_with_joins, first, joins, first_derived)?;
                // The group's ON applies once the whole group is joined: on its last table.
                if let Some(cond) = on {
                    let grew = joins.len() > start;
                    match joins.last_mut() {
                        Some(last) if grew => {
                            last.on = Some(match last.on.take() {
                                Some(e) => Expr::Binary(BinOp::And, Box::new(e), Box::new(cond)),
                                None => cond,
                            });
                        }
                        _ => return Err(unsupported("this join condition")),
                    }
                }
                Ok(())
            }
            sp::TableFactor::Derived { lateral: false, subquery, alias } => {
                let Some(alias) = alias else {
                    return Err(SqlError::Other {
                        code: 1248,
                        sqlstate: "42000",
                        message: "Every derived table must have its own alias".into(),
                    });
                };
                let names: Vec<String> =
                    alias.columns.iter().map(|c| c.name.value.clone()).collect();
                let inner = Box::new(query_expr::with_names(self.query(subquery)?, names));
                let table = TableRef { db: None, name: alias.name.value.clone() };
                let alias = Some(alias.name.value.clone());
                if first.is_none() {
                    *first = Some((table, alias));
                    *first_derived = Some(inner);
                } else {
                    let derived = Some(inner);
                    joins.push(JoinItem { table, alias, kind, on, using, natural, derived });
                }
                Ok(())
            }
            other => Err(unsupported(format!("FROM {other}"))),
        }
    }

    /// One query block (a SELECT with its ORDER BY / LIMIT / locking clauses); WITH and set
    /// operations are `query_expr.rs`'s.
    fn query_block(&mut self, q: &sp::Query) -> Result<Select> {
        let sel = match q.body.as_ref() {
            sp::SetExpr::Select(s) => s,
            sp::SetExpr::SetOperation { op, .. } => return Err(unsupported(op.to_string())),
            sp::SetExpr::Query(_) => return Err(unsupported("parenthesized queries")),
            _ => return Err(unsupported("this query form")),
        };
        let distinct = match &sel.distinct {
            None => false,
            Some(sp::Distinct::Distinct) => true,
            Some(sp::Distinct::On(_)) => return Err(unsupported("DISTINCT ON")),
        };
        if sel.into.is_some() {
            return Err(unsupported("SELECT ... INTO"));
        }
        let outer_windows = if sel.named_window.is_empty() && self.windows.is_empty() {
            None
        } else {
            // A block sees its own WINDOW clause only (not an enclosing block's).
            let defs = self.named_windows(&sel.named_window)?;
            Some(std::mem::replace(&mut self.windows, defs))
        };
        let block = self.query_block_in(q, sel, distinct);
        if let Some(w) = outer_windows {
            self.windows = w;
        }
        block
    }

    /// [`Self::query_block`] past the WINDOW clause.
    fn query_block_in(
        &mut self,
        q: &sp::Query,
        sel: &sp::Select,
        distinct: bool,
    ) -> Result<Select> {
        let mut items = Vec::with_capacity(sel.projection.len());
        let texts = projection_texts(self.sql, sel.select_token.0.span.start);
        for (n, item) in sel.projection.iter().enumerate() {
            items.push(match item {
                sp::SelectItem::Wildcard(_) => SelectItem::Wildcard,
                sp::SelectItem::QualifiedWildcard(
                    sp::SelectItemQualifiedWildcardKind::ObjectName(name),
                    _,
                ) => {
                    let t = TableRef::from_sql(name)?;
                    SelectItem::TableWildcard(t.db, t.name)
                }
                sp::SelectItem::QualifiedWildcard(..) => return Err(unsupported("this wildcard")),
                sp::SelectItem::UnnamedExpr(e) => SelectItem::Expr {
                    expr: self.expr(e)?,
                    label: self.label(e, texts.as_ref().and_then(|t| t.get(n)).map(String::as_str)),
                    aliased: false,
                },
                sp::SelectItem::ExprWithAlias { expr, alias } => SelectItem::Expr {
                    expr: self.expr(expr)?,
                    label: alias.value.clone(),
                    aliased: true,
                },
            });
        }
        let mut joins = Vec::new();
        let mut derived = None;
        let (from, alias) = match sel.from.as_slice() {
            [] => (None, None),
            [t] if t.joins.is_empty()
                && !matches!(
                    t.relation,
                    sp::TableFactor::NestedJoin { .. } | sp::TableFactor::Derived { .. }
                )
                && !self.is_cte_ref(&t.relation) =>
            {
                let (r, a) = self.single_table(t)?;
                if r.db.is_none() && r.name.eq_ignore_ascii_case("dual") {
                    (None, None)
                } else {
                    (Some(r), a)
                }
            }
            many => {
                let (r, a) = self.join_tables(many, &mut joins, &mut derived)?;
                (Some(r), a)
            }
        };
        let filter = sel.selection.as_ref().map(|e| self.expr(e)).transpose()?;
        let (group_by, rollup) = match &sel.group_by {
            sp::GroupByExpr::Expressions(v, m) if m.is_empty() => {
                (v.iter().map(|e| self.expr(e)).collect::<Result<Vec<_>>>()?, false)
            }
            // MySQL's `olap_opt`: WITH ROLLUP only (CUBE and TOTALS are not MySQL).
            sp::GroupByExpr::Expressions(v, m)
                if !v.is_empty() && matches!(m.as_slice(), [sp::GroupByWithModifier::Rollup]) =>
            {
                (v.iter().map(|e| self.expr(e)).collect::<Result<Vec<_>>>()?, true)
            }
            sp::GroupByExpr::Expressions(_, m) => {
                return Err(SqlError::near(
                    &m.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" "),
                ))
            }
            _ => return Err(unsupported("GROUP BY modifiers")),
        };
        let having = sel.having.as_ref().map(|e| self.expr(e)).transpose()?;
        let order_by = match &q.order_by {
            None => Vec::new(),
            Some(ob) => match &ob.kind {
                sp::OrderByKind::Expressions(v) => self.order_items(v)?,
                sp::OrderByKind::All(_) => return Err(unsupported("ORDER BY ALL")),
            },
        };
        let (limit, offset) = match &q.limit_clause {
            None => (None, None),
            Some(sp::LimitClause::LimitOffset { limit, offset, limit_by }) => {
                if !limit_by.is_empty() {
                    return Err(unsupported("LIMIT BY"));
                }
                let l = limit.as_ref().map(|e| self.expr(e)).transpose()?;
                let o = offset.as_ref().map(|o| self.expr(&o.value)).transpose()?;
                (l, o)
            }
            Some(sp::LimitClause::OffsetCommaLimit { offset, limit }) => {
                let o = self.expr(offset)?;
                (Some(self.expr(limit)?), Some(o))
            }
        };
        let (mut for_update, mut exclusive) = (false, false);
        for l in &q.locks {
            // FOR UPDATE and FOR SHARE / LOCK IN SHARE MODE: both read the newest rows and
            // lock them; the lock is shared unless some clause asks for UPDATE.
            for_update |= matches!(l.lock_type, sp::LockType::Update | sp::LockType::Share);
            exclusive |= matches!(l.lock_type, sp::LockType::Update);
        }
        let for_share = for_update && !exclusive;
        Ok(Select {
            from,
            alias,
            items,
            filter,
            group_by,
            rollup,
            having,
            order_by,
            limit,
            offset,
            distinct,
            for_update,
            joins,
            for_share,
            derived,
        })
    }

    fn order_items(&mut self, v: &[sp::OrderByExpr]) -> Result<Vec<OrderItem>> {
        v.iter()
            .map(|o| {
                Ok(OrderItem { expr: self.expr(&o.expr)?, desc: o.options.asc == Some(false) })
            })
            .collect()
    }

    /// The label MySQL gives an unaliased select item (`Item::item_name` set by the parser
    /// from the item's text, sql_yacc.yy `select_item`): a column's name, a string literal's
    /// value, otherwise the item's text as written (`text`, from [`projection_texts`]), cut to
    /// 256 characters as mysqld cuts it.
    fn label(&self, e: &sp::Expr, text: Option<&str>) -> String {
        match e {
            sp::Expr::Identifier(i) => return i.value.clone(),
            sp::Expr::CompoundIdentifier(v) if !v[0].value.starts_with('@') => {
                if let Some(l) = v.last() {
                    return l.value.clone();
                }
            }
            sp::Expr::Value(v) => match &v.value {
                sp::Value::SingleQuotedString(s) | sp::Value::DoubleQuotedString(s) => {
                    return s.chars().take(MAX_LABEL_CHARS).collect();
                }
                _ => {}
            },
            _ => {}
        }
        match text {
            Some(t) if !t.is_empty() => t.chars().take(MAX_LABEL_CHARS).collect(),
            _ => e.to_string(),
        }
    }

    fn insert(&mut self, i: sp::Insert) -> Result<Stmt> {
        let sp::TableObject::TableName(name) = &i.table else {
            return Err(unsupported("INSERT INTO TABLE FUNCTION"));
        };
        let table = TableRef::from_sql(name)?;
        let mut columns: Vec<String> = i.columns.iter().map(|c| c.value.clone()).collect();
        let mut rows = Vec::new();
        let mut select = None;
        if !i.assignments.is_empty() {
            let mut row = Vec::new();
            for a in &i.assignments {
                let sp::AssignmentTarget::ColumnName(n) = &a.target else {
                    return Err(unsupported("tuple assignment"));
                };
                columns.push(last_part(n)?);
                row.push(self.insert_value(&a.value)?);
            }
            rows.push(row);
        } else {
            let Some(src) = &i.source else { return Err(SqlError::near("")) };
            match src.body.as_ref() {
                sp::SetExpr::Values(v) => {
                    for r in &v.rows {
                        rows.push(r.iter().map(|e| self.insert_value(e)).collect::<Result<_>>()?);
                    }
                }
                sp::SetExpr::Select(_)
                | sp::SetExpr::Query(_)
                | sp::SetExpr::SetOperation { .. } => {
                    select = Some(Box::new(self.query(src)?));
                }
                _ => return Err(unsupported("this INSERT source")),
            }
        }
        let mut on_duplicate = Vec::new();
        match &i.on {
            None => {}
            Some(sp::OnInsert::DuplicateKeyUpdate(assignments)) => {
                for a in assignments {
                    let sp::AssignmentTarget::ColumnName(n) = &a.target else {
                        return Err(unsupported("tuple assignment"));
                    };
                    on_duplicate.push((last_part(n)?, self.expr(&a.value)?));
                }
            }
            Some(_) => return Err(unsupported("ON CONFLICT")),
        }
        let row_alias = match &i.insert_alias {
            None => None,
            Some(a) => Some((
                last_part(&a.row_alias)?,
                a.col_aliases.iter().flatten().map(|c| c.value.clone()).collect(),
            )),
        };
        if row_alias.is_some() && select.is_some() {
            // mysqld's grammar has the row alias only after VALUES / SET.
            return Err(SqlError::near("AS"));
        }
        let insert = Insert {
            table,
            columns,
            rows,
            replace: i.replace_into,
            ignore: i.ignore,
            on_duplicate,
            row_alias,
        };
        match select {
            Some(select) => Ok(Stmt::InsertSelect(InsertSelect { insert, select })),
            None => Ok(Stmt::Insert(insert)),
        }
    }

    fn insert_value(&mut self, e: &sp::Expr) -> Result<Expr> {
        match e {
            sp::Expr::Identifier(id)
                if id.quote_style.is_none() && id.value.eq_ignore_ascii_case("DEFAULT") =>
            {
                Ok(Expr::Default)
            }
            e => self.expr(e),
        }
    }

    fn create_table(&mut self, ct: sp::CreateTable) -> Result<Stmt> {
        if ct.temporary {
            return Err(unsupported("TEMPORARY tables"));
        }
        let select = match &ct.query {
            Some(q) => Some(CreateSelect {
                select: Box::new(self.query(q)?),
                ignore: false,
                replace: false,
            }),
            None => None,
        };
        if ct.like.is_some() || ct.clone.is_some() {
            return Err(unsupported("CREATE TABLE ... LIKE"));
        }
        let mut columns = Vec::with_capacity(ct.columns.len());
        let mut checks = Vec::new();
        for c in &ct.columns {
            columns.push(column_spec(c)?);
            for o in &c.options {
                if let sp::ColumnOption::Check(e) = &o.option {
                    let at = sqlparser::ast::Spanned::span(e).start;
                    let name = o.name.as_ref().map(|n| n.value.clone());
                    let spec = self.check_spec(name, e, None, Some(c.name.value.clone()))?;
                    checks.push(((at.line, at.column), spec));
                }
            }
        }
        let mut primary_key = None;
        let mut indexes = Vec::new();
        let mut foreign_keys = Vec::new();
        for con in &ct.constraints {
            match con {
                sp::TableConstraint::PrimaryKey { columns: cols, .. } => {
                    if primary_key.is_some() {
                        return Err(SqlError::MultiplePrimaryKey);
                    }
                    primary_key = Some(primary_key_columns(cols)?);
                }
                sp::TableConstraint::Unique {
                    name,
                    index_name,
                    columns: cols,
                    index_options,
                    ..
                } => {
                    let (columns, prefixes) = index_columns(cols)?;
                    indexes.push(IndexSpec {
                        name: index_name.as_ref().or(name.as_ref()).map(|n| n.value.clone()),
                        columns,
                        prefixes,
                        unique: true,
                        comment: index_comment(index_options),
                    })
                }
                sp::TableConstraint::Index { name, columns: cols, index_options, .. } => {
                    let (columns, prefixes) = index_columns(cols)?;
                    indexes.push(IndexSpec {
                        name: name.as_ref().map(|n| n.value.clone()),
                        columns,
                        prefixes,
                        unique: false,
                        comment: index_comment(index_options),
                    })
                }
                sp::TableConstraint::ForeignKey { .. } => {
                    foreign_keys.push(super::fk_syntax::fk_spec(con)?)
                }
                sp::TableConstraint::Check { name, expr, enforced } => {
                    let at = sqlparser::ast::Spanned::span(&**expr).start;
                    let name = name.as_ref().map(|n| n.value.clone());
                    checks.push((
                        (at.line, at.column),
                        self.check_spec(name, expr, *enforced, None)?,
                    ));
                }
                sp::TableConstraint::FulltextOrSpatial { .. } => {
                    return Err(unsupported("FULLTEXT and SPATIAL indexes"))
                }
            }
        }
        let (mut charset, mut collate) = (None, None);
        let options: &[sp::SqlOption] = match &ct.table_options {
            sp::CreateTableOptions::None => &[],
            sp::CreateTableOptions::With(o)
            | sp::CreateTableOptions::Options(o)
            | sp::CreateTableOptions::Plain(o)
            | sp::CreateTableOptions::TableProperties(o) => o,
        };
        let (mut comment, mut auto_increment) = (None, None);
        for o in options {
            if let sp::SqlOption::Comment(
                sp::CommentDef::WithEq(c) | sp::CommentDef::WithoutEq(c),
            ) = o
            {
                comment = Some(c.clone());
            }
            if let sp::SqlOption::KeyValue { key, value } = o {
                if key.value.eq_ignore_ascii_case("AUTO_INCREMENT") {
                    auto_increment = Some(auto_increment_value(value)?);
                    continue;
                }
                let text = match value {
                    sp::Expr::Identifier(i) => i.value.clone(),
                    sp::Expr::Value(v) => match &v.value {
                        sp::Value::SingleQuotedString(t) | sp::Value::DoubleQuotedString(t) => {
                            t.clone()
                        }
                        other => other.to_string(),
                    },
                    other => other.to_string(),
                };
                match key.value.to_ascii_uppercase().as_str() {
                    "DEFAULT CHARSET" | "CHARSET" | "DEFAULT CHARACTER SET" | "CHARACTER SET" => {
                        charset = Some(text)
                    }
                    "DEFAULT COLLATE" | "COLLATE" => collate = Some(text),
                    _ => {}
                }
            }
        }
        Ok(Stmt::CreateTable(CreateTable {
            table: TableRef::from_sql(&ct.name)?,
            if_not_exists: ct.if_not_exists,
            columns,
            primary_key,
            indexes,
            charset,
            collate,
            foreign_keys,
            select,
            start_transaction: false,
            comment,
            auto_increment,
            checks: {
                // Column and table constraints in the order written: unnamed ones are
                // numbered in that order (`t_chk_1`, ...), as mysqld names them.
                checks.sort_by_key(|(at, _)| *at);
                checks.into_iter().map(|(_, c)| c).collect()
            },
        }))
    }

    /// A CHECK constraint as written: printed as mysqld prints it, and converted.
    pub(crate) fn check_spec(
        &mut self,
        name: Option<String>,
        e: &sp::Expr,
        enforced: Option<bool>,
        column: Option<String>,
    ) -> Result<crate::ast::CheckSpec> {
        let (text, refusal) = check_print::print(e);
        // A subquery is refused before conversion (which may not know its form).
        let expr = if refusal.is_some() { Expr::Lit(Value::Null) } else { self.expr(e)? };
        Ok(crate::ast::CheckSpec {
            name,
            text,
            expr,
            refusal,
            enforced: enforced.unwrap_or(true),
            column,
        })
    }

    /// The conversion of an expression. The recursive cases stay in this small frame and
    /// everything else is out of line (`expr_other`, `#[inline(never)]`): the tree may be
    /// [`super::depth::MAX_DEPTH`] deep, and each level costs this frame on the stack.
    fn expr(&mut self, e: &sp::Expr) -> Result<Expr> {
        use sp::Expr as E;
        Ok(match e {
            E::Nested(x) => self.expr(x)?,
            E::UnaryOp { op, expr } if xor_under_unary(op, expr).is_some() => {
                let hoisted = xor_under_unary(op, expr).unwrap_or_else(|| e.clone());
                self.expr(&hoisted)?
            }
            E::UnaryOp { op, expr } => {
                let x = match op {
                    sp::UnaryOperator::Minus | sp::UnaryOperator::PGBitwiseNot => {
                        self.numeric_operand(expr)?
                    }
                    _ => self.expr(expr)?,
                };
                unary(op, x)?
            }
            E::BinaryOp {
                left,
                op: op @ (sp::BinaryOperator::Arrow | sp::BinaryOperator::LongArrow),
                right,
            } => {
                // `col->'$.path'` is JSON_EXTRACT(col, path); `->>` also unquotes.
                let l = self.expr(left)?;
                let r = self.expr(right)?;
                let extract = Expr::Func(Func::Bytes(BytesFunc::JsonExtract), vec![l, r]);
                if *op == sp::BinaryOperator::LongArrow {
                    Expr::Func(Func::Bytes(BytesFunc::JsonUnquote), vec![extract])
                } else {
                    extract
                }
            }
            E::BinaryOp { left, op, right }
                if matches!(right.as_ref(), E::Interval(_))
                    || matches!(left.as_ref(), E::Interval(_)) =>
            {
                self.interval_op(left, op, right)?
            }
            E::BinaryOp { left, op, right }
                if matches!(left.as_ref(), E::Tuple(_))
                    || matches!(right.as_ref(), E::Tuple(_)) =>
            {
                self.row_compare(left, op, right)?
            }
            E::BinaryOp {
                left,
                op:
                    op @ (sp::BinaryOperator::BitwiseAnd
                    | sp::BinaryOperator::BitwiseOr
                    | sp::BinaryOperator::BitwiseXor
                    | sp::BinaryOperator::PGBitwiseShiftLeft
                    | sp::BinaryOperator::PGBitwiseShiftRight),
                right,
            } => {
                use crate::eval::mathfn::MathFn as M;
                let f = match op {
                    sp::BinaryOperator::BitwiseAnd => M::BitAnd,
                    sp::BinaryOperator::BitwiseOr => M::BitOr,
                    sp::BinaryOperator::BitwiseXor => M::BitXor,
                    sp::BinaryOperator::PGBitwiseShiftLeft => M::ShiftLeft,
                    _ => M::ShiftRight,
                };
                let l = self.numeric_operand(left)?;
                let r = self.numeric_operand(right)?;
                Expr::Func(Func::Math(f), vec![l, r])
            }
            E::BinaryOp { left, op, right } => {
                let op = binary_op(op)?;
                let numeric = match op {
                    BinOp::Add
                    | BinOp::Sub
                    | BinOp::Mul
                    | BinOp::Div
                    | BinOp::IntDiv
                    | BinOp::Mod => true,
                    BinOp::And | BinOp::Or | BinOp::Xor => false,
                    _ => hex_numbers::is_number(left) || hex_numbers::is_number(right),
                };
                let (l, r) = if numeric {
                    (self.numeric_operand(left)?, self.numeric_operand(right)?)
                } else {
                    (self.expr(left)?, self.expr(right)?)
                };
                Expr::Binary(op, Box::new(l), Box::new(r))
            }
            E::IsNull(x) => Expr::IsNull { expr: Box::new(self.expr(x)?), negated: false },
            E::IsNotNull(x) => Expr::IsNull { expr: Box::new(self.expr(x)?), negated: true },
            other => self.expr_other(other)?,
        })
    }

    /// An operand in numeric context: a hex or bit literal is its integer
    /// (`hex_numbers.rs`), anything else as [`Self::expr`] converts it.
    fn numeric_operand(&mut self, e: &sp::Expr) -> Result<Expr> {
        match hex_numbers::numeric(e) {
            Some(v) => Ok(Expr::Lit(v)),
            None => self.expr(e),
        }
    }

    /// The items of a row constructor `(a, b, ...)` (a non-row is a row of one), checked to
    /// have `want` columns (1241).
    fn row_items(&mut self, e: &sp::Expr, want: Option<usize>) -> Result<Vec<Expr>> {
        let items: Vec<&sp::Expr> = match e {
            sp::Expr::Tuple(v) => v.iter().collect(),
            sp::Expr::Nested(x) => return self.row_items(x, want),
            x => vec![x],
        };
        if let Some(n) = want {
            if items.len() != n {
                return Err(operand_columns(n, items.len()));
            }
        }
        items.into_iter().map(|x| self.expr(x)).collect()
    }

    /// `(a, b) = (x, y)`, `<=>`, `<>`/`!=` as mysqld's `Item_func_eq` over rows
    /// (`Arg_comparator::compare_row`): the AND of the column equalities (NOT of it for `<>`),
    /// which has the same three-valued result. Ordering comparisons of rows are refused (1235).
    fn row_compare(
        &mut self,
        left: &sp::Expr,
        op: &sp::BinaryOperator,
        right: &sp::Expr,
    ) -> Result<Expr> {
        let l = self.row_items(left, None)?;
        if let sp::Expr::Subquery(q) = right {
            let op = match op {
                sp::BinaryOperator::Eq => BinOp::Eq,
                sp::BinaryOperator::Spaceship => BinOp::NullSafeEq,
                sp::BinaryOperator::NotEq => BinOp::NotEq,
                _ => return Err(unsupported(format!("{op} of row constructors"))),
            };
            return self.subquery(SubqueryKind::Row(op), l, q);
        }
        let r = self.row_items(right, Some(l.len()))?;
        let (each, negate) = match op {
            sp::BinaryOperator::Eq => (BinOp::Eq, false),
            sp::BinaryOperator::Spaceship => (BinOp::NullSafeEq, false),
            sp::BinaryOperator::NotEq => (BinOp::Eq, true),
            _ => return Err(unsupported(format!("{op} of row constructors"))),
        };
        let terms: Vec<Expr> = l
            .into_iter()
            .zip(r)
            .map(|(a, b)| Expr::Binary(each, Box::new(a), Box::new(b)))
            .collect();
        let all = balanced(terms, BinOp::And).ok_or_else(|| operand_columns(1, 0))?;
        Ok(if negate { Expr::Unary(UnOp::Not, Box::new(all)) } else { all })
    }

    /// `(a, b) [NOT] IN ((x, y), ...)`: the OR of the rows' equalities (mysqld's
    /// `Item_func_in` over rows has the same three-valued result), built balanced so a list
    /// of n rows is log2(n) deep; each row must have the left side's column count (1241).
    /// The single-table access planner turns it into primary key lookups
    /// (`exec::row_in_keys`).
    fn row_in(&mut self, expr: &sp::Expr, list: &[sp::Expr], negated: bool) -> Result<Expr> {
        let l = self.row_items(expr, None)?;
        let mut rows = Vec::with_capacity(list.len());
        for item in list {
            let r = self.row_items(item, Some(l.len()))?;
            let eqs: Vec<Expr> = l
                .iter()
                .zip(r)
                .map(|(a, b)| Expr::Binary(BinOp::Eq, Box::new(a.clone()), Box::new(b)))
                .collect();
            rows.push(balanced(eqs, BinOp::And).ok_or_else(|| operand_columns(1, 0))?);
        }
        let any = balanced(rows, BinOp::Or).ok_or_else(|| SqlError::near("()"))?;
        Ok(if negated { Expr::Unary(UnOp::Not, Box::new(any)) } else { any })
    }

    /// A subquery in an expression; its nesting is bounded as mysqld's
    /// (`MAX_SELECT_NESTING`, 1473), so running it cannot recurse past a fixed depth.
    #[inline(never)]
    fn subquery(&mut self, kind: SubqueryKind, left: Vec<Expr>, q: &sp::Query) -> Result<Expr> {
        self.nesting += 1;
        let query = if self.nesting > crate::ast::MAX_SELECT_NESTING {
            Err(SqlError::Other {
                code: 1473,
                sqlstate: "HY000",
                message: "Too high level of nesting for select".into(),
            })
        } else {
            self.query(q)
        };
        self.nesting -= 1;
        Ok(Expr::Subquery(Box::new(Subquery { kind, left, query: query? })))
    }

    #[inline(never)]
    fn expr_other(&mut self, e: &sp::Expr) -> Result<Expr> {
        use sp::Expr as E;
        Ok(match e {
            // A string with a Unicode or ASCII character set introducer (`_utf8mb4'x'`: how
            // mysqld prints strings in CHECK conditions, `checks.rs`): the string itself.
            E::Prefixed { prefix, value }
                if matches!(
                    prefix.value.to_ascii_lowercase().as_str(),
                    "_utf8mb4" | "_utf8mb3" | "_utf8" | "_ascii"
                ) && matches!(&**value, E::Value(v) if matches!(v.value,
                    sp::Value::SingleQuotedString(_) | sp::Value::DoubleQuotedString(_))) =>
            {
                self.expr(value)?
            }
            // sqlparser reads CEIL(x)/FLOOR(x) as their own nodes (mysqld: plain functions,
            // reading a hex literal as its integer like the other numeric functions).
            E::Ceil {
                expr,
                field: sp::CeilFloorKind::DateTimeField(sp::DateTimeField::NoDateTime),
            } => Expr::Func(Func::Ceil, vec![self.numeric_operand(expr)?]),
            E::Floor {
                expr,
                field: sp::CeilFloorKind::DateTimeField(sp::DateTimeField::NoDateTime),
            } => Expr::Func(Func::Floor, vec![self.numeric_operand(expr)?]),
            E::Identifier(id) => ident_expr(id, None),
            E::CompoundIdentifier(parts) => match parts.as_slice() {
                [a, b] if a.quote_style.is_none() && a.value.starts_with("@@") => {
                    let (scope, _) = sysvar_scope(&a.value[2..]);
                    match scope {
                        Some(scope) => Expr::SysVar { scope, name: b.value.to_ascii_lowercase() },
                        None => return Err(unsupported(e.to_string())),
                    }
                }
                [t, c] => Expr::Name { table: Some(t.value.clone()), column: c.value.clone() },
                [_, t, c] => Expr::Name { table: Some(t.value.clone()), column: c.value.clone() },
                _ => return Err(unsupported(e.to_string())),
            },
            E::Value(v) => self.value(&v.value)?,
            E::Between { expr, negated, low, high } => {
                let x = self.expr(expr)?;
                let lo = self.expr(low)?;
                let hi = self.expr(high)?;
                Expr::Between {
                    expr: Box::new(x),
                    low: Box::new(lo),
                    high: Box::new(hi),
                    negated: *negated,
                }
            }
            E::InList { expr, list, negated } if matches!(expr.as_ref(), E::Tuple(_)) => {
                self.row_in(expr, list, *negated)?
            }
            E::Tuple(items) => return Err(operand_columns(1, items.len())),
            E::InList { expr, list, negated } => {
                let x = self.expr(expr)?;
                let list = list.iter().map(|e| self.expr(e)).collect::<Result<Vec<_>>>()?;
                Expr::InList { expr: Box::new(x), list, negated: *negated }
            }
            // `expr [NOT] REGEXP|RLIKE pattern` is REGEXP_LIKE(expr, pattern).
            E::RLike { negated, expr, pattern, .. } => {
                let like = Expr::Func(
                    Func::Regex(crate::ast::RegexFn::Like),
                    vec![self.expr(expr)?, self.expr(pattern)?],
                );
                if *negated {
                    Expr::Unary(UnOp::Not, Box::new(like))
                } else {
                    like
                }
            }
            E::Like { negated, expr, pattern, escape_char, any: false } => {
                let x = self.expr(expr)?;
                let p = self.expr(pattern)?;
                let like =
                    Expr::Like { expr: Box::new(x), pattern: Box::new(p), negated: *negated };
                match escape_char {
                    None => like,
                    Some(v) => {
                        // mysqld: ESCAPE takes one character (an empty string: no escape).
                        let text = match v {
                            sp::Value::SingleQuotedString(t) | sp::Value::DoubleQuotedString(t) => {
                                t
                            }
                            _ => return Err(SqlError::near(&v.to_string())),
                        };
                        let mut chars = text.chars();
                        match (chars.next(), chars.next()) {
                            (Some(c), None) => Expr::LikeEscape(Box::new(like), c),
                            (None, _) => Expr::LikeEscape(Box::new(like), '\u{0}'),
                            _ => return Err(SqlError::WrongArguments("ESCAPE")),
                        }
                    }
                }
            }
            E::Collate { expr, collation } => {
                let x = self.expr(expr)?;
                let name = last_part(collation)?;
                Expr::Collate(Box::new(x), crate::eval::collate::by_name(&name)?.id)
            }
            E::Position { expr, r#in } => {
                let needle = self.expr(expr)?;
                let hay = self.expr(r#in)?;
                Expr::Str(StrFn::Locate, vec![needle, hay])
            }
            E::Substring { expr, substring_from, substring_for, .. } => {
                let mut args = vec![self.expr(expr)?];
                args.push(match substring_from {
                    Some(f) => self.expr(f)?,
                    None => Expr::Lit(Value::Int(1)),
                });
                if let Some(f) = substring_for {
                    args.push(self.expr(f)?);
                }
                Expr::Str(StrFn::Substring, args)
            }
            E::Trim { expr, trim_where, trim_what, trim_characters: None } => {
                let w = match trim_where {
                    None | Some(sp::TrimWhereField::Both) => TrimWhere::Both,
                    Some(sp::TrimWhereField::Leading) => TrimWhere::Leading,
                    Some(sp::TrimWhereField::Trailing) => TrimWhere::Trailing,
                };
                let mut args = vec![self.expr(expr)?];
                if let Some(r) = trim_what {
                    args.push(self.expr(r)?);
                }
                Expr::Str(StrFn::Trim(w), args)
            }
            E::Case { operand, conditions, else_result, .. } => {
                let operand = operand.as_ref().map(|o| self.expr(o).map(Box::new)).transpose()?;
                let mut whens = Vec::with_capacity(conditions.len());
                for c in conditions {
                    let w = self.expr(&c.condition)?;
                    let t = self.expr(&c.result)?;
                    whens.push((w, t));
                }
                let otherwise =
                    else_result.as_ref().map(|o| self.expr(o).map(Box::new)).transpose()?;
                Expr::Case { operand, whens, otherwise }
            }
            E::Function(f) => self.function(f)?,
            E::Extract { field, expr, .. } => {
                let unit = date_time_unit(field)?;
                Expr::Func(Func::Time(TimeFn::Extract(unit)), vec![self.expr(expr)?])
            }
            // `DATE 'x'`, `TIME 'x'`, `TIMESTAMP 'x'` (mysqld's temporal literals: a DATETIME for
            // TIMESTAMP, the fraction's digits as fsp) read as the CAST of the text, checked
            // when bound (1525 for an invalid one: `temporal::literal`).
            E::TypedString(ts) => {
                let text = match &ts.value.value {
                    sp::Value::SingleQuotedString(t) | sp::Value::DoubleQuotedString(t) => t,
                    _ => return Err(unsupported(e.to_string())),
                };
                let fsp = text.trim().rsplit_once('.').map_or(0, |(_, f)| {
                    f.bytes().take_while(u8::is_ascii_digit).count().min(6) as u8
                });
                let to = match ts.data_type {
                    sp::DataType::Date => CastTo::Date,
                    sp::DataType::Time(..) => CastTo::Time(fsp),
                    sp::DataType::Timestamp(..) | sp::DataType::Datetime(_) => {
                        CastTo::DateTime(fsp)
                    }
                    _ => return Err(unsupported(e.to_string())),
                };
                let text = Expr::Lit(Value::Bytes(text.clone().into_bytes()));
                Expr::Func(Func::Time(TimeFn::Literal(to)), vec![text])
            }
            // CAST/CONVERT to a number (`eval/castnum.rs`): the argument is in numeric
            // context, so a hex literal is its integer (`CAST(X'41' AS UNSIGNED)` is 65).
            E::Cast { expr, data_type, format: None, .. }
            | E::Convert { expr, data_type: Some(data_type), charset: None, .. }
                if CastNum::from_sql(data_type, &expr.to_string())?.is_some() =>
            {
                let to =
                    CastNum::from_sql(data_type, &expr.to_string())?.unwrap_or(CastNum::Double);
                Expr::Func(Func::CastNum(to), vec![self.numeric_operand(expr)?])
            }
            E::Cast { expr, data_type, .. } if temporal_cast_target(data_type)?.is_some() => {
                let to = temporal_cast_target(data_type)?.unwrap_or(CastTo::Date);
                Expr::Func(Func::Time(TimeFn::Cast(to)), vec![self.expr(expr)?])
            }
            E::Convert { expr, data_type: Some(data_type), charset: None, .. }
                if temporal_cast_target(data_type)?.is_some() =>
            {
                let to = temporal_cast_target(data_type)?.unwrap_or(CastTo::Date);
                Expr::Func(Func::Time(TimeFn::Cast(to)), vec![self.expr(expr)?])
            }
            // CONVERT(x USING cs), CONVERT(x, CHAR[(n)] CHARACTER SET cs) (charset_exprs.rs).
            E::Convert { expr, data_type, charset: Some(cs), .. } => {
                let to = crate::eval::collate::charset_by_name(&cs.to_string())?;
                let mut x = self.expr(expr)?;
                if let Some(bf) = data_type.as_ref().and_then(cast_target) {
                    x = Expr::Func(Func::Bytes(bf), vec![x]);
                }
                Expr::Func(Func::Bytes(BytesFunc::Convert(None, to)), vec![x])
            }
            E::Convert { expr, data_type: Some(data_type), charset: None, .. }
                if cast_target(data_type).is_some() =>
            {
                let x = self.expr(expr)?;
                match cast_target(data_type) {
                    Some(bf) => Expr::Func(Func::Bytes(bf), vec![x]),
                    None => return Err(unsupported(format!("CONVERT to {data_type}"))),
                }
            }
            E::Cast { expr, data_type, format: None, .. } => {
                let x = self.expr(expr)?;
                match cast_target(data_type) {
                    Some(bf) => Expr::Func(Func::Bytes(bf), vec![x]),
                    None => return Err(unsupported(format!("CAST AS {data_type}"))),
                }
            }
            E::Subquery(q) => self.subquery(SubqueryKind::Scalar, Vec::new(), q)?,
            E::Exists { subquery, negated } => {
                let x = self.subquery(SubqueryKind::Exists, Vec::new(), subquery)?;
                negate_if(x, *negated)
            }
            E::InSubquery { expr, subquery, negated } => {
                let left = self.row_items(expr, None)?;
                let x = self.subquery(SubqueryKind::In, left, subquery)?;
                negate_if(x, *negated)
            }
            E::AnyOp { left, compare_op, right, .. } | E::AllOp { left, compare_op, right } => {
                let all = matches!(e, E::AllOp { .. });
                let op = binary_op(compare_op)?;
                if !matches!(
                    op,
                    BinOp::Eq | BinOp::NotEq | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
                ) {
                    return Err(SqlError::near(&e.to_string()));
                }
                let q = match right.as_ref() {
                    E::Subquery(q) => q,
                    E::Nested(x) => match x.as_ref() {
                        E::Subquery(q) => q,
                        _ => return Err(SqlError::near(&right.to_string())),
                    },
                    _ => return Err(SqlError::near(&right.to_string())),
                };
                let left = self.row_items(left, None)?;
                let kind = if all { SubqueryKind::All(op) } else { SubqueryKind::Any(op) };
                self.subquery(kind, left, q)?
            }
            other => return Err(unsupported(other.to_string())),
        })
    }

    #[inline(never)]
    fn value(&mut self, v: &sp::Value) -> Result<Expr> {
        use sp::Value as V;
        Ok(Expr::Lit(match v {
            V::Number(n, _) => number(n)?,
            V::SingleQuotedString(s) | V::DoubleQuotedString(s) => {
                Value::Bytes(s.clone().into_bytes())
            }
            V::HexStringLiteral(h) => {
                Value::Bytes(hex(h).ok_or_else(|| SqlError::near(&format!("X'{h}'")))?)
            }
            V::SingleQuotedByteStringLiteral(b) => {
                Value::Bytes(bit_literal(b).ok_or_else(|| SqlError::near(&format!("b'{b}'")))?)
            }
            V::Boolean(b) => Value::Int(i64::from(*b)),
            V::Null => Value::Null,
            V::Placeholder(p) if p == "?" => {
                self.params += 1;
                return Ok(Expr::Param(self.params - 1));
            }
            other => return Err(unsupported(other.to_string())),
        }))
    }

    /// `x + INTERVAL n unit`, `INTERVAL n unit + x`, `x - INTERVAL n unit`.
    #[inline(never)]
    fn interval_op(
        &mut self,
        left: &sp::Expr,
        op: &sp::BinaryOperator,
        right: &sp::Expr,
    ) -> Result<Expr> {
        let (base, iv, sub) = match (left, op, right) {
            (x, sp::BinaryOperator::Plus, sp::Expr::Interval(iv)) => (x, iv, false),
            (sp::Expr::Interval(iv), sp::BinaryOperator::Plus, x) => (x, iv, false),
            (x, sp::BinaryOperator::Minus, sp::Expr::Interval(iv)) => (x, iv, true),
            _ => return Err(SqlError::near("INTERVAL")),
        };
        let unit = interval_unit(iv)?;
        let base = self.expr(base)?;
        let amount = self.expr(&iv.value)?;
        Ok(Expr::Func(Func::Time(TimeFn::AddInterval { unit, sub }), vec![base, amount]))
    }

    /// The date and time functions whose arguments are not plain expressions (an INTERVAL,
    /// a unit name); None for every other function.
    fn temporal_special(&mut self, name: &str, args: &[&sp::FunctionArg]) -> Result<Option<Expr>> {
        let plain = |a: &sp::FunctionArg| match a {
            sp::FunctionArg::Unnamed(sp::FunctionArgExpr::Expr(e)) => Some(e.clone()),
            _ => None,
        };
        let exprs: Vec<sp::Expr> = args.iter().filter_map(|a| plain(a)).collect();
        if exprs.len() != args.len() {
            return Ok(None);
        }
        let f = match name {
            "date_add" | "adddate" | "date_sub" | "subdate" => {
                let sub = name.contains("sub");
                let [base, amount] = exprs.as_slice() else {
                    return Err(SqlError::FunctionArgs(name.into()));
                };
                let (unit, amount) = match amount {
                    sp::Expr::Interval(iv) => (interval_unit(iv)?, iv.value.as_ref().clone()),
                    // ADDDATE(d, n): n days.
                    other if name.ends_with("date") => (Unit::Day, other.clone()),
                    _ => return Err(SqlError::near(&amount.to_string())),
                };
                let (b, a) = (self.expr(base)?, self.expr(&amount)?);
                return Ok(Some(Expr::Func(
                    Func::Time(TimeFn::AddInterval { unit, sub }),
                    vec![b, a],
                )));
            }
            "timestampdiff" | "timestampadd" => {
                let [unit, x, y] = exprs.as_slice() else {
                    return Err(SqlError::FunctionArgs(name.into()));
                };
                let unit = match unit {
                    sp::Expr::Identifier(i) => Unit::from_name(&i.value),
                    _ => None,
                }
                .filter(|u| !u.has_micros() || *u == Unit::Microsecond)
                .ok_or_else(|| SqlError::near(&unit.to_string()))?;
                let f = if name == "timestampdiff" {
                    TimeFn::TimestampDiff(unit)
                } else {
                    TimeFn::TimestampAdd(unit)
                };
                (f, vec![self.expr(x)?, self.expr(y)?])
            }
            _ => return Ok(None),
        };
        Ok(Some(Expr::Func(Func::Time(f.0), f.1)))
    }

    #[inline(never)]
    /// A function's arguments when each must be a plain expression (no `*`, no named
    /// argument): 1582 otherwise.
    fn plain_args(&mut self, args: &[&sp::FunctionArg], name: &str) -> Result<Vec<Expr>> {
        let mut xs = Vec::with_capacity(args.len());
        for a in args {
            match a {
                sp::FunctionArg::Unnamed(sp::FunctionArgExpr::Expr(e)) => xs.push(self.expr(e)?),
                _ => return Err(SqlError::FunctionArgs(name.to_string())),
            }
        }
        Ok(xs)
    }

    fn function(&mut self, f: &sp::Function) -> Result<Expr> {
        let name = last_part(&f.name)?.to_ascii_lowercase();
        if name == "group_concat" {
            return self.group_concat(f);
        }
        if let Some(unit) = name.strip_prefix(super::timefn::EXTRACT_CALL) {
            // EXTRACT(compound_unit FROM e), respelled by `timefn::spell_compound_units`.
            let unit = Unit::from_name(unit).ok_or_else(|| SqlError::near(&name))?;
            let arg = match &f.args {
                sp::FunctionArguments::List(l) if l.args.len() == 1 => match &l.args[0] {
                    sp::FunctionArg::Unnamed(sp::FunctionArgExpr::Expr(e)) => self.expr(e)?,
                    _ => return Err(SqlError::near(&name)),
                },
                _ => return Err(SqlError::near(&name)),
            };
            return Ok(Expr::Func(Func::Time(TimeFn::Extract(unit)), vec![arg]));
        }
        let (args, distinct): (Vec<&sp::FunctionArg>, bool) = match &f.args {
            sp::FunctionArguments::None => (Vec::new(), false),
            sp::FunctionArguments::List(l) => {
                if !l.clauses.is_empty() {
                    return Err(unsupported(format!("{name}(... clauses)")));
                }
                (
                    l.args.iter().collect(),
                    l.duplicate_treatment == Some(sp::DuplicateTreatment::Distinct),
                )
            }
            sp::FunctionArguments::Subquery(_) => return Err(unsupported("subqueries")),
        };
        if f.over.is_some() && f.filter.is_none() {
            return self.window_call(&name, f, &args, distinct);
        }
        if f.filter.is_some() || f.over.is_some() {
            return Err(unsupported("window functions"));
        }
        if name == "grouping" {
            let xs = self.plain_args(&args, &name)?;
            if xs.is_empty() || distinct {
                return Err(SqlError::FunctionArgs(name));
            }
            return Ok(Expr::Grouping(xs));
        }
        let agg = match name.as_str() {
            "count" => Some(AggKind::Count),
            "sum" => Some(AggKind::Sum),
            "min" => Some(AggKind::Min),
            "max" => Some(AggKind::Max),
            "avg" => Some(AggKind::Avg),
            _ => AggKind::by_name(&name),
        };
        if name == "json_arrayagg" || name == "json_objectagg" {
            let mut xs = self.plain_args(&args, &name)?;
            let want = if name == "json_arrayagg" { 1 } else { 2 };
            if distinct {
                return Err(SqlError::near("DISTINCT"));
            }
            if xs.len() != want {
                return Err(SqlError::FunctionArgs(name));
            }
            let (kind, arg) = if want == 1 {
                (AggKind::JsonArrayAgg, xs.remove(0))
            } else {
                (
                    AggKind::JsonObjectAgg,
                    Expr::Func(Func::Bytes(crate::ast::BytesFunc::JsonArray), xs),
                )
            };
            return Ok(Expr::AggCall { kind, distinct: false, arg: Some(Box::new(arg)) });
        }
        if let Some(kind) = agg {
            let arg = match args.as_slice() {
                [sp::FunctionArg::Unnamed(sp::FunctionArgExpr::Wildcard)]
                    if kind == AggKind::Count =>
                {
                    None
                }
                [sp::FunctionArg::Unnamed(sp::FunctionArgExpr::Expr(e))] => {
                    Some(Box::new(self.expr(e)?))
                }
                _ => return Err(SqlError::FunctionArgs(name)),
            };
            return Ok(Expr::AggCall { kind, distinct, arg });
        }
        if let Some(e) = self.temporal_special(&name, &args)? {
            return Ok(e);
        }
        // A hex or bit literal is a binary string, whose case mysqld's LOWER/UPPER leave as
        // they are (`my_charset_bin`'s casedn/caseup copy the bytes; manual: "LOWER() (and
        // UPPER()) are ineffective when applied to binary strings"): LOWER(0x41) is 'A'.
        if matches!(name.as_str(), "lower" | "lcase" | "upper" | "ucase") {
            if let [sp::FunctionArg::Unnamed(sp::FunctionArgExpr::Expr(e))] = args.as_slice() {
                if hex_numbers::numeric(e).is_some() {
                    return self.expr(e);
                }
            }
        }
        let mut xs = Vec::with_capacity(args.len());
        // A numeric function reads a hex or bit literal as its integer (`BIT_COUNT(0x41)`,
        // `ABS(0x41)` is 65: `Item_hex_string::val_int`); CRC32 hashes the string.
        let numeric = matches!(
            name.as_str(),
            "abs"
                | "floor"
                | "ceil"
                | "ceiling"
                | "round"
                | "pow"
                | "power"
                | "space"
                | "inet_ntoa"
                | "from_unixtime"
                | "sec_to_time"
                | "from_days"
        ) || crate::eval::mathfn::MathFn::by_name(&name).is_some_and(|(m, ..)| {
            use crate::eval::mathfn::MathFn as M;
            !matches!(m, M::Greatest | M::Least | M::Crc32)
        });
        for (i, a) in args.iter().enumerate() {
            // FROM_UNIXTIME's second argument is a format string.
            let numeric = numeric && !(i > 0 && name == "from_unixtime");
            match a {
                sp::FunctionArg::Unnamed(sp::FunctionArgExpr::Expr(e)) if numeric => {
                    xs.push(self.numeric_operand(e)?)
                }
                sp::FunctionArg::Unnamed(sp::FunctionArgExpr::Expr(e)) => xs.push(self.expr(e)?),
                _ => return Err(SqlError::FunctionArgs(name)),
            }
        }
        if let Some((sf, min, max)) = StrFn::by_name(&name) {
            if xs.len() < min || xs.len() > max {
                return Err(SqlError::FunctionArgs(name));
            }
            return Ok(Expr::Str(sf, xs));
        }
        if let Some((bf, min, max)) = crate::eval::json_funcs::lookup(&name) {
            if xs.len() < min || xs.len() > max || !crate::eval::json_funcs::arity_ok(bf, xs.len())
            {
                return Err(SqlError::FunctionArgs(name));
            }
            return Ok(Expr::Func(Func::Bytes(bf), xs));
        }
        if let Some((mf, min, max)) = crate::eval::mathfn::MathFn::by_name(&name) {
            if xs.len() < min || xs.len() > max {
                return Err(SqlError::FunctionArgs(name));
            }
            return Ok(Expr::Func(Func::Math(mf), xs));
        }
        if let Some((mf, min, max)) = crate::eval::morefn::MoreFn::by_name(&name) {
            if xs.len() < min || xs.len() > max {
                return Err(SqlError::FunctionArgs(name));
            }
            return Ok(Expr::Func(Func::More(mf), xs));
        }
        if name == "get_format" {
            // GET_FORMAT(DATE|TIME|DATETIME|TIMESTAMP, format): the type is a keyword.
            let kind = match xs.first() {
                Some(Expr::Name { table: None, column }) => column.to_ascii_uppercase(),
                _ => String::new(),
            };
            if xs.len() != 2 || !matches!(kind.as_str(), "DATE" | "TIME" | "DATETIME" | "TIMESTAMP")
            {
                return Err(SqlError::near(&name));
            }
            xs[0] = Expr::Lit(Value::Bytes(kind.into_bytes()));
        }
        if let Some((mf, min, max)) = crate::ast::MiscFn::by_name(&name) {
            if xs.len() < min || xs.len() > max {
                return Err(SqlError::FunctionArgs(name));
            }
            return Ok(Expr::Func(Func::Misc(mf), xs));
        }
        if let Some((jf, min, max)) = crate::ast::JsonFn::by_name(&name) {
            if xs.len() < min || xs.len() > max || !jf.arity_ok(xs.len()) {
                return Err(SqlError::FunctionArgs(name));
            }
            return Ok(Expr::Func(Func::Json(jf), xs));
        }
        if let Some((rf, min, max)) = crate::ast::RegexFn::by_name(&name) {
            if xs.len() < min || xs.len() > max {
                return Err(SqlError::FunctionArgs(name));
            }
            return Ok(Expr::Func(Func::Regex(rf), xs));
        }
        if let Some((tf, min, max)) = time_function(&name) {
            if xs.len() < min || xs.len() > max {
                return Err(SqlError::FunctionArgs(name));
            }
            return Ok(Expr::Func(Func::Time(tf), xs));
        }
        let (func, min, max) = match name.as_str() {
            "database" | "schema" => (Func::Database, 0, 0),
            "version" => (Func::Version, 0, 0),
            "connection_id" => (Func::ConnectionId, 0, 0),
            "last_insert_id" => (Func::LastInsertId, 0, 0),
            "user" | "session_user" | "system_user" => (Func::User, 0, 0),
            "current_user" => (Func::CurrentUser, 0, 0),
            "concat" => (Func::Concat, 1, usize::MAX),
            "length" | "octet_length" => (Func::Length, 1, 1),
            "char_length" | "character_length" => (Func::CharLength, 1, 1),
            "upper" | "ucase" => (Func::Upper, 1, 1),
            "lower" | "lcase" => (Func::Lower, 1, 1),
            "abs" => (Func::Abs, 1, 1),
            "coalesce" => (Func::Coalesce, 1, usize::MAX),
            "ifnull" => (Func::IfNull, 2, 2),
            "if" => (Func::If, 3, 3),
            "floor" => (Func::Floor, 1, 1),
            "pow" | "power" => (Func::Power, 2, 2),
            "ceil" | "ceiling" => (Func::Ceil, 1, 1),
            "round" => (Func::Round, 1, 2),
            "gtid_subset" => (Func::GtidSubset, 2, 2),
            "gtid_subtract" => (Func::GtidSubtract, 2, 2),
            "wait_for_executed_gtid_set" => (Func::WaitForExecutedGtidSet, 1, 2),
            "values" if xs.len() == 1 => return Ok(Expr::InsertValue(Box::new(xs.remove(0)))),
            _ => return Err(SqlError::NoSuchFunction(name)),
        };
        if xs.len() < min || xs.len() > max {
            return Err(SqlError::FunctionArgs(name));
        }
        // NOW(fsp): the precision argument only shapes the display.
        if func == Func::Now {
            xs.clear();
        }
        Ok(Expr::Func(func, xs))
    }
}

impl Front<'_> {
    /// `GROUP_CONCAT([DISTINCT] expr [, expr ...] [ORDER BY ...] [SEPARATOR 'sep'])`.
    fn group_concat(&mut self, f: &sp::Function) -> Result<Expr> {
        let sp::FunctionArguments::List(l) = &f.args else {
            return Err(SqlError::FunctionArgs("group_concat".into()));
        };
        let distinct = l.duplicate_treatment == Some(sp::DuplicateTreatment::Distinct);
        let mut args = Vec::with_capacity(l.args.len());
        for a in &l.args {
            match a {
                sp::FunctionArg::Unnamed(sp::FunctionArgExpr::Expr(e)) => args.push(self.expr(e)?),
                _ => return Err(SqlError::FunctionArgs("group_concat".into())),
            }
        }
        if args.is_empty() {
            return Err(SqlError::FunctionArgs("group_concat".into()));
        }
        let mut order = Vec::new();
        let mut separator = b",".to_vec();
        for c in &l.clauses {
            match c {
                sp::FunctionArgumentClause::OrderBy(o) => order = self.order_items(o)?,
                sp::FunctionArgumentClause::Separator(v) => match v {
                    sp::Value::SingleQuotedString(t) | sp::Value::DoubleQuotedString(t) => {
                        separator = t.clone().into_bytes()
                    }
                    other => return Err(SqlError::near(&other.to_string())),
                },
                other => return Err(unsupported(format!("GROUP_CONCAT ... {other}"))),
            }
        }
        Ok(Expr::GroupConcat(Box::new(GroupConcat { distinct, args, order, separator })))
    }
}

/// The date and time functions with plain arguments: (function, min args, max args).
fn time_function(name: &str) -> Option<(TimeFn, usize, usize)> {
    use TimeFn as T;
    Some(match name {
        "now" | "current_timestamp" | "localtime" | "localtimestamp" => (T::Now, 0, 1),
        "sysdate" => (T::SysDate, 0, 1),
        "curdate" | "current_date" => (T::CurDate, 0, 0),
        "curtime" | "current_time" => (T::CurTime, 0, 1),
        "utc_timestamp" => (T::UtcTimestamp, 0, 1),
        "utc_date" => (T::UtcDate, 0, 0),
        "utc_time" => (T::UtcTime, 0, 1),
        "date_format" => (T::DateFormat, 2, 2),
        "time_format" => (T::TimeFormat, 2, 2),
        "str_to_date" => (T::StrToDate, 2, 2),
        "datediff" => (T::DateDiff, 2, 2),
        "timediff" => (T::TimeDiff, 2, 2),
        "year" => (T::Year, 1, 1),
        "month" => (T::Month, 1, 1),
        "day" | "dayofmonth" => (T::Day, 1, 1),
        "hour" => (T::Hour, 1, 1),
        "minute" => (T::Minute, 1, 1),
        "second" => (T::Second, 1, 1),
        "microsecond" => (T::Microsecond, 1, 1),
        "dayofweek" => (T::DayOfWeek, 1, 1),
        "dayofyear" => (T::DayOfYear, 1, 1),
        "weekday" => (T::WeekDay, 1, 1),
        "week" => (T::Week, 1, 2),
        "weekofyear" => (T::WeekOfYear, 1, 1),
        "yearweek" => (T::YearWeek, 1, 2),
        "quarter" => (T::Quarter, 1, 1),
        "dayname" => (T::DayName, 1, 1),
        "monthname" => (T::MonthName, 1, 1),
        "last_day" => (T::LastDay, 1, 1),
        "makedate" => (T::MakeDate, 2, 2),
        "maketime" => (T::MakeTime, 3, 3),
        "date" => (T::Date, 1, 1),
        "time" => (T::Time, 1, 1),
        "unix_timestamp" => (T::UnixTimestamp, 0, 1),
        "from_unixtime" => (T::FromUnixtime, 1, 2),
        "convert_tz" => (T::ConvertTz, 3, 3),
        "to_days" => (T::ToDays, 1, 1),
        "from_days" => (T::FromDays, 1, 1),
        "time_to_sec" => (T::TimeToSec, 1, 1),
        "sec_to_time" => (T::SecToTime, 1, 1),
        "addtime" => (T::AddTime, 2, 2),
        "subtime" => (T::SubTime, 2, 2),
        _ => return None,
    })
}

/// The unit of an `INTERVAL` as sqlparser reads it (`DAY`, or `DAY TO SECOND` for the
/// compound units).
fn interval_unit(iv: &sp::Interval) -> Result<Unit> {
    let name = |f: &sp::DateTimeField| f.to_string().to_ascii_uppercase();
    let text = match (&iv.leading_field, &iv.last_field) {
        (Some(a), Some(b)) => format!("{}_{}", name(a), name(b)),
        (Some(a), None) => name(a),
        _ => String::new(),
    };
    let text = text.trim_end_matches('S').to_string();
    Unit::from_name(&text).ok_or_else(|| SqlError::near(&text))
}

/// The `COMMENT 'text'` among an index's options (the last one given; empty: none).
fn index_comment(options: &[sp::IndexOption]) -> String {
    options
        .iter()
        .rev()
        .find_map(|o| match o {
            sp::IndexOption::Comment(c) => Some(c.clone()),
            _ => None,
        })
        .unwrap_or_default()
}

/// An `EXTRACT` field as a unit.
fn date_time_unit(f: &sp::DateTimeField) -> Result<Unit> {
    let text = f.to_string().to_ascii_uppercase();
    Unit::from_name(text.trim_end_matches('S')).ok_or_else(|| SqlError::near(&text))
}

/// The temporal target of a CAST / CONVERT, None for other targets.
fn temporal_cast_target(t: &sp::DataType) -> Result<Option<CastTo>> {
    use sp::DataType as D;
    Ok(Some(match t {
        D::Date => CastTo::Date,
        D::Time(p, _) => CastTo::Time(fsp_of(*p)?),
        D::Datetime(p) => CastTo::DateTime(fsp_of(*p)?),
        D::Custom(n, _) if n.to_string().eq_ignore_ascii_case("year") => CastTo::Year,
        _ => return Ok(None),
    }))
}

/// A declared fractional-seconds precision (1426 above 6).
fn fsp_of(p: Option<u64>) -> Result<u8> {
    match p {
        None => Ok(0),
        Some(p @ 0..=6) => Ok(p as u8),
        Some(p) => Err(SqlError::Other {
            code: 1426,
            sqlstate: "42000",
            message: format!("Too-big precision {p} specified for 'column'. Maximum is 6."),
        }),
    }
}

/// `CURRENT_TIMESTAMP[(fsp)]`, `NOW([fsp])`, `LOCALTIME[STAMP][(fsp)]` as a DEFAULT or ON
/// UPDATE value: its fsp.
fn current_timestamp_fsp(e: &sp::Expr) -> Option<u8> {
    let is_now = |n: &str| {
        matches!(
            n.to_ascii_lowercase().as_str(),
            "current_timestamp" | "now" | "localtime" | "localtimestamp"
        )
    };
    match e {
        sp::Expr::Identifier(i) if is_now(&i.value) => Some(0),
        sp::Expr::Function(f) if is_now(&f.name.to_string()) => match &f.args {
            sp::FunctionArguments::None => Some(0),
            sp::FunctionArguments::List(l) => match l.args.as_slice() {
                [] => Some(0),
                [sp::FunctionArg::Unnamed(sp::FunctionArgExpr::Expr(sp::Expr::Value(v)))] => {
                    match &v.value {
                        sp::Value::Number(n, _) => n.parse::<u8>().ok(),
                        _ => None,
                    }
                }
                _ => None,
            },
            _ => None,
        },
        sp::Expr::Nested(x) => current_timestamp_fsp(x),
        _ => None,
    }
}

/// The end of a parenthesized argument list starting at `from` (quotes respected); `from`
/// itself if no `(` follows.
/// mysqld names an expression by at most this many characters of its text (`NAME_CHAR_LEN`
/// × ... : `Item::set_name` truncates to MAX_ALIAS_NAME, 256).
const MAX_LABEL_CHARS: usize = 256;

/// The text of each item of the select list that starts at the SELECT keyword at `select`:
/// the tokens between SELECT (and its modifiers) and the end of the list, split at commas
/// outside parentheses, each item's text from its first token to its last (an alias
/// included; callers use it only for unaliased items). `None` if the list cannot be found.
///
/// Why the tokens and not sqlparser's expression spans: those are incomplete (a function's
/// span stops before its closing parenthesis, `-5`'s and `x IS NULL`'s miss a token).
fn projection_texts(sql: &str, select: Location) -> Option<Vec<String>> {
    use sqlparser::tokenizer::Tokenizer;
    let tokens = Tokenizer::new(&MySqlDialect {}, sql).tokenize_with_location().ok()?;
    let start = tokens.iter().position(|t| t.span.start == select)?;
    let mut items = Vec::new();
    let (mut depth, mut first, mut last) = (0usize, None::<usize>, None::<usize>);
    let mut modifiers = true;
    let push = |items: &mut Vec<String>, first: Option<usize>, last: Option<usize>| {
        let (Some(a), Some(b)) = (first, last) else { return };
        let a = offset_of(sql, tokens[a].span.start);
        let b = offset_of(sql, tokens[b].span.end);
        if let (Some(a), Some(b)) = (a, b) {
            if a <= b && b <= sql.len() {
                items.push(sql[a..b].to_string());
            }
        }
    };
    for (i, t) in tokens.iter().enumerate().skip(start + 1) {
        match &t.token {
            Token::Whitespace(_) => continue,
            Token::Word(w) if modifiers && is_select_modifier(&w.value) => continue,
            _ => modifiers = false,
        }
        match &t.token {
            Token::LParen => depth += 1,
            Token::RParen => depth = depth.saturating_sub(1),
            Token::Comma if depth == 0 => {
                push(&mut items, first, last);
                (first, last) = (None, None);
                continue;
            }
            Token::SemiColon | Token::EOF if depth == 0 => break,
            Token::Word(w)
                if depth == 0 && w.quote_style.is_none() && ends_select_list(&w.value) =>
            {
                break
            }
            _ => {}
        }
        first = first.or(Some(i));
        last = Some(i);
    }
    push(&mut items, first, last);
    Some(items)
}

fn is_select_modifier(word: &str) -> bool {
    [
        "ALL",
        "DISTINCT",
        "DISTINCTROW",
        "HIGH_PRIORITY",
        "STRAIGHT_JOIN",
        "SQL_SMALL_RESULT",
        "SQL_BIG_RESULT",
        "SQL_BUFFER_RESULT",
        "SQL_NO_CACHE",
        "SQL_CACHE",
        "SQL_CALC_FOUND_ROWS",
    ]
    .iter()
    .any(|m| m.eq_ignore_ascii_case(word))
}

fn ends_select_list(word: &str) -> bool {
    [
        "FROM",
        "INTO",
        "WHERE",
        "GROUP",
        "HAVING",
        "ORDER",
        "LIMIT",
        "WINDOW",
        "FOR",
        "LOCK",
        "UNION",
        "INTERSECT",
        "EXCEPT",
    ]
    .iter()
    .any(|m| m.eq_ignore_ascii_case(word))
}

/// `global` / `session` / `local` prefixes of `@@scope.name`; returns the rest otherwise.
fn sysvar_scope(v: &str) -> (Option<VarScope>, &str) {
    if v.eq_ignore_ascii_case("global") {
        (Some(VarScope::Global), "")
    } else if v.eq_ignore_ascii_case("session") || v.eq_ignore_ascii_case("local") {
        (Some(VarScope::Session), "")
    } else {
        (None, v)
    }
}

/// `-a ^ b` and `~a ^ b` as `(-a) ^ b`: in mysqld's grammar unary minus and `~` bind tighter
/// than `^` (manual 15.4.1 "Operator Precedence"; `-2 ^ 0` is 18446744073709551614), while
/// sqlparser reads the operand of a unary minus up to `^`. The rebuilt tree when `expr` is
/// such an XOR (not parenthesized), else `None`; a chain `-a ^ b ^ c` unwinds as the
/// converter recurses into the new left operand.
#[inline(never)]
fn xor_under_unary(op: &sp::UnaryOperator, expr: &sp::Expr) -> Option<sp::Expr> {
    if !matches!(op, sp::UnaryOperator::Minus | sp::UnaryOperator::PGBitwiseNot) {
        return None;
    }
    let sp::Expr::BinaryOp { left, op: xor @ sp::BinaryOperator::BitwiseXor, right } = expr else {
        return None;
    };
    let inner = sp::Expr::UnaryOp { op: *op, expr: left.clone() };
    Some(sp::Expr::BinaryOp { left: Box::new(inner), op: xor.clone(), right: right.clone() })
}

/// The unary operator `op` over the converted operand `x` (out of line: see `Front::expr`).
#[inline(never)]
fn unary(op: &sp::UnaryOperator, x: Expr) -> Result<Expr> {
    Ok(match op {
        sp::UnaryOperator::Plus => x,
        sp::UnaryOperator::Minus => match x {
            // Fold literals so `-5` is a constant for key lookups.
            Expr::Lit(Value::Int(i)) => Expr::Lit(Value::Int(-i)),
            Expr::Lit(Value::UInt(u)) if u == 1u64 << 63 => Expr::Lit(Value::Int(i64::MIN)),
            // Below BIGINT's range a negated literal is DECIMAL (mysqld's `Item_uint::neg`).
            Expr::Lit(Value::UInt(u)) => Expr::Lit(Value::Decimal(Decimal::new(-i128::from(u), 0))),
            Expr::Lit(Value::Decimal(d)) => Expr::Lit(Value::Decimal(-d)),
            Expr::Lit(Value::Double(d)) => Expr::Lit(Value::Double(-d)),
            x => Expr::Unary(UnOp::Neg, Box::new(x)),
        },
        sp::UnaryOperator::Not | sp::UnaryOperator::BangNot => Expr::Unary(UnOp::Not, Box::new(x)),
        sp::UnaryOperator::PGBitwiseNot => {
            Expr::Func(Func::Math(crate::eval::mathfn::MathFn::BitNot), vec![x])
        }
        other => return Err(unsupported(format!("operator {other}"))),
    })
}

/// The binary operators binlogd evaluates (out of line: see `Front::expr`).
#[inline(never)]
fn binary_op(op: &sp::BinaryOperator) -> Result<BinOp> {
    use sp::BinaryOperator as B;
    Ok(match op {
        B::Plus => BinOp::Add,
        B::Minus => BinOp::Sub,
        B::Multiply => BinOp::Mul,
        B::Divide => BinOp::Div,
        B::MyIntegerDivide | B::DuckIntegerDivide => BinOp::IntDiv,
        B::Modulo => BinOp::Mod,
        B::Eq => BinOp::Eq,
        B::Spaceship => BinOp::NullSafeEq,
        B::NotEq => BinOp::NotEq,
        B::Lt => BinOp::Lt,
        B::LtEq => BinOp::Le,
        B::Gt => BinOp::Gt,
        B::GtEq => BinOp::Ge,
        B::And => BinOp::And,
        B::Or => BinOp::Or,
        B::Xor => BinOp::Xor,
        other => return Err(unsupported(format!("operator {other}"))),
    })
}

fn ident_expr(id: &sp::Ident, table: Option<String>) -> Expr {
    if id.quote_style.is_none() {
        if let Some(v) = id.value.strip_prefix("@@") {
            return Expr::SysVar { scope: VarScope::Default, name: v.to_ascii_lowercase() };
        }
        if let Some(u) = id.value.strip_prefix('@') {
            return Expr::UserVar(u.to_ascii_lowercase());
        }
        // CURRENT_TIMESTAMP and friends without parentheses.
        match id.value.to_ascii_lowercase().as_str() {
            "current_timestamp" | "localtime" | "localtimestamp" => {
                return Expr::Func(Func::Time(super::timefn::TimeFn::Now), vec![])
            }
            "current_date" => {
                return Expr::Func(Func::Time(super::timefn::TimeFn::CurDate), vec![])
            }
            "current_time" => {
                return Expr::Func(Func::Time(super::timefn::TimeFn::CurTime), vec![])
            }
            "utc_timestamp" => {
                return Expr::Func(Func::Time(super::timefn::TimeFn::UtcTimestamp), vec![])
            }
            "utc_date" => return Expr::Func(Func::Time(super::timefn::TimeFn::UtcDate), vec![]),
            "utc_time" => return Expr::Func(Func::Time(super::timefn::TimeFn::UtcTime), vec![]),
            "current_user" => return Expr::Func(Func::CurrentUser, vec![]),
            _ => {}
        }
    }
    Expr::Name { table, column: id.value.clone() }
}

fn number(n: &str) -> Result<Value> {
    if n.contains(['e', 'E']) {
        return n.parse().map(Value::Double).map_err(|_| SqlError::near(n));
    }
    if n.contains('.') {
        return literal_decimal(n);
    }
    if let Ok(i) = n.parse::<i64>() {
        return Ok(Value::Int(i));
    }
    if let Ok(u) = n.parse::<u64>() {
        return Ok(Value::UInt(u));
    }
    // Beyond BIGINT UNSIGNED an integer literal is DECIMAL (mysqld's `int_token` answers
    // DECIMAL_NUM).
    literal_decimal(n)
}

/// A DECIMAL literal (mysqld's `Item_decimal`, which keeps every digit its 81-digit buffer
/// holds, even beyond DECIMAL(65)); beyond the 76 digits a 256-bit mantissa holds, the
/// DOUBLE it reads as.
fn literal_decimal(n: &str) -> Result<Value> {
    match Decimal::parse(n) {
        Some(d) => Ok(Value::Decimal(d)),
        None => n.parse().map(Value::Double).map_err(|_| SqlError::near(n)),
    }
}

fn hex(h: &str) -> Option<Vec<u8>> {
    if !h.len().is_multiple_of(2) {
        return None;
    }
    (0..h.len()).step_by(2).map(|i| u8::from_str_radix(h.get(i..i + 2)?, 16).ok()).collect()
}

/// 1241 `Operand should contain n column(s)`.
fn operand_columns(want: usize, _got: usize) -> SqlError {
    SqlError::Other {
        code: 1241,
        sqlstate: "21000",
        message: format!("Operand should contain {want} column(s)"),
    }
}

/// `terms` joined by `op` as a balanced tree (depth log2(n)), None when empty.
fn balanced(mut terms: Vec<Expr>, op: BinOp) -> Option<Expr> {
    while terms.len() > 1 {
        let mut next = Vec::with_capacity(terms.len().div_ceil(2));
        let mut it = terms.into_iter();
        while let Some(a) = it.next() {
            next.push(match it.next() {
                Some(b) => Expr::Binary(op, Box::new(a), Box::new(b)),
                None => a,
            });
        }
        terms = next;
    }
    terms.pop()
}

fn last_part(n: &sp::ObjectName) -> Result<String> {
    match n.0.last() {
        Some(sp::ObjectNamePart::Identifier(i)) => Ok(i.value.clone()),
        _ => Err(SqlError::near(&n.to_string())),
    }
}

/// A key part: its column and prefix length (`KEY (c(10))`; None for the whole column).
fn index_column(c: &sp::IndexColumn) -> Result<(String, Option<u64>)> {
    match &c.column.expr {
        sp::Expr::Identifier(i) => Ok((i.value.clone(), None)),
        // sqlparser reads `c(10)` as a call; mysqld's grammar (`key_part`) allows only a
        // number there, anything else is a syntax error.
        sp::Expr::Function(f) => {
            let sp::FunctionArguments::List(l) = &f.args else {
                return Err(SqlError::near(&f.to_string()));
            };
            let len = match l.args.as_slice() {
                [sp::FunctionArg::Unnamed(sp::FunctionArgExpr::Expr(sp::Expr::Value(v)))] => {
                    match &v.value {
                        sp::Value::Number(n, _) => n.parse::<u64>().ok(),
                        _ => None,
                    }
                }
                _ => None,
            };
            let len = len.ok_or_else(|| SqlError::near(&f.to_string()))?;
            Ok((last_part(&f.name)?, Some(len)))
        }
        sp::Expr::Nested(_) => Err(unsupported("functional key parts")),
        other => Err(unsupported(format!("index on expression {other}"))),
    }
}

/// The key parts of an index: columns and prefixes (empty when none has a prefix).
fn index_columns(cols: &[sp::IndexColumn]) -> Result<(Vec<String>, Vec<Option<u64>>)> {
    let parts = cols.iter().map(index_column).collect::<Result<Vec<_>>>()?;
    let prefixes: Vec<Option<u64>> = if parts.iter().any(|(_, p)| p.is_some()) {
        parts.iter().map(|(_, p)| *p).collect()
    } else {
        Vec::new()
    };
    Ok((parts.into_iter().map(|(c, _)| c).collect(), prefixes))
}

/// The columns of a PRIMARY KEY: InnoDB's prefix primary key is not built (its uniqueness
/// would be the prefix's), so a prefix is refused rather than indexing the whole column.
fn primary_key_columns(cols: &[sp::IndexColumn]) -> Result<Vec<String>> {
    let (columns, prefixes) = index_columns(cols)?;
    if !prefixes.is_empty() {
        return Err(unsupported("prefixes in a PRIMARY KEY"));
    }
    Ok(columns)
}

/// Maps a column definition to the engine's column.
fn column_spec(c: &sp::ColumnDef) -> Result<ColumnSpec> {
    use sp::DataType as D;
    let name = c.name.value.clone();
    let int = |bytes: u8, unsigned: bool| ColumnType::Integer { bytes, unsigned };
    let chars = |l: &Option<sp::CharacterLength>, default: Option<u32>| -> Result<u32> {
        match l {
            Some(sp::CharacterLength::IntegerLength { length, .. }) => {
                u32::try_from(*length).map_err(|_| unsupported("this column length"))
            }
            Some(sp::CharacterLength::Max) => Err(unsupported("VARCHAR(MAX)")),
            None => default.ok_or_else(|| SqlError::near(")")),
        }
    };
    let decimal = |info: &sp::ExactNumberInfo| -> Result<ColumnType> {
        let (p, s) = match info {
            sp::ExactNumberInfo::None => (10, 0),
            sp::ExactNumberInfo::Precision(p) => (*p, 0),
            sp::ExactNumberInfo::PrecisionAndScale(p, s) => {
                (*p, u64::try_from(*s).unwrap_or(u64::MAX))
            }
        };
        // mysqld's checks (`Create_field::init`): 1426 beyond 65 digits, 1425 beyond a scale
        // of 30, 1427 when the scale exceeds the precision.
        let too_big =
            |code: u16, message: String| SqlError::Other { code, sqlstate: "42000", message };
        if p > 65 {
            return Err(too_big(
                1426,
                format!("Too-big precision {p} specified for '{}'. Maximum is 65.", c.name.value),
            ));
        }
        if s > 30 {
            return Err(too_big(
                1425,
                format!(
                    "Too big scale {s} specified for column '{}'. Maximum is 30.",
                    c.name.value
                ),
            ));
        }
        if s > p {
            return Err(too_big(
                1427,
                format!(
                    "For float(M,D), double(M,D) or decimal(M,D), M must be >= D (column '{}').",
                    c.name.value
                ),
            ));
        }
        if p == 0 {
            return Err(unsupported(format!("DECIMAL({p},{s})")));
        }
        Ok(ColumnType::Decimal { precision: p as u8, scale: s as u8 })
    };
    let mut serial = false;
    let ty = match &c.data_type {
        D::TinyInt(_) | D::Bool | D::Boolean => int(1, false),
        D::TinyIntUnsigned(_) | D::UTinyInt => int(1, true),
        D::SmallInt(_) | D::Int2(_) => int(2, false),
        D::SmallIntUnsigned(_) | D::Int2Unsigned(_) | D::USmallInt => int(2, true),
        D::MediumInt(_) => int(3, false),
        D::MediumIntUnsigned(_) => int(3, true),
        D::Int(_) | D::Integer(_) | D::Int4(_) => int(4, false),
        D::IntUnsigned(_) | D::IntegerUnsigned(_) | D::Int4Unsigned(_) => int(4, true),
        D::BigInt(_) | D::Int8(_) => int(8, false),
        D::BigIntUnsigned(_) | D::Int8Unsigned(_) | D::UBigInt => int(8, true),
        D::Double(_) | D::DoublePrecision | D::Float8 | D::Float64 => ColumnType::Double,
        // FLOAT(p): single precision up to 24 bits, double up to 53 (mysqld's
        // `Create_field::init`); REAL is DOUBLE unless sql_mode has REAL_AS_FLOAT.
        D::Float(sp::ExactNumberInfo::Precision(p)) if *p > 53 => {
            return Err(SqlError::Other {
                code: 1063,
                sqlstate: "42000",
                message: format!("Incorrect column specifier for column '{name}'"),
            })
        }
        D::Float(sp::ExactNumberInfo::Precision(p)) if *p > 24 => ColumnType::Double,
        D::Float(_) | D::Float4 => ColumnType::Float,
        D::Real if super::temporal::real_as_float() => ColumnType::Float,
        D::Real => ColumnType::Double,
        D::Date => ColumnType::Date,
        D::Time(p, _) => ColumnType::Time { fsp: fsp_of(*p)? },
        D::Datetime(p) => ColumnType::DateTime { fsp: fsp_of(*p)? },
        D::Timestamp(p, _) => ColumnType::Timestamp { fsp: fsp_of(*p)? },
        D::Custom(n, _) if n.to_string().eq_ignore_ascii_case("year") => ColumnType::Year,
        D::Decimal(i) | D::Numeric(i) | D::Dec(i) => decimal(i)?,
        D::Char(l) | D::Character(l) => ColumnType::Char(chars(l, Some(1))?),
        D::Varchar(l) | D::CharVarying(l) | D::CharacterVarying(l) | D::Nvarchar(l) => {
            ColumnType::VarChar(chars(l, None)?)
        }
        D::Text => ColumnType::Text,
        D::Binary(_)
        | D::Varbinary(_)
        | D::Blob(_)
        | D::TinyBlob
        | D::MediumBlob
        | D::LongBlob
        | D::TinyText
        | D::MediumText
        | D::LongText
        | D::Enum(..)
        | D::Set(_)
        | D::Bit(_)
        | D::JSON => {
            let (ty, elements) = bytes_column_type(&name, &c.data_type)?;
            return column_options(c, Column::new(&name, ty).with_elements(elements), false);
        }
        D::Custom(n, _) if n.to_string().eq_ignore_ascii_case("serial") => {
            serial = true;
            int(8, true)
        }
        other => return Err(unsupported(format!("column type {other}"))),
    };
    let mut column = Column::new(&name, ty);
    // An integer's display width (`TINYINT(1)`; BOOL is TINYINT(1)), at most 255 (mysqld's
    // ER_TOO_BIG_DISPLAYWIDTH, 1439).
    let width = match &c.data_type {
        D::Bool | D::Boolean => Some(1),
        D::TinyInt(w)
        | D::TinyIntUnsigned(w)
        | D::SmallInt(w)
        | D::SmallIntUnsigned(w)
        | D::MediumInt(w)
        | D::MediumIntUnsigned(w)
        | D::Int(w)
        | D::Integer(w)
        | D::IntUnsigned(w)
        | D::IntegerUnsigned(w)
        | D::BigInt(w)
        | D::BigIntUnsigned(w) => *w,
        _ => None,
    };
    if let Some(w) = width {
        column.display_width = u8::try_from(w).map_err(|_| SqlError::Other {
            code: 1439,
            sqlstate: "42000",
            message: format!("Display width out of range for column '{name}' (max = 255)"),
        })?;
    }
    column_options(c, column, serial)
}

/// The column options (NULL, DEFAULT, keys, AUTO_INCREMENT, ...) of a column definition;
/// returns the column's specification.
fn column_options(c: &sp::ColumnDef, mut column: Column, serial: bool) -> Result<ColumnSpec> {
    let name = c.name.value.clone();
    let (mut primary, mut unique) = (false, serial);
    if serial {
        column = column.auto_increment();
    }
    let mut default_expr = None;
    let (mut charset, mut collate) = (None, None);
    for o in &c.options {
        match &o.option {
            sp::ColumnOption::Null => column.nullable = true,
            sp::ColumnOption::NotNull => column.nullable = false,
            sp::ColumnOption::Default(e) => default_expr = Some(e.clone()),
            sp::ColumnOption::Unique { is_primary, .. } => {
                if *is_primary {
                    primary = true;
                } else {
                    unique = true;
                }
            }
            sp::ColumnOption::DialectSpecific(tokens) => {
                let auto = tokens.iter().any(|t| {
                    matches!(t, Token::Word(w) if w.value.eq_ignore_ascii_case("AUTO_INCREMENT"))
                });
                if auto {
                    column.auto_increment = true;
                    column.nullable = false;
                } else {
                    let text: Vec<String> = tokens.iter().map(|t| t.to_string()).collect();
                    return Err(unsupported(text.join(" ")));
                }
            }
            sp::ColumnOption::CharacterSet(n) => charset = Some(last_part(n)?),
            sp::ColumnOption::Collation(n) => collate = Some(last_part(n)?),
            sp::ColumnOption::Comment(text) => column.comment = text.clone(),
            // A column-level `REFERENCES p (c)`: MySQL 8.0 parses and ignores it ("MySQL parses
            // but ignores inline REFERENCES specifications", CREATE TABLE ... FOREIGN KEY
            // constraints, Foreign key restrictions).
            sp::ColumnOption::ForeignKey { .. } => {}
            // A column CHECK is a constraint of the table (`Converter::create_table`).
            sp::ColumnOption::Check(_) => {}
            sp::ColumnOption::OnUpdate(e) => {
                let fsp = match column.ty {
                    ColumnType::DateTime { fsp } | ColumnType::Timestamp { fsp } => Some(fsp),
                    _ => None,
                };
                if fsp.is_none() || current_timestamp_fsp(e) != fsp {
                    return Err(SqlError::Other {
                        code: 1294,
                        sqlstate: "HY000",
                        message: format!("Invalid ON UPDATE clause for '{name}' column"),
                    });
                }
                column.on_update_now = true;
            }
            other => return Err(unsupported(other.to_string())),
        }
    }
    if let Some(fsp) = default_expr.as_ref().and_then(current_timestamp_fsp) {
        // DEFAULT CURRENT_TIMESTAMP(fsp): TIMESTAMP/DATETIME of the same precision only.
        match column.ty {
            ColumnType::DateTime { fsp: f } | ColumnType::Timestamp { fsp: f } if f == fsp => {
                column.default_now = true;
            }
            _ => return Err(SqlError::InvalidDefault(name)),
        }
        return Ok(ColumnSpec { column, primary, unique, charset, collate });
    }
    if let Some(e) = default_expr {
        let v = match &e {
            sp::Expr::Value(v) => match &v.value {
                sp::Value::Number(n, _) => number(n)?,
                sp::Value::SingleQuotedString(s) | sp::Value::DoubleQuotedString(s) => {
                    Value::Bytes(s.clone().into_bytes())
                }
                sp::Value::Null => Value::Null,
                sp::Value::Boolean(b) => Value::Int(i64::from(*b)),
                sp::Value::SingleQuotedByteStringLiteral(b) => Value::Bytes(
                    bit_literal(b).ok_or_else(|| SqlError::InvalidDefault(name.clone()))?,
                ),
                sp::Value::HexStringLiteral(h) => {
                    Value::Bytes(hex(h).ok_or_else(|| SqlError::InvalidDefault(name.clone()))?)
                }
                _ => return Err(SqlError::InvalidDefault(name)),
            },
            sp::Expr::UnaryOp { op: sp::UnaryOperator::Minus, expr } => match expr.as_ref() {
                sp::Expr::Value(v) => match &v.value {
                    sp::Value::Number(n, _) => number(&format!("-{n}"))?,
                    _ => return Err(SqlError::InvalidDefault(name)),
                },
                _ => return Err(SqlError::InvalidDefault(name)),
            },
            _ => return Err(unsupported("non-constant DEFAULT")),
        };
        if v == Value::Null {
            if !column.nullable {
                return Err(SqlError::InvalidDefault(name));
            }
        } else {
            let v = to_column(v, &column, 1).map_err(|_| SqlError::InvalidDefault(name.clone()))?;
            column.default = Some(v);
        }
    }
    if (charset.is_some() || collate.is_some()) && !column.ty.is_text() {
        return Err(unsupported("CHARACTER SET / COLLATE on a non-character column"));
    }
    Ok(ColumnSpec { column, primary, unique, charset, collate })
}

/// The CASTs of issue 19 (JSON, BINARY, CHAR): the function that computes each.
fn cast_target(t: &sp::DataType) -> Option<BytesFunc> {
    use sp::DataType as D;
    let len = |l: &Option<sp::CharacterLength>| match l {
        Some(sp::CharacterLength::IntegerLength { length, .. }) => u32::try_from(*length).ok(),
        _ => None,
    };
    Some(match t {
        D::JSON => BytesFunc::CastJson,
        D::Binary(n) => BytesFunc::CastBinary(n.and_then(|n| u32::try_from(n).ok())),
        D::Char(l) | D::Character(l) | D::Nvarchar(l) => BytesFunc::CastChar(len(l)),
        _ => return None,
    })
}

/// `b'0101'`: the bits as a big-endian binary string of ⌈bits/8⌉ bytes (mysqld's bit-value
/// literal; `b''` is the empty string).
fn bit_literal(bits: &str) -> Option<Vec<u8>> {
    if !bits.bytes().all(|c| c == b'0' || c == b'1') {
        return None;
    }
    let mut out = vec![0u8; bits.len().div_ceil(8)];
    let pad = out.len() * 8 - bits.len();
    for (i, c) in bits.bytes().enumerate() {
        if c == b'1' {
            let bit = pad + i;
            out[bit / 8] |= 0x80 >> (bit % 8);
        }
    }
    Some(out)
}

/// The engine type and ENUM/SET members of a BINARY/VARBINARY/BLOB/TEXT/ENUM/SET/BIT/JSON
/// column, with mysqld's limits (1074 too long, 1439 display width, 1097/1291 members).
fn bytes_column_type(name: &str, t: &sp::DataType) -> Result<(ColumnType, Vec<String>)> {
    use sp::DataType as D;
    let too_big = |max: u64| SqlError::Other {
        code: 1074,
        sqlstate: "42000",
        message: format!(
            "Column length too big for column '{name}' (max = {max}); use BLOB or TEXT instead"
        ),
    };
    let blob_for = |n: u64| -> u8 {
        match n {
            0..=255 => 1,
            256..=65_535 => 2,
            65_536..=16_777_215 => 3,
            _ => 4,
        }
    };
    Ok(match t {
        D::Binary(n) => {
            let n = n.unwrap_or(1);
            if n > 255 {
                return Err(SqlError::Other {
                    code: 1074,
                    sqlstate: "42000",
                    message: format!(
                        "Column length too big for column '{name}' (max = 255); use BLOB or TEXT \
                         instead"
                    ),
                });
            }
            (ColumnType::Binary(n as u32), Vec::new())
        }
        D::Varbinary(l) => {
            let n = match l {
                Some(sp::BinaryLength::IntegerLength { length }) => *length,
                _ => return Err(SqlError::near(")")),
            };
            if n > 65_535 {
                return Err(too_big(65_535));
            }
            (ColumnType::VarBinary(n as u32), Vec::new())
        }
        D::Blob(n) => (ColumnType::Blob { len_bytes: blob_for(n.unwrap_or(65_535)) }, Vec::new()),
        D::TinyBlob => (ColumnType::Blob { len_bytes: 1 }, Vec::new()),
        D::MediumBlob => (ColumnType::Blob { len_bytes: 3 }, Vec::new()),
        D::LongBlob => (ColumnType::Blob { len_bytes: 4 }, Vec::new()),
        D::TinyText => (ColumnType::SizedText { len_bytes: 1 }, Vec::new()),
        D::MediumText => (ColumnType::SizedText { len_bytes: 3 }, Vec::new()),
        D::LongText => (ColumnType::SizedText { len_bytes: 4 }, Vec::new()),
        D::Bit(n) => {
            let n = n.unwrap_or(1);
            if n == 0 || n > 64 {
                return Err(SqlError::Other {
                    code: 1439,
                    sqlstate: "42000",
                    message: format!("Display width out of range for column '{name}' (max = 64)"),
                });
            }
            (ColumnType::Bit(n as u8), Vec::new())
        }
        D::JSON => (ColumnType::Json, Vec::new()),
        D::Enum(..) | D::Set(_) => {
            let (is_set, names): (bool, Vec<String>) = match t {
                D::Enum(members, _) => (
                    false,
                    members
                        .iter()
                        .map(|m| match m {
                            sp::EnumMember::Name(n) | sp::EnumMember::NamedValue(n, _) => n.clone(),
                        })
                        .collect(),
                ),
                D::Set(v) => (true, v.clone()),
                _ => (false, Vec::new()),
            };
            // mysqld strips trailing spaces from members at definition.
            let names: Vec<String> =
                names.iter().map(|n| n.trim_end_matches(' ').to_string()).collect();
            let kind = if is_set { "SET" } else { "ENUM" };
            for (i, n) in names.iter().enumerate() {
                if names[..i].iter().any(|o| o.to_lowercase() == n.to_lowercase()) {
                    return Err(SqlError::Other {
                        code: 1291,
                        sqlstate: "HY000",
                        message: format!("Column '{name}' has duplicated value '{n}' in {kind}"),
                    });
                }
                if is_set && n.contains(',') {
                    return Err(SqlError::Other {
                        code: 1367,
                        sqlstate: "22007",
                        message: format!("Illegal set '{n}' value found during parsing"),
                    });
                }
            }
            if is_set && names.len() > 64 {
                return Err(SqlError::Other {
                    code: 1097,
                    sqlstate: "HY000",
                    message: format!("Too many strings for column {name} and SET"),
                });
            }
            if names.len() > 65_535 {
                return Err(SqlError::Other {
                    code: 1097,
                    sqlstate: "HY000",
                    message: format!("Too many strings for column {name} and ENUM"),
                });
            }
            (if is_set { ColumnType::Set } else { ColumnType::Enum }, names)
        }
        other => return Err(unsupported(format!("column type {other}"))),
    })
}

/// The value of an `AUTO_INCREMENT [=] n` table option as sqlparser read it.
pub(crate) fn auto_increment_value(e: &sqlparser::ast::Expr) -> Result<u64> {
    if let sqlparser::ast::Expr::Value(v) = e {
        if let sqlparser::ast::Value::Number(n, _) = &v.value {
            if let Ok(n) = n.parse::<u64>() {
                return Ok(n);
            }
        }
    }
    Err(SqlError::near(&e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stmt(sql: &str) -> Stmt {
        parse(sql).unwrap_or_else(|e| panic!("{sql}: {e}")).stmt
    }

    #[test]
    fn sysbench_statements_parse() {
        let p = parse("UPDATE sbtest1 SET k=k+1 WHERE id=?").unwrap();
        assert_eq!(p.params, 1);
        let Stmt::Update(u) = p.stmt else { panic!() };
        assert_eq!(u.set[0].0, "k");
        let p = parse("SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c").unwrap();
        assert_eq!(p.params, 2);
        let p = parse("INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)").unwrap();
        assert_eq!(p.params, 4);
        stmt("CREATE TABLE sbtest1(id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER DEFAULT '0' NOT NULL, c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id))");
        stmt("CREATE INDEX k_1 ON sbtest1(k)");
        stmt("SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN ? AND ?");
        stmt("SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c");
        stmt("DELETE FROM sbtest1 WHERE id=?");
    }

    #[test]
    fn transaction_keywords_skip_the_tokenizer_and_match_the_parser() {
        for (sql, want) in [
            ("BEGIN", Stmt::Begin),
            ("  begin\n", Stmt::Begin),
            ("Commit", Stmt::Commit),
            ("ROLLBACK\0", Stmt::Rollback),
            ("start transaction", Stmt::Begin),
        ] {
            let text = sql.trim_end_matches('\0');
            assert_eq!(transaction_keyword(text), Some(want.clone()), "{sql:?}");
            assert_eq!(stmt(sql), want, "{sql:?}");
            // The full parser (what the shortcut replaces) agrees.
            let mut p = Front {
                sql: text,
                parser: new_parser(text).expect("lexes"),
                params: 0,
                nesting: 0,
                with: query_expr::WithScope::default(),
                windows: Vec::new(),
            };
            assert_eq!(p.statement().expect("parses"), want, "{sql:?}");
        }
        for sql in ["BEGIN WORK", "COMMIT;", "START  TRANSACTION", "BEGINX", "/* c */ BEGIN"] {
            assert_eq!(transaction_keyword(sql), None, "{sql:?}");
        }
        assert_eq!(stmt("COMMIT;"), Stmt::Commit);
        assert_eq!(stmt("BEGIN WORK"), Stmt::Begin);
        assert_eq!(stmt("START TRANSACTION READ ONLY"), Stmt::BeginReadOnly);
        assert_eq!(
            stmt("START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY"),
            Stmt::BeginConsistentSnapshot { read_only: true }
        );
        assert_eq!(stmt("START TRANSACTION READ WRITE"), Stmt::Begin);
        assert!(parse("BEGIN;;").is_err());
    }

    #[test]
    fn utility_statements_parse() {
        assert_eq!(stmt("show databases"), Stmt::Show(Show::Databases { like: None }));
        assert_eq!(
            stmt("SHOW GLOBAL VARIABLES LIKE 'gtid%'"),
            Stmt::Show(Show::Variables { global: true, like: Some("gtid%".into()) })
        );
        assert_eq!(
            stmt("SHOW BINLOG EVENTS IN 'binlog.000002' FROM 4 LIMIT 2, 5"),
            Stmt::Admin(AdminCommand::ShowBinlogEvents {
                file: Some("binlog.000002".into()),
                from: Some(4),
                offset: 2,
                limit: Some(5)
            })
        );
        assert_eq!(
            stmt("PURGE BINARY LOGS TO 'b.000003'"),
            Stmt::Admin(AdminCommand::PurgeTo("b.000003".into()))
        );
        assert!(matches!(
            stmt("PURGE MASTER LOGS BEFORE '2024-01-02 03:04:05'"),
            Stmt::Admin(AdminCommand::PurgeBefore(t)) if t.year == 2024 && t.second == 5
        ));
        assert_eq!(stmt("SHOW BINARY LOG STATUS"), Stmt::Admin(AdminCommand::ShowMasterStatus));
        assert_eq!(
            stmt("SHOW REPLICAS"),
            Stmt::Admin(AdminCommand::ShowReplicas { old_names: false })
        );
        assert_eq!(
            stmt("show slave hosts"),
            Stmt::Admin(AdminCommand::ShowReplicas { old_names: true })
        );
        assert_eq!(stmt("RESET MASTER"), Stmt::Admin(AdminCommand::ResetMaster));
        assert_eq!(stmt("FLUSH BINARY LOGS"), Stmt::Admin(AdminCommand::FlushBinaryLogs));
        let Stmt::Set(items) = stmt("SET @@session.autocommit = 0, GLOBAL sync_binlog=1, @x := 5")
        else {
            panic!()
        };
        assert_eq!(items.len(), 3);
        assert!(
            matches!(&items[0], SetItem::System { scope: VarScope::Session, name, .. } if name == "autocommit")
        );
        assert!(
            matches!(&items[1], SetItem::System { scope: VarScope::Global, name, .. } if name == "sync_binlog")
        );
        assert!(matches!(&items[2], SetItem::User { name, .. } if name == "x"));
        assert!(matches!(stmt("SET NAMES utf8mb4 COLLATE utf8mb4_general_ci"), Stmt::Set(_)));
        // NAMES inside a list, in any position, and the DEFAULT forms.
        let Stmt::Set(items) =
            stmt("SET autocommit=1, NAMES utf8mb4, sql_mode='', CHARSET DEFAULT")
        else {
            panic!("a SET list")
        };
        assert_eq!(items.len(), 4);
        assert!(
            matches!(&items[1], SetItem::Names { charset: Some(c), collation: None } if c == "utf8mb4")
        );
        assert!(matches!(&items[3], SetItem::CharacterSet { charset: None }));
        assert!(matches!(
            stmt("SET NAMES DEFAULT"),
            Stmt::Set(ref v) if matches!(v[0], SetItem::Names { charset: None, .. })
        ));
        assert_eq!(
            stmt("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED"),
            Stmt::SetTransaction {
                scope: VarScope::Session,
                isolation: Some("READ-COMMITTED"),
                read_only: None
            }
        );
        assert_eq!(
            stmt("set transaction read only, isolation level serializable"),
            Stmt::SetTransaction {
                scope: VarScope::Default,
                isolation: Some("SERIALIZABLE"),
                read_only: Some(true)
            }
        );
        assert_eq!(
            stmt("START TRANSACTION READ ONLY, WITH CONSISTENT SNAPSHOT"),
            Stmt::BeginConsistentSnapshot { read_only: true }
        );
        assert_eq!(
            stmt("START TRANSACTION WITH CONSISTENT SNAPSHOT"),
            Stmt::BeginConsistentSnapshot { read_only: false }
        );
        assert_eq!(stmt("start transaction read write"), Stmt::Begin);
        for sql in [
            "SELECT * FROM t WHERE a = 1 LOCK IN SHARE MODE",
            "select 1 from t lock  in share mode ;",
            "SELECT * FROM t FOR SHARE",
        ] {
            assert!(matches!(stmt(sql), Stmt::Select(s) if s.for_update && s.for_share), "{sql}");
        }
        let s = stmt("SELECT * FROM t FOR UPDATE");
        assert!(matches!(s, Stmt::Select(s) if s.for_update && !s.for_share));
        assert_eq!(
            share_mode_lock("SELECT a FROM t LOCK IN SHARE MODE").as_deref(),
            Some("SELECT a FROM t FOR SHARE")
        );
        assert_eq!(share_mode_lock("UPDATE t SET a = 'LOCK IN SHARE MODE'"), None);
        assert!(parse("SET TRANSACTION ISOLATION LEVEL READ SOMETIMES").is_err());
        assert!(parse("START TRANSACTION WITH SNAPSHOT").is_err());
        assert_eq!(
            stmt("CREATE SCHEMA IF NOT EXISTS mysqlslap DEFAULT CHARACTER SET utf8mb4"),
            Stmt::CreateDatabase {
                name: "mysqlslap".into(),
                if_not_exists: true,
                charset: Some("utf8mb4".into()),
                collate: None
            }
        );
    }

    #[test]
    fn errors_quote_the_rest() {
        let e = parse("SELEC 1").unwrap_err();
        assert_eq!(e.code(), 1064);
        assert!(e.to_string().contains("near 'SELEC 1' at line 1"), "{e}");
        let e = parse("SELECT * FROM t WHERE").unwrap_err();
        assert_eq!(e.code(), 1064);
        assert!(parse("SELECT 1 UNION SELECT 2").is_ok(), "unions parse");
        assert!(parse("SELECT * FROM a JOIN b ON a.x = b.x").is_ok(), "joins parse");
        let e = parse("SELECT * FROM (SELECT 1) JOIN b").unwrap_err();
        assert_eq!(e.code(), 1248, "{e}");
        assert!(
            parse("SELECT * FROM t WHERE id IN (SELECT id FROM u)").is_ok(),
            "subqueries parse"
        );
    }

    #[test]
    fn labels_of_functions_literals_and_operators() {
        let sql = "SELECT SUM(qty), UPPER(sku), COUNT(*), 'abc', 1.50, a + b, \
                   x IS NULL, COALESCE(a, 'x'), CASE WHEN a THEN 1 END, NOW(), -5, t.c, \
                   CONCAT(sku, '(', qty) , MAX( qty ), (1+2)*3, \"dq\", NULL, TRUE, \
                   LENGTH(sku)+1, a BETWEEN 1 AND 2, a IN (1,2), a LIKE 'x%' FROM t";
        let Stmt::Select(s) = stmt(sql) else { panic!() };
        let labels: Vec<&str> = s
            .items
            .iter()
            .map(|i| match i {
                SelectItem::Expr { label, .. } => label.as_str(),
                SelectItem::Wildcard | SelectItem::TableWildcard(..) => "*",
            })
            .collect();
        assert_eq!(
            labels,
            [
                "SUM(qty)",
                "UPPER(sku)",
                "COUNT(*)",
                "abc",
                "1.50",
                "a + b",
                "x IS NULL",
                "COALESCE(a, 'x')",
                "CASE WHEN a THEN 1 END",
                "NOW()",
                "-5",
                "c",
                "CONCAT(sku, '(', qty)",
                "MAX( qty )",
                "(1+2)*3",
                "dq",
                "NULL",
                "TRUE",
                "LENGTH(sku)+1",
                "a BETWEEN 1 AND 2",
                "a IN (1,2)",
                "a LIKE 'x%'",
            ]
        );
    }

    #[test]
    fn labels_are_the_text_as_written() {
        let Stmt::Select(s) = stmt("SELECT 1+1, @@version, COUNT(*) AS n, `c` FROM t") else {
            panic!()
        };
        let labels: Vec<&str> = s
            .items
            .iter()
            .map(|i| match i {
                SelectItem::Expr { label, .. } => label.as_str(),
                SelectItem::Wildcard | SelectItem::TableWildcard(..) => "*",
            })
            .collect();
        assert_eq!(labels, ["1+1", "@@version", "n", "c"]);
    }

    #[test]
    fn split_respects_quotes() {
        assert_eq!(split_statements("select ';'; select 2;"), vec!["select ';'", " select 2"]);
        assert_eq!(
            split_statements("select 1 -- x;y\n; select 2"),
            vec!["select 1 -- x;y\n", " select 2"]
        );
    }
}
