//! Statement text that is not UTF-8 because a string literal holds binary bytes: the form
//! `mariadb-dump`/`mysqldump` write BLOB, BINARY and VARBINARY values in (without
//! `--hex-blob`: the raw bytes, backslash-escaped by `mysql_real_escape_string`), and that
//! mysqld accepts on a utf8mb4 connection because it copies a literal's bytes into a binary
//! column without checking them against the connection's character set.
//!
//! Why by hand, on bytes: the SQL parser above this crate takes `&str`. Each quoted string
//! literal whose bytes (after MySQL's backslash escapes, `Item_string` / `my_lex`'s
//! `get_text`) are not UTF-8 becomes a hexadecimal literal `X'…'` of exactly those bytes: a
//! binary string of the same value (mysqld's `_binary` typing of an invalid literal's bytes),
//! which the SQL layer stores in a binary column unchanged and refuses for a character column
//! as mysqld does (1366). Everything else is copied byte for byte; invalid bytes outside string
//! literals (identifiers, comments) stay an error (1300).
//!
//! Assumes backslash escapes and `"` strings, the defaults (not NO_BACKSLASH_ESCAPES or
//! ANSI_QUOTES, which this layer does not know): the forms dump tools write.
//!
//! Invariant: the result is valid UTF-8, or `None`; a statement that is UTF-8 is never
//! rewritten (callers try `from_utf8` first).

/// The statement with every non-UTF-8 string literal as `X'hex'`; None when bytes outside
/// string literals are not UTF-8 or a literal is unterminated.
pub fn hex_binary_literals(sql: &[u8]) -> Option<String> {
    let mut out: Vec<u8> = Vec::with_capacity(sql.len() * 2);
    let mut i = 0;
    while i < sql.len() {
        let b = sql[i];
        match b {
            b'\'' | b'"' => {
                let start = i;
                let mut value = Vec::new();
                i += 1;
                loop {
                    let c = *sql.get(i)?;
                    if c == b'\\' {
                        let e = *sql.get(i + 1)?;
                        match e {
                            b'0' => value.push(0),
                            b'b' => value.push(8),
                            b'n' => value.push(b'\n'),
                            b'r' => value.push(b'\r'),
                            b't' => value.push(b'\t'),
                            b'Z' => value.push(26),
                            // `\%` and `\_` keep their backslash (for LIKE).
                            b'%' | b'_' => value.extend_from_slice(&[b'\\', e]),
                            other => value.push(other),
                        }
                        i += 2;
                    } else if c == b {
                        if sql.get(i + 1) == Some(&b) {
                            value.push(b);
                            i += 2;
                        } else {
                            i += 1;
                            break;
                        }
                    } else {
                        value.push(c);
                        i += 1;
                    }
                }
                let raw = &sql[start..i];
                if std::str::from_utf8(raw).is_ok() {
                    out.extend_from_slice(raw);
                } else {
                    out.extend_from_slice(b"X'");
                    for v in &value {
                        out.extend_from_slice(format!("{v:02x}").as_bytes());
                    }
                    out.push(b'\'');
                }
            }
            b'`' => {
                // A quoted identifier: copied to its closing backquote (doubled ones inside).
                let start = i;
                i += 1;
                loop {
                    let c = *sql.get(i)?;
                    i += 1;
                    if c == b'`' {
                        if sql.get(i) == Some(&b'`') {
                            i += 1;
                        } else {
                            break;
                        }
                    }
                }
                out.extend_from_slice(&sql[start..i]);
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::hex_binary_literals;

    #[test]
    fn binary_literals_become_hex_and_the_rest_is_kept() {
        let sql = b"INSERT INTO `t``x` VALUES (1,'\x00\xff\\0\\'',\"ok \xc3\xa9\",'it''s')";
        assert_eq!(
            hex_binary_literals(sql).as_deref(),
            Some("INSERT INTO `t``x` VALUES (1,X'00ff0027',\"ok \u{e9}\",'it''s')")
        );
        // Escapes: \\ is one backslash, \% keeps its backslash, \n a newline.
        assert_eq!(
            hex_binary_literals(b"SELECT '\xfe\\\\\\%\\n'").as_deref(),
            Some("SELECT X'fe5c5c250a'")
        );
        // Quotes inside backquotes and the other quote kind inside a string.
        assert_eq!(
            hex_binary_literals(b"SELECT `a'b`, '\"\x80'").as_deref(),
            Some("SELECT `a'b`, X'2280'")
        );
    }

    #[test]
    fn invalid_bytes_outside_literals_or_unterminated_literals_are_refused() {
        assert_eq!(hex_binary_literals(b"SELECT \xff"), None);
        assert_eq!(hex_binary_literals(b"SELECT `\xff`"), None);
        assert_eq!(hex_binary_literals(b"SELECT '\xff"), None);
        assert_eq!(hex_binary_literals(b"SELECT '\xff\\"), None);
    }
}
