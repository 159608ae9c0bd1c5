//! ENUM, SET and BIT columns in numeric context (issue 19).
//!
//! The engine stores an ENUM as its member's text, a SET as its members' list and a BIT(n) as
//! its ⌈n/8⌉ bytes (`docs/sql.md`, byte types), and an expression reads them as those strings.
//! mysqld reads such a field as a number where the context asks for one
//! (`Field_enum::val_int`: the 1-based index, `Field_set::val_int`: the bitmask,
//! `Field_bit::val_int`: the big-endian integer): `e + 0`, `s | 0`, `b + 0`, `-e`, `SUM(e)`,
//! and a comparison with a number (`e = 2` compares indexes; `e = 'b'` stays a string
//! comparison). The binder wraps the column in `MathFn::EnumIndex`/`SetBits`/`BitValue`
//! (`eval/mathfn.rs`) there, once per statement, so reading the column elsewhere (and every
//! other column) costs nothing more.
//!
//! Invariant: only a bare column of one of the three types is wrapped; other expressions are
//! returned unchanged.
//!
//! The other direction lives here too: a DECIMAL quotient keeps mysqld's 9-digit words
//! (`decimal::div`), and where a string function reads it as text mysqld rounds it to the
//! item's `decimals` (`Item_func_numhybrid::val_str`), so `CONCAT(1/3)` is `0.3333`:
//! [`Binder::quotient_as_text`] wraps such an argument in `ROUND(x, decimals)`. A DATETIME,
//! TIMESTAMP or TIME argument likewise reads as text with its item's fraction digits
//! (`LENGTH(NOW(3))` is 23), through `TimeFn::Text`.

use engine::{ColumnType, Value};

use super::Binder;
use crate::ast::{BinOp, Expr, Func, MathFn, UnOp};
use crate::output::MysqlType;

/// Whether a bound expression's DECIMAL value may carry more fraction digits than its item's
/// scale: a quotient, arithmetic over one, or an aggregate (AVG divides; SUM adds quotients).
fn carries_quotient(e: &Expr) -> bool {
    match e {
        Expr::Binary(BinOp::Div, ..) | Expr::Agg(_) => true,
        Expr::Binary(BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Mod, a, b) => {
            carries_quotient(a) || carries_quotient(b)
        }
        Expr::Unary(UnOp::Neg, x) => carries_quotient(x),
        _ => false,
    }
}

impl Binder<'_> {
    /// `e` as a number when it is an ENUM, SET or BIT column of the bound table.
    #[inline(never)]
    pub(super) fn numeric_context(&self, e: Expr) -> Expr {
        let Expr::Col(i) = e else { return e };
        let Some(c) = self.table.and_then(|t| t.columns.get(i)) else { return e };
        let f = match c.ty {
            ColumnType::Enum => MathFn::EnumIndex,
            ColumnType::Set => MathFn::SetBits,
            ColumnType::Bit(_) => MathFn::BitValue,
            _ => return e,
        };
        let mut args = vec![Expr::Col(i)];
        if f != MathFn::BitValue {
            args.extend(c.elements.iter().map(|m| Expr::Lit(Value::Bytes(m.as_bytes().to_vec()))));
        }
        Expr::Func(Func::Math(f), args)
    }

    /// A string function's argument: a DECIMAL quotient rounded to its item's scale, as
    /// mysqld reads it as text (`Item_func_numhybrid::val_str` with `my_decimal_round`).
    #[inline(never)]
    pub(super) fn quotient_as_text(&self, e: Expr) -> Expr {
        if matches!(e, Expr::Lit(_)) {
            return e;
        }
        let aggs = self.aggs.as_deref().unwrap_or(&[]);
        let ty = super::expr_type(&e, self.table, aggs);
        if matches!(ty, MysqlType::DateTime | MysqlType::Timestamp | MysqlType::Time) {
            // A temporal value reads as text with its item's fraction digits, not the
            // value's six (`Item_temporal_func::val_str` with `decimals`).
            let fsp = super::decimal_scale(&e, self.table, aggs).min(6);
            return Expr::Func(Func::Time(crate::timefn::TimeFn::Text(fsp)), vec![e]);
        }
        if !carries_quotient(&e) || ty != MysqlType::NewDecimal {
            return e;
        }
        let scale = super::decimal_scale(&e, self.table, aggs);
        Expr::Func(Func::Round, vec![e, Expr::Lit(Value::Int(i64::from(scale)))])
    }

    /// A comparison's operands: an ENUM/SET/BIT column compared with a number reads as a
    /// number (`Arg_comparator` compares an integer-valued field with a number as integers).
    #[inline(never)]
    pub(super) fn numeric_comparison(&self, l: Expr, r: Expr) -> (Expr, Expr) {
        if self.is_number(&r) {
            (self.numeric_context(l), r)
        } else if self.is_number(&l) {
            let r = self.numeric_context(r);
            (l, r)
        } else {
            (l, r)
        }
    }

    /// Whether a bound expression has numeric values for sure (a number literal, arithmetic,
    /// a numeric column).
    fn is_number(&self, e: &Expr) -> bool {
        match e {
            Expr::Lit(v) => {
                matches!(v, Value::Int(_) | Value::UInt(_) | Value::Decimal(_) | Value::Double(_))
            }
            Expr::Binary(
                BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::IntDiv | BinOp::Mod,
                ..,
            )
            | Expr::Unary(UnOp::Neg, _) => true,
            Expr::Func(Func::Math(m), _) => m.is_integer(),
            Expr::Col(i) => self.table.and_then(|t| t.columns.get(*i)).is_some_and(|c| {
                matches!(
                    c.ty,
                    ColumnType::Integer { .. }
                        | ColumnType::Decimal { .. }
                        | ColumnType::Double
                        | ColumnType::Float
                )
            }),
            _ => false,
        }
    }
}
