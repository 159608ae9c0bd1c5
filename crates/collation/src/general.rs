//! `*_general_ci`: mysqld's `my_strnncollsp_utf8mb4` over `my_unicase_default`'s "sort"
//! weights — one 16-bit weight per BMP character, supplementary characters all weigh U+FFFD
//! (so every emoji is equal to every other under general_ci, as in mysqld).
//!
//! The weight of a BMP character is the upper case (a single character) of its base letter:
//! the first character of its canonical decomposition (ICU4X's NFD), so accents are dropped
//! (`é` → `E`, `ё` → `Е`); `ß` weighs `S` (mysqld's table, not the `SS` of full upper-casing).
//! The table is built once (64 Ki entries) on first use.

use std::sync::OnceLock;

use icu_normalizer::DecomposingNormalizerBorrowed;

fn table() -> &'static [u16] {
    static T: OnceLock<Box<[u16]>> = OnceLock::new();
    T.get_or_init(|| {
        let nfd = DecomposingNormalizerBorrowed::new_nfd();
        (0u32..0x10000)
            .map(|cp| {
                let Some(c) = char::from_u32(cp) else { return cp as u16 };
                if c == 'ß' {
                    return u16::from(b'S');
                }
                let mut buf = [0u8; 4];
                let base = nfd.normalize(c.encode_utf8(&mut buf)).chars().next().unwrap_or(c);
                let mut up = base.to_uppercase();
                let u = match (up.next(), up.next()) {
                    (Some(u), None) => u,
                    _ => base,
                };
                u16::try_from(u32::from(u)).unwrap_or(0xFFFD)
            })
            .collect()
    })
}

/// The weight of one code point.
pub(crate) fn weight(cp: u32) -> u32 {
    if cp > 0xFFFF {
        0xFFFD
    } else {
        u32::from(table()[cp as usize])
    }
}

/// The weights of a UTF-8 string; an invalid byte weighs as itself plus 0x10000 would not fit
/// 16 bits, so it weighs 0xFFFD like mysqld's replacement.
pub(crate) fn weights(s: &[u8]) -> impl Iterator<Item = u32> + '_ {
    crate::charset::utf8_chars(s).map(|cp| match cp {
        Some(cp) => weight(cp),
        None => 0xFFFD,
    })
}
