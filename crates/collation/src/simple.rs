//! The 8-bit collations' sort tables: one weight per byte.
//!
//! `latin1_swedish_ci` follows mysqld's `sort_order_latin1` (strings/ctype-latin1.cc): case
//! folded to upper case, accents dropped except the Swedish letters, which sort after `Z`
//! (`Å` with `[`, `Ä`/`Æ` with `\`, `Ö` with `]`), `Ü` and `Ý` as `Y`; bytes 0x80–0xBF, `×`,
//! `÷`, `Ø`, `Þ`, `ß`, `ÿ` weigh themselves. `ascii_general_ci` folds `a`–`z` to `A`–`Z`.
//! The differential test compares every byte's weight with MariaDB's `WEIGHT_STRING`.

use std::sync::OnceLock;

use crate::Kind;

fn latin1_swedish() -> [u8; 256] {
    let mut t = [0u8; 256];
    for (i, w) in t.iter_mut().enumerate() {
        let b = i as u8;
        *w = match b {
            b'a'..=b'z' => b - 32,
            0xC0..=0xC3 | 0xE0..=0xE3 => b'A',
            0xC4 | 0xC6 | 0xE4 | 0xE6 => b'\\',
            0xC5 | 0xE5 => b'[',
            0xC7 | 0xE7 => b'C',
            0xC8..=0xCB | 0xE8..=0xEB => b'E',
            0xCC..=0xCF | 0xEC..=0xEF => b'I',
            0xD0 | 0xF0 => b'D',
            0xD1 | 0xF1 => b'N',
            0xD2..=0xD5 | 0xF2..=0xF5 => b'O',
            0xD6 | 0xF6 => b']',
            0xD8 | 0xF8 => 0xD8,
            0xD9..=0xDB | 0xF9..=0xFB => b'U',
            0xDC | 0xDD | 0xFC | 0xFD => b'Y',
            0xDE | 0xFE => 0xDE,
            _ => b,
        };
    }
    t
}

fn ascii_general() -> [u8; 256] {
    let mut t = [0u8; 256];
    for (i, w) in t.iter_mut().enumerate() {
        *w = (i as u8).to_ascii_uppercase();
    }
    t
}

/// The sort table of an 8-bit `_ci` collation.
pub(crate) fn table(kind: Kind) -> &'static [u8; 256] {
    static SWEDISH: OnceLock<[u8; 256]> = OnceLock::new();
    static ASCII: OnceLock<[u8; 256]> = OnceLock::new();
    match kind {
        Kind::Latin1Swedish => SWEDISH.get_or_init(latin1_swedish),
        _ => ASCII.get_or_init(ascii_general),
    }
}
