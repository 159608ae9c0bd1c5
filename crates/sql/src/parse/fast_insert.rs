//! A direct reader for the plainest, biggest statements clients send:
//! `INSERT|REPLACE [IGNORE] [INTO] t [(c, ...)] VALUES (lit, ...), (lit, ...) ...` whose values
//! are only numbers, plain single-quoted strings and NULL — sysbench's `bulk_insert` and
//! `oltp_insert`, `mariadb-dump`'s extended inserts of numeric and simple text rows, loaders.
//!
//! Why by hand: such a statement can carry megabytes of rows, and the general path
//! tokenizes it into sqlparser's tokens, builds sqlparser's AST and converts that to ours:
//! about half of the server's CPU in a `bulk_insert` profile (tokenizer, parser, AST drops,
//! copies; bench/RESULTS.md). Reading the literals straight into [`Insert`] skips all three.
//!
//! Invariant: [`parse`] returns either `None` or exactly the [`Parsed`] the general parser
//! returns for the same text (a unit test checks this over generated statements). It
//! answers only when every byte fits the narrow grammar below; anything else — a comment,
//! a backslash or doubled quote in a string, a hex, bit, exponent or signed-with-space number,
//! a charset introducer, an expression, a placeholder, a keyword used as a name,
//! `ON DUPLICATE KEY UPDATE`, a row alias — returns `None` and the general path decides,
//! errors included. No recursion; the rows grow as they are read, never sized from the text.

use sqlparser::ast as sp;

use engine::Value;

use super::{number, unary, Parsed};
use crate::ast::{Expr, Insert, Stmt, TableRef};

/// The statement, when it is a plain INSERT/REPLACE of literal rows (see the module docs).
pub(super) fn parse(sql: &str) -> Option<Parsed> {
    let mut s = Scan { b: sql.as_bytes(), i: 0 };
    s.blanks();
    let replace = if s.keyword("INSERT") {
        false
    } else if s.keyword("REPLACE") {
        true
    } else {
        return None;
    };
    // mysqld's grammar: REPLACE has no IGNORE.
    let ignore = !replace && s.keyword("IGNORE");
    s.keyword("INTO");
    let first = s.name()?;
    let table = if s.punct(b'.') {
        TableRef { db: Some(first), name: s.name()? }
    } else {
        TableRef { db: None, name: first }
    };
    let columns = if s.punct(b'(') { s.list(Scan::name)? } else { Vec::new() };
    // mysqld also takes `VALUE`; the general path does not yet, and this reader answers only
    // what it answers.
    if !s.keyword("VALUES") {
        return None;
    }
    let mut rows = Vec::new();
    loop {
        if !s.punct(b'(') {
            return None;
        }
        let row = if s.punct(b')') { Vec::new() } else { s.list(Scan::literal)? };
        rows.push(row);
        if !s.punct(b',') {
            break;
        }
    }
    s.punct(b';');
    s.blanks();
    if s.i != s.b.len() {
        return None;
    }
    let insert =
        Insert { table, columns, rows, replace, ignore, on_duplicate: Vec::new(), row_alias: None };
    Some(Parsed { stmt: Stmt::Insert(insert), params: 0 })
}

struct Scan<'a> {
    b: &'a [u8],
    i: usize,
}

impl Scan<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn blanks(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    /// The bytes of an unquoted word at the cursor (letters, digits, `_`, `$`), not consumed.
    fn word(&self) -> &[u8] {
        let rest = &self.b[self.i..];
        let n = rest
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$'))
            .count();
        &rest[..n]
    }

    /// Consumes `kw` (any case) as a whole word, and the blanks after it.
    fn keyword(&mut self, kw: &str) -> bool {
        self.blanks();
        if self.word().eq_ignore_ascii_case(kw.as_bytes()) {
            self.i += kw.len();
            self.blanks();
            true
        } else {
            false
        }
    }

    /// Items separated by commas up to and including the closing `)` (the `(` consumed).
    fn list<T>(&mut self, mut item: impl FnMut(&mut Self) -> Option<T>) -> Option<Vec<T>> {
        let mut items = Vec::new();
        loop {
            items.push(item(self)?);
            if self.punct(b')') {
                return Some(items);
            }
            if !self.punct(b',') {
                return None;
            }
        }
    }

    /// Consumes `c` (after blanks) if it is next.
    fn punct(&mut self, c: u8) -> bool {
        self.blanks();
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    /// A table or column name: a back-quoted name without a doubled back quote, or an unquoted
    /// ASCII word that is not all digits and is no keyword sqlparser knows (those may be
    /// reserved: the general path decides).
    fn name(&mut self) -> Option<String> {
        self.blanks();
        if self.peek() == Some(b'`') {
            let rest = &self.b[self.i + 1..];
            let end = rest.iter().position(|&c| c == b'`')?;
            if end == 0 || rest.get(end + 1) == Some(&b'`') {
                return None;
            }
            let name = std::str::from_utf8(&rest[..end]).ok()?.to_string();
            self.i += end + 2;
            return Some(name);
        }
        let w = self.word();
        if w.is_empty() || w.iter().all(u8::is_ascii_digit) || is_keyword(w) {
            return None;
        }
        let name = std::str::from_utf8(w).ok()?.to_string();
        self.i += w.len();
        Some(name)
    }

    /// One value: `[-]digits[.digits]`, `'text'` without a backslash or a doubled quote, or
    /// NULL — as the general path's `Front::value` (and `unary` for the minus) makes them.
    fn literal(&mut self) -> Option<Expr> {
        self.blanks();
        match self.peek()? {
            b'\'' => {
                let rest = &self.b[self.i + 1..];
                let end = rest.iter().position(|&c| c == b'\'' || c == b'\\')?;
                if rest[end] != b'\'' || rest.get(end + 1) == Some(&b'\'') {
                    return None;
                }
                let text = rest[..end].to_vec();
                self.i += end + 2;
                Some(Expr::Lit(Value::Bytes(text)))
            }
            b'-' => {
                self.i += 1;
                let n = self.number()?;
                unary(&sp::UnaryOperator::Minus, n).ok()
            }
            b'0'..=b'9' => self.number(),
            _ if self.word().eq_ignore_ascii_case(b"NULL") => {
                self.i += 4;
                Some(Expr::Lit(Value::Null))
            }
            _ => None,
        }
    }

    /// `digits[.digits]` right at the cursor, followed by neither a word character nor a dot.
    fn number(&mut self) -> Option<Expr> {
        let rest = &self.b[self.i..];
        let int = rest.iter().take_while(|c| c.is_ascii_digit()).count();
        if int == 0 {
            return None;
        }
        let mut end = int;
        if rest.get(end) == Some(&b'.') {
            let frac = rest[end + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
            if frac == 0 {
                return None;
            }
            end += 1 + frac;
        }
        if rest
            .get(end)
            .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.'))
        {
            return None;
        }
        let text = std::str::from_utf8(&rest[..end]).ok()?;
        let v = number(text).ok()?;
        self.i += end;
        Some(Expr::Lit(v))
    }
}

/// Whether `w` is one of sqlparser's keywords (any case).
fn is_keyword(w: &[u8]) -> bool {
    let upper: Vec<u8> = w.to_ascii_uppercase();
    let Ok(upper) = std::str::from_utf8(&upper) else { return true };
    sqlparser::keywords::ALL_KEYWORDS.binary_search(&upper).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The general path's answer for `sql`, bypassing this reader.
    fn general(sql: &str) -> Option<Parsed> {
        super::super::parse_general(sql).ok()
    }

    fn same(sql: &str) {
        let fast = parse(sql);
        if let Some(f) = &fast {
            assert_eq!(Some(f), general(sql).as_ref(), "fast path differs on {sql:?}");
        }
    }

    #[test]
    fn answers_as_the_general_parser() {
        let cases = [
            "INSERT INTO t VALUES (1, 'a', NULL)",
            "insert into t values(1,'a'),(2,'b');",
            "  INSERT t VALUES (1)  ",
            "INSERT INTO `my t`.`x` (`a`, b) VALUES (-5, 3.25, '')",
            "REPLACE INTO t VALUES (18446744073709551615, -9223372036854775808)",
            "INSERT IGNORE INTO t VALUES (99999999999999999999999, -18446744073709551615)",
            "INSERT INTO t VALUES (), ()",
            "INSERT INTO t VALUES (0.000, 007, '#--/*')",
            "INSERT INTO sbtest1 VALUES(1, 4993, '83868641912-28773972837', '67847967377-486')",
        ];
        for c in cases {
            assert!(parse(c).is_some(), "the fast path should answer {c:?}");
            same(c);
        }
    }

    #[test]
    fn leaves_everything_else_to_the_general_parser() {
        let cases = [
            "INSERT INTO t VALUES ('a\\'b')",
            "INSERT INTO t VALUES ('it''s')",
            "INSERT INTO t VALUES (1e5)",
            "INSERT INTO t VALUES (0x41)",
            "INSERT INTO t VALUES (- 5)",
            "INSERT INTO t VALUES (--5)",
            "INSERT INTO t VALUES (1.)",
            "INSERT INTO t VALUES (.5)",
            "INSERT INTO t VALUES (_utf8mb4'a')",
            "INSERT INTO t VALUES ('a' 'b')",
            "INSERT INTO t VALUES (\"a\")",
            "INSERT INTO t VALUES (?)",
            "INSERT INTO t VALUES (1+1)",
            "INSERT INTO t VALUES (DEFAULT)",
            "INSERT INTO t VALUES (TRUE)",
            "INSERT INTO t VALUES (1) ON DUPLICATE KEY UPDATE a=1",
            "INSERT INTO t VALUES (1) AS new",
            "INSERT INTO select VALUES (1)",
            "INSERT INTO t VALUES (1) /* c */",
            "INSERT INTO t VALUES (1) # c",
            "INSERT INTO t VALUES (1); SELECT 1",
            "INSERT INTO t VALUES (1",
            "INSERT INTO t VALUES 1",
            "INSERT INTO t SELECT 1",
            "INSERT INTO t SET a=1",
            "INSERT INTO 123 VALUES (1)",
            "INSERT INTO t VALUES (12abc)",
            "INSERT INTO `a``b` VALUES (1)",
            "INSERT LOW_PRIORITY INTO t VALUES (1)",
            "REPLACE IGNORE INTO t VALUES (1)",
            "INSERT INTO t VALUE (1)",
        ];
        for c in cases {
            assert!(parse(c).is_none(), "the fast path should leave {c:?} alone");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(2000))]
        /// Generated statements near the grammar's edges: whenever the reader answers, the
        /// general parser gives the same statement.
        #[test]
        fn generated_statements_agree(
            verb in "(INSERT|insert|REPLACE|INSERT IGNORE)( INTO)?",
            table in "(t|`t 1`|db\\.t|`d`\\.`t`|values|t1_\\$)",
            cols in proptest::option::of("\\((a|`b`|c)(, ?(a|`b`|c|key)){0,3}\\)"),
            rows in proptest::collection::vec(
                proptest::collection::vec(
                    "(-?[0-9]{1,22}(\\.[0-9]{0,4})?|'[a-z #\\-\\\\']{0,6}'|NULL|null|1e3|\\.5|- 3)",
                    0..4,
                ),
                1..4,
            ),
            tail in "( |;| ;|\n| AS n|x)?",
        ) {
            let rows: Vec<String> = rows.iter().map(|r| format!("({})", r.join(", "))).collect();
            let sql = format!("{verb} {table} {} VALUES {}{tail}", cols.unwrap_or_default(), rows.join(","));
            same(&sql);
        }
    }
}
