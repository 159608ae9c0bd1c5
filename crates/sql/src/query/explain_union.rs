//! EXPLAIN of query expressions and subqueries (issue 20), in mysqld 8.0's traditional form:
//! one id per query block, numbered in text order (`SELECT_LEX::select_number`), with
//! select_type PRIMARY for the outermost block of a statement with several, UNION for the
//! later blocks of a set operation, `UNION RESULT` (id NULL, table `<unionM,N,...>`) for the
//! temporary table of a DISTINCT or ordered union (an all-ALL union streams, 8.0.3+), DERIVED
//! for a materialized derived table or CTE (its row in the outer block named `<derivedN>`),
//! SUBQUERY / DEPENDENT SUBQUERY for subqueries in expressions (DEPENDENT UNION for the later
//! blocks of a dependent one). mysqld reference: `Explain::explain_select_type` and
//! `Query_block::type()` (sql/sql_lex.cc).
//!
//! Differences: mysqld merges simple derived tables into the outer block and turns many
//! `IN (SELECT ...)` into semi-joins; binlogd shows a mergeable derived table as before (the
//! join's row for it) and every subquery as its own SUBQUERY row. A dependent subquery is
//! planned with its outer references as NULL (mysqld plans it per outer row the same way).

use engine::Value;

use crate::ast::{has_subquery, Select, SetExpr, Stmt};
use crate::error::Result;
use crate::output::Output;
use crate::session::Session;

fn text(s: impl Into<String>) -> Value {
    Value::Bytes(s.into().into_bytes())
}

/// Whether a body has a DISTINCT operation (it needs a temporary table).
fn has_distinct(e: &SetExpr) -> bool {
    let mut cur = e;
    while let SetExpr::Op { all, left, right, .. } = cur {
        if !all || has_distinct(right) {
            return true;
        }
        cur = left;
    }
    false
}

/// The derived tables of a block that are query expressions (materialized, not merged).
fn materialized(s: &Select) -> Vec<(String, &Select)> {
    let first = s.from.iter().map(|t| (s.alias.as_ref().unwrap_or(&t.name), s.derived.as_deref()));
    let rest =
        s.joins.iter().map(|j| (j.alias.as_ref().unwrap_or(&j.table.name), j.derived.as_deref()));
    first
        .chain(rest)
        .filter_map(|(label, d)| match d {
            Some(d) if d.query_expr().is_some_and(|q| !matches!(q.body, SetExpr::Work(_))) => {
                Some((label.clone(), d))
            }
            _ => None,
        })
        .collect()
}

impl Session {
    /// The EXPLAIN rows of a SELECT that is a query expression or has subqueries or
    /// materialized derived tables; None for the shapes `explain.rs` explains itself.
    pub(crate) fn explain_tree(&mut self, s: &Select) -> Result<Option<Vec<Vec<Value>>>> {
        if s.query_expr().is_none() && !has_subquery(s) && materialized(s).is_empty() {
            return Ok(None);
        }
        let mut next = 1;
        let mut rows = Vec::new();
        self.explain_node(s, ("PRIMARY", "UNION"), &mut next, &mut rows)?;
        Ok(Some(rows))
    }

    /// Appends the rows of `s` (its first block of type `types.0`, later union blocks of
    /// `types.1`).
    fn explain_node(
        &mut self,
        s: &Select,
        types: (&str, &str),
        next: &mut u64,
        rows: &mut Vec<Vec<Value>>,
    ) -> Result<()> {
        let Some(q) = s.query_expr() else {
            return self.explain_block(s, types.0, next, rows);
        };
        let blocks = q.blocks();
        let mut ids = Vec::with_capacity(blocks.len());
        for (i, b) in blocks.iter().enumerate() {
            ids.push(*next);
            let ty = if i == 0 { types.0 } else { types.1 };
            self.explain_node(b, (ty, types.1), next, rows)?;
        }
        let temporary = has_distinct(&q.body) || !q.order_by.is_empty();
        if blocks.len() > 1 && temporary {
            let list: Vec<String> = ids.iter().map(u64::to_string).collect();
            let mut r = vec![Value::Null; 12];
            r[1] = text("UNION RESULT");
            r[2] = text(format!("<union{}>", list.join(",")));
            r[4] = text("ALL");
            r[11] = text(if q.order_by.is_empty() {
                "Using temporary"
            } else {
                "Using temporary; Using filesort"
            });
            rows.push(r);
        }
        Ok(())
    }

    /// One query block: its own rows (id `next`), then its materialized derived tables and
    /// its subqueries.
    fn explain_block(
        &mut self,
        s: &Select,
        ty: &str,
        next: &mut u64,
        rows: &mut Vec<Vec<Value>>,
    ) -> Result<()> {
        let id = *next;
        *next += 1;
        let (outer, subs) =
            if has_subquery(s) { self.explain_subqueries(s)? } else { (s.clone(), Vec::new()) };
        let derived = materialized(s);
        let own = match self.explain_plain(&Stmt::Select(outer))? {
            Output::Rows { rows, .. } => rows,
            Output::Ok { .. } => Vec::new(),
        };
        let start = rows.len();
        for mut r in own {
            r[0] = Value::UInt(id);
            r[1] = text(ty);
            rows.push(r);
        }
        for (label, d) in derived {
            let did = *next;
            for r in &mut rows[start..] {
                if r[2] == text(label.as_str()) {
                    r[2] = text(format!("<derived{did}>"));
                }
            }
            self.explain_node(d, ("DERIVED", "UNION"), next, rows)?;
        }
        for (q, dependent) in subs {
            let types = if dependent {
                ("DEPENDENT SUBQUERY", "DEPENDENT UNION")
            } else {
                ("SUBQUERY", "UNION")
            };
            self.explain_node(&q, types, next, rows)?;
        }
        Ok(())
    }
}
