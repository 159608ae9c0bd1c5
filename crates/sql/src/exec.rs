//! Binding and SELECT.
//!
//! Binding turns a statement's expressions into evaluable trees for one execution: column
//! names become row positions (checked against the table's current schema), `?` become the
//! execution's parameters, and everything that depends on the session (`@@vars`, `@user`
//! variables, NOW(), DATABASE(), LAST_INSERT_ID(), ...) becomes a literal.
//!
//! Access paths: the WHERE clause's top-level AND terms are searched for a primary key
//! equality (all key columns, or an OR/IN of such rows): point lookups, the prepared fast
//! path. Otherwise the range optimizer (`range.rs`) finds the ranges every index allows
//! (AND/OR/IN/BETWEEN/comparisons/IS NULL, composite prefixes) and the index with the fewest
//! counted entries is read; otherwise the table is scanned. Only constants that convert
//! exactly to the column's type are used as keys; the whole WHERE is always re-applied to the
//! rows fetched, so an access path only has to be wide enough.

use std::collections::{HashMap, HashSet};
use std::ops::Bound;
use std::sync::Arc;

use engine::{
    encode_key, ColumnType, Decimal, Key, RangeRow, Row, SharedRow, TableId, TableSchema, Txn,
    Value,
};

use super::ast::*;
use super::error::{Result, SqlError};
use super::eval::{arith, compare, eval, parse_datetime, truth};
use super::output::{flags, MysqlType, Output, ResultColumn, CHARSET_BINARY};
use super::plan_cache::PlanCache;
use super::scope::Scope;
use super::session::Session;
use super::temporal;
use super::timefn::TimeFn;
use super::vars::VERSION;
use crate::eval::collate::{keyed, Dt};
use crate::eval::strfunc::StrFn as StrFunc;

mod charset_exprs;
mod collated_sort;
mod numeric_context;
mod rollup;
mod window;

/// A bound aggregate call.
#[derive(Debug, Clone)]
pub(crate) struct AggSpec {
    kind: AggKind,
    distinct: bool,
    arg: Option<Expr>,
    /// The collation MIN/MAX, COUNT(DISTINCT) and GROUP_CONCAT compare strings with.
    coll: Option<u16>,
    /// GROUP_CONCAT's parts.
    concat: Option<Box<ConcatSpec>>,
}

/// A bound GROUP_CONCAT: arguments (their text is concatenated), ORDER BY with collations,
/// separator.
#[derive(Debug, Clone)]
pub(crate) struct ConcatSpec {
    args: Vec<Expr>,
    arg_colls: Vec<Option<u16>>,
    order: Vec<(Expr, bool, Option<u16>)>,
    separator: Vec<u8>,
}

pub(crate) struct Binder<'a> {
    sess: &'a Session,
    table: Option<&'a TableSchema>,
    /// Names a column qualifier may use (table name and alias), lower case.
    qualifiers: Vec<String>,
    params: Option<&'a [Value]>,
    context: &'static str,
    /// Collects aggregate calls when they are allowed (SELECT list, HAVING, ORDER BY).
    aggs: Option<Vec<AggSpec>>,
    /// Bound SELECT items by alias, for ORDER BY / HAVING.
    aliases: Vec<(String, Expr)>,
    /// `collation_connection`: the collation of literals and parameters, looked up on first
    /// use (most statements compare no string literal).
    conn_cell: std::cell::Cell<Option<u16>>,
    /// A multi-table FROM: names resolve through it (`table` is then its joined row).
    pub(crate) scope: Option<&'a Scope>,
    /// Collects window calls and GROUPING() (late slots, `exec/window.rs`) where allowed.
    late: Option<Vec<window::Late>>,
    /// Window calls are allowed (the select list and ORDER BY, not HAVING).
    windows_ok: bool,
}

impl Session {
    /// A binder over `table` (None: no columns in scope). `params` None binds `?` to NULL
    /// (PREPARE computes result columns that way).
    pub(crate) fn binder<'a>(
        &'a self,
        table: Option<&'a TableSchema>,
        params: &'a [Value],
        context: &'static str,
    ) -> Binder<'a> {
        // Table names and aliases compare exactly under lower_case_table_names = 0.
        let exact = self.server.names_case_sensitive();
        let qualifiers = table
            .map(|t| {
                let (_, name) = super::commit::split_engine_name(&t.name);
                vec![if exact { name.to_string() } else { name.to_ascii_lowercase() }]
            })
            .unwrap_or_default();
        Binder {
            sess: self,
            table,
            qualifiers,
            params: Some(params),
            context,
            aggs: None,
            aliases: Vec::new(),
            conn_cell: std::cell::Cell::new(None),
            scope: None,
            late: None,
            windows_ok: false,
        }
    }

    /// Resolves a table reference to (engine id, schema, database name).
    pub(crate) fn resolve_table(
        &self,
        t: &TableRef,
    ) -> Result<(TableId, Arc<TableSchema>, String)> {
        let db = match &t.db {
            Some(d) => d.clone(),
            None => self.db.clone().ok_or(SqlError::NoDatabaseSelected)?,
        };
        let missing = || SqlError::NoSuchTable { db: db.clone(), table: t.name.clone() };
        if t.db.is_some() && self.server.database(&db).is_none() {
            return Err(missing());
        }
        let engine = &self.server.engine;
        let (id, schema) = engine.table_named(&format!("{db}.{}", t.name)).ok_or_else(missing)?;
        if schema.view.is_some() {
            // A statement on tables named a view (queries see views expanded: views.rs).
            return Err(SqlError::Other {
                code: 1347,
                sqlstate: "HY000",
                message: format!("'{db}.{}' is not BASE TABLE", t.name),
            });
        }
        Ok((id, schema, db))
    }
}

impl Binder<'_> {
    /// A table name or alias as `qualifiers` holds it: as given under
    /// lower_case_table_names = 0 (mysqld compares aliases exactly there), else lower case.
    fn qualifier_key(&self, name: &str) -> String {
        if self.sess.server.names_case_sensitive() {
            name.to_string()
        } else {
            name.to_ascii_lowercase()
        }
    }

    pub(crate) fn with_alias(mut self, alias: Option<&String>) -> Self {
        if let Some(a) = alias {
            let key = self.qualifier_key(a);
            self.qualifiers.push(key);
        }
        self
    }

    /// The values of a waiting function's arguments (WAIT_FOR_EXECUTED_GTID_SET, the user-lock
    /// functions), evaluated at bind time; on a thread that must not block the statement is
    /// refused (`WouldBlock`) and runs again where it may, as after a refused row-lock wait.
    fn args_where_waits_allowed(&mut self, args: &[Expr]) -> Result<Vec<Value>> {
        if engine::waits_refused() {
            return Err(SqlError::Engine(engine::Error::WouldBlock));
        }
        args.iter().map(|x| eval(&self.bind(x)?, &[], &[])).collect()
    }

    /// Binds an expression. Chains (`Binary`, `Unary`, `IS NULL`) recurse in this small frame;
    /// the rest is out of line (`bind_other`): a tree may be [`crate::depth::MAX_DEPTH`] deep.
    pub(crate) fn bind(&mut self, e: &Expr) -> Result<Expr> {
        Ok(match e {
            Expr::Col(p) => Expr::Col(*p),
            Expr::Unary(UnOp::Neg, x) => {
                let x = self.bind(x)?;
                Expr::Unary(UnOp::Neg, Box::new(self.numeric_context(x)))
            }
            Expr::Unary(op, x) => Expr::Unary(*op, Box::new(self.bind(x)?)),
            Expr::Binary(op, l, r) => {
                let l = self.bind(l)?;
                let r = self.bind(r)?;
                match op {
                    op if op.is_comparison() => {
                        let (l, r) = self.numeric_comparison(l, r);
                        self.comparison(*op, l, r)?
                    }
                    BinOp::And | BinOp::Or | BinOp::Xor => {
                        Expr::Binary(*op, Box::new(l), Box::new(r))
                    }
                    _ => Expr::Binary(
                        *op,
                        Box::new(self.numeric_context(l)),
                        Box::new(self.numeric_context(r)),
                    ),
                }
            }
            Expr::IsNull { expr, negated } => {
                Expr::IsNull { expr: Box::new(self.bind(expr)?), negated: *negated }
            }
            other => self.bind_other(other)?,
        })
    }

    /// `collation_connection`'s id.
    fn conn(&self) -> u16 {
        if let Some(c) = self.conn_cell.get() {
            return c;
        }
        let c = collation::by_name(&self.sess.var_text(super::vars::Var::CollationConnection))
            .map_or(collation::DEFAULT, |c| c.id);
        self.conn_cell.set(Some(c));
        c
    }

    /// A bound comparison, collated when it compares strings (out of line: see `bind`).
    #[inline(never)]
    fn comparison(&self, op: BinOp, l: Expr, r: Expr) -> Result<Expr> {
        let name = match op {
            BinOp::Eq => "=",
            BinOp::NullSafeEq => "<=>",
            BinOp::NotEq => "<>",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            _ => ">=",
        };
        self.collated(Expr::Binary(op, Box::new(l), Box::new(r)), name, false)
    }

    /// The collation and derivation of a bound expression (`Item::collation`).
    pub(crate) fn dt(&self, e: &Expr) -> Result<Dt> {
        use crate::eval::collate::{
            aggregate, COERCIBLE, EXPLICIT, IGNORABLE, IMPLICIT, NUMERIC, SYSCONST,
        };
        let numeric = Dt::new(collation::BINARY, NUMERIC, true);
        let strings = |args: &[&Expr], op: &str| -> Result<Dt> {
            let dts = args.iter().map(|a| self.dt(a)).collect::<Result<Vec<_>>>()?;
            Ok(aggregate(&dts, op, false)?.unwrap_or(Dt::new(self.conn(), COERCIBLE, true)))
        };
        Ok(match e {
            Expr::Lit(Value::Bytes(b)) => Dt::new(self.conn(), COERCIBLE, b.is_ascii()),
            Expr::Lit(Value::Null) => Dt::new(collation::BINARY, IGNORABLE, true),
            Expr::Lit(_) => numeric,
            Expr::Col(i) => match self.table.and_then(|t| t.columns.get(*i)) {
                Some(c) if c.ty.is_text() => {
                    Dt::new(c.collation, IMPLICIT, c.charset() == collation::Charset::Ascii)
                }
                _ => numeric,
            },
            Expr::Collate(x, id) => {
                let inner = self.dt(x)?;
                Dt::new(*id, EXPLICIT, inner.ascii)
            }
            Expr::InsertValue(x) => self.dt(x)?,
            Expr::Agg(i) if *i >= window::LATE_BASE => self.late_dt(*i)?,
            Expr::Agg(i) => match self.aggs.as_ref().and_then(|a| a.get(*i)) {
                Some(AggSpec { kind: AggKind::Min | AggKind::Max, arg: Some(a), .. }) => {
                    self.dt(a)?
                }
                Some(AggSpec { kind: AggKind::GroupConcat, concat: Some(c), .. }) => {
                    strings(&c.args.iter().collect::<Vec<_>>(), "group_concat")?
                }
                _ => numeric,
            },
            Expr::Func(f, args) => match f {
                Func::Concat | Func::Upper | Func::Lower | Func::Coalesce | Func::IfNull => {
                    let all: Vec<&Expr> = args.iter().collect();
                    let d = strings(&all, "concat")?;
                    let any_string = all
                        .iter()
                        .map(|a| self.dt(a))
                        .collect::<Result<Vec<_>>>()?
                        .iter()
                        .any(|d| d.is_string());
                    if any_string || matches!(f, Func::Concat | Func::Upper | Func::Lower) {
                        d
                    } else {
                        numeric
                    }
                }
                Func::Bytes(crate::ast::BytesFunc::Convert(_, to)) => {
                    charset_exprs::convert_dt(*to)
                }
                Func::If => {
                    let rest: Vec<&Expr> = args.iter().skip(1).collect();
                    let dts = rest.iter().map(|a| self.dt(a)).collect::<Result<Vec<_>>>()?;
                    aggregate(&dts, "if", false)?.unwrap_or(numeric)
                }
                Func::Math(m) => {
                    use crate::eval::mathfn::MathFn as M;
                    match m {
                        M::Greatest | M::Least => {
                            let dts =
                                args.iter().map(|a| self.dt(a)).collect::<Result<Vec<_>>>()?;
                            if dts.iter().any(|d| d.is_string()) {
                                strings(&args.iter().collect::<Vec<_>>(), m.name())?
                            } else {
                                numeric
                            }
                        }
                        m if m.is_string() => Dt::new(self.conn(), COERCIBLE, true),
                        _ => numeric,
                    }
                }
                Func::More(m) => {
                    use crate::eval::morefn::MoreFn as M;
                    match m {
                        M::NullIf => match args.first() {
                            Some(a) => self.dt(a)?,
                            None => numeric,
                        },
                        m if m.is_integer() => numeric,
                        m if m.is_binary() => Dt::new(collation::BINARY, COERCIBLE, false),
                        // COLLATION()/CHARSET() answer in the system character set.
                        M::Collation | M::Charset => Dt::new(33, SYSCONST, true),
                        _ => Dt::new(self.conn(), COERCIBLE, true),
                    }
                }
                Func::Misc(m) => match m.passes_through() {
                    Some(i) => match args.get(i) {
                        Some(a) => self.dt(a)?,
                        None => numeric,
                    },
                    None if m.is_integer() => numeric,
                    None if m.is_binary() => Dt::new(collation::BINARY, COERCIBLE, false),
                    None => Dt::new(self.conn(), COERCIBLE, true),
                },
                Func::Json(j) if j.is_json() || j.is_integer() => numeric,
                Func::Json(_) => Dt::new(self.conn(), COERCIBLE, true),
                Func::Regex(r) if r.is_integer() => numeric,
                Func::Regex(_) => match args.first() {
                    Some(a) if self.dt(a)?.is_string() => self.dt(a)?,
                    _ => Dt::new(self.conn(), COERCIBLE, true),
                },
                // The session's names are SYSCONST utf8mb3 strings (`Item_func_user`).
                Func::User | Func::CurrentUser | Func::Database | Func::Version => {
                    Dt::new(33, SYSCONST, false)
                }
                _ => numeric,
            },
            Expr::Str(f, args) if !f.is_integer() => {
                let picked: Vec<&Expr> =
                    f.string_args(args.len()).into_iter().filter_map(|i| args.get(i)).collect();
                strings(&picked, f.name())?
            }
            Expr::Case { whens, otherwise, .. } => {
                let outs: Vec<&Expr> =
                    whens.iter().map(|(_, t)| t).chain(otherwise.as_deref()).collect();
                let dts = outs.iter().map(|a| self.dt(a)).collect::<Result<Vec<_>>>()?;
                aggregate(&dts, "case", false)?.unwrap_or(numeric)
            }
            _ => numeric,
        })
    }

    /// `node` wrapped with the aggregated collation of its operands when it compares strings
    /// (`always`: LIKE and the string functions, where numbers are strings too). A string
    /// constant must convert to the aggregate's character set (else 1267, as mysqld's
    /// `agg_item_set_converter`).
    fn collated(&self, node: Expr, op: &str, always: bool) -> Result<Expr> {
        use crate::eval::collate::{aggregate, is_plain_bytes, mix_error, COERCIBLE, NUMERIC};
        let ops = operands(&node);
        let mut dts = Vec::with_capacity(ops.len());
        for o in &ops {
            dts.push(self.dt(o)?);
        }
        if always {
            for d in dts.iter_mut() {
                if d.derivation == NUMERIC {
                    *d = Dt::new(self.conn(), COERCIBLE, true);
                }
            }
        } else if dts.iter().any(|d| d.derivation == NUMERIC) {
            // A string compared with a number compares numbers (no collation).
            return Ok(node);
        }
        let Some(agg) = aggregate(&dts, op, true)? else { return Ok(node) };
        let target = collation::by_id(agg.id).map_or(collation::Charset::Binary, |c| c.charset);
        for o in &ops {
            if let Some(text) = const_text(o) {
                if collation::convert_from_utf8(target, text).is_err() {
                    let strings: Vec<Dt> = dts.iter().copied().filter(|d| d.is_string()).collect();
                    return Err(mix_error(&strings, op));
                }
            }
        }
        if is_plain_bytes(agg.id) && !always {
            return Ok(node);
        }
        Ok(Expr::Collated(agg.id, Box::new(node)))
    }

    #[inline(never)]
    fn bind_other(&mut self, e: &Expr) -> Result<Expr> {
        let b = |this: &mut Self, x: &Expr| this.bind(x).map(Box::new);
        Ok(match e {
            Expr::Lit(v) => Expr::Lit(v.clone()),
            Expr::Param(i) => match self.params {
                Some(p) => Expr::Lit(
                    p.get(*i).cloned().ok_or(SqlError::WrongArguments("mysqld_stmt_execute"))?,
                ),
                None => Expr::Lit(Value::Null),
            },
            Expr::Name { table, column } if self.scope.is_some() => {
                if table.is_none() {
                    if let Some((_, x)) =
                        self.aliases.iter().find(|(a, _)| a.eq_ignore_ascii_case(column))
                    {
                        return Ok(x.clone());
                    }
                }
                let scope = self.scope.ok_or(SqlError::WrongArguments("scope"))?;
                let p = scope.resolve(table.as_deref(), column, self.context)?;
                column_expr(self.table, p)
            }
            Expr::Name { table, column } => {
                if let Some(q) = table {
                    if !self.qualifiers.contains(&self.qualifier_key(q)) {
                        return Err(SqlError::UnknownColumn {
                            column: format!("{q}.{column}"),
                            context: self.context,
                        });
                    }
                }
                if table.is_none() {
                    if let Some((_, x)) =
                        self.aliases.iter().find(|(a, _)| a.eq_ignore_ascii_case(column))
                    {
                        return Ok(x.clone());
                    }
                }
                match self.table.and_then(|t| t.column_position(column)) {
                    Some(p) => column_expr(self.table, p),
                    None => {
                        return Err(SqlError::UnknownColumn {
                            column: column.clone(),
                            context: self.context,
                        })
                    }
                }
            }
            Expr::Col(p) => Expr::Col(*p),
            Expr::Agg(i) => Expr::Agg(*i),
            Expr::SysVar { scope, name } => Expr::Lit(self.sess.sysvar(*scope, name)?),
            Expr::UserVar(n) => {
                Expr::Lit(self.sess.user_vars.get(n).cloned().unwrap_or(Value::Null))
            }
            Expr::Unary(op, x) => Expr::Unary(*op, b(self, x)?),
            Expr::Binary(..) => self.bind(e)?,
            Expr::IsNull { expr, negated } => {
                Expr::IsNull { expr: b(self, expr)?, negated: *negated }
            }
            Expr::Between { expr, low, high, negated } => {
                let (x, lo, hi) = (b(self, expr)?, b(self, low)?, b(self, high)?);
                let node = Expr::Between { expr: x, low: lo, high: hi, negated: *negated };
                self.collated(node, "between", false)?
            }
            Expr::InList { expr, list, negated } => {
                let x = b(self, expr)?;
                let list: Vec<Expr> = list.iter().map(|x| self.bind(x)).collect::<Result<_>>()?;
                let node = Expr::InList { expr: x, list, negated: *negated };
                self.collated(node, "in", false)?
            }
            Expr::Like { .. } => self.bind_like(e, None)?,
            Expr::LikeEscape(like, c) => self.bind_like(like, Some(*c))?,
            Expr::Case { operand, whens, otherwise } => {
                let operand = operand.as_ref().map(|o| b(self, o)).transpose()?;
                let whens: Vec<(Expr, Expr)> = whens
                    .iter()
                    .map(|(w, t)| Ok((self.bind(w)?, self.bind(t)?)))
                    .collect::<Result<_>>()?;
                let otherwise = otherwise.as_ref().map(|o| b(self, o)).transpose()?;
                match operand {
                    Some(o) => {
                        let node = Expr::Case { operand: Some(o), whens, otherwise };
                        self.collated(node, "case", false)?
                    }
                    None => Expr::Case { operand: None, whens, otherwise },
                }
            }
            Expr::Collate(x, id) => {
                let x = self.bind(x)?;
                let d = self.dt(&x)?;
                let want = collation::by_id(*id).map(|c| c.charset);
                // `expr COLLATE c`: c must belong to expr's character set (1253); a number is
                // a string of the connection's set, NULL takes any collation.
                let conn_cs = collation::by_id(self.conn()).map(|c| c.charset);
                let have =
                    if d.is_string() { collation::by_id(d.id).map(|c| c.charset) } else { conn_cs };
                if d.derivation != crate::eval::collate::IGNORABLE && want != have {
                    let name = collation::by_id(*id).map_or("", |c| c.name);
                    let cs = have.unwrap_or(collation::Charset::Utf8mb4);
                    return Err(crate::eval::collate::mismatch(name, cs));
                }
                Expr::Collate(Box::new(x), *id)
            }
            Expr::Collated(id, x) => Expr::Collated(*id, b(self, x)?),
            Expr::Str(f, args) => {
                // Counts and positions read as numbers (`val_int`: a TIME '100:00:00' is a
                // million), the strings as text.
                let n = args.len();
                let args: Vec<Expr> = args
                    .iter()
                    .enumerate()
                    .map(|(i, x)| {
                        let x = self.bind(x)?;
                        Ok(if f.numeric_arg(i, n) { x } else { self.quotient_as_text(x) })
                    })
                    .collect::<Result<_>>()?;
                if f.compares() {
                    self.collated(Expr::Str(*f, args), f.name(), true)?
                } else {
                    // Validates the mix of the combined strings (CONCAT_WS of two explicit
                    // collations is 1267 in mysqld too).
                    let node = Expr::Str(*f, args);
                    self.dt(&node)?;
                    node
                }
            }
            Expr::GroupConcat(g) => self.bind_group_concat(g)?,
            // Subqueries are run and replaced before binding (`query/subquery.rs`); one still
            // here sits where this statement does not run them.
            Expr::Subquery(_) | Expr::Query(_) | Expr::OuterRef(_) => {
                return Err(SqlError::NotSupported("subqueries in this clause".into()))
            }
            Expr::Func(f, args) => {
                let s = self.sess;
                match f {
                    Func::Now => Expr::Lit(Value::DateTime(s.now)),
                    Func::Database => Expr::Lit(match &s.db {
                        Some(d) => Value::Bytes(d.clone().into_bytes()),
                        None => Value::Null,
                    }),
                    Func::Version => Expr::Lit(Value::Bytes(VERSION.as_bytes().to_vec())),
                    Func::ConnectionId => Expr::Lit(Value::UInt(u64::from(s.connection_id))),
                    Func::LastInsertId => Expr::Lit(Value::UInt(s.last_insert_id)),
                    Func::CurrentUser => Expr::Lit(Value::Bytes(s.current_user().into_bytes())),
                    Func::User => {
                        Expr::Lit(Value::Bytes(format!("{}@{}", s.user, s.host).into_bytes()))
                    }
                    Func::WaitForExecutedGtidSet => {
                        // It waits: on a thread that must not block, the statement runs
                        // again where it may (as after a refused row-lock wait).
                        let vals = self.args_where_waits_allowed(args)?;
                        Expr::Lit(s.wait_for_executed_gtid_set(&vals)?)
                    }
                    Func::More(
                        m @ (crate::eval::morefn::MoreFn::Collation
                        | crate::eval::morefn::MoreFn::Charset
                        | crate::eval::morefn::MoreFn::Coercibility),
                    ) => self.collation_info(*m, args)?,
                    Func::Math(
                        m @ (crate::eval::mathfn::MathFn::Greatest
                        | crate::eval::mathfn::MathFn::Least),
                    ) => {
                        let args: Vec<Expr> =
                            args.iter().map(|x| self.bind(x)).collect::<Result<_>>()?;
                        let node = Expr::Func(*f, args);
                        // Strings (a mix with numbers too, MySQL 8.0) compare under the
                        // aggregated collation, numbers being strings of the connection's.
                        let any_string = match &node {
                            Expr::Func(_, a) => {
                                a.iter().map(|x| self.dt(x)).collect::<Result<Vec<_>>>()?
                            }
                            _ => Vec::new(),
                        }
                        .iter()
                        .any(|d| d.is_string());
                        if any_string {
                            self.collated(node, m.name(), true)?
                        } else {
                            node
                        }
                    }
                    Func::Time(TimeFn::Literal(to)) => {
                        // An invalid literal fails the statement when it is bound, as mysqld's
                        // parser refuses it, whether or not a row evaluates it.
                        let args: Vec<Expr> =
                            args.iter().map(|x| self.bind(x)).collect::<Result<_>>()?;
                        if let [Expr::Lit(text)] = args.as_slice() {
                            temporal::literal(text, *to)?;
                        }
                        Expr::Func(*f, args)
                    }
                    Func::Misc(crate::ast::MiscFn::RowCount) => {
                        Expr::Lit(Value::Int(s.prev_row_count))
                    }
                    Func::Misc(crate::ast::MiscFn::FoundRows) => {
                        Expr::Lit(Value::UInt(s.prev_found_rows))
                    }
                    Func::Misc(crate::ast::MiscFn::UuidShort) => Expr::Func(
                        *f,
                        vec![Expr::Lit(s.server.vars.global(crate::vars::Var::ServerId))],
                    ),
                    Func::Misc(
                        m @ (crate::ast::MiscFn::GetLock
                        | crate::ast::MiscFn::ReleaseLock
                        | crate::ast::MiscFn::IsFreeLock
                        | crate::ast::MiscFn::IsUsedLock
                        | crate::ast::MiscFn::ReleaseAllLocks),
                    ) => {
                        // GET_LOCK may wait, and none may run twice (a statement refused on
                        // a thread that must not block runs again): they run where the
                        // statement may block.
                        let vals = self.args_where_waits_allowed(args)?;
                        Expr::Lit(s.user_lock_call(*m, &vals)?)
                    }
                    Func::Misc(crate::ast::MiscFn::Sleep) if engine::waits_refused() => {
                        // It waits: run where a statement may block.
                        return Err(SqlError::Engine(engine::Error::WouldBlock));
                    }
                    // The subject and pattern compare under their aggregated collation.
                    Func::Regex(r) => {
                        let args: Vec<Expr> =
                            args.iter().map(|x| self.bind(x)).collect::<Result<_>>()?;
                        self.collated(Expr::Func(*f, args), r.name(), true)?
                    }
                    Func::More(crate::eval::morefn::MoreFn::NullIf) => {
                        let args: Vec<Expr> =
                            args.iter().map(|x| self.bind(x)).collect::<Result<_>>()?;
                        self.collated(Expr::Func(*f, args), "nullif", false)?
                    }
                    Func::Math(m) if !matches!(m, crate::eval::mathfn::MathFn::Conv) => {
                        // Numeric functions read ENUM/SET/BIT columns as numbers.
                        let args = args
                            .iter()
                            .map(|x| self.bind(x).map(|x| self.numeric_context(x)))
                            .collect::<Result<_>>()?;
                        self.charset_args(*f, args)?
                    }
                    Func::Concat | Func::Upper | Func::Lower | Func::Length | Func::CharLength => {
                        // A quotient reads as text at its item's scale (`CONCAT(1/3)`).
                        let args = args
                            .iter()
                            .map(|x| self.bind(x).map(|x| self.quotient_as_text(x)))
                            .collect::<Result<_>>()?;
                        self.charset_args(*f, args)?
                    }
                    _ => {
                        let args = args.iter().map(|x| self.bind(x)).collect::<Result<_>>()?;
                        self.charset_args(*f, args)?
                    }
                }
            }
            Expr::AggCall { kind, distinct, arg } => {
                let arg = match arg {
                    Some(a) => {
                        if a.has_aggregate() {
                            return Err(SqlError::InvalidGroupFunction);
                        }
                        let a = self.bind(a)?;
                        // SUM/AVG read ENUM/SET/BIT columns as numbers (`Item_sum_sum`).
                        Some(if matches!(kind, AggKind::Sum | AggKind::Avg) {
                            self.numeric_context(a)
                        } else {
                            a
                        })
                    }
                    None => None,
                };
                let coll = match &arg {
                    Some(a) => {
                        let d = self.dt(a)?;
                        d.is_string().then_some(d.id)
                    }
                    None => None,
                };
                let Some(aggs) = self.aggs.as_mut() else {
                    return Err(SqlError::InvalidGroupFunction);
                };
                aggs.push(AggSpec { kind: *kind, distinct: *distinct, arg, coll, concat: None });
                Expr::Agg(aggs.len() - 1)
            }
            Expr::InsertValue(x) => Expr::InsertValue(b(self, x)?),
            Expr::Default => Expr::Default,
            Expr::Window(w) => self.bind_window(w)?,
            Expr::Grouping(args) => self.bind_grouping(args)?,
        })
    }
}

impl Binder<'_> {
    /// `COLLATION(x)`, `CHARSET(x)`, `COERCIBILITY(x)` (`Item_func_collation`,
    /// `Item_func_charset`, `Item_func_coercibility`): answers of the argument's type, so a
    /// literal at binding (the argument is bound for its errors, never evaluated).
    fn collation_info(&mut self, f: crate::eval::morefn::MoreFn, args: &[Expr]) -> Result<Expr> {
        use crate::eval::morefn::MoreFn as M;
        let x = match args.first() {
            Some(x) => self.bind(x)?,
            None => return Err(SqlError::FunctionArgs("collation".into())),
        };
        // The session's names bind to literals; they are SYSCONST utf8mb3 (`Item_func_user`).
        let d = match args.first() {
            Some(Expr::Func(
                Func::User | Func::CurrentUser | Func::Database | Func::Version,
                _,
            )) => Dt::new(33, crate::eval::collate::SYSCONST, false),
            _ => self.dt(&x)?,
        };
        let info = collation::by_id(d.id);
        Ok(Expr::Lit(match f {
            M::Coercibility => Value::Int(i64::from(d.derivation)),
            M::Charset => {
                let name = info.map_or("binary", |c| c.charset.name());
                Value::Bytes(name.as_bytes().to_vec())
            }
            _ => Value::Bytes(info.map_or("binary", |c| c.name).as_bytes().to_vec()),
        }))
    }

    /// LIKE [ESCAPE c]: always collated (LIKE compares characters of strings).
    #[inline(never)]
    fn bind_like(&mut self, like: &Expr, escape: Option<char>) -> Result<Expr> {
        let Expr::Like { expr, pattern, negated } = like else {
            return Err(SqlError::Other {
                code: 1064,
                sqlstate: "42000",
                message: "ESCAPE without LIKE".into(),
            });
        };
        let x = self.bind(expr)?;
        let p = self.bind(pattern)?;
        let mut node = Expr::Like { expr: Box::new(x), pattern: Box::new(p), negated: *negated };
        if let Some(c) = escape {
            node = Expr::LikeEscape(Box::new(node), c);
        }
        self.collated(node, "like", true)
    }

    /// GROUP_CONCAT: an aggregate with its arguments, ORDER BY and separator bound.
    #[inline(never)]
    fn bind_group_concat(&mut self, g: &GroupConcat) -> Result<Expr> {
        if g.args.iter().any(Expr::has_aggregate) || g.order.iter().any(|o| o.expr.has_aggregate())
        {
            return Err(SqlError::InvalidGroupFunction);
        }
        let args: Vec<Expr> = g.args.iter().map(|a| self.bind(a)).collect::<Result<_>>()?;
        let mut arg_colls = Vec::with_capacity(args.len());
        for a in &args {
            let d = self.dt(a)?;
            arg_colls.push(d.is_string().then_some(d.id));
        }
        let mut order = Vec::with_capacity(g.order.len());
        for o in &g.order {
            let e = match &o.expr {
                // A position names an argument (mysqld: `ORDER BY 1` in GROUP_CONCAT).
                Expr::Lit(Value::Int(n)) => {
                    match usize::try_from(*n).ok().and_then(|n| args.get(n.wrapping_sub(1))) {
                        Some(x) => x.clone(),
                        None => {
                            return Err(SqlError::UnknownColumn {
                                column: n.to_string(),
                                context: "order clause",
                            })
                        }
                    }
                }
                e => self.bind(e)?,
            };
            let d = self.dt(&e)?;
            order.push((e, o.desc, d.is_string().then_some(d.id)));
        }
        let concat = ConcatSpec { args, arg_colls, order, separator: g.separator.clone() };
        let Some(aggs) = self.aggs.as_mut() else {
            return Err(SqlError::InvalidGroupFunction);
        };
        aggs.push(AggSpec {
            kind: AggKind::GroupConcat,
            distinct: g.distinct,
            arg: None,
            coll: None,
            concat: Some(Box::new(concat)),
        });
        Ok(Expr::Agg(aggs.len() - 1))
    }
}

/// The operands whose collations a comparing node aggregates.
fn operands(node: &Expr) -> Vec<&Expr> {
    match node {
        Expr::Binary(_, a, b) | Expr::Like { expr: a, pattern: b, .. } => vec![a, b],
        Expr::LikeEscape(x, _) => operands(x),
        Expr::Between { expr, low, high, .. } => vec![expr, low, high],
        Expr::InList { expr, list, .. } => std::iter::once(&**expr).chain(list).collect(),
        Expr::Case { operand: Some(o), whens, .. } => {
            std::iter::once(&**o).chain(whens.iter().map(|(w, _)| w)).collect()
        }
        Expr::Str(StrFunc::Locate, args) => args.iter().take(2).collect(),
        Expr::Func(Func::Math(_) | Func::More(_), args) => args.iter().collect(),
        Expr::Func(Func::Regex(_), args) => args.iter().take(2).collect(),
        Expr::Str(_, args) => args.iter().collect(),
        _ => Vec::new(),
    }
}

/// The text of a string constant (for the conversion check of collation aggregation).
fn const_text(e: &Expr) -> Option<&[u8]> {
    match e {
        Expr::Lit(Value::Bytes(b)) => Some(b),
        _ => None,
    }
}

/// A bound read of column `p`: a TIMESTAMP column's stored UTC value is read through
/// `TimeFn::FromUtc`, so every expression sees it in the session's time zone.
pub(crate) fn column_expr(table: Option<&TableSchema>, p: usize) -> Expr {
    match table.and_then(|t| t.columns.get(p)).map(|c| c.ty) {
        Some(ColumnType::Timestamp { .. }) => {
            Expr::Func(Func::Time(TimeFn::FromUtc), vec![Expr::Col(p)])
        }
        _ => Expr::Col(p),
    }
}

/// The column a bound expression reads as it is (`Col`, or a TIMESTAMP column's
/// [`column_expr`]).
fn plain_column(e: &Expr) -> Option<usize> {
    match e {
        Expr::Col(i) => Some(*i),
        Expr::Func(Func::Time(TimeFn::FromUtc), args) => match args.as_slice() {
            [Expr::Col(i)] => Some(*i),
            _ => None,
        },
        _ => None,
    }
}

/// Whether a bound expression reads no column (a constant for this execution).
pub(crate) fn is_const(e: &Expr) -> bool {
    let mut c = true;
    e.walk(&mut |x| c &= !matches!(x, Expr::Col(_) | Expr::Agg(_) | Expr::InsertValue(_)));
    c
}

/// `v` as a key value of `ty`, if it converts exactly.
pub(crate) fn key_value(v: &Value, ty: ColumnType) -> Option<Value> {
    match ty {
        ColumnType::Integer { unsigned, .. } => {
            let i: i128 = match v {
                Value::Int(i) => i128::from(*i),
                Value::UInt(u) => i128::from(*u),
                Value::Bytes(b) => std::str::from_utf8(b).ok()?.trim().parse().ok()?,
                Value::Decimal(d) => {
                    let r = d.rescale(0)?;
                    if r.rescale(d.scale)? != *d {
                        return None;
                    }
                    r.mantissa_i128()?
                }
                _ => return None,
            };
            if unsigned {
                u64::try_from(i).ok().map(Value::UInt)
            } else {
                i64::try_from(i).ok().map(Value::Int)
            }
        }
        ColumnType::Char(_) | ColumnType::VarChar(_) | ColumnType::Text => match v {
            Value::Bytes(_) => Some(v.clone()),
            _ => None,
        },
        ColumnType::Double => match v {
            Value::Int(i) => Some(Value::Double(*i as f64)),
            Value::UInt(u) => Some(Value::Double(*u as f64)),
            Value::Double(_) => Some(v.clone()),
            _ => None,
        },
        ColumnType::Decimal { scale, .. } => {
            let d = match v {
                Value::Int(i) => Decimal::new(i128::from(*i), 0),
                Value::UInt(u) => Decimal::new(i128::from(*u), 0),
                Value::Decimal(d) => *d,
                _ => return None,
            };
            let r = d.rescale(scale)?;
            (r.rescale(d.scale)? == d).then_some(Value::Decimal(r))
        }
        ColumnType::DateTime { fsp } => match v {
            Value::DateTime(t) if fsp == 6 || t.micros == 0 => Some(v.clone()),
            Value::Bytes(b) => {
                parse_datetime(b).filter(|t| fsp == 6 || t.micros == 0).map(Value::DateTime)
            }
            _ => None,
        },
        ColumnType::Binary(_)
        | ColumnType::VarBinary(_)
        | ColumnType::Blob { .. }
        | ColumnType::SizedText { .. }
        | ColumnType::Enum
        | ColumnType::Set
        | ColumnType::Bit(_)
        | ColumnType::Json => crate::output::bytes_types::key_value(v, ty),
        // Other temporal keys are found by a scan and the filter (their conversions depend
        // on sql_mode and the time zone).
        ColumnType::Timestamp { .. }
        | ColumnType::Date
        | ColumnType::Time { .. }
        | ColumnType::Year
        | ColumnType::Float => None,
    }
}

/// How rows are found.
#[derive(Debug)]
pub(crate) enum Access {
    /// Primary keys (all key columns), sorted and distinct.
    Keys(Vec<Vec<Value>>),
    /// Sorted, disjoint ranges of the primary key or of a secondary index (`range.rs`).
    Ranges(crate::range::RangeAccess),
    Full,
}

pub(crate) fn conjuncts<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match e {
        Expr::Binary(BinOp::And, a, b) => {
            conjuncts(a, out);
            conjuncts(b, out);
        }
        e => out.push(e),
    }
}

/// What the WHERE terms say about column `col`: equal values (an IN list or `=`), or bounds.
#[derive(Default)]
pub(crate) struct ColumnTerms {
    pub(crate) eq: Option<Vec<Value>>,
    pub(crate) lower: Option<Bound<Value>>,
    pub(crate) upper: Option<Bound<Value>>,
}

pub(crate) fn column_terms(terms: &[&Expr], col: usize, ty: ColumnType, coll: u16) -> ColumnTerms {
    let mut t = ColumnTerms::default();
    let konst = |e: &Expr| -> Option<Value> {
        if !is_const(e) {
            return None;
        }
        key_value(&eval(e, &[], &[]).ok()?, ty)
    };
    let tighten_lower = |cur: &mut Option<Bound<Value>>, b: Bound<Value>| {
        let replace = match (&*cur, &b) {
            (None, _) => true,
            (
                Some(Bound::Included(x) | Bound::Excluded(x)),
                Bound::Included(y) | Bound::Excluded(y),
            ) => compare(y, x) == Some(std::cmp::Ordering::Greater),
            _ => false,
        };
        if replace {
            *cur = Some(b);
        }
    };
    let tighten_upper = |cur: &mut Option<Bound<Value>>, b: Bound<Value>| {
        let replace = match (&*cur, &b) {
            (None, _) => true,
            (
                Some(Bound::Included(x) | Bound::Excluded(x)),
                Bound::Included(y) | Bound::Excluded(y),
            ) => compare(y, x) == Some(std::cmp::Ordering::Less),
            _ => false,
        };
        if replace {
            *cur = Some(b);
        }
    };
    for term in terms {
        // A string comparison bounds the key only under the key column's own collation (under
        // another, equal values need not have equal keys).
        let term: &Expr = match term {
            Expr::Collated(c, inner) if *c == coll => inner,
            Expr::Collated(..) => continue,
            t => t,
        };
        match term {
            Expr::Binary(op, l, r) => {
                let (op, other) = match (l.as_ref(), r.as_ref()) {
                    (Expr::Col(c), o) if *c == col => (*op, o),
                    (o, Expr::Col(c)) if *c == col => (flip(*op), o),
                    _ => continue,
                };
                let Some(v) = konst(other) else { continue };
                match op {
                    BinOp::Eq | BinOp::NullSafeEq => t.eq = Some(vec![v]),
                    BinOp::Gt => tighten_lower(&mut t.lower, Bound::Excluded(v)),
                    BinOp::Ge => tighten_lower(&mut t.lower, Bound::Included(v)),
                    BinOp::Lt => tighten_upper(&mut t.upper, Bound::Excluded(v)),
                    BinOp::Le => tighten_upper(&mut t.upper, Bound::Included(v)),
                    _ => {}
                }
            }
            Expr::Between { expr, low, high, negated: false } if **expr == Expr::Col(col) => {
                if let (Some(lo), Some(hi)) = (konst(low), konst(high)) {
                    tighten_lower(&mut t.lower, Bound::Included(lo));
                    tighten_upper(&mut t.upper, Bound::Included(hi));
                }
            }
            Expr::InList { expr, list, negated: false } if **expr == Expr::Col(col) => {
                let vals: Option<Vec<Value>> = list.iter().map(konst).collect();
                if let Some(v) = vals {
                    t.eq = Some(v);
                }
            }
            _ => {}
        }
    }
    t
}

fn flip(op: BinOp) -> BinOp {
    match op {
        BinOp::Lt => BinOp::Gt,
        BinOp::Le => BinOp::Ge,
        BinOp::Gt => BinOp::Lt,
        BinOp::Ge => BinOp::Le,
        o => o,
    }
}

/// Key values sorted and distinct under the key columns' collations (`positions`), so two
/// IN-list values equal under the collation ('a', 'A') fetch the row once.
fn sorted_distinct(
    schema: &TableSchema,
    positions: &[usize],
    v: Vec<Vec<Value>>,
) -> Vec<Vec<Value>> {
    let mut keyed: Vec<(Key, Vec<Value>)> =
        v.into_iter().map(|k| (schema.key_of_values(positions, &k), k)).collect();
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    keyed.dedup_by(|a, b| a.0 == b.0);
    keyed.into_iter().map(|(_, k)| k).collect()
}

/// Chooses the access path for a bound WHERE clause, estimating from the shape of the ranges
/// (no engine at hand); [`plan_access_in`] counts them.
pub(crate) fn plan_access(schema: &TableSchema, filter: Option<&Expr>) -> Access {
    plan_access_counted(schema, filter, None)
}

/// Chooses the access path for a bound WHERE clause of table `id`, choosing between indexes
/// by the engine's count of their ranges' entries (mysqld's index dives).
pub(crate) fn plan_access_in(
    engine: &engine::Engine,
    id: TableId,
    schema: &TableSchema,
    filter: Option<&Expr>,
) -> Access {
    let count = |index: Option<&str>, ranges: &[engine::ByteRange], cap: u64| {
        engine.count_key_ranges(id, index, ranges, cap).unwrap_or(u64::MAX)
    };
    plan_access_counted(schema, filter, Some(&count))
}

/// A constant's key value for a column of type `ty` (see `range::Konst`).
pub(crate) fn key_constant(e: &Expr, ty: ColumnType) -> Option<Option<Value>> {
    if !is_const(e) {
        return None;
    }
    match eval(e, &[], &[]).ok()? {
        Value::Null => Some(None),
        v => key_value(&v, ty).map(Some),
    }
}

/// [`key_constant`] for integer constants only: the range terms a read may skip re-checking
/// (`range::bounds_exactly`) compare an integer column with an integer, no conversion.
fn int_key_constant(e: &Expr, ty: ColumnType) -> Option<Option<Value>> {
    if !is_const(e) {
        return None;
    }
    match eval(e, &[], &[]).ok()? {
        v @ (Value::Int(_) | Value::UInt(_)) => key_value(&v, ty).map(Some),
        _ => None,
    }
}

/// The WHERE a non-locking read of `access` still has to check on the rows it yields: `filter`
/// without its terms that the ranges imply exactly (`range::bounds_exactly`; the rest keep
/// their order). None when no term was dropped; Some(None) when none is left. Exact because
/// a dropped term is TRUE on every row read, and `TRUE AND x` is `x`.
fn residual_filter(schema: &TableSchema, access: &Access, filter: &Expr) -> Option<Option<Expr>> {
    let Access::Ranges(r) = access else { return None };
    let mut terms = Vec::new();
    conjuncts(filter, &mut terms);
    let (exact, kept): (Vec<&Expr>, Vec<&Expr>) = terms
        .into_iter()
        .partition(|t| crate::range::bounds_exactly(schema, r, t, &int_key_constant));
    if exact.is_empty() {
        return None;
    }
    Some(
        kept.into_iter().cloned().reduce(|a, b| Expr::Binary(BinOp::And, Box::new(a), Box::new(b))),
    )
}

fn plan_access_counted(
    schema: &TableSchema,
    filter: Option<&Expr>,
    count: Option<crate::range::Count<'_>>,
) -> Access {
    let Some(filter) = filter else { return Access::Full };
    if crate::range::forced_scan() {
        return Access::Full;
    }
    let mut terms = Vec::new();
    conjuncts(filter, &mut terms);
    let pk = &schema.primary_key;
    if let Some(keys) = row_in_keys(schema, &terms) {
        return Access::Keys(sorted_distinct(schema, pk, keys));
    }
    if !pk.is_empty() {
        let per: Vec<ColumnTerms> = pk
            .iter()
            .map(|&c| column_terms(&terms, c, schema.columns[c].ty, schema.columns[c].collation))
            .collect();
        // Equality on every key column: point lookups (the cross product of IN lists).
        if per.iter().all(|t| t.eq.is_some()) {
            let mut keys: Vec<Vec<Value>> = vec![Vec::new()];
            for t in &per {
                let vals = t.eq.as_ref().map_or(&[][..], |v| v.as_slice());
                keys = keys
                    .into_iter()
                    .flat_map(|k| vals.iter().map(move |v| [k.clone(), vec![v.clone()]].concat()))
                    .collect();
                if keys.len() > 10_000 {
                    break;
                }
            }
            if keys.len() <= 10_000 {
                return Access::Keys(sorted_distinct(schema, pk, keys));
            }
        }
    }
    match crate::range::choose(schema, filter, &key_constant, count) {
        Some(r) => Access::Ranges(r),
        None => Access::Full,
    }
}

/// Primary keys from a WHERE term that is an OR of rows, each fixing every primary key column
/// by equality to a constant: what `(a, b) IN ((1, 2), (3, 4))` becomes (parse.rs `row_in`),
/// and `id = 1 OR id = 2` (mysqld's range optimizer makes the same point ranges). At most
/// 10 000 keys; None when no term has that shape.
fn row_in_keys(schema: &TableSchema, terms: &[&Expr]) -> Option<Vec<Vec<Value>>> {
    fn disjuncts<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
        match e {
            Expr::Binary(BinOp::Or, a, b) => {
                disjuncts(a, out);
                disjuncts(b, out);
            }
            e => out.push(e),
        }
    }
    let pk = &schema.primary_key;
    if pk.is_empty() {
        return None;
    }
    for term in terms {
        if !matches!(term, Expr::Binary(BinOp::Or, ..)) {
            continue;
        }
        let mut rows = Vec::new();
        disjuncts(term, &mut rows);
        if rows.len() > 10_000 {
            continue;
        }
        let n = rows.len();
        let mut keys = Vec::with_capacity(n);
        for row in rows {
            let mut conj = Vec::new();
            conjuncts(row, &mut conj);
            let mut key = Vec::with_capacity(pk.len());
            for &c in pk {
                let col = &schema.columns[c];
                match column_terms(&conj, c, col.ty, col.collation).eq {
                    Some(mut v) if v.len() == 1 => key.push(v.remove(0)),
                    _ => break,
                }
            }
            if key.len() != pk.len() {
                break;
            }
            keys.push(key);
        }
        if keys.len() == n {
            return Some(keys);
        }
    }
    None
}

/// The access path of a single-table SELECT: [`plan_access_in`], then the index order for
/// the ORDER BY where the chosen ranges give it, or (with a LIMIT and no usable range) a read
/// of a whole index in the ORDER BY's order (mysqld's `test_if_skip_sort_order`).
pub(crate) fn select_access(
    engine: &engine::Engine,
    id: TableId,
    schema: &TableSchema,
    filter: Option<&Expr>,
    order: &[(Expr, bool)],
    limited: bool,
) -> Access {
    let mut access = plan_access_in(engine, id, schema, filter);
    if order.is_empty() {
        return access;
    }
    match &mut access {
        Access::Ranges(r) => {
            if let Some(rev) =
                crate::range::serves_order(schema, r.index.as_deref(), r.const_parts, order)
            {
                r.reverse = rev;
                r.ordered = true;
            }
        }
        Access::Full if limited && !crate::range::forced_scan() => {
            let names = std::iter::once(None)
                .filter(|_| !schema.primary_key.is_empty())
                .chain(schema.indexes.iter().map(|i| Some(i.name.as_str())));
            for name in names {
                if let Some(rev) = crate::range::serves_order(schema, name, 0, order) {
                    return Access::Ranges(crate::range::whole_index(schema, name, rev));
                }
            }
        }
        _ => {}
    }
    access
}

/// The first `need` rows of range access `r` that `filter` keeps, in the access's order: read
/// in growing batches, each resuming after the last entry read (a LIMIT stops the scan).
pub(crate) fn fetch_matching(
    engine: &engine::Engine,
    txn: &Txn,
    id: TableId,
    r: &crate::range::RangeAccess,
    filter: Option<&Expr>,
    need: usize,
) -> Result<Vec<SharedRow>> {
    let first = need.saturating_add(1).clamp(8, 1 << 16);
    in_batches(r, need, first, |ranges, batch, out| {
        let got = engine.scan_key_ranges(txn, id, r.index.as_deref(), ranges, batch, r.reverse)?;
        let seen = (got.len(), got.last().map(|g| g.entry().to_vec()));
        for g in got {
            if out.len() >= need {
                break;
            }
            if matches(filter, g.row())? {
                out.push(g.into_shared());
            }
        }
        Ok(seen)
    })
}

/// The batched loop of [`fetch_matching`] and [`fetch_locked_matching`]: `read` reads one
/// batch of at most `batch` entries of `ranges`, pushes the rows it keeps into `out` (never
/// past `need`) and returns how many entries it read and the last one; the next batch, twice
/// as large up to 65 536, resumes after that entry. Stops at `need` rows or a short batch.
fn in_batches(
    r: &crate::range::RangeAccess,
    need: usize,
    first: usize,
    mut read: impl FnMut(
        &[engine::ByteRange],
        usize,
        &mut Vec<SharedRow>,
    ) -> Result<(usize, Option<Vec<u8>>)>,
) -> Result<Vec<SharedRow>> {
    let mut out = Vec::new();
    if need == 0 {
        return Ok(out);
    }
    let mut ranges = r.ranges.clone();
    let mut batch = first;
    loop {
        let (n, last) = read(&ranges, batch, &mut out)?;
        if out.len() >= need {
            return Ok(out);
        }
        let Some(last) = last.filter(|_| n == batch) else { return Ok(out) };
        ranges = crate::range::after(&ranges, &last, r.reverse);
        batch = batch.saturating_mul(2).min(1 << 16);
    }
}

/// Locks one row by its clustered key (X, or S when `shared`) and returns its newest image.
pub(crate) fn lock_row(
    engine: &engine::Engine,
    txn: &mut Txn,
    id: TableId,
    key: &[u8],
    shared: bool,
) -> Result<Option<Row>> {
    Ok(if shared {
        engine.get_for_share(txn, id, key)?
    } else {
        engine.get_for_update(txn, id, key)?
    })
}

/// A locking read's first `need` rows of ranges read in the statement's order that match
/// `filter` on their newest, locked image: read in batches (the first of `need` entries,
/// then doubling), each entry locked and re-checked before the next batch is read, so that
/// `SELECT ... ORDER BY pk LIMIT 1 FOR UPDATE` locks (and gap-locks, `Engine::read_ranges`)
/// the rows up to its first match only, as InnoDB's scan stops at the LIMIT
/// (`row_search_mvcc` locks each record it reaches; the executor stops asking for rows at
/// the limit), instead of every row of the ranges.
fn fetch_locked_matching(
    engine: &engine::Engine,
    txn: &mut Txn,
    id: TableId,
    r: &crate::range::RangeAccess,
    filter: Option<&Expr>,
    need: usize,
    shared: bool,
) -> Result<Vec<SharedRow>> {
    in_batches(r, need, need.min(1 << 16), |ranges, batch, out| {
        let got = engine.scan_key_ranges(txn, id, r.index.as_deref(), ranges, batch, r.reverse)?;
        let seen = (got.len(), got.last().map(|g| g.entry().to_vec()));
        for g in got {
            if out.len() >= need {
                break;
            }
            if let Some(row) = lock_row(engine, txn, id, g.key(), shared)? {
                if matches(filter, &row)? {
                    out.push(SharedRow::from(row));
                }
            }
        }
        Ok(seen)
    })
}

/// The rows an access path yields, in key order (before the WHERE filter).
pub(crate) fn fetch(
    engine: &engine::Engine,
    txn: &Txn,
    id: TableId,
    access: &Access,
    limit: usize,
) -> Result<Vec<(Key, Row)>> {
    Ok(match access {
        Access::Keys(keys) => {
            let mut out = Vec::with_capacity(keys.len());
            for k in keys {
                let key = engine.key_in(id, k)?;
                if let Some(r) = engine.get(txn, id, &key)? {
                    out.push((key, r));
                }
            }
            out
        }
        Access::Ranges(r) => engine
            .scan_key_ranges(txn, id, r.index.as_deref(), &r.ranges, limit, r.reverse)?
            .into_iter()
            .map(RangeRow::into_owned)
            .collect(),
        Access::Full => engine.scan(txn, id, Bound::Unbounded, Bound::Unbounded, limit)?,
    })
}

/// [`fetch`] without the keys, each row shared with the table rather than copied (a
/// non-locking read: the rows are only read).
pub(crate) fn fetch_shared(
    engine: &engine::Engine,
    txn: &Txn,
    id: TableId,
    access: &Access,
    limit: usize,
) -> Result<Vec<SharedRow>> {
    let ranges = |index: Option<&str>, ranges: &[engine::ByteRange], reverse| {
        Ok::<_, SqlError>(
            engine
                .scan_key_ranges(txn, id, index, ranges, limit, reverse)?
                .into_iter()
                .map(RangeRow::into_shared)
                .collect(),
        )
    };
    match access {
        Access::Keys(keys) => {
            let mut out = Vec::with_capacity(keys.len());
            for k in keys {
                let key = engine.key_in(id, k)?;
                if let Some(r) = engine.get_shared(txn, id, &key)? {
                    out.push(r);
                }
            }
            Ok(out)
        }
        Access::Ranges(r) => ranges(r.index.as_deref(), &r.ranges, r.reverse),
        // The whole primary index (the clustered map, a hidden key's too), as `Engine::scan`.
        Access::Full => ranges(None, &[(Bound::Unbounded, Bound::Unbounded)], false),
    }
}

/// Whether a bound WHERE clause holds for `row`.
pub(crate) fn matches(filter: Option<&Expr>, row: &[Value]) -> Result<bool> {
    match filter {
        None => Ok(true),
        Some(f) => Ok(truth(&eval(f, row, &[])?) == Some(true)),
    }
}

/// A non-negative integer from LIMIT/OFFSET.
pub(crate) fn count_value(sess: &Session, e: &Expr, params: &[Value]) -> Result<u64> {
    match sess.const_value(e, params)? {
        Value::Int(i) if i >= 0 => Ok(i as u64),
        Value::UInt(u) => Ok(u),
        Value::Bytes(b) => String::from_utf8_lossy(&b)
            .trim()
            .parse()
            .map_err(|_| SqlError::WrongArguments("LIMIT")),
        _ => Err(SqlError::WrongArguments("LIMIT")),
    }
}

#[derive(Clone)]
pub(crate) struct SelectPlan {
    table: Option<(TableId, Arc<TableSchema>)>,
    /// A table the server makes up instead (information_schema.PROCESSLIST): its rows.
    made_up: Option<(Arc<TableSchema>, Vec<Row>)>,
    items: Vec<Expr>,
    pub(crate) columns: Vec<ResultColumn>,
    filter: Option<Expr>,
    group_by: Vec<Expr>,
    having: Option<Expr>,
    order: Vec<(Expr, bool)>,
    aggs: Vec<AggSpec>,
    grouped: bool,
    /// The collations (None: not a string) of the select items (DISTINCT), ORDER BY keys and
    /// GROUP BY keys.
    item_colls: Vec<Option<u16>>,
    order_colls: Vec<Option<u16>>,
    group_colls: Vec<Option<u16>>,
    /// `group_concat_max_len`.
    concat_max: usize,
    /// A multi-table FROM: the bound WHERE and ON conditions (per join, FROM order after the
    /// first table) the query layer runs; `filter` is then None.
    pub(crate) join_filter: Option<Expr>,
    pub(crate) join_on: Vec<Option<Expr>>,
    /// GROUP BY ... WITH ROLLUP (`exec/rollup.rs`).
    rollup: Option<rollup::Rollup>,
    /// The window functions (`exec/window.rs`), in the order they are computed.
    windows: Vec<window::Window>,
    /// With ROLLUP, GROUPING() or windows: the width of a row's results (aggregates, group
    /// slots, late slots); 0 otherwise.
    late_len: usize,
}

/// What a prepared single-table SELECT keeps in its [`PlanCache`] between executions:
/// everything [`Session::plan_select`] derives from the statement, the table's
/// definition and the session's variables (the table and columns resolved, the select list,
/// ORDER BY, GROUP BY, HAVING and aggregates bound, the result's column metadata), all but
/// the WHERE clause, which holds the parameters and is bound again at each execution. The
/// access path is chosen at each execution from the bound WHERE (its ranges depend on the
/// values). mysqld keeps a prepared statement's resolved tree the same way and re-prepares it
/// when the metadata it was resolved against changed (`Prepared_statement::execute_loop`,
/// `ER_NEED_REPREPARE` handled internally).
///
/// Invariants: a cached plan is used only when the statement's select list, ORDER BY, GROUP
/// BY and HAVING read no parameter, variable or function bound per execution
/// ([`plan_reusable`]), and only under what it was made under: the same session (its
/// `plan_epoch`, new at COM_RESET_CONNECTION), the same session and global variable
/// generations (any SET: sql_mode, collation_connection, time_zone, ...), and the table as
/// resolved now (same database, engine id and definition: any DDL on the table, a DROP and
/// CREATE, a RENAME or a USE of another database makes another `Arc<TableSchema>`, id or
/// database). Privileges are not part of it: they are checked before every execution.
/// Fields: the plan (its `filter` None) and what it was made under.
struct CachedPlan {
    epoch: u64,
    vars: (u64, u64),
    db: String,
    id: TableId,
    schema: Arc<TableSchema>,
    plan: SelectPlan,
}

/// Whether `s`'s plan less its WHERE is the same at every execution: one stored table, and a
/// select list, ORDER BY, GROUP BY and HAVING of columns, literals, operators and aggregates
/// only (no `?`, no variable, no function: NOW(), DATABASE(), LAST_INSERT_ID() ... are bound
/// to their value per execution), and a WHERE without aggregates or windows (it is bound
/// alone, after the rest).
fn plan_reusable(s: &Select) -> bool {
    fn fixed(e: &Expr, where_clause: bool) -> bool {
        let mut ok = true;
        e.walk(&mut |x| {
            ok &= match x {
                Expr::Subquery(_) | Expr::Query(_) | Expr::OuterRef(_) | Expr::InsertValue(_) => {
                    false
                }
                Expr::Window(_) | Expr::Grouping(_) | Expr::Default => false,
                Expr::AggCall { .. } | Expr::Agg(_) | Expr::GroupConcat(_) => !where_clause,
                Expr::Param(_) | Expr::SysVar { .. } | Expr::UserVar(_) | Expr::Func(..) => {
                    where_clause
                }
                _ => true,
            }
        });
        ok
    }
    let items = s.items.iter().all(|i| match i {
        SelectItem::Expr { expr, .. } => fixed(expr, false),
        SelectItem::Wildcard | SelectItem::TableWildcard(..) => true,
    });
    s.from.is_some()
        && !s.is_multi()
        && s.query_expr().is_none()
        && items
        && s.order_by.iter().all(|o| fixed(&o.expr, false))
        && s.group_by.iter().all(|g| fixed(g, false))
        && s.having.as_ref().is_none_or(|h| fixed(h, false))
        && s.filter.as_ref().is_none_or(|f| fixed(f, true))
}

impl Session {
    fn plan_select(&self, s: &Select, params: Option<&[Value]>) -> Result<SelectPlan> {
        self.plan_select_in(s, params, None)
    }

    /// [`Session::plan_select`] through a prepared statement's [`PlanCache`]: the cached plan
    /// with the WHERE bound to `params` when it is still valid, else a fresh plan (cached when
    /// [`plan_reusable`]).
    fn plan_select_cached(
        &self,
        s: &Select,
        params: &[Value],
        cache: &PlanCache,
    ) -> Result<SelectPlan> {
        if !plan_reusable(s) {
            return self.plan_select(s, Some(params));
        }
        let vars = self.vars_generation();
        // The table as resolved now (an error, or an information_schema table, plans afresh).
        let resolved = s.from.as_ref().and_then(|t| self.resolve_table(t).ok());
        if let Some((id, schema, db)) = &resolved {
            let cached = cache.with(|c: &CachedPlan| match c {
                c if c.epoch == self.plan_epoch
                    && c.vars == vars
                    && c.id == *id
                    && Arc::ptr_eq(&c.schema, schema)
                    && c.db == *db =>
                {
                    Some(c.plan.clone())
                }
                _ => None,
            });
            if let Some(mut plan) = cached {
                if let Some(f) = &s.filter {
                    let mut b = self.binder(Some(schema), params, "where clause");
                    b = b.with_alias(s.alias.as_ref());
                    b.aggs = Some(Vec::new());
                    b.late = Some(Vec::new());
                    plan.filter = Some(b.bind(f)?);
                }
                return Ok(plan);
            }
        }
        let plan = self.plan_select(s, Some(params))?;
        let made_from = match (&resolved, &plan.table, &plan.made_up) {
            (Some((id, schema, db)), Some((pid, pschema)), None)
                if id == pid && Arc::ptr_eq(schema, pschema) =>
            {
                Some((*id, schema.clone(), db.clone()))
            }
            _ => None,
        };
        if let Some((id, schema, db)) = made_from {
            let mut kept = plan.clone();
            kept.filter = None;
            cache.keep(CachedPlan { epoch: self.plan_epoch, vars, db, id, schema, plan: kept });
        }
        Ok(plan)
    }

    /// Plans a SELECT over one table, or (`scope`) over the joined row of a multi-table FROM.
    pub(crate) fn plan_select_in(
        &self,
        s: &Select,
        params: Option<&[Value]>,
        scope: Option<&Scope>,
    ) -> Result<SelectPlan> {
        let made_up = match scope {
            None => s.from.as_ref().and_then(|t| self.information_schema_table(t)),
            Some(_) => None,
        };
        let table = match (&s.from, &made_up, scope) {
            (Some(t), None, None) => Some(self.resolve_table(t)?),
            _ => None,
        };
        let schema = table
            .as_ref()
            .map(|(_, s, _)| s.as_ref())
            .or_else(|| made_up.as_ref().map(|(s, _)| s.as_ref()))
            .or_else(|| scope.map(|sc| sc.schema.as_ref()));
        let db = match (&table, &made_up) {
            (Some((_, _, d)), _) => d.clone(),
            (None, Some(_)) => "information_schema".to_string(),
            (None, None) => String::new(),
        };
        let tlabel =
            s.alias.clone().or_else(|| s.from.as_ref().map(|t| t.name.clone())).unwrap_or_default();
        let mut b = self.binder(schema, &[], "field list").with_alias(s.alias.as_ref());
        b.params = params;
        b.scope = scope;
        b.aggs = Some(Vec::new());
        b.late = Some(Vec::new());
        b.windows_ok = true;
        let mut items = Vec::new();
        let mut columns = Vec::new();
        let mut aliases = Vec::new();
        for item in &s.items {
            match item {
                SelectItem::Wildcard | SelectItem::TableWildcard(..) if scope.is_some() => {
                    let Some(sc) = scope else { continue };
                    let positions = match item {
                        SelectItem::TableWildcard(d, t) => sc.table_star(d.as_deref(), t)?,
                        _ => sc.star.clone(),
                    };
                    for p in positions {
                        items.push(column_expr(schema, p));
                        columns.push(scope_column(sc, p));
                    }
                }
                SelectItem::TableWildcard(d, t)
                    if !(t.eq_ignore_ascii_case(&tlabel)
                        && d.as_ref()
                            .is_none_or(|d| s.alias.is_none() && d.eq_ignore_ascii_case(&db))) =>
                {
                    return Err(SqlError::Other {
                        code: 1051,
                        sqlstate: "42S02",
                        message: format!("Unknown table '{t}'"),
                    });
                }
                SelectItem::Wildcard | SelectItem::TableWildcard(..) => {
                    let Some(sc) = schema else {
                        return Err(SqlError::Other {
                            code: 1096,
                            sqlstate: "HY000",
                            message: "No tables used".into(),
                        });
                    };
                    for (i, c) in sc.columns.iter().enumerate() {
                        items.push(column_expr(Some(sc), i));
                        let mut col =
                            ResultColumn::for_table_column(&db, &tlabel, c, key_flags(sc, i));
                        // table is the alias, org_table the table's own name.
                        col.org_table = own_table_name(sc).to_string();
                        columns.push(col);
                    }
                }
                SelectItem::Expr { expr, label, aliased } => {
                    let bound = b.bind(expr)?;
                    let mut col = match (plain_column(&bound), schema) {
                        (Some(i), Some(_)) if scope.is_some() => scope
                            .map(|sc| scope_column(sc, i))
                            .unwrap_or_else(|| ResultColumn::expr(label, MysqlType::Null)),
                        (Some(i), Some(sc)) => {
                            let mut c = ResultColumn::for_table_column(
                                &db,
                                &tlabel,
                                &sc.columns[i],
                                key_flags(sc, i),
                            );
                            c.org_table = own_table_name(sc).to_string();
                            c
                        }
                        _ => {
                            let aggs = b.aggs.as_deref().unwrap_or(&[]);
                            let ty = expr_type(&bound, schema, aggs);
                            let mut c = ResultColumn::expr(label, ty);
                            if ty == MysqlType::NewDecimal {
                                c.decimals = decimal_scale(&bound, schema, aggs);
                            }
                            temporal_expr_column(&mut c, &bound, schema, aggs);
                            refine_expr_column(&mut c, &bound, schema, aggs);
                            derived_length(&mut c, &bound, schema);
                            if let Expr::Func(crate::ast::Func::Bytes(bf), _) = &bound {
                                crate::eval::json_funcs::refine_column(&mut c, *bf);
                            }
                            // A JSON result is sent as mysqld sends JSON_SET's.
                            if let Expr::Func(crate::ast::Func::Json(j), _) = &bound {
                                if j.is_json() {
                                    crate::eval::json_funcs::refine_column(
                                        &mut c,
                                        crate::ast::BytesFunc::JsonSet,
                                    );
                                }
                            }
                            c
                        }
                    };
                    col.name = label.clone();
                    if let Some(c) = window::item_column(&b, &bound, schema, label) {
                        col = c;
                    }
                    if *aliased {
                        aliases.push((label.clone(), bound.clone()));
                    }
                    items.push(bound);
                    columns.push(col);
                }
            }
        }
        // Aliases name select items for ORDER BY and HAVING only: a later item of the select
        // list that names a column reads the column even where an earlier alias has the same
        // name (`SELECT CASE ... END AS DATA_TYPE, UPPER(DATA_TYPE)`, Connector/J's getColumns),
        // as mysqld resolves field-list names against the tables (`Item_field::fix_fields`).
        b.aliases = aliases;
        b.context = "order clause";
        let mut order = Vec::new();
        for o in &s.order_by {
            let e = match &o.expr {
                Expr::Lit(Value::Int(n)) => {
                    match usize::try_from(*n).ok().and_then(|n| items.get(n.wrapping_sub(1))) {
                        Some(x) => x.clone(),
                        None => {
                            return Err(SqlError::UnknownColumn {
                                column: n.to_string(),
                                context: "order clause",
                            })
                        }
                    }
                }
                e => b.bind(e)?,
            };
            let e = crate::eval::json_funcs::enum_order_key(e, schema);
            order.push((e, o.desc));
        }
        let coll_of = |b: &Binder<'_>, e: &Expr| -> Result<Option<u16>> {
            let d = b.dt(e)?;
            Ok(d.is_string().then_some(d.id))
        };
        let item_colls = items.iter().map(|e| coll_of(&b, e)).collect::<Result<Vec<_>>>()?;
        let order_colls = order.iter().map(|(e, _)| coll_of(&b, e)).collect::<Result<Vec<_>>>()?;
        b.context = "having clause";
        b.windows_ok = false;
        let mut having = s.having.as_ref().map(|h| b.bind(h)).transpose()?;
        let late = b.late.take().unwrap_or_default();
        let aggs = b.aggs.take().unwrap_or_default();
        if !aggs.is_empty() && s.group_by.is_empty() {
            // Implicit grouping: with no rows, the non-aggregated items are NULL (mysqld
            // marks them nullable).
            for (item, col) in items.iter().zip(columns.iter_mut()) {
                if is_derived(item) {
                    col.flags &= !flags::NOT_NULL;
                }
            }
        }
        b.aliases.clear();
        b.context = "group statement";
        let group_by = s.group_by.iter().map(|g| b.bind(g)).collect::<Result<Vec<_>>>()?;
        let group_colls = group_by.iter().map(|e| coll_of(&b, e)).collect::<Result<Vec<_>>>()?;
        let finished = if late.is_empty() && !s.rollup {
            None
        } else {
            let mut exprs: Vec<&mut Expr> = items.iter_mut().collect();
            exprs.extend(order.iter_mut().map(|(e, _)| e));
            exprs.extend(having.iter_mut());
            let f = rollup::finish(&mut exprs, late, &group_by, aggs.len(), s.rollup)?;
            if let Some(r) = &f.rollup {
                // Rolled-up values are NULL in the super-aggregate rows.
                for (item, col) in items.iter().zip(columns.iter_mut()) {
                    if rollup::reads_group_slot(item, r, group_by.len()) {
                        col.flags &= !flags::NOT_NULL;
                    }
                }
            }
            Some(f)
        };
        b.context = "where clause";
        let mut filter = s.filter.as_ref().map(|f| b.bind(f)).transpose()?;
        let mut join_filter = None;
        let mut join_on = Vec::new();
        if scope.is_some() {
            join_filter = filter.take();
            b.context = "on clause";
            for j in &s.joins {
                join_on.push(j.on.as_ref().map(|e| b.bind(e)).transpose()?);
            }
        }
        let grouped = !aggs.is_empty() || !group_by.is_empty();
        let (rollup, windows, late_len) = match finished {
            None => (None, Vec::new(), 0),
            Some(f) => (f.rollup, f.windows, f.late_len),
        };
        Ok(SelectPlan {
            rollup,
            windows,
            late_len,
            table: table.map(|(id, s, _)| (id, s)),
            made_up,
            items,
            columns,
            filter,
            group_by,
            having,
            order,
            aggs,
            grouped,
            item_colls,
            order_colls,
            group_colls,
            concat_max: match self.sysvar(VarScope::Session, "group_concat_max_len") {
                Ok(Value::UInt(u)) => usize::try_from(u).unwrap_or(usize::MAX),
                Ok(Value::Int(i)) => usize::try_from(i).unwrap_or(1024),
                _ => 1024,
            },
            join_filter,
            join_on,
        })
    }

    /// The result columns of a SELECT (for PREPARE).
    pub(crate) fn select_columns(&self, s: &Select) -> Result<Vec<ResultColumn>> {
        Ok(self.plan_select(s, None)?.columns)
    }

    pub(crate) fn select(&mut self, s: &Select, params: &[Value]) -> Result<Output> {
        self.select_with(s, params, None)
    }

    /// [`Session::select`] of a prepared statement, whose plan `cache` keeps
    /// ([`PlanCache`]).
    pub(crate) fn select_with(
        &mut self,
        s: &Select,
        params: &[Value],
        cache: Option<&PlanCache>,
    ) -> Result<Output> {
        let mut plan = match cache {
            Some(c) => self.plan_select_cached(s, params, c)?,
            None => self.plan_select(s, Some(params))?,
        };
        let limit = s.limit.as_ref().map(|l| count_value(self, l, params)).transpose()?;
        let offset =
            s.offset.as_ref().map(|o| count_value(self, o, params)).transpose()?.unwrap_or(0);
        let source: Vec<SharedRow> = match &plan.table {
            None if plan.made_up.is_some() => {
                let made_up =
                    plan.made_up.as_mut().map(|(_, rows)| std::mem::take(rows)).unwrap_or_default();
                let mut out = Vec::with_capacity(made_up.len());
                for r in made_up {
                    if matches(plan.filter.as_ref(), &r)? {
                        out.push(SharedRow::from(r));
                    }
                }
                out
            }
            None => {
                if matches(plan.filter.as_ref(), &[])? {
                    vec![SharedRow::from(Vec::new())]
                } else {
                    Vec::new()
                }
            }
            Some((id, schema)) => {
                let engine = self.server.engine.clone();
                let unsorted = !plan.grouped && !s.distinct && plan.windows.is_empty();
                let order: &[(Expr, bool)] = if unsorted { &plan.order } else { &[] };
                let access = select_access(
                    &engine,
                    *id,
                    schema,
                    plan.filter.as_ref(),
                    order,
                    limit.is_some(),
                );
                // Without ordering, grouping or DISTINCT the scan can stop early.
                let simple = plan.order.is_empty()
                    && !plan.grouped
                    && !s.distinct
                    && plan.filter.is_none()
                    && plan.windows.is_empty();
                // A range read in the ORDER BY's order (or with none) stops after LIMIT rows.
                let ranged_limit = match (&access, limit) {
                    (Access::Ranges(r), Some(l))
                        if unsorted && (plan.order.is_empty() || r.ordered) =>
                    {
                        Some(usize::try_from(l.saturating_add(offset)).unwrap_or(usize::MAX))
                    }
                    _ => None,
                };
                let scan_limit = match (simple, limit) {
                    (true, Some(l)) => {
                        usize::try_from(l.saturating_add(offset)).unwrap_or(usize::MAX)
                    }
                    _ => usize::MAX,
                };
                let single_row = matches!(&access, Access::Keys(k) if k.len() == 1);
                let locking = self.prepare_select_reads(s.for_update, single_row)?;
                // FOR UPDATE takes X locks; FOR SHARE and SERIALIZABLE's plain reads S locks.
                let shared = !s.for_update || s.for_share;
                // A plain read need not re-check the terms its ranges imply.
                let residual = match &plan.filter {
                    Some(f) if !locking => residual_filter(schema, &access, f),
                    _ => None,
                };
                let filter = residual.as_ref().map_or(plan.filter.as_ref(), Option::as_ref);
                let open = self.txn_mut()?;
                // A locking read without a WHERE filter whose ranges give the order reads (and
                // so gap-locks) only the rows its LIMIT needs, as InnoDB's scan stops there
                // (`SELECT ... ORDER BY id LIMIT 1 FOR UPDATE` locks the first row only).
                let lock_limit = match ranged_limit {
                    Some(need) if plan.filter.is_none() => need,
                    _ => scan_limit,
                };
                let read = if locking {
                    // A locking read: the newest committed rows, each locked.
                    let need = match (&access, ranged_limit) {
                        (Access::Ranges(r), Some(need)) => Some((r, need)),
                        _ => None,
                    };
                    match need {
                        Some((r, need)) => fetch_locked_matching(
                            &engine,
                            &mut open.txn,
                            *id,
                            r,
                            filter,
                            need,
                            shared,
                        )
                        .map(|rows| (rows, true)),
                        None => {
                            fetch(&engine, &open.txn, *id, &access, lock_limit).and_then(|cands| {
                                let mut locked = Vec::with_capacity(cands.len());
                                for (k, _) in cands {
                                    // The newest version: the whole WHERE is checked again.
                                    if let Some(r) =
                                        lock_row(&engine, &mut open.txn, *id, &k, shared)?
                                    {
                                        locked.push(SharedRow::from(r));
                                    }
                                }
                                Ok((locked, false))
                            })
                        }
                    }
                } else if let (Access::Ranges(r), Some(need)) = (&access, ranged_limit) {
                    // Already filtered: the scan stops after `need` matching rows.
                    fetch_matching(&engine, &open.txn, *id, r, filter, need)
                        .map(|rows| (rows, true))
                } else {
                    fetch_shared(&engine, &open.txn, *id, &access, scan_limit)
                        .map(|rows| (rows, false))
                };
                self.finish_select_reads();
                let (rows, filtered) = read?;
                if filtered || filter.is_none() {
                    rows
                } else {
                    let mut out = Vec::with_capacity(rows.len());
                    for r in rows {
                        if matches(filter, &r)? {
                            out.push(r);
                        }
                    }
                    out
                }
            }
        };
        let width = plan
            .table
            .as_ref()
            .map(|(_, s)| s.columns.len())
            .or_else(|| plan.made_up.as_ref().map(|(s, _)| s.columns.len()))
            .unwrap_or(0);
        self.finish_select(plan, source, width, s.distinct, limit, offset)
    }

    /// The rest of a SELECT over its source rows (already filtered by WHERE; `width` columns
    /// each): grouping and HAVING, the select list, DISTINCT, ORDER BY, LIMIT/OFFSET. Shared
    /// by the single-table path and the query layer's joins.
    pub(crate) fn finish_select<S: AsRef<[Value]>>(
        &mut self,
        plan: SelectPlan,
        mut source: Vec<S>,
        width: usize,
        distinct: bool,
        limit: Option<u64>,
        offset: u64,
    ) -> Result<Output> {
        // (output row, sort keys)
        let mut rows: Vec<(Vec<Value>, Vec<Value>)> = Vec::new();
        let reuse = order_reuse(&plan);
        // With window functions the rows (after HAVING) wait for them before the select list.
        let windowed = !plan.windows.is_empty();
        let mut staged: Vec<(Row, Vec<Value>)> = Vec::new();
        if plan.grouped {
            let (groups, cut) = match &plan.rollup {
                None => group(&plan, std::mem::take(&mut source), width)?,
                Some(r) => {
                    let owned = source.iter().map(|r| r.as_ref().to_vec()).collect();
                    rollup::groups(&plan, r, owned, width)?
                }
            };
            for row in cut {
                self.warnings.push(super::session::Warning {
                    level: "Warning",
                    code: 1260,
                    message: format!("Row {row} was cut by GROUP_CONCAT()"),
                });
            }
            for (first, results) in groups {
                if let Some(h) = &plan.having {
                    if truth(&eval(h, &first, &results)?) != Some(true) {
                        continue;
                    }
                }
                if windowed {
                    staged.push((first, results));
                    continue;
                }
                rows.push(project(&plan, &reuse, &first, &results)?);
            }
        } else {
            for r in source.iter().map(AsRef::as_ref) {
                // HAVING without grouping filters the rows like a WHERE that may name the
                // select list's aliases (mysqld evaluates it after the join, per row).
                if let Some(h) = &plan.having {
                    if truth(&eval(h, r, &[])?) != Some(true) {
                        continue;
                    }
                }
                if windowed {
                    staged.push((r.to_vec(), Vec::new()));
                    continue;
                }
                rows.push(project(&plan, &reuse, r, &[])?);
            }
        }
        if windowed {
            window::compute(&plan, &mut staged)?;
            for (r, results) in &staged {
                rows.push(project(&plan, &reuse, r, results)?);
            }
        }
        if distinct {
            // Strings compared under their collation, not keyed (`exec/collated_sort.rs`).
            let colls = collated_sort::costly(&plan.item_colls);
            let keep = collated_sort::dedup(&rows, |(out, _)| out.as_slice(), &colls);
            let mut i = 0;
            rows.retain(|_| {
                i += 1;
                keep[i - 1]
            });
        }
        if !plan.order.is_empty() {
            let desc: Vec<bool> = plan.order.iter().map(|(_, d)| *d).collect();
            let colls = collated_sort::costly(&plan.order_colls);
            rows.sort_by(|a, b| {
                let (ka, kb) = (|i| order_key(a, &reuse, i), |i| order_key(b, &reuse, i));
                collated_sort::cmp_keys_by(ka, kb, &colls, &desc)
            });
        }
        let start = usize::try_from(offset).unwrap_or(usize::MAX).min(rows.len());
        let end = match limit {
            Some(l) => {
                start.saturating_add(usize::try_from(l).unwrap_or(usize::MAX)).min(rows.len())
            }
            None => rows.len(),
        };
        let types: Vec<MysqlType> = plan.columns.iter().map(|c| c.mysql_type).collect();
        let unsigned: Vec<bool> =
            plan.columns.iter().map(|c| c.flags & flags::UNSIGNED != 0).collect();
        let out = rows
            .drain(start..end)
            .map(|(r, _)| {
                r.into_iter().enumerate().map(|(i, v)| conform(v, types[i], unsigned[i])).collect()
            })
            .collect();
        Ok(Output::Rows { columns: plan.columns, rows: out })
    }
}

/// The result column of joined-row position `p`: the table's column as mysqld describes it
/// (`table` the alias, `org_table` the table's name, `db`), nullable when outer-joined.
fn scope_column(sc: &Scope, p: usize) -> ResultColumn {
    let Some(e) = sc.entry_of(p) else {
        return ResultColumn::expr("", MysqlType::Null);
    };
    let i = p - e.offset;
    let mut c = ResultColumn::for_table_column(
        &e.db,
        &e.label,
        &e.schema.columns[i],
        key_flags(&e.schema, i),
    );
    c.org_table = own_table_name(&e.schema).to_string();
    if e.nullable {
        c.flags &= !flags::NOT_NULL;
    }
    c
}

/// ORDER BY order: NULLs first, then SQL comparison.
pub(crate) fn order_cmp(a: &Value, b: &Value) -> std::cmp::Ordering {
    use std::cmp::Ordering::*;
    match (a, b) {
        (Value::Null, Value::Null) => Equal,
        (Value::Null, _) => Less,
        (_, Value::Null) => Greater,
        _ => compare(a, b).unwrap_or(Equal),
    }
}

/// The output row and its ORDER BY keys (as evaluated: the sort compares strings under
/// `order_colls`, `exec/collated_sort.rs`).
/// An ORDER BY key that is a column the select list also has (`reuse[i]`: the item) is not
/// evaluated or stored again: its place in the keys holds NULL and the sort reads the item.
fn project(
    plan: &SelectPlan,
    reuse: &[Option<usize>],
    row: &[Value],
    aggs: &[Value],
) -> Result<(Vec<Value>, Vec<Value>)> {
    let out = plan.items.iter().map(|e| eval(e, row, aggs)).collect::<Result<Vec<_>>>()?;
    let mut keys = Vec::with_capacity(plan.order.len());
    for ((e, _), r) in plan.order.iter().zip(reuse) {
        keys.push(if r.is_some() { Value::Null } else { eval(e, row, aggs)? });
    }
    Ok((out, keys))
}

/// ORDER BY key `i` of a projected row: the select item it reuses, or its own value.
fn order_key<'r>(
    row: &'r (Vec<Value>, Vec<Value>),
    reuse: &[Option<usize>],
    i: usize,
) -> &'r Value {
    match reuse[i] {
        Some(j) => &row.0[j],
        None => &row.1[i],
    }
}

/// Per ORDER BY key, the select item that is the same column (a column reads the same value
/// from the same row, so the item's value is the key's).
fn order_reuse(plan: &SelectPlan) -> Vec<Option<usize>> {
    plan.order
        .iter()
        .map(|(e, _)| match e {
            Expr::Col(_) => plan.items.iter().position(|i| i == e),
            _ => None,
        })
        .collect()
}

/// One aggregate's running state.
#[derive(Debug, Clone)]
struct AggState {
    count: u64,
    /// STD/VARIANCE: Welford's running mean and sum of squared deviations
    /// (`variance_fp_recurrence_next`, as mysqld).
    mean: f64,
    m2: f64,
    /// BIT_AND/BIT_OR/BIT_XOR.
    bits: u64,
    /// JSON_ARRAYAGG/JSON_OBJECTAGG's values.
    vals: Vec<Value>,
    acc: Value,
    seen: Option<HashSet<Key>>,
    /// GROUP_CONCAT's values: (text, ORDER BY keys).
    items: Vec<(Vec<u8>, Vec<Value>)>,
}

/// The result rows of GROUP_CONCAT values cut at `group_concat_max_len` (warning 1260).
type CutRows = Vec<usize>;

/// A group's first row and its aggregate results.
type GroupRow = (Row, Vec<Value>);

/// Groups `rows` and computes the aggregates: (first row of the group, aggregate results),
/// and the GROUP_CONCAT cuts. Group keys, COUNT(DISTINCT), MIN/MAX and GROUP_CONCAT compare
/// strings under their expressions' collations.
fn group<S: AsRef<[Value]>>(
    plan: &SelectPlan,
    rows: Vec<S>,
    width: usize,
) -> Result<(Vec<GroupRow>, CutRows)> {
    let fresh = || -> Vec<AggState> {
        plan.aggs
            .iter()
            .map(|a| AggState {
                count: 0,
                mean: 0.0,
                m2: 0.0,
                bits: if a.kind == AggKind::BitAnd { u64::MAX } else { 0 },
                vals: Vec::new(),
                acc: Value::Null,
                seen: a.distinct.then(HashSet::new),
                items: Vec::new(),
            })
            .collect()
    };
    let mut index: HashMap<Key, usize> = HashMap::new();
    let mut groups: Vec<(Row, Vec<AggState>)> = Vec::new();
    for row in &rows {
        let row = row.as_ref();
        let mut gk = Vec::with_capacity(plan.group_by.len());
        for (i, g) in plan.group_by.iter().enumerate() {
            gk.push(keyed(eval(g, row, &[])?, plan.group_colls.get(i).copied().flatten()));
        }
        let slot = *index.entry(encode_key(&gk)).or_insert_with(|| {
            groups.push((row.to_vec(), fresh()));
            groups.len() - 1
        });
        for (spec, st) in plan.aggs.iter().zip(groups[slot].1.iter_mut()) {
            if let Some(c) = &spec.concat {
                concat_add(c, st, row)?;
                continue;
            }
            let v = match &spec.arg {
                None => Value::Int(1),
                Some(a) => eval(a, row, &[])?,
            };
            if matches!(spec.kind, AggKind::JsonArrayAgg | AggKind::JsonObjectAgg) {
                // NULLs are members too (`Item_sum_json_array::add`).
                st.count += 1;
                st.vals.push(v);
                continue;
            }
            if v == Value::Null {
                continue;
            }
            if let Some(seen) = st.seen.as_mut() {
                if !seen.insert(encode_key(std::slice::from_ref(&keyed(v.clone(), spec.coll)))) {
                    continue;
                }
            }
            st.count += 1;
            st.acc = match spec.kind {
                AggKind::Count => Value::Null,
                AggKind::Sum | AggKind::Avg => {
                    crate::eval::sum_add(std::mem::replace(&mut st.acc, Value::Null), v)?
                }
                AggKind::GroupConcat => Value::Null,
                AggKind::StdPop | AggKind::StdSamp | AggKind::VarPop | AggKind::VarSamp => {
                    let x = crate::eval::num_f64_of(&v);
                    let delta = x - st.mean;
                    st.mean += delta / st.count as f64;
                    st.m2 += delta * (x - st.mean);
                    Value::Null
                }
                AggKind::JsonArrayAgg | AggKind::JsonObjectAgg => Value::Null,
                AggKind::BitAnd | AggKind::BitOr | AggKind::BitXor => {
                    let b = crate::eval::bits_of(&v);
                    st.bits = match spec.kind {
                        AggKind::BitAnd => st.bits & b,
                        AggKind::BitOr => st.bits | b,
                        _ => st.bits ^ b,
                    };
                    Value::Null
                }
                AggKind::Min | AggKind::Max => {
                    let cmp = match spec.coll {
                        Some(c) => crate::eval::collate::compare_in(&v, &st.acc, c),
                        None => compare(&v, &st.acc),
                    };
                    let take = st.acc == Value::Null
                        || match cmp {
                            Some(o) => {
                                (spec.kind == AggKind::Min) == (o == std::cmp::Ordering::Less)
                            }
                            None => false,
                        };
                    if take {
                        v
                    } else {
                        std::mem::replace(&mut st.acc, Value::Null)
                    }
                }
            };
        }
    }
    // Aggregates without GROUP BY always produce one row, even over no rows.
    if groups.is_empty() && plan.group_by.is_empty() {
        groups.push((vec![Value::Null; width], fresh()));
    }
    let mut cut = Vec::new();
    let mut out_row = 0usize;
    let out = groups
        .into_iter()
        .map(|(first, states)| {
            out_row += 1;
            let results = plan
                .aggs
                .iter()
                .zip(states)
                .map(|(spec, st)| {
                    Ok(match spec.kind {
                        AggKind::GroupConcat => {
                            let (v, was_cut) = concat_result(spec, st, plan.concat_max);
                            if was_cut {
                                cut.push(out_row);
                            }
                            v
                        }
                        AggKind::Count => Value::Int(st.count as i64),
                        AggKind::BitAnd | AggKind::BitOr | AggKind::BitXor => Value::UInt(st.bits),
                        AggKind::JsonArrayAgg | AggKind::JsonObjectAgg => {
                            crate::eval::json_agg(spec.kind == AggKind::JsonObjectAgg, st.vals)?
                        }
                        AggKind::StdPop | AggKind::VarPop if st.count > 0 => {
                            let var = st.m2 / st.count as f64;
                            Value::Double(if spec.kind == AggKind::StdPop {
                                var.sqrt()
                            } else {
                                var
                            })
                        }
                        AggKind::StdSamp | AggKind::VarSamp if st.count > 1 => {
                            let var = st.m2 / (st.count - 1) as f64;
                            Value::Double(if spec.kind == AggKind::StdSamp {
                                var.sqrt()
                            } else {
                                var
                            })
                        }
                        AggKind::StdPop | AggKind::VarPop | AggKind::StdSamp | AggKind::VarSamp => {
                            Value::Null
                        }
                        AggKind::Avg if st.count > 0 => {
                            arith(BinOp::Div, &st.acc, &Value::Int(st.count as i64))?
                        }
                        _ => st.acc,
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            Ok((first, results))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((out, cut))
}

/// Adds a row's values to a GROUP_CONCAT (a NULL argument skips the row; DISTINCT compares
/// the arguments under their collations).
fn concat_add(c: &ConcatSpec, st: &mut AggState, row: &[Value]) -> Result<()> {
    let mut vals = Vec::with_capacity(c.args.len());
    for a in &c.args {
        let v = eval(a, row, &[])?;
        if v == Value::Null {
            return Ok(());
        }
        vals.push(v);
    }
    if let Some(seen) = st.seen.as_mut() {
        let k: Vec<Value> = vals
            .iter()
            .enumerate()
            .map(|(i, v)| keyed(v.clone(), c.arg_colls.get(i).copied().flatten()))
            .collect();
        if !seen.insert(encode_key(&k)) {
            return Ok(());
        }
    }
    let mut keys = Vec::with_capacity(c.order.len());
    for (e, _, coll) in &c.order {
        keys.push(keyed(eval(e, row, &[])?, *coll));
    }
    let text: Vec<u8> = vals.iter().flat_map(super::eval::to_text).collect();
    st.items.push((text, keys));
    Ok(())
}

/// The GROUP_CONCAT of a group (NULL when no row had all arguments non-NULL), cut at `max`
/// bytes on a character boundary; whether it was cut.
fn concat_result(spec: &AggSpec, mut st: AggState, max: usize) -> (Value, bool) {
    let Some(c) = &spec.concat else { return (Value::Null, false) };
    if st.items.is_empty() {
        return (Value::Null, false);
    }
    if !c.order.is_empty() {
        let desc: Vec<bool> = c.order.iter().map(|(_, d, _)| *d).collect();
        st.items.sort_by(|(_, a), (_, b)| {
            for (i, d) in desc.iter().enumerate() {
                let o = order_cmp(&a[i], &b[i]);
                if o != std::cmp::Ordering::Equal {
                    return if *d { o.reverse() } else { o };
                }
            }
            std::cmp::Ordering::Equal
        });
    }
    let mut out: Vec<u8> = Vec::new();
    for (i, (text, _)) in st.items.iter().enumerate() {
        if i > 0 {
            out.extend_from_slice(&c.separator);
        }
        out.extend_from_slice(text);
        if out.len() > max {
            let mut end = max;
            // Cut on a character boundary (mysqld cuts whole characters).
            while end > 0 && end < out.len() && (out[end] & 0xC0) == 0x80 {
                end -= 1;
            }
            out.truncate(end);
            return (Value::Bytes(out), true);
        }
    }
    (Value::Bytes(out), false)
}

/// PRI/UNI/MUL flags of column `i`.
pub(crate) fn key_flags(s: &TableSchema, i: usize) -> u16 {
    // mysqld's table.cc: every key part gets PART_KEY_FLAG, primary-key parts PRI_KEY_FLAG,
    // the first part of another index UNIQUE_KEY_FLAG (a one-column unique index) or
    // MULTIPLE_KEY_FLAG.
    let mut f = 0;
    if s.primary_key.contains(&i) {
        f |= flags::PRI_KEY | flags::PART_KEY;
    }
    for idx in &s.indexes {
        if idx.columns.contains(&i) {
            f |= flags::PART_KEY;
        }
        if idx.columns.first() == Some(&i) {
            f |= if idx.unique && idx.columns.len() == 1 {
                flags::UNIQUE_KEY
            } else {
                flags::MULTIPLE_KEY
            };
        }
    }
    f
}

fn column_type(ty: ColumnType) -> MysqlType {
    match ty {
        ColumnType::Integer { bytes: 1, .. } => MysqlType::Tiny,
        ColumnType::Integer { bytes: 2, .. } => MysqlType::Short,
        ColumnType::Integer { bytes: 3, .. } => MysqlType::Int24,
        ColumnType::Integer { bytes: 4, .. } => MysqlType::Long,
        ColumnType::Integer { .. } => MysqlType::LongLong,
        ColumnType::Double => MysqlType::Double,
        ColumnType::Decimal { .. } => MysqlType::NewDecimal,
        ColumnType::Char(_) => MysqlType::String,
        ColumnType::VarChar(_) => MysqlType::VarString,
        ColumnType::Text => MysqlType::Blob,
        ColumnType::Binary(_)
        | ColumnType::VarBinary(_)
        | ColumnType::Blob { .. }
        | ColumnType::SizedText { .. }
        | ColumnType::Enum
        | ColumnType::Set
        | ColumnType::Bit(_)
        | ColumnType::Json => crate::output::bytes_types::mysql_type(ty),
        ColumnType::DateTime { .. } => MysqlType::DateTime,
        ColumnType::Timestamp { .. } => MysqlType::Timestamp,
        ColumnType::Date => MysqlType::Date,
        ColumnType::Time { .. } => MysqlType::Time,
        ColumnType::Year => MysqlType::Year,
        ColumnType::Float => MysqlType::Float,
    }
}

/// The (type, decimals) of a bound expression as the date and time functions see their
/// arguments.
fn temporal_shape(e: &Expr, schema: Option<&TableSchema>, aggs: &[AggSpec]) -> temporal::Shape {
    match e {
        Expr::Func(Func::Time(f), args) => {
            temporal::shape(*f, args, &|x| temporal_shape(x, schema, aggs))
        }
        Expr::Col(i) => match schema.and_then(|s| s.columns.get(*i)).map(|c| c.ty) {
            Some(
                ColumnType::DateTime { fsp }
                | ColumnType::Timestamp { fsp }
                | ColumnType::Time { fsp },
            ) => (expr_type(e, schema, aggs), fsp),
            Some(ColumnType::Decimal { scale, .. }) => (MysqlType::NewDecimal, scale),
            _ => (expr_type(e, schema, aggs), 0),
        },
        Expr::Lit(Value::Decimal(d)) => (MysqlType::NewDecimal, d.scale),
        e => (expr_type(e, schema, aggs), decimal_scale(e, schema, aggs)),
    }
}

/// Width and decimals of a date or time function's column (mysqld's `resolve_type`), and of
/// MIN/MAX and IFNULL-style pass-throughs of temporal values.
fn temporal_expr_column(
    c: &mut ResultColumn,
    e: &Expr,
    schema: Option<&TableSchema>,
    aggs: &[AggSpec],
) {
    let (ty, decimals) = match e {
        Expr::Func(Func::Time(_), _) => temporal_shape(e, schema, aggs),
        _ if matches!(
            c.mysql_type,
            MysqlType::Date | MysqlType::Time | MysqlType::DateTime | MysqlType::Timestamp
        ) =>
        {
            (c.mysql_type, c.decimals)
        }
        _ => return,
    };
    c.mysql_type = ty;
    if let Some(len) = temporal::length(ty, decimals) {
        c.length = len;
        c.decimals = decimals;
        c.charset = CHARSET_BINARY;
        c.flags |= flags::BINARY;
    } else if ty == MysqlType::NewDecimal {
        c.decimals = decimals;
    } else if matches!(ty, MysqlType::VarString) {
        // A time as text keeps its fraction digits (ADDTIME of numbers), other text none.
        c.decimals = if decimals <= 6 { decimals } else { 31 };
    }
}

fn is_int_type(t: MysqlType) -> bool {
    matches!(
        t,
        MysqlType::Tiny
            | MysqlType::Short
            | MysqlType::Long
            | MysqlType::Int24
            | MysqlType::LongLong
    )
}

/// A string type as a numeric function's argument reads it: DOUBLE; other types as they are.
fn string_double(t: MysqlType) -> MysqlType {
    match t {
        MysqlType::VarString | MysqlType::String | MysqlType::Blob => MysqlType::Double,
        t => t,
    }
}

/// ROUND/TRUNCATE/FLOOR/CEIL's view of their argument's type: a string or a temporal is
/// STRING_RESULT (`Item_func_round::resolve_type`, `Item_func_int_val::resolve_type` switch
/// on `result_type()`, a DATETIME's being STRING_RESULT), so a DOUBLE.
fn rounding_arg_type(t: MysqlType) -> MysqlType {
    match t {
        MysqlType::Date | MysqlType::DateTime | MysqlType::Timestamp | MysqlType::Time => {
            MysqlType::Double
        }
        t => string_double(t),
    }
}

/// The MySQL type of a bound expression's values.
fn expr_type(e: &Expr, schema: Option<&TableSchema>, aggs: &[AggSpec]) -> MysqlType {
    let t = |x: &Expr| expr_type(x, schema, aggs);
    match e {
        Expr::Col(i) => schema
            .and_then(|s| s.columns.get(*i))
            .map_or(MysqlType::VarString, |c| column_type(c.ty)),
        Expr::Lit(v) => match v {
            Value::Null => MysqlType::Null,
            Value::Int(_) | Value::UInt(_) => MysqlType::LongLong,
            Value::Double(_) => MysqlType::Double,
            Value::Decimal(_) => MysqlType::NewDecimal,
            Value::Bytes(_) => MysqlType::VarString,
            Value::DateTime(_) => MysqlType::DateTime,
            Value::Json(_) => MysqlType::Json,
            Value::Float(_) => MysqlType::Float,
            Value::Date(_) => MysqlType::Date,
            Value::Time(_) => MysqlType::Time,
        },
        Expr::Unary(UnOp::Neg, x) => match t(x) {
            x if is_int_type(x) => MysqlType::LongLong,
            MysqlType::VarString | MysqlType::String | MysqlType::Blob => MysqlType::Double,
            x => x,
        },
        Expr::Binary(op, a, b) => match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Mod | BinOp::Div => {
                let (x, y) = (t(a), t(b));
                // A REAL_RESULT operand (FLOAT too) or a string makes the result DOUBLE
                // (mysqld's Item_num_op::resolve_type).
                let stringy = |m: MysqlType| {
                    matches!(
                        m,
                        MysqlType::Double
                            | MysqlType::Float
                            | MysqlType::VarString
                            | MysqlType::String
                            | MysqlType::Blob
                    )
                };
                if stringy(x) || stringy(y) {
                    MysqlType::Double
                } else if *op != BinOp::Div
                    && (is_int_type(x) || x == MysqlType::Null)
                    && (is_int_type(y) || y == MysqlType::Null)
                {
                    MysqlType::LongLong
                } else {
                    MysqlType::NewDecimal
                }
            }
            _ => MysqlType::LongLong,
        },
        Expr::Agg(i) => match aggs.get(*i) {
            Some(AggSpec { kind: AggKind::Count, .. }) | None => MysqlType::LongLong,
            // mysqld: VARCHAR up to 512 characters of group_concat_max_len, else TEXT.
            Some(AggSpec { kind: AggKind::GroupConcat, .. }) => MysqlType::Blob,
            Some(AggSpec {
                kind: AggKind::StdPop | AggKind::StdSamp | AggKind::VarPop | AggKind::VarSamp,
                ..
            }) => MysqlType::Double,
            Some(AggSpec { kind: AggKind::BitAnd | AggKind::BitOr | AggKind::BitXor, .. }) => {
                MysqlType::LongLong
            }
            Some(AggSpec { kind: AggKind::JsonArrayAgg | AggKind::JsonObjectAgg, .. }) => {
                MysqlType::Json
            }
            Some(AggSpec { kind, arg: Some(a), .. }) => {
                let at = t(a);
                match kind {
                    AggKind::Min | AggKind::Max => at,
                    _ if matches!(
                        at,
                        MysqlType::Double
                            | MysqlType::VarString
                            | MysqlType::String
                            | MysqlType::Blob
                    ) =>
                    {
                        MysqlType::Double
                    }
                    _ => MysqlType::NewDecimal,
                }
            }
            Some(_) => MysqlType::LongLong,
        },
        Expr::Func(f, args) => match f {
            // `Item_func_int_val::resolve_type`: DOUBLE for a DOUBLE or string argument,
            // DECIMAL for a DECIMAL one with more integral digits than BIGINT holds.
            Func::Floor | Func::Ceil => match args.first() {
                Some(x) => match t(x) {
                    MysqlType::Double
                    | MysqlType::Float
                    | MysqlType::VarString
                    | MysqlType::String
                    | MysqlType::Blob
                    | MysqlType::Date
                    | MysqlType::DateTime
                    | MysqlType::Timestamp
                    | MysqlType::Time => MysqlType::Double,
                    MysqlType::NewDecimal if matches!(x, Expr::Lit(Value::Decimal(d)) if d.integral_digits() >= 19) => {
                        MysqlType::NewDecimal
                    }
                    _ => MysqlType::LongLong,
                },
                None => MysqlType::LongLong,
            },
            Func::UnixTimestamp
            | Func::Length
            | Func::CharLength
            | Func::GtidSubset
            | Func::WaitForExecutedGtidSet => MysqlType::LongLong,
            Func::Concat | Func::Upper | Func::Lower => MysqlType::VarString,
            Func::Power => MysqlType::Double,
            // A string argument is read as a DOUBLE (`Item_func_num1`, `Item_func_round`).
            Func::Abs => args.first().map_or(MysqlType::Double, |x| string_double(t(x))),
            Func::Round => args.first().map_or(MysqlType::Double, |x| rounding_arg_type(t(x))),
            // Item_func::aggregate_type over the arguments that can be the result.
            Func::Coalesce | Func::IfNull => {
                super::typeagg::aggregate(&args.iter().map(t).collect::<Vec<_>>())
            }
            Func::If => super::typeagg::aggregate(&args.iter().skip(1).map(t).collect::<Vec<_>>()),
            Func::Math(m) => {
                use crate::eval::mathfn::MathFn as M;
                match m {
                    M::Greatest | M::Least => {
                        super::typeagg::aggregate(&args.iter().map(t).collect::<Vec<_>>())
                    }
                    M::Mod => match args.as_slice() {
                        [a, b] => expr_type(
                            &Expr::Binary(BinOp::Mod, Box::new(a.clone()), Box::new(b.clone())),
                            schema,
                            aggs,
                        ),
                        _ => MysqlType::LongLong,
                    },
                    M::Truncate => {
                        args.first().map_or(MysqlType::Double, |x| rounding_arg_type(t(x)))
                    }
                    m if m.is_integer() => MysqlType::LongLong,
                    m if m.is_string() => MysqlType::VarString,
                    _ => MysqlType::Double,
                }
            }
            Func::More(m) => {
                use crate::eval::morefn::MoreFn as M;
                match m {
                    M::NullIf => args.first().map_or(MysqlType::Null, t),
                    m if m.is_integer() => MysqlType::LongLong,
                    _ => MysqlType::VarString,
                }
            }
            Func::Misc(m) => match m.passes_through() {
                Some(i) => args.get(i).map_or(MysqlType::Null, t),
                None if m.is_integer() => MysqlType::LongLong,
                None => MysqlType::VarString,
            },
            Func::Json(j) if j.is_json() => MysqlType::Json,
            Func::Json(j) if j.is_integer() => MysqlType::LongLong,
            Func::Json(crate::ast::JsonFn::Pretty) => MysqlType::Blob,
            Func::Json(_) => MysqlType::VarString,
            Func::Regex(r) if r.is_integer() => MysqlType::LongLong,
            Func::Regex(_) => MysqlType::VarString,
            Func::Bytes(bf) => crate::eval::json_funcs::result_type(*bf),
            Func::Time(f) => temporal::shape(*f, args, &|x| (t(x), 0)).0,
            Func::CastNum(c) => {
                use crate::eval::castnum::CastNum as C;
                match c {
                    C::Signed | C::Unsigned => MysqlType::LongLong,
                    C::Decimal { .. } => MysqlType::NewDecimal,
                    C::Double => MysqlType::Double,
                    C::Float => MysqlType::Float,
                }
            }
            _ => MysqlType::VarString,
        },
        Expr::Case { whens, otherwise, .. } => super::typeagg::aggregate(
            &whens
                .iter()
                .map(|(_, x)| t(x))
                .chain(otherwise.iter().map(|x| t(x)))
                .collect::<Vec<_>>(),
        ),
        Expr::Collate(x, _) => t(x),
        Expr::Collated(_, x) => t(x),
        Expr::Str(f, _) if f.is_integer() => MysqlType::LongLong,
        Expr::Str(..) => MysqlType::VarString,
        _ => MysqlType::LongLong,
    }
}

/// The table's own name (org_table), without the database its schema name is qualified with
/// (`db.table`, ddl.rs).
fn own_table_name(sc: &TableSchema) -> &str {
    sc.name.split_once('.').map_or(sc.name.as_str(), |(_, t)| t)
}

/// Decimal digits of a column's values (`Field::decimal_precision`), for the precision of
/// SUM/AVG over it; `None` for non-numeric columns.
fn column_precision(ty: ColumnType) -> Option<(u32, u8)> {
    match ty {
        ColumnType::Integer { bytes, unsigned } => Some((
            match (bytes, unsigned) {
                (1, _) => 3,
                (2, _) => 5,
                (3, false) => 7,
                (3, true) => 8,
                (4, _) => 10,
                (_, false) => 19,
                (_, true) => 20,
            },
            0,
        )),
        ColumnType::Decimal { precision, scale } => Some((u32::from(precision), scale)),
        _ => None,
    }
}

/// DECIMAL's display width: digits, a point when there are fraction digits, and a sign
/// (`my_decimal_precision_to_length_no_truncation`).
fn decimal_length(precision: u32, scale: u8) -> u32 {
    precision + u32::from(scale > 0) + 1
}

/// Width, decimals and nullability of an expression column where mysqld's item computes them
/// from its operands (`Item::resolve_type` of literals, COUNT, SUM/AVG, MIN/MAX, string
/// functions over columns); other expressions keep [`ResultColumn::expr`]'s defaults.
fn refine_expr_column(
    c: &mut ResultColumn,
    e: &Expr,
    schema: Option<&TableSchema>,
    aggs: &[AggSpec],
) {
    let col = |i: usize| schema.and_then(|s| s.columns.get(i));
    match e {
        Expr::Lit(v) => {
            if *v != Value::Null {
                c.flags |= flags::NOT_NULL;
            }
            match v {
                Value::Int(_) | Value::UInt(_) => c.length = v.to_string().len() as u32,
                Value::Decimal(d) => {
                    let digits = d.mantissa.unsigned_abs().to_string().len() as u32;
                    let precision = digits.max(u32::from(d.scale) + 1);
                    c.length = decimal_length(precision, d.scale);
                    c.decimals = d.scale;
                }
                Value::Bytes(b) => {
                    c.length = String::from_utf8_lossy(b).chars().count() as u32 * 4;
                }
                _ => {}
            }
        }
        Expr::Agg(i) => match aggs.get(*i) {
            Some(AggSpec { kind: AggKind::Count, .. }) => {
                c.flags |= flags::NOT_NULL;
                c.length = 21;
            }
            // Item_sum_bit: BIGINT UNSIGNED NOT NULL.
            Some(AggSpec { kind: AggKind::BitAnd | AggKind::BitOr | AggKind::BitXor, .. }) => {
                c.flags |= flags::NOT_NULL | flags::UNSIGNED;
                c.length = 21;
            }
            Some(AggSpec { kind: kind @ (AggKind::Sum | AggKind::Avg), arg: Some(a), .. })
                if c.mysql_type == MysqlType::NewDecimal =>
            {
                let base = match a {
                    Expr::Col(i) => col(*i).and_then(|c| column_precision(c.ty)),
                    _ => None,
                };
                if let Some((precision, scale)) = base {
                    // Item_sum_sum: + DECIMAL_LONGLONG_DIGITS; Item_sum_avg: + 4 digits.
                    let (precision, scale) = match kind {
                        AggKind::Sum => ((precision + 22).min(65), scale),
                        _ => {
                            let inc = crate::decimal::div_precision_increment();
                            ((precision + u32::from(inc)).min(65), (scale + inc).min(30))
                        }
                    };
                    c.length = decimal_length(precision, scale);
                    c.decimals = scale;
                }
            }
            Some(AggSpec {
                kind: AggKind::Min | AggKind::Max, arg: Some(Expr::Col(i)), ..
            }) => {
                if let (Some(sc), Some(tc)) = (schema, col(*i)) {
                    let from = ResultColumn::for_table_column("", &sc.name, tc, 0);
                    c.length = from.length;
                    // Item_sum_hybrid over a string keeps the string item's NOT_FIXED_DEC
                    // (31), not the table column's 0 (MariaDB sends its 39 there).
                    c.decimals = if matches!(
                        from.mysql_type,
                        MysqlType::VarString | MysqlType::String | MysqlType::Blob
                    ) {
                        31
                    } else {
                        from.decimals
                    };
                    c.charset = from.charset;
                    c.flags = (from.flags & (flags::UNSIGNED | flags::BINARY | flags::BLOB))
                        | if from.charset == CHARSET_BINARY { flags::BINARY } else { 0 };
                }
            }
            _ => {}
        },
        // ROUND/TRUNCATE of a DOUBLE with constant places print that many fraction digits
        // (`Item_func_round::resolve_type`: decimals = min(places, DECIMAL_NOT_SPECIFIED),
        // 31 meaning not fixed); FLOOR/CEIL and one-argument ROUND of a DOUBLE print none
        // (`Item_func_int_val`).
        Expr::Func(
            Func::Round
            | Func::Floor
            | Func::Ceil
            | Func::Math(crate::eval::mathfn::MathFn::Truncate),
            args,
        ) if c.mysql_type == MysqlType::Double => match args.as_slice() {
            [_] => c.decimals = 0,
            [_, Expr::Lit(n)] => {
                if let Some(n) = crate::eval::mathfn::int_arg(n) {
                    c.decimals = n.clamp(0, 31) as u8;
                }
            }
            _ => {}
        },
        // `Item_typecast_signed/unsigned/decimal::resolve_type`: BIGINT [UNSIGNED] of 21 or
        // 20 characters, DECIMAL(M,D) of M digits, a point and a sign.
        Expr::Func(Func::CastNum(to), _) => {
            use crate::eval::castnum::CastNum as C;
            match *to {
                C::Signed => c.length = 21,
                C::Unsigned => {
                    c.length = 20;
                    c.flags |= flags::UNSIGNED;
                }
                C::Decimal { precision, scale } => {
                    c.length = decimal_length(u32::from(precision), scale);
                    c.decimals = scale;
                }
                C::Double | C::Float => {}
            }
        }
        Expr::Func(Func::Upper | Func::Lower, args) => {
            if let Some(Expr::Col(i)) = args.first() {
                if let Some(tc) = col(*i) {
                    let from = ResultColumn::for_table_column("", "", tc, 0);
                    if from.is_text() && from.mysql_type != MysqlType::Blob {
                        c.length = from.length;
                    }
                }
            }
        }
        _ => {}
    }
}

/// Fraction digits of a DECIMAL expression.
fn decimal_scale(e: &Expr, schema: Option<&TableSchema>, aggs: &[AggSpec]) -> u8 {
    let s = |x: &Expr| decimal_scale(x, schema, aggs);
    match e {
        Expr::Col(i) => match schema.and_then(|sc| sc.columns.get(*i)).map(|c| c.ty) {
            Some(ColumnType::Decimal { scale, .. }) => scale,
            // A temporal value in numeric context has its fsp as fraction digits
            // (`DATETIME(3) + 0` is 20240102030405.123).
            Some(
                ColumnType::DateTime { fsp }
                | ColumnType::Timestamp { fsp }
                | ColumnType::Time { fsp },
            ) => fsp,
            _ => 0,
        },
        Expr::Lit(Value::Decimal(d)) => d.scale,
        Expr::Func(Func::Time(_), _) => temporal_shape(e, schema, aggs).1,
        Expr::Binary(BinOp::Div, a, _) => {
            s(a).saturating_add(crate::decimal::div_precision_increment()).min(30)
        }
        Expr::Binary(BinOp::Mul, a, b) => s(a).saturating_add(s(b)).min(30),
        Expr::Binary(_, a, b) => s(a).max(s(b)),
        Expr::Unary(UnOp::Neg, x) | Expr::Collated(_, x) => s(x),
        // The functions that return one of their arguments keep the largest scale among
        // them (`Item::aggregate_decimal_properties`): GREATEST(1, 2.5) sends 2.5 and 1.0.
        Expr::Func(
            Func::IfNull
            | Func::Coalesce
            | Func::Math(crate::eval::mathfn::MathFn::Greatest)
            | Func::Math(crate::eval::mathfn::MathFn::Least),
            args,
        ) => args.iter().map(s).max().unwrap_or(0),
        Expr::Func(Func::If, args) => args.iter().skip(1).map(s).max().unwrap_or(0),
        // ROUND/TRUNCATE(x, n) of a DECIMAL: n fraction digits (0..30) for a constant n.
        Expr::Func(Func::Round | Func::Math(crate::eval::mathfn::MathFn::Truncate), args) => {
            // The places are the constant's `val_int` (2.5 is 3, '7x' 7, 1e20 BIGINT's
            // maximum), clamped to 0..=DECIMAL_MAX_SCALE (`Item_func_round::resolve_type`).
            match args.as_slice() {
                [_, Expr::Lit(Value::UInt(n))] => (*n).min(30) as u8,
                [x, Expr::Lit(n)]
                    if *n != Value::Null && expr_type(x, schema, aggs) == MysqlType::NewDecimal =>
                {
                    crate::eval::mathfn::int_arg(n).map_or(0, |n| n.clamp(0, 30) as u8)
                }
                [_] | [] => 0,
                [x, ..] => s(x),
            }
        }
        Expr::Func(Func::Abs, args) => args.first().map_or(0, s),
        // NULLIF(a, b) is a (`Item_func_nullif::resolve_type` takes a's type).
        Expr::Func(Func::More(crate::eval::morefn::MoreFn::NullIf), args) => {
            args.first().map_or(0, s)
        }
        Expr::Func(Func::CastNum(crate::eval::castnum::CastNum::Decimal { scale, .. }), _) => {
            *scale
        }
        Expr::Func(Func::Math(crate::eval::mathfn::MathFn::Mod), args) => {
            args.iter().map(s).max().unwrap_or(0)
        }
        Expr::Case { whens, otherwise, .. } => {
            whens.iter().map(|(_, x)| s(x)).chain(otherwise.iter().map(|x| s(x))).max().unwrap_or(0)
        }
        Expr::Agg(i) => match aggs.get(*i) {
            Some(AggSpec { kind: AggKind::Avg, arg: Some(a), .. }) => {
                s(a).saturating_add(crate::decimal::div_precision_increment()).min(30)
            }
            Some(AggSpec { arg: Some(a), .. }) => s(a),
            _ => 0,
        },
        _ => 0,
    }
}

/// Converts a value to the variant its column type promises (see `output.rs`).
pub(crate) fn conform(v: Value, ty: MysqlType, unsigned: bool) -> Value {
    use super::eval::{f64_to_decimal, str_to_f64, to_text};
    if v == Value::Null {
        return v;
    }
    match ty {
        t if is_int_type(t) => match v {
            Value::Int(i) if unsigned && i >= 0 => Value::UInt(i as u64),
            Value::Int(_) | Value::UInt(_) => v,
            Value::Double(d) => Value::Int(d.round() as i64),
            Value::Decimal(d) => d
                .rescale(0)
                .and_then(|r| r.mantissa_i128())
                .and_then(|r| i64::try_from(r).ok())
                .map_or(Value::Null, Value::Int),
            Value::Bytes(b) => Value::Int(str_to_f64(&b) as i64),
            other => Value::Bytes(other.to_string().into_bytes()),
        },
        MysqlType::Double => match v {
            Value::Int(i) => Value::Double(i as f64),
            Value::UInt(u) => Value::Double(u as f64),
            Value::Decimal(d) => Value::Double(d.to_string().parse().unwrap_or(0.0)),
            Value::Bytes(b) => Value::Double(str_to_f64(&b)),
            other => other,
        },
        MysqlType::NewDecimal => match v {
            Value::Int(i) => Value::Decimal(Decimal::new(i128::from(i), 0)),
            Value::UInt(u) => Value::Decimal(Decimal::new(i128::from(u), 0)),
            Value::Double(d) => f64_to_decimal(d, 10).map_or(Value::Null, Value::Decimal),
            Value::Bytes(b) => {
                f64_to_decimal(str_to_f64(&b), 10).map_or(Value::Null, Value::Decimal)
            }
            other => other,
        },
        MysqlType::DateTime | MysqlType::Timestamp => match v {
            Value::Bytes(b) => parse_datetime(&b).map_or(Value::Null, Value::DateTime),
            Value::Date(d) => Value::DateTime(d),
            other @ Value::DateTime(_) => other,
            other => Value::Bytes(to_text(&other)),
        },
        MysqlType::Date => match v {
            Value::Bytes(b) => parse_datetime(&b).map_or(Value::Null, Value::Date),
            Value::DateTime(d) => {
                Value::Date(engine::DateTime { hour: 0, minute: 0, second: 0, micros: 0, ..d })
            }
            other @ Value::Date(_) => other,
            other => Value::Bytes(to_text(&other)),
        },
        MysqlType::Time => match v {
            other @ Value::Time(_) => other,
            other => Value::Bytes(to_text(&other)),
        },
        MysqlType::Year => match v {
            Value::Int(i) if i >= 0 => Value::UInt(i as u64),
            other @ Value::UInt(_) => other,
            other => Value::Bytes(to_text(&other)),
        },
        MysqlType::Float => match v {
            other @ Value::Float(_) => other,
            Value::Double(d) => Value::Float(d as f32),
            other => Value::Double(str_to_f64(&to_text(&other))),
        },
        MysqlType::Null => v,
        _ => match v {
            Value::Bytes(_) => v,
            other => Value::Bytes(to_text(&other)),
        },
    }
}

/// What EXPLAIN needs of a single-table SELECT's plan (see `explain.rs`): the table, the bound
/// WHERE clause and ORDER BY, and whether rows are grouped or made distinct.
pub(crate) struct SelectShape {
    pub(crate) table: Option<(TableId, Arc<TableSchema>)>,
    pub(crate) made_up: bool,
    pub(crate) filter: Option<Expr>,
    pub(crate) order: Vec<(Expr, bool)>,
    /// GROUP BY or DISTINCT: rows go through a temporary table (mysqld's "Using temporary").
    pub(crate) temporary: bool,
    /// A window sorts its rows (PARTITION BY or ORDER BY): mysqld's "Using filesort".
    pub(crate) window_sort: bool,
}

impl Session {
    /// The plan `select` would run `s` with, as [`SelectShape`] (the same binding, so the same
    /// errors as running it).
    pub(crate) fn select_shape(&self, s: &Select) -> Result<SelectShape> {
        let plan = self.plan_select(s, None)?;
        Ok(SelectShape {
            table: plan.table,
            made_up: plan.made_up.is_some(),
            filter: plan.filter,
            order: plan.order,
            // Windowing buffers its rows in a temporary table (mysqld 8.0's EXPLAIN).
            temporary: !plan.group_by.is_empty() || s.distinct || !plan.windows.is_empty(),
            window_sort: plan
                .windows
                .iter()
                .any(|w| !w.partition.is_empty() || !w.order.is_empty()),
        })
    }
}

/// The width, decimals and signedness mysqld derives for arithmetic, CONCAT and the
/// type-merging functions (`typelen.rs`), where the column's type agrees with the derivation.
fn derived_length(c: &mut ResultColumn, e: &Expr, schema: Option<&TableSchema>) {
    use super::typelen::{shape, Kind};
    if !is_derived(e) {
        return;
    }
    if super::typelen::not_null(e, schema) {
        c.flags |= flags::NOT_NULL;
    }
    let Some(sh) = shape(e, schema) else { return };
    derived_shape(c, sh.kind, sh.len, sh.dec, sh.unsigned);
    let _ = Kind::Int;
}

/// Arithmetic, unary minus, CASE and the functions `typelen.rs` derives widths for.
fn is_derived(e: &Expr) -> bool {
    matches!(
        e,
        Expr::Binary(
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::IntDiv | BinOp::Mod,
            ..
        ) | Expr::Unary(UnOp::Neg, _)
            | Expr::Case { .. }
            | Expr::Func(Func::Concat | Func::IfNull | Func::Coalesce | Func::If, _)
    )
}

fn derived_shape(
    c: &mut ResultColumn,
    kind: super::typelen::Kind,
    len: u32,
    dec: u32,
    unsigned: bool,
) {
    use super::typelen::Kind;
    let sh = super::typelen::Shape::plain(kind, len, dec, unsigned);
    match (sh.kind, c.mysql_type) {
        (Kind::Int, t) if is_int_type(t) => {
            c.length = sh.len;
            c.decimals = 0;
            if sh.unsigned {
                c.flags |= flags::UNSIGNED;
            }
        }
        (Kind::Decimal, MysqlType::NewDecimal) => {
            c.length = sh.len;
            c.decimals = sh.dec as u8;
            if sh.unsigned {
                c.flags |= flags::UNSIGNED;
            }
        }
        (Kind::Str, MysqlType::VarString) if c.is_text() => {
            // Stored lengths are utf8mb4's (4 bytes a character; `for_results` rescales).
            c.length = sh.len.saturating_mul(4);
        }
        _ => {}
    }
}
