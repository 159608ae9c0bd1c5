//! The parser's dialect: sqlparser's `MySqlDialect` with `GROUP BY ... WITH ROLLUP` enabled,
//! and MySQL's bit operators (`<<`, `>>`, `~`) and operator precedence (`^` above `*`, shifts
//! between `+` and `&`, `DIV` as `*`), which sqlparser's MySQL dialect lacks.
//!
//! sqlparser 0.59 parses the `WITH ROLLUP | CUBE | TOTALS` modifiers only when the dialect
//! answers `supports_group_by_with_modifier` (its `parse_optional_group_by`), and its MySQL
//! dialect does not. MySQL's grammar (sql_yacc.yy `olap_opt`) has `WITH ROLLUP` after GROUP BY,
//! so this wrapper delegates every method `MySqlDialect` overrides and enables the modifiers;
//! CUBE and TOTALS, which MySQL lacks, are refused by the conversion (`parse.rs`) with 1064.
//!
//! Invariant: `dialect()` answers `MySqlDialect`'s type id, so sqlparser's `dialect_of!(.. is
//! MySqlDialect)` checks take the MySQL branches exactly as before.

use std::any::TypeId;

use sqlparser::ast::Statement;
use sqlparser::dialect::{Dialect, MySqlDialect};
use sqlparser::keywords::Keyword;
use sqlparser::parser::{Parser, ParserError};

/// sqlparser's precedence of `* / %` (`Precedence::MulDivModOp`).
const MUL_DIV: u8 = 40;
/// `^` binds tighter than `*` in MySQL.
const CARET: u8 = 45;
/// `<< >>`: between `+ -` (30) and `&` (23).
const SHIFT: u8 = 26;
/// A unary operator's operand: everything but `.` (100) binds looser.
const UNARY: u8 = 50;

/// `x [NOT] REGEXP|RLIKE pattern` read as MySQL reads it (sql_yacc.yy `bit_expr REGEXP
/// bit_expr`): sqlparser takes a `NULL` right after REGEXP as the `NOT NULL` of a column
/// definition and then finds no pattern, so `'a' REGEXP NULL` was a 1064 where mysqld answers
/// NULL. `None` when the next tokens are not this operator.
fn regexp_operator(
    parser: &mut Parser,
    expr: &sqlparser::ast::Expr,
) -> Option<Result<sqlparser::ast::Expr, ParserError>> {
    use sqlparser::tokenizer::Token;
    let is_regexp = |t: &Token| matches!(t, Token::Word(w) if matches!(w.keyword, Keyword::REGEXP | Keyword::RLIKE));
    let negated = match &parser.peek_token().token {
        t if is_regexp(t) => false,
        Token::Word(w)
            if w.keyword == Keyword::NOT && is_regexp(&parser.peek_nth_token(1).token) =>
        {
            true
        }
        _ => return None,
    };
    if negated {
        parser.next_token();
    }
    let regexp =
        matches!(&parser.next_token().token, Token::Word(w) if w.keyword == Keyword::REGEXP);
    let prec = MySqlDialect {}.prec_value(sqlparser::dialect::Precedence::Like);
    Some(parser.parse_subexpr(prec).map(|pattern| sqlparser::ast::Expr::RLike {
        negated,
        expr: Box::new(expr.clone()),
        pattern: Box::new(pattern),
        regexp,
    }))
}

/// MySQL with `GROUP BY ... WITH ROLLUP`.
#[derive(Debug)]
pub(crate) struct MySql(MySqlDialect);

impl MySql {
    pub(crate) const fn new() -> Self {
        MySql(MySqlDialect {})
    }
}

impl Dialect for MySql {
    fn dialect(&self) -> TypeId {
        TypeId::of::<MySqlDialect>()
    }
    fn supports_group_by_with_modifier(&self) -> bool {
        true
    }
    fn is_identifier_start(&self, ch: char) -> bool {
        self.0.is_identifier_start(ch)
    }
    fn is_identifier_part(&self, ch: char) -> bool {
        self.0.is_identifier_part(ch)
    }
    fn is_delimited_identifier_start(&self, ch: char) -> bool {
        self.0.is_delimited_identifier_start(ch)
    }
    fn identifier_quote_style(&self, identifier: &str) -> Option<char> {
        self.0.identifier_quote_style(identifier)
    }
    fn supports_string_literal_backslash_escape(&self) -> bool {
        self.0.supports_string_literal_backslash_escape()
    }
    fn supports_string_literal_concatenation(&self) -> bool {
        self.0.supports_string_literal_concatenation()
    }
    fn ignores_wildcard_escapes(&self) -> bool {
        self.0.ignores_wildcard_escapes()
    }
    fn supports_numeric_prefix(&self) -> bool {
        self.0.supports_numeric_prefix()
    }
    fn parse_infix(
        &self,
        parser: &mut Parser,
        expr: &sqlparser::ast::Expr,
        precedence: u8,
    ) -> Option<Result<sqlparser::ast::Expr, ParserError>> {
        use sqlparser::ast::{BinaryOperator as B, Expr};
        use sqlparser::tokenizer::Token;
        // `<<`, `>>` (sqlparser maps them only for PostgreSQL-like dialects) and `DIV` (its
        // MySQL dialect reads DIV's right operand as a whole expression, so `7 DIV 2 + 1`
        // was `7 DIV 3`) at MySQL's precedence.
        if let Some(rlike) = regexp_operator(parser, expr) {
            return Some(rlike);
        }
        let (op, prec) = match &parser.peek_token().token {
            Token::ShiftLeft => (B::PGBitwiseShiftLeft, SHIFT),
            Token::ShiftRight => (B::PGBitwiseShiftRight, SHIFT),
            Token::Word(w) if w.keyword == Keyword::DIV => (B::MyIntegerDivide, MUL_DIV),
            _ => return self.0.parse_infix(parser, expr, precedence),
        };
        parser.next_token();
        Some(parser.parse_subexpr(prec).map(|right| Expr::BinaryOp {
            left: Box::new(expr.clone()),
            op,
            right: Box::new(right),
        }))
    }
    fn parse_prefix(
        &self,
        parser: &mut Parser,
    ) -> Option<Result<sqlparser::ast::Expr, ParserError>> {
        use sqlparser::ast::{Expr, UnaryOperator};
        use sqlparser::tokenizer::Token;
        // `~x`: MySQL's bit inversion, binding tighter than every binary operator
        // (sql_yacc.yy: `'~' simple_expr %prec NEG`).
        if parser.peek_token().token != Token::Tilde {
            return None;
        }
        parser.next_token();
        Some(
            parser
                .parse_subexpr(UNARY)
                .map(|x| Expr::UnaryOp { op: UnaryOperator::PGBitwiseNot, expr: Box::new(x) }),
        )
    }
    fn get_next_precedence(&self, parser: &Parser) -> Option<Result<u8, ParserError>> {
        use sqlparser::tokenizer::Token;
        // MySQL's operator precedence (refman "Operator Precedence"): `^` above `* / DIV %`,
        // `<< >>` below `+ -` and above `&`, `&` above `|`. sqlparser ranks `^` and the
        // shifts with `|`-like operators below `&`.
        match &parser.peek_token().token {
            Token::Caret => Some(Ok(CARET)),
            Token::ShiftLeft | Token::ShiftRight => Some(Ok(SHIFT)),
            // `col->'$.p'` and `->>` are simple expressions in MySQL's grammar (sql_yacc.yy
            // `simple_ident JSON_SEPARATOR_SYM`): `d->'$.n' = 1` compares the extracted value
            // (sqlparser ranks them below `=`, reading `d -> ('$.n' = 1)`).
            Token::Arrow | Token::LongArrow => Some(Ok(UNARY)),
            _ => None,
        }
    }
    fn parse_statement(&self, parser: &mut Parser) -> Option<Result<Statement, ParserError>> {
        self.0.parse_statement(parser)
    }
    fn require_interval_qualifier(&self) -> bool {
        self.0.require_interval_qualifier()
    }
    fn supports_limit_comma(&self) -> bool {
        self.0.supports_limit_comma()
    }
    fn supports_create_table_select(&self) -> bool {
        self.0.supports_create_table_select()
    }
    fn supports_insert_set(&self) -> bool {
        self.0.supports_insert_set()
    }
    fn supports_user_host_grantee(&self) -> bool {
        self.0.supports_user_host_grantee()
    }
    fn is_table_factor_alias(&self, explicit: bool, kw: &Keyword, parser: &mut Parser) -> bool {
        self.0.is_table_factor_alias(explicit, kw, parser)
    }
    fn supports_table_hints(&self) -> bool {
        self.0.supports_table_hints()
    }
    fn requires_single_line_comment_whitespace(&self) -> bool {
        self.0.requires_single_line_comment_whitespace()
    }
    fn supports_match_against(&self) -> bool {
        self.0.supports_match_against()
    }
    fn supports_set_names(&self) -> bool {
        self.0.supports_set_names()
    }
    fn supports_comma_separated_set_assignments(&self) -> bool {
        self.0.supports_comma_separated_set_assignments()
    }
    fn supports_data_type_signed_suffix(&self) -> bool {
        self.0.supports_data_type_signed_suffix()
    }
    fn supports_cross_join_constraint(&self) -> bool {
        self.0.supports_cross_join_constraint()
    }
}
