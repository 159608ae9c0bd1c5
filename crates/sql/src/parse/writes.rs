//! The multi-table UPDATE and DELETE forms of mysqld's grammar (sql_yacc.yy `update_stmt`
//! with an `update_table_list` of several tables or a join, `delete_stmt`'s
//! `table_alias_ref_list FROM table_reference_list` and `FROM table_alias_ref_list USING
//! table_reference_list`), converted to [`MultiUpdate`] / [`MultiDelete`]: the tables and
//! WHERE become a SELECT's FROM/joins/filter, which the query layer plans and runs.
//!
//! mysqld refuses ORDER BY and LIMIT on a multi-table UPDATE with ER_WRONG_USAGE (1221,
//! `Sql_cmd_update::prepare_inner`); its multi-table DELETE grammar has neither, so they are a
//! syntax error (1064) there.

use sqlparser::ast as sp;
use sqlparser::parser::Parser;

use super::{last_part, parse_error, wrong_usage, Front};
use crate::ast::{MultiDelete, MultiUpdate, Select, SelectItem, Stmt, TableRef};
use crate::error::{Result, SqlError};

impl Front<'_> {
    /// The SELECT whose FROM is `list` and WHERE `filter`: the rows a multi-table write
    /// reads (its items are unused).
    fn write_source(
        &mut self,
        list: &[sp::TableWithJoins],
        filter: Option<&sp::Expr>,
    ) -> Result<Select> {
        let mut joins = Vec::new();
        let mut derived = None;
        let (from, alias) = self.join_tables(list, &mut joins, &mut derived)?;
        let filter = filter.map(|e| self.expr(e)).transpose()?;
        Ok(Select {
            from: Some(from),
            alias,
            items: vec![SelectItem::Wildcard],
            filter,
            joins,
            derived,
            ..Select::empty()
        })
    }

    /// A multi-table UPDATE from its parts (tables, `SET` list, WHERE).
    pub(super) fn multi_update(
        &mut self,
        list: &[sp::TableWithJoins],
        assignments: &[sp::Assignment],
        selection: Option<&sp::Expr>,
    ) -> Result<Stmt> {
        self.multi_update_ignore(list, assignments, selection, false)
    }

    fn multi_update_ignore(
        &mut self,
        list: &[sp::TableWithJoins],
        assignments: &[sp::Assignment],
        selection: Option<&sp::Expr>,
        ignore: bool,
    ) -> Result<Stmt> {
        // The table list is converted first: placeholders are numbered in text order, and
        // SET comes before WHERE.
        let mut joins = Vec::new();
        let mut derived = None;
        let (from, alias) = self.join_tables(list, &mut joins, &mut derived)?;
        let mut set = Vec::with_capacity(assignments.len());
        for a in assignments {
            let sp::AssignmentTarget::ColumnName(name) = &a.target else {
                return Err(super::unsupported("tuple assignment"));
            };
            let parts = &name.0;
            let column = last_part(name)?;
            let table = match parts.len() {
                1 => None,
                // `db.t.c`: the table part qualifies (the database is checked by the scope).
                _ => Some(
                    parts[parts.len() - 2]
                        .as_ident()
                        .map(|i| i.value.clone())
                        .ok_or_else(|| SqlError::near(&name.to_string()))?,
                ),
            };
            set.push((table, column, self.expr(&a.value)?));
        }
        let filter = selection.map(|e| self.expr(e)).transpose()?;
        let from = Select {
            from: Some(from),
            alias,
            items: vec![SelectItem::Wildcard],
            filter,
            group_by: Vec::new(),
            rollup: false,
            having: None,
            order_by: Vec::new(),
            limit: None,
            offset: None,
            distinct: false,
            for_update: false,
            joins,
            for_share: false,
            derived,
        };
        Ok(Stmt::MultiUpdate(MultiUpdate { from, set, ignore }))
    }

    /// The rest of a comma-form multi-table UPDATE after `SET` (`list` read by
    /// [`super::multi_update_list`]): assignments, WHERE, and the refused ORDER BY / LIMIT.
    pub(super) fn multi_update_tail(
        &mut self,
        (ignore, list): (bool, Vec<sp::TableWithJoins>),
    ) -> Result<Stmt> {
        let assignments = self
            .parser
            .parse_comma_separated(Parser::parse_assignment)
            .map_err(|e| parse_error(self.sql, &e))?;
        let selection = if self.word("WHERE") {
            Some(self.parser.parse_expr().map_err(|e| parse_error(self.sql, &e))?)
        } else {
            None
        };
        if self.peek_word("ORDER") {
            return Err(wrong_usage("UPDATE", "ORDER BY"));
        }
        if self.peek_word("LIMIT") {
            return Err(wrong_usage("UPDATE", "LIMIT"));
        }
        self.multi_update_ignore(&list, &assignments, selection.as_ref(), ignore)
    }

    /// A multi-table DELETE: `DELETE t1, t2 FROM join` or `DELETE FROM t1, t2 USING join`.
    pub(super) fn multi_delete(&mut self, d: &sp::Delete) -> Result<Stmt> {
        if !d.order_by.is_empty() || d.limit.is_some() {
            let word = if d.order_by.is_empty() { "LIMIT" } else { "ORDER" };
            let upper = self.sql.to_ascii_uppercase();
            let at = upper.rfind(word).unwrap_or(self.sql.len());
            return Err(SqlError::near(&self.sql[at..]));
        }
        let from = match &d.from {
            sp::FromTable::WithFromKeyword(t) | sp::FromTable::WithoutKeyword(t) => t,
        };
        let (target_names, source): (Vec<&sp::ObjectName>, &[sp::TableWithJoins]) = match &d.using {
            // DELETE FROM t1, t2 USING ...: the FROM list names the targets.
            Some(using) => {
                let mut names = Vec::new();
                for t in from {
                    match &t.relation {
                        sp::TableFactor::Table { name, alias: None, .. } if t.joins.is_empty() => {
                            names.push(name)
                        }
                        _ => return Err(SqlError::near("USING")),
                    }
                }
                (names, using.as_slice())
            }
            None => (d.tables.iter().collect(), from.as_slice()),
        };
        let mut targets = Vec::with_capacity(target_names.len());
        for n in target_names {
            // `t.*` is accepted as `t` (mysqld's `table_alias_ref`: `ident opt_wild`).
            let mut n = n.clone();
            if n.0.last().and_then(|p| p.as_ident()).is_some_and(|i| i.value == "*") {
                n.0.pop();
            }
            targets.push(TableRef::from_sql(&n)?);
        }
        let from = self.write_source(source, d.selection.as_ref())?;
        Ok(Stmt::MultiDelete(MultiDelete { targets, from, ignore: false }))
    }

    /// True if the statement is `DELETE [LOW_PRIORITY] [QUICK] IGNORE ...` (without
    /// consuming).
    pub(super) fn delete_ignore_ahead(&self) -> bool {
        let w = |n: usize, x: &str| {
            matches!(&self.parser.peek_nth_token(n).token,
                sqlparser::tokenizer::Token::Word(t)
                    if t.quote_style.is_none() && t.value.eq_ignore_ascii_case(x))
        };
        w(0, "DELETE") && (1..=3).any(|n| w(n, "IGNORE"))
    }

    /// `DELETE [LOW_PRIORITY] [QUICK] IGNORE ...` (mysqld's `delete_stmt` with
    /// `opt_delete_options`): run as a multi-table DELETE, which skips the rows a foreign key
    /// keeps (1451 made a warning). A one-table form names its table (or alias) as target;
    /// its ORDER BY / LIMIT are not supported with IGNORE here (1235).
    pub(super) fn delete_ignore(&mut self) -> Result<Stmt> {
        self.expect_word("DELETE")?;
        while self.word("LOW_PRIORITY") || self.word("QUICK") || self.word("IGNORE") {}
        let st = self.parser.parse_delete().map_err(|e| parse_error(self.sql, &e))?;
        let sp::Statement::Delete(d) = st else { return Err(self.error_here()) };
        if !self.at_end() {
            return Err(self.error_here());
        }
        let stmt = if !d.tables.is_empty() || d.using.is_some() {
            self.multi_delete(&d)?
        } else {
            if !d.order_by.is_empty() || d.limit.is_some() {
                return Err(SqlError::NotSupported("DELETE IGNORE with ORDER BY or LIMIT".into()));
            }
            let from = match &d.from {
                sp::FromTable::WithFromKeyword(t) | sp::FromTable::WithoutKeyword(t) => t,
            };
            let [twj] = from.as_slice() else { return Err(self.error_here()) };
            let target = match &twj.relation {
                sp::TableFactor::Table { name, alias, .. } if twj.joins.is_empty() => match alias {
                    Some(a) => TableRef { db: None, name: a.name.value.clone() },
                    None => TableRef::from_sql(name)?,
                },
                _ => return Err(self.error_here()),
            };
            let from = self.write_source(from, d.selection.as_ref())?;
            Stmt::MultiDelete(MultiDelete { targets: vec![target], from, ignore: true })
        };
        match stmt {
            Stmt::MultiDelete(m) => Ok(Stmt::MultiDelete(MultiDelete { ignore: true, ..m })),
            other => Ok(other),
        }
    }
}
