//! JSON values as MySQL 8.0 keeps them: the document model, the text parser (validation on
//! write), the printer (mysqld's canonical text), and MySQL's binary JSON format (what a
//! JSON column's row image carries in the binlog).
//!
//! Why by hand: mysqld's rules are not a JSON library's. Object keys are sorted by length, then
//! bytes, and the last duplicate wins (`Json_object::add_alias`); the text form puts `": "` and
//! `", "` between members and prints doubles as `my_gcvt` with a `.0` kept on integral values
//! (`Json_wrapper::to_string`); integers keep their class (int64/uint64/double, as
//! `Json_dom::parse` over rapidjson); nesting deeper than 100 is error 3157
//! (`JSON_DOCUMENT_MAX_DEPTH`); and the binary format is json_binary.cc's
//! (`serialize_json_value`), which no Rust crate writes. serde_json would also recurse to its own
//! limit of 128 and report line/column rather than the byte position mysqld's errors name.
//!
//! Invariants:
//! - Every recursion (parse, print, binary encoding, path walks) is bounded by
//!   [`MAX_DEPTH`]: a parsed document is at most that deep, and documents are built only by the
//!   parser or by functions that check the depth of what they build ([`Json::depth`]).
//! - [`Json::Object`] members are sorted by [`key_order`] and keys are distinct.

use std::cmp::Ordering;
use std::fmt::{self, Write as _};

use crate::value::Decimal;

/// mysqld's `JSON_DOCUMENT_MAX_DEPTH`.
pub const MAX_DEPTH: usize = 100;

/// A JSON document.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Double(f64),
    /// A DECIMAL put into JSON (`JSON_ARRAY(1.50)`): printed with its scale.
    Decimal(Decimal),
    Str(String),
    Array(Vec<Json>),
    /// Members sorted by [`key_order`], keys distinct.
    Object(Vec<(String, Json)>),
}

/// Why a text is not JSON: mysqld's message and the byte position it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JsonError {
    /// `Invalid JSON text: "<reason>" at position <pos>` (3140).
    Syntax { reason: &'static str, pos: usize },
    /// Deeper than [`MAX_DEPTH`] (3157).
    TooDeep,
}

/// mysqld's key order in objects (json_dom.h `Json_key_comparator`): shorter keys first, then
/// bytes.
pub fn key_order(a: &str, b: &str) -> Ordering {
    a.len().cmp(&b.len()).then_with(|| a.as_bytes().cmp(b.as_bytes()))
}

impl Json {
    /// Parses JSON text (any value at the top, surrounding white space allowed).
    pub fn parse(text: &[u8]) -> Result<Json, JsonError> {
        let mut p = Parser { s: text, pos: 0 };
        p.ws();
        if p.pos == text.len() {
            return Err(JsonError::Syntax { reason: "The document is empty.", pos: p.pos });
        }
        let v = p.value(1)?;
        p.ws();
        if p.pos != text.len() {
            return Err(JsonError::Syntax {
                reason: "The document root must not be followed by other values.",
                pos: p.pos,
            });
        }
        Ok(v)
    }

    /// An object from members in any order (the last of duplicate keys wins).
    pub fn object(members: Vec<(String, Json)>) -> Json {
        let mut out: Vec<(String, Json)> = Vec::with_capacity(members.len());
        for (k, v) in members {
            match out.binary_search_by(|(o, _)| key_order(o, &k)) {
                Ok(i) => out[i].1 = v,
                Err(i) => out.insert(i, (k, v)),
            }
        }
        Json::Object(out)
    }

    /// Nesting depth (a scalar is 1), counted without recursion deeper than the value.
    pub fn depth(&self) -> usize {
        match self {
            Json::Array(a) => 1 + a.iter().map(Json::depth).max().unwrap_or(0),
            Json::Object(o) => 1 + o.iter().map(|(_, v)| v.depth()).max().unwrap_or(0),
            _ => 1,
        }
    }

    /// mysqld's JSON_TYPE names.
    pub fn type_name(&self) -> &'static str {
        match self {
            Json::Null => "NULL",
            Json::Bool(_) => "BOOLEAN",
            Json::Int(_) => "INTEGER",
            Json::UInt(_) => "UNSIGNED INTEGER",
            Json::Double(_) => "DOUBLE",
            Json::Decimal(_) => "DECIMAL",
            Json::Str(_) => "STRING",
            Json::Array(_) => "ARRAY",
            Json::Object(_) => "OBJECT",
        }
    }

    /// The canonical text as bytes (what a JSON column stores and prints).
    pub fn to_text(&self) -> Vec<u8> {
        self.to_string().into_bytes()
    }

    /// Position in mysqld's JSON type order for comparisons (json_dom.cc
    /// `type_comparison`): NULL < numbers < strings < objects < arrays < booleans.
    fn rank(&self) -> u8 {
        match self {
            Json::Null => 0,
            Json::Int(_) | Json::UInt(_) | Json::Double(_) | Json::Decimal(_) => 1,
            Json::Str(_) => 2,
            Json::Object(_) => 3,
            Json::Array(_) => 4,
            Json::Bool(_) => 5,
        }
    }

    fn as_f64(&self) -> Option<f64> {
        match self {
            Json::Int(i) => Some(*i as f64),
            Json::UInt(u) => Some(*u as f64),
            Json::Double(d) => Some(*d),
            Json::Decimal(d) => d.to_string().parse().ok(),
            _ => None,
        }
    }

    /// mysqld's JSON comparison (`Json_wrapper::compare`), for `=`, `<` and ORDER BY over JSON
    /// values.
    pub fn compare(&self, other: &Json) -> Ordering {
        match (self, other) {
            (Json::Int(a), Json::Int(b)) => a.cmp(b),
            (Json::UInt(a), Json::UInt(b)) => a.cmp(b),
            (Json::Int(a), Json::UInt(b)) => i128::from(*a).cmp(&i128::from(*b)),
            (Json::UInt(a), Json::Int(b)) => i128::from(*a).cmp(&i128::from(*b)),
            (a, b) if a.rank() == 1 && b.rank() == 1 => {
                a.as_f64().partial_cmp(&b.as_f64()).unwrap_or(Ordering::Equal)
            }
            (Json::Str(a), Json::Str(b)) => a.as_bytes().cmp(b.as_bytes()),
            (Json::Bool(a), Json::Bool(b)) => a.cmp(b),
            (Json::Array(a), Json::Array(b)) => {
                for (x, y) in a.iter().zip(b) {
                    let o = x.compare(y);
                    if o != Ordering::Equal {
                        return o;
                    }
                }
                a.len().cmp(&b.len())
            }
            (Json::Object(a), Json::Object(b)) => {
                // Objects are only equal or not (mysqld orders unequal ones arbitrarily but
                // consistently); compare member by member.
                a.len().cmp(&b.len()).then_with(|| {
                    for ((ka, va), (kb, vb)) in a.iter().zip(b) {
                        let o = key_order(ka, kb).then_with(|| va.compare(vb));
                        if o != Ordering::Equal {
                            return o;
                        }
                    }
                    Ordering::Equal
                })
            }
            (a, b) => a.rank().cmp(&b.rank()),
        }
    }
}

/// Reads a JSON column's stored text (written by [`Json::to_text`]).
pub fn parse_stored(text: &[u8]) -> Json {
    Json::parse(text).unwrap_or(Json::Null)
}

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.s.get(self.pos) {
            self.pos += 1;
        }
    }

    fn err(&self, reason: &'static str) -> JsonError {
        JsonError::Syntax { reason, pos: self.pos }
    }

    fn value(&mut self, depth: usize) -> Result<Json, JsonError> {
        if depth > MAX_DEPTH {
            return Err(JsonError::TooDeep);
        }
        match self.s.get(self.pos) {
            Some(b'{') => {
                self.pos += 1;
                let mut members = Vec::new();
                self.ws();
                if self.s.get(self.pos) == Some(&b'}') {
                    self.pos += 1;
                    return Ok(Json::Object(members));
                }
                loop {
                    self.ws();
                    if self.s.get(self.pos) != Some(&b'"') {
                        return Err(self.err("Missing a name for object member."));
                    }
                    let k = self.string()?;
                    self.ws();
                    if self.s.get(self.pos) != Some(&b':') {
                        return Err(self.err("Missing a colon after a name of object member."));
                    }
                    self.pos += 1;
                    self.ws();
                    let v = self.value(depth + 1)?;
                    members.push((k, v));
                    self.ws();
                    match self.s.get(self.pos) {
                        Some(b',') => self.pos += 1,
                        Some(b'}') => {
                            self.pos += 1;
                            return Ok(Json::object(members));
                        }
                        _ => return Err(self.err("Missing a comma or '}' after an object member.")),
                    }
                }
            }
            Some(b'[') => {
                self.pos += 1;
                let mut items = Vec::new();
                self.ws();
                if self.s.get(self.pos) == Some(&b']') {
                    self.pos += 1;
                    return Ok(Json::Array(items));
                }
                loop {
                    self.ws();
                    items.push(self.value(depth + 1)?);
                    self.ws();
                    match self.s.get(self.pos) {
                        Some(b',') => self.pos += 1,
                        Some(b']') => {
                            self.pos += 1;
                            return Ok(Json::Array(items));
                        }
                        _ => return Err(self.err("Missing a comma or ']' after an array element.")),
                    }
                }
            }
            Some(b'"') => Ok(Json::Str(self.string()?)),
            Some(b't') => self.literal(b"true", Json::Bool(true)),
            Some(b'f') => self.literal(b"false", Json::Bool(false)),
            Some(b'n') => self.literal(b"null", Json::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.err("Invalid value.")),
        }
    }

    fn literal(&mut self, word: &[u8], v: Json) -> Result<Json, JsonError> {
        if self.s[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(v)
        } else {
            Err(self.err("Invalid value."))
        }
    }

    fn number(&mut self) -> Result<Json, JsonError> {
        let start = self.pos;
        let digits = |p: &mut Self| {
            let s = p.pos;
            while p.s.get(p.pos).is_some_and(u8::is_ascii_digit) {
                p.pos += 1;
            }
            p.pos - s
        };
        if self.s.get(self.pos) == Some(&b'-') {
            self.pos += 1;
        }
        let int_start = self.pos;
        let n = digits(self);
        if n == 0 {
            return Err(self.err("Invalid value."));
        }
        if n > 1 && self.s[int_start] == b'0' {
            self.pos = int_start + 1;
            return Err(JsonError::Syntax {
                reason: "The document root must not be followed by other values.",
                pos: self.pos,
            });
        }
        let mut float = false;
        if self.s.get(self.pos) == Some(&b'.') {
            self.pos += 1;
            float = true;
            if digits(self) == 0 {
                return Err(self.err("Missing fraction part in number."));
            }
        }
        if let Some(b'e' | b'E') = self.s.get(self.pos) {
            self.pos += 1;
            float = true;
            if let Some(b'+' | b'-') = self.s.get(self.pos) {
                self.pos += 1;
            }
            if digits(self) == 0 {
                return Err(self.err("Missing exponent in number."));
            }
        }
        // ASCII digits and signs only: valid UTF-8.
        let text = std::str::from_utf8(&self.s[start..self.pos]).unwrap_or("0");
        if !float {
            if let Ok(i) = text.parse::<i64>() {
                return Ok(Json::Int(i));
            }
            if let Ok(u) = text.parse::<u64>() {
                return Ok(Json::UInt(u));
            }
        }
        match text.parse::<f64>() {
            Ok(d) if d.is_finite() => Ok(Json::Double(d)),
            _ => {
                self.pos = start;
                Err(self.err("Number too big to be stored in double."))
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let h = self
            .s
            .get(self.pos..self.pos + 4)
            .ok_or_else(|| self.err("Incorrect hex digit after \\u escape in string."))?;
        let text = std::str::from_utf8(h).ok();
        let v = text
            .filter(|t| t.bytes().all(|c| c.is_ascii_hexdigit()))
            .and_then(|t| u32::from_str_radix(t, 16).ok())
            .ok_or_else(|| self.err("Incorrect hex digit after \\u escape in string."))?;
        self.pos += 4;
        Ok(v)
    }

    fn string(&mut self) -> Result<String, JsonError> {
        let open = self.pos;
        self.pos += 1;
        let mut out = Vec::new();
        loop {
            let Some(&c) = self.s.get(self.pos) else {
                self.pos = open;
                return Err(self.err("Missing a closing quotation mark in string."));
            };
            self.pos += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let Some(&e) = self.s.get(self.pos) else {
                        return Err(self.err("Invalid escape character in string."));
                    };
                    self.pos += 1;
                    match e {
                        b'"' => out.push(b'"'),
                        b'\\' => out.push(b'\\'),
                        b'/' => out.push(b'/'),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'n' => out.push(b'\n'),
                        b'r' => out.push(b'\r'),
                        b't' => out.push(b'\t'),
                        b'u' => {
                            let mut cp = self.hex4()?;
                            if (0xD800..0xDC00).contains(&cp) {
                                if self.s.get(self.pos..self.pos + 2) != Some(b"\\u") {
                                    return Err(
                                        self.err("The surrogate pair in string is invalid.")
                                    );
                                }
                                self.pos += 2;
                                let lo = self.hex4()?;
                                if !(0xDC00..0xE000).contains(&lo) {
                                    return Err(
                                        self.err("The surrogate pair in string is invalid.")
                                    );
                                }
                                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                            }
                            let ch = char::from_u32(cp).ok_or_else(|| {
                                self.err("The surrogate pair in string is invalid.")
                            })?;
                            let mut buf = [0; 4];
                            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                        }
                        _ => {
                            self.pos -= 1;
                            return Err(self.err("Invalid escape character in string."));
                        }
                    }
                }
                0..=0x1f => {
                    self.pos -= 1;
                    return Err(self.err("Invalid encoding in string."));
                }
                c => out.push(c),
            }
        }
        String::from_utf8(out)
            .map_err(|_| JsonError::Syntax { reason: "Invalid encoding in string.", pos: open })
    }
}

/// A double as mysqld prints it in JSON: the shortest text that reads back (`my_gcvt` with
/// 17 digits, then trimmed), with `.0` on integral values and `e` notation outside
/// [1e-5, 1e15) (`1e300`, `1e-7`).
pub fn format_double(d: f64) -> String {
    if d == 0.0 {
        return if d.is_sign_negative() { "-0.0".into() } else { "0.0".into() };
    }
    let exp = d.abs().log10().floor() as i32;
    if !(-5..15).contains(&exp) {
        // Rust's `{:e}` is the shortest round-trip mantissa: 1e300, 1.5e-7.
        let s = format!("{d:e}");
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        let e: i32 = e.parse().unwrap_or(0);
        return format!("{m}e{e}");
    }
    let s = format!("{d}");
    if s.contains('.') {
        s
    } else {
        format!("{s}.0")
    }
}

fn write_str(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    f.write_char('"')?;
    for c in s.chars() {
        match c {
            '"' => f.write_str("\\\"")?,
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\r' => f.write_str("\\r")?,
            '\t' => f.write_str("\\t")?,
            '\u{8}' => f.write_str("\\b")?,
            '\u{c}' => f.write_str("\\f")?,
            c if (c as u32) < 0x20 => write!(f, "\\u{:04x}", c as u32)?,
            c => f.write_char(c)?,
        }
    }
    f.write_char('"')
}

impl fmt::Display for Json {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Json::Null => f.write_str("null"),
            Json::Bool(b) => f.write_str(if *b { "true" } else { "false" }),
            Json::Int(i) => write!(f, "{i}"),
            Json::UInt(u) => write!(f, "{u}"),
            Json::Double(d) => f.write_str(&format_double(*d)),
            Json::Decimal(d) => write!(f, "{d}"),
            Json::Str(s) => write_str(f, s),
            Json::Array(a) => {
                f.write_char('[')?;
                for (i, v) in a.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_char(']')
            }
            Json::Object(o) => {
                f.write_char('{')?;
                for (i, (k, v)) in o.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write_str(f, k)?;
                    write!(f, ": {v}")?;
                }
                f.write_char('}')
            }
        }
    }
}

// ---- MySQL's binary JSON (json_binary.cc) ------------------------------------------------------

mod bin {
    pub const SMALL_OBJECT: u8 = 0x00;
    pub const LARGE_OBJECT: u8 = 0x01;
    pub const SMALL_ARRAY: u8 = 0x02;
    pub const LARGE_ARRAY: u8 = 0x03;
    pub const LITERAL: u8 = 0x04;
    pub const INT16: u8 = 0x05;
    pub const UINT16: u8 = 0x06;
    pub const INT32: u8 = 0x07;
    pub const UINT32: u8 = 0x08;
    pub const INT64: u8 = 0x09;
    pub const UINT64: u8 = 0x0a;
    pub const DOUBLE: u8 = 0x0b;
    pub const STRING: u8 = 0x0c;
    pub const OPAQUE: u8 = 0x0f;
    pub const LITERAL_NULL: u8 = 0x00;
    pub const LITERAL_TRUE: u8 = 0x01;
    pub const LITERAL_FALSE: u8 = 0x02;
}

/// The document in MySQL's binary JSON format (json_binary.cc `serialize_json_value`): a type
/// byte, then the value. Objects and arrays use the small format (2-byte counts and offsets)
/// when it fits, else the large one (4-byte), as mysqld. `None` if the document needs offsets
/// above 4 GiB.
pub fn to_binary(doc: &Json) -> Option<Vec<u8>> {
    let mut out = vec![container_type(doc, false)];
    if let Json::Array(_) | Json::Object(_) = doc {
        if write_container(&mut out, doc, false).is_none() {
            out.truncate(1);
            out[0] = container_type(doc, true);
            write_container(&mut out, doc, true)?;
        }
    } else {
        write_value(&mut out, doc)?;
    }
    Some(out)
}

/// The type byte of a value, or None for one that is never inlined (written at its offset).
fn value_type(v: &Json, _large: bool) -> Option<u8> {
    Some(match v {
        Json::Null | Json::Bool(_) => bin::LITERAL,
        Json::Int(i) if i16::try_from(*i).is_ok() => bin::INT16,
        Json::Int(i) if i32::try_from(*i).is_ok() => bin::INT32,
        Json::Int(_) => bin::INT64,
        Json::UInt(u) if *u <= u64::from(u16::MAX) => bin::UINT16,
        Json::UInt(u) if *u <= u64::from(u32::MAX) => bin::UINT32,
        Json::UInt(_) => bin::UINT64,
        Json::Double(_) => bin::DOUBLE,
        Json::Decimal(_) => bin::OPAQUE,
        Json::Str(_) => bin::STRING,
        Json::Array(_) => return None,
        Json::Object(_) => return None,
    })
}

fn container_type(v: &Json, large: bool) -> u8 {
    match (v, large) {
        (Json::Array(_), false) => bin::SMALL_ARRAY,
        (Json::Array(_), true) => bin::LARGE_ARRAY,
        (Json::Object(_), false) => bin::SMALL_OBJECT,
        (Json::Object(_), true) => bin::LARGE_OBJECT,
        _ => value_type(v, large).unwrap_or(bin::LITERAL),
    }
}

/// Writes the value (without its type byte) to `out`. Containers try the small format first.
fn write_value(out: &mut Vec<u8>, v: &Json) -> Option<()> {
    match v {
        Json::Null => out.push(bin::LITERAL_NULL),
        Json::Bool(true) => out.push(bin::LITERAL_TRUE),
        Json::Bool(false) => out.push(bin::LITERAL_FALSE),
        Json::Int(i) => match value_type(v, false) {
            Some(bin::INT16) => out.extend_from_slice(&(*i as i16).to_le_bytes()),
            Some(bin::INT32) => out.extend_from_slice(&(*i as i32).to_le_bytes()),
            _ => out.extend_from_slice(&i.to_le_bytes()),
        },
        Json::UInt(u) => match value_type(v, false) {
            Some(bin::UINT16) => out.extend_from_slice(&(*u as u16).to_le_bytes()),
            Some(bin::UINT32) => out.extend_from_slice(&(*u as u32).to_le_bytes()),
            _ => out.extend_from_slice(&u.to_le_bytes()),
        },
        Json::Double(d) => out.extend_from_slice(&d.to_le_bytes()),
        Json::Decimal(d) => {
            // OPAQUE: field type NEWDECIMAL (246), length, then precision, scale and the
            // binary decimal (my_decimal2binary), as `Json_decimal::get_binary`.
            let text = d.to_string();
            let digits =
                text.trim_start_matches('-').replace('.', "").trim_start_matches('0').len();
            let scale = usize::from(d.scale);
            let precision = digits.max(scale).max(1);
            let mut dec = Vec::new();
            binlog::event::encode_decimal_bytes(&mut dec, precision, scale, &text)?;
            out.push(246);
            write_var_len(out, dec.len() + 2);
            out.push(precision as u8);
            out.push(scale as u8);
            out.extend_from_slice(&dec);
        }
        Json::Str(s) => {
            write_var_len(out, s.len());
            out.extend_from_slice(s.as_bytes());
        }
        Json::Array(_) | Json::Object(_) => {
            let start = out.len();
            if write_container(out, v, false).is_none() {
                out.truncate(start);
                write_container(out, v, true)?;
            }
        }
    }
    Some(())
}

fn write_var_len(out: &mut Vec<u8>, mut n: usize) {
    loop {
        let b = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// Whether a value is stored inline in its value entry (json_binary.cc `inlined_type`).
fn inlined(v: &Json, large: bool) -> bool {
    match value_type(v, large) {
        Some(bin::LITERAL | bin::INT16 | bin::UINT16) => true,
        Some(bin::INT32 | bin::UINT32) => large,
        _ => false,
    }
}

/// Writes an array or object in the small or large format; None if an offset overflows it.
fn write_container(out: &mut Vec<u8>, v: &Json, large: bool) -> Option<()> {
    let start = out.len();
    let size = if large { 4 } else { 2 };
    let put = |out: &mut Vec<u8>, n: usize| -> Option<()> {
        if large {
            out.extend_from_slice(&u32::try_from(n).ok()?.to_le_bytes());
        } else {
            out.extend_from_slice(&u16::try_from(n).ok()?.to_le_bytes());
        }
        Some(())
    };
    let (keys, values): (Vec<&str>, Vec<&Json>) = match v {
        Json::Array(a) => (Vec::new(), a.iter().collect()),
        Json::Object(o) => o.iter().map(|(k, v)| (k.as_str(), v)).unzip(),
        _ => return None,
    };
    let count = values.len();
    put(out, count)?;
    put(out, 0)?; // total size, patched below
                  // Header: key entries (offset + u16 length), value entries (type + offset/inline).
    let key_entries = out.len();
    for _ in &keys {
        put(out, 0)?;
        out.extend_from_slice(&[0, 0]);
    }
    let value_entries = out.len();
    for _ in &values {
        out.push(0);
        put(out, 0)?;
    }
    for (i, k) in keys.iter().enumerate() {
        let off = out.len() - start;
        let at = key_entries + i * (size + 2);
        patch(out, at, off, large)?;
        let len = u16::try_from(k.len()).ok()?;
        out[at + size..at + size + 2].copy_from_slice(&len.to_le_bytes());
        out.extend_from_slice(k.as_bytes());
    }
    for (i, val) in values.iter().enumerate() {
        let at = value_entries + i * (1 + size);
        out[at] = container_type(val, large);
        if inlined(val, large) {
            let mut tmp = Vec::new();
            write_value(&mut tmp, val)?;
            out[at + 1..at + 1 + tmp.len()].copy_from_slice(&tmp);
        } else {
            let off = out.len() - start;
            patch(out, at + 1, off, large)?;
            if let Json::Array(_) | Json::Object(_) = val {
                // Each nested container is small unless it does not fit (json_binary.cc
                // `serialize_json_value` retries a too-big one as large).
                let s = out.len();
                if write_container(out, val, false).is_none() {
                    out.truncate(s);
                    write_container(out, val, true)?;
                    out[at] = container_type(val, true);
                } else {
                    out[at] = container_type(val, false);
                }
            } else {
                write_value(out, val)?;
            }
        }
    }
    let total = out.len() - start;
    patch(out, start + size, total, large)?;
    Some(())
}

fn patch(out: &mut [u8], at: usize, n: usize, large: bool) -> Option<()> {
    if large {
        out[at..at + 4].copy_from_slice(&u32::try_from(n).ok()?.to_le_bytes());
    } else {
        out[at..at + 2].copy_from_slice(&u16::try_from(n).ok()?.to_le_bytes());
    }
    Some(())
}

/// Reads MySQL's binary JSON (the replica applier's direction, and the tests' check of
/// [`to_binary`]). Bounded by [`MAX_DEPTH`]; every offset and count is checked against the
/// bytes present.
pub fn from_binary(b: &[u8]) -> Option<Json> {
    let (&t, rest) = b.split_first()?;
    read_value(t, rest, 1)
}

fn read_value(t: u8, d: &[u8], depth: usize) -> Option<Json> {
    if depth > MAX_DEPTH {
        return None;
    }
    let le = |n: usize| -> Option<u64> {
        let s = d.get(..n)?;
        let mut v = 0u64;
        for (i, b) in s.iter().enumerate() {
            v |= u64::from(*b) << (8 * i);
        }
        Some(v)
    };
    Some(match t {
        bin::LITERAL => match *d.first()? {
            bin::LITERAL_NULL => Json::Null,
            bin::LITERAL_TRUE => Json::Bool(true),
            bin::LITERAL_FALSE => Json::Bool(false),
            _ => return None,
        },
        bin::INT16 => Json::Int(i64::from(le(2)? as u16 as i16)),
        bin::UINT16 => Json::UInt(le(2)?),
        bin::INT32 => Json::Int(i64::from(le(4)? as u32 as i32)),
        bin::UINT32 => Json::UInt(le(4)?),
        bin::INT64 => Json::Int(le(8)? as i64),
        bin::UINT64 => Json::UInt(le(8)?),
        bin::DOUBLE => Json::Double(f64::from_bits(le(8)?)),
        bin::STRING => {
            let (n, used) = read_var_len(d)?;
            let s = d.get(used..used.checked_add(n)?)?;
            Json::Str(String::from_utf8(s.to_vec()).ok()?)
        }
        bin::SMALL_OBJECT | bin::LARGE_OBJECT | bin::SMALL_ARRAY | bin::LARGE_ARRAY => {
            let large = t == bin::LARGE_OBJECT || t == bin::LARGE_ARRAY;
            let object = t == bin::SMALL_OBJECT || t == bin::LARGE_OBJECT;
            let size = if large { 4 } else { 2 };
            let rd = |at: usize| -> Option<usize> {
                let s = d.get(at..at + size)?;
                Some(if large {
                    u32::from_le_bytes(s.try_into().ok()?) as usize
                } else {
                    usize::from(u16::from_le_bytes(s.try_into().ok()?))
                })
            };
            let count = rd(0)?;
            let bytes = rd(size)?;
            let d = d.get(..bytes)?;
            let key_entry = size + 2;
            let value_entry = 1 + size;
            let header = 2 * size + if object { count.checked_mul(key_entry)? } else { 0 };
            if header.checked_add(count.checked_mul(value_entry)?)? > d.len() {
                return None;
            }
            let mut keys = Vec::new();
            if object {
                for i in 0..count {
                    let at = 2 * size + i * key_entry;
                    let off = rd(at)?;
                    let len = usize::from(u16::from_le_bytes(
                        d.get(at + size..at + size + 2)?.try_into().ok()?,
                    ));
                    let k = d.get(off..off.checked_add(len)?)?;
                    keys.push(String::from_utf8(k.to_vec()).ok()?);
                }
            }
            let mut values = Vec::new();
            for i in 0..count {
                let at = header + i * value_entry;
                let vt = *d.get(at)?;
                let v = if inlined_type(vt, large) {
                    read_value(vt, d.get(at + 1..at + 1 + size)?, depth + 1)?
                } else {
                    let off = rd(at + 1)?;
                    read_value(vt, d.get(off..)?, depth + 1)?
                };
                values.push(v);
            }
            if object {
                Json::object(keys.into_iter().zip(values).collect())
            } else {
                Json::Array(values)
            }
        }
        bin::OPAQUE => {
            let (&ft, rest) = d.split_first()?;
            let (n, used) = read_var_len(rest)?;
            let data = rest.get(used..used.checked_add(n)?)?;
            if ft == 246 && data.len() >= 2 {
                let text = binlog::event::decode_decimal_bytes(
                    &data[2..],
                    usize::from(data[0]),
                    usize::from(data[1]),
                )?;
                Json::Decimal(Decimal::parse(&text)?)
            } else {
                return None;
            }
        }
        _ => return None,
    })
}

fn inlined_type(t: u8, large: bool) -> bool {
    match t {
        bin::LITERAL | bin::INT16 | bin::UINT16 => true,
        bin::INT32 | bin::UINT32 => large,
        _ => false,
    }
}

fn read_var_len(d: &[u8]) -> Option<(usize, usize)> {
    let mut n = 0usize;
    for (i, b) in d.iter().enumerate().take(5) {
        n |= usize::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Some((n, i + 1));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canon(s: &str) -> String {
        Json::parse(s.as_bytes()).expect("valid").to_string()
    }

    #[test]
    fn prints_as_mysqld() {
        assert_eq!(canon(r#"{"b":[1,2],"a":1}"#), r#"{"a": 1, "b": [1, 2]}"#);
        assert_eq!(canon(r#"{"bb":1,"a":2,"c":3}"#), r#"{"a": 2, "c": 3, "bb": 1}"#);
        assert_eq!(canon(r#"{"a":1,"a":2}"#), r#"{"a": 2}"#);
        assert_eq!(canon("[1.5, 3.0, 1e300, -0.00001, 1e-7]"), "[1.5, 3.0, 1e300, -0.00001, 1e-7]");
        assert_eq!(canon(r#""a\u00e9\n""#), "\"a\u{e9}\\n\"");
        assert_eq!(canon("18446744073709551615"), "18446744073709551615");
        assert_eq!(canon(" true "), "true");
    }

    #[test]
    fn invalid_text_names_mysqld_position() {
        let e = |s: &str| Json::parse(s.as_bytes()).unwrap_err();
        assert_eq!(e(""), JsonError::Syntax { reason: "The document is empty.", pos: 0 });
        assert_eq!(
            e("{a"),
            JsonError::Syntax { reason: "Missing a name for object member.", pos: 1 }
        );
        assert_eq!(e("[1,]"), JsonError::Syntax { reason: "Invalid value.", pos: 3 });
        assert_eq!(
            e("1 2"),
            JsonError::Syntax {
                reason: "The document root must not be followed by other values.",
                pos: 2
            }
        );
        assert_eq!(e(&"[".repeat(101)), JsonError::TooDeep);
        let ok = format!("{}{}", "[".repeat(100), "]".repeat(100));
        assert!(Json::parse(ok.as_bytes()).is_ok());
        assert_eq!(e(&"[".repeat(100_000)), JsonError::TooDeep);
    }

    #[test]
    fn binary_matches_json_binary_cc() {
        // SELECT CAST('{"a": 1}' AS JSON) in a row image (MySQL 8.0): small object, 1 member.
        let doc = Json::parse(br#"{"a":1}"#).unwrap();
        assert_eq!(
            to_binary(&doc).unwrap(),
            vec![0x00, 0x01, 0x00, 0x0c, 0x00, 0x0b, 0x00, 0x01, 0x00, 0x05, 0x01, 0x00, b'a']
        );
        assert_eq!(to_binary(&Json::Str("ab".into())).unwrap(), vec![0x0c, 2, b'a', b'b']);
        assert_eq!(to_binary(&Json::Null).unwrap(), vec![0x04, 0x00]);
        for text in [
            r#"{"a": 1, "b": [1, 2, "x", null, true, 70000, -70000, 1.5], "c": {"d": []}}"#,
            "[18446744073709551615, -9223372036854775808, \"long string\", {}]",
            "3",
            "\"s\"",
        ] {
            let doc = Json::parse(text.as_bytes()).unwrap();
            let b = to_binary(&doc).unwrap();
            assert_eq!(from_binary(&b), Some(doc), "{text}");
            for cut in 0..b.len() {
                let _ = from_binary(&b[..cut]);
            }
        }
        let big = Json::Array((0..20_000).map(|i| Json::Str(format!("{i}"))).collect());
        let b = to_binary(&big).unwrap();
        assert_eq!(b[0], 0x03);
        assert_eq!(from_binary(&b), Some(big));
    }
}
