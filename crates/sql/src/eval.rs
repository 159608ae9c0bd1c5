//! Values in expressions: MySQL's conversions, arithmetic, comparison and truth rules over
//! engine [`Value`]s, and the evaluation of bound expressions against a row.
//!
//! Rules kept (MySQL's, simplified where noted):
//! - NULL propagates through arithmetic and comparison; AND/OR use three-valued logic.
//! - Integer arithmetic is exact (i128 inside) and fails with 1690 outside BIGINT; `/` gives a
//!   DECIMAL with 4 more fraction digits (`div_precision_increment`); division by zero is NULL
//!   (warning 1365 under ERROR_FOR_DIVISION_BY_ZERO, the error in a strict INSERT/UPDATE).
//! - A DOUBLE or a string operand makes arithmetic DOUBLE; a DECIMAL one makes it DECIMAL.
//! - Strings compare as bytes (a binary collation: the engine's keys are byte-ordered, and
//!   filters must agree with index lookups); a string against a number compares as DOUBLE.
//! - LIKE is ASCII case-insensitive, as under MySQL's default collation.

pub(crate) mod aes;
pub mod castnum;
pub(crate) mod collate;
pub(crate) mod convert;
pub(crate) mod json_funcs;
pub(crate) mod jsonmore;
pub mod mathfn;
pub(crate) mod miscfn;
pub mod morefn;
pub(crate) mod regexfn;
pub mod strfunc;

use std::cmp::Ordering;
use std::time::{SystemTime, UNIX_EPOCH};

use engine::{Column, ColumnType, DateTime, Decimal, Value};

use super::ast::{BinOp, Expr, Func, UnOp};
use super::error::{Result, SqlError};

/// A number as arithmetic sees it.
#[derive(Debug, Clone, Copy)]
enum Num {
    Int(i128),
    Dec(Decimal),
    Dbl(f64),
}

fn internal(what: &str) -> SqlError {
    SqlError::Other { code: 1105, sqlstate: "HY000", message: format!("internal: {what}") }
}

/// The numeric prefix of a string, as MySQL reads `'12abc'` (12) or `'abc'` (0).
pub fn str_to_f64(b: &[u8]) -> f64 {
    let s = String::from_utf8_lossy(b);
    let s = s.trim_start();
    let mut end = 0;
    let bytes = s.as_bytes();
    let mut seen_digit = false;
    let mut seen_dot = false;
    let mut seen_exp = false;
    while end < bytes.len() {
        let c = bytes[end];
        let ok = match c {
            b'0'..=b'9' => {
                seen_digit = true;
                true
            }
            b'+' | b'-' => end == 0 || matches!(bytes[end - 1], b'e' | b'E'),
            b'.' if !seen_dot && !seen_exp => {
                seen_dot = true;
                true
            }
            b'e' | b'E' if seen_digit && !seen_exp => {
                seen_exp = true;
                true
            }
            _ => false,
        };
        if !ok {
            break;
        }
        end += 1;
    }
    // Back off an incomplete exponent or sign ("1e", "1e+").
    let mut text = &s[..end];
    while !text.is_empty() && text.parse::<f64>().is_err() {
        text = &text[..text.len() - 1];
    }
    text.parse().unwrap_or(0.0)
}

fn num(v: &Value) -> Option<Num> {
    Some(match v {
        Value::Null => return None,
        Value::Int(i) => Num::Int(i128::from(*i)),
        Value::UInt(u) => Num::Int(i128::from(*u)),
        Value::Double(d) => Num::Dbl(*d),
        Value::Decimal(d) => Num::Dec(*d),
        Value::Bytes(b) => Num::Dbl(str_to_f64(b)),
        Value::Json(t) => json_num(t),
        Value::Float(f) => Num::Dbl(f64::from(*f)),
        v @ (Value::DateTime(_) | Value::Date(_) | Value::Time(_)) => {
            match super::temporal::numeric(v)? {
                Value::Decimal(d) => Num::Dec(d),
                Value::Int(i) => Num::Int(i128::from(i)),
                _ => return None,
            }
        }
    })
}

/// A JSON value in numeric context: its number, a boolean as 0/1, anything else 0
/// (`Item_func_json::val_real`).
fn json_num(t: &[u8]) -> Num {
    match engine::json::parse_stored(t) {
        engine::json::Json::Int(i) => Num::Int(i128::from(i)),
        engine::json::Json::UInt(u) => Num::Int(i128::from(u)),
        engine::json::Json::Double(d) => Num::Dbl(d),
        engine::json::Json::Decimal(d) => Num::Dec(d),
        engine::json::Json::Bool(b) => Num::Int(i128::from(b)),
        engine::json::Json::Str(s) => Num::Dbl(str_to_f64(s.as_bytes())),
        _ => Num::Int(0),
    }
}

/// `YYYYMMDDhhmmss`, a DATETIME in numeric context.
fn datetime_number(t: &DateTime) -> u64 {
    ((u64::from(t.year) * 100 + u64::from(t.month)) * 100 + u64::from(t.day)) * 1_000_000
        + (u64::from(t.hour) * 100 + u64::from(t.minute)) * 100
        + u64::from(t.second)
}

fn dec_to_f64(d: Decimal) -> f64 {
    d.to_f64()
}

fn num_f64(n: Num) -> f64 {
    match n {
        Num::Int(i) => i as f64,
        Num::Dec(d) => dec_to_f64(d),
        Num::Dbl(d) => d,
    }
}

fn num_dec(n: Num) -> Option<Decimal> {
    match n {
        Num::Int(i) => Some(Decimal::new(i, 0)),
        Num::Dec(d) => Some(d),
        Num::Dbl(d) => f64_to_decimal(d, 10),
    }
}

/// A double as a decimal with at most `scale` fraction digits (trailing zeros dropped). The
/// digits are the double's shortest round-trip form, as mysqld's `double2decimal` (its
/// `my_gcvt`) writes them: 1e35 is 1 and 35 zeros, not the binary value's
/// 99999999999999996863366107917975552.
pub fn f64_to_decimal(d: f64, scale: u8) -> Option<Decimal> {
    if !d.is_finite() {
        return None;
    }
    if let Some(x) = Decimal::parse(&format!("{d}")) {
        return if x.scale > scale { x.rescale(scale) } else { Some(x) };
    }
    let text = format!("{:.*}", usize::from(scale), d);
    let text =
        if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.') } else { &text };
    Decimal::parse(text)
}

fn int_value(i: i128, expr: &dyn Fn() -> String) -> Result<Value> {
    if let Ok(v) = i64::try_from(i) {
        Ok(Value::Int(v))
    } else if let Ok(v) = u64::try_from(i) {
        Ok(Value::UInt(v))
    } else {
        Err(SqlError::ValueOutOfRange { kind: "BIGINT", expr: expr() })
    }
}

fn dec_out(d: Option<Decimal>, expr: &dyn Fn() -> String) -> Result<Value> {
    match d {
        Some(d) => Ok(Value::Decimal(d)),
        None => Err(SqlError::ValueOutOfRange { kind: "DECIMAL", expr: expr() }),
    }
}

/// Arithmetic `a op b` (op one of + - * / DIV %).
#[inline(never)]
pub fn arith(op: BinOp, a: &Value, b: &Value) -> Result<Value> {
    let (Some(x), Some(y)) = (num(a), num(b)) else { return Ok(Value::Null) };
    let text = || format!("{a} {} {b}", op_symbol(op));
    let text = &text;
    match (x, y) {
        (Num::Dbl(_), _) | (_, Num::Dbl(_)) => {
            let (p, q) = (num_f64(x), num_f64(y));
            let r = match op {
                BinOp::Add => p + q,
                BinOp::Sub => p - q,
                BinOp::Mul => p * q,
                BinOp::Div | BinOp::IntDiv | BinOp::Mod if q == 0.0 => {
                    return divided_by_zero();
                }
                BinOp::Div => p / q,
                // `Item_func_int_div::val_int`: a non-integer operand divides as DECIMAL
                // (`val_decimal`, a double's shortest digits), then `my_decimal2int`.
                BinOp::IntDiv => {
                    let (p, q) = (f64_to_decimal(p, 30), f64_to_decimal(q, 30));
                    let quotient = p.zip(q).and_then(|(p, q)| super::decimal::int_div(p, q));
                    return int_div_value(quotient, unsigned_operand(a, b), text);
                }
                BinOp::Mod => p % q,
                _ => return Err(internal("arith op")),
            };
            if r.is_finite() {
                Ok(Value::Double(r))
            } else {
                Err(SqlError::ValueOutOfRange { kind: "DOUBLE", expr: text() })
            }
        }
        (Num::Int(p), Num::Int(q)) if op != BinOp::Div => {
            let r = match op {
                BinOp::Add => p.checked_add(q),
                BinOp::Sub => p.checked_sub(q),
                BinOp::Mul => p.checked_mul(q),
                BinOp::IntDiv | BinOp::Mod if q == 0 => return divided_by_zero(),
                BinOp::IntDiv => Some(p / q),
                BinOp::Mod => Some(p % q),
                _ => return Err(internal("arith op")),
            };
            // An unsigned operand makes the result BIGINT UNSIGNED, else it is BIGINT; either
            // way a result outside the type is error 1690, as in MySQL.
            let unsigned = unsigned_operand(a, b);
            match r {
                Some(r) if unsigned => u64::try_from(r).map(Value::UInt).map_err(|_| {
                    SqlError::ValueOutOfRange { kind: "BIGINT UNSIGNED", expr: text() }
                }),
                Some(r) => i64::try_from(r)
                    .map(Value::Int)
                    .map_err(|_| SqlError::ValueOutOfRange { kind: "BIGINT", expr: text() }),
                None => Err(SqlError::ValueOutOfRange { kind: "BIGINT", expr: text() }),
            }
        }
        _ => {
            let (Some(p), Some(q)) = (num_dec(x), num_dec(y)) else {
                return Err(SqlError::ValueOutOfRange { kind: "DECIMAL", expr: text() });
            };
            if matches!(op, BinOp::Div | BinOp::IntDiv | BinOp::Mod) && q.is_zero() {
                return divided_by_zero();
            }
            match op {
                BinOp::Add => dec_out(super::decimal::add(p, q), text),
                BinOp::Sub => dec_out(super::decimal::sub(p, q), text),
                BinOp::Mod => dec_out(super::decimal::rem(p, q), text),
                BinOp::Mul => dec_out(super::decimal::mul(p, q), text),
                BinOp::Div => dec_out(super::decimal::div(p, q), text),
                BinOp::IntDiv => {
                    int_div_value(super::decimal::int_div(p, q), unsigned_operand(a, b), text)
                }
                _ => Err(internal("arith op")),
            }
        }
    }
}

/// Whether an operand is BIGINT UNSIGNED (the result's `unsigned_flag` in mysqld's
/// arithmetic and DIV).
fn unsigned_operand(a: &Value, b: &Value) -> bool {
    matches!(a, Value::UInt(_)) || matches!(b, Value::UInt(_))
}

/// A DECIMAL DIV's quotient as `my_decimal2int` gives it: BIGINT UNSIGNED when an operand is
/// unsigned, else BIGINT; outside it (or no quotient) is 1690 (`raise_integer_overflow`).
fn int_div_value(
    q: Option<engine::Mantissa>,
    unsigned: bool,
    expr: &dyn Fn() -> String,
) -> Result<Value> {
    let kind = if unsigned { "BIGINT UNSIGNED" } else { "BIGINT" };
    let out = || SqlError::ValueOutOfRange { kind, expr: expr() };
    match q {
        Some(q) if unsigned => u64::try_from(q).map(Value::UInt).map_err(|_| out()),
        Some(q) => i64::try_from(q).map(Value::Int).map_err(|_| out()),
        None => Err(out()),
    }
}

/// NULL, with warning 1365 (or the error in a strict write) under ERROR_FOR_DIVISION_BY_ZERO.
fn divided_by_zero() -> Result<Value> {
    super::temporal::division_by_zero()?;
    Ok(Value::Null)
}

fn op_symbol(op: BinOp) -> &'static str {
    match op {
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::IntDiv => "DIV",
        BinOp::Mod => "%",
        BinOp::Eq => "=",
        BinOp::NullSafeEq => "<=>",
        BinOp::NotEq => "<>",
        BinOp::Lt => "<",
        BinOp::Le => "<=",
        BinOp::Gt => ">",
        BinOp::Ge => ">=",
        BinOp::And => "AND",
        BinOp::Or => "OR",
        BinOp::Xor => "XOR",
    }
}

fn is_numeric(v: &Value) -> bool {
    matches!(
        v,
        Value::Int(_) | Value::UInt(_) | Value::Double(_) | Value::Decimal(_) | Value::Float(_)
    )
}

/// SQL comparison; None when either side is NULL.
#[inline(never)]
pub fn compare(a: &Value, b: &Value) -> Option<Ordering> {
    if let Some(o) = super::temporal::compare(a, b) {
        return o;
    }
    match (a, b) {
        (Value::Null, _) | (_, Value::Null) => None,
        (Value::Bytes(x), Value::Bytes(y)) => Some(x.cmp(y)),
        // A JSON operand makes the comparison JSON's (`Arg_comparator::compare_json`), the
        // other side converted to JSON.
        (Value::Json(_), _) | (_, Value::Json(_)) => {
            let (x, y) = (crate::eval::json_funcs::to_json(a), crate::eval::json_funcs::to_json(b));
            Some(x.compare(&y))
        }
        (Value::DateTime(x), Value::DateTime(y)) => Some(x.cmp(y)),
        (Value::DateTime(x), Value::Bytes(y)) => match parse_datetime(y) {
            Some(t) => Some(x.cmp(&t)),
            None => Some(x.to_string().as_bytes().cmp(y)),
        },
        (Value::Bytes(_), Value::DateTime(_)) => compare(b, a).map(Ordering::reverse),
        (Value::Int(x), Value::Int(y)) => Some(x.cmp(y)),
        (Value::UInt(x), Value::UInt(y)) => Some(x.cmp(y)),
        _ if is_numeric(a) && is_numeric(b) => {
            let (x, y) = (num(a)?, num(b)?);
            match (x, y) {
                (Num::Int(p), Num::Int(q)) => Some(p.cmp(&q)),
                (Num::Dbl(_), _) | (_, Num::Dbl(_)) => num_f64(x).partial_cmp(&num_f64(y)),
                _ => match (num_dec(x), num_dec(y)) {
                    (Some(p), Some(q)) => Some(super::decimal::cmp(p, q)),
                    _ => num_f64(x).partial_cmp(&num_f64(y)),
                },
            }
        }
        _ => num_f64(num(a)?).partial_cmp(&num_f64(num(b)?)),
    }
}

/// SQL truth of a value; None for NULL.
pub fn truth(v: &Value) -> Option<bool> {
    match v {
        Value::Null => None,
        Value::Int(i) => Some(*i != 0),
        Value::UInt(u) => Some(*u != 0),
        Value::Double(d) => Some(*d != 0.0),
        Value::Decimal(d) => Some(!d.is_zero()),
        Value::Bytes(b) => Some(str_to_f64(b) != 0.0),
        Value::DateTime(_) => Some(true),
        Value::Json(t) => Some(num_f64(json_num(t)) != 0.0),
        Value::Float(f) => Some(*f != 0.0),
        Value::Date(_) => Some(true),
        Value::Time(t) => Some(*t != 0),
    }
}

fn bool_value(b: Option<bool>) -> Value {
    match b {
        None => Value::Null,
        Some(b) => Value::Int(i64::from(b)),
    }
}

/// `text LIKE pattern` with `%`, `_` and `\` escapes, ASCII case-insensitive: the grant
/// tables' database-pattern matcher ([`accounts::wild_case_compare`]), used for the patterns
/// of SHOW ... LIKE; SQL's LIKE follows its operands' collation (`collate::like`).
pub use accounts::wild_case_compare as like;

use crate::eval::collate::compare_in;

/// A value as DOUBLE (STD/VARIANCE's `val_real`): strings by their numeric prefix.
pub(crate) fn num_f64_of(v: &Value) -> f64 {
    num(v).map_or(0.0, num_f64)
}

/// A value as BIGINT UNSIGNED bits (BIT_AND/OR/XOR's `val_uint`): negative integers wrap,
/// fractions round, out-of-range doubles saturate.
pub(crate) fn bits_of(v: &Value) -> u64 {
    match num(v) {
        Some(Num::Int(i)) => i as u64,
        Some(n) => {
            let d = num_f64(n).round();
            if d < 0.0 {
                (d.max(i64::MIN as f64) as i64) as u64
            } else {
                d.min(u64::MAX as f64) as u64
            }
        }
        None => 0,
    }
}

/// JSON_ARRAYAGG's (or, `object`, JSON_OBJECTAGG's) result over a group's values: NULL for
/// no rows; JSON_OBJECTAGG's values are JSON_ARRAY(key, value) pairs, a NULL key is 3158.
pub(crate) fn json_agg(object: bool, vals: Vec<Value>) -> Result<Value> {
    use engine::json::Json;
    if vals.is_empty() {
        return Ok(Value::Null);
    }
    let doc = if object {
        let mut members = Vec::with_capacity(vals.len());
        for v in &vals {
            let Json::Array(mut kv) = json_funcs::to_json(v) else {
                return Err(internal("JSON_OBJECTAGG pair"));
            };
            let value = kv.pop().unwrap_or(Json::Null);
            let key = match kv.pop() {
                None | Some(Json::Null) => {
                    return Err(SqlError::Other {
                        code: 3158,
                        sqlstate: "22032",
                        message: "JSON documents may not contain NULL member names.".into(),
                    })
                }
                Some(Json::Str(s)) => s,
                Some(other) => other.to_string(),
            };
            members.push((key, value));
        }
        Json::object(members)
    } else {
        Json::Array(vals.iter().map(json_funcs::to_json).collect())
    };
    json_funcs::json_value(&doc)
}

/// Text of a value for string functions.
pub fn to_text(v: &Value) -> Vec<u8> {
    match v {
        Value::Bytes(b) | Value::Json(b) => b.clone(),
        v => v.to_string().into_bytes(),
    }
}

/// Evaluates a bound expression against `row`; `aggs` holds the group's aggregate results.
/// Evaluates a bound expression over a row. The recursive cases of chains (`+`, `AND`, `OR`,
/// comparisons, `NOT`, `IS NULL`) stay in this small frame; the rest is out of line
/// (`eval_other`): a tree may be [`crate::depth::MAX_DEPTH`] deep, each level costing this
/// frame on the stack.
pub fn eval(e: &Expr, row: &[Value], aggs: &[Value]) -> Result<Value> {
    Ok(match e {
        Expr::Lit(v) => v.clone(),
        Expr::Col(i) => row.get(*i).cloned().ok_or_else(|| internal("column position"))?,
        Expr::Unary(UnOp::Not, x) => bool_value(truth(&eval(x, row, aggs)?).map(|b| !b)),
        Expr::Binary(BinOp::And, a, b) => {
            let l = truth(&eval(a, row, aggs)?);
            if l == Some(false) {
                return Ok(Value::Int(0));
            }
            let r = truth(&eval(b, row, aggs)?);
            bool_value(match (l, r) {
                (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            })
        }
        Expr::Binary(BinOp::Or, a, b) => {
            let l = truth(&eval(a, row, aggs)?);
            if l == Some(true) {
                return Ok(Value::Int(1));
            }
            let r = truth(&eval(b, row, aggs)?);
            bool_value(match (l, r) {
                (_, Some(true)) => Some(true),
                (Some(false), Some(false)) => Some(false),
                _ => None,
            })
        }
        Expr::Binary(
            op @ (BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::IntDiv | BinOp::Mod),
            a,
            b,
        ) => {
            let l = eval(a, row, aggs)?;
            let r = eval(b, row, aggs)?;
            arith(*op, &l, &r)?
        }
        Expr::Binary(op, a, b) => {
            let l = eval(a, row, aggs)?;
            let r = eval(b, row, aggs)?;
            binary_values(*op, l, r)?
        }
        Expr::IsNull { expr, negated } => {
            Value::Int(i64::from((eval(expr, row, aggs)? == Value::Null) != *negated))
        }
        other => eval_other(other, row, aggs)?,
    })
}

/// A binary operator over its evaluated operands (out of line: see [`eval`]).
#[inline(never)]
fn binary_values(op: BinOp, l: Value, r: Value) -> Result<Value> {
    Ok(match op {
        BinOp::Xor => bool_value(truth(&l).zip(truth(&r)).map(|(l, r)| l != r)),
        BinOp::Eq | BinOp::NotEq | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
            bool_value(compare(&l, &r).map(|o| match op {
                BinOp::Eq => o == Ordering::Equal,
                BinOp::NotEq => o != Ordering::Equal,
                BinOp::Lt => o == Ordering::Less,
                BinOp::Le => o != Ordering::Greater,
                BinOp::Gt => o == Ordering::Greater,
                _ => o != Ordering::Less,
            }))
        }
        BinOp::NullSafeEq => Value::Int(i64::from(match (&l, &r) {
            (Value::Null, Value::Null) => true,
            (Value::Null, _) | (_, Value::Null) => false,
            _ => compare(&l, &r) == Some(Ordering::Equal),
        })),
        BinOp::And | BinOp::Or => {
            let (l, r) = (truth(&l), truth(&r));
            bool_value(match op {
                BinOp::And => match (l, r) {
                    (Some(false), _) | (_, Some(false)) => Some(false),
                    (Some(true), Some(true)) => Some(true),
                    _ => None,
                },
                _ => match (l, r) {
                    (Some(true), _) | (_, Some(true)) => Some(true),
                    (Some(false), Some(false)) => Some(false),
                    _ => None,
                },
            })
        }
        _ => arith(op, &l, &r)?,
    })
}

#[inline(never)]
fn eval_other(e: &Expr, row: &[Value], aggs: &[Value]) -> Result<Value> {
    Ok(match e {
        Expr::Lit(v) => v.clone(),
        Expr::Col(i) => row.get(*i).cloned().ok_or_else(|| internal("column position"))?,
        Expr::Agg(i) => aggs.get(*i).cloned().ok_or_else(|| internal("aggregate position"))?,
        Expr::Unary(UnOp::Neg, x) => match eval(x, row, aggs)? {
            Value::Null => Value::Null,
            Value::Double(d) => Value::Double(-d),
            Value::Decimal(d) => Value::Decimal(-d),
            // `Item_func_neg::int_op`: the result is signed, so an unsigned operand up to
            // 2^63 negates (`-CAST(2 AS UNSIGNED)` is -2); beyond it is 1690.
            Value::UInt(u) if u <= 1 << 63 => Value::Int((-i128::from(u)) as i64),
            v => arith(BinOp::Sub, &Value::Int(0), &v)?,
        },
        Expr::Unary(UnOp::Not, x) => bool_value(truth(&eval(x, row, aggs)?).map(|b| !b)),
        Expr::Binary(op, a, b) => match op {
            BinOp::And => {
                let l = truth(&eval(a, row, aggs)?);
                if l == Some(false) {
                    return Ok(Value::Int(0));
                }
                let r = truth(&eval(b, row, aggs)?);
                bool_value(match (l, r) {
                    (_, Some(false)) => Some(false),
                    (Some(true), Some(true)) => Some(true),
                    _ => None,
                })
            }
            BinOp::Or => {
                let l = truth(&eval(a, row, aggs)?);
                if l == Some(true) {
                    return Ok(Value::Int(1));
                }
                let r = truth(&eval(b, row, aggs)?);
                bool_value(match (l, r) {
                    (_, Some(true)) => Some(true),
                    (Some(false), Some(false)) => Some(false),
                    _ => None,
                })
            }
            BinOp::Xor => {
                let (l, r) = (truth(&eval(a, row, aggs)?), truth(&eval(b, row, aggs)?));
                bool_value(l.zip(r).map(|(l, r)| l != r))
            }
            BinOp::Eq | BinOp::NotEq | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                let (l, r) = (eval(a, row, aggs)?, eval(b, row, aggs)?);
                bool_value(compare(&l, &r).map(|o| match op {
                    BinOp::Eq => o == Ordering::Equal,
                    BinOp::NotEq => o != Ordering::Equal,
                    BinOp::Lt => o == Ordering::Less,
                    BinOp::Le => o != Ordering::Greater,
                    BinOp::Gt => o == Ordering::Greater,
                    _ => o != Ordering::Less,
                }))
            }
            BinOp::NullSafeEq => {
                let (l, r) = (eval(a, row, aggs)?, eval(b, row, aggs)?);
                Value::Int(i64::from(match (&l, &r) {
                    (Value::Null, Value::Null) => true,
                    (Value::Null, _) | (_, Value::Null) => false,
                    _ => compare(&l, &r) == Some(Ordering::Equal),
                }))
            }
            _ => arith(*op, &eval(a, row, aggs)?, &eval(b, row, aggs)?)?,
        },
        Expr::IsNull { expr, negated } => {
            Value::Int(i64::from((eval(expr, row, aggs)? == Value::Null) != *negated))
        }
        Expr::Between { .. } | Expr::InList { .. } | Expr::Like { .. } | Expr::Case { .. } => {
            eval_collated(collation::BINARY, e, row, aggs)?
        }
        Expr::LikeEscape(..) => eval_collated(collation::BINARY, e, row, aggs)?,
        Expr::Collate(x, _) => eval(x, row, aggs)?,
        Expr::Collated(coll, node) => eval_collated(*coll, node, row, aggs)?,
        Expr::Str(f, args) => {
            let vals = args.iter().map(|a| eval(a, row, aggs)).collect::<Result<Vec<_>>>()?;
            crate::eval::strfunc::call(*f, vals, collation::BINARY)?
        }
        Expr::Func(Func::Math(mathfn::MathFn::Rand), args)
            if args.len() == 1 && is_constant(&args[0]) =>
        {
            let seed = eval(&args[0], row, aggs)?;
            mathfn::rand_constant_seed(args.as_ptr() as usize, &seed)
        }
        // BENCHMARK(n, e) evaluates `e` n times (`Item_func_benchmark::val_int`): 0, NULL for
        // a NULL count, 1210 for a negative one.
        Expr::Func(Func::Misc(crate::ast::MiscFn::Benchmark), args) => {
            let n = match args.first() {
                Some(c) => eval(c, row, aggs)?,
                None => Value::Null,
            };
            if n == Value::Null {
                return Ok(Value::Null);
            }
            let n = miscfn::int_arg(&n).unwrap_or(0);
            if !(0..=miscfn::MAX_BENCHMARK).contains(&n) {
                return Err(SqlError::Other {
                    code: 1210,
                    sqlstate: "HY000",
                    message: "Incorrect arguments to benchmark".into(),
                });
            }
            if let Some(x) = args.get(1) {
                for _ in 0..n {
                    eval(x, row, aggs)?;
                }
            }
            Value::Int(0)
        }
        Expr::Func(f, args) => {
            let vals = args.iter().map(|a| eval(a, row, aggs)).collect::<Result<Vec<_>>>()?;
            call(*f, vals)?
        }
        Expr::InsertValue(x) => eval(x, row, aggs)?,
        Expr::Param(_)
        | Expr::Name { .. }
        | Expr::SysVar { .. }
        | Expr::UserVar(_)
        | Expr::AggCall { .. }
        | Expr::GroupConcat(_)
        | Expr::Subquery(_)
        | Expr::Query(_)
        | Expr::OuterRef(_)
        | Expr::Window(_)
        | Expr::Grouping(_)
        | Expr::Default => return Err(internal("unbound expression")),
    })
}

/// Whether an expression has the same value on every row (mysqld's `const_for_execution`
/// as RAND(seed) asks it): literals and operators or functions over them. Bounded by the
/// expression's depth, which binding limited.
fn is_constant(e: &Expr) -> bool {
    match e {
        Expr::Lit(_) => true,
        Expr::Unary(_, x) | Expr::Collate(x, _) | Expr::Collated(_, x) => is_constant(x),
        Expr::Binary(_, a, b) => is_constant(a) && is_constant(b),
        Expr::Func(Func::Math(mathfn::MathFn::Rand), _) => false,
        Expr::Func(_, args) => args.iter().all(is_constant),
        _ => false,
    }
}

/// A node that compares strings, its string comparisons under collation `coll` (the binder's
/// `Expr::Collated`; `binary` for the bare nodes, which compare numbers).
#[inline(never)]
fn eval_collated(coll: u16, e: &Expr, row: &[Value], aggs: &[Value]) -> Result<Value> {
    let cmp = |a: &Value, b: &Value| compare_in(a, b, coll);
    Ok(match e {
        Expr::Binary(op, a, b) => {
            let (l, r) = (eval(a, row, aggs)?, eval(b, row, aggs)?);
            match op {
                BinOp::NullSafeEq => Value::Int(i64::from(match (&l, &r) {
                    (Value::Null, Value::Null) => true,
                    (Value::Null, _) | (_, Value::Null) => false,
                    _ => cmp(&l, &r) == Some(Ordering::Equal),
                })),
                BinOp::Eq | BinOp::NotEq | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                    bool_value(cmp(&l, &r).map(|o| match op {
                        BinOp::Eq => o == Ordering::Equal,
                        BinOp::NotEq => o != Ordering::Equal,
                        BinOp::Lt => o == Ordering::Less,
                        BinOp::Le => o != Ordering::Greater,
                        BinOp::Gt => o == Ordering::Greater,
                        _ => o != Ordering::Less,
                    }))
                }
                _ => binary_values(*op, l, r)?,
            }
        }
        Expr::Between { expr, low, high, negated } => {
            let v = eval(expr, row, aggs)?;
            let lo = cmp(&v, &eval(low, row, aggs)?).map(|o| o != Ordering::Less);
            let hi = cmp(&v, &eval(high, row, aggs)?).map(|o| o != Ordering::Greater);
            let within = match (lo, hi) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            };
            bool_value(within.map(|w| w != *negated))
        }
        Expr::InList { expr, list, negated } => {
            let v = eval(expr, row, aggs)?;
            if v == Value::Null {
                return Ok(Value::Null);
            }
            let mut saw_null = false;
            let mut found = false;
            for item in list {
                match cmp(&v, &eval(item, row, aggs)?) {
                    Some(Ordering::Equal) => {
                        found = true;
                        break;
                    }
                    None => saw_null = true,
                    _ => {}
                }
            }
            if found {
                Value::Int(i64::from(!*negated))
            } else if saw_null {
                Value::Null
            } else {
                Value::Int(i64::from(*negated))
            }
        }
        Expr::Like { .. } => like_value(coll, e, Some(u32::from('\\')), row, aggs)?,
        Expr::LikeEscape(node, c) => {
            let esc = if *c == '\0' { None } else { Some(u32::from(*c)) };
            like_value(coll, node, esc, row, aggs)?
        }
        Expr::Case { operand, whens, otherwise } => {
            let subject = match operand {
                Some(o) => Some(eval(o, row, aggs)?),
                None => None,
            };
            for (w, then) in whens {
                let wv = eval(w, row, aggs)?;
                let hit = match &subject {
                    Some(s) => cmp(s, &wv) == Some(Ordering::Equal),
                    None => truth(&wv) == Some(true),
                };
                if hit {
                    return eval(then, row, aggs);
                }
            }
            match otherwise {
                Some(o) => eval(o, row, aggs)?,
                None => Value::Null,
            }
        }
        Expr::Str(f, args) => {
            let vals = args.iter().map(|a| eval(a, row, aggs)).collect::<Result<Vec<_>>>()?;
            crate::eval::strfunc::call(*f, vals, coll)?
        }
        // GREATEST/LEAST and NULLIF over strings compare under the aggregated collation.
        Expr::Func(Func::Math(m), args) => {
            let vals = args.iter().map(|a| eval(a, row, aggs)).collect::<Result<Vec<_>>>()?;
            mathfn::call(*m, &vals, coll)?
        }
        Expr::Func(Func::More(m), args) => {
            let vals = args.iter().map(|a| eval(a, row, aggs)).collect::<Result<Vec<_>>>()?;
            morefn::call(*m, &vals, coll)?
        }
        Expr::Func(Func::Regex(f), args) => {
            let vals = args.iter().map(|a| eval(a, row, aggs)).collect::<Result<Vec<_>>>()?;
            regexfn::call(*f, &vals, coll)?
        }
        other => eval(other, row, aggs)?,
    })
}

fn like_value(
    coll: u16,
    node: &Expr,
    escape: Option<u32>,
    row: &[Value],
    aggs: &[Value],
) -> Result<Value> {
    let Expr::Like { expr, pattern, negated } = node else {
        return Err(internal("LIKE node"));
    };
    let (v, p) = (eval(expr, row, aggs)?, eval(pattern, row, aggs)?);
    Ok(if v == Value::Null || p == Value::Null {
        Value::Null
    } else {
        Value::Int(i64::from(
            crate::eval::collate::like(coll, &to_text(&v), &to_text(&p), escape) != *negated,
        ))
    })
}

#[inline(never)]
fn call(f: Func, mut a: Vec<Value>) -> Result<Value> {
    let arg = |a: &[Value], i: usize| a.get(i).cloned().unwrap_or(Value::Null);
    Ok(match f {
        Func::Concat => {
            if a.contains(&Value::Null) {
                Value::Null
            } else {
                Value::Bytes(a.iter().flat_map(to_text).collect())
            }
        }
        Func::Length => match arg(&a, 0) {
            Value::Null => Value::Null,
            v => Value::Int(to_text(&v).len() as i64),
        },
        Func::CharLength => match arg(&a, 0) {
            Value::Null => Value::Null,
            v => Value::Int(String::from_utf8_lossy(&to_text(&v)).chars().count() as i64),
        },
        Func::Upper | Func::Lower => match arg(&a, 0) {
            Value::Null => Value::Null,
            v => {
                let s = String::from_utf8_lossy(&to_text(&v)).into_owned();
                // One character for one, as mysqld's case tables (`ß` stays `ß`).
                let s = if f == Func::Upper {
                    collation::to_upper(&s)
                } else {
                    collation::to_lower(&s)
                };
                Value::Bytes(s.into_bytes())
            }
        },
        // `Item_func_abs::int_op`: ABS of BIGINT's minimum is 1690, not an unsigned result.
        Func::Abs => match arg(&a, 0) {
            Value::Int(i) => Value::Int(i.checked_abs().ok_or_else(|| {
                SqlError::ValueOutOfRange { kind: "BIGINT", expr: format!("abs({i})") }
            })?),
            Value::Double(d) => Value::Double(d.abs()),
            Value::Decimal(d) => Value::Decimal(d.abs()),
            Value::Null => Value::Null,
            v @ Value::UInt(_) => v,
            v => Value::Double(num_f64(num(&v).unwrap_or(Num::Dbl(0.0))).abs()),
        },
        Func::Coalesce => a.into_iter().find(|v| *v != Value::Null).unwrap_or(Value::Null),
        Func::IfNull => {
            let first = arg(&a, 0);
            if first == Value::Null {
                arg(&a, 1)
            } else {
                first
            }
        }
        Func::If => {
            if truth(&arg(&a, 0)) == Some(true) {
                arg(&a, 1)
            } else {
                arg(&a, 2)
            }
        }
        // `Item_func_floor`/`Item_func_ceiling`: a DOUBLE (or string) argument gives a
        // DOUBLE, a DECIMAL one an integer, or a DECIMAL when it does not fit BIGINT. A
        // temporal argument is a string to `Item_func_int_val::resolve_type` (its
        // `result_type()` is STRING_RESULT), so its number (`val_real`) as a DOUBLE.
        Func::Floor | Func::Ceil => {
            let floor = f == Func::Floor;
            match arg(&a, 0) {
                Value::Null => Value::Null,
                v @ (Value::Int(_) | Value::UInt(_)) => v,
                v @ (Value::Double(_)
                | Value::Float(_)
                | Value::Bytes(_)
                | Value::DateTime(_)
                | Value::Date(_)
                | Value::Time(_)) => {
                    let d = num_f64(num(&v).unwrap_or(Num::Dbl(0.0)));
                    Value::Double(if floor { d.floor() } else { d.ceil() })
                }
                v => match num(&v) {
                    Some(Num::Dec(d)) => {
                        let t = d.truncate(0).unwrap_or(d);
                        let exact = crate::decimal::cmp(t, d) == Ordering::Equal;
                        let step = match (exact, floor, d.is_negative()) {
                            (false, true, true) => -engine::Mantissa::ONE,
                            (false, false, false) => engine::Mantissa::ONE,
                            _ => engine::Mantissa::ZERO,
                        };
                        let r = Decimal { mantissa: t.mantissa + step, scale: 0 };
                        match r.mantissa_i128().and_then(|i| i64::try_from(i).ok()) {
                            Some(i) => Value::Int(i),
                            None => Value::Decimal(r),
                        }
                    }
                    n => {
                        let d = num_f64(n.unwrap_or(Num::Dbl(0.0)));
                        let r = if floor { d.floor() } else { d.ceil() };
                        int_value(r as i128, &|| format!("{d}"))?
                    }
                },
            }
        }
        // mysqld's `Item_func_pow::val_real`: DOUBLE arithmetic; an infinite or NaN result
        // is 1690.
        Func::Power => match (arg(&a, 0), arg(&a, 1)) {
            (Value::Null, _) | (_, Value::Null) => Value::Null,
            (x, y) => {
                let (x, y) = (
                    num_f64(num(&x).unwrap_or(Num::Dbl(0.0))),
                    num_f64(num(&y).unwrap_or(Num::Dbl(0.0))),
                );
                let r = x.powf(y);
                if !r.is_finite() {
                    return Err(SqlError::Other {
                        code: 1690,
                        sqlstate: "22003",
                        message: format!("DOUBLE value is out of range in 'pow({x},{y})'"),
                    });
                }
                Value::Double(r)
            }
        },
        Func::Bytes(bf) => return crate::eval::json_funcs::eval(bf, a),
        // Negative places keep an integer or DECIMAL exact (`mathfn::round`).
        Func::Round => mathfn::round(&a, false)?,
        Func::Math(m) => mathfn::call(m, &a, collation::BINARY)?,
        Func::More(m) => morefn::call(m, &a, collation::BINARY)?,
        Func::Regex(r) => regexfn::call(r, &a, collation::BINARY)?,
        Func::Misc(m) => miscfn::call(m, &a)?,
        Func::Json(j) => jsonmore::call(j, &a)?,
        Func::CastNum(c) => {
            let v = arg(&a, 0);
            let text = || format!("cast({} as {})", value_text(&v), c.name());
            castnum::cast(c, v.clone(), &text)?
        }
        Func::UnixTimestamp => match a.pop() {
            None => Value::Int(unix_now().0),
            Some(Value::Null) => Value::Null,
            Some(v) => {
                let t = match v {
                    Value::DateTime(t) => Some(t),
                    Value::Bytes(b) => parse_datetime(&b),
                    _ => None,
                };
                match t {
                    Some(t) => Value::Int(unix_of(&t)),
                    None => Value::Int(0),
                }
            }
        },
        Func::GtidSubset => super::gtidfn::subset(&arg(&a, 0), &arg(&a, 1))?,
        Func::GtidSubtract => super::gtidfn::subtract(&arg(&a, 0), &arg(&a, 1))?,
        Func::Time(t) => super::temporal::call(t, &a)?,
        Func::Now
        | Func::WaitForExecutedGtidSet
        | Func::Database
        | Func::Version
        | Func::ConnectionId
        | Func::LastInsertId
        | Func::User
        | Func::CurrentUser => return Err(internal("session function not bound")),
    })
}

// ---- time ------------------------------------------------------------------------------------

/// Seconds and microseconds since the epoch, now.
pub fn unix_now() -> (i64, u32) {
    let d = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    (d.as_secs() as i64, d.subsec_micros())
}

/// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, u8, u8) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u8;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u8;
    (if m <= 2 { yoe + era * 400 + 1 } else { yoe + era * 400 }, m, d)
}

/// The UTC date and time of a Unix timestamp (the server's time zone is UTC).
pub fn datetime_of(secs: i64) -> DateTime {
    let (y, month, day) = civil_from_days(secs.div_euclid(86_400));
    let s = secs.rem_euclid(86_400);
    DateTime {
        year: u16::try_from(y).unwrap_or(0),
        month,
        day,
        hour: (s / 3600) as u8,
        minute: (s / 60 % 60) as u8,
        second: (s % 60) as u8,
        micros: 0,
    }
}

/// Seconds since the epoch of a UTC DATETIME (`UNIX_TIMESTAMP(dt)`).
pub fn unix_of(t: &DateTime) -> i64 {
    days_from_civil(i64::from(t.year), i64::from(t.month), i64::from(t.day)) * 86_400
        + i64::from(t.hour) * 3600
        + i64::from(t.minute) * 60
        + i64::from(t.second)
}

/// Parses `YYYY-MM-DD[( |T)hh:mm:ss[.ffffff]]` or `YYYYMMDD[hhmmss]`.
pub fn parse_datetime(b: &[u8]) -> Option<DateTime> {
    let s = std::str::from_utf8(b).ok()?.trim();
    let digits = |t: &str| -> Option<u32> {
        if t.is_empty() || !t.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        t.parse().ok()
    };
    let t = if s.bytes().all(|c| c.is_ascii_digit()) && (s.len() == 8 || s.len() == 14) {
        let n = |r: std::ops::Range<usize>| digits(&s[r]);
        let (hh, mi, ss) =
            if s.len() == 14 { (n(8..10)?, n(10..12)?, n(12..14)?) } else { (0, 0, 0) };
        DateTime {
            year: n(0..4)? as u16,
            month: n(4..6)? as u8,
            day: n(6..8)? as u8,
            hour: hh as u8,
            minute: mi as u8,
            second: ss as u8,
            micros: 0,
        }
    } else {
        let (date, time) = match s.split_once([' ', 'T']) {
            Some((d, t)) => (d, Some(t.trim())),
            None => (s, None),
        };
        let mut dp = date.split('-');
        let (y, m, d) = (digits(dp.next()?)?, digits(dp.next()?)?, digits(dp.next()?)?);
        if dp.next().is_some() {
            return None;
        }
        let (mut hh, mut mi, mut ss, mut us) = (0, 0, 0, 0);
        if let Some(time) = time {
            let (hms, frac) = match time.split_once('.') {
                Some((a, f)) => (a, Some(f)),
                None => (time, None),
            };
            let mut tp = hms.split(':');
            hh = digits(tp.next()?)?;
            mi = digits(tp.next()?)?;
            ss = match tp.next() {
                Some(x) => digits(x)?,
                None => 0,
            };
            if tp.next().is_some() {
                return None;
            }
            if let Some(f) = frac {
                if f.len() > 6 {
                    return None;
                }
                us = digits(f)? * 10u32.pow(6 - f.len() as u32);
            }
        }
        DateTime {
            year: u16::try_from(y).ok()?,
            month: u8::try_from(m).ok()?,
            day: u8::try_from(d).ok()?,
            hour: u8::try_from(hh).ok()?,
            minute: u8::try_from(mi).ok()?,
            second: u8::try_from(ss).ok()?,
            micros: us,
        }
    };
    t.is_valid().then_some(t)
}

// ---- conversion to a column's type -----------------------------------------------------------

fn value_text(v: &Value) -> String {
    match v {
        Value::Bytes(b) | Value::Json(b) => String::from_utf8_lossy(b).into_owned(),
        v => v.to_string(),
    }
}

/// Converts `v` for storage in `col` (strict mode: a value that does not convert is an error).
/// Range and length checks are the engine's; its errors are mapped with the row number by
/// [`engine_value_error`].
pub fn to_column(v: Value, col: &Column, row: u64) -> Result<Value> {
    let incorrect = |kind: &'static str, v: &Value| SqlError::IncorrectValue {
        kind,
        value: value_text(v),
        column: col.name.clone(),
        row,
    };
    let out_of_range = || SqlError::OutOfRange { column: col.name.clone(), row };
    if v == Value::Null {
        return Ok(v);
    }
    if super::temporal::handles(col.ty) {
        return super::temporal::store(v, col, row);
    }
    if crate::output::bytes_types::is_bytes_type(col.ty) {
        return crate::output::bytes_types::to_column(v, col, row);
    }
    let v = match v {
        // JSON stored in a non-JSON column is its text.
        Value::Json(t) => Value::Bytes(t),
        v => v,
    };
    Ok(match col.ty {
        ColumnType::Integer { .. } => {
            let rounded = |d: f64| -> Result<Value> {
                let r = d.round();
                if (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&r) {
                    Ok(Value::Int(r as i64))
                } else if (0.0..1.844_674_407_370_955_2e19).contains(&r) {
                    Ok(Value::UInt(r as u64))
                } else {
                    Err(out_of_range())
                }
            };
            match &v {
                Value::Int(_) | Value::UInt(_) => v,
                Value::Double(d) => rounded(*d)?,
                Value::Decimal(d) => {
                    let r = d
                        .rescale(0)
                        .ok_or_else(out_of_range)?
                        .mantissa_i128()
                        .ok_or_else(out_of_range)?;
                    int_value(r, &String::new).map_err(|_| out_of_range())?
                }
                Value::Bytes(b) => {
                    let s = String::from_utf8_lossy(b);
                    let t = s.trim();
                    if let Ok(i) = t.parse::<i64>() {
                        Value::Int(i)
                    } else if let Ok(u) = t.parse::<u64>() {
                        Value::UInt(u)
                    } else if let Ok(d) = t.parse::<f64>() {
                        rounded(d)?
                    } else {
                        return Err(incorrect("integer", &v));
                    }
                }
                Value::DateTime(t) => Value::UInt(datetime_number(t)),
                Value::Float(f) => rounded(f64::from(*f))?,
                v @ (Value::Date(_) | Value::Time(_)) => {
                    super::temporal::numeric(v).unwrap_or(Value::Null)
                }
                Value::Null | Value::Json(_) => Value::Null,
            }
        }
        ColumnType::Double => match &v {
            Value::Bytes(b) => {
                let s = String::from_utf8_lossy(b);
                Value::Double(s.trim().parse::<f64>().map_err(|_| incorrect("double", &v))?)
            }
            other => Value::Double(num_f64(num(other).unwrap_or(Num::Dbl(0.0)))),
        },
        ColumnType::Decimal { scale, .. } => match &v {
            Value::Int(_) | Value::UInt(_) | Value::Decimal(_) => v,
            Value::Double(d) => {
                Value::Decimal(f64_to_decimal(*d, scale.max(1)).ok_or_else(out_of_range)?)
            }
            Value::Bytes(b) => {
                let s = String::from_utf8_lossy(b);
                let t = s.trim();
                match Decimal::parse(t) {
                    Some(d) => Value::Decimal(d),
                    None => match t.parse::<f64>() {
                        Ok(d) => Value::Decimal(
                            f64_to_decimal(d, scale.max(1)).ok_or_else(out_of_range)?,
                        ),
                        Err(_) => return Err(incorrect("decimal", &v)),
                    },
                }
            }
            Value::DateTime(t) => Value::UInt(datetime_number(t)),
            Value::Float(f) => Value::Decimal(
                f64_to_decimal(f64::from(*f), scale.max(1)).ok_or_else(out_of_range)?,
            ),
            v @ (Value::Date(_) | Value::Time(_)) => {
                super::temporal::numeric(v).unwrap_or(Value::Null)
            }
            Value::Null | Value::Json(_) => Value::Null,
        },
        ColumnType::Char(_) | ColumnType::VarChar(_) | ColumnType::Text => {
            let v = match v {
                Value::Bytes(_) => v,
                other => Value::Bytes(other.to_string().into_bytes()),
            };
            // The value must be text of the column's character set (strict mode: 1366, as
            // mysqld's `Field_string::store` with `check_string_copy_error`).
            if let Value::Bytes(b) = &v {
                if let Err(e) = check_charset(col.charset(), b) {
                    return Err(SqlError::IncorrectValue {
                        kind: "string",
                        value: e.hex_text(),
                        column: col.name.clone(),
                        row,
                    });
                }
            }
            v
        }
        ColumnType::Binary(_)
        | ColumnType::VarBinary(_)
        | ColumnType::Blob { .. }
        | ColumnType::SizedText { .. }
        | ColumnType::Enum
        | ColumnType::Set
        | ColumnType::Bit(_)
        | ColumnType::Json => crate::output::bytes_types::to_column(v, col, row)?,
        _ => return Err(incorrect("value", &v)),
    })
}

/// Whether UTF-8 text `b` is representable in `cs` (without building the converted copy in
/// the common case: valid utf8mb4).
fn check_charset(
    cs: collation::Charset,
    b: &[u8],
) -> std::result::Result<(), collation::ConvertError> {
    if cs == collation::Charset::Utf8mb4 && std::str::from_utf8(b).is_ok() {
        return Ok(());
    }
    collation::convert_from_utf8(cs, b).map(|_| ())
}

/// An engine value error with MySQL's row-numbered message.
pub fn engine_value_error(e: engine::Error, row: u64, value: impl Fn(&str) -> String) -> SqlError {
    match e {
        engine::Error::OutOfRange { column } => SqlError::OutOfRange { column, row },
        engine::Error::DataTooLong { column } => SqlError::DataTooLong { column, row },
        engine::Error::BadNull { column } => SqlError::BadNull(column),
        engine::Error::WrongValue { column } => {
            SqlError::IncorrectValue { kind: "string", value: value(&column), column, row }
        }
        e => SqlError::Engine(e),
    }
}

/// SUM's and AVG's running total plus `v` (not NULL): integers add up as DECIMAL, as mysqld's
/// `Item_sum_sum` (DECIMAL_RESULT for an integer argument), so a total beyond BIGINT is no
/// error; a total of at most 38 digits adds in i128, the common case.
pub fn sum_add(acc: Value, v: Value) -> crate::error::Result<Value> {
    let int = |v: &Value| match v {
        Value::Int(i) => Some(i128::from(*i)),
        Value::UInt(u) => Some(i128::from(*u)),
        _ => None,
    };
    if let Some(i) = int(&v) {
        match &acc {
            Value::Null => return Ok(Value::Decimal(Decimal::new(i, 0))),
            Value::Decimal(d) if d.scale == 0 => {
                if let Some(m) = d.mantissa_i128().and_then(|m| m.checked_add(i)) {
                    return Ok(Value::Decimal(Decimal::new(m, 0)));
                }
            }
            _ => {}
        }
        let v = Value::Decimal(Decimal::new(i, 0));
        return arith(crate::ast::BinOp::Add, &acc, &v);
    }
    match acc {
        Value::Null => Ok(v),
        acc => arith(crate::ast::BinOp::Add, &acc, &v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_follows_mysql_types() {
        assert_eq!(arith(BinOp::Add, &Value::Int(1), &Value::Int(2)).unwrap(), Value::Int(3));
        // The quotient keeps decimal_div's 9-digit word; sending rounds it to 0.3333.
        let third = arith(BinOp::Div, &Value::Int(1), &Value::Int(3)).unwrap();
        assert_eq!(third.to_string(), "0.333333333");
        assert_eq!(crate::decimal::conform(&third, 4).unwrap().to_string(), "0.3333");
        assert_eq!(arith(BinOp::Div, &Value::Int(1), &Value::Int(0)).unwrap(), Value::Null);
        assert_eq!(
            arith(BinOp::Add, &Value::Bytes(b"1.5".to_vec()), &Value::Int(1)).unwrap(),
            Value::Double(2.5)
        );
        assert_eq!(
            arith(BinOp::Mul, &Value::Int(i64::MAX), &Value::Int(4)).unwrap_err().code(),
            1690
        );
        let d = Value::Decimal(Decimal::parse("1.25").unwrap());
        assert_eq!(arith(BinOp::Add, &d, &Value::Int(1)).unwrap().to_string(), "2.25");
    }

    #[test]
    fn comparisons_and_like() {
        assert_eq!(compare(&Value::Int(2), &Value::Double(2.0)), Some(Ordering::Equal));
        assert_eq!(compare(&Value::Bytes(b"10".to_vec()), &Value::Int(9)), Some(Ordering::Greater));
        assert_eq!(compare(&Value::Null, &Value::Int(1)), None);
        assert!(like(b"binlog_format", b"BINLOG%"));
        assert!(like(b"abc", b"a_c"));
        assert!(!like(b"abc", b"a_d%"));
        assert!(like(b"a%c", b"a\\%c"));
        assert!(like(b"", b"%"));
    }

    #[test]
    fn datetimes_parse_and_convert() {
        let t = parse_datetime(b"2024-02-29 13:14:15.5").unwrap();
        assert_eq!(t.to_string(), "2024-02-29 13:14:15.500000");
        assert!(parse_datetime(b"2024-13-01").is_none());
        assert_eq!(unix_of(&datetime_of(1_700_000_000)), 1_700_000_000);
        assert_eq!(datetime_of(0).to_string(), "1970-01-01 00:00:00");
    }

    #[test]
    fn strict_conversions() {
        let int = Column::new("k", ColumnType::Integer { bytes: 4, unsigned: false });
        assert_eq!(to_column(Value::Bytes(b"0".to_vec()), &int, 1).unwrap(), Value::Int(0));
        assert_eq!(to_column(Value::Double(2.5), &int, 1).unwrap(), Value::Int(3));
        let e = to_column(Value::Bytes(b"abc".to_vec()), &int, 2).unwrap_err();
        assert_eq!(e.code(), 1366);
        assert_eq!(e.to_string(), "Incorrect integer value: 'abc' for column 'k' at row 2");
    }
}
