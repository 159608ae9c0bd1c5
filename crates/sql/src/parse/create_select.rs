//! The parts of `CREATE TABLE` that sqlparser does not read: `IGNORE` / `REPLACE` before the
//! SELECT of `CREATE TABLE ... SELECT` (mysqld's `opt_duplicate_as_qe`) and the trailing
//! `START TRANSACTION` (MySQL 8.0.21+, `create_table_stmt ... START_SYM TRANSACTION_SYM`),
//! which mysqld writes into the binlog for CREATE TABLE ... SELECT in row format and which a
//! replica or a binlog replay then runs. Both are found at parenthesis depth 0 in the
//! statement's tokens and removed; the rest is CREATE TABLE as sqlparser reads it (its
//! conversion in parse.rs reads the SELECT).

use sqlparser::parser::Parser;
use sqlparser::tokenizer::{Token, TokenWithSpan};

use super::{parse_error, Front, DIALECT};
use crate::ast::Stmt;
use crate::error::Result;

fn is_word(t: &Token, w: &str) -> bool {
    matches!(t, Token::Word(x) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w))
}

impl Front<'_> {
    /// A CREATE TABLE with `IGNORE`/`REPLACE` before its SELECT or ending in `START
    /// TRANSACTION`, converted; None (nothing consumed) for any other statement.
    pub(super) fn create_table_extras(&mut self) -> Result<Option<Stmt>> {
        if !self.peek_word("CREATE") {
            return Ok(None);
        }
        let mut n = 1;
        if self.nth_word_at(n, "TEMPORARY") {
            n += 1;
        }
        if !self.nth_word_at(n, "TABLE") {
            return Ok(None);
        }
        let tokens = crate::depth::tokenize(&DIALECT, self.sql).map_err(|e| {
            parse_error(self.sql, &sqlparser::parser::ParserError::TokenizerError(e.to_string()))
        })?;
        // Positions of the tokens that are not blanks or comments.
        let solid: Vec<usize> = tokens
            .iter()
            .enumerate()
            .filter(|(_, t)| !matches!(t.token, Token::Whitespace(_)))
            .map(|(i, _)| i)
            .collect();
        let mut depth = 0usize;
        let mut drop = Vec::new();
        let (mut ignore, mut replace, mut start_transaction) = (false, false, false);
        for (k, &i) in solid.iter().enumerate() {
            let t = &tokens[i].token;
            match t {
                Token::LParen => depth += 1,
                Token::RParen => depth = depth.saturating_sub(1),
                _ if depth == 0 && (is_word(t, "IGNORE") || is_word(t, "REPLACE")) => {
                    let next = solid.get(k + 1).map(|&j| &tokens[j].token);
                    let before_select = next.is_some_and(|n| {
                        is_word(n, "AS")
                            || is_word(n, "SELECT")
                            || is_word(n, "WITH")
                            || *n == Token::LParen
                    });
                    if before_select && !ignore && !replace {
                        ignore = is_word(t, "IGNORE");
                        replace = !ignore;
                        drop.push(i);
                    }
                }
                _ if depth == 0 && is_word(t, "START") => {
                    let next = solid.get(k + 1).map(|&j| &tokens[j].token);
                    let rest = &solid[(k + 2).min(solid.len())..];
                    let at_end = rest
                        .iter()
                        .all(|&j| matches!(tokens[j].token, Token::SemiColon | Token::EOF));
                    if next.is_some_and(|n| is_word(n, "TRANSACTION")) && at_end {
                        start_transaction = true;
                        drop.push(i);
                        drop.push(solid[k + 1]);
                    }
                }
                _ => {}
            }
        }
        if drop.is_empty() {
            return Ok(None);
        }
        let kept: Vec<TokenWithSpan> = tokens
            .into_iter()
            .enumerate()
            .filter(|(i, _)| !drop.contains(i))
            .map(|(_, t)| t)
            .collect();
        let parser = Parser::new(&DIALECT).with_tokens_with_locations(kept);
        let outer = std::mem::replace(&mut self.parser, parser);
        let parsed = self.parser.parse_statement().map_err(|e| parse_error(self.sql, &e));
        let converted = parsed.and_then(|st| match st {
            sqlparser::ast::Statement::CreateTable(ct) => self.create_table(ct),
            _ => Err(self.error_here()),
        });
        // The statement's end (`;`, EOF) is checked on the filtered stream.
        let _ = self.parser.consume_token(&Token::SemiColon);
        let trailing = self.parser.peek_token().token != Token::EOF;
        let err = trailing.then(|| self.error_here());
        self.parser = outer;
        // The outer parser is left at the end of the statement.
        while self.parser.next_token().token != Token::EOF {}
        let mut stmt = converted?;
        if let Some(e) = err {
            return Err(e);
        }
        let Stmt::CreateTable(ct) = &mut stmt else { unreachable!("converted a CREATE TABLE") };
        ct.start_transaction = start_transaction;
        match &mut ct.select {
            Some(s) => {
                s.ignore = ignore;
                s.replace = replace;
            }
            None if ignore || replace => return Err(self.error_here()),
            None => {}
        }
        Ok(Some(stmt))
    }

    fn nth_word_at(&self, n: usize, w: &str) -> bool {
        matches!(&self.parser.peek_nth_token(n).token,
            Token::Word(x) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w))
    }
}
