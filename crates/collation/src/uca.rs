//! The UCA collations through ICU4X's root collator (see the crate docs for what differs from
//! mysqld's UCA 9.0.0 / 4.0.0 tables). One collator per strength, built once from ICU4X's
//! compiled data; `CollatorBorrowed<'static>` is immutable and shared by every thread.

use std::borrow::Cow;
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
    collator(level).compare_utf8(a, b)
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

/// `utf8mb4_unicode_ci` is UCA 4.0.0, whose table stops at U+FFFF: mysqld's UCA scanner
/// (`uca_scanner_any::next_raw` in MySQL's strings/ctype-uca.cc, `my_uca_scanner_next` in
/// MariaDB's) weighs every character above its `maxchar` as 0xFFFD, so all supplementary
/// characters (emoji, rare CJK) are equal to each other and sort after every BMP character.
/// CLDR root gives U+FFFD the highest primary weight but U+FFFF's, so replacing each
/// supplementary character by U+FFFD before collating gives that order.
pub(crate) fn bmp_only(s: &[u8]) -> Cow<'_, [u8]> {
    if !s.iter().any(|&c| c >= 0xF0) {
        return Cow::Borrowed(s);
    }
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        // A well-formed 4-byte sequence is one supplementary character; anything else is
        // copied as it is (the collator weighs ill-formed bytes as U+FFFD itself).
        if (0xF0..=0xF4).contains(&c)
            && s.len() - i >= 4
            && s[i + 1..i + 4].iter().all(|&b| b & 0xC0 == 0x80)
        {
            out.extend_from_slice("\u{FFFD}".as_bytes());
            i += 4;
        } else {
            out.push(c);
            i += 1;
        }
    }
    Cow::Owned(out)
}

/// One code point as `utf8mb4_unicode_ci` sees it (see [`bmp_only`]).
pub(crate) fn bmp_char(cp: u32) -> u32 {
    if cp > 0xFFFF {
        0xFFFD
    } else {
        cp
    }
}
