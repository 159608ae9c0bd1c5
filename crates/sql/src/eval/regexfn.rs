//! MySQL 8.0's regular-expression functions: REGEXP_LIKE, REGEXP_INSTR, REGEXP_SUBSTR,
//! REGEXP_REPLACE and the `expr [NOT] REGEXP|RLIKE pat` operator (item_regexp_func.cc,
//! regexp/regexp_engine.cc), with mysqld's argument rules: positions and occurrences count
//! characters from 1, a position outside `1..=length+1` is 3686
//! (ER_REGEXP_INDEX_OUTOFBOUNDS_ERROR), a match type other than `c i m n u` is 1210
//! (ER_WRONG_ARGUMENTS), any NULL argument gives NULL.
//!
//! Why the `regex` crate: it is the maintained, linear-time engine of the Rust ecosystem. mysqld
//! uses ICU; the syntaxes agree on what applications write (classes, `[[:alpha:]]`, anchors,
//! alternation, counted repetition, `\d \w \s \b`, `(?i)`), and differ where noted:
//! - ICU's back-references (`\1`) and look-around are not supported by `regex`: such a
//!   pattern answers 3690 (ER_REGEXP_UNIMPLEMENTED) instead of matching;
//! - in a replacement, `$n` and `\x` follow ICU's rules (`\$` is a literal `$`); they are
//!   translated into the crate's `${n}`/`$$` forms (`icu_replacement`);
//! - matching is by Unicode code points (as ICU) unless the collation is `binary`, where it is
//!   by bytes (mysqld converts binary strings to latin1 first, so there each byte is one
//!   character too).
//!
//! Case sensitivity follows the aggregated collation of subject and pattern (case-insensitive
//! for a `_ci` collation, as mysqld's `regexp::Regexp_facade::SetPattern`), then the match
//! type's `c`/`i` (the last one wins).
//!
//! Invariants: compiled patterns are bounded by the crate's size limit (a pattern over it is
//! 3700, ER_REGEXP_PATTERN_TOO_BIG); the per-thread cache holds at most [`CACHE`] patterns.

use std::cell::RefCell;
use std::collections::HashMap;

use engine::Value;
use regex::bytes::{Regex, RegexBuilder};

use super::to_text;
use crate::ast::RegexFn;
use crate::error::{Result, SqlError};

/// How many compiled patterns each thread keeps (the statement's patterns are usually few).
const CACHE: usize = 32;
/// The compiled size a pattern may reach (mysqld's `regexp_stack_limit` bounds ICU likewise).
const SIZE_LIMIT: usize = 8 << 20;

impl RegexFn {
    /// The function named `name` with its (min, max) argument counts.
    pub(crate) fn by_name(name: &str) -> Option<(RegexFn, usize, usize)> {
        Some(match name {
            "regexp_like" => (RegexFn::Like, 2, 3),
            "regexp_instr" => (RegexFn::Instr, 2, 6),
            "regexp_substr" => (RegexFn::Substr, 2, 5),
            "regexp_replace" => (RegexFn::Replace, 3, 6),
            _ => return None,
        })
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            RegexFn::Like => "regexp_like",
            RegexFn::Instr => "regexp_instr",
            RegexFn::Substr => "regexp_substr",
            RegexFn::Replace => "regexp_replace",
        }
    }

    /// Whether the result is BIGINT (the others are strings).
    pub(crate) fn is_integer(self) -> bool {
        matches!(self, RegexFn::Like | RegexFn::Instr)
    }
}

fn err(code: u16, message: &str) -> SqlError {
    SqlError::Other { code, sqlstate: "HY000", message: message.into() }
}

/// Flags of a compiled pattern.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Flags {
    icase: bool,
    multi_line: bool,
    dot_all: bool,
    unicode: bool,
}

fn flags(f: RegexFn, coll: u16, match_type: Option<&[u8]>) -> Result<Flags> {
    let info = collation::by_id(coll);
    let binary = coll == collation::BINARY;
    let icase = info.is_some_and(|c| c.name.ends_with("_ci"));
    let mut fl = Flags { icase, multi_line: false, dot_all: false, unicode: !binary };
    for c in match_type.unwrap_or_default() {
        match c {
            b'c' => fl.icase = false,
            b'i' => fl.icase = true,
            b'm' => fl.multi_line = true,
            b'n' => fl.dot_all = true,
            b'u' => {}
            _ => {
                return Err(SqlError::Other {
                    code: 1210,
                    sqlstate: "HY000",
                    message: format!("Incorrect arguments to {}", f.name()),
                })
            }
        }
    }
    Ok(fl)
}

thread_local! {
    static COMPILED: RefCell<HashMap<(Vec<u8>, Flags), Regex>> = RefCell::new(HashMap::new());
}

/// The compiled `pattern` (cached per thread).
fn compile(pattern: &[u8], fl: Flags) -> Result<Regex> {
    let key = (pattern.to_vec(), fl);
    if let Some(r) = COMPILED.with(|c| c.borrow().get(&key).cloned()) {
        return Ok(r);
    }
    let text = String::from_utf8_lossy(pattern);
    let re = RegexBuilder::new(&text)
        .case_insensitive(fl.icase)
        .multi_line(fl.multi_line)
        .dot_matches_new_line(fl.dot_all)
        .unicode(fl.unicode)
        .size_limit(SIZE_LIMIT)
        .build()
        .map_err(compile_error)?;
    COMPILED.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= CACHE {
            c.clear();
        }
        c.insert(key, re.clone());
    });
    Ok(re)
}

/// mysqld's error for a pattern ICU refuses (the nearest of ER_REGEXP_*).
fn compile_error(e: regex::Error) -> SqlError {
    let text = e.to_string();
    match e {
        regex::Error::CompiledTooBig(_) => {
            err(3700, "Pattern exceeds limits on size or complexity.")
        }
        _ if text.contains("unclosed group") || text.contains("unopened group") => {
            err(3691, "Mismatched parenthesis in regular expression.")
        }
        _ if text.contains("unclosed character class") => {
            err(3696, "The regular expression contains an unclosed bracket expression.")
        }
        _ if text.contains("look-around") || text.contains("backreferences") => {
            err(3690, "The regular expression contains a feature that is not implemented in this library version.")
        }
        _ if text.contains("repetition quantifier expects") => {
            err(3688, "Syntax error in regular expression on line 1, character 1.")
        }
        _ if text.contains("decimal") || text.contains("counted repetition") => {
            err(3692, "Incorrect description of a {min,max} interval.")
        }
        _ if text.contains("escape") => {
            err(3689, "Unrecognized escape sequence in regular expression.")
        }
        _ => err(3685, "Illegal argument to a regular expression."),
    }
}

/// An integer argument (positions and occurrences), or None for NULL.
fn int_arg(v: &Value) -> Option<i64> {
    match super::num(v)? {
        super::Num::Int(i) => Some(i.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64),
        n => {
            let d = super::num_f64(n).round();
            Some(d.clamp(i64::MIN as f64, i64::MAX as f64) as i64)
        }
    }
}

/// Byte offsets of the character boundaries of `s` (every byte when `bytes`), ending with
/// `s.len()`.
fn boundaries(s: &[u8], bytes: bool) -> Vec<usize> {
    let mut out = Vec::with_capacity(s.len() + 1);
    if bytes {
        out.extend(0..=s.len());
        return out;
    }
    let mut i = 0;
    while i < s.len() {
        out.push(i);
        let b = s[i];
        let w = if b < 0x80 {
            1
        } else if b >> 5 == 0b110 {
            2
        } else if b >> 4 == 0b1110 {
            3
        } else if b >> 3 == 0b11110 {
            4
        } else {
            1
        };
        i = (i + w).min(s.len());
    }
    out.push(s.len());
    out
}

/// Evaluates `f` over its evaluated arguments; `coll` is the aggregated collation of the
/// subject and the pattern.
pub(crate) fn call(f: RegexFn, a: &[Value], coll: u16) -> Result<Value> {
    if a.contains(&Value::Null) {
        return Ok(Value::Null);
    }
    let subject = to_text(&a[0]);
    let pattern = to_text(&a[1]);
    // The optional arguments after the fixed ones: (pos, occurrence, return_option, type).
    let rest = match f {
        RegexFn::Replace => &a[3..],
        _ => &a[2..],
    };
    let (pos, occurrence, return_end, match_type) = match f {
        RegexFn::Like => (1, 1, false, rest.first()),
        RegexFn::Instr => (
            rest.first().and_then(int_arg).unwrap_or(1),
            rest.get(1).and_then(int_arg).unwrap_or(1),
            match rest.get(2).map(int_arg) {
                None => false,
                Some(Some(0)) => false,
                Some(Some(1)) => true,
                Some(_) => {
                    return Err(SqlError::Other {
                        code: 1210,
                        sqlstate: "HY000",
                        message:
                            "Incorrect arguments to regexp_instr: return_option must be 1 or 0."
                                .into(),
                    })
                }
            },
            rest.get(3),
        ),
        RegexFn::Substr | RegexFn::Replace => (
            rest.first().and_then(int_arg).unwrap_or(1),
            rest.get(1).and_then(int_arg).unwrap_or(if f == RegexFn::Replace { 0 } else { 1 }),
            false,
            rest.get(2),
        ),
    };
    let match_type = match_type.map(to_text);
    let fl = flags(f, coll, match_type.as_deref())?;
    let re = compile(&pattern, fl)?;
    let bounds = boundaries(&subject, !fl.unicode);
    let chars = bounds.len() - 1;
    if pos < 1 || pos as u64 > chars as u64 + 1 {
        return Err(err(3686, "Index out of bounds in regular expression search."));
    }
    let start = bounds[(pos - 1) as usize];
    let char_at = |byte: usize| bounds.partition_point(|b| *b < byte) as i64 + 1;
    Ok(match f {
        RegexFn::Like => Value::Int(i64::from(re.is_match(&subject))),
        RegexFn::Instr | RegexFn::Substr => {
            let nth = occurrence.max(1) as usize;
            let m = re.find_iter(&subject[start..]).nth(nth - 1);
            match (f, m) {
                (RegexFn::Instr, None) => Value::Int(0),
                (RegexFn::Instr, Some(m)) => {
                    Value::Int(char_at(start + if return_end { m.end() } else { m.start() }))
                }
                (_, None) => Value::Null,
                (_, Some(m)) => Value::Bytes(subject[start + m.start()..start + m.end()].to_vec()),
            }
        }
        RegexFn::Replace => {
            let repl = icu_replacement(&to_text(&a[2]), re.captures_len());
            let tail = &subject[start..];
            let replaced = if occurrence <= 0 {
                re.replace_all(tail, repl.as_slice()).into_owned()
            } else {
                let mut out = Vec::with_capacity(tail.len());
                let mut last = 0;
                if let Some(caps) = re.captures_iter(tail).nth(occurrence as usize - 1) {
                    let m = caps.get(0).expect("group 0 is the match");
                    out.extend_from_slice(&tail[..m.start()]);
                    caps.expand(&repl, &mut out);
                    last = m.end();
                }
                out.extend_from_slice(&tail[last..]);
                out
            };
            let mut out = subject[..start].to_vec();
            out.extend_from_slice(&replaced);
            Value::Bytes(out)
        }
    })
}

/// ICU's replacement syntax in the `regex` crate's: `$n` (the longest run of digits that names
/// a group) becomes `${n}`, `\c` is the character `c`, a literal `$` is `$$`.
fn icu_replacement(r: &[u8], groups: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(r.len() + 8);
    let mut i = 0;
    while i < r.len() {
        match r[i] {
            b'\\' if i + 1 < r.len() => {
                if r[i + 1] == b'$' {
                    out.extend_from_slice(b"$$");
                } else {
                    out.push(r[i + 1]);
                }
                i += 2;
            }
            b'$' => {
                let mut j = i + 1;
                let mut n = 0usize;
                let mut end = j;
                while j < r.len() && r[j].is_ascii_digit() {
                    let next = n * 10 + usize::from(r[j] - b'0');
                    if j > i + 1 && next >= groups {
                        break;
                    }
                    n = next;
                    j += 1;
                    end = j;
                }
                if end == i + 1 {
                    out.extend_from_slice(b"$$");
                    i += 1;
                } else {
                    out.extend_from_slice(format!("${{{n}}}").as_bytes());
                    i = end;
                }
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Value {
        Value::Bytes(x.as_bytes().to_vec())
    }

    #[test]
    fn regexp_functions_follow_mysqld() {
        let ci = collation::DEFAULT;
        assert_eq!(call(RegexFn::Like, &[s("Abc"), s("^a")], ci).unwrap(), Value::Int(1));
        assert_eq!(call(RegexFn::Like, &[s("Abc"), s("^a"), s("c")], ci).unwrap(), Value::Int(0));
        assert_eq!(
            call(RegexFn::Like, &[s("Abc"), s("^a")], collation::BINARY).unwrap(),
            Value::Int(0)
        );
        assert_eq!(
            call(RegexFn::Instr, &[s("dog cat dog"), s("dog"), Value::Int(2)], ci).unwrap(),
            Value::Int(9)
        );
        assert_eq!(
            call(
                RegexFn::Substr,
                &[s("abc def ghi"), s("[a-z]+"), Value::Int(1), Value::Int(3)],
                ci
            )
            .unwrap(),
            s("ghi")
        );
        assert_eq!(call(RegexFn::Replace, &[s("a b c"), s("b"), s("X")], ci).unwrap(), s("a X c"));
        assert_eq!(
            call(
                RegexFn::Replace,
                &[s("abc def ghi"), s("[a-z]+"), s("X"), Value::Int(1), Value::Int(3)],
                ci
            )
            .unwrap(),
            s("abc def X")
        );
        assert_eq!(
            call(RegexFn::Replace, &[s("ab12"), s("([a-z]+)([0-9]+)"), s("$2-$1")], ci).unwrap(),
            s("12-ab")
        );
        assert_eq!(
            call(RegexFn::Instr, &[s("ääb"), s("b")], ci).unwrap(),
            Value::Int(3),
            "positions count characters"
        );
        assert_eq!(call(RegexFn::Like, &[s("a"), s("(")], ci).unwrap_err().code(), 3691);
        assert_eq!(
            call(RegexFn::Instr, &[s("a"), s("a"), Value::Int(3)], ci).unwrap_err().code(),
            3686
        );
        assert_eq!(call(RegexFn::Like, &[s("a"), s("a"), s("x")], ci).unwrap_err().code(), 1210);
        assert_eq!(call(RegexFn::Like, &[Value::Null, s("a")], ci).unwrap(), Value::Null);
    }
}
