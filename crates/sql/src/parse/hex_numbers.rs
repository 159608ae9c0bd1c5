//! Hex (`0x41`, `X'41'`) and bit (`b'101'`) literals in numeric context.
//!
//! mysqld's `Item_hex_string` (and `Item_bin_string`, its subclass) is a binary string whose
//! `val_int`/`val_real`/`val_decimal` read the last eight bytes as a big-endian unsigned
//! integer: `0x41` is 'A' in `CONCAT(0x41)` and 65 in `0x41 + 0`. binlogd's values carry no
//! such hybrid (a `Value::Bytes` in arithmetic reads as the text's numeric prefix, 0 for
//! 'A'), and adding one would cost every value on the hot path, so the parser decides by
//! context instead: an operand of an arithmetic or bit operator, of unary minus or `~`, or the
//! other side of a comparison with a number literal becomes the integer; everywhere else the
//! literal stays the binary string (so `WHERE uuid_col = X'…'` keeps its key lookup).
//!
//! Limits: a hex literal compared with a numeric column (`int_col = 0x41`) or passed to a
//! numeric function (`ABS(0x41)`) is still the string, read by its text prefix.

use sqlparser::ast as sp;

use engine::Value;

/// The literal's bytes when `e` is a hex or bit literal (through parentheses).
fn literal_bytes(e: &sp::Expr) -> Option<Vec<u8>> {
    match e {
        sp::Expr::Nested(x) => literal_bytes(x),
        sp::Expr::Value(v) => match &v.value {
            sp::Value::HexStringLiteral(h) => super::hex(h),
            sp::Value::SingleQuotedByteStringLiteral(b) => super::bit_literal(b),
            _ => None,
        },
        _ => None,
    }
}

/// `Item_hex_string::val_int`: the last eight bytes, big-endian, unsigned.
pub(super) fn bytes_number(b: &[u8]) -> u64 {
    let tail = &b[b.len().saturating_sub(8)..];
    tail.iter().fold(0u64, |n, byte| (n << 8) | u64::from(*byte))
}

/// The integer a hex or bit literal is in numeric context, `None` for any other expression.
pub(super) fn numeric(e: &sp::Expr) -> Option<Value> {
    literal_bytes(e).map(|b| Value::UInt(bytes_number(&b)))
}

/// Whether `e` is a number literal (`1`, `-2.5`, `1e3`), whose comparison with a hex literal
/// is numeric (`Arg_comparator` compares a string with a number as numbers).
pub(super) fn is_number(e: &sp::Expr) -> bool {
    match e {
        sp::Expr::Nested(x) => is_number(x),
        sp::Expr::UnaryOp { op: sp::UnaryOperator::Minus | sp::UnaryOperator::Plus, expr } => {
            is_number(expr)
        }
        sp::Expr::Value(v) => matches!(v.value, sp::Value::Number(..)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_eight_bytes_big_endian() {
        assert_eq!(bytes_number(b"A"), 65);
        assert_eq!(bytes_number(&[]), 0);
        assert_eq!(bytes_number(&[1, 0]), 256);
        // Nine bytes: the first is dropped, as mysqld's val_int does.
        assert_eq!(bytes_number(&[9, 0, 0, 0, 0, 0, 0, 0, 5]), 5);
        assert_eq!(bytes_number(&[0xFF; 8]), u64::MAX);
    }
}
