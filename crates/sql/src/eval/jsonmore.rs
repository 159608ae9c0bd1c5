//! The JSON functions issue 19's first round left out, with mysqld's results and errors
//! (item_json_func.cc): JSON_ARRAY_APPEND, JSON_ARRAY_INSERT, JSON_CONTAINS_PATH,
//! JSON_MERGE_PRESERVE (and its deprecated name JSON_MERGE), JSON_MERGE_PATCH (RFC 7396),
//! JSON_OVERLAPS, JSON_PRETTY, JSON_SEARCH, JSON_STORAGE_SIZE and JSON_VALUE's two-argument
//! form. Paths, seeking and documents are `json_funcs.rs`'s ([`super::json_funcs::Leg`]).
//!
//! Invariants: every recursion over a document is bounded by its depth (at most
//! `engine::json::MAX_DEPTH`, checked when a document is built: 3157); a merged result deeper
//! than that is 3157 too (`json_value`).

use std::cmp::Ordering;

use engine::json::{Json, JsonError};
use engine::Value;

use super::json_funcs::{
    contains, has_wildcard, index_of, json_value, parse_path, seek, seek_mut, to_json,
    wildcard_error, Leg,
};
use super::to_text;
use crate::ast::JsonFn;
use crate::error::{Result, SqlError};

impl JsonFn {
    /// The function named `name` with its (min, max) argument counts.
    pub(crate) fn by_name(name: &str) -> Option<(JsonFn, usize, usize)> {
        use JsonFn::*;
        Some(match name {
            "json_array_append" => (ArrayAppend, 3, usize::MAX),
            "json_array_insert" => (ArrayInsert, 3, usize::MAX),
            "json_contains_path" => (ContainsPath, 3, usize::MAX),
            "json_merge_preserve" | "json_merge" => (MergePreserve, 2, usize::MAX),
            "json_merge_patch" => (MergePatch, 2, usize::MAX),
            "json_overlaps" => (Overlaps, 2, 2),
            "json_pretty" => (Pretty, 1, 1),
            "json_search" => (Search, 3, usize::MAX),
            "json_storage_size" => (StorageSize, 1, 1),
            "json_value" => (ScalarValue, 2, 2),
            _ => return None,
        })
    }

    pub(crate) fn name(self) -> &'static str {
        use JsonFn::*;
        match self {
            ArrayAppend => "json_array_append",
            ArrayInsert => "json_array_insert",
            ContainsPath => "json_contains_path",
            MergePreserve => "json_merge_preserve",
            MergePatch => "json_merge_patch",
            Overlaps => "json_overlaps",
            Pretty => "json_pretty",
            Search => "json_search",
            StorageSize => "json_storage_size",
            ScalarValue => "json_value",
        }
    }

    /// Whether the result is BIGINT.
    pub(crate) fn is_integer(self) -> bool {
        matches!(self, JsonFn::ContainsPath | JsonFn::Overlaps | JsonFn::StorageSize)
    }

    /// Whether the result is JSON (the others are text or integers).
    pub(crate) fn is_json(self) -> bool {
        matches!(
            self,
            JsonFn::ArrayAppend
                | JsonFn::ArrayInsert
                | JsonFn::MergePreserve
                | JsonFn::MergePatch
                | JsonFn::Search
        )
    }

    /// The argument count is one mysqld takes (pairs of path and value).
    pub(crate) fn arity_ok(self, n: usize) -> bool {
        match self {
            JsonFn::ArrayAppend | JsonFn::ArrayInsert => n % 2 == 1,
            _ => true,
        }
    }
}

/// Argument `i` as a JSON document (3141/3146 as mysqld's `get_json_wrapper`); None for NULL.
fn doc_arg(a: &[Value], i: usize, f: JsonFn) -> Result<Option<Json>> {
    match a.get(i) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Json(t)) => Ok(Some(engine::json::parse_stored(t))),
        Some(Value::Bytes(b)) => Json::parse(b).map(Some).map_err(|e| match e {
            JsonError::TooDeep => crate::output::bytes_types::too_deep(),
            JsonError::Syntax { reason, pos } => SqlError::Other {
                code: 3141,
                sqlstate: "22032",
                message: format!(
                    "Invalid JSON text in argument {} to function {}: \"{reason}\" at position {pos}.",
                    i + 1,
                    f.name()
                ),
            },
        }),
        Some(_) => Err(SqlError::Other {
            code: 3146,
            sqlstate: "22032",
            message: format!(
                "Invalid data type for JSON data in argument {} to function {}; a JSON string or \
                 JSON type is required.",
                i + 1,
                f.name()
            ),
        }),
    }
}

/// Argument `i` as a path; None for NULL.
fn path_arg(a: &[Value], i: usize) -> Result<Option<Vec<Leg>>> {
    match a.get(i) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => parse_path(&to_text(v)).map(Some),
    }
}

fn one_or_all(v: &Value, f: JsonFn) -> Result<Option<bool>> {
    if *v == Value::Null {
        return Ok(None);
    }
    let t = to_text(v);
    if t.eq_ignore_ascii_case(b"one") {
        Ok(Some(false))
    } else if t.eq_ignore_ascii_case(b"all") {
        Ok(Some(true))
    } else {
        Err(SqlError::Other {
            code: 3154,
            sqlstate: "42000",
            message: format!(
                "The oneOrAll argument to {} may take these values: 'one' or 'all'.",
                f.name()
            ),
        })
    }
}

/// Evaluates `f` over its evaluated arguments.
pub(crate) fn call(f: JsonFn, a: &[Value]) -> Result<Value> {
    use JsonFn::*;
    match f {
        ArrayAppend | ArrayInsert => {
            let Some(mut doc) = doc_arg(a, 0, f)? else { return Ok(Value::Null) };
            let mut i = 1;
            while i + 1 < a.len() {
                let Some(legs) = path_arg(a, i)? else { return Ok(Value::Null) };
                if has_wildcard(&legs) {
                    return Err(wildcard_error());
                }
                let value = to_json(&a[i + 1]);
                if f == ArrayAppend {
                    if let Some(target) = seek_mut(&mut doc, &legs) {
                        match target {
                            Json::Array(items) => items.push(value),
                            other => {
                                let old = std::mem::replace(other, Json::Null);
                                *other = Json::Array(vec![old, value]);
                            }
                        }
                    }
                } else {
                    let Some((Leg::Index { n, from_end }, parent)) = legs.split_last() else {
                        return Err(SqlError::Other {
                            code: 3165,
                            sqlstate: "42000",
                            message: "A path expression is not a path to a cell in an array."
                                .into(),
                        });
                    };
                    if let Some(Json::Array(items)) = seek_mut(&mut doc, parent) {
                        let at = if *from_end {
                            // `[last - n]` inserts before that cell (mysqld: at len - n - 1,
                            // clamped at 0).
                            items.len().saturating_sub(1).saturating_sub(*n)
                        } else {
                            (*n).min(items.len())
                        };
                        items.insert(at, value);
                    }
                }
                i += 2;
            }
            json_value(&doc)
        }
        ContainsPath => {
            let doc = doc_arg(a, 0, f)?;
            let Some(all) = one_or_all(&a[1], f)? else { return Ok(Value::Null) };
            let Some(doc) = doc else { return Ok(Value::Null) };
            let mut found_any = false;
            let mut found_all = true;
            for i in 2..a.len() {
                let Some(legs) = path_arg(a, i)? else { return Ok(Value::Null) };
                let mut hits = Vec::new();
                seek(&doc, &legs, &mut hits);
                if hits.is_empty() {
                    found_all = false;
                } else {
                    found_any = true;
                }
            }
            Ok(Value::Int(i64::from(if all { found_all } else { found_any })))
        }
        MergePreserve => {
            let mut out: Option<Json> = None;
            for i in 0..a.len() {
                let Some(d) = doc_arg(a, i, f)? else { return Ok(Value::Null) };
                out = Some(match out {
                    None => d,
                    Some(o) => merge_preserve(o, d),
                });
            }
            out.map_or(Ok(Value::Null), |d| json_value(&d))
        }
        MergePatch => {
            // mysqld's `Item_func_json_merge_patch::val_json`: a NULL argument makes the result
            // NULL until a later non-object patch replaces it.
            let mut out = doc_arg(a, 0, f)?;
            for i in 1..a.len() {
                let patch = doc_arg(a, i, f)?;
                out = match (out, patch) {
                    (_, None) => None,
                    (_, Some(p)) if !matches!(p, Json::Object(_)) => Some(p),
                    (None, Some(_)) => None,
                    (Some(o), Some(p)) => Some(merge_patch(o, p)),
                };
            }
            out.map_or(Ok(Value::Null), |d| json_value(&d))
        }
        Overlaps => {
            let (Some(x), Some(y)) = (doc_arg(a, 0, f)?, doc_arg(a, 1, f)?) else {
                return Ok(Value::Null);
            };
            Ok(Value::Int(i64::from(overlaps(&x, &y))))
        }
        Pretty => {
            let Some(d) = doc_arg(a, 0, f)? else { return Ok(Value::Null) };
            let mut out = String::new();
            pretty(&d, 0, &mut out);
            Ok(Value::Bytes(out.into_bytes()))
        }
        StorageSize => {
            let Some(d) = doc_arg(a, 0, f)? else { return Ok(Value::Null) };
            let size = engine::json::to_binary(&d).map_or(0, |b| b.len());
            Ok(Value::Int(size as i64))
        }
        ScalarValue => {
            let doc = doc_arg(a, 0, f)?;
            let Some(legs) = path_arg(a, 1)? else { return Ok(Value::Null) };
            if has_wildcard(&legs) {
                return Err(wildcard_error());
            }
            let Some(doc) = doc else { return Ok(Value::Null) };
            let mut hits = Vec::new();
            seek(&doc, &legs, &mut hits);
            Ok(match hits.first() {
                // NULL ON EMPTY, and a JSON null is SQL NULL (mysqld's default clauses).
                None | Some(Json::Null) => Value::Null,
                Some(Json::Str(s)) => Value::Bytes(s.clone().into_bytes()),
                Some(Json::Bool(b)) => {
                    Value::Bytes(if *b { b"true".to_vec() } else { b"false".to_vec() })
                }
                // An object or array is an error under the default NULL ON ERROR: NULL.
                Some(Json::Array(_) | Json::Object(_)) => Value::Null,
                Some(other) => Value::Bytes(other.to_text()),
            })
        }
        Search => search(a, f),
    }
}

/// JSON_MERGE_PRESERVE of two documents (`merge_doms`): arrays concatenate, objects merge
/// with the values of a shared key merged in turn, anything else becomes an array.
fn merge_preserve(a: Json, b: Json) -> Json {
    match (a, b) {
        (Json::Object(mut x), Json::Object(y)) => {
            for (k, v) in y {
                match x.binary_search_by(|(n, _)| engine::json::key_order(n, &k)) {
                    Ok(i) => {
                        let old = std::mem::replace(&mut x[i].1, Json::Null);
                        x[i].1 = merge_preserve(old, v);
                    }
                    Err(i) => x.insert(i, (k, v)),
                }
            }
            Json::Object(x)
        }
        (a, b) => {
            let mut items = match a {
                Json::Array(x) => x,
                other => vec![other],
            };
            match b {
                Json::Array(y) => items.extend(y),
                other => items.push(other),
            }
            Json::Array(items)
        }
    }
}

/// RFC 7396's MergePatch (`merge_patch` in json_dom.cc).
fn merge_patch(target: Json, patch: Json) -> Json {
    let Json::Object(p) = patch else { return patch };
    let mut t = match target {
        Json::Object(t) => t,
        _ => Vec::new(),
    };
    for (k, v) in p {
        let at = t.binary_search_by(|(n, _)| engine::json::key_order(n, &k));
        match (v, at) {
            (Json::Null, Ok(i)) => {
                t.remove(i);
            }
            (Json::Null, Err(_)) => {}
            (v, Ok(i)) => {
                let old = std::mem::replace(&mut t[i].1, Json::Null);
                t[i].1 = merge_patch(old, v);
            }
            (v, Err(i)) => t.insert(i, (k, merge_patch(Json::Null, v))),
        }
    }
    Json::Object(t)
}

fn equal(a: &Json, b: &Json) -> bool {
    a.compare(b) == Ordering::Equal
}

/// JSON_OVERLAPS (`json_overlaps`): arrays share an element, objects a key with an equal
/// value, an array holds the scalar, or two scalars are equal.
fn overlaps(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Array(x), Json::Array(y)) => x.iter().any(|p| y.iter().any(|q| equal(p, q))),
        (Json::Array(x), other) | (other, Json::Array(x)) => x.iter().any(|p| equal(p, other)),
        (Json::Object(x), Json::Object(y)) => {
            x.iter().any(|(k, v)| y.iter().any(|(k2, v2)| k == k2 && equal(v, v2)))
        }
        (Json::Object(_), _) | (_, Json::Object(_)) => false,
        (x, y) => equal(x, y) && contains(x, y),
    }
}

/// JSON_PRETTY's layout (`Json_wrapper::to_pretty_string`): two spaces a level, `"key": value`,
/// empty arrays and objects as `[]`/`{}`.
fn pretty(d: &Json, level: usize, out: &mut String) {
    let pad = |out: &mut String, l: usize| out.extend(std::iter::repeat_n("  ", l));
    match d {
        Json::Array(items) if !items.is_empty() => {
            out.push_str("[\n");
            for (i, x) in items.iter().enumerate() {
                pad(out, level + 1);
                pretty(x, level + 1, out);
                out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
            }
            pad(out, level);
            out.push(']');
        }
        Json::Object(members) if !members.is_empty() => {
            out.push_str("{\n");
            for (i, (k, x)) in members.iter().enumerate() {
                pad(out, level + 1);
                out.push_str(&Json::Str(k.clone()).to_string());
                out.push_str(": ");
                pretty(x, level + 1, out);
                out.push_str(if i + 1 < members.len() { ",\n" } else { "\n" });
            }
            pad(out, level);
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// A path leg as mysqld prints it: `.key` (quoted when not an identifier) or `[n]`.
fn push_member(path: &mut String, k: &str) {
    let ident = !k.is_empty()
        && !k.starts_with(|c: char| c.is_ascii_digit())
        && k.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$');
    path.push('.');
    if ident {
        path.push_str(k);
    } else {
        path.push_str(&Json::Str(k.to_string()).to_string());
    }
}

/// JSON_SEARCH(doc, one_or_all, search [, escape [, path ...]]): the paths of the string
/// scalars that match `search` as a LIKE pattern (mysqld's `Item_func_json_search`, which
/// matches with the search string's collation; here the default, case-insensitive one).
fn search(a: &[Value], f: JsonFn) -> Result<Value> {
    let doc = doc_arg(a, 0, f)?;
    let Some(all) = one_or_all(&a[1], f)? else { return Ok(Value::Null) };
    let (Some(doc), pattern) = (doc, &a[2]) else { return Ok(Value::Null) };
    if *pattern == Value::Null {
        return Ok(Value::Null);
    }
    let pattern = to_text(pattern);
    let escape = match a.get(3) {
        None | Some(Value::Null) => Some(u32::from('\\')),
        Some(v) => {
            let t = String::from_utf8_lossy(&to_text(v)).into_owned();
            let mut cs = t.chars();
            match (cs.next(), cs.next()) {
                (None, _) => Some(u32::from('\\')),
                (Some(c), None) => Some(u32::from(c)),
                _ => return Err(SqlError::WrongArguments("ESCAPE")),
            }
        }
    };
    let mut found: Vec<String> = Vec::new();
    let visit = |start: &Json, prefix: String, found: &mut Vec<String>| {
        walk(start, prefix, &mut |p, v| {
            if let Json::Str(s) = v {
                if super::collate::like(collation::DEFAULT, s.as_bytes(), &pattern, escape)
                    && !found.contains(&p)
                {
                    found.push(p);
                }
            }
            all || found.is_empty()
        });
    };
    if a.len() > 4 {
        for i in 4..a.len() {
            let Some(legs) = path_arg(a, i)? else { return Ok(Value::Null) };
            for (p, v) in seek_paths(&doc, &legs) {
                visit(v, p, &mut found);
            }
        }
    } else {
        visit(&doc, "$".to_string(), &mut found);
    }
    Ok(match found.len() {
        0 => Value::Null,
        1 => Value::Json(Json::Str(found.remove(0)).to_text()),
        _ if !all => Value::Json(Json::Str(found.remove(0)).to_text()),
        _ => Value::Json(Json::Array(found.into_iter().map(Json::Str).collect()).to_text()),
    })
}

/// Visits every value of `v` in document order with its path; `go` answers whether to go on.
fn walk(v: &Json, path: String, go: &mut dyn FnMut(String, &Json) -> bool) -> bool {
    if !go(path.clone(), v) {
        return false;
    }
    match v {
        Json::Array(items) => {
            for (i, x) in items.iter().enumerate() {
                if !walk(x, format!("{path}[{i}]"), go) {
                    return false;
                }
            }
        }
        Json::Object(members) => {
            for (k, x) in members {
                let mut p = path.clone();
                push_member(&mut p, k);
                if !walk(x, p, go) {
                    return false;
                }
            }
        }
        _ => {}
    }
    true
}

/// The values `legs` select with their paths (JSON_SEARCH's path arguments).
fn seek_paths<'a>(v: &'a Json, legs: &[Leg]) -> Vec<(String, &'a Json)> {
    let mut out = Vec::new();
    seek_paths_into(v, legs, "$".to_string(), &mut out);
    out
}

fn seek_paths_into<'a>(v: &'a Json, legs: &[Leg], path: String, out: &mut Vec<(String, &'a Json)>) {
    let Some((leg, rest)) = legs.split_first() else {
        if !out.iter().any(|(_, o)| std::ptr::eq(*o, v)) {
            out.push((path, v));
        }
        return;
    };
    match (leg, v) {
        (Leg::Member(k), Json::Object(o)) => {
            if let Some((_, x)) = o.iter().find(|(n, _)| n == k) {
                let mut p = path;
                push_member(&mut p, k);
                seek_paths_into(x, rest, p, out);
            }
        }
        (Leg::AnyMember, Json::Object(o)) => {
            for (k, x) in o {
                let mut p = path.clone();
                push_member(&mut p, k);
                seek_paths_into(x, rest, p, out);
            }
        }
        (Leg::Index { n, from_end }, Json::Array(a)) => {
            if let Some(i) = index_of(*n, *from_end, a.len()).filter(|i| *i < a.len()) {
                seek_paths_into(&a[i], rest, format!("{path}[{i}]"), out);
            }
        }
        (Leg::Index { n: 0, .. }, scalar) => seek_paths_into(scalar, rest, path, out),
        (Leg::AnyIndex, Json::Array(a)) => {
            for (i, x) in a.iter().enumerate() {
                seek_paths_into(x, rest, format!("{path}[{i}]"), out);
            }
        }
        (Leg::Descendants, _) => {
            seek_paths_into(v, rest, path.clone(), out);
            match v {
                Json::Array(a) => {
                    for (i, x) in a.iter().enumerate() {
                        seek_paths_into(x, legs, format!("{path}[{i}]"), out);
                    }
                }
                Json::Object(o) => {
                    for (k, x) in o {
                        let mut p = path.clone();
                        push_member(&mut p, k);
                        seek_paths_into(x, legs, p, out);
                    }
                }
                _ => {}
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Value {
        Value::Bytes(x.as_bytes().to_vec())
    }

    fn text(v: Value) -> String {
        match v {
            Value::Json(b) | Value::Bytes(b) => String::from_utf8(b).unwrap(),
            other => other.to_string(),
        }
    }

    #[test]
    fn the_manuals_examples() {
        let j = s(r#"["a", ["b", "c"], "d"]"#);
        assert_eq!(
            text(call(JsonFn::ArrayAppend, &[j.clone(), s("$[1]"), Value::Int(1)]).unwrap()),
            r#"["a", ["b", "c", 1], "d"]"#
        );
        assert_eq!(
            text(call(JsonFn::ArrayAppend, &[j.clone(), s("$[0]"), Value::Int(2)]).unwrap()),
            r#"[["a", 2], ["b", "c"], "d"]"#
        );
        let k = s(r#"[1, [2, 3], {"a": [4, 5]}]"#);
        assert_eq!(
            text(call(JsonFn::ArrayInsert, &[k.clone(), s("$[0]"), s("x")]).unwrap()),
            r#"["x", 1, [2, 3], {"a": [4, 5]}]"#
        );
        assert_eq!(
            text(call(JsonFn::ArrayInsert, &[k.clone(), s("$[100]"), s("x")]).unwrap()),
            r#"[1, [2, 3], {"a": [4, 5]}, "x"]"#
        );
        assert_eq!(call(JsonFn::ArrayInsert, &[k, s("$.a"), s("x")]).unwrap_err().code(), 3165);
        let c = s(r#"{"a": 1, "b": 2, "c": {"d": 4}}"#);
        assert_eq!(
            call(JsonFn::ContainsPath, &[c.clone(), s("one"), s("$.a"), s("$.e")]).unwrap(),
            Value::Int(1)
        );
        assert_eq!(
            call(JsonFn::ContainsPath, &[c.clone(), s("all"), s("$.a"), s("$.e")]).unwrap(),
            Value::Int(0)
        );
        assert_eq!(call(JsonFn::ContainsPath, &[c, s("x"), s("$.a")]).unwrap_err().code(), 3154);
        assert_eq!(
            text(call(JsonFn::MergePreserve, &[s("[1, 2]"), s(r#"{"id": 47}"#)]).unwrap()),
            r#"[1, 2, {"id": 47}]"#
        );
        assert_eq!(
            text(
                call(JsonFn::MergePreserve, &[s(r#"{"a": 1, "b": 2}"#), s(r#"{"a": 3, "c": 4}"#)])
                    .unwrap()
            ),
            r#"{"a": [1, 3], "b": 2, "c": 4}"#
        );
        assert_eq!(
            text(
                call(JsonFn::MergePatch, &[s(r#"{"a": 1, "b": 2}"#), s(r#"{"a": 3, "c": 4}"#)])
                    .unwrap()
            ),
            r#"{"a": 3, "b": 2, "c": 4}"#
        );
        assert_eq!(
            text(call(JsonFn::MergePatch, &[s(r#"{"a":1, "b":2}"#), s(r#"{"b":null}"#)]).unwrap()),
            r#"{"a": 1}"#
        );
        assert_eq!(text(call(JsonFn::MergePatch, &[s("[1, 2]"), s("true")]).unwrap()), "true");
        assert_eq!(call(JsonFn::Overlaps, &[s("[1,3,5,7]"), s("[2,5,7]")]).unwrap(), Value::Int(1));
        assert_eq!(
            call(JsonFn::Overlaps, &[s(r#"{"a":1,"b":10}"#), s(r#"{"c":1,"b":10}"#)]).unwrap(),
            Value::Int(1)
        );
        assert_eq!(call(JsonFn::Overlaps, &[s("5"), s("[1, 5]")]).unwrap(), Value::Int(1));
        assert_eq!(
            text(call(JsonFn::Pretty, &[s(r#"{"a":"10","b":[1, {}],"c":[]}"#)]).unwrap()),
            "{\n  \"a\": \"10\",\n  \"b\": [\n    1,\n    {}\n  ],\n  \"c\": []\n}"
        );
        let j = s(r#"["abc", [{"k": "10"}, "def"], {"x":"abc"}, {"y":"bcd"}]"#);
        assert_eq!(
            text(call(JsonFn::Search, &[j.clone(), s("one"), s("abc")]).unwrap()),
            r#""$[0]""#
        );
        assert_eq!(
            text(call(JsonFn::Search, &[j.clone(), s("all"), s("abc")]).unwrap()),
            r#"["$[0]", "$[2].x"]"#
        );
        assert_eq!(call(JsonFn::Search, &[j.clone(), s("all"), s("ghi")]).unwrap(), Value::Null);
        assert_eq!(
            text(
                call(JsonFn::Search, &[j.clone(), s("all"), s("%b%"), Value::Null, s("$[3]")])
                    .unwrap()
            ),
            r#""$[3].y""#
        );
        assert_eq!(
            text(
                call(
                    JsonFn::ScalarValue,
                    &[s(r#"{"item": "shoes", "price": "49.95"}"#), s("$.item")]
                )
                .unwrap()
            ),
            "shoes"
        );
        assert_eq!(
            call(JsonFn::StorageSize, &[s(r#"{"a": 1000, "b": "wxyz", "c": "[1, 3, 5, 7]"}"#)])
                .unwrap(),
            Value::Int(47)
        );
    }
}
