//! Result column metadata as mysqld 8.0 describes it (`Field::make_send_field`,
//! `Item::make_field`, `Protocol_classic::send_field_metadata`), column labels, affected-row
//! counts with and without CLIENT_FOUND_ROWS, and the character-set statements that decide how
//! text columns are described.

mod common;

use common::server;

use sql::output::{flags, MysqlType};
use sql::{Output, ResultColumn, Session};

fn q(s: &mut Session, sql: &str) -> Output {
    s.query(sql).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// The columns as they go to the client (the session's character_set_results applied).
fn columns(s: &mut Session, sql: &str) -> Vec<ResultColumn> {
    let results = s.results_charset();
    match q(s, sql) {
        Output::Rows { columns, .. } => columns.iter().map(|c| c.for_results(results)).collect(),
        o => panic!("{sql}: expected rows, got {o:?}"),
    }
}

fn shop(s: &mut Session) {
    q(s, "CREATE DATABASE shop");
    q(s, "USE shop");
    q(
        s,
        "CREATE TABLE items (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, sku VARCHAR(50) NOT NULL, \
         qty INT UNSIGNED, price DECIMAL(20,6), note TEXT, big BIGINT, t TINYINT, \
         c CHAR(3), d DATETIME, f DOUBLE, UNIQUE KEY usku (sku), KEY kq (qty, big))",
    );
    q(s, "INSERT INTO items (sku, qty, price, note) VALUES ('a', 2, 1.5, 'x'), ('b', 3, 2, 'y')");
}

#[test]
fn table_columns_have_mysqlds_types_widths_and_flags() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    shop(&mut s);
    let cols = columns(&mut s, "SELECT * FROM items AS i");
    let by = |n: &str| cols.iter().find(|c| c.name == n).expect(n).clone();
    let id = by("id");
    assert_eq!((id.mysql_type, id.length, id.charset), (MysqlType::Long, 11, 63));
    assert_eq!(
        id.flags,
        flags::NOT_NULL | flags::PRI_KEY | flags::AUTO_INCREMENT | flags::PART_KEY,
        "mysqld sends no NUM_FLAG (clients add it)"
    );
    assert_eq!(
        (id.table.as_str(), id.org_table.as_str(), id.schema.as_str()),
        ("i", "items", "shop")
    );
    let sku = by("sku");
    // VARCHAR(50) in utf8mb4: 200 bytes, collation 255 (was 5 570 560 with the swapped fields).
    assert_eq!((sku.mysql_type, sku.length, sku.charset), (MysqlType::VarString, 200, 255));
    assert_eq!(
        sku.flags,
        flags::NOT_NULL | flags::NO_DEFAULT_VALUE | flags::UNIQUE_KEY | flags::PART_KEY
    );
    let qty = by("qty");
    assert_eq!(
        (qty.length, qty.flags),
        (10, flags::UNSIGNED | flags::MULTIPLE_KEY | flags::PART_KEY)
    );
    let big = by("big");
    assert_eq!((big.mysql_type, big.length, big.flags), (MysqlType::LongLong, 20, flags::PART_KEY));
    let price = by("price");
    assert_eq!((price.mysql_type, price.length, price.decimals), (MysqlType::NewDecimal, 22, 6));
    let note = by("note");
    assert_eq!((note.mysql_type, note.length, note.flags), (MysqlType::Blob, 262_140, flags::BLOB));
    assert_eq!((by("t").length, by("c").length, by("c").mysql_type), (4, 12, MysqlType::String));
    let d = by("d");
    assert_eq!(
        (d.mysql_type, d.length, d.flags, d.charset),
        (MysqlType::DateTime, 19, flags::BINARY, 63)
    );
    let f = by("f");
    assert_eq!((f.mysql_type, f.length, f.decimals), (MysqlType::Double, 22, 31));
}

#[test]
fn expression_columns_are_named_and_typed_as_written() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    shop(&mut s);
    let cols = columns(
        &mut s,
        "SELECT SUM(qty), UPPER(sku), COUNT(*), 'héllo', 42, sku AS label, AVG(price), MAX(sku) \
         FROM items",
    );
    let names: Vec<&str> = cols.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        ["SUM(qty)", "UPPER(sku)", "COUNT(*)", "héllo", "42", "label", "AVG(price)", "MAX(sku)"]
    );
    // SUM(INT UNSIGNED): DECIMAL of 10 + 22 digits.
    assert_eq!(
        (cols[0].mysql_type, cols[0].length, cols[0].decimals),
        (MysqlType::NewDecimal, 33, 0)
    );
    assert_eq!(
        (cols[1].mysql_type, cols[1].length, cols[1].charset),
        (MysqlType::VarString, 200, 255)
    );
    assert!(
        cols[1].org_name.is_empty() && cols[1].org_table.is_empty(),
        "expressions have no origin"
    );
    assert_eq!((cols[2].mysql_type, cols[2].length), (MysqlType::LongLong, 21));
    assert_eq!(cols[2].flags, flags::NOT_NULL | flags::BINARY);
    assert_eq!((cols[3].length, cols[3].flags), (20, flags::NOT_NULL));
    assert_eq!((cols[4].length, cols[4].flags), (2, flags::NOT_NULL | flags::BINARY));
    // An alias names the column; org_name keeps the column's own name.
    assert_eq!((cols[5].name.as_str(), cols[5].org_name.as_str()), ("label", "sku"));
    // AVG(DECIMAL(20,6)): 24 digits, 10 decimals.
    assert_eq!((cols[6].length, cols[6].decimals), (26, 10));
    assert_eq!((cols[7].length, cols[7].charset), (200, 255));
}

#[test]
fn character_set_results_decides_text_column_metadata() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    shop(&mut s);
    // NAMES inside a SET list (the MariaDB Java client's connect statement).
    q(&mut s, "SET autocommit=1, NAMES utf8mb4 COLLATE utf8mb4_general_ci, sql_mode=''");
    let c = columns(&mut s, "SELECT sku, note, id FROM items");
    assert_eq!((c[0].charset, c[0].length, c[1].length, c[2].charset), (45, 200, 262_140, 63));
    q(&mut s, "SET NAMES latin1");
    let c = columns(&mut s, "SELECT sku, note FROM items");
    assert_eq!((c[0].charset, c[0].length, c[1].length), (8, 50, 65_535));
    q(&mut s, "SET character_set_results = NULL");
    assert_eq!(q(&mut s, "SELECT @@character_set_results").text_rows()[0][0], "NULL");
    let c = columns(&mut s, "SELECT sku, note FROM items");
    assert_eq!((c[0].charset, c[0].length, c[1].length), (255, 200, 65_535));
    q(&mut s, "SET NAMES DEFAULT");
    assert_eq!(s.results_charset(), Some((255, 4)));
    q(&mut s, "SET CHARACTER SET utf8mb3");
    assert_eq!(s.results_charset(), Some((33, 3)));
    q(&mut s, "SET CHARSET DEFAULT");
    assert_eq!(s.results_charset(), Some((255, 4)));
    assert_eq!(s.query("SET NAMES nope").unwrap_err().code(), 1115);
    assert_eq!(s.query("SET NAMES utf8mb4 COLLATE latin1_bin").unwrap_err().code(), 1253);
    assert_eq!(s.query("SET NAMES utf8mb4 COLLATE nope").unwrap_err().code(), 1273);
    assert_eq!(s.query("SET character_set_client = NULL").unwrap_err().code(), 1231);
    // The handshake's collation sets the session's character sets.
    let mut t = srv.session("root", "localhost");
    t.set_client(224, false);
    assert_eq!(t.results_charset(), Some((224, 4)));
}

#[test]
fn found_rows_counts_matched_rows() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    shop(&mut s);
    let o = q(&mut s, "UPDATE items SET qty = 2 WHERE sku = 'a'");
    let Output::Ok { affected_rows, info, .. } = o else { panic!() };
    assert_eq!((affected_rows, info.as_str()), (0, "Rows matched: 1  Changed: 0  Warnings: 0"));
    let mut f = srv.session("root", "localhost");
    f.set_client(255, true);
    q(&mut f, "USE shop");
    // CLIENT_FOUND_ROWS (Connector/J's default): a matched, unchanged row counts.
    assert_eq!(q(&mut f, "UPDATE items SET qty = 2 WHERE sku = 'a'").affected_rows(), 1);
    assert_eq!(q(&mut f, "UPDATE items SET qty = 2").affected_rows(), 2);
    assert_eq!(
        q(&mut f, "INSERT INTO items (id, sku) VALUES (1, 'a') ON DUPLICATE KEY UPDATE sku = 'a'")
            .affected_rows(),
        1
    );
    assert_eq!(
        q(&mut s, "INSERT INTO items (id, sku) VALUES (1, 'a') ON DUPLICATE KEY UPDATE sku = 'a'")
            .affected_rows(),
        0
    );
    let Output::Ok { info, .. } =
        q(&mut s, "INSERT IGNORE INTO items (id, sku) VALUES (1, 'q'), (9, 'z')")
    else {
        panic!()
    };
    assert_eq!(info, "Records: 2  Duplicates: 1  Warnings: 1");
}

/// Connector/J and the MariaDB Java client read a TINYINT whose column length is 1 as a
/// boolean (`tinyInt1isBit`): the declared display width is the length mysqld sends (its
/// encoding on disk: engine `display_width_tests`), and SHOW CREATE TABLE prints `tinyint(1)` (mysqld 8.0.19+
/// prints no other integer width). BOOL is TINYINT(1); a width past 255 is 1439.
#[test]
fn tinyint_1_keeps_its_display_width() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    q(&mut s, "CREATE DATABASE d");
    q(&mut s, "USE d");
    q(&mut s, "CREATE TABLE b (id INT(5) PRIMARY KEY, f TINYINT(1), g BOOL, t TINYINT, u TINYINT(1) UNSIGNED)");
    let cols = columns(&mut s, "SELECT * FROM b");
    let lengths: Vec<(String, u32)> = cols.iter().map(|c| (c.name.clone(), c.length)).collect();
    let want = [("id", 5), ("f", 1), ("g", 1), ("t", 4), ("u", 1)];
    assert_eq!(lengths, want.map(|(n, l)| (n.to_string(), l)).to_vec());
    let create = q(&mut s, "SHOW CREATE TABLE b").text_rows()[0][1].clone();
    assert!(create.contains("`f` tinyint(1) DEFAULT NULL"), "{create}");
    assert!(create.contains("`g` tinyint(1) DEFAULT NULL"), "{create}");
    assert!(create.contains("`t` tinyint DEFAULT NULL"), "{create}");
    assert!(create.contains("`u` tinyint(1) unsigned DEFAULT NULL"), "{create}");
    assert!(create.contains("`id` int NOT NULL"), "{create}");
    match s.query("CREATE TABLE w (a INT(256))") {
        Err(e) => assert_eq!(e.code(), 1439, "{e}"),
        Ok(o) => panic!("INT(256) accepted: {o:?}"),
    }
}

/// `SET SESSION TRANSACTION ISOLATION LEVEL` and `... READ ONLY` set the session variables
/// drivers read back; `START TRANSACTION READ ONLY` and `transaction_read_only` refuse writes
/// with 1792 (SQLSTATE 25006), reads go on, and the next transaction may write again.
#[test]
fn transaction_characteristics_and_read_only_transactions() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    q(&mut s, "CREATE DATABASE d");
    q(&mut s, "USE d");
    q(&mut s, "CREATE TABLE t (id INT PRIMARY KEY)");
    let one = |s: &mut Session, sql: &str| q(s, sql).text_rows()[0][0].clone();
    q(&mut s, "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED");
    assert_eq!(one(&mut s, "SELECT @@transaction_isolation"), "READ-COMMITTED");
    assert_eq!(one(&mut s, "SELECT @@tx_isolation"), "READ-COMMITTED");
    q(&mut s, "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE");
    assert_eq!(one(&mut s, "SELECT @@transaction_isolation"), "READ-COMMITTED", "next only");
    q(&mut s, "SET GLOBAL TRANSACTION ISOLATION LEVEL REPEATABLE READ");
    assert_eq!(one(&mut s, "SELECT @@global.transaction_isolation"), "REPEATABLE-READ");

    q(&mut s, "START TRANSACTION READ ONLY");
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t"), "0");
    for write in ["INSERT INTO t VALUES (1)", "UPDATE t SET id = 2", "DELETE FROM t"] {
        match s.query(write) {
            Err(e) => {
                assert_eq!((e.code(), e.sqlstate()), (1792, "25006"), "{write}: {e}");
            }
            Ok(o) => panic!("{write} in a READ ONLY transaction: {o:?}"),
        }
    }
    q(&mut s, "COMMIT");
    q(&mut s, "START TRANSACTION READ WRITE");
    q(&mut s, "INSERT INTO t VALUES (1)");
    q(&mut s, "COMMIT");
    q(&mut s, "SET SESSION TRANSACTION READ ONLY");
    assert_eq!(one(&mut s, "SELECT @@transaction_read_only"), "1");
    assert!(s.query("INSERT INTO t VALUES (2)").is_err_and(|e| e.code() == 1792));
    q(&mut s, "SET SESSION TRANSACTION READ WRITE");
    q(&mut s, "INSERT INTO t VALUES (2)");
    assert_eq!(one(&mut s, "SELECT COUNT(*) FROM t"), "2");
}

/// `SHOW SESSION STATUS LIKE 'Ssl%'` on a plain connection: every session row present and
/// empty or 0, as mysqld shows them (clients test `Ssl_cipher` for encryption); with a TLS
/// session the negotiated version and cipher.
#[test]
fn ssl_status_rows_follow_the_connections_tls_session() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    let status = |s: &mut Session, like: &str| {
        q(s, &format!("SHOW SESSION STATUS LIKE '{like}'")).text_rows()
    };
    assert_eq!(status(&mut s, "Ssl_cipher"), vec![vec!["Ssl_cipher".to_string(), String::new()]]);
    assert_eq!(status(&mut s, "Ssl_version")[0][1], "");
    assert_eq!(status(&mut s, "Ssl_sessions_reused")[0][1], "0");
    s.set_tls(Some(protocol::TlsSession {
        version: "TLSv1.3".into(),
        cipher: "TLS_AES_128_GCM_SHA256".into(),
        resumed: false,
        cipher_list: "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384".into(),
    }));
    assert_eq!(status(&mut s, "Ssl_cipher")[0][1], "TLS_AES_128_GCM_SHA256");
    assert_eq!(status(&mut s, "ssl_version")[0][1], "TLSv1.3");
    let all = q(&mut s, "SHOW GLOBAL STATUS LIKE 'Ssl%'").text_rows();
    let names: Vec<&str> = all.iter().map(|r| r[0].as_str()).collect();
    let mut sorted = names.clone();
    sorted.sort_by_key(|n| n.to_ascii_lowercase());
    assert_eq!(names, sorted, "SHOW STATUS is sorted");
    assert!(names.contains(&"Ssl_cipher_list"), "{names:?}");
}

/// Derived expressions get mysqld's widths (`Item_func_additive_op::result_precision` and
/// friends, typelen.rs): `id + 1` on an INT is 12 wide, not BIGINT's 21.
#[test]
fn derived_expression_widths_are_mysqlds() {
    let srv = server();
    let mut s = srv.session("root", "localhost");
    shop(&mut s);
    let cols = columns(
        &mut s,
        "SELECT id + 1, qty + 1, id * 2, price + 1, price * 2, id / 3, id DIV 2, id % 3, -t, \
         CONCAT(sku, 'x'), CONCAT(id, 'x'), IFNULL(id, t), CASE WHEN id > 1 THEN id ELSE t END \
         FROM items",
    );
    let got: Vec<(MysqlType, u32, u8, bool)> = cols
        .iter()
        .map(|c| (c.mysql_type, c.length, c.decimals, c.flags & flags::UNSIGNED != 0))
        .collect();
    let ll = MysqlType::LongLong;
    let dec = MysqlType::NewDecimal;
    assert_eq!(
        got,
        [
            (ll, 12, 0, false),
            (ll, 11, 0, true),
            (ll, 12, 0, false),
            (dec, 23, 6, false),
            (dec, 23, 6, false),
            (dec, 16, 4, false),
            (ll, 11, 0, false),
            (ll, 11, 0, false),
            (ll, 4, 0, false),
            (MysqlType::VarString, 51 * 4, 31, false),
            (MysqlType::VarString, 12 * 4, 31, false),
            (MysqlType::Long, 11, 0, false),
            (MysqlType::Long, 11, 0, false),
        ]
    );
}
