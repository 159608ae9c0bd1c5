//! Issue 19's functions over bytes and JSON: HEX/UNHEX, the JSON functions (JSON_EXTRACT and
//! `->`/`->>`, JSON_UNQUOTE, JSON_QUOTE, JSON_OBJECT, JSON_ARRAY, JSON_VALID, JSON_TYPE,
//! JSON_LENGTH, JSON_DEPTH, JSON_CONTAINS, JSON_KEYS, JSON_SET/INSERT/REPLACE/REMOVE), CAST to
//! JSON/BINARY/CHAR(n), MD5/SHA1/SHA2, UUID/UUID_TO_BIN/BIN_TO_UUID/IS_UUID, with mysqld's
//! results, result types (`refine_column`) and errors (item_json_func.cc, item_strfunc.cc).
//!
//! JSON paths follow json_path.cc: `$`, `.key`, `."quoted key"`, `.*`, `[n]`, `[last]`,
//! `[last-n]`, `[*]`, `**`; a path is at most [`MAX_PATH_LEGS`] legs. Documents are
//! [`engine::json::Json`]; every recursion over one is bounded by its depth (at most 100,
//! checked when built: 3157).
//!
//! Why hashing comes from the RustCrypto crates (md-5, sha1, sha2): they are the maintained
//! implementations the protocol layer already uses for authentication.

use engine::json::{Json, JsonError, MAX_DEPTH};
use engine::{Decimal, Value};

use crate::ast::BytesFunc;
use crate::error::{Result, SqlError};
use crate::output::{flags, MysqlType, ResultColumn, CHARSET_BINARY};

/// A path longer than this is refused (3143); mysqld's paths are bounded by the text too.
const MAX_PATH_LEGS: usize = 256;

/// The function named `name` (lower case): (function, min args, max args).
pub(crate) fn lookup(name: &str) -> Option<(BytesFunc, usize, usize)> {
    use BytesFunc as F;
    Some(match name {
        "hex" => (F::Hex, 1, 1),
        "unhex" => (F::Unhex, 1, 1),
        "json_extract" => (F::JsonExtract, 2, usize::MAX),
        "json_unquote" => (F::JsonUnquote, 1, 1),
        "json_quote" => (F::JsonQuote, 1, 1),
        "json_object" => (F::JsonObject, 0, usize::MAX),
        "json_array" => (F::JsonArray, 0, usize::MAX),
        "json_valid" => (F::JsonValid, 1, 1),
        "json_type" => (F::JsonType, 1, 1),
        "json_length" => (F::JsonLength, 1, 2),
        "json_depth" => (F::JsonDepth, 1, 1),
        "json_contains" => (F::JsonContains, 2, 3),
        "json_keys" => (F::JsonKeys, 1, 2),
        "json_set" => (F::JsonSet, 3, usize::MAX),
        "json_insert" => (F::JsonInsert, 3, usize::MAX),
        "json_replace" => (F::JsonReplace, 3, usize::MAX),
        "json_remove" => (F::JsonRemove, 2, usize::MAX),
        "md5" => (F::Md5, 1, 1),
        "sha1" | "sha" => (F::Sha1, 1, 1),
        "sha2" => (F::Sha2, 2, 2),
        "aes_encrypt" => (F::AesEncrypt, 2, 3),
        "aes_decrypt" => (F::AesDecrypt, 2, 3),
        "uuid" => (F::Uuid, 0, 0),
        "uuid_to_bin" => (F::UuidToBin, 1, 2),
        "bin_to_uuid" => (F::BinToUuid, 1, 2),
        "is_uuid" => (F::IsUuid, 1, 1),
        "field" => (F::Field, 2, usize::MAX),
        _ => return None,
    })
}

/// ORDER BY an ENUM column sorts by member index, as mysqld (the stored value is the member's
/// text): the sort key becomes FIELD(column, members...). Other keys are left as they are.
pub(crate) fn enum_order_key(
    e: crate::ast::Expr,
    schema: Option<&engine::TableSchema>,
) -> crate::ast::Expr {
    use crate::ast::{Expr, Func};
    if let (Expr::Col(i), Some(s)) = (&e, schema) {
        if let Some(c) = s.columns.get(*i).filter(|c| c.ty == engine::ColumnType::Enum) {
            let mut args = vec![Expr::Col(*i)];
            args.extend(c.elements.iter().map(|m| Expr::Lit(Value::Bytes(m.as_bytes().to_vec()))));
            return Expr::Func(Func::Bytes(BytesFunc::Field), args);
        }
    }
    e
}

/// Whether the function's argument count is right (JSON_OBJECT takes pairs, JSON_SET & co.
/// path/value pairs).
pub(crate) fn arity_ok(f: BytesFunc, n: usize) -> bool {
    match f {
        BytesFunc::JsonObject => n.is_multiple_of(2),
        BytesFunc::JsonSet | BytesFunc::JsonInsert | BytesFunc::JsonReplace => !n.is_multiple_of(2),
        _ => true,
    }
}

fn fname(f: BytesFunc) -> &'static str {
    use BytesFunc as F;
    match f {
        F::Hex => "hex",
        F::Unhex => "unhex",
        F::JsonExtract => "json_extract",
        F::JsonUnquote => "json_unquote",
        F::JsonQuote => "json_quote",
        F::JsonObject => "json_object",
        F::JsonArray => "json_array",
        F::JsonValid => "json_valid",
        F::JsonType => "json_type",
        F::JsonLength => "json_length",
        F::JsonDepth => "json_depth",
        F::JsonContains => "json_contains",
        F::JsonKeys => "json_keys",
        F::JsonSet => "json_set",
        F::JsonInsert => "json_insert",
        F::JsonReplace => "json_replace",
        F::JsonRemove => "json_remove",
        F::Md5 => "md5",
        F::Sha1 => "sha1",
        F::Sha2 => "sha2",
        F::AesEncrypt => "aes_encrypt",
        F::AesDecrypt => "aes_decrypt",
        F::Uuid => "uuid",
        F::UuidToBin => "uuid_to_bin",
        F::BinToUuid => "bin_to_uuid",
        F::IsUuid => "is_uuid",
        F::Field => "field",
        F::CastJson => "cast_as_json",
        F::CastBinary(_) => "cast_as_binary",
        F::CastChar(_) => "cast_as_char",
        F::Convert(..) => "convert",
    }
}

/// The MySQL type of the function's result.
pub(crate) fn result_type(f: BytesFunc) -> MysqlType {
    use BytesFunc as F;
    match f {
        F::JsonExtract
        | F::JsonObject
        | F::JsonArray
        | F::JsonKeys
        | F::JsonSet
        | F::JsonInsert
        | F::JsonReplace
        | F::JsonRemove
        | F::CastJson => MysqlType::Json,
        F::JsonValid | F::JsonLength | F::JsonDepth | F::JsonContains | F::IsUuid | F::Field => {
            MysqlType::LongLong
        }
        F::JsonUnquote | F::JsonQuote => MysqlType::Blob,
        _ => MysqlType::VarString,
    }
}

/// Sets the charset, flags and length mysqld sends for the function's result column.
pub(crate) fn refine_column(c: &mut ResultColumn, f: BytesFunc) {
    use BytesFunc as F;
    let binary = |c: &mut ResultColumn, len: u32| {
        c.charset = CHARSET_BINARY;
        c.flags |= flags::BINARY;
        c.length = len;
        c.decimals = 31;
    };
    match f {
        F::Unhex | F::AesDecrypt => binary(c, 1024),
        F::AesEncrypt => binary(c, 1040),
        F::UuidToBin => binary(c, 16),
        F::CastBinary(n) => binary(c, n.unwrap_or(1024)),
        F::Convert(_, collation::Charset::Binary) => binary(c, 1024),
        F::CastChar(Some(n)) => c.length = n.saturating_mul(4),
        F::Md5 => c.length = 32 * 4,
        F::Sha1 => c.length = 40 * 4,
        F::Sha2 => c.length = 128 * 4,
        F::Uuid | F::BinToUuid => c.length = 36 * 4,
        F::JsonType => c.length = 51 * 4,
        F::JsonValid | F::IsUuid => c.length = 1,
        F::JsonLength | F::JsonDepth | F::JsonContains => c.length = 10,
        F::JsonUnquote | F::JsonQuote => {
            c.length = u32::MAX;
            c.flags |= flags::BLOB;
        }
        _ => {}
    }
}

fn json_error_in_arg(e: JsonError, arg: usize, f: BytesFunc) -> SqlError {
    match e {
        JsonError::TooDeep => crate::output::bytes_types::too_deep(),
        JsonError::Syntax { reason, pos } => SqlError::Other {
            code: 3141,
            sqlstate: "22032",
            message: format!(
                "Invalid JSON text in argument {arg} to function {}: \"{reason}\" at position {pos}.",
                fname(f)
            ),
        },
    }
}

/// Argument `i` (0-based) as a JSON document; None for SQL NULL.
fn json_arg(args: &[Value], i: usize, f: BytesFunc) -> Result<Option<Json>> {
    match args.get(i) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Json(t)) => Ok(Some(engine::json::parse_stored(t))),
        Some(Value::Bytes(b)) => {
            Json::parse(b).map(Some).map_err(|e| json_error_in_arg(e, i + 1, f))
        }
        Some(_) => Err(SqlError::Other {
            code: 3146,
            sqlstate: "22032",
            message: format!(
                "Invalid data type for JSON data in argument {} to function {}; a JSON string \
                 or JSON type is required.",
                i + 1,
                fname(f)
            ),
        }),
    }
}

/// A SQL value as a JSON value (JSON_ARRAY/JSON_OBJECT/JSON_SET arguments): JSON stays JSON,
/// strings become JSON strings, numbers numbers (mysqld's `val_json` of a non-JSON item).
pub(crate) fn to_json(v: &Value) -> Json {
    match v {
        Value::Null => Json::Null,
        Value::Int(i) => Json::Int(*i),
        Value::UInt(u) => Json::UInt(*u),
        Value::Double(d) => Json::Double(*d),
        Value::Decimal(d) => Json::Decimal(*d),
        Value::Json(t) => engine::json::parse_stored(t),
        Value::Bytes(b) => Json::Str(String::from_utf8_lossy(b).into_owned()),
        other => Json::Str(other.to_string()),
    }
}

pub(crate) fn json_value(doc: &Json) -> Result<Value> {
    if doc.depth() > MAX_DEPTH {
        return Err(crate::output::bytes_types::too_deep());
    }
    Ok(Value::Json(doc.to_text()))
}

// ---- paths ---------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Leg {
    Member(String),
    AnyMember,
    /// `[n]` (from the start) or `[last - n]` (`from_end`).
    Index {
        n: usize,
        from_end: bool,
    },
    AnyIndex,
    /// `**`
    Descendants,
}

fn path_error(pos: usize) -> SqlError {
    SqlError::Other {
        code: 3143,
        sqlstate: "42000",
        message: format!(
            "Invalid JSON path expression. The error is around character position {pos}."
        ),
    }
}

pub(crate) fn parse_path(text: &[u8]) -> Result<Vec<Leg>> {
    let s = std::str::from_utf8(text).map_err(|_| path_error(0))?;
    let b = s.as_bytes();
    let mut i = 0;
    let ws = |i: &mut usize| {
        while *i < b.len() && b[*i].is_ascii_whitespace() {
            *i += 1;
        }
    };
    ws(&mut i);
    if b.get(i) != Some(&b'$') {
        return Err(path_error(i + 1));
    }
    i += 1;
    let mut legs = Vec::new();
    loop {
        ws(&mut i);
        if i >= b.len() {
            break;
        }
        if legs.len() >= MAX_PATH_LEGS {
            return Err(path_error(i));
        }
        match b[i] {
            b'.' => {
                i += 1;
                ws(&mut i);
                match b.get(i) {
                    Some(b'*') => {
                        i += 1;
                        legs.push(Leg::AnyMember);
                    }
                    Some(b'"') => {
                        // A quoted key: a JSON string.
                        let start = i;
                        i += 1;
                        while i < b.len() && b[i] != b'"' {
                            if b[i] == b'\\' {
                                i += 1;
                            }
                            i += 1;
                        }
                        if i >= b.len() {
                            return Err(path_error(i));
                        }
                        i += 1;
                        match Json::parse(&b[start..i]) {
                            Ok(Json::Str(k)) => legs.push(Leg::Member(k)),
                            _ => return Err(path_error(i)),
                        }
                    }
                    _ => {
                        let start = i;
                        while i < b.len()
                            && !matches!(b[i], b'.' | b'[' | b'*')
                            && !b[i].is_ascii_whitespace()
                        {
                            i += 1;
                        }
                        let key = &s[start..i];
                        let ok = key
                            .chars()
                            .next()
                            .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
                            && key.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$');
                        if !ok {
                            return Err(path_error(i));
                        }
                        legs.push(Leg::Member(key.to_string()));
                    }
                }
            }
            b'[' => {
                i += 1;
                ws(&mut i);
                let leg = if b.get(i) == Some(&b'*') {
                    i += 1;
                    Leg::AnyIndex
                } else if s[i..].starts_with("last") {
                    i += 4;
                    ws(&mut i);
                    let mut n = 0;
                    if b.get(i) == Some(&b'-') {
                        i += 1;
                        ws(&mut i);
                        let start = i;
                        while i < b.len() && b[i].is_ascii_digit() {
                            i += 1;
                        }
                        n = s[start..i].parse().map_err(|_| path_error(i))?;
                    }
                    Leg::Index { n, from_end: true }
                } else {
                    let start = i;
                    while i < b.len() && b[i].is_ascii_digit() {
                        i += 1;
                    }
                    let n: usize = s[start..i].parse().map_err(|_| path_error(i))?;
                    Leg::Index { n, from_end: false }
                };
                ws(&mut i);
                if b.get(i) != Some(&b']') {
                    return Err(path_error(i));
                }
                i += 1;
                legs.push(leg);
            }
            b'*' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                legs.push(Leg::Descendants);
            }
            _ => return Err(path_error(i)),
        }
    }
    if legs.last() == Some(&Leg::Descendants) {
        return Err(path_error(b.len()));
    }
    Ok(legs)
}

pub(crate) fn has_wildcard(legs: &[Leg]) -> bool {
    legs.iter().any(|l| matches!(l, Leg::AnyMember | Leg::AnyIndex | Leg::Descendants))
}

pub(crate) fn index_of(n: usize, from_end: bool, len: usize) -> Option<usize> {
    if from_end {
        len.checked_sub(1)?.checked_sub(n)
    } else {
        Some(n)
    }
}

/// Collects the values `legs` select in `v` (mysqld's `Json_dom::seek`; a scalar is its own
/// `[0]`/`[last]`, auto-wrapping). Recursion is bounded by the document's depth.
pub(crate) fn seek<'a>(v: &'a Json, legs: &[Leg], out: &mut Vec<&'a Json>) {
    let Some((leg, rest)) = legs.split_first() else {
        if !out.iter().any(|o| std::ptr::eq(*o, v)) {
            out.push(v);
        }
        return;
    };
    match (leg, v) {
        (Leg::Member(k), Json::Object(o)) => {
            if let Some((_, x)) = o.iter().find(|(name, _)| name == k) {
                seek(x, rest, out);
            }
        }
        (Leg::AnyMember, Json::Object(o)) => o.iter().for_each(|(_, x)| seek(x, rest, out)),
        (Leg::Index { n, from_end }, Json::Array(a)) => {
            if let Some(x) = index_of(*n, *from_end, a.len()).and_then(|i| a.get(i)) {
                seek(x, rest, out);
            }
        }
        (Leg::Index { n: 0, .. }, scalar) => seek(scalar, rest, out),
        (Leg::AnyIndex, Json::Array(a)) => a.iter().for_each(|x| seek(x, rest, out)),
        (Leg::Descendants, _) => {
            seek(v, rest, out);
            match v {
                Json::Array(a) => a.iter().for_each(|x| seek(x, legs, out)),
                Json::Object(o) => o.iter().for_each(|(_, x)| seek(x, legs, out)),
                _ => {}
            }
        }
        _ => {}
    }
}

fn paths(args: &[Value], from: usize, step: usize) -> Result<Option<Vec<Vec<Leg>>>> {
    let mut out = Vec::new();
    let mut i = from;
    while i < args.len() {
        match &args[i] {
            Value::Null => return Ok(None),
            v => out.push(parse_path(&crate::eval::to_text(v))?),
        }
        i += step;
    }
    Ok(Some(out))
}

pub(crate) fn wildcard_error() -> SqlError {
    SqlError::Other {
        code: 3149,
        sqlstate: "42000",
        message: "In this situation, path expressions may not contain the * and ** tokens.".into(),
    }
}

/// JSON_SET (`insert` and `replace`), JSON_INSERT (`insert`), JSON_REPLACE (`replace`) of one
/// path (mysqld's `Item_func_modify_json_in_path`).
fn modify(doc: &mut Json, legs: &[Leg], value: Json, insert: bool, replace: bool) {
    let Some((last, parent_legs)) = legs.split_last() else {
        if replace {
            *doc = value;
        }
        return;
    };
    let Some(parent) = seek_mut(doc, parent_legs) else { return };
    match (last, parent) {
        (Leg::Member(k), Json::Object(o)) => {
            match o.binary_search_by(|(name, _)| engine::json::key_order(name, k)) {
                Ok(i) if replace => o[i].1 = value,
                Ok(_) => {}
                Err(i) if insert => o.insert(i, (k.clone(), value)),
                Err(_) => {}
            }
        }
        (Leg::Index { n, from_end }, Json::Array(a)) => match index_of(*n, *from_end, a.len()) {
            Some(i) if i < a.len() && replace => a[i] = value,
            Some(i) if i < a.len() => {}
            _ if insert => a.push(value),
            _ => {}
        },
        (Leg::Index { n, from_end }, scalar) => {
            // A scalar is an array of one: [0] replaces it, a later index appends.
            if index_of(*n, *from_end, 1) == Some(0) {
                if replace {
                    *scalar = value;
                }
            } else if insert {
                let old = std::mem::replace(scalar, Json::Null);
                *scalar = Json::Array(vec![old, value]);
            }
        }
        _ => {}
    }
}

/// The one value a wildcard-free path selects, mutably.
pub(crate) fn seek_mut<'a>(v: &'a mut Json, legs: &[Leg]) -> Option<&'a mut Json> {
    let mut cur = v;
    for leg in legs {
        cur = match (leg, cur) {
            (Leg::Member(k), Json::Object(o)) => &mut o.iter_mut().find(|(n, _)| n == k)?.1,
            (Leg::Index { n, from_end }, Json::Array(a)) => {
                let i = index_of(*n, *from_end, a.len())?;
                a.get_mut(i)?
            }
            (Leg::Index { n, from_end }, scalar) if index_of(*n, *from_end, 1) == Some(0) => scalar,
            _ => return None,
        };
    }
    Some(cur)
}

fn remove(doc: &mut Json, legs: &[Leg]) {
    let Some((last, parent_legs)) = legs.split_last() else { return };
    let Some(parent) = seek_mut(doc, parent_legs) else { return };
    match (last, parent) {
        (Leg::Member(k), Json::Object(o)) => o.retain(|(n, _)| n != k),
        (Leg::Index { n, from_end }, Json::Array(a)) => {
            if let Some(i) = index_of(*n, *from_end, a.len()).filter(|i| *i < a.len()) {
                a.remove(i);
            }
        }
        _ => {}
    }
}

/// JSON_CONTAINS's rule (`contains_wr`): see the MySQL manual's four cases.
pub(crate) fn contains(target: &Json, candidate: &Json) -> bool {
    match (target, candidate) {
        (Json::Array(t), Json::Array(c)) => c.iter().all(|x| t.iter().any(|y| contains(y, x))),
        (Json::Array(t), c) => t.iter().any(|y| contains(y, c)),
        (Json::Object(t), Json::Object(c)) => c
            .iter()
            .all(|(k, cv)| t.iter().find(|(n, _)| n == k).is_some_and(|(_, tv)| contains(tv, cv))),
        (Json::Object(_), _) | (_, Json::Array(_)) | (_, Json::Object(_)) => false,
        (t, c) => t.compare(c) == std::cmp::Ordering::Equal && same_class(t, c),
    }
}

fn same_class(a: &Json, b: &Json) -> bool {
    let num =
        |j: &Json| matches!(j, Json::Int(_) | Json::UInt(_) | Json::Double(_) | Json::Decimal(_));
    (num(a) && num(b)) || std::mem::discriminant(a) == std::mem::discriminant(b)
}

// ---- strings, hashes, UUIDs ------------------------------------------------------------------

fn hex_upper(b: &[u8]) -> Vec<u8> {
    hex::encode_upper(b).into_bytes()
}

fn uuid_parse(b: &[u8]) -> Option<[u8; 16]> {
    let s = std::str::from_utf8(b).ok()?;
    let body = match s.len() {
        32 => s.to_string(),
        36 => {
            let parts: Vec<&str> = s.split('-').collect();
            if parts.iter().map(|p| p.len()).collect::<Vec<_>>() != [8, 4, 4, 4, 12] {
                return None;
            }
            parts.concat()
        }
        38 if s.starts_with('{') && s.ends_with('}') => {
            return uuid_parse(&b[1..37]);
        }
        _ => return None,
    };
    let v = hex::decode(body).ok()?;
    v.try_into().ok()
}

fn uuid_text(u: &[u8; 16]) -> String {
    let h = hex::encode(u);
    format!("{}-{}-{}-{}-{}", &h[0..8], &h[8..12], &h[12..16], &h[16..20], &h[20..32])
}

/// UUID_TO_BIN's swap flag: time-low and time-high exchanged for index locality.
fn swap_uuid(u: &mut [u8; 16]) {
    let mut out = [0u8; 16];
    out[0..2].copy_from_slice(&u[6..8]);
    out[2..4].copy_from_slice(&u[4..6]);
    out[4..8].copy_from_slice(&u[0..4]);
    out[8..].copy_from_slice(&u[8..]);
    *u = out;
}

fn unswap_uuid(u: &mut [u8; 16]) {
    let mut out = [0u8; 16];
    out[0..4].copy_from_slice(&u[4..8]);
    out[4..6].copy_from_slice(&u[2..4]);
    out[6..8].copy_from_slice(&u[0..2]);
    out[8..].copy_from_slice(&u[8..]);
    *u = out;
}

fn bad_string(value: &[u8], f: &str) -> SqlError {
    SqlError::Other {
        code: 1411,
        sqlstate: "HY000",
        message: format!(
            "Incorrect string value: '{}' for function {f}",
            String::from_utf8_lossy(value)
        ),
    }
}

/// A version-1 UUID as mysqld's UUID() makes one (`mysql_uuid`: 100 ns ticks since
/// 1582-10-15, a random clock sequence and node chosen once per process), the ticks strictly
/// increasing within the process.
fn uuid_v1() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::OnceLock;
    static LAST: AtomicU64 = AtomicU64::new(0);
    static NODE: OnceLock<[u8; 8]> = OnceLock::new();
    let node = NODE.get_or_init(|| {
        let r = *uuid::Uuid::new_v4().as_bytes();
        let mut n = [0u8; 8];
        n.copy_from_slice(&r[..8]);
        n
    });
    const GREGORIAN_OFFSET: u64 = 0x01B2_1DD2_1381_4000;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64 / 100)
        .unwrap_or(0)
        + GREGORIAN_OFFSET;
    let mut prev = LAST.load(Ordering::Relaxed);
    let ticks = loop {
        let next = now.max(prev + 1);
        match LAST.compare_exchange(prev, next, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => break next,
            Err(p) => prev = p,
        }
    };
    let time_low = ticks as u32;
    let time_mid = (ticks >> 32) as u16;
    let time_hi = ((ticks >> 48) as u16 & 0x0fff) | 0x1000;
    let clock = (u16::from_be_bytes([node[6], node[7]]) & 0x3fff) | 0x8000;
    format!("{time_low:08x}-{time_mid:04x}-{time_hi:04x}-{clock:04x}-{}", hex::encode(&node[..6]))
}

fn hash_hex(f: BytesFunc, data: &[u8], bits: i64) -> Option<Vec<u8>> {
    use sha2::Digest;
    Some(
        match f {
            BytesFunc::Md5 => hex::encode(md5::Md5::digest(data)),
            BytesFunc::Sha1 => hex::encode(sha1::Sha1::digest(data)),
            _ => match bits {
                0 | 256 => hex::encode(sha2::Sha256::digest(data)),
                224 => hex::encode(sha2::Sha224::digest(data)),
                384 => hex::encode(sha2::Sha384::digest(data)),
                512 => hex::encode(sha2::Sha512::digest(data)),
                _ => return None,
            },
        }
        .into_bytes(),
    )
}

fn int_arg(v: &Value) -> i64 {
    match v {
        Value::Int(i) => *i,
        Value::UInt(u) => i64::try_from(*u).unwrap_or(i64::MAX),
        other => crate::eval::str_to_f64(&crate::eval::to_text(other)) as i64,
    }
}

/// HEX of a number: its value as a 64-bit integer (negative in two's complement, a double
/// rounded), as `Item_func_hex::val_str_ascii`.
fn hex_number(v: &Value) -> Vec<u8> {
    let n: u64 = match v {
        Value::Int(i) => *i as u64,
        Value::UInt(u) => *u,
        Value::Double(d) => {
            let r = d.round();
            if r >= 1.8446744073709552e19 {
                u64::MAX
            } else if r <= -9.223372036854776e18 {
                i64::MIN as u64
            } else if r < 0.0 {
                (r as i64) as u64
            } else {
                r as u64
            }
        }
        Value::Decimal(d) => match d.rescale(0) {
            Some(Decimal { mantissa, .. }) => {
                if mantissa.is_negative() {
                    i64::try_from(mantissa).unwrap_or(i64::MIN) as u64
                } else {
                    u64::try_from(mantissa).unwrap_or(u64::MAX)
                }
            }
            None => u64::MAX,
        },
        _ => 0,
    };
    format!("{n:X}").into_bytes()
}

/// Evaluates `f` over its evaluated arguments. `max_packet` bounds results that grow
/// (`max_allowed_packet`: mysqld answers NULL with warning 1301; here the error 1301 is not
/// modelled and the result is NULL).
pub(crate) fn eval(f: BytesFunc, args: Vec<Value>) -> Result<Value> {
    use BytesFunc as F;
    let arg = |i: usize| args.get(i).cloned().unwrap_or(Value::Null);
    Ok(match f {
        F::Hex => match arg(0) {
            Value::Null => Value::Null,
            v @ (Value::Int(_) | Value::UInt(_) | Value::Double(_) | Value::Decimal(_)) => {
                Value::Bytes(hex_number(&v))
            }
            v => Value::Bytes(hex_upper(&crate::eval::to_text(&v))),
        },
        F::Unhex => match arg(0) {
            Value::Null => Value::Null,
            v => {
                let t = crate::eval::to_text(&v);
                // An odd count has an implied leading 0 (`hexchar_to_int` loop in mysqld).
                let padded = if t.len() % 2 == 1 {
                    let mut p = vec![b'0'];
                    p.extend_from_slice(&t);
                    p
                } else {
                    t
                };
                match hex::decode(&padded) {
                    Ok(b) => Value::Bytes(b),
                    Err(_) => Value::Null,
                }
            }
        },
        F::JsonValid => match arg(0) {
            Value::Null => Value::Null,
            Value::Json(_) => Value::Int(1),
            Value::Bytes(b) => Value::Int(i64::from(Json::parse(&b).is_ok())),
            _ => Value::Int(0),
        },
        F::JsonQuote => match arg(0) {
            Value::Null => Value::Null,
            Value::Bytes(b) => {
                Value::Bytes(Json::Str(String::from_utf8_lossy(&b).into_owned()).to_text())
            }
            _ => {
                return Err(SqlError::Other {
                    code: 3064,
                    sqlstate: "HY000",
                    message: "Incorrect type for argument 1 in function json_quote.".into(),
                })
            }
        },
        F::JsonUnquote => match arg(0) {
            Value::Null => Value::Null,
            Value::Json(t) => match engine::json::parse_stored(&t) {
                Json::Str(s) => Value::Bytes(s.into_bytes()),
                other => Value::Bytes(other.to_text()),
            },
            v => {
                let b = crate::eval::to_text(&v);
                if b.len() >= 2 && b[0] == b'"' && b[b.len() - 1] == b'"' {
                    match Json::parse(&b) {
                        Ok(Json::Str(s)) => Value::Bytes(s.into_bytes()),
                        Ok(_) => Value::Bytes(b),
                        Err(e) => return Err(json_error_in_arg(e, 1, f)),
                    }
                } else {
                    Value::Bytes(b)
                }
            }
        },
        F::JsonArray => json_value(&Json::Array(args.iter().map(to_json).collect()))?,
        F::JsonObject => {
            let mut members = Vec::with_capacity(args.len() / 2);
            for pair in args.chunks(2) {
                let key = match &pair[0] {
                    Value::Null => {
                        return Err(SqlError::Other {
                            code: 3158,
                            sqlstate: "22032",
                            message: "JSON documents may not contain NULL member names.".into(),
                        })
                    }
                    k => String::from_utf8_lossy(&crate::eval::to_text(k)).into_owned(),
                };
                members.push((key, to_json(&pair[1])));
            }
            json_value(&Json::object(members))?
        }
        F::CastJson => match arg(0) {
            Value::Null => Value::Null,
            Value::Bytes(b) => json_value(&Json::parse(&b).map_err(|e| match e {
                JsonError::TooDeep => crate::output::bytes_types::too_deep(),
                JsonError::Syntax { reason, pos } => SqlError::Other {
                    code: 3141,
                    sqlstate: "22032",
                    message: format!(
                        "Invalid JSON text in argument 1 to function cast_as_json: \"{reason}\" \
                         at position {pos}."
                    ),
                },
            })?)?,
            v => json_value(&to_json(&v))?,
        },
        F::CastBinary(n) | F::CastChar(n) => match arg(0) {
            Value::Null => Value::Null,
            v => {
                let mut b = crate::eval::to_text(&v);
                // A binary string cast to utf8mb4 is checked (`Item::check_well_formed_result`):
                // bytes that are no utf8mb4 are warning 1300 with up to three of them in hex,
                // and NULL in strict mode, else the well-formed prefix (MariaDB writes '?').
                if let (F::CastChar(_), Err(e)) = (f, std::str::from_utf8(&b)) {
                    let at = e.valid_up_to();
                    let bad: String = b[at..].iter().take(3).map(|c| format!("{c:02X}")).collect();
                    crate::temporal::warn(
                        1300,
                        format!("Invalid utf8mb4 character string: '{bad}'"),
                    );
                    if crate::temporal::strict_mode() {
                        return Ok(Value::Null);
                    }
                    b.truncate(at);
                }
                if let Some(n) = n {
                    if let F::CastBinary(_) = f {
                        // CAST(x AS BINARY(n)) pads with 0x00 or truncates to n bytes.
                        b.resize(n as usize, 0);
                    } else {
                        let s = String::from_utf8_lossy(&b);
                        b = s.chars().take(n as usize).collect::<String>().into_bytes();
                    }
                }
                Value::Bytes(b)
            }
        },
        F::Convert(from, to) => crate::eval::convert::convert(arg(0), from, to),
        F::JsonType => match json_arg(&args, 0, f)? {
            None => Value::Null,
            Some(doc) => Value::Bytes(doc.type_name().as_bytes().to_vec()),
        },
        F::JsonDepth => match json_arg(&args, 0, f)? {
            None => Value::Null,
            Some(doc) => Value::Int(doc.depth() as i64),
        },
        F::JsonLength | F::JsonKeys => {
            let Some(doc) = json_arg(&args, 0, f)? else { return Ok(Value::Null) };
            let target = if args.len() > 1 {
                let Some(p) = paths(&args, 1, 1)? else { return Ok(Value::Null) };
                if has_wildcard(&p[0]) {
                    return Err(wildcard_error());
                }
                let mut found = Vec::new();
                seek(&doc, &p[0], &mut found);
                match found.first() {
                    Some(v) => (*v).clone(),
                    None => return Ok(Value::Null),
                }
            } else {
                doc
            };
            if f == F::JsonLength {
                Value::Int(match &target {
                    Json::Array(a) => a.len() as i64,
                    Json::Object(o) => o.len() as i64,
                    _ => 1,
                })
            } else {
                match target {
                    Json::Object(o) => json_value(&Json::Array(
                        o.into_iter().map(|(k, _)| Json::Str(k)).collect(),
                    ))?,
                    _ => Value::Null,
                }
            }
        }
        F::JsonExtract => {
            let Some(doc) = json_arg(&args, 0, f)? else { return Ok(Value::Null) };
            let Some(ps) = paths(&args, 1, 1)? else { return Ok(Value::Null) };
            let mut found = Vec::new();
            for p in &ps {
                seek(&doc, p, &mut found);
            }
            let wrap = ps.len() > 1 || ps.iter().any(|p| has_wildcard(p));
            match (wrap, found.as_slice()) {
                (_, []) => Value::Null,
                (false, [one]) => json_value(one)?,
                _ => json_value(&Json::Array(found.into_iter().cloned().collect()))?,
            }
        }
        F::JsonContains => {
            let Some(target) = json_arg(&args, 0, f)? else { return Ok(Value::Null) };
            let Some(candidate) = json_arg(&args, 1, f)? else { return Ok(Value::Null) };
            let target = if args.len() > 2 {
                let Some(p) = paths(&args, 2, 1)? else { return Ok(Value::Null) };
                if has_wildcard(&p[0]) {
                    return Err(wildcard_error());
                }
                let mut found = Vec::new();
                seek(&target, &p[0], &mut found);
                match found.first() {
                    Some(v) => (*v).clone(),
                    None => return Ok(Value::Null),
                }
            } else {
                target
            };
            Value::Int(i64::from(contains(&target, &candidate)))
        }
        F::JsonSet | F::JsonInsert | F::JsonReplace | F::JsonRemove => {
            let Some(mut doc) = json_arg(&args, 0, f)? else { return Ok(Value::Null) };
            let step = if f == F::JsonRemove { 1 } else { 2 };
            let Some(ps) = paths(&args, 1, step)? else { return Ok(Value::Null) };
            for (k, p) in ps.iter().enumerate() {
                if has_wildcard(p) {
                    return Err(wildcard_error());
                }
                if f == F::JsonRemove {
                    if p.is_empty() {
                        return Err(SqlError::Other {
                            code: 3153,
                            sqlstate: "42000",
                            message: "The path expression '$' is not allowed in this context."
                                .into(),
                        });
                    }
                    remove(&mut doc, p);
                } else {
                    let v = to_json(&arg(2 + 2 * k));
                    let (insert, replace) = match f {
                        F::JsonSet => (true, true),
                        F::JsonInsert => (true, false),
                        _ => (false, true),
                    };
                    modify(&mut doc, p, v, insert, replace);
                }
            }
            json_value(&doc)?
        }
        F::Md5 | F::Sha1 | F::Sha2 => match arg(0) {
            Value::Null => Value::Null,
            v => {
                let bits = if f == F::Sha2 {
                    match arg(1) {
                        Value::Null => return Ok(Value::Null),
                        b => int_arg(&b),
                    }
                } else {
                    0
                };
                match hash_hex(f, &crate::eval::to_text(&v), bits) {
                    Some(h) => Value::Bytes(h),
                    None => Value::Null,
                }
            }
        },
        F::AesEncrypt | F::AesDecrypt => {
            if args.len() > 2 {
                // mysqld in an ECB mode (`my_aes_needs_iv` false).
                crate::temporal::warn(1618, "<IV> option ignored".into());
            }
            match (arg(0), arg(1)) {
                (Value::Null, _) | (_, Value::Null) => Value::Null,
                (data, key) => {
                    let (data, key) = (crate::eval::to_text(&data), crate::eval::to_text(&key));
                    if f == F::AesEncrypt {
                        Value::Bytes(super::aes::encrypt(&data, &key))
                    } else {
                        super::aes::decrypt(&data, &key).map_or(Value::Null, Value::Bytes)
                    }
                }
            }
        }
        F::Uuid => Value::Bytes(uuid_v1().into_bytes()),
        F::Field => match arg(0) {
            Value::Null => Value::Int(0),
            subject => {
                let pos = args[1..].iter().position(|x| {
                    // Strings compare as the default collation (case-insensitively), as ENUM
                    // members match; numbers as numbers.
                    match (&subject, x) {
                        (Value::Bytes(a), Value::Bytes(b)) => {
                            String::from_utf8_lossy(a).to_lowercase()
                                == String::from_utf8_lossy(b).to_lowercase()
                        }
                        _ => crate::eval::compare(&subject, x) == Some(std::cmp::Ordering::Equal),
                    }
                });
                Value::Int(pos.map_or(0, |p| p as i64 + 1))
            }
        },
        F::IsUuid => match arg(0) {
            Value::Null => Value::Null,
            v => Value::Int(i64::from(uuid_parse(&crate::eval::to_text(&v)).is_some())),
        },
        F::UuidToBin => match arg(0) {
            Value::Null => Value::Null,
            v => {
                let t = crate::eval::to_text(&v);
                let mut u = uuid_parse(&t).ok_or_else(|| bad_string(&t, "uuid_to_bin"))?;
                if args.len() > 1 && crate::eval::truth(&arg(1)) == Some(true) {
                    swap_uuid(&mut u);
                }
                Value::Bytes(u.to_vec())
            }
        },
        F::BinToUuid => match arg(0) {
            Value::Null => Value::Null,
            v => {
                let t = crate::eval::to_text(&v);
                let mut u: [u8; 16] =
                    t.as_slice().try_into().map_err(|_| bad_string(&t, "bin_to_uuid"))?;
                if args.len() > 1 && crate::eval::truth(&arg(1)) == Some(true) {
                    unswap_uuid(&mut u);
                }
                Value::Bytes(uuid_text(&u).into_bytes())
            }
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Value {
        Value::Bytes(x.as_bytes().to_vec())
    }

    fn text(v: Value) -> String {
        v.to_string()
    }

    #[test]
    fn json_functions_answer_as_mysqld() {
        let doc = s(r#"{"a": 1, "b": [10, 20, {"c": "x"}]}"#);
        let ex = |p: &[&str]| {
            let mut a = vec![doc.clone()];
            a.extend(p.iter().map(|x| s(x)));
            text(eval(BytesFunc::JsonExtract, a).unwrap())
        };
        assert_eq!(ex(&["$.a"]), "1");
        assert_eq!(ex(&["$.b[1]"]), "20");
        assert_eq!(ex(&["$.b[last]"]), r#"{"c": "x"}"#);
        assert_eq!(ex(&["$.b[2].c"]), r#""x""#);
        assert_eq!(ex(&["$.a", "$.b[0]"]), "[1, 10]");
        assert_eq!(ex(&["$**.c"]), r#"["x"]"#);
        assert_eq!(ex(&["$.b[*]"]), r#"[10, 20, {"c": "x"}]"#);
        assert_eq!(ex(&["$.zz"]), "NULL");
        assert_eq!(ex(&["$.a[0]"]), "1");
        let e = eval(BytesFunc::JsonExtract, vec![doc.clone(), s("a")]).unwrap_err();
        assert_eq!(e.code(), 3143);
        let e = eval(BytesFunc::JsonExtract, vec![s("{"), s("$")]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Invalid JSON text in argument 1 to function json_extract: \"Missing a name for \
             object member.\" at position 1."
        );
        assert_eq!(
            text(eval(BytesFunc::JsonObject, vec![s("b"), Value::Int(1), s("a"), s("x")]).unwrap()),
            r#"{"a": "x", "b": 1}"#
        );
        let inner = eval(BytesFunc::JsonArray, vec![Value::Int(1), Value::Null]).unwrap();
        assert_eq!(
            text(eval(BytesFunc::JsonArray, vec![inner, s("[1]"), Value::Double(2.0)]).unwrap()),
            r#"[[1, null], "[1]", 2.0]"#
        );
        let set = eval(
            BytesFunc::JsonSet,
            vec![
                doc.clone(),
                s("$.a"),
                Value::Int(2),
                s("$.d"),
                Value::Int(3),
                s("$.b[9]"),
                Value::Int(4),
            ],
        )
        .unwrap();
        assert_eq!(text(set), r#"{"a": 2, "b": [10, 20, {"c": "x"}, 4], "d": 3}"#);
        let ins = eval(
            BytesFunc::JsonInsert,
            vec![doc.clone(), s("$.a"), Value::Int(9), s("$.e"), Value::Int(5)],
        )
        .unwrap();
        assert_eq!(text(ins), r#"{"a": 1, "b": [10, 20, {"c": "x"}], "e": 5}"#);
        let rep = eval(
            BytesFunc::JsonReplace,
            vec![doc.clone(), s("$.a"), Value::Int(9), s("$.e"), Value::Int(5)],
        )
        .unwrap();
        assert_eq!(text(rep), r#"{"a": 9, "b": [10, 20, {"c": "x"}]}"#);
        let rem = eval(BytesFunc::JsonRemove, vec![doc.clone(), s("$.b[0]"), s("$.a")]).unwrap();
        assert_eq!(text(rem), r#"{"b": [20, {"c": "x"}]}"#);
        assert_eq!(
            eval(BytesFunc::JsonRemove, vec![doc.clone(), s("$")]).unwrap_err().code(),
            3153
        );
        assert_eq!(text(eval(BytesFunc::JsonKeys, vec![doc.clone()]).unwrap()), r#"["a", "b"]"#);
        assert_eq!(text(eval(BytesFunc::JsonLength, vec![doc.clone(), s("$.b")]).unwrap()), "3");
        assert_eq!(text(eval(BytesFunc::JsonType, vec![doc.clone()]).unwrap()), "OBJECT");
        let c = |t: &str, c: &str| text(eval(BytesFunc::JsonContains, vec![s(t), s(c)]).unwrap());
        assert_eq!(c("[1, 2, [3]]", "[1, 3]"), "1");
        assert_eq!(c(r#"{"a": 1, "b": 2}"#, r#"{"a": 1}"#), "1");
        assert_eq!(c(r#"{"a": 1}"#, "1"), "0");
        assert_eq!(c("1", "1.0"), "1");
        assert_eq!(text(eval(BytesFunc::JsonUnquote, vec![s(r#""a\tb""#)]).unwrap()), "a\tb");
        assert_eq!(text(eval(BytesFunc::JsonValid, vec![s("{")]).unwrap()), "0");
        assert_eq!(text(eval(BytesFunc::JsonQuote, vec![s("a\"b")]).unwrap()), r#""a\"b""#);
        let deep = "[".repeat(100) + &"]".repeat(100);
        assert_eq!(
            eval(BytesFunc::JsonArray, vec![Value::Json(deep.into_bytes())]).unwrap_err().code(),
            3157
        );
    }

    #[test]
    fn hex_hashes_uuids() {
        assert_eq!(text(eval(BytesFunc::Hex, vec![s("abc")]).unwrap()), "616263");
        assert_eq!(text(eval(BytesFunc::Hex, vec![Value::Int(255)]).unwrap()), "FF");
        assert_eq!(text(eval(BytesFunc::Hex, vec![Value::Int(-1)]).unwrap()), "FFFFFFFFFFFFFFFF");
        assert_eq!(eval(BytesFunc::Unhex, vec![s("616")]).unwrap(), Value::Bytes(vec![6, 0x16]));
        assert_eq!(eval(BytesFunc::Unhex, vec![s("zz")]).unwrap(), Value::Null);
        assert_eq!(
            text(eval(BytesFunc::Md5, vec![s("abc")]).unwrap()),
            "900150983cd24fb0d6963f7d28e17f72"
        );
        assert_eq!(
            text(eval(BytesFunc::Sha1, vec![s("abc")]).unwrap()),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        assert_eq!(
            text(eval(BytesFunc::Sha2, vec![s("abc"), Value::Int(224)]).unwrap()),
            "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7"
        );
        assert_eq!(eval(BytesFunc::Sha2, vec![s("abc"), Value::Int(7)]).unwrap(), Value::Null);
        let u = text(eval(BytesFunc::Uuid, vec![]).unwrap());
        assert_eq!(u.len(), 36);
        assert_eq!(&u[14..15], "1");
        let t = "6ccd780c-baba-1026-9564-5b8c656024db";
        let b = eval(BytesFunc::UuidToBin, vec![s(t), Value::Int(1)]).unwrap();
        assert_eq!(
            text(eval(BytesFunc::Hex, vec![b.clone()]).unwrap()),
            "1026BABA6CCD780C95645B8C656024DB"
        );
        assert_eq!(text(eval(BytesFunc::BinToUuid, vec![b, Value::Int(1)]).unwrap()), t);
        assert_eq!(eval(BytesFunc::UuidToBin, vec![s("x")]).unwrap_err().code(), 1411);
        assert_eq!(text(eval(BytesFunc::IsUuid, vec![s(&format!("{{{t}}}"))]).unwrap()), "1");
        assert_eq!(text(eval(BytesFunc::IsUuid, vec![s("6ccd780c")]).unwrap()), "0");
    }
}
