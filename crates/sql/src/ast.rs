//! The statements and expressions the executor runs: a small typed tree that the parser
//! front-end builds from sqlparser's AST (or from its own grammar for utility statements).
//! Names are still unresolved here (`Expr::Name`); the executor binds them to column positions
//! against the table's current schema at each execution, so a prepared statement survives DDL
//! that keeps its columns.

use engine::Value;

use super::admin::AdminCommand;
use accounts::Privileges;

use super::error::{Result, SqlError};

/// mysqld's `MAX_SELECT_NESTING` (sql_lex.h): deeper subqueries answer 1473 (the parser
/// counts, `query/subquery.rs` relies on the bound).
pub(crate) const MAX_SELECT_NESTING: usize = 63;

/// A table named in a statement; `db` None means the session's current database.
#[derive(Debug, Clone, PartialEq)]
pub struct TableRef {
    pub db: Option<String>,
    pub name: String,
}

impl TableRef {
    /// sqlparser's `[db.]t` name (1064 for another kind of part, 1103 for more than two).
    pub(crate) fn from_sql(n: &sqlparser::ast::ObjectName) -> Result<TableRef> {
        use sqlparser::ast as sp;
        let parts: Vec<String> =
            n.0.iter()
                .map(|p| match p {
                    sp::ObjectNamePart::Identifier(i) => Ok(i.value.clone()),
                    _ => Err(SqlError::near(&n.to_string())),
                })
                .collect::<Result<_>>()?;
        match parts.as_slice() {
            [t] => Ok(TableRef { db: None, name: t.clone() }),
            [d, t] => Ok(TableRef { db: Some(d.clone()), name: t.clone() }),
            _ => Err(SqlError::WrongTableName(n.to_string())),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Not,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    IntDiv,
    Mod,
    Eq,
    NullSafeEq,
    NotEq,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    Xor,
}

impl BinOp {
    /// `=`, `<=>`, `<>`, `<`, `<=`, `>`, `>=` (mysqld's `Item_bool_func2` comparisons).
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq
                | BinOp::NullSafeEq
                | BinOp::NotEq
                | BinOp::Lt
                | BinOp::Le
                | BinOp::Gt
                | BinOp::Ge
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AggKind {
    Count,
    Sum,
    Min,
    Max,
    Avg,
    /// GROUP_CONCAT (its parts are in the bound aggregate's spec).
    GroupConcat,
    /// STD/STDDEV/STDDEV_POP, STDDEV_SAMP, VARIANCE/VAR_POP, VAR_SAMP (`Item_sum_variance`):
    /// DOUBLE, NULL over no rows (and over one row for the sample forms).
    StdPop,
    StdSamp,
    VarPop,
    VarSamp,
    /// BIT_AND/BIT_OR/BIT_XOR over BIGINT UNSIGNED (`Item_sum_bit`): over no rows all ones
    /// for AND, 0 for the others.
    BitAnd,
    BitOr,
    BitXor,
    /// JSON_ARRAYAGG(x): the group's values (NULLs too) as a JSON array; NULL over no rows.
    JsonArrayAgg,
    /// JSON_OBJECTAGG(k, v): its argument is JSON_ARRAY(k, v) (`parse.rs`); the last value of
    /// a key wins; a NULL key is 3158.
    JsonObjectAgg,
}

impl AggKind {
    /// The aggregates named in issue 19's second round (`exec.rs`'s `agg_more_*`).
    pub fn by_name(name: &str) -> Option<AggKind> {
        Some(match name {
            "std" | "stddev" | "stddev_pop" => AggKind::StdPop,
            "stddev_samp" => AggKind::StdSamp,
            "variance" | "var_pop" => AggKind::VarPop,
            "var_samp" => AggKind::VarSamp,
            "bit_and" => AggKind::BitAnd,
            "bit_or" => AggKind::BitOr,
            "bit_xor" => AggKind::BitXor,
            _ => return None,
        })
    }
}

/// Scalar functions (the ones needing session state are replaced by literals at bind time).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Func {
    Now,
    UnixTimestamp,
    Database,
    Version,
    ConnectionId,
    LastInsertId,
    User,
    /// `CURRENT_USER()`: the account the session authenticated as.
    CurrentUser,
    Concat,
    Length,
    CharLength,
    Upper,
    Lower,
    Abs,
    Coalesce,
    IfNull,
    If,
    Floor,
    Ceil,
    Round,
    /// `POW(x, y)` / `POWER(x, y)`: a DOUBLE.
    Power,
    /// Issue 19's byte and JSON functions (`json_funcs.rs`).
    Bytes(BytesFunc),
    /// `GTID_SUBSET(a, b)`, `GTID_SUBTRACT(a, b)` (gtidfn.rs).
    GtidSubset,
    GtidSubtract,
    /// `WAIT_FOR_EXECUTED_GTID_SET(set [, timeout])`: bound (it waits) at binding.
    WaitForExecutedGtidSet,
    /// A date or time function (issue 19; `temporal.rs` evaluates it).
    Time(super::timefn::TimeFn),
    /// A numeric function or bit operator (`eval/mathfn.rs`).
    Math(MathFn),
    /// NULLIF, base64, SOUNDEX, INET*, COLLATION()... (`eval/morefn.rs`).
    More(MoreFn),
    /// COMPRESS, PERIOD_ADD, SLEEP, ROW_COUNT()... (`eval/miscfn.rs`).
    Misc(MiscFn),
    /// REGEXP_LIKE/INSTR/SUBSTR/REPLACE and the REGEXP operator (`eval/regexfn.rs`).
    Regex(RegexFn),
    /// JSON_ARRAY_APPEND, JSON_MERGE_PATCH, JSON_SEARCH... (`eval/jsonmore.rs`).
    Json(JsonFn),
    /// `CAST(x AS SIGNED|UNSIGNED|DECIMAL(M,D)|DOUBLE|FLOAT|REAL)` (`eval/castnum.rs`).
    CastNum(CastNum),
}

/// A numeric CAST target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CastNum {
    Signed,
    Unsigned,
    /// DECIMAL(precision, scale), checked: precision 1..=65, scale <= 30 and <= precision.
    Decimal {
        precision: u8,
        scale: u8,
    },
    Double,
    Float,
}

/// The JSON functions of issue 19's second round (`Func::Json`, `eval/jsonmore.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonFn {
    ArrayAppend,
    ArrayInsert,
    ContainsPath,
    MergePreserve,
    MergePatch,
    Overlaps,
    Pretty,
    Search,
    StorageSize,
    /// JSON_VALUE(doc, path).
    ScalarValue,
}

/// Issue 19's remaining scalar functions (`Func::Misc`, `eval/miscfn.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MiscFn {
    Compress,
    Uncompress,
    UncompressedLength,
    PeriodAdd,
    PeriodDiff,
    ToSeconds,
    RandomBytes,
    AnyValue,
    NameConst,
    UuidShort,
    Sleep,
    /// Evaluated in `eval.rs` (it re-evaluates its second argument).
    Benchmark,
    /// Bound to literals from the session (`exec.rs`).
    RowCount,
    FoundRows,
    FormatBytes,
    FormatPicoTime,
    /// GET_FORMAT(DATE|TIME|DATETIME|TIMESTAMP, 'USA'...): its first argument is the type's
    /// name as a literal (`parse.rs`).
    GetFormat,
    /// Named user locks, run at binding with the session (`userlocks.rs`).
    GetLock,
    ReleaseLock,
    IsFreeLock,
    IsUsedLock,
    ReleaseAllLocks,
}

/// The regular-expression functions (`Func::Regex`, `eval/regexfn.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegexFn {
    Like,
    Instr,
    Substr,
    Replace,
}

/// A numeric function or bit operator (`Func::Math`, `eval/mathfn.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MathFn {
    Greatest,
    Least,
    Truncate,
    Sign,
    Mod,
    Sqrt,
    Ln,
    Log,
    Log2,
    Log10,
    Exp,
    Pi,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Atan2,
    Cot,
    Degrees,
    Radians,
    Crc32,
    Conv,
    Bin,
    Oct,
    BitCount,
    BitAnd,
    BitOr,
    BitXor,
    ShiftLeft,
    ShiftRight,
    BitNot,
    Rand,
    /// An ENUM column in numeric context: its member's index (`exec/numeric_context.rs`;
    /// arguments: the column, then its members).
    EnumIndex,
    /// A SET column in numeric context: its members' bitmask (arguments as `EnumIndex`).
    SetBits,
    /// A BIT column in numeric context: its bytes as a big-endian unsigned integer.
    BitValue,
}

/// NULLIF, base64, SOUNDEX, INET*, COLLATION()... (`Func::More`, `eval/morefn.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MoreFn {
    NullIf,
    IsNull,
    BitLength,
    ToBase64,
    FromBase64,
    Soundex,
    MakeSet,
    ExportSet,
    InetAton,
    InetNtoa,
    Inet6Aton,
    Inet6Ntoa,
    IsIpv4,
    IsIpv6,
    IsIpv4Compat,
    IsIpv4Mapped,
    /// Bound to a literal (`exec.rs`); never evaluated.
    Collation,
    Charset,
    Coercibility,
}

/// HEX/UNHEX, JSON, hash, UUID functions and CASTs to JSON/BINARY/CHAR (`json_funcs.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BytesFunc {
    Hex,
    Unhex,
    JsonExtract,
    JsonUnquote,
    JsonQuote,
    JsonObject,
    JsonArray,
    JsonValid,
    JsonType,
    JsonLength,
    JsonDepth,
    JsonContains,
    JsonKeys,
    JsonSet,
    JsonInsert,
    JsonReplace,
    JsonRemove,
    Md5,
    Sha1,
    Sha2,
    /// AES_ENCRYPT/AES_DECRYPT (aes-128-ecb: `eval/aes.rs`).
    AesEncrypt,
    AesDecrypt,
    Uuid,
    UuidToBin,
    BinToUuid,
    IsUuid,
    /// `FIELD(str, s1, s2, ...)`: the 1-based position of str among the rest (0 if absent);
    /// also ENUM's sort key (ORDER BY an ENUM column sorts by member index).
    Field,
    /// `CAST(x AS JSON)`.
    CastJson,
    /// `CAST(x AS BINARY[(n)])`.
    CastBinary(Option<u32>),
    /// `CAST(x AS CHAR[(n)])`.
    CastChar(Option<u32>),
    /// `CONVERT(x USING cs)` / `CONVERT(x, CHAR CHARACTER SET cs)` (to = cs), and the bytes a
    /// latin1/ascii argument has in its character set for byte-level functions (to = binary).
    /// `from` is the argument's character set, set at binding (`charset_exprs.rs`).
    Convert(Option<collation::Charset>, collation::Charset),
}

/// `@@[global.|session.]name` scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VarScope {
    /// No scope given: the session value if the variable has one, else the global.
    Default,
    Session,
    Global,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Lit(Value),
    /// The n-th `?` of a prepared statement (in text order).
    Param(usize),
    /// An unresolved column name (an optional table qualifier is checked at bind).
    Name {
        table: Option<String>,
        column: String,
    },
    /// A resolved column: position in the row.
    Col(usize),
    SysVar {
        scope: VarScope,
        name: String,
    },
    UserVar(String),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    IsNull {
        expr: Box<Expr>,
        negated: bool,
    },
    Between {
        expr: Box<Expr>,
        low: Box<Expr>,
        high: Box<Expr>,
        negated: bool,
    },
    InList {
        expr: Box<Expr>,
        list: Vec<Expr>,
        negated: bool,
    },
    Like {
        expr: Box<Expr>,
        pattern: Box<Expr>,
        negated: bool,
    },
    Case {
        operand: Option<Box<Expr>>,
        whens: Vec<(Expr, Expr)>,
        otherwise: Option<Box<Expr>>,
    },
    Func(Func, Vec<Expr>),
    /// An aggregate call as written; `arg` None is `COUNT(*)`.
    AggCall {
        kind: AggKind,
        distinct: bool,
        arg: Option<Box<Expr>>,
    },
    /// A bound aggregate: index into the group's aggregate results.
    Agg(usize),
    /// `VALUES(col)` inside ON DUPLICATE KEY UPDATE: the value the INSERT proposed.
    InsertValue(Box<Expr>),
    /// The `DEFAULT` keyword in an INSERT's VALUES.
    Default,
    /// `expr COLLATE name`: the id of the collation (EXPLICIT derivation).
    Collate(Box<Expr>, u16),
    /// A node that compares strings (a comparison, BETWEEN, IN, LIKE, CASE with an operand, a
    /// collation-aware function), bound with the collation its string comparisons use (the
    /// aggregate of its operands' collations; see `collate.rs`).
    Collated(u16, Box<Expr>),
    /// `LIKE ... ESCAPE 'c'` (the node is a `Like`).
    LikeEscape(Box<Expr>, char),
    /// A string function (`strfunc.rs`).
    Str(StrFn, Vec<Expr>),
    /// `GROUP_CONCAT([DISTINCT] args [ORDER BY ...] [SEPARATOR s])` as written.
    GroupConcat(Box<GroupConcat>),
    /// A subquery in an expression (`query/subquery.rs` runs it and replaces the node before
    /// binding).
    Subquery(Box<Subquery>),
    /// Inside a correlated subquery: position `.0` of the enclosing query's row (replaced by
    /// that row's value before each run of the subquery).
    OuterRef(usize),
    /// A query expression (set operations, WITH, parenthesised blocks) standing as the only
    /// item of a wrapper SELECT ([`Select::wrap`], `query/union.rs`); never bound.
    Query(Box<QueryExpr>),
    /// A window function call as written (`func(...) OVER (...)`, named windows resolved by
    /// the parser); bound to a late slot of the row's results (`query/window.rs`).
    Window(Box<WindowCall>),
    /// `GROUPING(expr, ...)` as written (GROUP BY ... WITH ROLLUP, `query/rollup.rs`).
    Grouping(Vec<Expr>),
}

/// A window function (mysqld's `Item_sum` window kinds, sql/item_sum.h).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WinFunc {
    RowNumber,
    Rank,
    DenseRank,
    PercentRank,
    CumeDist,
    Ntile,
    Lag,
    Lead,
    FirstValue,
    LastValue,
    NthValue,
    /// An aggregate used as a window function (COUNT, SUM, AVG, MIN, MAX).
    Agg(AggKind),
}

impl WinFunc {
    /// The lower-case name mysqld's messages use.
    pub fn name(self) -> &'static str {
        match self {
            WinFunc::RowNumber => "row_number",
            WinFunc::Rank => "rank",
            WinFunc::DenseRank => "dense_rank",
            WinFunc::PercentRank => "percent_rank",
            WinFunc::CumeDist => "cume_dist",
            WinFunc::Ntile => "ntile",
            WinFunc::Lag => "lag",
            WinFunc::Lead => "lead",
            WinFunc::FirstValue => "first_value",
            WinFunc::LastValue => "last_value",
            WinFunc::NthValue => "nth_value",
            WinFunc::Agg(AggKind::Count) => "count",
            WinFunc::Agg(AggKind::Sum) => "sum",
            WinFunc::Agg(AggKind::Avg) => "avg",
            WinFunc::Agg(AggKind::Min) => "min",
            WinFunc::Agg(AggKind::Max) => "max",
            WinFunc::Agg(AggKind::GroupConcat) => "group_concat",
            WinFunc::Agg(AggKind::StdPop) => "std",
            WinFunc::Agg(AggKind::StdSamp) => "stddev_samp",
            WinFunc::Agg(AggKind::VarPop) => "variance",
            WinFunc::Agg(AggKind::VarSamp) => "var_samp",
            WinFunc::Agg(AggKind::BitAnd) => "bit_and",
            WinFunc::Agg(AggKind::BitOr) => "bit_or",
            WinFunc::Agg(AggKind::BitXor) => "bit_xor",
            WinFunc::Agg(AggKind::JsonArrayAgg) => "json_arrayagg",
            WinFunc::Agg(AggKind::JsonObjectAgg) => "json_objectagg",
        }
    }

    /// Whether the function reads a frame (the rank functions, NTILE, LAG and LEAD work on
    /// the whole partition: mysqld's "non-framing" window functions).
    pub fn framed(self) -> bool {
        matches!(
            self,
            WinFunc::FirstValue | WinFunc::LastValue | WinFunc::NthValue | WinFunc::Agg(_)
        )
    }
}

/// One bound of a window frame; offsets are constant expressions (`?` allowed).
#[derive(Debug, Clone, PartialEq)]
pub enum WinBound {
    UnboundedPreceding,
    Preceding(Box<Expr>),
    CurrentRow,
    Following(Box<Expr>),
    UnboundedFollowing,
}

/// `ROWS|RANGE BETWEEN start AND end`.
#[derive(Debug, Clone, PartialEq)]
pub struct WinFrame {
    /// ROWS (true) or RANGE.
    pub rows: bool,
    pub start: WinBound,
    pub end: WinBound,
}

/// A window function call: the function, its arguments and its window.
#[derive(Debug, Clone, PartialEq)]
pub struct WindowCall {
    pub func: WinFunc,
    /// `COUNT(*)` has none; `COUNT(DISTINCT ...)` OVER is refused by the parser (1235 as mysqld).
    pub args: Vec<Expr>,
    pub partition: Vec<Expr>,
    pub order: Vec<OrderItem>,
    /// None: the default frame (RANGE UNBOUNDED PRECEDING .. CURRENT ROW with ORDER BY, the
    /// whole partition without).
    pub frame: Option<WinFrame>,
}

/// How a subquery's result is used (`Item_subselect`'s kinds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubqueryKind {
    /// `(SELECT x ...)`: one value (NULL on no row, 1242 on several).
    Scalar,
    /// `EXISTS (SELECT ...)`.
    Exists,
    /// `left IN (SELECT ...)` (NOT IN is `NOT` around it).
    In,
    /// `left op ANY|SOME (SELECT ...)`.
    Any(BinOp),
    /// `left op ALL (SELECT ...)`.
    All(BinOp),
    /// `(a, b) op (SELECT x, y ...)`: a row subquery compared with `=`, `<=>` or `<>`.
    Row(BinOp),
}

/// A subquery with its left operands (a row constructor's items for IN/ANY/ALL/Row).
#[derive(Debug, Clone, PartialEq)]
pub struct Subquery {
    pub kind: SubqueryKind,
    pub left: Vec<Expr>,
    pub query: Select,
}

/// The parts of a GROUP_CONCAT call.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupConcat {
    pub distinct: bool,
    pub args: Vec<Expr>,
    pub order: Vec<OrderItem>,
    pub separator: Vec<u8>,
}

impl Expr {
    /// Whether the tree contains an aggregate call.
    pub fn has_aggregate(&self) -> bool {
        let mut found = false;
        self.walk(&mut |e| {
            found |= matches!(e, Expr::AggCall { .. } | Expr::Agg(_) | Expr::GroupConcat(_))
        });
        found
    }

    /// Whether the tree contains a window function call.
    pub fn has_window(&self) -> bool {
        let mut found = false;
        self.walk(&mut |e| found |= matches!(e, Expr::Window(_)));
        found
    }

    /// Visits every node, parents first.
    pub fn walk(&self, f: &mut dyn FnMut(&Expr)) {
        f(self);
        match self {
            Expr::Unary(_, e)
            | Expr::IsNull { expr: e, .. }
            | Expr::InsertValue(e)
            | Expr::Collate(e, _)
            | Expr::Collated(_, e)
            | Expr::LikeEscape(e, _) => e.walk(f),
            Expr::Str(_, args) => args.iter().for_each(|e| e.walk(f)),
            Expr::GroupConcat(g) => {
                g.args.iter().for_each(|e| e.walk(f));
                g.order.iter().for_each(|o| o.expr.walk(f));
            }
            Expr::Binary(_, a, b) | Expr::Like { expr: a, pattern: b, .. } => {
                a.walk(f);
                b.walk(f);
            }
            Expr::Between { expr, low, high, .. } => {
                expr.walk(f);
                low.walk(f);
                high.walk(f);
            }
            Expr::InList { expr, list, .. } => {
                expr.walk(f);
                list.iter().for_each(|e| e.walk(f));
            }
            Expr::Case { operand, whens, otherwise } => {
                if let Some(o) = operand {
                    o.walk(f);
                }
                for (w, t) in whens {
                    w.walk(f);
                    t.walk(f);
                }
                if let Some(o) = otherwise {
                    o.walk(f);
                }
            }
            Expr::Func(_, args) | Expr::Grouping(args) => args.iter().for_each(|e| e.walk(f)),
            Expr::AggCall { arg: Some(a), .. } => a.walk(f),
            Expr::Window(w) => {
                w.args.iter().for_each(|e| e.walk(f));
                w.partition.iter().for_each(|e| e.walk(f));
                w.order.iter().for_each(|o| o.expr.walk(f));
            }
            // The subquery's own clauses are its own scope (an aggregate there is its own).
            Expr::Subquery(q) => q.left.iter().for_each(|e| e.walk(f)),
            _ => {}
        }
    }
}

/// One item of a SELECT list.
#[derive(Debug, Clone, PartialEq)]
pub enum SelectItem {
    /// `*`.
    Wildcard,
    /// `t.*` (the table's alias or name; a database qualifier, if any, in `.0`).
    TableWildcard(Option<String>, String),
    /// An expression and its column label (the alias, else the expression's text).
    Expr { expr: Expr, label: String, aliased: bool },
}

#[derive(Debug, Clone, PartialEq)]
pub struct OrderItem {
    pub expr: Expr,
    pub desc: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Select {
    pub from: Option<TableRef>,
    /// The table's alias, accepted as a column qualifier.
    pub alias: Option<String>,
    pub items: Vec<SelectItem>,
    pub filter: Option<Expr>,
    pub group_by: Vec<Expr>,
    /// `GROUP BY ... WITH ROLLUP` (`query/rollup.rs`).
    pub rollup: bool,
    pub having: Option<Expr>,
    pub order_by: Vec<OrderItem>,
    pub limit: Option<Expr>,
    pub offset: Option<Expr>,
    pub distinct: bool,
    /// A locking read (FOR UPDATE, FOR SHARE, LOCK IN SHARE MODE).
    pub for_update: bool,
    /// With `for_update`: the locks taken are shared (FOR SHARE / LOCK IN SHARE MODE).
    pub for_share: bool,
    /// The tables joined after `from` (the query layer, `query/`); empty for one table.
    pub joins: Vec<JoinItem>,
    /// `from` is a derived table `(SELECT ...) AS alias` (`from` then names the alias).
    pub derived: Option<Box<Select>>,
}

impl Select {
    /// Whether the query layer runs it (several tables, or a derived table).
    pub fn is_multi(&self) -> bool {
        !self.joins.is_empty() || self.derived.is_some()
    }
}

/// The stored tables a SELECT reads, derived tables' included (recursion bounded by the
/// statement's depth limit, `crate::depth`).
pub fn base_tables<'s>(s: &'s Select, out: &mut Vec<&'s TableRef>) {
    if let Some(q) = s.query_expr() {
        for b in q.blocks() {
            base_tables(b, out);
        }
        return;
    }
    let first = s.from.iter().map(|t| (t, s.derived.as_deref()));
    let rest = s.joins.iter().map(|j| (&j.table, j.derived.as_deref()));
    for (t, derived) in first.chain(rest) {
        match derived {
            Some(inner) => base_tables(inner, out),
            None => out.push(t),
        }
    }
}

/// The FROM tables of a multi-table write with whether the statement changes each: a table
/// is changed when an assignment names it (`t.c`, by alias or name) or, for an unqualified
/// column, when it has that column (`has_column`); for DELETE when it is a target. Derived
/// tables are listed with their SELECT. Used for the privilege check (mysqld's
/// `multi_update_precheck` / `multi_delete_precheck`: UPDATE or DELETE on the changed tables,
/// SELECT on the rest) and for LOCK TABLES.
pub(crate) fn write_tables<'s>(
    from: &'s Select,
    changes: &dyn Fn(&str, &TableRef) -> bool,
) -> Vec<(&'s TableRef, Option<&'s Select>, bool)> {
    let first = from.from.iter().map(|t| (t, from.alias.as_ref(), from.derived.as_deref()));
    let rest = from.joins.iter().map(|j| (&j.table, j.alias.as_ref(), j.derived.as_deref()));
    first
        .chain(rest)
        .map(|(t, alias, derived)| {
            let label = alias.map_or(t.name.as_str(), String::as_str);
            (t, derived, changes(label, t))
        })
        .collect()
}

impl MultiUpdate {
    /// Whether an assignment names the table `label` (`t`: its stored table, for an
    /// unqualified column looked up by `has_column`).
    pub(crate) fn assigns(
        &self,
        label: &str,
        t: &TableRef,
        has_column: &dyn Fn(&TableRef, &str) -> bool,
    ) -> bool {
        self.set.iter().any(|(q, c, _)| match q {
            Some(q) => q.eq_ignore_ascii_case(label),
            None => has_column(t, c),
        })
    }
}

impl MultiDelete {
    /// Whether `label` is one of the tables rows are deleted from.
    pub(crate) fn deletes(&self, label: &str, t: &TableRef) -> bool {
        let _ = t;
        self.targets.iter().any(|x| x.name.eq_ignore_ascii_case(label))
    }
}

/// How a table of a multi-table FROM joins the tables before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JoinKind {
    /// `,`, `JOIN`, `INNER JOIN`, `CROSS JOIN`.
    Inner,
    /// `STRAIGHT_JOIN`: inner, and the left side is read first.
    Straight,
    /// `LEFT [OUTER] JOIN`: this table is NULL-extended.
    Left,
    /// `RIGHT [OUTER] JOIN`: the tables before it are NULL-extended.
    Right,
}

/// One table after the first of a FROM clause, with its join condition.
#[derive(Debug, Clone, PartialEq)]
pub struct JoinItem {
    pub table: TableRef,
    pub alias: Option<String>,
    pub kind: JoinKind,
    pub on: Option<Expr>,
    /// `USING (c, ...)`.
    pub using: Vec<String>,
    /// `NATURAL [LEFT|RIGHT] JOIN`.
    pub natural: bool,
    /// A derived table `(SELECT ...) AS alias` (`table` then names the alias).
    pub derived: Option<Box<Select>>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Insert {
    pub table: TableRef,
    /// Empty: all columns in table order.
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Expr>>,
    pub replace: bool,
    pub ignore: bool,
    /// ON DUPLICATE KEY UPDATE assignments.
    pub on_duplicate: Vec<(String, Expr)>,
    /// The 8.0.19 row alias `VALUES (...) AS new [(x, y, ...)]`: the alias and the column
    /// aliases (empty: the table's column names).
    pub row_alias: Option<(String, Vec<String>)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Update {
    pub table: TableRef,
    pub alias: Option<String>,
    pub set: Vec<(String, Expr)>,
    pub filter: Option<Expr>,
    pub order_by: Vec<OrderItem>,
    pub limit: Option<Expr>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Delete {
    pub table: TableRef,
    pub alias: Option<String>,
    pub filter: Option<Expr>,
    pub order_by: Vec<OrderItem>,
    pub limit: Option<Expr>,
}

/// A column of CREATE TABLE, already mapped to the engine's types.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnSpec {
    pub column: engine::Column,
    /// Declared as PRIMARY KEY / UNIQUE inline.
    pub primary: bool,
    pub unique: bool,
    /// `CHARACTER SET cs` / `COLLATE coll` as written (resolved against the table's default
    /// at CREATE TABLE).
    pub charset: Option<String>,
    pub collate: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct IndexSpec {
    pub name: Option<String>,
    pub columns: Vec<String>,
    /// Per key part, the prefix length as written (`c(10)`); None for the whole column.
    /// Empty when no part has one.
    pub prefixes: Vec<Option<u64>>,
    pub unique: bool,
    /// `COMMENT 'text'` among the index options (empty: none).
    pub comment: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CreateTable {
    pub table: TableRef,
    pub if_not_exists: bool,
    pub columns: Vec<ColumnSpec>,
    pub primary_key: Option<Vec<String>>,
    pub indexes: Vec<IndexSpec>,
    /// `[DEFAULT] CHARSET=cs` / `[DEFAULT] COLLATE=coll` table options.
    pub charset: Option<String>,
    pub collate: Option<String>,
    /// `[CONSTRAINT [sym]] FOREIGN KEY ...` clauses, in order.
    pub foreign_keys: Vec<FkSpec>,
    /// `CREATE TABLE ... [IGNORE | REPLACE] [AS] SELECT ...` (`ddl/create_select.rs`).
    pub select: Option<CreateSelect>,
    /// `CREATE TABLE ... START TRANSACTION` (MySQL 8.0.21+, what mysqld logs for CREATE TABLE
    /// ... SELECT in row format): the table is created and a transaction begins, which the
    /// statement's row events join.
    pub start_transaction: bool,
    /// `COMMENT [=] 'text'` table option (`ddl/table_options.rs`).
    pub comment: Option<String>,
    /// `AUTO_INCREMENT [=] n` table option: the counter's first value.
    pub auto_increment: Option<u64>,
    /// CHECK constraints, column and table ones in the order written (`checks.rs`).
    pub checks: Vec<CheckSpec>,
}

/// What printing found that mysqld refuses in a CHECK constraint.
#[derive(Debug, Clone, PartialEq)]
pub enum CheckRefusal {
    /// A function whose value is not a function of the row (its lower-case name).
    Function(String),
    /// A subquery (IN/EXISTS/scalar).
    Subquery,
}

/// `[CONSTRAINT [name]] CHECK (cond) [[NOT] ENFORCED]`, of a column or of the table.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckSpec {
    pub name: Option<String>,
    /// The condition as mysqld prints it (`parse/check_print.rs`), what is stored.
    pub text: String,
    /// Converted, for validation against the table (its columns, variables).
    pub expr: Expr,
    /// What mysqld refuses that only the written form shows (a function, a subquery).
    pub refusal: Option<CheckRefusal>,
    pub enforced: bool,
    /// The column of a column CHECK (it may name no other column, 3813).
    pub column: Option<String>,
}

/// The SELECT part of `CREATE TABLE ... SELECT`.
#[derive(Debug, Clone, PartialEq)]
pub struct CreateSelect {
    pub select: Box<Select>,
    /// `IGNORE` (duplicates skipped with warning 1062) or `REPLACE` (a later row replaces
    /// the earlier); neither: a duplicate is error 1062.
    pub ignore: bool,
    pub replace: bool,
}

/// `[CONSTRAINT [symbol]] FOREIGN KEY [index_name] (cols) REFERENCES parent (cols)
/// [ON DELETE action] [ON UPDATE action]` as written.
#[derive(Debug, Clone, PartialEq)]
pub struct FkSpec {
    /// The CONSTRAINT symbol.
    pub name: Option<String>,
    /// The index name after FOREIGN KEY (names the supporting index when one is created).
    pub index_name: Option<String>,
    pub columns: Vec<String>,
    pub parent: TableRef,
    pub parent_columns: Vec<String>,
    pub on_delete: engine::FkAction,
    pub on_update: engine::FkAction,
}

/// One assignment of SET.
#[derive(Debug, Clone, PartialEq)]
pub enum SetItem {
    /// `SET [GLOBAL|SESSION] name = expr`; `DEFAULT` is `None`.
    System {
        scope: VarScope,
        name: String,
        value: Option<Expr>,
    },
    User {
        name: String,
        value: Expr,
    },
    /// `SET NAMES {charset [COLLATE collation] | DEFAULT}` (`None`: DEFAULT).
    Names {
        charset: Option<String>,
        collation: Option<String>,
    },
    /// `SET {CHARACTER SET | CHARSET} {charset | DEFAULT}`: client and results in `charset`,
    /// the connection in the database's character set.
    CharacterSet {
        charset: Option<String>,
    },
}

/// The SHOW statements.
#[derive(Debug, Clone, PartialEq)]
pub enum Show {
    Databases {
        like: Option<String>,
    },
    Tables {
        db: Option<String>,
        full: bool,
        like: Option<String>,
    },
    CreateTable(TableRef),
    /// `SHOW CREATE VIEW v` (views.rs).
    CreateView(TableRef),
    CreateDatabase(String),
    Columns {
        table: TableRef,
        full: bool,
        like: Option<String>,
    },
    Variables {
        global: bool,
        like: Option<String>,
    },
    Status {
        global: bool,
        like: Option<String>,
    },
    Warnings,
    Errors,
    /// `SHOW COUNT(*) WARNINGS` / `SHOW COUNT(*) ERRORS` (mysqld answers it as `SELECT
    /// @@session.warning_count` / `error_count`).
    WarningCount {
        errors: bool,
    },
    Engines,
    Index(TableRef),
    /// `SHOW TABLE STATUS [FROM db] [LIKE 'p']` (mysqld's 18 columns).
    TableStatus {
        db: Option<String>,
        like: Option<String>,
    },
    Charset {
        like: Option<String>,
    },
    Collation {
        like: Option<String>,
    },
    ProcessList {
        full: bool,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum Stmt {
    /// `EXPLAIN [FORMAT=TRADITIONAL] stmt` / `DESCRIBE stmt` of a SELECT, INSERT, REPLACE,
    /// UPDATE or DELETE (never another EXPLAIN).
    Explain(Box<Stmt>),
    Select(Select),
    Insert(Insert),
    Update(Update),
    Delete(Delete),
    CreateDatabase {
        name: String,
        if_not_exists: bool,
        /// `[DEFAULT] CHARACTER SET cs` / `[DEFAULT] COLLATE coll`.
        charset: Option<String>,
        collate: Option<String>,
    },
    DropDatabase {
        name: String,
        if_exists: bool,
    },
    Use(String),
    CreateTable(CreateTable),
    CreateIndex {
        table: TableRef,
        index: IndexSpec,
    },
    DropIndex {
        table: TableRef,
        name: String,
    },
    DropTable {
        tables: Vec<TableRef>,
        if_exists: bool,
    },
    Truncate(TableRef),
    /// `ALTER TABLE t` made only of `ADD [CONSTRAINT [sym]] FOREIGN KEY ...` and
    /// `DROP FOREIGN KEY sym` clauses (`crate::foreign_keys`).
    AlterForeignKeys {
        table: TableRef,
        add: Vec<FkSpec>,
        drop: Vec<String>,
    },
    Begin,
    /// `START TRANSACTION READ ONLY`: a transaction whose writes are refused (1792).
    BeginReadOnly,
    Commit,
    Rollback,
    Set(Vec<SetItem>),
    /// `SET [GLOBAL | SESSION] TRANSACTION characteristic, ...` (MySQL's
    /// `set_transaction_characteristics`): `scope` Default = the next transaction only;
    /// `isolation` the level's variable value (`REPEATABLE-READ`, ...); `read_only`.
    SetTransaction {
        scope: VarScope,
        isolation: Option<&'static str>,
        read_only: Option<bool>,
    },
    /// `START TRANSACTION WITH CONSISTENT SNAPSHOT [, ...]`: BEGIN plus a read view taken at
    /// once, with the binlog position it matches (`binlog_snapshot_*`); `READ ONLY` beside it
    /// refuses writes as [`Stmt::BeginReadOnly`] does.
    BeginConsistentSnapshot {
        read_only: bool,
    },
    Show(Show),
    /// `SHOW {DATABASES | TABLES | COLUMNS | VARIABLES | STATUS} ... WHERE expr`: the SHOW's
    /// rows filtered by `filter` over its column names (MySQL's semantics).
    ShowWhere {
        show: Show,
        filter: Expr,
    },
    Admin(AdminCommand),
    /// CREATE/ALTER/DROP USER, GRANT, REVOKE, SHOW GRANTS.
    Account(AccountStmt),
    /// `CHECKSUM TABLE t, ... [QUICK | EXTENDED]`; `quick` asks for the live checksum only.
    Checksum {
        tables: Vec<TableRef>,
        quick: bool,
    },
    /// `SHUTDOWN`: a clean shutdown of the server, as SIGTERM.
    Shutdown,
    /// `BINLOG 'base64 events'` (mysqlbinlog output's row events): binlogstmt.rs.
    Binlog(String),
    /// `KILL [CONNECTION | QUERY] id` (`query`: only the running statement).
    Kill {
        query: bool,
        id: Expr,
    },
    /// `FLUSH TABLES | PRIVILEGES | STATUS | ...`: nothing is cached that could be stale, so
    /// it only checks RELOAD (FLUSH BINARY LOGS / LOGS is an [`AdminCommand`]).
    Flush,
    /// Statements accepted and answered OK without effect (`DO`, an empty statement, ...).
    Noop,
    /// `LOCK TABLES t READ|WRITE, ...` (`true`: WRITE), with mysqld's rules (`locks.rs`).
    LockTables(Vec<(TableRef, bool)>),
    /// `UNLOCK TABLES`.
    UnlockTables,
    /// `FLUSH TABLES [t, ...] WITH READ LOCK` (no tables: the global read lock).
    FlushTablesWithReadLock(Vec<TableRef>),
    /// `LOCK INSTANCE FOR BACKUP`.
    LockInstance,
    /// `UNLOCK INSTANCE`.
    UnlockInstance,
    /// `SAVEPOINT name`.
    Savepoint(String),
    /// `ROLLBACK [WORK] TO [SAVEPOINT] name`: undoes the rows changed since the savepoint.
    RollbackToSavepoint(String),
    /// `RELEASE SAVEPOINT name`.
    ReleaseSavepoint(String),
    /// `ALTER TABLE t {DISABLE | ENABLE} KEYS`: InnoDB has no such option; mysqld answers OK
    /// with note 1031, and so does binlogd.
    AlterKeys(TableRef),
    /// `ALTER TABLE t op, op, ...` (see `ddl/alter.rs`).
    AlterTable {
        table: TableRef,
        ops: Vec<AlterOp>,
    },
    /// `RENAME TABLE a TO b [, c TO d ...]`.
    RenameTables(Vec<(TableRef, TableRef)>),
    /// `CREATE TABLE [IF NOT EXISTS] t LIKE src`.
    CreateTableLike {
        table: TableRef,
        like: TableRef,
        if_not_exists: bool,
    },
    /// `INSERT [IGNORE] | REPLACE INTO t [(cols)] SELECT ...` (`insert.rows` empty): the
    /// SELECT's rows are the values (`query/insert_select.rs`).
    InsertSelect(InsertSelect),
    /// `UPDATE t1 JOIN t2 ... SET ...` / `UPDATE t1, t2 SET ...` (`query/write.rs`).
    MultiUpdate(MultiUpdate),
    /// `DELETE t1, t2 FROM ...` / `DELETE FROM t1, t2 USING ...` (`query/write.rs`).
    MultiDelete(MultiDelete),
    /// `CREATE [OR REPLACE] ... VIEW` / `ALTER ... VIEW` (`views.rs`).
    CreateView(Box<CreateView>),
    /// `DROP VIEW [IF EXISTS] v, ...`.
    DropView {
        views: Vec<TableRef>,
        if_exists: bool,
    },
}

/// `CREATE [OR REPLACE] [ALGORITHM = a] [DEFINER = u] [SQL SECURITY s] VIEW v [(cols)] AS
/// select [WITH [CASCADED | LOCAL] CHECK OPTION]`, or `ALTER ...` of the same shape.
#[derive(Debug, Clone, PartialEq)]
pub struct CreateView {
    pub view: TableRef,
    pub or_replace: bool,
    /// `ALTER VIEW`: the view must exist (1347 if a table, 1146 if absent).
    pub alter: bool,
    /// `UNDEFINED`, `MERGE` or `TEMPTABLE` (upper case); None: UNDEFINED.
    pub algorithm: Option<String>,
    /// `DEFINER = 'user'@'host'`; None: `CURRENT_USER`.
    pub definer: Option<(String, String)>,
    /// `DEFINER` or `INVOKER`; None: DEFINER.
    pub security: Option<String>,
    pub columns: Vec<String>,
    /// The SELECT's text as written (stored, re-parsed at each use).
    pub body: String,
    /// The parsed SELECT (checked at CREATE).
    pub select: Box<Select>,
    /// `WITH [CASCADED] CHECK OPTION` (`CASCADED`) / `WITH LOCAL CHECK OPTION` (`LOCAL`).
    pub check_option: Option<String>,
}

/// `INSERT ... SELECT`: the INSERT (its `rows` empty) and its source.
#[derive(Debug, Clone, PartialEq)]
pub struct InsertSelect {
    pub insert: Insert,
    pub select: Box<Select>,
}

/// A multi-table UPDATE: the tables and WHERE as a SELECT's FROM/joins/filter (its items are
/// unused), the assignments by (qualifier, column).
#[derive(Debug, Clone, PartialEq)]
pub struct MultiUpdate {
    pub from: Select,
    pub set: Vec<(Option<String>, String, Expr)>,
    pub ignore: bool,
}

/// A multi-table DELETE: the tables rows are deleted from (by alias or name) and the FROM
/// (`USING`) join with its WHERE.
#[derive(Debug, Clone, PartialEq)]
pub struct MultiDelete {
    pub targets: Vec<TableRef>,
    pub from: Select,
    /// `DELETE IGNORE`: rows a foreign key keeps (1451) are skipped with a warning.
    pub ignore: bool,
}

/// Where ADD/CHANGE/MODIFY puts a column.
#[derive(Debug, Clone, PartialEq)]
pub enum ColumnPosition {
    First,
    After(String),
}

/// One operation of ALTER TABLE, in mysqld's `alter_list_item` terms.
#[derive(Debug, Clone, PartialEq)]
pub enum AlterOp {
    AddColumn {
        spec: ColumnSpec,
        position: Option<ColumnPosition>,
    },
    DropColumn {
        name: String,
        if_exists: bool,
    },
    /// CHANGE old spec / MODIFY spec (old = the spec's name).
    ChangeColumn {
        old: String,
        spec: ColumnSpec,
        position: Option<ColumnPosition>,
    },
    RenameColumn {
        old: String,
        new: String,
    },
    /// ALTER COLUMN c SET DEFAULT v (the column with only its default set) / DROP DEFAULT.
    SetDefault {
        column: String,
        default: Option<Box<ColumnSpec>>,
    },
    AddIndex(IndexSpec),
    AddPrimaryKey(Vec<String>),
    DropIndex {
        name: String,
        if_exists: bool,
    },
    DropPrimaryKey,
    RenameIndex {
        old: String,
        new: String,
    },
    RenameTable(TableRef),
    /// `[DEFAULT] CHARSET / COLLATE` (convert: `CONVERT TO CHARACTER SET`, which converts
    /// every character column too).
    Charset {
        charset: Option<String>,
        collate: Option<String>,
        convert: bool,
    },
    AutoIncrement(u64),
    /// `COMMENT [=] 'text'`: the table's comment.
    Comment(String),
    /// `ADD [CONSTRAINT [sym]] FOREIGN KEY ...` beside other operations (an ALTER made only
    /// of foreign key clauses is [`Stmt::AlterForeignKeys`]).
    AddForeignKey(FkSpec),
    /// `DROP FOREIGN KEY sym` beside other operations.
    DropForeignKey(String),
    /// `DROP CONSTRAINT sym` (mysqld 8.0.19+): the PRIMARY / UNIQUE key or foreign key of
    /// that name, resolved against the table before the ALTER (`ddl/alter.rs`).
    DropConstraint(String),
    /// `ADD [CONSTRAINT [sym]] CHECK (cond) [[NOT] ENFORCED]` (`checks.rs`).
    AddCheck(CheckSpec),
    /// `DROP CHECK sym` (and `DROP CONSTRAINT sym` naming a check constraint).
    DropCheck(String),
    /// `ALTER {CHECK | CONSTRAINT} sym [NOT] ENFORCED`.
    AlterCheck {
        name: String,
        enforced: bool,
    },
    /// ENGINE=InnoDB, ALGORITHM, LOCK, ROW_FORMAT, FORCE, DISABLE/ENABLE KEYS:
    /// accepted, nothing to change.
    Accepted,
}

/// The foreign keys to add and the names to drop when `ops` holds only foreign key clauses
/// (such an ALTER takes the foreign keys' own path), else `ops` back unchanged.
pub fn foreign_key_clauses_only(
    ops: Vec<AlterOp>,
) -> std::result::Result<(Vec<FkSpec>, Vec<String>), Vec<AlterOp>> {
    if !ops.iter().all(|op| matches!(op, AlterOp::AddForeignKey(_) | AlterOp::DropForeignKey(_))) {
        return Err(ops);
    }
    let (mut add, mut drop) = (Vec::new(), Vec::new());
    for op in ops {
        match op {
            AlterOp::AddForeignKey(f) => add.push(f),
            AlterOp::DropForeignKey(n) => drop.push(n),
            _ => unreachable!("checked above: foreign key clauses only"),
        }
    }
    Ok((add, drop))
}

// The account statements (executed in `acl.rs`).

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

/// `IDENTIFIED [WITH plugin] [BY 'password' | AS 'hash']`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identified {
    /// None: the default plugin (caching_sha2_password, mysqld 8's default).
    pub plugin: Option<Plugin>,
    pub secret: Secret,
}

/// The password of an `IDENTIFIED` clause.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Secret {
    /// `BY 'password'` (or no clause: empty).
    Password(String),
    /// `AS 'hash'`: the stored form, as the binary log carries it.
    Hash(String),
}

/// `ON *.*`, `ON db.*` / `ON *`, `ON db.tbl` / `ON tbl` (`None`: the default database).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GrantTarget {
    Global,
    Database(Option<String>),
    Table(Option<String>, String),
}

/// `CREATE/ALTER/DROP/RENAME USER`, `GRANT`, `REVOKE`, `SET PASSWORD`, `SHOW GRANTS`,
/// `SHOW CREATE USER`.
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
        target: GrantTarget,
        users: Vec<UserSpec>,
    },
    /// `target: None`: `REVOKE ALL [PRIVILEGES], GRANT OPTION FROM ...` (every level).
    Revoke {
        privileges: Privileges,
        target: Option<GrantTarget>,
        users: Vec<UserSpec>,
    },
    /// `RENAME USER a TO b [, c TO d]...`.
    RenameUser(Vec<(UserSpec, UserName)>),
    /// `SET PASSWORD [FOR user] = 'password'`.
    SetPassword {
        user: Option<UserSpec>,
        password: String,
    },
    /// `SHOW GRANTS [FOR user]`.
    ShowGrants(Option<UserSpec>),
    /// `SHOW CREATE USER user`.
    ShowCreateUser(UserSpec),
}

/// The string functions (`eval::strfunc`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StrFn {
    Substring,
    Left,
    Right,
    Replace,
    /// TRIM([BOTH|LEADING|TRAILING] [remstr] FROM str): args (str[, remstr]).
    Trim(TrimWhere),
    LTrim,
    RTrim,
    Repeat,
    LPad,
    RPad,
    ConcatWs,
    /// LOCATE(substr, str[, pos]) and POSITION(substr IN str).
    Locate,
    /// INSTR(str, substr).
    Instr,
    Reverse,
    Ascii,
    Ord,
    Char,
    Space,
    Strcmp,
    Field,
    Elt,
    FindInSet,
    Insert,
    Format,
    Quote,
    SubstringIndex,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrimWhere {
    Both,
    Leading,
    Trailing,
}

/// Whether an expression holds a subquery (outside nested subqueries' own clauses).
pub(crate) fn expr_has_subquery(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |x| found |= matches!(x, Expr::Subquery(_) | Expr::Query(_)));
    found
}

/// Whether a SELECT's own clauses hold a subquery (`query/subquery.rs` runs such a SELECT).
pub(crate) fn has_subquery(s: &Select) -> bool {
    let items = s.items.iter().any(|i| match i {
        SelectItem::Expr { expr, .. } => expr_has_subquery(expr),
        _ => false,
    });
    items
        || s.filter.as_ref().is_some_and(expr_has_subquery)
        || s.having.as_ref().is_some_and(expr_has_subquery)
        || s.group_by.iter().any(expr_has_subquery)
        || s.order_by.iter().any(|o| expr_has_subquery(&o.expr))
        || s.joins.iter().any(|j| j.on.as_ref().is_some_and(expr_has_subquery))
}

/// A set operation between query blocks (`UNION`, and 8.0.31's `INTERSECT` / `EXCEPT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetOp {
    Union,
    Intersect,
    Except,
}

/// The body of a query expression: a query block, or a set operation of two bodies
/// (left-associative as written; INTERSECT binds tighter, as in mysqld 8.0.31).
#[derive(Debug, Clone, PartialEq)]
pub enum SetExpr {
    /// One query block; a parenthesised query expression is a block that is a wrapper
    /// ([`Select::wrap`]).
    Block(Box<Select>),
    /// `left op [ALL | DISTINCT] right`; `all` false is DISTINCT (the default).
    Op { op: SetOp, all: bool, left: Box<SetExpr>, right: Box<SetExpr> },
    /// The working table of recursive CTE number `.0` (its rows of the previous iteration).
    Work(usize),
}

/// A query expression: `[WITH ...] body [ORDER BY ...] [LIMIT ...]` (mysqld's
/// `Query_expression`). Common table expressions are inlined by the parser as derived tables,
/// so only a recursive one is visible here (`recursive`).
#[derive(Debug, Clone, PartialEq)]
pub struct QueryExpr {
    pub body: SetExpr,
    pub order_by: Vec<OrderItem>,
    pub limit: Option<Expr>,
    pub offset: Option<Expr>,
    /// Names replacing the result's column names (a CTE's column list `WITH c(a, b) AS`).
    pub names: Vec<String>,
    /// `WITH RECURSIVE`: this expression is recursive CTE (id, name); its blocks reading
    /// [`SetExpr::Work`] with that id are the recursive ones.
    pub recursive: Option<(usize, String)>,
}

impl QueryExpr {
    /// The query blocks of the body, left to right (wrapper blocks as they are).
    pub fn blocks(&self) -> Vec<&Select> {
        fn walk<'a>(e: &'a SetExpr, out: &mut Vec<&'a Select>) {
            match e {
                SetExpr::Block(s) => out.push(s),
                SetExpr::Op { left, right, .. } => {
                    walk(left, out);
                    walk(right, out);
                }
                SetExpr::Work(_) => {}
            }
        }
        let mut out = Vec::new();
        walk(&self.body, &mut out);
        out
    }

    /// The query blocks of the body, mutably.
    pub fn blocks_mut(&mut self) -> Vec<&mut Select> {
        fn walk<'a>(e: &'a mut SetExpr, out: &mut Vec<&'a mut Select>) {
            match e {
                SetExpr::Block(s) => out.push(s),
                SetExpr::Op { left, right, .. } => {
                    walk(left, out);
                    walk(right, out);
                }
                SetExpr::Work(_) => {}
            }
        }
        let mut out = Vec::new();
        walk(&mut self.body, &mut out);
        out
    }
}

impl Select {
    /// A SELECT standing for the query expression `q`: its only item is [`Expr::Query`] and
    /// it has no FROM. Every path that runs a SELECT (`Session::run_select`, derived tables,
    /// subqueries, INSERT ... SELECT, EXPLAIN, PREPARE) recognises it by [`Select::query_expr`].
    pub fn wrap(q: QueryExpr) -> Select {
        Select {
            items: vec![SelectItem::Expr {
                expr: Expr::Query(Box::new(q)),
                label: String::new(),
                aliased: false,
            }],
            ..Select::empty()
        }
    }

    /// `SELECT` with nothing: no FROM, no items, no clauses (filled in by the caller).
    pub(crate) fn empty() -> Select {
        Select {
            from: None,
            alias: None,
            items: Vec::new(),
            filter: None,
            group_by: Vec::new(),
            rollup: false,
            having: None,
            order_by: Vec::new(),
            limit: None,
            offset: None,
            distinct: false,
            for_update: false,
            for_share: false,
            joins: Vec::new(),
            derived: None,
        }
    }

    /// The query expression of a wrapper SELECT ([`Select::wrap`]).
    pub fn query_expr(&self) -> Option<&QueryExpr> {
        match self.items.as_slice() {
            [SelectItem::Expr { expr: Expr::Query(q), .. }] if self.from.is_none() => Some(q),
            _ => None,
        }
    }

    /// The query expression of a wrapper SELECT, mutably.
    pub fn query_expr_mut(&mut self) -> Option<&mut QueryExpr> {
        if self.from.is_some() {
            return None;
        }
        match self.items.as_mut_slice() {
            [SelectItem::Expr { expr: Expr::Query(q), .. }] => Some(q),
            _ => None,
        }
    }
}
