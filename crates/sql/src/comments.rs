//! Executable comments: `/*!NNNNN text */`, `/*! text */` and MariaDB's `/*M!NNNNNN text */`.
//!
//! Every `mariadb-dump`/`mysqldump` file, every `mysqlbinlog` output and most client
//! libraries' session set-up are made of statements wrapped in version comments. mysqld's
//! lexer (`Lex_input_stream` in `sql_lex.cc`, the `MY_LEX_COMMENT` state of `lex_one_token`)
//! reads `/*!` followed by a version number (five digits, or six followed by a blank as
//! MySQL 8.0.34+ accepts) as "execute the text when `MYSQL_VERSION_ID` ≥ the number", `/*!`
//! without a number as "always execute", and any other `/*...*/` — MariaDB's `/*M!...*/`
//! included — as a comment. This module applies those rules to the statement text before it
//! is tokenized: an executed comment's markers (`/*!NNNNN` and its `*/`) become blanks, a
//! skipped one becomes blanks as a whole, so error offsets and the rest of the text keep
//! their positions. sqlparser skips ordinary comments itself but knows no executable ones,
//! which is why this is written here.
//!
//! Invariants: quotes (`'…'`, `"…"`, `` `…` ``, with backslash escapes in the first two) and
//! `--`/`#` comments are copied untouched; the output has the input's length in bytes; one
//! pass, no recursion (mysqld does not nest comments either).

use std::borrow::Cow;

/// The server's `MYSQL_VERSION_ID` (8.0.40, the version binlogd reports).
pub const VERSION_ID: u32 = 80040;

/// What the text turned out to be after the comments were applied.
#[derive(Debug, PartialEq, Eq)]
pub struct Expanded<'a> {
    pub text: Cow<'a, str>,
    /// The text held at least one comment (of any kind): a statement that is only comments
    /// is mysqld's empty query, answered OK (`SQLCOM_EMPTY_QUERY`); without any comment an
    /// empty text is 1065 ER_EMPTY_QUERY.
    pub had_comment: bool,
}

/// Applies mysqld's executable-comment rules to `sql` (see the module doc).
pub fn expand(sql: &str) -> Expanded<'_> {
    let b = sql.as_bytes();
    if !sql.contains("/*") {
        let had_comment = sql.contains("--") || sql.contains('#');
        return Expanded { text: Cow::Borrowed(sql), had_comment };
    }
    let mut out: Vec<u8> = b.to_vec();
    let mut had_comment = false;
    // Inside an executed `/*!` comment: its `*/` is blanked out when met.
    let mut in_exec = false;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            q @ (b'\'' | b'"' | b'`') => {
                i += 1;
                while i < b.len() && b[i] != q {
                    if b[i] == b'\\' && q != b'`' {
                        i += 1;
                    }
                    i += 1;
                }
                i += 1;
            }
            b'#' => {
                had_comment = true;
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'-' if b.get(i + 1) == Some(&b'-')
                && b.get(i + 2).is_none_or(|c| c.is_ascii_whitespace()) =>
            {
                had_comment = true;
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'*' if in_exec && b.get(i + 1) == Some(&b'/') => {
                out[i] = b' ';
                out[i + 1] = b' ';
                in_exec = false;
                i += 2;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                had_comment = true;
                let start = i;
                if b.get(i + 2) == Some(&b'!') && !in_exec {
                    let digits = b[i + 3..].iter().take_while(|c| c.is_ascii_digit()).count();
                    let (version, len) = match digits {
                        0 => (None, 0),
                        6 if b.get(i + 9).is_none_or(|c| c.is_ascii_whitespace()) => {
                            (parse_digits(&b[i + 3..i + 9]), 6)
                        }
                        d if d >= 5 => (parse_digits(&b[i + 3..i + 8]), 5),
                        // Fewer than five digits: they are part of the text, as in mysqld.
                        _ => (None, 0),
                    };
                    let end = i + 3 + len;
                    if version.is_none_or(|v| v <= VERSION_ID) {
                        out[start..end].fill(b' ');
                        in_exec = true;
                        i = end;
                        continue;
                    }
                }
                // A comment that is not executed (a plain one, `/*M!`, a newer version, or an
                // optimizer hint `/*+`): blanked out up to its `*/` (or the end).
                let mut j = i + 2;
                while j < b.len() && !(b[j] == b'*' && b.get(j + 1) == Some(&b'/')) {
                    j += 1;
                }
                let end = (j + 2).min(b.len());
                if b.get(i + 2) == Some(&b'+') {
                    // Optimizer hints stay for sqlparser (it reads them as comments).
                    i = end;
                    continue;
                }
                out[start..end].fill(b' ');
                i = end;
            }
            _ => i += 1,
        }
    }
    // Only ASCII bytes were replaced by ASCII blanks, and only whole ASCII sequences
    // (`/*`, `*/`, digits, and comment bodies that run from `/*` to `*/`), so the bytes stay
    // UTF-8.
    let text = String::from_utf8(out)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    Expanded { text: Cow::Owned(text), had_comment }
}

/// MySQL's SELECT options that change no result here (`select_option` in sql_yacc.yy:
/// `SQL_NO_CACHE`, which every mysqldump data query carries, the optimizer and buffering
/// hints): blanked out when they follow the statement's leading SELECT, so sqlparser sees a
/// plain SELECT. mysqld 8 accepts SQL_NO_CACHE with a deprecation warning and ignores it.
pub fn strip_select_options(sql: &str) -> Cow<'_, str> {
    const OPTIONS: [&str; 7] = [
        "SQL_NO_CACHE",
        "SQL_CACHE",
        "HIGH_PRIORITY",
        "STRAIGHT_JOIN",
        "SQL_SMALL_RESULT",
        "SQL_BIG_RESULT",
        "SQL_BUFFER_RESULT",
    ];
    let start = sql.len() - sql.trim_start().len();
    let head = &sql[start..];
    if head.len() < 7 || !head[..6].eq_ignore_ascii_case("SELECT") {
        return Cow::Borrowed(sql);
    }
    let mut out = sql.as_bytes().to_vec();
    let mut i = start + 6;
    let mut changed = false;
    loop {
        let b = sql.as_bytes();
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        let end = b[i..].iter().position(|c| !(c.is_ascii_alphanumeric() || *c == b'_'));
        let end = i + end.unwrap_or(b.len() - i);
        let word = &sql[i..end];
        if end > i && OPTIONS.iter().any(|o| o.eq_ignore_ascii_case(word)) {
            out[i..end].fill(b' ');
            changed = true;
            i = end;
        } else {
            break;
        }
    }
    if !changed {
        return Cow::Borrowed(sql);
    }
    // Only ASCII words were blanked.
    Cow::Owned(
        String::from_utf8(out)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
    )
}

fn parse_digits(d: &[u8]) -> Option<u32> {
    std::str::from_utf8(d).ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn x(s: &str) -> String {
        expand(s).text.into_owned()
    }

    #[test]
    fn versioned_comments_execute_up_to_the_server_version() {
        assert_eq!(x("/*!40101 SET a=1 */").trim(), "SET a=1");
        assert_eq!(x("/*!80040 SET a=1 */").trim(), "SET a=1");
        assert_eq!(x("/*!80041 SET a=1 */").trim(), "");
        assert_eq!(x("/*! SET a=1 */").trim(), "SET a=1");
        assert_eq!(x("/*!999999 SET a=1 */").trim(), "");
        assert_eq!(x("/*!100000 SET a=1 */").trim(), "");
        assert_eq!(x("/*!999999\\- enable the sandbox mode */").trim(), "");
        assert_eq!(x("/*M!100616 SET a=1 */").trim(), "");
        assert_eq!(x("/* SET a=1 */").trim(), "");
        assert!(expand("/*M!100616 SET a=1 */").had_comment);
        assert!(!expand("").had_comment);
    }

    #[test]
    fn select_options_are_dropped() {
        let s = x("SELECT /*!40001 SQL_NO_CACHE */ `a`, `b` FROM `t`");
        assert_eq!(
            strip_select_options(&s).split_whitespace().collect::<Vec<_>>(),
            ["SELECT", "`a`,", "`b`", "FROM", "`t`"]
        );
        assert_eq!(
            strip_select_options("select sql_cache high_priority a")
                .split_whitespace()
                .collect::<Vec<_>>(),
            ["select", "a"]
        );
        assert_eq!(
            strip_select_options("select sql_no_cache_col from t"),
            "select sql_no_cache_col from t"
        );
    }

    #[test]
    fn comments_inside_statements_and_quotes() {
        let s = "INSERT /*!40000 IGNORE */ INTO t VALUES ('/*!40000 x */', \"*/\")";
        let e = x(s);
        assert_eq!(e.len(), s.len());
        assert!(
            e.split_whitespace()
                .collect::<Vec<_>>()
                .starts_with(&["INSERT", "IGNORE", "INTO", "t"]),
            "{e}"
        );
        assert!(e.contains("'/*!40000 x */'"), "{e}");
        let s = "CREATE TABLE t (a int) /*!50100 PARTITION BY HASH(a) */";
        assert!(x(s).contains(" PARTITION BY HASH(a)"));
        assert_eq!(
            x("SELECT 1 /*!50000 , '*/' */").split_whitespace().collect::<Vec<_>>(),
            ["SELECT", "1", ",", "'*/'"]
        );
        assert_eq!(x("SELECT 'a''/*' -- /*!1 x\n").trim_end(), "SELECT 'a''/*' -- /*!1 x");
        // Unterminated: the rest is the comment's text.
        assert_eq!(x("/*!40101 SET a=1").trim(), "SET a=1");
        assert_eq!(x("/* SET a=1").trim(), "");
        assert_eq!(x("SELECT 'é' /*! , 'ü' */"), "SELECT 'é'     , 'ü'   ");
    }
}
