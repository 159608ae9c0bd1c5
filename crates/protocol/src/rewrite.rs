//! Passwords out of statement text before anyone can see it: the text a connection shows in
//! `SHOW [FULL] PROCESSLIST` / `information_schema.PROCESSLIST` (and any log that copies it)
//! has every clear password replaced by `<secret>`, as mysqld's `mysql_rewrite_query`
//! (sql/sql_rewrite.cc, its `Rewriter_create_user`, `Rewriter_alter_user`,
//! `Rewriter_set_password`, `Rewriter_grant`, `Rewriter_change_master`,
//! `Rewriter_start_slave`) does before the statement reaches the process list or the general
//! and slow logs.
//!
//! Why by hand, on bytes: this runs on every COM_QUERY before the SQL layer parses anything
//! (the process list is filled first, so a statement that waits or fails is already visible),
//! and the SQL parser lives in a crate above this one. Ordinary statements pay one look at the
//! first keyword ([`hide_passwords`] borrows the text unchanged unless it starts with CREATE,
//! ALTER, SET, GRANT, CHANGE or START); only those are scanned, once, linearly.
//!
//! The rule: in such a statement, a quoted string that follows `BY` (`IDENTIFIED [WITH
//! plugin] BY`), `REPLACE` (the current password of `ALTER USER … REPLACE`), `PASSWORD` (`SET
//! PASSWORD … =`, `PASSWORD('x')`, `START REPLICA … PASSWORD=`) or a word ending in
//! `_PASSWORD` (`SOURCE_PASSWORD=`, `MASTER_PASSWORD=`), with blanks, comments, `=`, `TO` or
//! `(` between, becomes `<secret>` (in `SET PASSWORD`, so does the literal after `=`). Hashes (`IDENTIFIED WITH plugin AS 'hash'`), names and
//! comments stay. Invariant: no string literal that mysqld's rewriters hide survives, and text
//! outside the replaced literals is kept byte for byte.

use std::borrow::Cow;

/// What replaces a password.
pub const SECRET: &str = "<secret>";

const STATEMENTS: [&str; 6] = ["CREATE", "ALTER", "SET", "GRANT", "CHANGE", "START"];

/// `sql` with its passwords replaced (see the module doc); borrowed when there is none.
pub fn hide_passwords(sql: &str) -> Cow<'_, str> {
    let b = sql.as_bytes();
    let mut i = skip_blank(b, 0);
    let first = word_at(b, i);
    if !STATEMENTS.iter().any(|k| first.eq_ignore_ascii_case(k.as_bytes())) {
        return Cow::Borrowed(sql);
    }
    // `SET PASSWORD [FOR user] = 'x'`: the literal after `=` is the password.
    let set_password = first.eq_ignore_ascii_case(b"SET") && {
        let next = skip_blank(b, i + first.len());
        word_at(b, next).eq_ignore_ascii_case(b"PASSWORD")
    };
    let mut out: Option<String> = None;
    let mut copied = 0;
    // True after a trigger word until the next token that is not `=`, `(` or TO.
    let mut armed = false;
    while i < b.len() {
        let c = b[i];
        if c == b'\'' || c == b'"' {
            let end = string_end(b, i);
            if armed {
                let o = out.get_or_insert_with(|| String::with_capacity(sql.len()));
                o.push_str(&sql[copied..i]);
                o.push_str(SECRET);
                copied = end;
            }
            armed = false;
            i = end;
        } else if c.is_ascii_alphabetic() || c == b'_' || c == b'$' || c >= 0x80 {
            let w = word_at(b, i);
            armed = w.eq_ignore_ascii_case(b"BY")
                || w.eq_ignore_ascii_case(b"REPLACE")
                || w.eq_ignore_ascii_case(b"PASSWORD")
                || (w.len() > 9 && w[w.len() - 9..].eq_ignore_ascii_case(b"_PASSWORD"))
                || (armed && w.eq_ignore_ascii_case(b"TO"));
            i += w.len();
        } else if c == b'`' {
            i = quoted_end(b, i, b'`');
            armed = false;
        } else if c == b'=' || c == b'(' {
            armed |= c == b'=' && set_password;
            i += 1;
        } else if is_blank_or_comment(b, i) {
            i = skip_blank(b, i);
        } else {
            armed = false;
            i += 1;
        }
    }
    match out {
        None => Cow::Borrowed(sql),
        Some(mut o) => {
            o.push_str(&sql[copied..]);
            Cow::Owned(o)
        }
    }
}

/// The identifier-like word starting at `i` (ASCII letters, digits, `_`, `$`, non-ASCII).
fn word_at(b: &[u8], i: usize) -> &[u8] {
    let mut j = i;
    while j < b.len()
        && (b[j].is_ascii_alphanumeric() || b[j] == b'_' || b[j] == b'$' || b[j] >= 0x80)
    {
        j += 1;
    }
    &b[i..j]
}

/// The end (exclusive) of the string literal opening at `i`: doubled quotes and backslash
/// escapes stay inside; an unterminated literal runs to the end.
fn string_end(b: &[u8], i: usize) -> usize {
    let q = b[i];
    let mut j = i + 1;
    while j < b.len() {
        if b[j] == b'\\' {
            j += 2;
            continue;
        }
        if b[j] == q {
            if b.get(j + 1) == Some(&q) {
                j += 2;
                continue;
            }
            return j + 1;
        }
        j += 1;
    }
    b.len()
}

/// The end of a quoted identifier (doubled quote inside).
fn quoted_end(b: &[u8], i: usize, q: u8) -> usize {
    let mut j = i + 1;
    while j < b.len() {
        if b[j] == q {
            if b.get(j + 1) == Some(&q) {
                j += 2;
                continue;
            }
            return j + 1;
        }
        j += 1;
    }
    b.len()
}

fn is_blank_or_comment(b: &[u8], i: usize) -> bool {
    b[i].is_ascii_whitespace()
        || b[i] == b'#'
        || (b[i] == b'-' && b.get(i + 1) == Some(&b'-'))
        || (b[i] == b'/' && b.get(i + 1) == Some(&b'*'))
}

/// Past blanks and comments (`#`, `-- `, `/* */`; a `/*!` comment's body is SQL that mysqld
/// runs, so it is scanned as SQL).
fn skip_blank(b: &[u8], mut i: usize) -> usize {
    while i < b.len() {
        if b[i].is_ascii_whitespace() {
            i += 1;
        } else if b[i] == b'#' || (b[i] == b'-' && b.get(i + 1) == Some(&b'-')) {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
            if b.get(i + 2) == Some(&b'!') {
                // Executable comment: skip the marker and its version digits only.
                i += 3;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                continue;
            }
            i += 2;
            while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                i += 1;
            }
            i = (i + 2).min(b.len());
        } else {
            break;
        }
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_hidden_and_nothing_else_changes() {
        for (sql, want) in [
            ("SET PASSWORD = 'clear'", "SET PASSWORD = <secret>"),
            ("set password for 'a'@'%'='x''y'", "set password for 'a'@'%'=<secret>"),
            ("SET PASSWORD = PASSWORD('p')", "SET PASSWORD = PASSWORD(<secret>)"),
            (
                "CREATE USER a IDENTIFIED BY 'p1', b@'h' IDENTIFIED WITH caching_sha2_password BY \"p2\"",
                "CREATE USER a IDENTIFIED BY <secret>, b@'h' IDENTIFIED WITH caching_sha2_password BY <secret>",
            ),
            (
                "ALTER USER CURRENT_USER() IDENTIFIED BY 'new' REPLACE 'old'",
                "ALTER USER CURRENT_USER() IDENTIFIED BY <secret> REPLACE <secret>",
            ),
            (
                "CREATE USER a IDENTIFIED WITH mysql_native_password AS '*AB' COMMENT 'c'",
                "CREATE USER a IDENTIFIED WITH mysql_native_password AS '*AB' COMMENT 'c'",
            ),
            (
                "GRANT SELECT ON *.* TO u IDENTIFIED BY 'pw'",
                "GRANT SELECT ON *.* TO u IDENTIFIED BY <secret>",
            ),
            (
                "CHANGE REPLICATION SOURCE TO SOURCE_HOST='h', SOURCE_PASSWORD = 'pw', SOURCE_PORT=1",
                "CHANGE REPLICATION SOURCE TO SOURCE_HOST='h', SOURCE_PASSWORD = <secret>, SOURCE_PORT=1",
            ),
            ("START REPLICA USER='u' PASSWORD='pw'", "START REPLICA USER='u' PASSWORD=<secret>"),
            (
                "/* c */ create user a identified /* by 'x' */ by 'é p'",
                "/* c */ create user a identified /* by 'x' */ by <secret>",
            ),
            ("CREATE USER a IDENTIFIED BY 'unterminated", "CREATE USER a IDENTIFIED BY <secret>"),
        ] {
            assert_eq!(hide_passwords(sql), want, "{sql}");
        }
        for sql in [
            "SELECT 'by', password FROM t WHERE x = 'p'",
            "INSERT INTO t VALUES ('IDENTIFIED BY', 'x')",
            "SET @a = 'PASSWORD'",
            "CREATE TABLE t (password VARCHAR(10) DEFAULT 'x')",
            "",
        ] {
            assert!(matches!(hide_passwords(sql), Cow::Borrowed(s) if s == sql), "{sql}");
        }
    }
}
