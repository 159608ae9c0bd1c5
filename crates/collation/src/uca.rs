//! The UCA collations through ICU4X's root collator (see the crate docs for what differs from
//! mysqld's UCA 9.0.0 / 4.0.0 tables). One collator per strength, built once from ICU4X's
//! compiled data; `CollatorBorrowed<'static>` is immutable and shared by every thread.

use std::cmp::Ordering;
use std::sync::OnceLock;

use icu_collator::options::{AlternateHandling, CollatorOptions, Strength};
use icu_collator::{CollatorBorrowed, CollatorPreferences};

fn collator(level: u8) -> &'static CollatorBorrowed<'static> {
    static C: OnceLock<[CollatorBorrowed<'static>; 3]> = OnceLock::new();
    let all = C.get_or_init(|| {
        [Strength::Primary, Strength::Secondary, Strength::Tertiary].map(|strength| {
            let mut o = CollatorOptions::default();
            o.strength = Some(strength);
            // mysqld's UCA collations give spaces and punctuation primary weights.
            o.alternate_handling = Some(AlternateHandling::NonIgnorable);
            // Root collation data compiled into icu_collator: building it cannot fail.
            CollatorBorrowed::try_new(CollatorPreferences::default(), o)
                .expect("icu_collator's compiled root collation")
        })
    });
    &all[usize::from(level.clamp(1, 3) - 1)]
}

pub(crate) fn compare(level: u8, a: &[u8], b: &[u8]) -> Ordering {
    if a == b {
        return Ordering::Equal;
    }
    if let Some(o) = ascii_difference(a, b) {
        return o;
    }
    collator(level).compare_utf8(a, b)
}

/// The primary rank of each ASCII character under the root collation (0: ignorable, no
/// primary weight; equal ranks: equal primary weights, e.g. `a` and `A`), from ICU itself.
fn ascii_ranks() -> &'static [u8; 128] {
    static R: OnceLock<[u8; 128]> = OnceLock::new();
    R.get_or_init(|| {
        let c = collator(1);
        let text = |b: u8| [b];
        let mut chars: Vec<u8> = (0..128).collect();
        chars.sort_by(|&x, &y| c.compare_utf8(&text(x), &text(y)));
        let mut ranks = [0u8; 128];
        let mut rank = 0u8;
        let mut prev: Option<u8> = None;
        for ch in chars {
            if c.compare_utf8(&text(ch), b"") == Ordering::Equal {
                continue;
            }
            if prev.is_none_or(|p| c.compare_utf8(&text(p), &text(ch)) != Ordering::Equal) {
                rank += 1;
            }
            ranks[usize::from(ch)] = rank;
            prev = Some(ch);
        }
        ranks
    })
}

/// The order of `a` and `b` decided without ICU's collation-element walk (issue 22: ORDER BY
/// and DISTINCT over CHAR columns compare ASCII text): when the strings first differ at an
/// ASCII character of each, between ASCII neighbours, and the two characters have different
/// primary weights, that primary difference decides at every strength (the identical prefix
/// has identical collation elements, and the root collation has no contraction or expansion
/// among ASCII characters; `tests::ascii_shortcut_agrees_with_icu` checks this against ICU).
/// None when it cannot tell: ICU decides.
fn ascii_difference(a: &[u8], b: &[u8]) -> Option<Ordering> {
    let i = a.iter().zip(b).position(|(x, y)| x != y)?;
    let (x, y) = (a[i], b[i]);
    let ascii_at = |s: &[u8], j: usize| s.get(j).is_none_or(|c| c.is_ascii());
    if !x.is_ascii() || !y.is_ascii() || (i > 0 && !a[i - 1].is_ascii()) {
        return None;
    }
    if !ascii_at(a, i + 1) || !ascii_at(b, i + 1) {
        return None;
    }
    let r = ascii_ranks();
    let (rx, ry) = (r[usize::from(x)], r[usize::from(y)]);
    (rx != 0 && ry != 0 && rx != ry).then(|| rx.cmp(&ry))
}

pub(crate) fn sort_key(level: u8, s: &[u8], out: &mut Vec<u8>) {
    let Ok(()) = collator(level).write_sort_key_utf8_to(s, out);
}

pub(crate) fn char_equal(level: u8, a: u32, b: u32) -> bool {
    let (Some(a), Some(b)) = (char::from_u32(a), char::from_u32(b)) else { return false };
    let (mut x, mut y) = ([0u8; 4], [0u8; 4]);
    let (x, y) = (a.encode_utf8(&mut x), b.encode_utf8(&mut y));
    collator(level).compare(x, y) == Ordering::Equal
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ASCII shortcut gives ICU's answer: every pair of ASCII characters followed by a
    /// spread of suffixes, and random ASCII strings sharing prefixes, at every strength.
    #[test]
    fn ascii_shortcut_agrees_with_icu() {
        let suffixes: Vec<Vec<u8>> =
            ["", "a", "A", "0", " ", "-", "\0", "\t", "z", "é", "\u{301}", "\u{338}", "ss", "~"]
                .iter()
                .map(|s| s.as_bytes().to_vec())
                .collect();
        for level in 1..=3 {
            let c = collator(level);
            for x in 0u8..128 {
                for y in 0u8..128 {
                    for s in &suffixes {
                        for t in &suffixes {
                            let a = [&b"ab"[..], &[x], s].concat();
                            let b = [&b"ab"[..], &[y], t].concat();
                            if let Some(o) = ascii_difference(&a, &b) {
                                assert_eq!(o, c.compare_utf8(&a, &b), "{a:?} {b:?} level {level}");
                            }
                        }
                    }
                }
            }
        }
        // Random ASCII strings with common prefixes (a fixed LCG: reproducible).
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) as usize
        };
        for _ in 0..200_000 {
            let prefix: Vec<u8> = (0..next() % 6).map(|_| (next() % 128) as u8).collect();
            let mut tail =
                || -> Vec<u8> { (0..next() % 5).map(|_| (next() % 128) as u8).collect() };
            let a = [prefix.clone(), tail()].concat();
            let b = [prefix, tail()].concat();
            for level in 1..=3 {
                assert_eq!(
                    compare(level, &a, &b),
                    collator(level).compare_utf8(&a, &b),
                    "{a:?} {b:?}"
                );
            }
        }
        // Digits and letters: the shortcut decides (sysbench's CHAR values).
        assert!(ascii_difference(b"12-34", b"12-54").is_some());
        assert!(ascii_difference(b"ab", b"aB").is_none());
    }
}
