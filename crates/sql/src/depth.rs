//! The bound on how deep a client's statement may nest, checked on its tokens before any tree
//! is built.
//!
//! Why here, on tokens: sqlparser builds a left-deep chain (`1+1+…+1`, `a AND b AND …`,
//! `x IS NULL IS NULL …`) in a loop, without recursion and without its recursion counter, so a
//! statement of a few thousand terms becomes a tree thousands of levels deep. Everything after
//! that recurses over the tree: sqlparser's own `Drop` of its AST, the conversion to
//! [`crate::ast`], binding, evaluation, `Clone` of a prepared statement and the drop of ours.
//! On a 2 MiB Tokio worker stack that overflowed at about 1 550 terms and aborted the whole
//! process. Bounding the depth before parsing protects all of those at once, sqlparser's drop
//! included, which nothing after the parse could protect (a deep tree that exists must also be
//! dropped). The scan is one linear pass over the tokens that the parser then reuses
//! ([`tokenize`] hands them over), so it adds no second tokenization.
//!
//! The estimate is an upper bound of the depth of any expression tree a parser can build from
//! the tokens, and close to it for the common shapes:
//! - within one parenthesis level, the tokens between two commas form one *segment*; every
//!   node on a root-to-leaf path at this level owns at least one token of the segment (its
//!   operator, keyword or punctuation), except the leaf (a literal, a name or a `?`), so a
//!   segment is at most `operators + 1` deep, plus one nested group;
//! - a group (`( … )`, or `CASE … END` whose `WHEN`/`THEN`/`ELSE` arms are siblings as the items
//!   of a list are) adds its own depth plus one to the segment that holds it.
//!
//! So width never counts: an `IN` list or a `VALUES` list of 100 000 items, or a `CASE` of
//! thousands of arms (Django's `bulk_update`) is shallow; `a=1 OR a=2 OR …` counts two per term
//! and `1+1+…` one per term.
//!
//! mysqld has no fixed depth: `check_stack_overrun` (sql/sql_parse.cc), called from
//! `Item::fix_fields` and the parser, answers ER_STACK_OVERRUN_NEED_MORE (1436) when the thread
//! stack runs low. binlogd answers the same error for a statement past [`MAX_DEPTH`], which
//! leaves ample room on a 2 MiB stack for the deepest recursion over the tree (measured by
//! `crates/sql/tests/sql_guard.rs`, `deep_expressions_end_in_1436_on_a_2_mib_stack`).
//!
//! Invariant: every tree the parser front-end builds from accepted tokens is at most
//! [`MAX_DEPTH`] deep (sqlparser's nodes; binlogd's own [`crate::ast::Expr`] adds at most a
//! small constant factor, which the measured stack budget includes).

use sqlparser::dialect::Dialect;
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer, TokenizerError};

use super::error::SqlError;

/// The deepest estimated nesting a statement may have: about 1 000 terms of a `+` chain or 500
/// of an `OR` of comparisons. Measured (release build): the deepest recursion over such a tree
/// (conversion, binding, evaluation) costs about 750 bytes a level, so an accepted statement
/// needs under 1 MiB of stack, half a Tokio worker's 2 MiB, the rest left to the protocol
/// layer's frames beneath the session.
pub const MAX_DEPTH: usize = 1_000;

/// Tokenizes `sql` as sqlparser's `Parser::try_with_sql` does, keeping locations.
pub(crate) fn tokenize(
    dialect: &dyn Dialect,
    sql: &str,
) -> Result<Vec<TokenWithSpan>, TokenizerError> {
    Tokenizer::new(dialect, sql).with_unescape(true).tokenize_with_location()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Group {
    Paren,
    Case,
}

struct Frame {
    group: Group,
    /// Operator tokens in the current segment.
    ops: usize,
    /// The deepest nested group in the current segment (its depth plus one).
    child: usize,
    /// The deepest finished segment of this group.
    best: usize,
}

impl Frame {
    fn new(group: Group) -> Frame {
        Frame { group, ops: 0, child: 0, best: 0 }
    }

    fn segment(&self) -> usize {
        self.ops + 1 + self.child
    }

    fn end_segment(&mut self) {
        self.best = self.best.max(self.segment());
        self.ops = 0;
        self.child = 0;
    }
}

/// The estimated nesting depth of a statement's tokens (see the module doc); stops counting
/// once past `limit`.
pub fn estimate(tokens: &[TokenWithSpan], limit: usize) -> usize {
    let mut stack = vec![Frame::new(Group::Paren)];
    // Closes the innermost group into its parent; returns the depth it added.
    fn close(stack: &mut Vec<Frame>) -> usize {
        let mut f = stack.pop().expect("a group to close");
        f.end_segment();
        let d = f.best + 1;
        let parent = stack.last_mut().expect("the statement's own frame");
        parent.child = parent.child.max(d);
        parent.segment()
    }
    for t in tokens {
        let group = stack.last().expect("the statement's own frame").group;
        macro_rules! top {
            () => {
                stack.last_mut().expect("the statement's own frame")
            };
        }
        let depth = match &t.token {
            Token::Whitespace(_) | Token::EOF => continue,
            Token::Comma | Token::SemiColon => {
                top!().end_segment();
                continue;
            }
            Token::LParen | Token::LBracket | Token::LBrace => {
                stack.push(Frame::new(Group::Paren));
                stack.len()
            }
            Token::RParen | Token::RBracket | Token::RBrace => {
                // Close any unfinished CASE inside the parentheses with them.
                while stack.len() > 1 && stack.last().is_some_and(|f| f.group == Group::Case) {
                    close(&mut stack);
                }
                if stack.len() > 1 {
                    close(&mut stack)
                } else {
                    top!().ops += 1;
                    top!().segment()
                }
            }
            Token::Word(w) if w.quote_style.is_none() && w.keyword == Keyword::CASE => {
                top!().ops += 1;
                stack.push(Frame::new(Group::Case));
                stack.len()
            }
            Token::Word(w)
                if group == Group::Case
                    && w.quote_style.is_none()
                    && matches!(w.keyword, Keyword::WHEN | Keyword::THEN | Keyword::ELSE) =>
            {
                top!().end_segment();
                continue;
            }
            Token::Word(w)
                if group == Group::Case && w.quote_style.is_none() && w.keyword == Keyword::END =>
            {
                close(&mut stack)
            }
            // Leaves: names, literals, placeholders, and the `.` of a qualified name.
            Token::Word(w) if w.quote_style.is_some() || w.keyword == Keyword::NoKeyword => {
                continue
            }
            Token::Number(..)
            | Token::Placeholder(_)
            | Token::Period
            | Token::SingleQuotedString(_)
            | Token::DoubleQuotedString(_)
            | Token::NationalStringLiteral(_)
            | Token::HexStringLiteral(_)
            | Token::SingleQuotedByteStringLiteral(_)
            | Token::DoubleQuotedByteStringLiteral(_)
            | Token::EscapedStringLiteral(_) => continue,
            _ => {
                top!().ops += 1;
                top!().segment()
            }
        };
        if depth > limit {
            return depth;
        }
    }
    while stack.len() > 1 {
        if close(&mut stack) > limit {
            return limit + 1;
        }
    }
    let mut last = stack.pop().expect("the statement's own frame");
    last.end_segment();
    last.best
}

/// 1436 ER_STACK_OVERRUN_NEED_MORE unless the statement's estimated depth is within
/// [`MAX_DEPTH`].
pub(crate) fn check(tokens: &[TokenWithSpan]) -> Result<(), SqlError> {
    let depth = estimate(tokens, MAX_DEPTH);
    if depth <= MAX_DEPTH {
        return Ok(());
    }
    Err(too_deep())
}

/// The error of a statement nested deeper than binlogd recurses (mysqld's
/// ER_STACK_OVERRUN_NEED_MORE, 1436, SQLSTATE HY000; mysqld's text names the bytes of its
/// thread stack, binlogd's the nesting levels it checks instead).
pub fn too_deep() -> SqlError {
    SqlError::Other {
        code: 1436,
        sqlstate: "HY000",
        message: format!(
            "Thread stack overrun: the statement nests more than {MAX_DEPTH} levels \
             (operators, parentheses, subqueries); split it or use fewer nested terms"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::dialect::MySqlDialect;

    fn depth(sql: &str) -> usize {
        estimate(&tokenize(&MySqlDialect {}, sql).unwrap(), usize::MAX)
    }

    #[test]
    fn depth_counts_chains_and_nesting_not_width() {
        assert_eq!(depth("SELECT 1"), 2);
        let chain = format!("SELECT 1{}", "+1".repeat(99));
        assert!((100..=102).contains(&depth(&chain)), "{}", depth(&chain));
        let list: Vec<String> = (0..10_000).map(|i| i.to_string()).collect();
        let inlist = format!("SELECT * FROM t WHERE id IN ({})", list.join(","));
        assert!(depth(&inlist) < 10, "{}", depth(&inlist));
        let parens = format!("SELECT {}1{}", "(".repeat(300), ")".repeat(300));
        assert!(depth(&parens) >= 300);
        let arms: String = (0..3000).map(|i| format!(" WHEN (id = {i}) THEN 'v{i}'")).collect();
        let case = format!("UPDATE t SET a = CASE{arms} END WHERE id IN (1, 2)");
        assert!(depth(&case) < 20, "{}", depth(&case));
        // Unbalanced text still gets a bound.
        assert!(depth(&format!("SELECT {}", "(".repeat(5000))) >= 5000);
        assert!(depth("SELECT ) ) END WHEN") > 0);
    }
}
