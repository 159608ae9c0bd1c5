//! Issue 19's generated sweep against MariaDB: every function and operator below called with
//! representative arguments (NULL, zero, negative, huge, fractional, empty and odd strings,
//! hex, dates, times and invalid ones), each call compared between binlogd and MariaDB
//! (`support/differential.rs`). The calls are generated here, not listed by hand: one
//! argument of every kind for each one-argument function, a cross of a smaller set for the
//! two-argument ones, a few shapes for the longer ones, and every binary operator over the
//! small set.
//!
//! Where MySQL 8.0 and MariaDB 10.11 answer differently, the call is listed in
//! `tests/differential/sweep_mysql.txt` under the reason of its group (MySQL 8.0's answer,
//! from mysqld's source or manual, is checked in `crates/sql/tests`, e.g. `sql_casts.rs`), or
//! matched by [`KNOWN`]; such a call is not compared, and the test prints how many were left
//! out. The differences the sweep found in binlogd and that are not fixed yet are listed, call
//! by call, in `tests/differential/sweep_open.txt` (with the groups they fall in); they are
//! run and counted, not failed on. Every other difference fails the test, and so does a
//! listed call the sweep no longer generates.

mod support;

use support::differential::{self as mariadb, Case};

/// One argument of each kind, for one-argument functions.
const WIDE: &[&str] = &[
    "NULL",
    "0",
    "1",
    "-1",
    "2.5",
    "-2.5",
    "0.000001",
    "1e300",
    "-1e-300",
    "18446744073709551615",
    "-9223372036854775808",
    "99999999999999999999999999999.99",
    "''",
    "' '",
    "'abc'",
    "'  Hello World  '",
    "'12abc'",
    "'-7.5e2x'",
    "'Ab,cd,,ef'",
    "'192.168.0.1'",
    "0x41",
    "X'00FF'",
    "'2024-02-29'",
    "'2023-12-31 23:59:59.999999'",
    "'1999-01-01 00:00:00'",
    "'2024-13-40'",
    "'12:34:56'",
    "'-838:59:59'",
    "'not a date'",
    "DATE '2024-01-31'",
    "TIMESTAMP '2024-03-10 02:30:00'",
    "TIME '100:00:00'",
];

/// The smaller set crossed for two- and three-argument functions and operators.
const NARROW: &[&str] =
    &["NULL", "0", "3", "-2", "2.5", "1e20", "''", "'abc'", "'7x'", "'2024-02-29 12:00:00'"];

/// One-argument functions.
const UNARY: &[&str] = &[
    "ABS",
    "CEIL",
    "CEILING",
    "FLOOR",
    "ROUND",
    "SIGN",
    "SQRT",
    "EXP",
    "LN",
    "LOG",
    "LOG10",
    "LOG2",
    "SIN",
    "COS",
    "TAN",
    "ASIN",
    "ACOS",
    "ATAN",
    "COT",
    "DEGREES",
    "RADIANS",
    "CRC32",
    "BIN",
    "OCT",
    "HEX",
    "BIT_COUNT",
    "LENGTH",
    "CHAR_LENGTH",
    "CHARACTER_LENGTH",
    "OCTET_LENGTH",
    "BIT_LENGTH",
    "UPPER",
    "LOWER",
    "UCASE",
    "LCASE",
    "REVERSE",
    "LTRIM",
    "RTRIM",
    "TRIM",
    "ASCII",
    "ORD",
    "SPACE",
    "QUOTE",
    "SOUNDEX",
    "TO_BASE64",
    "FROM_BASE64",
    "UNHEX",
    "MD5",
    "SHA1",
    "SHA",
    "INET_ATON",
    "INET_NTOA",
    "IS_IPV4",
    "IS_IPV6",
    "ISNULL",
    "YEAR",
    "MONTH",
    "DAY",
    "DAYOFMONTH",
    "HOUR",
    "MINUTE",
    "SECOND",
    "MICROSECOND",
    "DAYOFWEEK",
    "DAYOFYEAR",
    "WEEKDAY",
    "WEEK",
    "WEEKOFYEAR",
    "YEARWEEK",
    "QUARTER",
    "DAYNAME",
    "MONTHNAME",
    "LAST_DAY",
    "DATE",
    "TIME",
    "TO_DAYS",
    "FROM_DAYS",
    "TIME_TO_SEC",
    "SEC_TO_TIME",
    "TO_SECONDS",
    "UNIX_TIMESTAMP",
    "FROM_UNIXTIME",
    "COALESCE",
];

/// `CAST(x AS type)` targets, over [`WIDE`].
const CASTS: &[&str] = &[
    "SIGNED",
    "UNSIGNED",
    "DECIMAL(10,2)",
    "CHAR",
    "CHAR(3)",
    "BINARY",
    "DATE",
    "DATETIME",
    "TIME",
    "DOUBLE",
];

/// Two-argument functions, over [`NARROW`] × [`NARROW`].
const BINARY: &[&str] = &[
    "POW",
    "MOD",
    "ATAN2",
    "LOG",
    "TRUNCATE",
    "ROUND",
    "LEFT",
    "RIGHT",
    "REPEAT",
    "INSTR",
    "LOCATE",
    "STRCMP",
    "CONCAT",
    "CONCAT_WS",
    "FIND_IN_SET",
    "FORMAT",
    "IFNULL",
    "NULLIF",
    "GREATEST",
    "LEAST",
    "DATEDIFF",
    "ADDTIME",
    "SUBTIME",
    "DATE_FORMAT",
    "MAKEDATE",
    "SUBSTRING",
    "SHA2",
    "PERIOD_ADD",
    "ELT",
    "FIELD",
    "COALESCE",
];

/// Binary operators, over [`NARROW`] × [`NARROW`].
const OPERATORS: &[&str] = &[
    "+", "-", "*", "/", "DIV", "%", "=", "<=>", "<>", "<", ">=", "LIKE", "&", "|", "^", "<<", ">>",
    "AND", "OR", "XOR",
];

/// Three-argument functions: each over the rows of [`TERNARY_ARGS`].
const TERNARY: &[&str] =
    &["SUBSTRING", "LPAD", "RPAD", "REPLACE", "SUBSTRING_INDEX", "LOCATE", "IF", "CONCAT_WS"];

const TERNARY_ARGS: &[[&str; 3]] = &[
    ["'hello world'", "2", "3"],
    ["'hello world'", "-3", "2"],
    ["'hello'", "0", "'x'"],
    ["'a.b.c'", "'.'", "2"],
    ["'a.b.c'", "'.'", "-2"],
    ["''", "1", "''"],
    ["NULL", "1", "'x'"],
    ["'abc'", "NULL", "1"],
    ["'abc'", "5", "NULL"],
    ["1", "'2'", "3.5"],
    ["'abcabc'", "'b'", "'XY'"],
    ["0", "'yes'", "'no'"],
];

/// Calls whose answers MySQL 8.0 and MariaDB 10.11 give differently: (a text every such
/// generated call contains, why). Each is left out of the comparison and named in the test's
/// output.
const KNOWN: &[(&str, &str)] = &[];

/// Every generated call (`SELECT` statements).
fn calls() -> Vec<String> {
    let mut out = Vec::new();
    for f in UNARY {
        for a in WIDE {
            out.push(format!("SELECT {f}({a})"));
        }
    }
    for t in CASTS {
        for a in WIDE {
            out.push(format!("SELECT CAST({a} AS {t})"));
        }
    }
    for f in BINARY {
        for a in NARROW {
            for b in NARROW {
                out.push(format!("SELECT {f}({a}, {b})"));
            }
        }
    }
    for op in OPERATORS {
        for a in NARROW {
            for b in NARROW {
                out.push(format!("SELECT {a} {op} {b}"));
            }
        }
    }
    for f in TERNARY {
        for [a, b, c] in TERNARY_ARGS {
            out.push(format!("SELECT {f}({a}, {b}, {c})"));
        }
    }
    out
}

#[test]
fn the_sweep_is_thousands_of_distinct_calls() {
    let all = calls();
    let distinct: std::collections::HashSet<&String> = all.iter().collect();
    assert_eq!(distinct.len(), all.len());
    assert!(all.len() > 5000, "{}", all.len());
    for (call, why) in KNOWN {
        assert!(all.iter().any(|c| c.contains(call)), "KNOWN matches no call: {call}");
        assert!(!why.trim().is_empty(), "{call}: a known difference says why");
    }
}

/// The calls of `tests/differential/sweep_open.txt`: differences the sweep found that are
/// not fixed yet (see that file's header).
fn open_calls() -> std::collections::HashSet<String> {
    let path = format!("{}/tests/differential/sweep_open.txt", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path)
        .expect("sweep_open.txt")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect()
}

/// The calls of `tests/differential/sweep_mysql.txt` with their group's reason: where MySQL
/// 8.0 answers otherwise than MariaDB and binlogd follows MySQL. A `## reason` line starts a
/// group; `#` lines are comments.
fn mysql_calls() -> std::collections::HashMap<String, String> {
    let path = format!("{}/tests/differential/sweep_mysql.txt", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).expect("sweep_mysql.txt");
    let mut reason = String::new();
    let mut out = std::collections::HashMap::new();
    for line in text.lines().map(str::trim) {
        if let Some(r) = line.strip_prefix("## ") {
            reason = r.trim().to_string();
        } else if !line.is_empty() && !line.starts_with('#') {
            assert!(!reason.is_empty(), "sweep_mysql.txt: {line} comes before any reason");
            out.insert(line.to_string(), reason.clone());
        }
    }
    out
}

#[test]
fn listed_calls_are_generated_calls() {
    let all: std::collections::HashSet<String> = calls().into_iter().collect();
    let open = open_calls();
    for (call, _) in mysql_calls() {
        assert!(all.contains(&call), "sweep_mysql.txt lists a call the sweep lacks: {call}");
        assert!(!open.contains(&call), "{call} is both open and classified");
    }
    for call in open {
        assert!(all.contains(&call), "sweep_open.txt lists a call the sweep lacks: {call}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generated_calls_answer_as_mariadb() {
    let Some(mut pair) = mariadb::start_pair("sweep").await else { return };
    let setup = vec![
        Case::Setup(
            "SET sql_mode='ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,\
             ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION'"
                .into(),
        ),
        Case::Setup("SET time_zone='+00:00'".into()),
    ];
    let open = open_calls();
    let classified = mysql_calls();
    let (mut list, mut open_list) = (setup, Vec::new());
    let (mut left_out, mut classified_left_out) = (Vec::new(), 0usize);
    for sql in calls() {
        if let Some((_, why)) = KNOWN.iter().find(|(call, _)| sql.contains(call)) {
            left_out.push(format!("{sql}: {why}"));
        } else if classified.contains_key(&sql) {
            classified_left_out += 1;
        } else if open.contains(&sql) {
            open_list.push(Case::Compare { sql, warnings: false });
        } else {
            list.push(Case::Compare { sql, warnings: false });
        }
    }
    let (failures, compared) = mariadb::run_cases(&mut pair.maria, &mut pair.binlogd, &list).await;
    let (still_open, listed) =
        mariadb::run_cases(&mut pair.maria, &mut pair.binlogd, &open_list).await;
    eprintln!(
        "{compared} calls compared; {} left out as MySQL 8.0 differences ({classified_left_out} \
         in sweep_mysql.txt); {listed} listed as open in sweep_open.txt, {} of them still differ",
        left_out.len() + classified_left_out,
        still_open.len()
    );
    let mut reasons: Vec<&String> = classified.values().collect();
    reasons.sort();
    reasons.dedup();
    for why in reasons {
        let n = classified.values().filter(|r| *r == why).count();
        eprintln!("  {n} left out: {why}");
    }
    for l in &left_out {
        eprintln!("  {l}");
    }
    let differing: std::collections::HashSet<&str> =
        still_open.iter().filter_map(|f| f.lines().next()).collect();
    for case in &open_list {
        if let Case::Compare { sql, .. } = case {
            if !differing.contains(sql.as_str()) {
                eprintln!("  now agrees (remove from sweep_open.txt): {sql}");
            }
        }
    }
    assert!(compared > 5000, "only {compared} calls");
    assert!(
        failures.is_empty(),
        "{} of {compared} calls differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
