//! String, network-address and control functions that applications call and that had no home
//! yet, with mysqld's results (sql/item_strfunc.cc, item_inetfunc.cc, item_cmpfunc.cc):
//! NULLIF (`Item_func_nullif`), BIT_LENGTH, TO_BASE64/FROM_BASE64 (`Item_func_to_base64`:
//! a newline every 76 characters, as mysqld's `base64_encode`), SOUNDEX (`Item_func_soundex`:
//! mysqld's variant, not truncated to four characters), MAKE_SET, EXPORT_SET, INET_ATON/
//! INET_NTOA, INET6_ATON/INET6_NTOA, IS_IPV4/IS_IPV6/IS_IPV4_COMPAT/IS_IPV4_MAPPED, ISNULL,
//! and the bind-time COLLATION(), CHARSET() and COERCIBILITY() (their answers depend on the
//! argument's type, not its value: `exec.rs` replaces them by literals).
//!
//! Base64 is the `base64` crate's standard alphabet (what mysqld's `base64_encode` writes);
//! FROM_BASE64 skips the whitespace mysqld skips and answers NULL to anything else invalid.
//! Addresses are parsed by `std::net` except INET_ATON, whose short forms (`127.1`) follow
//! mysqld's own loop.
//!
//! Invariant: every result is bounded by its input's length (MAKE_SET/EXPORT_SET by their
//! arguments' total length times 64).

use std::cmp::Ordering;
use std::net::{Ipv4Addr, Ipv6Addr};

use base64::Engine as _;
use engine::Value;

use super::to_text;
use crate::error::Result;

pub use crate::ast::MoreFn;

impl MoreFn {
    /// The function named `name` with its (min, max) argument counts.
    pub(crate) fn by_name(name: &str) -> Option<(MoreFn, usize, usize)> {
        use MoreFn::*;
        Some(match name {
            "nullif" => (NullIf, 2, 2),
            "isnull" => (IsNull, 1, 1),
            "bit_length" => (BitLength, 1, 1),
            "to_base64" => (ToBase64, 1, 1),
            "from_base64" => (FromBase64, 1, 1),
            "soundex" => (Soundex, 1, 1),
            "make_set" => (MakeSet, 2, usize::MAX),
            "export_set" => (ExportSet, 3, 5),
            "inet_aton" => (InetAton, 1, 1),
            "inet_ntoa" => (InetNtoa, 1, 1),
            "inet6_aton" => (Inet6Aton, 1, 1),
            "inet6_ntoa" => (Inet6Ntoa, 1, 1),
            "is_ipv4" => (IsIpv4, 1, 1),
            "is_ipv6" => (IsIpv6, 1, 1),
            "is_ipv4_compat" => (IsIpv4Compat, 1, 1),
            "is_ipv4_mapped" => (IsIpv4Mapped, 1, 1),
            "collation" => (Collation, 1, 1),
            "charset" => (Charset, 1, 1),
            "coercibility" => (Coercibility, 1, 1),
            _ => return None,
        })
    }

    /// Whether the result is BIGINT.
    pub(crate) fn is_integer(self) -> bool {
        use MoreFn::*;
        matches!(
            self,
            IsNull
                | BitLength
                | InetAton
                | IsIpv4
                | IsIpv6
                | IsIpv4Compat
                | IsIpv4Mapped
                | Coercibility
        )
    }

    /// Whether the result is a binary string (charset binary).
    pub(crate) fn is_binary(self) -> bool {
        matches!(self, MoreFn::FromBase64 | MoreFn::Inet6Aton)
    }
}

/// Evaluates `f` over its evaluated arguments; `coll` is the collation NULLIF compares with.
pub(crate) fn call(f: MoreFn, a: &[Value], coll: u16) -> Result<Value> {
    use MoreFn::*;
    let arg = |i: usize| a.get(i).cloned().unwrap_or(Value::Null);
    let first = arg(0);
    match f {
        NullIf => {
            return Ok(match super::collate::compare_in(&first, &arg(1), coll) {
                Some(Ordering::Equal) => Value::Null,
                _ => first,
            })
        }
        IsNull => return Ok(Value::Int(i64::from(first == Value::Null))),
        MakeSet => return Ok(make_set(a)),
        ExportSet => return Ok(export_set(a)),
        Collation | Charset | Coercibility => {
            return Err(crate::error::SqlError::Other {
                code: 1105,
                sqlstate: "HY000",
                message: "internal: COLLATION() not bound".into(),
            })
        }
        // Predicates: NULL is not an address (0, not NULL).
        IsIpv4 | IsIpv6 | IsIpv4Compat | IsIpv4Mapped if first == Value::Null => {
            return Ok(Value::Int(0))
        }
        _ => {}
    }
    if first == Value::Null {
        return Ok(Value::Null);
    }
    let text = to_text(&first);
    Ok(match f {
        BitLength => Value::Int((text.len() as i64).saturating_mul(8)),
        ToBase64 => Value::Bytes(to_base64(&text)),
        FromBase64 => from_base64(&text).map_or(Value::Null, Value::Bytes),
        Soundex => Value::Bytes(soundex(&text)),
        InetAton => inet_aton(&text).map_or(Value::Null, Value::UInt),
        InetNtoa => match super::num(&first) {
            Some(super::Num::Int(i)) if (0..=i128::from(u32::MAX)).contains(&i) => {
                Value::Bytes(Ipv4Addr::from(i as u32).to_string().into_bytes())
            }
            Some(super::Num::Int(_)) | None => Value::Null,
            Some(n) => {
                let d = super::num_f64(n).round();
                if (0.0..=f64::from(u32::MAX)).contains(&d) {
                    Value::Bytes(Ipv4Addr::from(d as u32).to_string().into_bytes())
                } else {
                    Value::Null
                }
            }
        },
        Inet6Aton => inet6_aton(&text).map_or(Value::Null, Value::Bytes),
        Inet6Ntoa => inet6_ntoa(&text).map_or(Value::Null, |s| Value::Bytes(s.into_bytes())),
        IsIpv4 => Value::Int(i64::from(parse_v4(&text).is_some())),
        IsIpv6 => Value::Int(i64::from(parse_v6(&text).is_some())),
        IsIpv4Compat => Value::Int(i64::from(
            text.len() == 16 && text[..12].iter().all(|b| *b == 0) && text[12..] != [0, 0, 0, 0],
        )),
        IsIpv4Mapped => Value::Int(i64::from(
            text.len() == 16
                && text[..10].iter().all(|b| *b == 0)
                && text[10] == 0xff
                && text[11] == 0xff,
        )),
        NullIf | IsNull | MakeSet | ExportSet | Collation | Charset | Coercibility => Value::Null,
    })
}

/// mysqld's `base64_encode`: standard alphabet with padding, a newline after every 76
/// characters of output.
fn to_base64(b: &[u8]) -> Vec<u8> {
    let flat = base64::engine::general_purpose::STANDARD.encode(b).into_bytes();
    let mut out = Vec::with_capacity(flat.len() + flat.len() / 76);
    for (i, chunk) in flat.chunks(76).enumerate() {
        if i > 0 {
            out.push(b'\n');
        }
        out.extend_from_slice(chunk);
    }
    out
}

/// mysqld's `base64_decode`: whitespace between characters is skipped; anything else invalid
/// (a bad character, wrong padding) is NULL.
fn from_base64(b: &[u8]) -> Option<Vec<u8>> {
    let clean: Vec<u8> = b.iter().copied().filter(|c| !c.is_ascii_whitespace()).collect();
    base64::engine::general_purpose::STANDARD.decode(&clean).ok()
}

/// mysqld's SOUNDEX (`Item_func_soundex::val_str`): the first letter, then the codes of the
/// following letters (vowels, H, W, Y code 0 and are dropped, a code equal to the previous
/// letter's is dropped), padded with '0' to at least four characters; non-letters skipped.
fn soundex(b: &[u8]) -> Vec<u8> {
    const MAP: &[u8; 26] = b"01230120022455012623010202";
    let s = String::from_utf8_lossy(b);
    let mut out = Vec::new();
    let mut last = 0u8;
    for c in s.chars() {
        if !c.is_alphabetic() {
            continue;
        }
        let up = collation::to_upper(&c.to_string());
        let code = match up.as_bytes() {
            [u @ b'A'..=b'Z'] => MAP[usize::from(u - b'A')],
            // A letter outside A-Z codes as itself (mysqld's `soundex_toupper` keeps it).
            _ => 0,
        };
        if out.is_empty() {
            out.extend_from_slice(up.as_bytes());
            last = code;
            continue;
        }
        if code == 0 {
            continue;
        }
        if code != b'0' && code != last {
            out.push(code);
            last = code;
        }
    }
    if out.is_empty() {
        return out;
    }
    while out.len() < 4 {
        out.push(b'0');
    }
    out
}

fn bits_of(v: &Value) -> Option<u64> {
    Some(match super::num(v)? {
        super::Num::Int(i) => i as u64,
        n => super::num_f64(n).round() as i64 as u64,
    })
}

/// `MAKE_SET(bits, s1, s2, ...)`: the strings whose bit is set, comma-separated; NULL strings
/// are skipped.
fn make_set(a: &[Value]) -> Value {
    let Some(bits) = a.first().and_then(bits_of) else { return Value::Null };
    let mut out = Vec::new();
    let mut first = true;
    for (i, v) in a.iter().skip(1).enumerate().take(64) {
        if bits & (1u64 << i) == 0 || *v == Value::Null {
            continue;
        }
        if !first {
            out.push(b',');
        }
        first = false;
        out.extend_from_slice(&to_text(v));
    }
    Value::Bytes(out)
}

/// `EXPORT_SET(bits, on, off[, separator[, number_of_bits]])`: for each of the low bits (64
/// by default, at most 64), `on` or `off`, joined by the separator (',').
fn export_set(a: &[Value]) -> Value {
    if a.contains(&Value::Null) {
        return Value::Null;
    }
    let Some(bits) = a.first().and_then(bits_of) else { return Value::Null };
    let on = to_text(&a[1]);
    let off = to_text(&a[2]);
    let sep = a.get(3).map_or(b",".to_vec(), to_text);
    let n = match a.get(4).and_then(super::num) {
        Some(super::Num::Int(i)) if (0..=64).contains(&i) => i as u32,
        Some(_) => 64,
        None => 64,
    };
    let mut out = Vec::new();
    for i in 0..n {
        if i > 0 {
            out.extend_from_slice(&sep);
        }
        out.extend_from_slice(if bits & (1u64 << i) != 0 { &on } else { &off });
    }
    Value::Bytes(out)
}

/// mysqld's `Item_func_inet_aton::val_int`: dot-separated decimal bytes, a short form's last
/// number is the lowest byte (`127.1` is 127.0.0.1); anything else is NULL.
fn inet_aton(b: &[u8]) -> Option<u64> {
    let mut result: u64 = 0;
    let mut byte: u64 = 0;
    let mut dots = 0;
    let mut last = 0u8;
    if b.is_empty() {
        return None;
    }
    for &c in b {
        last = c;
        match c {
            b'0'..=b'9' => {
                byte = byte * 10 + u64::from(c - b'0');
                if byte > 255 {
                    return None;
                }
            }
            b'.' => {
                dots += 1;
                result = (result << 8).wrapping_add(byte);
                byte = 0;
            }
            _ => return None,
        }
    }
    if last == b'.' {
        return None;
    }
    match dots {
        1 => result <<= 16,
        2 => result <<= 8,
        _ => {}
    }
    Some((result << 8).wrapping_add(byte))
}

fn parse_v4(b: &[u8]) -> Option<Ipv4Addr> {
    std::str::from_utf8(b).ok()?.parse().ok()
}

fn parse_v6(b: &[u8]) -> Option<Ipv6Addr> {
    std::str::from_utf8(b).ok()?.parse().ok()
}

/// `INET6_ATON`: 4 bytes for IPv4 text, 16 for IPv6; NULL otherwise.
fn inet6_aton(b: &[u8]) -> Option<Vec<u8>> {
    if let Some(v4) = parse_v4(b) {
        return Some(v4.octets().to_vec());
    }
    parse_v6(b).map(|v6| v6.octets().to_vec())
}

/// `INET6_NTOA`: 4 bytes as IPv4, 16 as IPv6 in its shortest form with IPv4-compatible
/// (`::a.b.c.d`) and IPv4-mapped (`::ffff:a.b.c.d`) addresses written with a dotted tail, as
/// mysqld's `ipv6_to_str`; any other length is NULL.
fn inet6_ntoa(b: &[u8]) -> Option<String> {
    match b.len() {
        4 => Some(Ipv4Addr::new(b[0], b[1], b[2], b[3]).to_string()),
        16 => {
            let mut o = [0u8; 16];
            o.copy_from_slice(b);
            let v6 = Ipv6Addr::from(o);
            let tail = Ipv4Addr::new(o[12], o[13], o[14], o[15]);
            if o[..12].iter().all(|x| *x == 0) && u32::from(tail) > 1 {
                // IPv4-compatible, except :: and ::1.
                return Some(format!("::{tail}"));
            }
            if o[..10].iter().all(|x| *x == 0) && o[10] == 0xff && o[11] == 0xff {
                return Some(format!("::ffff:{tail}"));
            }
            Some(v6.to_string())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inet_forms() {
        assert_eq!(inet_aton(b"10.0.5.9"), Some(167_773_449));
        assert_eq!(inet_aton(b"127.1"), Some(2_130_706_433));
        assert_eq!(inet_aton(b"1.2.3."), None);
        assert_eq!(inet_aton(b"256.1.1.1"), None);
        assert_eq!(
            inet6_ntoa(&inet6_aton(b"fdfe::5a55:caff:fefa:9089").unwrap()).unwrap(),
            "fdfe::5a55:caff:fefa:9089"
        );
        assert_eq!(inet6_ntoa(&inet6_aton(b"::ffff:1.2.3.4").unwrap()).unwrap(), "::ffff:1.2.3.4");
        assert_eq!(inet6_ntoa(&inet6_aton(b"::1.2.3.4").unwrap()).unwrap(), "::1.2.3.4");
        assert_eq!(inet6_ntoa(&inet6_aton(b"::1").unwrap()).unwrap(), "::1");
        assert_eq!(inet6_ntoa(b"abc"), None);
    }

    #[test]
    fn soundex_and_base64() {
        assert_eq!(soundex(b"Hello"), b"H400");
        assert_eq!(soundex(b"Quadratically"), b"Q36324");
        assert_eq!(soundex(b"  "), b"");
        let long = vec![b'a'; 100];
        let enc = to_base64(&long);
        assert_eq!(enc.iter().filter(|c| **c == b'\n').count(), 1);
        assert_eq!(from_base64(&enc).unwrap(), long);
        assert_eq!(from_base64(b"!!"), None);
    }
}
