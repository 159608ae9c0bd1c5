//! `CAST(x AS SIGNED|UNSIGNED|DECIMAL(M,D)|DOUBLE|FLOAT(p)|REAL)` and the same targets of
//! `CONVERT(x, type)`: mysqld 8.0's `Item_typecast_signed`, `Item_typecast_unsigned`,
//! `Item_typecast_decimal` and `Item_typecast_real` (sql/item_func.cc), and the resolution of
//! the target in `create_func_cast` (sql/item_create.cc).
//!
//! Rules kept (mysqld 8.0's):
//! - SIGNED/UNSIGNED: a number is read as `val_int` reads it: a DECIMAL rounds half away from
//!   zero and stops at the BIGINT range, a DOUBLE rounds half to even (`rint`) and stops at
//!   the BIGINT range (so `CAST(1e300 AS UNSIGNED)` is 9223372036854775807, MariaDB's is
//!   18446744073709551615); a date or time is its `YYYYMMDD[hhmmss]` number, rounded; a
//!   string is its integer prefix (`my_strtoll10`: no fraction, no exponent) with warning
//!   1292 "Truncated incorrect INTEGER value" when more than trailing spaces follow. UNSIGNED
//!   of a negative DECIMAL is the two's complement of the signed value (`my_decimal2int` with
//!   `unsigned_flag = !dec->sign()`; MariaDB answers 0).
//! - DECIMAL(M,D): the value rounded half up to D digits; one beyond M digits is the largest
//!   DECIMAL(M,D) of its sign with warning 1264 (`Item_typecast_decimal::val_decimal`). A
//!   string is read as a decimal number with exponent (`'-7.5e2x'` is -750) and warns 1292
//!   "Truncated incorrect DECIMAL value" when text is left over. M > 65 is 1426, D > 30 is
//!   1425, M < D is 1427; DECIMAL alone is DECIMAL(10,0), DECIMAL(M) is DECIMAL(M,0).
//! - DOUBLE/REAL/FLOAT(25..53): `val_real` (a string's numeric prefix, warning 1292
//!   "Truncated incorrect DOUBLE value"); FLOAT/FLOAT(0..24) is single precision, and a value
//!   beyond FLOAT's range is 1690; FLOAT(p > 53) is 1426. REAL is DOUBLE unless sql_mode has
//!   REAL_AS_FLOAT.
//!
//! Invariant: the string readers look at each byte once; no recursion.

use engine::{Decimal, Mantissa, Value};

use super::{json_num, Num};
use crate::error::{Result, SqlError};

pub use crate::ast::CastNum;

impl CastNum {
    /// The target `t` names, or None when it is not a numeric type. `arg` is the cast
    /// argument's text for the messages of 1425/1426.
    pub(crate) fn from_sql(t: &sqlparser::ast::DataType, arg: &str) -> Result<Option<CastNum>> {
        use sqlparser::ast::{DataType as D, ExactNumberInfo as E};
        let too_big_precision = |p: u64, max: u32| SqlError::Other {
            code: 1426,
            sqlstate: "42000",
            message: format!("Too-big precision {p} specified for '{arg}'. Maximum is {max}."),
        };
        Ok(Some(match t {
            D::Signed | D::SignedInteger => CastNum::Signed,
            D::Unsigned | D::UnsignedInteger => CastNum::Unsigned,
            D::Decimal(info) | D::Dec(info) | D::Numeric(info) => {
                let (p, s) = match *info {
                    E::None => (10, 0),
                    E::Precision(p) => (p, 0),
                    E::PrecisionAndScale(p, s) => (p, u64::try_from(s).unwrap_or(u64::MAX)),
                };
                if p > u64::from(Decimal::MAX_PRECISION) {
                    return Err(too_big_precision(p, Decimal::MAX_PRECISION));
                }
                if s > u64::from(Decimal::MAX_SCALE) {
                    return Err(SqlError::Other {
                        code: 1425,
                        sqlstate: "42000",
                        message: format!(
                            "Too big scale {s} specified for '{arg}'. Maximum is {}.",
                            Decimal::MAX_SCALE
                        ),
                    });
                }
                if p < s {
                    return Err(SqlError::Other {
                        code: 1427,
                        sqlstate: "42000",
                        message: "For float(M,D), double(M,D) or decimal(M,D), M must be >= D \
                                  (column '')."
                            .into(),
                    });
                }
                // DECIMAL(0) is DECIMAL(1) in mysqld (a precision of at least one digit).
                CastNum::Decimal { precision: p.max(1) as u8, scale: s as u8 }
            }
            D::Double(E::None) | D::DoublePrecision | D::Float8 | D::Float64 => CastNum::Double,
            D::Real if crate::temporal::real_as_float() => CastNum::Float,
            D::Real => CastNum::Double,
            D::Float(E::None) | D::Float4 => CastNum::Float,
            D::Float(E::Precision(p)) if *p <= 24 => CastNum::Float,
            D::Float(E::Precision(p)) if *p <= 53 => CastNum::Double,
            D::Float(E::Precision(p)) => return Err(too_big_precision(*p, 53)),
            _ => return Ok(None),
        }))
    }

    /// The SQL text of the target (for messages and SHOW output).
    pub(crate) fn name(self) -> String {
        match self {
            CastNum::Signed => "signed".into(),
            CastNum::Unsigned => "unsigned".into(),
            CastNum::Decimal { precision, scale } => format!("decimal({precision},{scale})"),
            CastNum::Double => "double".into(),
            CastNum::Float => "float".into(),
        }
    }
}

/// `CAST(v AS to)`; `text` renders the call for the messages of 1264/1690.
pub(crate) fn cast(to: CastNum, v: Value, text: &dyn Fn() -> String) -> Result<Value> {
    if v == Value::Null {
        return Ok(Value::Null);
    }
    Ok(match to {
        CastNum::Signed => Value::Int(int_bits(&v, false)),
        CastNum::Unsigned => Value::UInt(int_bits(&v, true) as u64),
        CastNum::Decimal { precision, scale } => {
            Value::Decimal(to_decimal(&v, precision, scale, text))
        }
        CastNum::Double => Value::Double(real(&v)),
        CastNum::Float => {
            let d = real(&v);
            if d.abs() > f64::from(f32::MAX) {
                return Err(SqlError::Other {
                    code: 1690,
                    sqlstate: "22003",
                    message: format!("FLOAT value is out of range in '{}'", text()),
                });
            }
            Value::Float(d as f32)
        }
    })
}

/// `val_int` of a DOUBLE: rint, stopping at the BIGINT range (`Item_float::val_int`).
fn double_int(d: f64) -> i64 {
    if d.is_nan() {
        0
    } else if d <= i64::MIN as f64 {
        i64::MIN
    } else if d >= 9_223_372_036_854_775_807.0 {
        i64::MAX
    } else {
        d.round_ties_even() as i64
    }
}

/// A DECIMAL rounded half up to an integer: the BIGINT (or, when `unsigned` and not negative,
/// BIGINT UNSIGNED) bits, stopping at the range (`my_decimal2int`).
fn decimal_int(d: Decimal, unsigned: bool) -> i64 {
    let r = d.rescale(0).and_then(Decimal::mantissa_i128);
    match r {
        Some(i) if unsigned && !d.is_negative() => u64::try_from(i).unwrap_or(u64::MAX) as i64,
        Some(i) => i64::try_from(i).unwrap_or(if i < 0 { i64::MIN } else { i64::MAX }),
        None if unsigned && !d.is_negative() => u64::MAX as i64,
        None if d.is_negative() => i64::MIN,
        None => i64::MAX,
    }
}

/// The integer bits `CAST(v AS SIGNED|UNSIGNED)` gives (reinterpreted by the caller).
fn int_bits(v: &Value, unsigned: bool) -> i64 {
    match v {
        Value::Null => 0,
        Value::Int(i) => *i,
        Value::UInt(u) => *u as i64,
        Value::Double(d) => double_int(*d),
        Value::Float(f) => double_int(f64::from(*f)),
        Value::Decimal(d) => decimal_int(*d, unsigned),
        Value::Bytes(b) => string_int(b),
        Value::Json(t) => match json_num(t) {
            Num::Int(i) => i64::try_from(i).unwrap_or(i as u64 as i64),
            Num::Dec(d) => decimal_int(d, unsigned),
            Num::Dbl(d) => double_int(d),
        },
        Value::DateTime(_) | Value::Date(_) | Value::Time(_) => match crate::temporal::numeric(v) {
            Some(Value::Int(i)) => i,
            Some(Value::Decimal(d)) => decimal_int(d, false),
            _ => 0,
        },
    }
}

/// Where the digits of a numeric prefix start (after leading spaces and one sign), and
/// whether the sign was `-`.
fn sign_prefix(b: &[u8]) -> (usize, bool) {
    let i = b.iter().take_while(|c| c.is_ascii_whitespace()).count();
    match b.get(i) {
        Some(b'-') => (i + 1, true),
        Some(b'+') => (i + 1, false),
        _ => (i, false),
    }
}

/// `my_strtoll10` over a string: leading spaces, a sign, digits; a value beyond 64 bits stops
/// at i64::MIN (negative) or u64::MAX (positive). Warns 1292 unless only spaces follow the
/// digits (`longlong_from_string_with_check`).
fn string_int(b: &[u8]) -> i64 {
    let (mut i, negative) = sign_prefix(b);
    let start = i;
    let mut n: u128 = 0;
    let mut overflow = false;
    while i < b.len() && b[i].is_ascii_digit() {
        n = n * 10 + u128::from(b[i] - b'0');
        if n > u128::from(u64::MAX) {
            overflow = true;
            n = u128::from(u64::MAX) + 1;
        }
        i += 1;
    }
    let clean = i > start && !overflow && b[i..].iter().all(u8::is_ascii_whitespace);
    if !clean {
        crate::temporal::warn(
            1292,
            format!("Truncated incorrect INTEGER value: '{}'", String::from_utf8_lossy(b)),
        );
    }
    if negative {
        if n > 1u128 << 63 {
            i64::MIN
        } else {
            (n as i128).wrapping_neg() as i64
        }
    } else if n > u128::from(u64::MAX) {
        u64::MAX as i64
    } else {
        n as u64 as i64
    }
}

/// `val_real`: a string's numeric prefix with warning 1292 when text is left over (and the
/// largest DOUBLE for one beyond the range, as `my_strtod`).
fn real(v: &Value) -> f64 {
    match v {
        Value::Bytes(b) => {
            let (d, clean) = match decimal_prefix(b) {
                Some((_, clean)) => (super::str_to_f64(b), clean),
                None => (0.0, false),
            };
            if !clean {
                crate::temporal::warn(
                    1292,
                    format!("Truncated incorrect DOUBLE value: '{}'", String::from_utf8_lossy(b)),
                );
            }
            if d.is_infinite() {
                f64::MAX.copysign(d)
            } else {
                d
            }
        }
        other => super::num_f64_of(other),
    }
}

/// The digits of a numeric prefix `[spaces][sign]digits[.digits][e[sign]digits]` as a
/// decimal (None when there are no digits, or they do not fit 76 digits), and whether only
/// spaces follow it.
fn decimal_prefix(b: &[u8]) -> Option<(Option<Decimal>, bool)> {
    let (mut i, negative) = sign_prefix(b);
    let mut digits = String::new();
    let mut scale: i64 = 0;
    let mut any = false;
    while i < b.len() && b[i].is_ascii_digit() {
        digits.push(char::from(b[i]));
        any = true;
        i += 1;
    }
    if b.get(i) == Some(&b'.') {
        let mut j = i + 1;
        while j < b.len() && b[j].is_ascii_digit() {
            digits.push(char::from(b[j]));
            scale += 1;
            j += 1;
        }
        if any || j > i + 1 {
            any = true;
            i = j;
        }
    }
    if !any {
        return None;
    }
    // An exponent counts only with at least one digit after it.
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        let neg_exp = b.get(j) == Some(&b'-');
        if matches!(b.get(j), Some(b'-' | b'+')) {
            j += 1;
        }
        let exp_start = j;
        let mut exp: i64 = 0;
        while j < b.len() && b[j].is_ascii_digit() {
            exp = (exp * 10 + i64::from(b[j] - b'0')).min(100_000);
            j += 1;
        }
        if j > exp_start {
            scale -= if neg_exp { -exp } else { exp };
            i = j;
        }
    }
    let clean = b[i..].iter().all(u8::is_ascii_whitespace);
    let trimmed = digits.trim_start_matches('0');
    let value = if trimmed.is_empty() {
        Some(Decimal::new(0, 0))
    } else if scale < 0 {
        // A positive exponent past the fraction: append zeros (bounded by 76 digits).
        let zeros = usize::try_from(-scale).ok().filter(|z| trimmed.len() + z <= 76);
        zeros.and_then(|z| Decimal::parse(&format!("{trimmed}{}", "0".repeat(z))))
    } else {
        let scale = u8::try_from(scale).ok().filter(|s| *s <= 76);
        // Keep at most 76 digits: drop fraction digits beyond (the value is rounded to 30
        // fraction digits at most by the caller anyway).
        scale.and_then(|s| {
            let keep = trimmed.len().min(76);
            let cut = trimmed.len() - keep;
            let s = s.checked_sub(u8::try_from(cut).ok()?)?;
            let m = Decimal::parse(&trimmed[..keep])?;
            Some(Decimal { mantissa: m.mantissa, scale: s })
        })
    };
    let value =
        value.map(|d| if negative { Decimal { mantissa: -d.mantissa, scale: d.scale } } else { d });
    Some((value, clean))
}

/// The largest DECIMAL(precision, scale) (negated for a negative value).
fn max_decimal(precision: u8, scale: u8, negative: bool) -> Decimal {
    let m = engine::pow10(u32::from(precision)) - Mantissa::ONE;
    Decimal { mantissa: if negative { -m } else { m }, scale }
}

/// `Item_typecast_decimal::val_decimal`: the value at `scale` digits, or the largest of its
/// sign with warning 1264 when its integral part needs more than `precision - scale` digits.
fn to_decimal(v: &Value, precision: u8, scale: u8, text: &dyn Fn() -> String) -> Decimal {
    let overflow = |negative: bool| {
        crate::temporal::warn(1264, format!("Out of range value for column '{}' at row 1", text()));
        max_decimal(precision, scale, negative)
    };
    let d: Option<Decimal> = match v {
        Value::Int(i) => Some(Decimal::new(i128::from(*i), 0)),
        Value::UInt(u) => Some(Decimal::new(i128::from(*u), 0)),
        Value::Decimal(d) => Some(*d),
        Value::Double(_) | Value::Float(_) => {
            let d = super::num_f64_of(v);
            match super::f64_to_decimal(d, Decimal::MAX_SCALE) {
                Some(x) => Some(x),
                None => return overflow(d < 0.0),
            }
        }
        Value::Bytes(b) => {
            let (d, clean) = decimal_prefix(b).unwrap_or((Some(Decimal::new(0, 0)), false));
            if !clean {
                crate::temporal::warn(
                    1292,
                    format!("Truncated incorrect DECIMAL value: '{}'", String::from_utf8_lossy(b)),
                );
            }
            match d {
                Some(x) => Some(x),
                None => {
                    return overflow(b.iter().find(|c| !c.is_ascii_whitespace()) == Some(&b'-'))
                }
            }
        }
        Value::Json(t) => match json_num(t) {
            Num::Int(i) => Some(Decimal::new(i, 0)),
            Num::Dec(d) => Some(d),
            Num::Dbl(d) => super::f64_to_decimal(d, Decimal::MAX_SCALE),
        },
        Value::DateTime(_) | Value::Date(_) | Value::Time(_) => match crate::temporal::numeric(v) {
            Some(Value::Int(i)) => Some(Decimal::new(i128::from(i), 0)),
            Some(Value::Decimal(d)) => Some(d),
            _ => None,
        },
        Value::Null => None,
    };
    let Some(d) = d else { return Decimal::new(0, scale) };
    let negative = d.is_negative();
    let fits = d
        .rescale(scale)
        .filter(|r| r.mantissa.unsigned_abs() < engine::pow10(u32::from(precision)).unsigned_abs());
    fits.unwrap_or_else(|| overflow(negative))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(s: &str) -> Decimal {
        Decimal::parse(s).unwrap()
    }

    #[test]
    fn strings_read_as_mysqld_reads_them() {
        assert_eq!(string_int(b"  12  "), 12);
        assert_eq!(string_int(b"-7.5e2x"), -7);
        assert_eq!(string_int(b"18446744073709551615"), -1);
        assert_eq!(string_int(b"99999999999999999999"), -1);
        assert_eq!(string_int(b"-99999999999999999999"), i64::MIN);
        assert_eq!(decimal_prefix(b"-7.5e2x"), Some((Some(dec("-750")), false)));
        assert_eq!(decimal_prefix(b"192.168.0.1"), Some((Some(dec("192.168")), false)));
        assert_eq!(decimal_prefix(b" 1e "), Some((Some(dec("1")), false)));
        assert_eq!(decimal_prefix(b"abc"), None);
        assert_eq!(decimal_prefix(b".5"), Some((Some(dec("0.5")), true)));
    }

    #[test]
    fn decimal_targets_round_and_clamp() {
        let t = || String::from("x");
        let d = |v: Value, p, s| to_decimal(&v, p, s, &t);
        assert_eq!(d(Value::Decimal(dec("192.168")), 10, 2), dec("192.17"));
        assert_eq!(d(Value::Double(1e300), 10, 2), dec("99999999.99"));
        assert_eq!(d(Value::Int(-9), 1, 0), dec("-9"));
        assert_eq!(d(Value::Int(-10), 1, 0), dec("-9"));
        assert_eq!(d(Value::Decimal(dec("-0.005")), 4, 2), dec("-0.01"));
    }

    #[test]
    fn integers_follow_val_int() {
        assert_eq!(int_bits(&Value::Double(2.5), false), 2);
        assert_eq!(int_bits(&Value::Double(3.5), false), 4);
        assert_eq!(int_bits(&Value::Double(1e300), true), i64::MAX);
        assert_eq!(int_bits(&Value::Decimal(dec("-2.5")), true), -3);
        assert_eq!(int_bits(&Value::Decimal(dec("99999999999999999999999.5")), true), -1);
        assert_eq!(int_bits(&Value::Decimal(dec("2.5")), false), 3);
    }
}
