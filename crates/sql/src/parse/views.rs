//! The grammar of `CREATE VIEW`, `ALTER VIEW` and `DROP VIEW` (mysqld's `view_or_trigger_or_sp_or_event`,
//! `view_tail`, `view_query_block` and `drop_view_stmt` rules in sql_yacc.yy), read token by
//! token: sqlparser's CREATE VIEW knows neither `WITH CHECK OPTION` nor MySQL's `ALTER VIEW`
//! with `ALGORITHM`/`DEFINER`/`SQL SECURITY`, and the view's SELECT must be kept as text
//! (it is stored and parsed again at each use, so a view means whatever the query grammar
//! accepts, as mysqld re-parses its stored `VIEW_DEFINITION`).

use sqlparser::tokenizer::Token;

use super::{offset_of, Front};
use crate::ast::{CreateView, Stmt, UserSpec};
use crate::error::{Result, SqlError};

impl Front<'_> {
    /// A view statement, if the statement is one (nothing consumed otherwise).
    pub(super) fn view_statement(&mut self) -> Result<Option<Stmt>> {
        if self.words(&["DROP", "VIEW"]) {
            let if_exists = self.words(&["IF", "EXISTS"]);
            let mut views = vec![self.table_name()?];
            while self.parser.consume_token(&Token::Comma) {
                views.push(self.table_name()?);
            }
            // `RESTRICT` / `CASCADE` are accepted and ignored, as mysqld does.
            let _ = self.word("RESTRICT") || self.word("CASCADE");
            return Ok(Some(Stmt::DropView { views, if_exists }));
        }
        let alter = if self.word("CREATE") {
            false
        } else if self.word("ALTER") {
            true
        } else {
            return Ok(None);
        };
        let start = 1;
        let mut consumed = start;
        let or_replace = !alter && self.words(&["OR", "REPLACE"]);
        if or_replace {
            consumed += 2;
        }
        let mut algorithm = None;
        let mut definer = None;
        let mut security = None;
        if self.word("ALGORITHM") {
            consumed += 1;
            let _ = self.parser.consume_token(&Token::Eq);
            let a = self.ident()?.to_ascii_uppercase();
            if !matches!(a.as_str(), "UNDEFINED" | "MERGE" | "TEMPTABLE") {
                self.back(1);
                return Err(self.error_here());
            }
            algorithm = Some(a);
        }
        if self.word("DEFINER") {
            consumed += 1;
            if !self.parser.consume_token(&Token::Eq) {
                return Err(self.error_here());
            }
            definer = Some(match self.user_spec()? {
                UserSpec::Current => None,
                UserSpec::Named(u) => Some((u.user, u.host)),
            });
        }
        if self.words(&["SQL", "SECURITY"]) {
            consumed += 2;
            let s = self.ident()?.to_ascii_uppercase();
            if !matches!(s.as_str(), "DEFINER" | "INVOKER") {
                self.back(1);
                return Err(self.error_here());
            }
            security = Some(s);
        }
        if !self.word("VIEW") {
            if consumed == start && definer.is_none() {
                // Another CREATE/ALTER statement: give the tokens back.
                self.back(consumed);
                return Ok(None);
            }
            return Err(self.error_here());
        }
        let view = self.table_name()?;
        let mut columns = Vec::new();
        if self.parser.consume_token(&Token::LParen) {
            loop {
                columns.push(self.ident()?);
                if self.parser.consume_token(&Token::RParen) {
                    break;
                }
                if !self.parser.consume_token(&Token::Comma) {
                    return Err(self.error_here());
                }
            }
        }
        self.expect_word("AS")?;
        let at = self.parser.peek_token().span.start;
        let Some(from) = offset_of(self.sql, at) else { return Err(self.error_here()) };
        let mut body = self.sql[from..].trim_end_matches(|c: char| c.is_whitespace() || c == ';');
        let check_option = check_option_suffix(&mut body);
        let parsed = super::parse(body)?;
        if parsed.params > 0 {
            return Err(SqlError::Other {
                code: 1351,
                sqlstate: "HY000",
                message: "View's SELECT contains a variable or parameter".into(),
            });
        }
        let select = match parsed.stmt {
            Stmt::Select(s) => s,
            _ => return Err(SqlError::near(body)),
        };
        if select.for_update {
            return Err(SqlError::near("FOR UPDATE"));
        }
        // The parser is left at the end: the body was parsed on its own.
        while self.parser.next_token().token != Token::EOF {}
        Ok(Some(Stmt::CreateView(Box::new(CreateView {
            view,
            or_replace,
            alter,
            algorithm,
            definer: definer.flatten(),
            security,
            columns,
            body: body.trim().to_string(),
            select: Box::new(select),
            check_option,
        }))))
    }
}

/// Strips a trailing `WITH [CASCADED | LOCAL] CHECK OPTION` from `body` (word by word,
/// case-insensitive) and says which it was.
fn check_option_suffix(body: &mut &str) -> Option<String> {
    let words: Vec<(usize, &str)> = body
        .char_indices()
        .filter(|&(i, c)| {
            !c.is_whitespace() && (i == 0 || body[..i].ends_with(|p: char| p.is_whitespace()))
        })
        .map(|(i, _)| (i, body[i..].split_whitespace().next().unwrap_or("")))
        .collect();
    let n = words.len();
    let is = |k: usize, w: &str| n >= k && words[n - k].1.eq_ignore_ascii_case(w);
    if !(is(1, "OPTION") && is(2, "CHECK")) {
        return None;
    }
    let (kind, with_at) = if is(3, "WITH") {
        ("CASCADED", n - 3)
    } else if is(4, "WITH") && (is(3, "CASCADED") || is(3, "LOCAL")) {
        (if is(3, "LOCAL") { "LOCAL" } else { "CASCADED" }, n - 4)
    } else {
        return None;
    };
    *body = body[..words[with_at].0].trim_end();
    Some(kind.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(sql: &str) -> CreateView {
        match super::super::parse(sql).map(|p| p.stmt) {
            Ok(Stmt::CreateView(cv)) => *cv,
            other => panic!("{sql}: {other:?}"),
        }
    }

    #[test]
    fn create_view_clauses() {
        let v = view(
            "CREATE OR REPLACE ALGORITHM=MERGE DEFINER=`root`@`localhost` SQL SECURITY INVOKER \
             VIEW d.v (x, y) AS SELECT a, b FROM t WHERE a > 1 WITH LOCAL CHECK OPTION",
        );
        assert!(v.or_replace && !v.alter);
        assert_eq!(v.algorithm.as_deref(), Some("MERGE"));
        assert_eq!(v.definer, Some(("root".into(), "localhost".into())));
        assert_eq!(v.security.as_deref(), Some("INVOKER"));
        assert_eq!(v.view.db.as_deref(), Some("d"));
        assert_eq!(v.columns, vec!["x", "y"]);
        assert_eq!(v.body, "SELECT a, b FROM t WHERE a > 1");
        assert_eq!(v.check_option.as_deref(), Some("LOCAL"));
        let v = view("ALTER VIEW v AS SELECT 1 WITH CHECK OPTION;");
        assert!(v.alter);
        assert_eq!(v.check_option.as_deref(), Some("CASCADED"));
        assert_eq!(v.body, "SELECT 1");
    }

    #[test]
    fn mariadb_dump_spelling_and_drop() {
        let v = view(
            "/*!50001 CREATE ALGORITHM=UNDEFINED */\n/*!50013 DEFINER=`root`@`%` SQL SECURITY \
             DEFINER */\n/*!50001 VIEW `v1` AS select `t`.`a` AS `a` from `t` */",
        );
        assert_eq!(v.definer, Some(("root".into(), "%".into())));
        assert_eq!(v.view.name, "v1");
        assert!(v.body.starts_with("select `t`.`a` AS `a` from `t`"), "{}", v.body);
        let d = super::super::parse("DROP VIEW IF EXISTS a, d.b").unwrap().stmt;
        assert!(matches!(d, Stmt::DropView { views, if_exists: true } if views.len() == 2));
        // Other CREATE statements are untouched.
        assert!(matches!(
            super::super::parse("CREATE TABLE t (a int)").unwrap().stmt,
            Stmt::CreateTable(_)
        ));
        assert!(super::super::parse("CREATE VIEW v AS SELECT ?").is_err());
    }
}
