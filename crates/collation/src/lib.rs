//! MySQL's character sets and collations: comparison, order-preserving sort keys (weight
//! strings) for the engine's index keys, LIKE matching, case mapping and conversion between
//! the supported character sets.
//!
//! Why a crate of its own: the engine needs a collation's sort key to build index keys (below
//! the SQL layer), and the SQL layer needs the same collation for comparisons, ORDER BY, GROUP
//! BY, DISTINCT and LIKE; both must agree byte for byte, so one implementation serves both.
//!
//! # What comes from a library and what is written here
//!
//! * The UCA 9.0.0 collations (`utf8mb4_0900_ai_ci`, `_as_ci`, `_as_cs`) use ICU4X's `icu_collator` with the root collation (CLDR root = DUCET with CLDR's few
//!   documented changes), alternate handling *non-ignorable* (mysqld's 0900 collations do not
//!   shift punctuation or spaces) and the strength of the collation's levels (primary for
//!   `ai_ci`, secondary for `as_ci`, tertiary for `as_cs`). `icu_collator` was chosen over
//!   `feruca` because it writes sort keys (`write_sort_key_utf8_to`) and sets the strength;
//!   feruca only compares, and always at every level. What differs from mysqld: mysqld's 0900
//!   collations are UCA 9.0.0 DUCET; ICU4X carries a newer Unicode, so characters added since
//!   (and the few places where CLDR root reorders DUCET, e.g. U+FFFE/U+FFFF) may order
//!   differently.
//! * `utf8mb4_unicode_ci` is UCA 4.0.0, too far from CLDR root to approximate with ICU (stroke
//!   letters, `æ`, implicit weights): mysqld's primary weights are data here (`unicode400`).
//! * Written by hand because no library has them (they are mysqld's own, not Unicode's):
//!   `*_general_ci` (mysqld's `my_unicase_default` "sort" table: one 16-bit weight per
//!   character of the BMP, mostly the upper case of the character's base letter as Unicode
//!   had it then; supplementary characters weigh U+FFFD; held as data in `general_table`,
//!   see `general`'s docs for where it comes from and why no rule reproduces it),
//!   `latin1_swedish_ci` (mysqld's `sort_order_latin1`), `ascii_general_ci`, the `_bin`
//!   collations and `binary`, PAD SPACE, the key encoding, LIKE (`my_wildcmp_*`) and the
//!   latin1 (cp1252, as mysqld's latin1) and ascii conversions.
//!
//! # Sort keys
//!
//! [`sort_key`] appends an encoding whose `memcmp` order is [`compare`]'s order and which is
//! self-delimiting (a key component may be followed by more components). NO PAD collations escape the bytes
//! of the weight string (0x00 → 0x00 0xFF, end 0x00 0x01; for `binary` and `*_0900_bin` the
//! weight string is the bytes, so the key is the engine's historical byte encoding). PAD SPACE
//! collations encode each non-space weight with the number of spaces before it (see
//! [`pad`]), so a string compares as if padded with spaces without storing the padding.
//!
//! Invariants (checked by the tests): `compare(a, b) == sort_key(a).cmp(&sort_key(b))` for
//! every supported collation; `compare` is a total order; equal strings under a collation have
//! identical sort keys (so a UNIQUE key refuses 'Alice' and 'ALICE' under `_ci`).

mod charset;
mod general;
mod general_table;
mod like;
mod pad;
mod simple;
mod uca;
mod unicode400;

use std::cmp::Ordering;

pub use charset::{
    convert_from_utf8, convert_to_utf8, decode, encode_lossy, is_valid, Charset, ConvertError,
    CHARSETS,
};
pub use like::like;

/// How a collation compares (the implementation behind an id).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `binary`, `utf8mb4_0900_bin`: the bytes, NO PAD.
    Bytes,
    /// `utf8mb4_bin`, `utf8mb3_bin`, `latin1_bin`, `ascii_bin`: the bytes, PAD SPACE.
    BytesPad,
    /// UCA 9.0.0 at 1 (ai_ci), 2 (as_ci) or 3 (as_cs) levels, NO PAD.
    Uca0900(u8),
    /// `utf8mb4_unicode_ci`, `utf8mb3_unicode_ci` (UCA 4.0.0, primary level), PAD SPACE.
    Unicode,
    /// `utf8mb4_general_ci`, `utf8mb3_general_ci`, PAD SPACE.
    General,
    /// `latin1_swedish_ci`, PAD SPACE (bytes in latin1).
    Latin1Swedish,
    /// `ascii_general_ci`, PAD SPACE.
    AsciiGeneral,
}

/// One collation as `SHOW COLLATION` / `information_schema.COLLATIONS` describe it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Info {
    pub id: u16,
    pub name: &'static str,
    pub charset: Charset,
    pub is_default: bool,
    pub kind: Kind,
    /// `SORTLEN` as mysqld reports it.
    pub sortlen: u8,
}

impl Info {
    /// PAD SPACE (trailing spaces do not count) or NO PAD.
    pub fn pad_space(&self) -> bool {
        !matches!(self.kind, Kind::Bytes | Kind::Uca0900(_))
    }

    /// `Pad_attribute` of SHOW COLLATION.
    pub fn pad_attribute(&self) -> &'static str {
        if self.pad_space() {
            "PAD SPACE"
        } else {
            "NO PAD"
        }
    }

    /// Whether equal strings are equal bytes (after PAD SPACE trimming): `_bin`, `binary`.
    pub fn is_bytewise(&self) -> bool {
        matches!(self.kind, Kind::Bytes | Kind::BytesPad)
    }

    /// Whether LIKE's `_` and the string functions count bytes (the `binary` charset).
    pub fn is_binary(&self) -> bool {
        self.charset == Charset::Binary
    }
}

const fn info(
    id: u16,
    name: &'static str,
    charset: Charset,
    is_default: bool,
    kind: Kind,
    sortlen: u8,
) -> Info {
    Info { id, name, charset, is_default, kind, sortlen }
}

/// The collations binlogd implements (ids as mysqld 8.0's `information_schema.COLLATIONS`).
pub const COLLATIONS: &[Info] = &[
    info(255, "utf8mb4_0900_ai_ci", Charset::Utf8mb4, true, Kind::Uca0900(1), 0),
    info(305, "utf8mb4_0900_as_ci", Charset::Utf8mb4, false, Kind::Uca0900(2), 0),
    info(278, "utf8mb4_0900_as_cs", Charset::Utf8mb4, false, Kind::Uca0900(3), 0),
    info(309, "utf8mb4_0900_bin", Charset::Utf8mb4, false, Kind::Bytes, 1),
    info(46, "utf8mb4_bin", Charset::Utf8mb4, false, Kind::BytesPad, 1),
    info(45, "utf8mb4_general_ci", Charset::Utf8mb4, false, Kind::General, 1),
    info(224, "utf8mb4_unicode_ci", Charset::Utf8mb4, false, Kind::Unicode, 8),
    info(33, "utf8mb3_general_ci", Charset::Utf8mb3, true, Kind::General, 1),
    info(83, "utf8mb3_bin", Charset::Utf8mb3, false, Kind::BytesPad, 1),
    info(192, "utf8mb3_unicode_ci", Charset::Utf8mb3, false, Kind::Unicode, 8),
    info(8, "latin1_swedish_ci", Charset::Latin1, true, Kind::Latin1Swedish, 1),
    info(47, "latin1_bin", Charset::Latin1, false, Kind::BytesPad, 1),
    info(11, "ascii_general_ci", Charset::Ascii, true, Kind::AsciiGeneral, 1),
    info(65, "ascii_bin", Charset::Ascii, false, Kind::BytesPad, 1),
    info(63, "binary", Charset::Binary, true, Kind::Bytes, 1),
];

/// The default collation (`utf8mb4_0900_ai_ci`).
pub const DEFAULT: u16 = 255;
/// The `binary` collation.
pub const BINARY: u16 = 63;
/// `utf8mb4_0900_bin`: the byte order string columns had before collations were kept.
pub const UTF8MB4_0900_BIN: u16 = 309;

/// The collation with id `id`, if binlogd implements it.
pub fn by_id(id: u16) -> Option<&'static Info> {
    COLLATIONS.iter().find(|c| c.id == id)
}

/// The collation named `name` (any case; `utf8_*` is `utf8mb3_*`).
pub fn by_name(name: &str) -> Option<&'static Info> {
    let lower = name.to_ascii_lowercase();
    let lower = match lower.strip_prefix("utf8_") {
        Some(rest) => format!("utf8mb3_{rest}"),
        None => lower,
    };
    COLLATIONS.iter().find(|c| c.name == lower)
}

fn kind_of(id: u16) -> Kind {
    by_id(id).map_or(Kind::Bytes, |c| c.kind)
}

/// Compares two strings (bytes in the collation's character set) as the collation does.
/// An unknown id compares bytes.
pub fn compare(id: u16, a: &[u8], b: &[u8]) -> Ordering {
    match kind_of(id) {
        Kind::Bytes => a.cmp(b),
        Kind::BytesPad => pad::compare_bytes(a, b),
        Kind::Uca0900(level) => uca::compare(level, a, b),
        Kind::Unicode => {
            pad::compare_weights(unicode400::weights(a), unicode400::weights(b), unicode400::SPACE)
        }
        Kind::General => {
            pad::compare_weights(general::weights(a), general::weights(b), u32::from(b' '))
        }
        Kind::Latin1Swedish | Kind::AsciiGeneral => {
            let t = simple::table(kind_of(id));
            pad::compare_weights(
                a.iter().map(|&c| u32::from(t[usize::from(c)])),
                b.iter().map(|&c| u32::from(t[usize::from(c)])),
                u32::from(t[usize::from(b' ')]),
            )
        }
    }
}

/// Whether two strings are equal under the collation.
pub fn equal(id: u16, a: &[u8], b: &[u8]) -> bool {
    compare(id, a, b) == Ordering::Equal
}

/// Compares two strings as mysqld's `strnncoll` does (what FIND_IN_SET uses): like
/// [`compare`] but without PAD SPACE, so trailing spaces count (`'a '` is not `'a'`).
pub fn compare_no_pad(id: u16, a: &[u8], b: &[u8]) -> Ordering {
    match kind_of(id) {
        Kind::Bytes | Kind::BytesPad => a.cmp(b),
        Kind::Uca0900(level) => uca::compare(level, a, b),
        Kind::Unicode => unicode400::weights(a).cmp(unicode400::weights(b)),
        Kind::General => general::weights(a).cmp(general::weights(b)),
        k @ (Kind::Latin1Swedish | Kind::AsciiGeneral) => {
            let t = simple::table(k);
            a.iter().map(|&c| t[usize::from(c)]).cmp(b.iter().map(|&c| t[usize::from(c)]))
        }
    }
}

/// Appends the order-preserving, self-delimiting sort key of `s` (see the module docs).
/// The engine puts a flag byte (1) before it, so its key components never start with 0xFF.
pub fn sort_key(id: u16, s: &[u8], out: &mut Vec<u8>) {
    match kind_of(id) {
        Kind::Bytes => escape_into(s, out),
        Kind::BytesPad => pad::key(s.iter().map(|&c| u32::from(c)), 1, u32::from(b' '), out),
        Kind::Uca0900(level) => {
            let mut k = Vec::with_capacity(s.len() * 2 + 4);
            uca::sort_key(level, s, &mut k);
            escape_into(&k, out);
        }
        Kind::Unicode => pad::key(unicode400::weights(s), 2, unicode400::SPACE, out),
        Kind::General => pad::key(general::weights(s), 2, u32::from(b' '), out),
        Kind::Latin1Swedish | Kind::AsciiGeneral => {
            let t = simple::table(kind_of(id));
            pad::key(
                s.iter().map(|&c| u32::from(t[usize::from(c)])),
                1,
                u32::from(t[usize::from(b' ')]),
                out,
            )
        }
    }
}

/// The sort key of `s` alone.
pub fn sort_key_of(id: u16, s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len() + 2);
    sort_key(id, s, &mut out);
    out
}

/// The byte escaping of NO PAD keys: 0x00 → 0x00 0xFF, then 0x00 0x01, so a string sorts
/// before every longer string it prefixes and the encoding ends unambiguously.
pub fn escape_into(s: &[u8], out: &mut Vec<u8>) {
    out.reserve(s.len() + 2);
    for &c in s {
        out.push(c);
        if c == 0 {
            out.push(0xFF);
        }
    }
    out.extend_from_slice(&[0, 1]);
}

/// Whether two characters (Unicode scalar values, or bytes for the 8-bit character sets) are
/// equal under the collation: what LIKE compares character by character.
pub fn char_equal(id: u16, a: u32, b: u32) -> bool {
    if a == b {
        return true;
    }
    match kind_of(id) {
        Kind::Bytes | Kind::BytesPad => false,
        Kind::Uca0900(level) => uca::char_equal(level, a, b),
        Kind::Unicode => unicode400::char_equal(a, b),
        Kind::General => general::weight(a) == general::weight(b),
        k @ (Kind::Latin1Swedish | Kind::AsciiGeneral) => {
            let t = simple::table(k);
            a < 256 && b < 256 && t[a as usize] == t[b as usize]
        }
    }
}

/// Upper case of a UTF-8 string as mysqld's `UPPER()` (one character for one: `ß` stays).
pub fn to_upper(s: &str) -> String {
    s.chars().map(|c| single(c.to_uppercase(), c)).collect()
}

/// Lower case of a UTF-8 string as mysqld's `LOWER()` (one character for one).
pub fn to_lower(s: &str) -> String {
    s.chars().map(|c| single(c.to_lowercase(), c)).collect()
}

fn single(mut it: impl Iterator<Item = char>, orig: char) -> char {
    match (it.next(), it.next()) {
        (Some(c), None) => c,
        _ => orig,
    }
}

#[cfg(test)]
mod tests;
