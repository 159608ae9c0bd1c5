//! EXPLAIN of a multi-table SELECT: one row per step of the [`JoinPlan`] the statement runs
//! with, in join order, in mysqld 8.0's traditional format (`Explain_format_traditional`; the
//! single-table rows and columns are `crate::explain`'s).
//!
//! Mapping of a step onto mysqld's join types (sql/sql_select.h `join_type`):
//! - `Lookup` on a unique key (PRIMARY or a UNIQUE index) with every key column bound:
//!   `eq_ref`; bound on a prefix only, or a non-unique index: `ref`. `key_len` is the bound
//!   parts' `store_length`; `ref` names per part the column that feeds it (`db.alias.col`),
//!   `const` (a constant, or a column of a table read as `const`), or `func` (mysqld's
//!   `store_key` kinds).
//! - `Scan`: the table read once with its own constant terms, planned as a single table
//!   (`const`/`range`/`ref`/`ALL`), and after the first step `Using join buffer (hash join)`
//!   (mysqld 8.0.20+ names both its hash join and block nested loop so).
//! - A made-up or derived table: `ALL`, as a materialized table.
//!
//! `rows`: 1 for `eq_ref`; a `ref` lookup's rows per outer row are not estimated (binlogd
//! keeps no index statistics yet), so the table's row count, an upper bound, is shown.
//! `filtered` applies mysqld's guesses (`get_filtering_effect`) to the terms the key does not
//! serve. Not shown: `Using temporary`/`Using filesort` of the grouping and ordering after the
//! join, and derived tables' own rows (`<derivedN>` with select_type DERIVED).

use engine::Value;

use super::plan::{self, equality, refs, Step, StepAccess};
use crate::ast::{Expr, Select};
use crate::error::Result;
use crate::explain::{key_part_length, message_row, term_selectivity};
use crate::scope::Scope;
use crate::session::Session;

fn text(s: impl Into<String>) -> Value {
    Value::Bytes(s.into().into_bytes())
}

impl Session {
    /// The EXPLAIN rows of a multi-table SELECT (derived tables are typed, not run).
    pub(crate) fn explain_join(&mut self, s: &Select) -> Result<Vec<Vec<Value>>> {
        let p = self.join_scope(s, None)?;
        let mut sel = self.plan_select_in(&p.select, None, Some(&p.scope))?;
        let plan = plan::plan(
            &p.scope,
            &p.kinds,
            std::mem::take(&mut sel.join_on),
            sel.join_filter.take(),
        );
        let mut rows = Vec::with_capacity(plan.steps.len());
        // Entries read as const tables: their columns feed later keys as constants.
        let mut consts = Vec::new();
        for (i, step) in plan.steps.iter().enumerate() {
            let r = self.explain_step(&p.scope, step, i > 0, &consts)?;
            if matches!(&r[4], Value::Bytes(b) if b == b"const") {
                consts.push(step.entry);
            }
            rows.push(r);
        }
        Ok(rows)
    }

    fn explain_step(
        &mut self,
        scope: &Scope,
        step: &Step,
        joined: bool,
        consts: &[usize],
    ) -> Result<Vec<Value>> {
        let k = step.entry;
        let e = &scope.entries[k];
        let with_buffer = |extra: &mut Vec<String>| {
            if joined {
                extra.push("Using join buffer (hash join)".into());
            }
        };
        match (&step.access, e.table) {
            (StepAccess::Lookup { index, .. }, Some(_)) => {
                let schema = &e.schema;
                let (cols, unique, prefixes): (&[usize], bool, &[u32]) = if index == "PRIMARY" {
                    (&schema.primary_key, true, &[])
                } else {
                    match schema.indexes.iter().find(|x| &x.name == index) {
                        Some(x) => (&x.columns, x.unique, &x.prefixes),
                        None => (&[], false, &[]),
                    }
                };
                let mut refs_text = Vec::new();
                let mut used = Vec::new();
                let mut key_len = 0u64;
                for (part, &c) in cols.iter().enumerate() {
                    let feed = step.conds.iter().find_map(|t| {
                        equality(scope, k, t)
                            .filter(|(p, _)| *p == c + e.offset)
                            .map(|(_, o)| (t, o))
                    });
                    let Some((term, other)) = feed else { break };
                    used.push(term);
                    let prefix = prefixes.get(part).copied().unwrap_or(0);
                    key_len += key_part_length(&schema.columns[c], prefix);
                    refs_text.push(match other {
                        _ if refs(scope, other) == 0 => "const".to_string(),
                        Expr::Col(p) => match scope.entries.iter().rposition(|x| x.offset <= *p) {
                            Some(j) if consts.contains(&j) => "const".to_string(),
                            Some(j) => {
                                let x = &scope.entries[j];
                                let name = &x.schema.columns[p - x.offset].name;
                                format!("{}.{}.{}", x.db, x.label, name)
                            }
                            None => "func".to_string(),
                        },
                        _ => "func".to_string(),
                    });
                }
                let eq_ref = unique && !cols.is_empty() && used.len() == cols.len();
                let residual: Vec<&Expr> = step
                    .conds
                    .iter()
                    .filter(|t| !used.iter().any(|u| std::ptr::eq(*u, *t)))
                    .collect();
                let filtered =
                    100.0 * residual.iter().map(|t| term_selectivity(t)).product::<f64>();
                let rows = if eq_ref {
                    1
                } else {
                    self.server.engine.row_count(e.table.expect("a table"))? as u64
                };
                let mut r = message_row(1, "SIMPLE", "");
                r[2] = text(&e.label);
                r[4] = text(if eq_ref { "eq_ref" } else { "ref" });
                r[5] = text(index.as_str());
                r[6] = text(index.as_str());
                r[7] = text(key_len.to_string());
                r[8] = text(refs_text.join(","));
                r[9] = Value::UInt(rows);
                r[10] = Value::Double((filtered * 100.0).round() / 100.0);
                r[11] = if residual.is_empty() { Value::Null } else { text("Using where") };
                Ok(r)
            }
            (StepAccess::Scan { local, .. }, Some(id)) => {
                let filter = local
                    .iter()
                    .cloned()
                    .reduce(|a, b| Expr::Binary(crate::ast::BinOp::And, Box::new(a), Box::new(b)));
                let schema = e.schema.clone();
                let mut r = self.explain_table(
                    "SIMPLE",
                    &e.label,
                    id,
                    &schema,
                    filter.as_ref(),
                    false,
                    false,
                    false,
                    false,
                    true,
                )?;
                let mut extra: Vec<String> = match &r[11] {
                    Value::Bytes(b) => vec![String::from_utf8_lossy(b).into_owned()],
                    _ => Vec::new(),
                };
                // Terms over earlier tables are checked on the joined row.
                if joined
                    && step.conds.len() > local.len()
                    && extra.iter().all(|x| !x.contains("Using where"))
                {
                    extra.push("Using where".into());
                }
                with_buffer(&mut extra);
                r[11] = if extra.is_empty() { Value::Null } else { text(extra.join("; ")) };
                Ok(r)
            }
            (_, None) => {
                let mut r = message_row(1, "SIMPLE", "");
                r[2] = text(&e.label);
                r[4] = text("ALL");
                r[10] = Value::Double(100.0);
                let mut extra = Vec::new();
                if !step.conds.is_empty() {
                    extra.push("Using where".to_string());
                }
                with_buffer(&mut extra);
                r[11] = if extra.is_empty() { Value::Null } else { text(extra.join("; ")) };
                Ok(r)
            }
        }
    }
}
