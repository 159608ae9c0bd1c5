//! A CHECK constraint's condition as mysqld prints it (`Item::print`, which fills
//! `dd::Check_constraint::check_clause` and so SHOW CREATE TABLE and
//! information_schema.CHECK_CONSTRAINTS): every operator in its own parentheses
//! (`((\`a\` > 0) and (\`b\` < 10))`), column names back-quoted without qualifier, keywords and
//! function names in lower case, arguments joined by `,`, strings with their character set's
//! introducer (`_utf8mb4'x'`).
//!
//! The printed text is also what is stored and parsed back at each use, so it must be
//! SQL this layer's parser reads as the same condition: forms this printer does not know are
//! kept as sqlparser prints them (valid SQL, a spelling difference from mysqld only).
//!
//! While printing it notes what mysqld refuses in a check constraint that only the written
//! form shows: a non-deterministic function by name (3814, `Item::check_function_as_value_
//! generator` with `VGS_CHECK_CONSTRAINT`) and a subquery (3815).

use sqlparser::ast as sp;

pub use crate::ast::CheckRefusal as Refusal;

/// The functions mysqld refuses in a CHECK constraint (non-deterministic, or reading session
/// or server state: `check_function_as_value_generator` of their Item classes).
const REFUSED: &[&str] = &[
    "now",
    "current_timestamp",
    "localtime",
    "localtimestamp",
    "sysdate",
    "curdate",
    "current_date",
    "curtime",
    "current_time",
    "utc_date",
    "utc_time",
    "utc_timestamp",
    "unix_timestamp",
    "rand",
    "uuid",
    "uuid_short",
    "connection_id",
    "current_user",
    "user",
    "session_user",
    "system_user",
    "database",
    "schema",
    "version",
    "last_insert_id",
    "row_count",
    "found_rows",
    "sleep",
    "benchmark",
    "get_lock",
    "release_lock",
    "release_all_locks",
    "is_free_lock",
    "is_used_lock",
    "random_bytes",
    "load_file",
    "master_pos_wait",
    "source_pos_wait",
    "wait_for_executed_gtid_set",
];

/// How deep a condition may nest here (sqlparser's own limit is lower; a guard, not a limit
/// a client meets).
const MAX_DEPTH: usize = 256;

/// The condition `e` in mysqld's printed form, and the first thing in it mysqld refuses.
pub fn print(e: &sp::Expr) -> (String, Option<Refusal>) {
    let mut p = Printer { out: String::new(), refusal: None };
    p.expr(e, 0);
    (p.out, p.refusal)
}

struct Printer {
    out: String,
    refusal: Option<Refusal>,
}

impl Printer {
    fn refuse(&mut self, r: Refusal) {
        if self.refusal.is_none() {
            self.refusal = Some(r);
        }
    }

    fn list(&mut self, items: &[sp::Expr], depth: usize) {
        for (i, e) in items.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            self.expr(e, depth);
        }
    }

    fn string(&mut self, introducer: &str, s: &str) {
        self.out.push_str(introducer);
        self.out.push('\'');
        for c in s.chars() {
            match c {
                '\'' => self.out.push_str("\\'"),
                '\\' => self.out.push_str("\\\\"),
                c => self.out.push(c),
            }
        }
        self.out.push('\'');
    }

    fn expr(&mut self, e: &sp::Expr, depth: usize) {
        use sp::Expr as E;
        if depth > MAX_DEPTH {
            self.out.push_str(&e.to_string());
            return;
        }
        let d = depth + 1;
        match e {
            E::Identifier(id) if !id.value.starts_with('@') => self.ident(&id.value),
            E::CompoundIdentifier(parts) if !parts.iter().any(|p| p.value.starts_with('@')) => {
                self.ident(&parts.last().map_or(String::new(), |p| p.value.clone()))
            }
            E::Value(v) => self.value(&v.value),
            E::Prefixed { prefix, value } => match &**value {
                E::Value(v) => match &v.value {
                    sp::Value::SingleQuotedString(s) | sp::Value::DoubleQuotedString(s) => {
                        self.string(&prefix.value.to_ascii_lowercase(), s)
                    }
                    _ => self.out.push_str(&e.to_string()),
                },
                _ => self.out.push_str(&e.to_string()),
            },
            E::Nested(x) => self.expr(x, d),
            E::BinaryOp { left, op, right } => {
                self.out.push('(');
                self.expr(left, d);
                self.out.push(' ');
                self.out.push_str(&binary_op(op));
                self.out.push(' ');
                self.expr(right, d);
                self.out.push(')');
            }
            E::UnaryOp { op: sp::UnaryOperator::Not, expr } => self.not(|p| p.expr(expr, d)),
            E::UnaryOp { op: sp::UnaryOperator::Minus, expr } => {
                self.out.push_str("-(");
                self.expr(expr, d);
                self.out.push(')');
            }
            E::UnaryOp { op: sp::UnaryOperator::Plus, expr } => self.expr(expr, d),
            E::IsNull(x) => self.postfix(x, "is null", d),
            E::IsNotNull(x) => self.postfix(x, "is not null", d),
            E::IsTrue(x) => self.postfix(x, "is true", d),
            E::IsNotTrue(x) => self.postfix(x, "is not true", d),
            E::IsFalse(x) => self.postfix(x, "is false", d),
            E::IsNotFalse(x) => self.postfix(x, "is not false", d),
            E::IsUnknown(x) => self.postfix(x, "is unknown", d),
            E::IsNotUnknown(x) => self.postfix(x, "is not unknown", d),
            E::Between { expr, negated, low, high } => {
                self.out.push('(');
                self.expr(expr, d);
                self.out.push_str(if *negated { " not between " } else { " between " });
                self.expr(low, d);
                self.out.push_str(" and ");
                self.expr(high, d);
                self.out.push(')');
            }
            E::InList { expr, list, negated } => {
                self.out.push('(');
                self.expr(expr, d);
                self.out.push_str(if *negated { " not in (" } else { " in (" });
                self.list(list, d);
                self.out.push_str("))");
            }
            E::Like { negated, any: false, expr, pattern, escape_char } => {
                let like = |p: &mut Printer| {
                    p.out.push('(');
                    p.expr(expr, d);
                    p.out.push_str(" like ");
                    p.expr(pattern, d);
                    if let Some(c) = escape_char {
                        p.out.push_str(" escape ");
                        p.value(c);
                    }
                    p.out.push(')');
                };
                if *negated {
                    self.not(like)
                } else {
                    like(self)
                }
            }
            E::RLike { negated, expr, pattern, .. } => {
                let regexp = |p: &mut Printer| {
                    p.out.push_str("regexp_like(");
                    p.expr(expr, d);
                    p.out.push(',');
                    p.expr(pattern, d);
                    p.out.push(')');
                };
                if *negated {
                    self.not(regexp)
                } else {
                    regexp(self)
                }
            }
            E::Case { operand, conditions, else_result, .. } => {
                self.out.push_str("(case ");
                if let Some(o) = operand {
                    self.expr(o, d);
                    self.out.push(' ');
                }
                for w in conditions {
                    self.out.push_str("when ");
                    self.expr(&w.condition, d);
                    self.out.push_str(" then ");
                    self.expr(&w.result, d);
                    self.out.push(' ');
                }
                if let Some(x) = else_result {
                    self.out.push_str("else ");
                    self.expr(x, d);
                    self.out.push(' ');
                }
                self.out.push_str("end)");
            }
            E::Function(f) => self.function(f, e, d),
            E::Subquery(_) | E::Exists { .. } | E::InSubquery { .. } => {
                self.refuse(Refusal::Subquery);
                self.out.push_str(&e.to_string());
            }
            other => self.out.push_str(&other.to_string()),
        }
    }

    fn ident(&mut self, name: &str) {
        self.out.push('`');
        self.out.push_str(&name.replace('`', "``"));
        self.out.push('`');
    }

    fn value(&mut self, v: &sp::Value) {
        match v {
            sp::Value::SingleQuotedString(s) | sp::Value::DoubleQuotedString(s) => {
                self.string("_utf8mb4", s)
            }
            sp::Value::Boolean(b) => self.out.push_str(if *b { "true" } else { "false" }),
            sp::Value::Null => self.out.push_str("NULL"),
            other => self.out.push_str(&other.to_string()),
        }
    }

    /// `(not(x))`, Item_func_not::print.
    fn not(&mut self, inner: impl FnOnce(&mut Printer)) {
        self.out.push_str("(not(");
        inner(self);
        self.out.push_str("))");
    }

    fn postfix(&mut self, x: &sp::Expr, op: &str, d: usize) {
        self.out.push('(');
        self.expr(x, d);
        self.out.push(' ');
        self.out.push_str(op);
        self.out.push(')');
    }

    fn function(&mut self, f: &sp::Function, whole: &sp::Expr, d: usize) {
        let name = f.name.to_string().to_ascii_lowercase();
        if REFUSED.contains(&name.as_str()) {
            self.refuse(Refusal::Function(name.clone()));
        }
        let args = match &f.args {
            sp::FunctionArguments::List(l)
                if l.duplicate_treatment.is_none()
                    && l.clauses.is_empty()
                    && f.over.is_none()
                    && f.filter.is_none() =>
            {
                l.args
                    .iter()
                    .map(|a| match a {
                        sp::FunctionArg::Unnamed(sp::FunctionArgExpr::Expr(e)) => Some(e.clone()),
                        _ => None,
                    })
                    .collect::<Option<Vec<_>>>()
            }
            sp::FunctionArguments::Subquery(_) => {
                self.refuse(Refusal::Subquery);
                None
            }
            _ => None,
        };
        match args {
            Some(args) => {
                self.out.push_str(&name);
                self.out.push('(');
                self.list(&args, d);
                self.out.push(')');
            }
            None => self.out.push_str(&whole.to_string()),
        }
    }
}

fn binary_op(op: &sp::BinaryOperator) -> String {
    use sp::BinaryOperator as B;
    match op {
        B::NotEq => "<>".into(),
        B::MyIntegerDivide => "div".into(),
        B::Modulo => "%".into(),
        B::And => "and".into(),
        B::Or => "or".into(),
        B::Xor => "xor".into(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::dialect::MySqlDialect;
    use sqlparser::parser::Parser;

    fn printed(sql: &str) -> (String, Option<Refusal>) {
        let e = Parser::new(&MySqlDialect {}).try_with_sql(sql).unwrap().parse_expr().unwrap();
        print(&e)
    }

    /// mysqld 8.0's SHOW CREATE TABLE forms (manual, "CHECK Constraints").
    #[test]
    fn prints_as_mysqld() {
        assert_eq!(printed("c1 <> c2").0, "(`c1` <> `c2`)");
        assert_eq!(
            printed("a != 0 AND (b > 1 OR b IS NULL)").0,
            "((`a` <> 0) and ((`b` > 1) or (`b` is null)))"
        );
        assert_eq!(printed("g IN ('M','F')").0, "(`g` in (_utf8mb4'M',_utf8mb4'F'))");
        assert_eq!(printed("NOT a BETWEEN 1 AND 5").0, "(not((`a` between 1 and 5)))");
        assert_eq!(printed("CHAR_LENGTH(t.n) > 2").0, "(char_length(`n`) > 2)");
        assert_eq!(printed("n NOT LIKE 'x%'").0, "(not((`n` like _utf8mb4'x%')))");
        assert_eq!(printed("rand() > 0").1, Some(Refusal::Function("rand".into())));
        assert_eq!(printed("a IN (SELECT 1)").1, Some(Refusal::Subquery));
    }
}
