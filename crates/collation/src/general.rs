//! `*_general_ci`: mysqld's `my_strnncollsp_utf8mb4` over `my_unicase_default`'s "sort"
//! weights — one 16-bit weight per BMP character, supplementary characters all weigh U+FFFD
//! (so every emoji is equal to every other under general_ci, as in mysqld).
//!
//! Why a table and not a rule: mysqld's table (MySQL's strings/ctype-utf8.cc,
//! `my_unicase_pages_default`; MariaDB's is the same) was built from the Unicode of its day —
//! mostly the upper case of a letter's base letter, but not for characters or case pairs added
//! later (`ƀ` weighs itself, not `Ƀ`; U+0370..U+0373, U+1EFA..U+1EFF), nor for singleton
//! decompositions (U+037E GREEK QUESTION MARK is not `;`), nor for kana (`が` is not `か`).
//! Deriving it from today's Unicode (NFD base letter, upper-cased) differed from mysqld in
//! Latin Extended-B, Greek, Cyrillic, Latin Extended Additional and kana, so
//! [`general_table`](crate::general_table) holds mysqld's weights of the 11 pages that
//! `my_unicase_pages_default` fills (0x00–0x05, 0x1E, 0x1F, 0x21, 0x24, 0xFF); every other BMP
//! character weighs itself. The data was dumped from MariaDB 10.11 with
//! `HEX(WEIGHT_STRING(CONVERT(CHAR(cp USING utf32) USING utf8mb4) COLLATE utf8mb4_general_ci))`
//! for every BMP code point, and the test against MariaDB (crates/binlogd/tests/
//! differential_collation.rs) checks the Latin, Greek, Cyrillic and kana blocks again.

use crate::general_table::PAGES;

/// The weight of one code point.
pub(crate) fn weight(cp: u32) -> u32 {
    if cp > 0xFFFF {
        return 0xFFFD;
    }
    let page = (cp >> 8) as u8;
    match PAGES.iter().find(|(p, _)| *p == page) {
        Some((_, weights)) => u32::from(weights[(cp & 0xFF) as usize]),
        None => cp,
    }
}

/// The weights of a UTF-8 string; an invalid byte weighs 0xFFFD like mysqld's replacement.
pub(crate) fn weights(s: &[u8]) -> impl Iterator<Item = u32> + '_ {
    crate::charset::utf8_chars(s).map(|cp| match cp {
        Some(cp) => weight(cp),
        None => 0xFFFD,
    })
}
