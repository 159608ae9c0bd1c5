//! Numeric functions and bit operators with mysqld's results (sql/item_func.cc): GREATEST/LEAST
//! (`Item_func_min_max`), ROUND/TRUNCATE (`Item_func_round`), SIGN, MOD, SQRT, the logarithms
//! (`Item_func_ln`, `Item_func_log`, `Item_func_log2`, `Item_func_log10`), EXP, PI, the
//! trigonometric functions, DEGREES/RADIANS (`Item_func_units`), CRC32, CONV/BIN/OCT
//! (`Item_func_conv`), BIT_COUNT and `& | ^ << >> ~` (`Item_func_bit`), RAND (`my_rnd`).
//!
//! Rules kept:
//! - NULL in gives NULL out (GREATEST/LEAST: any NULL argument makes the result NULL).
//! - The logarithms of a non-positive number are NULL with warning 3020 ("Invalid argument for
//!   logarithm", MySQL 8.0; MariaDB gives no warning), SQRT of a negative and ASIN/ACOS
//!   outside [-1, 1] are NULL; EXP, COT(0) and POW overflowing a DOUBLE are error 1690.
//! - GREATEST/LEAST compare as the arguments' aggregated type (`Item_func::aggregate_type`):
//!   all integers as integers, else DOUBLE if any is floating, else DECIMAL if any is; a mix
//!   of strings and numbers compares as strings (MySQL 8.0; MariaDB compares such a mix as
//!   numbers), under the collation the binder aggregated.
//! - ROUND/TRUNCATE keep an integer's or a DECIMAL's exactness, also for negative places
//!   (`ROUND(125.5, -1)` is 130), and round a DOUBLE half to even as `my_double_round` (rint).
//! - Bit operators work on BIGINT UNSIGNED: a negative operand is its two's complement, a
//!   shift by 64 or more is 0.
//!
//! Invariant: CONV builds at most 65 digits (64 bits in base 2 plus a sign), whatever the
//! client passes.

use std::cell::Cell;
use std::cmp::Ordering;

use engine::{Decimal, Mantissa, Value};

use super::{int_value, num, num_f64, str_to_f64, to_text, Num};
use crate::error::{Result, SqlError};

pub use crate::ast::MathFn;

impl MathFn {
    /// The function named `name` with its (min, max) argument counts.
    pub(crate) fn by_name(name: &str) -> Option<(MathFn, usize, usize)> {
        use MathFn::*;
        Some(match name {
            "greatest" => (Greatest, 2, usize::MAX),
            "least" => (Least, 2, usize::MAX),
            "truncate" => (Truncate, 2, 2),
            "sign" => (Sign, 1, 1),
            "mod" => (Mod, 2, 2),
            "sqrt" => (Sqrt, 1, 1),
            "ln" => (Ln, 1, 1),
            "log" => (Log, 1, 2),
            "log2" => (Log2, 1, 1),
            "log10" => (Log10, 1, 1),
            "exp" => (Exp, 1, 1),
            "pi" => (Pi, 0, 0),
            "sin" => (Sin, 1, 1),
            "cos" => (Cos, 1, 1),
            "tan" => (Tan, 1, 1),
            "asin" => (Asin, 1, 1),
            "acos" => (Acos, 1, 1),
            "atan" => (Atan, 1, 2),
            "atan2" => (Atan2, 2, 2),
            "cot" => (Cot, 1, 1),
            "degrees" => (Degrees, 1, 1),
            "radians" => (Radians, 1, 1),
            "crc32" => (Crc32, 1, 1),
            "conv" => (Conv, 3, 3),
            "bin" => (Bin, 1, 1),
            "oct" => (Oct, 1, 1),
            "bit_count" => (BitCount, 1, 1),
            "rand" => (Rand, 0, 1),
            _ => return None,
        })
    }

    /// mysqld's name of the function in messages (`func_name()`).
    pub(crate) fn name(self) -> &'static str {
        use MathFn::*;
        match self {
            Greatest => "greatest",
            Least => "least",
            Truncate => "truncate",
            Sign => "sign",
            Mod => "%",
            Sqrt => "sqrt",
            Ln => "ln",
            Log => "log",
            Log2 => "log2",
            Log10 => "log10",
            Exp => "exp",
            Pi => "pi",
            Sin => "sin",
            Cos => "cos",
            Tan => "tan",
            Asin => "asin",
            Acos => "acos",
            Atan | Atan2 => "atan",
            Cot => "cot",
            Degrees => "degrees",
            Radians => "radians",
            Crc32 => "crc32",
            Conv => "conv",
            Bin => "bin",
            Oct => "oct",
            BitCount => "bit_count",
            BitAnd => "&",
            BitOr => "|",
            BitXor => "^",
            ShiftLeft => "<<",
            ShiftRight => ">>",
            BitNot => "~",
            Rand => "rand",
            EnumIndex | SetBits | BitValue => "+",
        }
    }

    /// Whether the result is BIGINT (UNSIGNED for the bit operators and CRC32).
    pub(crate) fn is_integer(self) -> bool {
        use MathFn::*;
        matches!(
            self,
            Sign | Crc32
                | BitCount
                | BitAnd
                | BitOr
                | BitXor
                | ShiftLeft
                | ShiftRight
                | BitNot
                | EnumIndex
                | SetBits
                | BitValue
        )
    }

    /// Whether the result is a string (CONV, BIN, OCT).
    pub(crate) fn is_string(self) -> bool {
        matches!(self, MathFn::Conv | MathFn::Bin | MathFn::Oct)
    }
}

fn out_of_range(kind: &str, text: String) -> SqlError {
    SqlError::Other {
        code: 1690,
        sqlstate: "22003",
        message: format!("{kind} value is out of range in '{text}'"),
    }
}

fn double(v: &Value) -> Option<f64> {
    num(v).map(num_f64)
}

/// A DOUBLE result: NaN is NULL, infinity is 1690 (`Item_func::check_float_overflow`).
fn real(r: f64, what: &dyn Fn() -> String) -> Result<Value> {
    if r.is_nan() {
        Ok(Value::Null)
    } else if r.is_infinite() {
        Err(out_of_range("DOUBLE", what()))
    } else {
        Ok(Value::Double(r))
    }
}

/// A logarithm's argument check: NULL with warning 3020 when not positive.
fn log_of(x: f64, f: impl Fn(f64) -> f64) -> Value {
    if x <= 0.0 {
        crate::temporal::warn(3020, "Invalid argument for logarithm".into());
        Value::Null
    } else {
        Value::Double(f(x))
    }
}

/// Evaluates `f` over its evaluated arguments; `coll` is the collation GREATEST/LEAST compare
/// strings with (binary when the binder found no string comparison).
pub(crate) fn call(f: MathFn, a: &[Value], coll: u16) -> Result<Value> {
    use MathFn::*;
    let arg = |i: usize| a.get(i).cloned().unwrap_or(Value::Null);
    let show = |i: usize| super::value_text(&arg(i));
    if f != Pi && f != Rand && !matches!(f, Greatest | Least) && arg(0) == Value::Null {
        return Ok(Value::Null);
    }
    let x = || double(&arg(0)).unwrap_or(0.0);
    Ok(match f {
        Greatest | Least => return min_max(f == Greatest, a, coll),
        Truncate | Sign => {
            if f == Sign {
                return Ok(Value::Int(match num(&arg(0)) {
                    Some(Num::Int(i)) => i128::signum(i) as i64,
                    Some(Num::Dec(d)) if d.is_zero() => 0,
                    Some(Num::Dec(d)) => {
                        if d.is_negative() {
                            -1
                        } else {
                            1
                        }
                    }
                    Some(Num::Dbl(d)) if d > 0.0 => 1,
                    Some(Num::Dbl(d)) if d < 0.0 => -1,
                    _ => 0,
                }));
            }
            return round(a, true);
        }
        Mod => super::arith(crate::ast::BinOp::Mod, &arg(0), &arg(1))?,
        Sqrt => {
            let x = x();
            if x < 0.0 {
                Value::Null
            } else {
                Value::Double(x.sqrt())
            }
        }
        Ln => log_of(x(), f64::ln),
        Log if a.len() == 2 => {
            let Some(y) = double(&arg(1)) else { return Ok(Value::Null) };
            let b = x();
            if y <= 0.0 || b <= 1.0 {
                // mysqld: a base <= 1 or a value <= 0 warns (base 1 would divide by 0).
                crate::temporal::warn(3020, "Invalid argument for logarithm".into());
                Value::Null
            } else {
                Value::Double(y.ln() / b.ln())
            }
        }
        Log => log_of(x(), f64::ln),
        Log2 => log_of(x(), f64::log2),
        Log10 => log_of(x(), f64::log10),
        Exp => real(x().exp(), &|| format!("exp({})", show(0)))?,
        Pi => Value::Double(std::f64::consts::PI),
        Sin => Value::Double(x().sin()),
        Cos => Value::Double(x().cos()),
        Tan => real(x().tan(), &|| format!("tan({})", show(0)))?,
        Asin | Acos => {
            let x = x();
            if !(-1.0..=1.0).contains(&x) {
                Value::Null
            } else if f == Asin {
                Value::Double(x.asin())
            } else {
                Value::Double(x.acos())
            }
        }
        Atan if a.len() == 1 => Value::Double(x().atan()),
        Atan | Atan2 => match double(&arg(1)) {
            None => Value::Null,
            Some(y) => Value::Double(x().atan2(y)),
        },
        Cot => {
            let t = x().tan();
            if t == 0.0 {
                return Err(out_of_range("DOUBLE", format!("cot({})", show(0))));
            }
            real(1.0 / t, &|| format!("cot({})", show(0)))?
        }
        Degrees => real(x().to_degrees(), &|| format!("degrees({})", show(0)))?,
        Radians => Value::Double(x().to_radians()),
        Crc32 => Value::UInt(u64::from(crc32fast::hash(&to_text(&arg(0))))),
        Conv => {
            let (Some(from), Some(to)) = (int_arg(&arg(1)), int_arg(&arg(2))) else {
                return Ok(Value::Null);
            };
            conv(&arg(0), from, to)
        }
        Bin => conv(&arg(0), 10, 2),
        Oct => conv(&arg(0), 10, 8),
        BitCount => Value::Int(i64::from(bits(&arg(0)).count_ones())),
        BitAnd | BitOr | BitXor | ShiftLeft | ShiftRight => {
            if arg(1) == Value::Null {
                return Ok(Value::Null);
            }
            let (p, q) = (bits(&arg(0)), bits(&arg(1)));
            Value::UInt(match f {
                BitAnd => p & q,
                BitOr => p | q,
                BitXor => p ^ q,
                ShiftLeft => p.checked_shl(u32::try_from(q).unwrap_or(64)).unwrap_or(0),
                _ => p.checked_shr(u32::try_from(q).unwrap_or(64)).unwrap_or(0),
            })
        }
        BitNot => Value::UInt(!bits(&arg(0))),
        Rand => Value::Double(rand(a.first())),
        EnumIndex | SetBits | BitValue => member_number(f, a),
    })
}

/// An ENUM, SET or BIT value in numeric context (mysqld's `Field_enum::val_int`,
/// `Field_set::val_int`, `Field_bit::val_int`): the 1-based member index (0 for the empty
/// error value), the bitmask of the listed members (bit i for the i-th declared member), the
/// bytes as a big-endian integer. `a` is the value then the column's members.
fn member_number(f: MathFn, a: &[Value]) -> Value {
    // Signed where it fits, so `-e` is -2 (an unsigned operand would make it 1690).
    match member_bits(f, a) {
        Value::UInt(u) => i64::try_from(u).map_or(Value::UInt(u), Value::Int),
        v => v,
    }
}

fn member_bits(f: MathFn, a: &[Value]) -> Value {
    let Some((v, members)) = a.split_first() else { return Value::Null };
    let text = match v {
        Value::Null => return Value::Null,
        Value::Bytes(b) => b.as_slice(),
        other => return other.clone(),
    };
    let is = |m: &Value, t: &[u8]| matches!(m, Value::Bytes(b) if b.eq_ignore_ascii_case(t));
    match f {
        MathFn::EnumIndex => {
            let at = members.iter().position(|m| is(m, text));
            Value::UInt(at.map_or(0, |i| i as u64 + 1))
        }
        MathFn::SetBits => {
            let mut mask = 0u64;
            for part in text.split(|c| *c == b',').filter(|p| !p.is_empty()) {
                if let Some(i) = members.iter().position(|m| is(m, part)) {
                    // A SET has at most 64 members (1097 beyond).
                    mask |= 1u64.checked_shl(i as u32).unwrap_or(0);
                }
            }
            Value::UInt(mask)
        }
        _ => {
            let tail = &text[text.len().saturating_sub(8)..];
            Value::UInt(tail.iter().fold(0u64, |n, b| (n << 8) | u64::from(*b)))
        }
    }
}

/// An integer argument as `val_int` reads it (a number rounded, a string's numeric prefix).
pub(crate) fn int_arg(v: &Value) -> Option<i64> {
    match num(v)? {
        Num::Int(i) => i64::try_from(i).ok().or(Some(if i < 0 { i64::MIN } else { -1 })),
        n => Some(num_f64(n).round() as i64),
    }
}

/// A value as a bit operator's BIGINT UNSIGNED operand (`Item::val_uint`): integers as two's
/// complement, numbers rounded, strings by their numeric prefix (saturated at the type's
/// bounds, as mysqld's conversion).
fn bits(v: &Value) -> u64 {
    match v {
        Value::Bytes(b) => {
            let s = String::from_utf8_lossy(b);
            let t = s.trim_start();
            if let Ok(i) = t.parse::<i64>() {
                return i as u64;
            }
            if let Ok(u) = t.parse::<u64>() {
                return u;
            }
            f64_bits(str_to_f64(b))
        }
        v => match num(v) {
            Some(Num::Int(i)) => i as u64,
            Some(Num::Dec(d)) => match d.rescale(0).and_then(|r| r.mantissa_i128()) {
                Some(i) if i < 0 => i64::try_from(i).map_or(i64::MIN as u64, |i| i as u64),
                Some(i) => u64::try_from(i).unwrap_or(u64::MAX),
                None => {
                    if d.is_negative() {
                        i64::MIN as u64
                    } else {
                        u64::MAX
                    }
                }
            },
            Some(Num::Dbl(d)) => f64_bits(d),
            None => 0,
        },
    }
}

fn f64_bits(d: f64) -> u64 {
    let r = d.round_ties_even();
    if r < 0.0 {
        if r <= i64::MIN as f64 {
            i64::MIN as u64
        } else {
            r as i64 as u64
        }
    } else if r >= u64::MAX as f64 {
        u64::MAX
    } else {
        r as u64
    }
}

/// `CONV(n, from, to)` (`Item_func_conv::val_str`): bases 2..36 by absolute value; a negative
/// `from` reads n as signed, a negative `to` writes the result signed. The digits read are
/// the longest valid prefix; an overflowing number saturates as `my_strntoull`/`my_strntoll`.
fn conv(v: &Value, from: i64, to: i64) -> Value {
    let (fb, tb) = (from.unsigned_abs(), to.unsigned_abs());
    if !(2..=36).contains(&fb) || !(2..=36).contains(&tb) {
        return Value::Null;
    }
    // Item_func_conv::val_str reads its argument's string form in `from`'s base (so a DATE
    // is its year and 1e300 is 1); only hex and bit literals (bound as BIGINT UNSIGNED) are
    // read as numbers (`VARBIN_ITEM`'s val_int).
    let n: u64 = match v {
        Value::Null => return Value::Null,
        v if !matches!(v, Value::UInt(_)) => {
            let text = to_text(v);
            if text.is_empty() {
                // mysqld: an empty string converts to NULL.
                return Value::Null;
            }
            let s = String::from_utf8_lossy(&text);
            let t = s.trim_start();
            let (neg, digits) = match t.as_bytes().first() {
                Some(b'-') => (true, &t[1..]),
                Some(b'+') => (false, &t[1..]),
                _ => (false, t),
            };
            let mut acc: u64 = 0;
            let mut overflow = false;
            for c in digits.chars() {
                let Some(d) = c.to_digit(36).filter(|d| u64::from(*d) < fb) else { break };
                match acc.checked_mul(fb).and_then(|x| x.checked_add(u64::from(d))) {
                    Some(x) => acc = x,
                    None => {
                        overflow = true;
                        break;
                    }
                }
            }
            if from < 0 {
                // Signed read: saturate at BIGINT's bounds.
                let i: i64 = if overflow || acc > i64::MAX as u64 + u64::from(neg) {
                    if neg {
                        i64::MIN
                    } else {
                        i64::MAX
                    }
                } else if neg {
                    (acc as i64).wrapping_neg()
                } else {
                    acc as i64
                };
                i as u64
            } else if overflow {
                u64::MAX
            } else if neg {
                acc.wrapping_neg()
            } else {
                acc
            }
        }
        v => match num(v) {
            Some(Num::Int(i)) => i as i64 as u64,
            Some(n) => f64_bits(num_f64(n).trunc()),
            None => return Value::Null,
        },
    };
    let (neg, mut m) =
        if to < 0 && (n as i64) < 0 { (true, (n as i64).unsigned_abs()) } else { (false, n) };
    let mut digits = Vec::with_capacity(65);
    loop {
        let d = (m % tb) as u32;
        digits.push(char::from_digit(d, 36).unwrap_or('0').to_ascii_uppercase() as u8);
        m /= tb;
        if m == 0 {
            break;
        }
    }
    if neg {
        digits.push(b'-');
    }
    digits.reverse();
    Value::Bytes(digits)
}

/// `GREATEST`/`LEAST` (`Item_func_min_max::val_*`): NULL if any argument is; otherwise the
/// extreme argument by the aggregated comparison type, converted to the result type.
fn min_max(greatest: bool, a: &[Value], coll: u16) -> Result<Value> {
    if a.contains(&Value::Null) {
        return Ok(Value::Null);
    }
    let any_string = a.iter().any(|v| matches!(v, Value::Bytes(_)));
    let all_string = a.iter().all(|v| matches!(v, Value::Bytes(_)));
    let temporal = a.iter().all(|v| matches!(v, Value::DateTime(_) | Value::Date(_)));
    let json = a.iter().any(|v| matches!(v, Value::Json(_)));
    if any_string || json || (!all_string && a.iter().any(|v| matches!(v, Value::Time(_)))) {
        // Strings (a mix with numbers too: MySQL 8.0) compare as strings of the collation.
        let texts: Vec<Vec<u8>> = a.iter().map(to_text).collect();
        let mut best = 0;
        for (i, t) in texts.iter().enumerate().skip(1) {
            let o = super::collate::cmp_text(coll, t, &texts[best]);
            if (greatest && o == Ordering::Greater) || (!greatest && o == Ordering::Less) {
                best = i;
            }
        }
        return Ok(Value::Bytes(texts[best].clone()));
    }
    if temporal {
        let mut best = 0;
        for (i, v) in a.iter().enumerate().skip(1) {
            let o = super::compare(v, &a[best]).unwrap_or(Ordering::Equal);
            if (greatest && o == Ordering::Greater) || (!greatest && o == Ordering::Less) {
                best = i;
            }
        }
        return Ok(a[best].clone());
    }
    let nums: Vec<Num> = a.iter().map(|v| num(v).unwrap_or(Num::Int(0))).collect();
    let dbl = nums.iter().any(|n| matches!(n, Num::Dbl(_)));
    let dec = nums.iter().any(|n| matches!(n, Num::Dec(_)));
    let mut best = 0;
    for (i, n) in nums.iter().enumerate().skip(1) {
        let o = match (*n, nums[best]) {
            (Num::Int(p), Num::Int(q)) => p.cmp(&q),
            (p, q) if dbl => num_f64(p).partial_cmp(&num_f64(q)).unwrap_or(Ordering::Equal),
            (p, q) => match (super::num_dec(p), super::num_dec(q)) {
                (Some(p), Some(q)) => crate::decimal::cmp(p, q),
                _ => Ordering::Equal,
            },
        };
        if (greatest && o == Ordering::Greater) || (!greatest && o == Ordering::Less) {
            best = i;
        }
    }
    Ok(if dbl {
        Value::Double(num_f64(nums[best]))
    } else if dec {
        // The result has the arguments' largest scale (`decimals` of the item).
        let scale = nums
            .iter()
            .map(|n| match n {
                Num::Dec(d) => d.scale,
                _ => 0,
            })
            .max()
            .unwrap_or(0);
        super::num_dec(nums[best])
            .and_then(|d| d.rescale(scale.max(d.scale)))
            .map_or(Value::Null, Value::Decimal)
    } else {
        // All integers: BIGINT UNSIGNED only if every argument is unsigned.
        match &a[best] {
            Value::UInt(_) | Value::Int(_) => a[best].clone(),
            _ => int_value(
                match nums[best] {
                    Num::Int(i) => i,
                    _ => 0,
                },
                &String::new,
            )?,
        }
    })
}

/// `ROUND(x[, d])` (`truncate` false) and `TRUNCATE(x, d)` (`Item_func_round::val_*`).
pub(crate) fn round(a: &[Value], truncate: bool) -> Result<Value> {
    let places = match a.get(1) {
        Some(Value::Null) => return Ok(Value::Null),
        None => 0,
        Some(v) => int_arg(v).unwrap_or(0),
    };
    let x = match a.first().cloned().unwrap_or(Value::Null) {
        // A temporal is a string to `Item_func_round::resolve_type` (STRING_RESULT, its
        // decimals the fsp): the result is a DOUBLE rounded from its number (`real_op`).
        v @ (Value::DateTime(_) | Value::Date(_) | Value::Time(_)) => {
            num(&v).map_or(Value::Null, |n| Value::Double(num_f64(n)))
        }
        v => v,
    };
    Ok(match num(&x) {
        None => Value::Null,
        Some(Num::Int(i)) => {
            if places >= 0 {
                return Ok(x_int(&x, i));
            }
            let p = places.unsigned_abs();
            if p > 38 {
                return Ok(Value::Int(0));
            }
            let m = 10i128.pow(p as u32);
            let q = i / m;
            let r = i % m;
            let q = if !truncate && r.abs() * 2 >= m { q + r.signum() } else { q };
            let v = q.checked_mul(m).unwrap_or(0);
            match x {
                Value::UInt(_) => {
                    u64::try_from(v).map(Value::UInt).map_err(|_| out_of_range_round(&x, places))?
                }
                _ => int_value(v, &|| format!("round({x},{places})"))?,
            }
        }
        Some(Num::Dec(d)) => Value::Decimal(
            round_decimal(d, places, truncate).ok_or_else(|| out_of_range_round(&x, places))?,
        ),
        Some(Num::Dbl(d)) => {
            let r = round_double(d, places, truncate);
            if r.is_finite() {
                Value::Double(r)
            } else {
                return Err(out_of_range_round(&x, places));
            }
        }
    })
}

fn x_int(x: &Value, i: i128) -> Value {
    match x {
        Value::Int(_) | Value::UInt(_) => x.clone(),
        _ => i64::try_from(i).map_or(Value::Null, Value::Int),
    }
}

fn out_of_range_round(x: &Value, places: i64) -> SqlError {
    out_of_range("DECIMAL", format!("round({x},{places})"))
}

/// A DECIMAL at `places` fraction digits (negative: tens, hundreds...), rounded half away from
/// zero or truncated; the result's scale is `max(places, 0)`, at most 30 (mysqld's
/// `Item_func_round::resolve_type`: `decimals = min(places, DECIMAL_MAX_SCALE)`).
fn round_decimal(d: Decimal, places: i64, truncate: bool) -> Option<Decimal> {
    if places >= 0 {
        let s = u8::try_from(places.min(i64::from(Decimal::MAX_SCALE))).unwrap_or(d.scale);
        return if truncate { d.truncate(s) } else { d.rescale(s) };
    }
    let p = u32::try_from(places.unsigned_abs()).unwrap_or(u32::MAX);
    let shift = u32::from(d.scale).saturating_add(p);
    if shift > 76 {
        return Some(Decimal { mantissa: Mantissa::ZERO, scale: 0 });
    }
    let div = Mantissa::TEN.checked_pow(shift)?;
    let m = d.mantissa;
    let q = m / div;
    let r = (m % div).abs();
    let q = if !truncate && r.checked_mul(Mantissa::TWO)? >= div { q + m.signum() } else { q };
    let unit = Mantissa::TEN.checked_pow(p)?;
    Some(Decimal { mantissa: q.checked_mul(unit)?, scale: 0 })
}

/// `my_double_round`: rint (half to even) of x·10^d, or toward zero for TRUNCATE; large
/// `d` leave x as it is, large negative `d` give 0.
pub(crate) fn round_double(x: f64, places: i64, truncate: bool) -> f64 {
    let abs = places.unsigned_abs();
    if abs > 308 {
        return if places > 0 { x } else { 0.0 };
    }
    let tmp = 10f64.powi(abs as i32);
    let scaled = if places < 0 { x / tmp } else { x * tmp };
    let r = if truncate { scaled.trunc() } else { scaled.round_ties_even() };
    if places >= 0 && !scaled.is_finite() {
        return x;
    }
    if places < 0 {
        r * tmp
    } else {
        r / tmp
    }
}

thread_local! {
    /// RAND()'s generator state (mysqld: `thd->rand`), seeded from the clock once a thread.
    static RAND: Cell<Option<(u64, u64)>> = const { Cell::new(None) };
}

const RAND_MAX: u64 = 0x3FFF_FFFF;

/// `my_rnd`: the next value of the generator in [0, 1).
fn my_rnd(state: &mut (u64, u64)) -> f64 {
    state.0 = (state.0 * 3 + state.1) % RAND_MAX;
    state.1 = (state.0 + state.1 + 33) % RAND_MAX;
    state.0 as f64 / RAND_MAX as f64
}

/// The generator `Item_func_rand::seed_random` starts for `seed`: `randominit(seed *
/// 0x10001 + 55555555, seed * 0x10000001)`, each product taken as mysqld's `uint32` (the
/// seed is `(uint32) val_int()`), then reduced modulo `max_value` (0x3FFFFFFF).
fn seeded(seed: &Value) -> (u64, u64) {
    let s = u64::from(int_arg(seed).unwrap_or(0) as u32);
    let seed1 = u64::from(s.wrapping_mul(0x10001).wrapping_add(55_555_555) as u32);
    let seed2 = u64::from(s.wrapping_mul(0x1000_0001) as u32);
    (seed1 % RAND_MAX, seed2 % RAND_MAX)
}

/// `RAND()` (the thread's generator) or `RAND(seed)` with a seed that changes per row: the
/// first value of a generator seeded as [`seeded`] (mysqld re-seeds per row when the
/// argument is not constant).
fn rand(seed: Option<&Value>) -> f64 {
    if let Some(s) = seed {
        return my_rnd(&mut seeded(s));
    }
    RAND.with(|c| {
        let mut st = c.get().unwrap_or_else(|| {
            let (secs, micros) = super::unix_now();
            let t = (secs as u64).wrapping_mul(1_000_003) ^ u64::from(micros);
            (t % RAND_MAX, (t.rotate_left(17) ^ 0x5DEE_CE66) % RAND_MAX)
        });
        let r = my_rnd(&mut st);
        c.set(Some(st));
        r
    })
}

thread_local! {
    /// The generators of the running statement's `RAND(constant)` items, by item: mysqld
    /// seeds such an item once (`Item_func_rand::val_real` with `args[0]->const_for_execution()`)
    /// and takes the next value of its own generator on every row. Emptied at each statement
    /// start ([`reset_seeded_rand`]); a statement has few RAND items, so a list is enough.
    static SEEDED: std::cell::RefCell<Vec<(usize, (u64, u64))>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Forgets the previous statement's `RAND(constant)` generators.
pub fn reset_seeded_rand() {
    SEEDED.with(|s| s.borrow_mut().clear());
}

/// `RAND(seed)` for a constant seed: the next value of item `item`'s generator (seeded on
/// its first row of the statement). `item` identifies the bound expression node (its
/// address, stable while the statement runs).
pub fn rand_constant_seed(item: usize, seed: &Value) -> Value {
    if *seed == Value::Null {
        // `(uint32) val_int()` of NULL is 0.
        return rand_constant_seed(item, &Value::Int(0));
    }
    SEEDED.with(|s| {
        let mut list = s.borrow_mut();
        let at = match list.iter().position(|(i, _)| *i == item) {
            Some(at) => at,
            None => {
                list.push((item, seeded(seed)));
                list.len() - 1
            }
        };
        Value::Double(my_rnd(&mut list[at].1))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enum_set_bit_in_numeric_context() {
        let b = |s: &str| Value::Bytes(s.as_bytes().to_vec());
        let members = [b("a"), b("b"), b("c")];
        let call_with = |f, v: Value| {
            let mut args = vec![v];
            args.extend(members.iter().cloned());
            call(f, &args, 63).unwrap()
        };
        assert_eq!(call_with(MathFn::EnumIndex, b("b")), Value::Int(2));
        assert_eq!(call_with(MathFn::EnumIndex, b("")), Value::Int(0));
        assert_eq!(call_with(MathFn::EnumIndex, Value::Null), Value::Null);
        assert_eq!(call_with(MathFn::SetBits, b("a,c")), Value::Int(5));
        assert_eq!(call_with(MathFn::SetBits, b("")), Value::Int(0));
        assert_eq!(
            call(MathFn::BitValue, &[Value::Bytes(vec![0, 10])], 63).unwrap(),
            Value::Int(10)
        );
        let top = Value::Bytes(vec![0xFF; 8]);
        assert_eq!(call(MathFn::BitValue, &[top], 63).unwrap(), Value::UInt(u64::MAX));
    }

    #[test]
    fn rand_seeds_as_mysqld() {
        // MySQL 8.0 and MariaDB: RAND(1) = 0.40540353712197724, RAND(3) = 0.9057697559760601.
        assert_eq!(rand(Some(&Value::Int(1))), 0.40540353712197724);
        assert_eq!(rand(Some(&Value::Int(3))), 0.9057697559760601);
        // A seed whose products pass 32 bits wraps as mysqld's uint32.
        let big = Value::Int(100_000);
        let s = seeded(&big);
        assert_eq!(
            s.0,
            u64::from(100_000u64.wrapping_mul(0x10001).wrapping_add(55_555_555) as u32) % RAND_MAX
        );
        // A constant seed continues its generator from row to row.
        reset_seeded_rand();
        let first = rand_constant_seed(7, &Value::Int(1));
        let second = rand_constant_seed(7, &Value::Int(1));
        assert_eq!(first, Value::Double(0.40540353712197724));
        assert_ne!(first, second);
        let mut st = seeded(&Value::Int(1));
        my_rnd(&mut st);
        assert_eq!(second, Value::Double(my_rnd(&mut st)));
        reset_seeded_rand();
        assert_eq!(rand_constant_seed(7, &Value::Int(1)), first);
    }

    fn d(s: &str) -> Value {
        Value::Decimal(Decimal::parse(s).unwrap())
    }

    #[test]
    fn round_and_truncate_keep_exactness() {
        let r = |a: &[Value], t| round(a, t).unwrap().to_string();
        assert_eq!(r(&[d("125.5"), Value::Int(-1)], false), "130");
        assert_eq!(r(&[d("-125.5"), Value::Int(-1)], false), "-130");
        assert_eq!(r(&[d("125.5"), Value::Int(-1)], true), "120");
        assert_eq!(r(&[d("1.2345"), Value::Int(2)], false), "1.23");
        assert_eq!(r(&[d("1.5"), Value::Int(3)], false), "1.500");
        assert_eq!(r(&[Value::Int(125), Value::Int(-1)], false), "130");
        assert_eq!(r(&[Value::Int(-125), Value::Int(-2)], true), "-100");
        assert_eq!(r(&[Value::Double(2.5), Value::Int(0)], false), "2");
        assert_eq!(r(&[Value::Double(1.999), Value::Int(2)], true), "1.99");
    }

    #[test]
    fn conv_bases_and_signs() {
        let c = |v: Value, f, t| conv(&v, f, t).to_string();
        assert_eq!(c(Value::Bytes(b"a".to_vec()), 16, 2), "1010");
        assert_eq!(c(Value::Bytes(b"6E".to_vec()), 18, 8), "172");
        assert_eq!(c(Value::Int(-17), 10, -18), "-H");
        assert_eq!(c(Value::Int(-1), 10, 16), "FFFFFFFFFFFFFFFF");
        assert_eq!(c(Value::Bytes(b"zz".to_vec()), 37, 10), "NULL");
    }

    #[test]
    fn greatest_least_types() {
        let g = |a: &[Value]| min_max(true, a, collation::BINARY).unwrap();
        assert_eq!(g(&[Value::Int(1), Value::Int(3)]), Value::Int(3));
        assert_eq!(g(&[Value::Int(1), Value::Double(2.5)]), Value::Double(2.5));
        // A DECIMAL result takes the largest scale of the arguments (mysqld: 3.0).
        assert_eq!(g(&[Value::Int(3), d("2.5")]).to_string(), "3.0");
        // MySQL 8.0: a string among numbers compares as strings ('9' > '10').
        assert_eq!(g(&[Value::Int(10), Value::Bytes(b"9".to_vec())]), Value::Bytes(b"9".to_vec()));
        assert_eq!(g(&[Value::Int(1), Value::Null]), Value::Null);
    }
}
