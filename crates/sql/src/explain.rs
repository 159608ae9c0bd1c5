//! `EXPLAIN [FORMAT=TRADITIONAL] stmt` and `DESCRIBE stmt` of a single-table SELECT, UPDATE,
//! DELETE, INSERT or REPLACE: mysqld 8.0's tabular plan (`Explain_format_traditional`,
//! sql/opt_explain_traditional.cc; columns as `THD::send_explain_fields`), one row per table.
//!
//! Why by hand: the plan is binlogd's own. Each row is made by [`row`] from a [`TablePlan`],
//! the access path the statement really runs with (`exec::plan_access`, the same function
//! `select`, `update` and `delete` call) and the engine's row counts, so what EXPLAIN says is
//! what runs. A join planner adds rows by building one `TablePlan` per table (`id`, the
//! `ref` text of the columns a lookup is fed from) and calling [`row`] for each.
//!
//! Mapping of binlogd's access paths onto mysqld's join types (sql/sql_select.h `join_type`,
//! `JT_*`):
//! - one full primary key (or a unique one-column index) value: `const` for a SELECT
//!   (`join_read_const_table`); a missing row is "no matching row in const table", as mysqld
//!   reads const tables while planning. UPDATE/DELETE do not use const tables: `range`.
//! - several primary key values (IN lists), ranges of a key: `range`.
//! - an equality on a key prefix (a non-unique index, part of a composite key): `ref`.
//! - a full scan: `ALL`, or `index` on the primary key when the ORDER BY is the key's order
//!   (the scan then needs no sort: `test_if_skip_sort_order`).
//!
//! `key_len` is `KEY_PART_INFO::store_length` summed over the key parts used (sql/key.cc,
//! `Field::key_length` + 1 for a nullable column + 2 for a VARCHAR/VARBINARY length):
//! binary storage sizes (DECIMAL's `my_decimal_get_binary_size`, temporal types with their
//! fractional bytes), characters × mbmaxlen for strings.
//!
//! `rows` is exact where mysqld estimates (the engine counts committed rows of the range;
//! InnoDB dives into the index, `ha_innobase::records_in_range`, or uses its statistics);
//! `filtered` follows mysqld's guesses for conditions the access path does not serve
//! (`Item_func::get_filtering_effect`: equality 10%, inequality 33.33%, BETWEEN 11.11%,
//! `<>` 90%, sql/item_cmpfunc.cc, the COND_FILTER_* constants of sql/opt_costmodel.h).
//!
//! Invariants: every row has the 12 columns of [`columns`], in their order and types; `type`
//! is one of mysqld's join type names.
//!
//! Not modelled (mysqld adds them, binlogd does not show them): the Note 1003 with the
//! rewritten query, `Using index` (covering reads), `Using index condition`, `Select tables
//! optimized away`, FORMAT=JSON and FORMAT=TREE (answered 1235).

use std::sync::Arc;

use engine::{Column, ColumnType, TableId, TableSchema, Value};

use super::ast::{BinOp, Expr, OrderItem, Stmt};
use super::error::{Result, SqlError};
use super::eval::{eval, truth};
use super::exec::{
    conjuncts, fetch, is_const, key_constant, plan_access_in, select_access, Access,
};
use super::output::{MysqlType, Output, ResultColumn};
use super::session::Session;

/// mysqld's `COND_FILTER_EQUALITY`, `COND_FILTER_INEQUALITY`, `COND_FILTER_BETWEEN`.
const FILTER_EQUALITY: f64 = 0.1;
const FILTER_INEQUALITY: f64 = 0.3333;
const FILTER_BETWEEN: f64 = 0.1111;

/// The columns of EXPLAIN's traditional format (`THD::send_explain_fields`): id BIGINT(3),
/// select_type VARCHAR(19), table/key VARCHAR(64) (NAME_CHAR_LEN), partitions, possible_keys
/// and key_len (NAME_CHAR_LEN × MAX_KEY), ref (NAME_CHAR_LEN × MAX_REF_PARTS), rows
/// BIGINT(10), filtered DOUBLE(4,2) (`Item_float("filtered", 0.1234, 2, 4)`), Extra
/// VARCHAR(255); every column but id and select_type nullable.
pub(crate) fn columns() -> Vec<ResultColumn> {
    let mut id = ResultColumn::bigint("id", false);
    id.length = 3;
    id.flags |= super::output::flags::NOT_NULL;
    let mut select_type = ResultColumn::text("select_type", 19);
    select_type.flags |= super::output::flags::NOT_NULL;
    let mut rows = ResultColumn::bigint("rows", false);
    rows.length = 10;
    let mut filtered = ResultColumn::expr("filtered", MysqlType::Double);
    filtered.length = 4;
    filtered.decimals = 2;
    vec![
        id,
        select_type,
        ResultColumn::text("table", 64),
        ResultColumn::text("partitions", 8192),
        ResultColumn::text("type", 10),
        ResultColumn::text("possible_keys", 4096),
        ResultColumn::text("key", 64),
        ResultColumn::text("key_len", 4096),
        ResultColumn::text("ref", 1024),
        rows,
        filtered,
        ResultColumn::text("Extra", 255),
    ]
}

/// One table of a plan, as [`row`] describes it.
pub(crate) struct TablePlan<'a> {
    /// The SELECT's number (1 for a single-table statement).
    pub(crate) id: u64,
    /// SIMPLE, UPDATE, DELETE, INSERT, REPLACE.
    pub(crate) select_type: &'static str,
    /// The table's label (its alias if it has one).
    pub(crate) table: &'a str,
    pub(crate) schema: &'a TableSchema,
    /// The access path the statement runs with; None: no rows are read (INSERT ... VALUES).
    pub(crate) access: Option<&'a Access>,
    /// The bound WHERE clause.
    pub(crate) filter: Option<&'a Expr>,
    /// The ORDER BY needs a sort (not the scanned key's order).
    pub(crate) filesort: bool,
    /// The ORDER BY is the primary key's order (a full scan reads the key: `index`).
    pub(crate) orders_by_key: bool,
    /// That order is descending (the key is read backwards).
    pub(crate) backward: bool,
    /// GROUP BY / DISTINCT through a temporary table.
    pub(crate) temporary: bool,
    /// A SELECT (const tables apply) rather than UPDATE/DELETE.
    pub(crate) select: bool,
    /// Committed rows of the table.
    pub(crate) table_rows: u64,
    /// Rows the access path yields (before the WHERE filter).
    pub(crate) access_rows: u64,
}

/// A text cell.
fn text(s: impl Into<String>) -> Value {
    Value::Bytes(s.into().into_bytes())
}

/// A row with only id, select_type and Extra (mysqld's plans that read no table:
/// "No tables used", "Impossible WHERE", "no matching row in const table").
pub(crate) fn message_row(id: u64, select_type: &str, extra: &str) -> Vec<Value> {
    let mut r = vec![Value::Null; 12];
    r[0] = Value::UInt(id);
    r[1] = text(select_type);
    r[11] = text(extra);
    r
}

/// The name EXPLAIN gives a key: PRIMARY or the index's name.
fn key_name(index: Option<&str>) -> String {
    index.unwrap_or("PRIMARY").to_string()
}

/// The key columns of the primary key (None) or of index `name`.
fn key_columns<'s>(schema: &'s TableSchema, index: Option<&str>) -> &'s [usize] {
    match index {
        None => &schema.primary_key,
        Some(n) => schema.indexes.iter().find(|i| i.name == n).map_or(&[], |i| &i.columns),
    }
}

/// The prefix length of part `part` of the primary key (None: never one) or of index `name`.
fn key_part_prefix(schema: &TableSchema, index: Option<&str>, part: usize) -> u32 {
    index.and_then(|n| schema.indexes.iter().find(|i| i.name == n)).map_or(0, |i| i.prefix(part))
}

/// `KEY_PART_INFO::store_length` of a key part on `c` (sql/table.cc, `Field::key_length`)
/// with prefix length `prefix` (0: the whole column): a prefix holds that many characters,
/// with the 2 length bytes of a variable-length string.
pub(crate) fn key_part_length(c: &Column, prefix: u32) -> u64 {
    let mbmax = || u64::from(collation::by_id(c.collation).map_or(4, |i| i.charset.mbmaxlen()));
    if prefix != 0 {
        let fixed = matches!(c.ty, ColumnType::Char(_) | ColumnType::Binary(_));
        return u64::from(prefix) * mbmax() + if fixed { 0 } else { 2 } + u64::from(c.nullable);
    }
    let frac = |fsp: u8| u64::from(fsp).div_ceil(2);
    let len = match c.ty {
        ColumnType::Integer { bytes, .. } => u64::from(bytes),
        ColumnType::Double => 8,
        ColumnType::Float => 4,
        ColumnType::Decimal { precision, scale } => decimal_bin_size(precision, scale),
        ColumnType::Char(n) => u64::from(n) * mbmax(),
        ColumnType::VarChar(n) => u64::from(n) * mbmax() + 2,
        ColumnType::Binary(n) => u64::from(n),
        ColumnType::VarBinary(n) => u64::from(n) + 2,
        ColumnType::Date => 3,
        ColumnType::Time { fsp } => 3 + frac(fsp),
        ColumnType::DateTime { fsp } => 5 + frac(fsp),
        ColumnType::Timestamp { fsp } => 4 + frac(fsp),
        ColumnType::Year => 1,
        ColumnType::Enum => {
            if c.elements.len() < 256 {
                1
            } else {
                2
            }
        }
        ColumnType::Set => match c.elements.len().div_ceil(8) {
            n @ 0..=4 => n.max(1) as u64,
            _ => 8,
        },
        ColumnType::Bit(n) => u64::from(n).div_ceil(8),
        // Indexed only through a prefix, which binlogd's indexes do not have: the length
        // prefix alone.
        ColumnType::Text
        | ColumnType::SizedText { .. }
        | ColumnType::Blob { .. }
        | ColumnType::Json => 2,
    };
    len + u64::from(c.nullable)
}

/// `my_decimal_get_binary_size` (strings/decimal.cc `decimal_bin_size`): 4 bytes per 9
/// digits, the leftover digits of each side in 0..4 bytes.
fn decimal_bin_size(precision: u8, scale: u8) -> u64 {
    const DIG2BYTES: [u64; 10] = [0, 1, 1, 2, 2, 3, 3, 4, 4, 4];
    let intg = u64::from(precision.saturating_sub(scale));
    let frac = u64::from(scale);
    (intg / 9) * 4
        + DIG2BYTES[(intg % 9) as usize]
        + (frac / 9) * 4
        + DIG2BYTES[(frac % 9) as usize]
}

/// How a plan uses its key: the join type, the key, how many key parts, whether the parts
/// are fed from constants (`ref` = "const" per part).
struct KeyUse {
    join_type: &'static str,
    index: Option<String>,
    parts: usize,
    ref_const: bool,
}

fn key_use(p: &TablePlan<'_>, access: &Access) -> Option<KeyUse> {
    let pk = &p.schema.primary_key;
    Some(match access {
        Access::Keys(keys) if keys.len() == 1 => KeyUse {
            join_type: if p.select { "const" } else { "range" },
            index: None,
            parts: pk.len(),
            ref_const: true,
        },
        Access::Keys(_) => {
            KeyUse { join_type: "range", index: None, parts: pk.len(), ref_const: false }
        }
        Access::Ranges(r) if r.full_index => {
            KeyUse { join_type: "index", index: r.index.clone(), parts: r.parts, ref_const: false }
        }
        Access::Ranges(r) => {
            let unique = match &r.index {
                None => r.parts == pk.len(),
                Some(n) => p
                    .schema
                    .indexes
                    .iter()
                    .any(|i| &i.name == n && i.unique && i.columns.len() == r.parts),
            };
            if r.points && r.ranges.len() == 1 {
                let join_type = match (unique, p.select) {
                    (true, true) => "const",
                    (false, true) => "ref",
                    // Single-table UPDATE/DELETE plan with the range optimizer only
                    // (`test_quick_select` in sql_update.cc / sql_delete.cc): no ref access.
                    (_, false) => "range",
                };
                KeyUse { join_type, index: r.index.clone(), parts: r.parts, ref_const: true }
            } else {
                range_use(r.index.clone(), r.parts)
            }
        }
        Access::Full => return None,
    })
}

fn range_use(index: Option<String>, parts: usize) -> KeyUse {
    KeyUse { join_type: "range", index, parts, ref_const: false }
}

/// The keys whose columns the WHERE bounds to ranges (mysqld's `possible_keys`).
fn possible_keys(schema: &TableSchema, filter: Option<&Expr>) -> Vec<String> {
    let Some(filter) = filter else { return Vec::new() };
    crate::range::candidates(schema, filter, &key_constant)
        .into_iter()
        .map(|r| r.index.unwrap_or_else(|| "PRIMARY".to_string()))
        .collect()
}

/// The columns a bound expression reads.
fn columns_read(e: &Expr) -> Vec<usize> {
    let mut v = Vec::new();
    e.walk(&mut |x| {
        if let Expr::Col(i) = x {
            v.push(*i);
        }
    });
    v
}

/// mysqld's guess of the fraction of rows a term keeps (`get_filtering_effect`).
pub(crate) fn term_selectivity(e: &Expr) -> f64 {
    match e {
        Expr::Collated(_, inner) => term_selectivity(inner),
        Expr::Binary(BinOp::Eq | BinOp::NullSafeEq, ..) => FILTER_EQUALITY,
        Expr::Binary(BinOp::NotEq, ..) => 1.0 - FILTER_EQUALITY,
        Expr::Binary(BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge, ..) => FILTER_INEQUALITY,
        Expr::Between { negated: false, .. } => FILTER_BETWEEN,
        Expr::Between { negated: true, .. } => 1.0 - FILTER_BETWEEN,
        Expr::InList { list, negated, .. } => {
            let f = (list.len() as f64 * FILTER_EQUALITY).min(0.5);
            if *negated {
                1.0 - f
            } else {
                f
            }
        }
        Expr::IsNull { negated: false, .. } => FILTER_EQUALITY,
        Expr::IsNull { negated: true, .. } => 1.0 - FILTER_EQUALITY,
        Expr::Like { negated: false, .. } => FILTER_BETWEEN,
        _ => 1.0,
    }
}

/// The EXPLAIN row of one table (see the module doc).
pub(crate) fn row(p: &TablePlan<'_>) -> Vec<Value> {
    let id = Value::UInt(p.id);
    let Some(access) = p.access else {
        // INSERT ... VALUES reads nothing: type ALL, no estimates (mysqld's
        // `Explain_table::explain_join_type` for a table that is only written).
        let mut r = message_row(p.id, p.select_type, "");
        r[2] = text(p.table);
        r[4] = text("ALL");
        r[11] = Value::Null;
        return r;
    };
    if p.select {
        if let Access::Keys(k) = access {
            if k.len() == 1 && p.access_rows == 0 {
                return message_row(p.id, p.select_type, "no matching row in const table");
            }
        }
    }
    let used = key_use(p, access);
    let possible = possible_keys(p.schema, p.filter);
    // A full scan in the primary key's order serves the ORDER BY: mysqld reads the index.
    let (join_type, key, key_len, parts_used): (&str, Option<String>, Option<u64>, Vec<usize>) =
        match &used {
            Some(u) => {
                let cols = key_columns(p.schema, u.index.as_deref());
                let parts = &cols[..u.parts.min(cols.len())];
                let index = u.index.as_deref();
                let len = (parts.iter().enumerate())
                    .map(|(k, &c)| {
                        key_part_length(&p.schema.columns[c], key_part_prefix(p.schema, index, k))
                    })
                    .sum();
                (u.join_type, Some(key_name(u.index.as_deref())), Some(len), parts.to_vec())
            }
            None if !p.filesort && !p.schema.primary_key.is_empty() && p.orders_by_key => {
                let cols = &p.schema.primary_key;
                let len = cols.iter().map(|&c| key_part_length(&p.schema.columns[c], 0)).sum();
                ("index", Some("PRIMARY".to_string()), Some(len), Vec::new())
            }
            None => ("ALL", None, None, Vec::new()),
        };
    let ref_text = used
        .as_ref()
        .filter(|u| u.ref_const && !parts_used.is_empty())
        .map(|_| vec!["const"; parts_used.len()].join(","));
    // Conditions the key does not serve filter the rows read.
    let mut residual = Vec::new();
    if let Some(f) = p.filter {
        let mut terms = Vec::new();
        conjuncts(f, &mut terms);
        for t in terms {
            let cols = columns_read(t);
            if cols.is_empty() || !cols.iter().all(|c| parts_used.contains(c)) {
                residual.push(t);
            }
        }
    }
    let rows = match join_type {
        "ALL" | "index" => p.table_rows,
        _ => p.access_rows,
    };
    let filtered = 100.0 * residual.iter().map(|t| term_selectivity(t)).product::<f64>();
    let mut extra: Vec<&str> = Vec::new();
    let const_row = join_type == "const";
    if !const_row && (!residual.is_empty() || (join_type == "range" && p.filter.is_some())) {
        extra.push("Using where");
    }
    if p.temporary && !const_row {
        extra.push("Using temporary");
    }
    if p.filesort && !const_row {
        extra.push("Using filesort");
    }
    if p.orders_by_key && p.backward && !const_row && join_type != "ALL" {
        extra.push("Backward index scan");
    }
    vec![
        id,
        text(p.select_type),
        text(p.table),
        Value::Null,
        text(join_type),
        if possible.is_empty() { Value::Null } else { text(possible.join(",")) },
        key.map_or(Value::Null, text),
        key_len.map_or(Value::Null, |l| text(l.to_string())),
        ref_text.map_or(Value::Null, text),
        Value::UInt(rows),
        Value::Double((filtered * 100.0).round() / 100.0),
        if extra.is_empty() { Value::Null } else { text(extra.join("; ")) },
    ]
}

/// True if `order` is a prefix of the primary key's columns, all in one direction (the
/// engine's scans are in key order; mysqld's `test_if_order_by_key`).
fn order_is_key(schema: &TableSchema, order: &[(Expr, bool)]) -> bool {
    !order.is_empty()
        && order.len() <= schema.primary_key.len()
        && order.iter().all(|(_, d)| *d == order[0].1)
        && order
            .iter()
            .zip(&schema.primary_key)
            .all(|((e, _), &k)| matches!(e, Expr::Col(c) if *c == k))
}

impl Session {
    /// `EXPLAIN stmt`: the privileges and errors of `stmt` itself (it is bound as it would
    /// run), then its plan; query expressions, subqueries and materialized derived tables
    /// through `query/explain_union.rs`.
    pub(crate) fn explain(&mut self, stmt: &Stmt) -> Result<Output> {
        if let Stmt::Select(s) = stmt {
            self.check_privileges(stmt)?;
            if let Some(rows) = self.explain_tree(s)? {
                return Ok(Output::Rows { columns: columns(), rows });
            }
        }
        self.explain_plain(stmt)
    }

    /// `EXPLAIN` of one query block or write statement.
    pub(crate) fn explain_plain(&mut self, stmt: &Stmt) -> Result<Output> {
        self.check_privileges(stmt)?;
        let rows = match stmt {
            Stmt::Select(s) if s.is_multi() => {
                let mut tables = Vec::new();
                super::ast::base_tables(s, &mut tables);
                self.table_access(&tables, false)?;
                self.explain_join(s)?
            }
            Stmt::Select(s) => {
                if let Some(t) = &s.from {
                    self.table_access(&[t], false)?;
                }
                let shape = self.select_shape(s)?;
                let label = s.alias.clone().or_else(|| s.from.as_ref().map(|t| t.name.clone()));
                match (shape.table, label) {
                    (Some((id, schema)), Some(label)) => {
                        if impossible(shape.filter.as_ref()) {
                            vec![message_row(1, "SIMPLE", "Impossible WHERE")]
                        } else {
                            let engine = self.server.engine.clone();
                            let order: &[(Expr, bool)] =
                                if shape.temporary { &[] } else { &shape.order };
                            let access = select_access(
                                &engine,
                                id,
                                &schema,
                                shape.filter.as_ref(),
                                order,
                                s.limit.is_some(),
                            );
                            let mut filesort =
                                !shape.order.is_empty() && !order_is_key(&schema, &shape.order);
                            let mut orders_by_key = order_is_key(&schema, &shape.order);
                            let mut backward = shape.order.first().is_some_and(|o| o.1);
                            match &access {
                                Access::Ranges(r) if r.ordered => {
                                    filesort = false;
                                    orders_by_key = true;
                                    backward = r.reverse;
                                }
                                Access::Ranges(_) if !shape.order.is_empty() => {
                                    filesort = true;
                                    orders_by_key = false;
                                }
                                _ => {}
                            }
                            filesort |= shape.window_sort;
                            vec![self.explain_access(
                                "SIMPLE",
                                &label,
                                id,
                                &schema,
                                shape.filter.as_ref(),
                                access,
                                filesort,
                                orders_by_key,
                                backward,
                                shape.temporary,
                                true,
                            )?]
                        }
                    }
                    // information_schema tables are made up while reading.
                    _ if shape.made_up => vec![{
                        let mut r = message_row(1, "SIMPLE", "");
                        r[2] = text(s.from.as_ref().map_or("", |t| t.name.as_str()));
                        r[4] = text("ALL");
                        r[11] =
                            if shape.filter.is_some() { text("Using where") } else { Value::Null };
                        r
                    }],
                    _ if impossible(shape.filter.as_ref()) => {
                        vec![message_row(1, "SIMPLE", "Impossible WHERE")]
                    }
                    _ => vec![message_row(1, "SIMPLE", "No tables used")],
                }
            }
            Stmt::Update(u) => {
                self.table_access(&[&u.table], true)?;
                let (id, schema, _) = self.resolve_table(&u.table)?;
                let mut b =
                    self.binder(Some(&schema), &[], "field list").with_alias(u.alias.as_ref());
                for (name, e) in &u.set {
                    if schema.column_position(name).is_none() {
                        return Err(SqlError::UnknownColumn {
                            column: name.clone(),
                            context: "field list",
                        });
                    }
                    b.bind(e)?;
                }
                let label = u.alias.clone().unwrap_or_else(|| u.table.name.clone());
                self.explain_write(
                    "UPDATE",
                    &label,
                    id,
                    &schema,
                    u.alias.as_ref(),
                    u.filter.as_ref(),
                    &u.order_by,
                )?
            }
            Stmt::Delete(d) => {
                self.table_access(&[&d.table], true)?;
                let (id, schema, _) = self.resolve_table(&d.table)?;
                let label = d.alias.clone().unwrap_or_else(|| d.table.name.clone());
                self.explain_write(
                    "DELETE",
                    &label,
                    id,
                    &schema,
                    d.alias.as_ref(),
                    d.filter.as_ref(),
                    &d.order_by,
                )?
            }
            Stmt::Insert(i) => {
                self.table_access(&[&i.table], true)?;
                let (_, schema, _) = self.resolve_table(&i.table)?;
                for c in &i.columns {
                    if schema.column_position(c).is_none() {
                        return Err(SqlError::UnknownColumn {
                            column: c.clone(),
                            context: "field list",
                        });
                    }
                }
                let plan = TablePlan {
                    id: 1,
                    select_type: if i.replace { "REPLACE" } else { "INSERT" },
                    table: &i.table.name,
                    schema: &schema,
                    access: None,
                    filter: None,
                    filesort: false,
                    orders_by_key: false,
                    backward: false,
                    temporary: false,
                    select: false,
                    table_rows: 0,
                    access_rows: 0,
                };
                vec![row(&plan)]
            }
            _ => {
                return Err(SqlError::Other {
                    code: 1064,
                    sqlstate: "42000",
                    message: "EXPLAIN takes SELECT, INSERT, REPLACE, UPDATE or DELETE".into(),
                })
            }
        };
        Ok(Output::Rows { columns: columns(), rows })
    }

    #[allow(clippy::too_many_arguments)]
    fn explain_write(
        &mut self,
        select_type: &'static str,
        label: &str,
        id: TableId,
        schema: &Arc<TableSchema>,
        alias: Option<&String>,
        filter: Option<&Expr>,
        order_by: &[OrderItem],
    ) -> Result<Vec<Vec<Value>>> {
        let (filter, order) = {
            let mut b = self.binder(Some(schema), &[], "where clause").with_alias(alias);
            let f = filter.map(|f| b.bind(f)).transpose()?;
            let mut b = self.binder(Some(schema), &[], "order clause").with_alias(alias);
            let o = order_by
                .iter()
                .map(|o| Ok((b.bind(&o.expr)?, o.desc)))
                .collect::<Result<Vec<_>>>()?;
            (f, o)
        };
        if impossible(filter.as_ref()) {
            return Ok(vec![message_row(1, select_type, "Impossible WHERE")]);
        }
        let filesort = !order.is_empty() && !order_is_key(schema, &order);
        let orders_by_key = order_is_key(schema, &order);
        Ok(vec![self.explain_table(
            select_type,
            label,
            id,
            schema,
            filter.as_ref(),
            filesort,
            orders_by_key,
            order.first().is_some_and(|o| o.1),
            false,
            false,
        )?])
    }

    /// The row of one table read through the access path `plan_access` chooses for `filter`,
    /// with the engine's counts of the table's and the path's rows.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn explain_table(
        &mut self,
        select_type: &'static str,
        label: &str,
        id: TableId,
        schema: &TableSchema,
        filter: Option<&Expr>,
        filesort: bool,
        orders_by_key: bool,
        backward: bool,
        temporary: bool,
        select: bool,
    ) -> Result<Vec<Value>> {
        let engine = self.server.engine.clone();
        let access = plan_access_in(&engine, id, schema, filter);
        self.explain_access(
            select_type,
            label,
            id,
            schema,
            filter,
            access,
            filesort,
            orders_by_key,
            backward,
            temporary,
            select,
        )
    }

    /// The row of one table read through `access` (see [`Session::explain_table`]).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn explain_access(
        &mut self,
        select_type: &'static str,
        label: &str,
        id: TableId,
        schema: &TableSchema,
        filter: Option<&Expr>,
        access: Access,
        filesort: bool,
        orders_by_key: bool,
        backward: bool,
        temporary: bool,
        select: bool,
    ) -> Result<Vec<Value>> {
        let engine = self.server.engine.clone();
        let table_rows = engine.row_count(id)? as u64;
        let mut access_rows = table_rows;
        if !matches!(access, Access::Full) {
            let mut counted = 0u64;
            let access_ref = &access;
            self.in_txn(|sess| {
                let open = sess.txn_mut()?;
                counted = fetch(&engine, &open.txn, id, access_ref, usize::MAX)?.len() as u64;
                Ok(Output::ok(0))
            })?;
            access_rows = counted;
        }
        let plan = TablePlan {
            id: 1,
            select_type,
            table: label,
            schema,
            access: Some(&access),
            filter,
            filesort,
            orders_by_key,
            backward,
            temporary,
            select,
            table_rows,
            access_rows,
        };
        Ok(row(&plan))
    }
}

/// A WHERE clause that is a constant false or NULL (mysqld: "Impossible WHERE").
fn impossible(filter: Option<&Expr>) -> bool {
    filter.is_some_and(|f| is_const(f) && eval(f, &[], &[]).is_ok_and(|v| truth(&v) != Some(true)))
}
