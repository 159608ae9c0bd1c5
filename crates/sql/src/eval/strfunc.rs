//! String functions with mysqld's results (item_strfunc.cc, item_func.cc): character
//! positions and lengths count characters of UTF-8 text (bytes of a value that is not UTF-8),
//! NULL in gives NULL out unless the function says otherwise (CONCAT_WS, FIELD, ELT, QUOTE,
//! CHAR), and the functions that compare strings (LOCATE/INSTR/POSITION, STRCMP, FIELD,
//! FIND_IN_SET) use the collation the binder aggregated from their operands (mysqld's
//! `cmp_collation`), while REPLACE, SUBSTRING_INDEX and TRIM match bytes, as mysqld does.
//!
//! Invariant: every allocation is bounded by `MAX_RESULT` (mysqld's `max_allowed_packet`
//! check in REPEAT/LPAD/RPAD/SPACE/INSERT answers NULL past it), whatever counts the client
//! passes.

use std::cmp::Ordering;

use engine::Value;

use crate::error::Result;
use crate::eval::collate::{cmp_text, cmp_text_no_pad};
use crate::eval::to_text;

/// The longest string a function builds (mysqld: `max_allowed_packet`, 64 MiB by default);
/// longer results are NULL (mysqld adds warning 1301).
pub(crate) const MAX_RESULT: usize = 64 << 20;

pub use crate::ast::{StrFn, TrimWhere};

impl StrFn {
    /// The function named `name` with its (min, max) argument counts.
    pub(crate) fn by_name(name: &str) -> Option<(StrFn, usize, usize)> {
        use StrFn::*;
        Some(match name {
            "substring" | "substr" | "mid" => (Substring, 2, 3),
            "left" => (Left, 2, 2),
            "right" => (Right, 2, 2),
            "replace" => (Replace, 3, 3),
            "trim" => (Trim(TrimWhere::Both), 1, 1),
            "ltrim" => (LTrim, 1, 1),
            "rtrim" => (RTrim, 1, 1),
            "repeat" => (Repeat, 2, 2),
            "lpad" => (LPad, 3, 3),
            "rpad" => (RPad, 3, 3),
            "concat_ws" => (ConcatWs, 2, usize::MAX),
            "locate" => (Locate, 2, 3),
            "instr" => (Instr, 2, 2),
            "reverse" => (Reverse, 1, 1),
            "ascii" => (Ascii, 1, 1),
            "ord" => (Ord, 1, 1),
            "char" => (Char, 1, usize::MAX),
            "space" => (Space, 1, 1),
            "strcmp" => (Strcmp, 2, 2),
            "field" => (Field, 2, usize::MAX),
            "elt" => (Elt, 2, usize::MAX),
            "find_in_set" => (FindInSet, 2, 2),
            "insert" => (Insert, 4, 4),
            "format" => (Format, 2, 3),
            "quote" => (Quote, 1, 1),
            "substring_index" => (SubstringIndex, 3, 3),
            _ => return None,
        })
    }

    /// mysqld's `func_name()` (the operation named in error 1267).
    pub(crate) fn name(self) -> &'static str {
        use StrFn::*;
        match self {
            Substring => "substr",
            Left => "left",
            Right => "right",
            Replace => "replace",
            Trim(_) => "trim",
            LTrim => "ltrim",
            RTrim => "rtrim",
            Repeat => "repeat",
            LPad => "lpad",
            RPad => "rpad",
            ConcatWs => "concat_ws",
            Locate | Instr => "locate",
            Reverse => "reverse",
            Ascii => "ascii",
            Ord => "ord",
            Char => "char",
            Space => "space",
            Strcmp => "strcmp",
            Field => "field",
            Elt => "elt",
            FindInSet => "find_in_set",
            Insert => "insert",
            Format => "format",
            Quote => "quote",
            SubstringIndex => "substring_index",
        }
    }

    /// Whether the function compares strings under a collation (the binder aggregates one).
    pub(crate) fn compares(self) -> bool {
        matches!(
            self,
            StrFn::Locate | StrFn::Instr | StrFn::Strcmp | StrFn::Field | StrFn::FindInSet
        )
    }

    /// Whether the result is an integer (else a string).
    pub(crate) fn is_integer(self) -> bool {
        matches!(
            self,
            StrFn::Locate
                | StrFn::Instr
                | StrFn::Ascii
                | StrFn::Ord
                | StrFn::Strcmp
                | StrFn::Field
                | StrFn::FindInSet
        )
    }

    /// Whether argument `i` of `n` is a number the function reads with `val_int`/`val_real`
    /// (a count, a position, FORMAT's number and places, CHAR's codes), not a string.
    pub(crate) fn numeric_arg(self, i: usize, n: usize) -> bool {
        use StrFn::*;
        match self {
            Locate => i == 2,
            Instr | Strcmp | Field | FindInSet | Ascii | Ord => false,
            Format => i < 2,
            Char | Space => true,
            _ => !self.string_args(n).contains(&i),
        }
    }

    /// The arguments that are the strings being combined (their collations make the
    /// result's): all but counts, positions and FORMAT's number.
    pub(crate) fn string_args(self, n: usize) -> Vec<usize> {
        use StrFn::*;
        match self {
            Substring | Left | Right | Repeat | Reverse | LTrim | RTrim | Trim(_) | Quote => {
                vec![0]
            }
            Replace => vec![0, 1, 2],
            SubstringIndex => vec![0, 1],
            LPad | RPad => vec![0, 2],
            Insert => vec![0, 3],
            ConcatWs => (0..n).collect(),
            Elt => (1..n).collect(),
            _ => Vec::new(),
        }
    }
}

/// Characters of a value's text: chars of UTF-8, bytes otherwise (a binary string).
enum Text {
    Utf8(String),
    Bytes(Vec<u8>),
}

impl Text {
    fn of(v: &Value) -> Text {
        let b = to_text(v);
        match String::from_utf8(b) {
            Ok(s) => Text::Utf8(s),
            Err(e) => Text::Bytes(e.into_bytes()),
        }
    }

    /// Byte offsets of each character start, plus the end.
    fn bounds(&self) -> Vec<usize> {
        match self {
            Text::Utf8(s) => s.char_indices().map(|(i, _)| i).chain([s.len()]).collect(),
            Text::Bytes(b) => (0..=b.len()).collect(),
        }
    }

    fn bytes(&self) -> &[u8] {
        match self {
            Text::Utf8(s) => s.as_bytes(),
            Text::Bytes(b) => b,
        }
    }
}

fn int_arg(v: &Value) -> Option<i64> {
    Some(match v {
        Value::Null => return None,
        Value::Int(i) => *i,
        Value::UInt(u) => i64::try_from(*u).unwrap_or(i64::MAX),
        Value::Double(d) => d.round().clamp(i64::MIN as f64, i64::MAX as f64) as i64,
        Value::Decimal(d) => {
            let r = d.rescale(0).and_then(|r| r.mantissa_i128()).unwrap_or(0);
            i64::try_from(r).unwrap_or(if r < 0 { i64::MIN } else { i64::MAX })
        }
        // A date or time's val_int is its number (`SPACE(TIME '100:00:00')` is a million).
        v @ (Value::Date(_) | Value::DateTime(_) | Value::Time(_)) => {
            return int_arg(&crate::temporal::numeric(v)?);
        }
        v => {
            let f = crate::eval::str_to_f64(&to_text(v));
            f.round().clamp(i64::MIN as f64, i64::MAX as f64) as i64
        }
    })
}

fn bytes(b: Vec<u8>) -> Value {
    if b.len() > MAX_RESULT {
        Value::Null
    } else {
        Value::Bytes(b)
    }
}

/// Byte-wise search for `needle` in `hay` from byte `from`.
fn find_bytes(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    if needle.is_empty() {
        return Some(from.min(hay.len()));
    }
    hay.get(from..)?.windows(needle.len()).position(|w| w == needle).map(|p| p + from)
}

fn rfind_bytes(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || needle.len() > hay.len() {
        return None;
    }
    hay.windows(needle.len()).rposition(|w| w == needle)
}

/// Evaluates string function `f` over evaluated arguments; `coll` is the collation of the
/// comparing functions.
pub(crate) fn call(f: StrFn, a: Vec<Value>, coll: u16) -> Result<Value> {
    use StrFn::*;
    let null_in = a.contains(&Value::Null);
    let strict_null = !matches!(f, ConcatWs | Field | Elt | Quote | Char);
    if null_in && strict_null {
        return Ok(Value::Null);
    }
    let arg = |i: usize| a.get(i).cloned().unwrap_or(Value::Null);
    Ok(match f {
        Substring => {
            let t = Text::of(&arg(0));
            let b = t.bounds();
            let n = b.len() as i64 - 1;
            let Some(pos) = int_arg(&arg(1)) else { return Ok(Value::Null) };
            let len = if a.len() > 2 { int_arg(&arg(2)) } else { Some(i64::MAX) };
            let Some(len) = len else { return Ok(Value::Null) };
            // mysqld: position 0, a position beyond the end, or a length below 1 give ''.
            let start = if pos > 0 { pos - 1 } else { n + pos };
            if pos == 0 || start < 0 || start >= n || len < 1 {
                return Ok(Value::Bytes(Vec::new()));
            }
            let end = start.saturating_add(len).min(n);
            Value::Bytes(t.bytes()[b[start as usize]..b[end as usize]].to_vec())
        }
        Left | Right => {
            let t = Text::of(&arg(0));
            let b = t.bounds();
            let n = b.len() - 1;
            let Some(k) = int_arg(&arg(1)) else { return Ok(Value::Null) };
            let k = usize::try_from(k.max(0)).unwrap_or(usize::MAX).min(n);
            let range = if f == Left { 0..b[k] } else { b[n - k]..b[n] };
            Value::Bytes(t.bytes()[range].to_vec())
        }
        Replace => {
            let (s, from, to) = (to_text(&arg(0)), to_text(&arg(1)), to_text(&arg(2)));
            if from.is_empty() {
                return Ok(Value::Bytes(s));
            }
            let mut out = Vec::with_capacity(s.len());
            let mut i = 0;
            while let Some(p) = find_bytes(&s, &from, i) {
                out.extend_from_slice(&s[i..p]);
                out.extend_from_slice(&to);
                if out.len() > MAX_RESULT {
                    return Ok(Value::Null);
                }
                i = p + from.len();
            }
            out.extend_from_slice(&s[i..]);
            bytes(out)
        }
        Trim(w) => {
            let s = to_text(&arg(0));
            let rem = if a.len() > 1 { to_text(&arg(1)) } else { b" ".to_vec() };
            let (mut lo, mut hi) = (0, s.len());
            if !rem.is_empty() {
                if w != TrimWhere::Trailing {
                    while s[lo..hi].starts_with(&rem) {
                        lo += rem.len();
                    }
                }
                if w != TrimWhere::Leading {
                    while hi - lo >= rem.len() && s[lo..hi].ends_with(&rem) {
                        hi -= rem.len();
                    }
                }
            }
            Value::Bytes(s[lo..hi].to_vec())
        }
        LTrim => call(Trim(TrimWhere::Leading), vec![arg(0)], coll)?,
        RTrim => call(Trim(TrimWhere::Trailing), vec![arg(0)], coll)?,
        Repeat => {
            let s = to_text(&arg(0));
            let Some(n) = int_arg(&arg(1)) else { return Ok(Value::Null) };
            if n < 1 || s.is_empty() {
                return Ok(Value::Bytes(Vec::new()));
            }
            let n = usize::try_from(n).unwrap_or(usize::MAX);
            match s.len().checked_mul(n) {
                Some(total) if total <= MAX_RESULT => Value::Bytes(s.repeat(n)),
                _ => Value::Null,
            }
        }
        LPad | RPad => {
            let t = Text::of(&arg(0));
            let Some(len) = int_arg(&arg(1)) else { return Ok(Value::Null) };
            let pad = Text::of(&arg(2));
            if len < 0 {
                return Ok(Value::Null);
            }
            let len = usize::try_from(len).unwrap_or(usize::MAX);
            let b = t.bounds();
            let n = b.len() - 1;
            if len <= n {
                return Ok(Value::Bytes(t.bytes()[..b[len]].to_vec()));
            }
            let pb = pad.bounds();
            let pn = pb.len() - 1;
            if pn == 0 {
                return Ok(Value::Null);
            }
            let need = len - n;
            // Bytes of `need` characters of the pad repeated: whole repeats and a prefix.
            let whole = need / pn;
            let part = need % pn;
            let pad_bytes =
                pad.bytes().len().checked_mul(whole).and_then(|x| x.checked_add(pb[part]));
            match pad_bytes {
                Some(pbytes) if pbytes + t.bytes().len() <= MAX_RESULT => {
                    let mut padding = pad.bytes().repeat(whole);
                    padding.extend_from_slice(&pad.bytes()[..pb[part]]);
                    let mut out = Vec::with_capacity(pbytes + t.bytes().len());
                    if f == LPad {
                        out.extend_from_slice(&padding);
                        out.extend_from_slice(t.bytes());
                    } else {
                        out.extend_from_slice(t.bytes());
                        out.extend_from_slice(&padding);
                    }
                    Value::Bytes(out)
                }
                _ => Value::Null,
            }
        }
        ConcatWs => {
            if arg(0) == Value::Null {
                return Ok(Value::Null);
            }
            let sep = to_text(&arg(0));
            let parts: Vec<Vec<u8>> =
                a[1..].iter().filter(|v| **v != Value::Null).map(to_text).collect();
            bytes(parts.join(&sep[..]))
        }
        Locate | Instr => {
            let (needle, hay) = if f == Locate { (arg(0), arg(1)) } else { (arg(1), arg(0)) };
            let start = if f == Locate && a.len() > 2 {
                match int_arg(&arg(2)) {
                    Some(p) => p,
                    None => return Ok(Value::Null),
                }
            } else {
                1
            };
            Value::Int(locate(&Text::of(&hay), &to_text(&needle), start, coll))
        }
        Reverse => match Text::of(&arg(0)) {
            Text::Utf8(s) => Value::Bytes(s.chars().rev().collect::<String>().into_bytes()),
            Text::Bytes(mut b) => {
                b.reverse();
                Value::Bytes(b)
            }
        },
        Ascii => Value::Int(to_text(&arg(0)).first().map_or(0, |&b| i64::from(b))),
        Ord => {
            let s = to_text(&arg(0));
            let len = match s.first() {
                None => return Ok(Value::Int(0)),
                Some(0xC2..=0xDF) => 2,
                Some(0xE0..=0xEF) => 3,
                Some(0xF0..=0xF4) => 4,
                Some(_) => 1,
            };
            let len =
                if std::str::from_utf8(s.get(..len).unwrap_or(&[])).is_ok() { len } else { 1 };
            Value::Int(s[..len].iter().fold(0i64, |acc, &b| acc * 256 + i64::from(b)))
        }
        Char => {
            let mut out = Vec::new();
            for v in &a {
                let Some(n) = int_arg(v) else { continue };
                let n = n as u32;
                let be = n.to_be_bytes();
                let skip = be.iter().position(|&b| b != 0).unwrap_or(3);
                out.extend_from_slice(&be[skip..]);
            }
            Value::Bytes(out)
        }
        Space => {
            let Some(n) = int_arg(&arg(0)) else { return Ok(Value::Null) };
            let n = usize::try_from(n.max(0)).unwrap_or(usize::MAX);
            if n > MAX_RESULT {
                Value::Null
            } else {
                Value::Bytes(vec![b' '; n])
            }
        }
        Strcmp => Value::Int(match cmp_text(coll, &to_text(&arg(0)), &to_text(&arg(1))) {
            Ordering::Less => -1,
            Ordering::Equal => 0,
            Ordering::Greater => 1,
        }),
        Field => {
            let needle = arg(0);
            if needle == Value::Null {
                return Ok(Value::Int(0));
            }
            let all_strings = a.iter().all(|v| matches!(v, Value::Bytes(_)));
            let pos = a[1..].iter().position(|v| {
                if *v == Value::Null {
                    return false;
                }
                if all_strings {
                    cmp_text(coll, &to_text(&needle), &to_text(v)) == Ordering::Equal
                } else {
                    crate::eval::compare(&needle, v) == Some(Ordering::Equal)
                }
            });
            Value::Int(pos.map_or(0, |p| p as i64 + 1))
        }
        Elt => {
            let Some(n) = int_arg(&arg(0)) else { return Ok(Value::Null) };
            match usize::try_from(n).ok().filter(|&n| n >= 1).and_then(|n| a.get(n)) {
                Some(v) if *v != Value::Null => Value::Bytes(to_text(v)),
                _ => Value::Null,
            }
        }
        FindInSet => {
            let needle = to_text(&arg(0));
            let list = to_text(&arg(1));
            if needle.contains(&b',') || list.is_empty() {
                return Ok(Value::Int(0));
            }
            let pos = list
                .split(|&c| c == b',')
                .position(|item| cmp_text_no_pad(coll, item, &needle) == Ordering::Equal);
            Value::Int(pos.map_or(0, |p| p as i64 + 1))
        }
        Insert => {
            let t = Text::of(&arg(0));
            let (Some(pos), Some(len)) = (int_arg(&arg(1)), int_arg(&arg(2))) else {
                return Ok(Value::Null);
            };
            let new = to_text(&arg(3));
            let b = t.bounds();
            let n = b.len() as i64 - 1;
            if pos < 1 || pos > n {
                return Ok(Value::Bytes(t.bytes().to_vec()));
            }
            let start = (pos - 1) as usize;
            let end =
                if len < 0 || len > n - (pos - 1) { n as usize } else { start + len as usize };
            let mut out = t.bytes()[..b[start]].to_vec();
            out.extend_from_slice(&new);
            out.extend_from_slice(&t.bytes()[b[end]..]);
            bytes(out)
        }
        Format => format(&arg(0), &arg(1), a.get(2))?,
        Quote => match arg(0) {
            Value::Null => Value::Bytes(b"NULL".to_vec()),
            v => {
                let s = to_text(&v);
                let mut out = Vec::with_capacity(s.len() + 2);
                out.push(b'\'');
                for &c in &s {
                    match c {
                        b'\\' | b'\'' => out.extend_from_slice(&[b'\\', c]),
                        0 => out.extend_from_slice(b"\\0"),
                        0x1A => out.extend_from_slice(b"\\Z"),
                        c => out.push(c),
                    }
                }
                out.push(b'\'');
                bytes(out)
            }
        },
        SubstringIndex => {
            let s = to_text(&arg(0));
            let delim = to_text(&arg(1));
            let Some(count) = int_arg(&arg(2)) else { return Ok(Value::Null) };
            if delim.is_empty() || count == 0 {
                return Ok(Value::Bytes(Vec::new()));
            }
            if count > 0 {
                let mut from = 0;
                for k in 0..count {
                    match find_bytes(&s, &delim, from) {
                        Some(p) if k + 1 == count => return Ok(Value::Bytes(s[..p].to_vec())),
                        Some(p) => from = p + delim.len(),
                        None => return Ok(Value::Bytes(s)),
                    }
                }
                Value::Bytes(s)
            } else {
                let mut end = s.len();
                let mut k = 0i64;
                loop {
                    match rfind_bytes(&s[..end], &delim) {
                        Some(p) => {
                            k -= 1;
                            if k == count {
                                return Ok(Value::Bytes(s[p + delim.len()..].to_vec()));
                            }
                            end = p;
                        }
                        None => return Ok(Value::Bytes(s)),
                    }
                }
            }
        }
    })
}

/// LOCATE: the 1-based character position of the first window of `needle`'s byte length
/// (character count in latin1/ascii) at or after character `start` that equals `needle` under the collation (`my_instr_mb`), 0 if
/// none.
fn locate(hay: &Text, needle: &[u8], start: i64, coll: u16) -> i64 {
    let b = hay.bounds();
    let n = b.len() as i64 - 1;
    if start < 1 || start > n + 1 {
        return 0;
    }
    if needle.is_empty() {
        return start;
    }
    let bytes = hay.bytes();
    // In a single-byte charset (latin1, ascii) a window is the needle's character count
    // (`my_instr_simple`, which compares through the sort order: 'á' matches 'A' under
    // latin1_swedish_ci); the text is held in UTF-8, so count characters, not bytes.
    let single_byte = matches!(
        collation::by_id(coll).map(|c| c.charset),
        Some(collation::Charset::Latin1 | collation::Charset::Ascii)
    );
    let needle_chars = String::from_utf8_lossy(needle).chars().count();
    for (ci, &from) in b.iter().enumerate().take(b.len() - 1).skip((start - 1) as usize) {
        let to = if single_byte {
            match b.get(ci + needle_chars) {
                Some(&to) => to,
                None => break,
            }
        } else {
            from + needle.len()
        };
        let Some(w) = bytes.get(from..to) else { break };
        if cmp_text(coll, w, needle) == Ordering::Equal {
            return ci as i64 + 1;
        }
    }
    0
}

/// FORMAT(x, d[, locale]): `x` rounded to `d` decimals (0..=30) with thousands separators;
/// `de_DE`-style locales swap the separators, every other locale is `en_US`.
fn format(x: &Value, d: &Value, locale: Option<&Value>) -> Result<Value> {
    if *x == Value::Null || *d == Value::Null {
        return Ok(Value::Null);
    }
    // Item_func_format::val_str_ascii: `(int) val_int()` clamped to 0..30 (so 1e20, whose
    // val_int is BIGINT's maximum, truncates to -1 and gives 0 places).
    let places = (int_arg(d).unwrap_or(0) as i32).clamp(0, 30) as u8;
    let dec = match x {
        Value::Decimal(dd) => Some(*dd),
        Value::Int(i) => Some(engine::Decimal::new(i128::from(*i), 0)),
        Value::UInt(u) => Some(engine::Decimal::new(i128::from(*u), 0)),
        _ => None,
    };
    let text = match dec.and_then(|dd| dd.rescale(places)) {
        Some(r) => r.to_string(),
        None => {
            // A DOUBLE (or a string read as one): `my_double_round`, then its digits at
            // `places` decimals (`String::set_real`, my_fcvt).
            let f = match x {
                Value::Double(f) => *f,
                v => crate::eval::num_f64_of(v),
            };
            let r = crate::eval::mathfn::round_double(f, i64::from(places), false);
            let mut t = String::new();
            protocol::results::write_fixed(&mut t, if r.is_finite() { r } else { f }, places);
            t
        }
    };
    let (neg, digits) = match text.strip_prefix('-') {
        Some(t) => (true, t),
        None => (false, text.as_str()),
    };
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let german = matches!(locale, Some(Value::Bytes(l)) if l.eq_ignore_ascii_case(b"de_DE") || l.eq_ignore_ascii_case(b"de_AT") || l.eq_ignore_ascii_case(b"es_ES") || l.eq_ignore_ascii_case(b"it_IT") || l.eq_ignore_ascii_case(b"nl_NL") || l.eq_ignore_ascii_case(b"pt_BR"));
    let (tsep, dsep) = if german { ('.', ',') } else { (',', '.') };
    let mut out = String::with_capacity(text.len() + int.len() / 3 + 1);
    if neg && (int.bytes().any(|c| c != b'0') || frac.bytes().any(|c| c != b'0')) {
        out.push('-');
    }
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(tsep);
        }
        out.push(c);
    }
    if places > 0 {
        out.push(dsep);
        out.push_str(frac);
    }
    Ok(Value::Bytes(out.into_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &str) -> Value {
        Value::Bytes(v.as_bytes().to_vec())
    }
    fn i(v: i64) -> Value {
        Value::Int(v)
    }
    fn run(f: StrFn, a: Vec<Value>) -> Value {
        call(f, a, 255).expect("evaluates")
    }

    #[test]
    fn mysql_manual_examples() {
        use StrFn::*;
        assert_eq!(run(Substring, vec![s("Quadratically"), i(5)]), s("ratically"));
        assert_eq!(run(Substring, vec![s("foobarbar"), i(4)]), s("barbar"));
        assert_eq!(run(Substring, vec![s("Quadratically"), i(5), i(6)]), s("ratica"));
        assert_eq!(run(Substring, vec![s("Sakila"), i(-3)]), s("ila"));
        assert_eq!(run(Substring, vec![s("Sakila"), i(-5), i(3)]), s("aki"));
        assert_eq!(run(Substring, vec![s("Sakila"), i(0)]), s(""));
        assert_eq!(run(Left, vec![s("foobarbar"), i(5)]), s("fooba"));
        assert_eq!(run(Right, vec![s("foobarbar"), i(4)]), s("rbar"));
        assert_eq!(run(Replace, vec![s("www.mysql.com"), s("w"), s("Ww")]), s("WwWwWw.mysql.com"));
        assert_eq!(run(Trim(TrimWhere::Both), vec![s("  bar   ")]), s("bar"));
        assert_eq!(run(Trim(TrimWhere::Leading), vec![s("xxxbarxxx"), s("x")]), s("barxxx"));
        assert_eq!(run(Trim(TrimWhere::Both), vec![s("xxxbarxxx"), s("x")]), s("bar"));
        assert_eq!(run(Trim(TrimWhere::Trailing), vec![s("barxxyz"), s("xyz")]), s("barx"));
        assert_eq!(run(Repeat, vec![s("MySQL"), i(3)]), s("MySQLMySQLMySQL"));
        assert_eq!(run(LPad, vec![s("hi"), i(4), s("??")]), s("??hi"));
        assert_eq!(run(LPad, vec![s("hi"), i(1), s("??")]), s("h"));
        assert_eq!(run(RPad, vec![s("hi"), i(5), s("?")]), s("hi???"));
        assert_eq!(
            run(ConcatWs, vec![s(","), s("First name"), Value::Null, s("Last Name")]),
            s("First name,Last Name")
        );
        assert_eq!(run(Locate, vec![s("bar"), s("foobarbar")]), i(4));
        assert_eq!(run(Locate, vec![s("xbar"), s("foobar")]), i(0));
        assert_eq!(run(Locate, vec![s("bar"), s("foobarbar"), i(5)]), i(7));
        assert_eq!(run(Instr, vec![s("foobarbar"), s("bar")]), i(4));
        assert_eq!(run(Locate, vec![s("BAR"), s("foobar")]), i(4), "collation-aware");
        assert_eq!(run(Reverse, vec![s("abc")]), s("cba"));
        assert_eq!(run(Ascii, vec![s("dx")]), i(100));
        assert_eq!(run(Ord, vec![s("2")]), i(50));
        assert_eq!(run(Char, vec![i(77), i(121), i(83), i(81), s("76")]), s("MySQL"));
        assert_eq!(run(Char, vec![i(256)]), Value::Bytes(vec![1, 0]));
        assert_eq!(run(Strcmp, vec![s("text"), s("text2")]), i(-1));
        assert_eq!(run(Strcmp, vec![s("text2"), s("text")]), i(1));
        assert_eq!(run(Strcmp, vec![s("text"), s("TEXT")]), i(0));
        assert_eq!(run(Field, vec![s("Bb"), s("Aa"), s("Bb"), s("Cc"), s("Dd"), s("Ff")]), i(2));
        assert_eq!(run(Field, vec![s("Gg"), s("Aa"), s("Bb")]), i(0));
        assert_eq!(run(Elt, vec![i(1), s("Aa"), s("Bb")]), s("Aa"));
        assert_eq!(run(Elt, vec![i(4), s("Aa"), s("Bb")]), Value::Null);
        assert_eq!(run(FindInSet, vec![s("b"), s("a,b,c,d")]), i(2));
        assert_eq!(run(Insert, vec![s("Quadratic"), i(3), i(4), s("What")]), s("QuWhattic"));
        assert_eq!(run(Insert, vec![s("Quadratic"), i(-1), i(4), s("What")]), s("Quadratic"));
        assert_eq!(run(Insert, vec![s("Quadratic"), i(3), i(100), s("What")]), s("QuWhat"));
        assert_eq!(run(Format, vec![Value::Double(12332.123456), i(4)]), s("12,332.1235"));
        assert_eq!(run(Format, vec![Value::Double(12332.1), i(4)]), s("12,332.1000"));
        assert_eq!(run(Format, vec![Value::Double(12332.2), i(0)]), s("12,332"));
        assert_eq!(run(Format, vec![Value::Double(12332.2), i(2), s("de_DE")]), s("12.332,20"));
        assert_eq!(run(Quote, vec![s("Don't!")]), s("'Don\\'t!'"));
        assert_eq!(run(Quote, vec![Value::Null]), s("NULL"));
        assert_eq!(run(SubstringIndex, vec![s("www.mysql.com"), s("."), i(2)]), s("www.mysql"));
        assert_eq!(run(SubstringIndex, vec![s("www.mysql.com"), s("."), i(-2)]), s("mysql.com"));
        assert_eq!(run(Space, vec![i(6)]), s("      "));
        assert_eq!(run(Repeat, vec![s("x"), i(i64::MAX)]), Value::Null);
        assert_eq!(run(LPad, vec![s("x"), i(i64::MAX), s("ab")]), Value::Null);
    }
}
