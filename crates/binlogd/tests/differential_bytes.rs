//! Differential test of issue 19's byte types and functions: the same statements go to binlogd
//! and to a MariaDB 10.11 the test starts, and the answers (rows as text, or the error code)
//! are compared.
//!
//! The expectation is MySQL 8.0's. Each case says how it is checked:
//! - `same`: binlogd must answer exactly as MariaDB (the behaviour is shared).
//! - `json`: both answers are JSON documents that must be equal as JSON; binlogd's text must
//!   also be MySQL 8.0's canonical printing (`{"a": 1, "b": [1, 2]}`, keys sorted by length
//!   then bytes). MariaDB keeps the document's input text and JSON is a LONGTEXT alias there.
//! - `mysql`: MySQL 8.0 answers otherwise than MariaDB (or MariaDB lacks the feature); the case
//!   carries MySQL's answer (from the MySQL 8.0 reference manual or source, cited per group)
//!   and the reason, and only binlogd is checked against it.
//!
//! Needs `mariadbd` (scripts/test.sh installs mariadb-server); fails under `CI=true` without it.

mod support;

use std::time::Duration;

use engine::json::Json;
use support::differential::{self, values, Answer};

enum Check {
    Same,
    Json,
    Mysql(Answer, &'static str),
}

struct Case {
    sql: String,
    check: Check,
}

fn same(sql: impl Into<String>) -> Case {
    Case { sql: sql.into(), check: Check::Same }
}

fn json(sql: impl Into<String>) -> Case {
    Case { sql: sql.into(), check: Check::Json }
}

fn one(v: Option<&str>) -> Answer {
    Ok(vec![vec![v.map(str::to_string)]])
}

fn mysql(sql: impl Into<String>, want: Answer, why: &'static str) -> Case {
    Case { sql: sql.into(), check: Check::Mysql(want, why) }
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "''"))
}

/// The statements, in order (DDL and DML included: later SELECTs read what earlier INSERTs
/// stored).
fn cases() -> Vec<Case> {
    let mut c = Vec::new();
    let strings = ["", "a", "abc", "héllo wörld", "0", "123", "12abc", "a'b", "  x  ", "\\n"];
    let mut scalars: Vec<String> = strings.iter().map(|s| quote(s)).collect();
    scalars.extend(
        ["NULL", "0", "1", "255", "-1", "18446744073709551615", "1.5", "-2.5", "1e3"]
            .iter()
            .map(|s| s.to_string()),
    );
    // HEX/UNHEX, hashes: item_strfunc.cc, identical in MariaDB.
    for s in &scalars {
        c.push(same(format!("SELECT HEX({s})")));
        c.push(same(format!("SELECT MD5({s})")));
        c.push(same(format!("SELECT SHA1({s})")));
        c.push(same(format!("SELECT UNHEX(HEX({s}))")));
        for bits in [0, 224, 256, 384, 512, 100] {
            c.push(same(format!("SELECT SHA2({s}, {bits})")));
        }
    }
    for h in ["", "41", "4142", "zz", "414", "6a6B", "G1", "00ff"] {
        c.push(same(format!("SELECT HEX(UNHEX('{h}')), UNHEX('{h}') IS NULL")));
    }
    c.push(same("SELECT HEX(b'101'), HEX(b'100000001'), HEX(x'4142'), b'1000001'"));
    c.push(same("SELECT LENGTH(UUID()), UUID() <> UUID(), SUBSTRING(UUID(), 15, 1)"));
    // UUID_TO_BIN/BIN_TO_UUID/IS_UUID: MySQL 8.0 only (MariaDB 10.11 has a UUID type instead);
    // MySQL manual 14.23 "Miscellaneous Functions" examples.
    let u = "6ccd780c-baba-1026-9564-5b8c656024db";
    c.push(mysql(
        format!("SELECT HEX(UUID_TO_BIN('{u}'))"),
        one(Some("6CCD780CBABA102695645B8C656024DB")),
        "UUID_TO_BIN is MySQL 8.0's",
    ));
    c.push(mysql(
        format!("SELECT HEX(UUID_TO_BIN('{u}', 1))"),
        one(Some("1026BABA6CCD780C95645B8C656024DB")),
        "UUID_TO_BIN is MySQL 8.0's",
    ));
    c.push(mysql(
        format!("SELECT BIN_TO_UUID(UUID_TO_BIN('{u}', 1), 1)"),
        one(Some(u)),
        "BIN_TO_UUID is MySQL 8.0's",
    ));
    c.push(mysql(
        format!("SELECT BIN_TO_UUID(UUID_TO_BIN('{{{u}}}'))"),
        one(Some(u)),
        "BIN_TO_UUID is MySQL 8.0's",
    ));
    for (text, valid) in [
        (u, "1"),
        ("6ccd780cbaba102695645b8c656024db", "1"),
        ("{6ccd780c-baba-1026-9564-5b8c656024db}", "1"),
        ("6ccd780c-baba-1026-9564-5b8c656024d", "0"),
        ("6ccd780c-baba-1026-9564-5b8c656024dx", "0"),
        ("", "0"),
    ] {
        c.push(mysql(
            format!("SELECT IS_UUID('{text}')"),
            one(Some(valid)),
            "IS_UUID is MySQL 8.0's",
        ));
    }
    c.push(mysql("SELECT IS_UUID(NULL)", one(None), "IS_UUID is MySQL 8.0's"));
    c.push(mysql("SELECT UUID_TO_BIN('nope')", Err(1411), "UUID_TO_BIN is MySQL 8.0's"));
    c.push(mysql("SELECT BIN_TO_UUID('short')", Err(1411), "BIN_TO_UUID is MySQL 8.0's"));

    // JSON_VALID / JSON_TYPE / JSON_LENGTH / JSON_DEPTH over documents.
    let docs = [
        "{}",
        "[]",
        "1",
        "-7",
        "1.5",
        "true",
        "null",
        r#""str""#,
        r#"{"a": 1, "b": [1, 2, {"c": null}]}"#,
        r#"[1, "two", [3, [4]], {"five": 5}]"#,
        r#"{"k": {"k": {"k": []}}}"#,
        r#"  {"spaces" :  [ 1 , 2 ]  }  "#,
        r#""\u00e9\n""#,
    ];
    let invalid = ["", "{", "[1,]", "{a:1}", "01", "[1] x", "'a'", "tru", r#"{"a" 1}"#, "nul"];
    for d in docs {
        let q = quote(d);
        c.push(same(format!("SELECT JSON_VALID({q})")));
        c.push(same(format!("SELECT JSON_LENGTH({q})")));
        c.push(same(format!("SELECT JSON_DEPTH({q})")));
        c.push(json(format!("SELECT JSON_EXTRACT({q}, '$')")));
        c.push(json(format!("SELECT JSON_ARRAY({q})")));
        c.push(json(format!("SELECT JSON_OBJECT('k', {q})")));
    }
    for d in invalid {
        c.push(same(format!("SELECT JSON_VALID({})", quote(d))));
    }
    c.push(same("SELECT JSON_VALID(NULL), JSON_LENGTH(NULL), JSON_EXTRACT(NULL, '$')"));
    // JSON_TYPE: MySQL's names (json_dom.cc `Json_dom::json_type` → item_json_func.cc
    // `type_name`): same as MariaDB's for these.
    for d in ["{}", "[]", "1", "1.5", "true", "null", r#""s""#] {
        c.push(same(format!("SELECT JSON_TYPE({})", quote(d))));
    }
    let doc = quote(r#"{"a": 1, "b": [10, 20, {"c": "x"}], "d": {"e": true}}"#);
    for p in
        ["$.a", "$.b", "$.b[0]", "$.b[2].c", "$.d.e", "$.zz", "$.b[5]", "$.d", "$.b[1]", "$.\"a\""]
    {
        c.push(json(format!("SELECT JSON_EXTRACT({doc}, '{p}')")));
        c.push(same(format!("SELECT JSON_UNQUOTE(JSON_EXTRACT({doc}, '{p}'))")));
        c.push(same(format!("SELECT JSON_LENGTH({doc}, '{p}')")));
        c.push(json(format!("SELECT JSON_SET({doc}, '{p}', 99)")));
        c.push(json(format!("SELECT JSON_INSERT({doc}, '{p}', 'new')")));
        c.push(json(format!("SELECT JSON_REPLACE({doc}, '{p}', JSON_ARRAY(1, 2))")));
        c.push(json(format!("SELECT JSON_REMOVE({doc}, '{p}')")));
    }
    c.push(json(format!("SELECT JSON_EXTRACT({doc}, '$.a', '$.b[1]')")));
    c.push(json(format!("SELECT JSON_EXTRACT({doc}, '$.b[*]')")));
    c.push(json(format!("SELECT JSON_EXTRACT({doc}, '$**.c')")));
    c.push(json(format!("SELECT JSON_EXTRACT({doc}, '$.*')")));
    c.push(json(format!("SELECT JSON_KEYS({doc})")));
    c.push(json(format!("SELECT JSON_KEYS({doc}, '$.d')")));
    c.push(same(format!("SELECT JSON_KEYS({doc}, '$.a')")));
    for (t, cand) in [
        ("[1, 2, [3]]", "[1, 3]"),
        ("[1, 2, [3]]", "[3]"),
        ("[1, 2]", "1"),
        (r#"{"a": 1, "b": 2}"#, r#"{"a": 1}"#),
        (r#"{"a": 1, "b": 2}"#, r#"{"a": 2}"#),
        (r#"{"a": [1, 2]}"#, r#"{"a": [2]}"#),
        ("1", "1"),
        (r#""x""#, r#""x""#),
        (r#"{"a": 1}"#, "1"),
    ] {
        c.push(same(format!("SELECT JSON_CONTAINS({}, {})", quote(t), quote(cand))));
    }
    c.push(same(format!("SELECT JSON_CONTAINS({doc}, '20', '$.b')")));
    c.push(json("SELECT JSON_ARRAY(1, 'a', NULL, 1.5, JSON_ARRAY(2, 3), JSON_OBJECT('k', 'v'))"));
    c.push(json("SELECT JSON_OBJECT('b', 1, 'a', 2, 'ccc', 3, 'dd', 4)"));
    c.push(json("SELECT JSON_OBJECT()"));
    c.push(json("SELECT JSON_ARRAY()"));
    c.push(same("SELECT JSON_UNQUOTE('\"a\\\\tb\"'), JSON_UNQUOTE('plain'), JSON_UNQUOTE(NULL)"));
    c.push(same("SELECT JSON_QUOTE('a\"b'), JSON_QUOTE('')"));
    // Printing: MySQL 8.0 prints JSON canonically (json_dom.cc `Json_wrapper::to_string`:
    // ", " and ": " separators, keys sorted by length then bytes, the last duplicate key kept);
    // MariaDB returns the text it was given.
    c.push(mysql(
        r#"SELECT CAST('{"b":[1,2],"a":1}' AS JSON)"#,
        one(Some(r#"{"a": 1, "b": [1, 2]}"#)),
        "MySQL prints JSON canonically; MariaDB has no CAST AS JSON",
    ));
    c.push(mysql(
        r#"SELECT JSON_OBJECT('bb', 1, 'a', 2, 'c', 3)"#,
        one(Some(r#"{"a": 2, "c": 3, "bb": 1}"#)),
        "MySQL sorts keys by length then bytes",
    ));
    c.push(mysql(
        r#"SELECT CAST('{"a": 1, "a": 2}' AS JSON)"#,
        one(Some(r#"{"a": 2}"#)),
        "MySQL 8.0.3+ keeps the last duplicate key",
    ));
    c.push(mysql(
        "SELECT JSON_ARRAY(1e300, 3.0e0, -0.5e0)",
        one(Some("[1e300, 3.0, -0.5]")),
        "MySQL prints JSON doubles with my_gcvt and keeps .0",
    ));
    // Errors: MySQL's 3141 (invalid JSON in an argument), 3143 (bad path), 3149 (wildcard where
    // none is allowed), 3153 (removing '$'), 3157 (deeper than 100): item_json_func.cc;
    // MariaDB answers NULL with a warning instead.
    c.push(mysql("SELECT JSON_EXTRACT('{', '$')", Err(3141), "MariaDB warns and answers NULL"));
    c.push(mysql("SELECT JSON_EXTRACT('[1]', 'x')", Err(3143), "MariaDB warns and answers NULL"));
    c.push(mysql("SELECT JSON_SET('[1]', '$[*]', 1)", Err(3149), "MariaDB warns"));
    c.push(mysql("SELECT JSON_REMOVE('[1]', '$')", Err(3153), "MariaDB warns"));
    c.push(mysql(
        format!("SELECT JSON_LENGTH('{}{}')", "[".repeat(101), "]".repeat(101)),
        Err(3157),
        "MySQL's JSON_DOCUMENT_MAX_DEPTH is 100 (error 3157); MariaDB's limit is 32 (warning)",
    ));
    c.push(mysql(
        format!("SELECT JSON_LENGTH('{}{}')", "[".repeat(100), "]".repeat(100)),
        one(Some("1")),
        "100 levels are within MySQL's limit; MariaDB's is 32",
    ));
    c.push(mysql("SELECT JSON_OBJECT(NULL, 1)", Err(3158), "MariaDB accepts a NULL key"));

    // Tables of every byte type.
    c.push(same("CREATE DATABASE dbytes"));
    c.push(same(
        "CREATE TABLE dbytes.t (id INT PRIMARY KEY, b BINARY(4), vb VARBINARY(8), \
         tb TINYBLOB, bl BLOB, mb MEDIUMBLOB, lb LONGBLOB, tt TINYTEXT, tx TEXT, mt MEDIUMTEXT, \
         lt LONGTEXT, e ENUM('small','medium','large'), s SET('a','b','c','d'), bt BIT(10), \
         flag TINYINT(1), u INT UNSIGNED)",
    ));
    let rows = [
        "1, 'ab', 'xyz', 'tiny', 'blob', 'medium', 'long', 'tt', 'tx', 'mt', 'lt', 'small', 'a,c', b'1010', 1, 7",
        "2, x'00ff', x'', '', '', '', '', '', '', '', '', 'LARGE', 'd,a,a', 1023, 0, 0",
        "3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL",
        "4, 'abcd', '12345678', 'x', 'y', 'z', 'w', 'v', 'u', 't', 's', 2, 5, 0, 1, 4294967295",
        "5, '', 'a\\0b', 'é', 'é', 'é', 'é', 'é', 'é', 'é', 'é', 'medium', '', b'1', 0, 1",
    ];
    for r in rows {
        c.push(same(format!("INSERT INTO dbytes.t VALUES ({r})")));
    }
    for col in ["b", "vb", "tb", "bl", "mb", "lb", "tt", "tx", "mt", "lt", "e", "s", "flag", "u"] {
        c.push(same(format!(
            "SELECT id, {col}, HEX({col}), LENGTH({col}) FROM dbytes.t ORDER BY id"
        )));
    }
    // Not yet: a BIT column in numeric context (HEX(bt) is 'A', bt + 0 is 10 in mysqld); the
    // SQL layer reads BIT values as their bytes. Known gap, docs/sql.md.
    c.push(same("SELECT id, HEX(bt) FROM dbytes.t WHERE bt IS NULL ORDER BY id"));
    c.push(same("SELECT id FROM dbytes.t WHERE e = 'small' OR s = 'a,c' ORDER BY id"));
    c.push(same("SELECT id FROM dbytes.t WHERE b = 'ab' ORDER BY id"));
    c.push(same("SELECT COUNT(*) FROM dbytes.t WHERE e IS NULL"));
    // ORDER BY an ENUM sorts by member index (small < medium < large), not by text.
    c.push(same("SELECT id, e FROM dbytes.t ORDER BY e, id"));
    c.push(same("SELECT id, e FROM dbytes.t ORDER BY e DESC, id"));
    c.push(same(
        "SELECT FIELD('b', 'a', 'b'), FIELD('B', 'a', 'b'), FIELD('z', 'a'), FIELD(NULL, 'a')",
    ));
    // Strict-mode refusals: 1406 (too long), 1265 (not a member).
    for (col, v) in [
        ("b", "'abcde'"),
        ("vb", "'123456789'"),
        ("tb", "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'"),
        ("tt", "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'"),
        ("e", "'huge'"),
        ("e", "4"),
        ("s", "'a,z'"),
        ("s", "16"),
        ("bt", "1024"),
        ("bt", "b'11111111111'"),
    ] {
        c.push(same(format!("INSERT INTO dbytes.t (id, {col}) VALUES (9, {v})")));
    }
    c.push(same("SELECT COUNT(*) FROM dbytes.t"));
    c.push(same("UPDATE dbytes.t SET e = 'medium', s = 'b', b = 'q' WHERE id = 1"));
    c.push(same("SELECT e, s, HEX(b) FROM dbytes.t WHERE id = 1"));
    c.push(same("UPDATE dbytes.t SET e = 'nope' WHERE id = 1"));
    c.push(same("SELECT e FROM dbytes.t WHERE id = 1"));
    c.push(same(
        "CREATE TABLE dbytes.k (b VARBINARY(16) PRIMARY KEY, e ENUM('x','y') NOT NULL, \
         UNIQUE KEY ue (e))",
    ));
    c.push(same("INSERT INTO dbytes.k VALUES (x'00', 'x'), (x'0000', 'y')"));
    c.push(same("INSERT INTO dbytes.k VALUES (x'00', 'y')"));
    c.push(same("INSERT INTO dbytes.k VALUES (x'01', 'X')"));
    c.push(same("SELECT HEX(b), e FROM dbytes.k ORDER BY b"));
    // SHOW CREATE TABLE: MySQL 8.0.19+ drops integer display widths except TINYINT(1) and
    // ZEROFILL (MySQL 8.0 manual 11.1.6 "Numeric Type Attributes"); MariaDB keeps int(10)
    // unsigned. Checked on binlogd only.
    c.push(mysql(
        "SELECT COLUMN_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'dbytes' \
         AND TABLE_NAME = 't' ORDER BY ORDINAL_POSITION",
        Ok([
            "int",
            "binary(4)",
            "varbinary(8)",
            "tinyblob",
            "blob",
            "mediumblob",
            "longblob",
            "tinytext",
            "text",
            "mediumtext",
            "longtext",
            "enum('small','medium','large')",
            "set('a','b','c','d')",
            "bit(10)",
            "tinyint(1)",
            "int unsigned",
        ]
        .iter()
        .map(|t| vec![Some(t.to_string())])
        .collect()),
        "MySQL 8.0.19+ prints no display width but TINYINT(1)'s",
    ));
    // JSON columns: MySQL validates on write (3140) and stores the canonical form; MariaDB's
    // JSON is LONGTEXT with a JSON_VALID check (error 4025) that keeps the text as given.
    c.push(same("CREATE TABLE dbytes.j (id INT PRIMARY KEY, doc JSON)"));
    for (id, d) in [
        (1, r#"{"name": "x", "tags": ["a", "b"], "n": 1}"#),
        (2, "[1, 2.5, null, true]"),
        (3, r#""just a string""#),
        (4, r#"{"nested": {"deep": {"deeper": [1, {"k": "v"}]}}}"#),
    ] {
        c.push(same(format!("INSERT INTO dbytes.j VALUES ({id}, {})", quote(d))));
    }
    c.push(same("INSERT INTO dbytes.j VALUES (5, NULL)"));
    c.push(json("SELECT doc FROM dbytes.j WHERE id = 1"));
    c.push(json("SELECT doc FROM dbytes.j WHERE id = 4"));
    c.push(same(
        "SELECT id, JSON_TYPE(doc), JSON_LENGTH(doc), JSON_VALID(doc) FROM dbytes.j ORDER BY id",
    ));
    c.push(same("SELECT id, JSON_UNQUOTE(JSON_EXTRACT(doc, '$.name')) FROM dbytes.j ORDER BY id"));
    c.push(mysql(
        "INSERT INTO dbytes.j VALUES (6, '{bad')",
        Err(3140),
        "MySQL validates JSON on write (3140); MariaDB's CHECK constraint fails with 4025",
    ));
    c.push(mysql(
        "SELECT doc FROM dbytes.j WHERE id = 2",
        one(Some("[1, 2.5, null, true]")),
        "MySQL prints the stored document canonically",
    ));
    c.push(mysql(
        "SELECT doc->'$.tags[1]', doc->>'$.name', doc->>'$.n' FROM dbytes.j WHERE id = 1",
        Ok(vec![vec![Some("\"b\"".into()), Some("x".into()), Some("1".into())]]),
        "-> and ->> are MySQL's (MariaDB has no column-path operators)",
    ));
    // Not yet: comparing a JSON value with a number (`doc->'$.n' = 1` answers 3143 here);
    // known gap, docs/sql.md.
    c.push(mysql(
        "UPDATE dbytes.j SET doc = JSON_SET(doc, '$.n', 2, '$.z', 'new') WHERE id = 1",
        Ok(vec![]),
        "JSON_SET result stored as JSON (canonical in MySQL)",
    ));
    c.push(mysql(
        "SELECT doc FROM dbytes.j WHERE id = 1",
        one(Some(r#"{"n": 2, "z": "new", "name": "x", "tags": ["a", "b"]}"#)),
        "MySQL prints the stored document canonically",
    ));
    c.push(same("DROP DATABASE dbytes"));
    c
}

/// Whether `text` is a JSON document printed as MySQL 8.0 prints it.
fn canonical(text: &str) -> bool {
    Json::parse(text.as_bytes()).is_ok_and(|d| d.to_string() == text)
}

fn json_equal(a: &Answer, b: &Answer) -> bool {
    match (a, b) {
        (Ok(x), Ok(y)) => {
            x.len() == y.len()
                && x.iter().zip(y).all(|(r, s)| {
                    r.len() == s.len()
                        && r.iter().zip(s).all(|(p, q)| match (p, q) {
                            (Some(p), Some(q)) => {
                                match (Json::parse(p.as_bytes()), Json::parse(q.as_bytes())) {
                                    (Ok(p), Ok(q)) => p.compare(&q).is_eq(),
                                    _ => p == q,
                                }
                            }
                            (p, q) => p == q,
                        })
                })
        }
        (x, y) => x == y,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn byte_types_and_functions_answer_as_mysql() {
    if !differential::available(&[]) {
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let maria = differential::start(tmp.path());
    let binlogd = support::start(&tmp.path().join("binlogd"), &["--initialize-insecure"]);
    let mut m = differential::connect(maria.port, Duration::from_secs(60)).await;
    let mut b = differential::connect(binlogd.port, Duration::from_secs(10)).await;
    let cases = cases();
    let mut failures = Vec::new();
    let (mut shared, mut mysql_only) = (0, 0);
    for case in &cases {
        let got = values(&mut b, &case.sql).await;
        let theirs = values(&mut m, &case.sql).await;
        let ok = match &case.check {
            Check::Same => {
                shared += 1;
                got == theirs
            }
            Check::Json => {
                shared += 1;
                let canon = match &got {
                    Ok(rows) => rows.iter().flatten().flatten().all(|t| canonical(t)),
                    Err(_) => true,
                };
                canon && json_equal(&got, &theirs)
            }
            Check::Mysql(want, why) => {
                mysql_only += 1;
                if got != *want {
                    failures.push(format!(
                        "{}\n  MySQL 8.0 ({why}): {want:?}\n  binlogd: {got:?}",
                        case.sql
                    ));
                }
                true
            }
        };
        if !ok {
            failures.push(format!("{}\n  MariaDB: {theirs:?}\n  binlogd: {got:?}", case.sql));
        }
    }
    assert!(cases.len() >= 300, "{} cases", cases.len());
    assert!(
        failures.is_empty(),
        "{} of {} cases differ ({shared} compared with MariaDB, {mysql_only} MySQL-only):\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    eprintln!(
        "{} cases: {shared} compared with MariaDB, {mysql_only} against MySQL 8.0's answers",
        cases.len()
    );
}
