//! Query expressions (issue 20): `UNION` / `INTERSECT` / `EXCEPT` `[ALL | DISTINCT]`,
//! parenthesised query blocks with their own ORDER BY / LIMIT, and `WITH [RECURSIVE]` common
//! table expressions, converted from sqlparser's `Query` into [`crate::ast::QueryExpr`] held
//! by a wrapper SELECT ([`Select::wrap`]), so every place that runs a SELECT runs them.
//!
//! CTEs are resolved here, by name, as mysqld's `find_common_table_expr` (sql_parse.cc) does
//! while parsing: an unqualified table name that names a CTE in scope (this WITH's earlier
//! CTEs, and the enclosing queries' WITHs) becomes a derived table holding a copy of the CTE's
//! query. A non-recursive CTE is therefore the same as writing its query as a derived table at
//! each reference (mysqld merges or materializes it; the rows are the same). A CTE of a
//! `WITH RECURSIVE` that reads itself becomes a recursive [`QueryExpr`]: its self-references
//! are [`SetExpr::Work`] tables that `query/union.rs` fills with each iteration's rows.
//!
//! Checks made here, as mysqld's `Query_expression::check_recursive_cte` /
//! `Common_table_expr::...`: 1066 for a CTE name given twice in one WITH, 3573 when the
//! recursive blocks do not follow one or more non-recursive ones, 3574 when a recursive block
//! reads the CTE more than once or from a subquery, 3575 for aggregates / GROUP BY in a
//! recursive block, 1235 for ORDER BY / DISTINCT there (mysqld 8.0's ER_NOT_SUPPORTED_YET).
//!
//! Invariant: the left-deep chain of a set operation is converted in a loop and is at most
//! [`MAX_BLOCKS`] blocks long (1436 beyond), so no recursion here or later over the tree
//! (`Drop`, `Clone`, execution) depends on the number of blocks; right operands are nested
//! parentheses, bounded by the statement's token depth ([`crate::depth`]).

use sqlparser::ast as sp;

use super::{unsupported, Front};
use crate::ast::{QueryExpr, Select, SetExpr, SetOp};
use crate::error::{Result, SqlError};

/// The longest chain of query blocks one set operation may join.
pub(crate) const MAX_BLOCKS: usize = 1_000;

/// The CTEs in scope while a statement is converted.
#[derive(Default)]
pub(super) struct WithScope {
    ctes: Vec<CteDef>,
    next_id: usize,
}

struct CteDef {
    name: String,
    /// The SELECT a reference reads (a copy each time); None while the CTE's own body is
    /// converted (a reference then is a self-reference of a recursive CTE).
    select: Option<Select>,
    /// A `WITH RECURSIVE` CTE's id (its working table).
    work: Option<usize>,
    /// The subquery nesting of each self-reference.
    refs: Vec<usize>,
}

fn cte_error(code: u16, sqlstate: &'static str, message: String) -> SqlError {
    SqlError::Other { code, sqlstate, message }
}

impl Front<'_> {
    /// Any query: a plain block goes to [`Front::query_block`]; set operations, parenthesised
    /// bodies and WITH become a wrapper SELECT.
    pub(super) fn query(&mut self, q: &sp::Query) -> Result<Select> {
        let depth = self.with.ctes.len();
        let r = self.query_scoped(q);
        self.with.ctes.truncate(depth);
        r
    }

    fn query_scoped(&mut self, q: &sp::Query) -> Result<Select> {
        if let Some(w) = &q.with {
            self.with_clause(w)?;
        }
        if let sp::SetExpr::Select(_) = q.body.as_ref() {
            return self.query_block(q);
        }
        if !q.locks.is_empty() {
            return Err(unsupported("locking clauses on a query expression"));
        }
        let body = self.set_body(&q.body)?;
        let order_by = match &q.order_by {
            None => Vec::new(),
            Some(ob) => match &ob.kind {
                sp::OrderByKind::Expressions(v) => self.order_items(v)?,
                sp::OrderByKind::All(_) => return Err(unsupported("ORDER BY ALL")),
            },
        };
        let (limit, offset) = self.query_limit(q.limit_clause.as_ref())?;
        Ok(Select::wrap(QueryExpr {
            body,
            order_by,
            limit,
            offset,
            names: Vec::new(),
            recursive: None,
        }))
    }

    /// LIMIT / OFFSET of a query.
    pub(super) fn query_limit(
        &mut self,
        l: Option<&sp::LimitClause>,
    ) -> Result<(Option<crate::ast::Expr>, Option<crate::ast::Expr>)> {
        Ok(match l {
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
        })
    }

    /// A set operation's body; its left-deep spine in a loop (see the module doc).
    fn set_body(&mut self, e: &sp::SetExpr) -> Result<SetExpr> {
        let mut spine = Vec::new();
        let mut cur = e;
        while let sp::SetExpr::SetOperation { op, set_quantifier, left, right } = cur {
            if spine.len() >= MAX_BLOCKS {
                return Err(crate::depth::too_deep());
            }
            let op = match op {
                sp::SetOperator::Union => SetOp::Union,
                sp::SetOperator::Intersect => SetOp::Intersect,
                sp::SetOperator::Except => SetOp::Except,
                other => return Err(SqlError::near(&other.to_string())),
            };
            let all = match set_quantifier {
                sp::SetQuantifier::All => true,
                sp::SetQuantifier::Distinct | sp::SetQuantifier::None => false,
                other => return Err(SqlError::near(&other.to_string())),
            };
            spine.push((op, all, right.as_ref()));
            cur = left;
        }
        let mut acc = self.set_leaf(cur)?;
        for (op, all, right) in spine.into_iter().rev() {
            let r = self.set_leaf(right)?;
            acc = SetExpr::Op { op, all, left: Box::new(acc), right: Box::new(r) };
        }
        Ok(acc)
    }

    fn set_leaf(&mut self, e: &sp::SetExpr) -> Result<SetExpr> {
        match e {
            sp::SetExpr::Select(s) => {
                let q = sp::Query {
                    with: None,
                    body: Box::new(sp::SetExpr::Select(s.clone())),
                    order_by: None,
                    limit_clause: None,
                    fetch: None,
                    locks: Vec::new(),
                    for_clause: None,
                    settings: None,
                    format_clause: None,
                    pipe_operators: Vec::new(),
                };
                Ok(SetExpr::Block(Box::new(self.query_block(&q)?)))
            }
            sp::SetExpr::Query(q) => Ok(SetExpr::Block(Box::new(self.query(q)?))),
            // A right operand that is itself an operation (INTERSECT binds tighter).
            sp::SetExpr::SetOperation { .. } => {
                let body = self.set_body(e)?;
                Ok(SetExpr::Block(Box::new(Select::wrap(QueryExpr {
                    body,
                    order_by: Vec::new(),
                    limit: None,
                    offset: None,
                    names: Vec::new(),
                    recursive: None,
                }))))
            }
            sp::SetExpr::Values(_) => Err(unsupported("VALUES statements")),
            sp::SetExpr::Table(_) => Err(unsupported("TABLE statements")),
            _ => Err(unsupported("this query form")),
        }
    }

    /// `WITH [RECURSIVE] c [(cols)] AS (query), ...`: each CTE enters the scope after its
    /// definition (a recursive one also while its body is converted).
    fn with_clause(&mut self, w: &sp::With) -> Result<()> {
        let start = self.with.ctes.len();
        for cte in &w.cte_tables {
            let name = cte.alias.name.value.clone();
            if self.with.ctes[start..].iter().any(|d| d.name == name) {
                return Err(cte_error(1066, "42000", format!("Not unique table/alias: '{name}'")));
            }
            let names: Vec<String> =
                cte.alias.columns.iter().map(|c| c.name.value.clone()).collect();
            let select = if w.recursive {
                let id = self.with.next_id;
                self.with.next_id += 1;
                let nesting = self.nesting;
                self.with.ctes.push(CteDef {
                    name: name.clone(),
                    select: None,
                    work: Some(id),
                    refs: Vec::new(),
                });
                let body = self.query(&cte.query);
                let def = self.with.ctes.pop().ok_or_else(|| unsupported("this WITH"))?;
                let body = body?;
                if def.refs.is_empty() {
                    with_names(body, names)
                } else {
                    recursive_cte(body, id, &name, names, nesting, &def.refs)?
                }
            } else {
                with_names(self.query(&cte.query)?, names)
            };
            self.with.ctes.push(CteDef {
                name,
                select: Some(select),
                work: None,
                refs: Vec::new(),
            });
        }
        Ok(())
    }

    /// The derived-table SELECT of a CTE named by an unqualified table name, if one is in
    /// scope.
    pub(super) fn cte_table(&mut self, name: &sp::ObjectName) -> Option<Select> {
        let [sp::ObjectNamePart::Identifier(id)] = name.0.as_slice() else {
            return None;
        };
        let nesting = self.nesting;
        let def = self.with.ctes.iter_mut().rev().find(|d| d.name == id.value)?;
        match (&def.select, def.work) {
            (Some(s), _) => Some(s.clone()),
            (None, Some(work)) => {
                def.refs.push(nesting);
                Some(Select::wrap(QueryExpr {
                    body: SetExpr::Work(work),
                    order_by: Vec::new(),
                    limit: None,
                    offset: None,
                    names: Vec::new(),
                    recursive: None,
                }))
            }
            (None, None) => None,
        }
    }

    /// Whether a FROM item is a table name that names a CTE in scope.
    pub(super) fn is_cte_ref(&self, f: &sp::TableFactor) -> bool {
        let sp::TableFactor::Table { name, .. } = f else {
            return false;
        };
        let [sp::ObjectNamePart::Identifier(id)] = name.0.as_slice() else {
            return false;
        };
        self.with.ctes.iter().any(|d| d.name == id.value)
    }
}

/// A CTE's (or derived table's) SELECT with its column list applied.
pub(super) fn with_names(s: Select, names: Vec<String>) -> Select {
    if names.is_empty() {
        return s;
    }
    let mut s = s;
    if let Some(q) = s.query_expr_mut() {
        if q.names.is_empty() {
            q.names = names;
            return s;
        }
    }
    Select::wrap(QueryExpr {
        body: SetExpr::Block(Box::new(s)),
        order_by: Vec::new(),
        limit: None,
        offset: None,
        names,
        recursive: None,
    })
}

/// Whether `s` reads working table `id` directly in its FROM.
fn direct_work_refs(s: &Select, id: usize) -> usize {
    let first = s.derived.iter();
    let rest = s.joins.iter().filter_map(|j| j.derived.as_ref());
    first
        .chain(rest)
        .filter(|d| d.query_expr().is_some_and(|q| q.body == SetExpr::Work(id)))
        .count()
}

/// A recursive CTE from its converted body (checks of the module doc).
fn recursive_cte(
    body: Select,
    id: usize,
    name: &str,
    names: Vec<String>,
    nesting: usize,
    refs: &[usize],
) -> Result<Select> {
    let e3573 = || {
        cte_error(
            3573,
            "HY000",
            format!(
                "Recursive Common Table Expression '{name}' should have one or more \
                 non-recursive query blocks followed by one or more recursive ones"
            ),
        )
    };
    let e3574 = || {
        cte_error(
            3574,
            "HY000",
            format!(
                "In recursive query block of Recursive Common Table Expression '{name}', the \
                 recursive table must be referenced only once, and not in any subquery"
            ),
        )
    };
    let Some(q) = body.query_expr() else {
        return Err(e3573());
    };
    if !q.order_by.is_empty() {
        return Err(unsupported("ORDER BY over UNION in recursive Common Table Expression"));
    }
    let mut q = q.clone();
    let blocks = q.blocks();
    let mut direct = 0;
    let mut seen_recursive = false;
    for b in &blocks {
        let n = direct_work_refs(b, id);
        if n > 1 {
            return Err(e3574());
        }
        if n == 1 {
            seen_recursive = true;
            if !b.group_by.is_empty()
                || b.items.iter().any(|i| {
                    matches!(i, crate::ast::SelectItem::Expr { expr, .. } if expr.has_aggregate())
                })
                || b.having.as_ref().is_some_and(|h| h.has_aggregate())
            {
                return Err(cte_error(
                    3575,
                    "HY000",
                    format!(
                        "Recursive Common Table Expression '{name}' can contain neither \
                         aggregation nor window functions in recursive query block"
                    ),
                ));
            }
            if b.distinct {
                return Err(unsupported("DISTINCT in recursive query block"));
            }
            if !b.order_by.is_empty() {
                return Err(unsupported("ORDER BY / LIMIT in recursive query block"));
            }
        } else if seen_recursive {
            return Err(e3573());
        }
        direct += n;
    }
    if direct != refs.len() || refs.iter().any(|&n| n != nesting) {
        return Err(e3574());
    }
    if direct == 0 || blocks.first().is_some_and(|b| direct_work_refs(b, id) > 0) {
        return Err(e3573());
    }
    // Only UNION joins a recursive CTE's blocks.
    fn unions_only(e: &SetExpr) -> bool {
        let mut cur = e;
        while let SetExpr::Op { op, left, .. } = cur {
            if *op != SetOp::Union {
                return false;
            }
            cur = left;
        }
        true
    }
    if !unions_only(&q.body) {
        return Err(e3573());
    }
    q.recursive = Some((id, name.to_string()));
    if !names.is_empty() {
        q.names = names;
    }
    Ok(Select::wrap(q))
}
