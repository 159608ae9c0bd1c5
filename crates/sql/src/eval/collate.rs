//! Collations of expressions: each string-valued expression has a collation and a derivation
//! (mysqld's coercibility, `Item::collation` / `DTCollation`), the collation of a comparison
//! is the aggregate of its operands' (`DTCollation::aggregate` with `MY_COLL_CMP_CONV`: the
//! lower derivation wins, a Unicode set is a superset of the others, an ASCII-only operand
//! converts to anything, two different collations of equal derivation fall back to the
//! character set's `_bin` collation with derivation NONE, which comparisons refuse: error 1267,
//! 1270 or 1271 "Illegal mix of collations"), and mysqld's names for the derivations.
//!
//! Values inside the SQL layer are UTF-8; the helpers here compare and key them under a
//! collation of any supported character set (a latin1 or ascii collation's weights are taken
//! from the value converted to that set, lossy characters as `?`, as mysqld converts an operand
//! to the aggregated character set).
//!
//! Invariants: `cmp_text(c, a, b) == sort_key(c, a).cmp(&sort_key(c, b))` (the collation
//! crate's invariant carried through the conversion), so ORDER BY by sort keys, GROUP BY and
//! DISTINCT by keys, and comparisons agree.

use std::cmp::Ordering;

use collation::Charset;
use engine::Value;

use crate::error::{Result, SqlError};

/// mysqld's `Derivation` (lower wins).
pub(crate) const EXPLICIT: u8 = 0;
pub(crate) const NONE: u8 = 1;
pub(crate) const IMPLICIT: u8 = 2;
pub(crate) const SYSCONST: u8 = 3;
pub(crate) const COERCIBLE: u8 = 4;
pub(crate) const NUMERIC: u8 = 5;
pub(crate) const IGNORABLE: u8 = 6;

/// A collation with its derivation; `ascii`: every character is ASCII (mysqld's repertoire).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Dt {
    pub id: u16,
    pub derivation: u8,
    pub ascii: bool,
}

impl Dt {
    pub(crate) fn new(id: u16, derivation: u8, ascii: bool) -> Dt {
        Dt { id, derivation, ascii }
    }

    /// Whether the expression is a character string (not a number, date or NULL).
    pub(crate) fn is_string(self) -> bool {
        self.derivation <= COERCIBLE
    }

    fn charset(self) -> Charset {
        collation::by_id(self.id).map_or(Charset::Binary, |c| c.charset)
    }

    fn name(self) -> &'static str {
        collation::by_id(self.id).map_or("binary", |c| c.name)
    }
}

/// mysqld's name of a derivation in error 1267.
pub(crate) fn derivation_name(d: u8) -> &'static str {
    match d {
        EXPLICIT => "EXPLICIT",
        NONE => "NONE",
        IMPLICIT => "IMPLICIT",
        SYSCONST => "SYSCONST",
        COERCIBLE => "COERCIBLE",
        NUMERIC => "NUMERIC",
        _ => "IGNORABLE",
    }
}

fn is_unicode(cs: Charset) -> bool {
    cs.is_utf8()
}

/// `left_is_superset` of item_func.cc / item.cc.
fn left_is_superset(l: Dt, r: Dt) -> bool {
    let (lc, rc) = (l.charset(), r.charset());
    if is_unicode(lc)
        && (l.derivation < r.derivation
            || (l.derivation == r.derivation
                && (!is_unicode(rc) || (lc == Charset::Utf8mb4 && rc == Charset::Utf8mb3))))
    {
        return true;
    }
    r.ascii && (l.derivation < r.derivation || (l.derivation == r.derivation && !l.ascii))
}

/// The `_bin` collation of a character set (`get_charset_by_csname(..., MY_CS_BINSORT)`).
fn bin_of(cs: Charset) -> u16 {
    match cs {
        Charset::Utf8mb4 => 46,
        Charset::Utf8mb3 => 83,
        Charset::Latin1 => 47,
        Charset::Ascii => 65,
        Charset::Binary => 63,
    }
}

fn is_binsort(id: u16) -> bool {
    collation::by_id(id).is_some_and(|c| c.is_bytewise() && c.name.ends_with("bin"))
}

/// `DTCollation::aggregate(dt, MY_COLL_ALLOW_SUPERSET_CONV | MY_COLL_ALLOW_COERCIBLE_CONV)`:
/// Err(()) when no conversion applies.
fn aggregate2(a: Dt, b: Dt) -> std::result::Result<Dt, ()> {
    let ascii = a.ascii && b.ascii;
    let out = |mut d: Dt| {
        d.ascii = ascii;
        Ok(d)
    };
    if a.charset() != b.charset() {
        if a.charset() == Charset::Binary {
            return out(if a.derivation <= b.derivation { a } else { b });
        }
        if b.charset() == Charset::Binary {
            return out(if b.derivation <= a.derivation { b } else { a });
        }
        if left_is_superset(a, b) {
            return out(a);
        }
        if left_is_superset(b, a) {
            return out(b);
        }
        if a.derivation < SYSCONST && b.derivation == COERCIBLE {
            return out(a);
        }
        if b.derivation < SYSCONST && a.derivation == COERCIBLE {
            return out(b);
        }
        return Err(());
    }
    if a.derivation < b.derivation {
        return out(a);
    }
    if b.derivation < a.derivation {
        return out(b);
    }
    if a.id == b.id {
        return out(a);
    }
    if a.derivation == EXPLICIT {
        return Err(());
    }
    if is_binsort(a.id) {
        return out(a);
    }
    if is_binsort(b.id) {
        return out(b);
    }
    out(Dt::new(bin_of(a.charset()), NONE, ascii))
}

/// The collation of an operation over `args` (string operands; numbers and NULLs take no
/// part), mysqld's `agg_arg_charsets_for_comparison` when `compare` (derivation NONE is
/// refused), else `agg_arg_charsets_for_string_result`. None when no operand is a string.
pub(crate) fn aggregate(args: &[Dt], op: &str, compare: bool) -> Result<Option<Dt>> {
    let strings: Vec<Dt> = args.iter().copied().filter(|d| d.is_string()).collect();
    let Some(&first) = strings.first() else { return Ok(None) };
    let mut acc = first;
    for &d in &strings[1..] {
        match aggregate2(acc, d) {
            Ok(x) => acc = x,
            Err(()) => return Err(mix_error(&strings, op)),
        }
    }
    if compare && acc.derivation == NONE {
        return Err(mix_error(&strings, op));
    }
    Ok(Some(acc))
}

/// mysqld's `my_coll_agg_error`: 1267 for two operands, 1270 for three, 1271 beyond.
pub(crate) fn mix_error(args: &[Dt], op: &str) -> SqlError {
    let one = |d: &Dt| format!("({},{})", d.name(), derivation_name(d.derivation));
    match args {
        [a, b] => SqlError::Other {
            code: 1267,
            sqlstate: "HY000",
            message: format!(
                "Illegal mix of collations {} and {} for operation '{op}'",
                one(a),
                one(b)
            ),
        },
        [a, b, c] => SqlError::Other {
            code: 1270,
            sqlstate: "HY000",
            message: format!(
                "Illegal mix of collations {}, {}, {} for operation '{op}'",
                one(a),
                one(b),
                one(c)
            ),
        },
        _ => SqlError::Other {
            code: 1271,
            sqlstate: "HY000",
            message: format!("Illegal mix of collations for operation '{op}'"),
        },
    }
}

/// `text` in the character set of collation `id` (UTF-8 for the Unicode sets; unconvertible
/// characters become `?`, as mysqld's `copy_and_convert`).
fn in_charset(id: u16, text: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    match collation::by_id(id).map(|c| c.charset) {
        Some(cs @ (Charset::Latin1 | Charset::Ascii)) if !text.is_ascii() => {
            let s = String::from_utf8_lossy(text);
            let mut out = Vec::with_capacity(text.len());
            for c in s.chars() {
                let mut buf = [0u8; 4];
                match collation::convert_from_utf8(cs, c.encode_utf8(&mut buf).as_bytes()) {
                    Ok(b) => out.extend_from_slice(&b),
                    Err(_) => out.push(b'?'),
                }
            }
            std::borrow::Cow::Owned(out)
        }
        _ => std::borrow::Cow::Borrowed(text),
    }
}

/// Compares two UTF-8 strings under collation `id`.
pub(crate) fn cmp_text(id: u16, a: &[u8], b: &[u8]) -> Ordering {
    collation::compare(id, &in_charset(id, a), &in_charset(id, b))
}

/// Compares UTF-8 strings under collation `id` without PAD SPACE (mysqld's `strnncoll`,
/// which `Item_func_find_in_set::val_int` uses: `FIND_IN_SET('a ', 'a')` is 0).
pub(crate) fn cmp_text_no_pad(id: u16, a: &[u8], b: &[u8]) -> Ordering {
    collation::compare_no_pad(id, &in_charset(id, a), &in_charset(id, b))
}

/// The sort key of a UTF-8 string under collation `id`.
pub(crate) fn sort_key(id: u16, a: &[u8]) -> Vec<u8> {
    collation::sort_key_of(id, &in_charset(id, a))
}

/// `LIKE` of UTF-8 strings under collation `id`.
pub(crate) fn like(id: u16, text: &[u8], pattern: &[u8], escape: Option<u32>) -> bool {
    let cs = collation::by_id(id).map(|c| c.charset);
    let escape = match (cs, escape) {
        (Some(Charset::Latin1 | Charset::Ascii), Some(e)) => {
            let mut buf = [0u8; 4];
            let s = char::from_u32(e).map(|c| c.encode_utf8(&mut buf).as_bytes().to_vec());
            s.map(|s| u32::from(in_charset(id, &s).first().copied().unwrap_or(b'?')))
        }
        (_, e) => e,
    };
    collation::like(id, &in_charset(id, text), &in_charset(id, pattern), escape)
}

/// SQL comparison under collation `id` for two strings; other pairs as [`crate::eval::compare`].
pub(crate) fn compare_in(a: &Value, b: &Value, id: u16) -> Option<Ordering> {
    match (a, b) {
        (Value::Bytes(x), Value::Bytes(y)) => Some(cmp_text(id, x, y)),
        _ => crate::eval::compare(a, b),
    }
}

/// Whether comparing strings under `id` is comparing their bytes (no wrapping needed).
pub(crate) fn is_plain_bytes(id: u16) -> bool {
    matches!(collation::by_id(id).map(|c| c.kind), Some(collation::Kind::Bytes) | None)
}

/// `v` made comparable as bytes under `coll` (a string becomes its sort key), for ORDER BY
/// keys, GROUP BY and DISTINCT.
pub(crate) fn keyed(v: Value, coll: Option<u16>) -> Value {
    match (v, coll) {
        (Value::Bytes(b), Some(c)) if !is_plain_bytes(c) => Value::Bytes(sort_key(c, &b)),
        (v, _) => v,
    }
}

/// The collation named `name`, or mysqld's 1273.
pub(crate) fn by_name(name: &str) -> Result<&'static collation::Info> {
    collation::by_name(name).ok_or_else(|| SqlError::Other {
        code: 1273,
        sqlstate: "HY000",
        message: format!("Unknown collation: '{name}'"),
    })
}

/// The character set named `name`, or mysqld's 1115 (also for sets binlogd does not store).
pub(crate) fn charset_by_name(name: &str) -> Result<Charset> {
    Charset::by_name(name).ok_or_else(|| SqlError::Other {
        code: 1115,
        sqlstate: "42000",
        message: format!("Unknown character set: '{name}'"),
    })
}

/// mysqld's 1253 ER_COLLATION_CHARSET_MISMATCH.
pub(crate) fn mismatch(coll: &str, cs: Charset) -> SqlError {
    SqlError::Other {
        code: 1253,
        sqlstate: "42000",
        message: format!("COLLATION '{coll}' is not valid for CHARACTER SET '{}'", cs.name()),
    }
}

/// Resolves `[CHARACTER SET cs] [COLLATE coll]` against a default collation: the collation,
/// or 1115 / 1273 / 1253 as mysqld.
pub(crate) fn resolve(cs: Option<&str>, coll: Option<&str>, default: u16) -> Result<u16> {
    match (cs, coll) {
        (None, None) => Ok(default),
        (Some(cs), None) => Ok(charset_by_name(cs)?.default_collation()),
        (None, Some(c)) => Ok(by_name(c)?.id),
        (Some(cs), Some(c)) => {
            let cs = charset_by_name(cs)?;
            let c = by_name(c)?;
            if c.charset != cs {
                return Err(mismatch(c.name, cs));
            }
            Ok(c.id)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dt(id: u16, d: u8) -> Dt {
        Dt::new(id, d, false)
    }

    #[test]
    fn aggregation_follows_mysqld() {
        // Column wins over a literal; EXPLICIT over a column.
        assert_eq!(
            aggregate(&[dt(45, IMPLICIT), dt(255, COERCIBLE)], "=", true).unwrap().unwrap().id,
            45
        );
        assert_eq!(
            aggregate(&[dt(45, IMPLICIT), dt(46, EXPLICIT)], "=", true).unwrap().unwrap().id,
            46
        );
        // Two columns of different collations: 1267 for a comparison.
        let e = aggregate(&[dt(45, IMPLICIT), dt(224, IMPLICIT)], "=", true).unwrap_err();
        assert_eq!(e.code(), 1267);
        assert_eq!(
            e.to_string(),
            "Illegal mix of collations (utf8mb4_general_ci,IMPLICIT) and (utf8mb4_unicode_ci,IMPLICIT) for operation '='"
        );
        // ... unless one is a _bin collation.
        assert_eq!(
            aggregate(&[dt(45, IMPLICIT), dt(46, IMPLICIT)], "=", true).unwrap().unwrap().id,
            46
        );
        // Two explicit collations: 1267.
        assert!(aggregate(&[dt(45, EXPLICIT), dt(46, EXPLICIT)], "=", true).is_err());
        // Unicode is a superset of latin1 at equal derivation.
        assert_eq!(
            aggregate(&[dt(8, IMPLICIT), dt(255, IMPLICIT)], "=", true).unwrap().unwrap().id,
            255
        );
        // A latin1 column and a utf8mb4 literal: the column's collation (the literal converts).
        assert_eq!(
            aggregate(&[dt(8, IMPLICIT), dt(255, COERCIBLE)], "=", true).unwrap().unwrap().id,
            8
        );
        // Numbers take no part.
        assert_eq!(aggregate(&[dt(63, NUMERIC), dt(63, NUMERIC)], "=", true).unwrap(), None);
    }

    #[test]
    fn comparisons_in_other_charsets() {
        assert_eq!(cmp_text(8, "Ä".as_bytes(), b"z"), Ordering::Greater);
        assert_eq!(cmp_text(255, "Ä".as_bytes(), b"z"), Ordering::Less);
        assert!(like(8, "Åsa".as_bytes(), b"_sa", Some(92)));
    }
}
