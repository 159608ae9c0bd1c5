//! PAD SPACE: a string compares as if the shorter one were padded with spaces
//! (`my_strnncollsp_*`), so trailing spaces never count but a character below the space
//! (TAB, for instance) after a common prefix sorts the longer string first.
//!
//! The sort key encodes each non-space weight `w` with the count `k` of spaces before it:
//!
//! | token | bytes |
//! |---|---|
//! | `w` below the space, `k = 0` | `00 w` |
//! | `w` below the space, `k > 0` | `01 k(u32 BE) w` |
//! | end of string (infinite spaces) | `02` |
//! | `w` above the space, `k > 0` | `03 !k(u32 BE) w` |
//! | `w` above the space, `k = 0` | `04 w` |
//!
//! Why this orders as padding does: two strings agree up to a token; if both tokens have the
//! same `k`, the weights decide; otherwise the one with fewer spaces shows its `w` where the
//! other shows a space, so it is smaller iff its `w` is below the space — tokens with `w` below
//! the space sort below the end (02), which sorts below tokens above the space, and among the
//! former fewer spaces is smaller, among the latter fewer spaces is larger (hence `!k`).
//! Every token has a fixed length after its first byte and the end is one byte, so the
//! encoding is self-delimiting.

use std::cmp::Ordering;

/// PAD SPACE comparison of bytes (`my_strnncollsp_8bit_bin`, `my_strnncollsp_mb_bin`).
pub(crate) fn compare_bytes(a: &[u8], b: &[u8]) -> Ordering {
    let n = a.len().min(b.len());
    match a[..n].cmp(&b[..n]) {
        Ordering::Equal => {}
        o => return o,
    }
    let rest_order = |rest: &[u8]| -> Ordering {
        match rest.iter().find(|&&c| c != b' ') {
            None => Ordering::Equal,
            Some(&c) if c < b' ' => Ordering::Less,
            Some(_) => Ordering::Greater,
        }
    };
    if a.len() > n {
        rest_order(&a[n..])
    } else {
        rest_order(&b[n..]).reverse()
    }
}

/// PAD SPACE comparison of weight sequences.
pub(crate) fn compare_weights(
    a: impl Iterator<Item = u32>,
    b: impl Iterator<Item = u32>,
    space: u32,
) -> Ordering {
    let (mut a, mut b) = (a, b);
    loop {
        match (a.next(), b.next()) {
            (None, None) => return Ordering::Equal,
            (Some(x), Some(y)) => match x.cmp(&y) {
                Ordering::Equal => {}
                o => return o,
            },
            (Some(x), None) => return rest(x, a, space),
            (None, Some(y)) => return rest(y, b, space).reverse(),
        }
    }
}

fn rest(first: u32, mut more: impl Iterator<Item = u32>, space: u32) -> Ordering {
    let mut w = first;
    loop {
        if w != space {
            return if w < space { Ordering::Less } else { Ordering::Greater };
        }
        match more.next() {
            Some(x) => w = x,
            None => return Ordering::Equal,
        }
    }
}

/// Appends the PAD SPACE key of a weight sequence (`width`: bytes per weight, 1 or 2).
pub(crate) fn key(weights: impl Iterator<Item = u32>, width: usize, space: u32, out: &mut Vec<u8>) {
    let mut k: u32 = 0;
    for w in weights {
        if w == space {
            k = k.saturating_add(1);
            continue;
        }
        match (w < space, k) {
            (true, 0) => out.push(0x00),
            (true, k) => {
                out.push(0x01);
                out.extend_from_slice(&k.to_be_bytes());
            }
            (false, 0) => out.push(0x04),
            (false, k) => {
                out.push(0x03);
                out.extend_from_slice(&(!k).to_be_bytes());
            }
        }
        let be = w.to_be_bytes();
        out.extend_from_slice(&be[4 - width..]);
        k = 0;
    }
    out.push(0x02);
}
