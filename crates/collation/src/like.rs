//! `LIKE` under a collation, as mysqld's `my_wildcmp_uca` / `my_wildcmp_unicode` /
//! `my_wildcmp_8bit`: the pattern is matched character by character (`_` is one character,
//! one byte for the 8-bit sets and `binary`), each literal character compared with the
//! collation's character equality, so `'ß' LIKE 'ss'` is false but `'Å' LIKE 'a'` is true
//! under `utf8mb4_0900_ai_ci`. Trailing spaces count (no PAD SPACE in LIKE).
//!
//! The matcher is iterative (the classic two-pointer wildcard match that backtracks to the
//! last `%`), so it needs no recursion and takes O(text × pattern) time at worst.

use crate::{by_id, char_equal, charset::utf8_chars};

fn units(utf8: bool, s: &[u8]) -> Vec<u32> {
    if utf8 {
        // An invalid byte is a unit of its own that only equals itself.
        let mut at = 0usize;
        let mut out = Vec::with_capacity(s.len());
        for cp in utf8_chars(s) {
            match cp {
                Some(c) => {
                    out.push(c);
                    at += char::from_u32(c).map_or(1, char::len_utf8);
                }
                None => {
                    out.push(0x11_0000 + u32::from(s[at]));
                    at += 1;
                }
            }
        }
        out
    } else {
        s.iter().map(|&b| u32::from(b)).collect()
    }
}

/// `text LIKE pattern ESCAPE escape` (`escape`: a character, `\` by default) under collation
/// `id` (bytes in the collation's character set).
pub fn like(id: u16, text: &[u8], pattern: &[u8], escape: Option<u32>) -> bool {
    let utf8 = by_id(id).is_some_and(|c| c.charset.is_utf8());
    let t = units(utf8, text);
    let p = units(utf8, pattern);
    // Pattern as tokens: Some(c) a literal, None `_`, and `%` runs folded into a flag.
    #[derive(Clone, Copy, PartialEq)]
    enum Tok {
        Lit(u32),
        One,
        Any,
    }
    let mut toks = Vec::with_capacity(p.len());
    let mut i = 0;
    while i < p.len() {
        let c = p[i];
        if Some(c) == escape && i + 1 < p.len() {
            toks.push(Tok::Lit(p[i + 1]));
            i += 2;
            continue;
        }
        toks.push(match c {
            0x25 => Tok::Any,
            0x5F => Tok::One,
            c => Tok::Lit(c),
        });
        i += 1;
    }
    let (mut ti, mut pi) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        match toks.get(pi) {
            Some(Tok::Any) => {
                star = Some((pi, ti));
                pi += 1;
                continue;
            }
            Some(Tok::One) => {
                ti += 1;
                pi += 1;
                continue;
            }
            Some(Tok::Lit(c)) if char_equal(id, t[ti], *c) => {
                ti += 1;
                pi += 1;
                continue;
            }
            _ => {}
        }
        match star {
            Some((sp, st)) => {
                pi = sp + 1;
                ti = st + 1;
                star = Some((sp, st + 1));
            }
            None => return false,
        }
    }
    toks[pi.min(toks.len())..].iter().all(|t| *t == Tok::Any)
}
