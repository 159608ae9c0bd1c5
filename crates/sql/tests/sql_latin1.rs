//! latin1 and ascii columns through the SQL layer (issue 19): values are checked against the
//! column's character set on write (1366), byte-level functions see the column's own bytes
//! (`LENGTH('é')` is 1 and `HEX` is `E9` in a latin1 column, as mysqld stores it), CONVERT
//! USING converts, result column definitions carry the column's set as mysqld's
//! `send_field_metadata` does, and a `SET NAMES latin1` client's text is converted both ways.

mod common;

use common::{err, q, rows, server};

use sql::{Output, Session};

fn one(s: &mut Session, sql: &str) -> String {
    rows(s, sql).concat().join(",")
}

fn setup(s: &mut Session) {
    q(s, "CREATE DATABASE d");
    q(s, "USE d");
    q(
        s,
        "CREATE TABLE t (id INT PRIMARY KEY, l VARCHAR(10) CHARACTER SET latin1, \
         a VARCHAR(10) CHARACTER SET ascii, u VARCHAR(10), lt TEXT CHARACTER SET latin1)",
    );
    q(s, "INSERT INTO t VALUES (1, 'é€x', 'ab', 'é€x', 'Çà')");
}

#[test]
fn byte_functions_see_the_columns_own_bytes() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    assert_eq!(
        one(&mut s, "SELECT LENGTH(l), CHAR_LENGTH(l), HEX(l), LENGTH(u), HEX(u) FROM t"),
        "3,3,E98078,6,C3A9E282AC78"
    );
    assert_eq!(
        one(&mut s, "SELECT OCTET_LENGTH(lt), HEX(lt), LENGTH(a), HEX(a) FROM t"),
        "2,C7E0,2,6162"
    );
    // The hashes are of the latin1 bytes (mysqld's `val_str` of the column).
    assert_eq!(
        one(
            &mut s,
            "SELECT MD5(l) = MD5(X'E98078'), SHA1(l) = SHA1(X'E98078'), MD5(u) = MD5(l) FROM t"
        ),
        "1,1,0"
    );
    assert_eq!(one(&mut s, "SELECT HEX(CAST(l AS BINARY)) FROM t"), "E98078");
    // Comparisons still see characters.
    assert_eq!(one(&mut s, "SELECT l = u, l = 'É€X' FROM t"), "1,1");
}

#[test]
fn convert_using_and_cast_character_set() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    assert_eq!(
        one(
            &mut s,
            "SELECT HEX(CONVERT('é' USING latin1)), LENGTH(CONVERT('é' USING latin1)), \
             CONVERT('日é' USING latin1), \
             HEX(CONVERT('é' USING binary)), CONVERT('é' USING ascii)"
        ),
        "E9,1,?é,C3A9,?"
    );
    assert_eq!(
        one(&mut s, "SELECT HEX(CONVERT(l USING binary)), HEX(CONVERT(l USING utf8mb4)) FROM t"),
        "E98078,C3A9E282AC78"
    );
    assert_eq!(one(&mut s, "SELECT HEX(CONVERT('é€', CHAR CHARACTER SET latin1))"), "E980");
    let e = err(&mut s, "SELECT CONVERT('a' USING koi8x)");
    assert_eq!((e.code(), e.sqlstate()), (1115, "42000"));
}

#[test]
fn characters_latin1_cannot_hold_are_refused() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    let e = err(&mut s, "INSERT INTO t (id, l) VALUES (2, '日本')");
    assert_eq!((e.code(), e.sqlstate()), (1366, "HY000"));
    let e = err(&mut s, "INSERT INTO t (id, a) VALUES (2, 'é')");
    assert_eq!(e.code(), 1366);
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t"), "1", "nothing written");
}

fn columns(o: Output) -> Vec<sql::ResultColumn> {
    match o {
        Output::Rows { columns, .. } => columns,
        other => panic!("not rows: {other:?}"),
    }
}

#[test]
fn column_definitions_carry_the_results_or_the_columns_charset() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    let cols = columns(q(&mut s, "SELECT l, u, lt FROM t"));
    // A utf8mb4 client: every text column in utf8mb4_0900_ai_ci, length = chars × 4.
    let sent: Vec<(u16, u32)> = cols
        .iter()
        .map(|c| c.for_results(s.results_charset()))
        .map(|c| (c.charset, c.length))
        .collect();
    assert_eq!(sent, vec![(255, 40), (255, 40), (255, 65535 * 4)]);
    // character_set_results = NULL: each column in its own character set (latin1: 1 byte).
    q(&mut s, "SET character_set_results = NULL");
    let sent: Vec<(u16, u32)> = cols
        .iter()
        .map(|c| c.for_results(s.results_charset()))
        .map(|c| (c.charset, c.length))
        .collect();
    assert_eq!(sent, vec![(8, 10), (255, 40), (8, 65535)]);
    let convert = s.result_charsets(&cols);
    assert_eq!(
        convert,
        vec![Some(collation::Charset::Latin1), None, Some(collation::Charset::Latin1)]
    );
    // SET NAMES latin1: columns described and sent in latin1.
    q(&mut s, "SET NAMES latin1");
    let sent: Vec<(u16, u32)> = cols
        .iter()
        .map(|c| c.for_results(s.results_charset()))
        .map(|c| (c.charset, c.length))
        .collect();
    assert_eq!(sent, vec![(8, 10), (8, 10), (8, 65535)]);
    assert_eq!(s.result_charsets(&cols), vec![Some(collation::Charset::Latin1); 3]);
}

#[test]
fn a_latin1_client_sends_latin1_statement_text() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    setup(&mut s);
    assert_eq!(s.client_text(b"SELECT '\xe9'"), None, "a utf8mb4 client's bytes are UTF-8");
    q(&mut s, "SET NAMES latin1");
    assert_eq!(s.client_charset(), Some(collation::Charset::Latin1));
    let text = s
        .client_text(b"INSERT INTO t (id, u, l) VALUES (3, '\xe9\x80', '\xe9')")
        .expect("converted");
    assert_eq!(text, "INSERT INTO t (id, u, l) VALUES (3, 'é€', 'é')");
    q(&mut s, &text);
    q(&mut s, "SET NAMES utf8mb4");
    assert_eq!(one(&mut s, "SELECT HEX(u), HEX(l) FROM t WHERE id = 3"), "C3A9E282AC,E9");
    assert_eq!(s.client_text(b"plain ascii"), None);
}
