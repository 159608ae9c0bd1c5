//! `utf8mb4_unicode_ci` / `utf8mb3_unicode_ci`: mysqld's UCA 4.0.0 collation at the primary
//! level (MySQL's strings/ctype-uca.cc `my_uca_v400`, `my_strnncollsp_uca`; MariaDB has the
//! same table). Why not ICU (which serves the 0900 collations): CLDR root is a much newer UCA
//! that differs from 4.0.0 in ways applications see — `Đ`, `Ħ`, `Ł`, `Ø` are letters of
//! their own in 4.0.0 but accented `D`, `H`, `L`, `O` in CLDR, `æ` sorts after every `a…`
//! word, and the implicit weights differ.
//!
//! The weights: each BMP character has a sequence of 16-bit primary weights (none for
//! ignorable characters, several for expansions); the root `unicode_ci` has no contractions.
//! Characters UCA 4.0.0 does not list get implicit weights `[base + (cp >> 15),
//! (cp & 0x7FFF) | 0x8000]` (base 0xFB40 for CJK Unified Ideographs U+4E00..U+9FA5, 0xFB80
//! for Extension A U+3400..U+4DB5, 0xFBC0 otherwise). Every character outside the BMP, and
//! every ill-formed byte, weighs 0xFFFD (UCA 4.0.0's table stops at U+FFFF: mysqld's scanner
//! returns 0xFFFD above `maxchar`), so all emoji are equal and sort after the BMP.
//!
//! `unicode400.bin` lists every BMP character whose weights are not the implicit ones, sorted
//! by code point: `cp` (u16 BE), `n` (u8), then `n` weights (u16 BE). It was dumped from
//! MariaDB 10.11 with `HEX(WEIGHT_STRING(CONVERT(CHAR(cp USING utf32) USING utf8mb4) COLLATE
//! utf8mb4_unicode_ci))` for every BMP code point; `tests.rs` and the differential test
//! against MariaDB check it.
//!
//! PAD SPACE: comparison pads the shorter weight string with the space's weight (0x0209), as
//! `my_strnncollsp_uca` does; [`crate::pad`] encodes the sort key.

use std::sync::OnceLock;

static DATA: &[u8] = include_bytes!("unicode400.bin");

/// The space's primary weight (PAD SPACE pads with it).
pub(crate) const SPACE: u32 = 0x0209;

/// Per BMP code point: `u32::MAX` for implicit weights, else `offset << 8 | count` into
/// [`DATA`] (the offset of the first weight byte).
fn index() -> &'static [u32] {
    static I: OnceLock<Box<[u32]>> = OnceLock::new();
    I.get_or_init(|| {
        let mut idx = vec![u32::MAX; 0x10000];
        let mut at = 0usize;
        while at + 3 <= DATA.len() {
            let cp = usize::from(u16::from_be_bytes([DATA[at], DATA[at + 1]]));
            let n = usize::from(DATA[at + 2]);
            assert!(n <= MAX && at + 3 + 2 * n <= DATA.len(), "unicode400.bin: bad entry");
            idx[cp] = ((at + 3) as u32) << 8 | n as u32;
            at += 3 + 2 * n;
        }
        assert_eq!(at, DATA.len(), "unicode400.bin: trailing bytes");
        idx.into_boxed_slice()
    })
}

/// Calls `f` with each primary weight of code point `cp` (`None`: an ill-formed byte).
fn each_weight(cp: Option<u32>, mut f: impl FnMut(u32)) {
    let Some(cp) = cp.filter(|&c| c <= 0xFFFF) else {
        f(0xFFFD);
        return;
    };
    let e = index()[cp as usize];
    if e == u32::MAX {
        let base = match cp {
            0x4E00..=0x9FA5 => 0xFB40,
            0x3400..=0x4DB5 => 0xFB80,
            _ => 0xFBC0,
        };
        f(base + (cp >> 15));
        f((cp & 0x7FFF) | 0x8000);
        return;
    }
    let (at, n) = ((e >> 8) as usize, (e & 0xFF) as usize);
    for k in 0..n {
        f(u32::from(u16::from_be_bytes([DATA[at + 2 * k], DATA[at + 2 * k + 1]])));
    }
}

/// At most this many weights for one character (the longest expansion in UCA 4.0.0 has 8;
/// `index` checks it).
const MAX: usize = 8;

fn char_buf(cp: Option<u32>) -> impl Iterator<Item = u32> {
    let mut buf = [0u32; MAX];
    let mut n = 0;
    each_weight(cp, |x| {
        buf[n] = x;
        n += 1;
    });
    buf.into_iter().take(n)
}

/// The primary weights of a UTF-8 string.
pub(crate) fn weights(s: &[u8]) -> impl Iterator<Item = u32> + '_ {
    crate::charset::utf8_chars(s).flat_map(char_buf)
}

/// Whether two code points have the same primary weights (LIKE's character comparison,
/// `my_uca_charcmp`): characters above U+FFFF are equal only to themselves there, although
/// they all weigh 0xFFFD in comparisons (`'😀' LIKE '😁'` is 0, `'😀' = '😁'` is 1).
pub(crate) fn char_equal(a: u32, b: u32) -> bool {
    if a > 0xFFFF || b > 0xFFFF {
        return a == b;
    }
    char_buf(Some(a)).eq(char_buf(Some(b)))
}
