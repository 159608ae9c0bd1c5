//! DECIMAL arithmetic with mysqld's result scales (issue 19): `+ - %` at the larger scale,
//! `*` at the sum of the scales (at most 30, rounded half up), `/` keeping mysqld's
//! 9-digit-word quotient (its item's scale is the dividend's plus `div_precision_increment`,
//! applied when the result is sent: [`conform_rows`]), as `Item_func_plus/minus/mul/div::
//! resolve_type` and `decimal_op` do. Products and scaled dividends are
//! formed in 512 bits (`engine::WideMantissa`), so no intermediate overflows; a result whose
//! mantissa does not fit 256 bits (about 76 digits; mysqld's buffer holds 81) is
//! `None`, which the caller reports as 1690 "DECIMAL value is out of range".
//!
//! `div_precision_increment` is read once per statement into a thread-local (the session
//! installs it in `begin_statement`), as mysqld's items read `thd->variables` when they are
//! resolved.
//!
//! Invariants: every `Decimal` returned has `scale <= 30` unless an operand already had more
//! (operands come from literals of at most 65 digits or from columns, scale <= 30) or it is
//! a quotient, whose scale is a multiple of 9 (its words) that may pass 30 until it is
//! sent or stored (both round to the column's scale).

use std::cell::Cell;

use engine::{Decimal, Mantissa, WideMantissa};

thread_local! {
    static DIV_INCREMENT: Cell<u8> = const { Cell::new(4) };
}

/// Installs the statement's `div_precision_increment` (0..=30).
pub fn set_div_precision_increment(n: u8) {
    DIV_INCREMENT.with(|c| c.set(n.min(30)));
}

/// The running statement's `div_precision_increment`.
pub fn div_precision_increment() -> u8 {
    DIV_INCREMENT.with(Cell::get)
}

fn wide(m: Mantissa) -> WideMantissa {
    let mut words = [0u64; 8];
    words[..4].copy_from_slice(m.to_bits().digits());
    if m.is_negative() {
        for w in &mut words[4..] {
            *w = u64::MAX;
        }
    }
    WideMantissa::from_bits(bnum::types::U512::from_digits(words))
}

fn narrow(m: WideMantissa) -> Option<Mantissa> {
    let words = m.to_bits();
    let words = words.digits();
    let fill = if m.is_negative() { u64::MAX } else { 0 };
    if words[4..].iter().any(|w| *w != fill) {
        return None;
    }
    let mut low = [0u64; 4];
    low.copy_from_slice(&words[..4]);
    let n = Mantissa::from_bits(bnum::types::U256::from_digits(low));
    // The sign must survive the narrowing.
    (n.is_negative() == m.is_negative()).then_some(n)
}

fn wide_pow10(n: u32) -> WideMantissa {
    WideMantissa::TEN.pow(n)
}

/// `n / d` rounded half away from zero (d != 0).
fn div_round(n: WideMantissa, d: WideMantissa) -> WideMantissa {
    let q = n / d;
    let r = (n % d).abs();
    if r * WideMantissa::TWO >= d.abs() {
        if n.is_negative() != d.is_negative() {
            q - WideMantissa::ONE
        } else {
            q + WideMantissa::ONE
        }
    } else {
        q
    }
}

/// Rounds `m / 10^from` to `to` fraction digits (to < from), half away from zero.
fn round_wide(m: WideMantissa, from: u8, to: u8) -> WideMantissa {
    div_round(m, wide_pow10(u32::from(from - to)))
}

fn aligned(a: Decimal, b: Decimal) -> Option<(WideMantissa, WideMantissa, u8)> {
    let s = a.scale.max(b.scale);
    let x = wide(a.mantissa).checked_mul(wide_pow10(u32::from(s - a.scale)))?;
    let y = wide(b.mantissa).checked_mul(wide_pow10(u32::from(s - b.scale)))?;
    Some((x, y, s))
}

fn out(m: WideMantissa, scale: u8) -> Option<Decimal> {
    Some(Decimal { mantissa: narrow(m)?, scale })
}

/// `a + b`.
pub fn add(a: Decimal, b: Decimal) -> Option<Decimal> {
    let (x, y, s) = aligned(a, b)?;
    out(x + y, s)
}

/// `a - b`.
pub fn sub(a: Decimal, b: Decimal) -> Option<Decimal> {
    let (x, y, s) = aligned(a, b)?;
    out(x - y, s)
}

/// `a % b` (b != 0): the remainder has the dividend's sign, at the larger scale.
pub fn rem(a: Decimal, b: Decimal) -> Option<Decimal> {
    let (x, y, s) = aligned(a, b)?;
    out(x % y, s)
}

/// `a DIV b` (b != 0): the quotient truncated toward zero, as an integer mantissa.
pub fn int_div(a: Decimal, b: Decimal) -> Option<Mantissa> {
    let (x, y, _) = aligned(a, b)?;
    narrow(x / y)
}

/// `a * b`: scale `s1 + s2`, rounded to 30 beyond it.
pub fn mul(a: Decimal, b: Decimal) -> Option<Decimal> {
    let m = wide(a.mantissa) * wide(b.mantissa);
    let s = u32::from(a.scale) + u32::from(b.scale);
    let max = u32::from(Decimal::MAX_SCALE);
    if s > max {
        out(round_wide(m, s as u8, Decimal::MAX_SCALE), Decimal::MAX_SCALE)
    } else {
        out(m, s as u8)
    }
}

/// `a / b` (b != 0), as mysqld's `decimal_div`: the quotient cut (toward zero) to whole
/// 9-digit words of fraction, `ROUND_UP(f1 + f2 + incr)` with each operand's fraction counted
/// in whole words and the increment reduced by the digits those words add, and at least the
/// item's scale `s1 + div_precision_increment` (at most 30). The quotient is NOT rounded to
/// the item's scale here: `Item_func_div::decimal_op` returns the word-cut value, which the
/// next operation uses as is (`1/7*7` is 0.999999994 inside, `1.0000` once sent), and only
/// sending the result (`Protocol_text::store_decimal` via [`conform`]) or reading it as text
/// (`Item_func_numhybrid::val_str`) rounds it to the item's `decimals` (see [`div_scale`]).
/// A quotient whose word-cut mantissa does not fit 256 bits is rounded to the item's scale.
pub fn div(a: Decimal, b: Decimal) -> Option<Decimal> {
    let incr = div_precision_increment();
    let scale = div_scale(a.scale);
    let words = |s: u8| u32::from(s).div_ceil(9) * 9;
    let (f1, f2) = (words(a.scale), words(b.scale));
    let pad = (f1 - u32::from(a.scale)) + (f2 - u32::from(b.scale));
    let incr = u32::from(incr).saturating_sub(pad);
    let cut = (f1 + f2 + incr).div_ceil(9) * 9;
    let cut = cut.max(u32::from(scale));
    // a / b = ma * 10^(sb + cut - sa) / mb / 10^cut
    let shift = i64::from(b.scale) + i64::from(cut) - i64::from(a.scale);
    let (n, d) = if shift >= 0 {
        (wide(a.mantissa).checked_mul(wide_pow10(shift as u32))?, wide(b.mantissa))
    } else {
        (wide(a.mantissa), wide(b.mantissa).checked_mul(wide_pow10((-shift) as u32))?)
    };
    let q = n / d;
    let cut = u8::try_from(cut).ok()?;
    out(q, cut).or_else(|| if cut > scale { out(round_wide(q, cut, scale), scale) } else { None })
}

/// The scale of a quotient item (`Item_func_div::result_precision`): the dividend's plus
/// `div_precision_increment`, at most 30 and at least the dividend's.
pub fn div_scale(dividend_scale: u8) -> u8 {
    dividend_scale
        .saturating_add(div_precision_increment())
        .min(Decimal::MAX_SCALE)
        .max(dividend_scale)
}

/// A value sent (or read as text) for an item of type DECIMAL with `decimals` fraction
/// digits: rounded half up, or padded with zeros, to exactly that scale
/// (`my_decimal2string` with the item's `decimals`, as `Protocol_text::store_decimal` and
/// `Item_func_numhybrid::val_str` do): `IFNULL(1, 2.5)` sends `1.0`, `1/7*7` sends `1.0000`.
/// An integer becomes the DECIMAL it is in that item; other values are left as they are.
/// `None` when the value does not fit (only a scale beyond 76 digits could).
pub fn conform(v: &engine::Value, decimals: u8) -> Option<engine::Value> {
    use engine::Value;
    let decimals = decimals.min(Decimal::MAX_SCALE);
    let d = match v {
        Value::Decimal(d) if d.scale == decimals => return None,
        Value::Decimal(d) => *d,
        Value::Int(i) => Decimal::new(i128::from(*i), 0),
        Value::UInt(u) => Decimal::new(i128::from(*u), 0),
        _ => return None,
    };
    d.rescale(decimals).map(Value::Decimal)
}

/// Rounds or pads every value of the DECIMAL columns of a result set to the column's
/// `decimals` ([`conform`]). Costs nothing for a result without DECIMAL columns (the
/// sysbench statements).
pub fn conform_rows(columns: &[crate::output::ResultColumn], rows: &mut [Vec<engine::Value>]) {
    let decimal: Vec<(usize, u8)> = columns
        .iter()
        .enumerate()
        .filter(|(_, c)| c.mysql_type == crate::output::MysqlType::NewDecimal)
        .map(|(i, c)| (i, c.decimals))
        .collect();
    if decimal.is_empty() {
        return;
    }
    for row in rows {
        for &(i, dec) in &decimal {
            if let Some(slot) = row.get_mut(i) {
                if let Some(v) = conform(slot, dec) {
                    *slot = v;
                }
            }
        }
    }
}

/// `a` against `b`, exactly.
pub fn cmp(a: Decimal, b: Decimal) -> std::cmp::Ordering {
    match aligned(a, b) {
        Some((x, y, _)) => x.cmp(&y),
        None => a.to_f64().total_cmp(&b.to_f64()),
    }
}

/// The precision (all digits) of a value, at least 1.
pub fn precision(d: Decimal) -> u32 {
    let m = d.mantissa.unsigned_abs();
    let digits = if m.is_zero() { 1 } else { m.ilog10() + 1 };
    digits.max(u32::from(d.scale) + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Decimal {
        Decimal::parse(s).unwrap()
    }

    #[test]
    fn wide_values_add_multiply_and_divide() {
        let big = d("99999999999999999999999999999999999.999999999999999999999999999999");
        assert_eq!(
            add(big, d("0.000000000000000000000000000001")).unwrap().to_string(),
            "100000000000000000000000000000000000.000000000000000000000000000000"
        );
        assert_eq!(sub(d("-1.5"), big).unwrap().to_string().len(), 68);
        assert_eq!(mul(d("1.5"), d("-2.25")).unwrap().to_string(), "-3.375");
        // 31 fraction digits round to 30.
        let m = mul(d("0.0000000000000001"), d("0.000000000000005")).unwrap();
        assert_eq!(m.to_string(), "0.000000000000000000000000000001");
        // The quotient keeps its 9-digit words; sending rounds it to the item's scale.
        let sent = |v: Option<Decimal>, scale: u8| {
            conform(&engine::Value::Decimal(v.unwrap()), scale)
                .unwrap_or(engine::Value::Decimal(v.unwrap()))
                .to_string()
        };
        set_div_precision_increment(4);
        assert_eq!(div(d("1"), d("3")).unwrap().to_string(), "0.333333333");
        assert_eq!(sent(div(d("1"), d("3")), div_scale(0)), "0.3333");
        assert_eq!(sent(div(d("-2"), d("3")), div_scale(0)), "-0.6667");
        set_div_precision_increment(10);
        assert_eq!(sent(div(d("1.00"), d("3")), div_scale(2)), "0.333333333333");
        set_div_precision_increment(0);
        assert_eq!(sent(div(d("2"), d("3")), div_scale(0)), "0");
        assert_eq!(sent(div(d("1.5"), d("2")), div_scale(1)), "0.8");
        set_div_precision_increment(4);
        // mysqld's 1/7*7: the unrounded quotient times 7, 1.0000 once sent at scale 4.
        let product = mul(div(d("1"), d("7")).unwrap(), d("7")).unwrap();
        assert_eq!(product.to_string(), "0.999999994");
        assert_eq!(sent(Some(product), 4), "1.0000");
        let third = div(d("1"), d("3")).unwrap();
        assert_eq!(sent(mul(third, d("3")), 4), "1.0000");
        assert_eq!(
            sent(add(div(d("1"), d("7")).unwrap(), div(d("1"), d("7")).unwrap()), 4),
            "0.2857"
        );
        // Padding to the item's scale: IFNULL(1, 2.5) sends 1.0.
        assert_eq!(conform(&engine::Value::Int(1), 1).unwrap().to_string(), "1.0");
        assert_eq!(conform(&engine::Value::Decimal(d("2.5")), 2).unwrap().to_string(), "2.50");
        assert_eq!(rem(d("-7.5"), d("2")).unwrap().to_string(), "-1.5");
        assert_eq!(int_div(big, d("0.5")).unwrap().to_string().len(), 36);
        // Beyond 256 bits: None (the caller's 1690).
        let huge = d(&"9".repeat(65));
        assert!(mul(huge, huge).is_none());
        assert_eq!(precision(d("-0.05")), 3);
        assert_eq!(precision(d("123.4")), 4);
    }
}
