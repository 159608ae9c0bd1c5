//! CHECK constraints (MySQL 8.0.16+; WL#929): defined by CREATE TABLE and ALTER TABLE,
//! stored with the table's definition (`engine::CheckDef`: name, condition text, ENFORCED),
//! enforced on every row an INSERT, REPLACE, UPDATE, INSERT ... ON DUPLICATE KEY UPDATE,
//! INSERT/CREATE ... SELECT or LOAD writes, shown by SHOW CREATE TABLE and
//! information_schema (CHECK_CONSTRAINTS, TABLE_CONSTRAINTS).
//!
//! Invariants:
//! - The stored text is the condition as mysqld prints it (`parse/check_print.rs`), which
//!   this layer's parser reads back as the same condition; it is parsed and bound once per
//!   table definition a session meets ([`CheckCache`]), not per row.
//! - A row satisfies a constraint when its condition is TRUE or NULL (UNKNOWN); FALSE is
//!   3819 ER_CHECK_CONSTRAINT_VIOLATED, checked on the row as it would be stored, before the
//!   engine writes it (mysqld's `invoke_table_check_constraints` after `fill_record`). IGNORE
//!   turns 3819 into a warning and skips the row (`ignore_error_handler`).
//! - Constraints are kept sorted by name: mysqld's data dictionary orders them so, and so
//!   SHOW CREATE TABLE prints them and they are evaluated (the first violated one named).
//! - Names are unique in a database (3822), unnamed ones are `<table>_chk_<n>`, n after the
//!   highest such number the table has (`generate_check_constraint_name`,
//!   `prepare_check_constraints_for_create` / `..._for_alter` in sql_table.cc).
//! - Row events (BINLOG statements, a replica's applier) are not checked: mysqld's
//!   `Rows_log_event` applier writes the images as given.

use std::sync::Arc;

use engine::{CheckDef, TableId, TableSchema, Value};

use crate::session::Bound;

use crate::ast::{BinOp, CheckSpec, Expr, UnOp};
use crate::commit::split_engine_name;
use crate::error::{Result, SqlError};
use crate::eval::{eval, truth};
use crate::parse::check_print::Refusal;
use crate::session::Session;

fn error(code: u16, message: String) -> SqlError {
    SqlError::Other { code, sqlstate: "HY000", message }
}

/// 3819 for constraint `name`.
pub(crate) fn violated(name: &str) -> SqlError {
    error(3819, format!("Check constraint '{name}' is violated."))
}

/// Whether `e` is a condition (mysqld's `is_bool_func`): a comparison, a logical operator,
/// IS [NOT] NULL, [NOT] BETWEEN/IN/LIKE, REGEXP; else 3812.
fn is_condition(e: &Expr) -> bool {
    use crate::ast::{Func, RegexFn};
    match e {
        Expr::Binary(op, ..) => {
            op.is_comparison() || matches!(op, BinOp::And | BinOp::Or | BinOp::Xor)
        }
        Expr::Unary(UnOp::Not, _)
        | Expr::IsNull { .. }
        | Expr::Between { .. }
        | Expr::InList { .. }
        | Expr::Like { .. }
        | Expr::LikeEscape(..)
        | Expr::Func(Func::Regex(RegexFn::Like), _) => true,
        Expr::Collated(_, x) | Expr::Collate(x, _) => is_condition(x),
        _ => false,
    }
}

/// The condition of a stored constraint, parsed (unbound).
fn parse_condition(text: &str) -> Result<Expr> {
    let parsed = crate::parse::parse(&format!("SELECT {text}"))?;
    match parsed.stmt {
        crate::ast::Stmt::Select(s) => match s.items.into_iter().next() {
            Some(crate::ast::SelectItem::Expr { expr, .. }) => Ok(expr),
            _ => Err(error(1105, format!("unreadable CHECK condition: {text}"))),
        },
        _ => Err(error(1105, format!("unreadable CHECK condition: {text}"))),
    }
}

/// The highest n of the table's `<table>_chk_<n>` names.
fn max_generated(schema: &TableSchema, table: &str) -> u32 {
    let prefix = format!("{}_chk_", table.to_ascii_lowercase());
    schema
        .checks
        .iter()
        .filter_map(|c| c.name.to_ascii_lowercase().strip_prefix(&prefix)?.parse::<u32>().ok())
        .max()
        .unwrap_or(0)
}

impl Session {
    /// Checks constraints `specs` of table `schema` (database `db`, being created or
    /// altered) as mysqld checks them and adds them to it.
    pub(crate) fn check_define(
        &self,
        db: &str,
        schema: &mut TableSchema,
        specs: &[CheckSpec],
    ) -> Result<()> {
        if specs.is_empty() {
            return Ok(());
        }
        let (_, table) = split_engine_name(&schema.name);
        let table = table.to_string();
        let mut counter = max_generated(schema, &table);
        let elsewhere: Vec<String> = self
            .tables_of(db)
            .iter()
            .filter(|t| !t.name.eq_ignore_ascii_case(&schema.name))
            .flat_map(|t| t.checks.iter().map(|c| c.name.to_ascii_lowercase()))
            .collect();
        for spec in specs {
            let name = match &spec.name {
                Some(n) => n.clone(),
                None => {
                    counter += 1;
                    format!("{table}_chk_{counter}")
                }
            };
            if name.chars().count() > 64 {
                return Err(error(1059, format!("Identifier name '{name}' is too long")));
            }
            let lower = name.to_ascii_lowercase();
            if elsewhere.contains(&lower)
                || schema.checks.iter().any(|c| c.name.eq_ignore_ascii_case(&name))
            {
                return Err(error(3822, format!("Duplicate check constraint name '{name}'.")));
            }
            validate(schema, spec, &name)?;
            schema.checks.push(CheckDef { name, expr: spec.text.clone(), enforced: spec.enforced });
        }
        schema.checks.sort_by_key(|c| c.name.to_ascii_lowercase());
        Ok(())
    }

    /// 3819 when `row` (as it would be stored in table `id`, definition `schema`) fails an
    /// enforced constraint.
    pub(crate) fn check_row(
        &mut self,
        id: TableId,
        schema: &Arc<TableSchema>,
        row: &[Value],
    ) -> Result<()> {
        if self.row_events || !schema.checks.iter().any(|c| c.enforced) {
            return Ok(());
        }
        let fresh = match self.check_cache.by_table.get(&id) {
            Some((s, _)) => !Arc::ptr_eq(s, schema),
            None => true,
        };
        if fresh {
            let bound = self.check_conditions(schema)?;
            self.check_cache.by_table.insert(id, (schema.clone(), bound));
        }
        let Some((_, bound)) = self.check_cache.by_table.get(&id) else { return Ok(()) };
        check_rows(bound, std::slice::from_ref(&row))
    }

    /// The enforced constraints of `schema`, their conditions bound to its rows.
    pub(crate) fn check_conditions(&self, schema: &TableSchema) -> Result<Vec<Bound>> {
        let mut bound = Vec::new();
        for c in schema.checks.iter().filter(|c| c.enforced) {
            let e = parse_condition(&c.expr)?;
            bound.push((c.name.clone(), self.binder(Some(schema), &[], "check").bind(&e)?));
        }
        Ok(bound)
    }
}

/// 3819 naming the first of the bound constraints `bound` a row of `rows` fails.
pub(crate) fn check_rows<R: AsRef<[Value]>>(bound: &[Bound], rows: &[R]) -> Result<()> {
    for row in rows {
        for (name, e) in bound {
            if truth(&eval(e, row.as_ref(), &[])?) == Some(false) {
                return Err(violated(name));
            }
        }
    }
    Ok(())
}

/// mysqld's checks of one constraint's condition against the table (sql_table.cc
/// `Check_constraint_spec` handling, `validate_value_generator_expr`).
fn validate(schema: &TableSchema, spec: &CheckSpec, name: &str) -> Result<()> {
    match &spec.refusal {
        Some(Refusal::Function(f)) => {
            return Err(error(
                3814,
                format!(
                "An expression of a check constraint '{name}' contains disallowed function: {f}."
            ),
            ))
        }
        Some(Refusal::Subquery) => {
            return Err(error(
                3815,
                format!(
                    "An expression of a check constraint '{name}' contains disallowed function."
                ),
            ))
        }
        None => {}
    }
    let mut failure: Option<SqlError> = None;
    spec.expr.walk(&mut |e| {
        if failure.is_some() {
            return;
        }
        failure = match e {
            Expr::Name { column, .. } => match schema.column_position(column) {
                None => Some(error(
                    3820,
                    format!("Check constraint '{name}' refers to non-existing column '{column}'."),
                )),
                Some(_)
                    if spec.column.as_ref().is_some_and(|c| !c.eq_ignore_ascii_case(column)) =>
                {
                    Some(error(3813, format!("Column check constraint '{name}' references other column.")))
                }
                Some(p) if schema.columns[p].auto_increment => Some(error(
                    3818,
                    format!("Check constraint '{name}' cannot refer to an auto-increment column."),
                )),
                Some(_) => None,
            },
            Expr::UserVar(_) | Expr::SysVar { .. } | Expr::Param(_) => Some(error(
                3816,
                format!(
                    "An expression of a check constraint '{name}' cannot refer to a user or system variable."
                ),
            )),
            Expr::Subquery(_) | Expr::Query(_) => Some(error(
                3815,
                format!("An expression of a check constraint '{name}' contains disallowed function."),
            )),
            Expr::AggCall { .. } | Expr::GroupConcat(_) | Expr::Window(_) | Expr::Grouping(_) => {
                Some(error(1111, "Invalid use of group function".to_string()))
            }
            _ => None,
        };
    });
    if let Some(e) = failure {
        return Err(e);
    }
    if !is_condition(&spec.expr) {
        return Err(error(
            3812,
            format!("An expression of non-boolean type specified to a check constraint '{name}'."),
        ));
    }
    Ok(())
}

/// SHOW CREATE TABLE's line of a constraint (mysqld's `store_create_info`).
pub(crate) fn clause(c: &CheckDef) -> String {
    let mut s = format!("CONSTRAINT `{}` CHECK ({})", c.name.replace('`', "``"), c.expr);
    if !c.enforced {
        s.push_str(" /*!80016 NOT ENFORCED */");
    }
    s
}

/// 3959 when a constraint of `schema` uses column `column`, which is dropped or renamed.
pub(crate) fn check_column_unused(schema: &TableSchema, column: &str) -> Result<()> {
    for c in &schema.checks {
        let Ok(e) = parse_condition(&c.expr) else { continue };
        let mut uses = false;
        e.walk(&mut |x| {
            uses |= matches!(x, Expr::Name { column: n, .. } if n.eq_ignore_ascii_case(column))
        });
        if uses {
            return Err(error(
                3959,
                format!(
                    "Check constraint '{}' uses column '{column}', hence column cannot be dropped or renamed.",
                    c.name
                ),
            ));
        }
    }
    Ok(())
}

/// Renames the generated constraint names of `schema` (`<old table>_chk_<n>`, `old` an
/// engine name) after its current name, keeping their numbers; constraints stay sorted.
pub(crate) fn rename_generated(schema: &mut TableSchema, old: &str) {
    let prefix = format!("{}_chk_", split_engine_name(old).1.to_ascii_lowercase());
    let table = split_engine_name(&schema.name).1.to_string();
    for c in &mut schema.checks {
        let n = c.name.to_ascii_lowercase().strip_prefix(&prefix).map(str::to_string);
        if let Some(n) = n.filter(|n| n.parse::<u32>().is_ok()) {
            c.name = format!("{table}_chk_{n}");
        }
    }
    schema.checks.sort_by_key(|c| c.name.to_ascii_lowercase());
}
