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
