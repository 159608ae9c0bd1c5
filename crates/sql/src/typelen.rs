//! Display lengths, decimals and signedness of derived expressions, as mysqld's items compute
//! them when they resolve their types (`Item::max_length`, `decimals`, `unsigned_flag`):
//! arithmetic (`Item_func_additive_op::result_precision`, `Item_func_mul::result_precision`,
//! `Item_func_div::result_precision`, `Item_func_div_int::result_precision`,
//! `Item_func_mod::result_precision`, `Item_func_neg::fix_num_length_and_dec`, all in
//! sql/item_func.cc), CONCAT (`Item_func_concat::resolve_type`: the sum of its arguments'
//! character lengths), and the functions that merge their arguments' types (IFNULL, COALESCE,
//! IF, CASE: `Item_func::aggregate_type` and `Item::aggregate_decimal_properties`).
//!
//! Why here: the result column a client sees (`column_length`, `decimals`, UNSIGNED) is these
//! numbers; `SELECT id + 1` on an INT column is 12 wide in mysqld and MariaDB. The rules need
//! each operand's precision, so they recurse over the bound expression (bounded: binding
//! already limited the expression's depth, `depth.rs`).
//!
//! Invariants: lengths are in characters (the caller multiplies text by mbmaxlen); a
//! precision never exceeds 65 (DECIMAL_MAX_PRECISION) nor a scale 30 (DECIMAL_MAX_SCALE).
//! `None` means "not derived here": the caller keeps its defaults.

use engine::{ColumnType, TableSchema, Value};

use super::ast::{BinOp, Expr, Func, UnOp};

const DECIMAL_MAX_PRECISION: u32 = 65;
const DECIMAL_MAX_SCALE: u32 = 30;
/// The statement's `div_precision_increment`.
fn div_precision_increment() -> u32 {
    u32::from(super::decimal::div_precision_increment())
}
/// MY_INT64_NUM_DECIMAL_DIGITS.
const INT64_DIGITS: u32 = 21;

/// What kind of values an expression has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Int,
    Decimal,
    Str,
}

/// An item's `max_length` (characters), `decimals` and `unsigned_flag`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shape {
    pub(crate) kind: Kind,
    pub(crate) len: u32,
    pub(crate) dec: u32,
    pub(crate) unsigned: bool,
    /// A literal's own precision (`Item_int::decimal_precision`: its digits;
    /// `Item_decimal`: the value's), where it is not the one its length implies.
    literal_precision: Option<u32>,
}

impl Shape {
    fn int(len: u32, unsigned: bool) -> Shape {
        Shape { kind: Kind::Int, len, dec: 0, unsigned, literal_precision: None }
    }

    /// A shape with no literal precision (for callers outside this module).
    pub(crate) fn plain(kind: Kind, len: u32, dec: u32, unsigned: bool) -> Shape {
        Shape::new(kind, len, dec, unsigned)
    }

    fn new(kind: Kind, len: u32, dec: u32, unsigned: bool) -> Shape {
        Shape { kind, len, dec, unsigned, literal_precision: None }
    }

    /// `Item::decimal_precision` of an integer or DECIMAL item
    /// (`my_decimal_length_to_precision` of its length).
    fn precision(&self) -> u32 {
        if let Some(p) = self.literal_precision {
            return p.min(DECIMAL_MAX_PRECISION);
        }
        let p = self
            .len
            .saturating_sub(u32::from(self.dec > 0))
            .saturating_sub(u32::from(!self.unsigned && self.len > 0));
        p.min(DECIMAL_MAX_PRECISION)
    }
}

/// `my_decimal_precision_to_length_no_truncation`.
fn precision_to_length(precision: u32, scale: u32, unsigned: bool) -> u32 {
    precision + u32::from(scale > 0) + u32::from(!unsigned && precision > 0)
}

/// The integer display length of a column (`Field::field_length`): its declared display
/// width, else the type's.
fn integer_length(bytes: u8, unsigned: bool, width: u8) -> u32 {
    if width > 0 {
        return u32::from(width);
    }
    // mysqld's default display widths (`Field_tiny` .. `Field_longlong` field_length):
    // MEDIUMINT is 9 wide signed, one more than its digits and sign.
    match (bytes, unsigned) {
        (1, false) => 4,
        (1, true) => 3,
        (2, false) => 6,
        (2, true) => 5,
        (3, false) => 9,
        (3, true) => 8,
        (4, false) => 11,
        (4, true) => 10,
        _ => 20,
    }
}

/// The shape of a bound expression (see the module doc); `schema` resolves columns.
pub(crate) fn shape(e: &Expr, schema: Option<&TableSchema>) -> Option<Shape> {
    let s = |x: &Expr| shape(x, schema);
    match e {
        Expr::Col(i) => {
            let c = schema?.columns.get(*i)?;
            match c.ty {
                ColumnType::Integer { bytes, unsigned } => {
                    Some(Shape::int(integer_length(bytes, unsigned, c.display_width), unsigned))
                }
                ColumnType::Decimal { precision, scale } => Some(Shape::new(
                    Kind::Decimal,
                    precision_to_length(u32::from(precision), u32::from(scale), false),
                    u32::from(scale),
                    false,
                )),
                ColumnType::Char(n) | ColumnType::VarChar(n) => {
                    Some(Shape::new(Kind::Str, n, 0, false))
                }
                ColumnType::Year => Some(Shape::int(4, true)),
                _ => None,
            }
        }
        Expr::Lit(v) => match v {
            // Item_int: the digits and a minus sign; Item_uint beyond BIGINT.
            Value::Int(i) => {
                let len = i.to_string().len() as u32;
                let digits = len - u32::from(*i < 0);
                Some(Shape { literal_precision: Some(digits), ..Shape::int(len, false) })
            }
            Value::UInt(u) => Some(Shape::int(u.to_string().len() as u32, true)),
            Value::Decimal(d) => {
                let digits = d.mantissa.unsigned_abs().to_string().len() as u32;
                let scale = u32::from(d.scale);
                let precision = digits.max(scale + 1);
                Some(Shape {
                    literal_precision: Some(digits.max(scale)),
                    ..Shape::new(
                        Kind::Decimal,
                        precision_to_length(precision, scale, false),
                        scale,
                        false,
                    )
                })
            }
            Value::Bytes(b) => Some(Shape::new(
                Kind::Str,
                String::from_utf8_lossy(b).chars().count() as u32,
                0,
                false,
            )),
            _ => None,
        },
        Expr::Collate(x, _) | Expr::Collated(_, x) => s(x),
        Expr::Unary(UnOp::Neg, x) => {
            let a = s(x)?;
            if a.kind == Kind::Str {
                return None;
            }
            let len = (a.len + u32::from(a.unsigned)).max(2);
            Some(Shape::new(a.kind, len, a.dec, false))
        }
        Expr::Binary(op, a, b) => arithmetic(*op, s(a)?, s(b)?),
        Expr::Func(Func::Concat, args) => {
            let mut len = 0u32;
            for a in args {
                len = len.saturating_add(s(a)?.len);
            }
            Some(Shape::new(Kind::Str, len, 0, false))
        }
        Expr::Func(Func::IfNull | Func::Coalesce, args) => merge(args.iter().map(s)),
        Expr::Func(Func::If, args) => merge(args.iter().skip(1).map(s)),
        Expr::Case { whens, otherwise, .. } => {
            merge(whens.iter().map(|(_, x)| s(x)).chain(otherwise.iter().map(|x| s(x))))
        }
        _ => None,
    }
}

/// `Item_num_op::set_numeric_type` + the operator's `result_precision` for integer and
/// DECIMAL operands (strings and floating point make a DOUBLE, whose width the caller has).
fn arithmetic(op: BinOp, a: Shape, b: Shape) -> Option<Shape> {
    if a.kind == Kind::Str || b.kind == Kind::Str {
        return None;
    }
    let int = a.kind == Kind::Int && b.kind == Kind::Int;
    let kind = if int && op != BinOp::Div { Kind::Int } else { Kind::Decimal };
    // Integer operations keep unsigned_flag if one argument is unsigned; DECIMAL needs both.
    let unsigned =
        if kind == Kind::Int { a.unsigned | b.unsigned } else { a.unsigned & b.unsigned };
    Some(match op {
        BinOp::Add | BinOp::Sub => {
            let dec = a.dec.max(b.dec);
            let int_part = (a.precision() - a.dec.min(a.precision()))
                .max(b.precision() - b.dec.min(b.precision()));
            let precision = int_part + 1 + dec;
            Shape {
                kind,
                len: precision_to_length(precision, dec, unsigned),
                dec,
                unsigned,
                literal_precision: None,
            }
        }
        BinOp::Mul => {
            let dec = (a.dec + b.dec).min(DECIMAL_MAX_SCALE);
            let precision = (a.precision() + b.precision()).min(DECIMAL_MAX_PRECISION);
            Shape {
                kind,
                len: precision_to_length(precision, dec, unsigned),
                dec,
                unsigned,
                literal_precision: None,
            }
        }
        BinOp::Div => {
            let precision =
                (a.precision() + b.dec + div_precision_increment()).min(DECIMAL_MAX_PRECISION);
            let dec = (a.dec + div_precision_increment()).min(DECIMAL_MAX_SCALE);
            Shape {
                kind,
                len: precision_to_length(precision, dec, unsigned),
                dec,
                unsigned,
                literal_precision: None,
            }
        }
        BinOp::IntDiv => {
            let unsigned = a.unsigned | b.unsigned;
            let precision = (a.precision() - a.dec.min(a.precision()) + b.dec).min(INT64_DIGITS);
            Shape::int(precision_to_length(precision, 0, unsigned), unsigned)
        }
        BinOp::Mod => {
            // Item_func_mod::resolve_type: the dividend's signedness.
            let unsigned = a.unsigned;
            let dec = a.dec.max(b.dec);
            let precision = a.precision().max(b.precision());
            let mut len = precision_to_length(precision, dec, unsigned);
            if !a.unsigned && b.unsigned && a.len <= b.len && b.dec == b.precision() {
                len += 1;
            }
            Shape { kind, len, dec, unsigned, literal_precision: None }
        }
        _ => return None,
    })
}

/// The merged shape of IFNULL/COALESCE/IF/CASE results: integers and DECIMALs keep the widest
/// integer part and scale (`Item::aggregate_decimal_properties`: precision = max integer digits
/// + max scale, unsigned only if all are), strings the longest (`aggregate_string_properties`).
fn merge(shapes: impl Iterator<Item = Option<Shape>>) -> Option<Shape> {
    let shapes: Vec<Shape> = shapes.collect::<Option<Vec<_>>>()?;
    let first = *shapes.first()?;
    if shapes.iter().all(|s| s.kind == Kind::Str) {
        let len = shapes.iter().map(|s| s.len).max().unwrap_or(0);
        return Some(Shape::new(Kind::Str, len, 0, false));
    }
    if shapes.iter().any(|s| s.kind == Kind::Str) {
        return None;
    }
    let unsigned = shapes.iter().all(|s| s.unsigned);
    let dec = shapes.iter().map(|s| s.dec).max().unwrap_or(0).min(DECIMAL_MAX_SCALE);
    let int_part =
        shapes.iter().map(|s| s.precision() - s.dec.min(s.precision())).max().unwrap_or(0);
    let precision = (int_part + dec).min(DECIMAL_MAX_PRECISION);
    let kind = if shapes.iter().all(|s| s.kind == Kind::Int) { Kind::Int } else { Kind::Decimal };
    let _ = first;
    Some(Shape::new(kind, precision_to_length(precision, dec, unsigned), dec, unsigned))
}

/// Whether a derived expression can never be NULL (`Item::is_nullable` false): its operands
/// cannot, and the operation adds no NULL (division and modulo do: by zero). mysqld sends
/// NOT_NULL_FLAG for such items.
pub(crate) fn not_null(e: &Expr, schema: Option<&TableSchema>) -> bool {
    let n = |x: &Expr| not_null(x, schema);
    match e {
        Expr::Col(i) => schema.and_then(|s| s.columns.get(*i)).is_some_and(|c| !c.nullable),
        Expr::Lit(v) => *v != Value::Null,
        Expr::Collate(x, _) | Expr::Collated(_, x) | Expr::Unary(UnOp::Neg, x) => n(x),
        Expr::Binary(BinOp::Add | BinOp::Sub | BinOp::Mul, a, b) => n(a) && n(b),
        // CONCAT is NULL past max_allowed_packet: always nullable (MariaDB and MySQL).
        Expr::Func(Func::IfNull | Func::Coalesce, args) => args.iter().any(n),
        Expr::Func(Func::If, args) => args.iter().skip(1).all(n),
        Expr::Case { whens, otherwise: Some(o), .. } => n(o) && whens.iter().all(|(_, x)| n(x)),
        _ => false,
    }
}
